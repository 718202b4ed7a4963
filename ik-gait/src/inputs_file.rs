//! `--inputs FILE.csv` for `doggoyle check|run|plot`: the user's own motion profile, read by
//! [`Scenario::from_csv`], and a warning for every column the rig does not read (a typo in a
//! query name would otherwise be a column of zeros nobody notices).

use crate::scenarios::Scenario;
use std::path::Path;

/// The columns [`Scenario::from_csv`] reads.
pub const USED: [&str; 8] = crate::scenarios::CSV_COLUMNS;

/// One warning per header cell the rig does not use, saying why or what was probably meant.
pub fn unused_columns(header: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, raw) in header.split(',').enumerate() {
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
            raw.trim()
        ));
    }
    out
}

/// Reads a CSV motion profile: the scenario (named after the file) and the unused-column
/// warnings. Errors name the file.
pub fn load(path: &Path) -> Result<(Scenario, Vec<String>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let header = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let warnings = unused_columns(header);
    // A scenario's name is `&'static str`; one CSV per process run, so leaking it is fine.
    let name: &'static str = Box::leak(path.display().to_string().into_boxed_str());
    let sc = Scenario::from_csv(name, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((sc, warnings))
}
