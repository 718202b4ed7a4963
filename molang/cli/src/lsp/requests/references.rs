//! `textDocument/references`: every occurrence of a variable or temp in its scope.

use lsp_types::*;

use crate::lsp::handlers::*;
use crate::lsp::state::Workspace;

pub fn references(ws: &Workspace, p: &ReferenceParams) -> Option<Vec<Location>> {
    let tdp = &p.text_document_position;
    let (site, ns, name) = name_at(ws, &tdp.text_document.uri, tdp.position)?;
    let occ = ws.occurrences(&scope_of(ws, site, ns), ns, &name);
    Some(
        occ.iter()
            .filter(|o| p.context.include_declaration || !o.write)
            .map(|o| {
                location(
                    ws,
                    ws.pack.sites[o.site].file,
                    ws.file_range(o.site, o.token.clone()),
                )
            })
            .collect(),
    )
}
