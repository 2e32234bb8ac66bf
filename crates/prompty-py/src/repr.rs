//! Python `str()` and `repr()` of JSON values, floats, strings and bytes.
//!
//! The reference renderers (Python Jinja2 without autoescaping) turn the value of every
//! `{{ expr }}` into text with `str()`, and the evaluators of azure-ai-evaluation print
//! values the same way. For the values that reach a `.prompty` template that means:
//!
//! * a string is written as is;
//! * `None`, `True`, `False`;
//! * integers in decimal;
//! * floats by Python's `repr` (shortest round-trip digits, `3.0`, `1e-05`, `1e+16`, `inf`, `nan`);
//! * lists and dicts by their Python `repr`: `[1, 'a']`, `{'a': None}`, strings inside quoted
//!   and escaped as Python does.
//!
//! prompty-render applies the same rules to template values (`prompty_render::pyrepr`).
//!
//! # Exactness
//!
//! Python's string repr keeps a character as is when `str.isprintable()` holds for it and
//! escapes it otherwise. That predicate comes from the Unicode database of the Python build.
//! [`is_printable`] uses a table taken from Python 3.11 (Unicode 14.0.0) and is exact for
//! that version. A character assigned in a later Unicode version (and so printable for a
//! newer Python) is escaped here as `\uNNNN`/`\UNNNNNNNN`.
//!
//! Deeply nested containers (more than [`MAX_DEPTH`] levels) are cut off and written as
//! `[...]` / `{...}`, where Python would raise `RecursionError` (or print `[...]` for a
//! self-referencing list).
//!
//! [`str_json`] prints the numbers serde_json produced. A JSON integer outside the i64/u64
//! range and the integer `-0` arrive as floats, so they print as floats (Python's `json`
//! keeps them integers), and without serde_json's `float_roundtrip` feature some decimal
//! floats arrive one unit in the last place off.

use std::fmt::{self, Write};

/// Containers nested deeper than this many levels are written as `[...]`, `{...}` or `(...)`.
pub const MAX_DEPTH: usize = 256;

/// The Unicode version of the table behind [`is_printable`] (that of Python 3.11).
pub const UNICODE_VERSION: &str = "14.0.0";

/// Python's `str.isspace()` for one character: Unicode whitespace plus the ASCII
/// separators 0x1C-0x1F.
pub fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` without arguments.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_space)
}

// ---------------------------------------------------------------------------------------------
// serde_json values
// ---------------------------------------------------------------------------------------------

/// Python `str()` of a JSON value: a string is itself, anything else is its [`repr_json`].
pub fn str_json(v: &serde_json::Value) -> String {
    let mut s = String::new();
    // Writing into a `String` does not fail.
    let _ = write_str_json(&mut s, v);
    s
}

/// Python `repr()` of a JSON value (`null` is `None`, arrays are lists, objects are dicts).
pub fn repr_json(v: &serde_json::Value) -> String {
    let mut s = String::new();
    let _ = write_repr_json(&mut s, v);
    s
}

/// Writes Python `str()` of a JSON value into `out`.
pub fn write_str_json<W: Write + ?Sized>(out: &mut W, v: &serde_json::Value) -> fmt::Result {
    match v {
        serde_json::Value::String(s) => out.write_str(s),
        _ => json_repr(out, v, 0),
    }
}

/// Writes Python `repr()` of a JSON value into `out`.
pub fn write_repr_json<W: Write + ?Sized>(out: &mut W, v: &serde_json::Value) -> fmt::Result {
    json_repr(out, v, 0)
}

fn json_repr<W: Write + ?Sized>(out: &mut W, v: &serde_json::Value, depth: usize) -> fmt::Result {
    use serde_json::Value as J;
    match v {
        J::Null => out.write_str("None"),
        J::Bool(b) => out.write_str(py_bool(*b)),
        J::Number(n) => write_json_number(out, n),
        J::String(s) => write_repr_str(out, s),
        J::Array(items) => {
            if depth >= MAX_DEPTH {
                return out.write_str("[...]");
            }
            out.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                json_repr(out, item, depth + 1)?;
            }
            out.write_char(']')
        }
        J::Object(map) => {
            if depth >= MAX_DEPTH {
                return out.write_str("{...}");
            }
            out.write_char('{')?;
            for (i, (key, value)) in map.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write_repr_str(out, key)?;
                out.write_str(": ")?;
                json_repr(out, value, depth + 1)?;
            }
            out.write_char('}')
        }
    }
}

/// A JSON integer is a Python `int`, any other number a Python `float`.
fn write_json_number<W: Write + ?Sized>(out: &mut W, n: &serde_json::Number) -> fmt::Result {
    if let Some(i) = n.as_i64() {
        write!(out, "{i}")
    } else if let Some(u) = n.as_u64() {
        write!(out, "{u}")
    } else if let Some(f) = n.as_f64() {
        write_repr_float(out, f)
    } else {
        write!(out, "{n}")
    }
}

/// Python's `str()` of a bool: `True` or `False`.
pub fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

// ---------------------------------------------------------------------------------------------
// scalars
// ---------------------------------------------------------------------------------------------

/// Python `repr()` of a float (identical to `str()` for floats).
pub fn repr_float(x: f64) -> String {
    let mut s = String::new();
    let _ = write_repr_float(&mut s, x);
    s
}

/// Writes Python `repr()` of a float: the shortest digits that round-trip, in positional
/// notation when the decimal exponent is in `[-4, 16)` (with `.0` added to integral values)
/// and as `d[.ddd]e±XX` otherwise; `inf`, `-inf`, `nan`, `-0.0`.
pub fn write_repr_float<W: Write + ?Sized>(out: &mut W, x: f64) -> fmt::Result {
    if x.is_nan() {
        return out.write_str("nan");
    }
    if x.is_sign_negative() {
        out.write_char('-')?;
    }
    let a = x.abs();
    if a.is_infinite() {
        return out.write_str("inf");
    }
    if a == 0.0 {
        return out.write_str("0.0");
    }
    // `{:e}` gives the shortest round-trip digits as `d[.ddd]e[-]N`.
    let mut sci = AsciiBuf::new();
    write!(sci, "{a:e}")?;
    let sci = sci.as_bytes();
    let e_pos = sci.iter().position(|&b| b == b'e').ok_or(fmt::Error)?;
    let (mantissa, exponent) = sci.split_at(e_pos);
    let exp = parse_exponent(exponent.get(1..).unwrap_or_default()).ok_or(fmt::Error)?;
    let mut digit_buf = [b'0'; 32];
    let mut n = 0usize;
    for (slot, &b) in digit_buf.iter_mut().zip(mantissa.iter().filter(|b| b.is_ascii_digit())) {
        *slot = b;
        n += 1;
    }
    let digits = digit_buf.get(..n).ok_or(fmt::Error)?;
    if n == 0 {
        return Err(fmt::Error);
    }

    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = usize::try_from(exp).map_err(|_| fmt::Error)? + 1;
            if n <= int_len {
                write_ascii(out, digits)?;
                write_zeros(out, int_len - n)?;
                out.write_str(".0")
            } else {
                let (int_part, frac_part) = digits.split_at(int_len);
                write_ascii(out, int_part)?;
                out.write_char('.')?;
                write_ascii(out, frac_part)
            }
        } else {
            out.write_str("0.")?;
            write_zeros(out, usize::try_from(-exp - 1).map_err(|_| fmt::Error)?)?;
            write_ascii(out, digits)
        }
    } else {
        let (first, rest) = digits.split_at(1);
        write_ascii(out, first)?;
        if !rest.is_empty() {
            out.write_char('.')?;
            write_ascii(out, rest)?;
        }
        let sign = if exp < 0 { '-' } else { '+' };
        write!(out, "e{sign}{:02}", exp.unsigned_abs())
    }
}

fn parse_exponent(s: &[u8]) -> Option<i32> {
    let (neg, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i32 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i32::from(d - b'0'))?;
    }
    Some(if neg { -v } else { v })
}

fn write_ascii<W: Write + ?Sized>(out: &mut W, bytes: &[u8]) -> fmt::Result {
    out.write_str(std::str::from_utf8(bytes).map_err(|_| fmt::Error)?)
}

fn write_zeros<W: Write + ?Sized>(out: &mut W, mut n: usize) -> fmt::Result {
    const ZEROS: &str = "0000000000000000";
    while n > 0 {
        let k = n.min(ZEROS.len());
        out.write_str(ZEROS.get(..k).unwrap_or_default())?;
        n -= k;
    }
    Ok(())
}

/// A fixed-capacity ASCII buffer, so that float formatting does not allocate.
struct AsciiBuf {
    buf: [u8; 40],
    len: usize,
}

impl AsciiBuf {
    fn new() -> Self {
        AsciiBuf { buf: [0; 40], len: 0 }
    }

    fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }
}

impl Write for AsciiBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        let dst = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

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

// ---------------------------------------------------------------------------------------------
// printable characters
// ---------------------------------------------------------------------------------------------

/// Python's `str.isprintable()` for one character (Python 3.11, Unicode 14.0.0).
///
/// False for the general categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs, except the ASCII
/// space, which is printable.
pub fn is_printable(c: char) -> bool {
    let cp = u32::from(c);
    if cp < 0x7f {
        return cp >= 0x20;
    }
    NON_PRINTABLE_BOUNDS.partition_point(|&b| b <= cp) % 2 == 0
}

// Sorted boundaries of the non-printable code points: `[b0, b1)`, `[b2, b3)`, ... are the
// half-open ranges for which Python 3.11's `str.isprintable()` is false. A code point is
// non-printable when an odd number of boundaries is <= it. Printed by
// `crates/prompty-test-support/data/pyrepr/gen.py --table`.
const NON_PRINTABLE_BOUNDS: [u32; 1402] = [
    0x00000, 0x00020, 0x0007F, 0x000A1, 0x000AD, 0x000AE, 0x00378, 0x0037A, 0x00380, 0x00384, 0x0038B, 0x0038C,
    0x0038D, 0x0038E, 0x003A2, 0x003A3, 0x00530, 0x00531, 0x00557, 0x00559, 0x0058B, 0x0058D, 0x00590, 0x00591,
    0x005C8, 0x005D0, 0x005EB, 0x005EF, 0x005F5, 0x00606, 0x0061C, 0x0061D, 0x006DD, 0x006DE, 0x0070E, 0x00710,
    0x0074B, 0x0074D, 0x007B2, 0x007C0, 0x007FB, 0x007FD, 0x0082E, 0x00830, 0x0083F, 0x00840, 0x0085C, 0x0085E,
    0x0085F, 0x00860, 0x0086B, 0x00870, 0x0088F, 0x00898, 0x008E2, 0x008E3, 0x00984, 0x00985, 0x0098D, 0x0098F,
    0x00991, 0x00993, 0x009A9, 0x009AA, 0x009B1, 0x009B2, 0x009B3, 0x009B6, 0x009BA, 0x009BC, 0x009C5, 0x009C7,
    0x009C9, 0x009CB, 0x009CF, 0x009D7, 0x009D8, 0x009DC, 0x009DE, 0x009DF, 0x009E4, 0x009E6, 0x009FF, 0x00A01,
    0x00A04, 0x00A05, 0x00A0B, 0x00A0F, 0x00A11, 0x00A13, 0x00A29, 0x00A2A, 0x00A31, 0x00A32, 0x00A34, 0x00A35,
    0x00A37, 0x00A38, 0x00A3A, 0x00A3C, 0x00A3D, 0x00A3E, 0x00A43, 0x00A47, 0x00A49, 0x00A4B, 0x00A4E, 0x00A51,
    0x00A52, 0x00A59, 0x00A5D, 0x00A5E, 0x00A5F, 0x00A66, 0x00A77, 0x00A81, 0x00A84, 0x00A85, 0x00A8E, 0x00A8F,
    0x00A92, 0x00A93, 0x00AA9, 0x00AAA, 0x00AB1, 0x00AB2, 0x00AB4, 0x00AB5, 0x00ABA, 0x00ABC, 0x00AC6, 0x00AC7,
    0x00ACA, 0x00ACB, 0x00ACE, 0x00AD0, 0x00AD1, 0x00AE0, 0x00AE4, 0x00AE6, 0x00AF2, 0x00AF9, 0x00B00, 0x00B01,
    0x00B04, 0x00B05, 0x00B0D, 0x00B0F, 0x00B11, 0x00B13, 0x00B29, 0x00B2A, 0x00B31, 0x00B32, 0x00B34, 0x00B35,
    0x00B3A, 0x00B3C, 0x00B45, 0x00B47, 0x00B49, 0x00B4B, 0x00B4E, 0x00B55, 0x00B58, 0x00B5C, 0x00B5E, 0x00B5F,
    0x00B64, 0x00B66, 0x00B78, 0x00B82, 0x00B84, 0x00B85, 0x00B8B, 0x00B8E, 0x00B91, 0x00B92, 0x00B96, 0x00B99,
    0x00B9B, 0x00B9C, 0x00B9D, 0x00B9E, 0x00BA0, 0x00BA3, 0x00BA5, 0x00BA8, 0x00BAB, 0x00BAE, 0x00BBA, 0x00BBE,
    0x00BC3, 0x00BC6, 0x00BC9, 0x00BCA, 0x00BCE, 0x00BD0, 0x00BD1, 0x00BD7, 0x00BD8, 0x00BE6, 0x00BFB, 0x00C00,
    0x00C0D, 0x00C0E, 0x00C11, 0x00C12, 0x00C29, 0x00C2A, 0x00C3A, 0x00C3C, 0x00C45, 0x00C46, 0x00C49, 0x00C4A,
    0x00C4E, 0x00C55, 0x00C57, 0x00C58, 0x00C5B, 0x00C5D, 0x00C5E, 0x00C60, 0x00C64, 0x00C66, 0x00C70, 0x00C77,
    0x00C8D, 0x00C8E, 0x00C91, 0x00C92, 0x00CA9, 0x00CAA, 0x00CB4, 0x00CB5, 0x00CBA, 0x00CBC, 0x00CC5, 0x00CC6,
    0x00CC9, 0x00CCA, 0x00CCE, 0x00CD5, 0x00CD7, 0x00CDD, 0x00CDF, 0x00CE0, 0x00CE4, 0x00CE6, 0x00CF0, 0x00CF1,
    0x00CF3, 0x00D00, 0x00D0D, 0x00D0E, 0x00D11, 0x00D12, 0x00D45, 0x00D46, 0x00D49, 0x00D4A, 0x00D50, 0x00D54,
    0x00D64, 0x00D66, 0x00D80, 0x00D81, 0x00D84, 0x00D85, 0x00D97, 0x00D9A, 0x00DB2, 0x00DB3, 0x00DBC, 0x00DBD,
    0x00DBE, 0x00DC0, 0x00DC7, 0x00DCA, 0x00DCB, 0x00DCF, 0x00DD5, 0x00DD6, 0x00DD7, 0x00DD8, 0x00DE0, 0x00DE6,
    0x00DF0, 0x00DF2, 0x00DF5, 0x00E01, 0x00E3B, 0x00E3F, 0x00E5C, 0x00E81, 0x00E83, 0x00E84, 0x00E85, 0x00E86,
    0x00E8B, 0x00E8C, 0x00EA4, 0x00EA5, 0x00EA6, 0x00EA7, 0x00EBE, 0x00EC0, 0x00EC5, 0x00EC6, 0x00EC7, 0x00EC8,
    0x00ECE, 0x00ED0, 0x00EDA, 0x00EDC, 0x00EE0, 0x00F00, 0x00F48, 0x00F49, 0x00F6D, 0x00F71, 0x00F98, 0x00F99,
    0x00FBD, 0x00FBE, 0x00FCD, 0x00FCE, 0x00FDB, 0x01000, 0x010C6, 0x010C7, 0x010C8, 0x010CD, 0x010CE, 0x010D0,
    0x01249, 0x0124A, 0x0124E, 0x01250, 0x01257, 0x01258, 0x01259, 0x0125A, 0x0125E, 0x01260, 0x01289, 0x0128A,
    0x0128E, 0x01290, 0x012B1, 0x012B2, 0x012B6, 0x012B8, 0x012BF, 0x012C0, 0x012C1, 0x012C2, 0x012C6, 0x012C8,
    0x012D7, 0x012D8, 0x01311, 0x01312, 0x01316, 0x01318, 0x0135B, 0x0135D, 0x0137D, 0x01380, 0x0139A, 0x013A0,
    0x013F6, 0x013F8, 0x013FE, 0x01400, 0x01680, 0x01681, 0x0169D, 0x016A0, 0x016F9, 0x01700, 0x01716, 0x0171F,
    0x01737, 0x01740, 0x01754, 0x01760, 0x0176D, 0x0176E, 0x01771, 0x01772, 0x01774, 0x01780, 0x017DE, 0x017E0,
    0x017EA, 0x017F0, 0x017FA, 0x01800, 0x0180E, 0x0180F, 0x0181A, 0x01820, 0x01879, 0x01880, 0x018AB, 0x018B0,
    0x018F6, 0x01900, 0x0191F, 0x01920, 0x0192C, 0x01930, 0x0193C, 0x01940, 0x01941, 0x01944, 0x0196E, 0x01970,
    0x01975, 0x01980, 0x019AC, 0x019B0, 0x019CA, 0x019D0, 0x019DB, 0x019DE, 0x01A1C, 0x01A1E, 0x01A5F, 0x01A60,
    0x01A7D, 0x01A7F, 0x01A8A, 0x01A90, 0x01A9A, 0x01AA0, 0x01AAE, 0x01AB0, 0x01ACF, 0x01B00, 0x01B4D, 0x01B50,
    0x01B7F, 0x01B80, 0x01BF4, 0x01BFC, 0x01C38, 0x01C3B, 0x01C4A, 0x01C4D, 0x01C89, 0x01C90, 0x01CBB, 0x01CBD,
    0x01CC8, 0x01CD0, 0x01CFB, 0x01D00, 0x01F16, 0x01F18, 0x01F1E, 0x01F20, 0x01F46, 0x01F48, 0x01F4E, 0x01F50,
    0x01F58, 0x01F59, 0x01F5A, 0x01F5B, 0x01F5C, 0x01F5D, 0x01F5E, 0x01F5F, 0x01F7E, 0x01F80, 0x01FB5, 0x01FB6,
    0x01FC5, 0x01FC6, 0x01FD4, 0x01FD6, 0x01FDC, 0x01FDD, 0x01FF0, 0x01FF2, 0x01FF5, 0x01FF6, 0x01FFF, 0x02010,
    0x02028, 0x02030, 0x0205F, 0x02070, 0x02072, 0x02074, 0x0208F, 0x02090, 0x0209D, 0x020A0, 0x020C1, 0x020D0,
    0x020F1, 0x02100, 0x0218C, 0x02190, 0x02427, 0x02440, 0x0244B, 0x02460, 0x02B74, 0x02B76, 0x02B96, 0x02B97,
    0x02CF4, 0x02CF9, 0x02D26, 0x02D27, 0x02D28, 0x02D2D, 0x02D2E, 0x02D30, 0x02D68, 0x02D6F, 0x02D71, 0x02D7F,
    0x02D97, 0x02DA0, 0x02DA7, 0x02DA8, 0x02DAF, 0x02DB0, 0x02DB7, 0x02DB8, 0x02DBF, 0x02DC0, 0x02DC7, 0x02DC8,
    0x02DCF, 0x02DD0, 0x02DD7, 0x02DD8, 0x02DDF, 0x02DE0, 0x02E5E, 0x02E80, 0x02E9A, 0x02E9B, 0x02EF4, 0x02F00,
    0x02FD6, 0x02FF0, 0x02FFC, 0x03001, 0x03040, 0x03041, 0x03097, 0x03099, 0x03100, 0x03105, 0x03130, 0x03131,
    0x0318F, 0x03190, 0x031E4, 0x031F0, 0x0321F, 0x03220, 0x0A48D, 0x0A490, 0x0A4C7, 0x0A4D0, 0x0A62C, 0x0A640,
    0x0A6F8, 0x0A700, 0x0A7CB, 0x0A7D0, 0x0A7D2, 0x0A7D3, 0x0A7D4, 0x0A7D5, 0x0A7DA, 0x0A7F2, 0x0A82D, 0x0A830,
    0x0A83A, 0x0A840, 0x0A878, 0x0A880, 0x0A8C6, 0x0A8CE, 0x0A8DA, 0x0A8E0, 0x0A954, 0x0A95F, 0x0A97D, 0x0A980,
    0x0A9CE, 0x0A9CF, 0x0A9DA, 0x0A9DE, 0x0A9FF, 0x0AA00, 0x0AA37, 0x0AA40, 0x0AA4E, 0x0AA50, 0x0AA5A, 0x0AA5C,
    0x0AAC3, 0x0AADB, 0x0AAF7, 0x0AB01, 0x0AB07, 0x0AB09, 0x0AB0F, 0x0AB11, 0x0AB17, 0x0AB20, 0x0AB27, 0x0AB28,
    0x0AB2F, 0x0AB30, 0x0AB6C, 0x0AB70, 0x0ABEE, 0x0ABF0, 0x0ABFA, 0x0AC00, 0x0D7A4, 0x0D7B0, 0x0D7C7, 0x0D7CB,
    0x0D7FC, 0x0F900, 0x0FA6E, 0x0FA70, 0x0FADA, 0x0FB00, 0x0FB07, 0x0FB13, 0x0FB18, 0x0FB1D, 0x0FB37, 0x0FB38,
    0x0FB3D, 0x0FB3E, 0x0FB3F, 0x0FB40, 0x0FB42, 0x0FB43, 0x0FB45, 0x0FB46, 0x0FBC3, 0x0FBD3, 0x0FD90, 0x0FD92,
    0x0FDC8, 0x0FDCF, 0x0FDD0, 0x0FDF0, 0x0FE1A, 0x0FE20, 0x0FE53, 0x0FE54, 0x0FE67, 0x0FE68, 0x0FE6C, 0x0FE70,
    0x0FE75, 0x0FE76, 0x0FEFD, 0x0FF01, 0x0FFBF, 0x0FFC2, 0x0FFC8, 0x0FFCA, 0x0FFD0, 0x0FFD2, 0x0FFD8, 0x0FFDA,
    0x0FFDD, 0x0FFE0, 0x0FFE7, 0x0FFE8, 0x0FFEF, 0x0FFFC, 0x0FFFE, 0x10000, 0x1000C, 0x1000D, 0x10027, 0x10028,
    0x1003B, 0x1003C, 0x1003E, 0x1003F, 0x1004E, 0x10050, 0x1005E, 0x10080, 0x100FB, 0x10100, 0x10103, 0x10107,
    0x10134, 0x10137, 0x1018F, 0x10190, 0x1019D, 0x101A0, 0x101A1, 0x101D0, 0x101FE, 0x10280, 0x1029D, 0x102A0,
    0x102D1, 0x102E0, 0x102FC, 0x10300, 0x10324, 0x1032D, 0x1034B, 0x10350, 0x1037B, 0x10380, 0x1039E, 0x1039F,
    0x103C4, 0x103C8, 0x103D6, 0x10400, 0x1049E, 0x104A0, 0x104AA, 0x104B0, 0x104D4, 0x104D8, 0x104FC, 0x10500,
    0x10528, 0x10530, 0x10564, 0x1056F, 0x1057B, 0x1057C, 0x1058B, 0x1058C, 0x10593, 0x10594, 0x10596, 0x10597,
    0x105A2, 0x105A3, 0x105B2, 0x105B3, 0x105BA, 0x105BB, 0x105BD, 0x10600, 0x10737, 0x10740, 0x10756, 0x10760,
    0x10768, 0x10780, 0x10786, 0x10787, 0x107B1, 0x107B2, 0x107BB, 0x10800, 0x10806, 0x10808, 0x10809, 0x1080A,
    0x10836, 0x10837, 0x10839, 0x1083C, 0x1083D, 0x1083F, 0x10856, 0x10857, 0x1089F, 0x108A7, 0x108B0, 0x108E0,
    0x108F3, 0x108F4, 0x108F6, 0x108FB, 0x1091C, 0x1091F, 0x1093A, 0x1093F, 0x10940, 0x10980, 0x109B8, 0x109BC,
    0x109D0, 0x109D2, 0x10A04, 0x10A05, 0x10A07, 0x10A0C, 0x10A14, 0x10A15, 0x10A18, 0x10A19, 0x10A36, 0x10A38,
    0x10A3B, 0x10A3F, 0x10A49, 0x10A50, 0x10A59, 0x10A60, 0x10AA0, 0x10AC0, 0x10AE7, 0x10AEB, 0x10AF7, 0x10B00,
    0x10B36, 0x10B39, 0x10B56, 0x10B58, 0x10B73, 0x10B78, 0x10B92, 0x10B99, 0x10B9D, 0x10BA9, 0x10BB0, 0x10C00,
    0x10C49, 0x10C80, 0x10CB3, 0x10CC0, 0x10CF3, 0x10CFA, 0x10D28, 0x10D30, 0x10D3A, 0x10E60, 0x10E7F, 0x10E80,
    0x10EAA, 0x10EAB, 0x10EAE, 0x10EB0, 0x10EB2, 0x10F00, 0x10F28, 0x10F30, 0x10F5A, 0x10F70, 0x10F8A, 0x10FB0,
    0x10FCC, 0x10FE0, 0x10FF7, 0x11000, 0x1104E, 0x11052, 0x11076, 0x1107F, 0x110BD, 0x110BE, 0x110C3, 0x110D0,
    0x110E9, 0x110F0, 0x110FA, 0x11100, 0x11135, 0x11136, 0x11148, 0x11150, 0x11177, 0x11180, 0x111E0, 0x111E1,
    0x111F5, 0x11200, 0x11212, 0x11213, 0x1123F, 0x11280, 0x11287, 0x11288, 0x11289, 0x1128A, 0x1128E, 0x1128F,
    0x1129E, 0x1129F, 0x112AA, 0x112B0, 0x112EB, 0x112F0, 0x112FA, 0x11300, 0x11304, 0x11305, 0x1130D, 0x1130F,
    0x11311, 0x11313, 0x11329, 0x1132A, 0x11331, 0x11332, 0x11334, 0x11335, 0x1133A, 0x1133B, 0x11345, 0x11347,
    0x11349, 0x1134B, 0x1134E, 0x11350, 0x11351, 0x11357, 0x11358, 0x1135D, 0x11364, 0x11366, 0x1136D, 0x11370,
    0x11375, 0x11400, 0x1145C, 0x1145D, 0x11462, 0x11480, 0x114C8, 0x114D0, 0x114DA, 0x11580, 0x115B6, 0x115B8,
    0x115DE, 0x11600, 0x11645, 0x11650, 0x1165A, 0x11660, 0x1166D, 0x11680, 0x116BA, 0x116C0, 0x116CA, 0x11700,
    0x1171B, 0x1171D, 0x1172C, 0x11730, 0x11747, 0x11800, 0x1183C, 0x118A0, 0x118F3, 0x118FF, 0x11907, 0x11909,
    0x1190A, 0x1190C, 0x11914, 0x11915, 0x11917, 0x11918, 0x11936, 0x11937, 0x11939, 0x1193B, 0x11947, 0x11950,
    0x1195A, 0x119A0, 0x119A8, 0x119AA, 0x119D8, 0x119DA, 0x119E5, 0x11A00, 0x11A48, 0x11A50, 0x11AA3, 0x11AB0,
    0x11AF9, 0x11C00, 0x11C09, 0x11C0A, 0x11C37, 0x11C38, 0x11C46, 0x11C50, 0x11C6D, 0x11C70, 0x11C90, 0x11C92,
    0x11CA8, 0x11CA9, 0x11CB7, 0x11D00, 0x11D07, 0x11D08, 0x11D0A, 0x11D0B, 0x11D37, 0x11D3A, 0x11D3B, 0x11D3C,
    0x11D3E, 0x11D3F, 0x11D48, 0x11D50, 0x11D5A, 0x11D60, 0x11D66, 0x11D67, 0x11D69, 0x11D6A, 0x11D8F, 0x11D90,
    0x11D92, 0x11D93, 0x11D99, 0x11DA0, 0x11DAA, 0x11EE0, 0x11EF9, 0x11FB0, 0x11FB1, 0x11FC0, 0x11FF2, 0x11FFF,
    0x1239A, 0x12400, 0x1246F, 0x12470, 0x12475, 0x12480, 0x12544, 0x12F90, 0x12FF3, 0x13000, 0x1342F, 0x14400,
    0x14647, 0x16800, 0x16A39, 0x16A40, 0x16A5F, 0x16A60, 0x16A6A, 0x16A6E, 0x16ABF, 0x16AC0, 0x16ACA, 0x16AD0,
    0x16AEE, 0x16AF0, 0x16AF6, 0x16B00, 0x16B46, 0x16B50, 0x16B5A, 0x16B5B, 0x16B62, 0x16B63, 0x16B78, 0x16B7D,
    0x16B90, 0x16E40, 0x16E9B, 0x16F00, 0x16F4B, 0x16F4F, 0x16F88, 0x16F8F, 0x16FA0, 0x16FE0, 0x16FE5, 0x16FF0,
    0x16FF2, 0x17000, 0x187F8, 0x18800, 0x18CD6, 0x18D00, 0x18D09, 0x1AFF0, 0x1AFF4, 0x1AFF5, 0x1AFFC, 0x1AFFD,
    0x1AFFF, 0x1B000, 0x1B123, 0x1B150, 0x1B153, 0x1B164, 0x1B168, 0x1B170, 0x1B2FC, 0x1BC00, 0x1BC6B, 0x1BC70,
    0x1BC7D, 0x1BC80, 0x1BC89, 0x1BC90, 0x1BC9A, 0x1BC9C, 0x1BCA0, 0x1CF00, 0x1CF2E, 0x1CF30, 0x1CF47, 0x1CF50,
    0x1CFC4, 0x1D000, 0x1D0F6, 0x1D100, 0x1D127, 0x1D129, 0x1D173, 0x1D17B, 0x1D1EB, 0x1D200, 0x1D246, 0x1D2E0,
    0x1D2F4, 0x1D300, 0x1D357, 0x1D360, 0x1D379, 0x1D400, 0x1D455, 0x1D456, 0x1D49D, 0x1D49E, 0x1D4A0, 0x1D4A2,
    0x1D4A3, 0x1D4A5, 0x1D4A7, 0x1D4A9, 0x1D4AD, 0x1D4AE, 0x1D4BA, 0x1D4BB, 0x1D4BC, 0x1D4BD, 0x1D4C4, 0x1D4C5,
    0x1D506, 0x1D507, 0x1D50B, 0x1D50D, 0x1D515, 0x1D516, 0x1D51D, 0x1D51E, 0x1D53A, 0x1D53B, 0x1D53F, 0x1D540,
    0x1D545, 0x1D546, 0x1D547, 0x1D54A, 0x1D551, 0x1D552, 0x1D6A6, 0x1D6A8, 0x1D7CC, 0x1D7CE, 0x1DA8C, 0x1DA9B,
    0x1DAA0, 0x1DAA1, 0x1DAB0, 0x1DF00, 0x1DF1F, 0x1E000, 0x1E007, 0x1E008, 0x1E019, 0x1E01B, 0x1E022, 0x1E023,
    0x1E025, 0x1E026, 0x1E02B, 0x1E100, 0x1E12D, 0x1E130, 0x1E13E, 0x1E140, 0x1E14A, 0x1E14E, 0x1E150, 0x1E290,
    0x1E2AF, 0x1E2C0, 0x1E2FA, 0x1E2FF, 0x1E300, 0x1E7E0, 0x1E7E7, 0x1E7E8, 0x1E7EC, 0x1E7ED, 0x1E7EF, 0x1E7F0,
    0x1E7FF, 0x1E800, 0x1E8C5, 0x1E8C7, 0x1E8D7, 0x1E900, 0x1E94C, 0x1E950, 0x1E95A, 0x1E95E, 0x1E960, 0x1EC71,
    0x1ECB5, 0x1ED01, 0x1ED3E, 0x1EE00, 0x1EE04, 0x1EE05, 0x1EE20, 0x1EE21, 0x1EE23, 0x1EE24, 0x1EE25, 0x1EE27,
    0x1EE28, 0x1EE29, 0x1EE33, 0x1EE34, 0x1EE38, 0x1EE39, 0x1EE3A, 0x1EE3B, 0x1EE3C, 0x1EE42, 0x1EE43, 0x1EE47,
    0x1EE48, 0x1EE49, 0x1EE4A, 0x1EE4B, 0x1EE4C, 0x1EE4D, 0x1EE50, 0x1EE51, 0x1EE53, 0x1EE54, 0x1EE55, 0x1EE57,
    0x1EE58, 0x1EE59, 0x1EE5A, 0x1EE5B, 0x1EE5C, 0x1EE5D, 0x1EE5E, 0x1EE5F, 0x1EE60, 0x1EE61, 0x1EE63, 0x1EE64,
    0x1EE65, 0x1EE67, 0x1EE6B, 0x1EE6C, 0x1EE73, 0x1EE74, 0x1EE78, 0x1EE79, 0x1EE7D, 0x1EE7E, 0x1EE7F, 0x1EE80,
    0x1EE8A, 0x1EE8B, 0x1EE9C, 0x1EEA1, 0x1EEA4, 0x1EEA5, 0x1EEAA, 0x1EEAB, 0x1EEBC, 0x1EEF0, 0x1EEF2, 0x1F000,
    0x1F02C, 0x1F030, 0x1F094, 0x1F0A0, 0x1F0AF, 0x1F0B1, 0x1F0C0, 0x1F0C1, 0x1F0D0, 0x1F0D1, 0x1F0F6, 0x1F100,
    0x1F1AE, 0x1F1E6, 0x1F203, 0x1F210, 0x1F23C, 0x1F240, 0x1F249, 0x1F250, 0x1F252, 0x1F260, 0x1F266, 0x1F300,
    0x1F6D8, 0x1F6DD, 0x1F6ED, 0x1F6F0, 0x1F6FD, 0x1F700, 0x1F774, 0x1F780, 0x1F7D9, 0x1F7E0, 0x1F7EC, 0x1F7F0,
    0x1F7F1, 0x1F800, 0x1F80C, 0x1F810, 0x1F848, 0x1F850, 0x1F85A, 0x1F860, 0x1F888, 0x1F890, 0x1F8AE, 0x1F8B0,
    0x1F8B2, 0x1F900, 0x1FA54, 0x1FA60, 0x1FA6E, 0x1FA70, 0x1FA75, 0x1FA78, 0x1FA7D, 0x1FA80, 0x1FA87, 0x1FA90,
    0x1FAAD, 0x1FAB0, 0x1FABB, 0x1FAC0, 0x1FAC6, 0x1FAD0, 0x1FADA, 0x1FAE0, 0x1FAE8, 0x1FAF0, 0x1FAF7, 0x1FB00,
    0x1FB93, 0x1FB94, 0x1FBCB, 0x1FBF0, 0x1FBFA, 0x20000, 0x2A6E0, 0x2A700, 0x2B739, 0x2B740, 0x2B81E, 0x2B820,
    0x2CEA2, 0x2CEB0, 0x2EBE1, 0x2F800, 0x2FA1E, 0x30000, 0x3134B, 0xE0100, 0xE01F0, 0x110000,
];

#[cfg(test)]
mod tests {
    use super::*;
    use prompty_test_support::cpython::{golden, pair, parse_bits, report, section, untag_floats};
    use serde_json::json;

    // --- floats -------------------------------------------------------------------------

    #[test]
    fn float_repr_rules() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-1.0, "-1.0"),
            (3.0, "3.0"),
            (100.0, "100.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.0 / 3.0, "0.3333333333333333"),
            (0.0001, "0.0001"),
            (0.00012345, "0.00012345"),
            (1e-5, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (1e-7, "1e-07"),
            (1e15, "1000000000000000.0"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e16, "1e+16"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (1e22, "1e+22"),
            (1e100, "1e+100"),
            (1.5e300, "1.5e+300"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN, "-1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
            (-5e-324, "-5e-324"),
            (123456.789, "123456.789"),
            (-42.5, "-42.5"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-f64::NAN, "nan"),
        ];
        for &(x, want) in cases {
            assert_eq!(repr_float(x), want, "repr of {x:e}");
        }
    }

    #[test]
    fn float_repr_into_existing_buffer() {
        let mut s = String::from("x=");
        assert!(write_repr_float(&mut s, 2.5).is_ok());
        assert_eq!(s, "x=2.5");
    }

    // --- strings ------------------------------------------------------------------------

    #[test]
    fn string_quote_choice() {
        assert_eq!(repr_str(""), "''");
        assert_eq!(repr_str("abc"), "'abc'");
        assert_eq!(repr_str("It's"), "\"It's\"");
        assert_eq!(repr_str("say \"hi\""), "'say \"hi\"'");
        assert_eq!(repr_str("It's \"quoted\""), "'It\\'s \"quoted\"'");
        assert_eq!(repr_str("'"), "\"'\"");
        assert_eq!(repr_str("\""), "'\"'");
    }

    #[test]
    fn string_escapes() {
        assert_eq!(repr_str("a\\b"), "'a\\\\b'");
        assert_eq!(repr_str("a\nb\rc\td"), "'a\\nb\\rc\\td'");
        assert_eq!(repr_str("\0\x01\x1b\x1f\x7f"), "'\\x00\\x01\\x1b\\x1f\\x7f'");
        assert_eq!(repr_str("\x0b\x0c"), "'\\x0b\\x0c'");
        assert_eq!(repr_str("\u{80}\u{85}\u{9f}"), "'\\x80\\x85\\x9f'");
        // Zs other than the ASCII space, Cf.
        assert_eq!(repr_str("a b\u{a0}c"), "'a b\\xa0c'");
        assert_eq!(repr_str("\u{ad}"), "'\\xad'");
        assert_eq!(repr_str("\u{3000}"), "'\\u3000'");
        assert_eq!(repr_str("\u{200b}\u{feff}"), "'\\u200b\\ufeff'");
        assert_eq!(repr_str("\u{2028}\u{2029}"), "'\\u2028\\u2029'");
        // Private use, unassigned, tag characters.
        assert_eq!(repr_str("\u{e000}"), "'\\ue000'");
        assert_eq!(repr_str("\u{378}"), "'\\u0378'");
        assert_eq!(repr_str("\u{10ffff}"), "'\\U0010ffff'");
        assert_eq!(repr_str("\u{e0001}"), "'\\U000e0001'");
        // Backslash with either quote.
        assert_eq!(repr_str("it's \\"), "\"it's \\\\\"");
    }

    #[test]
    fn string_printable_non_ascii_kept() {
        for s in [
            "caf\u{e9}",
            "e\u{301}",
            "\u{1f600}",
            "\u{1f468}\u{200d}\u{1f469}",
            "\u{4e2d}\u{6587}",
            "\u{5e2}\u{5d1}",
            "\u{a1}\u{ae}\u{ff}",
        ] {
            let r = repr_str(s);
            assert!(r.contains(s.chars().next().unwrap_or('?')), "{s:?} became {r}");
        }
        // ZWJ (Cf) is escaped, the emoji around it are not.
        assert_eq!(repr_str("\u{1f468}\u{200d}\u{1f469}"), "'\u{1f468}\\u200d\u{1f469}'");
    }

    #[test]
    fn printable_table() {
        assert!(is_printable(' '));
        assert!(is_printable('~'));
        assert!(!is_printable('\x7f'));
        assert!(!is_printable('\u{a0}'));
        assert!(is_printable('\u{a1}'));
        assert!(!is_printable('\u{ad}'));
        assert!(is_printable('\u{301}'));
        assert!(!is_printable('\u{1680}'));
        assert!(!is_printable('\u{2000}'));
        assert!(!is_printable('\u{200f}'));
        assert!(is_printable('\u{2010}'));
        assert!(!is_printable('\u{202f}'));
        assert!(!is_printable('\u{205f}'));
        assert!(!is_printable('\u{fff9}'));
        assert!(is_printable('\u{fffd}'));
        assert!(!is_printable('\u{fffe}'));
        assert!(is_printable('\u{1f600}'));
        assert!(!is_printable('\u{e0020}'));
        assert!(!is_printable('\u{f0000}'));
        assert!(!is_printable('\u{10ffff}'));
        // Boundaries are sorted, pairwise, and cover the end of the code space.
        assert!(NON_PRINTABLE_BOUNDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(NON_PRINTABLE_BOUNDS.len() % 2, 0);
        assert_eq!(NON_PRINTABLE_BOUNDS.last(), Some(&0x11_0000));
    }

    // --- bytes --------------------------------------------------------------------------

    #[test]
    fn bytes_repr() {
        assert_eq!(repr_bytes(b""), "b''");
        assert_eq!(repr_bytes(b"abc"), "b'abc'");
        assert_eq!(repr_bytes(b"it's"), "b\"it's\"");
        assert_eq!(repr_bytes(b"'\""), "b'\\'\"'");
        assert_eq!(repr_bytes(b"\\\t\n\r\x00\x7f\x80\xff"), "b'\\\\\\t\\n\\r\\x00\\x7f\\x80\\xff'");
    }

    // --- JSON ---------------------------------------------------------------------------

    #[test]
    fn json_scalars() {
        assert_eq!(str_json(&json!(null)), "None");
        assert_eq!(str_json(&json!(true)), "True");
        assert_eq!(str_json(&json!(false)), "False");
        assert_eq!(str_json(&json!(42)), "42");
        assert_eq!(str_json(&json!(-7)), "-7");
        assert_eq!(str_json(&json!(u64::MAX)), "18446744073709551615");
        assert_eq!(str_json(&json!(i64::MIN)), "-9223372036854775808");
        assert_eq!(str_json(&json!(3.0)), "3.0");
        assert_eq!(str_json(&json!(1e-5)), "1e-05");
        assert_eq!(str_json(&json!("It's")), "It's");
        assert_eq!(repr_json(&json!("It's")), "\"It's\"");
        assert_eq!(repr_json(&json!(null)), "None");
    }

    #[test]
    fn json_containers() {
        assert_eq!(str_json(&json!([])), "[]");
        assert_eq!(str_json(&json!({})), "{}");
        assert_eq!(str_json(&json!([1, 2])), "[1, 2]");
        assert_eq!(str_json(&json!([1, "a"])), "[1, 'a']");
        assert_eq!(str_json(&json!({"a": 1, "b": [1, 2]})), "{'a': 1, 'b': [1, 2]}");
        assert_eq!(str_json(&json!({"b": 1, "a": 2})), "{'b': 1, 'a': 2}");
        assert_eq!(
            str_json(&json!([{"role": "user", "content": "It's \"quoted\"", "n": null, "ok": true}])),
            "[{'role': 'user', 'content': 'It\\'s \"quoted\"', 'n': None, 'ok': True}]"
        );
        assert_eq!(str_json(&json!({"it's": [[], {}]})), "{\"it's\": [[], {}]}");
        assert_eq!(str_json(&json!(["a\nb"])), "['a\\nb']");
    }

    #[test]
    fn json_write_variant_appends() {
        let mut s = String::from(">");
        assert!(write_str_json(&mut s, &json!({"a": [true]})).is_ok());
        assert!(write_repr_json(&mut s, &json!("x")).is_ok());
        assert_eq!(s, ">{'a': [True]}'x'");
    }

    #[test]
    fn deep_nesting_is_cut_off() {
        let mut v = json!(1);
        for _ in 0..(MAX_DEPTH + 10) {
            v = json!([v]);
        }
        let s = str_json(&v);
        assert!(s.starts_with(&"[".repeat(MAX_DEPTH)));
        assert!(s.contains("[...]"));
        assert!(!s.contains('1'));
    }

    // --- golden data from CPython ---------------------------------------------------------

    #[test]
    fn golden_cases() {
        let g = golden();
        let cases = section(&g, "cases");
        let mut failures = Vec::new();
        for (i, item) in cases.iter().enumerate() {
            let (value, want) = pair(item, "cases", i);
            let value = &untag_floats(value);
            let got = str_json(value);
            if got != want {
                failures.push(format!("cases[{i}] str_json: want {want:?}, got {got:?}"));
            }
        }
        report("cases", cases.len(), &failures);
    }

    #[test]
    fn golden_floats() {
        let g = golden();
        let floats = section(&g, "floats");
        let mut failures = Vec::new();
        for (i, item) in floats.iter().enumerate() {
            let (bits, want) = pair(item, "floats", i);
            let Some(x) = parse_bits(bits) else {
                panic!("golden.json: floats[{i}] has no hex bit pattern");
            };
            let bits = x.to_bits();
            let got = repr_float(x);
            if got != want {
                failures.push(format!("floats[{i}] ({bits:#018x}): want {want}, got {got}"));
            }
            // The repr must parse back to the same double.
            if want.parse::<f64>().map(f64::to_bits).ok() != Some(bits) {
                failures.push(format!("floats[{i}]: {want} does not round-trip"));
            }
        }
        report("floats", floats.len(), &failures);
    }

    /// serde_json rounds some decimal floats 1 ULP off unless its `float_roundtrip` feature
    /// is enabled; such a value then prints differently from what Python's `json` module
    /// reads. This test lists every CPython float repr that serde_json reads inexactly.
    #[test]
    fn serde_json_reads_python_floats_exactly() {
        let g = golden();
        let floats = section(&g, "floats");
        let mut failures = Vec::new();
        for (i, item) in floats.iter().enumerate() {
            let (bits, text) = pair(item, "floats", i);
            let want = parse_bits(bits).map(f64::to_bits);
            let got = serde_json::from_str::<f64>(text).ok().map(f64::to_bits);
            if got != want {
                failures.push(format!("floats[{i}]: serde_json reads {text} as {got:x?}, want {want:x?}"));
            }
        }
        report("floats read by serde_json", floats.len(), &failures);
    }

    #[test]
    fn golden_bytes() {
        let g = golden();
        let bytes = section(&g, "bytes");
        let mut failures = Vec::new();
        for (i, item) in bytes.iter().enumerate() {
            let (list, want) = pair(item, "bytes", i);
            let Some(b) = list.as_array().and_then(|items| {
                items.iter().map(|x| x.as_u64().and_then(|x| u8::try_from(x).ok())).collect::<Option<Vec<u8>>>()
            }) else {
                panic!("golden.json: bytes[{i}] is not a list of bytes");
            };
            let got = repr_bytes(&b);
            if got != want {
                failures.push(format!("bytes[{i}]: want {want}, got {got}"));
            }
        }
        report("bytes", bytes.len(), &failures);
    }
}
