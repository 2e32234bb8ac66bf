//! Completion: input names (and the properties of object inputs) inside template tags, role
//! words at the start of a body line, front matter keys and their values (the schema's
//! values, model ids for `model.id`, an input's `enum` values for its `default` and
//! `example`).

use std::ops::Range;

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, MarkupContent, MarkupKind, TextEdit,
};
use prompty_syntax::{Profile, Property};

use crate::analysis::Snapshot;
use crate::cursor::{self, Slot};
use crate::hover::describe;
use crate::schema;
use crate::schema::Step;

/// The completion items at byte `offset`.
pub fn complete(s: &Snapshot, offset: usize) -> Vec<CompletionItem> {
    if s.in_front_matter(offset) {
        return front_matter(s, offset);
    }
    if !s.in_body(offset) {
        return Vec::new();
    }
    if cursor::tag_at(&s.text, s.body_span.start, offset).is_some() {
        return names(s, offset);
    }
    roles(s, offset)
}

fn item(s: &Snapshot, label: &str, kind: CompletionItemKind, range: Range<usize>, insert: &str) -> CompletionItem {
    CompletionItem {
        label: label.to_owned(),
        kind: Some(kind),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit {
            range: s.index.range(&s.text, range),
            new_text: insert.to_owned(),
        })),
        ..CompletionItem::default()
    }
}

fn markdown(text: String) -> Documentation {
    Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: text })
}

/// Inputs, or the properties of the object the dotted name before the cursor names.
fn names(s: &Snapshot, offset: usize) -> Vec<CompletionItem> {
    let Some(prompt) = s.prompt() else { return Vec::new() };
    let (segments, word) = cursor::dotted_before(&s.text, offset);
    let mut out = Vec::new();
    let Some((root, rest)) = segments.split_first() else {
        for p in prompt.inputs.iter().flatten() {
            out.push(property_item(s, p, "input", &p.name, word.clone()));
        }
        for (name, _) in s.sample_nodes() {
            if prompt.input(&name).is_none() {
                let mut it = item(s, &name, CompletionItemKind::VARIABLE, word.clone(), &name);
                it.detail = Some("v1 sample".to_owned());
                out.push(it);
            }
        }
        return out;
    };
    let Some(mut property) = prompt.input(root) else { return out };
    for name in rest {
        let Some(next) = property.properties.as_deref().and_then(|ps| ps.iter().find(|p| &p.name == name)) else {
            return out;
        };
        property = next;
    }
    let what = format!("property of `{}`", segments.join("."));
    for p in property.properties.iter().flatten() {
        let dotted = format!("{}.{}", segments.join("."), p.name);
        out.push(property_item(s, p, &what, &dotted, word.clone()));
    }
    out
}

fn property_item(s: &Snapshot, p: &Property, what: &str, dotted: &str, word: Range<usize>) -> CompletionItem {
    let kind = if p.properties.is_some() { CompletionItemKind::STRUCT } else { CompletionItemKind::VARIABLE };
    let mut it = item(s, &p.name, kind, word, &p.name);
    it.detail = Some(format!("{what}: {}", p.kind.as_str()));
    it.documentation = Some(markdown(describe(p, what, dotted, None)));
    it
}

/// Role words, when the line so far could become a role line.
fn roles(s: &Snapshot, offset: usize) -> Vec<CompletionItem> {
    let line = s.index.line_of(offset);
    let Some(range) = s.index.line_range(&s.text, line) else { return Vec::new() };
    let before = s.text.get(range.start..offset).unwrap_or("");
    let after = s.text.get(offset..range.end).unwrap_or("");
    let word = before.trim_start_matches([' ', '\t']);
    let word = word.strip_prefix('#').map_or(word, |w| w.trim_start_matches([' ', '\t']));
    if !word.bytes().all(|b| b.is_ascii_alphabetic()) || !after.trim().is_empty() {
        return Vec::new();
    }
    let roles: &[&str] = match s.profile() {
        Profile::Spec => prompty_render::SPEC_ROLES,
        Profile::Promptflow => prompty_render::PROMPTFLOW_ROLES,
    };
    let word_range = offset - word.len()..offset;
    roles
        .iter()
        .enumerate()
        .map(|(i, role)| {
            let label = format!("{role}:");
            let mut it = item(s, &label, CompletionItemKind::KEYWORD, word_range.clone(), &label);
            it.detail = Some(format!("starts a {role} message"));
            it.sort_text = Some(format!("{i}"));
            it.filter_text = Some((*role).to_owned());
            it
        })
        .collect()
}

/// Keys of the mapping at the cursor, or the values of its key.
fn front_matter(s: &Snapshot, offset: usize) -> Vec<CompletionItem> {
    let Some(front) = s.front_span.clone() else { return Vec::new() };
    match cursor::yaml_slot(&s.text, front, offset) {
        Some(Slot::Key { path, prefix, siblings }) => schema::keys(&schema::at(&path))
            .into_iter()
            .filter(|(k, _)| !siblings.iter().any(|sib| sib == k))
            .enumerate()
            .map(|(i, (key, description))| {
                let insert = format!("{key}: ");
                let mut it = item(s, key, CompletionItemKind::PROPERTY, prefix.clone(), &insert);
                it.filter_text = Some(key.to_owned());
                it.sort_text = Some(format!("{i:03}"));
                it.documentation = description.map(|d| markdown(d.to_owned()));
                it
            })
            .collect(),
        Some(Slot::Value { path, prefix }) => {
            if let Some(items) = special_values(s, offset, &path, &prefix) {
                return items;
            }
            let schemas = schema::at(&path);
            let description = schema::description(&schemas);
            schema::values(&schemas)
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    let mut it = item(s, &v, CompletionItemKind::ENUM_MEMBER, prefix.clone(), &v);
                    it.sort_text = Some(format!("{i:03}"));
                    it.documentation = description.map(|d| markdown(d.to_owned()));
                    it
                })
                .collect()
        }
        None => Vec::new(),
    }
}

/// Model ids offered for `model.id` (and `model: <id>`, v1 `configuration.model`): common
/// ids of the providers' current families. Any id is accepted; these save typing.
pub const OPENAI_MODELS: &[&str] = &[
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-nano",
    "o3",
    "o3-mini",
    "o4-mini",
    "text-embedding-3-small",
    "text-embedding-3-large",
];

/// Anthropic model ids offered for `model.id` (see [`OPENAI_MODELS`]).
pub const ANTHROPIC_MODELS: &[&str] = &[
    "claude-opus-4-1",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-3-7-sonnet-latest",
    "claude-3-5-haiku-latest",
];

/// Values the schema does not list: model ids, and the `enum` of the input whose `default`
/// or `example` is being written.
fn special_values(s: &Snapshot, offset: usize, path: &[Step], prefix: &Range<usize>) -> Option<Vec<CompletionItem>> {
    let keys: Vec<&str> = path.iter().map(|p| if let Step::Key(k) = p { k.as_str() } else { "-" }).collect();
    let model_id = matches!(keys.as_slice(), ["model"] | ["model", "id"] | ["model", "configuration", "model"]);
    if model_id {
        let provider = s
            .front()
            .and_then(|f| f.get("model"))
            .and_then(|m| m.get("provider").or_else(|| m.get("configuration").and_then(|c| c.get("type"))))
            .and_then(prompty_syntax::yaml::Node::as_str)
            .map(str::to_ascii_lowercase);
        let lists: Vec<(&str, &[&str])> = match provider.as_deref() {
            Some("anthropic") => vec![("Anthropic", ANTHROPIC_MODELS)],
            Some("openai" | "azure" | "azure_openai") => vec![("OpenAI", OPENAI_MODELS)],
            _ => vec![("OpenAI", OPENAI_MODELS), ("Anthropic", ANTHROPIC_MODELS)],
        };
        let mut out = Vec::new();
        for (family, ids) in lists {
            for id in ids {
                let mut it = item(s, id, CompletionItemKind::VALUE, prefix.clone(), id);
                it.detail = Some(format!("{family} model"));
                it.sort_text = Some(format!("{:03}", out.len()));
                out.push(it);
            }
        }
        return Some(out);
    }
    if keys.first() != Some(&"inputs") || !matches!(keys.last(), Some(&("default" | "example"))) {
        return None;
    }
    // The path says the cursor is in an input's declaration: the last one that starts before it.
    let (name, _, _) = s.input_nodes().into_iter().rfind(|(_, name, _)| name.start <= offset)?;
    let values = s.prompt()?.input(&name)?.enum_values.clone()?;
    let items = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let text = match v {
                serde_json::Value::String(t) => t.clone(),
                other => other.to_string(),
            };
            let mut it = item(s, &text, CompletionItemKind::ENUM_MEMBER, prefix.clone(), &text);
            it.detail = Some(format!("a value of `{name}`'s enum"));
            it.sort_text = Some(format!("{i:03}"));
            it
        })
        .collect();
    Some(items)
}
