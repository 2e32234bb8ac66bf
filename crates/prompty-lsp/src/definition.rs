//! Go to definition: from a name in the template to the input that declares it, and from a
//! `${file:path}` reference to the file.

use std::ops::Range;
use std::path::PathBuf;

use prompty_syntax::Host;

use crate::analysis::Snapshot;
use crate::cursor;
use crate::schema::Step;

/// Where a definition is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A byte range of the same document.
    Here(Range<usize>),
    /// A file (the reference's target, canonicalized by the host).
    File(PathBuf),
}

/// The definition of what is at byte `offset`.
pub fn definition(s: &Snapshot, host: &dyn Host, offset: usize) -> Option<Target> {
    if s.in_front_matter(offset) {
        return file_reference(s, host, offset);
    }
    if !s.in_body(offset) || cursor::tag_at(&s.text, s.body_span.start, offset).is_none() {
        return None;
    }
    let (segments, _) = cursor::dotted_at(&s.text, offset)?;
    let root = segments.first()?;
    if let Some((_, span, _)) = s.input_nodes().into_iter().find(|(n, _, _)| n == root) {
        return Some(Target::Here(span));
    }
    if let Some((_, span)) = s.sample_nodes().into_iter().find(|(n, _)| n == root) {
        return Some(Target::Here(span));
    }
    // Inputs that came from a `${file:}` reference point at it.
    let p = s.prompt()?.input(root)?;
    Some(Target::Here(p.span.clone()))
}

/// `${file:path}` under the cursor: the file, relative to the document's folder.
fn file_reference(s: &Snapshot, host: &dyn Host, offset: usize) -> Option<Target> {
    let front = s.front()?;
    let mut path: Vec<Step> = Vec::new();
    let (node, is_key) = cursor::node_at(front, offset, &mut path)?;
    if is_key {
        return None;
    }
    let reference = prompty_syntax::parse_reference(node.as_str()?.trim())?;
    if !reference.protocol.eq_ignore_ascii_case("file") {
        return None;
    }
    let dir = s.path.as_deref()?.parent()?;
    let target = host.canonicalize(&dir.join(reference.value.trim())).ok()?;
    Some(Target::File(target))
}
