//! The index over a table: where each rank's bytes start, and an open-addressing hash table
//! from bytes to rank.
//!
//! The build script (`build.rs`, which includes this file) writes the index of each built-in
//! table into the crate, so a process reads it from its own image instead of building it on
//! first use; the tests build it again here and compare. Both files are little-endian
//! `u32`s whatever the target:
//!
//! - `<table>.starts`: for each rank, the offset of its bytes in the table (the length byte
//!   is just before);
//! - `<table>.slots`: a power of two of slots, at most half of them full (linear probing).
//!   A full slot holds the rank in its low [`RANK_BITS`] bits and the high bits of the
//!   bytes' hash above them (compared before the bytes are); an empty one is [`EMPTY`].

/// The bits of a slot that hold the rank. A table has fewer than `2^RANK_BITS - 1` ranks
/// (200,019 for `o200k_base`), so no full slot equals [`EMPTY`].
pub(crate) const RANK_BITS: u32 = 18;

/// The rank bits of a slot.
pub(crate) const RANK_MASK: u32 = (1 << RANK_BITS) - 1;

/// No rank in this slot.
pub(crate) const EMPTY: u32 = u32::MAX;

/// The high bits of `hash` that a slot keeps as its tag, in the slot's position.
#[inline]
pub(crate) fn tag(hash: u64) -> u32 {
    ((hash >> (32 + RANK_BITS)) as u32) << RANK_BITS
}

/// A 64-bit hash of a token's bytes: eight bytes at a time, multiplied and folded, then
/// mixed so that both the low bits (the slot) and the high ones (the tag) depend on every
/// byte.
#[inline]
pub(crate) fn hash(bytes: &[u8]) -> u64 {
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

/// The index of `blob` (length-prefixed tokens in rank order, no token empty), as the two
/// files' bytes: `(starts, slots)`. `None` when the blob is not of that form (a truncated
/// token) or has too many ranks for a slot. The library itself only reads indexes; the build
/// script and the tests build them.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn build(blob: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
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
    if starts.len() >= RANK_MASK as usize {
        return None;
    }
    let capacity = (starts.len() * 2).next_power_of_two().max(16);
    let mask = capacity - 1;
    let mut slots = vec![EMPTY; capacity];
    for (rank, &start) in starts.iter().enumerate() {
        let start = start as usize;
        let hash = hash(&blob[start..start + usize::from(blob[start - 1])]);
        let mut i = (hash as usize) & mask;
        while slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        slots[i] = tag(hash) | rank as u32;
    }
    let le = |words: &[u32]| words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    Some((le(&starts), le(&slots)))
}
