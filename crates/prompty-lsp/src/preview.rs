//! The `prompty.render` command: the messages a document renders to, with the inputs the
//! client gives, else each input's default (or a v1 file's `sample`), else its `example`.

use std::sync::Arc;

use prompty_render::{RenderOptions, Renderer};
use serde_json::{Map, Value, json};

use crate::analysis::Snapshot;

/// The command's name.
pub const COMMAND: &str = "prompty.render";

/// Renders the document. The result is `{"messages": [...], "text": "...", "inputs": {...}}`:
/// the messages in the spec's canonical JSON form, the same as readable text (what
/// `prompty render` prints), and the input values used with where each came from.
/// Errors name the line and column.
pub fn render(s: &Snapshot, given: &Map<String, Value>) -> Result<Value, String> {
    let Some(prompt) = s.prompt() else {
        return Err(first_error(s).unwrap_or_else(|| "the file does not load as a prompt".to_owned()));
    };
    if let Some(e) = first_error(s) {
        return Err(e);
    }
    let mut inputs = given.clone();
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
        }
    }
    let options = RenderOptions { source: Some(Arc::clone(&s.text)), ..RenderOptions::default() };
    let renderer = Renderer::with_options(prompt.clone(), options).map_err(|e| located(s, &e))?;
    let messages = renderer.prepare(&inputs).map_err(|e| located(s, &e))?;
    let text = prompty_render::messages_to_text(&messages);
    Ok(json!({ "messages": messages, "text": text, "inputs": sources }))
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
