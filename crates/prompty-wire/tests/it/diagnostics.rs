//! The text of every warning and error the compiler and the processor produce, and the
//! bodies of the conversions the spec's vectors do not cover.

use insta::{assert_json_snapshot, assert_snapshot};
use prompty_syntax::{LoadOptions, MapHost, Prompt, load_str};
use prompty_syntax::{Message, Part};
use prompty_wire::{Api, Compiled, Provider, ResponseSpec, ResultFormat, Target, compile, process};
use serde_json::{Map, Value, json};

fn load(front: &str) -> Prompt {
    let text = format!("---\n{front}\n---\nuser:\nHi\n");
    let loaded = load_str(&text, &MapHost::new(), &LoadOptions::default());
    let errors: Vec<String> = loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
    assert!(errors.is_empty(), "front matter does not load: {errors:?}\n{front}");
    loaded.prompt.expect("a prompt")
}

fn user(text: &str) -> Message {
    Message::text("user", text)
}

fn with_meta(mut m: Message, meta: Value) -> Message {
    if let Value::Object(map) = meta {
        m.metadata = map;
    }
    m
}

fn compiled(prompt: &Prompt, messages: &[Message], target: Target) -> Compiled {
    compile(prompt, messages, target).unwrap_or_else(|e| panic!("compile failed: {e}"))
}

fn warnings(prompt: &Prompt, messages: &[Message], target: Target) -> String {
    let c = compiled(prompt, messages, target);
    c.warnings.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
}

fn error(prompt: &Prompt, messages: &[Message], target: Target) -> String {
    match compile(prompt, messages, target) {
        Ok(c) => panic!("expected an error, got {}", c.body),
        Err(e) => e.to_string(),
    }
}

const GPT: &str = "model: {id: gpt-4o}";

#[test]
fn option_warnings() {
    let all_options = "model:
  id: m
  options:
    temperature: 0.2
    maxOutputTokens: 50
    topP: 0.9
    topK: 40
    frequencyPenalty: 0.1
    presencePenalty: 0.2
    seed: 7
    stopSequences: [END]
    allowMultipleToolCalls: false
    additionalProperties: {temperature: 1.5, tools: [], logprobs: true}";
    let p = load(all_options);
    let hi = [user("Hi")];
    let text = [
        "openai chat:",
        &warnings(&p, &hi, Target::new()),
        "openai responses:",
        &warnings(&p, &hi, Target::new().with_api(Api::Responses)),
        "anthropic:",
        &warnings(&p, &hi, Target::new().with_provider(Provider::Anthropic)),
        "openai embedding:",
        &warnings(&p, &hi, Target::new().with_api(Api::Embedding)),
    ]
    .join("\n");
    assert_snapshot!(text);
}

#[test]
fn options_on_each_api() {
    let p = load(
        "model:
  id: m
  options: {temperature: 0.2, maxOutputTokens: 50, topP: 0.9, topK: 40, seed: 7, stopSequences: [END],
            additionalProperties: {size: 1024x1024, logprobs: true}}",
    );
    let hi = [user("Hi")];
    let bodies = json!({
        "chat": compiled(&p, &hi, Target::new()).body,
        "responses": compiled(&p, &hi, Target::new().with_api(Api::Responses)).body,
        "anthropic": compiled(&p, &hi, Target::new().with_provider(Provider::Anthropic)).body,
        "image": compiled(&p, &hi, Target::new().with_api(Api::Image)).body,
    });
    assert_json_snapshot!(bodies);
}

#[test]
fn message_and_content_warnings() {
    let p = load(GPT);
    let messages = [
        Message::text("system", "Rules."),
        with_meta(user("Hi"), json!({"name": "bob", "id": 7})),
        Message::text("developer", "More rules."),
        Message {
            role: "user".into(),
            content: vec![
                Part::Text { value: "look".into() },
                Part::Image { value: "https://x/cat.png".into(), detail: None, media_type: None },
            ],
            metadata: Map::new(),
        },
        Message::text("assistant", ""),
    ];
    let text = [
        "openai chat:",
        &warnings(&p, &messages, Target::new()),
        "openai responses:",
        &warnings(&p, &messages, Target::new().with_api(Api::Responses)),
        "anthropic:",
        &warnings(&p, &messages, Target::new().with_provider(Provider::Anthropic)),
        "openai embedding:",
        &warnings(&p, &messages, Target::new().with_api(Api::Embedding)),
        "openai image, no user message:",
        &warnings(&p, &[Message::text("system", "x")], Target::new().with_api(Api::Image)),
    ]
    .join("\n");
    assert_snapshot!(text);
}

#[test]
fn tool_and_output_warnings() {
    let p = load(
        "model: {id: m}
tools:
  - name: lookup
    kind: function
    strict: false
    parameters: [{name: q, kind: string, required: true}]
    bindings: {user_id: uid}
outputs:
  - {name: answer, kind: string, required: true}
  - {name: extra, kind: object}
  - name: pick
    kind: union
    oneOf: [{name: text, kind: string}, {name: number, kind: integer}]",
    );
    let hi = [user("Hi")];
    let text = [
        "openai chat:",
        &warnings(&p, &hi, Target::new()),
        "anthropic:",
        &warnings(&p, &hi, Target::new().with_provider(Provider::Anthropic)),
        "openai image:",
        &warnings(&p, &hi, Target::new().with_api(Api::Image)),
    ]
    .join("\n");
    assert_snapshot!(text);
}

#[test]
fn strict_tools_use_the_strict_schema() {
    let p = load(
        "model: {id: m}
tools:
  - name: search
    kind: function
    description: Search the docs
    strict: true
    parameters:
      - {name: query, kind: string, required: true}
      - {name: limit, kind: integer}
      - {name: tenant, kind: string, required: true}
    bindings: {tenant: tenant_id}",
    );
    let c = compiled(&p, &[user("Hi")], Target::new());
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert_json_snapshot!(c.body["tools"]);
}

#[test]
fn names_parse() {
    assert_eq!("Anthropic".parse::<Provider>(), Ok(Provider::Anthropic));
    assert_eq!("responses".parse::<Api>(), Ok(Api::Responses));
    let errors = ["bedrock".parse::<Provider>().map(|_| ()), "completion".parse::<Api>().map(|_| ())];
    let text: Vec<String> = errors.iter().filter_map(|e| e.clone().err()).map(|e| e.to_string()).collect();
    assert_eq!(text.len(), 2);
    assert_snapshot!(text.join("\n"));
}

#[test]
fn target_errors() {
    let hi = [user("Hi")];
    let text = [
        error(&load("model: {id: m, provider: cohere}"), &hi, Target::new()),
        error(&load("model: {id: m, apiType: completion}"), &hi, Target::new()),
        error(&load("model: {id: m, provider: anthropic, apiType: embedding}"), &hi, Target::new()),
        error(&load("name: no-model"), &hi, Target::new()),
        error(&load("model: {id: m, apiType: embedding}"), &[Message::text("user", "")][..0], Target::new()),
    ]
    .join("\n");
    assert_snapshot!(text);
}

#[test]
fn tool_errors() {
    let mcp = load(
        "model: {id: m}
tools:
  - name: docs
    kind: mcp
    connection: {kind: remote, name: docs, endpoint: 'https://mcp.example'}
    serverName: docs",
    );
    let hi = [user("Hi")];
    let text = [
        error(&mcp, &hi, Target::new()),
        error(&mcp, &hi, Target::new().with_provider(Provider::Anthropic)),
        error(&load("model: {id: m}\noutputs: [{name: photo, kind: image}]"), &hi, Target::new()),
    ]
    .join("\n");
    assert_snapshot!(text);
}

#[test]
fn content_errors() {
    let p = load(GPT);
    let part = |part: Part| Message { role: "user".into(), content: vec![part], metadata: Map::new() };
    let audio = part(Part::Audio { value: "UklGR".into(), media_type: None });
    let bare_image = part(Part::Image { value: "iVBOR".into(), detail: None, media_type: None });
    let wav = part(Part::Audio { value: "UklGR".into(), media_type: Some("audio/wav".into()) });
    let text = [
        error(&p, std::slice::from_ref(&audio), Target::new()),
        error(&p, &[bare_image], Target::new()),
        error(&p, std::slice::from_ref(&wav), Target::new().with_provider(Provider::Anthropic)),
        error(&p, &[wav], Target::new().with_api(Api::Responses)),
        error(&p, &[Message::text("narrator", "Once")], Target::new()),
        error(&p, &[Message::text("tool", "42")], Target::new().with_provider(Provider::Anthropic)),
        error(&p, &[Message::text("tool", "42")], Target::new()),
        error(&p, &[Message::text("function", "42")], Target::new()),
        error(
            &p,
            &[with_meta(Message::text("assistant", ""), json!({"tool_calls": "call it"}))],
            Target::new().with_api(Api::Responses),
        ),
    ]
    .join("\n");
    assert_snapshot!(text);
}

#[test]
fn v1_errors() {
    let v1 = load("model:\n  api: chat\n  parameters:\n    max_tokens: 10");
    let completion = load("model:\n  api: completion\n  parameters:\n    max_tokens: 10");
    let hi = [user("Hi")];
    let text = [
        error(&v1, &hi, Target::new()),
        error(&v1, &hi, Target::new().with_model("d").with_api(Api::Responses)),
        error(&completion, &hi, Target::new().with_model("d")),
    ]
    .join("\n");
    assert_snapshot!(text);
}

#[test]
fn v1_model_comes_from_the_override_then_the_configuration() {
    let v1 = load(
        "model:
  api: chat
  configuration: {type: azure_openai, azure_deployment: gpt-judge}
  parameters: {temperature: 0.0, response_format: {type: json_object}, model: ignored}",
    );
    let hi = [user("Hi")];
    let from_file = compiled(&v1, &hi, Target::new());
    assert_eq!(
        serde_json::to_string(&from_file.body).expect("json"),
        r#"{"temperature":0.0,"response_format":{"type":"json_object"},"model":"gpt-judge","messages":[{"role":"user","content":"Hi"}]}"#
    );
    assert_eq!(from_file.provider, Provider::Foundry);
    assert_eq!(from_file.response.format, ResultFormat::JsonObject { outputs: vec![] });
    let overridden = compiled(&v1, &hi, Target::new().with_model("other"));
    assert_eq!(overridden.body["model"], "other");
}

#[test]
fn tool_calls_round_trip_through_each_api() {
    let p = load(
        "model: {id: m}
tools:
  - {name: get_weather, kind: function, strict: false, parameters: [{name: city, kind: string, required: true}]}",
    );
    let messages = [
        Message::text("system", "Be brief."),
        user("Weather in Paris?"),
        with_meta(
            Message { role: "assistant".into(), content: vec![], metadata: Map::new() },
            json!({"tool_calls": [{"id": "call_1", "type": "function",
                                   "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]}),
        ),
        with_meta(Message::text("tool", "sunny"), json!({"tool_call_id": "call_1"})),
    ];
    let bodies = json!({
        "chat": compiled(&p, &messages, Target::new()).body["messages"],
        "responses": compiled(&p, &messages, Target::new().with_api(Api::Responses)).body["input"],
        "anthropic": compiled(&p, &messages, Target::new().with_provider(Provider::Anthropic)).body["messages"],
    });
    assert_json_snapshot!(bodies);
}

#[test]
fn media_parts_on_each_provider() {
    let p = load(GPT);
    let messages = [Message {
        role: "user".into(),
        content: vec![
            Part::Text { value: "Compare".into() },
            Part::Image { value: "iVBOR".into(), detail: Some("low".into()), media_type: Some("image/png".into()) },
            Part::Image { value: "https://x/cat.jpg".into(), detail: Some(String::new()), media_type: None },
            Part::File { value: "data:application/pdf;base64,JVBER".into(), media_type: None },
        ],
        metadata: Map::new(),
    }];
    let bodies = json!({
        "chat": compiled(&p, &messages, Target::new()).body["messages"],
        "responses": compiled(&p, &messages, Target::new().with_api(Api::Responses)).body["input"],
        "anthropic": compiled(&p, &messages, Target::new().with_provider(Provider::Anthropic)).body["messages"],
    });
    assert_json_snapshot!(bodies);
}

#[test]
fn process_errors() {
    let chat = ResponseSpec::new(Provider::OpenAi, Api::Chat);
    let json_object = chat.clone().with_format(ResultFormat::JsonObject { outputs: vec!["score".into()] });
    let reply = |text: &str| json!({"choices": [{"message": {"role": "assistant", "content": text}}]});
    let text = [
        process(&chat, &json!({"id": "x"})).map(|_| ()).expect_err("no choices"),
        process(&chat, &json!({"error": {"message": "Rate limit reached", "type": "rate_limit"}}))
            .map(|_| ())
            .expect_err("error"),
        process(&json_object, &reply("Score: 4")).map(|_| ()).expect_err("not json"),
        process(&json_object, &reply("{\"reason\": \"ok\"}")).map(|_| ()).expect_err("missing key"),
        process(&ResponseSpec::new(Provider::OpenAi, Api::Embedding), &json!({"data": []}))
            .map(|_| ())
            .expect_err("empty"),
        process(&ResponseSpec::new(Provider::OpenAi, Api::Image), &json!({"data": [{"revised_prompt": "x"}]}))
            .map(|_| ())
            .expect_err("no image"),
        process(
            &ResponseSpec::new(Provider::Anthropic, Api::Chat),
            &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        )
        .map(|_| ())
        .expect_err("anthropic error"),
        process(&ResponseSpec::new(Provider::Anthropic, Api::Embedding), &json!({})).map(|_| ()).expect_err("no api"),
    ]
    .iter()
    .map(ToString::to_string)
    .collect::<Vec<_>>()
    .join("\n");
    assert_snapshot!(text);
}

#[test]
fn process_keeps_metadata_and_declared_outputs() {
    let spec = ResponseSpec::new(Provider::OpenAi, Api::Chat)
        .with_format(ResultFormat::JsonObject { outputs: vec!["score".into(), "reason".into()] });
    let response = json!({
        "id": "chatcmpl-1",
        "model": "gpt-4o-2024-08-06",
        "choices": [{"message": {"role": "assistant", "content": "{\"reason\": \"ok\", \"score\": 4, \"x\": 1}"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280},
    });
    let r = process(&spec, &response).expect("processed");
    assert_eq!(r.output.to_value(), json!({"score": 4, "reason": "ok"}));
    assert_eq!(r.finish_reason.as_deref(), Some("stop"));
    assert_eq!(r.model.as_deref(), Some("gpt-4o-2024-08-06"));
    assert_eq!(r.id.as_deref(), Some("chatcmpl-1"));
    let usage = r.usage.expect("usage");
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (Some(1200), Some(80), Some(1280)));
}

#[test]
fn response_spec_follows_the_prompt() {
    let structured = load("model: {id: m}\noutputs: [{name: a, kind: string}]");
    let spec = ResponseSpec::for_prompt(&structured, &Target::new()).expect("spec");
    assert_eq!(spec.format, ResultFormat::Structured);
    let c = compiled(&structured, &[user("Hi")], Target::new());
    assert_eq!(c.response, spec);
    let embedding = ResponseSpec::for_prompt(&structured, &Target::new().with_api(Api::Embedding)).expect("spec");
    assert_eq!(embedding.format, ResultFormat::Text);
}

#[test]
fn errors_and_warnings_show_env_values_as_references() {
    let host = MapHost::new().with_env("SECRET", "sk-test-SECRET-1234");
    let load_env = |front: &str| {
        let text = format!("---\n{front}\n---\nuser:\nHi\n");
        load_str(&text, &host, &LoadOptions::default()).prompt.expect("a prompt")
    };
    let p = load_env("model:\n  id: m\n  provider: ${env:SECRET}");
    assert_eq!(
        error(&p, &[user("Hi")], Target::new()),
        "unknown provider `${env:SECRET}`: set `model.provider` to openai, azure, foundry or anthropic, or override the provider"
    );
    let p = load_env(
        "model: {id: m}\ninputs:\n  u: {kind: string, default: x}\ntools:\n  - name: ${env:SECRET}\n    kind: mcp\n    serverName: s",
    );
    assert!(error(&p, &[user("Hi")], Target::new()).starts_with("tool `${env:SECRET}` has kind `mcp`"));
    let p = load_env(
        "model: {id: m}\ninputs:\n  u: {kind: string, default: x}\ntools:\n  - name: ${env:SECRET}\n    kind: function\n    parameters: {a: {kind: string}}\n    bindings: {nope: u}",
    );
    let c = compiled(&p, &[user("Hi")], Target::new());
    let shown = c.warnings.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
    assert!(shown.starts_with("tool `${env:SECRET}` binds `nope`"), "{shown}");
    // The request carries the real name: it is what the provider is sent.
    assert_eq!(c.body["tools"][0]["function"]["name"], "sk-test-SECRET-1234");
}

/// Item 5: `process()` errors never quote a value `${env:}` supplied to the prompt, through
/// the spec a compile gives, [`ResponseSpec::for_prompt`] or `with_secrets`: a provider
/// error echoing the key, an answer quoting it, a declared output named by it.
#[test]
fn process_errors_show_env_values_as_references() {
    const KEY: &str = "sk-test-SECRET-1234";
    let host = MapHost::new().with_env("SECRET", KEY).with_env("OUT", "score-from-env");
    let text = "---\nmodel:\n  id: m\n  connection: {kind: key, endpoint: 'https://example.invalid', apiKey: '${env:SECRET}'}\noutputs:\n  - name: ${env:OUT}\n    kind: string\n---\nuser:\nHi\n";
    let p = load_str(text, &host, &LoadOptions::default()).prompt.expect("a prompt");
    let echo =
        json!({"error": {"message": format!("Incorrect API key provided: {KEY}"), "type": "invalid_request_error"}});
    let reply = |text: &str| json!({"choices": [{"message": {"role": "assistant", "content": text}}]});
    let from_compile = compiled(&p, &[user("Hi")], Target::new()).response;
    let from_prompt = ResponseSpec::for_prompt(&p, &Target::new()).expect("spec");
    assert_eq!(from_compile, from_prompt);
    let by_hand = ResponseSpec::new(Provider::OpenAi, Api::Chat)
        .with_format(ResultFormat::JsonObject { outputs: vec!["score-from-env".into()] })
        .with_secrets(p.secrets.clone());
    for spec in [&from_compile, &by_hand] {
        let e = process(spec, &echo).map(|_| ()).expect_err("provider error").to_string();
        assert!(e.contains("Incorrect API key provided: ${env:SECRET}") && !e.contains(KEY), "{e}");
    }
    let e = process(&by_hand, &reply(&format!("{{\"other\": \"{KEY}\"}}"))).map(|_| ()).expect_err("missing key");
    let e = e.to_string();
    assert!(e.contains("${env:OUT}") && !e.contains("score-from-env") && !e.contains(KEY), "{e}");
    let e = process(&by_hand, &reply(&format!("not json {KEY}"))).map(|_| ()).expect_err("not json").to_string();
    assert!(!e.contains(KEY), "{e}");
    // Without secrets the same error quotes the text as the provider sent it.
    let plain = ResponseSpec::new(Provider::OpenAi, Api::Chat);
    assert!(process(&plain, &echo).map(|_| ()).expect_err("error").to_string().contains(KEY));
}
