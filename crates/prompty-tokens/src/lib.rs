//! Token counts of rendered `.prompty` messages, for the model a prompt names.
//!
//! - The OpenAI model families are counted exactly, with their own byte-pair encodings
//!   (`cl100k_base`, `o200k_base`; the tables are built into the crate, nothing is
//!   downloaded): see [`lookup`] for which model uses which.
//! - Any other model (Anthropic, open models, a deployment name that does not say its
//!   model) gets an estimate, labelled as such: [`Counting::Estimate`], one token per four
//!   bytes of text, rounded up.
//! - Known models carry their context window ([`ModelInfo::context_window`]), so that a
//!   caller can tell whether a request fits ([`RequestTokens::fit`]).
//!
//! Only text is counted: image and file parts, tool definitions and the tool calls a
//! message carries in its metadata are not, and [`MessageTokens::uncounted_parts`] says how
//! many parts were left out.
//!
//! The crate does no I/O.
//!
//! ```
//! use prompty_syntax::Message;
//!
//! let model = prompty_tokens::lookup("gpt-4o-mini");
//! assert_eq!(model.counting.name(), "o200k_base");
//! let messages = [Message::text("system", "Be brief."), Message::text("user", "hello world")];
//! let request = prompty_tokens::count_messages(&model, &messages);
//! assert_eq!(request.messages.len(), 2);
//! assert!(request.total > request.messages.iter().map(|m| m.tokens).sum::<usize>());
//! ```
#![warn(missing_docs)]

mod bpe;
mod index;
mod memo;
mod models;
mod split;

use prompty_syntax::{Message, Part, Prompt};
use serde::Serialize;

pub use models::{ModelInfo, lookup};

/// An OpenAI byte-pair encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// GPT-4, GPT-3.5 Turbo, the third-generation embeddings.
    Cl100kBase,
    /// GPT-4o, GPT-4.1, GPT-4.5, GPT-5, the o-series reasoning models.
    O200kBase,
}

impl Encoding {
    /// The encoding's name, as OpenAI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cl100kBase => "cl100k_base",
            Self::O200kBase => "o200k_base",
        }
    }

    /// The number of tokens `text` encodes to, special-token spellings read as plain text
    /// (as the API reads message content). The first call in a process builds the split
    /// pattern's automaton (about 1 ms for `cl100k_base`, 2 ms for `o200k_base` on the
    /// machine of docs/performance.md); the table and its index are part of the binary.
    ///
    /// The counts of long texts (4 KB or more) are remembered for the process, bounded in
    /// memory: counting the same text again (an editor after a change elsewhere in the
    /// prompt) finds the count instead of encoding the text again.
    pub fn count(self, text: &str) -> usize {
        memo::count(self, text, |t| self.count_uncached(t))
    }

    /// The count of `text`, encoded now even when it is remembered (what the benchmarks
    /// measure).
    #[doc(hidden)]
    pub fn count_uncached(self, text: &str) -> usize {
        self.tokenizer().count(text)
    }

    /// tiktoken-rs's implementation of the encoding, the reference of the tests.
    #[cfg(test)]
    fn tiktoken(self) -> &'static tiktoken_rs::CoreBPE {
        match self {
            Self::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Self::O200kBase => tiktoken_rs::o200k_base_singleton(),
        }
    }

    /// The encoding's tokenizer, built on first use.
    fn tokenizer(self) -> &'static split::Tokenizer {
        use std::sync::OnceLock;
        static CL100K: OnceLock<split::Tokenizer> = OnceLock::new();
        static O200K: OnceLock<split::Tokenizer> = OnceLock::new();
        // A table and the index the build script wrote for it.
        macro_rules! table {
            ($name:literal) => {
                bpe::Table::new(
                    include_bytes!(concat!("../tables/", $name, ".bin")),
                    include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".starts")),
                    include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".slots")),
                )
            };
        }
        let (cell, pattern) = match self {
            Self::Cl100kBase => (&CL100K, split::CL100K_PATTERN),
            Self::O200kBase => (&O200K, split::O200K_PATTERN),
        };
        cell.get_or_init(|| {
            let table = match self {
                Self::Cl100kBase => table!("cl100k_base"),
                Self::O200kBase => table!("o200k_base"),
            };
            table
                .and_then(|table| split::Tokenizer::new(pattern, table))
                .expect("the built-in patterns and tables build (bpe.rs: the_tables_are_openais_rank_by_rank)")
        })
    }
}

/// How a model's tokens are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    /// Exactly, with the model's own encoding.
    Exact(Encoding),
    /// An estimate for a model whose tokenizer is not built in: one token per four bytes of
    /// text, rounded up, with no per-message framing.
    Estimate,
}

impl Counting {
    /// The encoding's name, or `estimate`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Exact(e) => e.name(),
            Self::Estimate => "estimate",
        }
    }

    /// Whether the counts are exact.
    pub fn is_exact(self) -> bool {
        matches!(self, Self::Exact(_))
    }

    /// The tokens of `text` alone.
    pub fn count(self, text: &str) -> usize {
        match self {
            Self::Exact(e) => e.count(text),
            Self::Estimate => text.len().div_ceil(4),
        }
    }
}

impl Serialize for Counting {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// The framing a chat request adds to each message, in tokens (exact counting only).
///
/// OpenAI's rule for its chat models (the `gpt-3.5-turbo-0613` generation on, the GPT-4o,
/// GPT-4.1, GPT-5 and o-series families included): each message costs 3 tokens beside the
/// tokens of its role and content; a message with a `name` costs 1 more plus the tokens of
/// the name; and every request adds 3 tokens that prime the reply (`<|start|>assistant<|message|>`).
pub const TOKENS_PER_MESSAGE: usize = 3;
/// The extra token of a message with a `name` (exact counting only).
pub const TOKENS_PER_NAME: usize = 1;
/// The tokens every chat request adds to prime the reply (exact counting only).
pub const REPLY_PRIMING: usize = 3;

/// One message's tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageTokens {
    /// The message's role.
    pub role: String,
    /// Its tokens: with exact counting, its text parts (as one text), role, name and framing
    /// ([`TOKENS_PER_MESSAGE`]); with an estimate, its text only.
    pub tokens: usize,
    /// The parts that are not text (images, files, thread placeholders): not counted.
    #[serde(skip_serializing_if = "is_zero")]
    pub uncounted_parts: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The tokens of one chat request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestTokens {
    /// The model counted for (as the prompt names it; empty when it names none).
    pub model: String,
    /// How: an encoding's name, or `estimate`.
    pub counting: Counting,
    /// Each message's tokens, in order.
    pub messages: Vec<MessageTokens>,
    /// The whole request: the messages and, with exact counting, the reply priming
    /// ([`REPLY_PRIMING`]).
    pub total: usize,
    /// The model's context window, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

/// Whether a request fits its model's context window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// The model's window is not known.
    Unknown,
    /// It fits, and leaves `left` tokens (at least the answer's budget) for the answer.
    Fits {
        /// Tokens left in the window.
        left: u64,
    },
    /// It fits, but leaves fewer tokens than the answer's budget (`maxOutputTokens`).
    ShortOfOutput {
        /// Tokens left in the window.
        left: u64,
        /// The answer's budget.
        wanted: u64,
    },
    /// It does not fit: the request is `over` tokens longer than the window.
    Exceeds {
        /// Tokens beyond the window.
        over: u64,
    },
}

impl RequestTokens {
    /// Whether this request fits its model's window, leaving `max_output_tokens` (when
    /// given) for the answer.
    pub fn fit(&self, max_output_tokens: Option<u64>) -> Fit {
        let Some(window) = self.context_window else { return Fit::Unknown };
        let total = self.total as u64;
        if total > window {
            return Fit::Exceeds { over: total - window };
        }
        let left = window - total;
        match max_output_tokens {
            Some(wanted) if wanted > left => Fit::ShortOfOutput { left, wanted },
            _ => Fit::Fits { left },
        }
    }
}

/// The tokens of `messages` sent to `model` as one chat request.
pub fn count_messages(model: &ModelInfo, messages: &[Message]) -> RequestTokens {
    let counting = model.counting;
    let counted: Vec<MessageTokens> = messages.iter().map(|m| count_message(counting, m)).collect();
    let framing = if counting.is_exact() { REPLY_PRIMING } else { 0 };
    let total = counted.iter().map(|m| m.tokens).sum::<usize>() + framing;
    RequestTokens { model: model.id.clone(), counting, messages: counted, total, context_window: model.context_window }
}

/// A bound no count of `messages` for `model` exceeds ([`count_messages`]'s `total`), found
/// without the tokenizer: every token of a byte-pair encoding stands for at least one byte of
/// text, so a text has at most as many tokens as bytes, and the framing is added as counted.
///
/// A request whose bound fits the window fits; callers that only need to know that (a lint
/// rule over many files) skip loading the tables (a few milliseconds per process, and the text not encoded).
pub fn upper_bound(model: &ModelInfo, messages: &[Message]) -> usize {
    let counting = model.counting;
    let framing = if counting.is_exact() { REPLY_PRIMING } else { 0 };
    messages
        .iter()
        .map(|m| {
            let text: usize =
                m.content.iter().map(|p| if let Part::Text { value } = p { value.len() } else { 0 }).sum();
            match counting {
                Counting::Estimate => counting.count(&m.text_content()),
                Counting::Exact(_) => {
                    let name = m.metadata.get("name").and_then(|v| v.as_str()).map_or(0, |n| TOKENS_PER_NAME + n.len());
                    text + TOKENS_PER_MESSAGE + m.role.len() + name
                }
            }
        })
        .sum::<usize>()
        + framing
}

/// One message's tokens (see [`MessageTokens::tokens`]).
pub fn count_message(counting: Counting, message: &Message) -> MessageTokens {
    // The text parts as one text, as a request with text only sends them.
    let mut tokens = counting.count(&message.text_content());
    let uncounted_parts = message.content.iter().filter(|p| !matches!(p, Part::Text { .. })).count();
    if counting.is_exact() {
        tokens += TOKENS_PER_MESSAGE + counting.count(&message.role);
        if let Some(name) = message.metadata.get("name").and_then(|v| v.as_str()) {
            tokens += TOKENS_PER_NAME + counting.count(name);
        }
    }
    MessageTokens { role: message.role.clone(), tokens, uncounted_parts }
}

/// The model `prompt` is counted for: the first of `model.id`, the v1
/// `model.configuration.model` and `model.configuration.azure_deployment` that names a known
/// model; when none does, the first one given (or none), counted with an estimate.
///
/// An Azure deployment name need not say its model (`my-chat`): a v1 file that also gives
/// `configuration.model` is counted for that model.
pub fn prompt_model(prompt: &Prompt) -> ModelInfo {
    let config = |key: &str| {
        prompt
            .legacy
            .as_ref()
            .and_then(|l| l.configuration.as_ref())
            .and_then(|c| c.get(key))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    let candidates: Vec<String> =
        [prompt.model.as_ref().map(|m| m.id.clone()), config("model"), config("azure_deployment")]
            .into_iter()
            .flatten()
            .filter(|id| !id.trim().is_empty())
            .collect();
    candidates
        .iter()
        .map(|id| lookup(id))
        .find(|m| m.counting.is_exact())
        .unwrap_or_else(|| candidates.first().map_or_else(|| lookup(""), |id| lookup(id)))
}

/// The answer's budget the prompt asks for, when positive: `model.options.maxOutputTokens`
/// (v1: `model.parameters.max_tokens`), else a `max_completion_tokens` or `max_tokens` the
/// request sends as written from `options.additionalProperties`.
pub fn max_output_tokens(prompt: &Prompt) -> Option<u64> {
    let options = prompt.model.as_ref()?.options.as_ref()?;
    let extra = |key: &str| options.additional_properties.as_ref()?.get(key)?.as_u64();
    options
        .max_output_tokens
        .and_then(|n| u64::try_from(n).ok())
        .or_else(|| extra("max_completion_tokens"))
        .or_else(|| extra("max_tokens"))
        .filter(|n| *n > 0)
}
