//! `prompty fmt PATH... [--check]`: front matter keys in canonical order and role lines
//! spelled canonically, written back only when the file loads identically afterwards.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use prompty_syntax::{Host, LoadOptions};

use crate::check::collect;
use crate::host::cli_host;
use crate::inputs::describe_io;

#[derive(clap::Args)]
pub(crate) struct FmtArgs {
    /// Files and folders; folders are searched recursively for *.prompty.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Change no file: list the files that would change and exit 1 if there are any.
    #[arg(long)]
    check: bool,
    /// Another folder `${file:}` references may read from (repeatable).
    #[arg(long = "allow-root", value_name = "DIR")]
    allow_roots: Vec<PathBuf>,
}

pub(crate) fn run(args: &FmtArgs) -> ExitCode {
    let mut err = std::io::stderr().lock();
    let mut files = Vec::new();
    for p in &args.paths {
        if let Err(e) = collect(p, &mut files) {
            let _ = writeln!(err, "error: {e}");
            return ExitCode::from(2);
        }
    }
    let host = cli_host();
    let (mut changed, mut failures) = (0usize, 0usize);
    for file in &files {
        let text = match host.read(file).map(String::from_utf8) {
            Ok(Ok(text)) => text,
            Ok(Err(_)) => {
                let _ = writeln!(err, "error: {}: not UTF-8 text; left as is", file.display());
                failures += 1;
                continue;
            }
            Err(e) => {
                let _ = writeln!(err, "error: {}: {e}", file.display());
                failures += 1;
                continue;
            }
        };
        let options = LoadOptions {
            path: Some(file.clone()),
            allowed_roots: args.allow_roots.clone(),
            lint: true,
            ..LoadOptions::default()
        };
        let formatted = prompty_lint::fmt::format(&text, &host, &options);
        for note in &formatted.kept {
            let _ = writeln!(err, "note: {}: {note}", file.display());
        }
        let Some(new) = formatted.text else { continue };
        changed += 1;
        if args.check {
            let _ = writeln!(err, "would reformat: {}", file.display());
        } else if let Err(e) = std::fs::write(file, new) {
            let _ = writeln!(err, "error: {}: cannot write: {}", file.display(), describe_io(&e));
            failures += 1;
        } else {
            let _ = writeln!(err, "reformatted: {}", file.display());
        }
    }
    let verb = if args.check { "would be reformatted" } else { "reformatted" };
    let unchanged = files.len() - changed;
    let _ = writeln!(
        err,
        "{changed} file{} {verb}, {unchanged} file{} left unchanged",
        if changed == 1 { "" } else { "s" },
        if unchanged == 1 { "" } else { "s" }
    );
    if failures > 0 {
        ExitCode::from(2)
    } else if args.check && changed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
