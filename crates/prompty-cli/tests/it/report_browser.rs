//! The HTML report (`eval --report`, `prompty report`) in a real browser: headless Chromium
//! (Debian's `chromium`) driven over the DevTools protocol on a pipe
//! (`--remote-debugging-pipe`: NUL-terminated JSON messages on file descriptors 3 and 4, no
//! port, no websocket). With 10,000 rows, one of them hostile, it checks: no console error,
//! exception or CSP violation; no request but the page itself; the row count shown equals
//! the data and a page holds at most 100 table rows; filtering by "fail" shows only failing
//! rows, as many as the data has; one histogram bar per judged score value, each with its
//! count; the injected markup shows as text and never ran. The comparison page lists the
//! rows whose verdict changed first.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use prompty_test_support::{Rng, TempDir};
use serde_json::{Value, json};

/// How long one DevTools call or page wait may take before the test fails.
const LIMIT: Duration = Duration::from_secs(60);

const ROWS: usize = 10_000;
/// The row whose input and judge reason carry markup.
const HOSTILE_ROW: usize = 7;
const HOSTILE: &str =
    "</textarea></script><script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\"><b>bold</b>";

fn prompty() -> Command {
    Command::new(env!("CARGO_BIN_EXE_prompty"))
}

fn coherence_prompt() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../prompts/coherence.prompty")
}

/// A headless Chromium with a page attached over the DevTools pipe.
struct Browser {
    child: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    next: u64,
    session: String,
    /// Every event received, in order.
    events: Vec<Value>,
    _profile: TempDir,
}

impl Browser {
    fn start() -> Browser {
        let profile = TempDir::new("chromium-profile");
        // fd 3 is what the browser reads (our pipe to its standard input), fd 4 what it
        // writes (our pipe from its standard output).
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" 3<&0 4>&1 0</dev/null 1>/dev/null")
            .arg("chromium")
            .args([
                "--headless",
                "--remote-debugging-pipe",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1280,1000",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromium starts (apt-get install -y chromium; .ci/run installs it)");
        let input = child.stdin.take().expect("the browser's input pipe");
        let output = child.stdout.take().expect("the browser's output pipe");
        let (tx, messages) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(output);
            let mut buf = Vec::new();
            while let Ok(n) = reader.read_until(0, &mut buf) {
                if n == 0 {
                    break;
                }
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                if let Ok(v) = serde_json::from_slice::<Value>(&buf)
                    && tx.send(v).is_err()
                {
                    break;
                }
                buf.clear();
            }
        });
        let mut b =
            Browser { child, input, messages, next: 0, session: String::new(), events: Vec::new(), _profile: profile };
        let targets = b.send(None, "Target.getTargets", json!({}));
        let page = targets["targetInfos"]
            .as_array()
            .and_then(|ts| ts.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["targetId"].as_str())
            .expect("the browser has a page")
            .to_owned();
        let attached = b.send(None, "Target.attachToTarget", json!({"targetId": page, "flatten": true}));
        b.session = attached["sessionId"].as_str().expect("a session id").to_owned();
        for domain in ["Runtime.enable", "Log.enable", "Network.enable", "Page.enable"] {
            b.call(domain, json!({}));
        }
        b
    }

    /// Sends a command (to the page's session, or the browser) and waits for its answer.
    fn send(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).expect("a message");
        bytes.push(0);
        self.input.write_all(&bytes).expect("the browser reads its pipe");
        self.input.flush().expect("the browser reads its pipe");
        let deadline = Instant::now() + LIMIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(m) if m["id"] == json!(id) => {
                    assert!(m.get("error").is_none(), "{method} failed: {}", m["error"]);
                    return m["result"].clone();
                }
                Ok(m) => self.events.push(m),
                Err(RecvTimeoutError::Timeout) => panic!("{method}: no answer from the browser in {LIMIT:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("{method}: the browser closed its pipe"),
            }
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(Some(&session), method, params)
    }

    /// The value of a JavaScript expression in the page (promises awaited).
    fn eval(&mut self, expression: &str) -> Value {
        let r = self
            .call("Runtime.evaluate", json!({"expression": expression, "returnByValue": true, "awaitPromise": true}));
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {}", r["exceptionDetails"]);
        r["result"]["value"].clone()
    }

    /// Opens `path` and waits until its script has shown the rows.
    fn open(&mut self, path: &Path) -> String {
        let url = format!("file://{}", std::fs::canonicalize(path).expect("the report exists").display());
        self.call("Page.navigate", json!({"url": url}));
        let deadline = Instant::now() + LIMIT;
        while self.eval("document.readyState === 'complete' && document.body.dataset.ready === 'true'") != json!(true) {
            assert!(Instant::now() < deadline, "{url}: the report's script did not finish in {LIMIT:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
        url
    }

    /// Console errors, uncaught exceptions and log errors (CSP violations among them) so far.
    fn problems(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| match e["method"].as_str() {
                Some("Runtime.exceptionThrown") => true,
                Some("Runtime.consoleAPICalled") => {
                    matches!(e["params"]["type"].as_str(), Some("error" | "assert" | "warning"))
                }
                Some("Log.entryAdded") => matches!(e["params"]["entry"]["level"].as_str(), Some("error" | "warning")),
                _ => false,
            })
            .map(Value::to_string)
            .collect()
    }

    /// The URLs of every request the pages made.
    fn requests(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent")
            .filter_map(|e| e["params"]["request"]["url"].as_str().map(str::to_owned))
            .collect()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A judge answer for a data row: a score from 1 to 5 (or 9, out of range: unknown; or an
/// answer that gives no score: an error record).
fn answer(rng: &mut Rng, row: usize) -> String {
    let reason = if row == HOSTILE_ROW { HOSTILE.to_owned() } else { format!("reason {row}") };
    match rng.below(40) {
        0 => json!("no score in this answer").to_string(),
        1 => json!({"score": 9, "reason": reason}).to_string(),
        n => json!({"score": 1 + n % 5, "reason": reason}).to_string(),
    }
}

/// The data, two runs of answers, and both runs' results (with the first run's report).
struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = TempDir::new("report-browser");
        let mut rows = String::new();
        let (mut a, mut b) = (String::new(), String::new());
        let (mut ra, mut rb) = (Rng::new(26), Rng::new(27));
        for row in 1..=ROWS {
            let query = if row == HOSTILE_ROW { HOSTILE.to_owned() } else { format!("question {row}") };
            rows.push_str(
                &json!({"query": query, "response": format!("answer {row} ").repeat(row % 50 + 1)}).to_string(),
            );
            rows.push('\n');
            a.push_str(&answer(&mut ra, row));
            a.push('\n');
            b.push_str(&answer(&mut rb, row));
            b.push('\n');
        }
        dir.write("rows.jsonl", rows);
        dir.write("a.answers.jsonl", a);
        dir.write("b.answers.jsonl", b);
        let f = Fixture { dir };
        for run in ["a", "b"] {
            let status = prompty()
                .arg("eval")
                .arg(coherence_prompt())
                .args(["--data", "rows.jsonl", "--answers"])
                .arg(format!("{run}.answers.jsonl"))
                .args(["--output", &format!("{run}.jsonl"), "--report", &format!("{run}.html")])
                .current_dir(f.dir.path())
                .stderr(Stdio::null())
                .status()
                .expect("prompty runs");
            assert!(matches!(status.code(), Some(0 | 1)), "prompty eval: {status}");
        }
        let status = prompty()
            .args(["report", "a.jsonl", "b.jsonl", "--data", "rows.jsonl", "-o", "compare.html"])
            .current_dir(f.dir.path())
            .status()
            .expect("prompty runs");
        assert!(status.success(), "prompty report");
        f
    }

    /// The result lines of run `name`.
    fn results(&self, name: &str) -> Vec<Value> {
        self.dir
            .read(&format!("{name}.jsonl"))
            .lines()
            .map(|l| serde_json::from_str(l).expect("a result line"))
            .collect()
    }
}

fn verdict(line: &Value) -> &str {
    line["verdict"].as_str().unwrap_or("error")
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "chromium is not on PATH (apt-get install -y chromium; .ci/run installs it)")]
fn the_report_in_a_real_browser() {
    let f = Fixture::new();
    let results = f.results("a");
    assert_eq!(results.len(), ROWS);
    let mut browser = Browser::start();
    let url = browser.open(&f.dir.path().join("a.html"));

    // The row count shown is the data's, and a page holds 100 table rows, not 10,000.
    let count =
        browser.eval("(() => { const c = document.getElementById('count').dataset; return [c.total, c.matching]; })()");
    assert_eq!(count, json!([ROWS.to_string(), ROWS.to_string()]));
    assert_eq!(browser.eval("document.querySelectorAll('#tbody tr').length"), json!(100));

    // Filtering by "fail": only failing rows, as many as the data has.
    let fails = results.iter().filter(|l| verdict(l) == "fail").count();
    assert!(fails > 0 && fails < ROWS);
    let shown = browser.eval(
        "(() => { const s = document.getElementById('verdict'); s.value = 'fail'; s.dispatchEvent(new Event('change'));
           const verdicts = [...document.querySelectorAll('#tbody tr td.verdicts')].map(td => td.textContent);
           return [document.getElementById('count').dataset.matching, verdicts]; })()",
    );
    assert_eq!(shown[0], json!(fails.to_string()), "rows matching \"fail\"");
    let verdicts: Vec<&str> = shown[1].as_array().expect("a list").iter().filter_map(Value::as_str).collect();
    assert_eq!(verdicts.len(), fails.min(100));
    assert!(verdicts.iter().all(|v| *v == "fail"), "{verdicts:?}");
    // The last page too.
    let last = browser.eval(
        "(() => { const n = document.getElementById('next'); let pages = 0; while (!n.disabled && pages < 1000) { n.click(); pages++; }
           return [...document.querySelectorAll('#tbody tr td.verdicts')].map(td => td.textContent); })()",
    );
    let last: Vec<&str> = last.as_array().expect("a list").iter().filter_map(Value::as_str).collect();
    assert_eq!(last.len(), if fails % 100 == 0 { 100 } else { fails % 100 }, "rows on the last page");
    assert!(last.iter().all(|v| *v == "fail"), "{last:?}");

    // One histogram bar per judged score value, with its count.
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for l in results.iter().filter(|l| matches!(verdict(l), "pass" | "fail")) {
        let score = l["score"].as_f64().expect("a judged score");
        *counts.entry(format!("{score}")).or_default() += 1;
    }
    let bars = browser.eval(
        "[...document.querySelectorAll('svg.histogram rect.bar')].map(r => [r.dataset.value, Number(r.dataset.count)])",
    );
    let bars: BTreeMap<String, u64> = bars
        .as_array()
        .expect("a list")
        .iter()
        .map(|b| (b[0].as_str().expect("a value").to_owned(), b[1].as_u64().expect("a count")))
        .collect();
    assert_eq!(bars, counts, "bars (value, count) against the data's judged scores");
    assert_eq!(browser.eval("document.querySelectorAll('svg.histogram rect.bar').length"), json!(counts.len()));

    // Sorting by score: ascending, then descending on a second click; rows without a score last.
    let sorted = browser.eval(
        "(() => { const v = document.getElementById('verdict'); v.value = ''; v.dispatchEvent(new Event('change'));
           const b = [...document.querySelectorAll('#thead button')].find(b => b.textContent.startsWith('coherence score'));
           const read = () => [...document.querySelectorAll('#tbody tr td.score')].map(td => td.textContent);
           b.click(); const up = read();
           [...document.querySelectorAll('#thead button')].find(b => b.textContent.startsWith('coherence score')).click();
           return [up, read()]; })()",
    );
    let scores: Vec<f64> = results.iter().filter_map(|l| l["score"].as_f64()).collect();
    let lowest = scores.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let column = |i: usize| -> Vec<f64> {
        sorted[i]
            .as_array()
            .expect("a list")
            .iter()
            .map(|v| v.as_str().and_then(|s| s.parse().ok()).expect("a score"))
            .collect()
    };
    let (up, down) = (column(0), column(1));
    assert!(up.windows(2).all(|w| w[0] <= w[1]) && up[0] == lowest, "ascending: {up:?}");
    assert!(down.windows(2).all(|w| w[0] >= w[1]) && down[0] == highest, "descending: {down:?}");

    // The hostile row: found by searching, shown as text, and nothing in it ran.
    let hostile = browser.eval(
        "new Promise(done => { const v = document.getElementById('verdict'); v.value = ''; v.dispatchEvent(new Event('change'));
           const s = document.getElementById('search'); s.value = 'window.__pwned';
           s.dispatchEvent(new Event('input')); setTimeout(() => { const body = document.getElementById('tbody');
           done([document.getElementById('count').dataset.matching, body.textContent,
                 body.querySelectorAll('script, img, b, textarea').length, typeof window.__pwned]); }, 400); })",
    );
    assert_eq!(hostile[0], json!("1"), "one row holds the hostile text");
    assert!(hostile[1].as_str().is_some_and(|t| t.contains(HOSTILE)), "the hostile text shows as text: {}", hostile[1]);
    assert_eq!(hostile[2], json!(0), "no element was made from the hostile text");
    assert_eq!(hostile[3], json!("undefined"), "the injected script did not run");

    // The comparison: rows whose verdict changed come first, the "changed" filter counts them.
    let a = f.results("a");
    let b = f.results("b");
    let changed = a.iter().zip(&b).filter(|(x, y)| verdict(x) != verdict(y)).count();
    assert!(changed > 0);
    browser.open(&f.dir.path().join("compare.html"));
    let compare = browser.eval(
        "(() => { const first = [...document.querySelectorAll('#tbody tr')].slice(0, 5).map(tr => tr.className);
           const s = document.getElementById('verdict'); s.value = 'changed'; s.dispatchEvent(new Event('change'));
           return [first, document.getElementById('count').dataset.matching, document.getElementById('count').dataset.total,
                   document.querySelectorAll('svg.scatter circle.pt').length, typeof window.__pwned]; })()",
    );
    assert_eq!(compare[0], json!(vec!["changed"; 5]), "changed-verdict rows first");
    assert_eq!(compare[1], json!(changed.to_string()));
    assert_eq!(compare[2], json!(ROWS.to_string()));
    let pairs: BTreeSet<(String, String)> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| matches!(verdict(x), "pass" | "fail") && matches!(verdict(y), "pass" | "fail"))
        .map(|(x, y)| (x["score"].to_string(), y["score"].to_string()))
        .collect();
    assert_eq!(compare[3], json!(pairs.len()), "one point per distinct (A, B) score pair");
    assert_eq!(compare[4], json!("undefined"));

    let problems = browser.problems();
    assert!(problems.is_empty(), "console errors, exceptions or CSP reports: {problems:#?}");
    let requests = browser.requests();
    let compare_url = url.replace("a.html", "compare.html");
    assert!(
        requests.iter().all(|r| *r == url || *r == compare_url),
        "the pages requested something besides themselves: {requests:?}"
    );
}
