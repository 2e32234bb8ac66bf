//! `prompty-host`: the real file system and, when the embedder allows it, the process
//! environment, behind the loader's [`Host`] trait.
//!
//! The other library crates of the toolkit do no process I/O: everything they read from
//! the outside goes through a [`Host`]. This crate is that outside, for a program that
//! chooses it: the `prompty` command line tool, and an embedder who builds a [`StdHost`].
//!
//! ```no_run
//! use prompty_host::StdHost;
//! use prompty_syntax::{load_path, LoadOptions};
//!
//! // Files only (the prompt's folder, plus `shared/`); `${env:}` reads nothing.
//! let host = StdHost::new().root("shared");
//! let options = LoadOptions { allowed_roots: host.roots().to_vec(), ..LoadOptions::default() };
//! let loaded = load_path("prompts/chat.prompty".as_ref(), &host, &options)?;
//!
//! // The environment too, for `${env:OPENAI_API_KEY}` in `model.connection`.
//! let host = StdHost::new().allow_env(true);
//! # Ok::<(), prompty_syntax::Error>(())
//! ```
//!
//! What a [`StdHost`] guarantees:
//!
//! - It reads regular files only (not directories, FIFOs or devices), and none larger than
//!   [`MAX_FILE_BYTES`], even one that grows while it is read.
//! - `canonicalize` and `read_link` are the file system's, so the loader's confinement of
//!   `${file:}` references (the prompt's folder and the [roots](StdHost::root)) follows
//!   symbolic links as the file system does, and a link out of the roots is refused.
//! - It reads no environment variable unless told to ([`StdHost::allow_env`],
//!   [`StdHost::allow_env_var`]). A variable it does not read is unset for the loader. Every
//!   value it supplies is recorded by the loader as secret (`prompty_syntax::Secrets`) and
//!   never shown in a diagnostic.

#![warn(missing_docs)]

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

pub use prompty_syntax::{Host, HostError, MAX_FILE_BYTES};

/// Which environment variables a host reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum EnvAccess {
    /// None: every variable is unset.
    #[default]
    Closed,
    /// Only these.
    Only(BTreeSet<String>),
    /// All of them.
    Open,
}

/// The real file system, and the process environment when allowed. Built with
/// [`StdHost::new`] and its builder methods; cheap to clone, `Send + Sync`.
#[derive(Debug, Clone, Default)]
pub struct StdHost {
    env: EnvAccess,
    roots: Vec<PathBuf>,
}

impl StdHost {
    /// A host that reads files and no environment variable, with no root besides the
    /// prompt's own folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads every environment variable (`true`) or none (`false`, the default; this also
    /// forgets the names [`allow_env_var`](Self::allow_env_var) allowed).
    #[must_use]
    pub fn allow_env(mut self, allow: bool) -> Self {
        self.env = if allow { EnvAccess::Open } else { EnvAccess::Closed };
        self
    }

    /// Reads the environment variable `name` (and the others allowed so far). Has no effect
    /// when every variable is allowed already.
    #[must_use]
    pub fn allow_env_var(mut self, name: impl Into<String>) -> Self {
        match &mut self.env {
            EnvAccess::Open => {}
            EnvAccess::Only(names) => {
                names.insert(name.into());
            }
            EnvAccess::Closed => self.env = EnvAccess::Only(BTreeSet::from([name.into()])),
        }
        self
    }

    /// Adds a folder `${file:}` references may read from, besides the prompt's own folder.
    /// The loader takes roots from `LoadOptions::allowed_roots`: pass [`roots`](Self::roots)
    /// there (the `prompty-toolkit` facade does).
    #[must_use]
    pub fn root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.roots.push(dir.into());
        self
    }

    /// The folders added with [`root`](Self::root), in order.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Whether this host reads the environment variable `name`.
    pub fn reads_env(&self, name: &str) -> bool {
        match &self.env {
            EnvAccess::Closed => false,
            EnvAccess::Only(names) => names.contains(name),
            EnvAccess::Open => true,
        }
    }

    /// Whether this host reads every environment variable.
    pub fn reads_all_env(&self) -> bool {
        self.env == EnvAccess::Open
    }

    /// Whether this host reads any environment variable at all.
    pub fn reads_any_env(&self) -> bool {
        self.env != EnvAccess::Closed
    }
}

fn io_error(e: &std::io::Error) -> HostError {
    match e.kind() {
        std::io::ErrorKind::NotFound => HostError::NotFound,
        std::io::ErrorKind::PermissionDenied => HostError::Other("permission denied".to_owned()),
        _ => HostError::Other(e.to_string()),
    }
}

impl Host for StdHost {
    fn env(&self, name: &str) -> Option<String> {
        if !self.reads_env(name) {
            return None;
        }
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
