//! Python's view of minijinja values: type names, `str()`, `len()`, iteration, ordering,
//! equality, `in`, the dict views (`d.items()`, ...) and the string case mappings the
//! filters, tests and methods share.

use std::cmp::Ordering;
use std::sync::Arc;

use minijinja::value::{Enumerator, Kwargs, Object, ObjectExt, ObjectRepr, Rest, Value, ValueKind};
use minijinja::{Error, ErrorKind};

use super::budget;
use crate::pyrepr;

/// A Python `TypeError`, `ValueError`, ... : minijinja's invalid-operation error with
/// Python's message.
pub(crate) fn error(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message.into())
}

/// Whether the value is a Python list: a (non-tuple) sequence, or one of minijinja's lazy
/// sized iterables (slices, concatenations and repetitions of lists), which are lists in
/// Python. Dict views are not.
pub(crate) fn is_list(v: &Value) -> bool {
    match v.kind() {
        ValueKind::Seq => !v.is_tuple(),
        ValueKind::Iterable => v.as_object().and_then(|o| o.enumerator_len()).is_some(),
        _ => false,
    }
}

/// Whether the value is a dict view (`d.items()`, `d.keys()`, `d.values()`) or a range: a
/// sized iterable that is not a list.
pub(crate) fn is_dict_view(v: &Value) -> bool {
    v.downcast_object_ref::<DictView>().is_some() || v.downcast_object_ref::<Range>().is_some()
}

/// The Python type name of a value, for error messages.
pub(crate) fn type_name(v: &Value) -> &'static str {
    if let Some(view) = v.downcast_object_ref::<DictView>() {
        return view.kind();
    }
    if v.downcast_object_ref::<Range>().is_some() {
        return "range";
    }
    match v.kind() {
        ValueKind::Undefined => "Undefined",
        ValueKind::None => "NoneType",
        ValueKind::Bool => "bool",
        ValueKind::Number if v.is_integer() => "int",
        ValueKind::Number => "float",
        ValueKind::String => "str",
        ValueKind::Bytes => "bytes",
        ValueKind::Seq if v.is_tuple() => "tuple",
        ValueKind::Seq => "list",
        ValueKind::Map => "dict",
        ValueKind::Iterable if is_list(v) => "list",
        ValueKind::Iterable => "generator",
        _ => "object",
    }
}

/// Python `str()` (undefined is the empty string).
///
/// A container is written under the render budget ([`budget::Text`]): its text may not
/// pass the output limit or what the fuel left pays for, and a lazily repeated list is
/// refused as soon as its text would (writing stops there).
pub(crate) fn str_of(v: &Value) -> Result<String, Error> {
    if let Some(s) = v.as_str().filter(|_| v.kind() == ValueKind::String) {
        return Ok(s.to_owned());
    }
    if v.kind() == ValueKind::Undefined {
        return Ok(String::new());
    }
    repr_of(v)
}

/// Python `repr()`, written under the render budget like [`str_of`], and refused at once
/// for a value of more than [`MAX_ITEMS`] items (nested ones included).
pub(crate) fn repr_of(v: &Value) -> Result<String, Error> {
    check_size(v)?;
    let mut out = budget::Text::new();
    match pyrepr::write_repr_value(&mut out, v) {
        Ok(()) => Ok(out.into_string()),
        Err(_) => Err(out.error(|| error("the value cannot be printed"))),
    }
}

/// Counts the items of `v` (nested ones included), without walking a sequence that says it
/// is longer than what is left; more than [`MAX_ITEMS`] is an error.
fn check_size(v: &Value) -> Result<(), Error> {
    fn visit(v: &Value, left: &mut usize) -> bool {
        if !matches!(v.kind(), ValueKind::Seq | ValueKind::Map | ValueKind::Iterable) {
            return true;
        }
        if v.len().is_some_and(|n| n > *left) {
            return false;
        }
        let Ok(items) = v.try_iter() else { return true };
        let map = v.kind() == ValueKind::Map;
        for item in items {
            if *left == 0 {
                return false;
            }
            *left -= 1;
            let value = if map { v.get_item(&item).unwrap_or_default() } else { item };
            if !visit(&value, left) {
                return false;
            }
        }
        true
    }
    let mut left = MAX_ITEMS;
    if visit(v, &mut left) { Ok(()) } else { Err(too_many_items()) }
}

/// Python `ascii()`: the repr with every non-ASCII character escaped.
pub(crate) fn ascii_of(v: &Value) -> Result<String, Error> {
    let repr = repr_of(v)?;
    let mut out = String::with_capacity(repr.len());
    for c in repr.chars() {
        let cp = u32::from(c);
        if cp < 0x80 {
            out.push(c);
        } else if cp < 0x100 {
            out.push_str(&format!("\\x{cp:02x}"));
        } else if cp < 0x1_0000 {
            out.push_str(&format!("\\u{cp:04x}"));
        } else {
            out.push_str(&format!("\\U{cp:08x}"));
        }
    }
    Ok(out)
}

/// A Python `int` (a bool counts, as `bool` is a subclass of `int`).
pub(crate) fn as_int(v: &Value) -> Option<i128> {
    match v.kind() {
        ValueKind::Bool => Some(i128::from(v.is_true())),
        ValueKind::Number if v.is_integer() => i128::try_from(v.clone()).ok(),
        _ => None,
    }
}

/// A Python `float`.
pub(crate) fn as_float(v: &Value) -> Option<f64> {
    match v.kind() {
        ValueKind::Number if !v.is_integer() => f64::try_from(v.clone()).ok(),
        _ => None,
    }
}

/// `float(v)` for a number (int, bool or float); `None` for anything else.
pub(crate) fn number_as_f64(v: &Value) -> Option<f64> {
    match v.kind() {
        ValueKind::Bool => Some(if v.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => f64::try_from(v.clone()).ok(),
        _ => None,
    }
}

/// Whether the value is a Python number (`int`, `float` or `bool`).
pub(crate) fn is_number(v: &Value) -> bool {
    matches!(v.kind(), ValueKind::Bool | ValueKind::Number)
}

/// `iter(v)` collected: characters of a string, items of a sequence, keys of a mapping;
/// undefined iterates as empty (Jinja2's `Undefined.__iter__`). Anything else is a
/// `TypeError`.
///
/// At most [`MAX_ITEMS`] items are collected, each charged to the render budget (a lazily
/// repeated list, `['x'] * 10**8`, costs nothing until it is walked): its size is checked
/// here, before anything is allocated.
pub(crate) fn iterate(v: &Value) -> Result<Vec<Value>, Error> {
    let iterable = is_dict_view(v)
        || matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Iterable);
    if !iterable {
        return match v.kind() {
            ValueKind::Undefined => Ok(Vec::new()),
            _ => Err(error(format!("'{}' object is not iterable", type_name(v)))),
        };
    }
    let items = v.try_iter().map_err(|_| error(format!("'{}' object is not iterable", type_name(v))))?;
    let hint = items.size_hint().0;
    if hint > MAX_ITEMS {
        return Err(too_many_items());
    }
    // Charged to the render budget ahead for the items it says it has, then per item.
    budget::reserve_items(hint as u128)?;
    budget::spend_items(hint)?;
    let mut out = Vec::with_capacity(hint);
    for item in items {
        if out.len() == MAX_ITEMS {
            return Err(too_many_items());
        }
        if out.len() >= hint {
            budget::spend_items(1)?;
        }
        out.push(item);
    }
    Ok(out)
}

/// The most items one filter, test, method or operator collects from a value (see
/// [`iterate`]); no prompt comes near it, and a render has fuel for only a few million.
pub(crate) const MAX_ITEMS: usize = 1_000_000;

fn too_many_items() -> Error {
    budget::too_many_items(MAX_ITEMS)
}

/// `len(v)`: characters of a string, items of a container; undefined has length 0.
pub(crate) fn length(v: &Value) -> Result<usize, Error> {
    if is_dict_view(v) || is_list(v) {
        return Ok(v.len().unwrap_or(0));
    }
    match v.kind() {
        ValueKind::Undefined => Ok(0),
        ValueKind::String | ValueKind::Bytes | ValueKind::Seq | ValueKind::Map => {
            v.len().ok_or_else(|| error(format!("object of type '{}' has no len()", type_name(v))))
        }
        _ => Err(error(format!("object of type '{}' has no len()", type_name(v)))),
    }
}

/// Python `==`.
pub(crate) fn eq(a: &Value, b: &Value) -> bool {
    match (a.kind(), b.kind()) {
        (ValueKind::Bool | ValueKind::Number, ValueKind::Bool | ValueKind::Number) => match (as_int(a), as_int(b)) {
            (Some(x), Some(y)) => x == y,
            _ => number_as_f64(a) == number_as_f64(b),
        },
        (ValueKind::String, ValueKind::String) => {
            let (x, y) = (a.as_str().unwrap_or_default(), b.as_str().unwrap_or_default());
            // A refused charge ends the comparison; the call's scope then fails.
            x.len() == y.len() && budget::spend_bytes_ok(x.len()) && x == y
        }
        _ if (is_list(a) || a.is_tuple()) && (is_list(b) || b.is_tuple()) => {
            a.is_tuple() == b.is_tuple() && {
                let (x, y) = (iterate(a).unwrap_or_default(), iterate(b).unwrap_or_default());
                x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| eq(p, q))
            }
        }
        (ValueKind::Map, ValueKind::Map) => {
            let keys = iterate(a).unwrap_or_default();
            length(a).ok() == length(b).ok()
                && keys.iter().all(|k| {
                    let (x, y) = (a.get_item(k).unwrap_or_default(), b.get_item(k).unwrap_or_default());
                    !y.is_undefined() && eq(&x, &y)
                })
        }
        (ValueKind::None, ValueKind::None) | (ValueKind::Undefined, ValueKind::Undefined) => true,
        _ => a == b,
    }
}

/// Python `<` ordering of two values: numbers with numbers, strings with strings, lists
/// with lists and tuples with tuples (item by item); anything else is a `TypeError`.
pub(crate) fn cmp(a: &Value, b: &Value) -> Result<Ordering, Error> {
    let unorderable =
        || error(format!("'<' not supported between instances of '{}' and '{}'", type_name(a), type_name(b)));
    match (a.kind(), b.kind()) {
        (ValueKind::Bool | ValueKind::Number, ValueKind::Bool | ValueKind::Number) => {
            match (as_int(a), as_int(b)) {
                (Some(x), Some(y)) => Ok(x.cmp(&y)),
                _ => {
                    let (x, y) = (number_as_f64(a).unwrap_or(f64::NAN), number_as_f64(b).unwrap_or(f64::NAN));
                    // NaN compares false both ways in Python; "equal" keeps a stable sort stable.
                    Ok(x.partial_cmp(&y).unwrap_or(Ordering::Equal))
                }
            }
        }
        (ValueKind::String, ValueKind::String) => {
            let (x, y) = (a.as_str().unwrap_or_default(), b.as_str().unwrap_or_default());
            budget::spend_bytes(x.len().min(y.len()))?;
            Ok(x.cmp(y))
        }
        _ if (is_list(a) && is_list(b)) || (a.is_tuple() && b.is_tuple()) => {
            let (x, y) = (iterate(a)?, iterate(b)?);
            for (p, q) in x.iter().zip(&y) {
                if !eq(p, q) {
                    return cmp(p, q);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        _ => Err(unorderable()),
    }
}

/// A value as a Python dict/set key: equal keys for values Python considers equal
/// (`1`, `1.0` and `True`); lists, dicts and dict views are unhashable (`TypeError`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum HashKey {
    Undefined,
    None,
    Int(i128),
    Float(u64),
    Str(String),
    Bytes(Vec<u8>),
    Tuple(Vec<HashKey>),
}

/// The [`HashKey`] of a value.
pub(crate) fn hash_key(v: &Value) -> Result<HashKey, Error> {
    if let Some(i) = as_int(v) {
        return Ok(HashKey::Int(i));
    }
    Ok(match v.kind() {
        ValueKind::Undefined => HashKey::Undefined,
        ValueKind::None => HashKey::None,
        ValueKind::Number => match as_float(v) {
            Some(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1.7e38 => HashKey::Int(x as i128),
            Some(x) => HashKey::Float(x.to_bits()),
            // Integers above i128 (u128).
            None => HashKey::Str(str_of(v)?),
        },
        ValueKind::String => {
            let s = v.as_str().unwrap_or_default();
            budget::spend_bytes(s.len())?;
            HashKey::Str(s.to_owned())
        }
        ValueKind::Bytes => HashKey::Bytes(v.as_bytes().unwrap_or_default().to_vec()),
        ValueKind::Seq if v.is_tuple() => HashKey::Tuple(iterate(v)?.iter().map(hash_key).collect::<Result<_, _>>()?),
        _ => return Err(error(format!("unhashable type: '{}'", type_name(v)))),
    })
}

/// Positional arguments and keyword arguments of a call, as minijinja passes them (the
/// keyword arguments, when given, are a trailing kwargs value).
pub(crate) fn split_args(args: &[Value]) -> (&[Value], Option<Kwargs>) {
    match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => {
            (rest, minijinja::value::from_args::<(Kwargs,)>(std::slice::from_ref(last)).ok().map(|(k,)| k))
        }
        _ => (args, None),
    }
}

/// Binds the arguments of a call to Python parameters `names` (positional, then by
/// keyword): unknown keywords, too many arguments and a parameter given twice are errors.
pub(crate) fn bind<const N: usize>(what: &str, args: &[Value], names: [&str; N]) -> Result<[Option<Value>; N], Error> {
    let (positional, kwargs) = split_args(args);
    if positional.len() > N {
        return Err(error(format!("{what}() takes at most {N} arguments ({} given)", positional.len())));
    }
    let mut out: [Option<Value>; N] = std::array::from_fn(|i| positional.get(i).cloned());
    if let Some(kwargs) = kwargs {
        for key in kwargs.args() {
            let slot = names
                .iter()
                .position(|n| *n == key)
                .ok_or_else(|| error(format!("{what}() got an unexpected keyword argument '{key}'")))?;
            let value: Value = kwargs.get(key)?;
            match out.get_mut(slot) {
                Some(s @ None) => *s = Some(value),
                _ => return Err(error(format!("{what}() got multiple values for argument '{key}'"))),
            }
        }
    }
    Ok(out)
}

/// A bound argument that must be a Python int (or bool).
pub(crate) fn int_arg(what: &str, v: &Value) -> Result<i128, Error> {
    as_int(v).ok_or_else(|| error(format!("{what}: '{}' object cannot be interpreted as an integer", type_name(v))))
}

// ---------------------------------------------------------------------------------------------
// case mappings
// ---------------------------------------------------------------------------------------------

/// Characters whose Python titlecase differs from their uppercase (Python 3.11), as
/// (character, titlecase), except the Georgian letters U+10D0..U+10FF, which are their own
/// titlecase. Printed by `[(c, c.title()) for c in map(chr, range(0x110000)) if c.title() != c.upper()]`.
const TITLE_EXCEPTIONS: &[(char, &str)] = &[
    ('\u{df}', "Ss"),
    ('\u{1c4}', "\u{1c5}"),
    ('\u{1c5}', "\u{1c5}"),
    ('\u{1c6}', "\u{1c5}"),
    ('\u{1c7}', "\u{1c8}"),
    ('\u{1c8}', "\u{1c8}"),
    ('\u{1c9}', "\u{1c8}"),
    ('\u{1ca}', "\u{1cb}"),
    ('\u{1cb}', "\u{1cb}"),
    ('\u{1cc}', "\u{1cb}"),
    ('\u{1f1}', "\u{1f2}"),
    ('\u{1f2}', "\u{1f2}"),
    ('\u{1f3}', "\u{1f2}"),
    ('\u{587}', "\u{535}\u{582}"),
    ('\u{1f80}', "\u{1f88}"),
    ('\u{1f81}', "\u{1f89}"),
    ('\u{1f82}', "\u{1f8a}"),
    ('\u{1f83}', "\u{1f8b}"),
    ('\u{1f84}', "\u{1f8c}"),
    ('\u{1f85}', "\u{1f8d}"),
    ('\u{1f86}', "\u{1f8e}"),
    ('\u{1f87}', "\u{1f8f}"),
    ('\u{1f88}', "\u{1f88}"),
    ('\u{1f89}', "\u{1f89}"),
    ('\u{1f8a}', "\u{1f8a}"),
    ('\u{1f8b}', "\u{1f8b}"),
    ('\u{1f8c}', "\u{1f8c}"),
    ('\u{1f8d}', "\u{1f8d}"),
    ('\u{1f8e}', "\u{1f8e}"),
    ('\u{1f8f}', "\u{1f8f}"),
    ('\u{1f90}', "\u{1f98}"),
    ('\u{1f91}', "\u{1f99}"),
    ('\u{1f92}', "\u{1f9a}"),
    ('\u{1f93}', "\u{1f9b}"),
    ('\u{1f94}', "\u{1f9c}"),
    ('\u{1f95}', "\u{1f9d}"),
    ('\u{1f96}', "\u{1f9e}"),
    ('\u{1f97}', "\u{1f9f}"),
    ('\u{1f98}', "\u{1f98}"),
    ('\u{1f99}', "\u{1f99}"),
    ('\u{1f9a}', "\u{1f9a}"),
    ('\u{1f9b}', "\u{1f9b}"),
    ('\u{1f9c}', "\u{1f9c}"),
    ('\u{1f9d}', "\u{1f9d}"),
    ('\u{1f9e}', "\u{1f9e}"),
    ('\u{1f9f}', "\u{1f9f}"),
    ('\u{1fa0}', "\u{1fa8}"),
    ('\u{1fa1}', "\u{1fa9}"),
    ('\u{1fa2}', "\u{1faa}"),
    ('\u{1fa3}', "\u{1fab}"),
    ('\u{1fa4}', "\u{1fac}"),
    ('\u{1fa5}', "\u{1fad}"),
    ('\u{1fa6}', "\u{1fae}"),
    ('\u{1fa7}', "\u{1faf}"),
    ('\u{1fa8}', "\u{1fa8}"),
    ('\u{1fa9}', "\u{1fa9}"),
    ('\u{1faa}', "\u{1faa}"),
    ('\u{1fab}', "\u{1fab}"),
    ('\u{1fac}', "\u{1fac}"),
    ('\u{1fad}', "\u{1fad}"),
    ('\u{1fae}', "\u{1fae}"),
    ('\u{1faf}', "\u{1faf}"),
    ('\u{1fb2}', "\u{1fba}\u{345}"),
    ('\u{1fb3}', "\u{1fbc}"),
    ('\u{1fb4}', "\u{386}\u{345}"),
    ('\u{1fb7}', "\u{391}\u{342}\u{345}"),
    ('\u{1fbc}', "\u{1fbc}"),
    ('\u{1fc2}', "\u{1fca}\u{345}"),
    ('\u{1fc3}', "\u{1fcc}"),
    ('\u{1fc4}', "\u{389}\u{345}"),
    ('\u{1fc7}', "\u{397}\u{342}\u{345}"),
    ('\u{1fcc}', "\u{1fcc}"),
    ('\u{1ff2}', "\u{1ffa}\u{345}"),
    ('\u{1ff3}', "\u{1ffc}"),
    ('\u{1ff4}', "\u{38f}\u{345}"),
    ('\u{1ff7}', "\u{3a9}\u{342}\u{345}"),
    ('\u{1ffc}', "\u{1ffc}"),
    ('\u{fb00}', "Ff"),
    ('\u{fb01}', "Fi"),
    ('\u{fb02}', "Fl"),
    ('\u{fb03}', "Ffi"),
    ('\u{fb04}', "Ffl"),
    ('\u{fb05}', "St"),
    ('\u{fb06}', "St"),
    ('\u{fb13}', "\u{544}\u{576}"),
    ('\u{fb14}', "\u{544}\u{565}"),
    ('\u{fb15}', "\u{544}\u{56b}"),
    ('\u{fb16}', "\u{54e}\u{576}"),
    ('\u{fb17}', "\u{544}\u{56d}"),
];

/// Python's titlecase mapping of one character (`c.title()`).
pub(crate) fn title_char(c: char, out: &mut String) {
    if let Ok(i) = TITLE_EXCEPTIONS.binary_search_by(|(x, _)| x.cmp(&c)) {
        out.push_str(TITLE_EXCEPTIONS.get(i).map_or("", |(_, t)| t));
    } else if ('\u{10d0}'..='\u{10ff}').contains(&c) && !('\u{10fb}'..='\u{10fc}').contains(&c) {
        out.push(c);
    } else {
        out.extend(c.to_uppercase());
    }
}

/// Python's "cased" property: lowercase, uppercase or titlecase letters.
pub(crate) fn is_cased(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase() || is_titlecase_letter(c)
}

fn is_titlecase_letter(c: char) -> bool {
    matches!(u32::from(c), 0x1c5 | 0x1c8 | 0x1cb | 0x1f2 | 0x1f88..=0x1f8f | 0x1f98..=0x1f9f | 0x1fa8..=0x1faf | 0x1fbc | 0x1fcc | 0x1ffc)
}

/// `str.capitalize()`: the first character titlecased, the rest lowercased.
pub(crate) fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    let mut out = String::with_capacity(s.len());
    if let Some(first) = chars.next() {
        title_char(first, &mut out);
        out.push_str(&chars.as_str().to_lowercase());
    }
    out
}

/// `str.title()`: every character after an uncased one titlecased, the others lowercased.
pub(crate) fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut previous_cased = false;
    for c in s.chars() {
        if previous_cased {
            out.extend(c.to_lowercase());
        } else {
            title_char(c, &mut out);
        }
        previous_cased = is_cased(c);
    }
    out
}

/// `str.islower()`: at least one cased character and no uppercase or titlecase one.
pub(crate) fn is_lower(s: &str) -> bool {
    let mut cased = false;
    for c in s.chars() {
        if c.is_uppercase() || is_titlecase_letter(c) {
            return false;
        }
        cased |= c.is_lowercase();
    }
    cased
}

/// `str.isupper()`: at least one cased character and no lowercase or titlecase one.
pub(crate) fn is_upper(s: &str) -> bool {
    let mut cased = false;
    for c in s.chars() {
        if c.is_lowercase() || is_titlecase_letter(c) {
            return false;
        }
        cased |= c.is_uppercase();
    }
    cased
}

/// `str.splitlines()`: splits at `\n`, `\r`, `\r\n`, `\v`, `\f`, `\x1c`-`\x1e`, `\x85`,
/// U+2028 and U+2029.
pub(crate) fn splitlines(s: &str, keepends: bool) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let is_break =
            matches!(c, '\n' | '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}');
        if !is_break {
            continue;
        }
        let mut end = i + c.len_utf8();
        if c == '\r' && it.peek().is_some_and(|&(_, n)| n == '\n') {
            it.next();
            end += 1;
        }
        out.push(s.get(start..if keepends { end } else { i }).unwrap_or_default());
        start = end;
    }
    if start < s.len() {
        out.push(s.get(start..).unwrap_or_default());
    }
    out
}

/// Python `str.strip(chars)` (whitespace when `chars` is `None`) on the chosen sides.
pub(crate) fn strip<'a>(s: &'a str, chars: Option<&str>, left: bool, right: bool) -> &'a str {
    let pred = |c: char| match chars {
        Some(set) => set.contains(c),
        None => pyrepr::py_space(c),
    };
    let s = if left { s.trim_start_matches(pred) } else { s };
    if right { s.trim_end_matches(pred) } else { s }
}

/// Python's `needle in container`.
pub(crate) fn contains(container: &Value, needle: &Value) -> Result<bool, Error> {
    if is_dict_view(container) {
        return Ok(iterate(container)?.iter().any(|x| eq(x, needle)));
    }
    match container.kind() {
        ValueKind::String => match needle.as_str() {
            Some(n) => {
                let hay = container.as_str().unwrap_or_default();
                budget::spend_bytes(hay.len())?;
                Ok(hay.contains(n))
            }
            None => Err(error(format!("'in <string>' requires string as left operand, not {}", type_name(needle)))),
        },
        ValueKind::Seq | ValueKind::Iterable => Ok(iterate(container)?.iter().any(|x| eq(x, needle))),
        ValueKind::Map => {
            if matches!(needle.kind(), ValueKind::Map) || (needle.kind() == ValueKind::Seq && !needle.is_tuple()) {
                return Err(error(format!("unhashable type: '{}'", type_name(needle))));
            }
            Ok(iterate(container)?.iter().any(|k| eq(k, needle)))
        }
        ValueKind::Undefined => Ok(false),
        _ => Err(error(format!("argument of type '{}' is not iterable", type_name(container)))),
    }
}

/// A dict view (`d.items()`, `d.keys()`, `d.values()`): iterates like a list, prints as
/// Python does (`dict_items([('a', 1)])`). A plain object (not a sequence), so that it keeps
/// its own printed form and cannot be indexed.
#[derive(Debug)]
pub(crate) struct DictView {
    pub(super) kind: &'static str,
    pub(super) items: Vec<Value>,
}

impl DictView {
    /// `dict_items`, `dict_keys` or `dict_values`.
    pub(crate) fn kind(&self) -> &'static str {
        self.kind
    }
}

impl Object for DictView {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        self.mapped_enumerator(|this| Box::new(this.items.iter().cloned()))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.items.len())
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind)?;
        f.write_str("(")?;
        pyrepr::write_repr_value(f, &Value::from(self.items.clone()))?;
        f.write_str(")")
    }
}

/// The most items a `range` may have, as minijinja's own `range`.
const MAX_RANGE: i128 = 100_000;

/// `range(stop)` / `range(start, stop[, step])`: a Python range, printed as `range(0, 4)`.
pub(crate) fn range(args: Rest<Value>) -> Result<Value, Error> {
    let ints = args
        .iter()
        .map(|a| {
            if a.kind() == minijinja::value::ValueKind::Bool || !a.is_integer() {
                // Python takes bools as ints; every other type is a TypeError.
                if a.kind() == minijinja::value::ValueKind::Bool {
                    return Ok(i128::from(a.is_true()));
                }
                return Err(error(format!("TypeError: '{}' object cannot be interpreted as an integer", type_name(a))));
            }
            as_int(a).ok_or_else(|| error("OverflowError: Python int too large to convert to C ssize_t"))
        })
        .collect::<Result<Vec<i128>, Error>>()?;
    let (start, stop, step) = match ints[..] {
        [stop] => (0, stop, 1),
        [start, stop] => (start, stop, 1),
        [start, stop, step] => (start, stop, step),
        [] => return Err(error("TypeError: range expected at least 1 argument, got 0")),
        _ => return Err(error(format!("TypeError: range expected at most 3 arguments, got {}", ints.len()))),
    };
    if step == 0 {
        return Err(error("ValueError: range() arg 3 must not be zero"));
    }
    let r = Range { start, stop, step };
    if r.len() > MAX_RANGE {
        return Err(Error::new(ErrorKind::InvalidOperation, "range has too many elements"));
    }
    Ok(Value::from_object(r))
}

/// A Python range: iterates, indexes and has a length like a list, prints as `range(...)`.
#[derive(Debug)]
pub(crate) struct Range {
    start: i128,
    stop: i128,
    step: i128,
}

impl Range {
    fn len(&self) -> i128 {
        let (lo, hi, step) =
            if self.step > 0 { (self.start, self.stop, self.step) } else { (self.stop, self.start, -self.step) };
        if hi <= lo { 0 } else { (hi - lo - 1) / step + 1 }
    }

    fn item(&self, i: i128) -> i128 {
        self.start + i * self.step
    }
}

impl Object for Range {
    fn repr(self: &Arc<Self>) -> minijinja::value::ObjectRepr {
        minijinja::value::ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let len = self.len();
        let i = as_int(key).filter(|_| key.is_integer())?;
        let i = if i < 0 { i + len } else { i };
        (0..len).contains(&i).then(|| Value::from(self.item(i)))
    }

    fn enumerate(self: &Arc<Self>) -> minijinja::value::Enumerator {
        let n = usize::try_from(self.len()).unwrap_or(0);
        self.mapped_enumerator(move |this| Box::new((0..n).map(move |i| Value::from(this.item(i as i128)))))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        usize::try_from(self.len()).ok()
    }

    fn is_true(self: &Arc<Self>) -> bool {
        self.len() > 0
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.step == 1 {
            write!(f, "range({}, {})", self.start, self.stop)
        } else {
            write!(f, "range({}, {}, {})", self.start, self.stop, self.step)
        }
    }
}
