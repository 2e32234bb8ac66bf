//! The LLM-judge evaluators of azure-ai-evaluation 1.13.3, reproduced: how
//! each one turns call arguments into prompt inputs, reads the judge's
//! answer, decides pass/fail and lays out its result dictionary.
//!
//! The flow of one evaluator call:
//!
//! 1. [`AzureEvaluator::prepare`]: call arguments (`query`, `response`,
//!    `conversation`, `tool_definitions`, ...) become one [`JudgeCall`] per
//!    turn: the prompt file and the exact inputs it is rendered with (or a
//!    not-applicable outcome, e.g. no tool calls).
//! 2. The caller renders the prompt and asks the judge model (outside this
//!    crate).
//! 3. [`AzureEvaluator::score`]: the judge's reply becomes an
//!    [`Evaluation`].
//! 4. [`AzureEvaluator::record`] writes the reference key layout, and
//!    [`aggregate`] combines turns.
//!
//! [`run`] does all of it with a callback standing in for steps 2.
//!
//! The pieces: `evaluator` (which evaluator, its names, inputs and result layout),
//! `settings` (its scoring settings as an [`EvaluatorConfig`](crate::EvaluatorConfig)),
//! `prepare` (call arguments to judge calls) and `score` (replies to evaluations and
//! result records).

pub(crate) mod evaluator;
mod prepare;
mod score;
mod settings;

use serde_json::{Map, Value};

pub use evaluator::AzureEvaluator;
pub use prepare::{JudgeCall, Prepared};

use crate::conversation::{Aggregation, aggregate};
use crate::error::Result;
use crate::evaluation::{Evaluation, JudgeReply};
use crate::flatten::RefVersion;
use crate::verdict::Verdict;

/// Runs a reference evaluator end to end: prepares the calls, asks `judge`
/// for each reply, scores, lays out and aggregates the results.
pub fn run(
    evaluator: AzureEvaluator,
    init_kwargs: &Map<String, Value>,
    call_kwargs: &Map<String, Value>,
    version: RefVersion,
    judge: &mut dyn FnMut(usize, &JudgeCall) -> JudgeReply,
) -> Result<Map<String, Value>> {
    let threshold = evaluator.threshold(init_kwargs)?;
    let calls = match evaluator.prepare(call_kwargs, version)? {
        Prepared::Calls(calls) => calls,
        Prepared::NotApplicable(why) => {
            let e = Evaluation {
                name: evaluator.result_key().to_owned(),
                verdict: Verdict::NotApplicable,
                reason: format!("Not applicable: {why}"),
                threshold: Some(threshold),
                ..Evaluation::default()
            };
            return Ok(e.to_azure_not_applicable());
        }
    };
    let mut per_turn = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let reply = judge(i, call);
        let mut e = evaluator.score(&threshold, &reply)?;
        e.sample_input = Some(call.sample_input());
        per_turn.push(evaluator.record(&e, reply.content_str().is_empty()));
    }
    Ok(aggregate(per_turn, Aggregation::Mean))
}
