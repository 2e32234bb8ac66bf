//! The typed, normalized prompt. v1 and v2 files both load into these types; the JSON
//! form uses the spec's field names.

use std::ops::Range;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::format::TemplateFormat;
use crate::secret::Secrets;

/// Which reference engine a file is rendered like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Prompty v2, as the spec's Python reference renders it.
    #[default]
    Spec,
    /// Prompty v1, as promptflow-core renders it.
    Promptflow,
}

impl Profile {
    /// The profile's name as written on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::Promptflow => "promptflow",
        }
    }
}

/// A loaded `.prompty` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Always `"prompt"`.
    pub kind: &'static str,
    /// `name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `displayName`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// `description`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `metadata`, free-form (v1 `authors` lands here too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// `model`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<Model>,
    /// `inputs`, always in list form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<Property>>,
    /// `outputs`, always in list form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Vec<Property>>,
    /// `tools`, always in list form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// `template`, with defaults filled in.
    pub template: Template,
    /// The body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The reference engine this file renders like.
    pub profile: Profile,
    /// What a v1 file said that has no exact v2 spelling, kept verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legacy: Option<Legacy>,
    /// Byte span of the body in the original file.
    #[serde(skip)]
    pub body_span: Range<usize>,
    /// The values `${env:}` supplied: secret. The fields above hold the real values; show
    /// [`Prompt::redacted`] instead of the prompt itself.
    #[serde(skip)]
    pub secrets: Secrets,
}

impl Prompt {
    /// The declared input named `name`.
    pub fn input(&self, name: &str) -> Option<&Property> {
        self.inputs.as_deref()?.iter().find(|p| p.name == name)
    }
}

/// `model`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Model or deployment id; `""` when not given.
    pub id: String,
    /// `openai`, `azure`, `anthropic`, `foundry`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// `chat`, `responses`, `embedding`, `image`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_type: Option<String>,
    /// How to reach the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection: Option<Connection>,
    /// Generation options.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<ModelOptions>,
}

/// `model.connection`: a `kind` and that kind's fields, kept as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Connection {
    /// `key`, `reference`, `remote`, `anonymous`, `foundry`, `oauth` or another string.
    pub kind: String,
    /// The other fields.
    #[serde(flatten)]
    pub fields: Map<String, Value>,
}

/// `model.options`. Floats are kept as `f64` so that `0.7` stays `0.7` on the wire.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelOptions {
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens the model may generate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<i64>,
    /// Nucleus sampling probability mass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Sample only from this many most likely tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<i64>,
    /// Penalty on tokens by how often they appeared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    /// Penalty on tokens that appeared at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    /// Sampling seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Generation stops at any of these strings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Whether the model may call several tools in one turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_multiple_tool_calls: Option<bool>,
    /// Passed through to the provider as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_properties: Option<Map<String, Value>>,
}

/// The kinds a property can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PropertyKind {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `float`.
    Float,
    /// `boolean`.
    Boolean,
    /// `array`.
    Array,
    /// `object`.
    Object,
    /// `union`: one of the `oneOf`/`anyOf` branches.
    Union,
    /// `thread`: a conversation, expanded into messages.
    Thread,
    /// `image`: a rich input, expanded into a message part.
    Image,
    /// `file`: a rich input, expanded into a message part.
    File,
    /// `audio`: a rich input, expanded into a message part.
    Audio,
}

impl PropertyKind {
    /// Every kind, in the order the spec lists them.
    pub const ALL: [PropertyKind; 11] = [
        Self::String,
        Self::Integer,
        Self::Float,
        Self::Boolean,
        Self::Array,
        Self::Object,
        Self::Union,
        Self::Thread,
        Self::Image,
        Self::File,
        Self::Audio,
    ];

    /// The v2 kind for a v1 `type` name (`int`, `double`, `list`, `dict`, ...; anything else
    /// is a string). v1 runtimes ignore the type: the loader and the migration read it so.
    pub fn from_v1_type(t: &str) -> PropertyKind {
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

    /// The kind's name as written in a file.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Integer => "integer",
            Self::Float => "float",
            Self::Boolean => "boolean",
            Self::Array => "array",
            Self::Object => "object",
            Self::Union => "union",
            Self::Thread => "thread",
            Self::Image => "image",
            Self::File => "file",
            Self::Audio => "audio",
        }
    }

    /// Parses a kind name.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Rich kinds are replaced by nonces before rendering and expanded after.
    pub fn is_rich(self) -> bool {
        matches!(self, Self::Thread | Self::Image | Self::File | Self::Audio)
    }

    /// The kind a JSON value would be inferred as (the scalar shorthand).
    pub fn infer(value: &Value) -> Self {
        match value {
            Value::Bool(_) => Self::Boolean,
            Value::Number(n) if n.is_f64() => Self::Float,
            Value::Number(_) => Self::Integer,
            Value::Array(_) => Self::Array,
            Value::Object(_) => Self::Object,
            Value::Null | Value::String(_) => Self::String,
        }
    }
}

/// An input, output, tool parameter, array item or object property.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Property {
    /// The name (empty for array items).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The kind.
    pub kind: PropertyKind,
    /// What the value is, for callers and tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Rendering fails when no value is given and there is no default.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// Whether `null` is an acceptable value.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nullable: bool,
    /// Filled in when the caller gives no value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Documentation only; never used at run time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Value>,
    /// The only values allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<Value>>,
    /// Per-property strictness for the injection check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// Element type of an `array`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<Property>>,
    /// Fields of an `object`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<Vec<Property>>,
    /// Branches of a `union`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Property>>,
    /// Branches of a `union`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub any_of: Option<Vec<Property>>,
    /// Byte span of the property's name (or the whole property) in the file.
    #[serde(skip)]
    pub span: Range<usize>,
}

impl Property {
    /// A property of `kind` with nothing else set.
    pub fn new(name: impl Into<String>, kind: PropertyKind) -> Self {
        Self {
            name: name.into(),
            kind,
            description: None,
            required: false,
            nullable: false,
            default: None,
            example: None,
            enum_values: None,
            strict: None,
            items: None,
            properties: None,
            one_of: None,
            any_of: None,
            span: 0..0,
        }
    }
}

/// A tool binding: the tool parameter takes its value from an input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Binding {
    /// The input's name.
    pub input: String,
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The name the model calls the tool by.
    pub name: String,
    /// `function`, `mcp`, `openapi`, or any other string (a custom tool).
    pub kind: String,
    /// What the tool does, as the model reads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Function tools: the parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Vec<Property>>,
    /// Function tools: strict schema (defaults to true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// Parameters filled from inputs, keyed by parameter name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bindings: Option<Map<String, Value>>,
    /// MCP and OpenAPI tools: how to reach the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection: Option<Connection>,
    /// MCP: the server name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// MCP: the server description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_description: Option<String>,
    /// MCP: `{kind: always|never|specify, ...}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_mode: Option<Value>,
    /// MCP: the tools of the server the model may call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// OpenAPI: the specification path or URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specification: Option<String>,
    /// Custom tools: free-form options.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Map<String, Value>>,
}

impl Tool {
    /// The bound parameter names and the inputs they read.
    pub fn binding_inputs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.bindings.iter().flatten().filter_map(|(param, b)| Some((param.as_str(), b.get("input")?.as_str()?)))
    }
}

/// `template.format`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormatConfig {
    /// `jinja2`, `mustache` or `handlebars`.
    pub kind: String,
    /// Strict role-line nonces (on when unset, as the reference runtimes do).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// Engine options, passed to the engine as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Map<String, Value>>,
}

impl FormatConfig {
    /// The engine [`kind`](FormatConfig::kind) names, or `None` when this toolkit has none
    /// by that name (the loader reports it).
    pub fn format(&self) -> Option<TemplateFormat> {
        TemplateFormat::from_kind(&self.kind)
    }
}

/// `template.parser`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParserConfig {
    /// `prompty`.
    pub kind: String,
    /// Parser options, passed to the parser as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Map<String, Value>>,
}

/// `template`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Template {
    /// The template engine.
    pub format: FormatConfig,
    /// The role-line parser.
    pub parser: ParserConfig,
}

impl Default for Template {
    fn default() -> Self {
        Self {
            format: FormatConfig { kind: TemplateFormat::Jinja2.name().to_owned(), strict: None, options: None },
            parser: ParserConfig { kind: "prompty".to_owned(), options: None },
        }
    }
}

/// What a v1 (promptflow) file said, kept verbatim for the promptflow profile.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Legacy {
    /// `model.api`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    /// `model.configuration`, references resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration: Option<Map<String, Value>>,
    /// `model.parameters`, passed to the provider verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Map<String, Value>>,
    /// Top-level `sample`: the inputs used when a call passes none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<Value>,
}
