//! `prompty report` and the report files of `prompty eval` (`--report`, `--junit`): this
//! module reads result and data files and writes what `prompty_results` makes of them.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use prompty_eval::compare::Results;
use prompty_eval::rows::Line;
use prompty_results::{Comparison, Run};
use serde_json::Value;

use crate::Failure;
use crate::eval::{Staged, open_lines};

/// Writes the evaluation report of one run, or of two compared.
#[derive(clap::Args)]
#[command(
    after_help = "The report is one HTML file that loads nothing when opened; with two result files it compares them (rows matched by id, changed verdicts first)."
)]
pub(crate) struct ReportArgs {
    /// A run's results (what `prompty eval` writes).
    results: PathBuf,
    /// A second run's results: the report compares the first with it.
    other: Option<PathBuf>,
    /// Where to write the HTML report.
    #[arg(short = 'o', long, value_name = "REPORT.html")]
    output: Option<PathBuf>,
    /// Also write the (last) run as JUnit XML: one test case per row and evaluator.
    #[arg(long, value_name = "RESULTS.xml")]
    junit: Option<PathBuf>,
    /// The data rows the runs read (`eval --data`): the report shows each row's inputs.
    #[arg(long, value_name = "ROWS.jsonl")]
    data: Option<PathBuf>,
}

/// Reads a results file into a run; its time is the file's modification time.
pub(crate) fn read_run(path: &Path) -> Result<Run, Failure> {
    let results = Results::read(open_lines(path)?)?;
    let lines: Vec<(Option<String>, prompty_eval::ResultLine)> = results
        .evaluators
        .into_iter()
        .flat_map(|e| {
            let key = e.key;
            e.rows.into_iter().map(move |l| (Some(key.clone()), l))
        })
        .collect();
    let mut run = Run::from_keyed(results.name, lines);
    run.meta.when = std::fs::metadata(path).and_then(|m| m.modified()).ok().map(rfc3339);
    Ok(run)
}

/// Gives the rows of `run` the inputs of the data file's rows of the same line.
pub(crate) fn add_inputs(run: &mut Run, data: &Path, secrets: &[prompty_syntax::Secrets]) -> Result<(), Failure> {
    let mut lines = open_lines(data)?;
    while let Some(line) = lines.next_line()? {
        let n = lines.line();
        if let Line::Text(text) = line
            && let Ok(Value::Object(mut row)) = serde_json::from_str::<Value>(&text)
        {
            if !secrets.is_empty() {
                let mut v = Value::Object(std::mem::take(&mut row));
                for s in secrets {
                    s.redact_json(&mut v);
                }
                if let Value::Object(m) = v {
                    row = m;
                }
            }
            run.set_inputs(n, &row);
        }
    }
    Ok(())
}

/// Writes `text` to `target`, the file of option `flag` (a new file renamed over it),
/// refusing a target that is one of `inputs`.
pub(crate) fn write(flag: &str, target: &Path, text: &str, inputs: &[(&str, &Path)]) -> Result<(), Failure> {
    use std::io::Write;
    let mut staged = Staged::create_for(flag, target, inputs)?;
    staged.write_all(text.as_bytes())?;
    staged.commit()
}

pub(crate) fn run(args: &ReportArgs) -> Result<(), Failure> {
    if args.output.is_none() && args.junit.is_none() {
        return Err(Failure::Message("report: give -o REPORT.html, --junit RESULTS.xml or both".to_owned()));
    }
    let mut inputs: Vec<(&str, &Path)> = vec![("the results", &args.results)];
    if let Some(o) = &args.other {
        inputs.push(("the second results", o));
    }
    if let Some(d) = &args.data {
        inputs.push(("--data", d));
    }
    if let (Some(o), Some(j)) = (&args.output, &args.junit)
        && std::path::absolute(o).ok() == std::path::absolute(j).ok()
    {
        return Err(Failure::Message(format!("--junit {} is the -o file; give them different paths", j.display())));
    }
    let mut a = read_run(&args.results)?;
    let mut b = match &args.other {
        Some(p) => Some(read_run(p)?),
        None => None,
    };
    if let Some(d) = &args.data {
        add_inputs(&mut a, d, &[])?;
        if let Some(b) = &mut b {
            add_inputs(b, d, &[])?;
        }
    }
    if let Some(o) = &args.output {
        let page = match &b {
            Some(b) => prompty_results::html::compare(&Comparison::new(&a, b)),
            None => prompty_results::html::single(&a),
        };
        write("-o", o, &page, &inputs)?;
    }
    if let Some(j) = &args.junit {
        write("--junit", j, &prompty_results::junit::junit(b.as_ref().unwrap_or(&a)), &inputs)?;
    }
    Ok(())
}

/// A time as RFC 3339 in UTC, to the second (`2026-12-03T08:25:11Z`).
pub(crate) fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days to a civil date (proleptic Gregorian), after Howard Hinnant's `civil_from_days`.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rfc3339_dates() {
        let at = |s: u64| rfc3339(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(at(4_102_444_800), "2100-01-01T00:00:00Z");
    }
}
