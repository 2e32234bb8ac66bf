//! Diagnostics drawn for people, exactly as the `prompty` command line tool draws them:
//! miette's graphical report, with the file's lines around each span.
//!
//! ```
//! use prompty_report::human::{Source, Style};
//! use prompty_syntax::{codes, Diagnostic};
//!
//! let text = "---\nname: [unclosed\n---\nuser:\nhi\n";
//! let diagnostic = Diagnostic::error(codes::YAML_SYNTAX, 10..11, "unclosed sequence");
//! let drawn = Source::new("greeting.prompty", text).draw(&diagnostic, &Style::default());
//! assert!(drawn.contains("[greeting.prompty:2:7]"), "{drawn}");
//! ```

use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode};

use crate::excerpt::{Excerpt, SourceLines};
use prompty_syntax::{Diagnostic, Severity};

/// How to draw: colours (ANSI escapes) and the width text wraps at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Colour the report with ANSI escapes. Off by default: the library never asks the
    /// terminal, so a program that prints to one turns colours on itself.
    pub color: bool,
    /// Wrap width in columns (100 by default, as the command line tool).
    pub width: usize,
}

impl Default for Style {
    fn default() -> Self {
        Style { color: false, width: 100 }
    }
}

/// A file's text, indexed once for any number of diagnostics about it.
pub struct Source<'a> {
    lines: SourceLines<'a>,
}

impl fmt::Debug for Source<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source").finish_non_exhaustive()
    }
}

impl<'a> Source<'a> {
    /// The file `name` (as the report's header shows it) with the text `text`.
    pub fn new(name: &str, text: &'a str) -> Self {
        Source { lines: SourceLines::new(name, text) }
    }

    /// Draws one diagnostic: its severity, code and name, message, the lines around its
    /// span with the span underlined, and its help. Reads only the lines around the span
    /// (long lines are clipped around it), so drawing many diagnostics of one large file
    /// stays linear.
    pub fn draw(&self, diagnostic: &Diagnostic, style: &Style) -> String {
        let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false);
        let (source, label) = self.lines.excerpt(diagnostic.span.clone());
        render(handler, &Drawn { diagnostic, source: Some(source), label })
    }
}

/// Draws a diagnostic that points at no place in a file (a request that cannot be compiled
/// for a provider, a judge answer that cannot be scored): its severity, code, message and
/// help, without source lines.
pub fn draw_unlocated(diagnostic: &Diagnostic, style: &Style) -> String {
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false);
    render(handler, &Drawn { diagnostic, source: None, label: 0..0 })
}

fn render(handler: GraphicalReportHandler, drawn: &Drawn<'_>) -> String {
    let mut out = String::new();
    if handler.render_report(&mut out, drawn).is_err() {
        out = format!("{}: {}", drawn.diagnostic.code, drawn.diagnostic.message);
    }
    out
}

/// A diagnostic with its file, as miette wants it.
struct Drawn<'a> {
    diagnostic: &'a Diagnostic,
    source: Option<NamedSource<Excerpt>>,
    /// The diagnostic's span in the excerpt.
    label: std::ops::Range<usize>,
}

impl fmt::Debug for Drawn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl fmt::Display for Drawn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl std::error::Error for Drawn<'_> {}

impl miette::Diagnostic for Drawn<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let code = self.diagnostic.code;
        Some(Box::new(if code.name.is_empty() { code.id.to_owned() } else { format!("{}({})", code.id, code.name) }))
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
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        let span = &self.label;
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            None,
            (span.start, span.end.saturating_sub(span.start)),
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prompty_syntax::LineIndex;

    #[test]
    fn long_lines_render_at_every_span() {
        let lines = ["", "short", &"é".repeat(300), &"a".repeat(400), &"b".repeat(401), &"c".repeat(70_000), "end"];
        let text = lines.join("\n") + "\n";
        let index = LineIndex::new(&text);
        let source = Source::new("f", &text);
        let code = prompty_syntax::codes::WRONG_TYPE;
        let style = Style { color: false, width: 100 };
        let mut offsets: Vec<usize> = (0..text.len()).step_by(997).collect();
        offsets.extend([0, text.len(), text.len() - 1, text.find('c').unwrap_or(0) + 65_536]);
        for &start in &offsets {
            let start = (0..=start).rev().find(|&k| text.is_char_boundary(k)).unwrap_or(0);
            for len in [0, 1, 300, 80_000] {
                let end = (start + len..=text.len()).find(|&k| text.is_char_boundary(k)).unwrap_or(text.len());
                let d = Diagnostic::error(code, start..end, "m");
                let out = source.draw(&d, &style);
                let (line, _) = index.line_col(&text, start);
                assert!(out.contains(&format!("[f:{line}:")), "{start}..{end}:\n{out}");
                assert!(out.lines().all(|l| l.len() < 2_000), "{start}..{end}: a line is not clipped");
            }
        }
    }
}
