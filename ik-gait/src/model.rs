//! The Bedrock geometry of spec §2 (bones, pivots, boxes, the chin locator) and forward
//! kinematics over it from the output angles (§4), never from the IK targets.
//!
//! Side view: f = −z, h = y. A positive Bedrock X rotation is clockwise in that view (§1.2).

use crate::math::f64d::rot_cw;
use crate::params::RigParams;
use crate::reference::Outputs;

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
        for l in &p.legs {
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
                bones.push(bone(&name, Some(&parent), pivot, cubes));
                parent = name;
                if j < lens.len() {
                    y -= lens[j];
                }
            }
        }
        Geometry { bones }
    }

    pub fn bone(&self, name: &str) -> Option<&Bone> {
        self.bones.iter().find(|b| b.name == name)
    }
}

/// 2-D transform: world = Rcw(a)·p + t.
#[derive(Clone, Copy, Debug)]
struct Xf {
    a: f64,
    t: (f64, f64),
}

impl Xf {
    fn apply(&self, p: (f64, f64)) -> (f64, f64) {
        let r = rot_cw(self.a, p.0, p.1);
        (r.0 + self.t.0, r.1 + self.t.1)
    }
    /// This transform followed by a child rotation `x` about rest `pivot` (and an offset).
    fn child(&self, pivot: (f64, f64), x: f64, offset: (f64, f64)) -> Xf {
        // child(p) = self(pivot + offset + Rcw(x)(p − pivot))
        let rp = rot_cw(x, pivot.0, pivot.1);
        let local_t = (pivot.0 + offset.0 - rp.0, pivot.1 + offset.1 - rp.1);
        let tw = rot_cw(self.a, local_t.0, local_t.1);
        Xf {
            a: self.a + x,
            t: (tw.0 + self.t.0, tw.1 + self.t.1),
        }
    }
}

/// World positions (floor frame of the body: f from the entity origin, h up) from one frame.
#[derive(Clone, Debug, Default)]
pub struct Pose {
    /// Per leg: toe tip, all four paw-box corners (side view), IK root, IK end (wrist/hock).
    pub toe: [(f64, f64); 4],
    pub paw_corners: [[(f64, f64); 4]; 4],
    pub root: [(f64, f64); 4],
    pub ik_end: [(f64, f64); 4],
    /// World pitch of the upper leg bone (thigh/upper arm), degrees.
    pub upper_pitch: [f64; 4],
    pub chin: (f64, f64),
}

fn fh(p: [f32; 3]) -> (f64, f64) {
    (-(p[2] as f64), p[1] as f64)
}

/// Forward kinematics from the output angles.
pub fn forward(geo: &Geometry, p: &RigParams, o: &Outputs) -> Pose {
    let body = geo.bone("body").unwrap();
    let root = Xf {
        a: 0.0,
        t: (0.0, 0.0),
    };
    let xb = root.child(fh(body.pivot), o.body_p as f64, (0.0, o.body_dy as f64));
    let neck = geo.bone("neck").unwrap();
    let xn = xb.child(fh(neck.pivot), o.neck_x as f64, (0.0, 0.0));
    let head = geo.bone("head").unwrap();
    let xh = xn.child(fh(head.pivot), o.head_x as f64, (0.0, 0.0));
    let mut pose = Pose {
        chin: xh.apply(fh(head.locators[0].1)),
        ..Pose::default()
    };
    for (i, l) in p.legs.iter().enumerate() {
        let names: &[&str] = if l.fore {
            &["upper", "fore", "paw"]
        } else {
            &["thigh", "tibia", "meta", "paw"]
        };
        let mut x = xb;
        let mut pivots = Vec::new();
        for (j, nm) in names.iter().enumerate() {
            let b = geo.bone(&format!("{}_{nm}", l.name)).unwrap();
            x = x.child(fh(b.pivot), o.legs[i][j] as f64, (0.0, 0.0));
            pivots.push(x.apply(fh(b.pivot)));
            if j == 0 {
                pose.upper_pitch[i] = x.a;
            }
            if j + 1 == names.len() {
                let c = &b.cubes[0];
                let (f0, f1) = (-(c.origin[2] + c.size[2]) as f64, -c.origin[2] as f64);
                let (h0, h1) = (c.origin[1] as f64, (c.origin[1] + c.size[1]) as f64);
                pose.paw_corners[i] = [
                    x.apply((f0, h0)),
                    x.apply((f1, h0)),
                    x.apply((f0, h1)),
                    x.apply((f1, h1)),
                ];
                pose.toe[i] = x.apply((f1, h0));
            }
        }
        pose.root[i] = pivots[0];
        // IK end: wrist (paw pivot) for the fore, hock (metatarsus pivot) for the hind.
        pose.ik_end[i] = pivots[2];
    }
    pose
}
