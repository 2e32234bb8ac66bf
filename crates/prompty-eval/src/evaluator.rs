//! The configuration-driven evaluator: one judge answer in, one
//! [`Evaluation`] out.

use prompty_syntax::Secrets;

use crate::config::EvaluatorConfig;
use crate::contract::Contract;
use crate::error::{Error, Result};
use crate::evaluation::{Evaluation, JudgeReply};
use crate::extract::json::{self as json_answer, Parsed};
use crate::extract::{AnswerFormat, Extracted, label, number, tags};
use crate::verdict::{OutOfRange, Threshold, Verdict, verdict, verdict_in_range};

/// Where an evaluator's [contract](Evaluator::contract) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContractSource {
    /// `metadata.evaluator.contract`.
    Metadata,
    /// The prompt's text ([`Contract::recognise`]).
    Recognised,
    /// The caller ([`Evaluator::with_contract`]).
    Caller,
    /// Nothing named one: 1.13.
    Default,
}

impl ContractSource {
    /// How a report names it: `metadata.evaluator.contract`, `recognised from the
    /// prompt`, `chosen by the caller`, `default`.
    pub fn describe(self) -> &'static str {
        match self {
            ContractSource::Metadata => "metadata.evaluator.contract",
            ContractSource::Recognised => "recognised from the prompt",
            ContractSource::Caller => "chosen by the caller",
            ContractSource::Default => "default",
        }
    }
}

/// Scores judge answers as an [`EvaluatorConfig`] says.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluator {
    name: String,
    config: EvaluatorConfig,
    out_of_range: OutOfRange,
    /// Said of every evaluation (a threshold the 1.18 reference ignores).
    warnings: Vec<String>,
    contract_source: ContractSource,
    /// Values `${env:}` supplied to the prompt: never shown in an evaluation or an error.
    secrets: Secrets,
}

impl Evaluator {
    /// An evaluator named `name` (used when the configuration has no
    /// `resultKey`).
    pub fn new(name: impl Into<String>, config: EvaluatorConfig) -> Self {
        let name = config.result_key.clone().unwrap_or_else(|| name.into());
        Evaluator {
            name,
            config,
            out_of_range: OutOfRange::default(),
            warnings: Vec::new(),
            contract_source: ContractSource::Default,
            secrets: Secrets::new(),
        }
    }

    /// The evaluator a prompt configures: its `metadata.evaluator` block, else the known
    /// settings of the azure-ai-evaluation prompt of its name or of `file_stem` (the file
    /// name without `.prompty`). Named by the prompt's `name` (else `file_stem`, else
    /// `score`); the prompt's [secrets](prompty_syntax::Prompt::secrets) are applied, to
    /// the evaluator and to the configuration errors this returns.
    ///
    /// The contract is the block's `contract`, else the one the prompt's text asks for
    /// ([`Contract::recognise`]), else 1.13 ([`Evaluator::contract_source`] says which).
    pub fn for_prompt(prompt: &prompty_syntax::Prompt, file_stem: Option<&str>) -> Result<Self> {
        let metadata = prompt.metadata.clone().map(serde_json::Value::Object).unwrap_or(serde_json::Value::Null);
        let mut config = match EvaluatorConfig::from_metadata(&metadata) {
            Ok(Some(c)) => c,
            Ok(None) => file_stem
                .and_then(crate::builtin_config)
                .or_else(|| prompt.name.as_deref().and_then(crate::builtin_config))
                .ok_or(Error::NoEvaluator)?,
            Err(e) => return Err(e.redacted(&prompt.secrets)),
        };
        let source = match (config.contract, Contract::recognise(prompt)) {
            (Some(_), _) => ContractSource::Metadata,
            (None, Some(c)) => {
                config.contract = Some(c);
                ContractSource::Recognised
            }
            (None, None) => ContractSource::Default,
        };
        let name = prompt.name.clone().or_else(|| file_stem.map(str::to_owned)).unwrap_or_else(|| "score".to_owned());
        let mut evaluator = Evaluator::new(name, config).with_secrets(prompt.secrets.clone());
        evaluator.contract_source = source;
        Ok(evaluator)
    }

    /// The judge contract: how answers are read under [`compat`](EvaluatorConfig::compat)
    /// and which azure-ai-evaluation key layout the results have.
    pub fn contract(&self) -> Contract {
        self.config.contract.unwrap_or_default()
    }

    /// Where the contract came from.
    pub fn contract_source(&self) -> ContractSource {
        self.contract_source
    }

    /// Sets the contract (the command line's `--contract`, the facade's option). Call it
    /// before [`Evaluator::with_threshold`].
    #[must_use]
    pub fn with_contract(mut self, contract: Contract) -> Self {
        self.config.contract = Some(contract);
        self.contract_source = ContractSource::Caller;
        self
    }

    /// The evaluator with the values `${env:}` supplied to its prompt
    /// ([`Prompt::secrets`](prompty_syntax::Prompt::secrets)): its evaluations and errors
    /// show `${env:NAME}` wherever the name, the configuration or the answer would quote
    /// one (the result key included).
    ///
    /// ```
    /// use prompty_eval::{Evaluator, EvaluatorConfig, JudgeReply};
    /// use prompty_syntax::Secrets;
    ///
    /// let mut secrets = Secrets::new();
    /// secrets.add("JUDGE", "judge-sk-test-1234");
    /// let ev = Evaluator::new("judge-sk-test-1234", EvaluatorConfig::default()).with_secrets(secrets);
    /// let e = ev.evaluate(&JudgeReply::text("{\"score\": 4}")).unwrap();
    /// assert_eq!(e.name, "${env:JUDGE}");
    /// ```
    #[must_use]
    pub fn with_secrets(mut self, secrets: Secrets) -> Self {
        self.secrets = secrets;
        self
    }

    /// Overrides the configured threshold, as the reference evaluators' `threshold`
    /// constructor argument does. Refused for the reference evaluators whose threshold
    /// is fixed (their constructor takes none).
    pub fn with_threshold(mut self, threshold: Threshold) -> Result<Self> {
        if !threshold.value().is_finite() {
            return Err(Error::config("threshold", "expected a finite number"));
        }
        if let Some(reference) = self.config.compat.filter(|r| r.threshold_ignored_in_1_18())
            && self.contract() == Contract::V1_18
        {
            self.warnings.push(crate::azure::ignored_threshold(reference));
            return Ok(self);
        }
        if let Some(reference) = self.config.compat.filter(|r| r.fixed_threshold()) {
            return Err(Error::config(
                "threshold",
                format!(
                    "the {} evaluator's threshold is fixed at {}; it cannot be overridden",
                    reference.result_key(),
                    reference.default_threshold().0
                ),
            ));
        }
        self.config.threshold = threshold;
        Ok(self)
    }

    /// What a score outside the configured range means (default: [`OutOfRange::Unknown`]).
    #[must_use]
    pub fn with_out_of_range(mut self, policy: OutOfRange) -> Self {
        self.out_of_range = policy;
        self
    }

    /// Applies the out-of-range policy to a finished evaluation.
    fn check_range(&self, mut e: Evaluation) -> Evaluation {
        let Some(range) = &self.config.range else { return e };
        let before = e.verdict;
        if !matches!(before, Verdict::Pass | Verdict::Fail) {
            return e;
        }
        e.verdict = verdict_in_range(
            e.score,
            self.config.threshold.value(),
            self.config.direction,
            Some(range),
            self.out_of_range,
        );
        if e.verdict == Verdict::Unknown {
            let shown = e.score.map(|s| crate::py::repr_of(&crate::evaluation::float_value(s))).unwrap_or_default();
            e.problem = Some(format!(
                "the score {shown} is outside the evaluator's range [{}, {}]: no verdict",
                range.min, range.max
            ));
        }
        e
    }

    /// Whether a data row holds the reference evaluator's call arguments rather than the
    /// prompt's inputs: the evaluator follows a reference evaluator
    /// ([`compat`](EvaluatorConfig::compat)) and the row has a `conversation`, a
    /// `messages` list or a message-list `response`, which the reference splits into
    /// turns or flattens before it renders a prompt.
    pub fn takes_call_arguments(&self, row: &serde_json::Map<String, serde_json::Value>) -> bool {
        self.config.compat.is_some()
            && (row.contains_key("conversation")
                || row.contains_key("messages")
                || row.get("response").is_some_and(serde_json::Value::is_array))
    }

    /// Evaluates the reference evaluator's call arguments (a conversation, agent message
    /// lists; see [`Evaluator::takes_call_arguments`]) with one recorded reply per judge
    /// call the reference would make, in order: the calls are prepared, each reply
    /// scored, and a conversation's turns kept in [`Evaluation::turns`]. Fewer or more
    /// replies than calls is an error naming both counts.
    pub fn evaluate_call_arguments(
        &self,
        kwargs: &serde_json::Map<String, serde_json::Value>,
        replies: &[JudgeReply],
    ) -> Result<Evaluation> {
        let Some(reference) = self.config.compat else {
            return Err(Error::config(
                "compat",
                "only an evaluator that follows a reference evaluator takes call arguments",
            ));
        };
        let contract = self.contract();
        let calls = match reference.prepare(kwargs, contract.ref_version())? {
            crate::azure::Prepared::Calls(calls) => calls.len(),
            crate::azure::Prepared::NotApplicable(_) => 0,
        };
        if calls != replies.len() {
            return Err(Error::input(
                "answers",
                format!("the row makes {calls} judge call(s) but its answer line has {} answer(s)", replies.len()),
            ));
        }
        let mut init = serde_json::Map::new();
        if !reference.threshold_ignored_in_1_18() {
            init.insert("threshold".to_owned(), serde_json::Value::Number(self.config.threshold.0.clone()));
        }
        let mut judge = |i: usize, _: &crate::azure::JudgeCall| replies.get(i).cloned().unwrap_or_default();
        let mut e = crate::azure::evaluate(reference, &init, kwargs, contract, &mut judge)?;
        e.name = self.name.clone();
        e.warnings.extend(self.warnings.iter().cloned());
        Ok(e.redacted(&self.secrets))
    }

    /// The result key.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The azure-ai-evaluation key layout for this evaluator's results under its
    /// contract: the reference evaluator's own when the configuration follows one, else
    /// the base layout (1.13: score, `gpt_` score, reason, result, threshold; 1.18:
    /// score, `_score`, `_passed`, `_result`, `_reason`, `_status`, `_threshold`,
    /// `_properties`).
    pub fn azure_layout(&self) -> crate::AzureLayout {
        match self.config.compat {
            Some(reference) => reference.layout_for(self.contract()),
            None => crate::AzureLayout::base(self.contract()),
        }
    }

    /// `evaluation` (one of this evaluator's) as the azure-ai-evaluation evaluator it follows
    /// returns it, in the key layout of [`azure_layout`](Evaluator::azure_layout); where
    /// that is a reference evaluator's own layout, with the reference's results for a
    /// not-applicable and an empty answer
    /// ([`AzureEvaluator::record`](crate::AzureEvaluator::record)). `reply` is the reply the
    /// evaluation was scored from. Values `${env:}` supplied to the prompt show as
    /// `${env:NAME}`.
    pub fn azure_record(
        &self,
        evaluation: &Evaluation,
        reply: &JudgeReply,
    ) -> serde_json::Map<String, serde_json::Value> {
        // The layout is always `azure_layout`'s; where that is the reference evaluator's own,
        // its record adds the reference's not-applicable and empty-answer results.
        let layout = self.azure_layout();
        let mut record = match self.config.compat {
            Some(reference) if layout == reference.layout() => {
                reference.record(evaluation, reply.content_str().is_empty())
            }
            _ => evaluation.to_azure(&layout),
        };
        if !self.secrets.is_empty() {
            let mut value = serde_json::Value::Object(std::mem::take(&mut record));
            self.secrets.redact_json(&mut value);
            if let serde_json::Value::Object(map) = value {
                record = map;
            }
        }
        record
    }

    /// The configuration.
    pub fn config(&self) -> &EvaluatorConfig {
        &self.config
    }

    /// Reads an answer in the configured format. An answer over
    /// [`MAX_ANSWER_BYTES`](crate::extract::MAX_ANSWER_BYTES) is [`Error::AnswerTooLarge`].
    pub fn extract(&self, answer: &str) -> Result<Extracted> {
        self.extract_inner(answer).map_err(|e| e.redacted(&self.secrets))
    }

    fn extract_inner(&self, answer: &str) -> Result<Extracted> {
        crate::extract::check_answer_size(answer)?;
        let c = &self.config;
        match c.answer {
            AnswerFormat::Tags => Ok(tags::extract(answer, c.digit_range()?)),
            AnswerFormat::Number => Ok(number::extract(answer)),
            AnswerFormat::Json => json_answer::extract(answer, &c.json),
            AnswerFormat::Label => match json_answer::parse_answer(answer) {
                Ok(Parsed::Object(map)) => {
                    let key = c.json.score.iter().find(|k| map.contains_key(k.as_str())).cloned();
                    let fields = json_answer::JsonFields { score: Vec::new(), ..c.json.clone() };
                    let mut x = json_answer::read_object(map, &fields)?;
                    match key.and_then(|k| x.object.as_ref().and_then(|o| o.get(&k)).cloned()) {
                        Some(v) => match label::from_value(&v) {
                            Ok(b) => {
                                x.score = Some(if b { 1.0 } else { 0.0 });
                                x.score_problem = None;
                            }
                            Err(problem) => {
                                x.score = None;
                                x.score_problem = Some(problem);
                            }
                        },
                        None => {
                            x.score = None;
                            x.score_problem =
                                Some(Error::MissingField { field: c.json.score.first().cloned().unwrap_or_default() });
                        }
                    }
                    Ok(x)
                }
                _ => Ok(label::extract(answer)),
            },
        }
    }

    /// Scores one judge reply. Answers without a usable score give an
    /// [`Verdict::Unknown`] evaluation whose `problem` says why (an error
    /// instead when the configuration is `strict`); a score outside a
    /// validated range is always an error. A `status: skipped` JSON answer
    /// is [`Verdict::NotApplicable`].
    pub fn evaluate(&self, reply: &JudgeReply) -> Result<Evaluation> {
        if self.secrets.is_empty() {
            return self.evaluate_inner(reply);
        }
        self.evaluate_inner(reply).map(|e| e.redacted(&self.secrets)).map_err(|e| e.redacted(&self.secrets))
    }

    fn evaluate_inner(&self, reply: &JudgeReply) -> Result<Evaluation> {
        let c = &self.config;
        if let Some(reference) = c.compat {
            if self.contract() == Contract::V1_18 {
                // The reference's own threshold where it ignores the configured one.
                let threshold =
                    if reference.threshold_ignored_in_1_18() { Threshold::from(3u8) } else { c.threshold.clone() };
                let mut e = reference.score_1_18(&threshold, reply)?;
                e.name = self.name.clone();
                e.warnings.extend(self.warnings.iter().cloned());
                let (lo, hi) = reference.scale_1_18();
                if let Some(score) = e.score.filter(|s| !(lo..=hi).contains(s)) {
                    let shown = crate::py::repr_of(&crate::evaluation::float_value(score));
                    e.warnings.push(format!(
                        "the score {shown} is outside {}'s scale {lo} to {hi}; azure-ai-evaluation 1.18 compares it with the threshold as it stands ({})",
                        reference.result_key(),
                        e.verdict.as_str()
                    ));
                }
                return Ok(e);
            }
            let mut e = reference.score(&c.threshold, reply)?;
            e.name = self.name.clone();
            return Ok(self.check_range(e));
        }
        let answer = reply.content_str();
        let x = match self.extract(answer) {
            Err(too_large @ Error::AnswerTooLarge { .. }) => return Err(too_large),
            Ok(x) => x,
            Err(problem) if !c.strict && problem.is_answer_error() => Extracted::missing(problem),
            Err(problem) => return Err(problem),
        };
        if let Some(problem) = x.score_problem.clone().filter(|_| c.strict) {
            return Err(problem);
        }
        let mut e = Evaluation {
            name: self.name.clone(),
            score: x.score,
            score_form: c.score_form,
            reason: x.reason,
            label: x.label,
            threshold: Some(c.threshold.clone()),
            details: c.json.properties.iter().find_map(|k| x.object.as_ref().and_then(|o| o.get(k.as_str())).cloned()),
            properties: x.properties,
            status: x.status,
            problem: x.score_problem.map(|p| p.to_string()),
            ..Evaluation::default()
        };
        if e.status.as_deref() == Some("skipped") {
            e.verdict = Verdict::NotApplicable;
            e.score = None;
            if self.contract() == Contract::V1_18 {
                // A skipped answer has no score by the contract: nothing is wrong.
                e.problem = None;
            }
            e.reason = format!("Not applicable: {}", e.reason);
            return Ok(e.with_reply(reply));
        }
        if let Some(range) = c.range.as_ref().filter(|_| c.validate_range) {
            let shown = match e.score {
                Some(s) => crate::py::repr_of(&crate::evaluation::float_value(s)),
                None => "nan".to_owned(),
            };
            range.check(e.score, &shown)?;
        }
        e.verdict = verdict(e.score, c.threshold.value(), c.direction);
        Ok(self.check_range(e).with_reply(reply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Direction;
    use serde_json::json;

    fn config(block: serde_json::Value) -> EvaluatorConfig {
        EvaluatorConfig::from_block(&block).unwrap_or_default()
    }

    #[test]
    fn json_answer_in_fence() {
        let ev = Evaluator::new("quality", config(json!({"answer": "json", "threshold": 4})));
        let e = ev.evaluate(&JudgeReply::text("Sure:\n```json\n{\"score\": 4, \"reason\": \"ok\",}\n```"));
        let e = e.unwrap_or_default();
        assert_eq!(e.score, Some(4.0));
        assert_eq!(e.reason, "ok");
        assert_eq!(e.verdict, Verdict::Pass);
    }

    #[test]
    fn unparsable_is_unknown_not_pass() {
        let ev = Evaluator::new("quality", config(json!({"answer": "json", "threshold": 0})));
        let e = ev.evaluate(&JudgeReply::text("no json here")).unwrap_or_default();
        assert_eq!(e.verdict, Verdict::Unknown);
        assert_eq!(e.score, None);
        assert!(e.problem.is_some());
    }

    #[test]
    fn strict_makes_it_an_error() {
        let ev = Evaluator::new("quality", config(json!({"answer": "json", "strict": true})));
        assert!(ev.evaluate(&JudgeReply::text("no json here")).is_err());
        assert!(ev.evaluate(&JudgeReply::text("{\"reason\": \"x\"}")).is_err());
    }

    #[test]
    fn validated_range() {
        let ev = Evaluator::new("q", config(json!({"answer": "json", "range": [1, 5], "validateRange": true})));
        let err = ev.evaluate(&JudgeReply::text("{\"score\": 7}")).err();
        assert!(matches!(err, Some(Error::ScoreOutOfRange { .. })));
    }

    #[test]
    fn lower_is_better() {
        let mut c = config(json!({"answer": "number"}));
        c.direction = Direction::Lower;
        c.threshold = Threshold::from(2u8);
        let ev = Evaluator::new("harm", c);
        let e = ev.evaluate(&JudgeReply::text("1")).unwrap_or_default();
        assert_eq!(e.verdict, Verdict::Pass);
    }

    #[test]
    fn label_answers() {
        let ev = Evaluator::new("ok", config(json!({"answer": "label", "direction": "equal", "threshold": 1})));
        let e = ev.evaluate(&JudgeReply::text("FALSE")).unwrap_or_default();
        assert_eq!((e.score, e.verdict), (Some(0.0), Verdict::Fail));
        let c = config(json!({"answer": "label", "direction": "equal", "threshold": 1, "scoreKey": "success"}));
        let ev = Evaluator::new("ok", c);
        let e =
            ev.evaluate(&JudgeReply::text("{\"success\": \"TRUE\", \"explanation\": \"done\"}")).unwrap_or_default();
        assert_eq!((e.score, e.verdict, e.reason.as_str()), (Some(1.0), Verdict::Pass, "done"));
    }

    #[test]
    fn threshold_override_and_out_of_range() {
        let ev = Evaluator::new("q", config(json!({"answer": "json", "range": [1, 5], "threshold": 3})));
        let e = ev.evaluate(&JudgeReply::text("{\"score\": 4}")).unwrap_or_default();
        assert_eq!(e.verdict, Verdict::Pass);
        let strict = ev.clone().with_threshold(Threshold::from(5u8)).unwrap_or_else(|_| ev.clone());
        let e = strict.evaluate(&JudgeReply::text("{\"score\": 4}")).unwrap_or_default();
        assert_eq!((e.verdict, e.threshold), (Verdict::Fail, Some(Threshold::from(5u8))));
        let e = ev.evaluate(&JudgeReply::text("{\"score\": 7}")).unwrap_or_default();
        assert_eq!((e.score, e.verdict), (Some(7.0), Verdict::Unknown));
        assert_eq!(e.problem.as_deref(), Some("the score 7.0 is outside the evaluator's range [1, 5]: no verdict"));
        let allowing = ev.with_out_of_range(OutOfRange::Allow);
        let e = allowing.evaluate(&JudgeReply::text("{\"score\": 7}")).unwrap_or_default();
        assert_eq!((e.verdict, e.problem), (Verdict::Pass, None));
    }

    #[test]
    fn fixed_thresholds_cannot_be_overridden() {
        let c = crate::AzureEvaluator::ToolSuccess.config();
        let err = Evaluator::new("t", c).with_threshold(Threshold::from(0u8)).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "invalid evaluator configuration at `threshold`: the tool_success evaluator's threshold is fixed at 1; it cannot be overridden"
            )
        );
        let c = crate::AzureEvaluator::Relevance.config();
        assert!(Evaluator::new("r", c).with_threshold(Threshold::from(4u8)).is_ok());
    }

    #[test]
    fn call_arguments_need_one_answer_per_judge_call() {
        let ev = Evaluator::new("coherence", crate::AzureEvaluator::Coherence.config()).with_contract(Contract::V1_18);
        let conversation = json!({"conversation": {"messages": [
            {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}
        ]}});
        let kwargs = conversation.as_object().cloned().unwrap_or_default();
        assert!(ev.takes_call_arguments(&kwargs));
        let one = [JudgeReply::text("{\"score\": 4, \"status\": \"completed\"}")];
        let err = ev.evaluate_call_arguments(&kwargs, &one).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("invalid input `answers`: the row makes 2 judge call(s) but its answer line has 1 answer(s)")
        );
        let two = [one[0].clone(), JudgeReply::text("{\"score\": 2, \"status\": \"completed\"}")];
        let e = ev.evaluate_call_arguments(&kwargs, &two).unwrap_or_default();
        assert_eq!((e.score, e.verdict, e.turns.len()), (Some(3.0), Verdict::Pass, 2));
        // The reference's label is the last turn's: the record says so.
        assert!(e.warnings.iter().any(|w| w.contains("last turn's `fail`")), "{:?}", e.warnings);
        // A custom evaluator never takes call arguments.
        assert!(!Evaluator::new("q", EvaluatorConfig::default()).takes_call_arguments(&kwargs));
    }

    #[test]
    fn task_adherence_ignores_a_threshold_under_1_18_and_says_so() {
        let c = crate::AzureEvaluator::TaskAdherence.config();
        let ev = Evaluator::new("task_adherence", c).with_contract(Contract::V1_18);
        let ev = ev.with_threshold(Threshold::from(5u8)).unwrap_or_else(|_| panic!("accepted"));
        let e = ev.evaluate(&JudgeReply::text("{\"score\": 1, \"status\": \"completed\"}")).unwrap_or_default();
        assert_eq!((e.verdict, e.threshold), (Verdict::Pass, Some(Threshold::from(3u8))));
        assert!(e.warnings.iter().any(|w| w.contains("ignores the threshold")), "{:?}", e.warnings);
    }

    #[test]
    fn azure_record_is_the_reference_result() {
        let ev = Evaluator::new("coherence", crate::AzureEvaluator::Coherence.config());
        let reply = JudgeReply::text("<S1>Clear.</S1><S2>4</S2>");
        let e = ev.evaluate(&reply).unwrap_or_default();
        let record = ev.azure_record(&e, &reply);
        let keys: Vec<&str> = record.keys().map(String::as_str).take(5).collect();
        assert_eq!(keys, ["coherence", "gpt_coherence", "coherence_reason", "coherence_result", "coherence_threshold"]);
        // An empty answer: the reference's record has no reason and no metadata.
        let empty = JudgeReply::text("");
        let e = ev.evaluate(&empty).unwrap_or_default();
        let keys: Vec<String> = ev.azure_record(&e, &empty).keys().cloned().collect();
        assert_eq!(keys, ["coherence", "gpt_coherence", "coherence_result", "coherence_threshold"]);
        // A prompt's own evaluator: the base layout.
        let own = Evaluator::new("quality", config(json!({"answer": "json"})));
        let reply = JudgeReply::text("{\"score\": 2, \"reason\": \"vague\"}");
        let record = own.azure_record(&own.evaluate(&reply).unwrap_or_default(), &reply);
        assert_eq!(record["quality_reason"], "vague");
        assert_eq!(record["gpt_quality"], 2.0);
    }

    #[test]
    fn skipped_status_is_not_applicable() {
        let ev = Evaluator::new("q", config(json!({"answer": "json"})));
        let e =
            ev.evaluate(&JudgeReply::text("{\"status\": \"skipped\", \"reason\": \"no tools\"}")).unwrap_or_default();
        assert_eq!(e.verdict, Verdict::NotApplicable);
        assert_eq!(e.reason, "Not applicable: no tools");
    }
}
