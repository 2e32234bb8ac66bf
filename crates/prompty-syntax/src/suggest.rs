//! "Did you mean ...?" for misspelt keys.

/// Levenshtein distance between two short strings.
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

fn fold(s: &str) -> String {
    s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
}

/// The candidate closest to `word`, if it is close enough to be a plausible typo
/// (same letters ignoring case and `_`/`-`, or a small edit distance).
pub fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let folded = fold(word);
    if let Some(c) = candidates.iter().find(|c| fold(c) == folded) {
        return Some(c);
    }
    let limit = match word.chars().count() {
        0..=3 => 1,
        4..=7 => 2,
        _ => 3,
    };
    candidates
        .iter()
        .map(|c| (edit_distance(&folded, &fold(c)), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
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
}
