//! The [`Evaluation`] record and its two JSON forms.
//!
//! * [`Evaluation`] serializes (serde) to this crate's own form: plain field
//!   names, `null` for a missing score, optional fields left out.
//! * [`Evaluation::to_azure`] writes the key layout of azure-ai-evaluation
//!   1.13.3 (`{k}`, `gpt_{k}`, `{k}_reason`, `{k}_result`, `{k}_threshold`,
//!   `{k}_prompt_tokens`, ...) or 1.18.10 (`{k}`, `{k}_score`, `{k}_passed`,
//!   `{k}_result`, `{k}_reason`, `{k}_status`, `{k}_threshold`,
//!   `{k}_properties`), in the order the reference emits, so existing
//!   dashboards keep working. The per-evaluator differences are described by
//!   an [`AzureLayout`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::contract::Contract;
use crate::py;
use crate::verdict::{Threshold, Verdict};

/// Token counts of one judge call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the request.
    pub prompt_tokens: u64,
    /// Tokens in the answer.
    pub completion_tokens: u64,
    /// Both together.
    pub total_tokens: u64,
}

/// What the judge model sent back, as far as the evaluator needs it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JudgeReply {
    /// The answer text (`None` when the model sent no content).
    pub content: Option<String>,
    /// Role of the answer message (normally `assistant`).
    pub role: Option<String>,
    /// Token counts, when the provider reported them.
    pub usage: Option<Usage>,
    /// Why the model stopped (`stop`, `length`, ...).
    pub finish_reason: Option<String>,
    /// The model that answered, as the provider reported it.
    pub model: Option<String>,
}

impl JudgeReply {
    /// A reply with only the answer text.
    pub fn text(content: impl Into<String>) -> Self {
        JudgeReply { content: Some(content.into()), ..JudgeReply::default() }
    }

    /// The answer text, or `""`.
    pub fn content_str(&self) -> &str {
        self.content.as_deref().unwrap_or_default()
    }

    /// The reference's `sample_output`: a JSON list with the answer message,
    /// or `[]` without content.
    pub fn sample_output(&self) -> String {
        match &self.content {
            Some(content) if !content.is_empty() => {
                let role = self.role.as_deref().unwrap_or("assistant");
                format!("[{{\"role\": {}, \"content\": {}}}]", py::json_dumps_str(role), py::json_dumps_str(content))
            }
            _ => "[]".to_owned(),
        }
    }
}

/// How a score is written in the reference layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoreForm {
    /// A float (`4.0`).
    #[default]
    Float,
    /// An integer (`4`).
    Int,
    /// A boolean (`true`), for answers that gave one and are kept as is.
    Bool,
}

/// The result of evaluating one judge answer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Evaluation {
    /// Result key (`coherence`, `tool_selection`, ...).
    pub name: String,
    /// The score; `None` when there is no usable score.
    pub score: Option<f64>,
    /// How the reference writes the score.
    #[serde(default, skip_serializing_if = "is_default_form")]
    pub score_form: ScoreForm,
    /// pass / fail / unknown / not applicable.
    pub verdict: Verdict,
    /// The judge's explanation (empty when none).
    pub reason: String,
    /// A label the judge gave, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The threshold the score was compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<Threshold>,
    /// Structured details from the answer (an object).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub properties: Map<String, Value>,
    /// The details value exactly as the answer gave it (any JSON type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// The answer's status (`completed`, `skipped`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Why there is no score, when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Token counts of the judge call, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Why the judge stopped, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The judge model, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The prompt inputs as the reference records them, when known (azure layout only).
    #[serde(skip)]
    pub sample_input: Option<String>,
    /// The judge answer as the reference records it, when known (azure layout only).
    #[serde(skip)]
    pub sample_output: Option<String>,
    /// Where the azure-compatible result says something misleading (a score outside the
    /// evaluator's range that the reference passes, a threshold it ignores, a
    /// conversation label taken from the last turn), one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The evaluations of a conversation's turns, in order (empty for one call). The
    /// fields above then describe the conversation as a whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<Evaluation>,
    /// The 1.18 `{k}_properties` is `null` (the reference's not-applicable result of
    /// evaluators with their own scoring, and of answers never asked for).
    #[serde(skip)]
    pub properties_null: bool,
}

fn is_default_form(form: &ScoreForm) -> bool {
    *form == ScoreForm::Float
}

impl Evaluation {
    /// The evaluation with every value `${env:}` supplied to the prompt shown as its
    /// reference (`${env:NAME}`), wherever it occurs in a text the evaluation holds: the name
    /// (the result key of both layouts), the problem (which may quote configured keys), and
    /// the judge's reason, label, details and sample texts (a judge may repeat what the
    /// prompt showed it).
    #[must_use]
    pub fn redacted(mut self, secrets: &prompty_syntax::Secrets) -> Self {
        if secrets.is_empty() {
            return self;
        }
        secrets.redact_string(&mut self.name);
        secrets.redact_string(&mut self.reason);
        for s in [
            &mut self.label,
            &mut self.status,
            &mut self.problem,
            &mut self.finish_reason,
            &mut self.model,
            &mut self.sample_input,
            &mut self.sample_output,
        ]
        .into_iter()
        .flatten()
        {
            secrets.redact_string(s);
        }
        let mut properties = Value::Object(std::mem::take(&mut self.properties));
        secrets.redact_json(&mut properties);
        if let Value::Object(m) = properties {
            self.properties = m;
        }
        if let Some(d) = &mut self.details {
            secrets.redact_json(d);
        }
        self
    }

    /// Copies token counts, finish reason, model and sample output from the
    /// judge reply.
    pub fn with_reply(mut self, reply: &JudgeReply) -> Self {
        self.usage = reply.usage;
        self.finish_reason = reply.finish_reason.clone();
        self.model = reply.model.clone();
        self.sample_output = Some(reply.sample_output());
        self
    }

    /// The score as the reference layout writes it; a missing score is the
    /// string `"NaN"` (strict JSON has no NaN; this is how the reference's
    /// recorded results spell it).
    pub fn azure_score(&self) -> Value {
        match self.score {
            None => Value::String("NaN".to_owned()),
            Some(s) if s.is_nan() => Value::String("NaN".to_owned()),
            Some(s) => match self.score_form {
                ScoreForm::Float => float_value(s),
                ScoreForm::Int => Value::Number(Number::from(s.trunc() as i64)),
                ScoreForm::Bool => Value::Bool(s != 0.0),
            },
        }
    }

    /// This evaluation in an azure-ai-evaluation key layout (1.13.3 or 1.18.10, as
    /// [`AzureLayout::contract`] says). A conversation ([`Evaluation::turns`]) is laid
    /// out turn by turn and aggregated as that release does
    /// ([`aggregate_turns`](crate::conversation::aggregate_turns)).
    pub fn to_azure(&self, layout: &AzureLayout) -> Map<String, Value> {
        if !self.turns.is_empty() {
            let per_turn = self.turns.iter().map(|t| t.to_azure(layout)).collect();
            return crate::conversation::aggregate_turns(per_turn, layout.contract);
        }
        // 1.18's not-applicable result has the common key set, `gpt_{k}` never.
        let common;
        let layout = if self.verdict == Verdict::NotApplicable && layout.contract == Contract::V1_18 {
            common = AzureLayout::v1_18(false);
            &common
        } else {
            layout
        };
        let k = &self.name;
        let mut out = Map::new();
        for key in &layout.keys {
            match key {
                AzureKey::Score => {
                    out.insert(k.clone(), self.azure_score());
                }
                AzureKey::GptScore => {
                    out.insert(format!("gpt_{k}"), self.azure_score());
                }
                AzureKey::Reason => {
                    out.insert(format!("{k}_reason"), Value::String(self.reason.clone()));
                }
                AzureKey::Result => {
                    let result = if self.verdict == Verdict::NotApplicable { "pass" } else { self.verdict.as_str() };
                    out.insert(format!("{k}_result"), Value::String(result.to_owned()));
                }
                AzureKey::LabelResult => {
                    let label = self.label.clone().unwrap_or_else(|| self.verdict.as_str().to_owned());
                    out.insert(format!("{k}_result"), Value::String(label));
                }
                AzureKey::Threshold => {
                    let t = self.threshold.as_ref().map(|t| Value::Number(t.0.clone())).unwrap_or(Value::Null);
                    out.insert(format!("{k}_threshold"), t);
                }
                AzureKey::Details { missing } => {
                    let d = self.details.clone().unwrap_or_else(|| missing.value());
                    out.insert(format!("{k}_details"), d);
                }
                AzureKey::ScoreOrNull => {
                    out.insert(k.clone(), self.score_or_null());
                }
                AzureKey::GptScoreOrNull => {
                    out.insert(format!("gpt_{k}"), self.score_or_null());
                }
                AzureKey::ScoreAlias => {
                    out.insert(format!("{k}_score"), self.score_or_null());
                }
                AzureKey::Passed => {
                    let passed = match self.verdict {
                        Verdict::NotApplicable => Value::Null,
                        v => Value::Bool(v == Verdict::Pass),
                    };
                    out.insert(format!("{k}_passed"), passed);
                }
                AzureKey::Verdict => {
                    out.insert(format!("{k}_result"), Value::String(self.verdict.as_str().to_owned()));
                }
                AzureKey::Status => {
                    let status = self.status.clone().unwrap_or_else(|| match self.verdict {
                        Verdict::NotApplicable => "skipped".to_owned(),
                        _ => "completed".to_owned(),
                    });
                    out.insert(format!("{k}_status"), Value::String(status));
                }
                AzureKey::Properties => {
                    out.insert(format!("{k}_properties"), self.properties_1_18());
                }
            }
        }
        if layout.metadata {
            let usage = self.usage.unwrap_or_default();
            out.insert(format!("{k}_prompt_tokens"), Value::from(usage.prompt_tokens));
            out.insert(format!("{k}_completion_tokens"), Value::from(usage.completion_tokens));
            out.insert(format!("{k}_total_tokens"), Value::from(usage.total_tokens));
            let text = |s: &Option<String>| Value::String(s.clone().unwrap_or_default());
            out.insert(format!("{k}_finish_reason"), text(&self.finish_reason));
            out.insert(format!("{k}_model"), text(&self.model));
            out.insert(format!("{k}_sample_input"), text(&self.sample_input));
            out.insert(format!("{k}_sample_output"), text(&self.sample_output));
        }
        out
    }

    /// The 1.18 score: `null` when not applicable, `"NaN"` when there is none, else a float.
    fn score_or_null(&self) -> Value {
        match (self.verdict, self.score) {
            (Verdict::NotApplicable, _) => Value::Null,
            (_, None) => Value::String("NaN".to_owned()),
            (_, Some(s)) => float_value(s),
        }
    }

    /// The 1.18 `{k}_properties`: the answer's `properties`, then the token counts, finish
    /// reason, model and sample texts of the judge call (overwriting same-named answer
    /// keys in place); `null` where the reference writes `None`.
    fn properties_1_18(&self) -> Value {
        if self.properties_null {
            return Value::Null;
        }
        let mut p = self.properties.clone();
        let usage = self.usage.unwrap_or_default();
        p.insert("prompt_tokens".to_owned(), Value::from(usage.prompt_tokens));
        p.insert("completion_tokens".to_owned(), Value::from(usage.completion_tokens));
        p.insert("total_tokens".to_owned(), Value::from(usage.total_tokens));
        let text = |s: &Option<String>| Value::String(s.clone().unwrap_or_default());
        p.insert("finish_reason".to_owned(), text(&self.finish_reason));
        p.insert("model".to_owned(), text(&self.model));
        p.insert("sample_input".to_owned(), text(&self.sample_input));
        p.insert("sample_output".to_owned(), text(&self.sample_output));
        Value::Object(p)
    }

    /// The not-applicable record of the 1.13.3 layout:
    /// `{k}: "not applicable", {k}_result: "pass", {k}_threshold, {k}_reason,
    /// {k}_details: {}`.
    pub fn to_azure_not_applicable(&self) -> Map<String, Value> {
        let k = &self.name;
        let mut out = Map::new();
        out.insert(k.clone(), Value::String("not applicable".to_owned()));
        out.insert(format!("{k}_result"), Value::String("pass".to_owned()));
        out.insert(
            format!("{k}_threshold"),
            self.threshold.as_ref().map(|t| Value::Number(t.0.clone())).unwrap_or(Value::Null),
        );
        out.insert(format!("{k}_reason"), Value::String(self.reason.clone()));
        out.insert(format!("{k}_details"), Value::Object(Map::new()));
        out
    }
}

/// A float as a JSON number (`4.0` stays a float); non-finite values, which
/// JSON cannot hold, become the strings `NaN`, `Infinity`, `-Infinity`.
pub(crate) fn float_value(f: f64) -> Value {
    match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => Value::String("NaN".to_owned()),
        None if f > 0.0 => Value::String("Infinity".to_owned()),
        None => Value::String("-Infinity".to_owned()),
    }
}

/// One key of the reference layout (the token/model/sample block is
/// appended after these when [`AzureLayout::metadata`] is set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AzureKey {
    /// `{k}`: the score.
    Score,
    /// `gpt_{k}`: the score again, under its legacy name.
    GptScore,
    /// `{k}_reason`.
    Reason,
    /// `{k}_result`: `pass`/`fail`/`unknown`.
    Result,
    /// `{k}_result` taken from the judge's label as written (lower-cased by
    /// the evaluator), for evaluators that report the label itself.
    LabelResult,
    /// `{k}_threshold`.
    Threshold,
    /// `{k}_details`, with the value used when the answer had none.
    Details {
        /// Value written when the answer had no details.
        missing: MissingDetails,
    },
    /// `{k}` of 1.18: the score, `null` when not applicable.
    ScoreOrNull,
    /// `gpt_{k}` of 1.18 (tool_call_accuracy only): the score, `null` when not applicable.
    GptScoreOrNull,
    /// `{k}_score`: the score again, `null` when not applicable.
    ScoreAlias,
    /// `{k}_passed`: whether the verdict is pass (`null` when not applicable).
    Passed,
    /// `{k}_result`: `pass`/`fail`/`unknown`/`not_applicable`.
    Verdict,
    /// `{k}_status`: `completed` or `skipped`.
    Status,
    /// `{k}_properties`: the answer's properties with the judge call's metadata.
    Properties,
}

/// What `{k}_details` holds when the answer had no details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MissingDetails {
    /// `{}`.
    EmptyObject,
    /// `""`.
    EmptyString,
}

impl MissingDetails {
    fn value(self) -> Value {
        match self {
            MissingDetails::EmptyObject => Value::Object(Map::new()),
            MissingDetails::EmptyString => Value::String(String::new()),
        }
    }
}

/// The keys one evaluator emits in the reference layout, in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AzureLayout {
    /// The leading keys, in order.
    pub keys: Vec<AzureKey>,
    /// Whether the token/model/sample block follows (`{k}_prompt_tokens`,
    /// `{k}_completion_tokens`, `{k}_total_tokens`, `{k}_finish_reason`,
    /// `{k}_model`, `{k}_sample_input`, `{k}_sample_output`).
    pub metadata: bool,
    /// The release this layout belongs to: it decides the not-applicable record and how
    /// conversation turns are aggregated.
    pub contract: Contract,
}

impl AzureLayout {
    /// The layout of the tag-answer base evaluators (coherence, fluency,
    /// groundedness, retrieval): score, `gpt_`, reason, result, threshold.
    pub fn tagged() -> Self {
        AzureLayout {
            keys: vec![AzureKey::Score, AzureKey::GptScore, AzureKey::Reason, AzureKey::Result, AzureKey::Threshold],
            metadata: true,
            contract: Contract::V1_13,
        }
    }

    /// The 1.18.10 layout: `{k}`, (`gpt_{k}`,) `{k}_score`, `{k}_passed`, `{k}_result`,
    /// `{k}_reason`, `{k}_status`, `{k}_threshold`, `{k}_properties`. Only
    /// tool_call_accuracy still writes `gpt_{k}`, and it writes `_result` before
    /// `_passed`.
    pub fn v1_18(gpt: bool) -> Self {
        use AzureKey as K;
        let keys = if gpt {
            vec![
                K::ScoreOrNull,
                K::GptScoreOrNull,
                K::ScoreAlias,
                K::Verdict,
                K::Passed,
                K::Reason,
                K::Status,
                K::Threshold,
                K::Properties,
            ]
        } else {
            vec![
                K::ScoreOrNull,
                K::ScoreAlias,
                K::Passed,
                K::Verdict,
                K::Reason,
                K::Status,
                K::Threshold,
                K::Properties,
            ]
        };
        AzureLayout { keys, metadata: false, contract: Contract::V1_18 }
    }

    /// The base layout of a contract: [`AzureLayout::tagged`] or [`AzureLayout::v1_18`].
    pub fn base(contract: Contract) -> Self {
        match contract {
            Contract::V1_13 => AzureLayout::tagged(),
            Contract::V1_18 => AzureLayout::v1_18(false),
        }
    }

    /// The layout of base evaluators that give no reason (similarity).
    pub fn unreasoned() -> Self {
        AzureLayout {
            keys: vec![AzureKey::Score, AzureKey::GptScore, AzureKey::Result, AzureKey::Threshold],
            metadata: true,
            contract: Contract::V1_13,
        }
    }
}

impl Default for AzureLayout {
    fn default() -> Self {
        AzureLayout::tagged()
    }
}
