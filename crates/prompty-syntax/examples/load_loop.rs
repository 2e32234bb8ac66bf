//! `load_str` in a loop, for instruction counts: run it under callgrind twice, with N and
//! with 0 calls, and the difference divided by N is the cost of one load.
//!
//! ```text
//! CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release -p prompty-syntax --example load_loop
//! valgrind --tool=callgrind target/release/examples/load_loop FILE.prompty 1000
//! ```
//!
//! `${env:OPENAI_API_KEY}` resolves to a fixed value, as in the benchmarks.

use std::hint::black_box;

use prompty_syntax::{LoadOptions, MapHost, load_str};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, n] = args.as_slice() else {
        eprintln!("usage: load_loop FILE.prompty N");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| fail(&format!("{file}: {e}")));
    let n: usize = n.parse().unwrap_or_else(|_| fail("N must be a number"));
    let host = MapHost::new().with_env("OPENAI_API_KEY", "sk-bench");
    let opts = LoadOptions { path: Some(file.into()), ..LoadOptions::default() };
    let first = load_str(&text, &host, &opts);
    if first.prompt.is_none() {
        fail(&format!("{file} does not load: {:?}", first.diagnostics));
    }
    for _ in 0..n {
        black_box(load_str(black_box(&text), &host, &opts));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2)
}
