//! v1 (promptflow) requests: `model.parameters` verbatim, then `model`, then `messages`,
//! the order promptflow-core builds them in.

use prompty_render::Message;
use prompty_syntax::Prompt;
use serde_json::{Map, Value};

use crate::common::Ctx;
use crate::process::{ResponseSpec, ResultFormat};
use crate::{Api, Compiled, Error, Provider, Target, Warning, openai};

pub(crate) fn compile(prompt: &Prompt, messages: &[Message], target: &Target) -> Result<Compiled, Error> {
    let (provider, api) = resolve(prompt, target)?;
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
    let mut ctx = Ctx { prompt, provider, api, model, warnings: Vec::new() };
    if !ctx.tools().is_empty() {
        ctx.warn(Warning::IgnoredTools { provider, api });
    }
    let mut body: Map<String, Value> = legacy.and_then(|l| l.parameters.clone()).unwrap_or_default();
    body.insert("model".into(), Value::String(ctx.model.clone()));
    let wire_messages = openai::chat_messages(&mut ctx, messages)?;
    body.insert("messages".into(), wire_messages);
    Ok(Compiled {
        body: Value::Object(body),
        warnings: ctx.warnings,
        provider,
        api,
        response: response_spec(prompt, provider),
    })
}

/// The provider and API of a v1 prompt: OpenAI-style chat, whatever the configuration's
/// client type.
pub(crate) fn resolve(prompt: &Prompt, target: &Target) -> Result<(Provider, Api), Error> {
    let provider = target.resolve_provider(prompt)?;
    let api = target.api.unwrap_or(Api::Chat);
    if !provider.speaks_openai() || api != Api::Chat {
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
