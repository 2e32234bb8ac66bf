//! Bare-number answers: the first decimal digit anywhere in the answer.
//!
//! This is the reference rule for prompts that end with `stars:` and allow a
//! single token: `4` reads 4, `stars: 4` reads 4, and `stars: 10` reads 1
//! (only one digit is taken). Digits are Unicode decimal digits, like
//! Python's `\d`; their value is used (`٣` reads 3). An answer without any
//! digit has no score.

use nom::Parser;
use nom::bytes::complete::take_till;
use nom::character::complete::satisfy;

use super::{Extracted, PResult};
use crate::error::Error;
use crate::py;

fn first_digit(input: &str) -> PResult<'_, char> {
    let (rest, _) = take_till(py::is_decimal_digit).parse(input)?;
    satisfy(py::is_decimal_digit).parse(rest)
}

/// The first digit of the answer as a score, or [`Error::NoDigit`].
pub fn score(answer: &str) -> Result<f64, Error> {
    match first_digit(answer) {
        Ok((_, c)) => py::decimal_digit(c).map(f64::from).ok_or(Error::NoDigit),
        Err(_) => Err(Error::NoDigit),
    }
}

/// Reads the first digit of the answer. Never fails: a missing digit is a
/// `None` score with [`Error::NoDigit`] as the problem.
pub fn extract(answer: &str) -> Extracted {
    if answer.is_empty() {
        return Extracted::missing(Error::EmptyAnswer);
    }
    match score(answer) {
        Ok(s) => Extracted { score: Some(s), ..Extracted::default() },
        Err(problem) => Extracted::missing(problem),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_digit() {
        assert_eq!(score("4"), Ok(4.0));
        assert_eq!(score("5"), Ok(5.0));
    }

    #[test]
    fn stars_prefix() {
        assert_eq!(score("stars: 4"), Ok(4.0));
        assert_eq!(score("stars: 10"), Ok(1.0));
    }

    #[test]
    fn first_digit_anywhere() {
        assert_eq!(score("I'd say 3, maybe 4"), Ok(3.0));
        assert_eq!(score("0"), Ok(0.0));
        assert_eq!(score("\u{0663}"), Ok(3.0));
    }

    #[test]
    fn no_digit() {
        assert_eq!(score("five"), Err(Error::NoDigit));
        assert_eq!(extract("five").score_problem, Some(Error::NoDigit));
        assert_eq!(extract("").score_problem, Some(Error::EmptyAnswer));
    }
}
