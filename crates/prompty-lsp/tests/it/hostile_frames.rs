//! The byte transport (`prompty_lsp::transport`) under hostile frames, over OS pipes: every
//! malformed frame gets its JSON-RPC answer (or a note, for framing the server skips) and the
//! next valid request is still answered. What a client sees is asserted byte for byte where
//! it matters: the error code, the id, the message.

use std::io::{BufRead, BufReader, PipeWriter, Read, Write};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::Receiver;
use prompty_lsp::transport::{self, MAX_MESSAGE_BYTES};
use prompty_lsp::{Options, Workspace};
use prompty_syntax::MapHost;
use serde_json::{Value, json};

/// How long any one answer may take before the test fails instead of hanging.
const HANG_GUARD: Duration = Duration::from_secs(120);

const URI: &str = "file:///w/a.prompty";
const TEXT: &str =
    "---\ninputs:\n  question:\n    kind: string\n    description: What the user asks.\n---\nuser:\n{{ question }}\n";

/// The server's end result: what `run` returned, then what the transport's threads returned.
type Ended = (Result<(), prompty_lsp::Error>, std::io::Result<()>);

struct Wire {
    input: Option<PipeWriter>,
    answers: Receiver<Value>,
    notes: Arc<Mutex<Vec<String>>>,
    server: Option<JoinHandle<Ended>>,
    next_id: i64,
    /// Notifications received while waiting for a response.
    inbox: Vec<Value>,
}

/// Reads framed messages as JSON values (ids may be `null`, which `lsp_server` cannot read).
fn read_frames(output: impl Read, tx: &crossbeam_channel::Sender<Value>) {
    let mut output = BufReader::new(output);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if output.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                length = v.parse::<usize>().ok();
            }
        }
        let mut body = vec![0; length.expect("the server frames every message with its length")];
        output.read_exact(&mut body).expect("a whole body");
        let value = serde_json::from_slice(&body).expect("the server writes JSON");
        if tx.send(value).is_err() {
            return;
        }
    }
}

impl Wire {
    fn start() -> Self {
        Self::start_with_limit(MAX_MESSAGE_BYTES)
    }

    fn start_with_limit(limit: usize) -> Self {
        let (in_r, in_w) = std::io::pipe().expect("a pipe");
        let (out_r, out_w) = std::io::pipe().expect("a pipe");
        let notes = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&notes);
        let record = move |note: &str| sink.lock().expect("notes").push(note.to_owned());
        let (conn, io) =
            transport::connect_with_limit(BufReader::new(in_r), out_w, record, limit).expect("the transport starts");
        let options = Options::new(Workspace::new(Arc::new(MapHost::new())));
        let server = std::thread::spawn(move || {
            let outcome = prompty_lsp::run(&conn, options);
            drop(conn);
            (outcome, io.join())
        });
        let (tx, answers) = crossbeam_channel::unbounded();
        std::thread::spawn(move || read_frames(out_r, &tx));
        let mut wire = Wire { input: Some(in_w), answers, notes, server: Some(server), next_id: 0, inbox: Vec::new() };
        let init = wire.request("initialize", json!({"processId": null, "capabilities": {}}));
        assert_eq!(init.pointer("/result/serverInfo/name"), Some(&json!("prompty")), "{init}");
        wire.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        wire.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": URI, "languageId": "prompty", "version": 1, "text": TEXT}}}));
        wire
    }

    fn raw(&mut self, bytes: &[u8]) {
        let input = self.input.as_mut().expect("the input is open");
        input.write_all(bytes).expect("the server reads");
        input.flush().expect("flush");
    }

    fn frame(&mut self, body: &[u8]) {
        self.raw(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        self.raw(body);
    }

    fn send(&mut self, value: &Value) {
        self.frame(value.to_string().as_bytes());
    }

    fn next(&self) -> Value {
        self.answers.recv_timeout(HANG_GUARD).expect("the server answers in time")
    }

    /// The next answer that is a response (notifications such as diagnostics are passed over).
    fn response(&mut self) -> Value {
        loop {
            let m = self.next();
            if m.get("method").is_none() {
                return m;
            }
            self.inbox.push(m);
        }
    }

    /// The first notification, received or to come, that `want` accepts.
    fn notification(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.inbox.iter().position(&want) {
            return self.inbox.remove(i);
        }
        loop {
            let m = self.next();
            if want(&m) {
                return m;
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let r = self.response();
        assert_eq!(r.get("id"), Some(&json!(id)), "answers come in order: {r}");
        r
    }

    /// A valid request is still answered, from the document's current text.
    fn assert_serving(&mut self) {
        let r = self.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": 7, "character": 4}}),
        );
        let hover = r.pointer("/result/contents/value").and_then(Value::as_str).unwrap_or_default();
        assert!(hover.contains("What the user asks."), "{r}");
    }

    fn notes(&self) -> Vec<String> {
        self.notes.lock().expect("notes").clone()
    }

    /// `shutdown` and `exit`; the server and the transport end without an error.
    fn finish(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r.get("result"), Some(&Value::Null), "{r}");
        self.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
        let (outcome, io) = self.server.take().expect("running").join().expect("no panic");
        assert_eq!(outcome, Ok(()));
        assert!(io.is_ok(), "{io:?}");
    }

    /// Closes the input; what the server and the transport returned.
    fn close(mut self) -> Ended {
        drop(self.input.take());
        self.server.take().expect("running").join().expect("no panic")
    }
}

/// An error answer: (code, id, message).
fn error_of(answer: &Value) -> (i64, Value, String) {
    (
        answer.pointer("/error/code").and_then(Value::as_i64).unwrap_or(0),
        answer.get("id").cloned().unwrap_or_else(|| json!("(missing)")),
        answer.pointer("/error/message").and_then(Value::as_str).unwrap_or_default().to_owned(),
    )
}

#[test]
fn a_content_length_of_a_terabyte_is_answered_and_its_lie_skipped() {
    let mut w = Wire::start();
    // The body that follows is small: the next message's header ends the skip.
    w.raw(b"Content-Length: 1000000000000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"shutdown\"}");
    assert_eq!(
        error_of(&w.response()),
        (
            -32600,
            Value::Null,
            "prompty: the message is 1000000000000 bytes long; the server reads messages of up to 67108864 bytes (64 MiB)"
                .to_owned()
        )
    );
    w.assert_serving();
    w.finish();
}

#[test]
fn a_message_over_64_mib_is_read_past_and_answered() {
    let mut w = Wire::start();
    // An honest body one byte over the limit (JSON whitespace around an object): read and
    // dropped a buffer at a time, then the next message is read as usual.
    let mut body = vec![b' '; MAX_MESSAGE_BYTES + 1];
    body[..2].copy_from_slice(b"{}");
    w.raw(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    // The pipe holds little: the server must read while this writes.
    w.raw(&body);
    let (code, id, message) = error_of(&w.response());
    assert_eq!((code, id), (-32600, Value::Null));
    assert!(message.contains("67108865 bytes long"), "{message}");
    w.assert_serving();
    // Exactly the limit is read.
    let mut exact = br#"{"jsonrpc":"2.0","id":50,"method":"shutdown"}"#.to_vec();
    exact.resize(MAX_MESSAGE_BYTES, b' ');
    w.frame(&exact);
    assert_eq!(w.response(), json!({"jsonrpc": "2.0", "id": 50, "result": null}));
    // After `shutdown`, requests are refused until `exit`.
    let r = w.request("textDocument/hover", json!({}));
    assert_eq!(error_of(&r).0, -32600, "{r}");
    w.send(&json!({"jsonrpc": "2.0", "method": "exit"}));
    let (outcome, io) = w.close();
    assert_eq!(outcome, Ok(()));
    assert!(io.is_ok(), "{io:?}");
}

#[test]
fn a_body_that_is_not_json_gets_a_parse_error() {
    let mut w = Wire::start();
    w.frame(b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\":");
    let (code, id, message) = error_of(&w.response());
    assert_eq!((code, id), (-32700, Value::Null));
    assert!(message.starts_with("prompty: the message is not valid JSON: EOF while parsing"), "{message}");
    w.assert_serving();
    w.frame(b"\xff\xfe{}");
    assert_eq!(
        error_of(&w.response()),
        (-32700, Value::Null, "prompty: the message is not UTF-8 text (byte 0)".to_owned())
    );
    w.assert_serving();
    // Nesting past the parser's limit (128) is a parse error, not a stack overflow.
    w.frame("[".repeat(100_000).as_bytes());
    assert_eq!(error_of(&w.response()).0, -32700);
    w.assert_serving();
    assert!(w.notes().iter().all(|n| n.starts_with("answered a message that is not JSON: ")), "{:?}", w.notes());
    w.finish();
}

#[test]
fn json_that_is_not_a_message_gets_an_invalid_request() {
    let mut w = Wire::start();
    for (body, id, message) in [
        (
            "[]",
            Value::Null,
            "a batch (a JSON array) is not a Language Server Protocol message; send each message on its own",
        ),
        ("\"hello\"", Value::Null, "a message must be a JSON object"),
        (r#"{"jsonrpc":"2.0","id":3,"method":7}"#, json!(3), "`method` must be a string"),
        (
            r#"{"jsonrpc":"2.0","id":4294967296,"method":"textDocument/hover"}"#,
            json!(4_294_967_296_u64),
            "`id` must be a string or an integer from -2147483648 to 2147483647",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"textDocument/hover"}"#,
            json!(1.5),
            "`id` must be a string or an integer from -2147483648 to 2147483647",
        ),
        (r#"{"jsonrpc":"1.0","id":"x","method":"shutdown"}"#, json!("x"), "`jsonrpc` must be \"2.0\""),
        (
            r#"{"jsonrpc":"2.0","id":9}"#,
            json!(9),
            "a message needs a `method` (a request or notification) or a `result`",
        ),
    ] {
        w.frame(body.as_bytes());
        assert_eq!(error_of(&w.response()), (-32600, id, format!("prompty: {message}")), "{body}");
        w.assert_serving();
    }
    w.finish();
}

#[test]
fn an_unpaired_surrogate_in_did_change_is_answered_and_the_document_marked_out_of_date() {
    let mut w = Wire::start();
    let change = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.prompty","version":2},"contentChanges":[{"range":{"start":{"line":7,"character":0},"end":{"line":7,"character":0}},"text":"\ud800"}]}}"#;
    w.frame(change.as_bytes());
    let (code, id, message) = error_of(&w.response());
    assert_eq!((code, id), (-32700, Value::Null));
    assert!(message.starts_with("prompty: the message is not valid JSON: unexpected end of hex escape"), "{message}");
    // The server's copy missed an edit: it says so instead of answering from it.
    let r =
        w.request("textDocument/hover", json!({"textDocument": {"uri": URI}, "position": {"line": 7, "character": 4}}));
    let (code, _, message) = error_of(&r);
    assert_eq!(code, -32803, "{r}");
    assert!(
        message.starts_with("prompty: the server's copy of this file is out of date: the editor's last change could not be read (the message is not valid JSON: unexpected end of hex escape"),
        "{message}"
    );
    let diagnostics = w.notification(|m| {
        m.get("method") == Some(&json!("textDocument/publishDiagnostics"))
            && m.pointer("/params/diagnostics/0/message")
                .and_then(Value::as_str)
                .is_some_and(|t| t.contains("out of date"))
    });
    assert_eq!(diagnostics.pointer("/params/diagnostics/0/severity"), Some(&json!(1)), "{diagnostics}");
    // A ranged change cannot be placed in an out-of-date text; a full text brings it back.
    w.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]}}));
    let r =
        w.request("textDocument/hover", json!({"textDocument": {"uri": URI}, "position": {"line": 7, "character": 4}}));
    assert_eq!(error_of(&r).0, -32803, "{r}");
    w.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": URI, "version": 4}, "contentChanges": [{"text": TEXT}]}}));
    w.assert_serving();
    w.finish();
}

#[test]
fn an_unpaired_surrogate_in_a_request_is_answered_with_its_id() {
    let mut w = Wire::start();
    w.frame(br#"{"jsonrpc":"2.0","id":77,"method":"workspace/executeCommand","params":{"command":"prompty.render","arguments":["file:///w/a.prompty",{"question":"\udc00"}]}}"#);
    let (code, id, message) = error_of(&w.response());
    assert_eq!((code, id), (-32700, json!(77)));
    assert!(message.contains("surrogate in hex escape"), "{message}");
    w.assert_serving();
    w.finish();
}

#[test]
fn a_second_initialize_is_an_invalid_request() {
    let mut w = Wire::start();
    let r = w.request("initialize", json!({"processId": null, "capabilities": {}}));
    assert_eq!(
        error_of(&r),
        (
            -32600,
            json!(w.next_id),
            "prompty: the server is already initialized; `initialize` is sent once per session".to_owned()
        )
    );
    w.assert_serving();
    w.finish();
}

#[test]
fn a_bad_or_missing_length_is_skipped_to_the_next_header() {
    let mut w = Wire::start();
    w.raw(b"Content-Length: twelve\r\n\r\n{\"id\":1}");
    w.assert_serving();
    w.raw(b"Content-Length: -5\r\n\r\n{}");
    w.assert_serving();
    w.raw(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1}");
    w.assert_serving();
    w.raw(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    w.assert_serving();
    w.raw(&[b'x'; 20_000]);
    w.raw(b"\r\n");
    w.assert_serving();
    // A length shorter than its body: the body's start is a parse error, its rest is skipped.
    w.raw(b"Content-Length: 5\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}");
    assert_eq!(error_of(&w.response()).0, -32700);
    w.assert_serving();
    assert_eq!(
        w.notes(),
        [
            "skipped `Content-Length: twelve` is not a length, to the next `Content-Length` header",
            "skipped `Content-Length: -5` is not a length, to the next `Content-Length` header",
            "skipped a message without a `Content-Length` header, to the next `Content-Length` header",
            "skipped `GET / HTTP/1.1` is not a header, to the next `Content-Length` header",
            "skipped a header line longer than 8192 bytes, to the next `Content-Length` header",
            "answered a message that is not JSON: the message is not valid JSON: EOF while parsing a string at line 1 column 5",
            // The rest of the body runs into the next header line, which is found there.
            "skipped `nrpc\\\":\\\"2.0\\\",\\\"id\\\":3,\\\"method\\\":\\\"shutdown\\\"}Content-Length: 146` is not a header, to the next `Content-Length` header",
        ]
    );
    w.finish();
}

#[test]
fn input_that_ends_inside_a_message_ends_the_session_with_a_note() {
    let mut w = Wire::start();
    w.assert_serving();
    w.raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"");
    let notes = Arc::clone(&w.notes);
    let (outcome, io) = w.close();
    assert_eq!(outcome, Ok(()), "a client that goes away ends the session");
    assert!(io.is_ok(), "{io:?}");
    assert_eq!(*notes.lock().expect("notes"), ["the input ended after 10 of the message's 100 bytes"]);

    let mut w = Wire::start();
    w.raw(b"Content-Length: 1000000000000\r\n\r\n{}");
    assert_eq!(error_of(&w.response()).0, -32600);
    let notes = Arc::clone(&w.notes);
    let (outcome, io) = w.close();
    assert_eq!(outcome, Ok(()));
    assert!(io.is_ok(), "{io:?}");
    assert_eq!(notes.lock().expect("notes").len(), 1, "{notes:?}");
}

#[test]
fn the_limit_is_the_transports_setting() {
    // A small limit, so that both sides of it are cheap to show.
    let mut w = Wire::start_with_limit(4096);
    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"{URI}","version":2}},"contentChanges":[{{"text":"{}"}}]}}}}"#,
        "x".repeat(5000)
    );
    w.frame(big.as_bytes());
    let (code, id, message) = error_of(&w.response());
    assert_eq!((code, id), (-32600, Value::Null));
    assert!(message.contains("up to 4096 bytes"), "{message}");
    // The dropped change leaves the server's copy out of date, and it says so.
    let r =
        w.request("textDocument/hover", json!({"textDocument": {"uri": URI}, "position": {"line": 7, "character": 4}}));
    let (code, _, message) = error_of(&r);
    assert_eq!(code, -32803, "{r}");
    assert!(message.contains("out of date") && message.contains("up to 4096 bytes"), "{message}");
    w.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": TEXT}]}}));
    w.assert_serving();
    w.finish();
}

#[test]
fn an_unreadable_did_open_opens_the_document_as_out_of_date() {
    let mut w = Wire::start();
    let open = r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/b.prompty","languageId":"prompty","version":1,"text":"user:\n\udfff"}}}"#;
    w.frame(open.as_bytes());
    assert_eq!(error_of(&w.response()).0, -32700);
    let r = w.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///w/b.prompty"}, "position": {"line": 0, "character": 0}}),
    );
    let (code, _, message) = error_of(&r);
    assert_eq!(code, -32803, "{r}");
    assert!(message.contains("out of date"), "{message}");
    // Opened again with readable text, it is served.
    w.send(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///w/b.prompty", "languageId": "prompty", "version": 2, "text": TEXT}}}));
    let r = w.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///w/b.prompty"}, "position": {"line": 7, "character": 4}}),
    );
    assert!(r.pointer("/result/contents/value").is_some(), "{r}");
    w.assert_serving();
    w.finish();
}
