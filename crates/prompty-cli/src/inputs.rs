//! `--inputs FILE|-`, `--set NAME=VALUE` and `--set-json NAME=JSON`.

use std::io::Read;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::Failure;

/// Where a command's input values come from. Later sources override earlier ones:
/// `--inputs`, then `--set`/`--set-json` in order.
#[derive(clap::Args, Clone, Default)]
pub(crate) struct InputArgs {
    /// A JSON object of input values (`-` reads standard input).
    #[arg(long, value_name = "FILE|-")]
    inputs: Option<PathBuf>,
    /// Set an input to a string value.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Set an input to a JSON value.
    #[arg(long = "set-json", value_name = "NAME=JSON")]
    set_json: Vec<String>,
}

impl InputArgs {
    /// The input values, merged.
    pub(crate) fn collect(&self) -> Result<Map<String, Value>, Failure> {
        let mut map = match &self.inputs {
            Some(path) => read_object(path)?,
            None => Map::new(),
        };
        for s in &self.set {
            let (name, value) = split_assignment(s, "--set")?;
            map.insert(name.to_owned(), Value::String(value.to_owned()));
        }
        for s in &self.set_json {
            let (name, value) = split_assignment(s, "--set-json")?;
            let parsed: Value = serde_json::from_str(value).map_err(|e| {
                Failure(format!(
                    "--set-json {name}: the value is not JSON ({e}); quote strings, e.g. --set-json {name}='\"text\"'"
                ))
            })?;
            map.insert(name.to_owned(), parsed);
        }
        Ok(map)
    }
}

fn split_assignment<'a>(s: &'a str, flag: &str) -> Result<(&'a str, &'a str), Failure> {
    match s.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim(), value)),
        _ => Err(Failure(format!("{flag} {s:?}: expected NAME=VALUE"))),
    }
}

/// Reads a JSON object from a file or standard input.
pub(crate) fn read_object(path: &PathBuf) -> Result<Map<String, Value>, Failure> {
    let (name, text) = read_text(path)?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(Failure(format!("{name}: inputs must be a JSON object, found {}", json_type(&other)))),
        Err(e) => Err(Failure(format!("{name}:{}:{}: not valid JSON: {}", e.line(), e.column(), json_message(&e)))),
    }
}

/// Reads a whole text file, or standard input for `-`.
pub(crate) fn read_text(path: &PathBuf) -> Result<(String, String), Failure> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| Failure(format!("standard input: cannot read: {e}")))?;
        return Ok(("<stdin>".to_owned(), text));
    }
    let name = path.display().to_string();
    if path.is_dir() {
        return Err(Failure(format!("{name}: is a directory, expected a file")));
    }
    let bytes = std::fs::read(path).map_err(|e| Failure(format!("{name}: cannot read: {}", describe_io(&e))))?;
    let text = String::from_utf8(bytes).map_err(|_| Failure(format!("{name}: not UTF-8 text")))?;
    Ok((name, text))
}

pub(crate) fn describe_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string(),
    }
}

/// serde_json's message without its trailing " at line L column C".
pub(crate) fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
