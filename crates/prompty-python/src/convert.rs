//! Python values to JSON values and back, and chat messages from their dictionaries.

use prompty_toolkit::{Map, Message, Part, Value};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PySequence, PyString, PyTuple};

/// How deep a value may nest (dictionaries and lists): deeper input is refused rather than
/// overflowing the stack.
pub(crate) const MAX_DEPTH: usize = 200;

/// A Python value as JSON: `None`, `bool`, `int` (64-bit), finite `float`, `str`, mappings
/// with `str` keys, lists and tuples (and other sequences but `str`/`bytes`); a number type
/// with `__index__` (NumPy integers) or `__float__` (NumPy floats) as a number. `what` names
/// the value in errors (`input `query``).
pub(crate) fn to_json(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let mut path = String::new();
    to_json_at(value, what, &mut path, 0)
}

fn located(what: &str, path: &str) -> String {
    if path.is_empty() { what.to_owned() } else { format!("{what} at {path}") }
}

fn to_json_at(value: &Bound<'_, PyAny>, what: &str, path: &mut String, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{} nests deeper than {MAX_DEPTH} levels of dictionaries and lists",
            located(what, path)
        )));
    }
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = value.cast::<PyInt>() {
        return int_value(i.as_any(), what, path);
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return float_value(f.value(), what, path);
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = value.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let key = key_of(&k, what, path)?;
            let len = path.len();
            push_key(path, &key);
            let item = to_json_at(&v, what, path, depth + 1)?;
            path.truncate(len);
            map.insert(key, item);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = value.cast::<PyList>() {
        return sequence(l.iter(), what, path, depth);
    }
    if let Ok(t) = value.cast::<PyTuple>() {
        return sequence(t.iter(), what, path, depth);
    }
    if let Ok(m) = value.cast::<PyMapping>() {
        let mut map = Map::new();
        for item in m.items()?.iter() {
            let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let key = key_of(&k, what, path)?;
            let len = path.len();
            push_key(path, &key);
            let item = to_json_at(&v, what, path, depth + 1)?;
            path.truncate(len);
            map.insert(key, item);
        }
        return Ok(Value::Object(map));
    }
    if value.hasattr("__index__")? {
        return int_value(value, what, path);
    }
    if value.hasattr("__float__")? && !value.hasattr("__len__")? {
        return float_value(value.extract::<f64>()?, what, path);
    }
    if !value.is_instance_of::<pyo3::types::PyBytes>()
        && !value.is_instance_of::<pyo3::types::PyByteArray>()
        && let Ok(s) = value.cast::<PySequence>()
    {
        let items: Vec<Bound<'_, PyAny>> = s.try_iter()?.collect::<PyResult<_>>()?;
        return sequence(items.into_iter(), what, path, depth);
    }
    let type_name = value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned());
    Err(PyTypeError::new_err(format!(
        "{} is a `{type_name}`, which has no JSON form: give a str, int, float, bool, None, dict or list",
        located(what, path)
    )))
}

fn sequence<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    what: &str,
    path: &mut String,
    depth: usize,
) -> PyResult<Value> {
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        let len = path.len();
        path.push_str(&format!("[{i}]"));
        out.push(to_json_at(&item, what, path, depth + 1)?);
        path.truncate(len);
    }
    Ok(Value::Array(out))
}

fn push_key(path: &mut String, key: &str) {
    path.push('[');
    path.push_str(&format!("{key:?}"));
    path.push(']');
}

fn key_of(key: &Bound<'_, PyAny>, what: &str, path: &str) -> PyResult<String> {
    match key.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => {
            let type_name = key.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned());
            Err(PyTypeError::new_err(format!(
                "{} has a key of type `{type_name}`; dictionary keys must be str",
                located(what, path)
            )))
        }
    }
}

fn int_value(value: &Bound<'_, PyAny>, what: &str, path: &str) -> PyResult<Value> {
    if let Ok(i) = value.extract::<i64>() {
        return Ok(Value::from(i));
    }
    if let Ok(u) = value.extract::<u64>() {
        return Ok(Value::from(u));
    }
    Err(PyValueError::new_err(format!("{} is an integer outside the 64-bit range", located(what, path))))
}

fn float_value(f: f64, what: &str, path: &str) -> PyResult<Value> {
    match serde_json::Number::from_f64(f) {
        Some(n) => Ok(Value::Number(n)),
        None => Err(PyValueError::new_err(format!(
            "{} is {f}, which has no JSON form (a missing value in a DataFrame is NaN: fill or drop it)",
            located(what, path)
        ))),
    }
}

/// A JSON value as Python: objects become `dict` (keys in order), arrays `list`, integers
/// `int`, other numbers `float`.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => map_to_py(py, map)?.into_any(),
    })
}

/// A JSON object as a Python `dict`.
pub(crate) fn map_to_py<'py>(py: Python<'py>, map: &Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in map {
        dict.set_item(k, to_py(py, v)?)?;
    }
    Ok(dict)
}

/// One chat message from its dictionary: the OpenAI SDK form that `render` returns
/// (`{"role", "content"}` with string content or content parts `{"type": "text", ...}`,
/// `image_url`, `input_audio`, `file`; `name`, `tool_call_id` and `tool_calls` kept) or the
/// canonical form (`{"role", "content": [{"kind", "value"}], "metadata"}`).
pub(crate) fn message(i: usize, value: &Value) -> Result<Message, String> {
    let at = format!("messages[{i}]");
    let Value::Object(o) = value else {
        return Err(format!("{at} is not a dict with `role` and `content`"));
    };
    let role = match o.get("role") {
        Some(Value::String(r)) if !r.is_empty() => r.clone(),
        _ => return Err(format!("{at} has no `role` string")),
    };
    let content = match o.get("content") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![Part::Text { value: s.clone() }],
        Some(Value::Array(parts)) => {
            parts.iter().enumerate().map(|(k, p)| part(&format!("{at}.content[{k}]"), p)).collect::<Result<_, _>>()?
        }
        Some(_) => return Err(format!("{at}.content is neither a string nor a list of content parts")),
    };
    let mut metadata = match o.get("metadata") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(format!("{at}.metadata is not a dict")),
    };
    for key in ["name", "tool_call_id", "tool_calls"] {
        if let Some(v) = o.get(key) {
            metadata.insert(key.to_owned(), v.clone());
        }
    }
    if let Some(key) = o
        .keys()
        .find(|k| !matches!(k.as_str(), "role" | "content" | "metadata" | "name" | "tool_call_id" | "tool_calls"))
    {
        return Err(format!("{at} has the key `{key}`, which a chat message does not have"));
    }
    Ok(Message { role, content, metadata })
}

fn part(at: &str, p: &Value) -> Result<Part, String> {
    if let Value::String(s) = p {
        return Ok(Part::Text { value: s.clone() });
    }
    if p.get("kind").is_some() {
        return serde_json::from_value::<Part>(p.clone()).map_err(|e| format!("{at}: {e}"));
    }
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    match p.get("type").and_then(Value::as_str) {
        Some("text") => s(p.get("text")).map(|value| Part::Text { value }).ok_or_else(|| format!("{at} has no `text`")),
        Some("image_url") => {
            let iu = p.get("image_url");
            let url = s(iu).or_else(|| s(iu.and_then(|i| i.get("url"))));
            let url = url.ok_or_else(|| format!("{at} has no `image_url.url`"))?;
            Ok(Part::Image { value: url, detail: s(iu.and_then(|i| i.get("detail"))), media_type: None })
        }
        Some("input_audio") => {
            let a = p.get("input_audio");
            let data = s(a.and_then(|a| a.get("data"))).ok_or_else(|| format!("{at} has no `input_audio.data`"))?;
            let format = s(a.and_then(|a| a.get("format")));
            Ok(Part::Audio { value: data, media_type: format.map(|f| format!("audio/{f}")) })
        }
        Some("file") => {
            let f = p.get("file");
            let value = s(f.and_then(|f| f.get("url")))
                .or_else(|| s(f.and_then(|f| f.get("file_data"))))
                .or_else(|| s(f.and_then(|f| f.get("file_id"))))
                .ok_or_else(|| format!("{at} has no `file.url`, `file.file_data` or `file.file_id`"))?;
            Ok(Part::File { value, media_type: None })
        }
        Some(other) => {
            Err(format!("{at} has the content part type `{other}`, which is not text, image_url, input_audio or file"))
        }
        None => Err(format!("{at} is a content part without `type` (or `kind`)")),
    }
}
