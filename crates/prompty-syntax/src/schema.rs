//! A JSON Schema (draft 2020-12) of `.prompty` front matter, v2 and v1, for editors.
//!
//! With the yaml-language-server a file gets completion and checks from it:
//! `# yaml-language-server: $schema=prompty.schema.json` as the first front matter line.
//!
//! Objects the format closes (the top level, `model`, `model.options`, connections,
//! properties, tools, `template` and `metadata.evaluator`) have `additionalProperties: false`,
//! listing the v1 keys the loader also reads, so that an editor flags a misspelt key where the
//! loader warns (`P010`); free-form objects (`metadata`, `options` of tools and engines,
//! `model.options.additionalProperties`) stay open.

use serde_json::{Value, json};

use crate::model::PropertyKind;

/// The schema.
pub fn front_matter_schema() -> Value {
    let kinds: Vec<&str> = PropertyKind::ALL.iter().map(|k| k.as_str()).collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://prompty.dev/schemas/prompty.schema.json",
        "title": ".prompty front matter",
        "description": "Front matter of a .prompty file: Prompty v2 keys, and the v1 (promptflow) keys this toolkit also reads.",
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The prompt's name."},
            "displayName": {"type": "string", "description": "A human-readable name for tools that list prompts."},
            "description": {"type": "string", "description": "What the prompt does, for the people and tools that pick it."},
            "version": {"type": ["string", "number"], "description": "The prompt's own version, free-form."},
            "metadata": {
                "type": "object",
                "description": "Free-form metadata. `metadata.evaluator` configures prompty-eval.",
                "properties": {
                    "authors": {"type": "array", "items": {"type": "string"}},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "evaluator": {"$ref": "#/$defs/evaluator"}
                }
            },
            "model": {
                "description": "The model: an id string, or a mapping.",
                "oneOf": [{"type": "string"}, {"$ref": "#/$defs/model"}]
            },
            "inputs": {"$ref": "#/$defs/properties", "description": "Inputs the template reads."},
            "outputs": {"$ref": "#/$defs/properties", "description": "Structured output of the model."},
            "tools": {
                "description": "Tools the model may call: functions, MCP servers, OpenAPI specifications or custom kinds.",
                "oneOf": [
                    {"type": "array", "items": {"$ref": "#/$defs/tool"}},
                    {"type": "object", "additionalProperties": {"$ref": "#/$defs/tool"}}
                ]
            },
            "template": {
                "description": "How the body is rendered: the template engine (`format`) and the role-line parser (`parser`).",
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "format": {"description": "The template engine, by name or as a mapping with `kind`.", "oneOf": [{"$ref": "#/$defs/format"}, {
                                "type": "object",
                                "properties": {
                                    "kind": {"$ref": "#/$defs/format"},
                                    "strict": {"type": "boolean", "description": "Role-line nonces against injection (default true)."},
                                    "options": {"type": "object"}
                                },
                                "required": ["kind"],
                                "additionalProperties": false
                            }]},
                            "parser": {"description": "How rendered text is split into messages at role lines.", "oneOf": [{"const": "prompty"}, {
                                "type": "object",
                                "properties": {"kind": {"const": "prompty"}, "options": {"type": "object"}},
                                "required": ["kind"],
                                "additionalProperties": false
                            }]}
                        },
                        "additionalProperties": false
                    },
                    {"$ref": "#/$defs/format", "description": "v1 only: the engine name."}
                ]
            },
            "sample": {"description": "v1: inputs used when a call passes none (v2: `default` on each input)."},
            "authors": {"type": "array", "items": {"type": "string"}, "description": "v1 (v2: metadata.authors)."},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "v1 (v2: metadata.tags)."}
        },
        "additionalProperties": false,
        "$defs": {
            "format": {"enum": ["jinja2", "mustache", "handlebars"], "description": "The template engine: `jinja2` (the default), `mustache` or `handlebars`."},
            "model": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "The model or deployment id sent to the provider."},
                    "provider": {"type": "string", "description": "Who serves the model; decides the request format.", "examples": ["openai", "azure", "anthropic", "foundry"]},
                    "apiType": {"type": "string", "description": "Which API of the provider to call.", "examples": ["chat", "responses", "embedding", "image"]},
                    "connection": {"$ref": "#/$defs/connection"},
                    "options": {
                        "type": "object",
                        "description": "Generation options, translated to each provider's parameter names.",
                        "properties": {
                            "temperature": {"type": "number", "description": "Sampling temperature: higher is more varied, 0 is near-deterministic."},
                            "maxOutputTokens": {"type": "integer", "description": "The most tokens the model may generate."},
                            "topP": {"type": "number", "description": "Nucleus sampling: only the most likely tokens whose probabilities add up to this."},
                            "topK": {"type": "integer", "description": "Sample only from this many most likely tokens."},
                            "frequencyPenalty": {"type": "number", "description": "Penalizes tokens by how often they already appeared."},
                            "presencePenalty": {"type": "number", "description": "Penalizes tokens that already appeared at all."},
                            "seed": {"type": "integer", "description": "A seed for providers that can repeat a sampling."},
                            "stopSequences": {"type": "array", "items": {"type": "string"}, "description": "Generation stops at any of these strings."},
                            "allowMultipleToolCalls": {"type": "boolean", "description": "Whether the model may call several tools in one turn."},
                            "additionalProperties": {"type": "object", "description": "Passed to the provider as written."}
                        },
                        "additionalProperties": false
                    },
                    "api": {"type": "string", "description": "v1 (v2: apiType)."},
                    "configuration": {"type": "object", "description": "v1 (v2: connection, provider, id)."},
                    "parameters": {"type": "object", "description": "v1: passed to the provider verbatim (v2: options)."},
                    "response": {"type": "string", "description": "v1 only."}
                },
                "additionalProperties": false
            },
            "connection": {
                "type": "object",
                "description": "How to reach the model: a `kind` and the fields of that kind.",
                "properties": {
                    "kind": {"type": "string", "description": "The kind of connection; decides which other fields apply.", "examples": ["key", "reference", "remote", "anonymous", "foundry", "oauth"]},
                    "endpoint": {"type": "string"},
                    "apiKey": {"type": "string"},
                    "name": {"type": "string"},
                    "target": {"type": "string"},
                    "connectionType": {"type": "string"},
                    "clientId": {"type": "string"},
                    "clientSecret": {"type": "string"},
                    "tokenUrl": {"type": "string"},
                    "scopes": {"type": "array", "items": {"type": "string"}},
                    "authenticationMode": {"enum": ["user", "system"]},
                    "usageDescription": {"type": "string"}
                },
                "required": ["kind"],
                "additionalProperties": false
            },
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
            "property": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The name the template reads the value by (list form)."},
                    "kind": {"enum": kinds, "description": "The value's type. `thread`, `image`, `file` and `audio` are rich inputs, expanded into message parts."},
                    "description": {"type": "string", "description": "What the value is, for callers and tools."},
                    "required": {"type": "boolean", "description": "Rendering fails when no value is given and there is no default."},
                    "nullable": {"type": "boolean", "description": "Whether `null` is an acceptable value."},
                    "default": {"description": "The value used when the caller gives none."},
                    "example": {"description": "Documentation only; never used at run time."},
                    "enumValues": {"type": "array", "description": "The only values allowed."},
                    "strict": {"type": "boolean", "description": "Whether role lines inside this value are checked against injection (default true)."},
                    "items": {"$ref": "#/$defs/property", "description": "The element type of an `array`."},
                    "properties": {"$ref": "#/$defs/properties", "description": "The fields of an `object`."},
                    "oneOf": {"type": "array", "items": {"$ref": "#/$defs/property"}},
                    "anyOf": {"type": "array", "items": {"$ref": "#/$defs/property"}},
                    "type": {"type": "string", "description": "v1 (v2: kind)."},
                    "optional": {"type": "boolean", "description": "v1 (v2: required: false)."},
                    "sample": {"description": "v1 (v2: example or default)."}
                },
                "additionalProperties": false
            },
            "tool": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The name the model calls the tool by."},
                    "kind": {"type": "string", "description": "`function`, `mcp`, `openapi`, or a custom kind.", "examples": ["function", "mcp", "openapi"]},
                    "description": {"type": "string", "description": "What the tool does, as the model reads it."},
                    "parameters": {"$ref": "#/$defs/properties", "description": "The function's parameters."},
                    "strict": {"type": "boolean"},
                    "bindings": {"type": ["object", "array"], "description": "Parameters filled from inputs instead of by the model."},
                    "connection": {"$ref": "#/$defs/connection"},
                    "serverName": {"type": "string"},
                    "serverDescription": {"type": "string"},
                    "approvalMode": {"type": ["string", "object"]},
                    "allowedTools": {"type": "array", "items": {"type": "string"}},
                    "specification": {"type": "string"},
                    "options": {"type": "object"}
                },
                "required": ["kind"],
                "additionalProperties": false
            },
            "evaluator": {
                "type": "object",
                "description": "How prompty-eval turns the judge's answer into a score.",
                "properties": {
                    "resultKey": {"type": "string"},
                    "answer": {"enum": ["tags", "json", "number", "label"]},
                    "range": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
                    "validateRange": {"type": "boolean"},
                    "threshold": {"type": "number"},
                    "direction": {"enum": ["higher", "lower", "equal"]},
                    "scoreKey": {"$ref": "#/$defs/keys", "description": "json answers: the key (or keys, first found) holding the score."},
                    "reasonKey": {"$ref": "#/$defs/keys", "description": "json answers: the key(s) holding the reason."},
                    "propertiesKey": {"$ref": "#/$defs/keys", "description": "json answers: the key(s) holding extra properties."},
                    "labelKey": {"$ref": "#/$defs/keys", "description": "label answers: the key(s) holding the label."},
                    "statusKey": {"type": "string", "description": "json answers: the key holding a status."},
                    "scoreType": {"enum": ["float", "int", "bool"], "description": "How the score is written in the result."},
                    "strict": {"type": "boolean", "description": "An unreadable answer is an error, not an unknown score."},
                    "compat": {"type": "string", "description": "Follow azure-ai-evaluation's evaluator of this name."}
                },
                "additionalProperties": false
            },
            "keys": {
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]
            }
        }
    })
}
