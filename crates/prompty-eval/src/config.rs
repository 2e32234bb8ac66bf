//! Evaluator configuration: the `metadata.evaluator` block of a prompt's
//! front matter.
//!
//! `metadata` is free-form in the Prompty spec, so a prompt carrying this
//! block stays valid for every other tool. Example:
//!
//! ```yaml
//! metadata:
//!   evaluator:
//!     resultKey: coherence      # name of the result (default: prompt name)
//!     answer: tags              # tags | json | number | label
//!     range: [1, 5]             # score range (tags: single digits)
//!     validateRange: false      # true: a score outside the range is an error
//!     threshold: 3              # pass threshold
//!     direction: higher         # higher | lower | equal (pass iff == threshold)
//!     scoreKey: score           # json: key(s) holding the score
//!     reasonKey: [explanation, reason]   # json: key(s) holding the reason
//!     propertiesKey: [properties, details]
//!     labelKey: label
//!     statusKey: status
//!     scoreType: float          # float | int | bool: how the score is written
//!     strict: false             # true: an unreadable answer is an error, not unknown
//!     compat: coherence         # follow azure-ai-evaluation's evaluator of this name
//!     contract: "1.18"          # the judge contract: "1.13" or "1.18" (default: recognised
//!                               # from the prompt, else 1.13; see `Contract::recognise`)
//! ```
//!
//! Every key is optional. Unknown keys are errors naming the key. The block is read by
//! [`EvaluatorConfig::from_metadata`]; the built-in prompts are in [`builtin`](crate::builtin).

use serde_json::Number;

use crate::azure::evaluator::AzureEvaluator;
use crate::contract::Contract;
use crate::error::{Error, Result};
use crate::evaluation::ScoreForm;
use crate::extract::AnswerFormat;
use crate::extract::json::JsonFields;
use crate::extract::tags::DigitRange;
use crate::verdict::{Direction, ScoreRange, Threshold};

/// How to score the answers of one judge prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatorConfig {
    /// Name of the result (`coherence`); `None` means: use the prompt name.
    pub result_key: Option<String>,
    /// The answer format.
    pub answer: AnswerFormat,
    /// The score range, if any.
    pub range: Option<ScoreRange>,
    /// Whether a score outside `range` is an error (otherwise the range only
    /// bounds tag digits and documents the scale).
    pub validate_range: bool,
    /// The pass threshold.
    pub threshold: Threshold,
    /// How the score is compared with the threshold.
    pub direction: Direction,
    /// Keys of JSON answers.
    pub json: JsonFields,
    /// How the score is written in the reference layout.
    pub score_form: ScoreForm,
    /// Whether unreadable answers are errors instead of unknown verdicts.
    pub strict: bool,
    /// The reference evaluator whose exact behaviour to follow, if any.
    pub compat: Option<AzureEvaluator>,
    /// The judge contract, when the block (or the caller) names one; `None`: recognised
    /// from the prompt ([`Contract::recognise`]), else 1.13.
    pub contract: Option<Contract>,
}

impl Default for EvaluatorConfig {
    fn default() -> Self {
        EvaluatorConfig {
            result_key: None,
            answer: AnswerFormat::Json,
            range: None,
            validate_range: false,
            threshold: Threshold::from(3u8),
            direction: Direction::Higher,
            json: JsonFields::default(),
            score_form: ScoreForm::Float,
            strict: false,
            compat: None,
            contract: None,
        }
    }
}

pub(crate) const PREFIX: &str = "metadata.evaluator";

pub(crate) fn path(key: &str) -> String {
    format!("{PREFIX}.{key}")
}

impl EvaluatorConfig {
    /// The digit class of tag answers (`[1-5]` by default).
    pub fn digit_range(&self) -> Result<DigitRange> {
        let Some(range) = &self.range else {
            return Ok(DigitRange::ONE_TO_FIVE);
        };
        let digit = |n: &Number| n.as_u64().filter(|d| *d <= 9).and_then(|d| u8::try_from(d).ok());
        match (digit(&range.min), digit(&range.max)) {
            (Some(lo), Some(hi)) => {
                DigitRange::new(lo, hi).ok_or_else(|| Error::config(path("range"), "min is greater than max"))
            }
            _ => Err(Error::config(
                path("range"),
                "tag answers are read one digit at a time: the range must be two digits 0-9",
            )),
        }
    }
}
