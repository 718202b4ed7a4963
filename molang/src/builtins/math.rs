//! Molang's `math.*` library: the 61 builtins, their names and arities, and an `f32`
//! implementation of each that reproduces the engine's bits (Bedrock's x86-64 build).
//!
//! This is a leaf module: it uses only `std` and its sibling [`super::platform`] (the arm64
//! primitive operations), nothing else from the crate.
//!
//! * [`MathFn`] names every builtin; [`MathFn::ALL`], [`MathFn::name`], [`MathFn::arity`] and
//!   [`MathFn::from_name`] read one table, so the checker, the interpreter and the JIT cannot
//!   drift apart.
//! * Every non-random builtin exists exactly once, as a `pub extern "C" fn molang_<name>` with a
//!   fixed arity. [`eval`] dispatches to those same functions through [`MathFn::native`], which a
//!   JIT also uses to find the symbol and its address.
//! * The four random builtins go through [`eval_random`] with a host-supplied [`MolangRng`].
//!
//! # Numeric rules
//!
//! * Every arithmetic step is one `f32` operation rounded on its own, in the engine's order. Rust
//!   never fuses a multiply and an add behind our back, so the code reads as the engine computes.
//! * The transcendental calls (`sin`, `cos`, `asin`, `acos`, `atan`, `atan2`, `exp`, `ln`, `pow`,
//!   and `2^x` inside the expo and elastic easings) widen the `f32` argument, evaluate in `f64` and
//!   round once. That is the correctly rounded `f32` result unless the exact value lies within
//!   about 2^-29 ulp of a rounding midpoint. The engine calls the platform's `sinf`/`powf`, which
//!   are within 0.56 to 0.82 ulp of correct, so a one-ulp difference is possible in principle.
//!   None has been seen in the conformance data. Everything else (`sqrt`, rounding, `mod`,
//!   comparisons) is exact `f32` arithmetic.
//! * Angles are degrees. The degree/radian factors are the engine's own `f32` constants
//!   ([`DEG_TO_RAD`], [`RAD_TO_DEG`]). The radian-to-degree one is one ulp below the correctly
//!   rounded 180/π.
//! * The sine and elastic easings read the engine's 65,536-entry sine table; see [`table_sin`].
//! * NaN payloads and signs: the arithmetic operators and the builtins whose arm64 body is its
//!   own (see the table) choose their NaN as each platform's hardware does; other builtins return
//!   a NaN where the engine does, possibly with other bits.
//!
//! # NaN, per platform
//!
//! The engine does not treat NaN uniformly: each function does what its C++ is written to do,
//! and the compiled code differs between the game's two CPU families
//! ([`Platform`]), so the result depends on the operand order, on
//! which test comes first and on the platform. `N` is any NaN. Sources: P = molang-go
//! `parity_test.go` rows pinned against Bedrock 1.26.50.24, G = molang-go grouping rows, S = the
//! spec's preface (engine-measured summary), X = molangx's x86-64 model of the engine's code
//! (`numeric/arch/x86_64.rs`, `stdlib/math/arch/x86_64`), A = molangx's arm64 model
//! (`numeric/arch/arm64.rs`, `stdlib/math/arch/arm64`, commit ffa4a42), I = follows from the
//! formula as written here. `tests/edge_semantics.rs` checks every row on both back ends and
//! both platforms.
//!
//! | operation | written as | x86-64 | arm64 | source |
//! |---|---|---|---|---|
//! | truth (`?:`, `!`, `&&`, `\|\|`) | `x != 0` | NaN is true: `N ? 1 : 2` = 1, `!N` = 0 | same | P |
//! | `<` `<=` | ordered compare; arm64 `!(a >= b)`, `!(a > b)` | 0 whichever side is NaN | 1 whichever side is NaN | G (`N < 1` = 0), A |
//! | `>` `>=` | ordered compare | 0 | 0 | G, A |
//! | `==` / `!=` | f32 equality | `N == N` = 0, `N != x` = 1 | same | G |
//! | `+ − · /` NaN operand | hardware | the NaN quietened, the left of two | a signalling NaN first, else the left; quietened | X, A |
//! | invalid (`∞ − ∞`, `0·∞`, `0/0`, `sqrt(−1)`) | hardware | `0xffc00000` | `0x7fc00000` | X, A |
//! | `a / b` | guard `\|b\| < 2^-23 ? 0 : a / b` | `1 / N` = N (the guard is false), `N / 0` = 0 | `1 / N` = 0 (the guard fires) | S, A |
//! | `max(a, b)` | x86 `a > b ? a : b`; arm64 `fmaxnm` | `max(N, 4)` = 4, `max(4, N)` = N | a NaN is ignored: both 4; of two NaNs the second | P, S, A |
//! | `min(a, b)` | x86 `a < b ? a : b`; arm64 `fminnm` | `min(N, 4)` = 4, `min(4, N)` = N | both 4 | P, S, A |
//! | `clamp(v, lo, hi)` | `v > hi ? hi : max(v, lo)` | `clamp(N, 0, 1)` = 0, `clamp(.5, N, 1)` = N, `clamp(.5, 0, N)` = .5 | `clamp(4, N, 5)` = 4, `clamp(.5, N, 1)` = .5 | S, X, A |
//! | `acos` / `asin` | clamp `\|x\| <= 1.0005` to [-1, 1] with `max(x, −1)`, else pass through | N | N reads as −1: 180, −90 | S, X, A |
//! | `sign(x)` | `x < 0 ? -1 : 1` | 1 | −1 | X, A |
//! | `sqrt(x)` | `sqrtss` / `fsqrt` | `sqrt(−1)` = `0xffc00000` | `0x7fc00000` | X, A |
//! | `ln(x)` | C `logf` | N (sign not modelled) | `ln(−1)` = `0xffc00000` | A |
//! | `lerp(a, b, t)` | x86 `(b − a)·t + a`; arm64 `t·(b − a) + a` rounded once | N | N | X, A |
//! | `hermite_blend(t)` | x86 `3t·t − 2t·t·t`; arm64 `(3 − 2t)·(t·t)` | N | N | X, A |
//! | `copy_sign(a, b)` | `copysignf` | `copy_sign(N, 1)` = N; `copy_sign(2, N)` = ±2 by N's sign bit | same (so `copy_sign(2, sqrt(−1))` is −2 on x86-64, 2 on arm64) | X, A |
//! | `mod(a, b)` | `b == 0 ? 0 : fmodf(a, b) + 0` | N in either place | same | X |
//! | `pow(a, b)` | C `powf` | `pow(N, 0)` = 1, `pow(1, N)` = 1, otherwise N | same | X |
//! | sine easings (`t`) | table index `trunc(t·k)` | a NaN index is `i32::MIN`, entry 0: a number | the index saturates, NaN is 0: entry 0 | X, A |
//! | quad/cubic/quart/quint/back easings, `ease_out_bounce` | arm64: products fused (molangx `arch/arm64/ease.rs`) | N | N (another last bit on numbers: arm64-measured vectors #810, #852, #900, #936) | X, A |
//! | sine, expo, circ, elastic easings | arm64: products fused, the table cosine's index one multiply-add, the elastic phase constants of molangx `arch/arm64/ease.rs`, `in`/`out_elastic` give `end` at `t = 1` | N | N (another last bit on numbers; no arm64 measurement pins them) | A |
//! | `ease_in_bounce`, `ease_in_out_bounce`, `lerprotate`, `inverse_lerp`, `min_angle`, rounding, `exp`, trig | arithmetic | N | N (arm64 runs the x86-64 body for these easings: not modelled) | I |
//! | `random(a, b)` | x86 `lo = b < a ? b : a`, `hi = a > b ? a : b`, `hi·r + (1 − r)·lo`; arm64 `min`/`max`, `lo + r·(hi − lo)` rounded once | N in either bound | `random(N, 5)` = 5 | X, A |
//! | `random_integer(a, b)` | sorted as `random`, `floor(…)`, then `v > hi ? hi : max(v, lo)` | `(N, 1)` = N, `(1, N)` = 1 | both 1 | X, A |
//! | `die_roll*(n, a, b)` | `n` truncated; bounds floored and sorted | `n` = N gives 0 rolls, `n ≥ 2^31` 0 rolls; a NaN bound as `random` / `random_integer` | `n` = N 0 rolls, `n ≥ 2^31` saturates; a NaN bound dropped | X, A |
//!
//! The computed queries (`query.all`, `in_range`, ...) have their NaN rules in
//! [`crate::builtins::queries`].

use super::platform::arm64 as a64;
pub use super::platform::Platform;

/// `math.pi`: π rounded to `f32` (3.14159274).
pub const PI: f32 = f32::from_bits(0x4049_0fdb);

/// The engine's degrees → radians factor for `math.sin`/`math.cos` (≈ 0.017453292).
pub const DEG_TO_RAD: f32 = f32::from_bits(0x3c8e_fa35);

/// The engine's radians → degrees factor for `asin`, `acos`, `atan` and `atan2`: 57.2957764, one
/// ulp below the correctly rounded 57.2957802.
pub const RAD_TO_DEG: f32 = f32::from_bits(0x4265_2ee0);

/// `asin`/`acos` clamp an argument with `|x| <= 1.0005` (this constant) to `[-1, 1]`. Beyond it
/// the argument passes through and the result is NaN.
pub const INVERSE_TRIG_TOLERANCE: f32 = f32::from_bits(0x3f80_1062);

/// 65536 / 2π in `f32` (10430.378): the sine table is both built and indexed with this factor.
pub const SIN_INDEX_SCALE: f32 = f32::from_bits(0x4622_f983);

/// π/2 in `f32`, the constant the sine easings multiply `t` by.
const HALF_PI: f32 = f32::from_bits(0x3fc9_0fdb);

/// 2π in `f32`, used by the elastic angle.
const TWO_PI: f32 = f32::from_bits(0x40c9_0fdb);

/// The elastic curves' shift 0.075 and period 0.3 (Penner's `s = p/4` with `p = 0.3`).
const ELASTIC_SHIFT: f32 = 0.075;
const ELASTIC_PERIOD: f32 = 0.3;

/// The bounce curve's `n1 = 7.5625`, its thresholds `1/2.75`, `2/2.75`, `2.5/2.75` and its
/// centres `1.5/2.75`, `2.25/2.75`, `2.625/2.75`, each rounded to `f32` once.
const BOUNCE_N1: f32 = 7.5625;
const BOUNCE_T1: f32 = f32::from_bits(0x3eba_2e8c);
const BOUNCE_T2: f32 = f32::from_bits(0x3f3a_2e8c);
const BOUNCE_T3: f32 = f32::from_bits(0x3f68_ba2f);
const BOUNCE_C2: f32 = f32::from_bits(0x3f0b_a2e9);
const BOUNCE_C3: f32 = f32::from_bits(0x3f51_745d);
const BOUNCE_C4: f32 = f32::from_bits(0x3f74_5d17);

/// The back curves' `c1 = 1.70158`, `c3 = c1 + 1`, `c2 = c1 · 1.525` and `c2 + 1`.
const BACK_C1: f32 = f32::from_bits(0x3fd9_cd60);
const BACK_C3: f32 = f32::from_bits(0x402c_e6b0);
const BACK_C2: f32 = f32::from_bits(0x4026_12ff);
const BACK_C2_PLUS_1: f32 = f32::from_bits(0x4066_12ff);

// ---------------------------------------------------------------------------------------------
// The table of builtins
// ---------------------------------------------------------------------------------------------

/// A native builtin with its fixed arity, as a C-ABI function pointer.
///
/// [`eval`] calls through these, and a JIT can register [`NativeFn::addr`] under
/// [`MathFn::symbol`], so both back ends run the same machine code.
#[derive(Clone, Copy, Debug)]
pub enum NativeFn {
    /// A constant (`math.pi`).
    A0(extern "C" fn() -> f32),
    /// One argument.
    A1(extern "C" fn(f32) -> f32),
    /// Two arguments.
    A2(extern "C" fn(f32, f32) -> f32),
    /// Three arguments.
    A3(extern "C" fn(f32, f32, f32) -> f32),
}

impl NativeFn {
    /// The number of `f32` parameters.
    pub fn arity(self) -> usize {
        match self {
            NativeFn::A0(_) => 0,
            NativeFn::A1(_) => 1,
            NativeFn::A2(_) => 2,
            NativeFn::A3(_) => 3,
        }
    }

    /// Calls the function on the first [`arity`](Self::arity) values of `args`.
    #[inline]
    pub fn call(self, args: &[f32]) -> f32 {
        match self {
            NativeFn::A0(g) => g(),
            NativeFn::A1(g) => g(args[0]),
            NativeFn::A2(g) => g(args[0], args[1]),
            NativeFn::A3(g) => g(args[0], args[1], args[2]),
        }
    }

    /// The code address, for a JIT's symbol table.
    pub fn addr(self) -> *const u8 {
        match self {
            NativeFn::A0(f) => f as *const u8,
            NativeFn::A1(f) => f as *const u8,
            NativeFn::A2(f) => f as *const u8,
            NativeFn::A3(f) => f as *const u8,
        }
    }
}

struct Row {
    name: &'static str,
    /// What it returns, its arguments and its NaN rule (the variant's doc comment).
    doc: &'static str,
    symbol: &'static str,
    arity: usize,
    native: Option<NativeFn>,
    lowering: Lowering,
    cost: Cost,
}

/// How a JIT emits a builtin. The row decides; the JIT only spells it out in its own
/// instructions. The inline forms follow their `extern "C"` twin operation for operation (same
/// rounding steps, same comparison and select on NaN), so the bits agree; only builtins whose
/// NaN result cannot depend on operand order qualify (the compiler may commute an `a + b` in
/// the Rust twin, and with two NaN operands x86 keeps the first one's payload: that is why
/// `lerp` stays a call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowering {
    /// A call to the row's native function (calls on the same values are shared).
    Call,
    /// `fabs`.
    Abs,
    /// `sqrt` (correctly rounded, as `f32::sqrt`).
    Sqrt,
    /// `a > b ? a : b`, as `max_raw`.
    Max,
    /// `a < b ? a : b`, as `min_raw`.
    Min,
    /// `v > hi ? hi : max_raw(v, lo)`.
    Clamp,
    /// `3.0 * t * t - (t + t) * t * t`, left to right.
    HermiteBlend,
    /// A call, except with a literal exponent 2: the exact square rounded once, which is what
    /// `x * x` computes (same bits, NaN, infinities and -0 included).
    PowSquare,
    /// A draw from the host's generator.
    Random,
}

/// What a builtin spends of a run's iteration budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    Free,
    /// One iteration per roll: [`die_roll_count`] of the first argument.
    PerRoll,
}

/// Declares [`MathFn`], [`MathFn::ALL`] and the row table from one list, so that no second list
/// can disagree with the first.
macro_rules! math_fns {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident => $name:literal, $arity:literal, $native:expr, $lowering:expr, $cost:expr;
    )*) => {
        /// Every `math.*` builtin: 31 classic ones (including `pi`) and the 30 `ease_*` ones.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum MathFn {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl MathFn {
            /// All 61 builtins, in declaration order (`f as usize` is the index).
            pub const ALL: [MathFn; 61] = [ $( MathFn::$variant, )* ];
        }

        const TABLE: [Row; 61] = [ $(
            Row {
                name: $name,
                doc: concat!($($doc),*),
                symbol: concat!("molang_", $name),
                arity: $arity,
                native: $native,
                lowering: $lowering,
                cost: $cost,
            },
        )* ];
    };
}

math_fns! {
    /// `math.abs(x)`: the absolute value of `x`. A NaN stays NaN.
    Abs => "abs", 1, Some(NativeFn::A1(molang_abs)), Lowering::Abs, Cost::Free;
    /// `math.acos(x)`: the arc cosine of `x`, in degrees (0 to 180). `x` within 1.0005 of [-1, 1] is clamped into it first; further out the result is NaN. A NaN reads as -1 (180) on arm64 and stays NaN on x86-64.
    Acos => "acos", 1, Some(NativeFn::A1(molang_acos)), Lowering::Call, Cost::Free;
    /// `math.asin(x)`: the arc sine of `x`, in degrees (-90 to 90). `x` within 1.0005 of [-1, 1] is clamped into it first; further out the result is NaN. A NaN reads as -1 (-90) on arm64 and stays NaN on x86-64.
    Asin => "asin", 1, Some(NativeFn::A1(molang_asin)), Lowering::Call, Cost::Free;
    /// `math.atan(x)`: the arc tangent of `x`, in degrees (-90 to 90).
    Atan => "atan", 1, Some(NativeFn::A1(molang_atan)), Lowering::Call, Cost::Free;
    /// `math.atan2(y, x)`: the angle of the point (x, y), in degrees (-180 to 180); `y` comes first.
    Atan2 => "atan2", 2, Some(NativeFn::A2(molang_atan2)), Lowering::Call, Cost::Free;
    /// `math.ceil(x)`: `x` rounded up to a whole number.
    Ceil => "ceil", 1, Some(NativeFn::A1(molang_ceil)), Lowering::Call, Cost::Free;
    /// `math.clamp(v, lo, hi)`: `v` held between `lo` and `hi` (computed `v > hi ? hi : max(v, lo)`, so `lo > hi` gives `hi`). NaN: x86-64 `clamp(NaN, 0, 1)` = 0 and a NaN `lo` gives NaN; arm64 ignores a NaN bound.
    Clamp => "clamp", 3, Some(NativeFn::A3(molang_clamp)), Lowering::Clamp, Cost::Free;
    /// `math.copy_sign(a, b)`: the magnitude of `a` with the sign of `b`.
    CopySign => "copy_sign", 2, Some(NativeFn::A2(molang_copy_sign)), Lowering::Call, Cost::Free;
    /// `math.cos(x)`: the cosine of `x` degrees (not radians).
    Cos => "cos", 1, Some(NativeFn::A1(molang_cos)), Lowering::Call, Cost::Free;
    /// `math.die_roll(n, lo, hi)`: the sum of `n` random numbers each between `lo` and `hi` (random; each roll counts against the expression's loop budget).
    DieRoll => "die_roll", 3, None, Lowering::Random, Cost::PerRoll;
    /// `math.die_roll_integer(n, lo, hi)`: the sum of `n` random whole numbers each from `lo` to `hi` inclusive (random).
    DieRollInteger => "die_roll_integer", 3, None, Lowering::Random, Cost::PerRoll;
    /// `math.exp(x)`: e raised to `x`.
    Exp => "exp", 1, Some(NativeFn::A1(molang_exp)), Lowering::Call, Cost::Free;
    /// `math.floor(x)`: `x` rounded down to a whole number.
    Floor => "floor", 1, Some(NativeFn::A1(molang_floor)), Lowering::Call, Cost::Free;
    /// `math.hermite_blend(t)`: `3t² - 2t³`, a smooth step from 0 to 1 for `t` in [0, 1].
    HermiteBlend => "hermite_blend", 1, Some(NativeFn::A1(molang_hermite_blend)), Lowering::HermiteBlend, Cost::Free;
    /// `math.inverse_lerp(a, b, v)`: where `v` lies from `a` (0) to `b` (1), not clamped; `a == b` gives 0. Since 1.21.120.
    InverseLerp => "inverse_lerp", 3, Some(NativeFn::A3(molang_inverse_lerp)), Lowering::Call, Cost::Free;
    /// `math.lerp(a, b, t)`: `a + (b - a) * t`, `t` not clamped. arm64 rounds the multiply-add once, so the last bit may differ from x86-64.
    Lerp => "lerp", 3, Some(NativeFn::A3(molang_lerp)), Lowering::Call, Cost::Free;
    /// `math.lerprotate(a, b, t)`: from angle `a` to angle `b` (degrees) by `t`, along the shorter way round.
    LerpRotate => "lerprotate", 3, Some(NativeFn::A3(molang_lerprotate)), Lowering::Call, Cost::Free;
    /// `math.ln(x)`: the natural logarithm of `x` (`ln(0)` is -inf, a negative `x` NaN).
    Ln => "ln", 1, Some(NativeFn::A1(molang_ln)), Lowering::Call, Cost::Free;
    /// `math.max(a, b)`: the larger of `a` and `b`. NaN: x86-64 returns the second operand when either is NaN (`max(NaN, 4)` = 4, `max(4, NaN)` = NaN); arm64 ignores a NaN operand.
    Max => "max", 2, Some(NativeFn::A2(molang_max)), Lowering::Max, Cost::Free;
    /// `math.min(a, b)`: the smaller of `a` and `b`. NaN: x86-64 returns the second operand when either is NaN; arm64 ignores a NaN operand.
    Min => "min", 2, Some(NativeFn::A2(molang_min)), Lowering::Min, Cost::Free;
    /// `math.min_angle(x)`: the angle `x` (degrees) brought into [-180, 180).
    MinAngle => "min_angle", 1, Some(NativeFn::A1(molang_min_angle)), Lowering::Call, Cost::Free;
    /// `math.mod(a, b)`: the remainder of `a / b`, with the sign of `a` (C `fmod`).
    Mod => "mod", 2, Some(NativeFn::A2(molang_mod)), Lowering::Call, Cost::Free;
    /// `math.pi`: π as an f32 (3.14159274), used without parentheses.
    Pi => "pi", 0, Some(NativeFn::A0(molang_pi)), Lowering::Call, Cost::Free;
    /// `math.pow(base, exponent)`: `base` raised to `exponent` (a negative base with a fractional exponent gives NaN).
    Pow => "pow", 2, Some(NativeFn::A2(molang_pow)), Lowering::PowSquare, Cost::Free;
    /// `math.random(lo, hi)`: a random number between `lo` and `hi` (random; a new one at each call).
    Random => "random", 2, None, Lowering::Random, Cost::Free;
    /// `math.random_integer(lo, hi)`: a random whole number from `lo` to `hi` inclusive (random).
    RandomInteger => "random_integer", 2, None, Lowering::Random, Cost::Free;
    /// `math.round(x)`: `x` rounded to the nearest whole number, halves away from zero.
    Round => "round", 1, Some(NativeFn::A1(molang_round)), Lowering::Call, Cost::Free;
    /// `math.sign(x)`: -1 for a negative `x`, 1 otherwise (0 gives 1). A NaN gives 1 on x86-64 and -1 on arm64.
    Sign => "sign", 1, Some(NativeFn::A1(molang_sign)), Lowering::Call, Cost::Free;
    /// `math.sin(x)`: the sine of `x` degrees (not radians).
    Sin => "sin", 1, Some(NativeFn::A1(molang_sin)), Lowering::Call, Cost::Free;
    /// `math.sqrt(x)`: the square root of `x`; a negative `x` gives NaN.
    Sqrt => "sqrt", 1, Some(NativeFn::A1(molang_sqrt)), Lowering::Sqrt, Cost::Free;
    /// `math.trunc(x)`: `x` rounded toward zero to a whole number.
    Trunc => "trunc", 1, Some(NativeFn::A1(molang_trunc)), Lowering::Call, Cost::Free;
    /// `math.ease_in_quad(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in quad easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInQuad => "ease_in_quad", 3, Some(NativeFn::A3(molang_ease_in_quad)), Lowering::Call, Cost::Free;
    /// `math.ease_out_quad(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out quad easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutQuad => "ease_out_quad", 3, Some(NativeFn::A3(molang_ease_out_quad)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_quad(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out quad easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutQuad => "ease_in_out_quad", 3, Some(NativeFn::A3(molang_ease_in_out_quad)), Lowering::Call, Cost::Free;
    /// `math.ease_in_cubic(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in cubic easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInCubic => "ease_in_cubic", 3, Some(NativeFn::A3(molang_ease_in_cubic)), Lowering::Call, Cost::Free;
    /// `math.ease_out_cubic(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out cubic easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutCubic => "ease_out_cubic", 3, Some(NativeFn::A3(molang_ease_out_cubic)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_cubic(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out cubic easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutCubic => "ease_in_out_cubic", 3, Some(NativeFn::A3(molang_ease_in_out_cubic)), Lowering::Call, Cost::Free;
    /// `math.ease_in_quart(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in quart easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInQuart => "ease_in_quart", 3, Some(NativeFn::A3(molang_ease_in_quart)), Lowering::Call, Cost::Free;
    /// `math.ease_out_quart(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out quart easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutQuart => "ease_out_quart", 3, Some(NativeFn::A3(molang_ease_out_quart)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_quart(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out quart easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutQuart => "ease_in_out_quart", 3, Some(NativeFn::A3(molang_ease_in_out_quart)), Lowering::Call, Cost::Free;
    /// `math.ease_in_quint(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in quint easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInQuint => "ease_in_quint", 3, Some(NativeFn::A3(molang_ease_in_quint)), Lowering::Call, Cost::Free;
    /// `math.ease_out_quint(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out quint easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutQuint => "ease_out_quint", 3, Some(NativeFn::A3(molang_ease_out_quint)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_quint(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out quint easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutQuint => "ease_in_out_quint", 3, Some(NativeFn::A3(molang_ease_in_out_quint)), Lowering::Call, Cost::Free;
    /// `math.ease_in_sine(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in sine easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInSine => "ease_in_sine", 3, Some(NativeFn::A3(molang_ease_in_sine)), Lowering::Call, Cost::Free;
    /// `math.ease_out_sine(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out sine easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutSine => "ease_out_sine", 3, Some(NativeFn::A3(molang_ease_out_sine)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_sine(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out sine easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutSine => "ease_in_out_sine", 3, Some(NativeFn::A3(molang_ease_in_out_sine)), Lowering::Call, Cost::Free;
    /// `math.ease_in_expo(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in expo easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInExpo => "ease_in_expo", 3, Some(NativeFn::A3(molang_ease_in_expo)), Lowering::Call, Cost::Free;
    /// `math.ease_out_expo(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out expo easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutExpo => "ease_out_expo", 3, Some(NativeFn::A3(molang_ease_out_expo)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_expo(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out expo easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutExpo => "ease_in_out_expo", 3, Some(NativeFn::A3(molang_ease_in_out_expo)), Lowering::Call, Cost::Free;
    /// `math.ease_in_circ(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in circ easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInCirc => "ease_in_circ", 3, Some(NativeFn::A3(molang_ease_in_circ)), Lowering::Call, Cost::Free;
    /// `math.ease_out_circ(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out circ easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutCirc => "ease_out_circ", 3, Some(NativeFn::A3(molang_ease_out_circ)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_circ(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out circ easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutCirc => "ease_in_out_circ", 3, Some(NativeFn::A3(molang_ease_in_out_circ)), Lowering::Call, Cost::Free;
    /// `math.ease_in_back(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in back easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInBack => "ease_in_back", 3, Some(NativeFn::A3(molang_ease_in_back)), Lowering::Call, Cost::Free;
    /// `math.ease_out_back(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out back easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutBack => "ease_out_back", 3, Some(NativeFn::A3(molang_ease_out_back)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_back(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out back easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutBack => "ease_in_out_back", 3, Some(NativeFn::A3(molang_ease_in_out_back)), Lowering::Call, Cost::Free;
    /// `math.ease_in_elastic(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in elastic easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInElastic => "ease_in_elastic", 3, Some(NativeFn::A3(molang_ease_in_elastic)), Lowering::Call, Cost::Free;
    /// `math.ease_out_elastic(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out elastic easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutElastic => "ease_out_elastic", 3, Some(NativeFn::A3(molang_ease_out_elastic)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_elastic(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out elastic easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutElastic => "ease_in_out_elastic", 3, Some(NativeFn::A3(molang_ease_in_out_elastic)), Lowering::Call, Cost::Free;
    /// `math.ease_in_bounce(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in bounce easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInBounce => "ease_in_bounce", 3, Some(NativeFn::A3(molang_ease_in_bounce)), Lowering::Call, Cost::Free;
    /// `math.ease_out_bounce(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the out bounce easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseOutBounce => "ease_out_bounce", 3, Some(NativeFn::A3(molang_ease_out_bounce)), Lowering::Call, Cost::Free;
    /// `math.ease_in_out_bounce(start, end, t)`: from `start` to `end` as `t` goes from 0 to 1, with the in out bounce easing curve (`start + (end - start) * E(t)`). Since 1.21.120.
    EaseInOutBounce => "ease_in_out_bounce", 3, Some(NativeFn::A3(molang_ease_in_out_bounce)), Lowering::Call, Cost::Free;
}

impl MathFn {
    fn row(self) -> &'static Row {
        &TABLE[self as usize]
    }

    /// The name without `math.`, e.g. `"max"` or `"ease_in_out_back"`.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// What the builtin returns, its arguments and what it does with a NaN, in Markdown
    /// (shown by editors on hover and in completion).
    pub fn doc(self) -> &'static str {
        self.row().doc.trim()
    }

    /// The exact number of arguments (the engine accepts no other count); `pi` is 0.
    pub fn arity(self) -> usize {
        self.row().arity
    }

    /// The builtin called `name` (without `math.`, already lowercased), if there is one.
    pub fn from_name(lowercase_name: &str) -> Option<MathFn> {
        TABLE
            .iter()
            .position(|row| row.name == lowercase_name)
            .map(|i| MathFn::ALL[i])
    }

    /// Whether the builtin draws from the RNG (`random`, `random_integer`, `die_roll`,
    /// `die_roll_integer`).
    pub fn is_random(self) -> bool {
        self.row().native.is_none()
    }

    /// How a JIT emits it.
    pub fn lowering(self) -> Lowering {
        self.row().lowering
    }

    /// Iterations a call with first argument `first` spends of the budget, if any.
    pub fn budget_cost(self, first: f32) -> Option<u64> {
        match self.row().cost {
            Cost::Free => None,
            Cost::PerRoll => Some(die_roll_count(first) as u64),
        }
    }

    /// The `extern "C"` implementation, or `None` for the random builtins.
    pub fn native(self) -> Option<NativeFn> {
        self.row().native
    }

    /// The Rust name of the implementation, e.g. `"molang_hermite_blend"`. The random builtins
    /// have a name here too but no function yet.
    pub fn symbol(self) -> &'static str {
        self.row().symbol
    }
}

/// Evaluates a non-random builtin. `args.len()` must equal `f.arity()`.
///
/// A random builtin is a caller bug (debug builds panic); release builds return NaN.
pub fn eval(f: MathFn, args: &[f32]) -> f32 {
    debug_assert_eq!(args.len(), f.arity(), "math.{} arity", f.name());
    match f.native() {
        Some(native) => native.call(args),
        None => {
            debug_assert!(false, "math.{} needs eval_random", f.name());
            f32::NAN
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

/// `(a > b) ? a : b`, the engine's `max`: a NaN `a` loses and a NaN `b` wins, and of two equal
/// zeros the second is returned.
#[inline]
fn max_raw(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// `(a < b) ? a : b`, the engine's `min`, with the same NaN rule as [`max_raw`].
#[inline]
fn min_raw(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// Truncating float-to-int as x86-64's `cvttss2si` does it: NaN and anything outside the `i32`
/// range give `i32::MIN`. (Rust's `as` saturates instead, which would read other table entries.)
#[inline]
fn to_int(v: f32) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&v) {
        v as i32
    } else {
        i32::MIN
    }
}

/// Radians to degrees with the engine's factor, after the radian result was rounded to `f32`.
#[inline]
fn degrees(radians: f32) -> f32 {
    radians * RAD_TO_DEG
}

/// `asin`/`acos` argument guard: inside the tolerance window the argument is clamped to
/// `[-1, 1]`; outside it (or NaN) it passes through and the call yields NaN.
#[inline]
fn inverse_trig_argument(x: f32) -> f32 {
    if x.is_nan() || x.abs() > INVERSE_TRIG_TOLERANCE {
        x
    } else if x > 1.0 {
        1.0
    } else {
        max_raw(x, -1.0)
    }
}

/// `2^x` for the easings, correctly rounded (exact for the integer exponents the curves reach
/// at their key points).
#[inline]
fn exp2(x: f32) -> f32 {
    f64::from(x).exp2() as f32
}

/// Wraps degrees into `[-180, 180)`: `((x + 180) mod 360)`, moved up by 360 if negative, minus
/// 180. The `+ 180` is its own rounding, which matters far from zero.
#[inline]
fn wrap_angle(x: f32) -> f32 {
    let r = (x + 180.0) % 360.0;
    let r = if r < 0.0 { r + 360.0 } else { r };
    r - 180.0
}

/// Entry `index mod 65536` of the engine's sine table: `sin(i / SIN_INDEX_SCALE)` with the
/// division in `f32`.
///
/// The engine fills a 65,536-entry table at start-up this way. Each entry is a pure function of
/// its index, so it is computed on demand here rather than stored.
#[inline]
pub fn sin_table_entry(index: i32) -> f32 {
    let angle = (index & 0xffff) as f32 / SIN_INDEX_SCALE;
    f64::from(angle).sin() as f32
}

/// The table sine of the sine and elastic easings: entry `trunc(radians · SIN_INDEX_SCALE)`,
/// masked to 16 bits, with no interpolation. A NaN or huge angle reads entry 0.
#[inline]
pub fn table_sin(radians: f32) -> f32 {
    sin_table_entry(to_int(radians * SIN_INDEX_SCALE))
}

/// The table cosine: the same table a quarter turn (16384 entries) further on. The scale
/// multiply and the `+ 16384` are rounded separately before truncation.
#[inline]
pub fn table_cos(radians: f32) -> f32 {
    sin_table_entry(to_int(radians * SIN_INDEX_SCALE + 16384.0))
}

// ---------------------------------------------------------------------------------------------
// The classic builtins
// ---------------------------------------------------------------------------------------------

/// `math.abs(x)`: clears the sign bit (`abs(-0) = +0`).
pub extern "C" fn molang_abs(x: f32) -> f32 {
    x.abs()
}

/// `math.acos(x)` in degrees; `x` within [`INVERSE_TRIG_TOLERANCE`] of `[-1, 1]` is clamped.
pub extern "C" fn molang_acos(x: f32) -> f32 {
    degrees(f64::from(inverse_trig_argument(x)).acos() as f32)
}

/// `math.asin(x)` in degrees; `x` within [`INVERSE_TRIG_TOLERANCE`] of `[-1, 1]` is clamped.
pub extern "C" fn molang_asin(x: f32) -> f32 {
    degrees(f64::from(inverse_trig_argument(x)).asin() as f32)
}

/// `math.atan(x)` in degrees.
pub extern "C" fn molang_atan(x: f32) -> f32 {
    degrees(f64::from(x).atan() as f32)
}

/// `math.atan2(y, x)` in degrees, `y` first; `atan2(0, 0) = 0`.
pub extern "C" fn molang_atan2(y: f32, x: f32) -> f32 {
    degrees(f64::from(y).atan2(f64::from(x)) as f32)
}

/// `math.ceil(x)`: toward +∞ (`ceil(-0.5) = -0`).
pub extern "C" fn molang_ceil(x: f32) -> f32 {
    x.ceil()
}

/// `math.clamp(v, lo, hi)`: `v > hi ? hi : max(v, lo)`. The upper bound is tested first, which
/// decides reversed bounds (`clamp(3, 2, 1) = 1`); a NaN `v` gives `lo`.
pub extern "C" fn molang_clamp(v: f32, lo: f32, hi: f32) -> f32 {
    if v > hi {
        hi
    } else {
        max_raw(v, lo)
    }
}

/// `math.copy_sign(a, b)`: the magnitude of `a` with the sign bit of `b`.
pub extern "C" fn molang_copy_sign(a: f32, b: f32) -> f32 {
    a.copysign(b)
}

/// `math.cos(x)`, `x` in degrees: the `f32` product with [`DEG_TO_RAD`], then cosine.
pub extern "C" fn molang_cos(x: f32) -> f32 {
    f64::from(x * DEG_TO_RAD).cos() as f32
}

/// `math.exp(x)`.
pub extern "C" fn molang_exp(x: f32) -> f32 {
    f64::from(x).exp() as f32
}

/// `math.floor(x)`: toward −∞.
pub extern "C" fn molang_floor(x: f32) -> f32 {
    x.floor()
}

/// `math.hermite_blend(t)`: `3t² − 2t³`, computed as `(3·t)·t − ((t + t)·t)·t`.
pub extern "C" fn molang_hermite_blend(t: f32) -> f32 {
    3.0 * t * t - (t + t) * t * t
}

/// `math.inverse_lerp(a, b, v)`: `(v − a) / (b − a)` with no zero guard (`a == b` gives ±∞ or
/// NaN, unlike the `/` operator).
pub extern "C" fn molang_inverse_lerp(a: f32, b: f32, v: f32) -> f32 {
    (v - a) / (b - a)
}

/// `math.lerp(a, b, t)`: `(b − a)·t + a`, `t` not clamped.
pub extern "C" fn molang_lerp(a: f32, b: f32, t: f32) -> f32 {
    (b - a) * t + a
}

/// `math.lerprotate(a, b, t)`: `min_angle(b − a)·t + a`, the short way round; the result is not
/// wrapped again (`lerprotate(350, 10, 0.5) = 360`).
pub extern "C" fn molang_lerprotate(a: f32, b: f32, t: f32) -> f32 {
    wrap_angle(b - a) * t + a
}

/// `math.ln(x)`: `ln(0) = -∞`, negative `x` gives NaN.
pub extern "C" fn molang_ln(x: f32) -> f32 {
    f64::from(x).ln() as f32
}

/// `math.max(a, b)`: `(a > b) ? a : b` (`max(NaN, 4) = 4`, `max(4, NaN) = NaN`).
pub extern "C" fn molang_max(a: f32, b: f32) -> f32 {
    max_raw(a, b)
}

/// `math.min(a, b)`: `(a < b) ? a : b` (`min(NaN, 4) = 4`, `min(4, NaN) = NaN`).
pub extern "C" fn molang_min(a: f32, b: f32) -> f32 {
    min_raw(a, b)
}

/// `math.min_angle(x)`: degrees wrapped into `[-180, 180)`, so `min_angle(180) = -180`.
pub extern "C" fn molang_min_angle(x: f32) -> f32 {
    wrap_angle(x)
}

/// `math.mod(a, b)`: the remainder truncated toward zero (sign of `a`, C `fmodf`), and 0 when
/// `b == 0`.
///
/// The engine adds its folded offset (+0) to the remainder even when there is none, so an exact
/// negative remainder comes back as `+0`: `mod(-6, 3) = +0`.
pub extern "C" fn molang_mod(a: f32, b: f32) -> f32 {
    if b == 0.0 {
        0.0
    } else {
        a % b + 0.0
    }
}

/// `math.pi`.
pub extern "C" fn molang_pi() -> f32 {
    PI
}

/// `math.pow(base, exponent)`, with C's special cases (`pow(x, 0) = 1`, `pow(1, y) = 1`).
pub extern "C" fn molang_pow(base: f32, exponent: f32) -> f32 {
    f64::from(base).powf(f64::from(exponent)) as f32
}

/// `math.round(x)`: nearest, ties away from zero (`round(-2.5) = -3`, `round(-0.4) = -0`).
pub extern "C" fn molang_round(x: f32) -> f32 {
    x.round()
}

/// `math.sign(x)`: −1 if `x < 0`, otherwise 1. Zero of either sign and NaN give 1.
pub extern "C" fn molang_sign(x: f32) -> f32 {
    if x < 0.0 {
        -1.0
    } else {
        1.0
    }
}

/// `math.sin(x)`, `x` in degrees (`sin(180) ≈ -8.742278e-8`, not 0).
pub extern "C" fn molang_sin(x: f32) -> f32 {
    f64::from(x * DEG_TO_RAD).sin() as f32
}

/// `math.sqrt(x)`: IEEE square root (`sqrt(-0) = -0`, negative gives NaN).
pub extern "C" fn molang_sqrt(x: f32) -> f32 {
    x.sqrt()
}

/// `math.trunc(x)`: toward zero.
pub extern "C" fn molang_trunc(x: f32) -> f32 {
    x.trunc()
}

// ---------------------------------------------------------------------------------------------
// The arm64 bodies
//
// The builtins whose arm64 build computes something else than the x86-64 one (molangx
// `stdlib/math/arch/arm64/mod.rs`, commit ffa4a42): `min`/`max` ignore a NaN, so do the
// clamps and the random bounds built on them; `<` is true with a NaN (`sign`); products are
// fused into multiply-adds (`lerp`, the random interpolations); each invalid call names its own
// NaN. Every other builtin runs its x86-64 body on both platforms (see the rule table).
// ---------------------------------------------------------------------------------------------

/// The NaN of an invalid `ln` on arm64 (and of `sin`, `cos`, `pow` on both): sign set.
const NEGATIVE_NAN: f32 = f32::from_bits(0xffc0_0000);

pub extern "C" fn molang_arm64_max(a: f32, b: f32) -> f32 {
    a64::max(a, b)
}

pub extern "C" fn molang_arm64_min(a: f32, b: f32) -> f32 {
    a64::min(a, b)
}

/// `v > hi ? hi : max(v, lo)` with arm64's `max`: `clamp(4, NaN, 5)` = 4.
pub extern "C" fn molang_arm64_clamp(v: f32, lo: f32, hi: f32) -> f32 {
    if v > hi {
        hi
    } else {
        a64::max(v, lo)
    }
}

/// `x < 0 ? -1 : 1` with arm64's `<`: `sign(NaN)` = −1.
pub extern "C" fn molang_arm64_sign(x: f32) -> f32 {
    if a64::lt(x, 0.0) {
        -1.0
    } else {
        1.0
    }
}

/// The inverse-trig clamp with arm64's `max`: a NaN reads as −1.
#[inline]
fn arm64_inverse_trig_argument(x: f32) -> f32 {
    if x.abs() > INVERSE_TRIG_TOLERANCE {
        x
    } else if x > 1.0 {
        1.0
    } else {
        a64::max(x, -1.0)
    }
}

pub extern "C" fn molang_arm64_acos(x: f32) -> f32 {
    a64::mul(
        f64::from(arm64_inverse_trig_argument(x)).acos() as f32,
        RAD_TO_DEG,
    )
}

pub extern "C" fn molang_arm64_asin(x: f32) -> f32 {
    a64::mul(
        f64::from(arm64_inverse_trig_argument(x)).asin() as f32,
        RAD_TO_DEG,
    )
}

/// A negative argument gives arm64's default NaN (`fsqrt`).
pub extern "C" fn molang_arm64_sqrt(x: f32) -> f32 {
    let r = x.sqrt();
    if r.is_nan() {
        a64::nan_of(&[x])
    } else {
        r
    }
}

/// A negative argument (−∞ included) gives `0xffc00000`.
pub extern "C" fn molang_arm64_ln(x: f32) -> f32 {
    if x.is_nan() {
        return a64::nan_of(&[x]);
    }
    if x < 0.0 {
        return NEGATIVE_NAN;
    }
    f64::from(x).ln() as f32
}

/// `t·(b − a) + a` rounded once.
pub extern "C" fn molang_arm64_lerp(a: f32, b: f32, t: f32) -> f32 {
    a64::mul_add(t, a64::sub(b, a), a)
}

#[inline]
fn arm64_wrap_angle(x: f32) -> f32 {
    let s = a64::add(x, 180.0);
    let r = if s.is_nan() { s } else { s % 360.0 };
    let r = if r < 0.0 { a64::add(r, 360.0) } else { r };
    a64::sub(r, 180.0)
}

/// `t·wrap(b − a) + a`, each step rounded.
pub extern "C" fn molang_arm64_lerprotate(a: f32, b: f32, t: f32) -> f32 {
    a64::add(a64::mul(t, arm64_wrap_angle(a64::sub(b, a))), a)
}

/// `(v − a) / (b − a)`, arm64's NaN choice.
pub extern "C" fn molang_arm64_inverse_lerp(a: f32, b: f32, v: f32) -> f32 {
    a64::div(a64::sub(v, a), a64::sub(b, a))
}

/// `(3 − 2t)·(t·t)`: the arm64 build's own arrangement.
pub extern "C" fn molang_arm64_hermite_blend(t: f32) -> f32 {
    a64::mul(a64::sub(3.0, a64::add(t, t)), a64::mul(t, t))
}

// The arm64 easings whose arrangement molangx gives (`stdlib/math/arch/arm64/ease.rs`, commit
// ffa4a42; four of them pinned by arm64-measured parse vectors #810, #852, #900, #936): the
// products fused into multiply-adds. `fms(a, b, c)` is `c − a·b`, `fnms(a, b, c)` is
// `a·b − c`, each rounded once. The sine, expo, circ and elastic curves and the in/in-out
// bounces keep their x86-64 bodies on arm64 (not modelled).

#[inline]
fn fms(a: f32, b: f32, c: f32) -> f32 {
    a64::mul_add(-a, b, c)
}

#[inline]
fn fnma(a: f32, b: f32, c: f32) -> f32 {
    a64::mul_add(-a, b, -c)
}

#[inline]
fn fnms(a: f32, b: f32, c: f32) -> f32 {
    a64::mul_add(a, b, -c)
}

pub extern "C" fn molang_arm64_ease_in_quad(start: f32, end: f32, t: f32) -> f32 {
    a64::mul_add(a64::mul(t, t), a64::sub(end, start), start)
}

pub extern "C" fn molang_arm64_ease_out_quad(start: f32, end: f32, t: f32) -> f32 {
    let x = a64::mul(a64::sub(start, end), t);
    a64::mul_add(x, a64::add(t, -2.0), start)
}

pub extern "C" fn molang_arm64_ease_in_out_quad(start: f32, end: f32, t: f32) -> f32 {
    let u = a64::add(t, t);
    let a = a64::add(u, -3.0);
    let d = a64::sub(end, start);
    let r = if u >= 1.0 {
        let neg_half = a64::mul(d, -0.5);
        fnma(fms(u, a, a), neg_half, neg_half)
    } else {
        a64::mul(a64::mul(u, u), a64::mul(d, 0.5))
    };
    a64::add(r, start)
}

pub extern "C" fn molang_arm64_ease_in_cubic(start: f32, end: f32, t: f32) -> f32 {
    let x = a64::mul(a64::mul(t, t), a64::sub(end, start));
    a64::mul_add(x, t, start)
}

pub extern "C" fn molang_arm64_ease_out_cubic(start: f32, end: f32, t: f32) -> f32 {
    let d = a64::sub(end, start);
    let u = a64::add(t, -1.0);
    let cube = a64::mul(a64::mul(u, u), u);
    a64::add(a64::mul_add(cube, d, d), start)
}

pub extern "C" fn molang_arm64_ease_in_out_cubic(start: f32, end: f32, t: f32) -> f32 {
    let u = a64::add(t, t);
    let a = a64::add(u, -2.0);
    let half = a64::mul(a64::sub(end, start), 0.5);
    let r = if u >= 1.0 {
        a64::mul(half, a64::mul_add(a64::mul(a, a), a, 2.0))
    } else {
        a64::mul(a64::mul(a64::mul(u, u), half), u)
    };
    a64::add(r, start)
}

pub extern "C" fn molang_arm64_ease_in_quart(start: f32, end: f32, t: f32) -> f32 {
    let tt = a64::mul(t, t);
    a64::mul_add(a64::mul(tt, tt), a64::sub(end, start), start)
}

pub extern "C" fn molang_arm64_ease_out_quart(start: f32, end: f32, t: f32) -> f32 {
    let neg_d = a64::sub(start, end);
    let u = a64::add(t, -1.0);
    let u2 = a64::mul(u, u);
    a64::add(fnms(a64::mul(u2, u2), neg_d, neg_d), start)
}

pub extern "C" fn molang_arm64_ease_in_out_quart(start: f32, end: f32, t: f32) -> f32 {
    let u = a64::add(t, t);
    let d = a64::sub(end, start);
    let a = a64::add(u, -2.0);
    let aa = a64::mul(a, a);
    let sq = a64::mul(u, u);
    let r = if u >= 1.0 {
        a64::mul(a64::mul(d, -0.5), a64::mul_add(aa, aa, -2.0))
    } else {
        a64::mul(a64::mul(sq, sq), a64::mul(d, 0.5))
    };
    a64::add(r, start)
}

pub extern "C" fn molang_arm64_ease_in_quint(start: f32, end: f32, t: f32) -> f32 {
    let tt = a64::mul(t, t);
    let x = a64::mul(a64::sub(end, start), t);
    a64::mul_add(a64::mul(tt, tt), x, start)
}

pub extern "C" fn molang_arm64_ease_out_quint(start: f32, end: f32, t: f32) -> f32 {
    let d = a64::sub(end, start);
    let u = a64::add(t, -1.0);
    let u2 = a64::mul(u, u);
    let u5 = a64::mul(a64::mul(u2, u2), u);
    a64::add(a64::mul_add(u5, d, d), start)
}

pub extern "C" fn molang_arm64_ease_in_out_quint(start: f32, end: f32, t: f32) -> f32 {
    let u = a64::add(t, t);
    let a = a64::add(u, -2.0);
    let half = a64::mul(a64::sub(end, start), 0.5);
    let sq = a64::mul(u, u);
    let aa = a64::mul(a, a);
    let r = if u >= 1.0 {
        a64::mul(half, a64::mul_add(a64::mul(aa, aa), a, 2.0))
    } else {
        a64::mul(a64::mul(sq, sq), a64::mul(half, u))
    };
    a64::add(r, start)
}

pub extern "C" fn molang_arm64_ease_in_back(start: f32, end: f32, t: f32) -> f32 {
    let x = a64::mul(a64::mul(t, t), a64::sub(end, start));
    let y = a64::mul_add(t, BACK_C3, -BACK_C1);
    a64::mul_add(x, y, start)
}

pub extern "C" fn molang_arm64_ease_out_back(start: f32, end: f32, t: f32) -> f32 {
    let d = a64::sub(end, start);
    let u = a64::add(t, -1.0);
    let z = a64::mul(a64::mul(u, u), a64::mul_add(u, BACK_C3, BACK_C1));
    a64::add(a64::mul_add(z, d, d), start)
}

/// `2·(c2 + 1)` rounded once.
const BACK_C2_PLUS_1_TWICE: f32 = f32::from_bits(0x40e6_12ff);

pub extern "C" fn molang_arm64_ease_in_out_back(start: f32, end: f32, t: f32) -> f32 {
    let u = a64::add(t, t);
    let half = a64::mul(a64::sub(end, start), 0.5);
    let a = a64::add(u, -2.0);
    let r = if u >= 1.0 {
        let inner = a64::mul_add(a, BACK_C2_PLUS_1, BACK_C2);
        a64::mul(half, a64::mul_add(a64::mul(a, a), inner, 2.0))
    } else {
        let k = a64::mul_add(t, BACK_C2_PLUS_1_TWICE, -BACK_C2);
        a64::mul(a64::mul(a64::mul(u, u), half), k)
    };
    a64::add(r, start)
}

/// One piece of the bounce, `n1·x² + k` with the product and the add fused.
#[inline]
fn arm64_bounce_piece(x: f32, k: f32) -> f32 {
    a64::mul_add(a64::mul(x, x), BOUNCE_N1, k)
}

/// The table sine as arm64 indexes it: the float-to-int conversion saturates (NaN is 0).
#[inline]
fn arm64_table_sin(radians: f32) -> f32 {
    sin_table_entry((radians * SIN_INDEX_SCALE) as i32)
}

/// The table cosine on arm64: the scale and the quarter turn one multiply-add, rounded once.
#[inline]
fn arm64_table_cos(radians: f32) -> f32 {
    sin_table_entry(a64::mul_add(radians, SIN_INDEX_SCALE, 16384.0) as i32)
}

/// `2π/0.3`, the elastic angular frequency of the arm64 bodies.
const ARM64_ELASTIC_C4: f32 = f32::from_bits(0x41a7_8d36);
/// `2·c4`.
const ARM64_ELASTIC_C4_TWICE: f32 = f32::from_bits(0x4227_8d36);
/// The phase `10.75·c4/10` of the in and in-out elastic curves.
const ARM64_ELASTIC_PHASE_IN: f32 = f32::from_bits(0x41b4_1e34);
/// The phase `0.75·c4/10` of the out elastic curve.
const ARM64_ELASTIC_PHASE_OUT: f32 = f32::from_bits(0x3fc9_0fdc);

/// `end + cos(t·π/2)·(start − end)`, rounded once.
pub extern "C" fn molang_arm64_ease_in_sine(start: f32, end: f32, t: f32) -> f32 {
    a64::mul_add(arm64_table_cos(t * HALF_PI), a64::sub(start, end), end)
}

/// `start + sin(t·π/2)·d`, rounded once.
pub extern "C" fn molang_arm64_ease_out_sine(start: f32, end: f32, t: f32) -> f32 {
    a64::mul_add(arm64_table_sin(t * HALF_PI), a64::sub(end, start), start)
}

/// `(cos(π·t)·h − h) + start` with `h = (start − end)/2`, the product fused.
pub extern "C" fn molang_arm64_ease_in_out_sine(start: f32, end: f32, t: f32) -> f32 {
    let h = a64::mul(a64::sub(start, end), 0.5);
    a64::add(fnms(arm64_table_cos(t * PI), h, h), start)
}

/// `2^(10t − 10)·d + start`, both multiply-adds rounded once.
pub extern "C" fn molang_arm64_ease_in_expo(start: f32, end: f32, t: f32) -> f32 {
    let p = exp2(a64::mul_add(t, 10.0, -10.0));
    a64::mul_add(p, a64::sub(end, start), start)
}

/// `(d − 2^(−10t)·d) + start`.
pub extern "C" fn molang_arm64_ease_out_expo(start: f32, end: f32, t: f32) -> f32 {
    let d = a64::sub(end, start);
    let p = exp2(a64::mul(t, -10.0));
    a64::add(fms(p, d, d), start)
}

/// `d·(v/2) + start` with `v = 2^(20t − 10)` below the middle, `2 − 2^(10 − 20t)` from it.
pub extern "C" fn molang_arm64_ease_in_out_expo(start: f32, end: f32, t: f32) -> f32 {
    let v = if t + t >= 1.0 {
        a64::sub(2.0, exp2(a64::mul_add(t, -20.0, 10.0)))
    } else {
        exp2(a64::mul_add(t, 20.0, -10.0))
    };
    a64::mul_add(a64::sub(end, start), a64::mul(0.5, v), start)
}

/// `(sqrt(1 − t·t)·n − n) + start` with `n = start − end`.
pub extern "C" fn molang_arm64_ease_in_circ(start: f32, end: f32, t: f32) -> f32 {
    let n = a64::sub(start, end);
    let q = molang_arm64_sqrt(fms(t, t, 1.0));
    a64::add(fnms(q, n, n), start)
}

/// `sqrt(1 − u·u)·d + start` with `u = t − 1`.
pub extern "C" fn molang_arm64_ease_out_circ(start: f32, end: f32, t: f32) -> f32 {
    let u = a64::add(t, -1.0);
    let q = molang_arm64_sqrt(fms(u, u, 1.0));
    a64::mul_add(q, a64::sub(end, start), start)
}

/// With `u = 2t`: `(−d/2)·(sqrt(1 − u²) − 1) + start`, else `(d/2)·(sqrt(1 − w²) + 1) + start`
/// with `w = u − 2`, the last multiply-add rounded once.
pub extern "C" fn molang_arm64_ease_in_out_circ(start: f32, end: f32, t: f32) -> f32 {
    let u = a64::add(t, t);
    let w = a64::add(u, -2.0);
    let d = a64::sub(end, start);
    let (square, k, factor) = if u >= 1.0 {
        (a64::mul(w, w), 1.0, a64::mul(d, 0.5))
    } else {
        (a64::mul(u, u), -1.0, a64::mul(d, -0.5))
    };
    let q = a64::add(molang_arm64_sqrt(a64::sub(1.0, square)), k);
    a64::mul_add(factor, q, start)
}

/// `start` at `t == 0`, `end` at `t == 1`; else `(2^(10t − 10)·(start − end))·s + start` with
/// `s` the table sine of `c4·t − phase`.
pub extern "C" fn molang_arm64_ease_in_elastic(start: f32, end: f32, t: f32) -> f32 {
    if t == 0.0 {
        return start;
    }
    if t == 1.0 {
        return end;
    }
    let p = exp2(a64::mul_add(t, 10.0, -10.0));
    let s = arm64_table_sin(a64::mul_add(t, ARM64_ELASTIC_C4, -ARM64_ELASTIC_PHASE_IN));
    a64::mul_add(a64::mul(p, a64::sub(start, end)), s, start)
}

/// `start` at `t == 0`, `end` at `t == 1`; else `(2^(−10t)·d)·s + end`.
pub extern "C" fn molang_arm64_ease_out_elastic(start: f32, end: f32, t: f32) -> f32 {
    if t == 0.0 {
        return start;
    }
    if t == 1.0 {
        return end;
    }
    let x = a64::mul(exp2(a64::mul(t, -10.0)), a64::sub(end, start));
    let s = arm64_table_sin(a64::mul_add(t, ARM64_ELASTIC_C4, -ARM64_ELASTIC_PHASE_OUT));
    a64::mul_add(x, s, end)
}

/// `start` at `t == 0`, `end` at `2t == 2`; with `h = d/2` and `s` the table sine of
/// `2·c4·t − phase`: `end + (h·2^(10 − 20t))·s` from the middle, `start − (h·2^(20t − 10))·s`
/// before it.
pub extern "C" fn molang_arm64_ease_in_out_elastic(start: f32, end: f32, t: f32) -> f32 {
    let u = a64::add(t, t);
    if t == 0.0 {
        return start;
    }
    if u == 2.0 {
        return end;
    }
    let h = a64::mul(a64::sub(end, start), 0.5);
    let s = arm64_table_sin(a64::mul_add(
        t,
        ARM64_ELASTIC_C4_TWICE,
        -ARM64_ELASTIC_PHASE_IN,
    ));
    if u >= 1.0 {
        let p = exp2(a64::mul_add(t, -20.0, 10.0));
        a64::mul_add(a64::mul(h, p), s, end)
    } else {
        let p = exp2(a64::mul_add(t, 20.0, -10.0));
        fms(a64::mul(h, p), s, start)
    }
}

pub extern "C" fn molang_arm64_ease_out_bounce(start: f32, end: f32, t: f32) -> f32 {
    let v = if t >= BOUNCE_T3 {
        arm64_bounce_piece(a64::add(t, -BOUNCE_C4), 0.984_375)
    } else if t >= BOUNCE_T2 {
        arm64_bounce_piece(a64::add(t, -BOUNCE_C3), 0.9375)
    } else if t >= BOUNCE_T1 {
        arm64_bounce_piece(a64::add(t, -BOUNCE_C2), 0.75)
    } else {
        a64::mul(a64::mul(t, t), BOUNCE_N1)
    };
    a64::mul_add(v, a64::sub(end, start), start)
}

impl MathFn {
    /// The builtin's body on `platform`: its arm64 twin where the arm64 build differs, else
    /// [`MathFn::native`].
    pub fn native_on(self, platform: Platform) -> Option<NativeFn> {
        if platform == Platform::Arm64 {
            let arm = match self {
                MathFn::Max => Some(NativeFn::A2(molang_arm64_max)),
                MathFn::Min => Some(NativeFn::A2(molang_arm64_min)),
                MathFn::Clamp => Some(NativeFn::A3(molang_arm64_clamp)),
                MathFn::Sign => Some(NativeFn::A1(molang_arm64_sign)),
                MathFn::Acos => Some(NativeFn::A1(molang_arm64_acos)),
                MathFn::Asin => Some(NativeFn::A1(molang_arm64_asin)),
                MathFn::Sqrt => Some(NativeFn::A1(molang_arm64_sqrt)),
                MathFn::Ln => Some(NativeFn::A1(molang_arm64_ln)),
                MathFn::Lerp => Some(NativeFn::A3(molang_arm64_lerp)),
                MathFn::LerpRotate => Some(NativeFn::A3(molang_arm64_lerprotate)),
                MathFn::InverseLerp => Some(NativeFn::A3(molang_arm64_inverse_lerp)),
                MathFn::HermiteBlend => Some(NativeFn::A1(molang_arm64_hermite_blend)),
                MathFn::EaseInQuad => Some(NativeFn::A3(molang_arm64_ease_in_quad)),
                MathFn::EaseOutQuad => Some(NativeFn::A3(molang_arm64_ease_out_quad)),
                MathFn::EaseInOutQuad => Some(NativeFn::A3(molang_arm64_ease_in_out_quad)),
                MathFn::EaseInCubic => Some(NativeFn::A3(molang_arm64_ease_in_cubic)),
                MathFn::EaseOutCubic => Some(NativeFn::A3(molang_arm64_ease_out_cubic)),
                MathFn::EaseInOutCubic => Some(NativeFn::A3(molang_arm64_ease_in_out_cubic)),
                MathFn::EaseInQuart => Some(NativeFn::A3(molang_arm64_ease_in_quart)),
                MathFn::EaseOutQuart => Some(NativeFn::A3(molang_arm64_ease_out_quart)),
                MathFn::EaseInOutQuart => Some(NativeFn::A3(molang_arm64_ease_in_out_quart)),
                MathFn::EaseInQuint => Some(NativeFn::A3(molang_arm64_ease_in_quint)),
                MathFn::EaseOutQuint => Some(NativeFn::A3(molang_arm64_ease_out_quint)),
                MathFn::EaseInOutQuint => Some(NativeFn::A3(molang_arm64_ease_in_out_quint)),
                MathFn::EaseInBack => Some(NativeFn::A3(molang_arm64_ease_in_back)),
                MathFn::EaseOutBack => Some(NativeFn::A3(molang_arm64_ease_out_back)),
                MathFn::EaseInOutBack => Some(NativeFn::A3(molang_arm64_ease_in_out_back)),
                MathFn::EaseOutBounce => Some(NativeFn::A3(molang_arm64_ease_out_bounce)),
                MathFn::EaseInSine => Some(NativeFn::A3(molang_arm64_ease_in_sine)),
                MathFn::EaseOutSine => Some(NativeFn::A3(molang_arm64_ease_out_sine)),
                MathFn::EaseInOutSine => Some(NativeFn::A3(molang_arm64_ease_in_out_sine)),
                MathFn::EaseInExpo => Some(NativeFn::A3(molang_arm64_ease_in_expo)),
                MathFn::EaseOutExpo => Some(NativeFn::A3(molang_arm64_ease_out_expo)),
                MathFn::EaseInOutExpo => Some(NativeFn::A3(molang_arm64_ease_in_out_expo)),
                MathFn::EaseInCirc => Some(NativeFn::A3(molang_arm64_ease_in_circ)),
                MathFn::EaseOutCirc => Some(NativeFn::A3(molang_arm64_ease_out_circ)),
                MathFn::EaseInOutCirc => Some(NativeFn::A3(molang_arm64_ease_in_out_circ)),
                MathFn::EaseInElastic => Some(NativeFn::A3(molang_arm64_ease_in_elastic)),
                MathFn::EaseOutElastic => Some(NativeFn::A3(molang_arm64_ease_out_elastic)),
                MathFn::EaseInOutElastic => Some(NativeFn::A3(molang_arm64_ease_in_out_elastic)),
                _ => None,
            };
            if arm.is_some() {
                return arm;
            }
        }
        self.native()
    }

    /// Whether the arm64 body differs from the x86-64 one (then a JIT calls it rather than
    /// inlining the x86-64 lowering).
    pub fn differs_on_arm64(self) -> bool {
        self.native_on(Platform::Arm64).map(NativeFn::addr) != self.native().map(NativeFn::addr)
    }

    /// Iterations a call spends on `platform` (the roll count is a float-to-int conversion).
    pub fn budget_cost_on(self, platform: Platform, first: f32) -> Option<u64> {
        match self.row().cost {
            Cost::Free => None,
            Cost::PerRoll => Some(die_roll_count_on(platform, first) as u64),
        }
    }
}

/// A builtin's result as arm64 returns it: every floating-point instruction there returns a
/// NaN quietened (`frintm` of a signalling NaN, say), except the sign-bit operations `abs` and
/// `copy_sign`. (The x86-64 bodies may hand a signalling NaN back from `floorf`.)
#[inline]
pub fn arm64_result(f: MathFn, r: f32) -> f32 {
    if r.is_nan() && !arm64_keeps_nan_bits(f) {
        f32::from_bits(r.to_bits() | 0x0040_0000)
    } else {
        r
    }
}

/// Whether `f` only moves a sign bit on arm64, so a NaN passes through unquietened.
#[inline]
pub fn arm64_keeps_nan_bits(f: MathFn) -> bool {
    matches!(f, MathFn::Abs | MathFn::CopySign)
}

/// [`eval`] on `platform`.
pub fn eval_on(platform: Platform, f: MathFn, args: &[f32]) -> f32 {
    if platform == Platform::X86_64 {
        return eval(f, args);
    }
    match f.native_on(platform) {
        Some(native) => native.call(args),
        None => eval(f, args),
    }
}

/// [`die_roll_count`] on `platform`: arm64's conversion saturates (a huge count stays huge).
pub fn die_roll_count_on(platform: Platform, n: f32) -> u32 {
    platform.to_int(n).max(0) as u32
}

/// [`eval_random`] on `platform`. On arm64 the bounds are sorted with `min`/`max` (a NaN bound
/// is dropped: `random(NaN, 5)` = 5) and the interpolations are multiply-adds rounded once.
pub fn eval_random_on(platform: Platform, f: MathFn, args: &[f32], rng: &mut dyn MolangRng) -> f32 {
    if platform == Platform::X86_64 {
        return eval_random(f, args, rng);
    }
    let sorted = |a: f32, b: f32| (a64::min(a, b), a64::max(a, b));
    // `lo + r·(hi − lo)` rounded once.
    let interpolate = |lo: f32, hi: f32, r: f32| a64::mul_add(a64::sub(hi, lo), r, lo);
    // `(hi + 1 − lo) − hi·ε` rounded once.
    let reach = |lo: f32, hi: f32| a64::mul_add(hi, -f32::EPSILON, a64::sub(a64::add(hi, 1.0), lo));
    let draw = |lo: f32, hi: f32, reach: f32, r: f32| {
        let v = a64::mul_add(reach, r, lo).floor();
        if v > hi {
            hi
        } else {
            a64::max(v, lo)
        }
    };
    match f {
        MathFn::Random => {
            let (lo, hi) = sorted(args[0], args[1]);
            interpolate(lo, hi, sample(rng))
        }
        MathFn::RandomInteger => {
            let (lo, hi) = sorted(args[0], args[1]);
            draw(lo, hi, reach(lo, hi), sample(rng))
        }
        MathFn::DieRoll | MathFn::DieRollInteger => {
            let count = die_roll_count_on(platform, args[0]);
            let (lo, hi) = sorted(args[1].floor(), args[2].floor());
            let k = reach(lo, hi);
            let mut sum = 0.0_f32;
            for _ in 0..count {
                let r = sample(rng);
                sum = if f == MathFn::DieRoll {
                    // `r·(hi − lo) + (sum + lo)` rounded once.
                    a64::mul_add(r, a64::sub(hi, lo), a64::add(sum, lo))
                } else {
                    a64::add(sum, draw(lo, hi, k, r))
                };
            }
            sum
        }
        _ => eval_on(platform, f, args),
    }
}

// ---------------------------------------------------------------------------------------------
// The easings
//
// Each is `start + (end − start)·curve(t)` with `t` not clamped, written in the engine's own
// arrangement: the range `d = end − start` enters the product chain early and `start` is added
// last, every step rounded on its own. Different but algebraically equal arrangements differ in
// the last bit, and the vectors pin these. The in_out variants branch on `1 > t + t`.
// ---------------------------------------------------------------------------------------------

/// `math.ease_in_quad`: `((d·t)·t) + start`.
pub extern "C" fn molang_ease_in_quad(start: f32, end: f32, t: f32) -> f32 {
    (end - start) * t * t + start
}

/// `math.ease_out_quad`: `start − (t − 2)·(d·t)` (Penner's `−c·t·(t − 2) + b`).
pub extern "C" fn molang_ease_out_quad(start: f32, end: f32, t: f32) -> f32 {
    let dt = (end - start) * t;
    start - (t + -2.0) * dt
}

/// `math.ease_in_out_quad`: with `u = 2t`, `(d/2)·u·u + start`, else
/// `((v − 2)·v − 1)·(−d/2) + start` with `v = u − 1`.
pub extern "C" fn molang_ease_in_out_quad(start: f32, end: f32, t: f32) -> f32 {
    let u = t + t;
    let d = end - start;
    if 1.0 > u {
        d * 0.5 * u * u + start
    } else {
        let v = u + -1.0;
        ((-2.0 + v) * v + -1.0) * (d * -0.5) + start
    }
}

/// `math.ease_in_cubic`: `(((d·t)·t)·t) + start`.
pub extern "C" fn molang_ease_in_cubic(start: f32, end: f32, t: f32) -> f32 {
    (end - start) * t * t * t + start
}

/// `math.ease_out_cubic`: `((v·v·v) + 1)·d + start` with `v = t − 1`.
pub extern "C" fn molang_ease_out_cubic(start: f32, end: f32, t: f32) -> f32 {
    let v = t + -1.0;
    (v * v * v + 1.0) * (end - start) + start
}

/// `math.ease_in_out_cubic`: with `u = 2t`, `(d/2)·u³ + start`, else
/// `(w³ + 2)·(d/2) + start` with `w = u − 2`.
pub extern "C" fn molang_ease_in_out_cubic(start: f32, end: f32, t: f32) -> f32 {
    let u = t + t;
    let d = end - start;
    if 1.0 > u {
        d * 0.5 * u * u * u + start
    } else {
        let w = u + -2.0;
        (w * w * w + 2.0) * (d * 0.5) + start
    }
}

/// `math.ease_in_quart`: `((((d·t)·t)·t)·t) + start`.
pub extern "C" fn molang_ease_in_quart(start: f32, end: f32, t: f32) -> f32 {
    (end - start) * t * t * t * t + start
}

/// `math.ease_out_quart`: `start − (v⁴ − 1)·d` with `v = t − 1`.
pub extern "C" fn molang_ease_out_quart(start: f32, end: f32, t: f32) -> f32 {
    let v = t + -1.0;
    start - (v * v * v * v + -1.0) * (end - start)
}

/// `math.ease_in_out_quart`: with `u = 2t`, `(d/2)·u⁴ + start`, else
/// `(w⁴ − 2)·(−d/2) + start` with `w = u − 2`.
pub extern "C" fn molang_ease_in_out_quart(start: f32, end: f32, t: f32) -> f32 {
    let u = t + t;
    let d = end - start;
    if 1.0 > u {
        d * 0.5 * u * u * u * u + start
    } else {
        let w = u + -2.0;
        (w * w * w * w + -2.0) * (d * -0.5) + start
    }
}

/// `math.ease_in_quint`: `(d·t⁵ in order) + start`.
pub extern "C" fn molang_ease_in_quint(start: f32, end: f32, t: f32) -> f32 {
    (end - start) * t * t * t * t * t + start
}

/// `math.ease_out_quint`: `(v⁵ + 1)·d + start` with `v = t − 1`.
pub extern "C" fn molang_ease_out_quint(start: f32, end: f32, t: f32) -> f32 {
    let v = t + -1.0;
    (v * v * v * v * v + 1.0) * (end - start) + start
}

/// `math.ease_in_out_quint`: with `u = 2t`, `(d/2)·u⁵ + start`, else
/// `(w⁵ + 2)·(d/2) + start` with `w = u − 2`.
pub extern "C" fn molang_ease_in_out_quint(start: f32, end: f32, t: f32) -> f32 {
    let u = t + t;
    let d = end - start;
    if 1.0 > u {
        d * 0.5 * u * u * u * u * u + start
    } else {
        let w = u + -2.0;
        (w * w * w * w * w + 2.0) * (d * 0.5) + start
    }
}

/// `math.ease_in_sine`: `(d − cos(t·π/2)·d) + start`, the cosine read from the sine table.
pub extern "C" fn molang_ease_in_sine(start: f32, end: f32, t: f32) -> f32 {
    let c = table_cos(t * HALF_PI);
    let d = end - start;
    (d - c * d) + start
}

/// `math.ease_out_sine`: `d·sin(t·π/2) + start`, the sine read from the table.
pub extern "C" fn molang_ease_out_sine(start: f32, end: f32, t: f32) -> f32 {
    (end - start) * table_sin(t * HALF_PI) + start
}

/// `math.ease_in_out_sine`: `(cos(π·t) − 1)·(−d/2) + start`, the cosine read from the table.
pub extern "C" fn molang_ease_in_out_sine(start: f32, end: f32, t: f32) -> f32 {
    let h = (end - start) * -0.5;
    let c = table_cos(t * PI);
    (c + -1.0) * h + start
}

/// `math.ease_in_expo`: `2^((t − 1)·10)·d + start`, no `t == 0` special case (so `t = 0` gives
/// `start + d/1024`).
pub extern "C" fn molang_ease_in_expo(start: f32, end: f32, t: f32) -> f32 {
    let d = end - start;
    exp2((t + -1.0) * 10.0) * d + start
}

/// `math.ease_out_expo`: `(1 − 2^(t·−10))·d + start`, no `t == 1` special case.
pub extern "C" fn molang_ease_out_expo(start: f32, end: f32, t: f32) -> f32 {
    let d = end - start;
    (1.0 - exp2(t * -10.0)) * d + start
}

/// `math.ease_in_out_expo`: with `u = 2t`, `v = u − 1`, `h = d/2`: `2^(10v)·h + start`, else
/// `(2 − 2^(−10v))·h + start`, no endpoint special cases.
pub extern "C" fn molang_ease_in_out_expo(start: f32, end: f32, t: f32) -> f32 {
    let u = t + t;
    let h = (end - start) * 0.5;
    let v = u + -1.0;
    if 1.0 > u {
        exp2(v * 10.0) * h + start
    } else {
        (2.0 - exp2(v * -10.0)) * h + start
    }
}

/// `math.ease_in_circ`: `(sqrt(1 − t·t) − 1)·(−d) + start`.
pub extern "C" fn molang_ease_in_circ(start: f32, end: f32, t: f32) -> f32 {
    let neg_d = -(end - start);
    let q = (1.0 - t * t).sqrt();
    (q + -1.0) * neg_d + start
}

/// `math.ease_out_circ`: `d·sqrt(1 − v·v) + start` with `v = t − 1`.
pub extern "C" fn molang_ease_out_circ(start: f32, end: f32, t: f32) -> f32 {
    let v = t + -1.0;
    (end - start) * (1.0 - v * v).sqrt() + start
}

/// `math.ease_in_out_circ`: with `u = 2t`, `(−d/2)·(sqrt(1 − u²) − 1) + start`, else
/// `(d/2)·(sqrt(1 − w²) + 1) + start` with `w = u − 2`.
pub extern "C" fn molang_ease_in_out_circ(start: f32, end: f32, t: f32) -> f32 {
    let u = t + t;
    let d = end - start;
    let (x, k, factor) = if 1.0 > u {
        (u, -1.0, d * -0.5)
    } else {
        (u + -2.0, 1.0, d * 0.5)
    };
    factor * (k + (1.0 - x * x).sqrt()) + start
}

/// `math.ease_in_back`: `((t·c3) − c1)·((d·t)·t) + start`.
pub extern "C" fn molang_ease_in_back(start: f32, end: f32, t: f32) -> f32 {
    let x = (end - start) * t * t;
    (t * BACK_C3 + -BACK_C1) * x + start
}

/// `math.ease_out_back`: `((v·v)·(v·c3 + c1) + 1)·d + start` with `v = t − 1`.
pub extern "C" fn molang_ease_out_back(start: f32, end: f32, t: f32) -> f32 {
    let v = t + -1.0;
    let y = v * BACK_C3 + BACK_C1;
    (v * v * y + 1.0) * (end - start) + start
}

/// `math.ease_in_out_back`: with `u = 2t`, `h = d/2`: `((u·(c2+1) − c2)·(u·u))·h + start`, else
/// `((w·(c2+1) + c2)·(w·w) + 2)·h + start` with `w = u − 2`.
pub extern "C" fn molang_ease_in_out_back(start: f32, end: f32, t: f32) -> f32 {
    let h = (end - start) * 0.5;
    let u = t + t;
    if 1.0 > u {
        (u * BACK_C2_PLUS_1 + -BACK_C2) * (u * u) * h + start
    } else {
        let w = u + -2.0;
        ((w * BACK_C2_PLUS_1 + BACK_C2) * (w * w) + 2.0) * h + start
    }
}

/// The elastic phase `((x − 0.075)·2π) / 0.3`, three roundings.
#[inline]
fn elastic_angle(x: f32) -> f32 {
    (x + -ELASTIC_SHIFT) * TWO_PI / ELASTIC_PERIOD
}

/// `math.ease_in_elastic`: `start` at `t == 0` and `start + d` at `t == 1`; otherwise
/// `start − (d·2^(10v))·sin(angle(v))` with `v = t − 1` and the table sine.
pub extern "C" fn molang_ease_in_elastic(start: f32, end: f32, t: f32) -> f32 {
    if t == 0.0 {
        return start;
    }
    let d = end - start;
    if t == 1.0 {
        return start + d;
    }
    let v = t + -1.0;
    let p = exp2(10.0 * v);
    start - d * p * table_sin(elastic_angle(v))
}

/// `math.ease_out_elastic`: `start` at `t == 0` and `start + d` at `t == 1`; otherwise
/// `start + ((2^(−10t)·d)·sin(angle(t)) + d)` with the table sine.
pub extern "C" fn molang_ease_out_elastic(start: f32, end: f32, t: f32) -> f32 {
    if t == 0.0 {
        return start;
    }
    let d = end - start;
    if t == 1.0 {
        return start + d;
    }
    let x = exp2(-10.0 * t) * d;
    start + (x * table_sin(elastic_angle(t)) + d)
}

/// `math.ease_in_out_elastic`: `start` at `t == 0` and `start + d` at `2t == 2`; otherwise with
/// `v = 2t − 1` and `s = sin(angle(v))` from the table: `start + ((2^(10v)·d)·s)·−0.5`, else
/// `start + (((2^(−10v)·d)·s)·0.5 + d)`.
pub extern "C" fn molang_ease_in_out_elastic(start: f32, end: f32, t: f32) -> f32 {
    if t == 0.0 {
        return start;
    }
    let d = end - start;
    let u = t + t;
    if u == 2.0 {
        return start + d;
    }
    let v = u + -1.0;
    let s = table_sin(elastic_angle(v));
    if 1.0 > u {
        start + exp2(v * 10.0) * d * s * -0.5
    } else {
        start + (exp2(v * -10.0) * d * s * 0.5 + d)
    }
}

/// The four-arc bounce curve, `n1·y·y + k` with `y = x − centre`; a NaN takes the last arc.
#[inline]
fn bounce(x: f32) -> f32 {
    if BOUNCE_T1 > x {
        BOUNCE_N1 * x * x
    } else if BOUNCE_T2 > x {
        let y = x + -BOUNCE_C2;
        BOUNCE_N1 * y * y + 0.75
    } else if BOUNCE_T3 > x {
        let y = x + -BOUNCE_C3;
        BOUNCE_N1 * y * y + 0.9375
    } else {
        let y = x + -BOUNCE_C4;
        BOUNCE_N1 * y * y + 0.984_375
    }
}

/// `x + 0`: the engine's way of turning a `−0` product into `+0` inside the bounce easings.
#[inline]
fn plus_zero(x: f32) -> f32 {
    x + 0.0
}

/// `math.ease_in_bounce`: `(d − bounce(1 − t)·d) + start`.
pub extern "C" fn molang_ease_in_bounce(start: f32, end: f32, t: f32) -> f32 {
    let d = end - start;
    let x = plus_zero(bounce(1.0 - t) * d);
    (d - x) + start
}

/// `math.ease_out_bounce`: `d·bounce(t) + start`.
pub extern "C" fn molang_ease_out_bounce(start: f32, end: f32, t: f32) -> f32 {
    (end - start) * bounce(t) + start
}

/// `math.ease_in_out_bounce`: for `t < 0.5`, `(d − bounce(1 − 2t)·d)·0.5 + start`; otherwise
/// `start + (bounce(2t − 1)·d·0.5 + d·0.5)`.
pub extern "C" fn molang_ease_in_out_bounce(start: f32, end: f32, t: f32) -> f32 {
    let d = end - start;
    if 0.5 > t {
        let x = plus_zero(bounce(1.0 - (t + t)) * d);
        plus_zero(d - x) * 0.5 + start
    } else {
        let x = plus_zero(bounce((t + t) + -1.0) * d);
        start + (x * 0.5 + d * 0.5)
    }
}

// ---------------------------------------------------------------------------------------------
// The random builtins
// ---------------------------------------------------------------------------------------------

/// A source of random words for `math.random*` and `math.die_roll*`.
///
/// The host injects it, so runs are reproducible. Each draw is exactly one `next_u32`, turned
/// into a sample in `[0, 1]` by [`sample`].
pub trait MolangRng {
    /// The next 32 random bits.
    fn next_u32(&mut self) -> u32;
}

impl<R: MolangRng + ?Sized> MolangRng for &mut R {
    fn next_u32(&mut self) -> u32 {
        (**self).next_u32()
    }
}

/// The default generator: SplitMix64 (Steele, Lea and Flood), returning the high 32 bits of
/// each 64-bit output.
///
/// The state starts at the seed; each step adds `0x9e3779b97f4a7c15` and mixes with the
/// constants `0xbf58476d1ce4e5b9` and `0x94d049bb133111eb`. The sequence depends on the seed
/// alone, so the same seed gives the same draws on every platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultRng {
    state: u64,
}

impl DefaultRng {
    /// A generator whose sequence is determined by `seed`.
    pub fn new(seed: u64) -> Self {
        DefaultRng { state: seed }
    }

    /// The next 64-bit SplitMix64 output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl MolangRng for DefaultRng {
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

/// One draw: `(next_u32 & 0x7fff_ffff) · 2^-31`, rounded to nearest, so the sample lies in
/// `[0, 1]` and can be exactly 1 (the docs call the range inclusive).
pub fn sample(rng: &mut dyn MolangRng) -> f32 {
    (rng.next_u32() & 0x7fff_ffff) as f32 * (1.0 / 2_147_483_648.0)
}

/// How many rolls `math.die_roll*(n, …)` makes: `n` truncated toward zero, at least 0. NaN and
/// values outside the `i32` range give 0, as x86-64's conversion does.
///
/// There is no cap; an interpreter with a work limit should check this before calling
/// [`eval_random`].
pub fn die_roll_count(n: f32) -> u32 {
    to_int(n).max(0) as u32
}

/// `(lo, hi)` with `lo = b < a ? b : a` and `hi = a > b ? a : b`: reversed bounds are swapped,
/// and a NaN bound survives in one of the two (so the draw is NaN).
#[inline]
fn sorted_bounds(a: f32, b: f32) -> (f32, f32) {
    let lo = if b < a { b } else { a };
    let hi = if a > b { a } else { b };
    (lo, hi)
}

/// A continuous draw: `hi·r + (1 − r)·lo` (never forms `hi − lo`).
#[inline]
fn interpolate(lo: f32, hi: f32, r: f32) -> f32 {
    hi * r + (1.0 - r) * lo
}

/// The top of an integer draw, just under `hi + 1`: `(hi·(−ε) + 1) + hi`.
#[inline]
fn integer_reach(hi: f32) -> f32 {
    hi * -f32::EPSILON + 1.0 + hi
}

/// An integer draw: `floor((1 − r)·lo + reach·r)`, clamped upper bound first to `[lo, hi]`.
#[inline]
fn integer_draw(lo: f32, hi: f32, reach: f32, r: f32) -> f32 {
    let v = ((1.0 - r) * lo + reach * r).floor();
    if v > hi {
        hi
    } else {
        max_raw(v, lo)
    }
}

/// Evaluates a builtin that may draw from `rng`; a non-random `f` is passed to [`eval`] and
/// draws nothing. `args.len()` must equal `f.arity()`.
///
/// Draw order, one [`sample`] per draw:
/// * `random(a, b)`: one draw, `hi·r + (1 − r)·lo` over the sorted bounds.
/// * `random_integer(a, b)`: one draw, `floor((1 − r)·lo + r·reach)` over the sorted bounds (not
///   rounded to integers) with `reach` just under `hi + 1`, clamped to `[lo, hi]`.
/// * `die_roll(n, a, b)` / `die_roll_integer(n, a, b)`: the bounds are floored and sorted, then
///   [`die_roll_count`]`(n)` draws are made in order, each added to a running `f32` sum that
///   starts at 0. `n <= 0` (or NaN) draws nothing and gives 0.
pub fn eval_random(f: MathFn, args: &[f32], rng: &mut dyn MolangRng) -> f32 {
    debug_assert_eq!(args.len(), f.arity(), "math.{} arity", f.name());
    match f {
        MathFn::Random => {
            let (lo, hi) = sorted_bounds(args[0], args[1]);
            interpolate(lo, hi, sample(rng))
        }
        MathFn::RandomInteger => {
            let (lo, hi) = sorted_bounds(args[0], args[1]);
            integer_draw(lo, hi, integer_reach(hi), sample(rng))
        }
        MathFn::DieRoll | MathFn::DieRollInteger => {
            let count = die_roll_count(args[0]);
            let (lo, hi) = sorted_bounds(args[1].floor(), args[2].floor());
            let reach = integer_reach(hi);
            let mut sum = 0.0_f32;
            for _ in 0..count {
                let r = sample(rng);
                sum += if f == MathFn::DieRoll {
                    interpolate(lo, hi, r)
                } else {
                    integer_draw(lo, hi, reach, r)
                };
            }
            sum
        }
        _ => eval(f, args),
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    //! The table, the constants and the edge cases of every function; the conformance data
    //! (../shared/conformance) is run through the whole pipeline in tests/math_conformance.rs.

    // Expected values are written with all the digits that pin their f32 bits.
    #![allow(clippy::excessive_precision, clippy::approx_constant)]

    use super::*;

    const NAN: f32 = f32::NAN;
    const INF: f32 = f32::INFINITY;

    // ---- helpers --------------------------------------------------------------------------

    #[track_caller]
    fn assert_bits(got: f32, want: f32) {
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "got {got:e} ({:#010x}), want {want:e} ({:#010x})",
            got.to_bits(),
            want.to_bits()
        );
    }

    #[track_caller]
    fn assert_close(got: f32, want: f32, tol: f32) {
        assert!(
            (got - want).abs() <= tol,
            "got {got:e}, want {want:e} ± {tol:e}"
        );
    }

    fn call(f: MathFn, args: &[f32]) -> f32 {
        eval(f, args)
    }

    // ---- the table ----------------------------------------------------------------------------

    #[test]
    fn the_table_is_consistent() {
        assert_eq!(MathFn::ALL.len(), 61);
        let mut names = std::collections::HashSet::new();
        for (i, f) in MathFn::ALL.into_iter().enumerate() {
            assert_eq!(f as usize, i);
            assert!(names.insert(f.name()), "duplicate {}", f.name());
            assert_eq!(MathFn::from_name(f.name()), Some(f));
            assert_eq!(f.symbol(), format!("molang_{}", f.name()));
            match f.native() {
                Some(native) => assert_eq!(native.arity(), f.arity(), "{}", f.name()),
                None => assert!(f.is_random()),
            }
            assert_eq!(
                f.name().starts_with("ease_"),
                f.arity() == 3 && i >= 31,
                "{}",
                f.name()
            );
        }
        let random: Vec<&str> = MathFn::ALL
            .iter()
            .filter(|f| f.is_random())
            .map(|f| f.name())
            .collect();
        assert_eq!(
            random,
            ["die_roll", "die_roll_integer", "random", "random_integer"]
        );
        assert_eq!(
            MathFn::ALL
                .iter()
                .filter(|f| f.name().starts_with("ease_"))
                .count(),
            30
        );
        assert_eq!(MathFn::Pi.arity(), 0);
        assert_eq!(
            MathFn::from_name("MAX"),
            None,
            "names are matched lowercased"
        );
        assert_eq!(MathFn::from_name("tan"), None);
        assert_eq!(MathFn::from_name("math.max"), None);
        for shape in [
            "quad", "cubic", "quart", "quint", "sine", "expo", "circ", "back",
        ] {
            for dir in ["in", "out", "in_out"] {
                assert!(MathFn::from_name(&format!("ease_{dir}_{shape}")).is_some());
            }
        }
    }

    #[test]
    fn eval_calls_the_extern_functions() {
        let args = [0.3_f32, -1.7, 2.5];
        for f in MathFn::ALL {
            let Some(native) = f.native() else { continue };
            let direct = match native {
                NativeFn::A0(g) => g(),
                NativeFn::A1(g) => g(args[0]),
                NativeFn::A2(g) => g(args[0], args[1]),
                NativeFn::A3(g) => g(args[0], args[1], args[2]),
            };
            assert_bits(eval(f, &args[..f.arity()]), direct);
            assert!(!native.addr().is_null());
        }
    }

    #[test]
    fn constants_are_the_engines_bit_patterns() {
        assert_eq!(PI, std::f32::consts::PI);
        // DEG_TO_RAD is the correctly rounded π/180; RAD_TO_DEG is one ulp below 180/π.
        assert_eq!(DEG_TO_RAD, (std::f64::consts::PI / 180.0) as f32);
        assert_eq!(
            RAD_TO_DEG.to_bits() + 1,
            ((180.0 / std::f64::consts::PI) as f32).to_bits()
        );
        assert_eq!(
            SIN_INDEX_SCALE,
            (65536.0 / (2.0 * std::f64::consts::PI)) as f32
        );
        assert_eq!(HALF_PI, std::f32::consts::FRAC_PI_2);
        assert_eq!(TWO_PI, 2.0 * PI);
        assert_eq!(BOUNCE_T1, 1.0 / 2.75);
        assert_eq!(BOUNCE_T2, 2.0 / 2.75);
        assert_eq!(BOUNCE_T3, 2.5 / 2.75);
        assert_eq!(BOUNCE_C2, 1.5 / 2.75);
        assert_eq!(BOUNCE_C3, 2.25 / 2.75);
        assert_eq!(BOUNCE_C4, 2.625 / 2.75);
        assert_eq!(BACK_C1, 1.70158);
        assert_eq!(BACK_C3, 2.70158);
        assert_eq!(BACK_C2, BACK_C1 * 1.525);
        assert_eq!(BACK_C2_PLUS_1, BACK_C2 + 1.0);
        assert_eq!(ELASTIC_SHIFT.to_bits(), 0x3d99_999a);
        assert_eq!(ELASTIC_PERIOD.to_bits(), 0x3e99_999a);
        const { assert!(INVERSE_TRIG_TOLERANCE > 1.0004 && INVERSE_TRIG_TOLERANCE < 1.0006) };
    }

    // ---- edge cases, one group per builtin ----------------------------------------------------

    #[test]
    fn abs_copy_sign_sign() {
        assert_bits(molang_abs(-0.0), 0.0);
        assert_bits(molang_abs(-INF), INF);
        assert!(molang_abs(NAN).is_nan());
        assert_bits(molang_copy_sign(2.0, -0.0), -2.0);
        assert_bits(molang_copy_sign(0.0, -1.0), -0.0);
        assert_bits(molang_copy_sign(-INF, 1.0), INF);
        assert!(molang_copy_sign(NAN, -1.0).is_sign_negative());
        assert_bits(molang_sign(0.0), 1.0);
        assert_bits(molang_sign(-0.0), 1.0);
        assert_bits(molang_sign(NAN), 1.0);
        assert_bits(molang_sign(-1.0e-45), -1.0);
        assert_bits(molang_sign(-INF), -1.0);
        assert_bits(molang_sign(INF), 1.0);
    }

    #[test]
    fn inverse_trig() {
        assert_bits(molang_acos(1.0), 0.0);
        assert_bits(molang_acos(1.0005), 0.0);
        assert_close(molang_acos(-1.0004), 180.0, 1e-4);
        assert_bits(molang_asin(1.0004), 90.0);
        assert_bits(molang_asin(-0.0), -0.0);
        assert_close(molang_acos(-0.0), 90.0, 1e-4);
        assert_close(molang_asin(0.5), 30.0, 1e-4);
        let above = f32::from_bits(INVERSE_TRIG_TOLERANCE.to_bits() + 1);
        for x in [above, -above, 2.0, -2.0, INF, -INF, NAN] {
            assert!(molang_acos(x).is_nan(), "acos({x})");
            assert!(molang_asin(x).is_nan(), "asin({x})");
        }
        assert_bits(molang_atan(-0.0), -0.0);
        assert_close(molang_atan(INF), 90.0, 1e-4);
        assert_close(molang_atan(-INF), -90.0, 1e-4);
        assert!(molang_atan(NAN).is_nan());
        assert_bits(molang_atan2(0.0, 0.0), 0.0);
        assert_bits(molang_atan2(-0.0, 1.0), -0.0);
        assert_close(molang_atan2(0.0, -1.0), 180.0, 1e-4);
        assert_close(molang_atan2(-0.0, -1.0), -180.0, 1e-4);
        assert_close(molang_atan2(-7.0, -7.0), -135.0, 1e-4);
        assert_close(molang_atan2(INF, INF), 45.0, 1e-4);
        assert!(molang_atan2(NAN, 1.0).is_nan() && molang_atan2(1.0, NAN).is_nan());
        // The spec's combined check: round(180 + 26.565...) = 207.
        assert_bits(
            molang_round(molang_acos(-1.0) + molang_atan2(2.0, 4.0)),
            207.0,
        );
    }

    #[test]
    fn sin_and_cos_take_degrees() {
        assert_bits(molang_sin(0.0), 0.0);
        assert_bits(molang_sin(-0.0), -0.0);
        assert_bits(molang_cos(-0.0), 1.0);
        assert_bits(molang_sin(30.0), 0.5);
        assert_bits(molang_cos(60.0), 0.49999997);
        assert_close(molang_sin(180.0), -8.742278e-8, 1e-13);
        assert_close(molang_cos(90.0), -4.371139e-8, 1e-13);
        assert_bits(molang_floor(molang_sin(180.0)), -1.0);
        for x in [INF, -INF, NAN] {
            assert!(molang_sin(x).is_nan() && molang_cos(x).is_nan(), "{x}");
        }
    }

    #[test]
    fn rounding_family() {
        for f in [molang_ceil, molang_floor, molang_round, molang_trunc] {
            assert_bits(f(0.0), 0.0);
            assert_bits(f(-0.0), -0.0);
            assert_bits(f(INF), INF);
            assert_bits(f(-INF), -INF);
            assert!(f(NAN).is_nan());
        }
        assert_bits(molang_ceil(-0.5), -0.0);
        assert_bits(molang_round(-0.4), -0.0);
        assert_bits(molang_trunc(-0.9), -0.0);
        assert_bits(molang_round(2.5), 3.0);
        assert_bits(molang_round(-2.5), -3.0);
        assert_bits(molang_round(0.499_999_97), 0.0);
        assert_bits(molang_round(8_388_609.0), 8_388_609.0);
        assert_bits(molang_trunc(-2.7), -2.0);
        assert_bits(molang_floor(-2.7), -3.0);
        assert_bits(molang_ceil(-2.3), -2.0);
    }

    #[test]
    fn clamp_max_min() {
        assert_bits(molang_clamp(3.0, 2.0, 1.0), 1.0);
        assert_bits(molang_clamp(0.0, 2.0, 1.0), 2.0);
        assert_bits(molang_clamp(NAN, 1.0, 2.0), 1.0);
        assert!(molang_clamp(4.0, NAN, 5.0).is_nan());
        assert_bits(molang_clamp(4.0, 1.0, NAN), 4.0);
        assert_bits(molang_clamp(-0.0, 0.0, 1.0), 0.0);
        assert_bits(molang_clamp(0.0, -0.0, 1.0), -0.0);
        assert_bits(molang_clamp(INF, 0.0, 1.0), 1.0);
        assert_bits(molang_clamp(-INF, 0.0, 1.0), 0.0);
        assert_bits(molang_max(NAN, 4.0), 4.0);
        assert!(molang_max(4.0, NAN).is_nan());
        assert_bits(molang_min(NAN, 4.0), 4.0);
        assert!(molang_min(4.0, NAN).is_nan());
        assert_bits(molang_max(0.0, -0.0), -0.0);
        assert_bits(molang_min(-0.0, 0.0), 0.0);
        assert_bits(molang_max(-INF, INF), INF);
    }

    #[test]
    fn exp_ln_pow_sqrt() {
        assert_bits(molang_exp(0.0), 1.0);
        assert_bits(molang_exp(-0.0), 1.0);
        assert_bits(molang_exp(1.0), std::f32::consts::E);
        assert_bits(molang_exp(-INF), 0.0);
        assert_bits(molang_exp(INF), INF);
        assert_bits(molang_exp(100.0), INF);
        assert!(molang_exp(NAN).is_nan());
        assert_bits(molang_ln(1.0), 0.0);
        assert_bits(molang_ln(0.0), -INF);
        assert_bits(molang_ln(-0.0), -INF);
        assert_bits(molang_ln(INF), INF);
        assert!(molang_ln(-1.0).is_nan() && molang_ln(-INF).is_nan() && molang_ln(NAN).is_nan());
        assert_bits(molang_pow(2.0, 10.0), 1024.0);
        assert_bits(molang_pow(9.0, 0.5), 3.0);
        assert_bits(molang_pow(-2.0, 3.0), -8.0);
        assert_bits(molang_pow(NAN, 0.0), 1.0);
        assert_bits(molang_pow(1.0, NAN), 1.0);
        assert_bits(molang_pow(0.0, -1.0), INF);
        assert_bits(molang_pow(-0.0, -1.0), -INF);
        assert_bits(molang_pow(-0.0, 3.0), -0.0);
        assert_bits(molang_pow(0.5, INF), 0.0);
        assert!(molang_pow(-8.0, 1.0 / 3.0).is_nan());
        assert_bits(molang_sqrt(16.0), 4.0);
        assert_bits(molang_sqrt(-0.0), -0.0);
        assert_bits(molang_sqrt(INF), INF);
        assert!(molang_sqrt(-1.0).is_nan() && molang_sqrt(-INF).is_nan());
    }

    #[test]
    fn modulo() {
        assert_bits(molang_mod(7.0, 3.0), 1.0);
        assert_bits(molang_mod(-7.0, 3.0), -1.0);
        assert_bits(molang_mod(7.0, -3.0), 1.0);
        assert_bits(molang_mod(5.5, 2.0), 1.5);
        assert_bits(molang_mod(-0.5, 1.0), -0.5);
        assert_bits(molang_mod(-5.1, 3.0), -2.1);
        assert_bits(molang_mod(0.6, 0.5), 0.6_f32 % 0.5);
        for a in [5.0, -5.0, 0.0, NAN, INF] {
            assert_bits(molang_mod(a, 0.0), 0.0);
            assert_bits(molang_mod(a, -0.0), 0.0);
        }
        assert_bits(molang_mod(-6.0, 3.0), 0.0);
        assert_bits(molang_mod(-0.0, 3.0), 0.0);
        assert_bits(molang_mod(5.0, INF), 5.0);
        assert_bits(molang_mod(-5.0, -INF), -5.0);
        assert!(molang_mod(INF, 2.0).is_nan() && molang_mod(NAN, 2.0).is_nan());
        assert!(molang_mod(2.0, NAN).is_nan());
    }

    #[test]
    fn interpolation_family() {
        assert_bits(molang_lerp(10.0, 20.0, 0.25), 12.5);
        assert_bits(molang_lerp(0.0, 10.0, 1.5), 15.0);
        assert!(molang_lerp(0.0, INF, 0.0).is_nan());
        assert_bits(molang_lerp(0.0, 1.0, INF), INF);
        assert_bits(molang_lerp(1.0, 0.0, INF), -INF);
        assert!(molang_lerp(NAN, 1.0, 0.5).is_nan());
        assert_bits(molang_inverse_lerp(10.0, 20.0, 25.0), 1.5);
        assert_bits(molang_inverse_lerp(6.0, 2.0, 5.0), 0.25);
        assert_bits(molang_inverse_lerp(5.0, 5.0, 6.0), INF);
        assert_bits(molang_inverse_lerp(5.0, 5.0, 4.0), -INF);
        assert!(molang_inverse_lerp(5.0, 5.0, 5.0).is_nan());
        assert_bits(molang_inverse_lerp(0.0, INF, 1.0), 0.0);
        for (t, want) in [
            (0.0, 0.0),
            (1.0, 1.0),
            (0.5, 0.5),
            (0.25, 0.15625),
            (-1.0, 5.0),
        ] {
            assert_bits(molang_hermite_blend(t), want);
        }
        assert_bits(molang_hermite_blend(2.0), -4.0);
        assert_bits(molang_hermite_blend(-0.0), 0.0);
        // (b − a) is +0 here, so the sum with a = −0 is +0.
        assert_bits(molang_lerp(-0.0, -0.0, 0.5), 0.0);
        assert_bits(molang_lerp(-0.0, 0.0, -0.0), -0.0);
        assert!(molang_hermite_blend(INF).is_nan(), "∞ − ∞ on x86-64");
        assert_bits(molang_hermite_blend(-INF), INF);
        assert!(molang_hermite_blend(NAN).is_nan());
        let t = f32::from_bits(0x3fde_6363);
        assert_eq!(
            molang_hermite_blend(t).to_bits(),
            0xbfb7_7588,
            "term-by-term order"
        );
    }

    #[test]
    fn angles() {
        for (x, want) in [
            (0.0, 0.0),
            (45.0, 45.0),
            (179.0, 179.0),
            (180.0, -180.0),
            (-180.0, -180.0),
            (190.0, -170.0),
            (-190.0, 170.0),
            (359.0, -1.0),
            (360.0, 0.0),
            (-360.0, 0.0),
            (370.0, 10.0),
            (-370.0, -10.0),
            (540.0, -180.0),
            (-540.0, -180.0),
        ] {
            assert_bits(molang_min_angle(x), want);
        }
        assert_bits(molang_min_angle(-0.0), 0.0);
        assert!(molang_min_angle(INF).is_nan() && molang_min_angle(NAN).is_nan());
        // `x + 180` is rounded first: 1180 + 2^-14 is a tie on the f32 grid there.
        let step = 2.0_f32.powi(-14);
        assert_bits(molang_min_angle(1000.0 + step), -80.0);
        for (a, b, t, want) in [
            (10.0, 20.0, 0.5, 15.0),
            (20.0, 10.0, 0.1, 19.0),
            (10.0, 380.0, 0.5, 15.0),
            (170.0, 190.0, 0.5, 180.0),
            (350.0, 10.0, 0.5, 360.0),
            (10.0, 350.0, 0.5, 0.0),
            (0.0, 180.0, 0.5, -90.0),
            (0.0, 90.0, 2.0, 180.0),
        ] {
            assert_bits(molang_lerprotate(a, b, t), want);
        }
        assert!(molang_lerprotate(0.0, INF, 0.5).is_nan());
        assert!(molang_lerprotate(0.0, 90.0, NAN).is_nan());
    }

    // ---- easings ------------------------------------------------------------------------------

    fn eases() -> impl Iterator<Item = (MathFn, extern "C" fn(f32, f32, f32) -> f32)> {
        MathFn::ALL.into_iter().filter_map(|f| match f.native() {
            Some(NativeFn::A3(g)) if f.name().starts_with("ease_") => Some((f, g)),
            _ => None,
        })
    }

    #[test]
    fn easing_key_points() {
        // Curve values at t = 0, .25, .5, .75, 1 (start 0, end 1). The polynomial curves are
        // exact in f32; the others are checked to a tolerance.
        let curves: [(&str, [f32; 5], f32); 30] = [
            ("in_quad", [0.0, 0.0625, 0.25, 0.5625, 1.0], 0.0),
            ("out_quad", [0.0, 0.4375, 0.75, 0.9375, 1.0], 0.0),
            ("in_out_quad", [0.0, 0.125, 0.5, 0.875, 1.0], 0.0),
            ("in_cubic", [0.0, 0.015625, 0.125, 0.421875, 1.0], 0.0),
            ("out_cubic", [0.0, 0.578125, 0.875, 0.984375, 1.0], 0.0),
            ("in_out_cubic", [0.0, 0.0625, 0.5, 0.9375, 1.0], 0.0),
            ("in_quart", [0.0, 0.00390625, 0.0625, 0.31640625, 1.0], 0.0),
            ("out_quart", [0.0, 0.68359375, 0.9375, 0.99609375, 1.0], 0.0),
            ("in_out_quart", [0.0, 0.03125, 0.5, 0.96875, 1.0], 0.0),
            (
                "in_quint",
                [0.0, 0.0009765625, 0.03125, 0.2373046875, 1.0],
                0.0,
            ),
            (
                "out_quint",
                [0.0, 0.7626953125, 0.96875, 0.9990234375, 1.0],
                0.0,
            ),
            ("in_out_quint", [0.0, 0.015625, 0.5, 0.984375, 1.0], 0.0),
            (
                "in_sine",
                [0.0, 0.076120467, 0.29289322, 0.61731657, 1.0],
                3e-4,
            ),
            (
                "out_sine",
                [0.0, 0.38268343, 0.70710678, 0.92387953, 1.0],
                3e-4,
            ),
            ("in_out_sine", [0.0, 0.14644661, 0.5, 0.85355339, 1.0], 3e-4),
            (
                "in_expo",
                [0.0009765625, 0.005524272, 0.03125, 0.1767767, 1.0],
                5e-6,
            ),
            (
                "out_expo",
                [0.0, 0.8232233, 0.96875, 0.99447573, 0.99902344],
                5e-6,
            ),
            (
                "in_out_expo",
                [0.00048828125, 0.015625, 0.5, 0.984375, 0.99951172],
                5e-6,
            ),
            (
                "in_circ",
                [0.0, 0.031754163, 0.1339746, 0.33856217, 1.0],
                5e-6,
            ),
            (
                "out_circ",
                [0.0, 0.66143783, 0.8660254, 0.96824584, 1.0],
                5e-6,
            ),
            ("in_out_circ", [0.0, 0.066987298, 0.5, 0.9330127, 1.0], 5e-6),
            (
                "in_back",
                [0.0, -0.064136565, -0.0876975, 0.18259031, 1.0],
                5e-6,
            ),
            (
                "out_back",
                [0.0, 0.81740969, 1.0876975, 1.0641366, 1.0],
                5e-6,
            ),
            (
                "in_out_back",
                [0.0, -0.099681838, 0.5, 1.0996818, 1.0],
                5e-6,
            ),
            (
                "in_elastic",
                [0.0, -0.005524272, -0.015625, 0.088388348, 1.0],
                3e-4,
            ),
            (
                "out_elastic",
                [0.0, 0.91161165, 1.015625, 1.0055243, 1.0],
                3e-4,
            ),
            (
                "in_out_elastic",
                [0.0, -0.0078125, 0.5, 1.0078125, 1.0],
                3e-4,
            ),
            (
                "in_bounce",
                [0.0, 0.02734375, 0.234375, 0.52734375, 1.0],
                5e-6,
            ),
            (
                "out_bounce",
                [0.0, 0.47265625, 0.765625, 0.97265625, 1.0],
                5e-6,
            ),
            ("in_out_bounce", [0.0, 0.1171875, 0.5, 0.8828125, 1.0], 5e-6),
        ];
        for (name, values, tol) in curves {
            let f = MathFn::from_name(&format!("ease_{name}")).unwrap();
            for (t, want) in [0.0, 0.25, 0.5, 0.75, 1.0].into_iter().zip(values) {
                let got = call(f, &[0.0, 1.0, t]);
                if tol == 0.0 {
                    assert_bits(got, want);
                } else {
                    assert_close(got, want, tol);
                }
            }
        }
        // The spec's examples.
        assert_bits(molang_ease_in_quad(0.0, 10.0, 0.5), 2.5);
        assert_bits(molang_ease_out_cubic(0.0, 10.0, 0.5), 8.75);
        assert_bits(molang_ease_in_out_quad(0.0, 1.0, 0.25), 0.125);
        assert_bits(molang_ease_in_out_cubic(0.0, 1.0, 0.25), 0.0625);
    }

    #[test]
    fn easing_edges() {
        // t is not clamped.
        assert_bits(molang_ease_in_quad(0.0, 1.0, 2.0), 4.0);
        assert_bits(molang_ease_in_quad(0.0, 1.0, -2.0), 4.0);
        assert_bits(molang_ease_in_cubic(0.0, 1.0, -2.0), -8.0);
        assert_bits(molang_ease_out_quad(0.0, 1.0, 2.0), 0.0);
        assert_bits(molang_ease_in_expo(0.0, 1.0, 2.0), 1024.0);
        assert_bits(molang_ease_in_quad(10.0, 20.0, 2.0), 50.0);
        assert!(molang_ease_in_circ(0.0, 1.0, 2.0).is_nan());
        assert!(molang_ease_out_circ(0.0, 1.0, -1.0).is_nan());
        // Expo has no endpoint cases.
        assert_bits(molang_ease_in_expo(1.0, 5.0, 0.0), 1.003_906_25);
        assert_bits(molang_ease_out_expo(1.0, 5.0, 1.0), 4.996_093_75);
        assert_bits(molang_ease_in_out_expo(1.0, 5.0, 0.0), 1.001_953_125);
        assert_bits(molang_ease_in_out_expo(1.0, 5.0, 1.0), 4.998_046_875);
        assert_bits(molang_ease_out_expo(0.0, 1.0, 1.0), 0.999_023_437_5);
        assert_bits(molang_ease_in_expo(0.0, 1.0, 0.0), 0.000_976_562_5);
        assert_bits(molang_ease_in_expo(0.0, 1.0, -INF), 0.0);
        assert_bits(molang_ease_out_expo(0.0, 1.0, INF), 1.0);
        // Elastic returns its ends exactly at t = 0 and t = 1 (the end as start + (end − start)).
        for g in [
            molang_ease_in_elastic,
            molang_ease_out_elastic,
            molang_ease_in_out_elastic,
        ] {
            assert_bits(g(1.0, 5.0, 0.0), 1.0);
            assert_bits(g(1.0, 5.0, -0.0), 1.0);
            assert_bits(g(1.0, 5.0, 1.0), 5.0);
            assert_bits(g(-0.0, 5.0, 0.0), -0.0);
            assert_bits(g(0.3, 0.1, 1.0), 0.3 + (0.1 - 0.3));
        }
        // Infinite t.
        assert_bits(molang_ease_in_quad(0.0, 1.0, INF), INF);
        assert_bits(molang_ease_in_cubic(0.0, 1.0, -INF), -INF);
        assert_bits(molang_ease_in_out_quad(1.0, 5.0, INF), -INF);
        assert!(molang_ease_in_circ(0.0, 1.0, INF).is_nan());
        // Rounding in formula order: -0 + 0 where a reassociated form would overflow.
        assert_bits(molang_ease_in_quad(-0.0, 0.0, -1.0e38), 0.0);
        // An empty range gives the start for every easing and t.
        for (f, g) in eases() {
            for t in [0.0, 0.1, 0.25, 0.5, 0.9, 1.0] {
                assert_bits(g(2.5, 2.5, t), 2.5);
            }
            // A NaN t gives NaN, except the sine easings, which read table entry 0.
            let at_nan = g(1.0, 5.0, NAN);
            if f.name().ends_with("sine") {
                assert!(!at_nan.is_nan(), "{}", f.name());
            } else {
                assert!(at_nan.is_nan(), "{}", f.name());
            }
        }
        assert_bits(molang_ease_out_sine(1.0, 5.0, NAN), 1.0);
        assert_bits(molang_ease_in_sine(1.0, 5.0, NAN), 5.0);
        assert_bits(molang_ease_in_out_sine(1.0, 5.0, NAN), 3.0);
        assert!(molang_ease_in_out_bounce(0.0, 1.0, NAN).is_nan());
        // Rounding order: c·t·t·t·t in order.
        assert_eq!(molang_ease_in_quart(0.0, 1.0, 0.1).to_bits(), 0x38d1_b718);
    }

    #[test]
    fn the_sine_table() {
        assert_bits(sin_table_entry(0), 0.0);
        assert_close(sin_table_entry(16_384), 1.0, 1e-6);
        assert_close(sin_table_entry(32_768), 0.0, 2e-5);
        assert_close(sin_table_entry(49_152), -1.0, 1e-6);
        for i in [0, 1, 5, 1000, 40_000, 65_535] {
            assert_bits(sin_table_entry(i + 65_536), sin_table_entry(i));
            assert_bits(sin_table_entry(i - 65_536), sin_table_entry(i));
        }
        assert_bits(sin_table_entry(-1), sin_table_entry(65_535));
        assert_bits(sin_table_entry(i32::MIN), sin_table_entry(0));
        // Index = trunc(angle · scale): toward zero for negative angles too.
        assert_bits(table_sin(1.5 / SIN_INDEX_SCALE), sin_table_entry(1));
        assert_bits(table_sin(-3.5 / SIN_INDEX_SCALE), sin_table_entry(-3));
        assert_bits(table_cos(0.0), sin_table_entry(16_384));
        assert_bits(table_cos(1.5 / SIN_INDEX_SCALE), sin_table_entry(16_385));
        // NaN, infinities and huge angles truncate to i32::MIN (x86-64), i.e. entry 0.
        for x in [NAN, INF, -INF, 1.0e6] {
            assert_bits(table_sin(x), 0.0);
        }
        assert_bits(table_cos(NAN), 0.0);
        // Quantised: close to, but not always equal to, the real sine.
        let mut differs = false;
        for step in 1..100 {
            let radians = step as f32 / 100.0 * HALF_PI;
            let exact = f64::from(radians).sin() as f32;
            assert_close(table_sin(radians), exact, 1e-4);
            differs |= table_sin(radians) != exact;
        }
        assert!(differs);
    }

    /// Bit patterns at t values where a regrouped angle or another period would read a
    /// neighbouring table entry (x86-64 values, also recorded by molangx).
    #[test]
    fn elastic_reads_the_table_at_the_three_step_angle() {
        for (g, t, bits) in [
            (
                molang_ease_in_elastic as extern "C" fn(f32, f32, f32) -> f32,
                0.2235,
                0xbb80_080a,
            ),
            (molang_ease_in_elastic, 0.4485, 0x3c3c_cdfe),
            (molang_ease_out_elastic, 0.0375, 0x3ee8_d482),
            (molang_ease_out_elastic, 0.1875, 0x3f98_ad80),
            (molang_ease_in_out_elastic, 0.0125, 0x2e5f_42b2),
            (molang_ease_in_out_elastic, 0.0875, 0xb429_1280),
        ] {
            assert_eq!(g(0.0, 1.0, t).to_bits(), bits, "t = {t}");
        }
        assert_eq!(molang_ease_in_elastic(1.0, 5.0, 0.9).to_bits(), 0x386a_4000);
    }

    // ---- random -------------------------------------------------------------------------------

    /// Plays back samples (as the words that produce them) and counts the draws.
    struct Script {
        samples: Vec<f32>,
        draws: usize,
    }

    impl MolangRng for Script {
        fn next_u32(&mut self) -> u32 {
            let r = self.samples[self.draws % self.samples.len()];
            self.draws += 1;
            if r >= 1.0 {
                0x7fff_ffff
            } else {
                (f64::from(r) * 2_147_483_648.0) as u32
            }
        }
    }

    fn script(samples: &[f32]) -> Script {
        Script {
            samples: samples.to_vec(),
            draws: 0,
        }
    }

    #[test]
    fn default_rng_is_splitmix64() {
        let mut rng = DefaultRng::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let mut a = DefaultRng::new(42);
        let mut b = DefaultRng::new(42);
        let mut c = DefaultRng::new(43);
        let xs: Vec<u32> = (0..8).map(|_| a.next_u32()).collect();
        let ys: Vec<u32> = (0..8).map(|_| b.next_u32()).collect();
        let zs: Vec<u32> = (0..8).map(|_| c.next_u32()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        assert_eq!(DefaultRng::new(0).next_u32(), 0xe220_a839);
    }

    #[test]
    fn samples_cover_the_closed_unit_interval() {
        struct Word(u32);
        impl MolangRng for Word {
            fn next_u32(&mut self) -> u32 {
                self.0
            }
        }
        assert_bits(sample(&mut Word(0)), 0.0);
        assert_bits(sample(&mut Word(0x8000_0000)), 0.0);
        assert_bits(sample(&mut Word(1 << 30)), 0.5);
        assert_bits(sample(&mut Word(0x7fff_ffff)), 1.0);
        assert_bits(sample(&mut Word(u32::MAX)), 1.0);
        assert_eq!(sample(&mut Word(0x7fff_ffbf)).to_bits(), 0x3f7f_ffff);
        let mut rng = DefaultRng::new(7);
        for _ in 0..10_000 {
            assert!((0.0..=1.0).contains(&sample(&mut rng)));
        }
    }

    #[test]
    fn random_draws_once_over_the_sorted_bounds() {
        for (r, want) in [(0.0, 2.0), (0.5, 4.5), (1.0, 7.0)] {
            let mut rng = script(&[r]);
            assert_bits(eval_random(MathFn::Random, &[2.0, 7.0], &mut rng), want);
            let mut rng2 = script(&[r]);
            assert_bits(eval_random(MathFn::Random, &[7.0, 2.0], &mut rng2), want);
            assert_eq!(rng.draws, 1);
        }
        assert_bits(
            eval_random(MathFn::Random, &[3.0, 3.0], &mut script(&[0.3])),
            3.0,
        );
        assert!(eval_random(MathFn::Random, &[NAN, 4.0], &mut script(&[0.5])).is_nan());
        assert!(eval_random(MathFn::Random, &[4.0, NAN], &mut script(&[0.5])).is_nan());
        assert!(eval_random(MathFn::RandomInteger, &[NAN, 4.0], &mut script(&[0.5])).is_nan());
        assert!(eval_random(MathFn::Random, &[-INF, INF], &mut script(&[0.5])).is_nan());
        let mut rng = DefaultRng::new(1);
        for _ in 0..2000 {
            let v = eval_random(MathFn::Random, &[-1.5, 2.5], &mut rng);
            assert!((-1.5..=2.5).contains(&v), "{v}");
        }
    }

    #[test]
    fn random_integer_is_inclusive_and_integral() {
        let mut rng = script(&[0.0, 1.0, 0.5, 0.999, 0.1, 0.17]);
        let got: Vec<f32> = (0..6)
            .map(|_| eval_random(MathFn::RandomInteger, &[2.0, 7.0], &mut rng))
            .collect();
        assert_eq!(got, [2.0, 7.0, 4.0, 7.0, 2.0, 3.0]);
        assert_eq!(rng.draws, 6);
        let mut seen = [0_u32; 6];
        let mut rng = DefaultRng::new(3);
        for _ in 0..6000 {
            let v = eval_random(MathFn::RandomInteger, &[6.0, 1.0], &mut rng);
            assert!(v.fract() == 0.0 && (1.0..=6.0).contains(&v), "{v}");
            seen[v as usize - 1] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "roughly uniform: {seen:?}");
        // Bounds are not rounded: the draw stays inside the given bounds.
        assert_bits(
            eval_random(MathFn::RandomInteger, &[0.5, 3.0], &mut script(&[0.0])),
            0.5,
        );
        assert_bits(
            eval_random(MathFn::RandomInteger, &[0.0, 2.5], &mut script(&[1.0])),
            2.5,
        );
    }

    #[test]
    fn die_rolls() {
        // n is truncated; n <= 0 (or NaN, or out of i32 range) rolls nothing and draws nothing.
        for (n, count) in [
            (0.0, 0),
            (0.9, 0),
            (1.0, 1),
            (2.9, 2),
            (-1.0, 0),
            (NAN, 0),
            (1e10, 0),
        ] {
            assert_eq!(die_roll_count(n), count, "{n}");
        }
        for f in [MathFn::DieRoll, MathFn::DieRollInteger] {
            let mut rng = script(&[0.5]);
            for n in [0.0, 0.9, -3.0, NAN, -INF] {
                assert_bits(eval_random(f, &[n, 1.0, 6.0], &mut rng), 0.0);
            }
            assert_eq!(rng.draws, 0);
            let mut rng = script(&[1.0]);
            // Bounds are floored and sorted: (2.9, 6.9, 1.9) rolls 2 × 6.
            assert_bits(eval_random(f, &[2.9, 6.9, 1.9], &mut rng), 12.0);
            assert_eq!(rng.draws, 2);
        }
        let mut rng = script(&[0.0, 1.0, 0.5]);
        assert_bits(
            eval_random(MathFn::DieRoll, &[3.0, 1.0, 6.0], &mut rng),
            1.0 + 6.0 + 3.5,
        );
        let mut rng = script(&[0.0, 1.0, 0.5]);
        // At r = 0.5 the integer draw over [1, 6] is floor(0.5 + 3.4999996) = 3.
        assert_bits(
            eval_random(MathFn::DieRollInteger, &[3.0, 1.0, 6.0], &mut rng),
            1.0 + 6.0 + 3.0,
        );
        assert_bits(
            eval_random(MathFn::DieRoll, &[1.0, -1.5, 3.5], &mut script(&[0.0])),
            -2.0,
        );
        let mut rng = DefaultRng::new(11);
        for _ in 0..2000 {
            let v = eval_random(MathFn::DieRollInteger, &[2.0, 1.0, 6.0], &mut rng);
            assert!(v.fract() == 0.0 && (2.0..=12.0).contains(&v), "{v}");
            let w = eval_random(MathFn::DieRoll, &[3.0, 0.0, 1.0], &mut rng);
            assert!((0.0..=3.0).contains(&w), "{w}");
        }
    }

    #[test]
    fn eval_random_of_a_plain_builtin_draws_nothing() {
        let mut rng = script(&[0.5]);
        assert_bits(eval_random(MathFn::Max, &[1.0, 2.0], &mut rng), 2.0);
        assert_bits(eval_random(MathFn::Pi, &[], &mut rng), PI);
        assert_eq!(rng.draws, 0);
    }
}
