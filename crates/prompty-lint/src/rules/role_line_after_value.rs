use crate::Finding;
use crate::body::role_of;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a role line written right after a value on the same line
    /// (`{{context}}user:`), or on the next line after a tag whose whitespace control removes
    /// the line break (`{{ context -}}` then `user:`).
    ///
    /// ## Why is this bad?
    /// Whether the line starts a message then depends on the value. When it renders nothing
    /// (and nothing else comes before it on the line), the role line stands alone and the
    /// message starts; when it renders any text, the line is ordinary text and everything up
    /// to the next role line joins the message before.
    /// An input can make the user's message part of the system message this way. The
    /// renderer cannot refuse it: the text is what the template wrote, in both profiles,
    /// and the reference runtimes render it the same way.
    ///
    /// ## Example
    /// ```text
    /// system:
    /// Use this context: {{context}}user:
    /// {{question}}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// system:
    /// Use this context: {{context}}
    /// user:
    /// {{question}}
    /// ```
    pub(crate) struct RoleLineAfterValue {
        code: "PL031",
        name: "role-line-after-value",
        severity: Error,
        fix: Unsafe,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if !cx.template.parsed {
        return;
    }
    let text = cx.body.text.as_str();
    for expr in &cx.template.exprs {
        let tag = text.get(expr.clone()).unwrap_or_default();
        // `-}}` (Jinja) and `~}}` (Handlebars) remove all whitespace after the tag, line
        // breaks included.
        let trims = tag.ends_with("-}}") || tag.ends_with("~}}");
        let after = text.get(expr.end..).unwrap_or_default();
        let start = if trims { expr.end + (after.len() - after.trim_start().len()) } else { expr.end };
        let rest = text.get(start..).unwrap_or_default();
        let end = start + rest.find(['\r', '\n']).unwrap_or(rest.len());
        let line = text.get(start..end).unwrap_or_default();
        if role_of(line, cx.profile).is_none() {
            continue;
        }
        // The role line is the template's own text, not text inside another tag.
        let word = start + (line.len() - line.trim_start().len());
        if cx.template.literal_at(word).is_none() {
            continue;
        }
        let head = line.trim();
        let span = cx.span(word..end);
        // With text before the tag on its line, the role line never stands alone.
        let line_start = text.get(..expr.start).unwrap_or_default().rfind('\n').map_or(0, |i| i + 1);
        let alone = text.get(line_start..expr.start).unwrap_or_default().trim().is_empty();
        let outcome = if alone {
            "it starts a message only when the value renders nothing"
        } else {
            "with text before the value on its line, it starts no message"
        };
        let finding = RoleLineAfterValue::META
            .finding(span, format!("`{head}` follows `{tag}` with no line break between them: {outcome}"));
        out.push(if trims {
            // The `-` or `~` right before the closing `}}`.
            let control = expr.end - 3..expr.end - 2;
            finding
                .help(format!(
                    "drop the whitespace control at the end of `{tag}`, so that the line break before `{head}` stays"
                ))
                .unsafe_fix(cx.span(control), "", format!("keep the line break before `{head}`"))
        } else {
            finding.help(format!("put `{head}` on a line of its own")).unsafe_fix(
                cx.span(expr.end..expr.end),
                cx.body.newline(),
                format!("start a new line before `{head}`"),
            )
        });
    }
}
