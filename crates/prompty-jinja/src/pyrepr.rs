//! Python `str()` and `repr()` of minijinja values, and the formatter that prints every
//! `{{ expr }}` with them.
//!
//! The rules for JSON values, floats, strings and bytes are prompty-py's and are
//! re-exported here; this module adds what only a template has: undefined values, safe
//! strings (`Markup('...')`), tuples, and minijinja's lazy sequences and maps.
//!
//! [`formatter`] plugs these rules into a minijinja [`Environment`](minijinja::Environment)
//! through `set_formatter`.

use std::fmt::{self, Write};

use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind, Output, State};
use prompty_py::py_bool;
pub use prompty_py::{
    MAX_DEPTH, UNICODE_VERSION, is_printable, py_space, py_strip, repr_bytes, repr_float, repr_json, repr_str,
    str_json, write_repr_bytes, write_repr_float, write_repr_json, write_repr_str, write_str_json,
};

// ---------------------------------------------------------------------------------------------
// minijinja values
// ---------------------------------------------------------------------------------------------

/// Python `str()` of a minijinja value, as Jinja2 prints it: undefined is empty, a string
/// (safe or not) is itself, anything else is its [`repr_value`].
pub fn str_value(v: &Value) -> String {
    let mut s = String::new();
    let _ = write_str_value(&mut s, v);
    s
}

/// Python `repr()` of a minijinja value.
///
/// * undefined: `Undefined` (the repr of Jinja2's `Undefined`);
/// * none, bools, integers of every width, floats as Python;
/// * strings quoted; a safe string as `Markup('...')`, the repr of Jinja2's `Markup`;
/// * bytes as `b'...'`;
/// * tuples as `(1, 2)` / `(1,)`, other sequences as `[1, 2]`;
/// * maps as `{k: v}` in the map's own iteration order, keys by their repr;
/// * iterables of known length (minijinja's lazy slices and concatenations of lists) as lists;
/// * other iterables, plain objects and invalid values by minijinja's `Display`.
pub fn repr_value(v: &Value) -> String {
    let mut s = String::new();
    let _ = write_repr_value(&mut s, v);
    s
}

/// Writes Python `str()` of a minijinja value into `out` (see [`str_value`]).
pub fn write_str_value<W: Write + ?Sized>(out: &mut W, v: &Value) -> fmt::Result {
    match v.kind() {
        ValueKind::Undefined => Ok(()),
        ValueKind::String => match v.as_str() {
            Some(s) => out.write_str(s),
            None => write!(out, "{v}"),
        },
        _ => value_repr(out, v, 0),
    }
}

/// Writes Python `repr()` of a minijinja value into `out` (see [`repr_value`]).
pub fn write_repr_value<W: Write + ?Sized>(out: &mut W, v: &Value) -> fmt::Result {
    value_repr(out, v, 0)
}

fn value_repr<W: Write + ?Sized>(out: &mut W, v: &Value, depth: usize) -> fmt::Result {
    match v.kind() {
        ValueKind::Undefined => out.write_str("Undefined"),
        ValueKind::None => out.write_str("None"),
        ValueKind::Bool => out.write_str(py_bool(v.is_true())),
        ValueKind::Number => write_value_number(out, v),
        ValueKind::String => match v.as_str() {
            Some(s) if v.is_safe() => {
                out.write_str("Markup(")?;
                write_repr_str(out, s)?;
                out.write_char(')')
            }
            Some(s) => write_repr_str(out, s),
            None => write!(out, "{v}"),
        },
        ValueKind::Bytes => match v.as_bytes() {
            Some(b) => write_repr_bytes(out, b),
            None => write!(out, "{v}"),
        },
        ValueKind::Seq => write_value_seq(out, v, depth),
        // A sized iterable is a list in Python (minijinja slices and joins lists lazily).
        ValueKind::Iterable if v.as_object().and_then(|o| o.enumerator_len()).is_some() => {
            write_value_seq(out, v, depth)
        }
        ValueKind::Map => write_value_map(out, v, depth),
        _ => write!(out, "{v}"),
    }
}

fn write_value_number<W: Write + ?Sized>(out: &mut W, v: &Value) -> fmt::Result {
    if v.is_integer() {
        if let Ok(i) = i128::try_from(v.clone()) {
            write!(out, "{i}")
        } else if let Ok(u) = u128::try_from(v.clone()) {
            write!(out, "{u}")
        } else {
            write!(out, "{v}")
        }
    } else {
        match f64::try_from(v.clone()) {
            Ok(f) => write_repr_float(out, f),
            Err(_) => write!(out, "{v}"),
        }
    }
}

fn write_value_seq<W: Write + ?Sized>(out: &mut W, v: &Value, depth: usize) -> fmt::Result {
    let tuple = v.is_tuple();
    let (open, close) = if tuple { ('(', ')') } else { ('[', ']') };
    if depth >= MAX_DEPTH {
        out.write_char(open)?;
        out.write_str("...")?;
        return out.write_char(close);
    }
    let Ok(items) = v.try_iter() else {
        return write!(out, "{v}");
    };
    out.write_char(open)?;
    let mut count = 0usize;
    for item in items {
        if count > 0 {
            out.write_str(", ")?;
        }
        value_repr(out, &item, depth + 1)?;
        count += 1;
    }
    if tuple && count == 1 {
        out.write_char(',')?;
    }
    out.write_char(close)
}

fn write_value_map<W: Write + ?Sized>(out: &mut W, v: &Value, depth: usize) -> fmt::Result {
    if depth >= MAX_DEPTH {
        return out.write_str("{...}");
    }
    let Some(pairs) = v.as_object().and_then(|obj| obj.try_iter_pairs()) else {
        return write!(out, "{v}");
    };
    out.write_char('{')?;
    for (i, (key, value)) in pairs.enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        value_repr(out, &key, depth + 1)?;
        out.write_str(": ")?;
        value_repr(out, &value, depth + 1)?;
    }
    out.write_char('}')
}

/// A formatter for [`Environment::set_formatter`](minijinja::Environment::set_formatter)
/// that prints every value with Python `str()` ([`write_str_value`]) and never escapes.
///
/// Undefined values print as the empty string (also under `UndefinedBehavior::Strict`: a
/// custom formatter takes over the printing step where minijinja's own formatter would
/// raise). An invalid value (one carrying an error, e.g. from a failed serialization) is
/// an error.
pub fn formatter(out: &mut Output<'_>, _state: &mut State<'_, '_>, value: &Value) -> Result<(), Error> {
    if matches!(value.kind(), ValueKind::Invalid) {
        return Err(Error::new(ErrorKind::BadSerialization, format!("cannot print an invalid value: {value}")));
    }
    write_str_value(out, value).map_err(Error::from)
}
#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::value::{Enumerator, Object, ObjectRepr, Serde};
    use minijinja::{Environment, UndefinedBehavior};
    use prompty_test_support::cpython::{golden, pair, parse_bits, report, section, untag_floats};
    use serde_json::json;
    use std::sync::Arc;

    /// A map that keeps insertion order, standing in for an order-preserving conversion.
    #[derive(Debug)]
    struct OrderedMap(Vec<(Value, Value)>);

    impl Object for OrderedMap {
        fn repr(self: &Arc<Self>) -> ObjectRepr {
            ObjectRepr::Map
        }

        fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
            self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
        }

        fn enumerate(self: &Arc<Self>) -> Enumerator {
            Enumerator::Values(self.0.iter().map(|(k, _)| k.clone()).collect())
        }
    }

    /// An object that is neither a sequence nor a map.
    #[derive(Debug)]
    struct Opaque;

    impl Object for Opaque {
        fn repr(self: &Arc<Self>) -> ObjectRepr {
            ObjectRepr::Plain
        }

        fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("<opaque>")
        }
    }

    fn ordered_value(v: &serde_json::Value) -> Value {
        use serde_json::Value as J;
        match v {
            J::Null => Value::from(()),
            J::Bool(b) => Value::from(*b),
            J::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::from(i)
                } else if let Some(u) = n.as_u64() {
                    Value::from(u)
                } else {
                    Value::from(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            J::String(s) => Value::from(s.as_str()),
            J::Array(items) => Value::from(items.iter().map(ordered_value).collect::<Vec<_>>()),
            J::Object(map) => Value::from_object(OrderedMap(
                map.iter().map(|(k, v)| (Value::from(k.as_str()), ordered_value(v))).collect(),
            )),
        }
    }

    fn contains_object(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::Object(_) => true,
            serde_json::Value::Array(items) => items.iter().any(contains_object),
            _ => false,
        }
    }

    fn render(template: &str) -> String {
        let mut env = Environment::new();
        env.set_formatter(formatter);
        match env.render_str(template, minijinja::context! {}) {
            Ok(s) => s,
            Err(e) => panic!("render {template:?}: {e:#}"),
        }
    }

    // --- scalars ------------------------------------------------------------------------

    #[test]
    fn bytes_values() {
        let v = Value::from_bytes(b"a'b".to_vec());
        assert_eq!(str_value(&v), "b\"a'b\"");
        assert_eq!(repr_value(&v), "b\"a'b\"");
    }

    #[test]
    fn deep_value_nesting_is_cut_off() {
        let mut m = Value::from(1);
        for _ in 0..(MAX_DEPTH + 10) {
            m = Value::from(vec![m]);
        }
        assert!(str_value(&m).contains("[...]"));
    }

    // --- minijinja values ---------------------------------------------------------------

    #[test]
    fn value_scalars() {
        assert_eq!(str_value(&Value::UNDEFINED), "");
        assert_eq!(repr_value(&Value::UNDEFINED), "Undefined");
        assert_eq!(str_value(&Value::from(())), "None");
        assert_eq!(str_value(&Value::from(true)), "True");
        assert_eq!(str_value(&Value::from(false)), "False");
        assert_eq!(str_value(&Value::from(42u8)), "42");
        assert_eq!(str_value(&Value::from(-42i64)), "-42");
        assert_eq!(str_value(&Value::from(u64::MAX)), "18446744073709551615");
        assert_eq!(str_value(&Value::from(i128::MIN)), i128::MIN.to_string());
        assert_eq!(str_value(&Value::from(i128::MAX)), i128::MAX.to_string());
        assert_eq!(str_value(&Value::from(u128::MAX)), u128::MAX.to_string());
        assert_eq!(str_value(&Value::from(2.0f64)), "2.0");
        assert_eq!(str_value(&Value::from(0.5f32)), "0.5");
        assert_eq!(str_value(&Value::from("It's")), "It's");
        assert_eq!(repr_value(&Value::from("It's")), "\"It's\"");
        assert_eq!(str_value(&Value::from_safe_string("<b>'".into())), "<b>'");
        assert_eq!(repr_value(&Value::from_safe_string("a".into())), "Markup('a')");
    }

    #[test]
    fn value_containers() {
        let seq = Value::from(vec![Value::from(1), Value::from("a"), Value::from(())]);
        assert_eq!(str_value(&seq), "[1, 'a', None]");
        assert_eq!(str_value(&Value::from(Vec::<Value>::new())), "[]");
        assert_eq!(str_value(&Value::from(vec![Value::UNDEFINED])), "[Undefined]");
        assert_eq!(str_value(&Value::from(vec![Value::from_safe_string("x".into())])), "[Markup('x')]");
        let map = Value::from_object(OrderedMap(vec![
            (Value::from("b"), Value::from(1)),
            (Value::from(2), Value::from(vec![Value::from(1.5)])),
            (Value::from(()), Value::from("it's")),
            (Value::from(true), Value::from(false)),
            (Value::from(0.5), Value::from(())),
        ]));
        assert_eq!(str_value(&map), "{'b': 1, 2: [1.5], None: \"it's\", True: False, 0.5: None}");
        let empty = Value::from_object(OrderedMap(vec![]));
        assert_eq!(str_value(&empty), "{}");
    }

    #[test]
    fn value_tuples() {
        use minijinja::value::Tuple;
        let t0 = Value::from_object(Tuple::from(Vec::new()));
        let t1 = Value::from_object(Tuple::from(vec![Value::from(1)]));
        let t2 = Value::from_object(Tuple::from(vec![Value::from(1), Value::from("b")]));
        assert_eq!(str_value(&t0), "()");
        assert_eq!(str_value(&t1), "(1,)");
        assert_eq!(str_value(&t2), "(1, 'b')");
    }

    #[test]
    fn value_other_objects_use_display() {
        let v = Value::from_object(Opaque);
        assert_eq!(str_value(&v), "<opaque>");
        assert_eq!(str_value(&Value::from(vec![v])), "[<opaque>]");
    }

    #[test]
    fn value_from_serialize_numbers() {
        let v = Value::from(Serde(json!([1, -1, 1.0, 2.5e-7, u64::MAX, "s"])));
        assert_eq!(str_value(&v), "[1, -1, 1.0, 2.5e-07, 18446744073709551615, 's']");
    }

    // --- formatter ----------------------------------------------------------------------

    #[test]
    fn formatter_matches_jinja2() {
        // Expected outputs are those of Python Jinja2 3.1 (`Environment().from_string(t).render()`).
        let cases: &[(&str, &str)] = &[
            ("{{ none }}", "None"),
            ("{{ true }}", "True"),
            ("{{ false }}", "False"),
            ("{{ 42 }}", "42"),
            ("{{ 3.0 }}", "3.0"),
            ("{{ 4 / 2 }}", "2.0"),
            ("{{ 0.1 + 0.2 }}", "0.30000000000000004"),
            ("{{ 1e16 }}", "1e+16"),
            ("{{ -0.0 }}", "-0.0"),
            ("{{ [1, 'a'] }}", "[1, 'a']"),
            ("{{ [1.0, 2] }}", "[1.0, 2]"),
            ("{{ {'a': none} }}", "{'a': None}"),
            ("{{ (1,) }}", "(1,)"),
            ("{{ (1, 'b') }}", "(1, 'b')"),
            ("{{ () }}", "()"),
            ("{{ {'a': [1, (2, 3)]} }}", "{'a': [1, (2, 3)]}"),
            ("{{ \"it's\" }}", "it's"),
            ("{{ [\"it's\"] }}", "[\"it's\"]"),
            ("{{ '<&>' }}", "<&>"),
            ("{{ 'a'|safe }}", "a"),
            ("{{ ['a'|safe] }}", "[Markup('a')]"),
            ("{{ missing }}", ""),
            ("{{ [missing] }}", "[Undefined]"),
            // minijinja slices and concatenates lists lazily; Python has lists.
            ("{{ [1, 'a\u{200b}', 2][1:] }}", "['a\\u200b', 2]"),
            ("{{ [1] + [2.5] }}", "[1, 2.5]"),
            ("{{ ([1] * 2, 1e21) }}", "([1, 1], 1e+21)"),
        ];
        for &(template, want) in cases {
            assert_eq!(render(template), want, "template {template:?}");
        }
    }

    #[test]
    fn formatter_context_values() {
        let mut env = Environment::new();
        env.set_formatter(formatter);
        let q = json!([{"role": "user", "content": "It's \"quoted\"", "n": null, "ok": true}]);
        let ctx = minijinja::context! { q => ordered_value(&q), n => 1.0, s => "a\nb" };
        let out = env.render_str("{{ q }}|{{ n }}|{{ s }}", ctx);
        assert_eq!(
            out.ok().as_deref(),
            Some("[{'role': 'user', 'content': 'It\\'s \"quoted\"', 'n': None, 'ok': True}]|1.0|a\nb")
        );
    }

    #[test]
    fn formatter_strict_undefined_prints_empty() {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_formatter(formatter);
        assert_eq!(env.render_str("{{ 1 if false }}", ()).ok().as_deref(), Some(""));
    }

    #[test]
    fn golden_cases() {
        let g = golden();
        let cases = section(&g, "cases");
        let mut failures = Vec::new();
        for (i, item) in cases.iter().enumerate() {
            let (value, want) = pair(item, "cases", i);
            let value = &untag_floats(value);
            let got = str_value(&ordered_value(value));
            if got != want {
                failures.push(format!("cases[{i}] str_value: want {want:?}, got {got:?}"));
            }
            if !contains_object(value) {
                let got = str_value(&Value::from(Serde(value)));
                if got != want {
                    failures.push(format!("cases[{i}] str_value(Serde): want {want:?}, got {got:?}"));
                }
            }
        }
        report("cases", cases.len(), &failures);
    }

    #[test]
    fn golden_float_values() {
        let g = golden();
        let floats = section(&g, "floats");
        let mut failures = Vec::new();
        for (i, item) in floats.iter().enumerate() {
            let (bits, want) = pair(item, "floats", i);
            let Some(x) = parse_bits(bits) else {
                panic!("golden.json: floats[{i}] has no hex bit pattern");
            };
            let got = str_value(&Value::from(x));
            if got != want {
                failures.push(format!("floats[{i}] ({:#018x}) str_value: want {want}, got {got}", x.to_bits()));
            }
        }
        report("float values", floats.len(), &failures);
    }

    #[test]
    fn golden_ints() {
        let g = golden();
        let ints = section(&g, "ints");
        let mut failures = Vec::new();
        for (i, item) in ints.iter().enumerate() {
            let (digits, want) = pair(item, "ints", i);
            let digits = digits.as_str().unwrap_or_default();
            let value = if let Ok(n) = digits.parse::<i128>() {
                Value::from(n)
            } else if let Ok(n) = digits.parse::<u128>() {
                Value::from(n)
            } else {
                panic!("golden.json: ints[{i}] = {digits:?} fits neither i128 nor u128");
            };
            let got = str_value(&value);
            if got != want {
                failures.push(format!("ints[{i}]: want {want}, got {got}"));
            }
        }
        report("ints", ints.len(), &failures);
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
            let got = str_value(&Value::from_bytes(b));
            if got != want {
                failures.push(format!("bytes[{i}] str_value: want {want}, got {got}"));
            }
        }
        report("bytes", bytes.len(), &failures);
    }
}
