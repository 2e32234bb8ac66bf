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
        let mut out = given.clone();
        if out.is_empty()
            && self.profile == Profile::Promptflow
            && let Some(Value::Object(sample)) = self.legacy.as_ref().and_then(|l| l.sample.as_ref())
        {
            out.clone_from(sample);
        }
        let mut missing = Vec::new();
        for p in self.inputs.iter().flatten() {
            if out.contains_key(&p.name) {
                continue;
            }
            match &p.default {
                Some(d) => {
                    out.insert(p.name.clone(), d.clone());
                }
                None if p.required => missing.push(p.name.clone()),
                None => {}
            }
        }
        if missing.is_empty() { Ok(out) } else { Err(Error::MissingInputs(missing)) }
    }
}
