//! The README's "Embedding" section: its first `rust` block is `examples/embed.rs`, word for
//! word, at most 15 lines, and it runs from the repository's root (where `prompts/` is),
//! printing the messages and the OpenAI request body; its second is
//! `examples/score_rows.rs`, at most 25 lines, which scores the recorded answers of
//! `prompts/data/` and prints the summary. (`.ci/outside-consumer` builds and runs both in a
//! crate outside this workspace.)

#![cfg(all(feature = "std-host", feature = "wire", feature = "eval"))]

use std::path::{Path, PathBuf};
use std::process::Command;

// The examples' `main`s, compiled into this test crate (the test harness brings its own
// entry point; each `main` is an ordinary function here).
mod embed {
    include!("../../examples/embed.rs");

    pub(super) fn run() -> Result<(), String> {
        main().map_err(|e| format!("{e:#}"))
    }
}
mod score_rows {
    include!("../../examples/score_rows.rs");

    pub(super) fn run() -> Result<(), String> {
        main().map_err(|e| e.to_string())
    }
}

/// Set in the child process that runs an example: which one.
const CHILD: &str = "PROMPTY_README_EXAMPLE_CHILD";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `n`th (0-based) ```rust block of the `## Embedding` section.
fn rust_block(readme: &str, n: usize) -> Option<String> {
    let section = readme.split("\n## Embedding\n").nth(1)?;
    let section = section.split("\n## ").next()?;
    let block = section.split("\n```rust\n").nth(n + 1)?;
    Some(format!("{}\n", block.get(..block.find("\n```\n")?)?))
}

#[test]
fn the_readme_examples_are_the_example_files() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    for (n, file, most) in [(0, "examples/embed.rs", 15), (1, "examples/score_rows.rs", 25)] {
        let block = rust_block(&readme, n).unwrap_or_else(|| panic!("rust block {n} in ## Embedding"));
        let example = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).expect(file);
        assert_eq!(block, example, "README.md's Embedding block {n} and {file} differ");
        assert!(block.lines().count() <= most, "{file} has {} lines", block.lines().count());
    }
}

/// Runs an example (as its `main`, compiled into this test) in a child process started from
/// the repository's root, and returns what it printed.
fn run_example(name: &str) -> String {
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new(exe)
        .args(["readme::run_the_example_here", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, name)
        .current_dir(repo_root())
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{name} failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

#[test]
fn the_readme_example_runs_and_prints_messages_and_the_request() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let stdout = run_example("embed");
    assert!(stdout.contains("system: You grade one property of an AI assistant's reply: coherence."), "{stdout}");
    assert!(
        stdout.contains("user: Grade the coherence of the reply below.\n\n<question>\nWhat is Rust?\n</question>"),
        "{stdout}"
    );
    let body = stdout.get(stdout.find("\n{\n").expect("the request body") + 1..).unwrap_or_default();
    let body = body.get(..body.find("\n}\n").map_or(body.len(), |i| i + 2)).unwrap_or_default();
    let request: serde_json::Value = serde_json::from_str(body).expect("the body is JSON");
    assert_eq!(request["model"], "gpt-4o");
    assert_eq!(request["messages"][1]["role"], "user");
    assert_eq!(request["response_format"]["type"], "json_object");
}

#[test]
fn the_scoring_example_scores_the_recorded_answers() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let stdout = run_example("score_rows");
    // The harness's own `test ... ` prefix may share the first line.
    let printed: Vec<&str> = stdout.lines().filter_map(|l| l.find("row").map(|i| &l[i..])).collect();
    assert_eq!(
        printed,
        [
            "row 1: pass (Some(5.0)) Direct and well organised.",
            "row 2: fail (Some(1.0)) The ideas do not connect and the answer contradicts itself.",
            "row 3: pass (Some(4.0)) Clear steps in a sensible order.",
            "rows 3, mean Some(3.3333333333333335), pass rate Some(0.6666666666666666)",
        ],
        "{stdout}"
    );
}

/// The child's half: the example's `main`, from the repository's root.
#[test]
fn run_the_example_here() {
    let result = match std::env::var(CHILD).as_deref() {
        Ok("embed") => embed::run(),
        Ok("score_rows") => score_rows::run(),
        _ => return,
    };
    if let Err(e) = result {
        panic!("the example failed: {e}");
    }
}
