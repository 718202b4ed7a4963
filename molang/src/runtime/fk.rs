//! Forward kinematics over a Bedrock geometry: bone pivots and locators in model space
//! (pixels, +Y up, the entity facing −Z, its left at +X), from bind rotations plus animated
//! channels. This is the workspace's one implementation of the bone transform: `molang run
//! --world` and the Doggoyle rig's checks (`ik-gait/src/model.rs`) both use [`local`].
//!
//! Conventions:
//! - a bone maps a point p of its bind geometry to
//!   `parent(pivot + position + R · S · (p − pivot))`;
//! - `R = Rz(−z) · Ry(y) · Rx(−x)` in right-handed model coordinates, angles in degrees
//!   (bind rotation + animation, per axis). X turns first, then Y, then Z. A positive X
//!   rotation tips the bone's top towards −Z (a head looks down); a positive Y turns the
//!   bone's −Z face towards −X, the entity's right (clockwise seen from above, the way the
//!   game's yaw grows); a positive Z swings a bone hanging below its pivot towards −X.
//! - position moves the pivot by (x, y, z) pixels in the parent's frame; scale multiplies
//!   about the pivot.
//!
//! Evidence for the axis signs and the order:
//! - Blockbench (the modelling tool whose preview matches the game) reads a Bedrock geometry
//!   by mirroring X (`origin[0] *= -1` for pivots, `from[0] = -(origin[0] + size[0])` for
//!   cubes) and negating the X and Y rotations (`if (axis !== 2) rotation[axis] *= -1`),
//!   then renders with three.js's right-handed rotations in Euler order `ZYX` (`js/io/formats/
//!   bedrock.js`, `parseBone`, in JannisX11/blockbench). Mirroring X back into Bedrock's
//!   coordinates turns Ry and Rz the other way again: `Rz(−z)·Ry(y)·Rx(−x)` here.
//! - The game's vanilla animations agree: `animation.humanoid.bob` rotates `rightarm` by
//!   +Z (up to 5.73°) and `leftarm` by −Z, Java's `bobArms` (0.05 rad) in degrees, and the
//!   arms sway outwards, away from the body (`rightArm` hangs at −X); with Z not negated they
//!   would swing into the torso. `animation.common.look_at_target` rotates the head by
//!   `query.target_y_rotation` about Y, the head's yaw relative to the body (positive turning
//!   clockwise seen from above, as the game's yaw: 0 faces south, 90 west); the head turns
//!   towards what it looks at only if +Y turns −Z towards −X. `ik-gait/tests/
//!   bedrock_convention.rs` runs both on the vanilla packs.
//! - The entity's yaw ψ places the model in the world as a bone Y rotation of ψ would, with Z
//!   mirrored (model −Z, the front, is world +Z, south, at yaw 0; model +X, the left, is
//!   east): [`to_world`].

use super::model::Bone;

/// Row-major 3×4 affine transform.
pub type Affine = [[f64; 4]; 3];

pub const IDENTITY: Affine = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

/// `a` after `b`: the transform that applies `b`, then `a`.
pub fn mul(a: &Affine, b: &Affine) -> Affine {
    let mut out = [[0.0; 4]; 3];
    for r in 0..3 {
        for c in 0..4 {
            let mut v = a[r][0] * b[0][c] + a[r][1] * b[1][c] + a[r][2] * b[2][c];
            if c == 3 {
                v += a[r][3];
            }
            out[r][c] = v;
        }
    }
    out
}

/// `m` applied to point `p`.
pub fn apply(m: &Affine, p: [f64; 3]) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (r, o) in out.iter_mut().enumerate() {
        *o = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
    }
    out
}

/// The rotation part for Bedrock angles (degrees).
pub fn rotation(deg: [f64; 3]) -> [[f64; 3]; 3] {
    let (x, y, z) = (
        (-deg[0]).to_radians(),
        deg[1].to_radians(),
        (-deg[2]).to_radians(),
    );
    let rx = [
        [1.0, 0.0, 0.0],
        [0.0, x.cos(), -x.sin()],
        [0.0, x.sin(), x.cos()],
    ];
    let ry = [
        [y.cos(), 0.0, y.sin()],
        [0.0, 1.0, 0.0],
        [-y.sin(), 0.0, y.cos()],
    ];
    let rz = [
        [z.cos(), -z.sin(), 0.0],
        [z.sin(), z.cos(), 0.0],
        [0.0, 0.0, 1.0],
    ];
    let m3 = |a: [[f64; 3]; 3], b: [[f64; 3]; 3]| {
        let mut o = [[0.0; 3]; 3];
        for r in 0..3 {
            for c in 0..3 {
                o[r][c] = (0..3).map(|k| a[r][k] * b[k][c]).sum();
            }
        }
        o
    };
    m3(rz, m3(ry, rx))
}

/// A bone's transform relative to its parent: `pivot + pos + R(rot) · S(scale) · (p − pivot)`
/// (rotation in degrees, bind + animation; see the module's conventions).
pub fn local(pivot: [f64; 3], pos: [f64; 3], rot: [f64; 3], scale: [f64; 3]) -> Affine {
    let r = rotation(rot);
    let mut out = [[0.0; 4]; 3];
    for row in 0..3 {
        for c in 0..3 {
            out[row][c] = r[row][c] * scale[c];
        }
        let rs_pivot: f64 = (0..3).map(|c| out[row][c] * pivot[c]).sum();
        out[row][3] = pivot[row] + pos[row] - rs_pivot;
    }
    out
}

/// A model-space point of an entity at world position `origin` (x, y, z px) with body yaw
/// `yaw_deg` (`query.body_y_rotation`: 0 faces south, +Z; 90 west, −X) in world space: the
/// yaw turns the model as a bone Y rotation would, then Z is mirrored.
pub fn to_world(origin: [f64; 3], yaw_deg: f64, p: [f64; 3]) -> [f64; 3] {
    let q = apply(&local([0.0; 3], [0.0; 3], [0.0, yaw_deg, 0.0], [1.0; 3]), p);
    [origin[0] + q[0], origin[1] + q[1], origin[2] - q[2]]
}

/// Per-bone animated channels of one frame.
pub struct Channels<'a> {
    pub rot: &'a [[f32; 3]],
    pub pos: &'a [[f32; 3]],
    pub scale: &'a [[f32; 3]],
}

/// World pivots (one per bone) and locators (bone order, then each bone's locator order).
pub fn forward(
    bones: &[Bone],
    order: &[usize],
    ch: &Channels<'_>,
    world: &mut Vec<[f32; 3]>,
    locators: &mut Vec<[f32; 3]>,
) {
    let n = bones.len();
    let mut xf = vec![IDENTITY; n];
    world.clear();
    world.resize(n, [0.0; 3]);
    for &i in order {
        let b = &bones[i];
        let parent = b.parent.map_or(IDENTITY, |p| xf[p]);
        let f = |v: [f32; 3]| v.map(|c| c as f64);
        let pivot = f(b.pivot);
        let pos = f(ch.pos[i]);
        let s = f(ch.scale[i]);
        let rot = [
            b.rotation[0] as f64 + ch.rot[i][0] as f64,
            b.rotation[1] as f64 + ch.rot[i][1] as f64,
            b.rotation[2] as f64 + ch.rot[i][2] as f64,
        ];
        xf[i] = mul(&parent, &local(pivot, pos, rot, s));
        let wp = apply(
            &parent,
            [pivot[0] + pos[0], pivot[1] + pos[1], pivot[2] + pos[2]],
        );
        world[i] = wp.map(|c| c as f32);
    }
    locators.clear();
    for (i, b) in bones.iter().enumerate() {
        for (_, l) in &b.locators {
            locators.push(apply(&xf[i], l.map(|c| c as f64)).map(|c| c as f32));
        }
    }
}

/// Each bone's whole transform (its bind geometry to model space: the map of the module
/// doc), row-major 3×4, parents applied: what `molang render` moves cubes with. The same
/// composition as [`forward`], whose pivots are `matrix · (pivot)`.
pub fn matrices(bones: &[Bone], order: &[usize], ch: &Channels<'_>) -> Vec<[[f64; 4]; 3]> {
    let mut xf = vec![IDENTITY; bones.len()];
    for &i in order {
        let b = &bones[i];
        let parent = b.parent.map_or(IDENTITY, |p| xf[p]);
        let f = |v: [f32; 3]| v.map(|c| c as f64);
        let (pivot, pos, s) = (f(b.pivot), f(ch.pos[i]), f(ch.scale[i]));
        let rot = [
            b.rotation[0] as f64 + ch.rot[i][0] as f64,
            b.rotation[1] as f64 + ch.rot[i][1] as f64,
            b.rotation[2] as f64 + ch.rot[i][2] as f64,
        ];
        xf[i] = mul(&parent, &local(pivot, pos, rot, s));
    }
    xf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bone(name: &str, parent: Option<usize>, pivot: [f32; 3]) -> Bone {
        Bone {
            name: name.into(),
            parent,
            pivot,
            rotation: [0.0; 3],
            locators: Vec::new(),
        }
    }

    /// A positive Y turns the front (−Z) towards −X (the entity's right) and a positive Z
    /// swings a hanging point towards −X; X tips the top towards −Z (module docs).
    #[test]
    fn axis_signs() {
        let r = |d: [f64; 3], p: [f64; 3]| {
            let m = rotation(d);
            [0, 1, 2].map(|i| (0..3).map(|k| m[i][k] * p[k]).sum::<f64>())
        };
        let near = |a: [f64; 3], b: [f64; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12);
        assert!(near(
            r([0.0, 90.0, 0.0], [0.0, 0.0, -1.0]),
            [-1.0, 0.0, 0.0]
        ));
        assert!(near(
            r([0.0, 0.0, 90.0], [0.0, -1.0, 0.0]),
            [-1.0, 0.0, 0.0]
        ));
        assert!(near(r([90.0, 0.0, 0.0], [0.0, 1.0, 0.0]), [0.0, 0.0, -1.0]));
        // Order: X first, then Y. X 90 tips up (+Y) to −Z, Y 90 then turns −Z to −X.
        assert!(near(
            r([90.0, 90.0, 0.0], [0.0, 1.0, 0.0]),
            [-1.0, 0.0, 0.0]
        ));
    }

    /// The world placement: yaw 0 faces south (+Z), yaw 90 west (−X); the left (+X) is east
    /// at yaw 0.
    #[test]
    fn to_world_faces_the_games_yaw() {
        let near = |a: [f64; 3], b: [f64; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12);
        let front = [0.0, 0.0, -1.0];
        assert!(near(to_world([0.0; 3], 0.0, front), [0.0, 0.0, 1.0]));
        assert!(near(to_world([0.0; 3], 90.0, front), [-1.0, 0.0, 0.0]));
        assert!(near(to_world([0.0; 3], -90.0, front), [1.0, 0.0, 0.0]));
        assert!(near(
            to_world([2.0, 0.0, 0.0], 0.0, [1.0, 0.0, 0.0]),
            [3.0, 0.0, 0.0]
        ));
    }

    #[test]
    fn positive_x_swings_a_hanging_leg_backward_like_ik_gait() {
        // Hip at y = 12, a foot locator 12 px below it. A +90° X rotation swings the foot to
        // +Z (backward: the entity faces −Z), as the rig's Rcw does.
        let mut leg = bone("leg", None, [0.0, 12.0, 0.0]);
        leg.locators.push(("foot".into(), [0.0, 0.0, 0.0]));
        let (mut w, mut l) = (Vec::new(), Vec::new());
        let ch = Channels {
            rot: &[[90.0, 0.0, 0.0]],
            pos: &[[0.0; 3]],
            scale: &[[1.0; 3]],
        };
        forward(&[leg], &[0], &ch, &mut w, &mut l);
        assert_eq!(w[0], [0.0, 12.0, 0.0]);
        assert!(
            (l[0][1] - 12.0).abs() < 1e-4 && (l[0][2] - 12.0).abs() < 1e-4,
            "{:?}",
            l[0]
        );
    }

    #[test]
    fn child_pivot_follows_parent_rotation_and_position() {
        let bones = [
            bone("body", None, [0.0, 10.0, 0.0]),
            bone("head", Some(0), [0.0, 10.0, -8.0]),
        ];
        let (mut w, mut l) = (Vec::new(), Vec::new());
        // Body yaw +90°: Ry(+90) maps (0, 0, −8) to (−8, 0, 0); body raised 2 px.
        let ch = Channels {
            rot: &[[0.0, 90.0, 0.0], [0.0; 3]],
            pos: &[[0.0, 2.0, 0.0], [0.0; 3]],
            scale: &[[1.0; 3], [1.0; 3]],
        };
        forward(&bones, &[0, 1], &ch, &mut w, &mut l);
        assert_eq!(w[0], [0.0, 12.0, 0.0]);
        assert!(
            (w[1][0] + 8.0).abs() < 1e-4 && (w[1][1] - 12.0).abs() < 1e-4 && w[1][2].abs() < 1e-4,
            "{:?}",
            w[1]
        );
    }
}
