//! Conformance: the Prompty spec's render, parse and render-segments vectors, and the
//! azure-ai-evaluation prompts rendered byte for byte like promptflow-core. Every case is
//! reported by name.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_render::{Message, Part, Renderer, split_messages};
use prompty_syntax::{LoadOptions, MapHost, Profile, Prompt, load_path, load_str};
use serde_json::{Map, Value, json};

fn conformance() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("conformance data missing: cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn vectors(family: &str) -> Vec<Value> {
    match read_json(&conformance().join(format!("prompty-spec/vectors/{family}.json"))) {
        Value::Array(a) => a,
        _ => panic!("{family}.json is not an array"),
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for v in vectors("render") {
        let name = v["name"].as_str().unwrap_or("?").to_owned();
        trials.push(Trial::test(format!("render::{name}"), move || render_case(&v)));
    }
    for v in vectors("parse") {
        let name = v["name"].as_str().unwrap_or("?").to_owned();
        trials.push(Trial::test(format!("parse::{name}"), move || parse_case(&v)));
    }
    for v in vectors("render-segments") {
        let name = v["name"].as_str().unwrap_or("?").to_owned();
        trials.push(Trial::test(format!("render-segments::{name}"), move || segments_case(&v)));
    }
    let inputs_dir = conformance().join("azure-eval/inputs");
    let mut names: Vec<String> = std::fs::read_dir(&inputs_dir)
        .unwrap_or_else(|e| panic!("conformance data missing: {}: {e}", inputs_dir.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 46, "azure-eval/inputs should hold 46 cases");
    for n in names {
        let stem = n.trim_end_matches(".json").to_owned();
        trials.push(Trial::test(format!("azure-eval::{stem}"), move || azure_case(&stem)));
    }
    let conclusion = libtest_mimic::run(&args, trials);
    eprintln!("render conformance: {} passed, {} failed", conclusion.num_passed, conclusion.num_failed);
    conclusion.exit();
}

/// A prompt whose body is `template`, declaring the thread inputs the vector uses.
fn prompt_for(template: &str, engine: &str, inputs: &Map<String, Value>) -> Prompt {
    let mut declared = Map::new();
    for (k, v) in inputs {
        if v.get("_kind").and_then(Value::as_str) == Some("thread") {
            declared.insert(k.clone(), json!({"kind": "thread"}));
        }
    }
    let fm = json!({"name": "vector", "inputs": declared, "template": {"format": engine, "parser": "prompty"}});
    let text = format!("---\n{fm}\n---\n{template}");
    let loaded = load_str(&text, &MapHost::new(), &LoadOptions::default());
    let mut prompt = loaded.prompt.expect("vector prompt loads");
    // The vector's template is the body exactly as given.
    prompt.instructions = Some(template.to_owned());
    prompt
}

fn plain_inputs(inputs: &Map<String, Value>) -> Map<String, Value> {
    inputs
        .iter()
        .map(|(k, v)| match v.get("_kind").and_then(Value::as_str) {
            Some("thread") => (k.clone(), v.get("messages").cloned().unwrap_or(Value::Null)),
            _ => (k.clone(), v.clone()),
        })
        .collect()
}

fn render_case(v: &Value) -> Result<(), Failed> {
    let input = &v["input"];
    let inputs = input["inputs"].as_object().cloned().unwrap_or_default();
    let prompt = prompt_for(input["template"].as_str().unwrap_or(""), input["engine"].as_str().unwrap_or(""), &inputs);
    let renderer = Renderer::new(prompt).map_err(|e| e.to_string())?;
    let out = renderer.render_text(&plain_inputs(&inputs)).map_err(|e| e.to_string())?;
    if let Some(expected) = v["expected"]["rendered"].as_str()
        && out != expected
    {
        return Err(format!("expected {expected:?}\n     got {out:?}").into());
    }
    if let Some(pattern) = v["expected"]["nonce_pattern"].as_str()
        && !nonce_pattern_matches(pattern, &out)
    {
        return Err(format!("{out:?} does not match {pattern:?}").into());
    }
    Ok(())
}

/// The one nonce pattern in the vectors: literal text around `__PROMPTY_THREAD_[a-f0-9]{8}_NAME__`.
fn nonce_pattern_matches(pattern: &str, out: &str) -> bool {
    let body = pattern.trim_start_matches('^').trim_end_matches('$').replace("\\n", "\n").replace("\\.", ".");
    let Some((before, rest)) = body.split_once("__PROMPTY_THREAD_[a-f0-9]{8}_") else { return false };
    let Some(i) = out.find("__PROMPTY_THREAD_") else { return false };
    let (o_before, o_rest) = out.split_at(i);
    let hex = o_rest.get(17..25).unwrap_or("");
    o_before == before
        && hex.len() == 8
        && hex.chars().all(|c| matches!(c, 'a'..='f' | '0'..='9'))
        && o_rest.get(26..) == Some(rest)
        && o_rest.get(25..26) == Some("_")
}

fn parse_case(v: &Value) -> Result<(), Failed> {
    let input = &v["input"];
    let rendered = input["rendered"].as_str().unwrap_or("");
    let mut messages = split_messages(rendered);
    if let Some(threads) = input["thread_inputs"].as_object() {
        // Parse with thread expansion: declare the threads and prepare a body that is the rendered text.
        let mut inputs = Map::new();
        for (k, msgs) in threads {
            inputs.insert(k.clone(), json!({"_kind": "thread", "messages": msgs}));
        }
        let mut prompt = prompt_for("", "jinja2", &inputs);
        // The template renders each thread input where the vector shows its placeholder.
        let mut body = rendered.to_owned();
        for k in threads.keys() {
            body = body.replace(&format!("__PROMPTY_THREAD_abcd1234_{k}__"), &format!("{{{{ {k} }}}}"));
        }
        prompt.instructions = Some(body);
        prompt.template.format.strict = Some(false);
        let renderer = Renderer::new(prompt).map_err(|e| e.to_string())?;
        let given = plain_inputs(&inputs);
        messages = renderer.prepare(&given).map_err(|e| e.to_string())?;
    }
    let actual = serde_json::to_value(&messages).map_err(|e| e.to_string())?;
    let expected = &v["expected"]["messages"];
    if &actual != expected {
        return Err(format!("expected {expected}\n     got {actual}").into());
    }
    Ok(())
}

fn segments_case(v: &Value) -> Result<(), Failed> {
    let input = &v["input"];
    let inputs = input["inputs"].as_object().cloned().unwrap_or_default();
    let strict: Vec<String> =
        input["strict_props"].as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_owned)).collect();
    let prompt = prompt_for(input["template"].as_str().unwrap_or(""), input["engine"].as_str().unwrap_or(""), &inputs);
    let renderer = Renderer::new(prompt).map_err(|e| e.to_string())?;
    let result = renderer.render_segments(&inputs, &strict);
    match (v["expected"].get("error").and_then(Value::as_str), result) {
        (Some(token), Err(e)) if e.to_string().contains(token) => Ok(()),
        (Some(token), Err(e)) => Err(format!("expected {token}, got error {e}").into()),
        (Some(token), Ok(s)) => Err(format!("expected {token}, got segments {s:?}").into()),
        (None, Err(e)) => Err(e.to_string().into()),
        (None, Ok(segments)) => {
            let actual = serde_json::to_value(&segments).map_err(|e| e.to_string())?;
            if actual == v["expected"]["segments"] {
                Ok(())
            } else {
                Err(format!("expected {}\n     got {actual}", v["expected"]["segments"]).into())
            }
        }
    }
}

/// `<version>__<evaluator>__<file>__<scenario>` renders with `prompts/<version>__<evaluator>__<file>.prompty`.
fn azure_case(stem: &str) -> Result<(), Failed> {
    let root = conformance().join("azure-eval");
    let prompt_stem = stem.rsplit_once("__").map(|(p, _)| p).ok_or("bad case name")?;
    let path = root.join("prompts").join(format!("{prompt_stem}.prompty"));
    let host = prompty_cli_free_host(&path);
    let loaded = load_path(&path, &host, &LoadOptions::default()).map_err(|e| e.to_string())?;
    let (prompt, _) = loaded.into_result().map_err(|d| format!("{d:?}"))?;
    if prompt.profile != Profile::Promptflow {
        return Err(format!("{prompt_stem} was not detected as a v1 (promptflow) file").into());
    }
    let inputs = read_json(&root.join("inputs").join(format!("{stem}.json")));
    let renderer = Renderer::new(prompt).map_err(|e| e.to_string())?;
    let messages =
        renderer.prepare(inputs.as_object().ok_or("inputs are not an object")?).map_err(|e| e.to_string())?;
    let actual = serde_json::to_string(&openai_messages(&messages)).map_err(|e| e.to_string())?;
    let expected = read_json(&root.join("expected").join(format!("{stem}.json")));
    let expected = serde_json::to_string(&expected).map_err(|e| e.to_string())?;
    if actual != expected {
        let diff_at = actual.bytes().zip(expected.bytes()).position(|(a, b)| a != b).unwrap_or(0);
        let lo = diff_at.saturating_sub(80);
        return Err(format!(
            "first difference at byte {diff_at}\nexpected …{}\n     got …{}",
            expected.get(lo..(diff_at + 80).min(expected.len())).unwrap_or(""),
            actual.get(lo..(diff_at + 80).min(actual.len())).unwrap_or("")
        )
        .into());
    }
    Ok(())
}

/// The `{role, content}` form promptflow builds (text-only messages: content is a string).
fn openai_messages(messages: &[Message]) -> Value {
    Value::Array(
        messages
            .iter()
            .map(|m| {
                let mut o = Map::new();
                o.insert("role".into(), json!(m.role));
                let text: Vec<&str> = m
                    .content
                    .iter()
                    .filter_map(|p| match p {
                        Part::Text { value } => Some(value.as_str()),
                        _ => None,
                    })
                    .collect();
                o.insert("content".into(), json!(text.concat()));
                for (k, v) in &m.metadata {
                    o.insert(k.clone(), v.clone());
                }
                Value::Object(o)
            })
            .collect(),
    )
}

/// A map host holding just the prompt file (the azure prompts reference no other files).
fn prompty_cli_free_host(path: &Path) -> MapHost {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    MapHost::new().with_file(path, &text)
}
