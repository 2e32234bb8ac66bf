//! Python `repr()` of strings and bytes: the quote Python picks and its escapes.

use std::fmt::{self, Write};

use super::is_printable;

/// Python `repr()` of a string.
pub fn repr_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    let _ = write_repr_str(&mut out, s);
    out
}

/// Writes Python `repr()` of a string.
///
/// The quote is `'` unless the string contains `'` and no `"`, then `"`. Escaped are the
/// backslash, the chosen quote, `\n`, `\r`, `\t`, other ASCII control characters and DEL as
/// `\xNN`, and non-ASCII characters that are not printable (see [`is_printable`]) as `\xNN`
/// (below U+0100), `\uNNNN` (BMP) or `\UNNNNNNNN`. Everything else is kept as is.
pub fn write_repr_str<W: Write + ?Sized>(out: &mut W, s: &str) -> fmt::Result {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    out.write_char(quote)?;
    let mut start = 0usize;
    for (i, c) in s.char_indices() {
        let escape = match c {
            '\\' | '\n' | '\r' | '\t' => true,
            c if c == quote => true,
            c if c < '\x7f' => c < ' ',
            c => !is_printable(c),
        };
        if !escape {
            continue;
        }
        out.write_str(s.get(start..i).unwrap_or_default())?;
        match c {
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            '\'' => out.write_str("\\'")?,
            '"' => out.write_str("\\\"")?,
            c => {
                let cp = u32::from(c);
                if cp < 0x100 {
                    write!(out, "\\x{cp:02x}")?;
                } else if cp < 0x1_0000 {
                    write!(out, "\\u{cp:04x}")?;
                } else {
                    write!(out, "\\U{cp:08x}")?;
                }
            }
        }
        start = i + c.len_utf8();
    }
    out.write_str(s.get(start..).unwrap_or_default())?;
    out.write_char(quote)
}

/// Python `repr()` of a byte string.
pub fn repr_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 3);
    let _ = write_repr_bytes(&mut out, b);
    out
}

/// Writes Python `repr()` of a byte string: `b'...'` (or `b"..."` when the bytes contain
/// `'` and no `"`), with `\\`, the quote, `\t`, `\n`, `\r` escaped and every byte outside
/// `0x20..=0x7e` as `\xNN`.
pub fn write_repr_bytes<W: Write + ?Sized>(out: &mut W, b: &[u8]) -> fmt::Result {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') { b'"' } else { b'\'' };
    out.write_char('b')?;
    out.write_char(char::from(quote))?;
    for &byte in b {
        match byte {
            b'\\' => out.write_str("\\\\")?,
            b'\t' => out.write_str("\\t")?,
            b'\n' => out.write_str("\\n")?,
            b'\r' => out.write_str("\\r")?,
            q if q == quote => {
                out.write_char('\\')?;
                out.write_char(char::from(q))?;
            }
            0x20..=0x7e => out.write_char(char::from(byte))?,
            _ => write!(out, "\\x{byte:02x}")?,
        }
    }
    out.write_char(char::from(quote))
}
