//! The azure-ai-evaluation judge contracts and reasoning-model requests through the facade,
//! on the 1.18.10 prompts of the conformance corpus (read from `../shared`, never copied).

#![cfg(all(feature = "std-host", feature = "wire", feature = "eval"))]

use prompty_toolkit::{Contract, JudgeReply, Loader, StdHost, Target, Verdict};

const PROMPTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/azure-eval/prompts-1.18");

fn coherence() -> prompty_toolkit::Prompty {
    let path = format!("{PROMPTS}/1.18.10__coherence__coherence.prompty");
    assert!(std::path::Path::new(&path).is_file(), "conformance data missing: {path}");
    Loader::new().std_host(StdHost::new()).load(&path).expect("loads")
}

#[test]
fn a_1_18_prompt_is_recognised_and_scored_with_the_1_18_keys() {
    let prompt = coherence();
    assert_eq!(prompt.evaluator().expect("evaluator").contract(), Contract::V1_18);
    let e = prompt.score(r#"{"reason": "clear", "score": 4, "status": "completed"}"#).expect("scores");
    assert_eq!((e.score, e.verdict), (Some(4.0), Verdict::Pass));
    let azure = prompt.to_azure(&e).expect("laid out");
    let keys: Vec<&str> = azure.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "coherence",
            "coherence_score",
            "coherence_passed",
            "coherence_result",
            "coherence_reason",
            "coherence_status",
            "coherence_threshold",
            "coherence_properties"
        ]
    );
}

#[test]
fn the_loader_option_chooses_the_contract() {
    let path = format!("{PROMPTS}/1.18.10__coherence__coherence.prompty");
    let prompt = Loader::new().std_host(StdHost::new()).contract(Contract::V1_13).load(&path).expect("loads");
    let e = prompt.score(r#"{"reason": "clear", "score": 4, "status": "completed"}"#).expect("scores");
    // The 1.13 coherence evaluator reads score tags: a JSON answer has none.
    assert_eq!((e.score, e.verdict), (None, Verdict::Unknown));
    assert!(prompt.to_azure(&e).expect("laid out").contains_key("gpt_coherence"));
}

#[test]
fn a_1_18_refusal_is_an_error_not_a_score() {
    let prompt = coherence();
    let e = prompt.score_reply(&JudgeReply::text("Here you go: {\"score\": 4}")).expect_err("refused");
    assert!(e.to_string().contains("not valid JSON"), "{e}");
}

#[test]
fn reasoning_model_requests_drop_sampling_and_rename_the_limit() {
    let prompt = coherence();
    let messages = prompt.render(&serde_json::json!({"query": "q", "response": "r"})).expect("renders");
    let plain = prompt.compile(&messages, Target::new().with_model("judge")).expect("compiles");
    assert_eq!(plain.body["max_tokens"], 800);
    let reasoning =
        prompt.compile(&messages, Target::new().with_model("judge").with_reasoning_model(true)).expect("compiles");
    let keys: Vec<&str> =
        reasoning.body.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    assert_eq!(keys, ["response_format", "max_completion_tokens", "model", "messages"]);
    assert_eq!(reasoning.body["max_completion_tokens"], 60000);
}
