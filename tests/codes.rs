//! Every diagnostic code has a test that triggers it with a minimal expression and checks
//! the code and the exact byte span.
//!
//! Table rows write the expected span inside the source with `«` and `»` (characters that
//! cannot occur in Molang outside a string), so the byte range is checked, not just the
//! text: `"1 + (2 «3»)"` expects a diagnostic on the `3`, `"1 +«»"` an empty span at the end.
//! Codes only a pack can produce (broken JSON, unreadable file, a variable an entity never
//! sets) are in [`PACK_ONLY`] and are exercised through the pack loader and linter; codes
//! only loading an entity to play it gives are in [`RUN_ONLY`].
// Test tables are tuples on purpose: each row reads as one case.
#![allow(clippy::type_complexity)]

use std::collections::BTreeSet;
use std::path::PathBuf;

use molang::ir::Names;
use molang::{CheckOptions, Code, Diagnostic, Severity};

/// Splits a marked source into the source and the expected span.
fn unmark(marked: &str) -> (String, std::ops::Range<usize>) {
    let start = marked
        .find('«')
        .unwrap_or_else(|| panic!("no « in {marked:?}"));
    let src = marked.replacen('«', "", 1);
    let end = src
        .find('»')
        .unwrap_or_else(|| panic!("no » in {marked:?}"));
    (src.replacen('»', "", 1), start..end)
}

/// Checks `src` and returns the diagnostics.
fn diagnose(src: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    molang::check(src, options, &mut Names::default()).diagnostics
}

/// Asserts that checking the marked source reports `code` on exactly the marked span.
fn check_with(marked: &str, code: Code, options: &CheckOptions) {
    let (src, want) = unmark(marked);
    let diagnostics = diagnose(&src, options);
    let found: Vec<_> = diagnostics.iter().filter(|d| d.code == code).collect();
    let shown = || {
        diagnostics
            .iter()
            .map(|d| {
                format!(
                    "  {} {:?} {:?}: {}",
                    d.code.as_str(),
                    d.span.range(),
                    src.get(d.span.range()),
                    d.message
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        !found.is_empty(),
        "{} not reported for {src:?}; got:\n{}",
        code.as_str(),
        shown()
    );
    assert!(
        found.iter().any(|d| d.span.range() == want),
        "{} for {src:?} should cover {want:?} {:?}; got:\n{}",
        code.as_str(),
        &src[want.clone()],
        shown()
    );
}

fn check(marked: &str, code: Code) {
    check_with(marked, code, &CheckOptions::default())
}

/// Option sets some rows need.
#[derive(Clone, Copy)]
enum Opts {
    Latest,
    /// Molang version 4 (before right-grouping `?:`).
    Version4,
    /// An entity script: `variable.*` judged, `v.x` set later in `pre_animation`.
    EntityXSetLater,
}

impl Opts {
    fn get(self) -> CheckOptions {
        match self {
            Opts::Latest => CheckOptions::default(),
            Opts::Version4 => CheckOptions {
                version: 4,
                ..CheckOptions::default()
            },
            Opts::EntityXSetLater => CheckOptions {
                judge_variables: true,
                later_variables: vec!["x".to_string()],
                ..CheckOptions::default()
            },
        }
    }
}

/// `(marked source, code, options)`: one row per way a code is reached.
fn table() -> Vec<(String, Code, Opts)> {
    use Code::*;
    use Opts::*;
    let rows: Vec<(&str, Code, Opts)> = vec![
        // Syntax.
        ("«math.sqrt(v.x) < 1»", PlatformNan, Latest),
        ("1 / «math.asin(math.ln(v.x))»", PlatformNan, Latest),
        ("«»", Empty, Latest),
        ("«   »", Empty, Latest),
        ("1 «%» 2", UnknownCharacter, Latest),
        ("1 + «ż»", UnknownCharacter, Latest),
        ("v.x = «'abc»", UnterminatedString, Latest),
        ("1 + «)»", UnexpectedToken, Latest),
        ("1 «,» 2", UnexpectedToken, Latest),
        ("1 +«»", UnexpectedEnd, Latest),
        ("1 + (2 «3»)", MissingOperator, Latest),
        ("-62.5«(»2)", MissingOperator, Latest),
        ("v.x = 1«»", MissingFinalSemicolon, Latest),
        ("«;»1", LeadingSemicolon, Latest),
        ("1 + «()»", EmptyGroup, Latest),
        ("v.x = 1; «{}»;", EmptyGroup, Latest),
        ("«{1}»", BraceWithoutSemicolon, Latest),
        ("v.x = 1; «{v.x = 2}»;", BraceWithoutSemicolon, Latest),
        ("1 ? «2 ? 3 : 4» : 5", NestedConditional, Version4),
        ("«1e» + 2", ExponentWithoutDigits, Latest),
        // Names.
        ("«foo.bar» + 1", UnknownName, Latest),
        ("«foo»", UnknownName, Latest),
        ("«foo.x» + 1", UnknownName, Latest),
        ("«math.tan»(1)", UnknownMathFunction, Latest),
        ("«math.lgo»", UnknownMathFunction, Latest),
        ("1 + «math.max(1, 2, 3)»", MathArity, Latest),
        ("«math.max(1, 2, 3)»", MathArity, Latest),
        ("«math.pi(1)»", MathArity, Latest),
        ("«math.cos» * 2", MathWithoutCall, Latest),
        ("«q.is_babby» ? 1 : 0", UnknownQuery, Latest),
        ("«q.position()»", QueryArity, Latest),
        ("«v.x»(1)", NotCallable, Latest),
        ("«v.x»[0]", NotAnArray, Latest),
        ("«q.get_name» == 'x'", DeprecatedQuery, Latest),
        // Assignments.
        ("«q.x» = 1;", BadAssignTarget, Latest),
        ("«c.x» = 1;", BadAssignTarget, Latest),
        ("«-v.x» = 1;", BadAssignTarget, Latest),
        ("«(v.x)» = 1;", BadAssignTarget, Latest),
        ("«t.a.b» = 1;", TempMemberAssign, Latest),
        ("«c.x.y» = 1;", IneffectiveAssign, Latest),
        ("«v.e->v.x» = 1;", AssignThroughArrow, Latest),
        // Control flow.
        ("«break»", BreakOutsideLoop, Latest),
        ("v.x = 1; «break»;", BreakOutsideLoop, Latest),
        // Control flow, edge semantics (issue 13).
        ("v.x = 1; «continue»;", ContinueOutsideLoop, Latest),
        ("«continue»", ContinueOutsideLoop, Latest),
        ("«return»;", ReturnWithoutValue, Latest),
        ("«loop(1)»;", LoopArguments, Latest),
        ("«loop(2, 1)»;", LoopArguments, Latest),
        ("«for_each(t.x, 1)»;", ForEachArguments, Latest),
        ("for_each(«q.x», q.y, {v.a = 1;});", ForEachVariable, Latest),
        ("return 1; «v.x = 1»;", Unreachable, Latest),
        ("loop(2, {break; «v.x = 1»;});", Unreachable, Latest),
        ("{v.a = 1; «v.b = 2»};", NoFinalSemicolonInBlock, Latest),
        // Operands.
        ("«'a'» + 1", NonNumericOperand, Latest),
        ("-«geometry.default»", NonNumericOperand, Latest),
        ("«'a'» * 2", NonNumericOperand, Latest),
        ("«texture.default» + 1", NonNumericOperand, Latest),
        ("«array.x[0]» + 1", ArrayElementArithmetic, Latest),
        ("«1» ?? 2", CoalesceLhs, Latest),
        ("«q.is_baby» ?? 2", CoalesceLhs, Latest),
        ("«v.x + v.y» ?? 1", CoalesceLhs, Latest),
        ("v.e->«1»", ArrowRhs, Latest),
        ("«(v.a->v.b)->v.c»", NestedArrow, Latest),
        // Operands, edge semantics (issue 13): the queries the engine computes.
        ("q.in_range(«'a'», 0, 1)", QueryNeedsNumber, Latest),
        ("q.approx_eq(1, «texture.x»)", QueryNeedsNumber, Latest),
        // Variables.
        ("«t.x»", ReadBeforeSet, Latest),
        ("t.y = «t.x»; return t.x;", ReadBeforeSet, Latest),
        (
            "q.is_baby ? {t.x = 1;}; return «t.x»;",
            MaybeReadBeforeSet,
            Latest,
        ),
        (
            "loop(2, {t.x = 1;}); return «t.x»;",
            MaybeReadBeforeSet,
            Latest,
        ),
        (
            "v.y = «v.x»; v.x = 1;",
            ReadBeforeSetFirstFrame,
            EntityXSetLater,
        ),
    ];
    let mut rows: Vec<(String, Code, Opts)> = rows
        .into_iter()
        .map(|(s, c, o)| (s.to_string(), c, o))
        .collect();
    // Too deep: the grammar stops at the 257th bracket, the checker at node depth 256.
    rows.push((
        format!("{}«(»1{}", "(".repeat(256), ")".repeat(257)),
        Code::TooDeep,
        Opts::Latest,
    ));
    rows.push((
        format!("{}«{}1»", "!".repeat(255), "!".repeat(45)),
        Code::TooDeep,
        Opts::Latest,
    ));
    // Too long: the span covers what is past the limit.
    rows.push((
        format!("{}«11»", "1".repeat(grammar::MAX_SOURCE_LEN)),
        Code::SourceTooLong,
        Opts::Latest,
    ));
    rows
}

/// Codes that a lone expression cannot produce; the pack tests below reach them.
const PACK_ONLY: &[Code] = &[
    // A JSON file the lenient reader cannot parse.
    Code::BrokenJson,
    // A path that cannot be read.
    Code::Io,
    // An animation reads a `variable.*` that no script of the entity using it sets.
    Code::NeverSet,
    // Pack structure (W08xx): controllers, entity names, bones, render-controller arrays.
    Code::UnknownState,
    Code::NoInitialState,
    Code::UnknownInitialState,
    Code::UnknownShortName,
    Code::UndefinedAnimation,
    Code::UnknownBone,
    Code::ArrayIndexOutOfRange,
    // Folders and missing references (W0810-W0813).
    Code::MisspeltFolder,
    Code::UndefinedGeometry,
    Code::UndefinedRenderController,
    Code::MissingTexture,
    Code::ControllerCycle,
    // A `molang-ignore` comment in a pack file naming no code.
    Code::UnknownIgnoredCode,
];

/// Codes only a Blockbench model can produce: `molang/cli/tests/bbmodel.rs` triggers each.
const MODEL_ONLY: &[Code] = &[
    Code::BadModel,
    Code::ModelPartSkipped,
    Code::ModelTooLarge,
    Code::PreviewDiffers,
];

/// Codes only loading an entity to play it produces (`molang run`): `tests/load_diagnostics.rs`
/// triggers each and checks its place.
const RUN_ONLY: &[Code] = &[
    Code::BuiltinGeometry,
    Code::MissingParentGeometry,
    Code::GeometryCycle,
    Code::UnknownParentBone,
    Code::UnknownRenderArray,
    Code::UnevaluatedResourceChoice,
    Code::BadKeyframeTime,
];

/// Codes only the pack walk's size and count limits produce (files of tens of MiB, tens of
/// thousands of files): `molang/cli/tests/hostile.rs` triggers each under a memory limit.
const LIMIT_ONLY: &[Code] = &[Code::PackLimit];

/// Codes the grammar defines but no input reaches yet, with the reason.
/// (Empty: a code nothing could produce was removed rather than kept untested.)
const UNREACHABLE_CODES: &[(Code, &str)] = &[];

#[test]
fn every_row_reports_its_code_on_its_span() {
    for (marked, code, opts) in table() {
        check_with(&marked, code, &opts.get());
    }
}

#[test]
fn every_code_is_tested() {
    let tested: BTreeSet<Code> = table().iter().map(|r| r.1).collect();
    let mut missing = Vec::new();
    for &code in Code::ALL {
        let pack = PACK_ONLY.contains(&code)
            || MODEL_ONLY.contains(&code)
            || LIMIT_ONLY.contains(&code)
            || RUN_ONLY.contains(&code);
        let unreachable = UNREACHABLE_CODES.iter().any(|(c, _)| *c == code);
        assert!(
            !(pack && tested.contains(&code)),
            "{} is in PACK_ONLY and in the table",
            code.as_str()
        );
        if !tested.contains(&code) && !pack && !unreachable {
            missing.push(code.as_str());
        }
    }
    assert!(missing.is_empty(), "codes with no test: {missing:?}");
}

#[test]
fn unreachable_codes_stay_unreached() {
    // If one of these starts firing, it needs a row in the table instead.
    let samples = [
        "v.x.y = 1;",
        "v.a..b",
        "v.x = 1; v.y = 2",
        "a.b.",
        "(v.x = 1; 2)",
        "v.1",
        "q.x.y.z",
        "math.pi.x",
    ];
    for src in samples {
        for d in diagnose(src, &CheckOptions::default()) {
            assert!(
                !UNREACHABLE_CODES.iter().any(|(c, _)| *c == d.code),
                "{} reached by {src:?}",
                d.code.as_str()
            );
        }
    }
}

#[test]
fn severities() {
    // Same code, different severity by context: the game refuses a statement-level `break`
    // outside a loop but only logs one inside an expression.
    let sev = |src: &str, code: Code| {
        diagnose(src, &CheckOptions::default())
            .into_iter()
            .find(|d| d.code == code)
            .map(|d| d.severity)
    };
    use Severity::{Error, Warning};
    for (src, code, want) in [
        ("break", Code::BreakOutsideLoop, Error),
        ("v.x = 1; break;", Code::BreakOutsideLoop, Warning),
        ("return 1; v.x = 1;", Code::Unreachable, Error),
        ("loop(2, {break; v.x = 1;});", Code::Unreachable, Warning),
        ("t.x", Code::ReadBeforeSet, Error),
        (
            "q.is_baby ? {t.x = 1;}; return t.x;",
            Code::MaybeReadBeforeSet,
            Warning,
        ),
        ("array.x[0] + 1", Code::ArrayElementArithmetic, Error),
        (
            "v.x = array.x[0] + 1;",
            Code::ArrayElementArithmetic,
            Warning,
        ),
    ] {
        assert_eq!(sev(src, code), Some(want), "{src}: {}", code.as_str());
    }
}

// ---- Edge-semantics codes (issue 13) ---------------------------------------------------

#[test]
fn w0408_continue_outside_a_loop() {
    check("v.x = 1; «continue»;", Code::ContinueOutsideLoop);
    // Silent in the game (molangx #627): a warning of ours, and the text loads.
    let d = diagnose("continue;", &CheckOptions::default());
    assert!(d
        .iter()
        .all(|d| d.code == Code::ContinueOutsideLoop && !d.is_error()));
    assert!(diagnose("loop(2, {continue;});", &CheckOptions::default()).is_empty());
}

#[test]
fn e0506_query_needs_number() {
    check("q.in_range(1, «'a'», 2)", Code::QueryNeedsNumber);
    check("q.approx_eq(«geometry.default», 1)", Code::QueryNeedsNumber);
    let d = diagnose("q.in_range(1, 'a', 2)", &CheckOptions::default());
    assert!(d
        .iter()
        .any(|d| d.code == Code::QueryNeedsNumber && d.refuses_load()));
    // `all`/`any` compare with `==`, which takes strings.
    assert!(diagnose("q.any('a', 'b', 'a')", &CheckOptions::default()).is_empty());
}

#[test]
fn messages_name_the_problem() {
    let msg = |src: &str| {
        diagnose(src, &CheckOptions::default())
            .into_iter()
            .next()
            .map(|d| d.message)
            .unwrap_or_default()
    };
    assert_eq!(
        msg("math.max(1, 2, 3)"),
        "math.max takes exactly 2 arguments, found 3"
    );
    assert_eq!(msg("1 + )"), "unexpected `)`");
    assert!(msg("q.is_babby").contains("is_babby"));
    let help = diagnose("q.is_babby", &CheckOptions::default())[0]
        .help
        .clone()
        .unwrap_or_default();
    assert!(help.contains("did you mean `query.is_baby`"), "{help}");
}

// ---- Pack-only codes, through the pack loader and linter ----------------------------

/// A diagnostic of a pack: code, file, 1-based line and column, the Molang text it points at.
type Hit = (Code, String, usize, usize, Option<String>);

fn pack_codes(files: &[(&str, &str)]) -> Vec<Hit> {
    let sources = files
        .iter()
        .map(|(p, s)| (PathBuf::from(p), s.to_string()))
        .collect();
    let pack = molang::pack::load_sources(sources);
    let (diagnostics, _) = molang::pack_check::check_pack(&pack);
    diagnostics
        .into_iter()
        .map(|d| {
            let text = d
                .site
                .map(|s| pack.sites[s].text[d.diagnostic.span.range()].to_string());
            (
                d.diagnostic.code,
                d.path.display().to_string(),
                d.line,
                d.column,
                text,
            )
        })
        .collect()
}

#[test]
fn pack_broken_json() {
    let got = pack_codes(&[(
        "rp/animations/a.json",
        "{\n  \"animations\": {\n    \"x\": [1 2]\n  }\n}",
    )]);
    let d = got
        .iter()
        .find(|d| d.0 == Code::BrokenJson)
        .unwrap_or_else(|| panic!("no E0701 in {got:?}"));
    assert_eq!(d.1, "rp/animations/a.json");
    assert_eq!(d.2, 3, "line of the error: {got:?}");
}

#[test]
fn pack_io() {
    let missing = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/no-such-pack-folder");
    let pack = molang::pack::load(&[missing]);
    let (diagnostics, _) = molang::pack_check::check_pack(&pack);
    assert!(
        diagnostics.iter().any(|d| d.diagnostic.code == Code::Io),
        "no E0702: {diagnostics:?}"
    );
}

#[test]
fn pack_never_set() {
    let entity = r#"{
  "format_version": "1.10.0",
  "minecraft:client_entity": {
    "description": {
      "identifier": "test:thing",
      "scripts": { "pre_animation": ["v.speed = 1;"] },
      "animations": { "walk": "animation.thing.walk" }
    }
  }
}"#;
    let animation = r#"{
  "format_version": "1.8.0",
  "animations": {
    "animation.thing.walk": {
      "bones": { "leg": { "rotation": ["v.speed * v.sped", 0, 0] } }
    }
  }
}"#;
    let got = pack_codes(&[
        ("rp/entity/thing.json", entity),
        ("rp/animations/thing.json", animation),
    ]);
    let d = got
        .iter()
        .find(|d| d.0 == Code::NeverSet)
        .unwrap_or_else(|| panic!("no W0604 in {got:?}"));
    assert_eq!(d.1, "rp/animations/thing.json");
    assert_eq!(d.4.as_deref(), Some("v.sped"));
    assert_eq!(
        (d.2, d.3),
        (5, 51),
        "line and column of `v.sped` in the file"
    );
    assert!(
        !got.iter()
            .any(|d| d.0 == Code::NeverSet && d.4.as_deref() == Some("v.speed")),
        "{got:?}"
    );
}

#[test]
fn pack_only_codes_are_covered_by_pack_tests() {
    // The pack tests in this file (`fn pack_*`) name exactly the codes of PACK_ONLY: a code
    // added to the list needs a test here, and a code a pack test reaches belongs in the list.
    let mut named = BTreeSet::new();
    for test in include_str!("codes.rs").split("\nfn pack_").skip(1) {
        let body = &test[..test.find("\n}\n").unwrap_or(test.len())];
        for (at, _) in body.match_indices("Code::") {
            let name = &body[at + "Code::".len()..];
            let end = name
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(name.len());
            if end > 0 {
                named.insert(name[..end].to_string());
            }
        }
    }
    let listed: BTreeSet<String> = PACK_ONLY.iter().map(|c| format!("{c:?}")).collect();
    assert_eq!(named, listed);
}

#[test]
fn pack_unknown_ignored_code() {
    let animation = "{\n  \"animations\": {\"animation.a\": {\"bones\": {\"b\": {\n    \"rotation\": [\"q.x\", 0, 0] // molang-ignore: W0250\n  }}}}\n}";
    let pack = molang::pack::load_sources(vec![(
        PathBuf::from("rp/animations/a.json"),
        animation.to_string(),
    )]);
    let got = molang::report::ignore_problems(&pack, 0);
    assert_eq!(got.len(), 1, "{got:?}");
    let d = &got[0];
    assert_eq!(d.diagnostic.code, Code::UnknownIgnoredCode);
    assert_eq!((d.line, d.column), (3, 49), "at `W0250`");
    assert_eq!(
        &animation[d.diagnostic.span.range()],
        "W0250",
        "the span covers the name"
    );
}

// ---- Pack structure (W08xx) ---------------------------------------------------------------

/// The one diagnostic of `code` in `got`, with its 1-based line and column.
fn only(got: &[Hit], code: Code) -> (String, usize, usize) {
    let hits: Vec<_> = got.iter().filter(|d| d.0 == code).collect();
    assert_eq!(hits.len(), 1, "want one {}: {got:?}", code.as_str());
    (hits[0].1.clone(), hits[0].2, hits[0].3)
}

/// Asserts that `got` has exactly one diagnostic of `code`, at the first `needle` of `src`;
/// returns the file it is in.
fn assert_one_at(got: &[Hit], code: Code, src: &str, needle: &str) -> String {
    let (file, line, col) = only(got, code);
    let code = code.as_str();
    assert_eq!((line, col), pos(src, needle), "{code} at {needle}: {got:?}");
    file
}

/// 1-based line and column of the first `needle` in `src`.
fn pos(src: &str, needle: &str) -> (usize, usize) {
    let at = src
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {src}"));
    let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    (
        src[..at].matches('\n').count() + 1,
        src[line_start..at].chars().count() + 1,
    )
}

/// A client entity playing `animations` (short -> id) through `animate`, with a geometry.
fn structure_entity(animations: &str, animate: &str) -> String {
    format!(
        r#"{{
  "format_version": "1.10.0",
  "minecraft:client_entity": {{
    "description": {{
      "identifier": "test:thing",
      "geometry": {{ "default": "geometry.thing" }},
      "animations": {{ {animations} }},
      "scripts": {{ "animate": [ {animate} ] }},
      "render_controllers": [ "controller.render.thing" ]
    }}
  }}
}}"#
    )
}

const STRUCTURE_GEOMETRY: &str = r#"{
  "format_version": "1.12.0",
  "minecraft:geometry": [
    { "description": { "identifier": "geometry.thing" }, "bones": [ { "name": "body" }, { "name": "leg" } ] }
  ]
}"#;

fn controller_file(body: &str) -> String {
    format!(
        "{{\n  \"format_version\": \"1.10.0\",\n  \"animation_controllers\": {{\n    \"controller.animation.thing\": {body}\n  }}\n}}"
    )
}

fn with_controller(body: &str) -> (String, Vec<Hit>) {
    let entity = structure_entity(r#""ctrl": "controller.animation.thing""#, r#""ctrl""#);
    let file = controller_file(body);
    let got = pack_codes(&[
        ("rp/entity/thing.json", &entity),
        ("rp/models/thing.geo.json", STRUCTURE_GEOMETRY),
        ("rp/animation_controllers/thing.json", &file),
    ]);
    (file, got)
}

#[test]
fn pack_unknown_state() {
    let (src, got) = with_controller(
        r#"{ "initial_state": "default", "states": {
      "default": { "transitions": [ { "walking": "q.is_moving" } ] },
      "walk": {} } }"#,
    );
    // At the `walking` key.
    let file = assert_one_at(&got, Code::UnknownState, &src, "\"walking\"");
    assert_eq!(file, "rp/animation_controllers/thing.json");
}

#[test]
fn pack_no_initial_state() {
    let (src, got) = with_controller(r#"{ "states": { "idle": {}, "walk": {} } }"#);
    // At the controller's key.
    assert_one_at(
        &got,
        Code::NoInitialState,
        &src,
        "\"controller.animation.thing\"",
    );
    // Vanilla relies on the implied `default` state: no warning when it exists.
    let (_, got) = with_controller(r#"{ "states": { "default": {} } }"#);
    assert!(!got.iter().any(|d| d.0 == Code::NoInitialState), "{got:?}");
}

#[test]
fn pack_unknown_initial_state() {
    let (src, got) = with_controller(r#"{ "initial_state": "idel", "states": { "idle": {} } }"#);
    // At the `initial_state` value.
    assert_one_at(&got, Code::UnknownInitialState, &src, "\"idel\"");
}

#[test]
fn pack_unknown_short_name() {
    // Twice: an `animate` entry of the entity, and a controller state's animation.
    let (src, got) = with_controller(
        r#"{ "states": { "default": { "animations": [ "ctrl", { "wave": "1" } ] } } }"#,
    );
    // At the `wave` key.
    assert_one_at(&got, Code::UnknownShortName, &src, "\"wave\"");
    let entity = structure_entity(r#""walk": "animation.thing.walk""#, r#""walk", "wlak""#);
    let anim = r#"{ "format_version": "1.8.0", "animations": { "animation.thing.walk": { "bones": { "leg": { "rotation": [1, 0, 0] } } } } }"#;
    let got = pack_codes(&[
        ("rp/entity/thing.json", &entity),
        ("rp/animations/thing.json", anim),
    ]);
    // At the `wlak` entry.
    let file = assert_one_at(&got, Code::UnknownShortName, &entity, "\"wlak\"");
    assert_eq!(file, "rp/entity/thing.json");
}

#[test]
fn pack_undefined_animation() {
    let entity = structure_entity(r#""walk": "animation.thing.wlak""#, r#""walk""#);
    let got = pack_codes(&[("rp/entity/thing.json", &entity)]);
    // At the identifier value.
    let file = assert_one_at(
        &got,
        Code::UndefinedAnimation,
        &entity,
        "\"animation.thing.wlak\"",
    );
    assert_eq!(file, "rp/entity/thing.json");
}

#[test]
fn pack_unknown_bone() {
    let entity = structure_entity(r#""walk": "animation.thing.walk""#, r#""walk""#);
    // `geometry.thing` inherits `leg` from its parent; `tail` is nowhere.
    let geometry = r#"{
  "format_version": "1.8.0",
  "geometry.base": { "bones": [ { "name": "leg" } ] },
  "geometry.thing:geometry.base": { "bones": [ { "name": "body" } ] }
}"#;
    let anim = r#"{
  "format_version": "1.8.0",
  "animations": {
    "animation.thing.walk": {
      "bones": {
        "LEG": { "rotation": [ "q.anim_time", 0, 0 ] },
        "tail": { "rotation": [ 0, 1, 0 ] }
      }
    }
  }
}"#;
    let got = pack_codes(&[
        ("rp/entity/thing.json", &entity),
        ("rp/models/thing.geo.json", geometry),
        ("rp/animations/thing.json", anim),
    ]);
    // At the `tail` key.
    let file = assert_one_at(&got, Code::UnknownBone, anim, "\"tail\"");
    assert_eq!(file, "rp/animations/thing.json");
}

#[test]
fn pack_array_index_out_of_range() {
    let entity = structure_entity("", "");
    let rc = r#"{
  "format_version": "1.8.0",
  "render_controllers": {
    "controller.render.thing": {
      "arrays": { "textures": { "Array.skins": [ "Texture.a", "Texture.b" ], "Array.all": [ "Array.skins", "Texture.c" ] } },
      "geometry": "Geometry.default",
      "textures": [ "Array.skins[2]", "Array.all[2]", "Array.skins[q.variant]" ]
    }
  }
}"#;
    let got = pack_codes(&[
        ("rp/entity/thing.json", &entity),
        ("rp/render_controllers/thing.json", rc),
    ]);
    // `Array.all` flattens `Array.skins` in: three elements, so only `Array.skins[2]` is past the end.
    // At the index `2` of `Array.skins[2]`.
    let file = assert_one_at(&got, Code::ArrayIndexOutOfRange, rc, "2]");
    assert_eq!(file, "rp/render_controllers/thing.json");
}

// ---- Folders and missing references (W0810-W0813) ----------------------------------------

const RP_MANIFEST: &str = r#"{"format_version": 2, "header": {"min_engine_version": [1, 21, 0]},
  "modules": [{"type": "resources"}]}"#;

#[test]
fn pack_misspelt_folder() {
    let got = pack_codes(&[
        ("rp/manifest.json", RP_MANIFEST),
        ("rp/rendrr_controllers/r.json", "{}"),
        ("rp/ui/x.json", "{}"),
    ]);
    let (file, _, _) = only(&got, Code::MisspeltFolder);
    assert_eq!(file, "rp/rendrr_controllers");
}

#[test]
fn pack_undefined_geometry_and_render_controller() {
    let entity = structure_entity("", "");
    let got = pack_codes(&[("rp/entity/thing.json", &entity)]);
    assert_one_at(&got, Code::UndefinedGeometry, &entity, "\"geometry.thing\"");
    assert_one_at(
        &got,
        Code::UndefinedRenderController,
        &entity,
        "\"controller.render.thing\"",
    );
    // Defined: nothing (geometry without case).
    let got = pack_codes(&[
        (
            "rp/entity/thing.json",
            &entity.replace("geometry.thing", "Geometry.Thing"),
        ),
        ("rp/models/thing.geo.json", STRUCTURE_GEOMETRY),
        (
            "rp/render_controllers/thing.json",
            r#"{"render_controllers": {"controller.render.thing": {}}}"#,
        ),
    ]);
    assert!(
        !got.iter().any(|d| matches!(
            d.0,
            Code::UndefinedGeometry | Code::UndefinedRenderController
        )),
        "{got:?}"
    );
}

/// Geometry the base game defines outside `models/entity/` (the armour pieces custom armour
/// uses, the boat, the mob heads, ...) is there under every add-on: no W0811 without a layer
/// that defines it, with or without case, while a made-up identifier still gets one.
#[test]
fn pack_builtin_geometry_is_defined() {
    let entity = structure_entity("", "");
    for builtin in ["geometry.humanoid.armor.leggings", "Geometry.Boat"] {
        let got = pack_codes(&[(
            "rp/entity/thing.json",
            &entity.replace("geometry.thing", builtin),
        )]);
        assert!(
            !got.iter().any(|d| d.0 == Code::UndefinedGeometry),
            "{builtin}: {got:?}"
        );
    }
    let got = pack_codes(&[(
        "rp/entity/thing.json",
        &entity.replace("geometry.thing", "geometry.humanoid.armor.gloves"),
    )]);
    only(&got, Code::UndefinedGeometry);
}

#[test]
fn pack_missing_texture() {
    let dir = std::env::temp_dir().join(format!("molang-codes-texture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("manifest.json", RP_MANIFEST);
    write("textures/entity/here.png", "");
    let entity = r#"{"minecraft:client_entity": {"description": {"identifier": "t:e",
      "textures": {"a": "textures/entity/here", "b": "textures/entity/gone", "c": "textures/items/elsewhere"}}}}"#;
    write("entity/e.json", entity);
    let pack = molang::pack::load(std::slice::from_ref(&dir));
    let (diagnostics, _) = molang::pack_check::check_pack(&pack);
    let hits: Vec<_> = diagnostics
        .iter()
        .filter(|d| d.diagnostic.code == Code::MissingTexture)
        .collect();
    assert_eq!(hits.len(), 1, "{diagnostics:?}");
    assert_eq!(
        (hits[0].line, hits[0].column),
        pos(entity, "\"textures/entity/gone\"")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
#[test]
fn pack_controller_cycle() {
    // `a` plays `b`, which plays `a` again: the entry `"a"` of `b` closes the circle. `a`'s
    // own `"walk"` entry is an animation, and `b` playing `walk` is no circle.
    let entity = structure_entity(
        r#""a": "controller.animation.a", "b": "controller.animation.b", "walk": "animation.thing.walk""#,
        r#""a""#,
    );
    let controllers = r#"{
  "format_version": "1.10.0",
  "animation_controllers": {
    "controller.animation.a": { "states": { "default": { "animations": [ "walk", "b" ] } } },
    "controller.animation.b": { "states": { "default": { "animations": [ "walk", "a" ] } } }
  }
}"#;
    let anim = r#"{ "format_version": "1.8.0", "animations": { "animation.thing.walk": {} } }"#;
    let got = pack_codes(&[
        ("rp/entity/thing.json", &entity),
        ("rp/models/thing.geo.json", STRUCTURE_GEOMETRY),
        ("rp/animation_controllers/c.json", controllers),
        ("rp/animations/thing.json", anim),
    ]);
    // At the entry `a` of controller b.
    let file = assert_one_at(
        &got,
        Code::ControllerCycle,
        controllers,
        "\"a\" ] } } }\n  }",
    );
    assert_eq!(file, "rp/animation_controllers/c.json");
}
