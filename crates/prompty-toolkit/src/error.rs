//! [`Error`]: the one error type of the crate.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use crate::report::{Source, Style};
use crate::{Code, Diagnostic, LineIndex, Secrets};

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The `.prompty` file could not be read (missing, not a regular file, too large,
    /// permissions).
    Read,
    /// The file has error-level diagnostics: see [`Error::diagnostics`].
    Load,
    /// The template does not compile: a syntax error, a template nested too deep, an
    /// unknown format, or a format whose engine this build leaves out.
    Template,
    /// The inputs cannot be used: they do not serialize to a map, a required input has no
    /// value, or a value has a shape rendering cannot use.
    Inputs,
    /// Rendering failed: a template error, an input that tried to forge a message, a limit
    /// of the render budget, or rendered text that does not split into messages.
    Render,
    /// The messages cannot become a request for the target provider.
    Compile,
    /// A judge answer cannot be scored, or the prompt has no evaluator configuration.
    Score,
}

impl ErrorKind {
    /// A short name: `read`, `load`, `template`, `inputs`, `render`, `compile`, `score`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Read => "read",
            ErrorKind::Load => "load",
            ErrorKind::Template => "template",
            ErrorKind::Inputs => "inputs",
            ErrorKind::Render => "render",
            ErrorKind::Compile => "compile",
            ErrorKind::Score => "score",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `.prompty` file as errors show it: its name and its text.
#[derive(Clone)]
pub(crate) struct FileText {
    pub(crate) name: Arc<str>,
    pub(crate) text: Arc<str>,
}

impl FileText {
    /// `name:line:col` of byte `offset`.
    fn locate(&self, offset: usize) -> String {
        let (line, col) = LineIndex::new(&self.text).line_col(&self.text, offset);
        format!("{}:{line}:{col}", self.name)
    }
}

/// Everything that can go wrong: a [kind](ErrorKind), a message, every diagnostic of the
/// file when loading failed, where in the file a template error points, and the underlying
/// error as [`source`](std::error::Error::source).
///
/// - `{}` (Display) prints one line per problem, located as `file:line:column: message`
///   (the way the command line tool prints a failure), the error-level diagnostics of a
///   load with their code: `prompts/a.prompty:3:7: message [P002]`.
/// - `{:#}` and [`report`](Error::report) draw every diagnostic as the command line tool's
///   `prompty check` does (miette's graphical report, no colour unless asked).
///
/// No form ever shows a value an `${env:}` reference supplied: it appears as `${env:NAME}`.
///
/// ```
/// let err = prompty_toolkit::from_str("---\nname: [unclosed\n---\nuser:\nhi").unwrap_err();
/// assert_eq!(err.kind(), prompty_toolkit::ErrorKind::Load);
/// assert!(err.to_string().starts_with("<string>:2:"), "{err}");
/// assert!(format!("{err:#}").contains("P002"));
/// ```
#[derive(Clone)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Clone)]
struct Inner {
    kind: ErrorKind,
    message: String,
    diagnostics: Vec<Diagnostic>,
    file: Option<FileText>,
    span: Option<Range<usize>>,
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            inner: Box::new(Inner {
                kind,
                message: message.into(),
                diagnostics: Vec::new(),
                file: None,
                span: None,
                source: None,
            }),
        }
    }

    pub(crate) fn with_file(mut self, file: &FileText) -> Self {
        self.inner.file = Some(file.clone());
        self
    }

    pub(crate) fn with_diagnostics(mut self, diagnostics: Vec<Diagnostic>) -> Self {
        self.inner.diagnostics = diagnostics;
        self
    }

    pub(crate) fn with_span(mut self, span: Option<Range<usize>>) -> Self {
        self.inner.span = span;
        self
    }

    pub(crate) fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.inner.source = Some(Arc::new(source));
        self
    }

    /// Every text of the error without the values `secrets` holds (a second line of defence:
    /// the loader, renderer and wire compiler redact their own messages already).
    pub(crate) fn redacted(mut self, secrets: &Secrets) -> Self {
        if secrets.is_empty() {
            return self;
        }
        secrets.redact_string(&mut self.inner.message);
        for d in &mut self.inner.diagnostics {
            secrets.redact_diagnostic(d);
        }
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The message, without location.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// Every diagnostic of the file, warnings included, in file order, when loading failed
    /// ([`ErrorKind::Load`]); empty otherwise.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.inner.diagnostics
    }

    /// The file's name (its path, or `<string>` for text loaded from a string), when the
    /// error is about one.
    pub fn file_name(&self) -> Option<&str> {
        self.inner.file.as_ref().map(|f| &*f.name)
    }

    /// The byte span in the file a template error points at.
    pub fn span(&self) -> Option<Range<usize>> {
        self.inner.span.clone()
    }

    /// The 1-based line and column (in characters) of byte `offset` in the error's file
    /// (a diagnostic's or [`span`](Error::span)'s start); `None` when the error is about no
    /// file's text.
    pub fn line_col(&self, offset: usize) -> Option<(usize, usize)> {
        let file = self.inner.file.as_ref().filter(|f| !f.text.is_empty())?;
        Some(LineIndex::new(&file.text).line_col(&file.text, offset))
    }

    /// Where the error points: the line and column of its first error-level diagnostic,
    /// else of its [`span`](Error::span); `None` when it points nowhere in a file.
    ///
    /// ```
    /// let err = prompty_toolkit::from_str("---\nname: [unclosed\n---\nuser:\nhi").unwrap_err();
    /// assert_eq!(err.location().map(|(line, _)| line), Some(2));
    /// assert_eq!(err.code().map(|c| c.id), Some("P002"));
    /// ```
    pub fn location(&self) -> Option<(usize, usize)> {
        let inner = &*self.inner;
        let offset = match inner.diagnostics.iter().find(|d| d.is_error()) {
            Some(d) => d.span.start,
            None => inner.span.as_ref()?.start,
        };
        self.line_col(offset)
    }

    /// The stable code of the problem: the first error-level diagnostic's (`P002`), else
    /// the code of the underlying renderer, compiler or evaluator error; `None` for errors
    /// that have none (a file that cannot be read, inputs that are not a map).
    pub fn code(&self) -> Option<Code> {
        if let Some(d) = self.inner.diagnostics.iter().find(|d| d.is_error()) {
            return Some(d.code);
        }
        let source = self.inner.source.as_deref()?;
        if let Some(e) = source.downcast_ref::<crate::render::Error>() {
            return Some(e.code());
        }
        #[cfg(feature = "wire")]
        if let Some(e) = source.downcast_ref::<crate::wire::Error>() {
            return Some(e.code());
        }
        #[cfg(feature = "eval")]
        if let Some(e) = source.downcast_ref::<crate::eval::Error>() {
            return Some(e.code());
        }
        None
    }

    /// Every diagnostic drawn as the command line tool draws them; see [`Report`].
    pub fn report(&self) -> Report<'_> {
        Report { error: self, style: Style::default() }
    }

    /// The problems Display shows: error-level diagnostics, else the error itself.
    fn lines(&self) -> Vec<String> {
        let inner = &*self.inner;
        let errors: Vec<&Diagnostic> = inner.diagnostics.iter().filter(|d| d.is_error()).collect();
        if !errors.is_empty() {
            return errors
                .iter()
                .map(|d| match &inner.file {
                    Some(file) => format!("{}: {} [{}]", file.locate(d.span.start), d.message, d.code.id),
                    None => format!("{} [{}]", d.message, d.code.id),
                })
                .collect();
        }
        let line = match (&inner.file, &inner.span) {
            (Some(file), Some(span)) => format!("{}: {}", file.locate(span.start), inner.message),
            (Some(file), None) => format!("{}: {}", file.name, inner.message),
            (None, _) => inner.message.clone(),
        };
        vec![line]
    }

    /// The error as one diagnostic, at its span when it has one.
    fn as_diagnostic(&self) -> Diagnostic {
        let inner = &*self.inner;
        let code = Code { id: self.kind().as_str(), name: "" };
        Diagnostic::error(code, inner.span.clone().unwrap_or(0..0), inner.message.clone())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            return fmt::Display::fmt(&self.report(), f);
        }
        f.write_str(&self.lines().join("\n"))
    }
}

/// `{:?}` prints what Display prints (so that `main` returning an error shows it as users
/// read it); `{:#?}` the fields.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return f.write_str(&self.lines().join("\n"));
        }
        let inner = &*self.inner;
        let mut s = f.debug_struct("Error");
        s.field("kind", &inner.kind).field("message", &inner.message);
        if let Some(file) = &inner.file {
            s.field("file", &&*file.name);
        }
        if let Some(span) = &inner.span {
            s.field("span", span);
        }
        if !inner.diagnostics.is_empty() {
            s.field("diagnostics", &inner.diagnostics);
        }
        if let Some(source) = &inner.source {
            s.field("source", source);
        }
        s.finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// An [`Error`] drawn as the command line tool's `prompty check` draws diagnostics: each
/// one with its code, message, the file's lines around it with the span underlined, and
/// its help; an error that is not about a file is one line. Made by [`Error::report`];
/// `{:#}` on the error is the same with the default style.
///
/// ```
/// let err = prompty_toolkit::from_str("---\ninputs:\n  q: {kind: strng}\n---\nuser:\n{{q}}").unwrap_err();
/// let plain = err.report().to_string();
/// let coloured = err.report().color(true).width(80).to_string();
/// assert!(!plain.contains('\u{1b}') && coloured.contains('\u{1b}'));
/// ```
#[derive(Clone, Copy)]
pub struct Report<'a> {
    error: &'a Error,
    style: Style,
}

impl Report<'_> {
    /// Colours with ANSI escapes (off by default).
    #[must_use]
    pub fn color(mut self, color: bool) -> Self {
        self.style.color = color;
        self
    }

    /// The width text wraps at (100 by default).
    #[must_use]
    pub fn width(mut self, width: usize) -> Self {
        self.style.width = width;
        self
    }

    /// The whole style at once.
    #[must_use]
    pub fn style(mut self, style: Style) -> Self {
        self.style = style;
        self
    }
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Report").field("style", &self.style).finish_non_exhaustive()
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &*self.error.inner;
        match &inner.file {
            Some(file) if !inner.diagnostics.is_empty() => {
                let source = Source::new(&file.name, &file.text);
                for d in &inner.diagnostics {
                    f.write_str(&source.draw(d, &self.style))?;
                }
                Ok(())
            }
            Some(file) if inner.span.is_some() => {
                f.write_str(&Source::new(&file.name, &file.text).draw(&self.error.as_diagnostic(), &self.style))
            }
            _ => {
                let mut d = self.error.as_diagnostic();
                d.message = self.error.lines().join("\n");
                f.write_str(&crate::report::draw_unlocated(&d, &self.style))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_send_sync_static_and_small() {
        fn assert_traits<T: std::error::Error + Send + Sync + Clone + 'static>() {}
        assert_traits::<Error>();
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }
}
