//! The rule table: every rule has `fixtures/<CODE>_fires.prompty`, which must report the
//! code, and `fixtures/<CODE>_clean.prompty`, which must not. Every fixture's findings (and,
//! where there are fixes, the fixed file) are snapshotted as text.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use prompty_lint::{Finding, Selection};
use prompty_syntax::{LineIndex, LoadOptions, MapHost, load_str};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The variables the fixtures read: set, so that only the rules under test speak.
fn host() -> MapHost {
    MapHost::new()
        .with_env("PROMPTY_FIXTURE_ENDPOINT", "https://example.invalid/v1")
        .with_env("PROMPTY_FIXTURE_API_KEY", "not-a-key")
}

fn check(name: &str) -> (String, Vec<Finding>) {
    let path = fixtures().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let options = LoadOptions { path: Some(path.clone()), lint: true, ..LoadOptions::default() };
    let loaded = load_str(&text, &host(), &options);
    // A prompt with an input cases file: the cases file's findings, against its text.
    let cases = path.with_extension("cases.yaml");
    if let Ok(cases_text) = std::fs::read_to_string(&cases) {
        let findings = prompty_lint::check_cases(&cases_text, &loaded, &Selection::all());
        return (cases_text, findings);
    }
    let report = prompty_lint::check(&text, &loaded, &Selection::all());
    // The loader's own messages are snapshotted by its tests; here only the code under test
    // and the rules speak.
    let code = name.split('_').next().unwrap_or_default();
    let findings = report
        .findings
        .into_iter()
        .filter(|f| f.diagnostic.code.id.starts_with("PL") || f.diagnostic.code.id == code)
        .collect();
    (text, findings)
}

/// Findings as a reviewer reads them: position, code, message, help, the source line with
/// the span underlined, and the fix.
fn describe(text: &str, findings: &[Finding]) -> String {
    let index = LineIndex::new(text);
    let mut out = String::new();
    for f in findings {
        let d = &f.diagnostic;
        let (line, col) = index.line_col(text, d.span.start);
        let (end_line, end_col) = index.line_col(text, d.span.end);
        let _ = writeln!(
            out,
            "{line}:{col}-{end_line}:{end_col} {}[{}] {}: {}",
            d.severity, d.code.id, d.code.name, d.message
        );
        let source = text.lines().nth(line - 1).unwrap_or("");
        let _ = writeln!(out, "    | {source}");
        let width = if end_line == line { (end_col - col).max(1) } else { 1 };
        let _ = writeln!(out, "    | {}{}", " ".repeat(col - 1), "^".repeat(width));
        if let Some(help) = &d.help {
            let _ = writeln!(out, "    help: {help}");
        }
        if let Some(fix) = &f.fix {
            let _ = writeln!(
                out,
                "    fix: {} ({:?} -> {:?})",
                fix.title,
                text.get(fix.span.clone()).unwrap_or(""),
                fix.replacement
            );
        }
    }
    if findings.iter().any(|f| f.fix.is_some()) {
        let fixed = prompty_lint::apply_fixes(text, findings.iter().filter_map(|f| f.fix.as_ref()));
        let _ = write!(out, "----- after --fix -----\n{}", fixed.text);
    }
    if out.is_empty() {
        out.push_str("(no findings)\n");
    }
    out
}

#[test]
fn rule_table() {
    let mut codes: Vec<String> = prompty_lint::rules().map(|r| r.code.id.to_owned()).collect();
    codes.push("P010".to_owned());
    let mut failures = Vec::new();
    for code in &codes {
        for (variant, must_fire) in [("fires", true), ("clean", false)] {
            let name = format!("{code}_{variant}.prompty");
            if !fixtures().join(&name).is_file() {
                failures.push(format!("{name}: missing"));
                continue;
            }
            let (text, findings) = check(&name);
            let fired = findings.iter().any(|f| f.diagnostic.code.id == code);
            if fired != must_fire {
                failures.push(format!(
                    "{name}: expected {code} {}\n{}",
                    if must_fire { "to fire" } else { "not to fire" },
                    describe(&text, &findings)
                ));
            }
            insta::with_settings!({ input_file => fixtures().join(&name), prepend_module_to_snapshot => false }, {
                insta::assert_snapshot!(format!("{code}_{variant}"), describe(&text, &findings));
            });
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fixes_are_idempotent_and_leave_other_bytes_alone() {
    for rule in prompty_lint::rules().filter(|r| r.fixable()) {
        let name = format!("{}_fires.prompty", rule.code.id);
        let (text, findings) = check(&name);
        let fixed = prompty_lint::apply_fixes(&text, findings.iter().filter_map(|f| f.fix.as_ref()));
        assert!(!fixed.applied.is_empty(), "{name}: no fix applied");
        for fix in fixed
            .applied
            .iter()
            .filter(|f| findings.iter().any(|g| g.fix.as_ref() == Some(*f) && g.diagnostic.code.id == rule.code.id))
        {
            assert_eq!(
                Some(fix.applicability),
                rule.fix,
                "{name}: `{}` is not labelled as the rule declares",
                fix.title
            );
        }
        let options = LoadOptions { lint: true, ..LoadOptions::default() };
        let loaded = load_str(&fixed.text, &host(), &options);
        let again = prompty_lint::check(&fixed.text, &loaded, &Selection::all());
        assert!(
            !again.findings.iter().any(|f| f.diagnostic.code.id == rule.code.id),
            "{name}: still fires after --fix:\n{}",
            describe(&fixed.text, &again.findings)
        );
    }
}

/// Every prefix of every fixture (cut at a character boundary) lints without panicking, and
/// every finding's span lies inside the text.
#[test]
fn truncated_files_never_panic() {
    let mut names: Vec<PathBuf> =
        std::fs::read_dir(fixtures()).expect("fixtures").filter_map(|e| e.ok().map(|e| e.path())).collect();
    names.sort();
    let texts: Vec<(PathBuf, String)> = names
        .into_iter()
        .map(|path| (std::fs::read_to_string(&path).expect("read"), path))
        .map(|(t, p)| (p, t))
        .collect();
    // Every fifth byte, and at most about 400 cuts for the large fixtures (PL029's); the cuts
    // on every core (the large fixture's are most of the work).
    let cuts: Vec<(&PathBuf, &str, usize)> = texts
        .iter()
        .flat_map(|(path, text)| {
            let step = (text.len() / 400).max(5);
            (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .step_by(step)
                .map(move |cut| (path, text.as_str(), cut))
        })
        .collect();
    prompty_test_support::on_every_core(&cuts, |&(path, text, cut)| {
        let prefix = text.get(..cut).unwrap_or("");
        let loaded = load_str(prefix, &host(), &LoadOptions { lint: true, ..LoadOptions::default() });
        for f in prompty_lint::check(prefix, &loaded, &Selection::all()).findings {
            let s = &f.diagnostic.span;
            assert!(s.start <= s.end && s.end <= prefix.len(), "{}[..{cut}]: {:?}", path.display(), f.diagnostic);
            if let Some(fix) = &f.fix {
                assert!(fix.span.end <= prefix.len() && prefix.is_char_boundary(fix.span.start));
            }
        }
    });
}
