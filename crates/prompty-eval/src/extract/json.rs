//! JSON object answers, e.g. `{"explanation": "...", "score": 4}`.
//!
//! Finding the object, in order:
//!
//! 1. the whole answer parsed as JSON (a valid non-object such as `[4]` stops
//!    here: it has no score);
//! 2. the body of the first ```` ``` ```` code fence (an optional language
//!    word after the opening fence is skipped);
//! 3. each balanced `{...}` block in turn (braces inside JSON strings, with
//!    their escapes, do not count), parsed as is and then with trailing
//!    commas removed; the first one that parses as an object wins.
//!
//! Every step is linear in the answer's length (step 3 is computed in one
//! pass; see `first_object_block`), so a hostile answer of a megabyte of
//! `{` costs what reading it costs.
//!
//! Reading the fields: the score comes from the first present key of
//! [`JsonFields::score`], the reason from [`JsonFields::reason`], extra details
//! from [`JsonFields::properties`], a label from [`JsonFields::label`], and the
//! status from `status`. A score is never invented: a missing score key, a
//! `null`, NaN or infinite score, or a non-object answer give no score.

use nom::Parser;
use nom::bytes::complete::{tag, take_till, take_until};
use nom::character::complete::{line_ending, space0};
use nom::combinator::opt;
use serde_json::{Map, Value};

use super::{Extracted, PResult};
use crate::error::Error;
use crate::py;

/// Which keys of a JSON answer hold what. Each list is tried in order; the
/// first key present wins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonFields {
    /// Keys that can hold the score.
    pub score: Vec<String>,
    /// Keys that can hold the reason.
    pub reason: Vec<String>,
    /// Keys that can hold an object of extra details.
    pub properties: Vec<String>,
    /// Keys that can hold a label.
    pub label: Vec<String>,
    /// Key of the status (`completed`/`skipped`).
    pub status: String,
}

impl Default for JsonFields {
    fn default() -> Self {
        JsonFields {
            score: vec!["score".to_owned()],
            reason: ["explanation", "reason", "reasoning", "chain_of_thought"].map(String::from).to_vec(),
            properties: ["properties", "details"].map(String::from).to_vec(),
            label: vec!["label".to_owned()],
            status: "status".to_owned(),
        }
    }
}

fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The body of the first code fence: ```` ```lang\n body ``` ````.
fn fence_body(input: &str) -> PResult<'_, &str> {
    let (rest, _) = take_until("```").parse(input)?;
    let (rest, _) = tag("```").parse(rest)?;
    let (rest, _) = take_till(|c: char| c.is_whitespace() || c == '{' || c == '[').parse(rest)?;
    let (rest, _) = space0.parse(rest)?;
    let (rest, _) = opt(line_ending).parse(rest)?;
    let (rest, body) = take_until("```").parse(rest)?;
    let (rest, _) = tag("```").parse(rest)?;
    Ok((rest, body))
}

/// Where a left-to-right scan stands with respect to JSON string literals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scan {
    /// Outside strings: braces count.
    Out,
    /// Inside a string literal.
    In,
    /// Inside a string literal, right after a backslash.
    InEscape,
}

impl Scan {
    /// The state after byte `b`, and whether `b` is outside strings (a structural byte).
    /// Bytes of multi-byte characters are never `"` or `\`, so bytes and characters scan alike.
    fn step(self, b: u8) -> (Scan, bool) {
        match (self, b) {
            (Scan::Out, b'"') => (Scan::In, false),
            (Scan::Out, _) => (Scan::Out, true),
            (Scan::In, b'\\') => (Scan::InEscape, false),
            (Scan::In, b'"') => (Scan::Out, false),
            (Scan::In, _) | (Scan::InEscape, _) => (Scan::In, false),
        }
    }
}

/// Scans that are in the same state from here on, with the `{` they opened and have not
/// closed: `levels[k]` holds the braces that close when the depth drops below `k + 1`.
struct Group {
    state: Scan,
    levels: Vec<Vec<usize>>,
}

/// The block ends of [`blocks`] alone.
#[cfg(test)]
fn block_ends(text: &str) -> Vec<Option<usize>> {
    blocks(text).ends
}

/// The `{` of a text: where each is, where its balanced block ends, and one `{` whose
/// block encloses it with the same reading of strings (its parent), if any.
struct Blocks {
    starts: Vec<usize>,
    ends: Vec<Option<usize>>,
    parents: Vec<Option<usize>>,
}

/// For every `{` of `text`, in order, the end of its balanced block: the scan that starts
/// at that `{` (outside any string), counts braces outside JSON strings and stops where the
/// count returns to zero. `None` when the count never does.
///
/// Each `{` starts its own scan, but scans in the same state read every later byte the same
/// way, so they are merged: at most three states exist, and a merge aligns the two stacks
/// at the top (the innermost open braces close first in both). One pass, with small-to-large
/// merging of the brace lists: `O(n log n)` at worst, linear on ordinary text.
fn blocks(text: &str) -> Blocks {
    let mut starts: Vec<usize> = Vec::new();
    let mut parents: Vec<Option<usize>> = Vec::new();
    let mut ends: Vec<Option<usize>> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    for (p, &b) in text.as_bytes().iter().enumerate() {
        for g in &mut groups {
            let (next, structural) = g.state.step(b);
            g.state = next;
            if structural && b == b'{' {
                g.levels.push(Vec::new());
            }
            if structural
                && b == b'}'
                && let Some(closed) = g.levels.pop()
            {
                for id in closed {
                    if let Some(end) = ends.get_mut(id) {
                        *end = Some(p + 1);
                    }
                }
            }
        }
        if b == b'{' {
            // A new scan starts here, outside strings: it joins the group that is outside
            // strings after this byte (and has just opened a level for it), or starts one.
            let id = ends.len();
            ends.push(None);
            starts.push(p);
            match groups.iter_mut().find(|g| g.state == Scan::Out && !g.levels.is_empty()) {
                Some(g) => {
                    let below = g.levels.len().checked_sub(2).and_then(|k| g.levels.get(k));
                    parents.push(below.and_then(|level| level.first().copied()));
                    if let Some(top) = g.levels.last_mut() {
                        top.push(id);
                    }
                }
                None => {
                    parents.push(None);
                    groups.push(Group { state: Scan::Out, levels: vec![vec![id]] });
                }
            }
        }
        groups.retain(|g| !g.levels.is_empty());
        merge_equal_states(&mut groups);
        debug_assert!(groups.len() <= 3, "one group per scan state");
    }
    Blocks { starts, ends, parents }
}

/// Merges groups that are in the same state (they will read the rest of the text alike).
fn merge_equal_states(groups: &mut Vec<Group>) {
    let mut i = 0;
    while i < groups.len() {
        let same = (i + 1..groups.len()).find(|&j| groups.get(j).map(|g| g.state) == groups.get(i).map(|g| g.state));
        let Some(j) = same else {
            i += 1;
            continue;
        };
        let mut other = groups.swap_remove(j);
        let Some(g) = groups.get_mut(i) else { break };
        if other.levels.len() > g.levels.len() {
            std::mem::swap(&mut g.levels, &mut other.levels);
        }
        // Align at the top: the innermost open braces of both close at the same `}`.
        let offset = g.levels.len() - other.levels.len();
        for (k, mut ids) in other.levels.into_iter().enumerate() {
            if let Some(level) = g.levels.get_mut(offset + k) {
                if ids.len() > level.len() {
                    std::mem::swap(level, &mut ids);
                }
                level.append(&mut ids);
            }
        }
    }
}

/// Reads `text` with the commas that directly precede (up to whitespace) a `}` or `]`
/// outside JSON strings left out, as the parser asks for bytes: a failing parse reads only
/// as far as its error.
struct WithoutTrailingCommas<'a> {
    text: &'a str,
    pos: usize,
    state: Scan,
}

impl WithoutTrailingCommas<'_> {
    fn next_byte(&mut self) -> Option<u8> {
        loop {
            let b = *self.text.as_bytes().get(self.pos)?;
            let at = self.pos;
            self.pos += 1;
            let (next, structural) = self.state.step(b);
            self.state = next;
            if structural && b == b',' {
                let rest = self.text.get(at + 1..).unwrap_or_default();
                if matches!(rest.chars().find(|c| !c.is_whitespace()), Some('}' | ']')) {
                    continue;
                }
            }
            return Some(b);
        }
    }
}

impl std::io::Read for WithoutTrailingCommas<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        for slot in buf.iter_mut() {
            match self.next_byte() {
                Some(b) => {
                    *slot = b;
                    n += 1;
                }
                None => break,
            }
        }
        Ok(n)
    }
}

/// Parses `text` strictly, then with trailing commas removed. Either parse stops at its
/// first error, so a failure costs what was read up to it, not the length of `text`.
fn parse_lenient(text: &str) -> Result<Value, Error> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok(v),
        Err(first) => {
            let reader = WithoutTrailingCommas { text, pos: 0, state: Scan::Out };
            let mut de = serde_json::Deserializer::from_reader(reader);
            let lenient = serde::Deserialize::deserialize(&mut de).and_then(|v: Value| de.end().map(|()| v));
            lenient.map_err(|_| Error::InvalidJson { message: first.to_string() })
        }
    }
}

/// The deepest nesting of objects and arrays the JSON parser accepts.
const MAX_JSON_DEPTH: usize = 127;

/// What is known about one `{` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    /// Not read.
    Unknown,
    /// Valid (trailing commas allowed), nesting aside.
    Valid,
    /// Invalid: the token at this byte is the first that does not fit.
    FailsAt(usize),
}

/// The first balanced `{...}` block of `text` that parses as an object (strictly, or with
/// the trailing commas removed); otherwise the strict parser's error for the first
/// balanced block, or [`Error::NoJsonObject`].
///
/// That is the rule "each block in turn, parsed", computed in one pass. A block nested in
/// an enclosing block (same reading of strings) is decided by what the enclosing block's
/// reading found: valid where the enclosing one was still valid past the nested block's
/// end, invalid where the enclosing one's first bad token lies inside it. Only blocks that
/// start past such a token are read afresh, so every byte is validated about once per way
/// of reading strings; the JSON parser then runs on the winning block alone (and once more
/// for the error message).
fn first_object_block(text: &str) -> Result<Map<String, Value>, Error> {
    let Blocks { starts, ends, parents } = blocks(text);
    let mut known = vec![Known::Unknown; starts.len()];
    let mut heights: Vec<Option<usize>> = vec![None; starts.len()];
    let mut first_error: Option<Error> = None;
    for id in 0..starts.len() {
        let (Some(&start), Some(&Some(end))) = (starts.get(id), ends.get(id)) else { continue };
        let Some(block) = text.get(start..end) else { continue };
        let from_parent = match parents.get(id).copied().flatten().and_then(|r| known.get(r).copied()) {
            Some(Known::Valid) => Known::Valid,
            Some(Known::FailsAt(f)) if end <= f => Known::Valid,
            Some(Known::FailsAt(f)) if start < f => Known::FailsAt(f),
            _ => Known::Unknown,
        };
        let verdict = match from_parent {
            Known::Unknown => validate(text, start, end, &starts, &mut heights),
            decided => decided,
        };
        if let Some(k) = known.get_mut(id) {
            *k = verdict;
        }
        let shallow = heights.get(id).copied().flatten().is_some_and(|h| h <= MAX_JSON_DEPTH);
        if verdict == Known::Valid
            && shallow
            && let Ok(Value::Object(map)) = parse_lenient(block)
        {
            return Ok(map);
        }
        if first_error.is_none() {
            first_error =
                serde_json::from_str::<Value>(block).err().map(|e| Error::InvalidJson { message: e.to_string() });
        }
    }
    Err(first_error.unwrap_or(Error::NoJsonObject))
}

/// What a JSON reader expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value.
    Value,
    /// A key or `}` (just after `{`).
    KeyOrClose,
    /// A key (after `,` in an object).
    Key,
    /// `:` after a key.
    Colon,
    /// A value or `]` (just after `[`).
    ValueOrClose,
    /// `,` or the closing bracket of the innermost container.
    CommaOrClose,
}

/// One open object or array while validating: whether it is an object, the `{` it started
/// at, and the deepest nesting seen inside it (1: nothing nested).
struct Open {
    object: bool,
    at: usize,
    height: usize,
}

/// Validates the JSON object `text[start..end]` with trailing commas allowed, ignoring the
/// nesting limit: [`Known::Valid`], or the first token that does not fit. Every object it
/// reads to its end gets its nesting height recorded in `heights` (by `{` position).
/// Tokens are checked by the JSON parser itself (strings and numbers), so validity is the
/// parser's.
fn validate(text: &str, start: usize, end: usize, starts: &[usize], heights: &mut [Option<usize>]) -> Known {
    let bytes = text.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut expect = Expect::Value;
    let mut i = start;
    while i < end {
        let Some(&b) = bytes.get(i) else { break };
        let token_start = i;
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b',' => {
                // A comma right before `}` or `]` (across any whitespace) is left out.
                let rest = text.get(i + 1..end).unwrap_or_default();
                if matches!(rest.chars().find(|c| !c.is_whitespace()), Some('}' | ']')) {
                    i += 1;
                    continue;
                }
                if expect != Expect::CommaOrClose {
                    return Known::FailsAt(token_start);
                }
                expect = if stack.last().is_some_and(|o| o.object) { Expect::Key } else { Expect::Value };
                i += 1;
                continue;
            }
            _ => {}
        }
        match (expect, b) {
            (Expect::Value | Expect::ValueOrClose, b'{') => {
                stack.push(Open { object: true, at: i, height: 1 });
                expect = Expect::KeyOrClose;
                i += 1;
            }
            (Expect::Value | Expect::ValueOrClose, b'[') => {
                stack.push(Open { object: false, at: i, height: 1 });
                expect = Expect::ValueOrClose;
                i += 1;
            }
            (Expect::KeyOrClose | Expect::CommaOrClose, b'}') | (Expect::ValueOrClose | Expect::CommaOrClose, b']') => {
                let Some(closed) = stack.pop() else { return Known::FailsAt(token_start) };
                if closed.object != (b == b'}') {
                    return Known::FailsAt(token_start);
                }
                if closed.object
                    && let Ok(id) = starts.binary_search(&closed.at)
                    && let Some(h) = heights.get_mut(id)
                {
                    *h = Some(closed.height);
                }
                i += 1;
                match stack.last_mut() {
                    Some(parent) => {
                        parent.height = parent.height.max(closed.height + 1);
                        expect = Expect::CommaOrClose;
                    }
                    None => return if i == end { Known::Valid } else { Known::FailsAt(i) },
                }
            }
            (Expect::Colon, b':') => {
                expect = Expect::Value;
                i += 1;
            }
            (Expect::KeyOrClose | Expect::Key, b'"') | (Expect::Value | Expect::ValueOrClose, b'"') => {
                let Some(after) = string_end(bytes, i, end) else { return Known::FailsAt(token_start) };
                if text.get(i..after).is_none_or(|t| serde_json::from_str::<String>(t).is_err()) {
                    return Known::FailsAt(token_start);
                }
                expect = if matches!(expect, Expect::KeyOrClose | Expect::Key) {
                    Expect::Colon
                } else {
                    Expect::CommaOrClose
                };
                i = after;
            }
            (Expect::Value | Expect::ValueOrClose, b'-' | b'0'..=b'9') => {
                let len = bytes
                    .get(i..end)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .count();
                let number = text.get(i..i + len).unwrap_or_default();
                if !serde_json::from_str::<Value>(number).is_ok_and(|v| v.is_number()) {
                    return Known::FailsAt(token_start);
                }
                expect = Expect::CommaOrClose;
                i += len;
            }
            (Expect::Value | Expect::ValueOrClose, b't' | b'f' | b'n') => {
                let rest = bytes.get(i..end).unwrap_or_default();
                let Some(word) = [&b"true"[..], b"false", b"null"].into_iter().find(|w| rest.starts_with(w)) else {
                    return Known::FailsAt(token_start);
                };
                expect = Expect::CommaOrClose;
                i += word.len();
            }
            _ => return Known::FailsAt(token_start),
        }
    }
    Known::FailsAt(i)
}

/// The end (just past the closing quote) of the JSON string starting at `bytes[start]`
/// (a `"`), if it closes before `end`.
fn string_end(bytes: &[u8], start: usize, end: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < end {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// What [`parse_answer`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// A JSON object.
    Object(Map<String, Value>),
    /// The whole answer is valid JSON, but not an object.
    Other(Value),
}

/// Finds the JSON in a judge answer (see the module docs for the order).
pub fn parse_answer(answer: &str) -> Result<Parsed, Error> {
    let trimmed = py::strip(answer);
    if trimmed.is_empty() {
        return Err(Error::EmptyAnswer);
    }
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return Ok(match v {
            Value::Object(map) => Parsed::Object(map),
            other => Parsed::Other(other),
        });
    }
    if let Ok((_, body)) = fence_body(trimmed) {
        let body = py::strip(body);
        if let Ok(v) = parse_lenient(body) {
            return Ok(match v {
                Value::Object(map) => Parsed::Object(map),
                other => Parsed::Other(other),
            });
        }
        if let Ok(map) = first_object_block(body) {
            return Ok(Parsed::Object(map));
        }
    }
    first_object_block(trimmed).map(Parsed::Object)
}

/// Finds the JSON object in a judge answer; a non-object is an error.
pub fn parse_object(answer: &str) -> Result<Map<String, Value>, Error> {
    match parse_answer(answer)? {
        Parsed::Object(map) => Ok(map),
        Parsed::Other(v) => Err(Error::NotAnObject { found: json_type_name(&v) }),
    }
}

/// A JSON value as Python's `float()` reads it: numbers as they are, numeric strings
/// parsed (`"inf"` and `"nan"` included), booleans as 1 and 0; `None` for `null`.
pub(crate) fn float_of(field: &str, value: &Value) -> Result<Option<f64>, Error> {
    let not_numeric = || Error::ScoreNotNumeric { field: field.to_owned(), value: py::repr_of(value) };
    Ok(Some(match value {
        Value::Null => return Ok(None),
        Value::Bool(b) => {
            if *b {
                1.0
            } else {
                0.0
            }
        }
        Value::Number(n) => n.as_f64().ok_or_else(not_numeric)?,
        Value::String(s) => py::float_from_str(s).ok_or_else(not_numeric)?,
        Value::Array(_) | Value::Object(_) => return Err(not_numeric()),
    }))
}

/// Converts a score value like Python's `float()`: numbers as they are,
/// numeric strings parsed, booleans as 1 and 0, `null` as no score. A
/// non-finite result (NaN, an infinity) is no score. Anything else is
/// [`Error::ScoreNotNumeric`].
pub fn score_value(field: &str, value: &Value) -> Result<Option<f64>, Error> {
    Ok(float_of(field, value)?.filter(|f| f.is_finite()))
}

/// Why a present score value gives no score ([`score_value`] returned `None`): an
/// infinity is [`Error::ScoreNotFinite`], `null` and NaN are [`Error::ScoreNotNumeric`].
pub fn unusable_score(field: &str, value: &Value) -> Error {
    match float_of(field, value) {
        Ok(Some(f)) if f.is_infinite() => Error::ScoreNotFinite { field: field.to_owned(), value: py::repr_of(value) },
        _ => Error::ScoreNotNumeric { field: field.to_owned(), value: py::repr_of(value) },
    }
}

fn first_key<'m>(map: &'m Map<String, Value>, keys: &[String]) -> Option<(&'m str, &'m Value)> {
    keys.iter().find_map(|k| map.get_key_value(k.as_str())).map(|(k, v)| (k.as_str(), v))
}

/// Reads the fields of a JSON object answer.
pub fn read_object(map: Map<String, Value>, fields: &JsonFields) -> Result<Extracted, Error> {
    let (score, score_problem) = match first_key(&map, &fields.score) {
        Some((key, value)) => match score_value(key, value)? {
            Some(s) => (Some(s), None),
            None => (None, Some(unusable_score(key, value))),
        },
        None => (None, Some(Error::MissingField { field: fields.score.first().cloned().unwrap_or_default() })),
    };
    let reason = first_key(&map, &fields.reason).map(|(_, v)| py::str_of(v)).unwrap_or_default();
    let properties = fields
        .properties
        .iter()
        .find_map(|k| map.get(k.as_str()).and_then(Value::as_object))
        .cloned()
        .unwrap_or_default();
    let label = first_key(&map, &fields.label).map(|(_, v)| py::str_of(v));
    let status = map.get(fields.status.as_str()).map(py::str_of);
    Ok(Extracted { score, reason, label, properties, status, object: Some(map), score_problem })
}

/// Reads a JSON answer. An answer that is valid JSON but not an object has
/// no score (`Ok`, with [`Error::NotAnObject`] as the problem); an answer
/// without parsable JSON, or whose score is not a number, is an error.
pub fn extract(answer: &str, fields: &JsonFields) -> Result<Extracted, Error> {
    match parse_answer(answer)? {
        Parsed::Object(map) => read_object(map, fields),
        Parsed::Other(v) => Ok(Extracted::missing(Error::NotAnObject { found: json_type_name(&v) })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition [`block_ends`] must agree with: one scan per `{`, strings tracked
    /// from that brace on.
    fn balanced_end(text: &str, start: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut state = Scan::Out;
        for (i, &b) in text.as_bytes().iter().enumerate().skip(start) {
            let (next, structural) = state.step(b);
            state = next;
            match (structural, b) {
                (true, b'{') => depth += 1,
                (true, b'}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The definition of the lenient parse: a copy without the trailing commas.
    fn strip_trailing_commas(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut state = Scan::Out;
        for (i, c) in text.char_indices() {
            let mut utf8 = [0u8; 4];
            let lead = c.encode_utf8(&mut utf8).as_bytes().first().copied().unwrap_or_default();
            let (next, structural) = state.step(lead);
            state = next;
            if structural && c == ',' {
                let after = text.get(i + 1..).unwrap_or_default().chars().find(|n| !n.is_whitespace());
                if matches!(after, Some('}' | ']')) {
                    continue;
                }
            }
            out.push(c);
        }
        out
    }

    /// The definition of [`first_object_block`]: every `{` in turn, balanced scan, strict
    /// then lenient parse.
    fn first_object_by_definition(text: &str) -> Result<Map<String, Value>, Error> {
        let mut first_error = None;
        for (start, _) in text.match_indices('{') {
            let Some(block) = balanced_end(text, start).and_then(|end| text.get(start..end)) else { continue };
            let parsed = serde_json::from_str::<Value>(block).or_else(|first| {
                serde_json::from_str::<Value>(&strip_trailing_commas(block))
                    .map_err(|_| Error::InvalidJson { message: first.to_string() })
            });
            match parsed {
                Ok(Value::Object(map)) => return Ok(map),
                Ok(_) => {}
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        Err(first_error.unwrap_or(Error::NoJsonObject))
    }

    /// Texts made of the pieces that matter to the scan, from a fixed seed.
    fn texts(pieces: &[&str], count: usize, max_len: usize) -> Vec<String> {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count)
            .map(|_| {
                let len = (next() % max_len as u64) as usize;
                (0..len).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect()
            })
            .collect()
    }

    #[test]
    fn block_ends_agree_with_one_scan_per_brace() {
        let pieces = ["{", "}", "\"", "\\", "a", " ", "é", "{\"", "\"}", "\\\""];
        for text in texts(&pieces, 20_000, 24) {
            let expected: Vec<Option<usize>> =
                text.match_indices('{').map(|(start, _)| balanced_end(&text, start)).collect();
            assert_eq!(block_ends(&text), expected, "{text:?}");
        }
    }

    #[test]
    fn first_object_agrees_with_the_definition() {
        let pieces = [
            "{",
            "}",
            "[",
            "]",
            "\"",
            "\\",
            ",",
            ":",
            " ",
            "\n",
            "1",
            "a",
            "\"score\"",
            "\"s\": ",
            "4",
            ", ",
            "null",
            "{\"score\": 4}",
            "\"}",
            "\u{a0}",
            "1e999",
        ];
        let mut found = 0;
        for text in texts(&pieces, 30_000, 16) {
            let expected = first_object_by_definition(&text);
            found += usize::from(expected.is_ok());
            assert_eq!(first_object_block(&text), expected, "{text:?}");
        }
        assert!(found > 1_000, "only {found} texts hold an object");
    }

    #[test]
    fn nested_blocks_agree_with_the_definition() {
        let pieces = [
            "{\"a\": ",
            "{\"s\": 1}",
            "{",
            "}",
            "[",
            "]",
            ", ",
            ",",
            "\"",
            "1",
            "x",
            "{\"a\": [",
            "\"{\"",
            "true",
            " ",
            "}}",
            "1e999",
            "\"\\u0000\"",
            "\"\\ud800\"",
            "-",
            "01",
        ];
        for text in texts(&pieces, 30_000, 28) {
            assert_eq!(first_object_block(&text), first_object_by_definition(&text), "{text:?}");
        }
    }

    /// Around the parser's nesting limit (127 levels), with text before and after.
    #[test]
    fn nesting_limit_agrees_with_the_definition() {
        for depth in [1, 127, 128] {
            for (open, close) in [("{\"a\": ", "}"), ("{\"a\": [", "]}"), ("[{\"a\": ", "}]")] {
                for inner in ["1", "[1,]x"] {
                    for around in [("", ""), ("say {", " ok")] {
                        let text =
                            format!("{}{}{inner}{}{}", around.0, open.repeat(depth), close.repeat(depth), around.1);
                        let expected = first_object_by_definition(&text);
                        assert_eq!(first_object_block(&text), expected, "depth {depth} {open} {inner} {around:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn lenient_reading_matches_the_stripped_copy() {
        let pieces = ["{", "}", "[", "]", "\"", "\\", ",", " ", "\u{2003}", "a", "1", ":"];
        for text in texts(&pieces, 20_000, 16) {
            let mut read = Vec::new();
            let mut reader = WithoutTrailingCommas { text: &text, pos: 0, state: Scan::Out };
            std::io::Read::read_to_end(&mut reader, &mut read).unwrap_or_default();
            assert_eq!(String::from_utf8_lossy(&read), strip_trailing_commas(&text), "{text:?}");
        }
    }
}
