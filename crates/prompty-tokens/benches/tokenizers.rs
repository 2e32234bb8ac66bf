//! Criterion benchmark of two implementations of the OpenAI encodings on the prompt files
//! of the corpus: this crate's and tiktoken-rs (the reference of the tests), both
//! encodings, counting only (this crate's memo of long texts bypassed). Each tokenizer
//! is loaded before its measurement; the time of that first load (the first call in the
//! process) is printed first.
//!
//! `cargo bench -p prompty-tokens --bench tokenizers`

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use prompty_test_support::prompt_files;
use prompty_tokens::Encoding;

fn benches(c: &mut Criterion) {
    let texts: Vec<String> = prompt_files().iter().map(|p| std::fs::read_to_string(p).expect("readable")).collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    for (name, load) in [
        ("prompty-tokens cl100k_base", (|| Encoding::Cl100kBase.count_uncached("a")) as fn() -> usize),
        ("prompty-tokens o200k_base", || Encoding::O200kBase.count_uncached("a")),
        ("tiktoken-rs cl100k_base", || tiktoken_rs::cl100k_base_singleton().encode_ordinary("a").len()),
        ("tiktoken-rs o200k_base", || tiktoken_rs::o200k_base_singleton().encode_ordinary("a").len()),
    ] {
        let start = Instant::now();
        black_box(load());
        println!("first load of {name}: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    }
    let cases: [(Encoding, &tiktoken_rs::CoreBPE); 2] = [
        (Encoding::Cl100kBase, tiktoken_rs::cl100k_base_singleton()),
        (Encoding::O200kBase, tiktoken_rs::o200k_base_singleton()),
    ];
    for (encoding, tiktoken) in cases {
        let mut g = c.benchmark_group(encoding.name());
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function("prompty-tokens", |b| {
            b.iter(|| texts.iter().map(|t| encoding.count_uncached(black_box(t))).sum::<usize>())
        });
        g.bench_function("tiktoken-rs", |b| {
            b.iter(|| texts.iter().map(|t| tiktoken.encode_ordinary(black_box(t)).len()).sum::<usize>())
        });
        g.finish();
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
