//! Reading the `metadata.evaluator` block (see [`config`](crate::config)) into an
//! [`EvaluatorConfig`].

use serde_json::{Number, Value};

use crate::azure::evaluator::AzureEvaluator;
use crate::config::{EvaluatorConfig, PREFIX, path};
use crate::contract::Contract;
use crate::error::{Error, Result};
use crate::evaluation::ScoreForm;
use crate::extract::AnswerFormat;
use crate::verdict::{Direction, ScoreRange, Threshold};

/// The names of the keys the block accepts, in the order the schema lists them.
pub fn key_names() -> Vec<&'static str> {
    KEYS.iter().map(|(name, _)| *name).collect()
}

/// The keys of the block, each with the JSON Schema of its value (JSON text): read by
/// [`EvaluatorConfig::from_block`] and described by [`schema`].
const KEYS: &[(&str, &str)] = &[
    ("resultKey", r#"{"type": "string", "description": "Name of the result (default: the prompt's name)."}"#),
    (
        "answer",
        r#"{"enum": ["tags", "json", "number", "label"], "description": "How the judge answers (default: json)."}"#,
    ),
    (
        "range",
        r#"{"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2, "description": "The score range [min, max]; tag answers: single digits."}"#,
    ),
    ("validateRange", r#"{"type": "boolean", "description": "Whether a score outside `range` is an error."}"#),
    ("threshold", r#"{"type": "number", "description": "The pass threshold (default 3)."}"#),
    (
        "direction",
        r#"{"enum": ["higher", "lower", "equal"], "description": "Pass when the score is at or above (higher), at or below (lower) or equal to the threshold."}"#,
    ),
    ("scoreKey", STRINGS),
    ("reasonKey", STRINGS),
    ("propertiesKey", STRINGS),
    ("labelKey", STRINGS),
    ("statusKey", r#"{"type": "string", "description": "JSON answers: the key holding the status."}"#),
    ("scoreType", r#"{"enum": ["float", "int", "bool"], "description": "How the score is written in the result."}"#),
    (
        "strict",
        r#"{"type": "boolean", "description": "Whether an unreadable answer is an error instead of an unknown verdict."}"#,
    ),
    (
        "compat",
        r#"{"type": "string", "description": "Follow the azure-ai-evaluation evaluator of this name (result key or class name)."}"#,
    ),
    (
        "contract",
        r#"{"enum": ["1.13", "1.18", 1.13, 1.18], "description": "The azure-ai-evaluation judge contract: 1.13 (tags, evaluator-specific JSON) or 1.18 (JSON reason/score/status). Default: 1.18 when the prompt asks for JSON mode and a reason, score and status (skipped), else 1.13."}"#,
    ),
];

const STRINGS: &str = r#"{"description": "JSON answers: the key, or the keys tried in order.", "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]}"#;

/// The JSON Schema of the `metadata.evaluator` block, for the front matter schema
/// (`prompty_syntax::front_matter_schema_with(&[("evaluator", evaluator_schema())])`).
pub fn schema() -> Value {
    let mut properties = serde_json::Map::new();
    for (name, schema) in KEYS {
        // Every entry is JSON text, checked by `tests::the_schema_describes_every_key`.
        properties.insert((*name).to_owned(), serde_json::from_str(schema).unwrap_or(Value::Null));
    }
    let compat: Vec<&str> = AzureEvaluator::ALL.iter().map(|e| e.result_key()).collect();
    if let Some(Value::Object(c)) = properties.get_mut("compat") {
        c.insert("examples".to_owned(), compat.into());
    }
    serde_json::json!({
        "type": "object",
        "description": "How prompty-eval turns the judge's answer into a score.",
        "properties": properties,
        "additionalProperties": false
    })
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
        if let Some(unknown) = map.keys().find(|k| !KEYS.iter().any(|(name, _)| name == k)) {
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
        if let Some(v) = map.get("contract") {
            let name = match v {
                Value::Number(n) => n.to_string(),
                other => string_of("contract", other)?,
            };
            config.contract = Some(Contract::from_name(&name).ok_or_else(|| {
                Error::config(path("contract"), format!("`{name}` is not one of \"1.13\", \"1.18\""))
            })?);
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::tags::DigitRange;
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
            (json!({"evaluator": {"contract": "2.0"}}), "metadata.evaluator.contract"),
            (json!({"evaluator": {"contract": true}}), "metadata.evaluator.contract"),
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
    fn the_schema_describes_every_key_and_accepts_what_the_reader_accepts() {
        let schema = schema();
        let empty = serde_json::Map::new();
        let props = schema["properties"].as_object().unwrap_or(&empty);
        let described: Vec<&str> = props.keys().map(String::as_str).collect();
        let read: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
        assert_eq!(described, read);
        for (key, s) in props {
            assert!(s.is_object(), "{key}: the schema text is not a JSON object");
            let values = s.get("enum").or_else(|| s.get("examples")).and_then(Value::as_array);
            for value in values.into_iter().flatten() {
                let block = json!({ key.as_str(): value });
                assert!(EvaluatorConfig::from_block(&block).is_ok(), "{block} is described but refused");
            }
        }
        assert_eq!(
            EvaluatorConfig::from_block(&json!({"notAKey": 1})),
            Err(Error::UnknownConfigKey { key: "metadata.evaluator.notAKey".into() })
        );
    }
}
