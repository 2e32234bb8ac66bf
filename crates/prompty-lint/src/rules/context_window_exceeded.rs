use std::cell::OnceCell;
use std::ops::Range;

use prompty_render::Renderer;
use prompty_syntax::yaml::Node;
use prompty_syntax::{Profile, Prompt};
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
    /// v1: `max_tokens`; else a `max_completion_tokens` or `max_tokens` sent as written from
    /// `options.additionalProperties`).
    ///
    /// In a prompt's input cases file (`<name>.cases.yaml`, what `prompty snapshot`
    /// renders) each case is rendered with its values and reported at its name the same way.
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
    let Some(renderer) = &cx.renderer else { return };
    let Some(problem) = problem(cx.prompt, || Some(renderer), &preview_values(cx), "its defaults") else { return };
    let span = match problem.kind {
        Kind::ShortOfOutput => budget_span(cx).unwrap_or_else(|| model_span(cx)),
        Kind::Exceeds => model_span(cx),
    };
    out.push(ContextWindowExceeded::META.finding(span, problem.message).help(problem.help));
}

/// The finding of one input case (`values`) of a cases file, at the case's name (`span`).
/// `renderer` holds `prompt` compiled once for all cases, on first use.
pub(crate) fn check_case(
    prompt: &Prompt,
    renderer: &OnceCell<Option<Renderer>>,
    name: &str,
    values: &Map<String, Value>,
    span: Range<usize>,
) -> Option<Finding> {
    let compiled = || renderer.get_or_init(|| Renderer::new(prompt.clone()).ok()).as_ref();
    let problem = problem(prompt, compiled, values, &format!("case `{name}`"))?;
    Some(ContextWindowExceeded::META.finding(span, problem.message).help(problem.help))
}

enum Kind {
    Exceeds,
    ShortOfOutput,
}

struct Problem {
    kind: Kind,
    message: String,
    help: String,
}

/// What is wrong with the request `prompt` renders to with `values` (described as `with`),
/// if anything; nothing when the model's window is not known or the prompt does not render.
/// `renderer` gives `prompt` compiled; it is called only when the model's window is known.
fn problem<'r>(
    prompt: &Prompt,
    renderer: impl FnOnce() -> Option<&'r Renderer>,
    values: &Map<String, Value>,
    with: &str,
) -> Option<Problem> {
    let model = prompty_tokens::prompt_model(prompt);
    let window = model.context_window?;
    let budget = prompty_tokens::max_output_tokens(prompt);
    let messages = renderer()?.prepare(values).ok()?;
    // Most prompts are far inside their window: a bound taken from the bytes settles it
    // without the tokenizer's tables.
    let bound = prompty_tokens::upper_bound(&model, &messages) as u64;
    if bound.saturating_add(budget.unwrap_or(0)) <= window {
        return None;
    }
    let request = prompty_tokens::count_messages(&model, &messages);
    let name = &model.id;
    let counting = model.counting.name();
    let total = request.total;
    match request.fit(budget) {
        Fit::Unknown | Fit::Fits { .. } => None,
        Fit::Exceeds { over } => Some(Problem {
            kind: Kind::Exceeds,
            message: format!(
                "rendered with {with} the request is {total} tokens ({counting}), {over} over the {window}-token context window of `{name}`"
            ),
            help: "shorten the prompt or its inputs, or use a model with a larger window".to_owned(),
        }),
        Fit::ShortOfOutput { left, wanted } => Some(Problem {
            kind: Kind::ShortOfOutput,
            message: format!(
                "rendered with {with} the request is {total} tokens ({counting}), which leaves {left} of the {window}-token context window of `{name}` for the answer, less than its {wanted}-token budget"
            ),
            help: format!("lower the answer's budget to at most {left}, or shorten the prompt"),
        }),
    }
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
