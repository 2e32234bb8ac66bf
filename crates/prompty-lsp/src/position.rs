//! Byte offsets <-> LSP positions: zero-based lines and UTF-16 code units, as the protocol
//! requires. Lines end at `\n`, `\r\n` or a lone `\r`, as LSP defines them.

use std::ops::Range;

use lsp_types::Position;

/// The line starts of a text, for converting positions both ways.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset of each line's first byte.
    starts: Vec<usize>,
    len: usize,
    /// Whether every byte is ASCII (UTF-16 columns are then byte columns).
    ascii: bool,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while let Some(rel) = bytes.get(i..).and_then(|rest| rest.iter().position(|b| *b == b'\n' || *b == b'\r')) {
            let at = i + rel;
            let next = if bytes.get(at) == Some(&b'\r') && bytes.get(at + 1) == Some(&b'\n') { at + 2 } else { at + 1 };
            starts.push(next);
            i = next;
        }
        Self { starts, len: text.len(), ascii: text.is_ascii() }
    }

    /// The number of lines (a text ending with a newline has an empty last line).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The byte range of line `line` without its line ending; `None` past the last line.
    pub fn line_range(&self, text: &str, line: usize) -> Option<Range<usize>> {
        let start = *self.starts.get(line)?;
        let next = self.starts.get(line + 1).copied().unwrap_or(self.len);
        let raw = text.get(start..next)?;
        let end = start + raw.trim_end_matches(['\n', '\r']).len();
        Some(start..end)
    }

    /// The zero-based line holding byte `offset` (offsets past the end are on the last line).
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset.min(self.len)).saturating_sub(1)
    }

    /// The LSP position of byte `offset`. Offsets past the end clamp to the end; an offset
    /// inside a character or a line ending moves back to the character's or the line
    /// ending's start.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(self.len);
        let line = self.line_of(offset);
        let start = self.starts.get(line).copied().unwrap_or(0);
        let end = self.line_range(text, line).map_or(offset, |r| r.end);
        let mut at = offset.min(end);
        while at > start && !text.is_char_boundary(at) {
            at -= 1;
        }
        let character =
            if self.ascii { at - start } else { text.get(start..at).map_or(0, |s| s.encode_utf16().count()) };
        Position { line: to_u32(line), character: to_u32(character) }
    }

    /// The LSP range of a byte range.
    pub fn range(&self, text: &str, range: Range<usize>) -> lsp_types::Range {
        let start = self.position(text, range.start);
        let end = self.position(text, range.end.max(range.start));
        lsp_types::Range { start, end }
    }

    /// The byte offset of an LSP position. A line past the end is the end of the text; a
    /// character past the line's end is the line's end (as the protocol says); a character
    /// inside a surrogate pair is the start of that character.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let Some(range) = self.line_range(text, position.line as usize) else { return self.len };
        let want = position.character as usize;
        if self.ascii {
            return (range.start + want).min(range.end);
        }
        let line = text.get(range.clone()).unwrap_or("");
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            units += c.len_utf16();
            if units > want {
                return range.start + i;
            }
        }
        range.end
    }

    /// The byte range of an LSP range (the end never before the start).
    pub fn byte_range(&self, text: &str, range: lsp_types::Range) -> Range<usize> {
        let start = self.offset(text, range.start);
        start..self.offset(text, range.end).max(start)
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn utf16_columns_on_non_ascii_lines() {
        // é: 2 bytes, 1 unit; 😀: 4 bytes, 2 units; 中: 3 bytes, 1 unit.
        let text = "ab\né😀中x\n";
        let idx = LineIndex::new(text);
        let x = text.find('x').unwrap_or(0);
        assert_eq!(idx.position(text, x), pos(1, 4));
        assert_eq!(idx.offset(text, pos(1, 4)), x);
        let cjk = text.find('中').unwrap_or(0);
        assert_eq!(idx.position(text, cjk), pos(1, 3));
        assert_eq!(idx.offset(text, pos(1, 3)), cjk);
        // Inside the surrogate pair: the emoji's start.
        assert_eq!(idx.offset(text, pos(1, 2)), text.find('😀').unwrap_or(0));
        // Inside a multi-byte character: its start.
        assert_eq!(idx.position(text, cjk + 1), pos(1, 3));
        // Past the line's end: the line's end; past the last line: the end.
        assert_eq!(idx.offset(text, pos(1, 99)), text.len() - 1);
        assert_eq!(idx.offset(text, pos(9, 0)), text.len());
        assert_eq!(idx.position(text, text.len()), pos(2, 0));
    }

    #[test]
    fn every_line_ending() {
        let text = "a\r\nb\rc\nd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 4);
        assert_eq!(idx.offset(text, pos(1, 0)), 3);
        assert_eq!(idx.offset(text, pos(2, 0)), 5);
        assert_eq!(idx.offset(text, pos(3, 0)), 7);
        // The `\r` of `\r\n` is not a column of the line.
        assert_eq!(idx.position(text, 2), pos(0, 1));
        assert_eq!(idx.offset(text, pos(0, 5)), 1);
        assert_eq!(idx.line_range(text, 0), Some(0..1));
    }

    #[test]
    fn round_trips_every_boundary() {
        let text = "---\nname: ñandú 🦙\n---\nuser:\n{{ q }} — ok\r\n\r\nend";
        let idx = LineIndex::new(text);
        for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let p = idx.position(text, offset);
            let back = idx.offset(text, p);
            let at_line_end = text.get(offset..).is_some_and(|r| r.starts_with(['\r', '\n']));
            if at_line_end && text.get(..offset).is_some_and(|s| s.ends_with('\r')) {
                assert_eq!(back, offset - 1, "offset {offset}");
            } else {
                assert_eq!(back, offset, "offset {offset}");
            }
        }
    }
}
