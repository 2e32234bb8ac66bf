//! Totals over an evaluation run, and the gates that turn them into an exit status.
//!
//! [`RunSummary`] takes one [`Evaluation`] (or one error) per data row, in constant memory
//! except for the scores themselves (eight bytes a row, for the histogram). The standard
//! deviation is the sample one (divided by `n - 1`), absent below two scores. The pass rate
//! is passes over passes and fails: unknown and not-applicable rows are not judged.
//!
//! Only the scores of judged rows (a pass or a fail) count in the mean, the standard
//! deviation and the histogram. A score without a verdict (outside the evaluator's range,
//! or on a not-applicable row) is left out and counted ([`RunSummary::left_out`]): one
//! judge answer of `1000` must not move a `--fail-under` gate.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value, json};

use crate::evaluation::{Evaluation, Usage};
use crate::verdict::{ScoreRange, Verdict};

/// Token counts of one model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelTokens {
    /// Responses counted.
    pub responses: u64,
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens.
    pub output: u64,
}

/// The totals of a run.
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    range: Option<ScoreRange>,
    rows: u64,
    scores: Vec<f64>,
    sum: f64,
    verdicts: BTreeMap<&'static str, u64>,
    left_out: u64,
    errors: BTreeMap<String, u64>,
    tokens: BTreeMap<String, ModelTokens>,
}

/// How many bins a histogram has at most.
pub const MAX_BINS: usize = 20;

impl RunSummary {
    /// A summary for an evaluator with this score range (it sets the histogram's bins).
    pub fn new(range: Option<ScoreRange>) -> Self {
        RunSummary { range, ..RunSummary::default() }
    }

    /// Counts one evaluated row. Its score counts in the statistics only when the row was
    /// judged (pass or fail).
    pub fn add(&mut self, e: &Evaluation) {
        self.rows += 1;
        if let Some(s) = e.score.filter(|s| s.is_finite()) {
            if matches!(e.verdict, Verdict::Pass | Verdict::Fail) {
                self.scores.push(s);
                self.sum += s;
            } else {
                self.left_out += 1;
            }
        }
        *self.verdicts.entry(e.verdict.as_str()).or_default() += 1;
    }

    /// Counts one result line: its evaluation, or its error record.
    pub fn record(&mut self, line: &crate::record::ResultLine) {
        match (line.evaluation(), line.error()) {
            (Some(e), _) => self.add(e),
            (None, Some(error)) => self.error(error.kind.as_str()),
            (None, None) => {}
        }
    }

    /// Scores left out of the statistics because their row has no verdict.
    pub fn left_out(&self) -> u64 {
        self.left_out
    }

    /// Counts one row that has an error record instead of an evaluation.
    pub fn error(&mut self, kind: &str) {
        self.rows += 1;
        self.problem(kind, 1);
    }

    /// Counts a problem that is not a data row (answer lines beyond the data).
    pub fn problem(&mut self, kind: &str, count: u64) {
        *self.errors.entry(kind.to_owned()).or_default() += count;
    }

    /// Counts the tokens of one response.
    pub fn tokens(&mut self, model: &str, usage: Option<Usage>) {
        let t = self.tokens.entry(model.to_owned()).or_default();
        t.responses += 1;
        if let Some(u) = usage {
            t.input += u.prompt_tokens;
            t.output += u.completion_tokens;
        }
    }

    /// Data rows counted.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Judged rows with a finite score: those the statistics count.
    pub fn scored(&self) -> u64 {
        self.scores.len() as u64
    }

    /// Rows with this verdict.
    pub fn count(&self, verdict: Verdict) -> u64 {
        self.verdicts.get(verdict.as_str()).copied().unwrap_or(0)
    }

    /// Errors by kind.
    pub fn errors(&self) -> &BTreeMap<String, u64> {
        &self.errors
    }

    /// All errors.
    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }

    /// Token counts by model.
    pub fn model_tokens(&self) -> &BTreeMap<String, ModelTokens> {
        &self.tokens
    }

    /// The mean score.
    pub fn mean(&self) -> Option<f64> {
        (!self.scores.is_empty()).then(|| self.sum / self.scores.len() as f64)
    }

    /// The sample standard deviation of the scores.
    pub fn std_dev(&self) -> Option<f64> {
        let n = self.scores.len();
        let mean = self.mean()?;
        if n < 2 {
            return None;
        }
        let ss: f64 = self.scores.iter().map(|s| (s - mean) * (s - mean)).sum();
        Some((ss / (n - 1) as f64).sqrt())
    }

    /// Passes over passes and fails.
    pub fn pass_rate(&self) -> Option<f64> {
        let pass = self.count(Verdict::Pass);
        let judged = pass + self.count(Verdict::Fail);
        (judged > 0).then(|| pass as f64 / judged as f64)
    }

    /// The score histogram: one bin per integer of the range when every score is an
    /// integer (at most [`MAX_BINS`] of them; scores outside the range in one `outside`
    /// bin), else one bin per distinct integer
    /// score (as many), else [`MAX_BINS`] / 2 equal bins between the lowest and highest
    /// score. Labels are the bins' values or `[low, high)` intervals (the last closed).
    pub fn histogram(&self) -> Vec<(String, u64)> {
        if self.scores.is_empty() {
            return Vec::new();
        }
        let integral = self.scores.iter().all(|s| s.fract() == 0.0 && s.abs() < 1e15);
        if integral {
            let mut counts: BTreeMap<i64, u64> = BTreeMap::new();
            for s in &self.scores {
                *counts.entry(*s as i64).or_default() += 1;
            }
            if let Some(r) = &self.range {
                let (lo, hi) = (r.min_f64(), r.max_f64());
                if lo.fract() == 0.0 && hi.fract() == 0.0 && hi - lo < MAX_BINS as f64 {
                    let mut bins: Vec<(String, u64)> = (lo as i64..=hi as i64)
                        .map(|v| (v.to_string(), counts.get(&v).copied().unwrap_or(0)))
                        .collect();
                    let outside = self.scores.iter().filter(|s| !r.contains(**s)).count() as u64;
                    if outside > 0 {
                        bins.push(("outside".to_owned(), outside));
                    }
                    return bins;
                }
            }
            if counts.len() <= MAX_BINS {
                return counts.into_iter().map(|(v, n)| (v.to_string(), n)).collect();
            }
        }
        let lo = self.scores.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self.scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let bins = MAX_BINS / 2;
        if hi <= lo {
            return vec![(format_number(lo), self.scores.len() as u64)];
        }
        let width = (hi - lo) / bins as f64;
        let mut counts = vec![0u64; bins];
        for s in &self.scores {
            let i = (((s - lo) / width) as usize).min(bins - 1);
            if let Some(c) = counts.get_mut(i) {
                *c += 1;
            }
        }
        counts
            .into_iter()
            .enumerate()
            .map(|(i, n)| {
                let a = lo + width * i as f64;
                let b = if i + 1 == bins { hi } else { lo + width * (i + 1) as f64 };
                let close = if i + 1 == bins { "]" } else { ")" };
                (format!("[{}, {}{close}", format_number(a), format_number(b)), n)
            })
            .collect()
    }

    /// The summary as JSON (`--summary-json`); `pricing` adds a cost per model.
    pub fn to_json(&self, pricing: &Pricing, seconds: f64) -> Value {
        let num = |v: Option<f64>| v.and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number);
        let mut tokens = Map::new();
        let mut total_cost: Option<f64> = None;
        for (model, t) in &self.tokens {
            let mut m = Map::new();
            m.insert("responses".into(), json!(t.responses));
            m.insert("input_tokens".into(), json!(t.input));
            m.insert("output_tokens".into(), json!(t.output));
            if let Some(cost) = pricing.cost(model, t) {
                m.insert("cost".into(), num(Some(cost)));
                total_cost = Some(total_cost.unwrap_or(0.0) + cost);
            }
            tokens.insert(model.clone(), Value::Object(m));
        }
        let histogram: Vec<Value> =
            self.histogram().into_iter().map(|(bin, n)| json!({"bin": bin, "count": n})).collect();
        let mut out = json!({
            "rows": self.rows,
            "scored": self.scored(),
            "left_out": self.left_out,
            "mean": num(self.mean()),
            "std_dev": num(self.std_dev()),
            "pass": self.count(Verdict::Pass),
            "fail": self.count(Verdict::Fail),
            "unknown": self.count(Verdict::Unknown),
            "not_applicable": self.count(Verdict::NotApplicable),
            "pass_rate": num(self.pass_rate()),
            "errors": self.errors,
            "histogram": histogram,
            "tokens": tokens,
            "seconds": (seconds * 1000.0).round() / 1000.0,
        });
        if let (Some(cost), Value::Object(o)) = (total_cost, &mut out) {
            o.insert("cost".into(), num(Some(cost)));
        }
        out
    }
}

/// A number as a summary shows it: at most three decimals, no trailing zeros.
pub fn format_number(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_owned() } else { s.to_owned() }
}

/// Prices per million tokens, by model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pricing {
    prices: Vec<(String, f64, f64)>,
}

impl Pricing {
    /// No prices.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `MODEL=INPUT,OUTPUT` (currency units per million input and output tokens).
    pub fn add(&mut self, entry: &str) -> Result<(), String> {
        let bad = || format!("`{entry}`: expected MODEL=INPUT,OUTPUT (prices per million tokens), e.g. gpt-4o=2.5,10");
        let (model, prices) = entry.split_once('=').ok_or_else(bad)?;
        let (input, output) = prices.split_once(',').ok_or_else(bad)?;
        let parse = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
        let (Some(i), Some(o)) = (parse(input), parse(output)) else { return Err(bad()) };
        let model = model.trim();
        if model.is_empty() {
            return Err(bad());
        }
        self.prices.push((model.to_owned(), i, o));
        Ok(())
    }

    /// The cost of a model's tokens: the price of the model itself, else of the longest
    /// priced name the model's name starts with (`gpt-4o` prices `gpt-4o-2024-08-06`).
    pub fn cost(&self, model: &str, tokens: &ModelTokens) -> Option<f64> {
        let (_, i, o) = self
            .prices
            .iter()
            .filter(|(m, _, _)| model == m || model.starts_with(m.as_str()))
            .max_by_key(|(m, _, _)| (m == model, m.len()))?;
        Some((tokens.input as f64 * i + tokens.output as f64 * o) / 1e6)
    }
}

/// `--max-unknown`: a count or a percentage of the rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MaxUnknown {
    /// At most this many.
    Count(u64),
    /// At most this percentage of the rows.
    Percent(f64),
}

impl FromStr for MaxUnknown {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}`: expected a count (10) or a percentage of the rows (5%)");
        match s.trim().strip_suffix('%') {
            Some(p) => p
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|p| (0.0..=100.0).contains(p))
                .map(MaxUnknown::Percent)
                .ok_or_else(bad),
            None => s.trim().parse::<u64>().map(MaxUnknown::Count).map_err(|_| bad()),
        }
    }
}

impl fmt::Display for MaxUnknown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaxUnknown::Count(n) => write!(f, "{n}"),
            MaxUnknown::Percent(p) => write!(f, "{}%", format_number(*p)),
        }
    }
}

/// The gates of a run: each one that fails is a reason for a non-zero exit.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Gates {
    /// `--fail-under`: the mean score must be at least this.
    pub fail_under: Option<f64>,
    /// `--max-unknown`: at most this many rows without a verdict.
    pub max_unknown: Option<MaxUnknown>,
}

impl Gates {
    /// Why the run fails its gates; empty when it passes them.
    pub fn check(&self, s: &RunSummary) -> Vec<String> {
        let mut failed = Vec::new();
        if let Some(min) = self.fail_under {
            match s.mean() {
                Some(mean) if mean < min => failed.push(format!(
                    "the mean score {} is under --fail-under {}",
                    format_number(mean),
                    format_number(min)
                )),
                Some(_) => {}
                None => failed
                    .push(format!("no row has a score, so the mean cannot reach --fail-under {}", format_number(min))),
            }
        }
        if let Some(max) = self.max_unknown {
            let unknown = s.count(Verdict::Unknown);
            let over = match max {
                MaxUnknown::Count(n) => unknown > n,
                MaxUnknown::Percent(p) => s.rows() > 0 && unknown as f64 * 100.0 > p * s.rows() as f64,
            };
            if over {
                failed.push(format!("{unknown} of {} rows have no verdict, more than --max-unknown {max}", s.rows()));
            }
        }
        failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(score: Option<f64>, verdict: Verdict) -> Evaluation {
        Evaluation { score, verdict, ..Evaluation::default() }
    }

    fn summary(scores: &[f64], range: Option<ScoreRange>) -> RunSummary {
        let mut s = RunSummary::new(range);
        for v in scores {
            s.add(&eval(Some(*v), if *v >= 3.0 { Verdict::Pass } else { Verdict::Fail }));
        }
        s
    }

    #[test]
    fn statistics() {
        let s = summary(&[1.0, 2.0, 3.0, 4.0, 5.0], Some(ScoreRange::new(1, 5)));
        assert_eq!(s.mean(), Some(3.0));
        assert_eq!(s.std_dev().map(format_number).as_deref(), Some("1.581"));
        assert_eq!(s.pass_rate(), Some(0.6));
        let one = summary(&[4.0], None);
        assert_eq!((one.mean(), one.std_dev()), (Some(4.0), None));
        let none = summary(&[], None);
        assert_eq!((none.mean(), none.pass_rate(), none.histogram()), (None, None, vec![]));
    }

    #[test]
    fn histograms() {
        let by_range = summary(&[1.0, 5.0, 5.0, 3.0], Some(ScoreRange::new(1, 5)));
        let h: Vec<(String, u64)> =
            [("1", 1), ("2", 0), ("3", 1), ("4", 0), ("5", 2)].iter().map(|(b, n)| ((*b).to_owned(), *n)).collect();
        assert_eq!(by_range.histogram(), h);
        let outside = summary(&[1.0, 7.0], Some(ScoreRange::new(1, 5)));
        let h = outside.histogram();
        let bins: Vec<&str> = h.iter().map(|(b, _)| b.as_str()).collect();
        assert_eq!(bins, ["1", "2", "3", "4", "5", "outside"]);
        assert_eq!(outside.histogram().last(), Some(&("outside".to_owned(), 1)));
        let no_range = summary(&[1.0, 7.0], None);
        assert_eq!(no_range.histogram(), vec![("1".to_owned(), 1), ("7".to_owned(), 1)]);
        let floats = summary(&[0.0, 0.25, 0.5, 1.0], None);
        let h = floats.histogram();
        assert_eq!(h.len(), 10);
        assert_eq!(h.first(), Some(&("[0, 0.1)".to_owned(), 1)));
        assert_eq!(h.last(), Some(&("[0.9, 1]".to_owned(), 1)));
        assert_eq!(h.iter().map(|(_, n)| n).sum::<u64>(), 4);
        assert_eq!(summary(&[0.5, 0.5], None).histogram(), vec![("0.5".to_owned(), 2)]);
    }

    #[test]
    fn gates() {
        let mut s = summary(&[2.0, 4.0], None);
        s.add(&eval(None, Verdict::Unknown));
        let g = Gates { fail_under: Some(3.5), max_unknown: Some(MaxUnknown::Count(0)) };
        assert_eq!(
            g.check(&s),
            ["the mean score 3 is under --fail-under 3.5", "1 of 3 rows have no verdict, more than --max-unknown 0"]
        );
        let g = Gates { fail_under: Some(3.0), max_unknown: "34%".parse().ok() };
        assert!(g.check(&s).is_empty());
        let g = Gates { fail_under: None, max_unknown: "33%".parse().ok() };
        assert_eq!(g.check(&s).len(), 1);
        let empty = RunSummary::new(None);
        assert_eq!(Gates { fail_under: Some(1.0), max_unknown: None }.check(&empty).len(), 1);
        for bad in ["x", "-1", "101%", "5 %%", ""] {
            assert!(bad.parse::<MaxUnknown>().is_err(), "{bad}");
        }
    }

    #[test]
    fn tokens_and_cost() {
        let mut s = RunSummary::new(None);
        let u = Usage { prompt_tokens: 1_000_000, completion_tokens: 500_000, total_tokens: 1_500_000 };
        s.tokens("gpt-4o-2024-08-06", Some(u));
        s.tokens("local", None);
        let mut p = Pricing::new();
        assert!(p.add("gpt-4o=2.5,10").is_ok());
        assert!(p.add("gpt=1,1").is_ok());
        assert!(p.add("nope").is_err());
        assert!(p.add("m=-1,2").is_err());
        let j = s.to_json(&p, 1.0);
        assert_eq!(j["tokens"]["gpt-4o-2024-08-06"]["cost"], json!(7.5));
        assert_eq!(j["tokens"]["local"], json!({"responses": 1, "input_tokens": 0, "output_tokens": 0}));
        assert_eq!(j["cost"], json!(7.5));
    }
}
