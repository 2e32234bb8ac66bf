//! `prompty lsp`: the language server on standard input and output.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use prompty_lsp::{Options, Workspace};

use crate::host::cli_host;

#[derive(clap::Args)]
pub(crate) struct LspArgs {
    /// Speak the protocol on standard input and output (the only transport; accepted because
    /// some clients pass it).
    #[arg(long)]
    stdio: bool,
    /// Another folder `${file:}` references may read from (repeatable).
    #[arg(long = "allow-root", value_name = "DIR")]
    allow_roots: Vec<PathBuf>,
    /// Use this configuration file for every document instead of the nearest `prompty.toml`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

pub(crate) fn run(args: &LspArgs) -> ExitCode {
    let _ = args.stdio;
    let mut workspace = Workspace::new(Arc::new(cli_host()));
    workspace.allowed_roots.clone_from(&args.allow_roots);
    workspace.config.clone_from(&args.config);
    let input = std::io::BufReader::with_capacity(64 * 1024, std::io::stdin());
    let notes = |note: &str| {
        let _ = writeln!(std::io::stderr().lock(), "prompty lsp: {note}");
    };
    let (connection, transport) = match prompty_lsp::transport::connect(input, std::io::stdout(), notes) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(std::io::stderr().lock(), "error: prompty lsp: {e}");
            return ExitCode::from(1);
        }
    };
    let outcome = prompty_lsp::run(&connection, Options::new(workspace));
    drop(connection);
    let io = transport.join();
    let mut err = std::io::stderr().lock();
    // A transport failure (unreadable input) is the cause of whatever the server saw.
    let problem = match (outcome, io) {
        (Ok(()), Ok(())) => return ExitCode::SUCCESS,
        (_, Err(e)) => format!("reading the client's messages: {e}"),
        (Err(e), Ok(())) => e.to_string(),
    };
    let _ = writeln!(err, "error: prompty lsp: {problem}");
    ExitCode::from(1)
}
