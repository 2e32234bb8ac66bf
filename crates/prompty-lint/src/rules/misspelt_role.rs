use crate::Finding;
use crate::body::{role_like, roles};
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a line that looks like a role line but whose role word is misspelt
    /// (`sytem:`, `asistant:`, `uesr:`), also with text after the colon
    /// (`asistant: {{ answer }}`), where only a one-letter slip counts, since ordinary
    /// prose has lines such as `Note: ...`.
    ///
    /// ## Why is this bad?
    /// A misspelt role line is plain text: it does not start a message. Its text joins the
    /// previous message (or, before the first role line, a system message; in a v1 file an
    /// error at run time), and the messages the author meant never exist.
    ///
    /// ## Example
    /// ```text
    /// sytem:
    /// You are a helpful assistant.
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// system:
    /// You are a helpful assistant.
    /// ```
    pub(crate) struct MisspeltRole {
        code: "PL007",
        name: "misspelt-role",
        severity: Error,
        fix: Unsafe,
    }
}

/// Words close to a role word that are ordinary words, not typos.
const NOT_TYPOS: &[&str] =
    &["use", "used", "uses", "users", "usage", "tools", "systems", "assistants", "developers", "functions", "test"];

/// Edit distance with adjacent transpositions counting as one edit (optimal string
/// alignment), over three rolling rows of the table.
fn distance(a: &str, b: &str) -> usize {
    // Role words and the words compared with them are short: their characters and the
    // table's rows live on the stack (this runs for every role-like line of every file).
    const SHORT: usize = 24;
    if a.len() < SHORT && b.len() < SHORT {
        let (mut ca, mut cb) = (['\0'; SHORT], ['\0'; SHORT]);
        let (la, lb) = (fill(&mut ca, a), fill(&mut cb, b));
        let mut rows = [[0usize; SHORT + 1]; 3];
        let [before, previous, row] = &mut rows;
        osa(&ca[..la], &cb[..lb], &mut before[..=lb], &mut previous[..=lb], &mut row[..=lb])
    } else {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let (mut before, mut previous, mut row) = (vec![0; b.len() + 1], vec![0; b.len() + 1], vec![0; b.len() + 1]);
        osa(&a, &b, &mut before, &mut previous, &mut row)
    }
}

/// Writes the characters of `s` (no more than `buf` holds) to `buf`; their number.
fn fill(buf: &mut [char], s: &str) -> usize {
    buf.iter_mut().zip(s.chars()).map(|(slot, c)| *slot = c).count()
}

/// The optimal string alignment distance of `a` and `b`, keeping three rows of the table
/// (rows i-2, i-1 and i, each `b.len() + 1` long).
fn osa(a: &[char], b: &[char], before: &mut [usize], previous: &mut [usize], row: &mut [usize]) -> usize {
    // Row 0 is the distance from the empty prefix.
    for (j, cell) in previous.iter_mut().enumerate() {
        *cell = j;
    }
    let (mut before, mut previous, mut row) = (before, previous, row);
    for (i, &ca) in a.iter().enumerate() {
        let i = i + 1;
        if let Some(first) = row.first_mut() {
            *first = i;
        }
        for (j, &cb) in b.iter().enumerate() {
            let j = j + 1;
            let at = |r: &[usize], k: usize| r.get(k).copied().unwrap_or(usize::MAX - 1);
            let cost = usize::from(ca != cb);
            let mut v = (at(previous, j) + 1).min(at(row, j - 1) + 1).min(at(previous, j - 1) + cost);
            if i > 1 && j > 1 && a.get(i - 2) == b.get(j - 1) && Some(&ca) == b.get(j - 2) {
                v = v.min(at(before, j - 2) + 1);
            }
            if let Some(cell) = row.get_mut(j) {
                *cell = v;
            }
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut row);
    }
    previous.get(b.len()).copied().unwrap_or(usize::MAX)
}

pub(crate) fn suggestion(word: &str, roles: &[&'static str]) -> Option<&'static str> {
    suggestion_within(word, roles, if word.len() <= 5 { 1 } else { 2 })
}

/// The role `word` is at most `limit` edits from, if any and if `word` is not a word of its own.
fn suggestion_within(word: &str, roles: &[&'static str], limit: usize) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    if roles.contains(&lower.as_str()) || NOT_TYPOS.contains(&lower.as_str()) {
        return None;
    }
    // Every role word of either profile is reported by its own rule when out of place.
    if ["system", "user", "assistant", "developer", "tool", "function"].contains(&lower.as_str()) {
        return None;
    }
    // Each edit changes the length by at most one: roles further off in length are skipped
    // without computing a distance (most prose lines are).
    let len = lower.chars().count();
    roles
        .iter()
        .filter(|r| len.abs_diff(r.chars().count()) <= limit && absent_letters(&lower, r) <= limit)
        .map(|r| (distance(&lower, r), *r))
        .filter(|(d, r)| *d <= limit && lower != format!("{r}s"))
        .min_by_key(|(d, _)| *d)
        .map(|(_, r)| r)
}

/// `role` written with the capitalization of `like` (`Sytem` -> `System`).
/// How many characters of `word` do not occur anywhere in `role`: a lower bound of their
/// distance, since each such character needs an edit of its own (a substitution or a
/// deletion; a transposition moves characters that both occur). Settles most words in a
/// few instructions per character. Role words are ASCII; for any other `role`, 0.
fn absent_letters(word: &str, role: &str) -> usize {
    if !role.is_ascii() {
        return 0;
    }
    let present = role.bytes().fold(0u128, |set, b| set | 1 << b);
    word.chars().filter(|&c| !(c.is_ascii() && present & (1 << (c as u32)) != 0)).count()
}

fn same_case(role: &str, like: &str) -> String {
    if like.chars().all(|c| c.is_ascii_uppercase()) {
        role.to_ascii_uppercase()
    } else if like.starts_with(|c: char| c.is_ascii_uppercase()) {
        let mut s = role.to_owned();
        if let Some(first) = s.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        s
    } else {
        role.to_owned()
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (i, range) in cx.body.lines.iter().enumerate() {
        let line = cx.body.line(i);
        let Some(like) = role_like(line) else { continue };
        if cx.template.parsed && cx.template.literal_at(range.start + like.word_range.start).is_none() {
            continue;
        }
        // Text after the colon makes a prose line more likely: one slip in a word of four
        // letters or more, then.
        let with_text = !like.rest.trim().is_empty();
        let found = if with_text {
            Some(like.word).filter(|w| w.len() >= 4).and_then(|w| suggestion_within(w, roles(cx.profile), 1))
        } else {
            suggestion(like.word, roles(cx.profile))
        };
        let Some(role) = found else { continue };
        let word_span = cx.span(range.start + like.word_range.start..range.start + like.word_range.end);
        let fixed = same_case(role, like.word);
        out.push(
            MisspeltRole::META
                .finding(word_span.clone(), format!("`{}:` is not a role line; did you mean `{fixed}:`?", like.word))
                .help(format!(
                    "write `{fixed}:` to start {} {role} message",
                    if role.starts_with('a') { "an" } else { "a" }
                ))
                .unsafe_fix(word_span, fixed.clone(), format!("replace `{}` with `{fixed}`", like.word)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_and_words() {
        let spec = prompty_render::SPEC_ROLES;
        assert_eq!(suggestion("sytem", spec), Some("system"));
        assert_eq!(suggestion("Asistant", spec), Some("assistant"));
        assert_eq!(suggestion("uesr", spec), Some("user"));
        assert_eq!(suggestion("Users", spec), None);
        assert_eq!(suggestion("Use", spec), None);
        assert_eq!(suggestion("Note", spec), None);
        assert_eq!(suggestion("Example", spec), None);
        assert_eq!(suggestion_within("asistant", spec, 1), Some("assistant"));
        assert_eq!(suggestion_within("asisant", spec, 1), None);
        assert_eq!(same_case("system", "SYTEM"), "SYSTEM");
        assert_eq!(same_case("system", "Sytem"), "System");
    }

    #[test]
    fn absent_letters_never_exceed_the_distance() {
        let words = ["sytem", "system", "uesr", "users", "Intent", "asistant", "ünïcode", "tool", "ool", "", "x"];
        for w in words {
            for r in ["system", "user", "assistant", "tool", "developer", "function", ""] {
                assert!(absent_letters(w, r) <= distance(w, r), "{w:?} vs {r:?}");
            }
        }
        assert_eq!(absent_letters("intent", "system"), 3);
        assert_eq!(absent_letters("sytem", "system"), 0);
    }

    #[test]
    fn distances_are_those_of_the_whole_table() {
        // The optimal string alignment distance over the full table, for comparison.
        fn full(a: &str, b: &str) -> usize {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
            for (i, row) in d.iter_mut().enumerate() {
                row[0] = i;
            }
            d[0] = (0..=b.len()).collect();
            for i in 1..=a.len() {
                for j in 1..=b.len() {
                    let cost = usize::from(a[i - 1] != b[j - 1]);
                    let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                    if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                        v = v.min(d[i - 2][j - 2] + 1);
                    }
                    d[i][j] = v;
                }
            }
            d[a.len()][b.len()]
        }
        let words = [
            "",
            "s",
            "system",
            "sytem",
            "ssytem",
            "ystem",
            "systme",
            "user",
            "uesr",
            "usre",
            "asistant",
            "assistnat",
            "tool",
            "otol",
            "ca",
            "abc",
            "acb",
            "bca",
            "développeur",
            "ünïcode",
            "functoin",
            "assistant",
            // Longer than the words kept on the stack.
            "a word longer than any role word",
            "a wrod longer than any role wörd",
        ];
        for a in words {
            for b in words {
                assert_eq!(distance(a, b), full(a, b), "{a:?} vs {b:?}");
            }
        }
    }
}
