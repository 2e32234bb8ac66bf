//! `codes::default_severity` tells the level each loader code is reported at: every
//! diagnostic over the repository's prompt files and the conformance data agrees with it.

use std::path::{Path, PathBuf};

use prompty_syntax::{LoadOptions, MapHost, codes, load_bytes};

fn prompt_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            prompt_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "prompty") {
            out.push(path);
        }
    }
}

#[test]
fn every_reported_level_is_the_codes_level() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["crates", "prompts", "../shared/conformance"] {
        prompt_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "only {} files found", files.len());
    let mut seen = std::collections::BTreeSet::new();
    for file in &files {
        let Ok(bytes) = std::fs::read(file) else { continue };
        for lint in [false, true] {
            let options = LoadOptions { path: Some(file.clone()), lint, ..LoadOptions::default() };
            for d in load_bytes(&bytes, &MapHost::new(), &options).diagnostics {
                if d.code == codes::ENV_NOT_SET {
                    continue;
                }
                seen.insert(d.code.id);
                assert_eq!(d.severity, codes::default_severity(d.code), "{}: {} {}", file.display(), d.code, d.message);
            }
        }
    }
    assert!(seen.len() >= 10, "too few codes exercised: {seen:?}");
}
