//! The interpreter-vs-JIT oracle: one program, the same inputs and `math.random` seed, both
//! back ends, everything observable compared bit for bit. The interpreter is the executable
//! spec, so a difference is the JIT's bug until proven otherwise. Used by the cargo-fuzz
//! `differential` target and by `tests/jit_differential.rs` alike.

use super::world::World;
use crate::{CheckOptions, EvalOptions, EvalResult, Platform, Value};

/// How a program fared on both back ends.
#[derive(Debug)]
pub enum Verdict {
    /// The program does not load (the checker refuses it): nothing to compare.
    Refused,
    /// Same value (bits; any NaN equals any NaN), same ending, same final variables.
    Agree,
    /// The back ends differ; the text shows the program, the inputs' run and both results
    /// with their bit patterns.
    Differ(String),
}

/// The evaluation options of a random case: its Molang version and loop cap; the seed's
/// lowest bit compiles half the cases as entity scripts do (private temps), its second bit
/// picks the float rules (half the cases follow arm64's). The fuzz target and the proptest
/// run draw cases the same way.
pub fn case_options(version: i16, loop_cap: Option<u32>, seed: u64) -> EvalOptions {
    EvalOptions {
        version,
        loop_cap,
        iteration_budget: 2_000,
        private_temps: seed % 2 == 1,
        platform: if seed & 2 != 0 {
            Platform::Arm64
        } else {
            Platform::X86_64
        },
    }
}

/// Runs `src` on both back ends, each in its own [`World`] built from `inputs` and `seed`.
///
/// # Panics
///
/// When the JIT refuses a program the checker loads (it must compile every one).
pub fn interp_vs_jit(
    src: &str,
    inputs: &[(String, Value)],
    seed: u64,
    options: &EvalOptions,
) -> Verdict {
    let check = CheckOptions {
        version: options.version,
        warn_unknown_queries: false,
        ..CheckOptions::default()
    };
    let Ok(expr) = crate::compile(src, &check) else {
        return Verdict::Refused;
    };
    let native = match expr.compile_native(options) {
        Ok(n) => n,
        Err(e) => panic!("the JIT refuses a program that loads: {src}: {e}"),
    };
    let world = || World::new(expr.names(), inputs, seed);
    let a: EvalResult = expr.eval_in(&mut world(), inputs, options);
    let b: EvalResult = expr.eval_native_in(&native, &mut world(), inputs, options);
    let vars_agree = a.variables.len() == b.variables.len()
        && (a.variables.iter().zip(&b.variables))
            .all(|((n1, v1), (n2, v2))| n1 == n2 && same(v1, v2));
    if same(&a.value, &b.value) && a.abort == b.abort && vars_agree {
        return Verdict::Agree;
    }
    Verdict::Differ(format!(
        "{src}\n  interp: {} abort {:?} vars {}\n  jit:    {} abort {:?} vars {}",
        show(&a.value),
        a.abort,
        show_vars(&a.variables),
        show(&b.value),
        b.abort,
        show_vars(&b.variables)
    ))
}

/// Equal values, numbers by their bits, except that any NaN equals any NaN.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// A value with its bit pattern when a number, so that two NaNs (or `0` and `-0`) read
/// differently.
pub fn show(v: &Value) -> String {
    match v {
        Value::Num(x) => format!("{x:?} (0x{:08x})", x.to_bits()),
        other => format!("{other:?}"),
    }
}

/// Named values as `[name = value (bits), ...]`.
pub fn show_vars(vars: &[(String, Value)]) -> String {
    let parts: Vec<String> = vars
        .iter()
        .map(|(n, v)| format!("{n} = {}", show(v)))
        .collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loading_program_agrees_and_a_broken_one_is_refused() {
        let options = case_options(13, None, 3);
        assert_eq!(options.platform, Platform::Arm64);
        assert!(options.private_temps);
        let inputs = vec![("v.a".to_string(), Value::Num(f32::NAN))];
        let v = interp_vs_jit(
            "v.b = v.a * 2; return math.min(v.a, 1);",
            &inputs,
            3,
            &options,
        );
        assert!(matches!(v, Verdict::Agree), "{v:?}");
        let v = interp_vs_jit("math.sin(", &[], 0, &options);
        assert!(matches!(v, Verdict::Refused), "{v:?}");
    }

    #[test]
    fn numbers_compare_by_bits_and_nans_alike() {
        assert!(same(&Value::Num(f32::NAN), &Value::Num(-f32::NAN)));
        assert!(!same(&Value::Num(0.0), &Value::Num(-0.0)));
        assert_eq!(show(&Value::Num(-0.0)), "-0.0 (0x80000000)");
    }
}
