//! Hostile packs against the entity runtime: bounded memory and time at load and per frame,
//! on both back ends. The limits themselves are listed in `tests/limits.rs`.
//!
//! Memory-bound cases run in a child process (this test binary again, one test) under an
//! address-space limit (`ulimit -v`), so that a regression aborts the child instead of
//! exhausting the machine.

mod support;
use support::packs::pack_of_built as pack;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use molang::runtime::play::FRAME_BUDGET;
use molang::runtime::{load_from_pack, Backend, Runtime};
use molang::Code;

/// Held by the tests that time something or load the CPU, so that on a 2-core machine they do
/// not time each other.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Set in the child process to the name of the test it runs.
const CHILD: &str = "MOLANG_LIMITS_CHILD";

/// Address space the child may map: the test binary, the JIT, a few threads' stacks and
/// malloc arenas fit in it many times over; 3^16 controller nodes (7 GB) do not.
const CHILD_KIB: u64 = 1536 * 1024;

/// In the parent, runs test `name` alone in a child under [`CHILD_KIB`] and returns false
/// (the parent is done); in the child returns true (run the body).
fn in_child(name: &str) -> bool {
    if std::env::var(CHILD).as_deref() == Ok(name) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let _serial = serial();
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {CHILD_KIB} && exec \"$0\" --exact {name} --nocapture --test-threads=1"
        ))
        .arg(exe)
        .env(CHILD, name)
        // Few malloc arenas: each reserves 64 MiB of address space per thread.
        .env("MALLOC_ARENA_MAX", "2")
        .output()
        .expect("sh runs");
    let took = start.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{name} in a child under {CHILD_KIB} KiB: {took:?}\n{stdout}");
    assert!(
        out.status.success(),
        "{name} failed under {CHILD_KIB} KiB of address space ({:?}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("1 passed"),
        "{name}: the child ran no test:\n{stdout}"
    );
    assert!(took < Duration::from_secs(60), "{name} took {took:?}");
    false
}

/// Client entity `t:e` with `animations` (short name -> id, JSON members) and `animate`.
fn entity(animations: &str, animate: &str) -> String {
    format!(
        r#"{{"format_version": "1.10.0", "minecraft:client_entity": {{"description": {{
            "identifier": "t:e", "animations": {{ {animations} }}, "scripts": {{"animate": [ {animate} ]}}}}}}}}"#
    )
}

/// A controllers file: `(id, short names its one state plays)`.
fn controllers(list: &[(String, Vec<String>)]) -> String {
    let body: Vec<String> = list
        .iter()
        .map(|(id, plays)| {
            let plays: Vec<String> = plays.iter().map(|p| format!("\"{p}\"")).collect();
            format!(
                r#""{id}": {{"initial_state": "default", "states": {{"default": {{"animations": [{}]}}}}}}"#,
                plays.join(", ")
            )
        })
        .collect();
    format!(
        r#"{{"format_version": "1.10.0", "animation_controllers": {{ {} }}}}"#,
        body.join(",\n")
    )
}

/// An animation `animation.spin` turning bone `b` at 90°/s, short name `spin`.
const SPIN: &str = r#"{"format_version": "1.8.0", "animations": {"animation.spin": {"loop": true,
    "bones": {"b": {"rotation": ["q.anim_time * 90", 0, 0]}}}}}"#;

/// The files of entity `t:e` playing the controller with short name `first`: the entity (each
/// controller of `list` under its own name, and `spin`), the controllers and `spin`.
fn controller_pack(list: &[(String, Vec<String>)], first: &str) -> [(&'static str, String); 3] {
    let mut shorts: Vec<String> = list
        .iter()
        .map(|(id, _)| {
            let short = id
                .strip_prefix("controller.animation.")
                .expect("a controller id");
            format!(r#""{short}": "{id}""#)
        })
        .collect();
    shorts.push(r#""spin": "animation.spin""#.to_string());
    [
        (
            "e.json",
            entity(&shorts.join(", "), &format!("\"{first}\"")),
        ),
        ("c.json", controllers(list)),
        ("a.json", SPIN.to_string()),
    ]
}

/// Loads `t:e` from the files, runs 10 frames on both back ends, and returns the runtime
/// (interpreter), the log of both, and the number of play nodes.
fn load_and_play(files: &[(&str, String)]) -> (Vec<String>, usize) {
    let p = pack(files);
    let mut logs = Vec::new();
    let mut poses = Vec::new();
    let mut nodes = 0;
    for backend in [Backend::Interp, Backend::Jit] {
        let loaded = load_from_pack(&p, "t:e").expect("loads");
        nodes = loaded.model.nodes.len();
        let mut rt = Runtime::new(loaded, backend, 20.0, 1);
        let mut log = Vec::new();
        for f in 0..10 {
            rt.step(f as f32 / 20.0, &[]);
            log.extend(rt.take_log().into_iter().map(|l| l.message));
        }
        poses.push(rt.pose().clone());
        logs.push(log);
    }
    assert_eq!(logs[0], logs[1], "the back ends log the same");
    assert_eq!(poses[0], poses[1], "the back ends pose the same");
    (logs.swap_remove(0), nodes)
}

/// `check`'s W0808 diagnostics: (file, line, column).
fn cycle_warnings(files: &[(&str, String)]) -> Vec<(String, usize, usize)> {
    let p = pack(files);
    let (diags, _) = molang::pack_check::check_pack(&p);
    diags
        .iter()
        .filter(|d| d.diagnostic.code == Code::ControllerCycle)
        .map(|d| (d.path.display().to_string(), d.line, d.column))
        .collect()
}

#[test]
fn a_controller_playing_itself_three_times_loads_and_plays_in_bounded_memory() {
    if !in_child("a_controller_playing_itself_three_times_loads_and_plays_in_bounded_memory") {
        return;
    }
    let c = "controller.animation.c".to_string();
    let files = controller_pack(
        &[(c, vec!["spin".into(), "c".into(), "c".into(), "c".into()])],
        "c",
    );
    let start = Instant::now();
    let (log, nodes) = load_and_play(&files);
    println!("loaded and played twice in {:?}", start.elapsed());
    // The controller, its animation and the three entries that close the circle.
    assert_eq!(nodes, 5, "{log:?}");
    assert!(
        log.iter()
            .any(|l| l.contains("controller `controller.animation.c` plays itself")),
        "{log:?}"
    );
    // `check` warns at each of the three entries.
    let warned = cycle_warnings(&files);
    assert_eq!(warned.len(), 3, "{warned:?}");
    assert!(warned.iter().all(|w| w.0 == "c.json"), "{warned:?}");
}

#[test]
fn four_mutually_recursive_controllers_load_and_play_in_bounded_memory() {
    if !in_child("four_mutually_recursive_controllers_load_and_play_in_bounded_memory") {
        return;
    }
    // Each of four controllers plays all four, twice, and the animation.
    let names = ["a", "b", "c", "d"];
    let list: Vec<(String, Vec<String>)> = names
        .iter()
        .map(|n| {
            let mut plays = vec!["spin".to_string()];
            for _ in 0..2 {
                plays.extend(names.iter().map(|m| m.to_string()));
            }
            (format!("controller.animation.{n}"), plays)
        })
        .collect();
    let files = controller_pack(&list, "a");
    let start = Instant::now();
    let (log, nodes) = load_and_play(&files);
    println!(
        "{nodes} play nodes, loaded and played twice in {:?}",
        start.elapsed()
    );
    assert!(nodes < 10_000, "{nodes} nodes");
    assert!(log.iter().any(|l| l.contains("plays itself")), "{log:?}");
    assert!(!cycle_warnings(&files).is_empty());
}

#[test]
fn controllers_nested_many_times_over_stop_at_the_node_limit() {
    if !in_child("controllers_nested_many_times_over_stop_at_the_node_limit") {
        return;
    }
    // No circle: c0 plays c1 three times, c1 plays c2 three times, ... (3^15 occurrences of
    // c15 before the nesting limit).
    let n = 20;
    let list: Vec<(String, Vec<String>)> = (0..n)
        .map(|i| {
            let plays = if i + 1 < n {
                vec![format!("c{}", i + 1); 3]
            } else {
                vec!["spin".to_string()]
            };
            (format!("controller.animation.c{i}"), plays)
        })
        .collect();
    let files = controller_pack(&list, "c0");
    let p = pack(&files);
    let loaded = load_from_pack(&p, "t:e").expect("loads");
    let nodes = loaded.model.nodes.len();
    assert_eq!(nodes, molang::runtime::load::MAX_PLAY_NODES + 1);
    assert_eq!(
        loaded.model.controllers.len(),
        n,
        "each controller compiled once"
    );
    let mut rt = Runtime::new(loaded, Backend::Interp, 20.0, 1);
    rt.step(0.0, &[]);
    let log: Vec<String> = rt.take_log().into_iter().map(|l| l.message).collect();
    assert!(
        log.iter()
            .any(|l| l.contains("more than 65536 animations and controllers")),
        "{log:?}"
    );
    assert!(cycle_warnings(&files).is_empty(), "no circle");
}

/// An entity whose one animation has `channels` bones, each turned by a loop of a billion
/// iterations counting in `v.n`.
fn looping_channels(channels: usize) -> Vec<(&'static str, String)> {
    let bones: Vec<String> = (0..channels)
        .map(|i| {
            format!(
                r#""b{i}": {{"rotation": ["loop(1e9, {{v.n = v.n + 1;}}); return v.n;", 0, 0]}}"#
            )
        })
        .collect();
    let anim = format!(
        "{{\"format_version\": \"1.8.0\", \"animations\": {{\"animation.busy\": {{\"loop\": true,\n\"bones\": {{\n{}\n}}}}}}}}",
        bones.join(",\n")
    );
    let entity = r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {
        "identifier": "t:e", "animations": {"busy": "animation.busy"},
        "scripts": {"initialize": ["v.n = 0;"], "animate": ["busy"]}}}}"#;
    vec![("e.json", entity.to_string()), ("busy.json", anim)]
}

#[test]
fn two_hundred_looping_channels_share_one_frame_budget() {
    let _serial = serial();
    let files = looping_channels(200);
    let p = pack(&files);
    let mut counts = Vec::new();
    let mut logs = Vec::new();
    let mut poses = Vec::new();
    for backend in [Backend::Interp, Backend::Jit] {
        let mut rt = Runtime::new(load_from_pack(&p, "t:e").unwrap(), backend, 20.0, 1);
        assert_eq!(rt.is_native(), backend == Backend::Jit);
        let slot = rt.variable_slot("n").expect("v.n");
        let start = Instant::now();
        let mut per_frame = Vec::new();
        for f in 0..2 {
            let before = rt.variable(slot).unwrap_or(0.0);
            rt.step(f as f32 / 20.0, &[]);
            per_frame.push(rt.variable(slot).unwrap() - before);
            assert!(rt.frame_iterations() <= FRAME_BUDGET + 1);
        }
        let took = start.elapsed();
        println!(
            "{backend:?}: 2 frames of 200 looping channels in {took:?}, v.n grew {per_frame:?}"
        );
        assert!(took < Duration::from_secs(30), "{backend:?}: {took:?}");
        counts.push(per_frame);
        logs.push(rt.take_log());
        poses.push(rt.pose().clone());
    }
    assert_eq!(counts[0], counts[1], "the back ends count the same");
    assert_eq!(logs[0], logs[1], "the back ends log the same");
    assert_eq!(poses[0], poses[1]);
    // v.n is an f32: it counts exactly to 2^24 only, so compare loosely. The whole frame
    // spent one budget, not 200.
    for grew in &counts[0] {
        assert!(
            (*grew as f64) <= FRAME_BUDGET as f64 * 1.01,
            "v.n grew by {grew} in one frame"
        );
    }
    let note = logs[0]
        .iter()
        .find(|l| l.message.contains("frame's iteration budget"))
        .unwrap_or_else(|| panic!("no budget note: {:?}", logs[0]));
    // The first channel spent it: bone b0's rotation, line 3 of busy.json.
    assert!(
        note.message.contains("animation.busy b0.rotation")
            && note.message.contains("busy.json:3:"),
        "{}",
        note.message
    );
    assert_eq!(note.frame, 0);
}

/// Times `run` on inputs of size `small` and 10 × `small` (each made by `make`, untimed):
/// linear work takes about 10 times as long; the bound allows 30 times plus 500 ms of noise
/// (quadratic work takes 100 times: 1 to 5 s at these sizes before they were made linear).
fn linear<T>(what: &str, small: usize, make: impl Fn(usize) -> T, run: impl Fn(&T)) {
    let _serial = serial();
    let time = |n: usize| {
        let input = make(n);
        let start = Instant::now();
        run(&input);
        start.elapsed()
    };
    // Warm up allocator and caches once.
    time(small / 10);
    let a = time(small);
    let b = time(small * 10);
    println!("{what}: {small} in {a:?}, {} in {b:?}", small * 10);
    assert!(
        b < a * 30 + Duration::from_millis(500),
        "{what}: {small} took {a:?}, {} took {b:?}",
        small * 10
    );
}

/// An entity `t:e` playing `animation.spin` on bone `b0` of geometry `geometry.g`.
fn spin_entity() -> String {
    r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {
        "identifier": "t:e", "geometry": {"default": "geometry.g"},
        "animations": {"spin": "animation.spin"}, "scripts": {"animate": ["spin"]}}}}"#
        .to_string()
}

#[test]
fn broken_files_cost_the_loader_linear_time() {
    linear(
        "empty .json files",
        3_000,
        |n| {
            let mut files = vec![("entity/e.json".to_string(), spin_entity())];
            files.extend((0..n).map(|i| (format!("animations/x{i}.json"), String::new())));
            molang::pack::load_sources(
                files
                    .into_iter()
                    .map(|(p, s)| (PathBuf::from(p), s))
                    .collect(),
            )
        },
        |p| {
            assert!(p.problems.len() >= 300);
            load_from_pack(p, "t:e").expect("the entity loads");
        },
    );
}

#[test]
fn many_bones_load_in_linear_time() {
    linear(
        "bones",
        3_000,
        |n| {
            let bones: Vec<String> = (0..n)
                .map(|i| match i {
                    0 => r#"{"name": "b0"}"#.to_string(),
                    _ => format!(r#"{{"name": "b{i}", "parent": "b{}"}}"#, i - 1),
                })
                .collect();
            let geometry = format!(
                r#"{{"format_version": "1.12.0", "minecraft:geometry": [{{"description": {{"identifier": "geometry.g"}}, "bones": [{}]}}]}}"#,
                bones.join(",")
            );
            pack(&[
                ("e.json", spin_entity()),
                ("g.json", geometry),
                ("a.json", SPIN.replace("\"b\"", "\"b0\"")),
            ])
        },
        |p| {
            let loaded = load_from_pack(p, "t:e").expect("loads");
            assert!(loaded.model.bones.len() >= 300);
        },
    );
}

#[test]
fn many_controller_states_load_in_linear_time() {
    linear(
        "controller states",
        3_000,
        |n| {
            let states: Vec<String> = (0..n)
                .map(|i| {
                    format!(
                        r#""s{i}": {{"animations": ["spin"], "transitions": [{{"s{}": "q.anim_time > 1"}}]}}"#,
                        (i + 1) % n
                    )
                })
                .collect();
            let c = format!(
                r#"{{"format_version": "1.10.0", "animation_controllers": {{"controller.animation.c": {{"initial_state": "s0", "states": {{ {} }}}}}}}}"#,
                states.join(",")
            );
            pack(&[
                (
                    "e.json",
                    entity(
                        r#""c": "controller.animation.c", "spin": "animation.spin""#,
                        r#""c""#,
                    ),
                ),
                ("c.json", c),
                ("a.json", SPIN.to_string()),
            ])
        },
        |p| {
            let loaded = load_from_pack(p, "t:e").expect("loads");
            assert!(loaded.model.controllers[0].states.len() >= 300);
        },
    );
}

#[test]
fn an_input_timeline_of_many_columns_parses_in_linear_time() {
    linear(
        "CSV columns",
        // 10x is 3,000 columns, inside the 4,096 fields a CSV line may hold.
        300,
        |n| {
            let header: Vec<String> = (0..n).map(|i| format!("q.c{i}")).collect();
            let row = vec!["1"; n];
            format!("t,{}\n0,{}\n", header.join(","), row.join(","))
        },
        |text| {
            let t = molang::runtime::inputs::parse(text, "cols.csv").expect("parses");
            assert!(t.queries.len() >= 30);
        },
    );
}
