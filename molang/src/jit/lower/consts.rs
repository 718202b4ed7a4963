//! The constant table of a large program. x86 lowering gives every use of an `f32const` a
//! 16-byte constant-pool entry of its own, never shared. Where the instruction reads that
//! operand from memory, this costs the entry only; where the operand must be in a register,
//! it costs a `mov` and a `movd` (9 bytes), or a 16-byte `movups` of one more entry. The
//! rig's frame is bound by fetching its code and data, so a large program loads its register
//! operands from one table of distinct values instead, through a base register biased so
//! that the 64 commonest values are a one-byte displacement away (a 5- or 6-byte load, no
//! pool entry), and stores constants as integer immediates. Memory operands stay
//! Cranelift's: a table load is folded into its user only when no other load comes between
//! them, which Cranelift's placement of pure instructions seldom leaves (moving every use to
//! the table cost the rig 350 more instructions a frame than leaving them).

use std::collections::{HashMap, HashSet};
use std::mem::offset_of;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, Function, Inst, InstBuilder, InstructionData, Opcode, Value as CValue,
};

use super::super::abi::{Frame, CONST_BIAS};
use super::Translator;
use crate::ir::{Node, NodeId, Program};

/// Below this many constants in its IR, a program keeps Cranelift's own constants: a short
/// expression's few pool entries cost nothing, and the table costs a base load per run.
const MIN_TABLED: usize = 16;

/// Which operand of `inst` x86 reads from memory (`usize::MAX` for none): the second of
/// arithmetic and of compares, the first of the compares it lowers with swapped operands.
fn mem_operand(inst: &InstructionData) -> usize {
    match *inst {
        InstructionData::Binary {
            opcode: Opcode::Fadd | Opcode::Fsub | Opcode::Fmul | Opcode::Fdiv,
            ..
        } => 1,
        InstructionData::FloatCompare { cond, .. } => match cond {
            FloatCC::LessThan
            | FloatCC::LessThanOrEqual
            | FloatCC::UnorderedOrGreaterThan
            | FloatCC::UnorderedOrGreaterThanOrEqual => 0,
            _ => 1,
        },
        _ => usize::MAX,
    }
}

/// Whether [`Translator::table_constants`] will move the program's constants to a table.
pub(super) fn tabled(program: &Program) -> bool {
    (0..program.len())
        .filter(|&i| matches!(program.node(NodeId(i as u32)), Node::Const(_)))
        .nth(MIN_TABLED - 1)
        .is_some()
}

impl Translator<'_> {
    /// Replaces each use of an `f32const` that x86 needs in a register by a load from the
    /// table placed just before it, and returns the table (bit patterns, commonest first).
    /// A constant stored to memory becomes an integer store of its bits (one instruction, no
    /// register). `+0.0` stays (x86 makes it with one `xorps`), and so do the memory
    /// operands and the operands of `minss`/`maxss` shapes.
    pub(super) fn table_constants(&mut self) -> Vec<u32> {
        let func = &mut *self.b.func;
        let mut uses = Vec::new();
        let mut stores = Vec::new();
        let mut counts = HashMap::<u32, u32>::new();
        let min_max = min_max_shapes(func);
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                let op = func.dfg.insts[inst].opcode();
                if op == Opcode::F32const || min_max.contains(&inst) {
                    continue;
                }
                for (i, v) in func.dfg.inst_values(inst).enumerate() {
                    let Some(bits) = const_bits(func, v) else {
                        continue;
                    };
                    if op == Opcode::Store && i == 0 {
                        stores.push((inst, bits));
                    } else if i == mem_operand(&func.dfg.insts[inst]) {
                        // x86 folds the pool entry into the instruction: no load of its own.
                    } else if bits != 0 {
                        uses.push((inst, i, bits));
                        *counts.entry(bits).or_default() += 1;
                    }
                }
            }
        }
        let mut table: Vec<u32> = counts.keys().copied().collect();
        table.sort_by_key(|b| (std::cmp::Reverse(counts[b]), *b));
        let index: HashMap<u32, usize> = table.iter().enumerate().map(|(i, &b)| (b, i)).collect();

        let mut cur = FuncCursor::new(func);
        for (inst, bits) in stores {
            cur.goto_inst(inst);
            let word = cur.ins().iconst(types::I32, i64::from(bits as i32));
            cur.func.dfg.inst_args_mut(inst)[0] = word;
        }
        if uses.is_empty() {
            return table;
        }
        let entry = cur
            .func
            .layout
            .entry_block()
            .expect("the function has a body");
        let first = cur
            .func
            .layout
            .first_inst(entry)
            .expect("the entry block has code");
        cur.goto_inst(first);
        let base = cur.ins().load(
            self.ptr,
            Self::entry_flags(),
            self.frame,
            offset_of!(Frame, consts) as i32,
        );
        for (inst, arg, bits) in uses {
            cur.goto_inst(inst);
            let offset = index[&bits] as i32 * 4 - CONST_BIAS as i32;
            // Not `readonly`: alias analysis would then merge every load of one value into
            // the first, kept in a register across the whole function.
            let v = cur.ins().load(types::F32, Self::flags(), base, offset);
            let mut k = 0;
            cur.func.dfg.map_inst_values(inst, |old| {
                let new = if k == arg { v } else { old };
                k += 1;
                new
            });
        }
        table
    }
}

/// The `select`s of an `fcmp lt` of their own two operands, and those `fcmp`s: x86 makes one
/// `minss` or `maxss` of each pair only while both name the same two values (see
/// `Translator::max_raw`), so their constants stay Cranelift's.
fn min_max_shapes(func: &Function) -> HashSet<Inst> {
    let mut shapes = HashSet::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if func.dfg.insts[inst].opcode() != Opcode::Select {
                continue;
            }
            let &[c, x, y] = func.dfg.inst_args(inst) else {
                continue;
            };
            let Some(cmp) = func.dfg.value_def(c).inst() else {
                continue;
            };
            if let InstructionData::FloatCompare {
                opcode: Opcode::Fcmp,
                cond: FloatCC::LessThan,
                args: [a, b],
            } = func.dfg.insts[cmp]
            {
                if (a, b) == (x, y) || (a, b) == (y, x) {
                    shapes.insert(inst);
                    shapes.insert(cmp);
                }
            }
        }
    }
    shapes
}

/// The bits of `v` when an `f32const` defines it.
pub(super) fn const_bits(func: &Function, v: CValue) -> Option<u32> {
    let v = func.dfg.resolve_aliases(v);
    let inst = func.dfg.value_def(v).inst()?;
    match func.dfg.insts[inst] {
        InstructionData::UnaryIeee32 {
            opcode: Opcode::F32const,
            imm,
        } => Some(imm.bits()),
        _ => None,
    }
}
