//! Diagnostics: problems in the user's Molang, each with a stable code, a span in the
//! expression, labels, and what the game does about it. Host failures are not diagnostics.

mod ci;
mod codes;
mod render;

pub use ci::{render_github, render_sarif, Finding};
pub use codes::Code;
pub use render::{
    render_json_line, render_json_line_at, render_pack_report, render_report, render_report_at,
    Identity, SourceMap, SourceText,
};

use grammar::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The expression does not load in the game.
    Error,
    /// The expression loads, but the game logs a content error or it is likely a mistake.
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A diagnostic in a pack: which file, and (for Molang problems) which site. What
/// `molang check` reports, and what loading an entity to play it finds
/// ([`crate::runtime::load::Loaded::diagnostics`]); both print through
/// [`render_pack_report`].
#[derive(Clone, Debug)]
pub struct PackDiagnostic {
    pub path: std::path::PathBuf,
    /// `None` for whole-file problems (broken JSON) and pack-structure problems; then
    /// `line`/`column` are set.
    pub site: Option<crate::pack::SiteId>,
    /// For pack-structure problems: the file ([`crate::pack::Pack::files`] index) whose bytes
    /// the diagnostic's span indexes (a JSON key or value).
    pub file: Option<usize>,
    pub diagnostic: Diagnostic,
    pub line: usize,
    pub column: usize,
}

impl PackDiagnostic {
    /// A diagnostic of site `si` of `pack` (its spans in the site's text), located in its
    /// file.
    pub fn at_site(pack: &crate::pack::Pack, si: crate::pack::SiteId, d: Diagnostic) -> Self {
        let site = &pack.sites[si];
        let (line, column) = pack.locate(site, d.span.start as usize);
        PackDiagnostic {
            path: pack.files[site.file].path.clone(),
            site: Some(si),
            file: None,
            diagnostic: d,
            line,
            column,
        }
    }
}

/// One problem in one expression. Spans are byte offsets into the expression text.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Secondary labels, e.g. "no assignment before this point".
    pub labels: Vec<(Span, String)>,
    /// What to do about it, and what the game does with it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// `severity[code]: message`, the one-line form of notes and errors.
    pub fn summary(&self) -> String {
        format!(
            "{}[{}]: {}",
            self.severity.as_str(),
            self.code.as_str(),
            self.message
        )
    }

    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.default_severity(),
            message: message.into(),
            span,
            labels: Vec::new(),
            help: None,
        }
    }
    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
    pub fn with_severity(mut self, severity: Severity) -> Diagnostic {
        self.severity = severity;
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    /// The game refuses to load the expression because of this. Read-before-set errors are
    /// errors of ours (the read always fails at run time) but the game loads the expression.
    pub fn refuses_load(&self) -> bool {
        self.is_error() && !self.code.is_runtime()
    }
    /// The game's consequence, appended to help text.
    pub fn consequence(&self) -> &'static str {
        match self.severity {
            // A limit of this tool, not of the game.
            Severity::Error if self.code == Code::SourceTooLong => {
                "molang does not read text this long; what the game does with it is not known."
            }
            Severity::Error if matches!(self.code, Code::BadModel | Code::ModelTooLarge) => {
                "molang does not import this Blockbench model until this is fixed."
            }
            Severity::Warning if self.code == Code::ModelPartSkipped => {
                "molang import leaves this part out of the pack."
            }
            Severity::Error if self.code == Code::PackLimit => {
                "The game loads the files past this limit; molang did not read or check them."
            }
            Severity::Error if self.code.is_runtime() => {
                "The game loads this expression, but at run time this read ends it with value 0, so later statements never run."
            }
            Severity::Error => {
                "The game refuses to load this expression: the animation, controller or entity that holds it stops working."
            }
            Severity::Warning => "The game still loads this expression.",
        }
    }
}
