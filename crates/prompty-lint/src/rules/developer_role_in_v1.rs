use prompty_syntax::Profile;

use crate::Finding;
use crate::body::role_like;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a `developer:` role line in a v1 (promptflow) file.
    ///
    /// ## Why is this bad?
    /// promptflow splits on `system`, `user`, `assistant`, `function` and `tool` only: a
    /// `developer:` line stays text inside the previous message (or, at the top, makes the
    /// prompt fail). The developer role exists only in v2 files.
    ///
    /// ## Example
    /// ```text
    /// developer:
    /// Answer in French.
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// system:
    /// Answer in French.
    /// ```
    /// or convert the file to v2 (`model.options`, `inputs` with `kind`).
    pub(crate) struct DeveloperRoleInV1 {
        code: "PL017",
        name: "developer-role-in-v1",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.profile != Profile::Promptflow {
        return;
    }
    for (i, range) in cx.body.lines.iter().enumerate() {
        let Some(like) = role_like(cx.body.line(i)) else { continue };
        if !like.word.eq_ignore_ascii_case("developer") || !like.rest.trim().is_empty() {
            continue;
        }
        if cx.template.parsed && cx.template.literal_at(range.start + like.word_range.start).is_none() {
            continue;
        }
        out.push(
            DeveloperRoleInV1::META
                .finding(cx.line_span(i), "promptflow has no developer role; this line stays text")
                .help("use `system:` in a v1 file, or convert the file to v2"),
        );
    }
}
