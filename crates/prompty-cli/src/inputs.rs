//! `--inputs FILE|-`, `--set NAME=VALUE` and `--set-json NAME=JSON`.

use std::io::Read;
use std::path::PathBuf;

use prompty_syntax::{Prompt, PropertyKind};
use serde_json::{Map, Value};

use crate::Failure;

/// Where a command's input values come from. Later sources override earlier ones:
/// `--inputs`, then `--set`/`--set-json` in order.
#[derive(clap::Args, Clone, Default)]
pub(crate) struct InputArgs {
    /// A JSON object of input values (`-` reads standard input).
    #[arg(long, value_name = "FILE|-")]
    inputs: Option<PathBuf>,
    /// Set an input; the value is read as the input's declared kind (`kind:`, or v1
    /// `type:`): text for a string, `true`/`false` for a boolean, a number for an integer
    /// or a float, JSON text for an array, an object or a thread.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Set an input to a JSON value.
    #[arg(long = "set-json", value_name = "NAME=JSON")]
    set_json: Vec<String>,
}

impl InputArgs {
    /// Whether `--inputs -` reads standard input.
    pub(crate) fn reads_stdin(&self) -> bool {
        self.inputs.as_ref().is_some_and(|p| p.as_os_str() == "-")
    }

    /// The input values, merged, each `--set` value read as the kind `prompt` declares for
    /// its input (a string when the prompt does not declare it).
    pub(crate) fn collect(&self, prompt: &Prompt) -> Result<Map<String, Value>, Failure> {
        let mut map = match &self.inputs {
            Some(path) => read_object(path)?,
            None => Map::new(),
        };
        for s in &self.set {
            let (name, value) = split_assignment(s, "--set")?;
            map.insert(name.to_owned(), typed(prompt, name, value)?);
        }
        for s in &self.set_json {
            let (name, value) = split_assignment(s, "--set-json")?;
            let parsed: Value = serde_json::from_str(value).map_err(|e| {
                Failure::Message(format!(
                    "--set-json {name}: the value is not JSON ({e}); quote strings, e.g. --set-json {name}='\"text\"'"
                ))
            })?;
            map.insert(name.to_owned(), parsed);
        }
        Ok(map)
    }
}

/// A `--set` value as the kind `prompt` declares for `name`: an error names the input, its
/// kind and the value when the text is not one.
fn typed(prompt: &Prompt, name: &str, value: &str) -> Result<Value, Failure> {
    let declared = prompt.inputs.as_deref().and_then(|inputs| inputs.iter().find(|p| p.name == name));
    let Some(kind) = declared.map(|p| p.kind) else { return Ok(Value::String(value.to_owned())) };
    let converted = match kind {
        PropertyKind::Boolean => match value.trim() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        PropertyKind::Integer => value.trim().parse::<i64>().ok().map(Value::from),
        PropertyKind::Float => value.trim().parse::<f64>().ok().filter(|f| f.is_finite()).and_then(|f| {
            // A number as JSON writes it (`3` stays an integer, as `--set-json` would give).
            serde_json::from_str::<Value>(value.trim()).ok().filter(Value::is_number).or(Some(Value::from(f)))
        }),
        PropertyKind::Array | PropertyKind::Thread => serde_json::from_str::<Value>(value).ok().filter(Value::is_array),
        PropertyKind::Object => serde_json::from_str::<Value>(value).ok().filter(Value::is_object),
        // Text, and kinds whose value is text or takes any shape (a union, an image URL).
        PropertyKind::String | PropertyKind::Union | PropertyKind::Image | PropertyKind::File | PropertyKind::Audio => {
            Some(Value::String(value.to_owned()))
        }
    };
    converted.ok_or_else(|| {
        let (what, example) = match kind {
            PropertyKind::Boolean => ("`true` or `false`", "true"),
            PropertyKind::Integer => ("an integer", "3"),
            PropertyKind::Float => ("a number", "0.5"),
            PropertyKind::Array => ("a JSON array", "'[\"a\", \"b\"]'"),
            PropertyKind::Thread => ("a JSON array of messages", "'[{\"role\": \"user\", \"content\": \"hi\"}]'"),
            _ => ("a JSON object", "'{\"key\": \"value\"}'"),
        };
        let shown = prompt.secrets.show(name);
        Failure::Message(format!(
            "--set {shown}: input `{shown}` is declared `kind: {}`, and {value:?} is not {what}; write e.g. --set {shown}={example}",
            kind.as_str()
        ))
    })
}

fn split_assignment<'a>(s: &'a str, flag: &str) -> Result<(&'a str, &'a str), Failure> {
    match s.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim(), value)),
        _ => Err(Failure::Message(format!("{flag} {s:?}: expected NAME=VALUE"))),
    }
}

/// Reads a JSON object from a file or standard input.
pub(crate) fn read_object(path: &PathBuf) -> Result<Map<String, Value>, Failure> {
    let (name, text) = read_text(path)?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => {
            Err(Failure::Message(format!("{name}: inputs must be a JSON object, found {}", json_type(&other))))
        }
        Err(e) => {
            Err(Failure::Message(format!("{name}:{}:{}: not valid JSON: {}", e.line(), e.column(), json_message(&e))))
        }
    }
}

/// The most bytes read from one side input: `--inputs`, `--answer`, a `prompty.toml`, one
/// line of an `eval` data or answers file. The same as the limit on a prompt file.
pub(crate) const MAX_SIDE_INPUT_BYTES: usize = prompty_syntax::MAX_FILE_BYTES;

/// Reads all of `reader`, up to [`MAX_SIDE_INPUT_BYTES`]: never more, whatever the source
/// (`/dev/zero`, a pipe that does not end, a file that grows). The error is a message
/// (`cannot read: ...` or `larger than the ...-byte limit`).
pub(crate) fn read_limited(reader: impl Read) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_SIDE_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {}", describe_io(&e)))?;
    if bytes.len() > MAX_SIDE_INPUT_BYTES {
        return Err(format!("larger than the {MAX_SIDE_INPUT_BYTES}-byte limit"));
    }
    Ok(bytes)
}

/// Reads a whole regular text file, or standard input for `-`, up to [`MAX_SIDE_INPUT_BYTES`].
pub(crate) fn read_text(path: &PathBuf) -> Result<(String, String), Failure> {
    let (name, bytes) = if path.as_os_str() == "-" {
        let name = "<stdin>".to_owned();
        let bytes =
            read_limited(std::io::stdin().lock()).map_err(|e| Failure::Message(format!("standard input: {e}")))?;
        (name, bytes)
    } else {
        let name = path.display().to_string();
        if path.is_dir() {
            return Err(Failure::Message(format!("{name}: is a directory, expected a file")));
        }
        // A FIFO blocks on opening until something writes to it, a device or socket may
        // never end: only regular files are opened; anything else comes on standard input.
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(Failure::Message(format!(
                "{name}: not a regular file (a FIFO, device or socket could block or never end); pass its content on standard input with `-`"
            )));
        }
        let file = std::fs::File::open(path)
            .map_err(|e| Failure::Message(format!("{name}: cannot read: {}", describe_io(&e))))?;
        let bytes = read_limited(file).map_err(|e| Failure::Message(format!("{name}: {e}")))?;
        (name, bytes)
    };
    let text = String::from_utf8(bytes).map_err(|_| Failure::Message(format!("{name}: not UTF-8 text")))?;
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
