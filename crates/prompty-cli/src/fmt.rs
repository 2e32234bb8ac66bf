//! `prompty fmt PATH... [--check | --diff]`: front matter keys in canonical order and role lines
//! spelled canonically, written back only when the file loads identically afterwards.
//!
//! A file is replaced atomically, never through a symbolic link, and only when it still
//! holds what was read ([`crate::files::replace`]); a file that cannot be written is
//! reported, counted as failed, and makes the exit status 2.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use prompty_syntax::{Host, LoadOptions};
use serde_json::{Map, Value};

use crate::check::collect;
use crate::files::{self, WriteError};
use crate::host::cli_host;

#[derive(clap::Args)]
pub(crate) struct FmtArgs {
    /// Files and folders; folders are searched recursively for *.prompty.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Change no file: print the diff of each file that would change, list them and exit 1
    /// if there are any.
    #[arg(long)]
    check: bool,
    /// Change no file: print the diff of each file that would change (a unified diff on
    /// standard output, for `git apply`-style review) and exit 1 if there are any.
    #[arg(long)]
    diff: bool,
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
    let (mut reformatted, mut pending, mut unchanged, mut failures) = (0usize, 0usize, 0usize, 0usize);
    for file in &files {
        let bytes = match host.read(file) {
            Ok(bytes) => bytes,
            Err(e) => {
                let _ = writeln!(err, "error: {}: {e}", file.display());
                failures += 1;
                continue;
            }
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            let _ = writeln!(err, "error: {}: not UTF-8 text; left as is", file.display());
            failures += 1;
            continue;
        };
        let options = LoadOptions {
            path: Some(file.clone()),
            allowed_roots: args.allow_roots.clone(),
            lint: true,
            ..LoadOptions::default()
        };
        let cases: Vec<Map<String, Value>> = input_cases(&host, file, &mut err).into_iter().map(|(_, v)| v).collect();
        let formatted = prompty_lint::fmt::format_with_cases(text, &host, &options, &cases);
        for note in &formatted.kept {
            let _ = writeln!(err, "note: {}: {note}", file.display());
        }
        let Some(new) = formatted.text else {
            unchanged += 1;
            continue;
        };
        if args.check || args.diff {
            let name = file.display().to_string();
            let diff = similar::TextDiff::from_lines(text, new.as_str())
                .unified_diff()
                .context_radius(3)
                .header(&name, &name)
                .to_string();
            if std::io::stdout().lock().write_all(diff.as_bytes()).is_err() {
                // The reader went away (`| head`): the exit status still says what was found.
                return ExitCode::from(1);
            }
            if args.check {
                let _ = writeln!(err, "would reformat: {}", file.display());
            }
            pending += 1;
            continue;
        }
        let shown = file.display();
        match files::replace(file, new.as_bytes(), Some(&bytes)) {
            Ok(()) => {
                let _ = writeln!(err, "reformatted: {shown}");
                reformatted += 1;
            }
            Err(e) => {
                let why = match e {
                    WriteError::Link => {
                        "is a symbolic link; fmt never writes through links (run it on the file the link points to)"
                            .to_owned()
                    }
                    WriteError::Changed => "changed while it was formatted; left as is (run fmt again)".to_owned(),
                    WriteError::Io(why) => format!("cannot write: {why}; left as is"),
                };
                let _ = writeln!(err, "error: {shown}: {why}");
                failures += 1;
            }
        }
    }
    let dry = args.check || args.diff;
    let changed = if dry { pending } else { reformatted };
    files::RewriteSummary { dry, changed, unchanged, failures }.finish(
        ("would be reformatted", "reformatted"),
        "failed",
        &mut err,
    )
}

/// The names and input values of the cases in `<name>.cases.yaml` beside `file`, the ones
/// `fmt` and `migrate` check the rendered messages on; none (the defaults) without a
/// readable cases file.
pub(crate) fn input_cases(host: &impl Host, file: &Path, err: &mut impl Write) -> Vec<(String, Map<String, Value>)> {
    let sidecar = file.with_extension("cases.yaml");
    if !sidecar.is_file() {
        return Vec::new();
    }
    let bytes = match host.read(&sidecar) {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(err, "note: {}: {e}; the messages are checked on the defaults", sidecar.display());
            return Vec::new();
        }
    };
    let (cases, _) = prompty_syntax::cases::parse_cases(&String::from_utf8_lossy(&bytes));
    cases.iter().map(|c| (c.name.clone(), c.values())).collect()
}
