//! `prompty snapshot [PATH] [--check|--update]`: rendered prompts as reviewed files.
//!
//! For each prompt with input cases (a sidecar `<name>.cases.yaml` mapping case names to
//! input values, or else the prompt's own defaults as the case `default`), render the
//! messages as text and compare them with `<snapshots>/<name>@<case>.snap`. The files use
//! insta's layout (a `---` header, then the text), so `cargo insta review` works on them too.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use prompty_render::{RenderOptions, Renderer, messages_to_text};
use serde_json::{Map, Value};

use crate::check::collect;
use crate::inputs::describe_io;
use crate::{LoadArgs, load_prompt, render_failure};

#[derive(clap::Args)]
pub(crate) struct SnapshotArgs {
    /// Prompt files or folders (default: `prompts`).
    paths: Vec<PathBuf>,
    /// Fail (exit 1) with a unified diff when a rendering differs from its snapshot.
    #[arg(long, conflicts_with = "update")]
    check: bool,
    /// Write new and changed snapshots.
    #[arg(long)]
    update: bool,
    /// The snapshot folder.
    #[arg(long, value_name = "DIR", default_value = "snapshots")]
    dir: PathBuf,
    #[command(flatten)]
    load: LoadArgs,
}

/// One rendering: the prompt, the case name and the text.
struct Rendering {
    prompt: PathBuf,
    case: String,
    text: String,
}

/// A named set of input values.
type Case = (String, Map<String, Value>);

/// The input cases of a prompt: its sidecar file, or its defaults.
fn cases(prompt: &Path) -> Result<Vec<Case>, String> {
    let sidecar = prompt.with_extension("cases.yaml");
    if !sidecar.exists() {
        return Ok(vec![("default".to_owned(), Map::new())]);
    }
    let text = std::fs::read_to_string(&sidecar).map_err(|e| format!("{}: {e}", sidecar.display()))?;
    let root = prompty_syntax::yaml::parse(&text, 0, &text).map_err(|d| {
        let (line, col) = prompty_syntax::LineIndex::new(&text).line_col(&text, d.span.start);
        format!("{}:{line}:{col}: {}", sidecar.display(), d.message)
    })?;
    match root.to_json() {
        Value::Object(map) => map
            .into_iter()
            .map(|(name, v)| match v {
                Value::Object(inputs) => Ok((name, inputs)),
                Value::Null => Ok((name, Map::new())),
                _ => Err(format!("{}: case `{name}` must be a mapping of input values", sidecar.display())),
            })
            .collect(),
        _ => Err(format!("{}: expected a mapping of case names to input values", sidecar.display())),
    }
}

fn render_all(paths: &[PathBuf], load: &LoadArgs) -> Result<Vec<Rendering>, String> {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files)?;
    }
    let mut out = Vec::new();
    for file in files {
        let (prompt, text) = load_prompt(&file, load).map_err(|f| f.text())?;
        // Values from `${env:}` are secret and differ between machines: snapshots render
        // `${env:NAME}` in their place.
        let options = RenderOptions { source: Some(text.clone()), ..Default::default() };
        let renderer = Renderer::with_options(prompt.redacted_inputs(), options)
            .map_err(|e| render_failure(&file, &text, &e).text())?;
        for (case, inputs) in cases(&file)? {
            let messages = renderer.prepare(&inputs).map_err(|e| format!("{} case `{case}`: {e}", file.display()))?;
            out.push(Rendering { prompt: file.clone(), case, text: messages_to_text(&messages) });
        }
    }
    Ok(out)
}

fn snapshot_path(dir: &Path, r: &Rendering) -> PathBuf {
    let stem = r.prompt.file_stem().and_then(|s| s.to_str()).unwrap_or("prompt");
    dir.join(format!("{stem}@{}.snap", file_name_part(&r.case)))
}

/// A case name as part of a file name: ASCII letters, digits, `_`, `-` and `.` stay; every
/// other byte (path separators, `%`, spaces, control characters) becomes `%XX`. Distinct
/// names stay distinct, and none can leave the snapshot folder.
fn file_name_part(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' => out.push(char::from(b)),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Refuses two renderings whose snapshot files differ only in letter case: on macOS and
/// Windows they are one file, and one would overwrite the other.
fn refuse_collisions(paths: &[(PathBuf, &Rendering)]) -> Result<(), String> {
    let mut seen: std::collections::HashMap<String, &(PathBuf, &Rendering)> = std::collections::HashMap::new();
    for entry in paths {
        let key = entry.0.to_string_lossy().to_lowercase();
        if let Some((first_path, first)) = seen.get(&key).copied() {
            let (path, r) = entry;
            return Err(format!(
                "{} case `{}` and {} case `{}` would share one snapshot file ({} and {} differ only in letter case or are equal); rename one of the cases or prompts",
                first.prompt.display(),
                first.case,
                r.prompt.display(),
                r.case,
                first_path.display(),
                path.display()
            ));
        }
        seen.insert(key, entry);
    }
    Ok(())
}

/// Whether `path` is a symbolic link (snapshots are never read or written through one).
fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn refuse_symlink(path: &Path, what: &str) -> Result<(), String> {
    if is_symlink(path) {
        return Err(format!(
            "{}: the {what} is a symbolic link; snapshots are never read or written through links (replace it with a regular {what})",
            path.display()
        ));
    }
    Ok(())
}

/// An existing snapshot file: its header (when it has one) and its text.
struct Existing {
    header: Option<String>,
    text: String,
}

/// The snapshot at `path`: `None` when there is none. A file without the `---` header is
/// all text (so it shows as changed, never silently replaced as new).
fn read_snapshot(path: &Path) -> Result<Option<Existing>, String> {
    refuse_symlink(path, "snapshot file")?;
    // A FIFO or device would block or never end: only regular files are read.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(format!("{}: not a regular file", path.display()));
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: cannot read: {}", path.display(), describe_io(&e))),
    };
    let parsed = text.strip_prefix("---\n").and_then(|rest| {
        let end = rest.find("\n---\n")?;
        Some(Existing { header: Some(rest[..end].to_owned()), text: rest[end + 5..].to_owned() })
    });
    Ok(Some(parsed.unwrap_or(Existing { header: None, text })))
}

/// Writes `text` to `path` atomically: a new file in the same folder (created exclusively,
/// so nothing is followed), flushed, then renamed over `path`. A reader sees the old file
/// or the new one, never a part. `path` itself must not be a symbolic link.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    refuse_symlink(path, "snapshot file")?;
    let fail = |e: &std::io::Error| format!("{}: cannot write: {}", path.display(), describe_io(e));
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map_or_else(|| "snapshot".into(), |n| n.to_string_lossy().into_owned());
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    for attempt in 0..100u32 {
        let tmp = dir.join(format!(".{name}.{}-{nanos}-{attempt}.tmp", std::process::id()));
        let mut file = match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(fail(&e)),
        };
        let written = file.write_all(text.as_bytes()).and_then(|()| file.sync_all());
        drop(file);
        if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
            let _ = std::fs::remove_file(&tmp);
            return Err(fail(&e));
        }
        return Ok(());
    }
    Err(format!("{}: cannot write: no free temporary file name in {}", path.display(), dir.display()))
}

fn header(r: &Rendering) -> String {
    format!(
        "source: prompty snapshot\ndescription: {}\ninput_file: {}",
        header_value(&r.case),
        header_value(&r.prompt.display().to_string())
    )
}

/// A header value on one line: plain when it is plain text, else a quoted (JSON, hence
/// YAML) string, so that a line break in a case name cannot end the header early.
fn header_value(s: &str) -> String {
    let plain = !s.is_empty()
        && s.trim() == s
        && !s.starts_with(['"', '\'', '{', '[', '&', '*', '!', '|', '>', '%', '@', '#', '-', '?'])
        && !s.contains(": ")
        && !s.chars().any(char::is_control);
    if plain { s.to_owned() } else { serde_json::Value::String(s.to_owned()).to_string() }
}

/// A unified diff of two texts.
fn unified_diff(old: &str, new: &str, name: &str) -> String {
    similar::TextDiff::from_lines(old, new).unified_diff().context_radius(3).header(name, name).to_string()
}

pub(crate) fn run(args: &SnapshotArgs) -> ExitCode {
    let paths = if args.paths.is_empty() { vec![PathBuf::from("prompts")] } else { args.paths.clone() };
    let mut stderr = std::io::stderr().lock();
    let renderings = match render_all(&paths, &args.load) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(stderr, "error: {e}");
            return ExitCode::from(2);
        }
    };
    let paths: Vec<(PathBuf, &Rendering)> = renderings.iter().map(|r| (snapshot_path(&args.dir, r), r)).collect();
    if let Err(e) = refuse_collisions(&paths).and_then(|()| refuse_symlink(&args.dir, "snapshot folder")) {
        let _ = writeln!(stderr, "error: {e}");
        return ExitCode::from(2);
    }
    let (mut same, mut changed, mut new) = (0usize, Vec::new(), Vec::new());
    let mut report = String::new();
    for (path, r) in paths {
        match read_snapshot(&path) {
            Err(e) => {
                let _ = writeln!(stderr, "error: {e}");
                return ExitCode::from(2);
            }
            Ok(Some(old)) if old.text.trim_end_matches('\n') == r.text.trim_end_matches('\n') => same += 1,
            Ok(Some(old)) => {
                let _ = write!(report, "{}", unified_diff(&old.text, &r.text, &path.display().to_string()));
                changed.push((path, old.header, r));
            }
            Ok(None) => {
                let _ = writeln!(report, "new snapshot {} ({} case `{}`)", path.display(), r.prompt.display(), r.case);
                new.push((path, None, r));
            }
        }
    }
    if args.update {
        if let Err(e) = std::fs::create_dir_all(&args.dir) {
            let _ = writeln!(stderr, "error: {}: {}", args.dir.display(), describe_io(&e));
            return ExitCode::from(2);
        }
        for (path, head, r) in changed.iter().chain(&new) {
            let head = head.clone().unwrap_or_else(|| header(r));
            if let Err(e) = write_atomically(path, &format!("---\n{head}\n---\n{}", r.text)) {
                let _ = writeln!(stderr, "error: {e}");
                return ExitCode::from(2);
            }
        }
        let _ = writeln!(stderr, "{same} unchanged, {} updated, {} written", changed.len(), new.len());
        return ExitCode::SUCCESS;
    }
    let mut stdout = std::io::stdout().lock();
    let _ = write!(stdout, "{report}");
    let _ = writeln!(stderr, "{same} unchanged, {} changed, {} new", changed.len(), new.len());
    if changed.is_empty() && new.is_empty() {
        ExitCode::SUCCESS
    } else {
        if !args.check {
            let _ = writeln!(stderr, "run `prompty snapshot --update` to accept these renderings");
        }
        ExitCode::from(1)
    }
}
