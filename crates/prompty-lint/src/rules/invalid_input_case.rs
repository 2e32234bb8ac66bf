use prompty_syntax::{Diagnostic, Prompt, Severity};

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Checks a prompt's input cases (the sidecar `<name>.cases.yaml` that `prompty
    /// snapshot` renders) against the prompt's inputs: each case must be a mapping of input
    /// names to values, name only declared inputs (with the closest declared name for a
    /// typo), give each input a value of its declared kind, and give every required input
    /// that has no default. Findings point into the cases file.
    ///
    /// ## Why is this bad?
    /// A case that misspells an input renders without it and the snapshot records the
    /// wrong prompt; a case that misses a required input fails the whole snapshot run.
    /// Both are found only when snapshots run, far from the edit that caused them.
    ///
    /// ## Example
    /// ```yaml
    /// # summarize.cases.yaml, for a prompt with inputs `text` (required) and `style`
    /// short:
    ///   txt: The quick brown fox.
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// short:
    ///   text: The quick brown fox.
    /// ```
    pub(crate) struct InvalidInputCase {
        code: "PL027",
        name: "invalid-input-case",
        severity: Error,
        fix: None,
    }
}

/// The rule looks at another file than the prompt: see [`check_cases`].
pub(crate) fn check(_: &Context<'_>, _: &mut Vec<Finding>) {}

fn finding(span: std::ops::Range<usize>, message: String, help: String) -> Finding {
    InvalidInputCase::META.finding(span, message).help(help)
}

/// Checks the text of a cases file against `prompt`; spans are into `text`.
pub(crate) fn check_cases(text: &str, prompt: &Prompt) -> Vec<Finding> {
    let (cases, problems) = prompty_syntax::cases::parse_cases(text);
    let mut out: Vec<Finding> = problems
        .iter()
        .map(|p| {
            let d = Diagnostic::new(InvalidInputCase::META.code, Severity::Error, p.span(), p.message());
            Finding::new(d).help(p.help())
        })
        .collect();
    let declared: Vec<&str> = prompt.inputs.iter().flatten().map(|p| p.name.as_str()).collect();
    // A v1 prompt with no `inputs` reads whatever it is given: only shapes are checked.
    let checks_names = prompt.inputs.is_some();
    let required: Vec<&str> =
        prompt.inputs.iter().flatten().filter(|p| p.required && p.default.is_none()).map(|p| p.name.as_str()).collect();
    let renderer = std::cell::OnceCell::new();
    for case in &cases {
        let case_name = &case.name;
        let inputs = &case.inputs;
        out.extend(super::context_window_exceeded::check_case(
            prompt,
            &renderer,
            case_name,
            &case.values(),
            case.name_span.clone(),
        ));
        if !checks_names {
            continue;
        }
        for (key, value) in inputs {
            let input = key.key_string();
            if let Some(p) = prompt.inputs.iter().flatten().find(|p| p.name == input) {
                let kind = p.kind.as_str();
                if kind != "union" && !super::default_kind_mismatch::fits(kind, &value.value) {
                    out.push(finding(
                        value.span.clone(),
                        format!("case `{case_name}` gives `{input}` {}, but its kind is `{kind}`", value.type_name()),
                        format!("write a value of kind `{kind}`"),
                    ));
                }
                continue;
            }
            let help = match prompty_syntax::did_you_mean(&input, &declared) {
                Some(s) => format!("did you mean `{s}`?"),
                None if declared.is_empty() => "the prompt declares no inputs".to_owned(),
                None => format!("the prompt declares: {}", declared.join(", ")),
            };
            out.push(finding(
                key.span.clone(),
                format!("case `{case_name}` gives `{input}`, which the prompt does not declare"),
                help,
            ));
        }
        let missing: Vec<&str> =
            required.iter().copied().filter(|r| !inputs.iter().any(|(k, _)| k.key_string() == *r)).collect();
        if !missing.is_empty() {
            let list = missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
            out.push(
                finding(
                    case.name_span.clone(),
                    format!(
                        "case `{case_name}` lacks the required input{} {list}",
                        if missing.len() == 1 { "" } else { "s" }
                    ),
                    "give a value for every required input without a default".to_owned(),
                )
                .severity(Severity::Error),
            );
        }
    }
    out
}
