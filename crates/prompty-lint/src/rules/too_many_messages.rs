use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a body with more role lines than a render may split into messages
    /// (10,000, `prompty_render::MAX_MESSAGES`), at the first role line past the limit.
    ///
    /// ## Why is this bad?
    /// The render of such a body fails with a `PR006` limit error, whatever the inputs. The
    /// other rules do not run on it: most of them would report every message.
    ///
    /// ## Example
    /// ```text
    /// user:
    /// turn 1
    /// assistant:
    /// reply 1
    /// ... (10,001 role lines in all)
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// system:
    /// Continue the conversation.
    ///
    /// {{history}}
    /// ```
    pub(crate) struct TooManyMessages {
        code: "PL029",
        name: "too-many-messages",
        severity: Error,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(line) = cx.too_many_roles else { return };
    let max = prompty_render::MAX_MESSAGES;
    out.push(
        TooManyMessages::META
            .finding(
                cx.line_span(line),
                format!("the body has more than {max} role lines, so it cannot render: a render gives at most {max} messages"),
            )
            .help("split the prompt, or pass the conversation as a thread input (`kind: thread`)"),
    );
}
