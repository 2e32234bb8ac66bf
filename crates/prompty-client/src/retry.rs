//! When to retry and how long to wait: pure functions, the caller sleeps.
//!
//! Retried: 408, 409, 429 and 5xx answers, and requests that failed before an answer
//! (connection refused or reset, timeouts). Each retry waits an exponentially growing,
//! jittered delay (half fixed, half random), capped; a `Retry-After` (or OpenAI's
//! `retry-after-ms`) answer header sets the wait instead, up to a limit past which the row
//! fails rather than stalling the run.

use std::time::Duration;

/// How many times and how long to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The first delay (before jitter).
    pub base: Duration,
    /// The largest delay computed by backoff.
    pub max_delay: Duration,
    /// The longest `Retry-After` honoured; a longer one ends the row's retries.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 5,
            base: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

/// What to do after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Wait this long, then try again.
    Retry(Duration),
    /// Stop: the reason, for the row's error record.
    GiveUp(String),
}

/// Whether an HTTP status is worth retrying.
pub fn retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..=599).contains(&status)
}

/// The longest wait read from a header, in seconds: anything longer is this long (past
/// [`RetryPolicy::max_retry_after`] either way), so that no value can overflow a `Duration`.
pub const MAX_HEADER_WAIT_SECS: f64 = 1e9;

/// The wait a response asks for: `retry-after-ms` (milliseconds), else `retry-after` as
/// seconds or as an HTTP date (`now_unix` is the current time in seconds since 1970). Both
/// numeric forms are capped at [`MAX_HEADER_WAIT_SECS`].
pub fn retry_after<'a>(header: impl Fn(&str) -> Option<&'a str>, now_unix: u64) -> Option<Duration> {
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64((ms / 1000.0).min(MAX_HEADER_WAIT_SECS)));
    }
    let value = header("retry-after")?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(MAX_HEADER_WAIT_SECS)));
    }
    let at = parse_http_date(value)?;
    Some(Duration::from_secs(at.saturating_sub(now_unix)))
}

/// The backoff delay before retry number `retry` (0 for the first): `base * 2^retry`,
/// capped at `max_delay`, of which half is fixed and half scaled by `jitter` (in `[0, 1)`).
pub fn backoff(policy: &RetryPolicy, retry: u32, jitter: f64) -> Duration {
    let exp = policy.base.saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX));
    let capped = exp.min(policy.max_delay);
    let jitter = if jitter.is_finite() { jitter.clamp(0.0, 1.0) } else { 0.0 };
    capped / 2 + capped.mul_f64(jitter / 2.0)
}

/// What to do after attempt number `attempt` (0 for the first) failed with `problem`;
/// `retry_after` is what the answer asked for, if anything.
pub fn decide(
    policy: &RetryPolicy,
    attempt: u32,
    problem: &str,
    retryable: bool,
    retry_after: Option<Duration>,
    jitter: f64,
) -> Decision {
    if !retryable {
        return Decision::GiveUp(problem.to_owned());
    }
    if attempt >= policy.max_retries {
        let tries = attempt + 1;
        return Decision::GiveUp(format!(
            "{problem} (gave up after {tries} attempt{})",
            if tries == 1 { "" } else { "s" }
        ));
    }
    match retry_after {
        Some(wait) if wait > policy.max_retry_after => Decision::GiveUp(format!(
            "{problem}; the server asked to wait {} s, more than the {} s this run waits",
            wait.as_secs(),
            policy.max_retry_after.as_secs()
        )),
        // A small jitter on top, so that rows told the same moment do not all return at once.
        Some(wait) => Decision::Retry(wait + Duration::from_millis((jitter.clamp(0.0, 1.0) * 100.0) as u64)),
        None => Decision::Retry(backoff(policy, attempt, jitter)),
    }
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) as seconds since 1970.
pub fn parse_http_date(text: &str) -> Option<u64> {
    let mut parts = text.split_whitespace();
    let _weekday = parts.next()?.strip_suffix(',')?;
    let day: u64 = parts.next()?.parse().ok()?;
    let month = match parts.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: i64 = parts.next()?.parse().ok()?;
    let mut hms = parts.next()?.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if parts.next()? != "GMT" || parts.next().is_some() || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day as i64);
    u64::try_from(days).ok().map(|d| d * 86_400 + h * 3600 + m * 60 + s)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses() {
        let retried: Vec<u16> = [200, 400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504, 599]
            .into_iter()
            .filter(|s| retryable_status(*s))
            .collect();
        assert_eq!(retried, [408, 409, 429, 500, 502, 503, 504, 599]);
    }

    #[test]
    fn retry_after_forms() {
        let now = parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(now, Some(784_111_777));
        let now = now.unwrap_or_default();
        let h = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
        };
        assert_eq!(retry_after(h(&[("retry-after", "2")]), now), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(h(&[("retry-after", "0.5")]), now), Some(Duration::from_millis(500)));
        assert_eq!(
            retry_after(h(&[("retry-after", "3"), ("retry-after-ms", "250")]), now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(h(&[("retry-after", "Sun, 06 Nov 1994 08:49:47 GMT")]), now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(retry_after(h(&[("retry-after", "Sun, 06 Nov 1994 08:00:00 GMT")]), now), Some(Duration::ZERO));
        for bad in ["soon", "-1", "NaN", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC"] {
            let pairs: &'static [(&'static str, &'static str)] = Box::leak(Box::new([("retry-after", bad)]));
            assert_eq!(retry_after(h(pairs), now), None, "{bad}");
        }
        assert_eq!(retry_after(h(&[]), now), None);
    }

    /// Huge numbers in either header are capped rather than overflowing a `Duration`.
    #[test]
    fn huge_waits_are_capped() {
        let h = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
        };
        let cap = Some(Duration::from_secs(1_000_000_000));
        for (name, value) in [
            ("retry-after-ms", "1e30"),
            ("retry-after-ms", "1.7976931348623157e308"),
            ("retry-after", "1e30"),
            ("retry-after", "1e300"),
        ] {
            let pairs: &'static [(&'static str, &'static str)] = Box::leak(Box::new([(name, value)]));
            assert_eq!(retry_after(h(pairs), 0), cap, "{name}: {value}");
        }
        assert_eq!(retry_after(h(&[("retry-after-ms", "inf")]), 0), None);
        let p = RetryPolicy::default();
        assert!(matches!(decide(&p, 0, "HTTP 429", true, cap, 0.0), Decision::GiveUp(_)));
    }

    #[test]
    fn backoff_grows_is_capped_and_jittered() {
        let p = RetryPolicy {
            base: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
            ..RetryPolicy::default()
        };
        let lows: Vec<u128> = (0..6).map(|r| backoff(&p, r, 0.0).as_millis()).collect();
        let highs: Vec<u128> = (0..6).map(|r| backoff(&p, r, 1.0).as_millis()).collect();
        assert_eq!(lows, [50, 100, 200, 400, 500, 500]);
        assert_eq!(highs, [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(backoff(&p, 1000, 0.5), Duration::from_millis(750));
    }

    #[test]
    fn decisions() {
        let p = RetryPolicy { max_retries: 2, ..RetryPolicy::default() };
        assert_eq!(decide(&p, 0, "HTTP 400", false, None, 0.0), Decision::GiveUp("HTTP 400".into()));
        assert_eq!(
            decide(&p, 0, "HTTP 429", true, Some(Duration::from_secs(1)), 0.0),
            Decision::Retry(Duration::from_secs(1))
        );
        assert_eq!(decide(&p, 1, "HTTP 500", true, None, 0.0), Decision::Retry(Duration::from_millis(500)));
        assert_eq!(
            decide(&p, 2, "HTTP 500", true, None, 0.0),
            Decision::GiveUp("HTTP 500 (gave up after 3 attempts)".into())
        );
        let long = decide(&p, 0, "HTTP 429", true, Some(Duration::from_secs(3600)), 0.0);
        assert_eq!(
            long,
            Decision::GiveUp("HTTP 429; the server asked to wait 3600 s, more than the 120 s this run waits".into())
        );
    }
}
