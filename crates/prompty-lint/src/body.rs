//! The template body as the engines see it (newlines normalized), its lines, and the way
//! back from body offsets to byte offsets in the original file.

use std::ops::Range;

use prompty_syntax::Profile;

/// The body (`prompt.instructions`) with its lines and a map to file offsets.
#[derive(Debug)]
pub(crate) struct Body {
    /// The body as compiled: CRLF and lone CR turned into LF.
    pub(crate) text: String,
    /// File offset of the body's first byte.
    start: usize,
    /// Body offsets of the `\n`s that stood for `\r\n` in the file (a `\r` was dropped before each).
    dropped_cr: Vec<usize>,
    /// Each line's range in `text`, without its `\n`.
    pub(crate) lines: Vec<Range<usize>>,
    /// Whether the file writes CRLF line endings in the body.
    pub(crate) crlf: bool,
}

impl Body {
    /// `original` is the file's body text (from `body_span`), `text` the normalized body.
    pub(crate) fn new(original: &str, start: usize, text: String) -> Self {
        // Body offsets count a `\r\n` as its `\n`: the k-th dropped `\r` (at file offset
        // `at`) sits at body offset `at - k`.
        let dropped_cr: Vec<usize> =
            memchr::memmem::find_iter(original.as_bytes(), b"\r\n").enumerate().map(|(k, at)| at - k).collect();
        let mut lines = Vec::new();
        let mut pos = 0usize;
        loop {
            let end = text.get(pos..).and_then(|s| s.find('\n')).map_or(text.len(), |i| pos + i);
            lines.push(pos..end);
            if end >= text.len() {
                break;
            }
            pos = end + 1;
        }
        let crlf = !dropped_cr.is_empty();
        Self { text, start, dropped_cr, lines, crlf }
    }

    /// The file offset of body offset `offset`. An offset at a `\n` written as `\r\n` maps
    /// to the `\r`, so a range that ends at a line's end never takes the `\r` with it.
    pub(crate) fn to_file(&self, offset: usize) -> usize {
        self.start + offset + self.dropped_cr.partition_point(|&p| p < offset)
    }

    /// The file span of a body range.
    pub(crate) fn span(&self, range: Range<usize>) -> Range<usize> {
        let start = self.to_file(range.start);
        start..self.to_file(range.end).max(start)
    }

    /// The text of a line.
    pub(crate) fn line(&self, index: usize) -> &str {
        self.lines.get(index).and_then(|r| self.text.get(r.clone())).unwrap_or("")
    }

    /// The index of the line holding body offset `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.lines.partition_point(|r| r.start <= offset).saturating_sub(1)
    }

    /// The newline the file uses in the body.
    pub(crate) fn newline(&self) -> &'static str {
        if self.crlf { "\r\n" } else { "\n" }
    }
}

/// A line shaped like a role line: optional `#`, a word, optional `[...]`, a colon, and
/// whatever follows. Offsets are relative to the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoleLike<'a> {
    /// The word as written.
    pub(crate) word: &'a str,
    /// Where the word is.
    pub(crate) word_range: Range<usize>,
    /// The text inside `[...]`, if any.
    pub(crate) attrs: Option<&'a str>,
    /// Where `[...]` is, brackets included.
    pub(crate) attrs_range: Option<Range<usize>>,
    /// Where the colon is.
    pub(crate) colon: usize,
    /// The text after the colon, as written.
    pub(crate) rest: &'a str,
}

/// Parses `line` as a role-shaped line: `\s*#?\s*WORD\s*(\[...\])?\s*:REST`. The word is
/// letters only, so `Note 1:` or `https://` never match.
pub(crate) fn role_like(line: &str) -> Option<RoleLike<'_>> {
    let bytes = line.as_bytes();
    let mut i = skip_blank(bytes, 0);
    if bytes.get(i) == Some(&b'#') {
        i = skip_blank(bytes, i + 1);
    }
    let word_start = i;
    while bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
        i += 1;
    }
    if i == word_start {
        return None;
    }
    let word_range = word_start..i;
    i = skip_blank(bytes, i);
    let mut attrs = None;
    let mut attrs_range = None;
    if bytes.get(i) == Some(&b'[') {
        let close = line.get(i..)?.find(']')? + i;
        attrs = line.get(i + 1..close);
        attrs_range = Some(i..close + 1);
        i = skip_blank(bytes, close + 1);
    }
    if bytes.get(i) != Some(&b':') {
        return None;
    }
    Some(RoleLike {
        word: line.get(word_range.clone())?,
        word_range,
        attrs,
        attrs_range,
        colon: i,
        rest: line.get(i + 1..).unwrap_or(""),
    })
}

fn skip_blank(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    i
}

/// The roles a profile splits on.
pub(crate) fn roles(profile: Profile) -> &'static [&'static str] {
    match profile {
        Profile::Spec => prompty_render::SPEC_ROLES,
        Profile::Promptflow => prompty_render::PROMPTFLOW_ROLES,
    }
}

/// The role a line starts a message with in `profile`, as the renderer splits (the line
/// taken from the template source).
pub(crate) fn role_of(line: &str, profile: Profile) -> Option<&'static str> {
    match profile {
        Profile::Spec => prompty_render::role_line(line).map(|r| r.role),
        Profile::Promptflow => {
            let like = role_like(line)?;
            if like.attrs.is_some() || !like.rest.chars().all(char::is_whitespace) {
                return None;
            }
            let word = like.word.to_ascii_lowercase();
            prompty_render::PROMPTFLOW_ROLES.iter().find(|r| **r == word).copied()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_crlf_offsets() {
        let original = "a\r\nbc\r\nd";
        let body = Body::new(original, 10, "a\nbc\nd".to_owned());
        assert_eq!(body.to_file(0), 10);
        assert_eq!(body.to_file(1), 11);
        assert_eq!(body.to_file(2), 13);
        assert_eq!(body.to_file(5), 17);
        assert_eq!(body.lines, vec![0..1, 2..4, 5..6]);
        assert_eq!(body.line_of(3), 1);
    }

    #[test]
    fn role_shaped_lines() {
        let r = role_like("  # User [name=Bob] : hi").expect("role-like");
        assert_eq!((r.word, r.attrs, r.rest), ("User", Some("name=Bob"), " hi"));
        assert!(role_like("Note 1: x").is_none());
        assert!(role_like("see https://x").is_none());
        assert_eq!(role_of("tool:", Profile::Promptflow), Some("tool"));
        assert_eq!(role_of("tool:", Profile::Spec), None);
        assert_eq!(role_of("# Developer :", Profile::Spec), Some("developer"));
    }
}
