//! The response cache's keys and entries. The caller stores entries as files.
//!
//! A key is the SHA-256 of the request's URL (scheme, host, port, path and query) and its
//! exact body bytes: the same request to the same server is answered from the cache, and
//! anything else is sent. An entry holds the request body and the response body, nothing
//! else: never a header, so never a key. Anyone can compute a key, so an entry is checked
//! against what it claims: its request must equal the one being made, or it is refused
//! ([`Refused::OtherRequest`]).
//!
//! With an integrity key (kept outside the cache folder, e.g. in an environment variable
//! of the CI job), every entry written also holds `mac`, an HMAC-SHA256 under that key of
//! the cache key, the request and the response; an entry whose `mac` is missing or wrong is
//! refused ([`Refused::BadMac`]). Whoever can write the cache folder but does not know the
//! integrity key cannot make an answer count.

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

/// HMAC-SHA256 (RFC 2104) of the concatenation of `parts` under `secret`.
fn hmac_sha256(secret: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if secret.len() > block.len() {
        let digest = Sha256::digest(secret);
        for (b, d) in block.iter_mut().zip(digest.iter()) {
            *b = *d;
        }
    } else {
        for (b, s) in block.iter_mut().zip(secret) {
            *b = *s;
        }
    }
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    for p in parts {
        inner.update(p);
    }
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// The `mac` of an entry: over the cache key, the request and the response as JSON text.
fn mac(secret: &[u8], key: &str, request: &Value, response: &Value) -> String {
    let request = request.to_string();
    let response = response.to_string();
    hex(&hmac_sha256(
        secret,
        &[b"prompty-cache-mac-1\0", key.as_bytes(), b"\0", request.as_bytes(), b"\0", response.as_bytes()],
    ))
}

/// Whether two hex strings are equal, in time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An entry's text: `{"request": <body>, "response": <response>}`, and `"mac"` when an
/// integrity key is given.
pub fn entry(key: &str, request_body: &[u8], response: &Value, secret: Option<&[u8]>) -> String {
    let request: Value = serde_json::from_slice(request_body).unwrap_or(Value::Null);
    let mut v = serde_json::json!({"request": request, "response": response});
    if let (Some(secret), Value::Object(o)) = (secret, &mut v) {
        o.insert("mac".into(), Value::String(mac(secret, key, &request, response)));
    }
    v.to_string()
}

/// Why an entry was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Not JSON, or no response in it.
    NotAnEntry,
    /// It holds another request than the one being made (a damaged, foreign or forged file).
    OtherRequest,
    /// An integrity key is set and the entry's `mac` is missing or does not match.
    BadMac,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refused::NotAnEntry => "not a cache entry",
            Refused::OtherRequest => "the entry holds another request than the one being sent",
            Refused::BadMac => "the entry's mac does not match the integrity key (written elsewhere, or altered)",
        })
    }
}

/// The response of the entry `text` stored under `key`, when its request is exactly
/// `request_body` (and, with an integrity key, its `mac` is right).
pub fn read(text: &str, key: &str, request_body: &[u8], secret: Option<&[u8]>) -> Result<Value, Refused> {
    let mut v: Value = serde_json::from_str(text).map_err(|_| Refused::NotAnEntry)?;
    let wanted: Value = serde_json::from_slice(request_body).map_err(|_| Refused::NotAnEntry)?;
    let response = match v.get_mut("response").map(Value::take) {
        Some(Value::Null) | None => return Err(Refused::NotAnEntry),
        Some(r) => r,
    };
    if v.get("request") != Some(&wanted) {
        return Err(Refused::OtherRequest);
    }
    if let Some(secret) = secret {
        let stored = v.get("mac").and_then(Value::as_str).unwrap_or_default();
        if !same(stored, &mac(secret, key, &wanted, &response)) {
            return Err(Refused::BadMac);
        }
    }
    Ok(response)
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
        let text = entry("k", body, &json!({"choices": []}), None);
        assert_eq!(read(&text, "k", body, None), Ok(json!({"choices": []})));
        assert_eq!(read(&text, "k", br#"{"model":"other","messages":[]}"#, None), Err(Refused::OtherRequest));
        assert_eq!(read("not json", "k", body, None), Err(Refused::NotAnEntry));
        assert_eq!(read(r#"{"request": {"model":"m","messages":[]}}"#, "k", body, None), Err(Refused::NotAnEntry));
    }

    /// RFC 4231 test case 2, and entries under an integrity key.
    #[test]
    fn macs_bind_entries_to_the_integrity_key() {
        let tag = hex(&hmac_sha256(b"Jefe", &[b"what do ya want ", b"for nothing?"]));
        assert_eq!(tag, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
        let long = hex(&hmac_sha256(&[0xaa; 131], &[b"Test Using Larger Than Block-Size Key - Hash Key First"]));
        assert_eq!(long, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
        let body = br#"{"model":"m"}"#;
        let answer = json!({"choices": [{"message": {"content": "5"}}]});
        let text = entry("k1", body, &answer, Some(b"secret"));
        assert_eq!(read(&text, "k1", body, Some(b"secret")), Ok(answer.clone()));
        assert_eq!(read(&text, "k1", body, Some(b"other")), Err(Refused::BadMac));
        assert_eq!(read(&text, "k2", body, Some(b"secret")), Err(Refused::BadMac), "moved to another key");
        let forged = entry("k1", body, &json!({"choices": [{"message": {"content": "1"}}]}), None);
        assert_eq!(read(&forged, "k1", body, Some(b"secret")), Err(Refused::BadMac));
        let mut v: Value = serde_json::from_str(&text).unwrap_or_default();
        v["response"]["choices"][0]["message"]["content"] = json!("1");
        assert_eq!(read(&v.to_string(), "k1", body, Some(b"secret")), Err(Refused::BadMac));
    }
}
