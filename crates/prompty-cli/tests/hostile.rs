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
    let mut child = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the prompty binary runs");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("prompty {args:?} did not finish within {WATCHDOG:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut s) = child.stdout.take() {
        s.read_to_string(&mut stdout).expect("stdout");
    }
    if let Some(mut s) = child.stderr.take() {
        s.read_to_string(&mut stderr).expect("stderr");
    }
    let status = child.wait().expect("wait");
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
            let out = prompty(tmp.path(), &[cmd, &file]);
            assert_eq!(out.code, Some(2), "{} {cmd}: {}", case.name, out.stderr);
            assert!(out.stdout.is_empty(), "{} {cmd}: {}", case.name, out.stdout);
            let expected = format!("error: {file}:{}", case.error);
            assert!(out.stderr.starts_with(&expected), "{} {cmd}:\nexpected {expected}\ngot {}", case.name, out.stderr);
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
