//! Free-form request parameters (v2 `model.options.additionalProperties`, v1
//! `model.parameters`) checked against the request fields of the target API: a field the
//! API takes is sent as written, an OpenAI chat completions field with an equivalent is
//! translated, anything else is left out with a warning naming the key and the provider.
//!
//! The field lists are the top-level request fields of each API reference:
//! chat completions, responses, embeddings and image generation (OpenAI), Messages
//! (Anthropic). `tests/data/request-schemas/` holds the same lists as JSON Schemas, which the
//! tests validate every compiled body against.

use serde_json::{Map, Value};

use crate::{Api, Provider};

/// Top-level fields of an OpenAI chat completions request.
pub(crate) const CHAT_FIELDS: &[&str] = &[
    "model",
    "messages",
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "metadata",
    "modalities",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "service_tier",
    "stop",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
];

/// Top-level fields of an OpenAI responses request.
pub(crate) const RESPONSES_FIELDS: &[&str] = &[
    "model",
    "input",
    "instructions",
    "background",
    "conversation",
    "include",
    "max_output_tokens",
    "max_tool_calls",
    "metadata",
    "parallel_tool_calls",
    "previous_response_id",
    "prompt",
    "prompt_cache_key",
    "prompt_cache_retention",
    "reasoning",
    "safety_identifier",
    "service_tier",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "truncation",
    "user",
];

/// Top-level fields of an OpenAI embeddings request.
pub(crate) const EMBEDDING_FIELDS: &[&str] = &["model", "input", "dimensions", "encoding_format", "user"];

/// Top-level fields of an OpenAI image generation request.
pub(crate) const IMAGE_FIELDS: &[&str] = &[
    "model",
    "prompt",
    "background",
    "moderation",
    "n",
    "output_compression",
    "output_format",
    "partial_images",
    "quality",
    "response_format",
    "size",
    "stream",
    "style",
    "user",
];

/// Top-level fields of an Anthropic Messages request.
pub(crate) const ANTHROPIC_FIELDS: &[&str] = &[
    "model",
    "messages",
    "max_tokens",
    "container",
    "context_management",
    "mcp_servers",
    "metadata",
    "output_config",
    "service_tier",
    "stop_sequences",
    "stream",
    "system",
    "temperature",
    "thinking",
    "tool_choice",
    "tools",
    "top_k",
    "top_p",
];

/// Options of the Python OpenAI client that are not request fields.
const CLIENT_OPTIONS: &[&str] = &["extra_headers", "extra_query", "extra_body", "timeout"];

/// The top-level request fields of `provider`'s `api`.
pub(crate) fn fields(provider: Provider, api: Api) -> &'static [&'static str] {
    match (provider.speaks_openai(), api) {
        (false, _) => ANTHROPIC_FIELDS,
        (true, Api::Chat) => CHAT_FIELDS,
        (true, Api::Responses) => RESPONSES_FIELDS,
        (true, Api::Embedding) => EMBEDDING_FIELDS,
        (true, Api::Image) => IMAGE_FIELDS,
    }
}

/// Where a parameter map comes from, as the warnings name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamSource {
    /// v2 `model.options.additionalProperties`.
    AdditionalProperties,
    /// v1 `model.parameters`.
    Parameters,
}

impl ParamSource {
    /// The key path of the map in the front matter.
    pub fn path(self) -> &'static str {
        match self {
            Self::AdditionalProperties => "model.options.additionalProperties",
            Self::Parameters => "model.parameters",
        }
    }
}

/// JSON output asked for by a parameter (`response_format`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JsonRequest {
    /// Any JSON object (`{type: json_object}`).
    Object,
    /// A JSON object with this schema (`{type: json_schema, json_schema: {schema}}`).
    Schema(Value),
}

/// What one parameter becomes on the target.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// Sent under this top-level key, with this value.
    Field(&'static str, Value),
    /// Sent as `outer.inner`.
    Nested(&'static str, &'static str, Value),
    /// JSON output, which the request builder expresses its own way.
    Json(JsonRequest),
    /// Not sent; the reason, to finish "... is not sent: ".
    Dropped(String),
    /// Not sent, and nothing is lost: the value is the one the API assumes without it
    /// (a penalty of 0, `n: 1`, `logprobs: false`, `response_format: text`).
    Neutral,
}

/// Whether leaving `key: value` out changes nothing: it is the OpenAI default.
fn neutral(key: &str, value: &Value) -> bool {
    match key {
        "frequency_penalty" | "presence_penalty" => value.as_f64() == Some(0.0),
        "n" => value.as_u64() == Some(1),
        "logprobs" | "parallel_tool_calls" => value.as_bool() == Some(matches!(key, "parallel_tool_calls")),
        "response_format" => value.get("type").and_then(Value::as_str) == Some("text"),
        _ => false,
    }
}

/// `key: value` of `source` as `provider`'s `api` takes it.
pub(crate) fn translate(provider: Provider, api: Api, key: &str, value: &Value) -> Outcome {
    if CLIENT_OPTIONS.contains(&key) {
        return Outcome::Dropped(format!(
            "it is an option of the OpenAI Python client, not a field of the {provider} {api} request"
        ));
    }
    let field = fields(provider, api).iter().copied().find(|f| *f == key);
    let outcome = match (provider.speaks_openai(), api) {
        (true, Api::Chat | Api::Embedding | Api::Image) => match field {
            Some(f) => Outcome::Field(f, value.clone()),
            None => no_such_field(provider, api, key),
        },
        (true, Api::Responses) => responses(key, value, field),
        (false, _) => anthropic(key, value, field),
    };
    match outcome {
        Outcome::Dropped(_) if neutral(key, value) => Outcome::Neutral,
        other => other,
    }
}

fn no_such_field(provider: Provider, api: Api, key: &str) -> Outcome {
    let also = if !provider.speaks_openai() {
        if CHAT_FIELDS.contains(&key) {
            " (it is an OpenAI chat completions field with no Anthropic equivalent)"
        } else {
            ""
        }
    } else if api != Api::Chat && CHAT_FIELDS.contains(&key) {
        " (it is a chat completions field)"
    } else if ANTHROPIC_FIELDS.contains(&key) {
        " (it is an Anthropic field)"
    } else {
        ""
    };
    Outcome::Dropped(format!(
        "the {provider} {api} API has no such field{also}; remove it or target a provider that takes it"
    ))
}

/// Responses: its own fields as written; chat completions fields renamed or nested.
fn responses(key: &str, value: &Value, field: Option<&'static str>) -> Outcome {
    let (provider, api) = (Provider::OpenAi, Api::Responses);
    match key {
        "max_tokens" | "max_completion_tokens" => Outcome::Field("max_output_tokens", value.clone()),
        "reasoning_effort" => Outcome::Nested("reasoning", "effort", value.clone()),
        "verbosity" => Outcome::Nested("text", "verbosity", value.clone()),
        "response_format" => match chat_format_to_text_format(value) {
            Some(format) => Outcome::Nested("text", "format", format),
            None => Outcome::Dropped(
                "its value is not a chat completions response format (`{type: text | json_object | json_schema}`)"
                    .to_owned(),
            ),
        },
        "tools" => match value.as_array().map(|tools| tools.iter().map(flat_function_tool).collect()) {
            Some(Some(tools)) => Outcome::Field("tools", Value::Array(tools)),
            _ => Outcome::Dropped(
                "only function tools (`{type: function, function: {name, parameters}}`) translate to responses tools"
                    .to_owned(),
            ),
        },
        "tool_choice" => match value {
            Value::String(_) => Outcome::Field("tool_choice", value.clone()),
            Value::Object(o) => match function_name(o) {
                Some(name) => Outcome::Field("tool_choice", serde_json::json!({ "type": "function", "name": name })),
                None => Outcome::Field("tool_choice", value.clone()),
            },
            _ => Outcome::Dropped("it is neither a string nor an object".to_owned()),
        },
        _ => match field {
            Some(f) => Outcome::Field(f, value.clone()),
            None => no_such_field(provider, api, key),
        },
    }
}

/// A chat completions `response_format` as a responses `text.format`.
fn chat_format_to_text_format(value: &Value) -> Option<Value> {
    let o = value.as_object()?;
    match o.get("type")?.as_str()? {
        "text" | "json_object" => Some(value.clone()),
        "json_schema" => {
            let spec = o.get("json_schema")?.as_object()?;
            let mut format = Map::new();
            format.insert("type".into(), "json_schema".into());
            for k in ["name", "description", "schema", "strict"] {
                if let Some(v) = spec.get(k) {
                    format.insert(k.into(), v.clone());
                }
            }
            Some(Value::Object(format))
        }
        _ => None,
    }
}

/// `{type: function, function: {name, ...}}` as `{type: function, name, ...}`; a flat
/// tool as it is.
fn flat_function_tool(tool: &Value) -> Option<Value> {
    let o = tool.as_object()?;
    match o.get("function") {
        Some(Value::Object(f)) => {
            let mut flat = Map::new();
            flat.insert("type".into(), "function".into());
            for (k, v) in f {
                flat.insert(k.clone(), v.clone());
            }
            Some(Value::Object(flat))
        }
        Some(_) => None,
        None => Some(tool.clone()),
    }
}

/// The function name of a chat completions `tool_choice` object.
fn function_name(o: &Map<String, Value>) -> Option<&str> {
    (o.get("type")?.as_str()? == "function").then_some(())?;
    o.get("function")?.get("name")?.as_str()
}

/// Anthropic: its own fields when the value has Anthropic's shape; chat completions
/// fields translated where Anthropic has an equivalent.
fn anthropic(key: &str, value: &Value, field: Option<&'static str>) -> Outcome {
    let (provider, api) = (Provider::Anthropic, Api::Chat);
    match key {
        "max_completion_tokens" => Outcome::Field("max_tokens", value.clone()),
        "stop" => match value {
            Value::String(s) => Outcome::Field("stop_sequences", Value::Array(vec![Value::String(s.clone())])),
            Value::Array(_) => Outcome::Field("stop_sequences", value.clone()),
            _ => Outcome::Dropped("it is neither a string nor a list of strings".to_owned()),
        },
        "user" => match value {
            Value::String(_) => Outcome::Nested("metadata", "user_id", value.clone()),
            _ => Outcome::Dropped("it is not a string".to_owned()),
        },
        "metadata" => match value.as_object() {
            Some(o) if o.keys().all(|k| k == "user_id") => Outcome::Field("metadata", value.clone()),
            _ => Outcome::Dropped("Anthropic `metadata` takes only `user_id`".to_owned()),
        },
        "service_tier" => match value.as_str() {
            Some("auto" | "standard_only") => Outcome::Field("service_tier", value.clone()),
            _ => Outcome::Dropped("Anthropic takes only `auto` or `standard_only`".to_owned()),
        },
        "response_format" => match value.get("type").and_then(Value::as_str) {
            Some("json_object") => Outcome::Json(JsonRequest::Object),
            Some("json_schema") => {
                match value.get("json_schema").and_then(|s| s.get("schema")).filter(|s| is_object_schema(s)) {
                    Some(schema) => Outcome::Json(JsonRequest::Schema(schema.clone())),
                    None => Outcome::Dropped(
                        "its `json_schema.schema` is not an object schema, which is what an Anthropic tool input takes"
                            .to_owned(),
                    ),
                }
            }
            Some("text") => Outcome::Neutral,
            _ => Outcome::Dropped(
                "its value is not a chat completions response format (`{type: text | json_object | json_schema}`)"
                    .to_owned(),
            ),
        },
        "tool_choice" => match anthropic_tool_choice(value) {
            Some(choice) => Outcome::Field("tool_choice", choice),
            None => Outcome::Dropped(
                "it is not a tool choice Anthropic has (`auto`, `required`, `none` or a named function)".to_owned(),
            ),
        },
        "tools" => match value.as_array().map(|tools| tools.iter().map(anthropic_tool).collect()) {
            Some(Some(tools)) => Outcome::Field("tools", Value::Array(tools)),
            _ => Outcome::Dropped("only function tools translate to Anthropic tools".to_owned()),
        },
        "parallel_tool_calls" => Outcome::Dropped(
            "Anthropic takes it as `tool_choice.disable_parallel_tool_use`; set `model.options.allowMultipleToolCalls` instead"
                .to_owned(),
        ),
        _ => match field {
            Some(f) => Outcome::Field(f, value.clone()),
            None => no_such_field(provider, api, key),
        },
    }
}

/// Whether `schema` describes a JSON object (`type: object`).
pub(crate) fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// A chat completions (or Anthropic) `tool_choice` in Anthropic's form.
fn anthropic_tool_choice(value: &Value) -> Option<Value> {
    use serde_json::json;
    match value {
        Value::String(s) => match s.as_str() {
            "auto" => Some(json!({ "type": "auto" })),
            "required" | "any" => Some(json!({ "type": "any" })),
            "none" => Some(json!({ "type": "none" })),
            _ => None,
        },
        Value::Object(o) => match o.get("type").and_then(Value::as_str)? {
            "function" => function_name(o).map(|name| json!({ "type": "tool", "name": name })),
            "auto" | "any" | "none" | "tool" => Some(value.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// A chat completions function tool (or an Anthropic tool) in Anthropic's form.
fn anthropic_tool(tool: &Value) -> Option<Value> {
    let o = tool.as_object()?;
    if o.contains_key("input_schema") {
        return Some(tool.clone());
    }
    let f = match o.get("function") {
        Some(Value::Object(f)) => f,
        _ => return None,
    };
    let mut t = Map::new();
    t.insert("name".into(), f.get("name")?.clone());
    if let Some(d) = f.get("description") {
        t.insert("description".into(), d.clone());
    }
    let schema = f.get("parameters").cloned().unwrap_or_else(|| serde_json::json!({ "type": "object" }));
    t.insert("input_schema".into(), schema);
    Some(Value::Object(t))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn chat_fields_pass_and_others_drop() {
        let t = |k: &str, v: Value| translate(Provider::OpenAi, Api::Chat, k, &v);
        assert_eq!(t("logprobs", json!(true)), Outcome::Field("logprobs", json!(true)));
        assert!(matches!(t("top_k", json!(4)), Outcome::Dropped(why) if why.contains("Anthropic field")));
        assert!(matches!(t("extra_headers", json!({})), Outcome::Dropped(why) if why.contains("Python client")));
        let t = |k: &str, v: Value| translate(Provider::OpenAi, Api::Image, k, &v);
        assert_eq!(t("size", json!("1024x1024")), Outcome::Field("size", json!("1024x1024")));
        assert!(matches!(t("logprobs", json!(true)), Outcome::Dropped(_)));
    }

    #[test]
    fn responses_translations() {
        let t = |k: &str, v: Value| translate(Provider::OpenAi, Api::Responses, k, &v);
        assert_eq!(t("max_tokens", json!(5)), Outcome::Field("max_output_tokens", json!(5)));
        assert_eq!(
            t("response_format", json!({"type": "json_object"})),
            Outcome::Nested("text", "format", json!({"type": "json_object"}))
        );
        assert_eq!(
            t(
                "response_format",
                json!({"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}, "strict": true}})
            ),
            Outcome::Nested(
                "text",
                "format",
                json!({"type": "json_schema", "name": "x", "schema": {"type": "object"}, "strict": true})
            )
        );
        assert_eq!(t("reasoning_effort", json!("low")), Outcome::Nested("reasoning", "effort", json!("low")));
        assert_eq!(
            t("tool_choice", json!({"type": "function", "function": {"name": "f"}})),
            Outcome::Field("tool_choice", json!({"type": "function", "name": "f"}))
        );
        assert!(matches!(t("seed", json!(1)), Outcome::Dropped(_)));
        assert!(matches!(t("stop", json!("x")), Outcome::Dropped(_)));
    }

    #[test]
    fn anthropic_translations() {
        let t = |k: &str, v: Value| translate(Provider::Anthropic, Api::Chat, k, &v);
        assert_eq!(t("max_tokens", json!(5)), Outcome::Field("max_tokens", json!(5)));
        assert_eq!(t("max_completion_tokens", json!(5)), Outcome::Field("max_tokens", json!(5)));
        assert_eq!(t("stop", json!("END")), Outcome::Field("stop_sequences", json!(["END"])));
        assert_eq!(t("user", json!("u1")), Outcome::Nested("metadata", "user_id", json!("u1")));
        assert_eq!(t("response_format", json!({"type": "json_object"})), Outcome::Json(JsonRequest::Object));
        assert_eq!(t("tool_choice", json!("required")), Outcome::Field("tool_choice", json!({"type": "any"})));
        assert_eq!(
            t("tool_choice", json!({"type": "function", "function": {"name": "f"}})),
            Outcome::Field("tool_choice", json!({"type": "tool", "name": "f"}))
        );
        assert_eq!(
            t("tools", json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}])),
            Outcome::Field("tools", json!([{"name": "f", "input_schema": {"type": "object"}}]))
        );
        for (k, v) in [
            ("seed", json!(1)),
            ("frequency_penalty", json!(0.5)),
            ("presence_penalty", json!(0.5)),
            ("logprobs", json!(true)),
            ("n", json!(2)),
        ] {
            assert!(matches!(t(k, v), Outcome::Dropped(_)), "{k}");
        }
        assert!(matches!(t("metadata", json!({"a": 1})), Outcome::Dropped(_)));
        assert_eq!(t("top_k", json!(3)), Outcome::Field("top_k", json!(3)));
    }
}
