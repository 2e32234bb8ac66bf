//! The values one render sees: the given inputs (or defaults), borrowed where they are used
//! as given, owned where rendering replaces them (rich-input nonces, escaped role words).

use std::sync::Arc;

use serde_json::Value;

use crate::mark::MARK_VAR;

/// Name/value pairs in order, names distinct: the inputs as given (or defaulted), some of
/// them replaced by values of the render's own.
#[derive(Debug, Default)]
pub(crate) struct Context<'a> {
    given: Vec<(&'a str, &'a Value)>,
    /// Replacements: the index in `given` and the value.
    replaced: Vec<(usize, Value)>,
}

impl<'a> Context<'a> {
    /// The pairs as given, borrowed.
    pub(crate) fn new(given: Vec<(&'a str, &'a Value)>) -> Self {
        Self { given, replaced: Vec::new() }
    }

    /// Replaces the value of `name`, if the context has that name.
    pub(crate) fn set(&mut self, name: &str, value: Value) {
        let Some(index) = self.given.iter().position(|(k, _)| *k == name) else { return };
        match self.replaced.iter_mut().find(|(i, _)| *i == index) {
            Some((_, v)) => *v = value,
            None => self.replaced.push((index, value)),
        }
    }

    /// The value of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        let index = self.given.iter().position(|(k, _)| *k == name)?;
        Some(self.value_at(index))
    }

    /// The pairs in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'a str, &Value)> + '_ {
        self.given.iter().enumerate().map(|(index, (name, _))| (*name, self.value_at(index)))
    }

    fn value_at(&self, index: usize) -> &Value {
        match self.replaced.iter().find(|(i, _)| *i == index) {
            Some((_, v)) => v,
            None => self.given.get(index).map_or(&Value::Null, |(_, v)| v),
        }
    }

    /// The context as the root of a minijinja render, with the render's `mark` when it has
    /// one: each value converted once, looked up by name without hashing (a context holds a
    /// handful of names).
    pub(crate) fn to_minijinja(&self, mark: Option<&str>) -> minijinja::Value {
        let pairs = self.iter().map(|(k, v)| (minijinja::Value::from(k), jinja_value(v))).collect();
        minijinja::Value::from_object(Root { mark: mark.map(minijinja::Value::from), pairs })
    }

    /// The context as a JSON object (for the Mustache and Handlebars engines), with the
    /// render's `mark` when it has one.
    #[cfg(any(feature = "mustache", feature = "handlebars"))]
    pub(crate) fn to_json(&self, mark: Option<&str>) -> Value {
        let mut map = serde_json::Map::with_capacity(self.given.len() + 1);
        for (k, v) in self.iter() {
            map.insert(k.to_owned(), v.clone());
        }
        if let Some(mark) = mark {
            map.insert(MARK_VAR.to_owned(), Value::String(mark.to_owned()));
        }
        Value::Object(map)
    }
}

/// The variables of a render: the mark, read once per marked role line and label, and the
/// inputs' names (distinct) and values.
#[derive(Debug)]
struct Root {
    mark: Option<minijinja::Value>,
    pairs: Vec<(minijinja::Value, minijinja::Value)>,
}

impl minijinja::value::Object for Root {
    fn get_value(self: &Arc<Self>, key: &minijinja::Value) -> Option<minijinja::Value> {
        self.get_value_by_str(key.as_str()?)
    }

    fn get_value_by_str(self: &Arc<Self>, key: &str) -> Option<minijinja::Value> {
        if let (Some(mark), MARK_VAR) = (&self.mark, key) {
            return Some(mark.clone());
        }
        self.pairs.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v.clone())
    }

    fn enumerate(self: &Arc<Self>) -> minijinja::value::Enumerator {
        let mark = self.mark.as_ref().map(|_| minijinja::Value::from(MARK_VAR));
        minijinja::value::Enumerator::Values(self.pairs.iter().map(|(k, _)| k.clone()).chain(mark).collect())
    }
}

/// `v` as minijinja's serde conversion (`Value::from(Serde(v))`) makes it: the same
/// representation for every JSON value (positive integers as `u64`, negative ones as `i64`,
/// arrays as vectors, objects as insertion-ordered maps), built without a serializer.
pub(crate) fn jinja_value(v: &Value) -> minijinja::Value {
    match v {
        Value::Null => minijinja::Value::from(()),
        Value::Bool(b) => minijinja::Value::from(*b),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                minijinja::Value::from(u)
            } else if let Some(i) = n.as_i64() {
                minijinja::Value::from(i)
            } else {
                minijinja::Value::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => minijinja::Value::from(s.as_str()),
        Value::Array(items) => minijinja::Value::from_object(items.iter().map(jinja_value).collect::<Vec<_>>()),
        Value::Object(map) => {
            let mut out = indexmap::IndexMap::with_capacity(map.len());
            for (k, v) in map {
                out.insert(minijinja::Value::from(k.as_str()), jinja_value(v));
            }
            minijinja::Value::from_object(out)
        }
    }
}

/// The input whose text makes `needle` (a role line or label), and whether it holds all of
/// it: the one containing it (in any ASCII case), else the one sharing the longest piece with
/// it (a value that ends with its start, starts with its end, or lies inside it).
pub(crate) fn blame(needle: &str, inputs: &Context<'_>) -> Option<(String, bool)> {
    let mut best: Option<(usize, &str)> = None;
    for (name, value) in inputs.iter() {
        let score = overlap(value, needle);
        if score > 0 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, name));
        }
    }
    best.map(|(score, name)| (name.to_owned(), score == usize::MAX))
}

fn overlap(v: &Value, needle: &str) -> usize {
    match v {
        // A template filter may have changed the case (`upper`, `title`).
        Value::String(s) if s.contains(needle) || s.to_ascii_lowercase().contains(&needle.to_ascii_lowercase()) => {
            usize::MAX
        }
        Value::String(s) => {
            let inside = if !s.is_empty() && needle.contains(s.as_str()) { s.len() } else { 0 };
            let edges = (1..needle.len())
                .rev()
                .filter(|&k| needle.is_char_boundary(k))
                .find(|&k| {
                    needle.get(..k).is_some_and(|h| s.ends_with(h))
                        || needle.get(needle.len() - k..).is_some_and(|t| s.starts_with(t))
                })
                .unwrap_or(0);
            inside.max(edges)
        }
        Value::Array(a) => a.iter().map(|x| overlap(x, needle)).max().unwrap_or(0),
        Value::Object(o) => o.values().map(|x| overlap(x, needle)).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Each value converts to what minijinja's serde conversion gives: equal, the same
    /// kind, printed the same, and the same JSON back.
    #[test]
    fn direct_conversion_matches_the_serde_conversion() {
        let values = [
            json!(null),
            json!(true),
            json!(0),
            json!(-1),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1.5),
            json!(1e300),
            json!(-0.0),
            json!(""),
            json!("short"),
            json!("a string longer than twenty-two bytes, é ✓"),
            json!([1, "two", [3.0, null], {"k": false}]),
            json!({"b": 1, "a": {"z": [1], "y": "x"}, "": null, "ü": 2}),
        ];
        for v in &values {
            let direct = jinja_value(v);
            let serde = minijinja::Value::from(minijinja::value::Serde(v));
            assert_eq!(direct, serde, "{v}");
            assert_eq!(direct.kind(), serde.kind(), "{v}");
            assert_eq!(format!("{direct:?}"), format!("{serde:?}"), "{v}");
            assert_eq!(direct.to_string(), serde.to_string(), "{v}");
            assert_eq!(serde_json::to_value(&direct).ok(), serde_json::to_value(&serde).ok(), "{v}");
            let ctx = Context::new(vec![("v", v)]);
            let root = ctx.to_minijinja(None);
            assert_eq!(root.get_attr("v").ok(), Some(serde), "{v}");
            assert!(root.get_attr("w").is_ok_and(|w| w.is_undefined()));
        }
    }
}
