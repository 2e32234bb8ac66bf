//! Applying fixes to a file's text.

use crate::Fix;

/// The text after fixing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed {
    /// The new text: the original with each applied fix's span replaced, every other byte unchanged.
    pub text: String,
    /// The fixes applied, in file order.
    pub applied: Vec<Fix>,
    /// Fixes left out because they overlap an earlier one or do not fit the text; run again
    /// to apply them.
    pub skipped: usize,
}

/// Applies `fixes` to `text`. Overlapping fixes keep the first in file order; fixes whose
/// span is outside the text or splits a character are skipped.
pub fn apply_fixes<'a>(text: &str, fixes: impl IntoIterator<Item = &'a Fix>) -> Fixed {
    let mut sorted: Vec<&Fix> = fixes.into_iter().collect();
    sorted.sort_by_key(|f| (f.span.start, f.span.end));
    sorted.dedup_by(|a, b| a == b);
    let mut out = String::with_capacity(text.len());
    let mut applied = Vec::new();
    let mut skipped = 0;
    let mut pos = 0usize;
    for fix in sorted {
        let fits = fix.span.start >= pos
            && fix.span.start <= fix.span.end
            && text.is_char_boundary(fix.span.start)
            && text.is_char_boundary(fix.span.end)
            && fix.span.end <= text.len();
        if !fits {
            skipped += 1;
            continue;
        }
        out.push_str(text.get(pos..fix.span.start).unwrap_or(""));
        out.push_str(&fix.replacement);
        pos = fix.span.end;
        applied.push(fix.clone());
    }
    out.push_str(text.get(pos..).unwrap_or(""));
    Fixed { text: out, applied, skipped }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(span: std::ops::Range<usize>, r: &str) -> Fix {
        Fix { span, replacement: r.to_owned(), title: String::new(), applicability: crate::Applicability::Safe }
    }

    #[test]
    fn applies_in_order_and_skips_overlaps() {
        let fixes = [fix(4..6, "X"), fix(0..2, "ab"), fix(5..7, "no"), fix(9..20, "out")];
        let fixed = apply_fixes("0123456789", &fixes);
        assert_eq!(fixed.text, "ab23X6789");
        assert_eq!(fixed.applied.len(), 2);
        assert_eq!(fixed.skipped, 2);
    }
}
