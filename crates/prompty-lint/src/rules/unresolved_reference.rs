use crate::Finding;
use crate::context::{Context, walk_strings};

declare_rule! {
    /// ## What it does
    /// Reports `${env:...}` or `${file:...}` that will never be resolved: inside a longer
    /// front-matter string, or anywhere in the template body.
    ///
    /// ## Why is this bad?
    /// Only a front-matter value that is entirely one reference is resolved. In
    /// `endpoint: https://${env:HOST}/v1` or in the body the reference stays literal text,
    /// and the model or the provider receives `${env:HOST}`.
    ///
    /// ## Example
    /// ```yaml
    /// model:
    ///   connection:
    ///     kind: key
    ///     endpoint: https://${env:AZURE_HOST}/openai
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// model:
    ///   connection:
    ///     kind: key
    ///     endpoint: ${env:AZURE_OPENAI_ENDPOINT}
    /// ```
    pub(crate) struct UnresolvedReference {
        code: "PL014",
        name: "unresolved-reference",
        severity: Warning,
        fix: None,
    }
}

/// Byte ranges of `${env:...}` and `${file:...}` in `s`.
fn references(s: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = s.get(from..).and_then(|t| memchr::memmem::find(t.as_bytes(), b"${")).map(|i| from + i) {
        let rest = s.get(i + 2..).unwrap_or("");
        let lower = rest.get(..5).unwrap_or(rest).to_ascii_lowercase();
        if lower.starts_with("env:") || lower.starts_with("file:") {
            let end = rest.find('}').map_or(s.len(), |j| i + 2 + j + 1);
            out.push(i..end);
            from = end;
        } else {
            from = i + 2;
        }
    }
    out
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if let Some(front) = cx.front {
        walk_strings(front, &mut Vec::new(), &mut |_, node| {
            let Some(s) = node.as_str() else { return };
            if prompty_syntax::parse_reference(s).is_some() {
                return;
            }
            let refs = references(s);
            let Some(first) = refs.first() else { return };
            let shown = s.get(first.clone()).unwrap_or("${...}");
            // The node's text in the file is the scalar as written; point into it when it is
            // written plainly, else at the whole value.
            let span = cx
                .text
                .get(node.span.clone())
                .and_then(|raw| raw.find(shown))
                .map_or(node.span.clone(), |at| node.span.start + at..node.span.start + at + shown.len());
            out.push(
                UnresolvedReference::META
                    .finding(span, format!("`{shown}` is part of a longer string and stays literal"))
                    .help("only a value that is exactly one reference is resolved; make the reference the whole value"),
            );
        });
    }
    for r in references(&cx.body.text) {
        let shown = cx.body.text.get(r.clone()).unwrap_or("${...}");
        out.push(
            UnresolvedReference::META
                .finding(cx.span(r.clone()), format!("`{shown}` in the template body stays literal text"))
                .help("references resolve in the front matter only: declare an input with that value as its default"),
        );
    }
}
