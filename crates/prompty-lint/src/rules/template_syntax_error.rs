use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a template that does not compile with its engine (Jinja2, Mustache or
    /// Handlebars), at the place in the file where the engine stopped.
    ///
    /// ## Why is this bad?
    /// The prompt cannot be rendered at all: every call fails. The loader only reads the
    /// front matter, so this is the first place the error shows before run time.
    ///
    /// ## Example
    /// ```text
    /// user:
    /// {% if context %}
    /// {{context}}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// user:
    /// {% if context %}
    /// {{context}}
    /// {% endif %}
    /// ```
    pub(crate) struct TemplateSyntaxError {
        code: "PL012",
        name: "template-syntax-error",
        severity: Error,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(e) = &cx.compile_error else { return };
    let span = e.span().unwrap_or(cx.prompt.body_span.start..cx.prompt.body_span.start);
    out.push(
        TemplateSyntaxError::META
            .finding(span, e.message().to_owned())
            .help(format!("fix the {} syntax; the prompt cannot render until then", cx.prompt.template.format.kind)),
    );
}
