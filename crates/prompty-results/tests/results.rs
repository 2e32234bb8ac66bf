//! The report's model from result lines, its statistics, and what each output shows: the
//! JUnit XML users' CI reads (snapshot), hostile names and texts escaped in the page's static
//! part, long texts cut, many distinct scores binned.

use prompty_eval::{Evaluation, ResultLine, RowError, RowErrorKind, Threshold, Verdict};
use prompty_results::stats::{MAX_BINS, histogram};
use prompty_results::view::MAX_TEXT_CHARS;
use prompty_results::{Comparison, Outcome, Run, Stats};

fn judged(line: u64, key: &str, score: f64, verdict: Verdict, reason: &str) -> ResultLine {
    ResultLine::new(
        line,
        Ok(Evaluation {
            name: key.to_owned(),
            score: Some(score),
            verdict,
            reason: reason.to_owned(),
            threshold: Some(Threshold(3.into())),
            ..Evaluation::default()
        }),
    )
}

fn error(line: u64) -> ResultLine {
    ResultLine::new(line, Err(RowError::new(RowErrorKind::MissingAnswer, "rows.jsonl:4: no answer for this row")))
}

fn run(name: &str, lines: Vec<ResultLine>) -> Run {
    Run::from_lines(name, lines)
}

#[test]
fn a_run_from_result_lines_in_any_order() {
    let r = run(
        "a.jsonl",
        vec![
            error(4),
            judged(2, "coherence", 1.0, Verdict::Fail, "loses the thread"),
            judged(1, "coherence", 5.0, Verdict::Pass, "clear"),
            judged(3, "coherence", 9.0, Verdict::Unknown, "out of range"),
        ],
    );
    assert_eq!(r.evaluators.len(), 1);
    assert_eq!((r.evaluators[0].key.as_str(), r.evaluators[0].threshold.as_deref()), ("coherence", Some("3")));
    let ids: Vec<&str> = r.rows.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3", "4"]);
    let outcomes: Vec<Outcome> = r.rows.iter().map(|x| x.cells[0].outcome).collect();
    assert_eq!(outcomes, [Outcome::Pass, Outcome::Fail, Outcome::Unknown, Outcome::Error]);
    assert!(r.rows[3].cells[0].reason.contains("missing answer (PE107): rows.jsonl:4"), "{:?}", r.rows[3]);
    let s = Stats::of(&r, 0);
    // The unknown row's 9 is in no statistic.
    assert_eq!((s.rows, s.pass, s.fail, s.unknown, s.errors), (4, 1, 1, 1, 1));
    assert_eq!((s.mean, s.pass_rate), (Some(3.0), Some(0.5)));
    let bars: Vec<(String, usize)> = s.histogram.iter().map(|b| (b.label.clone(), b.count)).collect();
    assert_eq!(bars, [("1".to_owned(), 1), ("5".to_owned(), 1)]);
}

#[test]
fn the_junit_users_see() {
    let r = run(
        "results.jsonl",
        vec![
            judged(1, "coherence", 5.0, Verdict::Pass, "clear"),
            judged(2, "coherence", 1.0, Verdict::Fail, "loses the thread <b>"),
            judged(3, "coherence", 9.0, Verdict::Unknown, "out of range"),
            error(4),
        ],
    );
    insta::assert_snapshot!(prompty_results::junit::junit(&r));
}

#[test]
fn hostile_names_are_text_in_the_pages_static_part() {
    let key = "<script>alert(1)</script>";
    let name = "\"><img src=x onerror=alert(2)>.jsonl";
    let a = run(name, vec![judged(1, key, 5.0, Verdict::Pass, "</script><script>alert(3)</script>")]);
    let b = run("b.jsonl", vec![judged(1, key, 1.0, Verdict::Fail, "x")]);
    for page in [prompty_results::html::single(&a), prompty_results::html::compare(&Comparison::new(&a, &b))] {
        assert!(!page.contains("<script>alert"), "a script from the data");
        assert!(!page.contains("<img"), "an element from the data");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the key as text");
        assert!(page.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;.jsonl"), "the name as text");
        // Exactly the page's own two scripts.
        assert_eq!(page.matches("<script").count(), 2);
        assert_eq!(page.matches("</script>").count(), 2);
    }
    let md = prompty_results::markdown::compare(&Comparison::new(&a, &b));
    assert!(!md.contains("<script") && !md.contains("<img"), "{md}");
}

#[test]
fn long_texts_are_cut_and_say_how_much() {
    let long = "é".repeat(MAX_TEXT_CHARS + 5);
    let r = run("a.jsonl", vec![judged(1, "k", 5.0, Verdict::Pass, &long)]);
    let reason = &r.rows[0].cells[0].reason;
    assert!(reason.starts_with(&"é".repeat(MAX_TEXT_CHARS)));
    assert!(reason.ends_with("… (5 more characters not shown)"), "{}", &reason[reason.len() - 60..]);
    let mut r = r;
    let mut row = serde_json::Map::new();
    row.insert("query".into(), serde_json::Value::String("q".repeat(MAX_TEXT_CHARS * 3)));
    r.set_inputs(1, &row);
    assert!(r.rows[0].inputs[0].1.chars().count() < MAX_TEXT_CHARS + 50);
}

#[test]
fn many_distinct_scores_share_equal_bins() {
    let scores: Vec<f64> = (0..1000).map(|i| f64::from(i) / 999.0).collect();
    let bins = histogram(&scores);
    assert_eq!(bins.len(), MAX_BINS);
    assert_eq!(bins.iter().map(|b| b.count).sum::<usize>(), 1000);
    assert_eq!((bins[0].low, bins[MAX_BINS - 1].high), (0.0, 1.0));
    assert!(bins[MAX_BINS - 1].label.ends_with(']'), "the last bin is closed");
    // Up to 20 distinct values: one bar each, in order, negatives and zero included.
    let bins = histogram(&[-1.0, 0.0, -0.0, 2.5, 2.5, f64::NAN]);
    let bars: Vec<(String, usize)> = bins.iter().map(|b| (b.label.clone(), b.count)).collect();
    assert_eq!(bars, [("-1".to_owned(), 1), ("0".to_owned(), 2), ("2.5".to_owned(), 2)]);
}

#[test]
fn a_comparison_puts_changed_verdicts_first_and_matches_rows_by_id() {
    let a = run(
        "a.jsonl",
        vec![
            judged(1, "k", 5.0, Verdict::Pass, ""),
            judged(2, "k", 4.0, Verdict::Pass, ""),
            judged(3, "k", 2.0, Verdict::Fail, ""),
        ],
    );
    let b = run("b.jsonl", vec![judged(1, "k", 4.0, Verdict::Pass, ""), judged(2, "k", 1.0, Verdict::Fail, "")]);
    let c = Comparison::new(&a, &b);
    let ids: Vec<&str> = c.pairs.iter().filter_map(|p| c.row(p)).map(|r| r.id.as_str()).collect();
    // Row 2 changed verdict, row 3 is missing from B (a change too), row 1 only its score.
    assert_eq!(ids, ["2", "3", "1"]);
    let d = &c.evaluators[0];
    assert_eq!((d.verdict_changes, d.higher, d.lower), (2, 0, 2));
    assert_eq!(d.mean_delta, Some(2.5 - 11.0 / 3.0));
}

#[test]
fn keyed_lines_make_a_run_of_several_evaluators() {
    let lines = vec![
        (Some("coherence".to_owned()), judged(1, "coherence", 5.0, Verdict::Pass, "")),
        (Some("fluency".to_owned()), judged(1, "fluency", 2.0, Verdict::Fail, "")),
        (Some("coherence".to_owned()), judged(2, "coherence", 4.0, Verdict::Pass, "")),
        // An error record for one evaluator of the row only.
        (Some("fluency".to_owned()), error(2)),
    ];
    let r = Run::from_keyed("multi.jsonl", lines);
    let keys: Vec<&str> = r.evaluators.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["coherence", "fluency"]);
    let outcomes: Vec<Vec<Outcome>> = r.rows.iter().map(|row| row.cells.iter().map(|c| c.outcome).collect()).collect();
    assert_eq!(outcomes, [vec![Outcome::Pass, Outcome::Fail], vec![Outcome::Pass, Outcome::Error]]);
    let junit = prompty_results::junit::junit(&r);
    assert_eq!(junit.matches("<testcase ").count(), 4, "one case per row and evaluator: {junit}");
    assert_eq!(junit.matches("<testsuite ").count(), 2);
}
