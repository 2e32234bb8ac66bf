//! The crate's single error type.

use std::fmt;
use std::ops::Range;

/// What went wrong, without the details.
///
/// Compile-time kinds come from [`Template::compile`](crate::Template::compile)
/// (or from compiling a partial during rendering); the limit kinds come from
/// [`Template::render`](crate::Template::render).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An opening delimiter (`{{`, `{{{`, or a custom one) has no closing delimiter.
    UnclosedTag,
    /// A section, inverted section, parent or block tag has no closing tag.
    UnclosedSection,
    /// A closing tag names something other than the innermost open tag.
    MismatchedClosingTag,
    /// A closing tag appears while nothing is open.
    UnexpectedClosingTag,
    /// A set-delimiter tag (`{{=<% %>=}}`) is malformed or not closed.
    InvalidDelimiters,
    /// A tag that needs a name has none (`{{}}`, `{{#}}`, `{{> }}`, ...).
    EmptyTagName,
    /// A tag name contains whitespace or an empty dotted segment (`a..b`).
    InvalidTagName,
    /// Sections, blocks and parents are nested deeper than the compiler accepts.
    NestingTooDeep,
    /// Rendering nested partials, parents, block substitutions or sections
    /// deeper than the configured limit.
    DepthLimitExceeded,
    /// The rendered output grew beyond the configured size cap.
    OutputLimitExceeded,
    /// Rendering took more steps than the configured budget.
    StepLimitExceeded,
}

impl ErrorKind {
    /// A short, stable, human-readable description of the kind.
    pub fn description(self) -> &'static str {
        match self {
            ErrorKind::UnclosedTag => "unclosed tag",
            ErrorKind::UnclosedSection => "unclosed section",
            ErrorKind::MismatchedClosingTag => "mismatched closing tag",
            ErrorKind::UnexpectedClosingTag => "unexpected closing tag",
            ErrorKind::InvalidDelimiters => "invalid set-delimiter tag",
            ErrorKind::EmptyTagName => "empty tag name",
            ErrorKind::InvalidTagName => "invalid tag name",
            ErrorKind::NestingTooDeep => "nesting too deep",
            ErrorKind::DepthLimitExceeded => "depth limit exceeded",
            ErrorKind::OutputLimitExceeded => "output limit exceeded",
            ErrorKind::StepLimitExceeded => "step limit exceeded",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// An error from compiling or rendering a template.
///
/// Every error carries a byte [`span`](Error::span) into the source of the
/// template it concerns. That is the template passed to
/// [`Template::compile`](crate::Template::compile) unless
/// [`partial`](Error::partial) names a partial, in which case the span points
/// into that partial's source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(Box<Repr>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Repr {
    kind: ErrorKind,
    span: Range<usize>,
    message: String,
    partial: Option<String>,
}

impl fmt::Display for Repr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(name) = &self.partial {
            write!(f, " (in partial `{name}`)")?;
        }
        Ok(())
    }
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, span: Range<usize>, message: impl Into<String>) -> Self {
        Error(Box::new(Repr { kind, span, message: message.into(), partial: None }))
    }

    /// Attributes the error to the named partial, unless it already names one.
    pub(crate) fn in_partial(mut self, name: Option<&str>) -> Self {
        if self.0.partial.is_none() {
            self.0.partial = name.map(str::to_owned);
        }
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// Byte range of the offending tag (or delimiter) in the template source.
    pub fn span(&self) -> Range<usize> {
        self.0.span.clone()
    }

    /// The message, without the partial name suffix that `Display` adds.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The name of the partial whose source [`span`](Error::span) points into,
    /// or `None` for the template being compiled or rendered.
    pub fn partial(&self) -> Option<&str> {
        self.0.partial.as_deref()
    }
}
