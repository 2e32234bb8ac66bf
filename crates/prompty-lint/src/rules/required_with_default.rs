use prompty_syntax::yaml::NodeValue;

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports an input marked `required: true` that also has a `default`.
    ///
    /// ## Why is this bad?
    /// A missing input takes its default before the required check runs, so `required`
    /// never fires: the two settings contradict each other and readers cannot tell which
    /// one the author meant.
    ///
    /// ## Example
    /// ```yaml
    /// inputs:
    ///   tone:
    ///     kind: string
    ///     required: true
    ///     default: friendly
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// inputs:
    ///   tone:
    ///     kind: string
    ///     default: friendly
    /// ```
    pub(crate) struct RequiredWithDefault {
        code: "PL003",
        name: "required-with-default",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (name, _, node) in cx.input_nodes() {
        let required = matches!(node.get("required").map(|n| &n.value), Some(NodeValue::Bool(true)));
        let default = node.get("default").is_some_and(|d| !d.is_null());
        if let (true, true, Some(key)) = (required, default, node.key_node("required")) {
            out.push(
                RequiredWithDefault::META
                    .finding(
                        key.span.clone(),
                        format!("input `{name}` is required but has a default, which always applies"),
                    )
                    .help(
                        "remove `required: true` (callers may omit it), or remove the default (callers must give it)",
                    ),
            );
        }
    }
}
