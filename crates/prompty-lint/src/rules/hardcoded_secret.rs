use crate::Finding;
use crate::context::{Context, walk_strings};

declare_rule! {
    /// ## What it does
    /// Reports an API key, secret, password or token written literally in the front matter
    /// instead of as a `${env:NAME}` reference.
    ///
    /// ## Why is this bad?
    /// Prompt files are committed, reviewed, copied into snapshots and shared. A literal
    /// credential leaks with them and cannot be rotated without editing every copy.
    ///
    /// ## Example
    /// ```yaml
    /// model:
    ///   connection:
    ///     kind: key
    ///     apiKey: sk-live-1234
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// model:
    ///   connection:
    ///     kind: key
    ///     apiKey: ${env:OPENAI_API_KEY}
    /// ```
    pub(crate) struct HardcodedSecret {
        code: "PL025",
        name: "hardcoded-secret",
        severity: Error,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(front) = cx.front else { return };
    walk_strings(front, &mut Vec::new(), &mut |path, node| {
        let Some(key) = path.last() else { return };
        let Some(value) = node.as_str() else { return };
        // Inputs and metadata describe data, not credentials.
        if path.first().is_some_and(|p| p == "inputs" || p == "outputs" || p == "metadata") {
            return;
        }
        if !prompty_syntax::is_secret_field(key) || value.trim().is_empty() || value.contains("${") {
            return;
        }
        out.push(
            HardcodedSecret::META
                .finding(node.span.clone(), format!("`{key}` holds a literal credential"))
                .help("reference the environment instead: `${env:NAME}`"),
        );
    });
}
