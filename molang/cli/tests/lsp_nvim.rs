//! A real client: headless Neovim drives `molang lsp` through `vim.lsp` on the vanilla
//! resource pack (tests/nvim/lsp_client.lua). `.ci/run` installs Neovim when absent.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

mod support;
use support::output_within;

#[test]
fn lsp_neovim_client() {
    let have = Command::new("nvim")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        have,
        "this test needs Neovim 0.7+ (`apt-get install -y neovim`; .ci/run does it)"
    );
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pack = here.join("../../../shared/vanilla/resource_pack");
    assert!(
        pack.join("manifest.json").is_file(),
        "this test needs {}",
        pack.display()
    );
    let pack = pack.canonicalize().unwrap();
    let script = here.join("tests/nvim/lsp_client.lua");
    let child = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("MOLANG_BIN", env!("CARGO_BIN_EXE_molang"))
        .env("PACK_DIR", &pack)
        .env("ENTITY_FILE", pack.join("entity/cow.entity.json"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nvim starts");
    let out = output_within(child, Duration::from_secs(300), "nvim");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(out.status.success(), "nvim failed:\n{stdout}\n{stderr}");
    for step in ["diagnostics ok", "hover ok", "completion ok", "rename ok"] {
        assert!(
            stdout.contains(step),
            "missing `{step}`:\n{stdout}\n{stderr}"
        );
    }
}
