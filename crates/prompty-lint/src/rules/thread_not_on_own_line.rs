use std::collections::HashSet;

use prompty_syntax::{Profile, PropertyKind};

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a `thread` input that is not interpolated alone on its line (`{{history}}`
    /// with other text beside it, or inside an expression).
    ///
    /// ## Why is this bad?
    /// A thread is replaced by whole messages after the role split. Text on the same line
    /// is cut off into separate messages of the surrounding role, and an expression
    /// (`{{history | join}}`) sees only a placeholder string, not the messages.
    ///
    /// ## Example
    /// ```text
    /// user:
    /// Conversation so far: {{history}}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// user:
    /// Conversation so far:
    /// {{history}}
    /// ```
    pub(crate) struct ThreadNotOnOwnLine {
        code: "PL016",
        name: "thread-not-on-own-line",
        severity: Warning,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.profile != Profile::Spec {
        return;
    }
    let threads: HashSet<&str> =
        cx.prompt.inputs.iter().flatten().filter(|p| p.kind == PropertyKind::Thread).map(|p| p.name.as_str()).collect();
    if threads.is_empty() {
        return;
    }
    // One pass over the reads (findings are sorted into file order afterwards).
    for v in cx.template.vars.iter().filter(|v| v.depth == 0) {
        let Some(&name) = threads.get(v.root.as_str()) else { continue };
        let Some(tag) = &v.tag else {
            out.push(
                ThreadNotOnOwnLine::META
                    .finding(cx.span(v.span.clone()), format!("thread input `{name}` is used inside an expression"))
                    .help("a thread stands for whole messages: interpolate it alone, `{{name}}`, on its own line"),
            );
            continue;
        };
        let line = cx.body.line(cx.body.line_of(tag.start));
        let tag_text = cx.body.text.get(tag.clone()).unwrap_or("");
        if line.trim() != tag_text {
            out.push(
                ThreadNotOnOwnLine::META
                    .finding(cx.span(tag.clone()), format!("thread input `{name}` shares its line with other text"))
                    .help(format!("put `{tag_text}` on a line of its own")),
            );
        }
    }
}
