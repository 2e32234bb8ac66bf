//! The scoring settings of each reference evaluator.

use crate::config::EvaluatorConfig;
use crate::evaluation::ScoreForm;
use crate::extract::AnswerFormat;
use crate::extract::json::JsonFields;
use crate::verdict::{Direction, ScoreRange, Threshold};

use super::evaluator::AzureEvaluator;

use AzureEvaluator as E;

impl AzureEvaluator {
    /// This evaluator's settings as an [`EvaluatorConfig`].
    pub fn config(self) -> EvaluatorConfig {
        let key = |k: &str| vec![k.to_owned()];
        let mut json = JsonFields::default();
        let mut c = EvaluatorConfig {
            result_key: Some(self.result_key().to_owned()),
            threshold: self.default_threshold(),
            compat: Some(self),
            ..EvaluatorConfig::default()
        };
        match self {
            E::Coherence | E::Fluency | E::Groundedness | E::Retrieval => {
                c.answer = AnswerFormat::Tags;
                c.range = Some(ScoreRange::new(1, 5));
            }
            E::ResponseCompleteness => {
                c.answer = AnswerFormat::Tags;
                c.range = Some(ScoreRange::new(1, 5));
                c.score_form = ScoreForm::Int;
            }
            E::Similarity => {
                c.answer = AnswerFormat::Number;
                c.range = Some(ScoreRange::new(1, 5));
            }
            E::Relevance => {
                json.reason = key("explanation");
                c.range = Some(ScoreRange::new(1, 5));
            }
            E::IntentResolution => {
                json.reason = key("explanation");
                c.range = Some(ScoreRange::new(1, 5));
                c.validate_range = true;
            }
            E::TaskAdherence => {
                c.answer = AnswerFormat::Label;
                json.score = key("flagged");
                json.reason = key("reasoning");
                c.direction = Direction::Equal;
                c.threshold = Threshold::from(1u8);
            }
            E::TaskCompletion => {
                c.answer = AnswerFormat::Label;
                json.score = key("success");
                json.reason = key("explanation");
                json.properties = key("details");
                c.direction = Direction::Equal;
                c.threshold = Threshold::from(1u8);
                c.score_form = ScoreForm::Int;
            }
            E::ToolCallAccuracy => {
                json.score = key("tool_calls_success_level");
                json.reason = key("chain_of_thought");
                json.properties = key("details");
                c.range = Some(ScoreRange::new(1, 5));
                c.validate_range = true;
            }
            E::ToolSelection => {
                json.reason = key("explanation");
                json.properties = key("details");
                c.direction = Direction::Equal;
                c.score_form = ScoreForm::Int;
            }
            E::ToolInputAccuracy => {
                json.score = key("result");
                json.reason = key("chain_of_thought");
                json.properties = key("details");
                c.direction = Direction::Equal;
                c.score_form = ScoreForm::Int;
            }
            E::ToolOutputUtilization => {
                c.answer = AnswerFormat::Label;
                json.score = key("label");
                json.label = key("label");
                json.reason = key("reason");
            }
            E::ToolSuccess | E::ToolCallSuccess => {
                c.answer = AnswerFormat::Label;
                json.score = key("success");
                json.reason = key("explanation");
                json.properties = key("details");
            }
        }
        c.json = json;
        c
    }
}
