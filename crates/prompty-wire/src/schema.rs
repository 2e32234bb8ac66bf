//! JSON Schema from `Property` lists, shared by tool parameters and structured output,
//! and the OpenAI strict-mode transform.
//!
//! [`object_schema`] builds the plain schema: `{type: object, properties, required?}`,
//! with `required` listing only required properties and dropped when empty.
//! [`strict`] rewrites a plain schema the way OpenAI strict mode needs it: every object
//! lists all its properties in `required`, the ones that were optional become nullable,
//! and `additionalProperties` is `false`, at every depth.

use prompty_syntax::{Property, PropertyKind};
use serde_json::{Map, Value, json};

use crate::{Error, Provider, Warning};

/// The JSON Schema `type` of a simple kind; `None` for `union` and the rich kinds.
pub fn json_type(kind: PropertyKind) -> Option<&'static str> {
    match kind {
        PropertyKind::String => Some("string"),
        PropertyKind::Integer => Some("integer"),
        PropertyKind::Float => Some("number"),
        PropertyKind::Boolean => Some("boolean"),
        PropertyKind::Array => Some("array"),
        PropertyKind::Object => Some("object"),
        PropertyKind::Union | PropertyKind::Thread | PropertyKind::Image | PropertyKind::File | PropertyKind::Audio => {
            None
        }
    }
}

/// `{type: object, properties: {...}, required: [...]}` for `properties`, leaving out the
/// names in `exclude` (bound tool parameters). `path` names the list in errors
/// (`outputs`, `tools.search.parameters`); `provider` is named there too.
pub fn object_schema(
    properties: &[Property],
    exclude: &[&str],
    path: &str,
    provider: Provider,
) -> Result<Value, Error> {
    let mut props = Map::new();
    let mut required = Vec::new();
    for p in properties.iter().filter(|p| !exclude.contains(&p.name.as_str())) {
        props.insert(p.name.clone(), property_schema(p, &join(path, &p.name), provider)?);
        if p.required {
            required.push(Value::String(p.name.clone()));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    Ok(Value::Object(schema))
}

/// The schema of one property: its type (nullable ones also take `null`), `description`,
/// `enum` from `enumValues`, `items` for arrays, `properties`/`required` for objects, and
/// `oneOf`/`anyOf` for unions.
pub fn property_schema(p: &Property, path: &str, provider: Provider) -> Result<Value, Error> {
    let mut s = Map::new();
    if p.kind == PropertyKind::Union {
        let one_of = p.one_of.as_deref().filter(|b| !b.is_empty());
        let any_of = p.any_of.as_deref().filter(|b| !b.is_empty());
        let (key, branches) = match (one_of, any_of) {
            (Some(b), None) => ("oneOf", b),
            (None, Some(b)) => ("anyOf", b),
            (Some(_), Some(_)) => return Err(Error::AmbiguousUnion { path: path.to_owned(), provider }),
            (None, None) => return Err(Error::EmptyUnion { path: path.to_owned(), provider }),
        };
        let mut list = Vec::with_capacity(branches.len() + 1);
        for (i, b) in branches.iter().enumerate() {
            list.push(property_schema(b, &format!("{path}.{key}[{i}]"), provider)?);
        }
        if p.nullable && !list.iter().any(is_null_schema) {
            list.push(json!({ "type": "null" }));
        }
        s.insert(key.into(), Value::Array(list));
    } else {
        let Some(ty) = json_type(p.kind) else {
            return Err(Error::SchemaKind { path: path.to_owned(), kind: p.kind, provider });
        };
        let ty = if p.nullable { json!([ty, "null"]) } else { Value::from(ty) };
        s.insert("type".into(), ty);
    }
    if let Some(d) = &p.description {
        s.insert("description".into(), Value::String(d.clone()));
    }
    if let Some(values) = p.enum_values.as_ref().filter(|v| !v.is_empty()) {
        let mut values = values.clone();
        if p.nullable && !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
        s.insert("enum".into(), Value::Array(values));
    }
    match p.kind {
        PropertyKind::Array => {
            if let Some(items) = &p.items {
                s.insert("items".into(), property_schema(items, &format!("{path}[]"), provider)?);
            }
        }
        PropertyKind::Object => {
            if let Some(props) = &p.properties
                && let Value::Object(inner) = object_schema(props, &[], path, provider)?
            {
                for (k, v) in inner {
                    if k != "type" {
                        s.insert(k, v);
                    }
                }
            }
        }
        _ => {}
    }
    Ok(Value::Object(s))
}

/// The OpenAI strict-mode form of a plain schema built by [`object_schema`]: every object
/// lists all its properties in `required`, properties that were not required become
/// nullable (`"type": ["string", "null"]`, a `null` branch for unions, `null` in `enum`),
/// and `additionalProperties` is `false`, recursively through `properties`, `items` and
/// union branches. `oneOf` becomes `anyOf` (strict mode has no `oneOf`) with a warning; an
/// object without `properties` below the top level gets an empty one with a warning; an
/// array without `items` is an error.
pub fn strict(mut schema: Value, path: &str, provider: Provider, warnings: &mut Vec<Warning>) -> Result<Value, Error> {
    let mut cx = StrictCx { provider, warnings };
    cx.node(&mut schema, path, false, true)?;
    Ok(schema)
}

struct StrictCx<'a> {
    provider: Provider,
    warnings: &'a mut Vec<Warning>,
}

impl StrictCx<'_> {
    fn node(&mut self, v: &mut Value, path: &str, nullable: bool, top: bool) -> Result<(), Error> {
        let Value::Object(m) = v else {
            return Ok(());
        };
        if m.contains_key("oneOf") {
            if m.contains_key("anyOf") {
                return Err(Error::AmbiguousUnion { path: path.to_owned(), provider: self.provider });
            }
            rename_key(m, "oneOf", "anyOf");
            self.warnings.push(Warning::OneOfAsAnyOf { path: path.to_owned(), provider: self.provider });
        }
        if has_type(m, "object") {
            if !m.contains_key("properties") {
                if !top {
                    self.warnings.push(Warning::EmptyStrictObject { path: path.to_owned(), provider: self.provider });
                }
                m.insert("properties".into(), Value::Object(Map::new()));
            }
            let was_required: Vec<String> = match m.get("required") {
                Some(Value::Array(names)) => names.iter().filter_map(|n| n.as_str().map(str::to_owned)).collect(),
                _ => Vec::new(),
            };
            let mut all = Vec::new();
            if let Some(Value::Object(props)) = m.get_mut("properties") {
                for (name, sub) in props.iter_mut() {
                    let optional = !was_required.contains(name);
                    self.node(sub, &join(path, name), optional, false)?;
                    all.push(Value::String(name.clone()));
                }
            }
            if all.is_empty() {
                m.shift_remove("required");
            } else {
                m.insert("required".into(), Value::Array(all));
            }
            m.insert("additionalProperties".into(), Value::Bool(false));
        }
        if has_type(m, "array") {
            match m.get_mut("items") {
                Some(items) => self.node(items, &format!("{path}[]"), false, false)?,
                None => return Err(Error::StrictArrayItems { path: path.to_owned(), provider: self.provider }),
            }
        }
        if let Some(Value::Array(branches)) = m.get_mut("anyOf") {
            for (i, b) in branches.iter_mut().enumerate() {
                self.node(b, &format!("{path}.anyOf[{i}]"), false, false)?;
            }
        }
        if nullable {
            add_null(v);
        }
        Ok(())
    }
}

/// Makes a schema also accept `null`.
fn add_null(v: &mut Value) {
    let Value::Object(m) = v else {
        return;
    };
    if let Some(Value::Array(values)) = m.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match m.get_mut("type") {
        Some(Value::String(t)) => {
            if t != "null" {
                let t = std::mem::take(t);
                m.insert("type".into(), json!([t, "null"]));
            }
            return;
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push("null".into());
            }
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(branches)) = m.get_mut("anyOf") {
        if !branches.iter().any(is_null_schema) {
            branches.push(json!({ "type": "null" }));
        }
        return;
    }
    let inner = std::mem::take(v);
    *v = json!({ "anyOf": [inner, { "type": "null" }] });
}

fn has_type(m: &Map<String, Value>, ty: &str) -> bool {
    match m.get("type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Array(types)) => types.iter().any(|t| t == ty),
        _ => false,
    }
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").is_some_and(|t| t == "null")
}

/// Renames `from` to `to` in place, keeping the key's position.
fn rename_key(m: &mut Map<String, Value>, from: &str, to: &str) {
    let old = std::mem::take(m);
    for (k, v) in old {
        if k == from {
            m.insert(to.to_owned(), v);
        } else {
            m.insert(k, v);
        }
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_owned() } else { format!("{path}.{name}") }
}
