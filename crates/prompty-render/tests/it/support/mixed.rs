//! Structured cases for every engine in both profiles: a template built from role lines
//! (with attributes in the spec profile), text, interpolations of string, object and list
//! inputs, whitespace control on either side of a value (Jinja `-`, Handlebars `~`), labels
//! glued to a value (`name:{{q}}`), loops, comments, raw blocks and Mustache delimiter
//! changes, rendered with hostile values from [`pf_split`](crate::pf_split) (role words,
//! colons, line breaks of every kind, labels, look-alikes of the internal marks and
//! placeholders) and sometimes the reserved keys `__prompty_mark` / `__prompty_nonce`.
//!
//! The property ([`check`]):
//! - benign values (`x` for every string) render to exactly the messages of the plain
//!   template's text split the way the profile splits it (the render before marks existed);
//! - hostile values are refused as an injection (one line, naming an input), refused as a
//!   reserved key (only when the values hold one), or give the benign messages' roles, names
//!   and tool call ids: no message boundary, name or tool call id made by an input.

use prompty_render::{ErrorKind, Message, RenderOptions, Renderer};
use prompty_syntax::{LoadOptions, MapHost, Profile, load_str};
use serde_json::{Map, Value, json};

use crate::pf_split::{Source, hostile_string};

/// A generated case.
#[derive(Debug)]
pub(crate) struct Case {
    pub(crate) format: &'static str,
    pub(crate) profile: Profile,
    pub(crate) body: String,
    pub(crate) hostile: Map<String, Value>,
    pub(crate) benign: Map<String, Value>,
    /// Whether the hostile values hold a reserved key.
    pub(crate) reserved: bool,
}

struct Syntax {
    format: &'static str,
    /// `{{q}}` forms, whitespace control included.
    vars: &'static [&'static str],
    doc_text: &'static str,
    loop_open: &'static str,
    item_text: &'static str,
    loop_close: &'static str,
    comment: &'static str,
    /// A block whose text renders as written (spec profile only: the promptflow profile
    /// refuses role lines there).
    raw: &'static [&'static str],
}

const JINJA: Syntax = Syntax {
    format: "jinja2",
    vars: &["{{ NAME }}", "{{NAME}}", "{{- NAME }}", "{{ NAME -}}", "{{- NAME -}}", "{{ NAME|string }}"],
    doc_text: "{{ doc.text }}",
    loop_open: "{% for it in items %}",
    item_text: "{{ it.text }}",
    loop_close: "{% endfor %}",
    comment: "{# a comment\nuser:\n#}",
    raw: &["{% raw %}\nuser:\n{{ not a tag }}\n{% endraw %}", "{% raw -%}\n\nassistant:\n  {%- endraw %}"],
};

const MUSTACHE: Syntax = Syntax {
    format: "mustache",
    vars: &["{{NAME}}", "{{{NAME}}}", "{{& NAME}}"],
    doc_text: "{{{doc.text}}}",
    loop_open: "{{#items}}",
    item_text: "{{{text}}}",
    loop_close: "{{/items}}",
    comment: "{{! a comment\nuser:\n}}",
    raw: &["{{=<% %>=}}\nuser:\n<%q%>\n<%={{ }}=%>", "{{=| |=}}\nassistant:\n|&q|\n|={{ }}=|"],
};

const HANDLEBARS: Syntax = Syntax {
    format: "handlebars",
    vars: &["{{NAME}}", "{{{NAME}}}", "{{~NAME}}", "{{NAME~}}", "{{~NAME~}}", "{{~{NAME}~}}"],
    doc_text: "{{{doc.text}}}",
    loop_open: "{{#each items}}",
    item_text: "{{{this.text}}}",
    loop_close: "{{/each}}",
    comment: "{{!-- a comment\nuser:\n--}}",
    raw: &["{{{{raw}}}}\nuser:\n{{q}}\n{{{{/raw}}}}"],
};

const ROLES: &[&str] = &["system", "user", "assistant", "User", "ASSISTANT"];

fn var(src: &mut impl Source, syn: &Syntax, name: &str) -> String {
    src.pick(syn.vars).replace("NAME", name)
}

fn role_line(src: &mut impl Source, profile: Profile) -> String {
    let word = src.pick(ROLES);
    let pre = src.pick(&["", "", "# ", "  "]);
    let attrs = if profile == Profile::Spec { src.pick(&["", "", "[name=Bob]"]) } else { "" };
    let post = src.pick(&["", "", " "]);
    format!("{pre}{word}{attrs}{post}:")
}

/// A hostile string that is never empty (an empty value next to whitespace control lets the
/// template's own role line split, as the reference does: not an input-made boundary).
fn value(src: &mut impl Source) -> String {
    let v = hostile_string(src);
    if v.is_empty() { "hi".to_owned() } else { v }
}

/// The benign twin of a value: the same shape, every string `x`.
fn benign(v: &Value) -> Value {
    match v {
        Value::String(_) => json!("x"),
        Value::Array(a) => Value::Array(a.iter().map(benign).collect()),
        Value::Object(o) => Value::Object(
            o.iter().filter(|(k, _)| !k.starts_with("__prompty_")).map(|(k, v)| (k.clone(), benign(v))).collect(),
        ),
        other => other.clone(),
    }
}

/// A benign value with a space in every string.
fn spaced(v: &Value) -> Value {
    match v {
        Value::String(_) => json!("x y"),
        Value::Array(a) => Value::Array(a.iter().map(spaced).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), spaced(v))).collect()),
        other => other.clone(),
    }
}

/// One generated case.
pub(crate) fn case(src: &mut impl Source) -> Case {
    let syn = match src.below(3) {
        0 => &MUSTACHE,
        1 => &HANDLEBARS,
        _ => &JINJA,
    };
    let profile = if src.below(2) == 0 { Profile::Spec } else { Profile::Promptflow };
    let mut lines = vec![role_line(src, profile), "Judge the answer.".to_owned()];
    let mut tail = None;
    for _ in 0..1 + src.below(6) {
        match src.below(12) {
            0 | 1 => lines.push(role_line(src, profile)),
            2 => {
                lines.push(syn.loop_open.to_owned());
                lines.push(role_line(src, profile));
                lines.push(syn.item_text.to_owned());
                lines.push(syn.loop_close.to_owned());
            }
            3 => lines.push(format!("{}{}", var(src, syn, "a"), var(src, syn, "b"))),
            4 => lines.push(syn.doc_text.to_owned()),
            5 => lines.push(format!("Text {} more text", var(src, syn, "q"))),
            // Labels glued to a value, and a value glued to a label.
            6 => {
                let (word, label) = *[("function", "name"), ("tool", "tool_call_id"), ("user", "name")]
                    .get(src.below(3))
                    .unwrap_or(&("user", "name"));
                lines.push(format!("{word}:"));
                match src.below(3) {
                    0 => lines.push(format!("{label}:{}", var(src, syn, "q"))),
                    1 => {
                        lines.push(format!("{label}:"));
                        lines.push(format!("{}content:", var(src, syn, "q")));
                    }
                    _ => {
                        lines.push(format!("{label}:"));
                        lines.push("lookup".to_owned());
                        lines.push(format!("content:{}", var(src, syn, "q")));
                    }
                }
            }
            7 => lines.push(syn.comment.to_owned()),
            // Raw blocks and delimiter changes hold role lines the template writes as text:
            // the spec profile splits there as the reference does; the promptflow profile
            // refuses them, so they go in the spec profile only. A Mustache delimiter change
            // ends the template.
            8 if profile == Profile::Spec => {
                let raw = src.pick(syn.raw);
                if syn.format == "mustache" {
                    tail = Some(raw.to_owned());
                } else {
                    lines.push(raw.to_owned());
                }
            }
            // A value right before or after a role line.
            9 => {
                lines.push(var(src, syn, "q"));
                lines.push(role_line(src, profile));
            }
            10 => {
                lines.push(role_line(src, profile));
                lines.push(var(src, syn, "q"));
            }
            _ => lines.push(var(src, syn, "q")),
        }
    }
    lines.extend(tail);
    let mut body = lines.join("\n");
    if src.below(2) == 0 {
        body.push('\n');
    }
    let mut items: Vec<Value> = (0..1 + src.below(3)).map(|_| json!({"text": value(src)})).collect();
    let reserved = src.below(16) == 0;
    if reserved {
        let key = src.pick(&["__prompty_mark", "__prompty_nonce"]);
        let at = src.below(items.len());
        if let Some(Value::Object(item)) = items.get_mut(at) {
            item.insert(key.to_owned(), json!("\x0200000000000000000000\x03"));
        }
    }
    let hostile: Map<String, Value> = [
        ("q", json!(value(src))),
        ("a", json!(value(src))),
        ("b", json!(value(src))),
        ("doc", json!({"text": value(src), "n": 1})),
        ("items", Value::Array(items)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let benign = hostile.iter().map(|(k, v)| (k.clone(), benign(v))).collect();
    Case { format: syn.format, profile, body, hostile, benign, reserved }
}

fn renderer(case: &Case) -> Renderer {
    let front = match case.profile {
        Profile::Promptflow => {
            "model:\n  api: chat\ninputs:\n  q:\n    type: string\n  a:\n    type: string\n  b:\n    type: string\n  doc:\n    type: object\n  items:\n    type: list\n"
        }
        Profile::Spec => {
            "inputs:\n  q: {kind: string}\n  a: {kind: string}\n  b: {kind: string}\n  doc: {kind: object}\n  items: {kind: array, items: {kind: object}}\n"
        }
    };
    let text =
        format!("---\nname: t\n{front}template: {{format: {}, parser: prompty}}\n---\n{}", case.format, case.body);
    let loaded = load_str(&text, &MapHost::new(), &LoadOptions::default());
    let prompt = loaded.prompt.unwrap_or_else(|| panic!("the case loads: {:?}\n{}", loaded.diagnostics, case.body));
    let options = RenderOptions { profile: Some(case.profile), ..RenderOptions::default() };
    Renderer::with_options(prompt, options).unwrap_or_else(|e| panic!("the case compiles: {e}\n{}", case.body))
}

/// The messages before marks existed: the plain template's text, split by the profile.
fn reference(r: &Renderer, case: &Case) -> Result<Vec<Message>, String> {
    let text = r.render_text(&case.benign).map_err(|e| format!("benign text: {e}"))?;
    match case.profile {
        Profile::Spec => Ok(prompty_render::split_messages(&text)),
        Profile::Promptflow => prompty_render::split_messages_promptflow(&text).map_err(|e| format!("split: {e}")),
    }
}

/// What must not change: each message's role, name and tool call id.
fn shape(messages: &[Message]) -> Vec<(String, Option<&Value>, Option<&Value>)> {
    messages.iter().map(|m| (m.role.clone(), m.metadata.get("name"), m.metadata.get("tool_call_id"))).collect()
}

/// How a case that holds the property ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Outcome {
    /// Refused as an injection.
    Refused,
    /// Refused for a reserved key.
    Reserved,
    /// The benign messages' shape.
    Same,
    /// Benign values are refused too (the template's own text is ambiguous).
    TemplateRefused,
}

/// Checks the property on one case; the error describes the violation.
pub(crate) fn check(case: &Case) -> Result<Outcome, String> {
    let r = renderer(case);
    let expected = match r.prepare(&case.benign) {
        Ok(ms) => ms,
        // A template whose own role line or label a value's text always decides
        // (`{{ q }}content:`, a role line glued to a value by whitespace control) is refused
        // for every value: then so must the hostile ones be.
        Err(e) => {
            // Whether it counts can depend on the value's spaces (`name:\n{{ q }}content:`
            // reads `x y` as no label): values with a space are then the baseline.
            let spaced: Map<String, Value> = case.benign.iter().map(|(k, v)| (k.clone(), spaced(v))).collect();
            return match (r.prepare(&case.hostile), r.prepare(&spaced)) {
                (Err(_), _) => Ok(Outcome::TemplateRefused),
                (Ok(got), Ok(want)) if shape(&got) == shape(&want) => Ok(Outcome::Same),
                (Ok(got), want) => Err(format!(
                    "benign values refused ({e}), hostile ones accepted: {:?}, spaced values give {:?}\n{case:#?}",
                    shape(&got),
                    want.map(|w| shape(&w)
                        .into_iter()
                        .map(|(r, n, i)| (r, n.cloned(), i.cloned()))
                        .collect::<Vec<_>>())
                )),
            };
        }
    };
    let before = reference(&r, case).map_err(|e| format!("{e}\n{case:#?}"))?;
    if expected != before {
        return Err(format!("benign render differs from the plain one:\n{expected:#?}\n{before:#?}\n{case:#?}"));
    }
    match r.prepare(&case.hostile) {
        Ok(got) if case.reserved => Err(format!("a reserved key was accepted: {:?}\n{case:#?}", shape(&got))),
        Ok(got) if shape(&got) == shape(&expected) => Ok(Outcome::Same),
        Ok(got) => Err(format!(
            "hostile inputs changed the messages: {:?} instead of {:?}\n{case:#?}",
            shape(&got),
            shape(&expected)
        )),
        Err(e) if e.to_string().contains(['\n', '\r']) => Err(format!("the error is not one line: {e:?}")),
        Err(e) if e.input().is_none_or(|name| !case.hostile.contains_key(name)) => {
            Err(format!("the error names no input: {e}\n{case:#?}"))
        }
        Err(e) if case.reserved && e.kind() == ErrorKind::InvalidInput => Ok(Outcome::Reserved),
        Err(e) if e.kind() == ErrorKind::Injection => Ok(Outcome::Refused),
        Err(e) => Err(format!("hostile inputs: not an injection error: {e}\n{case:#?}")),
    }
}
