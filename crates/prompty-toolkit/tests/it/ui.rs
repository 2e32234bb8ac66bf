//! `include_prompty!` on prompts that do not compile, with the compiler's messages as snapshots
//! (`tests/ui/fail/snapshots/`, what a user sees). The prompts that compile are the tests of
//! `macros.rs`.
//!
//! Each case of `tests/ui/fail/` is checked by rustc itself (`--emit=metadata`, no code generated)
//! against the libraries of this very build: the facade comes from the folder this test
//! binary was linked in (`target/debug/deps`), and rustc finds the macro and every other
//! crate behind it there by their hashes. Nothing is built again, so the cases cost a
//! fraction of a second each instead of a build of the macro's dependency tree in a project
//! of their own.
//!
//! That folder may hold several builds of the facade (other feature sets, other profiles, an
//! earlier source). The one taken is the newest that is not newer than this binary and that
//! compiles `tests/ui/pass/compiles.rs`, a use of the macro that must compile: with it, a facade
//! built without the `macros` feature is never taken, and a harness that cannot compile
//! anything fails here rather than matching nothing.
//!
//! The snapshots leave out rustc's closing summary (`aborting due to`, `--explain`). A case
//! should not draw a note into the standard library: its path and excerpt change with the
//! toolchain and with whether `rust-src` is installed. `INSTA_UPDATE` and `cargo insta
//! review` update the snapshots as for every other snapshot of the workspace.

#![cfg(feature = "macros")]

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

/// The workspace's edition, which a user's crate calling the macro would have.
const EDITION: &str = "2024";

/// The rustc of this build: `RUSTC` when the build was told of one, else the one beside
/// the cargo that runs the tests (rustup's toolchain folder), else the one on `PATH`.
fn rustc() -> OsString {
    if let Some(rustc) = std::env::var_os("RUSTC") {
        return rustc;
    }
    if let Some(cargo) = std::env::var_os("CARGO") {
        let beside = Path::new(&cargo).with_file_name(format!("rustc{}", std::env::consts::EXE_SUFFIX));
        if beside.is_file() {
            return beside.into_os_string();
        }
    }
    "rustc".into()
}

/// The folder this test binary was linked in, with every library of its build.
fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent().expect("the test binary's folder").to_path_buf()
}

/// The facade's builds in `deps`, newest first, leaving out those newer than this binary
/// (built after it, so not the one it was linked with).
fn facade_candidates(deps: &Path) -> Vec<PathBuf> {
    let modified = |path: &Path| path.metadata().and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
    let linked = modified(&std::env::current_exe().expect("the test binary's path"));
    let mut found: Vec<(SystemTime, PathBuf)> = std::fs::read_dir(deps)
        .unwrap_or_else(|e| panic!("{}: {e}", deps.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("libprompty_toolkit-") && name.ends_with(".rlib"))
        })
        .map(|path| (modified(&path), path))
        .filter(|(time, _)| *time <= linked)
        .collect();
    found.sort_by_key(|(time, _)| std::cmp::Reverse(*time));
    found.into_iter().map(|(_, path)| path).collect()
}

/// rustc's check of `case` (relative to this crate's folder) against `facade`.
fn check(facade: &Path, deps: &Path, case: &Path, out: &Path) -> Output {
    let name = case.file_stem().and_then(|s| s.to_str()).expect("a case's file name");
    let mut dependency = OsString::from("dependency=");
    dependency.push(deps);
    let mut extern_ = OsString::from("prompty_toolkit=");
    extern_.push(facade);
    let mut emit = OsString::from("metadata=");
    emit.push(out.join(format!("{name}.rmeta")));
    Command::new(rustc())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        // The macro reads prompt paths relative to this, as in a user's crate.
        .env("CARGO_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"))
        .env_remove("CARGO_MANIFEST_DIR_OVERRIDE")
        .args(["--edition", EDITION, "--crate-type", "bin", "--crate-name", name, "--color", "never"])
        .arg("--emit")
        .arg(emit)
        .arg("-L")
        .arg(dependency)
        .arg("--extern")
        .arg(extern_)
        .arg(case)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", rustc().to_string_lossy()))
}

/// rustc's messages as a snapshot shows them: without rustc's closing summary (`aborting
/// due to`, `--explain`), which says again what the messages say.
fn normalize(stderr: &str) -> String {
    let kept: Vec<&str> = stderr
        .lines()
        .filter(|line| {
            !(line.starts_with("error: aborting due to")
                || line.starts_with("Some errors have detailed explanations")
                || line.starts_with("For more information about"))
        })
        .collect();
    kept.join("\n").trim_end().to_owned() + "\n"
}

fn cases(folder: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| Path::new(folder).join(path.file_name().expect("a file name")))
        .collect();
    cases.sort();
    cases
}

#[test]
fn include_prompty() {
    let deps = deps_dir();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("include-prompty-ui-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));

    // The facade this binary was built with: the newest that compiles the passing case.
    let probe = Path::new("tests/ui/pass/compiles.rs");
    let candidates = facade_candidates(&deps);
    let mut refused = Vec::new();
    let facade = candidates.iter().find(|facade| {
        let output = check(facade, &deps, probe, &out);
        if !output.status.success() {
            refused.push(format!("{}:\n{}", facade.display(), String::from_utf8_lossy(&output.stderr)));
        }
        output.status.success()
    });
    let Some(facade) = facade else {
        panic!(
            "no build of prompty_toolkit in {} compiles {}: {} tried\n{}",
            deps.display(),
            probe.display(),
            candidates.len(),
            refused.join("\n")
        );
    };

    // Every case checked at once, each by a rustc of its own; then compared one by one.
    let cases = cases("tests/ui/fail");
    assert!(!cases.is_empty(), "no case in tests/ui/fail");
    let outputs: HashMap<PathBuf, Output> = std::thread::scope(|scope| {
        let running: Vec<_> =
            cases.iter().map(|case| (case.clone(), scope.spawn(|| check(facade, &deps, case, &out)))).collect();
        running.into_iter().map(|(case, thread)| (case, thread.join().expect("a check"))).collect()
    });
    let _ = std::fs::remove_dir_all(&out);

    insta::glob!("../ui/fail", "*.rs", |path| {
        let name = path.file_name().expect("a file name");
        let output = &outputs[&Path::new("tests/ui/fail").join(name)];
        assert!(!output.status.success(), "{} compiled; every case of tests/ui/fail must not", path.display());
        let shown = normalize(&String::from_utf8_lossy(&output.stderr));
        insta::with_settings!({
            snapshot_path => "../ui/fail/snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(shown);
        });
    });
}
