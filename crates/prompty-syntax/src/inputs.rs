//! Input validation: defaults filled, required inputs enforced, `example` never used,
//! extra inputs passed through.

use serde_json::{Map, Value};

use crate::Error;
use crate::model::{Profile, Prompt};

impl Prompt {
    /// Validates `given` against the declared inputs and returns the inputs to render with.
    ///
    /// A missing input takes its non-null `default`; a missing required input is an error
    /// (all of them are reported). Undeclared inputs pass through. `example` is never used.
    /// For v1 files with a top-level `sample`, the sample is used when `given` is empty.
    pub fn validate_inputs(&self, given: &Map<String, Value>) -> Result<Map<String, Value>, Error> {
        Ok(self.resolve_inputs(given)?.into_iter().map(|(k, v)| (k.to_owned(), v.clone())).collect())
    }

    /// The same as [`validate_inputs`](Self::validate_inputs), without copying: the given
    /// values (or the v1 sample) in order, then the defaults of declared inputs not given.
    pub fn resolve_inputs<'a>(&'a self, given: &'a Map<String, Value>) -> Result<Vec<(&'a str, &'a Value)>, Error> {
        let source = match self.legacy.as_ref().and_then(|l| l.sample.as_ref()) {
            Some(Value::Object(sample)) if given.is_empty() && self.profile == Profile::Promptflow => sample,
            _ => given,
        };
        let mut out: Vec<(&str, &Value)> = source.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let mut missing = Vec::new();
        let given_count = out.len();
        for p in self.inputs.iter().flatten() {
            // A few given names are compared one by one: cheaper than hashing each name.
            let given = if given_count <= 16 {
                out.get(..given_count).unwrap_or_default().iter().any(|(k, _)| *k == p.name)
            } else {
                source.contains_key(&p.name)
            };
            if given {
                continue;
            }
            match &p.default {
                Some(d) => out.push((p.name.as_str(), d)),
                None if p.required => missing.push(p.name.clone()),
                None => {}
            }
        }
        if missing.is_empty() { Ok(out) } else { Err(Error::MissingInputs(missing)) }
    }
}
