//! The composite GitHub Action (`action.yml` at the repository root), run here as the runner
//! would run it: each step's `if` decided from the inputs, its `env` filled from them, its
//! script run by `bash --noprofile --norc -eo pipefail` with the runner's files
//! (`GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`, `RUNNER_TEMP`). The install step is the one left
//! out: the `prompty` under test is put on `PATH` instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use prompty_test_support::TempDir;
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn action() -> Value {
    let text = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    serde_saphyr::from_str(&text).expect("action.yml is YAML")
}

/// Every `${{ inputs.NAME }}` in `text`.
fn input_refs(text: &str) -> Vec<String> {
    text.split("${{")
        .skip(1)
        .filter_map(|s| s.split("}}").next())
        .filter_map(|e| e.trim().strip_prefix("inputs.").map(str::to_owned))
        .collect()
}

/// The value of a step's `if`: `inputs.X == 'v'`, `inputs.X != 'v'`, joined by `||`.
fn condition(expr: &str, inputs: &BTreeMap<String, String>) -> bool {
    expr.split("||").any(|part| {
        let (name, op, value) = if let Some((l, r)) = part.split_once("!=") {
            (l, "!=", r)
        } else if let Some((l, r)) = part.split_once("==") {
            (l, "==", r)
        } else {
            panic!("a condition this test does not read: {expr}")
        };
        let name = name.trim().strip_prefix("inputs.").expect("a condition on an input");
        let value = value.trim().trim_matches('\'');
        let actual = inputs.get(name).unwrap_or_else(|| panic!("{name} is not an input"));
        (actual == value) == (op == "==")
    })
}

/// The action's inputs: its defaults with `given` over them.
fn inputs(given: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut inputs: BTreeMap<String, String> = action()["inputs"]
        .as_object()
        .expect("inputs")
        .iter()
        .map(|(k, v)| (k.clone(), v["default"].as_str().unwrap_or("").to_owned()))
        .collect();
    for (k, v) in given {
        assert!(inputs.contains_key(*k), "{k} is not an input");
        inputs.insert((*k).to_owned(), (*v).to_owned());
    }
    inputs
}

struct Outcome {
    /// Each step run: its name and exit status.
    steps: Vec<(String, i32)>,
    summary: String,
    output: String,
    log: String,
}

/// Runs the action's steps after the install step in `dir`.
fn run(dir: &TempDir, given: &[(&str, &str)]) -> Outcome {
    let inputs = inputs(given);
    let temp = dir.path().join("runner-temp");
    std::fs::create_dir_all(&temp).expect("runner temp");
    std::fs::write(temp.join("prompty-failed"), "").expect("the failure list");
    let summary = dir.write("step-summary.md", "");
    let output = dir.write("output.txt", "");
    let bin = Path::new(env!("CARGO_BIN_EXE_prompty")).parent().expect("the binary's folder").to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut steps = Vec::new();
    let mut log = String::new();
    for step in action()["runs"]["steps"].as_array().expect("steps").iter().skip(1) {
        let name = step["name"].as_str().expect("a step name").to_owned();
        if let Some(cond) = step["if"].as_str()
            && !condition(cond, &inputs)
        {
            continue;
        }
        let script = dir.write("step.sh", step["run"].as_str().expect("a run script"));
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("RUNNER_TEMP", &temp)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_OUTPUT", &output);
        if let Some(env) = step["env"].as_object() {
            for (k, v) in env {
                let v = v.as_str().expect("an env value");
                let refs = input_refs(v);
                let value = match refs.as_slice() {
                    [one] => inputs[one].clone(),
                    _ => panic!("{name}: env {k} is not one input: {v}"),
                };
                cmd.env(k, value);
            }
        }
        let out = cmd.output().expect("bash runs");
        log.push_str(&String::from_utf8_lossy(&out.stdout));
        log.push_str(&String::from_utf8_lossy(&out.stderr));
        steps.push((name, out.status.code().unwrap_or(-1)));
    }
    Outcome { steps, summary: dir.read("step-summary.md"), output: dir.read("output.txt"), log }
}

#[test]
fn the_action_reads_inputs_only_through_the_environment() {
    let a = action();
    let declared = a["inputs"].as_object().expect("inputs");
    let text = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    for name in input_refs(&text) {
        assert!(declared.contains_key(&name), "inputs.{name} is not declared");
    }
    for step in a["runs"]["steps"].as_array().expect("steps") {
        let run = step["run"].as_str().unwrap_or("");
        assert!(!run.contains("${{"), "{}: an expression inside the script (pass it through env)", step["name"]);
        let syntax = Command::new("bash").args(["-n", "-c", run]).output().expect("bash runs");
        assert!(syntax.status.success(), "{}: {}", step["name"], String::from_utf8_lossy(&syntax.stderr));
    }
    assert_eq!(a["runs"]["using"], json!("composite"));
    let install = a["runs"]["steps"][0]["run"].as_str().unwrap_or("");
    assert!(
        install.contains("cargo install --locked") && install.contains("$ACTION_PATH/crates/prompty-cli"),
        "{install}"
    );
}

/// A prompts folder with the coherence judge, its data, two runs of answers, the first
/// run's results as the baseline.
fn workspace(dir: &TempDir) {
    let prompt = std::fs::read_to_string(root().join("prompts/coherence.prompty")).expect("the prompt");
    dir.write("prompts/coherence.prompty", prompt);
    let example = root().join("docs/example");
    for f in ["rows.jsonl", "answers-before.jsonl", "answers-after.jsonl"] {
        dir.write(&format!("eval/{f}"), std::fs::read(example.join(f)).expect("example data"));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args([
            "eval",
            "prompts/coherence.prompty",
            "--data",
            "eval/rows.jsonl",
            "--answers",
            "eval/answers-before.jsonl",
        ])
        .args(["--output", "eval/baseline.jsonl"])
        .current_dir(dir.path())
        .output()
        .expect("prompty runs");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_action_checks_evaluates_compares_and_writes_the_summary() {
    let dir = TempDir::new("action");
    workspace(&dir);
    let o = run(
        &dir,
        &[
            ("snapshot", "false"),
            ("eval-prompt", "prompts/coherence.prompty"),
            ("eval-data", "eval/rows.jsonl"),
            ("eval-args", "--answers eval/answers-after.jsonl --fail-under 4"),
            ("eval-results", "eval/results.jsonl"),
            ("eval-baseline", "eval/baseline.jsonl"),
        ],
    );
    let names: Vec<&str> = o.steps.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["prompty check", "prompty eval", "Result"], "{}", o.log);
    // The run's mean misses `--fail-under` (exit 1 from `prompty eval`): the action fails at
    // the end, after the comparison and the report were written.
    assert_eq!(o.steps.last().map(|s| s.1), Some(1), "{}", o.log);
    assert!(o.log.contains("::error::prompty eval failed"), "{}", o.log);
    assert!(!o.log.contains("prompty check failed"), "{}", o.log);
    assert!(o.summary.contains("## Evaluation: eval/baseline.jsonl → eval/results.jsonl"), "{}", o.summary);
    assert!(o.summary.contains("| coherence | 12 | 12 |"), "{}", o.summary);
    assert_eq!(o.output.trim(), "report=prompty-report.html");
    let report = dir.read("prompty-report.html");
    assert!(report.contains("Evaluation comparison: eval/baseline.jsonl vs eval/results.jsonl"));
    assert!(dir.read("prompty-junit.xml").contains("<testsuite name=\"coherence\" tests=\"12\""));
}

#[test]
fn without_the_baseline_file_the_run_is_reported_alone() {
    let dir = TempDir::new("action-first-run");
    workspace(&dir);
    let o = run(
        &dir,
        &[
            ("snapshot", "false"),
            ("eval-prompt", "prompts/coherence.prompty"),
            ("eval-data", "eval/rows.jsonl"),
            ("eval-args", "--answers eval/answers-after.jsonl"),
            ("eval-baseline", "baseline/results.jsonl"),
        ],
    );
    assert_eq!(o.steps.last().map(|s| s.1), Some(0), "{}", o.log);
    assert!(o.summary.contains("No baseline results at baseline/results.jsonl"), "{}", o.summary);
    assert!(dir.read("prompty-report.html").contains("Evaluation report: prompty-results.jsonl"));
}

#[test]
fn the_action_fails_on_a_broken_prompt_and_still_runs_the_other_parts() {
    let dir = TempDir::new("action-broken");
    workspace(&dir);
    dir.write("prompts/broken.prompty", "---\nname: [unclosed\n---\nuser:\nhi\n");
    let o = run(
        &dir,
        &[("snapshot", "true"), ("eval-baseline", "eval/baseline.jsonl"), ("eval-results", "eval/baseline.jsonl")],
    );
    let names: Vec<&str> = o.steps.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["prompty check", "prompty snapshot --check", "prompty eval", "Result"], "{}", o.log);
    assert_eq!(o.steps.last().map(|s| s.1), Some(1), "{}", o.log);
    assert!(o.log.contains("::error::prompty check failed"), "{}", o.log);
    assert!(o.log.contains("::error file="), "check reports annotations: {}", o.log);
    assert!(o.summary.contains("## Prompt snapshots"), "{}", o.summary);
    assert!(o.summary.contains("## Evaluation:"), "{}", o.summary);
}
