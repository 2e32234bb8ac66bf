//! One reporter for every diagnostic: the human form is the `prompty` library's
//! (`prompty_toolkit::report`, shared with embedders); JSON lines, GitHub workflow commands and SARIF
//! are for machines. `check` writes them on standard output; the commands that load one
//! prompt (`load`, `render`, `compile`, `score`, `run`, `eval`, `batch`) write them on standard
//! error, in the form `--error-format` names, through [`emit`], [`fail`] and [`finish`].

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clap::ValueEnum;
use prompty_syntax::{Code, Diagnostic, LineIndex, Severity};
use serde::Serialize;

/// How diagnostics are written.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug, Default)]
pub(crate) enum Format {
    /// miette's graphical report, with the file's lines around each span.
    #[default]
    Human,
    /// One JSON object per line.
    Json,
    /// GitHub Actions workflow commands (annotations on the pull request's diff).
    Github,
    /// One SARIF 2.1.0 log, written when the command ends.
    Sarif,
}

/// A diagnostic with the file it is about; `text` is the file's text when the diagnostic
/// points at a place in it, `None` when it is about the file as a whole.
#[derive(Debug, Clone)]
pub(crate) struct Located {
    pub(crate) file: PathBuf,
    pub(crate) text: Option<Arc<str>>,
    pub(crate) diagnostic: Diagnostic,
}

impl Located {
    /// A diagnostic at its span in `text`.
    pub(crate) fn at(file: &Path, text: &Arc<str>, diagnostic: Diagnostic) -> Self {
        Located { file: file.to_path_buf(), text: Some(text.clone()), diagnostic }
    }

    /// A diagnostic about the file as a whole.
    pub(crate) fn file(file: &Path, diagnostic: Diagnostic) -> Self {
        Located { file: file.to_path_buf(), text: None, diagnostic }
    }

    /// `file:line:col: message [CODE]` (`file: message [CODE]` when it points nowhere).
    pub(crate) fn one_line(&self) -> String {
        let d = &self.diagnostic;
        match &self.text {
            Some(text) => {
                let (line, col) = LineIndex::new(text).line_col(text, d.span.start);
                format!("{}:{line}:{col}: {} [{}]", self.file.display(), d.message, d.code.id)
            }
            None => format!("{}: {} [{}]", self.file.display(), d.message, d.code.id),
        }
    }
}

/// One diagnostic as a JSON object with 1-based positions (`null` when it points nowhere).
#[derive(Debug, Serialize)]
pub(crate) struct JsonDiagnostic<'a> {
    pub(crate) file: String,
    pub(crate) line: Option<usize>,
    pub(crate) column: Option<usize>,
    pub(crate) end_line: Option<usize>,
    pub(crate) end_column: Option<usize>,
    pub(crate) code: &'a str,
    pub(crate) name: &'a str,
    pub(crate) severity: Severity,
    pub(crate) message: &'a str,
    pub(crate) help: Option<&'a str>,
}

/// Locates `d` in `text` (when given) and builds its JSON form.
pub(crate) fn json<'a>(path: &Path, at: Option<(&str, &LineIndex)>, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
    let start = at.map(|(text, index)| index.line_col(text, d.span.start));
    let end = at.map(|(text, index)| index.line_col(text, d.span.end));
    JsonDiagnostic {
        file: path.display().to_string(),
        line: start.map(|p| p.0),
        column: start.map(|p| p.1),
        end_line: end.map(|p| p.0),
        end_column: end.map(|p| p.1),
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
    let fixable = match f.fix.as_ref().map(|f| f.applicability) {
        None => "",
        Some(prompty_lint::Applicability::Safe) => " (fixable with --fix)",
        Some(prompty_lint::Applicability::Unsafe) => " (fixable with --fix --unsafe-fixes)",
    };
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
pub(crate) fn github(path: &Path, at: Option<(&str, &LineIndex)>, d: &Diagnostic) -> String {
    let j = json(path, at, d);
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
    let position = match (j.line, j.column, j.end_line, j.end_column) {
        (Some(l), Some(c), Some(el), Some(ec)) => format!(",line={l},col={c},endLine={el},endColumn={ec}"),
        _ => String::new(),
    };
    format!(
        "::{level} file={}{position},title={}::{}",
        github_property(&j.file),
        github_property(d.code.id),
        github_data(&message)
    )
}

/// SARIF 2.1.0: one run of `prompty`, rules from the catalog.
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

/// Where the documentation is published; each code links to its section.
const DOCS_URL: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/");

/// A code as the reference documents it.
pub(crate) struct Entry {
    pub(crate) code: Code,
    pub(crate) severity: Severity,
    pub(crate) summary: String,
    /// The rule's full documentation (lint rules only).
    pub(crate) help: Option<String>,
    pub(crate) fixable: bool,
    /// The file that documents it: `rules.md` (lint rules) or `diagnostics.md`.
    pub(crate) doc: &'static str,
    /// Which part of the toolkit reports it (groups `docs/diagnostics.md`).
    #[cfg_attr(not(test), allow(dead_code, reason = "read by the docs generator, a test"))]
    pub(crate) origin: &'static str,
}

impl Entry {
    /// The anchor of its section: the heading `## P002 yaml-syntax` is `#p002-yaml-syntax`.
    pub(crate) fn anchor(&self) -> String {
        format!("{}-{}", self.code.id, self.code.name).to_ascii_lowercase()
    }

    /// The address of its section in the documentation.
    pub(crate) fn help_uri(&self) -> String {
        format!("{DOCS_URL}{}#{}", self.doc, self.anchor())
    }
}

fn from_info(info: &prompty_syntax::CodeInfo, origin: &'static str) -> Entry {
    Entry {
        code: info.code,
        severity: info.severity,
        summary: info.summary.to_owned(),
        help: None,
        fixable: false,
        doc: "diagnostics.md",
        origin,
    }
}

/// Every code the toolkit reports, in the order SARIF `ruleIndex` counts: the loader's,
/// the lint rules, then the renderer's, the wire compiler's and the evaluator's.
pub(crate) fn catalog() -> Vec<Entry> {
    let mut all: Vec<Entry> = prompty_syntax::codes::infos().map(|i| from_info(&i, "loader")).collect();
    all.extend(prompty_lint::rules().map(|r| Entry {
        code: r.code,
        severity: r.severity,
        summary: r.summary(),
        help: Some(r.docs.lines().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n")),
        fixable: r.fixable(),
        doc: "rules.md",
        origin: "lint",
    }));
    all.extend(prompty_render::codes::ALL.iter().map(|i| from_info(i, "render")));
    all.extend(prompty_wire::codes::ALL.iter().map(|i| from_info(i, "wire")));
    all.extend(prompty_eval::codes::ALL.iter().map(|i| from_info(i, "eval")));
    all
}

/// `docs/diagnostics.md`: every code that is not a lint rule, grouped by the part of the
/// toolkit that reports it, one section each (lint rules are in `docs/rules.md`).
#[cfg(test)]
pub(crate) fn diagnostics_markdown() -> String {
    use std::fmt::Write as _;
    let groups = [
        (
            "loader",
            "Loader (`P0xx`)",
            "Reported while reading the front matter, by `prompty check` and by every command that loads a prompt (`load`, `render`, `compile`, `run`, `score`, `eval`, `batch`).",
        ),
        (
            "render",
            "Renderer (`PR0xx`)",
            "Reported when a template cannot be compiled or rendered with the given inputs: `render`, `compile`, `run`, `batch`, `eval` and `snapshot`. A template error points at the place in the file where the engine stopped.",
        ),
        (
            "wire",
            "Wire compiler (`PW0xx` errors, `PW1xx` warnings)",
            "Reported when the rendered messages become a provider's request, or a response is read: `compile`, `run`, `batch` and `eval --judge`. They are about the prompt as a whole, so they point at the file, not a line. A warning means the request is still valid but something was not sent as written.",
        ),
        (
            "eval",
            "Evaluator (`PE0xx`)",
            "Reported when a judge answer cannot be scored (`score`; `eval` writes them into the row's result) or the prompt's `metadata.evaluator` is invalid.",
        ),
    ];
    let mut out = String::new();
    out.push_str("<!-- Generated from the code tables of the crates by the test `diagnostics_doc_is_current`\n");
    out.push_str(
        "     (PROMPTY_UPDATE_DOCS=1 cargo test -p prompty-cli --bin prompty diagnostics_doc). Do not edit. -->\n\n",
    );
    out.push_str("# Diagnostics\n\n");
    out.push_str("Every problem the toolkit reports has a stable code; the lint rules (`PLxxx`) are described in\n");
    out.push_str("[rules.md](rules.md), every other code here. `prompty check` writes them on standard output in\n");
    out.push_str("the form `--format` names; the commands that load one prompt write them on standard error in\n");
    out.push_str("the form `--error-format` names: `human` (default), `json` (one object per line, `line` and\n");
    out.push_str("`column` null when the diagnostic is about the file as a whole), `github` (workflow\n");
    out.push_str("annotations) or `sarif` (one SARIF 2.1.0 log, written when the command ends). Codes are\n");
    out.push_str("stable: they are never renumbered, only added.\n");
    let catalog = catalog();
    for (origin, title, about) in groups {
        let _ = write!(out, "\n## {title}\n\n{about}\n");
        for e in catalog.iter().filter(|e| e.origin == origin) {
            let _ = write!(out, "\n### {} {}\n\nSeverity: {}.\n\n{}\n", e.code.id, e.code.name, e.severity, e.summary);
        }
    }
    out
}

/// Every code as a SARIF reporting descriptor, its default level its real severity.
fn sarif_rules(catalog: &[Entry]) -> Vec<serde_json::Value> {
    catalog
        .iter()
        .map(|e| {
            let mut rule = serde_json::json!({
                "id": e.code.id,
                "name": e.code.name,
                "shortDescription": {"text": e.summary},
                "fullDescription": {"text": e.summary},
                "helpUri": e.help_uri(),
                "defaultConfiguration": {"level": sarif_level(e.severity)},
                "properties": {"fixable": e.fixable},
            });
            if let Some(help) = &e.help {
                rule["help"] = serde_json::json!({"text": help});
            }
            rule
        })
        .collect()
}

impl Sarif {
    pub(crate) const fn new() -> Self {
        Self { results: Vec::new() }
    }

    /// Adds the results of another (one file's), after these.
    pub(crate) fn extend(&mut self, other: Sarif) {
        self.results.extend(other.results);
    }

    /// Adds one finding of `check`.
    pub(crate) fn push(&mut self, path: &Path, text: &str, index: &LineIndex, f: &prompty_lint::Finding) {
        self.push_diagnostic(path, Some((text, index)), &f.diagnostic, f.fix.as_ref());
    }

    /// Adds one diagnostic, located in `at` when given, with the fix that resolves it.
    pub(crate) fn push_diagnostic(
        &mut self,
        path: &Path,
        at: Option<(&str, &LineIndex)>,
        d: &Diagnostic,
        fix: Option<&prompty_lint::Fix>,
    ) {
        let j = json(path, at, d);
        let rule_index = catalog().iter().position(|e| e.code.id == d.code.id);
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let location = serde_json::json!({"artifactLocation": {"uri": uri(path)}});
        let mut physical = serde_json::json!({"artifactLocation": {"uri": uri(path)}});
        if let (Some(l), Some(c), Some(el), Some(ec)) = (j.line, j.column, j.end_line, j.end_column) {
            physical["region"] = serde_json::json!({
                "startLine": l,
                "startColumn": c,
                "endLine": el,
                "endColumn": ec,
                "byteOffset": d.span.start,
                "byteLength": d.span.end.saturating_sub(d.span.start),
            });
        }
        let mut result = serde_json::json!({
            "ruleId": d.code.id,
            "level": sarif_level(d.severity),
            "message": {"text": message},
            "locations": [{"physicalLocation": physical}],
        });
        if let (Some(i), Some(obj)) = (rule_index, result.as_object_mut()) {
            obj.insert("ruleIndex".into(), i.into());
        }
        if let (Some(fix), Some(obj)) = (fix, result.as_object_mut()) {
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
                        "rules": sarif_rules(&catalog()),
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

/// The reporter of the commands that load one prompt.
struct State {
    format: Format,
    sarif: Sarif,
    failures: Vec<String>,
}

static STATE: Mutex<State> = Mutex::new(State { format: Format::Human, sarif: Sarif::new(), failures: Vec::new() });

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sets the form of every diagnostic written from now on.
pub(crate) fn set_format(format: Format) {
    state().format = format;
}

/// Writes one diagnostic on standard error (SARIF: keeps it for [`finish`]).
pub(crate) fn emit(located: &Located) {
    let mut state = state();
    let file = &located.file;
    let d = &located.diagnostic;
    let index = located.text.as_deref().map(LineIndex::new);
    let at = located.text.as_deref().zip(index.as_ref());
    let mut err = std::io::stderr().lock();
    let _ = match state.format {
        Format::Human => {
            let style = prompty_toolkit::report::Style { color: std::io::stderr().is_terminal(), width: 100 };
            let drawn = match &located.text {
                Some(text) => prompty_toolkit::report::Source::new(&file.display().to_string(), text).draw(d, &style),
                None => {
                    let mut d = d.clone();
                    d.message = format!("{}: {}", file.display(), d.message);
                    prompty_toolkit::report::draw_unlocated(&d, &style)
                }
            };
            write!(err, "{drawn}")
        }
        Format::Json => writeln!(err, "{}", serde_json::to_string(&json(file, at, d)).unwrap_or_default()),
        Format::Github => writeln!(err, "{}", github(file, at, d)),
        Format::Sarif => {
            state.sarif.push_diagnostic(file, at, d, None);
            Ok(())
        }
    };
}

/// Reports a failure that is no diagnostic (a file that cannot be read, a bad flag): `error:`
/// and the message on standard error; SARIF also carries it as a notification.
pub(crate) fn fail(message: &str) {
    let mut state = state();
    let _ = writeln!(std::io::stderr().lock(), "error: {}", message.trim_end());
    if state.format == Format::Sarif {
        state.failures.push(message.trim_end().to_owned());
    }
}

/// Ends the report: in SARIF, writes the log of everything reported (on standard error).
pub(crate) fn finish() {
    let mut state = state();
    if state.format != Format::Sarif {
        return;
    }
    let sarif = std::mem::replace(&mut state.sarif, Sarif::new());
    let log = sarif.finish(&std::mem::take(&mut state.failures));
    let mut err = std::io::stderr().lock();
    let _ = serde_json::to_writer_pretty(&mut err, &log);
    let _ = writeln!(err);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(name: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs").join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// `docs/diagnostics.md` is generated from the crates' code tables.
    #[test]
    fn diagnostics_doc_is_current() {
        let expected = diagnostics_markdown();
        if std::env::var_os("PROMPTY_UPDATE_DOCS").is_some() {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/diagnostics.md");
            std::fs::write(path, &expected).expect("write docs/diagnostics.md");
        }
        assert!(
            docs("diagnostics.md") == expected,
            "docs/diagnostics.md is out of date; regenerate it with\n    PROMPTY_UPDATE_DOCS=1 cargo test -p prompty-cli --bin prompty diagnostics_doc"
        );
    }

    /// Every code the crates can emit (each crate's tests check that its every error and
    /// warning variant has a code in its table) has a section in the file its help URI names,
    /// and no two codes share an id.
    #[test]
    fn every_code_is_documented() {
        let files = [("rules.md", docs("rules.md")), ("diagnostics.md", docs("diagnostics.md"))];
        let mut ids = std::collections::HashSet::new();
        let catalog = catalog();
        assert!(catalog.len() > 100, "{}", catalog.len());
        for e in &catalog {
            assert!(ids.insert(e.code.id), "{} twice", e.code.id);
            let (_, text) = files.iter().find(|(name, _)| *name == e.doc).expect("a docs file");
            let heading = text.lines().find(|l| {
                let l = l.trim_start_matches('#');
                l.len() < text.len() && l.trim() == format!("{} {}", e.code.id, e.code.name)
            });
            assert!(heading.is_some(), "{} {} has no section in docs/{}", e.code.id, e.code.name, e.doc);
            assert!(e.help_uri().ends_with(&format!("docs/{}#{}", e.doc, e.anchor())), "{}", e.help_uri());
        }
    }

    /// In the SARIF log, every rule has a help URI to its section and its default level is
    /// the code's severity; every result's level is its diagnostic's severity.
    #[test]
    fn sarif_levels_match_severities_and_rules_link_their_docs() {
        let mut sarif = Sarif::new();
        let text = "---\nname: x\n---\nuser:\nhi\n";
        let index = LineIndex::new(text);
        let samples = [
            prompty_syntax::Diagnostic::warning(prompty_syntax::codes::LEGACY_KEY, 4..8, "v1"),
            prompty_wire::Warning::EmptyImagePrompt { provider: prompty_wire::Provider::OpenAi }.to_diagnostic(),
            prompty_eval::Error::NoDigit.to_diagnostic(),
        ];
        for d in &samples {
            sarif.push_diagnostic(Path::new("a.prompty"), Some((text, &index)), d, None);
        }
        let log = sarif.finish(&[]);
        let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules");
        let catalog = catalog();
        assert_eq!(rules.len(), catalog.len());
        for (rule, e) in rules.iter().zip(&catalog) {
            assert_eq!(rule["id"], e.code.id);
            assert_eq!(rule["defaultConfiguration"]["level"], sarif_level(e.severity), "{}", e.code.id);
            let uri = rule["helpUri"].as_str().expect("helpUri");
            assert!(uri.starts_with("https://") && uri.ends_with(&format!("#{}", e.anchor())), "{uri}");
        }
        let levels: Vec<&str> = catalog.iter().map(|e| sarif_level(e.severity)).collect();
        for level in ["error", "warning", "note"] {
            assert!(levels.contains(&level), "no rule at level {level}");
        }
        let results = log["runs"][0]["results"].as_array().expect("results");
        for (result, d) in results.iter().zip(&samples) {
            assert_eq!(result["level"], sarif_level(d.severity));
            let i = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
            assert_eq!(rules[i]["id"], d.code.id);
            assert_eq!(rules[i]["defaultConfiguration"]["level"], result["level"]);
        }
    }
}
