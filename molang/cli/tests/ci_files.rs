//! The files pack authors run `molang` through, which cannot run here: the composite GitHub
//! Action (`action.yml`), the pre-commit hooks (`.pre-commit-hooks.yaml`) and the release
//! workflow. Each is parsed and its structure checked, and every `molang` command in it is
//! checked against the built binary's `--help` (its subcommand, flags and flag values).

mod support;
use support::{molang, text};

use std::path::{Path, PathBuf};
use yaml_rust2::{Yaml, YamlLoader};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(rel: &str) -> Yaml {
    let path = repo().join(rel);
    let source =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut docs =
        YamlLoader::load_from_str(&source).unwrap_or_else(|e| panic!("{rel} is not YAML: {e}"));
    assert_eq!(docs.len(), 1, "{rel}: one document");
    docs.remove(0)
}

fn str_of<'a>(y: &'a Yaml, what: &str) -> &'a str {
    y.as_str()
        .unwrap_or_else(|| panic!("{what} should be a string, got {y:?}"))
}

/// `molang SUB --help`.
fn help(sub: &str) -> String {
    let out = molang().args([sub, "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "molang {sub} --help");
    text(&out.stdout)
}

/// Asserts every `molang SUB ...` command in `script` uses a subcommand that exists and
/// only flags (and `--format` values) its help lists; returns how many commands it saw.
fn check_commands(script: &str, whence: &str) -> usize {
    let mut seen = 0;
    for line in script.lines() {
        let mut words = line.split_whitespace().peekable();
        while let Some(w) = words.next() {
            if w != "molang" {
                continue;
            }
            let Some(sub) = words.next() else { break };
            if !["check", "test", "fmt", "run", "eval", "fuzz", "bench"].contains(&sub) {
                continue;
            }
            seen += 1;
            let help = help(sub);
            while let Some(arg) = words.peek().copied() {
                if arg.starts_with(['>', '|', ';', '&']) {
                    break;
                }
                words.next();
                let Some(flag) = arg.strip_prefix("--") else {
                    continue;
                };
                let name = flag.split('=').next().unwrap();
                assert!(
                    help.contains(&format!("--{name}")),
                    "{whence}: `molang {sub} --{name}` is not a flag of molang {sub}:\n{help}"
                );
                if name == "format" {
                    let value = words.next().expect("a --format value");
                    assert!(
                        [
                            format!(" {value},"),
                            format!(" {value}]"),
                            format!("- {value}:")
                        ]
                        .iter()
                        .any(|v| help.contains(v.as_str())),
                        "{whence}: `--format {value}` is not a format of molang {sub}:\n{help}"
                    );
                }
            }
        }
    }
    seen
}

#[test]
fn the_action_installs_molang_checks_with_sarif_and_tests_with_junit() {
    let action = load("action.yml");
    assert!(!str_of(&action["name"], "name").is_empty());
    assert!(!str_of(&action["description"], "description").is_empty());
    let inputs = action["inputs"].as_hash().expect("inputs");
    for name in ["paths", "args", "sarif", "test-paths", "test-args"] {
        let input = &inputs[&Yaml::String(name.into())];
        assert!(
            input["description"].as_str().is_some(),
            "input {name} needs a description"
        );
        assert!(
            input["default"].as_str().is_some(),
            "input {name} is optional, with a default"
        );
    }
    assert_eq!(str_of(&action["runs"]["using"], "runs.using"), "composite");
    let steps = action["runs"]["steps"].as_vec().expect("steps");
    let mut scripts = String::new();
    let mut uses = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        if let Some(run) = step["run"].as_str() {
            assert!(
                step["shell"].as_str().is_some(),
                "step {i}: a composite action's run step needs a shell"
            );
            scripts.push_str(run);
            scripts.push('\n');
        } else {
            uses.push(str_of(&step["uses"], "uses").to_string());
        }
    }
    assert!(
        scripts.contains("cargo install --locked --path \"$GITHUB_ACTION_PATH/molang/cli\""),
        "installs molang from the action's own checkout (the tag in `uses:`)"
    );
    assert!(scripts.contains("molang check --format sarif"));
    assert!(scripts.contains("molang test --format junit"));
    assert!(
        uses.iter()
            .any(|u| u.starts_with("github/codeql-action/upload-sarif@")),
        "{uses:?}"
    );
    assert_eq!(check_commands(&scripts, "action.yml"), 3);
}

#[test]
fn the_pre_commit_hooks_run_check_and_fmt_check() {
    let hooks = load(".pre-commit-hooks.yaml");
    let hooks = hooks.as_vec().expect("a list of hooks");
    let ids: Vec<&str> = hooks.iter().map(|h| str_of(&h["id"], "id")).collect();
    assert_eq!(ids, ["molang-check", "molang-fmt"]);
    for h in hooks {
        for key in ["name", "entry", "language"] {
            assert!(h[key].as_str().is_some(), "hook {:?} needs {key}", h["id"]);
        }
        assert_eq!(h["pass_filenames"].as_bool(), Some(false));
        let entry = str_of(&h["entry"], "entry");
        let args: Vec<&str> = h["args"]
            .as_vec()
            .map(|a| a.iter().filter_map(Yaml::as_str).collect())
            .unwrap_or_default();
        let command = format!("{entry} {}", args.join(" "));
        assert_eq!(check_commands(&command, "hook"), 1, "{command}");
    }
    assert!(str_of(&hooks[1]["entry"], "entry").contains("fmt --check"));
}

#[test]
fn the_release_builds_every_platform_and_uploads() {
    let wf = load(".github/workflows/release.yml");
    let tags = wf["on"]["push"]["tags"].as_vec().expect("on.push.tags");
    assert!(!tags.is_empty());
    let build = &wf["jobs"]["build"];
    let include = build["strategy"]["matrix"]["include"]
        .as_vec()
        .expect("matrix.include");
    let targets: Vec<&str> = include
        .iter()
        .map(|m| str_of(&m["target"], "target"))
        .collect();
    for os in ["linux", "apple-darwin", "windows"] {
        for arch in ["x86_64", "aarch64"] {
            assert!(
                targets
                    .iter()
                    .any(|t| t.starts_with(arch) && t.contains(os)),
                "no {arch} {os} build in {targets:?}"
            );
        }
    }
    for m in include {
        assert!(m["os"].as_str().is_some(), "{m:?} needs a runner");
    }
    assert_eq!(str_of(&build["runs-on"], "runs-on"), "${{ matrix.os }}");
    let runs: Vec<&str> = build["steps"]
        .as_vec()
        .expect("steps")
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    let all = runs.join("\n");
    assert!(
        all.contains("cargo build --release --locked -p molang-cli --target ${{ matrix.target }}"),
        "{all}"
    );
    assert!(all.contains("gh release upload"), "{all}");
    // `-p molang-cli` names the package that holds the `molang` binary.
    let manifest = std::fs::read_to_string(repo().join("molang/cli/Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"molang-cli\""));
    assert!(manifest.contains("name = \"molang\"\npath = \"src/bin/molang/main.rs\""));
    assert_eq!(
        str_of(&wf["permissions"]["contents"], "permissions.contents"),
        "write"
    );
}
