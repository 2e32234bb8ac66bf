//! The azure-ai-evaluation 1.18.10 scenarios (`shared/conformance/azure-eval/pipeline-1.18/`)
//! through the `prompty` binary, as a user runs them: every scenario by name.
//!
//! * A scenario with one judge call: `prompty score <the 1.18.10 prompt> --inputs <the
//!   recorded prompt inputs> --answer <the recorded provider response> --format azure`
//!   (with `--threshold` when the evaluator was built with one) must print the recorded
//!   result dictionary exactly (every key, in order, NaN as `"NaN"`), or refuse (a
//!   non-zero exit status, nothing on standard output, the reason on standard error)
//!   where the reference raised; and `prompty compile` of the same prompt and
//!   inputs (with `--reasoning-model` when the evaluator was built with
//!   `is_reasoning_model`) must print the recorded request (`extra_headers` aside).
//! * A conversation, or a scenario the reference answered without calling the model:
//!   `prompty eval <the prompt> --data <one row: the call arguments> --answers <one
//!   line: the recorded responses, in call order> --format azure` must write the
//!   recorded result dictionary as its result line (plus `line`).

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{Map, Value};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/azure-eval");

/// Scenarios left out, with the reason. Empty: every scenario runs.
const WAIVERS: &[(&str, &str)] = &[];

/// What our refusal must say for a recorded error (its start → a text of our message).
const REFUSALS: &[(&str, &str)] = &[
    ("JSONDecodeError", "is not valid JSON"),
    ("EvaluationException: (InternalError) Evaluator returned invalid output.", "is a JSON string, not an object"),
    (
        "TypeError: float() argument must be a string or a real number, not 'NoneType'",
        "holds None, which is not a number",
    ),
];

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn prompty(args: &[&str], dir: &Path) -> Result<Out, Failed> {
    let out = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| format!("cannot run prompty: {e}"))?;
    Ok(Out {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

fn write(dir: &Path, name: &str, text: &str) -> Result<String, Failed> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path.display().to_string())
}

fn json_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn diff(expected: &str, actual: &str) -> String {
    let at = expected.bytes().zip(actual.bytes()).position(|(a, b)| a != b).unwrap_or(0);
    let lo = at.saturating_sub(160);
    let cut = |s: &str| s.get(lo..(at + 160).min(s.len())).unwrap_or("").to_owned();
    format!("first difference at byte {at}\nexpected …{}\n     got …{}", cut(expected), cut(actual))
}

/// The recorded error's needle: ours must contain it.
fn needle(recorded: &str) -> Result<String, Failed> {
    if let Some((_, n)) = REFUSALS.iter().find(|(start, _)| recorded.starts_with(start)) {
        return Ok((*n).to_owned());
    }
    let message = recorded
        .strip_prefix("EvaluationException: ")
        .ok_or_else(|| format!("no refusal rule for the recorded error {recorded}"))?;
    Ok(message.strip_prefix("(InternalError) ").unwrap_or(message).to_owned())
}

fn corpus_prompt(file: &str) -> String {
    Path::new(DATA).join("prompts-1.18").join(file).display().to_string()
}

/// The prompt a scenario without one recorded call runs with: its first call's, else the
/// evaluator's prompt (by its result key).
fn prompt_of(scenario: &Value) -> Result<String, Failed> {
    if let Some(f) = scenario["llm_calls"].get(0).and_then(|c| c["corpus_file"].as_str()) {
        return Ok(corpus_prompt(f));
    }
    let class = scenario["evaluator"].as_str().ok_or("no `evaluator`")?;
    let key = prompty_eval::AzureEvaluator::from_name(class).ok_or("unknown evaluator")?.result_key();
    let dir = Path::new(DATA).join("prompts-1.18");
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.contains(&format!("__{key}__")))
        .collect();
    names.sort();
    names.first().map(|n| corpus_prompt(n)).ok_or_else(|| format!("no 1.18.10 prompt for {key}").into())
}

fn threshold_args(scenario: &Value) -> Vec<String> {
    match scenario["init_kwargs"].get("threshold") {
        Some(t) => vec!["--threshold".to_owned(), t.to_string()],
        None => Vec::new(),
    }
}

fn run_scenario(path: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let scenario: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("prompty-pipeline-1-18-{}-{stem}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let outcome = run_in(&scenario, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

fn run_in(scenario: &Value, dir: &Path) -> Result<(), Failed> {
    let calls = scenario["llm_calls"].as_array().ok_or("no `llm_calls`")?;
    let kwargs = scenario["call_kwargs"].as_object().ok_or("no `call_kwargs`")?;
    let through_eval = calls.len() != 1 || kwargs.contains_key("conversation") || kwargs.contains_key("messages");
    let thresholds = threshold_args(scenario);
    if through_eval {
        return run_eval(scenario, kwargs, calls, &thresholds, dir);
    }
    let call = &calls[0];
    let prompt = prompt_of(scenario)?;
    let inputs = write(dir, "inputs.json", &json_text(&call["prompty_kwargs"]))?;
    let answer = write(dir, "answer.json", &json_text(&call["response"]))?;

    // The request.
    let reasoning = scenario["init_kwargs"]["is_reasoning_model"].as_bool() == Some(true);
    let mut args = vec!["compile", prompt.as_str(), "--inputs", inputs.as_str(), "--model", "judge-deployment"];
    if reasoning {
        args.push("--reasoning-model");
    }
    let out = prompty(&args, dir)?;
    if out.code != Some(0) {
        return Err(format!("compile exited {:?}: {}", out.code, out.stderr).into());
    }
    let mut want = call["request"].clone();
    if let Value::Object(o) = &mut want {
        o.shift_remove("extra_headers");
    }
    let got: Value = serde_json::from_str(&out.stdout).map_err(|e| format!("compile printed no JSON: {e}"))?;
    if json_text(&got) != json_text(&want) {
        return Err(format!("compile: {}", diff(&json_text(&want), &json_text(&got))).into());
    }

    // The result.
    let mut args = vec!["score", prompt.as_str(), "--inputs", inputs.as_str(), "--answer", answer.as_str()];
    args.extend(["--format", "azure", "--error-format", "json"]);
    args.extend(thresholds.iter().map(String::as_str));
    let out = prompty(&args, dir)?;
    match (&scenario["result"], &scenario["error"]) {
        (Value::Object(expected), _) => {
            if out.code != Some(0) {
                return Err(format!("score exited {:?}: {}", out.code, out.stderr).into());
            }
            let got: Value = serde_json::from_str(&out.stdout).map_err(|e| format!("score printed no JSON: {e}"))?;
            let want = json_text(&Value::Object(expected.clone()));
            if json_text(&got) != want {
                return Err(format!("score: {}", diff(&want, &json_text(&got))).into());
            }
            Ok(())
        }
        (_, Value::String(error)) => {
            if out.code == Some(0) || out.code.is_none() || !out.stdout.is_empty() {
                return Err(format!("expected a refusal ({error}); exit {:?}, stdout {}", out.code, out.stdout).into());
            }
            let n = needle(error)?;
            let said = out
                .stderr
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .any(|d| d["severity"] == "error" && d["message"].as_str().is_some_and(|m| m.contains(&n)));
            if !said {
                return Err(format!("the refusal does not say `{n}`: {}", out.stderr).into());
            }
            Ok(())
        }
        _ => Err("scenario has neither `result` nor `error`".into()),
    }
}

fn run_eval(
    scenario: &Value,
    kwargs: &Map<String, Value>,
    calls: &[Value],
    thresholds: &[String],
    dir: &Path,
) -> Result<(), Failed> {
    let prompt = prompt_of(scenario)?;
    let data = write(dir, "rows.jsonl", &format!("{}\n", json_text(&Value::Object(kwargs.clone()))))?;
    let responses: Vec<Value> = calls.iter().map(|c| c["response"].clone()).collect();
    let answers = write(dir, "answers.jsonl", &format!("{}\n", json_text(&Value::Array(responses))))?;
    let mut args = vec!["eval", prompt.as_str(), "--data", data.as_str(), "--answers", answers.as_str()];
    args.extend(["--format", "azure"]);
    args.extend(thresholds.iter().map(String::as_str));
    let out = prompty(&args, dir)?;
    if !out.stderr.contains("contract: 1.18 (recognised from the prompt)") {
        return Err(format!("eval did not report the contract: {}", out.stderr).into());
    }
    let Value::Object(expected) = &scenario["result"] else {
        return Err("a conversation scenario without a result is not covered here".into());
    };
    if out.code != Some(0) {
        return Err(format!("eval exited {:?}: {}", out.code, out.stderr).into());
    }
    let line = out.stdout.lines().next().ok_or("eval wrote no result line")?;
    let mut want = expected.clone();
    // The row's id (its line number: the data has no id field) and line follow the
    // reference's keys.
    want.insert("id".to_owned(), Value::from(1));
    want.insert("line".to_owned(), Value::from(1));
    let got: Value = serde_json::from_str(line).map_err(|e| format!("eval wrote no JSON: {e}"))?;
    let want = json_text(&Value::Object(want));
    if json_text(&got) != want {
        return Err(format!("eval: {}", diff(&want, &json_text(&got))).into());
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
            eprintln!("FATAL: conformance data missing at {} ({e}); the 1.18 CLI tests cannot run", dir.display());
            std::process::exit(1);
        }
    };
    paths.sort();
    if paths.is_empty() {
        eprintln!("FATAL: no scenarios in {}", dir.display());
        std::process::exit(1);
    }
    for (scenario, why) in WAIVERS {
        eprintln!("waived: {scenario}: {why}");
    }
    let total = paths.len();
    let trials: Vec<Trial> = paths
        .into_iter()
        .map(|p| {
            let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
            let waived = WAIVERS.iter().any(|(s, _)| *s == name);
            Trial::test(name, move || run_scenario(&p)).with_ignored_flag(waived)
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    eprintln!(
        "pipeline-1.18 through the CLI: {} of {total} scenarios passed ({} failed, {} ignored, {} filtered out)",
        conclusion.num_passed, conclusion.num_failed, conclusion.num_ignored, conclusion.num_filtered_out
    );
    conclusion.exit();
}
