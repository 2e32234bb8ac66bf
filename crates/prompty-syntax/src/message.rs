//! Chat messages: what rendering produces and what the wire compiler consumes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A chat message in the spec's canonical form:
/// `{"role": ..., "content": [{"kind": "text", "value": ...}], "metadata": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user`, `assistant`, `developer`, `tool` or `function`.
    pub role: String,
    /// The content parts, in order.
    pub content: Vec<Part>,
    /// Attributes from the role line (`user[name=Bob]:`) and, in the promptflow profile,
    /// `name`, `tool_call_id` and `tool_calls`.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl Message {
    /// A message with one text part.
    pub fn text(role: impl Into<String>, text: impl Into<String>) -> Self {
        Self { role: role.into(), content: vec![Part::Text { value: text.into() }], metadata: Map::new() }
    }

    /// The concatenated text of the text parts.
    pub fn text_content(&self) -> String {
        self.content
            .iter()
            .filter_map(|p| match p {
                Part::Text { value } => Some(value.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// One content part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        value: String,
    },
    /// An image by URL or data URI.
    Image {
        /// URL, data URI or path.
        #[serde(alias = "source")]
        value: String,
        /// `auto`, `low`, `high`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
        /// e.g. `image/png`.
        #[serde(default, rename = "mediaType", skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
    },
    /// A file by URL, data URI or id.
    File {
        /// URL, data URI or id.
        #[serde(alias = "source")]
        value: String,
        /// e.g. `application/pdf`.
        #[serde(default, rename = "mediaType", skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
    },
    /// Audio data.
    Audio {
        /// Base64 data or a data URI.
        #[serde(alias = "source")]
        value: String,
        /// e.g. `audio/wav`.
        #[serde(default, rename = "mediaType", skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
    },
}
