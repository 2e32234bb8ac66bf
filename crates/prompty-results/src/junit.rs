//! JUnit XML: one test suite per evaluator, one test case per row, so that CI systems show
//! evaluation results in their test views.
//!
//! A `fail` is a `<failure>`, an error record an `<error>`, `unknown`, `not_applicable` and a
//! row the run has no result for are `<skipped>`; the judge's reason is the element's text.
//! The layout is the common one CI systems read (Jenkins' `junit-10.xsd`, which the tests
//! validate against).

use std::fmt::Write as _;

use crate::stats::format_number;
use crate::text::xml;
use crate::view::{Outcome, Run};

/// The JUnit XML of `run`.
pub fn junit(run: &Run) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures, mut errors) = (0usize, 0usize, 0usize);
    for (i, e) in run.evaluators.iter().enumerate() {
        let (mut t, mut f, mut err, mut skipped) = (0usize, 0usize, 0usize, 0usize);
        let mut cases = String::new();
        for row in &run.rows {
            let Some(cell) = row.cells.get(i) else { continue };
            t += 1;
            let score = cell.score.map(format_number);
            let _ = write!(
                cases,
                "    <testcase name=\"{}\" classname=\"{}\" time=\"0\"",
                xml(&format!("row {}", row.id)),
                xml(&format!("prompty.eval.{}", e.key)),
            );
            let message = |what: &str| match (&score, &e.threshold) {
                (Some(s), Some(th)) => format!("{what}: score {s}, threshold {th}"),
                (Some(s), None) => format!("{what}: score {s}"),
                (None, _) => what.to_owned(),
            };
            let (tag, text) = match cell.outcome {
                Outcome::Pass => {
                    cases.push_str("/>\n");
                    continue;
                }
                Outcome::Fail => {
                    f += 1;
                    ("failure", message("fail"))
                }
                Outcome::Error => {
                    err += 1;
                    ("error", "error record".to_owned())
                }
                Outcome::Unknown => {
                    skipped += 1;
                    ("skipped", message("unknown: no usable score"))
                }
                Outcome::NotApplicable => {
                    skipped += 1;
                    ("skipped", message("not applicable"))
                }
                Outcome::Missing => {
                    skipped += 1;
                    ("skipped", "no result for this row".to_owned())
                }
            };
            let _ = write!(
                cases,
                ">\n      <{tag} type=\"{}\" message=\"{}\">{}</{tag}>\n    </testcase>\n",
                cell.outcome.as_str(),
                xml(&text),
                xml(&cell.reason)
            );
        }
        tests += t;
        failures += f;
        errors += err;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{t}\" failures=\"{f}\" errors=\"{err}\" skipped=\"{skipped}\" time=\"0\">",
            xml(&e.key)
        );
        suites.push_str("    <properties>\n");
        let _ = writeln!(suites, "      <property name=\"results\" value=\"{}\"/>", xml(&run.name));
        if let Some(th) = &e.threshold {
            let _ = writeln!(suites, "      <property name=\"threshold\" value=\"{}\"/>", xml(th));
        }
        for p in &run.meta.prompts {
            let _ = writeln!(suites, "      <property name=\"prompt\" value=\"{}\"/>", xml(p));
        }
        for m in &run.meta.models {
            let _ = writeln!(suites, "      <property name=\"model\" value=\"{}\"/>", xml(m));
        }
        suites.push_str("    </properties>\n");
        suites.push_str(&cases);
        suites.push_str("  </testsuite>\n");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"0\">\n{suites}</testsuites>\n",
        xml(&format!("prompty eval {}", run.name))
    )
}
