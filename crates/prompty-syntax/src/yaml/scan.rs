//! Front matter read straight from its bytes: the YAML that prompt files are written in
//! (block mappings and sequences, plain and quoted scalars on one line, literal and folded
//! block scalars, flow collections, comments), without a tokenizer or an event queue.
//!
//! Whatever this reader is not sure of it gives up on (`None`), and the caller parses the
//! text the general way: anchors, aliases, tags, `?` keys, merge keys, repeated keys,
//! multi-line plain or quoted scalars, tabs, carriage returns, document markers, odd
//! escapes, empty or whitespace-only block scalars, numbers outside the plain decimal forms.
//! Every node it builds, and every span, is what the `serde-saphyr` path builds for the same
//! text; the differential tests in `yaml/mod.rs` check it on every prompt of the repository
//! and of the conformance suites and on generated front matter.

use std::borrow::Cow;
use std::ops::Range;

use serde_saphyr::granit_parser::ScalarStyle;

use super::fast::{has_duplicate_key, scalar};
use super::node::{MAX_YAML_DEPTH, MAX_YAML_NODES, Node, NodeValue};

/// The longest key read here; the general parser refuses simple keys past 1,024 characters.
const MAX_KEY_BYTES: usize = 1000;

/// Gave up: the general path reads the text.
struct Bail;

type R<T> = Result<T, Bail>;

/// The root node of `yaml` (which starts at byte `base` of the file), or `None` to fall back.
pub(crate) fn parse(yaml: &str, base: usize) -> Option<Node> {
    if !plain_text(yaml.as_bytes()) {
        return None;
    }
    let mut s = Scanner { src: yaml.as_bytes(), text: yaml, pos: 0, line_start: 0, base, nodes: 0 };
    s.document().ok()
}

/// No byte the general parser treats specially or refuses outside quotes: control
/// characters other than tab and line feed, DEL, C1 controls, NEL, the Unicode line and
/// paragraph separators, byte-order marks and the non-characters U+FFFE and U+FFFF.
fn plain_text(b: &[u8]) -> bool {
    // Most front matter is printable ASCII and line feeds: one pass without branches.
    if b.iter().fold(true, |ok, &c| ok & (matches!(c, 0x20..=0x7e) | (c == b'\n'))) {
        return true;
    }
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\t' | b'\n' | 0x20..=0x7e | 0x80..=0xc1 | 0xc3..=0xe1 | 0xe3..=0xee | 0xf0..=0xff => {}
            0xc2 => {
                if b.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)) {
                    return false;
                }
            }
            0xe2 => {
                if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xa8 | 0xa9)) {
                    return false;
                }
            }
            0xef => {
                if matches!((b.get(i + 1), b.get(i + 2)), (Some(0xbb), Some(0xbf)) | (Some(0xbf), Some(0xbe | 0xbf))) {
                    return false;
                }
            }
            _ => return false,
        }
        i += 1;
    }
    true
}

/// Bytes that cannot start a plain scalar or a key here.
fn indicator(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

fn flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

struct Scanner<'a> {
    src: &'a [u8],
    text: &'a str,
    /// The next byte to read.
    pos: usize,
    /// The start of the line holding `pos`.
    line_start: usize,
    /// Where the YAML starts in the file.
    base: usize,
    /// Nodes built so far, counted as the event path counts them.
    nodes: usize,
}

impl<'a> Scanner<'a> {
    fn at(&self, i: usize) -> Option<u8> {
        self.src.get(i).copied()
    }

    fn peek(&self) -> Option<u8> {
        self.at(self.pos)
    }

    fn text(&self, r: Range<usize>) -> R<&'a str> {
        let text: &'a str = self.text;
        text.get(r).ok_or(Bail)
    }

    fn node(&self, value: NodeValue, span: Range<usize>) -> Node {
        Node { value, span: self.base + span.start..self.base + span.end }
    }

    /// Counts a node against the limits; past either, the general path reports the breach.
    fn count(&mut self, depth: usize) -> R<()> {
        self.nodes += 1;
        if depth >= MAX_YAML_DEPTH || self.nodes > MAX_YAML_NODES {
            return Err(Bail);
        }
        Ok(())
    }

    fn column(&self) -> usize {
        self.pos - self.line_start
    }

    fn document(&mut self) -> R<Node> {
        let Some(col) = self.next_line()? else { return Err(Bail) };
        let root = if self.at_entry() {
            self.block_seq(col, 0, false)?
        } else if self.key_here()? {
            self.block_map(col, 0)?
        } else {
            return Err(Bail);
        };
        match self.next_line()? {
            None => Ok(root),
            Some(_) => Err(Bail),
        }
    }

    /// Moves to the first content byte at or after `pos`, past spaces, blank lines and
    /// comment lines; its column, or `None` at the end of the text.
    fn next_line(&mut self) -> R<Option<usize>> {
        loop {
            while self.peek() == Some(b' ') {
                self.pos += 1;
            }
            match self.peek() {
                None => return Ok(None),
                Some(b'\n') => {
                    self.pos += 1;
                    self.line_start = self.pos;
                }
                Some(b'#') if self.pos == self.line_start || self.at(self.pos - 1) == Some(b' ') => {
                    self.skip_to_line_end();
                }
                Some(b'\t') => return Err(Bail),
                Some(_) => {
                    let col = self.column();
                    if col == 0 && self.document_marker() {
                        return Err(Bail);
                    }
                    return Ok(Some(col));
                }
            }
        }
    }

    /// A `---` or `...` line, or a `%` directive, at column 0.
    fn document_marker(&self) -> bool {
        let rest = self.src.get(self.pos..).unwrap_or_default();
        rest.starts_with(b"%")
            || (rest.starts_with(b"---") || rest.starts_with(b"..."))
                && matches!(rest.get(3), None | Some(b' ' | b'\n' | b'\t'))
    }

    fn skip_to_line_end(&mut self) {
        let rest = self.src.get(self.pos..).unwrap_or_default();
        self.pos += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
    }

    /// After a value: spaces, an optional comment, then the end of the line (consumed).
    fn end_line(&mut self) -> R<()> {
        let before = self.pos;
        while self.peek() == Some(b' ') {
            self.pos += 1;
        }
        match self.peek() {
            None => Ok(()),
            Some(b'\n') => {
                self.pos += 1;
                self.line_start = self.pos;
                Ok(())
            }
            Some(b'#') if self.pos > before => {
                self.skip_to_line_end();
                Ok(())
            }
            _ => Err(Bail),
        }
    }

    /// Whether `pos` is at a block sequence entry: `-` then a space, a line end or the end.
    fn at_entry(&self) -> bool {
        self.peek() == Some(b'-') && matches!(self.at(self.pos + 1), None | Some(b' ' | b'\n'))
    }

    /// Whether the line from `pos` starts with a key and its `:`.
    fn key_here(&self) -> R<bool> {
        Ok(self.key_end()?.is_some())
    }

    /// The end of the key at `pos` and the position of its `:`, when the line starts with
    /// a key; gives up on keys this reader does not take.
    fn key_end(&self) -> R<Option<(usize, usize)>> {
        let start = self.pos;
        let end = match self.peek() {
            Some(q @ (b'\'' | b'"')) => {
                let mut i = start + 1;
                loop {
                    match self.at(i) {
                        None | Some(b'\n') => return Err(Bail),
                        Some(b'\\') if q == b'"' => i += 2,
                        Some(c) if c == q => {
                            if q == b'\'' && self.at(i + 1) == Some(b'\'') {
                                i += 2;
                            } else {
                                break i + 1;
                            }
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            Some(c) if !indicator(c) && c != b' ' && c != b'\t' => {
                let mut i = start;
                loop {
                    match self.at(i) {
                        None | Some(b'\n') => return Ok(None),
                        Some(b'\t') => return Err(Bail),
                        Some(b'#') if self.at(i - 1) == Some(b' ') => return Ok(None),
                        Some(b':') if matches!(self.at(i + 1), None | Some(b' ' | b'\n')) => break i,
                        Some(_) => i += 1,
                    }
                }
            }
            _ => return Err(Bail),
        };
        if end - start > MAX_KEY_BYTES {
            return Err(Bail);
        }
        if self.at(end) == Some(b':') && matches!(self.at(end + 1), None | Some(b' ' | b'\n')) {
            if self.at(end - 1) == Some(b' ') {
                return Err(Bail);
            }
            return Ok(Some((end, end)));
        }
        Ok(None)
    }

    /// The key at `pos` (a string other than `<<`), then past its `:`.
    fn key(&mut self, depth: usize) -> R<Node> {
        let (end, colon) = self.key_end()?.ok_or(Bail)?;
        self.count(depth)?;
        let start = self.pos;
        let value = match self.peek() {
            Some(b'\'') => NodeValue::String(self.single_quoted(start, end)?),
            Some(b'"') => NodeValue::String(self.double_quoted(start, end)?),
            _ => scalar(Cow::Borrowed(self.text(start..end)?), ScalarStyle::Plain).ok_or(Bail)?,
        };
        if !matches!(&value, NodeValue::String(k) if k != "<<") {
            return Err(Bail);
        }
        self.pos = colon + 1;
        Ok(self.node(value, start..end))
    }

    fn block_map(&mut self, indent: usize, depth: usize) -> R<Node> {
        self.count(depth)?;
        let mut entries: Vec<(Node, Node)> = Vec::new();
        loop {
            let key = self.key(depth + 1)?;
            let key_end = key.span.end - self.base;
            let value = self.value(indent, key_end, depth + 1, true)?;
            entries.push((key, value));
            match self.next_line()? {
                None => break,
                Some(col) if col == indent && !self.at_entry() => {}
                Some(col) if col < indent => break,
                Some(_) => return Err(Bail),
            }
        }
        if has_duplicate_key(&entries) {
            return Err(Bail);
        }
        let start = entries.first().map_or(0, |(k, _)| k.span.start);
        let end = entries.last().map_or(start, |(_, v)| v.span.end.max(start));
        Ok(Node { value: NodeValue::Map(entries), span: start..end })
    }

    /// A block sequence whose first `-` is at `pos`; `indentless` when it sits at the
    /// column of the mapping key it belongs to.
    fn block_seq(&mut self, indent: usize, depth: usize, indentless: bool) -> R<Node> {
        self.count(depth)?;
        let mut open = self.pos + self.base;
        let mut items = Vec::new();
        loop {
            self.pos += 1;
            while self.peek() == Some(b' ') {
                self.pos += 1;
            }
            // An indentless sequence starts where its first entry's content does (on
            // the `-` line, past the spaces), like the general parser's.
            if indentless && items.is_empty() {
                open = self.pos + self.base;
            }
            let item = match self.peek() {
                None | Some(b'\n') => {
                    let at = self.pos;
                    self.end_line()?;
                    self.nested(indent, at, depth + 1, false)?
                }
                Some(b'#') => return Err(Bail),
                Some(_) if self.at_entry() => {
                    let col = self.column();
                    self.block_seq(col, depth + 1, false)?
                }
                Some(_) if self.key_here()? => {
                    let col = self.column();
                    self.block_map(col, depth + 1)?
                }
                Some(_) => self.inline(indent, depth + 1)?,
            };
            items.push(item);
            match self.next_line()? {
                None => break,
                Some(col) if col == indent && self.at_entry() => {}
                Some(col) if col < indent => break,
                Some(col) if col == indent && indentless => break,
                Some(_) => return Err(Bail),
            }
        }
        let end = items.last().map_or(open, |n| n.span.end.max(open));
        Ok(Node { value: NodeValue::Seq(items), span: open..end })
    }

    /// The value after a key's `:` in a mapping at column `indent`.
    fn value(&mut self, indent: usize, key_end: usize, depth: usize, map: bool) -> R<Node> {
        let after_colon = self.pos;
        while self.peek() == Some(b' ') {
            self.pos += 1;
        }
        match self.peek() {
            None | Some(b'\n' | b'#') => {
                self.pos = after_colon;
                self.end_line()?;
                self.nested(indent, key_end, depth, map)
            }
            Some(_) => self.inline(indent, depth),
        }
    }

    /// A value on the lines below its key or `-`: a more indented mapping or sequence, a
    /// sequence at the key's own column, or null (placed at `null_at`).
    fn nested(&mut self, indent: usize, null_at: usize, depth: usize, map: bool) -> R<Node> {
        match self.next_line()? {
            Some(col) if col > indent => {
                if self.at_entry() {
                    self.block_seq(col, depth, false)
                } else if self.key_here()? {
                    self.block_map(col, depth)
                } else {
                    Err(Bail)
                }
            }
            Some(col) if col == indent && map && self.at_entry() => self.block_seq(col, depth, true),
            _ => {
                self.count(depth)?;
                Ok(self.node(NodeValue::Null, null_at..null_at))
            }
        }
    }

    /// A value that starts on the current line at `pos` (not a key, not a `-` entry), in a
    /// collection at column `indent`; consumes the rest of its last line.
    fn inline(&mut self, indent: usize, depth: usize) -> R<Node> {
        let node = match self.peek().ok_or(Bail)? {
            b'|' | b'>' => return self.block_scalar(indent, depth),
            b'[' | b'{' => self.flow(indent, depth)?,
            b'\'' | b'"' => self.quoted(depth)?,
            b'-' if matches!(self.at(self.pos + 1), None | Some(b' ' | b'\n')) => return Err(Bail),
            b'-' => self.plain(depth)?,
            c if indicator(c) => return Err(Bail),
            _ => self.plain(depth)?,
        };
        self.end_line()?;
        Ok(node)
    }

    /// A plain scalar on one line, in block context.
    fn plain(&mut self, depth: usize) -> R<Node> {
        self.count(depth)?;
        let start = self.pos;
        let mut i = start;
        let mut end = start;
        loop {
            match self.at(i) {
                None | Some(b'\n') => break,
                Some(b' ') => {
                    if self.at(i + 1) == Some(b'#') {
                        break;
                    }
                }
                Some(b'\t') => return Err(Bail),
                Some(b':') if matches!(self.at(i + 1), None | Some(b' ' | b'\n')) => return Err(Bail),
                Some(_) => end = i + 1,
            }
            i += 1;
        }
        self.pos = end;
        let value = scalar(Cow::Borrowed(self.text(start..end)?), ScalarStyle::Plain).ok_or(Bail)?;
        Ok(self.node(value, start..end))
    }

    fn quoted(&mut self, depth: usize) -> R<Node> {
        self.count(depth)?;
        let start = self.pos;
        let q = self.peek().ok_or(Bail)?;
        let mut i = start + 1;
        let end = loop {
            match self.at(i) {
                None | Some(b'\n') => return Err(Bail),
                Some(b'\\') if q == b'"' => i += 2,
                Some(c) if c == q => {
                    if q == b'\'' && self.at(i + 1) == Some(b'\'') {
                        i += 2;
                    } else {
                        break i + 1;
                    }
                }
                Some(_) => i += 1,
            }
        };
        let value = if q == b'\'' { self.single_quoted(start, end)? } else { self.double_quoted(start, end)? };
        self.pos = end;
        Ok(self.node(NodeValue::String(value), start..end))
    }

    /// The text of `'...'` at `start..end` (quotes included).
    fn single_quoted(&self, start: usize, end: usize) -> R<String> {
        let inner = self.text(start + 1..end - 1)?;
        Ok(if inner.contains('\'') { inner.replace("''", "'") } else { inner.to_owned() })
    }

    /// The text of `"..."` at `start..end` (quotes included), for the escapes JSON has
    /// and a few more; any other escape gives up.
    fn double_quoted(&self, start: usize, end: usize) -> R<String> {
        let inner = self.text(start + 1..end - 1)?;
        if !inner.contains('\\') {
            return Ok(inner.to_owned());
        }
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let e = match chars.next().ok_or(Bail)? {
                '0' => '\0',
                'a' => '\u{7}',
                'b' => '\u{8}',
                't' | '\t' => '\t',
                'n' => '\n',
                'v' => '\u{b}',
                'f' => '\u{c}',
                'r' => '\r',
                'e' => '\u{1b}',
                ' ' => ' ',
                '"' => '"',
                '/' => '/',
                '\\' => '\\',
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if hex.len() != 4 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(Bail);
                    }
                    u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).ok_or(Bail)?
                }
                _ => return Err(Bail),
            };
            out.push(e);
        }
        Ok(out)
    }

    /// A literal (`|`) or folded (`>`) block scalar whose header is at `pos`, for a value
    /// of a collection at column `indent`. Leaves `pos` on the line that ends it.
    fn block_scalar(&mut self, indent: usize, depth: usize) -> R<Node> {
        self.count(depth)?;
        let literal = self.peek() == Some(b'|');
        self.pos += 1;
        let chomp = match self.peek() {
            Some(c @ (b'-' | b'+')) => {
                self.pos += 1;
                c
            }
            _ => b' ',
        };
        if !matches!(self.peek(), Some(b' ' | b'\n')) {
            return Err(Bail);
        }
        self.end_line()?;
        if self.pos >= self.src.len() {
            return Err(Bail);
        }
        // The first line sets the indentation; a blank one first gives up.
        let first = self.pos;
        let spaces = self.src.get(first..).unwrap_or_default().iter().take_while(|&&c| c == b' ').count();
        if spaces <= indent || matches!(self.at(first + spaces), None | Some(b'\n' | b'\t')) {
            return Err(Bail);
        }
        let content = spaces;
        let start = first + content;
        let mut out = String::new();
        let mut blank = 0usize;
        let mut any = false;
        let mut ls = first;
        let end = loop {
            if ls >= self.src.len() {
                break ls;
            }
            let rest = self.src.get(ls..).unwrap_or_default();
            let s = rest.iter().take_while(|&&c| c == b' ').count();
            match rest.get(s) {
                Some(b'\n') => {
                    if s > content {
                        return Err(Bail);
                    }
                    blank += 1;
                    ls += s + 1;
                    continue;
                }
                None => {
                    if s > content {
                        return Err(Bail);
                    }
                    break ls + s;
                }
                Some(b'\t') if s < content => return Err(Bail),
                Some(_) if s < content => break ls + s,
                Some(_) => {}
            }
            let text_start = ls + content;
            let eol = rest.iter().position(|&c| c == b'\n').ok_or(Bail)? + ls;
            let line = self.text(text_start..eol)?;
            if !literal && line.starts_with([' ', '\t']) {
                return Err(Bail);
            }
            if any {
                match (literal, blank) {
                    (true, n) => out.extend(std::iter::repeat_n('\n', n + 1)),
                    (false, 0) => out.push(' '),
                    (false, n) => out.extend(std::iter::repeat_n('\n', n)),
                }
            } else if blank > 0 {
                return Err(Bail);
            }
            out.push_str(line);
            any = true;
            blank = 0;
            ls = eol + 1;
        };
        match chomp {
            b'-' => {}
            b'+' => out.extend(std::iter::repeat_n('\n', blank + 1)),
            _ => out.push('\n'),
        }
        // The line that ends the scalar is read by the caller.
        self.line_start = self.src.get(..end).map_or(0, |b| b.iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1));
        self.pos = end;
        Ok(self.node(NodeValue::String(out), start..end))
    }

    /// A flow collection at `pos`, inside a block collection at column `indent`.
    fn flow(&mut self, indent: usize, depth: usize) -> R<Node> {
        self.count(depth)?;
        let start = self.pos;
        let close = if self.peek() == Some(b'[') { b']' } else { b'}' };
        self.pos += 1;
        let value = if close == b']' {
            let mut items = Vec::new();
            loop {
                self.flow_space(indent)?;
                if self.peek() == Some(b']') {
                    break;
                }
                items.push(self.flow_node(indent, depth + 1)?);
                self.flow_space(indent)?;
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b']') => break,
                    _ => return Err(Bail),
                }
            }
            NodeValue::Seq(items)
        } else {
            let mut entries: Vec<(Node, Node)> = Vec::new();
            loop {
                self.flow_space(indent)?;
                if self.peek() == Some(b'}') {
                    break;
                }
                let quoted = matches!(self.peek(), Some(b'\'' | b'"'));
                let key = self.flow_node(indent, depth + 1)?;
                if !matches!(&key.value, NodeValue::String(k) if k != "<<") {
                    return Err(Bail);
                }
                if self.peek() != Some(b':') {
                    return Err(Bail);
                }
                self.pos += 1;
                if !quoted && !matches!(self.peek(), Some(b' ' | b'\n')) {
                    return Err(Bail);
                }
                self.flow_space(indent)?;
                if matches!(self.peek(), Some(b',' | b'}')) {
                    return Err(Bail);
                }
                let value = self.flow_node(indent, depth + 1)?;
                entries.push((key, value));
                self.flow_space(indent)?;
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b'}') => break,
                    _ => return Err(Bail),
                }
            }
            if has_duplicate_key(&entries) {
                return Err(Bail);
            }
            NodeValue::Map(entries)
        };
        self.pos += 1;
        Ok(self.node(value, start..self.pos))
    }

    /// Spaces, line ends and comments inside a flow collection; continuation lines must be
    /// indented past the block collection holding it.
    fn flow_space(&mut self, indent: usize) -> R<()> {
        loop {
            match self.peek() {
                Some(b' ') => self.pos += 1,
                Some(b'\n') => {
                    self.pos += 1;
                    self.line_start = self.pos;
                    while self.peek() == Some(b' ') {
                        self.pos += 1;
                    }
                    if !matches!(self.peek(), Some(b'\n') | None) && self.column() <= indent {
                        return Err(Bail);
                    }
                }
                Some(b'#') if matches!(self.at(self.pos.wrapping_sub(1)), Some(b' ' | b'\n')) => {
                    self.skip_to_line_end();
                }
                Some(b'\t') => return Err(Bail),
                _ => return Ok(()),
            }
        }
    }

    fn flow_node(&mut self, indent: usize, depth: usize) -> R<Node> {
        match self.peek().ok_or(Bail)? {
            b'[' | b'{' => self.flow(indent, depth),
            b'\'' | b'"' => self.quoted(depth),
            b'-' if !matches!(self.at(self.pos + 1), None | Some(b' ' | b'\n' | b',' | b']' | b'}')) => {
                self.flow_plain(depth)
            }
            c if indicator(c) => Err(Bail),
            _ => self.flow_plain(depth),
        }
    }

    /// A plain scalar inside a flow collection, on one line.
    fn flow_plain(&mut self, depth: usize) -> R<Node> {
        self.count(depth)?;
        let start = self.pos;
        let mut i = start;
        let mut end = start;
        loop {
            match self.at(i) {
                None | Some(b'\n') => break,
                Some(c) if flow_indicator(c) => break,
                Some(b' ') => {
                    if self.at(i + 1) == Some(b'#') {
                        break;
                    }
                }
                Some(b'\t') => return Err(Bail),
                Some(b':')
                    if matches!(self.at(i + 1), None | Some(b' ' | b'\n' | b',' | b'[' | b']' | b'{' | b'}')) =>
                {
                    break;
                }
                Some(_) => end = i + 1,
            }
            i += 1;
        }
        self.pos = end;
        let value = scalar(Cow::Borrowed(self.text(start..end)?), ScalarStyle::Plain).ok_or(Bail)?;
        Ok(self.node(value, start..end))
    }
}
