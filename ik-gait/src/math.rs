//! Degree helpers of spec §1.3, in `f32`.
//!
//! The transcendental calls go through `molang::builtins::math`, the same functions the
//! interpreter and the JIT call, so the reference and the Molang agree to the bit wherever the
//! arithmetic order agrees (check 13 is then about the maths, not about libm differences).

use molang::builtins::math as m;

pub fn sin_d(x: f32) -> f32 {
    m::molang_sin(x)
}
pub fn cos_d(x: f32) -> f32 {
    m::molang_cos(x)
}
pub fn atan2_d(y: f32, x: f32) -> f32 {
    m::molang_atan2(y, x)
}
/// `acos` with the argument clamped to [-1, 1] (spec §12 guard), as generated.
pub fn acos_d(x: f32) -> f32 {
    m::molang_acos(clamp(x, -1.0, 1.0))
}
pub fn asin_d(x: f32) -> f32 {
    m::molang_asin(x)
}
pub fn exp(x: f32) -> f32 {
    m::molang_exp(x)
}
pub fn pow(x: f32, y: f32) -> f32 {
    m::molang_pow(x, y)
}
pub fn sqrt(x: f32) -> f32 {
    m::molang_sqrt(x)
}
pub fn floor(x: f32) -> f32 {
    m::molang_floor(x)
}
/// `math.max`: `(a > b) ? a : b`.
pub fn max(a: f32, b: f32) -> f32 {
    m::molang_max(a, b)
}
pub fn min(a: f32, b: f32) -> f32 {
    m::molang_min(a, b)
}
/// `math.clamp(v, lo, hi)`.
pub fn clamp(v: f32, lo: f32, hi: f32) -> f32 {
    m::molang_clamp(v, lo, hi)
}
pub fn abs(x: f32) -> f32 {
    x.abs()
}
/// `frac(x) = x - floor(x)` (never `math.mod`).
pub fn frac(x: f32) -> f32 {
    x - floor(x)
}
/// `lerp(a, b, t) = a + (b - a) * t`.
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}
/// `math.hermite_blend` of a clamped argument.
pub fn hb(t: f32) -> f32 {
    m::molang_hermite_blend(clamp(t, 0.0, 1.0))
}
/// Raised-cosine ramp: `0.5 - 0.5 * cos(180 * clamp(x, 0, 1))`.
pub fn rc(x: f32) -> f32 {
    0.5 - 0.5 * cos_d(180.0 * clamp(x, 0.0, 1.0))
}
/// Toe drop below flat-sole level when the paw folds toes-down by `tau`.
pub fn drop(lp: f32, sd: f32, tau: f32) -> f32 {
    lp * sin_d(tau) + sd * cos_d(tau) - sd
}
/// Clockwise rotation by `a` degrees (a positive Bedrock X rotation in the side view).
pub fn rot_cw(a: f32, x: f32, y: f32) -> (f32, f32) {
    let (s, c) = (sin_d(a), cos_d(a));
    (x * c + y * s, -x * s + y * c)
}

/// f64 versions for the build-time bisections and the FK.
pub mod f64d {
    pub fn sin_d(x: f64) -> f64 {
        x.to_radians().sin()
    }
    pub fn cos_d(x: f64) -> f64 {
        x.to_radians().cos()
    }
    pub fn atan2_d(y: f64, x: f64) -> f64 {
        y.atan2(x).to_degrees()
    }
    pub fn acos_d(x: f64) -> f64 {
        x.clamp(-1.0, 1.0).acos().to_degrees()
    }
    pub fn rot_cw(a: f64, x: f64, y: f64) -> (f64, f64) {
        let (s, c) = (sin_d(a), cos_d(a));
        (x * c + y * s, -x * s + y * c)
    }
}
