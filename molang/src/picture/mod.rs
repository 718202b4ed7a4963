//! Pictures of an entity: its geometry's cubes, posed by the runtime, textured and drawn with
//! an orthographic camera into an RGBA buffer with a depth buffer (`molang render`).
//!
//! What is drawn, per frame: the geometry the render controllers choose (else the entity's
//! `geometry.default`), its bones posed by the frame's channels (bones are matched to the
//! runtime's by name, case ignored; a bone the runtime does not know stays in its bind pose),
//! the bones `part_visibility` leaves visible, and the first texture layer the controllers
//! choose. Conventions:
//! - Bones and cubes move by [`crate::runtime::fk`] (its matrices, its rotation); a cube's own
//!   `rotation` turns it about its `pivot` with the same rotation rule, inside its bone.
//!   `inflate` grows the cube by that many pixels on every side (the UV stays).
//! - Bedrock model space is drawn as Blockbench shows it (and as the game does): the X axis
//!   is flipped into a right-handed view, so a mob's right side (its `rightArm`, at −X in the
//!   file) is on the left of a front view. The texture layout is Blockbench's: box UV lays out
//!   east, north, west, south in a row below up and down (sizes floored); `mirror` swaps east
//!   and west and flips each face left to right; per-face UV takes `uv` + `uv_size` per face
//!   name, `up` and `down` with both directions reversed, as Blockbench imports them.
//! - Texels are sampled nearest, clamped inside the face's rectangle (no bleeding from a
//!   neighbouring face at a seam). Texels with alpha below one half are not drawn (the
//!   cut-out materials of most mobs). The render controllers' `overlay_color` is mixed over
//!   the texels by its alpha, as the game's entity shader does; `color`, the hurt and fire
//!   colours, `uv_anim` and further texture layers are not drawn.
//! - A light from the upper front shades faces (a flat shade per face, as the game's entity
//!   lighting roughly does); [`Style::shade`] turns it off.
//! - A missing or unreadable texture is drawn as the game's missing texture (a magenta and
//!   black checker, one square per texel) with a note.
//!
//! Rasterising: a small z-buffered triangle fill. The camera is orthographic, so UVs
//! interpolated linearly in screen space are exact (no perspective correction to get wrong),
//! and the well-kept 2D crates (tiny-skia) have no depth buffer.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use crate::pack::{CubeUv, GeometryCube, Pack};
use crate::runtime::fk;
use crate::runtime::model::Bone;
use crate::runtime::Pose;

/// Largest picture side, pixels.
pub const MAX_SIZE: u32 = 4096;
/// Largest texture side read, pixels.
pub const MAX_TEXTURE: u32 = 8192;

type Affine = [[f64; 4]; 3];

fn apply(m: &Affine, p: [f64; 3]) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (r, o) in out.iter_mut().enumerate() {
        *o = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
    }
    out
}

/// An orthographic camera around the model origin: `yaw` turns it about the vertical axis
/// (0: in front of the mob, 90: at its right side), `pitch` raises it (90: straight above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub yaw: f64,
    pub pitch: f64,
}

impl Camera {
    /// `front`, `side` (the mob's right side, facing right), `top` (from above, facing up)
    /// or `three-quarter` (yaw 35°, pitch 25°).
    pub fn named(name: &str) -> Option<Camera> {
        let (yaw, pitch) = match name {
            "front" => (0.0, 0.0),
            "side" => (90.0, 0.0),
            "top" => (180.0, 90.0),
            "three-quarter" => (35.0, 25.0),
            _ => return None,
        };
        Some(Camera { yaw, pitch })
    }

    /// Screen right, screen up and the direction towards the camera, in display space
    /// (model space with X flipped).
    fn basis(&self) -> [[f64; 3]; 3] {
        let (y, p) = (self.yaw.to_radians(), self.pitch.to_radians());
        let toward = [y.sin() * p.cos(), p.sin(), -y.cos() * p.cos()];
        let right = [-y.cos(), 0.0, -y.sin()];
        let forward = toward.map(|c| -c);
        let up = cross(right, forward);
        [right, up, toward]
    }

    /// A model-space point (pixels) as (right, up, depth): depth grows towards the camera.
    pub fn view(&self, p: [f64; 3]) -> [f64; 3] {
        let d = [-p[0], p[1], p[2]];
        self.basis().map(|axis| dot(axis, d))
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Where the camera's view lands on the picture: the view point at its centre and pixels per
/// model pixel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub camera: Camera,
    pub size: u32,
    pub center: [f64; 2],
    pub scale: f64,
}

impl Frame {
    /// Fits every quad of `quads` (all the frames to draw) in a `size` square, with a margin.
    pub fn fit<'q>(camera: Camera, size: u32, quads: impl IntoIterator<Item = &'q Quad>) -> Frame {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for q in quads {
            for c in &q.corners {
                let v = camera.view(*c);
                for k in 0..2 {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
        }
        if !(lo[0].is_finite() && hi[0].is_finite() && lo[1].is_finite() && hi[1].is_finite()) {
            // Nothing to draw: a 32-pixel square around the origin.
            (lo, hi) = ([-16.0; 2], [16.0; 2]);
        }
        let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1.0);
        Frame {
            camera,
            size,
            center: [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0],
            scale: size as f64 * 0.9 / extent,
        }
    }

    /// A model-space point as picture coordinates (x right, y down, pixels; the centre of
    /// pixel (i, j) is (i + 0.5, j + 0.5)) and depth.
    pub fn project(&self, p: [f64; 3]) -> [f64; 3] {
        let v = self.camera.view(p);
        let half = self.size as f64 / 2.0;
        [
            half + (v[0] - self.center[0]) * self.scale,
            half - (v[1] - self.center[1]) * self.scale,
            v[2],
        ]
    }
}

/// An RGBA texture.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Reads a PNG or TGA texture (at most [`MAX_TEXTURE`] pixels a side).
pub fn read_texture(path: &Path) -> Result<Texture, String> {
    let bytes = crate::pack::read_file_bytes(path, MAX_TEXTURE_FILE)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    decode_texture(path, &bytes)
}

/// The largest texture file read: 64 MiB (vanilla's largest entity texture is 0.1 MiB).
const MAX_TEXTURE_FILE: u64 = 64 << 20;

/// Decodes the bytes of texture file `path` (PNG or TGA, told by its content).
fn decode_texture(path: &Path, bytes: &[u8]) -> Result<Texture, String> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_TEXTURE);
    limits.max_image_height = Some(MAX_TEXTURE);
    limits.max_alloc = Some(512 << 20);
    reader.limits(limits);
    let img = reader
        .decode()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .to_rgba8();
    Ok(Texture {
        width: img.width(),
        height: img.height(),
        rgba: img.into_raw(),
    })
}

/// The files a texture path of the pack (`textures/entity/cow/cow_v2`) may be: `.png`, then
/// `.tga`, under each pack root of the loaded files, the last layer first. A path that is
/// absolute or climbs out (`..`) names nothing.
pub fn texture_files(pack: &Pack, texture: &str) -> Vec<PathBuf> {
    let rel = Path::new(texture);
    if texture.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Vec::new();
    }
    let mut roots: Vec<(usize, PathBuf)> = Vec::new();
    for f in &pack.files {
        let mut root = f.path.clone();
        let mut ok = true;
        for _ in f.relative.components() {
            ok &= root.pop();
        }
        if ok && !roots.iter().any(|(_, r)| *r == root) {
            roots.push((f.layer, root));
        }
    }
    roots.sort_by_key(|(layer, _)| std::cmp::Reverse(*layer));
    let mut out = Vec::new();
    for (_, root) in roots {
        for ext in ["png", "tga"] {
            out.push(root.join(format!("{texture}.{ext}")));
        }
    }
    out
}

/// One face of a cube, ready to draw: corners in model space (pixels) in the order
/// top-left, top-right, bottom-right, bottom-left of its texture rectangle, with texel
/// coordinates (geometry texture units).
#[derive(Clone, Debug, PartialEq)]
pub struct Quad {
    pub corners: [[f64; 3]; 4],
    pub uv: [[f64; 2]; 4],
    /// Index of the bone in [`Rig::bones`].
    pub bone: usize,
}

/// A geometry bone as the picture uses it.
#[derive(Clone, Debug)]
pub struct RigBone {
    pub name: String,
    /// Index into the runtime's bones ([`Pose`]'s vectors), by name.
    pub runtime: Option<usize>,
    pub mirror: bool,
    pub cubes: Vec<GeometryCube>,
}

/// A geometry resolved for drawing: bones (inheritance applied) with their cubes.
#[derive(Clone, Debug)]
pub struct Rig {
    pub geometry: String,
    pub bones: Vec<RigBone>,
    /// The bones in [`fk`]'s form (parents by index).
    fk_bones: Vec<Bone>,
    order: Vec<usize>,
    /// `texture_width`, `texture_height` (16 × 16 when the geometry gives none).
    pub texture_size: [f64; 2],
}

impl Rig {
    /// Geometry `name` of `pack`, its bones matched to `runtime_bones` (the runtime's bone
    /// names, in [`Pose`] order). `None` when the pack does not define it.
    pub fn new(pack: &Pack, name: &str, runtime_bones: &[&str]) -> Option<Rig> {
        let chain = pack.geometry_chain(name)?;
        let geo_bones = chain.bones();
        let index: HashMap<String, usize> = geo_bones
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.to_ascii_lowercase(), i))
            .collect();
        let mut fk_bones: Vec<Bone> = geo_bones
            .iter()
            .map(|b| Bone {
                name: b.name.clone(),
                parent: b
                    .parent
                    .as_ref()
                    .and_then(|p| index.get(&p.to_ascii_lowercase()).copied()),
                pivot: b.pivot,
                rotation: b.rotation,
                locators: Vec::new(),
            })
            .collect();
        for (i, b) in fk_bones.iter_mut().enumerate() {
            b.parent = b.parent.filter(|&p| p != i);
        }
        let order = crate::runtime::load::fk_order(&mut fk_bones);
        let bones = geo_bones
            .into_iter()
            .map(|b| RigBone {
                runtime: runtime_bones
                    .iter()
                    .position(|r| r.eq_ignore_ascii_case(&b.name)),
                name: b.name,
                mirror: b.mirror,
                cubes: b.cubes,
            })
            .collect();
        let [w, h] = chain.texture_size().unwrap_or([16.0, 16.0]);
        let positive = |v: f32| {
            if v.is_finite() && v > 0.0 {
                v as f64
            } else {
                16.0
            }
        };
        Some(Rig {
            geometry: name.to_string(),
            bones,
            fk_bones,
            order,
            texture_size: [positive(w), positive(h)],
        })
    }

    /// Index of a bone (name without case).
    pub fn bone(&self, name: &str) -> Option<usize> {
        self.bones
            .iter()
            .position(|b| b.name.eq_ignore_ascii_case(name))
    }

    /// A bone's pivot in the bind pose, as its geometry writes it.
    pub fn bind_pivot(&self, bone: usize) -> [f32; 3] {
        self.fk_bones[bone].pivot
    }

    /// Each bone's transform for `pose` (bind geometry to model space, the entity's scale
    /// applied about the origin, as [`Pose::world`] has it).
    pub fn matrices(&self, pose: &Pose) -> Vec<Affine> {
        let n = self.bones.len();
        let (mut rot, mut pos, mut scale) =
            (vec![[0.0; 3]; n], vec![[0.0; 3]; n], vec![[1.0; 3]; n]);
        for (i, b) in self.bones.iter().enumerate() {
            if let Some(r) = b.runtime {
                rot[i] = pose.rot.get(r).copied().unwrap_or_default();
                pos[i] = pose.pos.get(r).copied().unwrap_or_default();
                scale[i] = pose.scale.get(r).copied().unwrap_or([1.0; 3]);
            }
        }
        let ch = fk::Channels {
            rot: &rot,
            pos: &pos,
            scale: &scale,
        };
        let mut m = fk::matrices(&self.fk_bones, &self.order, &ch);
        let s = pose.entity_scale.map(|c| c as f64);
        for x in &mut m {
            for (row, sr) in x.iter_mut().zip(s) {
                for v in row.iter_mut() {
                    *v *= sr;
                }
            }
        }
        m
    }

    /// The faces of every visible bone's cubes for `pose` (`pose.render.visible` by runtime
    /// bone; a bone the runtime does not know is shown).
    pub fn quads(&self, pose: &Pose) -> Vec<Quad> {
        let m = self.matrices(pose);
        let mut out = Vec::new();
        for (i, b) in self.bones.iter().enumerate() {
            let shown = b
                .runtime
                .and_then(|r| pose.render.visible.get(r).copied())
                .unwrap_or(true);
            if !shown {
                continue;
            }
            for c in &b.cubes {
                cube_quads(c, b.mirror, i, &m[i], &mut out);
            }
        }
        out
    }
}

/// Face rectangles of a cube in Blockbench's face order east, west, up, down, south, north:
/// `[u1, v1, u2, v2]`, (u1, v1) at the face's top-left as seen from outside.
fn face_rects(c: &GeometryCube, mirror: bool) -> [Option<[f64; 4]>; 6] {
    let s = c.size.map(|v| v as f64);
    match &c.uv {
        CubeUv::Box(uv) => {
            let [x, y, z] = s.map(|v| (v.abs() + 1e-7).floor());
            let mut list = [
                ([0.0, z], [z, y]),
                ([z + x, z], [z, y]),
                ([z + x, z], [-x, -z]),
                ([z + 2.0 * x, 0.0], [-x, z]),
                ([2.0 * z + x, z], [x, y]),
                ([z, z], [x, y]),
            ];
            if mirror {
                for (from, size) in &mut list {
                    from[0] += size[0];
                    size[0] = -size[0];
                }
                list.swap(0, 1);
            }
            let (u, v) = (uv[0] as f64, uv[1] as f64);
            list.map(|(f, sz)| Some([u + f[0], v + f[1], u + f[0] + sz[0], v + f[1] + sz[1]]))
        }
        CubeUv::Faces(faces) => {
            // FACES order (north, east, south, west, up, down) to the order above.
            let pick = [1, 3, 4, 5, 2, 0];
            let own = [
                [s[0], s[1]],
                [s[2], s[1]],
                [s[0], s[1]],
                [s[2], s[1]],
                [s[0], s[2]],
                [s[0], s[2]],
            ];
            pick.map(|k| {
                let f = faces[k]?;
                let [w, h] = f.uv_size.map_or(own[k], |z| z.map(|v| v as f64));
                let (u, v) = (f.uv[0] as f64, f.uv[1] as f64);
                Some(if k >= 4 {
                    [u + w, v + h, u, v]
                } else {
                    [u, v, u + w, v + h]
                })
            })
        }
    }
}

fn cube_quads(c: &GeometryCube, bone_mirror: bool, bone: usize, m: &Affine, out: &mut Vec<Quad>) {
    let f = |v: [f32; 3]| v.map(|c| c as f64);
    let (o, s, inf) = (f(c.origin), f(c.size), c.inflate as f64);
    if !(o.iter().chain(&s).all(|v| v.is_finite()) && inf.is_finite()) {
        return;
    }
    // Display space has X flipped: work there (Blockbench's frame), then flip back.
    let lo = [-(o[0] + s[0]) - inf, o[1] - inf, o[2] - inf];
    let hi = [-o[0] + inf, o[1] + s[1] + inf, o[2] + s[2] + inf];
    let rot = (c.rotation.iter().any(|&r| r != 0.0)).then(|| {
        let r = fk::rotation(f(c.rotation));
        (r, f(c.pivot.unwrap_or([0.0; 3])))
    });
    let place = |d: [f64; 3]| -> [f64; 3] {
        let mut p = [-d[0], d[1], d[2]];
        if let Some((r, pv)) = &rot {
            let q = [p[0] - pv[0], p[1] - pv[1], p[2] - pv[2]];
            p = [0, 1, 2].map(|k| pv[k] + r[k][0] * q[0] + r[k][1] * q[1] + r[k][2] * q[2]);
        }
        apply(m, p)
    };
    let (x0, y0, z0, x1, y1, z1) = (lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    // Corners top-left, top-right, bottom-right, bottom-left seen from outside (display
    // space, right-handed): east +X, west −X, up +Y, down −Y, south +Z, north −Z.
    let corners: [[[f64; 3]; 4]; 6] = [
        [[x1, y1, z1], [x1, y1, z0], [x1, y0, z0], [x1, y0, z1]],
        [[x0, y1, z0], [x0, y1, z1], [x0, y0, z1], [x0, y0, z0]],
        [[x0, y1, z0], [x1, y1, z0], [x1, y1, z1], [x0, y1, z1]],
        [[x0, y0, z1], [x1, y0, z1], [x1, y0, z0], [x0, y0, z0]],
        [[x0, y1, z1], [x1, y1, z1], [x1, y0, z1], [x0, y0, z1]],
        [[x1, y1, z0], [x0, y1, z0], [x0, y0, z0], [x1, y0, z0]],
    ];
    let mirror = c.mirror.unwrap_or(bone_mirror);
    for (rect, face) in face_rects(c, mirror).into_iter().zip(corners) {
        let Some([u1, v1, u2, v2]) = rect else {
            continue;
        };
        out.push(Quad {
            corners: face.map(&place),
            uv: [[u1, v1], [u2, v1], [u2, v2], [u1, v2]],
            bone,
        });
    }
}

/// How a picture is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    pub background: [u8; 3],
    /// Shade faces by a light from the upper front (off: texels as they are).
    pub shade: bool,
    /// The render controllers' `overlay_color` (RGBA, 0 to 1): texels become
    /// `mix(texel, overlay, overlay alpha)` before shading. Alpha 0 leaves them as they are.
    pub overlay: [f32; 4],
}

impl Default for Style {
    fn default() -> Self {
        Style {
            background: [0x2b, 0x2f, 0x36],
            shade: true,
            overlay: [0.0; 4],
        }
    }
}

/// A drawn picture: RGBA rows from the top, and per pixel the bone drawn there (its index in
/// [`Rig::bones`] + 1; 0 for background).
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    pub size: u32,
    pub rgba: Vec<u8>,
    pub bone: Vec<u16>,
}

impl Picture {
    /// The pixel at (x, y): RGBA.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = (y as usize * self.size as usize + x as usize) * 4;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }
}

/// Draws `quads` (only bone `only`'s when given) with `texture` (`None`: the missing-texture
/// checker) whose texel space is `texture_size`.
pub fn draw(
    quads: &[Quad],
    frame: &Frame,
    texture: Option<&Texture>,
    texture_size: [f64; 2],
    style: &Style,
    only: Option<usize>,
) -> Picture {
    let n = frame.size as usize;
    let mut rgba = Vec::with_capacity(n * n * 4);
    for _ in 0..n * n {
        rgba.extend_from_slice(&[
            style.background[0],
            style.background[1],
            style.background[2],
            255,
        ]);
    }
    let mut pic = Picture {
        size: frame.size,
        rgba,
        bone: vec![0; n * n],
    };
    let mut depth = vec![f64::NEG_INFINITY; n * n];
    // Out-of-range and NaN channels (Molang results) clamped to 0..1.
    let overlay = style.overlay.map(|c| {
        if c.is_nan() {
            0.0
        } else {
            c.clamp(0.0, 1.0) as f64
        }
    });
    let light = {
        let l = [-0.3f64, 0.8, 0.5];
        let len = dot(l, l).sqrt();
        l.map(|c| c / len)
    };
    for q in quads.iter().filter(|q| only.is_none_or(|b| q.bone == b)) {
        let p = q.corners.map(|c| frame.project(c));
        let shade = if style.shade {
            // The outward face normal in view space (corners run clockwise seen from
            // outside), lit from the viewer's upper left so every camera reads alike.
            let v = q.corners.map(|c| frame.camera.view(c));
            let ea = [0, 1, 2].map(|k| v[1][k] - v[0][k]);
            let eb = [0, 1, 2].map(|k| v[3][k] - v[0][k]);
            let nrm = cross(eb, ea);
            let len = dot(nrm, nrm).sqrt();
            if len > 0.0 {
                0.55 + 0.45 * (dot(nrm, light) / len).clamp(0.0, 1.0)
            } else {
                1.0
            }
        } else {
            1.0
        };
        let (umin, umax) = (q.uv[0][0].min(q.uv[2][0]), q.uv[0][0].max(q.uv[2][0]));
        let (vmin, vmax) = (q.uv[0][1].min(q.uv[2][1]), q.uv[0][1].max(q.uv[2][1]));
        let clamp = |u: f64, lo: f64, hi: f64| {
            let e = ((hi - lo) * 0.5).min(1.0 / 64.0);
            u.clamp(lo + e, hi - e)
        };
        for tri in [[0, 1, 2], [0, 2, 3]] {
            raster(&p, &q.uv, tri, frame.size, |i, z, u, v| {
                if z <= depth[i] {
                    return;
                }
                let (u, v) = (clamp(u, umin, umax), clamp(v, vmin, vmax));
                let texel = sample(texture, texture_size, u, v);
                if texel[3] < 128 {
                    return;
                }
                depth[i] = z;
                for ((out, t), o) in pic.rgba[i * 4..i * 4 + 3]
                    .iter_mut()
                    .zip(texel)
                    .zip(overlay)
                {
                    let t = t as f64 * (1.0 - overlay[3]) + o * 255.0 * overlay[3];
                    *out = (t * shade).round().clamp(0.0, 255.0) as u8;
                }
                pic.bone[i] = (q.bone + 1).min(u16::MAX as usize) as u16;
            });
        }
    }
    pic
}

fn sample(texture: Option<&Texture>, size: [f64; 2], u: f64, v: f64) -> [u8; 4] {
    let Some(t) = texture else {
        // The game's missing texture: magenta and black, one square per texel.
        return if (u.floor() as i64 + v.floor() as i64).rem_euclid(2) == 0 {
            [248, 0, 248, 255]
        } else {
            [0, 0, 0, 255]
        };
    };
    if t.width == 0 || t.height == 0 {
        return [0, 0, 0, 0];
    }
    let x = ((u / size[0] * t.width as f64).floor() as i64).clamp(0, t.width as i64 - 1) as usize;
    let y = ((v / size[1] * t.height as f64).floor() as i64).clamp(0, t.height as i64 - 1) as usize;
    let i = (y * t.width as usize + x) * 4;
    [t.rgba[i], t.rgba[i + 1], t.rgba[i + 2], t.rgba[i + 3]]
}

/// Fills triangle `tri` of the projected corners `p`: calls `put(pixel index, depth, u, v)`
/// for each pixel whose centre is inside (edges included).
fn raster(
    p: &[[f64; 3]; 4],
    uv: &[[f64; 2]; 4],
    tri: [usize; 3],
    size: u32,
    mut put: impl FnMut(usize, f64, f64, f64),
) {
    let [a, b, c] = tri.map(|k| p[k]);
    let [ta, tb, tc] = tri.map(|k| uv[k]);
    let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    if !area.is_finite() || area.abs() < 1e-12 {
        return;
    }
    let lim = size as f64;
    let x0 = a[0].min(b[0]).min(c[0]).floor().max(0.0);
    let x1 = a[0].max(b[0]).max(c[0]).ceil().min(lim);
    let y0 = a[1].min(b[1]).min(c[1]).floor().max(0.0);
    let y1 = a[1].max(b[1]).max(c[1]).ceil().min(lim);
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let edge = |p: [f64; 3], q: [f64; 3], x: f64, y: f64| {
        (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])
    };
    for y in y0 as u32..y1 as u32 {
        let py = y as f64 + 0.5;
        for x in x0 as u32..x1 as u32 {
            let px = x as f64 + 0.5;
            let wa = edge(b, c, px, py) / area;
            let wb = edge(c, a, px, py) / area;
            let wc = edge(a, b, px, py) / area;
            if wa < 0.0 || wb < 0.0 || wc < 0.0 {
                continue;
            }
            let z = wa * a[2] + wb * b[2] + wc * c[2];
            let u = wa * ta[0] + wb * tb[0] + wc * tc[0];
            let v = wa * ta[1] + wb * tb[1] + wc * tc[1];
            put(y as usize * size as usize + x as usize, z, u, v);
        }
    }
}

/// What [`render`] draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Back end, frames per second, seed; `frames` is the end of the range (exclusive).
    pub play: crate::runtime::PlayOptions,
    /// The first frame drawn (the runtime plays from frame 0 up to it).
    pub first: u64,
    pub camera: Camera,
    pub size: u32,
    pub style: Style,
}

/// The pictures of [`render`] and what it noted (a missing geometry or texture, once each).
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    pub pictures: Vec<Picture>,
    pub notes: Vec<String>,
}

/// One played frame ready to draw.
struct Prepared {
    quads: Vec<Quad>,
    overlay: [f32; 4],
    rig: Option<usize>,
    texture: Option<String>,
}

/// Plays `identifier` over `timeline` and draws frames `first .. play.frames`, all framed
/// alike (the camera fits every drawn frame). Textures are read from the pack's folders.
pub fn render(
    pack: &Pack,
    identifier: &str,
    timeline: &crate::runtime::inputs::Timeline,
    settings: &Settings,
) -> Result<Rendered, crate::Error> {
    let player = crate::runtime::Player::new(pack, identifier, timeline, settings.play)?;
    let names: Vec<String> = player.bones().map(str::to_string).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut rigs: Vec<Rig> = Vec::new();
    let mut rig_of: HashMap<String, Option<usize>> = HashMap::new();
    let mut notes = Vec::new();
    let mut prepared = Vec::new();
    let yaw_column = body_yaw_column(timeline);
    let mut row = vec![0.0; timeline.queries.len()];
    for f in player {
        if f.index < settings.first {
            continue;
        }
        let render = &f.pose.render;
        let rig = match &render.geometry {
            None => {
                if !rig_of.contains_key("") {
                    rig_of.insert(String::new(), None);
                    notes.push(format!(
                        "frame {}: no render controller chooses a geometry; the game draws nothing",
                        f.index
                    ));
                }
                None
            }
            Some(g) => {
                *rig_of
                    .entry(g.clone())
                    .or_insert_with(|| match Rig::new(pack, g, &names) {
                        Some(r) => {
                            rigs.push(r);
                            Some(rigs.len() - 1)
                        }
                        None => {
                            notes.push(format!(
                                "geometry `{g}` is not in the packs; nothing is drawn"
                            ));
                            None
                        }
                    })
            }
        };
        let mut quads = rig.map(|r| rigs[r].quads(&f.pose)).unwrap_or_default();
        if let Some(j) = yaw_column {
            // The game draws the whole model turned by its body yaw, about the entity's
            // origin, as a bone Y rotation would turn it (runtime::fk::to_world); the camera
            // stays put, so a turning mob is seen turning.
            timeline.sample(f.time, &mut row);
            turn_by_yaw(&mut quads, row[j] as f64);
        }
        prepared.push(Prepared {
            quads,
            overlay: render.colors[1],
            rig,
            texture: render.textures.first().cloned(),
        });
    }
    let frame = Frame::fit(
        settings.camera,
        settings.size,
        prepared.iter().flat_map(|p| &p.quads),
    );
    let mut textures: HashMap<String, Option<Texture>> = HashMap::new();
    let mut pictures = Vec::with_capacity(prepared.len());
    for p in &prepared {
        if p.texture.is_none() && p.rig.is_some() && !textures.contains_key("") {
            textures.insert(String::new(), None);
            notes.push(
                "no render controller chooses a texture; drawn as the missing-texture checker"
                    .into(),
            );
        }
        let texture = match &p.texture {
            None => None,
            Some(key) => textures
                .entry(key.clone())
                .or_insert_with(|| {
                    let mut why = String::from("no such file");
                    for path in texture_files(pack, key) {
                        let read = match crate::pack::read_file_bytes(&path, MAX_TEXTURE_FILE) {
                            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                            Err(e) => Err(format!("{}: {e}", path.display())),
                            Ok(bytes) => decode_texture(&path, &bytes),
                        };
                        match read {
                            Ok(t) => return Some(t),
                            Err(e) => {
                                why = e;
                                break;
                            }
                        }
                    }
                    notes.push(format!(
                        "texture `{key}` cannot be read ({why}); drawn as the missing-texture checker"
                    ));
                    None
                })
                .as_ref(),
        };
        let size = p.rig.map_or([16.0; 2], |r| rigs[r].texture_size);
        let style = Style {
            overlay: p.overlay,
            ..settings.style
        };
        pictures.push(draw(&p.quads, &frame, texture, size, &style, None));
    }
    Ok(Rendered { pictures, notes })
}

/// The timeline's `q.body_y_rotation` column (without arguments), if it has one.
fn body_yaw_column(timeline: &crate::runtime::inputs::Timeline) -> Option<usize> {
    (0..timeline.queries.len()).find(|&j| {
        timeline.queries[j] == "body_y_rotation"
            && timeline.kinds.get(j) == Some(&crate::runtime::inputs::Kind::Query)
            && timeline.args.get(j).is_none_or(|a| a.is_empty())
    })
}

/// Turns every corner of `quads` about the model origin by `yaw_deg` of body yaw.
pub fn turn_by_yaw(quads: &mut [Quad], yaw_deg: f64) {
    if yaw_deg == 0.0 || !yaw_deg.is_finite() {
        return;
    }
    let m = fk::local([0.0; 3], [0.0; 3], [0.0, yaw_deg, 0.0], [1.0; 3]);
    for q in quads {
        for c in &mut q.corners {
            *c = apply(&m, *c);
        }
    }
}

/// Decodes the bytes of a PNG picture of at most `max_side` pixels a side (an expected image
/// of `molang test`), as RGBA.
pub fn decode_png(bytes: &[u8], max_side: u32) -> Result<Texture, String> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes));
    reader.set_format(image::ImageFormat::Png);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(max_side);
    limits.max_image_height = Some(max_side);
    limits.max_alloc = Some(64 << 20);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| e.to_string())?.to_rgba8();
    Ok(Texture {
        width: img.width(),
        height: img.height(),
        rgba: img.into_raw(),
    })
}

/// `rgba` (rows from the top, `width` × `height`) as PNG bytes.
pub fn png_bytes(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, String> {
    let img = image::RgbaImage::from_raw(width, height, rgba.to_vec())
        .ok_or("internal: picture buffer of the wrong size")?;
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| format!("encoding the PNG: {e}"))?;
    Ok(out.into_inner())
}

/// How far a drawn picture may be from its expected image and still match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// A pixel matches when each of its R, G, B and A values differs from the expected one
    /// by at most this much (0 to 255).
    pub channel: u8,
    /// The share of pixels (0 to 1) that may differ by more than `channel` while the
    /// picture still matches.
    pub share: f64,
}

/// A picture against its expected image, pixel by pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub width: u32,
    pub height: u32,
    /// Pixels with a channel differing by more than the tolerance's `channel`.
    pub differing: u64,
    /// The largest difference of one channel over the picture (0 to 255), and the first
    /// pixel (x, y from the top left) that has it.
    pub largest: u8,
    pub largest_at: (u32, u32),
    /// The difference image (RGBA): pixels that match shown as the expected image faded to
    /// grey, pixels that differ within the tolerance in yellow, beyond it in red.
    pub diff: Vec<u8>,
}

impl Comparison {
    /// Whether the differing pixels are within the tolerance's share.
    pub fn passes(&self, tolerance: &Tolerance) -> bool {
        let total = self.width as u64 * self.height as u64;
        self.differing as f64 <= tolerance.share * total as f64
    }
}

/// Compares `actual` with `expected` pixel by pixel. `Err`: the sizes differ (what each is).
pub fn compare(
    expected: &Texture,
    actual: &Picture,
    tolerance: &Tolerance,
) -> Result<Comparison, String> {
    if expected.width != actual.size || expected.height != actual.size {
        return Err(format!(
            "the expected image is {}×{} pixels, the picture drawn {}×{}",
            expected.width, expected.height, actual.size, actual.size
        ));
    }
    let mut cmp = Comparison {
        width: actual.size,
        height: actual.size,
        differing: 0,
        largest: 0,
        largest_at: (0, 0),
        diff: Vec::with_capacity(actual.rgba.len()),
    };
    let width = actual.size as usize;
    for (i, (e, a)) in expected
        .rgba
        .chunks_exact(4)
        .zip(actual.rgba.chunks_exact(4))
        .enumerate()
    {
        let d = e
            .iter()
            .zip(a)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        if d > cmp.largest {
            cmp.largest = d;
            cmp.largest_at = ((i % width) as u32, (i / width) as u32);
        }
        let px = if d > tolerance.channel {
            cmp.differing += 1;
            [255, 0, 0, 255]
        } else if d > 0 {
            [255, 220, 0, 255]
        } else {
            // Luma, faded towards mid grey: the shape stays readable behind the marks.
            let l = (e[0] as u32 * 3 + e[1] as u32 * 6 + e[2] as u32) / 10;
            let g = (64 + l / 3) as u8;
            [g, g, g, 255]
        };
        cmp.diff.extend_from_slice(&px);
    }
    Ok(cmp)
}
