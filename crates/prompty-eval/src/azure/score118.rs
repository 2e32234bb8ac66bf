//! Judge replies to evaluations under the azure-ai-evaluation 1.18.10 contract.
//!
//! Every 1.18.10 judge prompt is in JSON mode, so the reference parses the whole answer
//! with `json.loads` before any evaluator sees it: text around the JSON, a code fence
//! or bare `<S0><S1><S2>` tags are refused here as they are there. Then:
//!
//! * the base evaluators (coherence, fluency, groundedness, retrieval, similarity) take
//!   a JSON object as `{reason, score, status, properties}`; a JSON *string* is parsed
//!   again and, when it is not an object, read with the 1.13 tag parser (similarity:
//!   its first digit); no range check, so 7 passes and 0 fails;
//! * the others need an object and apply their own rules (see [`AzureEvaluator::score_1_18`]).
//!
//! `status: "skipped"` is [`Verdict::NotApplicable`] with the reason
//! `Not applicable: <reason>` everywhere.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::evaluation::{Evaluation, JudgeReply, float_value};
use crate::extract::json::float_of;
use crate::extract::{number, tags};
use crate::py;
use crate::verdict::{Threshold, Verdict};

use super::evaluator::AzureEvaluator;

use AzureEvaluator as E;

impl AzureEvaluator {
    /// Reads the judge's reply for one call as azure-ai-evaluation 1.18.10 does.
    ///
    /// Errors where the reference raises: an answer that is not JSON (`JSONDecodeError`),
    /// a non-object answer to an evaluator with its own scoring ("Evaluator returned
    /// invalid output."), a `null` score where the reference calls `float(None)`, a
    /// score `float()` cannot read, a score outside the validated range of
    /// intent_resolution and tool_call_accuracy (1 to 5) or not 0/1 for tool_selection
    /// and tool_input_accuracy. An infinite score is refused everywhere (the reference
    /// would compare it; see docs/compatibility.md).
    pub fn score_1_18(self, threshold: &Threshold, reply: &JudgeReply) -> Result<Evaluation> {
        let content = reply.content_str();
        crate::extract::check_answer_size(content)?;
        let t = threshold.value();
        let mut e = Evaluation {
            name: self.result_key().to_owned(),
            threshold: Some(threshold.clone()),
            status: Some("completed".to_owned()),
            ..Evaluation::default()
        };
        let answer: Value = if py::strip(content).is_empty() {
            return Err(Error::EmptyAnswer);
        } else {
            serde_json::from_str(content).map_err(|err| Error::InvalidJson { message: err.to_string() })?
        };
        if self.is_base() {
            let answer = match answer {
                Value::String(s) => match serde_json::from_str::<Value>(&s) {
                    Ok(Value::Object(m)) if !m.is_empty() => Value::Object(m),
                    _ => Value::String(s),
                },
                other => other,
            };
            match answer {
                Value::Object(map) if !map.is_empty() => {
                    if skipped(&map) {
                        return Ok(skipped_evaluation(e, &map, false).with_reply(reply));
                    }
                    e.reason = text_of(map.get("reason"));
                    e.properties = properties_of(&map);
                    e.status = map.get("status").and_then(Value::as_str).map(str::to_owned).or(e.status);
                    e.score = score_or_nan(map.get("score"))?;
                }
                Value::String(s) => {
                    if self == E::Similarity {
                        e.score = number::score(&s).ok();
                    } else {
                        let x = tags::extract(&s, tags::DigitRange::ONE_TO_FIVE);
                        e.score = x.score;
                        e.reason = x.reason;
                    }
                    if e.score.is_none() {
                        e.problem = Some("the answer is a JSON string without a score tag".to_owned());
                    }
                }
                other => {
                    e.problem = Some(format!("the judge answer is a JSON {}, not an object", kind(&other)));
                }
            }
            e.verdict = at_least(e.score, t);
            if e.score.is_none() && e.problem.is_none() {
                e.problem = Some("the judge answer has no score".to_owned());
            }
            return Ok(e.with_reply(reply));
        }
        let Value::Object(map) = answer else {
            return Err(Error::NotAnObject { found: kind(&answer) });
        };
        if skipped(&map) {
            return Ok(skipped_evaluation(e, &map, true).with_reply(reply));
        }
        e.reason = text_of(map.get("reason"));
        e.properties = properties_of(&map);
        e.status = map.get("status").and_then(Value::as_str).map(str::to_owned).or(e.status);
        let raw = map.get("score");
        match self {
            E::Relevance | E::ResponseCompleteness => {
                e.score = Some(strict_float(raw.unwrap_or(&Value::String("nan".to_owned())))?).filter(|s| !s.is_nan());
                e.verdict = at_least(e.score, t);
                if e.score.is_none() {
                    e.problem = Some("the judge answer has no score".to_owned());
                }
            }
            E::IntentResolution | E::ToolCallAccuracy => {
                let shown = raw.map(py::str_of).unwrap_or_else(|| "nan".to_owned());
                let out_of_range = || Error::ScoreOutOfRange { value: shown.clone(), min: "1".into(), max: "5".into() };
                let value = raw.ok_or_else(out_of_range)?;
                if self == E::ToolCallAccuracy && !crate::flatten::py_truthy(value) {
                    return Err(out_of_range());
                }
                let score = float_of("score", value).map_err(|_| out_of_range())?.ok_or_else(out_of_range)?;
                if !(1.0..=5.0).contains(&score) {
                    return Err(out_of_range());
                }
                e.score = Some(score);
                e.verdict = pass_fail(score >= t);
            }
            E::ToolSelection | E::ToolInputAccuracy => {
                let score = match raw {
                    Some(Value::Bool(b)) => Some(if *b { 1.0 } else { 0.0 }),
                    Some(Value::Number(n)) => n.as_f64().filter(|x| *x == 0.0 || *x == 1.0),
                    _ => None,
                }
                .ok_or_else(|| Error::ScoreNotBinary {
                    value: raw.map(py::str_of).unwrap_or_else(|| "None".to_owned()),
                })?;
                if !e.properties.is_empty() {
                    let count = |k: &str| e.properties.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                    let (key, acc) = if self == E::ToolSelection {
                        let (right, wrong) = (count("correct_tool_selections"), count("wrong_tool_selections"));
                        let acc = if right + wrong == 0.0 { 100.0 } else { round2(right / (right + wrong) * 100.0) };
                        ("tool_selection_accuracy", acc)
                    } else {
                        let (total, right) = (count("total_parameters_passed"), count("correct_parameters_passed"));
                        let acc = if total == 0.0 { 100.0 } else { round2(right / total * 100.0) };
                        ("parameter_extraction_accuracy", acc)
                    };
                    e.properties.insert(key.to_owned(), float_value(acc));
                }
                e.score = Some(score);
                e.verdict = pass_fail(score == 1.0);
            }
            E::TaskAdherence
            | E::TaskCompletion
            | E::ToolCallSuccess
            | E::ToolOutputUtilization
            | E::ToolSuccess
            | E::Coherence
            | E::Fluency
            | E::Groundedness
            | E::Retrieval
            | E::Similarity => {
                let score = strict_float(raw.unwrap_or(&Value::from(0)))?;
                e.score = Some(score);
                e.verdict = pass_fail(score >= 1.0);
            }
        }
        Ok(e.with_reply(reply))
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn skipped(map: &Map<String, Value>) -> bool {
    map.get("status").and_then(Value::as_str) == Some("skipped")
}

/// The not-applicable result of a `status: "skipped"` answer: the base strategy keeps
/// the answer's properties (and the call's metadata); the evaluators with their own
/// scoring write `null` properties.
fn skipped_evaluation(mut e: Evaluation, map: &Map<String, Value>, properties_null: bool) -> Evaluation {
    e.verdict = Verdict::NotApplicable;
    e.score = None;
    e.status = Some("skipped".to_owned());
    e.reason = format!("Not applicable: {}", text_of(map.get("reason")));
    e.properties = if properties_null { Map::new() } else { properties_of(map) };
    e.properties_null = properties_null;
    e
}

/// A reason as the reference passes it on: a string as it is, nothing as `""`.
fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => py::str_of(other),
    }
}

/// `answer.get("properties") or {}`: an object, else empty.
fn properties_of(map: &Map<String, Value>) -> Map<String, Value> {
    map.get("properties").and_then(Value::as_object).cloned().unwrap_or_default()
}

/// `float(answer.get("score", nan))` of the base strategy: `null` is NaN there.
fn score_or_nan(v: Option<&Value>) -> Result<Option<f64>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => Ok(Some(strict_float(v)?).filter(|s| !s.is_nan())),
    }
}

/// Python's `float(v)`: `null` is a `TypeError`, a string that is no number a
/// `ValueError`; both are errors here. An infinite result is refused.
fn strict_float(v: &Value) -> Result<f64> {
    let score = float_of("score", v)?
        .ok_or_else(|| Error::ScoreNotNumeric { field: "score".to_owned(), value: "None".to_owned() })?;
    if score.is_infinite() {
        return Err(Error::ScoreNotFinite { field: "score".to_owned(), value: py::repr_of(v) });
    }
    Ok(score)
}

/// `_get_binary_result`: no score is unknown, else pass at or above the threshold.
fn at_least(score: Option<f64>, threshold: f64) -> Verdict {
    match score {
        None => Verdict::Unknown,
        Some(s) => pass_fail(s >= threshold),
    }
}

fn pass_fail(pass: bool) -> Verdict {
    if pass { Verdict::Pass } else { Verdict::Fail }
}

/// Python's `round(x, 2)` for the values accuracies take.
fn round2(x: f64) -> f64 {
    let scaled = x * 100.0;
    let r = scaled.round();
    let r = if (scaled - scaled.trunc()).abs() == 0.5 && r % 2.0 != 0.0 { r - scaled.signum() } else { r };
    r / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(e: AzureEvaluator, answer: &str) -> Result<Evaluation> {
        e.score_1_18(&Threshold::from(3u8), &JudgeReply::text(answer))
    }

    #[test]
    fn hostile_answers_are_refused_or_have_no_score_never_a_pass() {
        for e in [E::Coherence, E::Relevance, E::TaskCompletion, E::ToolSelection] {
            for answer in ["", "   ", "{", "[", "null", "{\"score\": 1e999}", "{\"score\": 5} {\"score\": 5}"] {
                let outcome = score(e, answer);
                assert!(
                    outcome.as_ref().map_or(true, |x| x.verdict != Verdict::Pass),
                    "{e:?} {answer:?} passed: {outcome:?}"
                );
            }
            let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
            assert!(score(e, &deep).is_err(), "{e:?}: a 10,000-deep answer must be refused");
            let huge = format!("{{\"reason\": \"{}\", \"score\": 5}}", "x".repeat(crate::extract::MAX_ANSWER_BYTES));
            assert!(matches!(score(e, &huge), Err(Error::AnswerTooLarge { .. })), "{e:?}");
        }
        // Infinities are refused where the reference would compare them.
        for answer in ["{\"score\": \"inf\"}", "{\"score\": \"-Infinity\"}"] {
            assert!(matches!(score(E::Fluency, answer), Err(Error::ScoreNotFinite { .. })), "{answer}");
            assert!(matches!(score(E::TaskAdherence, answer), Err(Error::ScoreNotFinite { .. })), "{answer}");
        }
        // NaN is no score: unknown for the base evaluators, a fail for the fixed pass rules.
        let nan = score(E::Coherence, "{\"score\": \"nan\"}").map(|x| (x.score, x.verdict));
        assert_eq!(nan, Ok((None, Verdict::Unknown)));
    }

    #[test]
    fn skipped_without_a_reason_and_tags_in_a_json_string() {
        let e = score(E::Retrieval, "{\"status\": \"skipped\"}").map(|x| (x.verdict, x.reason));
        assert_eq!(e, Ok((Verdict::NotApplicable, "Not applicable: ".to_owned())));
        let tags = score(E::Groundedness, "\"<S1>ok</S1><S2>4</S2>\"").map(|x| (x.score, x.reason, x.verdict));
        assert_eq!(tags, Ok((Some(4.0), "ok".to_owned(), Verdict::Pass)));
        let digit = score(E::Similarity, "\"stars: 2\"").map(|x| (x.score, x.verdict));
        assert_eq!(digit, Ok((Some(2.0), Verdict::Fail)));
        assert!(matches!(score(E::Relevance, "\"<S2>4</S2>\""), Err(Error::NotAnObject { found: "string" })));
    }
}
