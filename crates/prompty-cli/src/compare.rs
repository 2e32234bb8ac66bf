//! `prompty eval compare A.jsonl B.jsonl`: two runs' results side by side, per evaluator,
//! row by row (matched by row id) and in aggregate ([`prompty_eval::compare`]), and the
//! regression gate (`--fail-on-regression`); this module reads the files and prints.

use std::io::Write;
use std::path::PathBuf;

use prompty_eval::compare::{Comparison, EvaluatorComparison, Regression, RegressionGate, Results, compare};
use prompty_eval::summary::format_number;
use serde_json::Value;

use crate::Failure;
use crate::eval::{EvalStatus, open_lines};

/// How `eval compare` prints.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub(crate) enum CompareFormat {
    /// A readable table of the rows that differ and the aggregate.
    Text,
    /// The comparison as JSON.
    Json,
    /// Markdown for `$GITHUB_STEP_SUMMARY` or a pull request comment: a table of every
    /// evaluator, the rows that changed, their reasons in collapsible sections.
    Markdown,
}

/// Exit status: 0 no regression gate failed; 1 a gate failed (each named on standard
/// error); 2 usage or I/O failure.
#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 no --fail-on-regression gate failed; 1 a gate failed (each named on standard error, with the evaluator and the measured change); 2 usage or I/O failure."
)]
pub(crate) struct CompareArgs {
    /// The first run's results (`prompty eval` output): the baseline.
    a: PathBuf,
    /// The second run's results: the change.
    b: PathBuf,
    /// Output: a readable report, JSON, or Markdown for a pull request.
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    format: CompareFormat,
    /// List every row, not only those that differ.
    #[arg(long)]
    all: bool,
    /// Exit 1 when an evaluator's mean falls by more than DELTA score points (`0.25`), or its
    /// pass rate by more than P percentage points (`pass-rate=5%`); `EVALUATOR:` before it
    /// for one evaluator (repeatable; an evaluator's own replaces the general one).
    #[arg(long, value_name = "[EVALUATOR:][mean=]DELTA|pass-rate=P%")]
    fail_on_regression: Vec<String>,
}

pub(crate) fn run(args: &CompareArgs) -> Result<EvalStatus, Failure> {
    let gates: Vec<RegressionGate> =
        args.fail_on_regression.iter().map(|g| RegressionGate::parse(g)).collect::<Result<_, _>>()?;
    let a = Results::read(open_lines(&args.a)?)?;
    let b = Results::read(open_lines(&args.b)?)?;
    let comparison = compare(&a, &b, args.all);
    let failed = prompty_eval::regressions(&comparison, &gates)?;
    let mut out = std::io::stdout().lock();
    if args.format == CompareFormat::Markdown {
        let (a, b) = (crate::results::read_run(&args.a)?, crate::results::read_run(&args.b)?);
        let text = prompty_results::markdown::compare(&prompty_results::Comparison::new(&a, &b));
        out.write_all(text.as_bytes())?;
    } else if args.format == CompareFormat::Json {
        let mut json = match comparison.evaluators.as_slice() {
            [one] => serde_json::to_value(one).unwrap_or(Value::Null),
            _ => serde_json::to_value(&comparison).unwrap_or(Value::Null),
        };
        if let Value::Object(o) = &mut json {
            o.insert("regressions".into(), serde_json::to_value(&failed).unwrap_or(Value::Null));
        }
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
    } else {
        write_text(&mut out, &comparison)?;
    }
    out.flush()?;
    report(&failed)
}

fn report(failed: &[Regression]) -> Result<EvalStatus, Failure> {
    let mut stderr = std::io::stderr().lock();
    for r in failed {
        writeln!(stderr, "regression: {r}")?;
    }
    Ok(if failed.is_empty() { EvalStatus::Passed } else { EvalStatus::Failed })
}

fn write_text(out: &mut dyn Write, c: &Comparison) -> std::io::Result<()> {
    let several = c.evaluators.len() > 1;
    for (i, e) in c.evaluators.iter().enumerate() {
        if several {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(out, "== {}", e.key)?;
        }
        write_one(out, e)?;
    }
    Ok(())
}

fn write_one(out: &mut dyn Write, c: &EvaluatorComparison) -> std::io::Result<()> {
    let shown = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), format_number);
    // Escaped: an id is data, and must not move the terminal's cursor.
    let ids: Vec<String> = c.rows.iter().map(|r| r.id.to_string().escape_debug().to_string()).collect();
    let width = ids.iter().map(|i| i.chars().count()).max().unwrap_or(0).clamp(6, 40);
    writeln!(
        out,
        "{:>width$}  {:>8} {:<15} {:>8} {:<15} {:>7}",
        "id", "A score", "A verdict", "B score", "B verdict", "delta"
    )?;
    for (r, id) in c.rows.iter().zip(&ids) {
        writeln!(
            out,
            "{:>width$}  {:>8} {:<15} {:>8} {:<15} {:>7}",
            id,
            shown(r.a.score),
            r.a.verdict.as_str(),
            shown(r.b.score),
            r.b.verdict.as_str(),
            r.delta.map_or_else(|| "-".to_owned(), signed)
        )?;
    }
    let pr = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |r| format!("{}%", format_number(r * 100.0)));
    let s = &c.summary;
    writeln!(out)?;
    writeln!(out, "A {}: {} rows, mean {}, pass rate {}", s.a.file, s.a.rows, shown(s.a.mean), pr(s.a.pass_rate))?;
    writeln!(out, "B {}: {} rows, mean {}, pass rate {}", s.b.file, s.b.rows, shown(s.b.mean), pr(s.b.pass_rate))?;
    writeln!(
        out,
        "mean delta {}; {} higher, {} lower, {} unchanged or unscored; {} verdict change(s)",
        s.mean_delta.map_or_else(|| "-".to_owned(), signed),
        s.higher,
        s.lower,
        s.unchanged,
        s.verdict_changes
    )
}

/// A difference with its sign.
fn signed(d: f64) -> String {
    if d > 0.0 { format!("+{}", format_number(d)) } else { format_number(d) }
}
