//! `prompty check PATH...`: load every prompt and report every diagnostic.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use prompty_syntax::{Diagnostic, Host, LineIndex, LoadOptions, load_bytes};

use crate::host::FsHost;
use crate::inputs::describe_io;
use crate::report::{self, Style};

#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// Files and folders; folders are searched recursively for *.prompty.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    format: CheckFormat,
    /// Another folder `${file:}` references may read from (repeatable).
    #[arg(long = "allow-root", value_name = "DIR")]
    allow_roots: Vec<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum CheckFormat {
    Human,
    Json,
}

/// Every `*.prompty` under `path` (or `path` itself when it is a file), sorted.
pub(crate) fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {}", path.display(), describe_io(&e)))?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    if !meta.is_dir() {
        return Err(format!("{}: not a file or folder", path.display()));
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {}", path.display(), describe_io(&e)))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for entry in entries {
        let Ok(ft) = std::fs::symlink_metadata(&entry).map(|m| m.file_type()) else { continue };
        if ft.is_dir() {
            let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                collect(&entry, out)?;
            }
        } else if entry.extension().is_some_and(|e| e == "prompty") {
            out.push(entry);
        }
    }
    Ok(())
}

pub(crate) fn run(args: &CheckArgs) -> ExitCode {
    let mut files = Vec::new();
    let mut stderr = std::io::stderr().lock();
    for p in &args.paths {
        if let Err(e) = collect(p, &mut files) {
            let _ = writeln!(stderr, "error: {e}");
            return ExitCode::from(2);
        }
    }
    let host = FsHost;
    let style = Style { color: std::io::stdout().is_terminal(), width: 100 };
    let mut out = std::io::stdout().lock();
    let (mut errors, mut warnings, mut io_failures) = (0usize, 0usize, 0usize);
    for file in &files {
        let bytes = match host.read(file) {
            Ok(b) => b,
            Err(e) => {
                let _ = writeln!(stderr, "error: {}: {e}", file.display());
                io_failures += 1;
                continue;
            }
        };
        let options = LoadOptions {
            path: Some(file.clone()),
            allowed_roots: args.allow_roots.clone(),
            lint: true,
            ..Default::default()
        };
        let loaded = load_bytes(&bytes, &host, &options);
        let text = String::from_utf8_lossy(&bytes);
        let index = LineIndex::new(&text);
        for d in &loaded.diagnostics {
            match d.severity {
                prompty_syntax::Severity::Error => errors += 1,
                prompty_syntax::Severity::Warning => warnings += 1,
                prompty_syntax::Severity::Info => {}
            }
            let _ = emit(&mut out, args.format, file, &text, &index, d, style);
        }
    }
    if args.format == CheckFormat::Human {
        let _ = writeln!(
            stderr,
            "checked {} file{}: {errors} error{}, {warnings} warning{}",
            files.len(),
            plural(files.len()),
            plural(errors),
            plural(warnings)
        );
    }
    if io_failures > 0 {
        ExitCode::from(2)
    } else if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn emit(
    out: &mut impl Write,
    format: CheckFormat,
    file: &Path,
    text: &str,
    index: &LineIndex,
    d: &Diagnostic,
    style: Style,
) -> std::io::Result<()> {
    match format {
        CheckFormat::Human => write!(out, "{}", report::human(file, text, d, style)),
        CheckFormat::Json => {
            let line = serde_json::to_string(&report::json(file, text, index, d)).unwrap_or_default();
            writeln!(out, "{line}")
        }
    }
}
