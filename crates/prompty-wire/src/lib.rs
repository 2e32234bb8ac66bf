//! `prompty-wire`: rendered chat messages to provider request bodies, and provider
//! responses back to results.
//!
//! ```
//! use prompty_syntax::{LoadOptions, MapHost, Message, load_str};
//! use prompty_wire::{Target, compile};
//!
//! let text = "---\nmodel:\n  id: gpt-4o\n  options:\n    maxOutputTokens: 200\n---\nuser:\nHi";
//! let prompt = load_str(text, &MapHost::new(), &LoadOptions::default()).prompt.unwrap();
//! let compiled = compile(&prompt, &[Message::text("user", "Hi")], Target::new()).unwrap();
//! assert_eq!(
//!     compiled.body,
//!     serde_json::json!({
//!         "model": "gpt-4o",
//!         "messages": [{"role": "user", "content": "Hi"}],
//!         "max_completion_tokens": 200,
//!     })
//! );
//! assert!(compiled.warnings.is_empty());
//! ```
//!
//! Supported: OpenAI chat completions, responses, embeddings and images (Azure and
//! Foundry take the same bodies) and Anthropic Messages. v1 (promptflow) prompts compile
//! the way promptflow-core builds its request for OpenAI-style providers:
//! `model.parameters` verbatim, then `model`, then `messages`; for Anthropic the
//! parameters are translated.
//!
//! Every field of a body is one the target API documents ([`request_fields`]): free-form
//! parameters are sent as written, translated to the target's equivalent, or left out.
//! Nothing is dropped silently: an option, parameter, message field or content the target
//! cannot take is a [`Warning`] when the request stays valid without it, and an [`Error`]
//! otherwise. A model id of another provider's family is a warning too, unless the target
//! names the model. The crate does no I/O.

#![warn(missing_docs)]

mod anthropic;
pub mod codes;
mod common;
mod error;
mod media;
mod openai;
mod params;
mod process;
mod promptflow;
mod response;
pub mod schema;
mod target;
mod warning;

use prompty_syntax::{Message, Profile, Prompt};
use serde_json::Value;

pub use anthropic::DEFAULT_MAX_TOKENS;
pub use error::Error;
pub use params::ParamSource;

/// The top-level request fields `provider`'s `api` documents: what a compiled body may
/// contain, and what a free-form parameter is checked against.
pub fn request_fields(provider: Provider, api: Api) -> &'static [&'static str] {
    params::fields(provider, api)
}
pub use process::{GeneratedImage, Output, ProcessResult, ToolCall, Usage, process};
pub use response::{ResponseSpec, ResultFormat};
pub use target::{Api, Provider, Target};
pub use warning::Warning;

/// A compiled request.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The request body, keys in the order the provider's reference client builds them.
    pub body: Value,
    /// What was left out or changed, in the order it was noticed.
    pub warnings: Vec<Warning>,
    /// The provider the body is for.
    pub provider: Provider,
    /// The API the body is for.
    pub api: Api,
    /// How to read the response to this request (see [`process`]).
    pub response: ResponseSpec,
}

/// Compiles `messages` (rendered from `prompt`) into a request body for `target`; fields
/// `target` leaves unset come from the prompt's `model` (provider `openai` and API `chat`
/// when the prompt says nothing).
///
/// v2 prompts map `model.options`, `tools` and `outputs` to the provider's names;
/// v1 (promptflow profile) prompts send `model.parameters` verbatim and compile only to
/// OpenAI-style chat.
///
/// Errors and warnings never quote a value `${env:}` supplied: they show `${env:NAME}`.
pub fn compile(prompt: &Prompt, messages: &[Message], target: Target) -> Result<Compiled, Error> {
    let secrets = &prompt.secrets;
    match compile_inner(prompt, messages, target) {
        Ok(mut c) if !secrets.is_empty() => {
            c.warnings = c.warnings.into_iter().map(|w| w.redacted(secrets)).collect();
            Ok(c)
        }
        Ok(c) => Ok(c),
        Err(e) => Err(e.redacted(secrets)),
    }
}

/// The `messages` array of an OpenAI chat completions request for `messages`, as
/// [`compile`] writes it for OpenAI chat (and promptflow-core writes it for a v1 prompt):
/// `{role, content}` with string content for one text part and a list of content parts
/// otherwise, plus the `name`, `tool_call_id` and `tool_calls` metadata. This is the form
/// the OpenAI SDKs take. Other metadata is left out with a [`Warning`]; a role chat
/// completions has not, a tool result without its call id, or media without a media type
/// is an error. Only the messages are read from `prompt` (its secrets, for the error
/// texts): its model, tools and options play no part.
///
/// ```
/// use prompty_syntax::{LoadOptions, MapHost, Message, load_str};
///
/// let prompt = load_str("---\nname: x\n---\nuser:\nHi", &MapHost::new(), &LoadOptions::default()).prompt.unwrap();
/// let (messages, warnings) = prompty_wire::chat_messages(&prompt, &[Message::text("user", "Hi")]).unwrap();
/// assert_eq!(messages, vec![serde_json::json!({"role": "user", "content": "Hi"})]);
/// assert!(warnings.is_empty());
/// ```
pub fn chat_messages(prompt: &Prompt, messages: &[Message]) -> Result<(Vec<Value>, Vec<Warning>), Error> {
    let (provider, api) = (Provider::OpenAi, Api::Chat);
    let legacy = prompt.profile == Profile::Promptflow;
    let mut ctx =
        common::Ctx { prompt, provider, api, model: String::new(), warnings: Vec::new(), legacy, answer_tool: None };
    let list = openai::chat_messages(&mut ctx, messages).map_err(|e| e.redacted(&prompt.secrets))?;
    let warnings = ctx.warnings.into_iter().map(|w| w.redacted(&prompt.secrets)).collect();
    Ok((list, warnings))
}

impl ResponseSpec {
    /// How the reply to `prompt` compiled for `target` is read; the same as
    /// [`Compiled::response`].
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
            Ok(response::spec_response(prompt, provider, api).with_answer_tool(tool))
        };
        spec().map_err(|e: Error| e.redacted(&prompt.secrets))
    }
}

/// The token limit azure-ai-evaluation sets for reasoning models in place of a v1
/// prompt's `max_tokens`.
pub const REASONING_MAX_COMPLETION_TOKENS: u64 = 60_000;

/// Rewrites the parameters of an OpenAI chat request for a reasoning model, as
/// azure-ai-evaluation does for `is_reasoning_model=True`: `temperature`, `top_p`,
/// `presence_penalty` and `frequency_penalty` are dropped, and `max_tokens` is removed
/// and `max_completion_tokens` added after the remaining parameters. v1 prompts
/// (`legacy`) get the reference's value, [`REASONING_MAX_COMPLETION_TOKENS`]; v2
/// prompts keep their own limit under the new name. A `max_completion_tokens` the
/// prompt already sets is kept as it is.
pub fn reasoning_request(params: &mut serde_json::Map<String, Value>, legacy: bool) {
    for key in ["temperature", "top_p", "presence_penalty", "frequency_penalty"] {
        params.shift_remove(key);
    }
    if let Some(limit) = params.shift_remove("max_tokens") {
        let limit = if legacy { Value::from(REASONING_MAX_COMPLETION_TOKENS) } else { limit };
        params.entry("max_completion_tokens").or_insert(limit);
    }
}

fn compile_inner(prompt: &Prompt, messages: &[Message], target: Target) -> Result<Compiled, Error> {
    if prompt.profile == Profile::Promptflow {
        return promptflow::compile(prompt, messages, &target);
    }
    let provider = target.resolve_provider(prompt)?;
    let api = target.resolve_api(prompt)?;
    if !provider.speaks_openai() && api != Api::Chat {
        return Err(Error::UnsupportedApi { provider, api });
    }
    let given = target.model.filter(|m| !m.is_empty());
    let overridden = given.is_some();
    let model = given
        .or_else(|| prompt.model.as_ref().map(|m| m.id.clone()).filter(|id| !id.is_empty()))
        .ok_or(Error::MissingModel { provider, api })?;
    let mut ctx = common::Ctx { prompt, provider, api, model, warnings: Vec::new(), legacy: false, answer_tool: None };
    if !overridden && let Some(w) = target::foreign_model(&ctx.model, provider) {
        ctx.warn(w);
    }
    if target.reasoning_model && !(provider.speaks_openai() && matches!(api, Api::Chat | Api::Responses)) {
        return Err(Error::ReasoningModel { provider, api });
    }
    let mut body = if provider.speaks_openai() {
        match api {
            Api::Chat => openai::chat(&mut ctx, messages)?,
            Api::Responses => openai::responses(&mut ctx, messages)?,
            Api::Embedding => openai::embedding(&mut ctx, messages)?,
            Api::Image => openai::image(&mut ctx, messages)?,
        }
    } else {
        anthropic::messages(&mut ctx, messages)?
    };
    if target.reasoning_model
        && let Value::Object(params) = &mut body
    {
        // v2 requests keep their keys in place: only the limit is renamed.
        for key in ["temperature", "top_p", "presence_penalty", "frequency_penalty"] {
            params.shift_remove(key);
        }
        if api == Api::Chat && params.contains_key("max_tokens") {
            *params = std::mem::take(params)
                .into_iter()
                .map(|(k, v)| if k == "max_tokens" { ("max_completion_tokens".to_owned(), v) } else { (k, v) })
                .collect();
        }
    }
    let response = response::spec_response(prompt, provider, api).with_answer_tool(ctx.answer_tool);
    Ok(Compiled { body, warnings: ctx.warnings, provider, api, response })
}
