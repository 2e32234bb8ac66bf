//! Per-evaluator statistics of a run and the comparison of two runs.
//!
//! As in `prompty eval`'s summary, only judged rows (pass or fail) count in the mean, the
//! pass rate and the histogram: a score without a verdict moves no statistic.

use std::collections::{BTreeMap, HashMap};

use crate::view::{Cell, Outcome, Run};

/// The most bars a histogram has: more distinct scores than this are put in this many
/// equal bins.
pub const MAX_BINS: usize = 20;

/// One bar of a histogram.
#[derive(Debug, Clone, PartialEq)]
pub struct Bin {
    /// The score (one value per bin) or `[low, high)`.
    pub label: String,
    /// Its lowest score.
    pub low: f64,
    /// Its highest score (equal to `low` for a one-value bin).
    pub high: f64,
    /// The rows in it.
    pub count: usize,
}

/// One evaluator over one run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stats {
    /// Rows with a result or an error record.
    pub rows: usize,
    /// Passes.
    pub pass: usize,
    /// Fails.
    pub fail: usize,
    /// No usable score.
    pub unknown: usize,
    /// Not applicable.
    pub not_applicable: usize,
    /// Error records.
    pub errors: usize,
    /// The mean of the judged scores.
    pub mean: Option<f64>,
    /// Passes over passes and fails.
    pub pass_rate: Option<f64>,
    /// The judged scores' histogram.
    pub histogram: Vec<Bin>,
}

impl Stats {
    /// Evaluator `index` of `run`.
    pub fn of(run: &Run, index: usize) -> Stats {
        let mut s = Stats::default();
        let mut scores = Vec::new();
        for cell in run.rows.iter().filter_map(|r| r.cells.get(index)) {
            match cell.outcome {
                Outcome::Pass => s.pass += 1,
                Outcome::Fail => s.fail += 1,
                Outcome::Unknown => s.unknown += 1,
                Outcome::NotApplicable => s.not_applicable += 1,
                Outcome::Error => s.errors += 1,
                Outcome::Missing => continue,
            }
            s.rows += 1;
            if let Some(v) = cell.judged_score() {
                scores.push(v);
            }
        }
        if !scores.is_empty() {
            s.mean = Some(scores.iter().sum::<f64>() / scores.len() as f64);
        }
        if s.pass + s.fail > 0 {
            s.pass_rate = Some(s.pass as f64 / (s.pass + s.fail) as f64);
        }
        s.histogram = histogram(&scores);
        s
    }
}

/// One bar per distinct score when there are at most [`MAX_BINS`], else [`MAX_BINS`] equal
/// bins between the lowest and highest score (the last one closed).
pub fn histogram(scores: &[f64]) -> Vec<Bin> {
    let mut distinct: BTreeMap<u64, (f64, usize)> = BTreeMap::new();
    for &s in scores.iter().filter(|s| s.is_finite()) {
        // Ordered keys for finite floats: flip the sign bit of positives, every bit of negatives.
        let s = if s == 0.0 { 0.0 } else { s };
        let bits = s.to_bits();
        let key = if bits >> 63 == 0 { bits | (1 << 63) } else { !bits };
        distinct.entry(key).or_insert((s, 0)).1 += 1;
    }
    if distinct.len() <= MAX_BINS {
        return distinct
            .into_values()
            .map(|(v, n)| Bin { label: format_number(v), low: v, high: v, count: n })
            .collect();
    }
    let values: Vec<(f64, usize)> = distinct.into_values().collect();
    let (lo, hi) = (values[0].0, values[values.len() - 1].0);
    let width = (hi - lo) / MAX_BINS as f64;
    let mut bins: Vec<Bin> = (0..MAX_BINS)
        .map(|i| {
            let low = lo + width * i as f64;
            let high = if i + 1 == MAX_BINS { hi } else { lo + width * (i + 1) as f64 };
            let close = if i + 1 == MAX_BINS { "]" } else { ")" };
            Bin { label: format!("[{}, {}{close}", format_number(low), format_number(high)), low, high, count: 0 }
        })
        .collect();
    for (v, n) in values {
        let i = if width > 0.0 { (((v - lo) / width) as usize).min(MAX_BINS - 1) } else { 0 };
        bins[i].count += n;
    }
    bins
}

/// A number as the pages show it: at most three decimals, no trailing zeros.
pub fn format_number(v: f64) -> String {
    prompty_eval::summary::format_number(v)
}

/// A difference with its sign (`+0.5`, `-1`, `0`).
pub fn signed(d: f64) -> String {
    if d > 0.0 { format!("+{}", format_number(d)) } else { format_number(d) }
}

/// A row of two runs, matched by id.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// Its index in the first run's rows.
    pub a: Option<usize>,
    /// Its index in the second run's rows.
    pub b: Option<usize>,
}

/// One evaluator in two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatorDelta {
    /// Its key.
    pub key: String,
    /// Its position in each run (`None`: the run does not have it).
    pub index: (Option<usize>, Option<usize>),
    /// Its statistics in each run.
    pub stats: (Stats, Stats),
    /// The second mean minus the first.
    pub mean_delta: Option<f64>,
    /// The second pass rate minus the first.
    pub pass_rate_delta: Option<f64>,
    /// Rows whose outcome differs.
    pub verdict_changes: usize,
    /// Rows scored higher in the second run.
    pub higher: usize,
    /// Rows scored lower.
    pub lower: usize,
}

/// Two runs compared: rows matched by id, changed-verdict rows first.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison<'a> {
    /// The first run.
    pub a: &'a Run,
    /// The second run.
    pub b: &'a Run,
    /// Every evaluator of either run (the first run's order, then the second's new ones).
    pub evaluators: Vec<EvaluatorDelta>,
    /// Every row of either run: rows whose outcome changed for some evaluator first, then
    /// in the second run's order, then the rows only the first run has.
    pub pairs: Vec<Pair>,
}

static MISSING: Cell = Cell { outcome: Outcome::Missing, score: None, answer: None, reason: String::new() };

impl<'a> Comparison<'a> {
    /// Compares run `a` with run `b`.
    pub fn new(a: &'a Run, b: &'a Run) -> Comparison<'a> {
        let mut keys: Vec<String> = a.evaluators.iter().map(|e| e.key.clone()).collect();
        for e in &b.evaluators {
            if !keys.contains(&e.key) {
                keys.push(e.key.clone());
            }
        }
        let by_id: HashMap<&str, usize> = a.rows.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();
        let mut seen = vec![false; a.rows.len()];
        let mut pairs: Vec<Pair> = Vec::with_capacity(a.rows.len().max(b.rows.len()));
        for (j, r) in b.rows.iter().enumerate() {
            let i = by_id.get(r.id.as_str()).copied();
            if let Some(i) = i {
                seen[i] = true;
            }
            pairs.push(Pair { a: i, b: Some(j) });
        }
        pairs.extend(seen.iter().enumerate().filter(|(_, s)| !**s).map(|(i, _)| Pair { a: Some(i), b: None }));
        let mut c = Comparison { a, b, evaluators: Vec::new(), pairs };
        for key in keys {
            let index = (a.evaluator(&key), b.evaluator(&key));
            let stats = (
                index.0.map(|i| Stats::of(a, i)).unwrap_or_default(),
                index.1.map(|i| Stats::of(b, i)).unwrap_or_default(),
            );
            let mean_delta = stats.0.mean.zip(stats.1.mean).map(|(x, y)| y - x);
            let pass_rate_delta = stats.0.pass_rate.zip(stats.1.pass_rate).map(|(x, y)| y - x);
            let mut d = EvaluatorDelta {
                key,
                index,
                stats,
                mean_delta,
                pass_rate_delta,
                verdict_changes: 0,
                higher: 0,
                lower: 0,
            };
            for p in &c.pairs {
                let (x, y) = c.cells(p, &d);
                if x.outcome != y.outcome {
                    d.verdict_changes += 1;
                }
                match x.judged_score().zip(y.judged_score()) {
                    Some((s, t)) if t > s => d.higher += 1,
                    Some((s, t)) if t < s => d.lower += 1,
                    _ => {}
                }
            }
            c.evaluators.push(d);
        }
        let changed: Vec<bool> = c.pairs.iter().map(|p| c.changed(p)).collect();
        let mut order: Vec<usize> = (0..c.pairs.len()).collect();
        order.sort_by_key(|&i| !changed[i]);
        c.pairs = order.into_iter().map(|i| c.pairs[i]).collect();
        c
    }

    /// The cells of `pair` for evaluator `d` in each run (missing where the run has none).
    pub fn cells(&self, pair: &Pair, d: &EvaluatorDelta) -> (&'a Cell, &'a Cell) {
        let get = |run: &'a Run, row: Option<usize>, index: Option<usize>| -> &'a Cell {
            row.zip(index).and_then(|(r, i)| run.rows.get(r)?.cells.get(i)).unwrap_or(&MISSING)
        };
        (get(self.a, pair.a, d.index.0), get(self.b, pair.b, d.index.1))
    }

    /// Whether some evaluator's outcome differs between the runs for `pair`.
    pub fn changed(&self, pair: &Pair) -> bool {
        self.evaluators.iter().any(|d| {
            let (x, y) = self.cells(pair, d);
            x.outcome != y.outcome
        })
    }

    /// The row of `pair` to show (ids and inputs): the second run's, else the first's.
    pub fn row(&self, pair: &Pair) -> Option<&'a crate::view::Row> {
        pair.b.and_then(|j| self.b.rows.get(j)).or_else(|| pair.a.and_then(|i| self.a.rows.get(i)))
    }
}
