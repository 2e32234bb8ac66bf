//! Flattening agent message lists into the text that judge prompts expect.
//!
//! The functions follow azure-ai-evaluation's helpers of the same names,
//! including how they give up: where the reference hits a Python error on an
//! unexpected shape and falls back to the original value, these functions
//! return the original value too (so a raw list reaches the template, where
//! it renders as a Python repr).
//!
//! Messages look like `{"role": "...", "content": [{"type": "text", "text":
//! "..."}, {"type": "tool_call", ...}]}`. String content is *not* read as
//! text (the reference iterates it character by character and finds none).
//!
//! The output of [`reformat_conversation_history`]:
//!
//! ```text
//! SYSTEM_PROMPT:
//!   <system text>
//!
//! User turn 1:
//!   <each text part; inner newlines indented>
//!
//! Agent turn 1:
//!   <each line of the agent turn>
//!
//! User turn 2:
//!   <text>
//!
//! ```

use serde_json::{Map, Value};

use crate::py;

/// Which release of azure-ai-evaluation to follow where they differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RefVersion {
    /// 1.13.3: tool-call arguments always quoted (`k="True"`), tool results
    /// as Python `str()`, system content must be a string.
    #[default]
    V1_13_3,
    /// 1.18.10: string arguments quoted, others bare (`k=True`, `k=None`),
    /// tool results as JSON (`""` for none), list system content joined.
    V1_18_10,
    /// 1.18.10's `_tool_call_success` module, which formats tool calls with its own
    /// copy of the helpers: arguments always quoted as in 1.13.3 (`k="True"`), tool
    /// results as JSON as in 1.18.10.
    V1_18_10ToolCallSuccess,
}

/// Raised where the reference would hit a Python error and fall back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Malformed;

type Flat<T> = Result<T, Malformed>;

/// Python's `key in container` for a string key.
fn py_contains(container: &Value, key: &str) -> Flat<bool> {
    match container {
        Value::Object(map) => Ok(map.contains_key(key)),
        Value::String(s) => Ok(s.contains(key)),
        Value::Array(items) => Ok(items.iter().any(|v| v.as_str() == Some(key))),
        _ => Err(Malformed),
    }
}

/// Python's `obj.get(key)` (only dicts have it).
fn py_get<'v>(obj: &'v Value, key: &str) -> Flat<Option<&'v Value>> {
    match obj {
        Value::Object(map) => Ok(map.get(key)),
        _ => Err(Malformed),
    }
}

/// Python's `for item in value`, yielding owned items (characters of a
/// string, keys of a dict).
fn py_iter(value: &Value) -> Flat<Vec<Value>> {
    match value {
        Value::Array(items) => Ok(items.clone()),
        Value::String(s) => Ok(s.chars().map(|c| Value::String(c.to_string())).collect()),
        Value::Object(map) => Ok(map.keys().map(|k| Value::String(k.clone())).collect()),
        _ => Err(Malformed),
    }
}

/// Python truthiness of a JSON value.
pub(crate) fn py_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python `==` between two JSON values used as dict keys (numbers compare
/// by value, booleans equal 1 and 0).
fn py_eq(a: &Value, b: &Value) -> bool {
    let num = |v: &Value| match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    };
    match (num(a), num(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Whether a value can be a Python dict key.
fn hashable(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

/// The text parts of a message content (`[p["text"] for p in content if
/// "text" in p]`).
fn text_parts(content: &Value) -> Flat<Vec<Value>> {
    let mut out = Vec::new();
    for part in py_iter(content)? {
        if py_contains(&part, "text")? {
            match py_get(&part, "text")? {
                Some(text) => out.push(text.clone()),
                None => return Err(Malformed),
            }
        }
    }
    Ok(out)
}

fn as_str(value: &Value) -> Flat<&str> {
    value.as_str().ok_or(Malformed)
}

/// Python's `str.join` over values that must all be strings.
fn join_strs(parts: &[Value], sep: &str) -> Flat<String> {
    let strs = parts.iter().map(as_str).collect::<Flat<Vec<&str>>>()?;
    Ok(strs.join(sep))
}

fn format_argument(key: &str, value: &Value, version: RefVersion) -> String {
    match version {
        RefVersion::V1_13_3 | RefVersion::V1_18_10ToolCallSuccess => format!("{key}=\"{}\"", py::str_of(value)),
        RefVersion::V1_18_10 => match value {
            Value::String(s) => format!("{key}=\"{s}\""),
            other => format!("{key}={}", py::str_of(other)),
        },
    }
}

fn format_result(result: Option<&Value>, version: RefVersion) -> String {
    let text = match version {
        RefVersion::V1_13_3 => py::str_of(result.unwrap_or(&Value::Null)),
        RefVersion::V1_18_10 | RefVersion::V1_18_10ToolCallSuccess => match result {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => py::json_dumps_unicode(other),
        },
    };
    format!("[TOOL_RESULT] {text}")
}

/// The lines of one agent turn: text parts of assistant messages and, with
/// `include_tools`, `[TOOL_CALL]`/`[TOOL_RESULT]` lines. With
/// `include_text` off only the tool lines are produced.
fn agent_lines(messages: &Value, include_text: bool, include_tools: bool, version: RefVersion) -> Flat<Vec<Value>> {
    let msgs = py_iter(messages)?;
    let mut results: Vec<(Value, String)> = Vec::new();
    if include_tools {
        for msg in &msgs {
            let is_tool = py_get(msg, "role")?.and_then(Value::as_str) == Some("tool");
            if is_tool && py_contains(msg, "tool_call_id")? {
                let id = py_get(msg, "tool_call_id")?.cloned().unwrap_or(Value::Null);
                let content = py_get(msg, "content")?.cloned().unwrap_or(Value::Array(Vec::new()));
                for part in py_iter(&content)? {
                    if py_get(&part, "type")?.and_then(Value::as_str) == Some("tool_result") {
                        if !hashable(&id) {
                            return Err(Malformed);
                        }
                        let line = format_result(py_get(&part, "tool_result")?, version);
                        match results.iter_mut().find(|(k, _)| py_eq(k, &id)) {
                            Some(slot) => slot.1 = line,
                            None => results.push((id.clone(), line)),
                        }
                    }
                }
            }
        }
    }
    let mut lines = Vec::new();
    for msg in &msgs {
        if !(py_contains(msg, "role")?
            && py_get(msg, "role")?.and_then(Value::as_str) == Some("assistant")
            && py_contains(msg, "content")?)
        {
            continue;
        }
        let content = py_get(msg, "content")?.cloned().unwrap_or(Value::Null);
        let texts = text_parts(&content)?;
        if include_text {
            lines.extend(texts);
        }
        if !include_tools {
            continue;
        }
        for part in py_iter(&content)? {
            if py_get(&part, "type")?.and_then(Value::as_str) != Some("tool_call") {
                continue;
            }
            let nested = match py_get(&part, "tool_call")? {
                Some(tc) => py_contains(tc, "function")?,
                None => false,
            };
            let (id, name, args) = if nested {
                let tc = py_get(&part, "tool_call")?.cloned().unwrap_or(Value::Null);
                let function = py_get(&tc, "function")?.cloned().unwrap_or(Value::Null);
                let name = py_get(&function, "name")?.cloned().unwrap_or(Value::String(String::new()));
                let args = py_get(&function, "arguments")?.cloned().unwrap_or(Value::Object(Map::new()));
                (py_get(&tc, "id")?.cloned(), name, args)
            } else {
                let name = py_get(&part, "name")?.cloned().unwrap_or(Value::String(String::new()));
                let args = py_get(&part, "arguments")?.cloned().unwrap_or(Value::Object(Map::new()));
                (py_get(&part, "tool_call_id")?.cloned(), name, args)
            };
            let Value::Object(args) = args else {
                return Err(Malformed);
            };
            let args_str = args.iter().map(|(k, v)| format_argument(k, v, version)).collect::<Vec<_>>().join(", ");
            lines.push(Value::String(format!("[TOOL_CALL] {}({args_str})", py::str_of(&name))));
            let id = id.unwrap_or(Value::Null);
            if !hashable(&id) {
                return Err(Malformed);
            }
            if let Some((_, line)) = results.iter().find(|(k, _)| py_eq(k, &id)) {
                lines.push(Value::String(line.clone()));
            }
        }
    }
    Ok(lines)
}

fn indented(out: &mut String, text: &str) {
    out.push_str("  ");
    out.push_str(&text.split('\n').collect::<Vec<_>>().join("\n  "));
    out.push('\n');
}

fn history_text(query: &Value, include_system: bool, include_tools: bool, version: RefVersion) -> Flat<String> {
    let mut user_turns: Vec<Vec<Vec<Value>>> = Vec::new();
    let mut agent_turns: Vec<Vec<Value>> = Vec::new();
    let mut cur_user: Vec<Vec<Value>> = Vec::new();
    let mut cur_agent: Vec<Value> = Vec::new();
    let mut system: Option<Value> = None;
    for msg in py_iter(query)? {
        let role = py_get(&msg, "role")?.cloned().unwrap_or(Value::Null);
        if !py_truthy(&role) {
            continue;
        }
        let role = role.as_str();
        if include_system && role == Some("system") {
            system = Some(py_get(&msg, "content")?.cloned().unwrap_or(Value::String(String::new())));
        } else if role == Some("user") && py_contains(&msg, "content")? {
            if !cur_agent.is_empty() {
                agent_turns.push(agent_lines(
                    &Value::Array(std::mem::take(&mut cur_agent)),
                    true,
                    include_tools,
                    version,
                )?);
            }
            let texts = text_parts(py_get(&msg, "content")?.unwrap_or(&Value::Null))?;
            if !texts.is_empty() {
                cur_user.push(texts);
            }
        } else if matches!(role, Some("assistant") | Some("tool")) {
            if !cur_user.is_empty() {
                user_turns.push(std::mem::take(&mut cur_user));
            }
            cur_agent.push(msg);
        }
    }
    if !cur_user.is_empty() {
        user_turns.push(cur_user);
    }
    if !cur_agent.is_empty() {
        agent_turns.push(agent_lines(&Value::Array(cur_agent), true, include_tools, version)?);
    }
    if user_turns.len() != agent_turns.len() + 1 {
        return Err(Malformed);
    }
    let mut out = String::new();
    if let Some(system) = system.filter(py_truthy) {
        let text = match (&system, version) {
            (Value::String(s), _) => s.clone(),
            (Value::Array(parts), RefVersion::V1_18_10 | RefVersion::V1_18_10ToolCallSuccess) => {
                join_strs(parts, "\n")?
            }
            _ => return Err(Malformed),
        };
        out.push_str("SYSTEM_PROMPT:\n  ");
        out.push_str(&text);
        out.push_str("\n\n");
    }
    for (i, user) in user_turns.iter().enumerate() {
        out.push_str(&format!("User turn {}:\n", i + 1));
        for msg in user {
            for part in msg {
                indented(&mut out, as_str(part)?);
            }
        }
        out.push('\n');
        if let Some(agent) = agent_turns.get(i) {
            out.push_str(&format!("Agent turn {}:\n", i + 1));
            for line in agent {
                indented(&mut out, as_str(line)?);
            }
            out.push('\n');
        }
    }
    Ok(out)
}

/// Flattens a conversation history into `User turn N:` / `Agent turn N:`
/// text. Returns the original value when the messages do not have the
/// expected shape (including string content, and histories that do not
/// end with a user turn).
pub fn reformat_conversation_history(
    query: &Value,
    include_system: bool,
    include_tools: bool,
    version: RefVersion,
) -> Value {
    match history_text(query, include_system, include_tools, version) {
        Ok(text) => Value::String(text),
        Err(Malformed) => query.clone(),
    }
}

/// Flattens an agent response: its text parts (and, with `include_tools`,
/// tool-call and tool-result lines) joined with newlines. `null` and `[]`
/// give `""`; a response from which nothing can be read is returned as is.
pub fn reformat_agent_response(response: &Value, include_tools: bool, version: RefVersion) -> Value {
    if response.is_null() || response.as_array().is_some_and(Vec::is_empty) {
        return Value::String(String::new());
    }
    match agent_lines(response, true, include_tools, version) {
        Ok(lines) if !lines.is_empty() => match join_strs(&lines, "\n") {
            Ok(text) => Value::String(text),
            Err(Malformed) => response.clone(),
        },
        _ => response.clone(),
    }
}

/// The lines of an agent response (text and tool lines), as a list of
/// strings; `None` where [`reformat_agent_response`] would fall back.
pub fn agent_response_lines(response: &Value, include_tools: bool, version: RefVersion) -> Option<Vec<Value>> {
    agent_lines(response, true, include_tools, version).ok()
}

/// Only the `[TOOL_CALL]`/`[TOOL_RESULT]` lines of an agent response, joined
/// with newlines; the original value when it cannot be read.
pub fn format_tool_calls(response: &Value, version: RefVersion) -> Value {
    match agent_lines(response, false, true, version) {
        Ok(lines) => match join_strs(&lines, "\n") {
            Ok(text) => Value::String(text),
            Err(Malformed) => response.clone(),
        },
        Err(Malformed) => response.clone(),
    }
}

fn tool_definitions_text(defs: &Value) -> Flat<String> {
    let mut lines = vec!["TOOL_DEFINITIONS:".to_owned()];
    for tool in py_iter(defs)? {
        let name = match py_get(&tool, "name")? {
            Some(name) => py::str_of(name),
            None => "unnamed_tool".to_owned(),
        };
        let desc = match py_get(&tool, "description")? {
            Some(d) => py::strip(as_str(d)?).to_owned(),
            None => String::new(),
        };
        let empty = Value::Object(Map::new());
        let parameters = py_get(&tool, "parameters")?.unwrap_or(&empty);
        let params = py_get(parameters, "properties")?.unwrap_or(&empty);
        let names = if py_truthy(params) {
            match params {
                Value::Object(map) => map.keys().cloned().collect::<Vec<_>>().join(", "),
                _ => return Err(Malformed),
            }
        } else {
            "no parameters".to_owned()
        };
        lines.push(format!("- {name}: {desc} (inputs: {names})"));
    }
    Ok(lines.join("\n"))
}

/// `TOOL_DEFINITIONS:` followed by one `- name: description (inputs: a, b)`
/// line per tool; the original value when the definitions cannot be read.
pub fn reformat_tool_definitions(defs: &Value) -> Value {
    match tool_definitions_text(defs) {
        Ok(text) => Value::String(text),
        Err(Malformed) => defs.clone(),
    }
}

fn used_tool_names(msgs_lists: &[&Value]) -> Flat<(bool, Vec<Value>)> {
    let mut any = false;
    let mut names: Vec<Value> = Vec::new();
    for msgs in msgs_lists {
        for msg in py_iter(msgs)? {
            let is_assistant = py_get(&msg, "role")?.and_then(Value::as_str) == Some("assistant");
            if !(is_assistant && py_contains(&msg, "content")?) {
                continue;
            }
            let content = py_get(&msg, "content")?.cloned().unwrap_or(Value::Array(Vec::new()));
            for part in py_iter(&content)? {
                if py_get(&part, "type")?.and_then(Value::as_str) != Some("tool_call") {
                    continue;
                }
                any = true;
                let nested = match py_get(&part, "tool_call")? {
                    Some(tc) => py_contains(tc, "function")?,
                    None => false,
                };
                let name = if nested {
                    py_get(&part, "tool_call")?.and_then(|tc| tc.get("function")).cloned()
                } else if py_contains(&part, "name")? {
                    py_get(&part, "name")?.cloned()
                } else {
                    None
                };
                if let Some(name) = name {
                    if !hashable(&name) {
                        return Err(Malformed);
                    }
                    names.push(name);
                }
            }
        }
    }
    Ok((any, names))
}

/// Keeps the tool definitions whose `name` was called in any of the message
/// lists; all of them when tools were called but none matches (and none
/// when no tool was called at all). The original value on unreadable input.
pub fn filter_to_used_tools(defs: &Value, msgs_lists: &[&Value]) -> Value {
    let filtered = (|| -> Flat<Value> {
        let (any, names) = used_tool_names(msgs_lists)?;
        let mut kept = Vec::new();
        for tool in py_iter(defs)? {
            let name = py_get(&tool, "name")?.cloned().unwrap_or(Value::Null);
            if names.iter().any(|n| py_eq(n, &name)) {
                kept.push(tool);
            }
        }
        if any && kept.is_empty() {
            return Ok(defs.clone());
        }
        Ok(Value::Array(kept))
    })();
    filtered.unwrap_or_else(|Malformed| defs.clone())
}

/// Keeps `role` and the text parts of user and assistant messages, drops
/// system messages (with `drop_system`) and, with `drop_tool_calls`, tool
/// messages and assistant messages that only call tools. Other messages are
/// kept as they are; a string is returned as is.
pub fn simplify_messages(messages: &Value, drop_system: bool, drop_tool_calls: bool) -> Value {
    let Value::Array(items) = messages else {
        return messages.clone();
    };
    let simplified = (|| -> Flat<Vec<Value>> {
        let mut out = Vec::new();
        for msg in items {
            let Value::Object(map) = msg else {
                out.push(msg.clone());
                continue;
            };
            let role = map.get("role").and_then(Value::as_str);
            let content = map.get("content").cloned().unwrap_or(Value::Array(Vec::new()));
            if drop_system && role == Some("system") {
                continue;
            }
            if role == Some("user") {
                let mut m = Map::new();
                m.insert("role".to_owned(), map.get("role").cloned().unwrap_or(Value::Null));
                m.insert("content".to_owned(), Value::Array(text_parts(&content)?));
                out.push(Value::Object(m));
                continue;
            }
            if drop_tool_calls && role == Some("tool") {
                continue;
            }
            if role == Some("assistant") {
                let texts = text_parts(&content)?;
                if !texts.is_empty() {
                    let mut m = Map::new();
                    m.insert("role".to_owned(), map.get("role").cloned().unwrap_or(Value::Null));
                    m.insert("content".to_owned(), Value::Array(texts));
                    out.push(Value::Object(m));
                    continue;
                }
                if drop_tool_calls {
                    let calls_tool = py_iter(&content)?.iter().any(|c| {
                        c.as_object().and_then(|o| o.get("type")).and_then(Value::as_str) == Some("tool_call")
                    });
                    if calls_tool {
                        continue;
                    }
                }
            }
            out.push(msg.clone());
        }
        Ok(out)
    })();
    match simplified {
        Ok(out) => Value::Array(out),
        Err(Malformed) => messages.clone(),
    }
}

/// The tool calls of an agent response (`type: tool_call` content items of
/// assistant messages), each with a `tool_result` key added when a tool
/// message with the same `tool_call_id` carries a result.
pub fn parse_tool_calls(response: &Value) -> Vec<Value> {
    let Value::Array(msgs) = response else {
        return Vec::new();
    };
    let mut results: Vec<(Value, Value)> = Vec::new();
    for msg in msgs {
        if msg.get("role").and_then(Value::as_str) != Some("tool") {
            continue;
        }
        let id = msg.get("tool_call_id").cloned().unwrap_or(Value::Null);
        for part in msg.get("content").and_then(Value::as_array).into_iter().flatten() {
            if part.get("type").and_then(Value::as_str) == Some("tool_result") {
                let r = part.get("tool_result").cloned().unwrap_or(Value::Null);
                results.push((id.clone(), r));
            }
        }
    }
    let mut calls = Vec::new();
    for msg in msgs {
        if msg.get("role").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        for part in msg.get("content").and_then(Value::as_array).into_iter().flatten() {
            if part.get("type").and_then(Value::as_str) != Some("tool_call") {
                continue;
            }
            let mut call = part.clone();
            let id = part.get("tool_call_id").cloned().unwrap_or(Value::Null);
            if let (Value::Object(map), Some((_, r))) = (&mut call, results.iter().find(|(k, _)| py_eq(k, &id))) {
                map.insert("tool_result".to_owned(), r.clone());
            }
            calls.push(call);
        }
    }
    calls
}

/// The names of tool calls (`name`, or `function.name` of nested calls).
pub fn tool_call_names(calls: &[Value]) -> Vec<Value> {
    calls
        .iter()
        .filter_map(|c| {
            c.get("name")
                .filter(|n| !n.is_null())
                .or_else(|| c.get("function").and_then(|f| f.get("name")))
                .or_else(|| c.get("tool_call").and_then(|t| t.get("function")).and_then(|f| f.get("name")))
                .cloned()
        })
        .collect()
}

/// The 1.18.10 message preprocessing: drops MCP approval messages and
/// renames `function_call`/`openapi_call` items to `tool_call` and their
/// outputs to `tool_result` (moving the payload field). 1.13.3 does not
/// preprocess; with [`RefVersion::V1_13_3`] the value is returned as is.
pub fn preprocess_messages(messages: &Value, version: RefVersion) -> Value {
    if version == RefVersion::V1_13_3 {
        return messages.clone();
    }
    let Value::Array(items) = messages else {
        return messages.clone();
    };
    let has_type = |msg: &Value, ty: &str| {
        msg.get("content")
            .and_then(Value::as_array)
            .is_some_and(|parts| parts.iter().any(|p| p.get("type").and_then(Value::as_str) == Some(ty)))
    };
    let mut out = Vec::new();
    for msg in items {
        let role = msg.get("role").and_then(Value::as_str);
        if role == Some("assistant") && has_type(msg, "mcp_approval_request") {
            continue;
        }
        if role == Some("tool") && has_type(msg, "mcp_approval_response") {
            continue;
        }
        let mut msg = msg.clone();
        if let Some(parts) = msg.get_mut("content").and_then(Value::as_array_mut) {
            for part in parts.iter_mut() {
                let Value::Object(map) = part else { continue };
                let renamed = match map.get("type").and_then(Value::as_str) {
                    Some("function_call") => Some(("tool_call", Some("function_call"), "tool_call")),
                    Some("function_call_output") => Some(("tool_result", Some("function_call_output"), "tool_result")),
                    Some("openapi_call") => Some(("tool_call", None, "tool_call")),
                    Some("openapi_call_output") => Some(("tool_result", None, "tool_result")),
                    _ => None,
                };
                if let Some((new_type, from, to)) = renamed {
                    map.insert("type".to_owned(), Value::String(new_type.to_owned()));
                    if let Some(payload) = from.and_then(|f| map.remove(f)) {
                        map.insert(to.to_owned(), payload);
                    }
                }
            }
        }
        out.push(msg);
    }
    Value::Array(out)
}
