//! The `prompty.render` command: the messages a document renders to, with the inputs the
//! client gives, else each input's default (or a v1 file's `sample`), else its `example`,
//! else, for a required input, a placeholder (said so in the result).

use std::sync::Arc;

use prompty_render::{RenderOptions, Renderer};
use serde_json::{Map, Value, json};

use crate::analysis::Snapshot;

/// The command's name.
pub const COMMAND: &str = "prompty.render";

/// Renders the document. The result is `{"messages": [...], "text": "...", "inputs": {...},
/// "placeholders": [...], "note": ...}`: the messages in the spec's canonical JSON form, the
/// same as readable text (what `prompty render` prints), the input values used with where
/// each came from (`given`, `sample`, `default`, `example` or `placeholder`), the names of
/// required inputs that had no value and got a placeholder (`<name>` for text, `0`, `false`,
/// `[]` or `{}` by kind), and a sentence saying so (`null` when none did). Errors name the
/// line and column.
pub fn render(s: &Snapshot, given: &Map<String, Value>) -> Result<Value, String> {
    let Preview { messages, inputs: sources, placeholders } = prepare(s, given)?;
    let text = prompty_render::messages_to_text(&messages);
    let note = (!placeholders.is_empty()).then(|| {
        let names = placeholders.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        format!(
            "placeholders stand in for {names}: required, with no value given and no default or example (give values, or add an `example:` to the input)"
        )
    });
    Ok(json!({ "messages": messages, "text": text, "inputs": sources, "placeholders": placeholders, "note": note }))
}

/// What the preview renders: the messages, the values used with where each came from, and
/// the required inputs a placeholder stood in for.
pub(crate) struct Preview {
    pub(crate) messages: Vec<prompty_syntax::Message>,
    pub(crate) inputs: Map<String, Value>,
    pub(crate) placeholders: Vec<String>,
}

/// Renders the document as [`render`] describes.
pub(crate) fn prepare(s: &Snapshot, given: &Map<String, Value>) -> Result<Preview, String> {
    let Some(prompt) = s.prompt() else {
        return Err(first_error(s).unwrap_or_else(|| "the file does not load as a prompt".to_owned()));
    };
    if let Some(e) = first_error(s) {
        return Err(e);
    }
    let mut inputs = given.clone();
    let mut placeholders: Vec<String> = Vec::new();
    let mut sources = Map::new();
    let mut note = |name: &str, value: &Value, from: &str| {
        sources.insert(name.to_owned(), json!({ "value": value, "from": from }));
    };
    for (k, v) in given {
        note(k, v, "given");
    }
    // A v1 file's `sample` stands in for all inputs when none are given, as promptflow does.
    let sample = prompt
        .legacy
        .as_ref()
        .and_then(|l| l.sample.as_ref())
        .and_then(Value::as_object)
        .filter(|_| given.is_empty() && prompt.profile == prompty_syntax::Profile::Promptflow);
    for (k, v) in sample.into_iter().flatten() {
        inputs.insert(k.clone(), v.clone());
        note(k, v, "sample");
    }
    for p in prompt.inputs.iter().flatten() {
        if inputs.contains_key(&p.name) {
            continue;
        }
        if let Some(default) = &p.default {
            note(&p.name, default, "default");
        } else if let Some(example) = &p.example {
            inputs.insert(p.name.clone(), example.clone());
            note(&p.name, example, "example");
        } else if p.required {
            let value = placeholder(p);
            inputs.insert(p.name.clone(), value.clone());
            note(&p.name, &value, "placeholder");
            placeholders.push(p.name.clone());
        }
    }
    let options = RenderOptions { source: Some(Arc::clone(&s.text)), ..RenderOptions::default() };
    let renderer = Renderer::with_options(prompt.clone(), options).map_err(|e| located(s, &e))?;
    let messages = renderer.prepare(&inputs).map_err(|e| located(s, &e))?;
    Ok(Preview { messages, inputs: sources, placeholders })
}

/// A stand-in value of `p`'s kind.
fn placeholder(p: &prompty_syntax::Property) -> Value {
    use prompty_syntax::PropertyKind as K;
    match p.kind {
        K::Integer => json!(0),
        K::Float => json!(0.0),
        K::Boolean => json!(false),
        K::Array | K::Thread => json!([]),
        K::Object => json!({}),
        _ => json!(format!("<{}>", p.name)),
    }
}

fn first_error(s: &Snapshot) -> Option<String> {
    let d = s.loaded.diagnostics.iter().find(|d| d.is_error())?;
    let p = s.index.position(&s.text, d.span.start);
    Some(format!("{}:{}: {} [{}]", p.line + 1, p.character + 1, d.message, d.code.id))
}

fn located(s: &Snapshot, e: &prompty_render::Error) -> String {
    match e.span() {
        Some(span) => {
            let p = s.index.position(&s.text, span.start);
            format!("{}:{}: {e}", p.line + 1, p.character + 1)
        }
        None => e.to_string(),
    }
}
