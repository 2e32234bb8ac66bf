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

mod float;
mod printable;
mod string;

use std::fmt::{self, Write};

pub use float::{repr_float, write_repr_float};
pub use printable::is_printable;
pub use string::{repr_bytes, repr_str, write_repr_bytes, write_repr_str};

/// Containers nested deeper than this many levels are written as `[...]`, `{...}` or `(...)`.
pub const MAX_DEPTH: usize = 256;

/// The Unicode version of the table behind [`is_printable`] (that of Python 3.11).
pub const UNICODE_VERSION: &str = "14.0.0";

/// Python's `str.isspace()` for one character: Unicode whitespace plus the ASCII
/// separators 0x1C-0x1F.
#[inline]
pub fn py_space(c: char) -> bool {
    if c.is_ascii() { matches!(c, '\t'..='\r' | '\u{1c}'..='\u{1f}' | ' ') } else { c.is_whitespace() }
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

#[cfg(test)]
mod tests {
    use super::printable::NON_PRINTABLE_BOUNDS;
    use super::*;

    /// Python's `str.isspace()`: Unicode White_Space, plus the four information separators
    /// U+001C to U+001F; the ASCII shortcut agrees with it on every character.
    #[test]
    fn py_space_is_white_space_and_the_separators() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(py_space(c), c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c), "{c:?}");
        }
    }
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
