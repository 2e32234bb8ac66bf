//! The integration tests of `prompty-syntax`, one module per subject, built as one test binary
//! (each binary links the whole dependency graph). Tests that need a process or a harness
//! of their own (`harness = false` targets in Cargo.toml) stay separate files in `tests/`.

mod default_severity;
mod diagnostic_spans;
mod document;
mod hostile;
mod two_stage_load;
