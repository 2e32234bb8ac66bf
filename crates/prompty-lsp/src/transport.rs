//! The byte transport: `Content-Length` framed JSON-RPC over any reader and writer (the CLI
//! passes standard input and output), feeding an [`lsp_server::Connection`].
//!
//! `lsp_server`'s own stdio transport allocates whatever `Content-Length` says and ends the
//! session on the first frame it cannot read. This one never ends the session for a bad
//! message and never holds more than [`MAX_MESSAGE_BYTES`] of one:
//!
//! - A body that is not JSON (invalid UTF-8, a syntax error, an unpaired surrogate such as
//!   `"\ud800"`, nesting deeper than 128 levels) is answered with a `ParseError` (-32700).
//! - JSON that is not a JSON-RPC message (a batch, a number, a `method` that is not a string,
//!   an `id` that is neither a string nor a 32-bit integer, no `method` and no result) is
//!   answered with an `InvalidRequest` (-32600).
//! - A `Content-Length` over [`MAX_MESSAGE_BYTES`] is answered with an `InvalidRequest`; its body
//!   is read and dropped a buffer at a time, never stored.
//!
//! Each answer carries the message's `id` when one can be found in it, else `null`. When the
//! refused message was a `textDocument/didOpen` or `didChange`, the server is told (see
//! [`UNREADABLE_TEXT`]) so that it stops answering from a copy of the document that no longer
//! matches the editor's.
//!
//! A header block without a readable `Content-Length` (not a number, missing, a line that is
//! not a header, a header line over 8 KiB) is skipped up to the next line
//! `Content-Length: <digits>`; a header announcing more bytes than arrive before the next such
//! line is skipped there too (no valid JSON body contains that line: JSON strings hold no raw
//! line breaks). Each skip is reported through the `notes` callback, as is an input that ends
//! inside a message, which ends the session as a closed input does.

use std::io::{self, BufRead, Read, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{Connection, ErrorCode, Message, Notification};
use serde_json::{Value, json};

use crate::Error;

/// The largest message body read: 64 MiB, four times the largest prompt file the loader
/// accepts ([`prompty_syntax::MAX_FILE_BYTES`]), so that a `didOpen` of any loadable file fits
/// even when its client escapes every character to two bytes, or non-ASCII text to
/// `\uXXXX`.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The longest header line read (longer lines are skipped as garbage).
const MAX_HEADER_LINE: usize = 8 * 1024;

/// How much of a message over the limit is kept, to find the document it was about.
const HEAD_BYTES: u64 = 4096;

/// Whether `b` may be part of a header name (an HTTP token character).
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The most header lines one message may have.
const MAX_HEADERS: usize = 32;

/// The notification the transport passes to the server when it refused a `didOpen` or
/// `didChange` whose text could not be read: `{"method": ..., "uri": ..., "reason": ...}`. The server marks
/// the document out of date until a full text arrives (a `didOpen` or a change without a
/// range).
pub const UNREADABLE_TEXT: &str = "$/prompty/unreadableText";

/// The threads of a transport made by [`connect`].
pub struct Transport {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

impl Transport {
    /// Waits for both threads: the reader ends after `exit`, at the end of the input or when
    /// the server is gone; the writer once the server and the reader are gone. The error is
    /// the first failure to read or write.
    pub fn join(self) -> io::Result<()> {
        let read = self.reader.join().unwrap_or_else(|_| Err(io::Error::other("the reader thread panicked")));
        let write = self.writer.join().unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
        read.and(write)
    }
}

/// A connection over `input` and `output`, for [`run`](crate::run). `notes` receives one line
/// per skipped frame or refused message (the CLI prints them on standard error).
pub fn connect<R, W, N>(input: R, output: W, notes: N) -> Result<(Connection, Transport), Error>
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
    N: Fn(&str) + Send + 'static,
{
    connect_with_limit(input, output, notes, MAX_MESSAGE_BYTES)
}

/// [`connect`] with another message size limit (for tests).
#[doc(hidden)]
pub fn connect_with_limit<R, W, N>(
    input: R,
    output: W,
    notes: N,
    limit: usize,
) -> Result<(Connection, Transport), Error>
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
    N: Fn(&str) + Send + 'static,
{
    let (to_server, from_client) = crossbeam_channel::bounded::<Message>(0);
    let (to_client, from_server) = crossbeam_channel::bounded::<Message>(0);
    let (answers, answers_rx) = crossbeam_channel::bounded::<Value>(16);
    let writer = std::thread::Builder::new()
        .name("prompty-lsp-writer".to_owned())
        .spawn(move || write_loop(output, &from_server, &answers_rx))
        .map_err(|e| Error(format!("cannot start the writer thread: {e}")))?;
    let reader = std::thread::Builder::new()
        .name("prompty-lsp-reader".to_owned())
        .spawn(move || read_loop(Frames::new(input, limit), &to_server, &answers, &notes))
        .map_err(|e| Error(format!("cannot start the reader thread: {e}")))?;
    Ok((Connection { sender: to_client, receiver: from_client }, Transport { reader, writer }))
}

fn read_loop(
    mut frames: Frames<impl BufRead>,
    server: &Sender<Message>,
    answers: &Sender<Value>,
    notes: &dyn Fn(&str),
) -> io::Result<()> {
    loop {
        match frames.next()? {
            Frame::Body(body) => match decode(&body) {
                Ok(message) => {
                    let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                    if server.send(message).is_err() || exit {
                        return Ok(());
                    }
                }
                Err(refusal) => {
                    notes(&format!("answered {}: {}", refusal.what(), refusal.message));
                    let _ = answers.send(refusal.answer());
                    if let Some((method, uri)) = refusal.document {
                        let params = json!({"method": method, "uri": uri, "reason": refusal.message});
                        if server.send(Notification::new(UNREADABLE_TEXT.to_owned(), params).into()).is_err() {
                            return Ok(());
                        }
                    }
                }
            },
            Frame::TooLarge { declared } => {
                let message = format!(
                    "the message is {declared} bytes long; the server reads messages of up to {MAX} bytes (64 MiB)",
                    MAX = frames.limit
                );
                notes(&format!("answered a message that is too large: {message}"));
                let _ = answers.send(error_answer(&Value::Null, ErrorCode::InvalidRequest, &message));
                let head = frames.skip_oversized()?;
                if let Some((method, uri)) = document_in_head(&head) {
                    let params = json!({"method": method, "uri": uri, "reason": message});
                    if server.send(Notification::new(UNREADABLE_TEXT.to_owned(), params).into()).is_err() {
                        return Ok(());
                    }
                }
            }
            Frame::Skipped(reason) => notes(&reason),
            Frame::Truncated(reason) => {
                notes(&reason);
                return Ok(());
            }
            Frame::End => return Ok(()),
        }
    }
}

fn write_loop(mut output: impl Write, messages: &Receiver<Message>, answers: &Receiver<Value>) -> io::Result<()> {
    let (mut messages_open, mut answers_open) = (true, true);
    while messages_open || answers_open {
        let (no_messages, no_answers) = (crossbeam_channel::never(), crossbeam_channel::never());
        let value = select! {
            recv(if messages_open { messages } else { &no_messages }) -> m => match m {
                Ok(m) => {
                    m.write(&mut output)?;
                    continue;
                }
                Err(_) => { messages_open = false; continue; }
            },
            recv(if answers_open { answers } else { &no_answers }) -> v => match v {
                Ok(v) => v,
                Err(_) => { answers_open = false; continue; }
            },
        };
        let text = value.to_string();
        write!(output, "Content-Length: {}\r\n\r\n{text}", text.len())?;
        output.flush()?;
    }
    Ok(())
}

fn error_answer(id: &Value, code: ErrorCode, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code as i32, "message": format!("prompty: {message}")}})
}

/// A message the transport answers itself.
struct Refusal {
    code: ErrorCode,
    /// The message's `id` when one could be found, else `null`.
    id: Value,
    message: String,
    /// The method and document of a refused `didOpen`/`didChange`.
    document: Option<(String, String)>,
}

impl Refusal {
    fn what(&self) -> &'static str {
        match self.code {
            ErrorCode::ParseError => "a message that is not JSON",
            _ => "a message that is not a JSON-RPC request or notification",
        }
    }

    fn answer(&self) -> Value {
        error_answer(&self.id, self.code, &self.message)
    }
}

/// A JSON-RPC id lsp-server can carry: a string or a 32-bit integer.
fn valid_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some_and(|n| i32::try_from(n).is_ok())
}

/// The id to answer with: the message's own when it is a number or a string, else `null`.
fn answer_id(message: &Value) -> Value {
    match message.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// The method and document of a refused `didOpen`/`didChange`.
fn document_of(message: &Value) -> Option<(String, String)> {
    let method = message.get("method")?.as_str()?;
    if method != "textDocument/didOpen" && method != "textDocument/didChange" {
        return None;
    }
    Some((method.to_owned(), message.pointer("/params/textDocument/uri")?.as_str()?.to_owned()))
}

/// The document of a `didOpen`/`didChange` from the start of its body (the first `"uri"`
/// string after the method; clients write `textDocument` before the text).
fn document_in_head(head: &[u8]) -> Option<(String, String)> {
    let text = String::from_utf8_lossy(head);
    let method =
        ["textDocument/didChange", "textDocument/didOpen"].into_iter().find(|m| text.contains(&format!("\"{m}\"")))?;
    let at = text.find("\"uri\"")? + 5;
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let uri = serde_json::Deserializer::from_str(rest).into_iter::<String>().next()?.ok()?;
    Some((method.to_owned(), uri))
}

/// Reads a body as one JSON-RPC message.
fn decode(body: &[u8]) -> Result<Message, Box<Refusal>> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            // Read it once more with unpaired surrogates and bad bytes replaced, only to find
            // whom to answer and which document was lost; nothing of it is acted on.
            let lenient = lenient(body);
            let message = match std::str::from_utf8(body) {
                Err(u) => format!("the message is not UTF-8 text (byte {})", u.valid_up_to()),
                Ok(_) => format!("the message is not valid JSON: {e}"),
            };
            return Err(Box::new(Refusal {
                code: ErrorCode::ParseError,
                id: lenient.as_ref().map_or(Value::Null, answer_id),
                message,
                document: lenient.as_ref().and_then(document_of),
            }));
        }
    };
    let invalid = |message: &str| {
        Box::new(Refusal {
            code: ErrorCode::InvalidRequest,
            id: answer_id(&value),
            message: message.to_owned(),
            document: document_of(&value),
        })
    };
    let Some(object) = value.as_object() else {
        return Err(invalid(if value.is_array() {
            "a batch (a JSON array) is not a Language Server Protocol message; send each message on its own"
        } else {
            "a message must be a JSON object"
        }));
    };
    if let Some(version) = object.get("jsonrpc")
        && version != "2.0"
    {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    if let Some(id) = object.get("id")
        && !valid_id(id)
    {
        return Err(invalid("`id` must be a string or an integer from -2147483648 to 2147483647"));
    }
    match object.get("method") {
        Some(Value::String(_)) => {}
        Some(_) => return Err(invalid("`method` must be a string")),
        None if object.contains_key("id") && (object.contains_key("result") || object.contains_key("error")) => {}
        None => return Err(invalid("a message needs a `method` (a request or notification) or a `result`")),
    }
    serde_json::from_value(value.clone()).map_err(|e| invalid(&format!("not a JSON-RPC message: {e}")))
}

/// `body` parsed with invalid UTF-8 and `\uD800`-`\uDFFF` escapes replaced by U+FFFD.
fn lenient(body: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(body);
    let mut out = String::with_capacity(text.len());
    let mut rest: &str = &text;
    while let Some(at) = rest.find("\\u") {
        out.push_str(&rest[..at]);
        let hex = rest.get(at + 2..at + 6).and_then(|h| u16::from_str_radix(h, 16).ok());
        match hex {
            Some(0xD800..=0xDFFF) => {
                out.push_str("\\ufffd");
                rest = &rest[at + 6..];
            }
            _ => {
                out.push_str("\\u");
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    serde_json::from_str(&out).ok()
}

/// What one read of the input gives.
enum Frame {
    Body(Vec<u8>),
    /// A `Content-Length` over the limit (its body is read past by `skip_oversized`).
    TooLarge {
        declared: u64,
    },
    /// Bytes were skipped between messages, for this reason.
    Skipped(String),
    /// The input ended inside a message.
    Truncated(String),
    /// The input ended between messages.
    End,
}

/// Finds `Content-Length: <digits>` followed by a line break (ASCII case ignored, spaces and
/// tabs allowed around the colon and after the digits), a byte at a time.
#[derive(Default)]
struct HeaderScan {
    /// How far into `content-length`, or past it.
    state: ScanState,
    value: u64,
}

#[derive(Default, Clone, Copy, PartialEq)]
enum ScanState {
    #[default]
    Name0,
    Name(usize),
    BeforeColon,
    AfterColon,
    Digits,
    AfterDigits,
    CarriageReturn,
}

const NAME: &[u8] = b"content-length";

impl HeaderScan {
    /// Feeds one byte; the announced length once a whole header line has been seen.
    fn feed(&mut self, b: u8) -> Option<u64> {
        use ScanState::*;
        let lower = b.to_ascii_lowercase();
        self.state = match (self.state, lower) {
            (Name0, _) if lower == NAME[0] => Name(1),
            (Name(i), _) if lower == NAME[i] => {
                if i + 1 == NAME.len() {
                    BeforeColon
                } else {
                    Name(i + 1)
                }
            }
            (BeforeColon, b' ' | b'\t') => BeforeColon,
            (BeforeColon, b':') => AfterColon,
            (AfterColon, b' ' | b'\t') => AfterColon,
            (AfterColon | Digits, b'0'..=b'9') => {
                if self.state == AfterColon {
                    self.value = 0;
                }
                self.value = self.value.saturating_mul(10).saturating_add(u64::from(b - b'0'));
                Digits
            }
            (Digits | AfterDigits, b' ' | b'\t') => AfterDigits,
            (Digits | AfterDigits, b'\r') => CarriageReturn,
            (Digits | AfterDigits | CarriageReturn, b'\n') => {
                self.state = Name0;
                return Some(self.value);
            }
            _ if lower == NAME[0] => Name(1),
            _ => Name0,
        };
        None
    }
}

/// Reads frames off `input`.
struct Frames<R> {
    input: R,
    limit: usize,
    /// A `Content-Length` found by a skip: the rest of its header block comes next.
    found: Option<u64>,
    /// The input ended during a skip.
    ended: bool,
    /// The length of a body over the limit still to be read past.
    oversized: Option<u64>,
}

impl<R: BufRead> Frames<R> {
    fn new(input: R, limit: usize) -> Self {
        Self { input, limit, found: None, ended: false, oversized: None }
    }

    fn next(&mut self) -> io::Result<Frame> {
        self.skip_oversized()?;
        if self.ended {
            return Ok(Frame::End);
        }
        let mut length = self.found.take();
        let mut lines = 0;
        loop {
            let mut line = Vec::new();
            let n = (&mut self.input).take(MAX_HEADER_LINE as u64).read_until(b'\n', &mut line)?;
            if n == 0 {
                return Ok(if length.is_none() && lines == 0 {
                    Frame::End
                } else {
                    Frame::Truncated("the input ended inside a message's headers".to_owned())
                });
            }
            lines += 1;
            if line.last() != Some(&b'\n') {
                if n < MAX_HEADER_LINE {
                    return Ok(Frame::Truncated("the input ended inside a message's headers".to_owned()));
                }
                return self.skip(format!("a header line longer than {MAX_HEADER_LINE} bytes"), &line);
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches('\n').trim_end_matches('\r');
            if text.is_empty() {
                match length {
                    Some(len) => return self.body(len),
                    None => return self.skip("a message without a `Content-Length` header".to_owned(), b""),
                }
            }
            if lines > MAX_HEADERS {
                return self.skip(format!("a message with more than {MAX_HEADERS} header lines"), b"");
            }
            let header = text.split_once(':').filter(|(name, _)| !name.is_empty() && name.bytes().all(is_token));
            let Some((name, value)) = header else {
                let reason = format!("`{}` is not a header", shorten(text));
                return self.skip(reason, &line);
            };
            if name.eq_ignore_ascii_case("content-length") {
                let value = value.trim();
                match value.parse::<u64>() {
                    Ok(len) if value.bytes().all(|b| b.is_ascii_digit()) => length = Some(len),
                    _ => return self.skip(format!("`Content-Length: {}` is not a length", shorten(value)), b""),
                }
            }
        }
    }

    /// Reads a body of `len` bytes, or skips one over the limit.
    fn body(&mut self, len: u64) -> io::Result<Frame> {
        if len > self.limit as u64 {
            // The start is kept to find the document a dropped `didOpen`/`didChange` was about.
            self.oversized = Some(len);
            return Ok(Frame::TooLarge { declared: len });
        }
        let mut body = Vec::new();
        let got = (&mut self.input).take(len).read_to_end(&mut body)?;
        if (got as u64) < len {
            return Ok(Frame::Truncated(format!("the input ended after {got} of the message's {len} bytes")));
        }
        Ok(Frame::Body(body))
    }

    /// Reads past the body of a message over the limit (answered before this, so that a
    /// client waiting for the answer is not kept waiting), and returns its first bytes.
    fn skip_oversized(&mut self) -> io::Result<Vec<u8>> {
        let mut head = Vec::new();
        if let Some(len) = self.oversized.take() {
            self.found = self.discard(HeaderScan::default(), Some(len), Some(&mut head))?;
        }
        Ok(head)
    }

    /// Skips to the next `Content-Length` line, which may end `garbage` (the line just read:
    /// the rest of a body longer than its length runs into the next header).
    fn skip(&mut self, reason: String, garbage: &[u8]) -> io::Result<Frame> {
        let mut scan = HeaderScan::default();
        let in_line = garbage.iter().find_map(|&b| scan.feed(b));
        self.found = match in_line {
            Some(len) => Some(len),
            None => self.discard(scan, None, None)?,
        };
        let to = if self.ended { "to the end of the input" } else { "to the next `Content-Length` header" };
        Ok(Frame::Skipped(format!("skipped {reason}, {to}")))
    }

    /// Reads and drops bytes until a `Content-Length` line (its length is returned) or, when
    /// `count` is given, that many bytes; sets `ended` at the end of the input. The first
    /// [`HEAD_BYTES`] go to `head` when given.
    fn discard(
        &mut self,
        mut scan: HeaderScan,
        count: Option<u64>,
        mut head: Option<&mut Vec<u8>>,
    ) -> io::Result<Option<u64>> {
        let mut left = count.unwrap_or(u64::MAX);
        while left > 0 {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                self.ended = true;
                return Ok(None);
            }
            let take = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let mut used = 0;
            let mut found = None;
            for &b in &buf[..take] {
                used += 1;
                if let Some(len) = scan.feed(b) {
                    found = Some(len);
                    break;
                }
            }
            if let Some(head) = head.as_deref_mut() {
                let room = (HEAD_BYTES as usize).saturating_sub(head.len()).min(used);
                head.extend_from_slice(&buf[..room]);
            }
            self.input.consume(used);
            left -= used as u64;
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }
}

/// At most 80 characters of `text`, for a note.
fn shorten(text: &str) -> String {
    let mut s: String = text.chars().take(80).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s.escape_debug().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &str) -> Vec<String> {
        let mut f = Frames::new(io::Cursor::new(input.as_bytes().to_vec()), 100);
        let mut out = Vec::new();
        loop {
            match f.next().expect("in-memory reads succeed") {
                Frame::Body(b) => out.push(format!("body {}", String::from_utf8_lossy(&b))),
                Frame::TooLarge { declared, .. } => out.push(format!("too large {declared}")),
                Frame::Skipped(r) => out.push(r),
                Frame::Truncated(r) => {
                    out.push(r);
                    return out;
                }
                Frame::End => return out,
            }
        }
    }

    #[test]
    fn framing() {
        assert_eq!(
            frames("Content-Length: 2\r\n\r\n{}content-length:3\r\nContent-Type: x\r\n\r\n[1]"),
            ["body {}", "body [1]"]
        );
        // A lying length is cut short at the next header line.
        assert_eq!(
            frames("Content-Length: 1000000000000\r\n\r\n{}Content-Length: 2\r\n\r\n{}"),
            ["too large 1000000000000", "body {}"]
        );
        // An honest over-long body is skipped whole; its text cannot hold a header line.
        let long = format!("{{\"t\":\"Content-Length: 2\\r\\n{}\"}}", "x".repeat(200));
        let input = format!("Content-Length: {}\r\n\r\n{long}Content-Length: 2\r\n\r\n{{}}", long.len());
        assert_eq!(frames(&input), [format!("too large {}", long.len()), "body {}".to_owned()]);
        assert_eq!(
            frames("Content-Length: abc\r\n\r\n{}Content-Length: 2\r\n\r\n{}"),
            ["skipped `Content-Length: abc` is not a length, to the next `Content-Length` header", "body {}"]
        );
        assert_eq!(
            frames("Content-Length: -2\r\n\r\n{}"),
            ["skipped `Content-Length: -2` is not a length, to the end of the input"]
        );
        assert_eq!(
            frames("Content-Type: x\r\n\r\n{}\nContent-Length: 2\n\n{}"),
            ["skipped a message without a `Content-Length` header, to the next `Content-Length` header", "body {}"]
        );
        assert_eq!(
            frames("hello\r\nContent-Length: 2\r\n\r\n{}"),
            ["skipped `hello` is not a header, to the next `Content-Length` header", "body {}"]
        );
        assert_eq!(frames("Content-Length: 20\r\n\r\n{}"), ["the input ended after 2 of the message's 20 bytes"]);
        assert_eq!(frames("Content-Length: 2\r\n"), ["the input ended inside a message's headers"]);
        assert_eq!(frames(""), Vec::<String>::new());
    }

    #[test]
    fn decoding() {
        let refused = |body: &str| decode(body.as_bytes()).err().map(|r| (r.code as i32, r.id, r.document));
        assert!(refused(r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#).is_none());
        assert!(refused(r#"{"jsonrpc":"2.0","id":1,"result":null}"#).is_none());
        assert_eq!(refused("{"), Some((-32700, Value::Null, None)));
        assert_eq!(
            refused(
                r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a"},"contentChanges":[{"text":"\ud800"}]}}"#
            ),
            Some((-32700, Value::Null, Some(("textDocument/didChange".to_owned(), "file:///a".to_owned()))))
        );
        assert_eq!(refused(r#"{"id":7,"method":"x","params":"\udc00"}"#), Some((-32700, json!(7), None)));
        assert_eq!(refused("[]"), Some((-32600, Value::Null, None)));
        assert_eq!(refused("3"), Some((-32600, Value::Null, None)));
        assert_eq!(refused(r#"{"id":"a","method":3}"#), Some((-32600, json!("a"), None)));
        assert_eq!(refused(r#"{"id":4294967296,"method":"x"}"#), Some((-32600, json!(4294967296_u64), None)));
        assert_eq!(refused(r#"{"id":null,"method":"x"}"#), Some((-32600, Value::Null, None)));
        assert_eq!(refused(r#"{"jsonrpc":"1.0","id":2,"method":"x"}"#), Some((-32600, json!(2), None)));
        assert_eq!(refused(r#"{"id":2}"#), Some((-32600, json!(2), None)));
        assert_eq!(refused(&"[".repeat(1000)), Some((-32700, Value::Null, None)));
        assert_eq!(refused("\u{0}\u{ff}").map(|r| r.0), Some(-32700));
    }
}
