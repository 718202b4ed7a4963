//! `RigParams` as a JSON file: `doggoyle … --params dog.json` and `doggoyle params --write`.
//! The text only: the front end reads and writes the file (and keeps its no-overwrite rule).
//!
//! The file holds every field of [`RigParams`] (spec §2 and §6), with the legs as an object
//! keyed by leg name (`"legs": {"lf": {...}, "rf": {...}, "lh": {...}, "rh": {...}}`). Serde
//! reads it with `deny_unknown_fields` and no defaults, so an unknown or a missing field is an
//! error naming the field, its path and the file/line/column. The §8 rest poses are not in
//! the file: [`from_json`] solves them again for the file's values
//! ([`crate::params::with_baked_rest`]), which is what the generator then bakes.

use crate::error::{Error, ErrorKind};
use crate::params::{LegParams, RestPoses, RigParams, LEG_NAMES, REST_POSES};
use serde::{Deserialize, Serialize};

/// The `rest` field's value while a file is read (replaced by the bake right after).
pub fn baked_default() -> RestPoses {
    REST_POSES
}

/// `legs` as `{"lf": …, "rf": …, "lh": …, "rh": …}`; `name` and `fore` follow from the key.
pub mod legs_by_name {
    use super::*;

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Legs<T> {
        lf: T,
        rf: T,
        lh: T,
        rh: T,
    }

    pub fn serialize<S: serde::Serializer>(legs: &[LegParams; 4], s: S) -> Result<S::Ok, S::Error> {
        let [lf, rf, lh, rh] = legs;
        Legs { lf, rf, lh, rh }.serialize(s)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[LegParams; 4], D::Error> {
        let l = Legs::<LegParams>::deserialize(d)?;
        let mut legs = [l.lf, l.rf, l.lh, l.rh];
        for (i, leg) in legs.iter_mut().enumerate() {
            leg.name = LEG_NAMES[i];
            leg.fore = i < 2;
        }
        Ok(legs)
    }
}

/// Reads a params file's text (`file` names it in errors). Errors are of kind
/// [`ParamsFile`](ErrorKind::ParamsFile), their message `FILE:LINE:COLUMN: PATH: what`, e.g. `dog.json:12:5: legs.lf: unknown field `aa`, expected
/// one of ...`. The result has its rest poses solved again; it is not yet validated
/// ([`RigParams::validate`] says what no rig can satisfy).
pub fn from_json(text: &str, file: &str) -> Result<RigParams, Error> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let p: RigParams = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.inner();
        let msg = inner.to_string();
        // serde_json appends " at line L column C"; we put the position first instead.
        let msg = match msg.rsplit_once(" at line ") {
            Some((m, _)) => m.to_string(),
            None => msg,
        };
        // For an unknown field the path ends in that field: name the object it is in.
        let path = if msg.starts_with("unknown field") {
            path.rsplit_once('.')
                .map_or(String::new(), |(parent, _)| parent.to_string())
        } else {
            path
        };
        let at = if path == "." || path.is_empty() {
            String::new()
        } else {
            format!("{path}: ")
        };
        let msg = format!("{file}:{}:{}: {at}{msg}", inner.line(), inner.column());
        Error::new(ErrorKind::ParamsFile, msg)
    })?;
    let bad = non_finite_fields(&p);
    if !bad.is_empty() {
        let msg = format!("{file}: {}", bad.join("; "));
        return Err(Error::new(ErrorKind::ParamsFile, msg));
    }
    // The §8 bisections need sane inputs; refuse what cannot be solved before baking.
    Ok(if p.problems().is_empty() {
        crate::params::with_baked_rest(p)
    } else {
        p
    })
}

/// The parameters as the JSON a params file holds (pretty-printed, fields in struct order).
pub fn to_json(p: &RigParams) -> String {
    let mut s = serde_json::to_string_pretty(p).expect("RigParams serialises");
    s.push('\n');
    s
}

/// Fields whose value is not a finite number (a JSON `1e39` is infinite as an `f32`), by path.
pub fn non_finite_fields(p: &RigParams) -> Vec<String> {
    // Serialised, a non-finite f32 becomes `null`: walk the tree for those.
    let v = serde_json::to_value(p).expect("RigParams serialises");
    let mut out = Vec::new();
    walk(&v, String::new(), &mut out);
    out
}

fn walk(v: &serde_json::Value, path: String, out: &mut Vec<String>) {
    use serde_json::Value;
    match v {
        Value::Null => out.push(format!(
            "{path} is not a finite number (it must fit in an f32, below 3.4e38)"
        )),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                walk(x, format!("{path}[{i}]"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(x, p, out);
            }
        }
        _ => {}
    }
}
