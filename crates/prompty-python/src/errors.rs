//! The package's exceptions: a facade [`Error`] as a Python exception whose attributes
//! carry its diagnostics. Every text comes from the facade's error, which never shows a
//! value `${env:}` supplied.

use prompty_toolkit::{Diagnostic, Error, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

create_exception!(
    prompty_toolkit,
    PromptyError,
    PyException,
    "A .prompty file could not be loaded, rendered, compiled or scored."
);
create_exception!(
    prompty_toolkit,
    LoadError,
    PromptyError,
    "The file could not be read or loaded, or its template does not compile."
);
create_exception!(
    prompty_toolkit,
    InputsError,
    PromptyError,
    "The inputs cannot be used: a required input is missing, or a value has the wrong shape."
);
create_exception!(
    prompty_toolkit,
    RenderError,
    PromptyError,
    "Rendering failed (a template error, a limit, a forged message)."
);
create_exception!(
    prompty_toolkit,
    CompileError,
    PromptyError,
    "The messages cannot become a request for the target provider."
);
create_exception!(
    prompty_toolkit,
    ScoreError,
    PromptyError,
    "A judge answer cannot be scored, or the prompt has no evaluator."
);
create_exception!(
    prompty_toolkit,
    PromptyWarning,
    PyUserWarning,
    "Something was left out or changed (a compile warning)."
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PromptyError", py.get_type::<PromptyError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("InputsError", py.get_type::<InputsError>())?;
    m.add("RenderError", py.get_type::<RenderError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("ScoreError", py.get_type::<ScoreError>())?;
    m.add("PromptyWarning", py.get_type::<PromptyWarning>())?;
    Ok(())
}

/// One diagnostic as a dict: `code`, `name`, `severity`, `message`, `line`, `column`,
/// `end_line`, `end_column`, `help`.
pub(crate) fn diagnostic_dict<'py>(
    py: Python<'py>,
    d: &Diagnostic,
    at: Option<(usize, usize)>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("code", d.code.id)?;
    dict.set_item("name", d.code.name)?;
    dict.set_item("severity", d.severity.to_string())?;
    dict.set_item("message", &d.message)?;
    dict.set_item("line", at.map(|a| a.0))?;
    dict.set_item("column", at.map(|a| a.1))?;
    dict.set_item("help", d.help.as_deref())?;
    Ok(dict)
}

/// The error as a dict (what `score_many` puts in a failed row): `kind`, `code`, `message`
/// (the error's `str()`), `file`, `line`, `column`.
pub(crate) fn error_dict<'py>(py: Python<'py>, e: &Error) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("kind", e.kind().as_str())?;
    dict.set_item("code", e.code().map(|c| c.id))?;
    dict.set_item("message", e.to_string())?;
    dict.set_item("file", e.file_name())?;
    let at = e.location();
    dict.set_item("line", at.map(|a| a.0))?;
    dict.set_item("column", at.map(|a| a.1))?;
    Ok(dict)
}

/// The facade's error as the exception of its kind. `str()` is the facade's one line per
/// problem (`file:line:column: message [code]`); the attributes: `kind`, `message`, `file`,
/// `line`, `column`, `code`, `diagnostics` (every diagnostic of a failed load, warnings
/// included, as dicts), `report` (every diagnostic drawn as `prompty check` draws it) and
/// `row` (the row of a batch, else `None`).
pub(crate) fn to_pyerr(py: Python<'_>, e: &Error, row: Option<usize>) -> PyErr {
    match build(py, e, row) {
        Ok(err) => err,
        Err(err) => err,
    }
}

fn build(py: Python<'_>, e: &Error, row: Option<usize>) -> PyResult<PyErr> {
    let text = match row {
        Some(i) => format!("row {i}: {e}"),
        None => e.to_string(),
    };
    let err = match e.kind() {
        ErrorKind::Read | ErrorKind::Load | ErrorKind::Template => LoadError::new_err(text),
        ErrorKind::Inputs => InputsError::new_err(text),
        ErrorKind::Render => RenderError::new_err(text),
        ErrorKind::Compile => CompileError::new_err(text),
        ErrorKind::Score => ScoreError::new_err(text),
        _ => PromptyError::new_err(text),
    };
    let value = err.value(py);
    value.setattr("kind", e.kind().as_str())?;
    value.setattr("message", e.message())?;
    value.setattr("file", e.file_name())?;
    let at = e.location();
    value.setattr("line", at.map(|a| a.0))?;
    value.setattr("column", at.map(|a| a.1))?;
    value.setattr("code", e.code().map(|c| c.id))?;
    value.setattr("row", row)?;
    let diagnostics = PyList::empty(py);
    for d in e.diagnostics() {
        diagnostics.append(diagnostic_dict(py, d, e.line_col(d.span.start))?)?;
    }
    value.setattr("diagnostics", diagnostics)?;
    value.setattr("report", e.report().to_string())?;
    Ok(err)
}
