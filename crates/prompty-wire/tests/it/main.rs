//! The integration tests of `prompty-wire`, one module per subject, built as one test binary
//! (each binary links the whole dependency graph). Tests that need a process or a harness
//! of their own (`harness = false` targets in Cargo.toml) stay separate files in `tests/`.

mod diagnostics;
mod request_schemas;
mod schema;
mod translation;
