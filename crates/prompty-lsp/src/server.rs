//! The protocol loop: documents in, diagnostics out (debounced, on a worker thread), and the
//! requests answered from the features. A panic in any handler is caught and answered as an
//! LSP error; the server keeps running.

use std::collections::HashMap;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CompletionParams, CompletionResponse,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams, DocumentFormattingParams,
    ExecuteCommandParams, GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams, Location,
    MarkupContent, MarkupKind, PublishDiagnosticsParams, TextEdit, Uri, WorkspaceEdit,
};
use serde_json::Value;

use crate::analysis::{Analysis, Workspace};
use crate::{Error, actions, completion, definition, diagnostics, hints, hover, preview, references, symbols, uri};

/// How the server runs.
#[derive(Clone)]
pub struct Options {
    /// Files, environment, `prompty.toml`.
    pub workspace: Workspace,
    /// How long a document must stay unchanged before it is checked again.
    pub debounce: Duration,
    /// The address of the `docs/` folder (ending with `/`); diagnostics link to
    /// `rules.md#<code>-<name>` or `diagnostics.md#<code>-<name>` in it. Empty: no links
    /// (`prompty rule CODE` prints a code's documentation offline).
    pub docs_url: String,
    /// Makes the handler of this method panic (to test that a panic never ends the server).
    #[doc(hidden)]
    pub panic_on: Option<String>,
}

impl Options {
    /// The defaults for `workspace`: a 75 ms debounce, the project's published rule docs.
    pub fn new(workspace: Workspace) -> Self {
        Self {
            workspace,
            debounce: Duration::from_millis(75),
            docs_url: diagnostics::DEFAULT_DOCS_URL.to_owned(),
            panic_on: None,
        }
    }
}

/// The longest a document waits for its diagnostics while it keeps changing.
const MAX_WAIT_FACTOR: u32 = 8;

/// An open document.
struct Doc {
    text: Arc<str>,
    version: i32,
    path: Option<PathBuf>,
    /// The analysis of this version, once made.
    analysis: Option<Arc<Analysis>>,
    /// Why the editor's text is not known (a change could not be read), until a full text
    /// arrives.
    unreadable: Option<String>,
}

impl Doc {
    /// Why requests on this document are refused: the server's copy is out of date.
    fn out_of_date(&self) -> Option<String> {
        self.unreadable.as_ref().map(|reason| {
            format!(
                "the server's copy of this file is out of date: the editor's last change could not be read ({reason}); close and reopen the file"
            )
        })
    }
}

/// What the main loop and the worker share.
#[derive(Default)]
struct Docs {
    open: HashMap<Uri, Doc>,
}

fn lock(docs: &Mutex<Docs>) -> MutexGuard<'_, Docs> {
    // A panic never happens while the lock is held (handlers run outside it); recover anyway.
    docs.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A request's failure: an LSP error code and a message.
struct Failure(ErrorCode, String);

impl Failure {
    fn params(e: impl std::fmt::Display) -> Self {
        Failure(ErrorCode::InvalidParams, e.to_string())
    }
}

/// The capabilities the server announces.
pub fn capabilities() -> Value {
    serde_json::json!({
        "positionEncoding": "utf-16",
        "textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
        "hoverProvider": true,
        "completionProvider": {"triggerCharacters": [".", "{", "#", ":", " "]},
        "definitionProvider": true,
        "codeActionProvider": {"codeActionKinds": ["quickfix", "source.fixAll"]},
        "executeCommandProvider": {"commands": [preview::COMMAND]},
        "documentFormattingProvider": true,
        "documentSymbolProvider": true,
        "foldingRangeProvider": true,
        "inlayHintProvider": true,
        "referencesProvider": true,
        "renameProvider": {"prepareProvider": true},
        "semanticTokensProvider": {
            "legend": {"tokenTypes": symbols::TOKEN_TYPES, "tokenModifiers": []},
            "full": true
        }
    })
}

/// Settings a client may pass as `initializationOptions`:
/// `{"allowRoots": [...], "config": "path/prompty.toml", "debounceMs": 75, "docsUrl": "..."}`
/// (`rulesUrl`, the address of `rules.md`, names the same folder).
/// Relative paths are relative to the workspace's root folder.
fn apply_settings(options: &mut Options, params: &Value) {
    let root = params
        .get("rootUri")
        .and_then(Value::as_str)
        .and_then(|u| Uri::from_str(u).ok())
        .and_then(|u| uri::to_path(&u))
        .or_else(|| params.get("rootPath").and_then(Value::as_str).map(PathBuf::from));
    let resolve = |p: &str| match &root {
        Some(r) if !std::path::Path::new(p).is_absolute() => r.join(p),
        _ => PathBuf::from(p),
    };
    let Some(settings) = params.get("initializationOptions") else { return };
    if let Some(roots) = settings.get("allowRoots").and_then(Value::as_array) {
        options.workspace.allowed_roots.extend(roots.iter().filter_map(Value::as_str).map(resolve));
    }
    if let Some(config) = settings.get("config").and_then(Value::as_str) {
        options.workspace.config = Some(resolve(config));
    }
    if let Some(ms) = settings.get("debounceMs").and_then(Value::as_u64) {
        options.debounce = Duration::from_millis(ms.min(10_000));
    }
    let rules =
        settings.get("rulesUrl").and_then(Value::as_str).map(|u| u.trim_end_matches('#').trim_end_matches("rules.md"));
    if let Some(url) = settings.get("docsUrl").and_then(Value::as_str).or(rules) {
        let url = url.trim_end_matches('#');
        // Only an absolute address: a relative link resolves against nothing in the editor.
        options.docs_url = match url {
            u if !u.contains("://") => String::new(),
            u if u.ends_with('/') => u.to_owned(),
            u => format!("{u}/"),
        };
    }
}

/// Runs the server on `connection` until the client sends `exit` (or goes away).
///
/// Before `initialize`, requests are answered with `ServerNotInitialized` and notifications
/// are dropped; a second `initialize` is answered with `InvalidRequest`; after `shutdown`,
/// requests are answered with `InvalidRequest` until `exit`. None of them ends the session.
pub fn run(connection: &Connection, mut options: Options) -> Result<(), Error> {
    let Some((id, params)) = wait_for_initialize(connection)? else { return Ok(()) };
    apply_settings(&mut options, &params);
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": {"name": "prompty", "version": env!("CARGO_PKG_VERSION")},
    });
    connection
        .sender
        .send(Response::new_ok(id, result).into())
        .map_err(|_| Error("the client closed the connection during `initialize`".to_owned()))?;

    let docs = Arc::new(Mutex::new(Docs::default()));
    let (jobs, job_rx) = crossbeam_channel::unbounded::<Job>();
    let worker = spawn_worker(job_rx, Arc::clone(&docs), connection.sender.clone(), options.clone())?;
    let mut server = Server {
        options,
        docs,
        jobs,
        pending: HashMap::new(),
        last_change: HashMap::new(),
        sender: connection.sender.clone(),
        shut_down: false,
    };
    let outcome = server.main_loop(connection);
    drop(server);
    let _ = worker.join();
    outcome
}

/// The `initialize` request's id and parameters; `None` when the client sent `exit` first.
fn wait_for_initialize(connection: &Connection) -> Result<Option<(lsp_server::RequestId, Value)>, Error> {
    loop {
        let Ok(message) = connection.receiver.recv() else {
            return Err(Error("the client closed the connection before `initialize`".to_owned()));
        };
        match message {
            Message::Request(req) if req.method == lsp_types::request::Initialize::METHOD => {
                return Ok(Some((req.id, req.params)));
            }
            Message::Request(req) => {
                let message = format!("prompty: `{}` before `initialize`; send `initialize` first", req.method);
                let answer = Response::new_err(req.id, ErrorCode::ServerNotInitialized as i32, message);
                let _ = connection.sender.send(answer.into());
            }
            Message::Notification(n) if n.method == lsp_types::notification::Exit::METHOD => return Ok(None),
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
}

/// A document to check: its URI and the version the check is for.
struct Job {
    uri: Uri,
    version: i32,
}

struct Server {
    options: Options,
    docs: Arc<Mutex<Docs>>,
    jobs: Sender<Job>,
    /// Documents waiting to be checked: when they changed first, and when to check them.
    pending: HashMap<Uri, (Instant, Instant)>,
    /// When each document last changed.
    last_change: HashMap<Uri, Instant>,
    sender: Sender<Message>,
    /// `shutdown` was answered: only `exit` is left.
    shut_down: bool,
}

impl Server {
    fn main_loop(&mut self, connection: &Connection) -> Result<(), Error> {
        loop {
            let next = self.pending.values().map(|(_, at)| *at).min();
            let msg = match next {
                None => match connection.receiver.recv() {
                    Ok(m) => Some(m),
                    Err(_) => return Ok(()),
                },
                Some(at) => match connection.receiver.recv_timeout(at.saturating_duration_since(Instant::now())) {
                    Ok(m) => Some(m),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return Ok(()),
                },
            };
            match msg {
                Some(Message::Request(req)) => {
                    let response = self.request(req);
                    self.send(response.into());
                }
                Some(Message::Notification(n)) if n.method == lsp_types::notification::Exit::METHOD => return Ok(()),
                Some(Message::Notification(_)) if self.shut_down => {}
                Some(Message::Notification(n)) => self.notification(n),
                Some(Message::Response(_)) | None => {}
            }
            self.flush_due();
        }
    }

    fn send(&self, message: Message) {
        let _ = self.sender.send(message);
    }

    /// Hands the documents whose wait is over to the worker.
    fn flush_due(&mut self) {
        let now = Instant::now();
        let due: Vec<Uri> = self.pending.iter().filter(|(_, (_, at))| *at <= now).map(|(u, _)| u.clone()).collect();
        for uri in due {
            self.pending.remove(&uri);
            let version = lock(&self.docs).open.get(&uri).map(|d| d.version);
            if let Some(version) = version {
                let _ = self.jobs.send(Job { uri, version });
            }
        }
    }

    /// Checks `uri` now when `immediately` or when it changes after a quiet spell (no change
    /// for the debounce time: a single edit is answered at once), else once the changes pause
    /// for the debounce time (a burst of edits is checked once, at its end), but never later
    /// than `MAX_WAIT_FACTOR` debounce times after the first change waiting.
    fn schedule(&mut self, uri: Uri, immediately: bool) {
        let now = Instant::now();
        let debounce = self.options.debounce;
        let quiet = self.last_change.get(&uri).is_none_or(|t| now.duration_since(*t) >= debounce);
        self.last_change.insert(uri.clone(), now);
        let wait = if immediately || (quiet && !self.pending.contains_key(&uri)) { Duration::ZERO } else { debounce };
        let (first, _) = self.pending.get(&uri).copied().unwrap_or((now, now));
        let latest = first + debounce * MAX_WAIT_FACTOR;
        self.pending.insert(uri, (first, (now + wait).min(latest)));
    }

    fn notification(&mut self, n: Notification) {
        let method = n.method.clone();
        let outcome = catch_unwind(AssertUnwindSafe(|| self.handle_notification(n)));
        let problem = match outcome {
            Ok(Ok(())) => return,
            Ok(Err(Failure(_, message))) => message,
            Err(panic) => format!("internal error (the server keeps running): {}", panic_message(&panic)),
        };
        self.log(&format!("{method}: {problem}"));
    }

    fn log(&self, message: &str) {
        let params = serde_json::json!({"type": 1, "message": format!("prompty: {message}")});
        self.send(Notification::new(lsp_types::notification::LogMessage::METHOD.to_owned(), params).into());
    }

    fn handle_notification(&mut self, n: Notification) -> Result<(), Failure> {
        if self.options.panic_on.as_deref() == Some(n.method.as_str()) {
            panic!("injected panic in {}", n.method);
        }
        use lsp_types::notification as n_;
        match n.method.as_str() {
            n_::DidOpenTextDocument::METHOD => {
                let p: DidOpenTextDocumentParams = serde_json::from_value(n.params).map_err(Failure::params)?;
                let doc = p.text_document;
                let path = uri::to_path(&doc.uri);
                lock(&self.docs).open.insert(
                    doc.uri.clone(),
                    Doc { text: Arc::from(doc.text), version: doc.version, path, analysis: None, unreadable: None },
                );
                self.schedule(doc.uri, true);
            }
            n_::DidChangeTextDocument::METHOD => {
                let p: DidChangeTextDocumentParams = serde_json::from_value(n.params).map_err(Failure::params)?;
                let uri = p.text_document.uri;
                let current = lock(&self.docs).open.get(&uri).map(|d| (Arc::clone(&d.text), d.unreadable.clone()));
                let Some(current) = current else {
                    return Err(Failure::params(format!("{} is not open", uri.as_str())));
                };
                let (current, mut unreadable) = current;
                let mut text = current.to_string();
                for change in p.content_changes {
                    match change.range {
                        None => {
                            text = change.text;
                            unreadable = None;
                        }
                        // A range into a text that is out of date would be applied at the
                        // wrong place: wait for a full text.
                        Some(_) if unreadable.is_some() => {}
                        Some(range) => {
                            let index = crate::position::LineIndex::new(&text);
                            let bytes = index.byte_range(&text, range);
                            text.replace_range(bytes, &change.text);
                        }
                    }
                }
                if let Some(doc) = lock(&self.docs).open.get_mut(&uri) {
                    doc.text = Arc::from(text);
                    doc.version = p.text_document.version;
                    doc.analysis = None;
                    doc.unreadable = unreadable;
                }
                self.schedule(uri, false);
            }
            n_::DidCloseTextDocument::METHOD => {
                let p: DidCloseTextDocumentParams = serde_json::from_value(n.params).map_err(Failure::params)?;
                let uri = p.text_document.uri;
                self.pending.remove(&uri);
                self.last_change.remove(&uri);
                let mut docs = lock(&self.docs);
                docs.open.remove(&uri);
                // Under the lock: the worker cannot publish for this document afterwards.
                self.send(publish(uri, Vec::new(), None));
                drop(docs);
            }
            crate::transport::UNREADABLE_TEXT => {
                let uri = n.params.get("uri").and_then(Value::as_str).and_then(|u| Uri::from_str(u).ok());
                let Some(uri) = uri else { return Ok(()) };
                let reason = n.params.get("reason").and_then(Value::as_str).unwrap_or("unreadable").to_owned();
                let path = uri::to_path(&uri);
                let opened = n.params.get("method").and_then(Value::as_str) == Some(n_::DidOpenTextDocument::METHOD);
                let mut docs = lock(&self.docs);
                if opened {
                    let doc = Doc { text: Arc::from(""), version: 0, path, analysis: None, unreadable: None };
                    docs.open.insert(uri.clone(), doc);
                }
                // A change to a document that is not open changes nothing.
                let Some(doc) = docs.open.get_mut(&uri) else { return Ok(()) };
                doc.unreadable = Some(reason);
                doc.analysis = None;
                drop(docs);
                self.schedule(uri, true);
            }
            // A saved file may be a `prompty.toml` or a `${file:}` target: check everything again.
            n_::DidSaveTextDocument::METHOD
            | n_::DidChangeWatchedFiles::METHOD
            | n_::DidChangeConfiguration::METHOD => {
                let uris: Vec<Uri> = {
                    let mut docs = lock(&self.docs);
                    docs.open.values_mut().for_each(|d| d.analysis = None);
                    docs.open.keys().cloned().collect()
                };
                for uri in uris {
                    self.schedule(uri, false);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let method = req.method.clone();
        match catch_unwind(AssertUnwindSafe(|| self.handle_request(req))) {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err(Failure(code, message))) => Response::new_err(id, code as i32, message),
            Err(panic) => {
                let message = format!(
                    "prompty: internal error in {method} (the server keeps running): {}",
                    panic_message(&panic)
                );
                Response::new_err(id, ErrorCode::InternalError as i32, message)
            }
        }
    }

    /// The analysis of an open document's current text (made now if the worker has not yet).
    fn analysis(&self, uri: &Uri) -> Result<Arc<Analysis>, Failure> {
        let (text, version, path) = {
            let docs = lock(&self.docs);
            let doc = docs.open.get(uri).ok_or_else(|| Failure::params(format!("{} is not open", uri.as_str())))?;
            if let Some(problem) = doc.out_of_date() {
                return Err(Failure(ErrorCode::RequestFailed, format!("prompty: {problem}")));
            }
            if let Some(a) = &doc.analysis {
                return Ok(Arc::clone(a));
            }
            (Arc::clone(&doc.text), doc.version, doc.path.clone())
        };
        let analysis = Arc::new(Analysis::new(&self.options.workspace, text, path));
        if let Some(doc) = lock(&self.docs).open.get_mut(uri).filter(|d| d.version == version) {
            doc.analysis = Some(Arc::clone(&analysis));
        }
        Ok(analysis)
    }

    fn handle_request(&mut self, req: Request) -> Result<Value, Failure> {
        if self.options.panic_on.as_deref() == Some(req.method.as_str()) {
            panic!("injected panic in {}", req.method);
        }
        use lsp_types::request as r;
        if self.shut_down {
            return Err(Failure(
                ErrorCode::InvalidRequest,
                format!("prompty: `{}` after `shutdown`; the server only waits for `exit`", req.method),
            ));
        }
        match req.method.as_str() {
            r::Initialize::METHOD => {
                return Err(Failure(
                    ErrorCode::InvalidRequest,
                    "prompty: the server is already initialized; `initialize` is sent once per session".to_owned(),
                ));
            }
            r::Shutdown::METHOD => {
                self.shut_down = true;
                return Ok(Value::Null);
            }
            _ => {}
        }
        let to_value =
            |v: Result<Value, serde_json::Error>| v.map_err(|e| Failure(ErrorCode::InternalError, e.to_string()));
        match req.method.as_str() {
            r::HoverRequest::METHOD => {
                let p: HoverParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                let tdp = p.text_document_position_params;
                let a = self.analysis(&tdp.text_document.uri)?;
                let s = &a.snapshot;
                let offset = s.index.offset(&s.text, tdp.position);
                let hover = hover::hover(s, offset).map(|h| Hover {
                    contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown }),
                    range: Some(s.index.range(&s.text, h.range)),
                });
                to_value(serde_json::to_value(hover))
            }
            r::Completion::METHOD => {
                let p: CompletionParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                let tdp = p.text_document_position;
                let a = self.analysis(&tdp.text_document.uri)?;
                let s = &a.snapshot;
                let items = completion::complete(s, s.index.offset(&s.text, tdp.position));
                to_value(serde_json::to_value(CompletionResponse::Array(items)))
            }
            r::GotoDefinition::METHOD => {
                let p: GotoDefinitionParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                let tdp = p.text_document_position_params;
                let a = self.analysis(&tdp.text_document.uri)?;
                let s = &a.snapshot;
                let offset = s.index.offset(&s.text, tdp.position);
                let host = self.options.workspace.host.as_ref();
                let location = definition::definition(s, host, offset).and_then(|t| match t {
                    definition::Target::Here(span) => {
                        Some(Location { uri: tdp.text_document.uri.clone(), range: s.index.range(&s.text, span) })
                    }
                    definition::Target::File(path) => {
                        Some(Location { uri: uri::from_path(&path)?, range: lsp_types::Range::default() })
                    }
                });
                to_value(serde_json::to_value(location.map(GotoDefinitionResponse::Scalar)))
            }
            r::CodeActionRequest::METHOD => {
                let p: CodeActionParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                to_value(serde_json::to_value(self.code_actions(p)?))
            }
            r::ExecuteCommand::METHOD => {
                let p: ExecuteCommandParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                self.execute(p)
            }
            r::DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                let a = self.analysis(&p.text_document.uri)?;
                let s = &a.snapshot;
                let list: Vec<lsp_types::DocumentSymbol> = symbols::symbols(s).iter().map(|x| x.to_lsp(s)).collect();
                to_value(serde_json::to_value(lsp_types::DocumentSymbolResponse::Nested(list)))
            }
            r::InlayHintRequest::METHOD => {
                let p: lsp_types::InlayHintParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                let a = self.analysis(&p.text_document.uri)?;
                let s = &a.snapshot;
                let hints: Vec<lsp_types::InlayHint> = hints::token_hints(s)
                    .into_iter()
                    .map(|h| lsp_types::InlayHint {
                        position: s.index.position(&s.text, h.offset),
                        label: lsp_types::InlayHintLabel::String(h.label),
                        kind: None,
                        text_edits: None,
                        tooltip: Some(lsp_types::InlayHintTooltip::String(h.tooltip)),
                        padding_left: Some(true),
                        padding_right: None,
                        data: None,
                    })
                    .filter(|h| p.range.start <= h.position && h.position <= p.range.end)
                    .collect();
                to_value(serde_json::to_value(hints))
            }
            r::FoldingRangeRequest::METHOD => {
                let p: lsp_types::FoldingRangeParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                let a = self.analysis(&p.text_document.uri)?;
                to_value(serde_json::to_value(symbols::folding_ranges(&a.snapshot)))
            }
            r::SemanticTokensFullRequest::METHOD => {
                let p: lsp_types::SemanticTokensParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                let a = self.analysis(&p.text_document.uri)?;
                let data = symbols::semantic_tokens(&a.snapshot);
                to_value(serde_json::to_value(lsp_types::SemanticTokens { result_id: None, data }))
            }
            r::References::METHOD => {
                let p: lsp_types::ReferenceParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                let tdp = p.text_document_position;
                let a = self.analysis(&tdp.text_document.uri)?;
                let s = &a.snapshot;
                let offset = s.index.offset(&s.text, tdp.position);
                let found = references::input_at(s, offset).map(|(name, _)| {
                    references::references(s, &name, p.context.include_declaration)
                        .into_iter()
                        .map(|span| Location {
                            uri: tdp.text_document.uri.clone(),
                            range: s.index.range(&s.text, span),
                        })
                        .collect::<Vec<_>>()
                });
                to_value(serde_json::to_value(found))
            }
            r::PrepareRenameRequest::METHOD => {
                let p: lsp_types::TextDocumentPositionParams =
                    serde_json::from_value(req.params).map_err(Failure::params)?;
                let a = self.analysis(&p.text_document.uri)?;
                let s = &a.snapshot;
                let offset = s.index.offset(&s.text, p.position);
                let range = references::input_at(s, offset).map(|(_, span)| s.index.range(&s.text, span));
                to_value(serde_json::to_value(range))
            }
            r::Rename::METHOD => {
                let p: lsp_types::RenameParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                let tdp = p.text_document_position;
                let uri = tdp.text_document.uri;
                let a = self.analysis(&uri)?;
                let s = &a.snapshot;
                let offset = s.index.offset(&s.text, tdp.position);
                let edits = references::rename(s, offset, &p.new_name)
                    .map_err(|e| Failure(ErrorCode::RequestFailed, format!("prompty: {e}")))?;
                let edits: Vec<TextEdit> = edits
                    .into_iter()
                    .map(|(span, new_text)| TextEdit { range: s.index.range(&s.text, span), new_text })
                    .collect();
                let edit = WorkspaceEdit { changes: Some(HashMap::from([(uri, edits)])), ..WorkspaceEdit::default() };
                to_value(serde_json::to_value(edit))
            }
            r::Formatting::METHOD => {
                let p: DocumentFormattingParams = serde_json::from_value(req.params).map_err(Failure::params)?;
                to_value(serde_json::to_value(self.format(&p.text_document.uri)?))
            }
            other => Err(Failure(ErrorCode::MethodNotFound, format!("prompty: no handler for {other}"))),
        }
    }

    fn code_actions(&self, p: CodeActionParams) -> Result<Vec<CodeActionOrCommand>, Failure> {
        let uri = p.text_document.uri;
        let a = self.analysis(&uri)?;
        let s = &a.snapshot;
        let range = s.index.byte_range(&s.text, p.range);
        let wanted = |kind: &CodeActionKind| {
            p.context.only.as_ref().is_none_or(|only| only.iter().any(|o| kind.as_str().starts_with(o.as_str())))
        };
        let mut out = Vec::new();
        for action in actions::actions(&a, &self.options.workspace, range) {
            let kind = match action.kind {
                actions::Kind::QuickFix => CodeActionKind::QUICKFIX,
                actions::Kind::FixAll => CodeActionKind::SOURCE_FIX_ALL,
            };
            if !wanted(&kind) {
                continue;
            }
            let edits: Vec<TextEdit> = action
                .edits
                .iter()
                .map(|(span, new_text)| TextEdit {
                    range: s.index.range(&s.text, span.clone()),
                    new_text: new_text.clone(),
                })
                .collect();
            let diagnostics =
                actions::finding_of(&a, &action).map(|f| vec![diagnostics::to_lsp(&a, f, &self.options.docs_url)]);
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: action.title,
                kind: Some(kind),
                diagnostics,
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), edits)])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: action.preferred.then_some(true),
                ..CodeAction::default()
            }));
        }
        Ok(out)
    }

    /// `prompty.render`: arguments `[uri]`, `[uri, inputs]` or `[{"uri": ..., "inputs": {...}}]`.
    fn execute(&self, p: ExecuteCommandParams) -> Result<Value, Failure> {
        if p.command != preview::COMMAND {
            return Err(Failure::params(format!(
                "unknown command `{}`; the server has `{}`",
                p.command,
                preview::COMMAND
            )));
        }
        let first = p.arguments.first().ok_or_else(|| Failure::params("prompty.render takes the document's URI"))?;
        let (uri_text, inputs) = match first {
            Value::String(u) => (u.clone(), p.arguments.get(1).cloned()),
            Value::Object(o) => {
                (o.get("uri").and_then(Value::as_str).unwrap_or_default().to_owned(), o.get("inputs").cloned())
            }
            _ => return Err(Failure::params("prompty.render takes the document's URI")),
        };
        let uri = Uri::from_str(&uri_text).map_err(|e| Failure::params(format!("`{uri_text}`: {e}")))?;
        let inputs = match inputs {
            None | Some(Value::Null) => serde_json::Map::new(),
            Some(Value::Object(o)) => o,
            Some(_) => return Err(Failure::params("prompty.render: `inputs` must be an object of input values")),
        };
        let analysis = match self.analysis(&uri) {
            Ok(a) => a,
            // A file that is not open is read from disk.
            Err(_) => {
                let path = uri::to_path(&uri).ok_or_else(|| Failure::params(format!("{uri_text} is not open")))?;
                let bytes = self
                    .options
                    .workspace
                    .host
                    .read(&path)
                    .map_err(|e| Failure(ErrorCode::RequestFailed, format!("{}: {e}", path.display())))?;
                let text = String::from_utf8(bytes)
                    .map_err(|_| Failure(ErrorCode::RequestFailed, format!("{}: not UTF-8 text", path.display())))?;
                Arc::new(Analysis::new(&self.options.workspace, Arc::from(text), Some(path)))
            }
        };
        preview::render(&analysis.snapshot, &inputs).map_err(|e| Failure(ErrorCode::RequestFailed, e))
    }

    /// The edits `prompty fmt` would make, as one replacement of the changed region.
    fn format(&self, uri: &Uri) -> Result<Vec<TextEdit>, Failure> {
        let a = self.analysis(uri)?;
        let s = &a.snapshot;
        let options = self.options.workspace.load_options(s.path.as_deref());
        let formatted = prompty_lint::fmt::format(&s.text, self.options.workspace.host.as_ref(), &options);
        for note in &formatted.kept {
            self.log(note);
        }
        let Some(new) = formatted.text else { return Ok(Vec::new()) };
        let (old_range, new_range) = changed_region(&s.text, &new);
        Ok(vec![TextEdit {
            range: s.index.range(&s.text, old_range),
            new_text: new.get(new_range).unwrap_or_default().to_owned(),
        }])
    }
}

/// The smallest region of `old` that, replaced by a region of `new`, gives `new`: both ranges,
/// on character boundaries.
pub fn changed_region(old: &str, new: &str) -> (Range<usize>, Range<usize>) {
    let mut prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old.bytes().rev().zip(new.bytes().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    (prefix..old.len() - suffix, prefix..new.len() - suffix)
}

fn publish(uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) -> Message {
    let params = PublishDiagnosticsParams { uri, diagnostics, version };
    Notification::new(lsp_types::notification::PublishDiagnostics::METHOD.to_owned(), params).into()
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_owned()
    }
}

fn spawn_worker(
    jobs: Receiver<Job>,
    docs: Arc<Mutex<Docs>>,
    sender: Sender<Message>,
    options: Options,
) -> Result<JoinHandle<()>, Error> {
    std::thread::Builder::new()
        .name("prompty-lsp-diagnostics".to_owned())
        .spawn(move || {
            while let Ok(first) = jobs.recv() {
                // Only the newest job per document matters.
                let mut latest: Vec<Job> = Vec::new();
                for job in std::iter::once(first).chain(jobs.try_iter()) {
                    latest.retain(|j| j.uri != job.uri);
                    latest.push(job);
                }
                for job in latest {
                    check(&job, &docs, &sender, &options);
                }
            }
        })
        .map_err(|e| Error(format!("cannot start the diagnostics thread: {e}")))
}

/// Checks one document and publishes its diagnostics, unless it changed or closed meanwhile.
fn check(job: &Job, docs: &Mutex<Docs>, sender: &Sender<Message>, options: &Options) {
    let current = lock(docs)
        .open
        .get(&job.uri)
        .filter(|d| d.version == job.version)
        .map(|d| (Arc::clone(&d.text), d.path.clone(), d.analysis.clone(), d.out_of_date()));
    let Some((text, path, cached, out_of_date)) = current else { return };
    if let Some(problem) = out_of_date {
        let d = lsp_types::Diagnostic {
            severity: Some(lsp_types::DiagnosticSeverity::ERROR),
            source: Some(diagnostics::SOURCE.to_owned()),
            message: problem,
            ..lsp_types::Diagnostic::default()
        };
        let guard = lock(docs);
        if guard.open.get(&job.uri).is_some_and(|d| d.version == job.version && d.unreadable.is_some()) {
            let _ = sender.send(publish(job.uri.clone(), vec![d], Some(job.version)));
        }
        drop(guard);
        return;
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let analysis = cached.unwrap_or_else(|| Arc::new(Analysis::new(&options.workspace, text, path)));
        let diagnostics = diagnostics::all(&analysis, &options.docs_url);
        (analysis, diagnostics)
    }));
    let (analysis, diagnostics) = match outcome {
        Ok(done) => (Some(done.0), done.1),
        Err(panic) => {
            let message = format!(
                "prompty: internal error while checking this file (the server keeps running): {}",
                panic_message(&panic)
            );
            let d = lsp_types::Diagnostic {
                severity: Some(lsp_types::DiagnosticSeverity::ERROR),
                source: Some(diagnostics::SOURCE.to_owned()),
                message,
                ..lsp_types::Diagnostic::default()
            };
            (None, vec![d])
        }
    };
    let mut guard = lock(docs);
    let Some(doc) = guard.open.get_mut(&job.uri).filter(|d| d.version == job.version) else { return };
    if let Some(a) = analysis {
        doc.analysis = Some(a);
    }
    // Under the lock: a close cannot slip in between the check and the send.
    let _ = sender.send(publish(job.uri.clone(), diagnostics, Some(job.version)));
    drop(guard);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_regions() {
        assert_eq!(changed_region("abcdef", "abXdef"), (2..3, 2..3));
        assert_eq!(changed_region("abc", "abc"), (3..3, 3..3));
        assert_eq!(changed_region("aaa", "aaaa"), (3..3, 3..4));
        // é and è share their first byte: the region starts at the character.
        assert_eq!(changed_region("xé", "xè"), (1..3, 1..3));
    }
}
