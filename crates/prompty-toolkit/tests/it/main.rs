//! The integration tests of `prompty-toolkit`, one module per subject, built as one test binary
//! (each binary links the whole dependency graph). Tests that need a process or a harness
//! of their own (`harness = false` targets in Cargo.toml) stay separate files in `tests/`.

mod contract;
mod embedded_prompts;
mod errors;
mod eval_suite;
mod features;
mod macros;
mod readme;
mod ui;
