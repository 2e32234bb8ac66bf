//! End-to-end conformance with azure-ai-evaluation 1.13.3.
//!
//! One trial per `shared/conformance/azure-eval/pipeline/<scenario>.json`.
//! Each scenario recorded a real evaluator run with only the HTTP call faked:
//! the call arguments, the canned judge answers, the prompt inputs the
//! evaluator produced (`llm_calls[i].prompty_kwargs`), the request it sent,
//! and the result dictionary (or the error it raised).
//!
//! A trial:
//!
//! 1. prepares the judge calls from `call_kwargs` and checks prompt file and
//!    inputs against `llm_calls` (this covers conversation splitting and
//!    message flattening);
//! 2. (integration point) checks the rendered judge messages against
//!    `llm_calls[i].request.messages`; see [`check_rendered_messages`];
//! 3. feeds the canned answers back as the judge's replies and compares the
//!    result dictionary with `result`, key order included, or the raised
//!    error with `error`.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_eval::azure::{self, AzureEvaluator, JudgeCall, Prepared};
use prompty_eval::flatten::RefVersion;
use prompty_eval::{ErrorCategory, JudgeReply, Usage};
use serde_json::{Map, Value};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/azure-eval");

/// Where the fake client's per-call metadata comes from.
///
/// The reference's fake client answered every call with token counts
/// (1200 + call index prompt tokens, 80 completion tokens), `finish_reason`
/// `stop` and model `gpt-4o-2024-08-06`. `llm_calls` does not record these,
/// but the expected `result` does (top level for one turn,
/// `evaluation_per_turn` for several), so the trial reads them from there and
/// feeds them in as the judge reply's metadata. What the comparison then
/// checks for these keys is their placement, order and aggregation, not their
/// origin.
const FAKE_CLIENT_KEYS: &[(&str, &str)] = &[
    ("_prompt_tokens", "recovered from the expected result"),
    ("_completion_tokens", "recovered from the expected result"),
    ("_total_tokens", "recovered from the expected result"),
    ("_finish_reason", "recovered from the expected result"),
    ("_model", "recovered from the expected result"),
];

/// Result keys left out of the comparison, by scenario and key suffix, with
/// the reason. Empty: every key of every recorded result is compared.
const WAIVERS: &[(&str, &str, &str)] = &[];

/// Scenarios where the reference crashed with a Python error instead of
/// raising its own exception; this crate raises a typed error instead.
/// (scenario, Python error type, our error category, text our message must
/// contain, why).
const REFERENCE_CRASHES: &[(&str, &str, ErrorCategory, &str, &str)] = &[(
    "x_similarity_no_digit",
    "UnboundLocalError",
    ErrorCategory::FailedExecution,
    "contains no digit",
    "1.13.3 reads a variable that is only set when the answer has a digit; we report the missing digit",
)];

fn read_json(path: &Path) -> Result<Value, Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()).into())
}

fn object<'v>(v: &'v Value, what: &str) -> Result<&'v Map<String, Value>, Failed> {
    v.as_object().ok_or_else(|| format!("`{what}` is not an object").into())
}

/// The metadata the fake client supplied for call `i`, recovered from the
/// expected result (see [`FAKE_CLIENT_KEYS`]).
fn fake_reply(scenario: &Value, key: &str, i: usize) -> JudgeReply {
    let content = scenario["canned_llm_outputs"].get(i).and_then(Value::as_str).map(str::to_owned);
    let result = &scenario["result"];
    let per_turn = &result["evaluation_per_turn"];
    let field = |suffix: &str| -> Option<Value> {
        let name = format!("{key}{suffix}");
        if per_turn.is_object() {
            per_turn.get(&name).and_then(|l| l.get(i)).cloned()
        } else {
            result.get(&name).cloned()
        }
    };
    let count = |suffix: &str| field(suffix).and_then(|v| v.as_u64());
    let usage = match (count("_prompt_tokens"), count("_completion_tokens"), count("_total_tokens")) {
        (Some(p), Some(c), Some(t)) => Some(Usage { prompt_tokens: p, completion_tokens: c, total_tokens: t }),
        _ => None,
    };
    JudgeReply {
        content,
        role: Some("assistant".to_owned()),
        usage,
        finish_reason: field("_finish_reason").and_then(|v| v.as_str().map(str::to_owned)),
        model: field("_model").and_then(|v| v.as_str().map(str::to_owned)),
    }
}

/// Checks the prepared calls against `llm_calls`: prompt file, corpus file
/// and inputs (compared as JSON values).
fn check_calls(calls: &[JudgeCall], expected: &[Value]) -> Result<(), Failed> {
    if calls.len() != expected.len() {
        return Err(format!("{} judge calls prepared, {} recorded", calls.len(), expected.len()).into());
    }
    for (i, (call, want)) in calls.iter().zip(expected).enumerate() {
        if Some(call.prompt) != want["prompty"].as_str() {
            return Err(format!("call {i}: prompt {} but the reference used {}", call.prompt, want["prompty"]).into());
        }
        if call.corpus_file().map(|f| format!("{f}.prompty")).as_deref() != want["corpus_file"].as_str() {
            return Err(
                format!("call {i}: corpus file {:?} but recorded {}", call.corpus_file(), want["corpus_file"]).into()
            );
        }
        let inputs = Value::Object(call.inputs.clone());
        if inputs != want["prompty_kwargs"] {
            return Err(format!(
                "call {i}: prompt inputs differ\nexpected {}\n     got {inputs}",
                want["prompty_kwargs"]
            )
            .into());
        }
    }
    Ok(())
}

/// A renderer for the check of judge messages: given the corpus prompt file
/// stem (`1.0.1__coherence__coherence`) and the inputs, the chat messages
/// `[{role, content}]` the prompt renders to.
type Render<'a> = &'a dyn Fn(&str, &Map<String, Value>) -> Result<Vec<Value>, String>;

/// Renders `prompts/<file>.prompty` with `inputs` through prompty-render and returns the
/// messages as promptflow sends them (`{role, content}` with string content).
fn render_corpus_prompt(file: &str, inputs: &Map<String, Value>) -> Result<Vec<Value>, String> {
    let stem = file.strip_suffix(".prompty").unwrap_or(file);
    let path = Path::new(DATA).join("prompts").join(format!("{stem}.prompty"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let host = prompty_syntax::MapHost::new().with_file(&path, &text);
    let options = prompty_syntax::LoadOptions::default();
    let loaded = prompty_syntax::load_path(&path, &host, &options).map_err(|e| e.to_string())?;
    let (prompt, _) = loaded.into_result().map_err(|d| format!("{d:?}"))?;
    let renderer = prompty_render::Renderer::new(prompt).map_err(|e| e.to_string())?;
    let messages = renderer.prepare(inputs).map_err(|e| e.to_string())?;
    Ok(messages
        .iter()
        .map(|m| {
            let mut o = Map::new();
            o.insert("role".into(), Value::String(m.role.clone()));
            o.insert("content".into(), Value::String(m.text_content()));
            Value::Object(o)
        })
        .collect())
}

/// Checks that rendering each call's prompt with its inputs gives the
/// messages the reference sent (`llm_calls[i].request.messages`).
fn check_rendered_messages(calls: &[JudgeCall], expected: &[Value], render: Render<'_>) -> Result<(), Failed> {
    for (i, (call, want)) in calls.iter().zip(expected).enumerate() {
        let file = call.corpus_file().ok_or_else(|| format!("call {i}: no corpus file for {}", call.prompt))?;
        let messages = render(file, &call.inputs).map_err(|e| format!("call {i}: render failed: {e}"))?;
        let got = Value::Array(messages);
        if got != want["request"]["messages"] {
            return Err(format!(
                "call {i}: rendered messages differ\nexpected {}\n     got {got}",
                want["request"]["messages"]
            )
            .into());
        }
    }
    Ok(())
}

fn diff(expected: &str, actual: &str) -> String {
    let at = expected.bytes().zip(actual.bytes()).position(|(a, b)| a != b).unwrap_or(0);
    let lo = at.saturating_sub(120);
    let cut = |s: &str| s.get(lo..(at + 120).min(s.len())).unwrap_or("").to_owned();
    format!("first difference at byte {at}\nexpected …{}\n     got …{}", cut(expected), cut(actual))
}

fn waived(stem: &str, key: &str) -> bool {
    WAIVERS.iter().any(|(s, suffix, _)| *s == stem && key.ends_with(suffix))
}

fn strip_waived(stem: &str, v: &mut Map<String, Value>) {
    v.retain(|k, _| !waived(stem, k));
    if let Some(Value::Object(per_turn)) = v.get_mut("evaluation_per_turn") {
        per_turn.retain(|k, _| !waived(stem, k));
    }
}

fn run_scenario(path: &Path) -> Result<(), Failed> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
    let scenario = read_json(path)?;
    let class = scenario["evaluator"].as_str().ok_or("no `evaluator`")?;
    let evaluator = AzureEvaluator::from_name(class).ok_or_else(|| format!("unknown evaluator {class}"))?;
    let key = evaluator.result_key();
    let init = object(&scenario["init_kwargs"], "init_kwargs")?;
    let kwargs = object(&scenario["call_kwargs"], "call_kwargs")?;
    let llm_calls = scenario["llm_calls"].as_array().ok_or("no `llm_calls`")?;

    // 1. Prompt inputs.
    let prepared = evaluator.prepare(kwargs, RefVersion::V1_13_3).map_err(|e| format!("prepare: {e}"))?;
    let calls = match &prepared {
        Prepared::Calls(calls) => calls.clone(),
        Prepared::NotApplicable(_) => Vec::new(),
    };
    check_calls(&calls, llm_calls)?;

    // 2. Rendered judge messages.
    check_rendered_messages(&calls, llm_calls, &render_corpus_prompt)?;

    // 3. Result or error.
    let mut judge = |i: usize, _call: &JudgeCall| fake_reply(&scenario, key, i);
    let outcome = azure::run(evaluator, init, kwargs, RefVersion::V1_13_3, &mut judge);
    match (&scenario["result"], &scenario["error"], outcome) {
        (Value::Object(expected), _, Ok(mut actual)) => {
            let mut expected = expected.clone();
            strip_waived(&stem, &mut expected);
            strip_waived(&stem, &mut actual);
            let want = serde_json::to_string(&expected).map_err(|e| e.to_string())?;
            let got = serde_json::to_string(&actual).map_err(|e| e.to_string())?;
            if want != got {
                return Err(diff(&want, &got).into());
            }
            Ok(())
        }
        (Value::Object(_), _, Err(e)) => Err(format!("expected a result, got error: {e}").into()),
        (_, Value::String(error), Ok(actual)) => {
            Err(format!("expected error {error}, got result {}", Value::Object(actual)).into())
        }
        (_, Value::String(error), Err(e)) => check_error(&stem, error, &e),
        _ => Err("scenario has neither `result` nor `error`".into()),
    }
}

/// Compares a raised error with the recorded one: `EvaluationException:
/// (InternalError) <message>` must match in category and message; Python
/// crashes are matched through [`REFERENCE_CRASHES`] or by message.
fn check_error(stem: &str, recorded: &str, e: &prompty_eval::Error) -> Result<(), Failed> {
    let (py_type, message) = recorded.split_once(": ").unwrap_or((recorded, ""));
    let shown = e.to_string();
    let (category, needle) = if let Some((_, _, category, needle, _)) =
        REFERENCE_CRASHES.iter().find(|(s, t, ..)| *s == stem && *t == py_type)
    {
        (*category, (*needle).to_owned())
    } else if py_type == "EvaluationException" {
        let text = message
            .strip_prefix("(InternalError) ")
            .or_else(|| message.strip_prefix("(UserError) "))
            .unwrap_or(message);
        (ErrorCategory::FailedExecution, text.to_owned())
    } else {
        (ErrorCategory::FailedExecution, message.to_owned())
    };
    if e.category() != category {
        return Err(format!("error category {:?}, expected {category:?} ({recorded})", e.category()).into());
    }
    if !shown.contains(&needle) {
        return Err(format!("error `{shown}` does not contain `{needle}` (reference: {recorded})").into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let dir = PathBuf::from(DATA).join("pipeline");
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) => {
            eprintln!("FATAL: conformance data missing at {} ({e}); the pipeline tests cannot run", dir.display());
            std::process::exit(1);
        }
    };
    paths.sort();
    if paths.is_empty() {
        eprintln!("FATAL: no scenarios in {}", dir.display());
        std::process::exit(1);
    }
    for (suffix, source) in FAKE_CLIENT_KEYS {
        eprintln!("note: fake-client key *{suffix}: {source}");
    }
    for (scenario, key, why) in WAIVERS {
        eprintln!("waived: {scenario} *{key}: {why}");
    }
    let total = paths.len();
    let trials: Vec<Trial> = paths
        .into_iter()
        .map(|p| {
            let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
            Trial::test(name, move || run_scenario(&p))
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    eprintln!(
        "pipeline conformance: {} of {total} scenarios passed ({} failed, {} filtered out)",
        conclusion.num_passed, conclusion.num_failed, conclusion.num_filtered_out
    );
    conclusion.exit();
}
