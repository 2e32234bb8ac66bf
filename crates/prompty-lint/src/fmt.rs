//! Formatting: front matter keys in a canonical order and role lines spelled canonically,
//! kept only when the result loads identically.
//!
//! ```
//! use prompty_syntax::{LoadOptions, MapHost};
//!
//! let text = "---\nmodel: gpt-4o\nname: hi\n---\nsystem :  \nBe brief.\n";
//! let out = prompty_lint::fmt::format(text, &MapHost::new(), &LoadOptions::default());
//! assert_eq!(out.text.as_deref(), Some("---\nname: hi\nmodel: gpt-4o\n---\nsystem:\nBe brief.\n"));
//! ```
//!
//! Three passes, each checked on its own: the top-level keys, the keys of `model` and of each
//! input and output declared as a block mapping, then the role lines. A pass is kept only
//! when the file it produces loads to the same prompt (every front matter value, in the
//! spec's JSON form), with the same diagnostics, its template splits into the same
//! messages, and it renders the same messages (on the input cases given, or the defaults);
//! otherwise the pass is dropped and [`Formatted::kept`] says why. A role-line pass that
//! renders differently is tried one line at a time, and only the lines that change a message
//! stay as written. Comments move
//! with the key below them; anything the line-based reordering cannot place safely (flow
//! mappings, keys not alone at the start of their line, list-form inputs) is left as written.

use std::ops::Range;

use prompty_render::{Message, Renderer};
use prompty_syntax::yaml::{Node, NodeValue};
use prompty_syntax::{Host, LoadOptions, Loaded, Profile, load_str};
use serde_json::{Map, Value};

use crate::body::role_like;
use crate::context::Context;
use crate::{Applicability, Fix, apply_fixes};

/// The order of top-level keys: identity, metadata, model, inputs and outputs, tools, template
/// (v1 keys where their v2 spelling goes).
pub const TOP_LEVEL_ORDER: &[&str] = &[
    "name",
    "displayName",
    "description",
    "version",
    "authors",
    "tags",
    "metadata",
    "model",
    "inputs",
    "outputs",
    "sample",
    "tools",
    "template",
];

/// The order of `model` keys (v2, then v1).
pub const MODEL_ORDER: &[&str] =
    &["id", "provider", "apiType", "connection", "options", "api", "configuration", "parameters", "response"];

/// The order of the keys of one input or output.
pub const PROPERTY_ORDER: &[&str] = &[
    "name",
    "kind",
    "type",
    "description",
    "required",
    "optional",
    "nullable",
    "default",
    "example",
    "sample",
    "enumValues",
    "strict",
    "items",
    "properties",
    "oneOf",
    "anyOf",
];

/// One formatting pass: the edits it makes to a file's text (loaded as `Loaded`).
type Pass = fn(&str, &Loaded) -> Vec<Fix>;

/// What [`format()`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Formatted {
    /// The formatted text, when it differs from the input.
    pub text: Option<String>,
    /// Changes left out, and why (the file then stays as written in that respect).
    pub kept: Vec<String>,
}

/// Formats `text`, loading it with `host` and `options` to check that every change keeps the
/// prompt as it loads and as it renders with its declared defaults. A file that does not
/// load as a prompt is left as written.
pub fn format(text: &str, host: &dyn Host, options: &LoadOptions) -> Formatted {
    format_with_cases(text, host, options, &[])
}

/// [`format()`], checking the rendered messages on each of `cases` (input values, as a
/// `.cases.yaml` beside the prompt holds them; see [`prompty_syntax::cases`]) instead of on
/// the defaults alone. A role line whose new spelling would change a message (whitespace
/// control can glue it to the text before, where it is not a role line) is left as written,
/// and [`Formatted::kept`] names it.
pub fn format_with_cases(
    text: &str,
    host: &dyn Host,
    options: &LoadOptions,
    cases: &[Map<String, Value>],
) -> Formatted {
    let original = load_str(text, host, options);
    if original.prompt.is_none() {
        return Formatted {
            text: None,
            kept: vec!["the file does not load as a prompt; fix the errors `prompty check` reports first".to_owned()],
        };
    }
    let defaults = [Map::new()];
    let cases = if cases.is_empty() { &defaults[..] } else { cases };
    let rendered = renderings(&original, cases);
    let mut current = text.to_owned();
    let mut loaded = original.clone();
    let mut kept = Vec::new();
    let passes: [(&str, Pass); 3] = [
        ("the order of the top-level keys", top_level_edits),
        ("the order of the `model`, input and output keys", nested_edits),
        ("the spelling of the role lines", role_line_edits),
    ];
    for (what, pass) in passes {
        let edits = pass(&current, &loaded);
        if edits.is_empty() {
            continue;
        }
        let candidate = apply_fixes(&current, &edits).text;
        if candidate == current {
            continue;
        }
        let reloaded = load_str(&candidate, host, options);
        if let Err(why) = loads_same(&original, &reloaded) {
            kept.push(format!("{what} was kept: {why}"));
            continue;
        }
        if renderings(&reloaded, cases) == rendered {
            current = candidate;
            loaded = reloaded;
            continue;
        }
        // One edit at a time: keep each that renders the same, leave the others as written.
        let mut accepted: Vec<Fix> = Vec::new();
        let mut best = None;
        for edit in &edits {
            let mut trial = accepted.clone();
            trial.push(edit.clone());
            let candidate = apply_fixes(&current, &trial).text;
            let reloaded = load_str(&candidate, host, options);
            if loads_same(&original, &reloaded).is_ok() && renderings(&reloaded, cases) == rendered {
                accepted = trial;
                best = Some((candidate, reloaded));
            } else {
                let line = current.get(..edit.span.start).map_or(0, |t| t.matches('\n').count()) + 1;
                let written = current.get(edit.span.clone()).unwrap_or("").trim_end_matches(['\r', '\n']);
                kept.push(format!(
                    "line {line} `{written}` was kept as written: respelling it would change the rendered messages"
                ));
            }
        }
        if let Some((candidate, reloaded)) = best {
            current = candidate;
            loaded = reloaded;
        }
    }
    Formatted { text: (current != text).then_some(current), kept }
}

/// The messages the loaded prompt renders for each case, or the error, as text.
fn renderings(loaded: &Loaded, cases: &[Map<String, Value>]) -> Vec<Result<Vec<Message>, String>> {
    let Some(prompt) = &loaded.prompt else { return vec![Err("no prompt".to_owned())] };
    match Renderer::new(prompt.clone()) {
        Ok(renderer) => cases.iter().map(|inputs| renderer.prepare(inputs).map_err(|e| e.to_string())).collect(),
        Err(e) => vec![Err(e.to_string())],
    }
}

/// Whether two loads give the same prompt, diagnostics and messages; else what differs.
fn loads_same(a: &Loaded, b: &Loaded) -> Result<(), String> {
    let (Some(pa), Some(pb)) = (&a.prompt, &b.prompt) else {
        return Err("the result would not load as a prompt".to_owned());
    };
    let json = |p: &prompty_syntax::Prompt| {
        let mut v = serde_json::to_value(p).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.remove("instructions");
        }
        v
    };
    if json(pa) != json(pb) {
        return Err("the front matter would load differently".to_owned());
    }
    let diags = |l: &Loaded| -> Vec<(&str, prompty_syntax::Severity, String)> {
        l.diagnostics.iter().map(|d| (d.code.id, d.severity, d.message.clone())).collect()
    };
    if diags(a) != diags(b) {
        return Err("the loader would report different diagnostics".to_owned());
    }
    let split = |p: &prompty_syntax::Prompt| {
        let body = p.instructions.as_deref().unwrap_or("");
        match p.profile {
            Profile::Spec => Ok(prompty_render::split_messages(body)),
            Profile::Promptflow => prompty_render::split_messages_promptflow(body).map_err(|e| e.to_string()),
        }
    };
    if split(pa) != split(pb) {
        return Err("the template would split into different messages".to_owned());
    }
    Ok(())
}

/// The front matter as written, with spans into the loaded text.
fn front(loaded: &Loaded) -> Option<&Node> {
    loaded.document.as_ref()?.tree.as_ref()
}

fn top_level_edits(text: &str, loaded: &Loaded) -> Vec<Fix> {
    let Some(root) = front(loaded) else { return Vec::new() };
    let Some(entries) = root.as_map() else { return Vec::new() };
    reorder(text, entries, TOP_LEVEL_ORDER).into_iter().collect()
}

fn nested_edits(text: &str, loaded: &Loaded) -> Vec<Fix> {
    let Some(root) = front(loaded) else { return Vec::new() };
    let mut out = Vec::new();
    if let Some(entries) = root.get("model").and_then(Node::as_map) {
        out.extend(reorder(text, entries, MODEL_ORDER));
    }
    for key in ["inputs", "outputs"] {
        for (_, property) in root.get(key).and_then(Node::as_map).unwrap_or_default() {
            if let Some(entries) = property.as_map() {
                out.extend(reorder(text, entries, PROPERTY_ORDER));
            }
        }
    }
    out
}

/// The start of the line holding `offset`.
fn line_start(text: &str, offset: usize) -> usize {
    text.get(..offset).and_then(|s| s.rfind('\n')).map_or(0, |i| i + 1)
}

/// The end of the line holding `offset`, after its newline.
fn line_end(text: &str, offset: usize) -> usize {
    text.get(offset..).and_then(|s| s.find('\n')).map_or(text.len(), |i| offset + i + 1)
}

/// A line that belongs to the key below it when it ends an entry: blank, or a comment no
/// deeper than the keys.
fn is_leading(line: &str, col: usize) -> bool {
    let trimmed = line.trim_start_matches(' ');
    let t = trimmed.trim();
    t.is_empty() || (t.starts_with('#') && line.len() - trimmed.len() <= col)
}

/// One edit that puts the entries of a block mapping in `order` (unknown keys last, in their
/// order), or nothing when it is in order or is not a block mapping whose keys each start
/// their own line at one column.
fn reorder(text: &str, entries: &[(Node, Node)], order: &[&str]) -> Option<Fix> {
    let rank = |k: &Node| k.as_str().and_then(|k| order.iter().position(|o| *o == k)).unwrap_or(order.len());
    let ranks: Vec<usize> = entries.iter().map(|(k, _)| rank(k)).collect();
    if ranks.windows(2).all(|w| w.first() <= w.get(1)) {
        return None;
    }
    let first = entries.first()?;
    let col = first.0.span.start - line_start(text, first.0.span.start);
    let mut starts = Vec::with_capacity(entries.len());
    for (k, _) in entries {
        let start = line_start(text, k.span.start);
        let indent = text.get(start..k.span.start)?;
        if indent.len() != col || !indent.bytes().all(|b| b == b' ') || !matches!(k.value, NodeValue::String(_)) {
            return None;
        }
        starts.push(start);
    }
    let last_byte = entries.iter().map(|(k, v)| k.span.end.max(v.span.end)).max()?.saturating_sub(1);
    let end = line_end(text, last_byte.max(first.0.span.start));
    let region_start = *starts.first()?;
    let region = text.get(region_start..end)?;
    let newline = if region.contains("\r\n") { "\r\n" } else { "\n" };
    // Each entry's lines; trailing blank and comment lines go with the next entry.
    let mut chunks: Vec<(usize, String)> = Vec::with_capacity(entries.len());
    let mut carry = String::new();
    for (i, start) in starts.iter().enumerate() {
        let stop = starts.get(i + 1).copied().unwrap_or(end);
        let chunk = text.get(*start..stop)?;
        let mut lines: Vec<&str> = chunk.split_inclusive('\n').collect();
        let mut tail = Vec::new();
        if i + 1 < starts.len() {
            while lines.len() > 1 && lines.last().is_some_and(|l| is_leading(l, col)) {
                tail.extend(lines.pop());
            }
        }
        tail.reverse();
        let mut own = std::mem::take(&mut carry);
        own.extend(lines);
        if !own.ends_with('\n') {
            own.push_str(newline);
        }
        carry = tail.concat();
        chunks.push((*ranks.get(i)?, own));
    }
    chunks.sort_by_key(|(r, _)| *r);
    let mut replacement: String = chunks.into_iter().map(|(_, c)| c).collect();
    if !region.ends_with('\n') {
        replacement.truncate(replacement.trim_end_matches(['\r', '\n']).len());
    }
    Some(Fix {
        span: region_start..end,
        replacement,
        title: "order the keys".to_owned(),
        applicability: Applicability::Safe,
    })
}

/// A role line as written, spelled canonically: no indentation, `# ` when it has a hash, the
/// word as written, the attributes as written, the colon, nothing after it.
pub fn canonical_role_line(line: &str) -> Option<String> {
    let like = role_like(line)?;
    let mut out = String::new();
    if line.trim_start().starts_with('#') {
        out.push_str("# ");
    }
    out.push_str(like.word);
    if let Some(attrs) = like.attrs {
        out.push('[');
        out.push_str(attrs);
        out.push(']');
    }
    out.push(':');
    Some(out)
}

fn role_line_edits(text: &str, loaded: &Loaded) -> Vec<Fix> {
    let Some(cx) = Context::new(text, loaded) else { return Vec::new() };
    let mut out = Vec::new();
    for role in &cx.roles {
        let line = cx.body.line(role.line);
        let Some(canonical) = canonical_role_line(line) else { continue };
        if canonical != line {
            let span: Range<usize> = cx.line_span(role.line);
            out.push(Fix {
                span,
                replacement: canonical,
                title: "spell the role line canonically".to_owned(),
                applicability: Applicability::Safe,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use prompty_syntax::MapHost;

    use super::*;

    fn fmt(text: &str) -> Formatted {
        format(text, &MapHost::new(), &LoadOptions::default())
    }

    #[test]
    fn orders_top_level_keys_with_their_comments() {
        let text = "---\n# yaml-language-server: $schema=x.json\nmodel:\n  id: gpt-4o\n\n# the inputs\ninputs:\n  q: {kind: string}\nname: t # the name\n---\nuser:\n{{q}}\n";
        let out = fmt(text);
        assert_eq!(
            out.text.as_deref(),
            Some(
                "---\n# yaml-language-server: $schema=x.json\nname: t # the name\nmodel:\n  id: gpt-4o\n\n# the inputs\ninputs:\n  q: {kind: string}\n---\nuser:\n{{q}}\n"
            ),
            "{out:?}"
        );
        assert!(out.kept.is_empty());
        assert_eq!(fmt(out.text.as_deref().unwrap_or_default()), Formatted::default(), "idempotent");
    }

    #[test]
    fn orders_model_and_property_keys() {
        let text = "---\nmodel:\n  options:\n    temperature: 0\n  id: gpt-4o\ninputs:\n  q:\n    default: hi\n    kind: string\n---\nuser:\n{{q}}";
        let out = fmt(text);
        assert_eq!(
            out.text.as_deref(),
            Some(
                "---\nmodel:\n  id: gpt-4o\n  options:\n    temperature: 0\ninputs:\n  q:\n    kind: string\n    default: hi\n---\nuser:\n{{q}}"
            )
        );
    }

    #[test]
    fn crlf_and_no_final_newline() {
        let text = "---\r\nmodel: m\r\nname: t\r\n---\r\nuser :\r\nhi";
        let out = fmt(text);
        assert_eq!(out.text.as_deref(), Some("---\r\nname: t\r\nmodel: m\r\n---\r\nuser:\r\nhi"));
    }

    #[test]
    fn role_lines() {
        let text = "---\nname: t\n---\n  # System[name=Bob] :  \nhi\nuser:\t\n{# user : #}\n{% if x %}\nassistant :\n{% endif %}";
        let out = fmt(text);
        assert_eq!(
            out.text.as_deref(),
            Some(
                "---\nname: t\n---\n# System[name=Bob]:\nhi\nuser:\n{# user : #}\n{% if x %}\nassistant:\n{% endif %}"
            )
        );
    }

    #[test]
    fn keeps_what_would_load_differently() {
        // An alias would come before its anchor: the order stays.
        let text = "---\nmodel: &m gpt-4o\nname: *m\n---\nuser:\nhi";
        let out = fmt(text);
        assert_eq!(out.text, None, "{out:?}");
        assert_eq!(out.kept, ["the order of the top-level keys was kept: the result would not load as a prompt"]);
        // A file that does not load is left alone, with the reason.
        let out = fmt("---\nname: [\n---\nuser:\n");
        assert_eq!(out.text, None);
        assert!(out.kept.first().is_some_and(|k| k.contains("does not load")), "{out:?}");
    }

    #[test]
    fn keeps_a_role_line_that_whitespace_control_glues_to_the_text_before() {
        // `{{- "" -}}` strips the line breaks around it: `  user :` renders inside the system
        // message, where `user:` would be different text.
        let text = "---\nname: t\n---\nsystem :\nBe brief.\n{{- \"\" -}}\n  user :\nHi\n";
        let out = fmt(text);
        assert_eq!(
            out.text.as_deref(),
            Some("---\nname: t\n---\nsystem:\nBe brief.\n{{- \"\" -}}\n  user :\nHi\n"),
            "{out:?}"
        );
        assert_eq!(
            out.kept,
            ["line 7 `  user :` was kept as written: respelling it would change the rendered messages"]
        );
        // The check runs on the input cases given, here one whose value is rendered.
        let text = "---\nname: t\ninputs:\n  q: {kind: string}\n---\nsystem:\n{{q}}\n{{- \"\" -}}\n  user :\nHi\n";
        let cases = [Map::from_iter([("q".to_owned(), Value::from("x"))])];
        let out = format_with_cases(text, &MapHost::new(), &LoadOptions::default(), &cases);
        assert_eq!(out.text, None, "{out:?}");
        assert_eq!(out.kept.len(), 1, "{out:?}");
    }

    #[test]
    fn leaves_flow_style_and_list_inputs() {
        let text = "---\n{model: m, name: t}\n---\nuser:\nhi";
        assert_eq!(fmt(text), Formatted::default());
        let text = "---\ninputs:\n  - kind: string\n    name: q\n---\nuser:\n{{q}}";
        assert_eq!(fmt(text), Formatted::default());
    }
}
