//! Tests (`x is odd`, `x is in y`, ...) with Jinja2's semantics where minijinja's differ.

use std::cmp::Ordering;

use minijinja::value::{Rest, Value, ValueKind, ValueOrKwargs};
use minijinja::{Environment, Error, State};

use super::py::{self, bind, contains, error};
use super::{budget, printf};

type Args = Rest<ValueOrKwargs>;

/// Registers the tests on `env`.
pub(crate) fn install(env: &mut Environment<'_>) {
    // minijinja tests Jinja2 does not have.
    for name in ["int", "startingwith", "endingwith", "safe"] {
        env.remove_test(name);
    }
    // The tests that do work in proportion to their operands run as metered calls of the
    // render budget ([`budget::metered`]); the others look at a value's kind only.
    add(env, "odd", |s, v, a| {
        bind("odd", &a.into_values(), [])?;
        py_mod_eq(s, &v, &Value::from(2), 1)
    });
    add(env, "even", |s, v, a| {
        bind("even", &a.into_values(), [])?;
        py_mod_eq(s, &v, &Value::from(2), 0)
    });
    add(env, "divisibleby", |s, v, a| {
        let [num] = bind("divisibleby", &a.into_values(), ["num"])?;
        let num = num.ok_or_else(|| error("test_divisibleby() missing 1 required positional argument: 'num'"))?;
        py_mod_eq(s, &v, &num, 0)
    });
    env.add_test("number", |v: Value| py::is_number(&v));
    env.add_test("integer", |v: Value| v.kind() == ValueKind::Number && v.is_integer());
    env.add_test("float", |v: Value| v.kind() == ValueKind::Number && !v.is_integer());
    env.add_test("boolean", |v: Value| v.kind() == ValueKind::Bool);
    env.add_test("string", |v: Value| v.kind() == ValueKind::String);
    env.add_test("mapping", |v: Value| v.kind() == ValueKind::Map);
    // len() and __getitem__: strings, lists, tuples, dicts, and Jinja2's Undefined.
    env.add_test("sequence", |v: Value| {
        py::is_list(&v)
            || matches!(
                v.kind(),
                ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Undefined | ValueKind::Bytes
            )
    });
    env.add_test("filter", |v: Value| named_in(&v, crate::JINJA2_FILTERS));
    env.add_test("test", |v: Value| named_in(&v, TESTS));
    env.add_test("iterable", |v: Value| {
        py::is_dict_view(&v)
            || matches!(
                v.kind(),
                ValueKind::String
                    | ValueKind::Seq
                    | ValueKind::Map
                    | ValueKind::Iterable
                    | ValueKind::Undefined
                    | ValueKind::Bytes
            )
    });
    add(env, "lower", |_, v, a| {
        bind("lower", &a.into_values(), [])?;
        Ok(py::is_lower(&py::str_of(&v)?))
    });
    add(env, "upper", |_, v, a| {
        bind("upper", &a.into_values(), [])?;
        Ok(py::is_upper(&py::str_of(&v)?))
    });
    // Functions and macros; Jinja2's `Undefined` is callable too (calling it raises).
    env.add_test("callable", |v: Value| {
        !py::is_dict_view(&v) && matches!(v.kind(), ValueKind::Plain | ValueKind::Undefined)
    });
    add(env, "in", |_, v, a| {
        let [seq] = bind("in", &a.into_values(), ["seq"])?;
        contains(&seq.unwrap_or_default(), &v)
    });
    for name in ["eq", "equalto", "=="] {
        add(env, name, |_, v, a| {
            let [other] = bind("eq", &a.into_values(), ["other"])?;
            Ok(py::eq(&v, &other.ok_or_else(|| error("eq() missing 1 required positional argument: 'other'"))?))
        });
    }
    for name in ["ne", "!="] {
        add(env, name, |_, v, a| {
            let [other] = bind("ne", &a.into_values(), ["other"])?;
            Ok(!py::eq(&v, &other.ok_or_else(|| error("ne() missing 1 required positional argument: 'other'"))?))
        });
    }
    for (names, accept) in [
        (&["lt", "lessthan", "<"][..], &[Ordering::Less][..]),
        (&["le", "<="][..], &[Ordering::Less, Ordering::Equal][..]),
        (&["gt", "greaterthan", ">"][..], &[Ordering::Greater][..]),
        (&["ge", ">="][..], &[Ordering::Greater, Ordering::Equal][..]),
    ] {
        for name in names {
            add(env, name, move |_, v, a| {
                let [other] = bind(name, &a.into_values(), ["other"])?;
                let other = other.ok_or_else(|| error(format!("{name}() missing 1 required positional argument")))?;
                if v.is_undefined() || other.is_undefined() {
                    return Err(error("UndefinedError: comparison with an undefined value"));
                }
                Ok(accept.contains(&py::cmp(&v, &other)?))
            });
        }
    }
}

/// Registers `test` as `name`, run as a metered call ([`budget::metered`]).
fn add<F>(env: &mut Environment<'_>, name: &'static str, test: F)
where
    F: Fn(&State<'_, '_>, Value, Args) -> Result<bool, Error> + Send + Sync + 'static,
{
    let what = budget::What { kind: "test", name };
    env.add_test(name, move |state: &State<'_, '_>, v: Value, a: Args| {
        budget::metered(state, what, || test(state, v, a))
    });
}

/// Jinja2 3.1's test names.
const TESTS: &[&str] = &[
    "!=",
    "<",
    "<=",
    "==",
    ">",
    ">=",
    "boolean",
    "callable",
    "defined",
    "divisibleby",
    "eq",
    "equalto",
    "escaped",
    "even",
    "false",
    "filter",
    "float",
    "ge",
    "greaterthan",
    "gt",
    "in",
    "integer",
    "iterable",
    "le",
    "lessthan",
    "lower",
    "lt",
    "mapping",
    "ne",
    "none",
    "number",
    "odd",
    "sameas",
    "sequence",
    "string",
    "test",
    "true",
    "undefined",
    "upper",
];

/// `value in env.filters` / `env.tests`: a name; unhashable values are a `TypeError`.
fn named_in(v: &Value, names: &[&str]) -> Result<bool, Error> {
    if matches!(v.kind(), ValueKind::Map) || py::is_list(v) {
        return Err(error(format!("unhashable type: '{}'", py::type_name(v))));
    }
    Ok(v.as_str().is_some_and(|s| names.contains(&s)))
}

/// `value % num == want` with Python's `%`: numbers, and printf formatting for strings.
fn py_mod_eq(state: &State<'_, '_>, v: &Value, num: &Value, want: i128) -> Result<bool, Error> {
    match v.kind() {
        ValueKind::String => {
            // `'abc' % 2` is string formatting; the result is never equal to a number.
            printf::format(state, v.as_str().unwrap_or_default(), num)?;
            Ok(false)
        }
        ValueKind::Undefined => Err(error("UndefinedError: undefined value in an arithmetic test")),
        _ if py::is_number(v) && py::is_number(num) => {
            if let (Some(a), Some(b)) = (py::as_int(v), py::as_int(num)) {
                if b == 0 {
                    return Err(error("ZeroDivisionError: integer division or modulo by zero"));
                }
                return Ok(py_int_mod(a, b) == want);
            }
            let (a, b) = (py::number_as_f64(v).unwrap_or(f64::NAN), py::number_as_f64(num).unwrap_or(f64::NAN));
            if b == 0.0 {
                return Err(error("ZeroDivisionError: float modulo"));
            }
            let mut r = a % b;
            if r != 0.0 && (r < 0.0) != (b < 0.0) {
                r += b;
            }
            Ok(r == want as f64)
        }
        _ => Err(error(format!(
            "unsupported operand type(s) for %: '{}' and '{}'",
            py::type_name(v),
            py::type_name(num)
        ))),
    }
}

/// Python's integer `%` (the result has the divisor's sign).
fn py_int_mod(a: i128, b: i128) -> i128 {
    let r = a % b;
    if r != 0 && (r < 0) != (b < 0) { r + b } else { r }
}
