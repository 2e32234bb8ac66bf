//! A fast path for the YAML that front matter nearly always is: block and flow mappings and
//! sequences of plain and quoted scalars, built straight from the parser's events.
//!
//! Anything outside that subset (anchors, aliases, tags, merge keys, duplicate keys, several
//! documents, numbers in any but the plain decimal forms, deep nesting, syntax errors) makes
//! the fast path give up, and the full `serde-saphyr` path parses the text instead, so
//! results and error messages are the same either way. A differential test checks that.

use std::borrow::Cow;

use serde_json::Number;
use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Span};

use super::node::{MAX_YAML_DEPTH, MAX_YAML_NODES, Node, NodeValue, flow_close};

/// The root node of `yaml` (which starts at byte `base` of the file), or `None` to fall back.
pub(crate) fn parse(yaml: &str, base: usize) -> Option<Node> {
    let mut events = Parser::new_from_str(yaml).filter(|e| !matches!(e, Ok((Event::Comment(..), _))));
    let mut b = Builder { events: &mut events, yaml, base, nodes: 0 };
    match b.next()? {
        (Event::StreamStart, _) => {}
        _ => return None,
    }
    let root = match b.next()? {
        (Event::StreamEnd, span) => Node { value: NodeValue::Null, span: b.point(&span)? },
        (Event::DocumentStart(false, None), _) => {
            let first = b.next()?;
            let root = b.node(first, 0)?;
            match b.next()? {
                (Event::DocumentEnd, _) => {}
                _ => return None,
            }
            match b.next()? {
                (Event::StreamEnd, _) => {}
                _ => return None,
            }
            root
        }
        _ => return None,
    };
    Some(root)
}

struct Builder<'a, I> {
    events: &'a mut I,
    yaml: &'a str,
    base: usize,
    /// Nodes built so far, counted like the full parser's node budget.
    nodes: usize,
}

/// Whether two keys of a mapping (all string keys) are equal: pairwise for the few keys
/// of ordinary front matter, through a hash set for long mappings (linear either way).
pub(super) fn has_duplicate_key(entries: &[(Node, Node)]) -> bool {
    const PAIRWISE: usize = 8;
    if entries.len() <= PAIRWISE {
        return entries.iter().enumerate().any(|(i, (k, _))| {
            entries.get(i + 1..).is_some_and(|rest| rest.iter().any(|(other, _)| other.as_str() == k.as_str()))
        });
    }
    let mut seen = std::collections::HashSet::with_capacity(entries.len());
    entries.iter().any(|(k, _)| !seen.insert(k.as_str()))
}

impl<'input, I> Builder<'_, I>
where
    I: Iterator<Item = Result<(Event<'input>, Span), serde_saphyr::granit_parser::ScanError>>,
{
    fn next(&mut self) -> Option<(Event<'input>, Span)> {
        self.events.next()?.ok()
    }

    fn start(&self, span: &Span) -> Option<usize> {
        Some(self.base + span.start.byte_offset()?)
    }

    fn point(&self, span: &Span) -> Option<std::ops::Range<usize>> {
        let s = self.start(span)?;
        Some(s..s)
    }

    fn range(&self, span: &Span) -> Option<std::ops::Range<usize>> {
        Some(self.start(span)?..self.base + span.end.byte_offset()?)
    }

    fn node(&mut self, (event, span): (Event<'input>, Span), depth: usize) -> Option<Node> {
        let yaml = self.yaml;
        // Past either limit the full path parses the text and reports the breach.
        self.nodes += 1;
        if depth >= MAX_YAML_DEPTH || self.nodes > MAX_YAML_NODES {
            return None;
        }
        match event {
            Event::Scalar(value, style, 0, None) => {
                Some(Node { value: scalar(value, style)?, span: self.range(&span)? })
            }
            Event::SequenceStart(_, 0, None) => {
                let open = self.range(&span)?;
                let mut items = Vec::new();
                loop {
                    let next = self.next()?;
                    if matches!(next.0, Event::SequenceEnd) {
                        break;
                    }
                    items.push(self.node(next, depth + 1)?);
                }
                let end = items.last().map_or(open.end, |n| n.span.end.max(open.end));
                let end = flow_close(yaml, self.base, open.start, end, b'[', b']');
                Some(Node { value: NodeValue::Seq(items), span: open.start..end })
            }
            Event::MappingStart(_, 0, None) => {
                let open = self.range(&span)?;
                let mut entries: Vec<(Node, Node)> = Vec::new();
                loop {
                    let next = self.next()?;
                    if matches!(next.0, Event::MappingEnd) {
                        break;
                    }
                    // Keys are plain text; `<<` (merge) goes to the full path.
                    let key = self.node(next, depth + 1)?;
                    if !matches!(&key.value, NodeValue::String(k) if k != "<<") {
                        return None;
                    }
                    let value_event = self.next()?;
                    let value = self.node(value_event, depth + 1)?;
                    entries.push((key, value));
                }
                // Repeated keys go to the full path, which reports them.
                if has_duplicate_key(&entries) {
                    return None;
                }
                let end = entries.last().map_or(open.end, |(_, v)| v.span.end.max(open.end));
                let end = flow_close(yaml, self.base, open.start, end, b'{', b'}');
                Some(Node { value: NodeValue::Map(entries), span: open.start..end })
            }
            _ => None,
        }
    }
}

/// A scalar's value under the YAML 1.2 core schema with YAML 1.2 booleans, or `None` when
/// the text is numeric-looking in a form this path does not resolve.
pub(super) fn scalar(value: Cow<'_, str>, style: ScalarStyle) -> Option<NodeValue> {
    if style != ScalarStyle::Plain {
        return Some(NodeValue::String(value.into_owned()));
    }
    let s = value.as_ref();
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Some(NodeValue::Null),
        "true" | "True" | "TRUE" => return Some(NodeValue::Bool(true)),
        "false" | "False" | "FALSE" => return Some(NodeValue::Bool(false)),
        _ => {}
    }
    let first = s.chars().next()?;
    if !(first.is_ascii_digit() || matches!(first, '-' | '+' | '.')) {
        return Some(NodeValue::String(value.into_owned()));
    }
    number(s).map(NodeValue::Number)
}

/// Plain decimal integers without a redundant leading zero, and plain decimal floats.
fn number(s: &str) -> Option<Number> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+')) {
        return None;
    }
    let bytes = digits.as_bytes();
    if bytes.len() > 1 && bytes.first() == Some(&b'0') && bytes.get(1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        if s.starts_with('-') {
            return s.parse::<i64>().ok().map(Number::from);
        }
        return s.parse::<u64>().ok().map(Number::from);
    }
    // d+.d* or d+.d*e[+-]d+ ; anything else (".5", "1e5", "1.") goes to the full path.
    let (mantissa, exponent) = match digits.find(['e', 'E']) {
        Some(i) => (&digits[..i], Some(&digits[i + 1..])),
        None => (digits, None),
    };
    let (int, frac) = mantissa.split_once('.')?;
    if int.is_empty()
        || frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite()).and_then(Number::from_f64)
}
