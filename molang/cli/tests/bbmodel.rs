//! Blockbench models: `molang check MODEL.bbmodel`, `molang import` and `molang run` on the
//! fixture models of `tests/fixtures/bbmodel/` (made for these tests: a 2-bone leg in
//! format 4, a 3-bone arm with a locator target in format 5's `groups` layout, an 8-bone
//! tail with Molang keyframes, an out-of-reach target), and hostile model files.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use support::{
    assert_code, assert_contains, molang, molang_on, molang_to, molang_with, run_inputs, scratch,
    text, write_in,
};

const FIXTURES: [(&str, &str); 4] = [
    ("leg2_v4.bbmodel", "blockbench:leg"),
    ("arm3_v5.bbmodel", "blockbench:arm"),
    ("tail8.bbmodel", "blockbench:tail_model_"),
    ("reach.bbmodel", "blockbench:reach"),
];

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/bbmodel")
        .join(name)
}

/// Imports a fixture into a new folder under `dir`; returns the pack folder.
fn import(name: &str, dir: &Path) -> PathBuf {
    let out = dir.join(name.trim_end_matches(".bbmodel"));
    let o = molang_to("import", &model(name), &out, &[]);
    assert_code(&o, 0);
    out
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The JSON-lines output of `molang check ARGS --format json`: diagnostics and summary.
fn check_json(path: &Path) -> (Vec<Value>, Value) {
    let o = molang_on("check", path, &["--format", "json"]);
    let lines: Vec<Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (summary, diags) = lines.split_last().unwrap();
    (diags.to_vec(), summary["summary"].clone())
}

fn run(pack: &Path, entity: Option<&str>, backend: &str) -> String {
    let mut cmd = molang();
    cmd.arg("run").arg(pack);
    if let Some(e) = entity {
        cmd.args(["--entity", e]);
    }
    let o = cmd
        .args([
            "--seconds",
            "3",
            "--fps",
            "20",
            "--world",
            "--backend",
            backend,
            "-q",
        ])
        .output()
        .unwrap();
    assert_code(&o, 0);
    text(&o.stdout)
}

#[test]
fn every_fixture_imports_checks_clean_and_plays_the_same_on_both_back_ends() {
    let dir = scratch("bbmodel-fixtures");
    for (name, id) in FIXTURES {
        // The model's own Molang loads.
        let (_, summary) = check_json(&model(name));
        assert_eq!(summary["errors"], 0, "{name}: {summary}");
        let pack = import(name, &dir);
        let (diags, summary) = check_json(&pack);
        assert!(
            diags.is_empty() && summary["errors"] == 0 && summary["warnings"] == 0,
            "{name}: the imported pack is not clean: {diags:?} {summary}"
        );
        let jit = run(&pack, Some(id), "jit");
        let interp = run(&pack, Some(id), "interp");
        assert_eq!(jit, interp, "{name}: the back ends differ");
        assert!(jit.lines().count() > 60, "{name}: {jit}");
        // Something moves: the trace is not one pose repeated.
        let rows: std::collections::BTreeSet<String> = jit
            .lines()
            .skip(1)
            .map(|l| {
                l.split_once(',')
                    .map_or(l, |(_, rest)| rest)
                    .split_once(',')
                    .map_or("", |(_, r)| r)
                    .to_string()
            })
            .collect();
        assert!(rows.len() > 2, "{name}: nothing moves:\n{jit}");
        // Playing the model directly is playing the imported pack.
        assert_eq!(
            run(&model(name), None, "jit"),
            jit,
            "{name}: run MODEL differs from run DIR"
        );
    }
}

#[test]
fn geometry_is_written_as_blockbench_exports_it() {
    let dir = scratch("bbmodel-geometry");
    let pack = import("leg2_v4.bbmodel", &dir);
    let geo = read_json(&pack.join("models/entity/leg.geo.json"));
    let g = &geo["minecraft:geometry"][0];
    assert_eq!(g["description"]["identifier"], "geometry.leg");
    assert_eq!(g["description"]["visible_bounds_width"], 2);
    assert_eq!(
        g["description"]["visible_bounds_offset"],
        serde_json::json!([0, 0.5, 0])
    );
    let bones = g["bones"].as_array().unwrap();
    let names: Vec<&str> = bones.iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["root", "thigh", "shin", "foot"]);
    assert_eq!(bones[1]["parent"], "root");
    assert_eq!(bones[1]["pivot"], serde_json::json!([0, 16, 0]));
    // Box UV cube: origin x is minus `to.x`.
    assert_eq!(
        bones[1]["cubes"][0]["origin"],
        serde_json::json!([-1, 8, -1])
    );
    assert_eq!(bones[1]["cubes"][0]["size"], serde_json::json!([2, 8, 2]));
    assert_eq!(bones[2]["cubes"][0]["uv"], serde_json::json!([0, 1]));
    // The texture is the embedded PNG, byte for byte.
    let png = std::fs::read(pack.join("textures/entity/leg.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    // Locators, negated X, and the excluded hitbox bone.
    let arm = import("arm3_v5.bbmodel", &dir);
    let geo = read_json(&arm.join("models/entity/arm.geo.json"));
    let bones = geo["minecraft:geometry"][0]["bones"].as_array().unwrap();
    let hand = bones.iter().find(|b| b["name"] == "hand").unwrap();
    assert_eq!(hand["locators"]["tip"], serde_json::json!([0, 6, 0]));
    assert_eq!(hand["cubes"][0]["rotation"], serde_json::json!([0, 0, 10]));
    assert_eq!(hand["cubes"][0]["pivot"], serde_json::json!([0, 12, 0]));
    let reach = import("reach.bbmodel", &dir);
    let geo = read_json(&reach.join("models/entity/reach.geo.json"));
    let bones = geo["minecraft:geometry"][0]["bones"].as_array().unwrap();
    assert!(bones.iter().all(|b| b["name"] != "hitbox"));
}

#[test]
fn animations_keep_loop_modes_interpolation_and_format_5_signs() {
    let dir = scratch("bbmodel-animations");
    let leg = import("leg2_v4.bbmodel", &dir);
    let a = read_json(&leg.join("animations/leg.animation.json"));
    let walk = &a["animations"]["animation.leg.walk"];
    assert_eq!(walk["loop"], true);
    assert_eq!(walk["animation_length"], 0.8);
    assert_eq!(
        walk["bones"]["foot"]["rotation"]["0.4"],
        serde_json::json!({"post": [-20, 0, 0], "lerp_mode": "catmullrom"})
    );
    // The zero-length pose is not exported.
    assert!(a["animations"].get("animation.leg.pose").is_none());

    let arm = import("arm3_v5.bbmodel", &dir);
    let a = read_json(&arm.join("animations/arm.animation.json"));
    let attack = &a["animations"]["animation.arm.attack"];
    assert_eq!(attack["loop"], "hold_on_last_frame");
    // Format 5: X (and Y) rotation flipped back to Bedrock's sign; step: pre is the
    // previous value, the two data points become pre/post... here the step wins: the value
    // before the key is held.
    assert_eq!(
        attack["bones"]["upper"]["rotation"]["0.3"],
        serde_json::json!({"pre": [0, 0, 0], "post": [90, 0, 0]})
    );
    let idle = &a["animations"]["animation.arm.idle"];
    let upper = idle["bones"]["body"]["rotation"].as_object().unwrap();
    // Bezier segments baked every tick: 0.05 .. 0.95 and 1.05 .. 1.95, plus the 3 keys.
    assert_eq!(upper.len(), 3 + 19 + 19, "{upper:?}");
    // Ease-in-out: slow at the ends, half way at the middle.
    let at = |t: &str, axis: usize| upper[t][axis].as_f64().unwrap();
    assert!((at("0.5", 0) - (-7.5)).abs() < 1e-3, "{}", at("0.5", 0));
    assert!(at("0.05", 0).abs() < 0.1);
    assert_eq!(upper["0.0"], serde_json::json!([0, -10, 0]));
    // Position X flipped, step on position.
    let fore = &idle["bones"]["body"]["position"];
    assert_eq!(fore["0.0"], serde_json::json!([-1, 0, 0]));
    assert_eq!(
        fore["0.5"],
        serde_json::json!({"pre": [-1, 0, 0], "post": [0, 0, 0]})
    );
}

#[test]
fn the_state_machine_follows_the_seed() {
    let dir = scratch("bbmodel-states");
    let arm = import("arm3_v5.bbmodel", &dir);
    let leg = import("leg2_v4.bbmodel", &dir);
    let tail = import("tail8.bbmodel", &dir);
    // The controller `controller.animation.NAME.state` of an imported pack.
    let controller = |pack: &Path, name: &str| {
        let file = format!("animation_controllers/{name}.animation_controllers.json");
        let c = read_json(&pack.join(file));
        c["animation_controllers"][format!("controller.animation.{name}.state")].clone()
    };
    let (arm_c, leg_c) = (controller(&arm, "arm"), controller(&leg, "leg"));
    let tail_c = controller(&tail, "tail_model_");
    assert_eq!(arm_c["initial_state"], "spawn");
    let states = arm_c["states"].as_object().unwrap();
    assert_eq!(
        states.keys().map(String::as_str).collect::<Vec<_>>(),
        ["attack", "idle", "spawn"]
    );
    // The leg has idle and walk: speed switches them. The tail has idle and death; death is
    // entered when the entity dies and never left.
    for (c, state, transitions) in [
        (
            &arm_c,
            "spawn",
            json!([{"idle": "q.all_animations_finished"}]),
        ),
        (&arm_c, "idle", json!([{"attack": "v.attack_time > 0"}])),
        (&leg_c, "idle", json!([{"walk": "q.ground_speed > 0"}])),
        (
            &leg_c,
            "walk",
            json!([{"idle": "q.is_on_ground && q.ground_speed <= 0"}]),
        ),
        (&tail_c, "idle", json!([{"death": "!q.is_alive"}])),
    ] {
        let got = &c["states"][state]["transitions"];
        assert_eq!(got, &transitions, "{state} in {c}");
    }
    let s = &tail_c["states"];
    assert!(s["death"].get("transitions").is_none());
    // Played with a walking timeline, the leg switches to walk.
    let inputs = write_in(
        &dir,
        "walk.csv",
        "t,q.ground_speed,q.is_on_ground\n0,0,1\n0.99,0,1\n1,2,1\n",
    );
    let o = run_inputs(
        &leg,
        &inputs,
        "--entity blockbench:leg --seconds 2 --fps 10 -q",
    );
    assert_code(&o, 0);
    let trace = text(&o.stdout);
    let header: Vec<&str> = trace.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "rx").unwrap();
    // The foot turns in walk only (the thigh's IK rotation plays in both).
    let thigh_rx: Vec<f64> = trace
        .lines()
        .filter(|l| l.split(',').nth(2) == Some("foot"))
        .map(|l| l.split(',').nth(col).unwrap().parse().unwrap())
        .collect();
    assert!(thigh_rx[..10].iter().all(|&x| x == 0.0), "{thigh_rx:?}");
    assert!(thigh_rx[10..].iter().any(|&x| x != 0.0), "{thigh_rx:?}");
}

/// Writes `text` as a model file in a scratch folder.
fn model_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn molang_in_keyframes_is_checked_at_its_place_in_the_file() {
    let dir = scratch("bbmodel-molang");
    let text = r#"{"meta": {"format_version": "4.5", "model_format": "bedrock"},
 "outliner": [{"name": "b", "origin": [0,0,0], "uuid": "g", "children": []}],
 "animations": [{"name": "idle", "loop": "loop", "length": 1, "animators": {"g": {"name": "b", "type": "bone",
  "keyframes": [{"channel": "rotation", "time": 0, "interpolation": "linear",
   "data_points": [{"x": "math.sin(q.anim_time", "y": "0", "z": "math.tan(1)"}]}]}}}]}
"#;
    let p = model_file(&dir, "bad_molang.bbmodel", text);
    let (diags, summary) = check_json(&p);
    assert_eq!(summary["errors"], 2, "{diags:?}");
    let tan = diags.iter().find(|d| d["code"] == "E0202").unwrap();
    assert_eq!(tan["line"], 5);
    // `"z": "math.tan(1)"`: the text starts after the quote.
    let col = text.lines().nth(4).unwrap().find("math.tan").unwrap() + 1;
    assert_eq!(tan["column"], col as u64);
    assert!(diags
        .iter()
        .any(|d| d["line"] == 5 && d["severity"] == "error" && d["code"] != "E0202"));
    // The import refuses nothing here (the model reads), but its pack does not check clean.
    let o = molang_on("check", &p, &[]);
    assert_code(&o, 1);
}

#[test]
fn hostile_models_get_diagnostics_with_positions() {
    let dir = scratch("bbmodel-hostile");
    let full = std::fs::read_to_string(model("leg2_v4.bbmodel")).unwrap();
    // The model with its first `from` made `to`.
    let edit = |from: &str, to: &str| full.replacen(from, to, 1);
    let cases: Vec<(&str, String, &str)> = vec![
        ("truncated", full[..full.len() / 2].to_string(), "E0701"),
        ("not_an_object", "[1, 2]".into(), "E0703"),
        ("no_meta", "{\"elements\": []}".into(), "E0703"),
        (
            "huge_number",
            edit("\"length\": 1,", "\"length\": 1e999,"),
            "E0703",
        ),
        (
            "wrong_type",
            edit("\"loop\": \"loop\"", "\"loop\": 5"),
            "E0703",
        ),
        (
            "bad_interpolation",
            edit("\"catmullrom\"", "\"cubic\""),
            "W0704",
        ),
        (
            "mesh",
            edit("\"type\": \"null_object\"", "\"type\": \"mesh\""),
            "W0704",
        ),
        (
            "not_utf8",
            String::from_utf8_lossy(b"{\"meta\": \xff}").into_owned(),
            "E0701",
        ),
        (
            "deep",
            format!(
                "{{\"meta\": {{}}, \"outliner\": {}{}}}",
                "[{\"children\": ".repeat(100),
                "[]}]".repeat(100)
            ),
            "E0701",
        ),
    ];
    for (name, text, code) in cases {
        assert_ne!(text, full, "{name}: the case did not change the model");
        let p = model_file(&dir, &format!("{name}.bbmodel"), &text);
        let (diags, _) = check_json(&p);
        let d = diags
            .iter()
            .find(|d| d["code"] == code)
            .unwrap_or_else(|| panic!("{name}: no {code} in {diags:?}"));
        assert!(d["line"].as_u64().unwrap() >= 1 && d["column"].as_u64().unwrap() >= 1);
        // Import never panics: it refuses (exit 1) or imports.
        let o = molang_to("import", &p, &dir.join(format!("{name}_out")), &[]);
        let code = o.status.code();
        assert!(
            code == Some(0) || code == Some(1),
            "{name}: {code:?} {}",
            support::text(&o.stderr)
        );
    }
    // The huge number is reported where it is written.
    let p = dir.join("huge_number.bbmodel");
    let text = std::fs::read_to_string(&p).unwrap();
    let (diags, _) = check_json(&p);
    let d = diags.iter().find(|d| d["code"] == "E0703").unwrap();
    let line = text[..text.find("1e999").unwrap()].matches('\n').count() + 1;
    assert_eq!(d["line"], line as u64);
    // Over the size limit: refused before parsing.
    let big = dir.join("big.bbmodel");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(64 * 1024 * 1024 + 1).unwrap();
    let (diags, _) = check_json(&big);
    assert_eq!(diags[0]["code"], "E0705");
}

#[test]
fn import_writes_only_inside_the_folder_it_is_given() {
    let dir = scratch("bbmodel-out");
    // The parent of DIR must exist: only DIR itself is created.
    let o = molang_to(
        "import",
        &model("leg2_v4.bbmodel"),
        &dir.join("missing/pack"),
        &[],
    );
    assert_code(&o, 2);
    assert!(!dir.join("missing").exists());
    // A folder that is not empty is refused unless --force.
    let out = dir.join("pack");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), "mine").unwrap();
    let o = molang_to("import", &model("leg2_v4.bbmodel"), &out, &[]);
    assert_code(&o, 2);
    assert_contains(&text(&o.stderr), "not empty");
    let o = molang_to("import", &model("leg2_v4.bbmodel"), &out, &["--force"]);
    assert_code(&o, 0);
    assert_eq!(
        std::fs::read_to_string(out.join("keep.txt")).unwrap(),
        "mine"
    );
    // Identifiers are sanitised before they name files.
    let out = dir.join("evil");
    let o = molang_to(
        "import",
        &model("leg2_v4.bbmodel"),
        &out,
        &["--id", "../x:../../Evil Name"],
    );
    assert_code(&o, 0);
    assert!(out.join("entity/______evil_name.entity.json").is_file());
    let entity = read_json(&out.join("entity/______evil_name.entity.json"));
    assert_eq!(
        entity["minecraft:client_entity"]["description"]["identifier"],
        "___x:______evil_name"
    );
    // Symbolic links are not written through.
    #[cfg(unix)]
    {
        let target = dir.join("elsewhere");
        std::fs::create_dir(&target).unwrap();
        let out = dir.join("linked");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink(&target, out.join("entity")).unwrap();
        let o = molang_to("import", &model("leg2_v4.bbmodel"), &out, &["--force"]);
        assert_code(&o, 2);
        assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
        let link = dir.join("link_out");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let o = molang_to("import", &model("leg2_v4.bbmodel"), &link, &[]);
        assert_code(&o, 2);
        assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
    }
}

fn read_fixture(name: &str) -> molang::bbmodel::Model {
    let text = std::fs::read_to_string(model(name)).unwrap();
    let read = molang::bbmodel::read(&text);
    assert!(!read.has_errors(), "{name}: {:?}", read.problems);
    read.model.unwrap()
}

#[test]
fn ik_chains_run_from_the_source_to_the_target() {
    let names = |m: &molang::bbmodel::Model, c: &molang::bbmodel::IkChain| {
        c.bones
            .iter()
            .map(|&b| m.groups[b].name.clone())
            .collect::<Vec<_>>()
    };
    let leg = read_fixture("leg2_v4.bbmodel");
    let (chains, skipped) = leg.ik_chains();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(names(&leg, &chains[0]), ["thigh", "shin"]);
    assert_eq!(
        chains[0].joints,
        [[0.0, 16.0, 0.0], [0.0, 8.0, 0.0], [0.0, 0.0, 0.0]]
    );
    // Off the leg's line, so that FABRIK from the straight rest pose can bend the knee.
    assert_eq!(chains[0].target_rest, [-1.0, 2.0, 4.0]);
    // Format 5, groups layout, a locator target: the hand holds it, so the hand turns too.
    let arm = read_fixture("arm3_v5.bbmodel");
    let (chains, _) = arm.ik_chains();
    assert_eq!(names(&arm, &chains[0]), ["upper", "fore", "hand"]);
    assert_eq!(chains[0].joints.len(), 4);
    assert_eq!(chains[0].joints[3], [0.0, 6.0, 0.0]);
    assert_eq!(chains[0].target_rest, [-6.0, 14.0, 4.0]);
    let tail = read_fixture("tail8.bbmodel");
    let (chains, _) = tail.ik_chains();
    assert_eq!(chains[0].bones.len(), 8);
    assert_eq!(chains[0].joints[8], [0.0, 8.0, 32.0]);
    // The reach fixture's target is farther than the chain is long.
    let reach = read_fixture("reach.bbmodel");
    let (chains, _) = reach.ik_chains();
    let c = &chains[0];
    let len: f64 = c
        .joints
        .windows(2)
        .map(|w| {
            (0..3)
                .map(|i| (w[1][i] - w[0][i]).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .sum();
    let dist = (0..3)
        .map(|i| (c.target_rest[i] - c.joints[0][i]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(dist > len, "{dist} {len}");
    // An empty ik_source means the null's parent (as Blockbench reads it); a target that is
    // not in the model is no chain, with the reason.
    let text = r#"{"meta": {"format_version": "4.5"},
 "elements": [{"type": "null_object", "name": "ik", "uuid": "n", "position": [0,0,0], "ik_source": "", "ik_target": "g-c"},
              {"type": "null_object", "name": "lost", "uuid": "n2", "position": [0,0,0], "ik_target": "nowhere"}],
 "outliner": [{"name": "a", "uuid": "g-a", "origin": [0,10,0], "children": ["n", {"name": "b", "uuid": "g-b", "origin": [0,5,0],
   "children": [{"name": "c", "uuid": "g-c", "origin": [0,0,0], "children": []}]}]}, "n2"]}"#;
    let m = molang::bbmodel::read(text).model.unwrap();
    let (chains, skipped) = m.ik_chains();
    assert_eq!(names(&m, &chains[0]), ["a", "b"]);
    assert_eq!(skipped.len(), 1);
    assert_contains(&skipped[0], "lost");
}

/// The seed's tolerance, 0.001 block, in pixels.
const TOLERANCE_PX: f64 = 0.016;

type V3 = [f64; 3];

fn dist(a: V3, b: V3) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// `a + (b − a)·k`.
fn toward(a: V3, b: V3, k: f64) -> V3 {
    [0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * k)
}

/// FABRIK (Aristidou and Lasenby, 2011) as the seed bounds it: at most 10 iterations, stop
/// once the tip is within the tolerance; a target out of reach gets the chain laid straight
/// toward it. The bone lengths and the root are the rest pose `joints`'; the joints start
/// from `start` (the rest pose, or the pose solved on the previous tick: the seed's runtime
/// keeps a chain's state between ticks). Returns the joints and the iterations.
fn fabrik(joints: &[V3], start: &[V3], target: V3) -> (Vec<V3>, u32) {
    let lengths: Vec<f64> = joints.windows(2).map(|w| dist(w[0], w[1])).collect();
    let n = lengths.len();
    let root = joints[0];
    let mut p = start.to_vec();
    p[0] = root;
    if dist(root, target) >= lengths.iter().sum::<f64>() {
        for (i, l) in lengths.iter().enumerate() {
            let k = l / dist(p[i], target);
            p[i + 1] = toward(p[i], target, k);
        }
        return (p, 0);
    }
    let mut iterations = 0;
    while dist(p[n], target) > TOLERANCE_PX && iterations < 10 {
        p[n] = target;
        for (i, l) in lengths.iter().enumerate().rev() {
            let k = l / dist(p[i], p[i + 1]);
            p[i] = toward(p[i + 1], p[i], k);
        }
        p[0] = root;
        for (i, l) in lengths.iter().enumerate() {
            let k = l / dist(p[i], p[i + 1]);
            p[i + 1] = toward(p[i], p[i + 1], k);
        }
        iterations += 1;
    }
    (p, iterations)
}

#[test]
fn reference_fabrik_reaches_and_lays_straight() {
    // Two bones of 8 px down from y 16; a target 10 px away is reached, 20 px is not.
    let joints = [[0.0, 16.0, 0.0], [0.0, 8.0, 0.0], [0.0, 0.0, 0.0]];
    let (p, it) = fabrik(&joints, &joints, [0.0, 8.0, 6.0]);
    assert!(dist(p[2], [0.0, 8.0, 6.0]) <= TOLERANCE_PX && (1..=10).contains(&it));
    assert!((dist(p[0], p[1]) - 8.0).abs() < 1e-9 && (dist(p[1], p[2]) - 8.0).abs() < 1e-9);
    // Warm: started from its own answer, nothing is left to do.
    let (q, it) = fabrik(&joints, &p, [0.0, 8.0, 6.0]);
    assert_eq!((q, it), (p, 0));
    let (p, _) = fabrik(&joints, &joints, [0.0, 16.0, 20.0]);
    assert!(dist(p[2], [0.0, 16.0, 16.0]) < 1e-9, "{p:?}");
}

/// The value at time `t` of the null's position keyframes in Bedrock's signs, read from the
/// model: Molang data points evaluated by the library at `q.anim_time = t`; the segment into
/// a keyframe follows that keyframe's interpolation (bezier: the 0.42/0.58 ease).
fn null_offset(
    model: &molang::bbmodel::Model,
    anim: &molang::bbmodel::Animation,
    null: usize,
    t: f64,
) -> Option<V3> {
    use molang::bbmodel::{AxisValue, Channel, Interpolation, Target};
    let keys: Vec<&molang::bbmodel::Keyframe> = anim
        .animators
        .iter()
        .filter(|a| a.target == Target::Null(null))
        .flat_map(|a| a.keyframes.iter())
        .filter(|k| k.channel == Channel::Position)
        .collect();
    if keys.is_empty() {
        return None;
    }
    let value = |p: &[AxisValue; 3]| -> V3 {
        let mut v = [0, 1, 2].map(|i| match &p[i] {
            AxisValue::Number(x) => *x,
            AxisValue::Molang(m) => molang::compile(&m.text, &molang::CheckOptions::default())
                .unwrap()
                .eval_with(&[("q.anim_time", t as f32)])
                .value
                .as_num() as f64,
        });
        if model.format5 {
            v[0] = -v[0];
        }
        v
    };
    let first = keys[0];
    let last = keys[keys.len() - 1];
    if t < first.time {
        return Some(value(&first.points[0]));
    }
    if t >= last.time {
        return Some(value(last.points.last().unwrap()));
    }
    let i = keys.iter().rposition(|k| k.time <= t).unwrap();
    let (a, b) = (keys[i], keys[i + 1]);
    let (pa, pb) = (value(a.points.last().unwrap()), value(&b.points[0]));
    let f = (t - a.time) / (b.time - a.time);
    let f = match b.interpolation {
        Interpolation::Step => 0.0,
        Interpolation::Linear => f,
        Interpolation::Bezier => {
            // x(s) = f for the curve's parameter s, by bisection; then y(s).
            let bez = |s: f64, p1: f64, p2: f64| {
                3.0 * (1.0 - s).powi(2) * s * p1 + 3.0 * (1.0 - s) * s * s * p2 + s.powi(3)
            };
            let (mut lo, mut hi) = (0.0, 1.0);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if bez(mid, 0.42, 0.58) < f {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            bez(0.5 * (lo + hi), 0.0, 1.0)
        }
        Interpolation::CatmullRom => {
            panic!("the fixtures' null tracks have no catmullrom keyframe")
        }
    };
    Some(toward(pa, pb, f))
}

/// One trace: per frame, per row name, the row's fields by column name.
struct Trace {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Trace {
    fn parse(text: &str) -> Trace {
        let (header, rows) = support::csv::split(text);
        Trace { header, rows }
    }
    fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }
    fn get(&self, frame: usize, row: &str, column: &str) -> f64 {
        let c = self.col(column);
        let r = self
            .rows
            .iter()
            .find(|r| r[0] == frame.to_string() && r[2] == row)
            .unwrap_or_else(|| panic!("no row {row} at frame {frame}"));
        r[c].parse().unwrap()
    }
    fn frames(&self) -> usize {
        self.rows
            .iter()
            .map(|r| r[0].parse::<usize>().unwrap() + 1)
            .max()
            .unwrap_or(0)
    }
}

fn play_animation(model_path: &Path, animation: &str, backend: &str, seconds: &str) -> String {
    let o = molang()
        .arg("run")
        .arg(model_path)
        .args([
            "--animation",
            animation,
            "--seconds",
            seconds,
            "--fps",
            "20",
        ])
        .args(["--locators", "--vars", "-q", "--backend", backend])
        .output()
        .unwrap();
    assert_code(&o, 0);
    text(&o.stdout)
}

/// Per chain and frame of the fixtures' IK animations, played on both back ends: the
/// Molang's target is the null's keyframed position, and its joints (from the trace's world
/// columns, taken into the chain's frame) are the reference FABRIK's within 0.01 px.
#[test]
fn ik_in_the_pack_matches_an_independent_fabrik() {
    use molang::runtime::fk;
    let cases = [
        ("leg2_v4.bbmodel", "animation.leg.idle"),
        ("leg2_v4.bbmodel", "animation.leg.walk"),
        ("arm3_v5.bbmodel", "idle"),
        ("tail8.bbmodel", "animation.tail.idle"),
        ("reach.bbmodel", "idle"),
    ];
    let (mut worst, mut most_iterations, mut frames_checked) = (0.0f64, 0u32, 0);
    let (mut reached, mut straight, mut unconverged) = (0, 0, 0);
    for (file, anim_name) in cases {
        let m = read_fixture(file);
        let anim = m.animations.iter().find(|a| a.name == anim_name).unwrap();
        let (chains, _) = m.ik_chains();
        let jit = play_animation(&model(file), anim_name, "jit", "3");
        let interp = play_animation(&model(file), anim_name, "interp", "3");
        assert_eq!(jit, interp, "{file} {anim_name}: the back ends differ");
        let trace = Trace::parse(&jit);
        for c in &chains {
            let null = &m.nulls[c.null];
            let prefix = format!("v.ik_{}", null.name.to_lowercase());
            let end_row = match m
                .locators
                .iter()
                .find(|l| Some(&l.uuid) == null.ik_target.as_ref())
            {
                Some(l) => format!("locator:{}", l.name),
                None => m
                    .groups
                    .iter()
                    .find(|g| Some(&g.uuid) == null.ik_target.as_ref())
                    .unwrap()
                    .name
                    .clone(),
            };
            let parent = m.groups[c.bones[0]].parent;
            let total: f64 = c.joints.windows(2).map(|w| dist(w[0], w[1])).sum();
            // The pose the chain keeps between frames (none: the rest pose).
            let mut kept: Option<Vec<V3>> = None;
            let (mut case_reachable, mut case_reached) = (0, 0);
            for frame in 0..trace.frames() {
                let t = frame as f64 / 20.0;
                let t_anim = match anim.loop_mode {
                    molang::bbmodel::LoopMode::Loop => t % anim.length,
                    _ => t.min(anim.length),
                };
                let row0 = &m.groups[c.bones[0]].name;
                let driven = trace.get(frame, row0, &format!("{prefix}_driven"));
                let offset =
                    null_offset(&m, anim, c.null, t_anim).expect("the animation moves the null");
                assert_eq!(driven, 1.0, "{file} frame {frame}");
                let target: V3 = [0, 1, 2].map(|i| c.target_rest[i] + offset[i]);
                let molang_target: V3 =
                    ["tx", "ty", "tz"].map(|a| trace.get(frame, row0, &format!("{prefix}_{a}")));
                assert!(
                    dist(target, molang_target) < 1e-3,
                    "{file} {anim_name} frame {frame}: target {molang_target:?}, the keyframes give {target:?}"
                );
                // The chain's frame: the parent bone's transform of this frame.
                let frame_xf = match parent {
                    None => fk::IDENTITY,
                    Some(p) => {
                        let g = &m.groups[p];
                        let ch = |k: [&str; 3]| k.map(|c| trace.get(frame, &g.name, c));
                        fk::local(
                            [-g.origin[0], g.origin[1], g.origin[2]],
                            ch(["px", "py", "pz"]),
                            ch(["rx", "ry", "rz"]),
                            ch(["sx", "sy", "sz"]),
                        )
                    }
                };
                let start = kept.take().unwrap_or_else(|| c.joints.clone());
                let (reference, iterations) = fabrik(&c.joints, &start, target);
                kept = Some(reference.clone());
                let mut names: Vec<String> =
                    c.bones.iter().map(|&b| m.groups[b].name.clone()).collect();
                names.push(end_row.clone());
                for (j, name) in names.iter().enumerate() {
                    let got: V3 = ["wx", "wy", "wz"].map(|a| trace.get(frame, name, a));
                    let want = fk::apply(&frame_xf, reference[j]);
                    let e = dist(got, want);
                    worst = worst.max(e);
                    assert!(
                        e <= 0.01,
                        "{file} {anim_name} frame {frame}: joint {name} at {got:?}, the reference FABRIK puts it at {want:?} ({e} px off)"
                    );
                }
                let molang_iterations = trace.get(frame, row0, &format!("{prefix}_iterations"));
                most_iterations = most_iterations.max(molang_iterations as u32);
                assert_eq!(
                    molang_iterations as u32, iterations,
                    "{file} {anim_name} frame {frame}: iterations"
                );
                if dist(c.joints[0], target) < total {
                    reached += 1;
                    case_reachable += 1;
                    let gap = dist(reference[reference.len() - 1], target);
                    if gap <= TOLERANCE_PX {
                        case_reached += 1;
                    } else {
                        unconverged += 1;
                    }
                } else {
                    straight += 1;
                    // Laid straight: every joint on the ray from the root toward the target.
                    for (j, joint) in reference.iter().enumerate().skip(1) {
                        let along: f64 =
                            c.joints.windows(2).take(j).map(|w| dist(w[0], w[1])).sum();
                        let on_ray = toward(c.joints[0], target, along / dist(c.joints[0], target));
                        assert!(dist(*joint, on_ray) < 1e-9);
                    }
                }
                frames_checked += 1;
            }
            eprintln!(
                "{file} {anim_name}: {case_reached} of {case_reachable} reachable frames reach the target ({} frames)",
                trace.frames()
            );
        }
    }
    assert!(reached > 100 && straight > 20, "{reached} {straight}");
    // Started from the pose kept from the frame before, every reachable target is reached
    // within the seed's 10 iterations (from the rest pose, the tail fell short on 15 of its
    // 60 frames).
    assert_eq!(unconverged, 0, "reachable targets not reached");
    eprintln!(
        "IK: {frames_checked} chain frames, max joint error {worst:.6} px, at most {most_iterations} iterations; {reached} reachable ({unconverged} of them not within the tolerance after 10 iterations), {straight} out of reach"
    );
}

#[test]
fn run_model_animation_gives_the_trace_of_the_imported_pack() {
    let dir = scratch("bbmodel-run-animation");
    for (file, id, anim) in [
        ("leg2_v4.bbmodel", "blockbench:leg", "animation.leg.idle"),
        ("tail8.bbmodel", "blockbench:tail_model_", "idle"),
    ] {
        let pack = import(file, &dir);
        let args = [
            "--seconds",
            "2",
            "--fps",
            "20",
            "--locators",
            "--vars",
            "-q",
        ];
        let o = molang()
            .arg("run")
            .arg(model(file))
            .args(["--animation", anim])
            .args(args)
            .output()
            .unwrap();
        assert_code(&o, 0);
        let from_model = text(&o.stdout);
        let o = molang()
            .arg("run")
            .arg(&pack)
            .args(["--entity", id])
            .args(args)
            .output()
            .unwrap();
        assert_code(&o, 0);
        assert_eq!(from_model, text(&o.stdout), "{file}");
        // The IK moves the chain: its variables are in the trace and not all 0.
        assert!(from_model.lines().next().unwrap().contains("v.ik_state"));
    }
    // The chain tip of the arm (a locator) is a row of its own.
    let trace = play_animation(&model("arm3_v5.bbmodel"), "idle", "jit", "1");
    assert!(trace
        .lines()
        .any(|l| l.split(',').nth(2) == Some("locator:tip")));
    // --plot draws a locator (the chain's tip) and a variable (its target).
    let svg = dir.join("tip.svg");
    let plot_tail = |channels: &str| {
        let flags = [
            "--animation",
            "idle",
            "--seconds",
            "1",
            "-q",
            "--channels",
            channels,
        ];
        molang_with("run", &model("tail8.bbmodel"), "--plot", &svg, &flags)
    };
    assert_code(&plot_tail("locator:end.wx,v.ik_tail_ik_tx"), 0);
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains("locator:end.wx") && drawn.contains("v.ik_tail_ik_tx"));
    for bad in ["locator:nowhere.wx", "locator:end.rx", "v.nothing"] {
        assert_code(&plot_tail(bad), 2);
    }
    // An animation the model does not export is refused, naming those it has.
    let o = molang_on(
        "run",
        model("leg2_v4.bbmodel"),
        &["--animation", "jump", "-q"],
    );
    assert_code(&o, 2);
    assert_contains(&text(&o.stderr), "idle, walk");
    // --animation is for models only.
    let pack = dir.join("leg2_v4");
    let o = molang_on(
        "run",
        &pack,
        &["--entity", "blockbench:leg", "--animation", "idle", "-q"],
    );
    assert_code(&o, 2);
}

#[test]
fn check_warns_where_blockbench_preview_and_the_game_differ() {
    let dir = scratch("bbmodel-preview");
    // One data point per line, each written once: (text, what the message says; empty where
    // the preview and the game agree, so nothing is flagged).
    let cases: [(&str, &str); 14] = [
        ("10 / 0", "division by zero"),
        ("q.anim_time / (2 - 2) + 1", "division by zero"),
        (
            "1 / q.anim_time + 4 / 2",
            "the divisor `q.anim_time` can be 0",
        ),
        ("3 / math.sin(q.anim_time * 90)", "can be 0"),
        ("1 / math.max(q.anim_time, 0.5)", ""),
        ("2 / (math.abs(q.anim_time) + 1)", ""),
        (
            "q.anim_time > 1 || q.anim_time < 0.5 && q.anim_time > 0.2",
            "`&&` and `||`",
        ),
        (
            "(q.anim_time > 1 || q.anim_time < 0.5) && q.anim_time > 0.2",
            "",
        ),
        (
            "q.anim_time == 1 != 0",
            "as ((0==1)!=2), Blockbench's preview (MolangJS) as (0==(1!=2))",
        ),
        ("q.anim_time < 1 == 1", ""),
        (
            "t.a = 2; t.a * q.anim_time;",
            "the value of its last statement",
        ),
        ("t.a = 2; return t.a * q.anim_time;", ""),
        ("v.a = q.anim_time;", ""),
        ("math.sin(q.anim_time * 120) * 4", ""),
    ];
    let keyframes: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(k, (text, _))| {
            format!(
                "{{\"channel\": \"rotation\", \"time\": {k},\n\"data_points\": [{{\"x\": \"{text}\", \"y\": 0, \"z\": 0}}]}}"
            )
        })
        .collect();
    let text = format!(
        r#"{{"meta": {{"format_version": "4.5", "model_format": "bedrock"}},
 "outliner": [{{"name": "b", "origin": [0,0,0], "uuid": "g", "children": []}}],
 "animations": [{{"name": "idle", "loop": "loop", "length": 20, "animators": {{"g": {{"name": "b", "type": "bone",
  "keyframes": [
{}
]}}}}}}]}}
"#,
        keyframes.join(",\n")
    );
    let p = model_file(&dir, "preview.bbmodel", &text);
    let (diags, summary) = check_json(&p);
    assert_eq!(summary["errors"], 0, "{diags:?}");
    let w: Vec<&Value> = diags.iter().filter(|d| d["code"] == "W0740").collect();
    let lines: Vec<&str> = text.lines().collect();
    for (text_k, says) in cases {
        let flagged = !says.is_empty();
        let line = lines
            .iter()
            .position(|l| l.contains(&format!("\"{text_k}\"")))
            .unwrap()
            + 1;
        let here: Vec<&&Value> = w.iter().filter(|d| d["line"] == line as u64).collect();
        assert_eq!(here.len(), flagged as usize, "{text_k}: {here:?}");
        if let Some(d) = here.first() {
            let message = d["message"].as_str().unwrap();
            assert_contains(message, says);
            // At the operation, inside the string: a column after the opening quote.
            let col = d["column"].as_u64().unwrap() as usize;
            let start = lines[line - 1].find(text_k).unwrap() + 1;
            assert!(
                col >= start && col < start + text_k.len(),
                "{text_k}: column {col}"
            );
        }
    }
    // The division's place: `1 / q.anim_time`, not `4 / 2`.
    let line = lines.iter().position(|l| l.contains("4 / 2")).unwrap();
    let d = w.iter().find(|d| d["line"] == (line + 1) as u64).unwrap();
    assert_eq!(
        d["column"],
        (lines[line].find("1 / q.anim_time").unwrap() + 1) as u64
    );
    // The fixtures: only the tail's `1 / 0` keyframe.
    for (name, _) in FIXTURES {
        let (diags, _) = check_json(&model(name));
        let n = diags.iter().filter(|d| d["code"] == "W0740").count();
        assert_eq!(n, usize::from(name == "tail8.bbmodel"), "{name}: {diags:?}");
    }
}

/// `molang test` works on an imported pack: a test file beside it plays the imported entity
/// (its state machine and IK), writes its snapshot with `--bless`, then passes on both back
/// ends with no content-log line; a changed snapshot fails.
#[test]
fn molang_test_runs_on_an_imported_pack() {
    let dir = scratch("bbmodel-molang-test");
    import("leg2_v4.bbmodel", &dir);
    let tests = dir.join("tests");
    std::fs::create_dir_all(&tests).unwrap();
    std::fs::write(
        tests.join("leg.test.json"),
        r#"{
  "name": "imported leg idles with its IK",
  "entity": "blockbench:leg",
  "packs": ["../leg2_v4"],
  "fps": 20, "seconds": 2,
  "expect": [
    { "no_content_log": true },
    { "snapshot": "leg.trace.csv" }
  ]
}"#,
    )
    .unwrap();
    let test = |extra: &[&str]| {
        molang()
            .arg("test")
            .arg(&tests)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = test(&["--bless"]);
    assert_code(&o, 0);
    let snapshot = std::fs::read_to_string(tests.join("leg.trace.csv")).unwrap();
    assert!(snapshot.lines().count() > 40, "{snapshot}");
    let o = test(&["--backend", "both"]);
    assert_code(&o, 0);
    // The snapshot is really compared: a changed value fails the test.
    let changed: String = snapshot
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 20 {
                let mut cells: Vec<String> = l.split(',').map(str::to_string).collect();
                let last = cells.len() - 1;
                cells[last] = "12345".into();
                cells.join(",") + "\n"
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(tests.join("leg.trace.csv"), changed).unwrap();
    let o = test(&[]);
    assert_code(&o, 1);
    let _ = std::fs::remove_dir_all(dir);
}

/// The pose a chain keeps between frames: the leg's state machine plays idle, then walk from
/// 1 s (a walking timeline); per frame the kept joints (`v.ik_leg_ik_*_x/y/z`, the chain's frame)
/// and the iterations are the reference FABRIK's, started from the previous frame's answer
/// while the animation goes on and from the rest pose on the first frame and on the change
/// to walk (the seed resets every chain on an animation change).
#[test]
fn ik_keeps_the_pose_within_an_animation_and_resets_it_on_a_change() {
    let dir = scratch("bbmodel-ik-warm");
    let leg = import("leg2_v4.bbmodel", &dir);
    let inputs = write_in(
        &dir,
        "walk.csv",
        "t,q.ground_speed,q.is_on_ground\n0,0,1\n0.99,0,1\n1,2,1\n",
    );
    let trace_of = |backend: &str| {
        let o = run_inputs(
            &leg,
            &inputs,
            &format!("--entity blockbench:leg --seconds 2 --fps 20 --vars -q --backend {backend}"),
        );
        assert_code(&o, 0);
        text(&o.stdout)
    };
    let jit = trace_of("jit");
    assert_eq!(jit, trace_of("interp"), "the back ends differ");
    let trace = Trace::parse(&jit);
    let m = read_fixture("leg2_v4.bbmodel");
    let (chains, _) = m.ik_chains();
    let c = &chains[0];
    let names = ["thigh", "shin", "end"];
    let var = |frame: usize, name: &str| trace.get(frame, "root", name);
    let (mut kept, mut resets, mut warm_frames): (Option<Vec<V3>>, Vec<usize>, usize) =
        (None, Vec::new(), 0);
    for frame in 0..trace.frames() {
        assert_eq!(var(frame, "v.ik_leg_ik_driven"), 1.0, "frame {frame}");
        // What `pre_animation` saw of the playing animation: the controller's record from the
        // frame before (it runs after `pre_animation`); on frame 0, `initialize`'s, which
        // the controller's first state repeats.
        let seen = |f: usize| (var(f, "v.ik_state"), var(f, "v.ik_start"));
        let changed = frame == 0 || (frame >= 2 && seen(frame - 1) != seen(frame - 2));
        if changed {
            kept = None;
            if frame > 0 {
                resets.push(frame);
            }
        }
        let target: V3 = ["tx", "ty", "tz"].map(|a| var(frame, &format!("v.ik_leg_ik_{a}")));
        let warm = kept.clone();
        let start = warm.clone().unwrap_or_else(|| c.joints.clone());
        let (want, iterations) = fabrik(&c.joints, &start, target);
        if warm.is_some() {
            warm_frames += 1;
        } else if frame > 0 {
            // The reset matters here: starting from the kept pose gives another answer.
            let (other, other_iterations) = fabrik(
                &c.joints,
                &fabrik_kept_before(&trace, frame, &names, c.joints[0]),
                target,
            );
            assert!(
                other_iterations != iterations
                    || other.iter().zip(&want).any(|(a, b)| dist(*a, *b) > 0.01),
                "frame {frame}: the reset is not visible"
            );
        }
        assert_eq!(
            var(frame, "v.ik_leg_ik_iterations") as u32,
            iterations,
            "frame {frame}: iterations"
        );
        for (j, name) in names.iter().enumerate().skip(1) {
            let got: V3 = ["x", "y", "z"].map(|a| var(frame, &format!("v.ik_leg_ik_{name}_{a}")));
            assert!(
                dist(got, want[j]) <= 0.01,
                "frame {frame}: joint {name} kept at {got:?}, the reference FABRIK puts it at {:?}",
                want[j]
            );
        }
        kept = Some(want);
    }
    assert_eq!(resets.len(), 1, "one animation change: {resets:?}");
    assert!(warm_frames > 30, "{warm_frames}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The joints the Molang kept on the frame before `frame` (the root at its rest place).
fn fabrik_kept_before(trace: &Trace, frame: usize, names: &[&str], root: V3) -> Vec<V3> {
    let mut joints = vec![root];
    for name in &names[1..] {
        joints.push(
            ["x", "y", "z"]
                .map(|a| trace.get(frame - 1, "root", &format!("v.ik_leg_ik_{name}_{a}"))),
        );
    }
    joints
}

/// What Blockbench's `autoParseJSON` reads, read too: a compressed project file (`<lz>` and
/// LZUTF8, `leg2_v4_lz.bbmodel`: the leg fixture compressed by the npm package `lzutf8`
/// 0.6.3 as Blockbench saves it), a byte order mark, comments. Each plays as the plain leg;
/// broken compressed data gets a diagnostic at its character.
#[test]
fn compressed_models_byte_order_marks_and_comments_are_read_as_blockbench_reads_them() {
    let dir = scratch("bbmodel-forms");
    let plain = std::fs::read_to_string(model("leg2_v4.bbmodel")).unwrap();
    let with_bom = model_file(&dir, "bom.bbmodel", &format!("\u{feff}{plain}"));
    let commented = model_file(
        &dir,
        "comments.bbmodel",
        &plain
            .replacen("{", "{ // a leg\n /* two bones,\n one chain */", 1)
            .replacen("\"loop\": \"loop\"", "\"loop\": /* on */ \"loop\"", 1),
    );
    let args = ["--animation", "idle", "--seconds", "1", "--fps", "20", "-q"];
    let play = |p: &Path| {
        let o = molang().arg("run").arg(p).args(args).output().unwrap();
        assert_code(&o, 0);
        text(&o.stdout)
    };
    let want = play(&model("leg2_v4.bbmodel"));
    for p in [model("leg2_v4_lz.bbmodel"), with_bom, commented] {
        let (diags, summary) = check_json(&p);
        assert!(
            diags.is_empty() && summary["errors"] == 0 && summary["warnings"] == 0,
            "{}: {diags:?}",
            p.display()
        );
        assert_eq!(play(&p), want, "{}", p.display());
        let out = dir.join(format!("{}_rp", p.file_stem().unwrap().to_string_lossy()));
        let o = molang_to("import", &p, &out, &[]);
        assert_code(&o, 0);
    }
    // The compressed file is small and not JSON.
    let packed = std::fs::read_to_string(model("leg2_v4_lz.bbmodel")).unwrap();
    assert!(packed.starts_with("<lz>") && packed.chars().count() < plain.len() / 4);

    // A problem inside a compressed model is reported in the decompressed text.
    // Broken compressed data: at its character (line 1, column 4 + its index + 1).
    let chars: Vec<char> = packed.chars().collect();
    let mut bad: String = chars[..40].iter().collect();
    bad.push('\u{9000}');
    bad.extend(&chars[40..]);
    let p = model_file(&dir, "bad_lz.bbmodel", &bad);
    let (diags, _) = check_json(&p);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "E0703");
    assert_eq!(
        (diags[0]["line"].as_u64(), diags[0]["column"].as_u64()),
        (Some(1), Some(41))
    );
    assert_contains(diags[0]["message"].as_str().unwrap(), "U+9000");
    // Cut short: the data ends inside a back-reference or the JSON ends early.
    let cut: String = chars[..chars.len() / 2].iter().collect();
    let p = model_file(&dir, "cut_lz.bbmodel", &cut);
    let (diags, _) = check_json(&p);
    assert!(diags.iter().any(|d| d["severity"] == "error"), "{diags:?}");
    let o = molang_to("import", &p, &dir.join("cut_out"), &[]);
    assert_code(&o, 1);
    // A back-reference that repeats a few bytes 31 at a time past the size limit: refused,
    // not decompressed to the end. (`<lz>` + 'a' + (0xDF 0x01) × N in 15-bit units.)
    let mut bomb = vec![b'{'];
    for _ in 0..2_300_000 {
        bomb.extend([0xDF, 0x01]);
    }
    let p = dir.join("bomb_lz.bbmodel");
    std::fs::write(&p, format!("<lz>{}", store_units(&bomb))).unwrap();
    let (diags, _) = check_json(&p);
    assert_eq!(diags[0]["code"], "E0703", "{diags:?}");
    assert_contains(diags[0]["message"].as_str().unwrap(), "more than 64 MiB");
    // A byte order mark before `<lz>` is not skipped (Blockbench looks for `<lz>` first).
    let p = model_file(&dir, "bom_lz.bbmodel", &format!("\u{feff}{packed}"));
    let (diags, _) = check_json(&p);
    assert_eq!(diags[0]["code"], "E0701", "{diags:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// LZUTF8's storage encoding of `bytes` (15 bits per character, `0x8000 | odd` at the end,
/// a unit 0 as U+8002), as `lzutf8` writes it.
fn store_units(bytes: &[u8]) -> String {
    let mut bits: Vec<bool> = bytes
        .iter()
        .flat_map(|b| (0..8).rev().map(move |k| b >> k & 1 == 1))
        .collect();
    let odd = bytes.len() % 2 == 1;
    if odd {
        bits.extend([false; 8]);
    }
    let mut out = String::new();
    for chunk in bits.chunks(15) {
        let mut u = 0u32;
        for (k, &bit) in chunk.iter().enumerate() {
            u |= (bit as u32) << (14 - k);
        }
        out.push(char::from_u32(if u == 0 { 0x8002 } else { u }).unwrap());
    }
    out.push(char::from_u32(0x8000 | odd as u32).unwrap());
    out
}
