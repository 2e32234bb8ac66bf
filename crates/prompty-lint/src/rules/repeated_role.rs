use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports two consecutive messages with the same role.
    ///
    /// ## Why is this bad?
    /// Messages are never merged: two `user:` sections in a row are sent as two user turns,
    /// which several providers reject (Anthropic requires alternating turns) and others
    /// treat as two separate requests. Usually one of the role lines is a typo for another
    /// role, or a leftover.
    ///
    /// ## Example
    /// ```text
    /// user:
    /// Here is an example answer.
    /// user:
    /// {{question}}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// assistant:
    /// Here is an example answer.
    /// user:
    /// {{question}}
    /// ```
    pub(crate) struct RepeatedRole {
        code: "PL011",
        name: "repeated-role",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(messages) = cx.messages() else { return };
    for pair in messages.windows(2) {
        let [a, b] = pair else { continue };
        let (Some(ra), Some(rb)) = (cx.roles.get(a.role_index), cx.roles.get(b.role_index)) else { continue };
        if ra.role == rb.role {
            let line = cx.line_number(cx.line_span(ra.line).start);
            out.push(
                RepeatedRole::META
                    .finding(
                        cx.line_span(rb.line),
                        format!("a second {} message follows the {} message of line {line}", rb.role, ra.role),
                    )
                    .help("merge the two messages, or fix the role of one of them"),
            );
        }
    }
}
