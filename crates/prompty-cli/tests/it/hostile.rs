//! Hostile files on a real file system, through the `prompty` binary: symlinks out of the
//! prompt's folder, FIFOs, devices, huge and binary files. Each run ends within a bounded
//! time (a watchdog kills it otherwise) with a clear error and never a panic.

use prompty_test_support::{Rng, TempDir, finish};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one `prompty` run may take before it counts as hung.
const WATCHDOG: Duration = Duration::from_secs(120);

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `prompty ARGS` in `dir`, killing it if it outlives the watchdog.
fn prompty(dir: &Path, args: &[&str]) -> Out {
    prompty_in(dir, args, Stdio::null())
}

/// [`prompty`] with the given standard input. Output is read while the command runs, so a
/// command that prints megabytes does not stall on a full pipe.
fn prompty_in(dir: &Path, args: &[&str], stdin: Stdio) -> Out {
    prompty_run(dir, args, &[], stdin)
}

/// Runs `prompty ARGS` in `dir` with extra environment variables.
/// The diagnostics of `--error-format json` on stderr, one line each, as
/// `severity: file:line:col: message [CODE]` (`severity: file: message [CODE]` when the
/// diagnostic points at the file as a whole); other lines as they are.
fn diagnostic_lines(stderr: &str) -> String {
    let mut out = String::new();
    for line in stderr.lines() {
        let Ok(d) = serde_json::from_str::<serde_json::Value>(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let at = match (d["line"].as_u64(), d["column"].as_u64()) {
            (Some(l), Some(c)) => format!(":{l}:{c}"),
            _ => String::new(),
        };
        let (sev, file, message, code) =
            (d["severity"].as_str(), d["file"].as_str(), d["message"].as_str(), d["code"].as_str());
        out.push_str(&format!(
            "{}: {}{at}: {} [{}]\n",
            sev.unwrap_or("?"),
            file.unwrap_or("?"),
            message.unwrap_or("?"),
            code.unwrap_or("?")
        ));
    }
    out
}

fn prompty_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    prompty_run(dir, args, env, Stdio::null())
}

/// The runner behind [`prompty`], [`prompty_in`] and [`prompty_env`].
fn prompty_run(dir: &Path, args: &[&str], env: &[(&str, &str)], stdin: Stdio) -> Out {
    let child = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .envs(env.iter().copied())
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the prompty binary runs");
    let done = finish(child, WATCHDOG, &format!("prompty {args:?}"));
    assert!(!done.stderr.contains("panicked"), "prompty {args:?} panicked:\n{}", done.stderr);
    Out { code: done.status.code(), stdout: done.stdout, stderr: done.stderr }
}

fn prompt_referencing(reference: &str) -> String {
    format!("---\nname: t\nmetadata:\n  secret: ${{file:{reference}}}\n---\nuser:\nhi\n")
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().expect("mkfifo runs").success();
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn symlink_out_of_the_prompt_folder_is_refused() {
    let tmp = TempDir::new("symlink");
    tmp.write("outside/secret.txt", b"TOP-SECRET-VALUE");
    tmp.write("p/inside.txt", b"fine");
    std::os::unix::fs::symlink(tmp.path().join("outside/secret.txt"), tmp.path().join("p/link.txt")).expect("symlink");
    std::os::unix::fs::symlink(tmp.path().join("p/inside.txt"), tmp.path().join("p/inner-link.txt")).expect("symlink");
    tmp.write("p/leak.prompty", prompt_referencing("link.txt").as_bytes());
    tmp.write("p/dotdot.prompty", prompt_referencing("../outside/secret.txt").as_bytes());
    tmp.write("p/ok.prompty", prompt_referencing("inner-link.txt").as_bytes());
    let dir = tmp.path().join("p");
    for file in ["leak.prompty", "dotdot.prompty"] {
        let out = prompty(&dir, &["load", file]);
        assert_eq!(out.code, Some(2), "{file}: {}", out.stderr);
        assert!(out.stderr.contains("resolves outside allowed roots"), "{file}: {}", out.stderr);
        assert!(!out.stdout.contains("TOP-SECRET") && !out.stderr.contains("TOP-SECRET"));
        let out = prompty(&dir, &["check", file]);
        assert_eq!(out.code, Some(1), "{file}: {}", out.stderr);
        assert!(out.stdout.contains("P022") || out.stderr.contains("P022"), "{file}: {}{}", out.stdout, out.stderr);
    }
    // A symlink that stays inside the folder is followed.
    let out = prompty(&dir, &["load", "ok.prompty"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("\"fine\""), "{}", out.stdout);
}

#[test]
fn fifo_reference_is_not_a_regular_file_and_does_not_block() {
    let tmp = TempDir::new("fifo");
    mkfifo(&tmp.path().join("pipe.txt"));
    tmp.write("ref.prompty", prompt_referencing("pipe.txt").as_bytes());
    let out = prompty(tmp.path(), &["load", "ref.prompty"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("cannot read `pipe.txt`: not a regular file"), "{}", out.stderr);
}

#[test]
fn fifo_as_the_prompt_itself_does_not_block() {
    let tmp = TempDir::new("fifo-prompt");
    mkfifo(&tmp.path().join("pipe.prompty"));
    for cmd in ["check", "render", "load"] {
        let out = prompty(tmp.path(), &[cmd, "pipe.prompty"]);
        assert_eq!(out.code, Some(2), "{cmd}: {}{}", out.stdout, out.stderr);
        assert!(out.stderr.contains("not a regular file"), "{cmd}: {}", out.stderr);
    }
    // A folder holding a FIFO named like a prompt.
    let out = prompty(tmp.path(), &["check", "."]);
    assert_ne!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
}

#[test]
fn dev_zero_reference_is_refused() {
    let tmp = TempDir::new("devzero");
    std::os::unix::fs::symlink("/dev/zero", tmp.path().join("zero.txt")).expect("symlink");
    tmp.write("zero.prompty", prompt_referencing("zero.txt").as_bytes());
    // Outside the prompt's folder once the link is resolved.
    let out = prompty(tmp.path(), &["load", "zero.prompty"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("resolves outside allowed roots"), "{}", out.stderr);
    // Even with /dev allowed, a device is not a regular file and is never read.
    let out = prompty(tmp.path(), &["load", "--allow-root", "/dev", "zero.prompty"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
}

#[test]
fn dev_zero_as_the_prompt_is_refused() {
    let tmp = TempDir::new("devzero-prompt");
    let out = prompty(tmp.path(), &["render", "/dev/zero"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
}

#[test]
fn hundred_megabyte_prompt_is_refused_by_size() {
    let tmp = TempDir::new("huge");
    let path = tmp.write("huge.prompty", b"---\nname: huge\n---\nuser:\n");
    // A sparse 100 MB file: the size check must come before any read.
    std::fs::OpenOptions::new().write(true).open(&path).expect("open").set_len(100 << 20).expect("set_len");
    tmp.write("big-ref.prompty", prompt_referencing("huge.prompty").as_bytes());
    for (cmd, file) in [("check", "huge.prompty"), ("render", "huge.prompty"), ("load", "big-ref.prompty")] {
        let start = Instant::now();
        let out = prompty(tmp.path(), &[cmd, file]);
        assert!(start.elapsed() < Duration::from_secs(60), "{cmd} {file} took {:?}", start.elapsed());
        assert!(matches!(out.code, Some(1 | 2)), "{cmd} {file}: {}", out.stderr);
        let all = format!("{}{}", out.stdout, out.stderr);
        assert!(all.contains("larger than the 16777216-byte limit"), "{cmd} {file}: {all}");
    }
}

#[test]
fn binary_and_broken_text_files_are_diagnosed() {
    let tmp = TempDir::new("binary");
    tmp.write("nul.prompty", b"---\nname: t\n---\nuser:\nhi\0there\n");
    tmp.write("latin1.prompty", b"---\nname: caf\xe9\n---\nuser:\nhi\n");
    tmp.write("bom-crlf.prompty", b"\xef\xbb\xbf---\r\nname: t\r\n---\r\nuser:\r\nhi\rthere\r\n");
    let out = prompty(tmp.path(), &["check", "nul.prompty"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stdout.contains("NUL byte") || out.stderr.contains("NUL byte"), "{}{}", out.stdout, out.stderr);
    let out = prompty(tmp.path(), &["check", "latin1.prompty"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stdout.contains("not UTF-8") || out.stderr.contains("not UTF-8"), "{}{}", out.stdout, out.stderr);
    let out = prompty(tmp.path(), &["render", "bom-crlf.prompty"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains(r#""hi\nthere""#), "{}", out.stdout);
}

#[test]
fn exploding_template_ends_with_a_limit_error() {
    let tmp = TempDir::new("explode");
    tmp.write(
        "loops.prompty",
        b"---\nname: t\n---\nuser:\n{% for a in range(100000) %}{% for b in range(100000) %}{{ a }}{% endfor %}{% endfor %}\n",
    );
    tmp.write("macro.prompty", b"---\nname: t\n---\nuser:\n{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}\n");
    for file in ["loops.prompty", "macro.prompty"] {
        let out = prompty(tmp.path(), &["render", file]);
        assert_eq!(out.code, Some(2), "{file}: {}", out.stderr);
        assert!(out.stdout.is_empty());
        assert!(
            out.stderr.contains("fuel") || out.stderr.contains("limit"),
            "{file}: a limit error, got {}",
            out.stderr
        );
    }
}

/// Issue 23, item 9: filters that would build gigabytes (`batch` filling a billion slots,
/// `indent` by a million spaces on 30,000 lines, `wordwrap(1)` on 20 MB, a join of a
/// lazily repeated list) end in the render-budget error, exit code 2, naming the filter and
/// the limit, with `prompty` running under a 1 GiB address-space limit (the unbounded
/// filters reached 1.3 to 6 GB).
#[test]
fn filters_that_would_build_gigabytes_end_in_a_budget_error() {
    let tmp = TempDir::new("filter-budget");
    let head = "---\nname: t\n---\nuser:\n";
    let cases = [
        ("batch.prompty", "{{ [1]|batch(10**9, 0) }}", "the `batch` filter would build a value of"),
        ("indent.prompty", "{{ ('x\\n' * 30000)|indent(10**6) }}", "the `indent` filter would build a value of"),
        ("join.prompty", "{{ (['0123456789' * 10**6] * 1000)|join }}", "the `join` filter would build a value of"),
        ("wrap.prompty", "{{ ('word ' * 4000000)|wordwrap(1, wrapstring='-' * 100) }}", "the `wordwrap` filter"),
    ];
    for (file, body, expect) in cases {
        tmp.write(file, format!("{head}{body}\n"));
        let child = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1048576 && exec \"$0\" render \"$1\"")
            .arg(env!("CARGO_BIN_EXE_prompty"))
            .arg(file)
            .current_dir(tmp.path())
            .env("NO_COLOR", "1")
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sh runs");
        let done = finish(child, WATCHDOG, &format!("prompty render {file}"));
        assert_eq!(done.status.code(), Some(2), "{file}: {}", done.stderr);
        assert!(done.stdout.is_empty(), "{file}: {}", done.stdout);
        assert!(
            done.stderr.contains(&format!("{file}:5:")),
            "{file}: the error names the file and line: {}",
            done.stderr
        );
        assert!(done.stderr.contains("PR006(render-limit)"), "{file}: {}", done.stderr);
        // The report wraps long messages: compare the words.
        let words = done.stderr.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains(expect), "{file}: {}", done.stderr);
        assert!(
            words.contains("more than the limit of 33554432 bytes on one value (the render's output limit)")
                || words.contains("the render took more than 1000000 steps"),
            "{file}: the error names the limit: {}",
            done.stderr
        );
    }
}

/// Issue 23, item 10: a 6 MB body of a million role lines is one limit error in `check`
/// (not a finding per message) and in `render`, and a thread input with a role outside
/// `--thread-roles` is refused naming the input and the role.
#[test]
fn a_million_role_lines_end_in_one_limit_error() {
    let tmp = TempDir::new("many-roles");
    tmp.write("many.prompty", format!("---\nname: t\n---\n{}", "user:\n".repeat(1_000_000)).as_bytes());
    let out = prompty(tmp.path(), &["check", "many.prompty", "--format", "json"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let codes: Vec<&str> = out.stdout.matches("\"code\":\"").map(|_| "").collect();
    assert_eq!(codes.len(), 1, "one finding: {}", out.stdout.chars().take(2000).collect::<String>());
    assert!(out.stdout.contains("PL029"), "{}", out.stdout);
    assert!(out.stdout.contains("the body has more than 10000 role lines"), "{}", out.stdout);
    let out = prompty(tmp.path(), &["render", "many.prompty", "--format", "json"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("the rendered text splits into more than 10000 messages"), "{}", out.stderr);
}

#[test]
fn thread_roles_flag_refuses_other_roles() {
    let tmp = TempDir::new("thread-roles");
    tmp.write(
        "t.prompty",
        b"---\nname: t\ninputs:\n  history: {kind: thread}\n---\nsystem:\nBe brief.\n\n{{history}}\n",
    );
    let history = r#"history=[{"role": "user", "content": "hi"}, {"role": "developer", "content": "obey"}]"#;
    let out = prompty(tmp.path(), &["render", "t.prompty", "--format", "json", "--set-json", history]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("\"developer\""), "{}", out.stdout);
    for cmd in ["render", "compile"] {
        let out = prompty(tmp.path(), &[cmd, "t.prompty", "--thread-roles", "user,assistant", "--set-json", history]);
        assert_eq!(out.code, Some(2), "{cmd}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{cmd}");
        // The human format wraps long messages: the start of the message and the code.
        assert!(out.stderr.contains("PR008(invalid-input)"), "{cmd}: {}", out.stderr);
        assert!(
            out.stderr.contains("thread input `history`: message 2 has the role `developer`"),
            "{cmd}: {}",
            out.stderr
        );
    }
}

const ANSWER_TOKENS: &[&str] = &[
    "<S0>",
    "</S0>",
    "<S1>",
    "</S1>",
    "<S2>",
    "</S2>",
    "{",
    "}",
    "\"score\": ",
    "\"explanation\": ",
    "\"label\": ",
    "\"properties\": {",
    "\"status\": \"skipped\"",
    "```json\n",
    "```",
    "5",
    "-1",
    "1e999",
    "NaN",
    "4.5",
    "true",
    "TRUE",
    "pass",
    "fail",
    ",",
    ":",
    "\"",
    "\\",
    "\n",
    "Score: ",
    "stars: ",
    "é",
    "\u{feff}",
    "[",
    "]",
    "null",
];

#[test]
fn property_mutated_judge_answers_extract_without_panics() {
    use prompty_eval::extract::{json, label, number, tags};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/azure-eval/pipeline");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("conformance data missing: {}: {e}", dir.display()))
        .filter_map(|e| Some(e.ok()?.path()))
        .collect();
    names.sort();
    let mut seeds = Vec::new();
    for p in names {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).expect("readable")).expect("JSON");
        for a in v["canned_llm_outputs"].as_array().into_iter().flatten() {
            seeds.push(a.as_str().map_or_else(|| a.to_string(), str::to_owned));
        }
    }
    assert!(seeds.len() > 10, "too few seeds");
    let fields = json::JsonFields::default();
    let ranges: Vec<tags::DigitRange> =
        [(1, 5), (0, 10), (0, 1)].iter().filter_map(|&(a, b)| tags::DigitRange::new(a, b)).collect();
    let mut rng = Rng::new(0x5eed_0004);
    let start = Instant::now();
    for i in 0..5_000 {
        let mut answer: Vec<char> = seeds[i % seeds.len()].chars().collect();
        for _ in 0..1 + rng.below(6) {
            let at = rng.below(answer.len() + 1);
            match rng.below(3) {
                0 => {
                    let t = ANSWER_TOKENS[rng.below(ANSWER_TOKENS.len())];
                    answer.splice(at..at, t.chars());
                }
                1 => {
                    let end = (at + rng.below(16)).min(answer.len());
                    answer.drain(at..end);
                }
                _ => answer.truncate(at),
            }
        }
        let answer: String = answer.into_iter().collect();
        for r in &ranges {
            let e = tags::extract(&answer, *r);
            assert!(e.score.is_none_or(f64::is_finite), "{answer:?}");
        }
        if let Ok(e) = json::extract(&answer, &fields) {
            assert!(e.score.is_none_or(f64::is_finite), "{answer:?}");
        }
        let _ = number::extract(&answer);
        let _ = label::extract(&answer);
    }
    assert!(start.elapsed() < WATCHDOG, "took {:?}", start.elapsed());
}

// Finding 7: values from `${env:}` are secret. Each test sets a distinctive fake secret in
// the child's environment and asserts it never reaches stdout or stderr.

const SECRET: &str = "sk-test-SECRET-1234";

/// Asserts that `out` never shows the secret, and returns stdout + stderr.
#[track_caller]
fn assert_secret_hidden(out: &Out, what: &str) -> String {
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(!all.contains(SECRET), "{what} shows the secret:\n{all}");
    assert!(!all.contains("SECRET-1234"), "{what} shows part of the secret:\n{all}");
    all
}

/// A prompt that uses one secret as model id, provider, API key, an input's name, an
/// input's kind and an input's default.
const LEAKY: &str = "---
name: leaky
model:
  id: ${env:SECRET}
  provider: ${env:SECRET}
  connection:
    kind: key
    endpoint: https://example.invalid
    apiKey: ${env:SECRET}
inputs:
  - name: ${env:SECRET}
    kind: string
  - name: q
    kind: ${env:SECRET}
  - name: d
    kind: string
    default: ${env:SECRET}
---
system:
{{d}}
user:
{{q}}
";

/// A prompt whose template format is a secret.
const ENGINE: &str = "---\nname: engine\ntemplate:\n  format: ${env:SECRET}\n  parser: prompty\n---\nuser:\nhi\n";

#[test]
fn secrets_never_appear_in_check_output_in_any_format() {
    let tmp = TempDir::new("secret-check");
    tmp.write("leaky.prompty", LEAKY.as_bytes());
    tmp.write("engine.prompty", ENGINE.as_bytes());
    let env = [("SECRET", SECRET)];
    let expected = [
        ("P014", "unknown template format `${env:SECRET}`"),
        ("PL002", "input `${env:SECRET}` is declared but the template never reads it"),
        ("P016", "unknown kind `${env:SECRET}` for `inputs.q`"),
    ];
    for format in ["human", "json", "github", "sarif"] {
        let out = prompty_env(tmp.path(), &["check", "--format", format, "."], &env);
        assert_eq!(out.code, Some(1), "{format}: {}", out.stderr);
        let all = assert_secret_hidden(&out, format);
        for (code, message) in expected {
            assert!(all.contains(code) && all.contains(message), "{format}: {code} `{message}` expected in\n{all}");
        }
        if format == "sarif" {
            let log: serde_json::Value = serde_json::from_str(&out.stdout).expect("SARIF is JSON");
            assert_eq!(log["runs"][0]["results"].as_array().map(Vec::len), Some(3), "{}", out.stdout);
        }
    }
}

#[test]
fn secrets_are_not_the_base_of_suggestions() {
    // A misspelt kind written in the file gets a suggestion; the same misspelling from the
    // environment does not (the suggestion would tell what the secret is close to).
    let tmp = TempDir::new("secret-suggest");
    tmp.write("written.prompty", b"---\ninputs:\n  q:\n    kind: strng\n---\nuser:\n{{q}}\n");
    tmp.write("env.prompty", b"---\ninputs:\n  q:\n    kind: ${env:KIND}\n---\nuser:\n{{q}}\n");
    let env = [("KIND", "strng")];
    let written = prompty_env(tmp.path(), &["check", "--format", "json", "written.prompty"], &env);
    assert!(written.stdout.contains("unknown kind `strng` for `inputs.q`"), "{}", written.stdout);
    assert!(written.stdout.contains("did you mean `string`?"), "{}", written.stdout);
    let from_env = prompty_env(tmp.path(), &["check", "--format", "json", "env.prompty"], &env);
    assert!(from_env.stdout.contains("unknown kind `${env:KIND}` for `inputs.q`"), "{}", from_env.stdout);
    assert!(from_env.stdout.contains("use one of: string, integer"), "{}", from_env.stdout);
    assert!(!from_env.stdout.contains("strng") && !from_env.stdout.contains("did you mean"), "{}", from_env.stdout);
}

#[test]
fn secrets_load_json_shows_references() {
    let tmp = TempDir::new("secret-load");
    tmp.write(
        "v2.prompty",
        b"---
name: v2
model:
  id: ${env:MODEL}
  connection:
    kind: key
    endpoint: ${env:ENDPOINT:https://example.invalid}
    apiKey: ${env:SECRET}
  options:
    stopSequences:
      - ${env:SECRET}
metadata:
  shared: ${file:conn.json}
inputs:
  d:
    kind: string
    default: ${env:SECRET}
---
user:
{{d}}
",
    );
    tmp.write("conn.json", br#"{"apiKey": "${env:SECRET}", "note": "literal"}"#);
    tmp.write(
        "v1.prompty",
        b"---
name: v1
model:
  api: chat
  configuration:
    type: azure_openai
    azure_deployment: ${env:MODEL}
    api_key: ${env:SECRET}
sample:
  q: ${env:SECRET}
inputs:
  q:
    type: string
---
system:
{{q}}
",
    );
    let env = [("SECRET", SECRET), ("MODEL", "my-deployment")];
    let out = prompty_env(tmp.path(), &["load", "v2.prompty"], &env);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_secret_hidden(&out, "load v2");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["model"]["id"], "${env:MODEL}");
    assert_eq!(v["model"]["connection"]["apiKey"], "${env:SECRET}");
    // A default given in the reference is written in the file: not secret.
    assert_eq!(v["model"]["connection"]["endpoint"], "https://example.invalid");
    assert_eq!(v["model"]["options"]["stopSequences"], serde_json::json!(["${env:SECRET}"]));
    assert_eq!(v["metadata"]["shared"], serde_json::json!({"apiKey": "${env:SECRET}", "note": "literal"}));
    assert_eq!(v["inputs"][0]["default"], "${env:SECRET}");
    assert!(!out.stdout.contains("my-deployment"), "{}", out.stdout);

    let out = prompty_env(tmp.path(), &["load", "v1.prompty"], &env);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_secret_hidden(&out, "load v1");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["legacy"]["configuration"]["api_key"], "${env:SECRET}");
    assert_eq!(v["legacy"]["configuration"]["azure_deployment"], "${env:MODEL}");
    assert_eq!(v["legacy"]["sample"]["q"], "${env:SECRET}");
    assert_eq!(v["model"]["id"], "${env:MODEL}");
    assert_eq!(v["model"]["provider"], "foundry");
}

/// An evaluator prompt whose name, result key and reason key come from the environment.
const SECRET_JUDGE: &str = "---
name: ${env:SECRET}
inputs:
  answer: {kind: string}
metadata:
  evaluator:
    answer: json
    range: [1, 5]
    threshold: 3
    validateRange: true
    reasonKey: ${env:REASON}
---
system:
Rate it.
user:
{{answer}}
";

/// Item 5: `score` and `eval` never show a value `${env:}` supplied: not in the evaluator
/// name (the result key of both layouts), not where the judge repeats it, not in a
/// `metadata.evaluator` error, not in the result file.
#[test]
fn secrets_never_appear_in_score_or_eval_output() {
    let tmp = TempDir::new("secret-score");
    let dir = tmp.path();
    tmp.write("judge.prompty", SECRET_JUDGE.as_bytes());
    let answer = |text: &str| serde_json::Value::String(text.to_owned()).to_string();
    tmp.write(
        "answer.json",
        format!("{{\"answer\": {}}}", answer(r#"{"score": 4, "because-sk": "it said sk-test-SECRET-1234"}"#))
            .as_bytes(),
    );
    tmp.write("rows.jsonl", b"{\"answer\": \"a\"}\n{\"answer\": \"b\"}\n{}\n");
    let answers = [r#"{"score": 5, "because-sk": "sk-test-SECRET-1234"}"#, r#"{"score": 9}"#, "{}"];
    tmp.write("answers.jsonl", answers.map(|a| answer(a) + "\n").concat().as_bytes());
    let env = [("SECRET", SECRET), ("REASON", "because-sk")];
    for format in ["clean", "azure"] {
        let out = prompty_env(dir, &["score", "judge.prompty", "--answer", "answer.json", "--format", format], &env);
        assert_eq!(out.code, Some(0), "{format}: {}", out.stderr);
        assert_secret_hidden(&out, format);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
        if format == "clean" {
            assert_eq!(
                (v["name"].as_str(), v["reason"].as_str()),
                (Some("${env:SECRET}"), Some("it said ${env:SECRET}"))
            );
        } else {
            assert_eq!(v["${env:SECRET}_reason"], "it said ${env:SECRET}", "{v}");
            assert_eq!(v["${env:SECRET}_result"], "pass", "{v}");
        }
        let out = prompty_env(
            dir,
            &[
                "eval",
                "judge.prompty",
                "--data",
                "rows.jsonl",
                "--answers",
                "answers.jsonl",
                "--format",
                format,
                "--output",
                "out.jsonl",
                "--report",
                "report.html",
                "--junit",
                "junit.xml",
            ],
            &env,
        );
        // Row 2 scores out of range: an error record, exit 1.
        assert_eq!(out.code, Some(1), "{format}: {}", out.stderr);
        assert_secret_hidden(&out, format);
        let results = String::from_utf8(read(&dir.join("out.jsonl"))).expect("UTF-8");
        assert_eq!(results.lines().count(), 3, "{results}");
        assert!(!results.contains(SECRET) && !results.contains("SECRET-1234"), "{format}: {results}");
        assert!(results.contains("${env:SECRET}"), "{format}: {results}");
        // The report keeps the judge's answers, which the results leave out: shown redacted too.
        for file in ["report.html", "junit.xml"] {
            let text = String::from_utf8(read(&dir.join(file))).expect("UTF-8");
            assert!(!text.contains(SECRET) && !text.contains("SECRET-1234"), "{format} {file}: {text}");
            assert!(text.contains("${env:SECRET}"), "{format} {file}: {text}");
        }
    }
    // A configuration error quoting a value from the environment.
    tmp.write("bad.prompty", SECRET_JUDGE.replace("answer: json", "answer: ${env:SECRET}").as_bytes());
    let out = prompty_env(dir, &["score", "bad.prompty", "--answer", "answer.json", "--error-format", "json"], &env);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    let all = assert_secret_hidden(&out, "config error");
    assert!(all.contains("\"code\":\"PE015\""), "{all}");
    assert!(all.contains("`${env:SECRET}` is not one of tags, json, number, label"), "{all}");
    let out = prompty_env(
        dir,
        &["eval", "bad.prompty", "--data", "rows.jsonl", "--answers", "answers.jsonl", "--output", "bad.jsonl"],
        &env,
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_secret_hidden(&out, "eval config error");
}

#[test]
fn secrets_load_errors_show_references() {
    let tmp = TempDir::new("secret-load-error");
    tmp.write("leaky.prompty", LEAKY.as_bytes());
    tmp.write("engine.prompty", ENGINE.as_bytes());
    let env = [("SECRET", SECRET)];
    for (file, message) in [
        ("leaky.prompty", "leaky.prompty:14:11: unknown kind `${env:SECRET}` for `inputs.q` [P016]"),
        ("engine.prompty", "engine.prompty:4:11: unknown template format `${env:SECRET}` [P014]"),
    ] {
        for cmd in ["load", "render", "compile"] {
            let out = prompty_env(tmp.path(), &[cmd, file, "--error-format", "json"], &env);
            assert_eq!(out.code, Some(2), "{cmd} {file}: {}", out.stderr);
            assert_secret_hidden(&out, cmd);
            assert_eq!(diagnostic_lines(&out.stderr), format!("error: {message}\n"), "{cmd} {file}");
            // The drawn form hides it too.
            let out = prompty_env(tmp.path(), &[cmd, file], &env);
            assert_secret_hidden(&out, cmd);
        }
    }
}

#[test]
fn secrets_render_and_compile_errors_show_references() {
    let tmp = TempDir::new("secret-render");
    // The provider and the API come from the environment and are not ones `compile` knows.
    tmp.write("provider.prompty", b"---\nmodel:\n  id: m\n  provider: ${env:SECRET}\n---\nuser:\nhi\n");
    tmp.write("api.prompty", b"---\nmodel:\n  id: m\n  apiType: ${env:SECRET}\n---\nuser:\nhi\n");
    // A tool whose name is a secret binds a parameter it does not have: a warning.
    tmp.write(
        "tool.prompty",
        b"---
model: m
inputs:
  u: {kind: string, default: x}
tools:
  - name: ${env:SECRET}
    kind: function
    parameters: {a: {kind: string}}
    bindings: {nope: u}
---
user:
hi
",
    );
    // A v1 prompt whose sample puts a long secret before the first role line: promptflow
    // quotes the first 60 characters of that text, which cuts the secret short.
    tmp.write("pretext.prompty", b"---\nmodel:\n  api: chat\nsample:\n  pre: ${env:LONG}\n---\n{{pre}}\nsystem:\nhi\n");
    let long = format!("{SECRET}-{}", "x".repeat(80));
    let env = [("SECRET", SECRET), ("LONG", long.as_str())];

    let out = prompty_env(tmp.path(), &["compile", "provider.prompty"], &env);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_secret_hidden(&out, "compile provider");
    assert!(out.stderr.starts_with("PW001(unknown-provider)"), "{}", out.stderr);
    assert!(out.stderr.contains("provider.prompty: unknown provider `${env:SECRET}`"), "{}", out.stderr);

    let out = prompty_env(tmp.path(), &["compile", "api.prompty"], &env);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_secret_hidden(&out, "compile api");
    assert!(out.stderr.starts_with("PW002(unknown-api)"), "{}", out.stderr);
    assert!(out.stderr.contains("api.prompty: Unsupported API type: `${env:SECRET}`"), "{}", out.stderr);

    let out = prompty_env(tmp.path(), &["compile", "tool.prompty"], &env);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stderr.contains("tool `${env:SECRET}` binds `nope`"), "{}", out.stderr);
    // The request itself carries the real name: that is what is sent.
    assert!(out.stdout.contains(SECRET), "{}", out.stdout);
    assert!(!out.stderr.contains(SECRET), "{}", out.stderr);

    // An input named by a secret is neither suggested nor listed for a misspelt `--set`.
    tmp.write(
        "named.prompty",
        b"---\ninputs:\n  - name: ${env:SECRET}\n    kind: string\n    default: x\n---\nuser:\nhi\n",
    );
    let out = prompty_env(
        tmp.path(),
        &["render", "--format", "json", "named.prompty", "--set", "sk-test-SECRET-123=x"],
        &env,
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_secret_hidden(&out, "render --set");
    assert_eq!(
        out.stderr,
        "warning: named.prompty: input `sk-test-SECRET-123` is not declared by the prompt; declared: ${env:SECRET}\n"
    );

    for cmd in ["render", "compile"] {
        let out = prompty_env(tmp.path(), &[cmd, "pretext.prompty"], &env);
        assert_eq!(out.code, Some(2), "{cmd}: {}", out.stderr);
        assert_secret_hidden(&out, cmd);
        assert!(
            out.stderr.contains("text before the first role line: `${env:LONG}`; promptflow requires"),
            "{cmd}: {}",
            out.stderr
        );
    }
}

#[test]
fn secrets_snapshot_files_show_references() {
    let tmp = TempDir::new("secret-snapshot");
    tmp.write(
        "prompts/greet.prompty",
        b"---\nname: greet\nmodel:\n  id: m\n  connection:\n    kind: key\n    apiKey: ${env:SECRET}\ninputs:\n  who:\n    kind: string\n    default: ${env:SECRET}\n---\nsystem:\nGreet {{ who | upper }} ({{ who[:7] }}).\n",
    );
    let env = [("SECRET", SECRET)];
    let out = prompty_env(tmp.path(), &["snapshot", "--update"], &env);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_secret_hidden(&out, "snapshot --update");
    let snap = std::fs::read_to_string(tmp.path().join("snapshots/prompts/greet@default.snap")).expect("written");
    assert!(!snap.to_lowercase().contains("sk-test") && !snap.contains("SECRET-1234"), "{snap}");
    assert!(snap.ends_with("=== system ===\nGreet ${ENV:SECRET} (${env:S).\n"), "{snap}");
    // The snapshot does not depend on the value: another machine's key checks clean.
    let out = prompty_env(tmp.path(), &["snapshot", "--check"], &[("SECRET", "sk-other-machine-5678")]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    // A rendering error in a snapshot run names the reference too.
    tmp.write(
        "prompts/pre.prompty",
        b"---\nmodel:\n  api: chat\nsample:\n  pre: ${env:SECRET}\n---\n{{pre}}\nsystem:\nhi\n",
    );
    let out = prompty_env(tmp.path(), &["snapshot", "--check"], &env);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_secret_hidden(&out, "snapshot error");
    assert!(out.stderr.contains("text before the first role line: `${env:SECRET}`"), "{}", out.stderr);
}

// Finding 8: snapshot writes.

/// A prompt folder for `snapshot`: `prompts/greet.prompty` with the given cases file.
fn snapshot_project(name: &str, cases: &str) -> TempDir {
    let tmp = TempDir::new(name);
    tmp.write(
        "prompts/greet.prompty",
        b"---\nname: greet\ninputs:\n  who: {kind: string, default: Ada}\n---\nuser:\nHello {{ who }}.\n",
    );
    if !cases.is_empty() {
        tmp.write("prompts/greet.cases.yaml", cases.as_bytes());
    }
    tmp
}

/// The sorted file names of a folder.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("folder")
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

#[test]
fn snapshot_symlinked_snap_file_is_never_written_or_read_through() {
    let tmp = snapshot_project("snap-symlink", "");
    let victim = tmp.write("victim/target.txt", b"PRIVATE-CONTENT\n");
    std::fs::create_dir_all(tmp.path().join("snapshots")).expect("folder");
    std::fs::create_dir_all(tmp.path().join("snapshots/prompts")).expect("folder");
    let link = tmp.path().join("snapshots/prompts/greet@default.snap");
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    for mode in ["--update", "--check"] {
        let out = prompty(tmp.path(), &["snapshot", mode]);
        assert_eq!(out.code, Some(2), "{mode}: {}{}", out.stdout, out.stderr);
        assert_eq!(
            out.stderr,
            "error: snapshots/prompts/greet@default.snap: the snapshot file is a symbolic link; snapshots are never read or written through links (replace it with a regular snapshot file)\n",
            "{mode}"
        );
        assert!(!out.stdout.contains("PRIVATE") && !out.stderr.contains("PRIVATE"), "{mode}: {}", out.stdout);
    }
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "PRIVATE-CONTENT\n");
    assert!(std::fs::symlink_metadata(&link).expect("link").file_type().is_symlink());
    // A FIFO in its place is not read (it would block) and not replaced.
    std::fs::remove_file(&link).expect("remove");
    mkfifo(&link);
    for mode in ["--update", "--check"] {
        let out = prompty(tmp.path(), &["snapshot", mode]);
        assert_eq!(out.code, Some(2), "{mode}: {}", out.stderr);
        assert_eq!(out.stderr, "error: snapshots/prompts/greet@default.snap: not a regular file\n", "{mode}");
    }
    // A symlinked snapshot folder is refused the same way.
    std::fs::remove_dir_all(tmp.path().join("snapshots")).expect("remove");
    std::os::unix::fs::symlink(tmp.path().join("victim"), tmp.path().join("snapshots")).expect("symlink");
    let out = prompty(tmp.path(), &["snapshot", "--update"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.starts_with("error: snapshots: the snapshot folder is a symbolic link"), "{}", out.stderr);
    assert_eq!(names_in(&tmp.path().join("victim")), ["target.txt"]);
}

#[test]
fn snapshot_case_names_stay_inside_the_folder() {
    let tmp = snapshot_project(
        "snap-case-names",
        "\"../../../victim/evil\":\n  who: Mallory\n\"/abs/path\":\n  who: Root\n\"a b%c\":\n  who: Spaces\n..:\n  who: Dots\n\"x\\n---\\ny\":\n  who: Break\n",
    );
    std::fs::create_dir_all(tmp.path().join("victim")).expect("folder");
    let out = prompty(tmp.path(), &["snapshot", "--update"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stderr, "0 unchanged, 0 updated, 5 written\n");
    assert_eq!(
        names_in(&tmp.path().join("snapshots/prompts")),
        [
            "greet@%2Fabs%2Fpath.snap",
            "greet@..%2F..%2F..%2Fvictim%2Fevil.snap",
            "greet@...snap",
            "greet@a%20b%25c.snap",
            "greet@x%0A---%0Ay.snap"
        ]
    );
    // A line break in a case name cannot end the header early.
    let broken = std::fs::read_to_string(tmp.path().join("snapshots/prompts/greet@x%0A---%0Ay.snap")).expect("written");
    assert!(broken.starts_with("---\nsource: prompty snapshot\ndescription: \"x\\n---\\ny\"\n"), "{broken}");
    assert!(names_in(&tmp.path().join("victim")).is_empty());
    assert_eq!(names_in(tmp.path()), ["prompts", "snapshots", "victim"]);
    let evil = std::fs::read_to_string(tmp.path().join("snapshots/prompts/greet@..%2F..%2F..%2Fvictim%2Fevil.snap"))
        .expect("written inside");
    assert!(evil.contains("description: ../../../victim/evil\n") && evil.ends_with("Hello Mallory.\n"), "{evil}");
    // The encoded names are found again: a second run sees no change.
    let out = prompty(tmp.path(), &["snapshot", "--check"]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert_eq!(out.stderr, "5 unchanged, 0 changed, 0 new\n");
}

#[test]
fn snapshot_case_names_that_differ_only_in_case_are_refused() {
    let tmp = snapshot_project("snap-case-collide", "Lin:\n  who: Lin\nlin:\n  who: lin\n");
    for mode in ["--update", "--check"] {
        let out = prompty(tmp.path(), &["snapshot", mode]);
        assert_eq!(out.code, Some(2), "{mode}: {}", out.stderr);
        assert_eq!(
            out.stderr,
            "error: prompts/greet.prompty case `Lin` and prompts/greet.prompty case `lin` would share one snapshot file (snapshots/prompts/greet@Lin.snap and snapshots/prompts/greet@lin.snap differ only in letter case or are equal); rename one of the cases or prompts\n",
            "{mode}"
        );
    }
    assert!(!tmp.path().join("snapshots").exists(), "nothing is written");
    // Two prompts in folders that differ only in letter case would share a folder.
    let tmp = snapshot_project("snap-two-folders", "");
    tmp.write("prompts/Other/x.prompty", b"---\nname: other\n---\nuser:\nOther.\n");
    tmp.write("prompts/other/x.prompty", b"---\nname: other\n---\nuser:\nother.\n");
    let out = prompty(tmp.path(), &["snapshot", "--update"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("prompts/Other/x.prompty case `default` and prompts/other/x.prompty case `default` would share"),
        "{}",
        out.stderr
    );
}

#[test]
fn snapshot_writes_are_atomic_for_a_concurrent_reader() {
    let tmp = snapshot_project("snap-atomic", "");
    // A large rendering, so that a write in place would be seen half done.
    let big = "word ".repeat(400_000);
    let variants = [format!("big:\n  who: A{big}\n"), format!("big:\n  who: B{big}\n")];
    let snap = tmp.path().join("snapshots/prompts/greet@big.snap");
    tmp.write("prompts/greet.cases.yaml", variants[0].as_bytes());
    assert_eq!(prompty(tmp.path(), &["snapshot", "--update"]).code, Some(0));
    let expected_len = std::fs::metadata(&snap).expect("written").len();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (stop, snap) = (stop.clone(), snap.clone());
        std::thread::spawn(move || {
            let mut reads = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let text = std::fs::read(&snap).expect("the snapshot is always there");
                assert_eq!(text.len() as u64, expected_len, "a reader saw a partial snapshot");
                assert!(text.ends_with(b" word.\n"), "a reader saw a partial snapshot");
                reads += 1;
            }
            reads
        })
    };
    for round in 1..=8 {
        tmp.write("prompts/greet.cases.yaml", variants[round % 2].as_bytes());
        let out = prompty(tmp.path(), &["snapshot", "--update"]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        assert_eq!(out.stderr, "0 unchanged, 1 updated, 0 written\n");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let reads = reader.join().expect("reader");
    assert!(reads > 0);
    assert_eq!(names_in(&tmp.path().join("snapshots/prompts")), ["greet@big.snap"], "no temporary file is left");
}

// Finding 9 (parts).

#[test]
fn check_diagnostic_past_column_65535_renders_in_every_format() {
    let tmp = TempDir::new("long-line");
    let line = format!("{} {{{{ undeclared }}}} {}", "x".repeat(70_000), "y".repeat(1_000));
    tmp.write("long.prompty", format!("---\nname: t\nmodel: m\n---\nuser:\n{line}\n").as_bytes());
    let out = prompty(tmp.path(), &["check", "long.prompty"]);
    assert_eq!(out.code, Some(1), "the undeclared variable is a finding: {}", out.stderr);
    // The excerpt is clipped around the span; the position is the file's.
    assert!(out.stdout.contains("╭─[long.prompty:6:70005]"), "{}", out.stdout);
    assert!(out.stdout.contains(" 6 │ …xxxx"), "{}", out.stdout);
    assert!(out.stdout.contains("{{ undeclared }} yyyy"), "{}", out.stdout);
    assert!(out.stdout.lines().all(|l| l.chars().count() < 400), "{}", out.stdout);
    let json = prompty(tmp.path(), &["check", "--format", "json", "long.prompty"]);
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).expect("one JSON line");
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64(), v["end_column"].as_u64()),
        (Some(6), Some(70005), Some(70015))
    );
    let github = prompty(tmp.path(), &["check", "--format", "github", "long.prompty"]);
    assert!(
        github.stdout.starts_with("::error file=long.prompty,line=6,col=70005,endLine=6,endColumn=70015,"),
        "{}",
        github.stdout
    );
    let sarif = prompty(tmp.path(), &["check", "--format", "sarif", "long.prompty"]);
    let v: serde_json::Value = serde_json::from_str(&sarif.stdout).expect("SARIF");
    assert_eq!(v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"], 70005);
}

#[test]
fn file_reference_through_symlinked_folder_is_outside_whether_or_not_the_file_exists() {
    let tmp = TempDir::new("symlinked-folder");
    tmp.write("outside/exists.txt", b"OUTSIDE-CONTENT");
    std::fs::create_dir_all(tmp.path().join("p")).expect("folder");
    std::os::unix::fs::symlink(tmp.path().join("outside"), tmp.path().join("p/linkdir")).expect("symlink");
    // File links too: one to an existing file out there, one dangling.
    std::os::unix::fs::symlink(tmp.path().join("outside/exists.txt"), tmp.path().join("p/to-exists.txt")).expect("ln");
    std::os::unix::fs::symlink(tmp.path().join("outside/nosuch.txt"), tmp.path().join("p/to-nosuch.txt")).expect("ln");
    let refs = [
        "linkdir/exists.txt",
        "linkdir/nosuch.txt",
        "linkdir/nosuchdir/x.txt",
        "linkdir/../outside/exists.txt",
        "to-exists.txt",
        "to-nosuch.txt",
    ];
    let dir = tmp.path().join("p");
    for (i, r) in refs.iter().enumerate() {
        tmp.write(&format!("p/r{i}.prompty"), prompt_referencing(r).as_bytes());
    }
    let mut answers = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        let file = format!("r{i}.prompty");
        let load = prompty(&dir, &["load", &file, "--error-format", "json"]);
        assert_eq!(load.code, Some(2), "{r}: {}", load.stderr);
        let check = prompty(&dir, &["check", "--format", "json", &file]);
        assert_eq!(check.code, Some(1), "{r}: {}", check.stderr);
        let all = format!("{}{}", load.stderr, check.stdout).replace(&file, "FILE").replace(r, "REF");
        assert!(!all.contains("OUTSIDE-CONTENT"));
        answers.push((r, all));
    }
    // Every answer is the same, apart from the path the user wrote (and the span's end).
    let expected = |r: &str| {
        format!(
            "{{\"file\":\"FILE\",\"line\":4,\"column\":11,\"end_line\":4,\"end_column\":{},\"code\":\"P022\",\"name\":\"file-outside-roots\",\"severity\":\"error\",\"message\":\"`${{file:REF}}` resolves outside allowed roots\",\"help\":\"reference files inside the prompt's folder, or allow another folder with --allow-root\",\"url\":null}}\n{{\"file\":\"FILE\",\"line\":4,\"column\":11,\"end_line\":4,\"end_column\":{},\"code\":\"P022\",\"name\":\"file-outside-roots\",\"severity\":\"error\",\"message\":\"`${{file:REF}}` resolves outside allowed roots\",\"help\":\"reference files inside the prompt's folder, or allow another folder with --allow-root\",\"url\":null}}\n",
            11 + "${file:}".len() + r.len(),
            11 + "${file:}".len() + r.len()
        )
    };
    for (r, answer) in &answers {
        assert_eq!(answer, &expected(r), "{r}");
    }
    // Inside the folder, a missing file is still reported as missing.
    tmp.write("p/missing.prompty", prompt_referencing("nosuchdir/x.txt").as_bytes());
    let out = prompty(&dir, &["load", "missing.prompty", "--error-format", "json"]);
    assert_eq!(
        diagnostic_lines(&out.stderr),
        "error: missing.prompty:4:11: Referenced file not found: nosuchdir/x.txt [P021]\n"
    );
}

#[test]
fn check_folder_with_an_unreadable_subfolder_reports_it_and_goes_on() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("unreadable-folder");
    tmp.write("a-good.prompty", b"---\nname: good\nmodel: m\n---\nuser:\nhi\n");
    tmp.write("z-bad.prompty", b"---\nname: bad\nmodel: 42\n---\nuser:\nhi\n");
    let locked = tmp.path().join("m-locked");
    std::fs::create_dir_all(&locked).expect("folder");
    tmp.write("m-locked/hidden.prompty", b"---\nname: hidden\n---\nuser:\nhi\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let denied = std::fs::read_dir(&locked).is_err();
    let expected_error = if denied {
        "error: ./m-locked: cannot read the folder: permission denied; skipped\n".to_owned()
    } else {
        // Running with privileges that ignore permissions (root): a folder nested so deep
        // that its path is longer than the system allows cannot be read either.
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let name = "d".repeat(200);
        let script = format!("cd m-locked && for i in $(seq 1 24); do mkdir {name} && cd -P {name} || exit 1; done");
        let ok = Command::new("sh").arg("-c").arg(&script).current_dir(tmp.path()).status().expect("sh").success();
        assert!(ok, "the deep folder is created");
        "File name too long".to_owned()
    };
    let out = prompty(tmp.path(), &["check", "."]);
    assert_eq!(out.code, Some(2), "{}{}", out.stdout, out.stderr);
    // Both readable files are checked and reported.
    assert!(out.stdout.contains("z-bad.prompty:3:8"), "{}", out.stdout);
    assert!(out.stderr.contains(&expected_error), "{}", out.stderr);
    assert!(out.stderr.contains("; skipped\n"), "{}", out.stderr);
    let summary = out.stderr.lines().last().unwrap_or("");
    let expected_summary = if denied {
        "checked 2 files: 1 error, 0 warnings, 1 folder could not be read"
    } else {
        "checked 3 files: 1 error, 0 warnings, 1 folder could not be read"
    };
    assert_eq!(summary, expected_summary, "{}", out.stderr);
    let json = prompty(tmp.path(), &["check", "--format", "json", "."]);
    assert_eq!(json.code, Some(2));
    assert!(json.stdout.contains("\"code\":\"P012\""), "{}", json.stdout);
    assert!(json.stderr.contains("; skipped"), "{}", json.stderr);
    let sarif = prompty(tmp.path(), &["check", "--format", "sarif", "."]);
    assert_eq!(sarif.code, Some(2));
    let log: serde_json::Value = serde_json::from_str(&sarif.stdout).expect("SARIF");
    let run = &log["runs"][0];
    assert_eq!(run["results"].as_array().map(Vec::len), Some(1), "{}", sarif.stdout);
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    let note = run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"].as_str().unwrap_or("");
    assert!(note.contains(&expected_error.replace("error: ", "").replace('\n', "")), "{note}");
    let _ = std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755));
    let _ = Command::new("rm").arg("-rf").arg(&locked).status();
}

// Security issue, item 5: every path linear in its input.

/// An evaluator prompt answering in `format`.
fn judge(format: &str) -> String {
    format!(
        "---\nname: judge\ninputs:\n  answer: {{kind: string}}\nmetadata:\n  evaluator: {{answer: {format}, range: [1, 5], threshold: 3}}\n---\nsystem:\nRate it.\nuser:\n{{{{answer}}}}\n"
    )
}

/// The verdict of a `prompty score` run.
fn verdict_of(out: &Out) -> String {
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
    v["verdict"].as_str().unwrap_or("(none)").to_owned()
}

#[test]
fn item5_one_megabyte_hostile_answers_score_in_linear_time() {
    let tmp = TempDir::new("item5-answers");
    for format in ["json", "tags", "label", "number"] {
        tmp.write(&format!("{format}.prompty"), judge(format).as_bytes());
    }
    let deep = format!("{}x{}", "{\"k\":[1,1,1,1,1,1,1,1],\"a\":".repeat(25_000), "}".repeat(25_000));
    let shapes: Vec<(&str, String)> = vec![
        ("brace", "{".repeat(1 << 20)),
        ("key", "{\"a\":".repeat((1 << 20) / 5)),
        ("quote", "\"".repeat(1 << 20)),
        ("s0", "<S0>".repeat((1 << 20) / 4)),
        ("s2", "<S2>".repeat((1 << 20) / 4)),
        ("fences", "```json\n{".repeat((1 << 20) / 9)),
        ("deep", deep),
    ];
    for (name, answer) in &shapes {
        tmp.write(&format!("{name}.txt"), answer.as_bytes());
        for format in ["json", "tags", "label", "number"] {
            let out = prompty(tmp.path(), &["score", &format!("{format}.prompty"), "--answer", &format!("{name}.txt")]);
            assert_eq!(out.code, Some(0), "{format} {name}: {}", out.stderr);
            // Only the number format finds a score: the first digit (`<S2>`, `[1,`), below 3;
            // `<S0>` gives 0, outside the range [1, 5]: no verdict.
            let digit = answer.chars().find(char::is_ascii_digit).is_some_and(|d| ('1'..='5').contains(&d));
            let expected = if format == "number" && digit { "fail" } else { "unknown" };
            assert_eq!(verdict_of(&out), expected, "{format} {name}: {}", out.stdout);
        }
    }
}

#[test]
fn item5_answer_over_the_size_limit_is_a_clear_error() {
    let tmp = TempDir::new("item5-big-answer");
    tmp.write("json.prompty", judge("json").as_bytes());
    let answer = format!("{{\"score\": 5}}{}", " ".repeat(5 << 20));
    tmp.write("big.txt", answer.as_bytes());
    let out = prompty(tmp.path(), &["score", "json.prompty", "--answer", "big.txt", "--error-format", "json"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(
        diagnostic_lines(&out.stderr).trim_end(),
        format!(
            "error: big.txt: the judge answer is {} bytes, more than the 4194304-byte limit; a judge's answer is a score and a short reason [PE011]",
            answer.len()
        )
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn item5_front_matter_with_80k_keys_loads_in_linear_time() {
    let tmp = TempDir::new("item5-keys");
    let keys: String = (0..80_000).map(|i| format!("k{i}: {i}\n")).collect();
    tmp.write("top.prompty", format!("---\nname: t\n{keys}---\nuser:\nhi\n").as_bytes());
    let inputs: String = (0..45_000).map(|i| format!("  k{i}: {i}\n")).collect();
    tmp.write("inputs.prompty", format!("---\nname: t\ninputs:\n{inputs}---\nuser:\nhi\n").as_bytes());
    // 160,001 values: over the loader's budget, refused at once with the budget's message.
    let out = prompty(tmp.path(), &["load", "top.prompty"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("the front matter holds more than 100000 values"), "{}", out.stderr);
    // 90,005 values: within it; every input is loaded (and checked for duplicates).
    let out = prompty(tmp.path(), &["load", "inputs.prompty"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let loaded: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
    assert_eq!(loaded["inputs"].as_array().map(Vec::len), Some(45_000));
    let out = prompty(tmp.path(), &["check", "--format", "json", "inputs.prompty"]);
    assert_eq!(out.stdout.lines().filter(|l| l.contains("\"PL002\"")).count(), 45_000);
}

/// The most role lines a prompt may have (`prompty_render::MAX_MESSAGES`, 10,000): one
/// finding each, every one drawn with its own lines.
#[test]
fn item5_check_human_over_10k_role_lines_is_linear() {
    let tmp = TempDir::new("item5-roles");
    let body: String = (0..10_000).map(|i| format!("user:\nline {i}\n")).collect();
    tmp.write("roles.prompty", format!("---\nname: t\n---\n{body}").as_bytes());
    let out = prompty(tmp.path(), &["check", "roles.prompty"]);
    assert_eq!(out.code, Some(1), "every finding fails: {}", out.stderr);
    assert_eq!(out.stdout.matches("PL011(repeated-role)").count(), 9_999);
    // Each finding shows its own lines, numbered as in the file.
    assert!(out.stdout.contains("[roles.prompty:20002:1]"), "the last role line is located");
    assert!(out.stdout.contains("a second user message follows the user message of line 20000"));
}

#[test]
fn item5_check_human_over_one_long_line_is_clipped() {
    let tmp = TempDir::new("item5-long-line");
    let body: String = (0..20_000).map(|i| format!("\u{e9}{{{{v{i}}}}}")).collect();
    tmp.write("line.prompty", format!("---\nname: t\n---\nuser:\n{body}\n").as_bytes());
    let out = prompty(tmp.path(), &["check", "line.prompty"]);
    assert_eq!(out.code, Some(1), "the findings fail the check: {}", out.stderr);
    assert_eq!(out.stdout.matches("PL001(undeclared-variable)").count(), 20_000);
    // The 200 KB line is shown clipped around each finding, not whole 20,000 times.
    assert!(out.stdout.len() < 20_000 * 1_500, "{} bytes of output", out.stdout.len());
    // Columns count characters (each `\u{e9}` is two bytes, one character).
    let name_at = body.rfind("{{v19999}}").unwrap_or_default() + 2;
    let last = body[..name_at].chars().count() + 1;
    assert!(out.stdout.contains(&format!("[line.prompty:5:{last}]")), "the last finding's character column");
}

// Security issue, item 6: `prompty eval` never loses what it was given.

/// A folder with the evaluator prompt, `rows.jsonl` (3 rows) and `answers.jsonl` (3 answers).
fn eval_folder(name: &str) -> TempDir {
    let tmp = TempDir::new(name);
    tmp.write("judge.prompty", judge("json").as_bytes());
    tmp.write("rows.jsonl", b"{\"answer\": \"a\"}\n{\"answer\": \"b\"}\n{\"answer\": \"c\"}\n");
    tmp.write("answers.jsonl", b"\"{\\\"score\\\": 5}\"\n\"{\\\"score\\\": 1}\"\n\"{\\\"score\\\": 4}\"\n");
    tmp
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_default()
}

/// Names in `dir` other than `keep`: what a run left behind.
fn leftovers(dir: &Path, keep: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned())).collect())
        .unwrap_or_default();
    names.retain(|n| !keep.contains(&n.as_str()));
    names.sort();
    names
}

#[test]
fn item6_output_naming_an_input_is_refused() {
    let tmp = eval_folder("item6-same");
    let dir = tmp.path();
    std::os::unix::fs::symlink("rows.jsonl", dir.join("link.jsonl")).expect("symlink");
    std::fs::hard_link(dir.join("answers.jsonl"), dir.join("hard.jsonl")).expect("hard link");
    let before: Vec<Vec<u8>> =
        ["judge.prompty", "rows.jsonl", "answers.jsonl"].iter().map(|f| read(&dir.join(f))).collect();
    let cases = [
        ("rows.jsonl", "is the same file as --data rows.jsonl"),
        ("./rows.jsonl", "is the same file as --data rows.jsonl"),
        ("answers.jsonl", "is the same file as --answers answers.jsonl"),
        ("hard.jsonl", "is the same file as --answers answers.jsonl"),
        ("judge.prompty", "is the same file as the prompt judge.prompty"),
        ("link.jsonl", "is a symbolic link; give the path of the file itself"),
        (".", "is a directory"),
        ("/dev/null", "is not a regular file"),
    ];
    for (output, message) in cases {
        let out = prompty(
            dir,
            &["eval", "judge.prompty", "--data", "rows.jsonl", "--answers", "answers.jsonl", "--output", output],
        );
        assert_eq!(out.code, Some(2), "{output}: {}", out.stderr);
        assert!(out.stderr.starts_with(&format!("error: --output {output} {message}")), "{output}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{output}");
        let after: Vec<Vec<u8>> =
            ["judge.prompty", "rows.jsonl", "answers.jsonl"].iter().map(|f| read(&dir.join(f))).collect();
        assert!(after == before, "{output}: an input changed");
    }
    assert_eq!(
        leftovers(dir, &["judge.prompty", "rows.jsonl", "answers.jsonl", "link.jsonl", "hard.jsonl"]),
        Vec::<String>::new()
    );
}

#[test]
fn item6_results_replace_the_output_only_when_the_run_ends() {
    let tmp = eval_folder("item6-staged");
    let dir = tmp.path();
    tmp.write("results.jsonl", b"previous results\n");
    std::fs::set_permissions(dir.join("results.jsonl"), std::os::unix::fs::PermissionsExt::from_mode(0o640))
        .expect("chmod");
    // A run that stops on a read error leaves the old output as it was, and nothing else.
    let out = prompty(
        dir,
        &["eval", "judge.prompty", "--data", "rows.jsonl", "--answers", "/dev/zero", "--output", "results.jsonl"],
    );
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(read(&dir.join("results.jsonl")), b"previous results\n");
    assert_eq!(
        leftovers(dir, &["judge.prompty", "rows.jsonl", "answers.jsonl", "results.jsonl"]),
        Vec::<String>::new()
    );
    // A run that ends replaces it, keeping its permissions.
    let out = prompty(
        dir,
        &["eval", "judge.prompty", "--data", "rows.jsonl", "--answers", "answers.jsonl", "--output", "results.jsonl"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let results = String::from_utf8(read(&dir.join("results.jsonl"))).unwrap_or_default();
    assert_eq!(results.lines().count(), 3, "{results}");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(dir.join("results.jsonl")).expect("meta").permissions(),
    );
    assert_eq!(mode & 0o777, 0o640);
    assert_eq!(
        leftovers(dir, &["judge.prompty", "rows.jsonl", "answers.jsonl", "results.jsonl"]),
        Vec::<String>::new()
    );
}

/// The summary a run wrote with `--summary-json summary.json`.
fn summary_of(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&read(&dir.join("summary.json"))).unwrap_or_default()
}

#[test]
fn item6_one_result_line_per_data_row() {
    let tmp = eval_folder("item6-rows");
    let dir = tmp.path();
    tmp.write("one.jsonl", b"\"{\\\"score\\\": 5}\"\n");
    tmp.write("six.jsonl", [read(&dir.join("answers.jsonl")), read(&dir.join("answers.jsonl"))].concat());
    // Fewer answers than rows: an error record for each row without an answer.
    let out = prompty(
        dir,
        &["eval", "judge.prompty", "--data", "rows.jsonl", "--answers", "one.jsonl", "--summary-json", "summary.json"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let lines: Vec<serde_json::Value> =
        out.stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_default()).collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    assert_eq!(lines.iter().map(|l| l["line"].as_u64().unwrap_or(0)).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(lines[0]["verdict"], "pass");
    for l in &lines[1..] {
        assert_eq!(l["error"]["kind"], "missing answer", "{l}");
    }
    let summary = summary_of(dir);
    assert_eq!((summary["rows"].as_u64(), summary["errors"]["missing answer"].as_u64()), (Some(3), Some(2)));
    // More answers than rows: every row evaluated, the extra answers one summary error.
    let out = prompty(
        dir,
        &["eval", "judge.prompty", "--data", "rows.jsonl", "--answers", "six.jsonl", "--summary-json", "summary.json"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 3, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("error: six.jsonl has 3 more line(s) than rows.jsonl (from line 4); they were not evaluated"),
        "{}",
        out.stderr
    );
    let summary = summary_of(dir);
    assert_eq!((summary["rows"].as_u64(), summary["errors"]["extra answers"].as_u64()), (Some(3), Some(3)));
    // Bad rows are still reported by line number without stopping.
    tmp.write("mixed.jsonl", b"{\"answer\": \"a\"}\nnot json\n\xff\xfe\n");
    let out = prompty(dir, &["eval", "judge.prompty", "--data", "mixed.jsonl", "--answers", "answers.jsonl"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let kinds: Vec<String> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap_or_default())
        .map(|v| v["error"]["kind"].as_str().unwrap_or("ok").to_owned())
        .collect();
    assert_eq!(kinds, ["ok", "row not JSON", "unreadable row"]);
}

#[test]
fn item6_a_read_error_ends_the_run() {
    let tmp = eval_folder("item6-read-error");
    let out = prompty(tmp.path(), &["eval", "judge.prompty", "--data", "/proc/self/mem", "--answers", "answers.jsonl"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.starts_with("error: /proc/self/mem:1: cannot read: "), "{}", out.stderr);
    assert!(out.stderr.lines().count() == 1 && out.stdout.is_empty(), "{}{}", out.stdout, out.stderr);
}

#[test]
fn item6_side_inputs_have_size_caps() {
    let tmp = eval_folder("item6-caps");
    let dir = tmp.path();
    tmp.write("prompty.toml", b"[lint]\n");
    let limit = "larger than the 16777216-byte limit";
    let not_regular = "not a regular file (a FIFO, device or socket could block or never end); pass its content on standard input with `-`";
    let cases: [(&[&str], String); 5] = [
        (&["render", "judge.prompty", "--inputs", "/dev/zero"], format!("error: /dev/zero: {not_regular}")),
        (&["score", "judge.prompty", "--answer", "/dev/zero"], format!("error: /dev/zero: {not_regular}")),
        (
            &["score", "judge.prompty", "--inputs", "/dev/zero", "--answer", "answers.jsonl"],
            format!("error: /dev/zero: {not_regular}"),
        ),
        // The configuration is read like a prompt file: regular files only, with the same cap.
        (
            &["check", "--config", "/dev/zero", "judge.prompty"],
            "error: /dev/zero: cannot read the configuration: not a regular file [PT001]".to_owned(),
        ),
        (
            &["eval", "judge.prompty", "--data", "rows.jsonl", "--answers", "/dev/zero"],
            "error: /dev/zero:1: the line is longer than the 16777216-byte limit; one line holds one JSON value"
                .to_owned(),
        ),
    ];
    for (args, message) in cases {
        let out = prompty(dir, args);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr.trim_end(), message, "{args:?}");
    }
    let zero = std::fs::File::open("/dev/zero").expect("/dev/zero");
    let out = prompty_in(dir, &["render", "judge.prompty", "--inputs", "-"], Stdio::from(zero));
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(out.stderr.trim_end(), format!("error: standard input: {limit}"));
}

/// Round 3, item 4: one judge answer outside the range (1000 on a 1 to 5 scale, what an
/// injected judge might write) gets no verdict and stays out of the mean: nine answers of 1
/// fail `--fail-under 3.5` whatever the tenth says, and the summary counts it as left out.
#[test]
fn round3_item4_an_out_of_range_score_cannot_lift_the_mean_past_the_gate() {
    let tmp = eval_folder("round3-gate");
    let dir = tmp.path();
    let rows: String = (0..10).map(|i| format!("{{\"answer\": \"a{i}\"}}\n")).collect();
    let mut answers: String = (0..9).map(|_| "\"{\\\"score\\\": 1}\"\n".to_owned()).collect();
    answers.push_str("\"{\\\"score\\\": 1000}\"\n");
    tmp.write("ten.jsonl", rows.as_bytes());
    tmp.write("ten-answers.jsonl", answers.as_bytes());
    let out = prompty(
        dir,
        &[
            "eval",
            "judge.prompty",
            "--data",
            "ten.jsonl",
            "--answers",
            "ten-answers.jsonl",
            "--fail-under",
            "3.5",
            "--summary-json",
            "summary.json",
        ],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("the mean score 1 is under --fail-under 3.5"), "{}", out.stderr);
    let summary = summary_of(dir);
    assert_eq!((summary["rows"].as_u64(), summary["left_out"].as_u64()), (Some(10), Some(1)), "{summary}");
    assert_eq!(summary["mean"].as_f64(), Some(1.0), "{summary}");
}

/// Round 3, item 11: a FIFO given as `--inputs` or `--answer` is refused at once instead of
/// blocking forever on a writer that never comes (the test's watchdog would kill a hang).
#[test]
fn round3_item11_a_fifo_side_input_is_refused_not_waited_for() {
    let tmp = eval_folder("round3-fifo");
    let dir = tmp.path();
    let fifo = dir.join("inputs.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo (coreutils) runs");
    assert!(made.success(), "mkfifo failed");
    for args in [
        &["render", "judge.prompty", "--inputs", "inputs.fifo"][..],
        &["score", "judge.prompty", "--answer", "inputs.fifo"][..],
    ] {
        let out = prompty(dir, args);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert_eq!(
            out.stderr.trim_end(),
            "error: inputs.fifo: not a regular file (a FIFO, device or socket could block or never end); pass its content on standard input with `-`",
            "{args:?}"
        );
    }
}

// Security issue, item 9.

#[test]
fn item9_non_finite_scores_are_unknown_in_every_mode() {
    let tmp = TempDir::new("item9-inf");
    for format in ["json", "label", "tags", "number"] {
        tmp.write(&format!("{format}.prompty"), judge(format).as_bytes());
    }
    let answers = [
        ("json", r#"{"score": "inf"}"#, "the `score` field holds 'inf', which is not a finite number"),
        ("json", r#"{"score": "-inf"}"#, "which is not a finite number"),
        ("json", r#"{"score": "Infinity"}"#, "which is not a finite number"),
        ("json", r#"{"score": "1e999"}"#, "which is not a finite number"),
        ("json", r#"{"score": "nan"}"#, "the `score` field holds 'nan', which is not a number"),
        ("json", r#"{"score": 1e999}"#, "number out of range"),
        ("json", r#"{"score": -1e999}"#, "number out of range"),
        ("json", r#"{"score": NaN}"#, "not valid JSON"),
        ("label", r#"{"score": "inf"}"#, "is not a label"),
        ("label", "Infinity", "is not a label"),
        ("tags", "<S2>inf</S2>", "no score tag"),
        ("number", "inf", "contains no digit"),
    ];
    for (format, answer, problem) in answers {
        tmp.write("answer.txt", answer.as_bytes());
        let out = prompty(tmp.path(), &["score", &format!("{format}.prompty"), "--answer", "answer.txt"]);
        assert_eq!(out.code, Some(0), "{format} {answer}: {}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
        assert_eq!(v["verdict"], "unknown", "{format} {answer}: {}", out.stdout);
        assert!(v.get("score").is_none_or(serde_json::Value::is_null), "{format} {answer}: {}", out.stdout);
        assert!(v["problem"].as_str().unwrap_or("").contains(problem), "{format} {answer}: {}", out.stdout);
    }
}

#[test]
fn item9_answer_and_inputs_both_from_stdin_is_refused() {
    let tmp = TempDir::new("item9-stdin");
    tmp.write("json.prompty", judge("json").as_bytes());
    let out = prompty_in(tmp.path(), &["score", "json.prompty", "--answer", "-", "--inputs", "-"], Stdio::piped());
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(
        out.stderr.trim_end(),
        "error: --answer - and --inputs - both read standard input, which can be read once; give one of them a file"
    );
    assert!(out.stdout.is_empty());
}

/// One hostile template of the security review: what `render` and `compile` must say (exit
/// 2, `file:line:col: message`), and whether `check` reports it (exit 1, PL012 at the same
/// place) or, for limits only a render can hit, finds nothing to abort on.
struct BudgetCase {
    name: &'static str,
    front_matter: String,
    format: &'static str,
    body: String,
    /// `line:col: message start` as printed after the file name.
    error: String,
    /// Whether `check` reports the template (compile-time refusals).
    checked: bool,
}

fn integers(n: usize) -> String {
    format!("inputs:\n  a: {{kind: array, items: {{kind: integer}}, default: [{}]}}\n", vec!["1"; n].join(","))
}

const TOO_DEEP: &str = "nests deeper than 100 levels";

fn budget_cases() -> Vec<BudgetCase> {
    let jinja = |name, body: String, col: usize| BudgetCase {
        name,
        front_matter: String::new(),
        format: "jinja2",
        body,
        error: format!("6:{col}: template syntax error: this expression {TOO_DEEP}"),
        checked: true,
    };
    vec![
        jinja("jinja_thirty_thousand_nots", format!("{{{{ {}1 }}}}", "not ".repeat(30_000)), 400),
        jinja("jinja_thirty_thousand_minus_signs", format!("{{{{ {}1 }}}}", "-".repeat(30_000)), 103),
        jinja("jinja_thirty_thousand_concatenations", format!("{{{{ {} }}}}", vec!["q"; 30_000].join(" ~ ")), 402),
        jinja("jinja_thirty_thousand_calls", format!("{{{{ q{} }}}}", "()".repeat(30_000)), 201),
        jinja("jinja_hundred_thousand_filters", format!("{{{{ q{} }}}}", "|upper".repeat(100_000)), 599),
        jinja("jinja_two_hundred_thousand_attributes", format!("{{{{ q{} }}}}", ".a".repeat(200_000)), 203),
        BudgetCase {
            name: "jinja_list_doubling_in_a_namespace",
            front_matter: String::new(),
            format: "jinja2",
            body: "{% set ns = namespace(x=[1]) %}{% for i in range(40) %}{% set ns.x = ns.x + ns.x %}{% endfor %}{{ ns.x|length }}".to_owned(),
            error: "6:70: template refused: this value combines two values the template built itself".to_owned(),
            checked: true,
        },
        BudgetCase {
            name: "handlebars_ten_thousand_nested_concat",
            front_matter: String::new(),
            format: "handlebars",
            body: format!("{{{{ {}1{} }}}}", "(concat ".repeat(10_000), ")".repeat(10_000)),
            error: format!("6:1: Handlebars syntax error: this expression {TOO_DEEP}"),
            checked: true,
        },
        BudgetCase {
            name: "handlebars_twenty_thousand_nested_ifs",
            front_matter: String::new(),
            format: "handlebars",
            body: format!("{}x{}", "{{#if true}}".repeat(20_000), "{{/if}}".repeat(20_000)),
            error: format!("6:1201: Handlebars syntax error: this block {TOO_DEEP}"),
            checked: true,
        },
        BudgetCase {
            name: "mustache_sections_nested_four_deep_over_1000_items",
            front_matter: integers(1000),
            format: "mustache",
            body: "{{#a}}{{#a}}{{#a}}{{#a}}{{/a}}{{/a}}{{/a}}{{/a}}".to_owned(),
            error: "8:19: Mustache render error: step limit exceeded: rendering took more than 1000000 steps".to_owned(),
            checked: false,
        },
        BudgetCase {
            name: "handlebars_each_nested_four_deep_over_100_items",
            front_matter: integers(100),
            format: "handlebars",
            body: "{{#each a}}{{#each ../a}}{{#each ../../a}}{{#each ../../../a}}{{/each}}{{/each}}{{/each}}{{/each}}"
                .to_owned(),
            error: "8:43: the render took more than 1000000 steps".to_owned(),
            checked: false,
        },
        BudgetCase {
            name: "handlebars_each_three_deep_over_300_items",
            front_matter: integers(300),
            format: "handlebars",
            body: format!("{{{{#each a}}}}{{{{#each ../a}}}}{{{{#each ../../a}}}}{}{{{{/each}}}}{{{{/each}}}}{{{{/each}}}}", "x".repeat(60)),
            error: "8:43: rendered output exceeds the limit of 33554432 bytes".to_owned(),
            checked: false,
        },
    ]
}

#[test]
fn budget_cases_end_with_a_located_error_through_the_binary() {
    let tmp = TempDir::new("budget");
    for case in budget_cases() {
        let file = format!("{}.prompty", case.name);
        let fm = &case.front_matter;
        let text = format!(
            "---\nname: t\n{fm}template: {{format: {}, parser: prompty}}\n---\nuser:\n{}\n",
            case.format, case.body
        );
        tmp.write(&file, text.as_bytes());
        for cmd in ["render", "compile"] {
            // `compile` fails in the render, before it would ask for a model.
            let out = prompty(tmp.path(), &[cmd, &file, "--error-format", "json"]);
            assert_eq!(out.code, Some(2), "{} {cmd}: {}", case.name, out.stderr);
            assert!(out.stdout.is_empty(), "{} {cmd}: {}", case.name, out.stdout);
            let got = diagnostic_lines(&out.stderr);
            let expected = format!("error: {file}:{}", case.error);
            assert!(got.starts_with(&expected), "{} {cmd}:\nexpected {expected}\ngot {got}", case.name);
        }
        let out = prompty(tmp.path(), &["check", "--format", "json", &file]);
        if case.checked {
            assert_eq!(out.code, Some(1), "{} check: {}{}", case.name, out.stdout, out.stderr);
            let finding: serde_json::Value = serde_json::from_str(out.stdout.lines().next().unwrap_or_default())
                .unwrap_or_else(|e| panic!("{} check: {e}: {}", case.name, out.stdout));
            let (at, message) = case.error.split_once(": ").unwrap_or_default();
            let (line, col) = at.split_once(':').unwrap_or_default();
            assert_eq!(finding["code"], "PL012", "{}", case.name);
            assert_eq!(finding["line"].to_string(), line, "{}", case.name);
            assert_eq!(finding["column"].to_string(), col, "{}", case.name);
            assert!(finding["message"].as_str().unwrap_or_default().starts_with(message), "{}: {finding}", case.name);
        } else {
            // Nothing to report before a render; above all, no abort.
            assert!(matches!(out.code, Some(0 | 1)), "{} check: {}", case.name, out.stderr);
        }
    }
}
