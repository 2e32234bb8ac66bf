//! v1 (promptflow) requests. For OpenAI-style providers: `model.parameters` verbatim (the
//! fields chat completions has), then `model`, then `messages`, the order promptflow-core
//! builds them in. For Anthropic: a Messages request with the parameters translated
//! (`max_tokens`, `stop` as `stop_sequences`, JSON mode as a forced answer tool, ...).

use prompty_syntax::{Message, Prompt};
use serde_json::{Map, Value};

use crate::common::Ctx;
use crate::response::{ResponseSpec, ResultFormat};
use crate::{Api, Compiled, Error, ParamSource, Provider, Target, Warning, anthropic, openai};

pub(crate) fn compile(prompt: &Prompt, messages: &[Message], target: &Target) -> Result<Compiled, Error> {
    let (provider, api) = resolve(prompt, target)?;
    if target.reasoning_model && !provider.speaks_openai() {
        return Err(Error::ReasoningModel { provider, api });
    }
    let legacy = prompt.legacy.as_ref();
    let config = |key: &str| {
        legacy
            .and_then(|l| l.configuration.as_ref())
            .and_then(|c| c.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let model = target
        .model
        .clone()
        .filter(|m| !m.is_empty())
        .or_else(|| config("azure_deployment"))
        .or_else(|| config("model"))
        .or_else(|| prompt.model.as_ref().map(|m| m.id.clone()).filter(|id| !id.is_empty()))
        .ok_or(Error::MissingDeployment { provider })?;
    let overridden = target.model.as_deref().is_some_and(|m| !m.is_empty());
    let mut ctx = Ctx { prompt, provider, api, model, warnings: Vec::new(), legacy: true, answer_tool: None };
    if !overridden && let Some(w) = crate::target::foreign_model(&ctx.model, provider) {
        ctx.warn(w);
    }
    if !ctx.tools().is_empty() {
        ctx.warn(Warning::IgnoredTools { provider, api });
    }
    let body = if provider.speaks_openai() {
        // As promptflow-core: the parameters verbatim (those chat completions has), then
        // `model` and `messages`, which replace parameters of those names in place.
        let mut body = Map::new();
        ctx.merge_params(&mut body, &[]);
        if target.reasoning_model {
            crate::reasoning_request(&mut body, true);
        }
        for key in ["model", "messages"] {
            if body.contains_key(key) {
                let w = Warning::ShadowedParameter {
                    source: ParamSource::Parameters,
                    key: key.to_owned(),
                    field: key.to_owned(),
                    provider,
                    api,
                };
                ctx.warn(w);
            }
        }
        body.insert("model".into(), Value::String(ctx.model.clone()));
        let wire_messages = openai::chat_messages(&mut ctx, messages)?;
        body.insert("messages".into(), Value::Array(wire_messages));
        Value::Object(body)
    } else {
        anthropic::messages(&mut ctx, messages)?
    };
    let response = response_spec(prompt, provider).with_answer_tool(ctx.answer_tool);
    Ok(Compiled { body, warnings: ctx.warnings, provider, api, response })
}

/// The provider and API of a v1 prompt: OpenAI-style chat, whatever the configuration's
/// client type.
pub(crate) fn resolve(prompt: &Prompt, target: &Target) -> Result<(Provider, Api), Error> {
    let provider = target.resolve_provider(prompt)?;
    let api = target.api.unwrap_or(Api::Chat);
    if api != Api::Chat {
        return Err(Error::PromptflowTarget { provider, api });
    }
    if let Some(v1_api) = prompt.legacy.as_ref().and_then(|l| l.api.as_deref())
        && v1_api != "chat"
    {
        return Err(Error::PromptflowApi { api: v1_api.to_owned(), provider });
    }
    Ok((provider, api))
}

/// How promptflow reads the reply: `response_format: {type: json_object}` means JSON,
/// reduced to the declared `outputs` when there are any; anything else is text.
pub(crate) fn response_spec(prompt: &Prompt, provider: Provider) -> ResponseSpec {
    let json_object = prompt
        .legacy
        .as_ref()
        .and_then(|l| l.parameters.as_ref())
        .and_then(|p| p.get("response_format"))
        .and_then(|f| f.get("type"))
        .is_some_and(|t| t == "json_object");
    let format = if json_object {
        let outputs = prompt.outputs.iter().flatten().map(|p| p.name.clone()).collect();
        ResultFormat::JsonObject { outputs }
    } else {
        ResultFormat::Text
    };
    ResponseSpec::new(provider, Api::Chat).with_format(format).with_secrets(prompt.secrets.clone())
}
