//! Warnings: something in the prompt was not sent as written, and the request is still
//! valid.

use std::fmt;

use crate::{Api, Provider};

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
    /// An `additionalProperties` entry whose key the request already sets.
    ShadowedOption {
        /// The key.
        key: String,
        /// The provider.
        provider: Provider,
        /// The API.
        api: Api,
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
    /// `outputs` on a provider that cannot be sent a schema: the reply is still JSON-parsed.
    UnenforcedOutputs {
        /// The provider.
        provider: Provider,
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
            Self::ShadowedOption { .. } => codes::SHADOWED_OPTION,
            Self::DroppedMetadata { .. } => codes::DROPPED_METADATA,
            Self::IgnoredTools { .. } => codes::IGNORED_TOOLS,
            Self::IgnoredOutputs { .. } => codes::IGNORED_OUTPUTS,
            Self::UnenforcedOutputs { .. } => codes::UNENFORCED_OUTPUTS,
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
            Self::ShadowedOption { key: s, .. }
            | Self::EmptyStrictObject { path: s, .. }
            | Self::OneOfAsAnyOf { path: s, .. }
            | Self::MovedSystemMessage { role: s, .. }
            | Self::DroppedEmptyMessage { role: s, .. } => vec![s],
            Self::DroppedMetadata { role, key, .. } => vec![role, key],
            Self::UnknownBinding { tool, param, .. } => vec![tool, param],
            Self::UnsupportedOption { .. }
            | Self::IgnoredTools { .. }
            | Self::IgnoredOutputs { .. }
            | Self::UnenforcedOutputs { .. }
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
            | Self::ShadowedOption { provider, .. }
            | Self::DroppedMetadata { provider, .. }
            | Self::IgnoredTools { provider, .. }
            | Self::IgnoredOutputs { provider, .. }
            | Self::UnenforcedOutputs { provider }
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
            Self::ShadowedOption { key, provider, api } => write!(
                f,
                "`model.options.additionalProperties.{key}` is not sent to {provider} {api}: the request already sets `{key}`; remove it from `additionalProperties`"
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
            Self::UnenforcedOutputs { provider } => write!(
                f,
                "`outputs` cannot be sent to {provider} as a schema: the reply is JSON-parsed but its shape is not enforced; describe the JSON shape in the prompt"
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
            Warning::ShadowedOption { key: s(), provider, api },
            Warning::DroppedMetadata { message: 0, role: s(), key: s(), provider, api },
            Warning::IgnoredTools { provider, api },
            Warning::IgnoredOutputs { provider, api },
            Warning::UnenforcedOutputs { provider },
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
