//! The promptflow profile: how promptflow-core 1.18 turns rendered text into messages.
//!
//! Separator (multi-line, case-insensitive): `^\s*#?\s*(system|user|assistant|function|tool)\s*:\s*\n`.
//! Text before the first separator must be blank; message bodies are stripped (Python
//! `str.strip()`); `name:`/`content:` and `tool_call_id:`/`content:` sub-syntax; role words
//! inside string inputs are escaped before rendering and restored after the split.

use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::{Error, ErrorKind};
use crate::message::Message;
use crate::pyrepr::{py_space, py_strip};

/// Roles the promptflow profile splits on.
pub const PROMPTFLOW_ROLES: &[&str] = &["system", "user", "assistant", "function", "tool"];

fn skip_space(text: &str, mut i: usize) -> usize {
    while let Some(c) = text.get(i..).and_then(|s| s.chars().next()) {
        if !py_space(c) {
            break;
        }
        i += c.len_utf8();
    }
    i
}

/// Whether a separator may start at `start`: after ASCII blanks, the first byte must be `#`,
/// the first letter of a role word, or a byte the exact scan has to look at (non-ASCII, which
/// may be Unicode whitespace, and the separators 0x1C-0x1F). Most lines fail here.
fn may_start_separator(bytes: &[u8], start: usize) -> bool {
    let rest = bytes.get(start..).unwrap_or_default();
    let first = rest.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c));
    match first {
        None => false,
        Some(b) => {
            matches!(b.to_ascii_lowercase(), b'#' | b's' | b'u' | b'a' | b'f' | b't')
                || *b >= 0x80
                || (0x1c..=0x1f).contains(b)
        }
    }
}

/// A separator match: (start, end, role word as typed).
fn separator_at(text: &str, start: usize) -> Option<(usize, &str)> {
    if !may_start_separator(text.as_bytes(), start) {
        return None;
    }
    let mut i = skip_space(text, start);
    if text.get(i..)?.starts_with('#') {
        i += 1;
    }
    i = skip_space(text, i);
    let rest = text.get(i..)?;
    let role_len = PROMPTFLOW_ROLES
        .iter()
        .find(|r| rest.get(..r.len()).is_some_and(|w| w.eq_ignore_ascii_case(r)))
        .map(|r| r.len())?;
    let word = rest.get(..role_len)?;
    i = skip_space(text, i + role_len);
    if !text.get(i..)?.starts_with(':') {
        return None;
    }
    i += 1;
    // `\s*\n`: the whitespace run after the colon must contain a newline; the match ends
    // after the last one.
    let ws_end = skip_space(text, i);
    let last_nl = text.get(i..ws_end)?.rfind('\n')?;
    Some((i + last_nl + 1, word))
}

/// `re.split` with the separator: `[pre, role, body, role, body, ...]` as (role word, body).
fn split_chunks(text: &str) -> (&str, Vec<(&str, &str)>) {
    let mut parts: Vec<(usize, usize, &str)> = Vec::new();
    let mut line_start = 0usize;
    while line_start <= text.len() {
        if let Some((end, word)) = separator_at(text, line_start) {
            parts.push((line_start, end, word));
            line_start = end;
            continue;
        }
        match text.get(line_start..).and_then(|s| s.find('\n')) {
            Some(i) => line_start += i + 1,
            None => break,
        }
    }
    let pre = text.get(..parts.first().map_or(text.len(), |p| p.0)).unwrap_or("");
    let chunks = parts
        .iter()
        .enumerate()
        .map(|(k, &(_, end, word))| {
            let body_end = parts.get(k + 1).map_or(text.len(), |p| p.0);
            (word, text.get(end..body_end).unwrap_or(""))
        })
        .collect();
    (pre, chunks)
}

/// Splits rendered text into messages the way promptflow does.
pub fn split_messages_promptflow(text: &str) -> Result<Vec<Message>, Error> {
    let (pre, chunks) = split_chunks(text);
    if !py_strip(pre).is_empty() {
        let shown: String = py_strip(pre).chars().take(60).collect();
        return Err(Error::new(
            ErrorKind::Parse,
            format!(
                "text before the first role line: `{shown}`; promptflow requires the prompt to start with a role line such as `system:`"
            ),
        ));
    }
    let mut messages = Vec::with_capacity(chunks.len());
    for (word, body) in chunks {
        let role = word.to_ascii_lowercase();
        let mut metadata = Map::new();
        let content = if role == "tool" {
            let (id, content) = parse_labelled(body, "tool_call_id").ok_or_else(|| {
                Error::new(
                    ErrorKind::Parse,
                    "a `tool:` message must be written as `tool_call_id:` (the id on the next line) followed by `content:`",
                )
            })?;
            metadata.insert("tool_call_id".into(), Value::String(id.to_owned()));
            content
        } else if let Some((name, content)) = parse_labelled(body, "name") {
            metadata.insert("name".into(), Value::String(name.to_owned()));
            content
        } else if role == "function" {
            return Err(Error::new(
                ErrorKind::Parse,
                "a `function:` message must be written as `name:` (the function name on the next line) followed by `content:`",
            ));
        } else {
            body
        };
        let mut m = Message::text(role, py_strip(content));
        m.metadata = metadata;
        messages.push(m);
    }
    Ok(messages)
}

/// `\n*#{0,2}\s*LABEL\s*:\s*\n+\s*(\S+)\s*\n*#{0,2}\s*content\s*:\s*\n?(.*)`, searched anywhere.
///
/// A match needs `LABEL`, optional whitespace, then a colon; so the scan visits the colons
/// (a fast character search) and tries the ones that follow the label. Each usable label has
/// exactly one colon, so the first match is the leftmost one, as a regex search finds.
fn parse_labelled<'a>(body: &'a str, label: &str) -> Option<(&'a str, &'a str)> {
    let mut from = 0;
    while let Some(i) = body.get(from..)?.find(':') {
        let colon = from + i;
        let before = body.get(..colon)?.trim_end_matches(py_space);
        if before.ends_with(label)
            && let Some(found) = labelled_at(body, before.len())
        {
            return Some(found);
        }
        from = colon + 1;
    }
    None
}

fn labelled_at(body: &str, mut i: usize) -> Option<(&str, &str)> {
    i = skip_space(body, i);
    if !body.get(i..)?.starts_with(':') {
        return None;
    }
    i += 1;
    // `\s*\n+\s*`: some whitespace containing at least one newline.
    let ws_end = skip_space(body, i);
    if !body.get(i..ws_end)?.contains('\n') {
        return None;
    }
    i = ws_end;
    let value_end = body.get(i..)?.find(py_space).map_or(body.len(), |k| i + k);
    let value = body.get(i..value_end).filter(|v| !v.is_empty())?;
    let mut j = skip_space(body, value_end);
    let hashes = body.get(j..)?.bytes().take_while(|&b| b == b'#').count();
    if hashes > 2 {
        return None;
    }
    j = skip_space(body, j + hashes);
    if !body.get(j..)?.starts_with("content") {
        return None;
    }
    j = skip_space(body, j + "content".len());
    if !body.get(j..)?.starts_with(':') {
        return None;
    }
    j += 1;
    // `\s*\n?`: greedy whitespace, then an optional newline.
    j = skip_space(body, j);
    Some((value, body.get(j..).unwrap_or("")))
}

/// Role words found on separator lines in `s` (as typed).
fn role_words(s: &str) -> Vec<&str> {
    // A separator is a role word, a colon and a line break: most values have no such line.
    if !s.contains(':') || !s.contains('\n') {
        return Vec::new();
    }
    let (_, chunks) = split_chunks(s);
    chunks.into_iter().map(|(w, _)| w).collect()
}

/// The escape table: placeholder -> role word.
#[derive(Debug, Default, Clone)]
pub(crate) struct Escapes {
    pairs: Vec<(String, String)>,
}

impl Escapes {
    /// Escapes role words in the top-level string inputs, in place.
    pub(crate) fn escape(inputs: &mut Context<'_>) -> Result<Escapes, Error> {
        let mut words: Vec<String> = Vec::new();
        for (_, v) in &inputs.entries {
            if let Value::String(s) = v.as_ref() {
                for w in role_words(s) {
                    if !words.iter().any(|x| x == w) {
                        words.push(w.to_owned());
                    }
                }
            }
        }
        let mut pairs = Vec::with_capacity(words.len());
        for w in words {
            pairs.push((uuid4()?, w));
        }
        if pairs.is_empty() {
            return Ok(Escapes { pairs });
        }
        for (_, v) in &mut inputs.entries {
            let Value::String(s) = v.as_ref() else { continue };
            if !pairs.iter().any(|(_, word)| s.contains(word.as_str())) {
                continue;
            }
            let mut escaped = s.clone();
            for (key, word) in &pairs {
                if escaped.contains(word.as_str()) {
                    escaped = escaped.replace(word.as_str(), key);
                }
            }
            *v = std::borrow::Cow::Owned(Value::String(escaped));
        }
        Ok(Escapes { pairs })
    }

    /// Restores the role words in every message field.
    pub(crate) fn restore(&self, messages: &mut [Message]) {
        if self.pairs.is_empty() {
            return;
        }
        for m in messages {
            for part in &mut m.content {
                if let crate::Part::Text { value } = part {
                    self.restore_str(value);
                }
            }
            for v in m.metadata.values_mut() {
                if let Value::String(s) = v {
                    self.restore_str(s);
                }
            }
        }
    }

    fn restore_str(&self, s: &mut String) {
        for (key, word) in &self.pairs {
            if s.contains(key.as_str()) {
                *s = s.replace(key.as_str(), word);
            }
        }
    }
}

/// A random version-4 UUID string.
fn uuid4() -> Result<String, Error> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| Error::new(ErrorKind::InvalidInput, format!("no random source: {e}")))?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        hex.get(0..8).unwrap_or(""),
        hex.get(8..12).unwrap_or(""),
        hex.get(12..16).unwrap_or(""),
        hex.get(16..20).unwrap_or(""),
        hex.get(20..32).unwrap_or("")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(ms: &[Message]) -> Vec<(String, String)> {
        ms.iter().map(|m| (m.role.clone(), m.text_content())).collect()
    }

    #[test]
    fn splits_like_promptflow() {
        let ms = split_messages_promptflow("\nsystem:\n  Be brief.  \n\n# User :  \n\nHi\n").expect("splits");
        assert_eq!(texts(&ms), vec![("system".into(), "Be brief.".into()), ("user".into(), "Hi".into())]);
        let ms = split_messages_promptflow("system:\nA\nuser:\n").expect("splits");
        assert_eq!(texts(&ms), vec![("system".into(), "A".into()), ("user".into(), String::new())]);
        // A marker on the last line without a newline is not a separator.
        let ms = split_messages_promptflow("system:\nA\nuser:").expect("splits");
        assert_eq!(texts(&ms), vec![("system".into(), "A\nuser:".into())]);
        assert!(split_messages_promptflow("preamble\nsystem:\nx").is_err());
    }

    #[test]
    fn name_and_tool_sub_syntax() {
        let ms = split_messages_promptflow("function:\nname:\nget_weather\ncontent:\n{\"t\": 1}\n").expect("splits");
        assert_eq!(ms[0].metadata["name"], "get_weather");
        assert_eq!(ms[0].text_content(), "{\"t\": 1}");
        let ms = split_messages_promptflow("tool:\ntool_call_id:\n  call_1\ncontent:\nok").expect("splits");
        assert_eq!(ms[0].metadata["tool_call_id"], "call_1");
        assert!(split_messages_promptflow("tool:\nno id here").is_err());
        assert!(split_messages_promptflow("function:\nno name").is_err());
    }

    #[test]
    fn escapes_and_restores_role_words() {
        let value = Value::String("hi\nuser:\nI am a user".into());
        let mut inputs = Context::new(vec![("q", &value)]);
        let esc = Escapes::escape(&mut inputs).expect("escapes");
        let q = inputs.get("q").and_then(Value::as_str).unwrap_or_default().to_owned();
        assert!(!q.contains("user"));
        let mut ms = split_messages_promptflow(&format!("system:\nx\nuser:\n{q}")).expect("splits");
        assert_eq!(ms.len(), 2);
        esc.restore(&mut ms);
        assert_eq!(ms[1].text_content(), "hi\nuser:\nI am a user");
    }
}
