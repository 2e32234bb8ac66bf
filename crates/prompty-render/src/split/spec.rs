//! The spec profile's split of rendered text into messages.

use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::{Error, ErrorKind};
use crate::message::{Message, Part};
use crate::plan::{Fit, TemplatePlaces};
use crate::roles::{SPEC_ROLES, parse_attrs, role_line};
use crate::split::too_many_messages;

/// The spec profile's checks of role lines in strict mode: every role line's word must be
/// at a place of the template's own text, and its start and the line breaks around it must
/// be the template's.
impl TemplatePlaces<'_> {
    /// The error for the role line `line` starting at `pos` (ending at `end`) of `text`,
    /// if it is not the template's own.
    fn check(&self, text: &str, pos: usize, end: usize, line: &str) -> Option<Error> {
        // `line` is a role line: the split found it one.
        let word = pos + crate::roles::role_word_at(line);
        if !self.own(word) {
            let around = text.get(pos.saturating_sub(1)..(end + 1).min(text.len())).unwrap_or(line);
            return Some(injection_error(line, around, self.inputs));
        }
        match self.shapes().fit(line.get(word - pos..).unwrap_or_default()) {
            Fit::Whole => {}
            Fit::Open if end >= text.len() || self.own(end) => {}
            Fit::Open => return Some(attributes_ended_error(line, self.inputs)),
            Fit::None => return Some(rewritten_error(line, self.inputs)),
        }
        let before = pos.checked_sub(1);
        let after = (end < text.len()).then_some(end);
        let ours = self.own_line_break(Some(pos)) && self.own_line_break(before) && self.own_line_break(after);
        (!ours).then(|| line_break_error(text, pos, end, line, self.inputs))
    }

    /// The error for the line `line` at `pos` of `text`, which the split does not read as a
    /// role line, when a mark at its start stands before a role word and `[`: the template
    /// wrote a role line with attributes there, and a value inside them broke it.
    /// `next` is the index of the first mark not before `pos`, moved past the line.
    #[inline]
    fn unsplit(&self, text: &str, pos: usize, line: &str, next: &mut usize) -> Option<Error> {
        let end = pos + line.len();
        while let Some(&at) = self.tail(*next).first() {
            if at >= end {
                break;
            }
            *next += 1;
            let Some(head) = at.checked_sub(pos).and_then(|k| line.get(..k)) else { continue };
            let head = head.trim_start_matches([' ', '\t']);
            let head = head.strip_prefix('#').unwrap_or(head).trim_start_matches([' ', '\t']);
            let rest = text.get(at..end).unwrap_or_default();
            let opens = SPEC_ROLES.iter().any(|r| {
                rest.get(..r.len()).is_some_and(|w| w.eq_ignore_ascii_case(r))
                    && rest.as_bytes().get(r.len()) == Some(&b'[')
            });
            if head.is_empty() && opens {
                return Some(unsplit_error(
                    line,
                    text.get(pos..(end + 1).min(text.len())).unwrap_or(line),
                    self.inputs,
                ));
            }
        }
        None
    }
}

/// Splits rendered text into messages (spec profile).
///
/// Role lines start messages; text before the first role line is a system message; content
/// has leading and trailing `\n` trimmed (only `\n`); empty messages are kept.
///
/// This split has no message limit; rendering holds the messages to
/// [`MAX_MESSAGES`](crate::split::MAX_MESSAGES).
pub fn split_messages(text: &str) -> Vec<Message> {
    // Without strict mode and without a limit there is no error path.
    split_inner(text, None, usize::MAX).unwrap_or_default()
}

pub(crate) fn split_inner(text: &str, strict: Option<&TemplatePlaces<'_>>, max: usize) -> Result<Vec<Message>, Error> {
    let mut messages = Vec::new();
    let mut role: Option<&'static str> = None;
    let mut metadata = Map::new();
    let mut start = 0usize;
    let mut body_start = 0usize;
    let mut pending_pre = true;
    let mut pos = 0usize;
    let mut next_mark = 0usize;
    while pos <= text.len() {
        let end = memchr_newline(text, pos).unwrap_or(text.len());
        let line = text.get(pos..end).unwrap_or("");
        let marker = role_line(line);
        if let (None, Some(strict)) = (&marker, strict)
            && let Some(e) = strict.unsplit(text, pos, line, &mut next_mark)
        {
            return Err(e);
        }
        if let Some(marker) = marker {
            // The text before the first role line may be one message more.
            if messages.len() >= max {
                return Err(too_many_messages(max));
            }
            let mut attrs = marker.attrs.map(parse_attrs).unwrap_or_default();
            if let Some(strict) = strict {
                if let Some(e) = strict.check(text, pos, end, line) {
                    return Err(e);
                }
                // As the spec says: the attributes become metadata, minus `nonce`.
                attrs.remove("nonce");
            }
            let content = text.get(body_start..pos.saturating_sub(1).max(body_start)).unwrap_or("");
            if let Some(r) = role {
                messages.push(make(r, content, std::mem::take(&mut metadata)));
            } else if pending_pre && !trim_newlines(content).is_empty() {
                messages.push(make("system", content, Map::new()));
            }
            pending_pre = false;
            role = Some(marker.role);
            metadata = attrs;
            start = end + 1;
            body_start = start.min(text.len());
        }
        if end >= text.len() {
            break;
        }
        pos = end + 1;
    }
    let _ = start;
    if messages.len() >= max {
        return Err(too_many_messages(max));
    }
    let content = text.get(body_start..).unwrap_or("");
    match role {
        Some(r) => messages.push(make(r, content, metadata)),
        None if !trim_newlines(content).is_empty() || messages.is_empty() => {
            messages.push(make("system", content, Map::new()));
        }
        None => {}
    }
    Ok(messages)
}

fn memchr_newline(text: &str, from: usize) -> Option<usize> {
    memchr::memchr(b'\n', text.as_bytes().get(from..)?).map(|i| from + i)
}

/// `s` without leading and trailing `\n` (`trim_matches('\n')`, byte by byte).
fn trim_newlines(s: &str) -> &str {
    let b = s.as_bytes();
    let start = b.iter().position(|&c| c != b'\n').unwrap_or(b.len());
    let end = b.iter().rposition(|&c| c != b'\n').map_or(start, |k| k + 1);
    s.get(start..end).unwrap_or_default()
}

fn make(role: &str, content: &str, metadata: Map<String, Value>) -> Message {
    Message { role: role.to_owned(), content: vec![Part::Text { value: trim_newlines(content).to_owned() }], metadata }
}

/// Names the input whose value carries the forged role line `line`: the one containing it,
/// else the one sharing the most text with it and the line breaks `around` it.
fn injection_error(line: &str, around: &str, inputs: &Context<'_>) -> Error {
    let found = line.trim();
    let culprit = inputs.iter().find(|(_, v)| value_contains(v, found)).map(|(k, _)| k.to_string());
    let needle = one_line(found);
    match culprit.map(|c| (c, true)).or_else(|| crate::context::blame(around, inputs).map(|(c, _)| (c, false))) {
        Some((name, true)) => Error::new(
            ErrorKind::Injection,
            format!(
                "Role marker nonce mismatch (possible injection): input `{name}` contains the role line `{needle}`"
            ),
        )
        .with_input(name),
        Some((name, false)) => Error::new(
            ErrorKind::Injection,
            format!(
                "Role marker nonce mismatch (possible injection): input `{name}` and the text around it form the role line `{needle}`"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!(
                "Role marker nonce mismatch (possible injection): the role line `{needle}` does not come from the template"
            ),
        ),
    }
}

/// Names the input that shares the most text with `needle`, if any.
fn culprit(needle: &str, inputs: &Context<'_>) -> Option<String> {
    crate::context::blame(needle, inputs).map(|(name, _)| name)
}

/// A role line at a mark that the template does not write: a filter rewrote it.
fn rewritten_error(line: &str, inputs: &Context<'_>) -> Error {
    let needle = one_line(line.trim());
    const WHY: &str = "the role word and attributes of a role line must be the template's own";
    match culprit(line.trim(), inputs) {
        Some(name) => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line rewritten (possible injection): input `{name}` turned a role line of the template into `{needle}`; {WHY}"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line rewritten (possible injection): a role line of the template renders as `{needle}`, which the template does not write; {WHY}"
            ),
        ),
    }
}

/// A template role line with values in its attributes, ended by a line break of a value.
fn attributes_ended_error(line: &str, inputs: &Context<'_>) -> Error {
    let needle = one_line(line.trim());
    const WHY: &str = "a value inside role-line attributes must not hold a line break";
    match culprit(line.trim(), inputs) {
        Some(name) => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line attributes broken (possible injection): input `{name}` ends the template's role line early, as `{needle}`; {WHY}"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line attributes broken (possible injection): the template's role line ends early, as `{needle}`, at a line break it did not write; {WHY}"
            ),
        ),
    }
}

/// A template role line with attributes that a value keeps from being a role line.
fn unsplit_error(line: &str, around: &str, inputs: &Context<'_>) -> Error {
    let needle = one_line(line.trim());
    const WHY: &str = "a value inside role-line attributes must not hold `]` or a line break";
    match culprit(line.trim(), inputs).or_else(|| culprit(around, inputs)) {
        Some(name) => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line attributes broken (possible injection): input `{name}` keeps the template's role line from splitting, as `{needle}`; {WHY}"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line attributes broken (possible injection): the template's role line does not split, as `{needle}`; {WHY}"
            ),
        ),
    }
}

/// A role line made one by a line break (or text) that is not the template's.
fn line_break_error(text: &str, pos: usize, end: usize, line: &str, inputs: &Context<'_>) -> Error {
    let needle = one_line(line.trim());
    let around = text.get(pos.saturating_sub(1)..(end + 1).min(text.len())).unwrap_or(line);
    const WHY: &str = "keep a line break of the template's own before and after each role line";
    match crate::context::blame(around, inputs) {
        Some((name, _)) => Error::new(
            ErrorKind::Injection,
            format!(
                "Role marker nonce mismatch (possible injection): input `{name}` puts a line break next to the template's `{needle}`, making it a role line; {WHY}"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!(
                "Role marker nonce mismatch (possible injection): the template's `{needle}` became a role line through a line break it did not write; {WHY}"
            ),
        ),
    }
}

/// `line` as an error quotes it: control characters (a `\r` inside a role line) escaped, so
/// the error stays one line.
fn one_line(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains(char::is_control) {
        return line.into();
    }
    line.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

fn value_contains(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(s) => s.contains(needle),
        Value::Array(a) => a.iter().any(|x| value_contains(x, needle)),
        Value::Object(o) => o.values().any(|x| value_contains(x, needle)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(ms: &[Message]) -> Vec<(String, String)> {
        ms.iter().map(|m| (m.role.clone(), m.text_content())).collect()
    }

    #[test]
    fn splits_like_the_spec() {
        let ms = split_messages("system:\n  \n  You are helpful.  \n  \n\nuser:\n  Hello  ");
        assert_eq!(
            texts(&ms),
            vec![("system".into(), "  \n  You are helpful.  \n  ".into()), ("user".into(), "  Hello  ".into())]
        );
        let ms = split_messages("system:\nuser:\nHi");
        assert_eq!(texts(&ms), vec![("system".into(), String::new()), ("user".into(), "Hi".into())]);
        let ms = split_messages("preamble\nuser:\nHi");
        assert_eq!(texts(&ms), vec![("system".into(), "preamble".into()), ("user".into(), "Hi".into())]);
        let ms = split_messages("");
        assert_eq!(texts(&ms), vec![("system".into(), String::new())]);
    }

    #[test]
    fn trim_newlines_is_trim_matches_newline() {
        for s in ["", "\n", "\n\n", "a", "\na\n", "\n\r\na b\n\n", " \n", "é\n✓", "\n\n\u{2028}\n"] {
            assert_eq!(trim_newlines(s), s.trim_matches('\n'), "{s:?}");
        }
    }
}
