//! The integration tests of `prompty-cli`, one module per subject, built as one test binary
//! (each binary links the whole dependency graph). Tests that need a process or a harness
//! of their own (`harness = false` targets in Cargo.toml) stay separate files in `tests/`.

mod action;
mod bad_input;
mod cli_tests;
mod diagnostics;
mod hostile;
mod lint_cli;
mod live;
mod lsp_cli;
mod report_browser;
mod report_files;
mod schema_cli;
mod schema_validates;
mod server;
mod snapshot_cli;
