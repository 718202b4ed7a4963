//! `textDocument/documentSymbol`: entities, animations, controllers and their states,
//! render controllers.

use lsp_types::*;

use crate::lsp::handlers::*;
use crate::lsp::state::Workspace;

#[allow(deprecated)]
pub fn symbols(ws: &Workspace, uri: &Uri) -> Option<DocumentSymbolResponse> {
    let at = resolve(ws, uri, None)?;
    let src = ws.text(at.file);
    let pack = &ws.pack;
    let sym = |name: String,
               detail: &str,
               kind,
               r: std::ops::Range<usize>,
               children: Vec<DocumentSymbol>| {
        let range = at.index.range(src, r);
        DocumentSymbol {
            name,
            detail: Some(detail.to_string()),
            kind,
            tags: None,
            deprecated: None,
            range,
            selection_range: range,
            children: (!children.is_empty()).then_some(children),
        }
    };
    let key_range = |id: &str| {
        let key = format!("\"{id}\"");
        src.find(&key).map_or(0..0, |i| i + 1..i + key.len() - 1)
    };
    let field = |name: &String, detail: &str, kind, at: &std::ops::Range<usize>| {
        sym(name.clone(), detail, kind, at.clone(), Vec::new())
    };
    let leaf = |id: &String, detail: &str, kind| field(id, detail, kind, &key_range(id));
    let mut out = Vec::new();
    for e in pack.entities.iter().filter(|e| e.file == at.file) {
        let kids = e
            .animations
            .iter()
            .map(|a| field(&a.short, &a.id, SymbolKind::FIELD, &a.at))
            .collect();
        out.push(sym(
            e.identifier.clone(),
            "entity",
            SymbolKind::CLASS,
            key_range(&e.identifier),
            kids,
        ));
    }
    for a in pack.animations.iter().filter(|a| a.file == at.file) {
        out.push(leaf(&a.id, "animation", SymbolKind::FUNCTION));
    }
    for c in pack.controllers.iter().filter(|c| c.file == at.file) {
        let kids = c
            .states
            .iter()
            .map(|s| field(&s.name, "state", SymbolKind::ENUM_MEMBER, &s.at))
            .collect();
        out.push(sym(
            c.id.clone(),
            "animation controller",
            SymbolKind::CLASS,
            c.at.clone(),
            kids,
        ));
    }
    for r in pack.render_controllers.iter().filter(|r| r.file == at.file) {
        out.push(leaf(&r.id, "render controller", SymbolKind::CLASS));
    }
    Some(DocumentSymbolResponse::Nested(out))
}
