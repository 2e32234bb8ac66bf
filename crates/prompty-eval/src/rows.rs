//! Data rows, recorded answers and result lines as JSON lines: one JSON value a line.
//!
//! [`JsonLines`] reads any [`BufRead`] the caller opened (a file, standard input, a byte
//! slice) line by line, each line at most [`MAX_LINE_BYTES`] long, so that one bad line
//! never costs more than the limit. A read error ends the reading: after one, where the
//! next line starts is unknown, and a source that fails once (`/proc/self/mem`) fails on
//! every read. [`row_inputs`] turns one line into a prompt's input values.
//!
//! A run over several evaluators reads each row once ([`parse_row`]), gives it an id
//! ([`RowIds`]: a column named by [`IdColumn`], the conventional `id` field, or the line
//! number) and builds each evaluator's inputs from it through a column mapping
//! ([`InputMap`], [`mapped_inputs`]): the reference's `column_mapping` of
//! `${data.field}` references, written `input=field.path`.

use std::collections::HashMap;
use std::io::BufRead;

use prompty_syntax::Prompt;
use serde_json::{Map, Value};

use crate::error::Error;
use crate::record::{RowError, RowErrorKind, RowId};

/// The longest line read: 16 MiB.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// One line of a JSON-lines file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// The line's text, without its line break (`\n` or `\r\n`).
    Text(String),
    /// The line is not UTF-8 (a bad row, reported by its number).
    NotUtf8,
}

/// A JSON-lines source read line by line.
#[derive(Debug)]
pub struct JsonLines<R> {
    name: String,
    reader: R,
    line: u64,
}

impl<R: BufRead> JsonLines<R> {
    /// Reads `reader`; `name` (a path, `-`) names it in messages.
    pub fn new(name: impl Into<String>, reader: R) -> Self {
        JsonLines { name: name.into(), reader, line: 0 }
    }

    /// The name messages use.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many lines were read so far: the number of the last one.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The next line, `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<Line>, Error> {
        let mut bytes: Vec<u8> = Vec::new();
        let number = self.line + 1;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::Read { name: self.name.clone(), line: number, message: describe(&e) }),
            };
            if available.is_empty() {
                if bytes.is_empty() {
                    return Ok(None);
                }
                break;
            }
            let (take, done) = match newline_at(available) {
                Some(i) => (i, true),
                None => (available.len(), false),
            };
            if bytes.len() + take > MAX_LINE_BYTES {
                return Err(Error::LineTooLong { name: self.name.clone(), line: number, limit: MAX_LINE_BYTES });
            }
            bytes.extend_from_slice(available.get(..take).unwrap_or_default());
            self.reader.consume(if done { take + 1 } else { take });
            if done {
                break;
            }
        }
        self.line = number;
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        Ok(Some(String::from_utf8(bytes).map_or(Line::NotUtf8, Line::Text)))
    }
}

fn newline_at(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// What the system said about a failed read, without its error number.
fn describe(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string(),
    }
}

/// The input values of data line `line` of `data_name`, checked against the prompt's
/// declared inputs. Messages show values `${env:}` supplied to the prompt as `${env:NAME}`.
pub fn row_inputs(prompt: &Prompt, row: Line, data_name: &str, line: u64) -> Result<Map<String, Value>, RowError> {
    let inputs = parse_row(row, data_name, line)?;
    prompt.validate_inputs(&inputs).map_err(|e| {
        let message = format!("{data_name}:{line}: {e}");
        RowError::new(RowErrorKind::MissingInput, prompt.secrets.redact(&message).into_owned())
    })?;
    Ok(inputs)
}

/// The JSON object of data line `line` of `data_name`, or the row error that says why it
/// is none (not UTF-8, not JSON, not an object).
pub fn parse_row(row: Line, data_name: &str, line: u64) -> Result<Map<String, Value>, RowError> {
    let Line::Text(row) = row else {
        return Err(RowError::new(RowErrorKind::RowNotUtf8, format!("{data_name}:{line}: not UTF-8 text")));
    };
    match serde_json::from_str::<Value>(&row) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(RowError::new(
            RowErrorKind::RowNotObject,
            format!("{data_name}:{line}: expected a JSON object of inputs, found {}", json_type(&other)),
        )),
        Err(e) => Err(RowError::new(RowErrorKind::RowNotJson, format!("{data_name}:{line}: not valid JSON: {e}"))),
    }
}

/// `a string`, `an array`, ... for messages.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A field of a data row, possibly nested: `question`, `doc.text`, `turns.0.content`.
///
/// Segments are separated by `.`; `\.` is a dot inside a field name and `\\` a
/// backslash. A segment of digits indexes an array (and names a field of an object). The
/// reference's form `${data.doc.text}` is read as `doc.text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    text: String,
    segments: Vec<String>,
}

impl FieldPath {
    /// Reads a path; `option` names it in errors (`--map context=doc.text`).
    pub fn parse(text: &str, option: &str) -> Result<Self, Error> {
        let inner = match text.strip_prefix("${") {
            Some(rest) => {
                let Some(body) = rest.strip_suffix('}') else {
                    return Err(Error::run_option(option, format!("`{text}` opens `${{` without a closing `}}`")));
                };
                match body.strip_prefix("data.") {
                    Some(field) => field,
                    None => {
                        return Err(Error::run_option(
                            option,
                            format!(
                                "`{text}`: only `${{data.FIELD}}` references exist here (a run has no target); write the field path, `doc.text`"
                            ),
                        ));
                    }
                }
            }
            None => text,
        };
        let mut segments = vec![String::new()];
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(e @ ('.' | '\\')) => segments.last_mut().into_iter().for_each(|s| s.push(e)),
                    _ => {
                        return Err(Error::run_option(
                            option,
                            format!("`{text}`: `\\` escapes only `.` and `\\` in a field path"),
                        ));
                    }
                },
                '.' => segments.push(String::new()),
                c => segments.last_mut().into_iter().for_each(|s| s.push(c)),
            }
        }
        if segments.iter().any(String::is_empty) {
            return Err(Error::run_option(
                option,
                format!(
                    "`{text}`: a field path is field names separated by single dots (`doc.text`); this one has an empty name"
                ),
            ));
        }
        Ok(FieldPath { text: inner.to_owned(), segments })
    }

    /// The path as written (without `${data.}`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The value at this path in `row`, or why there is none (`` `doc` has no field `text` ``).
    pub fn get<'v>(&self, row: &'v Map<String, Value>) -> Result<&'v Value, String> {
        let mut segments = self.segments.iter();
        let first = segments.next().map(String::as_str).unwrap_or_default();
        let mut value = row.get(first).ok_or_else(|| format!("the row has no field `{first}`"))?;
        let mut at = escape(first);
        for segment in segments {
            let next = match value {
                Value::Object(m) => m.get(segment.as_str()),
                Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            value = next.ok_or_else(|| match value {
                Value::Object(_) => format!("`{at}` has no field `{segment}`"),
                Value::Array(items) => {
                    format!("`{at}` is an array of {} item(s), with no item `{segment}`", items.len())
                }
                other => format!("`{at}` is {}, with no field `{segment}`", json_type(other)),
            })?;
            at.push('.');
            at.push_str(&escape(segment));
        }
        Ok(value)
    }
}

fn escape(segment: &str) -> String {
    segment.replace('\\', "\\\\").replace('.', "\\.")
}

/// One column mapping: the prompt input `input` takes the row's value at `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapSpec {
    /// The evaluator key it is for; `None` for every evaluator.
    pub evaluator: Option<String>,
    /// The prompt input.
    pub input: String,
    /// Where the value is in the row.
    pub path: FieldPath,
    /// The option as given, for messages (`--map coherence:query=q`).
    pub text: String,
}

impl MapSpec {
    /// Reads `[EVALUATOR:]INPUT=PATH` (`query=question`, `coherence:context=doc.text`,
    /// `query=${data.question}`).
    pub fn parse(spec: &str) -> Result<Self, Error> {
        let option = format!("--map {spec}");
        let Some((target, path)) = spec.split_once('=') else {
            return Err(Error::run_option(
                option,
                "expected INPUT=FIELD (`query=question`, `context=doc.text`), optionally for one evaluator: EVALUATOR:INPUT=FIELD",
            ));
        };
        // The input is after the last `:` (an evaluator's name may hold one).
        let (evaluator, input) = match target.rsplit_once(':') {
            Some((e, i)) => (Some(e.trim()), i.trim()),
            None => (None, target.trim()),
        };
        if input.is_empty() || evaluator.is_some_and(str::is_empty) {
            return Err(Error::run_option(option, "the input name (and the evaluator before `:`) must not be empty"));
        }
        let path = FieldPath::parse(path.trim(), &option)?;
        Ok(MapSpec { evaluator: evaluator.map(str::to_owned), input: input.to_owned(), path, text: option })
    }
}

/// An evaluator's column mapping: prompt inputs taken from other fields of the row. Inputs
/// not mapped take the row's field of their own name, as without a mapping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputMap {
    entries: Vec<(String, FieldPath, String)>,
}

impl InputMap {
    /// No mapping.
    pub fn new() -> Self {
        InputMap::default()
    }

    /// Adds `spec` for `prompt`: refused when the prompt declares inputs and `spec.input`
    /// is none of them, or when the input is already mapped (an evaluator's own mapping
    /// replaces one given for every evaluator: add that one last).
    pub fn add(&mut self, spec: &MapSpec, prompt: &Prompt, evaluator: &str) -> Result<(), Error> {
        if let Some(declared) = &prompt.inputs
            && !declared.iter().any(|i| i.name == spec.input)
        {
            let names: Vec<&str> = declared.iter().map(|i| i.name.as_str()).collect();
            return Err(Error::run_option(
                &spec.text,
                format!(
                    "evaluator `{evaluator}` has no input `{}` (its inputs: {})",
                    spec.input,
                    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                ),
            ));
        }
        if let Some(i) = self.entries.iter().position(|(input, ..)| *input == spec.input) {
            if spec.evaluator.is_none() {
                return Err(Error::run_option(
                    &spec.text,
                    format!("input `{}` of `{evaluator}` is already mapped by {}", spec.input, self.entries[i].2),
                ));
            }
            self.entries.remove(i);
        }
        self.entries.push((spec.input.clone(), spec.path.clone(), spec.text.clone()));
        Ok(())
    }

    /// Whether nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The row's fields with every mapped input set from its path; a path the row does not
    /// have is a `missing field` error naming it, the option and `place` (`rows.jsonl:3`).
    pub fn apply(&self, row: &Map<String, Value>, place: &str) -> Result<Map<String, Value>, RowError> {
        let mut inputs = row.clone();
        for (input, path, text) in &self.entries {
            let value = path
                .get(row)
                .map_err(|why| RowError::new(RowErrorKind::MissingField, format!("{place}: {text}: {why}")))?;
            inputs.insert(input.clone(), value.clone());
        }
        Ok(inputs)
    }
}

/// The inputs of `prompt` from a parsed row through `map`, checked against the prompt's
/// declared inputs. `place` (`rows.jsonl:3 (id q3)`) starts every message.
pub fn mapped_inputs(
    prompt: &Prompt,
    row: &Map<String, Value>,
    map: &InputMap,
    place: &str,
) -> Result<Map<String, Value>, RowError> {
    let inputs = map.apply(row, place)?;
    prompt.validate_inputs(&inputs).map_err(|e| {
        let message = format!("{place}: {e}");
        RowError::new(RowErrorKind::MissingInput, prompt.secrets.redact(&message).into_owned())
    })?;
    Ok(inputs)
}

/// Where a row's id comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum IdColumn {
    /// The row's `id` field when it has one, else its line number.
    #[default]
    Conventional,
    /// This field (`--id-column`), which every row must have.
    Field(FieldPath),
}

/// The longest id, in bytes.
pub const MAX_ID_BYTES: usize = 1024;

/// Gives rows their ids and refuses an id an earlier row has. Ids are strings or numbers;
/// they are compared by their text, so `7` and `"7"` are one id.
#[derive(Debug, Clone, Default)]
pub struct RowIds {
    column: IdColumn,
    seen: HashMap<String, u64>,
}

impl RowIds {
    /// Ids from `column`.
    pub fn new(column: IdColumn) -> Self {
        RowIds { column, seen: HashMap::new() }
    }

    /// The id of data line `line` (a parsed row, or `None` for a row that is no object: its
    /// line number). An id that is no string or number, empty, over [`MAX_ID_BYTES`], or an
    /// earlier row's, is a row error (the row keeps its id in the result line, so that
    /// every row can be found).
    pub fn id(&mut self, row: Option<&Map<String, Value>>, data_name: &str, line: u64) -> (RowId, Option<RowError>) {
        let (value, column) = match (&self.column, row) {
            (_, None) => (None, ""),
            (IdColumn::Conventional, Some(row)) => (row.get("id"), "id"),
            (IdColumn::Field(path), Some(row)) => match path.get(row) {
                Ok(v) => (Some(v), path.as_str()),
                Err(why) => {
                    let message = format!("{data_name}:{line}: --id-column {}: {why}", path.as_str());
                    return (RowId::line(line), Some(RowError::new(RowErrorKind::MissingField, message)));
                }
            },
        };
        let bad = |why: String| {
            let message = format!("{data_name}:{line}: the id (field `{column}`) {why}");
            (RowId::line(line), Some(RowError::new(RowErrorKind::BadId, message)))
        };
        let id = match value {
            None => RowId::line(line),
            Some(Value::String(s)) if s.is_empty() => return bad("is empty".to_owned()),
            Some(Value::String(s)) if s.len() > MAX_ID_BYTES => {
                return bad(format!("is {} bytes long; ids are at most {MAX_ID_BYTES}", s.len()));
            }
            Some(Value::String(s)) => RowId::Text(s.clone()),
            Some(Value::Number(n)) => RowId::Number(n.clone()),
            Some(other) => {
                return bad(format!(
                    "is {}; an id is a string or a number (name another field with --id-column)",
                    json_type(other)
                ));
            }
        };
        let key = id.to_string();
        if let Some(first) = self.seen.get(&key) {
            let message =
                format!("{data_name}:{line}: the id `{key}` is also the id of line {first}; ids must be unique");
            return (id, Some(RowError::new(RowErrorKind::DuplicateId, message)));
        }
        self.seen.insert(key, line);
        (id, None)
    }
}

/// `rows.jsonl:3`, with `(id q3)` when the row's id is not its line number: how messages
/// name a row.
pub fn place(data_name: &str, line: u64, id: &RowId) -> String {
    if *id == RowId::line(line) { format!("{data_name}:{line}") } else { format!("{data_name}:{line} (id {id})") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &[u8]) -> Vec<Result<Option<Line>, String>> {
        let mut lines = JsonLines::new("rows.jsonl", text);
        let mut out = Vec::new();
        loop {
            let next = lines.next_line().map_err(|e| e.to_string());
            let end = !matches!(next, Ok(Some(_)));
            out.push(next);
            if end {
                return out;
            }
        }
    }

    #[test]
    fn lines_end_at_newlines_crlf_or_the_end_and_bad_utf8_is_one_bad_line() {
        let text = |s: &str| Ok(Some(Line::Text(s.to_owned())));
        assert_eq!(all(b"{}\n{\"a\":1}\r\n\nlast"), [text("{}"), text("{\"a\":1}"), text(""), text("last"), Ok(None)]);
        assert_eq!(all(b"\xff\n{}\n"), [Ok(Some(Line::NotUtf8)), text("{}"), Ok(None)]);
        assert_eq!(all(b""), [Ok(None)]);
    }

    #[test]
    fn a_line_over_the_limit_ends_the_reading_naming_it() {
        let mut text = b"{}\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 1));
        let lines = all(&text);
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[1].as_ref().err().map(String::as_str),
            Some("rows.jsonl:2: the line is longer than the 16777216-byte limit; one line holds one JSON value")
        );
    }

    #[test]
    fn row_errors_have_their_kind_and_name_the_line() {
        let loaded = prompty_syntax::load_str(
            "---\ninputs:\n  - name: q\n    kind: string\n    required: true\n---\nuser:\n{{q}}\n",
            &prompty_syntax::MapHost::new(),
            &prompty_syntax::LoadOptions::default(),
        );
        let prompt = loaded.prompt.expect("loads");
        let kind = |row: &str| row_inputs(&prompt, Line::Text(row.to_owned()), "d.jsonl", 7).map_err(|e| e.kind);
        assert_eq!(kind("{\"q\": \"hi\"}").map(|m| m.len()), Ok(1));
        assert_eq!(kind("[1]").err(), Some(RowErrorKind::RowNotObject));
        assert_eq!(kind("{").err(), Some(RowErrorKind::RowNotJson));
        assert_eq!(kind("{}").err(), Some(RowErrorKind::MissingInput));
        let e = row_inputs(&prompt, Line::NotUtf8, "d.jsonl", 7).err();
        assert_eq!(
            e.map(|e| (e.kind, e.message)),
            Some((RowErrorKind::RowNotUtf8, "d.jsonl:7: not UTF-8 text".into()))
        );
    }
}
