//! OpenAI request bodies: chat completions, responses, embeddings and images. Azure and
//! Foundry take the same bodies.

use prompty_syntax::{Message, Part};
use serde_json::{Map, Value, json};

use crate::common::{Ctx, float, int, lone_text, part_kind, put, strings, text_of};
use crate::media::{data_uri, has_scheme, is_http};
use crate::{Error, Warning};

/// Roles a chat completions message may have.
const CHAT_ROLES: &[&str] = &["system", "user", "assistant", "developer", "tool", "function"];

/// Metadata keys a chat completions message carries.
const CHAT_METADATA: &[&str] = &["name", "tool_call_id", "tool_calls"];

/// `{model, messages, ...options, tools?, response_format?}`.
pub(crate) fn chat(ctx: &mut Ctx<'_>, messages: &[Message]) -> Result<Value, Error> {
    let mut body = Map::new();
    body.insert("model".into(), Value::String(ctx.model.clone()));
    body.insert("messages".into(), Value::Array(chat_messages(ctx, messages)?));
    let mut tools = Vec::new();
    for tool in ctx.function_tools()? {
        let strict = tool.strict == Some(true);
        let mut function = Map::new();
        function.insert("name".into(), Value::String(tool.name.clone()));
        put(&mut function, "description", tool.description.clone().map(Value::String));
        if strict {
            function.insert("strict".into(), Value::Bool(true));
        }
        function.insert("parameters".into(), ctx.tool_parameters(tool, strict)?);
        tools.push(json!({ "type": "function", "function": function }));
    }
    let response_format = ctx.output_schema()?.map(|schema| {
        json!({
            "type": "json_schema",
            "json_schema": { "name": "structured_output", "strict": true, "schema": schema },
        })
    });
    if let Some(o) = ctx.options().cloned() {
        put(&mut body, "temperature", float(o.temperature));
        put(&mut body, "max_completion_tokens", int(o.max_output_tokens));
        put(&mut body, "top_p", float(o.top_p));
        put(&mut body, "frequency_penalty", float(o.frequency_penalty));
        put(&mut body, "presence_penalty", float(o.presence_penalty));
        put(&mut body, "seed", int(o.seed));
        put(&mut body, "stop", strings(o.stop_sequences.as_ref()));
        ctx.drop_options(&["topK"]);
        parallel_tool_calls(ctx, &mut body, o.allow_multiple_tool_calls, !tools.is_empty());
    }
    let mut reserved = Vec::new();
    if !tools.is_empty() {
        reserved.push("tools");
    }
    if response_format.is_some() {
        reserved.push("response_format");
    }
    ctx.merge_params(&mut body, &reserved);
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    put(&mut body, "response_format", response_format);
    Ok(Value::Object(body))
}

/// `allowMultipleToolCalls` becomes `parallel_tool_calls`, which OpenAI takes only
/// alongside tools.
fn parallel_tool_calls(ctx: &mut Ctx<'_>, body: &mut Map<String, Value>, allow: Option<bool>, has_tools: bool) {
    if let Some(allow) = allow {
        if has_tools {
            body.insert("parallel_tool_calls".into(), Value::Bool(allow));
        } else {
            let (provider, api) = (ctx.provider, ctx.api);
            ctx.warn(Warning::ParallelToolCallsWithoutTools { provider, api });
        }
    }
}

/// The chat completions `messages` array.
pub(crate) fn chat_messages(ctx: &mut Ctx<'_>, messages: &[Message]) -> Result<Vec<Value>, Error> {
    let mut out = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        out.push(chat_message(ctx, i, m)?);
    }
    Ok(out)
}

/// `{role, name?, tool_call_id?, tool_calls?, content}`: one text part gives string
/// content, anything else an array of parts; an assistant message with tool calls and
/// no parts has no content.
fn chat_message(ctx: &mut Ctx<'_>, i: usize, m: &Message) -> Result<Value, Error> {
    if !CHAT_ROLES.contains(&m.role.as_str()) {
        return Err(ctx.unsupported_role(i, m));
    }
    // The API rejects a tool result without its call id and a function message without
    // its name.
    if m.role == "tool" {
        ctx.tool_call_id(i, m)?;
    }
    if m.role == "function" && !m.metadata.get("name").is_some_and(Value::is_string) {
        return Err(ctx.bad_metadata(
            i,
            m,
            "name",
            "is missing; a function result must name its function (`function[name=...]:`)",
        ));
    }
    let mut w = Map::new();
    w.insert("role".into(), Value::String(m.role.clone()));
    for (k, v) in &m.metadata {
        if CHAT_METADATA.contains(&k.as_str()) {
            w.insert(k.clone(), v.clone());
        } else {
            ctx.drop_metadata(i, m, k);
        }
    }
    let content = match m.content.as_slice() {
        [] if w.contains_key("tool_calls") => None,
        [] => Some(Value::String(String::new())),
        [Part::Text { value }] => Some(Value::String(value.clone())),
        parts => {
            let mut list = Vec::with_capacity(parts.len());
            for p in parts {
                list.push(chat_part(ctx, i, m, p)?);
            }
            Some(Value::Array(list))
        }
    };
    put(&mut w, "content", content);
    Ok(Value::Object(w))
}

fn chat_part(ctx: &Ctx<'_>, i: usize, m: &Message, p: &Part) -> Result<Value, Error> {
    Ok(match p {
        Part::Text { value } => json!({ "type": "text", "text": value }),
        Part::Image { value, detail, media_type } => {
            let mut image_url = Map::new();
            image_url.insert("url".into(), Value::String(image_url_of(ctx, i, m, value, media_type.as_deref())?));
            if let Some(d) = detail.as_deref().filter(|d| !d.is_empty()) {
                image_url.insert("detail".into(), Value::String(d.to_owned()));
            }
            json!({ "type": "image_url", "image_url": image_url })
        }
        Part::Audio { value, media_type } => {
            let (data, format) = audio_of(ctx, i, m, value, media_type.as_deref())?;
            json!({ "type": "input_audio", "input_audio": { "data": data, "format": format } })
        }
        Part::File { value, .. } => json!({ "type": "file", "file": { "url": value } }),
    })
}

/// An image's URL: URLs and data URIs as given, bare base64 wrapped in a data URI.
fn image_url_of(ctx: &Ctx<'_>, i: usize, m: &Message, value: &str, media_type: Option<&str>) -> Result<String, Error> {
    if has_scheme(value) {
        return Ok(value.to_owned());
    }
    match media_type.map(str::trim).filter(|t| !t.is_empty()) {
        Some(mt) => Ok(format!("data:{mt};base64,{value}")),
        None => Err(ctx.missing_media_type(i, m, "image")),
    }
}

/// Audio data and its `format`: a data URI gives both; otherwise the data is the value
/// and the format comes from `mediaType`.
fn audio_of(
    ctx: &Ctx<'_>,
    i: usize,
    m: &Message,
    value: &str,
    media_type: Option<&str>,
) -> Result<(String, String), Error> {
    let media_type = media_type.map(str::trim).filter(|t| !t.is_empty());
    let (data, mime) = match data_uri(value) {
        Some(uri) => (uri.data, media_type.or(Some(uri.mime).filter(|t| !t.is_empty()))),
        None => (value, media_type),
    };
    match mime {
        Some(mime) => Ok((data.to_owned(), crate::media::audio_format(mime))),
        None => Err(ctx.missing_media_type(i, m, "audio")),
    }
}

/// `{model, instructions?, input, ...options, tools?, text?}`.
pub(crate) fn responses(ctx: &mut Ctx<'_>, messages: &[Message]) -> Result<Value, Error> {
    let mut instructions = Vec::new();
    let mut input = Vec::new();
    let mut started = false;
    for (i, m) in messages.iter().enumerate() {
        if matches!(m.role.as_str(), "system" | "developer") {
            if started {
                let w = Warning::MovedSystemMessage {
                    message: i,
                    role: m.role.clone(),
                    field: "instructions",
                    provider: ctx.provider,
                    api: ctx.api,
                };
                ctx.warn(w);
            }
            ignore_non_text(ctx, i, m);
            for k in m.metadata.keys() {
                ctx.drop_metadata(i, m, k);
            }
            let text = text_of(m);
            if !text.is_empty() {
                instructions.push(text);
            }
        } else {
            started = true;
            responses_items(ctx, i, m, &mut input)?;
        }
    }
    let mut tools = Vec::new();
    for tool in ctx.function_tools()? {
        let strict = tool.strict == Some(true);
        let mut t = Map::new();
        t.insert("type".into(), "function".into());
        t.insert("name".into(), Value::String(tool.name.clone()));
        put(&mut t, "description", tool.description.clone().map(Value::String));
        t.insert("parameters".into(), ctx.tool_parameters(tool, strict)?);
        if strict {
            t.insert("strict".into(), Value::Bool(true));
        }
        tools.push(Value::Object(t));
    }
    let text = ctx.output_schema()?.map(|schema| {
        json!({
            "format": { "type": "json_schema", "name": "structured_output", "schema": schema, "strict": true },
        })
    });
    let mut body = Map::new();
    body.insert("model".into(), Value::String(ctx.model.clone()));
    if !instructions.is_empty() {
        body.insert("instructions".into(), Value::String(instructions.join("\n\n")));
    }
    body.insert("input".into(), Value::Array(input));
    if let Some(o) = ctx.options().cloned() {
        put(&mut body, "temperature", float(o.temperature));
        put(&mut body, "max_output_tokens", int(o.max_output_tokens));
        put(&mut body, "top_p", float(o.top_p));
        ctx.drop_options(&["topK", "frequencyPenalty", "presencePenalty", "seed", "stopSequences"]);
        parallel_tool_calls(ctx, &mut body, o.allow_multiple_tool_calls, !tools.is_empty());
    }
    let mut reserved = Vec::new();
    if !tools.is_empty() {
        reserved.push("tools");
    }
    if text.is_some() {
        reserved.push("text");
    }
    ctx.merge_params(&mut body, &reserved);
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    put(&mut body, "text", text);
    Ok(Value::Object(body))
}

/// One message as Responses input items: a message item, and for tool calls and tool
/// results `function_call` / `function_call_output` items.
fn responses_items(ctx: &mut Ctx<'_>, i: usize, m: &Message, input: &mut Vec<Value>) -> Result<(), Error> {
    // A function call recorded by an earlier agent-loop turn, and its result.
    if let Some(Value::Object(call)) = m.metadata.get("responses_function_call") {
        let call_id = ctx.tool_call_id(i, m)?;
        input.push(Value::Object(call.clone()));
        input.push(json!({ "type": "function_call_output", "call_id": call_id, "output": text_of(m) }));
        for k in m.metadata.keys().filter(|k| !matches!(k.as_str(), "responses_function_call" | "tool_call_id")) {
            ctx.drop_metadata(i, m, k);
        }
        return Ok(());
    }
    match m.role.as_str() {
        "tool" => {
            let call_id = ctx.tool_call_id(i, m)?;
            ignore_non_text(ctx, i, m);
            input.push(json!({ "type": "function_call_output", "call_id": call_id, "output": text_of(m) }));
            for k in m.metadata.keys().filter(|k| *k != "tool_call_id") {
                ctx.drop_metadata(i, m, k);
            }
        }
        "user" | "assistant" => {
            let calls = if m.role == "assistant" { ctx.tool_calls(i, m)? } else { Vec::new() };
            for k in m.metadata.keys().filter(|k| !(m.role == "assistant" && *k == "tool_calls")) {
                ctx.drop_metadata(i, m, k);
            }
            let empty = m.content.iter().all(|p| matches!(p, Part::Text { value } if value.is_empty()));
            if calls.is_empty() || !empty {
                let content = match lone_text(m) {
                    Some(text) => Value::String(text.to_owned()),
                    None => {
                        let mut parts = Vec::with_capacity(m.content.len());
                        for p in &m.content {
                            parts.push(responses_part(ctx, i, m, p)?);
                        }
                        Value::Array(parts)
                    }
                };
                input.push(json!({ "role": m.role, "content": content }));
            }
            for c in calls {
                input.push(json!({
                    "type": "function_call",
                    "call_id": c.id,
                    "name": c.name,
                    "arguments": c.arguments,
                }));
            }
        }
        _ => return Err(ctx.unsupported_role(i, m)),
    }
    Ok(())
}

fn responses_part(ctx: &Ctx<'_>, i: usize, m: &Message, p: &Part) -> Result<Value, Error> {
    Ok(match p {
        Part::Text { value } if m.role == "assistant" => json!({ "type": "output_text", "text": value }),
        Part::Text { value } => json!({ "type": "input_text", "text": value }),
        Part::Image { value, detail, media_type } => {
            let mut part = Map::new();
            part.insert("type".into(), "input_image".into());
            part.insert("image_url".into(), Value::String(image_url_of(ctx, i, m, value, media_type.as_deref())?));
            if let Some(d) = detail.as_deref().filter(|d| !d.is_empty()) {
                part.insert("detail".into(), Value::String(d.to_owned()));
            }
            Value::Object(part)
        }
        Part::File { value, .. } if is_http(value) => json!({ "type": "input_file", "file_url": value }),
        Part::File { value, .. } if data_uri(value).is_some() => json!({ "type": "input_file", "file_data": value }),
        Part::File { value, .. } => json!({ "type": "input_file", "file_id": value }),
        Part::Audio { .. } => {
            return Err(ctx.unsupported_part(i, m, "audio", "use apiType `chat` for audio input"));
        }
    })
}

/// Warns about every non-text part of a message whose text alone is sent.
fn ignore_non_text(ctx: &mut Ctx<'_>, i: usize, m: &Message) {
    for p in &m.content {
        if !matches!(p, Part::Text { .. }) {
            let w = Warning::IgnoredPart { message: i, part: part_kind(p), provider: ctx.provider, api: ctx.api };
            ctx.warn(w);
        }
    }
}

/// Options, tools and outputs an embeddings or images request cannot take.
fn text_only_request(ctx: &mut Ctx<'_>, body: &mut Map<String, Value>) {
    // Every option but the provider-specific pass-through.
    let sampling: Vec<&str> =
        prompty_syntax::OPTION_KEYS.iter().map(|k| k.name).filter(|k| *k != "additionalProperties").collect();
    ctx.drop_options(&sampling);
    let (provider, api) = (ctx.provider, ctx.api);
    if !ctx.tools().is_empty() {
        ctx.warn(Warning::IgnoredTools { provider, api });
    }
    if !ctx.outputs().is_empty() {
        ctx.warn(Warning::IgnoredOutputs { provider, api });
    }
    ctx.merge_params(body, &[]);
}

/// `{model, input}`: the one text, or every text part in order.
pub(crate) fn embedding(ctx: &mut Ctx<'_>, messages: &[Message]) -> Result<Value, Error> {
    let mut texts = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        ignore_non_text(ctx, i, m);
        for p in &m.content {
            if let Part::Text { value } = p {
                texts.push(Value::String(value.clone()));
            }
        }
    }
    let input = match texts.len() {
        0 => return Err(Error::NothingToEmbed { provider: ctx.provider }),
        1 => texts.pop().unwrap_or_default(),
        _ => Value::Array(texts),
    };
    let mut body = Map::new();
    body.insert("model".into(), Value::String(ctx.model.clone()));
    body.insert("input".into(), input);
    text_only_request(ctx, &mut body);
    Ok(Value::Object(body))
}

/// `{model, prompt}`: the text of the last user message, or `""`.
pub(crate) fn image(ctx: &mut Ctx<'_>, messages: &[Message]) -> Result<Value, Error> {
    let last_user = messages.iter().enumerate().rev().find(|(_, m)| m.role == "user");
    let prompt = match last_user {
        Some((i, m)) => {
            ignore_non_text(ctx, i, m);
            text_of(m)
        }
        None => String::new(),
    };
    if prompt.is_empty() {
        let provider = ctx.provider;
        ctx.warn(Warning::EmptyImagePrompt { provider });
    }
    let mut body = Map::new();
    body.insert("model".into(), Value::String(ctx.model.clone()));
    body.insert("prompt".into(), Value::String(prompt));
    text_only_request(ctx, &mut body);
    Ok(Value::Object(body))
}
