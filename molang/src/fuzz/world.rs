//! A small, fixed world for differential tests of what reaches past the program: other
//! entities (`->`), entity lists (`for_each`, `query.count`) and render-controller arrays
//! (`array.name[i]`). Both back ends ask the same [`Host`], so a test runs one program on each
//! with its own `World` built from the same inputs and compares everything observable.
//!
//! The world (every answer is a pure function of its arguments, so the number and order of
//! calls cannot matter):
//! - entities 1, 2 and 3 exist; 7 appears in a list but does not (it answers nothing, as a
//!   dead entity: `->` reads 0);
//! - `v.name` on an entity: unset for a quarter of the (entity, name) pairs, else a number,
//!   `-0`, a NaN with the sign bit set, or the string `'warm'`;
//! - `q.name(args)` on an entity: `100·entity + slot + Σ args`, NaN included;
//! - lists: 0 = `[]`, 1 = `[1]`, 2 = `[1, 2, 3]`, 3 = `[3, 7, 1, 1]`; others are empty;
//! - `q.entities(n)` is list `n` (a number, cast as `as u32` casts: NaN and negatives are
//!   0), `q.entity(n)` is entity 1, 2, 3 or 7 by `n`; other queries read their input value
//!   (0 unless given), with or without arguments, as `SimpleHost` does;
//! - arrays have 3, 0, 1 or 5 elements, by name.

use crate::builtins::math::MolangRng;
use crate::expression::SimpleHost;
use crate::interp::{Host, Value};
use crate::ir::{fnv1_64, Names, Slot};

/// The entities of each list (see the module doc).
pub const LISTS: [&[u32]; 4] = [&[], &[1], &[1, 2, 3], &[3, 7, 1, 1]];
/// The entities `q.entity(n)` gives.
pub const ENTITIES: [u32; 4] = [1, 2, 3, 7];
/// Array sizes, by the array's symbol slot.
pub const ARRAY_SIZES: [u32; 4] = [3, 0, 1, 5];

/// The world of the module doc, for one program's names.
pub struct World {
    /// Plain query values, `this` and the generator.
    simple: SimpleHost,
    entities: Option<Slot>,
    entity: Option<Slot>,
}

impl World {
    /// The world for a program checked against `names`; `inputs` named `q.*` and `this` set
    /// the plain query values and `this` (the others are storage, the caller's business),
    /// `seed` seeds the random draws.
    pub fn new(names: &Names, inputs: &[(String, Value)], seed: u64) -> World {
        World {
            simple: SimpleHost::new(names, inputs, seed),
            entities: names.queries.get("entities"),
            entity: names.queries.get("entity"),
        }
    }

    fn exists(entity: u32) -> bool {
        (1..=3).contains(&entity)
    }
}

/// `n` as an index below `len`, the cast the host applies to a number argument.
fn pick(v: Option<&Value>, len: usize) -> usize {
    v.map_or(0, |v| v.as_num() as u32 as usize % len)
}

impl Host for World {
    fn query(&mut self, query: Slot, args: &[Value]) -> Value {
        if !args.is_empty() {
            if Some(query) == self.entities {
                return Value::EntityList(pick(args.first(), LISTS.len()) as u32);
            }
            if Some(query) == self.entity {
                return Value::Entity(ENTITIES[pick(args.first(), ENTITIES.len())]);
            }
        }
        self.simple.query(query, args)
    }
    fn this(&mut self) -> f32 {
        self.simple.this
    }
    fn remote_variable(&mut self, entity: u32, name: Slot) -> Option<Value> {
        if !World::exists(entity) {
            return None;
        }
        let e = entity as f32;
        Some(match (entity + name.0) % 5 {
            0 => return None,
            1 => Value::Num(e * 10.0 + name.0 as f32),
            2 => Value::Num(-0.0),
            3 => Value::Num(f32::from_bits(0xffc0_0000)),
            _ => Value::Str(fnv1_64(b"warm")),
        })
    }
    fn remote_query(&mut self, entity: u32, query: Slot, args: &[Value]) -> Option<Value> {
        if !World::exists(entity) {
            return None;
        }
        let mut v = entity as f32 * 100.0 + query.0 as f32;
        for a in args {
            v += a.as_num();
        }
        Some(Value::Num(v))
    }
    fn entity_list(&mut self, list: u32) -> Vec<u32> {
        LISTS.get(list as usize).map_or(Vec::new(), |l| l.to_vec())
    }
    fn array_len(&mut self, array: Slot) -> u32 {
        ARRAY_SIZES[array.index() % ARRAY_SIZES.len()]
    }
    fn rng(&mut self) -> &mut dyn MolangRng {
        &mut self.simple.rng
    }
}
