//! Python methods on template values (`name.upper()`, `d.items()`, `'{}'.format(x)`, ...)
//! through minijinja's unknown-method callback, and `string % args` (the patched minijinja
//! sends the `%` operator with a string on the left here as the method `%`).
//!
//! Methods that change a list or dict in place (`append`, `update`, `pop`, ...) are errors:
//! template values are immutable here. Jinja2's `ImmutableSandboxedEnvironment` (the spec
//! profile's reference) refuses them too; promptflow's `SandboxedEnvironment` allows them
//! (docs/compatibility.md).

use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind, State};

use super::budget::{self, Text};
use super::py::{self, DictView, bind, error, int_arg};
use super::strings::{py_center, py_replace};
use super::{printf, strformat};

const MUTATING: &[&str] = &[
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "reverse",
    "sort",
    "clear",
    "update",
    "setdefault",
    "popitem",
    "add",
    "discard",
];

/// The methods and operators handled here, as the render budget names them.
const NAMES: &[&str] = &[
    "%",
    "<",
    "<=",
    ">",
    ">=",
    "in",
    "upper",
    "lower",
    "title",
    "capitalize",
    "swapcase",
    "casefold",
    "isdigit",
    "isalpha",
    "isalnum",
    "isupper",
    "islower",
    "isspace",
    "istitle",
    "isdecimal",
    "isnumeric",
    "isidentifier",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "rsplit",
    "splitlines",
    "replace",
    "startswith",
    "endswith",
    "count",
    "find",
    "rfind",
    "index",
    "rindex",
    "center",
    "ljust",
    "rjust",
    "zfill",
    "partition",
    "rpartition",
    "join",
    "format",
    "removeprefix",
    "removesuffix",
    "expandtabs",
    "encode",
    "items",
    "keys",
    "values",
    "get",
    "copy",
    "conjugate",
    "bit_length",
    "is_integer",
];

/// The unknown-method callback: every method and operator runs as a metered call of the
/// render budget ([`budget::metered`]).
pub(crate) fn call(state: &mut State<'_, '_>, value: &Value, name: &str, args: &[Value]) -> Result<Value, Error> {
    let state: &State<'_, '_> = state;
    let Some(known) = NAMES.iter().find(|n| **n == name) else {
        return dispatch(state, value, name, args);
    };
    let kind = if known.starts_with(|c: char| c.is_ascii_alphabetic()) { "method" } else { "operator" };
    let what = budget::What { kind, name: known };
    budget::metered(state, what, || dispatch(state, value, name, args))
}

fn dispatch(state: &State<'_, '_>, value: &Value, name: &str, args: &[Value]) -> Result<Value, Error> {
    if name == "%" {
        let s = value.as_str().unwrap_or_default();
        let arg = args.first().cloned().unwrap_or_default();
        let out = printf::format(state, s, &arg)?;
        return Ok(if value.is_safe() { Value::from_safe_string(out) } else { Value::from(out) });
    }
    match name {
        "<" | "<=" | ">" | ">=" => {
            let other = args.first().cloned().unwrap_or_default();
            if value.is_undefined() || other.is_undefined() {
                return Err(error("UndefinedError: an undefined value cannot be compared"));
            }
            let o = py::cmp(value, &other).map_err(|_| {
                error(format!(
                    "'{name}' not supported between instances of '{}' and '{}'",
                    py::type_name(value),
                    py::type_name(&other)
                ))
            })?;
            return Ok(Value::from(match name {
                "<" => o.is_lt(),
                "<=" => o.is_le(),
                ">" => o.is_gt(),
                _ => o.is_ge(),
            }));
        }
        "in" => return py::contains(&args.first().cloned().unwrap_or_default(), value).map(Value::from),
        _ => {}
    }
    match value.kind() {
        ValueKind::String => string_method(state, value.as_str().unwrap_or_default(), name, args),
        ValueKind::Map => map_method(value, name, args),
        ValueKind::Seq => seq_method(value, name, args),
        ValueKind::Number | ValueKind::Bool => number_method(value, name, args),
        _ => Err(Error::from(ErrorKind::UnknownMethod)),
    }
}

fn mutation(value: &Value, name: &str) -> Error {
    error(format!(
        "SecurityError: {}.{name}() would change a template value in place; template values are immutable",
        py::type_name(value)
    ))
}

fn opt_str(v: Option<Value>, what: &str) -> Result<Option<String>, Error> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => match v.as_str() {
            Some(s) => Ok(Some(s.to_owned())),
            None => Err(error(format!("{what} arg must be None or str"))),
        },
    }
}

fn req_str(v: Option<Value>, what: &str) -> Result<String, Error> {
    match v {
        Some(v) => v
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| error(format!("{what}: must be str, not {}", py::type_name(&v)))),
        None => Err(error(format!("{what}() missing a required argument"))),
    }
}

fn string_method(state: &State<'_, '_>, s: &str, name: &str, args: &[Value]) -> Result<Value, Error> {
    let v = |x: String| Ok(Value::from(x));
    match name {
        "upper" | "lower" | "title" | "capitalize" | "swapcase" | "casefold" | "isdigit" | "isalpha" | "isalnum"
        | "isupper" | "islower" | "isspace" | "istitle" | "isdecimal" | "isnumeric" | "isidentifier" => {
            bind(name, args, [])?;
            match name {
                "upper" => v(s.to_uppercase()),
                "lower" => v(s.to_lowercase()),
                "title" => v(py::title(s)),
                "capitalize" => v(py::capitalize(s)),
                "casefold" => v(s.to_lowercase().replace('ß', "ss")),
                "swapcase" => v(s
                    .chars()
                    .flat_map(|c| -> Vec<char> {
                        if c.is_uppercase() {
                            c.to_lowercase().collect()
                        } else if c.is_lowercase() {
                            c.to_uppercase().collect()
                        } else {
                            vec![c]
                        }
                    })
                    .collect()),
                "isdigit" | "isdecimal" => Ok(Value::from(
                    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())),
                )),
                "isnumeric" => Ok(Value::from(!s.is_empty() && s.chars().all(char::is_numeric))),
                "isalpha" => Ok(Value::from(!s.is_empty() && s.chars().all(char::is_alphabetic))),
                "isalnum" => Ok(Value::from(!s.is_empty() && s.chars().all(char::is_alphanumeric))),
                "isspace" => Ok(Value::from(!s.is_empty() && s.chars().all(crate::pyrepr::py_space))),
                "isupper" => Ok(Value::from(py::is_upper(s))),
                "islower" => Ok(Value::from(py::is_lower(s))),
                "istitle" => Ok(Value::from(!s.is_empty() && py::title(s) == s && s.chars().any(py::is_cased))),
                _ => Ok(Value::from(
                    s.chars().next().is_some_and(|c| c == '_' || c.is_alphabetic())
                        && s.chars().all(|c| c == '_' || c.is_alphanumeric()),
                )),
            }
        }
        "strip" | "lstrip" | "rstrip" => {
            let [chars] = bind(name, args, ["chars"])?;
            let chars = opt_str(chars, name)?;
            let (l, r) = (name != "rstrip", name != "lstrip");
            v(py::strip(s, chars.as_deref(), l, r).to_owned())
        }
        "split" | "rsplit" => {
            let [sep, maxsplit] = bind(name, args, ["sep", "maxsplit"])?;
            let sep = opt_str(sep, name)?;
            let max = maxsplit.map(|m| int_arg(name, &m)).transpose()?.unwrap_or(-1);
            let parts = py_split(s, sep.as_deref(), max, name == "rsplit")?;
            Ok(Value::from(parts.into_iter().map(Value::from).collect::<Vec<_>>()))
        }
        "splitlines" => {
            let [keepends] = bind(name, args, ["keepends"])?;
            let keep = keepends.is_some_and(|k| k.is_true());
            let lines = py::splitlines(s, keep);
            budget::reserve_items(lines.len() as u128)?;
            budget::spend_items(lines.len())?;
            Ok(Value::from(lines.into_iter().map(Value::from).collect::<Vec<_>>()))
        }
        "replace" => {
            let [old, new, count] = bind(name, args, ["old", "new", "count"])?;
            let count = count.map(|c| int_arg(name, &c)).transpose()?.unwrap_or(-1);
            v(py_replace(s, &req_str(old, name)?, &req_str(new, name)?, count)?)
        }
        "startswith" | "endswith" => {
            let [prefix, start, end] = bind(name, args, ["prefix", "start", "end"])?;
            let prefix = prefix.ok_or_else(|| error(format!("{name}() takes at least 1 argument (0 given)")))?;
            let sub = substring(s, start, end)?;
            let candidates: Vec<Value> = if prefix.is_tuple() { py::iterate(&prefix)? } else { vec![prefix] };
            let mut hit = false;
            for c in candidates {
                let c = c.as_str().map(str::to_owned).ok_or_else(|| {
                    error(format!("{name} first arg must be str or a tuple of str, not {}", py::type_name(&c)))
                })?;
                hit |= if name == "startswith" { sub.starts_with(&c) } else { sub.ends_with(&c) };
            }
            Ok(Value::from(hit))
        }
        "count" => {
            let [sub, start, end] = bind(name, args, ["sub", "start", "end"])?;
            let sub = req_str(sub, name)?;
            let hay = substring(s, start, end)?;
            let n = if sub.is_empty() { hay.chars().count() + 1 } else { hay.matches(sub.as_str()).count() };
            Ok(Value::from(n))
        }
        "find" | "rfind" | "index" | "rindex" => {
            let [sub, start, end] = bind(name, args, ["sub", "start", "end"])?;
            let sub = req_str(sub, name)?;
            let offset =
                start.as_ref().map(|x| int_arg(name, x)).transpose()?.map(|i| norm_index(i, s.chars().count()));
            let hay = substring(s, start, end)?;
            let found = if name.starts_with('r') { hay.rfind(&sub) } else { hay.find(&sub) };
            match found {
                Some(b) => Ok(Value::from(hay.get(..b).unwrap_or_default().chars().count() + offset.unwrap_or(0))),
                None if name.ends_with("index") => Err(error("ValueError: substring not found")),
                None => Ok(Value::from(-1)),
            }
        }
        "center" | "ljust" | "rjust" => {
            let [width, fill] = bind(name, args, ["width", "fillchar"])?;
            let width = int_arg(name, &width.ok_or_else(|| error(format!("{name}() missing width")))?)?;
            let fill = match fill {
                None => ' ',
                Some(f) => {
                    let f = f.as_str().unwrap_or_default().to_owned();
                    let mut it = f.chars();
                    match (it.next(), it.next()) {
                        (Some(c), None) => c,
                        _ => return Err(error("The fill character must be exactly one character long")),
                    }
                }
            };
            printf::reserve(state, width.max(0) as u128)?;
            budget::reserve(s.len() as u128 + width.max(0) as u128 * fill.len_utf8() as u128)?;
            let len = s.chars().count() as i128;
            let pad = usize::try_from((width - len).max(0)).unwrap_or(0);
            let fill_s: String = std::iter::repeat_n(fill, pad).collect();
            v(match name {
                "center" => py_center(s, width, fill),
                "ljust" => format!("{s}{fill_s}"),
                _ => format!("{fill_s}{s}"),
            })
        }
        "zfill" => {
            let [width] = bind(name, args, ["width"])?;
            let width = int_arg(name, &width.ok_or_else(|| error("zfill() missing width"))?)?;
            printf::reserve(state, width.max(0) as u128)?;
            budget::reserve(s.len() as u128 + width.max(0) as u128)?;
            let len = s.chars().count() as i128;
            let pad = usize::try_from((width - len).max(0)).unwrap_or(0);
            let (sign, rest) = match s.chars().next() {
                Some(c @ ('+' | '-')) => (c.to_string(), s.get(1..).unwrap_or_default()),
                _ => (String::new(), s),
            };
            v(format!("{sign}{}{rest}", "0".repeat(pad)))
        }
        "partition" | "rpartition" => {
            let [sep] = bind(name, args, ["sep"])?;
            let sep = req_str(sep, name)?;
            if sep.is_empty() {
                return Err(error("ValueError: empty separator"));
            }
            let found = if name == "partition" { s.find(&sep) } else { s.rfind(&sep) };
            let parts = match found {
                Some(i) => [s.get(..i).unwrap_or_default(), sep.as_str(), s.get(i + sep.len()..).unwrap_or_default()],
                None if name == "partition" => [s, "", ""],
                None => ["", "", s],
            };
            Ok(Value::from(minijinja::value::Tuple::from(parts.iter().map(|p| Value::from(*p)).collect::<Vec<_>>())))
        }
        "join" => {
            let [items] = bind(name, args, ["iterable"])?;
            let items = py::iterate(&items.unwrap_or_default())?;
            let mut out = Text::new();
            for (i, item) in items.iter().enumerate() {
                match item.as_str() {
                    Some(p) => {
                        if i > 0 {
                            out.push_str(s)?;
                        }
                        out.push_str(p)?;
                    }
                    None => {
                        return Err(error(format!(
                            "sequence item {i}: expected str instance, {} found",
                            py::type_name(item)
                        )));
                    }
                }
            }
            v(out.into_string())
        }
        "format" => v(strformat::format(state, s, args)?),
        "removeprefix" | "removesuffix" => {
            let [affix] = bind(name, args, ["prefix"])?;
            let affix = req_str(affix, name)?;
            let out =
                if name == "removeprefix" { s.strip_prefix(affix.as_str()) } else { s.strip_suffix(affix.as_str()) };
            v(out.unwrap_or(s).to_owned())
        }
        "expandtabs" => {
            let [tabsize] = bind(name, args, ["tabsize"])?;
            let tab = tabsize.map(|t| int_arg(name, &t)).transpose()?.unwrap_or(8).max(0);
            printf::reserve(state, tab as u128)?;
            let tab = usize::try_from(tab).unwrap_or(8);
            let mut out = Text::new();
            let mut col = 0usize;
            for c in s.chars() {
                match c {
                    '\t' => {
                        let n = if tab == 0 { 0 } else { tab - col % tab };
                        out.push_repeated(' ', n)?;
                        col += n;
                    }
                    '\n' | '\r' => {
                        out.push(c)?;
                        col = 0;
                    }
                    c => {
                        out.push(c)?;
                        col += 1;
                    }
                }
            }
            v(out.into_string())
        }
        "encode" => {
            let [encoding, _errors] = bind(name, args, ["encoding", "errors"])?;
            match encoding.map(|e| py::str_of(&e)).transpose()?.map(|e| e.to_lowercase().replace(['-', '_'], "")) {
                None => Ok(Value::from_bytes(s.as_bytes().to_vec())),
                Some(e) if e == "utf8" => Ok(Value::from_bytes(s.as_bytes().to_vec())),
                Some(_) => Err(Error::from(ErrorKind::UnknownMethod)),
            }
        }
        _ => Err(Error::from(ErrorKind::UnknownMethod)),
    }
}

/// A Python index normalised against `len` (negative counts from the end), clamped.
fn norm_index(i: i128, len: usize) -> usize {
    let len_i = len as i128;
    let j = if i < 0 { (i + len_i).max(0) } else { i.min(len_i) };
    usize::try_from(j).unwrap_or(0)
}

/// `s[start:end]` by characters.
fn substring(s: &str, start: Option<Value>, end: Option<Value>) -> Result<String, Error> {
    let len = s.chars().count();
    let start = match start {
        Some(x) if !x.is_none() => norm_index(int_arg("slice", &x)?, len),
        _ => 0,
    };
    let end = match end {
        Some(x) if !x.is_none() => norm_index(int_arg("slice", &x)?, len),
        _ => len,
    };
    Ok(if start >= end { String::new() } else { s.chars().skip(start).take(end - start).collect() })
}

/// `str.split` / `str.rsplit`. Each part is charged to the render budget as it is made.
fn py_split(s: &str, sep: Option<&str>, max: i128, right: bool) -> Result<Vec<String>, Error> {
    let limit = if max < 0 { usize::MAX } else { usize::try_from(max).unwrap_or(usize::MAX) };
    let mut out = Vec::new();
    let mut part = |p: &str| -> Result<(), Error> {
        budget::spend_items(1)?;
        budget::spend_bytes(p.len())?;
        out.push(p.to_owned());
        Ok(())
    };
    match sep {
        Some("") => return Err(error("ValueError: empty separator")),
        Some(sep) if right => {
            for p in s.rsplitn(limit.saturating_add(1), sep) {
                part(p)?;
            }
            out.reverse();
        }
        Some(sep) => {
            for p in s.splitn(limit.saturating_add(1), sep) {
                part(p)?;
            }
        }
        None => {
            // Runs of whitespace separate; leading/trailing whitespace is dropped, except
            // the remainder after `maxsplit` splits keeps its inner and outer text.
            let ws = crate::pyrepr::py_space;
            let mut rest = s;
            let mut n = 0usize;
            if !right {
                while n < limit {
                    rest = rest.trim_start_matches(ws);
                    if rest.is_empty() {
                        return Ok(out);
                    }
                    let end = rest.find(ws).unwrap_or(rest.len());
                    part(rest.get(..end).unwrap_or_default())?;
                    n += 1;
                    rest = rest.get(end..).unwrap_or_default();
                }
                rest = rest.trim_start_matches(ws);
                if !rest.is_empty() {
                    part(rest)?;
                }
            } else {
                while n < limit {
                    rest = rest.trim_end_matches(ws);
                    if rest.is_empty() {
                        out.reverse();
                        return Ok(out);
                    }
                    let start = rest
                        .rfind(ws)
                        .map_or(0, |i| i + rest.get(i..).and_then(|r| r.chars().next()).map_or(1, char::len_utf8));
                    part(rest.get(start..).unwrap_or_default())?;
                    n += 1;
                    rest = rest.get(..start).unwrap_or_default();
                }
                rest = rest.trim_end_matches(ws);
                if !rest.is_empty() {
                    part(rest)?;
                }
                out.reverse();
            }
        }
    }
    Ok(out)
}

fn map_method(value: &Value, name: &str, args: &[Value]) -> Result<Value, Error> {
    let tuple = |k: Value, v: Value| Value::from(minijinja::value::Tuple::from(vec![k, v]));
    match name {
        "items" | "keys" | "values" => {
            bind(name, args, [])?;
            let keys = py::iterate(value)?;
            let items = keys
                .into_iter()
                .map(|k| {
                    Ok(match name {
                        "items" => {
                            let v = value.get_item(&k)?;
                            tuple(k, v)
                        }
                        "keys" => k,
                        _ => value.get_item(&k)?,
                    })
                })
                .collect::<Result<Vec<Value>, Error>>()?;
            let kind = match name {
                "items" => "dict_items",
                "keys" => "dict_keys",
                _ => "dict_values",
            };
            Ok(Value::from_object(DictView { kind, items }))
        }
        "get" => {
            let [key, default] = bind(name, args, ["key", "default"])?;
            let key = key.ok_or_else(|| error("get expected at least 1 argument, got 0"))?;
            let direct = value.get_item(&key)?;
            if !direct.is_undefined() {
                return Ok(direct);
            }
            // `1`, `1.0` and `True` are the same key in Python.
            let found =
                if py::is_number(&key) { py::iterate(value)?.into_iter().find(|k| py::eq(k, &key)) } else { None };
            match found {
                Some(k) => value.get_item(&k),
                None => Ok(default.unwrap_or(Value::from(()))),
            }
        }
        "copy" => {
            bind(name, args, [])?;
            Ok(value.clone())
        }
        n if MUTATING.contains(&n) => Err(mutation(value, name)),
        _ => Err(Error::from(ErrorKind::UnknownMethod)),
    }
}

fn seq_method(value: &Value, name: &str, args: &[Value]) -> Result<Value, Error> {
    match name {
        "index" => {
            let [x, start, end] = bind(name, args, ["value", "start", "stop"])?;
            let x = x.ok_or_else(|| error("index expected at least 1 argument, got 0"))?;
            let items = py::iterate(value)?;
            let len = items.len();
            let start = start.map(|s| int_arg(name, &s)).transpose()?.map_or(0, |s| norm_index(s, len));
            let end = end.map(|e| int_arg(name, &e)).transpose()?.map_or(len, |e| norm_index(e, len));
            let found = items
                .iter()
                .enumerate()
                .skip(start)
                .take(end.saturating_sub(start))
                .find(|(_, v)| py::eq(v, &x))
                .map(|(i, _)| Value::from(i));
            match found {
                Some(i) => Ok(i),
                None => Err(error(format!("ValueError: {} is not in list", py::repr_of(&x)?))),
            }
        }
        "count" => {
            let [x] = bind(name, args, ["value"])?;
            let x = x.ok_or_else(|| error("count() takes exactly one argument (0 given)"))?;
            Ok(Value::from(py::iterate(value)?.iter().filter(|v| py::eq(v, &x)).count()))
        }
        "copy" if !value.is_tuple() => {
            bind(name, args, [])?;
            Ok(value.clone())
        }
        n if MUTATING.contains(&n) && !value.is_tuple() => Err(mutation(value, name)),
        _ => Err(Error::from(ErrorKind::UnknownMethod)),
    }
}

fn number_method(value: &Value, name: &str, args: &[Value]) -> Result<Value, Error> {
    match (name, py::as_int(value), py::as_float(value)) {
        ("conjugate", Some(i), _) => {
            bind(name, args, [])?;
            Ok(Value::from(i))
        }
        ("conjugate", _, Some(x)) => {
            bind(name, args, [])?;
            Ok(Value::from(x))
        }
        ("bit_length", Some(i), _) => {
            bind(name, args, [])?;
            Ok(Value::from(128 - i.unsigned_abs().leading_zeros()))
        }
        ("is_integer", _, Some(x)) => {
            bind(name, args, [])?;
            Ok(Value::from(x.is_finite() && x.fract() == 0.0))
        }
        _ => Err(Error::from(ErrorKind::UnknownMethod)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_split() {
        let split =
            |s: &str, sep: Option<&str>, max: i128, right: bool| py_split(s, sep, max, right).unwrap_or_default();
        assert_eq!(split("  a  b c ", None, -1, false), ["a", "b", "c"]);
        assert_eq!(split("  a  b c ", None, 1, false), ["a", "b c "]);
        assert_eq!(split("  a  b c ", None, 1, true), ["  a  b", "c"]);
        assert_eq!(split("a,b,,c", Some(","), -1, false), ["a", "b", "", "c"]);
        assert_eq!(split("a,b,c", Some(","), 1, true), ["a,b", "c"]);
        assert_eq!(split("", None, -1, false), Vec::<String>::new());
        assert_eq!(split("", Some(","), -1, false), [""]);
    }
}
