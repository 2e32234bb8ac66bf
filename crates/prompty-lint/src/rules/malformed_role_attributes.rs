use prompty_syntax::Profile;

use crate::Finding;
use crate::body::{role_like, role_of, roles};
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a role line whose `[...]` attributes keep it from splitting: `user[Bob]:`,
    /// `user[]:`, or any attributes in a v1 file.
    ///
    /// ## Why is this bad?
    /// Attributes must be `name=value` pairs (`user[name=Bob]:`); anything else makes the
    /// whole line plain text, so the message is never started. promptflow (v1) has no
    /// attributes at all.
    ///
    /// ## Example
    /// ```text
    /// user[Bob]:
    /// What's the weather?
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// user[name=Bob]:
    /// What's the weather?
    /// ```
    pub(crate) struct MalformedRoleAttributes {
        code: "PL023",
        name: "malformed-role-attributes",
        severity: Error,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (i, range) in cx.body.lines.iter().enumerate() {
        let line = cx.body.line(i);
        let Some(like) = role_like(line) else { continue };
        let (Some(_), Some(attrs_range)) = (like.attrs, like.attrs_range.clone()) else { continue };
        if !like.rest.trim().is_empty()
            || !roles(cx.profile).contains(&like.word.to_ascii_lowercase().as_str())
            || role_of(line, cx.profile).is_some()
        {
            continue;
        }
        if cx.template.parsed && cx.template.literal_at(range.start + like.word_range.start).is_none() {
            continue;
        }
        let span = cx.span(range.start + attrs_range.start..range.start + attrs_range.end);
        let (msg, help) = match cx.profile {
            Profile::Spec => (
                "these role attributes are not `name=value` pairs, so the line starts no message",
                "write attributes as `name=value` pairs: `user[name=Bob]:`",
            ),
            Profile::Promptflow => (
                "promptflow role lines take no attributes, so the line starts no message",
                "remove the `[...]` (or convert the file to v2)",
            ),
        };
        out.push(MalformedRoleAttributes::META.finding(span, msg).help(help));
    }
}
