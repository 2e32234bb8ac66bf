//! The node tree: every YAML value with its byte span in the original file, and the
//! limits both parsers apply to it.

use std::ops::Range;

use serde_json::{Map, Number, Value};

/// The deepest YAML nesting the loader accepts.
pub const MAX_YAML_DEPTH: usize = 32;

/// The most YAML values (aliases expanded) the loader accepts in one document.
pub const MAX_YAML_NODES: usize = 100_000;

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
