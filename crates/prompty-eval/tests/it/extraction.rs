//! Extraction rules, verdicts, result layouts, flattening and aggregation,
//! with snapshots where the output is structured.

use prompty_eval::azure::AzureEvaluator;
use prompty_eval::conversation::{Aggregation, TurnInputs, aggregate, conversation_turns};
use prompty_eval::extract::json::{self, JsonFields};
use prompty_eval::extract::tags::{self, DigitRange};
use prompty_eval::extract::{label, number};
use prompty_eval::flatten::{
    RefVersion, filter_to_used_tools, format_tool_calls, parse_tool_calls, preprocess_messages,
    reformat_agent_response, reformat_conversation_history, reformat_tool_definitions, simplify_messages,
};
use prompty_eval::{Error, Evaluation, JudgeReply, Threshold, Usage, Verdict};
use serde_json::{Map, Value, json};

/// One line per answer: the answer, then the score (or `unknown: why`).
fn table(rows: &[(&str, String)]) -> String {
    rows.iter().map(|(answer, out)| format!("{answer:?} -> {out}")).collect::<Vec<_>>().join("\n")
}

fn show(r: Result<f64, Error>) -> String {
    match r {
        Ok(s) => format!("{s:?}"),
        Err(e) => format!("unknown: {e}"),
    }
}

#[test]
fn tag_scores() {
    let answers = [
        "<S0>cot</S0><S1>why</S1><S2>4</S2>",
        "<S2>Score: 4.5/5</S2>",
        "<S2>10</S2>",
        "<S2>0</S2>",
        "<S2>6</S2>",
        "<S2>\n 3 \n</S2>",
        "<S2>4",
        "<S2>0</S2><S2>3</S2>",
        "<S2>none</S2><S2>4</S2>",
        "<S2>n/a</S2>",
        "Score: 4",
        "",
    ];
    let rows: Vec<(&str, String)> =
        answers.iter().map(|a| (*a, show(tags::score(a, DigitRange::ONE_TO_FIVE)))).collect();
    insta::assert_snapshot!(table(&rows));
}

#[test]
fn digit_scores() {
    let answers = ["4", "5", "stars: 4", "stars: 10", "five", "0", "\u{0663}"];
    let rows: Vec<(&str, String)> = answers.iter().map(|a| (*a, show(number::score(a)))).collect();
    insta::assert_snapshot!(table(&rows));
}

#[test]
fn label_scores() {
    let answers = ["TRUE", "false", "pass", "FAIL.", "\"yes\"", "1", "0", "maybe", "passed", "10"];
    let rows: Vec<(&str, String)> = answers
        .iter()
        .map(|a| {
            let out = match label::parse(a) {
                Ok(b) => b.to_string(),
                Err(e) => format!("error: {e}"),
            };
            (*a, out)
        })
        .collect();
    insta::assert_snapshot!(table(&rows));
}

#[test]
fn json_answers() {
    let answers = [
        r#"{"explanation": "ok", "score": 4}"#,
        r#"{"reason": "ok", "score": "5"}"#,
        r#"{"reasoning": "r", "score": 2.5}"#,
        r#"{"chain_of_thought": "c", "score": null}"#,
        r#"{"explanation": "no score"}"#,
        r#"{"score": "four"}"#,
        "[4]",
        "Here you go:\n```json\n{\"score\": 3, \"reason\": \"fenced\"}\n```",
        "I think {\"score\": 4, \"reason\": \"a } in \\\"text\\\"\",} is fair.",
        "Prose {not json} then {\"score\": 2}",
        r#"{"score": 1, "properties": {"a": 1}, "status": "completed"}"#,
        r#"{"score": true}"#,
        "no json at all",
        "{\"score\": 4",
        "",
    ];
    let fields = JsonFields::default();
    let rows: Vec<(&str, String)> = answers
        .iter()
        .map(|a| {
            let out = match json::extract(a, &fields) {
                Ok(x) => format!(
                    "score={:?} reason={:?} properties={} status={:?}{}",
                    x.score,
                    x.reason,
                    Value::Object(x.properties),
                    x.status,
                    x.score_problem.map(|p| format!(" ({p})")).unwrap_or_default()
                ),
                Err(e) => format!("error: {e}"),
            };
            (*a, out)
        })
        .collect();
    insta::assert_snapshot!(table(&rows));
}

#[test]
fn json_never_invents_a_score() {
    let fields = JsonFields::default();
    for answer in ["{}", "{\"reason\": \"x\"}", "[4]", "{\"score\": null}", "\"5\""] {
        let x = json::extract(answer, &fields);
        assert!(x.as_ref().map(|x| x.score.is_none()).unwrap_or(true), "{answer}");
    }
}

fn reply(content: &str) -> JudgeReply {
    JudgeReply {
        content: Some(content.to_owned()),
        role: Some("assistant".to_owned()),
        usage: Some(Usage { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }),
        finish_reason: Some("stop".to_owned()),
        model: Some("judge".to_owned()),
    }
}

#[test]
fn reference_records() {
    let cases: [(AzureEvaluator, &str); 12] = [
        (AzureEvaluator::Coherence, "<S1>why</S1><S2>4</S2>"),
        (AzureEvaluator::Coherence, "<S2>0</S2>"),
        (AzureEvaluator::Similarity, "stars: 10"),
        (AzureEvaluator::Relevance, r#"{"explanation": "no score"}"#),
        (AzureEvaluator::ResponseCompleteness, "<S1>r</S1><S2>2</S2>"),
        (AzureEvaluator::TaskAdherence, r#"{"reasoning": "bad", "flagged": true}"#),
        (AzureEvaluator::TaskCompletion, r#"{"explanation": "e", "details": {}, "success": false}"#),
        (AzureEvaluator::ToolCallAccuracy, r#"{"chain_of_thought": "c", "tool_calls_success_level": 2}"#),
        (
            AzureEvaluator::ToolSelection,
            r#"{"explanation": "x", "details": {"correct_tool_selections": 1, "wrong_tool_selections": 2}, "score": 0}"#,
        ),
        (
            AzureEvaluator::ToolInputAccuracy,
            r#"{"chain_of_thought": "c", "details": {"total_parameters_passed": 0}, "result": 0}"#,
        ),
        (AzureEvaluator::ToolOutputUtilization, r#"{"faulty_details": [], "reason": "ok", "label": "Fail"}"#),
        (AzureEvaluator::ToolSuccess, r#"{"explanation": "fine", "details": {}, "success": "true"}"#),
    ];
    let mut out = Map::new();
    for (i, (e, answer)) in cases.iter().enumerate() {
        let r = reply(answer);
        let record = match e.score(&e.default_threshold(), &r) {
            Ok(ev) => Value::Object(e.record(&ev, false)),
            Err(err) => Value::String(format!("error: {err}")),
        };
        out.insert(format!("{i:02} {} {answer}", e.result_key()), record);
    }
    insta::assert_json_snapshot!(Value::Object(out));
}

#[test]
fn reference_errors() {
    let cases: [(AzureEvaluator, &str); 6] = [
        (AzureEvaluator::IntentResolution, r#"{"explanation": "x", "score": 7}"#),
        (AzureEvaluator::ToolCallAccuracy, r#"{"chain_of_thought": "x", "tool_calls_success_level": 0}"#),
        (AzureEvaluator::ToolSelection, r#"{"explanation": "x", "score": "1"}"#),
        (AzureEvaluator::ResponseCompleteness, "<S2>6</S2>"),
        (AzureEvaluator::Similarity, "five"),
        (AzureEvaluator::Relevance, r#"{"explanation": "x", "score": "four"}"#),
    ];
    let rows: Vec<String> = cases
        .iter()
        .map(|(e, answer)| {
            let out = match e.score(&e.default_threshold(), &reply(answer)) {
                Ok(ev) => format!("ok: {:?}", ev.score),
                Err(err) => format!("{:?}: {err}", err.category()),
            };
            format!("{} {answer} -> {out}", e.result_key())
        })
        .collect();
    insta::assert_snapshot!(rows.join("\n"));
}

#[test]
fn clean_json_form() {
    let e = Evaluation {
        name: "coherence".to_owned(),
        score: Some(4.0),
        verdict: Verdict::Pass,
        reason: "clear".to_owned(),
        threshold: Some(Threshold::from(3u8)),
        usage: Some(Usage { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }),
        model: Some("judge".to_owned()),
        ..Evaluation::default()
    };
    insta::assert_json_snapshot!(e);
    let unknown =
        Evaluation { name: "coherence".to_owned(), problem: Some("no score tag".to_owned()), ..Evaluation::default() };
    insta::assert_json_snapshot!(unknown);
}

fn agent_query() -> Value {
    json!([
        {"role": "system", "content": "Be brief.\nAlways confirm."},
        {"role": "user", "content": [{"type": "text", "text": "Cancel my 2 pm."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Friday, right?"}]},
        {"role": "user", "content": [{"type": "text", "text": "Yes.\nAnd tell Lee."}]}
    ])
}

fn agent_response() -> Value {
    json!([
        {"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": "c1", "name": "find",
            "arguments": {"who": "Lee", "urgent": true, "n": 1, "note": null}}]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "tool_result", "tool_result": {"id": 42, "ok": true}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
    ])
}

#[test]
fn flattening() {
    let q = agent_query();
    let r = agent_response();
    let defs = json!([
        {"name": "find", "description": " Find an event. ", "parameters": {"properties": {"who": {}, "urgent": {}}}},
        {"name": "weather", "description": "Weather.", "parameters": {}},
        {"description": "Nameless."}
    ]);
    let mut out = Map::new();
    let mut put = |k: &str, v: Value| {
        out.insert(k.to_owned(), v);
    };
    put("history", reformat_conversation_history(&q, false, false, RefVersion::V1_13_3));
    put("history_with_system", reformat_conversation_history(&q, true, false, RefVersion::V1_13_3));
    put(
        "history_string_content_falls_back",
        reformat_conversation_history(&json!([{"role": "user", "content": "Hi"}]), false, false, RefVersion::V1_13_3),
    );
    put("response_text", reformat_agent_response(&r, false, RefVersion::V1_13_3));
    put("response_tools_1_13_3", reformat_agent_response(&r, true, RefVersion::V1_13_3));
    put("response_tools_1_18_10", reformat_agent_response(&r, true, RefVersion::V1_18_10));
    put("response_empty", reformat_agent_response(&json!([]), true, RefVersion::V1_13_3));
    put("tool_calls_only", format_tool_calls(&r, RefVersion::V1_13_3));
    put("tool_definitions", reformat_tool_definitions(&defs));
    put("used_tools", filter_to_used_tools(&defs, &[&r]));
    put("used_tools_none_called", filter_to_used_tools(&defs, &[&q]));
    put("parsed_tool_calls", Value::Array(parse_tool_calls(&r)));
    put("simplified", simplify_messages(&q, true, true));
    put(
        "preprocessed_1_18_10",
        preprocess_messages(
            &json!([{"role": "assistant", "content": [{"type": "function_call", "function_call": {"name": "f"}}]}]),
            RefVersion::V1_18_10,
        ),
    );
    insta::assert_json_snapshot!(Value::Object(out));
}

#[test]
fn conversation_split_and_aggregate() {
    let conversation = json!({
        "context": "Global.",
        "messages": [
            {"role": "user", "content": "Q1", "context": "qc"},
            {"role": "assistant", "content": "A1", "context": "rc"},
            {"role": "system", "content": "ignored"},
            {"role": "user", "content": "Q2"},
            {"role": "assistant", "content": "A2", "ground_truth": "G2"},
            {"role": "user", "content": "unanswered"}
        ]
    });
    let all = TurnInputs {
        query: true,
        response: true,
        context: true,
        ground_truth: true,
        last_turn_only: false,
        response_context: true,
    };
    let turns = conversation_turns(&conversation, all).unwrap_or_default();
    insta::assert_json_snapshot!(turns);
    let last = conversation_turns(&conversation, TurnInputs { last_turn_only: true, ..all }).unwrap_or_default();
    // The last two messages are an assistant and a user message; pairing
    // the role lists in order still makes one (mismatched) turn.
    assert_eq!(last.len(), 1);
    assert_eq!(last.first().and_then(|t| t.get("query")), Some(&json!("unanswered")));

    let per_turn: Vec<Map<String, Value>> = [
        json!({"s": 4.0, "gpt_s": 4.0, "s_result": "pass", "s_threshold": 3, "s_tokens": 1200, "ok": true}),
        json!({"s": 2.0, "gpt_s": 2.0, "s_result": "fail", "s_threshold": 3, "s_tokens": 1201, "ok": false}),
        json!({"s": "NaN", "gpt_s": "NaN", "s_result": "unknown", "s_threshold": 3, "s_tokens": 1202, "ok": true}),
    ]
    .into_iter()
    .filter_map(|v| v.as_object().cloned())
    .collect();
    insta::assert_json_snapshot!(aggregate(per_turn.clone(), Aggregation::Mean));
    let two = per_turn.get(..2).unwrap_or_default().to_vec();
    insta::assert_json_snapshot!(aggregate(two.clone(), Aggregation::Max));
    assert_eq!(aggregate(Vec::new(), Aggregation::Mean), Map::new());
}

#[test]
fn conversation_errors() {
    let cases = [json!("not an object"), json!({"context": "x"}), json!({"messages": "not a list"})];
    for c in cases {
        assert!(conversation_turns(&c, TurnInputs::default()).is_err(), "{c}");
    }
}

/// How long one extraction of a hostile answer may take before it counts as hung (a
/// quadratic scan of 1 MB takes minutes).
const HANG_GUARD: std::time::Duration = std::time::Duration::from_secs(120);

/// 1 MB answers of every shape that once made a scan start over (from each `{`, each
/// `<S2>`, each quote), through every answer format and several reference evaluators:
/// each finishes within the hang guard with the outcome the rules give.
#[test]
fn hostile_one_megabyte_answers_extract_in_linear_time() {
    use prompty_eval::{AzureEvaluator, Evaluator, EvaluatorConfig};
    const SIZE: usize = 1 << 20;
    let shapes = [
        "{",
        "{\"a\":",
        "\"",
        "<S0>",
        "<S2>",
        "<S2>4",
        "<S2>x",
        "```",
        "```json\n{",
        "\\",
        ",",
        "{\"",
        "\"{",
        "{\"a\":[",
        "{\"a\":{}",
        "{\"\\\"",
        "{\"a\":1,   ",
        "[",
        "{\"k\":[1,1,1,1],\"a\":",
    ];
    let formats = ["json", "tags", "label", "number"];
    let evaluators: Vec<Evaluator> = formats
        .iter()
        .map(|f| {
            let config = EvaluatorConfig::from_block(&json!({"answer": f, "range": [1, 5], "threshold": 3}));
            Evaluator::new("hostile", config.unwrap_or_default())
        })
        .collect();
    // JSON objects, then tags when the answer is not an object.
    let references = [AzureEvaluator::Relevance, AzureEvaluator::ResponseCompleteness];
    // One shape per core at a time: each is a megabyte through six extractions.
    prompty_test_support::on_every_core(&shapes, |&shape| {
        let answer = shape.repeat(SIZE / shape.len());
        let reply = JudgeReply::text(answer.clone());
        for (format, evaluator) in formats.iter().zip(&evaluators) {
            let started = std::time::Instant::now();
            let outcome = evaluator.evaluate(&reply);
            let took = started.elapsed();
            assert!(took < HANG_GUARD, "{format} on {shape:?} x {} took {took:?}", SIZE / shape.len());
            // None of these answers holds a usable score, except a first digit in number mode
            // (a digit outside the range [1, 5] has no verdict).
            let verdict = outcome.as_ref().map(|e| e.verdict).unwrap_or(Verdict::Unknown);
            let digit = answer.chars().find(char::is_ascii_digit).is_some_and(|d| ('1'..='5').contains(&d));
            if *format == "number" && digit {
                assert_ne!(verdict, Verdict::Unknown, "{format} on {shape:?}");
            } else if !(*format == "tags" && shape == "<S2>4") {
                assert_eq!(verdict, Verdict::Unknown, "{format} on {shape:?}");
            }
        }
        for reference in references {
            let started = std::time::Instant::now();
            let _ = reference.score(&reference.default_threshold(), &reply);
            let took = started.elapsed();
            assert!(took < HANG_GUARD, "{reference:?} on {shape:?} took {took:?}");
        }
    });
}

/// An answer above the size limit is an error that says so, in every format, strict or not.
#[test]
fn answers_over_the_size_limit_are_refused() {
    use prompty_eval::extract::MAX_ANSWER_BYTES;
    use prompty_eval::{AzureEvaluator, Evaluator, EvaluatorConfig};
    let answer = format!("{{\"score\": 5}}{}", " ".repeat(MAX_ANSWER_BYTES));
    let reply = JudgeReply::text(answer.clone());
    for format in ["json", "tags", "label", "number"] {
        let config = EvaluatorConfig::from_block(&json!({"answer": format, "threshold": 3})).unwrap_or_default();
        let err = Evaluator::new("big", config).evaluate(&reply).err();
        assert_eq!(
            err.map(|e| e.to_string()),
            Some(format!(
                "the judge answer is {} bytes, more than the {MAX_ANSWER_BYTES}-byte limit; a judge's answer is a score and a short reason",
                answer.len()
            )),
            "{format}"
        );
    }
    let err = AzureEvaluator::Coherence.score(&Threshold::from(3u8), &reply).err();
    assert!(matches!(err, Some(Error::AnswerTooLarge { .. })), "{err:?}");
    // At the limit itself the answer is read.
    let at_limit = format!("{{\"score\": 5}}{}", " ".repeat(MAX_ANSWER_BYTES - 12));
    let config = EvaluatorConfig::from_block(&json!({"answer": "json", "threshold": 3})).unwrap_or_default();
    let e = Evaluator::new("big", config).evaluate(&JudgeReply::text(at_limit)).ok();
    assert_eq!(e.map(|e| (e.score, e.verdict)), Some((Some(5.0), Verdict::Pass)));
}

/// Every spelling of a non-finite score, in every format and in the verdict: no score,
/// verdict unknown, and a problem that says why; never a pass.
#[test]
fn non_finite_scores_are_unknown_never_pass() {
    use prompty_eval::{Evaluator, EvaluatorConfig};
    let answers = [
        ("json", r#"{"score": "inf"}"#),
        ("json", r#"{"score": "-inf"}"#),
        ("json", r#"{"score": "+Infinity"}"#),
        ("json", r#"{"score": "infinity"}"#),
        ("json", r#"{"score": "nan"}"#),
        ("json", r#"{"score": "-NaN"}"#),
        ("json", r#"{"score": "1e999"}"#),
        ("json", r#"{"score": 1e999}"#),
        ("json", r#"{"score": -1e999}"#),
        ("json", r#"{"score": NaN}"#),
        ("json", r#"{"score": Infinity}"#),
        ("json", "```json\n{\"score\": \"inf\", \"reason\": \"fenced\"}\n```"),
        ("json", r#"Score below. {"score": "Infinity", "reason": "in prose"}"#),
        ("label", r#"{"score": "inf"}"#),
        ("label", r#"{"score": 1e999}"#),
        ("label", "inf"),
        ("tags", "<S2>inf</S2>"),
        ("number", "inf"),
        ("number", "Infinity"),
    ];
    let mut rows = Vec::new();
    for (format, answer) in answers {
        for direction in ["higher", "lower", "equal"] {
            let block = json!({"answer": format, "threshold": 3, "direction": direction});
            let config = EvaluatorConfig::from_block(&block).unwrap_or_default();
            let e = Evaluator::new("q", config).evaluate(&JudgeReply::text(answer));
            let e = e.unwrap_or_default();
            assert_eq!((e.score, e.verdict), (None, Verdict::Unknown), "{format} {direction} {answer}");
            if direction == "higher" {
                rows.push((answer, format!("{format}: {}", e.problem.unwrap_or_default())));
            }
        }
    }
    insta::assert_snapshot!(table(&rows));
    let reference =
        AzureEvaluator::Relevance.score(&Threshold::from(3u8), &reply(r#"{"explanation": "x", "score": "inf"}"#));
    let reference = reference.unwrap_or_default();
    assert_eq!((reference.score, reference.verdict), (None, Verdict::Unknown));
}
