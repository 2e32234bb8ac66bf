//! Evaluation results for people: a self-contained HTML report ([`html`]), JUnit XML for
//! CI test views ([`junit`]) and a Markdown comparison for pull requests ([`markdown`]),
//! all made from the report's own model of a run ([`view::Run`], filled from the result
//! lines `prompty eval` writes by [`view::Run::from_lines`]).
//!
//! The crate does no I/O: every function returns the text, the caller writes it.
//!
//! ```
//! use prompty_eval::{Evaluation, ResultLine, Verdict};
//! use prompty_results::{Comparison, Run};
//!
//! let line = |n, score: f64, verdict| {
//!     let e = Evaluation { name: "coherence".into(), score: Some(score), verdict, ..Evaluation::default() };
//!     ResultLine::new(n, Ok(e))
//! };
//! let before = Run::from_lines("before.jsonl", [line(1, 4.0, Verdict::Pass), line(2, 2.0, Verdict::Fail)]);
//! let after = Run::from_lines("after.jsonl", [line(1, 2.0, Verdict::Fail), line(2, 2.0, Verdict::Fail)]);
//!
//! let page = prompty_results::html::single(&after);
//! assert!(page.starts_with("<!DOCTYPE html>") && page.contains("Content-Security-Policy"));
//! let junit = prompty_results::junit::junit(&after);
//! assert_eq!(junit.matches("<failure ").count(), 2);
//! let summary = prompty_results::markdown::compare(&Comparison::new(&before, &after));
//! assert!(summary.contains("1 verdict change(s)"));
//! ```
#![warn(missing_docs)]

pub mod html;
pub mod junit;
pub mod markdown;
pub mod stats;
pub mod text;
pub mod view;

pub use stats::{Comparison, Stats};
pub use view::{Cell, EvaluatorInfo, Meta, Outcome, Row, Run};
