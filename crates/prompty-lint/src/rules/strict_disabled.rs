use prompty_syntax::Profile;
use prompty_syntax::yaml::NodeValue;

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports `template.format.strict: false` in a v2 file.
    ///
    /// ## Why is this bad?
    /// Strict mode is the injection defence: role lines of the template carry a per-render
    /// nonce, so an input value that contains `system:` on a line of its own cannot start a
    /// message. With it off, any input can forge system or assistant messages.
    ///
    /// ## Example
    /// ```yaml
    /// template:
    ///   format: {kind: jinja2, strict: false}
    ///   parser: prompty
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// template:
    ///   format: jinja2
    ///   parser: prompty
    /// ```
    pub(crate) struct StrictDisabled {
        code: "PL024",
        name: "strict-disabled",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.profile != Profile::Spec {
        return;
    }
    let Some(node) = cx.node(&["template", "format", "strict"]) else { return };
    if matches!(node.value, NodeValue::Bool(false)) {
        out.push(
            StrictDisabled::META
                .finding(node.span.clone(), "strict mode is off: input values can start messages of their own")
                .help("remove `strict: false` unless the prompt only ever sees trusted input"),
        );
    }
}
