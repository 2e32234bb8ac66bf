//! Rich inputs (images, files, audio, threads): the placeholders a render prints for them,
//! expanded into content parts and messages after the split.

use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::message::{Message, Part};
use crate::split::{MAX_MESSAGES, too_many_messages};

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
    use crate::split::spec::split_messages;

    fn texts(ms: &[Message]) -> Vec<(String, String)> {
        ms.iter().map(|m| (m.role.clone(), m.text_content())).collect()
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
}
