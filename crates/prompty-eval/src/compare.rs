//! Two runs' results side by side: row by row (matched by data line) and in aggregate.
//!
//! The mean counts the scores of judged rows only (pass or fail), as [`RunSummary`] does:
//! a score without a verdict moves no statistic.
//!
//! [`RunSummary`]: crate::RunSummary

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;

use serde::Serialize;

use crate::error::Error;
use crate::record::ResultLine;
use crate::rows::{JsonLines, Line};
use crate::verdict::Verdict;

/// One run's results by data line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    /// The file's name.
    pub name: String,
    /// Each data line's result.
    pub rows: BTreeMap<u64, ResultLine>,
}

impl Results {
    /// Reads every result line of `lines` (blank lines skipped). A line that is no result
    /// line, or a second result for one data line, is an error naming it.
    pub fn read<R: BufRead>(mut lines: JsonLines<R>) -> Result<Self, Error> {
        let mut rows = BTreeMap::new();
        while let Some(line) = lines.next_line()? {
            let n = lines.line();
            let fail = |message: String| Error::NotAResult { name: lines.name().to_owned(), line: n, message };
            let Line::Text(text) = line else { return Err(fail("not UTF-8 text".to_owned())) };
            if text.trim().is_empty() {
                continue;
            }
            let result = ResultLine::parse(&text, lines.name(), n)?;
            let data_line = result.line;
            if rows.insert(data_line, result).is_some() {
                return Err(fail(format!("a second result for data line {data_line}")));
            }
        }
        Ok(Results { name: lines.name().to_owned(), rows })
    }

    /// The mean of the judged rows' scores.
    pub fn mean(&self) -> Option<f64> {
        let scores: Vec<f64> = self.rows.values().filter_map(judged_score).collect();
        (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
    }

    /// Passes over passes and fails.
    pub fn pass_rate(&self) -> Option<f64> {
        let count = |v| self.rows.values().filter(|r| r.evaluation().is_some_and(|e| e.verdict == v)).count();
        let (pass, fail) = (count(Verdict::Pass), count(Verdict::Fail));
        (pass + fail > 0).then(|| pass as f64 / (pass + fail) as f64)
    }
}

/// A row's score when the row was judged.
fn judged_score(r: &ResultLine) -> Option<f64> {
    let e = r.evaluation()?;
    matches!(e.verdict, Verdict::Pass | Verdict::Fail).then_some(e.score?).filter(|s| s.is_finite())
}

/// What a row was in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// An error record.
    Error,
    /// No result for the row.
    Missing,
    /// Evaluated, with this verdict.
    #[serde(untagged)]
    Verdict(Verdict),
}

impl Outcome {
    /// `pass`, `fail`, `unknown`, `not_applicable`, `error` or `missing`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Verdict(v) => v.as_str(),
            Outcome::Error => "error",
            Outcome::Missing => "missing",
        }
    }
}

/// A row in one run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Side {
    /// Its score, when judged.
    pub score: Option<f64>,
    /// Its outcome.
    pub verdict: Outcome,
}

impl Side {
    fn of(r: Option<&ResultLine>) -> Side {
        let verdict = match r {
            None => Outcome::Missing,
            Some(r) => r.evaluation().map_or(Outcome::Error, |e| Outcome::Verdict(e.verdict)),
        };
        Side { score: r.and_then(judged_score), verdict }
    }
}

/// A row that differs between the runs (or every row, when asked).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowChange {
    /// The data line.
    pub line: u64,
    /// The row in the first run.
    pub a: Side,
    /// The row in the second run.
    pub b: Side,
    /// The second score minus the first, when both are scored.
    pub delta: Option<f64>,
}

/// One run in aggregate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunStats {
    /// The file's name.
    pub file: String,
    /// Result lines.
    pub rows: usize,
    /// The mean of the judged scores.
    pub mean: Option<f64>,
    /// Passes over passes and fails.
    pub pass_rate: Option<f64>,
}

impl RunStats {
    fn of(r: &Results) -> RunStats {
        RunStats { file: r.name.clone(), rows: r.rows.len(), mean: r.mean(), pass_rate: r.pass_rate() }
    }
}

/// The aggregate of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Totals {
    /// The first run.
    pub a: RunStats,
    /// The second run.
    pub b: RunStats,
    /// The second mean minus the first.
    pub mean_delta: Option<f64>,
    /// Rows scored higher in the second run.
    pub higher: u64,
    /// Rows scored lower.
    pub lower: u64,
    /// Rows with the same score, or without a score in one of the runs.
    pub unchanged: u64,
    /// Rows whose outcome changed.
    pub verdict_changes: u64,
}

/// Two runs compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The aggregate.
    pub summary: Totals,
    /// The rows that differ (every row with `all`).
    pub rows: Vec<RowChange>,
}

/// Compares run `a` with run `b` row by row; `all` lists every row, not only those that
/// differ.
pub fn compare(a: &Results, b: &Results, all: bool) -> Comparison {
    let lines: BTreeSet<u64> = a.rows.keys().chain(b.rows.keys()).copied().collect();
    let (mut higher, mut lower, mut unchanged, mut verdict_changes) = (0u64, 0u64, 0u64, 0u64);
    let mut rows = Vec::new();
    for line in lines {
        let (sa, sb) = (Side::of(a.rows.get(&line)), Side::of(b.rows.get(&line)));
        let delta = sa.score.zip(sb.score).map(|(x, y)| y - x);
        match delta {
            Some(d) if d > 0.0 => higher += 1,
            Some(d) if d < 0.0 => lower += 1,
            _ => unchanged += 1,
        }
        if sa.verdict != sb.verdict {
            verdict_changes += 1;
        }
        if all || sa.verdict != sb.verdict || sa.score != sb.score {
            rows.push(RowChange { line, a: sa, b: sb, delta });
        }
    }
    let (ra, rb) = (RunStats::of(a), RunStats::of(b));
    let mean_delta = ra.mean.zip(rb.mean).map(|(x, y)| y - x);
    Comparison { summary: Totals { a: ra, b: rb, mean_delta, higher, lower, unchanged, verdict_changes }, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(name: &str, text: &str) -> Results {
        Results::read(JsonLines::new(name, text.as_bytes())).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn rows_are_matched_by_line_and_scores_without_a_verdict_move_nothing() {
        let a = results(
            "a.jsonl",
            concat!(
                r#"{"name":"q","score":4.0,"verdict":"pass","reason":"","line":1}"#,
                "\n",
                r#"{"name":"q","score":2.0,"verdict":"fail","reason":"","line":2}"#,
                "\n",
                r#"{"error":{"kind":"missing answer","code":"PE107","message":"m"},"line":3}"#,
                "\n",
            ),
        );
        let b = results(
            "b.jsonl",
            concat!(
                r#"{"name":"q","score":5.0,"verdict":"pass","reason":"","line":1}"#,
                "\n",
                r#"{"name":"q","score":1000.0,"verdict":"unknown","reason":"","line":2}"#,
                "\n",
                r#"{"name":"q","score":3.0,"verdict":"pass","reason":"","line":4}"#,
                "\n",
            ),
        );
        let c = compare(&a, &b, false);
        assert_eq!((c.summary.a.mean, c.summary.b.mean), (Some(3.0), Some(4.0)));
        assert_eq!((c.summary.higher, c.summary.lower, c.summary.unchanged, c.summary.verdict_changes), (1, 0, 3, 3));
        let changed: Vec<(u64, &str, &str)> =
            c.rows.iter().map(|r| (r.line, r.a.verdict.as_str(), r.b.verdict.as_str())).collect();
        assert_eq!(
            changed,
            [(1, "pass", "pass"), (2, "fail", "unknown"), (3, "error", "missing"), (4, "missing", "pass")]
        );
        assert_eq!(c.rows[1].b.score, None, "a score without a verdict is not compared");
    }

    #[test]
    fn a_line_that_is_no_result_is_named() {
        let e = Results::read(JsonLines::new("r.jsonl", "{\"coherence\": 4, \"line\": 1}\n".as_bytes())).err();
        assert!(e.is_some_and(|e| e.to_string().starts_with("r.jsonl:1: not a result of the default layout")));
        let twice = "{\"error\":{\"kind\":\"missing answer\",\"message\":\"m\"},\"line\":1}\n".repeat(2);
        let e = Results::read(JsonLines::new("r.jsonl", twice.as_bytes())).err();
        assert_eq!(e.map(|e| e.to_string()).as_deref(), Some("r.jsonl:2: a second result for data line 1"));
    }
}
