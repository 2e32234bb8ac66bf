//! `prompty migrate FILE... [--check | --diff | -o PATH]`: v1 (promptflow) files rewritten
//! to the v2 spec, written only when the new file renders exactly the messages the old one
//! did ([`prompty_lint::migrate`]).
//!
//! In place, a file is replaced atomically, never through a symbolic link, and only when it
//! still holds what was read ([`crate::files::replace`]); `-o` writes a new file and never
//! overwrites one. Exit status: 0 when every file was migrated (or was v2 already), 1 when
//! `--check`/`--diff` found files to migrate, 2 when a file was refused or could not be
//! read or written.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use prompty_lint::migrate::{Case, Refusal};
use prompty_syntax::{Host, LoadOptions};

use crate::check::collect;
use crate::files::{self, WriteError};
use crate::fmt::input_cases;
use crate::host::cli_host;

#[derive(clap::Args)]
pub(crate) struct MigrateArgs {
    /// v1 .prompty files; folders are searched recursively for *.prompty.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Change no file: print the diff of each file that would be migrated, list them and
    /// exit 1 if there are any.
    #[arg(long, conflicts_with = "output")]
    check: bool,
    /// Change no file: print the diff of each file that would be migrated (a unified diff
    /// on standard output) and exit 1 if there are any.
    #[arg(long, conflicts_with = "output")]
    diff: bool,
    /// Write the v2 file here instead of in place (one input file; never overwrites).
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Another folder `${file:}` references may read from (repeatable).
    #[arg(long = "allow-root", value_name = "DIR")]
    allow_roots: Vec<PathBuf>,
}

pub(crate) fn run(args: &MigrateArgs) -> ExitCode {
    let mut err = std::io::stderr().lock();
    let mut files = Vec::new();
    for p in &args.paths {
        if let Err(e) = collect(p, &mut files) {
            let _ = writeln!(err, "error: {e}");
            return ExitCode::from(2);
        }
    }
    if args.output.is_some() && files.len() != 1 {
        let _ = writeln!(err, "error: --output takes one input file ({} given)", files.len());
        return ExitCode::from(2);
    }
    let host = cli_host();
    let (mut migrated, mut pending, mut unchanged, mut failures) = (0usize, 0usize, 0usize, 0usize);
    for file in &files {
        let shown = file.display();
        let bytes = match host.read(file) {
            Ok(bytes) => bytes,
            Err(e) => {
                let _ = writeln!(err, "error: {shown}: {e}");
                failures += 1;
                continue;
            }
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            let _ = writeln!(err, "error: {shown}: not UTF-8 text; left as is");
            failures += 1;
            continue;
        };
        let options =
            LoadOptions { path: Some(file.clone()), allowed_roots: args.allow_roots.clone(), ..LoadOptions::default() };
        let cases: Vec<Case> =
            input_cases(&host, file, &mut err).into_iter().map(|(name, inputs)| Case { name, inputs }).collect();
        let out = match prompty_lint::migrate::migrate(text, &host, &options, &cases) {
            Ok(out) => out,
            Err(Refusal::NotV1) => {
                let _ = writeln!(err, "note: {shown}: {}; left as is", Refusal::NotV1);
                unchanged += 1;
                continue;
            }
            Err(why) => {
                let _ = writeln!(err, "error: {shown}: {why}; left as is");
                failures += 1;
                continue;
            }
        };
        for note in &out.notes {
            let _ = writeln!(err, "note: {shown}: {note}");
        }
        let proof = format!("renders equal on {}", out.cases.join(", "));
        if args.check || args.diff {
            let name = shown.to_string();
            let diff = similar::TextDiff::from_lines(text, out.text.as_str())
                .unified_diff()
                .context_radius(3)
                .header(&name, &name)
                .to_string();
            if std::io::stdout().lock().write_all(diff.as_bytes()).is_err() {
                return ExitCode::from(1);
            }
            if args.check {
                let _ = writeln!(err, "would migrate: {shown} ({proof})");
            }
            pending += 1;
            continue;
        }
        let written = match &args.output {
            Some(target) => files::create_new(target, out.text.as_bytes()).map(|()| target.display().to_string()),
            None => {
                files::replace(file, out.text.as_bytes(), Some(&bytes)).map(|()| shown.to_string()).map_err(|e| match e
                {
                    WriteError::Link => {
                        "is a symbolic link; migrate never writes through links (run it on the file the link \
                         points to)"
                            .to_owned()
                    }
                    WriteError::Changed => "changed while it was migrated; left as is (run migrate again)".to_owned(),
                    WriteError::Io(why) => format!("cannot write: {why}; left as is"),
                })
            }
        };
        match written {
            Ok(target) => {
                let _ = writeln!(err, "migrated: {shown} -> {target} ({proof})");
                migrated += 1;
            }
            Err(why) => {
                let target = args.output.as_ref().map_or_else(|| shown.to_string(), |o| o.display().to_string());
                let _ = writeln!(err, "error: {target}: {why}");
                failures += 1;
            }
        }
    }
    let dry = args.check || args.diff;
    let changed = if dry { pending } else { migrated };
    files::RewriteSummary { dry, changed, unchanged, failures }.finish(
        ("would be migrated", "migrated"),
        "not migrated",
        &mut err,
    )
}
