//! Two runs' results side by side: per evaluator, row by row (matched by row id) and in
//! aggregate, and the regression gate that fails a change which lowers an evaluator's
//! mean or pass rate by more than allowed.
//!
//! A results file is what `prompty eval` writes: one-evaluator lines ([`ResultLine`]) or
//! several-evaluator lines ([`RowResults`]). Rows are matched by their `id` (lines written
//! before ids existed: their line number); evaluators by key, and the one evaluator of two
//! one-evaluator files with each other whatever their names.
//!
//! The mean counts the scores of judged rows only (pass or fail), as [`RunSummary`] does:
//! a score without a verdict moves no statistic.
//!
//! Whether a higher mean is better is read from the results: a pass scored above its
//! threshold, or a fail below it, says higher is better; the opposite says lower is
//! better. When the rows do not say (no judged row away from its threshold, or rows that
//! disagree), higher is taken as better and [`EvaluatorComparison::higher_is_better`]
//! is `None`.
//!
//! [`RunSummary`]: crate::RunSummary

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::BufRead;

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::record::{ResultLine, RowId, RowResults};
use crate::rows::{JsonLines, Line};
use crate::summary::format_number;
use crate::verdict::Verdict;

/// One evaluator's results in a run, in file order, by row id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvaluatorResults {
    /// The evaluator's key (a one-evaluator file: its evaluations' name).
    pub key: String,
    /// Each row's result, in file order.
    pub rows: Vec<ResultLine>,
    by_id: HashMap<String, usize>,
}

impl EvaluatorResults {
    fn new(key: String) -> Self {
        EvaluatorResults { key, rows: Vec::new(), by_id: HashMap::new() }
    }

    /// The result of the row with this id (compared by text).
    pub fn get(&self, id: &str) -> Option<&ResultLine> {
        self.by_id.get(id).and_then(|&i| self.rows.get(i))
    }

    fn push(&mut self, result: ResultLine) -> Result<(), String> {
        let id = result.row_id().to_string();
        if let Some(&first) = self.by_id.get(&id) {
            let first = self.rows.get(first).map_or(0, |r| r.line);
            return Err(format!(
                "a second result for row id `{id}` (the first is for data line {first}); rows are matched by id, which must be unique"
            ));
        }
        self.by_id.insert(id, self.rows.len());
        self.rows.push(result);
        Ok(())
    }

    /// The mean of the judged rows' scores.
    pub fn mean(&self) -> Option<f64> {
        let scores: Vec<f64> = self.rows.iter().filter_map(judged_score).collect();
        (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
    }

    /// Passes over passes and fails.
    pub fn pass_rate(&self) -> Option<f64> {
        let count = |v| self.rows.iter().filter(|r| r.evaluation().is_some_and(|e| e.verdict == v)).count();
        let (pass, fail) = (count(Verdict::Pass), count(Verdict::Fail));
        (pass + fail > 0).then(|| pass as f64 / (pass + fail) as f64)
    }

    /// What the judged rows say about the direction: `Some(true)` higher is better,
    /// `Some(false)` lower is better, `None` they do not say (or disagree).
    fn direction(&self) -> Option<bool> {
        let mut seen = (false, false);
        for e in self.rows.iter().filter_map(ResultLine::evaluation) {
            let (Some(score), Some(t)) = (e.score, e.threshold.as_ref()) else { continue };
            let t = t.value();
            if !score.is_finite() || !t.is_finite() || score == t {
                continue;
            }
            match (e.verdict, score > t) {
                (Verdict::Pass, true) | (Verdict::Fail, false) => seen.0 = true,
                (Verdict::Pass, false) | (Verdict::Fail, true) => seen.1 = true,
                _ => {}
            }
        }
        match seen {
            (true, false) => Some(true),
            (false, true) => Some(false),
            _ => None,
        }
    }
}

/// One run's results: every evaluator's, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    /// The file's name.
    pub name: String,
    /// Whether the file holds one-evaluator lines (`false`: several-evaluator lines).
    pub single: bool,
    /// Each evaluator's results.
    pub evaluators: Vec<EvaluatorResults>,
}

impl Results {
    /// Reads every result line of `lines` (blank lines skipped). A line that is no result
    /// line, a file mixing one- and several-evaluator lines, or a second result for one row
    /// id, is an error naming the line.
    pub fn read<R: BufRead>(mut lines: JsonLines<R>) -> Result<Self, Error> {
        let name = lines.name().to_owned();
        let mut results = Results { name: name.clone(), single: true, evaluators: Vec::new() };
        let mut shape: Option<bool> = None;
        while let Some(line) = lines.next_line()? {
            let n = lines.line();
            let fail = |message: String| Error::NotAResult { name: name.clone(), line: n, message };
            let Line::Text(text) = line else { return Err(fail("not UTF-8 text".to_owned())) };
            if text.trim().is_empty() {
                continue;
            }
            let value: Value = serde_json::from_str(&text).map_err(|e| fail(format!("not a result line: {e}")))?;
            let several = value.get("evaluators").is_some_and(Value::is_object);
            if shape.is_some_and(|s| s != several) {
                return Err(fail(
                    "this line and the lines before it come from different kinds of run (one evaluator, several evaluators); one file holds one run".to_owned(),
                ));
            }
            shape = Some(several);
            if several {
                results.single = false;
                let row: RowResults =
                    serde_json::from_value(value).map_err(|e| fail(format!("not a result line: {e}")))?;
                for (key, result) in row.lines() {
                    let at = match results.evaluators.iter().position(|e| e.key == key) {
                        Some(i) => i,
                        None => {
                            results.evaluators.push(EvaluatorResults::new(key.to_owned()));
                            results.evaluators.len() - 1
                        }
                    };
                    if let Some(e) = results.evaluators.get_mut(at) {
                        e.push(result).map_err(|m| fail(format!("evaluator `{key}`: {m}")))?;
                    }
                }
            } else {
                let result = ResultLine::parse(&text, &name, n)?;
                if results.evaluators.is_empty() {
                    results.evaluators.push(EvaluatorResults::new(String::new()));
                }
                if let Some(e) = results.evaluators.first_mut() {
                    if e.key.is_empty()
                        && let Some(ev) = result.evaluation()
                    {
                        e.key = ev.name.clone();
                    }
                    e.push(result).map_err(fail)?;
                }
            }
        }
        Ok(results)
    }

    /// The evaluators' keys, in file order.
    pub fn keys(&self) -> Vec<&str> {
        self.evaluators.iter().map(|e| e.key.as_str()).collect()
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
    /// The row's id.
    pub id: RowId,
    /// Its data line (in the first run, else the second).
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
    fn of(file: &str, r: Option<&EvaluatorResults>) -> RunStats {
        RunStats {
            file: file.to_owned(),
            rows: r.map_or(0, |r| r.rows.len()),
            mean: r.and_then(EvaluatorResults::mean),
            pass_rate: r.and_then(EvaluatorResults::pass_rate),
        }
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
    /// The second pass rate minus the first.
    pub pass_rate_delta: Option<f64>,
    /// Rows scored higher in the second run.
    pub higher: u64,
    /// Rows scored lower.
    pub lower: u64,
    /// Rows with the same score, or without a score in one of the runs.
    pub unchanged: u64,
    /// Rows whose outcome changed.
    pub verdict_changes: u64,
}

/// One evaluator's two runs compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvaluatorComparison {
    /// The evaluator's key (the first run's, when two one-evaluator files are compared).
    pub key: String,
    /// Whether a higher mean is better, as the results show it (`null`: they do not say;
    /// higher is taken as better).
    pub higher_is_better: Option<bool>,
    /// The aggregate.
    pub summary: Totals,
    /// The rows that differ (every row with `all`).
    pub rows: Vec<RowChange>,
}

/// Two runs compared, evaluator by evaluator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Each evaluator's comparison: the first run's evaluators in order, then those only
    /// the second run has.
    pub evaluators: Vec<EvaluatorComparison>,
}

/// Compares run `a` with run `b`; `all` lists every row, not only those that differ.
pub fn compare(a: &Results, b: &Results, all: bool) -> Comparison {
    let mut pairs: Vec<(String, Option<&EvaluatorResults>, Option<&EvaluatorResults>)> = Vec::new();
    if a.evaluators.len() == 1 && b.evaluators.len() == 1 && a.single && b.single {
        let key = a.evaluators.first().map(|e| e.key.clone()).unwrap_or_default();
        pairs.push((key, a.evaluators.first(), b.evaluators.first()));
    } else {
        for ea in &a.evaluators {
            pairs.push((ea.key.clone(), Some(ea), b.evaluators.iter().find(|e| e.key == ea.key)));
        }
        for eb in b.evaluators.iter().filter(|eb| !a.evaluators.iter().any(|ea| ea.key == eb.key)) {
            pairs.push((eb.key.clone(), None, Some(eb)));
        }
    }
    let evaluators = pairs.into_iter().map(|(key, ea, eb)| compare_one(key, &a.name, ea, &b.name, eb, all)).collect();
    Comparison { evaluators }
}

fn compare_one(
    key: String,
    a_name: &str,
    a: Option<&EvaluatorResults>,
    b_name: &str,
    b: Option<&EvaluatorResults>,
    all: bool,
) -> EvaluatorComparison {
    let empty = EvaluatorResults::default();
    let (ra, rb) = (a.unwrap_or(&empty), b.unwrap_or(&empty));
    // Rows in the first run's order, then the second run's new ones.
    let mut order: Vec<(RowId, u64)> = Vec::new();
    let mut listed: HashSet<String> = HashSet::new();
    for r in ra.rows.iter().chain(&rb.rows) {
        let id = r.row_id();
        if listed.insert(id.to_string()) {
            order.push((id, r.line));
        }
    }
    let (mut higher, mut lower, mut unchanged, mut verdict_changes) = (0u64, 0u64, 0u64, 0u64);
    let mut rows = Vec::new();
    for (id, line) in order {
        let text = id.to_string();
        let (sa, sb) = (Side::of(ra.get(&text)), Side::of(rb.get(&text)));
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
            rows.push(RowChange { id, line, a: sa, b: sb, delta });
        }
    }
    let (sa, sb) = (RunStats::of(a_name, a), RunStats::of(b_name, b));
    let mean_delta = sa.mean.zip(sb.mean).map(|(x, y)| y - x);
    let pass_rate_delta = sa.pass_rate.zip(sb.pass_rate).map(|(x, y)| y - x);
    let higher_is_better = match (ra.direction(), rb.direction()) {
        (Some(x), Some(y)) if x != y => None,
        (x, y) => x.or(y),
    };
    EvaluatorComparison {
        key,
        higher_is_better,
        summary: Totals { a: sa, b: sb, mean_delta, pass_rate_delta, higher, lower, unchanged, verdict_changes },
        rows,
    }
}

/// What a regression gate measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// The mean of the judged scores, in score points.
    Mean,
    /// Passes over passes and fails, in percentage points.
    PassRate,
}

impl Metric {
    /// `mean`, `pass rate`.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Mean => "mean",
            Metric::PassRate => "pass rate",
        }
    }
}

/// A regression gate (`--fail-on-regression [EVALUATOR:][mean=|pass-rate=]DELTA`): the
/// second run fails when an evaluator's mean (score points) or pass rate (percentage
/// points) is worse than the first run's by more than `delta`.
#[derive(Debug, Clone, PartialEq)]
pub struct RegressionGate {
    /// The evaluator it is for; `None` for every evaluator (an evaluator's own gate for the
    /// same metric replaces it).
    pub evaluator: Option<String>,
    /// What it measures.
    pub metric: Metric,
    /// The largest change for the worse allowed: score points, or percentage points.
    pub delta: f64,
    /// The option as given, for messages.
    pub text: String,
}

impl RegressionGate {
    /// Reads `DELTA` (the mean), `mean=DELTA`, `pass-rate=P%`, each optionally after
    /// `EVALUATOR:`.
    pub fn parse(spec: &str) -> Result<Self, Error> {
        let text = format!("--fail-on-regression {spec}");
        let usage = "expected [EVALUATOR:][mean=]DELTA (score points, `0.25`) or [EVALUATOR:]pass-rate=P% (percentage points, `5%`)";
        let (evaluator, rest) = match spec.rsplit_once(':') {
            Some((e, r)) if !e.trim().is_empty() => (Some(e.trim().to_owned()), r.trim()),
            Some(_) => return Err(Error::run_option(text, usage)),
            None => (None, spec.trim()),
        };
        let (metric, value) = match rest.split_once('=') {
            Some((m, v)) => match m.trim() {
                "mean" => (Metric::Mean, v.trim()),
                "pass-rate" | "pass_rate" => (Metric::PassRate, v.trim()),
                other => return Err(Error::run_option(text, format!("unknown measure `{other}`; {usage}"))),
            },
            None => (Metric::Mean, rest),
        };
        let number = match (metric, value.strip_suffix('%')) {
            (Metric::PassRate, Some(p)) => p.trim(),
            (Metric::PassRate, None) => {
                return Err(Error::run_option(text, "a pass-rate change is in percentage points: write `5%`"));
            }
            (Metric::Mean, Some(_)) => {
                return Err(Error::run_option(
                    text,
                    "a mean change is in score points (`0.25`); for the pass rate write pass-rate=P%",
                ));
            }
            (Metric::Mean, None) => value,
        };
        let delta: f64 = number.parse().map_err(|_| Error::run_option(&text, format!("`{value}`: {usage}")))?;
        if !delta.is_finite() || delta < 0.0 {
            return Err(Error::run_option(text, "the allowed change is a finite number, 0 or more"));
        }
        Ok(RegressionGate { evaluator, metric, delta, text })
    }
}

/// A gate that failed: which evaluator, what was measured, and what was allowed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Regression {
    /// The evaluator's key.
    pub evaluator: String,
    /// The measure.
    pub metric: Metric,
    /// The first run's value (the pass rate as a fraction), when measured.
    pub before: Option<f64>,
    /// The second run's value, when measured.
    pub after: Option<f64>,
    /// The second minus the first, in the gate's unit (score or percentage points).
    pub change: Option<f64>,
    /// The change allowed.
    pub allowed: f64,
    /// Whether a higher value is better (the pass rate always; the mean as the results show,
    /// higher when they do not say).
    pub higher_is_better: bool,
    /// The gate as given.
    pub gate: String,
}

impl fmt::Display for Regression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (scale, unit) = match self.metric {
            Metric::Mean => (1.0, ""),
            Metric::PassRate => (100.0, "%"),
        };
        let shown =
            |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{}{unit}", format_number(v * scale)));
        let (before, after) = (shown(self.before), shown(self.after));
        let what = format!("{}: the {}", self.evaluator, self.metric.as_str());
        match (self.before, self.after, self.change) {
            (_, _, Some(change)) => {
                let moved = if change < 0.0 { "fell" } else { "rose" };
                let sign = if change > 0.0 { "+" } else { "" };
                let points = if self.metric == Metric::PassRate { " points" } else { "" };
                let worse = if self.higher_is_better { "" } else { ", and lower is better here" };
                write!(
                    f,
                    "{what} {moved} from {before} to {after} ({sign}{}{points}{worse}); {} allows {}{points}",
                    format_number(change),
                    self.gate,
                    format_number(self.allowed)
                )
            }
            (Some(_), None, _) => {
                write!(f, "{what} was {before} and cannot be measured now (no judged row); {} fails it", self.gate)
            }
            _ => write!(f, "{what} cannot be compared; {} fails it", self.gate),
        }
    }
}

/// The gates of `gates` that `comparison` fails. A gate naming an evaluator that neither
/// run has is an error; an evaluator the second run lacks fails every gate that applies
/// to it.
pub fn regressions(comparison: &Comparison, gates: &[RegressionGate]) -> Result<Vec<Regression>, Error> {
    for g in gates {
        if let Some(key) = &g.evaluator
            && !comparison.evaluators.iter().any(|e| e.key == *key)
        {
            let keys: Vec<&str> = comparison.evaluators.iter().map(|e| e.key.as_str()).collect();
            return Err(Error::run_option(
                &g.text,
                format!("the results have no evaluator `{key}` (they have: {})", keys.join(", ")),
            ));
        }
    }
    let mut failed = Vec::new();
    for e in &comparison.evaluators {
        for metric in [Metric::Mean, Metric::PassRate] {
            let own = gates.iter().rev().find(|g| g.metric == metric && g.evaluator.as_deref() == Some(&e.key));
            let Some(gate) = own.or_else(|| gates.iter().rev().find(|g| g.metric == metric && g.evaluator.is_none()))
            else {
                continue;
            };
            let s = &e.summary;
            let (before, after, higher_is_better) = match metric {
                Metric::Mean => (s.a.mean, s.b.mean, e.higher_is_better.unwrap_or(true)),
                Metric::PassRate => (s.a.pass_rate, s.b.pass_rate, true),
            };
            let scale = if metric == Metric::PassRate { 100.0 } else { 1.0 };
            let change = before.zip(after).map(|(x, y)| (y - x) * scale);
            let worse_by = change.map(|c| if higher_is_better { -c } else { c });
            // A tiny tolerance: 0.1 + 0.2 is not 0.3 in floating point.
            let failed_gate = match (before, worse_by) {
                (_, Some(w)) => w > gate.delta + 1e-9,
                (Some(_), None) => true,
                (None, None) => false,
            };
            if failed_gate {
                failed.push(Regression {
                    evaluator: e.key.clone(),
                    metric,
                    before,
                    after,
                    change,
                    allowed: gate.delta,
                    higher_is_better,
                    gate: gate.text.clone(),
                });
            }
        }
    }
    Ok(failed)
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
        assert_eq!(c.evaluators.len(), 1);
        let c = &c.evaluators[0];
        assert_eq!((c.summary.a.mean, c.summary.b.mean), (Some(3.0), Some(4.0)));
        assert_eq!((c.summary.higher, c.summary.lower, c.summary.unchanged, c.summary.verdict_changes), (1, 0, 3, 3));
        let changed: Vec<(String, &str, &str)> =
            c.rows.iter().map(|r| (r.id.to_string(), r.a.verdict.as_str(), r.b.verdict.as_str())).collect();
        let expected =
            [("1", "pass", "pass"), ("2", "fail", "unknown"), ("3", "error", "missing"), ("4", "missing", "pass")];
        assert_eq!(changed, expected.map(|(i, x, y)| (i.to_owned(), x, y)));
        assert_eq!(c.rows[1].b.score, None, "a score without a verdict is not compared");
    }

    #[test]
    fn a_line_that_is_no_result_is_named() {
        let e = Results::read(JsonLines::new("r.jsonl", "{\"coherence\": 4, \"line\": 1}\n".as_bytes())).err();
        assert!(e.is_some_and(|e| e.to_string().starts_with("r.jsonl:1: not a result of the default layout")));
        let twice = "{\"error\":{\"kind\":\"missing answer\",\"message\":\"m\"},\"line\":1}\n".repeat(2);
        let e = Results::read(JsonLines::new("r.jsonl", twice.as_bytes())).err();
        assert_eq!(
            e.map(|e| e.to_string()).as_deref(),
            Some(
                "r.jsonl:2: a second result for row id `1` (the first is for data line 1); rows are matched by id, which must be unique"
            )
        );
    }
}
