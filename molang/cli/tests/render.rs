//! `molang render` and `molang::picture` over Mojang's vanilla pack (read from ../shared):
//! the same bytes every time and on both back ends; bone pivots projected by the camera land
//! on their bone's cubes; the cow's face texels land where the geometry's UV puts them; and
//! hostile arguments get an exit 2 with a message, never a crash or a stray file.

use std::path::{Path, PathBuf};

use molang::picture::{self, Camera, Frame, Rig, Style};
use molang::runtime::{Backend, PlayOptions, Player};

mod support;
use support::{
    assert_code, assert_contains, molang, molang_to, readme_renders, scratch, text, vanilla_rp,
    write_entity, write_in,
};

/// A walk at 2 blocks a second (the quadruped and humanoid walks read these).
const WALK: &str = "t,q.modified_distance_moved,q.modified_move_speed,q.ground_speed\n\
                    0,0,1,2\n4,8,1,2\n";

fn walk_csv(dir: &Path) -> PathBuf {
    write_in(dir, "walk.csv", WALK);
    dir.join("walk.csv")
}

fn render(dir: &Path, name: &str, extra: &[&str]) -> (std::process::Output, PathBuf) {
    let out = dir.join(name);
    let o = molang()
        .arg("render")
        .arg(vanilla_rp())
        .arg("--inputs")
        .arg(walk_csv(dir))
        .arg("--out")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    (o, out)
}

#[test]
fn the_same_command_gives_the_same_bytes_on_both_back_ends() {
    let dir = scratch("render-determinism");
    let args = ["--entity", "cow", "--frames", "0..12", "--size", "96"];
    let (a, pa) = render(&dir, "a.gif", &args);
    assert_code(&a, 0);
    let (b, pb) = render(&dir, "b.gif", &args);
    assert_code(&b, 0);
    let mut interp = args.to_vec();
    interp.extend(["--backend", "interp"]);
    let (c, pc) = render(&dir, "c.gif", &interp);
    assert_code(&c, 0);
    let (a, b, c) = (
        std::fs::read(pa).unwrap(),
        std::fs::read(pb).unwrap(),
        std::fs::read(pc).unwrap(),
    );
    assert!(a.starts_with(b"GIF89a"), "not a GIF");
    assert_eq!(a, b, "two runs of one command differ");
    assert_eq!(a, c, "the interpreter's picture differs from the JIT's");
    // A single frame is a PNG; the walk moves the legs, so frames 0 and 6 differ.
    let (o, p0) = render(&dir, "f0.png", &["--entity", "cow", "--frames", "0"]);
    assert_code(&o, 0);
    let (o, p6) = render(&dir, "f6.png", &["--entity", "cow", "--frames", "6"]);
    assert_code(&o, 0);
    let (f0, f6) = (std::fs::read(p0).unwrap(), std::fs::read(p6).unwrap());
    assert!(f0.starts_with(b"\x89PNG"));
    assert_ne!(f0, f6, "the walk does not show");
    let _ = std::fs::remove_dir_all(dir);
}

/// Plays `entity` over the walk and hands each frame's pose to `check`.
fn each_frame(entity: &str, frames: &[u64], mut check: impl FnMut(&molang::Pose, &[String])) {
    let rp = vanilla_rp();
    let pack = molang::pack::load_entity(std::slice::from_ref(&rp), entity);
    let timeline = molang::parse_timeline(WALK, "walk.csv").unwrap();
    let options = PlayOptions {
        backend: Backend::Interp,
        frames: frames.iter().max().unwrap() + 1,
        ..PlayOptions::default()
    };
    let player = Player::new(&pack, entity, &timeline, options).unwrap();
    let names: Vec<String> = player.bones().map(str::to_string).collect();
    for f in player.filter(|f| frames.contains(&f.index)) {
        check(&f.pose, &names);
    }
}

fn rig_for(entity: &str, pose: &molang::Pose, names: &[String]) -> (molang::Pack, Rig) {
    let pack = molang::pack::load_entity(&[vanilla_rp()], entity);
    let geometry = pose
        .render
        .geometry
        .clone()
        .expect("a render controller chooses a geometry");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let rig = Rig::new(&pack, &geometry, &names).expect("the geometry is in the pack");
    (pack, rig)
}

#[test]
fn bone_pivots_land_on_their_bones_cubes() {
    for entity in ["cow", "pig", "zombie"] {
        let mut checked = 0;
        each_frame(entity, &[0, 7, 23], |pose, names| {
            let (_, rig) = rig_for(entity, pose, names);
            let quads = rig.quads(pose);
            for camera in ["front", "side", "three-quarter"] {
                let frame = Frame::fit(Camera::named(camera).unwrap(), 256, &quads);
                // One model pixel around the pivot: a joint sits on its cubes' edge.
                let reach = frame.scale.ceil() as i64 + 1;
                for (b, bone) in rig.bones.iter().enumerate() {
                    let Some(r) = bone.runtime else { continue };
                    // Only joints that sit on their cubes in the bind pose (the pig's body
                    // pivot is at the origin, away from its cubes).
                    let bind = rig.bind_pivot(b);
                    let on_cubes = bone.cubes.iter().any(|c| {
                        (0..3).all(|k| {
                            let (lo, hi) = (
                                c.origin[k].min(c.origin[k] + c.size[k]),
                                c.origin[k].max(c.origin[k] + c.size[k]),
                            );
                            bind[k] >= lo - 1.0 && bind[k] <= hi + 1.0
                        })
                    });
                    if !on_cubes || !pose.render.visible[r] {
                        continue;
                    }
                    let only = picture::draw(
                        &quads,
                        &frame,
                        None,
                        rig.texture_size,
                        &Style::default(),
                        Some(b),
                    );
                    let w = pose.world[r].map(|c| c as f64);
                    let [x, y, _] = frame.project(w);
                    let (x, y) = (x.floor() as i64, y.floor() as i64);
                    let size = frame.size as i64;
                    let hit = (y - reach..=y + reach).any(|py| {
                        (x - reach..=x + reach).any(|px| {
                            (0..size).contains(&px)
                                && (0..size).contains(&py)
                                && only.bone[(py * size + px) as usize] == b as u16 + 1
                        })
                    });
                    assert!(
                        hit,
                        "{entity} {camera}: the pivot of `{}` ({w:?}) projects to ({x}, {y}), off its cubes",
                        bone.name
                    );
                    checked += 1;
                }
            }
        });
        assert!(checked >= 12, "{entity}: only {checked} pivots checked");
    }
}

#[test]
fn the_cows_face_texels_land_where_its_uv_puts_them() {
    each_frame("cow", &[0], |pose, names| {
        let (pack, rig) = rig_for("cow", pose, names);
        let head = rig.bone("head").unwrap();
        // The head's first cube: box UV [0, 0], 8 × 8 × 6; its north (front) face is the
        // 8 × 8 rectangle at (6, 6) of the texture.
        let cube = &rig.bones[head].cubes[0];
        let molang::pack::CubeUv::Box(uv) = cube.uv else {
            panic!("the cow's head is box UV")
        };
        let [w, h, d] = cube.size.map(|v| v as f64);
        let (u0, v0) = (uv[0] as f64 + d, uv[1] as f64 + d);
        let key = pose.render.textures[0].clone();
        let path = picture::texture_files(&pack, &key)
            .into_iter()
            .find(|p| p.exists())
            .unwrap();
        let texture = picture::read_texture(&path).unwrap();
        let quads = rig.quads(pose);
        let frame = Frame::fit(Camera::named("front").unwrap(), 384, &quads);
        let flat = Style {
            shade: false,
            ..Style::default()
        };
        let pic = picture::draw(
            &quads,
            &frame,
            Some(&texture),
            rig.texture_size,
            &flat,
            None,
        );
        let m = rig.matrices(pose)[head];
        let texel = |u: f64, v: f64| {
            let sx = texture.width as f64 / rig.texture_size[0];
            let sy = texture.height as f64 / rig.texture_size[1];
            let i = ((v * sy) as usize * texture.width as usize + (u * sx) as usize) * 4;
            [texture.rgba[i], texture.rgba[i + 1], texture.rgba[i + 2]]
        };
        let (mut same, mut mirrored, mut total) = (0, 0, 0);
        // The top three rows (the muzzle covers the bottom of the face).
        for j in 0..3 {
            for i in 0..w as usize {
                let (i, j) = (i as f64, j as f64);
                // Seen from the front, the face's left edge is the cube's −X side (the
                // cow's right, drawn on the viewer's left) and u grows to the right.
                let p = [
                    cube.origin[0] as f64 + i + 0.5,
                    (cube.origin[1] as f64 + h) - j - 0.5,
                    cube.origin[2] as f64,
                ];
                let p =
                    [0, 1, 2].map(|r| m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3]);
                let [x, y, _] = frame.project(p);
                let got = pic.pixel(x as u32, y as u32);
                let want = texel(u0 + i + 0.5, v0 + j + 0.5);
                let flipped = texel(u0 + (w - 1.0 - i) + 0.5, v0 + j + 0.5);
                total += 1;
                same += (got[..3] == want) as u32;
                mirrored += (got[..3] == flipped && want != flipped) as u32;
            }
        }
        assert_eq!(
            same, total,
            "{same} of {total} face texels where the UV puts them"
        );
        assert_eq!(mirrored, 0);
    });
}

#[test]
fn a_missing_texture_draws_the_checker_with_a_note() {
    let dir = scratch("render-missing-texture");
    let pack = dir.join("rp");
    write_entity(
        &pack,
        "entity/box.entity.json",
        "test:box",
        r#""geometry": {"default": "geometry.box"},
            "textures": {"default": "textures/entity/box"},
            "materials": {"default": "entity_alphatest"},
            "render_controllers": ["controller.render.box"]"#,
    );
    write_in(
        &pack,
        "render_controllers/box.render_controllers.json",
        r#"{"format_version": "1.8.0", "render_controllers": {"controller.render.box": {
            "geometry": "Geometry.default", "textures": ["Texture.default"],
            "materials": [{"*": "Material.default"}]}}}"#,
    );
    write_in(
        &pack,
        "models/entity/box.geo.json",
        r#"{"format_version": "1.12.0", "minecraft:geometry": [{"description": {
            "identifier": "geometry.box", "texture_width": 32, "texture_height": 16},
            "bones": [{"name": "body", "pivot": [0, 0, 0],
              "cubes": [{"origin": [-4, 0, -4], "size": [8, 8, 8], "uv": [0, 0]}]}]}]}"#,
    );
    let out = dir.join("box.png");
    let o = molang()
        .arg("render")
        .arg(&pack)
        .args([
            "--entity", "test:box", "--camera", "front", "--size", "64", "--flat",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_code(&o, 0);
    assert_contains(&text(&o.stderr), "textures/entity/box");
    assert_contains(&text(&o.stderr), "missing-texture checker");
    let img = image::open(&out).unwrap().to_rgba8();
    let magenta = img.pixels().filter(|p| p.0 == [248, 0, 248, 255]).count();
    assert!(magenta > 100, "{magenta} checker pixels");
    // Nothing else was written into the pack or beside the picture.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn hostile_arguments_are_refused_before_any_work() {
    let dir = scratch("render-hostile");
    for (args, needle) in [
        (&["--size", "100000"][..], "--size must be from 8 to 2048"),
        (&["--size", "0"][..], "--size must be from 8 to 2048"),
        (&["--frames", "0..999999999"][..], "ends past frame"),
        (&["--frames", "0..5000"][..], "at most 1000 are drawn"),
        (&["--frames", "9..3"][..], "draws nothing"),
        (&["--frames", "a..b"][..], "a frame number"),
        (&["--background", "#12345"][..], "#rrggbb"),
        (&["--fps", "0"][..], "--fps must be above 0"),
        (&["--yaw", "1e300"][..], "--yaw takes degrees"),
    ] {
        let (o, out) = render(&dir, "x.png", &[&["--entity", "cow"][..], args].concat());
        assert_code(&o, 2);
        assert_contains(&text(&o.stderr), needle);
        assert!(!out.exists(), "{args:?} wrote a file");
    }
    // A range is a GIF: a `.png` name is refused rather than silently written as GIF.
    let (o, _) = render(&dir, "range.png", &["--entity", "cow", "--frames", "0..3"]);
    assert_code(&o, 2);
    assert_contains(&text(&o.stderr), "name the file `.gif`");
    // No overwriting without --force, never through a symbolic link.
    std::fs::write(dir.join("taken.png"), b"mine").unwrap();
    let (o, taken) = render(&dir, "taken.png", &["--entity", "cow"]);
    assert_code(&o, 2);
    assert_contains(&text(&o.stderr), "pass --force");
    assert_eq!(std::fs::read(&taken).unwrap(), b"mine");
    let (o, _) = render(&dir, "taken.png", &["--entity", "cow", "--force"]);
    assert_code(&o, 0);
    assert!(std::fs::read(&taken).unwrap().starts_with(b"\x89PNG"));
    #[cfg(unix)]
    {
        std::fs::write(dir.join("target.png"), b"target").unwrap();
        std::os::unix::fs::symlink(dir.join("target.png"), dir.join("link.png")).unwrap();
        let (o, _) = render(&dir, "link.png", &["--entity", "cow", "--force"]);
        assert_code(&o, 2);
        assert_contains(&text(&o.stderr), "symbolic link");
        assert_eq!(std::fs::read(dir.join("target.png")).unwrap(), b"target");
    }
    // A folder that does not exist is not created.
    let (o, _) = render(&dir, "no/such/x.png", &["--entity", "cow"]);
    assert_code(&o, 2);
    assert!(!dir.join("no").exists());
    // An unknown entity is an error with its name.
    let (o, _) = render(&dir, "y.png", &["--entity", "nope:none"]);
    assert_code(&o, 2);
    assert_contains(&text(&o.stderr), "nope:none");
    let _ = std::fs::remove_dir_all(dir);
}

/// A pack of one cube in one colour whose render controller sets `overlay` (JSON of the
/// controller's `overlay_color`, or nothing).
fn overlay_pack(dir: &Path, overlay: &str) -> PathBuf {
    let pack = dir.join(if overlay.is_empty() {
        "plain"
    } else {
        "overlay"
    });
    let files = [
        (
            "entity/block.entity.json",
            r#"{"format_version":"1.10.0","minecraft:client_entity":{"description":{"identifier":"t:block",
                "materials":{"default":"entity"},"textures":{"default":"textures/entity/block"},
                "geometry":{"default":"geometry.block"},"render_controllers":["controller.render.block"],
                "scripts":{"initialize":["v.a = 0.5;"]}}}}"#
                .to_string(),
        ),
        (
            "render_controllers/block.render_controllers.json",
            format!(
                r#"{{"format_version":"1.8.0","render_controllers":{{"controller.render.block":{{
                "geometry":"Geometry.default","materials":[{{"*":"Material.default"}}],
                "textures":["Texture.default"]{overlay}}}}}}}"#
            ),
        ),
        (
            "models/entity/block.geo.json",
            r#"{"format_version":"1.12.0","minecraft:geometry":[{"description":{"identifier":"geometry.block",
                "texture_width":16,"texture_height":16},"bones":[
                {"name":"body","pivot":[0,0,0],"cubes":[{"origin":[-2,0,-2],"size":[4,4,4],"uv":[0,0]}]}]}]}"#
                .to_string(),
        ),
    ];
    for (rel, body) in files {
        write_in(&pack, rel, body);
    }
    std::fs::create_dir_all(pack.join("textures/entity")).unwrap();
    image::RgbaImage::from_pixel(16, 16, image::Rgba([40, 200, 100, 255]))
        .save(pack.join("textures/entity/block.png"))
        .unwrap();
    pack
}

#[test]
fn the_render_controllers_overlay_colour_is_mixed_over_the_texels() {
    let dir = scratch("render-overlay");
    let draw = |pack: &Path, name: &str| {
        let out = dir.join(name);
        let o = molang()
            .arg("render")
            .arg(pack)
            .args(["--entity", "t:block", "--flat", "--size", "32"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_code(&o, 0);
        image::open(&out).unwrap().to_rgba8()
    };
    let plain = draw(&overlay_pack(&dir, ""), "plain.png");
    let red = r#","overlay_color":{"r":1.0,"g":0.0,"b":0.0,"a":"v.a"}"#;
    let overlaid = draw(&overlay_pack(&dir, red), "overlay.png");
    let mut drawn = 0;
    for (p, o) in plain.pixels().zip(overlaid.pixels()) {
        if p.0 == [40, 200, 100, 255] {
            // mix(texel, red, 0.5): (40 + 255) / 2, 200 / 2, 100 / 2.
            assert_eq!(o.0, [148, 100, 50, 255]);
            drawn += 1;
        } else {
            assert_eq!(o, p, "the background changed");
        }
    }
    assert!(drawn > 100, "{drawn} pixels of the cube");
    let _ = std::fs::remove_dir_all(dir);
}

/// The game draws the whole model turned by `q.body_y_rotation`, and the camera stays put: a
/// cow turned to face east (−90°) seen from the front is the cow seen from its right side
/// (the `side` camera) unturned, and the same cow at 0° is not.
#[test]
fn body_yaw_turns_the_whole_model_before_the_fixed_camera() {
    let dir = scratch("render-body-yaw");
    let turned =
        "t,q.modified_distance_moved,q.modified_move_speed,q.ground_speed,q.body_y_rotation\n\
                  0,0,1,2,-90\n4,8,1,2,-90\n";
    write_in(&dir, "turned.csv", turned);
    let draw = |name: &str, inputs: PathBuf, camera: &str| {
        let out = dir.join(name);
        let o = molang()
            .arg("render")
            .arg(vanilla_rp())
            .arg("--inputs")
            .arg(inputs)
            .args(["--entity", "cow", "--frames", "6", "--size", "96", "--flat"])
            .args(["--camera", camera, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_code(&o, 0);
        let t = picture::decode_png(&std::fs::read(&out).unwrap(), 4096).unwrap();
        picture::Picture {
            size: t.width,
            rgba: t.rgba,
            bone: Vec::new(),
        }
    };
    let front_turned = draw("front_turned.png", dir.join("turned.csv"), "front");
    let side = draw("side.png", walk_csv(&dir), "side");
    let front = draw("front.png", walk_csv(&dir), "front");
    let expected = |p: &picture::Picture| picture::Texture {
        width: p.size,
        height: p.size,
        rgba: p.rgba.clone(),
    };
    // sin/cos of 90° are not exact, so an edge pixel may land on the other side.
    let tolerance = picture::Tolerance {
        channel: 0,
        share: 0.01,
    };
    let same = picture::compare(&expected(&side), &front_turned, &tolerance).unwrap();
    assert!(
        same.passes(&tolerance),
        "turned to the east, the front view differs from the side view in {} pixels",
        same.differing
    );
    let other = picture::compare(&expected(&side), &front, &tolerance).unwrap();
    assert!(
        !other.passes(&tolerance),
        "the unturned front view matches the side view: the yaw is not what turns it"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `--sheet` lays the frames out left to right, top to bottom, a drawn frame in each cell, and
/// the cells past the last frame in the background colour (not transparent).
#[test]
fn a_contact_sheet_holds_each_frame_and_background_past_the_last() {
    let dir = scratch("render-sheet");
    let args = [
        "--entity",
        "cow",
        "--size",
        "32",
        "--background",
        "#102030",
        "--frames",
        "2..7",
        "--sheet",
    ];
    let (o, sheet) = render(&dir, "sheet.png", &args);
    assert_code(&o, 0);
    let sheet = image::open(sheet).unwrap().to_rgba8();
    // Five frames: three columns, two rows, one empty cell.
    assert_eq!(sheet.dimensions(), (96, 64));
    let background = image::Rgba([0x10, 0x20, 0x30, 255]);
    let cell = |i: u32| -> Vec<image::Rgba<u8>> {
        let (cx, cy) = ((i % 3) * 32, (i / 3) * 32);
        (0..32 * 32)
            .map(|k| *sheet.get_pixel(cx + k % 32, cy + k / 32))
            .collect()
    };
    for i in 0..5 {
        let drawn = cell(i).iter().filter(|p| **p != background).count();
        assert!(drawn > 50, "cell {i} holds no cow ({drawn} pixels drawn)");
    }
    // The walk moves the legs from frame to frame.
    assert!(
        (0..4).any(|i| cell(i) != cell(i + 1)),
        "the cells repeat one frame"
    );
    assert!(
        cell(5).iter().all(|p| *p == background),
        "the empty cell is not the background"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The README's pictures of the vanilla cow and of the imported Blockbench tail are what the
/// `molang render` commands printed beside them draw, byte for byte: each command is read from
/// the README (so the text and the picture cannot drift apart) and run with its pack and its
/// `--out` in a scratch folder. (The Doggoyle's is kept by ik-gait's tests.)
#[test]
fn readme_pictures_are_what_their_commands_draw() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let dir = scratch("render-readme");
    // `molang import` as the README does it, for the tail's pack.
    let o = molang_to(
        "import",
        &root.join("molang/cli/tests/fixtures/bbmodel/tail8.bbmodel"),
        &dir.join("tail_rp"),
        &[],
    );
    assert_code(&o, 0);
    let mut drawn = Vec::new();
    for cmd in readme_renders(&readme) {
        let pack = match cmd.pack.as_str() {
            "../shared/vanilla/resource_pack" => vanilla_rp(),
            "tail_rp" => dir.join("tail_rp"),
            _ => continue, // the Doggoyle's emitted pack
        };
        let scratch_out = dir.join(Path::new(&cmd.out).file_name().unwrap());
        let mut molang = molang();
        molang.current_dir(&root);
        assert_code(&cmd.run(molang, pack, &scratch_out), 0);
        let want = std::fs::read(root.join(&cmd.out)).unwrap();
        let got = std::fs::read(&scratch_out).unwrap();
        assert!(
            want == got,
            "{} is not what `{}` draws now: run it with --force",
            cmd.out,
            cmd.line
        );
        drawn.push(cmd.out);
    }
    assert_eq!(
        drawn,
        ["docs/bbmodel_tail_ik.gif", "docs/cow_walk.gif"],
        "the README's render commands"
    );
    let _ = std::fs::remove_dir_all(dir);
}
