//! The files this command keeps for itself, snapshots and cache entries: read and written
//! only as regular files, never through a symbolic link (the file or a folder of the store
//! on the way to it), and read up to a size limit. A link could point anywhere (another
//! user's file, `/dev/zero`), a FIFO or device would block or never end, and a file that
//! grows while it is read stops at the limit.

use std::io::Read;
use std::path::Path;

use crate::inputs::describe_io;

pub(crate) use crate::files::is_symlink;

/// Refuses `path` when it is a symbolic link: `what` names it (`snapshot file`, `cache
/// entry`), `store` says what is never read through links (`snapshots`, `cache entries`).
pub(crate) fn refuse_symlink(path: &Path, what: &str, store: &str) -> Result<(), String> {
    if is_symlink(path) {
        return Err(format!(
            "{}: the {what} is a symbolic link; {store} are never read or written through links (replace it with a regular {what})",
            path.display()
        ));
    }
    Ok(())
}

/// Refuses a symbolic link among the folders between `dir` and `path` (inside `dir`).
pub(crate) fn refuse_linked_folders(dir: &Path, path: &Path, what: &str, store: &str) -> Result<(), String> {
    let mut at = path.parent();
    while let Some(folder) = at {
        if folder == dir || !folder.starts_with(dir) {
            break;
        }
        refuse_symlink(folder, what, store)?;
        at = folder.parent();
    }
    Ok(())
}

/// The text of the regular file at `path`, at most `limit` bytes: `None` when there is no
/// file. Refused: a symbolic link, anything that is not a regular file (a FIFO, a device,
/// a folder; checked before it is opened, so nothing blocks), a file over the limit (also
/// one that grows past it while read) and text that is not UTF-8.
pub(crate) fn read_regular(path: &Path, limit: u64, what: &str, store: &str) -> Result<Option<String>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(format!("{}: cannot read: {}", path.display(), describe_io(&e))),
    };
    if meta.file_type().is_symlink() {
        return refuse_symlink(path, what, store).map(|()| None);
    }
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    let too_large = || format!("{}: the {what} is larger than the {limit}-byte limit", path.display());
    if meta.len() > limit {
        return Err(too_large());
    }
    let cannot = |e: &std::io::Error| format!("{}: cannot read: {}", path.display(), describe_io(e));
    let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
    // Replaced between the check and the open: the opened file is checked again.
    if !file.metadata().map_err(|e| cannot(&e))?.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    String::from_utf8(bytes).map(Some).map_err(|_| format!("{}: the {what} is not UTF-8 text", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = std::env::temp_dir().join(format!("prompty-stored-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let file = dir.join("a.json");
        std::fs::write(&file, "12345").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read_regular(&file, 5, "entry", "entries"), Ok(Some("12345".into())));
        let big = read_regular(&file, 4, "entry", "entries");
        assert_eq!(big, Err(format!("{}: the entry is larger than the 4-byte limit", file.display())));
        assert_eq!(read_regular(&dir.join("none"), 5, "entry", "entries"), Ok(None));
        let folder = read_regular(&dir, 5, "entry", "entries");
        assert_eq!(folder, Err(format!("{}: not a regular file", dir.display())));
        #[cfg(unix)]
        {
            let link = dir.join("zero.json");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap_or_else(|e| panic!("{e}"));
            let err = read_regular(&link, 5, "entry", "entries").err().unwrap_or_default();
            assert!(err.ends_with("the entry is a symbolic link; entries are never read or written through links (replace it with a regular entry)"), "{err}");
            let dev = read_regular(Path::new("/dev/zero"), 5, "entry", "entries");
            assert_eq!(dev, Err("/dev/zero: not a regular file".into()));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
