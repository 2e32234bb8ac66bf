//! Turning a judge's answer into a score.
//!
//! Each answer format has its own small `nom` parser:
//!
//! | format | module | example answer |
//! |---|---|---|
//! | score tags | [`tags`] | `<S0>thinking</S0><S1>why</S1><S2>4</S2>` |
//! | JSON object | [`json`] | `{"explanation": "why", "score": 4}` (also inside fences or prose) |
//! | first digit | [`number`] | `stars: 4`, `4` |
//! | label | [`label`] | `TRUE`, `pass`, `0` |
//!
//! All of them return an [`Extracted`]. A missing score is `score: None`
//! with the reason in `score_problem`; a strategy never invents a score.

pub mod json;
pub mod label;
pub mod number;
pub mod tags;

use serde_json::{Map, Value};

use crate::error::Error;

/// What a strategy read from a judge answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Extracted {
    /// The score, if the answer holds one. `None` is the reference's NaN.
    pub score: Option<f64>,
    /// The explanation the judge gave (empty when there is none).
    pub reason: String,
    /// A label the judge gave (`pass`, `TRUE`, ...), as written.
    pub label: Option<String>,
    /// Extra structured details (`properties`/`details` of JSON answers).
    pub properties: Map<String, Value>,
    /// The `status` field of JSON answers (`completed`, `skipped`).
    pub status: Option<String>,
    /// The whole JSON object, for JSON answers.
    pub object: Option<Map<String, Value>>,
    /// Why `score` is `None`, when it is.
    pub score_problem: Option<Error>,
}

impl Extracted {
    /// An extraction that found nothing, for the given reason.
    pub fn missing(problem: Error) -> Self {
        Extracted { score_problem: Some(problem), ..Extracted::default() }
    }

    /// Whether a score was found.
    pub fn has_score(&self) -> bool {
        self.score.is_some()
    }
}

/// The answer formats a judge prompt can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnswerFormat {
    /// `<S0>/<S1>/<S2>` tags ([`tags`]).
    Tags,
    /// A JSON object ([`json`]).
    Json,
    /// The first digit of the answer ([`number`]).
    Number,
    /// A binary label ([`label`]).
    Label,
}

impl AnswerFormat {
    /// The configuration spelling (`tags`, `json`, `number`, `label`).
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerFormat::Tags => "tags",
            AnswerFormat::Json => "json",
            AnswerFormat::Number => "number",
            AnswerFormat::Label => "label",
        }
    }

    /// Parses the configuration spelling.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "tags" => Some(AnswerFormat::Tags),
            "json" => Some(AnswerFormat::Json),
            "number" => Some(AnswerFormat::Number),
            "label" => Some(AnswerFormat::Label),
            _ => None,
        }
    }
}

/// The largest judge answer the evaluators read: 4 MiB. Every extractor is linear in the
/// answer's length; the limit keeps one runaway answer (a model that never stops, a file
/// given by mistake) from holding a run for long and says so.
pub const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// `Ok` when `answer` is within [`MAX_ANSWER_BYTES`], else [`Error::AnswerTooLarge`].
pub fn check_answer_size(answer: &str) -> Result<(), Error> {
    if answer.len() > MAX_ANSWER_BYTES {
        return Err(Error::AnswerTooLarge { size: answer.len(), limit: MAX_ANSWER_BYTES });
    }
    Ok(())
}

type PResult<'a, T> = nom::IResult<&'a str, T, nom::error::Error<&'a str>>;
