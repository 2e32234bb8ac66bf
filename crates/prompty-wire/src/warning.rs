//! Warnings: something in the prompt was not sent as written, and the request is still
//! valid.

use std::fmt;

use crate::{Api, ParamSource, Provider};

/// Something the compiler left out or changed. Each names the key (or message, tool,
/// schema path) and the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A `model.options` field the provider's API does not take.
    UnsupportedOption {
        /// The option's spec name, e.g. `topK`.
        option: &'static str,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// A free-form parameter whose field the request already sets.
    ShadowedParameter {
        /// Where the parameter is written.
        source: ParamSource,
        /// The parameter's key.
        key: String,
        /// The request field it would set (`text.format` for a nested one).
        field: String,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// A free-form parameter the target API has no field for (and no equivalent of).
    DroppedParameter {
        /// Where the parameter is written.
        source: ParamSource,
        /// The parameter's key.
        key: String,
        /// Why it is not sent.
        reason: String,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// JSON output (`outputs` or a JSON `response_format`) sent as a forced tool whose
    /// input is the answer (Anthropic has no JSON mode).
    JsonAsTool {
        /// What asks for JSON: `outputs` or the parameter's key path.
        what: String,
        /// The tool's name.
        tool: &'static str,
        /// The provider.
        provider: Provider,
    },
    /// JSON output that this request cannot enforce: the reply is still JSON-parsed.
    UnenforcedJson {
        /// What asks for JSON: `outputs` or the parameter's key path.
        what: String,
        /// Why it cannot be enforced.
        reason: &'static str,
        /// The provider.
        provider: Provider,
    },
    /// The model id belongs to another provider's family of models.
    ForeignModel {
        /// The model id.
        model: String,
        /// The family it belongs to (`OpenAI`, `Anthropic`).
        family: &'static str,
        /// The provider the request is for.
        provider: Provider,
    },
    /// A message metadata key the provider's message format has no place for.
    DroppedMetadata {
        /// Index of the message.
        message: usize,
        /// Its role.
        role: String,
        /// The key.
        key: String,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// `tools` on an API that takes none.
    IgnoredTools {
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// `outputs` on an API without structured output.
    IgnoredOutputs {
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// A non-text part on an API that takes only text.
    IgnoredPart {
        /// Index of the message.
        message: usize,
        /// `image`, `file` or `audio`.
        part: &'static str,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// An object without properties in a strict schema.
    EmptyStrictObject {
        /// Where, e.g. `outputs.style`.
        path: String,
        /// The provider.
        provider: Provider,
    },
    /// `oneOf` in a strict schema, sent as `anyOf`.
    OneOfAsAnyOf {
        /// Where.
        path: String,
        /// The provider.
        provider: Provider,
    },
    /// A tool binding that names no parameter.
    UnknownBinding {
        /// The tool.
        tool: String,
        /// The bound name.
        param: String,
        /// The provider.
        provider: Provider,
    },
    /// `allowMultipleToolCalls` on a request without tools.
    ParallelToolCallsWithoutTools {
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// A system or developer message after the conversation started, moved into the
    /// top-level system text.
    MovedSystemMessage {
        /// Index of the message.
        message: usize,
        /// Its role.
        role: String,
        /// The top-level field it was joined into (`system`, `instructions`).
        field: &'static str,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
    },
    /// A message with no content, left out because the provider rejects empty content.
    DroppedEmptyMessage {
        /// Index of the message.
        message: usize,
        /// Its role.
        role: String,
        /// The provider.
        provider: Provider,
    },
    /// An image request whose prompt is empty.
    EmptyImagePrompt {
        /// The provider.
        provider: Provider,
    },
}

impl Warning {
    /// The stable diagnostic code (`PW1xx`; see [`codes`](crate::codes)).
    pub fn code(&self) -> prompty_syntax::Code {
        use crate::codes;
        match self {
            Self::UnsupportedOption { .. } => codes::UNSUPPORTED_OPTION,
            Self::ShadowedParameter { .. } => codes::SHADOWED_PARAMETER,
            Self::DroppedParameter { .. } => codes::DROPPED_PARAMETER,
            Self::JsonAsTool { .. } => codes::JSON_AS_TOOL,
            Self::ForeignModel { .. } => codes::FOREIGN_MODEL,
            Self::DroppedMetadata { .. } => codes::DROPPED_METADATA,
            Self::IgnoredTools { .. } => codes::IGNORED_TOOLS,
            Self::IgnoredOutputs { .. } => codes::IGNORED_OUTPUTS,
            Self::UnenforcedJson { .. } => codes::UNENFORCED_JSON,
            Self::IgnoredPart { .. } => codes::IGNORED_PART,
            Self::EmptyStrictObject { .. } => codes::EMPTY_STRICT_OBJECT,
            Self::OneOfAsAnyOf { .. } => codes::ONE_OF_AS_ANY_OF,
            Self::UnknownBinding { .. } => codes::UNKNOWN_BINDING,
            Self::ParallelToolCallsWithoutTools { .. } => codes::PARALLEL_WITHOUT_TOOLS,
            Self::MovedSystemMessage { .. } => codes::MOVED_SYSTEM_MESSAGE,
            Self::DroppedEmptyMessage { .. } => codes::DROPPED_EMPTY_MESSAGE,
            Self::EmptyImagePrompt { .. } => codes::EMPTY_IMAGE_PROMPT,
        }
    }

    /// The warning as a warning-level diagnostic about the prompt as a whole (an empty span
    /// at the start of the file).
    pub fn to_diagnostic(&self) -> prompty_syntax::Diagnostic {
        prompty_syntax::Diagnostic::warning(self.code(), 0..0, self.to_string())
    }

    /// The warning with every value `${env:}` supplied shown as its reference.
    pub(crate) fn redacted(mut self, secrets: &prompty_syntax::Secrets) -> Self {
        let strings: Vec<&mut String> = match &mut self {
            Self::JsonAsTool { what: s, .. }
            | Self::UnenforcedJson { what: s, .. }
            | Self::ForeignModel { model: s, .. }
            | Self::EmptyStrictObject { path: s, .. }
            | Self::OneOfAsAnyOf { path: s, .. }
            | Self::MovedSystemMessage { role: s, .. }
            | Self::DroppedEmptyMessage { role: s, .. } => vec![s],
            Self::DroppedMetadata { role, key, .. } => vec![role, key],
            Self::ShadowedParameter { key, field, .. } => vec![key, field],
            Self::DroppedParameter { key, reason, .. } => vec![key, reason],
            Self::UnknownBinding { tool, param, .. } => vec![tool, param],
            Self::UnsupportedOption { .. }
            | Self::IgnoredTools { .. }
            | Self::IgnoredOutputs { .. }
            | Self::IgnoredPart { .. }
            | Self::ParallelToolCallsWithoutTools { .. }
            | Self::EmptyImagePrompt { .. } => Vec::new(),
        };
        for s in strings {
            secrets.redact_string(s);
        }
        self
    }

    /// The provider the warning is about.
    pub fn provider(&self) -> Provider {
        match self {
            Self::UnsupportedOption { provider, .. }
            | Self::ShadowedParameter { provider, .. }
            | Self::DroppedParameter { provider, .. }
            | Self::JsonAsTool { provider, .. }
            | Self::UnenforcedJson { provider, .. }
            | Self::ForeignModel { provider, .. }
            | Self::DroppedMetadata { provider, .. }
            | Self::IgnoredTools { provider, .. }
            | Self::IgnoredOutputs { provider, .. }
            | Self::IgnoredPart { provider, .. }
            | Self::EmptyStrictObject { provider, .. }
            | Self::OneOfAsAnyOf { provider, .. }
            | Self::UnknownBinding { provider, .. }
            | Self::ParallelToolCallsWithoutTools { provider, .. }
            | Self::MovedSystemMessage { provider, .. }
            | Self::DroppedEmptyMessage { provider, .. }
            | Self::EmptyImagePrompt { provider } => *provider,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnsupportedOption { option, provider, api } => write!(
                f,
                "`model.options.{option}` is not sent: the {provider} {api} API has no such option; remove it or target a provider that takes it"
            ),
            Self::ShadowedParameter { source, key, field, provider, api } => write!(
                f,
                "`{}.{key}` is not sent to {provider} {api}: the request already sets `{field}`; remove it from `{}`",
                source.path(),
                source.path()
            ),
            Self::DroppedParameter { source, key, reason, .. } => {
                write!(f, "`{}.{key}` is not sent: {reason}", source.path())
            }
            Self::JsonAsTool { what, tool, provider } => write!(
                f,
                "`{what}` asks for JSON: the {provider} request forces a `{tool}` tool whose input is the answer (a reply that calls it is read as that JSON)"
            ),
            Self::UnenforcedJson { what, reason, provider } => write!(
                f,
                "`{what}` asks for JSON, which this {provider} request cannot enforce ({reason}): the reply is JSON-parsed but its shape is not enforced; describe the JSON shape in the prompt"
            ),
            Self::ForeignModel { model, family, provider } => write!(
                f,
                "model `{model}` is an {family} model, but the request is for {provider}: set `model.id` to a model {provider} serves or pass the model override (`--model`)"
            ),
            Self::DroppedMetadata { message, role, key, provider, api } => write!(
                f,
                "messages[{message}] ({role}): metadata `{key}` is not sent: {provider} {api} messages have no such field"
            ),
            Self::IgnoredTools { provider, api } => {
                write!(
                    f,
                    "`tools` are not sent: the {provider} {api} API takes no tools; remove them or use apiType chat"
                )
            }
            Self::IgnoredOutputs { provider, api } => write!(
                f,
                "`outputs` are not sent: the {provider} {api} API has no structured output; remove them or use apiType chat"
            ),
            Self::IgnoredPart { message, part, provider, api } => {
                write!(f, "messages[{message}]: the {part} part is not sent: {provider} {api} requests take only text")
            }
            Self::EmptyStrictObject { path, provider } => write!(
                f,
                "`{path}` is an object without `properties`: under {provider} strict mode the model can only return `{{}}`; declare its properties"
            ),
            Self::OneOfAsAnyOf { path, provider } => write!(
                f,
                "`{path}` uses `oneOf`, which {provider} strict mode does not take; it is sent as `anyOf` (use `anyOf` to silence this)"
            ),
            Self::UnknownBinding { tool, param, provider } => write!(
                f,
                "tool `{tool}` binds `{param}`, which is not one of its parameters, so nothing is hidden from {provider}; fix the binding's name"
            ),
            Self::ParallelToolCallsWithoutTools { provider, api } => write!(
                f,
                "`model.options.allowMultipleToolCalls` is not sent: the {provider} {api} request has no tools"
            ),
            Self::MovedSystemMessage { message, role, field, provider, api } => write!(
                f,
                "messages[{message}] ({role}) comes after the conversation started; {provider} {api} takes system text only up front, so it is joined into `{field}`"
            ),
            Self::DroppedEmptyMessage { message, role, provider } => {
                write!(f, "messages[{message}] ({role}) is empty and is not sent: {provider} rejects empty content")
            }
            Self::EmptyImagePrompt { provider } => {
                write!(f, "the {provider} image prompt is empty: no user message has text; add a `user:` message")
            }
        }
    }
}

impl From<&Warning> for prompty_syntax::Diagnostic {
    fn from(w: &Warning) -> Self {
        w.to_diagnostic()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant has its own warning-level code, listed in `codes::ALL`.
    #[test]
    fn every_warning_has_a_listed_code() {
        let (provider, api) = (Provider::OpenAi, Api::Chat);
        let s = || "x".to_owned();
        let all = [
            Warning::UnsupportedOption { option: "topK", provider, api },
            Warning::ShadowedParameter { source: ParamSource::Parameters, key: s(), field: s(), provider, api },
            Warning::DroppedParameter {
                source: ParamSource::AdditionalProperties,
                key: s(),
                reason: s(),
                provider,
                api,
            },
            Warning::JsonAsTool { what: s(), tool: "t", provider },
            Warning::ForeignModel { model: s(), family: "OpenAI", provider },
            Warning::DroppedMetadata { message: 0, role: s(), key: s(), provider, api },
            Warning::IgnoredTools { provider, api },
            Warning::IgnoredOutputs { provider, api },
            Warning::UnenforcedJson { what: s(), reason: "r", provider },
            Warning::IgnoredPart { message: 0, part: "image", provider, api },
            Warning::EmptyStrictObject { path: s(), provider },
            Warning::OneOfAsAnyOf { path: s(), provider },
            Warning::UnknownBinding { tool: s(), param: s(), provider },
            Warning::ParallelToolCallsWithoutTools { provider, api },
            Warning::MovedSystemMessage { message: 0, role: s(), field: "system", provider, api },
            Warning::DroppedEmptyMessage { message: 0, role: s(), provider },
            Warning::EmptyImagePrompt { provider },
        ];
        let mut seen = std::collections::HashSet::new();
        for w in all {
            let d = w.to_diagnostic();
            assert!(crate::codes::ALL.iter().any(|c| c.code == d.code && c.severity == d.severity), "{w:?}");
            assert!(seen.insert(d.code.id), "{w:?} shares {}", d.code.id);
            assert_eq!(d.message, w.to_string());
        }
        let listed = crate::codes::ALL.iter().filter(|c| c.severity == prompty_syntax::Severity::Warning).count();
        assert_eq!(seen.len(), listed);
    }
}
