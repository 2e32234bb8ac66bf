//! The node tree laid out flat, for build steps that embed front matter as static data
//! and rebuild the tree without parsing.

use serde_json::Number;

use super::node::{Node, NodeValue};

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
