//! Evaluation runs as `evaluate()` users expect them: several evaluators over one data file,
//! column mappings, row ids, and the regression gate of `eval compare`.
//!
//! Each case runs the library on data written here and shows what a user sees (the result
//! lines, the messages) in a snapshot.

use prompty_eval::compare::{Results, compare};
use prompty_eval::rows::{IdColumn, InputMap, Line, MapSpec, RowIds};
use prompty_eval::run::{DataRow, evaluator_keys};
use prompty_eval::{
    Evaluator, EvaluatorConfig, FieldPath, JsonLines, RegressionGate, RowErrorKind, RowResults, Suite, regressions,
};
use prompty_syntax::Prompt;
use serde_json::{Map, Value, json};

fn prompt(name: &str, inputs: &[&str]) -> Prompt {
    let declared: String = inputs.iter().map(|i| format!("  {i}: {{kind: string}}\n")).collect();
    let body: String = inputs.iter().map(|i| format!("{{{{{i}}}}}\n")).collect();
    let text = format!("---\nname: {name}\ninputs:\n{declared}---\nuser:\n{body}");
    let loaded = prompty_syntax::load_str(&text, &prompty_syntax::MapHost::new(), &Default::default());
    loaded.prompt.unwrap_or_else(|| panic!("{name} loads: {:?}", loaded.diagnostics))
}

fn judge(name: &str, range: [i64; 2], threshold: f64, direction: &str) -> Evaluator {
    let metadata =
        json!({"evaluator": {"answer": "json", "range": range, "threshold": threshold, "direction": direction}});
    let config = EvaluatorConfig::from_metadata(&metadata).ok().flatten().unwrap_or_else(|| panic!("config"));
    Evaluator::new(name, config)
}

fn row(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(m)) => m,
        other => panic!("{text}: {other:?}"),
    }
}

fn lines<'a>(name: &str, text: &'a str) -> JsonLines<&'a [u8]> {
    JsonLines::new(name, text.as_bytes())
}

// --- column mapping ---------------------------------------------------------------------

#[test]
fn a_mapping_takes_nested_fields_array_items_and_reference_syntax() {
    let p = prompt("coherence", &["query", "context", "response"]);
    let mut map = InputMap::new();
    for spec in ["query=question", "context=doc.text", "response=${data.turns.1.content}"] {
        let spec = MapSpec::parse(spec).unwrap_or_else(|e| panic!("{e}"));
        map.add(&spec, &p, "coherence").unwrap_or_else(|e| panic!("{e}"));
    }
    let r = row(
        r#"{"question": "Why?", "doc": {"text": "Because."}, "turns": [{"content": "a"}, {"content": "b"}], "query": "unused"}"#,
    );
    let inputs = prompty_eval::rows::mapped_inputs(&p, &r, &map, "rows.jsonl:1").unwrap_or_else(|e| panic!("{e:?}"));
    let picked: Vec<(&str, &Value)> = ["query", "context", "response"].iter().map(|k| (*k, &inputs[*k])).collect();
    assert_eq!(picked, [("query", &json!("Why?")), ("context", &json!("Because.")), ("response", &json!("b"))]);
}

#[test]
fn a_field_name_with_a_dot_is_escaped() {
    let path = FieldPath::parse(r"meta\.v2.text", "--map x=meta\\.v2.text").unwrap_or_else(|e| panic!("{e}"));
    let r = row(r#"{"meta.v2": {"text": "dotted"}, "meta": {"v2": {"text": "nested"}}}"#);
    assert_eq!(path.get(&r), Ok(&json!("dotted")));
}

/// A mapped field the row lacks is a row error naming the option, the field, the file, the
/// line and the row's id; never an empty value.
#[test]
fn a_missing_mapped_field_is_a_row_error_naming_field_and_id() {
    let p = prompt("coherence", &["query", "context"]);
    let mut map = InputMap::new();
    for spec in ["query=question", "context=doc.text"] {
        let spec = MapSpec::parse(spec).unwrap_or_else(|e| panic!("{e}"));
        map.add(&spec, &p, "coherence").unwrap_or_else(|e| panic!("{e}"));
    }
    let mut ids = RowIds::new(IdColumn::Conventional);
    let mut message = |text: &str, line: u64| {
        let r = DataRow::read(Line::Text(text.to_owned()), &mut ids, "rows.jsonl", line);
        let e = r.inputs(&p, &map).err().unwrap_or_else(|| panic!("{text} maps"));
        format!("{} {}: {}", e.kind.as_str(), e.code().id, e.message)
    };
    let shown = [
        message(r#"{"id": "q7", "doc": {"text": "t"}}"#, 1),
        message(r#"{"id": "q8", "question": "?", "doc": {"title": "t"}}"#, 2),
        message(r#"{"id": "q9", "question": "?", "doc": "plain"}"#, 3),
        message(r#"{"question": "?", "doc": null}"#, 4),
    ]
    .join("\n");
    insta::assert_snapshot!(shown, @r"
    missing field PE117: rows.jsonl:1 (id q7): --map query=question: the row has no field `question`
    missing field PE117: rows.jsonl:2 (id q8): --map context=doc.text: `doc` has no field `text`
    missing field PE117: rows.jsonl:3 (id q9): --map context=doc.text: `doc` is a string, with no field `text`
    missing field PE117: rows.jsonl:4: --map context=doc.text: `doc` is null, with no field `text`
    ");
}

#[test]
fn mapping_options_that_cannot_work_are_refused_before_any_row() {
    let p = prompt("coherence", &["query"]);
    let refused = |spec: &str| -> String {
        match MapSpec::parse(spec) {
            Err(e) => format!("{} {e}", e.code().id),
            Ok(s) => {
                let mut map = InputMap::new();
                let e = map.add(&s, &p, "coherence").and_then(|()| map.add(&s, &p, "coherence")).err();
                e.map_or_else(|| "accepted".to_owned(), |e| format!("{} {e}", e.code().id))
            }
        }
    };
    let shown = [
        "query",
        "query=",
        "query=a..b",
        "=q",
        "qeury=question",
        "query=${target.x}",
        "query=${data.x",
        "query=a\\b",
        "query=q",
    ]
    .map(refused)
    .join("\n");
    insta::assert_snapshot!(shown, @r"
    PE030 --map query: expected INPUT=FIELD (`query=question`, `context=doc.text`), optionally for one evaluator: EVALUATOR:INPUT=FIELD
    PE030 --map query=: ``: a field path is field names separated by single dots (`doc.text`); this one has an empty name
    PE030 --map query=a..b: `a..b`: a field path is field names separated by single dots (`doc.text`); this one has an empty name
    PE030 --map =q: the input name (and the evaluator before `:`) must not be empty
    PE030 --map qeury=question: evaluator `coherence` has no input `qeury` (its inputs: query)
    PE030 --map query=${target.x}: `${target.x}`: only `${data.FIELD}` references exist here (a run has no target); write the field path, `doc.text`
    PE030 --map query=${data.x: `${data.x` opens `${` without a closing `}`
    PE030 --map query=a\b: `a\b`: `\` escapes only `.` and `\` in a field path
    PE030 --map query=q: input `query` of `coherence` is already mapped by --map query=q
    ");
}

// --- row ids ----------------------------------------------------------------------------

/// Ids come from the `id` field, else the line; strings and numbers are kept as written;
/// anything else, an empty or oversized id, and a repeated id are row errors (PE118,
/// PE119) that keep the row's place. Ids compare by text: `7` and `"7"` are one id.
#[test]
fn ids_are_strings_or_numbers_and_unique() {
    let mut ids = RowIds::new(IdColumn::Conventional);
    let long = "x".repeat(prompty_eval::rows::MAX_ID_BYTES + 1);
    let data = [
        r#"{"id": "q1"}"#.to_owned(),
        r#"{"id": 7}"#.to_owned(),
        r#"{"no_id": true}"#.to_owned(),
        r#"{"id": "7"}"#.to_owned(),
        r#"{"id": "q1"}"#.to_owned(),
        r#"{"id": true}"#.to_owned(),
        r#"{"id": {"a": 1}}"#.to_owned(),
        r#"{"id": null}"#.to_owned(),
        r#"{"id": ""}"#.to_owned(),
        format!(r#"{{"id": "{long}"}}"#),
        "[1, 2]".to_owned(),
        r#"{"id": 1.5}"#.to_owned(),
        r#"{"id": 3}"#.to_owned(),
    ];
    let shown: Vec<String> = data
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let r = DataRow::read(Line::Text(text.clone()), &mut ids, "d.jsonl", i as u64 + 1);
            let id = serde_json::to_string(&r.id).unwrap_or_default();
            match r.fields {
                Ok(_) => format!("{id} ok"),
                Err(e) => format!("{id} {} {}", e.code().id, e.message),
            }
        })
        .collect();
    insta::assert_snapshot!(shown.join("\n"), @r#"
    "q1" ok
    7 ok
    3 ok
    "7" PE119 d.jsonl:4: the id `7` is also the id of line 2; ids must be unique
    "q1" PE119 d.jsonl:5: the id `q1` is also the id of line 1; ids must be unique
    6 PE118 d.jsonl:6: the id (field `id`) is a boolean; an id is a string or a number (name another field with --id-column)
    7 PE118 d.jsonl:7: the id (field `id`) is an object; an id is a string or a number (name another field with --id-column)
    8 PE118 d.jsonl:8: the id (field `id`) is null; an id is a string or a number (name another field with --id-column)
    9 PE118 d.jsonl:9: the id (field `id`) is empty
    10 PE118 d.jsonl:10: the id (field `id`) is 1025 bytes long; ids are at most 1024
    11 PE103 d.jsonl:11: expected a JSON object of inputs, found an array
    1.5 ok
    3 PE119 d.jsonl:13: the id `3` is also the id of line 3; ids must be unique
    "#);
}

#[test]
fn an_id_column_must_be_in_every_row() {
    let path = FieldPath::parse("meta.key", "--id-column meta.key").unwrap_or_else(|e| panic!("{e}"));
    let mut ids = RowIds::new(IdColumn::Field(path));
    let a = DataRow::read(Line::Text(r#"{"meta": {"key": "k1"}}"#.into()), &mut ids, "d.jsonl", 1);
    let b = DataRow::read(Line::Text(r#"{"meta": {}, "id": "x"}"#.into()), &mut ids, "d.jsonl", 2);
    assert_eq!(a.id.to_string(), "k1");
    assert_eq!(a.place, "d.jsonl:1 (id k1)");
    let e = b.fields.err().map(|e| (e.kind, e.message));
    assert_eq!(
        e,
        Some((RowErrorKind::MissingField, "d.jsonl:2: --id-column meta.key: `meta` has no field `key`".to_owned()))
    );
}

// --- several evaluators -----------------------------------------------------------------

/// Two evaluators over one data file with recorded answers: one line per row with both
/// evaluators' results under their keys, a mapping for one evaluator only, a row that is
/// not an object (every evaluator reports it), and a summary per evaluator.
#[test]
fn two_evaluators_in_one_run_with_recorded_answers() {
    let coherence = prompt("coherence", &["query", "response"]);
    let brevity = prompt("brevity", &["answer"]);
    let mut suite =
        Suite::new(vec![judge("coherence", [1, 5], 3.0, "higher"), judge("brevity", [1, 5], 4.0, "higher")]);
    let specs: Vec<MapSpec> = ["query=question", "brevity:answer=response"]
        .iter()
        .map(|s| MapSpec::parse(s).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    suite.map(&specs, &[&coherence, &brevity]).unwrap_or_else(|e| panic!("{e}"));
    let data = concat!(
        r#"{"id": "a", "question": "Why is the sky blue?", "response": "Rayleigh scattering."}"#,
        "\n",
        "[\"not\", \"an\", \"object\"]\n",
        r#"{"id": "c", "question": "2+2?"}"#,
        "\n",
        r#"{"id": "d", "question": "Hi?", "response": "Hello there, and welcome, and more."}"#,
        "\n",
    );
    let coherence_answers = "{\"score\": 5, \"reason\": \"clear\"}\n{\"score\": 1}\n{\"score\": 3}\n{\"score\": 2, \"reason\": \"rambles\"}\n";
    let brevity_answers = "{\"score\": 5, \"reason\": \"short\"}\n{\"score\": 1}\n{\"score\": 2}\n";
    let prompts = [&coherence, &brevity];
    let results: Vec<RowResults> = suite
        .recorded(
            &prompts,
            lines("rows.jsonl", data),
            vec![lines("coherence.jsonl", coherence_answers), lines("brevity.jsonl", brevity_answers)],
        )
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    let written: Vec<String> = results.iter().map(|r| serde_json::to_string(r).unwrap_or_default()).collect();
    // Each line reads back as the same line.
    for text in &written {
        let back: Result<RowResults, _> = serde_json::from_str(text);
        assert_eq!(back.map(|b| serde_json::to_string(&b).unwrap_or_default()).as_deref().ok(), Some(text.as_str()));
    }
    let summaries: Vec<String> = suite
        .into_summaries()
        .into_iter()
        .map(|(k, s)| {
            format!(
                "{k}: rows {}, mean {:?}, pass rate {:?}, errors {:?}",
                s.rows(),
                s.mean(),
                s.pass_rate(),
                s.errors()
            )
        })
        .collect();
    insta::assert_snapshot!(format!("{}\n\n{}", written.join("\n"), summaries.join("\n")));
}

/// Evaluators that share a name (two `coherence.prompty` in different folders) get keys
/// that do not collide: the first keeps the name, the next are `NAME_2`, `NAME_3`, skipping
/// names another evaluator has.
#[test]
fn evaluators_of_one_name_get_distinct_keys() {
    assert_eq!(evaluator_keys(&["coherence", "coherence"]), ["coherence", "coherence_2"]);
    assert_eq!(
        evaluator_keys(&["coherence", "coherence_2", "coherence", "coherence"]),
        ["coherence", "coherence_2", "coherence_3", "coherence_4"]
    );
    let suite = Suite::new(vec![judge("fluency", [1, 5], 3.0, "higher"), judge("fluency", [1, 5], 3.0, "higher")]);
    assert_eq!(suite.keys(), ["fluency", "fluency_2"]);
    // A mapping can name the second one.
    let mut suite = suite;
    let p = prompt("fluency", &["response"]);
    let spec = MapSpec::parse("fluency_2:response=answer").unwrap_or_else(|e| panic!("{e}"));
    suite.map(std::slice::from_ref(&spec), &[&p, &p]).unwrap_or_else(|e| panic!("{e}"));
    assert!(suite.members()[0].map().is_empty());
    assert!(!suite.members()[1].map().is_empty());
    let unknown = MapSpec::parse("fluency_3:response=answer").unwrap_or_else(|e| panic!("{e}"));
    let e = suite.map(&[unknown], &[&p, &p]).err().map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some(
            "--map fluency_3:response=answer: the run has no evaluator `fluency_3` (its evaluators: fluency, fluency_2)"
        )
    );
}

// --- compare and its regression gate ------------------------------------------------------

const BEFORE: &str = concat!(
    r#"{"id":"a","line":1,"evaluators":{"coherence":{"name":"coherence","score":4.0,"verdict":"pass","reason":"","threshold":3},"toxicity":{"name":"toxicity","score":1.0,"verdict":"pass","reason":"","threshold":3}}}"#,
    "\n",
    r#"{"id":"b","line":2,"evaluators":{"coherence":{"name":"coherence","score":4.0,"verdict":"pass","reason":"","threshold":3},"toxicity":{"name":"toxicity","score":2.0,"verdict":"pass","reason":"","threshold":3}}}"#,
    "\n",
);

// Rows in another order, scored lower on coherence and higher (worse) on toxicity, where
// lower is better.
const WORSE: &str = concat!(
    r#"{"id":"b","line":1,"evaluators":{"coherence":{"name":"coherence","score":3.0,"verdict":"pass","reason":"","threshold":3},"toxicity":{"name":"toxicity","score":4.0,"verdict":"fail","reason":"","threshold":3}}}"#,
    "\n",
    r#"{"id":"a","line":2,"evaluators":{"coherence":{"name":"coherence","score":2.0,"verdict":"fail","reason":"","threshold":3},"toxicity":{"name":"toxicity","score":1.0,"verdict":"pass","reason":"","threshold":3}}}"#,
    "\n",
);

const BETTER: &str = concat!(
    r#"{"id":"a","line":1,"evaluators":{"coherence":{"name":"coherence","score":5.0,"verdict":"pass","reason":"","threshold":3},"toxicity":{"name":"toxicity","score":0.0,"verdict":"pass","reason":"","threshold":3}}}"#,
    "\n",
    r#"{"id":"b","line":2,"evaluators":{"coherence":{"name":"coherence","score":4.0,"verdict":"pass","reason":"","threshold":3},"toxicity":{"name":"toxicity","score":1.0,"verdict":"pass","reason":"","threshold":3}}}"#,
    "\n",
);

fn gate_messages(a: &str, b: &str, gates: &[&str]) -> Vec<String> {
    let a = Results::read(lines("before.jsonl", a)).unwrap_or_else(|e| panic!("{e}"));
    let b = Results::read(lines("after.jsonl", b)).unwrap_or_else(|e| panic!("{e}"));
    let gates: Vec<RegressionGate> =
        gates.iter().map(|g| RegressionGate::parse(g).unwrap_or_else(|e| panic!("{e}"))).collect();
    let c = compare(&a, &b, false);
    regressions(&c, &gates).unwrap_or_else(|e| panic!("{e}")).iter().map(ToString::to_string).collect()
}

#[test]
fn a_regression_fails_the_gate_naming_evaluator_and_change() {
    let failed = gate_messages(BEFORE, WORSE, &["0.5", "pass-rate=10%"]);
    insta::assert_snapshot!(failed.join("\n"), @r"
    coherence: the mean fell from 4 to 2.5 (-1.5); --fail-on-regression 0.5 allows 0.5
    coherence: the pass rate fell from 100% to 50% (-50 points); --fail-on-regression pass-rate=10% allows 10 points
    toxicity: the mean rose from 1.5 to 2.5 (+1, and lower is better here); --fail-on-regression 0.5 allows 0.5
    toxicity: the pass rate fell from 100% to 50% (-50 points); --fail-on-regression pass-rate=10% allows 10 points
    ");
    // An evaluator's own gate replaces the general one for it.
    let failed = gate_messages(BEFORE, WORSE, &["0.5", "coherence:2", "toxicity:mean=1"]);
    assert_eq!(failed, Vec::<String>::new());
}

#[test]
fn an_improvement_passes_the_gate() {
    assert_eq!(gate_messages(BEFORE, BETTER, &["0", "pass-rate=0%"]), Vec::<String>::new());
    // The same files the other way round: coherence fell, toxicity rose (worse).
    let failed = gate_messages(BETTER, BEFORE, &["0"]);
    assert_eq!(failed.len(), 2, "{failed:?}");
}

#[test]
fn rows_are_matched_by_id_and_gates_must_name_known_evaluators() {
    let a = Results::read(lines("before.jsonl", BEFORE)).unwrap_or_else(|e| panic!("{e}"));
    let b = Results::read(lines("after.jsonl", WORSE)).unwrap_or_else(|e| panic!("{e}"));
    let c = compare(&a, &b, true);
    let coherence = &c.evaluators[0];
    let rows: Vec<(String, Option<f64>)> = coherence.rows.iter().map(|r| (r.id.to_string(), r.delta)).collect();
    assert_eq!(rows, [("a".to_owned(), Some(-2.0)), ("b".to_owned(), Some(-1.0))]);
    assert_eq!(c.evaluators[1].higher_is_better, Some(false));
    let gate = RegressionGate::parse("fluency:0.1").unwrap_or_else(|e| panic!("{e}"));
    let e = regressions(&c, &[gate]).err().map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some(
            "--fail-on-regression fluency:0.1: the results have no evaluator `fluency` (they have: coherence, toxicity)"
        )
    );
}

#[test]
fn a_gate_option_is_read_strictly() {
    let refused: Vec<String> = ["-1", "pass-rate=5", "mean=5%", "median=1", "x", ":1", "NaN", "inf"]
        .iter()
        .map(|g| RegressionGate::parse(g).err().map_or_else(|| format!("{g}: accepted"), |e| e.to_string()))
        .collect();
    insta::assert_snapshot!(refused.join("\n"), @r"
    --fail-on-regression -1: the allowed change is a finite number, 0 or more
    --fail-on-regression pass-rate=5: a pass-rate change is in percentage points: write `5%`
    --fail-on-regression mean=5%: a mean change is in score points (`0.25`); for the pass rate write pass-rate=P%
    --fail-on-regression median=1: unknown measure `median`; expected [EVALUATOR:][mean=]DELTA (score points, `0.25`) or [EVALUATOR:]pass-rate=P% (percentage points, `5%`)
    --fail-on-regression x: `x`: expected [EVALUATOR:][mean=]DELTA (score points, `0.25`) or [EVALUATOR:]pass-rate=P% (percentage points, `5%`)
    --fail-on-regression :1: expected [EVALUATOR:][mean=]DELTA (score points, `0.25`) or [EVALUATOR:]pass-rate=P% (percentage points, `5%`)
    --fail-on-regression NaN: the allowed change is a finite number, 0 or more
    --fail-on-regression inf: the allowed change is a finite number, 0 or more
    ");
}

/// An evaluator that the second run lost, or whose rows all failed, fails every gate that
/// applies to it: a gate never passes on nothing measured.
#[test]
fn a_lost_evaluator_fails_the_gate() {
    let only_coherence = BEFORE
        .replace(r#","toxicity":{"name":"toxicity","score":1.0,"verdict":"pass","reason":"","threshold":3}"#, "")
        .replace(r#","toxicity":{"name":"toxicity","score":2.0,"verdict":"pass","reason":"","threshold":3}"#, "");
    let failed = gate_messages(BEFORE, &only_coherence, &["1"]);
    assert_eq!(
        failed,
        ["toxicity: the mean was 1.5 and cannot be measured now (no judged row); --fail-on-regression 1 fails it"]
    );
}

/// `--format azure` with several evaluators: `evaluate()`'s row keys, `outputs.KEY.` before
/// each evaluator's own keys, an error record as `outputs.KEY.error`.
#[test]
fn the_azure_layout_of_a_row_prefixes_each_evaluators_keys() {
    let text = concat!(
        r#"{"id":"a","line":1,"evaluators":{"coherence":{"name":"coherence","score":4.0,"verdict":"pass","reason":"ok","threshold":3},"#,
        r#""coherence_2":{"error":{"kind":"missing field","code":"PE117","message":"m"}}}}"#
    );
    let row: RowResults = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}"));
    let suite = Suite::new(vec![judge("coherence", [1, 5], 3.0, "higher"), judge("coherence", [1, 5], 3.0, "higher")]);
    let layouts: Vec<_> = suite.members().iter().map(|m| m.run().evaluator().azure_layout()).collect();
    let azure = row.to_azure(&layouts);
    let keys: Vec<&str> = azure.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    assert_eq!(keys.first().copied(), Some("id"));
    assert!(keys.contains(&"outputs.coherence.coherence"), "{keys:?}");
    assert!(keys.contains(&"outputs.coherence.coherence_result"), "{keys:?}");
    assert_eq!(azure["outputs.coherence.coherence_result"], json!("pass"));
    assert_eq!(azure["outputs.coherence_2.error"]["code"], json!("PE117"));
    assert!(keys.iter().all(|k| ["id", "line"].contains(k)
        || k.starts_with("outputs.coherence.")
        || k.starts_with("outputs.coherence_2.")));
}

/// An evaluator whose name holds a `:` can still be named by a mapping: the input is what
/// follows the last `:`.
#[test]
fn a_mapping_names_an_evaluator_with_a_colon_in_its_name() {
    let spec = MapSpec::parse("team:coherence:query=q").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (spec.evaluator.as_deref(), spec.input.as_str(), spec.path.as_str()),
        (Some("team:coherence"), "query", "q")
    );
}
