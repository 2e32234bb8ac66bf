//! `prompty-py`: the pieces of Python's value semantics that the reference engines and
//! evaluators depend on, byte for byte: `str()` and `repr()` of JSON values, floats,
//! strings and bytes, `str.isspace()` and `str.strip()`, and the builtins the evaluators
//! use ([`builtins`]: `float()` of a string, `json.dumps`, the `\d` class of `re`), and
//! `ast.literal_eval` ([`literal`]: what promptflow makes of a `tool_calls:` list).
//!
//! ```
//! use prompty_py::{builtins, repr_float, str_json};
//!
//! let v = serde_json::json!({"ok": true, "score": 3.0, "why": "it's", "n": null});
//! assert_eq!(str_json(&v), r#"{'ok': True, 'score': 3.0, 'why': "it's", 'n': None}"#);
//! assert_eq!(repr_float(1e16), "1e+16");
//! assert_eq!(builtins::float_from_str(" 4_5 "), Some(45.0));
//! assert_eq!(builtins::json_dumps(&serde_json::json!(["24 °C"])), r#"["24 \u00b0C"]"#);
//! ```
//!
//! A leaf crate (serde_json only): prompty-render prints template values with it and
//! prompty-eval reads and writes judge answers with it.

#![warn(missing_docs)]

pub mod builtins;
pub mod literal;
mod repr;

pub use repr::{
    MAX_DEPTH, UNICODE_VERSION, is_printable, py_bool, py_space, py_strip, repr_bytes, repr_float, repr_json, repr_str,
    str_json, write_repr_bytes, write_repr_float, write_repr_json, write_repr_str, write_str_json,
};
