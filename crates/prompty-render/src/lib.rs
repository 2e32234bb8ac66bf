//! `prompty-render`: a loaded [`Prompt`](prompty_syntax::Prompt) plus inputs to chat messages.
//!
//! ```
//! use prompty_render::Renderer;
//! use prompty_syntax::{load_str, LoadOptions, MapHost};
//!
//! let text = "---\nname: hi\ninputs:\n  q: {kind: string, default: Paris}\n---\nsystem:\nBe brief.\n\nuser:\n{{q}}";
//! let prompt = load_str(text, &MapHost::new(), &LoadOptions::default()).prompt.unwrap();
//! let renderer = Renderer::new(prompt).unwrap();
//! let messages = renderer.prepare(&serde_json::Map::new()).unwrap();
//! assert_eq!(messages[1].text_content(), "Paris");
//! ```
//!
//! Two profiles: `spec` renders like the Prompty v2 reference, `promptflow` like
//! promptflow-core for v1 files (role words in inputs escaped). In both, the template's own
//! role lines (and promptflow's labels) are marked per render and any other is refused. Values are stringified as Python's `str()` does, byte for byte.

#![warn(missing_docs)]

pub mod codes;
mod compile;
mod context;
mod engine;
mod error;
#[cfg(feature = "handlebars")]
mod handlebars;
mod layout;
mod limits;
mod mark;
// The message model lives in prompty-syntax, beside the prompt model; `crate::message`
// keeps naming it here.
use prompty_syntax::message;
mod nesting;
mod pfimage;
mod plan;
pub use prompty_jinja::pyrepr;
mod renderer;
mod rich;
mod roles;
mod split;
mod text;

pub use compile::SyntaxTreeObserver;
pub use engine::check_nesting;
pub use error::{Error, ErrorKind};
pub use limits::Limits;
pub use prompty_jinja::has_filter as has_jinja_filter;
pub use prompty_syntax::{Message, Part};
pub use renderer::{RenderOptions, Renderer, Segment};
pub use roles::{PROMPTFLOW_ROLES, SPEC_ROLES, role_line};
pub use split::MAX_MESSAGES;
pub use split::promptflow::split_messages_promptflow;
pub use split::spec::split_messages;
pub use text::messages_to_text;
