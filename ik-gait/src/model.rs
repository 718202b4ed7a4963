//! The Bedrock geometry of spec §2 (bones, pivots, boxes, the chin locator) and forward
//! kinematics over it from the output angles (§4), never from the IK targets.
//!
//! Side view: f = −z, h = y. A positive Bedrock X rotation is clockwise in that view (§1.2).

use crate::params::RigParams;
use crate::reference::Outputs;
use molang::runtime::fk::{self, Affine};

#[derive(Clone, Debug)]
pub struct Cube {
    pub origin: [f32; 3],
    pub size: [f32; 3],
}

#[derive(Clone, Debug)]
pub struct Bone {
    pub name: String,
    pub parent: Option<String>,
    pub pivot: [f32; 3],
    pub cubes: Vec<Cube>,
    pub locators: Vec<(String, [f32; 3])>,
}

#[derive(Clone, Debug)]
pub struct Geometry {
    pub bones: Vec<Bone>,
    /// Per leg, its bones' indices in `bones`, root first (so that FK does not look them up
    /// by name every frame).
    leg_bones: [Vec<usize>; 4],
}

fn cube(x0: f32, x1: f32, y0: f32, y1: f32, f0: f32, f1: f32) -> Cube {
    // f range → z range (z = −f).
    Cube {
        origin: [x0, y0, -f1],
        size: [x1 - x0, y1 - y0, f1 - f0],
    }
}

impl Geometry {
    pub fn doggoyle(p: &RigParams) -> Geometry {
        let mut bones = Vec::new();
        let h0 = p.h0;
        let bone = |name: &str, parent: Option<&str>, pivot: [f32; 3], cubes: Vec<Cube>| Bone {
            name: name.to_string(),
            parent: parent.map(str::to_string),
            pivot,
            cubes,
            locators: Vec::new(),
        };
        bones.push(bone(
            "body",
            None,
            [0.0, h0, 0.0],
            vec![cube(-4.5, 4.5, h0 - 3.5, h0 + 4.0, -12.0, 12.0)],
        ));
        let neck = [0.0, h0 + p.neck[1], -p.neck[0]];
        bones.push(bone(
            "neck",
            Some("body"),
            neck,
            vec![cube(-2.5, 2.5, neck[1] - 2.0, neck[1] + 4.0, 10.0, 16.0)],
        ));
        let head = [0.0, neck[1] + p.head[1], neck[2] - p.head[0]];
        let chin = [0.0, head[1] + p.chin[1], head[2] - p.chin[0]];
        let mut hb = bone(
            "head",
            Some("neck"),
            head,
            vec![
                cube(-3.0, 3.0, chin[1], head[1] + 2.5, 14.0, 20.5),
                cube(-2.0, 2.0, chin[1], chin[1] + 2.5, 20.5, -chin[2]),
            ],
        );
        hb.locators.push(("chin".to_string(), chin));
        bones.push(hb);
        let mut leg_bones: [Vec<usize>; 4] = Default::default();
        for (i, l) in p.legs.iter().enumerate() {
            let x = l.x;
            let f = l.root_f;
            let names: &[&str] = if l.fore {
                &["upper", "fore", "paw"]
            } else {
                &["thigh", "tibia", "meta", "paw"]
            };
            let lens: Vec<f32> = if l.fore {
                vec![l.a, l.b]
            } else {
                vec![l.a, l.b, l.mt]
            };
            let mut y = h0;
            let mut parent = "body".to_string();
            for (j, nm) in names.iter().enumerate() {
                let name = format!("{}_{nm}", l.name);
                let pivot = [x, y, -f];
                let cubes = if j < lens.len() {
                    // Leg segments hang straight down from their pivots (θ_rest = −90°).
                    let w = if j == 0 { 1.75 } else { 1.25 };
                    vec![cube(x - w, x + w, y - lens[j], y, f - w, f + w)]
                } else {
                    // Paw: flat, pointing forward; heel .. toe, sole depth below the pivot.
                    vec![cube(x - 1.5, x + 1.5, y - l.sd, y, f + l.heel, f + l.lp)]
                };
                leg_bones[i].push(bones.len());
                bones.push(bone(&name, Some(&parent), pivot, cubes));
                parent = name;
                if j < lens.len() {
                    y -= lens[j];
                }
            }
        }
        Geometry { bones, leg_bones }
    }

    pub fn bone(&self, name: &str) -> Option<&Bone> {
        self.bones.iter().find(|b| b.name == name)
    }
}

/// Positions in the body's floor frame (f forward from the entity origin, h up; `x` lateral,
/// model +X) from one frame's output angles.
#[derive(Clone, Debug, Default)]
pub struct Pose {
    /// Per leg: toe tip (f, h), the eight paw-box corners (f, h), IK root, IK end (wrist/hock).
    pub toe: [(f64, f64); 4],
    /// Per leg: the toe tip's lateral position (model x).
    pub toe_x: [f64; 4],
    pub paw_corners: [[(f64, f64); 8]; 4],
    pub root: [(f64, f64); 4],
    pub ik_end: [(f64, f64); 4],
    /// 3-D distance from IK root to IK end (the in-plane reach of the solve).
    pub reach: [f64; 4],
    /// World pitch of the upper leg bone (thigh/upper arm), degrees.
    pub upper_pitch: [f64; 4],
    pub chin: (f64, f64),
}

fn v3(p: [f32; 3]) -> [f64; 3] {
    [p[0] as f64, p[1] as f64, p[2] as f64]
}
fn fh(p: [f64; 3]) -> (f64, f64) {
    (-p[2], p[1])
}

/// This transform followed by a child bone about its rest `pivot`: rotation `rot` (degrees,
/// Bedrock's channels) and an offset of the pivot, by the `molang` library's bone transform.
fn child(parent: &Affine, pivot: [f64; 3], rot: [f64; 3], offset: [f64; 3]) -> Affine {
    fk::mul(parent, &fk::local(pivot, offset, rot, [1.0; 3]))
}

/// Forward kinematics from the output angles (3-D: the leg roots also yaw, issue 19), by the
/// `molang` library's bone transform, as `molang run --world` computes the emitted pack.
pub fn forward(geo: &Geometry, p: &RigParams, o: &Outputs) -> Pose {
    let body = geo.bone("body").unwrap();
    let rot_x = |x: f32| [x as f64, 0.0, 0.0];
    let xb = child(
        &fk::IDENTITY,
        v3(body.pivot),
        [o.body_p as f64, 0.0, o.body_roll as f64],
        [0.0, o.body_dy as f64, 0.0],
    );
    let neck = geo.bone("neck").unwrap();
    let xn = child(&xb, v3(neck.pivot), rot_x(o.neck_x), [0.0; 3]);
    let head = geo.bone("head").unwrap();
    let xh = child(&xn, v3(head.pivot), rot_x(o.head_x), [0.0; 3]);
    let mut pose = Pose {
        chin: fh(fk::apply(&xh, v3(head.locators[0].1))),
        ..Pose::default()
    };
    for (i, l) in p.legs.iter().enumerate() {
        let chain = &geo.leg_bones[i];
        let mut x = xb;
        let mut pivots = Vec::new();
        let mut pitch = o.body_p as f64;
        for (j, &bi) in chain.iter().enumerate() {
            let b = &geo.bones[bi];
            let ry = if j == 0 { o.ry[i] as f64 } else { 0.0 };
            x = child(&x, v3(b.pivot), [o.legs[i][j] as f64, ry, 0.0], [0.0; 3]);
            pivots.push(fk::apply(&x, v3(b.pivot)));
            pitch += o.legs[i][j] as f64;
            if j == 0 {
                pose.upper_pitch[i] = pitch;
            }
            if j + 1 == chain.len() {
                let c = &b.cubes[0];
                let (o3, s3) = (v3(c.origin), v3(c.size));
                for k in 0..8 {
                    let q = [
                        o3[0] + if k & 1 != 0 { s3[0] } else { 0.0 },
                        o3[1] + if k & 2 != 0 { s3[1] } else { 0.0 },
                        o3[2] + if k & 4 != 0 { s3[2] } else { 0.0 },
                    ];
                    pose.paw_corners[i][k] = fh(fk::apply(&x, q));
                }
                // Toe tip: bottom-front (−z) corner, on the leg's line.
                let toe = fk::apply(&x, [l.x as f64, o3[1], o3[2]]);
                pose.toe[i] = fh(toe);
                pose.toe_x[i] = toe[0];
            }
        }
        pose.root[i] = fh(pivots[0]);
        // IK end: wrist (paw pivot) for the fore, hock (metatarsus pivot) for the hind.
        pose.ik_end[i] = fh(pivots[2]);
        pose.reach[i] = (0..3)
            .map(|k| (pivots[2][k] - pivots[0][k]).powi(2))
            .sum::<f64>()
            .sqrt();
    }
    pose
}
