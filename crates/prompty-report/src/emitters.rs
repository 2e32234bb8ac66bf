//! The emitters: each writes the same messages in one form.

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use crate::docs::DOCS_URL as DEFAULT_DOCS;
use crate::human::{Source, Style, draw_unlocated};
use crate::{Emitter, Message, Rule, doc_url, severity_word};
use prompty_syntax::Severity;

/// miette's graphical report: severity, code and name, the message, the file's lines around
/// the span underlined, and the help. A message about a whole file is its name, `:` and the
/// message.
#[derive(Debug, Clone, Copy, Default)]
pub struct Human {
    /// Colours and width.
    pub style: Style,
}

impl Emitter for Human {
    fn emit(&mut self, out: &mut dyn io::Write, messages: &[Message]) -> io::Result<()> {
        let mut i = 0;
        while let Some(first) = messages.get(i) {
            // One index of the file for each run of messages about it.
            let run = messages[i..].iter().take_while(|m| Arc::ptr_eq(&m.file, &first.file)).count().max(1);
            match first.file.text() {
                Some(text) => {
                    let source = Source::new(first.file.name(), text);
                    for m in &messages[i..i + run] {
                        write!(out, "{}", source.draw(&with_fix_note(m), &self.style))?;
                    }
                }
                None => {
                    for m in &messages[i..i + run] {
                        let mut d = m.diagnostic.clone();
                        d.message = format!("{}: {}", m.file.name(), d.message);
                        write!(out, "{}", draw_unlocated(&d, &self.style))?;
                    }
                }
            }
            i += run;
        }
        Ok(())
    }
}

/// The diagnostic with the edit that resolves it named in its help.
fn with_fix_note(m: &Message) -> prompty_syntax::Diagnostic {
    let mut d = m.diagnostic.clone();
    if let Some(fix) = &m.fix {
        let note = if fix.safe {
            format!("--fix can {}", fix.title)
        } else {
            format!("--fix --unsafe-fixes can {} (this changes what the prompt sends)", fix.title)
        };
        d.help = Some(match d.help {
            Some(h) => format!("{h}\n{note}"),
            None => note,
        });
    }
    d
}

/// One line per message, as compilers print them: `file:line:col: severity: message [CODE]`
/// (`file: severity: message [CODE]` when it points nowhere), for problem matchers and `grep`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Concise;

impl Concise {
    /// One message's line, without the line break.
    pub fn line(m: &Message) -> String {
        let d = &m.diagnostic;
        let severity = severity_word(d.severity);
        let message = d.message.replace(['\n', '\r'], " ");
        let fixable = match &m.fix {
            Some(fix) if fix.safe => " (fixable with --fix)",
            Some(_) => " (fixable with --fix --unsafe-fixes)",
            None => "",
        };
        let name = m.file.name();
        match m.file.line_col(d.span.start) {
            Some((line, column)) => format!("{name}:{line}:{column}: {severity}: {message} [{}]{fixable}", d.code.id),
            None => format!("{name}: {severity}: {message} [{}]{fixable}", d.code.id),
        }
    }
}

impl Emitter for Concise {
    fn emit(&mut self, out: &mut dyn io::Write, messages: &[Message]) -> io::Result<()> {
        for m in messages {
            writeln!(out, "{}", Concise::line(m))?;
        }
        Ok(())
    }
}

/// One message as a JSON object with 1-based positions (`null` when it points nowhere).
#[derive(Debug, Serialize)]
struct JsonMessage<'a> {
    file: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
    code: &'a str,
    name: &'a str,
    severity: Severity,
    message: &'a str,
    help: Option<&'a str>,
    url: Option<String>,
}

/// One JSON object per line: `file`, `line`, `column`, `end_line`, `end_column`, `code`,
/// `name`, `severity`, `message`, `help`, `url` (`null` unless the build says where the
/// documentation is published: [`DOCS_URL`](crate::DOCS_URL)).
#[derive(Debug, Clone, Copy, Default)]
pub struct Json;

impl Json {
    /// One message as its JSON object.
    pub fn value(m: &Message) -> Value {
        let d = &m.diagnostic;
        let region = m.region();
        let j = JsonMessage {
            file: m.file.name(),
            line: region.map(|r| r.0.0),
            column: region.map(|r| r.0.1),
            end_line: region.map(|r| r.1.0),
            end_column: region.map(|r| r.1.1),
            code: d.code.id,
            name: d.code.name,
            severity: d.severity,
            message: &d.message,
            help: d.help.as_deref(),
            url: doc_url(DEFAULT_DOCS, d.code),
        };
        serde_json::to_value(j).unwrap_or(Value::Null)
    }
}

impl Emitter for Json {
    fn emit(&mut self, out: &mut dyn io::Write, messages: &[Message]) -> io::Result<()> {
        for m in messages {
            serde_json::to_writer(&mut *out, &Json::value(m))?;
            writeln!(out)?;
        }
        Ok(())
    }
}

/// GitHub Actions workflow commands: an annotation on the pull request's diff per message.
#[derive(Debug, Clone, Copy, Default)]
pub struct Github;

/// Escapes a workflow command's message.
fn github_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn github_property(s: &str) -> String {
    github_data(s).replace(':', "%3A").replace(',', "%2C")
}

impl Github {
    /// One message's workflow command, without the line break.
    pub fn line(m: &Message) -> String {
        let d = &m.diagnostic;
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let position = match m.region() {
            Some(((l, c), (el, ec))) => format!(",line={l},col={c},endLine={el},endColumn={ec}"),
            None => String::new(),
        };
        format!(
            "::{level} file={}{position},title={}::{}",
            github_property(m.file.name()),
            github_property(d.code.id),
            github_data(&m.text_with_help())
        )
    }
}

impl Emitter for Github {
    fn emit(&mut self, out: &mut dyn io::Write, messages: &[Message]) -> io::Result<()> {
        for m in messages {
            writeln!(out, "{}", Github::line(m))?;
        }
        Ok(())
    }
}

/// One SARIF 2.1.0 log of every message emitted, written by [`Emitter::finish`]: one run of
/// the tool, its rules the codes it was made with (each with its level, documentation link
/// and full text), results pointing at their rule, fixes as artifact changes, failures as
/// tool execution notifications.
#[derive(Debug)]
pub struct Sarif {
    tool: String,
    version: String,
    rules: Vec<Rule>,
    index: HashMap<&'static str, usize>,
    results: Vec<Value>,
}

/// A relative path as a URI reference (forward slashes, reserved bytes percent-encoded).
fn uri(path: &str) -> String {
    let s = Path::new(path).to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(char::from(b)),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A severity as a SARIF level.
pub fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

impl Sarif {
    /// A log of the tool `tool` at `version`, which may report the codes of `rules`.
    pub fn new(tool: &str, version: &str, rules: Vec<Rule>) -> Self {
        let index = rules.iter().enumerate().map(|(i, r)| (r.code.id, i)).collect();
        Sarif { tool: tool.to_owned(), version: version.to_owned(), rules, index, results: Vec::new() }
    }

    /// Keeps one message as a result.
    pub fn push(&mut self, m: &Message) {
        let d = &m.diagnostic;
        let artifact = json!({"uri": uri(m.file.name())});
        let mut physical = json!({"artifactLocation": artifact});
        if let Some(((l, c), (el, ec))) = m.region() {
            physical["region"] = json!({
                "startLine": l,
                "startColumn": c,
                "endLine": el,
                "endColumn": ec,
                "byteOffset": d.span.start,
                "byteLength": d.span.end.saturating_sub(d.span.start),
            });
        }
        let mut result = json!({
            "ruleId": d.code.id,
            "level": sarif_level(d.severity),
            "message": {"text": m.text_with_help()},
            "locations": [{"physicalLocation": physical}],
        });
        if let (Some(&i), Some(obj)) = (self.index.get(d.code.id), result.as_object_mut()) {
            obj.insert("ruleIndex".into(), i.into());
        }
        if let (Some(fix), Some(obj)) = (&m.fix, result.as_object_mut()) {
            obj.insert(
                "fixes".into(),
                json!([{
                    "description": {"text": fix.title},
                    "artifactChanges": [{
                        "artifactLocation": artifact,
                        "replacements": [{
                            "deletedRegion": {
                                "byteOffset": fix.span.start,
                                "byteLength": fix.span.end.saturating_sub(fix.span.start),
                            },
                            "insertedContent": {"text": fix.replacement},
                        }],
                    }],
                    "properties": {"safe": fix.safe},
                }]),
            );
        }
        self.results.push(result);
    }

    /// The whole log, `failures` as tool execution notifications.
    pub fn log(&self, failures: &[String]) -> Value {
        let rules: Vec<Value> = self
            .rules
            .iter()
            .map(|r| {
                let mut rule = json!({
                    "id": r.code.id,
                    "name": r.code.name,
                    "shortDescription": {"text": r.summary},
                    "fullDescription": {"text": r.summary},
                    "defaultConfiguration": {"level": sarif_level(r.severity)},
                    "properties": {"fixable": r.fixable},
                });
                // A link only to published pages; the documentation itself travels in `help`
                // (`prompty rule CODE` prints the same text).
                if let Some(uri) = doc_url(DEFAULT_DOCS, r.code) {
                    rule["helpUri"] = json!(uri);
                }
                let offline = format!("`prompty rule {}` prints this documentation.", r.code.id);
                rule["help"] = match &r.help {
                    Some(help) => {
                        json!({"text": format!("{help}\n\n{offline}"), "markdown": format!("{help}\n\n{offline}")})
                    }
                    None => json!({"text": format!("{}\n\n{offline}", r.summary)}),
                };
                rule
            })
            .collect();
        let mut log = json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {"name": self.tool, "semanticVersion": self.version, "rules": rules}},
                "columnKind": "unicodeCodePoints",
                "results": self.results,
            }],
        });
        if !failures.is_empty() {
            let notes: Vec<Value> =
                failures.iter().map(|f| json!({"level": "error", "message": {"text": f}})).collect();
            log["runs"][0]["invocations"] =
                json!([{"executionSuccessful": false, "toolExecutionNotifications": notes}]);
        }
        log
    }
}

impl Emitter for Sarif {
    fn emit(&mut self, _out: &mut dyn io::Write, messages: &[Message]) -> io::Result<()> {
        for m in messages {
            self.push(m);
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn io::Write, failures: &[String]) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &self.log(failures))?;
        writeln!(out)
    }
}
