//! Limits for untrusted templates.

use std::io;

/// Bounds on one render. Each limit, when hit, is an [`ErrorKind::Limit`](crate::ErrorKind::Limit) error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// minijinja fuel: roughly the number of instructions a render may execute. The default,
    /// one million, is about a thousand times what an 8 KB judge prompt with loops needs.
    pub fuel: Option<u64>,
    /// Maximum template recursion depth (macros, includes, partials).
    pub recursion: usize,
    /// Maximum size of the rendered text, in bytes.
    pub max_output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { fuel: Some(1_000_000), recursion: 100, max_output: 32 * 1024 * 1024 }
    }
}

/// A writer that refuses to grow past a cap.
pub(crate) struct CappedWriter {
    pub(crate) buf: Vec<u8>,
    pub(crate) cap: usize,
    pub(crate) overflowed: bool,
}

impl CappedWriter {
    pub(crate) fn new(cap: usize, hint: usize) -> Self {
        Self { buf: Vec::with_capacity(hint.min(cap)), cap, overflowed: false }
    }
}

impl io::Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.len() + data.len() > self.cap {
            self.overflowed = true;
            return Err(io::Error::other("rendered output exceeds the size limit"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
