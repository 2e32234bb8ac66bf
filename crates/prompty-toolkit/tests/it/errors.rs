//! What each kind of `prompty_toolkit::Error` shows: Display (one line per problem), the report
//! (`{:#}`, miette's drawing), the kind, the diagnostics; and that no form of any error
//! shows a value `${env:}` supplied.

#![cfg(all(feature = "std-host", feature = "wire", feature = "eval"))]

use prompty_toolkit::{ErrorKind, Loader, MapHost};

/// Every form of an error, as a user would print them.
fn shown(e: &prompty_toolkit::Error) -> String {
    format!("kind: {}\n--- Display\n{e}\n--- Debug\n{e:?}\n--- report\n{e:#}", e.kind(),)
}

#[test]
fn a_load_error_shows_every_error_located_and_draws_every_diagnostic() {
    let text = "---\nname: demo\ninputs:\n  q: {kind: strng}\n  r: {kind: integr}\nmodle: gpt-4o\n---\nuser:\n{{q}}\n";
    let e = prompty_toolkit::from_str(text).expect_err("two errors");
    assert_eq!(e.kind(), ErrorKind::Load);
    assert_eq!(e.file_name(), Some("<string>"));
    assert!(e.diagnostics().len() >= 3, "{:?}", e.diagnostics());
    assert!(e.diagnostics().iter().any(|d| !d.is_error()), "warnings are carried too");
    insta::assert_snapshot!(shown(&e));
}

#[test]
fn a_missing_file_is_a_read_error_naming_it() {
    let e = prompty_toolkit::load("prompts/no-such.prompty").expect_err("missing");
    assert_eq!(e.kind(), ErrorKind::Read);
    assert_eq!(e.to_string(), "prompts/no-such.prompty: no such file");
    assert!(std::error::Error::source(&e).is_some());
    let dir = std::env::temp_dir();
    let e = prompty_toolkit::load(&dir).expect_err("a folder");
    assert_eq!(e.to_string(), format!("{}: cannot be read: is a directory", dir.display()));
}

#[test]
fn template_and_render_errors_point_into_the_file() {
    let e = prompty_toolkit::from_str("---\nname: t\n---\nsystem:\nHi\nuser:\n{% if x %}\nno end").expect_err("syntax");
    assert_eq!(e.kind(), ErrorKind::Template);
    assert!(e.span().is_some());
    insta::assert_snapshot!("template_syntax", shown(&e));

    let prompt =
        prompty_toolkit::from_str("---\ninputs:\n  n: {kind: integer}\n---\nuser:\n{{ n | batch(0) }}").expect("loads");
    let e = prompt.render(&prompty_toolkit::inputs! { n: 3 }).expect_err("render error");
    assert_eq!(e.kind(), ErrorKind::Render);
    insta::assert_snapshot!("render_error", shown(&e));
}

#[test]
fn inputs_errors_name_the_type_or_the_missing_inputs() {
    let prompt =
        prompty_toolkit::from_str("---\ninputs:\n  a: {kind: string, required: true}\n  b: {kind: string, required: true}\n---\nuser:\n{{a}}{{b}}")
            .expect("loads");
    let e = prompt.render(&["a", "b"]).expect_err("not a map");
    assert_eq!(e.kind(), ErrorKind::Inputs);
    assert_eq!(
        e.to_string(),
        "<string>: inputs must serialize to a map of input names to values (a struct, a map or a JSON object); \
         `[&str; 2]` serializes to an array"
    );
    let e = prompt.render(&()).expect_err("missing");
    assert_eq!(e.kind(), ErrorKind::Inputs);
    assert_eq!(e.to_string(), "<string>: Missing required inputs: a, b");
}

#[test]
fn compile_and_score_errors_name_the_file() {
    let prompt = prompty_toolkit::from_str("---\nname: judge\n---\nuser:\nhi").expect("loads");
    let messages = prompt.render(&()).expect("renders");
    let e = prompt.compile(&messages, prompty_toolkit::Target::new()).expect_err("no model id");
    assert_eq!(e.kind(), ErrorKind::Compile);
    insta::assert_snapshot!("compile_error", shown(&e));
    let e = prompt.score("{\"score\": 4}").expect_err("no evaluator");
    assert_eq!(e.kind(), ErrorKind::Score);
    assert!(e.to_string().starts_with("<string>: no `metadata.evaluator` block"), "{e}");
}

#[test]
fn env_references_need_a_host_that_reads_the_environment() {
    let text = "---\nmodel:\n  id: ${env:PROMPTY_TEST_MODEL}\n---\nuser:\nhi";
    let e = prompty_toolkit::from_str(text).expect_err("no host");
    let help = e.diagnostics().iter().find_map(|d| d.help.clone()).unwrap_or_default();
    assert!(help.contains("Loader::new().std_host(StdHost::new().allow_env(true))"), "{help}");
    let e = Loader::new().std_host(prompty_toolkit::StdHost::new()).load_str(text).expect_err("closed StdHost");
    let help = e.diagnostics().iter().find_map(|d| d.help.clone()).unwrap_or_default();
    assert!(help.contains("`StdHost::new().allow_env(true)`, or `.allow_env_var(\"NAME\")`"), "{help}");
    let host = MapHost::new().with_env("PROMPTY_TEST_MODEL", "gpt-4o");
    let prompt = Loader::new().host(host).load_str(text).expect("a host with the variable");
    assert_eq!(prompt.prompt().model.as_ref().map(|m| m.id.as_str()), Some("gpt-4o"));
}

/// A key from the environment is needed only to send a request: loading, rendering and
/// compiling work with the variable unset, and the prompt lists it as unset;
/// `Loader::require_env` makes it a load error.
#[test]
fn an_unset_key_variable_is_not_needed_to_load_render_or_compile() {
    let text = "---\nmodel:\n  id: gpt-4o\n  connection:\n    kind: key\n    apiKey: ${env:PROMPTY_TEST_UNSET_KEY}\n---\nuser:\nhi";
    for loader in [Loader::new(), Loader::new().std_host(prompty_toolkit::StdHost::new().allow_env(true))] {
        let prompt = loader.load_str(text).expect("loads with the key unset");
        assert_eq!(prompt.prompt().secrets.unset(), ["PROMPTY_TEST_UNSET_KEY"]);
        let messages = prompt.render(&()).expect("renders");
        let request = prompt.compile(&messages, prompty_toolkit::Target::new()).expect("compiles");
        assert_eq!(request.body["messages"][0]["content"], "hi");
    }
    let e = Loader::new().require_env(true).load_str(text).expect_err("required");
    assert_eq!(e.kind(), ErrorKind::Load);
    assert!(e.to_string().contains("Environment variable 'PROMPTY_TEST_UNSET_KEY' not set"), "{e}");
}

const SECRET: &str = "sk-test-VERY-SECRET-4242";

/// Loads `text` with `KEY` set to the secret.
fn with_secret(text: &str) -> Result<prompty_toolkit::Prompty, prompty_toolkit::Error> {
    Loader::new().host(MapHost::new().with_env("KEY", SECRET)).load_str(text)
}

fn assert_hidden(e: &prompty_toolkit::Error, what: &str) {
    let forms = [
        e.to_string(),
        format!("{e:?}"),
        format!("{e:#?}"),
        format!("{e:#}"),
        e.report().color(true).width(40).to_string(),
        e.message().to_owned(),
        format!("{:?}", e.diagnostics()),
        e.diagnostics().iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"),
    ];
    for form in forms {
        assert!(!form.contains(SECRET) && !form.contains("VERY-SECRET"), "{what}: the secret shows in\n{form}");
    }
    assert!(format!("{e}{e:#}").contains("${env"), "{what}: the reference is shown instead\n{e}\n{e:#}");
}

#[test]
fn no_error_shows_a_value_env_supplied() {
    // Loading: a value of the wrong kind, quoted by the loader.
    let e = with_secret(
        "---\nmodel:\n  id: gpt-4o\n  apiType: ${env:KEY}\n  options:\n    temperature: ${env:KEY}\n---\nuser:\nhi",
    )
    .expect_err("wrong types");
    assert_eq!(e.kind(), ErrorKind::Load);
    assert_hidden(&e, "load");

    // Rendering: a default from the environment, quoted by a template error.
    let prompt = with_secret(
        "---\ninputs:\n  q:\n    kind: string\n    default: ${env:KEY}\n---\nuser:\n{{ ('{' ~ q ~ '}').format() }}",
    )
    .expect("loads");
    let e = prompt.render(&()).expect_err("render error");
    assert_hidden(&e, "render");
    let e = prompt.render_text(&()).expect_err("render_text error");
    assert_hidden(&e, "render_text");

    // Compiling: a provider named by the environment.
    let prompt = with_secret("---\nmodel:\n  id: gpt-4o\n  provider: ${env:KEY}\n---\nuser:\nhi").expect("loads");
    let messages = prompt.render(&()).expect("renders");
    let e = prompt.compile(&messages, prompty_toolkit::Target::new()).expect_err("unknown provider");
    assert_eq!(e.kind(), ErrorKind::Compile);
    assert_hidden(&e, "compile");

    // Scoring: an evaluator configuration quoting a value from the environment.
    let prompt = with_secret("---\nmetadata:\n  evaluator:\n    answer: ${env:KEY}\n---\nuser:\nhi").expect("loads");
    let e = prompt.score("4").expect_err("bad configuration");
    assert_eq!(e.kind(), ErrorKind::Score);
    assert_hidden(&e, "score (configuration)");
    // ... and a judge answer that echoes the value, refused by a strict evaluator.
    let prompt = with_secret(
        "---\nname: ${env:KEY}\nmetadata:\n  evaluator:\n    answer: json\n    strict: true\n---\nuser:\nhi",
    )
    .expect("loads");
    let answer = format!("{{\"score\": \"{SECRET}\"}}");
    let e = prompt.score(&answer).expect_err("not a number");
    assert_hidden(&e, "score (answer)");
    let e = prompt.score_reply(&prompty_toolkit::JudgeReply::text(answer)).expect_err("not a number");
    assert_hidden(&e, "score_reply");
}
