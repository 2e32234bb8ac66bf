//! The security contract as data: each file in `tests/security/` is a `.prompty` file with a
//! JSON header naming the runs (inputs and what must happen). One snapshot per file shows
//! what a user sees for each run: the messages, or the error with its code and location.
//! The expectation of each run (`rendered`, `contained`, `refused`, `safe`, `error`) is also
//! checked here in code, so that a wrong snapshot accepted by mistake still fails. The file
//! format is described in `tests/security/README.md`.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use prompty_render::{Error, ErrorKind, Limits, Message, Part, RenderOptions, Renderer};
use prompty_syntax::{LineIndex, LoadOptions, MapHost, Profile, load_str};
use serde::Deserialize;
use serde_json::{Map, Value};

/// A generous guard against a render that hangs, for debug builds; never a timing.
const HANG_GUARD: Duration = Duration::from_secs(120);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    /// What the case shows, in a sentence or two.
    about: String,
    /// `spec` or `promptflow`: render with this profile instead of the prompt's own.
    profile: Option<String>,
    /// Changes to the default render budget.
    #[serde(default)]
    limits: LimitsSpec,
    /// The roles thread inputs may carry.
    thread_roles: Option<Vec<String>>,
    /// Show the variables the template reads.
    #[serde(default)]
    variables: bool,
    /// Every run that renders gives exactly the messages of its plain text split the way the
    /// profile splits it (what the reference engines give).
    #[serde(default)]
    same_as_plain: bool,
    runs: Vec<Run>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsSpec {
    steps: Option<u64>,
    max_output: Option<usize>,
    max_nesting: Option<usize>,
    recursion: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Run {
    expect: Expect,
    #[serde(default)]
    inputs: Map<String, Value>,
    /// The input a refusal or error names (`null`: none).
    #[serde(default, deserialize_with = "present")]
    input: Option<Option<String>>,
    /// The error kind, for `expect: error` (`Limit`, `TemplateSyntax`, ...).
    kind: Option<String>,
    /// Also show the plain text render (`render_text`), marks never included.
    #[serde(default)]
    text: bool,
}

/// Tells an absent field (`None`) from an explicit `null` (`Some(None)`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Expect {
    /// The render succeeds.
    Rendered,
    /// The render succeeds with the messages (roles, names, tool call ids) of the case's
    /// first run: nothing in the inputs made a message boundary, name or tool call id.
    Contained,
    /// Refused as an injection, in one line, naming `input`.
    Refused,
    /// Either refused as an injection (one line, naming an input when a value is not
    /// empty), or what the case's first run gave: the same messages (roles, names, tool call
    /// ids), or an error that is not an injection when the first run failed too (the
    /// template's own text is at fault, whatever the values).
    Safe,
    /// Another error, of `kind`.
    Error,
}

#[test]
fn security_cases() {
    let mut failures = Vec::new();
    insta::glob!("../security", "*.txt", |path| {
        let file = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let (header, prompty) = split_case(&file).unwrap_or_else(|| panic!("{name}: no `---` line after the header"));
        let header: Header = serde_json::from_str(header).unwrap_or_else(|e| panic!("{name}: header: {e}"));
        let shown = run_case(&name, &header, prompty, &mut failures);
        insta::with_settings!({
            snapshot_path => "../security/snapshots",
            prepend_module_to_snapshot => false,
            description => header.about.as_str(),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(shown);
        });
    });
    assert!(failures.is_empty(), "{} runs break their expectation:\n{}", failures.len(), failures.join("\n"));
}

/// The JSON header and the `.prompty` text, which starts at the first line that is `---`.
fn split_case(file: &str) -> Option<(&str, &str)> {
    let at = if file.starts_with("---\n") { 0 } else { file.find("\n---\n")? + 1 };
    Some((&file[..at], &file[at..]))
}

fn renderer(name: &str, header: &Header, text: &str) -> Result<Renderer, Error> {
    let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
    let prompt = loaded.prompt.unwrap_or_else(|| panic!("{name}: the prompt loads: {:?}", loaded.diagnostics));
    let l = &header.limits;
    let d = Limits::DEFAULT;
    let limits = d
        .with_steps(l.steps.unwrap_or(d.steps))
        .with_max_output(l.max_output.unwrap_or(d.max_output))
        .with_max_nesting(l.max_nesting.unwrap_or(d.max_nesting))
        .with_recursion(l.recursion.unwrap_or(d.recursion));
    let profile = header.profile.as_deref().map(|p| match p {
        "spec" => Profile::Spec,
        "promptflow" => Profile::Promptflow,
        other => panic!("{name}: unknown profile {other:?}"),
    });
    let options =
        RenderOptions { limits, profile, source: Some(text.into()), thread_roles: header.thread_roles.clone() };
    Renderer::with_options(prompt, options)
}

/// Renders every run, checks its expectation, and returns what the snapshot shows. A
/// template refused when it compiles gives that error for every run.
fn run_case(name: &str, header: &Header, text: &str, failures: &mut Vec<String>) -> String {
    let index = LineIndex::new(text);
    let at = |e: &Error| e.span().map(|s| index.line_col(text, s.start));
    let mut out = String::new();
    let start = Instant::now();
    let compiled = renderer(name, header, text);
    assert!(start.elapsed() < HANG_GUARD, "{name}: compiling took {:?}", start.elapsed());
    match &compiled {
        Ok(r) => {
            let _ = writeln!(out, "profile: {}", if r.profile() == Profile::Spec { "spec" } else { "promptflow" });
            if header.variables {
                let _ = writeln!(out, "variables: {}", r.template_variables().join(", "));
            }
        }
        Err(e) => {
            out.push_str("compile ");
            show_error(&mut out, e, at(e));
        }
    }
    let mut baseline = None;
    for (i, run) in header.runs.iter().enumerate() {
        let what = format!("{name} run {}", i + 1);
        let start = Instant::now();
        let result = compiled.as_ref().map_err(Clone::clone).and_then(|r| r.prepare(&run.inputs));
        assert!(start.elapsed() < HANG_GUARD, "{what}: took {:?}", start.elapsed());
        let _ = writeln!(out, "\n[{}] {} {}", i + 1, expect_word(run.expect), json(&run.inputs));
        match (&result, &compiled) {
            (Ok(ms), _) => show_messages(&mut out, ms),
            // The compile error is shown once, above.
            (Err(_), Err(_)) => out.push_str("(the compile error)\n"),
            (Err(e), Ok(_)) => show_error(&mut out, e, at(e)),
        }
        if let (true, Ok(r)) = (run.text, &compiled) {
            match r.render_text(&run.inputs) {
                Ok(t) => {
                    let _ = writeln!(out, "text:");
                    show_block(&mut out, &t);
                }
                Err(e) => {
                    out.push_str("text ");
                    show_error(&mut out, &e, at(&e));
                    // An error of a render with marks points where the plain render's does.
                    if let Err(m) = &result
                        && at(m) != at(&e)
                    {
                        failures.push(format!("{what}: the marked and plain errors point apart"));
                    }
                }
            }
        }
        if let Err(why) = check(header, compiled.as_ref().ok(), run, &result, baseline.as_ref()) {
            failures.push(format!("{what}: {why}"));
        }
        if i == 0 {
            baseline = Some(result);
        }
    }
    out
}

fn expect_word(e: Expect) -> &'static str {
    match e {
        Expect::Rendered => "rendered",
        Expect::Contained => "contained",
        Expect::Refused => "refused",
        Expect::Safe => "safe",
        Expect::Error => "error",
    }
}

/// What must not change: each message's role, name and tool call id.
fn shape(ms: &[Message]) -> Vec<(&str, Option<&Value>, Option<&Value>)> {
    ms.iter().map(|m| (m.role.as_str(), m.metadata.get("name"), m.metadata.get("tool_call_id"))).collect()
}

/// Fails the run with a message unless the condition holds.
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

/// The run's expectation, and what holds for every run.
fn check(
    header: &Header,
    r: Option<&Renderer>,
    run: &Run,
    result: &Result<Vec<Message>, Error>,
    baseline: Option<&Result<Vec<Message>, Error>>,
) -> Result<(), String> {
    let contained = |ms: &[Message]| -> Result<(), String> {
        let base = baseline.and_then(|b| b.as_ref().ok()).ok_or("`contained` needs a first run that renders")?;
        ensure!(shape(ms) == shape(base), "the inputs changed the messages: {:?}, not {:?}", shape(ms), shape(base));
        Ok(())
    };
    let refused = |e: &Error| -> Result<(), String> {
        ensure!(e.kind() == ErrorKind::Injection, "not refused as an injection: {e}");
        ensure!(!e.to_string().contains(['\n', '\r']), "the error is not one line: {e:?}");
        Ok(())
    };
    match (run.expect, result) {
        (Expect::Rendered, Ok(_)) => {}
        (Expect::Contained | Expect::Safe, Ok(ms)) => contained(ms)?,
        (Expect::Refused, Err(e)) => {
            refused(e)?;
            let named = run.input.clone().ok_or("a refused run names its `input` (or null)")?;
            ensure!(e.input() == named.as_deref(), "names {:?}, not {named:?}: {e}", e.input());
        }
        (Expect::Safe, Err(e)) if e.kind() != ErrorKind::Injection => {
            ensure!(baseline.is_some_and(Result::is_err), "not refused as an injection: {e}");
        }
        (Expect::Safe, Err(e)) => {
            refused(e)?;
            let all_empty = run.inputs.values().all(no_text);
            ensure!(all_empty || e.input().is_some_and(|n| run.inputs.contains_key(n)), "names no input: {e}");
        }
        (Expect::Error, Err(e)) => {
            let kind = run.kind.as_deref().ok_or("an `error` run names its `kind`")?;
            ensure!(format!("{:?}", e.kind()) == kind, "not a {kind} error: {e}");
            if let Some(named) = &run.input {
                ensure!(e.input() == named.as_deref(), "names {:?}, not {named:?}: {e}", e.input());
            }
        }
        (expect, Ok(ms)) => return Err(format!("expected {expect:?}, rendered {:?}", shape(ms))),
        (expect, Err(e)) => return Err(format!("expected {expect:?}, got the error {e}")),
    }
    if let Ok(ms) = result {
        // Nothing of the renderer's marks or placeholders shows unless a value brought it.
        let given = Value::Object(run.inputs.clone());
        for m in ms {
            let shown = format!("{}{:?}", m.text_content(), m.metadata).to_lowercase();
            for needle in ["\u{2}", "\u{3}", "__prompty"] {
                ensure!(!shown.contains(needle) || holds(&given, needle), "{needle:?} shows: {shown:?}");
            }
        }
        if let (true, Some(r)) = (header.same_as_plain, r) {
            let text = r.render_text(&run.inputs).map_err(|e| format!("plain text: {e}"))?;
            let plain = match r.profile() {
                Profile::Spec => prompty_render::split_messages(&text),
                Profile::Promptflow => {
                    prompty_render::split_messages_promptflow(&text).map_err(|e| format!("plain split: {e}"))?
                }
            };
            ensure!(ms == &plain, "the messages differ from the plain text's: {ms:?}\n{plain:?}");
        }
    }
    Ok(())
}

/// Whether a string in the value (or a key) holds `needle`, in any ASCII case.
fn holds(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(s) => s.to_lowercase().contains(needle),
        Value::Array(a) => a.iter().any(|v| holds(v, needle)),
        Value::Object(o) => o.iter().any(|(k, v)| k.to_lowercase().contains(needle) || holds(v, needle)),
        _ => false,
    }
}

/// Whether every string in the value is empty.
fn no_text(v: &Value) -> bool {
    match v {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.iter().all(no_text),
        Value::Object(o) => o.values().all(no_text),
        _ => true,
    }
}

fn show_messages(out: &mut String, ms: &[Message]) {
    for m in ms {
        out.push_str(&m.role);
        if !m.metadata.is_empty() {
            let _ = write!(out, " {}", Value::Object(m.metadata.clone()));
        }
        out.push(':');
        let text = m.text_content();
        let only_text = m.content.iter().all(|p| matches!(p, Part::Text { .. }));
        if only_text && !text.contains('\n') {
            if !text.is_empty() {
                let _ = write!(out, " {}", escaped(&text));
            }
            out.push('\n');
            continue;
        }
        out.push('\n');
        for part in &m.content {
            match part {
                Part::Text { value } => show_block(out, value),
                other => {
                    let _ = writeln!(out, "  [{}]", serde_json::to_string(other).unwrap_or_default());
                }
            }
        }
    }
}

fn show_block(out: &mut String, text: &str) {
    for line in text.split('\n') {
        let _ = writeln!(out, "  | {}", escaped(line));
    }
}

fn show_error(out: &mut String, e: &Error, at: Option<(usize, usize)>) {
    let code = e.code();
    let _ = write!(out, "error {} {}", code.id, code.name);
    if let Some((line, col)) = at {
        let _ = write!(out, " at {line}:{col}");
    }
    if let Some(input) = e.input() {
        let _ = write!(out, " (input `{input}`)");
    }
    let _ = writeln!(out, ": {}", escaped(&e.to_string()));
}

/// The inputs as one line of JSON, with the characters one cannot see as `\\u` escapes.
fn json(inputs: &Map<String, Value>) -> String {
    let mut out = String::new();
    for c in Value::Object(inputs.clone()).to_string().chars() {
        if invisible(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A character that shows as nothing or as a plain space.
fn invisible(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{3000}' | '\u{a0}' | '\u{200b}' | '\u{85}')
}

/// Text with the characters one cannot see written as escapes: carriage returns, tabs,
/// other control characters and Unicode line separators and spaces.
fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            c if invisible(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

#[test]
fn case_files_split_at_the_first_front_matter_line() {
    assert_eq!(split_case("{}\n---\nname: t\n---\nuser:\n"), Some(("{}\n", "---\nname: t\n---\nuser:\n")));
    assert_eq!(split_case("{\"a\": 1}\n"), None);
    assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/security/README.md").is_file());
}
