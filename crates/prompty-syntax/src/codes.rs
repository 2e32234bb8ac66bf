//! The loader's diagnostic codes. Codes are stable: never renumber, only add.

use crate::diagnostic::{Code, CodeInfo};

macro_rules! codes {
    ($($ident:ident = $id:literal, $name:literal, $doc:literal;)*) => {
        $(#[doc = $doc] pub const $ident: Code = Code { id: $id, name: $name };)*
        /// Every loader code, in order.
        pub const ALL: &[(Code, &str)] = &[$(($ident, $doc)),*];
    };
}

codes! {
    UNTERMINATED_FRONT_MATTER = "P001", "unterminated-front-matter", "The front matter opens with `---` or `+++` but never closes.";
    YAML_SYNTAX = "P002", "yaml-syntax", "The front matter is not valid YAML.";
    DUPLICATE_KEY = "P003", "duplicate-key", "A mapping repeats a key.";
    NOT_A_MAPPING = "P004", "front-matter-not-mapping", "The front matter is YAML but not a mapping of keys to values.";
    EMPTY_FILE = "P005", "empty-file", "The file has no front matter and no body.";
    NOT_TEXT = "P006", "not-text", "The file is not UTF-8 text.";
    TOO_LARGE = "P007", "file-too-large", "The file is larger than the loader accepts.";
    UNKNOWN_KEY = "P010", "unknown-key", "A key the format does not define.";
    WRONG_TYPE = "P011", "wrong-type", "A value has the wrong type for its key.";
    BAD_MODEL = "P012", "invalid-model", "`model` is neither a model id string nor a mapping.";
    BAD_TEMPLATE = "P013", "invalid-template", "`template` is not a mapping with `format` and `parser`.";
    UNKNOWN_ENGINE = "P014", "unknown-template-engine", "The template format or parser is not one this toolkit can render.";
    MISSING_FIELD = "P015", "missing-field", "A required field is absent.";
    UNKNOWN_KIND = "P016", "unknown-input-kind", "A property kind the format does not define.";
    ARRAY_WITHOUT_ITEMS = "P017", "array-without-items", "A property of kind `array` has no `items`.";
    DUPLICATE_NAME = "P018", "duplicate-name", "Two inputs, outputs or tools share a name.";
    BAD_UNION = "P019", "invalid-union", "A `union` property needs exactly one of `oneOf` or `anyOf`.";
    ENV_NOT_SET = "P020", "env-not-set", "`${env:NAME}` names a variable that is not set and has no default.";
    FILE_NOT_FOUND = "P021", "file-not-found", "`${file:path}` names a file that does not exist or cannot be read.";
    FILE_OUTSIDE_ROOTS = "P022", "file-outside-roots", "`${file:path}` resolves outside the prompt's folder and the allowed roots.";
    FILE_PARSE = "P023", "file-reference-invalid", "A file loaded by `${file:path}` is not valid JSON or YAML.";
    UNKNOWN_REFERENCE = "P024", "unknown-reference", "A `${protocol:...}` reference with a protocol other than `env` or `file`.";
    REFERENCE_DEPTH = "P025", "reference-too-deep", "`${file:}` references nest too deeply or form a cycle.";
    BAD_ENV_NAME = "P026", "invalid-env-reference", "`${env:NAME}` whose name is not an environment variable name.";
    NUMBER_KIND = "P027", "number-kind", "`kind: number`, which the reference runtimes read as `float`.";
    LEGACY_KEY = "P030", "v1-construct", "A v1 (promptflow) construct; it has a v2 spelling.";
    MIXED_VERSIONS = "P031", "mixed-versions", "The file mixes v1 and v2 spellings of the same thing.";
    NON_PORTABLE_FORMAT = "P032", "non-portable-format", "A template format only some runtimes accept (`nunjucks`).";
}

/// The level a loader code is reported at, for catalogs (SARIF's `defaultConfiguration`,
/// `--list-rules`). `P020` (`env-not-set`) is a warning in the promptflow profile, where the
/// value stays literal; every other code always has this level.
pub fn default_severity(code: Code) -> crate::Severity {
    let warnings = [EMPTY_FILE, UNKNOWN_KEY, UNKNOWN_REFERENCE, BAD_ENV_NAME, NUMBER_KIND, LEGACY_KEY, MIXED_VERSIONS];
    if warnings.contains(&code) { crate::Severity::Warning } else { crate::Severity::Error }
}

/// Every loader code with its severity and summary, in order.
pub fn infos() -> impl Iterator<Item = CodeInfo> {
    ALL.iter().map(|&(code, summary)| CodeInfo { code, severity: default_severity(code), summary })
}
