//! The integration tests of `prompty-render`, one module per subject, built as one test binary
//! (each binary links the whole dependency graph). Tests that need a process or a harness
//! of their own (`harness = false` targets in Cargo.toml) stay separate files in `tests/`.

// Shared by `injection` and `promptflow_split`: the hostile values and the mixed-format cases.
#[path = "support/mixed.rs"]
mod mixed;
#[path = "support/pf_split.rs"]
mod pf_split;

mod hostile;
mod injection;
mod jinja_compat_limits;
mod limits;
mod promptflow_inputs;
mod promptflow_split;
mod security;
