//! The full YAML path: `serde-saphyr` does the parsing (pure Rust, duplicate keys
//! rejected, alias budget); every node is read through `Spanned` so that later diagnostics
//! point at the exact key or value in the original file.

use std::fmt;
use std::ops::Range;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;
use serde_saphyr::Spanned;

use crate::codes;
use crate::diagnostic::{Diagnostic, LineIndex};

use super::node::{MAX_YAML_DEPTH, MAX_YAML_NODES, Node, NodeValue, flow_close};

/// Deserialization target: a value whose children are spanned.
enum Raw {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(Spanned<Raw>, Spanned<Raw>)>),
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_none<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        d.deserialize_any(RawVisitor)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Raw, E> {
        Ok(Raw::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::Number(v.into()))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Raw, E> {
        Ok(Number::from_f64(v as f64).map_or(Raw::Null, Raw::Number))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Raw, E> {
        Ok(Number::from_f64(v as f64).map_or(Raw::Null, Raw::Number))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Raw, E> {
        // Non-finite floats have no JSON form; keep their YAML spelling as text.
        Ok(Number::from_f64(v).map_or_else(|| Raw::String(v.to_string()), Raw::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Raw, E> {
        Ok(Raw::String(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Raw, E> {
        Ok(Raw::String(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Raw::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Raw::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

/// Converts spanned raw values into nodes with absolute byte spans.
struct Lower<'a> {
    text: &'a str,
    index: LineIndex,
    base: usize,
}

impl Lower<'_> {
    fn start(&self, s: &Spanned<Raw>) -> usize {
        let loc = s.referenced;
        match loc.span().byte_offset() {
            Some(off) => self.base + off as usize,
            None => self.base + self.index.offset(self.text, loc.line() as usize, loc.column() as usize),
        }
    }

    fn node(&self, s: Spanned<Raw>) -> Node {
        let start = self.start(&s);
        let len = s.referenced.span().byte_len().unwrap_or(0) as usize;
        let value = match s.value {
            Raw::Null => NodeValue::Null,
            Raw::Bool(b) => NodeValue::Bool(b),
            Raw::Number(n) => NodeValue::Number(n),
            Raw::String(v) => NodeValue::String(v),
            Raw::Seq(items) => NodeValue::Seq(items.into_iter().map(|i| self.node(i)).collect()),
            Raw::Map(entries) => {
                NodeValue::Map(entries.into_iter().map(|(k, v)| (self.node(k), self.node(v))).collect())
            }
        };
        let end = match &value {
            NodeValue::Seq(items) => flow_close(
                self.text,
                self.base,
                start,
                items.last().map_or(start + len, |n| n.span.end.max(start + len)),
                b'[',
                b']',
            ),
            NodeValue::Map(entries) => flow_close(
                self.text,
                self.base,
                start,
                entries.last().map_or(start + len, |(_, v)| v.span.end.max(start + len)),
                b'{',
                b'}',
            ),
            _ => start + len,
        };
        Node { value, span: start..end.max(start) }
    }
}

/// Limits applied to YAML parsing.
fn options() -> serde_saphyr::Options {
    let mut opts = serde_saphyr::Options::default();
    // YAML 1.2: only `true`/`false` are booleans (`y`, `no`, `on` stay strings).
    opts.strict_booleans = true;
    opts.with_snippet = false;
    // Each nesting level costs tens of KB of stack in debug builds (the parser, the
    // deserializer and `Spanned` all recurse): bound it well below what a 2 MB thread
    // stack holds. Real front matter (JSON schemas included) nests far less.
    let mut budget = serde_saphyr::budget::Budget::default();
    budget.max_depth = MAX_YAML_DEPTH;
    // Aliases expand: the node count bounds a billion-laughs document's time and memory.
    budget.max_nodes = MAX_YAML_NODES;
    opts.budget = Some(budget);
    opts
}

/// The full path: every YAML construct, and the error messages.
pub fn parse_full(file_text: &str, base: usize, yaml: &str) -> Result<Node, Diagnostic> {
    let lower = Lower { text: yaml, index: LineIndex::new(yaml), base };
    match serde_saphyr::from_str_with_options::<Spanned<Raw>>(yaml, options()) {
        Ok(root) => Ok(lower.node(root)),
        Err(err) => Err(error_diagnostic(file_text, &lower, &err)),
    }
}

fn error_diagnostic(file_text: &str, lower: &Lower<'_>, err: &serde_saphyr::Error) -> Diagnostic {
    let offset = err.location().map_or(lower.base, |loc| {
        lower.base + lower.index.offset(lower.text, loc.line() as usize, loc.column() as usize)
    });
    let offset = offset.min(file_text.len());
    let message = clean_message(&err.without_snippet().to_string());
    let end = next_char_end(file_text, offset);
    if message.starts_with("duplicate mapping key") {
        let key = message.trim_start_matches("duplicate mapping key").trim_start_matches(':').trim();
        let key_end = if file_text.get(offset..).is_some_and(|s| s.starts_with(key)) && !key.is_empty() {
            offset + key.len()
        } else {
            end
        };
        return Diagnostic::error(codes::DUPLICATE_KEY, offset..key_end, format!("duplicate key `{key}`"))
            .with_help("YAML keys must be unique in a mapping: remove or rename one of them");
    }
    if let Some(what) = message.strip_prefix("budget breached: ") {
        let message = if what.starts_with("Depth") {
            format!("the front matter nests deeper than {MAX_YAML_DEPTH} levels")
        } else if what.starts_with("Nodes") {
            format!("the front matter holds more than {MAX_YAML_NODES} values once its aliases are expanded")
        } else {
            let what = what.split([' ', '{']).next().unwrap_or(what);
            format!("the front matter exceeds the parser's `{what}` limit")
        };
        return Diagnostic::error(codes::YAML_SYNTAX, offset..end, format!("invalid front matter YAML: {message}"))
            .with_help("simplify the front matter: fewer nested levels, fewer aliases");
    }
    if message.contains("tab") {
        let span = indentation_tab(file_text, offset).unwrap_or(offset..end);
        return Diagnostic::error(codes::YAML_SYNTAX, span, format!("invalid front matter YAML: {message}"))
            .with_help("indent YAML with spaces; tabs are not allowed in indentation");
    }
    Diagnostic::error(codes::YAML_SYNTAX, offset..end, format!("invalid front matter YAML: {message}"))
        .with_help("fix the YAML syntax of the front matter")
}

/// The first tab in the indentation of the line holding `offset`: the YAML parser reports
/// where the content after the tabs starts, but the tab is what needs fixing.
fn indentation_tab(text: &str, offset: usize) -> Option<Range<usize>> {
    let line_start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let indent = text.get(line_start..)?;
    let indent = &indent[..indent.len() - indent.trim_start_matches([' ', '\t']).len()];
    indent.find('\t').map(|i| line_start + i..line_start + i + 1)
}

fn next_char_end(text: &str, offset: usize) -> usize {
    text.get(offset..)
        .and_then(|s| s.chars().next())
        .map_or(offset, |c| if c == '\n' { offset } else { offset + c.len_utf8() })
}

/// Strips the location prefix and library-internal advice from a YAML error message.
fn clean_message(raw: &str) -> String {
    let mut msg = raw.trim();
    for prefix in ["error: ", "Error: "] {
        msg = msg.strip_prefix(prefix).unwrap_or(msg);
    }
    if let Some(rest) = msg.strip_prefix("line ")
        && let Some((loc, tail)) = rest.split_once(": ")
        && loc.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ')
    {
        msg = tail;
    }
    let msg = msg.split(", set DuplicateKeyPolicy").next().unwrap_or(msg);
    let msg = msg.lines().next().unwrap_or(msg).trim();
    // The position is reported separately, relative to the whole file.
    let msg = match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains("column") => &msg[..i],
        _ => msg,
    };
    msg.to_owned()
}
