//! Read-before-set analysis: an order-aware walk over the checked IR that tracks which
//! temps (and, inside a known entity, which variables) are definitely or possibly set at
//! each point. The game ends the whole program at a read of an unset name, so a read
//! that no path can have set is an error; one that only some paths set is a warning.

use std::collections::HashSet;

use crate::check::CheckOptions;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Names, Node, NodeId, Program, Scope, Slot};
use crate::queries;
use grammar::Span;

#[derive(Clone, Debug, Default)]
struct State {
    definite: HashSet<(Scope, Slot)>,
    maybe: HashSet<(Scope, Slot)>,
    /// No path reaches this point (after `return`, `break`, `continue`).
    dead: bool,
}

impl State {
    fn set(&mut self, key: (Scope, Slot)) {
        self.definite.insert(key);
        self.maybe.insert(key);
    }
    /// The state where either `self` or `other` happened.
    fn merge(self, other: State) -> State {
        if self.dead {
            return other;
        }
        if other.dead {
            return self;
        }
        State {
            definite: self.definite.intersection(&other.definite).copied().collect(),
            maybe: self.maybe.union(&other.maybe).copied().collect(),
            dead: false,
        }
    }
}

struct Flow<'a> {
    program: &'a Program,
    names: &'a Names,
    options: &'a CheckOptions,
    later: HashSet<(Scope, Slot)>,
    reported: HashSet<(Scope, Slot)>,
    diagnostics: Vec<Diagnostic>,
}

/// Runs the analysis over a checked program.
pub fn analyse(program: &Program, names: &Names, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut start = State::default();
    for (slot, name) in names.variables.iter() {
        let root = name.split('.').next().unwrap_or(name);
        let preset = options.preset_variables.iter().any(|p| p == name || p == root)
            || queries::is_engine_variable(name)
            || queries::is_engine_variable(root);
        if preset {
            start.set((Scope::Variable, slot));
        }
    }
    let later = names
        .variables
        .iter()
        .filter(|(_, n)| options.later_variables.iter().any(|l| l == n))
        .map(|(s, _)| (Scope::Variable, s))
        .collect();
    let mut flow = Flow { program, names, options, later, reported: HashSet::new(), diagnostics: Vec::new() };
    flow.walk(program.root(), start, None);
    flow.diagnostics
}

impl Flow<'_> {
    fn judged(&self, scope: Scope) -> bool {
        match scope {
            Scope::Temp => true,
            Scope::Variable => self.options.judge_variables,
            Scope::Context => false,
        }
    }

    fn is_set(&self, state: &HashSet<(Scope, Slot)>, scope: Scope, slot: Slot) -> bool {
        if state.contains(&(scope, slot)) {
            return true;
        }
        // A struct member is set when its struct was assigned whole, and a struct is set
        // when one of its members is.
        let name = self.names.table(scope).name(slot);
        let mut rest = name;
        while let Some((head, _)) = rest.rsplit_once('.') {
            if let Some(s) = self.names.table(scope).get(head) {
                if state.contains(&(scope, s)) {
                    return true;
                }
            }
            rest = head;
        }
        false
    }

    fn read(&mut self, scope: Scope, slot: Slot, span: Span, state: &State) {
        if state.dead || !self.judged(scope) || self.reported.contains(&(scope, slot)) {
            return;
        }
        if self.is_set(&state.definite, scope, slot) {
            return;
        }
        let full = format!("{}.{}", scope.prefix(), self.names.table(scope).name(slot));
        let before = Span::new(0, span.start as usize);
        let d = if self.is_set(&state.maybe, scope, slot) {
            Diagnostic::new(Code::MaybeReadBeforeSet, span, format!("`{full}` may be read before it is set"))
                .with_label(before, "set on some paths only before this point")
                .with_help(format!(
                    "when it is unset the game ends the whole expression here; guard it with `{full} ?? 0` or set it first"
                ))
        } else if self.later.contains(&(scope, slot)) {
            Diagnostic::new(
                Code::ReadBeforeSetFirstFrame,
                span,
                format!("`{full}` is read before it is set on the first frame"),
            )
            .with_label(before, "no assignment before this point on the first frame")
            .with_help(format!(
                "it is set later in pre_animation; on the first frame this read ends the script; set it in `initialize` or use `{full} ?? 0`"
            ))
        } else {
            Diagnostic::new(Code::ReadBeforeSet, span, format!("`{full}` is read before it is set"))
                .with_label(before, "no assignment before this point")
                .with_help(format!(
                    "the game ends the whole expression at this read (its value is 0 and later statements do not run); set it first or use `{full} ?? 0`"
                ))
        };
        self.reported.insert((scope, slot));
        self.diagnostics.push(d);
    }

    /// Walks `id` in evaluation order. `guarded` is the slot a surrounding `??` tests.
    fn walk(&mut self, id: NodeId, mut state: State, guarded: Option<(Scope, Slot)>) -> State {
        if state.dead {
            return state;
        }
        let program = self.program;
        match program.node(id) {
            Node::Const(_) | Node::Str(_) | Node::Resource { .. } | Node::Array { .. } | Node::This => state,
            Node::Read { scope, slot } => {
                if guarded != Some((*scope, *slot)) {
                    self.read(*scope, *slot, program.span(id), &state);
                }
                state
            }
            Node::Index { index, .. } => self.walk(*index, state, guarded),
            Node::Query { args, .. } | Node::Math { args, .. } => {
                for &a in args.iter() {
                    state = self.walk(a, state, None);
                }
                state
            }
            Node::Neg(e) | Node::Not(e) | Node::Discard(e) => self.walk(*e, state, guarded),
            Node::Arith { lhs, rhs, .. } | Node::Compare { lhs, rhs, .. } | Node::Equal { lhs, rhs, .. } => {
                let state = self.walk(*lhs, state, guarded);
                self.walk(*rhs, state, guarded)
            }
            Node::And(l, r) | Node::Or(l, r) => {
                let state = self.walk(*l, state, None);
                let taken = self.walk(*r, state.clone(), None);
                state.merge(taken)
            }
            Node::Cond { cond, then, otherwise } => {
                let state = self.walk(*cond, state, None);
                let t = self.walk(*then, state.clone(), None);
                let o = match otherwise {
                    Some(o) => self.walk(*o, state, None),
                    None => state,
                };
                t.merge(o)
            }
            Node::Coalesce { scope, slot, lhs, rhs } => {
                let key = (*scope, *slot);
                let was_set = self.is_set(&state.definite, key.0, key.1);
                let mut left = self.walk(*lhs, state.clone(), Some(key));
                if was_set {
                    return left;
                }
                left.set(key);
                let right = self.walk(*rhs, state, None);
                left.merge(right)
            }
            Node::Assign { scope, slot, value, parents, copies } => {
                let mut state = self.walk(*value, state, None);
                if !state.dead {
                    state.set((*scope, *slot));
                    for p in parents.iter() {
                        state.set((*scope, *p));
                    }
                    for (_, d) in copies.iter() {
                        state.set((*scope, *d));
                    }
                }
                state
            }
            Node::Arrow { entity, remote } => {
                let mut state = self.walk(*entity, state, None);
                if let crate::ir::Remote::Query { args, .. } = remote {
                    for &a in args.iter() {
                        state = self.walk(a, state, None);
                    }
                }
                state
            }
            Node::Block { stmts, .. } => {
                for &s in stmts.iter() {
                    state = self.walk(s, state, None);
                    if state.dead {
                        break;
                    }
                }
                state
            }
            Node::Loop { count, body } => {
                let state = self.walk(*count, state, None);
                let mut after_body = self.walk(*body, state.clone(), None);
                after_body.dead = false;
                // The body may run zero times: nothing it sets is definite afterwards.
                let mut out = state;
                out.maybe.extend(after_body.maybe);
                out
            }
            Node::ForEach { scope, slot, array, body } => {
                let state = self.walk(*array, state, None);
                let mut inside = state.clone();
                inside.set((*scope, *slot));
                let mut after_body = self.walk(*body, inside, None);
                after_body.dead = false;
                let mut out = state;
                out.maybe.extend(after_body.maybe);
                out
            }
            Node::Break | Node::Continue => {
                state.dead = true;
                state
            }
            Node::Return(v) => {
                let mut state = self.walk(*v, state, None);
                state.dead = true;
                state
            }
        }
    }
}
