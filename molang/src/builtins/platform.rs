//! The two float behaviours of the game, chosen by the CPU it runs on, and the arm64 primitive
//! operations. A leaf module: `std` only.
//!
//! * [`Platform::X86_64`] (Windows, consoles): every operation rounded on its own, every
//!   comparison with a NaN false, `min`/`max` the second operand when either is NaN, a NaN
//!   operand of `+ − · /` returned quietened (the left one of two), `0/0`-style invalid
//!   operations giving `0xffc00000`. That is also what the host's SSE instructions do, so the
//!   x86-64 rules are Rust's and Cranelift's own operators.
//! * [`Platform::Arm64`] (Android, iOS): `min`/`max` ignore a NaN operand, `<` and `<=` are
//!   true with a NaN operand, a NaN divisor fires the division guard, multiply-adds are rounded
//!   once, and the arithmetic chooses its NaN as [`arm64::nan_of`] says (invalid operations give
//!   `0x7fc00000`). These are computed here in software, whatever the host.
//!
//! Source: molangx `src/numeric/arch/arm64.rs` and `x86_64.rs` (commit ffa4a42), its model of
//! the engine's compiled code on each CPU; see the rule table in [`crate::builtins::math`].

/// The CPU family the game runs on, which decides the float rules above.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Platform {
    /// Windows, Xbox, PlayStation (and the dedicated server on x86-64).
    #[default]
    X86_64,
    /// Android, iOS, Switch and other arm devices.
    Arm64,
}

impl Platform {
    /// Both platforms, the default first.
    pub const ALL: [Platform; 2] = [Platform::X86_64, Platform::Arm64];

    /// The name the command line and test files use: `x86-64` or `arm64`.
    pub fn name(self) -> &'static str {
        match self {
            Platform::X86_64 => "x86-64",
            Platform::Arm64 => "arm64",
        }
    }

    /// Reads `x86-64` / `x86_64` / `x64` or `arm64` / `aarch64` (any case).
    pub fn from_name(name: &str) -> Option<Platform> {
        match name.to_ascii_lowercase().as_str() {
            "x86-64" | "x86_64" | "x64" | "amd64" => Some(Platform::X86_64),
            "arm64" | "aarch64" => Some(Platform::Arm64),
            _ => None,
        }
    }

    /// `a < b` as compiled for this platform.
    #[inline]
    pub fn lt(self, a: f32, b: f32) -> bool {
        match self {
            Platform::X86_64 => a < b,
            Platform::Arm64 => arm64::lt(a, b),
        }
    }

    /// `a <= b` as compiled for this platform.
    #[inline]
    pub fn le(self, a: f32, b: f32) -> bool {
        match self {
            Platform::X86_64 => a <= b,
            Platform::Arm64 => arm64::le(a, b),
        }
    }

    /// Whether the division guard gives 0 for divisor `d`: `|d| < 2^-23`, and on arm64 also a
    /// NaN `d` (the guard is compiled as `!(|d| >= ε)` there).
    #[inline]
    pub fn guard_fires(self, d: f32) -> bool {
        match self {
            Platform::X86_64 => d.abs() < f32::EPSILON,
            Platform::Arm64 => d.abs() < f32::EPSILON || d.is_nan(),
        }
    }

    /// Truncating float-to-int: x86-64's `cvttss2si` gives `i32::MIN` for NaN and anything
    /// outside the `i32` range; arm64's `fcvtzs` saturates and reads NaN as 0.
    #[inline]
    pub fn to_int(self, v: f32) -> i32 {
        match self {
            Platform::X86_64 => {
                if (-2_147_483_648.0..2_147_483_648.0).contains(&v) {
                    v as i32
                } else {
                    i32::MIN
                }
            }
            // Rust's `as` is exactly `fcvtzs`: saturating, NaN to 0.
            Platform::Arm64 => v as i32,
        }
    }

    /// `a + b`.
    #[inline]
    pub fn add(self, a: f32, b: f32) -> f32 {
        match self {
            Platform::X86_64 => a + b,
            Platform::Arm64 => arm64::add(a, b),
        }
    }

    /// `a − b`.
    #[inline]
    pub fn sub(self, a: f32, b: f32) -> f32 {
        match self {
            Platform::X86_64 => a - b,
            Platform::Arm64 => arm64::sub(a, b),
        }
    }

    /// `a · b`.
    #[inline]
    pub fn mul(self, a: f32, b: f32) -> f32 {
        match self {
            Platform::X86_64 => a * b,
            Platform::Arm64 => arm64::mul(a, b),
        }
    }

    /// `a / b` (no guard).
    #[inline]
    pub fn div(self, a: f32, b: f32) -> f32 {
        match self {
            Platform::X86_64 => a / b,
            Platform::Arm64 => arm64::div(a, b),
        }
    }

    /// This platform's position in per-platform pairs (`[x86-64, arm64]`).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// `a·b + c`: rounded twice on x86-64, once on arm64 (`fmadd`).
    #[inline]
    pub fn mul_add(self, a: f32, b: f32, c: f32) -> f32 {
        match self {
            Platform::X86_64 => a * b + c,
            Platform::Arm64 => arm64::mul_add(a, b, c),
        }
    }

    /// `c − a·b`: rounded twice on x86-64, once on arm64 (`fmsub`).
    #[inline]
    pub fn mul_sub(self, a: f32, b: f32, c: f32) -> f32 {
        match self {
            Platform::X86_64 => c - a * b,
            Platform::Arm64 => arm64::mul_add(-a, b, c),
        }
    }
}

/// The arm64 operations, computed in software so that any host gives arm64's bits.
pub mod arm64 {
    /// The NaN of an invalid operation on arm64 (`FPCR.DN` off): sign clear, quiet, no payload.
    pub const DEFAULT_NAN: f32 = f32::from_bits(0x7fc0_0000);

    const QUIET_BIT: u32 = 0x0040_0000;

    #[inline]
    fn is_signalling(x: f32) -> bool {
        x.is_nan() && x.to_bits() & QUIET_BIT == 0
    }

    #[inline]
    fn quiet(x: f32) -> f32 {
        f32::from_bits(x.to_bits() | QUIET_BIT)
    }

    /// The NaN an operation returns, its operands given in the order the hardware checks them:
    /// the first signalling NaN quietened, else the first quiet NaN, else [`DEFAULT_NAN`].
    #[cold]
    pub fn nan_of(operands: &[f32]) -> f32 {
        if let Some(&s) = operands.iter().find(|x| is_signalling(**x)) {
            return quiet(s);
        }
        match operands.iter().find(|x| x.is_nan()) {
            Some(&n) => quiet(n),
            None => DEFAULT_NAN,
        }
    }

    /// `r`, or the NaN arm64 chooses from `operands` when `r` is NaN.
    #[inline]
    fn chosen(r: f32, operands: &[f32]) -> f32 {
        if r.is_nan() {
            nan_of(operands)
        } else {
            r
        }
    }

    /// `a + b`, the left operand checked first.
    #[inline]
    pub fn add(a: f32, b: f32) -> f32 {
        chosen(a + b, &[a, b])
    }

    /// `a − b`.
    #[inline]
    pub fn sub(a: f32, b: f32) -> f32 {
        chosen(a - b, &[a, b])
    }

    /// `a · b`.
    #[inline]
    pub fn mul(a: f32, b: f32) -> f32 {
        chosen(a * b, &[a, b])
    }

    /// `a / b`.
    #[inline]
    pub fn div(a: f32, b: f32) -> f32 {
        chosen(a / b, &[a, b])
    }

    /// `a·b + c` rounded once (`fmadd`). A NaN result checks `c`, then `a`, then `b`; `∞·0`
    /// with a quiet NaN addend is an invalid operation (the default NaN).
    #[inline]
    pub fn mul_add(a: f32, b: f32, c: f32) -> f32 {
        let r = a.mul_add(b, c);
        if !r.is_nan() {
            return r;
        }
        let inf_times_zero = (a.is_infinite() && b == 0.0) || (a == 0.0 && b.is_infinite());
        if inf_times_zero && c.is_nan() && !is_signalling(c) {
            DEFAULT_NAN
        } else {
            nan_of(&[c, a, b])
        }
    }

    /// [`add`] for generated code.
    pub extern "C" fn molang_arm64_add(a: f32, b: f32) -> f32 {
        add(a, b)
    }

    /// [`sub`] for generated code.
    pub extern "C" fn molang_arm64_sub(a: f32, b: f32) -> f32 {
        sub(a, b)
    }

    /// [`mul`] for generated code.
    pub extern "C" fn molang_arm64_mul(a: f32, b: f32) -> f32 {
        mul(a, b)
    }

    /// [`div`] for generated code.
    pub extern "C" fn molang_arm64_div(a: f32, b: f32) -> f32 {
        div(a, b)
    }

    /// [`mul_add`] for generated code.
    pub extern "C" fn molang_arm64_mul_add(a: f32, b: f32, c: f32) -> f32 {
        mul_add(a, b, c)
    }

    /// `fmaxnm`: a NaN against a number gives the number, of two NaNs the second (as it is);
    /// `+0` is greater than `−0`.
    #[inline]
    pub fn max(a: f32, b: f32) -> f32 {
        if a.is_nan() {
            return b;
        }
        if b.is_nan() || a > b || (a == b && a.is_sign_positive()) {
            a
        } else {
            b
        }
    }

    /// `fminnm`: as [`max`], `−0` less than `+0`.
    #[inline]
    pub fn min(a: f32, b: f32) -> f32 {
        if a.is_nan() {
            return b;
        }
        if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
            a
        } else {
            b
        }
    }

    /// `a < b`, compiled as `!(a >= b)`: true with a NaN.
    #[inline]
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn lt(a: f32, b: f32) -> bool {
        !(a >= b)
    }

    /// `a <= b`, compiled as `!(a > b)`: true with a NaN.
    #[inline]
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn le(a: f32, b: f32) -> bool {
        !(a > b)
    }
}

#[cfg(test)]
mod tests {
    use super::arm64::*;
    use super::Platform;

    const Q1: f32 = f32::from_bits(0x7fc0_0001);
    const NQ2: f32 = f32::from_bits(0xffc0_0002);
    const S3: f32 = f32::from_bits(0x7f80_0003);

    #[test]
    fn names_round_trip() {
        for p in Platform::ALL {
            assert_eq!(Platform::from_name(p.name()), Some(p));
        }
        assert_eq!(Platform::from_name("AArch64"), Some(Platform::Arm64));
        assert_eq!(Platform::from_name("arm"), None);
    }

    #[test]
    fn arm64_arithmetic_chooses_its_nan() {
        let inf = f32::INFINITY;
        assert_eq!(add(inf, -inf).to_bits(), 0x7fc0_0000);
        assert_eq!(mul(Q1, NQ2).to_bits(), 0x7fc0_0001);
        assert_eq!(mul(Q1, S3).to_bits(), 0x7fc0_0003, "a signalling NaN wins");
        assert_eq!(div(1.0, NQ2).to_bits(), 0xffc0_0002);
        assert_eq!(
            mul_add(Q1, 2.0, NQ2).to_bits(),
            0xffc0_0002,
            "the addend first"
        );
        assert_eq!(mul_add(inf, 0.0, Q1).to_bits(), 0x7fc0_0000);
    }

    #[test]
    fn arm64_min_max_and_comparisons() {
        let n = f32::NAN;
        assert_eq!(max(4.0, n), 4.0);
        assert_eq!(max(n, 4.0), 4.0);
        assert_eq!(min(4.0, n), 4.0);
        assert_eq!(max(Q1, NQ2).to_bits(), NQ2.to_bits());
        assert_eq!(max(0.0, -0.0).to_bits(), 0);
        assert_eq!(min(0.0, -0.0).to_bits(), 0x8000_0000);
        assert!(lt(n, 1.0) && le(1.0, n));
        assert!(!Platform::X86_64.lt(n, 1.0));
    }

    #[test]
    fn the_fused_multiply_add_rounds_once() {
        let a = 1.0 + 2.0_f32.powi(-12);
        let c = 1.0 + 2.0_f32.powi(-11);
        assert_eq!(mul_add(a, a, -c), 2.0_f32.powi(-24));
        assert_eq!(a * a - c, 0.0);
    }

    #[test]
    fn guard_and_truncation() {
        assert!(Platform::Arm64.guard_fires(f32::NAN));
        assert!(!Platform::X86_64.guard_fires(f32::NAN));
        assert_eq!(Platform::Arm64.to_int(f32::NAN), 0);
        assert_eq!(Platform::X86_64.to_int(f32::NAN), i32::MIN);
        assert_eq!(Platform::Arm64.to_int(3.0e9), i32::MAX);
        assert_eq!(Platform::X86_64.to_int(3.0e9), i32::MIN);
        assert_eq!(Platform::X86_64.to_int(-2.5), -2);
    }
}
