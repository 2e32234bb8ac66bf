//! Small pieces of Python semantics that the reference behaviours depend on:
//! `str.strip()`, the `\d` class of `re`, `json.dumps` with default settings,
//! and `str()` of values (the crate's [`str_json`](crate::str_json)), by their Python names.

use serde_json::Value;

/// First code points of the runs of ten Unicode decimal digits (category
/// `Nd`, Unicode 14), each run holding the digits 0..=9 in order. Python's
/// `re` matches exactly these characters with `\d` on `str` patterns.
const ND_RUN_STARTS: [u32; 66] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0,
    0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620,
    0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0,
    0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60,
    0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// The value of `c` if it is a Unicode decimal digit (what Python's `\d`
/// matches and `float()` accepts), else `None`.
pub fn decimal_digit(c: char) -> Option<u32> {
    let cp = u32::from(c);
    if c.is_ascii() {
        return c.to_digit(10);
    }
    let idx = ND_RUN_STARTS.partition_point(|&start| start <= cp);
    let start = *ND_RUN_STARTS.get(idx.checked_sub(1)?)?;
    let offset = cp - start;
    (offset < 10).then_some(offset)
}

/// Whether `c` is a Unicode decimal digit (Python `\d`).
pub fn is_decimal_digit(c: char) -> bool {
    decimal_digit(c).is_some()
}

/// Python's `str.strip()` without arguments.
pub fn strip(s: &str) -> &str {
    crate::py_strip(s)
}

/// Python's `str(value)` for a JSON value: strings as they are, everything
/// else as Python prints the equivalent object (`True`, `None`, dict repr).
pub fn str_of(value: &Value) -> String {
    crate::str_json(value)
}

/// Python's `repr(value)` for a JSON value.
pub fn repr_of(value: &Value) -> String {
    crate::repr_json(value)
}

/// Python's `float(x)` for a string: surrounding whitespace is allowed, as
/// are signs, exponents, `inf`/`nan` and `_` between digits.
pub fn float_from_str(s: &str) -> Option<f64> {
    let t = strip(s);
    if t.is_empty() || t.starts_with('_') || t.ends_with('_') || t.contains("__") {
        return None;
    }
    let mut ascii = String::with_capacity(t.len());
    let mut prev_digit = false;
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' {
            let next_digit = chars.peek().is_some_and(|n| decimal_digit(*n).is_some());
            if !(prev_digit && next_digit) {
                return None;
            }
            continue;
        }
        match decimal_digit(c) {
            Some(d) => {
                prev_digit = true;
                ascii.push(char::from_digit(d, 10)?);
            }
            None => {
                prev_digit = false;
                ascii.push(c);
            }
        }
    }
    let lower = ascii.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") || body.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '.')
    {
        lower.parse::<f64>().ok()
    } else {
        None
    }
}

/// Python's `json.dumps(value)` with default settings: `", "` and `": "`
/// separators, ASCII-only output with `\uXXXX` escapes, floats as Python
/// prints them.
pub fn json_dumps(value: &Value) -> String {
    let mut out = String::new();
    write_json(value, &mut out, true);
    out
}

/// Python's `json.dumps(value, ensure_ascii=False)`.
pub fn json_dumps_unicode(value: &Value) -> String {
    let mut out = String::new();
    write_json(value, &mut out, false);
    out
}

fn write_json(value: &Value, out: &mut String, ascii: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            if n.is_f64() {
                match n.as_f64() {
                    Some(f) if f.is_finite() => out.push_str(&repr_of(value)),
                    _ => out.push_str(&n.to_string()),
                }
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => write_json_str(s, out, ascii),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json(item, out, ascii);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json_str(k, out, ascii);
                out.push_str(": ");
                write_json(v, out, ascii);
            }
            out.push('}');
        }
    }
}

/// A JSON string literal as Python's `json.dumps` writes it (`ensure_ascii`).
pub fn json_dumps_str(s: &str) -> String {
    let mut out = String::new();
    write_json_str(s, &mut out, true);
    out
}

fn write_json_str(s: &str, out: &mut String, ascii: bool) {
    use std::fmt::Write as _;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            c if !ascii && u32::from(c) >= 0x20 => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits_follow_python() {
        assert_eq!(decimal_digit('7'), Some(7));
        assert_eq!(decimal_digit('\u{0663}'), Some(3)); // ARABIC-INDIC DIGIT THREE
        assert_eq!(decimal_digit('\u{FF15}'), Some(5)); // FULLWIDTH DIGIT FIVE
        assert_eq!(decimal_digit('\u{1D7D9}'), Some(1)); // MATHEMATICAL DOUBLE-STRUCK DIGIT ONE
        assert_eq!(decimal_digit('\u{00B2}'), None); // SUPERSCRIPT TWO is not Nd
        assert_eq!(decimal_digit('\u{2167}'), None); // ROMAN NUMERAL EIGHT
        assert_eq!(decimal_digit('a'), None);
    }

    #[test]
    fn strip_matches_python() {
        assert_eq!(strip(" \u{1f}why \n"), "why");
        assert_eq!(strip("\u{3000}x\u{a0}"), "x");
    }

    #[test]
    fn float_from_str_matches_python() {
        assert_eq!(float_from_str("5"), Some(5.0));
        assert_eq!(float_from_str(" 4.5 "), Some(4.5));
        assert_eq!(float_from_str("1_000"), Some(1000.0));
        assert_eq!(float_from_str("1e2"), Some(100.0));
        assert_eq!(float_from_str("four"), None);
        assert_eq!(float_from_str(""), None);
        assert_eq!(float_from_str("_1"), None);
        assert!(float_from_str("nan").is_some_and(f64::is_nan));
        assert_eq!(float_from_str("-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(float_from_str("\u{0664}"), Some(4.0));
    }

    #[test]
    fn json_dumps_is_ascii_with_spaces() {
        let v = serde_json::json!({"a": "24 \u{b0}C", "b": [1, true, null], "c": "\u{1F600}\"\n"});
        assert_eq!(json_dumps(&v), r#"{"a": "24 \u00b0C", "b": [1, true, null], "c": "\ud83d\ude00\"\n"}"#);
    }
}
