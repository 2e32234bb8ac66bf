//! The protocol side of running prompts against real endpoints, with no I/O: the caller
//! sends the requests, sleeps, reads the environment and writes the files.
//!
//! * [`endpoint`]: where requests go (`--base-url`, the provider's environment variable,
//!   the prompt's connection, the public API), with which key, and the trust policy: an
//!   endpoint written in a prompt file is refused unless the user named it.
//! * [`request`]: the URL and headers per provider (OpenAI `Authorization: Bearer`, Azure
//!   `api-key`, Anthropic `x-api-key` and `anthropic-version`) for a body compiled by
//!   `prompty_wire::compile`.
//! * [`retry`]: which answers are retried and how long to wait (jittered exponential
//!   backoff, `Retry-After`).
//! * [`cache`]: cache keys (URL and exact body) and entries (request and response only).
//! * [`batch`]: OpenAI Batch and Anthropic Message Batches input lines and result lines.
//! * [`stream`]: server-sent events and streamed replies put back together.
//!
//! Credentials are [`ApiKey`] values: `Debug` and `Display` show where a key came from,
//! never the key.
//!
//! ```
//! use prompty_client::retry::retryable_status;
//! use prompty_client::stream::SseDecoder;
//!
//! // A streamed reply arrives in chunks that need not end at event boundaries.
//! let mut sse = SseDecoder::new();
//! let mut events = sse.feed(b"data: {\"a\"")?;
//! events.extend(sse.feed(b": 1}\n\nevent: done\ndata: [DONE]\n\n")?);
//! assert_eq!(events.len(), 2);
//! assert_eq!(events[0].data, r#"{"a": 1}"#);
//! assert_eq!(events[1].name.as_deref(), Some("done"));
//! // Rate limits and server errors are retried, client errors are not.
//! assert!(retryable_status(429) && retryable_status(503) && !retryable_status(400));
//! # Ok::<(), prompty_client::Error>(())
//! ```

#![warn(missing_docs)]

pub mod batch;
pub mod cache;
pub mod codes;
pub mod endpoint;
mod error;
pub mod request;
pub mod retry;
pub mod stream;

pub use endpoint::{ApiKey, Endpoint, Settings, Source, StreamRedactor, TRUSTED_ENDPOINTS_VAR, Wire, resolve};
pub use error::Error;
pub use request::{HeaderValue, HttpRequest, build};
pub use retry::{Decision, RetryPolicy};
