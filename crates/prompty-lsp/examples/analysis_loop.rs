//! The language server's analysis of the 1 MB document of `benches/diagnostics.rs` (load,
//! lint, conversion to LSP diagnostics) after an edit, in a loop, for instruction counts:
//! run it under callgrind with N and with 0 rounds; the difference divided by N is one
//! analysis after a one-character edit (both runs first analyse the document as opened).
//!
//! ```text
//! CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release -p prompty-lsp --example analysis_loop
//! valgrind --tool=callgrind target/release/examples/analysis_loop 3
//! ```
//!
//! `analysis_loop --write FILE` writes the document to FILE instead (for `prompty check`).

use std::hint::black_box;
use std::sync::Arc;

use prompty_lsp::{Analysis, Workspace};
use prompty_syntax::MapHost;

/// The benchmark's document: front matter, then about 1 MB of messages with three
/// interpolations per line (one undeclared), non-ASCII text and emoji.
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path] = args.as_slice()
        && flag == "--write"
    {
        if let Err(e) = std::fs::write(path, document()) {
            eprintln!("error: {path}: {e}");
            std::process::exit(2);
        }
        return;
    }
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or_else(|| {
        eprintln!("usage: analysis_loop N");
        std::process::exit(2)
    });
    let mut text = document();
    let workspace = Workspace::new(Arc::new(MapHost::new()));
    let analyze = |text: &str| {
        let a = Analysis::new(&workspace, Arc::from(black_box(text)), None);
        black_box(prompty_lsp::diagnostics::all(&a, prompty_lsp::diagnostics::DEFAULT_DOCS_URL));
    };
    // The document as opened (in the runs with N rounds and with none alike, so that their
    // difference is N edits): the tokenizer's table is loaded and every message counted.
    analyze(&text);
    // Each round is an edit, as in an editor: one character typed in the middle of the
    // document (a different one each time), then the analysis of the new text.
    let middle = text.len() / 2;
    let at = (middle..text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(middle);
    let started = std::time::Instant::now();
    for round in 0..n {
        text.insert(at, char::from(b'a' + (round % 26) as u8));
        analyze(&text);
    }
    if n > 0 {
        eprintln!("{:.1} ms per analysis after an edit", started.elapsed().as_secs_f64() * 1000.0 / n as f64);
    }
}
