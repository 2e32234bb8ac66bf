//! A byte-pair encoding's table and the merges that count a piece's tokens.
//!
//! A table is built into the crate as the ranks' bytes in rank order, each token as one
//! length byte followed by its bytes (`tables/*.bin`, written from OpenAI's published
//! tables by `examples/write_tables.rs` and checked rank by rank against tiktoken-rs by the
//! tests). Loading one builds an index over it: where each token's bytes start, and an
//! open-addressing hash table from bytes to rank. Nothing is copied or allocated per token,
//! so the first count in a process costs a few milliseconds, not the tenths of a second a
//! map of owned byte strings costs.
//!
//! A piece (one match of the split pattern) that is a token is one token. Otherwise its
//! bytes are merged as the encoding defines: start from single bytes and merge, again and
//! again, the adjacent pair whose joined bytes have the lowest rank (the leftmost of equal
//! ones), until no adjacent pair joins into a token. The count is the number of parts
//! left. The pairs wait in a heap, so a long piece (a run of punctuation, a base64 blob)
//! costs `n log n`, not the `n²` of rescanning every pair after each merge.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// No rank in this slot.
const EMPTY: u64 = u64::MAX;

/// An encoding's ranks, indexed for lookup by bytes.
pub(crate) struct Table {
    blob: &'static [u8],
    /// Where the bytes of each rank start in `blob` (the length byte is just before).
    starts: Vec<u32>,
    /// Open addressing, linear probing: each slot holds a rank in the low 32 bits and the
    /// high 32 bits of its bytes' hash in the high ones (compared before the bytes are).
    slots: Vec<u64>,
    mask: usize,
}

impl Table {
    /// Indexes `blob` (length-prefixed tokens in rank order). `None` when the blob is not
    /// of that form (a truncated token), which the tests rule out for the tables built in.
    pub(crate) fn load(blob: &'static [u8]) -> Option<Self> {
        let mut starts = Vec::with_capacity(blob.len() / 6);
        let mut at = 0usize;
        while at < blob.len() {
            let len = usize::from(blob[at]);
            let start = at + 1;
            if len == 0 || start + len > blob.len() {
                return None;
            }
            starts.push(u32::try_from(start).ok()?);
            at = start + len;
        }
        let capacity = (starts.len() * 2).next_power_of_two().max(16);
        let mask = capacity - 1;
        let mut slots = vec![EMPTY; capacity];
        for (rank, &start) in starts.iter().enumerate() {
            let bytes = token_at(blob, start);
            let hash = hash(bytes);
            let mut i = (hash as usize) & mask;
            while slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            slots[i] = (hash & 0xffff_ffff_0000_0000) | rank as u64;
        }
        Some(Self { blob, starts, slots, mask })
    }

    /// The number of ranks.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.starts.len()
    }

    /// The bytes of `rank`.
    #[cfg(test)]
    pub(crate) fn bytes(&self, rank: u32) -> Option<&'static [u8]> {
        self.starts.get(rank as usize).map(|&start| token_at(self.blob, start))
    }

    /// The rank of the token whose bytes are `bytes`, if there is one.
    #[inline]
    pub(crate) fn rank(&self, bytes: &[u8]) -> Option<u32> {
        let hash = hash(bytes);
        let tag = hash & 0xffff_ffff_0000_0000;
        let mut i = (hash as usize) & self.mask;
        loop {
            let slot = self.slots[i];
            if slot == EMPTY {
                return None;
            }
            if slot & 0xffff_ffff_0000_0000 == tag {
                let rank = slot as u32;
                if token_at(self.blob, self.starts[rank as usize]) == bytes {
                    return Some(rank);
                }
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The number of tokens `piece` encodes to.
    pub(crate) fn count_piece(&self, piece: &[u8], scratch: &mut Scratch) -> usize {
        if piece.len() <= 1 || self.rank(piece).is_some() {
            return piece.len().min(1);
        }
        scratch.merge(self, piece)
    }
}

fn token_at(blob: &'static [u8], start: u32) -> &'static [u8] {
    let start = start as usize;
    &blob[start..start + usize::from(blob[start - 1])]
}

/// A 64-bit hash of a token's bytes: eight bytes at a time, multiplied and folded, then
/// mixed so that both the low bits (the slot) and the high ones (the tag) depend on every
/// byte.
#[inline]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        h = (h ^ word).wrapping_mul(K).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(K).rotate_left(29);
    }
    h ^= h >> 32;
    h = h.wrapping_mul(0xd6e8_feb8_6659_fd93);
    h ^ (h >> 29)
}

/// The buffers one count reuses from piece to piece: byte offsets held in 32 bits (half the
/// memory of a long piece's merges), in 64 for a piece of 4 GiB or more.
#[derive(Default)]
pub(crate) struct Scratch {
    narrow: Merges<u32>,
    wide: Merges<usize>,
}

impl Scratch {
    /// The number of parts `piece` (two bytes or more) ends in, merged as the encoding
    /// defines.
    fn merge(&mut self, table: &Table, piece: &[u8]) -> usize {
        if u32::try_from(piece.len()).is_ok_and(|n| n < u32::MAX) {
            self.narrow.merge(table, piece)
        } else {
            self.wide.merge(table, piece)
        }
    }
}

/// A byte offset into a piece.
trait Offset: Copy + Ord {
    /// No offset: a part absorbed by the one before it, or the first part's predecessor.
    const NONE: Self;
    fn at(i: usize) -> Self;
    fn get(self) -> usize;
}

impl Offset for u32 {
    const NONE: Self = u32::MAX;
    fn at(i: usize) -> Self {
        // Only pieces shorter than `u32::MAX` bytes use 32-bit offsets.
        i as u32
    }
    fn get(self) -> usize {
        self as usize
    }
}

impl Offset for usize {
    const NONE: Self = usize::MAX;
    fn at(i: usize) -> Self {
        i
    }
    fn get(self) -> usize {
        self
    }
}

/// The merges of one piece.
struct Merges<I> {
    /// For each byte offset that starts a part, the offset where the part ends (the next
    /// part's start); `NONE` for an offset inside a part.
    next: Vec<I>,
    /// For each offset that starts a part, the previous part's start (`NONE` for the first).
    prev: Vec<I>,
    /// Candidate merges: (rank of the joined bytes, start of the left part, end of the
    /// right part). An entry is stale when the parts have changed since it was pushed.
    heap: BinaryHeap<Reverse<(u32, I, I)>>,
}

impl<I> Default for Merges<I> {
    fn default() -> Self {
        Self { next: Vec::new(), prev: Vec::new(), heap: BinaryHeap::new() }
    }
}

impl<I: Offset> Merges<I> {
    fn merge(&mut self, table: &Table, piece: &[u8]) -> usize {
        let n = piece.len();
        self.next.clear();
        self.next.extend((1..=n).map(I::at));
        self.prev.clear();
        self.prev.push(I::NONE);
        self.prev.extend((0..n - 1).map(I::at));
        self.heap.clear();
        for i in 0..n - 1 {
            if let Some(rank) = table.rank(&piece[i..i + 2]) {
                self.heap.push(Reverse((rank, I::at(i), I::at(i + 2))));
            }
        }
        let mut parts = n;
        while let Some(Reverse((_, left, end))) = self.heap.pop() {
            let right = self.next[left.get()];
            // Stale: the left part was absorbed, or it or its right neighbour grew.
            if right == I::NONE || right.get() >= n || self.next[right.get()] != end {
                continue;
            }
            // Merge `right` into `left`.
            self.next[right.get()] = I::NONE;
            self.next[left.get()] = end;
            if end.get() < n {
                self.prev[end.get()] = left;
            }
            parts -= 1;
            let before = self.prev[left.get()];
            if before != I::NONE
                && let Some(rank) = table.rank(&piece[before.get()..end.get()])
            {
                self.heap.push(Reverse((rank, before, end)));
            }
            if end.get() < n {
                let after = self.next[end.get()];
                if let Some(rank) = table.rank(&piece[left.get()..after.get()]) {
                    self.heap.push(Reverse((rank, left, after)));
                }
            }
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use crate::Encoding;

    /// Every rank of the built-in tables has tiktoken-rs's bytes, the first rank past them
    /// is not an ordinary token there, and the index finds every rank by its bytes.
    #[test]
    fn the_tables_are_openais_rank_by_rank() {
        for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
            let table = encoding.tokenizer().table();
            let reference = encoding.tiktoken();
            let n = u32::try_from(table.len()).expect("fits");
            assert!(n > 100_000, "{}: {n} ranks", encoding.name());
            for rank in 0..n {
                let bytes = table.bytes(rank).expect("in the table");
                assert_eq!(
                    Some(bytes.to_vec()),
                    reference.decode_bytes(&[rank]).ok(),
                    "{} rank {rank}",
                    encoding.name()
                );
                assert_eq!(table.rank(bytes), Some(rank), "{} rank {rank} by its bytes", encoding.name());
            }
            let past = reference.decode_bytes(&[n]);
            assert!(
                past.as_ref().map_or(true, |b| reference.special_tokens().iter().any(|s| s.as_bytes() == b.as_slice())),
                "{}: rank {n} is an ordinary token the table lacks",
                encoding.name()
            );
            assert_eq!(table.rank(b""), None);
            assert_eq!(table.rank(b"<|endoftext|>"), None, "special tokens are not in the table");
        }
    }

    /// The 64-bit offsets (pieces of 4 GiB or more) merge as the 32-bit ones do.
    #[test]
    fn wide_offsets_merge_as_narrow_ones_do() {
        let table = Encoding::O200kBase.tokenizer().table();
        let mut rng = prompty_test_support::Rng::new(9);
        let (mut narrow, mut wide) = (super::Merges::<u32>::default(), super::Merges::<usize>::default());
        for _ in 0..300 {
            let len = 2 + rng.below(300);
            let piece: Vec<u8> = (0..len).map(|_| b"ab!= \xc3\xa9"[rng.below(7)]).collect();
            assert_eq!(narrow.merge(table, &piece), wide.merge(table, &piece), "{piece:?}");
        }
    }

    #[test]
    fn a_blob_that_is_not_length_prefixed_tokens_is_refused() {
        assert!(super::Table::load(b"\x03ab").is_none(), "truncated");
        assert!(super::Table::load(b"\x00").is_none(), "empty token");
        let table = super::Table::load(b"\x01a\x01b\x02ab").expect("three tokens");
        assert_eq!((table.rank(b"a"), table.rank(b"ab"), table.rank(b"ba")), (Some(0), Some(2), None));
    }
}
