//! `prompty-syntax`: `.prompty` source text to a typed, normalized [`Prompt`], with
//! diagnostics that carry exact byte spans.
//!
//! ```
//! use prompty_syntax::{load_str, LoadOptions, MapHost};
//!
//! let loaded = load_str("---\nname: hi\nmodel: gpt-4o\n---\nuser:\nHello", &MapHost::new(), &LoadOptions::default());
//! assert!(loaded.diagnostics.is_empty());
//! let prompt = loaded.prompt.unwrap();
//! assert_eq!(prompt.model.unwrap().id, "gpt-4o");
//! assert_eq!(prompt.instructions.as_deref(), Some("user:\nHello"));
//! ```
//!
//! The crate does no process I/O: `${env:}` and `${file:}` go through a [`Host`].
//! Loading never panics and never stops at the first problem.

#![warn(missing_docs)]

pub mod cases;
pub mod codes;
mod diagnostic;
mod format;
mod host;
mod inputs;
pub mod keys;
mod lower;
pub mod message;
mod model;
mod refs;
pub mod schema;
mod secret;
pub mod split;
mod suggest;
pub mod yaml;

use std::path::PathBuf;

pub use diagnostic::{Code, CodeInfo, Diagnostic, LineIndex, Severity};
pub use format::TemplateFormat;
pub use host::{Host, HostError, MapHost, normalize};
pub use lower::{FORMATS, OPTION_KEYS, PARSERS, V1_PARAMETER_NAMES, detect_profile};
pub use message::{Message, Part};
pub use model::{
    Binding, Connection, FormatConfig, Legacy, Model, ModelOptions, ParserConfig, Profile, Prompt, Property,
    PropertyKind, Template, Tool,
};
pub use refs::{Reference, parse_reference};
pub use schema::{front_matter_schema, front_matter_schema_with};
pub use secret::{Secret, Secrets, is_secret_field};
pub use suggest::did_you_mean;

/// The largest file the loader accepts.
pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

/// Which profile to load with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProfileChoice {
    /// Detect from the file: v1 keys mean `promptflow`.
    #[default]
    Auto,
    /// Force one.
    Force(Profile),
}

/// How to load.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The file's path: `${file:}` references resolve from its folder.
    pub path: Option<PathBuf>,
    /// Further folders `${file:}` may read from.
    pub allowed_roots: Vec<PathBuf>,
    /// The profile.
    pub profile: ProfileChoice,
    /// Linting, not running: `${env:}` references are never resolved from the environment
    /// (the environment at lint time is not the one the prompt will run in, and findings
    /// must not depend on it). A default stands in for the value; a reference without one
    /// stays literal; a malformed name is a `P026` warning.
    pub lint: bool,
    /// Every `${env:}` variable must be set. Without it, an unset variable with no default in
    /// `model.connection`, `model.configuration` or a credential field (`apiKey`...) is a
    /// `P020` warning: its reference stays literal, recorded in [`Secrets::unset`], and only
    /// a request that needs the value reports it (loading, rendering and compiling never
    /// read connection settings). Elsewhere an unset variable is an error either way (a
    /// warning in the promptflow profile, which leaves it literal).
    pub require_env: bool,
}

/// What loading produced: the prompt when one could be built, and every diagnostic.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The prompt; `None` when the file could not be read as a prompt at all.
    pub prompt: Option<Prompt>,
    /// Everything found, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// Where the file's pieces are and its front matter as written; `None` when the file
    /// could not be split (not UTF-8, front matter never closed). A file rejected as too
    /// large or holding a NUL byte still has its pieces, with no tree.
    pub document: Option<Document>,
}

/// The file as the loader split and parsed it, kept so that tools reading the source (lint,
/// the formatter, the language server) need not split or parse it again.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The byte span of the YAML between the fences, when the file has front matter.
    pub front_matter: Option<std::ops::Range<usize>>,
    /// The byte span of the opening fence line (without its line ending).
    pub open_fence: Option<std::ops::Range<usize>>,
    /// The byte span of the body: everything after the closing fence line.
    pub body: std::ops::Range<usize>,
    /// The front matter's YAML as written, spans into the file: `${env:}` and `${file:}`
    /// references are the strings the file has, not what they resolve to. `None` without
    /// front matter, when it is not YAML, or after [`load_parsed`] (which reads no YAML).
    pub tree: Option<yaml::Node>,
}

impl Document {
    /// The pieces of a file the loader rejects before parsing it, when it splits.
    fn of_text(text: &str) -> Option<Self> {
        split::split(text).ok().map(|parts| Self::of(&parts))
    }

    fn of(split: &split::Split<'_>) -> Self {
        Self {
            front_matter: split.front_matter.as_ref().map(|p| p.span.clone()),
            open_fence: split.open_fence.clone(),
            body: split.body.span.clone(),
            tree: None,
        }
    }
}

impl Loaded {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The values `${env:}` supplied while loading (none when there is no prompt).
    pub fn secrets(&self) -> &Secrets {
        static NONE: Secrets = Secrets::new();
        self.prompt.as_ref().map_or(&NONE, |p| &p.secrets)
    }

    /// The prompt if there is no error, else the diagnostics.
    pub fn into_result(self) -> Result<(Prompt, Vec<Diagnostic>), Vec<Diagnostic>> {
        match self.prompt {
            Some(p) if !self.has_errors() => Ok((p, self.diagnostics)),
            _ => Err(self.diagnostics),
        }
    }
}

/// The crate's error type: failures that leave nothing to diagnose in a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The `.prompty` file does not exist.
    #[error("Prompty file not found: {}", .0.display())]
    FileNotFound(PathBuf),
    /// The `.prompty` file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: HostError,
    },
    /// Required inputs were given no value and have no default (every one is named).
    #[error("Missing required input{}: {}", if .0.len() == 1 { "" } else { "s" }, .0.join(", "))]
    MissingInputs(Vec<String>),
}

impl std::error::Error for HostError {}

/// Reads the `.prompty` file at `path` through `host`.
pub fn read_source(path: &std::path::Path, host: &dyn Host) -> Result<Vec<u8>, Error> {
    host.read(path).map_err(|e| match e {
        HostError::NotFound => Error::FileNotFound(path.to_path_buf()),
        source => Error::Read { path: path.to_path_buf(), source },
    })
}

/// Reads and loads the file at `path` through `host`. `options.path` is set to `path`.
pub fn load_path(path: &std::path::Path, host: &dyn Host, options: &LoadOptions) -> Result<Loaded, Error> {
    let bytes = read_source(path, host)?;
    let options = LoadOptions { path: Some(path.to_path_buf()), ..options.clone() };
    Ok(load_bytes(&bytes, host, &options))
}

/// Loads a file's raw bytes: rejects non-UTF-8, NUL bytes and oversized input with a
/// diagnostic, then loads the text.
pub fn load_bytes(bytes: &[u8], host: &dyn Host, options: &LoadOptions) -> Loaded {
    if bytes.len() > MAX_FILE_BYTES {
        return Loaded {
            prompt: None,
            diagnostics: vec![too_large(bytes.len())],
            // Still split when it is text: a file-level suppression may silence the error.
            document: std::str::from_utf8(bytes).ok().and_then(Document::of_text),
        };
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if text.contains('\0') => {
            let at = text.find('\0').unwrap_or(0);
            Loaded {
                prompt: None,
                diagnostics: vec![
                    Diagnostic::error(codes::NOT_TEXT, at..at + 1, "the file contains a NUL byte; it looks binary")
                        .with_help("a .prompty file is UTF-8 text"),
                ],
                document: Document::of_text(text),
            }
        }
        Ok(text) => load_str(text, host, options),
        Err(e) => {
            let at = e.valid_up_to();
            Loaded {
                prompt: None,
                diagnostics: vec![
                    Diagnostic::error(
                        codes::NOT_TEXT,
                        at..at,
                        format!("the file is not UTF-8 text (invalid byte at offset {at})"),
                    )
                    .with_help("save the file as UTF-8"),
                ],
                document: None,
            }
        }
    }
}

/// Loads `.prompty` text.
pub fn load_str(text: &str, host: &dyn Host, options: &LoadOptions) -> Loaded {
    let mut diagnostics = Vec::new();
    let mut document = None;
    let Some((parts, front, replaced)) = parse_parts(text, host, options, &mut diagnostics, &mut document) else {
        return Loaded { prompt: None, diagnostics, document };
    };
    finish(&parts, front, diagnostics, document, Some(replaced))
}

/// Front matter read and resolved: what loading takes from a file before it builds the
/// [`Prompt`]. [`parse_front_matter`] makes one (the YAML parse and every `${env:}` and
/// `${file:}` reference); [`load_parsed`] builds the prompt from it without reading YAML,
/// files or the environment. A build step can keep one and finish the load later, as the
/// `include_prompty!` macro does: the macro parses at compile time, the program lowers.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontMatter {
    /// The front matter's values, references replaced by what they resolved to; spans
    /// point into the file's text. A file without front matter has a null root at `0..0`.
    pub root: yaml::Node,
    /// The profile the file loads with.
    pub profile: Profile,
    /// The values `${env:}` supplied (secret).
    pub secrets: Secrets,
}

/// The first half of [`load_str`]: splits `text`, parses its front matter and resolves its
/// references. Returns the front matter when the file has a usable one, and every
/// diagnostic found so far. `load_parsed(text, front)` then gives the same prompt as
/// `load_str(text, host, options)`, and the rest of its diagnostics.
pub fn parse_front_matter(
    text: &str,
    host: &dyn Host,
    options: &LoadOptions,
) -> (Option<FrontMatter>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let front = parse_parts(text, host, options, &mut diagnostics, &mut None).map(|(_, front, _)| front);
    if let Some(front) = &front {
        for d in &mut diagnostics {
            front.secrets.redact_diagnostic(d);
        }
    }
    (front, diagnostics)
}

/// The second half of [`load_str`]: builds the prompt of `text` from its front matter as
/// [`parse_front_matter`] returned it (for the same text), reading no YAML, no file and no
/// environment variable. The diagnostics are those of building the prompt only.
pub fn load_parsed(text: &str, front: FrontMatter) -> Loaded {
    match split::split(text) {
        Ok(parts) => {
            let document = Document::of(&parts);
            finish(&parts, front, Vec::new(), Some(document), None)
        }
        Err(d) => Loaded { prompt: None, diagnostics: vec![d], document: None },
    }
}

/// The error for a file of `len` bytes, over [`MAX_FILE_BYTES`].
fn too_large(len: usize) -> Diagnostic {
    Diagnostic::error(codes::TOO_LARGE, 0..0, format!("the file is {len} bytes; the limit is {MAX_FILE_BYTES}"))
        .with_help("a prompt file should be text of a reasonable size")
}

/// Splits, parses and resolves; `None` when no prompt can be built. `document` is set once
/// the file splits. With the front matter comes what resolving replaced in it.
fn parse_parts<'t>(
    text: &'t str,
    host: &dyn Host,
    options: &LoadOptions,
    diagnostics: &mut Vec<Diagnostic>,
    document: &mut Option<Document>,
) -> Option<(split::Split<'t>, FrontMatter, refs::Replaced)> {
    if text.len() > MAX_FILE_BYTES {
        diagnostics.push(too_large(text.len()));
        *document = Document::of_text(text);
        return None;
    }
    if text.trim_start_matches('\u{feff}').trim().is_empty() {
        diagnostics.push(
            Diagnostic::warning(codes::EMPTY_FILE, 0..0, "the file is empty")
                .with_help("add front matter between `---` lines and a body with role lines such as `user:`"),
        );
    }
    let parts = match split::split(text) {
        Ok(p) => p,
        Err(d) => {
            diagnostics.push(d);
            return None;
        }
    };
    *document = Some(Document::of(&parts));
    let mut root = match &parts.front_matter {
        Some(fm) => match yaml::parse(text, fm.span.start, fm.text) {
            Ok(node) => node,
            Err(d) => {
                diagnostics.push(d);
                return None;
            }
        },
        None => yaml::Node { value: yaml::NodeValue::Null, span: 0..0 },
    };
    let profile = match options.profile {
        ProfileChoice::Force(p) => p,
        ProfileChoice::Auto => detect_profile(&root),
    };
    let resolver = refs::Resolver {
        host,
        base_dir: options.path.as_deref().map(base_dir),
        allowed_roots: &options.allowed_roots,
        profile,
        lint: options.lint,
        require_env: options.require_env,
    };
    let resolved = resolver.resolve(&mut root, diagnostics);
    Some((parts, FrontMatter { root, profile, secrets: resolved.secrets }, resolved.replaced))
}

/// Lowers resolved front matter and the body into the prompt. With `replaced` (what
/// resolving replaced), the tree goes back to how it was written and `document` keeps it.
fn finish(
    parts: &split::Split<'_>,
    front: FrontMatter,
    mut diagnostics: Vec<Diagnostic>,
    mut document: Option<Document>,
    replaced: Option<refs::Replaced>,
) -> Loaded {
    let FrontMatter { mut root, profile, secrets } = front;
    let mut lowerer = lower::Lowerer { diags: &mut diagnostics, profile, secrets: &secrets, v1_types: Vec::new() };
    let (mut prompt, legacy) = lowerer.prompt(&root);
    prompt.legacy = legacy;
    // No message quotes a value an environment variable supplied.
    for d in &mut diagnostics {
        secrets.redact_diagnostic(d);
    }
    prompt.secrets = secrets;
    let body = parts.body.text;
    prompt.body_span = parts.body.span.clone();
    prompt.instructions = match profile {
        // The spec's loaders drop trailing newlines; promptflow keeps the template as written.
        Profile::Spec => {
            let mut text = normalize_newlines(body);
            text.truncate(text.trim_end_matches('\n').len());
            Some(text)
        }
        Profile::Promptflow => Some(normalize_newlines(body)),
    }
    .filter(|s| !s.is_empty() || parts.front_matter.is_some());
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    if let (Some(doc), Some(replaced)) = (document.as_mut().filter(|d| d.front_matter.is_some()), replaced) {
        refs::restore(&mut root, replaced);
        doc.tree = Some(root);
    }
    Loaded { prompt: Some(prompt), diagnostics, document }
}

/// The folder `${file:}` references of the prompt at `path` resolve from. A bare file name
/// (`a.prompty`) has the empty path as its parent, which no file system can canonicalize:
/// that is the current folder.
fn base_dir(path: &std::path::Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// CRLF and lone CR become LF, as universal-newline reading does.
pub fn normalize_newlines(text: &str) -> String {
    // A branch-free test per 64-byte block finds no `\r` faster than a byte search.
    if !text.as_bytes().chunks(64).any(|block| block.iter().fold(false, |cr, &b| cr | (b == b'\r'))) {
        return text.to_owned();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}
