//! `prompty eval compare A.jsonl B.jsonl`: two runs' results side by side, row by row
//! (matched by `line`) and in aggregate ([`prompty_eval::compare`]); this module reads the
//! files and prints.

use std::io::Write;
use std::path::PathBuf;

use prompty_eval::compare::{Comparison, Results, compare};
use prompty_eval::summary::format_number;

use crate::Failure;
use crate::eval::open_lines;

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

#[derive(clap::Args)]
pub(crate) struct CompareArgs {
    /// The first run's results (`prompty eval` output).
    a: PathBuf,
    /// The second run's results.
    b: PathBuf,
    /// Output: a readable report, JSON, or Markdown for a pull request.
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    format: CompareFormat,
    /// List every row, not only those that differ.
    #[arg(long)]
    all: bool,
}

pub(crate) fn run(args: &CompareArgs) -> Result<(), Failure> {
    if args.format == CompareFormat::Markdown {
        let (a, b) = (crate::results::read_run(&args.a)?, crate::results::read_run(&args.b)?);
        let text = prompty_results::markdown::compare(&prompty_results::Comparison::new(&a, &b));
        std::io::stdout().lock().write_all(text.as_bytes())?;
        return Ok(());
    }
    let a = Results::read(open_lines(&args.a)?)?;
    let b = Results::read(open_lines(&args.b)?)?;
    let comparison = compare(&a, &b, args.all);
    let mut out = std::io::stdout().lock();
    if args.format == CompareFormat::Json {
        serde_json::to_writer_pretty(&mut out, &comparison)?;
        writeln!(out)?;
        return Ok(());
    }
    write_text(&mut out, &comparison)?;
    Ok(())
}

fn write_text(out: &mut dyn Write, c: &Comparison) -> std::io::Result<()> {
    let shown = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), format_number);
    writeln!(
        out,
        "{:>6}  {:>8} {:<15} {:>8} {:<15} {:>7}",
        "line", "A score", "A verdict", "B score", "B verdict", "delta"
    )?;
    for r in &c.rows {
        writeln!(
            out,
            "{:>6}  {:>8} {:<15} {:>8} {:<15} {:>7}",
            r.line,
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
