//! From a score to pass/fail: thresholds, direction and range checks.

use serde::{Deserialize, Serialize};
use serde_json::Number;

use crate::error::Error;

/// The outcome of one evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The score meets the threshold.
    Pass,
    /// The score misses the threshold.
    Fail,
    /// There is no usable score. Never counted as a pass.
    #[default]
    Unknown,
    /// The evaluation does not apply to the inputs (e.g. no tool calls).
    NotApplicable,
}

impl Verdict {
    /// `pass`, `fail`, `unknown` or `not_applicable`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Unknown => "unknown",
            Verdict::NotApplicable => "not_applicable",
        }
    }

    /// Whether this is [`Verdict::Pass`].
    pub fn passed(self) -> bool {
        self == Verdict::Pass
    }
}

/// How a score is compared with the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Pass when `score >= threshold`.
    #[default]
    Higher,
    /// Pass when `score <= threshold`.
    Lower,
    /// Pass when `score == threshold` (binary evaluators: `== 1`).
    Equal,
}

impl Direction {
    /// The configuration spelling (`higher`, `lower`, `equal`).
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Higher => "higher",
            Direction::Lower => "lower",
            Direction::Equal => "equal",
        }
    }

    /// Parses the configuration spelling.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "higher" => Some(Direction::Higher),
            "lower" => Some(Direction::Lower),
            "equal" => Some(Direction::Equal),
            _ => None,
        }
    }
}

/// A threshold, keeping the number as written (`3` stays an integer in JSON
/// output, `3.0` a float) while comparing as `f64`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Threshold(pub Number);

impl Threshold {
    /// The threshold as a float.
    pub fn value(&self) -> f64 {
        self.0.as_f64().unwrap_or(f64::NAN)
    }
}

impl From<i64> for Threshold {
    fn from(v: i64) -> Self {
        Threshold(Number::from(v))
    }
}

impl From<u8> for Threshold {
    fn from(v: u8) -> Self {
        Threshold(Number::from(v))
    }
}

/// The verdict for a score: no score, or a score that is not a finite number
/// (NaN, an infinity), is [`Verdict::Unknown`]; otherwise the score is
/// compared with the threshold in the given direction.
pub fn verdict(score: Option<f64>, threshold: f64, direction: Direction) -> Verdict {
    match score {
        Some(s) if s.is_finite() => {
            let pass = match direction {
                Direction::Higher => s >= threshold,
                Direction::Lower => s <= threshold,
                Direction::Equal => s == threshold,
            };
            if pass { Verdict::Pass } else { Verdict::Fail }
        }
        _ => Verdict::Unknown,
    }
}

/// What a score outside the evaluator's range means (a range that is not validated; a
/// validated range makes such a score an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OutOfRange {
    /// No verdict: [`Verdict::Unknown`], with a problem naming the range. A judge that
    /// answers 7 on a 1-5 scale has not answered the question; it never passes.
    #[default]
    Unknown,
    /// Compare it with the threshold like any other score.
    Allow,
}

/// The verdict for a score given the evaluator's range: [`verdict`], except that a
/// finite score outside `range` is [`Verdict::Unknown`] under [`OutOfRange::Unknown`].
pub fn verdict_in_range(
    score: Option<f64>,
    threshold: f64,
    direction: Direction,
    range: Option<&ScoreRange>,
    policy: OutOfRange,
) -> Verdict {
    match (score, range, policy) {
        (Some(s), Some(r), OutOfRange::Unknown) if s.is_finite() && !r.contains(s) => Verdict::Unknown,
        _ => verdict(score, threshold, direction),
    }
}

/// An inclusive range a score must fall in, with the bounds as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreRange {
    /// Lower bound.
    pub min: Number,
    /// Upper bound.
    pub max: Number,
}

impl ScoreRange {
    /// The range `min..=max`.
    pub fn new(min: impl Into<Number>, max: impl Into<Number>) -> Self {
        ScoreRange { min: min.into(), max: max.into() }
    }

    /// Lower bound as a float.
    pub fn min_f64(&self) -> f64 {
        self.min.as_f64().unwrap_or(f64::NAN)
    }

    /// Upper bound as a float.
    pub fn max_f64(&self) -> f64 {
        self.max.as_f64().unwrap_or(f64::NAN)
    }

    /// Whether `score` is within the range.
    pub fn contains(&self, score: f64) -> bool {
        score >= self.min_f64() && score <= self.max_f64()
    }

    /// `Ok` when the score is within the range; otherwise
    /// [`Error::ScoreOutOfRange`] showing `shown` (the score as the answer
    /// wrote it).
    pub fn check(&self, score: Option<f64>, shown: &str) -> Result<(), Error> {
        match score {
            Some(s) if self.contains(s) => Ok(()),
            _ => Err(Error::ScoreOutOfRange {
                value: shown.to_owned(),
                min: self.min.to_string(),
                max: self.max.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn higher_is_better() {
        assert_eq!(verdict(Some(3.0), 3.0, Direction::Higher), Verdict::Pass);
        assert_eq!(verdict(Some(2.9), 3.0, Direction::Higher), Verdict::Fail);
        assert_eq!(verdict(Some(4.0), 5.0, Direction::Higher), Verdict::Fail);
    }

    #[test]
    fn lower_is_better() {
        assert_eq!(verdict(Some(3.0), 3.0, Direction::Lower), Verdict::Pass);
        assert_eq!(verdict(Some(4.0), 3.0, Direction::Lower), Verdict::Fail);
    }

    #[test]
    fn exact_match() {
        assert_eq!(verdict(Some(1.0), 1.0, Direction::Equal), Verdict::Pass);
        assert_eq!(verdict(Some(0.0), 1.0, Direction::Equal), Verdict::Fail);
    }

    #[test]
    fn missing_nan_or_infinite_is_unknown_never_pass() {
        for d in [Direction::Higher, Direction::Lower, Direction::Equal] {
            assert_eq!(verdict(None, 3.0, d), Verdict::Unknown);
            assert_eq!(verdict(Some(f64::NAN), 3.0, d), Verdict::Unknown);
            assert_eq!(verdict(Some(f64::INFINITY), 3.0, d), Verdict::Unknown);
            assert_eq!(verdict(Some(f64::NEG_INFINITY), 3.0, d), Verdict::Unknown);
            assert!(!verdict(None, f64::NEG_INFINITY, d).passed());
        }
    }

    #[test]
    fn out_of_range_is_unknown_unless_allowed() {
        let r = ScoreRange::new(1, 5);
        let v = |s: f64, p| verdict_in_range(Some(s), 3.0, Direction::Higher, Some(&r), p);
        assert_eq!(v(7.0, OutOfRange::Unknown), Verdict::Unknown);
        assert_eq!(v(0.0, OutOfRange::Unknown), Verdict::Unknown);
        assert_eq!(v(5.0, OutOfRange::Unknown), Verdict::Pass);
        assert_eq!(v(1.0, OutOfRange::Unknown), Verdict::Fail);
        assert_eq!(v(7.0, OutOfRange::Allow), Verdict::Pass);
        assert_eq!(verdict_in_range(Some(7.0), 3.0, Direction::Higher, None, OutOfRange::Unknown), Verdict::Pass);
        assert_eq!(verdict_in_range(None, 3.0, Direction::Higher, Some(&r), OutOfRange::Allow), Verdict::Unknown);
    }

    #[test]
    fn range_check() {
        let r = ScoreRange::new(1, 5);
        assert!(r.check(Some(5.0), "5").is_ok());
        assert!(r.check(Some(1.0), "1").is_ok());
        let err = r.check(Some(7.0), "7");
        assert_eq!(
            err.map_err(|e| e.to_string()),
            Err("Invalid score value: 7. Expected a number in range [1, 5].".to_owned())
        );
        assert!(r.check(None, "None").is_err());
    }
}
