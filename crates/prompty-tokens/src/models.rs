//! Which encoding each OpenAI model family uses, and the context windows of known models.
//!
//! Our own table. Encodings: the model-to-encoding mapping OpenAI publishes with its
//! tokenizer (`tiktoken`'s model table): `o200k_base` for GPT-4o, GPT-4.1, GPT-4.5, GPT-5
//! and the o-series, `cl100k_base` for GPT-4, GPT-3.5 Turbo and the embedding models.
//! Context windows (input and output together): OpenAI's model pages, as of late 2025.

use crate::{Counting, Encoding};

/// What is known of a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// The model as named (trimmed).
    pub id: String,
    /// How its tokens are counted.
    pub counting: Counting,
    /// Its context window in tokens, input and output together, when known.
    pub context_window: Option<u64>,
}

use Encoding::{Cl100kBase as CL, O200kBase as O2};

/// `(name, encoding, context window)`. A model matches the longest name that is its whole
/// id or is followed in it by `-` or `.` (`gpt-4o-2024-08-06`, `gpt-5.1`).
const MODELS: &[(&str, Encoding, u64)] = &[
    ("gpt-5", O2, 400_000),
    ("gpt-5-chat", O2, 128_000),
    ("gpt-4.1", O2, 1_047_576),
    ("gpt-4.5", O2, 128_000),
    ("gpt-4o", O2, 128_000),
    ("chatgpt-4o", O2, 128_000),
    ("o1", O2, 200_000),
    ("o1-mini", O2, 128_000),
    ("o1-preview", O2, 128_000),
    ("o3", O2, 200_000),
    ("o4-mini", O2, 200_000),
    ("gpt-4", CL, 8_192),
    ("gpt-4-32k", CL, 32_768),
    ("gpt-4-turbo", CL, 128_000),
    ("gpt-4-1106", CL, 128_000),
    ("gpt-4-0125", CL, 128_000),
    ("gpt-4-vision", CL, 128_000),
    ("gpt-3.5-turbo", CL, 16_385),
    ("gpt-3.5-turbo-0301", CL, 4_096),
    ("gpt-3.5-turbo-0613", CL, 4_096),
    ("gpt-3.5-turbo-instruct", CL, 4_096),
    ("text-embedding-3-small", CL, 8_191),
    ("text-embedding-3-large", CL, 8_191),
    ("text-embedding-ada-002", CL, 8_191),
];

/// What is known of the model `id`: its encoding and context window for the OpenAI
/// families, an estimate and no window for anything else.
///
/// The id is read case-insensitively, after the last `/` (`openai/gpt-4o`), with Azure's
/// `gpt-35-turbo` spelling read as `gpt-3.5-turbo`; dated snapshots match their family
/// (`gpt-4o-2024-08-06` is `gpt-4o`).
pub fn lookup(id: &str) -> ModelInfo {
    let id = id.trim();
    let mut name = id.rsplit('/').next().unwrap_or(id).to_ascii_lowercase();
    if let Some(rest) = name.strip_prefix("gpt-35-") {
        name = format!("gpt-3.5-{rest}");
    }
    let best = MODELS
        .iter()
        .filter(|(family, _, _)| {
            name.strip_prefix(family).is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.']))
        })
        .max_by_key(|(family, _, _)| family.len());
    match best {
        Some(&(_, encoding, window)) => {
            ModelInfo { id: id.to_owned(), counting: Counting::Exact(encoding), context_window: Some(window) }
        }
        None => ModelInfo { id: id.to_owned(), counting: Counting::Estimate, context_window: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(id: &str) -> Option<u64> {
        lookup(id).context_window
    }

    #[test]
    fn families_and_snapshots_find_their_encoding() {
        for (id, encoding) in [
            ("gpt-4o", "o200k_base"),
            ("gpt-4o-2024-08-06", "o200k_base"),
            ("GPT-4o-mini", "o200k_base"),
            ("openai/gpt-4.1-nano", "o200k_base"),
            ("o3-mini", "o200k_base"),
            ("o1", "o200k_base"),
            ("gpt-5.1", "o200k_base"),
            ("gpt-4", "cl100k_base"),
            ("gpt-4-0613", "cl100k_base"),
            ("gpt-35-turbo", "cl100k_base"),
            ("text-embedding-3-small", "cl100k_base"),
        ] {
            assert_eq!(lookup(id).counting.name(), encoding, "{id}");
        }
    }

    #[test]
    fn the_longest_family_wins() {
        assert_eq!(window("gpt-4"), Some(8_192));
        assert_eq!(window("gpt-4-turbo-2024-04-09"), Some(128_000));
        assert_eq!(window("gpt-4o-mini"), Some(128_000));
        assert_eq!(window("gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(window("o1-mini"), Some(128_000));
        assert_eq!(window("o1-2024-12-17"), Some(200_000));
        assert_eq!(window("gpt-5-chat-latest"), Some(128_000));
        assert_eq!(window("gpt-3.5-turbo-0613"), Some(4_096));
    }

    #[test]
    fn other_models_are_estimated_without_a_window() {
        for id in ["claude-sonnet-4-5", "my-chat-deployment", "gpt-4ox", "o10", "", "llama-3.1-70b"] {
            let m = lookup(id);
            assert_eq!((m.counting, m.context_window), (Counting::Estimate, None), "{id}");
        }
    }
}
