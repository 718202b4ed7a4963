//! The rig library's one error type, as `molang::Error` is molang's: an opaque [`Error`] whose
//! [`Error::kind`] says what went wrong (for callers and tests to match) and whose `Display`
//! says it to a user. Nothing here names a file the library read or wrote: it reads and writes
//! none, so the front end that did puts the path in front of the message.

use std::fmt;

/// What kind of problem an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A params file's text is not JSON, has an unknown or a missing field, or a number that
    /// is not a finite `f32` ([`crate::params_file::from_json`]).
    ParamsFile,
    /// Parameters no rig can satisfy ([`crate::RigParams::problems`]).
    ImpossibleRig,
    /// A motion profile (inputs CSV) is malformed, or gives no frame to run.
    Inputs,
    /// A setting is out of range or unknown: a scenario or preset name, a thread or dog
    /// count, a README table block.
    Config,
    /// The generated Molang does not load, the JIT refuses it, or a frame of it aborts.
    Molang,
    /// Writing into the caller's writer failed.
    Io,
    /// A bug: something the library itself should never produce.
    Internal,
}

/// An error of the rig library: a kind and a message for the user. One pointer wide, so the
/// `Result<Outputs, Error>` of every rig frame stays small.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<(ErrorKind, String)>);

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new((kind, message.into())))
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> ErrorKind {
        self.0 .0
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0 .1)
    }
}

impl std::error::Error for Error {}
