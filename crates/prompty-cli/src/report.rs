//! Rendering diagnostics for people (miette) and for machines (JSON lines).

use std::fmt;
use std::path::Path;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode};
use prompty_syntax::{Diagnostic, LineIndex, Severity};
use serde::Serialize;

/// A diagnostic with its file, as miette wants it.
struct Report<'a> {
    diagnostic: &'a Diagnostic,
    source: NamedSource<String>,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("{}({})", self.diagnostic.code.id, self.diagnostic.code.name)))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diagnostic.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = &self.diagnostic.span;
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some("here".to_owned()),
            (span.start, span.end.saturating_sub(span.start)),
        ))))
    }
}

/// How to draw human diagnostics.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    /// Colours (only on a terminal).
    pub(crate) color: bool,
    /// Wrap width.
    pub(crate) width: usize,
}

/// Renders one diagnostic as miette draws it.
pub(crate) fn human(path: &Path, text: &str, d: &Diagnostic, style: Style) -> String {
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false);
    let report = Report { diagnostic: d, source: NamedSource::new(path.display().to_string(), text.to_owned()) };
    let mut out = String::new();
    if handler.render_report(&mut out, &report).is_err() {
        out = format!("{}: {}", d.code, d.message);
    }
    out
}

/// One diagnostic as a JSON object with 1-based positions.
#[derive(Debug, Serialize)]
pub(crate) struct JsonDiagnostic<'a> {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) end_line: usize,
    pub(crate) end_column: usize,
    pub(crate) code: &'a str,
    pub(crate) name: &'a str,
    pub(crate) severity: Severity,
    pub(crate) message: &'a str,
    pub(crate) help: Option<&'a str>,
}

/// Locates `d` in `text` and builds its JSON form.
pub(crate) fn json<'a>(path: &Path, text: &str, index: &LineIndex, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
    let (line, column) = index.line_col(text, d.span.start);
    let (end_line, end_column) = index.line_col(text, d.span.end);
    JsonDiagnostic {
        file: path.display().to_string(),
        line,
        column,
        end_line,
        end_column,
        code: d.code.id,
        name: d.code.name,
        severity: d.severity,
        message: &d.message,
        help: d.help.as_deref(),
    }
}
