//! Inputs: any `serde::Serialize` value that serializes to a map, and [`inputs!`](crate::inputs!).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind};

/// `inputs` as the map of input names to values rendering takes. A struct, a map or a JSON
/// object serializes to one; `()`, `None` and JSON `null` are no inputs (the declared
/// defaults apply); anything else is an [`ErrorKind::Inputs`] error naming the type.
pub(crate) fn to_map<T: Serialize + ?Sized>(inputs: &T) -> Result<Map<String, Value>, Error> {
    let type_name = std::any::type_name::<T>();
    match serde_json::to_value(inputs) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(other) => Err(Error::new(
            ErrorKind::Inputs,
            format!(
                "inputs must serialize to a map of input names to values (a struct, a map or a JSON object); \
                 `{type_name}` serializes to {}",
                shape(&other)
            ),
        )),
        Err(e) => Err(Error::new(ErrorKind::Inputs, format!("inputs of type `{type_name}` cannot be serialized: {e}"))
            .with_source(e)),
    }
}

fn shape(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a map",
    }
}

/// Input values built by [`inputs!`](crate::inputs!): names and values, in order. Serializes
/// as a map; a value that could not be serialized makes rendering fail with an
/// [`ErrorKind::Inputs`] error naming the input.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    map: Map<String, Value>,
    failed: Option<String>,
}

impl Inputs {
    /// No inputs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the input `name`.
    #[must_use]
    pub fn with<T: Serialize + ?Sized>(mut self, name: &str, value: &T) -> Self {
        match serde_json::to_value(value) {
            Ok(v) => {
                self.map.insert(name.to_owned(), v);
            }
            Err(e) => {
                if self.failed.is_none() {
                    self.failed = Some(format!("input `{name}` cannot be serialized: {e}"));
                }
            }
        }
        self
    }

    /// The values as a JSON map.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.map
    }
}

impl Serialize for Inputs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(problem) = &self.failed {
            return Err(serde::ser::Error::custom(problem));
        }
        self.map.serialize(serializer)
    }
}

/// Input values for [`Prompty::render`](crate::Prompty::render), written like a struct
/// literal: `name: expression`, or a bare `name` for a variable of that name. Any value
/// that implements `serde::Serialize` goes.
///
/// ```
/// let prompt = prompty_toolkit::from_str("---\ninputs:\n  city: {kind: string}\n  days: {kind: integer}\n---\nuser:\n{{city}} for {{days}} days")?;
/// let city = "Lisbon";
/// let messages = prompt.render(&prompty_toolkit::inputs! { city, days: 3 })?;
/// assert_eq!(messages[0].text_content(), "Lisbon for 3 days");
/// # Ok::<(), prompty_toolkit::Error>(())
/// ```
#[macro_export]
macro_rules! inputs {
    () => { $crate::Inputs::new() };
    ($($name:ident $(: $value:expr)?),+ $(,)?) => {
        $crate::Inputs::new() $( .with(::core::stringify!($name), &$crate::inputs!(@value $name $(: $value)?)) )+
    };
    (@value $name:ident : $value:expr) => { $value };
    (@value $name:ident) => { $name };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Question<'a> {
        q: &'a str,
        n: u8,
    }

    #[test]
    fn maps_structs_and_objects_are_inputs() {
        let expected: Map<String, Value> = serde_json::from_str(r#"{"q": "hi", "n": 2}"#).expect("json");
        assert_eq!(to_map(&Question { q: "hi", n: 2 }).ok(), Some(expected.clone()));
        assert_eq!(to_map(&serde_json::json!({"q": "hi", "n": 2})).ok(), Some(expected.clone()));
        let map: BTreeMap<&str, Value> = [("n", Value::from(2)), ("q", Value::from("hi"))].into();
        assert_eq!(to_map(&map).ok(), Some(expected.clone()));
        assert_eq!(to_map(&crate::inputs! { q: "hi", n: 2 }).ok(), Some(expected));
        assert_eq!(to_map(&()).ok(), Some(Map::new()));
        assert_eq!(to_map(&None::<Question<'_>>).ok(), Some(Map::new()));
    }

    #[test]
    fn other_shapes_are_an_error_naming_the_type() {
        let err = to_map(&vec![1, 2]).expect_err("an array is not inputs");
        assert_eq!(err.kind(), ErrorKind::Inputs);
        assert_eq!(
            err.to_string(),
            "inputs must serialize to a map of input names to values (a struct, a map or a JSON object); \
             `alloc::vec::Vec<i32>` serializes to an array"
        );
        let err = to_map("question").expect_err("a string is not inputs");
        assert!(err.to_string().ends_with("`str` serializes to a string"), "{err}");
        // A map whose keys are not strings cannot be serialized at all.
        let odd: BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let err = to_map(&odd).expect_err("tuple keys");
        assert!(
            err.to_string().starts_with(
                "inputs of type `alloc::collections::btree::map::BTreeMap<(u8, u8), u8>` cannot be serialized: "
            ),
            "{err}"
        );
        assert!(std::error::Error::source(&err).is_some());
        let err = to_map(&crate::inputs! { fine: 1, odd }).expect_err("one bad value");
        assert!(err.to_string().contains("input `odd` cannot be serialized"), "{err}");
    }
}
