//! The one error type of this crate.

/// Broad class of an [`Error`], mirroring the categories that
/// azure-ai-evaluation attaches to its exceptions, so callers can map errors
/// onto the same dashboards and retry policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCategory {
    /// The judge answered, but its answer cannot be turned into a result.
    FailedExecution,
    /// A value given by the caller (inputs, configuration) is not acceptable.
    InvalidValue,
    /// A value the caller must give is missing.
    MissingField,
    /// The caller named something this crate does not know.
    UnknownField,
}

impl ErrorCategory {
    /// The reference library's name for the category (`FAILED_EXECUTION`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCategory::FailedExecution => "FAILED_EXECUTION",
            ErrorCategory::InvalidValue => "INVALID_VALUE",
            ErrorCategory::MissingField => "MISSING_FIELD",
            ErrorCategory::UnknownField => "UNKNOWN_FIELD",
        }
    }
}

/// Everything that can go wrong in this crate.
///
/// Variants about the judge's answer say what was wrong with the answer;
/// variants about configuration name the offending key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The answer is empty (or only whitespace) where a value was required.
    #[error("the judge answer is empty")]
    EmptyAnswer,
    /// No `<S2>...</S2>` tag holding a digit of the accepted range was found.
    #[error("no score tag: {detail}")]
    NoTagScore {
        /// What the tag scanner saw instead.
        detail: String,
    },
    /// The answer contains no digit at all.
    #[error("the judge answer contains no digit")]
    NoDigit,
    /// The answer contains no `{...}` JSON object.
    #[error("the judge answer holds no JSON object")]
    NoJsonObject,
    /// A `{...}` block was found but is not valid JSON, even after removing
    /// trailing commas.
    #[error("the judge answer is not valid JSON: {message}")]
    InvalidJson {
        /// The JSON parser's message.
        message: String,
    },
    /// The answer is valid JSON but not an object.
    #[error("the judge answer is a JSON {found}, not an object")]
    NotAnObject {
        /// The JSON type found (`array`, `string`, ...).
        found: &'static str,
    },
    /// The answer is not one of the accepted labels.
    #[error("the judge answer `{answer}` is not a label (expected one of {expected})")]
    UnknownLabel {
        /// The answer (or field value) as given.
        answer: String,
        /// The accepted spellings.
        expected: String,
    },
    /// A field that must be present in a JSON answer is missing.
    #[error("the judge answer has no `{field}` field")]
    MissingField {
        /// The field name.
        field: String,
    },
    /// The score field holds something that is not a number.
    #[error("the `{field}` field holds {value}, which is not a number")]
    ScoreNotNumeric {
        /// The field name.
        field: String,
        /// The value, as Python's `str()` would print it.
        value: String,
    },
    /// The score field holds an infinite number (`"inf"`, `"-Infinity"`, `"1e999"`):
    /// no score, never a pass.
    #[error("the `{field}` field holds {value}, which is not a finite number")]
    ScoreNotFinite {
        /// The field name.
        field: String,
        /// The value, as Python's `str()` would print it.
        value: String,
    },
    /// The judge answer is larger than [`MAX_ANSWER_BYTES`](crate::extract::MAX_ANSWER_BYTES).
    #[error(
        "the judge answer is {size} bytes, more than the {limit}-byte limit; a judge's answer is a score and a short reason"
    )]
    AnswerTooLarge {
        /// The answer's size in bytes.
        size: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// The score is outside the range the evaluator validates.
    #[error("Invalid score value: {value}. Expected a number in range [{min}, {max}].")]
    ScoreOutOfRange {
        /// The score, as Python's `str()` would print it.
        value: String,
        /// Lower bound, as written in the configuration.
        min: String,
        /// Upper bound, as written in the configuration.
        max: String,
    },
    /// The score is not one of the values the evaluator accepts.
    #[error("Invalid score value: {value}. Expected one of {allowed}.")]
    ScoreNotAllowed {
        /// The score, as Python's `str()` would print it.
        value: String,
        /// The accepted values.
        allowed: String,
    },
    /// The score is neither 0 nor 1 where the evaluator accepts only those (the 1.18
    /// tool_selection and tool_input_accuracy evaluators).
    #[error("Invalid score value: {value}. Expected 0 or 1.")]
    ScoreNotBinary {
        /// The score, as Python's `str()` would print it.
        value: String,
    },
    /// The evaluator stores its score as an integer but the answer gave none
    /// (the reference fails with "cannot convert float NaN to integer").
    #[error("cannot convert float NaN to integer: the judge answer has no usable score")]
    NanToInteger,
    /// The evaluator configuration is invalid.
    #[error("invalid evaluator configuration at `{key}`: {message}")]
    Config {
        /// Dotted path of the offending key, e.g. `evaluator.threshold`.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// The evaluator configuration names something unknown.
    #[error("unknown evaluator configuration key `{key}`")]
    UnknownConfigKey {
        /// Dotted path of the unknown key.
        key: String,
    },
    /// An evaluation input is missing or malformed.
    #[error("invalid input `{field}`: {message}")]
    Input {
        /// The input name (`query`, `conversation`, ...).
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// A required evaluation input is missing.
    #[error("missing input `{field}`: {message}")]
    MissingInput {
        /// The input name.
        field: String,
        /// Context for the message.
        message: String,
    },
    /// The prompt configures no evaluator: no `metadata.evaluator` block, and neither its
    /// name nor its file name is a known evaluator prompt.
    #[error(
        "no `metadata.evaluator` block and not a known evaluator prompt; add `metadata: {{evaluator: {{answer: json, range: [1, 5], threshold: 3}}}}`"
    )]
    NoEvaluator,
    /// A JSON-lines file cannot be read further: where the next line starts is unknown.
    #[error("{name}:{line}: cannot read: {message}; stopping here")]
    Read {
        /// The file's name as the caller gave it.
        name: String,
        /// The 1-based number of the line being read.
        line: u64,
        /// What the system said.
        message: String,
    },
    /// A line of a JSON-lines file is longer than [`MAX_LINE_BYTES`](crate::rows::MAX_LINE_BYTES).
    #[error("{name}:{line}: the line is longer than the {limit}-byte limit; one line holds one JSON value")]
    LineTooLong {
        /// The file's name.
        name: String,
        /// The 1-based line number.
        line: u64,
        /// The limit in bytes.
        limit: usize,
    },
    /// A recorded answer or provider response that cannot be read as a judge reply (an
    /// expired batch request, a provider response of the wrong shape).
    #[error("{message}")]
    BadReply {
        /// What is wrong with it.
        message: String,
    },
    /// A line of a results file that is not a result line of the default layout.
    #[error("{name}:{line}: {message}")]
    NotAResult {
        /// The file's name.
        name: String,
        /// The 1-based line number.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// A run option (a column mapping, the id column, a per-evaluator setting, a
    /// regression gate) is malformed or names something the run does not have.
    #[error("{option}: {message}")]
    RunOption {
        /// The option as given (`--map query=question`).
        option: String,
        /// What is wrong and what to do.
        message: String,
    },
}

impl Error {
    /// The category of this error (see [`ErrorCategory`]).
    pub fn category(&self) -> ErrorCategory {
        match self {
            Error::EmptyAnswer
            | Error::NoTagScore { .. }
            | Error::NoDigit
            | Error::NoJsonObject
            | Error::InvalidJson { .. }
            | Error::NotAnObject { .. }
            | Error::UnknownLabel { .. }
            | Error::MissingField { .. }
            | Error::ScoreNotNumeric { .. }
            | Error::ScoreNotFinite { .. }
            | Error::AnswerTooLarge { .. }
            | Error::ScoreOutOfRange { .. }
            | Error::ScoreNotAllowed { .. }
            | Error::ScoreNotBinary { .. }
            | Error::NanToInteger => ErrorCategory::FailedExecution,
            Error::Config { .. } | Error::Input { .. } => ErrorCategory::InvalidValue,
            Error::UnknownConfigKey { .. } => ErrorCategory::UnknownField,
            Error::MissingInput { .. } | Error::NoEvaluator => ErrorCategory::MissingField,
            Error::BadReply { .. } => ErrorCategory::FailedExecution,
            Error::Read { .. } | Error::LineTooLong { .. } | Error::NotAResult { .. } => ErrorCategory::InvalidValue,
            Error::RunOption { .. } => ErrorCategory::InvalidValue,
        }
    }

    /// The stable diagnostic code (`PE0xx`; see [`codes`](crate::codes)).
    pub fn code(&self) -> prompty_syntax::Code {
        use crate::codes;
        match self {
            Error::EmptyAnswer => codes::EMPTY_ANSWER,
            Error::NoTagScore { .. } => codes::NO_TAG_SCORE,
            Error::NoDigit => codes::NO_DIGIT,
            Error::NoJsonObject => codes::NO_JSON_OBJECT,
            Error::InvalidJson { .. } => codes::INVALID_JSON,
            Error::NotAnObject { .. } => codes::NOT_AN_OBJECT,
            Error::UnknownLabel { .. } => codes::UNKNOWN_LABEL,
            Error::MissingField { .. } => codes::MISSING_FIELD,
            Error::ScoreNotNumeric { .. } => codes::SCORE_NOT_NUMERIC,
            Error::ScoreNotFinite { .. } => codes::SCORE_NOT_FINITE,
            Error::AnswerTooLarge { .. } => codes::ANSWER_TOO_LARGE,
            Error::ScoreOutOfRange { .. } => codes::SCORE_OUT_OF_RANGE,
            Error::ScoreNotAllowed { .. } => codes::SCORE_NOT_ALLOWED,
            Error::NanToInteger => codes::NAN_TO_INTEGER,
            Error::ScoreNotBinary { .. } => codes::SCORE_NOT_BINARY,
            Error::Config { .. } => codes::CONFIG,
            Error::UnknownConfigKey { .. } => codes::UNKNOWN_CONFIG_KEY,
            Error::Input { .. } => codes::INVALID_INPUT,
            Error::MissingInput { .. } => codes::MISSING_INPUT,
            Error::NoEvaluator => codes::NO_EVALUATOR,
            Error::Read { .. } => codes::READ_FAILED,
            Error::LineTooLong { .. } => codes::LINE_TOO_LONG,
            Error::BadReply { .. } => codes::BAD_REPLY,
            Error::NotAResult { .. } => codes::NOT_A_RESULT,
            Error::RunOption { .. } => codes::RUN_OPTION,
        }
    }

    /// The error as an error-level diagnostic. Evaluation errors are about the judge's answer
    /// or the evaluator as a whole, not a place in the prompt file: the span is empty.
    pub fn to_diagnostic(&self) -> prompty_syntax::Diagnostic {
        prompty_syntax::Diagnostic::error(self.code(), 0..0, self.to_string())
    }

    /// Whether the error is about the judge's answer (as opposed to the
    /// caller's inputs or configuration).
    pub fn is_answer_error(&self) -> bool {
        self.category() == ErrorCategory::FailedExecution
    }

    /// The error with every value `${env:}` supplied to the prompt shown as its reference
    /// (`${env:NAME}`): configuration errors quote the prompt's front matter.
    pub fn redacted(mut self, secrets: &prompty_syntax::Secrets) -> Self {
        for s in self.strings_mut() {
            secrets.redact_string(s);
        }
        self
    }

    /// Every text field, which may quote the configuration or the answer.
    fn strings_mut(&mut self) -> Vec<&mut String> {
        match self {
            Error::NoTagScore { detail } => vec![detail],
            Error::InvalidJson { message } => vec![message],
            Error::UnknownLabel { answer, expected } => vec![answer, expected],
            Error::MissingField { field } | Error::UnknownConfigKey { key: field } => vec![field],
            Error::ScoreNotNumeric { field, value } | Error::ScoreNotFinite { field, value } => vec![field, value],
            Error::ScoreOutOfRange { value, min, max } => vec![value, min, max],
            Error::ScoreNotAllowed { value, allowed } => vec![value, allowed],
            Error::ScoreNotBinary { value } => vec![value],
            Error::Config { key, message } => vec![key, message],
            Error::Input { field, message }
            | Error::MissingInput { field, message }
            | Error::RunOption { option: field, message } => vec![field, message],
            Error::Read { message, .. } | Error::BadReply { message } | Error::NotAResult { message, .. } => {
                vec![message]
            }
            Error::NoEvaluator | Error::LineTooLong { .. } => Vec::new(),
            Error::EmptyAnswer
            | Error::NoDigit
            | Error::NoJsonObject
            | Error::NotAnObject { .. }
            | Error::AnswerTooLarge { .. }
            | Error::NanToInteger => Vec::new(),
        }
    }

    pub(crate) fn config(key: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Config { key: key.into(), message: message.into() }
    }

    pub(crate) fn run_option(option: impl Into<String>, message: impl Into<String>) -> Self {
        Error::RunOption { option: option.into(), message: message.into() }
    }

    pub(crate) fn input(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Input { field: field.into(), message: message.into() }
    }
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<&Error> for prompty_syntax::Diagnostic {
    fn from(e: &Error) -> Self {
        e.to_diagnostic()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant has its own error-level code, listed in `codes::ALL`.
    #[test]
    fn every_error_has_a_listed_code() {
        let s = || "x".to_owned();
        let all = [
            Error::EmptyAnswer,
            Error::NoTagScore { detail: s() },
            Error::NoDigit,
            Error::NoJsonObject,
            Error::InvalidJson { message: s() },
            Error::NotAnObject { found: "array" },
            Error::UnknownLabel { answer: s(), expected: s() },
            Error::MissingField { field: s() },
            Error::ScoreNotNumeric { field: s(), value: s() },
            Error::ScoreNotFinite { field: s(), value: s() },
            Error::AnswerTooLarge { size: 2, limit: 1 },
            Error::ScoreOutOfRange { value: s(), min: s(), max: s() },
            Error::ScoreNotAllowed { value: s(), allowed: s() },
            Error::NanToInteger,
            Error::ScoreNotBinary { value: s() },
            Error::config("k", "m"),
            Error::UnknownConfigKey { key: s() },
            Error::input("f", "m"),
            Error::MissingInput { field: s(), message: s() },
            Error::NoEvaluator,
            Error::Read { name: s(), line: 1, message: s() },
            Error::LineTooLong { name: s(), line: 1, limit: 2 },
            Error::BadReply { message: s() },
            Error::NotAResult { name: s(), line: 1, message: s() },
            Error::RunOption { option: s(), message: s() },
        ];
        let mut seen = std::collections::HashSet::new();
        for e in all {
            let d = e.to_diagnostic();
            assert!(crate::codes::ALL.iter().any(|c| c.code == d.code && c.severity == d.severity), "{e:?}");
            assert!(seen.insert(d.code.id), "{e:?} shares {}", d.code.id);
            assert_eq!(d.message, e.to_string());
        }
        // The other codes are the data-row error kinds'.
        use crate::record::RowErrorKind as K;
        let kinds = [
            K::RowNotUtf8,
            K::RowNotJson,
            K::RowNotObject,
            K::MissingInput,
            K::AnswerNotUtf8,
            K::AnswerNotUnderstood,
            K::MissingAnswer,
            K::EvaluationFailed,
            K::RenderFailed,
            K::CompileFailed,
            K::RequestNotBuilt,
            K::RequestFailed,
            K::BadResponse,
            K::NotBatchable,
            K::MissingBatchResult,
            K::StaleBatchResult,
            K::MissingField,
            K::BadId,
            K::DuplicateId,
        ];
        for kind in kinds {
            assert!(crate::codes::ALL.iter().any(|c| c.code == kind.code()), "{kind:?}");
            assert!(seen.insert(kind.code().id), "{kind:?} shares {}", kind.code().id);
        }
        assert_eq!(seen.len(), crate::codes::ALL.len());
    }
}
