//! The library's one error type: an opaque [`Error`] whose [`Error::kind`] says what went
//! wrong (for callers and tests to match) and whose `Display` says it to a user, with the
//! file and position where there is one. Problems in the user's Molang are not errors but
//! [`crate::Diagnostic`]s; this is for what stops an operation (a missing path, an entity
//! that is not in the pack, a broken input timeline, an impossible fuzz setting).

use std::fmt;

/// What kind of problem an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A path given by the user does not exist.
    NoSuchPath,
    /// No client entity, attachable (or, for the fuzzer, entity) of that identifier.
    UnknownEntity,
    /// A file the operation needs is not valid JSON or cannot be read.
    BrokenFile,
    /// The entity's scripts do not load (the game refuses them).
    ScriptsDoNotLoad,
    /// The entity has nothing to play (no geometry and no animations).
    NothingToPlay,
    /// An input timeline (CSV) or one of its column names is malformed.
    Inputs,
    /// A setting (a command-line value, a ranges file, an invariant) is out of range or
    /// does not parse.
    Config,
    /// An output folder cannot be created, or a file cannot be read or written.
    Io,
    /// A bug: something the library itself should never produce.
    Internal,
}

/// An error of the library: a kind and a message for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Front ends that carry errors as text (`Result<_, String>`) take ours with `?`.
impl From<Error> for String {
    fn from(e: Error) -> String {
        e.message
    }
}
