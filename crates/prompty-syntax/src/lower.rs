//! From the YAML node tree to the typed [`Prompt`], collecting every problem on the way.
//!
//! v1 (promptflow) constructs are read natively: each is reported once as a warning that
//! names its v2 spelling, and its meaning is kept (parameters verbatim in [`Legacy`]).

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::codes;
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{
    Connection, FormatConfig, Legacy, Model, ModelOptions, ParserConfig, Profile, Prompt, Property, PropertyKind,
    Template, Tool,
};
use crate::suggest::did_you_mean;
use crate::yaml::{Node, NodeValue};

const TOP_KEYS: &[&str] =
    &["name", "displayName", "description", "metadata", "model", "inputs", "outputs", "tools", "template", "version"];
const V1_TOP_KEYS: &[&str] = &["sample", "authors", "tags"];
const MODEL_KEYS: &[&str] = &["id", "provider", "apiType", "connection", "options"];
const V1_MODEL_KEYS: &[&str] = &["api", "configuration", "parameters", "response"];
/// The v2 `model.options` keys.
pub const OPTION_KEYS: &[&str] = &[
    "temperature",
    "maxOutputTokens",
    "topP",
    "topK",
    "frequencyPenalty",
    "presencePenalty",
    "seed",
    "stopSequences",
    "allowMultipleToolCalls",
    "additionalProperties",
];
const PROPERTY_KEYS: &[&str] = &[
    "name",
    "kind",
    "description",
    "required",
    "nullable",
    "default",
    "example",
    "enumValues",
    "strict",
    "items",
    "properties",
    "oneOf",
    "anyOf",
];
const V1_PROPERTY_KEYS: &[&str] = &["type", "optional", "sample"];
const TEMPLATE_KEYS: &[&str] = &["format", "parser"];
const FORMAT_KEYS: &[&str] = &["kind", "strict", "options"];
const PARSER_KEYS: &[&str] = &["kind", "options"];
const COMMON_CONNECTION_KEYS: &[&str] = &["kind", "authenticationMode", "usageDescription"];
const TOOL_COMMON_KEYS: &[&str] = &["name", "kind", "description", "bindings"];

/// Template formats this toolkit renders.
pub const FORMATS: &[&str] = &["jinja2", "mustache", "handlebars"];
/// Parsers this toolkit splits with.
pub const PARSERS: &[&str] = &["prompty"];

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

fn connection_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "key" => &["endpoint", "apiKey"],
        "reference" => &["name", "target"],
        "remote" => &["name", "endpoint"],
        "anonymous" => &["endpoint"],
        "foundry" => &["endpoint", "name", "connectionType"],
        "oauth" => &["endpoint", "clientId", "clientSecret", "tokenUrl", "scopes"],
        _ => &[],
    }
}

/// Whether the document uses v1 (promptflow) keys.
pub fn detect_profile(root: &Node) -> Profile {
    let model_v1 = root.get("model").is_some_and(|m| V1_MODEL_KEYS[..3].iter().any(|k| m.get(k).is_some()));
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

    fn wrong_type(&mut self, node: &Node, what: &str, expected: &str) {
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

    /// Reports keys of `node` that are in neither `known` nor `extra`; returns the map entries.
    fn check_keys<'n>(&mut self, node: &'n Node, what: &str, known: &[&str], extra: &[&str]) -> &'n [(Node, Node)] {
        let Some(entries) = node.as_map() else { return &[] };
        for (k, _) in entries {
            let key = k.key_string();
            if known.contains(&key.as_str()) || extra.contains(&key.as_str()) {
                continue;
            }
            let all: Vec<&str> = known.iter().chain(extra).copied().collect();
            let mut d =
                Diagnostic::warning(codes::UNKNOWN_KEY, k.span.clone(), format!("unknown key `{key}` in {what}"));
            d = match did_you_mean(&key, &all) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(format!("known keys: {}", known.join(", "))),
            };
            self.push(d);
        }
        entries
    }

    fn string(&mut self, node: Option<&Node>, what: &str) -> Option<String> {
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

    fn bool(&mut self, node: Option<&Node>, what: &str) -> Option<bool> {
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

    fn float(&mut self, node: Option<&Node>, what: &str) -> Option<f64> {
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

    fn int(&mut self, node: Option<&Node>, what: &str) -> Option<i64> {
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

    fn object(&mut self, node: Option<&Node>, what: &str) -> Option<Map<String, Value>> {
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
        let extra = if self.profile == Profile::Promptflow { V1_TOP_KEYS } else { &[] };
        self.check_keys(root, "the front matter", TOP_KEYS, extra);
        let mut metadata = self.object(root.get("metadata"), "metadata");
        if let Some(k) = root.key_node("authors")
            && self.profile == Profile::Promptflow
        {
            self.legacy(k, "`authors` is a v1 key".into(), "v2 spelling: `metadata: {authors: [...]}`".into());
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

    fn model(&mut self, node: &Node, legacy: &mut Legacy) -> Option<Model> {
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
        self.check_keys(node, "`model`", MODEL_KEYS, V1_MODEL_KEYS);
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
    fn model_v1(&mut self, node: &Node, model: &mut Model, legacy: &mut Legacy) {
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
    fn connection(&mut self, parent: &Node, what: &str) -> Option<Connection> {
        let node = parent.get("connection")?;
        let Some(entries) = node.as_map() else {
            if !node.is_null() {
                self.wrong_type(node, what, "a mapping with a `kind`");
            }
            return None;
        };
        let Some(kind) = self.string(node.get("kind"), &format!("{what}.kind")) else {
            let at = parent.key_node("connection").map_or_else(|| node.span.clone(), |k| k.span.clone());
            self.push(
                Diagnostic::error(codes::MISSING_FIELD, at, format!("`{what}` has no `kind`"))
                    .with_help("add `kind: key` (or reference, remote, anonymous, foundry, oauth)"),
            );
            return None;
        };
        let specific = connection_keys(&kind);
        if !specific.is_empty() {
            self.check_keys(node, &format!("a `{kind}` connection"), COMMON_CONNECTION_KEYS, specific);
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

    fn options(&mut self, node: &Node) -> Option<ModelOptions> {
        if node.as_map().is_none() {
            if !node.is_null() {
                self.wrong_type(node, "model.options", "a mapping");
            }
            return None;
        }
        for (k, _) in node.as_map().unwrap_or_default() {
            let key = k.key_string();
            if OPTION_KEYS.contains(&key.as_str()) {
                continue;
            }
            let v2 = V1_PARAMETER_NAMES.iter().find(|(v1, _)| *v1 == key).map(|(_, v2)| *v2);
            let help = match (v2, did_you_mean(&key, OPTION_KEYS)) {
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

    /// Inputs, outputs, parameters or object properties, in list or map form.
    fn properties(&mut self, node: &Node, what: &str, inputs: bool) -> Vec<Property> {
        // A nested list (object properties) reports its own v1 `type` keys.
        let outer_types = std::mem::take(&mut self.v1_types);
        let mut out: Vec<Property> = Vec::new();
        match &node.value {
            NodeValue::Seq(items) => {
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
    fn branches(&mut self, node: &Node, what: &str) -> Vec<Property> {
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
    fn report_v1_types(&mut self, what: &str) {
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

    fn property(
        &mut self,
        node: &Node,
        name: String,
        span: std::ops::Range<usize>,
        what: &str,
        inputs: bool,
    ) -> Option<Property> {
        let path = if name.is_empty() { what.to_owned() } else { format!("{what}.{name}") };
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
            if self.profile == Profile::Promptflow || node.get("type").is_some() { V1_PROPERTY_KEYS } else { &[] };
        self.check_keys(node, &format!("`{path}`"), PROPERTY_KEYS, extra);
        let kind = match (node.get("kind"), node.get("type")) {
            (Some(k), _) => {
                let text = self.string(Some(k), &format!("{path}.kind"))?;
                match PropertyKind::parse(&text) {
                    Some(kind) => kind,
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
                let text = self.string(Some(t), &format!("{path}.type")).unwrap_or_default();
                let kind = v1_kind(&text);
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
        p.description = self.string(node.get("description"), &format!("{path}.description"));
        p.nullable = self.bool(node.get("nullable"), &format!("{path}.nullable")).unwrap_or(false);
        p.default = node.get("default").map(Node::to_json).filter(|v| !v.is_null());
        p.example = node.get("example").map(Node::to_json);
        p.strict = self.bool(node.get("strict"), &format!("{path}.strict"));
        p.enum_values = node.get("enumValues").and_then(|e| match e.to_json() {
            Value::Array(a) => Some(a),
            _ => {
                self.wrong_type(e, &format!("{path}.enumValues"), "a list");
                None
            }
        });
        let required = self.bool(node.get("required"), &format!("{path}.required"));
        if let (Some(k), Some(s)) = (node.key_node("sample"), node.get("sample")) {
            self.legacy(k, format!("`sample` on `{path}` is a v1 key"), "v2 spelling: `example` (or `default`)".into());
            if p.example.is_none() {
                p.example = Some(s.to_json());
            }
        }
        let optional = self.bool(node.get("optional"), &format!("{path}.optional"));
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

    fn tools(&mut self, node: &Node) -> Vec<Tool> {
        let mut out = Vec::new();
        match &node.value {
            NodeValue::Seq(items) => {
                for item in items {
                    match item.get("name").filter(|n| n.as_str().is_some()) {
                        Some(n) => out.extend(self.tool(item, n.key_string(), n.span.clone())),
                        None => self.push(
                            Diagnostic::error(codes::MISSING_FIELD, head(item), "a tool has no `name`")
                                .with_help("add `name:` to the tool"),
                        ),
                    }
                }
            }
            NodeValue::Map(entries) => {
                for (k, v) in entries {
                    out.extend(self.tool(v, k.key_string(), k.span.clone()));
                }
            }
            NodeValue::Null => {}
            _ => self.wrong_type(node, "tools", "a list of tools"),
        }
        out
    }

    /// One tool; `at` is the span of its name, where problems with the whole tool point.
    fn tool(&mut self, node: &Node, name: String, at: std::ops::Range<usize>) -> Option<Tool> {
        if node.as_map().is_none() {
            self.wrong_type(node, &format!("tools.{name}"), "a mapping");
            return None;
        }
        let Some(kind) = self.string(node.get("kind"), &format!("tools.{name}.kind")) else {
            self.push(
                Diagnostic::error(codes::MISSING_FIELD, at, format!("tool `{name}` has no `kind`"))
                    .with_help("add `kind: function` (or mcp, openapi, or a custom kind)"),
            );
            return None;
        };
        let what = format!("tool `{name}`");
        let connection_what = format!("tools.{name}.connection");
        let specific: &[&str] = match kind.as_str() {
            "function" => &["parameters", "strict"],
            "mcp" => &["connection", "serverName", "serverDescription", "approvalMode", "allowedTools"],
            "openapi" => &["connection", "specification"],
            _ => &["connection", "options"],
        };
        self.check_keys(node, &what, TOOL_COMMON_KEYS, specific);
        let mut tool = Tool {
            description: self.string(node.get("description"), &format!("{what}.description")),
            name,
            kind,
            parameters: None,
            strict: None,
            bindings: node.get("bindings").and_then(|b| self.bindings(b)),
            connection: self.connection(node, &connection_what),
            server_name: self.string(node.get("serverName"), "serverName"),
            server_description: self.string(node.get("serverDescription"), "serverDescription"),
            approval_mode: node.get("approvalMode").map(|a| match a.to_json() {
                Value::String(s) => serde_json::json!({ "kind": s }),
                other => other,
            }),
            allowed_tools: node.get("allowedTools").and_then(|a| match a.to_json() {
                Value::Array(items) => Some(items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()),
                _ => None,
            }),
            specification: self.string(node.get("specification"), "specification"),
            options: self.object(node.get("options"), "options"),
        };
        if tool.kind == "function" {
            // Left unset when not written: consumers apply the schema default (true) themselves.
            tool.strict = self.bool(node.get("strict"), "strict");
            match node.get("parameters") {
                Some(p) => {
                    tool.parameters = Some(self.properties(p, &format!("tools.{}.parameters", tool.name), false))
                }
                None => self.push(
                    Diagnostic::error(
                        codes::MISSING_FIELD,
                        at.clone(),
                        format!("function tool `{}` has no `parameters`", tool.name),
                    )
                    .with_help("add `parameters:` (an empty list `[]` if it takes none)"),
                ),
            }
        }
        if tool.kind == "openapi" && tool.specification.is_none() {
            self.push(
                Diagnostic::error(
                    codes::MISSING_FIELD,
                    at,
                    format!("openapi tool `{}` has no `specification`", tool.name),
                )
                .with_help("add `specification: ./api.json`"),
            );
        }
        Some(tool)
    }

    fn bindings(&mut self, node: &Node) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        let mut one = |this: &mut Self, param: String, b: &Node| match &b.value {
            NodeValue::String(s) => {
                out.insert(param, serde_json::json!({ "input": s }));
            }
            NodeValue::Map(_) => match b.get("input").and_then(Node::as_str) {
                Some(s) => {
                    out.insert(param, serde_json::json!({ "input": s }));
                }
                None => this.error(
                    codes::MISSING_FIELD,
                    b,
                    format!("binding `{param}` has no `input`"),
                    "write `input: <input name>`",
                ),
            },
            _ => this.wrong_type(b, &format!("bindings.{param}"), "an input name or `{input: name}`"),
        };
        match &node.value {
            NodeValue::Map(entries) => {
                for (k, v) in entries {
                    one(self, k.key_string(), v);
                }
            }
            NodeValue::Seq(items) => {
                for item in items {
                    match item.get("name").and_then(Node::as_str) {
                        Some(name) => one(self, name.to_owned(), item),
                        None => self.error(
                            codes::MISSING_FIELD,
                            item,
                            "a binding has no `name`".into(),
                            "write `- name: param\\n  input: input_name`",
                        ),
                    }
                }
            }
            _ => self.wrong_type(node, "bindings", "a mapping of parameter to input"),
        }
        Some(out)
    }

    fn template(&mut self, root: &Node, node: &Node) -> Template {
        let mut t = Template::default();
        match &node.value {
            NodeValue::String(s) => {
                if self.profile == Profile::Promptflow {
                    if let Some(k) = root.key_node("template") {
                        self.legacy(
                            k,
                            "`template: <engine>` is the v1 spelling".into(),
                            format!("v2 spelling: `template: {{format: {s}, parser: prompty}}`"),
                        );
                    }
                    t.format.kind.clone_from(s);
                    self.check_engine(node, s, FORMATS, "format");
                } else {
                    self.error(
                        codes::BAD_TEMPLATE,
                        node,
                        "Invalid template format: `template` must be a mapping with `format` and `parser`".into(),
                        format!("write `template: {{format: {s}, parser: prompty}}`"),
                    );
                }
            }
            NodeValue::Map(_) => {
                self.check_keys(node, "`template`", TEMPLATE_KEYS, &[]);
                if let Some(f) = node.get("format")
                    && let Some((kind, rest)) = self.engine(f, "template.format", FORMAT_KEYS)
                {
                    self.check_engine(rest.and_then(|n| n.get("kind")).unwrap_or(f), &kind, FORMATS, "format");
                    t.format = FormatConfig {
                        kind,
                        strict: self.bool(rest.and_then(|n| n.get("strict")), "template.format.strict"),
                        options: self.object(rest.and_then(|n| n.get("options")), "template.format.options"),
                    };
                }
                if let Some(p) = node.get("parser")
                    && let Some((kind, rest)) = self.engine(p, "template.parser", PARSER_KEYS)
                {
                    self.check_engine(rest.and_then(|n| n.get("kind")).unwrap_or(p), &kind, PARSERS, "parser");
                    t.parser = ParserConfig {
                        kind,
                        options: self.object(rest.and_then(|n| n.get("options")), "template.parser.options"),
                    };
                }
            }
            NodeValue::Null => {}
            _ => self.error(
                codes::BAD_TEMPLATE,
                node,
                format!("Invalid template format: `template` must be a mapping, found {}", node.type_name()),
                "write `template: {format: jinja2, parser: prompty}`",
            ),
        }
        t
    }

    /// `kind` of a format/parser given as a string or `{kind, ...}`.
    fn engine<'n>(&mut self, node: &'n Node, what: &str, keys: &[&str]) -> Option<(String, Option<&'n Node>)> {
        match &node.value {
            NodeValue::String(s) => Some((s.clone(), None)),
            NodeValue::Map(_) => {
                self.check_keys(node, &format!("`{what}`"), keys, &[]);
                match self.string(node.get("kind"), &format!("{what}.kind")) {
                    Some(k) => Some((k, Some(node))),
                    None => {
                        self.error(codes::MISSING_FIELD, node, format!("`{what}` has no `kind`"), "add `kind: ...`");
                        None
                    }
                }
            }
            _ => {
                self.wrong_type(node, what, "a string or a mapping with `kind`");
                None
            }
        }
    }

    fn check_engine(&mut self, node: &Node, kind: &str, known: &[&str], what: &str) {
        if what == "format" && kind == "nunjucks" {
            // The TypeScript runtime's name for its engine; it renders `jinja2` the same way.
            self.push(
                Diagnostic::warning(
                    codes::NON_PORTABLE_FORMAT,
                    node.span.clone(),
                    "template format `nunjucks` is accepted by the TypeScript runtime only: it is rendered here as Jinja2 (Python semantics), the Python runtime rejects it, and Nunjucks itself prints some values differently (`true`, `a,b`)",
                )
                .with_help("write `jinja2`: every runtime accepts it"),
            );
            return;
        }
        if known.contains(&kind) {
            return;
        }
        let guess = if self.secrets.contains(kind) { None } else { did_you_mean(kind, known) };
        let help = match guess {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("supported: {}", known.join(", ")),
        };
        self.error(codes::UNKNOWN_ENGINE, node, format!("unknown template {what} `{kind}`"), help);
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

/// The v2 kind for a v1 `type` name (v1 runtimes ignore the type; this is for lint and schemas).
fn v1_kind(t: &str) -> PropertyKind {
    match t.to_ascii_lowercase().as_str() {
        "int" | "integer" => PropertyKind::Integer,
        "float" | "double" | "number" => PropertyKind::Float,
        "bool" | "boolean" => PropertyKind::Boolean,
        "list" | "array" => PropertyKind::Array,
        "dict" | "object" | "map" => PropertyKind::Object,
        "image" => PropertyKind::Image,
        _ => PropertyKind::String,
    }
}

/// Maps one v1 parameter onto the v2 options; unknown ones go to `additionalProperties`.
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
            options.stop_sequences = match value {
                Value::String(s) => Some(vec![s.clone()]),
                Value::Array(a) => Some(a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()),
                _ => None,
            };
        }
        _ => {
            options.additional_properties.get_or_insert_with(Map::new).insert(name.to_owned(), value.clone());
        }
    }
}
