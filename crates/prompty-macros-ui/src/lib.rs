//! The compiler's messages for `include_prompty!` on prompts that must not compile: the
//! trybuild cases of `tests/ui/fail/`, each with the messages a user sees in its `.stderr`.
//! A prompt whose template reads an input it does not declare, for one:
//!
//! ```compile_fail
//! prompty_toolkit::include_prompty!("tests/ui/prompts/undeclared.prompty");
//! ```
//!
//! A crate of its own because trybuild builds its cases in a project that depends on the
//! tested crate's dependencies and dev-dependencies: here that is the facade alone, not the
//! facade's test dependencies (criterion, insta and the crates behind them). The prompts
//! that compile are tested with the facade (`prompty-toolkit`'s `tests/it/macros.rs`).
#![warn(missing_docs)]
