//! Splitting a `.prompty` file into front matter and body.
//!
//! The split is line-based: a fence is a line whose text, trimmed, is exactly `---` or
//! `+++`. The opener may be preceded by blank lines (and a byte-order mark); the closer is
//! the first fence line after it. Every piece keeps its byte span in the original text.

use std::ops::Range;

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{line_ending, space0};
use nom::combinator::{eof, value};
use nom::{IResult, Parser};

use crate::codes;
use crate::diagnostic::Diagnostic;

/// A slice of the original file and where it sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece<'a> {
    /// The text.
    pub text: &'a str,
    /// Its byte span in the original file.
    pub span: Range<usize>,
}

/// The pieces of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the fences, when the file has front matter.
    pub front_matter: Option<Piece<'a>>,
    /// The opening fence line (without its line ending).
    pub open_fence: Option<Range<usize>>,
    /// Everything after the closing fence line, or the whole file without front matter.
    pub body: Piece<'a>,
}

/// The kind of fence: `---` or `+++`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fence {
    Dashes,
    Pluses,
}

/// A fence line: optional blanks, the fence, optional blanks, then a line ending or the end.
fn fence_line(input: &str) -> IResult<&str, Fence> {
    let (rest, (_, fence, _, _)) = (
        space0,
        alt((value(Fence::Dashes, tag("---")), value(Fence::Pluses, tag("+++")))),
        space0,
        alt((line_ending, tag("\r"), eof)),
    )
        .parse(input)?;
    Ok((rest, fence))
}

/// Lines of `text` starting at byte `from`, as (start, end-without-newline, next-start).
/// A line ends at `\n`, `\r\n` or a lone `\r` (as universal-newline reading does).
fn lines(text: &str, from: usize) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= text.len() {
            return None;
        }
        let start = pos;
        let rest = text.get(start..)?;
        let (end, next) = match memchr::memchr2(b'\n', b'\r', rest.as_bytes()) {
            Some(i) if rest.as_bytes().get(i..i + 2) == Some(b"\r\n") => (start + i, start + i + 2),
            Some(i) => (start + i, start + i + 1),
            None => (text.len(), text.len()),
        };
        pos = next;
        Some((start, end, next))
    })
}

fn is_fence(text: &str, start: usize, next: usize) -> bool {
    text.get(start..next).is_some_and(|line| {
        // Most lines are not fences: their first non-blank byte says so.
        let first = line.bytes().find(|&b| b != b' ' && b != b'\t');
        matches!(first, Some(b'-' | b'+')) && fence_line(line).is_ok()
    })
}

/// Splits `text`. A leading byte-order mark is skipped (spans still count it).
pub fn split(text: &str) -> Result<Split<'_>, Diagnostic> {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    // The opener: the first non-blank line, if it is a fence.
    let opener = lines(text, bom).find(|&(s, e, _)| text.get(s..e).is_some_and(|l| !l.trim().is_empty()));
    let Some((open_start, open_end, open_next)) = opener.filter(|&(s, _, n)| is_fence(text, s, n)) else {
        return Ok(Split {
            front_matter: None,
            open_fence: None,
            body: Piece { text: text.get(bom..).unwrap_or(""), span: bom..text.len() },
        });
    };
    let open_fence = Some(open_start + leading_blanks(text, open_start)..open_end);
    let Some((close_start, _, close_next)) = lines(text, open_next).find(|&(s, _, n)| is_fence(text, s, n)) else {
        return Err(Diagnostic::error(
            codes::UNTERMINATED_FRONT_MATTER,
            open_start + leading_blanks(text, open_start)..open_end,
            "front matter is never closed",
        )
        .with_help("add a line `---` after the front matter, before the prompt body"));
    };
    let fm = text.get(open_next..close_start).unwrap_or("");
    let body = text.get(close_next..).unwrap_or("");
    Ok(Split {
        front_matter: Some(Piece { text: fm, span: open_next..close_start }),
        open_fence,
        body: Piece { text: body, span: close_next..text.len() },
    })
}

fn leading_blanks(text: &str, start: usize) -> usize {
    text.get(start..).map_or(0, |s| s.len() - s.trim_start_matches([' ', '\t']).len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> (Option<&str>, &str) {
        let s = split(text).expect("splits");
        (s.front_matter.map(|p| p.text), s.body.text)
    }

    #[test]
    fn normative_vectors() {
        assert_eq!(parts("---\nname: test\n---\nHello world"), (Some("name: test\n"), "Hello world"));
        assert_eq!(parts("Just a prompt with no frontmatter"), (None, "Just a prompt with no frontmatter"));
        assert_eq!(parts("---\n---\nBody only"), (Some(""), "Body only"));
        assert_eq!(parts("  ---\nname: test\n---\nBody"), (Some("name: test\n"), "Body"));
    }

    #[test]
    fn fences_are_whole_lines() {
        assert_eq!(parts("---\ndescription: a---b\n---\nBody"), (Some("description: a---b\n"), "Body"));
        assert_eq!(parts("+++\na: 1\n---\nx"), (Some("a: 1\n"), "x"));
        assert_eq!(parts("---\nname: x\n---"), (Some("name: x\n"), ""));
    }

    #[test]
    fn crlf_and_bom() {
        let text = "\u{feff}---\r\nname: t\r\n---\r\nsystem:\r\nhi";
        let s = split(text).expect("splits");
        assert_eq!(s.front_matter.as_ref().map(|p| p.text), Some("name: t\r\n"));
        assert_eq!(s.body.text, "system:\r\nhi");
        assert_eq!(&text[s.body.span.clone()], "system:\r\nhi");
        assert_eq!(s.open_fence, Some(3..6));
    }

    #[test]
    fn unterminated() {
        let err = split("---\nname: x\n").expect_err("unterminated");
        assert_eq!(err.code, codes::UNTERMINATED_FRONT_MATTER);
        assert_eq!(err.span, 0..3);
    }

    #[test]
    fn cr_only_line_endings() {
        // Classic Mac OS line endings: every line ends with a lone `\r`.
        let text = "---\rname: t\rmodel: m\r---\rsystem:\rhi\r";
        let s = split(text).expect("splits");
        assert_eq!(s.front_matter.as_ref().map(|p| p.text), Some("name: t\rmodel: m\r"));
        assert_eq!(s.body.text, "system:\rhi\r");
        assert_eq!(s.open_fence, Some(0..3));
        // Mixed endings: each line ends where its own line break is.
        assert_eq!(parts("---\r\na: 1\r---\nbody"), (Some("a: 1\r"), "body"));
        // A `\r` inside a line of the front matter still ends that line, as Python's
        // universal newlines do; a fence needs a line of its own.
        assert_eq!(parts("--- \ra: 1\r+++\r"), (Some("a: 1\r"), ""));
        let err = split("---\ra: ---\r").expect_err("unterminated");
        assert_eq!(err.code, codes::UNTERMINATED_FRONT_MATTER);
    }
}
