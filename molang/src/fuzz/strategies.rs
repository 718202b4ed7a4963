//! Proptest strategies for Molang text (feature `proptest`).
//!
//! - [`program`]: well-formed programs, a configurable mix ([`ProgramConfig`]) of every math
//!   builtin with its exact arity, arithmetic and logic, nested conditionals, `loop` with
//!   `break`/`continue`, `??`, struct members (`v.s.m`), strings, queries (with and without
//!   arguments), assignments, temps and `return`. They load (the checker accepts them);
//!   reads of names that are not set yet are allowed, as in real scripts, and end a run
//!   early at run time.
//! - [`near_miss`]: a well-formed program with exactly one [`Mutation`] (a dropped,
//!   duplicated or swapped token, an unbalanced bracket, a wrong arity, a bad name, an
//!   unknown character, a cut): the shapes real typos take, mostly refused by the checker.
//! - [`inputs`] / [`input_value`]: named inputs for evaluation, NaN payloads, infinities
//!   and `-0` included.
//!
//! Every strategy yields Molang *text*, so a shrunk failure reads as a program. Fuzzing
//! your own implementation against this crate takes a few lines:
//!
//! ```
//! use molang::fuzz::strategies::{program, ProgramConfig};
//! use proptest::prelude::*;
//!
//! // Yours would evaluate with your engine; here the JIT stands in for "another engine".
//! fn other_engine(src: &str) -> Option<f32> {
//!     let expr = molang::compile(src, &Default::default()).ok()?;
//!     let native = expr.compile_native(&Default::default()).ok()?;
//!     Some(expr.eval_native(&native, &[], 0, &Default::default()).value.as_num())
//! }
//!
//! proptest!(ProptestConfig::with_cases(32), |(src in program(&ProgramConfig::jit()))| {
//!     let ours = molang::compile(&src, &Default::default()).expect("well-formed programs load");
//!     let want = ours.eval(&[], 0, &Default::default()).value.as_num();
//!     if let Some(got) = other_engine(&src) {
//!         prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{src}");
//!     }
//! });
//! ```
//!
//! Inside a coverage-guided fuzzer (libFuzzer, AFL), a generator that reads the fuzzer's
//! bytes directly (`arbitrary::Unstructured`) keeps mutations local; this repository's
//! `fuzz/fuzz_targets/differential.rs` mirrors [`ProgramConfig::jit`] that way. Do not drive
//! these strategies with proptest's pass-through RNG: each lazily built `prop_oneof!` branch
//! forks the RNG with half the remaining bytes, the bytes soon run out, and rand's rejection
//! sampling then spins for ever on the zeros that follow.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::strategy::{BoxedStrategy, Union};

use crate::builtins::math::MathFn;
use crate::interp::Value;
use grammar::lexer::{lex, TokenKind};

/// What [`program`] generates. Weights are relative (0 switches a feature off); the name
/// pools are the names programs read and write, with their prefixes.
#[derive(Clone, Debug)]
pub struct ProgramConfig {
    /// Nesting depth of expressions.
    pub depth: u32,
    /// Rough number of nodes per expression.
    pub size: u32,
    /// Nesting depth of statement blocks (loops and conditional blocks).
    pub block_depth: u32,
    /// Most statements in one list.
    pub max_statements: usize,
    /// Loop counts are literals up to this, or (sometimes) any expression.
    pub max_loop_count: u32,

    /// Math builtins other than the random ones.
    pub builtins: u32,
    /// `math.random*` and `math.die_roll*` (their results depend on the seed).
    pub random_builtins: u32,
    /// `+ - * /` and comparisons.
    pub arithmetic: u32,
    /// `&& || !`.
    pub logic: u32,
    /// `c ? a : b` and `c ? a`, in expressions and as statement blocks.
    pub conditionals: u32,
    /// `loop(n, {...})`.
    pub loops: u32,
    /// `break` and `continue` inside loops.
    pub break_continue: u32,
    /// `v ?? fallback`.
    pub coalesce: u32,
    /// Struct members (`v.s.m`) and whole-struct copies (`v.w = v.s`).
    pub structs: u32,
    /// String literals, string variables and `==` on strings.
    pub strings: u32,
    /// Queries with arguments (from `query_calls`).
    pub query_calls_weight: u32,
    /// Assignments used as values (`v.x = (t.t = 1);`, `c ? (v.x = 1) : (v.y = 2);`).
    pub assignments: u32,
    /// `return` statements.
    pub returns: u32,
    /// `e->v.x` and `e->q.x` with `e` a name of `contexts`; with `entity_lists` on, also
    /// `e->q.f(x)` and `e` the `for_each` element [`FOR_EACH_VARIABLE`] (which a statement
    /// also sets to `q.entity(x)`, [`ENTITY_QUERY`]).
    pub arrows: u32,
    /// Render-controller arrays: `array.a[i]` with any index (so the cast, clamp and wrap see
    /// NaN, infinities and negatives), compared with `==`/`!=` to elements and resources,
    /// stored in temps, and `q.count(array.a)`. Off by default.
    pub arrays: u32,
    /// `for_each(v.e, list, { ... })` over `q.entities(x)` ([`LIST_QUERY`]) and the names of
    /// `lists`, `break`/`continue` and `->` on the element inside, and `q.count(list)`.
    /// Off by default.
    pub entity_lists: u32,
    /// NaN operands of both signs (`math.sqrt(-1)`, `-(math.sqrt(-1))`, ...) and edge
    /// operands ([`edge_operand`]: infinities, `-0`, 2^-23, ...) as leaves, so every builtin,
    /// operator, comparison and query argument position sees them.
    pub nan: u32,
    /// The queries computed from their arguments: `q.all`, `q.any`, `q.in_range`,
    /// `q.approx_eq`, `q.count`.
    pub pure_queries: u32,

    /// `variable.*` names read and written, e.g. `v.x`.
    pub variables: Vec<String>,
    /// `temp.*` names read and written, e.g. `t.t`.
    pub temps: Vec<String>,
    /// Queries read without arguments, e.g. `q.anim_time`.
    pub queries: Vec<String>,
    /// Queries called with arguments: name and argument count.
    pub query_calls: Vec<(String, usize)>,
    /// `context.*` names read (the host sets them), e.g. `c.x`; they are also the entities
    /// of `arrows`.
    pub contexts: Vec<String>,
    /// Names holding entity lists (the host sets them), for `entity_lists`, e.g. `c.list`.
    pub lists: Vec<String>,
}

/// The `for_each` element, which `->` also reads.
pub const FOR_EACH_VARIABLE: &str = "v.e";
/// The query whose answer is an entity list (as [`crate::fuzz::world::World`] answers it).
pub const LIST_QUERY: &str = "q.entities";
/// The query whose answer is an entity (as [`crate::fuzz::world::World`] answers it).
pub const ENTITY_QUERY: &str = "q.entity";

impl Default for ProgramConfig {
    /// Everything on, with real query names.
    fn default() -> Self {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        ProgramConfig {
            depth: 5,
            size: 48,
            block_depth: 2,
            max_statements: 5,
            max_loop_count: 6,
            builtins: 3,
            random_builtins: 1,
            arithmetic: 4,
            logic: 2,
            conditionals: 2,
            loops: 1,
            break_continue: 1,
            coalesce: 1,
            structs: 1,
            strings: 1,
            query_calls_weight: 1,
            assignments: 1,
            returns: 1,
            arrows: 1,
            arrays: 0,
            entity_lists: 0,
            nan: 1,
            pure_queries: 1,
            variables: s(&["v.x", "v.y", "v.z"]),
            temps: s(&["t.t", "t.u"]),
            queries: s(&[
                "q.anim_time",
                "q.life_time",
                "q.ground_speed",
                "q.is_on_ground",
            ]),
            query_calls: vec![
                ("q.position_delta".to_string(), 1),
                ("q.head_x_rotation".to_string(), 1),
            ],
            contexts: s(&["c.x"]),
            lists: Vec::new(),
        }
    }
}

impl ProgramConfig {
    /// For the differential tests of the two back ends: everything, arrays and entity lists
    /// included, against [`crate::fuzz::world::World`]. Queries are `q.a`/`q.b`/`q.c`, the
    /// calls `q.f(x)`/`q.g(x, y)`, [`LIST_QUERY`] and [`ENTITY_QUERY`]; `c.e` holds an entity
    /// and `c.list` a list ([`reference_inputs`]). Check with `warn_unknown_queries: false`
    /// if warnings matter to you.
    pub fn jit() -> ProgramConfig {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        ProgramConfig {
            arrays: 1,
            entity_lists: 1,
            contexts: s(&["c.e"]),
            lists: s(&["c.list"]),
            queries: s(&["q.a", "q.b", "q.c"]),
            query_calls: vec![("q.f".to_string(), 1), ("q.g".to_string(), 2)],
            ..ProgramConfig::default()
        }
    }

    /// Names worth presetting as inputs: the variables, struct members, queries, contexts
    /// and `this`.
    pub fn input_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.variables.clone();
        names.extend(self.queries.iter().cloned());
        names.extend(self.contexts.iter().cloned());
        if self.structs > 0 {
            names.push(STRUCT_MEMBERS[0].to_string());
        }
        names.push("this".to_string());
        names
    }
}

/// Struct members written and read when `structs` is on; `v.s` is their struct.
const STRUCT_MEMBERS: &[&str] = &["v.s.m", "v.s.n"];
const STRUCT_COPIES: &[&str] = &["v.w", "v.q"];
const STRINGS: &[&str] = &["'a'", "'B'", "''", "'Hello World'"];
const STRING_VARIABLE: &str = "v.str";

fn weighted(options: Vec<(u32, BoxedStrategy<String>)>) -> BoxedStrategy<String> {
    let options: Vec<_> = options.into_iter().filter(|(w, _)| *w > 0).collect();
    Union::new_weighted(options).boxed()
}

fn pick(names: &[String]) -> BoxedStrategy<String> {
    prop::sample::select(names.to_vec()).boxed()
}

/// Number literals: round values, limits, integers and decimals. Negative values come out
/// as `-x`; callers put them where a unary minus is allowed.
pub fn number() -> BoxedStrategy<String> {
    prop_oneof![
        prop::sample::select(&["0", "1", "0.5", "2", "1e38", "0.0000001", "1e39", "5."][..])
            .prop_map(str::to_string),
        (-200i32..200).prop_map(|n| n.to_string()),
        (-1000.0f32..1000.0).prop_map(|x| format!("{x}")),
    ]
    .boxed()
}

/// Operands that evaluate to NaN, of both signs: x86's default NaN (what `math.sqrt(-1)`
/// and `inf - inf` make) has the sign bit set; negating or `math.abs` clears it. The sign is
/// observable (`math.copy_sign`), so both back ends must agree on it too.
pub fn nan_operand() -> BoxedStrategy<String> {
    prop::sample::select(super::NAN_OPERANDS)
        .prop_map(str::to_string)
        .boxed()
}

/// Edge operands: NaN of either sign (half the draws), infinities, zeros of both signs, the
/// division guard's threshold 2^-23 and `approx_eq`'s tolerance `f32::EPSILON`, and the
/// smallest subnormal.
pub fn edge_operand() -> BoxedStrategy<String> {
    prop_oneof![
        nan_operand(),
        prop::sample::select(super::EDGE_OPERANDS).prop_map(str::to_string),
    ]
    .boxed()
}

/// Names a numeric expression may read (variables, temps, queries, ...).
fn readable(cfg: &ProgramConfig) -> Vec<String> {
    let mut names: Vec<String> = cfg.variables.clone();
    names.extend(cfg.temps.iter().cloned());
    names.extend(cfg.queries.iter().cloned());
    names.extend(cfg.contexts.iter().cloned());
    if cfg.structs > 0 {
        names.extend(STRUCT_MEMBERS.iter().map(|s| s.to_string()));
    }
    names.extend(["this", "math.pi", "true", "false"].map(str::to_string));
    names
}

/// Names that may be assigned and tested with `??`.
fn writable(cfg: &ProgramConfig) -> Vec<String> {
    let mut names: Vec<String> = cfg.variables.clone();
    names.extend(cfg.temps.iter().cloned());
    if cfg.structs > 0 {
        names.extend(STRUCT_MEMBERS.iter().map(|s| s.to_string()));
    }
    names
}

fn coalescable(cfg: &ProgramConfig) -> Vec<String> {
    let mut names: Vec<String> = cfg.variables.clone();
    names.extend(cfg.temps.iter().cloned());
    names
}

/// A numeric expression, parenthesised wherever precedence could bite, so that any piece
/// can go anywhere.
pub fn expression(cfg: &ProgramConfig) -> BoxedStrategy<String> {
    let cfg = cfg.clone();
    let leaf = weighted(vec![
        (4, number()),
        (6, pick(&readable(&cfg))),
        (cfg.nan, nan_operand()),
        (cfg.nan, edge_operand()),
    ]);
    let builtins: Vec<MathFn> = MathFn::ALL
        .iter()
        .copied()
        .filter(|f| f.arity() > 0 && !f.is_random())
        .collect();
    let randoms: Vec<MathFn> = MathFn::ALL
        .iter()
        .copied()
        .filter(|f| f.is_random())
        .collect();
    leaf.prop_recursive(cfg.depth, cfg.size, 3, move |inner| {
        let call = |fns: Vec<MathFn>| {
            (
                prop::sample::select(fns),
                inner.clone(),
                inner.clone(),
                inner.clone(),
            )
                .prop_map(|(f, a, b, c)| {
                    let args = [a, b, c];
                    format!("math.{}({})", f.name(), args[..f.arity()].join(", "))
                })
                .boxed()
        };
        let arith =
            prop::sample::select(&["+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!="][..]);
        let logic = prop::sample::select(&["&&", "||"][..]);
        // `(a op b)` with `op` drawn from `ops`, and `op(a)`.
        let binary = |ops: prop::sample::Select<&'static str>| {
            (inner.clone(), ops, inner.clone())
                .prop_map(|(a, o, b)| format!("({a} {o} {b})"))
                .boxed()
        };
        let unary = |op: &'static str| {
            inner
                .clone()
                .prop_map(move |a| format!("{op}({a})"))
                .boxed()
        };
        let mut options = vec![
            (cfg.arithmetic, binary(arith)),
            (cfg.arithmetic, unary("-")),
            (cfg.logic, binary(logic)),
            (cfg.logic, unary("!")),
            (cfg.builtins, call(builtins.clone())),
            (
                // The JIT's `pow(x, 2)` shortcut deserves its own share.
                cfg.builtins,
                inner
                    .clone()
                    .prop_map(|a| format!("math.pow({a}, 2)"))
                    .boxed(),
            ),
            (cfg.random_builtins, call(randoms.clone())),
            (
                cfg.conditionals,
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(c, a, b)| format!("(({c}) ? ({a}) : ({b}))"))
                    .boxed(),
            ),
            (
                cfg.conditionals,
                (inner.clone(), inner.clone())
                    .prop_map(|(c, a)| format!("(({c}) ? ({a}))"))
                    .boxed(),
            ),
            (
                cfg.coalesce,
                // Struct members are not allowed left of `??`.
                (pick(&coalescable(&cfg)), inner.clone())
                    .prop_map(|(v, b)| format!("({v} ?? ({b}))"))
                    .boxed(),
            ),
            (
                cfg.strings,
                (
                    prop::sample::select(STRINGS),
                    prop::sample::select(STRINGS),
                    any::<bool>(),
                )
                    .prop_map(|(a, b, eq)| {
                        let op = if eq { "==" } else { "!=" };
                        format!("({STRING_VARIABLE} ?? {a}) {op} {b}")
                    })
                    .prop_map(|s| format!("({s})"))
                    .boxed(),
            ),
        ];
        // Each argument is any expression, an edge value or the first argument again (so
        // that `all`, `any` and `approx_eq` also see matches, NaN against NaN included).
        let pure_arg: BoxedStrategy<Option<String>> = Union::new_weighted(
            [
                (3, inner.clone().prop_map(Some).boxed()),
                (cfg.nan, edge_operand().prop_map(Some).boxed()),
                (2, Just(None).boxed()),
            ]
            .into_iter()
            .filter(|(w, _)| *w > 0)
            .collect::<Vec<_>>(),
        )
        .boxed();
        options.push((
            cfg.pure_queries,
            (
                prop::sample::select(&["all", "any", "in_range", "approx_eq", "count"][..]),
                inner.clone(),
                prop::collection::vec(pure_arg, 2..=3),
            )
                .prop_map(|(q, first, rest)| {
                    let mut args = vec![first.clone()];
                    args.extend(rest.into_iter().map(|a| a.unwrap_or_else(|| first.clone())));
                    let n = match q {
                        "in_range" => 3,
                        "approx_eq" => args.len() - 1,
                        "count" => args.len() - 2,
                        _ => args.len(),
                    };
                    format!("q.{q}({})", args[..n].join(", "))
                })
                .boxed(),
        ));
        {
            // `->`: from a context, the `for_each` element or `q.entity(x)`, to a variable, a
            // plain query or a query with an argument.
            // (The element and query calls come with `entity_lists`. The grammar takes no
            // call left of `->`: `q.entity(x)` reaches it through the element's slot.)
            let mut from: Vec<BoxedStrategy<String>> = cfg
                .contexts
                .iter()
                .map(|c| Just(c.clone()).boxed())
                .collect();
            let mut to: Vec<BoxedStrategy<String>> = cfg
                .variables
                .iter()
                .chain(&cfg.queries)
                .map(|r| Just(r.clone()).boxed())
                .collect();
            if cfg.entity_lists > 0 {
                from.push(Just(FOR_EACH_VARIABLE.to_string()).boxed());
                to.extend(cfg.query_calls.iter().map(|(q, _)| {
                    let q = q.clone();
                    inner.clone().prop_map(move |x| format!("{q}({x})")).boxed()
                }));
            }
            if !from.is_empty() && !to.is_empty() {
                options.push((
                    cfg.arrows,
                    (Union::new(from), Union::new(to))
                        .prop_map(|(e, r)| format!("({e}->{r})"))
                        .boxed(),
                ));
            }
        }
        options.push((
            cfg.arrays,
            (
                array_value(inner.clone()),
                array_value(inner.clone()),
                any::<bool>(),
            )
                .prop_map(|(a, b, eq)| format!("({a} {} {b})", if eq { "==" } else { "!=" }))
                .boxed(),
        ));
        options.push((
            cfg.arrays,
            (
                prop::sample::select(ARRAYS),
                prop::option::of(inner.clone()),
            )
                .prop_map(|(a, x)| match x {
                    Some(x) => format!("q.count({a}, {x})"),
                    None => format!("q.count({a})"),
                })
                .boxed(),
        ));
        options.push((
            cfg.entity_lists,
            list(&cfg, inner.clone())
                .prop_map(|l| format!("q.count({l})"))
                .boxed(),
        ));
        if !cfg.query_calls.is_empty() {
            options.push((
                cfg.query_calls_weight,
                (
                    prop::sample::select(cfg.query_calls.clone()),
                    inner.clone(),
                    inner.clone(),
                    inner.clone(),
                )
                    .prop_map(|((q, n), a, b, c)| {
                        let args = [a, b, c];
                        format!("{q}({})", args[..n.min(3)].join(", "))
                    })
                    .boxed(),
            ));
        }
        weighted(options)
    })
    .boxed()
}

/// Array names of `arrays` (the world gives them different sizes, an empty one included).
const ARRAYS: &[&str] = &["array.a", "array.b", "array.c", "array.d"];
const RESOURCES: &[&str] = &["geometry.default", "texture.default", "material.a"];

/// An array element with any index, a resource or a temp that may hold an element.
fn array_value(index: BoxedStrategy<String>) -> BoxedStrategy<String> {
    prop_oneof![
        4 => (prop::sample::select(ARRAYS), index).prop_map(|(a, i)| format!("{a}[{i}]")),
        1 => prop::sample::select(RESOURCES).prop_map(str::to_string),
        1 => Just(ARRAY_TEMP.to_string()),
    ]
    .boxed()
}

/// The temp `arrays` stores elements in.
const ARRAY_TEMP: &str = "t.element";

/// An entity list: `q.entities(x)` or one of `lists`.
fn list(cfg: &ProgramConfig, x: BoxedStrategy<String>) -> BoxedStrategy<String> {
    let mut options = vec![(2, x.prop_map(|x| format!("{LIST_QUERY}({x})")).boxed())];
    if !cfg.lists.is_empty() {
        options.push((1, pick(&cfg.lists)));
    }
    weighted(options)
}

/// One `;`-terminated statement; `in_loop` allows `break`/`continue`.
fn statement(cfg: &ProgramConfig, in_loop: bool, depth: u32) -> BoxedStrategy<String> {
    let e = expression(cfg);
    let mut options = vec![
        (
            4,
            (pick(&writable(cfg)), e.clone())
                .prop_map(|(v, e)| format!("{v} = {e};"))
                .boxed(),
        ),
        (
            cfg.structs,
            (prop::sample::select(STRUCT_COPIES), Just("v.s"))
                .prop_map(|(d, s)| format!("{d} = {s};"))
                .boxed(),
        ),
        (
            cfg.strings,
            prop::sample::select(STRINGS)
                .prop_map(|s| format!("{STRING_VARIABLE} = {s};"))
                .boxed(),
        ),
        (
            cfg.conditionals,
            (e.clone(), pick(&writable(cfg)), e.clone())
                .prop_map(|(c, v, x)| format!("({c}) ? {{ {v} = {x}; }};"))
                .boxed(),
        ),
    ];
    // An assignment is not a number: the game takes one as a value only where a statement
    // could stand (an assignment's value, a conditional's branch).
    options.push((
        cfg.assignments,
        (pick(&writable(cfg)), pick(&writable(cfg)), e.clone())
            .prop_map(|(v, w, x)| format!("{v} = ({w} = {x});"))
            .boxed(),
    ));
    options.push((
        cfg.assignments,
        (
            e.clone(),
            pick(&writable(cfg)),
            e.clone(),
            pick(&writable(cfg)),
            e.clone(),
        )
            .prop_map(|(c, v, a, w, b)| format!("({c}) ? ({v} = {a}) : ({w} = {b});"))
            .boxed(),
    ));
    if in_loop {
        options.push((
            cfg.break_continue,
            (e.clone(), prop::sample::select(&["break", "continue"][..]))
                .prop_map(|(c, b)| format!("({c}) ? {b};"))
                .boxed(),
        ));
    }
    options.push((
        cfg.arrays,
        array_value(e.clone())
            .prop_map(|a| format!("{ARRAY_TEMP} = {a};"))
            .boxed(),
    ));
    if depth > 0 {
        options.push((
            cfg.entity_lists,
            e.clone()
                .prop_map(|x| format!("{FOR_EACH_VARIABLE} = {ENTITY_QUERY}({x});"))
                .boxed(),
        ));
        options.push((
            cfg.entity_lists,
            (list(cfg, e.clone()), statements(cfg, true, depth - 1))
                .prop_map(|(l, body)| format!("for_each({FOR_EACH_VARIABLE}, {l}, {{ {body} }});"))
                .boxed(),
        ));
        let inner_loop = statements(cfg, true, depth - 1);
        let inner = statements(cfg, in_loop, depth - 1);
        let count = prop_oneof![
            3 => (0..=cfg.max_loop_count).prop_map(|n| n.to_string()),
            1 => e.clone(),
        ];
        options.push((
            cfg.loops,
            (count, inner_loop)
                .prop_map(|(n, body)| format!("loop({n}, {{ {body} }});"))
                .boxed(),
        ));
        options.push((
            cfg.conditionals,
            (e.clone(), inner.clone(), inner)
                .prop_map(|(c, a, b)| format!("({c}) ? {{ {a} }} : {{ {b} }};"))
                .boxed(),
        ));
    }
    weighted(options)
}

/// A statement list (each `;`-terminated), maybe ending in `return`.
fn statements(cfg: &ProgramConfig, in_loop: bool, depth: u32) -> BoxedStrategy<String> {
    let list = prop::collection::vec(
        statement(cfg, in_loop, depth),
        1..=cfg.max_statements.max(1),
    );
    let ret = if cfg.returns > 0 {
        prop::option::weighted(0.3, expression(cfg)).boxed()
    } else {
        Just(None).boxed()
    };
    (list, ret)
        .prop_map(|(mut s, r)| {
            if let Some(r) = r {
                s.push(format!("return {r};"));
            }
            s.join(" ")
        })
        .boxed()
}

/// A well-formed program: a simple expression or a complex (`;`) statement list.
pub fn program(cfg: &ProgramConfig) -> BoxedStrategy<String> {
    prop_oneof![
        1 => expression(cfg),
        2 => statements(cfg, false, cfg.block_depth),
    ]
    .boxed()
}

/// The one change [`near_miss`] made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    DropToken,
    DuplicateToken,
    SwapTokens,
    /// One bracket inserted.
    UnbalancedBracket(char),
    /// A math call given one argument too many (or a call with the wrong count put in).
    WrongArity,
    /// A name replaced by one that is not a name (`v.`, `math.nope`, `foo.bar`, ...).
    BadPath(&'static str),
    UnknownCharacter(char),
    /// Everything from a token on cut off.
    Truncate,
}

/// A malformed program and where it came from.
#[derive(Clone, Debug)]
pub struct NearMiss {
    pub text: String,
    pub original: String,
    pub mutation: Mutation,
}

const BAD_PATHS: &[&str] = &[
    "v.",
    "q.",
    "foo.bar",
    "math.nope",
    "math.sin",
    "variable",
    "v..x",
    "t.x.y",
    "geometry.default",
    "array.nope",
];
const BAD_CHARS: &[char] = &['%', '#', '"', '@', '$', '`', '\\', '.', 'ż'];
const BRACKETS: &[char] = &['(', ')', '{', '}', '[', ']'];

#[derive(Clone, Copy, Debug)]
enum Kind {
    Drop,
    Duplicate,
    Swap,
    Bracket,
    Arity,
    Path,
    Char,
    Truncate,
}

/// A well-formed program with exactly one mutation. Most do not load; a few still do
/// (dropping a unary minus, swapping two equal tokens), which no-panic properties welcome.
pub fn near_miss(cfg: &ProgramConfig) -> BoxedStrategy<NearMiss> {
    let kind = prop::sample::select(
        &[
            Kind::Drop,
            Kind::Duplicate,
            Kind::Swap,
            Kind::Bracket,
            Kind::Arity,
            Kind::Path,
            Kind::Char,
            Kind::Truncate,
        ][..],
    );
    (
        program(cfg),
        kind,
        any::<Index>(),
        prop::sample::select(BRACKETS),
        prop::sample::select(BAD_PATHS),
        prop::sample::select(BAD_CHARS),
    )
        .prop_map(|(src, kind, at, bracket, path, ch)| mutate(src, kind, at, bracket, path, ch))
        .boxed()
}

fn mutate(
    src: String,
    kind: Kind,
    at: Index,
    bracket: char,
    path: &'static str,
    ch: char,
) -> NearMiss {
    let tokens = lex(&src);
    let splice = |s: usize, e: usize, with: &str| format!("{}{with}{}", &src[..s], &src[e..]);
    let done = |text: String, mutation: Mutation| NearMiss {
        text,
        original: src.clone(),
        mutation,
    };
    if tokens.is_empty() {
        return done(format!("{ch}{src}"), Mutation::UnknownCharacter(ch));
    }
    let i = at.index(tokens.len());
    let (s, e) = (tokens[i].span.start as usize, tokens[i].span.end as usize);
    let pick_of = |want: &dyn Fn(usize) -> bool| -> Option<usize> {
        let candidates: Vec<usize> = (0..tokens.len()).filter(|&j| want(j)).collect();
        (!candidates.is_empty()).then(|| candidates[at.index(candidates.len())])
    };
    match kind {
        Kind::Drop => done(splice(s, e, " "), Mutation::DropToken),
        Kind::Duplicate => done(
            splice(s, e, &format!("{} {}", &src[s..e], &src[s..e])),
            Mutation::DuplicateToken,
        ),
        Kind::Swap if i + 1 < tokens.len() => {
            let (s2, e2) = (
                tokens[i + 1].span.start as usize,
                tokens[i + 1].span.end as usize,
            );
            let text = format!("{}{} {}{}", &src[..s], &src[s2..e2], &src[s..e], &src[e2..]);
            done(text, Mutation::SwapTokens)
        }
        Kind::Swap | Kind::Bracket => done(
            splice(s, s, &bracket.to_string()),
            Mutation::UnbalancedBracket(bracket),
        ),
        Kind::Arity => {
            let is_math_call = |j: usize| {
                tokens[j].kind == TokenKind::Path
                    && src[tokens[j].span.range()].starts_with("math.")
                    && tokens
                        .get(j + 1)
                        .is_some_and(|t| t.kind == TokenKind::LParen)
            };
            if let Some(j) = pick_of(&is_math_call) {
                let open = tokens[j + 1].span.end as usize;
                done(splice(open, open, "0, "), Mutation::WrongArity)
            } else if let Some(j) = pick_of(&|j| tokens[j].kind == TokenKind::Number) {
                let sp = tokens[j].span;
                done(
                    splice(sp.start as usize, sp.end as usize, "math.max(1)"),
                    Mutation::WrongArity,
                )
            } else {
                done(splice(s, e, "math.sin(1, 2)"), Mutation::WrongArity)
            }
        }
        Kind::Path => {
            let j = pick_of(&|j| tokens[j].kind == TokenKind::Path).unwrap_or(i);
            let sp = tokens[j].span;
            done(
                splice(sp.start as usize, sp.end as usize, path),
                Mutation::BadPath(path),
            )
        }
        Kind::Char => done(
            splice(s, s, &ch.to_string()),
            Mutation::UnknownCharacter(ch),
        ),
        Kind::Truncate => done(src[..s].to_string(), Mutation::Truncate),
    }
}

/// Input values: 0, -0, NaN (several payloads), ±infinity, extremes, everyday numbers and
/// arbitrary bit patterns.
pub fn input_value() -> BoxedStrategy<f32> {
    prop_oneof![
        prop::sample::select(
            &[
                0.0f32,
                -0.0,
                1.0,
                f32::NAN,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::MIN_POSITIVE,
                f32::MAX,
                1e-45,
            ][..]
        ),
        -1000.0f32..1000.0,
        any::<u32>().prop_map(f32::from_bits),
    ]
    .boxed()
}

/// Up to `max` named inputs (`q.x`, `v.x`, `t.x`, `c.x`, `this`) drawn from `names`.
pub fn inputs(names: Vec<String>, max: usize) -> BoxedStrategy<Vec<(String, Value)>> {
    prop::collection::vec((prop::sample::select(names), input_value()), 0..=max)
        .prop_map(|v| v.into_iter().map(|(n, x)| (n, Value::Num(x))).collect())
        .boxed()
}

/// Entity references for the names a [`ProgramConfig`] reads them from, as
/// [`crate::fuzz::world::World`] knows them: each of `contexts` and [`FOR_EACH_VARIABLE`]
/// usually an entity (one that does not exist included), each of `lists` usually a list (an
/// unknown one included); otherwise a number, or unset.
pub fn reference_inputs(cfg: &ProgramConfig) -> BoxedStrategy<Vec<(String, Value)>> {
    let entity = prop_oneof![
        4 => prop::sample::select(&[1u32, 2, 3, 7][..]).prop_map(|e| Some(Value::Entity(e))),
        1 => input_value().prop_map(|x| Some(Value::Num(x))),
        1 => Just(None),
    ];
    let list = prop_oneof![
        4 => (0u32..5).prop_map(|l| Some(Value::EntityList(l))),
        1 => input_value().prop_map(|x| Some(Value::Num(x))),
        1 => Just(None),
    ];
    let mut names: Vec<String> = cfg.contexts.clone();
    if cfg.entity_lists > 0 {
        names.push(FOR_EACH_VARIABLE.to_string());
    }
    let lists = cfg.lists.clone();
    (
        prop::collection::vec(entity, names.len()),
        prop::collection::vec(list, lists.len()),
    )
        .prop_map(move |(es, ls)| {
            let named = names.iter().zip(es).chain(lists.iter().zip(ls));
            named
                .filter_map(|(n, v)| v.map(|v| (n.clone(), v)))
                .collect()
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    fn sample<T: std::fmt::Debug>(s: &BoxedStrategy<T>, n: usize) -> Vec<T> {
        let mut runner = TestRunner::deterministic();
        (0..n)
            .map(|_| s.new_tree(&mut runner).unwrap().current())
            .collect()
    }

    #[test]
    fn well_formed_programs_load() {
        for cfg in [ProgramConfig::default(), ProgramConfig::jit()] {
            let options = crate::CheckOptions {
                warn_unknown_queries: false,
                ..Default::default()
            };
            for src in sample(&program(&cfg), 2000) {
                let r = crate::compile(&src, &options);
                assert!(r.is_ok(), "{src}\n{:?}", r.err().unwrap().diagnostics);
            }
        }
    }

    #[test]
    fn near_misses_mostly_do_not_load() {
        let misses = sample(&near_miss(&ProgramConfig::default()), 1000);
        let loads = misses
            .iter()
            .filter(|m| crate::compile(&m.text, &Default::default()).is_ok())
            .count();
        assert!(loads < 300, "{loads}/1000 near misses load");
    }
}
