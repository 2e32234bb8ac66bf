//! Call arguments to judge calls: which prompt, rendered with which inputs, per turn.

use serde_json::{Map, Value};

use crate::builtin::builtin_prompt_for;
use crate::contract::Contract;
use crate::conversation::conversation_turns;
use crate::error::{Error, Result};
use crate::flatten::{
    self, RefVersion, filter_to_used_tools, format_tool_calls, parse_tool_calls, reformat_agent_response,
    reformat_conversation_history, reformat_tool_definitions, simplify_messages, tool_call_names,
};
use crate::py;

use super::evaluator::AzureEvaluator;

use AzureEvaluator as E;

impl AzureEvaluator {
    /// Turns call arguments into the judge calls to make (one per turn).
    pub fn prepare(self, kwargs: &Map<String, Value>, version: RefVersion) -> Result<Prepared> {
        let hoisted;
        let kwargs = match (version, self.hoist_messages(kwargs)) {
            (RefVersion::V1_13_3, _) | (_, None) => kwargs,
            (_, Some(k)) => {
                hoisted = k;
                &hoisted
            }
        };
        let given = |k: &str| kwargs.get(k).filter(|v| !v.is_null());
        if version != RefVersion::V1_13_3
            && let Some(response) = given("response")
            && is_intermediate_response(response)
        {
            return Ok(Prepared::NotApplicable(INTERMEDIATE.to_owned()));
        }
        if let Some(conversation) = given("conversation") {
            let Some(turn_inputs) = self.conversation_inputs_for(version) else {
                return Err(Error::input(
                    "conversation",
                    format!("{} does not accept a conversation", self.class_name()),
                ));
            };
            if let Some(single) = self.required_inputs().iter().find(|k| given(k).is_some()) {
                return Err(Error::input(
                    "conversation",
                    format!("both a conversation and `{single}` were given; give one or the other"),
                ));
            }
            let turns = conversation_turns(conversation, turn_inputs)?;
            let calls = turns.iter().map(|turn| self.prepare_turn(turn, true, version)).collect::<Result<Vec<_>>>()?;
            return Ok(Prepared::Calls(calls.into_iter().flatten().collect()));
        }
        if let Some(missing) = self.required_inputs().iter().find(|k| given(k).is_none()) {
            return Err(Error::MissingInput {
                field: (*missing).to_owned(),
                message: format!("{} needs `{missing}` (or a conversation)", self.class_name()),
            });
        }
        match self.prepare_turn(kwargs, false, version)? {
            Some(call) => Ok(Prepared::Calls(vec![call])),
            None => Ok(Prepared::NotApplicable(NO_TOOL_CALLS.to_owned())),
        }
    }

    /// Prepares one turn; `None` when the evaluation does not apply.
    fn prepare_turn(
        self,
        kw: &Map<String, Value>,
        from_conversation: bool,
        version: RefVersion,
    ) -> Result<Option<JudgeCall>> {
        let get = |k: &str| kw.get(k).cloned().unwrap_or(Value::Null);
        let mut inputs = Map::new();
        let mut put = |k: &str, v: Value| {
            inputs.insert(k.to_owned(), v);
        };
        let flatten_query = |q: Value, system: bool, tools: bool| {
            if q.is_string() { q } else { reformat_conversation_history(&q, system, tools, version) }
        };
        let flatten_response = |r: Value, tools: bool| {
            if r.is_string() { r } else { reformat_agent_response(&r, tools, version) }
        };
        let prompt = match self {
            E::Coherence | E::Fluency | E::Retrieval | E::Similarity | E::ResponseCompleteness => {
                let names: &[&str] = match self {
                    E::Coherence => &["query", "response"],
                    E::Fluency => &["response"],
                    E::Retrieval => &["query", "context"],
                    E::Similarity => &["query", "response", "ground_truth"],
                    _ => &["response", "ground_truth"],
                };
                for n in names {
                    put(n, get(n));
                }
                match self {
                    E::Coherence => "coherence.prompty",
                    E::Fluency => "fluency.prompty",
                    E::Retrieval => "retrieval.prompty",
                    E::Similarity => "similarity.prompty",
                    _ => "response_completeness.prompty",
                }
            }
            E::Groundedness => {
                let query = get("query");
                let context = get("context");
                if !from_conversation && !query.is_null() {
                    // 1.13.3 drops tool messages when there is a context; 1.18.10 keeps them.
                    let drop_tools = version == RefVersion::V1_13_3 && flatten::py_truthy(&context);
                    put("query", simplify_messages(&query, true, drop_tools));
                    put("response", simplify_messages(&get("response"), true, drop_tools));
                    put("context", context);
                    "groundedness_with_query.prompty"
                } else if from_conversation {
                    put("query", query);
                    put("response", get("response"));
                    put("context", context);
                    "groundedness_without_query.prompty"
                } else {
                    put("tool_definitions", get("tool_definitions"));
                    put("context", context);
                    put("response", get("response"));
                    put("query", Value::Null);
                    "groundedness_without_query.prompty"
                }
            }
            E::Relevance => {
                put("query", flatten_query(get("query"), false, false));
                put("response", flatten_response(get("response"), false));
                "relevance.prompty"
            }
            E::IntentResolution => {
                put("tool_definitions", get("tool_definitions"));
                put("query", flatten_query(get("query"), false, false));
                put("response", flatten_response(get("response"), false));
                "intent_resolution.prompty"
            }
            E::TaskAdherence => {
                put("system_message", Value::String(String::new()));
                put("query", flatten_query(get("query"), true, false));
                put("response", flatten_response(get("response"), true));
                put("tool_calls", Value::String(String::new()));
                "task_adherence.prompty"
            }
            E::TaskCompletion => {
                let defs = get("tool_definitions");
                let defs = if defs.is_null() { defs } else { reformat_tool_definitions(&defs) };
                put("tool_definitions", defs);
                put("query", flatten_query(get("query"), true, false));
                put("response", flatten_response(get("response"), true));
                "task_completion.prompty"
            }
            E::ToolOutputUtilization => {
                let response = get("response");
                let used = filter_to_used_tools(&get("tool_definitions"), &[&response]);
                put("tool_definitions", reformat_tool_definitions(&used));
                put("query", flatten_query(get("query"), true, true));
                put("response", flatten_response(response, true));
                "tool_output_utilization.prompty"
            }
            E::ToolSuccess | E::ToolCallSuccess => {
                let response = get("response");
                if parse_tool_calls(&response).is_empty() {
                    return Ok(None);
                }
                let used = filter_to_used_tools(&get("tool_definitions"), &[&response]);
                put("tool_definitions", reformat_tool_definitions(&used));
                put("response", response.clone());
                if self == E::ToolCallSuccess {
                    put("tool_calls", format_tool_calls(&response, RefVersion::V1_18_10ToolCallSuccess));
                    "tool_call_success.prompty"
                } else {
                    put("tool_calls", format_tool_calls(&response, version));
                    "tool_success.prompty"
                }
            }
            E::ToolInputAccuracy => {
                let response = get("response");
                if parse_tool_calls(&response).is_empty() {
                    return Ok(None);
                }
                put("query", flatten_query(get("query"), true, true));
                let calls = match version {
                    RefVersion::V1_13_3 => {
                        flatten::agent_response_lines(&response, true, version).map(Value::Array).unwrap_or(response)
                    }
                    RefVersion::V1_18_10 | RefVersion::V1_18_10ToolCallSuccess => flatten_response(response, true),
                };
                put("tool_calls", calls);
                put("tool_definitions", get("tool_definitions"));
                "tool_input_accuracy.prompty"
            }
            E::ToolSelection => {
                let Some(calls) = tool_calls_of(kw)? else {
                    return Ok(None);
                };
                put("query", flatten_query(get("query"), true, true));
                put("tool_calls", Value::Array(tool_call_names(&calls)));
                put("tool_definitions", get("tool_definitions"));
                "tool_selection.prompty"
            }
            E::ToolCallAccuracy => {
                let Some(calls) = tool_calls_of(kw)? else {
                    return Ok(None);
                };
                for call in &calls {
                    if call.as_object().is_some_and(|c| !c.contains_key("arguments")) {
                        return Err(Error::input(
                            "tool_calls",
                            format!("Tool call missing 'arguments' field: {}", py::str_of(call)),
                        ));
                    }
                }
                let defs = match get("tool_definitions") {
                    Value::Array(items) => items,
                    Value::Null => Vec::new(),
                    other if flatten::py_truthy(&other) => vec![other],
                    _ => Vec::new(),
                };
                check_definitions(&calls, &defs)?;
                put("query", get("query"));
                put("tool_calls", Value::Array(calls));
                put("tool_definitions", Value::Array(defs));
                "tool_call_accuracy.prompty"
            }
        };
        Ok(Some(JudgeCall { prompt, inputs, contract: version.into() }))
    }
}

const NO_TOOL_CALLS: &str = "No tool calls found in response or provided tool_calls.";
const INTERMEDIATE: &str = "Intermediate response. Please provide the agent's final response for evaluation.";

/// 1.18.10's intermediate-response check: the response is a message list whose last
/// message's last content item is a `function_call` or an `mcp_approval_request`.
fn is_intermediate_response(response: &Value) -> bool {
    let Some(last) = response.as_array().and_then(|m| m.last()) else { return false };
    let item = last.get("content").and_then(Value::as_array).and_then(|c| c.last());
    matches!(item.and_then(|i| i.get("type")).and_then(Value::as_str), Some("function_call" | "mcp_approval_request"))
}

impl AzureEvaluator {
    /// 1.18.10's `messages=[...]` argument: fluency, relevance, response_completeness,
    /// retrieval and similarity move it, with `context` and `tool_definitions`, into a
    /// conversation and stamp a top-level `ground_truth` onto every assistant message.
    /// `None` when there is nothing to move.
    fn hoist_messages(self, kwargs: &Map<String, Value>) -> Option<Map<String, Value>> {
        if !matches!(self, E::Fluency | E::Relevance | E::ResponseCompleteness | E::Retrieval | E::Similarity) {
            return None;
        }
        let messages = kwargs.get("messages").filter(|v| !v.is_null())?;
        if kwargs.get("conversation").is_some_and(|c| !c.is_null()) {
            return None;
        }
        let mut messages = messages.clone();
        if let (Some(gt), Value::Array(items)) = (kwargs.get("ground_truth").filter(|v| !v.is_null()), &mut messages) {
            for m in items.iter_mut().filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant")) {
                if let Value::Object(o) = m {
                    o.insert("ground_truth".to_owned(), gt.clone());
                }
            }
        }
        let mut conversation = Map::new();
        conversation.insert("messages".to_owned(), messages);
        for k in ["context", "tool_definitions"] {
            if let Some(v) = kwargs.get(k).filter(|v| !v.is_null()) {
                conversation.insert(k.to_owned(), v.clone());
            }
        }
        let mut out: Map<String, Value> = kwargs
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "messages" | "context" | "tool_definitions" | "ground_truth"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.insert("conversation".to_owned(), Value::Object(conversation));
        Some(out)
    }

    /// Which per-turn inputs a conversation gives, in a release: 1.18.10 also splits
    /// conversations for response_completeness and similarity (with each assistant
    /// message's `ground_truth`).
    fn conversation_inputs_for(self, version: RefVersion) -> Option<crate::conversation::TurnInputs> {
        let with_truth = |query: bool| crate::conversation::TurnInputs {
            query,
            response: true,
            context: false,
            ground_truth: true,
            last_turn_only: false,
            response_context: true,
        };
        match (self, version) {
            (_, RefVersion::V1_13_3) => self.conversation_inputs(),
            (E::ResponseCompleteness, _) => Some(with_truth(false)),
            (E::Similarity, _) => Some(with_truth(true)),
            _ => self
                .conversation_inputs()
                .map(|t| crate::conversation::TurnInputs { response_context: t.response, ..t }),
        }
    }
}

/// What [`AzureEvaluator::prepare`] produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Prepared {
    /// The judge calls to make, one per turn.
    Calls(Vec<JudgeCall>),
    /// The evaluation does not apply; the reason says why.
    NotApplicable(String),
}

/// One judge call: which prompt, rendered with which inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeCall {
    /// The prompt file as the reference ships it (`coherence.prompty`).
    pub prompt: &'static str,
    /// The inputs, exactly as the reference passes them to the prompt.
    pub inputs: Map<String, Value>,
    /// The contract whose release ships the prompt.
    pub contract: Contract,
}

impl JudgeCall {
    /// The corpus file stem of the prompt (`1.0.1__coherence__coherence`).
    pub fn corpus_file(&self) -> Option<&'static str> {
        builtin_prompt_for(self.prompt, self.contract).map(|p| p.file)
    }

    /// The inputs resolved against the prompt's declared inputs: declared
    /// order, given values (even `null`) first, then defaults; undeclared
    /// inputs dropped.
    pub fn resolved_inputs(&self) -> Map<String, Value> {
        let Some(prompt) = builtin_prompt_for(self.prompt, self.contract) else {
            return self.inputs.clone();
        };
        let mut out = Map::new();
        for (name, default) in prompt.declared_inputs() {
            if let Some(v) = self.inputs.get(&name) {
                out.insert(name, v.clone());
            } else if let Some(d) = default {
                out.insert(name, d);
            }
        }
        out
    }

    /// The reference's `sample_input`: a JSON list with one user message
    /// whose content is the JSON of the resolved inputs.
    pub fn sample_input(&self) -> String {
        let content = py::json_dumps(&Value::Object(self.resolved_inputs()));
        format!("[{{\"role\": \"user\", \"content\": {}}}]", py::json_dumps_str(&content))
    }
}

fn tool_calls_of(kw: &Map<String, Value>) -> Result<Option<Vec<Value>>> {
    let mut calls = kw.get("tool_calls").cloned().unwrap_or(Value::Null);
    if let Some(response) = kw.get("response").filter(|r| flatten::py_truthy(r)) {
        let parsed = parse_tool_calls(response);
        if !parsed.is_empty() {
            calls = Value::Array(parsed);
        }
    }
    if !flatten::py_truthy(&calls) {
        return Ok(None);
    }
    Ok(Some(match calls {
        Value::Array(items) => items,
        other => vec![other],
    }))
}

fn check_definitions(calls: &[Value], defs: &[Value]) -> Result<()> {
    if defs.is_empty() {
        return Err(Error::input("tool_definitions", "Tool definitions must be provided."));
    }
    for call in calls {
        if call.get("type").and_then(Value::as_str) != Some("tool_call") {
            continue;
        }
        let name = call.get("name");
        let defined = defs.iter().any(|d| d.get("name") == name);
        if !defined {
            return Err(Error::input("tool_definitions", "Tool definitions for all tool calls must be provided."));
        }
    }
    Ok(())
}
