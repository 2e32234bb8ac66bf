use crate::Finding;
use crate::context::Context;
use prompty_syntax::TemplateFormat;

declare_rule! {
    /// ## What it does
    /// Reports `{{name}}` in a Mustache prompt, which HTML-escapes the value, and `{{.}}`,
    /// which HTML-escapes the current item of a list.
    ///
    /// ## Why is this bad?
    /// Mustache's double braces replace `&`, `<`, `>` and `"` with `&amp;`, `&lt;`, `&gt;`
    /// and `&quot;`. A prompt is not HTML: the model sees `x &lt; 3` instead of `x < 3`, and
    /// quoted text, code and JSON in inputs arrive mangled. Triple braces insert the value
    /// as is.
    ///
    /// ## Example
    /// ```yaml
    /// ---
    /// template: {format: mustache, parser: prompty}
    /// ---
    /// user:
    /// {{question}}
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// ---
    /// template: {format: mustache, parser: prompty}
    /// ---
    /// user:
    /// {{{question}}}
    /// ```
    pub(crate) struct MustacheHtmlEscape {
        code: "PL005",
        name: "mustache-html-escape",
        severity: Warning,
        fix: Unsafe,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.format != Some(TemplateFormat::Mustache) {
        return;
    }
    for v in cx.template.vars.iter().filter(|v| v.escapes_html) {
        let Some(tag) = &v.tag else { continue };
        let Some(text) = cx.body.text.get(tag.clone()) else { continue };
        let name = cx.body.text.get(v.span.clone()).unwrap_or(&v.root);
        let mut finding = MustacheHtmlEscape::META
            .finding(cx.span(tag.clone()), format!("`{text}` HTML-escapes the value of `{name}`"))
            .help(format!("write `{{{{{{{name}}}}}}}` to insert the value as is"));
        // Only the default delimiters have a triple-brace form.
        if text.starts_with("{{") && text.ends_with("}}") {
            let inner = text.get(2..text.len() - 2).unwrap_or(name);
            finding = finding.unsafe_fix(
                cx.span(tag.clone()),
                format!("{{{{{{{inner}}}}}}}"),
                format!("write `{{{{{{{name}}}}}}}`"),
            );
        }
        out.push(finding);
    }
    for tag in &cx.template.escaped_items {
        let Some(text) = cx.body.text.get(tag.clone()) else { continue };
        let mut finding = MustacheHtmlEscape::META
            .finding(cx.span(tag.clone()), format!("`{text}` HTML-escapes the current item"))
            .help("write `{{{.}}}` to insert the item as is");
        if text.starts_with("{{") && text.ends_with("}}") {
            finding = finding.unsafe_fix(cx.span(tag.clone()), "{{{.}}}", "write `{{{.}}}`");
        }
        out.push(finding);
    }
}
