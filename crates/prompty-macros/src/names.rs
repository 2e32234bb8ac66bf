//! Rust names for prompt names, input names and template formats.

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Words that are identifiers only written raw (`r#type`).
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let",
    "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct", "trait", "true", "type",
    "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Words that cannot even be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// ASCII letters, digits and `_` only; anything else becomes `_`.
fn ascii_word(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// A field name for input `name`: snake_case, ASCII, never starting with a digit, `_`
/// appended to words Rust reserves even as raw identifiers. Returns the name and whether
/// it must be written raw.
pub(crate) fn field(name: &str) -> (String, bool) {
    let mut s = ascii_word(&name.to_snake_case());
    if s.trim_matches('_').is_empty() {
        s = format!("input{s}");
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if NOT_RAW.contains(&s.as_str()) {
        s.push('_');
    }
    let raw = KEYWORDS.contains(&s.as_str());
    (s, raw)
}

/// An UpperCamelCase type name from `name`, or `None` when nothing of it is left.
pub(crate) fn type_name(name: &str) -> Option<String> {
    let s = ascii_word(name).to_upper_camel_case();
    let s: String = s.chars().filter(char::is_ascii_alphanumeric).collect();
    if s.is_empty() {
        return None;
    }
    Some(if s.starts_with(|c: char| c.is_ascii_digit()) { format!("P{s}") } else { s })
}

/// The stem of the generated type names: the prompt's name, else the file's stem.
pub(crate) fn type_base(prompt_name: Option<&str>, stem: &str) -> String {
    prompt_name.and_then(type_name).or_else(|| type_name(stem)).unwrap_or_else(|| "Prompt".to_owned())
}

/// The `__require_engine!` argument for a template format (the checked prompt's format is
/// one the renderer knows; anything else falls back to Jinja, the format's default).
pub(crate) fn engine(format: &str) -> &'static str {
    match prompty_syntax::TemplateFormat::from_kind(format) {
        Some(prompty_syntax::TemplateFormat::Mustache) => "mustache",
        Some(prompty_syntax::TemplateFormat::Handlebars) => "handlebars",
        Some(prompty_syntax::TemplateFormat::Jinja2) | None => "jinja",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_snake_case_ascii_and_valid() {
        let cases = [
            ("question", "question", false),
            ("userName", "user_name", false),
            ("chat-history", "chat_history", false),
            ("type", "type", true),
            ("gen", "gen", true),
            ("self", "self_", false),
            ("Self", "self_", false),
            ("_", "input", false),
            ("__", "input", false),
            ("", "input", false),
            ("1st", "_1st", false),
            ("café", "caf_", false),
            ("HTTPServer", "http_server", false),
        ];
        for (name, expected, raw) in cases {
            assert_eq!(field(name), (expected.to_owned(), raw), "{name:?}");
        }
    }

    #[test]
    fn type_names_are_upper_camel_case() {
        assert_eq!(type_base(Some("task_adherence"), "x"), "TaskAdherence");
        assert_eq!(type_base(Some("Basic Prompt"), "x"), "BasicPrompt");
        assert_eq!(type_base(Some("!!!"), "chat-v2"), "ChatV2");
        assert_eq!(type_base(None, "3d"), "P3d");
        assert_eq!(type_base(Some(""), "---"), "Prompt");
    }
}
