//! Broken `.prompty` files, one problem each, and what `prompty` prints about them.
//!
//! Every file in `fixtures/diagnostics/` is checked with `prompty check <name>`, run from the
//! fixture's folder so the paths in the output are relative; every file in `fixtures/load/`
//! goes through `prompty load <name>`. The snapshot is the exit code, stdout and stderr as a
//! user sees them without colour.

use std::path::Path;
use std::process::Command;

/// Environment variables the fixtures reference and that must stay unset.
const UNSET_VARS: &[&str] = &["PROMPTY_FIXTURE_UNSET_ENDPOINT"];

/// Runs `prompty <command> <flags> <file>` in the file's folder and describes the result.
fn run(command: &str, flags: &[&str], path: &Path) -> String {
    let dir = path.parent().expect("fixture has a folder");
    let name = path.file_name().expect("fixture has a name");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_prompty"));
    cmd.arg(command).args(flags).arg(name).current_dir(dir);
    // Pin everything that could change how the report is drawn.
    cmd.env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .env("TERM", "dumb")
        .env("RUST_BACKTRACE", "0")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR");
    for var in UNSET_VARS {
        cmd.env_remove(var);
    }
    let out = cmd.output().expect("the prompty binary runs");
    let code = out.status.code().map_or_else(|| "killed by a signal".to_owned(), |c| c.to_string());
    format!(
        "$ prompty {command} {}{}\nexit code: {code}\n----- stdout -----\n{}----- stderr -----\n{}",
        flags.iter().map(|f| format!("{f} ")).collect::<String>(),
        name.to_string_lossy(),
        visible(&String::from_utf8_lossy(&out.stdout)),
        visible(&String::from_utf8_lossy(&out.stderr)),
    )
}

/// Control characters other than newline and tab shown as their Unicode pictures (a NUL
/// byte in a quoted source line becomes `␀`), so snapshots stay text.
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or(c),
            '\u{7f}' => '\u{2421}',
            c => c,
        })
        .collect()
}

#[test]
fn check_reports() {
    insta::glob!("../fixtures/diagnostics", "*.prompty", |path| {
        // The v1 fixtures are promptflow files, for which `P030` is off unless selected.
        let v1 = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("v1_"));
        let flags: &[&str] = if v1 { &["--extend-select", "P030"] } else { &[] };
        insta::assert_snapshot!("check", run("check", flags, path));
    });
}

#[test]
fn load_reports() {
    insta::glob!("../fixtures/load", "*.prompty", |path| {
        insta::assert_snapshot!("load", run("load", &[], path));
    });
}
