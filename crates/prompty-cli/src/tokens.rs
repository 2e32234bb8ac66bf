//! `prompty render --tokens`: the token counts of the rendered messages, as text after the
//! messages or as a `tokens` object beside them in JSON.

use prompty_syntax::{Message, Prompt};
use prompty_tokens::{Fit, RequestTokens};
use serde_json::{Value, json};

/// The counts of one rendered request, with the answer's budget the prompt asks for.
pub(crate) struct Counts {
    request: RequestTokens,
    max_output_tokens: Option<u64>,
}

impl Counts {
    pub(crate) fn new(prompt: &Prompt, messages: &[Message]) -> Self {
        let model = prompty_tokens::prompt_model(prompt);
        Self {
            request: prompty_tokens::count_messages(&model, messages),
            max_output_tokens: prompty_tokens::max_output_tokens(prompt),
        }
    }

    /// `{"messages": [...], "tokens": {...}}`.
    pub(crate) fn json(&self, messages: &[Message]) -> Result<Value, serde_json::Error> {
        let mut tokens = serde_json::to_value(&self.request)?;
        if let (Some(n), Some(object)) = (self.max_output_tokens, tokens.as_object_mut()) {
            object.insert("maxOutputTokens".to_owned(), n.into());
        }
        Ok(json!({ "messages": messages, "tokens": tokens }))
    }

    /// The human table: a header naming the model and how it was counted, one line a
    /// message, the request's total and what the window leaves.
    pub(crate) fn text(&self) -> String {
        let r = &self.request;
        let exact = r.counting.is_exact();
        let model = if r.model.is_empty() { "no model named" } else { r.model.as_str() };
        let how = if exact { r.counting.name() } else { "estimate: one token per 4 bytes" };
        let mut s = format!("=== tokens: {model} ({how}) ===\n");
        let about = if exact { "" } else { "≈ " };
        let width = r.messages.iter().map(|m| m.role.chars().count()).max().unwrap_or(0).max("request".len());
        for m in &r.messages {
            s.push_str(&format!("{:<width$}  {about}{}", m.role, m.tokens));
            if m.uncounted_parts > 0 {
                let parts = if m.uncounted_parts == 1 { "part" } else { "parts" };
                s.push_str(&format!(" (+{} {parts} not text, not counted)", m.uncounted_parts));
            }
            s.push('\n');
        }
        s.push_str(&format!("{:<width$}  {about}{}", "request", r.total));
        if exact {
            s.push_str(&format!(" (with {} priming the reply)", prompty_tokens::REPLY_PRIMING));
        }
        s.push('\n');
        let budget = self.max_output_tokens.map(|n| format!(" (maxOutputTokens: {n})")).unwrap_or_default();
        let window = r.context_window.unwrap_or(0);
        match r.fit(self.max_output_tokens) {
            Fit::Unknown => s.push_str("window: not known for this model\n"),
            Fit::Fits { left } => {
                s.push_str(&format!("window: {window}, {left} left for the answer{budget}\n"));
            }
            Fit::ShortOfOutput { left, .. } => {
                s.push_str(&format!("window: {window}, only {left} left for the answer{budget}\n"));
            }
            Fit::Exceeds { over } => s.push_str(&format!("window: {window}, exceeded by {over}\n")),
        }
        s
    }
}
