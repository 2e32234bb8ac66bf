//! The benchmark workloads of `shared/bench/inputs.json`: each names a `.prompty` file
//! (relative to that folder) and the inputs to render it with.

use std::path::{Path, PathBuf};

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

/// `shared/bench/`, beside the project: `$PROMPTY_BENCH_DIR`, or `../shared/bench` from the
/// workspace root.
pub fn bench_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PROMPTY_BENCH_DIR") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench")
}

/// Reads the named workloads (all of them when `names` is empty), in the order given.
///
/// # Panics
///
/// When the folder, a named workload or its file is missing: a benchmark without its
/// workloads measures nothing.
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

/// `inputs` with `defaults` filled in for the names not given: what a bare template
/// engine needs to render the same text as the pipeline, which applies the declared
/// defaults itself.
pub fn with_defaults<'a>(
    inputs: &Map<String, Value>,
    defaults: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> Map<String, Value> {
    let mut out = inputs.clone();
    for (name, value) in defaults {
        if !out.contains_key(name) {
            out.insert(name.to_owned(), value.clone());
        }
    }
    out
}

/// The baseline engine of the benchmarks: a plain minijinja environment (the fork the
/// renderer uses) with the reference engine's settings for `profile` (the trailing newline
/// kept; blocks trimmed in the promptflow profile), `body` compiled as the template `t`.
/// Panics when the body does not compile.
pub fn bare_env(body: String, profile: prompty_syntax::Profile) -> minijinja::Environment<'static> {
    let mut env = minijinja::Environment::new();
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .keep_trailing_newline(true)
        .trim_blocks(profile == prompty_syntax::Profile::Promptflow)
        .build()
        .expect("the reference engine's syntax settings are valid");
    env.set_syntax(syntax);
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env.add_template_owned("t", body).expect("the benchmark's body compiles");
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_workloads_are_readable() {
        let all = workloads(&[]);
        assert!(all.len() >= 3, "{} workloads", all.len());
        assert!(all.iter().all(|w| !w.text.is_empty()));
        let judge = workloads(&["judge_v1"]);
        assert_eq!(judge.len(), 1);
        assert_eq!(judge[0].name, "judge_v1");
    }

    #[test]
    fn defaults_fill_only_what_is_missing() {
        let given = serde_json::json!({"a": 1}).as_object().cloned().unwrap_or_default();
        let (one, two) = (Value::from(10), Value::from(2));
        let out = with_defaults(&given, [("a", &one), ("b", &two)]);
        assert_eq!(Value::Object(out), serde_json::json!({"a": 1, "b": 2}));
    }
}
