//! The HTTP request for a compiled body: URL and headers per provider.

use prompty_wire::Api;
use serde_json::Value;
use url::Url;

use crate::endpoint::{ApiKey, Endpoint, Wire};
use crate::error::Error;

/// The `anthropic-version` header sent with every Anthropic request.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A header value: plain, or a credential that is never shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderValue {
    /// Shown as is.
    Plain(String),
    /// A credential; `Debug` shows where it came from.
    Secret(ApiKey),
}

impl HeaderValue {
    /// The value to put on the wire.
    pub fn expose(&self) -> &str {
        match self {
            HeaderValue::Plain(s) => s,
            HeaderValue::Secret(k) => k.expose(),
        }
    }
}

/// One POST request, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// Where to.
    pub url: Url,
    /// The headers, lower-case names.
    pub headers: Vec<(&'static str, HeaderValue)>,
    /// The JSON body.
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// The URL as it may be shown (no query: it could hold a key some proxies take there).
    pub fn shown_url(&self) -> String {
        let mut u = self.url.clone();
        u.set_query(None);
        u.to_string()
    }
}

/// The URL path of an API below an OpenAI-style base URL.
fn openai_path(api: Api) -> Result<&'static str, Error> {
    match api {
        Api::Chat => Ok("chat/completions"),
        Api::Responses => Ok("responses"),
        Api::Embedding => Ok("embeddings"),
        Api::Image => Ok("images/generations"),
        _ => Err(Error::Unsupported(format!("the `{api}` API cannot be sent"))),
    }
}

/// `base` with `segments` appended to its path.
fn join(base: &Url, segments: &[&str]) -> Url {
    let mut url = base.clone();
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty();
        for s in segments {
            for part in s.split('/') {
                path.push(part);
            }
        }
    }
    url
}

/// The URL a request for `api` goes to. Azure: `/openai/deployments/{model}/...` with
/// `api-version`, unless the endpoint already ends in `/openai/v1` (the OpenAI-style
/// layout). Anthropic: `/v1/messages` below the host (a base ending in `/v1` is taken as
/// is).
pub fn url_for(endpoint: &Endpoint, api: Api, model: &str) -> Result<Url, Error> {
    let base = &endpoint.base;
    let path = base.path().trim_end_matches('/');
    Ok(match endpoint.wire {
        Wire::OpenAi => join(base, &[openai_path(api)?]),
        Wire::Azure if path.ends_with("/openai/v1") => join(base, &[openai_path(api)?]),
        Wire::Azure => {
            if model.is_empty() {
                return Err(Error::Unsupported(
                    "an Azure request needs a deployment: set `model.id` or --model".into(),
                ));
            }
            let mut url = match api {
                Api::Responses => join(base, &["openai", "responses"]),
                _ => {
                    let mut u = join(base, &["openai", "deployments"]);
                    if let Ok(mut p) = u.path_segments_mut() {
                        p.push(model);
                    }
                    join(&u, &[openai_path(api)?])
                }
            };
            let version = endpoint.api_version.as_deref().unwrap_or(crate::endpoint::DEFAULT_AZURE_API_VERSION);
            url.query_pairs_mut().append_pair("api-version", version);
            url
        }
        Wire::Anthropic => {
            if api != Api::Chat {
                return Err(Error::Unsupported(format!("anthropic has no `{api}` API")));
            }
            if path.ends_with("/v1") { join(base, &["messages"]) } else { join(base, &["v1", "messages"]) }
        }
    })
}

/// The request for a compiled `body`. `stream` asks for server-sent events.
pub fn build(endpoint: &Endpoint, api: Api, body: &Value, stream: bool) -> Result<HttpRequest, Error> {
    let model = body.get("model").and_then(Value::as_str).unwrap_or_default();
    let url = url_for(endpoint, api, model)?;
    let mut headers = vec![("content-type", HeaderValue::Plain("application/json".into()))];
    if stream {
        headers.push(("accept", HeaderValue::Plain("text/event-stream".into())));
    }
    match (endpoint.wire, &endpoint.key) {
        (Wire::OpenAi, Some(k)) => {
            headers.push((
                "authorization",
                HeaderValue::Secret(ApiKey::new(format!("Bearer {}", k.expose()), k.source())),
            ));
        }
        (Wire::Azure, Some(k)) => headers.push(("api-key", HeaderValue::Secret(k.clone()))),
        (Wire::Anthropic, Some(k)) => headers.push(("x-api-key", HeaderValue::Secret(k.clone()))),
        (_, None) => {}
    }
    if endpoint.wire == Wire::Anthropic {
        headers.push(("anthropic-version", HeaderValue::Plain(ANTHROPIC_VERSION.into())));
    }
    let body = if stream { streaming_body(endpoint.wire, body) } else { body.clone() };
    let body = serde_json::to_vec(&body).map_err(|e| Error::Unsupported(e.to_string()))?;
    Ok(HttpRequest { url, headers, body })
}

/// The body with `stream: true` (OpenAI chat: and the usage in the last event).
fn streaming_body(wire: Wire, body: &Value) -> Value {
    let mut body = body.clone();
    if let Value::Object(map) = &mut body {
        map.insert("stream".into(), Value::Bool(true));
        if wire != Wire::Anthropic && map.contains_key("messages") {
            map.insert("stream_options".into(), serde_json::json!({"include_usage": true}));
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::Source;
    use serde_json::json;

    fn endpoint(wire: Wire, base: &str, key: Option<&str>) -> Endpoint {
        Endpoint {
            wire,
            base: Url::parse(base).unwrap_or_else(|e| panic!("{e}")),
            source: Source::CommandLine,
            key: key.map(|k| ApiKey::new(k, wire.key_var())),
            missing_key: None,
            api_version: (wire == Wire::Azure).then(|| "2024-10-21".to_owned()),
        }
    }

    #[test]
    fn urls_and_headers_per_provider() {
        let body = json!({"model": "gpt 4o", "messages": []});
        let cases = [
            (Wire::OpenAi, "http://127.0.0.1:11434/v1", Api::Chat, "http://127.0.0.1:11434/v1/chat/completions"),
            (Wire::OpenAi, "http://h/v1/", Api::Embedding, "http://h/v1/embeddings"),
            (
                Wire::Azure,
                "https://r.openai.azure.com",
                Api::Chat,
                "https://r.openai.azure.com/openai/deployments/gpt%204o/chat/completions?api-version=2024-10-21",
            ),
            (
                Wire::Azure,
                "https://r.openai.azure.com/openai/v1",
                Api::Chat,
                "https://r.openai.azure.com/openai/v1/chat/completions",
            ),
            (Wire::Anthropic, "https://api.anthropic.com", Api::Chat, "https://api.anthropic.com/v1/messages"),
            (Wire::Anthropic, "http://127.0.0.1:9/v1", Api::Chat, "http://127.0.0.1:9/v1/messages"),
        ];
        for (wire, base, api, want) in cases {
            let r = build(&endpoint(wire, base, Some("sk-secret-0123456789")), api, &body, false);
            let r = r.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(r.url.as_str(), want);
            let names: Vec<&str> = r.headers.iter().map(|(n, _)| *n).collect();
            let want_names: &[&str] = match wire {
                Wire::OpenAi => &["content-type", "authorization"],
                Wire::Azure => &["content-type", "api-key"],
                Wire::Anthropic => &["content-type", "x-api-key", "anthropic-version"],
            };
            assert_eq!(names, want_names);
            assert!(!format!("{r:?}").contains("sk-secret"), "Debug shows no key");
            assert_eq!(serde_json::from_slice::<Value>(&r.body).ok(), Some(body.clone()));
        }
        let r = build(&endpoint(Wire::OpenAi, "http://h/v1", Some("k")), Api::Chat, &body, false);
        let auth = r.ok().and_then(|r| r.headers.into_iter().find(|(n, _)| *n == "authorization"));
        assert_eq!(auth.map(|(_, v)| v.expose().to_owned()).as_deref(), Some("Bearer k"));
    }

    #[test]
    fn no_key_no_credential_header() {
        let r = build(&endpoint(Wire::OpenAi, "http://h/v1", None), Api::Chat, &json!({"model": "m"}), false);
        assert_eq!(r.map(|r| r.headers.len()), Ok(1));
    }

    #[test]
    fn streaming_asks_for_events_and_usage() {
        let r = build(
            &endpoint(Wire::OpenAi, "http://h/v1", None),
            Api::Chat,
            &json!({"model": "m", "messages": []}),
            true,
        );
        let body = r.map(|r| serde_json::from_slice::<Value>(&r.body).ok());
        assert_eq!(
            body,
            Ok(Some(json!({"model": "m", "messages": [], "stream": true, "stream_options": {"include_usage": true}})))
        );
    }

    #[test]
    fn unsupported_targets() {
        let e = build(&endpoint(Wire::Anthropic, "http://h", None), Api::Embedding, &json!({}), false);
        assert_eq!(e.err().map(|e| e.to_string()).as_deref(), Some("anthropic has no `embedding` API"));
        let e = build(&endpoint(Wire::Azure, "http://h", None), Api::Chat, &json!({}), false);
        assert!(e.is_err());
    }
}
