//! The crate's one error type.

/// Why an endpoint cannot be used, a request cannot be built or a reply cannot be read.
/// No message ever holds a credential: keys are named by where they came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An endpoint URL does not parse or is not http(s).
    #[error("{origin}: `{url}` is not an http:// or https:// URL ({problem})")]
    BadUrl {
        /// Where the URL came from (`--base-url`, `OPENAI_BASE_URL`, `model.connection.endpoint`).
        origin: String,
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The prompt names its own endpoint, and nothing the user controls trusts it.
    #[error(
        "{file_key} names the endpoint {endpoint}, which is not trusted: no request was made. \
         A prompt file may only send requests (and credentials) to an endpoint you name: pass it \
         with --base-url, set {env_var}, or list it in PROMPTY_TRUSTED_ENDPOINTS \
         (comma-separated, compared by scheme, host and port)"
    )]
    UntrustedEndpoint {
        /// The front-matter key (`model.connection.endpoint`).
        file_key: String,
        /// The endpoint's scheme, host and port.
        endpoint: String,
        /// The environment variable that would name it for this provider.
        env_var: &'static str,
    },
    /// The prompt's key comes from an environment variable that is not the provider's own
    /// key variable, and the user has not allowed it.
    #[error(
        "{key} is `${{env:{var}}}`, which is not {provider}'s key variable {own}: no request was made. \
         A prompt file chooses which variable is sent as its key, so only {own} or a variable you \
         allow is sent: pass --allow-key-var {var}, or list it in prompty.toml \
         (`[run]` `allow-key-vars = [\"{var}\"]`)"
    )]
    KeyVariableNotAllowed {
        /// The front-matter key (`model.connection.apiKey`).
        key: String,
        /// The variable the prompt names.
        var: String,
        /// The provider's wire name.
        provider: &'static str,
        /// The provider's own key variable.
        own: &'static str,
    },
    /// An entry of `PROMPTY_TRUSTED_ENDPOINTS` is not a URL.
    #[error(
        "PROMPTY_TRUSTED_ENDPOINTS: entry {index} `{entry}` is not an http:// or https:// URL; \
         list endpoints like `https://my-resource.openai.azure.com,http://localhost:11434`"
    )]
    BadTrustedEndpoint {
        /// 1-based position in the list.
        index: usize,
        /// The entry as written.
        entry: String,
    },
    /// There is no endpoint for a provider that has no public default.
    #[error("no endpoint for {provider}: pass --base-url or set {env_var}")]
    NoEndpoint {
        /// The provider.
        provider: &'static str,
        /// Its environment variable.
        env_var: &'static str,
    },
    /// A connection setting the request needs comes from an environment variable that is
    /// not set.
    #[error("{key} is `${{env:{var}}}`, and {var} is not set: set it where the prompt runs")]
    UnsetVariable {
        /// The front-matter key (`model.connection.endpoint`).
        key: String,
        /// The variable.
        var: String,
    },
    /// The provider or API cannot be sent by this client.
    #[error("{0}")]
    Unsupported(String),
    /// A batch file line or a streamed event is not what the provider writes.
    #[error("{0}")]
    BadReply(String),
}

impl Error {
    /// The stable code of the error.
    pub fn code(&self) -> prompty_syntax::Code {
        use crate::codes;
        match self {
            Self::BadUrl { .. } => codes::BAD_URL,
            Self::UntrustedEndpoint { .. } => codes::UNTRUSTED_ENDPOINT,
            Self::BadTrustedEndpoint { .. } => codes::BAD_TRUSTED_ENDPOINT,
            Self::NoEndpoint { .. } => codes::NO_ENDPOINT,
            Self::UnsetVariable { .. } => codes::UNSET_VARIABLE,
            Self::Unsupported(_) => codes::UNSUPPORTED,
            Self::BadReply(_) => codes::BAD_REPLY,
            Self::KeyVariableNotAllowed { .. } => codes::KEY_VARIABLE_NOT_ALLOWED,
        }
    }

    /// The error as a diagnostic about the prompt as a whole.
    pub fn to_diagnostic(&self) -> prompty_syntax::Diagnostic {
        prompty_syntax::Diagnostic::error(self.code(), 0..0, self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant has its own code, listed in `codes::ALL`, and every listed `PC0xx`
    /// code belongs to a variant.
    #[test]
    fn every_error_has_its_own_listed_code() {
        let all = [
            Error::BadUrl { origin: "o".into(), url: "u".into(), problem: "p".into() },
            Error::UntrustedEndpoint { file_key: "k".into(), endpoint: "e".into(), env_var: "V" },
            Error::BadTrustedEndpoint { index: 1, entry: "e".into() },
            Error::NoEndpoint { provider: "azure", env_var: "V" },
            Error::UnsetVariable { key: "k".into(), var: "V".into() },
            Error::Unsupported("x".into()),
            Error::BadReply("x".into()),
            Error::KeyVariableNotAllowed { key: "k".into(), var: "V".into(), provider: "openai", own: "O" },
        ];
        let mut seen = std::collections::HashSet::new();
        for e in &all {
            let d = e.to_diagnostic();
            assert!(crate::codes::ALL.iter().any(|c| c.code == d.code && c.severity == d.severity), "{e:?}");
            assert!(seen.insert(d.code.id), "{} twice", d.code.id);
            assert_eq!(d.message, e.to_string());
        }
        let listed = crate::codes::ALL.iter().filter(|c| c.code.id.starts_with("PC0")).count();
        assert_eq!(listed, all.len());
    }
}
