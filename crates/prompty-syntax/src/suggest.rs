//! "Did you mean ...?" for misspelt keys.

/// Levenshtein distance between two short strings.
#[cfg(test)]
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The Levenshtein distance between `a` and `b` when it is at most `limit`. Only the band
/// of cells within `limit` of the diagonal is computed, so the cost is
/// `O(len * limit)` however long the strings are, and it stops as soon as a row exceeds
/// the limit.
fn distance_within(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let over = limit + 1;
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j.min(over)).collect();
    let mut cur = vec![over; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        let row = i + 1;
        let lo = row.saturating_sub(limit).max(1);
        let hi = (row + limit).min(b.len());
        let left = if lo == 1 { row.min(over) } else { over };
        *cur.get_mut(lo - 1)? = left;
        let mut row_min = left;
        for j in lo..=hi {
            let cost = usize::from(ca != b.get(j - 1)?);
            let v = (prev.get(j - 1)? + cost).min(prev.get(j)? + 1).min(cur.get(j - 1)? + 1).min(over);
            *cur.get_mut(j)? = v;
            row_min = row_min.min(v);
        }
        if let Some(next) = cur.get_mut(hi + 1) {
            *next = over;
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.get(b.len()).copied().filter(|&d| d <= limit)
}

/// `s` with case and `_`/`-` ignored, as characters.
fn folded(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase)
}

/// The candidate closest to `word`, if it is close enough to be a plausible typo
/// (same letters ignoring case and `_`/`-`, or a small edit distance). Linear in the total
/// length of `word` and the candidates, with one buffer for all of them.
pub fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let word_chars: Vec<char> = folded(word).collect();
    if let Some(c) = candidates.iter().find(|c| folded(c).eq(word_chars.iter().copied())) {
        return Some(c);
    }
    let limit = match word.chars().count() {
        0..=3 => 1,
        4..=7 => 2,
        _ => 3,
    };
    let mut best: Option<(usize, &'a str)> = None;
    let mut other: Vec<char> = Vec::new();
    for c in candidates {
        // The distance is at least the difference in length.
        if folded(c).count().abs_diff(word_chars.len()) > limit {
            continue;
        }
        other.clear();
        other.extend(folded(c));
        if let Some(d) = distance_within(&word_chars, &other, limit)
            && best.is_none_or(|(b, _)| d < b)
        {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(did_you_mean("descripton", &["name", "description"]), Some("description"));
        assert_eq!(did_you_mean("api_type", &["id", "apiType"]), Some("apiType"));
        assert_eq!(did_you_mean("zzz", &["name", "model"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    /// The banded distance equals the full one whenever that is within the limit, and is
    /// `None` otherwise, over many pairs of short strings from a small alphabet.
    #[test]
    fn banded_distance_matches_the_full_one() {
        let mut state = 0x2545_f491_u64;
        let word = |state: &mut u64| -> String {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            let len = (*state % 9) as usize;
            (0..len).map(|i| ['a', 'b', 'c', '\u{e9}'][((*state >> (i * 2 + 8)) % 4) as usize]).collect()
        };
        for _ in 0..5_000 {
            let (a, b) = (word(&mut state), word(&mut state));
            let full = edit_distance(&a, &b);
            let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            for limit in 0..4 {
                let expected = (full <= limit).then_some(full);
                assert_eq!(distance_within(&ac, &bc, limit), expected, "{a:?} {b:?} limit {limit}");
            }
        }
    }

    #[test]
    fn long_words_cost_a_band_not_a_square() {
        // Two 200,000-character words: the full table would have 4e10 cells.
        let a: String = "ab".repeat(100_000);
        let b = format!("{a}x");
        assert!(did_you_mean(&b, &[a.as_str()]) == Some(a.as_str()), "one edit apart");
        let far = "c".repeat(200_000);
        assert!(did_you_mean(&far, &[a.as_str()]).is_none(), "200,000 edits apart");
    }
}
