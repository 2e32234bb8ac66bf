//! `prompty-jinja`: Python Jinja2 3.1, as the reference `.prompty` runtimes render it, on top
//! of minijinja (the `prompty-minijinja` fork, which the renderer and the linter share).
//!
//! - [`environment`]: a minijinja environment with Jinja2's filters, tests, methods, globals
//!   and `%` formatting ([`compat`](self) modules), and [`syntax`], the syntax settings of the
//!   reference engines (`keep_trailing_newline`, and `trim_blocks` for promptflow);
//! - [`pyrepr`]: Python `str()`/`repr()` of template values, and the formatter that prints
//!   every `{{ expr }}` with them;
//! - [`budget`]: the render's fuel and output limit as the filters, tests and methods see it;
//! - [`growth`]: the check that refuses templates able to build values without bound;
//! - [`lexer`]: a template's text, tags, comments and raw blocks, as minijinja's lexer cuts
//!   them, for callers that place marks or find role lines in template text.
//!
//! ```
//! let mut env = prompty_jinja::environment();
//! env.set_syntax(prompty_jinja::syntax(false));
//! env.set_formatter(prompty_jinja::pyrepr::formatter);
//! let out = env.render_str("{{ x }} {{ '%05.1f' % 3.14159 }} {{ range(3) }}", minijinja::context! { x => 1.0 });
//! assert_eq!(out.unwrap(), "1.0 003.1 range(0, 3)");
//! ```

#![warn(missing_docs)]

mod compat;
pub mod growth;
pub mod lexer;
#[cfg(test)]
mod lexer_diff;
pub mod pyrepr;

use minijinja::syntax::SyntaxConfig;

pub use compat::{budget, environment, has_filter, normalize_newlines};

/// Jinja2 3.1's built-in filter names (the environment here has the same set; the `filter`
/// test and the linter's suggestions read them).
pub const JINJA2_FILTERS: &[&str] = &[
    "abs",
    "attr",
    "batch",
    "capitalize",
    "center",
    "count",
    "d",
    "default",
    "dictsort",
    "e",
    "escape",
    "filesizeformat",
    "first",
    "float",
    "forceescape",
    "format",
    "groupby",
    "indent",
    "int",
    "items",
    "join",
    "last",
    "length",
    "list",
    "lower",
    "map",
    "max",
    "min",
    "pprint",
    "random",
    "reject",
    "rejectattr",
    "replace",
    "reverse",
    "round",
    "safe",
    "select",
    "selectattr",
    "slice",
    "sort",
    "string",
    "striptags",
    "sum",
    "title",
    "tojson",
    "trim",
    "truncate",
    "unique",
    "upper",
    "urlencode",
    "urlize",
    "wordcount",
    "wordwrap",
    "xmlattr",
];

/// The syntax settings of the reference engines: Jinja2's delimiters, a trailing newline kept,
/// `lstrip_blocks` off, and `trim_blocks` as given (on in promptflow, off in the Prompty
/// runtimes).
pub fn syntax(trim_blocks: bool) -> SyntaxConfig {
    SyntaxConfig::builder()
        .keep_trailing_newline(true)
        .trim_blocks(trim_blocks)
        .lstrip_blocks(false)
        .build()
        .unwrap_or_default()
}
