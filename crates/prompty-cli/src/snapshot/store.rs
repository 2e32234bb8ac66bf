//! Snapshot files on disk: names, the insta layout, atomic writes and the walk that finds
//! stale and pending files.

use std::path::{Component, Path, PathBuf};

use crate::files::{self, WriteError};
use crate::inputs::describe_io;

/// The extension of a pending snapshot (next to the `.snap` it would replace).
pub(crate) const PENDING: &str = ".new";

/// The `source:` header value of the files this command writes.
pub(crate) const SOURCE: &str = "prompty snapshot";

/// `path` made absolute (from the current folder) with `.` and `..` removed by text, so
/// that two spellings of one path compare equal. Links are not followed: names come from
/// the path as written.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")).join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The components of `path` under `root` (both absolute), `None` when `path` is outside.
pub(crate) fn relative(root: &Path, path: &Path) -> Option<Vec<String>> {
    let rest = path.strip_prefix(root).ok()?;
    Some(rest.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect())
}

/// A name as part of a file name: ASCII letters, digits, `_`, `-` and `.` stay; every
/// other byte (path separators, `%`, `@`, spaces, control characters, non-ASCII) becomes
/// `%XX`. Distinct names stay distinct, and none can leave the snapshot folder (folder
/// names come from a path with `.` and `..` removed).
pub(crate) fn file_name_part(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' => out.push(char::from(b)),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The snapshot file of `case` of the prompt at `rel` (components under the root, the last
/// one the file name): the prompt's folders, then `<stem>@<case>.snap`.
pub(crate) fn snapshot_path(dir: &Path, rel: &[String], case: &str) -> PathBuf {
    let mut path = dir.to_path_buf();
    let (file, folders) = rel.split_last().map_or(("prompt", &[][..]), |(f, d)| (f.as_str(), d));
    for folder in folders {
        path.push(file_name_part(folder));
    }
    let stem = file.strip_suffix(".prompty").unwrap_or(file);
    path.push(format!("{}@{}.snap", file_name_part(stem), file_name_part(case)));
    path
}

/// `path` with `.new` appended: the pending snapshot beside it.
pub(crate) fn pending_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(PENDING);
    PathBuf::from(s)
}

/// Whether `path` is a symbolic link (snapshots are never read or written through one).
pub(crate) use crate::files::is_symlink;

/// The largest snapshot file read.
const MAX_SNAPSHOT_BYTES: u64 = 64 * 1024 * 1024;

pub(crate) fn refuse_symlink(path: &Path, what: &str) -> Result<(), String> {
    crate::stored::refuse_symlink(path, what, "snapshots")
}

/// Refuses a symbolic link among the folders between `dir` and `path` (inside `dir`).
pub(crate) fn refuse_linked_folders(dir: &Path, path: &Path) -> Result<(), String> {
    crate::stored::refuse_linked_folders(dir, path, "snapshot folder", "snapshots")
}

/// A snapshot file: its header fields (when it has the `---` header) and its text.
pub(crate) struct SnapFile {
    pub(crate) header: Option<Header>,
    pub(crate) text: String,
}

/// The header fields this command reads.
#[derive(Default, Clone)]
pub(crate) struct Header {
    pub(crate) raw: String,
    pub(crate) source: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) input_file: Option<String>,
}

impl Header {
    /// Whether the file is the snapshot of a prompt: written by this command, or in insta's
    /// layout for a `.prompty` input file.
    pub(crate) fn is_prompt_snapshot(&self) -> bool {
        self.source.as_deref() == Some(SOURCE) || self.input_file.as_deref().is_some_and(|f| f.ends_with(".prompty"))
    }
}

fn parse_header(raw: &str) -> Header {
    let mut h = Header { raw: raw.to_owned(), ..Header::default() };
    for line in raw.lines() {
        let Some((key, value)) = line.split_once(": ") else { continue };
        let value = if value.starts_with('"') {
            serde_json::from_str::<String>(value).unwrap_or_else(|_| value.to_owned())
        } else {
            value.to_owned()
        };
        match key {
            "source" => h.source = Some(value),
            "description" => h.description = Some(value),
            "input_file" => h.input_file = Some(value),
            _ => {}
        }
    }
    h
}

/// The snapshot at `path`: `None` when there is none. A file without the `---` header is
/// all text (so it shows as changed, never silently replaced as new).
pub(crate) fn read_snapshot(path: &Path) -> Result<Option<SnapFile>, String> {
    // A link, FIFO or device is refused, and a file over the limit is not read to its end.
    Ok(crate::stored::read_regular(path, MAX_SNAPSHOT_BYTES, "snapshot file", "snapshots")?.map(split))
}

fn split(text: String) -> SnapFile {
    let parsed = text.strip_prefix("---\n").and_then(|rest| {
        let end = rest.find("\n---\n")?;
        Some(SnapFile { header: Some(parse_header(&rest[..end])), text: rest[end + 5..].to_owned() })
    });
    parsed.unwrap_or(SnapFile { header: None, text })
}

/// Writes `text` to `path` atomically ([`crate::files::replace`]): a reader sees the old
/// file or the new one, never a part. `path` itself must not be a symbolic link. Missing
/// folders are created (never through a link: the walk up refuses them).
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    refuse_symlink(path, "snapshot file")?;
    let fail = |why: &str| format!("{}: cannot write: {why}", path.display());
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| fail(&describe_io(&e)))?;
    match files::replace(path, text.as_bytes(), None) {
        Ok(()) => Ok(()),
        Err(WriteError::Link) => refuse_symlink(path, "snapshot file"),
        Err(WriteError::Changed) => Err(fail("it changed while it was written")),
        Err(WriteError::Io(why)) => Err(fail(&why)),
    }
}

/// Removes a snapshot file this command owns; one already gone (a concurrent run) is fine.
pub(crate) fn remove(path: &Path) -> Result<(), String> {
    refuse_symlink(path, "snapshot file")?;
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}: cannot remove: {}", path.display(), describe_io(&e))),
    }
}

/// A prompt snapshot found on disk.
pub(crate) struct Found {
    pub(crate) path: PathBuf,
    pub(crate) header: Header,
    /// A `.snap.new` file.
    pub(crate) pending: bool,
}

/// How much of a file the walk reads to find its header.
const HEADER_BYTES: u64 = 64 * 1024;

/// How deep the walk of the snapshot folder goes.
const MAX_DEPTH: usize = 64;

/// Every prompt snapshot (`.snap`) and pending snapshot (`.snap.new`) under `dir`, sorted.
/// Links are never followed; files that are not prompt snapshots (no header naming a
/// `.prompty` input) are left out, so they are never reported or removed. A pending file
/// without a header is listed with an empty header: it is one this command writes (a run
/// that stopped half way), recognised by its name only where a rendering expects it.
pub(crate) fn walk(dir: &Path) -> Result<Vec<Found>, String> {
    let mut out = Vec::new();
    if !dir.exists() {
        return Ok(out);
    }
    walk_into(dir, 0, &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn walk_into(dir: &Path, depth: usize, out: &mut Vec<Found>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let listing = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot read the snapshot folder: {}", dir.display(), describe_io(&e)))?;
    for entry in listing {
        let entry = entry.map_err(|e| format!("{}: cannot list the folder: {}", dir.display(), describe_io(&e)))?;
        let Ok(kind) = entry.file_type() else { continue };
        let path = entry.path();
        if kind.is_dir() {
            walk_into(&path, depth + 1, out)?;
            continue;
        }
        if !kind.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let pending = name.ends_with(".snap.new");
        if !pending && !name.ends_with(".snap") {
            continue;
        }
        // The header is at the top: a large file is not read to its end.
        let mut head = Vec::new();
        let Ok(file) = std::fs::File::open(&path) else { continue };
        if std::io::Read::read_to_end(&mut std::io::Read::take(file, HEADER_BYTES), &mut head).is_err() {
            continue;
        }
        let text = match String::from_utf8(head) {
            Ok(t) => t,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        match split(text).header {
            Some(header) if header.is_prompt_snapshot() => out.push(Found { path, header, pending }),
            _ if pending => out.push(Found { path, header: Header::default(), pending }),
            _ => {}
        }
    }
    Ok(())
}
