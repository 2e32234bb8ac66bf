//! Python Jinja2 (3.1) semantics where minijinja's differ, installed on every Jinja
//! environment the renderer builds.
//!
//! * the filters and tests Jinja2 has, with its semantics and Python `str()` everywhere
//!   (`filters.rs`, `predicates.rs`); minijinja's own extra filters and tests are removed, so a
//!   template that fails in Jinja2 for an unknown filter fails here too;
//! * Python methods on strings, dicts, lists and numbers, and the `%` string-formatting
//!   operator (`methods.rs`, `printf.rs`, `strformat.rs`);
//! * the `cycler` and `joiner` globals, and `range` and `dict` as Python's (a range prints as
//!   `range(0, 4)`; `dict` takes a mapping or pairs); minijinja's `debug` global is removed;
//! * newlines in the template source normalised to `\n`, as Jinja2's lexer does.
//!
//! Three things cannot be changed from outside minijinja: the `%` operator on strings, the
//! printing of floats by `~`, `|string` and inside containers, and the length of a loop over
//! a string. The forked minijinja (the `prompty-minijinja` crate, see `vendor/README.md`)
//! carries a small patch for each. What remains different is listed in docs/compatibility.md and
//! measured by `tests/jinja_diff.rs`.

pub mod budget;
mod filters;
mod methods;
mod predicates;
mod printf;
mod py;
mod strformat;
mod strings;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use minijinja::value::{Object, Rest, Value};
use minijinja::{Environment, Error, ErrorKind, State};

/// A new environment with the Jinja2 semantics installed. Built once; every call clones it,
/// which is cheap (the filter, test and global tables are shared until changed).
pub fn environment() -> Environment<'static> {
    static BASE: OnceLock<Environment<'static>> = OnceLock::new();
    BASE.get_or_init(|| {
        let mut env = Environment::new();
        install(&mut env);
        env
    })
    .clone()
}

/// Installs the Jinja2 semantics on `env`.
fn install(env: &mut Environment<'_>) {
    filters::install(env);
    predicates::install(env);
    env.set_unknown_method_callback(methods::call);
    env.remove_global("debug");
    env.add_function("range", py::range);
    env.add_function("dict", dict);
    env.add_function("cycler", |items: Rest<Value>| {
        Value::from_object(Cycler { items: items.0, pos: AtomicUsize::new(0) })
    });
    env.add_function("joiner", |sep: Option<Value>| -> Result<Value, Error> {
        let sep = sep.map(|s| py::str_of(&s)).transpose()?.unwrap_or_else(|| ", ".to_owned());
        Ok(Value::from_object(Joiner { sep, used: AtomicBool::new(false) }))
    });
}

/// Whether the renderer's Jinja environment has a filter named `name`.
pub fn has_filter(name: &str) -> bool {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return false;
    }
    // The engine answers: applying an unknown filter fails with `UnknownFilter`; a known one
    // may fail for the argument, which still means it exists.
    match environment().render_str(&format!("{{{{ 1 | {name} }}}}"), ()) {
        Ok(_) => true,
        Err(e) => e.kind() != ErrorKind::UnknownFilter,
    }
}

/// Jinja2's lexer turns `\r\n` and `\r` in the template into `\n` (its `newline_sequence`),
/// in text, raw blocks and string literals alike.
pub fn normalize_newlines(source: String) -> String {
    if memchr::memchr(b'\r', source.as_bytes()).is_none() {
        return source;
    }
    source.replace("\r\n", "\n").replace('\r', "\n")
}

/// `cycler(*items)`: `next()`, `reset()` and `current`.
#[derive(Debug)]
struct Cycler {
    items: Vec<Value>,
    pos: AtomicUsize,
}

impl Object for Cycler {
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        match key.as_str()? {
            "current" => self.items.get(self.pos.load(Ordering::Relaxed)).cloned(),
            _ => None,
        }
    }

    fn call_method(self: &Arc<Self>, _state: &mut State<'_, '_>, method: &str, args: &[Value]) -> Result<Value, Error> {
        if !args.is_empty() {
            return Err(Error::new(ErrorKind::TooManyArguments, format!("{method}() takes no arguments")));
        }
        match method {
            "next" => {
                let n = self.items.len();
                if n == 0 {
                    return Err(Error::new(ErrorKind::InvalidOperation, "IndexError: cycler has no items"));
                }
                let i = self.pos.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| Some((p + 1) % n)).unwrap_or(0);
                Ok(self.items.get(i).cloned().unwrap_or_default())
            }
            "reset" => {
                self.pos.store(0, Ordering::Relaxed);
                Ok(Value::from(()))
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

/// `joiner(sep)`: the empty string on the first call, `sep` after.
#[derive(Debug)]
struct Joiner {
    sep: String,
    used: AtomicBool,
}

impl Object for Joiner {
    fn call(self: &Arc<Self>, _state: &mut State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        if !args.is_empty() {
            return Err(Error::new(ErrorKind::TooManyArguments, "joiner() takes no arguments"));
        }
        Ok(Value::from(if self.used.swap(true, Ordering::Relaxed) { self.sep.as_str() } else { "" }))
    }
}

/// `dict(mapping_or_pairs, **kwargs)`: a copy of a mapping, or a dict built from an iterable of
/// key-value pairs; the keyword arguments are added after. An item that is not a pair is a
/// `TypeError` / `ValueError`, as in Python.
fn dict(positional: Rest<Value>, kwargs: minijinja::value::Kwargs) -> Result<Value, Error> {
    let mut out = indexmap::IndexMap::<Value, Value>::new();
    if positional.len() > 1 {
        return Err(py::error(format!("TypeError: dict expected at most 1 argument, got {}", positional.len())));
    }
    match positional.first().cloned() {
        None => {}
        // Python looks for a `keys` attribute first, which Jinja2's undefined raises for.
        Some(source) if source.is_undefined() => {
            return Err(Error::new(ErrorKind::UndefinedError, "dict() of an undefined value"));
        }
        Some(source) if source.kind() == minijinja::value::ValueKind::Map => {
            if let Some(pairs) = source.as_object().and_then(|o| o.try_iter_pairs()) {
                for (k, v) in pairs {
                    out.insert(k, v);
                }
            }
        }
        Some(source) => {
            for (i, item) in py::iterate(&source)?.into_iter().enumerate() {
                let pair = match item.kind() {
                    minijinja::value::ValueKind::String
                    | minijinja::value::ValueKind::Seq
                    | minijinja::value::ValueKind::Map
                    | minijinja::value::ValueKind::Iterable => py::iterate(&item)?,
                    _ if py::is_dict_view(&item) => py::iterate(&item)?,
                    _ => {
                        return Err(py::error(format!(
                            "TypeError: cannot convert dictionary update sequence element #{i} to a sequence"
                        )));
                    }
                };
                let [k, v] = <[Value; 2]>::try_from(pair).map_err(|p| {
                    py::error(format!(
                        "ValueError: dictionary update sequence element #{i} has length {}; 2 is required",
                        p.len()
                    ))
                })?;
                py::hash_key(&k)?;
                out.insert(k, v);
            }
        }
    }
    for key in kwargs.args() {
        let value: Value = kwargs.get(key)?;
        out.insert(Value::from(key), value);
    }
    Ok(Value::from_object(out))
}
