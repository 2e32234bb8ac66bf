//! Every prompt of `prompts/`, of the spec's fixtures and of the azure-eval judge prompts,
//! compiled for each provider (and for OpenAI responses where the prompt is a chat prompt),
//! and each body validated against that provider's documented request fields
//! (`tests/data/request-schemas/`, top level `additionalProperties: false`). A compile that
//! fails must fail with an error that names what the target cannot express.
//!
//! The snapshot is what a user sees for each prompt and target: the warnings, or the error.

use std::path::{Path, PathBuf};

use prompty_render::Renderer;
use prompty_syntax::{LoadOptions, MapHost, Prompt, PropertyKind, load_str};
use prompty_wire::{Api, Error, Provider, Target, compile, request_fields};
use serde_json::{Map, Value, json};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance");

fn schema_file(provider: Provider, api: Api) -> &'static str {
    match (provider, api) {
        (Provider::Anthropic, _) => "anthropic-messages",
        (_, Api::Chat) => "openai-chat",
        (_, Api::Responses) => "openai-responses",
        (_, Api::Embedding) => "openai-embeddings",
        (_, Api::Image) => "openai-images",
        (p, a) => panic!("no request schema for {p} {a}"),
    }
}

fn schema(provider: Provider, api: Api) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/request-schemas")
        .join(format!("{}.schema.json", schema_file(provider, api)));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn validator(provider: Provider, api: Api) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema(provider, api))
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", schema_file(provider, api)))
}

/// The `.prompty` files of a folder, sorted; a missing folder fails the test.
fn prompty_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "prompty"))
        .collect();
    files.sort();
    files
}

/// A value for each input the prompt needs and has no default for.
fn sample_inputs(prompt: &Prompt) -> Map<String, Value> {
    let mut inputs = Map::new();
    for p in prompt.inputs.iter().flatten() {
        if p.default.is_some() {
            continue;
        }
        let value = match p.kind {
            PropertyKind::Integer => json!(3),
            PropertyKind::Float => json!(0.5),
            PropertyKind::Boolean => json!(true),
            PropertyKind::Array => json!(["one", "two"]),
            PropertyKind::Object => json!({"key": "value"}),
            PropertyKind::Thread => json!([{"role": "user", "content": "Earlier question"}]),
            PropertyKind::Image => json!("https://example.com/photo.png"),
            PropertyKind::Audio => json!("data:audio/wav;base64,UklGRg=="),
            PropertyKind::File => json!("https://example.com/report.pdf"),
            _ => Value::String(format!("sample {}", p.name)),
        };
        inputs.insert(p.name.clone(), value);
    }
    inputs
}

/// The targets a prompt is compiled for: each provider with the prompt's own API, and
/// OpenAI responses for a chat prompt. A prompt without a model (the azure-eval prompts
/// get theirs from the caller) is compiled for a deployment named `judge-deployment`.
fn targets(prompt: &Prompt) -> Vec<Target> {
    let base = if prompt.model.as_ref().is_some_and(|m| !m.id.is_empty()) {
        Target::new()
    } else {
        Target::new().with_model("judge-deployment")
    };
    let mut targets: Vec<Target> = Provider::ALL.iter().map(|p| base.clone().with_provider(*p)).collect();
    let api = prompt.model.as_ref().and_then(|m| m.api_type.as_deref()).unwrap_or("chat");
    if api == "chat" && prompt.profile == prompty_syntax::Profile::Spec {
        targets.push(base.with_provider(Provider::OpenAi).with_api(Api::Responses));
    }
    targets
}

/// Errors a target may answer with: what it cannot express, named.
fn acceptable(e: &Error) -> bool {
    matches!(e, Error::UnsupportedApi { .. } | Error::UnsupportedTool { .. } | Error::UnsupportedPart { .. })
}

#[test]
fn every_prompt_compiles_to_documented_fields_for_every_provider() {
    let host = MapHost::new()
        .with_env("OPENAI_API_KEY", "sk-test")
        .with_env("OPENAI_ENDPOINT", "https://api.openai.com/v1")
        .with_env("AZURE_OPENAI_API_KEY", "key")
        .with_env("AZURE_OPENAI_ENDPOINT", "https://example.openai.azure.com");
    let dirs = [
        Path::new(ROOT).join("prompts"),
        Path::new(SHARED).join("prompty-spec/fixtures"),
        Path::new(SHARED).join("azure-eval/prompts"),
    ];
    let mut report = Vec::new();
    let mut failures = Vec::new();
    let mut validated = 0;
    for dir in &dirs {
        for path in prompty_files(dir) {
            let name = format!(
                "{}/{}",
                dir.file_name().and_then(|n| n.to_str()).unwrap_or_default(),
                path.file_name().and_then(|n| n.to_str()).unwrap_or_default()
            );
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let opts = LoadOptions { path: Some(path.clone()), ..LoadOptions::default() };
            let Some(prompt) = load_str(&text, &host, &opts).prompt else {
                failures.push(format!("{name}: does not load"));
                continue;
            };
            let inputs = sample_inputs(&prompt);
            let renderer = match Renderer::new(prompt.clone()) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{name}: does not compile: {e}"));
                    continue;
                }
            };
            let messages = match renderer.prepare(&inputs) {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{name}: does not render: {e}"));
                    continue;
                }
            };
            for target in targets(&prompt) {
                let label = format!(
                    "{} {}",
                    target.provider.map_or("default", |p| p.as_str()),
                    target.api.map_or("", |a| a.as_str())
                );
                match compile(&prompt, &messages, target.clone()) {
                    Ok(c) => {
                        let errors: Vec<String> = validator(c.provider, c.api)
                            .iter_errors(&c.body)
                            .map(|e| format!("{} at {}", e, e.instance_path()))
                            .collect();
                        if !errors.is_empty() {
                            failures.push(format!("{name} [{label}]: {}\n{:#}", errors.join("; "), c.body));
                        }
                        validated += 1;
                        // Azure and Foundry bodies are OpenAI's; the snapshot shows the others.
                        if !matches!(c.provider, Provider::Azure | Provider::Foundry) {
                            let warnings: Vec<String> = c.warnings.iter().map(|w| format!("  warning: {w}")).collect();
                            report.push(format!("{name} [{} {}]: ok", c.provider, c.api));
                            report.extend(warnings);
                        }
                    }
                    Err(e) if acceptable(&e) => {
                        if target.provider != Some(Provider::Azure) && target.provider != Some(Provider::Foundry) {
                            report.push(format!("{name} [{label}]: error: {e}"));
                        }
                    }
                    Err(e) => failures.push(format!("{name} [{label}]: unexpected error: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(validated > 150, "only {validated} bodies were validated");
    insta::assert_snapshot!(report.join("\n"));
}

#[test]
fn schemas_list_the_fields_the_compiler_knows() {
    let apis = [
        (Provider::OpenAi, Api::Chat),
        (Provider::OpenAi, Api::Responses),
        (Provider::OpenAi, Api::Embedding),
        (Provider::OpenAi, Api::Image),
        (Provider::Anthropic, Api::Chat),
    ];
    for (provider, api) in apis {
        let schema = schema(provider, api);
        let mut documented: Vec<&str> =
            schema["properties"].as_object().expect("properties").keys().map(String::as_str).collect();
        documented.sort_unstable();
        let mut known = request_fields(provider, api).to_vec();
        known.sort_unstable();
        assert_eq!(documented, known, "{provider} {api}: the schema and the compiler's field list differ");
        assert_eq!(schema["additionalProperties"], json!(false), "{provider} {api}");
    }
}

#[test]
fn the_schemas_reject_unknown_fields() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "Hi"}], "response_format": {"type": "json_object"}});
    assert!(validator(Provider::OpenAi, Api::Chat).is_valid(&body));
    assert!(!validator(Provider::Anthropic, Api::Chat).is_valid(&body));
    let mut with_max = body.clone();
    with_max["max_tokens"] = json!(10);
    with_max.as_object_mut().expect("object").remove("response_format");
    with_max["messages"][0]["content"] = json!([{"type": "text", "text": "Hi"}]);
    assert!(validator(Provider::Anthropic, Api::Chat).is_valid(&with_max));
}

/// The message shapes the promptflow profile makes from its input sub-syntax (an image part
/// from an image input, an assistant message with `tool_calls` and no content, a tool
/// result) validate against every provider's schema too; no prompt file above has them.
#[test]
fn promptflow_images_and_tool_calls_validate_for_every_provider() {
    let text = "---\nname: t\nmodel:\n  api: chat\n  configuration: {type: openai, model: gpt-4o}\n  parameters: {temperature: 0, response_format: {type: json_object}}\ninputs:\n  img: {type: string}\n---\nsystem:\nDescribe as JSON.\n\nuser:\nWhat is this? ![image]({{img}})\n\nassistant:\ntool_calls:\n[{'id': 'c1', 'type': 'function', 'function': {'name': 'zoom', 'arguments': '{\"level\": 2}'}}]\n\ntool:\ntool_call_id:\nc1\ncontent:\nzoomed\n";
    let prompt = load_str(text, &MapHost::new(), &LoadOptions::default()).prompt.expect("loads");
    let renderer = Renderer::new(prompt.clone()).expect("compiles");
    for img in ["data:image/png;base64: aGVsbG8=", "data:image/jpeg;url: https://example.com/a.jpg"] {
        let inputs: Map<String, Value> = [("img".to_owned(), json!(img))].into_iter().collect();
        let messages = renderer.prepare(&inputs).expect("prepares");
        assert!(messages[1].content.len() == 2 && messages[2].metadata.contains_key("tool_calls"), "{messages:?}");
        for target in targets(&prompt) {
            let target = target.with_model("m");
            let c = compile(&prompt, &messages, target.clone())
                .unwrap_or_else(|e| panic!("{img} for {:?}: {e}", target.provider));
            let errors: Vec<String> = validator(c.provider, c.api)
                .iter_errors(&c.body)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{img} for {} {}: {}\n{:#}", c.provider, c.api, errors.join("; "), c.body);
        }
    }
}
