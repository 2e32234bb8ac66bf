//! What an embedder needs for an evaluation run over several evaluators: `eval_suite` from
//! loaded prompts, column mappings, recorded answers, the result lines, each evaluator's
//! summary, and the regression gate between two runs.

#![cfg(feature = "eval")]

use prompty_toolkit::eval::compare::{Results, compare};
use prompty_toolkit::eval::{JsonLines, RegressionGate, RowResults, regressions};

const RELEVANCE: &str = "---
name: relevance
inputs:
  query: {kind: string}
  response: {kind: string}
metadata:
  evaluator: {answer: json, range: [1, 5], threshold: 3}
---
user:
{{query}} {{response}}
";

const BREVITY: &str = "---
name: brevity
inputs:
  answer: {kind: string}
metadata:
  evaluator: {answer: json, range: [1, 5], threshold: 4}
---
user:
{{answer}}
";

const ROWS: &str = r#"{"id": "a", "question": {"text": "Why?"}, "response": "Because."}
{"id": "b", "question": {"text": "How?"}, "response": "Carefully, step by step."}
"#;

/// A run's result lines and each evaluator's mean.
type Ran = (Vec<RowResults>, Vec<(String, Option<f64>)>);

fn run(relevance: &str, brevity: &str) -> Result<Ran, prompty_toolkit::Error> {
    let (r, b) = (prompty_toolkit::from_str(RELEVANCE)?, prompty_toolkit::from_str(BREVITY)?);
    let mut suite = prompty_toolkit::eval_suite(&[&r, &b], &["query=question.text", "brevity:answer=response"])?;
    let prompts = [r.prompt(), b.prompt()];
    let answers = vec![
        JsonLines::new("relevance.jsonl", relevance.as_bytes()),
        JsonLines::new("brevity.jsonl", brevity.as_bytes()),
    ];
    let lines = suite
        .recorded(&prompts, JsonLines::new("rows.jsonl", ROWS.as_bytes()), answers)
        .collect::<Result<Vec<_>, _>>()
        .expect("the data and answers read");
    let means = suite.into_summaries().into_iter().map(|(k, s)| (k, s.mean())).collect();
    Ok((lines, means))
}

#[test]
fn several_evaluators_over_one_data_file_and_a_gate_between_two_runs() -> Result<(), prompty_toolkit::Error> {
    let (before, means) = run("{\"score\": 5}\n{\"score\": 4}\n", "{\"score\": 5}\n{\"score\": 2}\n")?;
    assert_eq!(means, [("relevance".to_owned(), Some(4.5)), ("brevity".to_owned(), Some(3.5))]);
    let ids: Vec<String> = before.iter().map(|l| l.id.to_string()).collect();
    assert_eq!(ids, ["a", "b"]);
    let (after, _) = run("{\"score\": 3}\n{\"score\": 3}\n", "{\"score\": 5}\n{\"score\": 5}\n")?;
    let text = |lines: &[RowResults]| lines.iter().map(|l| format!("{}\n", l.to_json())).collect::<String>();
    let (a, b) = (text(&before), text(&after));
    let read = |name: &str, t: &str| {
        Results::read(JsonLines::new(name, t.as_bytes())).map_err(|e| panic!("{e}")).unwrap_or_default()
    };
    let c = compare(&read("before.jsonl", &a), &read("after.jsonl", &b), false);
    let gate = RegressionGate::parse("1").expect("a gate");
    let failed: Vec<String> = regressions(&c, &[gate])
        .map_err(|e| panic!("{e}"))
        .unwrap_or_default()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(failed, ["relevance: the mean fell from 4.5 to 3 (-1.5); --fail-on-regression 1 allows 1"]);
    Ok(())
}

#[test]
fn a_mapping_to_an_input_no_prompt_has_is_an_inputs_error() -> Result<(), prompty_toolkit::Error> {
    let b = prompty_toolkit::from_str(BREVITY)?;
    let e = prompty_toolkit::eval_suite(&[&b], &["anwser=response"]).err();
    assert_eq!(e.as_ref().map(prompty_toolkit::Error::kind), Some(prompty_toolkit::ErrorKind::Inputs));
    assert_eq!(
        e.map(|e| e.to_string()).as_deref(),
        Some("--map anwser=response: evaluator `brevity` has no input `anwser` (its inputs: answer)")
    );
    Ok(())
}
