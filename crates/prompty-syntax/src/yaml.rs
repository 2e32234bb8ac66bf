//! YAML front matter as a tree of nodes that keep their byte spans.
//!
//! `serde-saphyr` does the parsing (pure Rust, duplicate keys rejected, alias budget);
//! every node is read through `Spanned` so that later diagnostics point at the exact key
//! or value in the original file.

use std::fmt;
use std::ops::Range;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::Spanned;

use crate::codes;
use crate::diagnostic::{Diagnostic, LineIndex};

/// A YAML value with its byte span in the original file.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: NodeValue,
    /// Byte span in the original file.
    pub span: Range<usize>,
}

/// The shape of a YAML value.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeValue {
    /// `~`, `null` or nothing.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer or float.
    Number(Number),
    /// A string scalar.
    String(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in file order.
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// A node that did not come from the file (e.g. a loaded `${file:}` value), placed at `span`.
    pub fn synthetic(value: &Value, span: Range<usize>) -> Node {
        let value = match value {
            Value::Null => NodeValue::Null,
            Value::Bool(b) => NodeValue::Bool(*b),
            Value::Number(n) => NodeValue::Number(n.clone()),
            Value::String(s) => NodeValue::String(s.clone()),
            Value::Array(a) => NodeValue::Seq(a.iter().map(|v| Node::synthetic(v, span.clone())).collect()),
            Value::Object(o) => NodeValue::Map(
                o.iter()
                    .map(|(k, v)| {
                        (
                            Node { value: NodeValue::String(k.clone()), span: span.clone() },
                            Node::synthetic(v, span.clone()),
                        )
                    })
                    .collect(),
            ),
        };
        Node { value, span }
    }

    /// The string value, if this is a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            NodeValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The entries, if this is a mapping.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            NodeValue::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The value stored under `key`, if this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }

    /// The key node of `key`, if present.
    pub fn key_node(&self, key: &str) -> Option<&Node> {
        self.as_map()?.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(k, _)| k)
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self.value, NodeValue::Null)
    }

    /// A short name of the node's type, for messages: "a string", "a mapping", ...
    pub fn type_name(&self) -> &'static str {
        match &self.value {
            NodeValue::Null => "null",
            NodeValue::Bool(_) => "a boolean",
            NodeValue::Number(n) if n.is_f64() => "a float",
            NodeValue::Number(_) => "an integer",
            NodeValue::String(_) => "a string",
            NodeValue::Seq(_) => "a list",
            NodeValue::Map(_) => "a mapping",
        }
    }

    /// The JSON value of this node (mapping keys become strings).
    pub fn to_json(&self) -> Value {
        match &self.value {
            NodeValue::Null => Value::Null,
            NodeValue::Bool(b) => Value::Bool(*b),
            NodeValue::Number(n) => Value::Number(n.clone()),
            NodeValue::String(s) => Value::String(s.clone()),
            NodeValue::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeValue::Map(entries) => {
                let mut map = Map::new();
                for (k, v) in entries {
                    map.insert(k.key_string(), v.to_json());
                }
                Value::Object(map)
            }
        }
    }

    /// The text of a scalar used as a mapping key.
    pub fn key_string(&self) -> String {
        match &self.value {
            NodeValue::String(s) => s.clone(),
            NodeValue::Null => "null".to_owned(),
            NodeValue::Bool(b) => b.to_string(),
            NodeValue::Number(n) => n.to_string(),
            NodeValue::Seq(_) | NodeValue::Map(_) => self.to_json().to_string(),
        }
    }
}

/// One value of a [`Node`] tree laid out flat ([`Node::to_flat`]): scalars as they are, a
/// sequence or mapping as its length, followed in pre-order by its items, or by its keys
/// and values in turn. A build step can write it out as static data and
/// [`Node::from_flat`] rebuilds the tree without parsing anything (the `include_prompty!`
/// macro embeds front matter this way).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Flat<'a> {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A negative integer.
    Int(i64),
    /// A non-negative integer.
    UInt(u64),
    /// A float.
    Float(f64),
    /// A string.
    Str(&'a str),
    /// A sequence of this many items.
    Seq(usize),
    /// A mapping of this many entries.
    Map(usize),
}

/// A [`Flat`] value with its node's byte span.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlatNode<'a> {
    /// The value.
    pub value: Flat<'a>,
    /// Start of the span.
    pub start: usize,
    /// End of the span.
    pub end: usize,
}

/// A container being rebuilt by [`Node::from_flat`]: its node (value still empty), how many
/// children it waits for, and those it has.
struct Open {
    node: Node,
    left: usize,
    children: Vec<Node>,
}

impl Node {
    /// The tree in pre-order, flat (see [`Flat`]); strings are borrowed. Walks with a
    /// stack of its own, so a deep tree cannot overflow the call stack.
    pub fn to_flat(&self) -> Vec<FlatNode<'_>> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            let value = match &node.value {
                NodeValue::Null => Flat::Null,
                NodeValue::Bool(b) => Flat::Bool(*b),
                NodeValue::Number(n) => match (n.as_u64(), n.as_i64()) {
                    (Some(u), _) => Flat::UInt(u),
                    (None, Some(i)) => Flat::Int(i),
                    _ => Flat::Float(n.as_f64().unwrap_or(0.0)),
                },
                NodeValue::String(s) => Flat::Str(s),
                NodeValue::Seq(items) => {
                    stack.extend(items.iter().rev());
                    Flat::Seq(items.len())
                }
                NodeValue::Map(entries) => {
                    stack.extend(entries.iter().rev().flat_map(|(k, v)| [v, k]));
                    Flat::Map(entries.len())
                }
            };
            out.push(FlatNode { value, start: node.span.start, end: node.span.end });
        }
        out
    }

    /// Rebuilds the tree [`to_flat`](Node::to_flat) laid out; `None` when `flat` is not
    /// exactly one tree. Uses a stack of its own.
    pub fn from_flat(flat: &[FlatNode<'_>]) -> Option<Node> {
        let mut open: Vec<Open> = Vec::new();
        let mut items = flat.iter();
        loop {
            let f = items.next()?;
            let span = f.start..f.end;
            let mut done = match f.value {
                Flat::Seq(n) | Flat::Map(n) => {
                    let value = if matches!(f.value, Flat::Seq(_)) {
                        NodeValue::Seq(Vec::new())
                    } else {
                        NodeValue::Map(Vec::new())
                    };
                    let left = if matches!(f.value, Flat::Seq(_)) { n } else { n.checked_mul(2)? };
                    let node = Node { value, span };
                    if left > 0 {
                        open.push(Open { node, left, children: Vec::with_capacity(left.min(flat.len())) });
                        continue;
                    }
                    node
                }
                Flat::Null => Node { value: NodeValue::Null, span },
                Flat::Bool(b) => Node { value: NodeValue::Bool(b), span },
                Flat::Int(i) => Node { value: NodeValue::Number(i.into()), span },
                Flat::UInt(u) => Node { value: NodeValue::Number(u.into()), span },
                Flat::Float(x) => Node { value: NodeValue::Number(Number::from_f64(x)?), span },
                Flat::Str(s) => Node { value: NodeValue::String(s.to_owned()), span },
            };
            // Hand the finished node to its parent; a parent that is then complete is
            // finished too, up the stack.
            loop {
                let Some(parent) = open.last_mut() else {
                    return items.next().is_none().then_some(done);
                };
                parent.children.push(done);
                parent.left -= 1;
                if parent.left > 0 {
                    break;
                }
                let Open { mut node, children, .. } = open.pop()?;
                match &mut node.value {
                    NodeValue::Seq(v) => *v = children,
                    NodeValue::Map(m) => {
                        let mut it = children.into_iter();
                        while let (Some(k), Some(v)) = (it.next(), it.next()) {
                            m.push((k, v));
                        }
                    }
                    _ => return None,
                }
                done = node;
            }
        }
    }
}

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

/// For a flow collection (`[a, b]`, `{k: v}`) that starts at `start`, the end just past its
/// closing bracket; `end` (the end of its last item) for any other node. `text` is the YAML,
/// which starts at byte `base` of the file; positions are in the file.
pub(crate) fn flow_close(text: &str, base: usize, start: usize, end: usize, open: u8, close: u8) -> usize {
    let bytes = text.as_bytes();
    let local = |abs: usize| abs.checked_sub(base);
    if local(start).and_then(|i| bytes.get(i)) != Some(&open) {
        return end;
    }
    let Some(mut i) = local(end) else { return end };
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b',' => i += 1,
            b if b == close => return base + i + 1,
            _ => return end,
        }
    }
    end
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

/// The deepest YAML nesting the loader accepts.
pub const MAX_YAML_DEPTH: usize = 32;

/// The most YAML values (aliases expanded) the loader accepts in one document.
pub const MAX_YAML_NODES: usize = 100_000;

/// Parses `yaml`, which starts at byte `base` of the file `file_text`.
///
/// Returns the root node, or one diagnostic locating the syntax error.
pub fn parse(file_text: &str, base: usize, yaml: &str) -> Result<Node, Diagnostic> {
    if let Some(node) = crate::yaml_fast::parse(yaml, base) {
        return Ok(node);
    }
    parse_full(file_text, base, yaml)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn slice<'a>(text: &'a str, n: &Node) -> &'a str {
        &text[n.span.clone()]
    }

    #[test]
    fn spans_point_into_the_file() {
        let file = "---\nname: a\nmodel:\n  id: gpt-4\nn: y\n---\nbody";
        let yaml = &file[4..file.rfind("---").expect("fence")];
        let root = parse(file, 4, yaml).expect("valid");
        assert_eq!(slice(file, root.key_node("name").expect("key")), "name");
        let model = root.get("model").expect("model");
        assert_eq!(slice(file, model.get("id").expect("id")), "gpt-4");
        assert_eq!(root.get("n").and_then(Node::as_str), Some("y"));
    }

    #[test]
    fn duplicate_key_is_located() {
        let file = "---\na: 1\na: 2\n---\n";
        let err = parse(file, 4, &file[4..13]).expect_err("duplicate");
        assert_eq!(err.code, codes::DUPLICATE_KEY);
        assert_eq!(&file[err.span.clone()], "a");
        assert_eq!(err.span.start, 9);
    }

    #[test]
    fn syntax_error_message_is_clean() {
        let file = "---\nname: [invalid\n---\n";
        let err = parse(file, 4, &file[4..18]).expect_err("invalid");
        assert_eq!(err.code, codes::YAML_SYNTAX);
        assert!(err.message.starts_with("invalid front matter YAML: "), "{}", err.message);
        assert!(!err.message.contains("line "), "{}", err.message);
    }
}
