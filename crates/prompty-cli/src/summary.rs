//! The human summary of an `eval` run: a two-column table on standard error.

use std::fmt::Write;

use prompty_eval::summary::format_number;
use prompty_eval::{Pricing, RunSummary, Verdict};

use crate::live::Requests;

/// The widest histogram bar.
const BAR: usize = 30;

/// The table: rows, scored, mean, standard deviation, pass rate, unknown, errors, the score
/// histogram, tokens (and cost) per model, requests, time.
pub(crate) fn table(s: &RunSummary, pricing: &Pricing, requests: Option<&Requests>, seconds: f64) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    let opt = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), format_number);
    rows.push(("rows".into(), s.rows().to_string()));
    rows.push(("scored".into(), s.scored().to_string()));
    if s.left_out() > 0 {
        rows.push(("left out".into(), format!("{} score(s) without a verdict, not in the statistics", s.left_out())));
    }
    rows.push(("mean".into(), opt(s.mean())));
    rows.push(("std dev".into(), opt(s.std_dev())));
    let pass_rate = match s.pass_rate() {
        Some(r) => {
            format!("{}% ({} pass, {} fail)", format_number(r * 100.0), s.count(Verdict::Pass), s.count(Verdict::Fail))
        }
        None => "-".to_owned(),
    };
    rows.push(("pass rate".into(), pass_rate));
    rows.push(("unknown".into(), s.count(Verdict::Unknown).to_string()));
    if s.count(Verdict::NotApplicable) > 0 {
        rows.push(("not applicable".into(), s.count(Verdict::NotApplicable).to_string()));
    }
    let errors = if s.errors().is_empty() {
        "0".to_owned()
    } else {
        let kinds: Vec<String> = s.errors().iter().map(|(k, n)| format!("{n} {k}")).collect();
        format!("{} ({})", s.error_count(), kinds.join(", "))
    };
    rows.push(("errors".into(), errors));
    for (model, t) in s.model_tokens() {
        let mut v = format!("{} in, {} out ({} responses)", t.input, t.output, t.responses);
        if let Some(cost) = pricing.cost(model, t) {
            let _ = write!(v, ", cost {cost:.4}");
        }
        rows.push((format!("tokens {model}"), v));
    }
    if let Some(r) = requests {
        rows.push(("requests".into(), format!("{} sent, {} retried, {} from cache", r.sent, r.retried, r.cached)));
    }
    rows.push(("time".into(), format!("{seconds:.2} s")));
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in &rows {
        let _ = writeln!(out, "{k:<width$}  {v}");
    }
    let histogram = s.histogram();
    if !histogram.is_empty() {
        let _ = writeln!(out, "histogram");
        let label = histogram.iter().map(|(b, _)| b.len()).max().unwrap_or(0);
        let most = histogram.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
        let digits = most.to_string().len();
        for (bin, n) in &histogram {
            let len = ((*n as f64 / most as f64) * BAR as f64).round() as usize;
            let bar = "#".repeat(if *n > 0 { len.max(1) } else { 0 });
            let line = format!("  {bin:>label$}  {n:>digits$}  {bar}");
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use prompty_eval::{Evaluation, ScoreRange, Usage};

    #[test]
    fn the_table_users_see() {
        let mut s = RunSummary::new(Some(ScoreRange::new(1, 5)));
        let scores = [5.0, 4.0, 4.0, 3.0, 1.0, 5.0, 2.0, 4.0];
        for (i, score) in scores.iter().enumerate() {
            let verdict = if *score >= 3.0 { Verdict::Pass } else { Verdict::Fail };
            s.add(&Evaluation { score: Some(*score), verdict, ..Evaluation::default() });
            let usage = Usage { prompt_tokens: 120 + i as u64, completion_tokens: 30, total_tokens: 150 + i as u64 };
            s.tokens("gpt-4o-mini", Some(usage));
        }
        s.add(&Evaluation { score: Some(9.0), verdict: Verdict::Unknown, ..Evaluation::default() });
        s.add(&Evaluation { score: None, verdict: Verdict::Unknown, ..Evaluation::default() });
        s.error("request failed");
        let mut pricing = Pricing::new();
        let _ = pricing.add("gpt-4o-mini=0.15,0.6");
        let requests = Requests { sent: 12, retried: 3, cached: 2 };
        insta::assert_snapshot!(table(&s, &pricing, Some(&requests), 1.25));
    }
}
