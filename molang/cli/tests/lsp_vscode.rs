//! The VS Code extension (editors/vscode) packages without a prompt and carries the server:
//! in a scratch copy (node_modules/ and the .vsix stay out of the checkout), `npm install`,
//! the built `molang` bundled with `npm run bundle-server`, then `vsce package` with no
//! terminal to answer a question. Needs Node.js and the npm registry; without `node` the
//! test says so and passes (CI images without Node do not package the extension).
//! The extension's own node tests (editors/vscode/test: which release asset each platform
//! downloads, fetched and unpacked from a local server) run offline when node is there.

use std::path::Path;
use std::process::{Command, Stdio};

fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{program} {args:?} failed in {}:\n{text}",
        dir.display()
    );
    text
}

/// Whether Node.js is installed; when not, says that `what` is not done here.
fn have_node(what: &str) -> bool {
    let have = Command::new("node").arg("--version").output().is_ok();
    if !have {
        println!("node is not installed: {what}");
    }
    have
}

#[test]
fn lsp_vscode_extension_packages_with_the_server() {
    if !have_node("the extension is not packaged here") {
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../editors/vscode");
    let dir = std::env::temp_dir().join(format!("molang-vscode-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    for rel in [
        "package.json",
        "extension.js",
        "download.js",
        "README.md",
        "LICENSE",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        ".vscodeignore",
        "scripts/bundle-server.js",
    ] {
        std::fs::copy(src.join(rel), dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("package.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["activationEvents"],
        serde_json::json!(["workspaceContains:**/manifest.json"])
    );
    assert!(manifest["repository"]["url"].is_string() && manifest["license"].is_string());
    run(&dir, "npm", &["install", "--no-audit", "--no-fund"]);
    run(
        &dir,
        "npm",
        &["run", "bundle-server", "--", env!("CARGO_BIN_EXE_molang")],
    );
    let out = run(
        &dir,
        "npx",
        &["--no-install", "vsce", "package", "--out", "molang.vsix"],
    );
    assert!(out.contains("DONE"), "{out}");
    let vsix = std::fs::metadata(dir.join("molang.vsix")).unwrap().len();
    let server = std::fs::metadata(env!("CARGO_BIN_EXE_molang"))
        .unwrap()
        .len();
    // The .vsix is a zip: the server compresses, but not to nothing.
    assert!(
        vsix > server / 10,
        "{vsix} bytes for a {server}-byte server"
    );
    let listed = run(&dir, "npx", &["--no-install", "vsce", "ls"]);
    let name = if cfg!(windows) {
        "server/molang.exe"
    } else {
        "server/molang"
    };
    assert!(listed.lines().any(|l| l == name), "{listed}");
    assert!(listed.lines().any(|l| l == "download.js"), "{listed}");
    assert!(
        !listed
            .lines()
            .any(|l| l.starts_with("scripts/") || l.starts_with("test/")),
        "{listed}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lsp_vscode_extension_downloads_the_release_asset_of_its_platform() {
    if !have_node("the extension's download is not tested here") {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../editors/vscode");
    let out = run(&dir, "node", &["--test", "test/"]);
    assert!(
        out.contains("# pass 3") && out.contains("# fail 0"),
        "{out}"
    );
}
