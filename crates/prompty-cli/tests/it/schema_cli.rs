//! `prompty schema`: the front matter schema editors use, with prompty-eval's
//! `metadata.evaluator` fragment; the bundled prompts validate against it, and it refuses
//! what the loader and the evaluator refuse.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

fn schema() -> jsonschema::Validator {
    let out = Command::new(env!("CARGO_BIN_EXE_prompty")).arg("schema").output().expect("the prompty binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let schema: Value = serde_json::from_slice(&out.stdout).expect("the schema is JSON");
    jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(&schema).expect("the schema compiles")
}

/// The front matter of a `.prompty` file as JSON.
fn front_matter(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("readable");
    let split = prompty_syntax::split::split(&text).expect("splits");
    let fm = split.front_matter.expect("has front matter");
    prompty_syntax::yaml::parse(&text, fm.span.start, fm.text).expect("parses").to_json()
}

#[test]
fn the_bundled_prompts_validate_with_their_evaluator_blocks() {
    let validator = schema();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../prompts");
    let mut checked = 0;
    let mut with_block = 0;
    for entry in std::fs::read_dir(&dir).expect("prompts/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "prompty") {
            continue;
        }
        let fm = front_matter(&path);
        let errors: Vec<String> =
            validator.iter_errors(&fm).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{}: {}", path.display(), errors.join("; "));
        checked += 1;
        with_block += usize::from(fm.pointer("/metadata/evaluator").is_some());
    }
    assert!(checked >= 5 && with_block >= 1, "{checked} prompts, {with_block} with an evaluator block");
}

#[test]
fn every_evaluator_key_is_described_and_others_are_refused() {
    let validator = schema();
    let full = json!({"metadata": {"evaluator": {
        "resultKey": "coherence", "answer": "tags", "range": [1, 5], "validateRange": true,
        "threshold": 3, "direction": "higher", "scoreKey": "score", "reasonKey": ["explanation", "reason"],
        "propertiesKey": ["properties"], "labelKey": "label", "statusKey": "status", "scoreType": "int",
        "strict": false, "compat": "coherence"
    }}});
    let errors: Vec<String> = validator.iter_errors(&full).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    // The same block is what the evaluator reads.
    assert!(prompty_eval::EvaluatorConfig::from_metadata(&full["metadata"]).is_ok());
    for bad in [
        json!({"metadata": {"evaluator": {"thresold": 3}}}),
        json!({"metadata": {"evaluator": {"answer": "xml"}}}),
        json!({"metadata": {"evaluator": {"scoreType": "double"}}}),
        json!({"model": {"options": {"temprature": 0}}}),
        json!({"template": {"format": "jinja2", "parsr": "prompty"}}),
    ] {
        assert!(!validator.is_valid(&bad), "{bad} should not validate");
    }
}
