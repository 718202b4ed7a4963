//! Forward kinematics over a Bedrock geometry: bone pivots and locators in model space
//! (pixels, +Y up, the entity facing −Z), from bind rotations plus animated channels.
//!
//! Conventions, the same as `ik-gait/src/model.rs` (which the rig's checks validated) and as
//! Blockbench's Bedrock preview:
//! - a bone maps a point p of its bind geometry to
//!   `parent(pivot + position + R · S · (p − pivot))`;
//! - `R = Rz(−z) · Ry(y) · Rx(−x)` in right-handed model coordinates, angles in degrees
//!   (bind rotation + animation, per axis). X turns first, then Y, then Z. A positive X
//!   rotation tips the bone's top towards −Z, clockwise in a side view with forward
//!   (−Z) to the right; this is ik-gait's `Rcw`. Nobody has checked the Z sign in the game.
//! - position moves the pivot by (x, y, z) pixels in the parent's frame; scale multiplies
//!   about the pivot.

use super::model::Bone;

/// Row-major 3×4 affine transform.
type Affine = [[f64; 4]; 3];

const IDENTITY: Affine = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

fn mul(a: &Affine, b: &Affine) -> Affine {
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

fn apply(m: &Affine, p: [f64; 3]) -> [f64; 3] {
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
        let r = rotation([
            b.rotation[0] as f64 + ch.rot[i][0] as f64,
            b.rotation[1] as f64 + ch.rot[i][1] as f64,
            b.rotation[2] as f64 + ch.rot[i][2] as f64,
        ]);
        // local(p) = pivot + pos + R·S·(p − pivot)
        let mut local = [[0.0; 4]; 3];
        for row in 0..3 {
            for c in 0..3 {
                local[row][c] = r[row][c] * s[c];
            }
            let rs_pivot: f64 = (0..3).map(|c| local[row][c] * pivot[c]).sum();
            local[row][3] = pivot[row] + pos[row] - rs_pivot;
        }
        xf[i] = mul(&parent, &local);
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
        let r = rotation([
            b.rotation[0] as f64 + ch.rot[i][0] as f64,
            b.rotation[1] as f64 + ch.rot[i][1] as f64,
            b.rotation[2] as f64 + ch.rot[i][2] as f64,
        ]);
        let mut local = [[0.0; 4]; 3];
        for row in 0..3 {
            for c in 0..3 {
                local[row][c] = r[row][c] * s[c];
            }
            let rs_pivot: f64 = (0..3).map(|c| local[row][c] * pivot[c]).sum();
            local[row][3] = pivot[row] + pos[row] - rs_pivot;
        }
        xf[i] = mul(&parent, &local);
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
