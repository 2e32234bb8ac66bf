//! The evaluator's diagnostic codes, one per [`Error`](crate::Error) variant. Codes are
//! stable: never renumber, only add.

prompty_syntax::define_codes! {
    EMPTY_ANSWER = "PE001", "empty-answer", Error, "The judge answer is empty or only whitespace.";
    NO_TAG_SCORE = "PE002", "no-score-tag", Error, "The judge answer has no score tag holding a digit of the accepted range.";
    NO_DIGIT = "PE003", "no-digit", Error, "The judge answer contains no digit.";
    NO_JSON_OBJECT = "PE004", "no-json-object", Error, "The judge answer holds no `{...}` JSON object.";
    INVALID_JSON = "PE005", "invalid-json", Error, "The judge answer's `{...}` block is not valid JSON.";
    NOT_AN_OBJECT = "PE006", "not-an-object", Error, "The judge answer is JSON but not an object.";
    UNKNOWN_LABEL = "PE007", "unknown-label", Error, "The judge answer is not one of the accepted labels.";
    MISSING_FIELD = "PE008", "missing-answer-field", Error, "A field the JSON answer must have is missing.";
    SCORE_NOT_NUMERIC = "PE009", "score-not-numeric", Error, "The score field holds something that is not a number.";
    SCORE_NOT_FINITE = "PE010", "score-not-finite", Error, "The score field holds an infinite number.";
    ANSWER_TOO_LARGE = "PE011", "answer-too-large", Error, "The judge answer is larger than the evaluator accepts.";
    SCORE_OUT_OF_RANGE = "PE012", "score-out-of-range", Error, "The score is outside the range the evaluator validates.";
    SCORE_NOT_ALLOWED = "PE013", "score-not-allowed", Error, "The score is not one of the values the evaluator accepts.";
    NAN_TO_INTEGER = "PE014", "no-integer-score", Error, "The evaluator stores an integer score and the answer gave none.";
    CONFIG = "PE015", "invalid-evaluator-config", Error, "The evaluator configuration (`metadata.evaluator`) is invalid.";
    UNKNOWN_CONFIG_KEY = "PE016", "unknown-evaluator-key", Error, "The evaluator configuration names a key the evaluator does not know.";
    INVALID_INPUT = "PE017", "invalid-eval-input", Error, "An evaluation input is malformed.";
    MISSING_INPUT = "PE018", "missing-eval-input", Error, "A required evaluation input is missing.";
}
