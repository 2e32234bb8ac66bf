//! Hover: inputs (in the template and where they are declared), role lines, and front
//! matter keys with their schema description.

use std::ops::Range;

use prompty_syntax::{Profile, Property};
use serde_json::Value;

use crate::analysis::Snapshot;
use crate::cursor;
use crate::schema;
use crate::schema::Step;

/// Hover text (Markdown) and the byte range it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoverText {
    /// Markdown.
    pub markdown: String,
    /// What the text describes.
    pub range: Range<usize>,
}

/// The hover at byte `offset`.
pub fn hover(s: &Snapshot, offset: usize) -> Option<HoverText> {
    if s.in_front_matter(offset) {
        return front_matter(s, offset);
    }
    if !s.in_body(offset) {
        return None;
    }
    if cursor::tag_at(&s.text, s.body_span.start, offset).is_some() {
        let (segments, range) = cursor::dotted_at(&s.text, offset)?;
        return variable(s, &segments, range);
    }
    role(s, offset)
}

/// A name read in the template: the input it comes from, or a property of an object input.
fn variable(s: &Snapshot, segments: &[String], range: Range<usize>) -> Option<HoverText> {
    let (root, rest) = segments.split_first()?;
    let prompt = s.prompt()?;
    let Some(input) = prompt.input(root) else {
        let (_, span) = s.sample_nodes().into_iter().find(|(k, _)| k == root)?;
        let line = s.index.line_of(span.start) + 1;
        let markdown = format!("**`{root}`**: a key of the v1 `sample`, declared on line {line}");
        return Some(HoverText { markdown, range });
    };
    let mut property = input;
    for name in rest {
        property = property.properties.as_deref()?.iter().find(|p| &p.name == name)?;
    }
    let declared = if rest.is_empty() { declaration_line(s, root) } else { None };
    let what = if rest.is_empty() { "input".to_owned() } else { format!("property of input `{root}`") };
    Some(HoverText { markdown: describe(property, &what, segments.join(".").as_str(), declared), range })
}

/// The 1-based line an input's name is written on.
fn declaration_line(s: &Snapshot, name: &str) -> Option<usize> {
    let span = s
        .input_nodes()
        .into_iter()
        .find(|(n, _, _)| n == name)
        .map(|(_, span, _)| span)
        .or_else(|| s.prompt()?.input(name).map(|p| p.span.clone()))?;
    Some(s.index.line_of(span.start) + 1)
}

/// The Markdown description of a property.
pub fn describe(p: &Property, what: &str, name: &str, declared: Option<usize>) -> String {
    let mut out = format!("**`{name}`**: {what}, `{}`", p.kind.as_str());
    if p.required {
        out.push_str(", required");
    }
    if p.nullable {
        out.push_str(", nullable");
    }
    if let Some(d) = &p.description {
        out.push_str("\n\n");
        out.push_str(d.trim());
    }
    let mut facts = Vec::new();
    if let Some(d) = &p.default {
        facts.push(format!("default: `{}`", short_json(d)));
    }
    if let Some(e) = &p.example {
        facts.push(format!("example: `{}`", short_json(e)));
    }
    if let Some(values) = &p.enum_values {
        facts.push(format!(
            "one of: {}",
            values.iter().map(|v| format!("`{}`", short_json(v))).collect::<Vec<_>>().join(", ")
        ));
    }
    if let Some(props) = &p.properties {
        let names: Vec<String> = props.iter().map(|q| format!("`{}`", q.name)).collect();
        facts.push(format!("properties: {}", names.join(", ")));
    }
    if let Some(line) = declared {
        facts.push(format!("declared on line {line}"));
    }
    if !facts.is_empty() {
        out.push_str("\n\n");
        out.push_str(&facts.iter().map(|f| format!("- {f}")).collect::<Vec<_>>().join("\n"));
    }
    out
}

/// JSON, cut to a readable length.
fn short_json(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 80 { text } else { format!("{}…", text.chars().take(79).collect::<String>()) }
}

/// A role line.
fn role(s: &Snapshot, offset: usize) -> Option<HoverText> {
    let line = s.index.line_range(&s.text, s.index.line_of(offset))?;
    let text = s.text.get(line.clone())?;
    let profile = s.profile();
    let role = prompty_lint::role_of(text, profile)?;
    let meaning = match role {
        "system" => "instructions that set the model's behaviour",
        "developer" => {
            "instructions from the application's developer (newer OpenAI models; sent as `system` elsewhere)"
        }
        "user" => "what the user says",
        "assistant" => "what the model said earlier (a few-shot example or the conversation so far)",
        "tool" => "a tool's result, answering a call by `tool_call_id`",
        _ => "a function's result (the older form of `tool`)",
    };
    let mut markdown = format!(
        "**`{role}`** message: {meaning}.\n\nThe text from the next line up to the next role line is sent as one `{role}` message."
    );
    if let Some(attrs) = text.find('[').and_then(|a| text.get(a + 1..a + text.get(a..)?.find(']')?)) {
        markdown.push_str(&format!("\n\nAttributes (message metadata): `{attrs}`"));
    }
    if profile == Profile::Promptflow {
        markdown.push_str("\n\nv1 (promptflow) file: the message text is stripped of surrounding whitespace.");
    }
    Some(HoverText { markdown, range: line })
}

/// A key or value in the front matter.
fn front_matter(s: &Snapshot, offset: usize) -> Option<HoverText> {
    let front = s.front()?;
    let mut path = Vec::new();
    let (node, is_key) = cursor::node_at(front, offset, &mut path)?;
    let range = node.span.clone();
    // An input's name: in map form the key under `inputs`, in list form the `name` value.
    let input_name = match path.as_slice() {
        [Step::Key(top), Step::Key(name)] if top == "inputs" && is_key => Some(name.clone()),
        [Step::Key(top), Step::Item, Step::Key(k)] if top == "inputs" && k == "name" && !is_key => {
            node.as_str().map(ToOwned::to_owned)
        }
        _ => None,
    };
    if let Some(name) = input_name
        && let Some(p) = s.prompt().and_then(|p| p.input(&name))
    {
        let markdown = describe(p, "input", &name, None);
        return Some(HoverText { markdown, range });
    }
    if !is_key {
        return None;
    }
    let schemas = schema::at(&path);
    let name = match path.last() {
        Some(Step::Key(k)) => k.clone(),
        _ => return None,
    };
    let dotted: Vec<String> = path
        .iter()
        .map(|p| match p {
            Step::Key(k) => k.clone(),
            Step::Item => "[]".to_owned(),
        })
        .collect();
    if schemas.is_empty() {
        // Free-form places (`metadata`, v1 `parameters`) and unknown keys: nothing to say.
        return None;
    }
    let mut markdown = format!("**`{name}`** (`{}`)", dotted.join(".").replace(".[]", "[]"));
    if let Some(t) = schema::type_summary(&schemas) {
        markdown.push_str(&format!(": {t}"));
    }
    if let Some(d) = schema::description(&schemas) {
        markdown.push_str("\n\n");
        markdown.push_str(d);
    }
    Some(HoverText { markdown, range })
}
