//! Where the cursor is, read from the text around it rather than from a parse: while a
//! file is being typed its template or YAML is often broken, and completion must work then.

use std::ops::Range;

use crate::schema::Step;

/// A template tag the cursor is inside (`{{ ... }}` or `{% ... %}`, closed or not yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// Where the tag's opening braces are.
    pub open: usize,
    /// `{%`: a Jinja statement.
    pub statement: bool,
}

/// The tag around `offset` in `text`, searching no further back than `from`. Comments
/// (`{# #}`, `{{! }}`) are not tags.
pub fn tag_at(text: &str, from: usize, offset: usize) -> Option<Tag> {
    let before = text.get(from..offset)?;
    let (at, opener) =
        ["{{", "{%", "{#"].into_iter().filter_map(|o| before.rfind(o).map(|i| (i, o))).max_by_key(|(i, _)| *i)?;
    let closer = match opener {
        "{{" => "}}",
        "{%" => "%}",
        _ => return None,
    };
    let inside = before.get(at + 2..)?;
    if inside.contains(closer) || inside.trim_start_matches(['-', '+', '~']).trim_start().starts_with('!') {
        return None;
    }
    Some(Tag { open: from + at, statement: opener == "{%" })
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The dotted name the cursor is typing: the segments before the last dot and the range of
/// the (possibly empty) last segment, which ends at `offset`.
pub fn dotted_before(text: &str, offset: usize) -> (Vec<String>, Range<usize>) {
    let bytes = text.as_bytes();
    let mut start = offset;
    while start > 0 && bytes.get(start - 1).copied().is_some_and(is_ident) {
        start -= 1;
    }
    let word = start..offset;
    let mut segments = Vec::new();
    let mut end = start;
    while end > 0 && bytes.get(end - 1) == Some(&b'.') {
        let seg_end = end - 1;
        let mut seg_start = seg_end;
        while seg_start > 0 && bytes.get(seg_start - 1).copied().is_some_and(is_ident) {
            seg_start -= 1;
        }
        if seg_start == seg_end {
            break;
        }
        segments.push(text.get(seg_start..seg_end).unwrap_or("").to_owned());
        end = seg_start;
    }
    segments.reverse();
    (segments, word)
}

/// The name under the cursor: the dotted segments up to and including it, and its range.
pub fn dotted_at(text: &str, offset: usize) -> Option<(Vec<String>, Range<usize>)> {
    let bytes = text.as_bytes();
    let mut end = offset;
    while bytes.get(end).copied().is_some_and(is_ident) {
        end += 1;
    }
    let (mut segments, word) = dotted_before(text, end);
    if word.is_empty() || word.start > offset {
        return None;
    }
    // A name starts with a letter or `_`, not a digit.
    if bytes.get(word.start).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    segments.push(text.get(word.clone())?.to_owned());
    Some((segments, word))
}

/// What the cursor is typing in the front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// A key of the mapping at `path`; `prefix` is what is typed of it.
    Key {
        /// The keys leading to the mapping.
        path: Vec<Step>,
        /// The typed part of the key.
        prefix: Range<usize>,
        /// The keys the mapping already has.
        siblings: Vec<String>,
    },
    /// The value of `path`'s last key; `prefix` is what is typed of it.
    Value {
        /// The keys leading to the value.
        path: Vec<Step>,
        /// The typed part of the value.
        prefix: Range<usize>,
    },
}

/// One line of block YAML: its indentation, how many `- ` it opens, and its key.
struct YamlLine<'a> {
    indent: usize,
    dashes: usize,
    key: Option<&'a str>,
    /// The text after `key:`, trimmed.
    after: &'a str,
    blank: bool,
}

fn yaml_line(line: &str) -> YamlLine<'_> {
    let trimmed = line.trim_end_matches('\r');
    let indent = trimmed.len() - trimmed.trim_start_matches(' ').len();
    let mut rest = trimmed.get(indent..).unwrap_or("");
    let mut dashes = 0;
    while let Some(r) = rest.strip_prefix("- ") {
        dashes += 1;
        rest = r.trim_start_matches(' ');
    }
    let blank = rest.trim().is_empty() || rest.starts_with('#');
    let key_len = rest.bytes().take_while(|b| is_ident(*b) || *b == b'-' || *b == b'$').count();
    let (key, after) = match rest.get(key_len..) {
        Some(r) if key_len > 0 && r.trim_start().starts_with(':') => {
            (rest.get(..key_len), r.trim_start().get(1..).unwrap_or("").trim())
        }
        _ => (None, ""),
    };
    YamlLine { indent, dashes, key, after, blank }
}

/// The mapping path of the block that holds a key at column `col`, reading the lines above
/// line `line` (lines of `front`, the front matter text).
fn parents(lines: &[&str], line: usize, mut col: usize) -> Vec<Step> {
    let mut path = Vec::new();
    let mut i = line;
    while col > 0 && i > 0 {
        i -= 1;
        let l = yaml_line(lines.get(i).copied().unwrap_or(""));
        if l.blank && l.dashes == 0 {
            continue;
        }
        let key_col = l.indent + 2 * l.dashes;
        if l.dashes > 0 && l.indent < col {
            if key_col < col
                && let Some(k) = l.key
            {
                path.push(Step::Key(k.to_owned()));
            }
            path.extend(std::iter::repeat_n(Step::Item, l.dashes));
            col = l.indent;
        } else if l.indent < col {
            match l.key {
                Some(k) => path.push(Step::Key(k.to_owned())),
                None => break,
            }
            col = l.indent;
        }
    }
    path.reverse();
    path
}

/// The keys of the mapping a key at column `col` on line `line` belongs to; `item_start`
/// when that line opens a list item (the mapping then starts there).
fn siblings(lines: &[&str], line: usize, col: usize, item_start: bool) -> Vec<String> {
    let mut out = Vec::new();
    if !item_start {
        for i in (0..line).rev() {
            let l = yaml_line(lines.get(i).copied().unwrap_or(""));
            if l.blank && l.dashes == 0 {
                continue;
            }
            let key_col = l.indent + 2 * l.dashes;
            if key_col == col {
                out.extend(l.key.map(str::to_owned));
                if l.dashes > 0 {
                    break;
                }
            } else if l.indent < col {
                break;
            }
        }
    }
    for l in lines.iter().skip(line + 1) {
        let l = yaml_line(l);
        if l.blank && l.dashes == 0 {
            continue;
        }
        if l.indent < col {
            break;
        }
        if l.indent == col {
            out.extend(l.key.map(str::to_owned));
        }
    }
    out
}

/// What the cursor at `offset` is typing in the front matter that spans `front` in `text`.
pub fn yaml_slot(text: &str, front: Range<usize>, offset: usize) -> Option<Slot> {
    if offset < front.start || offset > front.end {
        return None;
    }
    let region = text.get(front.start..front.end)?;
    let lines: Vec<&str> = region.split('\n').collect();
    let rel = offset - front.start;
    let line = region.get(..rel)?.matches('\n').count();
    let line_start = front.start + region.get(..rel)?.rfind('\n').map_or(0, |i| i + 1);
    let typed = text.get(line_start..offset)?;
    let l = yaml_line(typed);
    let key_col = l.indent + 2 * l.dashes;
    let mut path = parents(&lines, line, l.indent);
    if l.dashes > 0 {
        path.extend(std::iter::repeat_n(Step::Item, l.dashes));
    }
    let rest = typed.get(key_col.min(typed.len())..).unwrap_or("");
    if rest.bytes().all(|b| is_ident(b) || b == b'$') {
        let prefix = offset - rest.len()..offset;
        let siblings = siblings(&lines, line, key_col, l.dashes > 0);
        return Some(Slot::Key { path, prefix, siblings });
    }
    let key = l.key?;
    let value = l.after;
    // A value followed by a space is written; quoted, flow and block values are not completed.
    let done = !value.is_empty() && typed.ends_with([' ', '\t']);
    if done || value.contains(' ') || value.starts_with(['{', '[', '"', '\'', '|', '>', '&', '*', '#']) {
        return None;
    }
    path.push(Step::Key(key.to_owned()));
    Some(Slot::Value { path, prefix: offset - value.len()..offset })
}

/// The key path of the mapping key or scalar at `offset` in a parsed front matter, with the
/// node's span; `is_key` when the offset is on a key.
pub fn node_at<'n>(
    node: &'n prompty_syntax::yaml::Node,
    offset: usize,
    path: &mut Vec<Step>,
) -> Option<(&'n prompty_syntax::yaml::Node, bool)> {
    use prompty_syntax::yaml::NodeValue;
    match &node.value {
        NodeValue::Map(entries) => {
            for (k, v) in entries {
                if k.span.start <= offset && offset < k.span.end.max(k.span.start + 1) {
                    path.push(Step::Key(k.key_string()));
                    return Some((k, true));
                }
                path.push(Step::Key(k.key_string()));
                if let Some(found) = node_at(v, offset, path) {
                    return Some(found);
                }
                path.pop();
            }
            None
        }
        NodeValue::Seq(items) => {
            for item in items {
                path.push(Step::Item);
                if let Some(found) = node_at(item, offset, path) {
                    return Some(found);
                }
                path.pop();
            }
            None
        }
        _ if node.span.start <= offset && offset <= node.span.end && !node.span.is_empty() => Some((node, false)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Step {
        Step::Key(k.to_owned())
    }

    /// The slot at the `|` in `front`.
    fn slot(front: &str) -> Option<Slot> {
        let offset = front.find('|').unwrap_or(0);
        let text = front.replacen('|', "", 1);
        yaml_slot(&text, 0..text.len(), offset)
    }

    #[test]
    fn tags() {
        let t = "a {{ x }} {% if y";
        assert_eq!(tag_at(t, 0, t.len()), Some(Tag { open: 10, statement: true }));
        assert_eq!(tag_at(t, 0, 9), None);
        assert_eq!(tag_at(t, 0, 5), Some(Tag { open: 2, statement: false }));
        assert_eq!(tag_at("{# {{ x", 0, 7), Some(Tag { open: 3, statement: false }));
        assert_eq!(tag_at("{# x", 0, 4), None);
        assert_eq!(tag_at("{{! note", 0, 8), None);
    }

    #[test]
    fn dotted_names() {
        assert_eq!(dotted_before("{{ user.addr", 12), (vec!["user".to_owned()], 8..12));
        assert_eq!(dotted_before("{{ a.b.", 7), (vec!["a".to_owned(), "b".to_owned()], 7..7));
        assert_eq!(dotted_at("{{ user.name }}", 9), Some((vec!["user".to_owned(), "name".to_owned()], 8..12)));
        assert_eq!(dotted_at("{{ 12 }}", 3), None);
    }

    #[test]
    fn yaml_slots() {
        assert_eq!(slot("na|"), Some(Slot::Key { path: vec![], prefix: 0..2, siblings: vec![] }));
        assert_eq!(
            slot("name: x\nmodel:\n  id: m\n  pro|"),
            Some(Slot::Key { path: vec![key("model")], prefix: 25..28, siblings: vec!["id".to_owned()] })
        );
        assert_eq!(
            slot("inputs:\n  q:\n    kind: st|"),
            Some(Slot::Value { path: vec![key("inputs"), key("q"), key("kind")], prefix: 23..25 })
        );
        assert_eq!(
            slot("inputs:\n  - name: q\n    kind: |"),
            Some(Slot::Value { path: vec![key("inputs"), Step::Item, key("kind")], prefix: 30..30 })
        );
        assert_eq!(
            slot("inputs:\n  - |"),
            Some(Slot::Key { path: vec![key("inputs"), Step::Item], prefix: 12..12, siblings: vec![] })
        );
        assert_eq!(
            slot("tools:\n  - name: f\n    parameters:\n      x:\n        ki|"),
            Some(Slot::Key {
                path: vec![key("tools"), Step::Item, key("parameters"), key("x")],
                prefix: 52..54,
                siblings: vec![]
            })
        );
        assert_eq!(slot("name: \"a b|"), None);
        assert_eq!(slot("inputs:\n  q:\n    kind: string |"), None);
        assert_eq!(
            slot("model:\n  apiType: |"),
            Some(Slot::Value { path: vec![key("model"), key("apiType")], prefix: 18..18 })
        );
    }
}
