//! The server driven through the protocol: JSON-RPC messages over an in-memory connection,
//! one test per feature, from `initialize` to `shutdown`/`exit`.

use std::collections::VecDeque;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use lsp_server::{Connection, Message};
use prompty_lsp::{Options, Workspace};
use prompty_syntax::MapHost;
use serde_json::{Value, json};

/// How long any one answer may take before the test fails instead of hanging.
const HANG_GUARD: Duration = Duration::from_secs(120);

const URI: &str = "file:///w/prompts/a.prompty";

struct Client {
    conn: Connection,
    server: Option<JoinHandle<Result<(), prompty_lsp::Error>>>,
    next_id: i64,
    /// Notifications received while waiting for something else.
    inbox: VecDeque<Value>,
}

fn message(value: Value) -> Message {
    serde_json::from_value(value).expect("a JSON-RPC message")
}

impl Client {
    fn start(host: MapHost, tweak: impl FnOnce(&mut Options)) -> Self {
        Self::start_with(host, tweak, json!({"debounceMs": 20}))
    }

    fn start_with(host: MapHost, tweak: impl FnOnce(&mut Options), settings: Value) -> Self {
        let (server, conn) = Connection::memory();
        let mut options = Options::new(Workspace::new(Arc::new(host)));
        tweak(&mut options);
        let handle = std::thread::spawn(move || prompty_lsp::run(&server, options));
        let mut client = Client { conn, server: Some(handle), next_id: 0, inbox: VecDeque::new() };
        let init = client.request(
            "initialize",
            json!({"processId": null, "rootUri": "file:///w", "capabilities": {}, "initializationOptions": settings}),
        );
        let caps = init.get("result").and_then(|r| r.get("capabilities")).cloned().unwrap_or_default();
        assert_eq!(caps.get("positionEncoding"), Some(&json!("utf-16")), "{init}");
        client.notify("initialized", json!({}));
        client
    }

    fn send(&self, value: Value) {
        self.conn.sender.send(message(value)).expect("the server is running");
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn recv(&self) -> Value {
        let msg = self.conn.receiver.recv_timeout(HANG_GUARD).expect("the server answers in time");
        serde_json::to_value(msg).expect("serializable")
    }

    /// Sends a request and returns the whole response object.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let msg = self.recv();
            if msg.get("id") == Some(&json!(id)) {
                return msg;
            }
            self.inbox.push_back(msg);
        }
    }

    /// The result of a request that must succeed.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response.get("result").cloned().unwrap_or(Value::Null)
    }

    /// The next notification with this method (and matching `pick`).
    fn notification(&mut self, method: &str, pick: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.inbox.iter().position(|m| m.get("method") == Some(&json!(method)) && pick(m)) {
            return self.inbox.remove(i).unwrap_or_default();
        }
        let deadline = Instant::now() + HANG_GUARD;
        loop {
            assert!(Instant::now() < deadline, "no {method} notification");
            let msg = self.recv();
            if msg.get("method") == Some(&json!(method)) && pick(&msg) {
                return msg;
            }
            self.inbox.push_back(msg);
        }
    }

    /// The next diagnostics published for `uri` (for `version`, when given).
    fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Vec<Value> {
        let msg = self.notification("textDocument/publishDiagnostics", |m| {
            let p = m.get("params").cloned().unwrap_or_default();
            p.get("uri") == Some(&json!(uri)) && version.is_none_or(|v| p.get("version") == Some(&json!(v)))
        });
        msg.pointer("/params/diagnostics").and_then(Value::as_array).cloned().unwrap_or_default()
    }

    fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "prompty", "version": 1, "text": text}}),
        );
    }

    fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        self.call(method, json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}))
    }

    fn shutdown(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        let outcome = self.server.take().map(|h| h.join().expect("the server thread does not panic"));
        assert!(matches!(outcome, Some(Ok(()))), "{outcome:?}");
    }
}

/// Position (line, UTF-16 column) of the first `needle` in `text`, plus `skip` bytes.
fn pos(text: &str, needle: &str, skip: usize) -> (u32, u32) {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle} in text")) + skip;
    let line = text[..at].matches('\n').count();
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line as u32, text[start..at].encode_utf16().count() as u32)
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics.iter().map(|d| d.get("code").and_then(Value::as_str).unwrap_or("-").to_owned()).collect()
}

const BROKEN: &str = "---\nname: demo\ninputs:\n  question:\n    kind: string\n    description: What the user asks.\n    default: Where is Paris?\n---\nsytem:\nBe brief.\nuser:\nHéllo 😀 {{ topic }} and {{ question }}\n";

#[test]
fn diagnostics_on_open_change_and_close() {
    let mut c = Client::start(MapHost::new(), |_| {});
    c.open(URI, BROKEN);
    let d = c.diagnostics(URI, Some(1));
    assert_eq!(codes(&d), ["PL007", "PL001"]);
    // UTF-16 columns: "Héllo 😀 {{ " is 12 code units (é is one, 😀 two).
    let pl001 = &d[1];
    assert_eq!(pl001.pointer("/range/start"), Some(&json!({"line": 11, "character": 12})));
    assert_eq!(pl001.pointer("/range/end"), Some(&json!({"line": 11, "character": 17})));
    assert_eq!(pl001.get("severity"), Some(&json!(1)));
    assert_eq!(pl001.get("source"), Some(&json!("prompty")));
    // No published documentation in this build: no link rather than a dead or relative one.
    assert_eq!(pl001.get("codeDescription"), None, "{pl001}");
    assert!(pl001.get("message").and_then(Value::as_str).is_some_and(|m| m.contains("\nhelp: ")), "{pl001}");

    // An incremental change: `sytem` -> `system` (one inserted character).
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 8, "character": 2}, "end": {"line": 8, "character": 2}}, "text": "s"}
        ]}),
    );
    assert_eq!(codes(&c.diagnostics(URI, Some(2))), ["PL001"]);
    // A change after the emoji, in UTF-16 columns: `topic` -> `question`.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [
            {"range": {"start": {"line": 11, "character": 12}, "end": {"line": 11, "character": 17}}, "text": "question"}
        ]}),
    );
    assert_eq!(codes(&c.diagnostics(URI, Some(3))), Vec::<String>::new());
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": URI}}));
    assert!(c.diagnostics(URI, None).is_empty());
    c.shutdown();
}

#[test]
fn diagnostics_apply_prompty_toml() {
    let host = MapHost::new()
        .with_file("/w/prompty.toml", "[lint]\nignore = [\"PL007\"]\n")
        .with_file("/w/prompts/a.prompty", BROKEN);
    let mut c = Client::start(host, |_| {});
    c.open(URI, BROKEN);
    assert_eq!(codes(&c.diagnostics(URI, Some(1))), ["PL001"]);
    // A broken configuration is reported, and every code is checked meanwhile.
    let host = MapHost::new().with_file("/w/prompty.toml", "[lint]\nignore = [\"PL0007\"]\n");
    let mut c2 = Client::start(host, |_| {});
    c2.open(URI, BROKEN);
    let d = c2.diagnostics(URI, Some(1));
    assert_eq!(codes(&d), ["PT003", "PL007", "PL001"]);
    let message = d[0].get("message").and_then(Value::as_str).unwrap_or_default();
    assert!(message.contains("/w/prompty.toml:2:11: `PL0007` matches no code"), "{message}");
    // The place to fix: the selector's range in prompty.toml (zero-based, UTF-16).
    let related = &d[0]["relatedInformation"][0]["location"];
    assert_eq!(related["uri"], "file:///w/prompty.toml", "{}", d[0]);
    assert_eq!(
        related["range"],
        serde_json::json!({"start": {"line": 1, "character": 10}, "end": {"line": 1, "character": 18}})
    );
    assert_eq!(d[0].get("codeDescription"), None, "{}", d[0]);
    c.shutdown();
    c2.shutdown();
}

/// A client that says where the documentation is published gets links there, and only
/// absolute ones.
#[test]
fn diagnostics_link_the_docs_url_the_client_gives() {
    let mut c = Client::start_with(
        MapHost::new(),
        |_| {},
        json!({"debounceMs": 20, "docsUrl": "https://docs.example.com/prompty/docs"}),
    );
    c.open(URI, BROKEN);
    let d = c.diagnostics(URI, Some(1));
    let href = d[1].pointer("/codeDescription/href").and_then(Value::as_str).unwrap_or_default();
    assert_eq!(href, "https://docs.example.com/prompty/docs/rules.md#pl001-undeclared-variable");
    c.shutdown();
    let mut relative = Client::start_with(MapHost::new(), |_| {}, json!({"debounceMs": 20, "docsUrl": "docs/"}));
    relative.open(URI, BROKEN);
    let d = relative.diagnostics(URI, Some(1));
    assert!(d.iter().all(|d| d.get("codeDescription").is_none()), "{d:?}");
    relative.shutdown();
}

#[test]
fn a_burst_of_changes_is_checked_once_at_its_end() {
    // A window long enough that five changes sent at once always fall in it.
    let mut c = Client::start_with(MapHost::new(), |_| {}, json!({"debounceMs": 1000}));
    c.open(URI, "user:\n{{a}}");
    assert_eq!(codes(&c.diagnostics(URI, Some(1))), ["PL001"]);
    for v in 2..=6 {
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": v}, "contentChanges": [{"text": format!("user:\n{{{{a{v}}}}}")}]}),
        );
    }
    // The first change may be checked at once (it can come after a quiet spell); the ones
    // that follow it within the window are not checked until the last.
    let mut seen = Vec::new();
    loop {
        let next = c.notification("textDocument/publishDiagnostics", |_| true);
        let version = next.pointer("/params/version").and_then(Value::as_i64).unwrap_or(0);
        seen.push(version);
        if version == 6 {
            let message = next.pointer("/params/diagnostics/0/message").and_then(Value::as_str).unwrap_or_default();
            assert!(message.starts_with("`a6` is read"), "{message}");
            break;
        }
    }
    assert!(seen == [6] || seen == [2, 6], "{seen:?}");
    c.shutdown();
}

fn hover_text(v: &Value) -> String {
    v.pointer("/contents/value").and_then(Value::as_str).unwrap_or("(no hover)").to_owned()
}

const RICH: &str = "---\nname: rich\ninputs:\n  question:\n    kind: string\n    description: What the user asks.\n    default: Where is Paris?\n  user:\n    kind: object\n    description: Who asks.\n    properties:\n      name: {kind: string, description: The user's name.}\n      address:\n        kind: object\n        properties:\n          city: {kind: string}\nmodel:\n  id: gpt-4o\n  options:\n    temperature: 0.2\n---\nsystem:\nYou help {{ user.name }} from {{ user.address.city }}.\n\nuser[name=Ann]:\n{{ question }}\n";

#[test]
fn hover() {
    let mut c = Client::start(MapHost::new(), |_| {});
    c.open(URI, RICH);
    let mut shown = String::new();
    for (what, needle, skip) in [
        ("template input", "{{ question }}", 4),
        ("object property", "user.name }}", 6),
        ("nested property", "address.city", 9),
        ("front matter input", "question:\n", 2),
        ("role line", "system:", 2),
        ("role line with attributes", "user[name", 1),
        ("front matter key", "temperature", 3),
        ("front matter kind", "kind: string", 1),
    ] {
        let (line, col) = pos(RICH, needle, skip);
        let h = c.at("textDocument/hover", URI, line, col);
        shown.push_str(&format!("## {what} ({line}:{col})\n{}\n\n", hover_text(&h)));
    }
    // Nothing to say on plain text.
    let (line, col) = pos(RICH, "You help", 1);
    assert_eq!(c.at("textDocument/hover", URI, line, col), Value::Null);
    insta::assert_snapshot!("hover", shown);
    c.shutdown();
}

fn labels(v: &Value) -> Vec<String> {
    let items = v.as_array().or_else(|| v.get("items").and_then(Value::as_array)).cloned().unwrap_or_default();
    items.iter().map(|i| i.get("label").and_then(Value::as_str).unwrap_or_default().to_owned()).collect()
}

#[test]
fn completion() {
    let mut c = Client::start(MapHost::new(), |_| {});
    // The document is being typed: the last tag is not closed yet.
    let text = format!("{RICH}{{{{ user.address.");
    c.open(URI, &text);
    let last = text.lines().count() as u32 - 1;
    let mut shown = String::new();
    let mut show = |what: &str, v: &Value| shown.push_str(&format!("## {what}\n{}\n\n", labels(v).join("\n")));
    let (line, col) = pos(&text, "{{ question }}", 3);
    show("inputs in a tag", &c.at("textDocument/completion", URI, line, col));
    let (line, col) = pos(&text, "user.name }}", 5);
    show("properties of an object input", &c.at("textDocument/completion", URI, line, col));
    show("properties of a nested object, unclosed tag", &c.at("textDocument/completion", URI, last, 16));
    let (line, _) = pos(&text, "\n\nuser[", 1);
    show("roles at the start of a line", &c.at("textDocument/completion", URI, line, 0));
    let (line, col) = pos(&text, "  id: gpt-4o", 2);
    show("model keys (present ones left out)", &c.at("textDocument/completion", URI, line, col));
    let (line, col) = pos(&text, "kind: object", 6);
    show("input kinds", &c.at("textDocument/completion", URI, line, col));
    let (line, col) = pos(&text, "name: rich", 0);
    show("top-level keys", &c.at("textDocument/completion", URI, line, col));
    insta::assert_snapshot!("completion", shown);
    // The item replaces what is typed of the word.
    let (line, col) = pos(&text, "user.name }}", 7);
    let items = c.at("textDocument/completion", URI, line, col);
    let name = items.as_array().and_then(|a| a.iter().find(|i| i.get("label") == Some(&json!("name")))).cloned();
    assert_eq!(
        name.and_then(|n| n.pointer("/textEdit/range").cloned()),
        Some(json!({"start": {"line": line, "character": col - 2}, "end": {"line": line, "character": col}}))
    );
    c.shutdown();
}

#[test]
fn definition() {
    let host = MapHost::new().with_file("/w/prompts/data/inputs.json", "{\"q\": {\"kind\": \"string\"}}");
    let mut c = Client::start(host, |_| {});
    let text = "---\nname: d\nmetadata:\n  extra: ${file:data/inputs.json}\ninputs:\n  - name: question\n    kind: string\n---\nuser:\n{{ question | upper }}\n";
    c.open(URI, text);
    let (line, col) = pos(text, "{{ question", 5);
    let loc = c.at("textDocument/definition", URI, line, col);
    let (dl, dc) = pos(text, "question\n", 0);
    assert_eq!(
        loc,
        json!({"uri": URI, "range": {"start": {"line": dl, "character": dc}, "end": {"line": dl, "character": dc + 8}}})
    );
    let (line, col) = pos(text, "${file:", 4);
    let loc = c.at("textDocument/definition", URI, line, col);
    assert_eq!(loc.get("uri"), Some(&json!("file:///w/prompts/data/inputs.json")), "{loc}");
    // A filter name is no input.
    let (line, col) = pos(text, "upper", 1);
    assert_eq!(c.at("textDocument/definition", URI, line, col), Value::Null);
    c.shutdown();
}

/// Applies LSP text edits (non-overlapping) to `text`.
fn apply(text: &str, edits: &[Value]) -> String {
    let index = prompty_lsp::position::LineIndex::new(text);
    let mut spans: Vec<(std::ops::Range<usize>, String)> = edits
        .iter()
        .map(|e| {
            let range: lsp_types::Range =
                serde_json::from_value(e.get("range").cloned().unwrap_or_default()).expect("range");
            (index.byte_range(text, range), e.get("newText").and_then(Value::as_str).unwrap_or_default().to_owned())
        })
        .collect();
    spans.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    let mut out = text.to_owned();
    for (r, t) in spans {
        out.replace_range(r, &t);
    }
    out
}

fn edits_of(action: &Value) -> Vec<Value> {
    action
        .pointer(&format!("/edit/changes/{}", URI.replace('~', "~0").replace('/', "~1")))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

#[test]
fn code_actions() {
    let mut c = Client::start(MapHost::new(), |_| {});
    let text = "---\nname: a\ninputs:\n  question:\n    kind: string\n---\nsytem:\nBe brief.\nuser :  \n{{ question }} {{ topic }}\nassistant: \nSure.\n";
    c.open(URI, text);
    let d = c.diagnostics(URI, Some(1));
    assert_eq!(codes(&d), ["PL007", "PL019", "PL001", "PL019"]);
    let whole = json!({"start": {"line": 0, "character": 0}, "end": {"line": 13, "character": 0}});
    let actions = c.call(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": whole, "context": {"diagnostics": d}}),
    );
    let actions = actions.as_array().cloned().unwrap_or_default();
    let titles: Vec<&str> = actions.iter().filter_map(|a| a.get("title").and_then(Value::as_str)).collect();
    insta::assert_snapshot!("code_action_titles", titles.join("\n"));
    for a in &actions {
        let title = a.get("title").and_then(Value::as_str).unwrap_or_default();
        let fixed = apply(text, &edits_of(a));
        let host = MapHost::new();
        let loaded = prompty_syntax::load_str(&fixed, &host, &prompty_syntax::LoadOptions::default());
        let findings: Vec<&str> = prompty_lint::check(&fixed, &loaded, &prompty_lint::Selection::all())
            .findings
            .iter()
            .map(|f| f.diagnostic.code.id)
            .collect();
        match title {
            t if t.starts_with("Replace `sytem`") => {
                assert!(fixed.contains("\nsystem:\n") && !findings.contains(&"PL007"));
                // It starts a system message: offered, never preferred.
                assert_eq!(t, "Replace `sytem` with `system` (changes what the prompt sends)");
                assert_eq!(a.get("isPreferred"), None, "{a}");
            }
            t if t.starts_with("Remove the trailing whitespace") => {
                assert_eq!(a.get("isPreferred"), Some(&json!(true)), "{a}");
            }
            t if t.starts_with("Declare input `topic`") => {
                assert!(!findings.contains(&"PL001"), "{fixed}");
                assert!(fixed.contains("  topic:\n    kind: string\n---"), "{fixed}");
            }
            t if t.starts_with("Fix all") => {
                // Safe fixes only: the misspelt role line stays for the author to decide.
                assert!(findings.contains(&"PL007") && !findings.contains(&"PL019"), "{fixed}");
                assert_eq!(a.get("kind"), Some(&json!("source.fixAll")));
            }
            _ => assert!(!findings.is_empty()),
        }
    }
    // Only what the client asks for.
    let only = c.call(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI}, "range": whole, "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
    );
    assert_eq!(only.as_array().map(Vec::len), Some(1), "{only}");
    c.shutdown();
}

#[test]
fn declare_input_in_every_front_matter_shape() {
    let mut c = Client::start(MapHost::new(), |_| {});
    let cases = [
        (
            "no front matter",
            "user:\n{{ topic }}\n",
            "---\ninputs:\n  topic:\n    kind: string\n---\nuser:\n{{ topic }}\n",
        ),
        (
            "no inputs key",
            "---\nname: a\n---\nuser:\n{{ topic }}\n",
            "---\nname: a\ninputs:\n  topic:\n    kind: string\n---\nuser:\n{{ topic }}\n",
        ),
        (
            "flow entries",
            "---\ninputs:\n  q: {kind: string}\n---\nuser:\n{{ q }} {{ topic }}\n",
            "---\ninputs:\n  q: {kind: string}\n  topic: {kind: string}\n---\nuser:\n{{ q }} {{ topic }}\n",
        ),
        (
            "list form",
            "---\ninputs:\n  - name: q\n    kind: string\n---\nuser:\n{{ q }} {{ topic }}\n",
            "---\ninputs:\n  - name: q\n    kind: string\n  - name: topic\n    kind: string\n---\nuser:\n{{ q }} {{ topic }}\n",
        ),
        (
            "flow mapping",
            "---\ninputs: {q: {kind: string}}\n---\nuser:\n{{ q }} {{ topic }}\n",
            "---\ninputs: {q: {kind: string}, topic: {kind: string}}\n---\nuser:\n{{ q }} {{ topic }}\n",
        ),
        (
            "empty inputs",
            "---\ninputs:\n---\nuser:\n{{ topic }}\n",
            "---\ninputs:\n  topic:\n    kind: string\n---\nuser:\n{{ topic }}\n",
        ),
        (
            "v1 file",
            "---\nname: a\nmodel:\n  api: chat\ninputs:\n  q:\n    type: string\n---\nuser:\n{{ q }} {{ topic }}\n",
            "---\nname: a\nmodel:\n  api: chat\ninputs:\n  q:\n    type: string\n  topic:\n    type: string\n---\nuser:\n{{ q }} {{ topic }}\n",
        ),
    ];
    for (i, (what, text, want)) in cases.into_iter().enumerate() {
        let uri = format!("file:///w/d{i}.prompty");
        c.open(&uri, text);
        let (line, col) = pos(text, "topic }}", 0);
        let actions = c.call(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col}}, "context": {"diagnostics": []}}),
        );
        let declare = actions
            .as_array()
            .and_then(|a| {
                a.iter().find(|x| x.get("title").and_then(Value::as_str).is_some_and(|t| t.starts_with("Declare")))
            })
            .cloned()
            .unwrap_or_else(|| panic!("{what}: no declare action in {actions}"));
        let edits = declare
            .pointer(&format!("/edit/changes/{}", uri.replace('/', "~1")))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        assert_eq!(apply(text, &edits), want, "{what}");
    }
    c.shutdown();
}

#[test]
fn render_preview() {
    let mut c = Client::start(MapHost::new(), |_| {});
    let text = "---\nname: p\ninputs:\n  question: {kind: string, default: Where is Paris?}\n  tone: {kind: string, example: warm}\n---\nsystem:\nAnswer in a {{ tone }} tone.\nuser:\n{{ question }}\n";
    c.open(URI, text);
    let r = c.call("workspace/executeCommand", json!({"command": "prompty.render", "arguments": [URI]}));
    let given = c.call(
        "workspace/executeCommand",
        json!({"command": "prompty.render", "arguments": [{"uri": URI, "inputs": {"question": "And Rome?"}}]}),
    );
    insta::assert_snapshot!(
        "render_preview",
        format!(
            "{}\ninputs: {}\n\n--- with inputs given ---\n{}\ninputs: {}",
            r.get("text").and_then(Value::as_str).unwrap_or_default(),
            r.get("inputs").cloned().unwrap_or_default(),
            given.get("text").and_then(Value::as_str).unwrap_or_default(),
            given.get("inputs").cloned().unwrap_or_default(),
        )
    );
    assert_eq!(r.pointer("/messages/1/content/0/value"), Some(&json!("Where is Paris?")));
    // A template error is an error response naming the place.
    let broken = "---\nname: p\n---\nuser:\n{{ question }\n";
    c.open("file:///w/b.prompty", broken);
    let e = c.request(
        "workspace/executeCommand",
        json!({"command": "prompty.render", "arguments": ["file:///w/b.prompty"]}),
    );
    let message = e.pointer("/error/message").and_then(Value::as_str).unwrap_or_default();
    assert!(message.starts_with("5:"), "{e}");
    // Connection variables unset where the editor runs: the preview still renders, and the
    // reference stays as written (nothing is read from the environment).
    let unset = "---\nname: p\nmodel:\n  id: gpt-4o\n  connection:\n    kind: key\n    endpoint: ${env:PROMPTY_PREVIEW_UNSET_ENDPOINT}\n    key: ${env:PROMPTY_PREVIEW_UNSET_KEY}\n---\nuser:\nhi\n";
    c.open("file:///w/env.prompty", unset);
    let r = c
        .call("workspace/executeCommand", json!({"command": "prompty.render", "arguments": ["file:///w/env.prompty"]}));
    assert_eq!(r.pointer("/messages/0/content/0/value"), Some(&json!("hi")), "{r}");
    let e = c.request("workspace/executeCommand", json!({"command": "prompty.nothing", "arguments": []}));
    assert_eq!(e.pointer("/error/code"), Some(&json!(-32602)), "{e}");
    // Required inputs with no default, example or value render with placeholders, said so.
    let bare = "---\nname: p\ninputs:\n  question: {kind: string, required: true}\n  count: {kind: integer, required: true}\n  optional: {kind: string}\n---\nuser:\n{{ question }} x{{ count }}{{ optional }}\n";
    c.open("file:///w/bare.prompty", bare);
    let r = c.call(
        "workspace/executeCommand",
        json!({"command": "prompty.render", "arguments": ["file:///w/bare.prompty"]}),
    );
    assert_eq!(r.pointer("/messages/0/content/0/value"), Some(&json!("<question> x0")), "{r}");
    assert_eq!(r.get("placeholders"), Some(&json!(["question", "count"])), "{r}");
    assert_eq!(r.pointer("/inputs/question/from"), Some(&json!("placeholder")), "{r}");
    assert_eq!(
        r.get("note"),
        Some(&json!(
            "placeholders stand in for `question`, `count`: required, with no value given and no default or example (give values, or add an `example:` to the input)"
        )),
        "{r}"
    );
    let given = c.call(
        "workspace/executeCommand",
        json!({"command": "prompty.render", "arguments": [{"uri": "file:///w/bare.prompty", "inputs": {"question": "Q", "count": 2}}]}),
    );
    assert_eq!(given.get("placeholders"), Some(&json!([])), "{given}");
    assert_eq!(given.get("note"), Some(&Value::Null), "{given}");
    c.shutdown();
}

#[test]
fn formatting() {
    let mut c = Client::start(MapHost::new(), |_| {});
    let text = "---\nmodel: gpt-4o\n# the name\nname: f\n---\nsystem :  \nHé 😀\n  user:\nhi\n";
    c.open(URI, text);
    let edits = c.call(
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let edits = edits.as_array().cloned().unwrap_or_default();
    assert_eq!(edits.len(), 1);
    assert_eq!(apply(text, &edits), "---\n# the name\nname: f\nmodel: gpt-4o\n---\nsystem:\nHé 😀\nuser:\nhi\n");
    // Formatted text needs no edit.
    c.open("file:///w/ok.prompty", "---\nname: f\n---\nuser:\nhi\n");
    let none = c.call(
        "textDocument/formatting",
        json!({"textDocument": {"uri": "file:///w/ok.prompty"}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(none, json!([]));
    c.shutdown();
}

#[test]
fn a_panic_is_an_error_response_and_the_server_keeps_running() {
    let mut c = Client::start(MapHost::new(), |o| o.panic_on = Some("textDocument/hover".to_owned()));
    c.open(URI, RICH);
    let r =
        c.request("textDocument/hover", json!({"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}));
    assert_eq!(r.pointer("/error/code"), Some(&json!(-32603)), "{r}");
    let message = r.pointer("/error/message").and_then(Value::as_str).unwrap_or_default();
    assert!(message.contains("internal error in textDocument/hover") && message.contains("keeps running"), "{message}");
    // Everything else still works.
    assert!(!labels(&c.at("textDocument/completion", URI, 23, 0)).is_empty());
    assert!(c.diagnostics(URI, Some(1)).is_empty());
    c.shutdown();

    // A panicking notification is logged; the server goes on.
    let mut c = Client::start(MapHost::new(), |o| o.panic_on = Some("textDocument/didSave".to_owned()));
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": URI}}));
    let log = c.notification("window/logMessage", |_| true);
    let message = log.pointer("/params/message").and_then(Value::as_str).unwrap_or_default();
    assert!(message.contains("textDocument/didSave: internal error"), "{message}");
    c.open(URI, "user:\n{{ x }}");
    assert_eq!(codes(&c.diagnostics(URI, Some(1))), ["PL001"]);
    c.shutdown();
}

#[test]
fn hostile_requests_get_errors_not_crashes() {
    let mut c = Client::start(MapHost::new(), |_| {});
    // Not open, bad params, unknown method, positions far outside the text.
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nope"}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(r.pointer("/error/code"), Some(&json!(-32602)), "{r}");
    let r = c.request("textDocument/hover", json!({"bogus": true}));
    assert_eq!(r.pointer("/error/code"), Some(&json!(-32602)), "{r}");
    let r = c.request("prompty/unknown", json!({}));
    assert_eq!(r.pointer("/error/code"), Some(&json!(-32601)), "{r}");
    c.open(URI, "---\nname: x\n---\nuser:\n{{ q }}😀");
    for (line, character) in [(0, 9999), (9999, 0), (4, 7), (4, 8), (u32::MAX, u32::MAX)] {
        for method in ["textDocument/hover", "textDocument/completion", "textDocument/definition"] {
            let r = c.request(
                method,
                json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}}),
            );
            assert!(r.get("error").is_none(), "{method} at {line}:{character}: {r}");
        }
    }
    // A change whose range is outside the text is clamped, not a crash.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 99, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "!"}
        ]}),
    );
    c.diagnostics(URI, Some(2));
    c.shutdown();
}

#[test]
fn every_feature_survives_hostile_documents() {
    let deep = format!(
        "---\ninputs:\n{}\n---\nuser:\n{{{{ x }}}}",
        (0..150).map(|i| format!("{}k{i}:", "  ".repeat(i + 1))).collect::<Vec<_>>().join("\n")
    );
    let huge = format!("user:\n{}", "x".repeat(prompty_syntax::MAX_FILE_BYTES));
    let texts: Vec<(&str, String)> = vec![
        ("empty", String::new()),
        ("byte-order mark", "\u{feff}---\nname: x\n---\nuser:\n{{ q }}".to_owned()),
        ("lone CR line endings", "---\rname: x\r---\ruser :\r{{ q }}\r\n".to_owned()),
        ("broken YAML, unclosed tag", "---\nname: [\n---\nuser:\n{{".to_owned()),
        ("unterminated front matter", "---\nname: x\ninputs:\n  q:\n    kind: ".to_owned()),
        ("dots everywhere", "user:\n{{ a.b.c.d.e.f }}{% for x in y %}{{ x. }}{{ . }}{{..}}".to_owned()),
        ("NUL byte", "user:\n\0{{ q }}".to_owned()),
        ("deep nesting", deep),
        ("surrogate pairs", "---\nname: 😀😀\ninputs:\n  q😀: {kind: string}\n---\n😀user:\n{{ q😀 }}😀".to_owned()),
        ("Mustache", "---\ntemplate: mustache\ninputs:\n  q: {kind: object}\n---\nuser:\n{{#q}}{{.}}{{/q}}{{^q}}{{! c }}{{&q}}{{{q}}}".to_owned()),
        ("over the size limit", huge),
    ];
    let mut c = Client::start(MapHost::new(), |_| {});
    for (i, (what, text)) in texts.iter().enumerate() {
        let uri = format!("file:///w/h{i}.prompty");
        c.open(&uri, text);
        c.diagnostics(&uri, Some(1));
        let lines = text.split(['\n', '\r']).count().min(12) as u32;
        for line in 0..=lines {
            for character in [0, 1, 2, 3, 4, 7, 200] {
                for method in [
                    "textDocument/hover",
                    "textDocument/completion",
                    "textDocument/definition",
                    "textDocument/prepareRename",
                ] {
                    let r = c.request(
                        method,
                        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
                    );
                    assert!(r.get("error").is_none(), "{what}: {method} at {line}:{character}: {r}");
                }
                let r = c.request(
                    "textDocument/references",
                    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}, "context": {"includeDeclaration": true}}),
                );
                assert!(r.get("error").is_none(), "{what}: references at {line}:{character}: {r}");
                // Rename answers with edits or says why not (a request failure), never crashes.
                let r = c.request(
                    "textDocument/rename",
                    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}, "newName": "renamed"}),
                );
                let code = r.pointer("/error/code").and_then(Value::as_i64);
                assert!(code.is_none() || code == Some(-32803), "{what}: rename at {line}:{character}: {r}");
            }
        }
        for method in ["textDocument/documentSymbol", "textDocument/foldingRange", "textDocument/semanticTokens/full"] {
            let r = c.request(method, json!({"textDocument": {"uri": uri}}));
            assert!(r.get("error").is_none(), "{what}: {method}: {r}");
        }
        let whole = json!({"start": {"line": 0, "character": 0}, "end": {"line": 9999, "character": 0}});
        let r = c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": whole, "context": {"diagnostics": []}}),
        );
        assert!(r.get("error").is_none(), "{what}: {r}");
        let r = c.request("textDocument/inlayHint", json!({"textDocument": {"uri": uri}, "range": whole}));
        assert!(r.get("error").is_none(), "{what}: {r}");
        let r = c.request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": true}}),
        );
        assert!(r.get("error").is_none(), "{what}: {r}");
        // Rendering may fail (an error response naming why), never crash.
        let r = c.request("workspace/executeCommand", json!({"command": "prompty.render", "arguments": [uri]}));
        let code = r.pointer("/error/code").and_then(Value::as_i64);
        assert!(code.is_none() || code == Some(-32803), "{what}: {r}");
        c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    }
    c.shutdown();
}

/// `line:character text` of a range of `text`.
fn show(text: &str, range: &Value) -> String {
    let n = |p: &str| range.pointer(p).and_then(Value::as_u64).unwrap_or(0) as usize;
    let at = |line: usize, ch: usize| {
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let l = &text[start..];
        let mut units = 0;
        start
            + l.char_indices()
                .find(|(_, c)| {
                    let done = units >= ch;
                    units += c.len_utf16();
                    done
                })
                .map_or(l.len(), |(i, _)| i)
    };
    let (a, b) = (at(n("/start/line"), n("/start/character")), at(n("/end/line"), n("/end/character")));
    format!("{}:{} {:?}", n("/start/line"), n("/start/character"), &text[a..b.max(a)])
}

const OUTLINE: &str = "---\nname: outline\nmodel:\n  id: gpt-4o\n  options:\n    temperature: 0\ninputs:\n  question:\n    kind: string\n  tone:\n    kind: string\n    enumValues: [short, long]\n---\nsystem[name=Bot]:\nAnswer in a {{ tone }} way. {# note\nspanning #}\n{% if question %}\nThe question: {{ question }}\n{% endif %}\n\nuser:\n{{ question }}\n";

#[test]
fn document_symbols() {
    let mut c = Client::start(MapHost::new(), |_| {});
    c.open(URI, OUTLINE);
    let symbols = c.call("textDocument/documentSymbol", json!({"textDocument": {"uri": URI}}));
    fn walk(text: &str, list: &Value, depth: usize, out: &mut String) {
        for s in list.as_array().into_iter().flatten() {
            let name = s.get("name").and_then(Value::as_str).unwrap_or_default();
            let detail = s.get("detail").and_then(Value::as_str).unwrap_or("");
            let kind = s.get("kind").and_then(Value::as_u64).unwrap_or(0);
            let sel = show(text, s.get("selectionRange").unwrap_or(&Value::Null));
            let range = s.get("range").cloned().unwrap_or_default();
            let lines = format!(
                "{}-{}",
                range.pointer("/start/line").unwrap_or(&json!(0)),
                range.pointer("/end/line").unwrap_or(&json!(0))
            );
            out.push_str(&format!(
                "{}{name} [{detail}] kind {kind}, lines {lines}, name at {sel}\n",
                "  ".repeat(depth)
            ));
            walk(text, s.get("children").unwrap_or(&Value::Null), depth + 1, out);
        }
    }
    let mut out = String::new();
    walk(OUTLINE, &symbols, 0, &mut out);
    insta::assert_snapshot!("document_symbols", out);
    c.shutdown();
}

#[test]
fn folding_ranges() {
    let mut c = Client::start(MapHost::new(), |_| {});
    c.open(URI, OUTLINE);
    let ranges = c.call("textDocument/foldingRange", json!({"textDocument": {"uri": URI}}));
    let lines: Vec<String> = OUTLINE.lines().map(str::to_owned).collect();
    let shown: Vec<String> = ranges
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let (a, b) = (r["startLine"].as_u64().unwrap_or(0) as usize, r["endLine"].as_u64().unwrap_or(0) as usize);
            format!("{a}-{b}: {:?} .. {:?}", lines[a], lines[b])
        })
        .collect();
    insta::assert_snapshot!("folding_ranges", shown.join("\n"));
    c.shutdown();
}

#[test]
fn semantic_tokens() {
    let mut c = Client::start(MapHost::new(), |_| {});
    c.open(URI, OUTLINE);
    let init_legend: Vec<String> = prompty_lsp::capabilities()["semanticTokensProvider"]["legend"]["tokenTypes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t.as_str().unwrap_or_default().to_owned())
        .collect();
    let tokens = c.call("textDocument/semanticTokens/full", json!({"textDocument": {"uri": URI}}));
    let data: Vec<u64> = tokens["data"].as_array().into_iter().flatten().filter_map(Value::as_u64).collect();
    assert_eq!(data.len() % 5, 0);
    let (mut line, mut ch) = (0u64, 0u64);
    let mut shown = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            line += t[0];
            ch = t[1];
        } else {
            ch += t[1];
        }
        let range = json!({"start": {"line": line, "character": ch}, "end": {"line": line, "character": ch + t[2]}});
        shown.push(format!("{} {}", show(OUTLINE, &range), init_legend[t[3] as usize]));
    }
    insta::assert_snapshot!("semantic_tokens", shown.join("\n"));
    c.shutdown();
}

#[test]
fn references_and_rename_of_an_input() {
    let mut c = Client::start(MapHost::new(), |_| {});
    c.open(URI, OUTLINE);
    // From a read in the template, and from the declaration.
    for (needle, skip) in [("{{ question }}\n{% endif", 3), ("question:\n    kind", 1)] {
        let (line, character) = pos(OUTLINE, needle, skip);
        let refs = c.call(
            "textDocument/references",
            json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}, "context": {"includeDeclaration": true}}),
        );
        let shown: Vec<String> = refs
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| show(OUTLINE, r.get("range").unwrap_or(&Value::Null)))
            .collect();
        assert_eq!(
            shown,
            ["7:2 \"question\"", "16:6 \"question\"", "17:17 \"question\"", "21:3 \"question\""],
            "{needle}"
        );
    }
    let (line, character) = pos(OUTLINE, "{{ question }}\n{% endif", 4);
    let refs = c.call(
        "textDocument/references",
        json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}, "context": {"includeDeclaration": false}}),
    );
    assert_eq!(refs.as_array().map(Vec::len), Some(3));
    // Plain text is no reference.
    let (line, character) = pos(OUTLINE, "Answer", 1);
    let none = c.call(
        "textDocument/references",
        json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}, "context": {"includeDeclaration": true}}),
    );
    assert_eq!(none, Value::Null);

    let (line, character) = pos(OUTLINE, "{{ tone }}", 4);
    let at = json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}});
    let prepared = c.call("textDocument/prepareRename", at.clone());
    assert_eq!(show(OUTLINE, &prepared), "14:15 \"tone\"");
    let mut params = at.clone();
    params["newName"] = json!("style");
    let edit = c.call("textDocument/rename", params);
    let edits = edit["changes"][URI].as_array().cloned().unwrap_or_default();
    let renamed = apply(OUTLINE, &edits);
    assert_eq!(renamed, OUTLINE.replace("  tone:", "  style:").replace("{{ tone }}", "{{ style }}"));
    // The renamed file loads with no new finding: every read found its input.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": renamed}]}),
    );
    assert_eq!(codes(&c.diagnostics(URI, Some(2))), Vec::<String>::new());

    // Refused: a name that is taken, a name that is not one, a name a loop binds.
    for (new_name, want) in [
        ("question", "an input named `question` already exists"),
        ("two words", "`two words` cannot name an input"),
        ("loop", "`loop` cannot name an input"),
    ] {
        let mut params = at.clone();
        params["position"] = json!({"line": 9, "character": 3});
        params["newName"] = json!(new_name);
        let r = c.request("textDocument/rename", params);
        let message = r.pointer("/error/message").and_then(Value::as_str).unwrap_or_default();
        assert!(message.contains(want), "{new_name}: {r}");
    }
    let looped = "---\ninputs:\n  x: {kind: array}\n  y: {kind: string}\n---\nuser:\n{% for y in x %}{{ y }}{% endfor %}{{ y }}\n";
    c.open("file:///w/loop.prompty", looped);
    let r = c.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": "file:///w/loop.prompty"}, "position": {"line": 3, "character": 2}, "newName": "z"}),
    );
    let message = r.pointer("/error/message").and_then(Value::as_str).unwrap_or_default();
    assert!(message.contains("the template binds a name `y` itself"), "{r}");
    c.shutdown();
}

#[test]
fn completion_of_model_ids_and_input_enum_values() {
    let mut c = Client::start(MapHost::new(), |_| {});
    let text = "---\nmodel:\n  provider: anthropic\n  id: cl\ninputs:\n  tone:\n    kind: string\n    enumValues: [short, long]\n    default: \n---\nuser:\nhi\n";
    c.open(URI, text);
    let (line, character) = pos(text, "id: cl", 6);
    let ids = labels(&c.at("textDocument/completion", URI, line, character));
    assert!(ids.contains(&"claude-sonnet-4-5".to_owned()), "{ids:?}");
    assert!(ids.iter().all(|i| i.starts_with("claude")), "the provider's models only: {ids:?}");
    let (line, character) = pos(text, "default: ", 9);
    assert_eq!(labels(&c.at("textDocument/completion", URI, line, character)), ["short", "long"]);
    let openai = "---\nmodel:\n  id: \n---\nuser:\nhi\n";
    c.open("file:///w/o.prompty", openai);
    let ids = labels(&c.at("textDocument/completion", "file:///w/o.prompty", 2, 6));
    assert!(ids.contains(&"gpt-4o".to_owned()) && ids.contains(&"claude-sonnet-4-5".to_owned()), "{ids:?}");
    c.shutdown();
}

const TOKENS: &str = "---\nmodel:\n  id: MODEL\ninputs:\n  city:\n    kind: string\n    default: Lisbon\n---\nsystem:\nYou are a travel guide.\n\nuser:\nWhat should I see in {{ city }}?\n";

/// `(line, character, label)` of each inlay hint of `text` (all of them: the whole range).
fn inlay_hints(text: &str) -> Vec<(u64, u64, String)> {
    let mut c = Client::start(MapHost::new(), |_| {});
    c.open(URI, text);
    let whole = json!({"start": {"line": 0, "character": 0}, "end": {"line": 9999, "character": 0}});
    let hints = c.call("textDocument/inlayHint", json!({"textDocument": {"uri": URI}, "range": whole}));
    c.shutdown();
    hints
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| {
            let at = |k: &str| h["position"][k].as_u64().unwrap_or(u64::MAX);
            (at("line"), at("character"), h["label"].as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

#[test]
fn inlay_hints_show_each_messages_tokens_beside_its_role_line() {
    assert_eq!(prompty_lsp::capabilities()["inlayHintProvider"], json!(true));
    let text = TOKENS.replace("MODEL", "gpt-4o");
    let model = prompty_tokens::lookup("gpt-4o");
    let expected = prompty_tokens::count_messages(
        &model,
        &[
            prompty_syntax::Message::text("system", "You are a travel guide."),
            prompty_syntax::Message::text("user", "What should I see in Lisbon?"),
        ],
    );
    let hints = inlay_hints(&text);
    let (fence, system, user) = (pos(&text, "---\nsystem", 0), pos(&text, "system:", 7), pos(&text, "user:", 5));
    let at = |(line, character): (u32, u32)| (u64::from(line), u64::from(character));
    let window = expected.context_window.unwrap_or(0);
    assert_eq!(
        hints,
        vec![
            (
                at(fence).0,
                at(fence).1 + 3,
                format!("{} tokens, {} of {window} left", expected.total, window - expected.total as u64)
            ),
            (at(system).0, at(system).1, format!("{} tokens", expected.messages[0].tokens)),
            (at(user).0, at(user).1, format!("{} tokens", expected.messages[1].tokens)),
        ]
    );
}

#[test]
fn inlay_hints_label_estimates_and_leave_out_role_lines_that_repeat() {
    let estimated = inlay_hints(&TOKENS.replace("MODEL", "claude-sonnet-4-5"));
    assert_eq!(estimated.len(), 3, "{estimated:?}");
    assert!(estimated.iter().all(|(_, _, label)| label.starts_with('≈')), "{estimated:?}");
    // A role line in a loop opens as many messages as the loop runs: the total only.
    let looped = "---\nmodel:\n  id: gpt-4o\n---\n{% for q in ['a', 'b'] %}\nuser:\n{{ q }}\n{% endfor %}\n";
    let hints = inlay_hints(looped);
    assert_eq!(hints.len(), 1, "{hints:?}");
    assert_eq!(hints[0].0, 3);
}
