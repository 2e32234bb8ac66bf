use crate::Finding;
use crate::context::Context;
use crate::suppress::Suppressions;

declare_rule! {
    /// ## What it does
    /// Reports a `prompty: ignore[...]` comment that names a code no rule or loader check
    /// has, or that is not written as `ignore[CODE, ...]`.
    ///
    /// ## Why is this bad?
    /// A suppression with a typo suppresses nothing: the finding it was meant to silence
    /// still shows, and the comment misleads readers into thinking it is handled.
    ///
    /// ## Example
    /// ```text
    /// {# prompty: ignore[PL01] #}
    /// {{ extra }}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// {# prompty: ignore[PL001] #}
    /// {{ extra }}
    /// ```
    pub(crate) struct InvalidSuppression {
        code: "PL022",
        name: "invalid-suppression",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    out.extend(
        Suppressions::parse(cx.text, cx.loaded.document.as_ref())
            .problems()
            .into_iter()
            .map(|p| InvalidSuppression::META.finding(p.span, p.message).help(p.help)),
    );
}
