//! Inputs, outputs, tool parameters and object properties, in list or map form, with the
//! v1 `type`, `optional` and `sample`.

use std::collections::HashSet;

use serde_json::Value;

use super::{Lowerer, head};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::keys;
use crate::model::{Profile, Property, PropertyKind};
use crate::suggest::did_you_mean;
use crate::yaml::{Node, NodeValue};

impl Lowerer<'_> {
    /// Inputs, outputs, parameters or object properties, in list or map form.
    pub(super) fn properties(&mut self, node: &Node, what: &str, inputs: bool) -> Vec<Property> {
        // A nested list (object properties) reports its own v1 `type` keys.
        let outer_types = std::mem::take(&mut self.v1_types);
        let mut out: Vec<Property> = Vec::new();
        match &node.value {
            NodeValue::Seq(items) => {
                out.reserve(items.len());
                for item in items {
                    let name = item.get("name").and_then(Node::as_str).map(str::to_owned);
                    match name {
                        Some(name) => {
                            let span = item.get("name").map_or_else(|| head(item), |v| v.span.clone());
                            if let Some(p) = self.property(item, name, span, what, inputs) {
                                out.push(p);
                            }
                        }
                        None => self.push(
                            Diagnostic::error(
                                codes::MISSING_FIELD,
                                head(item),
                                format!("an entry of `{what}` has no `name`"),
                            )
                            .with_help(
                                "in list form every entry needs `name:`; or use the map form `name: {kind: ...}`",
                            ),
                        ),
                    }
                }
            }
            NodeValue::Map(entries) => {
                out.reserve(entries.len());
                for (k, v) in entries {
                    if let Some(p) = self.property(v, k.key_string(), k.span.clone(), what, inputs) {
                        out.push(p);
                    }
                }
            }
            NodeValue::Null => {}
            _ => self.wrong_type(node, what, "a list or a mapping of properties"),
        }
        self.report_v1_types(what);
        self.v1_types = outer_types;
        let mut seen: HashSet<&str> = HashSet::with_capacity(out.len());
        for p in &out {
            if !seen.insert(p.name.as_str()) {
                self.push(
                    Diagnostic::error(
                        codes::DUPLICATE_NAME,
                        p.span.clone(),
                        format!("`{}` is declared twice in `{what}`", p.name),
                    )
                    .with_help("give each property a distinct name"),
                );
            }
        }
        out
    }

    /// Union branches: a list of properties whose names are optional.
    pub(super) fn branches(&mut self, node: &Node, what: &str) -> Vec<Property> {
        match &node.value {
            NodeValue::Seq(items) => items
                .iter()
                .filter_map(|item| {
                    let name = item.get("name").and_then(Node::as_str).unwrap_or_default().to_owned();
                    self.property(item, name, item.span.clone(), what, false)
                })
                .collect(),
            _ => self.properties(node, what, false),
        }
    }

    /// One warning for every v1 `type` key of a property list, naming each property.
    pub(super) fn report_v1_types(&mut self, what: &str) {
        let found = std::mem::take(&mut self.v1_types);
        let Some((span, _, _)) = found.first() else { return };
        let names: Vec<&str> = found.iter().map(|(_, n, _)| n.as_str()).collect();
        let spellings: Vec<String> = found.iter().map(|(_, n, k)| format!("{n}: {{kind: {}}}", k.as_str())).collect();
        let message = match names.as_slice() {
            [one] => format!("`type` on `{what}.{one}` is a v1 key"),
            _ => format!("`type` on {} `{what}` entries ({}) is a v1 key", names.len(), names.join(", ")),
        };
        self.push(
            Diagnostic::warning(codes::LEGACY_KEY, span.clone(), message)
                .with_help(format!("v2 spelling: `kind` instead of `type` ({})", spellings.join(", "))),
        );
    }

    pub(super) fn property(
        &mut self,
        node: &Node,
        name: String,
        span: std::ops::Range<usize>,
        what: &str,
        inputs: bool,
    ) -> Option<Property> {
        let mut path = String::with_capacity(what.len() + 1 + name.len());
        path.push_str(what);
        if !name.is_empty() {
            path.push('.');
            path.push_str(&name);
        }
        if node.as_map().is_none() {
            // The scalar shorthand: `name: value` means a property of the inferred kind with that default.
            let value = node.to_json();
            let mut p = Property::new(name, PropertyKind::infer(&value));
            if !value.is_null() {
                p.default = Some(value);
            }
            p.span = span;
            return Some(p);
        }
        let extra =
            if self.profile == Profile::Promptflow || node.get("type").is_some() { keys::V1_PROPERTY } else { &[] };
        self.check_keys(node, format_args!("`{path}`"), keys::PROPERTY, extra);
        for (v1, v2) in [("type", "kind"), ("optional", "required"), ("sample", "example")] {
            self.mixed(node, v1, v2, format_args!("`{path}`"));
        }
        let kind = match (node.get("kind"), node.get("type")) {
            (Some(k), _) => {
                let text = self.string(Some(k), format_args!("{path}.kind"))?;
                match PropertyKind::parse(&text) {
                    Some(kind) => kind,
                    // The reference runtimes both read `number` as a float (the TypeScript
                    // runtime's own fixtures use it); the spec spells it `float`.
                    None if text == "number" => {
                        self.push(
                            Diagnostic::warning(
                                codes::NUMBER_KIND,
                                k.span.clone(),
                                format!("`kind: number` for `{path}` is read as `float`"),
                            )
                            .with_help("write `kind: float` (the spec's name for it)"),
                        );
                        PropertyKind::Float
                    }
                    None => {
                        let names: Vec<&str> = PropertyKind::ALL.iter().map(|k| k.as_str()).collect();
                        let guess = if self.secrets.contains(&text) { None } else { did_you_mean(&text, &names) };
                        let help = match guess {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!("use one of: {}", names.join(", ")),
                        };
                        self.error(codes::UNKNOWN_KIND, k, format!("unknown kind `{text}` for `{path}`"), help);
                        return None;
                    }
                }
            }
            (None, Some(t)) => {
                let text = self.string(Some(t), format_args!("{path}.type")).unwrap_or_default();
                let kind = PropertyKind::from_v1_type(&text);
                if let Some(key) = node.key_node("type") {
                    let name = path.rsplit('.').next().unwrap_or(&path).to_owned();
                    self.v1_types.push((key.span.clone(), name, kind));
                }
                kind
            }
            (None, None) => match node.get("default") {
                Some(d) if self.profile == Profile::Promptflow => PropertyKind::infer(&d.to_json()),
                _ => {
                    self.push(
                        Diagnostic::error(codes::MISSING_FIELD, span, format!("`{path}` has no `kind`")).with_help(
                            "add `kind: string` (or integer, float, boolean, array, object, thread, image, file, audio)",
                        ),
                    );
                    return None;
                }
            },
        };
        let kind_span = node.get("kind").or_else(|| node.get("type")).map_or_else(|| span.clone(), |k| k.span.clone());
        let mut p = Property::new(name, kind);
        p.span = span;
        p.description = self.string(node.get("description"), format_args!("{path}.description"));
        p.nullable = self.bool(node.get("nullable"), format_args!("{path}.nullable")).unwrap_or(false);
        p.default = node.get("default").map(Node::to_json).filter(|v| !v.is_null());
        p.example = node.get("example").map(Node::to_json);
        p.strict = self.bool(node.get("strict"), format_args!("{path}.strict"));
        p.enum_values = node.get("enumValues").and_then(|e| match e.to_json() {
            Value::Array(a) => Some(a),
            _ => {
                self.wrong_type(e, format_args!("{path}.enumValues"), "a list");
                None
            }
        });
        let required = self.bool(node.get("required"), format_args!("{path}.required"));
        if let (Some(k), Some(s)) = (node.key_node("sample"), node.get("sample")) {
            self.legacy(k, format!("`sample` on `{path}` is a v1 key"), "v2 spelling: `example` (or `default`)".into());
            if p.example.is_none() {
                p.example = Some(s.to_json());
            }
        }
        let optional = self.bool(node.get("optional"), format_args!("{path}.optional"));
        if let Some(k) = node.key_node("optional") {
            self.legacy(k, format!("`optional` on `{path}` is a v1 key"), "v2 spelling: `required: false`".into());
        }
        p.required = match (required, self.profile) {
            (Some(r), _) => r,
            // promptflow requires every declared input that has no default, whatever `optional` says.
            (None, Profile::Promptflow) if inputs => p.default.is_none(),
            _ => optional.is_some_and(|o| !o) && p.default.is_none(),
        };
        match kind {
            PropertyKind::Array => match node.get("items") {
                Some(items) => {
                    let items_span = node.key_node("items").map_or_else(|| items.span.clone(), |k| k.span.clone());
                    p.items =
                        self.property(items, String::new(), items_span, &format!("{path}.items"), false).map(Box::new)
                }
                None if self.profile == Profile::Spec => self.push(
                    Diagnostic::error(
                        codes::ARRAY_WITHOUT_ITEMS,
                        kind_span,
                        format!("`{path}` is an array without `items`"),
                    )
                    .with_help("add `items: {kind: string}` (the element type)"),
                ),
                None => {}
            },
            PropertyKind::Object => {
                p.properties = node.get("properties").map(|n| self.properties(n, &format!("{path}.properties"), false));
            }
            PropertyKind::Union => {
                p.one_of = node.get("oneOf").map(|n| self.branches(n, &format!("{path}.oneOf")));
                p.any_of = node.get("anyOf").map(|n| self.branches(n, &format!("{path}.anyOf")));
                let count = usize::from(p.one_of.as_ref().is_some_and(|v| !v.is_empty()))
                    + usize::from(p.any_of.as_ref().is_some_and(|v| !v.is_empty()));
                if count != 1 {
                    self.push(
                        Diagnostic::error(
                            codes::BAD_UNION,
                            kind_span,
                            format!("`{path}` is a union and needs exactly one of `oneOf` or `anyOf`"),
                        )
                        .with_help("list the alternatives under `oneOf:` (exactly one matches) or `anyOf:`"),
                    );
                }
            }
            _ => {}
        }
        Some(p)
    }
}
