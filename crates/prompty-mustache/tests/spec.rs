//! Runs the official Mustache spec suite (one trial per case, named
//! `<file stem>::<case name>`) and the Prompty render vectors that use the
//! `mustache` engine (`prompty-render::<name>`).
//!
//! The suites are read from the shared conformance folder next to the
//! repository. If it is missing, the run fails with the path it looked at.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use prompty_mustache::Template;
use serde_json::Value;

const SPEC_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/mustache-spec/specs");
const RENDER_VECTORS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/prompty-spec/vectors/render.json");

/// Spec files that must be present and pass.
const REQUIRED: &[&str] =
    &["comments", "delimiters", "interpolation", "inverted", "partials", "sections", "~inheritance", "~dynamic-names"];

/// Spec files whose cases are listed as ignored, with the reason.
const NOT_APPLICABLE: &[(&str, &str)] =
    &[("~lambdas", "lambdas need host-language code in the data; JSON data has none")];

fn main() {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, trials()).exit();
}

fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    let dir = Path::new(SPEC_DIR);
    if !dir.is_dir() {
        let message = format!(
            "Mustache spec suite not found: looked for the folder {} (expected \
             shared/conformance/mustache-spec/specs next to the repository)",
            dir.display()
        );
        trials.push(Trial::test("mustache-spec::suite-present", move || Err(message.into())));
        return trials;
    }
    for stem in REQUIRED {
        trials.extend(spec_file(dir, stem, None));
    }
    for (stem, reason) in NOT_APPLICABLE {
        trials.extend(spec_file(dir, stem, Some(reason)));
    }
    trials.extend(render_vectors());
    trials
}

fn load_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("cannot parse {}: {e}", path.display()))
}

/// One trial per case of `<stem>.json`, or one failing trial if the file
/// cannot be loaded. With `ignore_reason`, every case is reported as ignored.
fn spec_file(dir: &Path, stem: &str, ignore_reason: Option<&str>) -> Vec<Trial> {
    let path: PathBuf = dir.join(format!("{stem}.json"));
    let suite = match load_json(&path) {
        Ok(suite) => suite,
        Err(message) => {
            return vec![Trial::test(format!("{stem}::load"), move || Err(message.into()))];
        }
    };
    let Some(tests) = suite.get("tests").and_then(Value::as_array) else {
        let message = format!("{} has no `tests` array", path.display());
        return vec![Trial::test(format!("{stem}::load"), move || Err(message.into()))];
    };
    tests
        .iter()
        .map(|case| {
            let name = case.get("name").and_then(Value::as_str).unwrap_or("?");
            let trial_name = format!("{stem}::{name}");
            match ignore_reason {
                Some(reason) => {
                    let reason = reason.to_owned();
                    Trial::ignorable_test(trial_name, move || Ok(Completion::ignored_with(reason)))
                }
                None => {
                    let case = case.clone();
                    Trial::test(trial_name, move || run_spec_case(&case))
                }
            }
        })
        .collect()
}

fn field<'a>(case: &'a Value, key: &str) -> Result<&'a Value, Failed> {
    case.get(key).ok_or_else(|| Failed::from(format!("case has no `{key}` field")))
}

fn field_str<'a>(case: &'a Value, key: &str) -> Result<&'a str, Failed> {
    field(case, key)?.as_str().ok_or_else(|| Failed::from(format!("case field `{key}` is not a string")))
}

fn run_spec_case(case: &Value) -> Result<(), Failed> {
    let template = field_str(case, "template")?;
    let data = field(case, "data")?;
    let expected = field_str(case, "expected")?;
    let mut partials: BTreeMap<String, String> = BTreeMap::new();
    if let Some(map) = case.get("partials").and_then(Value::as_object) {
        for (name, source) in map {
            let source = source.as_str().unwrap_or_default();
            partials.insert(name.clone(), source.to_owned());
        }
    }
    check(template, data, &partials, expected)
}

fn check(template: &str, data: &Value, partials: &BTreeMap<String, String>, expected: &str) -> Result<(), Failed> {
    let actual = Template::compile(template).and_then(|t| t.render(data, partials));
    match actual {
        Ok(actual) if actual == expected => Ok(()),
        other => {
            let mut report = String::new();
            let _ = writeln!(report, "template: {template:?}");
            let _ = writeln!(report, "data:     {data}");
            if !partials.is_empty() {
                let _ = writeln!(report, "partials: {partials:?}");
            }
            let _ = writeln!(report, "expected: {expected:?}");
            match other {
                Ok(actual) => {
                    let _ = writeln!(report, "actual:   {actual:?}");
                }
                Err(err) => {
                    let _ = writeln!(report, "error:    {err} ({:?} at {:?})", err.kind(), err.span());
                }
            }
            Err(report.into())
        }
    }
}

/// The Prompty render vectors whose engine is `mustache`.
fn render_vectors() -> Vec<Trial> {
    let path = Path::new(RENDER_VECTORS);
    let vectors = match load_json(path) {
        Ok(vectors) => vectors,
        Err(message) => {
            return vec![Trial::test("prompty-render::load", move || Err(message.into()))];
        }
    };
    let cases: Vec<Value> = vectors
        .as_array()
        .map(|cases| {
            cases
                .iter()
                .filter(|c| c.pointer("/input/engine").and_then(Value::as_str) == Some("mustache"))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if cases.is_empty() {
        return vec![Trial::test("prompty-render::load", move || {
            Err("no `engine: mustache` cases in render.json".into())
        })];
    }
    cases
        .into_iter()
        .map(|case| {
            let name = case.get("name").and_then(Value::as_str).unwrap_or("?").to_owned();
            Trial::test(format!("prompty-render::{name}"), move || {
                let input = field(&case, "input")?;
                let template = field_str(input, "template")?;
                let data = field(input, "inputs")?;
                let expected = case
                    .pointer("/expected/rendered")
                    .and_then(Value::as_str)
                    .ok_or_else(|| Failed::from("case has no `expected.rendered` string"))?;
                check(template, data, &BTreeMap::new(), expected)
            })
        })
        .collect()
}
