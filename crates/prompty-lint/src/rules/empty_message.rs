use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a role line followed by nothing before the next role line or the end.
    ///
    /// ## Why is this bad?
    /// Empty messages are kept and sent: an empty system or user turn costs tokens,
    /// confuses few-shot structure and is rejected by some providers. It is usually a
    /// role line left behind after moving text, or two role lines in the wrong order.
    ///
    /// ## Example
    /// ```text
    /// system:
    /// user:
    /// {{question}}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// system:
    /// Answer in one sentence.
    /// user:
    /// {{question}}
    /// ```
    pub(crate) struct EmptyMessage {
        code: "PL010",
        name: "empty-message",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(messages) = cx.messages() else { return };
    for m in messages {
        if cx.prints(m.content.clone()) {
            continue;
        }
        let Some(role) = cx.roles.get(m.role_index) else { continue };
        out.push(
            EmptyMessage::META
                .finding(cx.line_span(role.line), format!("this {} message is empty", role.role))
                .help("write the message's text under its role line, or remove the role line"),
        );
    }
}
