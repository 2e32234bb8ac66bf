//! A plain, stable, diff-friendly text form of messages, for people and for snapshots.

use crate::message::{Message, Part};

/// Messages as text: a `=== role ===` header per message (with its metadata as JSON), then
/// the content. Non-text parts are shown as `[image: source]`; long sources are shortened.
///
/// ```
/// use prompty_render::{Message, messages_to_text};
/// let text = messages_to_text(&[Message::text("system", "Be brief."), Message::text("user", "Hi")]);
/// assert_eq!(text, "=== system ===\nBe brief.\n\n=== user ===\nHi\n");
/// ```
pub fn messages_to_text(messages: &[Message]) -> String {
    let mut s = String::new();
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str("=== ");
        s.push_str(&m.role);
        if !m.metadata.is_empty() {
            s.push(' ');
            s.push_str(&serde_json::Value::Object(m.metadata.clone()).to_string());
        }
        s.push_str(" ===\n");
        for part in &m.content {
            match part {
                Part::Text { value } => s.push_str(value),
                Part::Image { value, .. } => push_media(&mut s, "image", value),
                Part::File { value, .. } => push_media(&mut s, "file", value),
                Part::Audio { value, .. } => push_media(&mut s, "audio", value),
            }
            if !s.ends_with('\n') {
                s.push('\n');
            }
        }
        if m.content.is_empty() {
            s.push('\n');
        }
    }
    s
}

fn push_media(s: &mut String, kind: &str, source: &str) {
    s.push('[');
    s.push_str(kind);
    s.push_str(": ");
    if source.chars().count() <= 80 {
        s.push_str(source);
    } else {
        s.extend(source.chars().take(77));
        s.push('…');
    }
    s.push(']');
}
