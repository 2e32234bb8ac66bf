//! Fixes for the loader's own diagnostics, where the repair is mechanical.
//!
//! - `P010` for a v1 parameter name in a v2 `model.options` (`max_tokens`): rename the key
//!   to its v2 name (`maxOutputTokens`), unless that key is already there. Unsafe: the
//!   option, ignored before, is sent afterwards.

use std::collections::{HashMap, HashSet};

use prompty_syntax::yaml::Node;
use prompty_syntax::{Loaded, V1_PARAMETER_NAMES, codes};

use crate::Finding;

/// The loader's diagnostics as findings, with fixes where they are mechanical.
pub(crate) fn with_fixes(text: &str, loaded: &Loaded) -> Vec<Finding> {
    let options =
        loaded.document.as_ref().and_then(|d| d.tree.as_ref()).and_then(|root| root.get("model")?.get("options"));
    let entries = options.and_then(|o| o.as_map()).unwrap_or_default();
    // The option keys by span and by name, looked up once per diagnostic.
    let by_span: HashMap<(usize, usize), &Node> =
        entries.iter().map(|(k, _)| ((k.span.start, k.span.end), k)).collect();
    let names: HashSet<&str> = entries.iter().filter_map(|(k, _)| k.as_str()).collect();
    loaded
        .diagnostics
        .iter()
        .map(|d| {
            let mut f = Finding::new(d.clone());
            if d.code == codes::UNKNOWN_KEY
                && let Some(key) = by_span.get(&(d.span.start, d.span.end))
                && let Some(v2) = V1_PARAMETER_NAMES.iter().find(|(v1, _)| key.as_str() == Some(*v1)).map(|(_, v2)| *v2)
                && !names.contains(v2)
                && text.get(d.span.clone()) == key.as_str()
            {
                f = f.unsafe_fix(d.span.clone(), v2, format!("rename `{}` to `{v2}`", key.key_string()));
            }
            f
        })
        .collect()
}
