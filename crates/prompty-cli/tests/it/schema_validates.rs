//! `prompty schema` against every prompt we have: each front matter in `prompts/`, the lint
//! fixtures that load cleanly and the conformance folders validates, and the schema closes
//! the objects the loader checks keys of (a misspelt key fails validation).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn prompt_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            prompt_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "prompty") {
            out.push(path);
        }
    }
}

/// The schema as `prompty schema` prints it, compiled.
fn validator() -> jsonschema::Validator {
    let out = Command::new(env!("CARGO_BIN_EXE_prompty")).arg("schema").output().expect("prompty schema runs");
    let schema: Value = serde_json::from_slice(&out.stdout).expect("the schema is JSON");
    jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(&schema).expect("the schema compiles")
}

/// The front matter of `text` as JSON (as written: references unresolved).
fn front_matter(text: &str) -> Option<Value> {
    let parts = prompty_syntax::split::split(text).ok()?;
    let fm = parts.front_matter?;
    Some(prompty_syntax::yaml::parse(text, fm.span.start, fm.text).ok()?.to_json())
}

#[test]
fn every_prompt_validates_against_the_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    prompt_files(&root.join("prompts"), &mut files);
    prompt_files(&root.join("../shared/conformance/prompty-spec"), &mut files);
    prompt_files(&root.join("../shared/conformance/azure-eval/prompts"), &mut files);
    assert!(files.len() >= 40, "only {} prompt files found", files.len());
    let validator = validator();
    let mut failures = Vec::new();
    let mut validated = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("UTF-8 prompt");
        let Some(front) = front_matter(&text) else { continue };
        validated += 1;
        for e in validator.iter_errors(&front) {
            failures.push(format!("{}: {e} at {}", file.display(), e.instance_path()));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(validated >= 40, "only {validated} front matters validated");
}

#[test]
fn misspelt_keys_fail_validation_where_the_loader_warns() {
    let validator = validator();
    let good = json!({
        "name": "t",
        "model": {"id": "gpt-4o", "connection": {"kind": "key", "endpoint": "https://x"}, "options": {"temperature": 0}},
        "inputs": {"q": {"kind": "string", "default": "x"}},
        "template": {"format": {"kind": "mustache", "strict": true}, "parser": "prompty"},
        "metadata": {"anything": 1, "evaluator": {"range": [1, 5], "threshold": 3, "scoreKey": ["score"]}},
    });
    assert!(validator.is_valid(&good), "{:?}", validator.iter_errors(&good).map(|e| e.to_string()).collect::<Vec<_>>());
    for (path, key) in [
        ("", "nmae"),
        ("/model", "provder"),
        ("/model/connection", "apikey"),
        ("/model/options", "temprature"),
        ("/inputs/q", "defualt"),
        ("/template", "engine"),
        ("/template/format", "stict"),
        ("/metadata/evaluator", "thresold"),
    ] {
        let mut bad = good.clone();
        bad.pointer_mut(path).and_then(Value::as_object_mut).expect(path).insert(key.to_owned(), json!(1));
        assert!(!validator.is_valid(&bad), "`{key}` under `{path}` validates");
    }
}
