//! The keys of each front matter mapping, with the JSON Schema of their values: one list
//! that the loader checks keys against and [`front_matter_schema`](crate::front_matter_schema)
//! describes.
//!
//! A key's `schema` is JSON text (a schema object); `#/$defs/...` references point at the
//! definitions the schema builds from these same lists.

/// One key of a front matter mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The key as written in the file.
    pub name: &'static str,
    /// The JSON Schema of its value, as JSON text.
    pub schema: &'static str,
}

const fn key(name: &'static str, schema: &'static str) -> Key {
    Key { name, schema }
}

/// The names of `keys`, in order.
pub fn names(keys: &[Key]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
}

/// Whether `keys` holds `name`.
pub fn contains(keys: &[Key], name: &str) -> bool {
    keys.iter().any(|k| k.name == name)
}

/// The v2 top-level keys.
pub const TOP: &[Key] = &[
    key("name", r#"{"type": "string", "description": "The prompt's name."}"#),
    key("displayName", r#"{"type": "string", "description": "A human-readable name for tools that list prompts."}"#),
    key(
        "description",
        r#"{"type": "string", "description": "What the prompt does, for the people and tools that pick it."}"#,
    ),
    key("version", r#"{"type": ["string", "number"], "description": "The prompt's own version, free-form."}"#),
    key("metadata", r##"{"$ref": "#/$defs/metadata"}"##),
    key(
        "model",
        r##"{"description": "The model: an id string, or a mapping.", "oneOf": [{"type": "string"}, {"$ref": "#/$defs/model"}]}"##,
    ),
    key("inputs", r##"{"$ref": "#/$defs/properties", "description": "Inputs the template reads."}"##),
    key("outputs", r##"{"$ref": "#/$defs/properties", "description": "Structured output of the model."}"##),
    key(
        "tools",
        r##"{"description": "Tools the model may call: functions, MCP servers, OpenAPI specifications or custom kinds.",
            "oneOf": [{"type": "array", "items": {"$ref": "#/$defs/tool"}},
                      {"type": "object", "additionalProperties": {"$ref": "#/$defs/tool"}}]}"##,
    ),
    key(
        "template",
        r##"{"description": "How the body is rendered: the template engine (`format`) and the role-line parser (`parser`).",
            "oneOf": [{"$ref": "#/$defs/template"}, {"$ref": "#/$defs/format", "description": "v1 only: the engine name."}]}"##,
    ),
];

/// The v1 (promptflow) top-level keys.
pub const V1_TOP: &[Key] = &[
    key("sample", r#"{"description": "v1: inputs used when a call passes none (v2: `default` on each input)."}"#),
    key("authors", r#"{"type": "array", "items": {"type": "string"}, "description": "v1 (v2: metadata.authors)."}"#),
    key("tags", r#"{"type": "array", "items": {"type": "string"}, "description": "v1 (v2: metadata.tags)."}"#),
];

/// The v2 `model` keys.
pub const MODEL: &[Key] = &[
    key("id", r#"{"type": "string", "description": "The model or deployment id sent to the provider."}"#),
    key(
        "provider",
        r#"{"type": "string", "description": "Who serves the model; decides the request format.", "examples": ["openai", "azure", "anthropic", "foundry"]}"#,
    ),
    key(
        "apiType",
        r#"{"type": "string", "description": "Which API of the provider to call.", "examples": ["chat", "responses", "embedding", "image"]}"#,
    ),
    key("connection", r##"{"$ref": "#/$defs/connection"}"##),
    key("options", r##"{"$ref": "#/$defs/options"}"##),
];

/// The v1 `model` keys.
pub const V1_MODEL: &[Key] = &[
    key("api", r#"{"type": "string", "description": "v1 (v2: apiType)."}"#),
    key("configuration", r#"{"type": "object", "description": "v1 (v2: connection, provider, id)."}"#),
    key("parameters", r#"{"type": "object", "description": "v1: passed to the provider verbatim (v2: options)."}"#),
    key("response", r#"{"type": "string", "description": "v1 only."}"#),
];

/// The v2 `model.options` keys.
pub const OPTIONS: &[Key] = &[
    key(
        "temperature",
        r#"{"type": "number", "description": "Sampling temperature: higher is more varied, 0 is near-deterministic."}"#,
    ),
    key("maxOutputTokens", r#"{"type": "integer", "description": "The most tokens the model may generate."}"#),
    key(
        "topP",
        r#"{"type": "number", "description": "Nucleus sampling: only the most likely tokens whose probabilities add up to this."}"#,
    ),
    key("topK", r#"{"type": "integer", "description": "Sample only from this many most likely tokens."}"#),
    key(
        "frequencyPenalty",
        r#"{"type": "number", "description": "Penalizes tokens by how often they already appeared."}"#,
    ),
    key("presencePenalty", r#"{"type": "number", "description": "Penalizes tokens that already appeared at all."}"#),
    key("seed", r#"{"type": "integer", "description": "A seed for providers that can repeat a sampling."}"#),
    key(
        "stopSequences",
        r#"{"type": "array", "items": {"type": "string"}, "description": "Generation stops at any of these strings."}"#,
    ),
    key(
        "allowMultipleToolCalls",
        r#"{"type": "boolean", "description": "Whether the model may call several tools in one turn."}"#,
    ),
    key("additionalProperties", r#"{"type": "object", "description": "Passed to the provider as written."}"#),
];

/// The v2 keys of an input, output, parameter or object property.
pub const PROPERTY: &[Key] = &[
    key("name", r#"{"type": "string", "description": "The name the template reads the value by (list form)."}"#),
    key(
        "kind",
        r#"{"description": "The value's type. `thread`, `image`, `file` and `audio` are rich inputs, expanded into message parts."}"#,
    ),
    key("description", r#"{"type": "string", "description": "What the value is, for callers and tools."}"#),
    key(
        "required",
        r#"{"type": "boolean", "description": "Rendering fails when no value is given and there is no default."}"#,
    ),
    key("nullable", r#"{"type": "boolean", "description": "Whether `null` is an acceptable value."}"#),
    key("default", r#"{"description": "The value used when the caller gives none."}"#),
    key("example", r#"{"description": "Documentation only; never used at run time."}"#),
    key("enumValues", r#"{"type": "array", "description": "The only values allowed."}"#),
    key(
        "strict",
        r#"{"type": "boolean", "description": "Whether role lines inside this value are checked against injection (default true)."}"#,
    ),
    key("items", r##"{"$ref": "#/$defs/property", "description": "The element type of an `array`."}"##),
    key("properties", r##"{"$ref": "#/$defs/properties", "description": "The fields of an `object`."}"##),
    key("oneOf", r##"{"type": "array", "items": {"$ref": "#/$defs/property"}}"##),
    key("anyOf", r##"{"type": "array", "items": {"$ref": "#/$defs/property"}}"##),
];

/// The v1 keys of a property.
pub const V1_PROPERTY: &[Key] = &[
    key("type", r#"{"type": "string", "description": "v1 (v2: kind)."}"#),
    key("optional", r#"{"type": "boolean", "description": "v1 (v2: required: false)."}"#),
    key("sample", r#"{"description": "v1 (v2: example or default)."}"#),
];

/// The keys of `template` (v2: a mapping).
pub const TEMPLATE: &[Key] = &[
    key(
        "format",
        r##"{"description": "The template engine, by name or as a mapping with `kind`.", "oneOf": [{"$ref": "#/$defs/format"}, {"$ref": "#/$defs/formatConfig"}]}"##,
    ),
    key(
        "parser",
        r##"{"description": "How rendered text is split into messages at role lines.", "oneOf": [{"$ref": "#/$defs/parser"}, {"$ref": "#/$defs/parserConfig"}]}"##,
    ),
];

/// The keys of `template.format` as a mapping.
pub const FORMAT: &[Key] = &[
    key("kind", r##"{"$ref": "#/$defs/format"}"##),
    key("strict", r#"{"type": "boolean", "description": "Role-line nonces against injection (default true)."}"#),
    key("options", r#"{"type": "object"}"#),
];

/// The keys of `template.parser` as a mapping.
pub const PARSER: &[Key] = &[key("kind", r##"{"$ref": "#/$defs/parser"}"##), key("options", r#"{"type": "object"}"#)];

/// The keys every connection may have.
pub const CONNECTION: &[Key] = &[
    key(
        "kind",
        r#"{"type": "string", "description": "The kind of connection; decides which other fields apply.", "examples": ["key", "reference", "remote", "anonymous", "foundry", "oauth"]}"#,
    ),
    key("authenticationMode", r#"{"enum": ["user", "system"]}"#),
    key("usageDescription", r#"{"type": "string"}"#),
];

const ENDPOINT: Key = key("endpoint", r#"{"type": "string"}"#);
const NAME: Key = key("name", r#"{"type": "string"}"#);

/// The further keys of each known connection kind; other kinds take any keys.
pub const CONNECTION_KINDS: &[(&str, &[Key])] = &[
    ("key", &[ENDPOINT, key("apiKey", r#"{"type": "string"}"#)]),
    ("reference", &[NAME, key("target", r#"{"type": "string"}"#)]),
    ("remote", &[NAME, ENDPOINT]),
    ("anonymous", &[ENDPOINT]),
    ("foundry", &[ENDPOINT, NAME, key("connectionType", r#"{"type": "string"}"#)]),
    (
        "oauth",
        &[
            ENDPOINT,
            key("clientId", r#"{"type": "string"}"#),
            key("clientSecret", r#"{"type": "string"}"#),
            key("tokenUrl", r#"{"type": "string"}"#),
            key("scopes", r#"{"type": "array", "items": {"type": "string"}}"#),
        ],
    ),
];

/// The further keys of a connection of `kind` (empty for kinds this toolkit does not know).
pub fn connection_keys(kind: &str) -> &'static [Key] {
    CONNECTION_KINDS.iter().find(|(k, _)| *k == kind).map_or(&[], |(_, keys)| keys)
}

/// The keys every tool may have.
pub const TOOL: &[Key] = &[
    key("name", r#"{"type": "string", "description": "The name the model calls the tool by."}"#),
    key(
        "kind",
        r#"{"type": "string", "description": "`function`, `mcp`, `openapi`, or a custom kind.", "examples": ["function", "mcp", "openapi"]}"#,
    ),
    key("description", r#"{"type": "string", "description": "What the tool does, as the model reads it."}"#),
    key(
        "bindings",
        r#"{"type": ["object", "array"], "description": "Parameters filled from inputs instead of by the model."}"#,
    ),
];

const TOOL_CONNECTION: Key = key("connection", r##"{"$ref": "#/$defs/connection"}"##);

/// The further keys of each tool kind; the last entry (`*`) is for custom kinds.
pub const TOOL_KINDS: &[(&str, &[Key])] = &[
    (
        "function",
        &[
            key("parameters", r##"{"$ref": "#/$defs/properties", "description": "The function's parameters."}"##),
            key("strict", r#"{"type": "boolean"}"#),
        ],
    ),
    (
        "mcp",
        &[
            TOOL_CONNECTION,
            key("serverName", r#"{"type": "string"}"#),
            key("serverDescription", r#"{"type": "string"}"#),
            key("approvalMode", r#"{"type": ["string", "object"]}"#),
            key("allowedTools", r#"{"type": "array", "items": {"type": "string"}}"#),
        ],
    ),
    ("openapi", &[TOOL_CONNECTION, key("specification", r#"{"type": "string"}"#)]),
    ("*", &[TOOL_CONNECTION, key("options", r#"{"type": "object"}"#)]),
];

/// The further keys of a tool of `kind`.
pub fn tool_keys(kind: &str) -> &'static [Key] {
    let custom = TOOL_KINDS[TOOL_KINDS.len() - 1].1;
    TOOL_KINDS.iter().find(|(k, _)| *k == kind).map_or(custom, |(_, keys)| keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists() -> Vec<(&'static str, &'static [Key])> {
        let mut all: Vec<(&str, &[Key])> = vec![
            ("top", TOP),
            ("v1 top", V1_TOP),
            ("model", MODEL),
            ("v1 model", V1_MODEL),
            ("options", OPTIONS),
            ("property", PROPERTY),
            ("v1 property", V1_PROPERTY),
            ("template", TEMPLATE),
            ("format", FORMAT),
            ("parser", PARSER),
            ("connection", CONNECTION),
            ("tool", TOOL),
        ];
        all.extend(CONNECTION_KINDS.iter().copied());
        all.extend(TOOL_KINDS.iter().copied());
        all
    }

    #[test]
    fn every_schema_is_a_json_object_and_no_list_repeats_a_key() {
        for (list, keys) in lists() {
            let mut seen = std::collections::HashSet::new();
            for k in keys {
                let parsed: serde_json::Value = serde_json::from_str(k.schema)
                    .unwrap_or_else(|e| panic!("{list}.{}: schema is not JSON: {e}", k.name));
                assert!(parsed.is_object(), "{list}.{}: schema is not an object", k.name);
                assert!(seen.insert(k.name), "{list}: `{}` twice", k.name);
            }
        }
    }

    #[test]
    fn kind_specific_keys_do_not_repeat_the_common_ones() {
        for (kind, keys) in CONNECTION_KINDS {
            assert!(keys.iter().all(|k| !contains(CONNECTION, k.name)), "connection kind {kind}");
        }
        for (kind, keys) in TOOL_KINDS {
            assert!(keys.iter().all(|k| !contains(TOOL, k.name)), "tool kind {kind}");
        }
    }
}
