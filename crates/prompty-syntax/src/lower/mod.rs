//! From the YAML node tree to the typed [`Prompt`], collecting every problem on the way.
//!
//! v1 (promptflow) constructs are read natively: each is reported once as a warning that
//! names its v2 spelling, and its meaning is kept (parameters verbatim in [`Legacy`]).
//!
//! The lowering is split by section: [`model`] (model, connection, options),
//! [`properties`] (inputs, outputs, parameters), [`tools`] and [`template`]; the keys each
//! section accepts are the lists of [`keys`](crate::keys).

mod model;
mod properties;
mod template;
mod tools;

use std::fmt::Display;

use serde_json::{Map, Value};

use crate::codes;
use crate::diagnostic::{Code, Diagnostic};
use crate::keys::{self, Key};
use crate::model::{Legacy, Profile, Prompt, PropertyKind, Template};
use crate::suggest::did_you_mean;
use crate::yaml::{Node, NodeValue};

pub use model::V1_PARAMETER_NAMES;
pub use template::{FORMATS, PARSERS};

/// The v2 `model.options` keys.
pub const OPTION_KEYS: &[Key] = keys::OPTIONS;

/// Whether the document uses v1 (promptflow) keys.
pub fn detect_profile(root: &Node) -> Profile {
    let model_v1 = root.get("model").is_some_and(|m| keys::V1_MODEL[..3].iter().any(|k| m.get(k.name).is_some()));
    let inputs_v1 = root
        .get("inputs")
        .and_then(Node::as_map)
        .is_some_and(|entries| entries.iter().any(|(_, v)| v.get("type").is_some() && v.get("kind").is_none()));
    if model_v1 || inputs_v1 || root.get("sample").is_some() { Profile::Promptflow } else { Profile::Spec }
}

pub(crate) struct Lowerer<'d> {
    pub(crate) diags: &'d mut Vec<Diagnostic>,
    pub(crate) profile: Profile,
    /// The values `${env:}` supplied: never the base of a "did you mean" (the suggestion
    /// would tell what the value is close to).
    pub(crate) secrets: &'d crate::secret::Secrets,
    /// v1 `type` keys seen in the current property list: (key span, name, v2 kind).
    pub(crate) v1_types: Vec<(std::ops::Range<usize>, String, PropertyKind)>,
}

impl Lowerer<'_> {
    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn error(&mut self, code: Code, node: &Node, msg: String, help: impl Into<String>) {
        self.push(Diagnostic::error(code, node.span.clone(), msg).with_help(help));
    }

    fn wrong_type(&mut self, node: &Node, what: impl Display + Copy, expected: &str) {
        if is_unresolved_reference(node) {
            // The reference's own diagnostic already says why the value is missing.
            return;
        }
        self.error(
            codes::WRONG_TYPE,
            node,
            format!("`{what}` must be {expected}, found {}", node.type_name()),
            format!("write {expected} here"),
        );
    }

    fn legacy(&mut self, key: &Node, msg: String, help: String) {
        self.push(Diagnostic::warning(codes::LEGACY_KEY, key.span.clone(), msg).with_help(help));
    }

    /// Reports `P031` at the v1 key `v1` when `node` also has its v2 spelling `v2`: runtimes
    /// read one or the other, so the two can disagree.
    fn mixed(&mut self, node: &Node, v1: &str, v2: &str, what: impl Display + Copy) {
        if let (Some(key), Some(a), Some(b)) = (node.key_node(v1), node.get(v1), node.get(v2))
            && !a.is_null()
            && !b.is_null()
        {
            self.mixed_at(key, format_args!("`{v1}`"), format_args!("`{v2}`"), what);
        }
    }

    fn mixed_at(&mut self, key: &Node, v1: impl Display + Copy, v2: impl Display + Copy, what: impl Display + Copy) {
        self.push(
            Diagnostic::warning(
                codes::MIXED_VERSIONS,
                key.span.clone(),
                format!("{what} sets both {v1} (v1) and {v2} (v2); the two can disagree"),
            )
            .with_help(format!(
                "keep one spelling: promptflow reads {v1}, the v2 runtimes read {v2}; write the value once, in the spelling of the runtime the file is for"
            )),
        );
    }

    /// Reports keys of `node` that are in neither `known` nor `extra`; returns the map entries.
    fn check_keys<'n>(
        &mut self,
        node: &'n Node,
        what: impl Display + Copy,
        known: &[Key],
        extra: &[Key],
    ) -> &'n [(Node, Node)] {
        let Some(entries) = node.as_map() else { return &[] };
        for (k, _) in entries {
            let key = k.as_str().map_or_else(|| std::borrow::Cow::Owned(k.key_string()), std::borrow::Cow::Borrowed);
            if keys::contains(known, &key) || keys::contains(extra, &key) {
                continue;
            }
            let all: Vec<&str> = known.iter().chain(extra).map(|k| k.name).collect();
            let mut d =
                Diagnostic::warning(codes::UNKNOWN_KEY, k.span.clone(), format!("unknown key `{key}` in {what}"));
            d = match did_you_mean(&key, &all) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(format!("known keys: {}", keys::names(known).join(", "))),
            };
            self.push(d);
        }
        entries
    }

    fn string(&mut self, node: Option<&Node>, what: impl Display + Copy) -> Option<String> {
        let node = node?;
        match &node.value {
            NodeValue::String(s) => Some(s.clone()),
            NodeValue::Null => None,
            NodeValue::Number(n) => Some(n.to_string()),
            NodeValue::Bool(b) => Some(b.to_string()),
            _ => {
                self.wrong_type(node, what, "a string");
                None
            }
        }
    }

    fn bool(&mut self, node: Option<&Node>, what: impl Display + Copy) -> Option<bool> {
        let node = node?;
        match &node.value {
            NodeValue::Bool(b) => Some(*b),
            NodeValue::Null => None,
            _ => {
                self.wrong_type(node, what, "`true` or `false`");
                None
            }
        }
    }

    fn float(&mut self, node: Option<&Node>, what: impl Display + Copy) -> Option<f64> {
        let node = node?;
        match &node.value {
            NodeValue::Number(n) => n.as_f64(),
            NodeValue::Null => None,
            _ => {
                self.wrong_type(node, what, "a number");
                None
            }
        }
    }

    fn int(&mut self, node: Option<&Node>, what: impl Display + Copy) -> Option<i64> {
        let node = node?;
        match &node.value {
            NodeValue::Number(n) if n.as_i64().is_some() => n.as_i64(),
            NodeValue::Null => None,
            _ => {
                self.wrong_type(node, what, "an integer");
                None
            }
        }
    }

    fn object(&mut self, node: Option<&Node>, what: impl Display + Copy) -> Option<Map<String, Value>> {
        let node = node?;
        match node.to_json() {
            Value::Object(m) => Some(m),
            Value::Null => None,
            _ => {
                self.wrong_type(node, what, "a mapping");
                None
            }
        }
    }

    pub(crate) fn prompt(&mut self, root: &Node) -> (Prompt, Option<Legacy>) {
        let mut legacy = Legacy::default();
        if !root.is_null() && root.as_map().is_none() {
            self.error(
                codes::NOT_A_MAPPING,
                root,
                format!("front matter must be a mapping of keys to values, found {}", root.type_name()),
                "write `key: value` lines between the `---` fences",
            );
        }
        let extra = if self.profile == Profile::Promptflow { keys::V1_TOP } else { &[] };
        self.check_keys(root, "the front matter", keys::TOP, extra);
        let mut metadata = self.object(root.get("metadata"), "metadata");
        if let Some(k) = root.key_node("authors")
            && self.profile == Profile::Promptflow
        {
            self.legacy(k, "`authors` is a v1 key".into(), "v2 spelling: `metadata: {authors: [...]}`".into());
            if metadata.as_ref().is_some_and(|m| m.contains_key("authors")) {
                self.mixed_at(k, "`authors`", "`metadata.authors`", "the front matter");
            }
            if let Some(v) = root.get("authors") {
                metadata.get_or_insert_with(Map::new).entry("authors").or_insert_with(|| v.to_json());
            }
        }
        if let (Some(k), Some(v)) = (root.key_node("sample"), root.get("sample")) {
            self.legacy(
                k,
                "top-level `sample` is a v1 key".into(),
                "v2 spelling: a `default` on each input (`inputs: {x: {kind: string, default: ...}}`)".into(),
            );
            legacy.sample = Some(v.to_json());
        }
        let model = root.get("model").and_then(|m| self.model(m, &mut legacy));
        let inputs = root.get("inputs").map(|n| self.properties(n, "inputs", true));
        let outputs = root.get("outputs").map(|n| self.properties(n, "outputs", false));
        let tools = root.get("tools").map(|n| self.tools(n));
        let template = root.get("template").map_or_else(Template::default, |t| self.template(root, t));
        let prompt = Prompt {
            kind: "prompt",
            name: self.string(root.get("name"), "name"),
            display_name: self.string(root.get("displayName"), "displayName"),
            description: self.string(root.get("description"), "description"),
            metadata,
            model,
            inputs,
            outputs,
            tools,
            template,
            instructions: None,
            profile: self.profile,
            legacy: None,
            body_span: 0..0,
            secrets: crate::secret::Secrets::default(),
        };
        let has_legacy = legacy != Legacy::default();
        (prompt, has_legacy.then_some(legacy))
    }
}

/// Whether `node` is still a `${...}` reference: one that failed to resolve (and was
/// reported) or that stays literal by design.
fn is_unresolved_reference(node: &Node) -> bool {
    node.as_str().is_some_and(|s| crate::refs::parse_reference(s).is_some())
}

/// A short span for a mapping: its first `key: value` when the value is a scalar on the
/// key's line, else its first key; any other node's whole span.
fn head(node: &Node) -> std::ops::Range<usize> {
    match node.as_map().and_then(<[_]>::first) {
        Some((k, v)) if v.as_map().is_none() && !matches!(v.value, NodeValue::Seq(_)) => {
            k.span.start..v.span.end.max(k.span.end)
        }
        Some((k, _)) => k.span.clone(),
        None => node.span.clone(),
    }
}
