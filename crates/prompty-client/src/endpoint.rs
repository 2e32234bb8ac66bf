//! Where requests go, with which credential, and whether a prompt file may send them there.
//!
//! The endpoint is, in order: `--base-url`, the provider's environment variable
//! (`OPENAI_BASE_URL`, `AZURE_OPENAI_ENDPOINT`, `ANTHROPIC_BASE_URL`), the prompt's
//! `model.connection.endpoint` (v1: `model.configuration.azure_endpoint` or `base_url`),
//! then the provider's public API. An endpoint the prompt writes literally is trusted only
//! when it is one the user named for that provider: the value of its endpoint variable, an
//! entry of `PROMPTY_TRUSTED_ENDPOINTS`, or its public API; compared by scheme, host and
//! port. A prompt's key from `${env:NAME}` is sent only when `NAME` is the provider's own
//! key variable or one the user allows ([`Settings::allowed_key_vars`]). An endpoint the prompt takes from `${env:NAME}` was named by the user's
//! environment and is trusted. An untrusted endpoint is an error: no request is made.

use std::fmt;

use prompty_syntax::{Host, Prompt};
use prompty_wire::Provider;
use serde_json::Value;
use url::Url;

use crate::error::Error;

/// The environment variable listing endpoints a prompt file may name.
pub const TRUSTED_ENDPOINTS_VAR: &str = "PROMPTY_TRUSTED_ENDPOINTS";

/// The Azure OpenAI API version used when none is given.
pub const DEFAULT_AZURE_API_VERSION: &str = "2024-10-21";

/// How requests are sent: the URL layout and the credential header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wire {
    /// OpenAI and OpenAI-compatible servers (vLLM, Ollama, llama.cpp): `Authorization: Bearer`.
    OpenAi,
    /// Azure OpenAI and Foundry: deployment paths, `api-key`.
    Azure,
    /// Anthropic Messages: `x-api-key` and `anthropic-version`.
    Anthropic,
}

impl Wire {
    /// The wire a provider speaks.
    pub fn for_provider(provider: Provider) -> Wire {
        match provider {
            Provider::Anthropic => Wire::Anthropic,
            Provider::Azure | Provider::Foundry => Wire::Azure,
            _ => Wire::OpenAi,
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Wire::OpenAi => "openai",
            Wire::Azure => "azure",
            Wire::Anthropic => "anthropic",
        }
    }

    /// The environment variable naming the endpoint.
    pub fn base_url_var(self) -> &'static str {
        match self {
            Wire::OpenAi => "OPENAI_BASE_URL",
            Wire::Azure => "AZURE_OPENAI_ENDPOINT",
            Wire::Anthropic => "ANTHROPIC_BASE_URL",
        }
    }

    /// The environment variable holding the key.
    pub fn key_var(self) -> &'static str {
        match self {
            Wire::OpenAi => "OPENAI_API_KEY",
            Wire::Azure => "AZURE_OPENAI_API_KEY",
            Wire::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// The provider's public API, when it has one.
    pub fn default_base(self) -> Option<&'static str> {
        match self {
            Wire::OpenAi => Some("https://api.openai.com/v1"),
            Wire::Azure => None,
            Wire::Anthropic => Some("https://api.anthropic.com"),
        }
    }
}

/// Where the endpoint came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `--base-url`.
    CommandLine,
    /// An environment variable: the provider's, or one the prompt named with `${env:}`.
    Environment(String),
    /// Written in the prompt file at this key, and trusted.
    Prompt(String),
    /// The provider's public API.
    Default,
}

/// A credential. Never shown: `Debug` and `Display` print where it came from.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey {
    value: String,
    source: String,
}

impl ApiKey {
    /// A key and where it came from (`OPENAI_API_KEY`, `model.connection.apiKey`).
    pub fn new(value: impl Into<String>, source: impl Into<String>) -> Self {
        ApiKey { value: value.into(), source: source.into() }
    }

    /// The key itself, for the request header and nothing else.
    pub fn expose(&self) -> &str {
        &self.value
    }

    /// Where the key came from.
    pub fn source(&self) -> &str {
        &self.source
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey(<{}>)", self.source)
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}>", self.source)
    }
}

/// A resolved, trusted endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// How to talk to it.
    pub wire: Wire,
    /// The base URL (OpenAI: up to `/v1`; Anthropic: the host; Azure: the resource).
    pub base: Url,
    /// Where the base URL came from.
    pub source: Source,
    /// The credential, if any.
    pub key: Option<ApiKey>,
    /// The prompt's key is `${env:NAME}` and `NAME` is not set: the request goes without a
    /// key (a local server may need none), and the caller says so. For the provider's
    /// public API this is an error instead ([`Error::UnsetVariable`]).
    pub missing_key: Option<String>,
    /// Azure: the `api-version` query parameter.
    pub api_version: Option<String>,
}

impl Endpoint {
    /// `scheme://host:port`, what trust compares.
    pub fn origin(&self) -> String {
        origin_of(&self.base)
    }

    /// `url` (one below this endpoint's base) as messages show it: without its query, and,
    /// when the base came from an environment variable, with the base written as
    /// `${env:NAME}`: the variable's value is never shown.
    pub fn shown_url(&self, url: &Url) -> String {
        let mut u = url.clone();
        u.set_query(None);
        let text = u.to_string();
        match &self.source {
            Source::Environment(var) => {
                let base = self.base.as_str().trim_end_matches('/');
                let rest = text.strip_prefix(base).filter(|r| r.is_empty() || r.starts_with('/')).unwrap_or("");
                format!("${{env:{var}}}{rest}")
            }
            _ => text,
        }
    }

    /// `text` with this endpoint's base URL, when it came from an environment variable,
    /// written as `${env:NAME}`: for messages of lower layers that may quote the URL.
    pub fn hide_base(&self, text: &str) -> String {
        match &self.source {
            Source::Environment(var) => {
                let base = self.base.as_str().trim_end_matches('/');
                if base.is_empty() { text.to_owned() } else { text.replace(base, &format!("${{env:{var}}}")) }
            }
            _ => text.to_owned(),
        }
    }

    /// The forms of the key an answer may echo: as given, and trimmed of whitespace (what a
    /// server reads from the header), longest first; none empty.
    fn key_forms(&self) -> Vec<&str> {
        let Some(k) = &self.key else { return Vec::new() };
        let mut forms = vec![k.value.as_str(), k.value.trim()];
        forms.retain(|f| !f.is_empty());
        forms.dedup();
        forms
    }

    /// `text` with every occurrence of the key (as given, and trimmed) replaced by its
    /// source (`<OPENAI_API_KEY>`): for answers, error bodies and messages that might echo it.
    pub fn redact(&self, text: &str) -> String {
        let Some(k) = &self.key else { return text.to_owned() };
        let mut out = text.to_owned();
        for form in self.key_forms() {
            if out.contains(form) {
                out = out.replace(form, &k.to_string());
            }
        }
        out
    }

    /// Every string of `value` (object keys too) with the key replaced as [`Endpoint::redact`]
    /// does: an answer that echoes the key is stored and shown without it.
    pub fn redact_json(&self, value: &mut Value) {
        if self.key_forms().is_empty() {
            return;
        }
        match value {
            Value::String(s) if self.key_forms().iter().any(|f| s.contains(f)) => *s = self.redact(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_json(v)),
            Value::Object(map) => {
                let echoed: Vec<String> =
                    map.keys().filter(|k| self.key_forms().iter().any(|f| k.contains(f))).cloned().collect();
                for k in echoed {
                    if let Some(v) = map.remove(&k) {
                        map.insert(self.redact(&k), v);
                    }
                }
                map.values_mut().for_each(|v| self.redact_json(v));
            }
            _ => {}
        }
    }

    /// A redactor for text that arrives in pieces (a streamed answer): a key split across
    /// two pieces is still replaced.
    pub fn stream_redactor(&self) -> StreamRedactor<'_> {
        let hold = self.key_forms().iter().map(|f| f.len()).max().unwrap_or(0).saturating_sub(1);
        StreamRedactor { endpoint: self, pending: String::new(), hold }
    }
}

/// Redacts the key from text given in pieces: each [`StreamRedactor::push`] returns what is
/// safe to show, holding back a tail that could be the start of the key.
pub struct StreamRedactor<'a> {
    endpoint: &'a Endpoint,
    pending: String,
    hold: usize,
}

impl StreamRedactor<'_> {
    /// The next piece; what may be shown now.
    pub fn push(&mut self, piece: &str) -> String {
        self.pending.push_str(piece);
        if self.hold == 0 {
            return std::mem::take(&mut self.pending);
        }
        self.pending = self.endpoint.redact(&self.pending);
        let mut cut = self.pending.len().saturating_sub(self.hold);
        while !self.pending.is_char_boundary(cut) {
            cut -= 1;
        }
        let rest = self.pending.split_off(cut);
        std::mem::replace(&mut self.pending, rest)
    }

    /// The end of the text: what is still held back.
    pub fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.pending);
        self.endpoint.redact(&rest)
    }
}

/// What the command line says about the endpoint.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `--provider` (else the prompt's, else openai).
    pub provider: Option<Provider>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// Environment variables the user lets a prompt send as its key (`--allow-key-var`,
    /// `[run] allow-key-vars`), besides the provider's own key variable.
    pub allowed_key_vars: Vec<String>,
}

/// `scheme://host:port` of a URL, the port always written.
pub fn origin_of(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port_or_known_default() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

/// Parses an endpoint URL given at `origin`: http or https, a host, no user name or
/// password (a credential in a URL would be shown wherever the URL is), no fragment.
pub fn parse_endpoint(origin: &str, text: &str) -> Result<Url, Error> {
    parse_shown(origin, text, &shown_url(text))
}

/// Parses the endpoint URL the environment variable `var` holds: an error shows
/// `${env:var}`, never the value (which may be a key set in the wrong variable, or a URL
/// with a token in its path).
pub fn parse_env_endpoint(origin: &str, var: &str, text: &str) -> Result<Url, Error> {
    parse_shown(origin, text, &format!("${{env:{var}}}"))
}

fn parse_shown(origin: &str, text: &str, shown: &str) -> Result<Url, Error> {
    let bad =
        |problem: &str| Error::BadUrl { origin: origin.to_owned(), url: shown.to_owned(), problem: problem.to_owned() };
    let url = Url::parse(text.trim()).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("only http and https are supported"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("it holds a user name or password; put the key in the provider's key variable instead"));
    }
    if url.fragment().is_some() {
        return Err(bad("it has a `#` fragment"));
    }
    Ok(url)
}

/// A URL as it may be shown: without anything after `@` in the authority's user part.
fn shown_url(text: &str) -> String {
    match (text.find("://"), text.find('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://<credentials>@{}", &text[..s], &text[at + 1..]),
        _ => text.to_owned(),
    }
}

/// The endpoints `PROMPTY_TRUSTED_ENDPOINTS` lists, as origins.
pub fn trusted_origins(list: &str) -> Result<Vec<String>, Error> {
    list.split(',')
        .map(str::trim)
        .enumerate()
        .filter(|(_, e)| !e.is_empty())
        .map(|(i, entry)| {
            let url = Url::parse(entry)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty()))
                .ok_or_else(|| Error::BadTrustedEndpoint { index: i + 1, entry: shown_url(entry) })?;
            Ok(origin_of(&url))
        })
        .collect()
}

/// A value from the prompt: the text and, when `${env:NAME}` supplied it, the variable.
struct PromptValue {
    key: String,
    value: String,
    env: Option<String>,
    /// The value is still `${env:NAME}` because `NAME` was not set: this is `NAME`.
    unset: Option<String>,
}

fn prompt_value(prompt: &Prompt, keys: &[(&str, &str)]) -> Option<PromptValue> {
    let block = settings_block(prompt);
    for (path, key) in keys.iter().filter(|(path, _)| *path == block) {
        let fields = match *path {
            "model.connection" => prompt.model.as_ref().and_then(|m| m.connection.as_ref()).map(|c| &c.fields),
            _ => prompt.legacy.as_ref().and_then(|l| l.configuration.as_ref()),
        };
        if let Some(value) = fields.and_then(|f| f.get(*key)).and_then(|v| v.as_str()).filter(|v| !v.trim().is_empty())
        {
            let env = prompt.secrets.find(value).map(|s| s.name.clone());
            let unset = prompt.secrets.unset_reference(value).map(str::to_owned);
            return Some(PromptValue { key: format!("{path}.{key}"), value: value.to_owned(), env, unset });
        }
    }
    None
}

/// The block a prompt's connection settings (endpoint, key, API version) all come from:
/// `model.configuration` when the file has one (a v1 key, so the promptflow profile, whose
/// runtime reads only that block), else `model.connection`. One block for all of them, so a
/// file that gives both never mixes an endpoint from one with a key or version from the other.
fn settings_block(prompt: &Prompt) -> &'static str {
    match prompt.legacy.as_ref().and_then(|l| l.configuration.as_ref()) {
        Some(c) if !c.is_empty() => "model.configuration",
        _ => "model.connection",
    }
}

fn anonymous(prompt: &Prompt) -> bool {
    settings_block(prompt) == "model.connection"
        && prompt.model.as_ref().and_then(|m| m.connection.as_ref()).is_some_and(|c| c.kind == "anonymous")
}

/// Resolves the endpoint, its key and its trust. `host` gives the environment.
pub fn resolve(prompt: &Prompt, settings: &Settings, host: &dyn Host) -> Result<Endpoint, Error> {
    let provider = match settings.provider {
        Some(p) => p,
        None => match prompt.model.as_ref().and_then(|m| m.provider.as_deref()) {
            Some(name) => Provider::parse(name).unwrap_or(Provider::OpenAi),
            None => Provider::OpenAi,
        },
    };
    let wire = Wire::for_provider(provider);
    let env = |name: &str| host.env(name).filter(|v| !v.trim().is_empty());
    let prompt_endpoint = prompt_value(
        prompt,
        &[
            ("model.connection", "endpoint"),
            ("model.configuration", "azure_endpoint"),
            ("model.configuration", "base_url"),
        ],
    );
    let (base, source) = if let Some(url) = &settings.base_url {
        (parse_endpoint("--base-url", url)?, Source::CommandLine)
    } else if let Some(url) = env(wire.base_url_var()) {
        let var = wire.base_url_var();
        (parse_env_endpoint(var, var, &url)?, Source::Environment(var.to_owned()))
    } else if let Some(p) = prompt_endpoint {
        if let Some(var) = p.unset {
            return Err(Error::UnsetVariable { key: p.key, var });
        }
        match p.env {
            Some(var) => (parse_env_endpoint(&p.key, &var, &p.value)?, Source::Environment(var)),
            None => {
                let url = parse_endpoint(&p.key, &p.value)?;
                if !is_trusted(&url, wire, host)? {
                    return Err(Error::UntrustedEndpoint {
                        file_key: p.key,
                        endpoint: origin_of(&url),
                        env_var: wire.base_url_var(),
                    });
                }
                (url, Source::Prompt(p.key))
            }
        }
    } else if let Some(default) = wire.default_base() {
        (parse_endpoint("default", default)?, Source::Default)
    } else {
        return Err(Error::NoEndpoint { provider: provider.as_str(), env_var: wire.base_url_var() });
    };
    let mut missing_key = None;
    let key = if anonymous(prompt) {
        None
    } else {
        match prompt_value(prompt, &[("model.connection", "apiKey"), ("model.configuration", "api_key")]) {
            Some(PromptValue { key, unset: Some(var), .. }) => {
                if source == Source::Default {
                    return Err(Error::UnsetVariable { key, var });
                }
                missing_key = Some(var);
                None
            }
            Some(p) => {
                if let Some(var) = &p.env
                    && var != wire.key_var()
                    && !settings.allowed_key_vars.iter().any(|a| a == var)
                {
                    return Err(Error::KeyVariableNotAllowed {
                        key: p.key,
                        var: var.clone(),
                        provider: wire.name(),
                        own: wire.key_var(),
                    });
                }
                Some(ApiKey::new(p.value, p.env.map_or(p.key, |v| v)))
            }
            None => env(wire.key_var()).map(|k| ApiKey::new(k, wire.key_var())),
        }
    };
    let api_version = (wire == Wire::Azure).then(|| {
        // v2 defines no API version key (`apiVersion` on a connection is P010, an unknown key).
        prompt_value(prompt, &[("model.configuration", "api_version")])
            .map(|p| p.value)
            .or_else(|| env("OPENAI_API_VERSION"))
            .unwrap_or_else(|| DEFAULT_AZURE_API_VERSION.to_owned())
    });
    Ok(Endpoint { wire, base, source, key, missing_key, api_version })
}

/// Whether an endpoint written in a prompt file is one the user named for requests of
/// `wire`: the value of that provider's endpoint variable, that provider's public API, or an
/// entry of `PROMPTY_TRUSTED_ENDPOINTS`. Another provider's public API is not trusted: an
/// OpenAI request (and its key) never goes to Anthropic's API because a prompt says so.
fn is_trusted(url: &Url, wire: Wire, host: &dyn Host) -> Result<bool, Error> {
    let origin = origin_of(url);
    let mut trusted: Vec<String> = Vec::new();
    if let Some(v) = host.env(wire.base_url_var())
        && let Ok(u) = Url::parse(v.trim())
    {
        trusted.push(origin_of(&u));
    }
    if let Some(d) = wire.default_base().and_then(|d| Url::parse(d).ok()) {
        trusted.push(origin_of(&d));
    }
    if let Some(list) = host.env(TRUSTED_ENDPOINTS_VAR) {
        trusted.extend(trusted_origins(&list)?);
    }
    Ok(trusted.iter().any(|t| t.eq_ignore_ascii_case(&origin)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prompty_syntax::{LoadOptions, MapHost, load_str};

    fn prompt(front: &str, host: &MapHost) -> Prompt {
        let text = format!("---\n{front}\n---\nuser:\nhi\n");
        load_str(&text, host, &LoadOptions::default()).prompt.unwrap_or_else(|| panic!("{text}"))
    }

    fn host(vars: &[(&str, &str)]) -> MapHost {
        let mut h = MapHost::new();
        for (k, v) in vars {
            h = h.with_env(k, v);
        }
        h
    }

    const LITERAL: &str = "model:\n  id: m\n  connection:\n    kind: key\n    endpoint: http://10.1.2.3:8080/v1";

    #[test]
    fn literal_prompt_endpoint_is_refused_until_trusted() {
        let h = host(&[("OPENAI_API_KEY", "sk-test-secret-value")]);
        let p = prompt(LITERAL, &h);
        let err = resolve(&p, &Settings::default(), &h).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("model.connection.endpoint names the endpoint http://10.1.2.3:8080"), "{err}");
        assert!(err.contains("PROMPTY_TRUSTED_ENDPOINTS") && err.contains("--base-url"), "{err}");
        assert!(!err.contains("sk-test"), "{err}");

        for list in ["http://10.1.2.3:8080", "https://x.example, http://10.1.2.3:8080/other/path"] {
            let h = host(&[("OPENAI_API_KEY", "sk-test-secret-value"), (TRUSTED_ENDPOINTS_VAR, list)]);
            let e = resolve(&p, &Settings::default(), &h);
            assert_eq!(e.as_ref().map(|e| e.source.clone()), Ok(Source::Prompt("model.connection.endpoint".into())));
        }
        // Another port, another scheme: not the same endpoint.
        for list in ["http://10.1.2.3:8081", "https://10.1.2.3:8080", "http://10.1.2.3"] {
            let h = host(&[(TRUSTED_ENDPOINTS_VAR, list)]);
            assert!(matches!(resolve(&p, &Settings::default(), &h), Err(Error::UntrustedEndpoint { .. })), "{list}");
        }
        // Another provider's endpoint variable names that provider's endpoint, not this one's.
        let h = host(&[("AZURE_OPENAI_ENDPOINT", "http://10.1.2.3:8080")]);
        assert!(matches!(resolve(&p, &Settings::default(), &h), Err(Error::UntrustedEndpoint { .. })));
        let azure = Settings { provider: Some(Provider::Azure), ..Settings::default() };
        let h = host(&[("AZURE_OPENAI_ENDPOINT", "http://10.1.2.3:8080/")]);
        assert_eq!(resolve(&p, &azure, &h).map(|e| e.source), Ok(Source::Environment("AZURE_OPENAI_ENDPOINT".into())));
    }

    #[test]
    fn command_line_and_environment_win_over_the_prompt() {
        let h = host(&[]);
        let p = prompt(LITERAL, &h);
        let s = Settings { base_url: Some("http://127.0.0.1:9/v1".into()), ..Settings::default() };
        let e = resolve(&p, &s, &h).map(|e| (e.source.clone(), e.origin()));
        assert_eq!(e, Ok((Source::CommandLine, "http://127.0.0.1:9".to_owned())));
        let h = host(&[("OPENAI_BASE_URL", "http://127.0.0.1:7/v1")]);
        let e = resolve(&p, &Settings::default(), &h).map(|e| e.source);
        assert_eq!(e, Ok(Source::Environment("OPENAI_BASE_URL".into())));
    }

    /// A key or endpoint whose variable is unset is needed only here, when a request is
    /// about to be sent: the endpoint is refused (never the public API in its place), the
    /// key is left out for an endpoint the user named and refused for the public API.
    #[test]
    fn unset_connection_variables_are_reported_when_sending() {
        let h = host(&[]);
        let key_only = prompt("model:\n  id: m\n  connection:\n    kind: key\n    apiKey: ${env:MY_KEY}", &h);
        let local = Settings { base_url: Some("http://127.0.0.1:11434/v1".into()), ..Settings::default() };
        let e = resolve(&key_only, &local, &h).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!((e.key, e.missing_key.as_deref()), (None, Some("MY_KEY")));
        let public = resolve(&key_only, &Settings::default(), &h);
        assert_eq!(public, Err(Error::UnsetVariable { key: "model.connection.apiKey".into(), var: "MY_KEY".into() }));
        assert_eq!(
            public.map(|_| ()).expect_err("the public API needs the key").to_string(),
            "model.connection.apiKey is `${env:MY_KEY}`, and MY_KEY is not set: set it where the prompt runs"
        );
        let endpoint = prompt(
            "model:\n  id: m\n  provider: azure\n  connection:\n    kind: key\n    endpoint: ${env:MY_ENDPOINT}",
            &h,
        );
        let e = resolve(&endpoint, &Settings::default(), &h);
        assert_eq!(e, Err(Error::UnsetVariable { key: "model.connection.endpoint".into(), var: "MY_ENDPOINT".into() }));
        // The command line still wins over the prompt's endpoint.
        assert!(resolve(&endpoint, &local, &h).is_ok());
    }

    #[test]
    fn env_reference_endpoint_counts_as_environment() {
        let h = host(&[("MY_ENDPOINT", "http://10.9.9.9:1234"), ("MY_KEY", "abcdefghijkl")]);
        let p = prompt(
            "model:\n  id: m\n  provider: azure\n  connection:\n    kind: key\n    endpoint: ${env:MY_ENDPOINT}\n    apiKey: ${env:MY_KEY}",
            &h,
        );
        let allowed = Settings { allowed_key_vars: vec!["MY_KEY".into()], ..Settings::default() };
        let e = resolve(&p, &allowed, &h);
        let e = e.unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(e.source, Source::Environment("MY_ENDPOINT".into()));
        assert_eq!(e.redact("bad key abcdefghijkl!"), "bad key <MY_KEY>!");
        assert_eq!(e.wire, Wire::Azure);
        assert_eq!(e.key.as_ref().map(ApiKey::source), Some("MY_KEY"));
        assert_eq!(format!("{:?}", e.key), "Some(ApiKey(<MY_KEY>))");
        assert_eq!(e.api_version.as_deref(), Some(DEFAULT_AZURE_API_VERSION));
    }

    /// A prompt's key from a variable other than the provider's own is sent only when the
    /// user allows that variable.
    #[test]
    fn key_variables_other_than_the_providers_need_allowing() {
        let h = host(&[("GITHUB_TOKEN", "ghp-secret"), ("OPENAI_API_KEY", "sk-openai")]);
        let p = prompt("model:\n  id: m\n  connection:\n    kind: key\n    apiKey: ${env:GITHUB_TOKEN}", &h);
        let err = resolve(&p, &Settings::default(), &h).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            err,
            "model.connection.apiKey is `${env:GITHUB_TOKEN}`, which is not openai's key variable OPENAI_API_KEY: no request was made. A prompt file chooses which variable is sent as its key, so only OPENAI_API_KEY or a variable you allow is sent: pass --allow-key-var GITHUB_TOKEN, or list it in prompty.toml (`[run]` `allow-key-vars = [\"GITHUB_TOKEN\"]`)"
        );
        let allowed = Settings { allowed_key_vars: vec!["GITHUB_TOKEN".into()], ..Settings::default() };
        let e = resolve(&p, &allowed, &h).map(|e| e.key.map(|k| k.source().to_owned()));
        assert_eq!(e, Ok(Some("GITHUB_TOKEN".to_owned())));
        // The provider's own variable needs no allowing; another provider's does.
        let own = prompt("model:\n  id: m\n  connection:\n    kind: key\n    apiKey: ${env:OPENAI_API_KEY}", &h);
        assert!(resolve(&own, &Settings::default(), &h).is_ok());
        let h = host(&[("OPENAI_API_KEY", "sk-openai")]);
        let other = prompt(
            "model:\n  id: m\n  provider: anthropic\n  connection:\n    kind: key\n    apiKey: ${env:OPENAI_API_KEY}",
            &h,
        );
        assert!(matches!(
            resolve(&other, &Settings::default(), &h),
            Err(Error::KeyVariableNotAllowed { own: "ANTHROPIC_API_KEY", .. })
        ));
    }

    /// A provider's public API is trusted for that provider only.
    #[test]
    fn public_apis_are_trusted_for_their_own_provider() {
        let h = host(&[("OPENAI_API_KEY", "sk-openai"), ("ANTHROPIC_API_KEY", "sk-ant")]);
        let to = |provider: &str, endpoint: &str| {
            let p = prompt(
                &format!(
                    "model:\n  id: m\n  provider: {provider}\n  connection:\n    kind: key\n    endpoint: {endpoint}"
                ),
                &h,
            );
            resolve(&p, &Settings::default(), &h).map(|e| e.origin())
        };
        assert_eq!(to("openai", "https://api.openai.com/v1"), Ok("https://api.openai.com:443".into()));
        assert_eq!(to("anthropic", "https://api.anthropic.com"), Ok("https://api.anthropic.com:443".into()));
        assert!(matches!(to("openai", "https://api.anthropic.com"), Err(Error::UntrustedEndpoint { .. })));
        assert!(matches!(to("anthropic", "https://api.openai.com/v1"), Err(Error::UntrustedEndpoint { .. })));
        assert!(matches!(to("azure", "https://api.openai.com/v1"), Err(Error::UntrustedEndpoint { .. })));
    }

    /// A bad endpoint from an environment variable is named by the variable, never quoted.
    #[test]
    fn env_endpoints_are_shown_as_references() {
        let secret = "sk-live-0123456789abcdef";
        let h = host(&[("OPENAI_BASE_URL", secret)]);
        let p = prompt("model:\n  id: m", &h);
        let err = resolve(&p, &Settings::default(), &h).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            err,
            "OPENAI_BASE_URL: `${env:OPENAI_BASE_URL}` is not an http:// or https:// URL (relative URL without a base)"
        );
        let h = host(&[("MY_ENDPOINT", secret)]);
        let p = prompt("model:\n  id: m\n  connection:\n    kind: key\n    endpoint: ${env:MY_ENDPOINT}", &h);
        let err = resolve(&p, &Settings::default(), &h).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            err,
            "model.connection.endpoint: `${env:MY_ENDPOINT}` is not an http:// or https:// URL (relative URL without a base)"
        );
        let h = host(&[("MY_ENDPOINT", "http://10.0.0.1:9/tok-abc/v1")]);
        let p = prompt("model:\n  id: m\n  connection:\n    kind: key\n    endpoint: ${env:MY_ENDPOINT}", &h);
        let e = resolve(&p, &Settings::default(), &h).unwrap_or_else(|err| panic!("{err}"));
        let url = Url::parse("http://10.0.0.1:9/tok-abc/v1/chat/completions?x=1").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.shown_url(&url), "${env:MY_ENDPOINT}/chat/completions");
        assert_eq!(e.hide_base("error for http://10.0.0.1:9/tok-abc/v1/x"), "error for ${env:MY_ENDPOINT}/x");
    }

    /// A key echoed in an answer is replaced in its given and trimmed forms, in strings,
    /// object keys and pieces of a stream.
    #[test]
    fn echoed_keys_are_redacted_in_every_form() {
        let h = host(&[("OPENAI_API_KEY", "  sk-padded-0123456789\n")]);
        let p = prompt("model:\n  id: m", &h);
        let e = resolve(&p, &Settings { base_url: Some("http://h/v1".into()), ..Settings::default() }, &h)
            .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(e.redact("got sk-padded-0123456789."), "got <OPENAI_API_KEY>.");
        assert_eq!(e.redact("got [  sk-padded-0123456789\n]"), "got [<OPENAI_API_KEY>]");
        let mut v = serde_json::json!({"echo": ["Bearer sk-padded-0123456789"], "sk-padded-0123456789": 1});
        e.redact_json(&mut v);
        assert_eq!(v, serde_json::json!({"echo": ["Bearer <OPENAI_API_KEY>"], "<OPENAI_API_KEY>": 1}));
        let mut r = e.stream_redactor();
        let shown: String =
            ["a sk-pad", "ded-01234", "56789 b", " sk-padded-0123456789"].iter().map(|p| r.push(p)).collect::<String>()
                + &r.finish();
        assert_eq!(shown, "a <OPENAI_API_KEY> b <OPENAI_API_KEY>");
    }

    #[test]
    fn defaults_and_missing_endpoints() {
        let h = host(&[("ANTHROPIC_API_KEY", "k")]);
        let p = prompt("model:\n  id: m\n  provider: anthropic", &h);
        let e = resolve(&p, &Settings::default(), &h).map(|e| (e.base.to_string(), e.source, e.key.is_some()));
        assert_eq!(e, Ok(("https://api.anthropic.com/".into(), Source::Default, true)));
        let p = prompt("model:\n  id: m\n  provider: azure", &h);
        let err = resolve(&p, &Settings::default(), &h).err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("no endpoint for azure: pass --base-url or set AZURE_OPENAI_ENDPOINT"));
    }

    #[test]
    fn bad_urls_are_refused_without_showing_credentials() {
        for (url, problem) in [
            ("ftp://host/x", "only http and https"),
            ("http://user:pw@host/v1", "user name or password"),
            ("not a url", "relative URL without a base"),
            ("http://host/#frag", "fragment"),
        ] {
            let err = parse_endpoint("--base-url", url).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains(problem), "{url}: {err}");
            assert!(!err.contains("pw@"), "{err}");
        }
        let err = trusted_origins("http://ok:1, nope").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.starts_with("PROMPTY_TRUSTED_ENDPOINTS: entry 2 `nope`"), "{err}");
    }

    /// A file with both blocks (a P031 warning) takes every setting from `configuration`, the
    /// block the promptflow runtime reads: never an endpoint from one and a key or API version
    /// from the other.
    #[test]
    fn both_blocks_settings_come_from_one() {
        let h = host(&[("AZURE_KEY", "sk-azure"), ("OTHER_KEY", "sk-other")]);
        let front = "model:\n  api: chat\n  configuration:\n    type: azure_openai\n    azure_endpoint: https://a.openai.azure.com\n    api_key: ${env:AZURE_KEY}\n  connection:\n    kind: key\n    endpoint: https://b.example.com/v1\n    apiKey: ${env:OTHER_KEY}\n    apiVersion: 2020-01-01";
        let p = prompt(front, &h);
        let h = host(&[
            ("AZURE_KEY", "sk-azure"),
            ("OTHER_KEY", "sk-other"),
            (TRUSTED_ENDPOINTS_VAR, "https://a.openai.azure.com"),
        ]);
        let allowed = Settings { allowed_key_vars: vec!["AZURE_KEY".into()], ..Settings::default() };
        let e = resolve(&p, &allowed, &h).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(e.base.as_str(), "https://a.openai.azure.com/");
        assert_eq!(e.key.as_ref().map(|k| k.source()), Some("AZURE_KEY"));
        assert_eq!(e.api_version.as_deref(), Some(DEFAULT_AZURE_API_VERSION));
    }

    /// A v2 connection's `apiVersion` is an unknown key (P010): it is not read either.
    #[test]
    fn a_v2_connection_sets_no_api_version() {
        let h = host(&[("AZURE_OPENAI_API_KEY", "sk-azure"), ("OPENAI_API_VERSION", "2024-06-01")]);
        let front = "model:\n  id: m\n  provider: foundry\n  connection:\n    kind: key\n    apiVersion: 2020-01-01";
        let e = resolve(
            &prompt(front, &h),
            &Settings { base_url: Some("https://a.openai.azure.com".into()), ..Settings::default() },
            &h,
        );
        assert_eq!(e.map(|e| e.api_version), Ok(Some("2024-06-01".to_owned())));
    }

    #[test]
    fn anonymous_connections_send_no_key() {
        let h = host(&[("OPENAI_API_KEY", "sk-x")]);
        let p =
            prompt("model:\n  id: m\n  connection:\n    kind: anonymous\n    endpoint: https://api.openai.com/v1", &h);
        let e = resolve(&p, &Settings::default(), &h).map(|e| e.key);
        assert_eq!(e, Ok(None));
    }
}
