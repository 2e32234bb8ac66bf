//! The prompt files the tests run over: the bundled prompts and the conformance corpora.

use std::path::{Path, PathBuf};

/// The folders of `.prompty` files: the repository's `prompts/`, the spec's fixtures and the
/// azure-ai-evaluation prompts of `shared/conformance/`.
pub fn prompt_dirs() -> [PathBuf; 3] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    [
        root.join("prompts"),
        root.join("../shared/conformance/prompty-spec/fixtures"),
        root.join("../shared/conformance/azure-eval/prompts"),
    ]
}

/// Every `.prompty` file of [`prompt_dirs`], sorted by path.
///
/// # Panics
///
/// When a folder is missing or holds too few files to test anything: a corpus test over
/// no files would pass without testing.
pub fn prompt_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in prompt_dirs() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("missing {}: {e}", dir.display()));
        files.extend(
            entries.filter_map(|e| Some(e.ok()?.path())).filter(|p| p.extension().is_some_and(|e| e == "prompty")),
        );
    }
    files.sort();
    assert!(files.len() > 40, "only {} prompt files", files.len());
    files
}
