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

use prompty_render::messages_to_text;
use serde_json::{Map, Value};

use crate::check::collect;
use crate::{LoadArgs, load_renderer};

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
        let (renderer, _) = load_renderer(&file, load).map_err(|f| f.0)?;
        for (case, inputs) in cases(&file)? {
            let messages = renderer.prepare(&inputs).map_err(|e| format!("{} case `{case}`: {e}", file.display()))?;
            out.push(Rendering { prompt: file.clone(), case, text: messages_to_text(&messages) });
        }
    }
    Ok(out)
}

fn snapshot_path(dir: &Path, r: &Rendering) -> PathBuf {
    let stem = r.prompt.file_stem().and_then(|s| s.to_str()).unwrap_or("prompt");
    dir.join(format!("{stem}@{}.snap", r.case))
}

/// The text of a snapshot file (after its header), and the header.
fn read_snapshot(path: &Path) -> Option<(String, String)> {
    let text = std::fs::read_to_string(path).ok()?;
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some((rest[..end].to_owned(), rest[end + 5..].to_owned()))
}

fn header(r: &Rendering) -> String {
    format!("source: prompty snapshot\ndescription: {}\ninput_file: {}", r.case, r.prompt.display())
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
    let (mut same, mut changed, mut new) = (0usize, Vec::new(), Vec::new());
    let mut report = String::new();
    for r in &renderings {
        let path = snapshot_path(&args.dir, r);
        match read_snapshot(&path) {
            Some((_, old)) if old.trim_end_matches('\n') == r.text.trim_end_matches('\n') => same += 1,
            Some((head, old)) => {
                let _ = write!(report, "{}", unified_diff(&old, &r.text, &path.display().to_string()));
                changed.push((path, Some(head), r));
            }
            None => {
                let _ = writeln!(report, "new snapshot {} ({} case `{}`)", path.display(), r.prompt.display(), r.case);
                new.push((path, None, r));
            }
        }
    }
    if args.update {
        if let Err(e) = std::fs::create_dir_all(&args.dir) {
            let _ = writeln!(stderr, "error: {}: {e}", args.dir.display());
            return ExitCode::from(2);
        }
        for (path, head, r) in changed.iter().chain(&new) {
            let head = head.clone().unwrap_or_else(|| header(r));
            if let Err(e) = std::fs::write(path, format!("---\n{head}\n---\n{}", r.text)) {
                let _ = writeln!(stderr, "error: {}: cannot write: {e}", path.display());
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
