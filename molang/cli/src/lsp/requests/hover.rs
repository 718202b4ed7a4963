//! `textDocument/hover`: a query's or math function's documentation, a variable's writes
//! and reads across its entities' files, and a constant subexpression's value.

use grammar::lexer::TokenKind;
use grammar::{Expr, ExprId};
use lsp_types::*;

use crate::lsp::handlers::*;
use crate::lsp::state::{split, Namespace, Workspace};
use crate::lsp::text::LineIndex;
use molang::builtins::math::MathFn;
use molang::pack::SiteId;
use molang::query_table;

pub fn hover(ws: &Workspace, p: &HoverParams) -> Option<Hover> {
    let (at, site, off) = site_under(ws, &p.text_document_position_params)?;
    let text = &ws.pack.sites[site].text;
    let (tok, kind) = ws.token_at(site, off)?;
    let range = Some(
        at.index
            .range(ws.text(at.file), ws.file_range(site, tok.clone())),
    );
    if kind == TokenKind::Path {
        let word = &text[tok.clone()];
        let (ns, at_name) = split(word);
        let name = word[at_name..].to_ascii_lowercase();
        let value = match ns {
            Namespace::Query => match query_table::lookup(&name) {
                Some(q) => query_doc(q),
                None => format!("**query.{name}**: not a query the game knows"),
            },
            Namespace::Math => match MathFn::from_name(&name) {
                Some(f) => math_doc(f),
                None => format!("**math.{name}**: not a math function"),
            },
            Namespace::Variable => variable_hover(ws, site, &name),
            Namespace::Temp => {
                let occ = ws.occurrences(&[site], Namespace::Temp, &name);
                let writes = occ.iter().filter(|o| o.write).count();
                format!(
                    "**temp.{name}**: {writes} write{}, {} read{} in this expression (temps live for one expression)",
                    if writes == 1 { "" } else { "s" },
                    occ.len() - writes,
                    if occ.len() - writes == 1 { "" } else { "s" }
                )
            }
            _ => return constant_hover(text, off, range, ws.pack.sites[site].file, ws, site),
        };
        return Some(Hover {
            contents: markdown(value),
            range,
        });
    }
    constant_hover(text, off, range, ws.pack.sites[site].file, ws, site)
}

fn variable_hover(ws: &Workspace, site: SiteId, name: &str) -> String {
    let scope = ws.variable_scope(site);
    let occ = ws.occurrences(&scope, Namespace::Variable, name);
    let mut s = format!("**variable.{name}**");
    if query_table::is_engine_variable(&format!("variable.{name}"))
        || query_table::is_engine_variable(name)
    {
        s.push_str(" (the engine provides it)");
    }
    let owners = ws.owners(site);
    if !owners.is_empty() {
        let ids: Vec<&str> = owners
            .iter()
            .map(|&e| ws.pack.entities[e].identifier.as_str())
            .collect();
        s.push_str(&format!("\n\nEntities: {}", ids.join(", ")));
    }
    for (label, write) in [("Written", true), ("Read", false)] {
        let mut places: Vec<String> = occ
            .iter()
            .filter(|o| o.write == write)
            .map(|o| ws.describe_at(o.site, o.token.start))
            .collect();
        places.dedup();
        if places.is_empty() {
            s.push_str(&format!("\n\n{label}: nowhere"));
        } else {
            s.push_str(&format!("\n\n{label} in:"));
            for p in places.iter().take(20) {
                s.push_str(&format!("\n- {p}"));
            }
            if places.len() > 20 {
                s.push_str(&format!("\n- and {} more", places.len() - 20));
            }
        }
    }
    s
}

/// Whether expression `id` is made of literals, operators and non-random math only.
fn is_constant(ast: &grammar::Ast, id: ExprId) -> bool {
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        match ast.expr(id) {
            Expr::Number(_) => {}
            Expr::Path(p) if ast.name(*p) == "math.pi" => {}
            Expr::Unary { operand, .. } => stack.push(*operand),
            Expr::Binary { lhs, rhs, .. } => stack.extend([*lhs, *rhs]),
            Expr::Conditional {
                cond,
                then,
                otherwise,
            } => {
                stack.extend([*cond, *then]);
                stack.extend(*otherwise);
            }
            Expr::Group { kind, body } => {
                if *kind != grammar::GroupKind::Paren || body.semicolons > 0 {
                    return false;
                }
                stack.extend(ast.list(body.statements));
            }
            Expr::Call { callee, args, .. } => {
                let name = ast.name(*callee).strip_prefix("math.");
                match name.and_then(MathFn::from_name) {
                    Some(f) if !f.is_random() && f.arity() == args.len() => {
                        stack.extend(ast.list(*args))
                    }
                    _ => return false,
                }
            }
            _ => return false,
        }
    }
    true
}

/// The value of the largest constant subexpression under the cursor, as the game computes
/// it (f32, through the interpreter).
fn constant_hover(
    text: &str,
    off: usize,
    range: Option<Range>,
    file: usize,
    ws: &Workspace,
    site: SiteId,
) -> Option<Hover> {
    let version = molang::format::site_version(&ws.pack, site);
    let parsed = grammar::parse(text, grammar::ParseOptions { version });
    let mut best: Option<(usize, usize)> = None;
    for i in 0..parsed.ast.len() {
        let id = ExprId(i as u32);
        let sp = parsed.ast.span(id);
        let (a, b) = (sp.start as usize, sp.end as usize);
        if a <= off
            && off <= b
            && is_constant(&parsed.ast, id)
            && best.is_none_or(|(x, y)| b - a > y - x)
        {
            best = Some((a, b));
        }
    }
    let (a, b) = best?;
    let sub = &text[a..b];
    let options = molang::CheckOptions {
        version,
        ..Default::default()
    };
    let expr = molang::compile(sub, &options).ok()?;
    let v = expr.eval_with(&[]).value.as_num();
    let index = LineIndex::new(ws.text(file));
    let range = Some(index.range(ws.text(file), ws.file_range(site, a..b))).or(range);
    Some(Hover {
        contents: markdown(format!(
            "`{sub}` = **{}** (f32, as the game computes it)",
            molang::interp::value::format_f32(v)
        )),
        range,
    })
}
