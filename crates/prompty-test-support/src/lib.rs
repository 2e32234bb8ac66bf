//! `prompty-test-support`: what the tests and benchmarks of the workspace share. Never
//! published and never a dependency of a library: only `[dev-dependencies]` and the
//! benchmark workspace (`bench/`) use it, so it may read files and panic with a message.
//!
//! - [`Rng`]: the seeded generator of the property tests, so that every run draws the
//!   same cases;
//! - [`bench`](mod@bench): the workloads of `shared/bench/` that the criterion benches and the
//!   side-by-side benchmark measure, and the bare engine they are compared with;
//! - [`messages`]: the one set of diagnostics every emitter's snapshot test writes;
//! - [`cpython`]: what CPython's `str()`/`repr()` make of values, for prompty-py and
//!   prompty-render;
//! - [`prompt_files`]: the bundled prompts and the conformance corpora, which the loader's
//!   whole-corpus tests run over;
//! - [`modules`]: the module graph of a crate read from its sources, and its import
//!   cycles, for the workspace's layering check;
//! - [`TempDir`]: a fresh folder removed on drop, and [`finish`]/[`wait_or_kill`]: child
//!   processes read and waited for under a time limit, for the tests that run binaries;
//! - [`on_every_core`]: a heavy test's independent cases run on every core.
//!
//! ```
//! use prompty_test_support::Rng;
//!
//! let (mut a, mut b) = (Rng::new(0x5eed), Rng::new(0x5eed));
//! let draws: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
//! assert_eq!(draws, (0..4).map(|_| b.next_u64()).collect::<Vec<_>>());
//! assert!((0..100).all(|_| a.below(6) < 6));
//! ```

#![warn(missing_docs)]

pub mod bench;
mod corpus;
pub mod cpython;
mod fs;
pub mod messages;
pub mod modules;
mod par;
mod process;
mod rng;

pub use corpus::{prompt_dirs, prompt_files};
pub use fs::TempDir;
pub use par::on_every_core;
pub use process::{Finished, finish, wait_or_kill};
pub use rng::Rng;
