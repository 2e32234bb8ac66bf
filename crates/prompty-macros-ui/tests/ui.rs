//! `include_prompty!` on prompts that do not compile, with the compiler's messages in
//! `ui/fail/*.stderr`.
//!
//! trybuild compiles the cases in a project of its own under the target folder, so the
//! macro's `CARGO_MANIFEST_DIR` would be that project's. The test runs itself again with
//! `CARGO_MANIFEST_DIR_OVERRIDE` set to this crate's folder, which the macro honours, so
//! that the cases' paths are relative to this crate as in real use. With only failing cases,
//! trybuild checks (`cargo check`) instead of building and linking each case.

use std::process::Command;

const OVERRIDE: &str = "CARGO_MANIFEST_DIR_OVERRIDE";

#[test]
fn include_prompty() {
    if std::env::var_os(OVERRIDE).is_none() {
        let exe = std::env::current_exe().expect("the test binary");
        let status = Command::new(exe)
            .args(["include_prompty", "--exact", "--nocapture", "--test-threads=1"])
            .env(OVERRIDE, env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("the test binary runs");
        assert!(status.success(), "the trybuild cases failed");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
}
