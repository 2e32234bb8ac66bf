//! Reading, loading, linting and compiling the prompt at compile time.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use prompty_host::StdHost;
use prompty_syntax::{
    Diagnostic, FrontMatter, Host, HostError, LineIndex, LoadOptions, Prompt, load_str, parse_front_matter,
};

/// The code of the rule whose findings are compile errors whatever their severity: a
/// template variable no input declares.
const UNDECLARED_VARIABLE: &str = "PL001";

/// A prompt that passed every check.
pub(crate) struct Checked {
    /// The file's text.
    pub(crate) text: String,
    /// Its front matter, parsed and resolved.
    pub(crate) front: FrontMatter,
    /// The prompt built from it.
    pub(crate) prompt: Prompt,
    /// The file's stem.
    pub(crate) stem: String,
    /// Absolute paths of every file read (the prompt, `${file:}` references, `prompty.toml`),
    /// as text, for `include_bytes!`.
    pub(crate) tracked: Vec<String>,
}

/// The real file system without the environment, remembering every file it reads.
struct Recording {
    host: StdHost,
    read: RefCell<Vec<PathBuf>>,
}

impl Host for Recording {
    fn env(&self, _name: &str) -> Option<String> {
        None
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, HostError> {
        self.host.canonicalize(path)
    }

    fn read_link(&self, path: &Path) -> Option<PathBuf> {
        self.host.read_link(path)
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, HostError> {
        let bytes = self.host.read(path)?;
        let absolute = self.host.canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.read.borrow_mut().push(absolute);
        Ok(bytes)
    }
}

/// The folder paths are relative to.
fn base_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR_OVERRIDE")
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map_or_else(|| PathBuf::from("."), PathBuf::from)
}

/// Loads and checks the prompt at `rel` (relative to the crate's folder). The error is every
/// problem, each as one message.
pub(crate) fn check(rel: &str) -> Result<Checked, Vec<String>> {
    let path = base_dir().join(rel);
    let host = Recording { host: StdHost::new(), read: RefCell::new(Vec::new()) };
    let bytes = prompty_syntax::read_source(&path, &host).map_err(|e| {
        let why = match e {
            prompty_syntax::Error::FileNotFound(_) => "no such file".to_owned(),
            prompty_syntax::Error::Read { source, .. } => source.to_string(),
            other => other.to_string(),
        };
        vec![format!("cannot read `{rel}`: {why} (the path is relative to the crate's folder, where Cargo.toml is)")]
    })?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            return Err(vec![format!(
                "{rel}: the file is not UTF-8 text (invalid byte at offset {at}); save it as UTF-8"
            )]);
        }
    };
    let options = LoadOptions { path: Some(path.clone()), lint: true, ..LoadOptions::default() };
    let located = |d: &Diagnostic, severity: &str| {
        let index = LineIndex::new(&text);
        let (line, col) = index.line_col(&text, d.span.start);
        let mut message = format!("{rel}:{line}:{col}: {severity}[{}]: {}", d.code.id, d.message);
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        message
    };
    let loaded = load_str(&text, &host, &options);
    if loaded.document.is_none() || loaded.prompt.is_none() {
        return Err(loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| located(d, "error")).collect());
    }
    let selection =
        prompty_config::Configs::default().selection(&path, None, &host).map_err(|e| vec![format!("{rel}: {e}")])?;
    let report = prompty_lint::check(&text, &loaded, &selection);
    let problems: Vec<String> = report
        .findings
        .iter()
        .map(|f| &f.diagnostic)
        .filter(|d| d.is_error() || d.code.id == UNDECLARED_VARIABLE)
        .map(|d| located(d, "error"))
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    let Some(prompt) = loaded.prompt else {
        return Err(vec![format!("{rel}: cannot be loaded as a prompt")]);
    };
    let source: std::sync::Arc<str> = std::sync::Arc::from(text.as_str());
    let render_options = prompty_render::RenderOptions { source: Some(source), ..Default::default() };
    if let Err(e) = prompty_render::Renderer::with_options(prompt.clone(), render_options) {
        let at = e.span().map_or(0..0, |s| s);
        let d = Diagnostic::error(prompty_syntax::Code { id: "template", name: "template" }, at, e.message());
        let message = match e.span() {
            Some(_) => located(&d, "error"),
            None => format!("{rel}: error: {}", e.message()),
        };
        return Err(vec![message]);
    }
    // The resolved front matter the program lowers at run time: the tree `load_str` built
    // the prompt from, which it does not keep.
    let (Some(front), _) = parse_front_matter(&text, &host, &options) else {
        return Err(vec![format!("{rel}: cannot be loaded as a prompt")]);
    };
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("prompt").to_owned();
    let mut tracked: Vec<String> =
        host.read.into_inner().iter().filter_map(|p| p.to_str().map(str::to_owned)).collect();
    tracked.sort();
    tracked.dedup();
    Ok(Checked { text, front, prompt, stem, tracked })
}
