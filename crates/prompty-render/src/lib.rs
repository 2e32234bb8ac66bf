//! Rendering `.prompty` prompts: template engines, the role split into chat messages,
//! and the compiler from messages to provider requests.

pub mod pyrepr;
