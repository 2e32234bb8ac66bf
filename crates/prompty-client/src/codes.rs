//! The client's diagnostic codes: `PC0xx` for each [`Error`](crate::Error) (no request can
//! be made as the prompt and the settings say), `PC1xx` for a request that was made and
//! failed. Codes are stable: never renumber, only add.

prompty_syntax::define_codes! {
    BAD_URL = "PC001", "bad-endpoint-url", Error, "An endpoint URL does not parse or is not http(s).";
    UNTRUSTED_ENDPOINT = "PC002", "untrusted-endpoint", Error, "The prompt names an endpoint nothing the user controls trusts; no request was made.";
    BAD_TRUSTED_ENDPOINT = "PC003", "bad-trusted-endpoint", Error, "An entry of `PROMPTY_TRUSTED_ENDPOINTS` is not an http(s) URL.";
    NO_ENDPOINT = "PC004", "no-endpoint", Error, "There is no endpoint for a provider without a public one.";
    UNSET_VARIABLE = "PC005", "unset-connection-variable", Error, "A connection setting the request needs comes from an environment variable that is not set.";
    UNSUPPORTED = "PC006", "unsupported-request", Error, "The provider or API cannot be sent by this client.";
    BAD_REPLY = "PC007", "bad-reply-line", Error, "A batch result line or a streamed event is not what the provider writes.";
    KEY_VARIABLE_NOT_ALLOWED = "PC008", "key-variable-not-allowed", Error, "The prompt takes its API key from a variable other than the provider's own, and the user has not allowed it.";
    REQUEST_FAILED = "PC101", "request-failed", Error, "The request was sent and failed: no connection, an HTTP error after the retries, an answer that is not JSON, a stream that broke off, or an interrupt.";
}
