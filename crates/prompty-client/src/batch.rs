//! Provider batch files: the input lines for OpenAI Batch and Anthropic Message Batches,
//! and the results they write, matched back to data rows by `custom_id`.
//!
//! A `custom_id` is `row-{line}-{hash}`: the data line and the first 12 hex digits of the
//! SHA-256 of the request body. Scoring recomputes the body of each row, so results from
//! another data file, another prompt or another model are refused instead of scored.

use prompty_wire::Api;
use serde_json::{Map, Value};

use crate::cache::short_hash;
use crate::error::Error;

/// The provider batch format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchFormat {
    /// OpenAI (and Azure OpenAI) Batch: JSON lines `{custom_id, method, url, body}`.
    OpenAi,
    /// Anthropic Message Batches: the `POST /v1/messages/batches` body
    /// `{"requests": [{custom_id, params}, ...]}`, one request per line.
    Anthropic,
}

/// The `custom_id` of data line `line` whose request body is `body`.
pub fn custom_id(line: u64, body: &[u8]) -> String {
    format!("row-{line}-{}", short_hash(body))
}

/// The data line a `custom_id` names, if it is one of ours.
pub fn line_of(custom_id: &str) -> Option<u64> {
    let rest = custom_id.strip_prefix("row-")?;
    let (line, hash) = rest.split_once('-')?;
    (hash.len() == 12 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then_some(())?;
    line.parse().ok().filter(|l| *l > 0)
}

/// The URL an OpenAI batch line names for `api`.
fn openai_url(api: Api) -> Result<&'static str, Error> {
    match api {
        Api::Chat => Ok("/v1/chat/completions"),
        Api::Responses => Ok("/v1/responses"),
        Api::Embedding => Ok("/v1/embeddings"),
        _ => Err(Error::Unsupported(format!("the OpenAI Batch API does not take `{api}` requests"))),
    }
}

/// What comes before the first request.
pub fn header(format: BatchFormat) -> &'static str {
    match format {
        BatchFormat::OpenAi => "",
        BatchFormat::Anthropic => "{\"requests\": [\n",
    }
}

/// What comes after the last request.
pub fn footer(format: BatchFormat) -> &'static str {
    match format {
        BatchFormat::OpenAi => "",
        BatchFormat::Anthropic => "\n]}\n",
    }
}

/// What separates two requests.
pub fn separator(format: BatchFormat) -> &'static str {
    match format {
        BatchFormat::OpenAi => "\n",
        BatchFormat::Anthropic => ",\n",
    }
}

/// One request of the batch file (without separators).
pub fn request_line(format: BatchFormat, api: Api, custom_id: &str, body: &Value) -> Result<String, Error> {
    let mut m = Map::new();
    m.insert("custom_id".into(), Value::String(custom_id.to_owned()));
    match format {
        BatchFormat::OpenAi => {
            m.insert("method".into(), Value::String("POST".into()));
            m.insert("url".into(), Value::String(openai_url(api)?.into()));
            m.insert("body".into(), body.clone());
        }
        BatchFormat::Anthropic => {
            if api != Api::Chat {
                return Err(Error::Unsupported(format!("anthropic has no `{api}` API")));
            }
            m.insert("params".into(), body.clone());
        }
    }
    Ok(Value::Object(m).to_string())
}

/// One line of a provider's batch results.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchResult {
    /// The request's `custom_id`.
    pub custom_id: String,
    /// The response body, or why there is none.
    pub outcome: Result<Value, String>,
}

/// Reads one result line: OpenAI `{custom_id, response: {status_code, body}, error}` or
/// Anthropic `{custom_id, result: {type, message | error}}`.
pub fn parse_result(line: &str) -> Result<BatchResult, Error> {
    let bad = |what: &str| Error::BadReply(format!("not a batch result line: {what}"));
    let v: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
    let custom_id = v.get("custom_id").and_then(Value::as_str).ok_or_else(|| bad("no `custom_id`"))?.to_owned();
    let message_of = |e: &Value| {
        e.get("message")
            .and_then(Value::as_str)
            .or_else(|| e.get("error").and_then(|x| x.get("message")).and_then(Value::as_str))
            .map_or_else(|| e.to_string(), str::to_owned)
    };
    if let Some(result) = v.get("result") {
        let kind = result.get("type").and_then(Value::as_str).unwrap_or_default();
        let outcome = match kind {
            "succeeded" => result.get("message").cloned().ok_or_else(|| "the result has no message".to_owned()),
            "errored" => Err(format!("errored: {}", result.get("error").map_or_else(String::new, message_of))),
            "canceled" | "expired" => Err(format!("the request was {kind}")),
            other => return Err(bad(&format!("unknown result type `{other}`"))),
        };
        return Ok(BatchResult { custom_id, outcome });
    }
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        return Ok(BatchResult { custom_id, outcome: Err(message_of(err)) });
    }
    let response = v.get("response").filter(|r| !r.is_null()).ok_or_else(|| bad("no `response` or `result`"))?;
    let status = response.get("status_code").and_then(Value::as_u64).unwrap_or(200);
    let body = response.get("body").cloned().unwrap_or(Value::Null);
    let outcome = if (200..300).contains(&status) {
        Ok(body)
    } else {
        let message = body.get("error").map_or_else(|| body.to_string(), message_of);
        Err(format!("HTTP {status}: {message}"))
    };
    Ok(BatchResult { custom_id, outcome })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_name_the_line_and_the_body() {
        let id = custom_id(12, b"{}");
        assert_eq!(line_of(&id), Some(12));
        assert_eq!(id.len(), "row-12-".len() + 12);
        assert_ne!(id, custom_id(12, b"{ }"));
        for bad in ["row-0-abcdefabcdef", "row-x-abcdefabcdef", "row-1-abc", "12", "row-1-zzzzzzzzzzzz"] {
            assert_eq!(line_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn request_lines() {
        let body = json!({"model": "m", "messages": []});
        let line = request_line(BatchFormat::OpenAi, Api::Chat, "row-1-x", &body).ok();
        assert_eq!(
            line.as_deref(),
            Some(
                r#"{"custom_id":"row-1-x","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}"#
            )
        );
        let line = request_line(BatchFormat::Anthropic, Api::Chat, "row-1-x", &body).ok();
        assert_eq!(line.as_deref(), Some(r#"{"custom_id":"row-1-x","params":{"model":"m","messages":[]}}"#));
        assert!(request_line(BatchFormat::OpenAi, Api::Image, "i", &body).is_err());
        let file = format!(
            "{}{}{}{}{}",
            header(BatchFormat::Anthropic),
            r#"{"a":1}"#,
            separator(BatchFormat::Anthropic),
            r#"{"b":2}"#,
            footer(BatchFormat::Anthropic)
        );
        assert_eq!(serde_json::from_str::<Value>(&file).ok(), Some(json!({"requests": [{"a": 1}, {"b": 2}]})));
    }

    #[test]
    fn result_lines() {
        let ok = r#"{"id":"b1","custom_id":"row-1-x","response":{"status_code":200,"request_id":"r","body":{"choices":[]}},"error":null}"#;
        assert_eq!(parse_result(ok).map(|r| r.outcome), Ok(Ok(json!({"choices": []}))));
        let http =
            r#"{"custom_id":"c","response":{"status_code":400,"body":{"error":{"message":"bad model"}}},"error":null}"#;
        assert_eq!(parse_result(http).map(|r| r.outcome), Ok(Err("HTTP 400: bad model".into())));
        let err = r#"{"custom_id":"c","response":null,"error":{"code":"x","message":"expired"}}"#;
        assert_eq!(parse_result(err).map(|r| r.outcome), Ok(Err("expired".into())));
        let a = r#"{"custom_id":"c","result":{"type":"succeeded","message":{"content":[]}}}"#;
        assert_eq!(parse_result(a).map(|r| r.outcome), Ok(Ok(json!({"content": []}))));
        let a = r#"{"custom_id":"c","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"too long"}}}}"#;
        assert_eq!(parse_result(a).map(|r| r.outcome), Ok(Err("errored: too long".into())));
        let a = r#"{"custom_id":"c","result":{"type":"expired"}}"#;
        assert_eq!(parse_result(a).map(|r| r.outcome), Ok(Err("the request was expired".into())));
        for bad in ["[]", "{}", r#"{"custom_id":"c"}"#, r#"{"custom_id":"c","result":{"type":"?"}}"#, "nope"] {
            assert!(parse_result(bad).is_err(), "{bad}");
        }
    }
}
