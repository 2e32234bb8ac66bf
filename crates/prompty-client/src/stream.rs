//! Streamed replies: server-sent events, and the text deltas of OpenAI chat and Anthropic
//! Messages streams put back together into the response a non-streamed request gets (so
//! the same `process` step reads both).

use serde_json::{Map, Value, json};

use crate::endpoint::Wire;
use crate::error::Error;

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field, if any.
    pub name: Option<String>,
    /// The `data:` lines, joined by `\n`.
    pub data: String,
}

/// Splits a byte stream into events; feed it chunks as they arrive.
#[derive(Debug, Default)]
pub struct SseDecoder {
    buffer: Vec<u8>,
    name: Option<String>,
    data: Vec<String>,
}

/// The longest event line kept: a server that never ends a line cannot grow memory.
pub const MAX_EVENT_LINE: usize = 16 * 1024 * 1024;

impl SseDecoder {
    /// A decoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events completed by `chunk`.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<Event>, Error> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8(line).map_err(|_| Error::BadReply("a streamed event is not UTF-8".into()))?;
            if let Some(e) = self.line(&line) {
                events.push(e);
            }
        }
        if self.buffer.len() > MAX_EVENT_LINE {
            return Err(Error::BadReply(format!("a streamed event line is longer than {MAX_EVENT_LINE} bytes")));
        }
        Ok(events)
    }

    /// The last event, when the stream ended without a blank line.
    pub fn finish(&mut self) -> Option<Event> {
        let rest = String::from_utf8(std::mem::take(&mut self.buffer)).ok()?;
        let mut out = None;
        if !rest.is_empty() {
            out = self.line(&rest);
        }
        out.or_else(|| self.line(""))
    }

    fn line(&mut self, line: &str) -> Option<Event> {
        if line.is_empty() {
            if self.data.is_empty() && self.name.is_none() {
                return None;
            }
            let data = std::mem::take(&mut self.data).join("\n");
            return Some(Event { name: self.name.take(), data });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => self.data.push(value.to_owned()),
            "event" => self.name = Some(value.to_owned()),
            _ => {}
        }
        None
    }
}

/// Puts a streamed reply back together.
#[derive(Debug)]
pub struct Assembler {
    wire: Wire,
    text: String,
    refusal: Option<String>,
    finish: Option<String>,
    usage: Option<Value>,
    id: Option<String>,
    model: Option<String>,
    input_tokens: Option<u64>,
    done: bool,
}

impl Assembler {
    /// An assembler for a stream of `wire`.
    pub fn new(wire: Wire) -> Self {
        Assembler {
            wire,
            text: String::new(),
            refusal: None,
            finish: None,
            usage: None,
            id: None,
            model: None,
            input_tokens: None,
            done: false,
        }
    }

    /// Whether the stream said it is complete.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Takes one event; returns the text it adds, if any. An error event is an error.
    pub fn push(&mut self, event: &Event) -> Result<Option<String>, Error> {
        if self.wire != Wire::Anthropic && event.data == "[DONE]" {
            self.done = true;
            return Ok(None);
        }
        if event.data.is_empty() {
            return Ok(None);
        }
        let v: Value = serde_json::from_str(&event.data)
            .map_err(|e| Error::BadReply(format!("a streamed event is not JSON: {e}")))?;
        if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
            let message = err.get("message").and_then(Value::as_str).map_or_else(|| err.to_string(), str::to_owned);
            return Err(Error::BadReply(format!("the stream ended with an error: {message}")));
        }
        let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        if self.wire == Wire::Anthropic {
            return Ok(match v.get("type").and_then(Value::as_str).unwrap_or_default() {
                "message_start" => {
                    let m = v.get("message");
                    self.id = s(m.and_then(|m| m.get("id")));
                    self.model = s(m.and_then(|m| m.get("model")));
                    self.input_tokens =
                        m.and_then(|m| m.get("usage")).and_then(|u| u.get("input_tokens")).and_then(Value::as_u64);
                    None
                }
                "content_block_delta" => {
                    s(v.get("delta").and_then(|d| d.get("text"))).inspect(|t| self.text.push_str(t))
                }
                "message_delta" => {
                    if let Some(r) = s(v.get("delta").and_then(|d| d.get("stop_reason"))) {
                        self.finish = Some(r);
                    }
                    if let Some(out) = v.get("usage").and_then(|u| u.get("output_tokens")).and_then(Value::as_u64) {
                        self.usage =
                            Some(json!({"input_tokens": self.input_tokens.unwrap_or(0), "output_tokens": out}));
                    }
                    None
                }
                "message_stop" => {
                    self.done = true;
                    None
                }
                _ => None,
            });
        }
        if self.id.is_none() {
            self.id = s(v.get("id"));
        }
        if self.model.is_none() {
            self.model = s(v.get("model"));
        }
        if let Some(u) = v.get("usage").filter(|u| !u.is_null()) {
            self.usage = Some(u.clone());
        }
        let Some(choice) = v.get("choices").and_then(Value::as_array).and_then(|c| c.first()) else {
            return Ok(None);
        };
        if let Some(r) = s(choice.get("finish_reason")) {
            self.finish = Some(r);
        }
        let delta = choice.get("delta");
        if let Some(r) = s(delta.and_then(|d| d.get("refusal"))) {
            self.refusal.get_or_insert_with(String::new).push_str(&r);
        }
        Ok(s(delta.and_then(|d| d.get("content"))).filter(|t| !t.is_empty()).inspect(|t| self.text.push_str(t)))
    }

    /// The response a non-streamed request would have got.
    pub fn response(self) -> Value {
        let mut m = Map::new();
        if let Some(id) = self.id {
            m.insert("id".into(), Value::String(id));
        }
        if let Some(model) = self.model {
            m.insert("model".into(), Value::String(model));
        }
        if self.wire == Wire::Anthropic {
            m.insert("type".into(), json!("message"));
            m.insert("role".into(), json!("assistant"));
            m.insert("content".into(), json!([{"type": "text", "text": self.text}]));
            m.insert("stop_reason".into(), self.finish.map_or(Value::Null, Value::String));
        } else {
            let mut message = json!({"role": "assistant", "content": self.text});
            if let (Some(r), Value::Object(msg)) = (self.refusal, &mut message) {
                msg.insert("refusal".into(), Value::String(r));
            }
            m.insert("object".into(), json!("chat.completion"));
            m.insert("choices".into(), json!([{"index": 0, "message": message, "finish_reason": self.finish}]));
        }
        if let Some(u) = self.usage {
            m.insert("usage".into(), u);
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(wire: Wire, stream: &str, chunk: usize) -> Result<(Vec<String>, Value), Error> {
        let mut d = SseDecoder::new();
        let mut a = Assembler::new(wire);
        let mut deltas = Vec::new();
        for part in stream.as_bytes().chunks(chunk) {
            for e in d.feed(part)? {
                deltas.extend(a.push(&e)?);
            }
        }
        if let Some(e) = d.finish() {
            deltas.extend(a.push(&e)?);
        }
        Ok((deltas, a.response()))
    }

    const OPENAI: &str = concat!(
        ": keep-alive\n\n",
        "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
        "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\r\n\r\n",
        "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo ✓\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}\n\n",
        "data: [DONE]\n\n",
    );

    #[test]
    fn openai_stream_in_any_chunking() {
        for chunk in [1, 2, 7, 1000] {
            let (deltas, response) = run(Wire::OpenAi, OPENAI, chunk).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(deltas, ["Hel", "lo ✓"]);
            assert_eq!(
                response,
                json!({"id": "c1", "model": "m", "object": "chat.completion",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello ✓"}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}})
            );
        }
    }

    #[test]
    fn anthropic_stream() {
        let stream = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg\",\"model\":\"claude\",\"usage\":{\"input_tokens\":9}}}\n\n",
            "event: ping\ndata: {\"type\":\"ping\"}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}"
        );
        let (deltas, response) = run(Wire::Anthropic, stream, 5).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(deltas, ["Hi"]);
        assert_eq!(
            response,
            json!({"id": "msg", "model": "claude", "type": "message", "role": "assistant",
                   "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn",
                   "usage": {"input_tokens": 9, "output_tokens": 1}})
        );
    }

    #[test]
    fn errors_in_streams() {
        let e = run(
            Wire::Anthropic,
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"overloaded\"}}\n\n",
            3,
        );
        assert_eq!(e.err().map(|e| e.to_string()).as_deref(), Some("the stream ended with an error: overloaded"));
        let e = run(Wire::OpenAi, "data: {not json\n\n", 100);
        assert!(e.is_err());
        let mut d = SseDecoder::new();
        assert!(d.feed(&vec![b'x'; MAX_EVENT_LINE + 1]).is_err());
    }
}
