//! Where partial (and parent) templates come from.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

/// A source of partial templates, looked up by name while rendering.
///
/// `{{> name}}` and `{{< name}}` ask for `name`; a dynamic `{{> *key}}` asks
/// for the string found under `key` in the data. A name with no partial
/// renders as nothing, as the Mustache spec requires. Sources are compiled
/// the first time a render asks for them, and reused for the rest of that
/// render.
pub trait Partials {
    /// The source of the partial called `name`, if there is one.
    fn get(&self, name: &str) -> Option<&str>;
}

/// No partials at all: every `{{> name}}` renders as nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoPartials;

impl Partials for NoPartials {
    fn get(&self, _name: &str) -> Option<&str> {
        None
    }
}

impl<S: BuildHasher> Partials for HashMap<String, String, S> {
    fn get(&self, name: &str) -> Option<&str> {
        HashMap::get(self, name).map(String::as_str)
    }
}

impl<S: BuildHasher> Partials for HashMap<&str, &str, S> {
    fn get(&self, name: &str) -> Option<&str> {
        HashMap::get(self, name).copied()
    }
}

impl Partials for BTreeMap<String, String> {
    fn get(&self, name: &str) -> Option<&str> {
        BTreeMap::get(self, name).map(String::as_str)
    }
}

impl Partials for BTreeMap<&str, &str> {
    fn get(&self, name: &str) -> Option<&str> {
        BTreeMap::get(self, name).copied()
    }
}

impl<P: Partials + ?Sized> Partials for &P {
    fn get(&self, name: &str) -> Option<&str> {
        (**self).get(name)
    }
}
