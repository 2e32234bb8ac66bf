//! Every emitter on the one shared set of messages (`prompty_test_support::messages`): the
//! snapshots show what users see in each form.

use prompty_report::human::Style;
use prompty_report::{Concise, Emitter, Github, Human, Json, Rule, Sarif, lsp};
use prompty_syntax::Severity;
use prompty_test_support::messages::shared_messages;

fn written(emitter: &mut dyn Emitter, failures: &[String]) -> String {
    let mut out = Vec::new();
    emitter.emit(&mut out, &shared_messages()).expect("emit into a Vec");
    emitter.finish(&mut out, failures).expect("finish into a Vec");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn human() {
    insta::assert_snapshot!(written(&mut Human { style: Style { color: false, width: 80 } }, &[]));
}

#[test]
fn concise() {
    insta::assert_snapshot!(written(&mut Concise, &[]));
}

#[test]
fn json() {
    let out = written(&mut Json, &[]);
    for line in out.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn github() {
    insta::assert_snapshot!(written(&mut Github, &[]));
}

#[test]
fn sarif() {
    let rules = shared_messages()
        .iter()
        .map(|m| Rule {
            code: m.diagnostic.code,
            severity: Severity::Warning,
            summary: format!("the summary of {}", m.diagnostic.code.name),
            help: None,
            fixable: m.fix.is_some(),
        })
        .collect();
    let mut sarif = Sarif::new("prompty", "0.0.0", rules);
    let out = written(&mut sarif, &["folder `x` cannot be read".to_owned()]);
    let log: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    for result in log["runs"][0]["results"].as_array().expect("results") {
        let rule = &log["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"].as_u64().expect("index") as usize];
        assert_eq!(rule["id"], result["ruleId"]);
    }
    insta::assert_snapshot!(out);
}

#[test]
fn lsp_parts() {
    let parts: Vec<String> =
        shared_messages().iter().map(|m| format!("{:?}", lsp::parts(m, "https://docs.example/"))).collect();
    insta::assert_snapshot!(parts.join("\n"));
}

/// Every form that links a code links it to the same page and anchor.
#[test]
fn one_link_per_code() {
    let messages = shared_messages();
    let json = written(&mut Json, &[]);
    for (m, line) in messages.iter().zip(json.lines()) {
        let url = prompty_report::doc_url(prompty_report::DOCS_URL, m.diagnostic.code);
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON");
        assert_eq!(value["url"], url.as_deref().map_or(serde_json::Value::Null, serde_json::Value::from));
        assert_eq!(lsp::parts(m, prompty_report::DOCS_URL).href, url);
    }
}
