//! The response cache's keys and entries. The caller stores entries as files.
//!
//! A key is the SHA-256 of the request's URL (scheme, host, port, path and query) and its
//! exact body bytes: the same request to the same server is answered from the cache, and
//! anything else is sent. An entry holds the request body and the response body, nothing
//! else: never a header, so never a key. Reading an entry checks that its request equals
//! the one being made, so a damaged or foreign file is a miss, not a wrong answer.

use serde_json::Value;
use sha2::{Digest, Sha256};
use url::Url;

/// The cache key of a request: 64 lowercase hex digits.
pub fn key(url: &Url, body: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(b"prompty-cache-1\0");
    h.update(url.as_str().as_bytes());
    h.update(b"\0");
    h.update(body);
    hex(&h.finalize())
}

/// The first 12 hex digits of the SHA-256 of `bytes`.
pub fn short_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    hex(digest.get(..6).unwrap_or_default())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The relative file path of an entry: `ab/abcdef....json`.
pub fn entry_path(key: &str) -> String {
    format!("{}/{key}.json", key.get(..2).unwrap_or("00"))
}

/// An entry's text: `{"request": <body>, "response": <response>}`.
pub fn entry(request_body: &[u8], response: &Value) -> String {
    let request: Value = serde_json::from_slice(request_body).unwrap_or(Value::Null);
    serde_json::json!({"request": request, "response": response}).to_string()
}

/// The response of an entry whose request is exactly `request_body`; `None` for anything
/// else (not JSON, another request, no response).
pub fn read(text: &str, request_body: &[u8]) -> Option<Value> {
    let mut v: Value = serde_json::from_str(text).ok()?;
    let wanted: Value = serde_json::from_slice(request_body).ok()?;
    if v.get("request") != Some(&wanted) {
        return None;
    }
    match v.get_mut("response").map(Value::take) {
        Some(Value::Null) | None => None,
        Some(r) => Some(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_follow_url_and_exact_body() {
        let u = Url::parse("http://127.0.0.1:1/v1/chat/completions").unwrap_or_else(|e| panic!("{e}"));
        let v = Url::parse("http://127.0.0.1:2/v1/chat/completions").unwrap_or_else(|e| panic!("{e}"));
        let k = key(&u, b"{\"a\":1}");
        assert_eq!(k.len(), 64);
        assert_eq!(k, key(&u, b"{\"a\":1}"));
        assert_ne!(k, key(&u, b"{\"a\": 1}"));
        assert_ne!(k, key(&v, b"{\"a\":1}"));
        assert!(entry_path(&k).starts_with(&k[..2]));
    }

    #[test]
    fn entries_round_trip_and_check_the_request() {
        let body = br#"{"model":"m","messages":[]}"#;
        let text = entry(body, &json!({"choices": []}));
        assert_eq!(read(&text, body), Some(json!({"choices": []})));
        assert_eq!(read(&text, br#"{"model":"other","messages":[]}"#), None);
        assert_eq!(read("not json", body), None);
        assert_eq!(read(r#"{"request": {"model":"m","messages":[]}}"#, body), None);
    }
}
