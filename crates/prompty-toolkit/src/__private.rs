//! What the code `include_prompty!` generates calls. Not a public API: it changes with the
//! macro, which always comes in the same version as this crate.

use std::sync::Arc;

pub use prompty_syntax::yaml::{Flat, FlatNode};
pub use serde;
pub use std::sync::LazyLock;

use crate::Profile;
use crate::error::{Error, ErrorKind, FileText};
use crate::prompty::{Loader, Prompty};
use crate::syntax::{FrontMatter, Secrets, load_parsed, yaml::Node};

/// The optional features of this build of the crate, in `Cargo.toml`'s order, each with
/// whether it is on. The compile-fail cases of the tests (`tests/it/ui.rs`) compile a probe
/// that asserts these values, to tell the build their test binary links apart from other
/// builds of this crate in the same folder.
pub const FEATURES: &[(&str, bool)] = &[
    ("jinja", cfg!(feature = "jinja")),
    ("mustache", cfg!(feature = "mustache")),
    ("handlebars", cfg!(feature = "handlebars")),
    ("wire", cfg!(feature = "wire")),
    ("eval", cfg!(feature = "eval")),
    ("macros", cfg!(feature = "macros")),
    ("std-host", cfg!(feature = "std-host")),
];

/// A prompt checked at compile time: its file's text and its front matter, parsed and
/// resolved then, laid out flat.
pub struct Embedded {
    /// The path as written in the macro call.
    pub name: &'static str,
    /// The file stem (the evaluator of a known prompt is found by it).
    pub stem: &'static str,
    /// The file's text.
    pub text: &'static str,
    /// Whether the file loads with the promptflow profile.
    pub promptflow: bool,
    /// The front matter.
    pub front_matter: &'static [FlatNode<'static>],
}

/// Builds the prompt: the front matter rebuilt from its flat form, lowered and compiled.
/// No YAML is parsed, no file and no environment variable read.
pub fn build(e: &Embedded) -> Result<Prompty, Error> {
    let file = FileText { name: Arc::from(e.name), text: Arc::from(e.text) };
    let root = Node::from_flat(e.front_matter).ok_or_else(|| {
        Error::new(ErrorKind::Load, "the embedded front matter is damaged; rebuild the crate").with_file(&file)
    })?;
    let profile = if e.promptflow { Profile::Promptflow } else { Profile::Spec };
    let loaded = load_parsed(e.text, FrontMatter { root, profile, secrets: Secrets::new() });
    Loader::new().finish(file, loaded, Some(e.stem.to_owned()))
}

/// Makes a missing engine a compile error at the macro call: expands to nothing when this
/// crate renders `format`, to `compile_error!` naming the feature otherwise.
#[macro_export]
#[doc(hidden)]
macro_rules! __require_engine {
    (jinja) => {};
    (mustache) => {
        $crate::__private::mustache!();
    };
    (handlebars) => {
        $crate::__private::handlebars!();
    };
}

#[cfg(feature = "mustache")]
#[macro_export]
#[doc(hidden)]
macro_rules! __mustache_on {
    () => {};
}

#[cfg(not(feature = "mustache"))]
#[macro_export]
#[doc(hidden)]
macro_rules! __mustache_on {
    () => {
        ::core::compile_error!(
            "this prompt's template is Mustache: enable the `mustache` feature of the `prompty` crate"
        );
    };
}

#[cfg(feature = "handlebars")]
#[macro_export]
#[doc(hidden)]
macro_rules! __handlebars_on {
    () => {};
}

#[cfg(not(feature = "handlebars"))]
#[macro_export]
#[doc(hidden)]
macro_rules! __handlebars_on {
    () => {
        ::core::compile_error!(
            "this prompt's template is Handlebars: enable the `handlebars` feature of the `prompty` crate"
        );
    };
}

pub use crate::__handlebars_on as handlebars;
pub use crate::__mustache_on as mustache;
