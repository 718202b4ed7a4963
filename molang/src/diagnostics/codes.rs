//! Every diagnostic code, with its default severity and a one-line title. Codes are stable:
//! tests are named after them and editors may match on them. Where the game has its own
//! message id (the molangx `E01`..`E47` ids of the conformance vectors) it is noted.

use super::Severity;

macro_rules! codes {
    ($( $(#[$doc:meta])* $name:ident = $code:literal, $sev:ident, $title:literal; )*) => {
        /// Diagnostic codes. `E` codes default to errors, `W` codes to warnings.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code { $( $(#[$doc])* $name, )* }
        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$name),*];
            pub fn as_str(self) -> &'static str { match self { $(Code::$name => $code,)* } }
            pub fn default_severity(self) -> Severity { match self { $(Code::$name => Severity::$sev,)* } }
            pub fn title(self) -> &'static str { match self { $(Code::$name => $title,)* } }
            /// Problems that show at run time rather than when the game loads the text.
            pub fn is_runtime(self) -> bool { matches!(self, Code::ReadBeforeSet | Code::MaybeReadBeforeSet | Code::ReadBeforeSetFirstFrame | Code::NeverSet) }
        }
    };
}

codes! {
    // Syntax: E01xx.
    /// Game E01.
    Empty = "E0101", Error, "empty expression";
    /// Game E02/E03.
    UnknownCharacter = "E0102", Error, "unknown character";
    /// Game E04.
    UnterminatedString = "E0103", Error, "unterminated string";
    UnexpectedToken = "E0104", Error, "unexpected token";
    UnexpectedEnd = "E0105", Error, "unexpected end of expression";
    /// Game E08/E32.
    MissingOperator = "E0106", Error, "two operands with no operator between them";
    /// Game E22.
    TooDeep = "E0107", Error, "nesting deeper than 256 levels";
    /// Game E07.
    MissingFinalSemicolon = "E0108", Error, "complex expression must end with `;`";
    /// Game E14.
    LeadingSemicolon = "E0109", Error, "expression starts with `;`";
    /// Game E24.
    EmptyGroup = "E0110", Error, "empty group";
    /// Game E34.
    BraceWithoutSemicolon = "E0111", Error, "`{}` must hold `;`-terminated statements";
    /// Game E25.
    NestedConditional = "E0112", Error, "nested conditional not supported before Molang version 5";
    /// Game E06.
    ExponentWithoutDigits = "W0113", Warning, "exponent without digits";
    /// Not a game rule: a limit of this tool (`grammar::MAX_SOURCE_LEN`) on hostile input.
    SourceTooLong = "E0114", Error, "expression longer than 4 MiB";
    // Names: E02xx.
    UnknownName = "E0201", Error, "unknown name or namespace";
    /// Game E03.
    UnknownMathFunction = "E0202", Error, "unknown math function";
    /// Game E23.
    MathArity = "E0203", Error, "wrong number of arguments to a math function";
    /// Game E17.
    MathWithoutCall = "E0204", Error, "math function used without `(...)`";
    UnknownQuery = "W0205", Warning, "unknown query";
    QueryArity = "E0206", Error, "wrong number of arguments to a query";
    NotCallable = "E0207", Error, "only math functions and queries take arguments";
    NotAnArray = "E0208", Error, "only `array.*` can be indexed";
    DeprecatedQuery = "W0209", Warning, "deprecated query";
    // Assignments: E03xx.
    /// Game E28.
    BadAssignTarget = "E0301", Error, "assignment to something that is not a variable";
    /// Game E39.
    TempMemberAssign = "W0302", Warning, "temp variables cannot hold struct members";
    /// Game E40/E47.
    IneffectiveAssign = "W0303", Warning, "assignment that has no effect";
    /// Game E43.
    AssignThroughArrow = "W0304", Warning, "writing another entity's variables is not supported";
    // Control flow: E04xx.
    /// Game E45.
    BreakOutsideLoop = "E0401", Error, "`break` outside a loop";
    /// Game E20.
    ReturnWithoutValue = "E0402", Error, "`return` without a value";
    /// Game E30.
    LoopArguments = "E0403", Error, "`loop` needs a count and a `{}` body";
    /// Game E27.
    ForEachArguments = "E0404", Error, "`for_each` needs a variable, an array and a `{}` body";
    /// Game E33.
    ForEachVariable = "E0405", Error, "`for_each` needs a `temp.` or `variable.` to iterate with";
    /// Game E38.
    Unreachable = "E0406", Error, "unreachable statements";
    NoFinalSemicolonInBlock = "W0407", Warning, "statement after the last `;`";
    /// Not a game message: the game accepts `continue` outside a loop silently (molangx
    /// vectors #176, #626..#629 load with no message); it does nothing.
    ContinueOutsideLoop = "W0408", Warning, "`continue` outside a loop does nothing";
    // Operands: E05xx.
    /// Game E36.
    NonNumericOperand = "E0501", Error, "operator needs numbers";
    /// Game E42.
    ArrayElementArithmetic = "E0502", Error, "arithmetic on a resource array element";
    /// Game E44.
    CoalesceLhs = "E0503", Error, "left side of `??` must be a variable";
    /// Game E46.
    ArrowRhs = "E0504", Error, "right side of `->` must be a variable or a query";
    /// Game E41.
    NestedArrow = "E0505", Error, "nested `->` is not supported";
    /// `query.in_range` / `query.approx_eq` need numbers (Mojang's documentation: "requires 3
    /// numerical arguments"); a string or resource there does not load.
    QueryNeedsNumber = "E0506", Error, "this query needs numbers";
    /// A value that can be NaN (`math.sqrt` of something that can be negative, ...) reaches
    /// an operator whose result with a NaN differs between x86-64 and arm64 (`<`, `<=`, the
    /// second operand of `math.min`/`max`, `clamp`'s lower bound, a divisor, `asin`/`acos`,
    /// `math.sign`): see `check::nan`.
    PlatformNan = "W0507", Warning, "a NaN here gives one result on arm64 phones and another on x86-64 PCs";
    // Variables: E06xx.
    ReadBeforeSet = "E0601", Error, "variable read before it is set";
    MaybeReadBeforeSet = "W0602", Warning, "variable may be read before it is set";
    ReadBeforeSetFirstFrame = "W0603", Warning, "variable read before it is set on the first frame";
    NeverSet = "W0604", Warning, "variable is never set by this entity";
    // Packs: E07xx.
    BrokenJson = "E0701", Error, "the file is not valid JSON";
    Io = "E0702", Error, "the file could not be read";
    /// A Blockbench model (`.bbmodel`) whose structure is wrong: a field of the wrong type,
    /// a missing `meta`, a number too large. Blockbench refuses it or reads it wrongly.
    BadModel = "E0703", Error, "the Blockbench model is malformed";
    /// A part of a Blockbench model that is read but not used: an element type with no
    /// Bedrock geometry, an animator for a missing bone, a malformed timeline (skipped as the
    /// seed's importer skips it), a texture that is not an embedded PNG.
    ModelPartSkipped = "W0704", Warning, "part of the Blockbench model is skipped";
    /// A model file over `molang::bbmodel::MAX_MODEL_BYTES`: a limit of this tool.
    ModelTooLarge = "E0705", Error, "the Blockbench model is larger than molang reads";
    /// A file larger than the walk reads, or files past the number it reads
    /// ([`crate::pack::Limits`]): not checked, though the game loads them.
    PackLimit = "E0706", Error, "past the size or file-count limit of what one check reads";
    /// A keyframe Molang value of a Blockbench model that Blockbench's preview (JavaScript,
    /// MolangJS's rules) computes differently from the game: `molang::bbmodel::preview_divergences`.
    PreviewDiffers = "W0740", Warning, "Blockbench's preview and the game give this value differently";
    // Pack structure: E08xx / W08xx. The game loads the pack and logs a content error (or
    // nothing); the broken part does nothing.
    /// A controller transition names a state the controller does not have.
    UnknownState = "W0801", Warning, "transition to a state that does not exist";
    /// No `initial_state` and no state called `default`.
    NoInitialState = "W0802", Warning, "controller has no `initial_state` and no `default` state";
    /// `initial_state` names a state that does not exist.
    UnknownInitialState = "W0803", Warning, "`initial_state` names a state that does not exist";
    /// An `animate` or controller-state entry whose short name the entity does not define.
    UnknownShortName = "W0804", Warning, "no animation or controller of the entity has this name";
    /// `description.animations` names an animation or controller no file (on its side) defines.
    UndefinedAnimation = "W0805", Warning, "animation or controller that no file defines";
    /// An animation moves a bone no geometry of the entities playing it has.
    UnknownBone = "W0806", Warning, "animation moves a bone the geometry does not have";
    /// A constant render-controller array index at or past the array's size.
    ArrayIndexOutOfRange = "W0807", Warning, "constant array index past the end of the array";
    /// A top-level pack folder one edit away from a folder the game reads definitions from
    /// (`rendrr_controllers/`): the game ignores it and everything in it.
    MisspeltFolder = "W0810", Warning, "folder name one letter away from a folder the game reads";
    /// A client entity's or attachable's `description.geometry` names a geometry no layer
    /// defines.
    UndefinedGeometry = "W0811", Warning, "geometry that no layer defines";
    /// An entity's `render_controllers` names a render controller no layer defines.
    UndefinedRenderController = "W0812", Warning, "render controller that no layer defines";
    /// A `description.textures` path with no image (`.png`, `.tga`, `.jpg`) in any layer.
    MissingTexture = "W0813", Warning, "texture path with no image in any layer";
    /// A controller-state entry that plays a controller already playing it (directly or
    /// through others): `molang run` cuts the circle there.
    ControllerCycle = "W0808", Warning, "controller plays itself";
    // Found when an entity is loaded to be played (`molang run`, `test`, `fuzz`, `render`):
    // W082x. Pack structure of the one entity played that `molang check` does not judge
    // (geometry inheritance, keyframe times) or that only the runtime's evaluation meets.
    /// The geometry an entity draws is one the game has built in (`geometry.humanoid.armor.*`,
    /// boats, beds, ...) and no layer holds: the runtime has no bones for it, so bones come
    /// from the animations and world positions ignore pivots.
    BuiltinGeometry = "W0820", Warning, "geometry the game has built in, which no pack holds";
    /// A geometry inherits (`geometry.x:geometry.parent`) from one no layer defines; the
    /// game may have it built in (`geometry.humanoid`). Only the bones written along the way
    /// are loaded.
    MissingParentGeometry = "W0821", Warning, "geometry inherits from a geometry no layer defines";
    /// A chain of geometry inheritance comes back to a geometry already in it; each geometry
    /// of the circle is used once.
    GeometryCycle = "W0822", Warning, "geometry inherits from itself";
    /// A bone's `parent` names a bone the geometry (parents included) does not have: the
    /// bone hangs from the root.
    UnknownParentBone = "W0823", Warning, "bone whose parent does not exist";
    /// A render-controller choice `Array.name[i]` names an array the controller does not
    /// have: it selects nothing.
    UnknownRenderArray = "W0824", Warning, "render-controller array that does not exist";
    /// A render-controller geometry, texture or material choice that is not `Kind.name`,
    /// `Array.name[i]` or `c ? a : b`: the runtime does not evaluate it and selects nothing.
    UnevaluatedResourceChoice = "W0825", Warning, "resource choice the runtime does not evaluate";
    /// A keyframe time (a key of a channel's keyframes) that is not a number: the keyframe is
    /// ignored.
    BadKeyframeTime = "W0826", Warning, "keyframe time that is not a number";
    // The tool's own settings: W09xx.
    /// A `molang-ignore` comment names something that is not a code (or no code).
    UnknownIgnoredCode = "W0901", Warning, "`molang-ignore` names no diagnostic code";
}
