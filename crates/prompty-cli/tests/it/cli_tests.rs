//! Each command's output and exit code, as files: `tests/cmd/*.toml`.

#[test]
fn cli_tests() {
    trycmd::TestCases::new().case("tests/cmd/*.toml");
}

use std::path::Path;
use std::process::Command;

use prompty_test_support::TempDir;

fn prompty(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_API_KEY")
        .env_remove("AZURE_OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .expect("the prompty binary runs")
}

/// `prompty new NAME` writes a v2 prompt that `check` passes without a finding, that
/// renders and compiles with no API key set, and is never written over.
#[test]
fn new_prompt_passes_check_and_is_not_overwritten() {
    let tmp = TempDir::new("new-prompt");
    let out = prompty(tmp.path(), &["new", "prompts/summarize"]);
    assert!(!out.status.success(), "the folder does not exist yet");
    std::fs::create_dir(tmp.path().join("prompts")).expect("mkdir");
    let out = prompty(tmp.path(), &["new", "prompts/summarize"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let file = tmp.path().join("prompts/summarize.prompty");
    let text = std::fs::read_to_string(&file).expect("written");
    assert!(text.starts_with("---\nname: summarize\n"), "{text}");
    let check = prompty(tmp.path(), &["check", "prompts/summarize.prompty"]);
    assert_eq!(check.status.code(), Some(0), "{}", String::from_utf8_lossy(&check.stdout));
    assert!(check.stdout.is_empty(), "no finding: {}", String::from_utf8_lossy(&check.stdout));
    let compile = prompty(tmp.path(), &["compile", "prompts/summarize.prompty"]);
    assert_eq!(compile.status.code(), Some(0), "{}", String::from_utf8_lossy(&compile.stderr));
    std::fs::write(&file, "mine\n").expect("write");
    let again = prompty(tmp.path(), &["new", "prompts/summarize.prompty"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already; left as it is"));
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "mine\n");
}

/// Each shell's completion script names the subcommands; the manual page has every one.
#[test]
fn completions_for_each_shell_and_the_manual_page() {
    let tmp = TempDir::new("completions");
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = prompty(tmp.path(), &["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        for command in ["check", "render", "snapshot", "rule", "new"] {
            assert!(script.contains(command), "{shell}: no `{command}`");
        }
    }
    let bad = prompty(tmp.path(), &["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
    let man = prompty(tmp.path(), &["man"]);
    let page = String::from_utf8_lossy(&man.stdout);
    assert!(page.contains(".TH prompty 1") && page.contains("completions"), "{page}");
}

/// `fmt --diff` and `fmt --check` change nothing; `fmt` then makes the diff true.
#[test]
fn fmt_diff_writes_nothing_and_matches_what_fmt_writes() {
    let tmp = TempDir::new("fmt-diff");
    let messy =
        "---\ninputs:\n  q: {kind: string, default: Why?}\nname: messy\n---\nsystem :  \nBe brief.\nuser:\n{{ q }}\n";
    let file = tmp.path().join("messy.prompty");
    std::fs::write(&file, messy).expect("write");
    let diff = prompty(tmp.path(), &["fmt", "--diff", "messy.prompty"]);
    assert_eq!(diff.status.code(), Some(1));
    let check = prompty(tmp.path(), &["fmt", "--check", "messy.prompty"]);
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(check.stdout, diff.stdout, "--check prints the same diff");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), messy, "nothing written");
    assert_eq!(prompty(tmp.path(), &["fmt", "messy.prompty"]).status.code(), Some(0));
    let formatted = std::fs::read_to_string(&file).expect("read");
    // The diff's `+` and context lines are the formatted file.
    let after: String = String::from_utf8_lossy(&diff.stdout)
        .lines()
        .skip(3)
        .filter(|l| !l.starts_with('-'))
        .map(|l| format!("{}\n", &l[1..]))
        .collect();
    assert_eq!(after, formatted);
    let clean = prompty(tmp.path(), &["fmt", "--diff", "messy.prompty"]);
    assert_eq!((clean.status.code(), clean.stdout.is_empty()), (Some(0), true));
}

/// `migrate` writes in place only what `--diff` showed, and the result passes `check`;
/// `-o` writes a new file and never overwrites one; a refused file keeps every byte.
#[test]
fn migrate_writes_what_diff_shows_and_refuses_without_changing_anything() {
    let tmp = TempDir::new("migrate");
    let cmd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd/migrate.in");
    for name in ["judge.prompty", "judge.cases.yaml", "developer.prompty"] {
        tmp.write(name, std::fs::read(cmd.join(name)).expect("fixture"));
    }
    let v1 = tmp.read("judge.prompty");
    let to_new = prompty(tmp.path(), &["migrate", "judge.prompty", "-o", "judge.v2.prompty"]);
    assert_eq!(to_new.status.code(), Some(0), "{}", String::from_utf8_lossy(&to_new.stderr));
    assert_eq!(tmp.read("judge.prompty"), v1, "-o leaves the original alone");
    let again = prompty(tmp.path(), &["migrate", "judge.prompty", "-o", "judge.v2.prompty"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
    let diff = prompty(tmp.path(), &["migrate", "--diff", "judge.prompty"]);
    assert_eq!(diff.status.code(), Some(1));
    assert_eq!(tmp.read("judge.prompty"), v1, "--diff writes nothing");
    let in_place = prompty(tmp.path(), &["migrate", "judge.prompty"]);
    assert_eq!(in_place.status.code(), Some(0), "{}", String::from_utf8_lossy(&in_place.stderr));
    let v2 = tmp.read("judge.prompty");
    assert_eq!(v2, tmp.read("judge.v2.prompty"));
    assert_eq!(String::from_utf8_lossy(&diff.stdout), unified(&v1, &v2, "judge.prompty"));
    let check = prompty(tmp.path(), &["check", "judge.prompty"]);
    assert_eq!(check.status.code(), Some(0), "{}", String::from_utf8_lossy(&check.stdout));
    let twice = prompty(tmp.path(), &["migrate", "judge.prompty"]);
    assert!(String::from_utf8_lossy(&twice.stderr).contains("already a v2 file"));
    assert_eq!(tmp.read("judge.prompty"), v2);
    let before = tmp.read("developer.prompty");
    let refused = prompty(tmp.path(), &["migrate", "developer.prompty"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(tmp.read("developer.prompty"), before);
}

/// The unified diff `migrate --diff` prints, made the same way from the two texts.
fn unified(old: &str, new: &str, name: &str) -> String {
    similar::TextDiff::from_lines(old, new).unified_diff().context_radius(3).header(name, name).to_string()
}
