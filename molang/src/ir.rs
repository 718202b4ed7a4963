//! The checked IR: what the checker proves and both back ends run. Flat and indexed
//! (`Vec<Node>` addressed by [`NodeId`], spans in a parallel vector). Every name is already
//! a [`Slot`]: nothing here looks at a string at run time.
//!
//! Invariants a back end may rely on (the checker is the only constructor of [`Program`]):
//! arities match the builtin and query tables, nesting is at most 256 levels, `break` and
//! `continue` only appear inside loops or are reported, and slots index into the
//! [`Names`] the program was checked with.

use crate::builtins::math::MathFn;
pub use crate::builtins::queries::PureQuery;
use grammar::Span;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// Index into one of the name tables of [`Names`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(pub u32);

impl Slot {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The storage a name lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// `temp.*`: cleared at the start of every run.
    Temp,
    /// `variable.*`: stored on the entity, kept across runs.
    Variable,
    /// `context.*`: read-only, supplied by the host per run.
    Context,
}

impl Scope {
    pub fn prefix(self) -> &'static str {
        match self {
            Scope::Temp => "temp",
            Scope::Variable => "variable",
            Scope::Context => "context",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    Geometry,
    Material,
    Texture,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// `a op b` as the game compares on `platform` (arm64's `<` and `<=` are true with a
    /// NaN): what the interpreter and the constant folder both compute.
    #[inline(always)]
    pub fn holds(self, platform: crate::builtins::platform::Platform, a: f32, b: f32) -> bool {
        match self {
            CmpOp::Lt => platform.lt(a, b),
            CmpOp::Le => platform.le(a, b),
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// What `->` reads on the other entity.
#[derive(Clone, Debug, PartialEq)]
pub enum Remote {
    /// `variable.name` of the other entity (a slot of `Names::remote`).
    Variable(Slot),
    /// A query evaluated on the other entity.
    Query { query: Slot, args: Box<[NodeId]> },
}

/// The game compiler's post-operation `raw·scale + offset` (see [`crate::fold`]), which the
/// node it is attached to applies as part of its own instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PostOp {
    pub scale: f32,
    pub offset: f32,
}

impl PostOp {
    /// `(1, 0)`: nothing applied.
    pub const IDENTITY: PostOp = PostOp {
        scale: 1.0,
        offset: 0.0,
    };

    /// Whether this is the plain form (an offset of `−0` counts): the node's value is returned
    /// untouched, so a `−0` stays `−0`.
    pub fn is_identity(self) -> bool {
        self.scale == 1.0 && self.offset == 0.0
    }
}

/// Store into a temp or variable: what every back end reads of an assignment, in one value.
#[derive(Clone, Debug, PartialEq)]
pub struct Assign {
    pub scope: Scope,
    pub slot: Slot,
    pub value: NodeId,
    /// The struct paths that now exist (`v.a.b = 1` creates `v.a`).
    pub parents: Box<[Slot]>,
    /// The member slots (source, destination) a struct assignment copies.
    pub copies: Box<[(Slot, Slot)]>,
}

/// `for_each(scope.slot, array, body)`: `body` once per entity of the list `array`, with the
/// entity in `(scope, slot)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForEach {
    pub scope: Scope,
    pub slot: Slot,
    pub array: NodeId,
    pub body: NodeId,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Const(f32),
    /// A number the game's compiler computed at load time whose bits differ between the
    /// platforms (x86-64 first, [`crate::builtins::platform::Platform::index`]): a NaN's
    /// payload, or a multiply-add rounded once on arm64.
    PlatformConst([f32; 2]),
    /// `operand·scale + offset`, the post-operation the game's compiler folds constant factors,
    /// constant terms and negations into (per platform, x86-64 first). How the operand's
    /// instruction applies it depends on the operand: see [`crate::fold`].
    Post {
        operand: NodeId,
        post: [PostOp; 2],
    },
    /// A string literal, as the game keeps it: the 64-bit FNV-1 hash of its bytes.
    Str(u64),
    Resource {
        kind: ResourceKind,
        name: Slot,
    },
    /// `array.name` without an index.
    Array {
        name: Slot,
    },
    Index {
        array: Slot,
        index: NodeId,
    },
    This,
    /// Read of a temp, variable or context slot; ends the program if the slot is unset.
    Read {
        scope: Scope,
        slot: Slot,
    },
    /// A query, with its arguments (empty for plain queries).
    Query {
        query: Slot,
        args: Box<[NodeId]>,
    },
    /// A query the engine computes from its arguments alone (`query.all`, `in_range`, ...;
    /// see [`crate::builtins::queries`]): evaluated by the back ends, never by the host.
    PureQuery {
        func: PureQuery,
        args: Box<[NodeId]>,
    },
    Math {
        func: MathFn,
        args: Box<[NodeId]>,
    },
    Neg(NodeId),
    Not(NodeId),
    Arith {
        op: ArithOp,
        lhs: NodeId,
        rhs: NodeId,
    },
    Compare {
        op: CmpOp,
        lhs: NodeId,
        rhs: NodeId,
    },
    /// `==` (or `!=` when `negate`); compares numbers, strings and references.
    Equal {
        negate: bool,
        lhs: NodeId,
        rhs: NodeId,
    },
    And(NodeId, NodeId),
    Or(NodeId, NodeId),
    Cond {
        cond: NodeId,
        then: NodeId,
        otherwise: Option<NodeId>,
    },
    /// `lhs ?? rhs` where `lhs` reads `(scope, slot)`: `rhs` when the slot is unset.
    Coalesce {
        scope: Scope,
        slot: Slot,
        lhs: NodeId,
        rhs: NodeId,
    },
    Assign(Assign),
    /// An assignment the game accepts but does not perform (its value is still computed).
    Discard(NodeId),
    Arrow {
        entity: NodeId,
        remote: Remote,
    },
    /// A statement list. `simple` lists (no `;`) yield their only statement's value;
    /// complex ones yield 0.
    Block {
        stmts: Box<[NodeId]>,
        simple: bool,
    },
    Loop {
        count: NodeId,
        body: NodeId,
    },
    ForEach(ForEach),
    Break,
    Continue,
    Return(NodeId),
}

/// The children of a node in evaluation order, in the one shape every node's children have:
/// up to three single children, then a list. Written once for the shared and the mutable
/// walk (`$as` is `as_ref` or `as_mut`).
macro_rules! child_parts {
    ($node:expr, $as:ident) => {
        match $node {
            Node::Const(_)
            | Node::PlatformConst(_)
            | Node::Str(_)
            | Node::Resource { .. }
            | Node::Array { .. }
            | Node::This
            | Node::Read { .. }
            | Node::Break
            | Node::Continue => ([None, None, None], Default::default()),
            Node::Index { index: e, .. }
            | Node::Post { operand: e, .. }
            | Node::Neg(e)
            | Node::Not(e)
            | Node::Discard(e)
            | Node::Return(e)
            | Node::Assign(Assign { value: e, .. }) => ([Some(e), None, None], Default::default()),
            Node::Query { args, .. }
            | Node::PureQuery { args, .. }
            | Node::Math { args, .. }
            | Node::Block { stmts: args, .. } => ([None, None, None], args.$as()),
            Node::Arith { lhs, rhs, .. }
            | Node::Compare { lhs, rhs, .. }
            | Node::Equal { lhs, rhs, .. }
            | Node::Coalesce { lhs, rhs, .. }
            | Node::And(lhs, rhs)
            | Node::Or(lhs, rhs)
            | Node::Loop {
                count: lhs,
                body: rhs,
            }
            | Node::ForEach(ForEach {
                array: lhs,
                body: rhs,
                ..
            }) => ([Some(lhs), Some(rhs), None], Default::default()),
            Node::Cond {
                cond,
                then,
                otherwise,
            } => (
                [Some(cond), Some(then), otherwise.$as()],
                Default::default(),
            ),
            Node::Arrow { entity, remote } => (
                [Some(entity), None, None],
                match remote {
                    Remote::Query { args, .. } => args.$as(),
                    Remote::Variable(_) => Default::default(),
                },
            ),
        }
    };
}

impl Node {
    /// The node's children (operands, arguments, statements, bodies) in evaluation order: for
    /// analyses that visit every child alike.
    pub fn children(&self) -> impl Iterator<Item = NodeId> + '_ {
        let (single, list): ([Option<&NodeId>; 3], &[NodeId]) = child_parts!(self, as_ref);
        single.into_iter().flatten().chain(list).copied()
    }

    /// The node's children, in the order of [`Node::children`], to be replaced in place.
    pub fn children_mut(&mut self) -> impl Iterator<Item = &mut NodeId> {
        let (single, list): ([Option<&mut NodeId>; 3], &mut [NodeId]) = child_parts!(self, as_mut);
        single.into_iter().flatten().chain(list)
    }

    /// This node with each child replaced by `f` of it, called in evaluation order (a pass
    /// that rebuilds a program child first).
    pub fn map_children(&self, mut f: impl FnMut(NodeId) -> NodeId) -> Node {
        let mut node = self.clone();
        for child in node.children_mut() {
            *child = f(*child);
        }
        node
    }
}

/// Interned names: one table per storage, so each name becomes a dense slot index.
/// Programs checked against the same `Names` (an entity's scripts) share slots.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub temps: Interner,
    pub variables: Interner,
    pub contexts: Interner,
    pub queries: Interner,
    /// Resource, array and remote-variable names.
    pub symbols: Interner,
}

impl Names {
    pub fn table(&self, scope: Scope) -> &Interner {
        match scope {
            Scope::Temp => &self.temps,
            Scope::Variable => &self.variables,
            Scope::Context => &self.contexts,
        }
    }
    pub fn table_mut(&mut self, scope: Scope) -> &mut Interner {
        match scope {
            Scope::Temp => &mut self.temps,
            Scope::Variable => &mut self.variables,
            Scope::Context => &mut self.contexts,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Interner {
    names: Vec<Box<str>>,
    /// Empty while there are at most `SCAN_LEN` names (a scan of a few is cheaper than
    /// hashing one, and one program rarely has more); then every name.
    index: HashMap<Box<str>, u32>,
}

/// Most names an [`Interner`] looks up by scanning.
const SCAN_LEN: usize = 16;

impl Interner {
    pub fn intern(&mut self, name: &str) -> Slot {
        if let Some(slot) = self.get(name) {
            return slot;
        }
        let i = self.names.len() as u32;
        self.names.push(name.into());
        if self.names.len() > SCAN_LEN {
            if self.index.is_empty() {
                self.index = self.iter().map(|(s, n)| (n.into(), s.0)).collect();
            } else {
                self.index.insert(name.into(), i);
            }
        }
        Slot(i)
    }
    pub fn get(&self, name: &str) -> Option<Slot> {
        if self.names.len() <= SCAN_LEN {
            let i = self.names.iter().position(|n| **n == *name)?;
            return Some(Slot(i as u32));
        }
        self.index.get(name).map(|&i| Slot(i))
    }
    pub fn name(&self, slot: Slot) -> &str {
        &self.names[slot.index()]
    }
    pub fn len(&self) -> usize {
        self.names.len()
    }
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (Slot, &str)> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, n)| (Slot(i as u32), &**n))
    }
}

/// A checked program. Only the checker builds one.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) nodes: Vec<Node>,
    pub(crate) spans: Vec<Span>,
    pub(crate) root: NodeId,
    /// The source text, kept for runtime diagnostics.
    pub(crate) source: Box<str>,
}

impl Program {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }
    pub fn span(&self, id: NodeId) -> Span {
        self.spans[id.0 as usize]
    }
    pub fn root(&self) -> NodeId {
        self.root
    }
    pub fn source(&self) -> &str {
        &self.source
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// 64-bit FNV-1 (multiply, then xor), the hash the game keeps for string literals.
pub fn fnv1_64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h = h.wrapping_mul(0x100000001b3);
        h ^= b as u64;
    }
    h
}

#[cfg(test)]
mod tests {
    #[test]
    fn fnv1_matches_the_games_string_hashes() {
        assert_eq!(super::fnv1_64(b"a"), 12638153115695167422);
        assert_eq!(super::fnv1_64(b"ABC"), 15595941425208037995);
        assert_eq!(super::fnv1_64(b"abc"), 15626587013303479755);
    }

    /// Every kind of node lists its children in evaluation order, the remote query's arguments
    /// after the entity included, and nothing else.
    #[test]
    fn children_in_evaluation_order() {
        use super::*;
        let (a, b, c) = (NodeId(1), NodeId(2), NodeId(3));
        let list = || -> Box<[NodeId]> { Box::new([a, b, c]) };
        let (s, scope) = (Slot(0), Scope::Temp);
        let cases: Vec<(Node, Vec<NodeId>)> = vec![
            (Node::Const(1.0), vec![]),
            (Node::PlatformConst([1.0, 2.0]), vec![]),
            (Node::Str(7), vec![]),
            (
                Node::Resource {
                    kind: ResourceKind::Texture,
                    name: s,
                },
                vec![],
            ),
            (Node::Array { name: s }, vec![]),
            (Node::This, vec![]),
            (Node::Read { scope, slot: s }, vec![]),
            (Node::Break, vec![]),
            (Node::Continue, vec![]),
            (Node::Index { array: s, index: a }, vec![a]),
            (
                Node::Post {
                    operand: a,
                    post: [PostOp::IDENTITY; 2],
                },
                vec![a],
            ),
            (Node::Neg(a), vec![a]),
            (Node::Not(a), vec![a]),
            (Node::Discard(a), vec![a]),
            (Node::Return(a), vec![a]),
            (
                Node::Query {
                    query: s,
                    args: list(),
                },
                vec![a, b, c],
            ),
            (
                Node::PureQuery {
                    func: PureQuery::All,
                    args: list(),
                },
                vec![a, b, c],
            ),
            (
                Node::Math {
                    func: MathFn::Clamp,
                    args: list(),
                },
                vec![a, b, c],
            ),
            (
                Node::Arith {
                    op: ArithOp::Sub,
                    lhs: b,
                    rhs: a,
                },
                vec![b, a],
            ),
            (
                Node::Compare {
                    op: CmpOp::Lt,
                    lhs: b,
                    rhs: a,
                },
                vec![b, a],
            ),
            (
                Node::Equal {
                    negate: true,
                    lhs: b,
                    rhs: a,
                },
                vec![b, a],
            ),
            (Node::And(b, a), vec![b, a]),
            (Node::Or(b, a), vec![b, a]),
            (
                Node::Cond {
                    cond: c,
                    then: b,
                    otherwise: Some(a),
                },
                vec![c, b, a],
            ),
            (
                Node::Cond {
                    cond: c,
                    then: b,
                    otherwise: None,
                },
                vec![c, b],
            ),
            (
                Node::Coalesce {
                    scope,
                    slot: s,
                    lhs: b,
                    rhs: a,
                },
                vec![b, a],
            ),
            (
                Node::Assign(Assign {
                    scope,
                    slot: s,
                    value: a,
                    parents: Box::new([s]),
                    copies: Box::new([]),
                }),
                vec![a],
            ),
            (
                Node::Arrow {
                    entity: c,
                    remote: Remote::Variable(s),
                },
                vec![c],
            ),
            (
                Node::Arrow {
                    entity: c,
                    remote: Remote::Query {
                        query: s,
                        args: Box::new([a, b]),
                    },
                },
                vec![c, a, b],
            ),
            (
                Node::Block {
                    stmts: list(),
                    simple: false,
                },
                vec![a, b, c],
            ),
            (Node::Loop { count: b, body: a }, vec![b, a]),
            (
                Node::ForEach(ForEach {
                    scope,
                    slot: s,
                    array: b,
                    body: a,
                }),
                vec![b, a],
            ),
        ];
        for (mut node, want) in cases {
            assert_eq!(node.children().collect::<Vec<_>>(), want, "{node:?}");
            let mutable: Vec<NodeId> = node.children_mut().map(|c| *c).collect();
            assert_eq!(mutable, want, "{node:?} (mutable)");
            // Mapping visits the children in the same order and changes nothing else.
            let mut seen = Vec::new();
            let mapped = node.map_children(|c| {
                seen.push(c);
                NodeId(c.0 + 10)
            });
            assert_eq!(seen, want, "{node:?} (mapped)");
            let shifted: Vec<NodeId> = want.iter().map(|c| NodeId(c.0 + 10)).collect();
            assert_eq!(mapped.children().collect::<Vec<_>>(), shifted, "{node:?}");
            assert_eq!(mapped.map_children(|c| NodeId(c.0 - 10)), node);
            for c in node.children_mut() {
                *c = NodeId(c.0 + 10);
            }
            assert_eq!(node, mapped);
        }
    }

    /// Small tables are scanned and larger ones hashed: every name keeps its first slot
    /// across the switch, and lookups agree before and after it.
    #[test]
    fn interner_slots_survive_the_switch_to_hashing() {
        let mut t = super::Interner::default();
        let names: Vec<String> = (0..3 * super::SCAN_LEN).map(|i| format!("n{i}")).collect();
        for (i, n) in names.iter().enumerate() {
            assert_eq!(t.intern(n).index(), i, "{n}");
            for (j, m) in names[..=i].iter().enumerate() {
                assert_eq!(t.get(m).map(|s| s.index()), Some(j), "{m} after {i} names");
                assert_eq!(t.intern(m).index(), j, "{m} again after {i} names");
            }
            assert_eq!(t.get("absent"), None);
            assert_eq!(t.len(), i + 1);
        }
        assert_eq!(t.name(super::Slot(5)), "n5");
    }
}
