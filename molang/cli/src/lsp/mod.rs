//! `molang lsp`: a language server over stdio on `lsp-server` + `lsp-types`, in the
//! synchronous style of rust-analyzer and ruff: one loop reads a message, updates the
//! state or answers, and goes on (the work is compute-bound; no async runtime).
//!
//! - [`state`]: the workspace (the packs of the workspace folders, layered in order as
//!   `pack::load` does, with the editor's unsaved buffers laid over them) and its analysis;
//! - [`requests`]: one file per request: hover, completion, signature help, definition,
//!   references, rename, formatting (whole document and range), document symbols, semantic
//!   tokens; [`handlers`]: what they share, and the diagnostics in LSP form;
//! - [`actions`]: code actions (quick fixes) and inlay hints;
//! - [`text`]: byte offsets ↔ LSP positions (UTF-16), URIs ↔ paths.
//!
//! Diagnostics are published for every file that has any, after opening, changes and
//! saves, and cleared when a file has none left. Changes are analysed when no other
//! message is waiting (a burst of `didChange` is analysed once, for its last text) or
//! before a request is answered; a whole-pack analysis in progress is given up when
//! another change arrives.

pub mod actions;
pub mod framing;
pub mod handlers;
pub mod requests;
pub mod state;
pub mod text;

use std::collections::HashMap;
use std::path::PathBuf;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Initialized, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest,
    InlayHintRequest, PrepareRenameRequest, RangeFormatting, References, Rename, Request as _,
    SemanticTokensFullRequest, SignatureHelpRequest,
};
use lsp_types::*;

use state::Workspace;

/// What the server offers.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".to_string()]),
            ..CompletionOptions::default()
        }),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(vec!["(".to_string(), ",".to_string()]),
            retrigger_characters: None,
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        inlay_hint_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: SemanticTokensLegend {
                    token_types: requests::semantic_tokens::TOKEN_TYPES.to_vec(),
                    token_modifiers: Vec::new(),
                },
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                ..SemanticTokensOptions::default()
            },
        )),
        ..ServerCapabilities::default()
    }
}

/// The connection broke, or the client sent something that is not LSP: the session cannot
/// go on. (The server's own error: the `molang` library knows nothing of LSP.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError(String);

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "language-server connection: {}", self.0)
    }
}

impl std::error::Error for ProtocolError {}

fn protocol(e: impl std::fmt::Display) -> ProtocolError {
    ProtocolError(e.to_string())
}

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `exit` after `shutdown` (exit code 0).
    Exit,
    /// `exit` without `shutdown` (exit code 1, as the protocol says).
    ExitWithoutShutdown,
    /// The client closed the connection; `true` after a `shutdown`.
    Closed { after_shutdown: bool },
}

impl Ending {
    /// The process exit code the protocol asks for: 0 only after `shutdown`.
    pub fn exit_code(self) -> u8 {
        match self {
            Ending::Exit
            | Ending::Closed {
                after_shutdown: true,
            } => 0,
            _ => 1,
        }
    }
}

/// Runs the server on stdin/stdout until the client says `exit` or closes stdin. Frames are
/// read by [`framing`] (bounded, and a malformed message never ends the session); writes are
/// whole messages on stdout.
pub fn run_stdio() -> Result<Ending, ProtocolError> {
    let (server_side, client_side) = Connection::memory();
    let Connection {
        sender: to_server,
        receiver: from_server,
    } = client_side;
    let writer = std::thread::spawn(move || {
        for msg in from_server {
            if framing::write_stdout(&msg).is_err() {
                // The client is gone; the server ends when stdin does.
                break;
            }
        }
    });
    // Not joined: it may be blocked reading a stdin nobody closes; the process ends anyway.
    std::thread::spawn(move || framing::read_stdin(|m| to_server.send(m).is_ok()));
    let ending = session(server_side)?;
    writer
        .join()
        .map_err(|_| protocol("the writer thread failed"))?;
    Ok(ending)
}

/// Runs the server on `connection` (stdio, or an in-memory pair in tests); `Ok` whichever
/// way the session ended.
pub fn serve(connection: Connection) -> Result<(), ProtocolError> {
    session(connection).map(|_| ())
}

/// Runs the server on `connection` and says how the session ended. After `shutdown` every
/// request is refused (`InvalidRequest`) until `exit`.
pub fn session(connection: Connection) -> Result<Ending, ProtocolError> {
    let caps = serde_json::to_value(capabilities()).map_err(protocol)?;
    // Initialised by hand: `Connection::initialize` ends the session when anything but
    // `initialized` follows the answer.
    let (id, params) = connection.initialize_start().map_err(protocol)?;
    let _ = connection.sender.send(Message::Response(Response::new_ok(
        id,
        serde_json::json!({ "capabilities": caps }),
    )));
    let params: InitializeParams = serde_json::from_value(params).map_err(protocol)?;
    let roots = workspace_roots(&params);
    let watched = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref());
    let watch = watched
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false);
    let relative = watched
        .and_then(|d| d.relative_pattern_support)
        .unwrap_or(false);
    let show_lower = params
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("showLowerLayerDiagnostics"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    let mut server = Server {
        ws: Workspace::with_options(&roots, show_lower),
        published: HashMap::new(),
        connection: &connection,
        watch: watch.then_some((roots, relative)),
    };
    server.publish();
    let mut shut_down = false;
    let inbox = Inbox::new(&connection);
    loop {
        // Changes are staged as they come and analysed once nothing more is waiting (a
        // burst of keystrokes is analysed once, for its last text), or before a request is
        // answered. An analysis of the whole pack stops as soon as another change arrives.
        let msg = match inbox.next(server.ws.is_settled()) {
            Next::Message(m) => m,
            Next::Idle => {
                if server.ws.settle_unless(&|| inbox.edit_waiting()) {
                    server.publish();
                }
                continue;
            }
            Next::Closed => break,
        };
        match msg {
            Message::Request(req) if shut_down => {
                server.send(Message::Response(Response::new_err(
                    req.id,
                    ErrorCode::InvalidRequest as i32,
                    "the server is shutting down: only `exit` is accepted after `shutdown`".into(),
                )))
            }
            Message::Request(req) if req.method == "shutdown" => {
                shut_down = true;
                server.send(Message::Response(Response::new_ok(req.id, ())));
            }
            Message::Request(req) => {
                if !server.ws.is_settled() {
                    server.ws.settle();
                    server.publish();
                }
                server.request(req)
            }
            Message::Notification(n) if n.method == "exit" => {
                return Ok(if shut_down {
                    Ending::Exit
                } else {
                    Ending::ExitWithoutShutdown
                });
            }
            Message::Notification(_) if shut_down => {}
            Message::Notification(n) => server.notification(n),
            Message::Response(_) => {}
        }
    }
    Ok(Ending::Closed {
        after_shutdown: shut_down,
    })
}

/// The messages of a session, read ahead when asked whether a change is waiting (the
/// connection's channel cannot be peeked at).
struct Inbox<'c> {
    connection: &'c Connection,
    ahead: std::sync::Mutex<std::collections::VecDeque<Message>>,
    /// Whether `ahead` holds a change of a text or of a file.
    edit_ahead: std::sync::atomic::AtomicBool,
}

enum Next {
    Message(Message),
    /// Nothing is waiting (asked only while staged changes are not analysed).
    Idle,
    Closed,
}

impl<'c> Inbox<'c> {
    fn new(connection: &'c Connection) -> Inbox<'c> {
        Inbox {
            connection,
            ahead: Default::default(),
            edit_ahead: Default::default(),
        }
    }

    /// The next message; when `wait` is false and none is there, [`Next::Idle`].
    fn next(&self, wait: bool) -> Next {
        use std::sync::atomic::Ordering;
        let mut ahead = self.ahead.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = ahead.pop_front() {
            self.edit_ahead
                .store(ahead.iter().any(is_edit), Ordering::Relaxed);
            return Next::Message(m);
        }
        drop(ahead);
        let r = &self.connection.receiver;
        match wait {
            true => r.recv().map_or(Next::Closed, Next::Message),
            false if r.is_empty() => Next::Idle,
            false => r.recv().map_or(Next::Closed, Next::Message),
        }
    }

    /// Whether a change of a text or a file is waiting (reads the waiting messages ahead).
    /// Called from the analysis' worker threads.
    fn edit_waiting(&self) -> bool {
        use std::sync::atomic::Ordering;
        if !self.connection.receiver.is_empty() {
            let mut ahead = self.ahead.lock().unwrap_or_else(|e| e.into_inner());
            while let Ok(m) = self.connection.receiver.try_recv() {
                if is_edit(&m) {
                    self.edit_ahead.store(true, Ordering::Relaxed);
                }
                ahead.push_back(m);
            }
        }
        self.edit_ahead.load(Ordering::Relaxed)
    }
}

/// A notification that changes a text or a file (what makes an analysis in progress stale).
fn is_edit(m: &Message) -> bool {
    matches!(m, Message::Notification(n) if matches!(
        n.method.as_str(),
        DidChangeTextDocument::METHOD
            | DidOpenTextDocument::METHOD
            | DidCloseTextDocument::METHOD
            | DidSaveTextDocument::METHOD
            | DidChangeWatchedFiles::METHOD
    ))
}

/// The workspace folders (or the root URI) as absolute paths.
fn workspace_roots(params: &InitializeParams) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| text::uri_to_path(&f.uri))
        .collect();
    #[allow(deprecated)]
    if roots.is_empty() {
        roots.extend(params.root_uri.as_ref().and_then(text::uri_to_path));
    }
    roots
}

struct Server<'c> {
    ws: Workspace,
    /// What each file was last sent, so that only changes are published.
    published: HashMap<PathBuf, Vec<Diagnostic>>,
    connection: &'c Connection,
    /// The folders to ask the client to watch, when it can (dynamic registration of
    /// `workspace/didChangeWatchedFiles`), and whether patterns can be relative to a
    /// folder; asked once, on `initialized`.
    watch: Option<(Vec<PathBuf>, bool)>,
}

/// The id of the server's request that registers its file watchers.
pub const WATCH_REGISTRATION: &str = "molang/watch-pack-files";

impl Server<'_> {
    fn send(&self, msg: Message) {
        // A closed channel means the client left; the loop ends on its own.
        let _ = self.connection.sender.send(msg);
    }

    /// Sends the diagnostics of every file whose set changed since last time.
    fn publish(&mut self) {
        // After an incremental update only the files it touched can differ.
        let only = self.ws.take_changed();
        let now = handlers::diagnostics(&self.ws, only.as_ref());
        let mut paths: Vec<PathBuf> = match &only {
            Some(o) => now.keys().chain(o).cloned().collect(),
            None => now.keys().chain(self.published.keys()).cloned().collect(),
        };
        paths.sort();
        paths.dedup();
        for path in paths {
            let new = now.get(&path).cloned().unwrap_or_default();
            if self
                .published
                .get(&path)
                .map_or(new.is_empty(), |old| *old == new)
            {
                continue;
            }
            let params = PublishDiagnosticsParams {
                uri: text::path_to_uri(&path),
                diagnostics: new.clone(),
                version: None,
            };
            self.send(Message::Notification(Notification::new(
                PublishDiagnostics::METHOD.to_string(),
                params,
            )));
            if new.is_empty() {
                self.published.remove(&path);
            } else {
                self.published.insert(path, new);
            }
        }
    }

    /// Asks the client to tell the server about pack files changed on disk (by Blockbench,
    /// git, a generator): every JSON file and manifest under each workspace folder.
    fn register_watchers(&mut self) {
        let Some((roots, relative)) = self.watch.take() else {
            return;
        };
        // Without relative patterns a glob is matched in every workspace folder of the
        // client: one watcher does.
        let watchers: Vec<FileSystemWatcher> = if relative {
            roots
                .iter()
                .map(|root| FileSystemWatcher {
                    glob_pattern: GlobPattern::Relative(RelativePattern {
                        base_uri: OneOf::Right(text::path_to_uri(root)),
                        pattern: "**/*.json".to_string(),
                    }),
                    kind: None,
                })
                .collect()
        } else {
            vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String("**/*.json".to_string()),
                kind: None,
            }]
        };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: WATCH_REGISTRATION.to_string(),
                method: DidChangeWatchedFiles::METHOD.to_string(),
                register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
                    watchers,
                })
                .ok(),
            }],
        };
        self.send(Message::Request(Request::new(
            lsp_server::RequestId::from(WATCH_REGISTRATION.to_string()),
            request::RegisterCapability::METHOD.to_string(),
            params,
        )));
    }

    fn notification(&mut self, n: Notification) {
        let path_of = |uri: &Uri| text::uri_to_path(uri);
        match n.method.as_str() {
            Initialized::METHOD => self.register_watchers(),
            DidChangeWatchedFiles::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidChangeWatchedFilesParams>(n.params) {
                    let (mut changed, mut other) = (Vec::new(), Vec::new());
                    for c in p.changes {
                        let Some(path) = path_of(&c.uri) else {
                            continue;
                        };
                        if !self.ws.in_workspace(&path) {
                            continue;
                        }
                        if c.typ == FileChangeType::CHANGED {
                            changed.push(path);
                        } else {
                            other.push(path);
                        }
                    }
                    if !changed.is_empty() || !other.is_empty() {
                        self.ws.files_changed(&changed, &other);
                        self.publish();
                    }
                }
            }
            DidOpenTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) {
                    if let Some(path) = path_of(&p.text_document.uri) {
                        self.ws.stage_text(&path, p.text_document.text);
                    }
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) {
                    // Full sync: the last change holds the whole text.
                    if let (Some(path), Some(change)) = (
                        path_of(&p.text_document.uri),
                        p.content_changes.into_iter().last(),
                    ) {
                        self.ws.stage_text(&path, change.text);
                    }
                }
            }
            DidSaveTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidSaveTextDocumentParams>(n.params) {
                    if let Some(path) = path_of(&p.text_document.uri) {
                        if let Some(text) = p.text {
                            self.ws.stage_text(&path, text);
                        }
                        self.ws.saved(&path);
                        self.publish();
                    }
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) {
                    if let Some(path) = path_of(&p.text_document.uri) {
                        self.ws.stage_close(&path);
                    }
                }
            }
            _ => {}
        }
    }

    fn request(&mut self, req: Request) {
        let id = req.id.clone();
        let result = self.answer(req);
        let response = match result {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        };
        self.send(Message::Response(response));
    }

    fn answer(&mut self, req: Request) -> Result<serde_json::Value, (ErrorCode, String)> {
        fn params<P: serde::de::DeserializeOwned>(req: Request) -> Result<P, (ErrorCode, String)> {
            serde_json::from_value(req.params)
                .map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
        }
        fn json<T: serde::Serialize>(v: T) -> Result<serde_json::Value, (ErrorCode, String)> {
            serde_json::to_value(v).map_err(|e| (ErrorCode::InternalError, e.to_string()))
        }
        let ws = &self.ws;
        match req.method.as_str() {
            HoverRequest::METHOD => json(requests::hover::hover(ws, &params(req)?)),
            Completion::METHOD => json(requests::completion::completion(ws, &params(req)?)),
            SignatureHelpRequest::METHOD => {
                json(requests::signature_help::signature_help(ws, &params(req)?))
            }
            GotoDefinition::METHOD => json(requests::definition::definition(ws, &params(req)?)),
            References::METHOD => json(requests::references::references(ws, &params(req)?)),
            PrepareRenameRequest::METHOD => {
                match requests::rename::prepare_rename(ws, &params(req)?) {
                    Ok(r) => json(r),
                    Err(message) => Err((ErrorCode::RequestFailed, message)),
                }
            }
            Rename::METHOD => match requests::rename::rename(ws, &params(req)?) {
                Ok(edit) => json(edit),
                Err(message) => Err((ErrorCode::RequestFailed, message)),
            },
            Formatting::METHOD => {
                let p: DocumentFormattingParams = params(req)?;
                json(requests::formatting::formatting(
                    ws,
                    &p.text_document.uri,
                    None,
                ))
            }
            RangeFormatting::METHOD => {
                let p: DocumentRangeFormattingParams = params(req)?;
                json(requests::formatting::formatting(
                    ws,
                    &p.text_document.uri,
                    Some(p.range),
                ))
            }
            CodeActionRequest::METHOD => json(actions::code_actions(ws, &params(req)?)),
            InlayHintRequest::METHOD => json(actions::inlay_hints(ws, &params(req)?)),
            DocumentSymbolRequest::METHOD => {
                let p: DocumentSymbolParams = params(req)?;
                json(requests::symbols::symbols(ws, &p.text_document.uri))
            }
            SemanticTokensFullRequest::METHOD => {
                let p: SemanticTokensParams = params(req)?;
                json(requests::semantic_tokens::semantic_tokens(
                    ws,
                    &p.text_document.uri,
                ))
            }
            other => Err((
                ErrorCode::MethodNotFound,
                format!("`{other}` is not supported"),
            )),
        }
    }
}
