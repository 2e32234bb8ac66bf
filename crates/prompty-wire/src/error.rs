//! The crate's one error type.

use prompty_syntax::PropertyKind;

use crate::{Api, Provider};

/// Why a request could not be compiled or a response could not be read. Every message
/// names the key, tool or message at fault and the provider, and says what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `model.provider` names no provider this crate knows.
    #[error(
        "unknown provider `{provider}`: set `model.provider` to openai, azure, foundry or anthropic, or override the provider"
    )]
    UnknownProvider {
        /// The name as written.
        provider: String,
    },
    /// `model.apiType` names no API this crate knows.
    #[error("Unsupported API type: `{api}`; set `model.apiType` to chat, responses, embedding or image")]
    UnknownApi {
        /// The name as written.
        api: String,
    },
    /// The provider has no such API.
    #[error(
        "{provider} has no `{api}` API; {provider} takes only `chat`: target openai for responses, embedding or image"
    )]
    UnsupportedApi {
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// Neither the prompt nor the target names a model.
    #[error(
        "no model id for the {provider} {api} request: set `model.id` in the front matter or pass a model override"
    )]
    MissingModel {
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// A v1 prompt has no deployment and none was given.
    #[error(
        "no deployment for the v1 prompt's {provider} request: set `model.configuration.azure_deployment` (or `model.configuration.model`) or pass a model override"
    )]
    MissingDeployment {
        /// The provider.
        provider: Provider,
    },
    /// A v1 (promptflow) prompt was compiled for an API other than chat.
    #[error(
        "a v1 (promptflow) prompt compiles only to a chat request (OpenAI chat completions or Anthropic Messages), not {provider} {api}: rewrite its `model.parameters` as v2 `model.options` to target another API"
    )]
    PromptflowTarget {
        /// The provider asked for.
        provider: Provider,
        /// The API asked for.
        api: Api,
    },
    /// A v1 prompt's `model.api` is not `chat`.
    #[error(
        "v1 `model.api: {api}` is not supported for {provider}: only `chat` compiles (the completion API is retired); set `model.api: chat`"
    )]
    PromptflowApi {
        /// The value as written.
        api: String,
        /// The provider.
        provider: Provider,
    },
    /// A tool the request format cannot express.
    #[error(
        "tool `{tool}` has kind `{kind}`, which {provider} {api} requests cannot express: only function tools compile; declare it as `kind: function` with `parameters`, or remove it"
    )]
    UnsupportedTool {
        /// The tool's name.
        tool: String,
        /// Its kind.
        kind: String,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// A property whose kind has no JSON Schema type.
    #[error(
        "`{path}` has kind `{}`, which has no JSON Schema type for {provider}: tool parameters and outputs take string, integer, float, boolean, array, object or union",
        kind.as_str()
    )]
    SchemaKind {
        /// Where, e.g. `outputs.answer` or `tools.search.parameters.query`.
        path: String,
        /// The kind.
        kind: PropertyKind,
        /// The provider.
        provider: Provider,
    },
    /// A union without branches.
    #[error(
        "`{path}` is a union with no branches, which {provider} cannot take: give it a non-empty `oneOf` or `anyOf`"
    )]
    EmptyUnion {
        /// Where.
        path: String,
        /// The provider.
        provider: Provider,
    },
    /// A union with both `oneOf` and `anyOf`.
    #[error("`{path}` is a union with both `oneOf` and `anyOf`, which {provider} cannot take: keep one of them")]
    AmbiguousUnion {
        /// Where.
        path: String,
        /// The provider.
        provider: Provider,
    },
    /// An array without `items` where strict mode needs them.
    #[error("`{path}` is an array without `items`, which {provider} strict mode rejects: add `items`")]
    StrictArrayItems {
        /// Where.
        path: String,
        /// The provider.
        provider: Provider,
    },
    /// A content part the request format cannot carry.
    #[error("messages[{message}] ({role}): {provider} {api} requests cannot carry {part} parts; {hint}")]
    UnsupportedPart {
        /// Index of the message.
        message: usize,
        /// Its role.
        role: String,
        /// `image`, `file` or `audio`.
        part: &'static str,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
        /// What to do instead.
        hint: &'static str,
    },
    /// A content part whose media type is needed and not given.
    #[error(
        "messages[{message}] ({role}): the {part} part has no `mediaType`, which {provider} needs for inline data; set `mediaType` or pass a `data:<type>;base64,...` URI"
    )]
    MissingMediaType {
        /// Index of the message.
        message: usize,
        /// Its role.
        role: String,
        /// `image`, `file` or `audio`.
        part: &'static str,
        /// The provider.
        provider: Provider,
    },
    /// A role the request format has no place for.
    #[error(
        "messages[{message}]: role `{role}` cannot be sent to {provider} {api}; use system, user, assistant, developer or tool"
    )]
    UnsupportedRole {
        /// Index of the message.
        message: usize,
        /// The role.
        role: String,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// Message metadata the conversion needs is missing or malformed.
    #[error("messages[{message}] ({role}): {provider} {api} needs metadata `{key}`, which {problem}")]
    BadMetadata {
        /// Index of the message.
        message: usize,
        /// Its role.
        role: String,
        /// The metadata key.
        key: &'static str,
        /// What is wrong with it and what to do, as a clause after "which".
        problem: String,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// An embedding request with nothing to embed.
    #[error("the {provider} embedding request has no text: no message has a text part; render some text to embed")]
    NothingToEmbed {
        /// The provider.
        provider: Provider,
    },
    /// A response that does not have the provider's shape.
    #[error("cannot read the {provider} {api} response: {problem}")]
    BadResponse {
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
        /// What is missing or wrong.
        problem: String,
    },
    /// The provider answered with an error object.
    #[error("{provider} returned an error: {message}")]
    ProviderError {
        /// The provider.
        provider: Provider,
        /// The provider's message.
        message: String,
    },
    /// `response_format: json_object` and the reply is not JSON.
    #[error(
        "the {provider} reply is not valid JSON although `model.parameters.response_format` is `json_object`: {problem}"
    )]
    InvalidJson {
        /// The provider.
        provider: Provider,
        /// The parser's complaint.
        problem: String,
    },
    /// A JSON reply without a key `outputs` declares.
    #[error(
        "the {provider} JSON reply has no `{key}`, which `outputs` declares: ask for it in the prompt or remove it from `outputs`"
    )]
    MissingOutputKey {
        /// The provider.
        provider: Provider,
        /// The key.
        key: String,
    },
    /// A reasoning-model request for a provider or API without that rewrite.
    #[error(
        "a reasoning-model request is an OpenAI-style chat or responses request; {provider} {api} requests have no reasoning-model form: leave out the reasoning-model option or compile for an OpenAI-style chat API"
    )]
    ReasoningModel {
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
}

impl Error {
    /// The stable diagnostic code (`PW0xx`; see [`codes`](crate::codes)).
    pub fn code(&self) -> prompty_syntax::Code {
        use crate::codes;
        match self {
            Self::UnknownProvider { .. } => codes::UNKNOWN_PROVIDER,
            Self::UnknownApi { .. } => codes::UNKNOWN_API,
            Self::UnsupportedApi { .. } => codes::UNSUPPORTED_API,
            Self::MissingModel { .. } => codes::MISSING_MODEL,
            Self::MissingDeployment { .. } => codes::MISSING_DEPLOYMENT,
            Self::PromptflowTarget { .. } => codes::PROMPTFLOW_TARGET,
            Self::PromptflowApi { .. } => codes::PROMPTFLOW_API,
            Self::UnsupportedTool { .. } => codes::UNSUPPORTED_TOOL,
            Self::SchemaKind { .. } => codes::SCHEMA_KIND,
            Self::EmptyUnion { .. } => codes::EMPTY_UNION,
            Self::AmbiguousUnion { .. } => codes::AMBIGUOUS_UNION,
            Self::StrictArrayItems { .. } => codes::STRICT_ARRAY_ITEMS,
            Self::UnsupportedPart { .. } => codes::UNSUPPORTED_PART,
            Self::MissingMediaType { .. } => codes::MISSING_MEDIA_TYPE,
            Self::UnsupportedRole { .. } => codes::UNSUPPORTED_ROLE,
            Self::BadMetadata { .. } => codes::BAD_METADATA,
            Self::NothingToEmbed { .. } => codes::NOTHING_TO_EMBED,
            Self::BadResponse { .. } => codes::BAD_RESPONSE,
            Self::ProviderError { .. } => codes::PROVIDER_ERROR,
            Self::InvalidJson { .. } => codes::INVALID_JSON,
            Self::MissingOutputKey { .. } => codes::MISSING_OUTPUT_KEY,
            Self::ReasoningModel { .. } => codes::REASONING_MODEL,
        }
    }

    /// The error as an error-level diagnostic. Wire errors are about the prompt as a whole
    /// (or the response), not a place in the file: the span is empty, at the start.
    pub fn to_diagnostic(&self) -> prompty_syntax::Diagnostic {
        prompty_syntax::Diagnostic::error(self.code(), 0..0, self.to_string())
    }

    /// The error with every value `${env:}` supplied shown as its reference.
    pub(crate) fn redacted(mut self, secrets: &prompty_syntax::Secrets) -> Self {
        for s in self.strings_mut() {
            secrets.redact_string(s);
        }
        self
    }

    /// Every text field that may quote the prompt or the response.
    fn strings_mut(&mut self) -> Vec<&mut String> {
        match self {
            Self::UnknownProvider { provider: s }
            | Self::UnknownApi { api: s }
            | Self::PromptflowApi { api: s, .. }
            | Self::SchemaKind { path: s, .. }
            | Self::EmptyUnion { path: s, .. }
            | Self::AmbiguousUnion { path: s, .. }
            | Self::StrictArrayItems { path: s, .. }
            | Self::UnsupportedPart { role: s, .. }
            | Self::MissingMediaType { role: s, .. }
            | Self::UnsupportedRole { role: s, .. }
            | Self::BadResponse { problem: s, .. }
            | Self::ProviderError { message: s, .. }
            | Self::InvalidJson { problem: s, .. }
            | Self::MissingOutputKey { key: s, .. } => vec![s],
            Self::UnsupportedTool { tool, kind, .. } => vec![tool, kind],
            Self::BadMetadata { role, problem, .. } => vec![role, problem],
            Self::UnsupportedApi { .. }
            | Self::MissingModel { .. }
            | Self::MissingDeployment { .. }
            | Self::PromptflowTarget { .. }
            | Self::ReasoningModel { .. }
            | Self::NothingToEmbed { .. } => Vec::new(),
        }
    }
}

impl From<&Error> for prompty_syntax::Diagnostic {
    fn from(e: &Error) -> Self {
        e.to_diagnostic()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One value of every variant.
    fn every_error() -> Vec<Error> {
        let (provider, api) = (Provider::OpenAi, Api::Chat);
        let s = || "x".to_owned();
        vec![
            Error::UnknownProvider { provider: s() },
            Error::UnknownApi { api: s() },
            Error::UnsupportedApi { provider, api },
            Error::MissingModel { provider, api },
            Error::MissingDeployment { provider },
            Error::PromptflowTarget { provider, api },
            Error::PromptflowApi { api: s(), provider },
            Error::UnsupportedTool { tool: s(), kind: s(), provider, api },
            Error::SchemaKind { path: s(), kind: PropertyKind::String, provider },
            Error::EmptyUnion { path: s(), provider },
            Error::AmbiguousUnion { path: s(), provider },
            Error::StrictArrayItems { path: s(), provider },
            Error::UnsupportedPart { message: 0, role: s(), part: "image", provider, api, hint: "h" },
            Error::MissingMediaType { message: 0, role: s(), part: "image", provider },
            Error::UnsupportedRole { message: 0, role: s(), provider, api },
            Error::BadMetadata { message: 0, role: s(), key: "k", problem: s(), provider, api },
            Error::NothingToEmbed { provider },
            Error::BadResponse { provider, api, problem: s() },
            Error::ProviderError { provider, message: s() },
            Error::InvalidJson { provider, problem: s() },
            Error::MissingOutputKey { provider, key: s() },
            Error::ReasoningModel { provider, api },
        ]
    }

    /// Every variant has its own error-level code, listed in `codes::ALL`, and its
    /// diagnostic carries the message as Display shows it.
    #[test]
    fn every_error_has_a_listed_code() {
        let mut seen = std::collections::HashSet::new();
        for e in every_error() {
            let d = e.to_diagnostic();
            assert!(crate::codes::ALL.iter().any(|c| c.code == d.code && c.severity == d.severity), "{e:?}");
            assert!(seen.insert(d.code.id), "{e:?} shares {}", d.code.id);
            assert_eq!(d.message, e.to_string());
        }
        let listed = crate::codes::ALL.iter().filter(|c| c.severity == prompty_syntax::Severity::Error).count();
        assert_eq!(seen.len(), listed);
    }
}
