use crate::Finding;
use crate::body::{role_like, roles};
use crate::context::{Context, leading_blanks};

declare_rule! {
    /// ## What it does
    /// Reports a role word and colon followed by text on the same line (`user: {{question}}`,
    /// `System : be brief`) where a role line was meant: on the body's first line, or with a
    /// template expression after the colon.
    ///
    /// ## Why is this bad?
    /// A role line must stand alone: with text after the colon the line is ordinary text and
    /// starts no message. The whole line joins the previous message, or becomes a system
    /// message (v2) or a run-time error (v1) at the top of the body.
    ///
    /// Lines such as `User: Plan a trip to Paris.` in the middle of a message are usually
    /// examples written on purpose and are not reported.
    ///
    /// ## Example
    /// ```text
    /// system: You are a helpful assistant.
    /// user: {{question}}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// system:
    /// You are a helpful assistant.
    /// user:
    /// {{question}}
    /// ```
    pub(crate) struct RoleLineWithText {
        code: "PL008",
        name: "role-line-with-text",
        severity: Error,
        fix: Unsafe,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let first_printing = cx.body.lines.iter().position(|r| cx.prints(r.clone()));
    for (i, range) in cx.body.lines.iter().enumerate() {
        let line = cx.body.line(i);
        let Some(like) = role_like(line) else { continue };
        let text = like.rest.trim();
        if text.is_empty() || !roles(cx.profile).contains(&like.word.to_ascii_lowercase().as_str()) {
            continue;
        }
        if cx.template.parsed && cx.template.literal_at(range.start + leading_blanks(line)).is_none() {
            continue;
        }
        let templated = text.starts_with("{{") || text.starts_with("{%");
        if !templated && first_printing != Some(i) {
            continue;
        }
        let head = line.get(..=like.colon).unwrap_or(line).trim_start();
        let gap = like.colon + 1..like.colon + 1 + (like.rest.len() - like.rest.trim_start().len());
        let gap_span = cx.span(range.start + gap.start..range.start + gap.end);
        out.push(
            RoleLineWithText::META
                .finding(
                    cx.span(range.clone()),
                    format!("`{head}` has text after the colon, so this line starts no message"),
                )
                .help(format!("put `{head}` alone on its line and the text on the next"))
                .unsafe_fix(gap_span, cx.body.newline(), format!("move the text after `{head}` to the next line")),
        );
    }
}
