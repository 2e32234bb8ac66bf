//! The part of a file that one human diagnostic shows.
//!
//! miette finds the lines around a span by scanning its source from the first byte, so
//! handing it the whole file for each of N diagnostics costs N times the file size. A file
//! is indexed once ([`SourceLines`]); each diagnostic then gets an [`Excerpt`]: a few whole
//! lines around its span, which miette reads exactly as it would read the full file (the
//! same line numbers, columns and absolute offsets), in time proportional to those lines.
//!
//! A line longer than [`LONG_LINE`] bytes is shown clipped: around the span on the span's
//! own lines, its beginning on the context lines, with `…` where text was left out. The
//! header still gives the true line and column; the underline sits under the span. So one
//! minified 1 MB line with thousands of findings prints a few hundred bytes per finding,
//! not the whole line each time.

use std::ops::Range;

use miette::{MietteError, MietteSpanContents, NamedSource, SourceCode, SourceSpan, SpanContents};

/// Whole lines kept before the span's first line and after its last: more than the one line
/// of context the graphical handler shows, so the excerpt never cuts what it reads.
const MARGIN_LINES: usize = 3;

/// Lines up to this many bytes are shown whole.
const LONG_LINE: usize = 400;

/// Bytes of a clipped line kept on each side of the span (or from the start of a clipped
/// context line, twice this).
const AROUND: usize = 120;

/// Where text was left out of a clipped line.
const ELLIPSIS: &str = "\u{2026}";

/// A file's text with the starts of its lines as miette counts them (a line ends at `\n`,
/// `\r\n` or a lone `\r`).
pub(crate) struct SourceLines<'a> {
    name: String,
    text: &'a str,
    starts: Vec<usize>,
    /// Character columns, in time independent of the line's length.
    index: prompty_syntax::LineIndex,
}

impl<'a> SourceLines<'a> {
    /// Indexes `text` (one pass); `name` is what the report calls the file.
    pub(crate) fn new(name: &str, text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if ends_line {
                starts.push(i + 1);
            }
        }
        SourceLines { name: name.to_owned(), text, starts, index: prompty_syntax::LineIndex::new(text) }
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// Line `index` as (start, end of its text, end including its line break).
    fn line(&self, index: usize) -> (usize, usize, usize) {
        let start = self.starts.get(index).copied().unwrap_or(self.text.len());
        let next = self.starts.get(index + 1).copied().unwrap_or(self.text.len());
        let bytes = self.text.as_bytes();
        let mut end = next;
        if end > start && bytes.get(end - 1) == Some(&b'\n') {
            end -= 1;
        }
        if end > start && bytes.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end, next)
    }

    /// The nearest character boundary at or before `i`.
    fn floor(&self, mut i: usize) -> usize {
        while !self.text.is_char_boundary(i) {
            i -= 1;
        }
        i
    }

    /// The nearest character boundary at or after `i` (at most the text's length).
    fn ceil(&self, i: usize) -> usize {
        let mut i = i.min(self.text.len());
        while !self.text.is_char_boundary(i) {
            i += 1;
        }
        i
    }

    /// The lines around `span`, named like the file, and the span in the excerpt's
    /// coordinates (the same as the file's unless a line was clipped).
    pub(crate) fn excerpt(&self, span: Range<usize>) -> (NamedSource<Excerpt>, Range<usize>) {
        let (s, e) = (span.start, span.end.max(span.start));
        let first_span_line = self.line_of(s);
        let last_span_line = self.line_of(e);
        let first = first_span_line.saturating_sub(MARGIN_LINES);
        let last = last_span_line + MARGIN_LINES;
        let start = self.starts.get(first).copied().unwrap_or(0);
        let mut text = String::new();
        // Kept pieces: (file offset, excerpt offset, length).
        let mut pieces: Vec<(usize, usize, usize)> = Vec::new();
        let keep = |text: &mut String, pieces: &mut Vec<(usize, usize, usize)>, range: Range<usize>| {
            let piece = self.text.get(range.clone()).unwrap_or_default();
            pieces.push((range.start, start + text.len(), piece.len()));
            text.push_str(&visible(piece));
        };
        for index in first..=last.min(self.starts.len() - 1) {
            let (ls, le, next) = self.line(index);
            // The parts of the line shown: all of a short line; of a long one, the text
            // around the span's ends on it, or its beginning when neither end is on it.
            let mut windows: Vec<(usize, usize)> = Vec::with_capacity(2);
            if le - ls <= LONG_LINE {
                windows.push((ls, le));
            } else {
                for point in [s, e] {
                    if (ls..=le).contains(&point) {
                        let from = self.floor(point.saturating_sub(AROUND).max(ls));
                        let to = self.ceil(point.saturating_add(AROUND)).min(le);
                        match windows.last_mut() {
                            Some(last) if from <= last.1 => last.1 = last.1.max(to),
                            _ => windows.push((from, to)),
                        }
                    }
                }
                if windows.is_empty() {
                    windows.push((ls, self.ceil(ls + 2 * AROUND).min(le)));
                }
            }
            let mut at = ls;
            for (from, to) in windows {
                if from > at {
                    text.push_str(ELLIPSIS);
                }
                keep(&mut text, &mut pieces, from..to);
                at = to;
            }
            if at < le {
                text.push_str(ELLIPSIS);
            }
            keep(&mut text, &mut pieces, le..next);
        }
        // A point in a kept piece maps into it; one in clipped text maps to the end of the
        // piece before it.
        let map = |x: usize| {
            let before = pieces.partition_point(|&(file, _, _)| file <= x);
            before
                .checked_sub(1)
                .and_then(|i| pieces.get(i))
                .map_or(start, |&(file, excerpt, len)| excerpt + (x - file).min(len))
        };
        let (vs, ve) = (map(s), map(e));
        // The header's column counts characters, as editors and the other formats do
        // (miette's own counts bytes), and counts what clipping left out.
        let line_start = self.starts.get(first_span_line).copied().unwrap_or(0);
        let column = self.index.line_col(self.text, s).1 - self.index.line_col(self.text, line_start).1;
        let excerpt = Excerpt { text, offset: start, line: first, header: (vs, column) };
        (NamedSource::new(self.name.clone(), excerpt), vs..ve.max(vs))
    }
}

/// Whole lines of a file, starting at byte `offset`, which is the start of line `line`
/// (0-based), with control characters made visible and long lines clipped.
#[derive(Debug)]
pub(crate) struct Excerpt {
    text: String,
    offset: usize,
    line: usize,
    /// The span's start in excerpt coordinates, and its 0-based column in characters in
    /// the file.
    header: (usize, usize),
}

impl Excerpt {
    /// The whole of `text` as one excerpt (what miette would read without this module).
    #[cfg(test)]
    fn whole(text: &str) -> Self {
        Excerpt { text: visible(text), offset: 0, line: 0, header: (usize::MAX, 0) }
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let local = span.offset().checked_sub(self.offset).ok_or(MietteError::OutOfBounds)?;
        let inner = self.text.read_span(
            &SourceSpan::new(local.into(), span.len()),
            context_lines_before,
            context_lines_after,
        )?;
        let mut column = inner.column();
        // The column of the span itself (the header's line:column).
        if context_lines_before == 0 && span.offset() == self.header.0 {
            column = self.header.1;
        }
        Ok(Box::new(MietteSpanContents::new(
            inner.data(),
            SourceSpan::new((inner.span().offset() + self.offset).into(), inner.span().len()),
            inner.line() + self.line,
            column,
            inner.line_count() + self.line,
        )))
    }
}

/// The source as it may be shown on a terminal: control characters other than line breaks
/// and tabs become `?`, one byte for one byte, so spans still point at the same place.
fn visible(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_control() && !matches!(c, '\n' | '\r' | '\t') { '?' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan};
    use std::fmt;

    #[derive(Debug)]
    struct Probe {
        source: NamedSource<Excerpt>,
        span: Range<usize>,
    }

    impl fmt::Display for Probe {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("probe")
        }
    }

    impl std::error::Error for Probe {}

    impl miette::Diagnostic for Probe {
        fn source_code(&self) -> Option<&dyn SourceCode> {
            Some(&self.source)
        }

        fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
            let len = self.span.end.saturating_sub(self.span.start);
            Some(Box::new(std::iter::once(LabeledSpan::new_with_span(None, (self.span.start, len)))))
        }
    }

    fn draw(source: NamedSource<Excerpt>, span: Range<usize>) -> String {
        let handler =
            GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor()).with_width(100).with_links(false);
        let mut out = String::new();
        match handler.render_report(&mut out, &Probe { source, span }) {
            Ok(()) => out,
            Err(e) => format!("render error: {e}"),
        }
    }

    /// `report` with the byte column of its `[file:line:column]` header (the span starting
    /// at `start`) turned into a character column.
    fn in_characters(report: &str, text: &str, start: usize) -> String {
        let Some(open) = report.find("[f.prompty:") else { return report.to_owned() };
        let close = open + report[open..].find(']').unwrap_or_default();
        let header = &report[open + 1..close];
        let (prefix, _) = header.rsplit_once(':').unwrap_or_default();
        // The line starts after the last `\n` or lone `\r` before the span.
        let bytes = text.as_bytes();
        let line_start = (0..start)
            .rev()
            .find(|&i| bytes[i] == b'\n' || (bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
            .map_or(0, |i| i + 1);
        let column = text[line_start..start].chars().count() + 1;
        format!("{}[{prefix}:{column}]{}", &report[..open], &report[close + 1..])
    }

    /// Every span over texts with LF, CRLF and lone CR line ends, multi-byte characters,
    /// control characters and empty lines draws exactly as from the whole file.
    #[test]
    fn an_excerpt_draws_like_the_whole_file() {
        let texts = [
            "---\nname: t\n---\nuser:\nhi\n",
            "a\r\nbb\r\n\r\nccc\r\nd\r\ne\r\nf\r\ng\r\n",
            "one\rtwo\rthree\nfour\r\nfive\n\n\nsix\u{1}x\tz\n",
            "caf\u{e9}\n\u{1f600} smile\nline\nline\nline\nline\nline\nend",
            "x",
            "",
        ];
        let path = "f.prompty";
        let mut checked = 0;
        for text in texts {
            let lines = SourceLines::new(path, text);
            let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            for (i, &start) in bounds.iter().enumerate() {
                for &end in bounds.get(i..).unwrap_or_default().iter().take(12) {
                    let whole = draw(NamedSource::new("f.prompty", Excerpt::whole(text)), start..end);
                    let (source, span) = lines.excerpt(start..end);
                    assert_eq!(span, start..end, "no line is long enough to clip");
                    let part = draw(source, span);
                    // The header's column counts characters where miette's counts bytes.
                    let whole = in_characters(&whole, text, start);
                    assert_eq!(part, whole, "span {start}..{end} of {text:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "only {checked} spans checked");
    }

    /// Lines of 3 KB and 600 KB around a span: the report shows about `2 * AROUND` bytes of
    /// the span's line, the header has the line and column the whole file gives, and the
    /// underline sits under the span. (miette itself cannot draw the 600 KB line whole: an
    /// underline past column 65,535 panics in its formatter.)
    #[test]
    fn long_lines_are_clipped_around_the_span() {
        let header = |report: &str| report.lines().find(|l| l.contains("[f:")).unwrap_or_default().to_owned();
        for units in [1_000, 200_000] {
            let long: String = "\u{e9}x".repeat(units);
            let text = format!("first\n{long}\nSPAN{long}\n{long}\nlast\n");
            let lines = SourceLines::new("f", &text);
            let at = text.find("SPAN").unwrap_or_default();
            // The span's start stays whole; then one `\u{e9}x` two thirds into the line
            // (columns count characters: `\u{e9}x` is three bytes, two characters).
            let deep = 4 + 3 * (units / 3);
            for (real, column) in [(at..at + 4, 1), (at + deep..at + deep + 3, 4 + 2 * (units / 3) + 1)] {
                let (source, span) = lines.excerpt(real.clone());
                let out = draw(source, span);
                assert!(out.len() < 2_000, "{} bytes:\n{out}", out.len());
                assert!(out.contains(&format!("[f:3:{column}]")), "{out}");
                if units == 1_000 {
                    let whole = draw(NamedSource::new("f", Excerpt::whole(&text)), real.clone());
                    let whole = in_characters(&whole.replace("[f:", "[f.prompty:"), &text, real.start);
                    assert_eq!(header(&out), header(&whole.replace("[f.prompty:", "[f:")));
                }
                let shown: Vec<&str> = out.lines().collect();
                let row = shown.iter().position(|l| l.starts_with(" 3 \u{2502}")).unwrap_or_default();
                let (code, mark) = (shown.get(row).copied().unwrap_or(""), shown.get(row + 1).copied().unwrap_or(""));
                let from = mark.chars().position(|c| c == '\u{2500}').unwrap_or_default();
                let first = text.get(real).and_then(|t| t.chars().next());
                assert_eq!(code.chars().nth(from), first, "{code}\n{mark}");
            }
        }
    }

    #[test]
    fn an_excerpt_holds_only_the_lines_around_the_span() {
        let text: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        let lines = SourceLines::new("f", &text);
        let at = text.find("line 5000").unwrap_or_default();
        let (excerpt, _) = lines.excerpt(at..at + 4);
        assert_eq!(excerpt.inner().text.lines().count(), 2 * MARGIN_LINES + 1);
        assert!(excerpt.inner().text.starts_with("line 4997\n"), "{}", excerpt.inner().text);
    }
}
