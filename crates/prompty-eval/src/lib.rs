//! The evaluator layer of the prompty toolkit: from a judge model's answer
//! to a score, a verdict and a result record.
//!
//! * [`extract`]: reading scores from answers (score tags, JSON objects,
//!   bare digits, labels), each format a small `nom` parser.
//! * [`verdict`]: thresholds, direction and range checks; a missing score
//!   is always [`Verdict::Unknown`], never a pass.
//! * [`Evaluation`]: the result record, with this crate's JSON form (serde)
//!   and the azure-ai-evaluation 1.13.3 key layout
//!   ([`Evaluation::to_azure`]).
//! * [`conversation`] and [`flatten`]: per-turn inputs of conversations,
//!   flattening of agent message lists, aggregation over turns.
//! * [`config`]: the `metadata.evaluator` block of a prompt's front matter
//!   and the built-in settings of the azure-ai-evaluation prompts.
//! * [`summary`]: totals over a run (mean, standard deviation, pass rate, histogram,
//!   tokens and cost per model) and the gates that decide its exit status.
//! * [`azure`]: the reference evaluators end to end (inputs, scoring,
//!   result layout), for conformance with azure-ai-evaluation 1.13.3.
//!
//! The crate does no I/O: rendering the judge prompt and calling the model
//! happen elsewhere; this crate takes the model's reply as data.

pub mod azure;
pub mod codes;
pub mod config;
pub mod conversation;
mod error;
pub mod evaluation;
mod evaluator;
pub mod extract;
pub mod flatten;
mod py;
pub mod summary;
pub mod verdict;

pub use azure::{AzureEvaluator, JudgeCall, Prepared};
pub use config::{BUILTIN_PROMPTS, BuiltinPrompt, EvaluatorConfig, builtin_config, builtin_prompt};
pub use error::{Error, ErrorCategory, Result};
pub use evaluation::{AzureKey, AzureLayout, Evaluation, JudgeReply, ScoreForm, Usage};
pub use evaluator::Evaluator;
pub use extract::{AnswerFormat, Extracted};
pub use summary::{Gates, MaxUnknown, Pricing, RunSummary};
pub use verdict::{Direction, OutOfRange, ScoreRange, Threshold, Verdict};
