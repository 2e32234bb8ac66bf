use std::collections::HashSet;

use prompty_syntax::TemplateFormat;

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a declared input that the template never reads and no tool binding uses.
    ///
    /// ## Why is this bad?
    /// Callers must supply required inputs, and every declared input is part of the
    /// prompt's contract: one the template ignores is either dead weight or, more often,
    /// a sign that the body reads it under another name.
    ///
    /// Handlebars templates are not analyzed.
    ///
    /// ## Example
    /// ```yaml
    /// ---
    /// inputs:
    ///   question: {kind: string}
    ///   context: {kind: string}
    /// ---
    /// user:
    /// {{question}}
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// ---
    /// inputs:
    ///   question: {kind: string}
    ///   context: {kind: string}
    /// ---
    /// user:
    /// {{context}}
    ///
    /// {{question}}
    /// ```
    pub(crate) struct UnusedInput {
        code: "PL002",
        name: "unused-input",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(vars) = &cx.engine_vars else { return };
    let read: HashSet<&str> = vars.iter().map(String::as_str).collect();
    let bound: HashSet<&str> =
        cx.prompt.tools.iter().flatten().flat_map(|t| t.binding_inputs().map(|(_, input)| input)).collect();
    for input in cx.prompt.inputs.iter().flatten() {
        if read.contains(input.name.as_str()) || bound.contains(input.name.as_str()) {
            continue;
        }
        let tag = match cx.format {
            Some(TemplateFormat::Mustache) => format!("{{{{{{{}}}}}}}", input.name),
            _ => format!("{{{{{}}}}}", input.name),
        };
        out.push(
            UnusedInput::META
                .finding(
                    input.span.clone(),
                    format!("input `{}` is declared but the template never reads it", input.name),
                )
                .help(format!("use it in the body (`{tag}`) or remove it from `inputs`")),
        );
    }
}
