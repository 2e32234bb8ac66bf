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
//! Reading the fields: the score comes from the first present key of
//! [`JsonFields::score`], the reason from [`JsonFields::reason`], extra details
//! from [`JsonFields::properties`], a label from [`JsonFields::label`], and the
//! status from `status`. A score is never invented: a missing score key, a
//! `null` score or a non-object answer give no score.

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

/// The balanced `{...}` block starting at the start of `input` (which must be
/// `{`), respecting JSON strings and their escapes.
fn balanced_object(input: &str) -> PResult<'_, &str> {
    let fail = || nom::Err::Error(nom::error::Error::new(input, nom::error::ErrorKind::Char));
    if !input.starts_with('{') {
        return Err(fail());
    }
    let mut depth = 0usize;
    let mut strings = JsonStrings::default();
    for (i, c) in input.char_indices() {
        if strings.inside(c) {
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let end = i + c.len_utf8();
                    let block = input.get(..end).ok_or_else(fail)?;
                    let rest = input.get(end..).ok_or_else(fail)?;
                    return Ok((rest, block));
                }
            }
            _ => {}
        }
    }
    Err(fail())
}

/// Whether a left-to-right scan is inside a JSON string literal.
#[derive(Default)]
struct JsonStrings {
    in_string: bool,
    escaped: bool,
}

impl JsonStrings {
    /// Feeds the next character; true when it belongs to a string literal (its quotes
    /// included).
    fn inside(&mut self, c: char) -> bool {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if c == '\\' {
                self.escaped = true;
            } else if c == '"' {
                self.in_string = false;
            }
            return true;
        }
        if c == '"' {
            self.in_string = true;
            return true;
        }
        false
    }
}

/// `text` without commas that directly precede (up to whitespace) a `}` or
/// `]`, outside JSON strings.
fn strip_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut strings = JsonStrings::default();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if strings.inside(c) {
            out.push(c);
            continue;
        }
        if c == ',' {
            let next = chars.get(i + 1..).and_then(|tail| tail.iter().find(|n| !n.is_whitespace()));
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Parses `text` strictly, then with trailing commas removed.
fn parse_lenient(text: &str) -> Result<Value, Error> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok(v),
        Err(first) => serde_json::from_str::<Value>(&strip_trailing_commas(text))
            .map_err(|_| Error::InvalidJson { message: first.to_string() }),
    }
}

/// The first balanced `{...}` block of `text` that parses as an object.
fn first_object_block(text: &str) -> Result<Map<String, Value>, Error> {
    let mut first_error: Option<Error> = None;
    for (i, _) in text.match_indices('{') {
        let Some(candidate) = text.get(i..) else {
            continue;
        };
        let Ok((_, block)) = balanced_object(candidate) else {
            continue;
        };
        match parse_lenient(block) {
            Ok(Value::Object(map)) => return Ok(map),
            Ok(_) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or(Error::NoJsonObject))
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

/// Converts a score value like Python's `float()`: numbers as they are,
/// numeric strings parsed, booleans as 1 and 0, `null` as no score. A NaN
/// result is no score. Anything else is [`Error::ScoreNotNumeric`].
pub fn score_value(field: &str, value: &Value) -> Result<Option<f64>, Error> {
    let not_numeric = || Error::ScoreNotNumeric { field: field.to_owned(), value: py::repr_of(value) };
    let f = match value {
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
    };
    Ok((!f.is_nan()).then_some(f))
}

fn first_key<'m>(map: &'m Map<String, Value>, keys: &[String]) -> Option<(&'m str, &'m Value)> {
    keys.iter().find_map(|k| map.get_key_value(k.as_str())).map(|(k, v)| (k.as_str(), v))
}

/// Reads the fields of a JSON object answer.
pub fn read_object(map: Map<String, Value>, fields: &JsonFields) -> Result<Extracted, Error> {
    let (score, score_problem) = match first_key(&map, &fields.score) {
        Some((key, value)) => match score_value(key, value)? {
            Some(s) => (Some(s), None),
            None => (None, Some(Error::ScoreNotNumeric { field: key.to_owned(), value: py::repr_of(value) })),
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
