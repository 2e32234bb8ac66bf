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
        fixable: false,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(vars) = &cx.engine_vars else { return };
    for input in cx.prompt.inputs.iter().flatten() {
        if vars.contains(&input.name) {
            continue;
        }
        let bound = cx.prompt.tools.iter().flatten().any(|t| t.binding_inputs().any(|(_, i)| i == input.name));
        if bound {
            continue;
        }
        let tag = match cx.engine {
            crate::template::Engine::Mustache => format!("{{{{{{{}}}}}}}", input.name),
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
