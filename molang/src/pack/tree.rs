//! A plain JSON tree for the runtime loader: animations, controllers and geometry need the
//! numbers and the key order, which the site walkers do not keep. Parsed with the same
//! lenient rules as the rest of the loader (comments and trailing commas, as the game reads).

use super::json;
use jsonc_parser::ast::Value;

/// One JSON value; objects keep their keys in document order (duplicates included).
#[derive(Clone, Debug, PartialEq)]
pub enum Tree {
    Null,
    Bool(bool),
    /// The number as f64 (f32 conversion is the caller's business).
    Num(f64),
    Str(String),
    Arr(Vec<Tree>),
    Obj(Vec<(String, Tree)>),
}

impl Tree {
    /// The last value of `key` (the game keeps the last of duplicate keys).
    pub fn get(&self, key: &str) -> Option<&Tree> {
        match self {
            Tree::Obj(props) => props.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Tree::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_num(&self) -> Option<f64> {
        match self {
            Tree::Num(n) => Some(*n),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Tree::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn props(&self) -> &[(String, Tree)] {
        match self {
            Tree::Obj(p) => p,
            _ => &[],
        }
    }
    pub fn elems(&self) -> &[Tree] {
        match self {
            Tree::Arr(a) => a,
            _ => &[],
        }
    }
}

/// A JSON syntax error at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses JSON with comments and trailing commas into a [`Tree`] (a leading BOM is skipped).
pub fn parse_tree(text: &str) -> Result<Tree, TreeError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match json::parse(text) {
        Ok(Some(v)) => Ok(convert(&v)),
        Ok(None) => Ok(Tree::Null),
        Err(e) => Err(TreeError {
            line: e.line,
            column: e.column,
            message: e.message,
        }),
    }
}

pub(super) fn convert(v: &Value<'_>) -> Tree {
    match v {
        Value::StringLit(s) => Tree::Str(s.value.to_string()),
        // The parser only accepts JSON number syntax, which f64 always reads.
        Value::NumberLit(n) => Tree::Num(n.value.parse().unwrap_or(0.0)),
        Value::BooleanLit(b) => Tree::Bool(b.value),
        Value::NullKeyword(_) => Tree::Null,
        Value::Array(a) => Tree::Arr(a.elements.iter().map(convert).collect()),
        Value::Object(_) => Tree::Obj(
            json::props(v)
                .map(|(k, v)| (k.to_string(), convert(v)))
                .collect(),
        ),
    }
}

/// Appends one reference token to a JSON pointer (RFC 6901 escaping), the form
/// [`super::Site::pointer`] uses, so a runtime walker can find the site of a string.
pub fn pointer(base: &str, token: &str) -> String {
    json::ptr(base, token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_order_numbers_and_comments() {
        let t = parse_tree("{ // c\n \"b\": [1, \"x\", true], \"a\": {\"0.5\": 2.5,}, }").unwrap();
        assert_eq!(t.props()[0].0, "b");
        assert_eq!(t.get("b").unwrap().elems()[1].as_str(), Some("x"));
        assert_eq!(t.get("a").unwrap().get("0.5").unwrap().as_num(), Some(2.5));
    }

    #[test]
    fn reports_line_and_column() {
        let e = parse_tree("{\n  \"a\": [1 2]\n}").unwrap_err();
        assert_eq!(e.line, 2);
    }
}
