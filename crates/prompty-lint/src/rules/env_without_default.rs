use std::collections::HashSet;

use prompty_syntax::codes;

use crate::Finding;
use crate::context::{Context, walk_strings};

declare_rule! {
    /// ## What it does
    /// Reports `${env:NAME}` without a default (`${env:NAME:default}`) for a value that is
    /// not a secret, when the loader did not already report the variable as unset.
    ///
    /// Secret-bearing fields (`apiKey`, `password`, `token`...) and names that look like
    /// secrets (`KEY`, `SECRET`, `TOKEN`, `PASSWORD`, `CREDENTIAL`) are not reported: a
    /// secret should have no default.
    ///
    /// ## Why is this bad?
    /// A v2 prompt that references an unset variable without a default fails to load. For
    /// settings such as endpoints, deployments and API versions a default keeps the file
    /// loadable everywhere (tests, previews, other machines) while the environment can
    /// still override it.
    ///
    /// ## Example
    /// ```yaml
    /// model:
    ///   connection:
    ///     kind: key
    ///     endpoint: ${env:AZURE_OPENAI_ENDPOINT}
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// model:
    ///   connection:
    ///     kind: key
    ///     endpoint: ${env:AZURE_OPENAI_ENDPOINT:https://example.openai.azure.com}
    /// ```
    pub(crate) struct EnvWithoutDefault {
        code: "PL013",
        name: "env-without-default",
        severity: Warning,
        fix: None,
    }
}

fn secret_like(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "PWD", "CREDENTIAL"].iter().any(|s| upper.contains(s))
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(front) = cx.front else { return };
    let reported: HashSet<(usize, usize)> = cx
        .loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::ENV_NOT_SET || d.code == codes::BAD_ENV_NAME)
        .map(|d| (d.span.start, d.span.end))
        .collect();
    walk_strings(front, &mut Vec::new(), &mut |path, node| {
        let Some(r) = node.as_str().and_then(prompty_syntax::parse_reference) else { return };
        if !r.protocol.eq_ignore_ascii_case("env") || r.value.contains(':') || secret_like(r.value) {
            return;
        }
        if path.last().is_some_and(|k| prompty_syntax::is_secret_field(k)) {
            return;
        }
        if reported.contains(&(node.span.start, node.span.end)) {
            return;
        }
        let name = r.value;
        out.push(
            EnvWithoutDefault::META
                .finding(
                    node.span.clone(),
                    format!("`${{env:{name}}}` has no default; loading fails where {name} is unset"),
                )
                .help(format!("give a default: `${{env:{name}:value}}`")),
        );
    });
}
