//! Shared pieces of the side-by-side benchmarks: the workloads of `shared/bench/` and a
//! small interleaved timing loop.

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

pub use prompty_test_support::bench::{Workload, bare_env, bench_dir, workloads};

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
    let declared = prompt.inputs.iter().flatten().filter_map(|p| Some((p.name.as_str(), p.default.as_ref()?)));
    prompty_test_support::bench::with_defaults(inputs, declared)
}
