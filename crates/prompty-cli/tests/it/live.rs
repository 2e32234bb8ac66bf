//! `prompty run`, `prompty eval --judge`, `prompty batch` and `eval --batch-results`
//! against real HTTP on loopback: a server in the test (127.0.0.1, a free port) plays the
//! OpenAI-compatible or Anthropic-compatible endpoint, counts and records requests, and
//! injects 429s with `Retry-After`, 500s, slow answers and malformed bodies. No test
//! touches any other network; every `prompty` run is killed if it outlives the watchdog.

use crate::server;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use server::{Recorded, Reply, Server, anthropic_message, chat_completion};

/// How long one `prompty` run may take before it counts as hung.
const WATCHDOG: Duration = Duration::from_secs(60);

/// A key that must never leave the trusted endpoint's request headers.
const KEY: &str = "sk-fake-test-key-0123456789abcdef";

const JUDGE: &str = "---
name: judge
model:
  id: judge-model
  options:
    temperature: 0
inputs:
  text: {kind: string}
metadata:
  evaluator: {answer: json, range: [1, 5], threshold: 3}
---
system:
Rate the text from 1 to 5. Reply with {\"score\": N, \"reason\": \"...\"}.

user:
{{ text }}
";

const GREET: &str = "---
name: greet
model:
  id: chat-model
inputs:
  name: {kind: string, default: World}
---
user:
Say hello to {{ name }}.
";

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

struct Dir {
    path: PathBuf,
}

impl Dir {
    fn new(name: &str) -> Dir {
        let path = std::env::temp_dir().join(format!("prompty-live-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("temp dir");
        Dir { path }
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.path.join(name), text).expect("write");
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path.join(name)).unwrap_or_default()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// `prompty ARGS` in `dir`, with only `env` in its environment (no proxies, no real keys).
fn command(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_prompty"));
    c.args(args)
        .current_dir(dir)
        .env_clear()
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn finish(child: Child) -> Out {
    let done = prompty_test_support::finish(child, WATCHDOG, "prompty");
    Out { code: done.status.code(), stdout: done.stdout, stderr: done.stderr }
}

fn prompty(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    finish(command(dir, args, env).spawn().expect("the prompty binary runs"))
}

fn key_env() -> [(&'static str, &'static str); 1] {
    [("OPENAI_API_KEY", KEY)]
}

/// The user message of a chat request.
fn user_text(r: &Recorded) -> String {
    let v = r.json();
    let messages = v["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.last().cloned().unwrap_or_default();
    match &last["content"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `word=N` in a row's text.
fn setting(text: &str, word: &str) -> Option<u64> {
    text.split_whitespace().find_map(|w| w.strip_prefix(&format!("{word}="))?.parse().ok())
}

/// The judge: answers `{"score": N}` from `score=N` in the row's text, after `delay=MS`;
/// `fail429=K` answers the first K attempts 429 with `Retry-After: 1`, `fail500=K` 500,
/// `malformed=K` a body that is not JSON, `slow=1` after three seconds.
fn judge_handler(r: &Recorded, seen: usize) -> Reply {
    let text = user_text(r);
    let seen = seen as u64;
    if setting(&text, "fail429").is_some_and(|k| seen < k) {
        return Reply::json(429, &json!({"error": {"message": "rate limited"}})).header("retry-after", "1");
    }
    if setting(&text, "fail500").is_some_and(|k| seen < k) {
        return Reply::json(500, &json!({"error": {"message": "server error"}}));
    }
    if setting(&text, "malformed").is_some_and(|k| seen < k) {
        return Reply::raw(200, "application/json", "{\"choices\": [");
    }
    let score = setting(&text, "score").unwrap_or(3);
    let reply = Reply::json(200, &chat_completion(&format!("{{\"score\": {score}, \"reason\": \"r{score}\"}}")));
    if setting(&text, "slow").is_some() {
        return reply.after(Duration::from_secs(3));
    }
    reply.after(Duration::from_millis(setting(&text, "delay").unwrap_or(0)))
}

fn rows(texts: &[String]) -> String {
    texts.iter().map(|t| format!("{}\n", json!({"text": t}))).collect()
}

fn lines(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_default()).collect()
}

/// What `prompty compile` prints for one row.
fn compiled(dir: &Dir, prompt: &str, row: &Value, extra: &[&str]) -> Value {
    dir.write("row.json", &row.to_string());
    let mut args = vec!["compile", prompt, "--inputs", "row.json"];
    args.extend_from_slice(extra);
    let out = prompty(&dir.path, &args, &[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_default()
}

#[test]
fn judge_scores_rows_in_data_order_at_full_concurrency_and_sends_what_compile_prints() {
    let server = Server::start(judge_handler);
    let dir = Dir::new("order");
    dir.write("judge.prompty", JUDGE);
    // Later rows answer sooner: they finish first and must still be written in data order.
    let texts: Vec<String> = (1..=12).map(|i| format!("row {i} score={} delay={}", i % 5 + 1, (13 - i) * 40)).collect();
    dir.write("rows.jsonl", &rows(&texts));
    let base = server.url("/v1");
    let out = prompty(
        &dir.path,
        &[
            "eval",
            "judge.prompty",
            "--data",
            "rows.jsonl",
            "--judge",
            "--base-url",
            &base,
            "--concurrency",
            "4",
            "--output",
            "results.jsonl",
            "--summary-json",
            "summary.json",
        ],
        &key_env(),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let results = lines(&dir.read("results.jsonl"));
    let order: Vec<u64> = results.iter().map(|r| r["line"].as_u64().unwrap_or(0)).collect();
    assert_eq!(order, (1..=12).collect::<Vec<_>>());
    let scores: Vec<f64> = results.iter().map(|r| r["score"].as_f64().unwrap_or(-1.0)).collect();
    assert_eq!(scores, (1..=12).map(|i| f64::from(i % 5 + 1)).collect::<Vec<_>>());
    assert_eq!(server.count(), 12);
    assert_eq!(server.max_in_flight(), 4, "the concurrency asked for is reached and never passed");
    for r in server.requests() {
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
        let row = json!({"text": texts.iter().find(|t| user_text(&r) == **t).cloned().unwrap_or_default()});
        assert_eq!(r.json(), compiled(&dir, "judge.prompty", &row, &[]), "the body sent is `prompty compile`'s");
    }
    let summary: Value = serde_json::from_str(&dir.read("summary.json")).unwrap_or_default();
    assert_eq!(summary["rows"], 12);
    assert_eq!(summary["requests"], json!({"sent": 12, "retried": 0, "cached": 0}));
    assert_eq!(summary["tokens"]["judge-model-2025"]["input_tokens"], 240);
    for text in [&out.stdout, &out.stderr, &dir.read("summary.json"), &dir.read("results.jsonl")] {
        assert!(!text.contains(KEY), "the key leaked: {text}");
    }
}

#[test]
fn reasoning_model_requests_drop_sampling_parameters_in_eval_judge_and_run() {
    let server = Server::start(judge_handler);
    let dir = Dir::new("reasoning");
    dir.write("judge.prompty", JUDGE);
    dir.write("rows.jsonl", &rows(&["a score=4".to_owned()]));
    let base = server.url("/v1");
    let args = ["eval", "judge.prompty", "--data", "rows.jsonl", "--judge", "--base-url", &base, "--reasoning-model"];
    let out = prompty(&dir.path, &args, &key_env());
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(lines(&out.stdout)[0]["score"], 4.0);
    let row = json!({"text": "a score=4"});
    let plain = compiled(&dir, "judge.prompty", &row, &[]);
    assert_eq!(plain["temperature"], 0.0, "the prompt itself sets a temperature");
    let expected = compiled(&dir, "judge.prompty", &row, &["--reasoning-model"]);
    assert!(expected.get("temperature").is_none(), "{expected}");
    let sent: Vec<Value> = server.requests().iter().map(Recorded::json).collect();
    assert_eq!(sent, [expected], "eval --judge sends compile --reasoning-model's body");
    let out = prompty(
        &dir.path,
        &["run", "judge.prompty", "--set", "text=b score=2", "--base-url", &base, "--reasoning-model"],
        &key_env(),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let last = server.requests().last().map(Recorded::json).unwrap_or_default();
    assert!(last.get("temperature").is_none() && last["model"] == "judge-model", "{last}");
}

#[test]
fn retries_honour_retry_after_and_exhausted_rows_get_an_error_record() {
    let server = Server::start(judge_handler);
    let dir = Dir::new("retries");
    dir.write("judge.prompty", JUDGE);
    let texts: Vec<String> =
        ["a score=4 fail429=2", "b score=5 fail500=1", "c score=2 malformed=1", "d fail500=99", "e slow=1"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
    dir.write("rows.jsonl", &rows(&texts));
    let base = server.url("/v1");
    let out = prompty(
        &dir.path,
        &[
            "eval",
            "judge.prompty",
            "--data",
            "rows.jsonl",
            "--judge",
            "--base-url",
            &base,
            "--max-retries",
            "2",
            "--timeout",
            "1",
            "--summary-json",
            "summary.json",
        ],
        &key_env(),
    );
    assert_eq!(out.code, Some(1), "rows with error records fail the run: {}", out.stderr);
    let by_row = |t: &str| server.requests().into_iter().filter(|r| user_text(r) == t).collect::<Vec<_>>();
    let attempts: Vec<usize> = texts.iter().map(|t| by_row(t).len()).collect();
    assert_eq!(attempts, [3, 2, 2, 3, 3]);
    let first = by_row(&texts[0]);
    for pair in first.windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(gap >= Duration::from_millis(950), "Retry-After: 1 was not honoured ({gap:?})");
    }
    let results = lines(&out.stdout);
    assert_eq!(results.len(), 5);
    assert_eq!(
        results.iter().map(|r| r["score"].as_f64()).collect::<Vec<_>>(),
        [Some(4.0), Some(5.0), Some(2.0), None, None]
    );
    let error = |i: usize| results[i]["error"]["message"].as_str().unwrap_or_default().to_owned();
    assert_eq!(results[3]["error"]["kind"], "request failed");
    assert!(error(3).contains("HTTP 500: server error (gave up after 3 attempts)"), "{}", error(3));
    assert!(error(4).contains("timed out"), "{}", error(4));
    let summary: Value = serde_json::from_str(&dir.read("summary.json")).unwrap_or_default();
    assert_eq!(summary["requests"]["retried"], 8);
    assert_eq!(summary["requests"]["sent"], 13);
    assert!(!unwrapped(&out.stderr).contains(KEY) && !out.stdout.contains(KEY));
}

/// A `retry-after-ms` too large for a duration, on a good answer or a 429, neither panics
/// `run` nor loses `eval`'s row: the answer is used, or the row fails with the wait named.
#[test]
fn a_huge_retry_after_ms_is_capped_not_a_crash() {
    let server = Server::start(|r, _| {
        if user_text(r).contains("limited") {
            return Reply::json(429, &json!({"error": {"message": "rate limited"}})).header("retry-after-ms", "1e30");
        }
        let text = if r.json()["messages"][0]["role"] == "system" { "{\"score\": 4}" } else { "Hello!" };
        Reply::json(200, &chat_completion(text)).header("retry-after-ms", "1e30")
    });
    let dir = Dir::new("huge-retry");
    dir.write("greet.prompty", GREET);
    dir.write("judge.prompty", JUDGE);
    dir.write("rows.jsonl", &rows(&["fine".to_owned(), "limited".to_owned()]));
    let base = server.url("/v1");
    let out = prompty(&dir.path, &["run", "greet.prompty", "--base-url", &base], &key_env());
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), "Hello!\n"), "{}", out.stderr);
    let out = prompty(
        &dir.path,
        &["eval", "judge.prompty", "--data", "rows.jsonl", "--judge", "--base-url", &base],
        &key_env(),
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let results = lines(&out.stdout);
    assert_eq!(results.len(), 2, "{}", out.stdout);
    assert_eq!(results[0]["score"], 4.0);
    let error = results[1]["error"]["message"].as_str().unwrap_or_default();
    assert!(
        error.contains(
            "HTTP 429: rate limited; the server asked to wait 1000000000 s, more than the 120 s this run waits"
        ),
        "{error}"
    );
    assert_eq!(server.count(), 3, "a wait past the limit is not retried");
}

#[test]
fn the_cache_answers_a_second_run_with_zero_requests_and_holds_no_key() {
    let server = Server::start(judge_handler);
    let dir = Dir::new("cache");
    dir.write("judge.prompty", JUDGE);
    let texts: Vec<String> = (1..=5).map(|i| format!("row {i} score={i}")).collect();
    dir.write("rows.jsonl", &rows(&texts));
    let base = server.url("/v1");
    let args = [
        "eval",
        "judge.prompty",
        "--data",
        "rows.jsonl",
        "--judge",
        "--base-url",
        &base,
        "--cache",
        "cache",
        "--summary-json",
        "summary.json",
    ];
    let first = prompty(&dir.path, &args, &key_env());
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert_eq!(server.count(), 5);
    let second = prompty(&dir.path, &args, &key_env());
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    assert_eq!(server.count(), 5, "an identical second run sends nothing");
    // The same results, each marked as answered from the cache.
    let marked: Vec<Value> = lines(&first.stdout)
        .into_iter()
        .map(|mut r| {
            r["cached"] = json!(true);
            r
        })
        .collect();
    assert_eq!(marked, lines(&second.stdout));
    let summary: Value = serde_json::from_str(&dir.read("summary.json")).unwrap_or_default();
    assert_eq!(summary["requests"], json!({"sent": 0, "retried": 0, "cached": 5}));
    // Cache files hold the request body and the response, never a header or a key.
    let mut files = 0;
    let mut stack = vec![dir.path.join("cache")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("cache dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            assert!(!text.contains(KEY) && !text.contains("Bearer"), "{}: {text}", p.display());
            let v: Value = serde_json::from_str(&text).unwrap_or_default();
            assert_eq!(
                v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()),
                Some(vec!["request".into(), "response".into()])
            );
        }
    }
    assert_eq!(files, 5);
}

/// A cache entry is checked against what it claims: one holding another request (a file
/// moved or forged under a key anyone can compute) is a miss with a warning. Rows answered
/// from the cache say `"cached": true`. With `PROMPTY_CACHE_KEY`, entries carry an HMAC
/// under that key: an edited answer, or an entry written without the key, is not used.
#[test]
fn poisoned_cache_entries_are_refused_and_cached_rows_are_marked() {
    let server = Server::start(judge_handler);
    let dir = Dir::new("cache-poison");
    dir.write("judge.prompty", JUDGE);
    dir.write("rows.jsonl", &rows(&["a score=5".to_owned(), "b score=2".to_owned()]));
    let base = server.url("/v1");
    let args = ["eval", "judge.prompty", "--data", "rows.jsonl", "--judge", "--base-url", &base, "--cache", "cache"];
    let first = prompty(&dir.path, &args, &key_env());
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert!(lines(&first.stdout).iter().all(|r| r.get("cached").is_none()), "{}", first.stdout);
    let entries = cache_entries(&dir.path.join("cache"));
    assert_eq!(entries.len(), 2);
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    // Row 1's entry swapped in for row 2's: its request is not the one being sent.
    let (a, b) = (read(&entries[0]), read(&entries[1]));
    std::fs::write(&entries[1], &a).expect("write");
    let second = prompty(&dir.path, &args, &key_env());
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    assert_eq!(server.count(), 3, "the swapped entry was a miss");
    let want = format!(
        "warning: --cache: {}: the entry holds another request than the one being sent; the request is sent",
        entries[1].strip_prefix(&dir.path).unwrap_or(&entries[1]).display()
    );
    assert!(second.stderr.contains(&want), "{}", second.stderr);
    let results = lines(&second.stdout);
    assert_eq!(results.iter().map(|r| r["score"].as_f64()).collect::<Vec<_>>(), [Some(5.0), Some(2.0)]);
    let cached: Vec<Option<bool>> = results.iter().map(|r| r["cached"].as_bool()).collect();
    assert_eq!(cached.iter().filter(|c| **c == Some(true)).count(), 1, "{}", second.stdout);
    assert!(second.stderr.contains("1 from cache"), "{}", second.stderr);
    assert_eq!(read(&entries[1]), b, "the entry was rewritten with its own request");

    // Under an integrity key: entries written without it are not used, and are rewritten.
    let keyed = [("OPENAI_API_KEY", KEY), ("PROMPTY_CACHE_KEY", "ci-secret-kept-outside")];
    let third = prompty(&dir.path, &args, &keyed);
    assert_eq!(third.code, Some(0), "{}", third.stderr);
    assert_eq!(server.count(), 5);
    assert_eq!(third.stderr.matches("the entry's mac does not match the integrity key").count(), 2, "{}", third.stderr);
    // An answer edited in place (a better score) no longer matches its mac.
    let low = entries.iter().find(|p| read(p).contains("\\\"score\\\": 2")).cloned().unwrap_or_default();
    let forged = read(&low).replace("\\\"score\\\": 2", "\\\"score\\\": 5");
    assert_ne!(forged, read(&low));
    std::fs::write(&low, &forged).expect("write");
    let fourth = prompty(&dir.path, &args, &keyed);
    assert_eq!(fourth.code, Some(0), "{}", fourth.stderr);
    assert_eq!(server.count(), 6, "the forged entry was sent again");
    assert_eq!(
        fourth.stderr.matches("the entry's mac does not match the integrity key").count(),
        1,
        "{}",
        fourth.stderr
    );
    let results = lines(&fourth.stdout);
    assert_eq!(results.iter().map(|r| r["score"].as_f64()).collect::<Vec<_>>(), [Some(5.0), Some(2.0)]);
    let out = prompty(&dir.path, &args, &[("OPENAI_API_KEY", KEY), ("PROMPTY_CACHE_KEY", " ")]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(unwrapped(&out.stderr).contains("PROMPTY_CACHE_KEY is set but empty"), "{}", out.stderr);
}

/// The entry files under a cache folder, sorted.
fn cache_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for shard in std::fs::read_dir(dir).expect("cache dir").flatten() {
        for e in std::fs::read_dir(shard.path()).into_iter().flatten().flatten() {
            out.push(e.path());
        }
    }
    out.sort();
    out
}

/// Cache entries are read only as regular files: an entry linked to `/dev/zero`, a FIFO
/// and a shard folder linked elsewhere are each refused with a warning naming the path
/// (the request is sent again), never read to exhaustion, waited on or written through.
#[cfg(unix)]
#[test]
fn cache_entries_that_are_links_fifos_or_in_linked_folders_are_refused() {
    let server = Server::start(judge_handler);
    let dir = Dir::new("cache-kinds");
    dir.write("judge.prompty", JUDGE);
    dir.write("rows.jsonl", &rows(&(1..=6).map(|i| format!("row {i} score=3")).collect::<Vec<_>>()));
    let base = server.url("/v1");
    let args = ["eval", "judge.prompty", "--data", "rows.jsonl", "--judge", "--base-url", &base, "--cache", "cache"];
    let first = prompty(&dir.path, &args, &key_env());
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let entries = cache_entries(&dir.path.join("cache"));
    assert_eq!(entries.len(), 6);
    let shard = |p: &PathBuf| p.parent().map(Path::to_path_buf).unwrap_or_default();
    // Three entries in three different shard folders.
    let mut picked: Vec<PathBuf> = Vec::new();
    for e in &entries {
        if picked.iter().all(|p| shard(p) != shard(e)) && picked.len() < 3 {
            picked.push(e.clone());
        }
    }
    assert_eq!(picked.len(), 3, "{entries:?}");
    let rel = |p: &Path| p.strip_prefix(&dir.path).map(Path::to_path_buf).unwrap_or_default();
    std::fs::remove_file(&picked[0]).expect("remove");
    std::os::unix::fs::symlink("/dev/zero", &picked[0]).expect("symlink");
    std::fs::remove_file(&picked[1]).expect("remove");
    let made = Command::new("mkfifo").arg(&picked[1]).status().expect("mkfifo");
    assert!(made.success());
    let linked = shard(&picked[2]);
    let in_linked = entries.iter().filter(|e| shard(e) == linked).count();
    let outside = dir.path.join("outside");
    std::fs::rename(&linked, &outside).expect("move the shard");
    std::os::unix::fs::symlink(&outside, &linked).expect("symlink");
    let outside_before: Vec<_> = std::fs::read_dir(&outside).expect("outside").flatten().map(|e| e.path()).collect();
    let second = prompty(&dir.path, &args, &key_env());
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    let unmarked = |text: &str| -> Vec<Value> {
        lines(text)
            .into_iter()
            .map(|mut r| {
                r.as_object_mut().map(|o| o.remove("cached"));
                r
            })
            .collect()
    };
    assert_eq!(unmarked(&first.stdout), unmarked(&second.stdout), "the refused entries were answered again");
    assert_eq!(server.count(), 6 + 2 + in_linked);
    for want in [
        format!(
            "warning: --cache: {}: the cache entry is a symbolic link; cache entries are never read or written through links (replace it with a regular cache entry); the request is sent",
            rel(&picked[0]).display()
        ),
        format!("warning: --cache: {}: not a regular file; the request is sent", rel(&picked[1]).display()),
        format!(
            "warning: --cache: {}: the cache folder is a symbolic link; cache entries are never read or written through links (replace it with a regular cache folder); the request is sent",
            rel(&linked).display()
        ),
        format!(
            "warning: --cache: {}: the cache folder is a symbolic link; cache entries are never read or written through links (replace it with a regular cache folder); this answer is not cached",
            rel(&linked).display()
        ),
    ] {
        assert!(second.stderr.contains(&want), "{want}\n{}", second.stderr);
    }
    let outside_after: Vec<_> = std::fs::read_dir(&outside).expect("outside").flatten().map(|e| e.path()).collect();
    assert_eq!(outside_before, outside_after, "nothing was written through the linked folder");
    // The link and the FIFO were replaced by regular entries (the rename replaces the link).
    assert!(std::fs::symlink_metadata(&picked[0]).is_ok_and(|m| m.is_file()));
    assert!(std::fs::symlink_metadata(&picked[1]).is_ok_and(|m| m.is_file()));
}

#[test]
fn ctrl_c_writes_the_finished_rows_in_order_and_a_rerun_sends_only_the_rest() {
    let slow = Arc::new(AtomicBool::new(true));
    let s = slow.clone();
    let server = Server::start(move |r, seen| {
        let reply = judge_handler(r, seen);
        if user_text(r).contains("wait") && s.load(Ordering::SeqCst) {
            reply.after(Duration::from_secs(20))
        } else {
            reply
        }
    });
    let dir = Dir::new("ctrl-c");
    dir.write("judge.prompty", JUDGE);
    let texts: Vec<String> =
        (1..=8).map(|i| if i <= 3 { format!("row {i} score=5") } else { format!("row {i} score=4 wait") }).collect();
    dir.write("rows.jsonl", &rows(&texts));
    let base = server.url("/v1");
    let args = [
        "eval",
        "judge.prompty",
        "--data",
        "rows.jsonl",
        "--judge",
        "--base-url",
        &base,
        "--cache",
        "cache",
        "--concurrency",
        "3",
        "--output",
        "results.jsonl",
    ];
    let child = command(&dir.path, &args, &key_env()).spawn().expect("prompty runs");
    // Rows 1-3 answered, rows 4-6 waiting at the server.
    assert!(server.wait_for(6, Duration::from_secs(20)), "only {} requests arrived", server.count());
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(killed.success());
    let out = finish(child);
    assert_eq!(out.code, Some(130), "{}", out.stderr);
    assert!(unwrapped(&out.stderr).contains("interrupted: 3 row(s) written"), "{}", out.stderr);
    let done = lines(&dir.read("results.jsonl"));
    assert_eq!(done.iter().map(|r| r["line"].as_u64().unwrap_or(0)).collect::<Vec<_>>(), [1, 2, 3]);
    let before = server.count();
    assert_eq!(before, 6);
    slow.store(false, Ordering::SeqCst);
    let again = prompty(&dir.path, &args, &key_env());
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert_eq!(server.count() - before, 5, "only rows 4-8 are sent again");
    let resent: Vec<String> = server.requests()[before..].iter().map(user_text).collect();
    assert!(resent.iter().all(|t| t.contains("wait")), "{resent:?}");
    let all = lines(&dir.read("results.jsonl"));
    assert_eq!(all.iter().map(|r| r["line"].as_u64().unwrap_or(0)).collect::<Vec<_>>(), (1..=8).collect::<Vec<_>>());
}

#[test]
fn sigterm_writes_the_finished_rows_and_leaves_no_temporary_file() {
    // What `timeout`, CI runners and `docker stop` send: handled like Ctrl-C.
    let server = Server::start(move |r, seen| {
        let reply = judge_handler(r, seen);
        if user_text(r).contains("wait") { reply.after(Duration::from_secs(20)) } else { reply }
    });
    let dir = Dir::new("sigterm");
    dir.write("judge.prompty", JUDGE);
    let texts: Vec<String> =
        (1..=6).map(|i| if i <= 2 { format!("row {i} score=5") } else { format!("row {i} score=4 wait") }).collect();
    dir.write("rows.jsonl", &rows(&texts));
    let base = server.url("/v1");
    let args = [
        "eval",
        "judge.prompty",
        "--data",
        "rows.jsonl",
        "--judge",
        "--base-url",
        &base,
        "--concurrency",
        "3",
        "--output",
        "results.jsonl",
    ];
    let child = command(&dir.path, &args, &key_env()).spawn().expect("prompty runs");
    // Rows 1-2 answered, rows 3-5 stalled at the server.
    assert!(server.wait_for(5, Duration::from_secs(20)), "only {} requests arrived", server.count());
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(killed.success());
    let out = finish(child);
    assert_eq!(out.code, Some(130), "{}", out.stderr);
    assert!(unwrapped(&out.stderr).contains("interrupted: 2 row(s) written"), "{}", out.stderr);
    let done = lines(&dir.read("results.jsonl"));
    assert_eq!(done.iter().map(|r| r["line"].as_u64().unwrap_or(0)).collect::<Vec<_>>(), [1, 2]);
    let left: Vec<String> = std::fs::read_dir(&dir.path)
        .expect("list")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

fn trusted_prompt(endpoint: &str) -> String {
    format!(
        "---\nname: greet\nmodel:\n  id: chat-model\n  connection:\n    kind: key\n    endpoint: {endpoint}\ninputs:\n  name: {{kind: string, default: World}}\n---\nuser:\nSay hello to {{{{ name }}}}.\n"
    )
}

#[test]
fn a_prompt_naming_its_own_endpoint_gets_no_request_until_trusted() {
    let server = Server::start(|_, _| Reply::json(200, &chat_completion("Hello!")));
    let dir = Dir::new("trust");
    let base = server.url("/v1");
    dir.write("own.prompty", &trusted_prompt(&base));
    dir.write("env.prompty", &trusted_prompt("${env:MY_ENDPOINT}"));
    dir.write(
        "judge.prompty",
        &JUDGE.replace(
            "  id: judge-model\n",
            &format!("  id: judge-model\n  connection:\n    kind: key\n    endpoint: {base}\n"),
        ),
    );
    dir.write("rows.jsonl", &rows(&["x score=4".to_owned()]));
    for args in [&["run", "own.prompty"][..], &["eval", "judge.prompty", "--data", "rows.jsonl", "--judge"][..]] {
        let out = prompty(&dir.path, args, &key_env());
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        let origin = format!("http://{}", server.addr);
        assert!(
            unwrapped(&out.stderr)
                .contains(&format!("names the endpoint {origin}, which is not trusted: no request was made")),
            "{}",
            out.stderr
        );
        assert!(
            unwrapped(&out.stderr).contains("PROMPTY_TRUSTED_ENDPOINTS") && !unwrapped(&out.stderr).contains(KEY),
            "{}",
            out.stderr
        );
        assert!(out.stdout.is_empty());
    }
    // Another port on the same host is another endpoint.
    let other = format!("http://127.0.0.1:{}", server.addr.port().wrapping_add(1).max(1));
    let out =
        prompty(&dir.path, &["run", "own.prompty"], &[("OPENAI_API_KEY", KEY), ("PROMPTY_TRUSTED_ENDPOINTS", &other)]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(server.count(), 0, "no request reached the untrusted endpoint");
    // Trusted by the list, or named by the environment: sent, with the key.
    let trusted = format!("https://example.invalid, http://{}", server.addr);
    let out = prompty(
        &dir.path,
        &["run", "own.prompty"],
        &[("OPENAI_API_KEY", KEY), ("PROMPTY_TRUSTED_ENDPOINTS", &trusted)],
    );
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), "Hello!\n"), "{}", out.stderr);
    let out = prompty(&dir.path, &["run", "env.prompty"], &[("OPENAI_API_KEY", KEY), ("MY_ENDPOINT", &base)]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(server.count(), 2);
    assert!(server.requests().iter().all(|r| r.header("authorization") == Some(&format!("Bearer {KEY}"))));
}

/// A prompt that names another variable as its key (`apiKey: ${env:GITHUB_TOKEN}`) sends it
/// only when the user allows that variable (`--allow-key-var`, `[run] allow-key-vars` in the
/// prompty.toml of the current folder); a provider's public API is trusted for that
/// provider only.
#[test]
fn a_prompt_sends_only_key_variables_the_user_allows() {
    let server = Server::start(|_, _| Reply::json(200, &chat_completion("Hello!")));
    let dir = Dir::new("key-var");
    let token = "ghp-not-for-this-endpoint-0123456789";
    dir.write(
        "greet.prompty",
        &GREET.replace(
            "  id: chat-model\n",
            "  id: chat-model\n  connection:\n    kind: key\n    apiKey: ${env:GITHUB_TOKEN}\n",
        ),
    );
    dir.write(
        "judge.prompty",
        &JUDGE.replace(
            "  id: judge-model\n",
            "  id: judge-model\n  connection:\n    kind: key\n    apiKey: ${env:GITHUB_TOKEN}\n",
        ),
    );
    dir.write("rows.jsonl", &rows(&["x score=4".to_owned()]));
    let base = server.url("/v1");
    let env = [("GITHUB_TOKEN", token), ("OPENAI_API_KEY", KEY)];
    let refused = "model.connection.apiKey is `${env:GITHUB_TOKEN}`, which is not openai's key variable OPENAI_API_KEY: no request was made. A prompt file chooses which variable is sent as its key, so only OPENAI_API_KEY or a variable you allow is sent: pass --allow-key-var GITHUB_TOKEN, or list it in prompty.toml (`[run]` `allow-key-vars = [\"GITHUB_TOKEN\"]`)";
    for args in [
        &["run", "greet.prompty", "--base-url", &base][..],
        &["eval", "judge.prompty", "--data", "rows.jsonl", "--judge", "--base-url", &base][..],
    ] {
        let out = prompty(&dir.path, args, &env);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(unwrapped(&out.stderr).contains(refused), "{args:?}: {}", out.stderr);
        assert!(!unwrapped(&out.stderr).contains(token) && out.stdout.is_empty(), "{}", out.stderr);
    }
    assert_eq!(server.count(), 0, "no request without the user's leave");
    let out =
        prompty(&dir.path, &["run", "greet.prompty", "--base-url", &base, "--allow-key-var", "GITHUB_TOKEN"], &env);
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), "Hello!\n"), "{}", out.stderr);
    dir.write("prompty.toml", "[run]\nallow-key-vars = [\"GITHUB_TOKEN\"]\n");
    let out =
        prompty(&dir.path, &["eval", "judge.prompty", "--data", "rows.jsonl", "--judge", "--base-url", &base], &env);
    assert_ne!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(server.count(), 2);
    assert!(server.requests().iter().all(|r| r.header("authorization") == Some(&format!("Bearer {token}"))));
    let out = prompty(&dir.path, &["run", "greet.prompty", "--allow-key-var", "GITHUB-TOKEN"], &env);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        unwrapped(&out.stderr).contains("--allow-key-var `GITHUB-TOKEN`: not an environment variable name"),
        "{}",
        out.stderr
    );
    // Anthropic's public API is no endpoint for an OpenAI request and its key.
    dir.write("cross.prompty", &trusted_prompt("https://api.anthropic.com"));
    let out = prompty(&dir.path, &["run", "cross.prompty"], &key_env());
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        unwrapped(&out.stderr)
            .contains("names the endpoint https://api.anthropic.com:443, which is not trusted: no request was made"),
        "{}",
        out.stderr
    );
}

/// Endpoints from the environment (`OPENAI_BASE_URL`, or `${env:NAME}` in the prompt) are
/// named by their variable in every message of `run` and `eval`: a key set in the wrong
/// variable, or a token in a URL's path, is never printed.
#[test]
fn endpoint_values_from_the_environment_are_never_printed() {
    let secret = "sk-live-endpoint-secret-0123456789";
    let dir = Dir::new("env-endpoint");
    dir.write("greet.prompty", GREET);
    dir.write("env.prompty", &trusted_prompt("${env:MY_ENDPOINT}"));
    dir.write("judge.prompty", JUDGE);
    dir.write(
        "env-judge.prompty",
        &JUDGE.replace(
            "  id: judge-model\n",
            "  id: judge-model\n  connection:\n    kind: key\n    endpoint: ${env:MY_ENDPOINT}\n",
        ),
    );
    dir.write("rows.jsonl", &rows(&["x score=4".to_owned()]));
    // A port nothing listens on, with a token in the path.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr");
    let token_url = format!("http://{closed}/{secret}/v1");
    let eval = |file: &'static str| vec!["eval", file, "--data", "rows.jsonl", "--judge", "--max-retries", "0"];
    let run = |file: &'static str| vec!["run", file, "--max-retries", "0"];
    let not_url = "is not an http:// or https:// URL (relative URL without a base)";
    type Case<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>, i32, String);
    let cases: Vec<Case<'_>> = vec![
        (
            run("greet.prompty"),
            vec![("OPENAI_BASE_URL", secret), ("OPENAI_API_KEY", KEY)],
            2,
            format!("OPENAI_BASE_URL: `${{env:OPENAI_BASE_URL}}` {not_url}"),
        ),
        (
            eval("judge.prompty"),
            vec![("OPENAI_BASE_URL", secret), ("OPENAI_API_KEY", KEY)],
            2,
            format!("OPENAI_BASE_URL: `${{env:OPENAI_BASE_URL}}` {not_url}"),
        ),
        (
            run("env.prompty"),
            vec![("MY_ENDPOINT", secret), ("OPENAI_API_KEY", KEY)],
            2,
            format!("model.connection.endpoint: `${{env:MY_ENDPOINT}}` {not_url}"),
        ),
        (
            eval("env-judge.prompty"),
            vec![("MY_ENDPOINT", secret), ("OPENAI_API_KEY", KEY)],
            2,
            format!("model.connection.endpoint: `${{env:MY_ENDPOINT}}` {not_url}"),
        ),
        (
            run("env.prompty"),
            vec![("MY_ENDPOINT", &token_url), ("OPENAI_API_KEY", KEY)],
            1,
            "${env:MY_ENDPOINT}/chat/completions: cannot connect".to_owned(),
        ),
        (
            eval("env-judge.prompty"),
            vec![("MY_ENDPOINT", &token_url), ("OPENAI_API_KEY", KEY)],
            1,
            "${env:MY_ENDPOINT}/chat/completions: cannot connect".to_owned(),
        ),
        (
            run("greet.prompty"),
            vec![("OPENAI_BASE_URL", &token_url), ("OPENAI_API_KEY", KEY)],
            1,
            "${env:OPENAI_BASE_URL}/chat/completions: cannot connect".to_owned(),
        ),
    ];
    for (args, env, code, want) in cases {
        let out = prompty(&dir.path, &args, &env);
        assert_eq!(out.code, Some(code), "{args:?}: {}", out.stderr);
        let all = format!("{}{}", out.stdout, out.stderr);
        assert!(unwrapped(&all).contains(&want), "{args:?}: {want}\n{all}");
        assert!(!all.contains(secret) && !all.contains(KEY), "{args:?}: {all}");
    }
}

#[test]
fn redirects_are_not_followed_so_a_key_never_reaches_another_host() {
    let elsewhere = Server::start(|_, _| Reply::json(200, &chat_completion("stolen")));
    let target = elsewhere.url("/v1/chat/completions");
    let server = Server::start(move |_, _| Reply::raw(307, "text/plain", "").header("location", &target));
    let dir = Dir::new("redirect");
    dir.write("greet.prompty", GREET);
    let out = prompty(&dir.path, &["run", "greet.prompty", "--base-url", &server.url("/v1")], &key_env());
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(unwrapped(&out.stderr).contains("redirects are not followed"), "{}", out.stderr);
    assert_eq!(server.count(), 1);
    assert_eq!(elsewhere.count(), 0, "the redirect target got nothing");
}

#[test]
fn run_against_openai_and_anthropic_compatible_servers() {
    let server = Server::start(|r, _| {
        if r.path == "/v1/messages" {
            Reply::json(200, &anthropic_message("Hi from Claude"))
        } else {
            Reply::json(200, &chat_completion("Hello, Ada!"))
        }
    });
    let dir = Dir::new("run");
    dir.write("greet.prompty", GREET);
    let out = prompty(
        &dir.path,
        &["run", "greet.prompty", "--set", "name=Ada", "--base-url", &server.url("/v1")],
        &key_env(),
    );
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), "Hello, Ada!\n"), "{}", out.stderr);
    let out = prompty(
        &dir.path,
        &[
            "run",
            "greet.prompty",
            "--set",
            "name=Ada",
            "--provider",
            "anthropic",
            "--base-url",
            &server.url(""),
            "--format",
            "json",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let printed: Value = serde_json::from_str(&out.stdout).unwrap_or_default();
    assert_eq!(
        printed,
        json!({"output": "Hi from Claude", "finish_reason": "end_turn", "usage": {"input_tokens": 11, "output_tokens": 3, "total_tokens": 14}, "model": "claude-test", "id": "msg_test"})
    );
    let requests = server.requests();
    let row = json!({"name": "Ada"});
    let (openai, anthropic) = (&requests[0], &requests[1]);
    assert_eq!(openai.path, "/v1/chat/completions");
    assert_eq!(openai.json(), compiled(&dir, "greet.prompty", &row, &[]));
    assert_eq!(openai.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(openai.header("x-api-key"), None);
    assert_eq!(anthropic.path, "/v1/messages");
    assert_eq!(anthropic.json(), compiled(&dir, "greet.prompty", &row, &["--provider", "anthropic"]));
    assert_eq!(anthropic.header("x-api-key"), Some(KEY));
    assert_eq!(anthropic.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(anthropic.header("authorization"), None, "no Authorization header to Anthropic");
}

/// A prompt whose key is `${env:NAME}` with NAME unset runs against a local server named on
/// the command line: the request goes without a key and `run` says so; against the public
/// API (no endpoint named) it stops before any request, naming the variable.
#[test]
fn an_unset_key_variable_is_needed_only_by_an_endpoint_that_wants_it() {
    let server = Server::start(|_, _| Reply::json(200, &chat_completion("Hello, Ada!")));
    let dir = Dir::new("unset-key");
    dir.write(
        "keyed.prompty",
        &GREET.replace(
            "  id: chat-model\n",
            "  id: chat-model\n  connection:\n    kind: key\n    apiKey: ${env:PROMPTY_TEST_UNSET_KEY}\n",
        ),
    );
    let out = prompty(&dir.path, &["run", "keyed.prompty", "--base-url", &server.url("/v1")], &[]);
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), "Hello, Ada!\n"), "{}", out.stderr);
    assert!(
        unwrapped(&out.stderr).contains("the prompt's API key is `${env:PROMPTY_TEST_UNSET_KEY}`, and PROMPTY_TEST_UNSET_KEY is not set: requests go without a key"),
        "{}",
        out.stderr
    );
    assert_eq!(server.requests()[0].header("authorization"), None);
    let out = prompty(&dir.path, &["run", "keyed.prompty"], &[]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        unwrapped(&out.stderr).contains(
            "model.connection.apiKey is `${env:PROMPTY_TEST_UNSET_KEY}`, and PROMPTY_TEST_UNSET_KEY is not set"
        ),
        "{}",
        out.stderr
    );
    let out = prompty(&dir.path, &["run", "keyed.prompty", "--require-env", "--base-url", &server.url("/v1")], &[]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(unwrapped(&out.stderr).contains("P020"), "{}", out.stderr);
    assert_eq!(server.count(), 1, "no request without the key where one is needed");
}

#[test]
fn keys_echoed_by_an_endpoint_are_hidden_in_errors() {
    let server = Server::start(|r, _| {
        let echoed = r.header("authorization").unwrap_or_default().trim_start_matches("Bearer ").to_owned();
        Reply::json(401, &json!({"error": {"message": format!("Incorrect API key provided: {echoed}")}}))
    });
    let dir = Dir::new("echo");
    dir.write("greet.prompty", GREET);
    let out = prompty(&dir.path, &["run", "greet.prompty", "--base-url", &server.url("/v1")], &key_env());
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(
        unwrapped(&out.stderr).contains("HTTP 401: Incorrect API key provided: <OPENAI_API_KEY>"),
        "{}",
        out.stderr
    );
    assert!(!unwrapped(&out.stderr).contains(KEY));
    assert_eq!(server.count(), 1, "401 is not retried");
}

/// An endpoint that echoes the credential header (`Authorization`, `api-key`, `x-api-key`)
/// in a good answer gets the key written nowhere: not in `run`'s output, `--output`, the
/// summary or any cache entry; the key as set (with trailing spaces) and trimmed both count.
#[test]
fn keys_echoed_in_answers_are_redacted_everywhere() {
    let server = Server::start(|r, _| {
        let echoed =
            ["authorization", "api-key", "x-api-key"].iter().filter_map(|h| r.header(h)).collect::<Vec<_>>().join(" ");
        if r.path == "/v1/messages" {
            return Reply::json(200, &anthropic_message(&format!("you sent {echoed}")));
        }
        let judged = r.json()["messages"][0]["role"] == "system";
        let text = if judged {
            json!({"score": 4, "reason": format!("key {echoed}")}).to_string()
        } else {
            format!("you sent {echoed}")
        };
        Reply::json(200, &chat_completion(&text))
    });
    let dir = Dir::new("echo-answer");
    dir.write("greet.prompty", GREET);
    dir.write("judge.prompty", JUDGE);
    dir.write("rows.jsonl", &rows(&["x".to_owned()]));
    let padded = format!("{KEY}  ");
    let env = [("OPENAI_API_KEY", padded.as_str()), ("ANTHROPIC_API_KEY", KEY)];
    let base = server.url("/v1");
    let out = prompty(&dir.path, &["run", "greet.prompty", "--base-url", &base], &env);
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), "you sent Bearer <OPENAI_API_KEY>\n"), "{}", out.stderr);
    let out = prompty(&dir.path, &["run", "greet.prompty", "--base-url", &base, "--format", "json"], &env);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("you sent Bearer <OPENAI_API_KEY>") && !out.stdout.contains(KEY), "{}", out.stdout);
    let out =
        prompty(&dir.path, &["run", "greet.prompty", "--provider", "anthropic", "--base-url", &server.url("")], &env);
    assert_eq!((out.code, out.stdout.as_str()), (Some(0), "you sent <ANTHROPIC_API_KEY>\n"), "{}", out.stderr);
    let args = [
        "eval",
        "judge.prompty",
        "--data",
        "rows.jsonl",
        "--judge",
        "--base-url",
        &base,
        "--cache",
        "cache",
        "--output",
        "results.jsonl",
        "--summary-json",
        "summary.json",
    ];
    let out = prompty(&dir.path, &args, &env);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let results = lines(&dir.read("results.jsonl"));
    assert_eq!(results[0]["reason"], "key Bearer <OPENAI_API_KEY>", "{results:?}");
    let mut written = vec![out.stdout, out.stderr, dir.read("results.jsonl"), dir.read("summary.json")];
    written
        .extend(cache_entries(&dir.path.join("cache")).iter().map(|p| std::fs::read_to_string(p).unwrap_or_default()));
    assert_eq!(written.len(), 5);
    for text in written {
        assert!(!text.contains(KEY), "the key was written: {text}");
    }
}

#[test]
fn batch_files_and_their_results_scored_in_data_order() {
    let dir = Dir::new("batch");
    dir.write("judge.prompty", JUDGE);
    let texts: Vec<String> = (1..=4).map(|i| format!("row {i}")).collect();
    dir.write("rows.jsonl", &rows(&texts));
    let out = prompty(
        &dir.path,
        &["batch", "judge.prompty", "--data", "rows.jsonl", "--provider", "openai", "--output", "batch.jsonl"],
        &[],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let requests = lines(&dir.read("batch.jsonl"));
    assert_eq!(requests.len(), 4);
    let mut ids = Vec::new();
    for (r, text) in requests.iter().zip(&texts) {
        assert_eq!((r["method"].as_str(), r["url"].as_str()), (Some("POST"), Some("/v1/chat/completions")));
        assert_eq!(r["body"], compiled(&dir, "judge.prompty", &json!({"text": text}), &[]));
        ids.push(r["custom_id"].as_str().unwrap_or_default().to_owned());
    }
    // The provider answers out of order; row 3 failed there; a line for another request.
    let ok = |id: &str, score: u32| json!({"id": "b", "custom_id": id, "response": {"status_code": 200, "body": chat_completion(&format!("{{\"score\": {score}}}"))}, "error": null});
    let results = [
        ok(&ids[3], 2),
        ok(&ids[0], 5),
        json!({"custom_id": ids[2], "response": {"status_code": 500, "body": {"error": {"message": "boom"}}}, "error": null}),
        ok(&ids[1], 4),
        ok("row-9-abcdefabcdef", 1),
    ];
    dir.write("out.jsonl", &results.iter().map(|r| format!("{r}\n")).collect::<String>());
    let out =
        prompty(&dir.path, &["eval", "judge.prompty", "--data", "rows.jsonl", "--batch-results", "out.jsonl"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let scored = lines(&out.stdout);
    assert_eq!(scored.iter().map(|r| r["line"].as_u64().unwrap_or(0)).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert_eq!(scored.iter().map(|r| r["score"].as_f64()).collect::<Vec<_>>(), [Some(5.0), Some(4.0), None, Some(2.0)]);
    assert!(scored[2]["error"]["message"].as_str().unwrap_or_default().contains("HTTP 500: boom"));
    assert!(unwrapped(&out.stderr).contains("1 result(s) match no data row"), "{}", out.stderr);
    // A row whose request changed since the batch was made is not scored with an old answer.
    dir.write("rows.jsonl", &rows(&["row 1 changed".to_owned(), texts[1].clone(), texts[2].clone(), texts[3].clone()]));
    let out =
        prompty(&dir.path, &["eval", "judge.prompty", "--data", "rows.jsonl", "--batch-results", "out.jsonl"], &[]);
    assert_eq!(lines(&out.stdout)[0]["error"]["kind"], "stale batch result", "{}", out.stdout);

    // Anthropic Message Batches: one JSON body, results in their own shape.
    dir.write("rows.jsonl", &rows(&texts));
    let out = prompty(&dir.path, &["batch", "judge.prompty", "--data", "rows.jsonl", "--provider", "anthropic"], &[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let body: Value = serde_json::from_str(&out.stdout).unwrap_or_default();
    let requests = body["requests"].as_array().cloned().unwrap_or_default();
    assert_eq!(requests.len(), 4);
    assert_eq!(
        requests[0]["params"],
        compiled(&dir, "judge.prompty", &json!({"text": texts[0]}), &["--provider", "anthropic"])
    );
    let results: String = requests
        .iter()
        .rev()
        .map(|r| {
            let message = anthropic_message("{\"score\": 3}");
            format!("{}\n", json!({"custom_id": r["custom_id"], "result": {"type": "succeeded", "message": message}}))
        })
        .collect();
    dir.write("anthropic-out.jsonl", &results);
    let out = prompty(
        &dir.path,
        &[
            "eval",
            "judge.prompty",
            "--data",
            "rows.jsonl",
            "--batch-results",
            "anthropic-out.jsonl",
            "--provider",
            "anthropic",
        ],
        &[],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        lines(&out.stdout).iter().map(|r| r["verdict"].as_str().unwrap_or_default().to_owned()).collect::<Vec<_>>(),
        ["pass"; 4]
    );
}

#[test]
#[cfg_attr(not(has_script), ignore = "`script` (util-linux) is not on PATH")]
fn text_results_stream_on_a_terminal() {
    let version = Command::new("script").arg("--version").output();
    assert!(version.is_ok(), "`script` (util-linux) runs (CI=true runs this test whether or not it is there)");
    let server = Server::start(|r, _| {
        if !r.text().contains("\"stream\":true") {
            return Reply::json(400, &json!({"error": {"message": "expected a streaming request"}}));
        }
        let events = [
            json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]}),
            json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "lo!"}, "finish_reason": "stop"}]}),
        ];
        let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect::<String>() + "data: [DONE]\n\n";
        Reply::raw(200, "text/event-stream", &body)
    });
    let dir = Dir::new("stream");
    dir.write("greet.prompty", GREET);
    let inner = format!("{} run greet.prompty --base-url {}", env!("CARGO_BIN_EXE_prompty"), server.url("/v1"));
    let mut c = Command::new("script");
    c.args(["-qec", &inner, "/dev/null"])
        .current_dir(&dir.path)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("OPENAI_API_KEY", KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = finish(c.spawn().expect("script runs"));
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    assert_eq!(out.stdout.replace('\r', ""), "Hello!\n");
    assert_eq!(server.count(), 1);
}

/// A human report with miette's line wrapping undone (the continuation `│` joined back).
fn unwrapped(stderr: &str) -> String {
    stderr.replace("\n  │ ", " ")
}

/// Two evaluators with `--judge` and `--cache`: one request per row and evaluator, every
/// row's line holds both results in data order (a mapping feeds the second evaluator its
/// input), and a second run answers every request from the cache, marking each evaluator's
/// result `"cached": true`; a new row costs one request per evaluator.
#[test]
fn two_evaluators_judge_every_row_and_share_the_cache() {
    const LENGTH: &str = "---
name: length
model:
  id: judge-model
inputs:
  answer: {kind: string}
metadata:
  evaluator: {answer: json, range: [1, 5], threshold: 4}
---
user:
How short is this? {{ answer }}
";
    let server = Server::start(judge_handler);
    let dir = Dir::new("two-judges");
    dir.write("judge.prompty", JUDGE);
    dir.write("length.prompty", LENGTH);
    let data = |n: u64| -> String {
        (1..=n)
            .map(|i| {
                format!(
                    "{}\n",
                    json!({"id": format!("r{i}"), "text": format!("row {i} score={i} delay={}", (5 - i) * 30)})
                )
            })
            .collect()
    };
    dir.write("rows.jsonl", &data(4));
    let base = server.url("/v1");
    let args = [
        "eval",
        "judge.prompty",
        "length.prompty",
        "--data",
        "rows.jsonl",
        "--judge",
        "--base-url",
        &base,
        "--cache",
        "cache",
        "--map",
        "length:answer=text",
        "--concurrency",
        "3",
        "--summary-json",
        "summary.json",
    ];
    let first = prompty(&dir.path, &args, &key_env());
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert_eq!(server.count(), 8, "one request per row and evaluator");
    let seen: Vec<(String, Value, Value)> = lines(&first.stdout)
        .into_iter()
        .map(|l| {
            (
                l["id"].as_str().unwrap_or_default().to_owned(),
                l["evaluators"]["judge"]["score"].clone(),
                l["evaluators"]["length"]["score"].clone(),
            )
        })
        .collect();
    let expected: Vec<(String, Value, Value)> =
        (1..=4).map(|i| (format!("r{i}"), json!(i as f64), json!(i as f64))).collect();
    assert_eq!(seen, expected);
    let summary: Value = serde_json::from_str(&dir.read("summary.json")).unwrap_or_default();
    assert_eq!(summary["evaluators"]["judge"]["rows"], json!(4));
    assert_eq!(summary["evaluators"]["length"]["pass_rate"], json!(0.25));
    assert!(
        first.stderr.contains("== judge (judge.prompty)") && first.stderr.contains("== length (length.prompty)"),
        "{}",
        first.stderr
    );

    let second = prompty(&dir.path, &args, &key_env());
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    assert_eq!(server.count(), 8, "an identical second run sends nothing");
    let marked: Vec<Value> = lines(&first.stdout)
        .into_iter()
        .map(|mut l| {
            l["evaluators"]["judge"]["cached"] = json!(true);
            l["evaluators"]["length"]["cached"] = json!(true);
            l
        })
        .collect();
    assert_eq!(lines(&second.stdout), marked);

    dir.write("rows.jsonl", &data(5));
    let third = prompty(&dir.path, &args, &key_env());
    assert_eq!(third.code, Some(0), "{}", third.stderr);
    assert_eq!(server.count(), 10, "the new row costs one request per evaluator");
}
