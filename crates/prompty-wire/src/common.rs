//! What every request builder shares: the compile context, option helpers, tool
//! schemas and message metadata.

use prompty_render::{Message, Part};
use prompty_syntax::{ModelOptions, Prompt, Tool};
use serde_json::{Map, Number, Value};

use crate::params::{self, JsonRequest, Outcome, ParamSource};
use crate::{Api, Error, Provider, Warning, schema};

/// One compilation: where it goes and what it has noticed so far.
pub(crate) struct Ctx<'a> {
    pub(crate) prompt: &'a Prompt,
    pub(crate) provider: Provider,
    pub(crate) api: Api,
    pub(crate) model: String,
    pub(crate) warnings: Vec<Warning>,
    /// Compiling a v1 prompt: its `model.parameters` are the options, `model.options` (the
    /// loader's v2 reading of them) is not used.
    pub(crate) legacy: bool,
    /// The tool whose input is the answer (Anthropic JSON output), once decided.
    pub(crate) answer_tool: Option<String>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn options(&self) -> Option<&ModelOptions> {
        if self.legacy {
            return None;
        }
        self.prompt.model.as_ref()?.options.as_ref()
    }

    pub(crate) fn tools(&self) -> &[Tool] {
        self.prompt.tools.as_deref().unwrap_or_default()
    }

    pub(crate) fn outputs(&self) -> &[prompty_syntax::Property] {
        self.prompt.outputs.as_deref().unwrap_or_default()
    }

    pub(crate) fn warn(&mut self, w: Warning) {
        self.warnings.push(w);
    }

    pub(crate) fn unsupported_option(&mut self, option: &'static str) {
        let (provider, api) = (self.provider, self.api);
        self.warn(Warning::UnsupportedOption { option, provider, api });
    }

    /// Warns about every option in `names` that is set.
    pub(crate) fn drop_options(&mut self, names: &[&'static str]) {
        let Some(o) = self.options().cloned() else {
            return;
        };
        for &name in names {
            let set = match name {
                "temperature" => o.temperature.is_some(),
                "maxOutputTokens" => o.max_output_tokens.is_some(),
                "topP" => o.top_p.is_some(),
                "topK" => o.top_k.is_some(),
                "frequencyPenalty" => o.frequency_penalty.is_some(),
                "presencePenalty" => o.presence_penalty.is_some(),
                "seed" => o.seed.is_some(),
                "stopSequences" => o.stop_sequences.is_some(),
                "allowMultipleToolCalls" => o.allow_multiple_tool_calls.is_some(),
                _ => false,
            };
            if set {
                self.unsupported_option(name);
            }
        }
    }

    /// The free-form parameters of the prompt and where they come from: v1
    /// `model.parameters` when compiling a v1 prompt, else v2
    /// `model.options.additionalProperties`.
    pub(crate) fn free_params(&self) -> (ParamSource, Map<String, Value>) {
        if self.legacy {
            let params = self.prompt.legacy.as_ref().and_then(|l| l.parameters.clone());
            (ParamSource::Parameters, params.unwrap_or_default())
        } else {
            let extra = self.options().and_then(|o| o.additional_properties.clone());
            (ParamSource::AdditionalProperties, extra.unwrap_or_default())
        }
    }

    /// Merges the free-form parameters into `body` as the target takes them
    /// ([`params::translate`]): a field the request already has, or one in `reserved`
    /// (set later), is left out with a warning, and so is a parameter the target has no
    /// field for. JSON output requests are returned for the builder to express.
    pub(crate) fn merge_params(
        &mut self,
        body: &mut Map<String, Value>,
        reserved: &[&str],
    ) -> Vec<(String, JsonRequest)> {
        let (source, map) = self.free_params();
        let mut json = Vec::new();
        for (key, value) in map {
            let (provider, api) = (self.provider, self.api);
            let shadowed = |field: &str| Warning::ShadowedParameter {
                source,
                key: key.clone(),
                field: field.to_owned(),
                provider,
                api,
            };
            match params::translate(provider, api, &key, &value) {
                Outcome::Field(field, v) => {
                    if body.contains_key(field) || reserved.contains(&field) {
                        self.warn(shadowed(field));
                    } else {
                        body.insert(field.to_owned(), v);
                    }
                }
                Outcome::Nested(outer, inner, v) => {
                    let slot = if reserved.contains(&outer) {
                        None
                    } else {
                        match body.entry(outer).or_insert_with(|| Value::Object(Map::new())) {
                            Value::Object(o) if !o.contains_key(inner) => Some(o),
                            _ => None,
                        }
                    };
                    match slot {
                        Some(o) => {
                            o.insert(inner.to_owned(), v);
                        }
                        None => self.warn(shadowed(&format!("{outer}.{inner}"))),
                    }
                }
                Outcome::Json(request) => json.push((key, request)),
                Outcome::Dropped(reason) => self.warn(Warning::DroppedParameter { source, key, reason, provider, api }),
                Outcome::Neutral => {}
            }
        }
        json
    }

    /// The JSON Schema of a function tool's parameters, bound parameters left out; in
    /// strict form when `strict`.
    pub(crate) fn tool_parameters(&mut self, tool: &Tool, strict: bool) -> Result<Value, Error> {
        let params = tool.parameters.as_deref().unwrap_or_default();
        let bound: Vec<&str> = tool.bindings.iter().flatten().map(|(k, _)| k.as_str()).collect();
        for name in &bound {
            if !params.iter().any(|p| p.name == *name) {
                let w = Warning::UnknownBinding {
                    tool: tool.name.clone(),
                    param: (*name).to_owned(),
                    provider: self.provider,
                };
                self.warn(w);
            }
        }
        let path = format!("tools.{}.parameters", tool.name);
        let plain = schema::object_schema(params, &bound, &path, self.provider)?;
        if strict { schema::strict(plain, &path, self.provider, &mut self.warnings) } else { Ok(plain) }
    }

    /// The function tools, in order; any other kind is an error naming the tool.
    pub(crate) fn function_tools(&self) -> Result<Vec<&'a Tool>, Error> {
        let prompt = self.prompt;
        prompt
            .tools
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|t| {
                if t.kind == "function" {
                    Ok(t)
                } else {
                    Err(Error::UnsupportedTool {
                        tool: t.name.clone(),
                        kind: t.kind.clone(),
                        provider: self.provider,
                        api: self.api,
                    })
                }
            })
            .collect()
    }

    /// The strict structured-output schema of `outputs`, or `None` when there are none.
    pub(crate) fn output_schema(&mut self) -> Result<Option<Value>, Error> {
        if self.outputs().is_empty() {
            return Ok(None);
        }
        let prompt = self.prompt;
        let outputs = prompt.outputs.as_deref().unwrap_or_default();
        let plain = schema::object_schema(outputs, &[], "outputs", self.provider)?;
        schema::strict(plain, "outputs", self.provider, &mut self.warnings).map(Some)
    }

    pub(crate) fn drop_metadata(&mut self, message: usize, m: &Message, key: &str) {
        let w = Warning::DroppedMetadata {
            message,
            role: m.role.clone(),
            key: key.to_owned(),
            provider: self.provider,
            api: self.api,
        };
        self.warn(w);
    }

    pub(crate) fn bad_metadata(
        &self,
        message: usize,
        m: &Message,
        key: &'static str,
        problem: impl Into<String>,
    ) -> Error {
        Error::BadMetadata {
            message,
            role: m.role.clone(),
            key,
            problem: problem.into(),
            provider: self.provider,
            api: self.api,
        }
    }

    pub(crate) fn missing_media_type(&self, message: usize, m: &Message, part: &'static str) -> Error {
        Error::MissingMediaType { message, role: m.role.clone(), part, provider: self.provider }
    }

    pub(crate) fn unsupported_part(
        &self,
        message: usize,
        m: &Message,
        part: &'static str,
        hint: &'static str,
    ) -> Error {
        Error::UnsupportedPart { message, role: m.role.clone(), part, provider: self.provider, api: self.api, hint }
    }

    pub(crate) fn unsupported_role(&self, message: usize, m: &Message) -> Error {
        Error::UnsupportedRole { message, role: m.role.clone(), provider: self.provider, api: self.api }
    }

    /// The `tool_calls` of a message's metadata, if any.
    pub(crate) fn tool_calls(&self, message: usize, m: &Message) -> Result<Vec<CallRef>, Error> {
        let Some(calls) = m.metadata.get("tool_calls") else {
            return Ok(Vec::new());
        };
        let Value::Array(calls) = calls else {
            return Err(self.bad_metadata(
                message,
                m,
                "tool_calls",
                "is not a list of calls; write `[{id, function: {name, arguments}}]`",
            ));
        };
        calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                // OpenAI chat form `{id, type, function: {name, arguments}}`, or flat
                // `{id, name, arguments}`.
                let f = call.get("function").unwrap_or(call);
                let id = call.get("id").and_then(Value::as_str);
                let name = f.get("name").and_then(Value::as_str);
                let (Some(id), Some(name)) = (id, name) else {
                    return Err(self.bad_metadata(
                        message,
                        m,
                        "tool_calls",
                        format!("has an entry {i} without `id` or `function.name`; give every call both"),
                    ));
                };
                let arguments = match f.get("arguments") {
                    None | Some(Value::Null) => "{}".to_owned(),
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                };
                Ok(CallRef { id: id.to_owned(), name: name.to_owned(), arguments })
            })
            .collect()
    }

    /// The `tool_call_id` of a tool-result message.
    pub(crate) fn tool_call_id(&self, message: usize, m: &Message) -> Result<String, Error> {
        match m.metadata.get("tool_call_id") {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) => Ok(n.to_string()),
            _ => Err(self.bad_metadata(
                message,
                m,
                "tool_call_id",
                "is missing; a tool result must name the call it answers (`tool[tool_call_id=...]:`)",
            )),
        }
    }
}

/// A tool call carried in message metadata.
pub(crate) struct CallRef {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
}

/// A JSON number from an `f64`; `None` for NaN and infinities, which JSON cannot carry.
pub(crate) fn float(v: Option<f64>) -> Option<Value> {
    v.and_then(Number::from_f64).map(Value::Number)
}

pub(crate) fn int(v: Option<i64>) -> Option<Value> {
    v.map(Value::from)
}

pub(crate) fn strings(v: Option<&Vec<String>>) -> Option<Value> {
    v.map(|s| Value::Array(s.iter().cloned().map(Value::String).collect()))
}

pub(crate) fn put(body: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        body.insert(key.to_owned(), v);
    }
}

/// The text of a message's text parts, joined.
pub(crate) fn text_of(m: &Message) -> String {
    m.text_content()
}

/// A content part's kind name.
pub(crate) fn part_kind(p: &Part) -> &'static str {
    match p {
        Part::Text { .. } => "text",
        Part::Image { .. } => "image",
        Part::File { .. } => "file",
        Part::Audio { .. } => "audio",
    }
}

/// The single text of a message that holds exactly one text part.
pub(crate) fn lone_text(m: &Message) -> Option<&str> {
    match m.content.as_slice() {
        [Part::Text { value }] => Some(value),
        _ => None,
    }
}
