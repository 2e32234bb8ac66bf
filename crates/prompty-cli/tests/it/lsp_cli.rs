//! `prompty lsp` and `prompty fmt` through the binary: the server over real stdio (framed
//! JSON-RPC) reports exactly what `prompty check` reports; headless Neovim, a real client,
//! receives diagnostics, hover text and completion items; `fmt` rewrites and checks files.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lsp_server::Message;
use prompty_test_support::{TempDir, wait_or_kill};
use serde_json::{Value, json};

/// How long a child process may take before the test kills it and fails.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// A file with loader and lint findings on lines with non-ASCII text before them, and a
/// `prompty.toml` that turns one rule off.
const BROKEN: &str = "---\nname: broken\ndescription: Ünïcödé 😀 everywhere\ninputs:\n  question:\n    kind: string\n    default: Où est Paris ?\n  unused: {kind: strng}\nmodel:\n  options:\n    max_tokens: 5\n---\nsytem:\nRéponds brièvement 😀 {{ topic }} — {{ question }}\nuser :  \n{{ question }}\n";

fn file_uri(path: &Path) -> String {
    let canonical = std::fs::canonicalize(path).expect("canonical path");
    format!("file://{}", canonical.display()).replace(' ', "%20")
}

/// The LSP position of a 1-based (line, character column) of `text`.
fn utf16_position(text: &str, line: u64, column: u64) -> Value {
    let index = prompty_syntax_line_start(text, line as usize);
    let line_text = text[index..].split('\n').next().unwrap_or("");
    let prefix: String = line_text.chars().take(column as usize - 1).collect();
    json!({"line": line - 1, "character": prefix.encode_utf16().count()})
}

fn prompty_syntax_line_start(text: &str, line: usize) -> usize {
    text.split_inclusive('\n').take(line - 1).map(str::len).sum()
}

struct Server {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    messages: std::sync::mpsc::Receiver<Message>,
}

impl Server {
    fn start(dir: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_prompty"))
            .args(["lsp", "--stdio"])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("prompty lsp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, messages) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Ok(Some(msg)) = Message::read(&mut reader) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        Self { child, stdin, messages }
    }

    fn send(&mut self, value: Value) {
        let msg: Message = serde_json::from_value(value).expect("a JSON-RPC message");
        msg.write(&mut self.stdin).expect("the server reads");
        self.stdin.flush().expect("flush");
    }

    fn next(&self, want: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + HANG_GUARD;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = self.messages.recv_timeout(left).expect("the server answers in time");
            let value = serde_json::to_value(msg).expect("serializable");
            if want(&value) {
                return value;
            }
        }
    }

    fn wait(mut self) -> Option<i32> {
        wait_or_kill(&mut self.child, HANG_GUARD, "prompty lsp after `exit`").code()
    }
}

#[test]
fn lsp_over_stdio_reports_what_check_reports() {
    let tmp = TempDir::new("stdio");
    tmp.write("prompty.toml", "[lint]\nignore = [\"PL019\"]\n");
    let file = tmp.write("prompts/broken.prompty", BROKEN);

    // What `prompty check` says, with the same configuration.
    let check = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(["check", "--format", "json", "prompts/broken.prompty"])
        .current_dir(tmp.path())
        .output()
        .expect("check runs");
    let expected: Vec<(String, Value, Value)> = String::from_utf8_lossy(&check.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .map(|d| {
            let n = |k: &str| d.get(k).and_then(Value::as_u64).unwrap_or(0);
            let code = d.get("code").and_then(Value::as_str).unwrap_or_default().to_owned();
            (
                code,
                utf16_position(BROKEN, n("line"), n("column")),
                utf16_position(BROKEN, n("end_line"), n("end_column")),
            )
        })
        .collect();
    assert!(expected.len() >= 4, "{expected:?}");
    assert!(!expected.iter().any(|(c, _, _)| c == "PL019"), "the configuration applies to check");

    let mut server = Server::start(tmp.path());
    let uri = file_uri(&file);
    let root = file_uri(tmp.path());
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "rootUri": root, "capabilities": {}}}));
    let init = server.next(|m| m.get("id") == Some(&json!(1)));
    assert_eq!(init.pointer("/result/serverInfo/name"), Some(&json!("prompty")), "{init}");
    server.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    server.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "prompty", "version": 1, "text": BROKEN}}}));
    let published = server.next(|m| m.get("method") == Some(&json!("textDocument/publishDiagnostics")));
    let got: Vec<(String, Value, Value)> = published
        .pointer("/params/diagnostics")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|d| {
            let code = d.get("code").and_then(Value::as_str).unwrap_or_default().to_owned();
            (
                code,
                d.pointer("/range/start").cloned().unwrap_or_default(),
                d.pointer("/range/end").cloned().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(got, expected);

    server.send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    server.next(|m| m.get("id") == Some(&json!(2)));
    server.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.wait(), Some(0));
}

fn prompt_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e} (the conformance data must sit beside the project)", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            prompt_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "prompty") {
            out.push(p);
        }
    }
}

/// (code, start, end) per diagnostic, positions as LSP ranges.
type Found = Vec<(String, Value, Value)>;

#[test]
fn lsp_matches_check_on_every_prompt_we_have() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    prompt_files(&root.join("prompts"), &mut files);
    prompt_files(&root.join("../shared/conformance"), &mut files);
    prompt_files(&root.join("crates/prompty-lint/tests/fixtures"), &mut files);
    assert!(files.len() > 50, "{} files", files.len());
    let check = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(["check", "--format", "json"])
        .args(&files)
        .output()
        .expect("check runs");
    let mut expected: std::collections::BTreeMap<String, Found> = std::collections::BTreeMap::new();
    for line in String::from_utf8_lossy(&check.stdout).lines() {
        let d: Value = serde_json::from_str(line).expect("JSON line");
        let file = d.get("file").and_then(Value::as_str).unwrap_or_default().to_owned();
        let text = std::fs::read_to_string(&file).expect("UTF-8 prompt");
        let n = |k: &str| d.get(k).and_then(Value::as_u64).unwrap_or(0);
        let code = d.get("code").and_then(Value::as_str).unwrap_or_default().to_owned();
        let found = (
            code,
            utf16_position(&text, n("line"), n("column")),
            utf16_position(&text, n("end_line"), n("end_column")),
        );
        expected.entry(file).or_default().push(found);
    }
    assert!(expected.len() > 10, "findings in {} files", expected.len());

    let mut server = Server::start(&root);
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}));
    server.next(|m| m.get("id") == Some(&json!(1)));
    server.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let mut compared = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("UTF-8 prompt");
        let uri = file_uri(file);
        server.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "prompty", "version": 1, "text": text}}}));
        let published = server.next(|m| {
            m.get("method") == Some(&json!("textDocument/publishDiagnostics"))
                && m.pointer("/params/uri") == Some(&json!(uri))
        });
        let got: Found = published
            .pointer("/params/diagnostics")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|d| {
                let code = d.get("code").and_then(Value::as_str).unwrap_or_default().to_owned();
                (
                    code,
                    d.pointer("/range/start").cloned().unwrap_or_default(),
                    d.pointer("/range/end").cloned().unwrap_or_default(),
                )
            })
            .collect();
        let want = expected.get(&file.display().to_string()).cloned().unwrap_or_default();
        assert_eq!(got, want, "{}", file.display());
        compared += got.len();
        server.send(
            json!({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}}),
        );
    }
    // (Fewer than the files' v1 constructs: `P030` is off for promptflow files by default.)
    assert!(compared > 40, "{compared} diagnostics compared");
    server.send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    server.next(|m| m.get("id") == Some(&json!(2)));
    server.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.wait(), Some(0));
}

fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| p.is_file())
}

/// The Lua block of the Neovim section of docs/editors-and-ci.md, as written.
fn documented_neovim_setup() -> String {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/editors-and-ci.md");
    let doc = std::fs::read_to_string(&doc).expect("docs/editors-and-ci.md");
    let section = doc.split("\n### Neovim\n").nth(1).expect("a Neovim section");
    let block = section.split("```lua\n").nth(1).expect("a Lua block in the Neovim section");
    block.split("\n```").next().expect("the block ends").to_owned() + "\n"
}

#[test]
#[cfg_attr(not(has_nvim), ignore = "nvim is not on PATH (apt-get install -y neovim; .ci/run installs it)")]
fn neovim_receives_diagnostics_hover_completion_and_symbols() {
    let nvim = which("nvim").expect("nvim on PATH (CI=true runs this test whether or not it is there)");
    let tmp = TempDir::new("nvim");
    let text = "---\nname: nvim\ninputs:\n  question:\n    kind: string\n    description: What the user asks.\n---\nsytem:\nÀ bientôt 😀 {{ topic }}\nuser:\n{{ question }}\n";
    let file = tmp.write("a.prompty", text);
    let init = tmp.write("init.lua", documented_neovim_setup());
    let out = tmp.path().join("out.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvim/lsp.lua");
    // The set-up runs `prompty` from PATH: this build's binary first.
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_prompty")).parent().expect("the binary's folder").to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("PATH");
    let mut child = Command::new(nvim)
        .args(["--headless", "-n", "-i", "NONE", "-u"])
        .arg(&init)
        .arg("-c")
        .arg(format!("luafile {}", script.display()))
        .env("PATH", path)
        // No user configuration or plugins from the machine.
        .env("XDG_CONFIG_HOME", tmp.path().join("config"))
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .env("XDG_STATE_HOME", tmp.path().join("state"))
        .env("PROMPTY_FILE", &file)
        .env("PROMPTY_OUT", &out)
        // On `question` in `{{ question }}` (line 10, 0-based), and just after its `{{ `.
        .env("HOVER_LINE", "10")
        .env("HOVER_CHAR", "4")
        .env("COMPLETE_LINE", "10")
        .env("COMPLETE_CHAR", "3")
        .current_dir(tmp.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nvim starts");
    let status = wait_or_kill(&mut child, HANG_GUARD, "nvim");
    let report = std::fs::read_to_string(&out).unwrap_or_else(|_| panic!("nvim wrote no report (exit {status})"));
    let report: Value = serde_json::from_str(&report).expect("JSON report");
    assert_eq!(report.get("ok"), Some(&json!(true)), "{report}");
    assert!(status.success(), "{status} {report}");

    // Neovim converts the server's UTF-16 columns to byte columns: `topic` after `À bientôt 😀 {{ `.
    let line8 = text.lines().nth(8).unwrap_or_default();
    let topic_byte = line8.find("topic").unwrap_or_default();
    let diagnostics = report.get("diagnostics").and_then(Value::as_array).cloned().unwrap_or_default();
    let summary: Vec<(u64, u64, String)> = diagnostics
        .iter()
        .map(|d| {
            let n = |k: &str| d.get(k).and_then(Value::as_u64).unwrap_or(u64::MAX);
            (n("lnum"), n("col"), d.get("code").and_then(Value::as_str).unwrap_or_default().to_owned())
        })
        .collect();
    assert_eq!(summary, [(7, 0, "PL007".to_owned()), (8, topic_byte as u64, "PL001".to_owned())], "{report}");
    assert!(diagnostics.iter().all(|d| d.get("source") == Some(&json!("prompty"))), "{report}");

    let hover = report.get("hover").and_then(Value::as_str).unwrap_or_default();
    assert!(hover.starts_with("**`question`**: input, `string`") && hover.contains("What the user asks."), "{hover}");
    let completion = report.get("completion").cloned().unwrap_or_default();
    assert_eq!(completion, json!(["question"]), "{report}");
    // The outline: the front matter with its keys, then the one message (`sytem:` is no role).
    assert_eq!(
        report.get("symbols"),
        Some(&json!([
            {"name": "front matter", "line": 1, "children": ["name", "inputs"]},
            {"name": "user", "line": 9, "children": []}
        ])),
        "{report}"
    );
    assert_eq!(report.get("stopped"), Some(&json!(true)), "the server exits when the client stops it");
}

#[test]
fn fmt_rewrites_and_checks() {
    let tmp = TempDir::new("fmt");
    let messy = "---\nmodel: gpt-4o\nname: t\n---\nuser :\nhi\n";
    let a = tmp.write("p/a.prompty", messy);
    let clean = tmp.write("p/b.prompty", "---\nname: t\n---\nuser:\nhi\n");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_prompty")).args(args).current_dir(tmp.path()).output().expect("fmt runs")
    };
    let out = run(&["fmt", "--check", "p"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "would reformat: p/a.prompty\n1 file would be reformatted, 1 file left unchanged\n"
    );
    assert_eq!(std::fs::read_to_string(&a).ok().as_deref(), Some(messy), "--check changes nothing");
    let out = run(&["fmt", "p"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "reformatted: p/a.prompty\n1 file reformatted, 1 file left unchanged\n"
    );
    assert_eq!(std::fs::read_to_string(&a).ok().as_deref(), Some("---\nname: t\nmodel: gpt-4o\n---\nuser:\nhi\n"));
    assert_eq!(run(&["fmt", "--check", "p"]).status.code(), Some(0));
    assert!(clean.exists());
    // A file that does not load is left as written, with the reason.
    tmp.write("q/bad.prompty", "---\nname: [\n---\nuser:\n");
    let out = run(&["fmt", "q"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("note: q/bad.prompty: the file does not load as a prompt"));
    let out = run(&["fmt", "missing"]);
    assert_eq!(out.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn fmt_never_writes_through_a_link_out_of_the_folder() {
    let tmp = TempDir::new("fmt-link");
    let outside = "---\nmodel: gpt-4o\nname: t\n---\nuser :\nhi\n";
    let target = tmp.write("outside/notes.txt", outside);
    std::fs::create_dir_all(tmp.path().join("p")).expect("folder");
    std::os::unix::fs::symlink(&target, tmp.path().join("p/link.prompty")).expect("symlink");
    let out = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(["fmt", "p"])
        .current_dir(tmp.path())
        .output()
        .expect("fmt runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: p/link.prompty: is a symbolic link; fmt never writes through links (run it on the file the link points to)\n0 files reformatted, 0 files left unchanged, 1 file failed\n"
    );
    assert_eq!(std::fs::read_to_string(&target).ok().as_deref(), Some(outside), "the file outside is untouched");
    assert!(std::fs::symlink_metadata(tmp.path().join("p/link.prompty")).is_ok_and(|m| m.file_type().is_symlink()));
}

#[test]
fn fmt_keeps_a_role_line_whose_respelling_changes_a_message() {
    let tmp = TempDir::new("fmt-glued");
    // `{{- "" -}}` removes the line breaks around it, so `  user :` is text of the system
    // message; `user:` there would change what the prompt sends.
    let glued = "---\nname: t\ninputs:\n  q: {kind: string}\n---\nsystem :\n{{q}}\n{{- \"\" -}}\n  user :\nHi\n";
    let a = tmp.write("a.prompty", glued);
    tmp.write("a.cases.yaml", "one:\n  q: Be brief.\n");
    let out = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(["fmt", "a.prompty"])
        .current_dir(tmp.path())
        .output()
        .expect("fmt runs");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "note: a.prompty: line 9 `  user :` was kept as written: respelling it would change the rendered messages\nreformatted: a.prompty\n1 file reformatted, 0 files left unchanged\n"
    );
    let kept = "---\nname: t\ninputs:\n  q: {kind: string}\n---\nsystem:\n{{q}}\n{{- \"\" -}}\n  user :\nHi\n";
    assert_eq!(std::fs::read_to_string(&a).ok().as_deref(), Some(kept));
}

#[test]
fn lsp_explains_a_client_that_goes_away_or_sends_garbage() {
    for (input, want) in [
        ("", "error: prompty lsp: the client closed the connection before `initialize`\n"),
        (
            "Content-Length: 5\r\n\r\nhello",
            "prompty lsp: answered a message that is not JSON: the message is not valid JSON: expected value at line 1 column 1\nerror: prompty lsp: the client closed the connection before `initialize`\n",
        ),
    ] {
        let (code, answers, stderr) = lsp_session(input.as_bytes());
        assert_eq!(code, Some(1));
        assert_eq!(stderr, want);
        let parse_errors = usize::from(!input.is_empty());
        assert_eq!(answers.len(), parse_errors, "{answers:?}");
    }
}

/// Runs `prompty lsp` on `input` (then end of input): exit code, answers, standard error.
fn lsp_session(input: &[u8]) -> (Option<i32>, Vec<Value>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prompty lsp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("exits");
    writer.join().expect("the writer thread ends");
    let mut answers = Vec::new();
    let mut rest: &[u8] = &out.stdout;
    while !rest.is_empty() {
        let text = String::from_utf8_lossy(rest);
        let (header, _) = text.split_once("\r\n\r\n").expect("a header block");
        let length: usize = header.trim_start_matches("Content-Length: ").parse().expect("a length");
        let start = header.len() + 4;
        answers.push(serde_json::from_slice(&rest[start..start + length]).expect("JSON"));
        rest = &rest[start + length..];
    }
    (out.status.code(), answers, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn frame(value: &Value) -> Vec<u8> {
    let body = value.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

#[test]
fn lsp_binary_answers_hostile_frames_and_keeps_serving() {
    // What aborted the server (a 1 TB allocation) or ended its session before.
    let mut input = b"Content-Length: twelve\r\n\r\n{}".to_vec();
    input.extend(b"Content-Length: 1000000000000\r\n\r\n{}");
    input.extend(frame(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})));
    input.extend(frame(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}})));
    let surrogate = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.prompty","version":2},"contentChanges":[{"text":"\ud800 "}]}}"#;
    input.extend(format!("Content-Length: {}\r\n\r\n{surrogate}", surrogate.len()).into_bytes());
    input.extend(frame(&json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"capabilities": {}}})));
    input.extend(frame(&json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})));
    input.extend(frame(&json!({"jsonrpc": "2.0", "method": "exit"})));
    let (code, answers, stderr) = lsp_session(&input);
    assert_eq!(code, Some(0), "{stderr}");
    // (Diagnostics may be published, and are not counted here.)
    let summary: Vec<(Value, Value)> = answers
        .iter()
        .filter(|a| a.get("method").is_none())
        .map(|a| (a.get("id").cloned().unwrap_or_default(), a.pointer("/error/code").cloned().unwrap_or_default()))
        .collect();
    // The transport's own answers (id null) may come before or after the server's.
    let mut nulls: Vec<&Value> = summary.iter().filter(|(id, _)| id.is_null()).map(|(_, c)| c).collect();
    nulls.sort_by_key(|c| c.as_i64());
    assert_eq!(nulls, [&json!(-32700), &json!(-32600)], "{answers:?}");
    let served: Vec<&(Value, Value)> = summary.iter().filter(|(id, _)| !id.is_null()).collect();
    assert_eq!(served, [&(json!(1), Value::Null), &(json!(2), json!(-32600)), &(json!(3), Value::Null)], "{answers:?}");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "prompty lsp: skipped `Content-Length: twelve` is not a length, to the next `Content-Length` header",
            "prompty lsp: answered a message that is too large: the message is 1000000000000 bytes long; the server reads messages of up to 67108864 bytes (64 MiB)",
            "prompty lsp: answered a message that is not JSON: the message is not valid JSON: unexpected end of hex escape at line 1 column 150",
        ],
        "{stderr}"
    );
}
