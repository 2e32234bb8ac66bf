//! The split of a text into pieces before the byte-pair merges, and the count of a text.
//!
//! Each encoding splits its input with a pattern (OpenAI's, as tiktoken publishes it): words
//! with their leading space or punctuation mark, runs of up to three digits, runs of
//! punctuation, line breaks with the spaces before them, other whitespace. One alternative
//! of both patterns, `\s+(?!\S)`, looks ahead: a run of whitespace followed by a word gives
//! up its last character to that word (`"a  b"` splits as `"a"`, `" "`, `" b"`). Automata
//! cannot look ahead, so the pattern here has `\s+` in its place and the match is
//! shortened afterwards: a match that ends in whitespace other than a line break, before
//! the end of the text, came from that alternative (every other one ends in a character
//! that is not whitespace, or in a line break, or at the end of the text), and loses its
//! last character when it has two or more.
//!
//! Every character starts a match of some alternative, so the pieces tile the text: each
//! search is anchored where the previous piece ended and only runs forward.
//!
//! A long text (256 KiB or more) is counted in parallel, in chunks cut just after a line
//! feed that is followed by an ASCII letter. No piece crosses such a cut, so the pieces of
//! the chunks are the pieces of the text: a piece that contains a line feed ends at the
//! last line break of its run (the whitespace alternatives stop there, and the punctuation
//! alternative's trailing `[\r\n]*` or `[\r\n/]*` stops at a letter), and the letter
//! alternatives' optional first character is never a line break.

use std::sync::{Mutex, OnceLock};

use regex_automata::hybrid::dfa::{Cache, Config, DFA};
use regex_automata::{Anchored, Input};

use crate::bpe::{Scratch, Table};

/// `cl100k_base`'s pattern, the look-ahead alternative `\s+(?!\S)` replaced by `\s+` (see
/// the module's documentation), which also covers the pattern's last alternative, a single
/// `\s`. Whitespace running to the end of the text is one piece; otherwise a run with a line
/// break ends at its last line break.
pub(crate) const CL100K_PATTERN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)",
    r"|[^\r\n\p{L}\p{N}]?\p{L}+",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"|\s+$",
    r"|\s*[\r\n]",
    r"|\s+",
);

/// `o200k_base`'s pattern, the look-ahead alternative replaced the same way: words split
/// at case changes (an upper-case run, then lower case), contractions kept with their word.
pub(crate) const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+",
);

/// Texts at least this long are counted in parallel chunks.
pub(crate) const PARALLEL_MIN: usize = 256 << 10;

/// An encoding: its split pattern and its table.
pub(crate) struct Tokenizer {
    /// The pattern as a forward lazy DFA: each search is anchored where the previous piece
    /// ended, so only the end of a match is needed (no reverse automaton, and no engine
    /// that finds where a match starts).
    pattern: DFA,
    /// Search caches (the lazy automaton's states, built as searches meet them) for the
    /// counts to come: creating one costs more than counting a short text, so a count takes
    /// one from here, or creates one, and puts it back when done. One lock per count, none
    /// per search, and a thread spawned for a chunk of a long text finds a warm cache.
    caches: Mutex<Vec<Cache>>,
    table: Table,
    /// The pattern's text, and the pattern as a regex that cannot give up, built the first
    /// time a search of the lazy DFA fails. With the configuration of [`Tokenizer::new`] none
    /// can (the DFA never gives up on a cache that fills, and neither pattern has a word
    /// boundary that would make it quit), but a count must not depend on it.
    source: &'static str,
    fallback: OnceLock<Option<regex_automata::meta::Regex>>,
}

impl Tokenizer {
    /// The tokenizer of `pattern` and `table`; `None` when the pattern does not build (the
    /// tests build both encodings, so this is never `None` for them).
    pub(crate) fn new(pattern: &'static str, table: Table) -> Option<Self> {
        Self::with_config(pattern, table, DFA::config())
    }

    /// [`new`](Self::new) with the lazy DFA configured by `config`.
    fn with_config(pattern: &'static str, table: Table, config: Config) -> Option<Self> {
        let dfa = DFA::builder().configure(config).build(pattern).ok()?;
        Some(Self { pattern: dfa, caches: Mutex::default(), table, source: pattern, fallback: OnceLock::new() })
    }

    /// The end of the match of the pattern that starts at `at` in `text`, by the regex that
    /// cannot give up (see `fallback`).
    #[cold]
    fn match_end_by_fallback(&self, text: &str, at: usize) -> Option<usize> {
        let regex = self.fallback.get_or_init(|| regex_automata::meta::Regex::new(self.source).ok()).as_ref()?;
        regex.search(&Input::new(text).range(at..).anchored(Anchored::Yes)).map(|m| m.end())
    }

    #[cfg(test)]
    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    /// The number of tokens `text` encodes to.
    pub(crate) fn count(&self, text: &str) -> usize {
        let threads = if text.len() >= PARALLEL_MIN {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get).min(text.len() / (PARALLEL_MIN / 2))
        } else {
            1
        };
        if threads <= 1 {
            return self.count_serial(text);
        }
        let chunks = chunks(text, threads);
        std::thread::scope(|scope| {
            let spawned: Vec<_> = chunks[1..]
                .iter()
                .map(|&chunk| {
                    (chunk, std::thread::Builder::new().spawn_scoped(scope, move || self.count_serial(chunk)))
                })
                .collect();
            let mut total = self.count_serial(chunks[0]);
            for (chunk, handle) in spawned {
                total += match handle {
                    Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    // No thread to be had (a sandbox, a limit): counted here instead.
                    Err(_) => self.count_serial(chunk),
                };
            }
            total
        })
    }

    /// The count of `text` on this thread.
    pub(crate) fn count_serial(&self, text: &str) -> usize {
        let mut scratch = Scratch::for_text(text.len());
        self.with_pieces(text, |pieces| {
            pieces.map(|piece| self.table.count_piece(piece.as_bytes(), &mut scratch)).sum()
        })
    }

    /// The pieces of `text`, in order.
    #[cfg(test)]
    pub(crate) fn pieces<'t>(&self, text: &'t str) -> Vec<&'t str> {
        self.with_pieces(text, |pieces| pieces.collect())
    }

    /// `f` over the pieces of `text`, searched with a cache taken from `caches` (or created)
    /// and put back afterwards.
    fn with_pieces<'t, R>(&self, text: &'t str, f: impl FnOnce(Pieces<'_, '_, 't>) -> R) -> R {
        let kept = self.caches.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop();
        let mut cache = kept.unwrap_or_else(|| self.pattern.create_cache());
        let out = f(Pieces { tokenizer: self, cache: &mut cache, text, at: 0 });
        self.caches.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(cache);
        out
    }
}

/// `text` cut into at most `n` chunks, each cut just after a line feed that an ASCII letter
/// follows (fewer chunks when there are fewer such places).
pub(crate) fn chunks(text: &str, n: usize) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 1..n {
        let ideal = (text.len() / n * i).max(start);
        let Some(cut) =
            bytes[ideal..].windows(2).position(|w| w[0] == b'\n' && w[1].is_ascii_alphabetic()).map(|p| ideal + p + 1)
        else {
            break;
        };
        out.push(&text[start..cut]);
        start = cut;
    }
    out.push(&text[start..]);
    out
}

/// The pieces of a text, in order.
struct Pieces<'r, 'c, 't> {
    tokenizer: &'r Tokenizer,
    cache: &'c mut Cache,
    text: &'t str,
    at: usize,
}

impl<'t> Iterator for Pieces<'_, '_, 't> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        let text = self.text;
        let at = self.at;
        if at >= text.len() {
            return None;
        }
        let input = Input::new(text).range(at..).anchored(Anchored::Yes);
        let found = match self.tokenizer.pattern.try_search_fwd(self.cache, &input) {
            Ok(m) => m.map(|m| m.offset()),
            Err(_) => self.tokenizer.match_end_by_fallback(text, at),
        };
        let mut end = match found {
            Some(end) if end > at => end,
            // Every character starts a match; were one not to, it is a piece of its own
            // rather than a stop.
            _ => at + text[at..].chars().next().map_or(1, char::len_utf8),
        };
        if end < text.len() {
            let mut back = text[at..end].chars().rev();
            if let (Some(last), Some(_)) = (back.next(), back.next())
                && last.is_whitespace()
                && last != '\n'
                && last != '\r'
            {
                end -= last.len_utf8();
            }
        }
        self.at = end;
        Some(&text[at..end])
    }
}

#[cfg(test)]
mod tests {
    use super::chunks;
    use crate::Encoding;

    const ENCODINGS: [Encoding; 2] = [Encoding::Cl100kBase, Encoding::O200kBase];

    /// The look-ahead emulated: a whitespace run before a word gives its last character to
    /// the word, and keeps it at the end of the text.
    #[test]
    fn whitespace_before_a_word_gives_its_last_character_to_the_word() {
        for encoding in ENCODINGS {
            let tokenizer = encoding.tokenizer();
            assert_eq!(tokenizer.pieces("a   b"), ["a", "  ", " b"], "{}", encoding.name());
            assert_eq!(tokenizer.pieces("a \u{3000}b"), ["a", " ", "\u{3000}b"], "{}", encoding.name());
            assert_eq!(tokenizer.pieces("a b"), ["a", " b"], "{}", encoding.name());
            assert_eq!(tokenizer.pieces("a   "), ["a", "   "], "{}", encoding.name());
            assert_eq!(tokenizer.pieces("a  \n  b"), ["a", "  \n", " ", " b"], "{}", encoding.name());
        }
    }

    /// A lazy DFA that gives up (a cache too small for its states, which it may not clear)
    /// leaves the search to the fallback regex, and the pieces are the same.
    #[test]
    fn a_search_that_gives_up_is_finished_by_the_fallback() {
        use regex_automata::hybrid::dfa::DFA;
        let tables: [(&str, &'static [u8]); 2] = [
            (super::CL100K_PATTERN, include_bytes!("../tables/cl100k_base.bin")),
            (super::O200K_PATTERN, include_bytes!("../tables/o200k_base.bin")),
        ];
        let mut texts: Vec<String> = prompty_test_support::prompt_files()
            .iter()
            .map(|p| std::fs::read_to_string(p).expect("readable"))
            .collect();
        texts.push("a   b\r\n\t 'll 123456 日本 🙂 x\u{301} ?/ .\n \u{3000}b  ".repeat(50));
        for ((pattern, blob), encoding) in tables.into_iter().zip(ENCODINGS) {
            let config =
                DFA::config().cache_capacity(0).skip_cache_capacity_check(true).minimum_cache_clear_count(Some(0));
            let table = crate::bpe::Table::load(blob).expect("the table");
            let giving_up = super::Tokenizer::with_config(pattern, table, config).expect("builds");
            let reference = encoding.tokenizer();
            for text in &texts {
                assert_eq!(giving_up.pieces(text), reference.pieces(text), "{}", encoding.name());
            }
            assert!(giving_up.fallback.get().is_some_and(Option::is_some), "{}: the fallback ran", encoding.name());
            assert!(reference.fallback.get().is_none(), "{}: the configured DFA never gave up", encoding.name());
        }
    }

    /// The counts are tiktoken-rs's (its look-ahead pattern, run by a backtracking engine),
    /// on the corpus and on texts made of the split patterns' edge cases.
    #[test]
    fn counts_of_the_split_edge_cases_are_tiktokens() {
        let mut texts: Vec<String> = prompty_test_support::prompt_files()
            .iter()
            .map(|p| std::fs::read_to_string(p).expect("readable"))
            .collect();
        let mut rng = prompty_test_support::Rng::new(7);
        let atoms = [
            " ", "  ", "\t", "\n", "\r\n", "\u{a0}", "\u{3000}", "\u{85}", "a", "B", "é", "'s", "'S", "'ſ", "'ll", "1",
            "123456", "!", "?/", "/", ".\n", "日本", "🙂", "x\u{301}", "Ab", "aB",
        ];
        for _ in 0..2000 {
            let n = 1 + rng.below(10);
            texts.push((0..n).map(|_| atoms[rng.below(atoms.len())]).collect());
        }
        for encoding in ENCODINGS {
            let tokenizer = encoding.tokenizer();
            let reference = encoding.tiktoken();
            for text in &texts {
                assert_eq!(
                    tokenizer.count(text),
                    reference.encode_ordinary(text).len(),
                    "{text:?} in {}",
                    encoding.name()
                );
            }
        }
    }

    /// A text cut into chunks splits into the same pieces as the whole text.
    #[test]
    fn chunks_split_as_the_whole_text_does() {
        let corpus: String = prompty_test_support::prompt_files()
            .iter()
            .map(|p| std::fs::read_to_string(p).expect("readable"))
            .collect();
        for encoding in ENCODINGS {
            let tokenizer = encoding.tokenizer();
            let whole = tokenizer.pieces(&corpus);
            for n in [2, 3, 7, 64] {
                let parts = chunks(&corpus, n);
                assert_eq!(parts.concat(), corpus);
                assert!(parts.len() > 1, "the corpus has places to cut");
                let pieces: Vec<&str> = parts.iter().flat_map(|c| tokenizer.pieces(c)).collect();
                assert_eq!(pieces, whole, "{} in {n} chunks", encoding.name());
            }
        }
        assert_eq!(chunks("no line feed", 4), ["no line feed"]);
        assert_eq!(chunks("a\nb", 2), ["a\n", "b"]);
    }
}
