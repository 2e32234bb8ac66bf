//! Multi-turn conversations: splitting `conversation={messages, context}`
//! into per-turn inputs, and aggregating per-turn results.
//!
//! Splitting follows azure-ai-evaluation 1.13.3:
//!
//! * user messages are queries, assistant messages responses; other roles
//!   are ignored; the two lists are paired in order and unmatched extras are
//!   dropped;
//! * `query` and `response` are the messages' `content`, as they are;
//! * `ground_truth` is the assistant message's `ground_truth` (or `""`);
//! * `context` is Python's `str()` of a dict holding `global_context` (the
//!   conversation's `context`), `query_context` (the user message's
//!   `context`, only for evaluators that take a query) and
//!   `response_context` (the assistant message's `context`), e.g.
//!   `{'global_context': "Dr. Lee's office hours...", 'response_context':
//!   'Staff directory.'}`.
//!
//! Aggregation: zero turns give `{}`, one turn is returned as is; otherwise
//! every key whose per-turn values are all numbers (booleans count) gets
//! their mean (or sum/max/min) at the top level, in first-seen key order,
//! and `evaluation_per_turn` lists every key's values.

use serde_json::{Map, Value};

use crate::contract::Contract;
use crate::error::{Error, Result};
use crate::evaluation::float_value;
use crate::py;

/// Which per-turn inputs an evaluator takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TurnInputs {
    /// The user message content, as `query`.
    pub query: bool,
    /// The assistant message content, as `response`.
    pub response: bool,
    /// The context dict, as `context`.
    pub context: bool,
    /// The assistant message's `ground_truth`.
    pub ground_truth: bool,
    /// Only evaluate the last user/assistant pair.
    pub last_turn_only: bool,
    /// Put the assistant message's `context` into the context dict as
    /// `response_context` (1.13.3 always does; 1.18.10 only for evaluators that take
    /// the response).
    pub response_context: bool,
}

/// Splits a conversation into per-turn input maps.
pub fn conversation_turns(conversation: &Value, inputs: TurnInputs) -> Result<Vec<Map<String, Value>>> {
    let Some(conv) = conversation.as_object() else {
        return Err(Error::input("conversation", "must be an object with `messages`"));
    };
    let Some(messages) = conv.get("messages") else {
        return Err(Error::MissingInput {
            field: "conversation.messages".to_owned(),
            message: "a conversation needs a `messages` list".to_owned(),
        });
    };
    let Some(messages) = messages.as_array() else {
        return Err(Error::input("conversation.messages", "must be a list of messages"));
    };
    let messages: &[Value] = if inputs.last_turn_only {
        messages.get(messages.len().saturating_sub(2)..).unwrap_or_default()
    } else {
        messages
    };
    let by_role = |role: &str| -> Vec<&Map<String, Value>> {
        messages
            .iter()
            .filter_map(Value::as_object)
            .filter(|m| m.get("role").and_then(Value::as_str) == Some(role))
            .collect()
    };
    let users = by_role("user");
    let assistants = by_role("assistant");
    let global = conv.get("context");
    let mut turns = Vec::new();
    for (user, assistant) in users.iter().zip(assistants.iter()) {
        let mut turn = Map::new();
        let content = |m: &Map<String, Value>| m.get("content").cloned().unwrap_or(Value::Null);
        if inputs.query {
            turn.insert("query".to_owned(), content(user));
        }
        if inputs.response {
            turn.insert("response".to_owned(), content(assistant));
        }
        if inputs.ground_truth {
            turn.insert(
                "ground_truth".to_owned(),
                assistant.get("ground_truth").cloned().unwrap_or(Value::String(String::new())),
            );
        }
        if inputs.context {
            let mut ctx = Map::new();
            if let Some(g) = global {
                ctx.insert("global_context".to_owned(), g.clone());
            }
            if let Some(q) = user.get("context").filter(|_| inputs.query) {
                ctx.insert("query_context".to_owned(), q.clone());
            }
            if let Some(r) = assistant.get("context").filter(|_| inputs.response_context) {
                ctx.insert("response_context".to_owned(), r.clone());
            }
            turn.insert("context".to_owned(), Value::String(py::str_of(&Value::Object(ctx))));
        }
        turns.push(turn);
    }
    Ok(turns)
}

/// How numeric per-turn values are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Aggregation {
    /// `sum / len` (the default; NaN propagates).
    #[default]
    Mean,
    /// The sum.
    Sum,
    /// The largest value.
    Max,
    /// The smallest value.
    Min,
}

/// A per-turn value as a number, if it is one (booleans count; the strings
/// `NaN`/`Infinity`/`-Infinity` stand for the non-finite floats).
fn numeric(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

fn combine(values: &[f64], how: Aggregation) -> f64 {
    match how {
        Aggregation::Mean => values.iter().sum::<f64>() / values.len() as f64,
        Aggregation::Sum => values.iter().sum(),
        Aggregation::Max => {
            values.iter().copied().fold(f64::NEG_INFINITY, |a, b| if b > a || b.is_nan() { b } else { a })
        }
        Aggregation::Min => values.iter().copied().fold(f64::INFINITY, |a, b| if b < a || b.is_nan() { b } else { a }),
    }
}

/// Combines the per-turn result dictionaries of one conversation as the release of
/// `contract` does.
///
/// * 1.13.3: [`aggregate`] with the mean.
/// * 1.18.10: every key whose values are all numbers (booleans count) gets their mean,
///   and every other key the **last** turn's value (not recomputed: `{k}_result` is the
///   last turn's label even when the mean score would pass, and a key where one turn has
///   `null`, a skipped turn, falls back to the last turn's value), except keys ending in
///   `_total_tokens`, `_prompt_tokens`, `_completion_tokens`, `_finish_reason`,
///   `_sample_input`, `_sample_output`, `_model` or `_details`; keys stay in first-seen
///   order, and `evaluation_per_turn` lists every key's values.
pub fn aggregate_turns(per_turn: Vec<Map<String, Value>>, contract: Contract) -> Map<String, Value> {
    if contract == Contract::V1_13 || per_turn.len() <= 1 {
        return aggregate(per_turn, Aggregation::Mean);
    }
    const NOT_COPIED: &[&str] = &[
        "_total_tokens",
        "_prompt_tokens",
        "_completion_tokens",
        "_finish_reason",
        "_sample_input",
        "_sample_output",
        "_model",
        "_details",
    ];
    // Texts the reference keeps as text, even when one reads "NaN".
    const TEXTS: &[&str] = &["_reason", "_result", "_status"];
    let mut lists: Map<String, Value> = Map::new();
    for result in &per_turn {
        for (k, v) in result {
            match lists.get_mut(k) {
                Some(Value::Array(items)) => items.push(v.clone()),
                _ => {
                    lists.insert(k.clone(), Value::Array(vec![v.clone()]));
                }
            }
        }
    }
    let last = per_turn.last().cloned().unwrap_or_default();
    let mut out = Map::new();
    for (k, values) in &lists {
        let Some(items) = values.as_array() else { continue };
        let text_key = TEXTS.iter().any(|s| k.ends_with(s));
        let nums: Option<Vec<f64>> = if text_key { None } else { items.iter().map(numeric).collect() };
        match nums.filter(|n| !n.is_empty() && n.len() == per_turn.len()) {
            Some(nums) => {
                out.insert(k.clone(), float_value(combine(&nums, Aggregation::Mean)));
            }
            None if NOT_COPIED.iter().any(|s| k.ends_with(s)) => {}
            None => {
                if let Some(v) = last.get(k) {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
    }
    out.insert("evaluation_per_turn".to_owned(), Value::Object(lists));
    out
}

/// Combines per-turn results (see the module docs).
pub fn aggregate(per_turn: Vec<Map<String, Value>>, how: Aggregation) -> Map<String, Value> {
    if per_turn.len() <= 1 {
        return per_turn.into_iter().next().unwrap_or_default();
    }
    let mut lists: Map<String, Value> = Map::new();
    for result in &per_turn {
        for (k, v) in result {
            match lists.get_mut(k) {
                Some(Value::Array(items)) => items.push(v.clone()),
                _ => {
                    lists.insert(k.clone(), Value::Array(vec![v.clone()]));
                }
            }
        }
    }
    let mut out = Map::new();
    for (k, values) in &lists {
        let Some(items) = values.as_array() else { continue };
        let nums: Option<Vec<f64>> = items.iter().map(numeric).collect();
        if let Some(nums) = nums.filter(|n| !n.is_empty()) {
            out.insert(k.clone(), float_value(combine(&nums, how)));
        }
    }
    out.insert("evaluation_per_turn".to_owned(), Value::Object(lists));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zero_and_one_turn() {
        assert_eq!(aggregate(Vec::new(), Aggregation::Mean), Map::new());
        let one = json!({"a": 1, "b": "x"}).as_object().cloned().unwrap_or_default();
        assert_eq!(aggregate(vec![one.clone()], Aggregation::Mean), one);
    }

    #[test]
    fn mean_of_numbers_and_bools() {
        let t1 = json!({"s": 4.0, "ok": true, "r": "a", "t": 3});
        let t2 = json!({"s": 2.0, "ok": false, "r": "b", "t": 3});
        let turns = vec![t1.as_object().cloned().unwrap_or_default(), t2.as_object().cloned().unwrap_or_default()];
        let out = aggregate(turns, Aggregation::Mean);
        assert_eq!(
            Value::Object(out),
            json!({
                "s": 3.0, "ok": 0.5, "t": 3.0,
                "evaluation_per_turn": {
                    "s": [4.0, 2.0], "ok": [true, false], "r": ["a", "b"], "t": [3, 3]
                }
            })
        );
    }

    #[test]
    fn the_1_18_aggregate_keeps_the_last_turns_texts_and_falls_back_on_a_skipped_turn() {
        let t1 = json!({"c": 4.0, "c_passed": true, "c_result": "pass", "c_reason": "NaN", "c_properties": {"a": 1}});
        let t2 =
            json!({"c": null, "c_passed": null, "c_result": "not_applicable", "c_reason": "NaN", "c_properties": null});
        let turns = vec![t1.as_object().cloned().unwrap_or_default(), t2.as_object().cloned().unwrap_or_default()];
        let out = aggregate_turns(turns, Contract::V1_18);
        assert_eq!(out.get("c"), Some(&Value::Null));
        assert_eq!(out.get("c_passed"), Some(&Value::Null));
        assert_eq!(out.get("c_result"), Some(&json!("not_applicable")));
        assert_eq!(out.get("c_reason"), Some(&json!("NaN")));
        assert_eq!(out.get("c_properties"), Some(&Value::Null));
        let t1 = json!({"c": 4.0, "c_passed": true, "c_result": "pass", "c_model": "m"});
        let t2 = json!({"c": 2.0, "c_passed": false, "c_result": "fail", "c_model": "m"});
        let turns = vec![t1.as_object().cloned().unwrap_or_default(), t2.as_object().cloned().unwrap_or_default()];
        let out = aggregate_turns(turns, Contract::V1_18);
        let keys: Vec<&str> = out.keys().map(String::as_str).collect();
        assert_eq!(keys, ["c", "c_passed", "c_result", "evaluation_per_turn"]);
        assert_eq!((out.get("c"), out.get("c_passed")), (Some(&json!(3.0)), Some(&json!(0.5))));
    }

    #[test]
    fn nan_propagates() {
        let t1 = json!({"s": "NaN"});
        let t2 = json!({"s": 2.0});
        let turns = vec![t1.as_object().cloned().unwrap_or_default(), t2.as_object().cloned().unwrap_or_default()];
        let out = aggregate(turns, Aggregation::Mean);
        assert_eq!(out.get("s"), Some(&json!("NaN")));
    }
}
