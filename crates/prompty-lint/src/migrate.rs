//! Migration: a v1 (promptflow) file rewritten to the v2 spec, kept only when it is proven
//! to render the same messages.
//!
//! ```
//! use prompty_syntax::{LoadOptions, MapHost};
//!
//! let v1 = "---\nname: hi\nmodel:\n  api: chat\ninputs:\n  who:\n    type: string\n    default: you\n---\nsystem:\n{% if who %}\nHello {{who}}.\n{% endif %}\n";
//! let out = prompty_lint::migrate::migrate(v1, &MapHost::new(), &LoadOptions::default(), &[]).unwrap();
//! assert_eq!(
//!     out.text,
//!     "---\nname: hi\nmodel:\n  apiType: chat\ninputs:\n  - name: who\n    kind: string\n    default: you\n---\nsystem:\n{% if who -%}\nHello {{who}}.\n{% endif -%}\n",
//! );
//! ```
//!
//! The front matter is edited in place, key by key, so that comments and the way values are
//! written stay as they were: `model.api` becomes `apiType`, `parameters` becomes `options`
//! (`top_p` -> `topP`, ...: the parameters whose v2 option compiles to the same request field;
//! the others, `max_tokens` among them, go under `options.additionalProperties`, as written),
//! `configuration` becomes `provider`, `id` and a `key` connection (`azure_endpoint` or
//! `base_url` as `endpoint`, `api_key` as `apiKey`, as written), `response: first` is
//! dropped (v2 returns the first choice), `template: jinja2` becomes the
//! v2 mapping, the `inputs` mapping becomes a list of properties with `name` and `kind`
//! (`type` mapped to its kind, `sample` to `example`, `optional` to the `required` that v1
//! really applied: an input without a default is required whatever `optional` says), and the
//! top-level `authors` and `tags` move under `metadata`. The template gets the whitespace
//! control that stands for v1's `trim_blocks`: the line break after a `{% %}` (but `{% raw %}`)
//! or `{# #}` tag is removed by `-%}` when the next line starts with text, removed outright when
//! the next line is blank (the blank line then reads as the tag's own line break), or moved
//! inside the tag when the next line is indented (where `-%}` would remove the indentation).
//!
//! Then the proof: the new text must load as a v2 file with no errors and no v1 construct
//! left, declare the same inputs (name, kind, default, required), compile to the same
//! request apart from the messages (`prompty_wire::compile`, numbers compared by value), and
//! render, in the spec profile, exactly the messages the old file renders in the promptflow
//! profile, on every
//! case given (a `.cases.yaml` beside the prompt), else on the v1 `sample`, else on the
//! defaults (with a placeholder, `<name>` for a string, for each required input that has
//! none). The top-level `sample` becomes the inputs' `example` values. Anything the rewrite
//! does not know how to carry over (a `model.configuration` setting v2 has no key for, such as
//! `api_version`, list-form inputs with v1 keys, a
//! `sample` value for an undeclared input) is refused with the reason, and so is a file whose
//! renders differ, naming the first difference. A refusal changes nothing;
//! [`Migrated::notes`] says what a successful migration changed that a reader should know
//! about.
//!
//! It lives in the lint crate beside [`crate::fmt`] for the same reasons: it reads the
//! front matter as written (`Loaded::document`) and checks its work by loading and rendering
//! with the loader and the renderer, which the lint crate already depends on.

use std::fmt;
use std::ops::Range;

use prompty_render::{Message, Renderer};
use prompty_syntax::yaml::{Node, NodeValue};
use prompty_syntax::{Host, LineIndex, LoadOptions, Loaded, Part, Profile, Prompt, PropertyKind, load_str};
use serde_json::{Map, Value};

/// One set of inputs the renders are compared on.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Its name in the output (`defaults`, `sample`, or the case's name in `.cases.yaml`).
    pub name: String,
    /// The input values.
    pub inputs: Map<String, Value>,
}

/// A migration that was proven.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migrated {
    /// The v2 text.
    pub text: String,
    /// What changed that a reader should know about (beyond the renamed keys).
    pub notes: Vec<String>,
    /// The names of the cases the renders were compared on.
    pub cases: Vec<String>,
    /// The cases both files refuse to render (a required input missing, say): the same
    /// behaviour, but no messages were compared on them.
    pub refused_by_both: Vec<String>,
}

/// Why a file was not migrated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The file is not a v1 file.
    NotV1,
    /// The file does not load as a prompt, or loads with errors.
    DoesNotLoad(String),
    /// Something the migration cannot carry over, with where it is.
    Unsupported(String),
    /// The rewritten file would not load as a clean v2 file.
    Invalid(String),
    /// The renders differ.
    Differs(Difference),
    /// The request the new file compiles to differs (besides the messages).
    Request(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotV1 => write!(f, "already a v2 file (no v1 key found); nothing to migrate"),
            Refusal::DoesNotLoad(why) => write!(f, "does not load: {why}; fix what `prompty check` reports first"),
            Refusal::Unsupported(why) => write!(f, "not migrated: {why}"),
            Refusal::Invalid(why) => write!(f, "not migrated: the v2 text would not load cleanly: {why}"),
            Refusal::Differs(d) => write!(f, "not migrated: the v2 file would render differently: {d}"),
            Refusal::Request(why) => write!(f, "not migrated: the v2 file would send another request: {why}"),
        }
    }
}

/// The first difference between the old and the new render of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The case's name.
    pub case: String,
    /// The index of the first message that differs (none when a render failed).
    pub message: Option<usize>,
    /// That message's role in the old render.
    pub role: Option<String>,
    /// The byte offset of the first difference in the message's text.
    pub offset: usize,
    /// The old render around there (or what it was: an error, a message count).
    pub old: String,
    /// The new render around there.
    pub new: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "case `{}`", self.case)?;
        if let Some(i) = self.message {
            write!(f, ", message {i}")?;
            if let Some(role) = &self.role {
                write!(f, " ({role})")?;
            }
            write!(f, ", byte {}", self.offset)?;
        }
        write!(f, ": v1 gives {:?}, v2 gives {:?}", self.old, self.new)
    }
}

/// Migrates `text` (loaded with `host` and `options`) and proves the result on `cases` (the
/// v1 `sample`, else the defaults, when there are none).
pub fn migrate(text: &str, host: &dyn Host, options: &LoadOptions, cases: &[Case]) -> Result<Migrated, Refusal> {
    let old = load_str(text, host, options);
    let index = LineIndex::new(text);
    let at = |offset: usize| {
        let (line, col) = index.line_col(text, offset);
        format!("{line}:{col}")
    };
    let Some(old_prompt) = &old.prompt else {
        let why = old
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .map_or_else(|| "not a prompt file".to_owned(), |d| format!("{} at {}", d.message, at(d.span.start)));
        return Err(Refusal::DoesNotLoad(why));
    };
    if let Some(d) = old.diagnostics.iter().find(|d| d.is_error()) {
        return Err(Refusal::DoesNotLoad(format!("{} at {}", d.message, at(d.span.start))));
    }
    if old_prompt.profile != Profile::Promptflow {
        return Err(Refusal::NotV1);
    }
    let Some(doc) = &old.document else { return Err(Refusal::DoesNotLoad("no front matter".to_owned())) };
    let Some(root) = &doc.tree else { return Err(Refusal::DoesNotLoad("no front matter".to_owned())) };
    let front = doc.front_matter.clone().unwrap_or(0..0);
    let newline = if text.get(front.clone()).is_some_and(|f| f.contains("\r\n")) { "\r\n" } else { "\n" };
    let mut rewrite = Rewrite {
        text,
        newline,
        edits: Vec::new(),
        notes: Vec::new(),
        at: &at,
        prompt: old_prompt,
        sample: Map::new(),
    };
    rewrite.front_matter(root)?;
    if old_prompt.template.format.kind == "jinja2" {
        rewrite.body(doc.body.clone());
    }
    let Rewrite { edits, notes, .. } = rewrite;
    let new_text = apply(text, edits)?;
    let new = load_str(&new_text, host, options);
    let new_prompt = clean_v2(&new_text, &new)?;
    same_inputs(old_prompt, new_prompt)?;
    same_connection(old_prompt, new_prompt)?;
    let cases = match cases {
        [] => match old_prompt.legacy.as_ref().and_then(|l| l.sample.as_ref()) {
            Some(Value::Object(sample)) => vec![Case { name: "sample".to_owned(), inputs: sample.clone() }],
            _ => vec![Case { name: "defaults".to_owned(), inputs: placeholders(old_prompt) }],
        },
        given => given.to_vec(),
    };
    let refused_by_both = prove(old_prompt, new_prompt, &cases)?;
    Ok(Migrated { text: new_text, notes, cases: cases.into_iter().map(|c| c.name).collect(), refused_by_both })
}

/// A value for each required input without a default (its name, in angle brackets, as the
/// kind's value), so that a file whose inputs are all required is still rendered.
fn placeholders(prompt: &Prompt) -> Map<String, Value> {
    let mut out = Map::new();
    for p in prompt.inputs.iter().flatten().filter(|p| p.required && p.default.is_none()) {
        let text = Value::String(format!("<{}>", p.name));
        let value = match p.kind {
            PropertyKind::Integer => Value::from(1),
            PropertyKind::Float => Value::from(1.5),
            PropertyKind::Boolean => Value::Bool(true),
            PropertyKind::Array => Value::Array(vec![text]),
            PropertyKind::Object => Value::Object(Map::from_iter([("value".to_owned(), text)])),
            _ => text,
        };
        out.insert(p.name.clone(), value);
    }
    out
}

/// The new text's prompt, when it loads as a v2 file with no error and no v1 construct.
fn clean_v2<'a>(text: &str, loaded: &'a Loaded) -> Result<&'a Prompt, Refusal> {
    let index = LineIndex::new(text);
    let bad = loaded.diagnostics.iter().find(|d| d.is_error() || d.code == prompty_syntax::codes::LEGACY_KEY);
    if let Some(d) = bad {
        let (line, col) = index.line_col(text, d.span.start);
        return Err(Refusal::Invalid(format!("{} ({}) at {line}:{col}", d.message, d.code.id)));
    }
    match &loaded.prompt {
        Some(p) if p.profile == Profile::Spec => Ok(p),
        Some(_) => Err(Refusal::Invalid("it would still be read as a v1 file".to_owned())),
        None => Err(Refusal::Invalid("it would not load as a prompt".to_owned())),
    }
}

/// The inputs and outputs must keep their names, kinds, defaults and required flags.
fn same_inputs(old: &Prompt, new: &Prompt) -> Result<(), Refusal> {
    fn shape(ps: &Option<Vec<prompty_syntax::Property>>) -> Vec<(&str, PropertyKind, Option<&Value>, bool)> {
        ps.iter().flatten().map(|p| (p.name.as_str(), p.kind, p.default.as_ref(), p.required)).collect()
    }
    for (what, a, b) in [("inputs", &old.inputs, &new.inputs), ("outputs", &old.outputs, &new.outputs)] {
        // Inputs made from a v1 sample: optional and without default, they take any value,
        // as undeclared inputs do.
        let from_sample = what == "inputs"
            && a.as_ref().is_none_or(Vec::is_empty)
            && b.iter().flatten().all(|p| !p.required && p.default.is_none());
        if from_sample {
            continue;
        }
        let (a, b) = (shape(a), shape(b));
        if a != b {
            let first = a.iter().zip(&b).find(|(x, y)| x != y).map_or_else(
                || format!("{} declared instead of {}", b.len(), a.len()),
                |(x, y)| format!("`{}` would be {y:?} instead of {x:?}", x.0),
            );
            return Err(Refusal::Invalid(format!("the {what} would change: {first}")));
        }
    }
    Ok(())
}

/// Renders both prompts on every case and compares the messages exactly; the cases that
/// both refuse are returned.
fn prove(old: &Prompt, new: &Prompt, cases: &[Case]) -> Result<Vec<String>, Refusal> {
    let mut both = Vec::new();
    let old_r = Renderer::new(old.clone()).map_err(|e| Refusal::DoesNotLoad(e.to_string()))?;
    let new_r = Renderer::new(new.clone()).map_err(|e| Refusal::Invalid(e.to_string()))?;
    for case in cases {
        let a = old_r.prepare(&case.inputs);
        let b = new_r.prepare(&case.inputs);
        let differs = |old: String, new: String| {
            Refusal::Differs(Difference { case: case.name.clone(), message: None, role: None, offset: 0, old, new })
        };
        match (a, b) {
            (Ok(a), Ok(b)) => {
                if let Some(d) = first_difference(&case.name, &a, &b) {
                    return Err(Refusal::Differs(d));
                }
                same_request(old, new, &a)?;
            }
            // Both refuse these inputs (a required input missing, say): the same behaviour.
            (Err(_), Err(_)) => both.push(case.name.clone()),
            (Ok(a), Err(e)) => return Err(differs(format!("{} messages", a.len()), format!("error: {e}"))),
            (Err(e), Ok(b)) => return Err(differs(format!("error: {e}"), format!("{} messages", b.len()))),
        }
    }
    Ok(both)
}

/// The model, its provider and where requests go with which key: what `model.configuration`
/// said in the old file, `model.id`, `model.provider` and the connection say in the new one.
fn same_connection(old: &Prompt, new: &Prompt) -> Result<(), Refusal> {
    let conf = old.legacy.as_ref().and_then(|l| l.configuration.as_ref());
    let old_field = |keys: &[&str]| keys.iter().find_map(|k| conf.and_then(|c| c.get(*k)).cloned());
    let new_model = new.model.as_ref();
    let new_field = |key: &str| new_model.and_then(|m| m.connection.as_ref()).and_then(|c| c.fields.get(key)).cloned();
    let model = |p: &Prompt| p.model.as_ref().map(|m| (m.id.clone(), m.provider.clone()));
    let checks = [
        ("the model id and provider", serde_json::to_value(model(old)).ok(), serde_json::to_value(model(new)).ok()),
        ("the endpoint", old_field(&["azure_endpoint", "base_url"]), new_field("endpoint")),
        ("the API key", old_field(&["api_key"]), new_field("apiKey")),
    ];
    for (what, a, b) in checks {
        if a != b {
            let shown = |v: &Option<Value>| v.as_ref().map_or_else(|| "nothing".to_owned(), Value::to_string);
            return Err(Refusal::Request(format!("{what} would change: {} in v1, {} in v2", shown(&a), shown(&b))));
        }
    }
    Ok(())
}

/// The request both prompts compile to for `messages` (with a model id, which a v1 file
/// usually leaves to the caller) must be the same apart from the messages, numbers compared
/// by value (`0` and `0.0` are one number to the API).
fn same_request(old: &Prompt, new: &Prompt, messages: &[Message]) -> Result<(), Refusal> {
    let body = |p: &Prompt| {
        let target = prompty_wire::Target::new().with_model("deployment");
        prompty_wire::compile(p, messages, target).map(|c| c.body).map_err(|e| e.to_string())
    };
    let (a, b) = match (body(old), body(new)) {
        (Ok(a), Ok(b)) => (a, b),
        // A v1 request the wire cannot build (a provider it does not speak v1 to): there
        // is nothing to compare with.
        (Err(_), _) => return Ok(()),
        (Ok(_), Err(e)) => return Err(Refusal::Request(format!("it would not compile: {e}"))),
    };
    let fields = |v: &Value| -> Map<String, Value> {
        let mut m = v.as_object().cloned().unwrap_or_default();
        m.remove("messages");
        m.into_iter().map(|(k, v)| (k, numbers_as_floats(v))).collect()
    };
    let (a, b) = (fields(&a), fields(&b));
    if a == b {
        return Ok(());
    }
    let key = a.keys().chain(b.keys()).find(|k| a.get(*k) != b.get(*k)).cloned().unwrap_or_default();
    let shown = |m: &Map<String, Value>| m.get(&key).map_or_else(|| "nothing".to_owned(), Value::to_string);
    Err(Refusal::Request(format!("`{key}` is {} in v1 and {} in v2", shown(&a), shown(&b))))
}

fn numbers_as_floats(v: Value) -> Value {
    match v {
        Value::Number(n) => n.as_f64().map_or(Value::Number(n), Value::from),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_floats).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, numbers_as_floats(v))).collect()),
        other => other,
    }
}

/// A message as one string: text parts as written, other parts as JSON.
fn shown(m: &Message) -> String {
    let mut out = String::new();
    for part in &m.content {
        match part {
            Part::Text { value } => out.push_str(value),
            other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
        }
    }
    if !m.metadata.is_empty() {
        out.push_str(&serde_json::to_string(&m.metadata).unwrap_or_default());
    }
    out
}

fn first_difference(case: &str, a: &[Message], b: &[Message]) -> Option<Difference> {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let (sx, sy) = (shown(x), shown(y));
        if x.role != y.role {
            return Some(Difference {
                case: case.to_owned(),
                message: Some(i),
                role: Some(x.role.clone()),
                offset: 0,
                old: format!("role {}", x.role),
                new: format!("role {}", y.role),
            });
        }
        if sx != sy || x != y {
            let offset = sx.bytes().zip(sy.bytes()).position(|(p, q)| p != q).unwrap_or(sx.len().min(sy.len()));
            return Some(Difference {
                case: case.to_owned(),
                message: Some(i),
                role: Some(x.role.clone()),
                offset,
                old: snippet(&sx, offset),
                new: snippet(&sy, offset),
            });
        }
    }
    (a.len() != b.len()).then(|| Difference {
        case: case.to_owned(),
        message: Some(a.len().min(b.len())),
        role: a.get(b.len()).map(|m| m.role.clone()),
        offset: 0,
        old: format!("{} messages", a.len()),
        new: format!("{} messages", b.len()),
    })
}

/// Up to 40 bytes of `s` from a little before `offset`, on character boundaries.
fn snippet(s: &str, offset: usize) -> String {
    let mut start = offset.saturating_sub(10);
    while !s.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + 40).min(s.len());
    while !s.is_char_boundary(end) {
        end += 1;
    }
    s.get(start..end).unwrap_or("").to_owned()
}

/// One replacement of the original text.
struct Edit {
    at: Range<usize>,
    text: String,
}

/// Applies `edits` (any order; insertions at one place keep their order).
fn apply(text: &str, mut edits: Vec<Edit>) -> Result<String, Refusal> {
    edits.sort_by_key(|e| e.at.start);
    let mut out = String::with_capacity(text.len() + 256);
    let mut pos = 0;
    for e in edits {
        let piece = text.get(pos..e.at.start).filter(|_| e.at.start >= pos && e.at.end <= text.len());
        let Some(piece) = piece else {
            return Err(Refusal::Unsupported(
                "two changes overlap (the front matter is laid out unusually)".to_owned(),
            ));
        };
        out.push_str(piece);
        out.push_str(&e.text);
        pos = e.at.end.max(pos);
    }
    out.push_str(text.get(pos..).unwrap_or(""));
    Ok(out)
}

/// The start of the line holding `offset`.
fn line_start(text: &str, offset: usize) -> usize {
    text.get(..offset).and_then(|s| s.rfind('\n')).map_or(0, |i| i + 1)
}

/// The end of the line holding `offset`, after its line break.
fn line_end(text: &str, offset: usize) -> usize {
    text.get(offset..).and_then(|s| s.find('\n')).map_or(text.len(), |i| offset + i + 1)
}

/// v1 parameters with a v2 option that compiles to the same request field. (`max_tokens` is
/// not one: `maxOutputTokens` goes out as `max_completion_tokens` on OpenAI chat, which older
/// Azure API versions reject; it stays as written under `additionalProperties`.)
const PARAMETERS: &[(&str, &str)] = &[
    ("temperature", "temperature"),
    ("top_p", "topP"),
    ("frequency_penalty", "frequencyPenalty"),
    ("presence_penalty", "presencePenalty"),
    ("stop", "stopSequences"),
    ("seed", "seed"),
];

struct Rewrite<'a> {
    text: &'a str,
    newline: &'a str,
    edits: Vec<Edit>,
    notes: Vec<String>,
    at: &'a dyn Fn(usize) -> String,
    prompt: &'a Prompt,
    /// The top-level `sample`, whose values become the inputs' `example`s.
    sample: Map<String, Value>,
}

impl Rewrite<'_> {
    fn edit(&mut self, at: Range<usize>, text: impl Into<String>) {
        self.edits.push(Edit { at, text: text.into() });
    }

    fn col(&self, offset: usize) -> usize {
        offset - line_start(self.text, offset)
    }

    /// The end of a map entry: the end of the line its value (or key) ends on.
    fn entry_end(&self, key: &Node, value: &Node) -> usize {
        let last = key.span.end.max(value.span.end).saturating_sub(1).max(key.span.start);
        line_end(self.text, last)
    }

    /// Where the `:` after `key` ends.
    fn colon_end(&self, key: &Node) -> Result<usize, Refusal> {
        let rest = self.text.get(key.span.end..).unwrap_or("");
        let skipped = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        if rest.get(skipped..).is_some_and(|r| r.starts_with(':')) {
            Ok(key.span.end + skipped + 1)
        } else {
            Err(self.unsupported(key, "a key not followed by `:` (a complex or quoted key layout)"))
        }
    }

    fn unsupported(&self, node: &Node, what: &str) -> Refusal {
        Refusal::Unsupported(format!("{what} at {}", (self.at)(node.span.start)))
    }

    /// A block mapping whose first key starts a line below `key`: the column of its keys.
    fn block_column(&self, key: &Node, value: &Node) -> Option<usize> {
        let (first, _) = value.as_map()?.first()?;
        let below = self.text.get(key.span.end..first.span.start).is_some_and(|t| t.contains('\n'));
        let indent = self.text.get(line_start(self.text, first.span.start)..first.span.start)?;
        (below && indent.bytes().all(|b| b == b' ')).then_some(indent.len())
    }

    fn front_matter(&mut self, root: &Node) -> Result<(), Refusal> {
        let Some(entries) = root.as_map() else { return Ok(()) };
        if let Some(Value::Object(sample)) = root.get("sample").map(Node::to_json) {
            self.sample = sample;
        }
        for (key, value) in entries {
            match key.key_string().as_str() {
                "model" => self.model(value)?,
                "inputs" => self.inputs(key, value)?,
                "outputs" => {
                    return Err(self.unsupported(
                        key,
                        "`outputs` (v1 only keeps those keys of a JSON answer; v2 `outputs` asks the model for \
                         that JSON schema, which changes the request: drop them, or migrate by hand and review \
                         the request with `prompty compile`)",
                    ));
                }
                "template" => self.template(key, value)?,
                "sample" => self.sample(root, key, value)?,
                _ => {}
            }
        }
        self.metadata(root)
    }

    /// The top-level `authors` and `tags` move, as written, under `metadata`.
    fn metadata(&mut self, root: &Node) -> Result<(), Refusal> {
        let entries = root.as_map().unwrap_or_default();
        let moving: Vec<&(Node, Node)> =
            entries.iter().filter(|(k, _)| matches!(k.key_string().as_str(), "authors" | "tags")).collect();
        let Some((first, _)) = moving.first() else { return Ok(()) };
        let meta = entries.iter().find(|(k, _)| k.key_string() == "metadata");
        let (col, at, mut block) = match meta {
            None => (2, line_start(self.text, first.span.start), format!("metadata:{}", self.newline)),
            Some((k, v)) if v.as_map().is_some_and(<[_]>::is_empty) || v.is_null() => {
                let end = self.entry_end(k, v);
                self.edit(line_start(self.text, k.span.start)..end, "");
                (2, line_start(self.text, first.span.start), format!("metadata:{}", self.newline))
            }
            Some((k, v)) => {
                let Some(col) = self.block_column(k, v) else {
                    return Err(self.unsupported(v, "`metadata` written on one line (write it as a block mapping)"));
                };
                (col, self.entry_end(k, v), String::new())
            }
        };
        let mut removed = Vec::new();
        for (k, v) in &moving {
            let name = k.key_string();
            if meta.is_some_and(|(_, m)| m.get(&name).is_some()) {
                return Err(self.unsupported(k, &format!("`{name}` both at the top level and in `metadata`; keep one")));
            }
            let start = line_start(self.text, k.span.start);
            let end = self.entry_end(k, v);
            for line in self.text.get(start..end).unwrap_or("").split_inclusive('\n') {
                if !line.trim().is_empty() {
                    block.push_str(&" ".repeat(col));
                }
                block.push_str(line);
            }
            if !block.ends_with('\n') {
                block.push_str(self.newline);
            }
            removed.push(start..end);
        }
        // The insertion goes first: it may sit where the first moved entry starts.
        self.edit(at..at, block);
        for span in removed {
            self.edit(span, "");
        }
        Ok(())
    }

    /// The top-level `sample`: its values become each input's `example` (the inputs, when
    /// there are none: v1 then reads the sample as the inputs' declaration), and the block
    /// goes.
    fn sample(&mut self, root: &Node, key: &Node, value: &Node) -> Result<(), Refusal> {
        if value.as_map().is_none() {
            return Err(self.unsupported(value, "a top-level `sample` that is not a mapping (a `.json` file, say)"));
        }
        let start = line_start(self.text, key.span.start);
        let end = self.entry_end(key, value);
        let region = self.text.get(start..end).unwrap_or("");
        let comments: Vec<&str> =
            region.lines().filter(|l| l.trim_start().starts_with('#') || l.contains(" #")).map(str::trim).collect();
        let declared = root.get("inputs").and_then(Node::as_map).unwrap_or_default();
        let mut replacement = String::new();
        if declared.is_empty() {
            if root.get("inputs").is_some_and(|i| !i.is_null() && i.as_map().is_none()) {
                return Err(self.unsupported(key, "a top-level `sample` beside list-form `inputs`"));
            }
            // v1 reads the sample as the declaration of the inputs.
            let nl = self.newline;
            replacement.push_str(&format!("inputs:{nl}"));
            for (name, v) in &self.sample {
                let kind = PropertyKind::infer(v).as_str();
                let example = serde_json::to_string(v).unwrap_or_default();
                let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                let name = if plain { name.clone() } else { serde_json::to_string(name).unwrap_or_default() };
                replacement.push_str(&format!("  - name: {name}{nl}    kind: {kind}{nl}    example: {example}{nl}"));
            }
        } else {
            for name in self.sample.keys() {
                let Some((k, v)) = declared.iter().find(|(k, _)| k.key_string() == *name) else {
                    return Err(self.unsupported(
                        key,
                        &format!("`sample.{name}`, which is not a declared input (declare it, or take it out)"),
                    ));
                };
                if v.get("sample").is_some() || v.get("example").is_some() {
                    return Err(self.unsupported(
                        k,
                        &format!("`{name}` has its own example besides the top-level `sample` one; keep one"),
                    ));
                }
            }
        }
        self.edit(start..end, replacement);
        self.notes.push(format!(
            "the top-level `sample` at {} became the inputs' `example` values (v2 never uses them as inputs: a \
             call with no inputs now gets the defaults)",
            (self.at)(key.span.start)
        ));
        if !comments.is_empty() {
            self.notes.push(format!("the comments of the top-level `sample` were dropped: {}", comments.join(" ")));
        }
        Ok(())
    }

    fn model(&mut self, model: &Node) -> Result<(), Refusal> {
        let Some(entries) = model.as_map() else { return Ok(()) };
        for (v1, v2) in [("api", "apiType"), ("parameters", "options"), ("configuration", "connection")] {
            if let (Some(k), Some(_)) = (model.key_node(v1), model.get(v2)) {
                return Err(self.unsupported(k, &format!("`model` has both `{v1}` and `{v2}`; keep one")));
            }
        }
        for (key, value) in entries {
            match key.key_string().as_str() {
                "api" => self.edit(key.span.clone(), "apiType"),
                "configuration" => self.configuration(model, key, value)?,
                "response" => {
                    if value.as_str().is_some_and(|r| r.eq_ignore_ascii_case("first")) {
                        let start = line_start(self.text, key.span.start);
                        let end = self.entry_end(key, value);
                        self.edit(start..end, "");
                        self.notes.push(format!(
                            "`model.response: first` at {} removed: v2 always returns the first choice",
                            (self.at)(key.span.start)
                        ));
                    } else {
                        return Err(self.unsupported(
                            key,
                            "`model.response` other than `first` (v2 has no way to return the whole response)",
                        ));
                    }
                }
                "parameters" => self.parameters(key, value)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// `model.configuration` becomes `provider` (its `type`, `azure_openai` read as `foundry`
    /// as the loader reads it), `id` (`azure_deployment` or `model`) and a `key` connection
    /// (`azure_endpoint` or `base_url` as its `endpoint`, `api_key` as its `apiKey`), each
    /// value as written, `${env:NAME}` references included. A setting v2 has no key for
    /// (`api_version`, a named promptflow `connection`, ...) is refused by name: dropping it
    /// would send the request elsewhere or with another credential.
    fn configuration(&mut self, model: &Node, key: &Node, value: &Node) -> Result<(), Refusal> {
        const KNOWN: &[&str] = &["type", "azure_endpoint", "base_url", "api_key", "azure_deployment", "model"];
        let entries = value.as_map().unwrap_or_default();
        if let Some((k, _)) = entries.iter().find(|(k, _)| !KNOWN.contains(&k.key_string().as_str())) {
            let name = k.key_string();
            return Err(self.unsupported(
                k,
                &format!(
                    "`model.configuration.{name}` (v2 has no key for it, and leaving it out would change where or how \
                     the request is sent: write the v2 `model` by hand, see `prompty rule P010`)"
                ),
            ));
        }
        for (a, b) in [("azure_endpoint", "base_url"), ("azure_deployment", "model")] {
            if let (Some(_), Some(k)) = (value.get(a), value.key_node(b)) {
                return Err(self.unsupported(k, &format!("`model.configuration` with both `{a}` and `{b}`; keep one")));
            }
        }
        for v2 in ["provider", "id", "connection"] {
            if let Some(k) = model.key_node(v2) {
                return Err(self.unsupported(k, &format!("`model` has both `configuration` and `{v2}`; keep one")));
            }
        }
        if !entries.is_empty() && self.block_column(key, value).is_none() {
            return Err(
                self.unsupported(value, "`model.configuration` written on one line (write it as a block mapping)")
            );
        }
        let written = |name: &str| -> Option<String> {
            let v = value.get(name)?;
            let text = self.text.get(v.span.clone())?;
            (!text.contains('\n')).then(|| text.to_owned())
        };
        for name in KNOWN {
            if let Some(v) = value.get(name)
                && (v.as_str().is_none() || written(name).is_none())
            {
                return Err(self.unsupported(v, &format!("`model.configuration.{name}` that is not a one-line string")));
            }
        }
        let (nl, pad) = (self.newline, " ".repeat(self.col(key.span.start)));
        let mut block = String::new();
        if let Some(t) = value.get("type").and_then(Node::as_str) {
            let provider = if t == "azure_openai" { "foundry".to_owned() } else { written("type").unwrap_or_default() };
            block.push_str(&format!("{pad}provider: {provider}{nl}"));
        }
        if let Some(id) = written("azure_deployment").or_else(|| written("model")) {
            block.push_str(&format!("{pad}id: {id}{nl}"));
        }
        let endpoint = written("azure_endpoint").or_else(|| written("base_url"));
        let api_key = written("api_key");
        if endpoint.is_some() || api_key.is_some() {
            block.push_str(&format!("{pad}connection:{nl}{pad}  kind: key{nl}"));
            if let Some(e) = endpoint {
                block.push_str(&format!("{pad}  endpoint: {e}{nl}"));
            }
            if let Some(k) = api_key {
                block.push_str(&format!("{pad}  apiKey: {k}{nl}"));
            }
        }
        let start = line_start(self.text, key.span.start);
        let end = self.entry_end(key, value);
        let region = self.text.get(start..end).unwrap_or("");
        let comments: Vec<&str> =
            region.lines().filter(|l| l.trim_start().starts_with('#') || l.contains(" #")).map(str::trim).collect();
        if !region.ends_with('\n') {
            block = block.trim_end_matches(['\r', '\n']).to_owned();
        }
        self.edit(start..end, block);
        self.notes.push(format!(
            "`model.configuration` at {} became `model.provider`, `model.id` and a `key` connection",
            (self.at)(key.span.start)
        ));
        if !comments.is_empty() {
            self.notes.push(format!("the comments of `model.configuration` were dropped: {}", comments.join(" ")));
        }
        Ok(())
    }

    fn parameters(&mut self, key: &Node, value: &Node) -> Result<(), Refusal> {
        self.edit(key.span.clone(), "options");
        let Some(entries) = value.as_map().filter(|e| !e.is_empty()) else { return Ok(()) };
        let Some(col) = self.block_column(key, value) else {
            return Err(self.unsupported(value, "`model.parameters` written on one line (write it as a block mapping)"));
        };
        let mut moved = String::new();
        let mut names = Vec::new();
        for (k, v) in entries {
            let name = k.key_string();
            match PARAMETERS.iter().find(|(v1, _)| *v1 == name) {
                Some((v1, v2)) if v1 != v2 => self.edit(k.span.clone(), *v2),
                Some(_) => {}
                None => {
                    let start = line_start(self.text, k.span.start);
                    let end = self.entry_end(k, v);
                    let region = self.text.get(start..end).unwrap_or("");
                    for line in region.split_inclusive('\n') {
                        if !line.trim().is_empty() {
                            moved.push_str("  ");
                        }
                        moved.push_str(line);
                    }
                    if !moved.ends_with('\n') {
                        moved.push_str(self.newline);
                    }
                    self.edit(start..end, "");
                    names.push(format!("`{name}`"));
                }
            }
        }
        if !moved.is_empty() {
            let end = entries.iter().map(|(k, v)| self.entry_end(k, v)).max().unwrap_or(value.span.end);
            let lead = if self.text.get(..end).is_some_and(|t| t.ends_with('\n')) { "" } else { self.newline };
            let block = format!("{lead}{}additionalProperties:{}{moved}", " ".repeat(col), self.newline);
            let block = if lead.is_empty() { block } else { block.trim_end_matches(['\r', '\n']).to_owned() };
            self.edit(end..end, block);
            self.notes.push(format!(
                "{} moved to `model.options.additionalProperties`, sent as written (no v2 option compiles to the same request field)",
                names.join(", ")
            ));
        }
        Ok(())
    }

    fn template(&mut self, key: &Node, value: &Node) -> Result<(), Refusal> {
        let Some(format) = value.as_str() else { return Ok(()) };
        if format != "jinja2" {
            return Err(self.unsupported(value, &format!("`template: {format}` (v1 knows only jinja2)")));
        }
        let col = self.col(key.span.start);
        let (nl, pad) = (self.newline, " ".repeat(col));
        let colon = self.colon_end(key)?;
        self.edit(
            colon..value.span.end,
            format!("{nl}{pad}  format:{nl}{pad}    kind: jinja2{nl}{pad}  parser:{nl}{pad}    kind: prompty"),
        );
        Ok(())
    }

    /// `inputs`: the mapping of properties becomes a list.
    fn inputs(&mut self, key: &Node, value: &Node) -> Result<(), Refusal> {
        if let NodeValue::Seq(items) = &value.value {
            for item in items {
                for v1 in ["type", "sample", "optional"] {
                    if let Some(k) = item.key_node(v1) {
                        return Err(self.unsupported(k, &format!("`{v1}` in list-form `inputs` (write `kind` first)")));
                    }
                }
            }
            return Ok(());
        }
        let Some(entries) = value.as_map().filter(|e| !e.is_empty()) else { return Ok(()) };
        if self.block_column(key, value).is_none() {
            return Err(self.unsupported(value, "`inputs` written on one line (write it as a block mapping)"));
        }
        let declared = &self.prompt.inputs;
        for (k, v) in entries {
            let name = k.key_string();
            let required = declared.iter().flatten().find(|p| p.name == name).is_some_and(|p| p.required);
            let kind = declared.iter().flatten().find(|p| p.name == name).map(|p| p.kind);
            match self.block_column(k, v) {
                Some(d) => self.block_property(k, v, d, required)?,
                None => self.inline_property(k, v, kind, required)?,
            }
        }
        Ok(())
    }

    /// A property written as a block mapping: edited in place, its lines shifted under `- `.
    fn block_property(&mut self, key: &Node, value: &Node, d: usize, required: bool) -> Result<(), Refusal> {
        let text = self.text;
        let c = self.col(key.span.start);
        let own = c + 2;
        let nl = self.newline;
        let pad = " ".repeat(own);
        let name = text.get(key.span.clone()).unwrap_or("");
        let colon = self.colon_end(key)?;
        self.edit(line_start(text, key.span.start)..colon, format!("{}- name: {name}", " ".repeat(c)));
        let after_key = line_end(text, key.span.start);
        let mut added = String::new();
        if value.get("type").is_none() && value.get("kind").is_none() {
            let kind = value.get("default").map_or(PropertyKind::String, |d| PropertyKind::infer(&d.to_json()));
            added.push_str(&format!("{pad}kind: {}{nl}", kind.as_str()));
        }
        if !added.is_empty() {
            self.edit(after_key..after_key, added);
        }
        for v1 in ["sample", "optional"] {
            let v2 = if v1 == "sample" { "example" } else { "required" };
            if let (Some(k), Some(_)) = (value.key_node(v1), value.get(v2)) {
                return Err(self.unsupported(k, &format!("`{name}` has both `{v1}` and `{v2}`; keep one")));
            }
        }
        let mut dropped: Vec<Range<usize>> = Vec::new();
        let entries = value.as_map().unwrap_or_default();
        for (k, v) in entries {
            match k.key_string().as_str() {
                "type" => {
                    let kind = PropertyKind::from_v1_type(v.as_str().unwrap_or(""));
                    self.edit(k.span.clone(), "kind");
                    self.edit(v.span.clone(), kind.as_str());
                    if kind == PropertyKind::Array && value.get("items").is_none() {
                        let items = match value.get("default").map(Node::to_json) {
                            Some(Value::Array(a)) if !a.is_empty() => {
                                a.first().map_or(PropertyKind::String, PropertyKind::infer)
                            }
                            _ => PropertyKind::Object,
                        };
                        let end = self.entry_end(k, v);
                        self.edit(end..end, format!("{pad}items:{nl}{pad}  kind: {}{nl}", items.as_str()));
                        self.notes.push(format!(
                            "`{name}`: v1 `type: {}` names no element type; `items: {{kind: {}}}` added (v2 requires \
                             one; inputs are not checked against it), correct it if the elements differ",
                            v.as_str().unwrap_or(""),
                            items.as_str()
                        ));
                    }
                }
                "sample" => self.edit(k.span.clone(), "example"),
                "optional" => {
                    let span = line_start(text, k.span.start)..self.entry_end(k, v);
                    let said = v.to_json() == Value::Bool(true);
                    if said && required {
                        self.notes.push(format!(
                            "`{name}`: `optional: true` had no effect in v1 (an input without a default is \
                             required); written as `required: true`"
                        ));
                    }
                    dropped.push(span.clone());
                    self.edit(span, "");
                }
                _ => {}
            }
        }
        let end = entries.iter().map(|(k, v)| self.entry_end(k, v)).max().unwrap_or(after_key);
        let mut tail = Vec::new();
        if required && value.get("required").is_none() {
            tail.push("required: true".to_owned());
        }
        if let Some(example) = self.sample.get(&key.key_string()) {
            tail.push(format!("example: {}", serde_json::to_string(example).unwrap_or_default()));
        }
        if !tail.is_empty() {
            let lines: Vec<String> = tail.iter().map(|t| format!("{pad}{t}")).collect();
            if text.get(..end).is_some_and(|t| t.ends_with('\n')) {
                self.edit(end..end, format!("{}{nl}", lines.join(nl)));
            } else {
                self.edit(end..end, format!("{nl}{}", lines.join(nl)));
            }
        }
        // Every line of the property moves to the column after `- `.
        if d != own {
            let mut pos = after_key;
            while pos < end {
                let next = line_end(text, pos);
                if !dropped.iter().any(|r| r.contains(&pos)) {
                    let line = text.get(pos..next).unwrap_or("");
                    let spaces = line.len() - line.trim_start_matches(' ').len();
                    if own > d {
                        if !line.trim().is_empty() {
                            self.edit(pos..pos, " ".repeat(own - d));
                        }
                    } else {
                        let cut = (d - own).min(spaces);
                        self.edit(pos..pos + cut, "");
                    }
                }
                pos = next;
            }
        }
        Ok(())
    }

    /// A property written as a scalar (its default) or on one line: rewritten from its value.
    fn inline_property(
        &mut self,
        key: &Node,
        value: &Node,
        kind: Option<PropertyKind>,
        required: bool,
    ) -> Result<(), Refusal> {
        let text = self.text;
        let c = self.col(key.span.start);
        let pad = " ".repeat(c + 2);
        let nl = self.newline;
        let name = text.get(key.span.clone()).unwrap_or("");
        let json = |v: &Value| serde_json::to_string(v).unwrap_or_default();
        let mut lines = vec![format!("{}- name: {name}", " ".repeat(c))];
        let mut fields = Vec::new();
        match value.to_json() {
            Value::Object(map) => {
                if map.contains_key("items") || map.contains_key("properties") {
                    return Err(self.unsupported(value, "a nested property written on one line"));
                }
                let kind = kind.unwrap_or(PropertyKind::String);
                fields.push(format!("kind: {}", kind.as_str()));
                for (k, v) in &map {
                    match k.as_str() {
                        "type" | "kind" | "optional" => {}
                        "sample" => fields.push(format!("example: {}", json(v))),
                        _ => fields.push(format!("{k}: {}", json(v))),
                    }
                }
                if kind == PropertyKind::Array {
                    fields.push("items: {kind: object}".to_owned());
                    self.notes.push(format!("`{name}`: `items: {{kind: object}}` added (v2 requires an element kind)"));
                }
            }
            Value::Null => fields.push(format!("kind: {}", kind.unwrap_or(PropertyKind::String).as_str())),
            scalar => {
                fields.push(format!("kind: {}", PropertyKind::infer(&scalar).as_str()));
                fields.push(format!("default: {}", json(&scalar)));
            }
        }
        if required && !fields.iter().any(|f| f.starts_with("required:")) {
            fields.push("required: true".to_owned());
        }
        if let Some(example) = self.sample.get(&key.key_string()) {
            fields.push(format!("example: {}", json(example)));
        }
        lines.extend(fields.into_iter().map(|f| format!("{pad}{f}")));
        let end = if value.is_null() { self.colon_end(key)? } else { value.span.end.max(self.colon_end(key)?) };
        self.edit(line_start(text, key.span.start)..end, lines.join(nl));
        Ok(())
    }

    /// Whitespace control standing for v1's `trim_blocks` after every `{% %}` and `{# #}` tag.
    fn body(&mut self, span: Range<usize>) {
        let text = self.text;
        let Some(body) = text.get(span.clone()) else { return };
        let bytes = body.as_bytes();
        let mut i = 0;
        let mut raw = false;
        while let Some(found) = body.get(i..).and_then(|s| s.find('{')) {
            let open = i + found;
            let kind = bytes.get(open + 1).copied();
            let close: &[u8] = match kind {
                Some(b'%') => b"%}",
                Some(b'#') if !raw => b"#}",
                Some(b'{') if !raw => b"}}",
                _ => {
                    i = open + 1;
                    continue;
                }
            };
            let Some(end) = tag_end(bytes, open + 2, close, kind == Some(b'#')) else { return };
            let inner =
                body.get(open + 2..end).unwrap_or("").trim_matches(|c: char| c == '-' || c == '+' || c.is_whitespace());
            let word = inner.split_whitespace().next().unwrap_or("");
            i = end + 2;
            if raw {
                if word != "endraw" {
                    continue;
                }
                raw = false;
            } else if kind == Some(b'%') && word == "raw" {
                // Jinja2 never trims the line break after `{% raw %}` (only after `endraw`).
                raw = true;
                continue;
            }
            if kind == Some(b'{') || matches!(bytes.get(end.wrapping_sub(1)), Some(b'-' | b'+')) {
                continue;
            }
            let after = end + 2;
            let rest = body.get(after..).unwrap_or("");
            let nl_len = if rest.starts_with("\r\n") {
                2
            } else if rest.starts_with('\n') {
                1
            } else {
                continue;
            };
            let next = body.get(after + nl_len..).and_then(|s| s.chars().next());
            let marker = if kind == Some(b'%') { "%}" } else { "#}" };
            let line_break = rest.get(..nl_len).unwrap_or("\n");
            if next.is_none_or(|c| !c.is_whitespace()) {
                // The next line starts with text: `-%}` removes exactly the line break.
                self.edit(span.start + end..span.start + end, "-");
            } else if matches!(next, Some('\n' | '\r')) {
                // A blank line follows: without the line break it is the line after the tag.
                self.edit(span.start + after..span.start + after + nl_len, "");
            } else {
                // Indentation follows, which `-%}` would remove too: the line break moves
                // into the tag.
                let inside = body.get(open + 2..end).unwrap_or("");
                let spaces = inside.len() - inside.trim_end_matches([' ', '\t']).len();
                self.edit(span.start + end - spaces..span.start + after + nl_len, format!("{line_break}{marker}"));
            }
        }
    }
}

/// Where `close` ends the tag whose inside starts at `from` (strings skipped outside comments).
fn tag_end(bytes: &[u8], from: usize, close: &[u8], comment: bool) -> Option<usize> {
    let mut i = from;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = *bytes.get(i)?;
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None if !comment && (b == b'"' || b == b'\'') => quote = Some(b),
            None if bytes.get(i..i + close.len()) == Some(close) => return Some(i),
            None => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use prompty_syntax::MapHost;

    use super::*;

    fn run(text: &str) -> Result<Migrated, Refusal> {
        migrate(text, &MapHost::new(), &LoadOptions::default(), &[])
    }

    fn migrated(text: &str) -> Migrated {
        run(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn comments_stay_where_they_were() {
        let v1 = "---\n# The judge.\nname: j # short\nmodel:\n  api: chat # only chat\n  parameters:\n    # deterministic\n    temperature: 0\n    max_tokens: 10 # enough\ninputs:\n  # what was asked\n  q: # the question\n    type: string\n    # never empty\n    default: why\n---\nuser:\n{{q}}\n";
        let out = migrated(v1);
        assert_eq!(
            out.text,
            "---\n# The judge.\nname: j # short\nmodel:\n  apiType: chat # only chat\n  options:\n    # deterministic\n    temperature: 0\n    additionalProperties:\n      max_tokens: 10 # enough\ninputs:\n  # what was asked\n  - name: q # the question\n    kind: string\n    # never empty\n    default: why\n---\nuser:\n{{q}}\n"
        );
        assert_eq!(out.cases, ["defaults"]);
    }

    #[test]
    fn odd_indentation_moves_under_the_dash() {
        let v1 = "---\ninputs:\n    q:\n         type: string\n         description: |\n           two\n             lines\n         optional: true\n    n:\n      type: int\n      default: 3\n---\nuser:\n{{q}} {{n}}\n";
        let out = migrated(v1);
        assert_eq!(
            out.text,
            "---\ninputs:\n    - name: q\n      kind: string\n      description: |\n        two\n          lines\n      required: true\n    - name: n\n      kind: integer\n      default: 3\n---\nuser:\n{{q}} {{n}}\n"
        );
        assert!(out.notes.iter().any(|n| n.contains("`optional: true` had no effect in v1")), "{:?}", out.notes);
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let v1 = "---\r\nname: c\r\nmodel:\r\n  api: chat\r\n  parameters:\r\n    seed: 1\r\n    logit_bias: {}\r\ninputs:\r\n  q:\r\n    type: string\r\n    default: hi\r\n---\r\nsystem:\r\n{% if q %}\r\nAsk: {{q}}\r\n{% endif %}\r\n";
        let out = migrated(v1);
        assert_eq!(
            out.text,
            "---\r\nname: c\r\nmodel:\r\n  apiType: chat\r\n  options:\r\n    seed: 1\r\n    additionalProperties:\r\n      logit_bias: {}\r\ninputs:\r\n  - name: q\r\n    kind: string\r\n    default: hi\r\n---\r\nsystem:\r\n{% if q -%}\r\nAsk: {{q}}\r\n{% endif -%}\r\n"
        );
        assert!(!out.text.replace("\r\n", "").contains('\n'), "a bare line feed: {:?}", out.text);
    }

    #[test]
    fn trim_blocks_becomes_whitespace_control() {
        // After the `for` tag the next line starts with spaces (`-%}` would eat them): the
        // line break moves into the tag. Comments and `endraw` trim as tags do; `raw` does not.
        let v1 = "---\ninputs:\n  xs:\n    type: list\n    default: [a, b]\n---\nuser:\n{# list #}\nItems:\n{% for x in xs %}\n  - {{ x }}\n{% endfor %}\n{% raw %}\n{{ kept }}\n{% endraw %}\n\nDone.\n";
        let out = migrated(v1);
        assert_eq!(
            out.text.split("---\n").nth(2),
            Some(
                "user:\n{# list -#}\nItems:\n{% for x in xs\n%}  - {{ x }}\n{% endfor -%}\n{% raw %}\n{{ kept }}\n{% endraw %}\nDone.\n"
            )
        );
        assert!(out.notes.iter().any(|n| n.contains("items: {kind: string}")), "{:?}", out.notes);
    }

    #[test]
    fn a_template_that_renders_differently_is_refused_with_the_first_difference() {
        // `developer:` is text to promptflow and a role line to the spec.
        let v1 = "---\nmodel:\n  api: chat\n---\nsystem:\nBe brief.\ndeveloper:\nhi\n";
        let Err(Refusal::Differs(d)) = run(v1) else { panic!("{:?}", run(v1)) };
        assert_eq!((d.case.as_str(), d.message, d.role.as_deref(), d.offset), ("defaults", Some(0), Some("system"), 9));
        assert_eq!((d.old.as_str(), d.new.as_str()), ("Be brief.\ndeveloper:\nhi", "Be brief."));
    }

    #[test]
    fn one_line_and_scalar_inputs_are_written_out() {
        let v1 = "---\ninputs:\n  a: {type: string, sample: x}  # inline\n  b: 2\n---\nuser:\n{{a}}{{b}}\n";
        let out = migrated(v1);
        assert_eq!(
            out.text,
            "---\ninputs:\n  - name: a\n    kind: string\n    example: \"x\"\n    required: true  # inline\n  - name: b\n    kind: integer\n    default: 2\n---\nuser:\n{{a}}{{b}}\n"
        );
    }

    #[test]
    fn what_cannot_be_carried_over_is_refused_by_name() {
        let conf = "---\nmodel:\n  api: chat\n  configuration:\n    type: azure_openai\n    api_version: 2024-02-01\n---\nuser:\nhi\n";
        let Err(Refusal::Unsupported(why)) = run(conf) else { panic!("{:?}", run(conf)) };
        assert!(why.starts_with("`model.configuration.api_version`") && why.ends_with("at 6:5"), "{why}");
        let both = "---\nmodel:\n  configuration:\n    type: openai\n  connection:\n    kind: key\n---\nuser:\nhi\n";
        assert!(
            matches!(run(both), Err(Refusal::Unsupported(why)) if why.contains("both `configuration` and `connection`"))
        );
        let sample = "---\nsample:\n  q: hi\n  x: 1\ninputs:\n  q:\n    type: string\n---\nuser:\n{{q}}\n";
        assert!(matches!(run(sample), Err(Refusal::Unsupported(why)) if why.contains("`sample.x`, which is not")));
        let outputs = "---\nmodel:\n  api: chat\noutputs:\n  score:\n    type: int\n---\nuser:\nhi\n";
        assert!(matches!(run(outputs), Err(Refusal::Unsupported(why)) if why.starts_with("`outputs`")));
        let all = "---\nmodel:\n  api: chat\n  response: all\n---\nuser:\nhi\n";
        assert!(matches!(run(all), Err(Refusal::Unsupported(why)) if why.contains("`model.response`")));
    }

    #[test]
    fn the_configuration_becomes_provider_id_and_connection() {
        let v1 = "---\nname: c\nmodel:\n  api: chat\n  configuration:\n    # the team's deployment\n    type: azure_openai\n    azure_deployment: ${env:AZURE_OPENAI_DEPLOYMENT:gpt-4o}\n    azure_endpoint: \"${env:AZURE_OPENAI_ENDPOINT}\"\n    api_key: ${env:AZURE_OPENAI_API_KEY}\n  parameters:\n    temperature: 0\n---\nuser:\nhi\n";
        let out = migrated(v1);
        assert_eq!(
            out.text,
            "---\nname: c\nmodel:\n  apiType: chat\n  provider: foundry\n  id: ${env:AZURE_OPENAI_DEPLOYMENT:gpt-4o}\n  connection:\n    kind: key\n    endpoint: \"${env:AZURE_OPENAI_ENDPOINT}\"\n    apiKey: ${env:AZURE_OPENAI_API_KEY}\n  options:\n    temperature: 0\n---\nuser:\nhi\n"
        );
        assert!(out.notes.iter().any(|n| n.contains("# the team's deployment")), "{:?}", out.notes);
        let openai = "---\nmodel:\n  api: chat\n  configuration:\n    type: openai\n    model: gpt-4o-mini\n    base_url: https://api.openai.com/v1\n---\nuser:\nhi\n";
        assert_eq!(
            migrated(openai).text,
            "---\nmodel:\n  apiType: chat\n  provider: openai\n  id: gpt-4o-mini\n  connection:\n    kind: key\n    endpoint: https://api.openai.com/v1\n---\nuser:\nhi\n"
        );
    }

    #[test]
    fn the_sample_becomes_examples_and_is_the_case_rendered() {
        let v1 = "---\nname: s\nsample:\n  # asked often\n  q: Why?\n  n: 2\ninputs:\n  q:\n    type: string\n  n: {type: int}\n---\nuser:\n{{q}} x{{n}}\n";
        let out = migrated(v1);
        assert_eq!(
            out.text,
            "---\nname: s\ninputs:\n  - name: q\n    kind: string\n    required: true\n    example: \"Why?\"\n  - name: n\n    kind: integer\n    required: true\n    example: 2\n---\nuser:\n{{q}} x{{n}}\n"
        );
        assert_eq!(out.cases, ["sample"]);
        assert!(out.notes.iter().any(|n| n.contains("# asked often")), "{:?}", out.notes);
        // Without inputs, the sample declares them.
        let bare = "---\nsample:\n  q: Why?\n---\nuser:\n{{q}}\n";
        assert_eq!(
            migrated(bare).text,
            "---\ninputs:\n  - name: q\n    kind: string\n    example: \"Why?\"\n---\nuser:\n{{q}}\n"
        );
    }

    #[test]
    fn authors_and_tags_move_under_metadata() {
        let v1 = "---\nname: m\nauthors:\n  - ann # lead\ntags: [judge]\nmodel:\n  api: chat\n---\nuser:\nhi\n";
        assert_eq!(
            migrated(v1).text,
            "---\nname: m\nmetadata:\n  authors:\n    - ann # lead\n  tags: [judge]\nmodel:\n  apiType: chat\n---\nuser:\nhi\n"
        );
        let with = "---\nmetadata:\n    team: evals\nmodel:\n  api: chat\ntags: [a]\n---\nuser:\nhi\n";
        assert_eq!(
            migrated(with).text,
            "---\nmetadata:\n    team: evals\n    tags: [a]\nmodel:\n  apiType: chat\n---\nuser:\nhi\n"
        );
    }

    #[test]
    fn the_request_is_compared_too() {
        // A v2 option whose request field differs from the v1 parameter's is caught.
        let v1 = "---\nmodel:\n  api: chat\n  parameters:\n    max_tokens: 5\n---\nuser:\nhi\n";
        let old = load_str(v1, &MapHost::new(), &LoadOptions::default()).prompt.expect("v1");
        let v2 = "---\nmodel:\n  apiType: chat\n  options:\n    maxOutputTokens: 5\n---\nuser:\nhi\n";
        let new = load_str(v2, &MapHost::new(), &LoadOptions::default()).prompt.expect("v2");
        let Err(Refusal::Request(why)) = same_request(&old, &new, &[Message::text("user", "hi")]) else {
            panic!("not refused")
        };
        assert_eq!(why, "`max_tokens` is 5.0 in v1 and nothing in v2");
        assert!(migrated(v1).text.contains("additionalProperties:\n      max_tokens: 5\n"));
    }

    #[test]
    fn a_byte_order_mark_and_tab_indented_lines_survive() {
        let v1 = "\u{feff}---\nmodel:\n  api: chat\ninputs:\n  xs:\n    type: list\n    default: [1]\n---\nuser:\nList:\n{% for x in xs %}\n\t{{ x }}\n{% endfor %}\nend\n";
        let out = migrated(v1);
        assert!(out.text.starts_with("\u{feff}---\nmodel:\n  apiType: chat\n"), "{}", out.text);
        assert!(out.text.ends_with("user:\nList:\n{% for x in xs\n%}\t{{ x }}\n{% endfor -%}\nend\n"), "{}", out.text);
    }

    #[test]
    fn leading_whitespace_promptflow_strips_is_a_refusal() {
        // promptflow strips a message's content; the spec keeps a leading tab.
        let v1 = "---\nmodel:\n  api: chat\n---\nuser:\n\tindented\n";
        let Err(Refusal::Differs(d)) = run(v1) else { panic!("{:?}", run(v1)) };
        assert_eq!((d.message, d.offset, d.old.as_str(), d.new.as_str()), (Some(0), 0, "indented", "\tindented"));
    }

    #[test]
    fn a_v2_file_is_not_migrated() {
        let v2 = "---\nname: x\nmodel:\n  apiType: chat\n---\nsystem:\nhi\n";
        assert_eq!(run(v2), Err(Refusal::NotV1));
    }
}
