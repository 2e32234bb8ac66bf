//! The loader's only window on the outside world.
//!
//! Library code never touches the process environment or the file system directly: the
//! CLI passes a host backed by both, tests pass [`MapHost`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// Why the host could not give a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// No such file.
    NotFound,
    /// A directory, FIFO, device or other non-regular file.
    NotAFile,
    /// Larger than the host accepts.
    TooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// Not UTF-8 text.
    NotText,
    /// Anything else (permissions, I/O errors), as text.
    Other(String),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::NotFound => f.write_str("no such file"),
            HostError::NotAFile => f.write_str("not a regular file"),
            HostError::TooLarge { limit } => write!(f, "larger than the {limit}-byte limit"),
            HostError::NotText => f.write_str("not UTF-8 text"),
            HostError::Other(s) => f.write_str(s),
        }
    }
}

/// File and environment access for the loader.
pub trait Host {
    /// The value of an environment variable; `None` when unset (an empty value is set).
    fn env(&self, name: &str) -> Option<String>;
    /// Resolves symlinks and `..` in `path`, as the file system sees it.
    fn canonicalize(&self, path: &Path) -> Result<PathBuf, HostError>;
    /// Reads a regular file's bytes.
    fn read(&self, path: &Path) -> Result<Vec<u8>, HostError>;
    /// The target of the symbolic link at `path`, as written; `None` when `path` is not a
    /// symbolic link (or the host has none).
    fn read_link(&self, _path: &Path) -> Option<PathBuf> {
        None
    }
    /// Reads a regular UTF-8 file.
    fn read_to_string(&self, path: &Path) -> Result<String, HostError> {
        String::from_utf8(self.read(path)?).map_err(|_| HostError::NotText)
    }
}

/// An in-memory host: environment variables and files from maps. Paths are normalized
/// lexically; there are no symlinks.
#[derive(Debug, Clone, Default)]
pub struct MapHost {
    /// Environment variables.
    pub env: BTreeMap<String, String>,
    /// Files by normalized absolute path.
    pub files: BTreeMap<PathBuf, String>,
}

impl MapHost {
    /// An empty host.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an environment variable.
    #[must_use]
    pub fn with_env(mut self, name: &str, value: &str) -> Self {
        self.env.insert(name.to_owned(), value.to_owned());
        self
    }

    /// Adds a file.
    #[must_use]
    pub fn with_file(mut self, path: impl AsRef<Path>, text: &str) -> Self {
        self.files.insert(normalize(path.as_ref()), text.to_owned());
        self
    }
}

impl Host for MapHost {
    fn env(&self, name: &str) -> Option<String> {
        self.env.get(name).cloned()
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, HostError> {
        Ok(normalize(path))
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, HostError> {
        self.files.get(&normalize(path)).map(|s| s.clone().into_bytes()).ok_or(HostError::NotFound)
    }
}

/// Lexical normalization: drops `.`, resolves `..` against the preceding component.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
