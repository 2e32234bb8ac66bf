//! `model`: the id, provider, connection and options, and the v1 `api`, `configuration`
//! and `parameters`.

use serde_json::{Map, Value};

use super::Lowerer;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::keys;
use crate::model::{Connection, Legacy, Model, ModelOptions};
use crate::suggest::did_you_mean;
use crate::yaml::{Node, NodeValue};

/// v1 model parameter names and their v2 option names.
pub const V1_PARAMETER_NAMES: &[(&str, &str)] = &[
    ("max_tokens", "maxOutputTokens"),
    ("max_completion_tokens", "maxOutputTokens"),
    ("temperature", "temperature"),
    ("top_p", "topP"),
    ("frequency_penalty", "frequencyPenalty"),
    ("presence_penalty", "presencePenalty"),
    ("stop", "stopSequences"),
    ("seed", "seed"),
];

impl Lowerer<'_> {
    pub(super) fn model(&mut self, node: &Node, legacy: &mut Legacy) -> Option<Model> {
        match &node.value {
            NodeValue::String(id) => return Some(Model { id: id.clone(), ..Model::default() }),
            NodeValue::Map(_) => {}
            NodeValue::Null => return None,
            _ => {
                self.error(
                    codes::BAD_MODEL,
                    node,
                    format!("`model` must be a model id string or a mapping, found {}", node.type_name()),
                    "write `model: gpt-4o` or `model: {id: gpt-4o, provider: openai}`",
                );
                return None;
            }
        }
        self.check_keys(node, "`model`", keys::MODEL, keys::V1_MODEL);
        let mut model = Model {
            id: self.string(node.get("id"), "model.id").unwrap_or_default(),
            provider: self.string(node.get("provider"), "model.provider"),
            api_type: self.string(node.get("apiType"), "model.apiType"),
            connection: self.connection(node, "model.connection"),
            options: node.get("options").and_then(|o| self.options(o)),
        };
        self.model_v1(node, &mut model, legacy);
        Some(model)
    }

    /// Reads `model.api`, `model.configuration` and `model.parameters` into the v2 fields,
    /// with one warning naming every v1 key of the block and its v2 spelling.
    pub(super) fn model_v1(&mut self, node: &Node, model: &mut Model, legacy: &mut Legacy) {
        const SPELLINGS: &[(&str, &str)] = &[
            ("api", "`api` -> `apiType`"),
            ("configuration", "`configuration` -> `connection` (with `kind`), `provider` and `id`"),
            ("parameters", "`parameters` -> `options` (`max_tokens` -> `maxOutputTokens`, ...)"),
            ("response", "`response` has no v2 equivalent (the first choice is returned)"),
        ];
        let found: Vec<(&Node, &str, &str)> =
            SPELLINGS.iter().filter_map(|(key, help)| Some((node.key_node(key)?, *key, *help))).collect();
        if let Some((first, _, _)) = found.first() {
            let keys: Vec<String> = found.iter().map(|(_, k, _)| format!("`{k}`")).collect();
            let helps: Vec<&str> = found.iter().map(|(_, _, h)| *h).collect();
            let message = match keys.as_slice() {
                [one] => format!("`model.{}` is a v1 key", one.trim_matches('`')),
                _ => format!("`model` uses the v1 keys {}", keys.join(", ")),
            };
            self.legacy(first, message, format!("v2 spelling: {}", helps.join("; ")));
        }
        for (v1, v2) in [("api", "apiType"), ("configuration", "connection"), ("parameters", "options")] {
            self.mixed(node, v1, v2, "`model`");
        }
        if let Some(v) = node.get("api") {
            legacy.api = self.string(Some(v), "model.api");
            if model.api_type.is_none() {
                model.api_type.clone_from(&legacy.api);
            }
        }
        if let Some(conf) = node.get("configuration").and_then(|v| self.object(Some(v), "model.configuration")) {
            let str_of = |key: &str| conf.get(key).and_then(Value::as_str).map(str::to_owned);
            if model.id.is_empty() {
                model.id = str_of("azure_deployment").or_else(|| str_of("model")).unwrap_or_default();
            }
            if model.provider.is_none() {
                model.provider = str_of("type").map(|t| if t == "azure_openai" { "foundry".to_owned() } else { t });
            }
            legacy.configuration = Some(conf);
        }
        if let Some(params) = node.get("parameters").and_then(|v| self.object(Some(v), "model.parameters")) {
            let options = model.options.get_or_insert_with(ModelOptions::default);
            for (name, value) in &params {
                map_v1_parameter(options, name, value);
            }
            legacy.parameters = Some(params);
        }
    }

    /// The `connection` entry of `parent`, if any. A connection without `kind` is reported at
    /// its `connection` key.
    pub(super) fn connection(&mut self, parent: &Node, what: &str) -> Option<Connection> {
        let node = parent.get("connection")?;
        let Some(entries) = node.as_map() else {
            if !node.is_null() {
                self.wrong_type(node, what, "a mapping with a `kind`");
            }
            return None;
        };
        let Some(kind) = self.string(node.get("kind"), format_args!("{what}.kind")) else {
            let at = parent.key_node("connection").map_or_else(|| node.span.clone(), |k| k.span.clone());
            self.push(
                Diagnostic::error(codes::MISSING_FIELD, at, format!("`{what}` has no `kind`"))
                    .with_help("add `kind: key` (or reference, remote, anonymous, foundry, oauth)"),
            );
            return None;
        };
        let specific = keys::connection_keys(&kind);
        if !specific.is_empty() {
            self.check_keys(node, format_args!("a `{kind}` connection"), keys::CONNECTION, specific);
        }
        let mut fields = Map::new();
        for (k, v) in entries {
            let key = k.key_string();
            if key != "kind" {
                fields.insert(key, v.to_json());
            }
        }
        Some(Connection { kind, fields })
    }

    pub(super) fn options(&mut self, node: &Node) -> Option<ModelOptions> {
        if node.as_map().is_none() {
            if !node.is_null() {
                self.wrong_type(node, "model.options", "a mapping");
            }
            return None;
        }
        for (k, _) in node.as_map().unwrap_or_default() {
            let key = k.key_string();
            if keys::contains(keys::OPTIONS, &key) {
                continue;
            }
            let v2 = V1_PARAMETER_NAMES.iter().find(|(v1, _)| *v1 == key).map(|(_, v2)| *v2);
            let help = match (v2, did_you_mean(&key, &keys::names(keys::OPTIONS))) {
                (Some(s), _) => format!("`{key}` is the v1 name; in v2 `options` write `{s}`"),
                (None, Some(s)) => {
                    format!("did you mean `{s}`? Provider-specific options go under `additionalProperties`")
                }
                (None, None) => "provider-specific options go under `additionalProperties`".to_owned(),
            };
            self.push(
                Diagnostic::warning(codes::UNKNOWN_KEY, k.span.clone(), format!("unknown model option `{key}`"))
                    .with_help(help),
            );
        }
        let stop = node.get("stopSequences").and_then(|s| match &s.value {
            NodeValue::Seq(items) => {
                Some(items.iter().filter_map(|i| self.string(Some(i), "stopSequences[]")).collect())
            }
            NodeValue::String(one) => Some(vec![one.clone()]),
            _ => {
                self.wrong_type(s, "model.options.stopSequences", "a list of strings");
                None
            }
        });
        Some(ModelOptions {
            temperature: self.float(node.get("temperature"), "model.options.temperature"),
            max_output_tokens: self.int(node.get("maxOutputTokens"), "model.options.maxOutputTokens"),
            top_p: self.float(node.get("topP"), "model.options.topP"),
            top_k: self.int(node.get("topK"), "model.options.topK"),
            frequency_penalty: self.float(node.get("frequencyPenalty"), "model.options.frequencyPenalty"),
            presence_penalty: self.float(node.get("presencePenalty"), "model.options.presencePenalty"),
            seed: self.int(node.get("seed"), "model.options.seed"),
            stop_sequences: stop,
            allow_multiple_tool_calls: self.bool(node.get("allowMultipleToolCalls"), "allowMultipleToolCalls"),
            additional_properties: self.object(node.get("additionalProperties"), "model.options.additionalProperties"),
        })
    }
}

/// Maps one v1 parameter onto the v2 options where they leave it unset (the v2 spelling
/// wins, and `P031` reports the file); unknown ones go to `additionalProperties`.
fn map_v1_parameter(options: &mut ModelOptions, name: &str, value: &Value) {
    let f = || value.as_f64();
    let i = || value.as_i64();
    match name {
        "temperature" => options.temperature = options.temperature.or_else(f),
        "max_tokens" | "max_completion_tokens" => options.max_output_tokens = options.max_output_tokens.or_else(i),
        "top_p" => options.top_p = options.top_p.or_else(f),
        "frequency_penalty" => options.frequency_penalty = options.frequency_penalty.or_else(f),
        "presence_penalty" => options.presence_penalty = options.presence_penalty.or_else(f),
        "seed" => options.seed = options.seed.or_else(i),
        "stop" => {
            options.stop_sequences = options.stop_sequences.take().or_else(|| match value {
                Value::String(s) => Some(vec![s.clone()]),
                Value::Array(a) => Some(a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()),
                _ => None,
            });
        }
        _ => {
            options.additional_properties.get_or_insert_with(Map::new).entry(name).or_insert_with(|| value.clone());
        }
    }
}
