//! The README's "Embedding" section: its first `rust` block is `examples/embed.rs`, word for
//! word, at most 15 lines, and it runs from the repository's root (where `prompts/` is),
//! printing the messages and the OpenAI request body.

#![cfg(all(feature = "std-host", feature = "wire"))]

use std::path::{Path, PathBuf};
use std::process::Command;

// The example's `main`, compiled into this test crate (the test harness brings its own
// entry point; this `main` is an ordinary function here).
include!("../examples/embed.rs");

/// Set in the child process that runs the example.
const CHILD: &str = "PROMPTY_README_EXAMPLE_CHILD";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The first ```rust block after the heading `## Embedding`.
fn first_rust_block(readme: &str) -> Option<String> {
    let section = readme.split("\n## Embedding\n").nth(1)?;
    let start = section.find("\n```rust\n")? + "\n```rust\n".len();
    let len = section.get(start..)?.find("\n```\n")?;
    Some(format!("{}\n", section.get(start..start + len)?))
}

#[test]
fn the_readme_example_is_the_example_file() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let block = first_rust_block(&readme).expect("a ```rust block in ## Embedding");
    let example = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/embed.rs"))
        .expect("examples/embed.rs");
    assert_eq!(block, example, "README.md's Embedding block and examples/embed.rs differ");
    assert!(block.lines().count() <= 15, "the example has {} lines", block.lines().count());
}

/// Runs the example (as its `main`, compiled into this test) in a child process started from
/// the repository's root, and reads what it prints.
#[test]
fn the_readme_example_runs_and_prints_messages_and_the_request() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new(exe)
        .args(["run_the_example_here", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .current_dir(repo_root())
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the example failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
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

/// The child's half: the example's `main`, from the repository's root.
#[test]
fn run_the_example_here() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    if let Err(e) = main() {
        panic!("the example failed: {e:#}");
    }
}
