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
    NO_EVALUATOR = "PE019", "no-evaluator", Error, "The prompt has no `metadata.evaluator` block and is no known evaluator prompt.";
    READ_FAILED = "PE020", "rows-unreadable", Error, "A data, answers or results file cannot be read further; the run stops there.";
    LINE_TOO_LONG = "PE021", "line-too-long", Error, "A line of a JSON-lines file is longer than the limit.";
    BAD_REPLY = "PE022", "reply-not-understood", Error, "A recorded answer or provider response cannot be read as a judge reply.";
    NOT_A_RESULT = "PE023", "not-a-result-line", Error, "A line of a results file is not a result `prompty eval` writes.";
    SCORE_NOT_BINARY = "PE024", "score-not-binary", Error, "The score is neither 0 nor 1 where the evaluator accepts only those.";
    RUN_OPTION = "PE030", "bad-run-option", Error, "A run option (a column mapping, the id column, a per-evaluator setting, a regression gate) is malformed or names something the run does not have.";
    ROW_NOT_UTF8 = "PE101", "row-not-utf8", Error, "A data row is not UTF-8 text.";
    ROW_NOT_JSON = "PE102", "row-not-json", Error, "A data row is not valid JSON.";
    ROW_NOT_OBJECT = "PE103", "row-not-object", Error, "A data row is JSON but not an object of input values.";
    ROW_MISSING_INPUT = "PE104", "row-missing-input", Error, "A data row lacks an input the prompt requires, or gives one of the wrong kind.";
    ANSWER_NOT_UTF8 = "PE105", "answer-not-utf8", Error, "A recorded answer line is not UTF-8 text.";
    ANSWER_NOT_UNDERSTOOD = "PE106", "answer-not-understood", Error, "A recorded answer line cannot be read as a judge reply.";
    MISSING_ANSWER = "PE107", "missing-answer", Error, "A data row has no answer line.";
    EVALUATION_FAILED = "PE108", "evaluation-failed", Error, "The judge's answer for a row gives no evaluation (see the PE0xx code in its message).";
    RENDER_FAILED = "PE109", "render-failed", Error, "The judge prompt does not render with a row's inputs.";
    COMPILE_FAILED = "PE110", "compile-failed", Error, "The rendered judge prompt does not compile into a request.";
    REQUEST_NOT_BUILT = "PE111", "request-not-built", Error, "The request for a row cannot be built for the endpoint.";
    REQUEST_FAILED = "PE112", "request-failed", Error, "The judge request for a row failed after its retries.";
    BAD_RESPONSE = "PE113", "bad-response", Error, "The judge's response for a row cannot be read.";
    NOT_BATCHABLE = "PE114", "not-batchable", Error, "A row's request cannot go into a provider batch file.";
    MISSING_BATCH_RESULT = "PE115", "missing-batch-result", Error, "The batch results have no result for a row.";
    STALE_BATCH_RESULT = "PE116", "stale-batch-result", Error, "A row's batch result answers another request than the row's request now.";
    MISSING_FIELD_IN_ROW = "PE117", "row-missing-field", Error, "A data row lacks the field a column mapping or the id column names.";
    BAD_ROW_ID = "PE118", "bad-row-id", Error, "A data row's id is not a string or a number, is empty, or is too long.";
    DUPLICATE_ROW_ID = "PE119", "duplicate-row-id", Error, "A data row's id is the id of an earlier row.";
}
