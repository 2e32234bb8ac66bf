use prompty_syntax::yaml::NodeValue;

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports an input whose `default` is not one of its `enumValues`.
    ///
    /// ## Why is this bad?
    /// The default is used whenever the caller gives no value, so the prompt renders with
    /// a value its own declaration calls invalid.
    ///
    /// ## Example
    /// ```yaml
    /// inputs:
    ///   tone:
    ///     kind: string
    ///     enumValues: [formal, casual]
    ///     default: friendly
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// inputs:
    ///   tone:
    ///     kind: string
    ///     enumValues: [formal, casual]
    ///     default: casual
    /// ```
    pub(crate) struct DefaultNotInEnum {
        code: "PL021",
        name: "default-not-in-enum",
        severity: Error,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (name, _, node) in cx.input_nodes() {
        let (Some(values), Some(default)) = (node.get("enumValues"), node.get("default")) else { continue };
        let NodeValue::Seq(items) = &values.value else { continue };
        let default_value = default.to_json();
        if default.is_null() || items.iter().any(|i| i.to_json() == default_value) {
            continue;
        }
        let listed: Vec<String> = items.iter().map(|i| i.to_json().to_string()).collect();
        out.push(
            DefaultNotInEnum::META
                .finding(default.span.clone(), format!("the default of input `{name}` is not one of its `enumValues`"))
                .help(format!("use one of {}", listed.join(", "))),
        );
    }
}
