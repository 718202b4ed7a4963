//! Interpreter vs JIT on the same checked program, inputs and seed: value, how the run ended
//! and every variable afterwards must agree bit for bit (any NaN equals any NaN: payloads are
//! not specified, the rule of tests/jit_differential.rs). The seed drawn from the input also
//! picks the platform (its second bit: arm64's float rules for half the inputs).
//!
//! Structured, not raw text: random text almost never loads, and what does not load never
//! reaches the back ends. The bytes drive a small grammar-aware generator through
//! `arbitrary::Unstructured`, so every input is a well-formed program (the shapes and names
//! of `molang::fuzz::strategies::ProgramConfig::jit()`), and libFuzzer's byte mutations
//! become local edits of it: another operator, number, builtin, input or seed.
//!
//! (Driving the proptest strategies themselves with proptest's pass-through RNG does not
//! work: every lazily built `prop_oneof!` branch forks the RNG and takes half the remaining
//! bytes, the bytes run out after a few dozen choices, and rand's rejection sampling then
//! spins for ever on the zeros that follow.)
#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use molang::builtins::math::MathFn;
use molang::fuzz::oracle::{self, Verdict};
// NaN of both signs and edge values, as the strategies' `nan_operand` and `edge_operand` draw them.
use molang::fuzz::{EDGE_OPERANDS as EDGES, NAN_OPERANDS as NANS};
use molang::Value;

const VARIABLES: &[&str] = &["v.x", "v.y", "v.z"];
const TEMPS: &[&str] = &["t.t", "t.u"];
const MEMBERS: &[&str] = &["v.s.m", "v.s.n"];
const QUERIES: &[&str] = &["q.a", "q.b", "q.c"];
const CONSTANTS: &[&str] = &["this", "math.pi", "true", "false"];
const NUMBERS: &[&str] = &["0", "1", "0.5", "2", "1e38", "0.0000001", "1e39", "5."];
const ARITH: &[&str] = &["+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!="];
/// The queries computed from their arguments, with their argument counts.
const PURE_QUERIES: &[(&str, usize, usize)] = &[
    ("all", 3, 4),
    ("any", 3, 4),
    ("in_range", 3, 3),
    ("approx_eq", 2, 3),
    ("count", 1, 2),
];
const INPUTS: &[&str] = &[
    "q.a", "q.b", "q.c", "v.x", "v.y", "v.z", "v.s.m", "t.t", "this", "c.unused", "c.e", "c.list",
];
/// `->` sources and targets, arrays and resources, strings, as
/// `molang::fuzz::strategies` draws them (the world is `molang::fuzz::world::World`).
const REMOTE: &[&str] = &["v.x", "v.y", "q.a", "q.b"];
const ARRAYS: &[&str] = &["array.a", "array.b", "array.c", "array.d"];
const RESOURCES: &[&str] = &[
    "geometry.default",
    "texture.default",
    "material.a",
    "t.element",
];
const STRINGS: &[&str] = &["'a'", "'B'", "''", "'Hello World'"];

struct Gen<'a, 'b> {
    u: &'b mut Unstructured<'a>,
}

impl Gen<'_, '_> {
    fn pick(&mut self, from: &[&'static str]) -> Result<&'static str> {
        Ok(*self.u.choose(from)?)
    }

    fn number(&mut self) -> Result<String> {
        Ok(match self.u.int_in_range(0..=2u8)? {
            0 => self.pick(NUMBERS)?.to_string(),
            1 => format!("({})", self.u.int_in_range(-200..=200i32)?),
            _ => {
                let x = f32::from_bits(self.u.arbitrary::<u32>()?);
                if x.is_finite() {
                    format!("({x})")
                } else {
                    "1".to_string()
                }
            }
        })
    }

    fn writable(&mut self) -> Result<&'static str> {
        let all = [VARIABLES, TEMPS, MEMBERS].concat();
        self.pick(&all)
    }

    /// Struct members may not stand left of `??`.
    fn coalescable(&mut self) -> Result<&'static str> {
        let all = [VARIABLES, TEMPS].concat();
        self.pick(&all)
    }

    fn leaf(&mut self) -> Result<String> {
        if self.u.ratio(2, 5)? {
            return self.number();
        }
        if self.u.ratio(1, 8)? {
            return Ok(self.pick(NANS)?.to_string());
        }
        if self.u.ratio(1, 8)? {
            return Ok(self.pick(EDGES)?.to_string());
        }
        let all = [VARIABLES, TEMPS, MEMBERS, QUERIES, CONSTANTS].concat();
        Ok(self.pick(&all)?.to_string())
    }

    /// An entity: a context or the `for_each` element (which a statement also sets to
    /// `q.entity(x)`; the grammar takes no call left of `->`).
    fn entity(&mut self) -> Result<String> {
        Ok(self.pick(&["c.e", "v.e"])?.to_string())
    }

    /// An entity list: `q.entities(x)` or a context.
    fn list(&mut self, depth: u32) -> Result<String> {
        Ok(if self.u.ratio(1, 3)? {
            "c.list".to_string()
        } else {
            format!("q.entities({})", self.expr(depth)?)
        })
    }

    /// An array element with any index, a resource, or the temp elements are kept in.
    fn array_value(&mut self, depth: u32) -> Result<String> {
        Ok(if self.u.ratio(2, 3)? {
            format!("{}[{}]", self.pick(ARRAYS)?, self.expr(depth)?)
        } else {
            self.pick(RESOURCES)?.to_string()
        })
    }

    fn call(&mut self, f: MathFn, depth: u32) -> Result<String> {
        let args = (0..f.arity())
            .map(|_| self.expr(depth - 1))
            .collect::<Result<Vec<_>>>()?;
        Ok(format!("math.{}({})", f.name(), args.join(", ")))
    }

    /// A call of a random builtin (`random`), or of a deterministic one with arguments.
    fn builtin_call(&mut self, random: bool, depth: u32) -> Result<String> {
        let fns: Vec<MathFn> = MathFn::ALL
            .iter()
            .copied()
            .filter(|f| f.is_random() == random && (random || f.arity() > 0))
            .collect();
        let f = *self.u.choose(&fns)?;
        self.call(f, depth)
    }

    /// A computed query; each later argument is any expression, an edge value or the first
    /// argument again (so that `all`, `any` and `approx_eq` also see matches).
    fn pure_query(&mut self, depth: u32) -> Result<String> {
        let &(name, lo, hi) = self.u.choose(PURE_QUERIES)?;
        let n = self.u.int_in_range(lo..=hi)?;
        let first = self.expr(depth - 1)?;
        let mut args = vec![first.clone()];
        for _ in 1..n {
            args.push(match self.u.int_in_range(0..=2u8)? {
                0 => self.expr(depth - 1)?,
                1 => self.pick([NANS, EDGES].concat().as_slice())?.to_string(),
                _ => first.clone(),
            });
        }
        Ok(format!("q.{name}({})", args.join(", ")))
    }

    /// `(a OP b)`: two expressions of `depth` and an operator of `ops`, drawn in that order.
    fn binary(&mut self, depth: u32, ops: &[&'static str]) -> Result<String> {
        let a = self.expr(depth)?;
        let op = self.pick(ops)?;
        Ok(format!("({a} {op} {})", self.expr(depth)?))
    }

    fn expr(&mut self, depth: u32) -> Result<String> {
        if depth == 0 || self.u.ratio(1, 3)? {
            return self.leaf();
        }
        let d = depth - 1;
        Ok(match self.u.int_in_range(0..=18u8)? {
            0 => self.binary(d, ARITH)?,
            1 => format!("-({})", self.expr(d)?),
            2 => self.binary(d, &["&&", "||"])?,
            3 => format!("!({})", self.expr(d)?),
            4 | 5 => self.builtin_call(false, depth)?,
            6 => format!("math.pow({}, 2)", self.expr(d)?),
            7 => self.builtin_call(true, depth)?,
            8 => format!(
                "(({}) ? ({}) : ({}))",
                self.expr(d)?,
                self.expr(d)?,
                self.expr(d)?
            ),
            9 => format!("(({}) ? ({}))", self.expr(d)?, self.expr(d)?),
            10 => format!("({} ?? ({}))", self.coalescable()?, self.expr(d)?),
            11 => format!("q.f({})", self.expr(d)?),
            12 => self.pure_query(depth)?,
            14 => {
                let target = if self.u.ratio(1, 3)? {
                    format!("q.f({})", self.expr(d)?)
                } else {
                    self.pick(REMOTE)?.to_string()
                };
                format!("({}->{target})", self.entity()?)
            }
            15 => format!(
                "({} {} {})",
                self.array_value(d)?,
                self.pick(&["==", "!="])?,
                self.array_value(d)?
            ),
            16 => format!("q.count({})", self.list(d)?),
            17 => format!("q.count({})", self.pick(ARRAYS)?),
            18 => format!(
                "((v.str ?? {}) {} {})",
                self.pick(STRINGS)?,
                self.pick(&["==", "!="])?,
                self.pick(STRINGS)?
            ),
            _ => format!("q.g({}, {})", self.expr(d)?, self.expr(d)?),
        })
    }

    fn statement(&mut self, depth: u32, in_loop: bool) -> Result<String> {
        Ok(match self.u.int_in_range(0..=12u8)? {
            0..=2 => format!("{} = {};", self.writable()?, self.expr(4)?),
            3 => format!("{} = v.s;", self.pick(&["v.w", "v.q"])?),
            4 => format!(
                "({}) ? {{ {} = {}; }};",
                self.expr(3)?,
                self.writable()?,
                self.expr(3)?
            ),
            5 => format!(
                "({}) ? ({} = {}) : ({} = {});",
                self.expr(3)?,
                self.writable()?,
                self.expr(3)?,
                self.writable()?,
                self.expr(3)?
            ),
            6 if in_loop => format!(
                "({}) ? {};",
                self.expr(3)?,
                self.pick(&["break", "continue"])?
            ),
            7 if depth > 0 => {
                let count = if self.u.ratio(3, 4)? {
                    self.u.int_in_range(0..=6u32)?.to_string()
                } else {
                    self.expr(2)?
                };
                format!(
                    "loop({count}, {{ {} }});",
                    self.statements(depth - 1, true)?
                )
            }
            8 if depth > 0 => format!(
                "({}) ? {{ {} }} : {{ {} }};",
                self.expr(3)?,
                self.statements(depth - 1, in_loop)?,
                self.statements(depth - 1, in_loop)?
            ),
            9 if depth > 0 => format!(
                "for_each(v.e, {}, {{ {} }});",
                self.list(2)?,
                self.statements(depth - 1, true)?
            ),
            10 => format!("t.element = {};", self.array_value(3)?),
            11 => format!("v.str = {};", self.pick(STRINGS)?),
            12 => format!("v.e = q.entity({});", self.expr(3)?),
            _ => format!("{} = {};", self.writable()?, self.expr(3)?),
        })
    }

    fn statements(&mut self, depth: u32, in_loop: bool) -> Result<String> {
        let n = self.u.int_in_range(1..=5u8)?;
        let mut out = Vec::new();
        for _ in 0..n {
            out.push(self.statement(depth, in_loop)?);
        }
        if self.u.ratio(1, 3)? {
            out.push(format!("return {};", self.expr(4)?));
        }
        Ok(out.join(" "))
    }

    fn program(&mut self) -> Result<String> {
        if self.u.ratio(1, 3)? {
            self.expr(5)
        } else {
            self.statements(2, false)
        }
    }

    fn inputs(&mut self) -> Result<Vec<(String, Value)>> {
        let n = self.u.int_in_range(0..=6u8)?;
        let mut out = Vec::new();
        for _ in 0..n {
            let name = self.pick(INPUTS)?.to_string();
            // Entities 1-3 exist in the world, 7 does not; lists 0-3 exist.
            if name == "c.e" && self.u.ratio(3, 4)? {
                out.push((name, Value::Entity(*self.u.choose(&[1u32, 2, 3, 7])?)));
                continue;
            }
            if name == "c.list" && self.u.ratio(3, 4)? {
                out.push((name, Value::EntityList(self.u.int_in_range(0..=4u32)?)));
                continue;
            }
            let x = match self.u.int_in_range(0..=3u8)? {
                0 => *self
                    .u
                    .choose(&[0.0f32, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY])?,
                1 => self.u.int_in_range(-100..=100i32)? as f32 / 4.0,
                // Any bits: NaN payloads, subnormals, extremes.
                _ => f32::from_bits(self.u.arbitrary::<u32>()?),
            };
            out.push((name, Value::Num(x)));
        }
        Ok(out)
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let mut g = Gen { u: &mut u };
    let (Ok(src), Ok(ins), Ok(seed), Ok(cap), Ok(version)) = (
        g.program(),
        g.inputs(),
        g.u.arbitrary::<u64>(),
        g.u.arbitrary::<Option<u8>>(),
        g.u.choose(&[13i16, 6, 4]).copied(),
    ) else {
        return;
    };
    let options = oracle::case_options(version, cap.map(|c| c as u32 % 4), seed);
    if let Verdict::Differ(why) = oracle::interp_vs_jit(&src, &ins, seed, &options) {
        panic!(
            "divergence (v{version}, cap {:?}, seed {seed}, {}, inputs {}):\n{why}",
            options.loop_cap,
            options.platform.name(),
            oracle::show_vars(&ins)
        );
    }
});
