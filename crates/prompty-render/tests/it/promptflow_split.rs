//! The promptflow split's injection property on structured inputs, with a fixed seed: a
//! hostile value is refused or leaves the template's messages as they are. The fuzz target
//! `fuzz/fuzz_targets/promptflow_split.rs` checks the same property on libFuzzer's inputs.

use std::time::{Duration, Instant};

use crate::pf_split::{Outcome, Source, case, check};
use prompty_test_support::Rng;

const HANG_GUARD: Duration = Duration::from_secs(60);

/// The workspace's seeded generator: the same sequence on every run.
struct Seeded(Rng);

impl Source for Seeded {
    fn byte(&mut self) -> u8 {
        self.0.byte()
    }
}

#[test]
fn property_hostile_values_never_change_the_templates_messages() {
    let mut rng = Seeded(Rng::new(0x5eed_0009));
    let start = Instant::now();
    let mut failures = Vec::new();
    let (mut refused, mut same) = (0, 0);
    for _ in 0..3_000 {
        match check(&case(&mut rng)) {
            Ok(Outcome::Refused) => refused += 1,
            Ok(Outcome::Same) => same += 1,
            Err(e) => failures.push(e),
        }
    }
    assert!(start.elapsed() < HANG_GUARD, "took {:?}", start.elapsed());
    assert!(failures.is_empty(), "{} of 3000 cases failed; the first:\n{}", failures.len(), failures[0]);
    // Both outcomes are common, so neither half of the property holds vacuously.
    eprintln!("promptflow split property: {refused} refused, {same} unchanged");
    assert!(refused > 300 && same > 300, "refused {refused}, same {same}");
}
