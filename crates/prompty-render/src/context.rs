//! The values one render sees: the given inputs (or defaults), borrowed where they are used
//! as given, owned where rendering replaces them (rich-input nonces, escaped role words).

use std::borrow::Cow;

use serde_json::Value;

/// Name/value pairs in order; later entries override earlier ones of the same name.
#[derive(Debug, Default)]
pub(crate) struct Context<'a> {
    pub(crate) entries: Vec<(Cow<'a, str>, Cow<'a, Value>)>,
}

impl<'a> Context<'a> {
    /// Borrowed pairs.
    pub(crate) fn new(pairs: Vec<(&'a str, &'a Value)>) -> Self {
        Self { entries: pairs.into_iter().map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v))).collect() }
    }

    /// Adds (or, when the name is present, replaces) a value.
    pub(crate) fn set(&mut self, name: &str, value: Value) {
        match self.entries.iter_mut().find(|(k, _)| k == name) {
            Some((_, v)) => *v = Cow::Owned(value),
            None => self.entries.push((Cow::Owned(name.to_owned()), Cow::Owned(value))),
        }
    }

    /// The value of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_ref())
    }

    /// The context as a minijinja value (one conversion, no intermediate JSON copy).
    pub(crate) fn to_minijinja(&self) -> minijinja::Value {
        let map: std::collections::BTreeMap<String, minijinja::Value> = self
            .entries
            .iter()
            .map(|(k, v)| (k.as_ref().to_owned(), minijinja::Value::from(minijinja::value::Serde(v.as_ref()))))
            .collect();
        minijinja::Value::from_object(map)
    }

    /// The context as a JSON object (for the Mustache and Handlebars engines).
    #[cfg(any(feature = "mustache", feature = "handlebars"))]
    pub(crate) fn to_json(&self) -> Value {
        let mut map = serde_json::Map::with_capacity(self.entries.len());
        for (k, v) in &self.entries {
            map.insert(k.as_ref().to_owned(), v.as_ref().clone());
        }
        Value::Object(map)
    }
}
