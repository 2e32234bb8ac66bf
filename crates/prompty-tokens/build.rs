//! Writes the index of each built-in table (`tables/*.bin`) into the build's output folder,
//! where the crate includes it: a process then reads the index from its own image instead of
//! building it on first use (src/index.rs says what the files hold).

use std::path::Path;

#[path = "src/index.rs"]
mod index;

fn main() {
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    println!("cargo::rerun-if-changed=src/index.rs");
    for table in ["cl100k_base", "o200k_base"] {
        let source = format!("tables/{table}.bin");
        println!("cargo::rerun-if-changed={source}");
        let blob = std::fs::read(&source).unwrap_or_else(|e| panic!("{source}: {e}"));
        let (starts, slots) =
            index::build(&blob).unwrap_or_else(|| panic!("{source}: not length-prefixed tokens in rank order"));
        for (ext, bytes) in [("starts", starts), ("slots", slots)] {
            let path = Path::new(&out).join(format!("{table}.{ext}"));
            std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}
