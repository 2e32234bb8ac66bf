//! `include_prompty!` on prompts that do not compile, with the compiler's messages as snapshots
//! (`tests/ui/fail/snapshots/`, what a user sees). The prompts that compile are the tests of
//! `macros.rs`.
//!
//! Each case of `tests/ui/fail/` is checked by rustc itself (`--emit=metadata`, no code
//! generated) against a build of the facade from the folder this test binary was linked in
//! (`target/debug/deps`); rustc finds the macro and every other crate behind it there by
//! their hashes. Nothing is built again, so the cases cost a fraction of a second instead
//! of a build of the macro's dependency tree in a project of their own.
//!
//! That folder may hold several builds of the facade: other feature sets of the facade or
//! of its dependencies (`cargo test -p prompty-toolkit` and `cargo test --workspace` make
//! two), other profiles, an earlier source. The one taken is the newest that is not newer
//! than this binary and that compiles a probe: `tests/ui/pass/compiles.rs` (uses of the
//! macro that must compile, in both template formats the cases use) with assertions
//! appended that the build's features (`__private::FEATURES`) are those of the facade this
//! binary links. A build with other features is never taken, and a harness that cannot
//! compile anything fails here rather than matching nothing. Two builds with the same
//! features and the binary's date order reversed (a target folder shared between
//! checkouts, dates restored from an archive) are not told apart.
//!
//! A test built with `--target` finds the macro, a host library, in the host's folder
//! (`target/debug/deps`) and passes the same `--target` to rustc.
//!
//! The snapshots leave out rustc's closing summary (`aborting due to`, `--explain`). A case
//! should not draw a note into the standard library: its path and excerpt change with the
//! toolchain and with whether `rust-src` is installed. `INSTA_UPDATE` and `cargo insta
//! review` update the snapshots as for every other snapshot of the workspace.

#![cfg(all(feature = "macros", feature = "mustache"))]

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::SystemTime;

/// The workspace's edition, which a user's crate calling the macro would have.
const EDITION: &str = "2024";

/// The rustc to check with: `RUSTC` when set in the environment, else the one beside the
/// cargo that runs the tests (rustup's toolchain folder), else the one on `PATH`. One of
/// another version refuses the libraries (E0514, naming both versions).
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

/// Where this test binary's libraries are, and the rustc to check with.
struct Build {
    /// [`rustc()`], looked up once.
    rustc: OsString,
    /// The folder the binary was linked in.
    deps: PathBuf,
    /// Under `--target`: the host's folder (proc-macros and what they link) and the target.
    host: Option<(PathBuf, String)>,
}

impl Build {
    fn of_this_binary() -> Build {
        let exe = std::env::current_exe().expect("the test binary's path");
        Build::in_folder(exe.parent().expect("the test binary's folder").to_path_buf())
    }

    /// The build whose libraries are in `deps`: `<target>/<triple>/<profile>/deps` under
    /// `--target`, else `<target>/<profile>/deps`; cargo marks `<target>` with a CACHEDIR.TAG.
    fn in_folder(deps: PathBuf) -> Build {
        let host = (|| {
            let profile = deps.parent()?;
            let triple = profile.parent()?;
            let target = triple.parent()?;
            let host = target.join(profile.file_name()?).join("deps");
            (target.join("CACHEDIR.TAG").is_file() && host.is_dir())
                .then(|| Some((host, triple.file_name()?.to_str()?.to_owned())))?
        })();
        Build { rustc: rustc(), deps, host }
    }

    /// The facade's builds, newest first, leaving out those newer than this binary (built
    /// after it, so not the one it was linked with).
    fn facades(&self) -> Vec<PathBuf> {
        let modified = |path: &Path| path.metadata().and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
        let linked = modified(&std::env::current_exe().expect("the test binary's path"));
        let mut found: Vec<(SystemTime, PathBuf)> = std::fs::read_dir(&self.deps)
            .unwrap_or_else(|e| panic!("{}: {e}", self.deps.display()))
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

    /// rustc's check of `case` (a path relative to this crate's folder, or absolute)
    /// against `facade`, its output under `out`.
    fn check(&self, facade: &Path, case: &str, out: &Path) -> Output {
        let name = Path::new(case).file_stem().and_then(|s| s.to_str()).expect("a case's file name");
        let with = |prefix: &str, path: &Path| {
            let mut arg = OsString::from(prefix);
            arg.push(path);
            arg
        };
        let mut command = Command::new(&self.rustc);
        command
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            // The macro reads prompt paths relative to this, as in a user's crate.
            .env("CARGO_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"))
            .env_remove("CARGO_MANIFEST_DIR_OVERRIDE")
            .args(["--edition", EDITION, "--crate-type", "bin", "--crate-name", name, "--color", "never"])
            .arg("--emit")
            .arg(with("metadata=", &out.join(format!("{name}.rmeta"))))
            .arg("-L")
            .arg(with("dependency=", &self.deps))
            .arg("--extern")
            .arg(with("prompty_toolkit=", facade));
        if let Some((host, triple)) = &self.host {
            command.arg("-L").arg(with("dependency=", host)).args(["--target", triple]);
        }
        command.arg(case).output().unwrap_or_else(|e| panic!("cannot run {}: {e}", self.rustc.to_string_lossy()))
    }
}

/// A folder of this run's own, removed when the test ends, passed or not.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The probe: the passing uses of the macro, and assertions that the build checked against
/// has the features of the one this binary links.
fn probe() -> String {
    let uses = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/pass/compiles.rs"))
        .expect("tests/ui/pass/compiles.rs");
    let features = prompty_toolkit::__private::FEATURES;
    let mut probe = format!(
        "{uses}\nconst _: () = {{\n    let features = prompty_toolkit::__private::FEATURES;\n    \
         assert!(features.len() == {});\n",
        features.len()
    );
    for (i, (_, on)) in features.iter().enumerate() {
        probe.push_str(&format!("    assert!(features[{i}].1 == {on});\n"));
    }
    probe.push_str("};\n");
    probe
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

/// The cases of `folder` (relative to this crate's folder), as rustc and the snapshots name
/// them: with `/` on every system.
fn cases(folder: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut cases: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| format!("{folder}/{}", path.file_name().and_then(|n| n.to_str()).expect("a file name")))
        .collect();
    cases.sort();
    cases
}

#[test]
fn include_prompty() {
    let build = Build::of_this_binary();
    let out =
        Scratch(Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("include-prompty-ui-{}", std::process::id())));
    std::fs::create_dir_all(&out.0).unwrap_or_else(|e| panic!("{}: {e}", out.0.display()));

    // The facade this binary was built with: the newest that compiles the probe.
    let probe_file = out.0.join("probe.rs");
    std::fs::write(&probe_file, probe()).unwrap_or_else(|e| panic!("{}: {e}", probe_file.display()));
    let probe_case = probe_file.to_str().expect("a UTF-8 folder for the probe");
    let candidates = build.facades();
    let mut refused = Vec::new();
    let facade = candidates.iter().find(|facade| {
        let output = build.check(facade, probe_case, &out.0);
        if !output.status.success() {
            refused.push(format!("{}:\n{}", facade.display(), String::from_utf8_lossy(&output.stderr)));
        }
        output.status.success()
    });
    let Some(facade) = facade else {
        panic!(
            "no build of prompty_toolkit in {} compiles the probe (tests/ui/pass/compiles.rs with this \
             build's features asserted): {} tried\n{}",
            build.deps.display(),
            candidates.len(),
            refused.join("\n")
        );
    };

    // The cases checked on every core, each by a rustc of its own; then compared one by one.
    let cases = cases("tests/ui/fail");
    assert!(!cases.is_empty(), "no case in tests/ui/fail");
    let queue = Mutex::new(cases.iter());
    let outputs: Mutex<HashMap<&str, Output>> = Mutex::new(HashMap::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(cases.len());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let Some(case) = queue.lock().expect("the queue").next() else { break };
                    let output = build.check(facade, case, &out.0);
                    outputs.lock().expect("the outputs").insert(case, output);
                }
            });
        }
    });
    let outputs = outputs.into_inner().expect("the outputs");

    insta::glob!("../ui/fail", "*.rs", |path| {
        let name = path.file_name().and_then(|n| n.to_str()).expect("a file name");
        let output = &outputs[format!("tests/ui/fail/{name}").as_str()];
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

#[test]
fn a_build_for_another_target_finds_the_macro_in_the_hosts_folder() {
    let scratch = Scratch(Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ui-layout-{}", std::process::id())));
    let target = scratch.0.join("target");
    let host = target.join("debug/deps");
    let cross = target.join("aarch64-unknown-linux-gnu/debug/deps");
    for dir in [&host, &cross] {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    // Without cargo's mark, nothing is taken for a target folder.
    assert_eq!(Build::in_folder(cross.clone()).host, None);
    std::fs::write(target.join("CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55\n").expect("the tag");
    assert_eq!(Build::in_folder(cross).host, Some((host.clone(), "aarch64-unknown-linux-gnu".to_owned())));
    // A build for the host alone has its macro beside it.
    assert_eq!(Build::in_folder(host).host, None);
}
