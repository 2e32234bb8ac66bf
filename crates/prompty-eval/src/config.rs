//! Evaluator configuration: the `metadata.evaluator` block of a prompt's
//! front matter, and the built-in settings of the azure-ai-evaluation
//! prompts (which have no such block).
//!
//! `metadata` is free-form in the Prompty spec, so a prompt carrying this
//! block stays valid for every other tool. Example:
//!
//! ```yaml
//! metadata:
//!   evaluator:
//!     resultKey: coherence      # name of the result (default: prompt name)
//!     answer: tags              # tags | json | number | label
//!     range: [1, 5]             # score range (tags: single digits)
//!     validateRange: false      # true: a score outside the range is an error
//!     threshold: 3              # pass threshold
//!     direction: higher         # higher | lower | equal (pass iff == threshold)
//!     scoreKey: score           # json: key(s) holding the score
//!     reasonKey: [explanation, reason]   # json: key(s) holding the reason
//!     propertiesKey: [properties, details]
//!     labelKey: label
//!     statusKey: status
//!     scoreType: float          # float | int | bool: how the score is written
//!     strict: false             # true: an unreadable answer is an error, not unknown
//!     compat: coherence         # follow azure-ai-evaluation's evaluator of this name
//! ```
//!
//! Every key is optional. Unknown keys are errors naming the key.

use serde_json::{Number, Value};

use crate::azure::AzureEvaluator;
use crate::error::{Error, Result};
use crate::evaluation::ScoreForm;
use crate::extract::AnswerFormat;
use crate::extract::json::JsonFields;
use crate::extract::tags::DigitRange;
use crate::verdict::{Direction, ScoreRange, Threshold};

/// How to score the answers of one judge prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatorConfig {
    /// Name of the result (`coherence`); `None` means: use the prompt name.
    pub result_key: Option<String>,
    /// The answer format.
    pub answer: AnswerFormat,
    /// The score range, if any.
    pub range: Option<ScoreRange>,
    /// Whether a score outside `range` is an error (otherwise the range only
    /// bounds tag digits and documents the scale).
    pub validate_range: bool,
    /// The pass threshold.
    pub threshold: Threshold,
    /// How the score is compared with the threshold.
    pub direction: Direction,
    /// Keys of JSON answers.
    pub json: JsonFields,
    /// How the score is written in the reference layout.
    pub score_form: ScoreForm,
    /// Whether unreadable answers are errors instead of unknown verdicts.
    pub strict: bool,
    /// The reference evaluator whose exact behaviour to follow, if any.
    pub compat: Option<AzureEvaluator>,
}

impl Default for EvaluatorConfig {
    fn default() -> Self {
        EvaluatorConfig {
            result_key: None,
            answer: AnswerFormat::Json,
            range: None,
            validate_range: false,
            threshold: Threshold::from(3u8),
            direction: Direction::Higher,
            json: JsonFields::default(),
            score_form: ScoreForm::Float,
            strict: false,
            compat: None,
        }
    }
}

/// Every key the `metadata.evaluator` block accepts.
pub const KEYS: &[&str] = &[
    "resultKey",
    "answer",
    "range",
    "validateRange",
    "threshold",
    "direction",
    "scoreKey",
    "reasonKey",
    "propertiesKey",
    "labelKey",
    "statusKey",
    "scoreType",
    "strict",
    "compat",
];

const PREFIX: &str = "metadata.evaluator";

fn path(key: &str) -> String {
    format!("{PREFIX}.{key}")
}

fn string_of(key: &str, value: &Value) -> Result<String> {
    value.as_str().map(str::to_owned).ok_or_else(|| Error::config(path(key), "expected a string"))
}

fn bool_of(key: &str, value: &Value) -> Result<bool> {
    value.as_bool().ok_or_else(|| Error::config(path(key), "expected true or false"))
}

fn number_of(key: &str, value: &Value) -> Result<Number> {
    match value {
        Value::Number(n) if n.as_f64().is_some_and(f64::is_finite) => Ok(n.clone()),
        _ => Err(Error::config(path(key), "expected a number")),
    }
}

fn strings_of(key: &str, value: &Value) -> Result<Vec<String>> {
    match value {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| Error::config(format!("{}[{i}]", path(key)), "expected a string"))
            })
            .collect(),
        _ => Err(Error::config(path(key), "expected a string or a non-empty list of strings")),
    }
}

fn range_of(value: &Value) -> Result<ScoreRange> {
    let key = "range";
    let items =
        value.as_array().filter(|a| a.len() == 2).ok_or_else(|| Error::config(path(key), "expected [min, max]"))?;
    let (Some(min), Some(max)) = (items.first(), items.get(1)) else {
        return Err(Error::config(path(key), "expected [min, max]"));
    };
    let min = number_of("range[0]", min)?;
    let max = number_of("range[1]", max)?;
    let range = ScoreRange { min, max };
    if range.min_f64() > range.max_f64() {
        return Err(Error::config(path(key), "min is greater than max"));
    }
    Ok(range)
}

impl EvaluatorConfig {
    /// Reads the `evaluator` block of a prompt's `metadata` object. `Ok(None)`
    /// when there is no such block.
    pub fn from_metadata(metadata: &Value) -> Result<Option<Self>> {
        let block = match metadata {
            Value::Null => return Ok(None),
            Value::Object(map) => match map.get("evaluator") {
                None => return Ok(None),
                Some(block) => block,
            },
            _ => return Err(Error::config("metadata", "expected an object")),
        };
        Self::from_block(block).map(Some)
    }

    /// Reads the evaluator block itself (the value of `metadata.evaluator`).
    pub fn from_block(block: &Value) -> Result<Self> {
        let Some(map) = block.as_object() else {
            return Err(Error::config(PREFIX, "expected an object"));
        };
        if let Some(unknown) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(Error::UnknownConfigKey { key: path(unknown) });
        }
        let mut config = match map.get("compat") {
            Some(v) => {
                let name = string_of("compat", v)?;
                let evaluator = AzureEvaluator::from_name(&name)
                    .ok_or_else(|| Error::config(path("compat"), format!("unknown reference evaluator `{name}`")))?;
                evaluator.config()
            }
            None => EvaluatorConfig::default(),
        };
        if let Some(v) = map.get("resultKey") {
            config.result_key = Some(string_of("resultKey", v)?);
        }
        if let Some(v) = map.get("answer") {
            let name = string_of("answer", v)?;
            config.answer = AnswerFormat::from_name(&name).ok_or_else(|| {
                Error::config(path("answer"), format!("`{name}` is not one of tags, json, number, label"))
            })?;
        }
        if let Some(v) = map.get("range") {
            config.range = Some(range_of(v)?);
        }
        if let Some(v) = map.get("validateRange") {
            config.validate_range = bool_of("validateRange", v)?;
        }
        if let Some(v) = map.get("threshold") {
            config.threshold = Threshold(number_of("threshold", v)?);
        }
        if let Some(v) = map.get("direction") {
            let name = string_of("direction", v)?;
            config.direction = Direction::from_name(&name).ok_or_else(|| {
                Error::config(path("direction"), format!("`{name}` is not one of higher, lower, equal"))
            })?;
        }
        if let Some(v) = map.get("scoreKey") {
            config.json.score = strings_of("scoreKey", v)?;
        }
        if let Some(v) = map.get("reasonKey") {
            config.json.reason = strings_of("reasonKey", v)?;
        }
        if let Some(v) = map.get("propertiesKey") {
            config.json.properties = strings_of("propertiesKey", v)?;
        }
        if let Some(v) = map.get("labelKey") {
            config.json.label = strings_of("labelKey", v)?;
        }
        if let Some(v) = map.get("statusKey") {
            config.json.status = string_of("statusKey", v)?;
        }
        if let Some(v) = map.get("scoreType") {
            let name = string_of("scoreType", v)?;
            config.score_form = match name.as_str() {
                "float" => ScoreForm::Float,
                "int" => ScoreForm::Int,
                "bool" => ScoreForm::Bool,
                _ => {
                    return Err(Error::config(path("scoreType"), format!("`{name}` is not one of float, int, bool")));
                }
            };
        }
        if let Some(v) = map.get("strict") {
            config.strict = bool_of("strict", v)?;
        }
        if config.answer == AnswerFormat::Tags {
            config.digit_range()?;
        }
        if config.validate_range && config.range.is_none() {
            return Err(Error::config(path("validateRange"), "needs a `range`"));
        }
        Ok(config)
    }

    /// The digit class of tag answers (`[1-5]` by default).
    pub fn digit_range(&self) -> Result<DigitRange> {
        let Some(range) = &self.range else {
            return Ok(DigitRange::ONE_TO_FIVE);
        };
        let digit = |n: &Number| n.as_u64().filter(|d| *d <= 9).and_then(|d| u8::try_from(d).ok());
        match (digit(&range.min), digit(&range.max)) {
            (Some(lo), Some(hi)) => {
                DigitRange::new(lo, hi).ok_or_else(|| Error::config(path("range"), "min is greater than max"))
            }
            _ => Err(Error::config(
                path("range"),
                "tag answers are read one digit at a time: the range must be two digits 0-9",
            )),
        }
    }
}

/// One of the 21 judge and simulator prompts shipped by azure-ai-evaluation.
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

/// The settings of every prompt shipped by azure-ai-evaluation 1.0.1 and
/// 1.13.3 (the files carry no evaluator block).
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
];

/// Finds a built-in prompt by corpus file stem (`1.0.1__coherence__coherence`)
/// or by file name as shipped (`coherence.prompty`, `coherence`); for a file
/// name the newest version wins.
pub fn builtin_prompt(name: &str) -> Option<&'static BuiltinPrompt> {
    let stem = name.strip_suffix(".prompty").unwrap_or(name);
    if let Some(p) = BUILTIN_PROMPTS.iter().find(|p| p.file == stem) {
        return Some(p);
    }
    BUILTIN_PROMPTS.iter().rev().find(|p| p.prompt.strip_suffix(".prompty") == Some(stem))
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
    use serde_json::json;

    #[test]
    fn no_block_is_none() {
        assert_eq!(EvaluatorConfig::from_metadata(&json!({"authors": ["x"]})), Ok(None));
        assert_eq!(EvaluatorConfig::from_metadata(&Value::Null), Ok(None));
    }

    #[test]
    fn full_block() {
        let meta = json!({"evaluator": {
            "answer": "tags", "range": [1, 5], "threshold": 4, "direction": "higher",
            "resultKey": "coherence"
        }});
        let c = EvaluatorConfig::from_metadata(&meta).ok().flatten();
        let c = c.unwrap_or_default();
        assert_eq!(c.answer, AnswerFormat::Tags);
        assert_eq!(c.threshold, Threshold::from(4u8));
        assert_eq!(c.result_key.as_deref(), Some("coherence"));
        assert_eq!(c.digit_range(), Ok(DigitRange::ONE_TO_FIVE));
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            (json!({"evaluator": {"answer": "xml"}}), "metadata.evaluator.answer"),
            (json!({"evaluator": {"threshold": "3"}}), "metadata.evaluator.threshold"),
            (json!({"evaluator": {"range": [5]}}), "metadata.evaluator.range"),
            (json!({"evaluator": {"answer": "tags", "range": [1, 10]}}), "metadata.evaluator.range"),
            (json!({"evaluator": {"direction": "up"}}), "metadata.evaluator.direction"),
            (json!({"evaluator": {"scoreKey": [1]}}), "metadata.evaluator.scoreKey[0]"),
            (json!({"evaluator": {"thresold": 3}}), "metadata.evaluator.thresold"),
            (json!({"evaluator": {"compat": "nope"}}), "metadata.evaluator.compat"),
            (json!({"evaluator": {"validateRange": true}}), "metadata.evaluator.validateRange"),
        ];
        for (meta, key) in cases {
            let err = EvaluatorConfig::from_metadata(&meta).err();
            let shown = err.map(|e| e.to_string()).unwrap_or_default();
            assert!(shown.contains(key), "{shown} should name {key}");
        }
    }

    #[test]
    fn compat_sets_defaults_that_keys_override() {
        let meta = json!({"evaluator": {"compat": "tool_selection", "threshold": 2}});
        let c = EvaluatorConfig::from_metadata(&meta).ok().flatten().unwrap_or_default();
        assert_eq!(c.compat, Some(AzureEvaluator::ToolSelection));
        assert_eq!(c.direction, Direction::Equal);
        assert_eq!(c.threshold, Threshold::from(2u8));
    }

    #[test]
    fn builtin_lookup() {
        assert_eq!(BUILTIN_PROMPTS.len(), 21);
        assert_eq!(builtin_prompt("coherence.prompty").map(|p| p.file), Some("1.0.1__coherence__coherence"));
        assert_eq!(
            builtin_prompt("groundedness_with_query").map(|p| p.file),
            Some("1.13.3__groundedness__groundedness_with_query")
        );
        assert!(builtin_config("Tool Call Accuracy").is_some());
        assert!(builtin_config("CoherenceEvaluator").is_some());
        assert!(builtin_config("task_simulate").is_none());
    }

    #[test]
    fn the_front_matter_schema_lists_every_evaluator_key() {
        let schema = prompty_syntax::front_matter_schema();
        let mut listed: Vec<String> = schema["$defs"]["evaluator"]["properties"]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        listed.sort();
        let mut keys: Vec<String> = KEYS.iter().map(|k| (*k).to_owned()).collect();
        keys.sort();
        assert_eq!(listed, keys);
        assert_eq!(schema["$defs"]["evaluator"]["additionalProperties"], false);
    }
}
