//! `prompty check` as a linter: output formats (SARIF validated against the official 2.1.0
//! schema, GitHub workflow commands), `--fix`, `prompty.toml`, inline suppressions, and the
//! shipped prompts checked without findings, and the conformance corpora with exactly the
//! findings recorded for them.

use std::path::{Path, PathBuf};
use std::process::Command;

use prompty_test_support::TempDir;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn prompty(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("the prompty binary runs");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lint_fixtures() -> PathBuf {
    workspace().join("crates/prompty-lint/tests/fixtures")
}

/// The official SARIF 2.1.0 schema as a validator.
fn sarif_validator() -> jsonschema::Validator {
    let schema_text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json"))
            .expect("vendored schema");
    // The official schema's `run.language` pattern has a stray `]`, a literal in ECMAScript's
    // lenient (Annex B) syntax that the crate's strict regex check rejects: escape it, which
    // keeps its meaning. The vendored file itself stays as published.
    let schema_text = schema_text
        .replace(r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#, r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#);
    let schema: serde_json::Value = serde_json::from_str(&schema_text).expect("schema is JSON");
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles")
}

#[test]
fn sarif_output_carries_files_that_could_not_be_read() {
    let tmp = TempDir::new("sarif-io");
    tmp.write("ok.prompty", "---\nname: ok\nmodel: m\n---\nuser:\nhi\n");
    let ok = Command::new("mkfifo").arg(tmp.path().join("pipe.prompty")).status().expect("mkfifo").success();
    assert!(ok, "mkfifo");
    let run = prompty(tmp.path(), &["check", "--format", "sarif", "."]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(run.stderr, "error: ./pipe.prompty: not a regular file\n");
    let log: serde_json::Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    let errors: Vec<String> = sarif_validator().iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "SARIF does not validate:\n{}", errors.join("\n"));
    assert_eq!(
        log["runs"][0]["invocations"],
        serde_json::json!([{
            "executionSuccessful": false,
            "toolExecutionNotifications": [{"level": "error", "message": {"text": "./pipe.prompty: not a regular file"}}],
        }])
    );
    // A clean run has no invocation record.
    let run = prompty(tmp.path(), &["check", "--format", "sarif", "ok.prompty"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let log: serde_json::Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    assert!(log["runs"][0].get("invocations").is_none());
}

#[test]
fn sarif_output_validates_against_the_sarif_2_1_0_schema() {
    let validator = sarif_validator();
    let run = prompty(&lint_fixtures(), &["check", "--format", "sarif", "."]);
    assert_eq!(run.code, Some(1), "error-level fixtures exist: {}", run.stderr);
    let log: serde_json::Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "SARIF does not validate:\n{}", errors.join("\n"));
    // The validator does reject a log that breaks the schema.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken));

    let driver = &log["runs"][0]["tool"]["driver"];
    let rules = driver["rules"].as_array().expect("rules");
    assert!(rules.iter().any(|r| r["id"] == "PL001" && r["name"] == "undeclared-variable"));
    // Each rule's default level is its code's: loader codes are not all warnings.
    let level = |id: &str| rules.iter().find(|r| r["id"] == id).map(|r| r["defaultConfiguration"]["level"].clone());
    assert_eq!(level("P011"), Some("error".into()));
    assert_eq!(level("P010"), Some("warning".into()));
    assert_eq!(level("PL025"), Some("error".into()));
    assert_eq!(level("PL002"), Some("warning".into()));
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert!(results.len() > 25, "one result or more per fixture that fires");
    for r in results {
        let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules.get(index).map(|rule| &rule["id"]), Some(&r["ruleId"]));
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().is_some_and(|l| l >= 1));
    }
    let fixed = results.iter().find(|r| r["ruleId"] == "PL007").expect("a misspelt role");
    assert_eq!(fixed["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"], "System");
}

#[test]
fn github_annotations() {
    let run = prompty(&lint_fixtures(), &["check", "--format", "github", "PL008_fires.prompty", "PL012_fires.prompty"]);
    assert_eq!(run.code, Some(1));
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some(
            "::error file=PL008_fires.prompty,line=6,col=1,endLine=6,endColumn=24,title=PL008::`system:` has text after the colon, so this line starts no message%0Ahelp: put `system:` alone on its line and the text on the next"
        )
    );
    assert!(lines.iter().any(|l| l.starts_with("::error file=PL012_fires.prompty,line=10,col=10,")), "{}", run.stdout);
}

#[test]
fn fix_rewrites_only_the_fixed_bytes() {
    let tmp = TempDir::new("fix");
    let original = "---\r\nname: t\r\ninputs:\r\n  q: {kind: string}\r\ntemplate: {format: mustache, parser: prompty}\r\n---\r\nsytem:  \r\nBe brief.\r\nuser: {{q}}\r\n";
    let file = tmp.write("a.prompty", original);
    // Every fix here changes the messages (a new system message, a new user message,
    // unescaped values): none is applied without --unsafe-fixes.
    let run = prompty(tmp.path(), &["check", "--fix", "a.prompty"]);
    assert_eq!(run.code, Some(1), "the findings remain: {}{}", run.stdout, run.stderr);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), original);
    assert!(run.stderr.contains("fixed 0 problems"), "{}", run.stderr);
    assert!(
        run.stderr.contains("note: 3 unsafe fixes are available with --fix --unsafe-fixes (they change what the prompt sends; review them)"),
        "{}",
        run.stderr
    );
    let run = prompty(tmp.path(), &["check", "--fix", "--unsafe-fixes", "a.prompty"]);
    assert_eq!(run.code, Some(1), "the trailing whitespace remains: {}{}", run.stdout, run.stderr);
    let fixed = std::fs::read_to_string(&file).expect("read");
    assert_eq!(
        fixed,
        "---\r\nname: t\r\ninputs:\r\n  q: {kind: string}\r\ntemplate: {format: mustache, parser: prompty}\r\n---\r\nsystem:  \r\nBe brief.\r\nuser:\r\n{{{q}}}\r\n"
    );
    assert!(run.stderr.contains("fixed: a.prompty:7:1: replace `sytem` with `system`"), "{}", run.stderr);
    assert!(run.stderr.contains("fixed 3 problems"), "{}", run.stderr);
    assert!(!run.stderr.contains("--unsafe-fixes"), "{}", run.stderr);
    // The trailing whitespace is only visible once the line is a role line; a second run
    // fixes it, and removing it is safe.
    let run = prompty(tmp.path(), &["check", "--fix", "a.prompty"]);
    assert!(run.stderr.contains("fixed 1 problem"), "{}", run.stderr);
    let run = prompty(tmp.path(), &["check", "--fix", "a.prompty"]);
    assert!(run.stderr.contains("0 errors, 0 warnings, fixed 0 problems"), "{}", run.stderr);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

#[test]
fn check_says_which_fixes_need_unsafe_fixes() {
    let tmp = TempDir::new("unsafe-fixes");
    let original = "---\nname: t\n---\nSytem:\nBe brief.\nuser:  \nhi\n";
    let file = tmp.write("a.prompty", original);
    let run = prompty(tmp.path(), &["check", "a.prompty"]);
    assert!(
        run.stdout.contains("--fix --unsafe-fixes can replace `Sytem` with `System` (this changes what the prompt"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("--fix can remove the trailing whitespace"), "{}", run.stdout);
    assert!(run.stderr.contains("note: 1 unsafe fix is available with --fix --unsafe-fixes"), "{}", run.stderr);
    let run = prompty(tmp.path(), &["check", "--format", "concise", "a.prompty"]);
    assert!(run.stdout.contains("[PL007] (fixable with --fix --unsafe-fixes)"), "{}", run.stdout);
    assert!(run.stdout.contains("[PL019] (fixable with --fix)"), "{}", run.stdout);
    // --fix applies the safe fix only: `Sytem:` stays text of no message of its own, an
    // error that fails the check.
    let run = prompty(tmp.path(), &["check", "--fix", "a.prompty"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "---\nname: t\n---\nSytem:\nBe brief.\nuser:\nhi\n");
    assert!(run.stderr.contains("fixed 1 problem"), "{}", run.stderr);
    assert!(run.stderr.contains("note: 1 unsafe fix is available with --fix --unsafe-fixes"), "{}", run.stderr);
    let run = prompty(tmp.path(), &["check", "--fix", "--unsafe-fixes", "a.prompty"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "---\nname: t\n---\nSystem:\nBe brief.\nuser:\nhi\n");
    // --unsafe-fixes means nothing without --fix.
    let run = prompty(tmp.path(), &["check", "--unsafe-fixes", "a.prompty"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn fix_never_writes_through_a_link_out_of_the_folder() {
    let tmp = TempDir::new("fix-link");
    let outside = "---\nname: t\n---\nuser:  \nhi\n";
    let target = tmp.write("outside/notes.txt", outside);
    tmp.write("p/ok.prompty", "---\nname: t\n---\nuser:\nhi\n");
    std::os::unix::fs::symlink(&target, tmp.path().join("p/link.prompty")).expect("symlink");
    let run = prompty(tmp.path(), &["check", "--fix", "p"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("error: p/link.prompty: is a symbolic link; the fixes were not written"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&target).expect("read"), outside, "the file outside is untouched");
    assert!(std::fs::symlink_metadata(tmp.path().join("p/link.prompty")).expect("link").file_type().is_symlink());
}

/// The configuration that applies is the one above a file's real place: a linked file and
/// a file in a linked folder take the settings of where they lead, and a plain file in the
/// same folder as a link keeps its folder's settings.
#[test]
fn config_is_found_from_where_links_lead() {
    let tmp = TempDir::new("config-links");
    let body = "---\nname: t\ninputs:\n  q: {kind: string}\n---\nuser:\n{{q}} {{extra}}\n";
    tmp.write("quiet/prompty.toml", "[lint]\nignore = [\"undeclared-variable\"]\n");
    tmp.write("quiet/real.prompty", body);
    tmp.write("loud/plain.prompty", body);
    std::os::unix::fs::symlink(tmp.path().join("quiet/real.prompty"), tmp.path().join("loud/link.prompty"))
        .expect("symlink");
    std::os::unix::fs::symlink(tmp.path().join("quiet"), tmp.path().join("alias")).expect("symlink");
    let run = prompty(tmp.path(), &["check", "--format", "json", "loud", "alias/real.prompty"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let flagged: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("PL001"))
        .filter_map(|l| l.split("\"file\":\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(flagged, ["loud/plain.prompty"], "{}", run.stdout);
}

#[test]
fn config_selects_per_path_and_reports_bad_config() {
    let tmp = TempDir::new("config");
    let body = "---\nname: t\ninputs:\n  q: {kind: string}\n---\nuser:\n{{q}} {{extra}}\n";
    tmp.write("prompts/a.prompty", body);
    tmp.write("prompts/legacy/b.prompty", body);
    tmp.write(
        "prompty.toml",
        "[lint]\nignore = [\"PL019\"]\n\n[[lint.per-path]]\nglob = \"prompts/legacy/**\"\nignore = [\"undeclared-variable\"]\n",
    );
    let run = prompty(tmp.path(), &["check", "--format", "json", "prompts"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.contains("\"file\":\"prompts/a.prompty\"") && run.stdout.contains("PL001"));
    assert!(!run.stdout.contains("prompts/legacy/b.prompty"), "{}", run.stdout);
    // The nearest file wins: one in the folder itself turns everything back on.
    tmp.write("prompts/legacy/prompty.toml", "[lint]\nselect = [\"ALL\"]\n");
    let run = prompty(tmp.path(), &["check", "--format", "json", "prompts"]);
    assert!(run.stdout.contains("prompts/legacy/b.prompty"), "{}", run.stdout);

    tmp.write("prompty.toml", "[lint]\nignore = [\"PL0001\"]\n");
    let run = prompty(tmp.path(), &["check", "prompts/a.prompty"]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("prompty.toml:2:11: `PL0001` matches no code\n  help: did you mean `PL001`?"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("[PT003]"), "{}", run.stderr);
    // Machines get the error as a diagnostic with its code and its place in prompty.toml.
    let run = prompty(tmp.path(), &["check", "--format", "json", "prompts/a.prompty"]);
    assert_eq!(run.code, Some(2));
    let d: serde_json::Value =
        serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    assert_eq!(
        (&d["file"], &d["line"], &d["column"], &d["end_column"], &d["code"]),
        (&"prompty.toml".into(), &2.into(), &11.into(), &19.into(), &"PT003".into()),
        "{d}"
    );
    let run = prompty(tmp.path(), &["check", "--format", "github", "prompts/a.prompty"]);
    assert!(
        run.stdout.starts_with("::error file=prompty.toml,line=2,col=11,endLine=2,endColumn=19,title=PT003::"),
        "{}",
        run.stdout
    );
}

#[test]
fn inline_suppressions() {
    let tmp = TempDir::new("suppress");
    tmp.write(
        "a.prompty",
        "---\nname: t # prompty: ignore[PL002]\ninputs:\n  q: {kind: string}\n  unused: {kind: string}\n---\nuser:\n{# prompty: ignore[PL001] #}\n{{extra}}\n{{other}}\n",
    );
    let run = prompty(tmp.path(), &["check", "--format", "json", "a.prompty"]);
    let codes: Vec<String> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json")["code"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(codes, ["PL001"], "only `other` is reported: {}", run.stdout);
    assert!(run.stdout.contains("`other`"));
}

#[test]
fn list_rules() {
    let run = prompty(&workspace(), &["check", "--list-rules", "--format", "json"]);
    assert_eq!(run.code, Some(0));
    let rules: Vec<serde_json::Value> = run.stdout.lines().map(|l| serde_json::from_str(l).expect("json")).collect();
    assert!(rules.iter().filter(|r| r["code"].as_str().is_some_and(|c| c.starts_with("PL"))).count() >= 20);
}

#[test]
fn shipped_prompts_have_no_findings() {
    let root = workspace();
    let run = prompty(&root, &["check", "--format", "json", "prompts"]);
    assert_eq!(run.stdout, "", "the bundled prompts have findings");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

/// The reference prompts (the spec's fixtures and azure-ai-evaluation's v1 prompts) are
/// checked as they are published: each finding is listed here by file and code, with why the
/// file has it, and nothing else is reported. The README's second command shows them.
#[test]
fn reference_prompts_have_exactly_the_recorded_findings() {
    let root = workspace();
    let expected: &[(&str, &str, &str, &str)] = &[
        // The spec's tool fixtures read `question` without declaring any input.
        ("prompty-spec/fixtures/tools_mcp.prompty", "PL001", "error", "`question`"),
        ("prompty-spec/fixtures/tools_openapi.prompty", "PL001", "error", "`question`"),
        // These evaluators declare `tool_definitions` for their callers but never render it.
        (
            "azure-eval/prompts/1.13.3__intent_resolution__intent_resolution.prompty",
            "PL002",
            "warning",
            "`tool_definitions`",
        ),
        (
            "azure-eval/prompts/1.13.3__task_completion__task_completion.prompty",
            "PL002",
            "warning",
            "`tool_definitions`",
        ),
    ];
    let corpora = ["../shared/conformance/prompty-spec/fixtures", "../shared/conformance/azure-eval/prompts"];
    for corpus in corpora {
        assert!(root.join(corpus).is_dir(), "{corpus} is missing: the conformance suites must sit beside the project");
    }
    let run = prompty(&root, &["check", "--format", "json", corpora[0], corpora[1]]);
    let found: Vec<(String, String, String, String)> = run
        .stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            let field = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            (field("file"), field("code"), field("severity"), field("message"))
        })
        .collect();
    assert_eq!(found.len(), expected.len(), "{}", run.stdout);
    for ((file, code, severity, message), (want_file, want_code, want_severity, about)) in found.iter().zip(expected) {
        assert!(file.ends_with(want_file), "{file} is not {want_file}");
        assert_eq!((code.as_str(), severity.as_str()), (*want_code, *want_severity), "{file}");
        assert!(message.contains(about), "{file}: {message}");
    }
    // Errors among them: the check fails, as it must.
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let shown = prompty(&root, &["check", "--exit-zero", "--format", "concise", corpora[0], corpora[1]]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert_eq!(shown.stdout.lines().count(), expected.len(), "{}", shown.stdout);
}

/// The codes of `check --format json` output, in order.
fn codes_of(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json")["code"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn findings_do_not_depend_on_the_environment() {
    let tmp = TempDir::new("env-independent");
    tmp.write(
        "a.prompty",
        "---\nname: t\nmodel:\n  id: gpt-4o\n  connection:\n    kind: key\n    endpoint: ${env:PROMPTY_T_ENDPOINT}\n    apiKey: ${env:PROMPTY_T_AK}\n  options:\n    maxOutputTokens: 100\ninputs:\n  kind_from_env:\n    kind: ${env:PROMPTY_T_KIND:string}\n  bad: '${env:PROMPTY T}'\n---\nuser:\n{{kind_from_env}} {{bad}}\n",
    );
    let args = ["check", "--format", "json", "a.prompty"];
    let unset = prompty(tmp.path(), &args);
    let set = {
        let out = Command::new(env!("CARGO_BIN_EXE_prompty"))
            .args(args)
            .current_dir(tmp.path())
            .env("NO_COLOR", "1")
            .env("PROMPTY_T_ENDPOINT", "https://example.invalid")
            .env("PROMPTY_T_AK", "sk-live-should-never-show-1234")
            .env("PROMPTY_T_KIND", "strng")
            .output()
            .expect("runs");
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    };
    assert_eq!(set.stdout, unset.stdout, "same findings with and without the variables");
    assert_eq!((set.code, set.stderr), (unset.code, unset.stderr));
    // The endpoint gets the default advice; the key (a credential) does not; the malformed
    // name is reported; nothing read from the environment is checked or shown.
    assert_eq!(codes_of(&unset.stdout), ["PL013", "P026"], "{}", unset.stdout);
    assert!(!unset.stdout.contains("sk-live") && !unset.stdout.contains("strng"));
}

#[test]
fn v1_advice_only_when_selected_for_promptflow_files() {
    let tmp = TempDir::new("p030");
    tmp.write(
        "flow.prompty",
        "---\nname: t\nmodel:\n  api: chat\n  configuration:\n    type: azure_openai\n    azure_deployment: gpt-4o\ninputs:\n  q:\n    type: string\n---\nuser:\n{{q}}\n",
    );
    let codes = |args: &[&str]| {
        let mut all = vec!["check", "--format", "json"];
        all.extend(args);
        all.push("flow.prompty");
        codes_of(&prompty(tmp.path(), &all).stdout)
    };
    assert!(!codes(&[]).contains(&"P030".to_owned()), "off by default for a promptflow file");
    assert!(!codes(&["--select", "ALL"]).contains(&"P030".to_owned()), "ALL is the default, not a request");
    assert!(codes(&["--select", "P030"]).contains(&"P030".to_owned()), "on when selected by code");
    assert!(codes(&["--extend-select", "v1-construct"]).contains(&"P030".to_owned()), "or by name");
    tmp.write("prompty.toml", "[lint]\nselect = [\"ALL\", \"P030\"]\n");
    assert!(codes(&[]).contains(&"P030".to_owned()), "or in prompty.toml");
}

#[test]
fn input_cases_are_checked_beside_their_prompt() {
    let tmp = TempDir::new("cases");
    tmp.write("s.prompty", "---\nname: s\ninputs:\n  text: {kind: string, required: true}\n---\nuser:\n{{text}}\n");
    tmp.write("s.cases.yaml", "short:\n  txt: hello\n");
    let run = prompty(tmp.path(), &["check", "--format", "concise", "s.prompty"]);
    assert_eq!(run.code, Some(1), "a case without a required input is an error: {}", run.stdout);
    assert!(run.stdout.contains("s.cases.yaml:1:1: error: case `short` lacks the required input `text` [PL027]"));
    assert!(run.stdout.contains("s.cases.yaml:2:3: error: case `short` gives `txt`"), "{}", run.stdout);
    assert!(run.stdout.contains("did you mean") || run.stdout.contains("`txt`"));
    // A value of another kind than the input declares.
    tmp.write(
        "k.prompty",
        "---\nname: k\ninputs:\n  n: {kind: integer}\n  tags: {kind: array}\n  any: {kind: union}\n---\nuser:\n{{n}} {{tags}} {{any}}\n",
    );
    tmp.write("k.cases.yaml", "ok:\n  n: 3\n  tags: [a]\n  any: {x: 1}\nbad:\n  n: three\n  tags: a\n");
    let kinds = prompty(tmp.path(), &["check", "--format", "concise", "k.prompty"]);
    assert!(
        kinds
            .stdout
            .contains("k.cases.yaml:6:6: error: case `bad` gives `n` a string, but its kind is `integer` [PL027]"),
        "{}",
        kinds.stdout
    );
    assert!(kinds.stdout.contains("case `bad` gives `tags` a string, but its kind is `array`"), "{}", kinds.stdout);
    assert_eq!(kinds.stdout.matches("[PL027]").count(), 2, "the `ok` case and the union input pass: {}", kinds.stdout);
    // Ignored like any code; a folder with the name is not a cases file.
    let quiet = prompty(tmp.path(), &["check", "--ignore", "PL027", "s.prompty"]);
    assert_eq!(quiet.code, Some(0), "{}", quiet.stdout);
    std::fs::remove_file(tmp.path().join("s.cases.yaml")).expect("rm");
    std::fs::create_dir(tmp.path().join("s.cases.yaml")).expect("mkdir");
    assert_eq!(prompty(tmp.path(), &["check", "s.prompty"]).code, Some(0));
}

#[test]
fn standard_input_is_read_up_to_the_size_limit() {
    use std::io::Write;
    let tmp = TempDir::new("stdin-huge");
    let mut child = Command::new(env!("CARGO_BIN_EXE_prompty"))
        .args(["check", "--format", "concise", "-"])
        .current_dir(tmp.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    // 20 MiB, more than the loader accepts; the writer may see the pipe close early.
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..20 {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let out = child.wait_with_output().expect("runs");
    let _ = writer.join();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("[P007]"), "{stdout}");
    // `--fix` cannot rewrite standard input.
    let fix = prompty(tmp.path(), &["check", "--fix", "-"]);
    assert_eq!(fix.code, Some(2));
    assert!(fix.stderr.contains("--fix cannot rewrite standard input"), "{}", fix.stderr);
}

/// `prompty rule --all` prints every lint rule's documentation from the text compiled into
/// the binary, and that text is docs/rules.md's, one heading level up: one source for both.
#[test]
fn rule_docs_offline_are_the_rules_page() {
    let root = workspace();
    let page = std::fs::read_to_string(root.join("docs/rules.md")).expect("docs/rules.md");
    let run = prompty(&root, &["rule", "--all", "--format", "json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let rules: Vec<serde_json::Value> = run.stdout.lines().map(|l| serde_json::from_str(l).expect("json")).collect();
    assert_eq!(rules.len(), prompty_lint::rules().count());
    for rule in &rules {
        let code = rule["code"].as_str().expect("code");
        let docs = rule["docs"].as_str().expect("docs");
        assert!(docs.contains("## What it does") && docs.contains("Severity: ") && docs.contains("Fix: "), "{code}");
        let mut in_code = false;
        let shifted: String = docs
            .lines()
            .map(|l| {
                if l.starts_with("```") {
                    in_code = !in_code;
                }
                if !in_code && l.starts_with('#') { format!("#{l}\n") } else { format!("{l}\n") }
            })
            .collect();
        assert!(page.contains(&shifted), "{code}: docs/rules.md does not hold `prompty rule {code}`'s text");
        let text = prompty(&root, &["rule", code]);
        assert_eq!(text.stdout, docs, "{code}: text and JSON differ");
    }
    let all = prompty(&root, &["rule", "--all"]);
    assert_eq!(all.stdout.matches("\n## What it does\n").count(), rules.len());
}
