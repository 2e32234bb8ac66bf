//! `prompty snapshot`: rendered prompts as reviewed files.
//!
//! For each prompt with input cases (a sidecar `<name>.cases.yaml` mapping case names to
//! input values, or else the prompt's own defaults as the case `default`), render the
//! request (model, options, connection) and the messages as text and compare them with
//! `<snapshots>/<folders>/<name>@<case>.snap`, where `<folders>/<name>` is the prompt's path
//! under the project root. The files use insta's layout (a `---` header, then the text),
//! and changed renderings are left as `.snap.new` files beside them, so `cargo insta review`
//! works on them too.

mod diff;
mod markdown;
mod request;
mod review;
mod store;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use prompty_render::{RenderOptions, Renderer, messages_to_text};
use serde_json::{Map, Value};

use crate::check::collect_all;
use crate::{LoadArgs, load_prompt_with, render_failure};
use diff::ColorChoice;
use store::{Found, absolute, pending_path, read_snapshot, refuse_symlink, relative, snapshot_path, write_atomically};

#[derive(clap::Args)]
pub(crate) struct SnapshotArgs {
    /// Prompt files or folders (default: `prompts`).
    paths: Vec<PathBuf>,
    /// Fail (exit 1) with a diff when a rendering differs from its snapshot, a snapshot is
    /// missing or a snapshot is stale; changed renderings are left as `.snap.new` files.
    #[arg(long, conflicts_with_all = ["update", "prune", "review", "accept", "reject"])]
    check: bool,
    /// Write new and changed snapshots and remove stale ones.
    #[arg(long, conflicts_with_all = ["prune", "review", "accept", "reject"])]
    update: bool,
    /// Remove stale snapshots (of removed prompts and cases) and nothing else.
    #[arg(long, conflicts_with_all = ["review", "accept", "reject"])]
    prune: bool,
    /// Show each pending `.snap.new` with its diff, and each stale snapshot (of a removed
    /// prompt or case), and ask: accept, reject or skip.
    #[arg(long, conflicts_with_all = ["accept", "reject"])]
    review: bool,
    /// Write `<name>.cases.yaml` beside each prompt that has none, one case `example` with
    /// each input's example, else its default, else an empty value to fill in; existing
    /// cases files are left alone.
    #[arg(long, conflicts_with_all = ["check", "update", "prune", "review", "accept", "reject"])]
    init_cases: bool,
    /// Accept every pending `.snap.new` file and remove every stale snapshot.
    #[arg(long, conflicts_with = "reject")]
    accept: bool,
    /// Reject (remove) every pending `.snap.new` file.
    #[arg(long)]
    reject: bool,
    /// The snapshot folder.
    #[arg(long, value_name = "DIR", default_value = "snapshots")]
    dir: PathBuf,
    /// The project root: snapshot names are prompt paths relative to it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,
    /// Report as text (diffs) or as a Markdown summary for a pull request.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Color diffs: on a terminal (`auto`, honours `NO_COLOR`), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    #[command(flatten)]
    load: LoadArgs,
}

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Markdown,
}

/// The host snapshots load through: the file system and an empty environment.
/// `${env:NAME}` stays as written (and `${env:NAME:default}` takes its default), so a
/// rendering never needs a secret and does not depend on the machine.
fn no_env_host() -> prompty_host::StdHost {
    prompty_host::StdHost::new().allow_env(false)
}

/// One rendering of one case.
struct Rendering {
    /// The prompt's path under the root, `/`-separated.
    prompt: String,
    case: String,
    text: String,
    path: PathBuf,
}

/// A prompt or case that could not be rendered: its snapshots are kept as they are.
struct Failed {
    prompt: String,
    case: Option<String>,
    message: String,
}

/// A named set of input values, with where the case is written (`file:line:col`).
struct Case {
    name: String,
    inputs: Map<String, Value>,
    at: Option<String>,
}

/// The input cases of a prompt: its sidecar file ([`prompty_syntax::cases`]), or its
/// defaults.
fn cases(prompt: &Path) -> Result<Vec<Case>, String> {
    let sidecar = prompt.with_extension("cases.yaml");
    if !sidecar.exists() {
        return Ok(vec![Case { name: "default".to_owned(), inputs: Map::new(), at: None }]);
    }
    let text = std::fs::read_to_string(&sidecar)
        .map_err(|e| format!("{}: cannot read: {}", sidecar.display(), crate::inputs::describe_io(&e)))?;
    let index = prompty_syntax::LineIndex::new(&text);
    let at = |offset: usize| {
        let (line, col) = index.line_col(&text, offset);
        format!("{}:{line}:{col}", sidecar.display())
    };
    let (cases, problems) = prompty_syntax::cases::parse_cases(&text);
    if let Some(p) = problems.first() {
        return Err(format!("{}: {}", at(p.span().start), p.message()));
    }
    if cases.is_empty() {
        return Err(format!(
            "{}: the file defines no case; write `case_name:` followed by `input: value` lines, or delete it to render the defaults",
            sidecar.display()
        ));
    }
    Ok(cases
        .iter()
        .map(|c| Case { name: c.name.clone(), inputs: c.values(), at: Some(at(c.name_span.start)) })
        .collect())
}

/// What rendering every prompt produced.
#[derive(Default)]
struct Rendered {
    renderings: Vec<Rendering>,
    failed: Vec<Failed>,
    /// Prompts none of whose snapshots may be removed (they could not be rendered).
    kept_prompts: HashSet<String>,
    /// Snapshots of cases that could not be rendered.
    kept_paths: HashSet<PathBuf>,
}

fn render_all(files: &[PathBuf], root: &Path, dir: &Path, load: &LoadArgs) -> Rendered {
    let mut out = Rendered::default();
    for file in files {
        let Some(rel) = relative(root, &absolute(file)) else {
            out.failed.push(Failed {
                prompt: file.display().to_string(),
                case: None,
                message: format!(
                    "{}: outside the project root {}; run from the folder that holds the prompts or pass --root",
                    file.display(),
                    root.display()
                ),
            });
            continue;
        };
        let name = rel.join("/");
        let fail = |out: &mut Rendered, case: Option<String>, message: String| {
            if case.is_none() {
                out.kept_prompts.insert(name.clone());
            }
            out.failed.push(Failed { prompt: name.clone(), case, message });
        };
        let (prompt, text) = match load_prompt_with(file, load, &no_env_host(), true) {
            Ok(loaded) => loaded,
            Err(f) => {
                fail(&mut out, None, f.text());
                continue;
            }
        };
        let options = RenderOptions { source: Some(text.clone()), ..Default::default() };
        let renderer = match Renderer::with_options(prompt.redacted_inputs(), options) {
            Ok(r) => r,
            Err(e) => {
                fail(&mut out, None, render_failure(file, &text, &e).text());
                continue;
            }
        };
        let cases = match cases(file) {
            Ok(c) => c,
            Err(e) => {
                fail(&mut out, None, e);
                continue;
            }
        };
        for case in cases {
            let path = snapshot_path(dir, &rel, &case.name);
            match renderer.prepare(&case.inputs) {
                Ok(messages) => {
                    let mut body = request::sections(renderer.prompt(), &messages);
                    body.push_str(&messages_to_text(&messages));
                    out.renderings.push(Rendering { prompt: name.clone(), case: case.name, text: body, path });
                }
                Err(e) => {
                    let located = match (e.span(), &case.at) {
                        (Some(_), _) | (None, None) => render_failure(file, &text, &e).text(),
                        (None, Some(at)) => format!("{at}: {e}"),
                    };
                    let mut message = format!("{located} (case `{}`)", diff::visible(&case.name));
                    if case.at.is_none() && e.kind() == prompty_render::ErrorKind::MissingInputs {
                        // No cases file: the defaults are all there is, and they do not fill
                        // every required input.
                        let _ = write!(
                            message,
                            "\n  help: {} has no cases file, so it is rendered with its defaults; write the values of each case in {} (`case_name:` then `input: value` lines), or run `prompty snapshot --init-cases {}` to start one from the inputs' defaults and examples",
                            file.display(),
                            file.with_extension("cases.yaml").display(),
                            file.display()
                        );
                    }
                    out.kept_paths.insert(path);
                    fail(&mut out, Some(case.name), message);
                }
            }
        }
    }
    out
}

/// Refuses two renderings whose snapshot files differ only in letter case: on macOS and
/// Windows they are one file, and one would overwrite the other.
fn refuse_collisions(renderings: &[Rendering]) -> Result<(), String> {
    let mut seen: HashMap<String, &Rendering> = HashMap::new();
    for r in renderings {
        let key = r.path.to_string_lossy().to_lowercase();
        if let Some(first) = seen.get(&key).copied() {
            return Err(format!(
                "{} case `{}` and {} case `{}` would share one snapshot file ({} and {} differ only in letter case or are equal); rename one of the cases or prompts",
                first.prompt,
                first.case,
                r.prompt,
                r.case,
                first.path.display(),
                r.path.display()
            ));
        }
        seen.insert(key, r);
    }
    Ok(())
}

fn header(r: &Rendering) -> String {
    format!(
        "source: {}\ndescription: {}\ninput_file: {}",
        store::SOURCE,
        header_value(&r.case),
        header_value(&r.prompt)
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

/// Which prompts a run covers: snapshots of other prompts are never stale in this run.
struct Scope {
    /// Root-relative `/`-separated paths: a prompt file, or a folder (`""` is the root).
    entries: Vec<String>,
}

impl Scope {
    fn new(paths: &[PathBuf], root: &Path) -> Scope {
        let entries = paths.iter().filter_map(|p| relative(root, &absolute(p))).map(|c| c.join("/")).collect();
        Scope { entries }
    }

    fn covers(&self, prompt: &str) -> bool {
        self.entries.iter().any(|e| {
            e.is_empty() || prompt == e || prompt.strip_prefix(e.as_str()).is_some_and(|rest| rest.starts_with('/'))
        })
    }

    fn covers_found(&self, f: &Found) -> bool {
        f.header.input_file.as_deref().is_some_and(|p| self.covers(&absolute_rel(p)))
    }
}

/// An `input_file` header value as a root-relative path with `.` and `..` removed.
fn absolute_rel(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split(['/', '\\']) {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    parts.join("/")
}

/// The snapshots of prompts in `scope` that no rendering of theirs writes any more (their
/// prompt or case was removed or renamed), for `--review` and `--accept`.
fn stale_snapshots(args: &SnapshotArgs, paths: &[PathBuf], root: &Path, scope: &Scope) -> Result<Vec<Found>, String> {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for p in paths {
        collect_all(p, &mut files, &mut unreadable)?;
    }
    if let Some(e) = unreadable.into_iter().next() {
        return Err(e);
    }
    let rendered = render_all(&files, root, &args.dir, &args.load);
    let expected: HashSet<&Path> = rendered.renderings.iter().map(|r| r.path.as_path()).collect();
    let kept = |f: &Found| {
        rendered.kept_paths.contains(&f.path)
            || f.header.input_file.as_deref().is_some_and(|p| rendered.kept_prompts.contains(&absolute_rel(p)))
    };
    Ok(store::walk(&args.dir)?
        .into_iter()
        .filter(|f| !f.pending && scope.covers_found(f) && !expected.contains(f.path.as_path()) && !kept(f))
        .collect())
}

/// `--init-cases`: a cases file for each prompt under `paths` that has none.
fn init_cases(paths: &[PathBuf], load: &LoadArgs, stderr: &mut std::io::StderrLock<'_>) -> ExitCode {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for p in paths {
        if let Err(e) = collect_all(p, &mut files, &mut unreadable) {
            let _ = writeln!(stderr, "error: {e}");
            return ExitCode::from(2);
        }
    }
    let mut failed = unreadable.len();
    for e in &unreadable {
        let _ = writeln!(stderr, "error: {e}");
    }
    let (mut written, mut kept) = (0usize, 0usize);
    for file in &files {
        let sidecar = file.with_extension("cases.yaml");
        if sidecar.exists() || store::is_symlink(&sidecar) {
            kept += 1;
            continue;
        }
        let prompt = match load_prompt_with(file, load, &no_env_host(), true) {
            Ok((prompt, _)) => prompt,
            Err(f) => {
                let _ = writeln!(stderr, "error: {}", f.text());
                failed += 1;
                continue;
            }
        };
        let (text, to_fill) = cases_text(file, &prompt);
        match crate::files::create_new(&sidecar, text.as_bytes()) {
            Ok(()) => {
                written += 1;
                let fill = if to_fill.is_empty() {
                    String::new()
                } else {
                    format!("; fill in {}", to_fill.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
                };
                let _ = writeln!(stderr, "wrote {}{fill}", sidecar.display());
            }
            Err(e) => {
                let _ = writeln!(stderr, "error: {}: {e}", sidecar.display());
                failed += 1;
            }
        }
    }
    let _ = writeln!(
        stderr,
        "{written} cases file{} written, {kept} kept as they are{}; review them, then `prompty snapshot --update`",
        if written == 1 { "" } else { "s" },
        if failed > 0 { format!(", {failed} failed") } else { String::new() }
    );
    if failed > 0 { ExitCode::from(2) } else { ExitCode::SUCCESS }
}

/// The text of a new cases file for `prompt`: one case, `example`, with each input's
/// example (a v1 file's top-level `sample`, an input's `example` or v1 `sample`), else its
/// default, else an empty value of its kind marked to fill in. Also returns the inputs
/// left to fill in. Values are written as JSON, which YAML reads as written.
fn cases_text(file: &Path, prompt: &prompty_syntax::Prompt) -> (String, Vec<String>) {
    use prompty_syntax::PropertyKind;
    let sample = prompt.legacy.as_ref().and_then(|l| l.sample.as_ref()).and_then(Value::as_object);
    let mut out = format!(
        "# Input cases of {}: each top-level key is a case, rendered by `prompty snapshot`\n# into snapshots/.../<prompt>@<case>.snap. Add a case for each situation worth reviewing.\n",
        file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned())
    );
    out.push_str("example:\n");
    let mut to_fill = Vec::new();
    let inputs: Vec<&prompty_syntax::Property> = prompt.inputs.iter().flatten().collect();
    if inputs.is_empty() {
        out.push_str("  {}\n");
    }
    for p in inputs {
        let key = serde_json::Value::String(p.name.clone()).to_string();
        let key = if p.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') { p.name.clone() } else { key };
        let value = sample.and_then(|s| s.get(&p.name)).or(p.example.as_ref()).or(p.default.as_ref());
        match value {
            Some(v) => {
                let _ = writeln!(out, "  {key}: {}", serde_json::to_string(v).unwrap_or_else(|_| "null".to_owned()));
            }
            None => {
                let empty = match p.kind {
                    PropertyKind::Integer | PropertyKind::Float => "0",
                    PropertyKind::Boolean => "false",
                    PropertyKind::Array | PropertyKind::Thread => "[]",
                    PropertyKind::Object => "{}",
                    _ => "\"\"",
                };
                let _ = writeln!(out, "  {key}: {empty}  # TODO: no example or default; give a value");
                to_fill.push(p.name.clone());
            }
        }
    }
    (out, to_fill)
}

/// How a rendering compares with its snapshot.
enum Status {
    Same,
    Changed { old: String, header: String },
    New,
}

pub(crate) fn run(args: &SnapshotArgs) -> ExitCode {
    let paths = if args.paths.is_empty() { vec![PathBuf::from("prompts")] } else { args.paths.clone() };
    let root = absolute(&args.root);
    let scope = Scope::new(&paths, &root);
    let color = args.color.for_stdout();
    let mut stderr = std::io::stderr().lock();
    if args.init_cases {
        return init_cases(&paths, &args.load, &mut stderr);
    }
    if args.review || args.accept || args.reject {
        let action = if args.accept {
            review::Action::Accept
        } else if args.reject {
            review::Action::Reject
        } else {
            review::Action::Ask
        };
        let all = args.paths.is_empty();
        // Stale snapshots are found by rendering the prompts, as `--check` does; a
        // rejected removal keeps the file (and `--check` still reports it).
        let stale = if action == review::Action::Reject {
            Vec::new()
        } else {
            match stale_snapshots(args, &paths, &root, &scope) {
                Ok(stale) => stale,
                Err(e) => {
                    let _ = writeln!(stderr, "error: {e}");
                    return ExitCode::from(2);
                }
            }
        };
        drop(stderr);
        return review::run(&args.dir, &|f: &Found| all || scope.covers_found(f), &stale, action, color);
    }
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for p in &paths {
        if let Err(e) = collect_all(p, &mut files, &mut unreadable) {
            let _ = writeln!(stderr, "error: {e}");
            return ExitCode::from(2);
        }
    }
    for e in &unreadable {
        let _ = writeln!(stderr, "error: {e}");
    }
    // A prompt named twice (`prompts` and `prompts/greet.prompty`) is rendered once.
    let mut seen = HashSet::new();
    files.retain(|f| seen.insert(absolute(f)));
    let rendered = render_all(&files, &root, &args.dir, &args.load);
    if let Err(e) = refuse_collisions(&rendered.renderings).and_then(|()| refuse_symlink(&args.dir, "snapshot folder"))
    {
        let _ = writeln!(stderr, "error: {e}");
        return ExitCode::from(2);
    }
    let mut statuses = Vec::with_capacity(rendered.renderings.len());
    for r in &rendered.renderings {
        let status = match store::refuse_linked_folders(&args.dir, &r.path).and_then(|()| read_snapshot(&r.path)) {
            Err(e) => {
                let _ = writeln!(stderr, "error: {e}");
                return ExitCode::from(2);
            }
            Ok(Some(old)) if old.text.trim_end_matches('\n') == r.text.trim_end_matches('\n') => Status::Same,
            Ok(Some(old)) => Status::Changed {
                header: old.header.as_ref().map_or_else(|| header(r), |h| h.raw.clone()),
                old: old.text,
            },
            Ok(None) => Status::New,
        };
        statuses.push(status);
    }
    // Snapshot files of covered prompts that no rendering of this run wrote.
    let expected: HashSet<&Path> = rendered.renderings.iter().map(|r| r.path.as_path()).collect();
    let found = match store::walk(&args.dir) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(stderr, "error: {e}");
            return ExitCode::from(2);
        }
    };
    let kept = |f: &Found| {
        rendered.kept_paths.contains(&f.path)
            || f.header.input_file.as_deref().is_some_and(|p| rendered.kept_prompts.contains(&absolute_rel(p)))
    };
    let stale: Vec<&Found> = found
        .iter()
        .filter(|f| !f.pending && scope.covers_found(f) && !expected.contains(f.path.as_path()) && !kept(f))
        .collect();
    // Pending files that no changed rendering of this run stands behind.
    let pending_wanted: HashSet<PathBuf> = rendered
        .renderings
        .iter()
        .zip(&statuses)
        .filter(|(_, s)| !matches!(s, Status::Same))
        .map(|(r, _)| pending_path(&r.path))
        .collect();
    let expected_pending: HashSet<PathBuf> = rendered.renderings.iter().map(|r| pending_path(&r.path)).collect();
    let stale_pending: Vec<&Found> = found
        .iter()
        .filter(|f| f.pending && !pending_wanted.contains(&f.path))
        .filter(|f| expected_pending.contains(&f.path) || (scope.covers_found(f) && !kept(f)))
        .collect();

    let mut write_errors = 0usize;
    let mut note = |stderr: &mut std::io::StderrLock<'_>, r: Result<(), String>| {
        if let Err(e) = r {
            let _ = writeln!(stderr, "error: {e}");
            write_errors += 1;
        }
    };
    for f in &stale_pending {
        note(&mut stderr, store::remove(&f.path));
    }
    let failed = rendered.failed.len() + unreadable.len();
    for f in &rendered.failed {
        let _ = writeln!(stderr, "error: {}", f.message);
    }
    let same = statuses.iter().filter(|s| matches!(s, Status::Same)).count();
    let changed = statuses.iter().filter(|s| matches!(s, Status::Changed { .. })).count();
    let new = statuses.iter().filter(|s| matches!(s, Status::New)).count();
    let failed_note = if failed > 0 { format!(", {failed} failed") } else { String::new() };

    if args.update || args.prune {
        let (mut updated, mut written) = (0usize, 0usize);
        if args.update {
            for (r, s) in rendered.renderings.iter().zip(&statuses) {
                let head = match s {
                    Status::Same => continue,
                    Status::Changed { header, .. } => header.clone(),
                    Status::New => header(r),
                };
                let result = write_atomically(&r.path, &format!("---\n{head}\n---\n{}", r.text));
                if result.is_ok() {
                    if matches!(s, Status::New) {
                        written += 1
                    } else {
                        updated += 1
                    }
                    note(&mut stderr, store::remove(&pending_path(&r.path)));
                }
                note(&mut stderr, result);
            }
        }
        let mut removed = 0usize;
        for f in &stale {
            let result = store::remove(&f.path);
            if result.is_ok() {
                removed += 1;
                let _ = writeln!(stderr, "removed stale snapshot {}", f.path.display());
            }
            note(&mut stderr, result);
        }
        let removed_note = if removed > 0 { format!(", {removed} removed") } else { String::new() };
        if args.update {
            let _ =
                writeln!(stderr, "{same} unchanged, {updated} updated, {written} written{removed_note}{failed_note}");
        } else {
            let _ = writeln!(stderr, "{removed} removed{failed_note}");
        }
        return if failed + write_errors > 0 { ExitCode::from(2) } else { ExitCode::SUCCESS };
    }

    // --check (and the default): report, and leave each changed rendering as `.snap.new`.
    let mut entries = Vec::new();
    for (r, s) in rendered.renderings.iter().zip(&statuses) {
        let pending = pending_path(&r.path);
        let (status, detail, head) = match s {
            Status::Same => {
                if pending.exists() || store::is_symlink(&pending) {
                    note(&mut stderr, store::remove(&pending));
                }
                continue;
            }
            Status::Changed { old, header } => {
                ("changed", diff::unified(old, &r.text, &r.path.display().to_string()), header.clone())
            }
            Status::New => ("new", diff::unified("", &r.text, &r.path.display().to_string()), header(r)),
        };
        if let Err(e) = write_atomically(&pending, &format!("---\n{head}\n---\n{}", r.text)) {
            let _ = writeln!(stderr, "warning: pending snapshot not written: {e}");
        }
        entries.push(markdown::Entry {
            status,
            snapshot: r.path.display().to_string(),
            prompt: r.prompt.clone(),
            case: r.case.clone(),
            detail,
        });
    }
    for f in &stale {
        let prompt = f.header.input_file.clone().unwrap_or_default();
        let case = f.header.description.clone().unwrap_or_default();
        let old = read_snapshot(&f.path).ok().flatten().map(|s| s.text).unwrap_or_default();
        entries.push(markdown::Entry {
            status: "removed",
            snapshot: f.path.display().to_string(),
            prompt,
            case,
            detail: diff::unified(&old, "", &f.path.display().to_string()),
        });
    }
    let mut stdout = std::io::stdout().lock();
    match args.format {
        Format::Markdown => {
            let mut all = entries;
            all.extend(rendered.failed.iter().map(|f| markdown::Entry {
                status: "failed",
                snapshot: String::new(),
                prompt: f.prompt.clone(),
                case: f.case.clone().unwrap_or_default(),
                detail: f.message.clone(),
            }));
            let _ = write!(stdout, "{}", markdown::summary(&all, same));
        }
        Format::Text => {
            let mut report = String::new();
            for e in &entries {
                match e.status {
                    "changed" => report.push_str(&e.detail),
                    "new" => {
                        let _ = writeln!(
                            report,
                            "new snapshot {} ({} case `{}`)",
                            e.snapshot,
                            e.prompt,
                            diff::visible(&e.case)
                        );
                    }
                    _ => {
                        let _ = writeln!(
                            report,
                            "stale snapshot {} (of {} case `{}`, which no longer renders to this file; `--update` or `--prune` removes it)",
                            e.snapshot,
                            diff::visible(&e.prompt),
                            diff::visible(&e.case)
                        );
                    }
                }
            }
            let _ = write!(stdout, "{}", if color { diff::colored(&report) } else { report });
        }
    }
    let stale_note = if stale.is_empty() { String::new() } else { format!(", {} stale", stale.len()) };
    let _ = writeln!(stderr, "{same} unchanged, {changed} changed, {new} new{stale_note}{failed_note}");
    if failed + write_errors > 0 {
        return ExitCode::from(2);
    }
    if changed + new + stale.len() == 0 {
        return ExitCode::SUCCESS;
    }
    if !args.check {
        let _ = writeln!(
            stderr,
            "run `prompty snapshot --review` to accept or reject each change, or `prompty snapshot --update` to accept them all"
        );
    }
    ExitCode::from(1)
}
