//! `<S0>chain of thought</S0><S1>reason</S1><S2>score</S2>` answers.
//!
//! The rules are those of azure-ai-evaluation's tag parser, kept exactly,
//! quirks included:
//!
//! * The score is read from the first `<S2>` tag for which all of this holds:
//!   after the tag, everything up to the first decimal digit is skipped
//!   (any text, even other tags; digits are Unicode decimal digits, like
//!   Python's `\d`), that digit is within the range (a single character:
//!   `<S2>10</S2>` reads 1, `<S2>Score: 4.5/5</S2>` reads 4), and a closing
//!   `</S2>` follows somewhere after it (newlines included).
//! * A first digit outside the range (`<S2>0</S2>`), no digit, or no closing
//!   tag after the digit make that `<S2>` unusable; the next `<S2>` is tried.
//! * The reason is the text of the first `<S1>...</S1>`, stripped of
//!   surrounding whitespace, or empty. `<S0>` is ignored.
//! * An empty answer has no score and an empty reason.

use nom::Parser;
use nom::bytes::complete::{tag, take_until};

use super::{Extracted, PResult};
use crate::error::Error;
use crate::py;

/// A range of single ASCII digits, like the regex class `[1-5]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DigitRange {
    lo: u8,
    hi: u8,
}

impl DigitRange {
    /// `[1-5]`, the range of every built-in tag prompt.
    pub const ONE_TO_FIVE: DigitRange = DigitRange { lo: 1, hi: 5 };

    /// The range `lo..=hi`; both must be single digits with `lo <= hi`.
    pub fn new(lo: u8, hi: u8) -> Option<Self> {
        (lo <= hi && hi <= 9).then_some(DigitRange { lo, hi })
    }

    /// Lowest accepted digit.
    pub fn lo(self) -> u8 {
        self.lo
    }

    /// Highest accepted digit.
    pub fn hi(self) -> u8 {
        self.hi
    }

    /// Whether `c` is an ASCII digit within the range.
    pub fn contains(self, c: char) -> bool {
        c.to_digit(10).is_some_and(|d| c.is_ascii_digit() && (u32::from(self.lo)..=u32::from(self.hi)).contains(&d))
    }

    /// The range written as a regex class, e.g. `[1-5]`.
    pub fn as_class(self) -> String {
        format!("[{}-{}]", self.lo, self.hi)
    }
}

impl Default for DigitRange {
    fn default() -> Self {
        DigitRange::ONE_TO_FIVE
    }
}

const OPEN_SCORE: &str = "<S2>";
const CLOSE_SCORE: &str = "</S2>";
const OPEN_REASON: &str = "<S1>";
const CLOSE_REASON: &str = "</S1>";

/// What one `<S2>` occurrence yielded.
enum Attempt {
    Score(f64),
    Unusable(String),
}

/// Tries the `<S2>` tag whose text starts at byte `after_tag` of `answer` (just past the
/// tag). `digits` finds the first digit at or after a position; `last_close` is where the
/// last `</S2>` of the answer starts.
fn score_at(
    answer: &str,
    after_tag: usize,
    range: DigitRange,
    digits: &mut NextDigit,
    last_close: Option<usize>,
) -> Attempt {
    let Some((at_digit, digit)) = digits.at_or_after(answer, after_tag) else {
        return Attempt::Unusable("no digit after <S2>".to_owned());
    };
    if !range.contains(digit) {
        return Attempt::Unusable(format!("the first digit after <S2> is `{digit}`, outside {}", range.as_class()));
    }
    // A `</S2>` somewhere after the digit: the last one is, if any is.
    let after_digit = at_digit + digit.len_utf8();
    if last_close.is_none_or(|close| close < after_digit) {
        return Attempt::Unusable(format!("no </S2> after the digit `{digit}`"));
    }
    match digit.to_digit(10) {
        Some(d) => Attempt::Score(f64::from(d)),
        None => Attempt::Unusable(format!("`{digit}` is not a digit")),
    }
}

/// The first decimal digit at or after a position, remembered: the `<S2>` tags are tried
/// left to right, so the search only ever moves forward and reads each byte once.
#[derive(Default)]
struct NextDigit {
    /// The last search: (from, the digit found at or after it and where).
    last: Option<(usize, Option<(usize, char)>)>,
}

impl NextDigit {
    fn at_or_after(&mut self, answer: &str, from: usize) -> Option<(usize, char)> {
        if let Some((searched_from, found)) = self.last
            && searched_from <= from
            && found.is_none_or(|(at, _)| at >= from)
        {
            return found;
        }
        let found = answer
            .get(from..)
            .and_then(|rest| rest.char_indices().find(|&(_, c)| py::is_decimal_digit(c)).map(|(i, c)| (from + i, c)));
        self.last = Some((from, found));
        found
    }
}

/// The score of a tag answer, or why there is none. One pass: the tags are found with a
/// substring search that moves forward, the digit search is shared between tags, and
/// "a `</S2>` after the digit" is a comparison with the last `</S2>`.
pub fn score(answer: &str, range: DigitRange) -> Result<f64, Error> {
    let last_close = answer.rfind(CLOSE_SCORE);
    let mut digits = NextDigit::default();
    let mut first_problem: Option<String> = None;
    for (at_tag, _) in answer.match_indices(OPEN_SCORE) {
        match score_at(answer, at_tag + OPEN_SCORE.len(), range, &mut digits, last_close) {
            Attempt::Score(s) => return Ok(s),
            Attempt::Unusable(why) => {
                first_problem.get_or_insert(why);
            }
        }
    }
    let detail = first_problem.unwrap_or_else(|| "the answer has no <S2> tag".to_owned());
    Err(Error::NoTagScore { detail })
}

/// The reason of a tag answer: the stripped text of the first
/// `<S1>...</S1>`, or `""`.
pub fn reason(answer: &str) -> String {
    let parsed: PResult<'_, &str> =
        (take_until(OPEN_REASON), tag(OPEN_REASON), take_until(CLOSE_REASON)).map(|(_, _, text)| text).parse(answer);
    match parsed {
        Ok((_, text)) => py::strip(text).to_owned(),
        Err(_) => String::new(),
    }
}

/// Reads score and reason from a tag answer. Never fails: a missing score
/// is `None`, with the reason in [`Extracted::score_problem`].
pub fn extract(answer: &str, range: DigitRange) -> Extracted {
    if answer.is_empty() {
        return Extracted::missing(Error::EmptyAnswer);
    }
    let reason = reason(answer);
    match score(answer, range) {
        Ok(s) => Extracted { score: Some(s), reason, ..Extracted::default() },
        Err(problem) => Extracted { reason, score_problem: Some(problem), ..Extracted::default() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(answer: &str) -> Option<f64> {
        score(answer, DigitRange::ONE_TO_FIVE).ok()
    }

    #[test]
    fn plain_tag() {
        assert_eq!(s("<S0>cot</S0><S1>why</S1><S2>4</S2>"), Some(4.0));
    }

    #[test]
    fn decimal_takes_first_digit() {
        assert_eq!(s("<S2>Score: 4.5/5</S2>"), Some(4.0));
    }

    #[test]
    fn two_digits_take_the_first() {
        assert_eq!(s("<S2>10</S2>"), Some(1.0));
    }

    #[test]
    fn zero_is_unknown() {
        assert_eq!(s("<S2>0</S2>"), None);
        let err = score("<S2>0</S2>", DigitRange::ONE_TO_FIVE);
        assert!(matches!(err, Err(Error::NoTagScore { detail }) if detail.contains("`0`")));
    }

    #[test]
    fn out_of_range_digit_is_unknown() {
        assert_eq!(s("<S2>6</S2>"), None);
        assert_eq!(s("<S2>9 out of 10</S2>"), None);
    }

    #[test]
    fn missing_tag_is_unknown() {
        assert_eq!(s("Score: 4"), None);
        assert_eq!(s(""), None);
        assert!(matches!(
            score("Score: 4", DigitRange::ONE_TO_FIVE),
            Err(Error::NoTagScore { detail }) if detail.contains("no <S2>")
        ));
    }

    #[test]
    fn multiline_with_spaces() {
        assert_eq!(s("<S2>\n 3 \n</S2>"), Some(3.0));
    }

    #[test]
    fn missing_close_tag_is_unknown() {
        assert_eq!(s("<S2>4"), None);
        assert_eq!(s("<S2>4</S3>"), None);
    }

    #[test]
    fn first_usable_tag_wins() {
        assert_eq!(s("<S2>0</S2><S2>3</S2>"), Some(3.0));
        assert_eq!(s("<S2>2</S2><S2>3</S2>"), Some(2.0));
    }

    #[test]
    fn skipping_crosses_tags_like_the_regex() {
        // The non-digit skip runs into the `2` of the next `<S2>`.
        assert_eq!(s("<S2>none</S2><S2>4</S2>"), Some(2.0));
        // The closing tag's own `2` is found but nothing closes after it.
        assert_eq!(s("<S2>n/a</S2>"), None);
    }

    #[test]
    fn unicode_digit_stops_the_skip() {
        // ARABIC-INDIC DIGIT FOUR is a `\d` but not in the ASCII class.
        assert_eq!(s("<S2>\u{0664}</S2>"), None);
    }

    #[test]
    fn other_ranges() {
        let r = DigitRange::new(0, 1).map(|r| score("<S2>0</S2>", r).ok());
        assert_eq!(r, Some(Some(0.0)));
        assert_eq!(DigitRange::new(3, 1), None);
        assert_eq!(DigitRange::new(1, 10), None);
    }

    #[test]
    fn reason_rules() {
        assert_eq!(reason("<S1> why \n</S1>"), "why");
        assert_eq!(reason("<S1>line1\nline2</S1>"), "line1\nline2");
        assert_eq!(reason("<S1>a</S1><S1>b</S1>"), "a");
        assert_eq!(reason("<S1>unclosed"), "");
        assert_eq!(reason("no tags"), "");
    }

    /// The rule read literally, one fresh search per `<S2>`: skip to the first digit, check
    /// it, look for a `</S2>` after it.
    fn score_by_definition(answer: &str, range: DigitRange) -> Result<f64, Error> {
        let mut first_problem = None;
        for (at, _) in answer.match_indices(OPEN_SCORE) {
            let after = &answer[at + OPEN_SCORE.len()..];
            let why = match after.char_indices().find(|&(_, c)| py::is_decimal_digit(c)) {
                None => "no digit after <S2>".to_owned(),
                Some((_, c)) if !range.contains(c) => {
                    format!("the first digit after <S2> is `{c}`, outside {}", range.as_class())
                }
                Some((i, c)) if after[i + c.len_utf8()..].contains(CLOSE_SCORE) => {
                    return Ok(f64::from(c.to_digit(10).unwrap_or_default()));
                }
                Some((_, c)) => format!("no </S2> after the digit `{c}`"),
            };
            first_problem.get_or_insert(why);
        }
        Err(Error::NoTagScore { detail: first_problem.unwrap_or_else(|| "the answer has no <S2> tag".to_owned()) })
    }

    #[test]
    fn one_pass_agrees_with_the_rule_read_literally() {
        let pieces = ["<S2>", "</S2>", "<S1>", "4", "0", "7", "\u{0664}", "x", " ", "<S", "2>", "</", "\n"];
        let mut state = 0x5eed_7a65_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let ranges = [DigitRange::ONE_TO_FIVE, DigitRange { lo: 0, hi: 9 }, DigitRange { lo: 0, hi: 1 }];
        let mut scored = 0;
        for _ in 0..20_000 {
            let len = (next() % 14) as usize;
            let answer: String = (0..len).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect();
            for r in ranges {
                let expected = score_by_definition(&answer, r);
                scored += usize::from(expected.is_ok());
                assert_eq!(score(&answer, r), expected, "{answer:?} {r:?}");
            }
        }
        assert!(scored > 1_000, "only {scored} answers scored");
    }

    #[test]
    fn extract_keeps_reason_without_score() {
        let e = extract("<S1>why</S1><S2>0</S2>", DigitRange::ONE_TO_FIVE);
        assert_eq!(e.score, None);
        assert_eq!(e.reason, "why");
        assert!(e.score_problem.is_some());
        let empty = extract("", DigitRange::ONE_TO_FIVE);
        assert_eq!(empty.score_problem, Some(Error::EmptyAnswer));
    }
}
