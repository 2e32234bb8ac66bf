//! Free-form parameters (v2 `additionalProperties`, v1 `parameters`) on each provider:
//! what is sent as written, what is translated, what is left out with a warning, and the
//! JSON answer read back from Anthropic's forced tool. Also the model-family warning.

use insta::assert_json_snapshot;
use prompty_render::Message;
use prompty_syntax::{LoadOptions, MapHost, Prompt, load_str};
use prompty_wire::{Api, Compiled, Output, Provider, ResponseSpec, Target, Warning, compile, process};
use serde_json::{Value, json};

fn load(front: &str) -> Prompt {
    let text = format!("---\n{front}\n---\nsystem:\nBe a judge.\n\nuser:\nHi\n");
    let loaded = load_str(&text, &MapHost::new(), &LoadOptions::default());
    let errors: Vec<String> = loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
    assert!(errors.is_empty(), "front matter does not load: {errors:?}\n{front}");
    loaded.prompt.expect("a prompt")
}

fn messages() -> Vec<Message> {
    vec![Message::text("system", "Be a judge."), Message::text("user", "Hi")]
}

fn compiled(prompt: &Prompt, target: Target) -> Compiled {
    compile(prompt, &messages(), target).unwrap_or_else(|e| panic!("compile failed: {e}"))
}

/// The body (without the messages, which other tests cover) and the warnings.
fn shown(c: &Compiled) -> Value {
    let mut body = c.body.clone();
    if let Some(o) = body.as_object_mut() {
        o.shift_remove("messages");
        o.shift_remove("input");
    }
    json!({
        "body": body,
        "warnings": c.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "answer_tool": c.response.answer_tool,
    })
}

const JUDGE_V2: &str = "model:
  id: claude-sonnet-4-5
  options:
    temperature: 0
    maxOutputTokens: 800
    additionalProperties:
      response_format: {type: json_object}";

const JUDGE_V1: &str = "model:
  api: chat
  configuration: {type: azure_openai, azure_deployment: claude-judge}
  parameters:
    temperature: 0.0
    max_tokens: 800
    top_p: 1.0
    presence_penalty: 0
    frequency_penalty: 0.5
    seed: 7
    stop: END
    response_format: {type: json_object}
outputs:
  score: {type: integer}";

#[test]
fn json_mode_is_a_forced_answer_tool_on_anthropic() {
    let anthropic = Target::new().with_provider(Provider::Anthropic);
    let v2 = compiled(&load(JUDGE_V2), anthropic.clone());
    let v1 = compiled(&load(JUDGE_V1), anthropic);
    assert_json_snapshot!(json!({"v2": shown(&v2), "v1": shown(&v1)}));
}

#[test]
fn the_answer_tool_reply_is_the_json_answer() {
    let anthropic = Target::new().with_provider(Provider::Anthropic);
    let reply = json!({
        "type": "message",
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "structured_output",
                     "input": {"score": 4, "reason": "fine"}}],
        "stop_reason": "tool_use",
    });
    // v2: the whole object.
    let v2 = load(JUDGE_V2);
    let c = compiled(&v2, anthropic.clone());
    assert_eq!(c.response, ResponseSpec::for_prompt(&v2, &anthropic).expect("spec"));
    let out = process(&c.response, &reply).expect("processes");
    assert_eq!(out.output, Output::Json(json!({"score": 4, "reason": "fine"})));
    // v1 with `outputs`: reduced to them, as promptflow reduces a JSON answer.
    let v1 = load(JUDGE_V1);
    let c = compiled(&v1, anthropic.clone());
    assert_eq!(c.response, ResponseSpec::for_prompt(&v1, &anthropic).expect("spec"));
    assert_eq!(process(&c.response, &reply).expect("processes").output, Output::Json(json!({"score": 4})));
    // A text reply (the model did not call the tool) is still JSON-parsed.
    let text = json!({"content": [{"type": "text", "text": "{\"score\": 2}"}], "stop_reason": "end_turn"});
    assert_eq!(process(&c.response, &text).expect("processes").output, Output::Json(json!({"score": 2})));
    // A call of another tool stays a tool call.
    let other = json!({"content": [{"type": "tool_use", "id": "t", "name": "lookup", "input": {}}]});
    assert!(matches!(process(&c.response, &other).expect("processes").output, Output::ToolCalls(_)));
}

#[test]
fn outputs_and_own_tools_on_anthropic() {
    let p = load(
        "model: {id: claude-sonnet-4-5, options: {allowMultipleToolCalls: false}}
tools:
  - {name: lookup, kind: function, description: Look a word up, parameters: [{name: word, kind: string, required: true}]}
outputs:
  - {name: answer, kind: string, required: true}",
    );
    let c = compiled(&p, Target::new().with_provider(Provider::Anthropic));
    assert_json_snapshot!(shown(&c));
}

#[test]
fn json_mode_is_not_forced_when_the_request_cannot_carry_it() {
    let cases = [
        "model: {id: claude-x, options: {additionalProperties: {response_format: {type: json_object}, tool_choice: auto}}}",
        "model: {id: claude-x, options: {additionalProperties: {response_format: {type: json_object}, thinking: {type: enabled, budget_tokens: 2000}}}}",
        "model: {id: claude-x, options: {additionalProperties: {response_format: {type: json_object}}}}
tools:
  - {name: structured_output, kind: function, parameters: []}",
    ];
    let anthropic = Target::new().with_provider(Provider::Anthropic);
    let all: Vec<Value> = cases
        .iter()
        .map(|front| {
            let p = load(front);
            let c = compiled(&p, anthropic.clone());
            assert_eq!(c.response, ResponseSpec::for_prompt(&p, &anthropic).expect("spec"));
            shown(&c)
        })
        .collect();
    assert_json_snapshot!(all);
}

#[test]
fn chat_parameters_translate_to_responses() {
    let p = load(
        "model:
  id: gpt-4o
  options:
    additionalProperties:
      max_tokens: 300
      reasoning_effort: low
      verbosity: low
      response_format:
        type: json_schema
        json_schema: {name: verdict, strict: true, schema: {type: object, properties: {ok: {type: boolean}}, required: [ok], additionalProperties: false}}
      tool_choice: none
      seed: 3
      stop: [END]
      top_k: 5",
    );
    let c = compiled(&p, Target::new().with_api(Api::Responses));
    assert_json_snapshot!(shown(&c));
}

#[test]
fn fields_another_provider_owns_are_left_out() {
    let p = load(
        "model:
  id: gpt-4o
  options:
    additionalProperties:
      logprobs: true
      top_k: 5
      thinking: {type: enabled, budget_tokens: 1024}
      user: u-1
      metadata: {team: eval}
      n: 1
      extra_headers: {x-test: '1'}",
    );
    let chat = compiled(&p, Target::new());
    let anthropic = compiled(&p, Target::new().with_provider(Provider::Anthropic).with_model("claude-x"));
    assert_json_snapshot!(json!({"openai chat": shown(&chat), "anthropic": shown(&anthropic)}));
}

#[test]
fn v1_parameters_are_verbatim_for_openai_and_filtered_to_chat_fields() {
    let p = load(
        "model:
  api: chat
  configuration: {type: openai, model: gpt-4o}
  parameters: {temperature: 0.2, top_k: 3, max_tokens: 9, extra_headers: {a: b}, response_format: {type: json_object}}",
    );
    let c = compiled(&p, Target::new());
    let text = serde_json::to_string(&c.body).expect("json");
    assert!(
        text.starts_with(
            r#"{"temperature":0.2,"max_tokens":9,"response_format":{"type":"json_object"},"model":"gpt-4o","#
        ),
        "{text}"
    );
    let warnings: Vec<String> = c.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "`model.parameters.top_k` is not sent: the openai chat API has no such field (it is an Anthropic field); remove it or target a provider that takes it",
            "`model.parameters.extra_headers` is not sent: it is an option of the OpenAI Python client, not a field of the openai chat request",
        ]
    );
}

#[test]
fn model_family_warnings() {
    let gpt = load("model: {id: gpt-4o}");
    let claude = load("model: {id: claude-sonnet-4-5}");
    let deployment = load("model: {id: judge-deployment}");
    let warned = |p: &Prompt, t: Target| -> Vec<String> {
        compiled(p, t)
            .warnings
            .iter()
            .filter(|w| matches!(w, Warning::ForeignModel { .. }))
            .map(ToString::to_string)
            .collect()
    };
    let anthropic = Target::new().with_provider(Provider::Anthropic);
    assert_eq!(
        warned(&gpt, anthropic.clone()),
        [
            "model `gpt-4o` is an OpenAI model, but the request is for anthropic: set `model.id` to a model anthropic serves or pass the model override (`--model`)"
        ]
    );
    assert!(warned(&gpt, anthropic.clone().with_model("gpt-4o")).is_empty(), "an explicit model is the user's choice");
    assert_eq!(warned(&claude, Target::new()).len(), 1);
    assert_eq!(warned(&claude, Target::new().with_provider(Provider::Azure)).len(), 1);
    assert!(warned(&claude, anthropic.clone()).is_empty());
    assert!(warned(&gpt, Target::new()).is_empty());
    assert!(warned(&deployment, anthropic).is_empty());
    // v1: the deployment name.
    let v1 = load(
        "model:\n  api: chat\n  configuration: {type: azure_openai, azure_deployment: gpt-4o-mini}\n  parameters: {}",
    );
    let anthropic = Target::new().with_provider(Provider::Anthropic);
    assert_eq!(warned(&v1, anthropic.clone()).len(), 1);
    assert!(warned(&v1, anthropic.with_model("claude-x")).is_empty());
}

/// A v1 prompt's image input and `tool_calls:` list reach the chat request as
/// promptflow-core sends them: content parts `{type: text}` and
/// `{type: image_url, image_url: {url, detail: auto}}`; an assistant message with
/// `tool_calls` and no `content`.
#[test]
fn promptflow_images_and_tool_calls_on_the_wire() {
    let text = "---\nname: t\nmodel:\n  api: chat\n  configuration: {type: openai, model: gpt-4o}\n  parameters: {temperature: 0}\ninputs:\n  img: {type: string}\n---\nsystem:\nDescribe.\n\nuser:\nWhat is this?\n{{img}}\n\nassistant:\ntool_calls:\n[{'id': 'c1', 'type': 'function', 'function': {'name': 'zoom', 'arguments': '{}'}}]\n\ntool:\ntool_call_id:\nc1\ncontent:\nzoomed\n";
    let prompt = load_str(text, &MapHost::new(), &LoadOptions::default()).prompt.expect("loads");
    let renderer = prompty_render::Renderer::new(prompt).expect("compiles");
    let inputs: serde_json::Map<String, Value> =
        [("img".to_owned(), json!("data:image/png;base64: aGVsbG8="))].into_iter().collect();
    let messages = renderer.prepare(&inputs).expect("prepares");
    let c = compile(renderer.prompt(), &messages, Target::new()).expect("compiles");
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert_eq!(
        serde_json::to_string(&c.body["messages"]).expect("json"),
        r#"[{"role":"system","content":"Describe."},{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,aGVsbG8=","detail":"auto"}}]},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"zoom","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"zoomed"}]"#
    );
    // The same conversation for Anthropic: an image block, a tool_use block, a tool_result.
    let c =
        compile(renderer.prompt(), &messages, Target::new().with_provider(Provider::Anthropic).with_model("claude-x"))
            .expect("compiles");
    assert_json_snapshot!(c.body["messages"]);
}
