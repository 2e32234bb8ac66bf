//! `migrate` over every prompt of the conformance data: each v1 file is migrated with equal
//! renders (on the recorded input cases of azure-eval, else its defaults) and the result
//! passes `check` with no error, or it is refused for the reason recorded below; each v2
//! file is left alone.

use std::path::{Path, PathBuf};

use prompty_lint::Selection;
use prompty_lint::migrate::{Case, Refusal, migrate};
use prompty_syntax::{LoadOptions, MapHost, Profile, Severity, load_str};
use serde_json::{Map, Value};

/// v1 files that are refused, with a piece of the reason. A change in either direction
/// (a file now migrates, or is refused for another reason) fails the test.
const REFUSED: &[(&str, &str)] = &[(
    // promptflow strips each message's content (Python `str.strip()`); the spec's split keeps
    // the trailing spaces a value ends with, and no template change can take them off.
    "1.0.1__simulator__task_simulate.prompty",
    "case `edge-trailing_whitespace_value`, message 0 (system), byte 428: v1 gives \"\\n  act now\", v2 gives \"\\n  act now  \"",
)];

fn conformance() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance")
}

fn prompts(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("missing {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "prompty"))
        .collect();
    files.sort();
    files
}

/// The recorded inputs of the azure-eval cases of the prompt `stem`; for a prompt with none
/// (the 1.18.10 ones), those of the earlier version of the same evaluator prompt.
fn cases(stem: &str) -> Vec<Case> {
    let own = cases_of(stem);
    if !own.is_empty() {
        return own;
    }
    let Some((_, evaluator)) = stem.split_once("__") else { return own };
    let dir = conformance().join("azure-eval/prompts");
    for earlier in prompts(&dir) {
        let name = earlier.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        if name.split_once("__").is_some_and(|(_, e)| e == evaluator) {
            let found = cases_of(&name);
            if !found.is_empty() {
                return found;
            }
        }
    }
    own
}

fn cases_of(stem: &str) -> Vec<Case> {
    let dir = conformance().join("azure-eval/inputs");
    let prefix = format!("{stem}__");
    let mut out: Vec<Case> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("missing {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let scenario = name.strip_prefix(&prefix)?.strip_suffix(".json")?.to_owned();
            let text = std::fs::read_to_string(e.path()).ok()?;
            let inputs: Map<String, Value> = serde_json::from_str(&text).ok()?;
            Some(Case { name: scenario, inputs })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[test]
fn every_conformance_prompt_migrates_or_is_refused_for_its_recorded_reason() {
    let root = conformance();
    let mut files = Vec::new();
    for dir in ["azure-eval/prompts", "azure-eval/prompts-1.18", "prompty-spec/fixtures"] {
        files.extend(prompts(&root.join(dir)));
    }
    files.extend(prompts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../prompts")));
    assert!(files.len() > 40, "only {} prompt files", files.len());
    let (mut migrated, mut refused, mut v2) = (Vec::new(), Vec::new(), 0);
    let mut problems = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let stem = name.trim_end_matches(".prompty");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let options = LoadOptions { path: Some(path.clone()), ..LoadOptions::default() };
        let profile = load_str(&text, &MapHost::new(), &options).prompt.map(|p| p.profile);
        let cases = cases(stem);
        let outcome = migrate(&text, &MapHost::new(), &options, &cases);
        let expected = REFUSED.iter().find(|(file, _)| *file == name).map(|(_, why)| *why);
        match (profile, outcome, expected) {
            (Some(Profile::Spec), Err(Refusal::NotV1), None) => v2 += 1,
            (_, Ok(out), None) => {
                let loaded = load_str(&out.text, &MapHost::new(), &options);
                let errors: Vec<String> = prompty_lint::check(&out.text, &loaded, &Selection::default())
                    .findings
                    .into_iter()
                    .filter(|f| f.diagnostic.severity == Severity::Error)
                    .map(|f| f.diagnostic.message)
                    .collect();
                if !errors.is_empty() {
                    problems.push(format!("{name}: migrated text has errors: {errors:?}"));
                }
                if !out.refused_by_both.is_empty() {
                    problems.push(format!("{name}: no messages compared on {:?}", out.refused_by_both));
                }
                migrated.push(format!("{name}: migrated, equal on {}", out.cases.join(", ")));
            }
            (_, Err(why), Some(recorded)) if why.to_string().contains(recorded) => {
                refused.push(format!("{name}: refused: {why}"));
            }
            (_, outcome, expected) => {
                problems.push(format!("{name}: expected {expected:?}, got {:?}", outcome.map(|o| o.cases)));
            }
        }
    }
    for line in migrated.iter().chain(&refused) {
        println!("{line}");
    }
    println!("{} migrated, {} refused, {v2} v2 files left alone", migrated.len(), refused.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(!migrated.is_empty());
}
