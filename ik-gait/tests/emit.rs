//! The emitted packs (resource + behaviour) pass our own pack checker with 0 errors and 0
//! warnings, and hold what a player needs to summon the dog.

use ik_gait::emit::{self, BP_DIR, RP_DIR};
use ik_gait::RigParams;
use serde_json::Value;
use std::path::Path;

mod common;
use common::{doggoyle, tmp};

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn assert_clean(dir: &Path, entities: usize) {
    let pack = molang::pack::load(&[dir.to_path_buf()]);
    assert_eq!(pack.entities.len(), entities, "{}", dir.display());
    let (diags, summary) = molang::pack_check::check_pack(&pack);
    assert!(
        diags.is_empty(),
        "{}: {:#?}",
        dir.display(),
        diags
            .iter()
            .map(|d| &d.diagnostic.message)
            .collect::<Vec<_>>()
    );
    assert_eq!((summary.errors, summary.warnings), (0, 0));
}

#[test]
fn emitted_packs_check_clean() {
    let dir = tmp("emit");
    let files = emit::emit(&RigParams::default(), Some(7)).unwrap();
    // 8 pack files, and the molang test suite: one test file and one inputs CSV per scenario.
    assert_eq!(files.len(), 8 + 1 + ik_gait::pack_test::SCENARIOS.len());
    // `doggoyle emit` writes exactly those, byte for byte, under the folder it was given.
    let written = common::emit(&dir, 7);
    let expected: Vec<_> = files.iter().map(|(rel, _)| dir.join(rel)).collect();
    assert_eq!(written, expected);
    for (rel, bytes) in &files {
        assert_eq!(
            &std::fs::read(dir.join(rel)).unwrap(),
            bytes,
            "{}",
            rel.display()
        );
    }
    let rp = dir.join(RP_DIR);
    let bp = dir.join(BP_DIR);
    assert_clean(&rp, 1);
    assert_clean(&bp, 1);
    // Both together too, as the game loads them.
    let pack = molang::pack::load(&[rp.clone(), bp.clone()]);
    assert_eq!(pack.animations.len(), 1);
    let (diags, summary) = molang::pack_check::check_pack(&pack);
    assert!(diags.is_empty() && summary.expressions > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn packs_are_wired_together() {
    let dir = tmp("wired");
    common::emit(&dir, 7);
    let (rp, bp) = (dir.join(RP_DIR), dir.join(BP_DIR));
    let rm = read_json(&rp.join("manifest.json"));
    let bm = read_json(&bp.join("manifest.json"));
    // The BP depends on the RP; module types as the game wants them.
    assert_eq!(bm["dependencies"][0]["uuid"], rm["header"]["uuid"]);
    assert_eq!(rm["modules"][0]["type"], "resources");
    assert_eq!(bm["modules"][0]["type"], "data");
    // min_engine_version gives the Molang version the rig is linted under (latest).
    for m in [&rm, &bm] {
        let v: Vec<u32> = m["header"]["min_engine_version"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(
            molang::pack_check::molang_version(Some([v[0], v[1], v[2]])),
            13
        );
    }
    // The client entity's texture and render controller exist in the pack.
    let ce = read_json(&rp.join("entity/doggoyle.entity.json"));
    let d = &ce["minecraft:client_entity"]["description"];
    let tex = d["textures"]["default"].as_str().unwrap();
    let png = std::fs::read(rp.join(format!("{tex}.png"))).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let rc = read_json(&rp.join("render_controllers/doggoyle.render_controllers.json"));
    let name = d["render_controllers"][0].as_str().unwrap();
    assert!(rc["render_controllers"][name].is_object(), "{name}");
    // The server entity: same identifier, summonable, moves, sits.
    let be = read_json(&bp.join("entities/doggoyle.json"));
    let e = &be["minecraft:entity"];
    assert_eq!(e["description"]["identifier"], d["identifier"]);
    assert_eq!(e["description"]["is_summonable"], true);
    for c in [
        "minecraft:movement",
        "minecraft:movement.basic",
        "minecraft:navigation.walk",
        "minecraft:physics",
        "minecraft:collision_box",
    ] {
        assert!(e["components"][c].is_object(), "{c}");
    }
    assert!(e["component_groups"]["doggoyle:tame"]["minecraft:sittable"].is_object());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn texture_follows_the_geometry_uv_layout() {
    let p = RigParams::default();
    let geo = emit::geometry(&p);
    let g = &geo["minecraft:geometry"][0];
    let (tw, th) = (
        g["description"]["texture_width"].as_u64().unwrap() as u32,
        g["description"]["texture_height"].as_u64().unwrap() as u32,
    );
    let png = emit::texture_png(&p).unwrap();
    let dec = png::Decoder::new(std::io::Cursor::new(png));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (tw, th));
    // Every cube's box-UV rectangle lies inside the texture, is opaque, and no two overlap.
    let mut owner = vec![usize::MAX; (tw * th) as usize];
    let mut n = 0;
    for b in g["bones"].as_array().unwrap() {
        // Marker bones (`xx_toe`, `xx_heel`, `chin`) have no cubes.
        for c in b["cubes"].as_array().into_iter().flatten() {
            let uv: Vec<u32> = c["uv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as u32)
                .collect();
            let s: Vec<u32> = c["size"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap().ceil() as u32)
                .collect();
            let (w, h) = (2 * (s[0] + s[2]), s[2] + s[1]);
            assert!(uv[0] + w <= tw && uv[1] + h <= th, "{uv:?} {w}x{h}");
            for y in uv[1]..uv[1] + h {
                for x in uv[0]..uv[0] + w {
                    let k = (y * tw + x) as usize;
                    assert_eq!(owner[k], usize::MAX, "cubes overlap at {x},{y}");
                    owner[k] = n;
                    assert_eq!(buf[k * 4 + 3], 255);
                }
            }
            n += 1;
        }
    }
    assert!(n > 10);
}

#[test]
fn uuids_are_fresh_unless_seeded() {
    let a = emit::pack_uuids(None);
    let b = emit::pack_uuids(None);
    assert_ne!(a, b);
    assert_eq!(emit::pack_uuids(Some(3)), emit::pack_uuids(Some(3)));
    assert_ne!(emit::pack_uuids(Some(3)), emit::pack_uuids(Some(4)));
    for u in a.iter().chain(&emit::pack_uuids(Some(3))) {
        let id = uuid::Uuid::parse_str(u).unwrap();
        assert_eq!(id.get_version_num(), 4, "{u}");
    }
    let mut all = a.to_vec();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 4);
}

#[test]
fn collision_box_fits_the_geometry() {
    let p = RigParams::default();
    let (across, height, length) = emit::model_extent(&p);
    let (w, h) = emit::collision_box(&p);
    let (w, h) = (w as f32, h as f32);
    assert!(
        w * 16.0 >= across && w * 16.0 < across + 0.8 + 1e-3,
        "{w} vs {across}"
    );
    assert!(
        h * 16.0 >= height && h * 16.0 < height + 0.8 + 1e-3,
        "{h} vs {height}"
    );
    assert!(
        w * 16.0 < length,
        "the box follows the breadth, not the length"
    );
}

#[test]
fn emit_creates_only_the_last_folder() {
    let base = tmp("emit-parent");
    // The parent is missing: nothing may be created, and the error names the missing folder.
    let deep = base.join("x/y");
    let (code, _, err) = doggoyle(&["emit", deep.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(!base.exists(), "emit created the missing parents");
    // The parent exists: the last folder is created and the packs written into it.
    std::fs::create_dir(&base).unwrap();
    let pack = base.join("pack");
    let (code, out, err) = doggoyle(&["emit", pack.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let files: Vec<&str> = out.lines().collect();
    assert_eq!(files.len(), 8 + 1 + ik_gait::pack_test::SCENARIOS.len());
    assert!(files.iter().all(|f| Path::new(f).starts_with(&pack)));
    let _ = std::fs::remove_dir_all(&base);
}

#[cfg(unix)]
#[test]
fn emit_never_writes_through_links_nor_over_files_without_force() {
    use std::os::unix::fs::symlink;
    let base = tmp("emit-links");
    std::fs::create_dir_all(&base).unwrap();
    let out = base.join("out");
    let run = |extra: &[&str]| {
        let mut args = vec!["emit", out.to_str().unwrap(), "--uuid-seed", "5"];
        args.extend_from_slice(extra);
        doggoyle(&args)
    };
    let (code, _, err) = run(&[]);
    assert_eq!(code, Some(0), "{err}");
    // Again: the files are there; nothing is overwritten without --force.
    let manifest = out.join(RP_DIR).join("manifest.json");
    std::fs::write(&manifest, "mine").unwrap();
    let (code, _, err) = run(&[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("pass --force"), "{err}");
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), "mine");
    let (code, _, err) = run(&["--force"]);
    assert_eq!(code, Some(0), "{err}");
    assert_ne!(std::fs::read_to_string(&manifest).unwrap(), "mine");
    // A link planted in the folder, to a file outside: never written, even with --force.
    let victim = base.join("victim.txt");
    std::fs::write(&victim, "keep").unwrap();
    std::fs::remove_file(&manifest).unwrap();
    symlink(&victim, &manifest).unwrap();
    for extra in [&[][..], &["--force"][..]] {
        let (code, _, err) = run(extra);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }
    // A linked folder, to a folder outside: nothing written into it.
    let fresh = base.join("fresh");
    std::fs::create_dir(&fresh).unwrap();
    let elsewhere = base.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    symlink(&elsewhere, fresh.join(BP_DIR)).unwrap();
    let (code, _, err) = doggoyle(&["emit", fresh.to_str().unwrap(), "--force"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(
        !fresh.join(RP_DIR).exists(),
        "nothing is written when one file cannot be"
    );
    let _ = std::fs::remove_dir_all(&base);
}
