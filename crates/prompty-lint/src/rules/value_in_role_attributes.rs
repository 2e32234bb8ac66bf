use prompty_syntax::Profile;

use crate::Finding;
use crate::body::{role_like, roles};
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a role line that interpolates a value inside its `[...]` attributes:
    /// `user[name={{ user_name }}]:`.
    ///
    /// ## Why is this bad?
    /// The value becomes part of the role line. One holding `]` or a line break keeps the
    /// line from starting a message, and one holding `, key=value` adds an attribute, so the
    /// renderer refuses such values (`PR005`) rather than merge or relabel messages: the
    /// prompt then fails on names like `O'Brien [admin]`. A name that only says who speaks
    /// is safer in the message text, or in a thread input.
    ///
    /// ## Example
    /// ```text
    /// user[name={{ user_name }}]:
    /// {{ question }}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// user:
    /// {{ user_name }} asks: {{ question }}
    /// ```
    pub(crate) struct ValueInRoleAttributes {
        code: "PL028",
        name: "value-in-role-attributes",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.profile != Profile::Spec || !cx.template.parsed {
        return;
    }
    let exprs = &cx.template.exprs;
    for (i, range) in cx.body.lines.iter().enumerate() {
        let line = cx.body.line(i);
        // Only lines with a `[` and a `:` can be role lines with attributes.
        if !line.contains('[') {
            continue;
        }
        let Some(like) = role_like(line) else { continue };
        let Some(attrs) = like.attrs_range.clone() else { continue };
        if !like.rest.trim().is_empty() || !roles(cx.profile).contains(&like.word.to_ascii_lowercase().as_str()) {
            continue;
        }
        if cx.template.literal_at(range.start + like.word_range.start).is_none() {
            continue;
        }
        let attrs = range.start + attrs.start..range.start + attrs.end;
        let first = exprs.partition_point(|e| e.start < attrs.start);
        let Some(expr) = exprs.get(first).filter(|e| e.start < attrs.end) else { continue };
        out.push(
            ValueInRoleAttributes::META
                .finding(cx.span(expr.clone()), "a value interpolated inside role-line attributes")
                .help("a value holding `]`, a line break or `, key=value` breaks the role line and the render is refused; put the value in the message text"),
        );
    }
}
