//! The judge and simulator prompts shipped by azure-ai-evaluation, and the evaluator
//! settings they imply (the files carry no `metadata.evaluator` block).

use serde_json::Value;

use crate::azure::evaluator::AzureEvaluator;
use crate::config::EvaluatorConfig;
use crate::contract::Contract;

/// One of the 37 judge and simulator prompts shipped by azure-ai-evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinPrompt {
    /// File stem in the conformance corpus (`1.0.1__coherence__coherence`).
    pub file: &'static str,
    /// File name as the reference ships it (`coherence.prompty`).
    pub prompt: &'static str,
    /// The `name` of its front matter.
    pub name: &'static str,
    /// The evaluator that uses it (`None` for the simulator prompts).
    pub evaluator: Option<AzureEvaluator>,
    /// Declared inputs in order, with the default as JSON text, if any.
    pub inputs: &'static [(&'static str, Option<&'static str>)],
}

impl BuiltinPrompt {
    /// The contract of the release that shipped it.
    pub fn contract(&self) -> Contract {
        if self.file.starts_with("1.18.") { Contract::V1_18 } else { Contract::V1_13 }
    }

    /// The declared inputs with their parsed defaults.
    pub fn declared_inputs(&self) -> Vec<(String, Option<Value>)> {
        self.inputs
            .iter()
            .map(|(name, default)| {
                let default = default.and_then(|d| serde_json::from_str(d).ok());
                ((*name).to_owned(), default)
            })
            .collect()
    }
}

const QR: &[(&str, Option<&str>)] = &[("query", None), ("response", None)];
const QRC: &[(&str, Option<&str>)] = &[("query", None), ("response", None), ("context", None)];
const RC: &[(&str, Option<&str>)] = &[("response", None), ("context", None)];
const QTT: &[(&str, Option<&str>)] = &[("query", None), ("tool_calls", None), ("tool_definitions", None)];

/// The settings of every prompt shipped by azure-ai-evaluation 1.0.1, 1.13.3 and
/// 1.18.10 (the files carry no evaluator block), oldest release first.
pub const BUILTIN_PROMPTS: &[BuiltinPrompt] = &[
    BuiltinPrompt {
        file: "1.0.1__coherence__coherence",
        prompt: "coherence.prompty",
        name: "Coherence",
        evaluator: Some(AzureEvaluator::Coherence),
        inputs: QR,
    },
    BuiltinPrompt {
        file: "1.0.1__fluency__fluency",
        prompt: "fluency.prompty",
        name: "Fluency",
        evaluator: Some(AzureEvaluator::Fluency),
        inputs: &[("response", None)],
    },
    BuiltinPrompt {
        file: "1.0.1__groundedness__groundedness_with_query",
        prompt: "groundedness_with_query.prompty",
        name: "Groundedness",
        evaluator: Some(AzureEvaluator::Groundedness),
        inputs: QRC,
    },
    BuiltinPrompt {
        file: "1.0.1__groundedness__groundedness_without_query",
        prompt: "groundedness_without_query.prompty",
        name: "Groundedness",
        evaluator: Some(AzureEvaluator::Groundedness),
        inputs: RC,
    },
    BuiltinPrompt {
        file: "1.0.1__relevance__relevance",
        prompt: "relevance.prompty",
        name: "Relevance",
        evaluator: Some(AzureEvaluator::Relevance),
        inputs: QR,
    },
    BuiltinPrompt {
        file: "1.0.1__retrieval__retrieval",
        prompt: "retrieval.prompty",
        name: "Retrieval",
        evaluator: Some(AzureEvaluator::Retrieval),
        inputs: &[("query", None), ("context", None)],
    },
    BuiltinPrompt {
        file: "1.0.1__similarity__similarity",
        prompt: "similarity.prompty",
        name: "Similarity",
        evaluator: Some(AzureEvaluator::Similarity),
        inputs: &[("query", None), ("response", None), ("ground_truth", None)],
    },
    BuiltinPrompt {
        file: "1.0.1__simulator__task_query_response",
        prompt: "task_query_response.prompty",
        name: "TaskSimulatorQueryResponse",
        evaluator: None,
        inputs: &[("text", None), ("num_queries", None)],
    },
    BuiltinPrompt {
        file: "1.0.1__simulator__task_simulate",
        prompt: "task_simulate.prompty",
        name: "TaskSimulatorWithPersona",
        evaluator: None,
        inputs: &[
            ("task", None),
            ("conversation_history", None),
            (
                "action",
                Some("\"continue the converasation and make sure the task is completed by asking relevant questions\""),
            ),
        ],
    },
    BuiltinPrompt {
        file: "1.13.3__groundedness__groundedness_with_query",
        prompt: "groundedness_with_query.prompty",
        name: "Groundedness",
        evaluator: Some(AzureEvaluator::Groundedness),
        inputs: QRC,
    },
    BuiltinPrompt {
        file: "1.13.3__groundedness__groundedness_without_query",
        prompt: "groundedness_without_query.prompty",
        name: "Groundedness",
        evaluator: Some(AzureEvaluator::Groundedness),
        inputs: RC,
    },
    BuiltinPrompt {
        file: "1.13.3__intent_resolution__intent_resolution",
        prompt: "intent_resolution.prompty",
        name: "Intent Resolution Evaluator",
        evaluator: Some(AzureEvaluator::IntentResolution),
        inputs: &[("query", None), ("response", None), ("tool_definitions", Some("\"[]\""))],
    },
    BuiltinPrompt {
        file: "1.13.3__relevance__relevance",
        prompt: "relevance.prompty",
        name: "Relevance",
        evaluator: Some(AzureEvaluator::Relevance),
        inputs: QR,
    },
    BuiltinPrompt {
        file: "1.13.3__response_completeness__response_completeness",
        prompt: "response_completeness.prompty",
        name: "Completeness",
        evaluator: Some(AzureEvaluator::ResponseCompleteness),
        inputs: &[("response", None), ("ground_truth", None)],
    },
    BuiltinPrompt {
        file: "1.13.3__task_adherence__task_adherence",
        prompt: "task_adherence.prompty",
        name: "TaskAdherence",
        evaluator: Some(AzureEvaluator::TaskAdherence),
        inputs: &[("system_message", None), ("query", None), ("response", None), ("tool_calls", None)],
    },
    BuiltinPrompt {
        file: "1.13.3__task_completion__task_completion",
        prompt: "task_completion.prompty",
        name: "Task Completion",
        evaluator: Some(AzureEvaluator::TaskCompletion),
        inputs: &[("query", None), ("response", None), ("tool_definitions", Some("{}"))],
    },
    BuiltinPrompt {
        file: "1.13.3__tool_call_accuracy__tool_call_accuracy",
        prompt: "tool_call_accuracy.prompty",
        name: "Tool Call Accuracy",
        evaluator: Some(AzureEvaluator::ToolCallAccuracy),
        inputs: QTT,
    },
    BuiltinPrompt {
        file: "1.13.3__tool_input_accuracy__tool_input_accuracy",
        prompt: "tool_input_accuracy.prompty",
        name: "Tool Input Accuracy",
        evaluator: Some(AzureEvaluator::ToolInputAccuracy),
        inputs: QTT,
    },
    BuiltinPrompt {
        file: "1.13.3__tool_output_utilization__tool_output_utilization",
        prompt: "tool_output_utilization.prompty",
        name: "Tool Output Utilization Evaluator",
        evaluator: Some(AzureEvaluator::ToolOutputUtilization),
        inputs: &[("query", None), ("response", None), ("tool_definitions", None)],
    },
    BuiltinPrompt {
        file: "1.13.3__tool_selection__tool_selection",
        prompt: "tool_selection.prompty",
        name: "Tool Selection",
        evaluator: Some(AzureEvaluator::ToolSelection),
        inputs: QTT,
    },
    BuiltinPrompt {
        file: "1.13.3__tool_success__tool_success",
        prompt: "tool_success.prompty",
        name: "Tool Success",
        evaluator: Some(AzureEvaluator::ToolSuccess),
        inputs: &[("tool_calls", None), ("tool_definitions", None)],
    },
    BuiltinPrompt {
        file: "1.18.10__coherence__coherence",
        prompt: "coherence.prompty",
        name: "Coherence",
        evaluator: Some(AzureEvaluator::Coherence),
        inputs: QR,
    },
    BuiltinPrompt {
        file: "1.18.10__fluency__fluency",
        prompt: "fluency.prompty",
        name: "Fluency",
        evaluator: Some(AzureEvaluator::Fluency),
        inputs: &[("response", None)],
    },
    BuiltinPrompt {
        file: "1.18.10__groundedness__groundedness_with_query",
        prompt: "groundedness_with_query.prompty",
        name: "Groundedness",
        evaluator: Some(AzureEvaluator::Groundedness),
        inputs: QRC,
    },
    BuiltinPrompt {
        file: "1.18.10__groundedness__groundedness_without_query",
        prompt: "groundedness_without_query.prompty",
        name: "Groundedness",
        evaluator: Some(AzureEvaluator::Groundedness),
        inputs: RC,
    },
    BuiltinPrompt {
        file: "1.18.10__intent_resolution__intent_resolution",
        prompt: "intent_resolution.prompty",
        name: "Intent Resolution Evaluator",
        evaluator: Some(AzureEvaluator::IntentResolution),
        inputs: &[("query", None), ("response", None), ("tool_definitions", Some("\"[]\""))],
    },
    BuiltinPrompt {
        file: "1.18.10__relevance__relevance",
        prompt: "relevance.prompty",
        name: "Relevance",
        evaluator: Some(AzureEvaluator::Relevance),
        inputs: QR,
    },
    BuiltinPrompt {
        file: "1.18.10__response_completeness__response_completeness",
        prompt: "response_completeness.prompty",
        name: "Completeness",
        evaluator: Some(AzureEvaluator::ResponseCompleteness),
        inputs: &[("response", None), ("ground_truth", None)],
    },
    BuiltinPrompt {
        file: "1.18.10__retrieval__retrieval",
        prompt: "retrieval.prompty",
        name: "Retrieval",
        evaluator: Some(AzureEvaluator::Retrieval),
        inputs: &[("query", None), ("context", None)],
    },
    BuiltinPrompt {
        file: "1.18.10__similarity__similarity",
        prompt: "similarity.prompty",
        name: "Similarity",
        evaluator: Some(AzureEvaluator::Similarity),
        inputs: &[("query", None), ("response", None), ("ground_truth", None)],
    },
    BuiltinPrompt {
        file: "1.18.10__task_adherence__task_adherence",
        prompt: "task_adherence.prompty",
        name: "TaskAdherence",
        evaluator: Some(AzureEvaluator::TaskAdherence),
        inputs: &[("system_message", None), ("query", None), ("response", None), ("tool_calls", None)],
    },
    BuiltinPrompt {
        file: "1.18.10__task_completion__task_completion",
        prompt: "task_completion.prompty",
        name: "Task Completion",
        evaluator: Some(AzureEvaluator::TaskCompletion),
        inputs: &[("query", None), ("response", None), ("tool_definitions", Some("{}"))],
    },
    BuiltinPrompt {
        file: "1.18.10__tool_call_accuracy__tool_call_accuracy",
        prompt: "tool_call_accuracy.prompty",
        name: "Tool Call Accuracy",
        evaluator: Some(AzureEvaluator::ToolCallAccuracy),
        inputs: QTT,
    },
    BuiltinPrompt {
        file: "1.18.10__tool_call_success__tool_call_success",
        prompt: "tool_call_success.prompty",
        name: "Tool Call Success",
        evaluator: Some(AzureEvaluator::ToolCallSuccess),
        inputs: &[("tool_calls", None), ("tool_definitions", None)],
    },
    BuiltinPrompt {
        file: "1.18.10__tool_input_accuracy__tool_input_accuracy",
        prompt: "tool_input_accuracy.prompty",
        name: "Tool Input Accuracy",
        evaluator: Some(AzureEvaluator::ToolInputAccuracy),
        inputs: QTT,
    },
    BuiltinPrompt {
        file: "1.18.10__tool_output_utilization__tool_output_utilization",
        prompt: "tool_output_utilization.prompty",
        name: "Tool Output Utilization Evaluator",
        evaluator: Some(AzureEvaluator::ToolOutputUtilization),
        inputs: &[("query", None), ("response", None), ("tool_definitions", None)],
    },
    BuiltinPrompt {
        file: "1.18.10__tool_selection__tool_selection",
        prompt: "tool_selection.prompty",
        name: "Tool Selection",
        evaluator: Some(AzureEvaluator::ToolSelection),
        inputs: QTT,
    },
];

/// Finds a built-in prompt by corpus file stem (`1.0.1__coherence__coherence`)
/// or by file name as shipped (`coherence.prompty`, `coherence`); for a file
/// name the newest version up to 1.13.3 wins (see [`builtin_prompt_for`]).
pub fn builtin_prompt(name: &str) -> Option<&'static BuiltinPrompt> {
    builtin_prompt_for(name, Contract::V1_13)
}

/// Finds a built-in prompt by corpus file stem, or by file name as shipped: the
/// newest version of the contract's release or older (1.13: 1.13.3 or 1.0.1;
/// 1.18: 1.18.10).
pub fn builtin_prompt_for(name: &str, contract: Contract) -> Option<&'static BuiltinPrompt> {
    let stem = name.strip_suffix(".prompty").unwrap_or(name);
    if let Some(p) = BUILTIN_PROMPTS.iter().find(|p| p.file == stem) {
        return Some(p);
    }
    BUILTIN_PROMPTS
        .iter()
        .rev()
        .filter(|p| p.contract() <= contract)
        .find(|p| p.prompt.strip_suffix(".prompty") == Some(stem))
}

/// The built-in settings for an evaluator, looked up by evaluator name
/// (`coherence`, `CoherenceEvaluator`), prompt `name` (`Tool Call
/// Accuracy`) or prompt file (`groundedness_with_query.prompty`).
pub fn builtin_config(name: &str) -> Option<EvaluatorConfig> {
    if let Some(e) = AzureEvaluator::from_name(name) {
        return Some(e.config());
    }
    if let Some(e) = builtin_prompt(name).and_then(|p| p.evaluator) {
        return Some(e.config());
    }
    BUILTIN_PROMPTS
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .and_then(|p| p.evaluator)
        .map(AzureEvaluator::config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_lookup() {
        assert_eq!(BUILTIN_PROMPTS.len(), 37);
        assert_eq!(
            builtin_prompt_for("coherence.prompty", Contract::V1_18).map(|p| p.file),
            Some("1.18.10__coherence__coherence")
        );
        assert_eq!(
            builtin_prompt_for("tool_success", Contract::V1_18).map(|p| p.file),
            Some("1.13.3__tool_success__tool_success")
        );
        assert_eq!(builtin_prompt("tool_call_success"), None);
        assert_eq!(builtin_prompt("coherence.prompty").map(|p| p.file), Some("1.0.1__coherence__coherence"));
        assert_eq!(
            builtin_prompt("groundedness_with_query").map(|p| p.file),
            Some("1.13.3__groundedness__groundedness_with_query")
        );
        assert!(builtin_config("Tool Call Accuracy").is_some());
        assert!(builtin_config("CoherenceEvaluator").is_some());
        assert!(builtin_config("task_simulate").is_none());
    }
}
