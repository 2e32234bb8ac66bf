//! Hostile files on a real file system, through the `prompty` binary: symlinks out of the
//! prompt's folder, FIFOs, devices, huge and binary files. Each run ends within a bounded
//! time (a watchdog kills it otherwise) with a clear error and never a panic.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one `prompty` run may take before it counts as hung.
const WATCHDOG: Duration = Duration::from_secs(15);

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the prompty binary runs");
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut p) = pipe {
                p.read_to_end(&mut text).expect("read output");
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("prompty {args:?} did not finish within {WATCHDOG:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = stdout.join().expect("stdout");
    let stderr = stderr.join().expect("stderr");
    assert!(!stderr.contains("panicked"), "prompty {args:?} panicked:\n{stderr}");
    Out { code: status.code(), stdout, stderr }
}

/// A fresh temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("prompty-hostile-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn write(&self, rel: &str, text: &[u8]) -> PathBuf {
        let p = self.0.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("folder");
        }
        std::fs::write(&p, text).expect("write");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
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
        assert!(start.elapsed() < Duration::from_secs(5), "{cmd} {file} took {:?}", start.elapsed());
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

/// A small deterministic generator (xorshift64*), so that property tests repeat exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
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
    let mut rng = Rng(0x5eed_0004);
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
            // Only the number format finds a score: the first digit (`<S0>`, `<S2>`, `[1,`), below 3.
            let digit = answer.contains(|c: char| c.is_ascii_digit());
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
    let out = prompty(tmp.path(), &["score", "json.prompty", "--answer", "big.txt"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(
        out.stderr.trim_end(),
        format!(
            "error: big.txt: the judge answer is {} bytes, more than the 4194304-byte limit; a judge's answer is a score and a short reason",
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

#[test]
fn item5_check_human_over_20k_role_lines_is_linear() {
    let tmp = TempDir::new("item5-roles");
    let body: String = (0..20_000).map(|i| format!("user:\nline {i}\n")).collect();
    tmp.write("roles.prompty", format!("---\nname: t\n---\n{body}").as_bytes());
    let out = prompty(tmp.path(), &["check", "roles.prompty"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout.matches("PL011(repeated-role)").count(), 19_999);
    // Each finding shows its own lines, numbered as in the file.
    assert!(out.stdout.contains("[roles.prompty:40002:1]"), "the last role line is located");
    assert!(out.stdout.contains("a second user message follows the user message of line 40000"));
}

#[test]
fn item5_check_human_over_one_long_line_is_clipped() {
    let tmp = TempDir::new("item5-long-line");
    let body: String = (0..20_000).map(|i| format!("\u{e9}{{{{v{i}}}}}")).collect();
    tmp.write("line.prompty", format!("---\nname: t\n---\nuser:\n{body}\n").as_bytes());
    let out = prompty(tmp.path(), &["check", "line.prompty"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout.matches("PL001(undeclared-variable)").count(), 20_000);
    // The 200 KB line is shown clipped around each finding, not whole 20,000 times.
    assert!(out.stdout.len() < 20_000 * 1_500, "{} bytes of output", out.stdout.len());
    let last = body.rfind("{{v19999}}").unwrap_or_default() + 3;
    assert!(out.stdout.contains(&format!("[line.prompty:5:{last}]")), "the last finding's byte column");
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

#[test]
fn item6_one_result_line_per_data_row() {
    let tmp = eval_folder("item6-rows");
    let dir = tmp.path();
    tmp.write("one.jsonl", b"\"{\\\"score\\\": 5}\"\n");
    tmp.write("six.jsonl", &[read(&dir.join("answers.jsonl")), read(&dir.join("answers.jsonl"))].concat());
    // Fewer answers than rows: an error record for each row without an answer.
    let out = prompty(dir, &["eval", "judge.prompty", "--data", "rows.jsonl", "--answers", "one.jsonl"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let lines: Vec<serde_json::Value> =
        out.stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_default()).collect();
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    assert_eq!(lines.iter().map(|l| l["line"].as_u64().unwrap_or(0)).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(lines[0]["verdict"], "pass");
    for l in &lines[1..] {
        assert_eq!(l["error"]["kind"], "missing answer", "{l}");
    }
    let summary: serde_json::Value = serde_json::from_str(out.stderr.lines().last().unwrap_or("")).unwrap_or_default();
    assert_eq!((summary["rows"].as_u64(), summary["errors"]["missing answer"].as_u64()), (Some(3), Some(2)));
    // More answers than rows: every row evaluated, the extra answers one summary error.
    let out = prompty(dir, &["eval", "judge.prompty", "--data", "rows.jsonl", "--answers", "six.jsonl"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 3, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("error: six.jsonl has 3 more line(s) than rows.jsonl (from line 4); they were not evaluated"),
        "{}",
        out.stderr
    );
    let summary: serde_json::Value = serde_json::from_str(out.stderr.lines().last().unwrap_or("")).unwrap_or_default();
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
    let cases: [(&[&str], String); 5] = [
        (&["render", "judge.prompty", "--inputs", "/dev/zero"], format!("error: /dev/zero: {limit}")),
        (&["score", "judge.prompty", "--answer", "/dev/zero"], format!("error: /dev/zero: {limit}")),
        (
            &["score", "judge.prompty", "--inputs", "/dev/zero", "--answer", "answers.jsonl"],
            format!("error: /dev/zero: {limit}"),
        ),
        (&["check", "--config", "/dev/zero", "judge.prompty"], format!("error: /dev/zero: {limit}")),
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
