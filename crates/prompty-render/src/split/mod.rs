//! The split of rendered text into messages, one module per profile: [`spec`] (role lines,
//! Prompty v2) and [`promptflow`] (promptflow-core's separator, labels and escapes). Both
//! check the role lines they find against [`TemplatePlaces`](crate::plan::TemplatePlaces)
//! when the render carries them.

pub(crate) mod promptflow;
pub(crate) mod spec;

use crate::error::{Error, ErrorKind};

/// The most messages a render may split its text into: far more than any conversation a
/// prompt holds, few enough that a template of nothing but role lines cannot make the
/// request (or the time and memory spent on it) grow without bound.
pub const MAX_MESSAGES: usize = 10_000;

/// The error for rendered text with more than `max` messages.
pub(crate) fn too_many_messages(max: usize) -> Error {
    Error::new(
        ErrorKind::Limit,
        format!(
            "the rendered text splits into more than {max} messages, the most a render may give; write fewer role lines (or a thread input) per prompt"
        ),
    )
}
