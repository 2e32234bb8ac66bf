//! `prompty new NAME`: a v2 prompt to start from, which `prompty check` passes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct NewArgs {
    /// The prompt's name, or a path (`prompts/summarize`); `.prompty` is added when missing.
    name: PathBuf,
}

/// The new file's path and the prompt's `name`.
fn target(name: &Path) -> Result<(PathBuf, String), String> {
    let path = if name.extension().is_some_and(|e| e == "prompty") {
        name.to_path_buf()
    } else {
        let mut s = name.as_os_str().to_owned();
        s.push(".prompty");
        PathBuf::from(s)
    };
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
    let plain = stem.chars().next().is_some_and(char::is_alphanumeric)
        && stem.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !plain {
        return Err(format!(
            "{}: the file name must start with a letter or digit and hold only letters, digits, `_`, `-` or `.` (it becomes the prompt's `name`)",
            name.display()
        ));
    }
    Ok((path, stem))
}

/// The skeleton: front matter with a model, options and one input with a default, and a
/// system and a user message that reads it.
pub(crate) fn skeleton(name: &str) -> String {
    // A name YAML would read as another type (`true`, `null`, `1.5`) is quoted.
    let plain = name.chars().next().is_some_and(char::is_alphabetic)
        && !matches!(
            name.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | "nan" | "inf"
        );
    let name = if plain { name.to_owned() } else { serde_json::Value::String(name.to_owned()).to_string() };
    format!(
        "---
name: {name}
description: What this prompt does, in one sentence.
model:
  id: gpt-4o
  options:
    temperature: 0.2
    maxOutputTokens: 800
inputs:
  question:
    kind: string
    description: The user's question.
    default: What can you help me with?
---
system:
You are a helpful assistant. Answer in a few sentences.

user:
{{{{ question }}}}
"
    )
}

pub(crate) fn run(args: &NewArgs) -> ExitCode {
    let (path, name) = match target(&args.name) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(crate::EXIT_FAILURE);
        }
    };
    if let Err(e) = crate::files::create_new(&path, skeleton(&name).as_bytes()) {
        eprintln!("error: {}: {e}", path.display());
        return ExitCode::from(crate::EXIT_FAILURE);
    }
    eprintln!("wrote {p}; try `prompty render {p}`, and `prompty check {p}` after each change", p = path.display());
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_files_and_odd_names_are_refused() {
        assert_eq!(target(Path::new("summarize")), Ok((PathBuf::from("summarize.prompty"), "summarize".to_owned())));
        assert_eq!(target(Path::new("p/a.prompty")), Ok((PathBuf::from("p/a.prompty"), "a".to_owned())));
        assert!(target(Path::new("has space")).is_err());
        assert!(target(Path::new("x: y")).is_err());
        assert!(target(Path::new("")).is_err());
        assert!(target(Path::new("-")).is_err());
        assert!(target(Path::new(".hidden")).is_err());
    }

    /// Every skeleton loads with its name as a string and no error, whatever YAML would
    /// make of the bare name.
    #[test]
    fn the_name_stays_a_string() {
        for name in ["summarize", "true", "No", "null", "1.5", "2024-01-01", "v1.0", "x-y_z"] {
            let text = skeleton(name);
            let loaded = prompty_syntax::load_str(&text, &prompty_syntax::MapHost::new(), &Default::default());
            assert!(loaded.diagnostics.is_empty(), "{name}: {:?}", loaded.diagnostics);
            assert_eq!(loaded.prompt.map(|p| p.name), Some(Some(name.to_owned())), "{name}");
        }
    }
}
