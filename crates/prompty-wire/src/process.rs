//! Provider responses to results.

use prompty_syntax::{Profile, Prompt, Secrets};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::{Api, Error, Provider, Target, anthropic, promptflow};

/// How to read a provider's response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseSpec {
    /// The provider that answered.
    pub provider: Provider,
    /// The API that answered.
    pub api: Api,
    /// What the text of the reply is.
    pub format: ResultFormat,
    /// The tool whose input is the answer: a provider without a JSON mode (Anthropic) is
    /// asked for JSON by forcing this tool, and its call's input is read as the reply's
    /// JSON.
    pub answer_tool: Option<String>,
    /// Values `${env:}` supplied to the prompt: [`process`] errors show `${env:NAME}`
    /// instead (a provider's error may echo the request, its key included).
    secrets: Secrets,
}

/// What the text of a reply is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultFormat {
    /// Plain text.
    Text,
    /// JSON asked for by `outputs`: parsed when it parses, the raw text otherwise.
    Structured,
    /// JSON asked for by a v1 `response_format: {type: json_object}`: it must parse, and
    /// when `outputs` are declared only those keys are kept (each must be present).
    JsonObject {
        /// The declared output names; empty keeps everything.
        outputs: Vec<String>,
    },
}

impl ResponseSpec {
    /// Plain text from `provider`'s `api`.
    pub fn new(provider: Provider, api: Api) -> Self {
        Self { provider, api, format: ResultFormat::Text, answer_tool: None, secrets: Secrets::new() }
    }

    /// Sets the values `${env:}` supplied to the prompt, which [`process`] errors never
    /// quote ([`for_prompt`](Self::for_prompt) and [`compile`](crate::compile) set the
    /// prompt's own).
    #[must_use]
    pub fn with_secrets(mut self, secrets: Secrets) -> Self {
        self.secrets = secrets;
        self
    }

    /// Sets the format.
    #[must_use]
    pub fn with_format(mut self, format: ResultFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets the tool whose input is the answer.
    #[must_use]
    pub fn with_answer_tool(mut self, tool: Option<String>) -> Self {
        self.answer_tool = tool;
        self
    }

    /// How the reply to `prompt` compiled for `target` is read; the same as
    /// [`Compiled::response`](crate::Compiled::response).
    pub fn for_prompt(prompt: &Prompt, target: &Target) -> Result<Self, Error> {
        let spec = || {
            if prompt.profile == Profile::Promptflow {
                let (provider, _) = promptflow::resolve(prompt, target)?;
                let tool = (!provider.speaks_openai()).then(|| anthropic::answer_tool(prompt, true)).flatten();
                return Ok(promptflow::response_spec(prompt, provider).with_answer_tool(tool));
            }
            let provider = target.resolve_provider(prompt)?;
            let api = target.resolve_api(prompt)?;
            let tool = (!provider.speaks_openai()).then(|| anthropic::answer_tool(prompt, false)).flatten();
            Ok(spec_response(prompt, provider, api).with_answer_tool(tool))
        };
        spec().map_err(|e: Error| e.redacted(&prompt.secrets))
    }
}

/// A v2 prompt's reply: JSON-parsed from chat and responses when it declares `outputs`.
pub(crate) fn spec_response(prompt: &Prompt, provider: Provider, api: Api) -> ResponseSpec {
    let structured =
        prompt.outputs.as_ref().is_some_and(|o| !o.is_empty()) && matches!(api, Api::Chat | Api::Responses);
    let format = if structured { ResultFormat::Structured } else { ResultFormat::Text };
    ResponseSpec { provider, api, format, answer_tool: None, secrets: prompt.secrets.clone() }
}

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCall {
    /// The call's id (Responses: `call_id`).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as a JSON string.
    pub arguments: String,
}

/// A generated image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GeneratedImage {
    /// The image URL, when the API returned one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The base64 image data, when the API returned it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b64_json: Option<String>,
    /// The prompt the API actually used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revised_prompt: Option<String>,
}

impl GeneratedImage {
    /// The URL if there is one, else the base64 data.
    pub fn data(&self) -> &str {
        self.url.as_deref().or(self.b64_json.as_deref()).unwrap_or_default()
    }
}

/// What a response says.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Output {
    /// Text.
    Text(String),
    /// Parsed JSON (structured output).
    Json(Value),
    /// The model declined; the refusal text.
    Refusal(String),
    /// Tool calls, which take precedence over any text.
    ToolCalls(Vec<ToolCall>),
    /// One embedding vector.
    Embedding(Vec<f64>),
    /// Several embedding vectors, in input order.
    Embeddings(Vec<Vec<f64>>),
    /// One image.
    Image(GeneratedImage),
    /// Several images.
    Images(Vec<GeneratedImage>),
}

impl Output {
    /// The result as the spec's vectors write it: text and refusals as strings, tool
    /// calls as `[{id, name, arguments}]`, embeddings as arrays, images as their URL or
    /// base64 string.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Text(s) | Self::Refusal(s) => Value::String(s.clone()),
            Self::Json(v) => v.clone(),
            Self::ToolCalls(calls) => Value::Array(
                calls
                    .iter()
                    .map(|c| {
                        let mut m = Map::new();
                        m.insert("id".into(), Value::String(c.id.clone()));
                        m.insert("name".into(), Value::String(c.name.clone()));
                        m.insert("arguments".into(), Value::String(c.arguments.clone()));
                        Value::Object(m)
                    })
                    .collect(),
            ),
            Self::Embedding(v) => vector(v),
            Self::Embeddings(vs) => Value::Array(vs.iter().map(|v| vector(v)).collect()),
            Self::Image(img) => Value::String(img.data().to_owned()),
            Self::Images(imgs) => Value::Array(imgs.iter().map(|i| Value::String(i.data().to_owned())).collect()),
        }
    }
}

fn vector(v: &[f64]) -> Value {
    Value::Array(v.iter().map(|x| serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number)).collect())
}

/// Token counts, when the response reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Completion tokens.
    pub output_tokens: Option<u64>,
    /// Both.
    pub total_tokens: Option<u64>,
}

/// A processed response.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessResult {
    /// What the model produced.
    pub output: Output,
    /// Why it stopped (`stop`, `tool_calls`, `end_turn`, `completed`, ...).
    pub finish_reason: Option<String>,
    /// Token counts.
    pub usage: Option<Usage>,
    /// The model that answered.
    pub model: Option<String>,
    /// The response id.
    pub id: Option<String>,
}

/// Reads a provider response.
///
/// Tool calls take precedence over text; a refusal gives [`Output::Refusal`]; null text
/// is `""`. With [`ResultFormat::Structured`] the text is JSON-parsed and kept raw when it
/// does not parse; with [`ResultFormat::JsonObject`] it must parse.
///
/// Errors never quote a value `${env:}` supplied to the prompt (the spec's
/// [`with_secrets`](ResponseSpec::with_secrets)): they show `${env:NAME}`.
pub fn process(spec: &ResponseSpec, response: &Value) -> Result<ProcessResult, Error> {
    process_inner(spec, response).map_err(|e| if spec.secrets.is_empty() { e } else { e.redacted(&spec.secrets) })
}

fn process_inner(spec: &ResponseSpec, response: &Value) -> Result<ProcessResult, Error> {
    let r = Reader { spec };
    if let Some(message) = r.error_message(response) {
        return Err(Error::ProviderError { provider: spec.provider, message });
    }
    let mut result = match (spec.provider.speaks_openai(), spec.api) {
        (true, Api::Chat) => r.chat(response)?,
        (true, Api::Responses) => r.responses(response)?,
        (true, Api::Embedding) => r.embedding(response)?,
        (true, Api::Image) => r.image(response)?,
        (false, Api::Chat) => r.anthropic(response)?,
        (false, api) => return Err(Error::UnsupportedApi { provider: spec.provider, api }),
    };
    result.model = response.get("model").and_then(Value::as_str).map(str::to_owned);
    result.id = response.get("id").and_then(Value::as_str).map(str::to_owned);
    Ok(result)
}

struct Reader<'a> {
    spec: &'a ResponseSpec,
}

impl Reader<'_> {
    fn bad(&self, problem: impl Into<String>) -> Error {
        Error::BadResponse { provider: self.spec.provider, api: self.spec.api, problem: problem.into() }
    }

    /// The message of an error response (`{error: {message}}` or Anthropic's
    /// `{type: "error", error: {message}}`).
    fn error_message(&self, response: &Value) -> Option<String> {
        let err = response.get("error").filter(|e| !e.is_null())?;
        Some(match err {
            Value::String(s) => s.clone(),
            other => other.get("message").and_then(Value::as_str).map_or_else(|| other.to_string(), str::to_owned),
        })
    }

    fn text_output(&self, text: String) -> Result<Output, Error> {
        match &self.spec.format {
            ResultFormat::Text => Ok(Output::Text(text)),
            ResultFormat::Structured if text.is_empty() => Ok(Output::Text(text)),
            ResultFormat::Structured => Ok(match serde_json::from_str::<Value>(&text) {
                Ok(v) => Output::Json(v),
                Err(_) => Output::Text(text),
            }),
            ResultFormat::JsonObject { .. } => {
                let value: Value = serde_json::from_str(&text)
                    .map_err(|e| Error::InvalidJson { provider: self.spec.provider, problem: e.to_string() })?;
                self.json_output(value)
            }
        }
    }

    /// A reply that is JSON already (the answer tool's input): kept whole, or reduced to
    /// the declared outputs of a v1 JSON prompt.
    fn json_output(&self, value: Value) -> Result<Output, Error> {
        let ResultFormat::JsonObject { outputs } = &self.spec.format else {
            return Ok(Output::Json(value));
        };
        if outputs.is_empty() {
            return Ok(Output::Json(value));
        }
        let mut kept = Map::new();
        for key in outputs {
            match value.get(key) {
                Some(v) => {
                    kept.insert(key.clone(), v.clone());
                }
                None => {
                    return Err(Error::MissingOutputKey { provider: self.spec.provider, key: key.clone() });
                }
            }
        }
        Ok(Output::Json(Value::Object(kept)))
    }

    fn chat(&self, response: &Value) -> Result<ProcessResult, Error> {
        let choice = response
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .ok_or_else(|| self.bad("it has no `choices[0]`"))?;
        let message = choice.get("message").ok_or_else(|| self.bad("`choices[0]` has no `message`"))?;
        let output = match message.get("tool_calls").and_then(Value::as_array).filter(|c| !c.is_empty()) {
            Some(calls) => Output::ToolCalls(
                calls
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let f = c.get("function").unwrap_or(c);
                        self.call(c.get("id"), f.get("name"), f.get("arguments"), &format!("tool_calls[{i}]"))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            None => match message.get("refusal").and_then(Value::as_str) {
                Some(refusal) => Output::Refusal(refusal.to_owned()),
                None => self.text_output(content_text(message.get("content")))?,
            },
        };
        Ok(ProcessResult {
            output,
            finish_reason: choice.get("finish_reason").and_then(Value::as_str).map(str::to_owned),
            usage: usage(response.get("usage"), "prompt_tokens", "completion_tokens"),
            model: None,
            id: None,
        })
    }

    fn call(
        &self,
        id: Option<&Value>,
        name: Option<&Value>,
        args: Option<&Value>,
        at: &str,
    ) -> Result<ToolCall, Error> {
        let id = id.and_then(Value::as_str).ok_or_else(|| self.bad(format!("`{at}` has no `id`")))?;
        let name = name.and_then(Value::as_str).ok_or_else(|| self.bad(format!("`{at}` has no `name`")))?;
        let arguments = match args {
            None | Some(Value::Null) => "{}".to_owned(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        Ok(ToolCall { id: id.to_owned(), name: name.to_owned(), arguments })
    }

    fn responses(&self, response: &Value) -> Result<ProcessResult, Error> {
        let empty = Vec::new();
        let items = match response.get("output") {
            Some(Value::Array(items)) => items,
            None | Some(Value::Null) => &empty,
            Some(_) => return Err(self.bad("`output` is not a list")),
        };
        let calls: Vec<ToolCall> = items
            .iter()
            .enumerate()
            .filter(|(_, item)| item.get("type").is_some_and(|t| t == "function_call"))
            .map(|(i, item)| {
                let id = item.get("call_id").or_else(|| item.get("id"));
                self.call(id, item.get("name"), item.get("arguments"), &format!("output[{i}]"))
            })
            .collect::<Result<_, _>>()?;
        let parts = || {
            items
                .iter()
                .filter(|item| item.get("type").is_some_and(|t| t == "message"))
                .filter_map(|item| item.get("content").and_then(Value::as_array))
                .flatten()
        };
        let output = if !calls.is_empty() {
            Output::ToolCalls(calls)
        } else if let Some(refusal) =
            parts().find(|p| p.get("type").is_some_and(|t| t == "refusal")).and_then(|p| p.get("refusal"))
        {
            Output::Refusal(refusal.as_str().unwrap_or_default().to_owned())
        } else {
            let text = match response.get("output_text").and_then(Value::as_str) {
                Some(text) => text.to_owned(),
                None => parts()
                    .filter(|p| p.get("type").is_some_and(|t| t == "output_text"))
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect(),
            };
            self.text_output(text)?
        };
        let finish_reason = response
            .get("incomplete_details")
            .and_then(|d| d.get("reason"))
            .or_else(|| response.get("status"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(ProcessResult {
            output,
            finish_reason,
            usage: usage(response.get("usage"), "input_tokens", "output_tokens"),
            model: None,
            id: None,
        })
    }

    fn data<'v>(&self, response: &'v Value, what: &str) -> Result<&'v Vec<Value>, Error> {
        match response.get("data").and_then(Value::as_array) {
            Some(d) if !d.is_empty() => Ok(d),
            Some(_) => Err(self.bad(format!("Empty {what} response: `data` is empty"))),
            None => Err(self.bad("it has no `data` list")),
        }
    }

    fn embedding(&self, response: &Value) -> Result<ProcessResult, Error> {
        let data = self.data(response, "embedding")?;
        let mut vectors = Vec::with_capacity(data.len());
        for (i, item) in data.iter().enumerate() {
            let v = match item.get("embedding") {
                Some(Value::Array(xs)) => xs
                    .iter()
                    .map(|x| x.as_f64().ok_or_else(|| self.bad(format!("`data[{i}].embedding` holds a non-number"))))
                    .collect::<Result<Vec<f64>, _>>()?,
                Some(Value::String(_)) => {
                    return Err(self.bad(format!(
                        "`data[{i}].embedding` is base64; request `encoding_format: float` (the default)"
                    )));
                }
                _ => return Err(self.bad(format!("`data[{i}]` has no `embedding` list"))),
            };
            vectors.push(v);
        }
        let output = match <[Vec<f64>; 1]>::try_from(vectors) {
            Ok([one]) => Output::Embedding(one),
            Err(many) => Output::Embeddings(many),
        };
        Ok(ProcessResult {
            output,
            finish_reason: None,
            usage: usage(response.get("usage"), "prompt_tokens", "completion_tokens"),
            model: None,
            id: None,
        })
    }

    fn image(&self, response: &Value) -> Result<ProcessResult, Error> {
        let data = self.data(response, "image")?;
        let text = |item: &Value, key: &str| item.get(key).and_then(Value::as_str).map(str::to_owned);
        let mut images = Vec::with_capacity(data.len());
        for (i, item) in data.iter().enumerate() {
            let img = GeneratedImage {
                url: text(item, "url"),
                b64_json: text(item, "b64_json"),
                revised_prompt: text(item, "revised_prompt"),
            };
            if img.url.is_none() && img.b64_json.is_none() {
                return Err(self.bad(format!("`data[{i}]` has neither `url` nor `b64_json`")));
            }
            images.push(img);
        }
        let output = match <[GeneratedImage; 1]>::try_from(images) {
            Ok([one]) => Output::Image(one),
            Err(many) => Output::Images(many),
        };
        Ok(ProcessResult {
            output,
            finish_reason: None,
            usage: usage(response.get("usage"), "input_tokens", "output_tokens"),
            model: None,
            id: None,
        })
    }

    fn anthropic(&self, response: &Value) -> Result<ProcessResult, Error> {
        let blocks =
            response.get("content").and_then(Value::as_array).ok_or_else(|| self.bad("it has no `content` list"))?;
        let uses = || blocks.iter().enumerate().filter(|(_, b)| b.get("type").is_some_and(|t| t == "tool_use"));
        let is_answer = |b: &Value| {
            self.spec.answer_tool.as_deref().is_some_and(|tool| b.get("name").and_then(Value::as_str) == Some(tool))
        };
        // Calls of the real tools come first; the answer tool's call is the reply.
        let calls: Vec<ToolCall> = uses()
            .filter(|(_, b)| !is_answer(b))
            .map(|(i, b)| self.call(b.get("id"), b.get("name"), b.get("input"), &format!("content[{i}]")))
            .collect::<Result<_, _>>()?;
        let answer = uses().map(|(_, b)| b).find(|b| is_answer(b));
        let output = if !calls.is_empty() {
            Output::ToolCalls(calls)
        } else if let Some(answer) = answer {
            let input = answer.get("input").cloned().unwrap_or(Value::Null);
            self.json_output(input)?
        } else {
            let text: String = blocks
                .iter()
                .filter(|b| b.get("type").is_some_and(|t| t == "text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            self.text_output(text)?
        };
        let mut u = usage(response.get("usage"), "input_tokens", "output_tokens");
        if let Some(u) = &mut u
            && u.total_tokens.is_none()
            && let (Some(i), Some(o)) = (u.input_tokens, u.output_tokens)
        {
            u.total_tokens = Some(i.saturating_add(o));
        }
        Ok(ProcessResult {
            output,
            finish_reason: response.get("stop_reason").and_then(Value::as_str).map(str::to_owned),
            usage: u,
            model: None,
            id: None,
        })
    }
}

/// Chat `content`: a string, null (`""`), or a list of parts whose text is joined.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    }
}

fn usage(u: Option<&Value>, input: &str, output: &str) -> Option<Usage> {
    let u = u?.as_object()?;
    let n = |k: &str| u.get(k).and_then(Value::as_u64);
    Some(Usage { input_tokens: n(input), output_tokens: n(output), total_tokens: n("total_tokens") })
}
