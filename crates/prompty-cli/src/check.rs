//! `prompty check PATH...`: load every prompt, lint it, and report every finding.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::ValueEnum;
use prompty_config::Configs;
use prompty_lint::{Applicability, Finding, Selection};
use prompty_syntax::{Host, LineIndex, LoadOptions, Loaded, Severity, load_bytes};

use crate::files::{self, WriteError};
use crate::host::cli_host;
use crate::inputs::describe_io;
use crate::report::{self, Message};
use prompty_report::human::Style;
use prompty_report::{Emitter, SourceFile};

#[derive(clap::Args)]
#[command(
    after_help = "Every finding fails the check (exit 1) unless --exit-zero, --fail-on or --max-warnings says otherwise.\n\
    `prompty rule CODE` prints what a finding's code means, why it matters, an example and its fix, offline."
)]
pub(crate) struct CheckArgs {
    /// Files and folders; folders are searched recursively for *.prompty. `-` reads
    /// standard input.
    #[arg(required_unless_present_any = ["list_rules", "stdin_filename"])]
    paths: Vec<PathBuf>,
    /// Output format: human (default), concise (one line per finding), json (one object per
    /// line), github (workflow annotations) or sarif (SARIF 2.1.0).
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    format: CheckFormat,
    /// Apply the safe fixes of fixable findings to the files (those that leave what the
    /// prompt sends unchanged), then report what remains.
    #[arg(long)]
    fix: bool,
    /// With --fix, also apply the unsafe fixes: those that change the messages or the
    /// request (a misspelt role line that starts a message once fixed, for instance).
    #[arg(long, requires = "fix")]
    unsafe_fixes: bool,
    /// Use this configuration file instead of the nearest `prompty.toml` above each file.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Report only these codes, prefixes or rule names (comma-separated, repeatable);
    /// replaces the configuration's selection.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    select: Option<Vec<String>>,
    /// Report these codes as well as the selected ones.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    extend_select: Vec<String>,
    /// Do not report these codes.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    ignore: Vec<String>,
    /// Exit with 0 even when findings are reported (I/O failures still exit with 2).
    #[arg(long)]
    exit_zero: bool,
    /// The least severe finding that fails the check (exit 1): `info` (every finding, the
    /// default), `warning` or `error`; overrides `[lint] fail-on` in `prompty.toml`.
    #[arg(long, value_enum, value_name = "SEVERITY")]
    fail_on: Option<FailOn>,
    /// Let up to N warnings (and info findings) pass; more than N fail the check. Errors
    /// always fail.
    #[arg(long, value_name = "N")]
    max_warnings: Option<usize>,
    /// The name standard input (`-`) is reported under; the configuration and
    /// `${file:}` references are looked up from it.
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<PathBuf>,
    /// Print the findings and nothing else (no summary, no `fixed:` lines).
    #[arg(long, short)]
    quiet: bool,
    /// List every code `check` can report (with --format json: one object per line) and exit.
    #[arg(long)]
    list_rules: bool,
    /// Another folder `${file:}` references may read from (repeatable).
    #[arg(long = "allow-root", value_name = "DIR")]
    allow_roots: Vec<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum FailOn {
    Info,
    Warning,
    Error,
}

impl FailOn {
    fn severity(self) -> Severity {
        match self {
            FailOn::Info => Severity::Info,
            FailOn::Warning => Severity::Warning,
            FailOn::Error => Severity::Error,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum CheckFormat {
    Human,
    Concise,
    Json,
    Github,
    Sarif,
}

/// Every `*.prompty` under `path` (or `path` itself when it is a file), sorted; the first
/// folder that cannot be read is an error.
pub(crate) fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let mut unreadable = Vec::new();
    collect_all(path, out, &mut unreadable)?;
    match unreadable.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Every `*.prompty` under `path` (or `path` itself when it is a file), sorted. `path`
/// itself must exist; a folder found inside that cannot be read (or listed to the end) is
/// recorded in `unreadable` and the walk goes on with the rest.
pub(crate) fn collect_all(path: &Path, out: &mut Vec<PathBuf>, unreadable: &mut Vec<String>) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {}", path.display(), describe_io(&e)))?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    if !meta.is_dir() {
        return Err(format!("{}: not a regular file or folder", path.display()));
    }
    walk(path, out, unreadable);
    Ok(())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, unreadable: &mut Vec<String>) {
    let listing = match std::fs::read_dir(dir) {
        Ok(l) => l,
        Err(e) => {
            unreadable.push(format!("{}: cannot read the folder: {}", dir.display(), describe_io(&e)));
            return;
        }
    };
    let mut entries = Vec::new();
    for entry in listing {
        match entry.and_then(|e| Ok((e.path(), e.file_type()?))) {
            Ok(e) => entries.push(e),
            Err(e) => {
                unreadable.push(format!("{}: cannot list the folder: {}", dir.display(), describe_io(&e)));
                break;
            }
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (entry, ft) in entries {
        if ft.is_dir() {
            let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                walk(&entry, out, unreadable);
            }
        } else if entry.extension().is_some_and(|e| e == "prompty") {
            out.push(entry);
        }
    }
}

/// One file to check: where it is read from and the name it is reported under.
struct Input {
    /// The name in the output; `${file:}` references and the configuration are looked up
    /// from it.
    name: PathBuf,
    /// Standard input's bytes, when the file is `-`.
    stdin: Option<Vec<u8>>,
}

/// What checking one file produced, rendered, so that files can be checked in parallel and
/// printed in order.
#[derive(Default)]
struct FileOutput {
    stdout: String,
    /// `fixed:` lines.
    notes: String,
    /// I/O failures, as reported on stderr.
    failures: Vec<String>,
    errors: usize,
    warnings: usize,
    infos: usize,
    /// Warnings and info findings at or above the file's `fail-on` severity.
    failing_minor: usize,
    fixed: usize,
    /// Fixes left unapplied because they are unsafe and `--unsafe-fixes` is not given.
    unsafe_available: usize,
    io_failure: bool,
    /// Findings kept for the one SARIF log.
    sarif: Vec<Message>,
}

pub(crate) fn run(args: &CheckArgs) -> ExitCode {
    let mut stderr = std::io::stderr().lock();
    let mut out = std::io::stdout().lock();
    if args.list_rules {
        let _ = list_rules(&mut out, args.format);
        return ExitCode::SUCCESS;
    }
    let mut sources = Vec::new();
    let mut unreadable = Vec::new();
    let reads_stdin = args.paths.iter().any(|p| p.as_os_str() == "-") || args.paths.is_empty();
    for p in &args.paths {
        if p.as_os_str() == "-" {
            continue;
        }
        let mut files = Vec::new();
        if let Err(e) = collect_all(p, &mut files, &mut unreadable) {
            let _ = writeln!(stderr, "error: {e}");
            return ExitCode::from(2);
        }
        sources.extend(files.into_iter().map(|name| Input { name, stdin: None }));
    }
    if reads_stdin {
        if args.fix {
            let _ = writeln!(stderr, "error: --fix cannot rewrite standard input; run it on the file");
            return ExitCode::from(2);
        }
        // One byte over the loader's limit is enough for it to report the size.
        let mut bytes = Vec::new();
        let limit = prompty_syntax::MAX_FILE_BYTES as u64 + 1;
        if let Err(e) = std::io::stdin().lock().take(limit).read_to_end(&mut bytes) {
            let _ = writeln!(stderr, "error: cannot read standard input: {}", describe_io(&e));
            return ExitCode::from(2);
        }
        let name = args.stdin_filename.clone().unwrap_or_else(|| PathBuf::from("-"));
        sources.push(Input { name, stdin: Some(bytes) });
    }
    let mut failures = Vec::new();
    // A folder that cannot be read is reported and skipped; the rest is still checked.
    for e in &unreadable {
        let message = format!("{e}; skipped");
        let _ = writeln!(stderr, "error: {message}");
        failures.push(message);
    }
    let color = use_color(std::io::stdout().is_terminal(), std::env::var_os("NO_COLOR").as_deref());
    let style = Style { color, width: 100 };
    let mut configs = Configs::default();
    let mut selections = Vec::with_capacity(sources.len());
    for source in &sources {
        match settings(args, &mut configs, &source.name) {
            Ok(s) => selections.push(s),
            Err(SelectionError::Flag(e)) => {
                let _ = writeln!(stderr, "error: {e}");
                return ExitCode::from(2);
            }
            Err(SelectionError::Config(e)) => {
                report_config_error(args.format, &e, &failures, &mut out, &mut stderr);
                return ExitCode::from(2);
            }
        }
    }
    let (mut errors, mut warnings, mut infos, mut failing_minor) = (0, 0, 0, 0);
    let (mut fixed, mut unsafe_available, mut io_failures) = (0, 0, 0);
    let mut sarif = report::sarif();
    for_each_in_order(
        sources.len(),
        |i| check_source(args, &sources[i], &selections[i], style),
        |output| {
            for failure in &output.failures {
                let _ = writeln!(stderr, "error: {failure}");
            }
            failures.extend(output.failures);
            if !args.quiet {
                let _ = write!(stderr, "{}", output.notes);
            }
            let _ = write!(out, "{}", output.stdout);
            errors += output.errors;
            warnings += output.warnings;
            infos += output.infos;
            failing_minor += output.failing_minor;
            fixed += output.fixed;
            unsafe_available += output.unsafe_available;
            io_failures += usize::from(output.io_failure);
            let _ = sarif.emit(&mut std::io::sink(), &output.sarif);
        },
    );
    if args.format == CheckFormat::Sarif {
        let _ = sarif.finish(&mut out, &failures);
    }
    let too_many = args.max_warnings.filter(|&max| warnings > max);
    // Every finding at or above its file's `fail-on` fails (all of them unless configured
    // otherwise); `--max-warnings N` lets up to N warnings pass instead.
    let minor_fail = match args.max_warnings {
        Some(_) => too_many.is_some(),
        None => failing_minor > 0,
    };
    if matches!(args.format, CheckFormat::Human | CheckFormat::Concise) && !args.quiet {
        let fixed = if args.fix { format!(", fixed {fixed} problem{}", plural(fixed)) } else { String::new() };
        let mut unread = match io_failures {
            0 => String::new(),
            n => format!(", {n} file{} could not be read", plural(n)),
        };
        if !unreadable.is_empty() {
            let n = unreadable.len();
            unread.push_str(&format!(", {n} folder{} could not be read", plural(n)));
        }
        let n = sources.len();
        let infos = if infos > 0 { format!(", {infos} info") } else { String::new() };
        let _ = writeln!(
            stderr,
            "checked {n} file{}: {errors} error{}, {warnings} warning{}{infos}{unread}{fixed}",
            plural(n),
            plural(errors),
            plural(warnings)
        );
        if errors == 0 && minor_fail && too_many.is_none() && !args.exit_zero {
            let _ = writeln!(
                stderr,
                "note: every finding fails the check; `--fail-on error` (or `fail-on = \"error\"` under `[lint]` in prompty.toml) lets warnings pass, `--exit-zero` reports without failing"
            );
        }
        if unsafe_available > 0 {
            let (n, what) = match unsafe_available {
                1 => (1, "fix is available with --fix --unsafe-fixes (it changes what the prompt sends; review it)"),
                n => (
                    n,
                    "fixes are available with --fix --unsafe-fixes (they change what the prompt sends; review them)",
                ),
            };
            let _ = writeln!(stderr, "note: {n} unsafe {what}");
        }
    }
    if let Some(max) = too_many {
        let _ = writeln!(stderr, "error: {warnings} warning{} found; --max-warnings allows {max}", plural(warnings));
    }
    if io_failures + unreadable.len() > 0 {
        ExitCode::from(2)
    } else if args.exit_zero {
        ExitCode::SUCCESS
    } else if errors > 0 || minor_fail {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Whether human output is coloured: on a terminal, unless `NO_COLOR` is set to a non-empty
/// value (no-color.org).
fn use_color(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty())
}

/// The codes to report for `file`: the configuration's selection, then the command line's
/// (`--select` replaces it, `--extend-select` adds, `--ignore` removes).
/// Why no selection of codes could be made for a file.
enum SelectionError {
    /// A selector given on the command line.
    Flag(String),
    /// The file's `prompty.toml`.
    Config(prompty_config::ConfigError),
}

fn settings(args: &CheckArgs, configs: &mut Configs, file: &Path) -> Result<FileSettings, SelectionError> {
    let flag = |flag: &'static str| move |e: prompty_lint::SelectorError| SelectionError::Flag(format!("{flag}: {e}"));
    // The configuration is read only when a flag does not replace all it says.
    let config = match (&args.select, args.fail_on) {
        (Some(_), Some(_)) => prompty_config::LintSettings { selection: Selection::all(), fail_on: None },
        _ => configs.settings(file, args.config.as_deref(), &cli_host()).map_err(SelectionError::Config)?,
    };
    let mut selection = match &args.select {
        Some(list) => Selection::only(list).map_err(flag("--select"))?,
        None => config.selection,
    };
    selection.select(&args.extend_select).map_err(flag("--extend-select"))?;
    selection.ignore(&args.ignore).map_err(flag("--ignore"))?;
    let fail_on = args.fail_on.map(FailOn::severity).or(config.fail_on).unwrap_or(Severity::Info);
    Ok(FileSettings { selection, fail_on })
}

/// What applies to one checked file.
struct FileSettings {
    selection: Selection,
    /// The least severe finding that fails the check.
    fail_on: Severity,
}

/// A `prompty.toml` that cannot be applied: for people, `error:` and where on standard
/// error; for machines, its diagnostic (code and span in the configuration file) in the
/// report on standard output, so that an annotation lands on the line to fix.
fn report_config_error(
    format: CheckFormat,
    e: &prompty_config::ConfigError,
    failures: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) {
    // Named as the user's files are: relative to the working folder when inside it.
    let cwd = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok());
    let name = cwd.and_then(|d| e.path().strip_prefix(d).ok().map(Path::to_path_buf));
    let name = name.unwrap_or_else(|| e.path().to_path_buf()).display().to_string();
    let source = match (e.span(), cli_host().read_to_string(e.path())) {
        (Some(_), Ok(text)) => SourceFile::new(name, text),
        _ => SourceFile::unlocated(name),
    };
    let message = Message::new(source, e.to_diagnostic());
    let mut emitter: Box<dyn Emitter> = match format {
        CheckFormat::Human | CheckFormat::Concise => {
            let _ = writeln!(err, "error: {e} [{}]", e.code().id);
            return;
        }
        CheckFormat::Json => Box::new(prompty_report::Json),
        CheckFormat::Github => Box::new(prompty_report::Github),
        CheckFormat::Sarif => Box::new(report::sarif()),
    };
    let _ = writeln!(err, "error: {e}");
    let _ = emitter.emit(out, std::slice::from_ref(&message));
    let _ = emitter.finish(out, failures);
}

/// Runs `work` on `0..n` on every core the process may use and hands each result to
/// `emit` in index order, as soon as the results before it are in. Workers take the
/// indexes in runs of [`RUN`] and send a run's results at once: one wake-up of the
/// emitting thread per run rather than per file.
fn for_each_in_order<T: Send>(n: usize, work: impl Fn(usize) -> T + Sync, mut emit: impl FnMut(T)) {
    const RUN: usize = 8;
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get).min(n);
    if threads <= 1 {
        (0..n).map(work).for_each(emit);
        return;
    }
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<T>)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || {
                loop {
                    let start = next.fetch_add(RUN, Ordering::Relaxed);
                    if start >= n || tx.send((start / RUN, (start..(start + RUN).min(n)).map(work).collect())).is_err()
                    {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut due = 0;
        for (run, results) in rx {
            pending.insert(run, results);
            while let Some(results) = pending.remove(&due) {
                results.into_iter().for_each(&mut emit);
                due += 1;
            }
        }
    });
}

/// Checks one file (and its input cases file, if any) and renders what it found.
fn check_source(args: &CheckArgs, source: &Input, settings: &FileSettings, style: Style) -> FileOutput {
    let mut output = FileOutput::default();
    let file = source.name.as_path();
    let selection = &settings.selection;
    let Some((text, findings, loaded)) = check_file(args, source, selection, &mut output) else { return output };
    render(args, &mut output, file, &text, &findings, settings.fail_on, style);
    // `<name>.cases.yaml` beside a prompt holds the inputs `prompty snapshot` renders it with.
    let cases = file.with_extension("cases.yaml");
    if source.stdin.is_none() && selection.is_selected("PL027") && cases.is_file() {
        // Through the host: regular files only, size-capped.
        match cli_host().read(&cases) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                let findings = prompty_lint::check_cases(&text, &loaded, selection);
                render(args, &mut output, &cases, &text, &findings, settings.fail_on, style);
            }
            Err(e) => {
                output.failures.push(format!("{}: {e}", cases.display()));
                output.io_failure = true;
            }
        }
    }
    output
}

/// Renders the findings of one file in the chosen format and counts them.
fn render(
    args: &CheckArgs,
    output: &mut FileOutput,
    file: &Path,
    text: &str,
    findings: &[Finding],
    fail_on: Severity,
    style: Style,
) {
    let source = SourceFile::new(file.display().to_string(), text);
    let messages: Vec<Message> = findings.iter().map(|f| report::finding(&source, f)).collect();
    for f in findings {
        let severity = f.diagnostic.severity;
        match severity {
            Severity::Error => output.errors += 1,
            Severity::Warning => output.warnings += 1,
            Severity::Info => output.infos += 1,
        }
        if severity != Severity::Error && severity >= fail_on {
            output.failing_minor += 1;
        }
    }
    let mut emitter: Box<dyn Emitter> = match args.format {
        CheckFormat::Human => Box::new(prompty_report::Human { style }),
        CheckFormat::Concise => Box::new(prompty_report::Concise),
        CheckFormat::Json => Box::new(prompty_report::Json),
        CheckFormat::Github => Box::new(prompty_report::Github),
        CheckFormat::Sarif => {
            output.sarif.extend(messages);
            return;
        }
    };
    let mut bytes = Vec::new();
    let _ = emitter.emit(&mut bytes, &messages);
    output.stdout.push_str(&String::from_utf8_lossy(&bytes));
}

/// Loads and lints one file; with `--fix`, rewrites it first (safe fixes, and unsafe ones
/// with `--unsafe-fixes`; atomically, never through a link, and only when the file still
/// holds what was read). Returns the text the
/// findings point into, or `None` after recording an I/O failure.
fn check_file(
    args: &CheckArgs,
    source: &Input,
    selection: &Selection,
    output: &mut FileOutput,
) -> Option<(String, Vec<Finding>, Loaded)> {
    let host = cli_host();
    let file = source.name.as_path();
    let read = match &source.stdin {
        Some(bytes) => Ok(bytes.clone()),
        None => host.read(file),
    };
    let bytes = match read {
        Ok(b) => b,
        Err(e) => {
            output.failures.push(format!("{}: {e}", file.display()));
            output.io_failure = true;
            return None;
        }
    };
    let path = (file.as_os_str() != "-").then(|| file.to_path_buf());
    let options = LoadOptions { path, allowed_roots: args.allow_roots.clone(), lint: true, ..Default::default() };
    let loaded = load_bytes(&bytes, &host, &options);
    let Ok(text) = std::str::from_utf8(&bytes) else {
        // Not text: the loader's diagnostic is all there is to say.
        let findings =
            loaded.diagnostics.iter().filter(|d| selection.is_selected(d.code.id)).cloned().map(Finding::new).collect();
        return Some((String::from_utf8_lossy(&bytes).into_owned(), findings, loaded));
    };
    let report = prompty_lint::check(text, &loaded, selection);
    let allowed = |f: &&prompty_lint::Fix| args.unsafe_fixes || f.applicability == Applicability::Safe;
    let held_back =
        |findings: &[Finding]| findings.iter().filter_map(|f| f.fix.as_ref()).filter(|f| !allowed(f)).count();
    if !args.fix || source.stdin.is_some() {
        output.unsafe_available = held_back(&report.findings);
        return Some((text.to_owned(), report.findings, loaded));
    }
    let fixed = prompty_lint::apply_fixes(text, report.findings.iter().filter_map(|f| f.fix.as_ref()).filter(allowed));
    if fixed.applied.is_empty() {
        output.unsafe_available = held_back(&report.findings);
        return Some((text.to_owned(), report.findings, loaded));
    }
    if let Err(e) = files::replace(file, fixed.text.as_bytes(), Some(&bytes)) {
        let why = match e {
            WriteError::Link => {
                "is a symbolic link; the fixes were not written (--fix never writes through links: run it on the file the link points to)".to_owned()
            }
            WriteError::Changed => "changed while it was checked; the fixes were not written (run again)".to_owned(),
            WriteError::Io(why) => format!("cannot write the fixes: {why}"),
        };
        output.failures.push(format!("{}: {why}", file.display()));
        output.io_failure = true;
        output.unsafe_available = held_back(&report.findings);
        return Some((text.to_owned(), report.findings, loaded));
    }
    let index = LineIndex::new(text);
    for fix in &fixed.applied {
        let (line, col) = index.line_col(text, fix.span.start);
        output.notes.push_str(&format!("fixed: {}:{line}:{col}: {}\n", file.display(), fix.title));
    }
    output.fixed += fixed.applied.len();
    let loaded = load_bytes(fixed.text.as_bytes(), &host, &options);
    let report = prompty_lint::check(&fixed.text, &loaded, selection);
    output.unsafe_available = held_back(&report.findings);
    Some((fixed.text, report.findings, loaded))
}

fn list_rules(out: &mut impl Write, format: CheckFormat) -> std::io::Result<()> {
    let loader = prompty_syntax::codes::ALL
        .iter()
        .map(|(c, doc)| (*c, severity_name(prompty_syntax::codes::default_severity(*c)), false, (*doc).to_owned()));
    let rules = prompty_lint::rules().map(|r| (r.code, severity_name(r.severity), r.fixable(), r.summary()));
    for (code, severity, fixable, summary) in loader.chain(rules) {
        if format == CheckFormat::Json {
            let line = serde_json::json!({
                "code": code.id, "name": code.name, "severity": severity, "fixable": fixable, "summary": summary,
            });
            writeln!(out, "{line}")?;
        } else {
            let fix = if fixable { "fix" } else { "" };
            writeln!(out, "{:<6} {:<30} {:<8} {:<3} {summary}", code.id, code.name, severity, fix)?;
        }
    }
    Ok(())
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    #[test]
    fn no_color_turns_colours_off() {
        assert!(use_color(true, None));
        assert!(use_color(true, Some(OsStr::new(""))), "an empty NO_COLOR is unset");
        assert!(!use_color(true, Some(OsStr::new("1"))));
        assert!(!use_color(false, None), "never on a pipe");
    }

    #[test]
    fn results_come_in_index_order_whatever_finishes_first() {
        // Early indexes take longest, so later ones finish first on other threads; the
        // counts include runs cut short at the end.
        for n in [1, 7, 8, 61, 64] {
            let mut seen = Vec::new();
            for_each_in_order(
                n,
                |i| {
                    std::thread::sleep(std::time::Duration::from_micros(((n - i) * 50) as u64));
                    i
                },
                |i| seen.push(i),
            );
            assert_eq!(seen, (0..n).collect::<Vec<_>>());
        }
    }
}
