//! `prompty-toolkit`: load `.prompty` files, render them with any `serde::Serialize` inputs, compile
//! the messages into a provider's request body and score a judge model's answer. One crate,
//! one [`Error`].
//!
//! ```
//! let prompt = prompty_toolkit::from_str(
//!     "---\nmodel: gpt-4o\ninputs:\n  city: {kind: string, default: Paris}\n---\nsystem:\nBe brief.\n\nuser:\nWeather in {{city}}?",
//! )?;
//! let messages = prompt.render(&prompty_toolkit::inputs! { city: "Lisbon" })?;
//! assert_eq!(messages[1].role, "user");
//! assert_eq!(messages[1].text_content(), "Weather in Lisbon?");
//!
//! let request = prompt.compile(&messages, prompty_toolkit::Target::new())?;
//! assert_eq!(request.body["model"], "gpt-4o");
//! assert_eq!(request.body["messages"][1]["content"], "Weather in Lisbon?");
//! # Ok::<(), prompty_toolkit::Error>(())
//! ```
//!
//! - **Loading**: [`load`] reads a file through a [`StdHost`] that reads files only (the
//!   prompt's folder for `${file:}`) and no environment variable; a [`Loader`] takes any
//!   host, extra roots, a forced profile and a render budget. [`from_str`] loads text.
//!   Loading fails on any error-level diagnostic; the error carries all of them.
//! - **Rendering**: [`Prompty::render`] takes a struct, a map, a `serde_json::Value` object
//!   or [`inputs!`]; a loaded prompt is immutable and renders from many threads.
//! - **Requests**: [`Prompty::compile`] builds the body for OpenAI (chat, responses,
//!   embeddings, images; Azure and Foundry alike) or Anthropic (feature `wire`).
//! - **Scores**: [`Prompty::score`] reads a judge model's answer with the prompt's evaluator
//!   configuration (feature `eval`), under the azure-ai-evaluation judge contract the prompt
//!   asks for or [`Loader::contract`] names; [`Prompty::to_azure`] lays it out with the
//!   reference's result keys. A reasoning model's request: [`Target::with_reasoning_model`].
//!   [`Prompty::eval_run`] scores a data file, and `eval_suite` runs several evaluator
//!   prompts over one data file with column mappings.
//! - **Compile-time prompts**: `include_prompty!("prompts/x.prompty")` checks a prompt
//!   while your crate compiles and generates a typed inputs struct (feature `macros`).
//!
//! Errors: [`Error`] implements `std::error::Error`; `{}` prints each problem as
//! `file:line:column: message`, `{:#}` and [`Error::report`] draw every diagnostic as the
//! `prompty` command line tool does. No error text ever shows a value that `${env:}`
//! supplied.
//!
//! Cargo features (all on by default): `jinja` (always on), `mustache`, `handlebars`,
//! `wire`, `eval`, `macros`, `std-host`. Without an engine's feature, a template in its
//! format fails to load with an [`ErrorKind::Template`] error naming the feature.
//!
//! The inner crates are re-exported as modules ([`syntax`], [`render`], `wire`, `eval`) for
//! what this page does not wrap; the types a program needs are re-exported here.
#![warn(missing_docs)]

mod error;
mod inputs;
mod prompty;
/// Diagnostics drawn for people, exactly as the `prompty` command line tool draws them
/// (miette's graphical report with the file's lines around each span), from
/// [`prompty-report`](prompty_report), which also has the machine forms (JSON lines, GitHub
/// annotations, SARIF).
///
/// ```
/// use prompty_toolkit::report::{Source, Style};
///
/// let text = "---\nname: [unclosed\n---\nuser:\nhi\n";
/// let loaded = prompty_toolkit::syntax::load_str(text, &prompty_toolkit::MapHost::new(), &Default::default());
/// let source = Source::new("greeting.prompty", text);
/// let drawn = source.draw(&loaded.diagnostics[0], &Style::default());
/// assert!(drawn.contains("[greeting.prompty:2:"), "{drawn}");
/// ```
pub mod report {
    pub use prompty_report::human::{Source, Style, draw_unlocated};
}

pub use error::{Error, ErrorKind, Report};
pub use inputs::Inputs;
#[cfg(feature = "eval")]
pub use prompty::eval_suite;
pub use prompty::{Loader, Prompty};

/// The loader: text to a typed [`Prompt`] with diagnostics (the `prompty-syntax` crate).
pub use prompty_syntax as syntax;

/// The renderer: a [`Prompt`] and inputs to [`Message`]s (the `prompty-render` crate).
pub use prompty_render as render;

/// Provider requests and responses (the `prompty-wire` crate).
#[cfg(feature = "wire")]
pub use prompty_wire as wire;

/// Judge answers to scores and verdicts (the `prompty-eval` crate).
#[cfg(feature = "eval")]
pub use prompty_eval as eval;

pub use prompty_render::{Limits, Message, Part};
pub use prompty_syntax::{
    Code, Diagnostic, Host, HostError, LineIndex, MapHost, Profile, Prompt, Property, PropertyKind, Secrets, Severity,
};
pub use serde_json::{Map, Value};

#[cfg(feature = "wire")]
pub use prompty_wire::{Api, Compiled, Provider, Target, Warning};

#[cfg(feature = "eval")]
pub use prompty_eval::{Contract, Evaluation, JudgeReply, Verdict};

#[cfg(feature = "std-host")]
pub use prompty_host::StdHost;

/// Checks a `.prompty` file while your crate compiles and generates a typed inputs struct
/// that renders it; see the `prompty-macros` crate's documentation.
#[cfg(feature = "macros")]
pub use prompty_macros::include_prompty;

/// Reads and loads the `.prompty` file at `path` from the file system. `${file:}`
/// references may read the prompt's folder; no environment variable is read (an `${env:}`
/// reference without a default fails to load). For more, use a [`Loader`] with a
/// configured [`StdHost`]:
///
/// ```no_run
/// use prompty_toolkit::{Loader, StdHost};
///
/// let host = StdHost::new().allow_env(true).root("shared");
/// let prompt = Loader::new().std_host(host).load("prompts/chat.prompty")?;
/// # Ok::<(), prompty_toolkit::Error>(())
/// ```
#[cfg(feature = "std-host")]
pub fn load(path: impl AsRef<std::path::Path>) -> Result<Prompty, Error> {
    Loader::new().std_host(StdHost::new()).load(path)
}

/// Loads `.prompty` text, with no host: `${file:}` finds no file and `${env:}` variables are
/// unset (use a [`Loader`] for more).
pub fn from_str(text: &str) -> Result<Prompty, Error> {
    Loader::new().load_str(text)
}

#[doc(hidden)]
pub mod __private;
