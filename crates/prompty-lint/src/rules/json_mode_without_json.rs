use prompty_syntax::yaml::Node;

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports `response_format: {type: json_object}` (v1 `model.parameters` or v2
    /// `model.options.additionalProperties`) in a prompt whose template never mentions JSON.
    ///
    /// ## Why is this bad?
    /// OpenAI and Azure OpenAI reject a JSON-mode request unless a message contains the word
    /// "JSON"; the request fails with a 400 error before the model runs. Even where it is
    /// accepted, a model that is not told about the expected JSON tends to produce
    /// whitespace or an unhelpful object.
    ///
    /// ## Example
    /// ```yaml
    /// model:
    ///   options:
    ///     additionalProperties:
    ///       response_format: {type: json_object}
    /// ---
    /// system:
    /// Rate the answer from 1 to 5.
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// model:
    ///   options:
    ///     additionalProperties:
    ///       response_format: {type: json_object}
    /// ---
    /// system:
    /// Rate the answer from 1 to 5. Reply with a JSON object: {"score": <1-5>}.
    /// ```
    pub(crate) struct JsonModeWithoutJson {
        code: "PL006",
        name: "json-mode-without-json",
        severity: Error,
        fix: None,
    }
}

fn json_object(node: &Node) -> bool {
    node.as_str() == Some("json_object") || node.get("type").and_then(Node::as_str) == Some("json_object")
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let parents = [&["model", "parameters"][..], &["model", "options", "additionalProperties"][..]];
    let Some(key) = parents.iter().find_map(|path| {
        let parent = cx.node(path)?;
        parent.get("response_format").filter(|n| json_object(n))?;
        parent.key_node("response_format")
    }) else {
        return;
    };
    if cx.body.text.to_ascii_lowercase().contains("json") {
        return;
    }
    out.push(
        JsonModeWithoutJson::META
            .finding(key.span.clone(), "JSON mode is on but no message mentions JSON; the API rejects such requests")
            .help("say in the prompt that the answer is JSON (e.g. \"Reply with a JSON object ...\")"),
    );
}
