//! The diagnostic model shared by the loader, the renderer and the linter.
//!
//! A [`Diagnostic`] is data: a stable code, a severity, a message, a byte span into the
//! original file and an optional help line. Rendering it (miette, JSON, GitHub, SARIF) is
//! the CLI's job.

use std::fmt;
use std::ops::Range;

use serde::Serialize;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A hint that does not indicate a problem by itself.
    Info,
    /// Something that works today but is probably not what the author meant.
    Warning,
    /// The file cannot be used as written.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A stable diagnostic code, e.g. `P002`, with a short kebab-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Code {
    /// The stable code, e.g. `P002`.
    pub id: &'static str,
    /// A short name, e.g. `yaml-syntax`.
    pub name: &'static str,
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id)
    }
}

/// A code as the reference documents it: its severity when it is reported and a one-line
/// summary. Each crate that reports diagnostics lists its codes as `codes::ALL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodeInfo {
    /// The code.
    pub code: Code,
    /// The severity it is reported with.
    pub severity: Severity,
    /// What it means, in one sentence.
    pub summary: &'static str,
}

/// Defines a crate's diagnostic codes: one `Code` constant each (documented by its summary)
/// and `ALL`, every code with its severity and summary, in order.
///
/// ```
/// mod codes {
///     prompty_syntax::define_codes! {
///         MISSING = "PX001", "missing-thing", Error, "The thing is missing.";
///     }
/// }
/// assert_eq!(codes::MISSING.id, "PX001");
/// assert_eq!(codes::ALL[0].severity, prompty_syntax::Severity::Error);
/// ```
#[macro_export]
macro_rules! define_codes {
    ($($ident:ident = $id:literal, $name:literal, $severity:ident, $doc:literal;)*) => {
        $(#[doc = $doc] pub const $ident: $crate::Code = $crate::Code { id: $id, name: $name };)*
        /// Every code of this crate with its severity and summary, in order.
        pub const ALL: &[$crate::CodeInfo] = &[$($crate::CodeInfo {
            code: $ident,
            severity: $crate::Severity::$severity,
            summary: $doc,
        }),*];
    };
}

/// One finding about a file, located by a byte span into the file's original text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// Error, warning or info.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Byte range in the original file (may be empty: a point).
    pub span: Range<usize>,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A new diagnostic with the code's default severity.
    pub fn new(code: Code, severity: Severity, span: Range<usize>, message: impl Into<String>) -> Self {
        Self { code, severity, message: message.into(), span, help: None }
    }

    /// An error.
    pub fn error(code: Code, span: Range<usize>, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, span, message)
    }

    /// A warning.
    pub fn warning(code: Code, span: Range<usize>, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, span, message)
    }

    /// Adds a help line.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// `error[P002]: message`, then `help: ...` on a line of its own when there is help. The
/// span is not shown: it is a byte range, which only the file's text turns into a line
/// and column (see [`LineIndex`]).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {}", self.severity, self.code.id, self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\nhelp: {help}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// Maps byte offsets of a text to 1-based line and column numbers (columns count characters).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// Characters before each block of [`CHAR_BLOCK`] bytes, so that a column costs at most
    /// one block of counting however long its line is.
    chars_before_block: Vec<usize>,
    len: usize,
}

/// Bytes per entry of [`LineIndex::chars_before_block`].
const CHAR_BLOCK: usize = 256;

/// Whether a byte starts a UTF-8 character (is not a continuation byte).
fn starts_char(b: u8) -> bool {
    b & 0xC0 != 0x80
}

impl LineIndex {
    /// Indexes `text`. Lines end at `\n`, `\r\n` or a lone `\r` (the line breaks of
    /// universal-newline reading and of the language server protocol).
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        let bytes = text.as_bytes();
        // The line breaks found by a vectorized search, not byte by byte.
        starts.extend(
            memchr::memchr2_iter(b'\n', b'\r', bytes)
                .filter(|&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
                .map(|i| i + 1),
        );
        let mut chars_before_block = Vec::with_capacity(text.len() / CHAR_BLOCK + 1);
        let mut chars = 0usize;
        for block in text.as_bytes().chunks(CHAR_BLOCK) {
            chars_before_block.push(chars);
            // A count the compiler vectorizes (a sum of 0s and 1s, no branch per byte).
            chars += block.iter().map(|&b| usize::from(starts_char(b))).sum::<usize>();
        }
        // The end of a text whose length is a multiple of the block starts a block of its own.
        chars_before_block.push(chars);
        Self { starts, chars_before_block, len: text.len() }
    }

    /// Characters in `text[..offset]` (`offset` within the indexed text).
    fn chars_before(&self, text: &str, offset: usize) -> usize {
        let block = offset / CHAR_BLOCK;
        let base = self.chars_before_block.get(block).copied().unwrap_or(0);
        let tail = text.as_bytes().get(block * CHAR_BLOCK..offset).unwrap_or_default();
        base + tail.iter().filter(|&&b| starts_char(b)).count()
    }

    /// 1-based (line, column) of a byte offset; offsets past the end clamp to the end.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.len);
        let line = self.starts.partition_point(|&s| s <= offset).saturating_sub(1);
        let start = self.starts.get(line).copied().unwrap_or(0);
        let col = match text.get(start..offset) {
            // The indexed text: count through the block table, in time independent of the line's length.
            Some(_) if text.len() == self.len => self.chars_before(text, offset) - self.chars_before(text, start),
            Some(s) => s.chars().count(),
            None => offset - start,
        };
        (line + 1, col + 1)
    }

    /// Byte offset of a 1-based (line, column) position, columns counting characters; a
    /// column past the end of its line stops at the line's break (`\n`, `\r\n` or a lone
    /// `\r`, as [`LineIndex::new`] ends lines).
    pub fn offset(&self, text: &str, line: usize, col: usize) -> usize {
        let Some(&start) = self.starts.get(line.saturating_sub(1)) else {
            return self.len;
        };
        let rest = text.get(start..).unwrap_or("");
        let mut off = start;
        for (i, (b, c)) in rest.char_indices().enumerate() {
            if i + 1 >= col || c == '\n' || c == '\r' {
                return start + b;
            }
            off = start + b + c.len_utf8();
        }
        off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_shows_severity_code_message_and_help() {
        let code = Code { id: "P002", name: "yaml-syntax" };
        let d = Diagnostic::error(code, 3..4, "bad indentation");
        assert_eq!(d.to_string(), "error[P002]: bad indentation");
        let d = Diagnostic::warning(code, 0..0, "odd").with_help("indent with spaces");
        assert_eq!(d.to_string(), "warning[P002]: odd\nhelp: indent with spaces");
        let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(d);
        assert!(boxed.source().is_none());
    }

    #[test]
    fn line_col_round_trip() {
        let text = "ab\ncé\r\nx";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), (1, 1));
        assert_eq!(idx.line_col(text, 3), (2, 1));
        assert_eq!(idx.line_col(text, 4), (2, 2));
        assert_eq!(idx.line_col(text, 6), (2, 3));
        assert_eq!(idx.line_col(text, 8), (3, 1));
        assert_eq!(idx.offset(text, 2, 3), 6);
        assert_eq!(idx.offset(text, 3, 1), 8);
        assert_eq!(idx.offset(text, 9, 1), text.len());
        // A column past the end of a line stops at its break, whichever it is.
        let text = "ab\ncd\r\nef\rgh";
        let idx = LineIndex::new(text);
        assert_eq!((idx.offset(text, 1, 9), idx.offset(text, 2, 9), idx.offset(text, 3, 9)), (2, 5, 9));
        assert_eq!(idx.offset(text, 4, 9), text.len());
    }

    /// The end of a text whose length is a multiple of the index's block size has the
    /// column after its last character, on the first line and on later ones.
    #[test]
    fn the_end_of_a_text_a_block_long() {
        for len in [256, 512, 1024] {
            let one_line = "a".repeat(len);
            assert_eq!(LineIndex::new(&one_line).line_col(&one_line, len), (1, len + 1));
            let two_lines = format!("{}\n{}", "b".repeat(99), "c".repeat(len - 100));
            assert_eq!(LineIndex::new(&two_lines).line_col(&two_lines, len), (2, len - 100 + 1));
        }
    }

    /// Columns through the block table equal counting the line's characters, on long lines
    /// of mixed one- to four-byte characters, at every character boundary.
    #[test]
    fn columns_of_long_lines() {
        let line: String = (0..700).map(|i| ['a', '\u{e9}', '\u{20ac}', '\u{1f600}'][i % 4]).collect();
        let text = format!("{line}\n{line}\r\n\n{line}");
        let idx = LineIndex::new(&text);
        for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
            let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let line = text[..offset].matches('\n').count() + 1;
            assert_eq!(idx.line_col(&text, offset), (line, text[start..offset].chars().count() + 1), "at {offset}");
        }
    }
}
