//! The AST: a flat arena of expressions addressed by [`ExprId`], each with its span. Flat
//! storage means dropping or walking a 100,000-node chain never recurses. Names, string
//! texts and the lists of statements and arguments live in two more arenas of the [`Ast`]
//! ([`Name`], [`List`]): a parse allocates a handful of vectors, not one per name or list.
//!
//! The tree keeps what the game's loader looks at: parentheses, braces and brackets stay as
//! [`Expr::Group`] nodes (`(v.x) = 1;` does not load while `v.x = 1;` does), statement lists
//! remember their semicolons, and `loop`/`for_each` keep their raw argument lists so the
//! checker can say exactly what is wrong with them.

use crate::span::Span;

/// Index of an expression in [`Ast`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

impl ExprId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A name or string text of an [`Ast`], read with [`Ast::name`]. Equality compares where
/// the text sits, not the text: compare what [`Ast::name`] returns (as
/// [`crate::print::same_tree`] does).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Name {
    start: u32,
    end: u32,
}

impl Name {
    /// The text at `span` of the tree's text.
    pub(crate) fn at(span: Span) -> Name {
        Name {
            start: span.start,
            end: span.end,
        }
    }
}

/// A list of expressions of an [`Ast`] (statements or arguments), read with [`Ast::list`].
/// Like [`Name`], it is a place in its tree: equality compares places.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct List {
    start: u32,
    len: u32,
}

impl List {
    pub fn len(self) -> usize {
        self.len as usize
    }
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            And => "&&",
            Or => "||",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupKind {
    /// `( ... )`
    Paren,
    /// `{ ... }`
    Brace,
    /// `[ ... ]` used as a group, e.g. `[1]`.
    Bracket,
}

/// A `;`-separated statement list: the whole program, or the inside of a group.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Block {
    /// Non-empty statements in order (empty statements from `;;` are dropped).
    pub statements: List,
    /// Number of `;` tokens directly in this list.
    pub semicolons: u32,
    /// The list ends with `;`.
    pub trailing_semicolon: bool,
    /// The list starts with `;` (the game refuses `;1`).
    pub leading_semicolon: bool,
    pub span: Span,
}

impl Block {
    /// A list with at least one `;` is a "complex" expression: value 0 unless `return` runs.
    pub fn is_complex(&self) -> bool {
        self.semicolons > 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expr {
    Number(f32),
    /// String literal contents between the quotes, case kept, exactly as written.
    String(Name),
    /// A dotted name, folded to lower case: `variable.x`, `q.is_baby`, `math.pi`, `array.skins`.
    Path(Name),
    True,
    False,
    This,
    Break,
    Continue,
    /// `name(args)`: a math function or a query with arguments.
    Call {
        /// Folded to lower case.
        callee: Name,
        callee_span: Span,
        args: List,
    },
    /// `array.name[index]`.
    Index {
        /// Folded to lower case.
        array: Name,
        array_span: Span,
        index: ExprId,
    },
    /// `loop(args)`; the checker wants exactly a count and a `{}` body.
    Loop {
        args: List,
    },
    /// `for_each(args)`; the checker wants a variable, an array and a `{}` body.
    ForEach {
        args: List,
    },
    Unary {
        op: UnaryOp,
        operand: ExprId,
    },
    Binary {
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `cond ? then : otherwise`, or the binary `cond ? then` (value 0 when false).
    Conditional {
        cond: ExprId,
        then: ExprId,
        otherwise: Option<ExprId>,
    },
    /// `lhs ?? rhs`.
    Coalesce {
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `target = value`; the parser accepts any target, the checker judges it.
    Assign {
        target: ExprId,
        value: ExprId,
    },
    /// `lhs->rhs`: `rhs` evaluated on the entity `lhs` refers to.
    Arrow {
        lhs: ExprId,
        rhs: ExprId,
    },
    Group {
        kind: GroupKind,
        body: Block,
    },
    /// `return value;` (statement position only). `None` for a bare `return`.
    Return {
        value: Option<ExprId>,
    },
}

/// A parsed program.
#[derive(Clone, Debug, Default)]
pub struct Ast {
    arenas: Arenas,
    /// The top-level statement list; `None` when parsing failed.
    pub root: Option<Block>,
}

/// The storage of an [`Ast`], which the parser fills.
#[derive(Clone, Debug, Default)]
pub(crate) struct Arenas {
    /// Each expression with its span, in one vector: one allocation per parse, not two.
    pub nodes: Vec<(Expr, Span)>,
    /// The source text folded to lower case except inside string literals; a [`Name`] is a
    /// range of it.
    pub text: String,
    /// The items of every [`List`], one list after another.
    pub lists: Vec<ExprId>,
}

impl Arenas {
    /// Stores `items` as one list.
    pub fn list(&mut self, items: impl IntoIterator<Item = ExprId>) -> List {
        let start = self.lists.len();
        self.lists.extend(items);
        List {
            start: start as u32,
            len: (self.lists.len() - start) as u32,
        }
    }
}

impl Ast {
    pub(crate) fn from_parts(arenas: Arenas, root: Option<Block>) -> Ast {
        Ast { arenas, root }
    }
    /// The text of a name of this tree.
    pub fn name(&self, name: Name) -> &str {
        &self.arenas.text[name.start as usize..name.end as usize]
    }
    /// The expressions of a list of this tree.
    pub fn list(&self, list: List) -> &[ExprId] {
        &self.arenas.lists[list.start as usize..(list.start + list.len) as usize]
    }
    pub fn expr(&self, id: ExprId) -> &Expr {
        &self.arenas.nodes[id.index()].0
    }
    pub fn span(&self, id: ExprId) -> Span {
        self.arenas.nodes[id.index()].1
    }
    pub fn len(&self) -> usize {
        self.arenas.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.arenas.nodes.is_empty()
    }
    /// Looks through any number of `( )` groups that hold a single expression with no `;`.
    pub fn unparen(&self, mut id: ExprId) -> ExprId {
        while let Expr::Group {
            kind: GroupKind::Paren,
            body,
        } = self.expr(id)
        {
            if body.statements.len() == 1 && body.semicolons == 0 {
                id = self.list(body.statements)[0];
            } else {
                break;
            }
        }
        id
    }
}
