//! Counts of long texts, remembered for the life of the process.
//!
//! An editor counts the same prompt again after every keystroke, and a change touches one
//! message of it: the other messages' texts are the same strings, and their counts are
//! found here instead of encoded again (a byte-pair encoding costs a few hundred
//! instructions per byte; a lookup hashes and compares the text, about one).
//!
//! Only texts of [`MIN_LEN`] bytes or more are kept, with a copy of the text as the key
//! (never a hash alone), so a count found here is the count of exactly that text. Memory is
//! bounded: two generations of at most [`GENERATION_BYTES`] of text each; when the newer one
//! is full it becomes the older and the older is dropped, so a text in use stays (a hit in
//! the older generation moves it to the newer).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::Encoding;

/// Texts shorter than this are counted every time (the count costs little, and a prompt
/// of short messages would fill the memo for nothing).
pub(crate) const MIN_LEN: usize = 4096;
/// Bytes of text one generation holds.
pub(crate) const GENERATION_BYTES: usize = 16 << 20;

/// One generation: the counts of each encoding (indexed by [`slot`]), keyed by the text, and
/// the bytes of text they hold.
#[derive(Default)]
struct Generation {
    counts: [HashMap<Box<str>, usize>; 2],
    bytes: usize,
}

fn slot(encoding: Encoding) -> usize {
    match encoding {
        Encoding::Cl100kBase => 0,
        Encoding::O200kBase => 1,
    }
}

#[derive(Default)]
struct Memo {
    newer: Generation,
    older: Generation,
}

static MEMO: Mutex<Option<Memo>> = Mutex::new(None);

/// The count of `text` in `encoding`: remembered, or computed by `count` and remembered.
pub(crate) fn count(encoding: Encoding, text: &str, count: impl FnOnce(&str) -> usize) -> usize {
    // A text no generation can hold is counted every time, and never copied.
    if !(MIN_LEN..=GENERATION_BYTES).contains(&text.len()) {
        return count(text);
    }
    if let Some(n) = lookup(encoding, text) {
        return n;
    }
    // Counted outside the lock: other threads count their own texts meanwhile.
    let n = count(text);
    let mut guard = MEMO.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let memo = guard.get_or_insert_with(Memo::default);
    insert(memo, encoding, text.into(), n);
    n
}

fn lookup(encoding: Encoding, text: &str) -> Option<usize> {
    let mut guard = MEMO.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let memo = guard.as_mut()?;
    let i = slot(encoding);
    if let Some(&n) = memo.newer.counts[i].get(text) {
        return Some(n);
    }
    let (text, n) = memo.older.counts[i].remove_entry(text)?;
    memo.older.bytes -= text.len();
    insert(memo, encoding, text, n);
    Some(n)
}

fn insert(memo: &mut Memo, encoding: Encoding, text: Box<str>, n: usize) {
    let len = text.len();
    if len > GENERATION_BYTES {
        return;
    }
    if memo.newer.bytes + len > GENERATION_BYTES {
        memo.older = std::mem::take(&mut memo.newer);
    }
    if memo.newer.counts[slot(encoding)].insert(text, n).is_none() {
        memo.newer.bytes += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_count_is_the_count_of_that_very_text() {
        let long = "word ".repeat(2000);
        let mut other = long.clone();
        other.replace_range(5000..5004, "wxrd");
        let first = count(Encoding::O200kBase, &long, |t| Encoding::O200kBase.count_uncached(t));
        // Found without counting.
        assert_eq!(count(Encoding::O200kBase, &long, |_| unreachable!("counted again")), first);
        // A text of the same length that differs in one word is counted.
        let mut counted = false;
        let n = count(Encoding::O200kBase, &other, |t| {
            counted = true;
            Encoding::O200kBase.count_uncached(t)
        });
        assert!(counted);
        assert_eq!(n, Encoding::O200kBase.count_uncached(&other));
        // The other encoding's count of the same text is its own.
        assert_eq!(
            count(Encoding::Cl100kBase, &long, |t| Encoding::Cl100kBase.count_uncached(t)),
            Encoding::Cl100kBase.count_uncached(&long)
        );
    }

    #[test]
    fn memory_stays_within_two_generations() {
        let mut memo = Memo::default();
        let text = "x".repeat(MIN_LEN);
        for i in 0..(3 * GENERATION_BYTES / MIN_LEN) {
            let mut t = text.clone();
            t.replace_range(..8, &format!("{i:08}"));
            insert(&mut memo, Encoding::O200kBase, t.into_boxed_str(), i);
            assert!(memo.newer.bytes <= GENERATION_BYTES && memo.older.bytes <= GENERATION_BYTES);
        }
        assert_eq!(memo.newer.counts[slot(Encoding::O200kBase)].len() * MIN_LEN, memo.newer.bytes);
    }
}
