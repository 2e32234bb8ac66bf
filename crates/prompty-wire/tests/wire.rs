//! Runs every vector of the Prompty spec's `wire.json`: the vector's model, tools,
//! options and outputs are written as front matter and loaded, its messages are read in
//! canonical form, and the compiled body must equal the expected one as a JSON value.

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_syntax::Message;
use prompty_syntax::{LoadOptions, MapHost, load_str};
use prompty_wire::{Target, compile};
use serde_json::{Map, Value};

const VECTORS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/prompty-spec/vectors/wire.json");

fn main() {
    let args = Arguments::from_args();
    let text = std::fs::read_to_string(VECTORS)
        .unwrap_or_else(|e| panic!("conformance data missing: cannot read {VECTORS}: {e}"));
    let vectors: Vec<Value> = serde_json::from_str(&text).expect("wire.json is JSON");
    assert_eq!(vectors.len(), 28, "wire.json should hold 28 vectors");
    let trials = vectors
        .into_iter()
        .map(|v| {
            let name = v["name"].as_str().unwrap_or("?").to_owned();
            Trial::test(format!("wire::{name}"), move || run(&v))
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    eprintln!("wire vectors: {} passed, {} failed", conclusion.num_passed, conclusion.num_failed);
    conclusion.exit();
}

fn run(v: &Value) -> Result<(), Failed> {
    let input = &v["input"];
    let mut model = Map::new();
    model.insert("id".into(), input["model_id"].clone());
    model.insert("provider".into(), input["provider"].clone());
    model.insert("apiType".into(), input["apiType"].clone());
    model.insert("options".into(), input["options"].clone());
    let mut front = Map::new();
    front.insert("model".into(), Value::Object(model));
    front.insert("tools".into(), input["tools"].clone());
    front.insert("outputs".into(), input["outputs"].clone());
    // JSON is YAML: the front matter is written as one flow mapping.
    let text = format!("---\n{}\n---\n", Value::Object(front));
    let loaded = load_str(&text, &MapHost::new(), &LoadOptions::default());
    let (prompt, _) = loaded.into_result().map_err(|diags| {
        let all: Vec<String> = diags.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
        format!("the vector's front matter does not load: {}", all.join("; "))
    })?;
    let messages: Vec<Message> = serde_json::from_value(input["messages"].clone())
        .map_err(|e| format!("the vector's messages are not canonical messages: {e}"))?;
    let compiled = compile(&prompt, &messages, Target::new()).map_err(|e| format!("compile failed: {e}"))?;
    let expected = &v["expected"]["request_body"];
    if &compiled.body != expected {
        return Err(format!(
            "request body differs\n--- expected\n{}\n--- compiled\n{}\n--- warnings\n{:?}",
            pretty(expected),
            pretty(&compiled.body),
            compiled.warnings
        )
        .into());
    }
    Ok(())
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
