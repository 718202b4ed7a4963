//! `molang lsp` driven in memory (`lsp_server::Connection::memory()`), as rust-analyzer's
//! and ruff's harnesses do: every message the server sends is consumed and checked, and a
//! session ends with nothing left unread. Fixture packs are written to a temporary folder;
//! the vanilla tests read ../shared/vanilla at test time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use lsp_types::*;
use molang_cli::lsp::state::Workspace;
use molang_cli::lsp::text::{path_to_uri, uri_to_path};
use serde_json::{json, Value};

struct Client {
    conn: Connection,
    server: Option<JoinHandle<Result<(), molang_cli::lsp::ProtocolError>>>,
    next_id: i32,
}

impl Client {
    /// A server on a memory connection, nothing sent yet.
    fn connect() -> Client {
        let (server_side, conn) = Connection::memory();
        let server = std::thread::spawn(move || molang_cli::lsp::serve(server_side));
        Client {
            conn,
            server: Some(server),
            next_id: 0,
        }
    }

    fn start(roots: &[PathBuf]) -> Client {
        Client::start_with(roots, json!({}), Value::Null)
    }

    /// A session whose client announces `capabilities` and passes `options`
    /// (`initializationOptions`).
    fn start_with(roots: &[PathBuf], capabilities: Value, options: Value) -> Client {
        let mut c = Client::connect();
        let folders: Vec<Value> = roots
            .iter()
            .map(|r| json!({"uri": path_to_uri(r).as_str(), "name": "pack"}))
            .collect();
        let result = c.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": capabilities, "initializationOptions": options, "workspaceFolders": folders}),
        );
        assert!(
            result["capabilities"]["hoverProvider"] == json!(true),
            "{result}"
        );
        c.notify("initialized", json!({}));
        c
    }

    fn recv(&self) -> Message {
        self.conn
            .receiver
            .recv_timeout(Duration::from_secs(120))
            .expect("the server answers within 2 minutes")
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.to_string(),
                params,
            )))
            .unwrap();
    }

    fn send_request(&mut self, method: &str, params: Value) -> RequestId {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.to_string(),
                params,
            )))
            .unwrap();
        id
    }

    /// Sends a request; the very next message must be its (successful) response.
    fn request(&mut self, method: &str, params: Value) -> Value {
        match self.request_result(method, params) {
            Ok(v) => v,
            Err(e) => panic!("{method} failed: {e}"),
        }
    }

    fn request_result(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.send_request(method, params);
        match self.recv() {
            Message::Response(r) if r.id == id => match r.error {
                Some(e) => Err(e.message),
                None => Ok(r.result.unwrap_or(Value::Null)),
            },
            other => panic!("expected the response to {method}, got {other:?}"),
        }
    }

    /// The next message must publish diagnostics.
    fn diagnostics(&self) -> (PathBuf, Vec<Diagnostic>) {
        match self.recv() {
            Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
                let p: PublishDiagnosticsParams = serde_json::from_value(n.params).unwrap();
                (uri_to_path(&p.uri).unwrap(), p.diagnostics)
            }
            other => panic!("expected diagnostics, got {other:?}"),
        }
    }

    /// Consumes one diagnostics notification, which must be about `path`.
    #[track_caller]
    fn diagnostics_of(&self, path: &Path) -> Vec<Diagnostic> {
        let (p, d) = self.diagnostics();
        assert_eq!(p, path);
        d
    }

    /// Consumes `n` diagnostics notifications, by path.
    fn diagnostics_n(&self, n: usize) -> BTreeMap<PathBuf, Vec<Diagnostic>> {
        (0..n).map(|_| self.diagnostics()).collect()
    }

    fn open(&self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "json", "version": 1, "text": text}}),
        );
    }

    fn change(&self, path: &Path, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(path), "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    fn save(&self, path: &Path) {
        self.notify("textDocument/didSave", doc(path, json!({})));
    }

    fn close(&self, path: &Path) {
        self.notify("textDocument/didClose", doc(path, json!({})));
    }

    /// The answer to `method` on the document `path`, with the members of `more`.
    fn on(&mut self, method: &str, path: &Path, more: Value) -> Value {
        self.request(method, doc(path, more))
    }

    /// The answer to `method` at byte `at` of the first `needle` in `text`, the text of `path`.
    fn at(&mut self, method: &str, path: &Path, text: &str, needle: &str, at: usize) -> Value {
        self.request(method, tdp(path, text, needle, at))
    }

    fn shutdown(mut self) {
        let v = self.request("shutdown", Value::Null);
        assert_eq!(v, Value::Null);
        self.notify("exit", Value::Null);
        let result = self.server.take().unwrap().join().unwrap();
        assert_eq!(result, Ok(()));
        // Every message was consumed.
        assert!(
            self.conn.receiver.try_recv().is_err(),
            "unread messages left"
        );
    }
}

/// Whether `d` has the code `code`.
fn is(d: &Diagnostic, code: &str) -> bool {
    d.code == Some(NumberOrString::String(code.into()))
}

/// Whether one of `ds` has the code `code`.
fn has(ds: &[Diagnostic], code: &str) -> bool {
    ds.iter().any(|d| is(d, code))
}

fn uri(path: &Path) -> String {
    path_to_uri(path).as_str().to_string()
}

/// The position of byte `at` of the first occurrence of `needle` in `text`.
fn pos(text: &str, needle: &str, at: usize) -> Value {
    let i = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in the text"))
        + at;
    let line = text[..i].matches('\n').count();
    let col = i - text[..i].rfind('\n').map_or(0, |n| n + 1);
    json!({"line": line, "character": col})
}

/// `{"textDocument": {"uri": ...}}` of `path` with the members of `more`.
fn doc(path: &Path, more: Value) -> Value {
    let mut v = json!({"textDocument": {"uri": uri(path)}});
    v.as_object_mut()
        .unwrap()
        .extend(more.as_object().unwrap().clone());
    v
}

fn tdp(path: &Path, text: &str, needle: &str, at: usize) -> Value {
    doc(path, json!({"position": pos(text, needle, at)}))
}

const MANIFEST: &str = r#"{"format_version": 2, "header": {"name": "t", "uuid": "5d0a8d2c-0000-4000-8000-000000000001", "version": [1, 0, 0], "min_engine_version": [1, 21, 100]},
 "modules": [{"type": "resources", "uuid": "5d0a8d2c-0000-4000-8000-000000000002", "version": [1, 0, 0]}]}"#;

const ENTITY: &str = r#"{
  "format_version": "1.10.0",
  "minecraft:client_entity": {
    "description": {
      "identifier": "test:pig",
      "scripts": {
        "initialize": ["v.speed = 1;"],
        "pre_animation": ["v.walk = v.speed * 2;"],
        "animate": ["walk", "ctrl"]
      },
      "animations": {
        "walk": "animation.test.walk",
        "ctrl": "controller.animation.test"
      }
    }
  }
}"#;

const ANIMATION: &str = r#"{
  "format_version": "1.8.0",
  "animations": {
    "animation.test.walk": {
      "loop": true,
      "bones": {
        "leg": { "rotation": ["math.cos(q.anim_time*38.17)*v.walk", "math.pi/2", "1 + (2 3)"] }
      }
    }
  }
}"#;

const CONTROLLER: &str = r#"{
  "format_version": "1.10.0",
  "animation_controllers": {
    "controller.animation.test": {
      "initial_state": "default",
      "states": {
        "default": { "transitions": [ { "moving": "q.modified_move_speed > 0.1" } ] },
        "moving": { "animations": ["walk"], "transitions": [ { "default": "q.modified_move_speed<0.1" } ] }
      }
    }
  }
}"#;

struct Fixture {
    dir: PathBuf,
}

/// A fixture pack `name` and a session on it.
fn session_on(name: &str) -> (Fixture, Client) {
    let fx = Fixture::new(name);
    let c = session(&fx);
    (fx, c)
}

/// A session on a fixture pack, the diagnostics of opening it consumed.
fn session(fx: &Fixture) -> Client {
    let roots = vec![fx.dir.clone()];
    let c = Client::start(&roots);
    c.diagnostics_n(files_with_diagnostics(&roots));
    c
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = std::env::temp_dir().join(format!("molang-lsp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (rel, text) in [
            ("manifest.json", MANIFEST),
            ("entity/pig.entity.json", ENTITY),
            ("animations/walk.animation.json", ANIMATION),
            (
                "animation_controllers/test.animation_controllers.json",
                CONTROLLER,
            ),
        ] {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        Fixture { dir }
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What `molang check` says about `roots`: (path, code, 1-based line) of every diagnostic.
fn check_says(roots: &[PathBuf]) -> Vec<(PathBuf, String, u32)> {
    let pack = molang::pack::load(roots);
    let (diags, _) = molang::pack_check::check_pack(&pack);
    let mut out: Vec<_> = diags
        .iter()
        .map(|d| {
            (
                d.path.clone(),
                d.diagnostic.code.as_str().to_string(),
                // Whole-file problems (line 0) are shown on line 1, as `check` prints them.
                d.line.max(1) as u32,
            )
        })
        .collect();
    out.sort();
    out
}

fn published_says(published: &BTreeMap<PathBuf, Vec<Diagnostic>>) -> Vec<(PathBuf, String, u32)> {
    let mut out: Vec<_> = published
        .iter()
        .flat_map(|(p, ds)| {
            ds.iter().map(move |d| {
                let code = match &d.code {
                    Some(NumberOrString::String(s)) => s.clone(),
                    other => panic!("no code: {other:?}"),
                };
                (p.clone(), code, d.range.start.line + 1)
            })
        })
        .collect();
    out.sort();
    out
}

fn files_with_diagnostics(roots: &[PathBuf]) -> usize {
    let mut paths: Vec<PathBuf> = check_says(roots).into_iter().map(|(p, _, _)| p).collect();
    paths.dedup();
    paths.len()
}

#[test]
fn lsp_diagnostics_on_open_change_save() {
    let fx = Fixture::new("diag");
    let roots = vec![fx.dir.clone()];
    let mut c = Client::start(&roots);
    let n = files_with_diagnostics(&roots);
    let published = c.diagnostics_n(n);
    // Every diagnostic `check` has, with its code, on its line.
    assert_eq!(published_says(&published), check_says(&roots));
    let anim = fx.path("animations/walk.animation.json");
    let d = &published[&anim];
    let e = d.iter().find(|d| is(d, "E0106")).expect("E0106");
    assert_eq!(e.severity, Some(DiagnosticSeverity::ERROR));
    assert_eq!(e.source.as_deref(), Some("molang"));
    // The range is the `3` of `(2 3)`, in the JSON file's coordinates.
    let start = ANIMATION.find("(2 3)").unwrap() + 3;
    assert_eq!(
        e.range.start,
        Position::new(
            6,
            (start - ANIMATION[..start].rfind('\n').unwrap() - 1) as u32
        )
    );

    // Open with the error fixed: the file's diagnostics are cleared.
    let fixed = ANIMATION.replace("1 + (2 3)", "1 + (2 * 3)");
    c.open(&anim, &fixed);
    let d = c.diagnostics_of(&anim);
    assert!(!has(&d, "E0106"), "{d:?}");

    // A change that reads a variable no script of the entity sets: the entity-aware check
    // runs across files.
    let broken = fixed.replace("*v.walk", "*v.never_set");
    c.change(&anim, 2, &broken);
    let d = c.diagnostics_of(&anim);
    assert!(has(&d, "W0604"), "{d:?}");
    let w = d.iter().find(|d| is(d, "W0604")).unwrap();
    assert!(w.message.contains("never_set"), "{}", w.message);

    // Close without saving: the disk text (with its E0106) counts again.
    c.close(&anim);
    let d = c.diagnostics_of(&anim);
    assert!(has(&d, "E0106"), "{d:?}");
    // Open the broken text again, save it and close: the saved text counts, so closing
    // publishes nothing; the next message is the answer to a request.
    c.open(&anim, &broken);
    let d = c.diagnostics_of(&anim);
    assert!(!has(&d, "E0106"), "{d:?}");
    // The editor writes the file, then says so; the server reads it again.
    std::fs::write(&anim, &broken).unwrap();
    c.save(&anim);
    c.close(&anim);
    let h = c.at("textDocument/hover", &anim, &broken, "q.anim_time", 3);
    assert!(h["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("query.anim_time"));
    c.shutdown();
}

/// A UTF-16 file on disk: the server publishes what `check` says of it (E0702: the game reads
/// UTF-8), before and after the editor opens it (an editor decodes UTF-16 and sends the text,
/// but the game still skips the file). It used to publish nothing for it.
#[test]
fn lsp_reports_a_utf16_file_as_check_does() {
    let fx = Fixture::new("utf16");
    let path = fx.path("entity/cow.entity.json");
    let json = r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {"identifier": "t:cow"}}}"#;
    let mut bytes = vec![0xFF, 0xFE];
    for u in json.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    std::fs::write(&path, bytes).unwrap();
    let roots = vec![fx.dir.clone()];
    let c = Client::start(&roots);
    let published = c.diagnostics_n(files_with_diagnostics(&roots));
    assert_eq!(published_says(&published), check_says(&roots));
    let utf16 = |ds: &[Diagnostic]| {
        ds.iter()
            .filter(|d| {
                is(d, "E0702") && d.message.contains("UTF-16") && d.message.contains("UTF-8")
            })
            .count()
    };
    assert_eq!(utf16(&published[&path]), 1, "{:?}", published[&path]);
    // The editor's decoded text, with a mistake of its own: both are published.
    let edited = r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {"identifier": "t:cow", "scripts": {"pre_animation": ["v.x = ;"]}}}}"#;
    c.open(&path, edited);
    // Opening re-analyses the entity: other files of it may be published first.
    let ds = loop {
        let (p, ds) = c.diagnostics();
        if p == path {
            break ds;
        }
    };
    assert_eq!(utf16(&ds), 1, "{ds:?}");
    assert!(ds.len() > 1, "{ds:?}");
    c.shutdown();
}

#[test]
fn lsp_diagnostics_of_the_mistakes_pack_match_check() {
    let roots = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mistakes_pack")];
    let mut c = Client::start(&roots);
    let published = c.diagnostics_n(files_with_diagnostics(&roots));
    let says = check_says(&roots);
    assert_eq!(published_says(&published), says);
    let mut codes: Vec<_> = says.iter().map(|(_, c, _)| c.clone()).collect();
    codes.sort();
    codes.dedup();
    println!("mistakes_pack: {} diagnostics, codes {codes:?}", says.len());
    assert!(codes.len() >= 5, "{codes:?}");
    // Related information (labels) points into the same file.
    for (path, ds) in &published {
        for d in ds {
            for r in d.related_information.iter().flatten() {
                assert_eq!(uri_to_path(&r.location.uri).as_ref(), Some(path));
            }
        }
    }
    let _ = c.on(
        "textDocument/documentSymbol",
        &roots[0].join("manifest.json"),
        json!({}),
    );
    c.shutdown();
}

#[test]
fn lsp_hover_queries_math_variables_constants() {
    let (fx, mut c) = session_on("hover");
    let anim = fx.path("animations/walk.animation.json");
    let hover = |c: &mut Client, needle: &str, at: usize| -> String {
        let v = c.at("textDocument/hover", &anim, ANIMATION, needle, at);
        v["contents"]["value"]
            .as_str()
            .unwrap_or_else(|| panic!("no hover at {needle}: {v}"))
            .to_string()
    };
    let q = hover(&mut c, "q.anim_time", 4);
    assert_contains(&q, "**query.anim_time**: takes no arguments or more");
    // What it returns, not only its arguments.
    assert_contains(&q, "Seconds since the current animation started");
    let m = hover(&mut c, "math.cos", 6);
    assert_contains_all(&m, &["math.cos(x)", "exactly 1 argument", "degrees"]);
    let v = hover(&mut c, "v.walk", 3);
    assert_contains_all(
        &v,
        &[
            "variable.walk",
            "test:pig",
            "Written in:\n- pig.entity.json:8 (client_entity.scripts.pre_animation)",
            "Read in:\n- walk.animation.json:7 (animation.bone.rotation)",
        ],
    );
    let k = hover(&mut c, "38.17", 2);
    assert_contains(&k, "`38.17` = **38.17**");
    let pi = hover(&mut c, "math.pi/2", 8);
    assert_contains(&pi, "`math.pi/2` = **1.5707964**");
    // Signature help inside a call: the signature, its documentation, the argument.
    let sig = c.at(
        "textDocument/signatureHelp",
        &anim,
        ANIMATION,
        "q.anim_time*38",
        2,
    );
    assert_eq!(sig["signatures"][0]["label"], json!("math.cos(x)"), "{sig}");
    assert_eq!(sig["activeParameter"], json!(0), "{sig}");
    assert_contains(
        sig["signatures"][0]["documentation"]["value"]
            .as_str()
            .unwrap(),
        "degrees",
    );
    // Outside Molang: no hover.
    let none = c.at("textDocument/hover", &anim, ANIMATION, "\"loop\"", 2);
    assert_eq!(none, Value::Null);
    c.shutdown();
}

#[test]
fn lsp_completion_queries_math_variables() {
    let (fx, mut c) = session_on("completion");
    let anim = fx.path("animations/walk.animation.json");
    // The items offered at byte `at` of `needle`.
    let mut complete = |needle: &str, at: usize| -> Vec<Value> {
        let v = c.at("textDocument/completion", &anim, ANIMATION, needle, at);
        v.as_array().unwrap().clone()
    };
    let labels = |items: &[Value]| -> Vec<String> {
        items
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    let find = |items: &[Value], label: &str| -> Value {
        let item = items.iter().find(|i| i["label"] == label);
        item.unwrap_or_else(|| panic!("no {label}")).clone()
    };
    // After `q.anim_` : queries in the user's short spelling.
    let v = complete("q.anim_time", 7);
    let l = labels(&v);
    assert!(l.contains(&"q.anim_time".to_string()), "{l:?}");
    assert!(l.iter().all(|x| x.starts_with("q.anim_")), "{l:?}");
    assert_eq!(
        v[0]["textEdit"]["newText"]
            .as_str()
            .map(|s| s.starts_with("q.anim_")),
        Some(true)
    );
    // `math.` : every math function, with arity snippets.
    let v = complete("math.cos", 5);
    let clamp = find(&v, "math.clamp");
    assert_eq!(
        clamp["textEdit"]["newText"],
        "math.clamp(${1:v}, ${2:lo}, ${3:hi})"
    );
    assert_eq!(clamp["insertTextFormat"], 2);
    // Its documentation carries the game's NaN rule.
    let doc = clamp["documentation"]["value"].as_str().unwrap();
    assert_contains(doc, "NaN");
    assert_eq!(labels(&v).len(), 61);
    // `v.` : the entity's variables across its files.
    let l = labels(&complete("v.walk", 2));
    assert!(
        l.contains(&"v.speed".to_string()) && l.contains(&"v.walk".to_string()),
        "{l:?}"
    );
    // Deprecated queries carry the tag.
    let v = complete("q.anim_time", 2);
    let deprecated = v
        .iter()
        .filter(|i| i["tags"] == json!([1]) && i["deprecated"] == json!(true))
        .count();
    let expected = molang::query_table::all()
        .iter()
        .filter(|q| q.deprecated.is_some())
        .count();
    assert_eq!(deprecated, expected);
    // A deprecated query's documentation names its successor.
    let old = find(&v, "q.get_equipped_item_name");
    assert_contains(
        old["documentation"]["value"].as_str().unwrap(),
        "**Deprecated**",
    );
    c.shutdown();
}

#[test]
// lsp-types' `Uri` caches its parse in a cell, which clippy takes for a mutable key; its
// hash and equality only look at the text.
#[allow(clippy::mutable_key_type)]
fn lsp_definition_references_rename() {
    let (fx, mut c) = session_on("rename");
    let anim = fx.path("animations/walk.animation.json");
    let entity = fx.path("entity/pig.entity.json");
    // Definition of v.walk (read in the animation) is its assignment in pre_animation.
    let v = c.at("textDocument/definition", &anim, ANIMATION, "v.walk", 2);
    let locs: Vec<Location> = serde_json::from_value(v).unwrap();
    assert_eq!(locs.len(), 1);
    assert_eq!(uri_to_path(&locs[0].uri), Some(entity.clone()));
    assert_eq!(
        locs[0].range.start,
        serde_json::from_value::<Position>(pos(ENTITY, "v.walk =", 0)).unwrap()
    );
    // References: the write and the read, across both files.
    let v = c.on(
        "textDocument/references",
        &anim,
        json!({"position": pos(ANIMATION, "v.walk", 2), "context": {"includeDeclaration": true}}),
    );
    let locs: Vec<Location> = serde_json::from_value(v).unwrap();
    assert_eq!(locs.len(), 2);
    // An animation short name in the entity goes to the animation's file.
    let v = c.at("textDocument/definition", &entity, ENTITY, "\"walk\",", 2);
    let locs: Vec<Location> = serde_json::from_value(v).unwrap();
    assert_eq!(uri_to_path(&locs[0].uri), Some(anim.clone()));
    // Rename v.walk → v.stride in both files, keeping each spelling's namespace.
    let v = c.on(
        "textDocument/rename",
        &anim,
        json!({"position": pos(ANIMATION, "v.walk", 3), "newName": "stride"}),
    );
    let edit: WorkspaceEdit = serde_json::from_value(v).unwrap();
    let changes = edit.changes.unwrap();
    assert_eq!(changes.len(), 2);
    let in_entity = &changes[&path_to_uri(&entity)];
    assert_eq!(in_entity.len(), 1);
    assert_eq!(in_entity[0].new_text, "stride");
    assert_eq!(
        in_entity[0].range.start,
        serde_json::from_value::<Position>(pos(ENTITY, "walk =", 0)).unwrap()
    );
    // A bad name is refused with a message.
    let err = c
        .request_result(
            "textDocument/rename",
            doc(
                &anim,
                json!({"position": pos(ANIMATION, "v.walk", 3), "newName": "2x"}),
            ),
        )
        .unwrap_err();
    assert_contains(&err, "not a Molang name");
    c.shutdown();
}

#[test]
fn lsp_formatting_symbols_semantic_tokens() {
    let (fx, mut c) = session_on("format");
    let ctrl = fx.path("animation_controllers/test.animation_controllers.json");
    let v = c.on(
        "textDocument/formatting",
        &ctrl,
        json!({"options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let edits: Vec<TextEdit> = serde_json::from_value(v).unwrap();
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0].new_text, "q.modified_move_speed < 0.1");
    let v = c.on("textDocument/documentSymbol", &ctrl, json!({}));
    let syms: Vec<DocumentSymbol> = serde_json::from_value(v).unwrap();
    assert_eq!(syms.len(), 1);
    assert_eq!(syms[0].name, "controller.animation.test");
    let states: Vec<_> = syms[0]
        .children
        .iter()
        .flatten()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(states, ["default", "moving"]);
    let v = c.on("textDocument/semanticTokens/full", &ctrl, json!({}));
    let data = v["data"].as_array().unwrap();
    // Two transitions: query, operator, number each.
    assert_eq!(data.len(), 6 * 5);
    // The first token is `q.modified_move_speed` (a function-like query, type 1), 21 long.
    assert_eq!(&data[2..5], &[json!(21), json!(1), json!(0)]);
    c.shutdown();
}

mod support;
use support::{assert_contains, assert_contains_all, vanilla_rp as vanilla};

#[test]
fn lsp_vanilla_resource_pack() {
    let roots = vec![vanilla()];
    let mut c = Client::start(&roots);
    let published = c.diagnostics_n(files_with_diagnostics(&roots));
    assert_eq!(published_says(&published), check_says(&roots));
    // Hover on cow's v.index: written in pre_animation, read by its render controller.
    let cow = roots[0].join("entity/cow.entity.json");
    let text = std::fs::read_to_string(&cow).unwrap();
    let v = c.at("textDocument/hover", &cow, &text, "v.index =", 3);
    let h = v["contents"]["value"].as_str().unwrap();
    assert_contains(h, "minecraft:cow");
    assert_contains(h, "cow.v3.render_controllers.json");
    // A script array's entries: each write at its own line.
    let player = roots[0].join("entity/player.entity.json");
    let ptext = std::fs::read_to_string(&player).unwrap();
    let v = c.at(
        "textDocument/hover",
        &player,
        &ptext,
        "variable.hand_bob = 0.0",
        10,
    );
    let h = v["contents"]["value"].as_str().unwrap();
    let line = |needle: &str| ptext[..ptext.find(needle).unwrap()].matches('\n').count() + 1;
    for needle in [
        "variable.hand_bob = 0.0",
        "variable.hand_bob = query.life_time",
    ] {
        assert_contains(h, &format!("player.entity.json:{} (", line(needle)));
    }
    // Completion offers what the game provides where it provides it.
    let complete = |c: &mut Client, rel: &str, needle: &str, at: usize| -> Vec<String> {
        let path = roots[0].join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let v = c.at("textDocument/completion", &path, &text, needle, at);
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    let particle = complete(
        &mut c,
        "particles/cherry_leaves_particle.json",
        "v.particle_age",
        2,
    );
    assert!(
        particle.contains(&"v.particle_age".to_string()),
        "{particle:?}"
    );
    let animation = complete(&mut c, "animations/pig.animation.json", "90.0 - this", 0);
    for absent in ["variable.particle_age", "context.item_slot"] {
        assert!(
            !animation.iter().any(|l| l == absent),
            "{absent} in {animation:?}"
        );
    }
    // `v.` in the iron golem: its own variables and engine ones, not the goat's.
    let golem = complete(
        &mut c,
        "entity/iron_golem.entity.json",
        "variable.modified_tcos0 =",
        9,
    );
    assert!(
        golem.iter().any(|l| l == "variable.modified_tcos0"),
        "{golem:?}"
    );
    assert!(!golem.iter().any(|l| l.contains("goat")), "{golem:?}");
    let shield = complete(
        &mut c,
        "animation_controllers/shield.animation_controllers.json",
        "c.item_slot",
        2,
    );
    assert!(shield.contains(&"c.item_slot".to_string()), "{shield:?}");
    // A geometry id goes to the model file that defines it (its `identifier` value).
    let v = c.at(
        "textDocument/definition",
        &cow,
        &text,
        "\"geometry.cow.v2\"",
        3,
    );
    let locs: Vec<Location> = serde_json::from_value(v).unwrap();
    let model = roots[0].join("models/entity/cow.v2.geo.json");
    let model_text = std::fs::read_to_string(&model).unwrap();
    assert_eq!(locs.len(), 1, "{locs:?}");
    assert_eq!(uri_to_path(&locs[0].uri), Some(model));
    assert_eq!(
        locs[0].range.start,
        serde_json::from_value::<Position>(pos(&model_text, "geometry.cow.v2\"", 0)).unwrap()
    );
    // Edit an animation file with an error introduced: only that file's diagnostics move.
    let pig = roots[0].join("animations/pig.animation.json");
    let text = std::fs::read_to_string(&pig).unwrap();
    c.open(&pig, &text.replace("\"90.0 - this\"", "\"90.0 - (this\""));
    let d = c.diagnostics_of(&pig);
    assert!(has(&d, "E0105"), "{d:?}");
    c.shutdown();
}

/// What a diagnostic says, for comparing analyses: path, code, line, column, message.
type Said = (PathBuf, String, usize, usize, String);

fn says(ds: &[&molang::pack_check::PackDiagnostic]) -> Vec<Said> {
    let mut out: Vec<_> = ds
        .iter()
        .map(|d| {
            (
                d.path.clone(),
                d.diagnostic.code.as_str().to_string(),
                d.line,
                d.column,
                d.diagnostic.message.clone(),
            )
        })
        .collect();
    out.sort();
    out
}

/// What the workspace says now.
fn ws_says(ws: &Workspace) -> Vec<Said> {
    says(&ws.diagnostics().collect::<Vec<_>>())
}

/// Whether the workspace warns in `p` that a variable named with `name` is never set.
fn warns_unset(ws: &Workspace, p: &Path, name: &str) -> bool {
    ws.diagnostics().any(|d| {
        d.path == p && d.diagnostic.code.as_str() == "W0604" && d.diagnostic.message.contains(name)
    })
}

/// A workspace over the layers `roots` and the texts an editor gave it; every edit is checked
/// against a full check of the same texts.
struct Edited {
    ws: Workspace,
    roots: Vec<PathBuf>,
    texts: BTreeMap<PathBuf, String>,
}

impl Edited {
    fn new(roots: Vec<PathBuf>) -> Edited {
        Edited {
            ws: Workspace::new(&roots),
            roots,
            texts: BTreeMap::new(),
        }
    }

    /// What `check` says of the layers with the edited texts in place of the files on disk.
    fn full_check(&self) -> Vec<Said> {
        let mut layers = molang::pack::read_layers(&self.roots);
        for (_, files) in &mut layers {
            for (p, t) in files.iter_mut() {
                if let Some(new) = self.texts.get(p) {
                    *t = new.clone();
                }
            }
        }
        let pack = molang::pack::load_layered_sources(layers);
        let (d, _) = molang::pack_check::check_pack(&pack);
        says(&d.iter().collect::<Vec<_>>())
    }

    /// Sets the text of `p`, asserts the workspace then says what a full check says, and
    /// returns the files whose diagnostics the edit changed (`None`: any).
    fn set(&mut self, p: &Path, t: String) -> Option<std::collections::BTreeSet<PathBuf>> {
        self.texts.insert(p.to_path_buf(), t.clone());
        self.ws.set_text(p, t);
        let changed = self.ws.take_changed();
        assert_eq!(ws_says(&self.ws), self.full_check());
        changed
    }
}

#[test]
fn lsp_incremental_edits_match_a_full_check() {
    let mut ed = Edited::new(vec![vanilla()]);
    let root = ed.roots[0].clone();
    let read = |rel: &str| {
        let p = root.join(rel);
        let t = std::fs::read_to_string(&p).unwrap();
        (p, t)
    };
    let (pig, pig_text) = read("animations/pig.animation.json");
    let (cow, cow_text) = read("entity/cow.entity.json");
    let rc = root.join("render_controllers/cow.v3.render_controllers.json");
    // Opening published everything.
    assert_eq!(ed.ws.take_changed(), None);
    let (full0, inc0) = (ed.ws.full_analyses, ed.ws.incremental_analyses);
    // An error in an animation: only the animation is re-checked.
    let changed = ed
        .set(
            &pig,
            pig_text.replace("\"90.0 - this\"", "\"90.0 - (this\""),
        )
        .expect("an incremental update names its files");
    assert!(changed.contains(&pig), "{changed:?}");
    // The cow no longer sets `v.is_cold`: its render controller, another file, now reads
    // a variable that is never set.
    let renamed = cow_text.replace("\"v.is_cold = ", "\"v.is_kold = ");
    assert_ne!(renamed, cow_text);
    let changed = ed.set(&cow, renamed).unwrap();
    assert!(changed.contains(&rc), "{changed:?}");
    assert!(warns_unset(&ed.ws, &rc, "is_cold"));
    assert_eq!(ed.ws.incremental_analyses - inc0, 2);
    assert_eq!(ed.ws.full_analyses, full0);
    // Broken JSON changes the file's shape: the whole pack is analysed again.
    let broken = pig_text.trim_end().trim_end_matches('}').to_string();
    assert_eq!(ed.set(&pig, broken), None);
    assert_eq!(ed.ws.full_analyses, full0 + 1);
    // Back to the texts on disk.
    ed.set(&pig, pig_text);
    ed.set(&cow, cow_text);
    assert!(!warns_unset(&ed.ws, &rc, ""));
    println!(
        "{} full analyses, {} incremental",
        ed.ws.full_analyses, ed.ws.incremental_analyses
    );
}

const FIX_ENTITY: &str = r#"{
  "format_version": "1.10.0",
  "minecraft:client_entity": {
    "description": {
      "identifier": "test:fix",
      "scripts": { "animate": ["fix"] },
      "animations": { "fix": "animation.test.fix" }
    }
  }
}"#;

const FIX_ANIMATION: &str = r#"{
  "format_version": "1.8.0",
  "animations": {
    "animation.test.fix": {
      "bones": {
        "a": { "rotation": ["v.unset_thing * 2", "math.max(1, 2, 3)", "q.block_property('a')"] },
        "b": { "position": ["t.x = 1; t.x", 0, 0] }
      }
    }
  }
}"#;

/// A fixture with the extra files of the code-action and inlay-hint tests.
fn fix_fixture(name: &str) -> Fixture {
    let fx = Fixture::new(name);
    for (rel, text) in [
        ("entity/fix.entity.json", FIX_ENTITY),
        ("animations/fix.animation.json", FIX_ANIMATION),
    ] {
        std::fs::write(fx.path(rel), text).unwrap();
    }
    fx
}

#[test]
fn lsp_code_actions_fix_the_checks() {
    let fx = fix_fixture("actions");
    let mut c = session(&fx);
    let anim = fx.path("animations/fix.animation.json");
    let text = FIX_ANIMATION;
    let range = |needle: &str, from: usize, to: usize| json!({"start": pos(text, needle, from), "end": pos(text, needle, to)});
    // The quick fix offered for the diagnostic at `needle`: its code, and its one edit.
    let mut fix = |needle: &str, code: &str| -> (Value, String) {
        let v = c.on(
            "textDocument/codeAction",
            &anim,
            json!({"range": range(needle, 0, needle.len()), "context": {"diagnostics": []}}),
        );
        let actions = v.as_array().unwrap();
        let a = actions
            .iter()
            .find(|a| a["diagnostics"][0]["code"] == code)
            .unwrap_or_else(|| panic!("no fix for {code} at {needle}: {v}"));
        assert_eq!(a["kind"], "quickfix");
        let edits = &a["edit"]["changes"][uri(&anim)];
        assert_eq!(edits.as_array().unwrap().len(), 1, "{a}");
        (
            edits[0]["range"].clone(),
            edits[0]["newText"].as_str().unwrap().to_string(),
        )
    };
    let n = "v.unset_thing".len();
    assert_eq!(
        fix("v.unset_thing", "W0604"),
        (
            range("v.unset_thing", 0, n),
            "(v.unset_thing ?? 0)".to_string()
        )
    );
    let n = "math.max(1, 2, 3)".len();
    assert_eq!(
        fix("math.max(1, 2, 3)", "E0203"),
        (
            range("math.max(1, 2, 3)", 0, n),
            "math.max(math.max(1, 2), 3)".to_string()
        )
    );
    assert_eq!(
        fix("block_property", "W0209"),
        (range("block_property", 0, 14), "block_state".to_string())
    );
    let end = "t.x = 1; t.x".len();
    assert_eq!(
        fix("t.x = 1; t.x", "E0108"),
        (range("t.x = 1; t.x", end, end), ";".to_string())
    );
    // The deprecated query's diagnostic is tagged (editors strike it through); others not.
    let v = c.on(
        "textDocument/codeAction",
        &anim,
        json!({"range": range("block_property", 0, 14), "context": {"diagnostics": []}}),
    );
    for a in v.as_array().unwrap() {
        let d = &a["diagnostics"][0];
        let tagged = d["tags"] == json!([2]);
        assert_eq!(tagged, d["code"] == "W0209", "{d}");
    }
    // Away from any diagnostic: nothing to fix.
    let v = c.on(
        "textDocument/codeAction",
        &anim,
        json!({"range": range("\"bones\"", 1, 1), "context": {"diagnostics": []}}),
    );
    assert_eq!(v, json!([]));
    c.shutdown();
}

#[test]
fn lsp_inlay_hints_first_setter_and_version() {
    let (fx, mut c) = session_on("hints");
    let anim = fx.path("animations/walk.animation.json");
    let v = c.on("textDocument/inlayHint", &anim, json!({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}}));
    let hints: Vec<InlayHint> = serde_json::from_value(v).unwrap();
    let label = |h: &InlayHint| match &h.label {
        InlayHintLabel::String(s) => s.clone(),
        other => panic!("{other:?}"),
    };
    let at = |needle: &str, len: usize| {
        serde_json::from_value::<Position>(pos(ANIMATION, needle, len)).unwrap()
    };
    let got: Vec<(Position, String)> = hints.iter().map(|h| (h.position, label(h))).collect();
    assert_eq!(
        got,
        [
            (
                at("1.8.0\"", 6),
                " Molang v13 (min_engine_version 1.21.100)".to_string()
            ),
            (
                at("v.walk", 6),
                " set first in pig.entity.json:8 (client_entity.scripts.pre_animation)".to_string()
            ),
        ]
    );
    c.shutdown();
}

#[test]
fn lsp_range_formatting() {
    let (fx, mut c) = session_on("rangefmt");
    let anim = fx.path("animations/walk.animation.json");
    let fmt = |c: &mut Client, range: Option<Value>| -> Vec<TextEdit> {
        let (method, mut p) = match &range {
            Some(_) => ("textDocument/rangeFormatting", json!({})),
            None => ("textDocument/formatting", json!({})),
        };
        p["textDocument"] = json!({"uri": uri(&anim)});
        p["options"] = json!({"tabSize": 2, "insertSpaces": true});
        if let Some(r) = range {
            p["range"] = r;
        }
        serde_json::from_value(c.request(method, p)).unwrap()
    };
    let whole = fmt(&mut c, None);
    assert_eq!(whole.len(), 2, "{whole:?}");
    let only = fmt(
        &mut c,
        Some(
            json!({"start": pos(ANIMATION, "math.pi/2", 0), "end": pos(ANIMATION, "math.pi/2", 3)}),
        ),
    );
    assert_eq!(only.len(), 1, "{only:?}");
    assert_eq!(only[0].new_text, "math.pi / 2");
    assert!(whole.contains(&only[0]));
    c.shutdown();
}

/// `edits` (a rename's `changes`) applied to the files they name.
#[allow(clippy::mutable_key_type)]
fn apply_edits(
    changes: &std::collections::HashMap<Uri, Vec<TextEdit>>,
) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for (uri, edits) in changes {
        let path = uri_to_path(uri).unwrap();
        let mut text = std::fs::read_to_string(&path).unwrap();
        let index = molang_cli::lsp::text::LineIndex::new(&text);
        let mut spans: Vec<(usize, usize, &str)> = edits
            .iter()
            .map(|e| {
                (
                    index.offset(&text, e.range.start),
                    index.offset(&text, e.range.end),
                    e.new_text.as_str(),
                )
            })
            .collect();
        spans.sort();
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0, "overlapping edits in {}", path.display());
        }
        for (a, b, new) in spans.into_iter().rev() {
            text.replace_range(a..b, new);
        }
        out.insert(path, text);
    }
    out
}

/// The vanilla pack with `texts` laid over its files.
fn pack_with(roots: &[PathBuf], texts: &BTreeMap<PathBuf, String>) -> molang::pack::Pack {
    let mut layers = molang::pack::read_layers(roots);
    for (_, files) in &mut layers {
        for (p, t) in files.iter_mut() {
            if let Some(new) = texts.get(p) {
                *t = new.clone();
            }
        }
    }
    molang::pack::load_layered_sources(layers)
}

/// What check says, without columns (a rename to a name of another length moves them).
fn check_lines(pack: &molang::pack::Pack) -> Vec<(PathBuf, String, usize, String)> {
    let (d, _) = molang::pack_check::check_pack(pack);
    let all: Vec<_> = d.iter().collect();
    let mut out: Vec<_> = (says(&all).into_iter())
        .map(|(path, code, line, _, message)| (path, code, line, message))
        .collect();
    out.sort();
    out
}

/// A digest per frame of entity `id`'s pose, walking (tests/fixtures/runtime/walking).
fn pose_trace(pack: &molang::pack::Pack, id: &str, frames: u64) -> Vec<u64> {
    use molang::runtime::{driver::Driver, play::Runtime};
    let csv = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/runtime/walking/walk.csv");
    let timeline =
        molang::runtime::inputs::parse(&std::fs::read_to_string(&csv).unwrap(), "walk.csv")
            .unwrap();
    let Ok(loaded) = molang::runtime::load::load_from_pack(pack, id) else {
        return Vec::new();
    };
    let fps = 20.0;
    let mut rt = Runtime::new(loaded, molang::interp::exec::Backend::Interp, fps, 1);
    let (mut driver, _) = Driver::new(&timeline, &mut rt);
    (0..frames)
        .map(|f| {
            let t = molang::runtime::driver::frame_time(f, fps);
            driver.step(&mut rt, t, 1.0 / fps);
            molang::runtime::instances::pose_digest(0, rt.pose())
        })
        .collect()
}

/// The client entities that run a site of one of `files`.
fn entities_touching(pack: &molang::pack::Pack, files: &BTreeMap<PathBuf, String>) -> Vec<String> {
    let mut ids: Vec<String> = (0..pack.entities.len())
        .filter(|&e| pack.entities[e].kind == molang::pack::EntityKind::Client)
        .filter(|&e| {
            molang::pack_check::entity_sites(pack, e)
                .iter()
                .any(|&s| files.contains_key(&pack.files[pack.sites[s].file].path))
                || files.contains_key(&pack.files[pack.entities[e].file].path)
        })
        .map(|e| pack.entities[e].identifier.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// A rename of `variable.old` to `variable.new` given as `changes` keeps the pack as it
/// was: check says the same (with the name changed) and every entity it touches moves
/// the same; no entity names both the old and the new name afterwards. The entities
/// touched, by identifier.
#[allow(clippy::mutable_key_type)]
fn assert_rename_is_safe(
    roots: &[PathBuf],
    before: &molang::pack::Pack,
    before_says: &[(PathBuf, String, usize, String)],
    changes: &std::collections::HashMap<Uri, Vec<TextEdit>>,
    old: &str,
    new: &str,
) -> Vec<String> {
    let texts = apply_edits(changes);
    let after = pack_with(roots, &texts);
    let mut renamed: Vec<_> = check_lines(&after)
        .into_iter()
        .map(|(p, c, l, m)| {
            (
                p,
                c,
                l,
                m.replace(&format!("variable.{new}`"), &format!("variable.{old}`")),
            )
        })
        .collect();
    renamed.sort();
    assert_eq!(
        renamed, before_says,
        "check differs after renaming {old} to {new}"
    );
    let mentions = |pack: &molang::pack::Pack, e: usize, name: &str| {
        molang::pack_check::entity_sites(pack, e).iter().any(|&s| {
            let t = pack.sites[s].text.to_ascii_lowercase();
            t.contains(&format!("v.{name}")) || t.contains(&format!("variable.{name}"))
        })
    };
    for e in 0..after.entities.len() {
        let both =
            mentions(&after, e, new) && mentions(&after, e, old) && !mentions(before, e, new);
        assert!(
            !both || old.starts_with(new) || new.starts_with(old),
            "{} names both v.{old} and v.{new} after the rename",
            after.entities[e].identifier
        );
    }
    let ids = entities_touching(before, &texts);
    for id in &ids {
        assert_eq!(
            pose_trace(before, id, 30),
            pose_trace(&after, id, 30),
            "{id} moves differently after renaming v.{old} to v.{new}"
        );
    }
    ids
}

#[test]
#[allow(clippy::mutable_key_type)]
fn lsp_rename_reaches_every_entity_that_shares_the_variable() {
    let roots = vec![vanilla()];
    let mut c = Client::start(&roots);
    c.diagnostics_n(files_with_diagnostics(&roots));
    let zombie = roots[0].join("entity/zombie.entity.json");
    let text = std::fs::read_to_string(&zombie).unwrap();
    let at = tdp(&zombie, &text, "v.tcos0", 3);
    // prepareRename names what is renamed.
    let v = c.request("textDocument/prepareRename", at.clone());
    assert_eq!(v["placeholder"], json!("tcos0"), "{v}");
    let mut params = at.clone();
    params["newName"] = json!("leg_swing");
    let v = c.request("textDocument/rename", params);
    let edit: WorkspaceEdit = serde_json::from_value(v).unwrap();
    let changes = edit.changes.unwrap();
    let files: Vec<PathBuf> = changes.keys().map(|u| uri_to_path(u).unwrap()).collect();
    for rel in [
        "entity/zombie.entity.json",
        "entity/husk.entity.json",
        "entity/drowned.entity.json",
        "animations/humanoid.animation.json",
    ] {
        assert!(
            files.contains(&roots[0].join(rel)),
            "{rel} not edited: {files:?}"
        );
    }
    let before = molang::pack::load(&roots);
    let says = check_lines(&before);
    let touched = assert_rename_is_safe(&roots, &before, &says, &changes, "tcos0", "leg_swing");
    assert!(
        touched.iter().any(|id| id == "minecraft:husk"),
        "{touched:?}"
    );
    // Every entity that plays a humanoid animation is renamed with it.
    let humanoid = roots[0].join("animations/humanoid.animation.json");
    let after = pack_with(&roots, &apply_edits(&changes));
    for e in 0..after.entities.len() {
        let sites = molang::pack_check::entity_sites(&after, e);
        // Entities with their own `tcos0` in their own animations (the piglin) keep it.
        let plays = sites.iter().any(|&s| {
            after.files[after.sites[s].file].path == humanoid
                && after.sites[s].text.contains("leg_swing")
        });
        let left = sites
            .iter()
            .any(|&s| after.sites[s].text.to_ascii_lowercase().contains("v.tcos0"));
        assert!(
            !(plays && left),
            "{} plays a humanoid animation reading v.leg_swing and still names v.tcos0",
            after.entities[e].identifier
        );
    }
    // A name that one of those entities already uses is refused, with the reason.
    let mut params = at.clone();
    params["newName"] = json!("use_dedicated_baby_armor");
    let err = c.request_result("textDocument/rename", params).unwrap_err();
    assert_contains(&err, "already used");
    assert_contains(&err, "merge two variables");
    // Queries are not renamed.
    let err = c
        .request_result(
            "textDocument/prepareRename",
            tdp(&zombie, &text, "query.is_baby", 8),
        )
        .unwrap_err();
    assert_contains(&err, "built into the game");
    c.shutdown();
}

/// Renames at fixed-seed random variable sites of vanilla: each is either refused with a
/// reason or keeps check's diagnostics (renamed) and every touched entity's motion.
#[test]
#[allow(clippy::mutable_key_type)]
fn lsp_rename_property_on_vanilla() {
    let roots = vec![vanilla()];
    let before = molang::pack::load(&roots);
    let says = check_lines(&before);
    // Every `v.` name in an entity, animation or controller file, as (file, byte offset).
    let mut candidates: Vec<(PathBuf, String, String)> = Vec::new();
    for f in &before.files {
        let rel = f
            .path
            .strip_prefix(&roots[0])
            .unwrap()
            .to_string_lossy()
            .to_string();
        if !(rel.starts_with("entity/")
            || rel.starts_with("animations/")
            || rel.starts_with("animation_controllers/"))
        {
            continue;
        }
        let src = &f.source;
        let mut i = 0;
        while let Some(k) = src[i..].find("v.") {
            let at = i + k;
            i = at + 2;
            let boundary = at == 0
                || !src.as_bytes()[at - 1].is_ascii_alphanumeric()
                    && src.as_bytes()[at - 1] != b'_'
                    && src.as_bytes()[at - 1] != b'.';
            let name: String = src[at + 2..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if boundary && !name.is_empty() && !src[at + 2 + name.len()..].starts_with('.') {
                let needle = format!("v.{name}");
                // The first occurrence of the name in the file stands for it.
                if src.find(&needle) == Some(at) {
                    candidates.push((f.path.clone(), needle, name));
                }
            }
        }
    }
    assert!(candidates.len() > 100, "{}", candidates.len());
    let mut c = Client::start(&roots);
    c.diagnostics_n(files_with_diagnostics(&roots));
    let mut seed: u64 = 0x5eed_2026;
    let (mut renamed, mut refused) = (0, Vec::new());
    for case in 0..10 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (path, needle, old) = &candidates[(seed >> 33) as usize % candidates.len()];
        let text = std::fs::read_to_string(path).unwrap();
        let at = tdp(path, &text, needle, 2);
        match c.request_result("textDocument/prepareRename", at.clone()) {
            Err(why) => {
                assert_contains(&why, "cannot be renamed safely");
                refused.push(why);
                continue;
            }
            Ok(v) if v.is_null() => continue,
            Ok(_) => {}
        }
        let new = format!("rn{case}_{old}");
        let mut params = at;
        params["newName"] = json!(new);
        let v = c.request("textDocument/rename", params);
        let edit: WorkspaceEdit = serde_json::from_value(v).unwrap();
        let touched =
            assert_rename_is_safe(&roots, &before, &says, &edit.changes.unwrap(), old, &new);
        println!(
            "{}: v.{old} renamed, {} entities",
            path.display(),
            touched.len()
        );
        renamed += 1;
    }
    println!("{renamed} renamed, refused: {refused:?}");
    assert!(
        renamed >= 5,
        "only {renamed} of 10 renamed; refused: {refused:?}"
    );
    c.shutdown();
}

#[test]
fn lsp_files_changed_on_disk_are_read_again() {
    let fx = Fixture::new("watch");
    let roots = vec![fx.dir.clone()];
    let caps = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true, "relativePatternSupport": true}}});
    let c = Client::start_with(&roots, caps, Value::Null);
    c.diagnostics_n(files_with_diagnostics(&roots));
    // The server asks to watch the pack's JSON files under the folder.
    let id = match c.recv() {
        Message::Request(r) if r.method == "client/registerCapability" => {
            let reg = &r.params["registrations"][0];
            assert_eq!(
                reg["method"],
                json!("workspace/didChangeWatchedFiles"),
                "{reg}"
            );
            let w = &reg["registerOptions"]["watchers"][0]["globPattern"];
            assert_eq!(w["pattern"], json!("**/*.json"), "{w}");
            assert_eq!(w["baseUri"], json!(uri(&fx.dir)), "{w}");
            r.id
        }
        other => panic!("expected the watcher registration, got {other:?}"),
    };
    c.conn
        .sender
        .send(Message::Response(lsp_server::Response::new_ok(id, ())))
        .unwrap();
    let watched = |path: &Path, typ: u32| {
        c.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": uri(path), "type": typ}]}),
        );
    };
    // An unopened file edited on disk (as Blockbench or git would): its error appears.
    let anim = fx.path("animations/walk.animation.json");
    std::fs::write(&anim, ANIMATION.replace("math.pi/2", "math.pi/(2")).unwrap();
    watched(&anim, 2);
    let d = c.diagnostics_of(&anim);
    assert!(has(&d, "E0105"), "{d:?}");
    // Fixed on disk: cleared.
    std::fs::write(&anim, ANIMATION).unwrap();
    watched(&anim, 2);
    let d = c.diagnostics_of(&anim);
    assert!(!has(&d, "E0105"), "{d:?}");
    // A new animation file the entity plays, reading a variable nothing sets.
    let entity = fx.path("entity/pig.entity.json");
    let created = fx.path("animations/extra.animation.json");
    std::fs::write(
        &created,
        r#"{"format_version": "1.8.0", "animations": {"animation.test.extra": {"bones": {"a": {"rotation": ["v.nowhere * 2", 0, 0]}}}}}"#,
    )
    .unwrap();
    std::fs::write(
        &entity,
        ENTITY
            .replace(
                "\"walk\": \"animation.test.walk\",",
                "\"walk\": \"animation.test.walk\", \"extra\": \"animation.test.extra\",",
            )
            .replace("[\"walk\", \"ctrl\"]", "[\"walk\", \"ctrl\", \"extra\"]"),
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&created), "type": 1}, {"uri": uri(&entity), "type": 2}]}),
    );
    let d = c.diagnostics_of(&created);
    assert!(has(&d, "W0604"), "{d:?}");
    // Deleted: its diagnostics go with it, and the entity now names an animation no file
    // defines.
    std::fs::remove_file(&created).unwrap();
    watched(&created, 3);
    let got = c.diagnostics_n(2);
    assert!(got[&created].is_empty(), "{got:?}");
    assert!(got[&entity].iter().any(|d| is(d, "W0805")), "{got:?}");
    // Put back on disk: cleared.
    std::fs::write(&entity, ENTITY).unwrap();
    watched(&entity, 2);
    let d = c.diagnostics_of(&entity);
    assert!(d.is_empty(), "{d:?}");
    // A save re-reads the file: what was saved counts once the editor closes it.
    let broken = ENTITY.replace("v.speed * 2", "v.speed * (2");
    c.open(&entity, ENTITY);
    c.change(&entity, 2, &broken);
    // The entity's error, and the animation's read of the `v.walk` it no longer sets.
    let got = c.diagnostics_n(2);
    assert!(got.contains_key(&entity), "{got:?}");
    std::fs::write(&entity, &broken).unwrap();
    c.save(&entity);
    c.close(&entity);
    // Nothing to publish: the disk now holds the broken text the editor had.
    let mut c = c;
    let v = c.at("textDocument/hover", &entity, &broken, "v.speed *", 3);
    assert!(v["contents"]["value"].as_str().is_some(), "{v}");
    // A client without dynamic registration gets no registration request (other tests).
    c.shutdown();
}

#[test]
fn lsp_quick_fixes_for_near_names() {
    let fx = Fixture::new("near");
    // An unknown query one letter off, and an entity naming an animation one letter off.
    let anim_text = ANIMATION.replace("q.anim_time*38.17", "q.anim_tme*38.17");
    let entity_text = ENTITY.replace(
        "\"walk\": \"animation.test.walk\"",
        "\"walk\": \"animation.test.wlak\"",
    );
    std::fs::write(fx.path("animations/walk.animation.json"), &anim_text).unwrap();
    std::fs::write(fx.path("entity/pig.entity.json"), &entity_text).unwrap();
    let mut c = session(&fx);
    let mut fix = |path: &Path, text: &str, needle: &str, code: &str| -> (Value, String) {
        let range = json!({"start": pos(text, needle, 0), "end": pos(text, needle, needle.len())});
        let v = c.on(
            "textDocument/codeAction",
            path,
            json!({"range": range, "context": {"diagnostics": []}}),
        );
        let a = v
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["diagnostics"][0]["code"] == code)
            .unwrap_or_else(|| panic!("no fix for {code} at {needle}: {v}"))
            .clone();
        let edit = &a["edit"]["changes"][uri(path)][0];
        (
            edit["range"].clone(),
            edit["newText"].as_str().unwrap().to_string(),
        )
    };
    let anim = fx.path("animations/walk.animation.json");
    let (r, new) = fix(&anim, &anim_text, "q.anim_tme", "W0205");
    assert_eq!(new, "anim_time");
    assert_eq!(r["start"], pos(&anim_text, "anim_tme", 0));
    let entity = fx.path("entity/pig.entity.json");
    let (r, new) = fix(&entity, &entity_text, "animation.test.wlak", "W0805");
    assert_eq!(new, "animation.test.walk");
    assert_eq!(r["start"], pos(&entity_text, "animation.test.wlak", 0));
    assert_eq!(r["end"], pos(&entity_text, "animation.test.wlak", 19));
    c.shutdown();
}

#[test]
fn lsp_lower_layers_are_context_unless_asked() {
    let addon = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/addon_over_vanilla/RP");
    let roots = vec![vanilla(), addon.clone()];
    let all = check_says(&roots);
    let files = |keep: &dyn Fn(&Path) -> bool| {
        let mut p: Vec<PathBuf> = all
            .iter()
            .map(|(p, _, _)| p.clone())
            .filter(|p| keep(p))
            .collect();
        p.dedup();
        p.len()
    };
    let in_addon = files(&|p: &Path| p.starts_with(&addon));
    let in_vanilla = files(&|p: &Path| p.starts_with(&roots[0]));
    assert!(in_vanilla > 0, "vanilla has diagnostics to hide");
    // By default only the add-on's files get diagnostics.
    let c = Client::start(&roots);
    let published = c.diagnostics_n(in_addon);
    assert!(
        published.keys().all(|p| p.starts_with(&addon)),
        "{:?}",
        published.keys()
    );
    c.shutdown();
    // Asked for, vanilla's come too.
    let c = Client::start_with(
        &roots,
        json!({}),
        json!({"showLowerLayerDiagnostics": true}),
    );
    let published = c.diagnostics_n(in_addon + in_vanilla);
    assert_eq!(published_says(&published), all);
    c.shutdown();
}

#[test]
fn lsp_shared_animation_read_warns_for_each_entity_that_does_not_set() {
    let fx = Fixture::new("shared");
    // A second entity plays the pig's walk animation but never sets `v.walk`.
    std::fs::write(
        fx.path("entity/cow.entity.json"),
        r#"{"format_version": "1.10.0", "minecraft:client_entity": {"description": {
  "identifier": "test:cow",
  "scripts": {"animate": ["walk"]},
  "animations": {"walk": "animation.test.walk"}}}}"#,
    )
    .unwrap();
    let roots = vec![fx.dir.clone()];
    let says = check_says(&roots);
    let pack = molang::pack::load(&roots);
    let (d, _) = molang::pack_check::check_pack(&pack);
    let w: Vec<_> = d
        .iter()
        .filter(|d| d.diagnostic.code.as_str() == "W0604")
        .map(|d| d.diagnostic.message.as_str())
        .collect();
    assert_eq!(
        w,
        ["`variable.walk` is never set by test:cow, which plays this like test:pig that sets it"],
        "{says:?}"
    );
    // The server says the same.
    let c = Client::start(&roots);
    let published = c.diagnostics_n(files_with_diagnostics(&roots));
    assert_eq!(published_says(&published), says);
    c.shutdown();
}

/// Changes that arrive faster than they are analysed are analysed once: `initialize`, the
/// open and 12 changes (each text with a different mistake) are all queued before the
/// server has loaded the pack, then a request. Between the workspace's diagnostics and the
/// answer the file's diagnostics are published once, those of the last text; before
/// coalescing each change was analysed and published in turn.
#[test]
fn lsp_queued_changes_are_analysed_once() {
    let fx = Fixture::new("coalesce");
    let roots = vec![fx.dir.clone()];
    let anim = fx.path("animations/walk.animation.json");
    let mut c = Client::connect();
    let folders = json!([{"uri": uri(&fx.dir), "name": "pack"}]);
    let init = c.send_request(
        "initialize",
        json!({"processId": null, "capabilities": {}, "workspaceFolders": folders}),
    );
    c.notify("initialized", json!({}));
    c.open(&anim, ANIMATION);
    // Text k reads `v.unset_k`, which no script sets (W0604 naming it).
    let text = |k: i32| ANIMATION.replace("*v.walk", &format!("*v.unset_{k}"));
    let n = 12;
    for k in 1..=n {
        c.change(&anim, k + 1, &text(k));
    }
    let last = text(n);
    let hover = c.send_request("textDocument/hover", tdp(&anim, &last, "q.anim_time", 3));
    match c.recv() {
        Message::Response(r) if r.id == init => {}
        other => panic!("expected the answer to initialize, got {other:?}"),
    }
    // The workspace as on disk, then one publish of the file, then the answer.
    c.diagnostics_n(files_with_diagnostics(&roots));
    let mut publishes = Vec::new();
    loop {
        match c.recv() {
            Message::Response(r) if r.id == hover => break,
            Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
                let p: PublishDiagnosticsParams = serde_json::from_value(n.params).unwrap();
                publishes.push((uri_to_path(&p.uri).unwrap(), p.diagnostics));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(publishes.len(), 1, "{publishes:#?}");
    let (path, d) = &publishes[0];
    assert_eq!(path, &anim);
    let unset: Vec<&str> = d
        .iter()
        .filter(|d| is(d, "W0604"))
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        unset.len() == 1 && unset[0].contains(&format!("unset_{n}")),
        "{unset:?}"
    );
    c.shutdown();
}

/// Edits that used to reload the whole workspace are one-file updates now, and each leaves
/// the diagnostics a full check of the same texts gives: typing in an add-on's file that
/// overrides vanilla's and in vanilla's file it overrides (vanilla + add-on, the README's
/// workspace), adding a Molang string (a new `initialize` entry) that sets a variable
/// another file reads, and removing it. Renaming a definition still reloads everything.
#[test]
fn lsp_incremental_edits_that_add_sites_or_touch_layers_match_a_full_check() {
    let fx = Fixture::new("layers");
    let addon = fx.dir.clone();
    let v = vanilla();
    for rel in ["animations/pig.animation.json", "entity/pig.entity.json"] {
        let p = addon.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::copy(v.join(rel), p).unwrap();
    }
    let mut ws = Edited::new(vec![v.clone(), addon.clone()]);
    let (full0, inc0) = (ws.ws.full_analyses, ws.ws.incremental_analyses);
    let edit = |ws: &mut Edited, p: &Path, from: &str, to: &str| {
        let old = ws
            .texts
            .get(p)
            .cloned()
            .unwrap_or_else(|| std::fs::read_to_string(p).unwrap());
        let new = old.replacen(from, to, 1);
        assert_ne!(new, old, "{from} in {}", p.display());
        ws.set(p, new);
    };
    let w0604 = |ws: &Edited, p: &Path, name: &str| warns_unset(&ws.ws, p, name);
    let (a_anim, a_entity) = (
        addon.join("animations/pig.animation.json"),
        addon.join("entity/pig.entity.json"),
    );
    let (v_anim, v_entity) = (
        v.join("animations/pig.animation.json"),
        v.join("entity/pig.entity.json"),
    );
    // The add-on's animation (it overrides vanilla's) reads a variable nothing sets.
    edit(&mut ws, &a_anim, "\"-this\"", "\"-this + v.probe\"");
    assert!(w0604(&ws, &a_anim, "probe"));
    // Vanilla's overridden animation and entity: checked alone, as check does.
    edit(&mut ws, &v_anim, "\"90.0 - this\"", "\"90.0 - (this\"");
    edit(
        &mut ws,
        &v_entity,
        "\"scripts\": {",
        "\"scripts\": {\n        \"initialize\": [ \"v.probe = 1;\" ],",
    );
    assert!(
        w0604(&ws, &a_anim, "probe"),
        "vanilla's pig is not the one played"
    );
    // A new Molang string in the add-on's entity sets it: the warning in the other file goes.
    edit(
        &mut ws,
        &a_entity,
        "\"scripts\": {",
        "\"scripts\": {\n        \"initialize\": [ \"v.probe = 1;\" ],",
    );
    assert!(!w0604(&ws, &a_anim, "probe"));
    // A second entry joins the first into one script; then both go.
    edit(
        &mut ws,
        &a_entity,
        "\"v.probe = 1;\" ]",
        "\"v.probe = 1;\", \"v.other = 2;\" ]",
    );
    edit(
        &mut ws,
        &a_entity,
        "\n        \"initialize\": [ \"v.probe = 1;\", \"v.other = 2;\" ],",
        "",
    );
    assert!(w0604(&ws, &a_anim, "probe"));
    assert_eq!(
        ws.ws.full_analyses, full0,
        "no edit above reloads the workspace"
    );
    assert_eq!(ws.ws.incremental_analyses - inc0, 6);
    // A renamed animation changes what overrides what: the workspace is analysed again.
    edit(
        &mut ws,
        &a_anim,
        "\"animation.pig.setup\"",
        "\"animation.pig.set_up\"",
    );
    assert_eq!(ws.ws.full_analyses, full0 + 1);
}

/// A whole-workspace analysis that a newer change makes stale is given up: the staged
/// change stays staged, the workspace answers from the last analysis meanwhile, and the
/// next settle analyses the newest text once.
#[test]
fn lsp_stale_whole_analysis_is_cancelled() {
    let fx = Fixture::new("cancel");
    let anim = fx.path("animations/walk.animation.json");
    let mut ws = Workspace::new(std::slice::from_ref(&fx.dir));
    let before = ws_says(&ws);
    let full0 = ws.full_analyses;
    // Broken JSON: only a whole analysis can take it in.
    let broken = ANIMATION.trim_end().trim_end_matches('}').to_string();
    ws.stage_text(&anim, broken);
    assert!(!ws.is_settled());
    let asked = std::sync::atomic::AtomicUsize::new(0);
    let done = ws.settle_unless(&|| {
        asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        true
    });
    assert!(!done && !ws.is_settled());
    assert!(asked.into_inner() > 0);
    assert_eq!(ws.full_analyses, full0);
    assert_eq!(ws_says(&ws), before);
    // The newer text arrives; one analysis takes it.
    let fixed = ANIMATION.replace("1 + (2 3)", "1 + (2 * 3)");
    ws.stage_text(&anim, fixed);
    assert!(ws.settle_unless(&|| false) && ws.is_settled());
    assert!(!ws
        .diagnostics()
        .any(|d| d.path == anim && d.diagnostic.code.as_str() == "E0106"));
}
