//! Criterion benchmarks on the workloads of `shared/bench/` (read at bench time from
//! `../shared/bench` beside the workspace; a missing folder fails the run): load, render,
//! prepare on a preloaded prompt, load+prepare, and the baseline, a bare minijinja render
//! of the same body with the same settings followed by a line split, measured in the same
//! run. After the run, a table gives every case as a ratio of that baseline.
//!
//! `cargo bench -p prompty-render --bench render`

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput};
use prompty_render::Renderer;
use prompty_syntax::{LoadOptions, MapHost, Profile, Prompt, load_str};
use serde_json::{Map, Value};

/// The workloads: the v1 judge (the performance target), its v2 twin, and the basic prompt
/// in both versions.
const WORKLOADS: &[&str] = &["judge_v1", "judge_v2", "basic", "basic_v1"];
const CASES: &[&str] = &["bare minijinja render+split", "load", "render", "prepare", "load+prepare"];

fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench")
}

struct Workload {
    name: String,
    path: PathBuf,
    text: String,
    inputs: Map<String, Value>,
}

fn workloads() -> Vec<Workload> {
    let dir = bench_dir();
    let list = dir.join("inputs.json");
    let text = std::fs::read_to_string(&list).unwrap_or_else(|e| {
        panic!(
            "benchmark workloads missing: cannot read {}: {e} (shared/bench must sit beside the workspace)",
            list.display()
        )
    });
    let all: Vec<Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", list.display()));
    WORKLOADS
        .iter()
        .map(|name| {
            let w = all
                .iter()
                .find(|w| w["name"].as_str() == Some(name))
                .unwrap_or_else(|| panic!("workload {name} is missing from {}", list.display()));
            let path = dir.join(w["path"].as_str().unwrap_or_else(|| panic!("workload {name} has no path")));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let inputs = w["inputs"].as_object().cloned().unwrap_or_default();
            Workload { name: (*name).to_owned(), path, text, inputs }
        })
        .collect()
}

/// The inputs with declared defaults filled in, so the bare engine renders the same text.
fn with_defaults(prompt: &Prompt, inputs: &Map<String, Value>) -> Map<String, Value> {
    let mut out = inputs.clone();
    for p in prompt.inputs.iter().flatten() {
        if let (false, Some(d)) = (out.contains_key(&p.name), &p.default) {
            out.insert(p.name.clone(), d.clone());
        }
    }
    out
}

fn bare_env(prompt: &Prompt) -> minijinja::Environment<'static> {
    let mut env = minijinja::Environment::new();
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .keep_trailing_newline(true)
        .trim_blocks(prompt.profile == Profile::Promptflow)
        .build()
        .expect("syntax");
    env.set_syntax(syntax);
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env.add_template_owned("t", prompt.instructions.clone().unwrap_or_default()).expect("compiles");
    env
}

fn benches(c: &mut Criterion) {
    let host = MapHost::new().with_env("OPENAI_API_KEY", "sk-bench");
    for w in workloads() {
        let opts = LoadOptions { path: Some(w.path.clone()), ..LoadOptions::default() };
        let loaded = load_str(&w.text, &host, &opts);
        assert!(!loaded.has_errors(), "{}: {:?}", w.name, loaded.diagnostics);
        let prompt = loaded.prompt.expect("a prompt");
        let bare = bare_env(&prompt);
        let bare_inputs = with_defaults(&prompt, &w.inputs);
        let renderer = Renderer::new(prompt).expect("compiles");
        let rendered = renderer.render_text(&w.inputs).expect("renders");

        let mut g = c.benchmark_group(&w.name);
        g.throughput(Throughput::Bytes(rendered.len() as u64));
        g.bench_function(CASES[0], |b| {
            let tmpl = bare.get_template("t").expect("template");
            b.iter(|| {
                let out = tmpl.render(minijinja::Value::from(minijinja::value::Serde(&bare_inputs))).expect("renders");
                black_box(out.lines().collect::<Vec<&str>>().len())
            })
        });
        g.bench_function(CASES[1], |b| b.iter(|| black_box(load_str(black_box(&w.text), &host, &opts))));
        g.bench_function(CASES[2], |b| b.iter(|| black_box(renderer.render_text(&w.inputs).expect("renders"))));
        g.bench_function(CASES[3], |b| b.iter(|| black_box(renderer.prepare(&w.inputs).expect("prepares"))));
        g.bench_function(CASES[4], |b| {
            b.iter(|| {
                let prompt = load_str(black_box(&w.text), &host, &opts).prompt.expect("a prompt");
                black_box(Renderer::new(prompt).expect("compiles").prepare(&w.inputs).expect("prepares"))
            })
        });
        g.finish();
    }
}

/// Reads criterion's point estimate (mean, ns) of one benchmark from its output folder.
fn estimate(root: &Path, group: &str, case: &str) -> Option<f64> {
    let dir = root.join(group).join(case).join("new/estimates.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir).ok()?).ok()?;
    v["mean"]["point_estimate"].as_f64()
}

fn ratio_table() {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"), PathBuf::from);
    let root = std::env::var_os("CRITERION_HOME").map_or_else(|| target.join("criterion"), PathBuf::from);
    println!("\nthroughput as a ratio of the bare minijinja render+split measured in this run:");
    println!("| workload | case | ops/s | ratio |");
    println!("|---|---|---:|---:|");
    for w in WORKLOADS {
        let Some(base) = estimate(&root, w, CASES[0]) else {
            println!("(no estimates under {})", root.display());
            return;
        };
        for case in CASES {
            if let Some(ns) = estimate(&root, w, case) {
                println!("| {w} | {case} | {:.0} | {:.2} |", 1e9 / ns, base / ns);
            }
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
    ratio_table();
}
