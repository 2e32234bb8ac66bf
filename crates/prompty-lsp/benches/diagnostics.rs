//! Diagnostics on a 1 MB document: the analysis the worker runs after a change (load, lint,
//! conversion to LSP diagnostics), the load alone, and the whole round trip through the
//! server with its default settings: a one-character incremental change after a pause in
//! typing, until its diagnostics arrive.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use lsp_server::{Connection, Message};
use prompty_lsp::{Analysis, Options, Workspace};
use prompty_syntax::MapHost;
use serde_json::{Value, json};

/// About 1 MB: front matter, then long messages with interpolations and non-ASCII text.
fn document() -> String {
    let mut text = String::from(
        "---\nname: big\ndescription: A long prompt.\ninputs:\n  question:\n    kind: string\n    default: Why?\n  context:\n    kind: string\n    default: none\nmodel:\n  id: gpt-4o\n---\nsystem:\nYou answer questions.\n",
    );
    let mut i = 0;
    while text.len() < 1_000_000 {
        if i % 200 == 0 {
            text.push_str(if i % 400 == 0 { "user:\n" } else { "assistant:\n" });
        }
        text.push_str(&format!(
            "Line {i}: the context says {{{{ context }}}} — ünïcödé 😀; the question is {{{{ question }}}} ({{{{ topic }}}}).\n"
        ));
        i += 1;
    }
    text
}

fn bench(c: &mut Criterion) {
    let text = document();
    let workspace = Workspace::new(Arc::new(MapHost::new()));
    let mut group = c.benchmark_group("diagnostics_1mb");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.bench_function("analysis", |b| {
        b.iter(|| {
            let a = Analysis::new(&workspace, Arc::from(text.as_str()), None);
            prompty_lsp::diagnostics::all(&a, prompty_lsp::diagnostics::DEFAULT_DOCS_URL)
        });
    });

    group.bench_function("load_only", |b| {
        b.iter(|| prompty_lsp::Snapshot::new(&workspace, Arc::from(text.as_str()), None));
    });

    let (server, client) = Connection::memory();
    let options = Options::new(workspace.clone());
    let pause = options.debounce;
    let handle = std::thread::spawn(move || prompty_lsp::run(&server, options));
    let send = |v: Value| client.sender.send(serde_json::from_value::<Message>(v).expect("message")).expect("send");
    let published = |version: i64| loop {
        let msg = client.receiver.recv_timeout(Duration::from_secs(60)).expect("diagnostics in time");
        let v = serde_json::to_value(msg).expect("json");
        if v.get("method") == Some(&json!("textDocument/publishDiagnostics"))
            && v.pointer("/params/version") == Some(&json!(version))
        {
            return v;
        }
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}));
    let _ = client.receiver.recv();
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let uri = "file:///big.prompty";
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "prompty", "version": 1, "text": text}}}),
    );
    let first = published(1);
    assert!(first.pointer("/params/diagnostics/0").is_some(), "the document has findings");
    let mut version = 1;
    group.bench_function("change_to_diagnostics", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                // A pause in typing longer than the debounce, outside the measurement.
                std::thread::sleep(pause);
                version += 1;
                // Type one character in the middle of the document.
                let start = Instant::now();
                send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {"start": {"line": 5000, "character": 5}, "end": {"line": 5000, "character": 5}}, "text": "x"}]
                }}));
                published(version);
                total += start.elapsed();
            }
            total
        });
    });
    group.finish();
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    let _ = client.receiver.recv();
    send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let _ = handle.join();
}

criterion_group!(benches, bench);
criterion_main!(benches);
