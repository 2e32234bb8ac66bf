//! One set of messages that every emitter's snapshot test writes, so that the forms can be
//! compared side by side: located and whole-file messages, each severity, safe and unsafe
//! fixes, help text, a line with characters wider than a byte, and a file name that needs
//! escaping in GitHub commands and SARIF URIs.

use prompty_report::{Edit, Message, SourceFile};
use prompty_syntax::{Code, Diagnostic, codes};

/// The text of the first file of [`shared_messages`].
pub const PROMPT: &str = "---\nname: café\nmodel: [gpt\n---\nsytem:\nYou are {{ rol }}.\nuser:\n{{question}}\n";

/// The shared set, in the order a report lists them.
pub fn shared_messages() -> Vec<Message> {
    let file = SourceFile::new("prompts/greeting.prompty", PROMPT);
    let odd = SourceFile::unlocated("odd, name: 50%.prompty");
    let at = |needle: &str| {
        let start = PROMPT.find(needle).unwrap_or_else(|| panic!("{needle:?} is in PROMPT"));
        start..start + needle.len()
    };
    let yaml = Diagnostic::error(codes::YAML_SYNTAX, at("[gpt"), "a flow sequence is not closed")
        .with_help("close it with `]`");
    let typo = Diagnostic::warning(Code { id: "PL007", name: "misspelt-role" }, at("sytem"), "`sytem` is not a role");
    let undeclared =
        Diagnostic::error(Code { id: "PL001", name: "undeclared-variable" }, at("rol"), "`rol` is not an input");
    let whole =
        Diagnostic::warning(codes::LEGACY_KEY, 0..0, "the request leaves out `seed`:\n100% of providers ignore it");
    let mut info = Diagnostic::warning(Code { id: "PL002", name: "unused-input" }, at("café"), "`café` is never used");
    info.severity = prompty_syntax::Severity::Info;
    vec![
        Message::new(file.clone(), yaml),
        Message::new(file.clone(), typo).with_fix(Some(Edit {
            title: "replace `sytem` with `system`".into(),
            span: at("sytem"),
            replacement: "system".into(),
            safe: false,
        })),
        Message::new(file.clone(), undeclared),
        Message::new(file, info).with_fix(Some(Edit {
            title: "remove the input".into(),
            span: at("name: café\n"),
            replacement: String::new(),
            safe: true,
        })),
        Message::new(odd, whole),
    ]
}
