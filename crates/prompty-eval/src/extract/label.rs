//! Binary answers: `0`/`1`, `true`/`false`, `TRUE`/`FALSE`, `pass`/`fail`,
//! `yes`/`no` (any letter case), as the whole answer or as a JSON value.
//!
//! A positive label scores 1, a negative one 0. Surrounding whitespace,
//! quotes and a final period are ignored; anything else (`passed with
//! notes`, `maybe`) is not a label.

use nom::Parser;
use nom::branch::alt;
use nom::bytes::complete::tag_no_case;
use nom::combinator::{eof, value};
use serde_json::Value;

use super::{Extracted, PResult};
use crate::error::Error;
use crate::py;

/// The accepted spellings, for messages.
pub const EXPECTED: &str = "1/0, true/false, pass/fail, yes/no";

fn label_word(input: &str) -> PResult<'_, bool> {
    let (rest, verdict) = alt((
        value(true, tag_no_case("true")),
        value(false, tag_no_case("false")),
        value(true, tag_no_case("pass")),
        value(false, tag_no_case("fail")),
        value(true, tag_no_case("yes")),
        value(false, tag_no_case("no")),
        value(true, tag_no_case("1")),
        value(false, tag_no_case("0")),
    ))
    .parse(input)?;
    let (rest, _) = eof(rest)?;
    Ok((rest, verdict))
}

fn unwrap_text(text: &str) -> &str {
    let t = py::strip(text);
    let t = t.strip_suffix('.').unwrap_or(t);
    let t = t
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .or_else(|| t.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
        .unwrap_or(t);
    py::strip(t)
}

/// Reads a label from text: `Ok(true)` for a positive label.
pub fn parse(text: &str) -> Result<bool, Error> {
    match label_word(unwrap_text(text)) {
        Ok((_, verdict)) => Ok(verdict),
        Err(_) => Err(Error::UnknownLabel { answer: text.to_owned(), expected: EXPECTED.to_owned() }),
    }
}

/// Reads a label from a JSON value: a bool, the numbers 0 and 1, or a
/// string accepted by [`parse`].
pub fn from_value(value: &Value) -> Result<bool, Error> {
    match value {
        Value::Bool(b) => Ok(*b),
        Value::Number(n) => match n.as_f64() {
            Some(1.0) => Ok(true),
            Some(0.0) => Ok(false),
            _ => Err(Error::UnknownLabel { answer: n.to_string(), expected: EXPECTED.to_owned() }),
        },
        Value::String(s) => parse(s),
        other => Err(Error::UnknownLabel { answer: other.to_string(), expected: EXPECTED.to_owned() }),
    }
}

/// Reads a whole answer as a label: score 1 or 0, `label` set to the
/// stripped answer. Never fails: an unknown label is a `None` score with
/// [`Error::UnknownLabel`] as the problem.
pub fn extract(answer: &str) -> Extracted {
    if py::strip(answer).is_empty() {
        return Extracted::missing(Error::EmptyAnswer);
    }
    match parse(answer) {
        Ok(verdict) => Extracted {
            score: Some(if verdict { 1.0 } else { 0.0 }),
            label: Some(unwrap_text(answer).to_owned()),
            ..Extracted::default()
        },
        Err(problem) => Extracted { label: Some(py::strip(answer).to_owned()), ..Extracted::missing(problem) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words() {
        assert_eq!(parse("TRUE"), Ok(true));
        assert_eq!(parse("False"), Ok(false));
        assert_eq!(parse(" pass\n"), Ok(true));
        assert_eq!(parse("FAIL."), Ok(false));
        assert_eq!(parse("\"yes\""), Ok(true));
        assert_eq!(parse("1"), Ok(true));
        assert_eq!(parse("0"), Ok(false));
    }

    #[test]
    fn not_labels() {
        assert!(parse("passed with notes").is_err());
        assert!(parse("maybe").is_err());
        assert!(parse("10").is_err());
        assert!(parse("").is_err());
    }

    #[test]
    fn values() {
        assert_eq!(from_value(&json!(true)), Ok(true));
        assert_eq!(from_value(&json!(0)), Ok(false));
        assert_eq!(from_value(&json!(1.0)), Ok(true));
        assert_eq!(from_value(&json!("FALSE")), Ok(false));
        assert!(from_value(&json!(2)).is_err());
        assert!(from_value(&json!(null)).is_err());
    }

    #[test]
    fn extract_scores() {
        let e = extract("PASS");
        assert_eq!(e.score, Some(1.0));
        assert_eq!(e.label.as_deref(), Some("PASS"));
        let bad = extract("maybe");
        assert_eq!(bad.score, None);
        assert_eq!(bad.label.as_deref(), Some("maybe"));
        assert!(matches!(bad.score_problem, Some(Error::UnknownLabel { .. })));
    }
}
