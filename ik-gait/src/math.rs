//! Degree helpers of spec §1.3, in `f32`, and the [`Real`] float trait the reference is generic
//! over (spec §13: `f32` for parity, `f64` for checks 1–12 too).
//!
//! The transcendental calls go through `molang::builtins::math`, the same functions the
//! interpreter and the JIT call, so the reference and the Molang agree to the bit wherever the
//! arithmetic order agrees (check 13 is then about the maths, not about libm differences).
//! [`Real`] for `f32` calls exactly these functions; [`real`] holds the same helpers generic
//! over [`Real`], which is what `reference::step` uses.

use molang::builtins::math as m;

// The §1.3 helpers in `f32` are the generic ones of [`real`] at `T = f32` (the same calls, the
// same arithmetic order).
pub use real::{
    abs, acos_d, asin_d, atan2_d, clamp, cos_d, div_c, drop, exp, floor, frac, hb, lerp, max, min,
    neg, pow, rc, rc_rest, recip, rot_cw, sd_drop, sin_d, sqrt,
};

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

/// The float type the reference runs in: `f32` (Molang's number type, bit-identical to the
/// generated Molang) or `f64` (the same maths with less rounding, for §13's f64 check runs).
///
/// Each method has the Molang builtin's semantics: trig in degrees, `min`/`max` as
/// `(a < b) ? a : b` / `(a > b) ? a : b` (so a NaN in the first argument gives the second),
/// `clamp` as `v > hi ? hi : max(v, lo)`. The `f32` impl calls exactly the functions the free
/// `f32` helpers above call (the `molang_*` builtins); the `f64` impl writes the same
/// definitions in `f64`.
pub trait Real:
    Copy
    + Default
    + std::fmt::Debug
    + PartialEq
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
    + 'static
{
    /// Widens (or keeps) an `f32`: exact in both impls.
    fn from_f32(x: f32) -> Self;
    /// A source literal: `x32` for `f32`, `x64` for `f64`, so each type gets its own correctly
    /// rounded constant (`0.35` is not an `f32` number). Use the `c!` macro of the reference.
    fn lit(x32: f32, x64: f64) -> Self;
    /// Rounds to nearest (`f32`: identity). At most 0.5 ulp of `f32` error.
    fn to_f32(self) -> f32;
    fn to_f64(self) -> f64;
    /// `math.sin`, degrees.
    fn sin_deg(self) -> Self;
    /// `math.cos`, degrees.
    fn cos_deg(self) -> Self;
    /// `math.atan2(self, x)`, degrees.
    fn atan2_deg(self, x: Self) -> Self;
    /// `math.acos`, degrees, with Molang's argument tolerance window (no extra clamp).
    fn acos_deg(self) -> Self;
    /// `math.asin`, degrees, with Molang's argument tolerance window.
    fn asin_deg(self) -> Self;
    /// `math.exp`.
    fn exp(self) -> Self;
    /// `math.pow(self, y)`.
    fn pow(self, y: Self) -> Self;
    /// `math.sqrt`.
    fn sqrt(self) -> Self;
    /// `math.floor`.
    fn floor(self) -> Self;
    /// `math.abs`.
    fn abs(self) -> Self;
    /// `math.max`: `(a > b) ? a : b`.
    fn max(self, b: Self) -> Self;
    /// `math.min`: `(a < b) ? a : b`.
    fn min(self, b: Self) -> Self;
    /// `math.clamp(v, lo, hi)`: `v > hi ? hi : max(v, lo)`.
    fn clamp(self, lo: Self, hi: Self) -> Self;
    /// `math.hermite_blend(t)`: `(3·t)·t − ((t + t)·t)·t`, unclamped.
    fn hermite_blend(self) -> Self;
}

/// One `f32` method per engine builtin, each the engine's own function.
macro_rules! engine_builtins {
    ($($name:ident($($arg:ident),*) => $f:path;)*) => {
        $(
            #[inline]
            fn $name(self $(, $arg: f32)*) -> f32 {
                $f(self $(, $arg)*)
            }
        )*
    };
}

impl Real for f32 {
    #[inline(always)]
    fn from_f32(x: f32) -> f32 {
        x
    }
    #[inline(always)]
    fn lit(x32: f32, _x64: f64) -> f32 {
        x32
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    engine_builtins! {
        sin_deg() => m::molang_sin;
        cos_deg() => m::molang_cos;
        atan2_deg(x) => m::molang_atan2;
        acos_deg() => m::molang_acos;
        asin_deg() => m::molang_asin;
        exp() => m::molang_exp;
        pow(y) => m::molang_pow;
        sqrt() => m::molang_sqrt;
        floor() => m::molang_floor;
        max(b) => m::molang_max;
        min(b) => m::molang_min;
        clamp(lo, hi) => m::molang_clamp;
        hermite_blend() => m::molang_hermite_blend;
    }
}

/// The `f64` definitions of the builtins, written as `molang::builtins::math` writes the
/// `f32` ones but with no `f32` rounding anywhere: the degree factors are `π/180` and `180/π`
/// in `f64` (not the engine's `f32` constants).
impl Real for f64 {
    #[inline(always)]
    fn from_f32(x: f32) -> f64 {
        x as f64
    }
    #[inline(always)]
    fn lit(_x32: f32, x64: f64) -> f64 {
        x64
    }
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn sin_deg(self) -> f64 {
        self.to_radians().sin()
    }
    #[inline]
    fn cos_deg(self) -> f64 {
        self.to_radians().cos()
    }
    #[inline]
    fn atan2_deg(self, x: f64) -> f64 {
        f64::atan2(self, x).to_degrees()
    }
    #[inline]
    fn acos_deg(self) -> f64 {
        inverse_trig_argument_f64(self).acos().to_degrees()
    }
    #[inline]
    fn asin_deg(self) -> f64 {
        inverse_trig_argument_f64(self).asin().to_degrees()
    }
    #[inline]
    fn exp(self) -> f64 {
        f64::exp(self)
    }
    #[inline]
    fn pow(self, y: f64) -> f64 {
        f64::powf(self, y)
    }
    #[inline]
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    #[inline]
    fn floor(self) -> f64 {
        f64::floor(self)
    }
    #[inline(always)]
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    #[inline]
    fn max(self, b: f64) -> f64 {
        if self > b {
            self
        } else {
            b
        }
    }
    #[inline]
    fn min(self, b: f64) -> f64 {
        if self < b {
            self
        } else {
            b
        }
    }
    #[inline]
    fn clamp(self, lo: f64, hi: f64) -> f64 {
        if self > hi {
            hi
        } else {
            Real::max(self, lo)
        }
    }
    #[inline]
    fn hermite_blend(self) -> f64 {
        3.0 * self * self - (self + self) * self * self
    }
}

/// `molang::builtins::math`'s `asin`/`acos` argument guard in `f64`: within the engine's
/// tolerance (|x| ≤ 1.0005) clamp to [-1, 1], otherwise (or NaN) pass through to a NaN result.
fn inverse_trig_argument_f64(x: f64) -> f64 {
    if x.is_nan() || x.abs() > m::INVERSE_TRIG_TOLERANCE as f64 {
        x
    } else if x > 1.0 {
        1.0
    } else {
        Real::max(x, -1.0)
    }
}

/// The §1.3 helpers generic over [`Real`], with the same names, definitions and arithmetic
/// order as the `f32` functions above (for `f32` they compile to the same calls).
pub mod real {
    pub use super::Real;

    #[inline]
    pub fn sin_d<T: Real>(x: T) -> T {
        x.sin_deg()
    }
    #[inline]
    pub fn cos_d<T: Real>(x: T) -> T {
        x.cos_deg()
    }
    #[inline]
    pub fn atan2_d<T: Real>(y: T, x: T) -> T {
        y.atan2_deg(x)
    }
    /// `acos` with the argument clamped to [-1, 1] (spec §12 guard), as generated.
    #[inline]
    pub fn acos_d<T: Real>(x: T) -> T {
        clamp(x, T::from_f32(-1.0), T::from_f32(1.0)).acos_deg()
    }
    #[inline]
    pub fn asin_d<T: Real>(x: T) -> T {
        x.asin_deg()
    }
    #[inline]
    pub fn exp<T: Real>(x: T) -> T {
        Real::exp(x)
    }
    #[inline]
    pub fn pow<T: Real>(x: T, y: T) -> T {
        Real::pow(x, y)
    }
    #[inline]
    pub fn sqrt<T: Real>(x: T) -> T {
        Real::sqrt(x)
    }
    #[inline]
    pub fn floor<T: Real>(x: T) -> T {
        Real::floor(x)
    }
    /// `math.max`: `(a > b) ? a : b`.
    #[inline]
    pub fn max<T: Real>(a: T, b: T) -> T {
        Real::max(a, b)
    }
    #[inline]
    pub fn min<T: Real>(a: T, b: T) -> T {
        Real::min(a, b)
    }
    /// `math.clamp(v, lo, hi)`.
    #[inline]
    pub fn clamp<T: Real>(v: T, lo: T, hi: T) -> T {
        Real::clamp(v, lo, hi)
    }
    #[inline]
    pub fn abs<T: Real>(x: T) -> T {
        Real::abs(x)
    }
    /// `frac(x) = x - floor(x)` (never `math.mod`).
    #[inline]
    pub fn frac<T: Real>(x: T) -> T {
        x - floor(x)
    }
    /// `lerp(a, b, t) = a + (b - a) * t`.
    #[inline]
    pub fn lerp<T: Real>(a: T, b: T, t: T) -> T {
        a + (b - a) * t
    }
    /// `math.hermite_blend` of a clamped argument.
    #[inline]
    pub fn hb<T: Real>(t: T) -> T {
        clamp(t, T::from_f32(0.0), T::from_f32(1.0)).hermite_blend()
    }
    /// `x / c` for a `c` the Molang writes as a constant: the game's compiler makes it
    /// `x · (1/c)`, the reciprocal rounded first (molang's `fold`).
    #[inline]
    pub fn div_c<T: Real>(x: T, c: T) -> T {
        x * recip(c)
    }
    /// The factor a constant divisor becomes in the game's compiler: `1/c`, or 0 below its
    /// guard (|c| < `f32::EPSILON`, or NaN).
    #[inline]
    pub fn recip<T: Real>(c: T) -> T {
        if abs(c) >= T::from_f32(f32::EPSILON) {
            T::from_f32(1.0) / c
        } else {
            T::from_f32(0.0)
        }
    }
    /// `−x` as the game's compiler runs it: `x·(−1) + 0`, so a zero is `+0`.
    #[inline]
    pub fn neg<T: Real>(x: T) -> T {
        x * T::from_f32(-1.0) + T::from_f32(0.0)
    }
    /// Raised-cosine ramp: `0.5 - 0.5 * cos(180 * clamp(x, 0, 1))`.
    #[inline]
    pub fn rc<T: Real>(x: T) -> T {
        let (half, d180) = (T::from_f32(0.5), T::from_f32(180.0));
        half - half * cos_d(d180 * clamp(x, T::from_f32(0.0), T::from_f32(1.0)))
    }
    /// `1 − rc(x)` as the game's compiler folds it: `0.5·cos(180·clamp(x, 0, 1)) + 0.5`, one
    /// rounding of the sum (not `1 − (0.5 − 0.5·cos)`, two).
    #[inline]
    pub fn rc_rest<T: Real>(x: T) -> T {
        let (half, d180) = (T::from_f32(0.5), T::from_f32(180.0));
        cos_d(d180 * clamp(x, T::from_f32(0.0), T::from_f32(1.0))) * half + half
    }
    /// `sd + drop(lp, sd, tau)`, the wrist's height over the floor, as the game's compiler folds
    /// it: the constant terms `+ sd` and `− sd` are added first and cancel.
    #[inline]
    pub fn sd_drop<T: Real>(lp: T, sd: T, tau: T) -> T {
        lp * sin_d(tau) + sd * cos_d(tau)
    }
    /// Toe drop below flat-sole level when the paw folds toes-down by `tau`.
    #[inline]
    pub fn drop<T: Real>(lp: T, sd: T, tau: T) -> T {
        lp * sin_d(tau) + sd * cos_d(tau) - sd
    }
    /// Clockwise rotation by `a` degrees (a positive Bedrock X rotation in the side view).
    #[inline]
    pub fn rot_cw<T: Real>(a: T, x: T, y: T) -> (T, T) {
        let (s, c) = (sin_d(a), cos_d(a));
        (x * c + y * s, -x * s + y * c)
    }
}
