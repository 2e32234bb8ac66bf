//! Which reference evaluator: its names, default threshold, inputs and result layout.

use serde_json::{Map, Value};

use crate::contract::Contract;
use crate::conversation::TurnInputs;
use crate::error::{Error, Result};
use crate::evaluation::{AzureKey, AzureLayout, MissingDetails};
use crate::verdict::Threshold;

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
    /// `_ToolSuccessEvaluator`: JSON `{explanation, details, success}` (1.13.3).
    ToolSuccess,
    /// `_ToolCallSuccessEvaluator`: JSON `{reason, properties, score, status}`, score 0
    /// or 1 (1.18.10; the successor of `_ToolSuccessEvaluator`).
    ToolCallSuccess,
}

use AzureEvaluator as E;

impl AzureEvaluator {
    /// Every evaluator.
    pub const ALL: [AzureEvaluator; 16] = [
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
        E::ToolCallSuccess,
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
            E::ToolCallSuccess => "tool_call_success",
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
            E::ToolCallSuccess => "_ToolCallSuccessEvaluator",
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
            E::ToolSelection
            | E::ToolInputAccuracy
            | E::ToolOutputUtilization
            | E::ToolSuccess
            | E::ToolCallSuccess => Threshold::from(1u8),
            _ => Threshold::from(3u8),
        }
    }

    /// Whether the threshold is fixed (the constructor takes none).
    pub fn fixed_threshold(self) -> bool {
        matches!(self, E::ToolInputAccuracy | E::ToolOutputUtilization | E::ToolSuccess | E::ToolCallSuccess)
    }

    /// Whether 1.18.10 ignores a `threshold` constructor argument and reports 3 while
    /// deciding pass/fail with its own rule (`score >= 1`): TaskAdherence and
    /// `_TaskCompletion` never pass their threshold on.
    pub fn threshold_ignored_in_1_18(self) -> bool {
        matches!(self, E::TaskAdherence | E::TaskCompletion)
    }

    /// The threshold 1.18.10 reports and compares with, given the constructor
    /// arguments (see [`threshold_ignored_in_1_18`](Self::threshold_ignored_in_1_18)).
    pub fn threshold_1_18(self, init_kwargs: &Map<String, Value>) -> Result<Threshold> {
        if self.threshold_ignored_in_1_18() {
            return Ok(Threshold::from(3u8));
        }
        self.threshold(init_kwargs)
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
            E::ToolSuccess | E::ToolCallSuccess => vec![K::Score, K::Result, K::Threshold, K::Reason],
        };
        AzureLayout { keys, metadata: true, contract: Contract::V1_13 }
    }

    /// The scale 1.18.10's prompt asks the judge for: a score outside it is compared with
    /// the threshold as it stands by the evaluators that do not validate it.
    pub fn scale_1_18(self) -> (f64, f64) {
        match self {
            E::TaskAdherence
            | E::TaskCompletion
            | E::ToolSelection
            | E::ToolInputAccuracy
            | E::ToolOutputUtilization
            | E::ToolCallSuccess
            | E::ToolSuccess => (0.0, 1.0),
            _ => (1.0, 5.0),
        }
    }

    /// The key layout of this evaluator's result under a contract.
    pub fn layout_for(self, contract: Contract) -> AzureLayout {
        match contract {
            Contract::V1_13 => self.layout(),
            Contract::V1_18 => AzureLayout::v1_18(self == E::ToolCallAccuracy),
        }
    }

    pub(super) fn is_base(self) -> bool {
        matches!(self, E::Coherence | E::Fluency | E::Groundedness | E::Retrieval | E::Similarity)
    }

    pub(super) fn conversation_inputs(self) -> Option<TurnInputs> {
        let t = |query, response, context| TurnInputs {
            query,
            response,
            context,
            ground_truth: false,
            last_turn_only: false,
            response_context: true,
        };
        match self {
            E::Coherence | E::Relevance => Some(t(true, true, false)),
            E::Fluency => Some(t(false, true, false)),
            E::Groundedness => Some(t(true, true, true)),
            E::Retrieval => Some(t(true, false, true)),
            _ => None,
        }
    }

    pub(super) fn required_inputs(self) -> &'static [&'static str] {
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
            E::ToolSuccess | E::ToolCallSuccess => &["response", "tool_definitions"],
        }
    }
}
