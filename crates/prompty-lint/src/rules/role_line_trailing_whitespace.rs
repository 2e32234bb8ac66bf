use crate::Finding;
use crate::body::role_like;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports spaces or tabs after the colon of a role line.
    ///
    /// ## Why is this bad?
    /// The line still splits, but the whitespace is invisible in review and fragile:
    /// editors strip or keep it at random, a non-breaking space there is accepted by
    /// Python's splitter and not by others, and diffs show changes nobody made on purpose.
    ///
    /// ## Example
    /// ```text
    /// system:␠␠
    /// Be brief.
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// system:
    /// Be brief.
    /// ```
    pub(crate) struct RoleLineTrailingWhitespace {
        code: "PL019",
        name: "role-line-trailing-whitespace",
        severity: Info,
        fix: Safe,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for r in &cx.roles {
        let Some(range) = cx.body.lines.get(r.line) else { continue };
        let Some(like) = role_like(cx.body.line(r.line)) else { continue };
        if like.rest.is_empty() {
            continue;
        }
        let ws = cx.span(range.start + like.colon + 1..range.end);
        out.push(
            RoleLineTrailingWhitespace::META
                .finding(ws.clone(), format!("whitespace after the colon of the `{}:` role line", r.role))
                .help("remove it")
                .fix(ws, "", "remove the trailing whitespace"),
        );
    }
}
