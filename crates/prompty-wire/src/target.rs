//! Which provider and API a request is for, and how a prompt's `model` picks them.

use std::fmt;

use prompty_syntax::{Profile, Prompt};

use crate::Error;

/// An LLM provider. `azure` and `foundry` speak the OpenAI wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI.
    OpenAi,
    /// Azure OpenAI (OpenAI wire format).
    Azure,
    /// Microsoft Foundry (OpenAI wire format).
    Foundry,
    /// Anthropic Messages.
    Anthropic,
}

impl Provider {
    /// Every provider, in the order error messages list them.
    pub const ALL: [Provider; 4] = [Self::OpenAi, Self::Azure, Self::Foundry, Self::Anthropic];

    /// The provider's name as written in `model.provider`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Azure => "azure",
            Self::Foundry => "foundry",
            Self::Anthropic => "anthropic",
        }
    }

    /// Parses a provider name (ASCII case-insensitive).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// Whether requests for this provider use the OpenAI wire format.
    pub fn speaks_openai(self) -> bool {
        !matches!(self, Self::Anthropic)
    }
}

impl std::str::FromStr for Provider {
    type Err = Error;

    /// Parses a provider name; an unknown one is [`Error::UnknownProvider`].
    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse(s).ok_or_else(|| Error::UnknownProvider { provider: s.to_owned() })
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The family of models `id` belongs to, read from its name: `claude-*` is Anthropic's;
/// `gpt-*`, `chatgpt-*`, `o1`/`o3`/`o4` (alone or with a `-` suffix), `text-embedding-*`,
/// `dall-e-*`, `gpt-image-*`, `tts-*`, `whisper-*`, `davinci-*` and `babbage-*` are OpenAI's.
/// Anything else (a deployment name, another vendor's model) has no known family.
pub(crate) fn model_family(id: &str) -> Option<&'static str> {
    let id = id.trim().to_ascii_lowercase();
    if id.starts_with("claude") {
        return Some("Anthropic");
    }
    const OPENAI_PREFIXES: &[&str] =
        &["gpt-", "gpt4", "gpt3", "chatgpt-", "text-embedding-", "dall-e", "tts-", "whisper-", "davinci", "babbage"];
    let o_series = id.strip_prefix('o').is_some_and(|rest| {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && matches!(rest.as_bytes().get(digits), None | Some(b'-'))
    });
    (o_series || OPENAI_PREFIXES.iter().any(|p| id.starts_with(p))).then_some("OpenAI")
}

/// A warning when `model` belongs to a family of models `provider` does not serve.
pub(crate) fn foreign_model(model: &str, provider: Provider) -> Option<crate::Warning> {
    let family = model_family(model)?;
    let foreign = if provider.speaks_openai() { family == "Anthropic" } else { family == "OpenAI" };
    foreign.then(|| crate::Warning::ForeignModel { model: model.to_owned(), family, provider })
}

/// A provider API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Api {
    /// Chat completions (Anthropic: Messages).
    Chat,
    /// OpenAI Responses.
    Responses,
    /// Embeddings.
    Embedding,
    /// Image generation.
    Image,
}

impl Api {
    /// Every API, in the order error messages list them.
    pub const ALL: [Api; 4] = [Self::Chat, Self::Responses, Self::Embedding, Self::Image];

    /// The API's name as written in `model.apiType`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Responses => "responses",
            Self::Embedding => "embedding",
            Self::Image => "image",
        }
    }

    /// Parses an API name (ASCII case-insensitive).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::str::FromStr for Api {
    type Err = Error;

    /// Parses an API name; an unknown one is [`Error::UnknownApi`].
    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse(s).ok_or_else(|| Error::UnknownApi { api: s.to_owned() })
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What to compile for. Every field left `None` is taken from the prompt's `model`:
/// the provider defaults to `openai`, the API to `chat`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// Overrides `model.provider`.
    pub provider: Option<Provider>,
    /// Overrides `model.apiType`.
    pub api: Option<Api>,
    /// Overrides the model id (v2 `model.id`; v1 the deployment from `model.configuration`).
    pub model: Option<String>,
    /// The model is a reasoning model (azure-ai-evaluation's `is_reasoning_model`): OpenAI
    /// chat requests drop `temperature`, `top_p`, `presence_penalty` and
    /// `frequency_penalty`, and `max_tokens` becomes `max_completion_tokens` (see
    /// [`reasoning_request`](crate::reasoning_request)).
    pub reasoning_model: bool,
}

impl Target {
    /// Everything from the prompt.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the provider.
    #[must_use]
    pub fn with_provider(mut self, provider: Provider) -> Self {
        self.provider = Some(provider);
        self
    }

    /// Sets the API.
    #[must_use]
    pub fn with_api(mut self, api: Api) -> Self {
        self.api = Some(api);
        self
    }

    /// Sets the model id.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Marks the model as a reasoning model (see [`Target::reasoning_model`]).
    #[must_use]
    pub fn with_reasoning_model(mut self, reasoning: bool) -> Self {
        self.reasoning_model = reasoning;
        self
    }

    /// The provider: the override, else `model.provider`, else `openai`.
    ///
    /// In the promptflow profile `model.provider` comes from `configuration.type`, which
    /// names promptflow client kinds (`openai`, `azure_openai`, `serverless`); all of them
    /// speak the OpenAI wire format, so an unknown one resolves to `openai` there.
    pub(crate) fn resolve_provider(&self, prompt: &Prompt) -> Result<Provider, Error> {
        if let Some(p) = self.provider {
            return Ok(p);
        }
        match prompt.model.as_ref().and_then(|m| m.provider.as_deref()) {
            None => Ok(Provider::OpenAi),
            Some(name) => match Provider::parse(name) {
                Some(p) => Ok(p),
                None if prompt.profile == Profile::Promptflow => Ok(Provider::OpenAi),
                None => Err(Error::UnknownProvider { provider: name.to_owned() }),
            },
        }
    }

    /// The API: the override, else `model.apiType`, else `chat`.
    pub(crate) fn resolve_api(&self, prompt: &Prompt) -> Result<Api, Error> {
        if let Some(a) = self.api {
            return Ok(a);
        }
        match prompt.model.as_ref().and_then(|m| m.api_type.as_deref()) {
            None => Ok(Api::Chat),
            Some(name) => Api::parse(name).ok_or_else(|| Error::UnknownApi { api: name.to_owned() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_by_name() {
        for id in [
            "gpt-4o",
            "GPT-4.1-mini",
            "o1",
            "o3-mini",
            "o4-mini-2025-04-16",
            "chatgpt-4o-latest",
            "text-embedding-3-small",
            "dall-e-3",
        ] {
            assert_eq!(model_family(id), Some("OpenAI"), "{id}");
        }
        for id in ["claude-sonnet-4-5", "claude-3-haiku-20240307", "Claude-opus-4"] {
            assert_eq!(model_family(id), Some("Anthropic"), "{id}");
        }
        for id in ["judge-deployment", "my-gpt", "omni", "o", "oss-20b", "llama-3.1-70b", "mistral-large", ""] {
            assert_eq!(model_family(id), None, "{id}");
        }
    }

    #[test]
    fn foreign_only_across_families() {
        assert!(foreign_model("gpt-4o", Provider::Anthropic).is_some());
        assert!(foreign_model("claude-sonnet-4-5", Provider::OpenAi).is_some());
        assert!(foreign_model("claude-sonnet-4-5", Provider::Azure).is_some());
        assert!(foreign_model("gpt-4o", Provider::Foundry).is_none());
        assert!(foreign_model("claude-sonnet-4-5", Provider::Anthropic).is_none());
        assert!(foreign_model("judge-deployment", Provider::Anthropic).is_none());
    }
}
