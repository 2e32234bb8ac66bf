//! The result line of an evaluation run: what `prompty eval` writes for each data row and
//! what `eval compare` reads back, one type written and read by the same serde code.
//!
//! A line is an [`Evaluation`] with the data row's `id` and `line` number, or an error
//! record `{"id", "error": {"kind", "code", "message"}, "line"}` for a row that has no
//! evaluation. A run over several evaluators writes a [`RowResults`] line instead:
//! `{"id", "line", "evaluators": {KEY: evaluation or error record, ...}}`, one entry per
//! evaluator in command-line order, each exactly what a one-evaluator run writes without
//! `id` and `line`.

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
    /// The row lacks the field a column mapping or the id column names.
    #[serde(rename = "missing field")]
    MissingField,
    /// The row's id is not a string or a number, is empty, or is too long.
    #[serde(rename = "bad id")]
    BadId,
    /// The row's id is an earlier row's.
    #[serde(rename = "duplicate id")]
    DuplicateId,
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
            RowErrorKind::MissingField => codes::MISSING_FIELD_IN_ROW,
            RowErrorKind::BadId => codes::BAD_ROW_ID,
            RowErrorKind::DuplicateId => codes::DUPLICATE_ROW_ID,
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
            RowErrorKind::MissingField => "missing field",
            RowErrorKind::BadId => "bad id",
            RowErrorKind::DuplicateId => "duplicate id",
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

/// A data row's id: a string or a number from the data (the id column, or the `id`
/// field), or the row's line number. Two ids are one when their text is
/// (its `Display`): `7` and `"7"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RowId {
    /// A number.
    Number(serde_json::Number),
    /// A string.
    Text(String),
}

impl RowId {
    /// The id of a row that has none of its own: its line number.
    pub fn line(line: u64) -> Self {
        RowId::Number(line.into())
    }
}

impl std::fmt::Display for RowId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowId::Number(n) => write!(f, "{n}"),
            RowId::Text(s) => f.write_str(s),
        }
    }
}

impl RowOutcome {
    /// The outcome of a row.
    pub fn new(outcome: Result<Evaluation, RowError>) -> Self {
        match outcome {
            Ok(e) => RowOutcome::Evaluated(Box::new(e)),
            Err(error) => RowOutcome::Error { error },
        }
    }

    /// The evaluation, when the row has one.
    pub fn evaluation(&self) -> Option<&Evaluation> {
        match self {
            RowOutcome::Evaluated(e) => Some(e),
            RowOutcome::Error { .. } => None,
        }
    }

    /// The error record, when the row has one.
    pub fn error(&self) -> Option<&RowError> {
        match self {
            RowOutcome::Error { error } => Some(error),
            RowOutcome::Evaluated(_) => None,
        }
    }
}

/// One line of an evaluation run's results: a data row's id, outcome and line number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultLine {
    /// The row's id (absent from lines written before ids existed: the line number is
    /// the id then, [`ResultLine::row_id`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RowId>,
    /// The evaluation or the error record.
    #[serde(flatten)]
    pub outcome: RowOutcome,
    /// The data row's 1-based line number.
    pub line: u64,
}

impl ResultLine {
    /// The result of data line `line` (its id is the line number until [`ResultLine::with_id`]).
    pub fn new(line: u64, outcome: Result<Evaluation, RowError>) -> Self {
        ResultLine { id: None, outcome: RowOutcome::new(outcome), line }
    }

    /// The line with the row's id.
    #[must_use]
    pub fn with_id(mut self, id: RowId) -> Self {
        self.id = Some(id);
        self
    }

    /// The row's id: its `id`, else its line number.
    pub fn row_id(&self) -> RowId {
        self.id.clone().unwrap_or_else(|| RowId::line(self.line))
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
                if let Some(id) = &self.id {
                    o.insert("id".into(), serde_json::to_value(id).unwrap_or(Value::Null));
                }
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

/// One line of a run over several evaluators: the row's id and line, and each evaluator's
/// outcome under its key, in the run's order.
#[derive(Debug, Clone, PartialEq)]
pub struct RowResults {
    /// The row's id.
    pub id: RowId,
    /// The data row's 1-based line number.
    pub line: u64,
    /// Each evaluator's key and outcome.
    pub evaluators: Vec<(String, RowOutcome)>,
}

impl RowResults {
    /// Evaluator `key`'s result as a one-evaluator line.
    pub fn get(&self, key: &str) -> Option<ResultLine> {
        let (_, outcome) = self.evaluators.iter().find(|(k, _)| k == key)?;
        Some(ResultLine { id: Some(self.id.clone()), outcome: outcome.clone(), line: self.line })
    }

    /// Each evaluator's key and result as a one-evaluator line.
    pub fn lines(&self) -> impl Iterator<Item = (&str, ResultLine)> + '_ {
        self.evaluators.iter().map(|(k, outcome)| {
            (k.as_str(), ResultLine { id: Some(self.id.clone()), outcome: outcome.clone(), line: self.line })
        })
    }

    /// The line in this toolkit's layout.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The line in the layout of azure-ai-evaluation's `evaluate()` rows: each evaluator's
    /// keys ([`Evaluation::to_azure`] with its `layouts` entry) under `outputs.KEY.`, an
    /// error record as `outputs.KEY.error`; `id` and `line` as in our layout. Not read back.
    pub fn to_azure(&self, layouts: &[AzureLayout]) -> Value {
        let mut o = Map::new();
        o.insert("id".into(), serde_json::to_value(&self.id).unwrap_or(Value::Null));
        o.insert("line".into(), Value::from(self.line));
        for (i, (key, outcome)) in self.evaluators.iter().enumerate() {
            match (outcome, layouts.get(i)) {
                (RowOutcome::Evaluated(e), Some(layout)) => {
                    for (k, v) in e.to_azure(layout) {
                        o.insert(format!("outputs.{key}.{k}"), v);
                    }
                }
                (RowOutcome::Evaluated(e), None) => {
                    o.insert(format!("outputs.{key}"), serde_json::to_value(e).unwrap_or(Value::Null));
                }
                (RowOutcome::Error { error }, _) => {
                    o.insert(format!("outputs.{key}.error"), serde_json::to_value(error).unwrap_or(Value::Null));
                }
            }
        }
        Value::Object(o)
    }
}

impl Serialize for RowResults {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeStruct};
        struct Entries<'a>(&'a [(String, RowOutcome)]);
        impl Serialize for Entries<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut m = serializer.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        let mut s = serializer.serialize_struct("RowResults", 3)?;
        s.serialize_field("id", &self.id)?;
        s.serialize_field("line", &self.line)?;
        s.serialize_field("evaluators", &Entries(&self.evaluators))?;
        s.end()
    }
}

impl<'de> Deserialize<'de> for RowResults {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            id: RowId,
            line: u64,
            evaluators: Map<String, Value>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let mut evaluators = Vec::with_capacity(raw.evaluators.len());
        for (k, v) in raw.evaluators {
            let outcome =
                RowOutcome::deserialize(v).map_err(|e| serde::de::Error::custom(format!("evaluator `{k}`: {e}")))?;
            evaluators.push((k, outcome));
        }
        Ok(RowResults { id: raw.id, line: raw.line, evaluators })
    }
}
