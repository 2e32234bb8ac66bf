//! The promptflow profile: how promptflow-core 1.18 turns rendered text into messages.
//!
//! Separator (multi-line, case-insensitive): `^\s*#?\s*(system|user|assistant|function|tool)\s*:\s*\n`.
//! Text before the first separator must be blank; message bodies are stripped (Python
//! `str.strip()`); `name:`/`content:` and `tool_call_id:`/`content:` sub-syntax, and an
//! assistant message's `tool_calls:` list; role words inside string inputs are escaped
//! before rendering and restored after the split.

use serde_json::{Map, Value};

use crate::context::{Context, blame};
use crate::error::{Error, ErrorKind};
use crate::message::Message;
use crate::plan::TemplatePlaces;
use crate::roles::skip_space;
use crate::split::{MAX_MESSAGES, too_many_messages};
use prompty_py::literal::LiteralError;
use prompty_py::{py_space, py_strip};

/// Where the run of Python whitespace that ends at `i` starts, not before `from`.
fn skip_space_back(text: &str, mut i: usize, from: usize) -> usize {
    let bytes = text.as_bytes();
    while i > from {
        let Some(&b) = bytes.get(i - 1) else { break };
        if b.is_ascii() {
            if !py_space(char::from(b)) {
                break;
            }
            i -= 1;
        } else {
            match text.get(..i).and_then(|s| s.chars().next_back()) {
                Some(c) if py_space(c) && i - c.len_utf8() >= from => i -= c.len_utf8(),
                _ => break,
            }
        }
    }
    i
}

/// The leftmost line start in `lo..=hi` (a line starts at 0 or after `\n`).
fn line_start_in(bytes: &[u8], lo: usize, hi: usize) -> Option<usize> {
    if lo == 0 || bytes.get(lo - 1) == Some(&b'\n') {
        return Some(lo);
    }
    memchr::memchr(b'\n', bytes.get(lo..hi)?).map(|k| lo + k + 1)
}

/// The separator whose colon is at `colon`, searched from `from` (a line start): where it
/// starts, and the piece it opens (its body still empty; the body starts where the
/// separator ends).
///
/// Everything a match holds before its colon is whitespace, one optional `#` and the role
/// word, and after it whitespace up to its last line break; so the colon decides the match,
/// and the leftmost line start that such a run reaches back to is where `re.split` finds it.
fn separator_at_colon(text: &str, colon: usize, from: usize) -> Option<(usize, Chunk<'_>)> {
    let bytes = text.as_bytes();
    // `\s*\n` after the colon: the match ends after the run's last line break.
    let ws_end = skip_space(text, colon + 1);
    let end = colon + 1 + memchr::memrchr(b'\n', bytes.get(colon + 1..ws_end)?)? + 1;
    // `\s*` before the colon, then the role word (ASCII, so its start is a boundary).
    let word_end = skip_space_back(text, colon, from);
    let head = bytes.get(from..word_end)?;
    let role = crate::roles::promptflow_role_suffix(head)?;
    let word_at = word_end - role.len();
    let word = text.get(word_at..word_end)?;
    // `^\s*#?\s*` before the word: with the `#`, the run before it may reach a line start
    // further left; without it, only the run between `#` (or the text) and the word counts.
    let ws_start = skip_space_back(text, word_at, from);
    let with_hash = (ws_start > from && bytes.get(ws_start - 1) == Some(&b'#')).then(|| {
        let hash = ws_start - 1;
        line_start_in(bytes, skip_space_back(text, hash, from), hash)
    });
    let start = with_hash.flatten().or_else(|| line_start_in(bytes, ws_start, word_at))?;
    Some((start, Chunk { word, role, word_at, body_at: end, body: "" }))
}

/// One `re.split` piece after a separator: the role word as typed and lowercased, where it
/// is, and the body up to the next separator (with its offset).
struct Chunk<'a> {
    word: &'a str,
    role: &'static str,
    word_at: usize,
    body_at: usize,
    body: &'a str,
}

/// `re.split` with the separator: the text before the first separator, then the chunks.
fn split_chunks(text: &str) -> (&str, Vec<Chunk<'_>>) {
    let mut chunks: Vec<Chunk<'_>> = Vec::new();
    let mut pre_end = text.len();
    let mut from = 0;
    let mut scan = 0;
    while let Some(k) = memchr::memchr(b':', text.as_bytes().get(scan..).unwrap_or_default()) {
        let colon = scan + k;
        scan = colon + 1;
        let Some((start, chunk)) = separator_at_colon(text, colon, from) else { continue };
        // The previous chunk's body ends where this separator starts.
        match chunks.last_mut() {
            Some(last) => last.body = text.get(last.body_at..start).unwrap_or(""),
            None => pre_end = start,
        }
        from = chunk.body_at;
        scan = chunk.body_at;
        chunks.push(chunk);
    }
    if let Some(last) = chunks.last_mut() {
        last.body = text.get(last.body_at..).unwrap_or("");
    }
    (text.get(..pre_end).unwrap_or(""), chunks)
}

/// Splits rendered text into messages the way promptflow does.
pub fn split_messages_promptflow(text: &str) -> Result<Vec<Message>, Error> {
    split_checked(text, None)
}

/// Splits like promptflow; with `provenance`, a role line or label the template did not
/// write is an injection error naming the input it came from.
pub(crate) fn split_checked(text: &str, provenance: Option<&TemplatePlaces<'_>>) -> Result<Vec<Message>, Error> {
    let (pre, chunks) = split_chunks(text);
    if chunks.len() > MAX_MESSAGES {
        return Err(too_many_messages(MAX_MESSAGES));
    }
    if let Some(p) = provenance {
        if let Some(c) = chunks.iter().find(|c| !p.own(c.word_at)) {
            return Err(role_line_error(text, c.word_at, p.inputs));
        }
        if let Some(c) = chunks.iter().find(|c| !p.shapes().has_role(c.role)) {
            return Err(rewritten_error(c.word, p.inputs));
        }
        let bytes = text.as_bytes();
        // The role line starts right after a line break of the template's (or at the start)
        // with the template's own line, and ends with its own line break.
        let glued = chunks.iter().filter(|_| p.checks_lines()).find(|c| {
            let before = memchr::memrchr(b'\n', bytes.get(..c.word_at).unwrap_or_default());
            let start = before.map_or(0, |n| n + 1);
            let after = memchr::memchr(b'\n', bytes.get(c.word_at..).unwrap_or_default()).map(|k| c.word_at + k);
            !(p.own_line_break(Some(start)) && p.own_line_break(before) && p.own_line_break(after))
        });
        if let Some(c) = glued {
            return Err(line_break_error(text, c.word_at, p.inputs));
        }
    }
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
    for chunk in chunks {
        let role = chunk.role.to_owned();
        let body = chunk.body;
        let mut metadata = Map::new();
        let checked = |found, label| check_labels(provenance, body, chunk.body_at, found, label);
        if role == "assistant"
            && let Some((label_at, newline_at, list)) = tool_calls_label(body)
        {
            // As promptflow: a list Python's `literal_eval` reads becomes the message's tool
            // calls (and it has no content); anything else stays text.
            match prompty_py::literal::literal_eval(list) {
                Ok(calls) => {
                    if let Some(p) = provenance {
                        if !p.own(chunk.body_at + label_at) {
                            let end = memchr::memchr(b'\n', body.as_bytes().get(newline_at + 1..).unwrap_or_default())
                                .map_or(body.len(), |k| newline_at + 1 + k);
                            let around = body.get(label_at..end.max(label_at)).unwrap_or("");
                            return Err(label_error("tool_calls", around, p.inputs));
                        }
                        if !p.own_line_break(Some(chunk.body_at + newline_at)) {
                            return Err(label_line_break_error("tool_calls", p.inputs));
                        }
                    }
                    metadata.insert("tool_calls".into(), calls);
                    messages.push(Message { role, content: Vec::new(), metadata });
                    continue;
                }
                Err(LiteralError::NotJson(what)) => {
                    return Err(Error::new(
                        ErrorKind::Parse,
                        format!(
                            "the assistant message's `tool_calls:` list holds {what}, which cannot be sent as JSON; write the calls with strings, numbers, booleans, None, lists and dicts"
                        ),
                    ));
                }
                Err(LiteralError::Syntax) => {}
            }
        }
        let content = if role == "tool" {
            let l = checked(parse_labelled(body, "tool_call_id"), "tool_call_id")?.ok_or_else(|| {
                Error::new(
                    ErrorKind::Parse,
                    "a `tool:` message must be written as `tool_call_id:` (the id on the next line) followed by `content:`",
                )
            })?;
            metadata.insert("tool_call_id".into(), Value::String(l.value.to_owned()));
            l.content
        } else if let Some(l) = checked(parse_labelled(body, "name"), "name")? {
            metadata.insert("name".into(), Value::String(l.value.to_owned()));
            l.content
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

/// promptflow's `\n*#{0,2}\s*tool_calls\s*:\s*\n+\s*(\[.*?\])\s*$` (searched, DOTALL):
/// where the first usable `tool_calls` label starts, the first line break after it, and the
/// list after it, which runs from the `[` after the label's line break to the body's last
/// `]` (only whitespace after it).
fn tool_calls_label(body: &str) -> Option<(usize, usize, &str)> {
    let end = body.trim_end_matches(py_space);
    if !end.ends_with(']') {
        return None;
    }
    let mut from = 0;
    while let Some(k) = memchr::memmem::find(body.as_bytes().get(from..)?, b"tool_calls") {
        let at = from + k;
        from = at + 1;
        let mut i = skip_space(body, at + "tool_calls".len());
        if !body.get(i..)?.starts_with(':') {
            continue;
        }
        i += 1;
        let list = skip_space(body, i);
        if let Some(nl) = body.get(i..list)?.find('\n')
            && body.get(list..)?.starts_with('[')
            && list < end.len()
        {
            return Some((at, i + nl, body.get(list..end.len())?));
        }
    }
    None
}

/// A label match whose labels the template did not write is an injection error.
fn check_labels<'a>(
    provenance: Option<&TemplatePlaces<'_>>,
    body: &str,
    body_at: usize,
    found: Option<Labelled<'a>>,
    label: &str,
) -> Result<Option<Labelled<'a>>, Error> {
    if let (Some(p), Some(l)) = (provenance, &found) {
        for (word, at) in [(label, l.label_at), ("content", l.content_at)] {
            if !p.own(body_at + at) {
                // The label's line and the next: a value may have given the line break.
                let end = memchr::memchr(b'\n', body.as_bytes().get(l.newline_at + 1..).unwrap_or_default())
                    .map_or(body.len(), |k| l.newline_at + 1 + k);
                let around = body.get(at..end.max(at)).unwrap_or("");
                return Err(label_error(word, around, p.inputs));
            }
        }
        // The line break after the label must be the template's: a value's would decide
        // whether the template's label is one.
        if !p.own_line_break(Some(body_at + l.newline_at)) {
            return Err(label_line_break_error(label, p.inputs));
        }
    }
    Ok(found)
}

/// A match of the `LABEL:`/`content:` sub-syntax: the value, the content, where the two
/// labels start in the body and where the first line break after the label is.
struct Labelled<'a> {
    value: &'a str,
    content: &'a str,
    label_at: usize,
    content_at: usize,
    newline_at: usize,
}

/// `\n*#{0,2}\s*LABEL\s*:\s*\n+\s*(\S+)\s*\n*#{0,2}\s*content\s*:\s*\n?(.*)`, searched anywhere.
///
/// A match needs `LABEL`, optional whitespace, then a colon; so the scan visits the colons
/// (a fast character search) and tries the ones that follow the label. Each usable label has
/// exactly one colon, so the first match is the leftmost one, as a regex search finds.
fn parse_labelled<'a>(body: &'a str, label: &str) -> Option<Labelled<'a>> {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b':', body.as_bytes().get(from..)?) {
        let colon = from + i;
        let before = body.get(..colon)?.trim_end_matches(py_space);
        if before.ends_with(label)
            && let Some(found) = labelled_at(body, before.len(), before.len() - label.len())
        {
            return Some(found);
        }
        from = colon + 1;
    }
    None
}

fn labelled_at(body: &str, mut i: usize, label_at: usize) -> Option<Labelled<'_>> {
    i = skip_space(body, i);
    if !body.get(i..)?.starts_with(':') {
        return None;
    }
    i += 1;
    // `\s*\n+\s*`: some whitespace containing at least one newline.
    let ws_end = skip_space(body, i);
    let newline_at = i + body.get(i..ws_end)?.find('\n')?;
    i = ws_end;
    // `(\S+)`: the whole run of non-space characters, or (the regex backtracks) its longest
    // part that `#{0,2}content\s*:` follows inside the run.
    let run_end = body.get(i..)?.find(py_space).map_or(body.len(), |k| i + k);
    if run_end == i {
        return None;
    }
    let (value_end, content_at) = match content_after(body, run_end) {
        Some(at) => (run_end, at),
        None => content_inside(body, i, run_end)?,
    };
    let value = body.get(i..value_end)?;
    let mut j = skip_space(body, content_at + "content".len());
    if !body.get(j..)?.starts_with(':') {
        return None;
    }
    j += 1;
    // `\s*\n?`: greedy whitespace, then an optional newline.
    j = skip_space(body, j);
    Some(Labelled { value, content: body.get(j..).unwrap_or(""), label_at, content_at, newline_at })
}

/// `\s*\n*#{0,2}\s*content\s*:` at `at`: where `content` starts.
fn content_after(body: &str, at: usize) -> Option<usize> {
    let mut j = skip_space(body, at);
    let hashes = body.get(j..)?.bytes().take_while(|&b| b == b'#').count();
    if hashes > 2 {
        return None;
    }
    j = skip_space(body, j + hashes);
    let after = skip_space(body, j + "content".len());
    (body.get(j..)?.starts_with("content") && body.get(after..)?.starts_with(':')).then_some(j)
}

/// The longest value `body[start..end]` can give up to a `#{0,2}content\s*:` that starts
/// inside the run (a value is at least one character): the value's end and where `content`
/// starts.
fn content_inside(body: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let run = body.get(start..end)?;
    memchr::memmem::rfind_iter(run.as_bytes(), b"content")
        .filter(|&k| k > 0)
        .find(|&k| {
            let after = skip_space(body, start + k + "content".len());
            body.get(after..).is_some_and(|r| r.starts_with(':'))
        })
        .map(|k| (start + k, start + k))
}

fn role_line_error(text: &str, word_at: usize, inputs: &Context<'_>) -> Error {
    let start = text.get(..word_at).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    let end = text.get(word_at..).and_then(|t| t.find('\n')).map_or(text.len(), |i| word_at + i);
    let line = py_strip(text.get(start..end).unwrap_or(""));
    // The line breaks around the line, too: a value that ends or starts with one may have made it.
    let with_break = text.get(start.saturating_sub(1)..(end + 1).min(text.len())).unwrap_or(line);
    let blamed = match blame(line, inputs) {
        Some((name, true)) => Some((name, true)),
        _ => blame(with_break, inputs).map(|(name, _)| (name, false)),
    };
    let line = shown(line);
    const WHY: &str = "only the template's own role lines start messages";
    match blamed {
        Some((name, true)) => Error::new(
            ErrorKind::Injection,
            format!("Role line from input (possible injection): input `{name}` contains the role line `{line}`; {WHY}"),
        )
        .with_input(name),
        Some((name, false)) => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line from input (possible injection): input `{name}` and the text around it form the role line `{line}`; {WHY}"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line not from the template (possible injection): `{line}` is not a role line the template writes alone on a line; {WHY}"
            ),
        ),
    }
}

/// A role line at a mark whose role word the template does not write there: a filter
/// rewrote it.
fn rewritten_error(word: &str, inputs: &Context<'_>) -> Error {
    const WHY: &str = "the role word of a role line must be the template's own";
    let word = shown(word);
    match blame(&word, inputs) {
        Some((name, _)) => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line rewritten (possible injection): input `{name}` turned a role line of the template into `{word}:`; {WHY}"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!(
                "Role line rewritten (possible injection): a role line of the template renders as `{word}:`, which the template does not write; {WHY}"
            ),
        ),
    }
}

fn line_break_error(text: &str, word_at: usize, inputs: &Context<'_>) -> Error {
    let start = text.get(..word_at).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1);
    let end = text.get(word_at..).and_then(|t| t.find('\n')).map_or(text.len(), |i| word_at + i);
    let line = py_strip(text.get(start..end).unwrap_or(""));
    let around = text.get(start.saturating_sub(1)..(end + 1).min(text.len())).unwrap_or(line);
    let shown_line = shown(line);
    const WHY: &str = "keep a line break of the template's own before and after each role line";
    match blame(around, inputs) {
        Some((name, _)) => Error::new(
            ErrorKind::Injection,
            format!(
                "Line break from input (possible injection): input `{name}` puts a line break next to the template's `{shown_line}`, making it a role line; {WHY}"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!(
                "Line break not from the template (possible injection): the template's `{shown_line}` became a role line through a line break it did not write; {WHY}"
            ),
        ),
    }
}

/// `line` for a one-line message: control characters and whitespace other than spaces
/// escaped, at most 80 characters.
fn shown(line: &str) -> String {
    let mut out = String::new();
    for (i, c) in line.chars().enumerate() {
        if i == 80 {
            out.push('…');
            break;
        }
        if c != ' ' && (c.is_control() || py_space(c)) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn label_line_break_error(label: &str, inputs: &Context<'_>) -> Error {
    const WHY: &str = "keep a line break of the template's own right after the label";
    let needle = format!("{label}:");
    match blame(&needle, inputs).or_else(|| blame("\n", inputs)) {
        Some((name, _)) => Error::new(
            ErrorKind::Injection,
            format!(
                "Line break from input (possible injection): input `{name}` puts the line break after the template's `{needle}` label, making it a label; {WHY}"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!(
                "Line break not from the template (possible injection): the template's `{needle}` label became one through a line break it did not write; {WHY}"
            ),
        ),
    }
}

fn label_error(label: &str, around: &str, inputs: &Context<'_>) -> Error {
    const WHY: &str = "only the template's own `name:`, `tool_call_id:`, `tool_calls:` and `content:` labels set a message's name, tool call id, tool calls and content";
    let needle = format!("{label}:");
    // Only a value that holds the whole label "contains" it; a partial overlap (a value
    // whose line break completes the template's `name:`) forms it with the text around.
    let whole = blame(&needle, inputs).or_else(|| blame(label, inputs)).filter(|(_, whole)| *whole);
    match whole {
        Some((name, _)) => Error::new(
            ErrorKind::Injection,
            format!(
                "Message label from input (possible injection): input `{name}` contains the `{needle}` label; {WHY}"
            ),
        )
        .with_input(name),
        None if let Some((name, _)) = blame(around, inputs) => Error::new(
            ErrorKind::Injection,
            format!(
                "Message label from input (possible injection): input `{name}` and the text around it form the `{needle}` label; {WHY}"
            ),
        )
        .with_input(name),
        None => Error::new(
            ErrorKind::Injection,
            format!("Message label not from the template (possible injection): the `{needle}` label; {WHY}"),
        ),
    }
}

/// Role words found on separator lines in `s` (as typed).
fn role_words(s: &str) -> Vec<&str> {
    // A separator is a role word, a colon and a line break: most values have no such line.
    if !s.contains(':') || !s.contains('\n') {
        return Vec::new();
    }
    let (_, chunks) = split_chunks(s);
    chunks.into_iter().map(|c| c.word).collect()
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
        for (_, v) in inputs.iter() {
            if let Value::String(s) = v {
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
        let mut escaped = Vec::new();
        for (name, v) in inputs.iter() {
            let Value::String(s) = v else { continue };
            if !pairs.iter().any(|(_, word)| s.contains(word.as_str())) {
                continue;
            }
            let mut text = s.clone();
            for (key, word) in &pairs {
                if text.contains(word.as_str()) {
                    text = text.replace(word.as_str(), key);
                }
            }
            escaped.push((name, Value::String(text)));
        }
        for (name, text) in escaped {
            inputs.set(name, text);
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
                self.restore_value(v);
            }
        }
    }

    /// Every string of a metadata value (a `tool_calls` list holds strings inside).
    fn restore_value(&self, v: &mut Value) {
        match v {
            Value::String(s) => self.restore_str(s),
            Value::Array(items) => items.iter_mut().for_each(|x| self.restore_value(x)),
            Value::Object(map) => map.values_mut().for_each(|x| self.restore_value(x)),
            _ => {}
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

    /// The separator search line by line, as `re.split` with the multi-line pattern tries
    /// each line start: the reference the colon-driven search is checked against.
    mod by_line {
        use super::super::{Chunk, skip_space};
        use crate::roles::PROMPTFLOW_ROLES;

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

        /// A separator match at `start`: (end, offset of the role word, role word as typed).
        fn separator_at(text: &str, start: usize) -> Option<(usize, usize, &str, &'static str)> {
            if !may_start_separator(text.as_bytes(), start) {
                return None;
            }
            let mut i = skip_space(text, start);
            if text.get(i..)?.starts_with('#') {
                i += 1;
            }
            i = skip_space(text, i);
            let rest = text.get(i..)?;
            // The roles' first letters differ: the first letter picks the one role to compare.
            let first = rest.as_bytes().first()?.to_ascii_lowercase();
            let role = PROMPTFLOW_ROLES.iter().find(|r| r.as_bytes().first() == Some(&first))?;
            let role_len = role.len();
            let word = rest.get(..role_len).filter(|w| w.eq_ignore_ascii_case(role))?;
            let word_at = i;
            i = skip_space(text, i + role_len);
            if !text.get(i..)?.starts_with(':') {
                return None;
            }
            i += 1;
            // `\s*\n`: the whitespace run after the colon must contain a newline; the match ends
            // after the last one.
            let ws_end = skip_space(text, i);
            let last_nl = text.get(i..ws_end)?.rfind('\n')?;
            Some((i + last_nl + 1, word_at, word, *role))
        }

        pub(super) fn split_chunks(text: &str) -> (&str, Vec<Chunk<'_>>) {
            let mut chunks: Vec<Chunk<'_>> = Vec::new();
            let mut pre_end = text.len();
            let mut line_start = 0usize;
            while line_start <= text.len() {
                if let Some((end, word_at, word, role)) = separator_at(text, line_start) {
                    // The previous chunk's body ends where this separator starts.
                    match chunks.last_mut() {
                        Some(last) => last.body = text.get(last.body_at..line_start).unwrap_or(""),
                        None => pre_end = line_start,
                    }
                    chunks.push(Chunk { word, role, word_at, body_at: end, body: "" });
                    line_start = end;
                    continue;
                }
                match memchr::memchr(b'\n', text.as_bytes().get(line_start..).unwrap_or_default()) {
                    Some(i) => line_start += i + 1,
                    None => break,
                }
            }
            if let Some(last) = chunks.last_mut() {
                last.body = text.get(last.body_at..).unwrap_or("");
            }
            (text.get(..pre_end).unwrap_or(""), chunks)
        }
    }

    /// The colon-driven search finds the separators the line-by-line one finds, on texts
    /// made of role words, `#`, colons, ASCII and Unicode whitespace and other text.
    #[test]
    fn colon_search_agrees_with_the_line_search() {
        const PIECES: &[&str] = &[
            "system",
            "USER",
            "Assistant",
            "function",
            "tool",
            "tools",
            "xuser",
            "#",
            "##",
            ":",
            "::",
            " ",
            "\t",
            "\n",
            "\n\n",
            "\r\n",
            "\u{a0}",
            "\u{2028}",
            "\u{1c}",
            "\u{3000}",
            "x",
            "é",
            "a: b",
            "ſystem",
        ];
        const BLANKS: &[&str] = &["", "", " ", "\n", " \n ", "\t", "\u{a0}", "\u{2028}"];
        let mut rng = prompty_test_support::Rng::new(0x5eed_00c0);
        let shape = |(pre, chunks): (&str, Vec<Chunk<'_>>)| {
            (
                pre.to_owned(),
                chunks
                    .iter()
                    .map(|c| (c.word.to_owned(), c.role, c.word_at, c.body_at, c.body.to_owned()))
                    .collect::<Vec<_>>(),
            )
        };
        let mut found = 0;
        for _ in 0..40_000 {
            let n = 1 + usize::from(rng.byte()) % 14;
            let mut text = String::new();
            for _ in 0..n {
                let mut pick = |items: &[&'static str]| items[usize::from(rng.byte()) % items.len()];
                if pick(&["line", "piece"]) == "piece" {
                    text.push_str(pick(PIECES));
                    continue;
                }
                // A role line, each of its parts present or not, or changed.
                for part in [
                    BLANKS,
                    &["", "#", "##", "x"],
                    BLANKS,
                    &PIECES[..7],
                    BLANKS,
                    &[":", "", "x:"],
                    BLANKS,
                    &["\n", "", "x\n"],
                ] {
                    text.push_str(pick(part));
                }
            }
            let fast = shape(split_chunks(&text));
            found += fast.1.len();
            assert_eq!(fast, shape(by_line::split_chunks(&text)), "{text:?}");
        }
        assert!(found > 5_000, "{found}");
    }

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
