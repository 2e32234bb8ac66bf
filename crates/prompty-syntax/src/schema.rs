//! A JSON Schema (draft 2020-12) of `.prompty` front matter, v2 and v1, for editors.
//!
//! With the yaml-language-server a file gets completion and checks from it:
//! `# yaml-language-server: $schema=prompty.schema.json` as the first front matter line.
//!
//! The keys and their schemas come from [`keys`], the lists the loader checks
//! keys against. Objects the format closes (the top level, `model`, its options,
//! connections, properties, tools, `template` and the engine configs) have
//! `additionalProperties: false`, so an editor flags a misspelt key where the loader warns
//! (`P010`); `metadata` stays open. `metadata` is free-form: a tool that keeps settings there (prompty-eval's
//! `metadata.evaluator`) adds its own fragment with [`front_matter_schema_with`].
//!
//! ```
//! let schema = prompty_syntax::front_matter_schema_with(&[(
//!     "mytool",
//!     serde_json::json!({"type": "object", "properties": {"level": {"type": "integer"}}}),
//! )]);
//! assert_eq!(schema["$defs"]["metadata"]["properties"]["mytool"]["properties"]["level"]["type"], "integer");
//! assert!(schema["properties"]["model"].is_object());
//! ```

use serde_json::{Map, Value, json};

use crate::keys::{self, Key};
use crate::lower::{FORMATS, PARSERS};
use crate::model::PropertyKind;

/// The schema, with nothing under `metadata` but `authors` and `tags`.
pub fn front_matter_schema() -> Value {
    front_matter_schema_with(&[])
}

/// The schema, with each `(key, schema)` of `metadata_blocks` described as
/// `metadata.<key>`.
pub fn front_matter_schema_with(metadata_blocks: &[(&str, Value)]) -> Value {
    let kinds: Vec<&str> = PropertyKind::ALL.iter().map(|k| k.as_str()).collect();
    let mut metadata = properties(&[]);
    metadata.insert("authors".into(), json!({"type": "array", "items": {"type": "string"}}));
    metadata.insert("tags".into(), json!({"type": "array", "items": {"type": "string"}}));
    for (name, schema) in metadata_blocks {
        metadata.insert((*name).to_owned(), schema.clone());
    }
    let mut connection = properties(keys::CONNECTION);
    for (_, specific) in keys::CONNECTION_KINDS {
        add_missing(&mut connection, specific);
    }
    let mut tool = properties(keys::TOOL);
    for (_, specific) in keys::TOOL_KINDS {
        add_missing(&mut tool, specific);
    }
    let mut model = properties(keys::MODEL);
    add_missing(&mut model, keys::V1_MODEL);
    let mut property = properties(keys::PROPERTY);
    add_missing(&mut property, keys::V1_PROPERTY);
    // The kinds come from the model, beside the key's description (editors show both on hover).
    if let Some(Value::Object(kind)) = property.get_mut("kind") {
        kind.insert("enum".into(), json!(kinds));
    }
    let mut top = properties(keys::TOP);
    add_missing(&mut top, keys::V1_TOP);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://prompty.dev/schemas/prompty.schema.json",
        "title": ".prompty front matter",
        "description": "Front matter of a .prompty file: Prompty v2 keys, and the v1 (promptflow) keys this toolkit also reads.",
        "type": "object",
        "properties": top,
        "additionalProperties": false,
        "$defs": {
            "metadata": {
                "type": "object",
                "description": "Free-form metadata: tools keep their own settings here, each under its own key.",
                "properties": metadata
            },
            "model": {"type": "object", "properties": model, "additionalProperties": false},
            "options": {
                "type": "object",
                "description": "Generation options, translated to each provider's parameter names.",
                "properties": properties(keys::OPTIONS),
                "additionalProperties": false
            },
            "connection": {
                "type": "object",
                "description": "How to reach the model: a `kind` and the fields of that kind.",
                "properties": connection,
                "required": ["kind"],
                "additionalProperties": false
            },
            "template": {"type": "object", "properties": properties(keys::TEMPLATE), "additionalProperties": false},
            "format": {"enum": FORMATS, "description": "The template engine: `jinja2` (the default), `mustache` or `handlebars`."},
            "formatConfig": {"type": "object", "properties": properties(keys::FORMAT), "required": ["kind"], "additionalProperties": false},
            "parser": {"enum": PARSERS, "description": "The role-line parser."},
            "parserConfig": {"type": "object", "properties": properties(keys::PARSER), "required": ["kind"], "additionalProperties": false},
            "properties": {
                "oneOf": [
                    {"type": "array", "items": {"allOf": [{"$ref": "#/$defs/property"}, {"required": ["name"]}]}},
                    {"type": "object", "additionalProperties": {
                        "oneOf": [
                            {"$ref": "#/$defs/property"},
                            {"type": ["string", "number", "boolean", "array"], "description": "Shorthand: a default of the inferred kind."}
                        ]
                    }}
                ]
            },
            "property": {"type": "object", "properties": property, "additionalProperties": false},
            "tool": {"type": "object", "properties": tool, "required": ["kind"], "additionalProperties": false}
        }
    })
}

/// `keys` as the `properties` of an object schema.
fn properties(keys: &[Key]) -> Map<String, Value> {
    let mut out = Map::new();
    add_missing(&mut out, keys);
    out
}

/// Adds the keys `out` does not have yet, in order.
fn add_missing(out: &mut Map<String, Value>, keys: &[Key]) {
    for k in keys {
        if !out.contains_key(k.name) {
            // The key lists are tested to hold valid JSON (keys::tests).
            let schema = serde_json::from_str(k.schema).unwrap_or(Value::Null);
            out.insert(k.name.to_owned(), schema);
        }
    }
}
