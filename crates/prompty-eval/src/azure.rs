//! The LLM-judge evaluators of azure-ai-evaluation 1.13.3, reproduced: how
//! each one turns call arguments into prompt inputs, reads the judge's
//! answer, decides pass/fail and lays out its result dictionary.
//!
//! The flow of one evaluator call:
//!
//! 1. [`AzureEvaluator::prepare`]: call arguments (`query`, `response`,
//!    `conversation`, `tool_definitions`, ...) become one [`JudgeCall`] per
//!    turn: the prompt file and the exact inputs it is rendered with (or a
//!    not-applicable outcome, e.g. no tool calls).
//! 2. The caller renders the prompt and asks the judge model (outside this
//!    crate).
//! 3. [`AzureEvaluator::score`]: the judge's reply becomes an
//!    [`Evaluation`].
//! 4. [`AzureEvaluator::record`] writes the reference key layout, and
//!    [`aggregate`](crate::conversation::aggregate) combines turns.
//!
//! [`run`] does all of it with a callback standing in for steps 2.

use serde_json::{Map, Number, Value};

use crate::config::{EvaluatorConfig, builtin_prompt};
use crate::conversation::{Aggregation, TurnInputs, aggregate, conversation_turns};
use crate::error::{Error, Result};
use crate::evaluation::{AzureKey, AzureLayout, Evaluation, JudgeReply, MissingDetails, ScoreForm};
use crate::extract::json::{self as json_answer, JsonFields, Parsed};
use crate::extract::{AnswerFormat, number, tags};
use crate::flatten::{
    self, RefVersion, filter_to_used_tools, format_tool_calls, parse_tool_calls, reformat_agent_response,
    reformat_conversation_history, reformat_tool_definitions, simplify_messages, tool_call_names,
};
use crate::py;
use crate::verdict::{Direction, ScoreRange, Threshold, Verdict, verdict};

/// One reference evaluator class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AzureEvaluator {
    /// `CoherenceEvaluator`: tag answer, 1-5.
    Coherence,
    /// `FluencyEvaluator`: tag answer, 1-5.
    Fluency,
    /// `GroundednessEvaluator`: tag answer, 1-5; two prompts (with and
    /// without query).
    Groundedness,
    /// `RelevanceEvaluator`: JSON `{explanation, score}`.
    Relevance,
    /// `RetrievalEvaluator`: tag answer, 1-5.
    Retrieval,
    /// `SimilarityEvaluator`: first digit of the answer.
    Similarity,
    /// `ResponseCompletenessEvaluator`: tag answer, score stored as integer.
    ResponseCompleteness,
    /// `IntentResolutionEvaluator`: JSON `{explanation, score}`, 1-5 validated.
    IntentResolution,
    /// `TaskAdherenceEvaluator`: JSON `{reasoning, flagged}`.
    TaskAdherence,
    /// `_TaskCompletionEvaluator`: JSON `{explanation, details, success}`.
    TaskCompletion,
    /// `ToolCallAccuracyEvaluator`: JSON `{chain_of_thought,
    /// tool_calls_success_level, details}`, 1-5 validated.
    ToolCallAccuracy,
    /// `_ToolSelectionEvaluator`: JSON `{explanation, details, score}`, score 0 or 1.
    ToolSelection,
    /// `_ToolInputAccuracyEvaluator`: JSON `{chain_of_thought, details, result}`.
    ToolInputAccuracy,
    /// `_ToolOutputUtilizationEvaluator`: JSON `{faulty_details, reason, label}`.
    ToolOutputUtilization,
    /// `_ToolSuccessEvaluator`: JSON `{explanation, details, success}`.
    ToolSuccess,
}

use AzureEvaluator as E;

impl AzureEvaluator {
    /// Every evaluator.
    pub const ALL: [AzureEvaluator; 15] = [
        E::Coherence,
        E::Fluency,
        E::Groundedness,
        E::Relevance,
        E::Retrieval,
        E::Similarity,
        E::ResponseCompleteness,
        E::IntentResolution,
        E::TaskAdherence,
        E::TaskCompletion,
        E::ToolCallAccuracy,
        E::ToolSelection,
        E::ToolInputAccuracy,
        E::ToolOutputUtilization,
        E::ToolSuccess,
    ];

    /// The result key (`coherence`, `tool_success`, ...).
    pub fn result_key(self) -> &'static str {
        match self {
            E::Coherence => "coherence",
            E::Fluency => "fluency",
            E::Groundedness => "groundedness",
            E::Relevance => "relevance",
            E::Retrieval => "retrieval",
            E::Similarity => "similarity",
            E::ResponseCompleteness => "response_completeness",
            E::IntentResolution => "intent_resolution",
            E::TaskAdherence => "task_adherence",
            E::TaskCompletion => "task_completion",
            E::ToolCallAccuracy => "tool_call_accuracy",
            E::ToolSelection => "tool_selection",
            E::ToolInputAccuracy => "tool_input_accuracy",
            E::ToolOutputUtilization => "tool_output_utilization",
            E::ToolSuccess => "tool_success",
        }
    }

    /// The Python class name.
    pub fn class_name(self) -> &'static str {
        match self {
            E::Coherence => "CoherenceEvaluator",
            E::Fluency => "FluencyEvaluator",
            E::Groundedness => "GroundednessEvaluator",
            E::Relevance => "RelevanceEvaluator",
            E::Retrieval => "RetrievalEvaluator",
            E::Similarity => "SimilarityEvaluator",
            E::ResponseCompleteness => "ResponseCompletenessEvaluator",
            E::IntentResolution => "IntentResolutionEvaluator",
            E::TaskAdherence => "TaskAdherenceEvaluator",
            E::TaskCompletion => "_TaskCompletionEvaluator",
            E::ToolCallAccuracy => "ToolCallAccuracyEvaluator",
            E::ToolSelection => "_ToolSelectionEvaluator",
            E::ToolInputAccuracy => "_ToolInputAccuracyEvaluator",
            E::ToolOutputUtilization => "_ToolOutputUtilizationEvaluator",
            E::ToolSuccess => "_ToolSuccessEvaluator",
        }
    }

    /// Looks an evaluator up by result key or class name (letter case and a
    /// leading `_` are ignored).
    pub fn from_name(name: &str) -> Option<Self> {
        let wanted = name.trim_start_matches('_');
        Self::ALL.into_iter().find(|e| {
            e.result_key().eq_ignore_ascii_case(wanted)
                || e.class_name().trim_start_matches('_').eq_ignore_ascii_case(wanted)
        })
    }

    /// The default threshold.
    pub fn default_threshold(self) -> Threshold {
        match self {
            E::ToolSelection | E::ToolInputAccuracy | E::ToolOutputUtilization | E::ToolSuccess => Threshold::from(1u8),
            _ => Threshold::from(3u8),
        }
    }

    /// Whether the threshold is fixed (the constructor takes none).
    pub fn fixed_threshold(self) -> bool {
        matches!(self, E::ToolInputAccuracy | E::ToolOutputUtilization | E::ToolSuccess)
    }

    /// This evaluator's settings as an [`EvaluatorConfig`].
    pub fn config(self) -> EvaluatorConfig {
        let key = |k: &str| vec![k.to_owned()];
        let mut json = JsonFields::default();
        let mut c = EvaluatorConfig {
            result_key: Some(self.result_key().to_owned()),
            threshold: self.default_threshold(),
            compat: Some(self),
            ..EvaluatorConfig::default()
        };
        match self {
            E::Coherence | E::Fluency | E::Groundedness | E::Retrieval => {
                c.answer = AnswerFormat::Tags;
                c.range = Some(ScoreRange::new(1, 5));
            }
            E::ResponseCompleteness => {
                c.answer = AnswerFormat::Tags;
                c.range = Some(ScoreRange::new(1, 5));
                c.score_form = ScoreForm::Int;
            }
            E::Similarity => {
                c.answer = AnswerFormat::Number;
                c.range = Some(ScoreRange::new(1, 5));
            }
            E::Relevance => {
                json.reason = key("explanation");
                c.range = Some(ScoreRange::new(1, 5));
            }
            E::IntentResolution => {
                json.reason = key("explanation");
                c.range = Some(ScoreRange::new(1, 5));
                c.validate_range = true;
            }
            E::TaskAdherence => {
                c.answer = AnswerFormat::Label;
                json.score = key("flagged");
                json.reason = key("reasoning");
                c.direction = Direction::Equal;
                c.threshold = Threshold::from(1u8);
            }
            E::TaskCompletion => {
                c.answer = AnswerFormat::Label;
                json.score = key("success");
                json.reason = key("explanation");
                json.properties = key("details");
                c.direction = Direction::Equal;
                c.threshold = Threshold::from(1u8);
                c.score_form = ScoreForm::Int;
            }
            E::ToolCallAccuracy => {
                json.score = key("tool_calls_success_level");
                json.reason = key("chain_of_thought");
                json.properties = key("details");
                c.range = Some(ScoreRange::new(1, 5));
                c.validate_range = true;
            }
            E::ToolSelection => {
                json.reason = key("explanation");
                json.properties = key("details");
                c.direction = Direction::Equal;
                c.score_form = ScoreForm::Int;
            }
            E::ToolInputAccuracy => {
                json.score = key("result");
                json.reason = key("chain_of_thought");
                json.properties = key("details");
                c.direction = Direction::Equal;
                c.score_form = ScoreForm::Int;
            }
            E::ToolOutputUtilization => {
                c.answer = AnswerFormat::Label;
                json.score = key("label");
                json.label = key("label");
                json.reason = key("reason");
            }
            E::ToolSuccess => {
                c.answer = AnswerFormat::Label;
                json.score = key("success");
                json.reason = key("explanation");
                json.properties = key("details");
            }
        }
        c.json = json;
        c
    }

    /// The 1.13.3 key layout of this evaluator's result.
    pub fn layout(self) -> AzureLayout {
        use AzureKey as K;
        let obj = K::Details { missing: MissingDetails::EmptyObject };
        let keys = match self {
            E::Coherence | E::Fluency | E::Groundedness | E::Retrieval => {
                return AzureLayout::tagged();
            }
            E::Similarity => return AzureLayout::unreasoned(),
            E::Relevance | E::IntentResolution => vec![K::Score, K::GptScore, K::Result, K::Threshold, K::Reason],
            E::ResponseCompleteness => vec![K::Score, K::Result, K::Threshold, K::Reason],
            E::TaskAdherence => {
                vec![K::Score, K::Result, K::Reason, K::Details { missing: MissingDetails::EmptyString }]
            }
            E::TaskCompletion => vec![K::Score, K::Result, K::Reason, obj],
            E::ToolCallAccuracy => vec![K::Score, K::GptScore, K::Result, K::Threshold, K::Reason, obj],
            E::ToolSelection | E::ToolInputAccuracy => vec![K::Score, K::Result, K::Threshold, K::Reason, obj],
            E::ToolOutputUtilization => vec![K::Score, K::Reason, K::LabelResult, K::Threshold],
            E::ToolSuccess => vec![K::Score, K::Result, K::Threshold, K::Reason],
        };
        AzureLayout { keys, metadata: true }
    }

    fn is_base(self) -> bool {
        matches!(self, E::Coherence | E::Fluency | E::Groundedness | E::Retrieval | E::Similarity)
    }

    fn conversation_inputs(self) -> Option<TurnInputs> {
        let t = |query, response, context| TurnInputs {
            query,
            response,
            context,
            ground_truth: false,
            last_turn_only: false,
        };
        match self {
            E::Coherence | E::Relevance => Some(t(true, true, false)),
            E::Fluency => Some(t(false, true, false)),
            E::Groundedness => Some(t(true, true, true)),
            E::Retrieval => Some(t(true, false, true)),
            _ => None,
        }
    }

    fn required_inputs(self) -> &'static [&'static str] {
        match self {
            E::Coherence | E::Relevance | E::IntentResolution | E::TaskAdherence | E::TaskCompletion => {
                &["query", "response"]
            }
            E::Fluency => &["response"],
            E::Groundedness => &["response", "context"],
            E::Retrieval => &["query", "context"],
            E::Similarity => &["query", "response", "ground_truth"],
            E::ResponseCompleteness => &["response", "ground_truth"],
            E::ToolCallAccuracy | E::ToolSelection => &["query", "tool_definitions"],
            E::ToolInputAccuracy | E::ToolOutputUtilization => &["query", "response", "tool_definitions"],
            E::ToolSuccess => &["response", "tool_definitions"],
        }
    }

    /// Turns call arguments into the judge calls to make (one per turn).
    pub fn prepare(self, kwargs: &Map<String, Value>, version: RefVersion) -> Result<Prepared> {
        let given = |k: &str| kwargs.get(k).filter(|v| !v.is_null());
        if let Some(conversation) = given("conversation") {
            let Some(turn_inputs) = self.conversation_inputs() else {
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
                    let drop_tools = flatten::py_truthy(&context);
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
            E::ToolSuccess => {
                let response = get("response");
                if parse_tool_calls(&response).is_empty() {
                    return Ok(None);
                }
                let used = filter_to_used_tools(&get("tool_definitions"), &[&response]);
                put("tool_definitions", reformat_tool_definitions(&used));
                put("response", response.clone());
                put("tool_calls", format_tool_calls(&response, version));
                "tool_success.prompty"
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
                    RefVersion::V1_18_10 => flatten_response(response, true),
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
        Ok(Some(JudgeCall { prompt, inputs }))
    }

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
            E::ToolSuccess => {
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
            };
            return evaluation.to_azure(&layout);
        }
        evaluation.to_azure(&self.layout())
    }

    /// The threshold in effect given the constructor arguments
    /// (`init_kwargs["threshold"]`, ignored by fixed-threshold evaluators).
    pub fn threshold(self, init_kwargs: &Map<String, Value>) -> Result<Threshold> {
        match init_kwargs.get("threshold") {
            Some(_) if self.fixed_threshold() => Ok(self.default_threshold()),
            Some(Value::Number(n)) => Ok(Threshold(n.clone())),
            Some(other) => Err(Error::input("threshold", format!("expected a number, got {other}"))),
            None => Ok(self.default_threshold()),
        }
    }
}

const NO_TOOL_CALLS: &str = "No tool calls found in response or provided tool_calls.";

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
}

impl JudgeCall {
    /// The corpus file stem of the prompt (`1.0.1__coherence__coherence`).
    pub fn corpus_file(&self) -> Option<&'static str> {
        builtin_prompt(self.prompt).map(|p| p.file)
    }

    /// The inputs resolved against the prompt's declared inputs: declared
    /// order, given values (even `null`) first, then defaults; undeclared
    /// inputs dropped.
    pub fn resolved_inputs(&self) -> Map<String, Value> {
        let Some(prompt) = builtin_prompt(self.prompt) else {
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

/// Runs a reference evaluator end to end: prepares the calls, asks `judge`
/// for each reply, scores, lays out and aggregates the results.
pub fn run(
    evaluator: AzureEvaluator,
    init_kwargs: &Map<String, Value>,
    call_kwargs: &Map<String, Value>,
    version: RefVersion,
    judge: &mut dyn FnMut(usize, &JudgeCall) -> JudgeReply,
) -> Result<Map<String, Value>> {
    let threshold = evaluator.threshold(init_kwargs)?;
    let calls = match evaluator.prepare(call_kwargs, version)? {
        Prepared::Calls(calls) => calls,
        Prepared::NotApplicable(why) => {
            let e = Evaluation {
                name: evaluator.result_key().to_owned(),
                verdict: Verdict::NotApplicable,
                reason: format!("Not applicable: {why}"),
                threshold: Some(threshold),
                ..Evaluation::default()
            };
            return Ok(e.to_azure_not_applicable());
        }
    };
    let mut per_turn = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let reply = judge(i, call);
        let mut e = evaluator.score(&threshold, &reply)?;
        e.sample_input = Some(call.sample_input());
        per_turn.push(evaluator.record(&e, reply.content_str().is_empty()));
    }
    Ok(aggregate(per_turn, Aggregation::Mean))
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
