//! The HTML report: one self-contained page.
//!
//! Everything is inline: the style, the script, the plots (SVG drawn here) and the rows (a
//! JSON data block the script shows a page at a time, so 10,000 rows never become 10,000
//! table rows at once). Nothing is fetched when the page opens. The page's
//! Content-Security-Policy allows only its own style and script, by their SHA-256 hashes,
//! and nothing else (no connections, images, frames, forms or base URL). Every value from
//! the results is escaped here ([`crate::text`]) or set as text by the script, never as
//! markup.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::stats::{Bin, Comparison, Stats, format_number, histogram, signed};
use crate::text::{base64, html, script_json};
use crate::view::{Cell, Outcome, Row, Run};

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

/// The `'sha256-…'` source of an inline element's text.
fn hash_source(text: &str) -> String {
    format!("'sha256-{}'", base64(&Sha256::digest(text.as_bytes())))
}

/// The page's Content-Security-Policy: its own style and script by hash, nothing else.
pub fn content_security_policy() -> String {
    format!(
        "default-src 'none'; script-src {}; style-src {}; img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'",
        hash_source(SCRIPT),
        hash_source(STYLE)
    )
}

/// The report of one run.
pub fn single(run: &Run) -> String {
    let mut body = String::new();
    runs_section(&mut body, &[run]);
    body.push_str("<section id=\"evaluators\"><h2>Evaluators</h2><div class=\"cards\">");
    for (i, e) in run.evaluators.iter().enumerate() {
        let s = Stats::of(run, i);
        let _ = write!(body, "<div class=\"card\"><h3>{}</h3>", html(&e.key));
        body.push_str("<table class=\"stats\"><tbody>");
        stat_rows(&mut body, &[&s], None);
        body.push_str("</tbody></table><div class=\"plots\">");
        let scores: Vec<Vec<f64>> = vec![judged(run, i)];
        histogram_svg(&mut body, &e.key, &s.histogram, &scores);
        body.push_str("</div></div>");
    }
    body.push_str("</div></section></div>");
    let rows: Vec<Value> = run.rows.iter().map(|r| row_json(r, &[Some(r)], run_cells(run, r), false)).collect();
    let data = json!({
        "compare": false,
        "runs": [run.name],
        "evaluators": run.evaluators.iter().map(|e| e.key.clone()).collect::<Vec<_>>(),
        "rows": rows,
    });
    page(&format!("Evaluation report: {}", run.name), &body, &data)
}

/// The report of two runs compared: per-evaluator deltas, a paired plot of the scores, and
/// the rows whose verdict changed first.
pub fn compare(c: &Comparison<'_>) -> String {
    let mut body = String::new();
    runs_section(&mut body, &[c.a, c.b]);
    body.push_str("<section id=\"evaluators\"><h2>Evaluators</h2><div class=\"cards\">");
    for d in &c.evaluators {
        let _ = write!(body, "<div class=\"card\"><h3>{}</h3>", html(&d.key));
        body.push_str(
            "<table class=\"stats\"><thead><tr><th></th><th>A</th><th>B</th><th>change</th></tr></thead><tbody>",
        );
        stat_rows(&mut body, &[&d.stats.0, &d.stats.1], Some(d));
        let _ = write!(
            body,
            "<tr><th>verdict changes</th><td colspan=\"3\">{}</td></tr><tr><th>scored higher / lower</th><td colspan=\"3\">{} / {}</td></tr>",
            d.verdict_changes, d.higher, d.lower
        );
        body.push_str("</tbody></table><div class=\"plots\">");
        body.push_str("<p class=\"legend\"><span class=\"key a\"></span>A <span class=\"key b\"></span>B</p>");
        let scores = vec![
            d.index.0.map(|i| judged(c.a, i)).unwrap_or_default(),
            d.index.1.map(|i| judged(c.b, i)).unwrap_or_default(),
        ];
        let all: Vec<f64> = scores.concat();
        histogram_svg(&mut body, &d.key, &histogram(&all), &scores);
        let mut pairs: BTreeMap<(u64, u64), (f64, f64, usize)> = BTreeMap::new();
        for p in &c.pairs {
            let (x, y) = c.cells(p, d);
            if let Some((s, t)) = x.judged_score().zip(y.judged_score()) {
                pairs.entry((s.to_bits(), t.to_bits())).or_insert((s, t, 0)).2 += 1;
            }
        }
        scatter_svg(&mut body, &d.key, &pairs.into_values().collect::<Vec<_>>());
        body.push_str("</div></div>");
    }
    body.push_str("</div></section></div>");
    let rows: Vec<Value> = c
        .pairs
        .iter()
        .filter_map(|p| {
            let row = c.row(p)?;
            let sides = [p.a.and_then(|i| c.a.rows.get(i)), p.b.and_then(|j| c.b.rows.get(j))];
            let cells: Vec<Vec<&Cell>> = c
                .evaluators
                .iter()
                .map(|d| {
                    let (x, y) = c.cells(p, d);
                    vec![x, y]
                })
                .collect();
            Some(row_json(row, &sides, cells, c.changed(p)))
        })
        .collect();
    let data = json!({
        "compare": true,
        "runs": [c.a.name, c.b.name],
        "evaluators": c.evaluators.iter().map(|d| d.key.clone()).collect::<Vec<_>>(),
        "rows": rows,
    });
    page(&format!("Evaluation comparison: {} vs {}", c.a.name, c.b.name), &body, &data)
}

/// The judged scores of evaluator `i` of `run`.
fn judged(run: &Run, i: usize) -> Vec<f64> {
    run.rows.iter().filter_map(|r| r.cells.get(i)?.judged_score()).collect()
}

fn run_cells<'a>(run: &Run, r: &'a Row) -> Vec<Vec<&'a Cell>> {
    (0..run.evaluators.len()).filter_map(|i| r.cells.get(i).map(|c| vec![c])).collect()
}

/// A row of the data block: `{id, line, inputs, changed, cells: [[run cells] per evaluator]}`.
fn row_json(row: &Row, sides: &[Option<&Row>], cells: Vec<Vec<&Cell>>, changed: bool) -> Value {
    let inputs = if row.inputs.is_empty() {
        sides.iter().flatten().find(|r| !r.inputs.is_empty()).map_or(&row.inputs, |r| &r.inputs)
    } else {
        &row.inputs
    };
    let cell = |c: &Cell| {
        let mut o = serde_json::Map::new();
        o.insert("o".into(), Value::from(c.outcome.as_str()));
        if let Some(s) = c.score.and_then(serde_json::Number::from_f64) {
            o.insert("s".into(), Value::Number(s));
        }
        if !c.reason.is_empty() {
            o.insert("r".into(), Value::from(c.reason.as_str()));
        }
        if let Some(a) = &c.answer {
            o.insert("a".into(), Value::from(a.as_str()));
        }
        Value::Object(o)
    };
    json!({
        "id": row.id,
        "line": row.line,
        "inputs": inputs.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
        "changed": changed,
        "cells": cells.iter().map(|cs| cs.iter().map(|c| cell(c)).collect::<Vec<_>>()).collect::<Vec<_>>(),
    })
}

/// A line of the run table: its value for a run.
type RunField = Box<dyn Fn(&Run) -> String>;
/// A line of the statistics table: its value for a run's statistics.
type StatField = Box<dyn Fn(&Stats) -> String>;

fn runs_section(out: &mut String, runs: &[&Run]) {
    out.push_str("<div class=\"top\"><section id=\"runs\"><h2>Run</h2><table class=\"meta\"><thead><tr><th></th>");
    let names = ["A", "B"];
    for (i, _) in runs.iter().enumerate() {
        let _ = write!(out, "<th>{}</th>", if runs.len() > 1 { names[i] } else { "" });
    }
    out.push_str("</tr></thead><tbody>");
    let opt = |v: Option<String>| v.unwrap_or_else(|| "—".to_owned());
    let fields: [(&str, RunField); 9] = [
        ("results", Box::new(|r: &Run| r.name.clone())),
        ("prompts", Box::new(move |r: &Run| opt((!r.meta.prompts.is_empty()).then(|| r.meta.prompts.join(", "))))),
        ("models", Box::new(move |r: &Run| opt((!r.meta.models.is_empty()).then(|| r.meta.models.join(", "))))),
        ("contract", Box::new(move |r: &Run| opt(r.meta.contract.clone()))),
        (
            "thresholds",
            Box::new(move |r: &Run| {
                let t: Vec<String> = r
                    .evaluators
                    .iter()
                    .filter_map(|e| e.threshold.as_ref().map(|t| format!("{} {t}", e.key)))
                    .collect();
                opt((!t.is_empty()).then(|| t.join(", ")))
            }),
        ),
        ("rows", Box::new(|r: &Run| r.rows.len().to_string())),
        ("when", Box::new(move |r: &Run| opt(r.meta.when.clone()))),
        (
            "tokens",
            Box::new(move |r: &Run| {
                opt(r.meta.input_tokens.zip(r.meta.output_tokens).map(|(i, o)| format!("{i} in, {o} out")))
            }),
        ),
        ("cost", Box::new(move |r: &Run| opt(r.meta.cost.map(|c| format!("{c:.4}"))))),
    ];
    for (name, f) in &fields {
        let _ = write!(out, "<tr><th>{name}</th>");
        for r in runs {
            let _ = write!(out, "<td>{}</td>", html(&f(r)));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></section>");
}

/// The statistics rows of one run, or two with their change.
fn stat_rows(out: &mut String, stats: &[&Stats], delta: Option<&crate::stats::EvaluatorDelta>) {
    let num = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), format_number);
    let pct = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |r| format!("{}%", format_number(r * 100.0)));
    let lines: [(&str, StatField, Option<String>); 8] = [
        ("rows", Box::new(|s: &Stats| s.rows.to_string()), None),
        (
            "mean",
            Box::new(move |s: &Stats| num(s.mean)),
            delta.map(|d| d.mean_delta.map_or_else(|| "—".to_owned(), signed)),
        ),
        (
            "pass rate",
            Box::new(move |s: &Stats| pct(s.pass_rate)),
            delta.map(|d| d.pass_rate_delta.map_or_else(|| "—".to_owned(), |r| format!("{} pt", signed(r * 100.0)))),
        ),
        ("pass", Box::new(|s: &Stats| s.pass.to_string()), None),
        ("fail", Box::new(|s: &Stats| s.fail.to_string()), None),
        ("unknown", Box::new(|s: &Stats| s.unknown.to_string()), None),
        ("not applicable", Box::new(|s: &Stats| s.not_applicable.to_string()), None),
        ("errors", Box::new(|s: &Stats| s.errors.to_string()), None),
    ];
    for (name, f, change) in &lines {
        let _ = write!(out, "<tr><th>{name}</th>");
        for s in stats {
            let _ = write!(out, "<td>{}</td>", html(&f(s)));
        }
        if delta.is_some() {
            let _ = write!(out, "<td>{}</td>", html(change.as_deref().unwrap_or("")));
        }
        out.push_str("</tr>");
    }
}

/// The bars' counts of `scores` in `bins` (one-value bins by value, ranges by interval).
fn counts(bins: &[Bin], scores: &[f64]) -> Vec<usize> {
    let mut n = vec![0; bins.len()];
    for &s in scores {
        let last = bins.len().saturating_sub(1);
        let i = bins.iter().position(|b| {
            if b.low == b.high {
                s == b.low
            } else {
                s >= b.low && (s < b.high || (b.high == bins[last].high && s <= b.high))
            }
        });
        if let Some(i) = i {
            n[i] += 1;
        }
    }
    n
}

/// An SVG histogram: one bar per bin and run (`class="bar"`, `data-run`, `data-value`,
/// `data-count`), bin labels below.
fn histogram_svg(out: &mut String, key: &str, bins: &[Bin], scores: &[Vec<f64>]) {
    if bins.is_empty() {
        out.push_str("<p class=\"empty\">No judged scores.</p>");
        return;
    }
    let runs = scores.len().max(1);
    let per_run: Vec<Vec<usize>> = scores.iter().map(|s| counts(bins, s)).collect();
    let most = per_run.iter().flatten().copied().max().unwrap_or(1).max(1);
    let (w, h, top, bottom) = (360.0_f64, 150.0_f64, 14.0_f64, 22.0_f64);
    let slot = w / bins.len() as f64;
    let bar = (slot * 0.8 / runs as f64).max(1.0);
    let _ = write!(
        out,
        "<svg class=\"histogram{}\" data-evaluator=\"{}\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"score histogram of {}\">",
        if runs > 1 { " paired" } else { "" },
        html(key),
        html(key)
    );
    let plot = h - top - bottom;
    for (b, bin) in bins.iter().enumerate() {
        for (r, counts) in per_run.iter().enumerate() {
            let n = counts[b];
            let bh = if n == 0 { 0.0 } else { (n as f64 / most as f64 * plot).max(1.0) };
            let x = slot * b as f64 + slot * 0.1 + bar * r as f64;
            let y = top + plot - bh;
            let run = if runs > 1 { ["A ", "B "][r.min(1)] } else { "" };
            let _ = write!(
                out,
                "<rect class=\"bar run{r}\" data-run=\"{r}\" data-value=\"{}\" data-count=\"{n}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{bh:.1}\"><title>{run}{}: {n} row(s)</title></rect>",
                html(&bin.label),
                html(&bin.label)
            );
            if n > 0 {
                let _ = write!(
                    out,
                    "<text class=\"count\" x=\"{:.1}\" y=\"{:.1}\">{n}</text>",
                    x + bar / 2.0,
                    (y - 3.0).max(10.0)
                );
            }
        }
        if bins.len() <= 12 || b % 2 == 0 {
            let _ = write!(
                out,
                "<text class=\"label\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                slot * b as f64 + slot / 2.0,
                h - 6.0,
                html(&bin.label)
            );
        }
    }
    out.push_str("</svg>");
}

/// An SVG paired plot: one circle per distinct (A, B) pair of judged scores, its size by the
/// rows it stands for; the diagonal is "unchanged".
fn scatter_svg(out: &mut String, key: &str, points: &[(f64, f64, usize)]) {
    if points.is_empty() {
        out.push_str("<p class=\"empty\">No row judged in both runs.</p>");
        return;
    }
    let lo = points.iter().map(|p| p.0.min(p.1)).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.0.max(p.1)).fold(f64::NEG_INFINITY, f64::max);
    let span = if hi > lo { hi - lo } else { 1.0 };
    let (size, pad) = (220.0_f64, 28.0_f64);
    let inner = size - 2.0 * pad;
    let pos = |v: f64| pad + (v - lo) / span * inner;
    let most = points.iter().map(|p| p.2).max().unwrap_or(1).max(1) as f64;
    let _ = write!(
        out,
        "<svg class=\"scatter\" data-evaluator=\"{}\" viewBox=\"0 0 {size} {size}\" width=\"{size}\" height=\"{size}\" role=\"img\" aria-label=\"scores of A against B for {}\">",
        html(key),
        html(key)
    );
    let _ = write!(
        out,
        "<line class=\"diagonal\" x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{pad}\"></line>",
        size - pad,
        size - pad
    );
    let _ = write!(
        out,
        "<text class=\"label\" x=\"{pad}\" y=\"{}\">{}</text><text class=\"label\" x=\"{}\" y=\"{}\">{}</text><text class=\"axis\" x=\"{}\" y=\"{}\">A score</text><text class=\"axis\" x=\"12\" y=\"{}\">B</text>",
        size - 8.0,
        html(&format_number(lo)),
        size - pad,
        size - 8.0,
        html(&format_number(hi)),
        size / 2.0,
        size - 4.0,
        size / 2.0
    );
    for &(a, b, n) in points {
        let r = 3.0 + 9.0 * (n as f64 / most).sqrt();
        let class = if b > a {
            "up"
        } else if b < a {
            "down"
        } else {
            "same"
        };
        let _ = write!(
            out,
            "<circle class=\"pt {class}\" data-a=\"{}\" data-b=\"{}\" data-count=\"{n}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{r:.1}\"><title>A {} → B {}: {n} row(s)</title></circle>",
            html(&format_number(a)),
            html(&format_number(b)),
            pos(a),
            size - pos(b),
            html(&format_number(a)),
            html(&format_number(b))
        );
    }
    out.push_str("</svg>");
}

/// The page around `body`, with the rows as a JSON data block and the script that shows them.
fn page(title: &str, body: &str, data: &Value) -> String {
    let data = script_json(&serde_json::to_string(data).unwrap_or_else(|_| "{}".to_owned()));
    let outcomes: String =
        Outcome::ALL.iter().map(|o| format!("<option value=\"{0}\">{0}</option>", o.as_str())).collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"referrer\" content=\"no-referrer\">\n<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header><h1>{title}</h1><p class=\"generator\">made by prompty; this page works offline and loads nothing.</p></header>\n{body}\n<section id=\"rows\"><h2>Rows</h2>\n<div class=\"controls\"><label>Search <input id=\"search\" type=\"search\" placeholder=\"id, inputs, reasons\" autocomplete=\"off\"></label> <label>Verdict <select id=\"verdict\"><option value=\"\">any</option>{outcomes}<option value=\"changed\">changed</option></select></label> <label>Evaluator <select id=\"evaluator\"><option value=\"\">any</option></select></label> <label>Rows a page <select id=\"page-size\"><option>50</option><option selected>100</option><option>500</option></select></label> <span id=\"count\" data-matching=\"0\" data-total=\"0\"></span> <button id=\"prev\" type=\"button\">previous</button> <span id=\"page\"></span> <button id=\"next\" type=\"button\">next</button></div>\n<noscript><p>The rows table needs JavaScript; the summary above does not.</p></noscript>\n<table id=\"table\"><thead id=\"thead\"></thead><tbody id=\"tbody\"></tbody></table>\n</section>\n<script type=\"application/json\" id=\"report-data\">{data}</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        csp = html(&content_security_policy()),
        title = html(title),
    )
}
