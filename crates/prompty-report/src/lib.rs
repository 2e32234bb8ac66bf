//! Diagnostics as messages, and one emitter per output form.
//!
//! A [`Message`] is a diagnostic with the file it is about (its name and, when the
//! diagnostic points at a place, its text) and the edit that resolves it. Every command of
//! `prompty`, and the language server, report through the emitters here, so that a code
//! reads the same and links to the same documentation everywhere:
//!
//! - [`Human`]: miette's graphical report with the lines around each span ([`human`]);
//! - [`Concise`]: `file:line:col: severity: message [CODE]`, one line each;
//! - [`Json`]: one JSON object per line;
//! - [`Github`]: GitHub Actions workflow commands;
//! - [`Sarif`]: one SARIF 2.1.0 log, written by [`Emitter::finish`];
//! - [`lsp`]: what a Language Server Protocol diagnostic says (text, tags, link), for the
//!   language server, which adds ranges in its own position encoding.
//!
//! Emitters write to the [`std::io::Write`] they are given; the crate opens nothing itself.
//!
//! ```
//! use prompty_report::{Emitter, Json, Message, SourceFile};
//! use prompty_syntax::{codes, Diagnostic};
//!
//! let file = SourceFile::new("a.prompty", "---\nname: x\n---\nsytem:\nhi\n");
//! let d = Diagnostic::warning(codes::LEGACY_KEY, 4..8, "`name` is a v1 key");
//! let mut out = Vec::new();
//! Json.emit(&mut out, &[Message::new(file, d)]).unwrap();
//! assert!(String::from_utf8(out).unwrap().starts_with(r#"{"file":"a.prompty","line":2,"column":1,"#));
//! ```

#![warn(missing_docs)]

mod catalog;
mod docs;
mod emitters;
mod excerpt;
pub mod human;
pub mod lsp;

use std::io;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

pub use catalog::Rule;
pub use docs::{DOCS_URL, anchor, doc_page, doc_url};
pub use emitters::{Concise, Github, Human, Json, Sarif, sarif_level};
use prompty_syntax::{Diagnostic, LineIndex, Severity};

/// A file that messages are about: its name as reports show it and, when known, its text
/// (indexed for line and column once, on first use).
#[derive(Debug)]
pub struct SourceFile {
    name: String,
    text: Option<Arc<str>>,
    index: OnceLock<LineIndex>,
}

impl SourceFile {
    /// A file and its text.
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Arc<Self> {
        Arc::new(SourceFile { name: name.into(), text: Some(text.into()), index: OnceLock::new() })
    }

    /// A file whose text is not at hand (a message about the file as a whole).
    pub fn unlocated(name: impl Into<String>) -> Arc<Self> {
        Arc::new(SourceFile { name: name.into(), text: None, index: OnceLock::new() })
    }

    /// The name reports show.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The text, when known.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// 1-based line and column (in characters) of a byte offset, when the text is known.
    pub fn line_col(&self, offset: usize) -> Option<(usize, usize)> {
        let text = self.text.as_deref()?;
        Some(self.index.get_or_init(|| LineIndex::new(text)).line_col(text, offset))
    }
}

/// A change that resolves a message: `replacement` in place of the bytes `span`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// What the change does, in a few words.
    pub title: String,
    /// Byte range in the file.
    pub span: Range<usize>,
    /// The new text.
    pub replacement: String,
    /// Whether applying it keeps what the prompt sends (applied by `--fix`); a change that
    /// alters it needs the user's opt-in.
    pub safe: bool,
}

/// One diagnostic about one file.
#[derive(Debug, Clone)]
pub struct Message {
    /// The file it is about.
    pub file: Arc<SourceFile>,
    /// What is wrong, where (a span in the file's text) and how to solve it.
    pub diagnostic: Diagnostic,
    /// The edit that resolves it, when there is a mechanical one.
    pub fix: Option<Edit>,
}

impl Message {
    /// A message at its diagnostic's span in `file` (about the file as a whole when the
    /// file has no text).
    pub fn new(file: Arc<SourceFile>, diagnostic: Diagnostic) -> Self {
        Message { file, diagnostic, fix: None }
    }

    /// The same message with the edit that resolves it.
    #[must_use]
    pub fn with_fix(mut self, fix: Option<Edit>) -> Self {
        self.fix = fix;
        self
    }

    /// 1-based (line, column) of the start and end of its span; `None` when it points nowhere.
    pub fn region(&self) -> Option<((usize, usize), (usize, usize))> {
        let span = &self.diagnostic.span;
        Some((self.file.line_col(span.start)?, self.file.line_col(span.end)?))
    }

    /// The message with its help on a line of its own, as the one-string forms show it.
    pub fn text_with_help(&self) -> String {
        let d = &self.diagnostic;
        match &d.help {
            Some(help) => format!("{}\nhelp: {help}", d.message),
            None => d.message.clone(),
        }
    }

    /// `file:line:col: message [CODE]` (`file: message [CODE]` when it points nowhere).
    pub fn one_line(&self) -> String {
        let d = &self.diagnostic;
        match self.file.line_col(d.span.start) {
            Some((line, col)) => format!("{}:{line}:{col}: {} [{}]", self.file.name, d.message, d.code.id),
            None => format!("{}: {} [{}]", self.file.name, d.message, d.code.id),
        }
    }
}

/// The word a severity is written as in the one-line forms.
fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// One output form. [`emit`](Emitter::emit) may be called any number of times (a file at a
/// time, say); [`finish`](Emitter::finish) ends the report (SARIF writes its log there) and
/// carries the failures that are no diagnostic (a folder that could not be read).
pub trait Emitter {
    /// Writes (or, for a form written at the end, keeps) `messages`.
    fn emit(&mut self, out: &mut dyn io::Write, messages: &[Message]) -> io::Result<()>;

    /// Ends the report.
    fn finish(&mut self, out: &mut dyn io::Write, failures: &[String]) -> io::Result<()> {
        let _ = (out, failures);
        Ok(())
    }
}
