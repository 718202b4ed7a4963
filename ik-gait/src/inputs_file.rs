//! `--inputs FILE.csv` for `doggoyle check|run|plot`: the user's own motion profile (the text
//! the front end read), parsed by [`Scenario::from_csv`], and a warning for every column the
//! rig does not read (a typo in a query name would otherwise be a column of zeros nobody
//! notices).

use crate::error::Error;
use crate::scenarios::Scenario;

/// The columns [`Scenario::from_csv`] reads.
pub const USED: [&str; 8] = crate::scenarios::CSV_COLUMNS;

/// One warning per header cell the rig does not use, saying why or what was probably meant.
pub fn unused_columns(header: &str) -> Vec<String> {
    let mut out = Vec::new();
    let header = header.strip_prefix('\u{feff}').unwrap_or(header);
    // Bounded and quote-aware like the reader ([`Scenario::from_csv`] refused the rest).
    let cells = molang::text::csv_split(header).unwrap_or_default();
    for (i, (_, raw)) in cells.iter().enumerate() {
        let h = raw.trim().to_ascii_lowercase().replace("query.", "q.");
        if USED.contains(&h.as_str()) {
            continue;
        }
        let why = match h.as_str() {
            "q.delta_time" => "the frame time comes from --fps".to_string(),
            "q.modified_distance_moved" => {
                "the rig's fallback counter is built from q.ground_speed".to_string()
            }
            "" => "it has no name".to_string(),
            _ => {
                let near = USED
                    .iter()
                    .map(|k| (strsim::levenshtein(&h, k), *k))
                    .filter(|(d, _)| *d <= 3.max(h.len() / 4))
                    .min();
                match near {
                    Some((_, k)) => format!("did you mean `{k}`?"),
                    None => format!("the columns read are {}", USED.join(", ")),
                }
            }
        };
        out.push(format!(
            "warning: column {} `{}` is not used ({why})",
            i + 1,
            molang::text::excerpt(raw.trim(), 60)
        ));
    }
    out
}

/// Parses a CSV motion profile's text: the scenario (named `name`, the file's name in the front
/// end) and the unused-column warnings. The error (of kind [`Inputs`](crate::ErrorKind::Inputs)) does
/// not name the file: the front end that read it does.
pub fn parse(name: &'static str, text: &str) -> Result<(Scenario, Vec<String>), Error> {
    // The scenario first: it refuses lines and rows past the CSV limits before the header
    // is split for the warnings.
    let sc = Scenario::from_csv(name, text)?;
    let header = molang::text::csv_lines(text)
        .filter_map(Result::ok)
        .map(|(_, l)| l)
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let warnings = unused_columns(header);
    Ok((sc, warnings))
}
