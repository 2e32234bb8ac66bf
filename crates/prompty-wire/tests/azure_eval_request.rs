//! The requests promptflow-core sends for the azure-ai-evaluation judge prompts (v1).
//!
//! For each case `azure-eval/inputs/X.json` (`X = <version>__<evaluator>__<file>__<scenario>`)
//! the prompt `azure-eval/prompts/<version>__<evaluator>__<file>.prompty` is loaded and
//! rendered with the case's inputs through prompty-render, then compiled for the judge
//! deployment.
//! The body without `messages` must equal `expected-request/X.json` without
//! `extra_headers` (the client's, not the prompt's), keys in the same order and numbers
//! written the same way; the compiled `messages` must serialize to `expected/X.json`
//! byte for byte.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_syntax::Message;
use prompty_syntax::{LoadOptions, MapHost, Prompt, load_str};
use prompty_wire::{Target, compile};
use serde_json::{Map, Value};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/azure-eval");

/// The deployment name the reference requests were captured with.
const JUDGE_DEPLOYMENT: &str = "judge-deployment";

fn main() {
    let args = Arguments::from_args();
    let inputs = Path::new(DATA).join("inputs");
    let mut cases: Vec<String> = std::fs::read_dir(&inputs)
        .unwrap_or_else(|e| panic!("conformance data missing: cannot list {}: {e}", inputs.display()))
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.strip_suffix(".json").map(str::to_owned))
        .collect();
    cases.sort();
    assert_eq!(cases.len(), 46, "azure-eval/inputs should hold 46 cases");
    let trials = cases.into_iter().map(|case| Trial::test(format!("request::{case}"), move || run(&case))).collect();
    let conclusion = libtest_mimic::run(&args, trials);
    eprintln!("azure-eval requests: {} passed, {} failed", conclusion.num_passed, conclusion.num_failed);
    conclusion.exit();
}

fn read(path: &Path) -> Result<String, Failed> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("conformance data missing: cannot read {}: {e}", path.display()).into())
}

fn run(case: &str) -> Result<(), Failed> {
    let parts: Vec<&str> = case.splitn(4, "__").collect();
    let [version, evaluator, file, _scenario] = parts.as_slice() else {
        return Err(format!("case `{case}` is not named <version>__<evaluator>__<file>__<scenario>").into());
    };
    let prompt_path: PathBuf = [DATA, "prompts", &format!("{version}__{evaluator}__{file}.prompty")].iter().collect();
    let loaded = load_str(&read(&prompt_path)?, &MapHost::new(), &LoadOptions::default());
    let (prompt, _) = loaded.into_result().map_err(|diags| {
        let errors: Vec<String> = diags.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
        format!("{} does not load: {}", prompt_path.display(), errors.join("; "))
    })?;
    let expected_messages = read(&Path::new(DATA).join("expected").join(format!("{case}.json")))?;
    let expected_request: Value =
        serde_json::from_str(&read(&Path::new(DATA).join("expected-request").join(format!("{case}.json")))?)
            .map_err(|e| format!("expected-request/{case}.json is not JSON: {e}"))?;
    let inputs: Value = serde_json::from_str(&read(&Path::new(DATA).join("inputs").join(format!("{case}.json")))?)
        .map_err(|e| format!("inputs/{case}.json is not JSON: {e}"))?;
    let inputs = inputs.as_object().ok_or_else(|| format!("inputs/{case}.json is not an object"))?;
    let renderer = prompty_render::Renderer::new(prompt).map_err(|e| format!("the prompt does not compile: {e}"))?;
    let messages = renderer.prepare(inputs).map_err(|e| format!("rendering failed: {e}"))?;
    check_request(renderer.prompt(), &messages, &expected_request, &expected_messages)
}

/// Compiles `messages` for the judge deployment and compares the request with
/// promptflow's: every key but `messages` against `expected_request` (minus
/// `extra_headers`), and the `messages` serialization against `expected_messages`.
fn check_request(
    prompt: &Prompt,
    messages: &[Message],
    expected_request: &Value,
    expected_messages: &str,
) -> Result<(), Failed> {
    let compiled = compile(prompt, messages, Target::new().with_model(JUDGE_DEPLOYMENT))
        .map_err(|e| format!("compile failed: {e}"))?;
    if !compiled.warnings.is_empty() {
        let all: Vec<String> = compiled.warnings.iter().map(ToString::to_string).collect();
        return Err(format!("unexpected warnings: {}", all.join("; ")).into());
    }
    let Value::Object(mut body) = compiled.body else {
        return Err("the compiled body is not an object".into());
    };
    let got_messages = body.shift_remove("messages").ok_or("the compiled body has no `messages`")?;
    let expected: Map<String, Value> = expected_request
        .as_object()
        .ok_or("expected-request is not an object")?
        .iter()
        .filter(|(k, _)| *k != "extra_headers")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let got = serde_json::to_string(&body)?;
    let want = serde_json::to_string(&expected)?;
    if got != want {
        return Err(format!("request differs\n--- expected\n{want}\n--- compiled\n{got}").into());
    }
    let got = serde_json::to_string_pretty(&got_messages)? + "\n";
    if got != expected_messages {
        let at = got.bytes().zip(expected_messages.bytes()).position(|(a, b)| a != b).unwrap_or(0);
        return Err(format!(
            "messages differ from byte {at}\n--- expected\n{}\n--- compiled\n{}",
            excerpt(expected_messages, at),
            excerpt(&got, at)
        )
        .into());
    }
    Ok(())
}

fn excerpt(s: &str, at: usize) -> String {
    let start = (0..=at.saturating_sub(80)).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
    let end = (at + 80..=s.len()).find(|i| s.is_char_boundary(*i)).unwrap_or(s.len());
    s.get(start..end).unwrap_or_default().to_owned()
}
