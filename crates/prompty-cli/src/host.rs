//! The real file system and process environment, behind the loader's host trait.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use prompty_syntax::{Host, HostError, MAX_FILE_BYTES};

/// Reads regular files only, up to the loader's size limit.
pub(crate) struct FsHost;

fn io_error(e: &std::io::Error) -> HostError {
    match e.kind() {
        std::io::ErrorKind::NotFound => HostError::NotFound,
        std::io::ErrorKind::PermissionDenied => HostError::Other("permission denied".to_owned()),
        _ => HostError::Other(e.to_string()),
    }
}

impl Host for FsHost {
    fn env(&self, name: &str) -> Option<String> {
        std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, HostError> {
        fs::canonicalize(path).map_err(|e| io_error(&e))
    }

    fn read_link(&self, path: &Path) -> Option<PathBuf> {
        fs::read_link(path).ok()
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, HostError> {
        let meta = fs::metadata(path).map_err(|e| io_error(&e))?;
        if !meta.is_file() {
            return Err(if meta.is_dir() {
                HostError::Other("is a directory".to_owned())
            } else {
                HostError::NotAFile
            });
        }
        let limit = MAX_FILE_BYTES as u64;
        if meta.len() > limit {
            return Err(HostError::TooLarge { limit });
        }
        let file = fs::File::open(path).map_err(|e| io_error(&e))?;
        let mut buf = Vec::with_capacity(meta.len() as usize);
        // Never read more than the limit, even if the file grows meanwhile.
        file.take(limit + 1).read_to_end(&mut buf).map_err(|e| io_error(&e))?;
        if buf.len() as u64 > limit {
            return Err(HostError::TooLarge { limit });
        }
        Ok(buf)
    }
}
