//! `prompty snapshot` as a team uses it: names from prompt paths, stale files, the request
//! in the snapshot, failing prompts, pending `.snap.new` files and their review, and runs
//! that race or cannot write. Each run ends within a bounded time (a watchdog kills it).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use prompty_test_support::TempDir;

/// How long one `prompty` run may take before it counts as hung.
const WATCHDOG: Duration = Duration::from_secs(120);

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `prompty ARGS` in `dir` with extra environment variables and `input` on stdin.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)], input: &str) -> Out {
    let mut child = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env("RUST_BACKTRACE", "0")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the prompty binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_owned();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let done = prompty_test_support::finish(child, WATCHDOG, &format!("prompty {args:?}"));
    let _ = feeder.join();
    assert!(!done.stderr.contains("panicked"), "prompty {args:?} panicked:\n{}", done.stderr);
    Out { code: done.status.code(), stdout: done.stdout, stderr: done.stderr }
}

fn prompty(dir: &Path, args: &[&str]) -> Out {
    run(dir, args, &[], "")
}

const GREET: &str = "---\nname: greet\nmodel:\n  id: gpt-4o\n  options:\n    temperature: 0.2\ninputs:\n  who: {kind: string, default: Ada}\n---\nuser:\nHello {{ who }}.\n";

/// Two prompts named `greet.prompty` in different folders, one with cases.
fn project(name: &str) -> TempDir {
    let tmp = TempDir::new(name);
    tmp.write("prompts/greet.prompty", GREET);
    tmp.write(
        "prompts/team/greet.prompty",
        "---\nname: team\ninputs:\n  team: {kind: string, required: true}\n---\nsystem:\nWelcome to {{ team }}.\n",
    );
    tmp.write("prompts/team/greet.cases.yaml", "search:\n  team: Search\nads:\n  team: Ads\n");
    tmp
}

#[test]
fn snapshot_two_prompts_with_one_file_name_get_their_own_snapshots() {
    let tmp = project("same-name");
    let out = prompty(tmp.path(), &["snapshot", "--update"]);
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), "0 unchanged, 0 updated, 3 written\n"));
    assert_eq!(
        tmp.files("snapshots"),
        ["prompts/greet@default.snap", "prompts/team/greet@ads.snap", "prompts/team/greet@search.snap"]
    );
    assert!(tmp.read("snapshots/prompts/team/greet@ads.snap").contains("input_file: prompts/team/greet.prompty\n"));
    // The names do not depend on how the prompts are named on the command line.
    for args in [
        &["snapshot", "--check"][..],
        &["snapshot", "--check", "prompts/team", "prompts/greet.prompty"],
        &["snapshot", "--check", "prompts", "./prompts/team/../greet.prompty"],
    ] {
        let out = prompty(tmp.path(), args);
        assert_eq!(out.code, Some(0), "{args:?}: {}{}", out.stdout, out.stderr);
    }
    let abs = tmp.path().join("prompts").to_string_lossy().into_owned();
    let out = prompty(tmp.path(), &["snapshot", "--check", &abs]);
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), "3 unchanged, 0 changed, 0 new\n"), "{}", out.stdout);
    // A prompt outside the root is an error that names it, and the others still run.
    let elsewhere = TempDir::new("elsewhere");
    let outside = elsewhere.write("x.prompty", "---\nname: x\n---\nuser:\nhi\n");
    let out = prompty(tmp.path(), &["snapshot", "--check", "prompts", &outside.to_string_lossy()]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("x.prompty: outside the project root"), "{}", out.stderr);
    assert!(out.stderr.ends_with("3 unchanged, 0 changed, 0 new, 1 failed\n"), "{}", out.stderr);
}

#[test]
fn snapshot_model_and_options_are_part_of_the_snapshot() {
    let tmp = project("model-change");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    let snap = tmp.read("snapshots/prompts/greet@default.snap");
    assert!(
        snap.contains("=== request: openai chat ===\n{\n  \"model\": \"gpt-4o\",\n  \"temperature\": 0.2\n}\n"),
        "{snap}"
    );
    for (from, to, line) in [
        ("temperature: 0.2", "temperature: 0.9", "+  \"temperature\": 0.9"),
        ("id: gpt-4o", "id: gpt-4.1", "+  \"model\": \"gpt-4.1\","),
        ("  options:", "  apiType: responses\n  options:", "+=== request: openai responses ==="),
    ] {
        tmp.write("prompts/greet.prompty", GREET.replace(from, to));
        let out = prompty(tmp.path(), &["snapshot", "--check"]);
        assert_eq!(out.code, Some(1), "{to}: {}", out.stderr);
        assert!(out.stdout.contains(line), "{to}: {}", out.stdout);
        assert_eq!(out.stderr, "2 unchanged, 1 changed, 0 new\n");
    }
}

#[test]
fn snapshot_env_references_render_as_placeholders_set_or_unset() {
    let tmp = TempDir::new("env");
    tmp.write(
        "prompts/az.prompty",
        "---\nname: az\nmodel:\n  id: ${env:DEPLOYMENT}\n  provider: azure\n  connection:\n    kind: key\n    endpoint: ${env:AZURE_OPENAI_ENDPOINT}\n    apiKey: ${env:AZURE_OPENAI_API_KEY}\n    token: literal-token-in-file\n---\nsystem:\nHi.\n",
    );
    // Nothing is set: the run does not fail and shows the references.
    let unset = run(tmp.path(), &["snapshot", "--update"], &[], "");
    assert_eq!(unset.code, Some(0), "{}", unset.stderr);
    let snap = tmp.read("snapshots/prompts/az@default.snap");
    assert!(snap.contains("\"model\": \"${env:DEPLOYMENT}\""), "{snap}");
    assert!(snap.contains("\"endpoint\": \"${env:AZURE_OPENAI_ENDPOINT}\""), "{snap}");
    assert!(snap.contains("\"apiKey\": \"${env:AZURE_OPENAI_API_KEY}\""), "{snap}");
    assert!(snap.contains("\"token\": \"(literal value not shown)\""), "{snap}");
    // Set on this machine: the same snapshot, and no value is shown anywhere.
    let env = [
        ("DEPLOYMENT", "prod-deployment-77"),
        ("AZURE_OPENAI_ENDPOINT", "https://private-endpoint.example"),
        ("AZURE_OPENAI_API_KEY", "sk-live-SECRET-0001"),
    ];
    for args in [&["snapshot", "--check"][..], &["snapshot", "--check", "--format", "markdown"]] {
        let out = run(tmp.path(), args, &env, "");
        assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
        for (_, value) in env {
            assert!(!out.stdout.contains(value) && !out.stderr.contains(value), "{value}");
        }
    }
    // A changed prompt writes a pending file: it holds no value either.
    tmp.write(
        "prompts/az.prompty",
        std::fs::read_to_string(tmp.path().join("prompts/az.prompty")).expect("read").replace("Hi.", "Hello."),
    );
    let out = run(tmp.path(), &["snapshot", "--check"], &env, "");
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let pending = tmp.read("snapshots/prompts/az@default.snap.new");
    for (_, value) in env {
        assert!(!pending.contains(value) && !out.stdout.contains(value), "{value}: {pending}");
    }
}

#[test]
fn snapshot_failing_prompts_are_reported_and_the_others_still_run() {
    let tmp = project("failures");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    // One prompt gets a template error, one case loses its required input, one prompt
    // is new and renders fine.
    tmp.write("prompts/greet.prompty", GREET.replace("Hello {{ who }}.", "Hello {{ who }.\n"));
    tmp.write("prompts/team/greet.cases.yaml", "search:\n  team: Search\nads: {}\n");
    tmp.write("prompts/fresh.prompty", "---\nname: fresh\n---\nuser:\nNew.\n");
    let out = prompty(tmp.path(), &["snapshot", "--update"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    let errors: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 2, "{}", out.stderr);
    assert!(errors[0].starts_with("error: prompts/greet.prompty:11:"), "{}", errors[0]);
    assert_eq!(errors[1], "error: prompts/team/greet.cases.yaml:3:1: Missing required input: team (case `ads`)");
    assert!(out.stderr.ends_with("1 unchanged, 0 updated, 1 written, 2 failed\n"), "{}", out.stderr);
    // The snapshots of what failed are kept, not pruned as stale.
    assert_eq!(
        tmp.files("snapshots"),
        [
            "prompts/fresh@default.snap",
            "prompts/greet@default.snap",
            "prompts/team/greet@ads.snap",
            "prompts/team/greet@search.snap"
        ]
    );
    let check = prompty(tmp.path(), &["snapshot", "--check"]);
    assert_eq!(check.code, Some(2));
    assert!(check.stderr.ends_with("2 unchanged, 0 changed, 0 new, 2 failed\n"), "{}", check.stderr);
}

#[test]
fn snapshot_stale_files_are_reported_and_pruned_and_nothing_else_is_touched() {
    let tmp = project("stale");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    // Files that are not prompt snapshots: left alone and never reported.
    tmp.write("snapshots/README.md", "notes\n");
    tmp.write("snapshots/hand.snap", "no header at all\n");
    tmp.write("snapshots/prompts/lib.snap", "---\nsource: src/lib.rs\ninput_file: src/lib.rs\n---\nrust\n");
    tmp.write("snapshots/prompts/team/greet@ads.txt", "a note beside a snapshot\n");
    // A removed case and a removed prompt.
    tmp.write("prompts/team/greet.cases.yaml", "search:\n  team: Search\n");
    std::fs::remove_file(tmp.path().join("prompts/greet.prompty")).expect("remove");
    let out = prompty(tmp.path(), &["snapshot", "--check"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "stale snapshot snapshots/prompts/greet@default.snap (of prompts/greet.prompty case `default`, which no longer renders to this file; `--update` or `--prune` removes it)\n\
         stale snapshot snapshots/prompts/team/greet@ads.snap (of prompts/team/greet.prompty case `ads`, which no longer renders to this file; `--update` or `--prune` removes it)\n"
    );
    assert_eq!(out.stderr, "1 unchanged, 0 changed, 0 new, 2 stale\n");
    // A run over part of the prompts leaves the snapshots of the others alone.
    let part = prompty(tmp.path(), &["snapshot", "--prune", "prompts/team/greet.prompty"]);
    assert_eq!(
        (part.code, part.stderr.as_str()),
        (Some(0), "removed stale snapshot snapshots/prompts/team/greet@ads.snap\n1 removed\n")
    );
    assert!(tmp.exists("snapshots/prompts/greet@default.snap"));
    let out = prompty(tmp.path(), &["snapshot", "--update"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        out.stderr,
        "removed stale snapshot snapshots/prompts/greet@default.snap\n1 unchanged, 0 updated, 0 written, 1 removed\n"
    );
    assert_eq!(
        tmp.files("snapshots"),
        ["README.md", "hand.snap", "prompts/lib.snap", "prompts/team/greet@ads.txt", "prompts/team/greet@search.snap"]
    );
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check"]).code, Some(0));
}

#[test]
fn snapshot_check_leaves_pending_files_and_review_takes_answers_one_by_one() {
    let tmp = project("review");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    let before = tmp.read("snapshots/prompts/team/greet@ads.snap");
    tmp.write("prompts/team/greet.prompty", "---\nname: team\ninputs:\n  team: {kind: string, required: true}\n---\nsystem:\nWelcome to the {{ team }} team.\n");
    tmp.write("prompts/new.prompty", "---\nname: new\n---\nuser:\nNew.\n");
    let out = prompty(tmp.path(), &["snapshot", "--check"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let pending =
        ["prompts/new@default.snap.new", "prompts/team/greet@ads.snap.new", "prompts/team/greet@search.snap.new"];
    let snaps = ["prompts/greet@default.snap", "prompts/team/greet@ads.snap", "prompts/team/greet@search.snap"];
    let mut all: Vec<&str> = pending.iter().chain(&snaps).copied().collect();
    all.sort();
    assert_eq!(tmp.files("snapshots"), all);
    // The snapshot itself is unchanged until accepted.
    assert_eq!(tmp.read("snapshots/prompts/team/greet@ads.snap"), before);
    // Accept the first, reject the second (after one unknown answer), skip the third.
    let out = run(tmp.path(), &["snapshot", "--review", "--color", "never"], &[], "a\nwhat\nr\ns\n");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("[1/3] new: prompts/new.prompty case `default` (snapshots/prompts/new@default.snap)\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("[2/3] changed: prompts/team/greet.prompty case `ads` (snapshots/prompts/team/greet@ads.snap)\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("-Welcome to Ads.\n+Welcome to the Ads team.\n"), "{}", out.stdout);
    assert!(!out.stdout.contains('\x1b'), "{}", out.stdout);
    assert!(out.stderr.contains("`what`: answer a, r, s or q"), "{}", out.stderr);
    assert!(out.stderr.ends_with("1 accepted, 1 rejected, 1 skipped\n"), "{}", out.stderr);
    assert!(tmp.read("snapshots/prompts/new@default.snap").ends_with("=== user ===\nNew.\n"));
    assert_eq!(tmp.read("snapshots/prompts/team/greet@ads.snap"), before);
    assert!(!tmp.exists("snapshots/prompts/team/greet@ads.snap.new"));
    assert!(tmp.exists("snapshots/prompts/team/greet@search.snap.new"));
    // The end of the input skips the rest.
    let out = run(tmp.path(), &["snapshot", "--review"], &[], "");
    assert!(out.stderr.ends_with("0 accepted, 0 rejected, 1 skipped\n"), "{}", out.stderr);
    // --check again: the rejected change is pending again; then accept everything.
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check"]).code, Some(1));
    let out = prompty(tmp.path(), &["snapshot", "--accept"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stderr.ends_with("2 accepted, 0 rejected, 0 skipped\n"), "{}", out.stderr);
    let out = prompty(tmp.path(), &["snapshot", "--check"]);
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), "4 unchanged, 0 changed, 0 new\n"));
    assert!(tmp.files("snapshots").iter().all(|f| f.ends_with(".snap")));
}

#[test]
fn snapshot_reject_removes_every_pending_file_and_check_cleans_resolved_ones() {
    let tmp = project("reject");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    tmp.write("prompts/greet.prompty", GREET.replace("Hello", "Hi"));
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check"]).code, Some(1));
    assert!(tmp.exists("snapshots/prompts/greet@default.snap.new"));
    // The prompt goes back: the pending file is no longer wanted and --check removes it.
    tmp.write("prompts/greet.prompty", GREET);
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check"]).code, Some(0));
    assert!(!tmp.exists("snapshots/prompts/greet@default.snap.new"));
    tmp.write("prompts/greet.prompty", GREET.replace("Hello", "Hi"));
    tmp.write("prompts/team/greet.cases.yaml", "search:\n  team: Search Team\nads:\n  team: Ads\n");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check"]).code, Some(1));
    let out = prompty(tmp.path(), &["snapshot", "--reject"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stderr.ends_with("0 accepted, 2 rejected, 0 skipped\n"), "{}", out.stderr);
    assert!(tmp.files("snapshots").iter().all(|f| f.ends_with(".snap")));
    let out = prompty(tmp.path(), &["snapshot", "--review"]);
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), "no pending or stale snapshots under snapshots\n"));
}

#[test]
fn snapshot_pending_file_left_by_a_crashed_run_is_replaced_or_rejected() {
    let tmp = project("crashed");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    // A pending file cut short (no end of header) where a rendering expects one, and
    // another of a prompt that has since been deleted.
    tmp.write("snapshots/prompts/greet@default.snap.new", "---\nsource: prompty snap");
    tmp.write(
        "snapshots/prompts/gone@x.snap.new",
        "---\nsource: prompty snapshot\ndescription: x\ninput_file: prompts/gone.prompty\n---\nold",
    );
    // --review (skip the first, try to accept the second) cannot accept the broken one.
    let out = run(tmp.path(), &["snapshot", "--review", "--color", "never"], &[], "s\na\n");
    assert!(out.stderr.contains("not a complete pending snapshot (no header)"), "{}", out.stderr);
    assert!(out.stderr.contains("cannot accept an incomplete pending snapshot; skipped"), "{}", out.stderr);
    assert_eq!(tmp.read("snapshots/prompts/greet@default.snap.new"), "---\nsource: prompty snap");
    // A clean --check removes both: the rendering matches, the other prompt is gone.
    let out = prompty(tmp.path(), &["snapshot", "--check"]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert!(!tmp.exists("snapshots/prompts/greet@default.snap.new"));
    assert!(!tmp.exists("snapshots/prompts/gone@x.snap.new"));
    // A changed rendering replaces a broken pending file with a complete one.
    tmp.write("snapshots/prompts/greet@default.snap.new", "garbage");
    tmp.write("prompts/greet.prompty", GREET.replace("Hello", "Hi"));
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check"]).code, Some(1));
    assert!(tmp.read("snapshots/prompts/greet@default.snap.new").starts_with("---\nsource: prompty snapshot\n"));
    let out = prompty(tmp.path(), &["snapshot", "--accept"]);
    assert!(out.stderr.ends_with("1 accepted, 0 rejected, 0 skipped\n"), "{}", out.stderr);
    assert!(tmp.read("snapshots/prompts/greet@default.snap").ends_with("=== user ===\nHi Ada.\n"));
}

#[test]
fn snapshot_concurrent_updates_agree_and_leave_no_temporary_file() {
    let tmp = project("concurrent");
    for i in 0..20 {
        tmp.write(&format!("prompts/many/p{i}.prompty"), format!("---\nname: p{i}\n---\nuser:\nPrompt {i}.\n"));
    }
    // Stale files for every run to remove.
    for i in 0..10 {
        tmp.write(
            &format!("snapshots/prompts/old{i}@x.snap"),
            format!("---\nsource: prompty snapshot\ndescription: x\ninput_file: prompts/old{i}.prompty\n---\nold"),
        );
    }
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_prompty"))
                .args(["snapshot", "--update"])
                .current_dir(tmp.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("runs")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
    }
    let files = tmp.files("snapshots");
    assert_eq!(files.len(), 23, "{files:?}");
    assert!(files.iter().all(|f| f.ends_with(".snap") && !f.contains("old")), "{files:?}");
    let out = prompty(tmp.path(), &["snapshot", "--check"]);
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), "23 unchanged, 0 changed, 0 new\n"));
}

#[test]
fn snapshot_folder_that_cannot_be_written_is_reported_and_check_still_reports() {
    let tmp = project("readonly");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    tmp.write("prompts/greet.prompty", GREET.replace("Hello", "Hi"));
    tmp.write("prompts/extra/x.prompty", "---\nname: x\n---\nuser:\nX.\n");
    // The folder is read-only, and where a subfolder must go there is a file (so that a
    // run as root, which ignores permissions, cannot write either).
    tmp.write("snapshots/prompts/extra", "in the way\n");
    let dir = tmp.path().join("snapshots");
    let mode = |p: &Path, m: u32| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).expect("chmod");
    };
    mode(&dir.join("prompts"), 0o555);
    let check = prompty(tmp.path(), &["snapshot", "--check"]);
    let update = prompty(tmp.path(), &["snapshot", "--update"]);
    mode(&dir.join("prompts"), 0o755);
    assert_eq!(check.code, Some(1), "{}", check.stderr);
    assert!(
        check.stdout.contains("+Hi Ada.")
            && check.stdout.contains("new snapshot snapshots/prompts/extra/x@default.snap"),
        "{}",
        check.stdout
    );
    assert!(
        check.stderr.contains(
            "warning: pending snapshot not written: snapshots/prompts/extra/x@default.snap.new: cannot write: "
        ),
        "{}",
        check.stderr
    );
    assert!(check.stderr.ends_with("2 unchanged, 1 changed, 1 new\n"), "{}", check.stderr);
    assert_eq!(update.code, Some(2), "{}", update.stderr);
    assert!(
        update.stderr.contains("error: snapshots/prompts/extra/x@default.snap: cannot write: "),
        "{}",
        update.stderr
    );
    assert_eq!(tmp.read("snapshots/prompts/extra"), "in the way\n");
}

#[test]
fn snapshot_symlinked_subfolder_is_refused() {
    let tmp = project("linked-subfolder");
    tmp.write("victim/keep.txt", "mine\n");
    std::fs::create_dir_all(tmp.path().join("snapshots/prompts")).expect("folder");
    std::os::unix::fs::symlink(tmp.path().join("victim"), tmp.path().join("snapshots/prompts/team")).expect("symlink");
    for mode in ["--update", "--check"] {
        let out = prompty(tmp.path(), &["snapshot", mode]);
        assert_eq!(out.code, Some(2), "{mode}: {}", out.stderr);
        assert!(
            out.stderr.starts_with("error: snapshots/prompts/team: the snapshot folder is a symbolic link"),
            "{}",
            out.stderr
        );
    }
    assert_eq!(tmp.files("victim"), ["keep.txt"]);
    // A pending file that is a link is neither removed nor written through.
    std::fs::remove_file(tmp.path().join("snapshots/prompts/team")).expect("remove link");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    let pending = tmp.path().join("snapshots/prompts/greet@default.snap.new");
    std::os::unix::fs::symlink(tmp.path().join("victim/keep.txt"), &pending).expect("symlink");
    let out = prompty(tmp.path(), &["snapshot", "--check"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("greet@default.snap.new: the snapshot file is a symbolic link"), "{}", out.stderr);
    tmp.write("prompts/greet.prompty", GREET.replace("Hello", "Hi"));
    let out = prompty(tmp.path(), &["snapshot", "--check"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("warning: pending snapshot not written: "), "{}", out.stderr);
    assert_eq!(tmp.read("victim/keep.txt"), "mine\n");
    assert!(std::fs::symlink_metadata(&pending).expect("link").file_type().is_symlink());
}

#[test]
fn snapshot_diffs_are_colored_on_request_and_plain_otherwise() {
    let tmp = project("color");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    tmp.write("prompts/greet.prompty", GREET.replace("Hello", "Hi"));
    let always = prompty(tmp.path(), &["snapshot", "--check", "--color", "always"]);
    assert!(always.stdout.contains("\x1b[31m-Hello Ada.\x1b[0m\n\x1b[32m+Hi Ada.\x1b[0m\n"), "{:?}", always.stdout);
    // Not a terminal: plain, whatever NO_COLOR says.
    let auto = prompty(tmp.path(), &["snapshot", "--check"]);
    assert!(auto.stdout.contains("-Hello Ada.\n+Hi Ada.\n") && !auto.stdout.contains('\x1b'), "{:?}", auto.stdout);
    // On a terminal (through `script`, when it is installed): colored unless NO_COLOR is set.
    let Ok(probe) = Command::new("script").arg("--version").output() else { return };
    if !probe.status.success() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_prompty");
    let tty = |no_color: Option<&str>| {
        let mut cmd = Command::new("script");
        cmd.args(["-qec", &format!("{bin} snapshot --check"), "/dev/null"]).current_dir(tmp.path());
        cmd.env_remove("NO_COLOR");
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        }
        String::from_utf8_lossy(&cmd.output().expect("script runs").stdout).into_owned()
    };
    let colored = tty(None);
    assert!(colored.contains("\x1b[32m+Hi Ada.\x1b[0m"), "{colored:?}");
    let plain = tty(Some("1"));
    assert!(plain.contains("+Hi Ada.") && !plain.contains("\x1b["), "{plain:?}");
}

#[test]
fn snapshot_markdown_summary_lists_changed_new_and_removed() {
    let tmp = project("markdown");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    tmp.write("prompts/greet.prompty", GREET.replace("Hello", "Hi"));
    tmp.write("prompts/team/greet.cases.yaml", "search:\n  team: Search\n\"<b>|x\":\n  team: Tags\n");
    let out = prompty(tmp.path(), &["snapshot", "--check", "--format", "markdown", "--color", "always"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let md = out.stdout;
    assert!(md.starts_with("## Prompt snapshots\n\n1 unchanged, 1 changed, 1 new, 1 removed, 0 failed.\n\n| Status | Prompt | Case | Snapshot |\n"), "{md}");
    assert!(
        md.contains("| changed | prompts/greet.prompty | default | snapshots/prompts/greet@default.snap |\n"),
        "{md}"
    );
    assert!(
        md.contains(
            "| new | prompts/team/greet.prompty | &lt;b&gt;\\|x | snapshots/prompts/team/greet@%3Cb%3E%7Cx.snap |\n"
        ),
        "{md}"
    );
    assert!(
        md.contains("| removed | prompts/team/greet.prompty | ads | snapshots/prompts/team/greet@ads.snap |\n"),
        "{md}"
    );
    assert!(
        md.contains("<details><summary>changed: prompts/greet.prompty case default</summary>\n\n```diff\n"),
        "{md}"
    );
    assert!(md.contains("-Hello Ada.\n+Hi Ada.\n```\n\n</details>\n"), "{md}");
    assert!(!md.contains('\x1b') && !md.contains("<b>"), "{md}");
}

/// The repository's own prompts match the committed snapshots, with no stale file: what
/// CI runs (`prompty snapshot --check prompts`).
#[test]
fn snapshot_workspace_prompts_match_the_committed_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = prompty(&root, &["snapshot", "--check", "prompts"]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}

#[test]
fn snapshot_unicode_case_names_differing_only_in_case_get_distinct_files() {
    let tmp = TempDir::new("unicode-case");
    tmp.write("prompts/greet.prompty", GREET);
    tmp.write("prompts/greet.cases.yaml", "Ünï:\n  who: Upper\nünï:\n  who: lower\n\"a/../b\":\n  who: Slash\n");
    let out = prompty(tmp.path(), &["snapshot", "--update"]);
    assert_eq!((out.code, out.stderr.as_str()), (Some(0), "0 unchanged, 0 updated, 3 written\n"));
    // Percent-encoded UTF-8 differs in its digits, not only in letter case, so the names
    // stay distinct on case-insensitive file systems too.
    assert_eq!(
        tmp.files("snapshots"),
        ["prompts/greet@%C3%9Cn%C3%AF.snap", "prompts/greet@%C3%BCn%C3%AF.snap", "prompts/greet@a%2F..%2Fb.snap"]
    );
    assert!(tmp.read("snapshots/prompts/greet@%C3%9Cn%C3%AF.snap").contains("description: Ünï\n"));
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check"]).code, Some(0));
}

#[test]
fn snapshot_large_stale_file_is_found_by_its_header() {
    let tmp = TempDir::new("large-stale");
    tmp.write("prompts/greet.prompty", GREET);
    let big = format!(
        "---\nsource: prompty snapshot\ndescription: big\ninput_file: prompts/greet.prompty\n---\n{}",
        "line\n".repeat(100_000)
    );
    tmp.write("snapshots/prompts/greet@big.snap", &big);
    let out = prompty(tmp.path(), &["snapshot", "--update"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stderr.ends_with("0 unchanged, 0 updated, 1 written, 1 removed\n"), "{}", out.stderr);
    assert_eq!(tmp.files("snapshots"), ["prompts/greet@default.snap"]);
}

/// A prompt whose required inputs have no cases file cannot be rendered on its defaults:
/// the error says how to add cases, and `--init-cases` writes a cases file from the inputs'
/// examples and defaults that renders, leaving an existing one alone.
#[test]
fn snapshot_missing_cases_hint_and_init_cases() {
    let tmp = TempDir::new("init-cases");
    tmp.write(
        "prompts/ask.prompty",
        "---\nname: ask\ninputs:\n  question: {kind: string, required: true, example: Why is the sky blue?}\n  tone: {kind: string, default: plain}\n  count: {kind: integer, required: true}\n---\nsystem:\nAnswer in a {{ tone }} tone, {{ count }} sentences.\nuser:\n{{ question }}\n",
    );
    tmp.write("prompts/kept.prompty", GREET);
    tmp.write("prompts/kept.cases.yaml", "mine:\n  who: Grace\n");
    let out = prompty(tmp.path(), &["snapshot", "--update", "prompts"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("Missing required input"), "{}", out.stderr);
    assert!(out.stderr.contains("help: prompts/ask.prompty has no cases file"), "{}", out.stderr);
    assert!(out.stderr.contains("`prompty snapshot --init-cases prompts/ask.prompty`"), "{}", out.stderr);

    let out = prompty(tmp.path(), &["snapshot", "--init-cases", "prompts"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stderr.contains("wrote prompts/ask.cases.yaml; fill in `count`"), "{}", out.stderr);
    assert!(out.stderr.contains("1 cases file written, 1 kept as they are"), "{}", out.stderr);
    let written = std::fs::read_to_string(tmp.path().join("prompts/ask.cases.yaml")).expect("written");
    assert!(written.contains("example:\n  question: \"Why is the sky blue?\"\n  tone: \"plain\"\n"), "{written}");
    assert!(written.contains("  count: 0  # TODO"), "{written}");
    let kept = std::fs::read_to_string(tmp.path().join("prompts/kept.cases.yaml")).expect("kept");
    assert_eq!(kept, "mine:\n  who: Grace\n");
    // The new file is a valid cases file: the prompts render and `check` has nothing to say.
    let out = prompty(tmp.path(), &["snapshot", "--update", "prompts"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let snap = std::fs::read_to_string(tmp.path().join("snapshots/prompts/ask@example.snap")).expect("snapshot");
    assert!(snap.contains("Answer in a plain tone, 0 sentences.\n") && snap.contains("Why is the sky blue?"), "{snap}");
    let check = prompty(tmp.path(), &["check", "prompts"]);
    assert_eq!(check.code, Some(0), "{}{}", check.stdout, check.stderr);
    // A second run writes nothing.
    let again = prompty(tmp.path(), &["snapshot", "--init-cases", "prompts"]);
    assert!(again.stderr.contains("0 cases files written, 2 kept"), "{}", again.stderr);
}

/// A removed case leaves a stale snapshot: `--review` offers its removal (accepting
/// removes it, rejecting keeps it), and `--accept` removes it.
#[test]
fn snapshot_review_offers_stale_snapshots() {
    let tmp = project("review-stale");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update", "prompts"]).code, Some(0));
    let ads = tmp.path().join("snapshots/prompts/team/greet@ads.snap");
    assert!(ads.is_file());
    tmp.write("prompts/team/greet.cases.yaml", "search:\n  team: Search\n");
    let out = run(tmp.path(), &["snapshot", "--review", "--color", "never"], &[], "r\n");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("removed: prompts/team/greet.prompty case `ads` no longer renders to"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("-Welcome to Ads."), "{}", out.stdout);
    assert!(ads.is_file(), "a rejected removal keeps the file");
    assert!(out.stderr.contains("0 accepted, 1 rejected, 0 skipped"), "{}", out.stderr);
    let out = run(tmp.path(), &["snapshot", "--review", "--color", "never"], &[], "a\n");
    assert!(out.stderr.contains("1 accepted, 0 rejected, 0 skipped"), "{}", out.stderr);
    assert!(!ads.exists(), "an accepted removal removes the file");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check", "prompts"]).code, Some(0));
    // --accept removes stale snapshots along with accepting pending ones.
    tmp.write("prompts/team/greet.cases.yaml", "ads:\n  team: Ads\n");
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check", "prompts"]).code, Some(1));
    let out = prompty(tmp.path(), &["snapshot", "--accept"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stderr.contains("removed stale snapshot"), "{}", out.stderr);
    assert_eq!(prompty(tmp.path(), &["snapshot", "--check", "prompts"]).code, Some(0), "everything accepted");
}

/// The scoring settings of a judge prompt are part of its snapshots: a changed threshold
/// fails `--check` with the change in the diff.
#[test]
fn snapshot_evaluator_settings_are_part_of_the_snapshot() {
    let tmp = TempDir::new("evaluator-settings");
    let judge = |threshold: u8| {
        format!(
            "---\nname: judge\nmetadata:\n  evaluator:\n    answer: tags\n    range: [1, 5]\n    threshold: {threshold}\ninputs:\n  answer: {{kind: string, default: Paris}}\n---\nsystem:\nRate 1-5.\nuser:\n{{{{ answer }}}}\n"
        )
    };
    tmp.write("prompts/judge.prompty", judge(3));
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update", "prompts"]).code, Some(0));
    let snap = std::fs::read_to_string(tmp.path().join("snapshots/prompts/judge@default.snap")).expect("snapshot");
    assert!(snap.contains("=== evaluator ===\n{\n  \"answer\": \"tags\""), "{snap}");
    tmp.write("prompts/judge.prompty", judge(4));
    let out = prompty(tmp.path(), &["snapshot", "--check", "--color", "never", "prompts"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stdout.contains("-  \"threshold\": 3\n+  \"threshold\": 4"), "{}", out.stdout);
}
