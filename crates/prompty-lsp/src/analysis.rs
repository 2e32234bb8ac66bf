//! One document as the features see it: its text, where it lives, the loaded prompt, the
//! front matter as written, and (for diagnostics and fixes) the findings `prompty check`
//! reports for it.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use prompty_lint::{Finding, Selection};
use prompty_syntax::yaml::Node;
use prompty_syntax::{Host, LoadOptions, Loaded, Profile, Prompt};

use crate::position::LineIndex;

/// What the server reads through, and how it loads files. The CLI passes the real file
/// system; tests pass a [`MapHost`](prompty_syntax::MapHost).
#[derive(Clone)]
pub struct Workspace {
    /// Files (`${file:}` targets, `prompty.toml`) and environment variables.
    pub host: Arc<dyn Host + Send + Sync>,
    /// Further folders `${file:}` references may read from (`--allow-root`).
    pub allowed_roots: Vec<PathBuf>,
    /// A configuration file to use for every document instead of the nearest `prompty.toml`
    /// (`prompty check --config`).
    pub config: Option<PathBuf>,
}

impl Workspace {
    /// A workspace reading through `host`, with no extra roots and `prompty.toml` found
    /// next to each document.
    pub fn new(host: Arc<dyn Host + Send + Sync>) -> Self {
        Self { host, allowed_roots: Vec::new(), config: None }
    }

    /// The options `prompty check` loads `path` with.
    pub fn load_options(&self, path: Option<&Path>) -> LoadOptions {
        LoadOptions {
            path: path.map(Path::to_path_buf),
            allowed_roots: self.allowed_roots.clone(),
            lint: true,
            ..LoadOptions::default()
        }
    }

    /// Loads a document's text as `prompty check` does.
    pub fn load(&self, text: &str, path: Option<&Path>) -> Loaded {
        prompty_syntax::load_bytes(text.as_bytes(), self.host.as_ref(), &self.load_options(path))
    }

    /// The codes to report for `path`, from its `prompty.toml`; a broken configuration is
    /// reported and everything is selected.
    pub fn selection(&self, path: Option<&Path>) -> (Selection, Option<ConfigProblem>) {
        let Some(path) = path else { return (Selection::all(), None) };
        let mut configs = prompty_config::Configs::default();
        match configs.selection(path, self.config.as_deref(), self.host.as_ref()) {
            Ok(s) => (s, None),
            Err(error) => {
                let range = error.span().and_then(|span| {
                    let text = self.host.read_to_string(error.path()).ok()?;
                    Some(crate::position::LineIndex::new(&text).range(&text, span))
                });
                (Selection::all(), Some(ConfigProblem { error, range }))
            }
        }
    }
}

/// A loaded document.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The text as the editor has it.
    pub text: Arc<str>,
    /// The file's path, for `file:` documents.
    pub path: Option<PathBuf>,
    /// Line starts, for LSP positions.
    pub index: LineIndex,
    /// What the loader made of the text.
    pub loaded: Loaded,
    /// The front matter's byte span (between the fences), when the file has one.
    pub front_span: Option<Range<usize>>,
    /// The body's byte span.
    pub body_span: Range<usize>,
}

impl Snapshot {
    /// Loads `text`.
    pub fn new(workspace: &Workspace, text: Arc<str>, path: Option<PathBuf>) -> Self {
        let loaded = workspace.load(&text, path.as_deref());
        let index = LineIndex::new(&text);
        let document = loaded.document.as_ref();
        let front_span = document.and_then(|d| d.front_matter.clone());
        let body_span = document.map_or(text.len()..text.len(), |d| d.body.clone());
        Self { text, path, index, loaded, front_span, body_span }
    }

    /// The loaded prompt, when the file loads as one.
    pub fn prompt(&self) -> Option<&Prompt> {
        self.loaded.prompt.as_ref()
    }

    /// The profile the file renders in (`spec` when it does not load).
    pub fn profile(&self) -> Profile {
        self.prompt().map_or(Profile::Spec, |p| p.profile)
    }

    /// The front matter as written (references unresolved), with spans into the text.
    pub fn front(&self) -> Option<&Node> {
        self.loaded.document.as_ref()?.tree.as_ref()
    }

    /// Whether `offset` is inside the front matter (fences excluded).
    pub fn in_front_matter(&self, offset: usize) -> bool {
        self.front_span.as_ref().is_some_and(|s| s.start <= offset && offset <= s.end)
    }

    /// Whether `offset` is in the template body.
    pub fn in_body(&self, offset: usize) -> bool {
        offset >= self.body_span.start && offset <= self.body_span.end
    }

    /// The input declarations as written: name, the span of the name, the property node.
    pub fn input_nodes(&self) -> Vec<(String, Range<usize>, &Node)> {
        let Some(inputs) = self.front().and_then(|f| f.get("inputs")) else { return Vec::new() };
        declarations(inputs)
    }

    /// The v1 `sample` keys as written.
    pub fn sample_nodes(&self) -> Vec<(String, Range<usize>)> {
        let Some(sample) = self.front().and_then(|f| f.get("sample")).and_then(Node::as_map) else {
            return Vec::new();
        };
        sample.iter().map(|(k, _)| (k.key_string(), k.span.clone())).collect()
    }
}

/// The properties of a property list as written, map or list form.
pub(crate) fn declarations(list: &Node) -> Vec<(String, Range<usize>, &Node)> {
    match &list.value {
        prompty_syntax::yaml::NodeValue::Map(entries) => {
            entries.iter().map(|(k, v)| (k.key_string(), k.span.clone(), v)).collect()
        }
        prompty_syntax::yaml::NodeValue::Seq(items) => items
            .iter()
            .filter_map(|item| {
                let name = item.get("name")?;
                Some((name.as_str()?.to_owned(), name.span.clone(), item))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A snapshot and everything `prompty check` reports for it.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The loaded document.
    pub snapshot: Snapshot,
    /// Loader diagnostics and lint findings, selected by `prompty.toml`, in file order.
    pub findings: Vec<Finding>,
    /// Why `prompty.toml` could not be applied, when it could not.
    pub config_error: Option<ConfigProblem>,
}

/// A `prompty.toml` that cannot be applied, and where in it (in LSP positions) the problem is.
#[derive(Debug, Clone)]
pub struct ConfigProblem {
    /// The error, with its code and byte span.
    pub error: prompty_config::ConfigError,
    /// Its span as a range of the configuration file, when it is about a place in it.
    pub range: Option<lsp_types::Range>,
}

impl Analysis {
    /// Loads and lints `text` as `prompty check` does for the file at `path`.
    pub fn new(workspace: &Workspace, text: Arc<str>, path: Option<PathBuf>) -> Self {
        let snapshot = Snapshot::new(workspace, text, path);
        Self::of(workspace, snapshot)
    }

    /// Lints a loaded snapshot.
    pub fn of(workspace: &Workspace, snapshot: Snapshot) -> Self {
        let (selection, config_error) = workspace.selection(snapshot.path.as_deref());
        let findings = prompty_lint::check(&snapshot.text, &snapshot.loaded, &selection).findings;
        Self { snapshot, findings, config_error }
    }
}
