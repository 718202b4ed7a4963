//! Read-before-set analysis: an order-aware walk over the checked IR that tracks which
//! temps (and, inside a known entity, which variables) are definitely or possibly set at
//! each point. The game ends the whole program at a read of an unset name, so a read
//! that no path can have set is an error; one that only some paths set is a warning.

use crate::check::CheckOptions;
use crate::diagnostics::{Code, Diagnostic};
use crate::ir::{Names, Node, NodeId, Program, PureQuery, Scope, Slot};
use crate::query_table;
use grammar::Span;

/// A set of names of one program: a flag per slot of each scope. Slots are dense indexes
/// into the program's `Names`, so this is cheaper than hashing them.
#[derive(Debug)]
struct SlotSet([Vec<bool>; 3]);

impl SlotSet {
    /// The empty set over every slot `names` has.
    fn new(names: &Names) -> SlotSet {
        SlotSet([
            vec![false; names.temps.len()],
            vec![false; names.variables.len()],
            vec![false; names.contexts.len()],
        ])
    }
    fn flag(&mut self, (scope, slot): (Scope, Slot)) -> &mut bool {
        &mut self.0[scope as usize][slot.index()]
    }
    /// Adds `key`; whether it was new.
    fn insert(&mut self, key: (Scope, Slot)) -> bool {
        !std::mem::replace(self.flag(key), true)
    }
    fn remove(&mut self, key: (Scope, Slot)) {
        *self.flag(key) = false;
    }
    fn contains(&self, (scope, slot): (Scope, Slot)) -> bool {
        self.0[scope as usize][slot.index()]
    }
}

/// What is set at one point of the walk. Branches only ever add names, so instead of
/// copying the whole state at every fork (quadratic over 20,000 statements with a `?:`
/// each), additions are logged in `trail` and undone to the fork's mark: a fork costs what
/// its branches set, not what is live.
#[derive(Debug)]
struct State {
    definite: SlotSet,
    maybe: SlotSet,
    /// No path reaches this point (after `return`, `break`, `continue`).
    dead: bool,
    /// Insertions in order: `true` for `definite`, `false` for `maybe`.
    trail: Vec<(bool, (Scope, Slot))>,
}

/// Names a branch added: definitely set, possibly set.
type Added = (Vec<(Scope, Slot)>, Vec<(Scope, Slot)>);

impl State {
    fn add_definite(&mut self, key: (Scope, Slot)) {
        if self.definite.insert(key) {
            self.trail.push((true, key));
        }
    }
    fn add_maybe(&mut self, key: (Scope, Slot)) {
        if self.maybe.insert(key) {
            self.trail.push((false, key));
        }
    }
    fn set(&mut self, key: (Scope, Slot)) {
        self.add_definite(key);
        self.add_maybe(key);
    }
    fn mark(&self) -> usize {
        self.trail.len()
    }
    /// Removes everything added since `mark` and returns it.
    fn undo(&mut self, mark: usize) -> Added {
        let mut added: Added = (Vec::new(), Vec::new());
        for (definite, key) in self.trail.drain(mark..) {
            if definite {
                self.definite.remove(key);
                added.0.push(key);
            } else {
                self.maybe.remove(key);
                added.1.push(key);
            }
        }
        added
    }
}

struct Flow<'a> {
    program: &'a Program,
    names: &'a Names,
    options: &'a CheckOptions,
    later: SlotSet,
    reported: SlotSet,
    /// Scratch for `fork`: what the first branch set, cleared after each use.
    scratch: SlotSet,
    diagnostics: Vec<Diagnostic>,
}

/// Runs the analysis over a checked program.
pub fn analyse(program: &Program, names: &Names, options: &CheckOptions) -> Vec<Diagnostic> {
    // Only a read of a judged name can be reported. Most programs read no temp (and, outside
    // an entity, variables are not judged): one scan of the nodes spares them the start
    // state and the walk, which hash every name they set.
    let judged_read = program.nodes.iter().any(|n| match n {
        Node::Read { scope, .. } => judged(*scope, options),
        _ => false,
    });
    if !judged_read {
        return Vec::new();
    }
    let mut start = State {
        definite: SlotSet::new(names),
        maybe: SlotSet::new(names),
        dead: false,
        trail: Vec::new(),
    };
    for (slot, name) in names.variables.iter() {
        let root = name.split('.').next().unwrap_or(name);
        let preset = options
            .preset_variables
            .iter()
            .any(|p| p == name || p == root)
            || query_table::is_engine_variable(name)
            || (root.len() < name.len() && query_table::is_engine_variable(root));
        if preset {
            start.set((Scope::Variable, slot));
        }
    }
    let mut later = SlotSet::new(names);
    for (s, n) in names.variables.iter() {
        if options.later_variables.iter().any(|l| l == n) {
            later.insert((Scope::Variable, s));
        }
    }
    let mut flow = Flow {
        program,
        names,
        options,
        later,
        reported: SlotSet::new(names),
        scratch: SlotSet::new(names),
        diagnostics: Vec::new(),
    };
    flow.walk(program.root(), &mut start, None);
    flow.diagnostics
}

/// Whether reads of `scope` are judged (set before they are read).
fn judged(scope: Scope, options: &CheckOptions) -> bool {
    match scope {
        Scope::Temp => true,
        Scope::Variable => options.judge_variables,
        Scope::Context => false,
    }
}

impl Flow<'_> {
    fn judged(&self, scope: Scope) -> bool {
        judged(scope, self.options)
    }

    fn is_set(&self, state: &SlotSet, scope: Scope, slot: Slot) -> bool {
        if state.contains((scope, slot)) {
            return true;
        }
        // A struct member is set when its struct was assigned whole, and a struct is set
        // when one of its members is.
        let name = self.names.table(scope).name(slot);
        let mut rest = name;
        while let Some((head, _)) = rest.rsplit_once('.') {
            if let Some(s) = self.names.table(scope).get(head) {
                if state.contains((scope, s)) {
                    return true;
                }
            }
            rest = head;
        }
        false
    }

    fn read(&mut self, scope: Scope, slot: Slot, span: Span, state: &State) {
        if state.dead || !self.judged(scope) || self.reported.contains((scope, slot)) {
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
        } else if self.later.contains((scope, slot)) {
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

    /// Runs two alternative branches from the current state and leaves the state where
    /// either may have happened: set on both paths is definite, on one path maybe, and a
    /// path that ends (`return`, `break`) does not count.
    fn fork(
        &mut self,
        state: &mut State,
        a: impl FnOnce(&mut Self, &mut State),
        b: impl FnOnce(&mut Self, &mut State),
    ) {
        if state.dead {
            return;
        }
        let mark = state.mark();
        a(self, state);
        let dead_a = state.dead;
        let (def_a, maybe_a) = state.undo(mark);
        state.dead = false;
        b(self, state);
        match (dead_a, state.dead) {
            // Only the second path goes on: its state stands.
            (true, _) => {}
            // Only the first path goes on.
            (false, true) => {
                state.undo(mark);
                state.dead = false;
                for k in def_a {
                    state.add_definite(k);
                }
                for k in maybe_a {
                    state.add_maybe(k);
                }
            }
            (false, false) => {
                let (def_b, maybe_b) = state.undo(mark);
                for &k in &def_a {
                    self.scratch.insert(k);
                }
                for k in def_b {
                    if self.scratch.contains(k) {
                        state.add_definite(k);
                    }
                }
                for &k in &def_a {
                    self.scratch.remove(k);
                }
                for k in maybe_a.into_iter().chain(maybe_b) {
                    state.add_maybe(k);
                }
            }
        }
    }

    /// Runs a loop body that may run zero times: what it sets is only maybe set after it.
    fn maybe_run(&mut self, state: &mut State, body: impl FnOnce(&mut Self, &mut State)) {
        if state.dead {
            return;
        }
        let mark = state.mark();
        body(self, state);
        let (_, maybe) = state.undo(mark);
        state.dead = false;
        for k in maybe {
            state.add_maybe(k);
        }
    }

    /// Walks `id` in evaluation order. `guarded` is the slot a surrounding `??` tests.
    fn walk(&mut self, id: NodeId, state: &mut State, guarded: Option<(Scope, Slot)>) {
        if state.dead {
            return;
        }
        let program = self.program;
        let node = program.node(id);
        match node {
            Node::Const(_)
            | Node::PlatformConst(_)
            | Node::Str(_)
            | Node::Resource { .. }
            | Node::Array { .. }
            | Node::This => {}
            Node::Read { scope, slot } => {
                if guarded != Some((*scope, *slot)) {
                    self.read(*scope, *slot, program.span(id), state);
                }
            }
            // Operands that always run, in order; a guard reaches through an operator.
            Node::Index { .. }
            | Node::Neg(_)
            | Node::Not(_)
            | Node::Discard(_)
            | Node::Post { .. }
            | Node::Arith { .. }
            | Node::Compare { .. }
            | Node::Equal { .. } => {
                for c in node.children() {
                    self.walk(c, state, guarded);
                }
            }
            // Arguments that always run, in order.
            Node::Query { .. } | Node::Math { .. } | Node::Arrow { .. } => {
                for c in node.children() {
                    self.walk(c, state, None);
                }
            }
            Node::PureQuery { func, args } => {
                // `all`, `any` and `approx_eq` may stop before their later arguments.
                let sure = match func {
                    PureQuery::InRange | PureQuery::Count => args.len(),
                    _ => args.len().min(2),
                };
                for &a in &args[..sure] {
                    self.walk(a, state, None);
                }
                let rest: Vec<NodeId> = args[sure..].to_vec();
                if !rest.is_empty() {
                    self.fork(
                        state,
                        |f, s| {
                            for &a in &rest {
                                f.walk(a, s, None);
                            }
                        },
                        |_, _| {},
                    );
                }
            }
            &(Node::And(l, r) | Node::Or(l, r)) => {
                self.walk(l, state, None);
                self.fork(state, |f, s| f.walk(r, s, None), |_, _| {});
            }
            // Ids copied out: the branches run in closures that borrow `self`.
            &Node::Cond {
                cond,
                then,
                otherwise,
            } => {
                self.walk(cond, state, None);
                self.fork(
                    state,
                    |f, s| f.walk(then, s, None),
                    |f, s| {
                        if let Some(o) = otherwise {
                            f.walk(o, s, None);
                        }
                    },
                );
            }
            &Node::Coalesce {
                scope,
                slot,
                lhs,
                rhs,
            } => {
                let key = (scope, slot);
                if self.is_set(&state.definite, key.0, key.1) {
                    self.walk(lhs, state, Some(key));
                    return;
                }
                // Either the left side was set (and is now known set) or the right side ran.
                self.fork(
                    state,
                    |f, s| {
                        f.walk(lhs, s, Some(key));
                        s.set(key);
                    },
                    |f, s| f.walk(rhs, s, None),
                );
            }
            Node::Assign(a) => {
                self.walk(a.value, state, None);
                if !state.dead {
                    state.set((a.scope, a.slot));
                    // The struct paths it creates and the members a struct assignment copies.
                    let made = a.parents.iter().chain(a.copies.iter().map(|(_, d)| d));
                    for &s in made {
                        state.set((a.scope, s));
                    }
                }
            }
            Node::Block { stmts, .. } => {
                for &s in stmts.iter() {
                    self.walk(s, state, None);
                    if state.dead {
                        break;
                    }
                }
            }
            &Node::Loop { count, body } => {
                self.walk(count, state, None);
                self.maybe_run(state, |f, s| f.walk(body, s, None));
            }
            &Node::ForEach(each) => {
                self.walk(each.array, state, None);
                self.maybe_run(state, |f, s| {
                    s.set((each.scope, each.slot));
                    f.walk(each.body, s, None);
                });
            }
            Node::Break | Node::Continue => state.dead = true,
            Node::Return(v) => {
                self.walk(*v, state, None);
                state.dead = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::check::{check, CheckOptions};
    use crate::diagnostics::Code;
    use crate::ir::Names;

    /// Read-before-set codes reported for `src`, with the text they point at.
    fn reads(src: &str) -> Vec<(Code, String)> {
        check(src, &CheckOptions::default(), &mut Names::default())
            .diagnostics
            .into_iter()
            .filter(|d| matches!(d.code, Code::ReadBeforeSet | Code::MaybeReadBeforeSet))
            .map(|d| (d.code, src[d.span.range()].to_string()))
            .collect()
    }

    fn clean(src: &str) {
        assert_eq!(reads(src), vec![], "{src}");
    }
    fn error(src: &str, at: &str) {
        assert_eq!(
            reads(src),
            vec![(Code::ReadBeforeSet, at.to_string())],
            "{src}"
        );
    }
    fn maybe(src: &str, at: &str) {
        assert_eq!(
            reads(src),
            vec![(Code::MaybeReadBeforeSet, at.to_string())],
            "{src}"
        );
    }

    #[test]
    fn straight_line() {
        clean("t.x = 1; return t.x;");
        error("t.y = t.x; t.x = 1; return t.y;", "t.x");
        clean("t.a.b = 1; return t.a;");
        clean("v.x = t.x ?? 1; return v.x;");
    }

    #[test]
    fn both_branches_set() {
        clean("q.is_baby ? {t.x = 1;} : {t.x = 2;}; return t.x;");
        clean("q.a ? {q.b ? {t.x = 1;} : {t.x = 2;};} : {t.x = 3;}; return t.x;");
        maybe("q.a ? {q.b ? {t.x = 1;};} : {t.x = 3;}; return t.x;", "t.x");
    }

    #[test]
    fn one_branch_sets() {
        maybe("q.is_baby ? {t.x = 1;}; return t.x;", "t.x");
        maybe("q.a && {t.x = 1;}; return t.x;", "t.x");
        maybe("q.a ? {t.y = 1;} : {t.x = 2;}; return t.x;", "t.x");
    }

    #[test]
    fn a_branch_that_ends() {
        // The path that returns never reaches the read.
        clean("q.a ? {return 1;} : {t.x = 2;}; return t.x;");
        clean("q.a ? {t.x = 2;} : {return 1;}; return t.x;");
        error("q.a ? {return 1;} : {t.y = 2;}; return t.x;", "t.x");
        // Both end: nothing after runs.
        clean("q.a ? {return 1;} : {return 2;}; return t.x;");
    }

    #[test]
    fn loops_may_not_run() {
        maybe("loop(q.a, {t.x = 1;}); return t.x;", "t.x");
        clean("loop(2, {t.x = 1; return t.x;}); return 0;");
        clean("t.i = 0; loop(3, {t.i = t.i + 1; (t.i > 1) ? break; t.x = 1;}); return t.i;");
        maybe(
            "for_each(t.e, q.get_nearby_entities(4), {t.x = 1;}); return t.x;",
            "t.x",
        );
        maybe(
            "for_each(t.e, q.get_nearby_entities(4), {t.x = 1;}); return t.e;",
            "t.e",
        );
    }

    #[test]
    fn coalesce_sets_or_runs_the_right_side() {
        clean("t.x ?? {t.x = 1;}; return t.x;");
        maybe("t.x ?? {t.y = 1;}; return t.y;", "t.y");
        clean("t.x = 1; t.x ?? {t.y = 1;}; return t.x;");
    }

    /// Inside an entity's script a variable read alone (no temp in the program) is judged;
    /// outside one it is not.
    #[test]
    fn variables_are_judged_only_when_asked() {
        let judge = CheckOptions {
            judge_variables: true,
            ..CheckOptions::default()
        };
        let codes = |options: &CheckOptions| -> Vec<Code> {
            check("v.a = v.b; return v.a;", options, &mut Names::default())
                .diagnostics
                .into_iter()
                .map(|d| d.code)
                .collect()
        };
        assert_eq!(codes(&judge), vec![Code::ReadBeforeSet]);
        assert_eq!(codes(&CheckOptions::default()), vec![]);
    }

    #[test]
    fn reported_once_per_name() {
        error("return t.x + t.x;", "t.x");
    }
}
