//! How to read a provider's response: the provider and API that answered and what the
//! text of the reply is.

use prompty_syntax::{Prompt, Secrets};

use crate::{Api, Provider};

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
    /// Values `${env:}` supplied to the prompt: [`process`](crate::process) errors show
    /// `${env:NAME}` instead (a provider's error may echo the request, its key included).
    pub(crate) secrets: Secrets,
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

    /// Sets the values `${env:}` supplied to the prompt, which [`process`](crate::process)
    /// errors never quote ([`for_prompt`](Self::for_prompt) and [`compile`](crate::compile)
    /// set the prompt's own).
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
}

/// A v2 prompt's reply: JSON-parsed from chat and responses when it declares `outputs`.
pub(crate) fn spec_response(prompt: &Prompt, provider: Provider, api: Api) -> ResponseSpec {
    let structured =
        prompt.outputs.as_ref().is_some_and(|o| !o.is_empty()) && matches!(api, Api::Chat | Api::Responses);
    let format = if structured { ResultFormat::Structured } else { ResultFormat::Text };
    ResponseSpec { provider, api, format, answer_tool: None, secrets: prompt.secrets.clone() }
}
