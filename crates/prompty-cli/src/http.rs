//! Sending requests: one HTTP client (rustls with the ring provider, no redirects followed,
//! a timeout per request) and the retry loop around it. What to retry and how long to wait
//! is decided by `prompty_client::retry`; this module sleeps and counts.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prompty_client::retry::{self, Decision, RetryPolicy};
use prompty_client::{Endpoint, HttpRequest};
use serde_json::Value;

/// A future that resolves when the run is asked to stop: Ctrl-C (SIGINT) or, on Unix,
/// SIGTERM, which `timeout`, CI runners and `docker stop` send. Both handlers are installed
/// when this is called (inside the runtime), so a signal that arrives before the first poll
/// still stops the run the same way instead of killing the process.
pub(crate) fn stop_requested() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let interrupt = tokio::signal::ctrl_c();
    async move {
        #[cfg(unix)]
        if let Some(mut terminate) = terminate {
            tokio::select! {
                _ = interrupt => {}
                _ = terminate.recv() => {}
            }
            return;
        }
        let _ = interrupt.await;
    }
}

/// The largest response body read (a judge's answer is small; a runaway server is not).
pub(crate) const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// Requests sent and retried, over a whole run.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) sent: AtomicU64,
    pub(crate) retried: AtomicU64,
}

/// The client and the retry policy of a run.
#[derive(Clone)]
pub(crate) struct Transport {
    client: reqwest::Client,
    pub(crate) policy: RetryPolicy,
    pub(crate) counters: Arc<Counters>,
}

/// A request that failed for good: the message has no credential in it.
#[derive(Debug, Clone)]
pub(crate) struct SendError(pub(crate) String);

impl Transport {
    /// A client with a timeout per request (connecting, sending and reading the answer).
    pub(crate) fn new(timeout: Duration, policy: RetryPolicy) -> Result<Self, String> {
        // reqwest is built without a TLS crypto provider of its own: use ring's.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(30)))
            .user_agent(concat!("prompty/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        Ok(Transport { client, policy, counters: Arc::new(Counters::default()) })
    }

    fn request(&self, req: &HttpRequest) -> Result<reqwest::RequestBuilder, SendError> {
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in &req.headers {
            let mut v = reqwest::header::HeaderValue::from_str(value.expose())
                .map_err(|_| SendError(format!("the `{name}` header holds characters a header cannot carry")))?;
            if matches!(value, prompty_client::HeaderValue::Secret(_)) {
                v.set_sensitive(true);
            }
            headers.insert(*name, v);
        }
        Ok(self.client.post(req.url.clone()).headers(headers).body(req.body.clone()))
    }

    /// Sends `req` until it succeeds, retrying what `prompty_client::retry` retries; the
    /// answer's body as JSON.
    pub(crate) async fn send_json(&self, req: &HttpRequest, endpoint: &Endpoint) -> Result<Value, SendError> {
        let mut attempt = 0u32;
        loop {
            let (problem, retryable, after) = match self.attempt(req, endpoint).await {
                Ok(Reply::Body(mut v)) => {
                    // An endpoint that echoes the key gets it written nowhere: not in the
                    // cache, the results or the printed answer.
                    endpoint.redact_json(&mut v);
                    return Ok(v);
                }
                Ok(Reply::Status { status, retry_after, message }) => {
                    (format!("HTTP {status}: {message}"), retry::retryable_status(status), retry_after)
                }
                Ok(Reply::Malformed(problem)) => (problem, true, None),
                Err(problem) => (problem, true, None),
            };
            self.back_off(endpoint, &mut attempt, &problem, retryable, after).await?;
        }
    }

    /// Sends `req` once and reads the whole answer.
    async fn attempt(&self, req: &HttpRequest, endpoint: &Endpoint) -> Result<Reply, String> {
        let response = self.open(req, endpoint).await?;
        let status = response.status().as_u16();
        let retry_after = header_wait(&response);
        let redirect = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let bytes = read_body(response).await?;
        if (300..400).contains(&status) {
            let to = redirect.map(|l| format!(" to {l}")).unwrap_or_default();
            return Ok(Reply::Status {
                status,
                retry_after: None,
                message: format!(
                    "the endpoint redirects{to}; redirects are not followed (a key must not travel to another host): give the final URL with --base-url"
                ),
            });
        }
        if !(200..300).contains(&status) {
            return Ok(Reply::Status { status, retry_after, message: error_message(&bytes) });
        }
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(v) => Ok(Reply::Body(v)),
            Err(e) => Ok(Reply::Malformed(format!("the answer is not JSON ({e})"))),
        }
    }

    /// Sends `req` once; the response with its status, body unread. A failure names the
    /// URL as the endpoint shows it (an endpoint from the environment as `${env:NAME}`).
    async fn open(&self, req: &HttpRequest, endpoint: &Endpoint) -> Result<reqwest::Response, String> {
        self.counters.sent.fetch_add(1, Ordering::Relaxed);
        self.request(req)
            .map_err(|e| e.0)?
            .send()
            .await
            .map_err(|e| endpoint.hide_base(&describe(&e, &endpoint.shown_url(&req.url))))
    }

    /// Sends a streaming request, retrying failures before the answer starts; the open
    /// response.
    pub(crate) async fn open_stream(
        &self,
        req: &HttpRequest,
        endpoint: &Endpoint,
    ) -> Result<reqwest::Response, SendError> {
        let mut attempt = 0u32;
        loop {
            let (problem, retryable, after) = match self.open(req, endpoint).await {
                Ok(r) if r.status().is_success() => return Ok(r),
                Ok(r) => {
                    let status = r.status().as_u16();
                    let after = header_wait(&r);
                    let body = read_body(r).await.unwrap_or_default();
                    (format!("HTTP {status}: {}", error_message(&body)), retry::retryable_status(status), after)
                }
                Err(problem) => (problem, true, None),
            };
            self.back_off(endpoint, &mut attempt, &problem, retryable, after).await?;
        }
    }

    /// After failed attempt number `attempt`: waits and counts the retry when the policy
    /// retries, or ends with the reason it gives up (the problem shown without the key).
    async fn back_off(
        &self,
        endpoint: &Endpoint,
        attempt: &mut u32,
        problem: &str,
        retryable: bool,
        after: Option<Duration>,
    ) -> Result<(), SendError> {
        let problem = endpoint.hide_base(&endpoint.redact(problem));
        match retry::decide(&self.policy, *attempt, &problem, retryable, after, jitter()) {
            Decision::Retry(wait) => {
                self.counters.retried.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(wait).await;
                *attempt += 1;
                Ok(())
            }
            Decision::GiveUp(reason) => Err(SendError(reason)),
        }
    }
}

enum Reply {
    Body(Value),
    Status { status: u16, retry_after: Option<Duration>, message: String },
    Malformed(String),
}

/// The wait the answer's headers ask for.
fn header_wait(r: &reqwest::Response) -> Option<Duration> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    retry::retry_after(|name| r.headers().get(name).and_then(|v| v.to_str().ok()), now)
}

/// Reads a whole answer, up to [`MAX_RESPONSE_BYTES`].
pub(crate) async fn read_body(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e, "the answer"))? {
        if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(format!("the answer is larger than {MAX_RESPONSE_BYTES} bytes"));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// The provider's error message from an error answer, shortened.
fn error_message(bytes: &[u8]) -> String {
    let text = match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => {
            let e = v.get("error").unwrap_or(&v);
            e.get("message").and_then(Value::as_str).map_or_else(|| e.to_string(), str::to_owned)
        }
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    };
    let text = text.trim();
    match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None if text.is_empty() => "(no message)".to_owned(),
        None => text.to_owned(),
    }
}

/// A transport error in words, without the URL's query.
fn describe(e: &reqwest::Error, url: &str) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else if e.is_body() || e.is_decode() {
        "the answer broke off"
    } else {
        "the request failed"
    };
    let mut detail = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        detail = s.to_string();
        source = s.source();
    }
    if detail.is_empty() { format!("{url}: {kind}") } else { format!("{url}: {kind} ({detail})") }
}

/// A number in `[0, 1)` for jitter.
fn jitter() -> f64 {
    let mut b = [0u8; 8];
    if getrandom::fill(&mut b).is_err() {
        return 0.5;
    }
    (u64::from_le_bytes(b) >> 11) as f64 / (1u64 << 53) as f64
}
