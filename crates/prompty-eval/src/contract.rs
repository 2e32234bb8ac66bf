//! Which azure-ai-evaluation judge contract a prompt follows.
//!
//! * [`Contract::V1_13`]: azure-ai-evaluation 1.13.3. The judge answers with
//!   `<S0>/<S1>/<S2>` tags, a bare digit or JSON with evaluator-specific keys
//!   (`explanation`, `flagged`, `success`, ...); results carry `{k}`, `gpt_{k}`,
//!   `{k}_result`, `{k}_threshold` and flat token keys.
//! * [`Contract::V1_18`]: azure-ai-evaluation 1.18.10. Every judge prompt sets
//!   JSON mode and asks for `{reason, score, status}` (plus `properties`);
//!   `status: "skipped"` means not applicable; results carry `{k}`,
//!   `{k}_score`, `{k}_passed`, `{k}_result`, `{k}_reason`, `{k}_status`,
//!   `{k}_threshold` and `{k}_properties`.
//!
//! [`Contract::recognise`] reads the contract off a prompt (the rule is
//! documented there); `metadata.evaluator.contract`, the command line's
//! `--contract` and the facade's option override it.

use std::fmt;

use serde_json::Value;

use crate::flatten::RefVersion;

/// An azure-ai-evaluation judge contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
pub enum Contract {
    /// azure-ai-evaluation 1.13.3 (tags, evaluator-specific JSON; `gpt_{k}` keys).
    #[default]
    #[serde(rename = "1.13")]
    V1_13,
    /// azure-ai-evaluation 1.18.10 (JSON `{reason, score, status}`; `{k}_passed`,
    /// `{k}_status`, `{k}_properties` keys).
    #[serde(rename = "1.18")]
    V1_18,
}

impl Contract {
    /// Both contracts, oldest first.
    pub const ALL: [Contract; 2] = [Contract::V1_13, Contract::V1_18];

    /// `1.13` or `1.18`.
    pub fn as_str(self) -> &'static str {
        match self {
            Contract::V1_13 => "1.13",
            Contract::V1_18 => "1.18",
        }
    }

    /// Reads `1.13`, `1.13.3`, `1.18` or `1.18.10`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim() {
            "1.13" | "1.13.3" => Some(Contract::V1_13),
            "1.18" | "1.18.10" => Some(Contract::V1_18),
            _ => None,
        }
    }

    /// The release whose message flattening this contract follows.
    pub fn ref_version(self) -> RefVersion {
        match self {
            Contract::V1_13 => RefVersion::V1_13_3,
            Contract::V1_18 => RefVersion::V1_18_10,
        }
    }

    /// The contract a prompt's own text asks for, if it is recognisably the 1.18 one.
    ///
    /// The rule: the prompt asks for JSON mode (`response_format: {type: json_object}`
    /// in `model.parameters` of a v1 file, or in `model.options.additionalProperties`)
    /// **and** its template names the three answer keys `reason`, `score` and `status`
    /// and the status value `skipped`. Every prompt azure-ai-evaluation 1.18.10 ships
    /// matches; none of 1.0.1 or 1.13.3 does (they ask for tags, a digit, or JSON
    /// without a status). Anything else gives `None`: the caller keeps its default.
    pub fn recognise(prompt: &prompty_syntax::Prompt) -> Option<Contract> {
        let json_mode = |params: Option<&serde_json::Map<String, Value>>| {
            params
                .and_then(|p| p.get("response_format"))
                .and_then(|f| f.get("type"))
                .and_then(Value::as_str)
                .is_some_and(|t| t == "json_object")
        };
        let legacy = prompt.legacy.as_ref().and_then(|l| l.parameters.as_ref());
        let options =
            prompt.model.as_ref().and_then(|m| m.options.as_ref()).and_then(|o| o.additional_properties.as_ref());
        if !(json_mode(legacy) || json_mode(options)) {
            return None;
        }
        let body = prompt.instructions.as_deref().unwrap_or_default();
        let asks = ["reason", "score", "status", "skipped"].iter().all(|w| has_word(body, w));
        asks.then_some(Contract::V1_18)
    }
}

impl From<RefVersion> for Contract {
    fn from(version: RefVersion) -> Self {
        match version {
            RefVersion::V1_13_3 => Contract::V1_13,
            RefVersion::V1_18_10 | RefVersion::V1_18_10ToolCallSuccess => Contract::V1_18,
        }
    }
}

impl fmt::Display for Contract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether `word` occurs in `text` with no letter, digit or `_` on either side.
fn has_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, w)| {
        let before = text[..at].chars().next_back();
        let after = text[at + w.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> prompty_syntax::Prompt {
        let loaded = prompty_syntax::load_str(text, &prompty_syntax::MapHost::new(), &Default::default());
        loaded.prompt.unwrap_or_else(|| panic!("loads: {text}"))
    }

    #[test]
    fn names() {
        for c in Contract::ALL {
            assert_eq!(Contract::from_name(c.as_str()), Some(c));
        }
        assert_eq!(Contract::from_name("1.18.10"), Some(Contract::V1_18));
        assert_eq!(Contract::from_name("2"), None);
    }

    #[test]
    fn recognised_only_with_json_mode_and_all_four_words() {
        let v1 = |format: &str, body: &str| {
            format!(
                "---\nname: x\nmodel:\n  api: chat\n  parameters:\n    response_format:\n      type: {format}\n---\nsystem:\n{body}\n"
            )
        };
        let body = "Answer JSON with keys reason, score and status (\"completed\" or \"skipped\").";
        assert_eq!(Contract::recognise(&load(&v1("json_object", body))), Some(Contract::V1_18));
        assert_eq!(Contract::recognise(&load(&v1("text", body))), None);
        assert_eq!(Contract::recognise(&load(&v1("json_object", "Answer with reason and score."))), None);
        // `scores`/`reasoning` are other words.
        let near = "Give reasoning, scores and a statusbar; skipped_items.";
        assert_eq!(Contract::recognise(&load(&v1("json_object", near))), None);
        let v2 = format!(
            "---\nname: x\nmodel:\n  id: m\n  options:\n    additionalProperties:\n      response_format:\n        type: json_object\n---\nsystem:\n{body}\n"
        );
        assert_eq!(Contract::recognise(&load(&v2)), Some(Contract::V1_18));
    }
}
