//! Judge answers in every shape a recorded answer takes: the answer text, a JSON string,
//! `{"answer": ...}`, a provider response (OpenAI chat or Responses, Anthropic Messages), or
//! one line of a provider's batch results. Provider responses are read by
//! `prompty_wire::process`, the step that reads a live response too.

use prompty_wire::{Api, Output, ProcessResult, Provider, ResponseSpec};
use serde_json::{Map, Value};

use crate::error::Error;
use crate::evaluation::{JudgeReply, Usage};

/// A reply from an answer file's whole text or one answer line: a JSON string, or an object
/// of a known shape; anything else (the judge's own JSON, plain text) is the answer as
/// written.
pub fn from_text(text: &str) -> Result<JudgeReply, Error> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::String(s)) => Ok(JudgeReply::text(s)),
        Ok(Value::Object(o)) if known_shape(&o) => from_object(o),
        _ => Ok(JudgeReply::text(text)),
    }
}

/// Whether an object is a recorded answer, a provider response or a batch result line.
fn known_shape(o: &Map<String, Value>) -> bool {
    o.contains_key("answer")
        || (o.contains_key("custom_id") && (o.contains_key("response") || o.contains_key("result")))
        || o.contains_key("choices")
        || o.get("object").and_then(Value::as_str) == Some("response")
        || o.get("output").is_some_and(Value::is_array)
        || (o.get("content").is_some_and(Value::is_array)
            && (o.contains_key("stop_reason") || o.get("type").and_then(Value::as_str) == Some("message")))
}

/// A reply from a JSON value (see the module documentation). An object of no known shape
/// is the judge's own JSON answer, and is read as its text.
pub fn from_value(value: Value) -> Result<JudgeReply, Error> {
    match value {
        Value::String(s) => Ok(JudgeReply::text(s)),
        Value::Object(o) => from_object(o),
        other => Ok(JudgeReply::text(other.to_string())),
    }
}

fn from_object(o: Map<String, Value>) -> Result<JudgeReply, Error> {
    if let Some(answer) = o.get("answer") {
        let content = match answer {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let usage = o.get("usage").and_then(usage_from);
        let model = o.get("model").and_then(Value::as_str).map(str::to_owned);
        return Ok(JudgeReply { content: Some(content), usage, model, ..JudgeReply::default() });
    }
    // One line of a provider's batch results.
    if o.contains_key("custom_id") && (o.contains_key("response") || o.contains_key("result")) {
        let line = Value::Object(o).to_string();
        let result = prompty_client::batch::parse_result(&line).map_err(bad)?;
        return from_value(result.outcome.map_err(|message| Error::BadReply { message })?);
    }
    let spec = if o.contains_key("choices") {
        ResponseSpec::new(Provider::OpenAi, Api::Chat)
    } else if o.get("object").and_then(Value::as_str) == Some("response")
        || o.get("output").is_some_and(Value::is_array)
    {
        ResponseSpec::new(Provider::OpenAi, Api::Responses)
    } else if o.get("content").is_some_and(Value::is_array)
        && (o.contains_key("stop_reason") || o.get("type").and_then(Value::as_str) == Some("message"))
    {
        ResponseSpec::new(Provider::Anthropic, Api::Chat)
    } else {
        return Ok(JudgeReply::text(Value::Object(o).to_string()));
    };
    let role = role_of(&o);
    let processed = prompty_wire::process(&spec, &Value::Object(o)).map_err(bad)?;
    Ok(JudgeReply { role, ..from_processed(&processed) })
}

fn bad(e: impl std::fmt::Display) -> Error {
    Error::BadReply { message: e.to_string() }
}

/// The role the response gives its message.
fn role_of(o: &Map<String, Value>) -> Option<String> {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    s(o.get("role")).or_else(|| s(o.get("choices")?.get(0)?.get("message")?.get("role")))
}

/// A reply from a processed provider response: text as is, anything else (structured
/// output, tool calls) as its JSON text.
pub fn from_processed(r: &ProcessResult) -> JudgeReply {
    let content = match &r.output {
        Output::Text(s) | Output::Refusal(s) => s.clone(),
        other => other.to_value().to_string(),
    };
    let usage = r.usage.map(|u| {
        let input = u.input_tokens.unwrap_or(0);
        let output = u.output_tokens.unwrap_or(0);
        Usage {
            prompt_tokens: input,
            completion_tokens: output,
            total_tokens: u.total_tokens.unwrap_or(input + output),
        }
    });
    JudgeReply {
        content: Some(content),
        role: Some("assistant".to_owned()),
        usage,
        finish_reason: r.finish_reason.clone(),
        model: r.model.clone(),
    }
}

fn usage_from(u: &Value) -> Option<Usage> {
    let n = |k: &str| u.get(k).and_then(Value::as_u64);
    let input = n("prompt_tokens").or_else(|| n("input_tokens"))?;
    let output = n("completion_tokens").or_else(|| n("output_tokens"))?;
    Some(Usage {
        prompt_tokens: input,
        completion_tokens: output,
        total_tokens: n("total_tokens").unwrap_or(input + output),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_shape_gives_the_same_answer() {
        let answer = "<S2>4</S2>";
        let shapes = [
            answer.to_owned(),
            json!(answer).to_string(),
            json!({"answer": answer}).to_string(),
            json!({"choices": [{"message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]})
                .to_string(),
            json!({"object": "response", "output": [{"type": "message", "content": [{"type": "output_text", "text": answer}]}]})
                .to_string(),
            json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn"})
                .to_string(),
            json!({"custom_id": "row-1-abcdefabcdef", "response": {"status_code": 200, "body":
                {"choices": [{"message": {"content": answer}}]}}, "error": null})
            .to_string(),
            json!({"custom_id": "row-1-abcdefabcdef", "result": {"type": "succeeded", "message":
                {"content": [{"type": "text", "text": answer}], "stop_reason": "end_turn"}}})
            .to_string(),
        ];
        for shape in shapes {
            let reply = from_text(&shape);
            assert_eq!(reply.as_ref().map(JudgeReply::content_str).ok(), Some(answer), "{shape}");
        }
        let own_json = from_text(r#"{"score": 4, "reason": "ok"}"#);
        assert_eq!(own_json.ok().and_then(|r| r.content).as_deref(), Some(r#"{"score": 4, "reason": "ok"}"#));
        let err = from_text(r#"{"custom_id": "c", "result": {"type": "expired"}}"#);
        assert_eq!(err.err().map(|e| e.to_string()).as_deref(), Some("the request was expired"));
    }
}
