//! The Markdown comparison of two runs, for `$GITHUB_STEP_SUMMARY` or a pull request
//! comment: a table of every evaluator, then per evaluator the rows that changed (verdict
//! changes first) and their reasons in a collapsible section.
//!
//! Every value from the results is one escaped line ([`md_cell`]): no Markdown, HTML or
//! mention in a judge's answer takes effect.

use std::fmt::Write as _;

use crate::stats::{Comparison, format_number, signed};
use crate::text::md_cell;
use crate::view::Cell;

/// The most changed rows listed per evaluator; the rest are counted.
pub const MAX_ROWS: usize = 50;
/// The longest reason shown, in characters.
const MAX_REASON: usize = 300;

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_owned(), format_number)
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_owned(), |r| format!("{}%", format_number(r * 100.0)))
}

fn side(c: &Cell) -> String {
    match c.score {
        Some(s) => format!("{} {}", c.outcome.as_str(), format_number(s)),
        None => c.outcome.as_str().to_owned(),
    }
}

/// The comparison of run A with run B.
pub fn compare(c: &Comparison<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Evaluation: {} → {}\n", md_cell(&c.a.name, 200), md_cell(&c.b.name, 200));
    out.push_str("| Evaluator | Rows A | Rows B | Mean A | Mean B | Mean change | Pass rate A | Pass rate B | Pass rate change | Verdict changes |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for d in &c.evaluators {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            md_cell(&d.key, 100),
            d.stats.0.rows,
            d.stats.1.rows,
            num(d.stats.0.mean),
            num(d.stats.1.mean),
            d.mean_delta.map_or_else(|| "—".to_owned(), signed),
            pct(d.stats.0.pass_rate),
            pct(d.stats.1.pass_rate),
            d.pass_rate_delta.map_or_else(|| "—".to_owned(), |r| format!("{} pt", signed(r * 100.0))),
            d.verdict_changes
        );
    }
    for d in &c.evaluators {
        let _ = writeln!(out, "\n### {}\n", md_cell(&d.key, 100));
        let mut changed: Vec<(bool, &crate::stats::Pair, &Cell, &Cell)> = c
            .pairs
            .iter()
            .filter_map(|p| {
                let (x, y) = c.cells(p, d);
                let verdict = x.outcome != y.outcome;
                (verdict || x.score != y.score).then_some((verdict, p, x, y))
            })
            .collect();
        changed.sort_by_key(|(verdict, ..)| !verdict);
        let _ = writeln!(
            out,
            "{} row(s) changed: {} verdict change(s), {} scored higher, {} lower.",
            changed.len(),
            d.verdict_changes,
            d.higher,
            d.lower
        );
        if changed.is_empty() {
            continue;
        }
        out.push_str("\n| Row | A | B | Change |\n|---|---|---|---:|\n");
        for (verdict, p, x, y) in changed.iter().take(MAX_ROWS) {
            let id = c.row(p).map_or_else(String::new, |r| r.id.clone());
            let change = x.judged_score().zip(y.judged_score()).map_or_else(|| "—".to_owned(), |(s, t)| signed(t - s));
            let mark = if *verdict { " **verdict**" } else { "" };
            let _ = writeln!(out, "| {} | {} | {} | {change}{mark} |", md_cell(&id, 100), side(x), side(y));
        }
        if changed.len() > MAX_ROWS {
            let _ = writeln!(
                out,
                "\n…and {} more changed row(s); the HTML report lists them all.",
                changed.len() - MAX_ROWS
            );
        }
        let with_reasons: Vec<_> =
            changed.iter().take(MAX_ROWS).filter(|(_, _, x, y)| !x.reason.is_empty() || !y.reason.is_empty()).collect();
        if with_reasons.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n<details><summary>Reasons of the changed rows</summary>\n");
        for (_, p, x, y) in with_reasons {
            let id = c.row(p).map_or_else(String::new, |r| r.id.clone());
            let _ = writeln!(out, "- row {}", md_cell(&id, 100));
            for (name, cell) in [("A", x), ("B", y)] {
                if !cell.reason.is_empty() {
                    let _ = writeln!(out, "  - {name} ({}): {}", side(cell), md_cell(&cell.reason, MAX_REASON));
                }
            }
        }
        out.push_str("\n</details>\n");
    }
    out
}
