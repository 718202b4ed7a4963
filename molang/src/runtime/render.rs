//! Render controllers, evaluated per frame after the animations: which geometry, texture
//! layers and materials the entity is drawn with, which bones are visible, and its colours.
//!
//! A resource field (`geometry`, a `textures` entry, a `materials` value) is read as a
//! selector: `Kind.name` (looked up in the entity's `description.geometry` / `textures` /
//! `materials`), `Array.name[index]`, or `cond ? a : b` of those (any depth, parentheses
//! allowed). The numeric parts (`cond`, `index`) are ordinary Molang compiled with the
//! entity's scripts, so they run on both back ends. Anything else is reported once at load
//! and selects nothing. This covers every resource field of the vanilla pack.
//!
//! Rules (spec §3.10, §7.5; where Mojang is silent, marked "choice"):
//! - Array index: `max(0, i)` truncated toward zero, then modulo the array length (negative
//!   clamps to the first element, past the end wraps). Arrays naming other arrays are
//!   flattened in order. An empty array selects nothing.
//! - `part_visibility`: every bone starts visible; entries apply in order, a bone-name
//!   pattern (`*` matches any run of characters, case-sensitive) sets the bones it matches
//!   to `expr != 0`, so later entries override earlier.
//! - Several active render controllers: a bone is drawn when any of them shows it (each
//!   controller is its own draw of the model; choice). The trace's geometry is the first
//!   active controller's; its texture list is every active controller's layers in order.
//! - A controller's condition (`{"controller.render.x": "cond"}` in the entity) of exactly 0
//!   skips it that frame.
//! - Colours: `color`, `overlay_color`, `is_hurt_color`, `on_fire_color` are `{r, g, b, a}`;
//!   `this` is the channel's default (`color` 1, the others 0; choice, Mojang documents
//!   `this` only as "the current value"). Missing channels keep that default.
//! - `uv_anim`: `offset` and `scale` pairs, evaluated per frame (defaults 0 and 1).
//! - `rebuild_animation_matrices` is carried as a flag; the runtime poses every frame anyway.
//! - The chosen geometry is reported, not swapped in: the pose and `--world` stay on the
//!   entity's `geometry.default` (bones of another geometry are not loaded).

use super::model::{Model, Num};

/// A resource choice.
#[derive(Clone, Debug, PartialEq)]
pub enum Sel {
    /// A resolved resource (geometry identifier, texture path, material name).
    Const(String),
    /// `Array.name[index]`: index into [`RenderDef::arrays`].
    Index { array: usize, index: Num },
    Cond {
        cond: Num,
        then: Box<Sel>,
        otherwise: Box<Sel>,
    },
    /// A selector the runtime does not understand (reported at load).
    Nothing,
}

/// One flattened `arrays.*` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderArray {
    /// Lower case, e.g. `array.skins`.
    pub name: String,
    pub items: Vec<String>,
}

/// One render controller as the entity uses it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RenderDef {
    pub id: String,
    pub condition: Option<Num>,
    pub arrays: Vec<RenderArray>,
    pub geometry: Option<Sel>,
    pub textures: Vec<Sel>,
    /// Bone pattern and material.
    pub materials: Vec<(String, Sel)>,
    /// Bone pattern and visibility expression.
    pub part_visibility: Vec<(String, Num)>,
    /// `color`, `overlay_color`, `is_hurt_color`, `on_fire_color`: r, g, b, a.
    pub colors: [[Option<Num>; 4]; 4],
    /// `uv_anim`: offset x, y, scale x, y.
    pub uv_anim: Option<[Option<Num>; 4]>,
    pub rebuild_animation_matrices: bool,
}

/// The render controllers' output for one frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderFrame {
    pub geometry: Option<String>,
    /// Texture layers of every active controller, in order.
    pub textures: Vec<String>,
    /// Per bone of the model: drawn this frame.
    pub visible: Vec<bool>,
    /// (bone pattern, material) of the active controllers, in order.
    pub materials: Vec<(String, String)>,
    /// `color`, `overlay_color`, `is_hurt_color`, `on_fire_color` as RGBA.
    pub colors: [[f32; 4]; 4],
    pub uv_anim: [f32; 4],
}

/// Defaults of the colour fields (`this` before the expression).
pub const COLOR_DEFAULTS: [f32; 4] = [1.0, 0.0, 0.0, 0.0];

/// `*`-glob match, case-sensitive.
pub fn glob(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut pi, mut ni) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ni < n.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if pi < p.len() && p[pi] == n[ni] {
            pi += 1;
            ni += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// The element `i` selects of an array of `len` (spec §3.10).
pub fn array_index(i: f32, len: usize) -> Option<usize> {
    if len == 0 {
        return None;
    }
    let i = if i.is_nan() { 0.0 } else { i.max(0.0) };
    Some((i as u64 % len as u64) as usize)
}

/// A selector's text split into its parts, before compiling.
#[derive(Clone, Debug, PartialEq)]
pub enum SelText<'a> {
    Resource(&'a str),
    Index(&'a str, &'a str),
    Cond(&'a str, &'a str, &'a str),
    Other,
}

/// Splits `text` at the top level: `c ? a : b`, `Array.x[i]`, `Kind.name`.
pub fn split(text: &str) -> SelText<'_> {
    let mut t = text.trim();
    // Strip parentheses around the whole text.
    while t.starts_with('(') && t.ends_with(')') && closing(t, 0) == Some(t.len() - 1) {
        t = t[1..t.len() - 1].trim();
    }
    let b = t.as_bytes();
    let mut depth = 0i32;
    let mut q = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'?' if b.get(i + 1) == Some(&b'?') => i += 1,
            b'?' if depth == 0 && q.is_none() => q = Some(i),
            _ => {}
        }
        i += 1;
    }
    if let Some(q) = q {
        // The `:` matching the first `?`, counting nested conditionals.
        let (mut depth, mut nest) = (0i32, 0i32);
        let mut j = q + 1;
        while j < b.len() {
            match b[j] {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b'?' if b.get(j + 1) == Some(&b'?') => j += 1,
                b'?' if depth == 0 => nest += 1,
                b':' if depth == 0 && nest == 0 => {
                    return SelText::Cond(&t[..q], &t[q + 1..j], &t[j + 1..]);
                }
                b':' if depth == 0 => nest -= 1,
                _ => {}
            }
            j += 1;
        }
        return SelText::Other;
    }
    let ident = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
    };
    if let Some(open) = t.find('[') {
        if t.ends_with(']') && closing(t, open) == Some(t.len() - 1) && ident(&t[..open]) {
            let head = &t[..open];
            if head.to_ascii_lowercase().starts_with("array.") {
                return SelText::Index(head, &t[open + 1..t.len() - 1]);
            }
        }
        return SelText::Other;
    }
    let lower = t.to_ascii_lowercase();
    if ident(t)
        && ["geometry.", "texture.", "material.", "array."]
            .iter()
            .any(|p| lower.starts_with(p))
    {
        return SelText::Resource(t);
    }
    SelText::Other
}

/// Index of the bracket closing the one at `open`.
fn closing(t: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in t.bytes().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn choose(def: &RenderDef, sel: &Sel, eval: &mut dyn FnMut(Num, f32) -> f32) -> Option<String> {
    match sel {
        Sel::Const(s) => Some(s.clone()),
        Sel::Index { array, index } => {
            let a = &def.arrays[*array];
            let i = eval(*index, 0.0);
            array_index(i, a.items.len()).map(|k| a.items[k].clone())
        }
        Sel::Cond {
            cond,
            then,
            otherwise,
        } => {
            if eval(*cond, 0.0) != 0.0 {
                choose(def, then, eval)
            } else {
                choose(def, otherwise, eval)
            }
        }
        Sel::Nothing => None,
    }
}

/// Evaluates the model's render controllers into `out`.
pub fn evaluate(model: &Model, out: &mut RenderFrame, eval: &mut dyn FnMut(Num, f32) -> f32) {
    let bones = model.bones.len();
    out.geometry = None;
    out.textures.clear();
    out.materials.clear();
    out.visible.clear();
    out.visible.resize(bones, false);
    out.colors = [COLOR_DEFAULTS; 4].map(|_| [0.0; 4]);
    for (c, d) in out.colors.iter_mut().zip(COLOR_DEFAULTS) {
        *c = [d; 4];
    }
    out.uv_anim = [0.0, 0.0, 1.0, 1.0];
    let mut any = false;
    let mut shown = vec![true; bones];
    for def in &model.render {
        if let Some(c) = def.condition {
            if eval(c, 0.0) == 0.0 {
                continue;
            }
        }
        any = true;
        if out.geometry.is_none() {
            out.geometry = def.geometry.as_ref().and_then(|g| choose(def, g, eval));
        }
        for t in &def.textures {
            if let Some(t) = choose(def, t, eval) {
                out.textures.push(t);
            }
        }
        for (pattern, m) in &def.materials {
            if let Some(m) = choose(def, m, eval) {
                out.materials.push((pattern.clone(), m));
            }
        }
        shown.fill(true);
        for (pattern, expr) in &def.part_visibility {
            let on = eval(*expr, 0.0) != 0.0;
            for (b, bone) in model.bones.iter().enumerate() {
                if glob(pattern, &bone.name) {
                    shown[b] = on;
                }
            }
        }
        for (v, s) in out.visible.iter_mut().zip(&shown) {
            *v |= *s;
        }
        for (k, channels) in def.colors.iter().enumerate() {
            for (c, n) in channels.iter().enumerate() {
                if let Some(n) = n {
                    out.colors[k][c] = eval(*n, out.colors[k][c]);
                }
            }
        }
        if let Some(uv) = &def.uv_anim {
            for (c, n) in uv.iter().enumerate() {
                if let Some(n) = n {
                    out.uv_anim[c] = eval(*n, out.uv_anim[c]);
                }
            }
        }
    }
    if !any {
        // No controller is on: the game draws nothing of it; report every bone hidden.
        out.visible.fill(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("*", "leg0"));
        assert!(glob("Bit*", "Bit1"));
        assert!(!glob("Bit*", "bit1"));
        assert!(glob("*Ear*", "MuleEarL"));
        assert!(!glob("*ear*", "MuleEarL"));
        assert!(!glob("Saddle", "Saddle2"));
        assert!(glob("a*b*c", "aXXbYc"));
    }

    #[test]
    fn index_rule() {
        // spec §3.10 table with a 3-element array
        for (i, want) in [
            (0.0, 0),
            (1.9, 1),
            (2.999, 2),
            (3.0, 0),
            (4.7, 1),
            (-2.0, 0),
        ] {
            assert_eq!(array_index(i, 3), Some(want), "{i}");
        }
        assert_eq!(array_index(5.0, 0), None);
    }

    #[test]
    fn split_selectors() {
        assert_eq!(
            split("Geometry.default"),
            SelText::Resource("Geometry.default")
        );
        assert_eq!(
            split("Array.geos[query.is_sheared]"),
            SelText::Index("Array.geos", "query.is_sheared")
        );
        assert_eq!(
            split("query.is_baby ? Geometry.baby : Array.geos[v.a ? 1 : 0]"),
            SelText::Cond(
                "query.is_baby ",
                " Geometry.baby ",
                " Array.geos[v.a ? 1 : 0]"
            )
        );
        assert_eq!(
            split("(v.a ?? 0) ? Texture.a : Texture.b"),
            SelText::Cond("(v.a ?? 0) ", " Texture.a ", " Texture.b")
        );
        assert_eq!(split("math.sin(1)"), SelText::Other);
    }
}
