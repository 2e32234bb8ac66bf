//! `prompty-lsp`: a language server for `.prompty` files, from the toolkit's own crates.
//!
//! - **Diagnostics** on open and on every change (debounced, computed off the protocol
//!   thread): the loader's and the lint catalog's findings with the document's
//!   `prompty.toml` applied, exactly what `prompty check` reports; ranges in UTF-16 code
//!   units; each code links to its entry in `docs/rules.md` when the documentation is
//!   published (`docsUrl`, or a build with `PROMPTY_DOCS_URL`), and to nothing otherwise.
//! - **Hover** on inputs (template and front matter), role lines and front matter keys.
//! - **Completion** of input names and object properties in template tags, role words,
//!   front matter keys and values.
//! - **Go to definition** from a template name to its input, from `${file:x}` to the file.
//! - **Code actions**: every lint fix, "declare this input", fix all.
//! - **Outline**: document symbols (front matter sections, inputs, messages), folding ranges
//!   and semantic tokens (role lines, template tags, input references).
//! - **References and rename** of an input across the front matter and the template.
//! - **Preview**: the `prompty.render` command returns the rendered messages.
//! - **Inlay hints**: each message's token count beside its role line, and the request's
//!   beside the front matter's closing fence, for the prompt's model ([`hints`]).
//! - **Formatting**: what `prompty fmt` does ([`prompty_lint::fmt`]).
//!
//! The crate does no process I/O: [`run`] takes an [`lsp_server::Connection`] (the CLI
//! passes one made by [`transport::connect`] over stdio, which bounds and answers malformed
//! messages instead of ending the session; tests an in-memory pair) and reads files through the
//! [`Workspace`]'s [`Host`](prompty_syntax::Host). The protocol-independent pieces (positions,
//! hover, completion, definitions, actions, preview) are public modules working on byte
//! offsets of a [`Snapshot`].
//!
//! ```
//! use std::sync::Arc;
//! use prompty_lsp::{Analysis, Workspace};
//! use prompty_syntax::MapHost;
//!
//! let workspace = Workspace::new(Arc::new(MapHost::new()));
//! let text = "---\ninputs:\n  q: {kind: string}\n---\nuser:\n{{ q }} {{ topic }}";
//! let analysis = Analysis::new(&workspace, Arc::from(text), None);
//! let diagnostics = prompty_lsp::diagnostics::all(&analysis, prompty_lsp::diagnostics::DEFAULT_DOCS_URL);
//! assert_eq!(diagnostics[0].message.lines().next(), Some("`topic` is read by the template but no input declares it"));
//! assert_eq!(diagnostics[0].range.start, lsp_types::Position { line: 5, character: 11 });
//! ```

#![warn(missing_docs)]

pub mod actions;
mod analysis;
pub mod completion;
pub mod cursor;
pub mod definition;
pub mod diagnostics;
pub mod hints;
pub mod hover;
pub mod position;
pub mod preview;
pub mod references;
pub mod schema;
mod server;
pub mod symbols;
pub mod transport;
pub mod uri;

pub use analysis::{Analysis, Snapshot, Workspace};
pub use server::{Options, capabilities, changed_region, run};

/// The server could not run: the connection failed during the handshake or shutdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub(crate) String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}
