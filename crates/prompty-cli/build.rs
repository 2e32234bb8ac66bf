//! Which programs the integration tests drive are on this machine: a test that needs one
//! is compiled as ignored, with the reason, when it is missing (`cfg(has_nvim)`,
//! `cfg(has_script)`, `cfg(has_setpriv)`, `cfg(has_chromium)`, `cfg(has_xmllint)`). Under `CI=true` every one counts as present, so
//! that a missing program fails its test instead of skipping it (`.ci/run` installs them).

use std::path::Path;

const PROGRAMS: [(&str, &str); 5] = [
    ("nvim", "has_nvim"),
    ("script", "has_script"),
    ("setpriv", "has_setpriv"),
    ("chromium", "has_chromium"),
    ("xmllint", "has_xmllint"),
];

fn main() {
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let path = std::env::var_os("PATH").unwrap_or_default();
    for (program, cfg) in PROGRAMS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        let found = std::env::split_paths(&path).any(|dir| is_program(&dir.join(program)));
        if found || ci {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}

fn is_program(path: &Path) -> bool {
    path.is_file()
}
