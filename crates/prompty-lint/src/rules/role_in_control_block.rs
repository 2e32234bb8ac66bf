use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a role line inside a control block: `{% if %}`, `{% for %}`, a macro or a
    /// Mustache section.
    ///
    /// ## Why is this bad?
    /// The number, order and roles of the messages then depend on the input data. A
    /// reviewer cannot see the conversation's shape from the file, a missing value silently
    /// merges two messages, and snapshot tests cover only the branches they happen to take.
    /// Prefer a fixed message structure with conditional text inside the messages, or a
    /// `thread` input for variable conversations.
    ///
    /// ## Example
    /// ```text
    /// system:
    /// You answer questions.
    /// {% for turn in history %}
    /// user:
    /// {{turn.question}}
    /// {% endfor %}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// system:
    /// You answer questions.
    ///
    /// {{history}}
    /// ```
    /// with `history: {kind: thread}` in the inputs.
    pub(crate) struct RoleInControlBlock {
        code: "PL015",
        name: "role-in-control-block",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for r in cx.roles.iter().filter(|r| r.depth > 0) {
        let block = match r.block.as_deref() {
            Some(b @ ("if" | "for" | "with" | "set" | "filter" | "macro" | "call")) => format!("a `{{% {b} %}}` block"),
            Some(section) => format!("the section `{{{{#{section}}}}}`"),
            None => "a control block".to_owned(),
        };
        out.push(
            RoleInControlBlock::META
                .finding(
                    cx.line_span(r.line),
                    format!("the `{}:` role line is inside {block}; the messages depend on the data", r.role),
                )
                .help("keep role lines at the top level and make only the text inside messages conditional"),
        );
    }
}
