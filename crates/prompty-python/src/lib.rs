//! `prompty_toolkit._native`: the Python module of the `prompty_toolkit` package, on the
//! `prompty-toolkit` facade. Python values become JSON values while the interpreter is held;
//! loading, rendering, compiling and scoring run with it released, so threads render in
//! parallel.

mod convert;
mod errors;

use std::path::PathBuf;
use std::sync::Arc;

use prompty_toolkit::eval::Threshold;
use prompty_toolkit::{Api, JudgeReply, Loader, Map, Profile, Prompty, Provider, StdHost, Target, Value};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::convert::{map_to_py, to_json, to_py};
use crate::errors::{PromptyWarning, to_pyerr};

/// A loaded `.prompty` file: render it, compile requests and score judge answers. Immutable;
/// share one between threads.
#[pyclass(frozen, module = "prompty_toolkit")]
struct Prompt {
    inner: Arc<Prompty>,
}

/// How `render` returns messages.
#[derive(Clone, Copy)]
enum Form {
    /// The OpenAI SDK's message dictionaries.
    OpenAi,
    /// The canonical form `prompty render --format json` prints.
    Prompty,
}

fn form(format: &str) -> PyResult<Form> {
    match format {
        "openai" => Ok(Form::OpenAi),
        "prompty" => Ok(Form::Prompty),
        other => Err(PyValueError::new_err(format!("format {other:?} is not one of \"openai\", \"prompty\""))),
    }
}

/// The inputs of one render as a JSON map; `None` is no inputs.
fn inputs_map(inputs: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Map<String, Value>> {
    match inputs {
        None => Ok(Map::new()),
        Some(v) if v.is_none() => Ok(Map::new()),
        Some(v) => match to_json(v, what)? {
            Value::Object(map) => Ok(map),
            _ => {
                let type_name = v.get_type().name().map(|n| n.to_string()).unwrap_or_default();
                Err(PyTypeError::new_err(format!("{what} must be a dict of input names to values, not `{type_name}`")))
            }
        },
    }
}

/// A reply from what Python passed: the answer text, or a dict (a recorded answer
/// `{"answer", "usage", "model"}`, a provider response, or the judge's own JSON answer).
fn reply_of(answer: &Bound<'_, PyAny>, what: &str) -> PyResult<JudgeReply> {
    if let Ok(s) = answer.cast::<PyString>() {
        return Ok(JudgeReply::text(s.to_cow()?));
    }
    let value = to_json(answer, what)?;
    prompty_toolkit::eval::reply::from_value(value).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

fn threshold_of(threshold: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Threshold>> {
    let Some(t) = threshold.filter(|t| !t.is_none()) else { return Ok(None) };
    match to_json(t, "threshold")? {
        Value::Number(n) if !t.is_instance_of::<pyo3::types::PyBool>() => Ok(Some(Threshold(n))),
        _ => Err(PyTypeError::new_err("threshold must be a number")),
    }
}

/// The outcome of one render, made without the interpreter.
type Rendered = Result<(Vec<Value>, Vec<String>), prompty_toolkit::Error>;

fn render_one(prompt: &Prompty, inputs: &Map<String, Value>, form: Form) -> Rendered {
    let messages = prompt.render_map(inputs)?;
    match form {
        Form::Prompty => {
            let values = messages.iter().map(|m| serde_json::to_value(m).unwrap_or(Value::Null)).collect();
            Ok((values, Vec::new()))
        }
        Form::OpenAi => {
            let (values, warnings) = prompt.chat_messages(&messages)?;
            Ok((values, warnings.iter().map(ToString::to_string).collect()))
        }
    }
}

fn messages_to_py<'py>(py: Python<'py>, values: &[Value], warnings: &[String]) -> PyResult<Bound<'py, PyList>> {
    for w in warnings {
        PyErr::warn(py, &py.get_type::<PromptyWarning>(), &std::ffi::CString::new(w.replace('\0', " "))?, 2)?;
    }
    let list = PyList::empty(py);
    for v in values {
        list.append(to_py(py, v)?)?;
    }
    Ok(list)
}

/// The rows of a batch as input maps; row `i` is named in errors.
fn rows_of(rows: &Bound<'_, PyAny>) -> PyResult<Vec<Map<String, Value>>> {
    let mut out = Vec::new();
    for (i, row) in rows.try_iter()?.enumerate() {
        out.push(inputs_map(Some(&row?), &format!("row {i}"))?);
    }
    Ok(out)
}

#[pymethods]
impl Prompt {
    /// The prompt's `name`, if it has one.
    #[getter]
    fn name(&self) -> Option<String> {
        let prompt = self.inner.prompt();
        prompt.name.as_deref().map(|n| prompt.secrets.redact(n).into_owned())
    }

    /// The file the prompt was loaded from, or `<string>`.
    #[getter]
    fn file(&self) -> String {
        self.inner.name().to_owned()
    }

    /// `promptflow` (a v1 file, rendered as promptflow-core does) or `spec` (Prompty v2).
    #[getter]
    fn profile(&self) -> &'static str {
        match self.inner.prompt().profile {
            Profile::Promptflow => "promptflow",
            _ => "spec",
        }
    }

    /// The warnings loading found, as dicts (`code`, `severity`, `message`, `line`, `column`, `help`).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let text = self.inner.source();
        let index = prompty_toolkit::LineIndex::new(text);
        let list = PyList::empty(py);
        for d in self.inner.diagnostics() {
            let mut d = d.clone();
            self.inner.prompt().secrets.redact_diagnostic(&mut d);
            let (line, column) = index.line_col(text, d.span.start);
            list.append(errors::diagnostic_dict(py, &d, Some((line, column)))?)?;
        }
        Ok(list)
    }

    /// Renders the prompt with `inputs` (a dict; declared defaults fill what it leaves
    /// out) into chat messages: `format="openai"` gives the dicts the OpenAI SDK takes,
    /// `format="prompty"` the canonical form `prompty render --format json` prints.
    #[pyo3(signature = (inputs=None, *, format="openai"))]
    fn render<'py>(
        &self,
        py: Python<'py>,
        inputs: Option<&Bound<'py, PyAny>>,
        format: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let form = form(format)?;
        let map = inputs_map(inputs, "inputs")?;
        let prompt = &*self.inner;
        let (values, warnings) = py.detach(|| render_one(prompt, &map, form)).map_err(|e| to_pyerr(py, &e, None))?;
        messages_to_py(py, &values, &warnings)
    }

    /// Renders every row of `rows` (an iterable of dicts) and returns the messages of each,
    /// in order. The rows are rendered with the interpreter released. The first row that
    /// fails raises, with its index as the exception's `row`.
    #[pyo3(signature = (rows, *, format="openai"))]
    fn render_many<'py>(
        &self,
        py: Python<'py>,
        rows: &Bound<'py, PyAny>,
        format: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let form = form(format)?;
        let maps = rows_of(rows)?;
        let prompt = &*self.inner;
        let rendered: Vec<Rendered> = py.detach(|| maps.iter().map(|m| render_one(prompt, m, form)).collect());
        let out = PyList::empty(py);
        for (i, r) in rendered.into_iter().enumerate() {
            let (values, warnings) = r.map_err(|e| to_pyerr(py, &e, Some(i)))?;
            out.append(messages_to_py(py, &values, &warnings)?)?;
        }
        Ok(out)
    }

    /// The request body for `messages` (as `render` returns them, either form):
    /// `provider` `openai` (also `azure`, `foundry`) or `anthropic`, `api` `chat`,
    /// `responses`, `embedding` or `image`; unset, they come from the prompt's `model`.
    /// `model` overrides the model (or deployment) name. What the target cannot take is
    /// left out with a `PromptyWarning`.
    #[pyo3(signature = (messages, *, provider=None, api=None, model=None))]
    fn compile<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        provider: Option<&str>,
        api: Option<&str>,
        model: Option<&str>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut target = Target::new();
        if let Some(p) = provider {
            let p = Provider::parse(p).ok_or_else(|| {
                PyValueError::new_err(format!("provider {p:?} is not one of openai, azure, foundry, anthropic"))
            })?;
            target = target.with_provider(p);
        }
        if let Some(a) = api {
            let a = Api::parse(a).ok_or_else(|| {
                PyValueError::new_err(format!("api {a:?} is not one of chat, responses, embedding, image"))
            })?;
            target = target.with_api(a);
        }
        if let Some(m) = model {
            target = target.with_model(m);
        }
        let mut list = Vec::new();
        for (i, m) in messages.try_iter()?.enumerate() {
            let value = to_json(&m?, &format!("messages[{i}]"))?;
            list.push(convert::message(i, &value).map_err(PyValueError::new_err)?);
        }
        let prompt = &*self.inner;
        let compiled = py.detach(|| prompt.compile(&list, target)).map_err(|e| to_pyerr(py, &e, None))?;
        for w in &compiled.warnings {
            let text = std::ffi::CString::new(w.to_string().replace('\0', " "))?;
            PyErr::warn(py, &py.get_type::<PromptyWarning>(), &text, 1)?;
        }
        match to_py(py, &compiled.body)?.cast_into::<PyDict>() {
            Ok(d) => Ok(d),
            Err(_) => Err(PyValueError::new_err("the compiled request is not an object")),
        }
    }

    /// Scores a judge model's answer with the prompt's evaluator and returns the result
    /// dict of the azure-ai-evaluation evaluator it follows (`{k}`, `{k}_result`,
    /// `{k}_reason`, `{k}_threshold`, ...). `answer` is the answer text, a recorded answer
    /// `{"answer": ..., "usage": ..., "model": ...}` or a provider response (OpenAI chat
    /// or Responses, Anthropic Messages). `inputs`: the inputs the judge prompt was rendered
    /// with (recorded as `{k}_sample_input`); `threshold` overrides the configured one.
    #[pyo3(signature = (answer, *, inputs=None, threshold=None))]
    fn score<'py>(
        &self,
        py: Python<'py>,
        answer: &Bound<'py, PyAny>,
        inputs: Option<&Bound<'py, PyAny>>,
        threshold: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let reply = reply_of(answer, "answer")?;
        let inputs = match inputs {
            Some(i) if !i.is_none() => Some(inputs_map(Some(i), "inputs")?),
            _ => None,
        };
        let threshold = threshold_of(threshold)?;
        let prompt = &*self.inner;
        let record =
            py.detach(|| prompt.score_azure(&reply, inputs.as_ref(), threshold)).map_err(|e| to_pyerr(py, &e, None))?;
        map_to_py(py, &record)
    }

    /// Scores many answers (one per row; `rows`, when given, the inputs each was rendered
    /// with) with the interpreter released. Returns one dict per answer: the result dict,
    /// or `{"error": {"kind", "code", "message", "line", "column"}}` when the answer could
    /// not be scored.
    #[pyo3(signature = (answers, rows=None, *, threshold=None))]
    fn score_many<'py>(
        &self,
        py: Python<'py>,
        answers: &Bound<'py, PyAny>,
        rows: Option<&Bound<'py, PyAny>>,
        threshold: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut replies = Vec::new();
        for (i, a) in answers.try_iter()?.enumerate() {
            replies.push(reply_of(&a?, &format!("answer {i}"))?);
        }
        let rows = match rows {
            Some(r) if !r.is_none() => {
                let maps = rows_of(r)?;
                if maps.len() != replies.len() {
                    return Err(PyValueError::new_err(format!(
                        "{} rows but {} answers: give one answer per row",
                        maps.len(),
                        replies.len()
                    )));
                }
                Some(maps)
            }
            _ => None,
        };
        let threshold = threshold_of(threshold)?;
        let prompt = &*self.inner;
        let results: Vec<Result<Map<String, Value>, prompty_toolkit::Error>> = py.detach(|| {
            replies
                .iter()
                .enumerate()
                .map(|(i, reply)| {
                    let inputs = rows.as_ref().and_then(|r| r.get(i));
                    prompt.score_azure(reply, inputs, threshold.clone())
                })
                .collect()
        });
        let out = PyList::empty(py);
        for r in &results {
            match r {
                Ok(record) => out.append(map_to_py(py, record)?)?,
                Err(e) => {
                    let d = PyDict::new(py);
                    d.set_item("error", errors::error_dict(py, e)?)?;
                    out.append(d)?;
                }
            }
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        let name = self.name().map(|n| format!(" name={n:?}")).unwrap_or_default();
        format!("<prompty_toolkit.Prompt file={:?}{name} profile={}>", self.inner.name(), self.profile())
    }
}

/// The loader for `allow_env`, `roots` and `profile`.
fn loader(allow_env: bool, roots: Option<Vec<PathBuf>>, profile: Option<&str>) -> PyResult<Loader> {
    let mut host = StdHost::new().allow_env(allow_env);
    for root in roots.unwrap_or_default() {
        host = host.root(root);
    }
    let mut loader = Loader::new().std_host(host);
    match profile {
        None | Some("auto") => {}
        Some("spec") => loader = loader.profile(Profile::Spec),
        Some("promptflow") => loader = loader.profile(Profile::Promptflow),
        Some(other) => {
            return Err(PyValueError::new_err(format!("profile {other:?} is not one of auto, spec, promptflow")));
        }
    }
    Ok(loader)
}

/// Loads a `.prompty` file (a path: `str` or `os.PathLike`) or `.prompty` text (a `str`
/// holding a line break). `allow_env` lets `${env:}` read the environment; `roots` are
/// folders `${file:}` may read besides the prompt's own; `profile` forces `spec` or
/// `promptflow` rendering.
#[pyfunction]
#[pyo3(signature = (source, *, allow_env=false, roots=None, profile=None))]
fn load(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    allow_env: bool,
    roots: Option<Vec<PathBuf>>,
    profile: Option<&str>,
) -> PyResult<Prompt> {
    let loader = loader(allow_env, roots, profile)?;
    if let Ok(s) = source.cast::<PyString>()
        && s.to_cow()?.trim().is_empty()
    {
        return Err(PyValueError::new_err("source is empty: give the path of a .prompty file or its text"));
    }
    let loaded = match source.cast::<PyString>() {
        Ok(s) if s.to_cow()?.contains('\n') => {
            let text = s.to_cow()?.into_owned();
            py.detach(|| loader.load_str(&text))
        }
        _ => {
            let path: PathBuf = source.extract().map_err(|_| {
                PyTypeError::new_err(
                    "source must be a path (str or os.PathLike) or .prompty text (a str with a line break)",
                )
            })?;
            py.detach(|| loader.load(&path))
        }
    };
    let prompt = loaded.map_err(|e| to_pyerr(py, &e, None))?;
    Ok(Prompt { inner: Arc::new(prompt) })
}

/// Loads `.prompty` text (also text of one line); errors call it `<string>`.
#[pyfunction]
#[pyo3(signature = (text, *, allow_env=false, roots=None, profile=None))]
fn loads(
    py: Python<'_>,
    text: &str,
    allow_env: bool,
    roots: Option<Vec<PathBuf>>,
    profile: Option<&str>,
) -> PyResult<Prompt> {
    let loader = loader(allow_env, roots, profile)?;
    let prompt = py.detach(|| loader.load_str(text)).map_err(|e| to_pyerr(py, &e, None))?;
    Ok(Prompt { inner: Arc::new(prompt) })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Prompt>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    errors::register(m)?;
    Ok(())
}
