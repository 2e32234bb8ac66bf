//! The bundled evaluator prompts through `include_prompty!`: the prompt rebuilt from
//! compile-time data equals the one loading the file gives, renders the same messages and
//! scores the same way.

#![cfg(all(feature = "macros", feature = "std-host", feature = "eval"))]

use std::path::Path;

use prompty_toolkit::{Map, Prompty, Value};

mod prompts {
    prompty_toolkit::include_prompty!("../../prompts/coherence.prompty");
    prompty_toolkit::include_prompty!("../../prompts/fluency.prompty");
    prompty_toolkit::include_prompty!("../../prompts/groundedness.prompty");
    prompty_toolkit::include_prompty!("../../prompts/intent_resolution.prompty");
    prompty_toolkit::include_prompty!("../../prompts/relevance.prompty");
    prompty_toolkit::include_prompty!("../../prompts/response_completeness.prompty");
    prompty_toolkit::include_prompty!("../../prompts/retrieval.prompty");
    prompty_toolkit::include_prompty!("../../prompts/similarity.prompty");
    prompty_toolkit::include_prompty!("../../prompts/task_adherence.prompty");
    prompty_toolkit::include_prompty!("../../prompts/tool_call_accuracy.prompty");
}

fn embedded() -> Vec<(&'static str, &'static Prompty)> {
    use prompts::*;
    let all = [
        ("coherence", CoherenceInputs::prompty()),
        ("fluency", FluencyInputs::prompty()),
        ("groundedness", GroundednessInputs::prompty()),
        ("intent_resolution", IntentResolutionInputs::prompty()),
        ("relevance", RelevanceInputs::prompty()),
        ("response_completeness", ResponseCompletenessInputs::prompty()),
        ("retrieval", RetrievalInputs::prompty()),
        ("similarity", SimilarityInputs::prompty()),
        ("task_adherence", TaskAdherenceInputs::prompty()),
        ("tool_call_accuracy", ToolCallAccuracyInputs::prompty()),
    ];
    all.into_iter().map(|(name, p)| (name, p.unwrap_or_else(|e| panic!("{name}: {e:#}")))).collect()
}

fn load(name: &str) -> Prompty {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../prompts/{name}.prompty"));
    prompty_toolkit::load(&path).unwrap_or_else(|e| panic!("{e:#}"))
}

#[test]
fn embedded_prompts_equal_loaded_ones_and_render_the_same() {
    let count = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../prompts"))
        .expect("prompts/")
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "prompty")))
        .count();
    let embedded = embedded();
    assert_eq!(embedded.len(), count, "every bundled prompt is embedded here");
    for (name, prompt) in embedded {
        let loaded = load(name);
        assert_eq!(prompt.prompt(), loaded.prompt(), "{name}");
        assert_eq!(prompt.source(), loaded.source(), "{name}");
        let inputs: Map<String, Value> = loaded
            .prompt()
            .inputs
            .iter()
            .flatten()
            .map(|p| (p.name.clone(), Value::from(format!("the {} of the case", p.name))))
            .collect();
        assert_eq!(prompt.render_map(&inputs).ok(), loaded.render_map(&inputs).ok(), "{name}");
        assert!(prompt.render_map(&inputs).is_ok(), "{name}");
    }
}

#[test]
fn a_typed_struct_renders_and_scores_like_a_loaded_prompt() {
    let inputs = prompts::CoherenceInputs { query: "What is Rust?".into(), response: "A language.".into() };
    let loaded = load("coherence");
    assert_eq!(inputs.render().ok(), loaded.render(&inputs).ok());
    let json = serde_json::json!({"query": "What is Rust?", "response": "A language."});
    assert_eq!(inputs.render().ok(), loaded.render(&json).ok());
    let answer = r#"{"reason": "Clear and connected.", "score": 4}"#;
    let embedded = prompts::CoherenceInputs::prompty().expect("builds").score(answer).expect("scores");
    assert_eq!(embedded, loaded.score(answer).expect("scores"));
    assert_eq!(embedded.score, Some(4.0));
    assert_eq!(embedded.verdict, prompty_toolkit::Verdict::Pass);
}
