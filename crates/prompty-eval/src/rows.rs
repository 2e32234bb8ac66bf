//! Data rows, recorded answers and result lines as JSON lines: one JSON value a line.
//!
//! [`JsonLines`] reads any [`BufRead`] the caller opened (a file, standard input, a byte
//! slice) line by line, each line at most [`MAX_LINE_BYTES`] long, so that one bad line
//! never costs more than the limit. A read error ends the reading: after one, where the
//! next line starts is unknown, and a source that fails once (`/proc/self/mem`) fails on
//! every read. [`row_inputs`] turns one line into a prompt's input values.

use std::io::BufRead;

use prompty_syntax::Prompt;
use serde_json::{Map, Value};

use crate::error::Error;
use crate::record::{RowError, RowErrorKind};

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
    let Line::Text(row) = row else {
        return Err(RowError::new(RowErrorKind::RowNotUtf8, format!("{data_name}:{line}: not UTF-8 text")));
    };
    let inputs = match serde_json::from_str::<Value>(&row) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            return Err(RowError::new(
                RowErrorKind::RowNotObject,
                format!("{data_name}:{line}: expected a JSON object of inputs"),
            ));
        }
        Err(e) => {
            return Err(RowError::new(RowErrorKind::RowNotJson, format!("{data_name}:{line}: not valid JSON: {e}")));
        }
    };
    prompt.validate_inputs(&inputs).map_err(|e| {
        let message = format!("{data_name}:{line}: {e}");
        RowError::new(RowErrorKind::MissingInput, prompt.secrets.redact(&message).into_owned())
    })?;
    Ok(inputs)
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
