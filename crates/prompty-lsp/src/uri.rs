//! `file:` URIs <-> paths. Other schemes (`untitled:`, ...) have no path: such documents are
//! checked without a folder (no `prompty.toml`, `${file:}` references unresolved).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};

/// What a path segment keeps unencoded: unreserved characters and a few sub-delimiters,
/// as editors write them.
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The path of a `file:` URI (`file:///a/b%20c.prompty` -> `/a/b c.prompty`).
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://").or_else(|| s.strip_prefix("FILE://"))?;
    // `file://host/path`: only the local host names a local file.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(i) if rest.get(..i).is_some_and(|h| h.eq_ignore_ascii_case("localhost")) => rest.get(i..)?,
        _ => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes: Vec<u8> = percent_decode_str(path).collect();
    bytes_to_path(bytes)
}

#[cfg(unix)]
fn bytes_to_path(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn bytes_to_path(bytes: Vec<u8>) -> Option<PathBuf> {
    let s = String::from_utf8(bytes).ok()?;
    // `/C:/x` -> `C:/x`.
    let s = match s.strip_prefix('/') {
        Some(rest) if rest.get(1..2) == Some(":") => rest.to_owned(),
        _ => s,
    };
    Some(PathBuf::from(s))
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    let text = text.replace('\\', "/");
    let slash = if text.starts_with('/') { "" } else { "/" };
    let encoded: String =
        text.split('/').map(|seg| utf8_percent_encode(seg, PATH).to_string()).collect::<Vec<_>>().join("/");
    Uri::from_str(&format!("file://{slash}{encoded}")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        Uri::from_str(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn decodes_and_encodes() {
        let u = uri("file:///tmp/a%20b/%C3%B1and%C3%BA%23%25.prompty");
        assert_eq!(to_path(&u), Some(PathBuf::from("/tmp/a b/ñandú#%.prompty")));
        let back = from_path(Path::new("/tmp/a b/ñandú#%.prompty")).map(|u| u.as_str().to_owned());
        assert_eq!(back.as_deref(), Some("file:///tmp/a%20b/%C3%B1and%C3%BA%23%25.prompty"));
        assert_eq!(to_path(&uri("file://localhost/x.prompty")), Some(PathBuf::from("/x.prompty")));
        assert_eq!(to_path(&uri("untitled:Untitled-1")), None);
        assert_eq!(to_path(&uri("file://server/share/x.prompty")), None);
    }
}
