//! What a Language Server Protocol diagnostic says about a message. The language server
//! adds the range (in the position encoding it agreed with its client); the text, the
//! tags and the documentation link come from here, the same as every other form.

use prompty_syntax::Severity;

use crate::{Message, doc_url};

/// The `source` of every diagnostic.
pub const SOURCE: &str = "prompty";

/// A diagnostic tag of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// Unused or unnecessary code (shown faded).
    Unnecessary,
    /// Deprecated (shown struck through).
    Deprecated,
}

/// A diagnostic's parts, all but its range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    /// The protocol's severity: 1 error, 2 warning, 3 information.
    pub severity: u8,
    /// The code, e.g. `PL001`.
    pub code: &'static str,
    /// Where the code is documented, when the documentation is published.
    pub href: Option<String>,
    /// The message, its help and the title of its quick fix, one per line.
    pub message: String,
    /// Tags the editor shows.
    pub tags: Vec<Tag>,
}

/// The parts of `m`'s diagnostic, its link under the documentation folder `docs`.
pub fn parts(m: &Message, docs: &str) -> Parts {
    let d = &m.diagnostic;
    let mut message = m.text_with_help();
    if let Some(fix) = &m.fix {
        message.push_str("\nquick fix: ");
        message.push_str(&fix.title);
    }
    let tags = match d.code.id {
        "PL002" => vec![Tag::Unnecessary],
        "P030" => vec![Tag::Deprecated],
        _ => Vec::new(),
    };
    let severity = match d.severity {
        Severity::Error => 1,
        Severity::Warning => 2,
        Severity::Info => 3,
    };
    Parts { severity, code: d.code.id, href: doc_url(docs, d.code), message, tags }
}
