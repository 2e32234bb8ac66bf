//! Shared pieces of the side-by-side benchmarks: the workloads of `shared/bench/` and a
//! small interleaved timing loop.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

/// One workload of `shared/bench/inputs.json`.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Its name in `inputs.json`.
    pub name: String,
    /// The `.prompty` file.
    pub path: PathBuf,
    /// The file's text.
    pub text: String,
    /// The inputs to render with.
    pub inputs: Map<String, Value>,
}

/// `shared/bench/`, beside the project: `$PROMPTY_BENCH_DIR` or `../shared/bench` from the
/// workspace root. Panics with a clear message when it is missing: a benchmark without
/// its workloads measures nothing.
pub fn bench_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PROMPTY_BENCH_DIR") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench")
}

/// Reads the named workloads (all of them when `names` is empty), in the order given.
pub fn workloads(names: &[&str]) -> Vec<Workload> {
    let dir = bench_dir();
    let list = dir.join("inputs.json");
    let text = std::fs::read_to_string(&list).unwrap_or_else(|e| {
        panic!(
            "benchmark workloads missing: cannot read {}: {e} (shared/bench must sit beside the project)",
            list.display()
        )
    });
    let all: Vec<Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", list.display()));
    let mut out = Vec::new();
    let wanted: Vec<&str> =
        if names.is_empty() { all.iter().filter_map(|w| w["name"].as_str()).collect() } else { names.to_vec() };
    for name in wanted {
        let entry = all
            .iter()
            .find(|w| w["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("workload {name} is not in {}", list.display()));
        let rel = entry["path"].as_str().unwrap_or_else(|| panic!("workload {name} has no path"));
        let path = dir.join(rel);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read workload {}: {e}", path.display()));
        let inputs = entry["inputs"].as_object().cloned().unwrap_or_default();
        out.push(Workload { name: name.to_owned(), path, text, inputs });
    }
    out
}

/// Runs `f` repeatedly for about `budget` and returns operations per second.
pub fn ops_per_sec<T>(budget: Duration, f: &mut dyn FnMut() -> T) -> f64 {
    // Calibrate a batch that takes about a millisecond, so the clock is read rarely.
    let mut batch = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..batch {
            black_box(f());
        }
        if t.elapsed() >= Duration::from_millis(1) || batch >= 1 << 20 {
            break;
        }
        batch *= 2;
    }
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < budget {
        for _ in 0..batch {
            black_box(f());
        }
        n += batch;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

/// The median of `xs` (which must not be empty).
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 { xs[n / 2] } else { (xs[n / 2 - 1] + xs[n / 2]) / 2.0 }
}

/// `inputs` with the declared defaults of `prompt` filled in for inputs not given: what a
/// bare template engine needs to render the same text as the pipeline.
pub fn with_defaults(prompt: &prompty_syntax::Prompt, inputs: &Map<String, Value>) -> Map<String, Value> {
    let mut out = inputs.clone();
    for p in prompt.inputs.iter().flatten() {
        if let (false, Some(d)) = (out.contains_key(&p.name), &p.default) {
            out.insert(p.name.clone(), d.clone());
        }
    }
    out
}
