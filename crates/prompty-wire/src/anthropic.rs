//! Anthropic Messages request bodies.

use prompty_render::{Message, Part};
use prompty_syntax::Prompt;
use serde_json::{Map, Value, json};

use crate::common::{Ctx, float, int, put, strings, text_of};
use crate::media::{data_uri, is_http};
use crate::params::{self, JsonRequest, ParamSource};
use crate::{Error, Warning, schema};

/// `max_tokens` when `maxOutputTokens` is not set; the API requires one.
pub const DEFAULT_MAX_TOKENS: i64 = 4096;

/// `{model, system?, messages, max_tokens, ...options, tools?}`.
pub(crate) fn messages(ctx: &mut Ctx<'_>, messages: &[Message]) -> Result<Value, Error> {
    let mut system = Vec::new();
    let mut out = Vec::new();
    let mut started = false;
    for (i, m) in messages.iter().enumerate() {
        match m.role.as_str() {
            "system" | "developer" => {
                if started {
                    let w = Warning::MovedSystemMessage {
                        message: i,
                        role: m.role.clone(),
                        field: "system",
                        provider: ctx.provider,
                        api: ctx.api,
                    };
                    ctx.warn(w);
                }
                for p in &m.content {
                    if !matches!(p, Part::Text { .. }) {
                        return Err(ctx.unsupported_part(
                            i,
                            m,
                            crate::common::part_kind(p),
                            "system text is text only; move it to a user message",
                        ));
                    }
                }
                for k in m.metadata.keys() {
                    ctx.drop_metadata(i, m, k);
                }
                let text = text_of(m);
                if !text.is_empty() {
                    system.push(text);
                }
            }
            "user" | "assistant" | "tool" => {
                started = true;
                if let Some(msg) = message(ctx, i, m)? {
                    out.push(msg);
                }
            }
            _ => return Err(ctx.unsupported_role(i, m)),
        }
    }
    let mut tools = Vec::new();
    let own_tools = if ctx.legacy { Vec::new() } else { ctx.function_tools()? };
    for tool in own_tools {
        let mut t = Map::new();
        t.insert("name".into(), Value::String(tool.name.clone()));
        put(&mut t, "description", tool.description.clone().map(Value::String));
        t.insert("input_schema".into(), ctx.tool_parameters(tool, false)?);
        tools.push(Value::Object(t));
    }
    let o = ctx.options().cloned().unwrap_or_default();
    let mut body = Map::new();
    body.insert("model".into(), Value::String(ctx.model.clone()));
    if !system.is_empty() {
        body.insert("system".into(), Value::String(system.join("\n\n")));
    }
    body.insert("messages".into(), Value::Array(out));
    if !ctx.legacy {
        body.insert("max_tokens".into(), Value::from(o.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS)));
    }
    put(&mut body, "temperature", float(o.temperature));
    put(&mut body, "top_p", float(o.top_p));
    put(&mut body, "top_k", int(o.top_k));
    put(&mut body, "stop_sequences", strings(o.stop_sequences.as_ref()));
    ctx.drop_options(&["frequencyPenalty", "presencePenalty", "seed"]);
    let mut disable_parallel = false;
    if let Some(allow) = o.allow_multiple_tool_calls {
        if tools.is_empty() {
            let (provider, api) = (ctx.provider, ctx.api);
            ctx.warn(Warning::ParallelToolCallsWithoutTools { provider, api });
        } else {
            disable_parallel = !allow;
        }
    }
    let plan = json_plan(ctx.prompt, ctx.legacy);
    let mut reserved = Vec::new();
    if !tools.is_empty() {
        reserved.push("tools");
    }
    if disable_parallel || plan.tool.is_some() {
        reserved.push("tool_choice");
    }
    let json_params = ctx.merge_params(&mut body, &reserved);
    if ctx.legacy && !body.contains_key("max_tokens") {
        body.insert("max_tokens".into(), Value::from(DEFAULT_MAX_TOKENS));
    }
    // The JSON the reply must be: `outputs`, else a JSON `response_format`.
    let source = if ctx.legacy { ParamSource::Parameters } else { ParamSource::AdditionalProperties };
    let request = if ctx.legacy || ctx.outputs().is_empty() {
        json_params.into_iter().next().map(|(key, r)| (format!("{}.{key}", source.path()), r))
    } else {
        for (key, _) in json_params {
            let (provider, api) = (ctx.provider, ctx.api);
            ctx.warn(Warning::ShadowedParameter { source, key, field: "outputs".into(), provider, api });
        }
        let outputs = ctx.prompt.outputs.as_deref().unwrap_or_default();
        let schema = schema::object_schema(outputs, &[], "outputs", ctx.provider)?;
        Some(("outputs".to_owned(), JsonRequest::Schema(schema)))
    };
    let mut tool_choice = None;
    if let Some((what, request)) = request {
        let provider = ctx.provider;
        match (plan.tool, plan.blocker) {
            (Some(name), _) => {
                let input_schema = match request {
                    JsonRequest::Object => json!({ "type": "object" }),
                    JsonRequest::Schema(schema) => schema,
                };
                tools.push(
                    json!({ "name": name, "description": ANSWER_TOOL_DESCRIPTION, "input_schema": input_schema }),
                );
                // With tools of its own the model may call those first; any tool keeps the
                // reply from being free text.
                let mut choice =
                    if tools.len() == 1 { json!({ "type": "tool", "name": name }) } else { json!({ "type": "any" }) };
                if disable_parallel {
                    choice["disable_parallel_tool_use"] = Value::Bool(true);
                }
                tool_choice = Some(choice);
                ctx.answer_tool = Some(name.to_owned());
                ctx.warn(Warning::JsonAsTool { what, tool: name, provider });
            }
            (None, blocker) => {
                let reason = blocker.unwrap_or("no tool can carry it");
                ctx.warn(Warning::UnenforcedJson { what, reason, provider });
            }
        }
    }
    if tool_choice.is_none() && disable_parallel {
        tool_choice = Some(json!({ "type": "auto", "disable_parallel_tool_use": true }));
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    put(&mut body, "tool_choice", tool_choice);
    Ok(Value::Object(body))
}

/// The name of the tool that carries a JSON answer.
pub(crate) const ANSWER_TOOL: &str = "structured_output";

const ANSWER_TOOL_DESCRIPTION: &str =
    "Give your final answer by calling this tool: its input is the answer, a JSON object.";

/// How a request asks Anthropic for JSON: through the answer tool, or not at all and why.
struct JsonPlan {
    tool: Option<&'static str>,
    blocker: Option<&'static str>,
}

/// Whether JSON output can be forced through the answer tool: not when the request sets
/// its own `tool_choice`, when extended thinking is on (it allows only `auto`), or when a
/// tool of the prompt already has the answer tool's name. Decided from the prompt alone,
/// so that [`answer_tool`] and the request agree.
fn json_plan(prompt: &Prompt, legacy: bool) -> JsonPlan {
    let params = if legacy {
        prompt.legacy.as_ref().and_then(|l| l.parameters.as_ref())
    } else {
        prompt.model.as_ref().and_then(|m| m.options.as_ref()).and_then(|o| o.additional_properties.as_ref())
    };
    let has = |key: &str| params.is_some_and(|p| p.contains_key(key));
    let blocker = if has("tool_choice") {
        Some("the request sets its own `tool_choice`")
    } else if has("thinking") {
        Some("extended thinking (`thinking`) allows only an `auto` tool choice")
    } else if prompt.tools.iter().flatten().any(|t| t.name == ANSWER_TOOL) {
        Some("a tool of the prompt is already named `structured_output`")
    } else {
        None
    };
    JsonPlan { tool: blocker.is_none().then_some(ANSWER_TOOL), blocker }
}

/// The answer tool of `prompt`'s Anthropic request, when it asks for JSON and can force it.
pub(crate) fn answer_tool(prompt: &Prompt, legacy: bool) -> Option<String> {
    let params = if legacy {
        prompt.legacy.as_ref().and_then(|l| l.parameters.as_ref())
    } else {
        prompt.model.as_ref().and_then(|m| m.options.as_ref()).and_then(|o| o.additional_properties.as_ref())
    };
    let json_format = params.and_then(|p| p.get("response_format")).is_some_and(|v| {
        matches!(
            params::translate(crate::Provider::Anthropic, crate::Api::Chat, "response_format", v),
            params::Outcome::Json(_)
        )
    });
    let outputs = !legacy && prompt.outputs.as_ref().is_some_and(|o| !o.is_empty());
    if !(json_format || outputs) {
        return None;
    }
    json_plan(prompt, legacy).tool.map(str::to_owned)
}

/// One user, assistant or tool message as `{role, content: [blocks]}`; `None` (with a
/// warning) when it has no content to send.
fn message(ctx: &mut Ctx<'_>, i: usize, m: &Message) -> Result<Option<Value>, Error> {
    let mut blocks = Vec::new();
    let role = if m.role == "tool" {
        let id = ctx.tool_call_id(i, m)?;
        for k in m.metadata.keys().filter(|k| *k != "tool_call_id") {
            ctx.drop_metadata(i, m, k);
        }
        let mut result = Map::new();
        result.insert("type".into(), "tool_result".into());
        result.insert("tool_use_id".into(), Value::String(id));
        let mut content = Vec::new();
        for p in &m.content {
            if let Some(b) = block(ctx, i, m, p)? {
                content.push(b);
            }
        }
        if !content.is_empty() {
            result.insert("content".into(), Value::Array(content));
        }
        blocks.push(Value::Object(result));
        "user"
    } else {
        for p in &m.content {
            if let Some(b) = block(ctx, i, m, p)? {
                blocks.push(b);
            }
        }
        let calls = if m.role == "assistant" { ctx.tool_calls(i, m)? } else { Vec::new() };
        for k in m.metadata.keys().filter(|k| !(m.role == "assistant" && *k == "tool_calls")) {
            ctx.drop_metadata(i, m, k);
        }
        for c in calls {
            let input: Value = match serde_json::from_str(&c.arguments) {
                Ok(v @ Value::Object(_)) => v,
                _ => {
                    return Err(ctx.bad_metadata(
                        i,
                        m,
                        "tool_calls",
                        format!("has arguments for `{}` that are not a JSON object; pass the arguments as a JSON object string", c.name),
                    ));
                }
            };
            blocks.push(json!({ "type": "tool_use", "id": c.id, "name": c.name, "input": input }));
        }
        m.role.as_str()
    };
    if blocks.is_empty() {
        let w = Warning::DroppedEmptyMessage { message: i, role: m.role.clone(), provider: ctx.provider };
        ctx.warn(w);
        return Ok(None);
    }
    Ok(Some(json!({ "role": role, "content": blocks })))
}

/// One content block; `None` for empty text, which Anthropic rejects.
fn block(ctx: &Ctx<'_>, i: usize, m: &Message, p: &Part) -> Result<Option<Value>, Error> {
    Ok(Some(match p {
        Part::Text { value } if value.is_empty() => return Ok(None),
        Part::Text { value } => json!({ "type": "text", "text": value }),
        Part::Image { value, media_type, .. } => {
            json!({ "type": "image", "source": source(ctx, i, m, "image", value, media_type.as_deref())? })
        }
        Part::File { value, media_type } => {
            json!({ "type": "document", "source": source(ctx, i, m, "file", value, media_type.as_deref())? })
        }
        Part::Audio { .. } => {
            return Err(ctx.unsupported_part(i, m, "audio", "transcribe the audio first or target openai chat"));
        }
    }))
}

/// A block's `source`: `url` for http(s) URLs, otherwise `base64` with the media type
/// from `mediaType` or the data URI.
fn source(
    ctx: &Ctx<'_>,
    i: usize,
    m: &Message,
    part: &'static str,
    value: &str,
    media_type: Option<&str>,
) -> Result<Value, Error> {
    if is_http(value) {
        return Ok(json!({ "type": "url", "url": value }));
    }
    let media_type = media_type.map(str::trim).filter(|t| !t.is_empty());
    let (mime, data) = match data_uri(value) {
        Some(uri) if uri.base64 => (media_type.or(Some(uri.mime).filter(|t| !t.is_empty())), uri.data),
        Some(_) => {
            return Err(ctx.unsupported_part(
                i,
                m,
                part,
                "inline data must be base64: use a `data:<type>;base64,...` URI",
            ));
        }
        None => (media_type, value),
    };
    match mime {
        Some(mime) => Ok(json!({ "type": "base64", "media_type": mime, "data": data })),
        None => Err(ctx.missing_media_type(i, m, part)),
    }
}
