//! Walking the front matter's JSON Schema (`prompty schema`) by key path: the keys allowed
//! at a place, their descriptions, and the values a key takes.

use std::sync::OnceLock;

use serde_json::Value;

/// One step of a path into the front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A mapping key.
    Key(String),
    /// An element of a list.
    Item,
}

fn root() -> &'static Value {
    static ROOT: OnceLock<Value> = OnceLock::new();
    ROOT.get_or_init(|| prompty_syntax::front_matter_schema_with(&[("evaluator", prompty_eval::evaluator_schema())]))
}

/// Follows `$ref` and expands `oneOf`/`anyOf`/`allOf` into the schemas a value may match.
fn expand(schema: &'static Value, out: &mut Vec<&'static Value>, depth: usize) {
    if depth > 16 {
        return;
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        if let Some(resolved) = target.strip_prefix("#/").and_then(|p| root().pointer(&format!("/{p}"))) {
            expand(resolved, out, depth + 1);
        }
        // A `$ref` with siblings (a description): keep the node too.
        if schema.as_object().is_some_and(|o| o.len() > 1) {
            out.push(schema);
        }
        return;
    }
    let mut branched = false;
    for key in ["oneOf", "anyOf", "allOf"] {
        for branch in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
            branched = true;
            expand(branch, out, depth + 1);
        }
    }
    if !branched || schema.get("description").is_some() || schema.get("properties").is_some() {
        out.push(schema);
    }
}

fn expanded(schema: &'static Value) -> Vec<&'static Value> {
    let mut out = Vec::new();
    expand(schema, &mut out, 0);
    out
}

/// The schemas a value at `path` may match (empty when the schema does not know the place).
pub fn at(path: &[Step]) -> Vec<&'static Value> {
    let mut current = expanded(root());
    for step in path {
        let mut next = Vec::new();
        for s in &current {
            match step {
                Step::Key(k) => {
                    if let Some(child) = s.get("properties").and_then(|p| p.get(k)) {
                        next.extend(expanded(child));
                    } else if let Some(extra) = s.get("additionalProperties").filter(|v| v.is_object()) {
                        next.extend(expanded(extra));
                    }
                }
                Step::Item => {
                    if let Some(items) = s.get("items") {
                        next.extend(expanded(items));
                    }
                }
            }
        }
        next.dedup_by(|a, b| std::ptr::eq(*a, *b));
        current = next;
    }
    current
}

/// The first description among `schemas`.
pub fn description(schemas: &[&'static Value]) -> Option<&'static str> {
    schemas.iter().find_map(|s| s.get("description").and_then(Value::as_str))
}

/// The keys a mapping at this place may have, with their descriptions, in schema order.
pub fn keys(schemas: &[&'static Value]) -> Vec<(&'static str, Option<&'static str>)> {
    let mut out: Vec<(&'static str, Option<&'static str>)> = Vec::new();
    for s in schemas {
        let Some(props) = s.get("properties").and_then(Value::as_object) else { continue };
        for (k, v) in props {
            if out.iter().any(|(known, _)| *known == k.as_str()) {
                continue;
            }
            out.push((k.as_str(), description(&expanded(v))));
        }
    }
    out
}

/// The values a scalar at this place takes: `enum`, `const`, `examples`, booleans.
pub fn values(schemas: &[&Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |v: &Value| {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Bool(_) | Value::Number(_) => v.to_string(),
            _ => return,
        };
        if !out.contains(&text) {
            out.push(text);
        }
    };
    for s in schemas {
        for key in ["enum", "examples"] {
            s.get(key).and_then(Value::as_array).into_iter().flatten().for_each(&mut push);
        }
        if let Some(c) = s.get("const") {
            push(c);
        }
        if s.get("type").and_then(Value::as_str) == Some("boolean") {
            push(&Value::Bool(true));
            push(&Value::Bool(false));
        }
    }
    out
}

/// A short type of the value at this place: `string`, `one of: a, b`, ...
pub fn type_summary(schemas: &[&Value]) -> Option<String> {
    let values = values(schemas);
    if !values.is_empty() && schemas.iter().all(|s| s.get("enum").is_some() || s.get("const").is_some()) {
        return Some(format!("one of {}", values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")));
    }
    let mut types: Vec<String> = Vec::new();
    for s in schemas {
        match s.get("type") {
            Some(Value::String(t)) => types.push(t.clone()),
            Some(Value::Array(ts)) => types.extend(ts.iter().filter_map(Value::as_str).map(str::to_owned)),
            _ => {}
        }
    }
    types.dedup();
    (!types.is_empty()).then(|| types.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Step {
        Step::Key(k.to_owned())
    }

    #[test]
    fn walks_refs_and_branches() {
        let kinds = values(&at(&[key("inputs"), key("question"), key("kind")]));
        assert!(kinds.starts_with(&["string".to_owned(), "integer".to_owned()]), "{kinds:?}");
        assert_eq!(values(&at(&[key("inputs"), Step::Item, key("kind")])), kinds);
        assert_eq!(values(&at(&[key("template"), key("format")])), ["jinja2", "mustache", "handlebars"]);
        assert!(values(&at(&[key("model"), key("provider")])).contains(&"anthropic".to_owned()));
        let model_keys: Vec<&str> = keys(&at(&[key("model")])).into_iter().map(|(k, _)| k).collect();
        assert!(model_keys.starts_with(&["id", "provider", "apiType"]), "{model_keys:?}");
        assert!(description(&at(&[key("model"), key("options"), key("temperature")])).is_some());
        assert!(at(&[key("nonsense")]).is_empty());
    }
}
