//! Runs every vector of the Prompty spec's `process.json`: the raw provider response is
//! processed and the result must equal the expected one as a JSON value.

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_wire::{Api, Provider, ResponseSpec, ResultFormat, process};
use serde_json::Value;

const VECTORS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/prompty-spec/vectors/process.json");

fn main() {
    let args = Arguments::from_args();
    let text = std::fs::read_to_string(VECTORS)
        .unwrap_or_else(|e| panic!("conformance data missing: cannot read {VECTORS}: {e}"));
    let vectors: Vec<Value> = serde_json::from_str(&text).expect("process.json is JSON");
    assert_eq!(vectors.len(), 21, "process.json should hold 21 vectors");
    let trials = vectors
        .into_iter()
        .map(|v| {
            let name = v["name"].as_str().unwrap_or("?").to_owned();
            Trial::test(format!("process::{name}"), move || run(&v))
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    eprintln!("process vectors: {} passed, {} failed", conclusion.num_passed, conclusion.num_failed);
    conclusion.exit();
}

fn run(v: &Value) -> Result<(), Failed> {
    let input = &v["input"];
    let provider = input["provider"].as_str().unwrap_or_default();
    let api = input["apiType"].as_str().unwrap_or_default();
    let provider = Provider::parse(provider).ok_or_else(|| format!("unknown provider `{provider}`"))?;
    let api = Api::parse(api).ok_or_else(|| format!("unknown apiType `{api}`"))?;
    let format = if input["has_outputs"] == true { ResultFormat::Structured } else { ResultFormat::Text };
    let spec = ResponseSpec::new(provider, api).with_format(format);
    let result = process(&spec, &input["response"]).map_err(|e| format!("process failed: {e}"))?;
    let got = result.output.to_value();
    let expected = &v["expected"]["result"];
    if &got != expected {
        return Err(format!("result differs\n--- expected\n{expected}\n--- processed\n{got}").into());
    }
    Ok(())
}
