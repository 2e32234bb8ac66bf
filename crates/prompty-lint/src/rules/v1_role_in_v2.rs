use prompty_syntax::Profile;

use crate::Finding;
use crate::body::role_like;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a `tool:` or `function:` role line in a v2 file.
    ///
    /// ## Why is this bad?
    /// v2 splits on `system`, `user`, `assistant` and `developer` only. A `tool:` or
    /// `function:` line, a promptflow (v1) form, stays text inside the previous message,
    /// so the tool result the author meant to send is never a tool message.
    ///
    /// ## Example
    /// ```text
    /// assistant:
    /// Let me look that up.
    /// tool:
    /// {"temperature": 21}
    /// ```
    ///
    /// ## Use instead
    /// Pass tool calls and results in a `thread` input, whose messages keep their roles:
    /// ```text
    /// {{conversation}}
    /// ```
    pub(crate) struct V1RoleInV2 {
        code: "PL018",
        name: "v1-role-in-v2",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.profile != Profile::Spec {
        return;
    }
    for (i, range) in cx.body.lines.iter().enumerate() {
        let Some(like) = role_like(cx.body.line(i)) else { continue };
        let word = like.word.to_ascii_lowercase();
        if !(word == "tool" || word == "function") || !like.rest.trim().is_empty() {
            continue;
        }
        if cx.template.parsed && cx.template.literal_at(range.start + like.word_range.start).is_none() {
            continue;
        }
        out.push(
            V1RoleInV2::META
                .finding(cx.line_span(i), format!("`{word}:` is not a role in v2 files; this line stays text"))
                .help("pass tool results in a `thread` input, or use system, user, assistant or developer"),
        );
    }
}
