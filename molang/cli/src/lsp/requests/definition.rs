//! `textDocument/definition`: a variable's or temp's assignments, an animation or
//! controller id's definition, a geometry id's model.

use lsp_types::*;

use crate::lsp::handlers::*;
use crate::lsp::state::Workspace;

pub fn definition(ws: &Workspace, p: &GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let tdp = &p.text_document_position_params;
    if let Some((site, ns, name)) = name_at(ws, &tdp.text_document.uri, tdp.position) {
        let occ = ws.occurrences(&scope_of(ws, site, ns), ns, &name);
        let locs: Vec<Location> = occ
            .iter()
            .filter(|o| o.write)
            .map(|o| {
                location(
                    ws,
                    ws.pack.sites[o.site].file,
                    ws.file_range(o.site, o.token.clone()),
                )
            })
            .collect();
        return Some(GotoDefinitionResponse::Array(locs));
    }
    animation_definition(ws, &tdp.text_document.uri, tdp.position)
}

/// An entity's `animations` / `animate` short name or full identifier under the cursor →
/// the definition of the animation or controller.
fn animation_definition(
    ws: &Workspace,
    uri: &Uri,
    pos: Position,
) -> Option<GotoDefinitionResponse> {
    let at = resolve(ws, uri, Some(pos))?;
    let src = ws.text(at.file);
    // The JSON string under the cursor.
    let start = src[..at.offset].rfind('"')? + 1;
    let end = at.offset + src[at.offset..].find('"')?;
    let word = &src[start..end];
    let mut ids = Vec::new();
    for e in ws.pack.entities.iter().filter(|e| e.file == at.file) {
        if let Some(id) = e.animation_id(word) {
            ids.push((id.to_string(), ws.pack.entity_side(e)));
        }
        if e.animations.iter().any(|a| a.id == word) {
            ids.push((word.to_string(), ws.pack.entity_side(e)));
        }
    }
    let mut locs = Vec::new();
    // A geometry id (`description.geometry` values) → where its model file defines it: the
    // `identifier` value, or the legacy `"geometry.x"` / `"geometry.x:parent"` key.
    let geometry_used = ws
        .pack
        .entities
        .iter()
        .any(|e| e.file == at.file && e.geometries.iter().any(|g| g.value == word));
    if geometry_used {
        for g in ws.pack.geometries_named(word) {
            let fsrc = &ws.pack.files[g.file].source;
            let found = [format!("\"{word}\""), format!("\"{word}:")]
                .iter()
                .find_map(|k| fsrc.find(k.as_str()));
            if let Some(i) = found {
                locs.push(location(ws, g.file, i + 1..i + 1 + word.len()));
            }
        }
    }
    for (id, side) in ids {
        let files = ws
            .pack
            .animations_for(side, &id)
            .map(|a| a.file)
            .chain(ws.pack.controllers_for(side, &id).map(|c| c.file));
        for f in files {
            let fsrc = &ws.pack.files[f].source;
            let key = format!("\"{id}\"");
            if let Some(i) = fsrc.find(&key) {
                locs.push(location(ws, f, i + 1..i + key.len() - 1));
            }
        }
    }
    (!locs.is_empty()).then_some(GotoDefinitionResponse::Array(locs))
}
