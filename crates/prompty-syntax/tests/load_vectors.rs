//! Runs every vector of the Prompty spec's `load.json` and reports each by name.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_syntax::{Diagnostic, LoadOptions, MapHost, load_path};
use serde_json::{Value, json};

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/prompty-spec")
}

/// Cases we deliberately do not pass, each tied to docs/compatibility.md.
const WAIVERS: &[(&str, &str)] = &[];

fn main() {
    let args = Arguments::from_args();
    let dir = spec_dir();
    let text = std::fs::read_to_string(dir.join("vectors/load.json")).unwrap_or_else(|e| {
        panic!("conformance data missing: cannot read {}: {e}", dir.join("vectors/load.json").display())
    });
    let vectors: Vec<Value> = serde_json::from_str(&text).expect("load.json is JSON");
    assert_eq!(vectors.len(), 28, "load.json should hold 28 vectors");
    let trials = vectors
        .into_iter()
        .map(|v| {
            let name = v["name"].as_str().unwrap_or("?").to_owned();
            let waived = WAIVERS.iter().any(|(n, _)| *n == name);
            Trial::test(format!("load::{name}"), move || run(&v)).with_ignored_flag(waived)
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    eprintln!("load vectors: {} passed, {} failed", conclusion.num_passed, conclusion.num_failed);
    conclusion.exit();
}

fn run(v: &Value) -> Result<(), Failed> {
    let input = &v["input"];
    let expected = &v["expected"];
    let root = PathBuf::from("/vectors");
    let dir = match input["agent_subdir"].as_str() {
        Some(sub) => root.join(sub),
        None => root.clone(),
    };
    let mut host = MapHost::new();
    for (k, val) in input["env"].as_object().into_iter().flatten() {
        host = host.with_env(k, val.as_str().unwrap_or_default());
    }
    for (rel, content) in input["files"].as_object().into_iter().flatten() {
        let text = match content {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        host = host.with_file(dir.join(rel), &text);
    }
    let file = if let Some(fixture) = input["fixture"].as_str() {
        let path = spec_dir().join("fixtures").join(fixture);
        if let Ok(text) = std::fs::read_to_string(&path) {
            host = host.with_file(dir.join(fixture), &text);
        }
        dir.join(fixture)
    } else if let Some(raw) = input["frontmatter_raw"].as_str() {
        host = host.with_file(dir.join("vector.prompty"), raw);
        dir.join("vector.prompty")
    } else {
        // JSON is YAML: write the front matter object as a flow mapping.
        let text = format!("---\n{}\n---\nsystem:\nYou are helpful.\n", input["frontmatter"]);
        host = host.with_file(dir.join("vector.prompty"), &text);
        dir.join("vector.prompty")
    };
    // The spec's loader needs every `${env:}` variable at load time; ours waits for a
    // request to need a connection's (docs/compatibility.md), unless told otherwise.
    let spec_loader = LoadOptions { require_env: true, ..LoadOptions::default() };
    let outcome = load_path(&file, &host, &spec_loader).map_err(|e| e.to_string()).and_then(|loaded| {
        match loaded.into_result() {
            Ok((prompt, _)) => Ok(prompt),
            Err(diags) => Err(diags.iter().map(Diagnostic::to_string_plain).collect::<Vec<_>>().join("; ")),
        }
    });
    if let Some(token) = expected.get("error").and_then(Value::as_str) {
        let message = match outcome {
            Ok(prompt) => match input.get("inputs").and_then(Value::as_object) {
                Some(given) => match prompt.validate_inputs(given) {
                    Ok(v) => return Err(format!("expected error {token:?}, got inputs {v:?}").into()),
                    Err(e) => e.to_string(),
                },
                None => return Err(format!("expected error {token:?}, but it loaded").into()),
            },
            Err(e) => e,
        };
        if !error_matches(token, &message) {
            return Err(format!("expected error {token:?}, got {message:?}").into());
        }
        if let Some(field) = expected.get("error_field").and_then(Value::as_str)
            && !message.contains(field)
        {
            return Err(format!("error should name {field:?}: {message:?}").into());
        }
        return Ok(());
    }
    let prompt = outcome.map_err(|e| format!("load failed: {e}"))?;
    let mut actual = serde_json::to_value(&prompt).map_err(|e| e.to_string())?;
    if let Some(given) = input.get("inputs").and_then(Value::as_object) {
        let validated = prompt.validate_inputs(given).map_err(|e| e.to_string())?;
        if let Value::Object(m) = &mut actual {
            m.insert("validated_inputs".into(), Value::Object(validated));
        }
    }
    compare(expected, &actual, "$").map_err(Failed::from)
}

trait Plain {
    fn to_string_plain(&self) -> String;
}

impl Plain for Diagnostic {
    fn to_string_plain(&self) -> String {
        format!("{} [{}] {}", self.code, self.code.name, self.message)
    }
}

/// The harness's fuzzy error match: by substring, or by category.
fn error_matches(token: &str, message: &str) -> bool {
    let lower = message.to_lowercase();
    match token {
        "invalid frontmatter" => {
            ["yaml-syntax", "unterminated-front-matter", "front-matter-not-mapping", "duplicate-key"]
                .iter()
                .any(|c| message.contains(c))
        }
        "FileNotFoundError" => lower.contains("not found"),
        other => message.contains(other),
    }
}

/// Compares only the keys present in `expected`; a missing key counts as null.
fn compare(expected: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                compare(ev, a.get(k).unwrap_or(&Value::Null), &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        (Value::Object(e), Value::Null) if e.is_empty() => Ok(()),
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!("{path}: expected {} items, got {}: {}", e.len(), a.len(), json!(a)));
            }
            e.iter().zip(a).enumerate().try_for_each(|(i, (ev, av))| compare(ev, av, &format!("{path}[{i}]")))
        }
        (Value::Number(e), Value::Number(a)) => {
            let (e, a) = (e.as_f64().unwrap_or(f64::NAN), a.as_f64().unwrap_or(f64::NAN));
            if (e - a).abs() <= 1e-6 { Ok(()) } else { Err(format!("{path}: expected {e}, got {a}")) }
        }
        (e, a) if e == a => Ok(()),
        (e, a) => Err(format!("{path}: expected {e}, got {a}")),
    }
}
