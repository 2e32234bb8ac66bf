//! File-level suppressions reach the loader's own errors, including those of files the
//! loader rejects before parsing them (a NUL byte, a file over the size limit): the
//! directive is found in the pieces the loader still splits.

use prompty_lint::Selection;
use prompty_syntax::{LoadOptions, MapHost, load_bytes};

/// The codes `check` reports for `bytes`, and how many findings were silenced.
fn codes(bytes: &[u8]) -> (Vec<&'static str>, usize) {
    let options = LoadOptions { lint: true, ..LoadOptions::default() };
    let loaded = load_bytes(bytes, &MapHost::new(), &options);
    let text = std::str::from_utf8(bytes).expect("the cases are UTF-8");
    let report = prompty_lint::check(text, &loaded, &Selection::all());
    (report.findings.iter().map(|f| f.diagnostic.code.id).collect(), report.suppressed)
}

#[test]
fn a_file_level_directive_silences_a_nul_byte() {
    assert_eq!(codes(b"---\nname: x\n---\nuser:\nhi\0"), (vec!["P006"], 0));
    assert_eq!(codes(b"---\nname: x # prompty: ignore[P006]\n---\nuser:\nhi\0"), (vec![], 1));
}

#[test]
fn a_file_level_directive_silences_a_file_over_the_size_limit() {
    let big = |head: &str| {
        let mut text = head.as_bytes().to_vec();
        text.resize(prompty_syntax::MAX_FILE_BYTES + 1, b'a');
        text
    };
    assert_eq!(codes(&big("---\nname: x\n---\nuser:\n")), (vec!["P007"], 0));
    assert_eq!(codes(&big("---\nname: x # prompty: ignore[file-too-large]\n---\nuser:\n")), (vec![], 1));
}
