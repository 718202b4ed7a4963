//! One file per request, each answering from the workspace's analysis ([`super::state`])
//! with the helpers of [`super::handlers`].

pub mod completion;
pub mod definition;
pub mod formatting;
pub mod hover;
pub mod references;
pub mod rename;
pub mod semantic_tokens;
pub mod signature_help;
pub mod symbols;
