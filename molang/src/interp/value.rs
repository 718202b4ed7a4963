//! Runtime values. Numbers are f32; strings are the game's 64-bit FNV-1 hash of their bytes,
//! so comparing two strings compares hashes, exactly as the game does.

use crate::ir::{ResourceKind, Slot};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Num(f32),
    Str(u64),
    /// A reference to an entity of the host's entity store.
    Entity(u32),
    /// A host entity list (for `for_each`).
    EntityList(u32),
    Resource(ResourceKind, Slot),
    Array(Slot),
    ArrayElement(Slot, u32),
}

impl Value {
    /// The number a value stands for in arithmetic; non-numbers read 0.
    pub fn as_num(self) -> f32 {
        match self {
            Value::Num(x) => x,
            _ => 0.0,
        }
    }
    /// False only for exactly zero (and -0); NaN is true; references are true.
    pub fn truthy(self) -> bool {
        match self {
            Value::Num(x) => x != 0.0,
            _ => true,
        }
    }
    /// `==` on any two values: numbers by f32 equality, everything else by identity.
    pub fn equals(self, other: Value) -> bool {
        match (self, other) {
            (Value::Num(a), Value::Num(b)) => a == b,
            (a, b) => a == b,
        }
    }
    /// Shortest text that reads back to the same f32.
    pub fn display(self) -> String {
        match self {
            Value::Num(x) => format_f32(x),
            Value::Str(h) => format!("string#{h}"),
            Value::Entity(e) => format!("entity#{e}"),
            Value::EntityList(l) => format!("entities#{l}"),
            Value::Resource(k, s) => format!("{k:?}#{}", s.0),
            Value::Array(s) => format!("array#{}", s.0),
            Value::ArrayElement(s, i) => format!("array#{}[{i}]", s.0),
        }
    }
}

/// Shortest round-trip form of an f32 (`0.1`, `2.3333335`, `NaN`, `inf`, `-inf`).
pub fn format_f32(x: f32) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{x:?}").trim_end_matches(".0").to_string()
    }
}

/// A value in storage form, as both back ends keep it per slot: a tag byte (0 = unset), the
/// number (`as_num`: 0 for non-numbers, so numeric reads are one load) and 64 payload bits
/// (a string's hash, a reference's ids). Lossless: [`Value::decode`] undoes [`Value::encode`].
pub mod tag {
    pub const UNSET: u8 = 0;
    pub const NUM: u8 = 1;
    pub const STR: u8 = 2;
    pub const ENTITY: u8 = 3;
    pub const ENTITY_LIST: u8 = 4;
    pub const RESOURCE: u8 = 5;
    pub const ARRAY: u8 = 6;
    pub const ARRAY_ELEMENT: u8 = 7;
}

impl From<f32> for Value {
    fn from(x: f32) -> Value {
        Value::Num(x)
    }
}

impl Value {
    /// (tag, number, payload bits).
    pub fn encode(self) -> (u8, f32, u64) {
        let pair = |a: u32, b: u32| ((a as u64) << 32) | b as u64;
        match self {
            Value::Num(x) => (tag::NUM, x, 0),
            Value::Str(h) => (tag::STR, 0.0, h),
            Value::Entity(e) => (tag::ENTITY, 0.0, e as u64),
            Value::EntityList(l) => (tag::ENTITY_LIST, 0.0, l as u64),
            Value::Resource(k, s) => {
                let k = match k {
                    ResourceKind::Geometry => 0,
                    ResourceKind::Material => 1,
                    ResourceKind::Texture => 2,
                };
                (tag::RESOURCE, 0.0, pair(k, s.0))
            }
            Value::Array(s) => (tag::ARRAY, 0.0, s.0 as u64),
            Value::ArrayElement(s, i) => (tag::ARRAY_ELEMENT, 0.0, pair(s.0, i)),
        }
    }
    /// The value of a set slot; `None` for [`tag::UNSET`].
    pub fn decode(t: u8, num: f32, bits: u64) -> Option<Value> {
        let (hi, lo) = ((bits >> 32) as u32, bits as u32);
        Some(match t {
            tag::UNSET => return None,
            tag::STR => Value::Str(bits),
            tag::ENTITY => Value::Entity(lo),
            tag::ENTITY_LIST => Value::EntityList(lo),
            tag::RESOURCE => Value::Resource(
                match hi {
                    0 => ResourceKind::Geometry,
                    1 => ResourceKind::Material,
                    _ => ResourceKind::Texture,
                },
                Slot(lo),
            ),
            tag::ARRAY => Value::Array(Slot(lo)),
            tag::ARRAY_ELEMENT => Value::ArrayElement(Slot(hi), lo),
            _ => Value::Num(num),
        })
    }
}
