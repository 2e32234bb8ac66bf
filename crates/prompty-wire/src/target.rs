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
