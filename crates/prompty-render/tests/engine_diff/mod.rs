//! What the Handlebars and Mustache differential tests share: reading the golden cases and
//! the waivers, rendering a body the way a `.prompty` file with `template: {format: ...}`
//! renders it, and one libtest-mimic trial per case.
//!
//! A case agrees when the reference and our renderer give the same text, or both fail
//! (errors are compared by their existence, not their text). Our text is taken twice: from
//! `render_text` (the template's output, compared byte for byte) and from `prepare` (the
//! messages, compared with the reference's text split the same way), and both must agree.
//! A difference without a waiver fails, and so does a waiver whose case agrees.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_render::{Renderer, split_messages};
use prompty_syntax::{LoadOptions, MapHost, load_str};
use serde_json::{Map, Value, json};

/// One differential suite: its folder under `tests/`, the template format, the reference's
/// name and the environment variables that steer it.
pub(crate) struct Suite {
    pub(crate) name: &'static str,
    pub(crate) format: &'static str,
    pub(crate) reference: &'static str,
    pub(crate) golden_var: &'static str,
    pub(crate) dump_var: &'static str,
    pub(crate) min_cases: usize,
}

impl Suite {
    fn data_dir(&self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(self.name)
    }

    /// Another case file than golden.jsonl.
    fn other_golden(&self) -> Option<PathBuf> {
        std::env::var_os(self.golden_var).map(PathBuf::from)
    }

    fn golden(&self) -> Vec<Value> {
        let path = self.other_golden().unwrap_or_else(|| self.data_dir().join("golden.jsonl"));
        let text = read(&path);
        let mut lines = text.lines();
        let header: Value = serde_json::from_str(lines.next().unwrap_or("")).expect("golden.jsonl header");
        let cases: Vec<Value> = lines
            .enumerate()
            .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("golden.jsonl line {}: {e}", i + 2)))
            .collect();
        assert_eq!(header["count"].as_u64(), Some(cases.len() as u64), "golden.jsonl header count");
        assert!(
            self.other_golden().is_some() || cases.len() >= self.min_cases,
            "golden.jsonl holds {} templates; the generator writes at least {}",
            cases.len(),
            self.min_cases
        );
        cases
    }

    /// The waivers: case id -> category.
    fn waivers(&self, cases: &[Value]) -> BTreeMap<String, String> {
        let path = self.data_dir().join("waivers.json");
        let doc: Value = serde_json::from_str(&read(&path)).unwrap_or_else(|e| panic!("waivers.json: {e}"));
        let categories = doc["categories"].as_object().expect("waivers.json: categories");
        for (k, v) in categories {
            assert!(!v.as_str().unwrap_or_default().trim().is_empty(), "waivers.json: category {k} has no reason");
        }
        let ids: BTreeSet<&str> = cases.iter().filter_map(|c| c["id"].as_str()).collect();
        let mut out = BTreeMap::new();
        for w in doc["cases"].as_array().expect("waivers.json: cases") {
            let id = w["id"].as_str().expect("waiver id").to_owned();
            let category = w["category"].as_str().expect("waiver category").to_owned();
            assert!(
                self.other_golden().is_some() || ids.contains(id.as_str()),
                "waivers.json: no case {id} in golden.jsonl"
            );
            assert!(categories.contains_key(&category), "waivers.json: {id} names unknown category {category}");
            assert!(out.insert(id.clone(), category).is_none(), "waivers.json: {id} listed twice");
        }
        if self.other_golden().is_none() {
            let used: BTreeSet<&String> = out.values().collect();
            for c in categories.keys() {
                assert!(used.contains(c), "waivers.json: category {c} waives no case; remove it");
            }
        }
        out
    }

    /// Runs every case as a trial and exits with the result.
    pub(crate) fn run(self) {
        let args = Arguments::from_args();
        let suite = Arc::new(self);
        let cases = suite.golden();
        let waivers = Arc::new(suite.waivers(&cases));
        let tally = Arc::new(Tally::default());
        let dump: Option<Arc<Mutex<std::fs::File>>> = std::env::var_os(suite.dump_var)
            .map(|p| Arc::new(Mutex::new(std::fs::File::create(p).expect("dump file"))));
        let mut trials = Vec::new();
        for case in cases {
            let n = case["n"].as_u64().unwrap_or(0);
            let tag = case["tag"].as_str().unwrap_or("?");
            let name = format!("{}::{n:04}::{tag}", suite.name);
            let (suite, waivers, tally, dump) = (suite.clone(), waivers.clone(), tally.clone(), dump.clone());
            trials.push(Trial::test(name, move || suite.run_case(&case, &waivers, &tally, dump.as_deref())));
        }
        let conclusion = libtest_mimic::run(&args, trials);
        let total = tally.total.load(Ordering::Relaxed);
        if total > 0 {
            let agree = tally.agree.load(Ordering::Relaxed);
            let waived = tally.waived.load(Ordering::Relaxed);
            eprintln!(
                "{} differential: {agree} of {total} agree ({:.1}%); {waived} waived differences; {} of {} templates failed",
                suite.reference,
                agree as f64 * 100.0 / total as f64,
                conclusion.num_failed,
                conclusion.num_passed + conclusion.num_failed,
            );
        }
        conclusion.exit();
    }

    /// Renders `template` as the body of a prompt in this suite's format: the text and the
    /// messages, or the error message.
    fn render(&self, template: &str, inputs: &Map<String, Value>) -> Result<(String, Vec<Value>), String> {
        let head = format!("---\nname: {}\ntemplate: {{format: {}, parser: prompty}}\n---\n", self.name, self.format);
        let loaded = load_str(&head, &MapHost::new(), &LoadOptions::default());
        let mut prompt = loaded.prompt.expect("an empty prompt loads");
        prompt.instructions = Some(template.to_owned());
        let renderer = Renderer::new(prompt).map_err(|e| e.to_string())?;
        let text = renderer.render_text(inputs).map_err(|e| e.to_string())?;
        let messages = renderer.prepare(inputs).map_err(|e| e.to_string())?;
        Ok((text, messages.iter().map(|m| json!(m)).collect()))
    }

    fn run_case(
        &self,
        case: &Value,
        waivers: &BTreeMap<String, String>,
        tally: &Tally,
        dump: Option<&Mutex<std::fs::File>>,
    ) -> Result<(), Failed> {
        let template = case["template"].as_str().unwrap_or_default();
        let inputs = case["inputs"].as_object().cloned().unwrap_or_default();
        let want = &case["want"];
        let got = self.render(template, &inputs);
        let agree = match (want.get("out").and_then(Value::as_str), &got) {
            (Some(w), Ok((text, messages))) => {
                let split: Vec<Value> = split_messages(w).iter().map(|m| json!(m)).collect();
                w == text && split == *messages
            }
            (None, Err(_)) => true,
            _ => false,
        };
        tally.total.fetch_add(1, Ordering::Relaxed);
        let id = case["id"].as_str().unwrap_or_default();
        let waiver = waivers.get(id);
        let shown = match &got {
            Ok((s, _)) => json!({"out": s}),
            Err(e) => json!({"error": e}),
        };
        if !agree && let Some(file) = dump {
            let line = json!({
                "id": id, "n": case["n"], "tag": case["tag"], "waiver": waiver,
                "template": template, "inputs": inputs, "want": want, "got": shown,
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
                Err(format!(
                    "waived as `{category}` in waivers.json, but now agrees with {}: remove the waiver",
                    self.reference
                )
                .into())
            }
            (false, Some(_)) => {
                tally.waived.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            (false, None) => {
                let got = match &got {
                    Ok((s, m)) => format!("{s:?}\n messages {}", serde_json::to_string(m).unwrap_or_default()),
                    Err(e) => format!("error: {e}"),
                };
                let want = match (want.get("out").and_then(Value::as_str), want.get("error")) {
                    (Some(s), _) => format!("{s:?}"),
                    (None, Some(e)) => format!("error: {e}"),
                    _ => "?".to_owned(),
                };
                Err(format!(
                    "template {template:?}\n  inputs {}\n  {} {want}\n     got {got}",
                    serde_json::to_string(&inputs).unwrap_or_default(),
                    self.reference
                )
                .into())
            }
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

#[derive(Default)]
struct Tally {
    agree: AtomicUsize,
    waived: AtomicUsize,
    total: AtomicUsize,
}
