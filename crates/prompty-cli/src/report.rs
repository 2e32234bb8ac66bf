//! Rendering diagnostics for machines: JSON lines, GitHub workflow commands and SARIF. The
//! human form is the `prompty` library's (`prompty::report`), shared with embedders.

use std::path::Path;

use prompty_syntax::{Diagnostic, LineIndex, Severity};
use serde::Serialize;

/// One diagnostic as a JSON object with 1-based positions.
#[derive(Debug, Serialize)]
pub(crate) struct JsonDiagnostic<'a> {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) end_line: usize,
    pub(crate) end_column: usize,
    pub(crate) code: &'a str,
    pub(crate) name: &'a str,
    pub(crate) severity: Severity,
    pub(crate) message: &'a str,
    pub(crate) help: Option<&'a str>,
}

/// Locates `d` in `text` and builds its JSON form.
pub(crate) fn json<'a>(path: &Path, text: &str, index: &LineIndex, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
    let (line, column) = index.line_col(text, d.span.start);
    let (end_line, end_column) = index.line_col(text, d.span.end);
    JsonDiagnostic {
        file: path.display().to_string(),
        line,
        column,
        end_line,
        end_column,
        code: d.code.id,
        name: d.code.name,
        severity: d.severity,
        message: &d.message,
        help: d.help.as_deref(),
    }
}

/// One finding on one line, as compilers print them (`file:line:col: severity: message
/// [CODE]`), for editors' problem matchers and `grep`.
pub(crate) fn concise(path: &Path, text: &str, index: &LineIndex, f: &prompty_lint::Finding) -> String {
    let d = &f.diagnostic;
    let (line, column) = index.line_col(text, d.span.start);
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    let message = d.message.replace(['\n', '\r'], " ");
    let fixable = if f.fix.is_some() { " (fixable with --fix)" } else { "" };
    format!("{}:{line}:{column}: {severity}: {message} [{}]{fixable}", path.display(), d.code.id)
}

/// Escapes a GitHub workflow command's message.
fn github_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a GitHub workflow command's property value.
fn github_property(s: &str) -> String {
    github_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One diagnostic as a GitHub Actions workflow command (an annotation on the PR's diff).
pub(crate) fn github(path: &Path, text: &str, index: &LineIndex, d: &Diagnostic) -> String {
    let j = json(path, text, index, d);
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    format!(
        "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}",
        github_property(&j.file),
        j.line,
        j.column,
        j.end_line,
        j.end_column,
        github_property(d.code.id),
        github_data(&message)
    )
}

/// SARIF 2.1.0: one run of `prompty check`, rules from the catalog.
#[derive(Default)]
pub(crate) struct Sarif {
    results: Vec<serde_json::Value>,
}

/// A relative path as a URI reference (forward slashes, reserved bytes percent-encoded).
fn uri(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(char::from(b)),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// Every code `prompty check` reports, in the order SARIF `ruleIndex` counts.
fn sarif_rules() -> Vec<serde_json::Value> {
    let loader = prompty_syntax::codes::ALL.iter().map(|(code, doc)| {
        serde_json::json!({
            "id": code.id,
            "name": code.name,
            "shortDescription": {"text": doc},
            "defaultConfiguration": {"level": sarif_level(prompty_syntax::codes::default_severity(*code))},
        })
    });
    let rules = prompty_lint::rules().map(|r| {
        serde_json::json!({
            "id": r.code.id,
            "name": r.code.name,
            "shortDescription": {"text": r.summary()},
            "fullDescription": {"text": r.summary()},
            "help": {"text": r.docs.lines().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n")},
            "defaultConfiguration": {"level": sarif_level(r.severity)},
            "properties": {"fixable": r.fixable},
        })
    });
    loader.chain(rules).collect()
}

impl Sarif {
    pub(crate) fn new() -> Self {
        Self { results: Vec::new() }
    }

    /// Adds the results of another (one file's), after these.
    pub(crate) fn extend(&mut self, other: Sarif) {
        self.results.extend(other.results);
    }

    /// Adds one finding.
    pub(crate) fn push(&mut self, path: &Path, text: &str, index: &LineIndex, f: &prompty_lint::Finding) {
        let d = &f.diagnostic;
        let j = json(path, text, index, d);
        let rule_index = prompty_lint::all_codes().position(|c| c.id == d.code.id);
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let location = serde_json::json!({"artifactLocation": {"uri": uri(path)}});
        let mut result = serde_json::json!({
            "ruleId": d.code.id,
            "level": sarif_level(d.severity),
            "message": {"text": message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": uri(path)},
                    "region": {
                        "startLine": j.line,
                        "startColumn": j.column,
                        "endLine": j.end_line,
                        "endColumn": j.end_column,
                        "byteOffset": d.span.start,
                        "byteLength": d.span.end.saturating_sub(d.span.start),
                    },
                },
            }],
        });
        if let (Some(i), Some(obj)) = (rule_index, result.as_object_mut()) {
            obj.insert("ruleIndex".into(), i.into());
        }
        if let (Some(fix), Some(obj)) = (&f.fix, result.as_object_mut()) {
            obj.insert(
                "fixes".into(),
                serde_json::json!([{
                    "description": {"text": fix.title},
                    "artifactChanges": [{
                        "artifactLocation": location["artifactLocation"],
                        "replacements": [{
                            "deletedRegion": {
                                "byteOffset": fix.span.start,
                                "byteLength": fix.span.end.saturating_sub(fix.span.start),
                            },
                            "insertedContent": {"text": fix.replacement},
                        }],
                    }],
                }]),
            );
        }
        self.results.push(result);
    }

    /// The whole log.
    pub(crate) fn finish(self, failures: &[String]) -> serde_json::Value {
        let mut log = serde_json::json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": {
                    "driver": {
                        "name": "prompty",
                        "semanticVersion": env!("CARGO_PKG_VERSION"),
                        "rules": sarif_rules(),
                    },
                },
                "columnKind": "unicodeCodePoints",
                "results": self.results,
            }],
        });
        if !failures.is_empty() {
            let notes: Vec<serde_json::Value> =
                failures.iter().map(|f| serde_json::json!({"level": "error", "message": {"text": f}})).collect();
            log["runs"][0]["invocations"] =
                serde_json::json!([{"executionSuccessful": false, "toolExecutionNotifications": notes}]);
        }
        log
    }
}
