//! A JSON Schema (draft 2020-12) of `.prompty` front matter, v2 and v1, for editors.
//!
//! With the yaml-language-server a file gets completion and checks from it:
//! `# yaml-language-server: $schema=prompty.schema.json` as the first front matter line.

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
            "displayName": {"type": "string"},
            "description": {"type": "string"},
            "version": {"type": ["string", "number"]},
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
                "oneOf": [
                    {"type": "array", "items": {"$ref": "#/$defs/tool"}},
                    {"type": "object", "additionalProperties": {"$ref": "#/$defs/tool"}}
                ]
            },
            "template": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "format": {"oneOf": [{"$ref": "#/$defs/format"}, {
                                "type": "object",
                                "properties": {
                                    "kind": {"$ref": "#/$defs/format"},
                                    "strict": {"type": "boolean", "description": "Role-line nonces against injection (default true)."},
                                    "options": {"type": "object"}
                                },
                                "required": ["kind"]
                            }]},
                            "parser": {"oneOf": [{"const": "prompty"}, {
                                "type": "object",
                                "properties": {"kind": {"const": "prompty"}, "options": {"type": "object"}},
                                "required": ["kind"]
                            }]}
                        },
                        "additionalProperties": false
                    },
                    {"$ref": "#/$defs/format", "description": "v1 only: the engine name."}
                ]
            },
            "sample": {"description": "v1: inputs used when a call passes none (v2: `default` on each input)."},
            "authors": {"type": "array", "items": {"type": "string"}, "description": "v1 (v2: metadata.authors)."}
        },
        "$defs": {
            "format": {"enum": ["jinja2", "mustache", "handlebars"]},
            "model": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "provider": {"type": "string", "examples": ["openai", "azure", "anthropic", "foundry"]},
                    "apiType": {"type": "string", "examples": ["chat", "responses", "embedding", "image"]},
                    "connection": {"$ref": "#/$defs/connection"},
                    "options": {
                        "type": "object",
                        "properties": {
                            "temperature": {"type": "number"},
                            "maxOutputTokens": {"type": "integer"},
                            "topP": {"type": "number"},
                            "topK": {"type": "integer"},
                            "frequencyPenalty": {"type": "number"},
                            "presencePenalty": {"type": "number"},
                            "seed": {"type": "integer"},
                            "stopSequences": {"type": "array", "items": {"type": "string"}},
                            "allowMultipleToolCalls": {"type": "boolean"},
                            "additionalProperties": {"type": "object", "description": "Passed to the provider as written."}
                        },
                        "additionalProperties": false
                    },
                    "api": {"type": "string", "description": "v1 (v2: apiType)."},
                    "configuration": {"type": "object", "description": "v1 (v2: connection, provider, id)."},
                    "parameters": {"type": "object", "description": "v1: passed to the provider verbatim (v2: options)."},
                    "response": {"type": "string", "description": "v1 only."}
                }
            },
            "connection": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "examples": ["key", "reference", "remote", "anonymous", "foundry", "oauth"]},
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
                "required": ["kind"]
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
                    "name": {"type": "string"},
                    "kind": {"enum": kinds},
                    "description": {"type": "string"},
                    "required": {"type": "boolean"},
                    "nullable": {"type": "boolean"},
                    "default": {},
                    "example": {"description": "Documentation only; never used at run time."},
                    "enumValues": {"type": "array"},
                    "strict": {"type": "boolean"},
                    "items": {"$ref": "#/$defs/property"},
                    "properties": {"$ref": "#/$defs/properties"},
                    "oneOf": {"type": "array", "items": {"$ref": "#/$defs/property"}},
                    "anyOf": {"type": "array", "items": {"$ref": "#/$defs/property"}},
                    "type": {"type": "string", "description": "v1 (v2: kind)."},
                    "optional": {"type": "boolean", "description": "v1 (v2: required: false)."},
                    "sample": {"description": "v1 (v2: example or default)."}
                }
            },
            "tool": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "kind": {"type": "string", "examples": ["function", "mcp", "openapi"]},
                    "description": {"type": "string"},
                    "parameters": {"$ref": "#/$defs/properties"},
                    "strict": {"type": "boolean"},
                    "bindings": {"type": ["object", "array"]},
                    "connection": {"$ref": "#/$defs/connection"},
                    "serverName": {"type": "string"},
                    "serverDescription": {"type": "string"},
                    "approvalMode": {"type": ["string", "object"]},
                    "allowedTools": {"type": "array", "items": {"type": "string"}},
                    "specification": {"type": "string"},
                    "options": {"type": "object"}
                },
                "required": ["kind"]
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
                    "direction": {"enum": ["higher", "lower", "equal"]}
                }
            }
        }
    })
}
