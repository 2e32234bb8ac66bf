//! Evaluation results for people: a self-contained HTML report ([`html`]), JUnit XML for
//! CI test views ([`junit`]) and a Markdown comparison for pull requests ([`markdown`]),
//! all made from the report's own model of a run ([`view::Run`], filled from the result
//! lines `prompty eval` writes by [`view::Run::from_lines`]).
//!
//! The crate does no I/O: every function returns the text, the caller writes it.

pub mod html;
pub mod junit;
pub mod markdown;
pub mod stats;
pub mod text;
pub mod view;

pub use stats::{Comparison, Stats};
pub use view::{Cell, EvaluatorInfo, Meta, Outcome, Row, Run};
