//! The spec profile's split of rendered text into messages, and rich-input expansion.

use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::{Error, ErrorKind};
use crate::marks::{Fit, Provenance};
use crate::message::{Message, Part};
use crate::roles::{SPEC_ROLES, parse_attrs, role_line};

/// The spec profile's checks of role lines in strict mode: every role line's word must be
/// at a place of the template's own text, and its start and the line breaks around it must
/// be the template's.
impl Provenance<'_> {
    /// The error for the role line `line` starting at `pos` (ending at `end`) of `text`,
    /// if it is not the template's own.
    fn check(&self, text: &str, pos: usize, end: usize, line: &str) -> Option<Error> {
        // `line` is a role line: the split found it one.
        let word = pos + crate::roles::role_word_at(line);
        if !self.marked(word) {
            let around = text.get(pos.saturating_sub(1)..(end + 1).min(text.len())).unwrap_or(line);
            return Some(injection_error(line, around, self.inputs));
        }
        match self.shapes.fit(line.get(word - pos..).unwrap_or_default()) {
            Fit::Whole => {}
            Fit::Open if end >= text.len() || self.marked(end) => {}
            Fit::Open => return Some(attributes_ended_error(line, self.inputs)),
            Fit::None => return Some(rewritten_error(line, self.inputs)),
        }
        if !self.lines {
            return None;
        }
        let before = pos.checked_sub(1);
        let after = (end < text.len()).then_some(end);
        let ours = self.marked(pos) && before.is_none_or(|n| self.marked(n)) && after.is_none_or(|n| self.marked(n));
        (!ours).then(|| line_break_error(text, pos, end, line, self.inputs))
    }

    /// The error for the line `line` at `pos` of `text`, which the split does not read as a
    /// role line, when a mark at its start stands before a role word and `[`: the template
    /// wrote a role line with attributes there, and a value inside them broke it.
    /// `next` is the index of the first mark not before `pos`, moved past the line.
    #[inline]
    fn unsplit(&self, text: &str, pos: usize, line: &str, next: &mut usize) -> Option<Error> {
        let end = pos + line.len();
        while let Some(&at) = self.marks.get(*next) {
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
/// This split has no message limit; rendering holds the messages to [`MAX_MESSAGES`].
pub fn split_messages(text: &str) -> Vec<Message> {
    // Without strict mode and without a limit there is no error path.
    split_inner(text, None, usize::MAX).unwrap_or_default()
}

/// The most messages a render may split its text into: far more than any conversation a
/// prompt holds, few enough that a template of nothing but role lines cannot make the
/// request (or the time and memory spent on it) grow without bound.
pub const MAX_MESSAGES: usize = 10_000;

/// The error for rendered text with more than `max` messages.
pub(crate) fn too_many_messages(max: usize) -> Error {
    Error::new(
        ErrorKind::Limit,
        format!(
            "the rendered text splits into more than {max} messages, the most a render may give; write fewer role lines (or a thread input) per prompt"
        ),
    )
}

pub(crate) fn split_inner(text: &str, strict: Option<&Provenance<'_>>, max: usize) -> Result<Vec<Message>, Error> {
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

/// A rich input replaced by a nonce before rendering.
#[derive(Debug, Clone)]
pub(crate) struct RichInput {
    pub(crate) name: String,
    pub(crate) kind: prompty_syntax::PropertyKind,
    pub(crate) value: Value,
    /// The placeholder the template rendered in place of the value: fresh random bytes
    /// per render, so no input value can contain it.
    pub(crate) nonce: String,
}

/// Bytes counted for each message and each content part on top of its text when the
/// expanded messages are held to the output cap (a message costs memory even when empty).
const PART_OVERHEAD: usize = 32;

fn message_size(m: &Message) -> usize {
    let parts: usize = m
        .content
        .iter()
        .map(|p| {
            PART_OVERHEAD
                + match p {
                    Part::Text { value }
                    | Part::Audio { value, .. }
                    | Part::File { value, .. }
                    | Part::Image { value, .. } => value.len(),
                }
        })
        .sum();
    m.role.len() + PART_OVERHEAD + parts
}

/// Replaces rich-input nonces in `messages` by the values they stand for.
///
/// Text parts are scanned for nonces, part by part, so several rich inputs in one message
/// all survive. An image, file or audio nonce becomes a content part in place (the text
/// around it kept as trimmed text parts); a thread nonce splits the message and inserts the
/// thread's messages, with their own roles, between the halves. A thread that appears in no
/// message is appended at the end.
///
/// Only the exact placeholders of this render are expanded, at the places the template put
/// them. The expanded messages are held to `max_output` bytes (text plus a fixed cost per
/// message and part), so a template that places a thread many times cannot multiply it
/// past the cap the rendered text is held to.
pub(crate) fn expand_rich(
    messages: Vec<Message>,
    rich: &[RichInput],
    max_output: usize,
    thread_roles: Option<&[String]>,
) -> Result<Vec<Message>, Error> {
    let threads: Vec<(&RichInput, Vec<Message>)> = rich
        .iter()
        .filter(|r| r.kind == prompty_syntax::PropertyKind::Thread)
        .map(|r| {
            thread_messages(&r.value).map(|t| (r, t)).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidInput,
                    format!("thread input `{}` must be a list of messages with `role` and `content`", r.name),
                )
                .with_input(r.name.clone())
            })
        })
        .collect::<Result<_, _>>()?;
    if let Some(allowed) = thread_roles {
        for (input, thread) in &threads {
            check_thread_roles(&input.name, thread, allowed)?;
        }
    }
    let thread_sizes: Vec<usize> = threads.iter().map(|(_, t)| t.iter().map(message_size).sum()).collect();
    let mut budget = Budget { used: 0, max: max_output };
    let mut placed = vec![false; threads.len()];
    let mut out = Vec::with_capacity(messages.len());
    for m in messages {
        let mut current = Message { role: m.role.clone(), content: Vec::new(), metadata: m.metadata.clone() };
        let mut pending: std::collections::VecDeque<Part> = m.content.into();
        while let Some(part) = pending.pop_front() {
            let Part::Text { value } = part else {
                current.content.push(part);
                continue;
            };
            // The first nonce in this text, of any rich input.
            let first = rich
                .iter()
                .enumerate()
                .filter_map(|(k, r)| value.find(r.nonce.as_str()).map(|s| (s, s + r.nonce.len(), k)))
                .min_by_key(|(s, _, _)| *s);
            let Some((s, e, k)) = first else {
                current.content.push(Part::Text { value });
                continue;
            };
            let before = value.get(..s).unwrap_or("").trim();
            let after = value.get(e..).unwrap_or("").trim();
            if !before.is_empty() {
                current.content.push(Part::Text { value: before.to_owned() });
            }
            if !after.is_empty() {
                pending.push_front(Part::Text { value: after.to_owned() });
            }
            let input = rich.get(k).ok_or_else(|| Error::new(ErrorKind::InvalidInput, "rich input index"))?;
            if input.kind == prompty_syntax::PropertyKind::Thread {
                let t = threads.iter().position(|(r, _)| r.name == input.name).unwrap_or(0);
                if !current.content.is_empty() {
                    let next = Message { role: m.role.clone(), content: Vec::new(), metadata: m.metadata.clone() };
                    let done = std::mem::replace(&mut current, next);
                    budget.take(message_size(&done))?;
                    out.push(done);
                }
                if let (Some((_, thread)), Some(flag)) = (threads.get(t), placed.get_mut(t)) {
                    budget.take(thread_sizes.get(t).copied().unwrap_or(0))?;
                    out.extend(thread.iter().cloned());
                    *flag = true;
                }
            } else {
                current.content.push(media_part(input.kind, &input.value).ok_or_else(|| {
                    Error::new(
                        ErrorKind::InvalidInput,
                        format!(
                            "{} input `{}` must be a URL or data URI string, or an object with `url`/`source`",
                            input.kind.as_str(),
                            input.name
                        ),
                    )
                    .with_input(input.name.clone())
                })?);
            }
        }
        // Empty only when a thread took all of it: nothing is left to keep. (A message that
        // was empty to begin with still holds its empty text part.)
        if !current.content.is_empty() {
            budget.take(message_size(&current))?;
            out.push(current);
        }
    }
    for (((_, thread), placed), size) in threads.iter().zip(placed).zip(thread_sizes) {
        if !placed {
            budget.take(size)?;
            out.extend(thread.iter().cloned());
        }
    }
    if out.len() > MAX_MESSAGES {
        return Err(too_many_messages(MAX_MESSAGES));
    }
    Ok(out)
}

/// The output cap, applied to the messages as they are expanded.
struct Budget {
    used: usize,
    max: usize,
}

impl Budget {
    fn take(&mut self, bytes: usize) -> Result<(), Error> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.max {
            return Err(Error::new(
                ErrorKind::Limit,
                format!(
                    "the messages exceed the limit of {} bytes once rich inputs (threads, images, files) are expanded",
                    self.max
                ),
            ));
        }
        Ok(())
    }
}

/// A thread value: `[{role, content: string | parts}]`, or `{messages: [...]}`.
/// Refuses a message of the thread input `name` whose role is not in `allowed`.
fn check_thread_roles(name: &str, thread: &[Message], allowed: &[String]) -> Result<(), Error> {
    let Some((k, m)) =
        thread.iter().enumerate().find(|(_, m)| !allowed.iter().any(|a| a.eq_ignore_ascii_case(&m.role)))
    else {
        return Ok(());
    };
    let allowed = if allowed.is_empty() { "none".to_owned() } else { allowed.join(", ") };
    Err(Error::new(
        ErrorKind::InvalidInput,
        format!(
            "thread input `{name}`: message {} has the role `{}`, which thread inputs may not carry here (allowed: {allowed})",
            k + 1,
            m.role
        ),
    )
    .with_input(name))
}

fn thread_messages(v: &Value) -> Option<Vec<Message>> {
    let items = match v {
        Value::Array(a) => a,
        Value::Object(o) => o.get("messages")?.as_array()?,
        _ => return None,
    };
    items
        .iter()
        .map(|item| {
            let role = item.get("role")?.as_str()?.to_owned();
            let content = match item.get("content") {
                Some(Value::String(s)) => vec![Part::Text { value: s.clone() }],
                Some(Value::Array(parts)) => parts.iter().map(part_from_json).collect::<Option<Vec<_>>>()?,
                None | Some(Value::Null) => Vec::new(),
                Some(_) => return None,
            };
            let metadata = item.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
            Some(Message { role, content, metadata })
        })
        .collect()
}

fn part_from_json(p: &Value) -> Option<Part> {
    if let Some(s) = p.as_str() {
        return Some(Part::Text { value: s.to_owned() });
    }
    // Canonical parts ({kind, value}) or OpenAI-style ({type: text, text}).
    if let Ok(part) = serde_json::from_value::<Part>(p.clone()) {
        return Some(part);
    }
    match p.get("type")?.as_str()? {
        "text" => Some(Part::Text { value: p.get("text")?.as_str()?.to_owned() }),
        "image_url" => {
            let iu = p.get("image_url")?;
            let url = iu.as_str().or_else(|| iu.get("url")?.as_str())?;
            Some(Part::Image {
                value: url.to_owned(),
                detail: iu.get("detail").and_then(Value::as_str).map(str::to_owned),
                media_type: None,
            })
        }
        _ => None,
    }
}

fn media_part(kind: prompty_syntax::PropertyKind, v: &Value) -> Option<Part> {
    let (source, detail, media_type) = match v {
        Value::String(s) => (s.clone(), None, None),
        Value::Object(o) => (
            o.get("url").or_else(|| o.get("source")).or_else(|| o.get("value")).and_then(Value::as_str)?.to_owned(),
            o.get("detail").and_then(Value::as_str).map(str::to_owned),
            o.get("mediaType").or_else(|| o.get("media_type")).and_then(Value::as_str).map(str::to_owned),
        ),
        _ => return None,
    };
    let media_type = media_type.or_else(|| data_uri_media_type(&source));
    Some(match kind {
        prompty_syntax::PropertyKind::Image => Part::Image { value: source, detail, media_type },
        prompty_syntax::PropertyKind::Audio => Part::Audio { value: source, media_type },
        _ => Part::File { value: source, media_type },
    })
}

fn data_uri_media_type(s: &str) -> Option<String> {
    let rest = s.strip_prefix("data:")?;
    let end = rest.find([';', ','])?;
    Some(rest.get(..end)?.to_owned()).filter(|m| !m.is_empty())
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

    fn rich(name: &str, nonce: &str, kind: prompty_syntax::PropertyKind, value: Value) -> RichInput {
        RichInput { name: name.to_owned(), kind, value, nonce: format!("__PROMPTY_THREAD_{nonce}_{name}__") }
    }

    #[test]
    fn several_rich_inputs_in_one_message_all_survive() {
        use prompty_syntax::PropertyKind::{Audio, Image, Thread};
        let text = "system:\nLook __PROMPTY_THREAD_0a0a0a0a_photo__ and __PROMPTY_THREAD_1b1b1b1b_clip__ now\n\n__PROMPTY_THREAD_2c2c2c2c_conv__\nuser:\nHi";
        let inputs = [
            rich("photo", "0a0a0a0a", Image, Value::String("https://x/cat.png".into())),
            rich("clip", "1b1b1b1b", Audio, Value::String("data:audio/wav;base64,AAAA".into())),
            rich("conv", "2c2c2c2c", Thread, serde_json::json!([{"role": "user", "content": "before"}])),
        ];
        let ms = expand_rich(split_messages(text), &inputs, usize::MAX, None).expect("expands");
        let shape: Vec<(String, Vec<&str>)> = ms
            .iter()
            .map(|m| {
                let kinds = m
                    .content
                    .iter()
                    .map(|p| match p {
                        Part::Text { .. } => "text",
                        Part::Image { .. } => "image",
                        Part::Audio { .. } => "audio",
                        Part::File { .. } => "file",
                    })
                    .collect();
                (m.role.clone(), kinds)
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                ("system".to_owned(), vec!["text", "image", "text", "audio", "text"]),
                ("user".to_owned(), vec!["text"]),
                ("user".to_owned(), vec!["text"]),
            ]
        );
        assert_eq!(ms[0].content[4], Part::Text { value: "now".into() });
        assert_eq!(ms[1].text_content(), "before");
        assert_eq!(ms[2].text_content(), "Hi");
    }

    #[test]
    fn only_this_renders_placeholders_expand() {
        use prompty_syntax::PropertyKind::Thread;
        let conv = rich("conv", "2c2c2c2c", Thread, serde_json::json!([{"role": "assistant", "content": "t"}]));
        // Another hex, or the right hex for another name: plain text.
        let text =
            "user:\n__PROMPTY_THREAD_deadbeef_conv__ __PROMPTY_THREAD_2c2c2c2c_con__\n__PROMPTY_THREAD_2c2c2c2c_conv__";
        let ms = expand_rich(split_messages(text), std::slice::from_ref(&conv), usize::MAX, None).expect("expands");
        assert_eq!(
            texts(&ms),
            vec![
                ("user".into(), "__PROMPTY_THREAD_deadbeef_conv__ __PROMPTY_THREAD_2c2c2c2c_con__".into()),
                ("assistant".into(), "t".into())
            ]
        );
    }

    #[test]
    fn expansion_is_held_to_the_cap() {
        use prompty_syntax::PropertyKind::Thread;
        let conv =
            rich("conv", "2c2c2c2c", Thread, serde_json::json!([{"role": "assistant", "content": "0123456789"}]));
        let text = format!("user:\n{}", "__PROMPTY_THREAD_2c2c2c2c_conv__\n".repeat(100));
        let one = message_size(&Message::text("assistant", "0123456789"));
        assert!(expand_rich(split_messages(&text), std::slice::from_ref(&conv), 100 * one, None).is_ok());
        let e =
            expand_rich(split_messages(&text), std::slice::from_ref(&conv), 100 * one - 1, None).expect_err("capped");
        assert_eq!(e.kind(), ErrorKind::Limit);
    }

    #[test]
    fn trim_newlines_is_trim_matches_newline() {
        for s in ["", "\n", "\n\n", "a", "\na\n", "\n\r\na b\n\n", " \n", "é\n✓", "\n\n\u{2028}\n"] {
            assert_eq!(trim_newlines(s), s.trim_matches('\n'), "{s:?}");
        }
    }
}
