//! Writes a large synthetic add-on (a resource pack and a behaviour pack) for measuring
//! `molang check` at scale: `mobs` entities, each with a client entity, a behaviour entity, a
//! geometry, an animation file, client and server animation controllers and a render
//! controller, holding realistic Molang (queries, variables, conditionals, script arrays,
//! keyframes). Deterministic for a seed. It writes only inside the folder it is given, which
//! it creates (its parent must exist) or which must be empty.
//!
//! ```text
//! cargo run --release --example gen_pack -- OUT [--expressions 50000] [--seed 1]
//! target/release/molang check OUT/resource_pack OUT/behavior_pack
//! ```
//!
//! Also used by the memory test of `molang check` (`molang/cli/tests/hostile.rs`).

use std::fmt::Write as _;
use std::path::Path;

/// What was written.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    /// JSON files written (besides them, three placeholder texture files per mob).
    pub files: usize,
    /// JSON bytes written.
    pub bytes: u64,
    /// Molang expressions written (the sites `molang check` counts, within a few).
    pub expressions: usize,
}

/// Splitmix64: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    /// A number with one decimal in [-lim, lim].
    fn num(&mut self, lim: f32) -> String {
        let x = (self.below(2001) as f32 / 1000.0 - 1.0) * lim;
        format!("{:.1}", x)
    }
}

const QUERIES: &[&str] = &[
    "q.anim_time",
    "q.life_time",
    "q.modified_distance_moved",
    "q.modified_move_speed",
    "q.ground_speed",
    "q.vertical_speed",
    "q.target_x_rotation",
    "q.target_y_rotation",
    "q.head_y_rotation(0)",
    "q.body_y_rotation",
    "q.delta_time",
    "q.health",
    "q.max_health",
    "q.time_of_day",
];

const FLAGS: &[&str] = &[
    "q.is_on_ground",
    "q.is_moving",
    "q.is_sneaking",
    "q.is_sleeping",
    "q.is_baby",
    "q.is_in_water",
    "q.is_angry",
    "q.is_sitting",
    "q.is_riding",
    "q.has_target",
];

const BONES: &[&str] = &[
    "root", "body", "head", "neck", "jaw", "tail", "tail2", "leg0", "leg1", "leg2", "leg3", "arm0",
    "arm1", "wing0", "wing1", "ear0", "ear1",
];

/// A value expression reading queries and the entity's variables.
fn value(r: &mut Rng, vars: &[String]) -> String {
    let q = r.pick(QUERIES);
    let v = &vars[r.below(vars.len())];
    match r.below(7) {
        0 => format!("math.sin({q} * {}) * {}", r.num(40.0), r.num(30.0)),
        1 => format!("math.cos(q.anim_time * {}) * v.{v}", r.num(300.0)),
        2 => format!("{} ? {} : {}", r.pick(FLAGS), r.num(45.0), r.num(10.0)),
        3 => format!("math.clamp({q} * {}, -45, 45)", r.num(2.0)),
        4 => format!(
            "v.{v} * {} + math.lerp(0, {}, {q})",
            r.num(3.0),
            r.num(20.0)
        ),
        5 => format!("-{q} - this"),
        _ => format!("(v.{v} ?? 0) * math.sin(q.life_time * {})", r.num(200.0)),
    }
}

fn condition(r: &mut Rng, vars: &[String]) -> String {
    let v = &vars[r.below(vars.len())];
    match r.below(4) {
        0 => r.pick(FLAGS).to_string(),
        1 => format!("!{} && q.ground_speed > {}", r.pick(FLAGS), r.below(5)),
        2 => format!("v.{v} > {}", r.num(1.0)),
        _ => format!("{} || q.all_animations_finished", r.pick(FLAGS)),
    }
}

/// `s` as a JSON string literal (the generated text needs no escapes but quotes).
fn js(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

struct Writer<'a> {
    dir: &'a Path,
    stats: Stats,
}

impl Writer<'_> {
    fn write(&mut self, rel: &str, text: &str) -> std::io::Result<()> {
        self.write_bytes(rel, text.as_bytes())?;
        self.stats.files += 1;
        self.stats.bytes += text.len() as u64;
        Ok(())
    }

    fn write_bytes(&mut self, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
        let path = self.dir.join(rel);
        if let Some(parent) = path.parent() {
            // Every folder made is below `dir`, which exists.
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)
    }
}

/// Writes the pack into `dir` (created like `mkdir`, or existing and empty): about
/// `expressions` Molang expressions in `resource_pack/` and `behavior_pack/`.
pub fn generate(dir: &Path, expressions: usize, seed: u64) -> std::io::Result<Stats> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(std::io::Error::other(format!(
                    "{} is not empty; give a new or empty folder",
                    dir.display()
                )));
            }
        }
        Err(_) => std::fs::create_dir(dir)?,
    }
    let mut w = Writer {
        dir,
        stats: Stats::default(),
    };
    let mut r = Rng(seed);
    w.write(
        "resource_pack/manifest.json",
        &manifest("resources", "Generated resources", seed),
    )?;
    w.write(
        "behavior_pack/manifest.json",
        &manifest("data", "Generated behaviour", seed),
    )?;
    let mut mob = 0;
    while w.stats.expressions < expressions {
        w.stats.expressions += write_mob(&mut w, &mut r, mob)?;
        mob += 1;
    }
    Ok(w.stats)
}

fn manifest(module: &str, name: &str, seed: u64) -> String {
    format!(
        r#"{{
  "format_version": 2,
  "header": {{
    "name": "{name} (seed {seed})",
    "description": "Written by benches/support/gen_pack.rs",
    "uuid": "00000000-0000-4000-8000-{seed:012x}",
    "version": [1, 0, 0],
    "min_engine_version": [1, 21, 0]
  }},
  "modules": [
    {{ "type": "{module}", "uuid": "00000000-0000-4000-9000-{seed:012x}", "version": [1, 0, 0] }}
  ]
}}
"#
    )
}

/// One mob's files; returns the expressions written.
fn write_mob(w: &mut Writer<'_>, r: &mut Rng, m: usize) -> std::io::Result<usize> {
    let name = format!("mob{m}");
    let vars: Vec<String> = (0..4 + r.below(4))
        .map(|i| {
            format!(
                "{}_{i}",
                ["speed", "tilt", "phase", "anger", "swing"][i % 5]
            )
        })
        .collect();
    let bones: Vec<&str> = BONES[..6 + r.below(BONES.len() - 6)].to_vec();
    let mut count = 0;

    // Geometry: most of a real pack's bytes, no Molang (vanilla's resource pack holds about
    // 4 KB of JSON per Molang expression, a 3,700-file community add-on 1.4 KB; this one
    // about 1 KB). Detail bones carry cubes the animations do not move.
    let details: Vec<String> = (0..8 + r.below(9)).map(|k| format!("detail{k}")).collect();
    let geo_bones: Vec<&str> = bones
        .iter()
        .copied()
        .chain(details.iter().map(String::as_str))
        .collect();
    let mut geo = String::new();
    write!(
        geo,
        "{{\n  \"format_version\": \"1.12.0\",\n  \"minecraft:geometry\": [\n    {{\n      \"description\": {{\n        \"identifier\": \"geometry.gen.{name}\",\n        \"texture_width\": 64,\n        \"texture_height\": 64\n      }},\n      \"bones\": ["
    )
    .unwrap();
    for (i, b) in geo_bones.iter().enumerate() {
        let parent = if i == 0 {
            String::new()
        } else {
            format!("\n          \"parent\": \"{}\",", geo_bones[(i - 1) / 3])
        };
        write!(
            geo,
            "{}\n        {{\n          \"name\": \"{b}\",{parent}\n          \"pivot\": [{}, {}, {}],\n          \"cubes\": [",
            if i == 0 { "" } else { "," },
            r.num(8.0),
            r.num(24.0),
            r.num(8.0)
        )
        .unwrap();
        for c in 0..3 + r.below(8) {
            write!(
                geo,
                "{}\n            {{\n              \"origin\": [{}, {}, {}],\n              \"size\": [{}, {}, {}],\n              \"inflate\": {},",
                if c == 0 { "" } else { "," },
                r.num(8.0),
                r.num(24.0),
                r.num(8.0),
                1 + r.below(8),
                1 + r.below(8),
                1 + r.below(8),
                r.num(0.5)
            )
            .unwrap();
            if r.below(2) == 0 {
                write!(
                    geo,
                    "\n              \"uv\": [{}, {}]",
                    r.below(64),
                    r.below(64)
                )
                .unwrap();
            } else {
                // Per-face UV, as Blockbench writes it.
                geo.push_str("\n              \"uv\": {");
                for (f, face) in ["north", "east", "south", "west", "up", "down"]
                    .iter()
                    .enumerate()
                {
                    write!(
                        geo,
                        "{}\n                \"{face}\": {{\"uv\": [{}, {}], \"uv_size\": [{}, {}]}}",
                        if f == 0 { "" } else { "," },
                        r.below(64),
                        r.below(64),
                        1 + r.below(8),
                        1 + r.below(8)
                    )
                    .unwrap();
                }
                geo.push_str("\n              }");
            }
            geo.push_str("\n            }");
        }
        geo.push_str("\n          ]\n        }");
    }
    geo.push_str("\n      ]\n    }\n  ]\n}\n");
    w.write(
        &format!("resource_pack/models/entity/{name}.geo.json"),
        &geo,
    )?;

    // Animations: bone channels as Molang, some keyframed, timelines.
    let anims = ["idle", "walk", "attack", "look", "sit", "fly"];
    let mut a = String::from("{\n  \"format_version\": \"1.8.0\",\n  \"animations\": {");
    for (ai, an) in anims.iter().enumerate() {
        let looping = if ai == 2 { "false" } else { "true" };
        write!(
            a,
            "{}\n    \"animation.gen.{name}.{an}\": {{\n      \"loop\": {looping},\n      \"animation_length\": {},\n      \"bones\": {{",
            if ai == 0 { "" } else { "," },
            1 + r.below(3)
        )
        .unwrap();
        let n = 2 + r.below(3);
        for bi in 0..n {
            let b = bones[(ai + bi) % bones.len()];
            write!(
                a,
                "{}\n        \"{b}\": {{\n          \"rotation\": [{}, {}, {}]",
                if bi == 0 { "" } else { "," },
                js(&value(r, &vars)),
                js(&value(r, &vars)),
                0
            )
            .unwrap();
            count += 2;
            if r.below(2) == 0 {
                write!(
                    a,
                    ",\n          \"position\": {{\n            \"0.0\": [0, {}, 0],\n            \"0.5\": [0, {}, 0],\n            \"1.0\": {{\"post\": [0, {}, 0], \"lerp_mode\": \"catmullrom\"}}\n          }}",
                    js(&value(r, &vars)),
                    r.num(2.0),
                    js(&value(r, &vars))
                )
                .unwrap();
                count += 2;
            }
            a.push_str("\n        }");
        }
        a.push_str("\n      }");
        if ai == 2 {
            write!(
                a,
                ",\n      \"timeline\": {{\n        \"0.0\": {},\n        \"0.5\": [\"v.{} = 0;\", \"v.{} = q.life_time;\"]\n      }}",
                js(&format!("v.{} = 1;", vars[0])),
                vars[0],
                vars[1]
            )
            .unwrap();
            count += 2;
        }
        a.push_str("\n    }");
    }
    a.push_str("\n  }\n}\n");
    w.write(
        &format!("resource_pack/animations/{name}.animation.json"),
        &a,
    )?;

    // Client animation controller: states, transitions, blends, on_entry.
    let states = ["default", "moving", "attacking"];
    let mut c =
        String::from("{\n  \"format_version\": \"1.10.0\",\n  \"animation_controllers\": {");
    write!(
        c,
        "\n    \"controller.animation.gen.{name}.move\": {{\n      \"initial_state\": \"default\",\n      \"states\": {{"
    )
    .unwrap();
    for (si, s) in states.iter().enumerate() {
        let target = states[(si + 1) % states.len()];
        write!(
            c,
            "{}\n        \"{s}\": {{\n          \"animations\": [\"{}\", {{\"look\": {}}}],\n          \"transitions\": [{{\"{target}\": {}}}, {{\"default\": {}}}],\n          \"on_entry\": [{}, {}],\n          \"blend_transition\": 0.2\n        }}",
            if si == 0 { "" } else { "," },
            anims[si],
            js(&format!("{} * 0.5", r.pick(QUERIES))),
            js(&condition(r, &vars)),
            js(&condition(r, &vars)),
            js(&format!("v.{} = {};", vars[0], value(r, &vars))),
            js(&format!("v.{} = 0;", vars[1]))
        )
        .unwrap();
        count += 4;
    }
    c.push_str("\n      }\n    }\n  }\n}\n");
    w.write(
        &format!("resource_pack/animation_controllers/{name}.animation_controllers.json"),
        &c,
    )?;

    // Render controller.
    let rc = format!(
        r#"{{
  "format_version": "1.8.0",
  "render_controllers": {{
    "controller.render.gen.{name}": {{
      "arrays": {{
        "textures": {{ "Array.skins": ["Texture.default", "Texture.angry", "Texture.baby"] }}
      }},
      "geometry": "Geometry.default",
      "materials": [{{ "*": "Material.default" }}],
      "textures": [{}],
      "part_visibility": [{{ "*": true }}, {{ "{}": {} }}],
      "overlay_color": {{ "r": 1.0, "g": {}, "b": {}, "a": {} }},
      "is_hurt_color": {{ "r": 1.0, "g": 0.0, "b": 0.0, "a": 0.5 }}
    }}
  }}
}}
"#,
        js("Array.skins[q.is_angry ? 1 : (q.is_baby ? 2 : 0)]"),
        bones[1],
        js(&condition(r, &vars)),
        js("1.0 - math.clamp(q.time_of_day, 0, 0.5)"),
        js(&value(r, &vars)),
        js("q.is_angry ? 0.4 : 0.0"),
    );
    count += 5;
    w.write(
        &format!("resource_pack/render_controllers/{name}.render_controllers.json"),
        &rc,
    )?;

    // Client entity: scripts and the names of everything above.
    let mut anim_names = String::new();
    for an in anims {
        write!(
            anim_names,
            "\n        \"{an}\": \"animation.gen.{name}.{an}\","
        )
        .unwrap();
    }
    let pre: Vec<String> = vars
        .iter()
        .map(|v| js(&format!("v.{v} = {};", value(r, &vars))))
        .collect();
    let init: Vec<String> = vars
        .iter()
        .map(|v| js(&format!("v.{v} = v.{v} ?? {};", r.num(1.0))))
        .collect();
    count += 2 + 3;
    let ce = format!(
        r##"{{
  "format_version": "1.10.0",
  "minecraft:client_entity": {{
    "description": {{
      "identifier": "gen:{name}",
      "materials": {{ "default": "entity_alphatest" }},
      "textures": {{
        "default": "textures/entity/{name}/default",
        "angry": "textures/entity/{name}/angry",
        "baby": "textures/entity/{name}/baby"
      }},
      "geometry": {{ "default": "geometry.gen.{name}" }},
      "scripts": {{
        "initialize": [{}],
        "pre_animation": [{}],
        "scale": {},
        "animate": ["controller", {{ "idle": {} }}, {{ "fly": {} }}]
      }},
      "animations": {{{anim_names}
        "controller": "controller.animation.gen.{name}.move"
      }},
      "render_controllers": ["controller.render.gen.{name}"],
      "spawn_egg": {{ "base_color": "#{:06x}", "overlay_color": "#{:06x}" }}
    }}
  }}
}}
"##,
        init.join(", "),
        pre.join(", "),
        js("q.is_baby ? 0.6 : 1.0"),
        js(&condition(r, &vars)),
        js(&format!("!q.is_on_ground && {}", r.pick(FLAGS))),
        r.below(0xFF_FFFF),
        r.below(0xFF_FFFF),
    );
    w.write(&format!("resource_pack/entity/{name}.entity.json"), &ce)?;
    // The textures it names (listed by `check`, never read: any bytes do).
    for t in ["default", "angry", "baby"] {
        w.write_bytes(
            &format!("resource_pack/textures/entity/{name}/{t}.png"),
            b"\x89PNG\r\n\x1a\n",
        )?;
    }

    // Behaviour entity: properties, a server controller, Molang in components and events.
    let be = format!(
        r#"{{
  "format_version": "1.21.0",
  "minecraft:entity": {{
    "description": {{
      "identifier": "gen:{name}",
      "is_spawnable": true,
      "is_summonable": true,
      "properties": {{
        "gen:mood": {{ "type": "int", "range": [0, 3], "default": {}, "client_sync": true }},
        "gen:charged": {{ "type": "bool", "default": false }}
      }},
      "animations": {{ "brain": "controller.animation.gen.{name}.brain" }},
      "scripts": {{ "animate": ["brain"] }}
    }},
    "components": {{
      "minecraft:health": {{ "value": {}, "max": {} }},
      "minecraft:movement": {{ "value": 0.{} }},
      "minecraft:experience_reward": {{ "on_death": {} }},
      "minecraft:physics": {{}},
      "minecraft:pushable": {{ "is_pushable": true }}
    }},
    "events": {{
      "gen:calm": {{ "set_property": {{ "gen:mood": {} }} }},
      "gen:charge": {{ "set_property": {{ "gen:charged": {} }} }}
    }}
  }}
}}
"#,
        js("math.random_integer(0, 3)"),
        10 + r.below(40),
        50,
        20 + r.below(20),
        js("q.last_hit_by_player ? 5 : 0"),
        js("math.max(q.property('gen:mood') - 1, 0)"),
        js("!q.property('gen:charged')"),
    );
    count += 4;
    w.write(&format!("behavior_pack/entities/{name}.json"), &be)?;

    let bc = format!(
        r#"{{
  "format_version": "1.10.0",
  "animation_controllers": {{
    "controller.animation.gen.{name}.brain": {{
      "initial_state": "calm",
      "states": {{
        "calm": {{
          "transitions": [{{ "angry": {} }}],
          "on_entry": ["@s gen:calm", {}]
        }},
        "angry": {{
          "transitions": [{{ "calm": {} }}],
          "on_exit": ["/say calm again", {}]
        }}
      }}
    }}
  }}
}}
"#,
        js("q.has_target && q.property('gen:mood') > 1"),
        js(&format!("v.{} = q.life_time;", vars[0])),
        js("!q.has_target"),
        js(&format!("v.{} = 0;", vars[0])),
    );
    count += 4;
    w.write(
        &format!("behavior_pack/animation_controllers/{name}.brain.json"),
        &bc,
    )?;
    Ok(count)
}

#[allow(dead_code)]
fn main() {
    let mut args = std::env::args().skip(1);
    let mut out = None;
    let mut expressions = 50_000usize;
    let mut seed = 1u64;
    let usage = "usage: gen_pack OUT [--expressions N] [--seed S]";
    while let Some(a) = args.next() {
        let mut number = |what: &str| -> u64 {
            args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
                eprintln!("error: {what} takes a number\n{usage}");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--expressions" => expressions = number("--expressions") as usize,
            "--seed" => seed = number("--seed"),
            _ if a.starts_with('-') => {
                eprintln!("error: unknown option {a}\n{usage}");
                std::process::exit(2)
            }
            _ => out = Some(std::path::PathBuf::from(a)),
        }
    }
    let Some(out) = out else {
        eprintln!("{usage}");
        std::process::exit(2)
    };
    match generate(&out, expressions, seed) {
        Ok(s) => println!(
            "{}: {} files, {} bytes of JSON, {} expressions (seed {seed})",
            out.display(),
            s.files,
            s.bytes,
            s.expressions
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1)
        }
    }
}
