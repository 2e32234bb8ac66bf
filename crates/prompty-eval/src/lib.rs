//! The evaluator layer of the prompty toolkit: from a judge model's answer
//! to a score, a verdict and a result record.
//!
//! * [`extract`]: reading scores from answers (score tags, JSON objects,
//!   bare digits, labels), each format a small `nom` parser.
//! * [`verdict`]: thresholds, direction and range checks; a missing score
//!   is always [`Verdict::Unknown`], never a pass.
//! * [`Evaluation`]: the result record, with this crate's JSON form (serde)
//!   and the azure-ai-evaluation 1.13.3 and 1.18.10 key layouts
//!   ([`Evaluation::to_azure`]); [`Contract`] says which judge contract
//!   a prompt follows.
//! * [`conversation`] and [`flatten`]: per-turn inputs of conversations,
//!   flattening of agent message lists, aggregation over turns.
//! * [`config`]: the `metadata.evaluator` block of a prompt's front matter;
//!   [`builtin`]: the prompts of azure-ai-evaluation and their settings.
//! * [`summary`]: totals over a run (mean, standard deviation, pass rate, histogram,
//!   tokens and cost per model) and the gates that decide its exit status.
//! * Runs over data sets: [`rows`] (JSON-lines data, answers and results, read from any
//!   `BufRead` the caller opens), [`reply`] (a recorded answer or provider response to a
//!   [`JudgeReply`]), [`record`] (the [`ResultLine`] a run writes and reads back),
//!   [`run`] (rows to results and their summary, [`Run::recorded`] for recorded answers;
//!   [`Suite`] for several evaluators over one data file, with column mappings
//!   ([`MapSpec`]) and row ids ([`IdColumn`])) and [`compare`] (two runs row by row, and
//!   the [`RegressionGate`]).
//! * [`azure`]: the reference evaluators end to end (inputs, scoring,
//!   result layout), for conformance with azure-ai-evaluation 1.13.3 and 1.18.10.
//!
//! The crate does no I/O: rendering the judge prompt and calling the model
//! happen elsewhere; this crate takes the model's reply as data.
//!
//! ```
//! use prompty_eval::{Evaluator, EvaluatorConfig, JudgeReply, Verdict};
//!
//! // The `metadata.evaluator` block of a judge prompt's front matter, as JSON.
//! let metadata = serde_json::json!({"evaluator": {"answer": "json", "range": [1, 5], "threshold": 3}});
//! let config = EvaluatorConfig::from_metadata(&metadata)?.unwrap_or_default();
//! let judge = Evaluator::new("coherence", config);
//! let reply = JudgeReply::text(r#"{"score": 4, "explanation": "Clear and on topic."}"#);
//! let evaluation = judge.evaluate(&reply)?;
//! assert_eq!(evaluation.score, Some(4.0));
//! assert_eq!(evaluation.verdict, Verdict::Pass);
//! assert_eq!(evaluation.reason, "Clear and on topic.");
//! # Ok::<(), prompty_eval::Error>(())
//! ```

#![warn(missing_docs)]

pub mod azure;
pub mod builtin;
pub mod codes;
pub mod compare;
pub mod config;
pub mod contract;
pub mod conversation;
mod error;
pub mod evaluation;
mod evaluator;
pub mod extract;
pub mod flatten;
mod metadata;
pub mod record;
pub mod reply;
pub mod rows;
pub mod run;
pub mod summary;
pub mod verdict;

// Python's str(), repr(), float(), json.dumps by their Python names (`py::str_of`).
use prompty_py::builtins as py;

pub use azure::{AzureEvaluator, JudgeCall, Prepared};
pub use builtin::{BUILTIN_PROMPTS, BuiltinPrompt, builtin_config, builtin_prompt, builtin_prompt_for};
pub use compare::{RegressionGate, regressions};
pub use config::EvaluatorConfig;
pub use contract::Contract;
pub use error::{Error, ErrorCategory, Result};
pub use evaluation::{AzureKey, AzureLayout, Evaluation, JudgeReply, ScoreForm, Usage};
pub use evaluator::{ContractSource, Evaluator};
pub use extract::{AnswerFormat, Extracted};
pub use metadata::{key_names as evaluator_keys, schema as evaluator_schema};
pub use record::{ResultLine, RowError, RowErrorKind, RowId, RowOutcome, RowResults};
pub use rows::{FieldPath, IdColumn, InputMap, JsonLines, MapSpec};
pub use run::{DataRow, Run, Suite};
pub use summary::{Gates, MaxUnknown, Pricing, RunSummary};
pub use verdict::{Direction, OutOfRange, ScoreRange, Threshold, Verdict};
