//! Mustache engine (in progress).
