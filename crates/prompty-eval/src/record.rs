//! The result line of an evaluation run: what `prompty eval` writes for each data row and
//! what `eval compare` reads back, one type written and read by the same serde code.
//!
//! A line is an [`Evaluation`] with the data row's `line` number, or an error record
//! `{"error": {"kind", "code", "message"}, "line"}` for a row that has no evaluation.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::evaluation::{AzureLayout, Evaluation};
#[cfg(doc)]
use crate::evaluator::Evaluator;

/// Why a data row has no evaluation. Each kind has a stable code (`PE1xx`, [`codes`](crate::codes)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum RowErrorKind {
    /// The data row is not UTF-8 text.
    #[serde(rename = "unreadable row")]
    RowNotUtf8,
    /// The data row is not valid JSON.
    #[serde(rename = "row not JSON")]
    RowNotJson,
    /// The data row is JSON but not an object.
    #[serde(rename = "row not an object")]
    RowNotObject,
    /// The data row lacks a required input or gives one of the wrong kind.
    #[serde(rename = "missing input")]
    MissingInput,
    /// The answer line is not UTF-8 text.
    #[serde(rename = "unreadable answer")]
    AnswerNotUtf8,
    /// The answer line cannot be read as a judge reply.
    #[serde(rename = "answer not understood")]
    AnswerNotUnderstood,
    /// The answers file ended before the data.
    #[serde(rename = "missing answer")]
    MissingAnswer,
    /// The judge's answer gives no evaluation.
    #[serde(rename = "evaluation failed")]
    EvaluationFailed,
    /// The judge prompt does not render with the row's inputs.
    #[serde(rename = "render failed")]
    RenderFailed,
    /// The rendered prompt does not compile into a request.
    #[serde(rename = "compile failed")]
    CompileFailed,
    /// The request cannot be built for the endpoint.
    #[serde(rename = "request not built")]
    RequestNotBuilt,
    /// The request failed after its retries.
    #[serde(rename = "request failed")]
    RequestFailed,
    /// The response cannot be read.
    #[serde(rename = "bad response")]
    BadResponse,
    /// The request cannot go into a provider batch file.
    #[serde(rename = "not batchable")]
    NotBatchable,
    /// The batch results have no result for the row.
    #[serde(rename = "missing batch result")]
    MissingBatchResult,
    /// The row's batch result answers another request (the prompt, model or row changed).
    #[serde(rename = "stale batch result")]
    StaleBatchResult,
}

impl RowErrorKind {
    /// The stable code.
    pub fn code(self) -> prompty_syntax::Code {
        use crate::codes;
        match self {
            RowErrorKind::RowNotUtf8 => codes::ROW_NOT_UTF8,
            RowErrorKind::RowNotJson => codes::ROW_NOT_JSON,
            RowErrorKind::RowNotObject => codes::ROW_NOT_OBJECT,
            RowErrorKind::MissingInput => codes::ROW_MISSING_INPUT,
            RowErrorKind::AnswerNotUtf8 => codes::ANSWER_NOT_UTF8,
            RowErrorKind::AnswerNotUnderstood => codes::ANSWER_NOT_UNDERSTOOD,
            RowErrorKind::MissingAnswer => codes::MISSING_ANSWER,
            RowErrorKind::EvaluationFailed => codes::EVALUATION_FAILED,
            RowErrorKind::RenderFailed => codes::RENDER_FAILED,
            RowErrorKind::CompileFailed => codes::COMPILE_FAILED,
            RowErrorKind::RequestNotBuilt => codes::REQUEST_NOT_BUILT,
            RowErrorKind::RequestFailed => codes::REQUEST_FAILED,
            RowErrorKind::BadResponse => codes::BAD_RESPONSE,
            RowErrorKind::NotBatchable => codes::NOT_BATCHABLE,
            RowErrorKind::MissingBatchResult => codes::MISSING_BATCH_RESULT,
            RowErrorKind::StaleBatchResult => codes::STALE_BATCH_RESULT,
        }
    }

    /// The kind as the result line writes it (`missing answer`), and the summary counts it.
    pub fn as_str(self) -> &'static str {
        match self {
            RowErrorKind::RowNotUtf8 => "unreadable row",
            RowErrorKind::RowNotJson => "row not JSON",
            RowErrorKind::RowNotObject => "row not an object",
            RowErrorKind::MissingInput => "missing input",
            RowErrorKind::AnswerNotUtf8 => "unreadable answer",
            RowErrorKind::AnswerNotUnderstood => "answer not understood",
            RowErrorKind::MissingAnswer => "missing answer",
            RowErrorKind::EvaluationFailed => "evaluation failed",
            RowErrorKind::RenderFailed => "render failed",
            RowErrorKind::CompileFailed => "compile failed",
            RowErrorKind::RequestNotBuilt => "request not built",
            RowErrorKind::RequestFailed => "request failed",
            RowErrorKind::BadResponse => "bad response",
            RowErrorKind::NotBatchable => "not batchable",
            RowErrorKind::MissingBatchResult => "missing batch result",
            RowErrorKind::StaleBatchResult => "stale batch result",
        }
    }
}

/// A data row's error record, written as `{"kind", "code", "message"}` (the code is its
/// kind's, and is not read back).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RowError {
    /// What went wrong.
    pub kind: RowErrorKind,
    /// `file:line: what`, values `${env:}` supplied shown as `${env:NAME}`.
    pub message: String,
}

impl Serialize for RowError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("RowError", 3)?;
        s.serialize_field("kind", &self.kind)?;
        s.serialize_field("code", self.kind.code().id)?;
        s.serialize_field("message", &self.message)?;
        s.end()
    }
}

impl RowError {
    /// An error record of `kind`.
    pub fn new(kind: RowErrorKind, message: impl Into<String>) -> Self {
        RowError { kind, message: message.into() }
    }

    /// The stable code of its kind.
    pub fn code(&self) -> prompty_syntax::Code {
        self.kind.code()
    }
}

/// What became of a data row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RowOutcome {
    /// No evaluation: why.
    Error {
        /// The error record.
        error: RowError,
    },
    /// The evaluation.
    Evaluated(Box<Evaluation>),
}

/// One line of an evaluation run's results: a data row's outcome and its line number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultLine {
    /// The evaluation or the error record.
    #[serde(flatten)]
    pub outcome: RowOutcome,
    /// The data row's 1-based line number.
    pub line: u64,
}

impl ResultLine {
    /// The result of data line `line`.
    pub fn new(line: u64, outcome: Result<Evaluation, RowError>) -> Self {
        let outcome = match outcome {
            Ok(e) => RowOutcome::Evaluated(Box::new(e)),
            Err(error) => RowOutcome::Error { error },
        };
        ResultLine { outcome, line }
    }

    /// The evaluation, when the row has one.
    pub fn evaluation(&self) -> Option<&Evaluation> {
        match &self.outcome {
            RowOutcome::Evaluated(e) => Some(e),
            RowOutcome::Error { .. } => None,
        }
    }

    /// Records the prompt inputs as the reference writes them (`sample_input` of the
    /// azure layouts), when the row has an evaluation.
    pub fn set_sample_input(&mut self, sample_input: String) {
        if let RowOutcome::Evaluated(e) = &mut self.outcome {
            e.sample_input = Some(sample_input);
        }
    }

    /// The error record, when the row has one.
    pub fn error(&self) -> Option<&RowError> {
        match &self.outcome {
            RowOutcome::Error { error } => Some(error),
            RowOutcome::Evaluated(_) => None,
        }
    }

    /// The line in this toolkit's layout (what [`ResultLine`] reads back).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The line in an azure-ai-evaluation key layout ([`Evaluator::azure_layout`]; an error
    /// record stays an error record): for tools that read the reference's results. Not
    /// read back.
    pub fn to_azure(&self, layout: &AzureLayout) -> Value {
        match &self.outcome {
            RowOutcome::Evaluated(e) => {
                let mut o: Map<String, Value> = e.to_azure(layout);
                o.insert("line".into(), Value::from(self.line));
                Value::Object(o)
            }
            RowOutcome::Error { .. } => self.to_json(),
        }
    }

    /// Reads a line of the default layout; `name` and `number` locate it in messages.
    pub fn parse(text: &str, name: &str, number: u64) -> Result<Self, crate::Error> {
        let fail = |message: String| crate::Error::NotAResult { name: name.to_owned(), line: number, message };
        let value: Value = serde_json::from_str(text).map_err(|e| fail(format!("not a result line: {e}")))?;
        if value.get("line").and_then(Value::as_u64).is_none() {
            return Err(fail("the result has no `line`; results are what `prompty eval` writes".to_owned()));
        }
        if value.get("verdict").is_none() && value.get("error").is_none() {
            return Err(fail(
                "not a result of the default layout (written with `--format azure`?); `prompty eval` without `--format` writes what this reads"
                    .to_owned(),
            ));
        }
        serde_json::from_value(value).map_err(|e| fail(format!("not a result line: {e}")))
    }
}
