use std::ops::Range;

use prompty_render::Renderer;
use prompty_syntax::Profile;
use prompty_syntax::yaml::Node;
use prompty_tokens::Fit;
use serde_json::{Map, Value};

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Renders the prompt with the values the editor preview uses (each input's default,
    /// else its `example`; a v1 file's `sample:`), counts the request's tokens for the
    /// prompt's model, and reports a request longer than the model's context window, or
    /// one that leaves less of the window than the answer's budget (`maxOutputTokens`;
    /// v1: `max_tokens`).
    ///
    /// Only models whose context window is known are checked: the OpenAI families, counted
    /// exactly with their own tokenizer (`prompty render --tokens` shows the counts). A
    /// prompt that does not render with those values (a required input with neither a
    /// default nor an example) is not checked.
    ///
    /// ## Why is this bad?
    /// A request over the window is refused by the API. One that leaves less than
    /// `maxOutputTokens` for the answer may be refused, or its answer cut short, and a
    /// longer input than the defaults makes it worse.
    ///
    /// ## Example
    /// ```text
    /// ---
    /// model:
    ///   id: gpt-4
    ///   options:
    ///     maxOutputTokens: 8192
    /// ---
    /// system:
    /// Summarize the text.
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// ---
    /// model:
    ///   id: gpt-4
    ///   options:
    ///     maxOutputTokens: 1000
    /// ---
    /// system:
    /// Summarize the text.
    /// ```
    pub(crate) struct ContextWindowExceeded {
        code: "PL030",
        name: "context-window-exceeded",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.compile_error.is_some() || cx.too_many_roles.is_some() {
        return;
    }
    let model = prompty_tokens::prompt_model(cx.prompt);
    let Some(window) = model.context_window else { return };
    let budget = prompty_tokens::max_output_tokens(cx.prompt);
    let Ok(renderer) = Renderer::new(cx.prompt.clone()) else { return };
    let Ok(messages) = renderer.prepare(&preview_values(cx)) else { return };
    let request = prompty_tokens::count_messages(&model, &messages);
    let name = &model.id;
    let counting = model.counting.name();
    let finding = match request.fit(budget) {
        Fit::Unknown | Fit::Fits { .. } => return,
        Fit::Exceeds { over } => ContextWindowExceeded::META
            .finding(
                model_span(cx),
                format!(
                    "rendered with its defaults the request is {} tokens ({counting}), {over} over the {window}-token context window of `{name}`",
                    request.total
                ),
            )
            .help("shorten the prompt or its defaults, or use a model with a larger window"),
        Fit::ShortOfOutput { left, wanted } => ContextWindowExceeded::META
            .finding(
                budget_span(cx).unwrap_or_else(|| model_span(cx)),
                format!(
                    "rendered with its defaults the request is {} tokens ({counting}), which leaves {left} of the {window}-token context window of `{name}` for the answer, less than its {wanted}-token budget",
                    request.total
                ),
            )
            .help(format!("lower the answer's budget to at most {left}, or shorten the prompt")),
    };
    out.push(finding);
}

/// The values the editor preview renders with: a v1 file's `sample:`, then each input's
/// `example` where it has no default (the defaults are filled in by the renderer).
fn preview_values(cx: &Context<'_>) -> Map<String, Value> {
    let mut values = Map::new();
    if cx.profile == Profile::Promptflow
        && let Some(sample) = cx.prompt.legacy.as_ref().and_then(|l| l.sample.as_ref()).and_then(Value::as_object)
    {
        values.extend(sample.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    for p in cx.prompt.inputs.iter().flatten() {
        if !values.contains_key(&p.name)
            && p.default.is_none()
            && let Some(example) = &p.example
        {
            values.insert(p.name.clone(), example.clone());
        }
    }
    values
}

/// The value that names the model (`model.id`, or a v1 `configuration`'s `model` or
/// `azure_deployment`), else the `model` key, else the start of the file.
fn model_span(cx: &Context<'_>) -> Range<usize> {
    let paths: [&[&str]; 3] =
        [&["model", "id"], &["model", "configuration", "model"], &["model", "configuration", "azure_deployment"]];
    paths
        .iter()
        .find_map(|path| cx.node(path).map(|n| n.span.clone()))
        .or_else(|| cx.front.and_then(|f| f.key_node("model")).map(|k| k.span.clone()))
        .unwrap_or(0..0)
}

/// The value of the answer's budget: `model.options.maxOutputTokens`, or v1
/// `model.parameters.max_tokens` / `max_completion_tokens`.
fn budget_span(cx: &Context<'_>) -> Option<Range<usize>> {
    let paths: [&[&str]; 3] = [
        &["model", "options", "maxOutputTokens"],
        &["model", "parameters", "max_tokens"],
        &["model", "parameters", "max_completion_tokens"],
    ];
    paths.iter().find_map(|path| cx.node(path).map(|n: &Node| n.span.clone()))
}
