//! Python's string algorithms that the filters and the methods share (`str.center`,
//! `str.replace`), each charged to the render budget where its result can grow.

use minijinja::Error;

use super::budget;

/// Python `str.center(width, fill)`.
pub(crate) fn py_center(s: &str, width: i128, fill: char) -> String {
    let len = s.chars().count();
    let width = usize::try_from(width).unwrap_or(0);
    if width <= len {
        return s.to_owned();
    }
    let marg = width - len;
    let left = marg / 2 + (marg & width & 1);
    let mut out = String::with_capacity(width);
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(s);
    out.extend(std::iter::repeat_n(fill, marg - left));
    out
}

/// Python `str.replace(old, new, count)`; a negative count replaces every occurrence. The
/// size of the result is counted, and checked against the render budget, first.
pub(crate) fn py_replace(s: &str, old: &str, new: &str, count: i128) -> Result<String, Error> {
    let limit = usize::try_from(count).unwrap_or(usize::MAX);
    if old.is_empty() {
        // Python inserts `new` before every character and at the end.
        let inserts = s.chars().count().saturating_add(1).min(limit);
        budget::reserve(s.len() as u128 + new.len() as u128 * inserts as u128)?;
        let mut out = String::with_capacity(s.len() + new.len() * inserts);
        let mut n = 0usize;
        for c in s.chars() {
            if n < limit {
                out.push_str(new);
                n += 1;
            }
            out.push(c);
        }
        if n < limit {
            out.push_str(new);
        }
        return Ok(out);
    }
    budget::spend_bytes(s.len())?;
    let found = s.matches(old).take(limit).count() as u128;
    budget::reserve(s.len() as u128 - found * old.len() as u128 + found * new.len() as u128)?;
    Ok(s.replacen(old, new, limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_center_and_replace() {
        assert_eq!(py_center("ab", 5, '*'), "**ab*");
        assert_eq!(py_center("abc", 6, '*'), "*abc**");
        assert_eq!(py_center("a", 4, ' '), " a  ");
        assert_eq!(py_replace("ab", "", "-", -1).ok().as_deref(), Some("-a-b-"));
        assert_eq!(py_replace("aaa", "a", "b", 2).ok().as_deref(), Some("bba"));
    }
}
