//! A byte-pair encoding's table and the merges that count a piece's tokens.
//!
//! A table is built into the crate as the ranks' bytes in rank order, each token as one
//! length byte followed by its bytes (`tables/*.bin`, written from OpenAI's published
//! tables by `examples/write_tables.rs` and checked rank by rank against tiktoken-rs by the
//! tests). Its index (where each token's bytes start, and an open-addressing hash table
//! from bytes to rank; src/index.rs) is built with the crate by its build script and read
//! from the binary's image: the first count in a process builds nothing, and only the pages
//! of the index that the count touches are read in.
//!
//! A piece (one match of the split pattern) that is a token is one token. Otherwise its
//! bytes are merged as the encoding defines: start from single bytes and merge, again and
//! again, the adjacent pair whose joined bytes have the lowest rank (the leftmost of equal
//! ones), until no adjacent pair joins into a token. The count is the number of parts
//! left. The pairs wait in a heap, so a long piece (a run of punctuation, a base64 blob)
//! costs `n log n`, not the `n²` of rescanning every pair after each merge.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::index::{EMPTY, RANK_MASK, hash, tag};

/// An encoding's ranks, indexed for lookup by bytes (src/index.rs: the index's form).
pub(crate) struct Table {
    blob: &'static [u8],
    /// Little-endian `u32`s: where the bytes of each rank start in `blob`.
    starts: &'static [u8],
    /// Little-endian `u32`s: the hash table's slots, a power of two of them.
    slots: &'static [u8],
    mask: usize,
}

impl Table {
    /// The table `blob` with its index (`starts`, `slots`, as `index::build` writes them).
    /// `None` when the index is not of that form; the tests compare the built-in indexes
    /// with the index built again from their tables.
    pub(crate) fn new(blob: &'static [u8], starts: &'static [u8], slots: &'static [u8]) -> Option<Self> {
        let capacity = slots.len() / 4;
        let well_formed = starts.len().is_multiple_of(4)
            && slots.len().is_multiple_of(4)
            && capacity.is_power_of_two()
            && starts.len() / 4 < capacity
            && starts.len() / 4 < RANK_MASK as usize;
        well_formed.then_some(Self { blob, starts, slots, mask: capacity - 1 })
    }

    /// Indexes `blob` (length-prefixed tokens in rank order) here, as the build script does.
    #[cfg(test)]
    pub(crate) fn load(blob: &'static [u8]) -> Option<Self> {
        let (starts, slots) = crate::index::build(blob)?;
        Self::new(blob, Vec::leak(starts), Vec::leak(slots))
    }

    /// The number of ranks.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.starts.len() / 4
    }

    /// The bytes of `rank`.
    #[inline]
    pub(crate) fn bytes(&self, rank: u32) -> Option<&'static [u8]> {
        let at = rank as usize * 4;
        let start = u32::from_le_bytes(self.starts.get(at..at + 4)?.try_into().ok()?) as usize;
        let len = usize::from(*self.blob.get(start.checked_sub(1)?)?);
        self.blob.get(start..start + len)
    }

    /// The rank of the token whose bytes are `bytes`, if there is one.
    #[inline]
    pub(crate) fn rank(&self, bytes: &[u8]) -> Option<u32> {
        self.rank_hashed(bytes, hash(bytes))
    }

    /// [`rank`](Self::rank), with `bytes`' hash computed already. At most one pass over the
    /// slots: an index without an empty slot (which the built-in ones have) does not make
    /// the probe run forever.
    #[inline]
    fn rank_hashed(&self, bytes: &[u8], hash: u64) -> Option<u32> {
        let tag = tag(hash);
        let mut i = (hash as usize) & self.mask;
        for _ in 0..=self.mask {
            let at = i * 4;
            let slot = u32::from_le_bytes(self.slots.get(at..at + 4)?.try_into().ok()?);
            if slot == EMPTY {
                return None;
            }
            if slot & !RANK_MASK == tag {
                let rank = slot & RANK_MASK;
                if self.bytes(rank) == Some(bytes) {
                    return Some(rank);
                }
            }
            i = (i + 1) & self.mask;
        }
        None
    }

    /// The number of tokens `piece` encodes to.
    pub(crate) fn count_piece(&self, piece: &[u8], scratch: &mut Scratch) -> usize {
        if piece.len() <= 1 {
            return piece.len();
        }
        let hash = hash(piece);
        if self.rank_hashed(piece, hash).is_some() {
            return 1;
        }
        if let Some(count) = scratch.seen.count(piece, hash) {
            return count;
        }
        let count = scratch.merge(self, piece);
        scratch.seen.remember(piece, hash, count);
        count
    }
}

/// The buffers one count reuses from piece to piece: byte offsets held in 32 bits (half the
/// memory of a long piece's merges), in 64 for a piece of 4 GiB or more; and the counts of
/// the short pieces merged so far.
#[derive(Default)]
pub(crate) struct Scratch {
    narrow: Merges<u32>,
    wide: Merges<usize>,
    seen: Seen,
}

/// The counts of pieces that are not one token, by their bytes: a word of another script, an
/// emoji or a name that comes back in a text is not merged again. Direct-mapped by the
/// pieces' hash (a piece that lands on a remembered one's entry takes its place); a piece is
/// only taken for a remembered one when their bytes are equal, so a count never depends on
/// what was remembered.
#[derive(Default)]
struct Seen {
    entries: Vec<SeenPiece>,
    /// How many entries to allocate (a power of two).
    size: usize,
}

/// The longest piece [`Seen`] remembers.
const SEEN_LEN: usize = 27;

/// How many pieces [`Seen`] holds at most (40 bytes each), allocated at the first merge of a
/// count: fewer for a short text, one per 64 bytes of it (at least 16).
const SEEN_ENTRIES: usize = 1024;

#[derive(Clone, Copy, Default)]
struct SeenPiece {
    hash: u64,
    count: u32,
    /// 0: the entry is empty.
    len: u8,
    bytes: [u8; SEEN_LEN],
}

impl Seen {
    fn at(&self, hash: u64) -> usize {
        // Bits the table's slot and tag do not use first.
        (hash >> 20) as usize & (self.entries.len().max(1) - 1)
    }

    fn count(&self, piece: &[u8], hash: u64) -> Option<usize> {
        let entry = self.entries.get(self.at(hash))?;
        let len = usize::from(entry.len);
        (entry.hash == hash && len == piece.len() && entry.bytes.get(..len) == Some(piece))
            .then_some(entry.count as usize)
    }

    fn remember(&mut self, piece: &[u8], hash: u64, count: usize) {
        // Pieces longer than an entry holds are not remembered.
        let mut bytes = [0; SEEN_LEN];
        let (Some(kept), Ok(len), Ok(count)) =
            (bytes.get_mut(..piece.len()), u8::try_from(piece.len()), u32::try_from(count))
        else {
            return;
        };
        kept.copy_from_slice(piece);
        if self.entries.is_empty() {
            self.entries = vec![SeenPiece::default(); self.size.clamp(16, SEEN_ENTRIES).next_power_of_two()];
        }
        let at = self.at(hash);
        self.entries[at] = SeenPiece { hash, count, len, bytes };
    }
}

impl Scratch {
    /// The scratch of a count of `len` bytes of text.
    pub(crate) fn for_text(len: usize) -> Self {
        Self { seen: Seen { entries: Vec::new(), size: len / 64 }, ..Self::default() }
    }

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

    /// The index the build script wrote into the crate is the index built here from the
    /// same table (the bytes as read through `include_bytes!`, little-endian on any target).
    #[test]
    fn the_built_in_indexes_are_the_tables_indexes() {
        for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
            let table = encoding.tokenizer().table();
            let (starts, slots) = crate::index::build(table.blob).expect("a well-formed table");
            assert_eq!(table.starts, starts.as_slice(), "{}: rank starts", encoding.name());
            assert_eq!(table.slots, slots.as_slice(), "{}: slots", encoding.name());
            let full = slots.chunks_exact(4).filter(|s| *s != crate::index::EMPTY.to_le_bytes()).count();
            assert_eq!(full, table.len(), "{}: one slot per rank", encoding.name());
            assert!(full * 2 <= slots.len() / 4, "{}: at most half full", encoding.name());
        }
    }

    /// A count that finds a piece remembered is the count of merging it: every piece of
    /// random text over a small alphabet (many repeats, many merges, lengths on both sides
    /// of what is remembered), counted with one scratch throughout and with a fresh one each
    /// time.
    #[test]
    fn remembered_pieces_count_as_merged_ones() {
        let table = Encoding::O200kBase.tokenizer().table();
        let mut rng = prompty_test_support::Rng::new(11);
        let mut kept = super::Scratch::for_text(1 << 20);
        let (mut remembered, mut merged) = (0, 0);
        let pool: Vec<Vec<u8>> = (0..2_000)
            .map(|_| {
                let len = 2 + rng.below(40);
                (0..len).map(|_| b"ab!=\xc3\xa9\xf0\x9f\x98\x80"[rng.below(10)]).collect()
            })
            .collect();
        for _ in 0..20_000 {
            let piece = &pool[rng.below(pool.len())];
            let before = kept.seen.count(piece, super::hash(piece)).is_some();
            let fresh = table.count_piece(piece, &mut super::Scratch::for_text(0));
            assert_eq!(table.count_piece(piece, &mut kept), fresh, "{piece:?}");
            if before {
                remembered += 1
            } else if fresh > 1 {
                merged += 1
            }
        }
        assert!(remembered > 1_000 && merged > 1_000, "{remembered} remembered, {merged} merged");
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
        // An index of another form: slots not a power of two, starts cut mid-word, more
        // ranks than slots.
        let (starts, slots) = crate::index::build(b"\x01a\x01b\x02ab").expect("three tokens");
        let (starts, slots): (&'static [u8], &'static [u8]) = (Vec::leak(starts), Vec::leak(slots));
        assert!(super::Table::new(b"\x01a", starts, &slots[..slots.len() - 4]).is_none());
        assert!(super::Table::new(b"\x01a", &starts[..5], slots).is_none());
        assert!(super::Table::new(b"\x01a", slots, &slots[..8]).is_none());
        // An index with no empty slot: a missing token is not found, after one pass.
        let full: &'static [u8] = Vec::leak(vec![0u8; 64]);
        let no_room = super::Table::new(b"\x01a\x01b\x02ab", starts, full).expect("well-formed sizes");
        assert_eq!(no_room.rank(b"zz"), None);
        // Starts that point past the blob give no bytes, and no rank, rather than a panic.
        let short = super::Table::new(b"\x01a", starts, slots).expect("well-formed index");
        assert_eq!((short.bytes(2), short.rank(b"ab"), short.rank(b"a")), (None, None, Some(0)));
    }
}
