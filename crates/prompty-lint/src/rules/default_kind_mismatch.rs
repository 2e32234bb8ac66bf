use prompty_syntax::yaml::{Node, NodeValue};

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports an input whose `default`, `example` or v1 `sample` does not have the type its
    /// `kind` (or v1 `type`) says.
    ///
    /// ## Why is this bad?
    /// Nothing checks input values at run time: a default of the wrong type is rendered as
    /// is (`"3"` where a number was meant, `False` where a string was meant), and tools that
    /// build forms or schemas from the declaration get a contradiction.
    ///
    /// ## Example
    /// ```yaml
    /// inputs:
    ///   max_items:
    ///     kind: integer
    ///     default: "3"
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// inputs:
    ///   max_items:
    ///     kind: integer
    ///     default: 3
    /// ```
    pub(crate) struct DefaultKindMismatch {
        code: "PL004",
        name: "default-kind-mismatch",
        severity: Error,
        fix: None,
    }
}

/// The kind a property node declares, normalized to the v2 names the check knows.
fn kind_of(node: &Node) -> Option<&'static str> {
    if let Some(k) = node.get("kind").and_then(Node::as_str) {
        return ["string", "integer", "float", "boolean", "array", "object", "thread", "image", "file", "audio"]
            .into_iter()
            .find(|known| *known == k);
    }
    let t = node.get("type").and_then(Node::as_str)?.to_ascii_lowercase();
    Some(match t.as_str() {
        "str" | "string" => "string",
        "int" | "integer" => "integer",
        "float" | "double" | "number" => "float",
        "bool" | "boolean" => "boolean",
        "list" | "array" => "array",
        "dict" | "object" | "map" => "object",
        _ => return None,
    })
}

/// Whether `value` is a value of `kind` (null fits every kind). Also used for the values of
/// input cases ([`invalid_input_case`](super::invalid_input_case)).
pub(crate) fn fits(kind: &str, value: &NodeValue) -> bool {
    match (kind, value) {
        (_, NodeValue::Null) => true,
        ("string", NodeValue::String(_)) => true,
        ("integer", NodeValue::Number(n)) => !n.is_f64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        ("float", NodeValue::Number(_)) => true,
        ("boolean", NodeValue::Bool(_)) => true,
        ("array" | "thread", NodeValue::Seq(_)) => true,
        ("object" | "thread", NodeValue::Map(_)) => true,
        ("image" | "file" | "audio", NodeValue::String(_) | NodeValue::Map(_)) => true,
        _ => false,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (name, _, node) in cx.input_nodes() {
        let Some(kind) = kind_of(node) else { continue };
        for field in ["default", "example", "sample"] {
            let Some(value) = node.get(field) else { continue };
            // An unresolved `${...}` reference is a string until it is resolved.
            if value.as_str().is_some_and(|s| prompty_syntax::parse_reference(s).is_some()) || fits(kind, &value.value)
            {
                continue;
            }
            out.push(
                DefaultKindMismatch::META
                    .finding(
                        value.span.clone(),
                        format!("`{field}` of input `{name}` is {} but its kind is `{kind}`", value.type_name()),
                    )
                    .help(format!("write a value of kind `{kind}`, or change the kind")),
            );
        }
    }
}
