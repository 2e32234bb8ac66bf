//! `prompty check PATH...`: load every prompt, lint it, and report every finding.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use prompty_config::Configs;
use prompty_lint::{Finding, Selection};
use prompty_syntax::{Host, LineIndex, LoadOptions, Severity, load_bytes};

use crate::host::cli_host;
use crate::inputs::describe_io;
use crate::report::{self, Sarif};
use prompty::report::{Source, Style};

#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// Files and folders; folders are searched recursively for *.prompty.
    #[arg(required_unless_present = "list_rules")]
    paths: Vec<PathBuf>,
    /// Output format: human (default), json (one object per line), github (workflow
    /// annotations) or sarif (SARIF 2.1.0).
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    format: CheckFormat,
    /// Apply the fixes of fixable findings to the files, then report what remains.
    #[arg(long)]
    fix: bool,
    /// Use this configuration file instead of the nearest `prompty.toml` above each file.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// List every code `check` can report (with --format json: one object per line) and exit.
    #[arg(long)]
    list_rules: bool,
    /// Another folder `${file:}` references may read from (repeatable).
    #[arg(long = "allow-root", value_name = "DIR")]
    allow_roots: Vec<PathBuf>,
}

/// The same forms as every other command's `--error-format`.
type CheckFormat = report::Format;

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

/// Counts over all files.
#[derive(Default)]
struct Totals {
    errors: usize,
    warnings: usize,
    fixed: usize,
    io_failures: usize,
    unreadable_folders: usize,
    /// Every I/O failure as reported on stderr (SARIF carries them as notifications).
    failures: Vec<String>,
}

impl Totals {
    /// Reports an I/O failure on stderr and keeps it.
    fn fail(&mut self, stderr: &mut impl Write, message: String) {
        let _ = writeln!(stderr, "error: {message}");
        self.failures.push(message);
    }
}

pub(crate) fn run(args: &CheckArgs) -> ExitCode {
    let mut stderr = std::io::stderr().lock();
    let mut out = std::io::stdout().lock();
    if args.list_rules {
        let _ = list_rules(&mut out, args.format);
        return ExitCode::SUCCESS;
    }
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for p in &args.paths {
        if let Err(e) = collect_all(p, &mut files, &mut unreadable) {
            let _ = writeln!(stderr, "error: {e}");
            return ExitCode::from(2);
        }
    }
    let mut totals = Totals { unreadable_folders: unreadable.len(), ..Totals::default() };
    // A folder that cannot be read is reported and skipped; the rest is still checked.
    for e in unreadable {
        totals.fail(&mut stderr, format!("{e}; skipped"));
    }
    let style = Style { color: std::io::stdout().is_terminal(), width: 100 };
    let mut configs = Configs::default();
    let mut sarif = Sarif::new();
    for file in &files {
        let selection = match configs.selection(file, args.config.as_deref(), &cli_host()) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(stderr, "error: {e}");
                return ExitCode::from(2);
            }
        };
        let Some((text, findings)) = check_file(args, file, &selection, &mut totals, &mut stderr) else { continue };
        let index = LineIndex::new(&text);
        let lines = Source::new(&file.display().to_string(), &text);
        for f in &findings {
            match f.diagnostic.severity {
                Severity::Error => totals.errors += 1,
                Severity::Warning => totals.warnings += 1,
                Severity::Info => {}
            }
            let _ = match args.format {
                CheckFormat::Human => {
                    let mut d = f.diagnostic.clone();
                    if let Some(fix) = &f.fix {
                        let note = format!("--fix can {}", fix.title);
                        d.help = Some(match d.help {
                            Some(h) => format!("{h}\n{note}"),
                            None => note,
                        });
                    }
                    write!(out, "{}", lines.draw(&d, &style))
                }
                CheckFormat::Json => {
                    let line = serde_json::to_string(&report::json(file, Some((&text, &index)), &f.diagnostic))
                        .unwrap_or_default();
                    writeln!(out, "{line}")
                }
                CheckFormat::Github => writeln!(out, "{}", report::github(file, Some((&text, &index)), &f.diagnostic)),
                CheckFormat::Sarif => {
                    sarif.push(file, &text, &index, f);
                    Ok(())
                }
            };
        }
    }
    if args.format == CheckFormat::Sarif {
        let _ = serde_json::to_writer_pretty(&mut out, &sarif.finish(&totals.failures));
        let _ = writeln!(out);
    }
    if args.format == CheckFormat::Human {
        let fixed =
            if args.fix { format!(", fixed {} problem{}", totals.fixed, plural(totals.fixed)) } else { String::new() };
        let mut unreadable = match totals.io_failures {
            0 => String::new(),
            n => format!(", {n} file{} could not be read", plural(n)),
        };
        if totals.unreadable_folders > 0 {
            let n = totals.unreadable_folders;
            unreadable.push_str(&format!(", {n} folder{} could not be read", plural(n)));
        }
        let _ = writeln!(
            stderr,
            "checked {} file{}: {} error{}, {} warning{}{unreadable}{fixed}",
            files.len(),
            plural(files.len()),
            totals.errors,
            plural(totals.errors),
            totals.warnings,
            plural(totals.warnings)
        );
    }
    if totals.io_failures + totals.unreadable_folders > 0 {
        ExitCode::from(2)
    } else if totals.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Loads and lints one file; with `--fix`, rewrites it first. Returns the text the
/// findings point into, or `None` after reporting an I/O failure.
fn check_file(
    args: &CheckArgs,
    file: &Path,
    selection: &Selection,
    totals: &mut Totals,
    stderr: &mut impl Write,
) -> Option<(String, Vec<Finding>)> {
    let host = cli_host();
    let bytes = match host.read(file) {
        Ok(b) => b,
        Err(e) => {
            totals.fail(stderr, format!("{}: {e}", file.display()));
            totals.io_failures += 1;
            return None;
        }
    };
    let options = LoadOptions {
        path: Some(file.to_path_buf()),
        allowed_roots: args.allow_roots.clone(),
        lint: true,
        ..Default::default()
    };
    let loaded = load_bytes(&bytes, &host, &options);
    let Ok(text) = std::str::from_utf8(&bytes) else {
        // Not text: the loader's diagnostic is all there is to say.
        let findings =
            loaded.diagnostics.into_iter().filter(|d| selection.is_selected(d.code.id)).map(Finding::new).collect();
        return Some((String::from_utf8_lossy(&bytes).into_owned(), findings));
    };
    let report = prompty_lint::check(text, &loaded, selection);
    if !args.fix {
        return Some((text.to_owned(), report.findings));
    }
    let fixed = prompty_lint::apply_fixes(text, report.findings.iter().filter_map(|f| f.fix.as_ref()));
    if fixed.applied.is_empty() {
        return Some((text.to_owned(), report.findings));
    }
    if let Err(e) = std::fs::write(file, &fixed.text) {
        totals.fail(stderr, format!("{}: cannot write the fixes: {}", file.display(), describe_io(&e)));
        totals.io_failures += 1;
        return Some((text.to_owned(), report.findings));
    }
    let index = LineIndex::new(text);
    for fix in &fixed.applied {
        let (line, col) = index.line_col(text, fix.span.start);
        let _ = writeln!(stderr, "fixed: {}:{line}:{col}: {}", file.display(), fix.title);
    }
    totals.fixed += fixed.applied.len();
    let loaded = load_bytes(fixed.text.as_bytes(), &host, &options);
    let report = prompty_lint::check(&fixed.text, &loaded, selection);
    Some((fixed.text, report.findings))
}

fn list_rules(out: &mut impl Write, format: CheckFormat) -> std::io::Result<()> {
    let loader = prompty_syntax::codes::ALL.iter().map(|(c, doc)| (*c, "loader", false, (*doc).to_owned()));
    let rules = prompty_lint::rules().map(|r| (r.code, severity_name(r.severity), r.fixable, r.summary()));
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
