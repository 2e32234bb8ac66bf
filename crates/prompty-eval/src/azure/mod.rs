//! The LLM-judge evaluators of azure-ai-evaluation 1.13.3 and 1.18.10, reproduced: how
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
mod score118;
mod settings;

use serde_json::{Map, Value};

pub use evaluator::AzureEvaluator;
pub use prepare::{JudgeCall, Prepared};

use crate::contract::Contract;
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
    if Contract::from(version) == Contract::V1_18 {
        let e = evaluate(evaluator, init_kwargs, call_kwargs, Contract::V1_18, judge)?;
        return Ok(e.to_azure(&evaluator.layout_for(Contract::V1_18)));
    }
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

/// Runs a reference evaluator under the 1.18 contract and returns the [`Evaluation`]:
/// one call's, or a conversation's with its [turns](Evaluation::turns) (laid out and
/// aggregated as the reference does by [`Evaluation::to_azure`]).
///
/// The conversation's own score is the mean of its turns' scores (none when a turn has
/// none) and its verdict that mean against the threshold; where the reference's
/// aggregate says otherwise (its `{k}_result` is the last turn's label, its
/// `{k}_passed` the share of passing turns) the evaluation carries a warning.
/// `init_kwargs` is the evaluator's constructor arguments (`threshold`); a threshold
/// the reference ignores (TaskAdherence, `_TaskCompletion`) gives a warning too.
pub fn evaluate(
    evaluator: AzureEvaluator,
    init_kwargs: &Map<String, Value>,
    call_kwargs: &Map<String, Value>,
    contract: Contract,
    judge: &mut dyn FnMut(usize, &JudgeCall) -> JudgeReply,
) -> Result<Evaluation> {
    let version = contract.ref_version();
    let threshold = match contract {
        Contract::V1_13 => evaluator.threshold(init_kwargs)?,
        Contract::V1_18 => evaluator.threshold_1_18(init_kwargs)?,
    };
    let mut warnings = Vec::new();
    if contract == Contract::V1_18 && evaluator.threshold_ignored_in_1_18() && init_kwargs.contains_key("threshold") {
        warnings.push(ignored_threshold(evaluator));
    }
    let calls = match evaluator.prepare(call_kwargs, version)? {
        Prepared::Calls(calls) => calls,
        Prepared::NotApplicable(why) => {
            return Ok(Evaluation {
                name: evaluator.result_key().to_owned(),
                verdict: Verdict::NotApplicable,
                reason: format!("Not applicable: {why}"),
                status: Some("skipped".to_owned()),
                threshold: Some(threshold),
                properties_null: true,
                warnings,
                ..Evaluation::default()
            });
        }
    };
    let mut turns = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let reply = judge(i, call);
        let mut e = match contract {
            Contract::V1_13 => evaluator.score(&threshold, &reply)?,
            Contract::V1_18 => evaluator.score_1_18(&threshold, &reply)?,
        };
        e.sample_input = Some(call.sample_input());
        turns.push(e);
    }
    let mut e = match turns.len() {
        0 => Evaluation {
            name: evaluator.result_key().to_owned(),
            threshold: Some(threshold),
            problem: Some("the conversation has no user and assistant message pair".to_owned()),
            ..Evaluation::default()
        },
        1 => turns.pop().unwrap_or_default(),
        _ => conversation_evaluation(evaluator, threshold, turns),
    };
    e.warnings.splice(0..0, warnings);
    Ok(e)
}

/// The reference's `sample_input` for a prompt rendered with `inputs`: a JSON list with
/// one user message whose content is the JSON of the inputs resolved against the
/// prompt's declared inputs (declared order; the given value, even `null`, else the
/// default; undeclared inputs left out).
pub fn sample_input(prompt: &prompty_syntax::Prompt, inputs: &Map<String, Value>) -> String {
    let mut resolved = Map::new();
    for p in prompt.inputs.iter().flatten() {
        if let Some(v) = inputs.get(&p.name) {
            resolved.insert(p.name.clone(), v.clone());
        } else if let Some(d) = &p.default {
            resolved.insert(p.name.clone(), d.clone());
        }
    }
    let content = crate::py::json_dumps(&Value::Object(resolved));
    format!("[{{\"role\": \"user\", \"content\": {}}}]", crate::py::json_dumps_str(&content))
}

/// Why a threshold the 1.18 reference ignores is misleading.
pub fn ignored_threshold(evaluator: AzureEvaluator) -> String {
    format!(
        "azure-ai-evaluation 1.18 ignores the threshold of {}: it passes a score of 1 or more and reports the threshold 3",
        evaluator.result_key()
    )
}

/// The evaluation of a conversation of several turns (see [`evaluate`]).
fn conversation_evaluation(
    evaluator: AzureEvaluator,
    threshold: crate::Threshold,
    turns: Vec<Evaluation>,
) -> Evaluation {
    let scores: Option<Vec<f64>> = turns.iter().map(|t| t.score).collect();
    let score = scores.map(|s| s.iter().sum::<f64>() / s.len() as f64);
    let verdict = match score {
        None => Verdict::Unknown,
        Some(s) if s >= threshold.value() => Verdict::Pass,
        Some(_) => Verdict::Fail,
    };
    let mut warnings = Vec::new();
    let last = turns.last().map(|t| t.verdict).unwrap_or_default();
    if last != verdict {
        warnings.push(format!(
            "the azure-ai-evaluation 1.18 result of this conversation is the last turn's `{}`, not the verdict `{}` of the mean score",
            last.as_str(),
            verdict.as_str()
        ));
    }
    if turns.iter().any(|t| t.verdict == Verdict::NotApplicable) {
        warnings.push(
            "a turn was skipped: azure-ai-evaluation 1.18 then reports the last turn's values instead of the means"
                .to_owned(),
        );
    }
    let passed = turns.iter().filter(|t| t.verdict == Verdict::Pass).count();
    if passed != 0 && passed != turns.len() {
        warnings.push(format!(
            "azure-ai-evaluation 1.18 reports `{}_passed` as the share of passing turns ({passed} of {}), not true or false",
            evaluator.result_key(),
            turns.len()
        ));
    }
    let reason = turns.last().map(|t| t.reason.clone()).unwrap_or_default();
    Evaluation {
        name: evaluator.result_key().to_owned(),
        score,
        verdict,
        reason,
        threshold: Some(threshold),
        warnings,
        turns,
        ..Evaluation::default()
    }
}
