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
