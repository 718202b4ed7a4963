//! Slot storage shared by both back ends (one layout, so an entity's expressions can run on
//! either, expression by expression): per slot a tag byte (0 = unset), the value as a number
//! and 64 payload bits (see [`Value::encode`]). Native code reads a number with one flag test
//! and one f32 load; only comparisons and truth tests of slots look at the tag.

use super::value::{tag, Value};
use crate::ir::{Names, Scope, Slot};

/// One scope's slots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Slots {
    pub(crate) nums: Vec<f32>,
    pub(crate) tags: Vec<u8>,
    pub(crate) bits: Vec<u64>,
}

impl Slots {
    fn fit(&mut self, n: usize) {
        if self.nums.len() < n {
            self.nums.resize(n, 0.0);
            self.tags.resize(n, tag::UNSET);
            self.bits.resize(n, 0);
        }
    }
    pub fn len(&self) -> usize {
        self.nums.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nums.is_empty()
    }
    pub fn get(&self, slot: Slot) -> Option<Value> {
        let i = slot.index();
        Value::decode(*self.tags.get(i)?, self.nums[i], self.bits[i])
    }
    /// The slot's number without decoding its value: `None` when unset, 0 for a value
    /// that is not a number ([`Value::as_num`]). The per-frame read of a rig's outputs.
    #[inline]
    pub fn number(&self, slot: Slot) -> Option<f32> {
        let i = slot.index();
        match *self.tags.get(i)? {
            super::value::tag::UNSET => None,
            super::value::tag::NUM => Some(self.nums[i]),
            _ => Some(0.0),
        }
    }
    /// [`Slots::number`] of every slot of `slots` into `out`, `unset` where it gives `None`:
    /// one pass with one range test a slot, for a caller that reads many numbers a frame (a
    /// rig's 48 outputs; one call each cost two bounds checks and the `Option`).
    #[inline]
    pub fn numbers(&self, slots: &[Slot], out: &mut [f32], unset: f32) {
        let n = self.tags.len().min(self.nums.len());
        let (tags, nums) = (&self.tags[..n], &self.nums[..n]);
        for (o, s) in out.iter_mut().zip(slots) {
            let i = s.index();
            *o = if i < n {
                // Both loaded, then chosen: selects, no branch per slot.
                let (t, x) = (tags[i], nums[i]);
                let x = if t == tag::NUM { x } else { 0.0 };
                if t == tag::UNSET {
                    unset
                } else {
                    x
                }
            } else {
                unset
            };
        }
    }
    /// The slot's truth without decoding its value: `None` when unset, true for a value that
    /// is not a number ([`Value::truthy`]).
    #[inline]
    pub fn truthy(&self, slot: Slot) -> Option<bool> {
        let i = slot.index();
        match *self.tags.get(i)? {
            super::value::tag::UNSET => None,
            super::value::tag::NUM => Some(self.nums[i] != 0.0),
            _ => Some(true),
        }
    }
    pub fn set(&mut self, slot: Slot, v: Value) {
        let i = slot.index();
        self.fit(i + 1);
        let (t, n, b) = v.encode();
        self.tags[i] = t;
        self.nums[i] = n;
        self.bits[i] = b;
    }
}

/// Variable storage for one run: the entity's variables persist, temps are cleared per run,
/// contexts are supplied by the host.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Storage {
    pub(crate) vars: Slots,
    pub(crate) temps: Slots,
    pub(crate) ctx: Slots,
}

impl Storage {
    /// Bytes of the slot arrays on the heap (per slot 13: an f32, a tag byte, 64 payload bits).
    pub fn heap_bytes(&self) -> usize {
        [&self.vars, &self.temps, &self.ctx]
            .iter()
            .map(|s| s.nums.capacity() * 4 + s.tags.capacity() + s.bits.capacity() * 8)
            .sum()
    }
    /// Storage sized for every name in `names`, all unset.
    pub fn for_names(names: &Names) -> Storage {
        let mut s = Storage::default();
        s.fit(names);
        s
    }
    /// Grows the arrays to cover every name in `names` (entity scripts add names over time).
    pub fn fit(&mut self, names: &Names) {
        self.vars.fit(names.variables.len());
        self.temps.fit(names.temps.len());
        self.ctx.fit(names.contexts.len());
    }
    pub fn slots(&self, scope: Scope) -> &Slots {
        match scope {
            Scope::Variable => &self.vars,
            Scope::Temp => &self.temps,
            Scope::Context => &self.ctx,
        }
    }
    pub(crate) fn slots_mut(&mut self, scope: Scope) -> &mut Slots {
        match scope {
            Scope::Variable => &mut self.vars,
            Scope::Temp => &mut self.temps,
            Scope::Context => &mut self.ctx,
        }
    }
    pub fn get(&self, scope: Scope, slot: Slot) -> Option<Value> {
        self.slots(scope).get(slot)
    }
    pub fn set(&mut self, scope: Scope, slot: Slot, v: impl Into<Value>) {
        self.slots_mut(scope).set(slot, v.into());
    }
    /// Temps start empty on every run.
    pub fn clear_temps(&mut self) {
        self.temps.tags.iter_mut().for_each(|t| *t = tag::UNSET);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass read gives what `number` gives slot by slot: the number, 0 for a value
    /// that is not a number, `unset` for an unset slot and for a slot past the storage.
    #[test]
    fn numbers_reads_what_number_reads() {
        let mut s = Slots::default();
        s.set(Slot(0), Value::Num(2.5));
        s.set(Slot(1), Value::Str(7));
        s.set(Slot(3), Value::Num(f32::from_bits(0x7fc0_0123)));
        let slots = [0, 1, 2, 3, 4, 99, 0].map(Slot);
        let mut out = [0.0f32; 7];
        s.numbers(&slots, &mut out, -1.0);
        let each: Vec<u32> = slots
            .iter()
            .map(|&k| s.number(k).unwrap_or(-1.0).to_bits())
            .collect();
        assert_eq!(out.map(f32::to_bits).to_vec(), each);
        assert_eq!(
            out.map(f32::to_bits),
            [2.5, 0.0, -1.0, f32::from_bits(0x7fc0_0123), -1.0, -1.0, 2.5].map(f32::to_bits)
        );
    }
}
