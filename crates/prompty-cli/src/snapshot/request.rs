//! The part of a snapshot that shows what would be sent besides the messages: the model,
//! the provider and API, the options (temperature, response format, tools) and the
//! connection fields, and the scoring settings of a judge prompt (`metadata.evaluator`:
//! threshold, range, answer format...), so that changing any of them changes the snapshot.

use prompty_render::Message;
use prompty_syntax::Prompt;
use serde_json::{Map, Value};

/// Request body keys that carry the messages (shown as text below the request).
const MESSAGE_KEYS: &[&str] = &["messages", "input", "instructions", "system", "prompt"];

/// Connection field names whose literal values are credentials.
const CREDENTIAL_WORDS: &[&str] =
    &["key", "secret", "token", "password", "credential", "connectionstring", "signature", "sas"];

/// The request and connection sections of a snapshot, each ending with a blank line.
/// `prompt` was loaded without the environment: an `${env:NAME}` field reads `${env:NAME}`.
pub(crate) fn sections(prompt: &Prompt, messages: &[Message]) -> String {
    let mut out = String::new();
    match prompty_wire::compile(prompt, messages, prompty_wire::Target::new()) {
        Ok(compiled) => {
            let mut body = match compiled.body {
                Value::Object(map) => map,
                other => Map::from_iter([("body".to_owned(), other)]),
            };
            for key in MESSAGE_KEYS {
                body.shift_remove(*key);
            }
            out.push_str(&format!("=== request: {} {} ===\n", compiled.provider, compiled.api));
            out.push_str(&pretty(&Value::Object(body)));
            for w in &compiled.warnings {
                out.push_str(&format!("warning: {w}\n"));
            }
            out.push('\n');
        }
        // A prompt that names no model has no request to show.
        Err(_) if prompt.model.as_ref().is_none_or(|m| m.id.is_empty()) && prompt.legacy.is_none() => {}
        Err(e) => out.push_str(&format!("=== request ===\nnot compiled: {e}\n\n")),
    }
    let connection = prompt
        .model
        .as_ref()
        .and_then(|m| m.connection.as_ref())
        .and_then(|c| serde_json::to_value(c).ok())
        .or_else(|| prompt.legacy.as_ref().and_then(|l| l.configuration.clone()).map(Value::Object));
    if let Some(Value::Object(fields)) = connection {
        let shown: Map<String, Value> = fields.into_iter().map(|(k, v)| (k.clone(), hide_credential(&k, v))).collect();
        out.push_str("=== connection ===\n");
        out.push_str(&pretty(&Value::Object(shown)));
        out.push('\n');
    }
    // How a judge prompt's answers are scored: a reviewer sees a changed threshold, range
    // or answer format as the diff of the prompt's snapshots, as a changed option.
    if let Some(evaluator) = prompt.metadata.as_ref().and_then(|m| m.get("evaluator")) {
        out.push_str("=== evaluator ===\n");
        out.push_str(&pretty(evaluator));
        out.push('\n');
    }
    out
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// A credential written literally in the file (or a `${file:}` it names) is not repeated in
/// the snapshot, at any depth; a reference such as `${env:NAME}` is shown as written.
fn hide_credential(key: &str, value: Value) -> Value {
    let lower = key.to_ascii_lowercase();
    match value {
        Value::String(s) if CREDENTIAL_WORDS.iter().any(|w| lower.contains(w)) && !is_reference(&s) => {
            Value::String("(literal value not shown)".to_owned())
        }
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k.clone(), hide_credential(&k, v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|v| hide_credential(key, v)).collect()),
        other => other,
    }
}

fn is_reference(s: &str) -> bool {
    s.starts_with("${") && s.ends_with('}') || s.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_credentials_are_hidden_at_any_depth_and_references_shown() {
        let fields = serde_json::json!({
            "endpoint": "https://example.invalid",
            "apiKey": "sk-literal",
            "connectionString": "AccountKey=abc",
            "auth": {"token": "t-literal", "header": "Authorization", "keys": ["k1", "${env:K2}"]},
            "password": "${env:PASSWORD}",
            "maxTokens": 5
        });
        let shown = hide_credential("connection", fields);
        assert_eq!(
            shown,
            serde_json::json!({
                "endpoint": "https://example.invalid",
                "apiKey": "(literal value not shown)",
                "connectionString": "(literal value not shown)",
                "auth": {
                    "token": "(literal value not shown)",
                    "header": "Authorization",
                    "keys": ["(literal value not shown)", "${env:K2}"]
                },
                "password": "${env:PASSWORD}",
                "maxTokens": 5
            })
        );
    }
}
