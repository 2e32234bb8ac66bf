//! Differential test against Python jinja2: random templates (`jinja_diff/generate.py`, fixed
//! seed) rendered by jinja2 3.1 exactly as each reference engine configures it, compared byte
//! for byte with our renderer in the matching profile. One trial per template and profile.
//!
//! A case agrees when both render the same text, or both fail (errors are compared by their
//! existence, not their class or text). A known difference is a waiver in
//! `jinja_diff/waivers.json` with its category and reason (see docs/compatibility.md); a
//! difference without a waiver fails, and so does a waiver whose case agrees.
//!
//! `JINJA_DIFF_DUMP=<file>` writes every difference (waived or not) as JSON lines, for triage.
//! `JINJA_DIFF_GOLDEN=<file>` reads the cases from another file written by `generate.py` (a
//! fresh seed, to measure agreement); the waivers then apply to the cases they name, and the
//! checks that every waiver names a case of the file are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_render::{RenderOptions, Renderer};
use prompty_syntax::{LoadOptions, MapHost, Profile, load_str};
use serde_json::{Map, Value, json};

const PROFILES: [(&str, Profile); 2] = [("spec", Profile::Spec), ("promptflow", Profile::Promptflow)];

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jinja_diff")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Another case file than golden.jsonl, from `JINJA_DIFF_GOLDEN`.
fn other_golden() -> Option<PathBuf> {
    std::env::var_os("JINJA_DIFF_GOLDEN").map(PathBuf::from)
}

/// The golden cases (the header line is skipped after a check).
fn golden() -> Vec<Value> {
    let path = other_golden().unwrap_or_else(|| data_dir().join("golden.jsonl"));
    let text = read(&path);
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap_or("")).expect("golden.jsonl header");
    let cases: Vec<Value> = lines
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("golden.jsonl line {}: {e}", i + 2)))
        .collect();
    assert_eq!(header["count"].as_u64(), Some(cases.len() as u64), "golden.jsonl header count");
    assert!(
        other_golden().is_some() || cases.len() >= 2000,
        "golden.jsonl holds {} templates; the generator writes at least 2,000",
        cases.len()
    );
    cases
}

/// A known difference: case id and profile -> category.
type Waivers = BTreeMap<(String, String), String>;

fn waivers(cases: &[Value]) -> (Waivers, BTreeMap<String, String>) {
    let path = data_dir().join("waivers.json");
    let doc: Value = serde_json::from_str(&read(&path)).unwrap_or_else(|e| panic!("waivers.json: {e}"));
    let categories: BTreeMap<String, String> = doc["categories"]
        .as_object()
        .expect("waivers.json: categories")
        .iter()
        .map(|(k, v)| {
            let reason = v.as_str().unwrap_or_default();
            assert!(!reason.trim().is_empty(), "waivers.json: category {k} has no reason");
            (k.clone(), reason.to_owned())
        })
        .collect();
    let ids: BTreeSet<&str> = cases.iter().filter_map(|c| c["id"].as_str()).collect();
    let mut out = Waivers::new();
    for w in doc["cases"].as_array().expect("waivers.json: cases") {
        let id = w["id"].as_str().expect("waiver id").to_owned();
        let profile = w["profile"].as_str().expect("waiver profile").to_owned();
        let category = w["category"].as_str().expect("waiver category").to_owned();
        assert!(other_golden().is_some() || ids.contains(id.as_str()), "waivers.json: no case {id} in golden.jsonl");
        assert!(categories.contains_key(&category), "waivers.json: {id} names unknown category {category}");
        assert!(PROFILES.iter().any(|(p, _)| *p == profile), "waivers.json: {id}: unknown profile {profile}");
        assert!(out.insert((id.clone(), profile), category).is_none(), "waivers.json: {id} listed twice");
    }
    let used: BTreeSet<&String> = out.values().collect();
    for c in categories.keys().filter(|_| other_golden().is_none()) {
        assert!(used.contains(c), "waivers.json: category {c} waives no case; remove it");
    }
    (out, categories)
}

/// Renders `template` with `inputs` in `profile`: the text, or the error message.
fn render(template: &str, inputs: &Map<String, Value>, profile: Profile) -> Result<String, String> {
    let loaded = load_str("---\nname: jinja-diff\n---\n", &MapHost::new(), &LoadOptions::default());
    let mut prompt = loaded.prompt.expect("an empty prompt loads");
    prompt.instructions = Some(template.to_owned());
    prompt.profile = profile;
    let options = RenderOptions { profile: Some(profile), ..RenderOptions::default() };
    let renderer = Renderer::with_options(prompt, options).map_err(|e| e.to_string())?;
    renderer.render_text(inputs).map_err(|e| e.to_string())
}

#[derive(Default)]
struct Tally {
    agree: AtomicUsize,
    waived: AtomicUsize,
    total: AtomicUsize,
}

fn main() {
    let args = Arguments::from_args();
    let cases = golden();
    let (waivers, _) = waivers(&cases);
    let waivers = Arc::new(waivers);
    let tally = Arc::new(Tally::default());
    let dump: Option<Arc<Mutex<std::fs::File>>> = std::env::var_os("JINJA_DIFF_DUMP")
        .map(|p| Arc::new(Mutex::new(std::fs::File::create(p).expect("JINJA_DIFF_DUMP file"))));
    let mut trials = Vec::new();
    for case in cases {
        let case = Arc::new(case);
        for (pname, profile) in PROFILES {
            let n = case["n"].as_u64().unwrap_or(0);
            let tag = case["tag"].as_str().unwrap_or("?");
            let name = format!("jinja_diff::{n:04}::{pname}::{tag}");
            let (case, waivers, tally, dump) = (case.clone(), waivers.clone(), tally.clone(), dump.clone());
            trials.push(Trial::test(name, move || run_case(&case, pname, profile, &waivers, &tally, dump.as_deref())));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let total = tally.total.load(Ordering::Relaxed);
    if total > 0 {
        let agree = tally.agree.load(Ordering::Relaxed);
        let waived = tally.waived.load(Ordering::Relaxed);
        eprintln!(
            "jinja differential: {agree} of {total} agree ({:.1}%); {waived} waived differences; {} of {} templates x profiles failed",
            agree as f64 * 100.0 / total as f64,
            conclusion.num_failed,
            conclusion.num_passed + conclusion.num_failed,
        );
    }
    conclusion.exit();
}

fn run_case(
    case: &Value,
    pname: &str,
    profile: Profile,
    waivers: &Waivers,
    tally: &Tally,
    dump: Option<&Mutex<std::fs::File>>,
) -> Result<(), Failed> {
    let template = case["template"].as_str().unwrap_or_default();
    let inputs = case["inputs"].as_object().cloned().unwrap_or_default();
    let want = &case[pname];
    let got = render(template, &inputs, profile);
    let agree = match (want.get("out").and_then(Value::as_str), &got) {
        (Some(w), Ok(g)) => w == g,
        (None, Err(_)) => true,
        _ => false,
    };
    tally.total.fetch_add(1, Ordering::Relaxed);
    let id = case["id"].as_str().unwrap_or_default();
    let waiver = waivers.get(&(id.to_owned(), pname.to_owned()));
    if !agree && let Some(file) = dump {
        let line = json!({
            "id": id, "n": case["n"], "profile": pname, "tag": case["tag"], "waiver": waiver,
            "template": template, "inputs": inputs, "want": want,
            "got": match &got { Ok(s) => json!({"out": s}), Err(e) => json!({"error": e}) },
        });
        if let Ok(mut f) = file.lock() {
            let _ = writeln!(f, "{line}");
        }
    }
    match (agree, waiver) {
        (true, None) => {
            tally.agree.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
        (true, Some(category)) => {
            tally.agree.fetch_add(1, Ordering::Relaxed);
            Err(format!("waived as `{category}` in waivers.json, but now agrees with jinja2: remove the waiver").into())
        }
        (false, Some(_)) => {
            tally.waived.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
        (false, None) => {
            let got = match &got {
                Ok(s) => format!("{s:?}"),
                Err(e) => format!("error: {e}"),
            };
            let want = match (want.get("out").and_then(Value::as_str), want.get("error")) {
                (Some(s), _) => format!("{s:?}"),
                (None, Some(e)) => format!("error: {e}"),
                _ => "?".to_owned(),
            };
            Err(format!(
                "template {template:?}\n  inputs {}\n  jinja2 {want}\n     got {got}",
                serde_json::to_string(&inputs).unwrap_or_default()
            )
            .into())
        }
    }
}
