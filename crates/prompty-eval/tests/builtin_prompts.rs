//! The toolkit's own judge prompts under `<workspace>/prompts/`.
//!
//! Every `prompts/<stem>.prompty` comes with `prompts/<stem>.cases.yaml`, a
//! mapping of case name to input values. The trials:
//!
//! * `<stem>::load`: the file loads as `prompty check` loads it, with no
//!   error and no warning; it is a v2 (spec profile) file; every template
//!   variable is a declared input and every declared input is used; the
//!   sidecar has at least two cases, each naming only declared inputs.
//! * `<stem>::evaluator`: `metadata.evaluator` parses; its result key is the
//!   file stem; the score range it declares is the one the prompt text asks
//!   for; a canned JSON answer scoring the top of the range passes, one at
//!   the bottom fails, and an answer with no readable score is `unknown`,
//!   never `pass`; the prompt follows the JSON judge contract (azure-ai-evaluation
//!   1.18: `{reason, score, status}`, recognised as such and configured for it), and
//!   a `status: skipped` answer is `not_applicable` with its reason and no problem.
//! * `<stem>@<case>`: the prompt renders with the case's inputs to a system and
//!   a user message with no template syntax left. The reviewed renderings are in
//!   `<workspace>/snapshots/prompts/`, checked (stale files included) by
//!   `prompty snapshot --check prompts` (`crates/prompty-cli/tests/it/snapshot_cli.rs`).
//! * `prompts::complete`: the required set of prompts exists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_eval::{Evaluator, EvaluatorConfig, JudgeReply, Verdict};
use prompty_render::{Renderer, messages_to_text};
use prompty_syntax::{LoadOptions, MapHost, Profile, Prompt, Severity, load_path};
use serde_json::{Map, Value};

/// The evaluators the toolkit must ship a prompt for.
const REQUIRED: &[&str] = &[
    "coherence",
    "fluency",
    "groundedness",
    "relevance",
    "retrieval",
    "similarity",
    "response_completeness",
    "intent_resolution",
    "task_adherence",
    "tool_call_accuracy",
];

/// The variable the renderer adds to role lines in strict mode.
const NONCE_VAR: &str = "__prompty_nonce";

fn workspace() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

fn prompts_dir() -> PathBuf {
    workspace().join("prompts")
}

/// One prompt file and its sidecar cases.
#[derive(Clone)]
struct PromptFile {
    stem: String,
    path: PathBuf,
    cases_path: PathBuf,
}

/// Every `prompts/*.prompty`, sorted by name.
fn prompt_files() -> Result<Vec<PromptFile>, String> {
    let dir = prompts_dir();
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PromptFile> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "prompty"))
        .filter_map(|path| {
            let stem = path.file_stem()?.to_str()?.to_owned();
            let cases_path = dir.join(format!("{stem}.cases.yaml"));
            Some(PromptFile { stem, path, cases_path })
        })
        .collect();
    files.sort_by(|a, b| a.stem.cmp(&b.stem));
    Ok(files)
}

/// Loads a prompt the way `prompty check` does (lint mode), through an
/// in-memory host holding only the file; any error or warning fails.
fn load(file: &PromptFile) -> Result<Prompt, Failed> {
    let text = std::fs::read_to_string(&file.path).map_err(|e| format!("cannot read {}: {e}", file.path.display()))?;
    let host = MapHost::new().with_file(&file.path, &text);
    let options = LoadOptions { lint: true, ..LoadOptions::default() };
    let loaded = load_path(&file.path, &host, &options).map_err(|e| e.to_string())?;
    let findings: Vec<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity >= Severity::Warning)
        .map(|d| format!("{} {} [{}]: {}", d.severity, d.code.id, d.code.name, d.message))
        .collect();
    if !findings.is_empty() {
        return Err(format!("{} has diagnostics:\n{}", file.path.display(), findings.join("\n")).into());
    }
    let prompt = loaded.prompt.ok_or_else(|| format!("{} did not load", file.path.display()))?;
    Ok(prompt)
}

/// A case: its name and the input values it sets.
type Case = (String, Map<String, Value>);

/// The sidecar's cases, in file order.
fn cases(file: &PromptFile) -> Result<Vec<Case>, Failed> {
    let text = std::fs::read_to_string(&file.cases_path)
        .map_err(|e| format!("cannot read {}: {e}", file.cases_path.display()))?;
    let node = prompty_syntax::yaml::parse(&text, 0, &text)
        .map_err(|d| format!("{}: {}", file.cases_path.display(), d.message))?;
    let Value::Object(map) = node.to_json() else {
        return Err(format!("{}: expected a mapping of case name to inputs", file.cases_path.display()).into());
    };
    map.into_iter()
        .map(|(name, inputs)| match inputs {
            Value::Object(inputs) => Ok((name, inputs)),
            other => Err(format!("{}: case `{name}` is not a mapping: {other}", file.cases_path.display()).into()),
        })
        .collect()
}

fn check_load(file: &PromptFile) -> Result<(), Failed> {
    let prompt = load(file)?;
    if prompt.profile != Profile::Spec {
        return Err(format!("{} is not a v2 file (profile {:?})", file.stem, prompt.profile).into());
    }
    if prompt.name.as_deref() != Some(file.stem.as_str()) {
        return Err(format!("`name` is {:?}; expected the file stem `{}`", prompt.name, file.stem).into());
    }
    if prompt.description.as_deref().is_none_or(|d| d.trim().is_empty()) {
        return Err("the prompt has no description".into());
    }
    let inputs = prompt.inputs.clone().unwrap_or_default();
    for input in &inputs {
        if input.description.as_deref().is_none_or(|d| d.trim().is_empty()) {
            return Err(format!("input `{}` has no description", input.name).into());
        }
    }
    let declared: BTreeSet<String> = inputs.iter().map(|p| p.name.clone()).collect();
    let renderer = Renderer::new(prompt).map_err(|e| e.to_string())?;
    let used: BTreeSet<String> = renderer.template_variables().into_iter().filter(|v| v != NONCE_VAR).collect();
    let undeclared: Vec<&String> = used.difference(&declared).collect();
    let unused: Vec<&String> = declared.difference(&used).collect();
    if !undeclared.is_empty() || !unused.is_empty() {
        return Err(format!("template variables not declared: {undeclared:?}; inputs never used: {unused:?}").into());
    }
    let cases = cases(file)?;
    if cases.len() < 2 {
        return Err(
            format!("{} has {} case(s); at least 2 are expected", file.cases_path.display(), cases.len()).into()
        );
    }
    for (name, values) in &cases {
        if let Some(unknown) = values.keys().find(|k| !declared.contains(k.as_str())) {
            return Err(format!("case `{name}` sets `{unknown}`, which is not a declared input").into());
        }
    }
    Ok(())
}

fn check_evaluator(file: &PromptFile) -> Result<(), Failed> {
    let prompt = load(file)?;
    let metadata = Value::Object(prompt.metadata.clone().unwrap_or_default());
    let config = EvaluatorConfig::from_metadata(&metadata)
        .map_err(|e| e.to_string())?
        .ok_or("the prompt has no metadata.evaluator block")?;
    let evaluator = Evaluator::new(prompt.name.clone().unwrap_or_default(), config.clone());
    if evaluator.name() != file.stem {
        return Err(format!("result key `{}` differs from the file stem `{}`", evaluator.name(), file.stem).into());
    }
    let range = config.range.clone().ok_or("metadata.evaluator has no range")?;
    let body = prompt.instructions.clone().unwrap_or_default();
    let asked = format!("<integer from {} to {}>", range.min, range.max);
    if !body.contains(&asked) {
        return Err(format!("the prompt does not ask for `{asked}`, the range of metadata.evaluator").into());
    }
    if !body.contains("JSON") {
        return Err("the prompt never mentions JSON (json_object requests need it)".into());
    }

    let expect = |answer: &str, verdict: Verdict, score: Option<f64>| -> Result<(), Failed> {
        let e = evaluator.evaluate(&JudgeReply::text(answer)).map_err(|e| format!("{answer:?}: {e}"))?;
        if e.verdict != verdict || e.score != score {
            return Err(format!(
                "{answer:?} gave {} with score {:?}; expected {} with score {score:?}",
                e.verdict.as_str(),
                e.score,
                verdict.as_str()
            )
            .into());
        }
        Ok(())
    };
    let top = range.max_f64();
    let bottom = range.min_f64();
    expect(
        &format!("{{\"reason\": \"Meets every point of the rubric.\", \"score\": {top}, \"status\": \"completed\"}}"),
        Verdict::Pass,
        Some(top),
    )?;
    expect(
        &format!(
            "{{\"reason\": \"Fails the rubric on every point.\", \"score\": {bottom}, \"status\": \"completed\"}}"
        ),
        Verdict::Fail,
        Some(bottom),
    )?;
    expect("I would rate this response very highly; it is excellent.", Verdict::Unknown, None)?;
    // The JSON judge contract (azure-ai-evaluation 1.18): the prompt asks for a status and
    // says when to skip; a skipped answer is not applicable.
    if !body.contains("\"status\": \"completed\"") || !body.contains("\"status\": \"skipped\"") {
        return Err("the prompt does not ask for `status` (`completed`, or `skipped` with a null score)".into());
    }
    if prompty_eval::Contract::recognise(&prompt) != Some(prompty_eval::Contract::V1_18)
        || evaluator.contract() != prompty_eval::Contract::V1_18
    {
        return Err("the prompt is not recognised as, or configured for, the 1.18 judge contract".into());
    }
    expect(
        "{\"reason\": \"There is nothing to grade.\", \"score\": null, \"status\": \"skipped\"}",
        Verdict::NotApplicable,
        None,
    )?;
    let skipped = evaluator
        .evaluate(&JudgeReply::text("{\"reason\": \"Empty.\", \"score\": null, \"status\": \"skipped\"}"))
        .map_err(|e| e.to_string())?;
    if skipped.reason != "Not applicable: Empty." || skipped.problem.is_some() {
        return Err(format!("a skipped answer gave reason {:?}, problem {:?}", skipped.reason, skipped.problem).into());
    }
    Ok(())
}

fn check_case(file: &PromptFile, inputs: &Map<String, Value>) -> Result<(), Failed> {
    let prompt = load(file)?;
    let renderer = Renderer::new(prompt).map_err(|e| e.to_string())?;
    let messages = renderer.prepare(inputs).map_err(|e| e.to_string())?;
    let roles: Vec<&str> = messages.iter().map(|m| m.role.as_str()).collect();
    if roles != ["system", "user"] {
        return Err(format!("expected a system and a user message, got {roles:?}").into());
    }
    let text = messages_to_text(&messages);
    if text.contains("{{") || text.contains("{%") {
        return Err("the rendered prompt still contains template syntax".into());
    }
    Ok(())
}

fn check_complete(files: &[PromptFile]) -> Result<(), Failed> {
    let missing: Vec<&str> = REQUIRED.iter().copied().filter(|r| !files.iter().any(|f| f.stem == *r)).collect();
    if missing.is_empty() { Ok(()) } else { Err(format!("missing prompts: {missing:?}").into()) }
}

fn main() {
    let args = Arguments::from_args();
    let files = match prompt_files() {
        Ok(files) => files,
        Err(e) => {
            eprintln!("FATAL: {e}");
            std::process::exit(1);
        }
    };
    let mut trials = Vec::new();
    let all = files.clone();
    trials.push(Trial::test("prompts::complete", move || check_complete(&all)));
    for file in files {
        let f = file.clone();
        trials.push(Trial::test(format!("{}::load", file.stem), move || check_load(&f)));
        let f = file.clone();
        trials.push(Trial::test(format!("{}::evaluator", file.stem), move || check_evaluator(&f)));
        match cases(&file) {
            Ok(cases) => {
                for (case, inputs) in cases {
                    let name = format!("{}@{case}", file.stem);
                    let f = file.clone();
                    trials.push(Trial::test(name, move || check_case(&f, &inputs)));
                }
            }
            Err(e) => {
                let message = e.message().map(str::to_owned).unwrap_or_default();
                trials.push(Trial::test(format!("{}::cases", file.stem), move || Err(message.into())));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
