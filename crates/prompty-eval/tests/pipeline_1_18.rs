//! End-to-end conformance with azure-ai-evaluation 1.18.10.
//!
//! One trial per `shared/conformance/azure-eval/pipeline-1.18/<scenario>.json`. Each
//! scenario recorded a real evaluator run with only the HTTP call faked: the call
//! arguments, the prompt inputs the evaluator produced (`llm_calls[i].prompty_kwargs`),
//! the request it sent, the provider response it got back, and the result dictionary
//! (or the error it raised).
//!
//! A trial:
//!
//! 1. prepares the judge calls from `call_kwargs` and checks prompt file and inputs
//!    against `llm_calls` (conversation splitting, `messages` hoisting, flattening,
//!    intermediate responses);
//! 2. renders each call's corpus prompt (`prompts-1.18/`) with those inputs and checks
//!    the messages against `llm_calls[i].request.messages`;
//! 3. compiles the rendered messages to a request (with the reasoning-model rewrite
//!    when `init_kwargs.is_reasoning_model` is set) and checks every parameter of
//!    `llm_calls[i].request` (`extra_headers` are the client's, not the prompt's);
//! 4. reads each recorded provider response (`llm_calls[i].response`) as the judge's
//!    reply, through the same reader `prompty eval` uses, and compares the whole result
//!    dictionary with `result` (every key, in order, values equal, NaN as the string
//!    `"NaN"`), or checks that we refuse where the reference raised (`error`).

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_eval::azure::{self, AzureEvaluator, JudgeCall, Prepared};
use prompty_eval::flatten::RefVersion;
use prompty_eval::{ErrorCategory, JudgeReply};
use serde_json::{Map, Value};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/azure-eval");

/// Result keys left out of the comparison: (scenario, key suffix, why). Empty: every
/// key of every recorded result is compared.
const WAIVERS: &[(&str, &str, &str)] = &[];

/// How we refuse where the reference raised: (the start of the recorded error, our
/// error's category, text our message must contain). The reference's Python crashes
/// (`TypeError`) become typed errors here.
const REFUSALS: &[(&str, ErrorCategory, &str)] = &[
    ("JSONDecodeError", ErrorCategory::FailedExecution, "is not valid JSON"),
    (
        "EvaluationException: (InternalError) Evaluator returned invalid output.",
        ErrorCategory::FailedExecution,
        "is a JSON string, not an object",
    ),
    (
        "TypeError: float() argument must be a string or a real number, not 'NoneType'",
        ErrorCategory::FailedExecution,
        "holds None, which is not a number",
    ),
];

fn read_json(path: &Path) -> Result<Value, Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()).into())
}

fn object<'v>(v: &'v Value, what: &str) -> Result<&'v Map<String, Value>, Failed> {
    v.as_object().ok_or_else(|| format!("`{what}` is not an object").into())
}

/// Checks the prepared calls against `llm_calls`: prompt file, corpus file and inputs.
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

/// Renders the corpus prompt with the call's inputs and compiles it for the deployment
/// the reference used (`judge-deployment`), with the reasoning-model rewrite when asked.
fn request_for(call: &JudgeCall, reasoning: bool) -> Result<Value, String> {
    let file = call.corpus_file().ok_or_else(|| format!("no corpus file for {}", call.prompt))?;
    let path = Path::new(DATA).join("prompts-1.18").join(format!("{file}.prompty"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let host = prompty_syntax::MapHost::new().with_file(&path, &text);
    let loaded =
        prompty_syntax::load_path(&path, &host, &prompty_syntax::LoadOptions::default()).map_err(|e| e.to_string())?;
    let (prompt, _) = loaded.into_result().map_err(|d| format!("{d:?}"))?;
    let renderer = prompty_render::Renderer::new(prompt.clone()).map_err(|e| e.to_string())?;
    let messages = renderer.prepare(&call.inputs).map_err(|e| e.to_string())?;
    let target = prompty_wire::Target {
        model: Some("judge-deployment".to_owned()),
        reasoning_model: reasoning,
        ..prompty_wire::Target::default()
    };
    let compiled = prompty_wire::compile(&prompt, &messages, target).map_err(|e| e.to_string())?;
    Ok(compiled.body)
}

/// Checks each call's rendered messages and compiled request against the recorded request.
fn check_requests(calls: &[JudgeCall], expected: &[Value], reasoning: bool) -> Result<(), Failed> {
    for (i, (call, want)) in calls.iter().zip(expected).enumerate() {
        let got = request_for(call, reasoning).map_err(|e| format!("call {i}: {e}"))?;
        let mut want = want["request"].clone();
        if let Value::Object(o) = &mut want {
            o.shift_remove("extra_headers");
        }
        if got["messages"] != want["messages"] {
            return Err(format!(
                "call {i}: rendered messages differ\nexpected {}\n     got {}",
                want["messages"], got["messages"]
            )
            .into());
        }
        let text = |v: &Value| serde_json::to_string(v).unwrap_or_default();
        if text(&got) != text(&want) {
            let params = |v: &Value| {
                let mut v = v.clone();
                if let Value::Object(o) = &mut v {
                    o.shift_remove("messages");
                }
                v
            };
            return Err(format!(
                "call {i}: request differs (key order included)\nexpected {}\n     got {}",
                params(&want),
                params(&got)
            )
            .into());
        }
    }
    Ok(())
}

fn diff(expected: &str, actual: &str) -> String {
    let at = expected.bytes().zip(actual.bytes()).position(|(a, b)| a != b).unwrap_or(0);
    let lo = at.saturating_sub(160);
    let cut = |s: &str| s.get(lo..(at + 160).min(s.len())).unwrap_or("").to_owned();
    format!("first difference at byte {at}\nexpected …{}\n     got …{}", cut(expected), cut(actual))
}

fn strip_waived(stem: &str, v: &mut Map<String, Value>) {
    let waived = |k: &str| WAIVERS.iter().any(|(s, suffix, _)| *s == stem && k.ends_with(suffix));
    v.retain(|k, _| !waived(k));
    if let Some(Value::Object(per_turn)) = v.get_mut("evaluation_per_turn") {
        per_turn.retain(|k, _| !waived(k));
    }
}

fn run_scenario(path: &Path) -> Result<(), Failed> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
    let scenario = read_json(path)?;
    if scenario["version"] != "1.18.10" {
        return Err(format!("version {} is not 1.18.10", scenario["version"]).into());
    }
    let class = scenario["evaluator"].as_str().ok_or("no `evaluator`")?;
    let evaluator = AzureEvaluator::from_name(class).ok_or_else(|| format!("unknown evaluator {class}"))?;
    let init = object(&scenario["init_kwargs"], "init_kwargs")?;
    let kwargs = object(&scenario["call_kwargs"], "call_kwargs")?;
    let llm_calls = scenario["llm_calls"].as_array().ok_or("no `llm_calls`")?;
    let reasoning = init.get("is_reasoning_model").and_then(Value::as_bool).unwrap_or(false);

    // 1. Prompt inputs.
    let prepared = evaluator.prepare(kwargs, RefVersion::V1_18_10).map_err(|e| format!("prepare: {e}"))?;
    let calls = match &prepared {
        Prepared::Calls(calls) => calls.clone(),
        Prepared::NotApplicable(_) => Vec::new(),
    };
    check_calls(&calls, llm_calls)?;

    // 2 and 3. Rendered messages and the request.
    check_requests(&calls, llm_calls, reasoning)?;

    // 4. Result or error, from the recorded provider responses.
    let replies: Vec<JudgeReply> = llm_calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            prompty_eval::reply::from_value(c["response"].clone()).map_err(|e| format!("call {i}: response: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let mut judge = |i: usize, _call: &JudgeCall| replies.get(i).cloned().unwrap_or_default();
    let outcome = azure::run(evaluator, init, kwargs, RefVersion::V1_18_10, &mut judge);
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
            Err(format!("expected a refusal ({error}), got result {}", Value::Object(actual)).into())
        }
        (_, Value::String(error), Err(e)) => check_refusal(error, &e),
        _ => Err("scenario has neither `result` nor `error`".into()),
    }
}

/// Checks that we refused the way [`REFUSALS`] says for the recorded error; an
/// `EvaluationException` of the reference's own must match in message.
fn check_refusal(recorded: &str, e: &prompty_eval::Error) -> Result<(), Failed> {
    let shown = e.to_string();
    let (category, needle) = match REFUSALS.iter().find(|(start, ..)| recorded.starts_with(start)) {
        Some((_, category, needle)) => (*category, (*needle).to_owned()),
        None => {
            let message = recorded
                .strip_prefix("EvaluationException: ")
                .ok_or_else(|| format!("no refusal rule for the recorded error {recorded}"))?;
            let message = message.strip_prefix("(InternalError) ").unwrap_or(message);
            (ErrorCategory::FailedExecution, message.to_owned())
        }
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
    let dir = PathBuf::from(DATA).join("pipeline-1.18");
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) => {
            eprintln!("FATAL: conformance data missing at {} ({e}); the 1.18 pipeline tests cannot run", dir.display());
            std::process::exit(1);
        }
    };
    paths.sort();
    if paths.is_empty() {
        eprintln!("FATAL: no scenarios in {}", dir.display());
        std::process::exit(1);
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
        "pipeline-1.18 conformance: {} of {total} scenarios passed ({} failed, {} filtered out)",
        conclusion.num_passed, conclusion.num_failed, conclusion.num_filtered_out
    );
    conclusion.exit();
}
