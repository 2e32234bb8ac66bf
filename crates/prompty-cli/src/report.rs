//! How the commands report: every diagnostic becomes a [`Message`] (the diagnostic, its file
//! and source) written by one of `prompty_report`'s emitters. `check` writes them on standard
//! output; the commands that load one prompt (`load`, `render`, `compile`, `score`, `run`,
//! `eval`, `batch`) write them on standard error, in the form `--error-format` names, through
//! the [`Reporter`] `main` makes and hands to them.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use clap::ValueEnum;
pub(crate) use prompty_report::Message;
use prompty_report::{Emitter, Rule, SourceFile};
use prompty_syntax::Diagnostic;

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

/// A diagnostic at its span in `text`.
pub(crate) fn at(file: &Path, text: &Arc<str>, diagnostic: Diagnostic) -> Message {
    Message::new(SourceFile::new(file.display().to_string(), text.clone()), diagnostic)
}

/// A diagnostic about the file as a whole.
pub(crate) fn whole(file: &Path, diagnostic: Diagnostic) -> Message {
    Message::new(SourceFile::unlocated(file.display().to_string()), diagnostic)
}

/// A lint finding of `file` (whose text is `source`) as a message with its fix.
pub(crate) fn finding(source: &Arc<SourceFile>, f: &prompty_lint::Finding) -> Message {
    Message::new(source.clone(), f.diagnostic.clone()).with_fix(f.fix.as_ref().map(|fix| prompty_report::Edit {
        title: fix.title.clone(),
        span: fix.span.clone(),
        replacement: fix.replacement.clone(),
        safe: fix.applicability == prompty_lint::Applicability::Safe,
    }))
}

/// The SARIF emitter of `prompty`, its rules every code the toolkit reports.
pub(crate) fn sarif() -> prompty_report::Sarif {
    prompty_report::Sarif::new("prompty", env!("CARGO_PKG_VERSION"), catalog().into_iter().map(|e| e.rule).collect())
}

/// The emitter of a form; `color` for the human form.
pub(crate) fn emitter(format: Format, color: bool) -> Box<dyn Emitter + Send> {
    match format {
        Format::Human => Box::new(prompty_report::Human { style: prompty_report::human::Style { color, width: 100 } }),
        Format::Json => Box::new(prompty_report::Json),
        Format::Github => Box::new(prompty_report::Github),
        Format::Sarif => Box::new(sarif()),
    }
}

/// The reporter of the commands that load one prompt: diagnostics and failures on standard
/// error, in one form; SARIF keeps everything for [`Reporter::finish`]. Commands that run
/// rows on several threads share it.
pub(crate) struct Reporter {
    format: Format,
    emitter: Mutex<Box<dyn Emitter + Send>>,
    failures: Mutex<Vec<String>>,
}

impl Reporter {
    /// A reporter writing `format`.
    pub(crate) fn new(format: Format) -> Self {
        let emitter = emitter(format, std::io::stderr().is_terminal());
        Reporter { format, emitter: Mutex::new(emitter), failures: Mutex::new(Vec::new()) }
    }

    /// Writes one diagnostic on standard error (SARIF: keeps it for [`Reporter::finish`]).
    pub(crate) fn emit(&self, message: &Message) {
        let mut emitter = self.emitter.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = emitter.emit(&mut std::io::stderr().lock(), std::slice::from_ref(message));
    }

    /// Reports a failure that is no diagnostic (a file that cannot be read, a bad flag):
    /// `error:` and the message on standard error; SARIF also carries it as a notification.
    pub(crate) fn fail(&self, message: &str) {
        let _ = writeln!(std::io::stderr().lock(), "error: {}", message.trim_end());
        if self.format == Format::Sarif {
            self.failures.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(message.trim_end().to_owned());
        }
    }

    /// Ends the report: in SARIF, writes the log of everything reported (on standard error).
    pub(crate) fn finish(self) {
        let failures = self.failures.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut emitter = self.emitter.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = emitter.finish(&mut std::io::stderr().lock(), &failures);
    }

    /// Reports what the wire compiler left out or changed in the request for `file`.
    pub(crate) fn wire_warnings(&self, file: &Path, warnings: &[prompty_wire::Warning]) {
        for w in warnings {
            self.emit(&whole(file, w.to_diagnostic()));
        }
    }
}

/// A code as the reference documents it.
pub(crate) struct Entry {
    /// What SARIF says of it.
    pub(crate) rule: Rule,
    /// Which part of the toolkit reports it (groups `docs/diagnostics.md`).
    pub(crate) origin: &'static str,
}

fn from_info(info: &prompty_syntax::CodeInfo, origin: &'static str) -> Entry {
    Entry {
        rule: Rule {
            code: info.code,
            severity: info.severity,
            summary: info.summary.to_owned(),
            help: None,
            fixable: false,
        },
        origin,
    }
}

/// Every code the toolkit reports, in the order SARIF `ruleIndex` counts: the loader's,
/// the lint rules, then the renderer's, the wire compiler's and the evaluator's.
pub(crate) fn catalog() -> Vec<Entry> {
    let mut all: Vec<Entry> = prompty_syntax::codes::infos().map(|i| from_info(&i, "loader")).collect();
    all.extend(prompty_lint::rules().map(|r| Entry {
        rule: Rule {
            code: r.code,
            severity: r.severity,
            summary: r.summary(),
            help: Some(r.docs.lines().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n")),
            fixable: r.fixable(),
        },
        origin: "lint",
    }));
    all.extend(prompty_render::codes::ALL.iter().map(|i| from_info(i, "render")));
    all.extend(prompty_wire::codes::ALL.iter().map(|i| from_info(i, "wire")));
    all.extend(prompty_eval::codes::ALL.iter().map(|i| from_info(i, "eval")));
    all.extend(prompty_config::codes::ALL.iter().map(|i| from_info(i, "config")));
    all.extend(prompty_client::codes::ALL.iter().map(|i| from_info(i, "client")));
    all
}

/// The body of a code's section in `docs/diagnostics.md` (and of `prompty rule CODE`):
/// its severity and what it means.
pub(crate) fn code_section(r: &Rule) -> String {
    format!("Severity: {}.\n\n{}\n", r.severity, r.summary)
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
            "client",
            "Client (`PC0xx` before a request, `PC1xx` for one that failed)",
            "Reported by `run` and `eval --judge` when no request can be made as the prompt and the settings say (an endpoint that is not trusted, an unset connection variable), or when one was made and failed. They are about the prompt as a whole. In `eval`, a row whose request failed is written with its row error instead (`PE1xx`).",
        ),
        (
            "config",
            "Configuration (`PT0xx`)",
            "Reported when `prompty.toml` cannot be applied, by `prompty check` (exit code 2; in the JSON, GitHub and SARIF forms as a diagnostic at its place in the file) and by the language server (on every open prompt the file configures, with the place in `prompty.toml` as related information).",
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
    out.push_str("stable: they are never renumbered, only added. `prompty rule CODE` prints a code's section\n");
    out.push_str("offline. The JSON form's `url` and SARIF's `helpUri` link a code's section only in a build\n");
    out.push_str("that says where these pages are published (`PROMPTY_DOCS_URL`); otherwise `url` is `null`,\n");
    out.push_str("SARIF leaves `helpUri` out and carries the text in each rule's `help`.\n");
    let catalog = catalog();
    for (origin, title, about) in groups {
        let _ = write!(out, "\n## {title}\n\n{about}\n");
        for e in catalog.iter().filter(|e| e.origin == origin) {
            let r = &e.rule;
            let _ = write!(out, "\n### {} {}\n\n{}", r.code.id, r.code.name, code_section(r));
        }
    }
    out
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
    /// warning variant has a code in its table) has a section in the page its link names,
    /// and no two codes share an id.
    #[test]
    fn every_code_is_documented() {
        let files = [("rules.md", docs("rules.md")), ("diagnostics.md", docs("diagnostics.md"))];
        let mut ids = std::collections::HashSet::new();
        let catalog = catalog();
        assert!(catalog.len() > 100, "{}", catalog.len());
        for e in &catalog {
            let code = e.rule.code;
            assert!(ids.insert(code.id), "{} twice", code.id);
            let page = prompty_report::doc_page(code);
            let (_, text) = files.iter().find(|(name, _)| *name == page).expect("a docs file");
            let heading = text.lines().find(|l| {
                let l = l.trim_start_matches('#');
                l.len() < text.len() && l.trim() == format!("{} {}", code.id, code.name)
            });
            assert!(heading.is_some(), "{} {} has no section in docs/{page}", code.id, code.name);
        }
    }

    /// In the SARIF log, every rule has its documentation (and a link only to published
    /// pages) and its default level is
    /// the code's severity; every result's level is its diagnostic's severity.
    #[test]
    fn sarif_levels_match_severities_and_rules_link_their_docs() {
        use prompty_report::sarif_level;
        let text: Arc<str> = Arc::from("---\nname: x\n---\nuser:\nhi\n");
        let samples = [
            prompty_syntax::Diagnostic::warning(prompty_syntax::codes::LEGACY_KEY, 4..8, "v1"),
            prompty_wire::Warning::EmptyImagePrompt { provider: prompty_wire::Provider::OpenAi }.to_diagnostic(),
            prompty_eval::Error::NoDigit.to_diagnostic(),
        ];
        let messages: Vec<Message> = samples.iter().map(|d| at(Path::new("a.prompty"), &text, d.clone())).collect();
        let mut sarif = sarif();
        sarif.emit(&mut std::io::sink(), &messages).expect("kept");
        let log = sarif.log(&[]);
        let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules");
        let catalog = catalog();
        assert_eq!(rules.len(), catalog.len());
        for (rule, e) in rules.iter().zip(&catalog) {
            let code = e.rule.code;
            assert_eq!(rule["id"], code.id);
            assert_eq!(rule["defaultConfiguration"]["level"], sarif_level(e.rule.severity), "{}", code.id);
            // A link only where the pages are published (not in this build: no dead link);
            // the documentation itself is in `help`, with how to read it offline.
            assert_eq!(
                rule["helpUri"].as_str().map(str::to_owned),
                prompty_report::doc_url(prompty_report::DOCS_URL, code)
            );
            let help = rule["help"]["text"].as_str().expect("help");
            assert!(help.ends_with(&format!("`prompty rule {}` prints this documentation.", code.id)), "{help}");
        }
        let levels: Vec<&str> = catalog.iter().map(|e| sarif_level(e.rule.severity)).collect();
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
