//! The queries the engine computes from their arguments alone, with no entity or world:
//! `query.all`, `query.any`, `query.in_range`, `query.approx_eq` and `query.count`. They are
//! evaluated by both back ends and never reach the host, so they work with no host at all.
//!
//! Every other query of Mojang's list reads the entity, the world, the renderer or the client
//! (`query.debug_output` and `query.log` print, so they stay with the host too).
//!
//! # Rules
//!
//! | query | arguments (arity from Mojang's query metadata) | value | evaluation order |
//! |---|---|---|---|
//! | `all(v, a, b, …)` | 3 or more, any kind | 1 if every later argument `== v`, else 0 | `v`, then each later one, stopping at the first that differs |
//! | `any(v, a, b, …)` | 3 or more, any kind | 1 if some later argument `== v`, else 0 | `v`, then each later one, stopping at the first that matches |
//! | `in_range(v, lo, hi)` | exactly 3, numbers | 1 if `v >= lo && v <= hi`, else 0 | all three, in order |
//! | `approx_eq(a, b, …)` | 2 or more, numbers | 1 if every later argument is within `f32::EPSILON` of `a` (`|x − a| < ε`), else 0 | `a`, then each later one, stopping at the first that is not |
//! | `count(…)` | any number, any kind | the number of arguments, an entity list counting its entities and a resource array its elements | all, in order |
//!
//! Sources: the wording of Mojang's query documentation ("Evaluates the first argument, then
//! returns 1.0 if all of the following arguments evaluate to the same value as the first";
//! `in_range` "requires 3 numerical arguments: some value, a minimum, and a maximum … between
//! the minimum and maximum (inclusive)"; `approx_eq` "within the smallest unit of measurement
//! of each other"; `count` "arrays are counted as the number of elements they contain;
//! non-arrays count as 1") and the arities of `mojang-molang-queries.json` (spec §3.7, §6.4).
//! The stopping rule is an inference (spec tag I): the engine's query functions receive their argument
//! expressions unevaluated and evaluate them on demand (molangx's `QueryCx::arg` models the
//! same), so a later argument is only evaluated when the answer still depends on it. `==` is
//! the operator's: numbers by `f32` equality (so a NaN never matches, not even NaN), strings
//! by hash. A string or resource where `in_range` or `approx_eq` needs a number does not load
//! (diagnostic E0506).

/// A query computed from its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PureQuery {
    All,
    Any,
    InRange,
    ApproxEq,
    Count,
}

impl PureQuery {
    /// The query for a lowercase name without prefix, if it is one of these.
    pub fn from_name(name: &str) -> Option<PureQuery> {
        Some(match name {
            "all" => PureQuery::All,
            "any" => PureQuery::Any,
            "in_range" => PureQuery::InRange,
            "approx_eq" => PureQuery::ApproxEq,
            "count" => PureQuery::Count,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            PureQuery::All => "all",
            PureQuery::Any => "any",
            PureQuery::InRange => "in_range",
            PureQuery::ApproxEq => "approx_eq",
            PureQuery::Count => "count",
        }
    }

    /// Whether every argument must be a number (a string does not load).
    pub fn numbers_only(self) -> bool {
        matches!(self, PureQuery::InRange | PureQuery::ApproxEq)
    }
}

/// `in_range`: `v >= lo && v <= hi` (a NaN anywhere gives 0).
#[inline]
pub fn in_range(v: f32, lo: f32, hi: f32) -> bool {
    v >= lo && v <= hi
}

/// `approx_eq` for one later argument `x` against the first `a`: `|x − a| < f32::EPSILON`.
#[inline]
pub fn approx_eq(a: f32, x: f32) -> bool {
    (x - a).abs() < f32::EPSILON
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for q in [
            PureQuery::All,
            PureQuery::Any,
            PureQuery::InRange,
            PureQuery::ApproxEq,
            PureQuery::Count,
        ] {
            assert_eq!(PureQuery::from_name(q.name()), Some(q));
        }
        assert_eq!(PureQuery::from_name("is_baby"), None);
    }

    #[test]
    fn in_range_is_inclusive_and_nan_is_outside() {
        assert!(in_range(10.0, 0.0, 10.0) && in_range(0.0, 0.0, 10.0));
        assert!(!in_range(10.5, 0.0, 10.0) && !in_range(5.0, 10.0, 0.0));
        assert!(!in_range(f32::NAN, 0.0, 1.0) && !in_range(0.5, f32::NAN, 1.0));
        assert!(!in_range(0.5, 0.0, f32::NAN));
    }

    #[test]
    fn approx_eq_tolerance() {
        assert!(approx_eq(1.0, 1.0) && approx_eq(0.0, 1e-8) && approx_eq(0.0, -0.0));
        assert!(!approx_eq(0.0, f32::EPSILON) && !approx_eq(1.0, 1.0 + 2.0 * f32::EPSILON));
        assert!(!approx_eq(f32::NAN, f32::NAN) && !approx_eq(f32::INFINITY, f32::INFINITY));
    }
}
