//! Renders prompts through the `prompty-toolkit` library, as an outside crate builds it, and
//! compares the messages with what `prompty render --format json` prints for the same file
//! and inputs. Any difference, or a prompt that one side renders and the other refuses, is a
//! failure.
//!
//! Usage: `parity PROMPTY_BINARY CONFORMANCE_DIR TEMPLATES_DIR`

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::Value;

/// One prompt with the inputs to render it with (`None`: its defaults).
struct Case {
    name: String,
    prompt: PathBuf,
    inputs: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [cli, conformance, templates] = args.as_slice() else {
        eprintln!("usage: parity PROMPTY_BINARY CONFORMANCE_DIR TEMPLATES_DIR");
        return ExitCode::from(2);
    };
    let cases = match azure_cases(conformance).and_then(|mut cases| {
        cases.extend(template_cases(templates)?);
        Ok(cases)
    }) {
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut failed = 0;
    for case in &cases {
        match compare(cli, case) {
            Ok(()) => println!("ok   {}", case.name),
            Err(e) => {
                failed += 1;
                println!("FAIL {}: {e}", case.name);
            }
        }
    }
    println!("{} of {} renderings equal to the CLI's", cases.len() - failed, cases.len());
    if failed == 0 && !cases.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Every input case of `azure-eval/inputs` with its prompt from `azure-eval/prompts`.
fn azure_cases(conformance: &Path) -> Result<Vec<Case>, String> {
    let root = conformance.join("azure-eval");
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(root.join("inputs")).map_err(|e| format!("{}: {e}", root.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let stem = path.file_stem().and_then(|s| s.to_str()).ok_or("bad file name")?.to_owned();
        let (prompt, _) = stem.rsplit_once("__").ok_or_else(|| format!("{stem}: no scenario in the name"))?;
        let prompt = root.join("prompts").join(format!("{prompt}.prompty"));
        cases.push(Case { name: format!("azure-eval/{stem}"), prompt, inputs: Some(path) });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    if cases.len() < 46 {
        return Err(format!("expected the 46 azure-eval input cases, found {}", cases.len()));
    }
    Ok(cases)
}

/// The templates that exercise what the minijinja fork changes, with their defaults.
fn template_cases(dir: &Path) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let prompt = entry.map_err(|e| e.to_string())?.path();
        if prompt.extension().is_some_and(|x| x == "prompty") {
            let name = format!("templates/{}", prompt.file_name().unwrap_or_default().to_string_lossy());
            cases.push(Case { name, prompt, inputs: None });
        }
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

fn compare(cli: &Path, case: &Case) -> Result<(), String> {
    let library = library_render(case);
    let command = cli_render(cli, case)?;
    match (library, command) {
        (Ok(a), Ok(b)) if a == b => Ok(()),
        (Ok(a), Ok(b)) => Err(first_difference(&a, &b)),
        (Err(_), Err(_)) => Ok(()),
        (Ok(_), Err(e)) => Err(format!("the CLI refused what the library rendered: {e}")),
        (Err(e), Ok(_)) => Err(format!("the library refused what the CLI rendered: {e}")),
    }
}

fn library_render(case: &Case) -> Result<Value, String> {
    let prompt = prompty_toolkit::load(&case.prompt).map_err(|e| e.to_string())?;
    let inputs = match &case.inputs {
        Some(path) => read_json(path)?,
        None => Value::Object(serde_json::Map::new()),
    };
    let messages = prompt.render(&inputs).map_err(|e| e.to_string())?;
    serde_json::to_value(&messages).map_err(|e| e.to_string())
}

fn cli_render(cli: &Path, case: &Case) -> Result<Result<Value, String>, String> {
    let mut command = Command::new(cli);
    command.arg("render").arg(&case.prompt).args(["--format", "json"]);
    if let Some(inputs) = &case.inputs {
        command.arg("--inputs").arg(inputs);
    }
    let out = command.output().map_err(|e| format!("{}: {e}", cli.display()))?;
    if !out.status.success() {
        return Ok(Err(String::from_utf8_lossy(&out.stderr).into_owned()));
    }
    serde_json::from_slice(&out.stdout).map(Ok).map_err(|e| format!("the CLI printed no JSON: {e}"))
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn first_difference(library: &Value, cli: &Value) -> String {
    let (a, b) = (library.to_string(), cli.to_string());
    let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    let lo = at.saturating_sub(60);
    format!(
        "first difference at byte {at}\n  library …{}\n      cli …{}",
        a.get(lo..(at + 60).min(a.len())).unwrap_or(""),
        b.get(lo..(at + 60).min(b.len())).unwrap_or("")
    )
}
