//! The outline of a document: symbols (front matter sections, inputs, messages), folding
//! ranges, and semantic tokens (role lines, template tags, input references).

use std::ops::Range;

use lsp_types::{DocumentSymbol, FoldingRange, FoldingRangeKind, SemanticToken, SemanticTokenType, SymbolKind};
use prompty_syntax::yaml::Node;

use crate::analysis::Snapshot;

/// One entry of the outline, in byte offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// What the outline shows.
    pub name: String,
    /// A short description beside the name.
    pub detail: Option<String>,
    /// The LSP kind.
    pub kind: SymbolKind,
    /// Everything the symbol covers.
    pub range: Range<usize>,
    /// Its name, inside `range`.
    pub selection: Range<usize>,
    /// Entries inside it.
    pub children: Vec<Symbol>,
}

impl Symbol {
    /// As the protocol sends it.
    pub fn to_lsp(&self, s: &Snapshot) -> DocumentSymbol {
        #[allow(deprecated)]
        DocumentSymbol {
            name: self.name.clone(),
            detail: self.detail.clone(),
            kind: self.kind,
            tags: None,
            deprecated: None,
            range: s.index.range(&s.text, self.range.clone()),
            selection_range: s.index.range(&s.text, self.selection.clone()),
            children: (!self.children.is_empty()).then(|| self.children.iter().map(|c| c.to_lsp(s)).collect()),
        }
    }
}

/// The end of a front matter entry: the end of its value, or of its key when it has none.
fn entry_range(key: &Node, value: &Node) -> Range<usize> {
    key.span.start..value.span.end.max(key.span.end)
}

/// The outline: the front matter with its top-level keys (inputs and their declarations
/// under `inputs`), then one entry per message of the template.
pub fn symbols(s: &Snapshot) -> Vec<Symbol> {
    let mut out = Vec::new();
    if let Some(front) = s.front_span.clone() {
        let mut children = Vec::new();
        for (key, value) in s.front().and_then(Node::as_map).unwrap_or_default() {
            let name = key.key_string();
            let inputs = name == "inputs" || name == "outputs" || name == "sample";
            let mut entry = Symbol {
                detail: None,
                kind: if inputs { SymbolKind::NAMESPACE } else { SymbolKind::PROPERTY },
                range: entry_range(key, value),
                selection: key.span.clone(),
                children: Vec::new(),
                name,
            };
            if entry.name == "inputs" || entry.name == "outputs" {
                for (name, span, node) in crate::analysis::declarations(value) {
                    let kind = node.get("kind").or_else(|| node.get("type")).and_then(Node::as_str);
                    let start = span.start.min(node.span.start);
                    entry.children.push(Symbol {
                        name,
                        detail: kind.map(str::to_owned),
                        kind: SymbolKind::VARIABLE,
                        range: start..node.span.end.max(span.end),
                        selection: span,
                        children: Vec::new(),
                    });
                }
            } else if let Some(map) = value.as_map() {
                for (k, v) in map {
                    entry.children.push(Symbol {
                        name: k.key_string(),
                        detail: None,
                        kind: SymbolKind::PROPERTY,
                        range: entry_range(k, v),
                        selection: k.span.clone(),
                        children: Vec::new(),
                    });
                }
            }
            children.push(entry);
        }
        out.push(Symbol {
            name: "front matter".to_owned(),
            detail: None,
            kind: SymbolKind::MODULE,
            range: front.clone(),
            selection: front.start..front.start,
            children,
        });
    }
    for (i, (line, end, role)) in messages(s).into_iter().enumerate() {
        out.push(Symbol {
            name: (*role).to_owned(),
            detail: Some(format!("message {}", i + 1)),
            kind: SymbolKind::EVENT,
            range: line.start..end,
            selection: line,
            children: Vec::new(),
        });
    }
    out
}

/// Each message: its role line, where the message ends (before the next role line, or at
/// the end of the body without its trailing line breaks), and its role.
fn messages(s: &Snapshot) -> Vec<(Range<usize>, usize, &'static str)> {
    let roles = prompty_lint::role_lines(&s.text, &s.loaded);
    let body_end = s.body_span.start + s.text.get(s.body_span.clone()).unwrap_or("").trim_end().len();
    let mut out = Vec::new();
    for (i, (line, role)) in roles.iter().enumerate() {
        let next = roles.get(i + 1).map_or(body_end, |(l, _)| l.start);
        let end = s.text.get(line.start..next).map_or(next, |t| line.start + t.trim_end().len()).max(line.end);
        out.push((line.clone(), end, *role));
    }
    out
}

/// Folding ranges: the front matter, its multi-line entries, each message, and template
/// blocks (`{% if %}`...`{% endif %}` and the like, Mustache sections) that span lines.
pub fn folding_ranges(s: &Snapshot) -> Vec<FoldingRange> {
    let mut spans: Vec<(Range<usize>, Option<FoldingRangeKind>)> = Vec::new();
    if let Some(front) = s.front_span.clone() {
        // From the opening fence to the line before the closing one.
        spans.push((front.start.saturating_sub(4)..front.end, Some(FoldingRangeKind::Region)));
        fn walk(node: &Node, spans: &mut Vec<(Range<usize>, Option<FoldingRangeKind>)>) {
            match &node.value {
                prompty_syntax::yaml::NodeValue::Map(entries) => {
                    for (k, v) in entries {
                        spans.push((entry_range(k, v), None));
                        walk(v, spans);
                    }
                }
                prompty_syntax::yaml::NodeValue::Seq(items) => {
                    for item in items {
                        spans.push((item.span.clone(), None));
                        walk(item, spans);
                    }
                }
                _ => {}
            }
        }
        if let Some(tree) = s.front() {
            walk(tree, &mut spans);
        }
    }
    for (line, end, _) in messages(s) {
        spans.push((line.start..end, Some(FoldingRangeKind::Region)));
    }
    let body = s.text.get(s.body_span.clone()).unwrap_or("");
    for block in template_blocks(body) {
        spans.push((s.body_span.start + block.start..s.body_span.start + block.end, None));
    }
    let mut out: Vec<FoldingRange> = Vec::new();
    for (span, kind) in spans {
        let start = s.index.line_of(span.start);
        let end = s.index.line_of(span.end.max(span.start));
        if end > start && !out.iter().any(|f| f.start_line as usize == start && f.end_line as usize == end) {
            out.push(FoldingRange { start_line: start as u32, end_line: end as u32, kind, ..FoldingRange::default() });
        }
    }
    out.sort_by_key(|f| (f.start_line, std::cmp::Reverse(f.end_line)));
    out
}

/// Jinja block tags that take an `end` tag.
const BLOCKS: &[&str] = &["if", "for", "macro", "call", "filter", "with", "block", "raw", "set", "autoescape"];

/// Template blocks of `body`, from their opening tag to their closing one (body offsets).
fn template_blocks(body: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut open: Vec<(String, usize)> = Vec::new();
    for tag in tags(body) {
        let inner = body.get(tag.inner.clone()).unwrap_or("").trim_matches(['-', '+', '~', ' ', '\t', '\n', '\r']);
        let (word, name) = match tag.kind {
            TagKind::Statement => {
                let word: String = inner.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                // `{% set x = 1 %}` has no end tag; `{% set x %}` has.
                if word == "set" && inner.contains('=') {
                    continue;
                }
                (word.clone(), word)
            }
            TagKind::Expression => match inner.chars().next() {
                Some('#' | '^') => ("open".to_owned(), inner[1..].trim().to_owned()),
                Some('/') => ("close".to_owned(), inner[1..].trim().to_owned()),
                _ => continue,
            },
            TagKind::Comment => continue,
        };
        if word == "open" || BLOCKS.contains(&word.as_str()) {
            let key = if word == "open" { format!("#{name}") } else { word };
            open.push((key, tag.range.start));
        } else if word == "close" || word.starts_with("end") {
            let key = if word == "close" { format!("#{name}") } else { word["end".len()..].to_owned() };
            if let Some(i) = open.iter().rposition(|(k, _)| *k == key) {
                let (_, start) = open.remove(i);
                open.truncate(i);
                out.push(start..tag.range.start);
            }
        }
    }
    out
}

/// The kinds of template tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagKind {
    /// `{{ }}` (Mustache and Handlebars tags too).
    Expression,
    /// `{% %}`.
    Statement,
    /// `{# #}` (Mustache `{{! }}` is an expression tag here).
    Comment,
}

/// A tag in a body: its whole range, the text between its delimiters, its kind.
#[derive(Debug, Clone)]
struct Tag {
    range: Range<usize>,
    inner: Range<usize>,
    kind: TagKind,
}

/// The template tags of `body`, in order (an unclosed tag runs to the end).
fn tags(body: &str) -> Vec<Tag> {
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = body.get(i..).and_then(|t| t.find('{')).map(|p| p + i) {
        let (kind, close) = match bytes.get(at + 1) {
            Some(b'{') => (TagKind::Expression, "}}"),
            Some(b'%') => (TagKind::Statement, "%}"),
            Some(b'#') => (TagKind::Comment, "#}"),
            _ => {
                i = at + 1;
                continue;
            }
        };
        // `{{{ x }}}` (triple Mustache) opens with three braces.
        let open_len = if kind == TagKind::Expression && bytes.get(at + 2) == Some(&b'{') { 3 } else { 2 };
        let inner_start = at + open_len;
        let (inner_end, end) = match body.get(inner_start..).and_then(|t| t.find(close)) {
            Some(p) => {
                let e = inner_start + p;
                let end = e + 2 + usize::from(open_len == 3 && bytes.get(e + 2) == Some(&b'}'));
                (e, end)
            }
            None => (body.len(), body.len()),
        };
        out.push(Tag { range: at..end, inner: inner_start..inner_end, kind });
        i = end.max(at + 1);
    }
    out
}

/// The semantic token types, in the order of the legend the server announces.
pub const TOKEN_TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::KEYWORD,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::MACRO,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::COMMENT,
];

const KEYWORD: u32 = 0;
const PROPERTY: u32 = 1;
const MACRO: u32 = 2;
const VARIABLE: u32 = 3;
const COMMENT: u32 = 4;

/// Semantic tokens of the body: role words (`keyword`) and their attributes (`property`),
/// template tag delimiters and statement words (`macro`), reads of declared inputs
/// (`variable`), template comments (`comment`), encoded as the protocol wants (relative
/// positions, UTF-16 lengths, one line each).
pub fn semantic_tokens(s: &Snapshot) -> Vec<SemanticToken> {
    let mut raw: Vec<(Range<usize>, u32)> = Vec::new();
    let base = s.body_span.start;
    let body = s.text.get(s.body_span.clone()).unwrap_or("");
    for (line, _) in prompty_lint::role_lines(&s.text, &s.loaded) {
        let text = s.text.get(line.clone()).unwrap_or("");
        let lead = text.len() - text.trim_start_matches([' ', '\t', '#']).len();
        let word = text[lead..].bytes().take_while(u8::is_ascii_alphabetic).count();
        raw.push((line.start + lead..line.start + lead + word, KEYWORD));
        let rest = &text[lead + word..];
        if let (Some(open), Some(close)) = (rest.find('['), rest.rfind(']'))
            && open < close
        {
            let at = line.start + lead + word;
            raw.push((at + open + 1..at + close, PROPERTY));
        }
    }
    for tag in tags(body) {
        let (start, end) = (base + tag.range.start, base + tag.range.end);
        let (inner_start, inner_end) = (base + tag.inner.start, base + tag.inner.end);
        if tag.kind == TagKind::Comment {
            raw.push((start..end, COMMENT));
            continue;
        }
        raw.push((start..inner_start, MACRO));
        if tag.kind == TagKind::Statement {
            let inner = body.get(tag.inner.clone()).unwrap_or("");
            let lead = inner.len() - inner.trim_start_matches(['-', '+', ' ', '\t']).len();
            let word = inner[lead..].bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
            raw.push((inner_start + lead..inner_start + lead + word, MACRO));
        }
        if inner_end < end {
            raw.push((inner_end..end, MACRO));
        }
    }
    if let Some(prompt) = s.prompt() {
        let (reads, _) = prompty_lint::template_reads(&s.text, &s.loaded);
        raw.extend(reads.into_iter().filter(|r| prompt.input(&r.name).is_some()).map(|r| (r.span, VARIABLE)));
    }
    raw.retain(|(r, _)| r.start < r.end);
    raw.sort_by_key(|(r, _)| (r.start, r.end));
    encode(s, &raw)
}

/// Relative, single-line, non-overlapping tokens in UTF-16 units.
fn encode(s: &Snapshot, raw: &[(Range<usize>, u32)]) -> Vec<SemanticToken> {
    let mut out = Vec::new();
    let (mut last_line, mut last_char) = (0u32, 0u32);
    let mut covered = 0usize;
    for (range, kind) in raw {
        if range.start < covered {
            continue;
        }
        covered = range.end;
        // A token over several lines (a comment) becomes one per line.
        let mut start = range.start;
        while start < range.end {
            let line = s.index.line_of(start);
            let line_end = s.index.line_range(&s.text, line).map_or(range.end, |l| l.end);
            let end = range.end.min(line_end.max(start));
            let from = s.index.position(&s.text, start);
            let to = s.index.position(&s.text, end);
            if to.character > from.character {
                let delta_line = from.line - last_line;
                let delta_start = if delta_line == 0 { from.character - last_char } else { from.character };
                out.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length: to.character - from.character,
                    token_type: *kind,
                    token_modifiers_bitset: 0,
                });
                (last_line, last_char) = (from.line, from.character);
            }
            // Past the line break.
            let next = s.index.line_range(&s.text, line + 1).map_or(range.end, |l| l.start);
            if next <= start {
                break;
            }
            start = next;
        }
    }
    out
}
