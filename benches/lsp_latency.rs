//! Language-server latency on Mojang's vanilla resource pack (../shared/vanilla), alone and
//! with an add-on layer on top that overrides two of its files (`pig.animation.json` and
//! `pig.entity.json`, copied into a temporary folder):
//!
//! - `open_workspace`: reading and analysing the whole pack, as on `initialize`;
//! - `edit_animation`: the diagnostics after one change to an animation file;
//! - `edit_layered_addon` / `edit_layered_vanilla`: the same change in the add-on's file
//!   that overrides vanilla's, and in vanilla's file that the add-on overrides;
//! - `add_script_entry`: a keystroke that adds (then removes) a Molang string, a new site;
//! - `quick_edits_20`: 20 `didChange` sent at once to a running server, until it has
//!   answered a request sent after them (the diagnostics of the last text published).
//!
//! Run: `cargo bench --bench lsp_latency -- --warm-up-time 1 --measurement-time 5`.
//!
//! On a loaded machine wall time means little; `--probe` (any profile, e.g. the test
//! profile's `cargo test --bench lsp_latency --no-run` binary) runs each case once and prints
//! the CPU time of each keystroke (every thread of the process), including a sweep that
//! types one character into the first Molang string of every vanilla file (with and
//! without the add-on) and reports the slowest. Numbers and their caveats: BENCHMARKS.md.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::Criterion;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use molang_cli::lsp::{handlers, state::Workspace, text::path_to_uri};
use serde_json::json;

#[path = "../tests/common.rs"]
mod common;

fn vanilla() -> PathBuf {
    let dir = common::shared_dir().join("vanilla/resource_pack");
    assert!(
        dir.join("manifest.json").is_file(),
        "the benchmark needs {}",
        dir.display()
    );
    dir
}

/// An add-on resource pack in a temporary folder, removed on drop, that overrides vanilla's
/// pig animations and pig entity (copies of vanilla's files, the entity with a larger baby).
struct Addon(PathBuf);

impl Addon {
    fn new(vanilla: &Path) -> Addon {
        let dir = std::env::temp_dir().join(format!("molang-lsp-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["animations", "entity"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        std::fs::write(
            dir.join("manifest.json"),
            r#"{ "format_version": 2,
  "header": { "name": "bench add-on", "uuid": "2f6a3c1e-8b4d-4e7a-9c21-5d3b7e9f0a18",
              "version": [1, 0, 0], "min_engine_version": [1, 21, 0] },
  "modules": [ { "type": "resources", "uuid": "7c1e5a9b-3d2f-4b8c-a6e4-0f9d2b7c5e31",
                 "version": [1, 0, 0] } ] }"#,
        )
        .unwrap();
        let anim = std::fs::read_to_string(vanilla.join("animations/pig.animation.json")).unwrap();
        std::fs::write(dir.join("animations/pig.animation.json"), anim).unwrap();
        let entity = std::fs::read_to_string(vanilla.join("entity/pig.entity.json")).unwrap();
        std::fs::write(
            dir.join("entity/pig.entity.json"),
            entity.replace("2.0 : 1.0", "2.5 : 1.0"),
        )
        .unwrap();
        Addon(dir)
    }
}

impl Drop for Addon {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A file and two texts it alternates between (one keystroke apart).
struct Edit {
    path: PathBuf,
    texts: [String; 2],
}

impl Edit {
    /// `rel` under `root`, with `from` replaced by `to` in one of the texts.
    fn new(root: &Path, rel: &str, from: &str, to: &str) -> Edit {
        let path = root.join(rel);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let changed = text.replacen(from, to, 1);
        assert_ne!(changed, text, "the edit applies to {rel}");
        Edit {
            path,
            texts: [changed, text],
        }
    }

    fn apply(&self, ws: &mut Workspace, i: usize) -> usize {
        ws.set_text(&self.path, self.texts[i % 2].clone());
        publishable(ws)
    }
}

/// A character typed into an animation's Molang string: the file keeps its shape.
fn animation_edit(root: &Path) -> Edit {
    Edit::new(
        root,
        "animations/pig.animation.json",
        "\"90.0 - this\"",
        "\"90.0 - (this\"",
    )
}

/// The keystroke that closes a new `initialize` entry of the pig: a new Molang string.
fn script_entry_edit(root: &Path) -> Edit {
    Edit::new(
        root,
        "entity/pig.entity.json",
        "\"scripts\": {",
        "\"scripts\": {\n        \"initialize\": [ \"v.probe = 1;\" ],",
    )
}

fn bench(c: &mut Criterion) {
    let roots = vec![vanilla()];
    let addon = Addon::new(&roots[0]);
    let layered = vec![roots[0].clone(), addon.0.clone()];
    let mut g = c.benchmark_group("lsp");
    g.sample_size(10);
    g.bench_function("open_workspace", |b| {
        b.iter(|| {
            let ws = Workspace::new(&roots);
            handlers::diagnostics(&ws, None).len()
        })
    });
    let cases = [
        ("edit_animation", &roots, animation_edit(&roots[0])),
        ("edit_layered_addon", &layered, animation_edit(&addon.0)),
        ("edit_layered_vanilla", &layered, animation_edit(&roots[0])),
        ("add_script_entry", &roots, script_entry_edit(&roots[0])),
    ];
    for (name, roots, edit) in cases {
        let mut ws = Workspace::new(roots);
        let mut i = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                edit.apply(&mut ws, i)
            })
        });
    }
    let edit = animation_edit(&roots[0]);
    let mut server = Server::start(&roots);
    g.bench_function("quick_edits_20", |b| {
        b.iter(|| server.quick_edits(&edit, 20))
    });
    g.finish();
}

/// What the server sends after an update: the diagnostics of the files it touched.
fn publishable(ws: &mut Workspace) -> usize {
    let only = ws.take_changed();
    handlers::diagnostics(ws, only.as_ref()).len()
}

/// A server on an in-memory connection, initialised on `roots`.
struct Server {
    conn: Connection,
    thread: Option<std::thread::JoinHandle<Result<(), molang_cli::lsp::ProtocolError>>>,
    next: i32,
    version: i32,
    publishes: usize,
}

impl Server {
    fn start(roots: &[PathBuf]) -> Server {
        let (server_side, conn) = Connection::memory();
        let thread = Some(std::thread::spawn(move || {
            molang_cli::lsp::serve(server_side)
        }));
        let mut s = Server {
            conn,
            thread,
            next: 0,
            version: 1,
            publishes: 0,
        };
        let folders: Vec<_> = roots
            .iter()
            .map(|r| json!({"uri": path_to_uri(r).as_str(), "name": "pack"}))
            .collect();
        s.request(
            "initialize",
            json!({"processId": null, "capabilities": {}, "workspaceFolders": folders}),
        );
        s.notify("initialized", json!({}));
        // Any request (this one is unknown) is answered after the workspace's diagnostics.
        s.request("molang/ping", json!(null));
        s.publishes = 0;
        s
    }

    fn notify(&self, method: &str, params: serde_json::Value) {
        let n = Notification::new(method.to_string(), params);
        self.conn.sender.send(Message::Notification(n)).unwrap();
    }

    /// Sends a request and waits for its answer, counting the diagnostics published before.
    fn request(&mut self, method: &str, params: serde_json::Value) {
        self.next += 1;
        let id = RequestId::from(self.next);
        let r = Request::new(id.clone(), method.to_string(), params);
        self.conn.sender.send(Message::Request(r)).unwrap();
        loop {
            match self.conn.receiver.recv().expect("the server answers") {
                Message::Response(r) if r.id == id => return,
                Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
                    self.publishes += 1
                }
                _ => {}
            }
        }
    }

    /// `n` changes of `edit`'s file sent at once, then a request: returns when it is
    /// answered (the server has analysed and published the last text by then).
    fn quick_edits(&mut self, edit: &Edit, n: usize) {
        let uri = path_to_uri(&edit.path);
        for i in 0..n {
            self.version += 1;
            self.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri.as_str(), "version": self.version},
                       "contentChanges": [{"text": edit.texts[(i + 1) % 2]}]}),
            );
        }
        self.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri.as_str()}}),
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.request("shutdown", serde_json::Value::Null);
        self.notify("exit", serde_json::Value::Null);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// CPU time of this process so far, user and system, of every thread (finished ones
/// included: the pack loader parses on a thread of its own).
fn cpu() -> Duration {
    // SAFETY: `getrusage` only writes the struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// CPU and wall time of `f`.
fn timed<R>(f: impl FnOnce() -> R) -> (R, Times) {
    let (a, w) = (cpu(), Instant::now());
    let r = std::hint::black_box(f());
    (
        r,
        Times {
            cpu: cpu().saturating_sub(a),
            wall: w.elapsed(),
        },
    )
}

#[derive(Clone, Copy, Default)]
struct Times {
    cpu: Duration,
    wall: Duration,
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Median and maximum of `times` (CPU and wall), and how many are over 20 ms of either.
fn summary(times: &[Times]) -> String {
    let stat = |f: fn(&Times) -> Duration| {
        let mut v: Vec<Duration> = times.iter().map(f).collect();
        v.sort();
        (v[v.len() / 2], v[v.len() - 1])
    };
    let (cm, cx) = stat(|t| t.cpu);
    let (wm, wx) = stat(|t| t.wall);
    let over = |f: fn(&Times) -> Duration| times.iter().filter(|t| f(t).as_millis() >= 20).count();
    format!(
        "{} keystrokes: CPU median {}, max {} ({} over 20 ms); wall median {}, max {} ({} over 20 ms)",
        times.len(),
        ms(cm),
        ms(cx),
        over(|t| t.cpu),
        ms(wm),
        ms(wx),
        over(|t| t.wall),
    )
}

/// One keystroke into the first Molang string of every file of the workspace that has one
/// (a space after its opening quote), and back: the time of each, and the slowest file.
fn sweep(ws: &mut Workspace, files: &[PathBuf]) -> (Vec<Times>, String) {
    let mut times = Vec::new();
    let mut worst = (Duration::ZERO, String::new());
    for path in files {
        let Some(fi) = ws.file_index(path) else {
            continue;
        };
        let Some(site) = ws
            .pack
            .sites
            .iter()
            .find(|s| s.file == fi && !s.pieces.is_empty())
        else {
            continue;
        };
        let at = site.pieces[0].json.start;
        let text = ws.text(fi).to_string();
        let typed = format!("{} {}", &text[..at], &text[at..]);
        for t in [typed, text] {
            let (_, d) = timed(|| {
                ws.set_text(path, t);
                publishable(ws)
            });
            if d.cpu > worst.0 {
                worst = (d.cpu, path.display().to_string());
            }
            times.push(d);
        }
    }
    (times, format!("slowest (CPU): {}", worst.1))
}

fn probe() {
    let v = vanilla();
    let addon = Addon::new(&v);
    let roots = vec![v.clone()];
    let layered = vec![v.clone(), addon.0.clone()];
    let (mut ws, open) = timed(|| {
        let mut ws = Workspace::new(&roots);
        publishable(&mut ws);
        ws
    });
    println!("open vanilla: CPU {}, wall {}", ms(open.cpu), ms(open.wall));
    let (mut lws, open) = timed(|| {
        let mut ws = Workspace::new(&layered);
        publishable(&mut ws);
        ws
    });
    println!(
        "open vanilla + add-on: CPU {}, wall {}",
        ms(open.cpu),
        ms(open.wall)
    );
    let n = 20;
    let cases = [
        ("vanilla, pig.animation.json", false, animation_edit(&v)),
        (
            "vanilla + add-on, the add-on's pig.animation.json (overrides vanilla's)",
            true,
            animation_edit(&addon.0),
        ),
        (
            "vanilla + add-on, vanilla's pig.animation.json (overridden)",
            true,
            animation_edit(&v),
        ),
        (
            "vanilla + add-on, the add-on's pig.entity.json (overrides vanilla's)",
            true,
            Edit::new(&addon.0, "entity/pig.entity.json", "2.5 : 1.0", "2.5 : 1.5"),
        ),
        (
            "vanilla, adding and removing an `initialize` script entry in pig.entity.json",
            false,
            script_entry_edit(&v),
        ),
    ];
    for (name, on_layered, edit) in cases {
        let ws = if on_layered { &mut lws } else { &mut ws };
        let (full, inc) = (ws.full_analyses, ws.incremental_analyses);
        let times: Vec<Times> = (0..n).map(|i| timed(|| edit.apply(ws, i)).1).collect();
        if std::env::var_os("LSP_PROBE_EACH").is_some() {
            let each: Vec<String> = times.iter().map(|t| ms(t.cpu)).collect();
            println!("  {}", each.join(" "));
        }
        println!(
            "{name}: {} ({} whole-workspace analyses, {} incremental)",
            summary(&times),
            ws.full_analyses - full,
            ws.incremental_analyses - inc
        );
        // Back to the disk's text for the sweeps.
        edit.apply(ws, 1);
    }
    for (name, ws) in [("vanilla", &mut ws), ("vanilla + add-on", &mut lws)] {
        let files: Vec<PathBuf> = ws.pack.files.iter().map(|f| f.path.clone()).collect();
        let full = ws.full_analyses;
        let (times, worst) = sweep(ws, &files);
        println!(
            "sweep, {name}: {}; {worst}; {} whole-workspace analyses",
            summary(&times),
            ws.full_analyses - full
        );
    }
    drop((ws, lws));
    let edit = animation_edit(&v);
    let mut server = Server::start(&roots);
    let before = server.publishes;
    let (_, d) = timed(|| server.quick_edits(&edit, 20));
    println!(
        "20 quick edits through the server, until a request after them is answered: CPU {}, wall {} ({} publish)",
        ms(d.cpu),
        ms(d.wall),
        server.publishes - before
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--probe") {
        return probe();
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
