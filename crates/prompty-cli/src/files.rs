//! Replacing a user's file without ever truncating it: the new content goes to a fresh file
//! in the same folder (created exclusively, so nothing is followed), is flushed to disk, and
//! is renamed over the target. A reader, a crash, a kill or a full disk leaves the old file
//! or the new one, never a part. A symbolic link is never written through, and a file that
//! changed since it was read is left alone.
//!
//! `fmt`, `check --fix`, `snapshot` and `eval --output` write through here.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::inputs::describe_io;

/// Why a file was not replaced.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum WriteError {
    /// The target is a symbolic link: renaming over it would replace the link, and writing
    /// through it would change a file outside the tree being written.
    Link,
    /// The target is not what was read any more (another program wrote to it, or replaced
    /// it): writing would lose that change.
    Changed,
    /// The file system refused (no space, no permission, ...), described.
    Io(String),
}

/// Whether `path` is a symbolic link (not followed).
pub(crate) fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The folder `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A new, empty file beside `target` with a name no other file has (`.NAME.PID-N-A.tmp`),
/// created exclusively. When `target` exists, the new file gets its permissions.
pub(crate) fn create_temp(target: &Path) -> std::io::Result<(PathBuf, File)> {
    let dir = folder_of(target);
    let name = target.file_name().map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let mut last = None;
    for attempt in 0..100u32 {
        let temp = dir.join(format!(".{name}.{}-{nanos}-{attempt}.tmp", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => {
                if let Ok(meta) = std::fs::metadata(target) {
                    let _ = file.set_permissions(meta.permissions());
                }
                return Ok((temp, file));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary file name")))
}

/// Flushes `file` (the temporary file at `temp`) and renames it over `target`; on failure
/// the temporary file is removed. `unchanged`, when given, is called just before the rename
/// and stops it with its error.
pub(crate) fn commit(
    file: File,
    temp: &Path,
    target: &Path,
    unchanged: impl FnOnce() -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let synced = file.sync_all();
    drop(file);
    let result = synced
        .map_err(|e| WriteError::Io(describe_io(&e)))
        .and_then(|()| unchanged())
        .and_then(|()| std::fs::rename(temp, target).map_err(|e| WriteError::Io(describe_io(&e))));
    if result.is_err() {
        let _ = std::fs::remove_file(temp);
        return result;
    }
    // The rename itself is durable once the folder is flushed; not every system allows it.
    if let Ok(dir) = File::open(folder_of(target)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Replaces the file at `path` with `bytes` atomically, keeping its permissions. With
/// `read`, the bytes the caller read from `path`: the file must still hold exactly them just
/// before the rename, or nothing is written ([`WriteError::Changed`]).
pub(crate) fn replace(path: &Path, bytes: &[u8], read: Option<&[u8]>) -> Result<(), WriteError> {
    if is_symlink(path) {
        return Err(WriteError::Link);
    }
    let (temp, mut file) = create_temp(path).map_err(|e| WriteError::Io(describe_io(&e)))?;
    if let Err(e) = file.write_all(bytes) {
        drop(file);
        let _ = std::fs::remove_file(&temp);
        return Err(WriteError::Io(describe_io(&e)));
    }
    commit(file, &temp, path, || {
        let Some(read) = read else { return Ok(()) };
        if is_symlink(path) {
            return Err(WriteError::Link);
        }
        match std::fs::read(path) {
            Ok(now) if now == read => Ok(()),
            _ => Err(WriteError::Changed),
        }
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("prompty-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).ok();
        dir
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|l| l.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn replaces_and_keeps_the_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("keep");
        let path = dir.join("a.prompty");
        std::fs::write(&path, "old").ok();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).ok();
        assert_eq!(replace(&path, b"new", Some(b"old")), Ok(()));
        assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), Some("new"));
        let mode = std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o777).ok();
        assert_eq!(mode, Some(0o640));
        assert_eq!(leftovers(&dir), ["a.prompty"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_left_alone() {
        let dir = scratch("changed");
        let path = dir.join("a.prompty");
        // Read as "old", then appended to by another program before the write.
        std::fs::write(&path, "old\nappended\n").ok();
        assert_eq!(replace(&path, b"new", Some(b"old\n")), Err(WriteError::Changed));
        assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), Some("old\nappended\n"));
        assert_eq!(leftovers(&dir), ["a.prompty"], "no temporary file is left");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_link_is_not_written_through() {
        let dir = scratch("link");
        let outside = dir.join("outside.txt");
        std::fs::write(&outside, "secret").ok();
        let link = dir.join("a.prompty");
        std::os::unix::fs::symlink(&outside, &link).ok();
        assert_eq!(replace(&link, b"new", None), Err(WriteError::Link));
        assert_eq!(std::fs::read_to_string(&outside).ok().as_deref(), Some("secret"));
        assert!(is_symlink(&link));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Writes a new file at `path` with `bytes`; fails when anything is there already (a file,
/// a folder, a link, even a dangling one): nothing is ever overwritten or written through
/// a link.
pub(crate) fn create_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            "exists already; left as it is".to_owned()
        } else {
            format!("cannot create: {}", describe_io(&e))
        }
    })?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(|e| {
        // Not left half written.
        let _ = std::fs::remove_file(path);
        format!("cannot write: {}", describe_io(&e))
    })
}

/// The last line of a command that rewrites files (`fmt`, `migrate`) and its exit code:
/// 2 when a file failed, 1 when a dry run (`--check`, `--diff`) found files to change, else 0.
/// `changed` counts the files rewritten (or, in a dry run, those that would be), `verbs`
/// is `(dry, done)` ("would be reformatted", "reformatted") and `failed` says what a
/// failed file was ("failed", "not migrated").
pub(crate) struct RewriteSummary {
    pub dry: bool,
    pub changed: usize,
    pub unchanged: usize,
    pub failures: usize,
}

impl RewriteSummary {
    pub(crate) fn finish(
        &self,
        verbs: (&str, &str),
        failed: &str,
        err: &mut impl std::io::Write,
    ) -> std::process::ExitCode {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let (changed, unchanged, failures) = (self.changed, self.unchanged, self.failures);
        let verb = if self.dry { verbs.0 } else { verbs.1 };
        let mut summary =
            format!("{changed} file{} {verb}, {unchanged} file{} left unchanged", plural(changed), plural(unchanged));
        if failures > 0 {
            summary.push_str(&format!(", {failures} file{} {failed}", plural(failures)));
        }
        let _ = writeln!(err, "{summary}");
        if failures > 0 {
            std::process::ExitCode::from(2)
        } else if self.dry && changed > 0 {
            std::process::ExitCode::from(1)
        } else {
            std::process::ExitCode::SUCCESS
        }
    }
}
