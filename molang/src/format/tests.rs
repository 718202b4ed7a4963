use super::*;

fn pretty(s: &str) -> String {
    format_expr(s, grammar::LATEST_VERSION, Style::Pretty).unwrap()
}
fn minify(s: &str) -> String {
    format_expr(s, grammar::LATEST_VERSION, Style::Minify).unwrap()
}

#[test]
fn pretty_spacing() {
    assert_eq!(pretty("v.x=1;return v.x*-2;"), "v.x = 1; return v.x * -2;");
    assert_eq!(
        pretty("Math.Cos(Q.Anim_Time*38.17)"),
        "Math.Cos(Q.Anim_Time * 38.17)"
    );
    assert_eq!(
        pretty("math.clamp( q.x ,0,  1.50 )"),
        "math.clamp(q.x, 0, 1.50)"
    );
    assert_eq!(pretty("q.a?-1:!q.b"), "q.a ? -1 : !q.b");
    assert_eq!(pretty("v.a->v.b??0"), "v.a->v.b ?? 0");
    assert_eq!(
        pretty("loop(3,{v.i=v.i+1;});"),
        "loop(3, { v.i = v.i + 1; });"
    );
    assert_eq!(pretty("array.skins[q.variant]"), "array.skins[q.variant]");
    assert_eq!(pretty("(1-(2))*3"), "(1 - (2)) * 3");
    assert_eq!(pretty("'Hello  World'=='a'"), "'Hello  World' == 'a'");
}

#[test]
fn pretty_keeps_line_breaks_between_top_level_statements_only() {
    assert_eq!(pretty("v.a = 1;\n  v.b=2;"), "v.a = 1;\nv.b = 2;");
    assert_eq!(pretty("v.a = 1;    v.b=2;"), "v.a = 1; v.b = 2;");
    assert_eq!(pretty("{v.a = 1;\nv.b=2;};"), "{ v.a = 1; v.b = 2; };");
}

#[test]
fn minify_joins_only_where_tokens_stay_apart() {
    assert_eq!(minify("v.x = 1; return v.x * -2;"), "v.x=1;return v.x*-2;");
    assert_eq!(minify("1 - -1"), "1--1");
    assert_eq!(minify("q.a ? q.b : q.c"), "q.a?q.b:q.c");
    assert_eq!(minify("return (1);"), "return(1);");
}

#[test]
fn broken_text_is_left_alone() {
    assert_eq!(
        format_expr("1 + (2 3)", 13, Style::Pretty),
        Err(Skip::Syntax)
    );
    assert_eq!(format_expr("1 % 2", 13, Style::Pretty), Err(Skip::Syntax));
}

#[test]
fn merges_catches_every_two_character_operator() {
    for op in ["->", "??", "==", "!=", "<=", ">=", "&&", "||"] {
        let (a, b) = op.split_at(1);
        assert!(merges(a, b), "{op}");
    }
    assert!(merges("return", "v.x"));
    assert!(!merges("return", "("));
    assert!(!merges("-", "-"));
}

#[test]
fn json_escape_round_trips_through_serde() {
    for s in ["a\"b", "back\\slash", "line\nbreak", "tab\t", "\u{1}", "ż"] {
        let lit = format!("\"{}\"", json_escape(s));
        let back: String = serde_json::from_str(&lit).unwrap();
        assert_eq!(back, s);
    }
}

#[test]
fn file_edits_touch_only_string_contents() {
    let src = r#"{
  "format_version": "1.10.0",
  "animation_controllers": {
    "controller.animation.x": {
      "states": {
        "default": {
          "transitions": [ { "b": "q.is_baby&&!q.is_sheared" } ],
          "on_entry": ["v.a=1;", "v.b='say \"hi\"' ;"]
        },
        "b": {}
      }
    }
  }
}"#;
    let pack = crate::pack::load_sources(vec![("a.animation_controllers.json".into(), src.into())]);
    let f = format_file(&pack, 0, Style::Pretty);
    assert!(f.skipped.is_empty(), "{:?}", f.skipped);
    let out = f.apply(&pack.files[0].source);
    assert_eq!(
        out,
        src.replace("q.is_baby&&!q.is_sheared", "q.is_baby && !q.is_sheared")
            .replace("\"v.a=1;\"", "\"v.a = 1;\"")
            .replace("\"v.b='say \\\"hi\\\"' ;\"", "\"v.b = 'say \\\"hi\\\"';\"")
    );
}
