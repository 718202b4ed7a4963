//! The input timeline: a CSV with a `t` column (seconds) and one column per query, linearly
//! interpolated to each frame time and clamped at the ends. Columns may also name variables
//! the game sets on the entity (`v.attack_time`, `variable.attack_animation_tick`): the
//! runtime writes them before each frame, as the engine does.

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
    pub times: Vec<f32>,
    /// `rows[i][j]`: query j at `times[i]`.
    pub rows: Vec<Vec<f32>>,
}

/// Strips `q.` / `query.` (case-insensitive) from a column name; `None` if it is no query.
pub fn query_name(column: &str) -> Option<String> {
    match column_name(column)? {
        (Kind::Query, n) => Some(n),
        _ => None,
    }
}

/// Splits `q.name` / `query.name` / `v.name` / `variable.name` (case-insensitive) into its
/// kind and short name; `None` for anything else.
pub fn column_name(column: &str) -> Option<(Kind, String)> {
    let c = column.trim().to_ascii_lowercase();
    let (kind, rest) = if let Some(r) = c.strip_prefix("query.").or_else(|| c.strip_prefix("q.")) {
        (Kind::Query, r)
    } else {
        let r = c
            .strip_prefix("variable.")
            .or_else(|| c.strip_prefix("v."))?;
        (Kind::Variable, r)
    };
    (!rest.is_empty()
        && rest
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.'))
    .then(|| (kind, rest.to_string()))
}

/// Parses the CSV text; errors name the line and column (1-based) of the problem.
pub fn parse(text: &str, file: &str) -> Result<Timeline, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((hline, header)) = lines.next() else {
        return Err(format!(
            "{file}: empty input timeline (expected a header with `t`)"
        ));
    };
    let header = header.trim_start_matches('\u{feff}');
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut t_col = None;
    let mut out = Timeline::default();
    let mut col_of = Vec::new();
    let mut col_start = 1;
    for (i, c) in cols.iter().enumerate() {
        if *c == "t" {
            if t_col.is_some() {
                return Err(format!(
                    "{file}:{}:{col_start}: column `t` appears twice",
                    hline + 1
                ));
            }
            t_col = Some(i);
            col_of.push(None);
        } else {
            let Some((kind, q)) = column_name(c) else {
                return Err(format!(
                    "{file}:{}:{col_start}: column `{c}` is not a query or variable (write `q.name`, `query.name`, `v.name` or `variable.name`)",
                    hline + 1
                ));
            };
            if out
                .queries
                .iter()
                .zip(&out.kinds)
                .any(|(n, k)| *n == q && *k == kind)
            {
                return Err(format!(
                    "{file}:{}:{col_start}: `{c}` appears twice",
                    hline + 1
                ));
            }
            col_of.push(Some(out.queries.len()));
            out.queries.push(q);
            out.kinds.push(kind);
        }
        col_start += c.len() + 1;
    }
    let Some(t_col) = t_col else {
        return Err(format!(
            "{file}:{}:1: the header has no `t` column (seconds)",
            hline + 1
        ));
    };
    for (ln, line) in lines {
        let fields: Vec<&str> = line.split(',').collect();
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
        let mut col = 1;
        for (i, f) in fields.iter().enumerate() {
            let s = f.trim();
            let v = match s.to_ascii_lowercase().as_str() {
                "true" => 1.0,
                "false" => 0.0,
                _ => s
                    .parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        format!(
                            "{file}:{}:{col}: `{s}` is not a number (column `{}`)",
                            ln + 1,
                            cols[i]
                        )
                    })?,
            };
            match col_of[i] {
                Some(j) => row[j] = v,
                None => t = v,
            }
            col += f.len() + 1;
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
    Ok(out)
}

impl Timeline {
    /// Every query's value at time `t` (linear between rows, clamped at the ends), into `out`.
    pub fn sample(&self, t: f32, out: &mut [f32]) {
        let n = self.times.len();
        if n == 0 {
            out.iter_mut().for_each(|v| *v = 0.0);
            return;
        }
        let i = self.times.partition_point(|&x| x <= t);
        if i == 0 {
            out.copy_from_slice(&self.rows[0]);
        } else if i >= n {
            out.copy_from_slice(&self.rows[n - 1]);
        } else {
            let (t0, t1) = (self.times[i - 1], self.times[i]);
            let a = if t1 > t0 { (t - t0) / (t1 - t0) } else { 1.0 };
            for (j, o) in out.iter_mut().enumerate() {
                let (v0, v1) = (self.rows[i - 1][j], self.rows[i][j]);
                *o = v0 + (v1 - v0) * a;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn variable_columns_are_kept_apart_from_queries() {
        let tl = parse("t,q.a,v.attack_time,variable.A\n0,1,0.5,2\n", "in.csv").unwrap();
        assert_eq!(tl.queries, ["a", "attack_time", "a"]);
        assert_eq!(tl.kinds, [Kind::Query, Kind::Variable, Kind::Variable]);
    }

    #[test]
    fn bad_cells_name_line_and_column() {
        let e = parse("t,q.a\n0,1\n1,x\n", "in.csv").unwrap_err();
        assert_eq!(e, "in.csv:3:3: `x` is not a number (column `q.a`)");
        assert!(parse("q.a\n1\n", "in.csv")
            .unwrap_err()
            .contains("no `t` column"));
        assert!(parse("t,x.a\n1,1\n", "in.csv")
            .unwrap_err()
            .contains("not a query or variable"));
        assert!(parse("t,q.a,query.A\n1,1,2\n", "in.csv")
            .unwrap_err()
            .contains("appears twice"));
        assert!(parse("t,q.a\n1,1\n0,2\n", "in.csv")
            .unwrap_err()
            .contains("sorted"));
    }
}
