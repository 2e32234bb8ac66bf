//! Rule PL030 on generated prompts: the count it reports is the request's, and only models
//! with a known window are checked.

use prompty_lint::Selection;
use prompty_render::Renderer;
use prompty_syntax::{LoadOptions, MapHost, load_str};

fn prompt(model: &str, options: &str, default: &str) -> String {
    format!(
        "---\nmodel:\n  id: {model}\n{options}inputs:\n  text:\n    kind: string\n    default: {default}\n---\nsystem:\nSummarize.\n\nuser:\n{{{{text}}}}\n"
    )
}

/// The PL030 messages of `text`, and the request's total as prompty-tokens counts it.
fn pl030(text: &str) -> (Vec<String>, usize) {
    let loaded = load_str(text, &MapHost::new(), &LoadOptions { lint: true, ..LoadOptions::default() });
    let report = prompty_lint::check(text, &loaded, &Selection::all());
    let messages = report
        .findings
        .iter()
        .filter(|f| f.diagnostic.code.id == "PL030")
        .map(|f| f.diagnostic.message.clone())
        .collect();
    let prompt = loaded.prompt.expect("a prompt");
    let model = prompty_tokens::prompt_model(&prompt);
    let rendered = Renderer::new(prompt).expect("compiles").prepare(&Default::default()).expect("renders");
    (messages, prompty_tokens::count_messages(&model, &rendered).total)
}

#[test]
fn a_request_over_the_window_is_reported_with_its_count() {
    let text = prompt("gpt-4", "", &"tide ".repeat(9_000));
    let (messages, total) = pl030(&text);
    assert!(total > 8_192, "{total}");
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains(&format!("is {total} tokens (cl100k_base), {} over", total - 8_192)),
        "{}",
        messages[0]
    );
}

#[test]
fn a_v1_budget_that_the_window_cannot_hold_is_reported() {
    let text = "---\nmodel:\n  api: chat\n  configuration:\n    type: azure_openai\n    azure_deployment: team-chat\n    model: gpt-4o\n  parameters:\n    max_tokens: 127999\n---\nsystem:\nAnswer briefly.\n";
    let (messages, total) = pl030(text);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains(&format!("leaves {} of the 128000-token", 128_000 - total)), "{}", messages[0]);
}

#[test]
fn a_budget_sent_as_written_from_additional_properties_is_the_answers_budget() {
    for key in ["max_tokens", "max_completion_tokens"] {
        let options = format!("  options:\n    additionalProperties:\n      {key}: 8190\n");
        let (messages, total) = pl030(&prompt("gpt-4", &options, "a short text"));
        assert_eq!(messages.len(), 1, "{key}: {messages:?}");
        assert!(messages[0].contains(&format!("leaves {} of the 8192-token", 8_192 - total)), "{}", messages[0]);
    }
}

#[test]
fn models_without_a_known_window_are_not_checked() {
    for model in ["claude-sonnet-4-5", "team-chat"] {
        let (messages, _) = pl030(&prompt(model, "", &"tide ".repeat(30_000)));
        assert!(messages.is_empty(), "{model}: {messages:?}");
    }
}

#[test]
fn a_request_that_fits_is_not_reported() {
    let (messages, total) = pl030(&prompt("gpt-4", "  options:\n    maxOutputTokens: 1000\n", "a short text"));
    assert!(total + 1_000 < 8_192);
    assert!(messages.is_empty(), "{messages:?}");
}

#[test]
fn each_input_case_is_checked_at_its_name() {
    let text = prompt("gpt-4", "", "a short text");
    let loaded = load_str(&text, &MapHost::new(), &LoadOptions { lint: true, ..LoadOptions::default() });
    let cases = format!("short:\n  text: a few words\nlong:\n  text: {}\n", "tide ".repeat(9_000));
    let findings: Vec<_> = prompty_lint::check_cases(&cases, &loaded, &Selection::all())
        .into_iter()
        .filter(|f| f.diagnostic.code.id == "PL030")
        .collect();
    assert_eq!(findings.len(), 1, "{findings:?}");
    let d = &findings[0].diagnostic;
    assert_eq!(&cases[d.span.clone()], "long");
    assert!(d.message.starts_with("rendered with case `long` the request is "), "{}", d.message);
}
