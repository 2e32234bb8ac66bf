//! The files `eval --report`/`--junit`, `prompty report` and `eval compare --format
//! markdown` write: JUnit XML valid against the Jenkins xUnit plugin's JUnit schema
//! (`tests/data/junit/`, checked with `xmllint --schema`), one test case per row with
//! failures, errors and skips where the results have them; hostile judge reasons as text in
//! every form; the Markdown comparison users see; refused output paths.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use prompty_test_support::TempDir;
use serde_json::json;

fn prompty(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prompty")).args(args).current_dir(dir).output().expect("prompty runs")
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn prompt() -> String {
    repo("prompts/coherence.prompty").display().to_string()
}

/// A reason with markup, a CDATA end, quotes, a control character and a mention.
const HOSTILE: &str = "</failure>]]><script>alert(1)</script> \"q\" 'a' & \u{1} | @team **bold**";

/// Five data rows; answers: pass, fail (hostile reason), unknown (out of range), pass, and
/// none for the fifth row (an error record: missing answer).
fn fixture(dir: &TempDir, name: &str, scores: [u32; 4]) {
    let mut rows = String::new();
    for i in 1..=5 {
        rows.push_str(&json!({"query": format!("q{i}"), "response": format!("r{i}")}).to_string());
        rows.push('\n');
    }
    dir.write("rows.jsonl", rows);
    let mut answers = String::new();
    for (i, s) in scores.iter().enumerate() {
        let reason = if i == 1 { HOSTILE.to_owned() } else { format!("reason {}", i + 1) };
        answers.push_str(&json!({"score": s, "reason": reason}).to_string());
        answers.push('\n');
    }
    dir.write(&format!("{name}.answers.jsonl"), answers);
}

fn eval(dir: &TempDir, name: &str, extra: &[&str]) -> Output {
    let answers = format!("{name}.answers.jsonl");
    let output = format!("{name}.jsonl");
    let mut args = vec!["eval", "--data", "rows.jsonl", "--answers", &answers, "--output", &output];
    let p = prompt();
    args.insert(1, &p);
    args.extend_from_slice(extra);
    prompty(dir.path(), &args)
}

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
#[cfg_attr(not(has_xmllint), ignore = "xmllint is not on PATH (apt-get install -y libxml2-utils; .ci/run installs it)")]
fn junit_validates_against_the_junit_schema() {
    let dir = TempDir::new("junit");
    fixture(&dir, "a", [5, 1, 9, 4]);
    let out = eval(&dir, "a", &["--junit", "eval.xml"]);
    assert_eq!(out.status.code(), Some(1), "a row has an error record: {}", String::from_utf8_lossy(&out.stderr));
    let out = prompty(dir.path(), &["report", "a.jsonl", "--junit", "report.xml"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let schema = repo("crates/prompty-cli/tests/data/junit/junit-10.xsd");
    for file in ["eval.xml", "report.xml"] {
        let check = Command::new("xmllint")
            .arg("--noout")
            .arg("--schema")
            .arg(&schema)
            .arg(file)
            .current_dir(dir.path())
            .output()
            .expect("xmllint runs");
        assert!(check.status.success(), "{file}: {}", String::from_utf8_lossy(&check.stderr));
        let xml = dir.read(file);
        // One test case per row (one evaluator): pass, failure, skipped (unknown), pass, error.
        assert_eq!(count(&xml, "<testcase "), 5, "{xml}");
        assert_eq!(count(&xml, "<failure "), 1, "{xml}");
        assert_eq!(count(&xml, "<skipped "), 1, "{xml}");
        assert_eq!(count(&xml, "<error "), 1, "{xml}");
        assert!(xml.contains("tests=\"5\" failures=\"1\" errors=\"1\" skipped=\"1\""), "{xml}");
        // The hostile reason reads back as the same text (the control character, which XML
        // cannot hold, as U+FFFD).
        let text = Command::new("xmllint")
            .args(["--xpath", "string(//testcase[@name='row 2']/failure)", file])
            .current_dir(dir.path())
            .output()
            .expect("xmllint runs");
        assert_eq!(String::from_utf8_lossy(&text.stdout).trim_end_matches('\n'), HOSTILE.replace('\u{1}', "\u{FFFD}"));
    }
}

#[test]
fn the_html_report_is_self_contained_and_escapes_what_the_judge_wrote() {
    let dir = TempDir::new("report-html");
    fixture(&dir, "a", [5, 1, 9, 4]);
    let out = eval(&dir, "a", &["--report", "a.html"]);
    assert_eq!(out.status.code(), Some(1));
    let html = dir.read("a.html");
    // Two scripts (the data block and the page's own), one style, nothing from elsewhere.
    assert_eq!(count(&html, "<script"), 2);
    assert_eq!(count(&html, "<style"), 1);
    for outside in ["http:", "https:", "src=", "href=", "@import", "url("] {
        assert!(!html.contains(outside), "{outside} in the report");
    }
    let csp = html
        .split("http-equiv=\"Content-Security-Policy\" content=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a Content-Security-Policy")
        .replace("&#39;", "'");
    assert!(csp.starts_with("default-src 'none'; script-src 'sha256-"), "{csp}");
    assert!(!csp.contains("unsafe"), "{csp}");
    // The hostile reason is in the data block with every `<` escaped.
    assert!(!html.contains("<script>alert(1)"));
    assert!(html.contains("\\u003c/failure\\u003e]]\\u003e\\u003cscript\\u003ealert(1)"));
    // The inputs come from the data file; the run from the command line.
    assert!(html.contains("\"inputs\":[[\"query\",\"q1\"],[\"response\",\"r1\"]]"), "{html}");
    assert!(html.contains("coherence.prompty"));

    // `prompty report` makes the same page from the results file and the data.
    let out = prompty(dir.path(), &["report", "a.jsonl", "--data", "rows.jsonl", "-o", "b.html"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let data = |page: &str| -> serde_json::Value {
        let block =
            page.split("id=\"report-data\">").nth(1).and_then(|s| s.split("</script>").next()).expect("a data block");
        serde_json::from_str(block).expect("the data block is JSON")
    };
    let (from_eval, mut from_report) = (data(&html), data(&dir.read("b.html")));
    // The run keeps the judge's answers, which the results file does not hold.
    assert_eq!(from_eval["rows"][1]["cells"][0][0]["a"], json!(format!("{}", json!({"score": 1, "reason": HOSTILE}))));
    let mut without_answers = from_eval.clone();
    for row in without_answers["rows"].as_array_mut().expect("rows") {
        if let Some(cell) = row["cells"][0][0].as_object_mut() {
            cell.remove("a");
        }
    }
    from_report["runs"] = without_answers["runs"].clone();
    assert_eq!(from_report, without_answers, "the rows of both pages");
}

#[test]
fn the_markdown_comparison_users_see() {
    let dir = TempDir::new("compare-markdown");
    fixture(&dir, "a", [5, 1, 9, 4]);
    fixture(&dir, "b", [2, 4, 3, 4]);
    eval(&dir, "a", &[]);
    eval(&dir, "b", &[]);
    let out = prompty(dir.path(), &["eval", "compare", "a.jsonl", "b.jsonl", "--format", "markdown"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!md.contains("<script>") && !md.contains("@team"), "{md}");
    insta::assert_snapshot!(md);
}

#[test]
fn report_refuses_outputs_that_would_destroy_an_input() {
    let dir = TempDir::new("report-refusals");
    fixture(&dir, "a", [5, 1, 9, 4]);
    eval(&dir, "a", &[]);
    let before = dir.read("a.jsonl");
    let cases: [(&[&str], &str); 5] = [
        (&["report", "a.jsonl"], "give -o REPORT.html, --junit RESULTS.xml or both"),
        (&["report", "a.jsonl", "-o", "a.jsonl"], "is the same file as the results a.jsonl"),
        (
            &["report", "a.jsonl", "--data", "rows.jsonl", "--junit", "rows.jsonl"],
            "is the same file as --data rows.jsonl",
        ),
        (&["report", "a.jsonl", "-o", "x.html", "--junit", "x.html"], "is the -o file"),
        (&["report", "missing.jsonl", "-o", "x.html"], "missing.jsonl: cannot read"),
    ];
    for (args, message) in cases {
        let out = prompty(dir.path(), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    assert_eq!(dir.read("a.jsonl"), before);
    assert!(!dir.exists("x.html"));
    let out = eval(&dir, "a", &["--report", "rows.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the same file as --data rows.jsonl"));
}
