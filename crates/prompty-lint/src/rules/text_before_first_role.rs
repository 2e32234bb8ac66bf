use prompty_syntax::{Profile, Severity};

use crate::Finding;
use crate::body::role_like;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports text before the first role line of a prompt that has role lines (v2), and
    /// any text before the first role line of a v1 prompt, with or without role lines.
    ///
    /// In a v1 (promptflow) file this is an error: promptflow refuses to render it.
    ///
    /// ## Why is this bad?
    /// In a v2 file the text silently becomes an extra system message ahead of the ones the
    /// author wrote, usually a leftover note or a heading. promptflow raises an error for
    /// it when the prompt runs.
    ///
    /// ## Example
    /// ```text
    /// Grader prompt, version 2
    /// system:
    /// You grade answers.
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// {# Grader prompt, version 2 #}
    /// system:
    /// You grade answers.
    /// ```
    pub(crate) struct TextBeforeFirstRole {
        code: "PL009",
        name: "text-before-first-role",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let end = match cx.roles.first() {
        Some(r) => r.line,
        None if cx.profile == Profile::Promptflow => cx.body.lines.len(),
        None => return,
    };
    let Some(first) = (0..end).find(|&i| cx.body.lines.get(i).is_some_and(|r| cx.prints(r.clone()))) else {
        return;
    };
    let line = cx.body.line(first);
    let finding = match cx.profile {
        // A role-shaped first line is reported by the role-line rules; in v2 that is enough.
        Profile::Spec if role_like(line).is_some() => return,
        Profile::Spec => TextBeforeFirstRole::META
            .finding(cx.line_span(first), "text before the first role line becomes a system message")
            .help("start the body with a role line (`system:`), or turn the text into a comment (`{# ... #}`)"),
        Profile::Promptflow => {
            let msg = if cx.roles.is_empty() {
                "the body has no role line; promptflow refuses to render it"
            } else {
                "promptflow refuses to render text before the first role line"
            };
            TextBeforeFirstRole::META
                .finding(cx.line_span(first), msg)
                .severity(Severity::Error)
                .help("start the body with a role line such as `system:`")
        }
    };
    out.push(finding);
}
