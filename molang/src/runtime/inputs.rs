//! The input timeline: a CSV with a `t` column (seconds) and one column per query, linearly
//! interpolated to each frame time and clamped at the ends. Angles the game reports wrapped
//! ([`WRAPPED_ANGLES`]) interpolate along the shorter arc and are reported in (−180, 180]. Columns may also name variables
//! the game sets on the entity (`v.attack_time`, `variable.attack_animation_tick`): the
//! runtime writes them before each frame, as the engine does.
//!
//! A query column may give arguments: `q.position_delta(1)`, `q.armor_color_slot(1, 0)`,
//! `query.property('minecraft:has_nectar')` (numbers and single-quoted strings, comma
//! separated; commas inside the parentheses do not split the header). Such a column is the
//! value of that query for exactly those arguments; a column without parentheses is the
//! query's value for any arguments no column matches.

use crate::error::{Error, ErrorKind};
use crate::interp::Value;

/// What an input column feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Query,
    Variable,
}

/// A parsed timeline: input names (short, lower case; `kinds` says query or variable) and rows
/// sorted by time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    pub queries: Vec<String>,
    /// Parallel to `queries`.
    pub kinds: Vec<Kind>,
    /// Parallel to `queries`: the arguments of a query column (`q.position_delta(1)` →
    /// `[Num(1)]`, strings as the game's hash of their bytes); empty for a plain column.
    pub args: Vec<Box<[Value]>>,
    pub times: Vec<f32>,
    /// `rows[i][j]`: query j at `times[i]` (0 in a string column).
    pub rows: Vec<Vec<f32>>,
    /// Parallel to `queries` (may be short: not an angle then): the column is an angle the
    /// game reports wrapped ([`is_wrapped_angle`]). [`parse`] fills it; so does the driver
    /// for a timeline built in code.
    pub angles: Vec<bool>,
    /// Parallel to `queries` (may be short: numbers then): for a column of strings
    /// (`'warm'`, for `q.property('ns:x')`), the game's hash of each row's string.
    pub strings: Vec<Option<Vec<u64>>>,
}

/// Queries whose value is an angle in degrees that the game reports wrapped to (−180, 180]:
/// body and head yaw and pitch, the look-at rotations, the ride and rider rotations, and the
/// camera rotations. Source: the query table of `../shared/spec/molang.md` §6.3 ("yaw of head
/// n, wraps within −179.9…179.9"; "body yaw (−180…180)") and Microsoft's Molang query
/// reference (learn.microsoft.com/minecraft/creator/reference/content/molangreference/
/// examples/molangconcepts/queryfunctions). The pitches stay within ±90, so for them the
/// shorter arc is the straight line; they are listed so that a column never has to be told
/// apart by axis.
pub const WRAPPED_ANGLES: [&str; 18] = [
    "body_x_rotation",
    "body_y_rotation",
    "head_x_rotation",
    "head_y_rotation",
    "target_x_rotation",
    "target_y_rotation",
    "eye_target_x_rotation",
    "eye_target_y_rotation",
    "ride_body_x_rotation",
    "ride_body_y_rotation",
    "ride_head_x_rotation",
    "ride_head_y_rotation",
    "rider_body_x_rotation",
    "rider_body_y_rotation",
    "rider_head_x_rotation",
    "rider_head_y_rotation",
    "camera_rotation",
    "rotation_to_camera",
];

/// Whether query `name` (short, lower case) is one of [`WRAPPED_ANGLES`].
pub fn is_wrapped_angle(name: &str) -> bool {
    WRAPPED_ANGLES.contains(&name)
}

/// An angle in degrees wrapped to (−180, 180], as the game reports yaw (−180 becomes 180).
pub fn wrap_deg(deg: f32) -> f32 {
    let r = deg.rem_euclid(360.0);
    // `+ 0.0`: no −0 (a CSV row of −0 reads as 0 elsewhere too).
    (if r > 180.0 { r - 360.0 } else { r }) + 0.0
}

/// The angle a fraction `a` of the way from `from` to `to` along the shorter arc, wrapped
/// to (−180, 180]: 179.5 → −179.5 is a 1° turn through 180, not 359° through 0. A half turn
/// exactly goes the positive way.
pub fn lerp_angle(from: f32, to: f32, a: f32) -> f32 {
    wrap_deg(from + wrap_deg(to - from) * a)
}

/// Per column of a timeline: whether it is a wrapped angle (queries only).
pub fn angle_columns(queries: &[String], kinds: &[Kind]) -> Vec<bool> {
    queries
        .iter()
        .zip(kinds)
        .map(|(q, k)| *k == Kind::Query && is_wrapped_angle(q))
        .collect()
}

/// Strips `q.` / `query.` (case-insensitive) from a column name; `None` if it is no query
/// (or a query with arguments).
pub fn query_name(column: &str) -> Option<String> {
    match column_name(column)? {
        (Kind::Query, n) => Some(n),
        _ => None,
    }
}

/// Splits `q.name` / `query.name` / `v.name` / `variable.name` (case-insensitive) into its
/// kind and short name; `None` for anything else, arguments included (see [`column`]).
pub fn column_name(column: &str) -> Option<(Kind, String)> {
    match column_of(column) {
        Ok((kind, name, args)) if args.is_empty() => Some((kind, name)),
        _ => None,
    }
}

/// A header cell: kind, short lower-case name and arguments (empty for a plain column).
pub type Column = (Kind, String, Box<[Value]>);

/// Parses one header cell: `q.name`, `query.name(args)`, `v.name`, `variable.name`. The
/// error says what is wrong (the caller adds where). `q.name()` is the plain column: a call
/// with no arguments reads the plain value in both back ends. Errors are
/// [`ErrorKind::Inputs`].
pub fn column_of(column: &str) -> Result<Column, Error> {
    column_text(column).map_err(|why| Error::new(ErrorKind::Inputs, why))
}

fn column_text(column: &str) -> Result<Column, String> {
    let c = column.trim();
    let lower = c.to_ascii_lowercase();
    let (kind, skip) = if let Some(p) = ["query.", "q."].iter().find(|p| lower.starts_with(**p)) {
        (Kind::Query, p.len())
    } else if let Some(p) = ["variable.", "v."].iter().find(|p| lower.starts_with(**p)) {
        (Kind::Variable, p.len())
    } else {
        return Err("is not a query or variable (write `q.name`, `query.name`, `v.name` or `variable.name`)".into());
    };
    // Prefixes are ASCII, so `skip` is a char boundary of `c` too.
    let rest = &c[skip..];
    let (name, call) = match rest.find('(') {
        Some(i) => (rest[..i].trim_end(), Some(&rest[i + 1..])),
        None => (rest, None),
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.')
    {
        return Err("has no valid name (letters, digits, `_` and `.` after the prefix)".into());
    }
    let name = name.to_ascii_lowercase();
    let Some(call) = call else {
        return Ok((kind, name, Box::new([])));
    };
    if kind == Kind::Variable {
        return Err("is a variable: variables take no arguments".into());
    }
    let args = arguments(call).map_err(|why| format!("has bad arguments: {why}"))?;
    Ok((kind, name, args.into()))
}

/// The arguments after `(` up to the closing `)`, which must end the cell.
fn arguments(text: &str) -> Result<Vec<Value>, String> {
    let mut args = Vec::new();
    let mut rest = text.trim_start();
    if let Some(after) = rest.strip_prefix(')') {
        return end(after).map(|()| args);
    }
    loop {
        let n = args.len() + 1;
        if let Some(body) = rest.strip_prefix('\'') {
            let Some(close) = body.find('\'') else {
                return Err(format!("argument {n}: the string has no closing `'`"));
            };
            // Strings are the game's hash of their bytes, case kept (spec §1.2).
            args.push(Value::Str(crate::ir::fnv1_64(&body.as_bytes()[..close])));
            rest = &body[close + 1..];
        } else {
            let len = rest.find([',', ')']).unwrap_or(rest.len());
            let token = rest[..len].trim();
            if token.is_empty() {
                return Err(format!("argument {n} is empty"));
            }
            args.push(Value::Num(number(token).ok_or_else(|| {
                format!("argument {n} `{token}` is not a number or a 'string'")
            })?));
            rest = &rest[len..];
        }
        rest = rest.trim_start();
        match rest.chars().next() {
            Some(',') => rest = rest[1..].trim_start(),
            Some(')') => return end(&rest[1..]).map(|()| args),
            Some(ch) => {
                return Err(format!(
                    "expected `,` or `)` after argument {n}, found `{ch}`"
                ))
            }
            None => return Err("missing `)`".into()),
        }
    }
}

/// Nothing may follow the closing parenthesis.
fn end(after: &str) -> Result<(), String> {
    match after.trim() {
        "" => Ok(()),
        extra => Err(format!("unexpected `{extra}` after `)`")),
    }
}

/// A finite number in Molang's literal syntax (sign, digits, fraction, exponent) or
/// `true` / `false`. Parsed to f32 as the Molang lexer does, so a column `q.f(0.1)` matches
/// the literal `q.f(0.1)` bit for bit. No `nan` / `inf`: a column for them could never match.
fn number(token: &str) -> Option<f32> {
    match token.to_ascii_lowercase().as_str() {
        "true" => return Some(1.0),
        "false" => return Some(0.0),
        _ => {}
    }
    let digits = token.strip_prefix(['-', '+']).unwrap_or(token);
    if !digits.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        || !digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    token.parse::<f32>().ok().filter(|v| v.is_finite())
}

/// Splits a header line at commas outside parentheses and quotes; each cell with the byte
/// offset where it starts. A cell in double quotes (as spreadsheets write a cell with a comma)
/// loses them.
fn split_header(line: &str) -> Vec<(usize, String)> {
    let mut cells = Vec::new();
    let (mut depth, mut quote, mut start) = (0usize, None, 0);
    for (i, ch) in line.char_indices() {
        match (quote, ch) {
            (Some(q), _) if ch == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(ch),
            (None, '(') => depth += 1,
            (None, ')') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => {
                cells.push((start, &line[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    cells.push((start, &line[start..]));
    cells
        .into_iter()
        .map(|(at, raw)| {
            let t = raw.trim();
            let lead = raw.len() - raw.trim_start().len();
            let cell = match t.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
                Some(inner) => inner.replace("\"\"", "\"").trim().to_string(),
                None => t.to_string(),
            };
            (at + lead, cell)
        })
        .collect()
}

/// Parses the CSV text; errors ([`ErrorKind::Inputs`]) name the line and column (1-based)
/// of the problem.
pub fn parse(text: &str, file: &str) -> Result<Timeline, Error> {
    parse_text(text, file).map_err(|why| Error::new(ErrorKind::Inputs, why))
}

fn parse_text(text: &str, file: &str) -> Result<Timeline, String> {
    // Records, not lines: a quoted field may hold a line break. Line numbers are 0-based
    // here, as `lines().enumerate()` gave them.
    let mut lines = crate::text::csv_lines(text)
        .map(|r| {
            r.map(|(n, l)| (n - 1, l))
                .map_err(|e| format!("{file}:{}:1: {}", e.line, e.message))
        })
        .filter(|r| {
            r.as_ref().map_or(true, |(_, l)| {
                !l.trim().is_empty() && !l.trim_start().starts_with('#')
            })
        });
    let Some((hline, header)) = lines.next().transpose()? else {
        return Err(format!(
            "{file}: empty input timeline (expected a header with `t`)"
        ));
    };
    let header = header.trim_start_matches('\u{feff}');
    crate::text::check_fields(header).map_err(|e| format!("{file}:{}:1: {e}", hline + 1))?;
    let cols = split_header(header);
    let mut t_col = None;
    let mut out = Timeline::default();
    let mut col_of = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, (at, c)) in cols.iter().enumerate() {
        let col_start = at + 1;
        if c == "t" {
            if t_col.is_some() {
                return Err(format!(
                    "{file}:{}:{col_start}: column `t` appears twice",
                    hline + 1
                ));
            }
            t_col = Some(i);
            col_of.push(None);
        } else {
            let (kind, q, args) = column_text(c).map_err(|why| {
                format!(
                    "{file}:{}:{col_start}: column `{}` {why}",
                    hline + 1,
                    crate::text::excerpt(c, 60)
                )
            })?;
            // Arguments compare as Molang's `==` (`-0` is `0`; columns hold no NaN): one set
            // lookup per column, not a search of the columns before (100,000 columns).
            let key: Vec<(u8, u64)> = (args.iter())
                .map(|a| match *a {
                    Value::Num(x) => (0, (x + 0.0).to_bits() as u64),
                    Value::Str(h) => (1, h),
                    other => (2, crate::ir::fnv1_64(other.display().as_bytes())),
                })
                .collect();
            if !seen.insert((q.clone(), kind == Kind::Query, key)) {
                return Err(format!(
                    "{file}:{}:{col_start}: `{}` appears twice",
                    hline + 1,
                    crate::text::excerpt(c, 60)
                ));
            }
            col_of.push(Some(out.queries.len()));
            out.queries.push(q);
            out.kinds.push(kind);
            out.args.push(args);
        }
    }
    let Some(t_col) = t_col else {
        return Err(format!(
            "{file}:{}:1: the header has no `t` column (seconds)",
            hline + 1
        ));
    };
    for r in lines {
        let (ln, line) = r?;
        let fields: Vec<(usize, std::borrow::Cow<'_, str>)> =
            crate::text::csv_split(line).map_err(|e| format!("{file}:{}:1: {e}", ln + 1))?;
        if fields.len() != cols.len() {
            return Err(format!(
                "{file}:{}:1: {} fields, the header has {}",
                ln + 1,
                fields.len(),
                cols.len()
            ));
        }
        let mut row = vec![0.0; out.queries.len()];
        let mut t = 0.0;
        for (i, (at, f)) in fields.iter().enumerate() {
            let col = at + 1;
            let s = f.trim();
            // What a message echoes of the cell: a 1 GB bad cell is not printed whole.
            let shown = crate::text::excerpt(s, 60);
            let first_row = out.times.is_empty();
            if let Some(j) = col_of[i] {
                let quoted = s.starts_with('\'');
                if first_row && out.strings.len() <= j {
                    out.strings.resize(j + 1, None);
                }
                if first_row && quoted {
                    if out.kinds[j] != Kind::Query || out.args[j].is_empty() {
                        return Err(format!(
                            "{file}:{}:{col}: `{shown}` is a string; only a query column with arguments takes strings, like `q.property('ns:name')` (column `{}`)",
                            ln + 1,
                            crate::text::excerpt(&cols[i].1, 60)
                        ));
                    }
                    out.strings[j] = Some(Vec::new());
                }
                if let Some(list) = out.strings.get_mut(j).and_then(|l| l.as_mut()) {
                    let inner = s
                        .strip_prefix('\'')
                        .and_then(|r| r.strip_suffix('\''))
                        .filter(|r| !r.contains('\''));
                    let Some(inner) = inner else {
                        return Err(format!(
                            "{file}:{}:{col}: `{shown}` is not a 'string' (column `{}` holds strings from its first row on)",
                            ln + 1,
                            crate::text::excerpt(&cols[i].1, 60)
                        ));
                    };
                    // Strings are the game's hash of their bytes, case kept (spec §1.2).
                    list.push(crate::ir::fnv1_64(inner.as_bytes()));
                    continue;
                }
                if quoted {
                    return Err(format!(
                        "{file}:{}:{col}: `{shown}` is a string, but column `{}` holds numbers from its first row on",
                        ln + 1,
                        crate::text::excerpt(&cols[i].1, 60)
                    ));
                }
            }
            let v = match s.to_ascii_lowercase().as_str() {
                "true" => 1.0,
                "false" => 0.0,
                _ => s
                    .parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        format!(
                            "{file}:{}:{col}: `{shown}` is not a number (column `{}`)",
                            ln + 1,
                            crate::text::excerpt(&cols[i].1, 60)
                        )
                    })?,
            };
            match col_of[i] {
                Some(j) => row[j] = v,
                None => t = v,
            }
        }
        if let Some(&prev) = out.times.last() {
            if t < prev {
                return Err(format!(
                    "{file}:{}:1: time {t} is before the previous row's {prev} (rows must be sorted by `t`)",
                    ln + 1
                ));
            }
        }
        let _ = t_col;
        out.times.push(t);
        out.rows.push(row);
    }
    out.angles = angle_columns(&out.queries, &out.kinds);
    Ok(out)
}

impl Timeline {
    /// Column `j`'s string at time `t` (the hash of the last row at or before `t`, the first
    /// row's before it: strings step, they do not blend); `None` for a column of numbers.
    pub fn string_at(&self, j: usize, t: f32) -> Option<u64> {
        let list = self.strings.get(j)?.as_ref()?;
        let i = self.times.partition_point(|&x| x <= t).saturating_sub(1);
        list.get(i).copied()
    }

    /// Every query's value at time `t` (linear between rows, clamped at the ends), into `out`.
    /// Wrapped angles ([`Timeline::angles`]) take the shorter arc and come out in (−180, 180].
    pub fn sample(&self, t: f32, out: &mut [f32]) {
        let n = self.times.len();
        if n == 0 {
            out.iter_mut().for_each(|v| *v = 0.0);
            return;
        }
        let i = self.times.partition_point(|&x| x <= t);
        let angle = |j: usize| self.angles.get(j).copied().unwrap_or(false);
        if i == 0 || i >= n {
            let row = &self.rows[if i == 0 { 0 } else { n - 1 }];
            for (j, o) in out.iter_mut().enumerate() {
                *o = if angle(j) { wrap_deg(row[j]) } else { row[j] };
            }
        } else {
            let (t0, t1) = (self.times[i - 1], self.times[i]);
            let a = if t1 > t0 { (t - t0) / (t1 - t0) } else { 1.0 };
            for (j, o) in out.iter_mut().enumerate() {
                let (v0, v1) = (self.rows[i - 1][j], self.rows[i][j]);
                *o = if angle(j) {
                    lerp_angle(v0, v1, a)
                } else {
                    v0 + (v1 - v0) * a
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `in.csv` holding `csv` is an inputs error that reads `message`.
    #[track_caller]
    fn assert_inputs_error(csv: &str, message: &str) {
        let e = parse(csv, "in.csv").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Inputs);
        assert_eq!(e.to_string(), message);
    }

    /// The error `in.csv` holding `csv` gives, as users read it.
    fn error_text(csv: &str) -> String {
        parse(csv, "in.csv").unwrap_err().to_string()
    }

    #[test]
    fn string_cells_step_and_hash_like_molang_strings() {
        let tl = parse(
            "t,q.property('ns:state'),q.ground_speed\n0,'none',0\n1,'Warm',4\n",
            "in.csv",
        )
        .unwrap();
        let h = |s: &str| Some(crate::ir::fnv1_64(s.as_bytes()));
        assert_eq!(tl.string_at(0, -1.0), h("none"));
        assert_eq!(
            tl.string_at(0, 0.99),
            h("none"),
            "strings step, they do not blend"
        );
        assert_eq!(tl.string_at(0, 1.0), h("Warm"), "case is kept");
        assert_eq!(tl.string_at(0, 9.0), h("Warm"));
        assert_eq!(tl.string_at(1, 0.5), None, "a number column");
        let mut v = [0.0; 2];
        tl.sample(0.5, &mut v);
        assert_eq!(v[1], 2.0);
    }

    #[test]
    fn string_cells_only_in_columns_with_arguments_and_never_mixed() {
        assert_inputs_error(
            "t,q.variant\n0,'warm'\n",
            "in.csv:2:3: `'warm'` is a string; only a query column with arguments takes strings, like `q.property('ns:name')` (column `q.variant`)",
        );
        assert_inputs_error(
            "t,q.property('ns:a')\n0,'warm'\n1,2\n",
            "in.csv:3:3: `2` is not a 'string' (column `q.property('ns:a')` holds strings from its first row on)",
        );
        assert_inputs_error(
            "t,q.property('ns:a')\n0,2\n1,'warm'\n",
            "in.csv:3:3: `'warm'` is a string, but column `q.property('ns:a')` holds numbers from its first row on",
        );
        assert_inputs_error(
            "t,q.property('ns:a')\n0,'it's'\n",
            "in.csv:2:3: `'it's'` is not a 'string' (column `q.property('ns:a')` holds strings from its first row on)",
        );
    }

    #[test]
    fn interpolates_and_clamps() {
        let tl = parse(
            "t,q.ground_speed,query.is_on_ground\n0,0,1\n1,4,0\n",
            "in.csv",
        )
        .unwrap();
        assert_eq!(tl.queries, ["ground_speed", "is_on_ground"]);
        let mut v = [0.0; 2];
        tl.sample(0.25, &mut v);
        assert_eq!(v, [1.0, 0.75]);
        tl.sample(-1.0, &mut v);
        assert_eq!(v, [0.0, 1.0]);
        tl.sample(9.0, &mut v);
        assert_eq!(v, [4.0, 0.0]);
    }

    /// Yaw crossing ±180 between two rows turns the short way (159 → −153 is a 48° turn
    /// through 180, not 312° through 0), and every value is reported in (−180, 180]; a
    /// column that is no angle still interpolates straight.
    #[test]
    fn wrapped_angles_take_the_shorter_arc_between_rows() {
        let tl = parse(
            "t,q.body_y_rotation,q.ground_speed,v.body_y_rotation\n0,159,159,159\n1,-153,-153,-153\n2,540,0,0\n",
            "in.csv",
        )
        .unwrap();
        assert_eq!(tl.angles, [true, false, false]);
        let mut v = [0.0; 3];
        tl.sample(0.5, &mut v);
        assert_eq!(v[0], -177.0);
        assert_eq!(v[1], 3.0);
        assert_eq!(v[2], 3.0, "a variable column is not a query angle");
        tl.sample(0.75, &mut v);
        assert_eq!(v[0], -165.0);
        // −153 → 540 (= 180): 27° the negative way.
        tl.sample(1.5, &mut v);
        assert!((v[0] - 193.5 + 360.0).abs() < 1e-4, "{v:?}");
        // Clamped after the last row, and wrapped: 540 reads 180.
        tl.sample(9.0, &mut v);
        assert_eq!(v[0], 180.0);
    }

    #[test]
    fn wrap_and_lerp_angle_edges() {
        assert_eq!(wrap_deg(-180.0), 180.0);
        assert_eq!(wrap_deg(180.0), 180.0);
        assert_eq!(wrap_deg(-0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(wrap_deg(-190.0), 170.0);
        assert_eq!(wrap_deg(725.0), 5.0);
        // 179.5 → −179.5 is a 1° turn.
        assert_eq!(lerp_angle(179.5, -179.5, 0.5), 180.0);
        assert!((lerp_angle(179.5, -179.5, 0.75) + 179.75).abs() < 1e-4);
        assert!((lerp_angle(-179.5, 179.5, 0.25) + 179.75).abs() < 1e-4);
        assert_eq!(lerp_angle(10.0, 20.0, 0.5), 15.0);
    }

    #[test]
    fn variable_columns_are_kept_apart_from_queries() {
        let tl = parse("t,q.a,v.attack_time,variable.A\n0,1,0.5,2\n", "in.csv").unwrap();
        assert_eq!(tl.queries, ["a", "attack_time", "a"]);
        assert_eq!(tl.kinds, [Kind::Query, Kind::Variable, Kind::Variable]);
    }

    #[test]
    fn bad_cells_name_line_and_column() {
        assert_inputs_error(
            "t,q.a\n0,1\n1,x\n",
            "in.csv:3:3: `x` is not a number (column `q.a`)",
        );
        assert!(error_text("q.a\n1\n").contains("no `t` column"));
        assert!(error_text("t,x.a\n1,1\n").contains("not a query or variable"));
        assert!(error_text("t,q.a,query.A\n1,1,2\n").contains("appears twice"));
        assert!(error_text("t,q.a\n1,1\n0,2\n").contains("sorted"));
    }

    fn args_of(c: &str) -> Vec<Value> {
        let (kind, _, args) = column_of(c).unwrap();
        assert_eq!(kind, Kind::Query);
        args.into_vec()
    }

    #[test]
    fn columns_with_arguments_parse_numbers_and_strings() {
        let h = |s: &str| Value::Str(crate::ir::fnv1_64(s.as_bytes()));
        assert_eq!(args_of("q.position_delta(1)"), [Value::Num(1.0)]);
        assert_eq!(
            column_of("Query.Head_Y_Rotation ( -0.5 , 1e1 )").unwrap(),
            (
                Kind::Query,
                "head_y_rotation".to_string(),
                vec![Value::Num(-0.5), Value::Num(10.0)].into()
            )
        );
        // Strings keep their case (the hash is of the bytes as written), commas and
        // parentheses included.
        assert_eq!(
            args_of("query.property('Minecraft:Has_Nectar')"),
            [h("Minecraft:Has_Nectar")]
        );
        assert_ne!(h("Minecraft:Has_Nectar"), h("minecraft:has_nectar"));
        assert_eq!(
            args_of("q.is_item_name_any('slot.weapon.mainhand', 0, 'a,(b)')"),
            [h("slot.weapon.mainhand"), Value::Num(0.0), h("a,(b)")]
        );
        assert_eq!(
            args_of("q.f(true, .5, 2.)"),
            [Value::Num(1.0), Value::Num(0.5), Value::Num(2.0)]
        );
        // The same f32 as the Molang literal, bit for bit.
        assert_eq!(args_of("q.f(0.1)"), [Value::Num(0.1f32)]);
        // No arguments is the plain column.
        assert_eq!(args_of("q.f()"), []);
        assert_eq!(column_name("q.f(1)"), None);
        assert_eq!(column_name("q.f"), Some((Kind::Query, "f".to_string())));
    }

    #[test]
    fn bad_argument_syntax_is_an_error_naming_the_problem() {
        let bad = |c: &str, want: &str| {
            let e = column_of(c).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Inputs, "{c}: {e}");
            assert!(e.to_string().contains(want), "{c}: {e}");
        };
        bad("q.f(1", "missing `)`");
        bad("q.f(1,", "argument 2 is empty");
        bad("q.f(1,)", "argument 2 is empty");
        bad("q.f(,1)", "argument 1 is empty");
        bad("q.f('abc)", "no closing `'`");
        bad("q.f(1)x", "unexpected `x` after `)`");
        bad("q.f(1)(2)", "unexpected `(2)` after `)`");
        bad("q.f(abc)", "`abc` is not a number");
        bad("q.f(nan)", "`nan` is not a number");
        bad("q.f(inf)", "`inf` is not a number");
        bad("q.f(1e39)", "`1e39` is not a number");
        bad("q.f(1 2)", "`1 2` is not a number");
        bad("q.f('a' 'b')", "expected `,` or `)` after argument 1");
        bad("q.f((1))", "`(1` is not a number");
        bad("q.(1)", "no valid name");
        bad("q.f)", "no valid name");
        bad("v.a(1)", "variables take no arguments");
        bad("x.f(1)", "not a query or variable");
    }

    #[test]
    fn argument_columns_in_a_timeline() {
        let tl = parse(
            "t,q.position_delta(0),\"q.armor_color_slot(1, 0)\",q.armor_color_slot(1,1),q.position_delta\n0,1,2,3,4\n1,3,2,3,4\n",
            "in.csv",
        )
        .unwrap();
        assert_eq!(
            tl.queries,
            [
                "position_delta",
                "armor_color_slot",
                "armor_color_slot",
                "position_delta"
            ]
        );
        assert_eq!(tl.args[0][..], [Value::Num(0.0)]);
        assert_eq!(tl.args[1][..], [Value::Num(1.0), Value::Num(0.0)]);
        assert_eq!(tl.args[2][..], [Value::Num(1.0), Value::Num(1.0)]);
        assert!(tl.args[3].is_empty());
        // Interpolated like any column.
        let mut v = [0.0; 4];
        tl.sample(0.5, &mut v);
        assert_eq!(v, [2.0, 2.0, 3.0, 4.0]);
        // Errors name the file, line, column and the header cell.
        assert_inputs_error("t,q.a,q.f(1,x)\n0,1,2\n", "in.csv:1:7: column `q.f(1,x)` has bad arguments: argument 2 `x` is not a number or a 'string'");
        // Numbers compare by value: 0 and -0 (or 1 and 1.0) are the same column.
        assert!(error_text("t,q.f(0),q.f(-0)\n0,1,2\n").contains("`q.f(-0)` appears twice"));
        assert!(error_text("t,q.f(1),q.F(1.0)\n0,1,2\n").contains("appears twice"));
        // Same name, other arguments: another column.
        assert!(parse("t,q.f(1),q.f('1'),q.f\n0,1,2,3\n", "in.csv").is_ok());
        // A data row is still split at every comma: its cells are numbers.
        assert!(error_text("t,q.f(1, 2)\n0,1,2\n").contains("3 fields, the header has 2"));
    }
}
