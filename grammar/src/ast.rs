//! The AST: a flat arena of expressions addressed by [`ExprId`], with a parallel vector of
//! spans. Flat storage means dropping or walking a 100,000-node chain never recurses.
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// Non-empty statements in order (empty statements from `;;` are dropped).
    pub statements: Vec<ExprId>,
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

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Number(f32),
    /// String literal contents between the quotes, case kept, exactly as written.
    String(Box<str>),
    /// A dotted name, folded to lower case: `variable.x`, `q.is_baby`, `math.pi`, `array.skins`.
    Path(Box<str>),
    True,
    False,
    This,
    Break,
    Continue,
    /// `name(args)`: a math function or a query with arguments.
    Call {
        callee: Box<str>,
        callee_span: Span,
        args: Vec<ExprId>,
    },
    /// `array.name[index]`.
    Index {
        array: Box<str>,
        array_span: Span,
        index: ExprId,
    },
    /// `loop(args)`; the checker wants exactly a count and a `{}` body.
    Loop {
        args: Vec<ExprId>,
    },
    /// `for_each(args)`; the checker wants a variable, an array and a `{}` body.
    ForEach {
        args: Vec<ExprId>,
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
    /// Each expression with its span, in one vector: one allocation per parse, not two.
    nodes: Vec<(Expr, Span)>,
    /// The top-level statement list; `None` when parsing failed.
    pub root: Option<Block>,
}

impl Ast {
    pub(crate) fn from_parts(nodes: Vec<(Expr, Span)>, root: Option<Block>) -> Ast {
        Ast { nodes, root }
    }
    pub fn expr(&self, id: ExprId) -> &Expr {
        &self.nodes[id.index()].0
    }
    pub fn span(&self, id: ExprId) -> Span {
        self.nodes[id.index()].1
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    /// Looks through any number of `( )` groups that hold a single expression with no `;`.
    pub fn unparen(&self, mut id: ExprId) -> ExprId {
        while let Expr::Group {
            kind: GroupKind::Paren,
            body,
        } = self.expr(id)
        {
            if body.statements.len() == 1 && body.semicolons == 0 {
                id = body.statements[0];
            } else {
                break;
            }
        }
        id
    }
}
