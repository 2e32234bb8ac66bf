//! Score extraction from arbitrary judge answers never panics, and a score it finds is a
//! finite number.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prompty_eval::extract::{json, label, number, tags};

fuzz_target!(|data: &[u8]| {
    let Ok(answer) = std::str::from_utf8(data) else { return };
    for (lo, hi) in [(1, 5), (0, 10), (0, 1)] {
        if let Some(range) = tags::DigitRange::new(lo, hi) {
            let e = tags::extract(answer, range);
            assert!(e.score.is_none_or(f64::is_finite));
        }
    }
    let _ = json::extract(answer, &json::JsonFields::default()).map(|e| assert!(e.score.is_none_or(f64::is_finite)));
    let _ = number::extract(answer);
    let _ = label::extract(answer);
    let _ = label::parse(answer);
});
