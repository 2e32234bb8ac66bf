//! `prompty eval compare A.jsonl B.jsonl`: two runs' results side by side, row by row
//! (matched by `line`) and in aggregate.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use prompty_eval::summary::format_number;
use serde_json::{Value, json};

use crate::Failure;
use crate::eval::{JsonLines, Line};
use crate::run::RunFormat;

#[derive(clap::Args)]
pub(crate) struct CompareArgs {
    /// The first run's results (`prompty eval` output).
    a: PathBuf,
    /// The second run's results.
    b: PathBuf,
    /// Output: a readable report, or JSON.
    #[arg(long, value_enum, default_value_t = RunFormat::Text)]
    format: RunFormat,
    /// List every row, not only those that differ.
    #[arg(long)]
    all: bool,
}

/// One row of a result file.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    score: Option<f64>,
    verdict: String,
}

fn read(path: &Path) -> Result<(String, BTreeMap<u64, Row>), Failure> {
    let mut lines = JsonLines::open(path)?;
    let mut rows = BTreeMap::new();
    while let Some(line) = lines.next_line()? {
        let n = lines.line;
        let Line::Text(text) = line else {
            return Err(Failure::Message(format!("{}:{n}: not UTF-8 text", lines.name)));
        };
        if text.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| Failure::Message(format!("{}:{n}: not a result line: {e}", lines.name)))?;
        let line = v.get("line").and_then(Value::as_u64).ok_or_else(|| {
            Failure::Message(format!(
                "{}:{n}: the result has no `line`; compare reads `prompty eval` output",
                lines.name
            ))
        })?;
        let verdict = match v.get("error") {
            Some(_) => "error".to_owned(),
            None => v.get("verdict").and_then(Value::as_str).unwrap_or("unknown").to_owned(),
        };
        let row = Row { score: v.get("score").and_then(Value::as_f64).filter(|s| s.is_finite()), verdict };
        if rows.insert(line, row).is_some() {
            return Err(Failure::Message(format!("{}:{n}: a second result for data line {line}", lines.name)));
        }
    }
    Ok((lines.name, rows))
}

fn mean(rows: &BTreeMap<u64, Row>) -> Option<f64> {
    let scores: Vec<f64> = rows.values().filter_map(|r| r.score).collect();
    (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
}

fn pass_rate(rows: &BTreeMap<u64, Row>) -> Option<f64> {
    let pass = rows.values().filter(|r| r.verdict == "pass").count();
    let judged = pass + rows.values().filter(|r| r.verdict == "fail").count();
    (judged > 0).then(|| pass as f64 / judged as f64)
}

pub(crate) fn run(args: &CompareArgs) -> Result<(), Failure> {
    let (a_name, a) = read(&args.a)?;
    let (b_name, b) = read(&args.b)?;
    let lines: std::collections::BTreeSet<u64> = a.keys().chain(b.keys()).copied().collect();
    let (mut better, mut worse, mut same, mut verdict_changes) = (0u64, 0u64, 0u64, 0u64);
    let mut per_row = Vec::new();
    for line in &lines {
        let (ra, rb) = (a.get(line), b.get(line));
        let delta = match (ra.and_then(|r| r.score), rb.and_then(|r| r.score)) {
            (Some(x), Some(y)) => Some(y - x),
            _ => None,
        };
        match delta {
            Some(d) if d > 0.0 => better += 1,
            Some(d) if d < 0.0 => worse += 1,
            _ => same += 1,
        }
        let va = ra.map_or("missing", |r| r.verdict.as_str());
        let vb = rb.map_or("missing", |r| r.verdict.as_str());
        if va != vb {
            verdict_changes += 1;
        }
        if args.all || va != vb || delta.is_some_and(|d| d != 0.0) || ra.map(|r| r.score) != rb.map(|r| r.score) {
            per_row.push(json!({
                "line": line,
                "a": {"score": ra.and_then(|r| r.score), "verdict": va},
                "b": {"score": rb.and_then(|r| r.score), "verdict": vb},
                "delta": delta,
            }));
        }
    }
    let (ma, mb) = (mean(&a), mean(&b));
    let summary = json!({
        "a": {"file": a_name, "rows": a.len(), "mean": ma, "pass_rate": pass_rate(&a)},
        "b": {"file": b_name, "rows": b.len(), "mean": mb, "pass_rate": pass_rate(&b)},
        "mean_delta": ma.zip(mb).map(|(x, y)| y - x),
        "higher": better,
        "lower": worse,
        "unchanged": same,
        "verdict_changes": verdict_changes,
    });
    let mut out = std::io::stdout().lock();
    if args.format == RunFormat::Json {
        serde_json::to_writer_pretty(&mut out, &json!({"summary": summary, "rows": per_row}))?;
        writeln!(out)?;
        return Ok(());
    }
    let shown = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), format_number);
    let shown_value = |v: &Value| v.as_f64().map_or_else(|| "-".to_owned(), format_number);
    writeln!(
        out,
        "{:>6}  {:>8} {:<15} {:>8} {:<15} {:>7}",
        "line", "A score", "A verdict", "B score", "B verdict", "delta"
    )?;
    for r in &per_row {
        let delta = r["delta"].as_f64().map_or_else(|| "-".to_owned(), signed);
        writeln!(
            out,
            "{:>6}  {:>8} {:<15} {:>8} {:<15} {:>7}",
            r["line"].as_u64().unwrap_or(0),
            shown_value(&r["a"]["score"]),
            r["a"]["verdict"].as_str().unwrap_or_default(),
            shown_value(&r["b"]["score"]),
            r["b"]["verdict"].as_str().unwrap_or_default(),
            delta
        )?;
    }
    let pr = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |r| format!("{}%", format_number(r * 100.0)));
    writeln!(out)?;
    writeln!(out, "A {a_name}: {} rows, mean {}, pass rate {}", a.len(), shown(ma), pr(pass_rate(&a)))?;
    writeln!(out, "B {b_name}: {} rows, mean {}, pass rate {}", b.len(), shown(mb), pr(pass_rate(&b)))?;
    writeln!(
        out,
        "mean delta {}; {better} higher, {worse} lower, {same} unchanged or unscored; {verdict_changes} verdict change(s)",
        ma.zip(mb).map_or_else(|| "-".to_owned(), |(x, y)| signed(y - x))
    )?;
    Ok(())
}

/// A difference with its sign.
fn signed(d: f64) -> String {
    if d > 0.0 { format!("+{}", format_number(d)) } else { format_number(d) }
}
