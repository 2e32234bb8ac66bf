#![allow(dead_code, missing_docs)]
//! The byte lexer the template reader replaced, kept for the differential test: a small Jinja lexer that splits a template the way minijinja's lexer does: plain text,
//! tags, comments and raw blocks (with the profile's trim_blocks and whitespace control),
//! and which tags open and close blocks whose output becomes a value. Used by the layout,
//! the nesting check and promptflow's image pre-pass; it uses no other module of the crate.

/// The byte ranges of a Jinja template that are plain template text: outside tags
/// (`{{ }}`, `{% %}`), comments and `{% raw %}` blocks, with trim_blocks on (the promptflow
/// profile). See [`jinja_lex`].
#[allow(dead_code)]
fn jinja_data(src: &str) -> Vec<Data> {
    jinja_lex(src, true)
        .into_iter()
        .filter_map(|item| match item {
            JinjaItem::Data(d) => Some(d),
            _ => None,
        })
        .collect()
}

/// One piece of a Jinja template, in source order.
pub(super) enum JinjaItem {
    /// Plain template text.
    Data(Data),
    /// A comment: renders nothing.
    Comment,
    /// A `{{ }}` or `{% %}` tag, and what it does to the blocks around the text.
    Tag(Block),
    /// A `{% raw %}` block: the range of its text that renders (after the block tags'
    /// whitespace control), and whether the block ends the template.
    Raw(std::ops::Range<usize>, bool),
}

/// Lexes a Jinja template the way minijinja does with the default delimiters: a tag ends at
/// its closing delimiter outside string literals and brackets; a comment at the first `#}`;
/// a raw block at the first `{% endraw %}`. `trim_blocks` is the environment's setting.
pub(super) fn jinja_lex(src: &str, trim_blocks: bool) -> Vec<JinjaItem> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    let mut lead = Lead::Keep;
    while pos < b.len() {
        let Some(open) = find_open(b, pos) else {
            out.push(JinjaItem::Data(Data { range: pos..b.len(), lead, tail_strip: false }));
            break;
        };
        if open > pos {
            out.push(JinjaItem::Data(Data { range: pos..open, lead, tail_strip: b.get(open + 2) == Some(&b'-') }));
        }
        let kind = b.get(open + 1).copied();
        let mut i = open + 2;
        let (end, item) = match kind {
            Some(b'#') => (find(b, i, b"#}").map_or(b.len(), |e| e + 2), JinjaItem::Comment),
            Some(b'%') => {
                if matches!(b.get(i), Some(b'-' | b'+')) {
                    i += 1;
                }
                match basic_tag(b, i, b"raw", false) {
                    Some(after) => {
                        let (close, end) = end_of_raw(b, after);
                        let mut text = after..close;
                        let t = src.get(text.clone()).unwrap_or("");
                        if b.get(after.saturating_sub(3)) == Some(&b'-') {
                            text.start += t.len() - t.trim_start().len();
                        }
                        if b.get(close + 2) == Some(&b'-') {
                            let t = src.get(text.clone()).unwrap_or("");
                            text.end -= t.len() - t.trim_end().len();
                        }
                        (end, JinjaItem::Raw(text, end == b.len()))
                    }
                    None => {
                        let end = end_of_tag(b, i, b"%}");
                        (end, JinjaItem::Tag(block_of(b.get(i..end).unwrap_or_default())))
                    }
                }
            }
            _ => {
                if matches!(b.get(i), Some(b'-' | b'+')) {
                    i += 1;
                }
                (end_of_tag(b, i, b"}}"), JinjaItem::Tag(Block::None))
            }
        };
        pos = end;
        out.push(item);
        // How the tag's end trims the text after it: `-` strips all whitespace; a block or
        // comment end without `+` drops one line break when trim_blocks is on. The sign
        // before the closing delimiter is the end's only after the opening's place: in
        // `{#-#}` and `{#+#}` it belongs to the opening.
        let closing = if pos >= open + 6 { b.get(pos - 3) } else { None };
        lead = match closing {
            Some(b'-') => Lead::Strip,
            Some(b'+') => Lead::Keep,
            _ if kind == Some(b'{') || !trim_blocks => Lead::Keep,
            _ => Lead::FirstNewline,
        };
    }
    out
}

/// What a `{% %}` tag does to the block structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Block {
    /// Neither opens nor closes a block (`{{ }}` tags, `{% set x = 1 %}`, `{% else %}` ...).
    None,
    /// Opens a block named `kind` (`for`, `if`, `macro` ...); `captures` when the text in it
    /// becomes a value instead of going to the output: a macro, `call`, `filter`, `block` or
    /// `set` body, or a recursive loop's (its `loop()` calls return their output).
    Open { kind: &'static str, captures: bool },
    /// Closes the innermost block, which should be a `kind` block (`endfor` ...).
    Close(&'static str),
    /// Writes a template's text where it stands (`include`; `import`, `from` and `extends`
    /// run one): the template's own, which may be in a capturing block where the writer
    /// cannot see it, so every run gets marks.
    Foreign,
}

/// The block statements with an end tag, and whether their text becomes a value.
const BLOCKS: &[(&str, bool)] = &[
    ("for", false),
    ("if", false),
    ("with", false),
    ("autoescape", false),
    ("set", true),
    ("filter", true),
    ("block", true),
    ("macro", true),
    ("call", true),
];

/// The block a `{% %}` tag opens or closes; `tag` runs from after `{%` (and its `-` or `+`)
/// to the tag's end. A mistaken answer costs marks or a refusal, never an injection: text
/// taken to be in a capturing block gets marks it may not need, and a block structure that
/// does not add up gives every run marks ([`crate::layout::jinja`]). So the answers lean
/// to capturing: `set` is an assignment only with an `=` outside strings and brackets, and
/// a loop is recursive with `recursive` anywhere in its tag (`1recursive` is `1` and the
/// keyword to the engine). A tag that brings in a template's text (`include`, `import`,
/// `from`, `extends`) is [`Block::Foreign`].
fn block_of(tag: &[u8]) -> Block {
    let word = tag_keyword(tag, 0);
    if [&b"include"[..], b"import", b"from", b"extends"].contains(&word) {
        return Block::Foreign;
    }
    if let Some(name) = word.strip_prefix(b"end") {
        return BLOCKS.iter().find(|(n, _)| n.as_bytes() == name).map_or(Block::None, |&(n, _)| Block::Close(n));
    }
    let Some(&(kind, captures)) = BLOCKS.iter().find(|(n, _)| n.as_bytes() == word) else { return Block::None };
    let rest = tag.get(tag.len() - tag.trim_ascii_start().len() + word.len()..).unwrap_or_default();
    match kind {
        "set" if assigns(rest) => Block::None,
        "for" => Block::Open { kind, captures: memchr::memmem::find(rest, b"recursive").is_some() },
        _ => Block::Open { kind, captures },
    }
}

/// Whether a `set` tag's text after the keyword holds an assignment: an `=` (not `==`,
/// `!=`, `<=`, `>=`) outside string literals and brackets.
fn assigns(rest: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&c) = rest.get(i) {
        match c {
            b'\'' | b'"' => {
                i = after_string(rest, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'=' if depth == 0 => {
                let before = i.checked_sub(1).and_then(|k| rest.get(k));
                let comparison = matches!(before, Some(b'=' | b'!' | b'<' | b'>')) || rest.get(i + 1) == Some(&b'=');
                if !comparison {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// A run of plain template text, and how the tags around it trim it.
pub(super) struct Data {
    pub(super) range: std::ops::Range<usize>,
    lead: Lead,
    /// The next tag opens with `-`: the run's trailing whitespace goes.
    tail_strip: bool,
}

impl Data {
    /// The part of the run that renders.
    pub(super) fn kept(&self, src: &str) -> std::ops::Range<usize> {
        let text = src.get(self.range.clone()).unwrap_or("");
        let lead_end = match self.lead {
            Lead::Keep => 0,
            Lead::FirstNewline => {
                let cr = usize::from(text.starts_with('\r'));
                if text.get(cr..).is_some_and(|t| t.starts_with('\n')) { cr + 1 } else { 0 }
            }
            Lead::Strip => text.len() - text.trim_start().len(),
        };
        let tail_start = if self.tail_strip { text.trim_end().len() } else { text.len() };
        self.range.start + lead_end..self.range.start + tail_start.max(lead_end)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lead {
    Keep,
    FirstNewline,
    Strip,
}

/// The line breaks of plain template text that rendering keeps (not removed by
/// trim_blocks or a `-` whitespace control), ascending.
#[allow(dead_code)]
fn kept_newlines(src: &str, data: &[Data]) -> Vec<usize> {
    let mut out = Vec::new();
    for d in data {
        let kept = d.kept(src);
        let text = src.get(kept.clone()).unwrap_or("");
        out.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|k| kept.start + k));
    }
    out
}

fn find_open(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        let k = memchr::memchr(b'{', b.get(i..)?)?;
        i += k;
        if matches!(b.get(i + 1), Some(b'{' | b'%' | b'#')) {
            return Some(i);
        }
        i += 1;
    }
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(b.get(from..)?, needle).map(|k| from + k)
}

/// `[-+]? \s* NAME \s* [-+]? %}` at `i` (after `{%`): the offset after the tag.
fn basic_tag(b: &[u8], mut i: usize, name: &[u8], ws_control: bool) -> Option<usize> {
    if ws_control && matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if !b.get(i..)?.starts_with(name) {
        return None;
    }
    i += name.len();
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    b.get(i..)?.starts_with(b"%}").then_some(i + 2)
}

/// The statement's first word, for a `{%` tag whose expression starts at `i`.
fn tag_keyword(b: &[u8], mut i: usize) -> &[u8] {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    let rest = b.get(i..).unwrap_or_default();
    let len = rest.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
    rest.get(..len).unwrap_or_default()
}

/// Where the `{% endraw %}` closing the raw block whose text starts at `i` opens, and the
/// offset after it (the end of the template when it is missing).
fn end_of_raw(b: &[u8], mut i: usize) -> (usize, usize) {
    while let Some(open) = find(b, i, b"{%") {
        if let Some(after) = basic_tag(b, open + 2, b"endraw", true) {
            return (open, after);
        }
        i = open + 2;
    }
    (b.len(), b.len())
}

/// The offset after the string literal whose opening quote is at `i` (backslash escapes
/// skipped), or past the end when it is not closed.
pub(super) fn after_string(b: &[u8], mut i: usize) -> usize {
    let quote = b.get(i).copied();
    i += 1;
    while let Some(&c) = b.get(i) {
        i += if c == b'\\' { 2 } else { 1 };
        if Some(c) == quote {
            break;
        }
    }
    i
}

/// The offset after the closing delimiter of a tag whose expression starts at `i`.
fn end_of_tag(b: &[u8], mut i: usize, close: &[u8]) -> usize {
    let mut depth: isize = 0;
    while let Some(&c) = b.get(i) {
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if depth == 0 {
            if b.get(i..).is_some_and(|r| r.starts_with(close)) {
                return i + close.len();
            }
            if matches!(c, b'-' | b'+') && b.get(i + 1..).is_some_and(|r| r.starts_with(close)) {
                return i + 1 + close.len();
            }
        }
        match c {
            b'\'' | b'"' => i = after_string(b, i),
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth -= 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    b.len()
}
