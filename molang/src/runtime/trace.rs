//! The pose trace `molang run` writes (CSV with a header, or JSON lines): one row per bone
//! per frame in geometry order, then one per locator; numbers as Rust prints f32 (shortest
//! round trip), NaN and the infinities as `NaN`, `inf`, `-inf` (strings in JSON). CSV fields
//! holding a comma, a quote or a line break are quoted per RFC 4180.

use super::play::{Pose, Runtime};
use crate::ir::Slot;
// Names come from the pack: a bone named `b\ntouch x #` must stay one field of one row.
use crate::text::csv_field;

/// Trace layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Jsonl,
}

/// The channel names, in column order.
pub const CHANNELS: [&str; 12] = [
    "rx", "ry", "rz", "px", "py", "pz", "sx", "sy", "sz", "wx", "wy", "wz",
];

/// Which columns a trace has.
#[derive(Clone, Copy, Debug)]
pub struct Columns {
    pub format: Format,
    /// World-space pivot columns wx,wy,wz (implied by `locators`).
    pub world: bool,
    /// One row per locator after the bones.
    pub locators: bool,
    /// One `v.<name>` column per entity variable.
    pub vars: bool,
    /// visible, geometry, textures.
    pub render: bool,
}

/// Formats the rows of one runtime's frames.
pub struct Trace {
    columns: Columns,
    world: bool,
    vars: Vec<(Slot, String)>,
    locator_names: Vec<String>,
    bones: Vec<String>,
    var_values: Vec<Option<f32>>,
}

impl Trace {
    pub fn new(rt: &Runtime, columns: Columns) -> Trace {
        let vars: Vec<(Slot, String)> = if columns.vars {
            rt.scripts
                .names()
                .variables
                .iter()
                .map(|(s, n)| (s, n.to_string()))
                .collect()
        } else {
            Vec::new()
        };
        let locator_names: Vec<String> = if columns.locators {
            rt.model
                .bones
                .iter()
                .flat_map(|b| b.locators.iter().map(|(n, _)| format!("locator:{n}")))
                .collect()
        } else {
            Vec::new()
        };
        Trace {
            columns,
            world: columns.world || columns.locators,
            vars,
            locator_names,
            bones: rt.model.bones.iter().map(|b| b.name.clone()).collect(),
            var_values: Vec::new(),
        }
    }

    /// The CSV header line (with its newline); `None` for JSON lines.
    pub fn header(&self) -> Option<String> {
        if self.columns.format != Format::Csv {
            return None;
        }
        let mut header = String::from("frame,t,bone,rx,ry,rz,px,py,pz,sx,sy,sz");
        if self.world {
            header.push_str(",wx,wy,wz");
        }
        for (_, v) in &self.vars {
            header.push(',');
            header.push_str(&csv_field(&format!("v.{v}")));
        }
        if self.columns.render {
            header.push_str(",visible,geometry,textures");
        }
        header.push('\n');
        Some(header)
    }

    /// Appends the rows of the frame the runtime has just played to `out`.
    pub fn frame(&mut self, rt: &Runtime, frame: u64, t: f32, out: &mut String) {
        let (format, world, render) = (self.columns.format, self.world, self.columns.render);
        self.var_values.clear();
        self.var_values
            .extend(self.vars.iter().map(|(s, _)| rt.variable(*s)));
        let (vars, var_values) = (&self.vars, &self.var_values);
        let pose = rt.pose();
        for (b, name) in self.bones.iter().enumerate() {
            row(
                out,
                format,
                frame,
                t,
                name,
                Some((pose, b)),
                world.then(|| pose.world[b]),
                vars,
                var_values,
                render.then(|| Render {
                    visible: Some(pose.render.visible.get(b).copied().unwrap_or(true)),
                    frame: &pose.render,
                }),
            );
        }
        if self.bones.is_empty() && !vars.is_empty() {
            // An entity with no bones still has variables to show (a `molang fuzz` replay of
            // a script-only entity): one row per frame with an empty bone name.
            row(
                out,
                format,
                frame,
                t,
                "",
                None,
                world.then_some([0.0; 3]),
                vars,
                var_values,
                render.then_some(Render {
                    visible: None,
                    frame: &pose.render,
                }),
            );
        }
        for (i, name) in self.locator_names.iter().enumerate() {
            row(
                out,
                format,
                frame,
                t,
                name,
                None,
                pose.locators.get(i).copied(),
                vars,
                var_values,
                render.then_some(Render {
                    visible: None,
                    frame: &pose.render,
                }),
            );
        }
    }
}

/// A channel's value: `c` indexes [`CHANNELS`].
pub fn channel_value(pose: &Pose, b: usize, c: usize) -> f32 {
    match c {
        0..=2 => pose.rot[b][c],
        3..=5 => pose.pos[b][c - 3],
        6..=8 => pose.scale[b][c - 6],
        _ => pose.world.get(b).map_or(0.0, |w| w[c - 9]),
    }
}

/// The `--render` columns of one row: the bone's visibility (`None` on rows that are not
/// bones) and the frame's render-controller choices.
struct Render<'a> {
    visible: Option<bool>,
    frame: &'a super::render::RenderFrame,
}

/// Writes one trace row. `channels` is `None` for locator rows (channels are not theirs:
/// rotation and position 0, scale 1).
#[allow(clippy::too_many_arguments)]
fn row(
    out: &mut String,
    format: Format,
    frame: u64,
    t: f32,
    bone: &str,
    channels: Option<(&Pose, usize)>,
    world: Option<[f32; 3]>,
    vars: &[(Slot, String)],
    values: &[Option<f32>],
    render: Option<Render>,
) {
    use std::fmt::Write as _;
    let mut vals = [0.0f32, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    if let Some((pose, b)) = channels {
        vals[..3].copy_from_slice(&pose.rot[b]);
        vals[3..6].copy_from_slice(&pose.pos[b]);
        vals[6..].copy_from_slice(&pose.scale[b]);
    }
    match format {
        Format::Csv => {
            let _ = write!(out, "{frame},{t},{}", csv_field(bone));
            for v in vals {
                let _ = write!(out, ",{v}");
            }
            if let Some(w) = world {
                let _ = write!(out, ",{},{},{}", w[0], w[1], w[2]);
            }
            for v in values {
                match v {
                    Some(v) => {
                        let _ = write!(out, ",{v}");
                    }
                    None => out.push(','),
                }
            }
            if let Some(r) = &render {
                let vis = r.visible.map_or("", |v| if v { "1" } else { "0" });
                let _ = write!(
                    out,
                    ",{vis},{},{}",
                    csv_field(r.frame.geometry.as_deref().unwrap_or("")),
                    csv_field(&r.frame.textures.join("|"))
                );
            }
            out.push('\n');
        }
        Format::Jsonl => {
            // NaN and the infinities are strings in JSON, spelt as everywhere else.
            let num = |v: f32| -> String {
                if v.is_finite() {
                    format!("{v}")
                } else {
                    format!("\"{}\"", crate::interp::value::format_f32(v))
                }
            };
            let _ = write!(
                out,
                "{{\"frame\":{frame},\"t\":{},\"bone\":{}",
                num(t),
                serde_json::to_string(bone).unwrap_or_else(|_| "\"?\"".into())
            );
            for (k, v) in CHANNELS[..9].iter().zip(vals) {
                let _ = write!(out, ",\"{k}\":{}", num(v));
            }
            if let Some(w) = world {
                for (k, v) in CHANNELS[9..].iter().zip(w) {
                    let _ = write!(out, ",\"{k}\":{}", num(v));
                }
            }
            for ((_, name), v) in vars.iter().zip(values) {
                let key = serde_json::to_string(&format!("v.{name}")).unwrap_or_default();
                match v {
                    Some(v) => {
                        let _ = write!(out, ",{key}:{}", num(*v));
                    }
                    None => {
                        let _ = write!(out, ",{key}:null");
                    }
                }
            }
            if let Some(r) = &render {
                if let Some(v) = r.visible {
                    let _ = write!(out, ",\"visible\":{v}");
                }
                let _ = write!(
                    out,
                    ",\"geometry\":{},\"textures\":{}",
                    serde_json::to_string(&r.frame.geometry).unwrap_or_else(|_| "null".into()),
                    serde_json::to_string(&r.frame.textures).unwrap_or_else(|_| "[]".into())
                );
            }
            out.push_str("}\n");
        }
    }
}
