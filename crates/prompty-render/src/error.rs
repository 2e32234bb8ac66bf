//! The renderer's error type.

use std::fmt;
use std::ops::Range;

/// What went wrong while rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Required inputs had no value and no default.
    MissingInputs,
    /// The template format or parser is not one this crate renders.
    UnknownEngine,
    /// The template does not parse, or is refused before it runs: nested deeper than
    /// [`Limits::max_nesting`](crate::Limits::max_nesting), or (Jinja2) building values that
    /// could grow without bound.
    TemplateSyntax,
    /// The template failed while rendering (bad filter argument, type error, ...).
    TemplateRender,
    /// An input value tried to create or change a message.
    Injection,
    /// A limit of the render budget ([`Limits`](crate::Limits)) was hit: steps, output size
    /// or recursion.
    Limit,
    /// The rendered text cannot be split into messages.
    Parse,
    /// An input value has a shape rendering cannot use.
    InvalidInput,
    /// The operation is not available for this template format.
    Unsupported,
}

/// A rendering error: a kind, a message, and where in the `.prompty` file it points
/// (a byte span into the original file) when it comes from the template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    span: Option<Range<usize>>,
    input: Option<String>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), span: None, input: None }
    }

    pub(crate) fn with_span(mut self, span: Range<usize>) -> Self {
        self.span = Some(span);
        self
    }

    pub(crate) fn with_input(mut self, name: impl Into<String>) -> Self {
        self.input = Some(name.into());
        self
    }

    /// The error with every value `${env:}` supplied shown as its reference.
    pub(crate) fn redacted(mut self, secrets: &prompty_syntax::Secrets) -> Self {
        secrets.redact_string(&mut self.message);
        if let Some(input) = &mut self.input {
            secrets.redact_string(input);
        }
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, without location.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Byte span in the original `.prompty` file, when the error comes from the template.
    pub fn span(&self) -> Option<Range<usize>> {
        self.span.clone()
    }

    /// The input the error is about (injection, strict violation, invalid value).
    pub fn input(&self) -> Option<&str> {
        self.input.as_deref()
    }

    /// The stable diagnostic code of the error's kind (`PR001`...; see [`codes`](crate::codes)).
    pub fn code(&self) -> prompty_syntax::Code {
        use crate::codes;
        match self.kind {
            ErrorKind::MissingInputs => codes::MISSING_INPUTS,
            ErrorKind::UnknownEngine => codes::UNKNOWN_ENGINE,
            ErrorKind::TemplateSyntax => codes::TEMPLATE_SYNTAX,
            ErrorKind::TemplateRender => codes::TEMPLATE_RENDER,
            ErrorKind::Injection => codes::INJECTION,
            ErrorKind::Limit => codes::LIMIT,
            ErrorKind::Parse => codes::MESSAGE_SPLIT,
            ErrorKind::InvalidInput => codes::INVALID_INPUT,
            ErrorKind::Unsupported => codes::UNSUPPORTED,
        }
    }

    /// The error as an error-level diagnostic at its [`span`](Error::span), or at the start
    /// of the file (an empty span) when it has none.
    pub fn to_diagnostic(&self) -> prompty_syntax::Diagnostic {
        prompty_syntax::Diagnostic::error(self.code(), self.span.clone().unwrap_or(0..0), self.message.clone())
    }
}

impl From<&Error> for prompty_syntax::Diagnostic {
    fn from(e: &Error) -> Self {
        e.to_diagnostic()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<prompty_syntax::Error> for Error {
    fn from(e: prompty_syntax::Error) -> Self {
        let kind = match e {
            prompty_syntax::Error::MissingInputs(_) => ErrorKind::MissingInputs,
            _ => ErrorKind::InvalidInput,
        };
        Error::new(kind, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind has its own code, listed in `codes::ALL` with its severity.
    #[test]
    fn every_kind_has_a_listed_code() {
        let kinds = [
            ErrorKind::MissingInputs,
            ErrorKind::UnknownEngine,
            ErrorKind::TemplateSyntax,
            ErrorKind::TemplateRender,
            ErrorKind::Injection,
            ErrorKind::Limit,
            ErrorKind::Parse,
            ErrorKind::InvalidInput,
            ErrorKind::Unsupported,
        ];
        let mut seen = std::collections::HashSet::new();
        for kind in kinds {
            let e = Error::new(kind, "m").with_span(3..5);
            let d = e.to_diagnostic();
            assert!(crate::codes::ALL.iter().any(|c| c.code == d.code && c.severity == d.severity), "{kind:?}");
            assert!(seen.insert(d.code.id), "{kind:?} shares {}", d.code.id);
            assert_eq!((d.span, d.message.as_str()), (3..5, "m"));
        }
        assert_eq!(seen.len(), crate::codes::ALL.len());
    }
}
