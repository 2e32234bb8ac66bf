//! Judge replies to evaluations, and evaluations to the reference result records.

use serde_json::{Map, Number, Value};

use crate::error::{Error, Result};
use crate::evaluation::{AzureKey, AzureLayout, Evaluation, JudgeReply, ScoreForm};
use crate::extract::json::{self as json_answer, Parsed};
use crate::extract::{number, tags};
use crate::flatten;
use crate::py;
use crate::verdict::{Direction, Threshold, Verdict, verdict};

use super::evaluator::AzureEvaluator;

use AzureEvaluator as E;

impl AzureEvaluator {
    /// Reads the judge's reply for one call.
    pub fn score(self, threshold: &Threshold, reply: &JudgeReply) -> Result<Evaluation> {
        let content = reply.content_str();
        crate::extract::check_answer_size(content)?;
        let t = threshold.value();
        let mut e = Evaluation {
            name: self.result_key().to_owned(),
            threshold: Some(threshold.clone()),
            ..Evaluation::default()
        };
        match self {
            E::Coherence | E::Fluency | E::Groundedness | E::Retrieval => {
                let x = tags::extract(content, tags::DigitRange::ONE_TO_FIVE);
                e.score = x.score;
                e.reason = x.reason;
                e.problem = x.score_problem.map(|p| p.to_string());
                e.verdict = verdict(e.score, t, Direction::Higher);
            }
            E::Similarity => {
                if content.is_empty() {
                    e.problem = Some(Error::EmptyAnswer.to_string());
                } else {
                    e.score = Some(number::score(content)?);
                }
                e.verdict = verdict(e.score, t, Direction::Higher);
            }
            E::ResponseCompleteness => {
                let (score, reason) = match json_answer::parse_answer(content) {
                    Ok(Parsed::Object(map)) if content.trim_start().starts_with('{') => {
                        let score = map.get("score").map(|v| json_answer::score_value("score", v)).transpose()?;
                        let reason =
                            map.get("reason").or_else(|| map.get("explanation")).map(py::str_of).unwrap_or_default();
                        (score.flatten(), reason)
                    }
                    _ => {
                        let x = tags::extract(content, tags::DigitRange::ONE_TO_FIVE);
                        (x.score, x.reason)
                    }
                };
                let score = score.ok_or(Error::NanToInteger)?;
                e.score = Some(score.trunc());
                e.score_form = ScoreForm::Int;
                e.reason = reason;
                e.verdict = verdict(Some(score), t, Direction::Higher);
            }
            E::Relevance => {
                let map = object_answer(content)?;
                e.score = match map.get("score") {
                    None => None,
                    // The reference passes an infinite score; here it is no score (unknown).
                    Some(v) => Some(strict_float("score", v)?).filter(|s| s.is_finite()),
                };
                if e.score.is_none() {
                    let problem = match map.get("score") {
                        None => Error::MissingField { field: "score".to_owned() },
                        Some(v) => json_answer::unusable_score("score", v),
                    };
                    e.problem = Some(problem.to_string());
                }
                e.reason = required_str(&map, "explanation")?;
                e.verdict = verdict(e.score, t, Direction::Higher);
            }
            E::IntentResolution => {
                let map = object_answer(content)?;
                let raw = map.get("score");
                let score = checked_range(raw, 1.0, 5.0)?;
                e.score = Some(score);
                e.reason = required_str(&map, "explanation")?;
                e.verdict = pass_fail(score >= t);
            }
            E::ToolCallAccuracy => {
                let map = object_answer(content)?;
                let raw = map.get("tool_calls_success_level");
                if !raw.is_some_and(flatten::py_truthy) {
                    return Err(out_of_range(raw, 1, 5));
                }
                let score = checked_range(raw, 1.0, 5.0)?;
                e.score = Some(score);
                e.reason = optional_str(&map, "chain_of_thought");
                e.details = Some(map.get("details").cloned().unwrap_or(Value::Object(Map::new())));
                e.verdict = pass_fail(score >= t);
            }
            E::TaskAdherence => {
                let map = object_answer(content)?;
                let flagged = map.get("flagged").ok_or_else(|| Error::MissingField { field: "flagged".to_owned() })?;
                let flagged = flatten::py_truthy(flagged);
                e.score = Some(if flagged { 0.0 } else { 1.0 });
                e.reason = optional_str(&map, "reasoning");
                e.details = map.get("details").cloned();
                e.verdict = pass_fail(!flagged);
            }
            E::TaskCompletion => {
                let map = object_answer(content)?;
                let success = map.get("success").ok_or_else(|| Error::MissingField { field: "success".to_owned() })?;
                let (score, form) = match success {
                    Value::String(s) => (if s.to_uppercase() == "TRUE" { 1.0 } else { 0.0 }, ScoreForm::Int),
                    Value::Bool(b) => (if *b { 1.0 } else { 0.0 }, ScoreForm::Bool),
                    Value::Number(n) => (n.as_f64().unwrap_or(f64::NAN), number_form(n)),
                    other => {
                        return Err(Error::ScoreNotNumeric { field: "success".to_owned(), value: py::repr_of(other) });
                    }
                };
                e.score = Some(score);
                e.score_form = form;
                e.reason = optional_str(&map, "explanation");
                e.details = map.get("details").cloned();
                e.verdict = pass_fail(score == 1.0);
            }
            E::ToolSelection | E::ToolInputAccuracy => {
                let map = object_answer(content)?;
                let field = if self == E::ToolSelection { "score" } else { "result" };
                let raw = map.get(field).cloned().unwrap_or(Value::Null);
                let score = match &raw {
                    Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
                    Value::Number(n) => n.as_f64().filter(|x| *x == 0.0 || *x == 1.0),
                    _ => None,
                }
                .ok_or_else(|| Error::ScoreNotAllowed { value: py::str_of(&raw), allowed: "[0, 1]".to_owned() })?;
                e.score = Some(score);
                e.score_form = match (&raw, self) {
                    (_, E::ToolSelection) => ScoreForm::Int,
                    (Value::Bool(_), _) => ScoreForm::Bool,
                    (Value::Number(n), _) => number_form(n),
                    _ => ScoreForm::Float,
                };
                e.reason =
                    optional_str(&map, if self == E::ToolSelection { "explanation" } else { "chain_of_thought" });
                let mut details = map.get("details").cloned().unwrap_or(Value::Object(Map::new()));
                if let Value::Object(d) = &mut details {
                    if self == E::ToolSelection && !d.is_empty() {
                        let correct = count(d, "correct_tool_selections");
                        let wrong = count(d, "wrong_tool_selections");
                        let acc =
                            if correct + wrong == 0.0 { 100.0 } else { round2(correct / (correct + wrong) * 100.0) };
                        d.insert("tool_selection_accuracy".to_owned(), crate::evaluation::float_value(acc));
                    }
                    if self == E::ToolInputAccuracy {
                        let total = count(d, "total_parameters_passed");
                        let correct = count(d, "correct_parameters_passed");
                        let acc = if total == 0.0 { 100.0 } else { round2(correct / total * 100.0) };
                        d.insert("parameter_extraction_accuracy".to_owned(), crate::evaluation::float_value(acc));
                    }
                    e.properties = d.clone();
                }
                e.details = Some(details);
                e.verdict = pass_fail(score == 1.0);
            }
            E::ToolOutputUtilization => {
                let map = object_answer(content)?;
                let label = match map.get("label") {
                    None => "fail".to_owned(),
                    Some(Value::String(s)) => s.to_lowercase(),
                    Some(other) => {
                        return Err(Error::UnknownLabel {
                            answer: py::str_of(other),
                            expected: "pass/fail".to_owned(),
                        });
                    }
                };
                let score = if label == "pass" { 1.0 } else { 0.0 };
                let mut reason = optional_str(&map, "reason");
                if let Some(Value::Array(faults)) = map.get("faulty_details").filter(|v| flatten::py_truthy(v)) {
                    let items: Vec<String> = faults.iter().map(py::str_of).collect();
                    reason.push_str(" Issues found: ");
                    reason.push_str(&items.join("; "));
                }
                e.score = Some(score);
                e.reason = reason;
                e.label = Some(label);
                e.verdict = pass_fail(score >= t);
            }
            E::ToolSuccess | E::ToolCallSuccess => {
                let map = object_answer(content)?;
                let success = match map.get("success") {
                    Some(Value::String(s)) => s.to_uppercase() == "TRUE",
                    Some(other) => flatten::py_truthy(other),
                    None => return Err(Error::MissingField { field: "success".to_owned() }),
                };
                let score = if success { 1.0 } else { 0.0 };
                e.score = Some(score);
                let explanation = optional_str(&map, "explanation");
                let details = map.get("details").map(py::str_of).unwrap_or_default();
                e.reason = format!("{explanation} {details}");
                e.details = map.get("details").cloned();
                e.verdict = pass_fail(score >= t);
            }
        }
        Ok(e.with_reply(reply))
    }

    /// The reference result dictionary of one evaluation.
    pub fn record(self, evaluation: &Evaluation, reply_content_empty: bool) -> Map<String, Value> {
        if evaluation.verdict == Verdict::NotApplicable {
            return evaluation.to_azure_not_applicable();
        }
        if reply_content_empty && self.is_base() {
            let layout = AzureLayout {
                keys: vec![AzureKey::Score, AzureKey::GptScore, AzureKey::Result, AzureKey::Threshold],
                metadata: false,
                contract: crate::contract::Contract::V1_13,
            };
            return evaluation.to_azure(&layout);
        }
        evaluation.to_azure(&self.layout())
    }
}

fn object_answer(content: &str) -> Result<Map<String, Value>> {
    json_answer::parse_object(content)
}

fn strict_float(field: &str, value: &Value) -> Result<f64> {
    match json_answer::score_value(field, value)? {
        Some(f) => Ok(f),
        None if value.is_null() => Err(Error::ScoreNotNumeric { field: field.to_owned(), value: "None".to_owned() }),
        None => Ok(f64::NAN),
    }
}

fn out_of_range(raw: Option<&Value>, min: i64, max: i64) -> Error {
    Error::ScoreOutOfRange {
        value: raw.map(py::str_of).unwrap_or_else(|| "nan".to_owned()),
        min: min.to_string(),
        max: max.to_string(),
    }
}

/// The reference's `check_score_is_valid`: `float()`-able and within range.
fn checked_range(raw: Option<&Value>, min: f64, max: f64) -> Result<f64> {
    let fail = || out_of_range(raw, min as i64, max as i64);
    let value = raw.ok_or_else(fail)?;
    let score = json_answer::score_value("score", value).map_err(|_| fail())?.ok_or_else(fail)?;
    if (min..=max).contains(&score) { Ok(score) } else { Err(fail()) }
}

fn required_str(map: &Map<String, Value>, key: &str) -> Result<String> {
    map.get(key).map(py::str_of).ok_or_else(|| Error::MissingField { field: key.to_owned() })
}

fn optional_str(map: &Map<String, Value>, key: &str) -> String {
    map.get(key).map(py::str_of).unwrap_or_default()
}

fn pass_fail(pass: bool) -> Verdict {
    if pass { Verdict::Pass } else { Verdict::Fail }
}

fn number_form(n: &Number) -> ScoreForm {
    if n.is_f64() { ScoreForm::Float } else { ScoreForm::Int }
}

fn count(map: &Map<String, Value>, key: &str) -> f64 {
    map.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

/// Python's `round(x, 2)` for the values accuracies take.
fn round2(x: f64) -> f64 {
    let scaled = x * 100.0;
    let r = scaled.round();
    let r = if (scaled - scaled.trunc()).abs() == 0.5 && r % 2.0 != 0.0 { r - scaled.signum() } else { r };
    r / 100.0
}
