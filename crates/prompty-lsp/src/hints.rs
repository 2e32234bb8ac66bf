//! Inlay hints: the token count of each message beside the role line that opens it, and
//! the request's total beside the front matter's closing fence, for the prompt's model.
//!
//! The document is rendered as the preview renders it ([`crate::preview`]: defaults,
//! a v1 `sample`, examples, placeholders). The counts are exact for the OpenAI model
//! families (the label names no encoding; the tooltip does) and estimates for other models
//! (the label starts with `≈`). When the messages do not follow the role lines one to one
//! (a role line in a loop or a condition, a thread input), only the total is shown.

use std::ops::Range;

use prompty_tokens::{Fit, RequestTokens};
use serde_json::Map;

use crate::analysis::Snapshot;

/// One hint: where it goes (a byte offset), its label and its tooltip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// The byte offset the hint is shown at (the end of a line).
    pub offset: usize,
    /// The text shown.
    pub label: String,
    /// What the count is and how it was made.
    pub tooltip: String,
}

/// The token hints of the document, in file order; none when it does not render.
pub fn token_hints(s: &Snapshot) -> Vec<Hint> {
    let Some(prompt) = s.prompt() else { return Vec::new() };
    let Ok(preview) = crate::preview::prepare(s, &Map::new()) else { return Vec::new() };
    let model = prompty_tokens::prompt_model(prompt);
    let request = prompty_tokens::count_messages(&model, &preview.messages);
    let exact = request.counting.is_exact();
    let about = if exact { "" } else { "≈" };
    let how = how(&request);
    let mut hints = Vec::new();
    if let Some(offset) = closing_fence_end(s) {
        let budget = prompty_tokens::max_output_tokens(prompt);
        let window = request.context_window.unwrap_or(0);
        let room = match request.fit(budget) {
            Fit::Unknown => String::new(),
            Fit::Fits { left } | Fit::ShortOfOutput { left, .. } => format!(", {left} of {window} left"),
            Fit::Exceeds { over } => format!(", {over} over the {window} window"),
        };
        hints.push(Hint {
            offset,
            label: format!("{about}{} tokens{room}", request.total),
            tooltip: format!("The request rendered with the preview's values: {how}."),
        });
    }
    let roles = prompty_lint::role_lines(&s.text, &s.loaded);
    let one_to_one = roles.len() == request.messages.len()
        && roles.iter().zip(&request.messages).all(|((_, role), m)| *role == m.role.to_ascii_lowercase());
    if one_to_one {
        for ((line, _), m) in roles.iter().zip(&request.messages) {
            let mut label = format!("{about}{} tokens", m.tokens);
            if m.uncounted_parts > 0 {
                label.push_str(&format!(" (+{} not text)", m.uncounted_parts));
            }
            let framing = if exact {
                format!(", with its role and the {} tokens each message costs", prompty_tokens::TOKENS_PER_MESSAGE)
            } else {
                String::new()
            };
            hints.push(Hint {
                offset: line.end,
                label,
                tooltip: format!("This message rendered with the preview's values{framing}: {how}."),
            });
        }
    }
    hints.sort_by_key(|h| h.offset);
    hints
}

/// How the counts were made, for the tooltips.
fn how(request: &RequestTokens) -> String {
    let model = if request.model.is_empty() { "no model named".to_owned() } else { format!("`{}`", request.model) };
    if request.counting.is_exact() {
        format!("{model}, counted exactly with {}", request.counting.name())
    } else {
        format!(
            "{model}, an estimate (one token per 4 bytes of text): no tokenizer is built in for this model, and its context window is not known"
        )
    }
}

/// The end of the front matter's closing fence line (before its line ending).
fn closing_fence_end(s: &Snapshot) -> Option<usize> {
    s.front_span.as_ref()?;
    let head = s.text.get(..s.body_span.start)?;
    let line: Range<usize> = {
        let end = head.strip_suffix('\n').map_or(head.len(), |h| h.strip_suffix('\r').unwrap_or(h).len());
        let start = head[..end].rfind('\n').map_or(0, |i| i + 1);
        start..end
    };
    (line.start < line.end).then_some(line.end)
}
