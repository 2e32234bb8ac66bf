//! A test's independent cases spread over the machine's cores.

/// Calls `check` on every item, the items dealt out to one thread per core the process may
/// use (item `i` to thread `i % threads`). A panic in any call fails the whole call after
/// every thread has finished, with the panicking call's message printed as a test's is.
///
/// For a test that loops over heavy independent cases: `cargo test` runs one test binary
/// at a time, so a binary lasts at least as long as its longest test.
pub fn on_every_core<T: Sync>(items: &[T], check: impl Fn(&T) + Sync) {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get).min(items.len()).max(1);
    let check = &check;
    std::thread::scope(|scope| {
        for first in 0..threads {
            scope.spawn(move || items.iter().skip(first).step_by(threads).for_each(check));
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::on_every_core;

    #[test]
    fn every_item_is_checked_once() {
        let items: Vec<usize> = (0..101).collect();
        let sum = AtomicUsize::new(0);
        let calls = AtomicUsize::new(0);
        on_every_core(&items, |i| {
            sum.fetch_add(*i, Ordering::Relaxed);
            calls.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!((calls.into_inner(), sum.into_inner()), (101, 5050));
        on_every_core(&[] as &[usize], |_| unreachable!("no item"));
    }

    #[test]
    #[should_panic(expected = "a scoped thread panicked")]
    fn a_failing_item_fails_the_call() {
        on_every_core(&[1, 2, 3], |&i| assert_ne!(i, 2, "item two"));
    }
}
