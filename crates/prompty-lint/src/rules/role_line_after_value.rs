use prompty_syntax::TemplateFormat;

use crate::Finding;
use crate::body::role_of;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Reports a role line written right after a value on the same line
    /// (`{{context}}user:`), or on the next line after a tag whose whitespace control removes
    /// the line break (`{{ context -}}` then `user:`).
    ///
    /// ## Why is this bad?
    /// Whether the line starts a message then depends on the value. When it renders nothing
    /// (and nothing else comes before it on the line), the role line stands alone and the
    /// message starts; when it renders any text, the line is ordinary text and everything up
    /// to the next role line joins the message before.
    /// An input can make the user's message part of the system message this way. The
    /// renderer cannot refuse it: the text is what the template wrote, in both profiles,
    /// and the reference runtimes render it the same way.
    ///
    /// Comments between the value and the role line render nothing and are looked through.
    /// Not reported: a role line after a block tag that renders nothing (`{% endif %}user:`,
    /// `{{/if~}}`), after a tag whose line break `trim_blocks` removes (the promptflow
    /// profile), or after a Mustache tag with changed delimiters.
    ///
    /// ## Example
    /// ```text
    /// system:
    /// Use this context: {{context}}user:
    /// {{question}}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// system:
    /// Use this context: {{context}}
    /// user:
    /// {{question}}
    /// ```
    pub(crate) struct RoleLineAfterValue {
        code: "PL031",
        name: "role-line-after-value",
        severity: Error,
        fix: Unsafe,
    }
}

/// The longest role line looked at, attributes included (bytes).
const MAX_ROLE_LINE: usize = 1024;

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(format) = cx.format.filter(|_| cx.template.parsed) else { return };
    let text = cx.body.text.as_str();
    for expr in &cx.template.exprs {
        let tag = text.get(expr.clone()).unwrap_or_default();
        let Some(glued) = glued_text(text, expr.end, trim_control(format, tag, expr.end), format) else { continue };
        let end = cx.body.lines.get(cx.body.line_of(glued.at)).map_or(text.len(), |l| l.end);
        let line = text.get(glued.at..end).unwrap_or_default();
        // A role line ends with its colon, and is short: checked first, so that a long line
        // of many values costs one look per value, not a scan of the rest of the line.
        if line.len() > MAX_ROLE_LINE || !line.trim_end().ends_with(':') || role_of(line, cx.profile).is_none() {
            continue;
        }
        // The role line is the template's own text, not text inside another tag.
        let word = glued.at + (line.len() - line.trim_start_matches([' ', '\t']).len());
        if cx.template.literal_at(word).is_none() {
            continue;
        }
        let head = line.trim();
        let finding = RoleLineAfterValue::META
            .finding(
                cx.span(word..end),
                format!(
                    "`{head}` follows `{tag}` with no line break between them: it starts a message only if nothing renders before it on its line"
                ),
            )
            .help(format!("put `{head}` on a line of its own"));
        let newline = cx.body.newline();
        out.push(match glued.trimmed_by {
            // Whitespace control removed the line break: keeping it is enough.
            Some(control) if text.get(control + 1..word).is_some_and(|w| w.contains('\n')) => finding.unsafe_fix(
                cx.span(control..control + 1),
                "",
                format!("drop the whitespace control, so that the line break before `{head}` stays"),
            ),
            // Whitespace control with no line break to keep: drop it and start a new line.
            Some(control) => finding.unsafe_fix(
                cx.span(control..word),
                format!("{}{newline}", text.get(control + 1..word).unwrap_or_default()),
                format!("drop the whitespace control and start a new line before `{head}`"),
            ),
            None => finding.unsafe_fix(cx.span(word..word), newline, format!("start a new line before `{head}`")),
        });
    }
}

/// The byte offset of the control character (`-` in Jinja, `~` in Handlebars) of a tag ending
/// at `end` that removes the whitespace after it, if it has one.
fn trim_control(format: TemplateFormat, tag: &str, end: usize) -> Option<usize> {
    match format {
        TemplateFormat::Jinja2 => tag.ends_with("-}}").then(|| end - 3),
        TemplateFormat::Handlebars if tag.ends_with("~}}}") => Some(end - 4),
        TemplateFormat::Handlebars => tag.ends_with("~}}").then(|| end - 3),
        TemplateFormat::Mustache => None,
    }
}

/// Where the text that renders right after a tag is: the tag's end, past the whitespace its
/// control removes and past comments (which render nothing), each with its own control.
struct Glued {
    at: usize,
    /// The control character that removed the whitespace right before `at`, if any.
    trimmed_by: Option<usize>,
}

fn glued_text(text: &str, mut at: usize, mut control: Option<usize>, format: TemplateFormat) -> Option<Glued> {
    // A bounded number of comments in a row.
    for _ in 0..64 {
        if control.is_some() {
            let rest = text.get(at..)?;
            at += rest.len() - rest.trim_start().len();
        }
        let Some((end, trims)) = comment_at(text, at, format) else {
            return Some(Glued { at, trimmed_by: control });
        };
        control = trims;
        at = end;
    }
    None
}

/// The end of the comment starting at `at`, and the offset of its closing whitespace
/// control (`-#}`, `~}}`, `--~}}`) if it has one; `None` when no comment starts there.
fn comment_at(text: &str, at: usize, format: TemplateFormat) -> Option<(usize, Option<usize>)> {
    let rest = text.get(at..)?;
    let (body, close) = match format {
        TemplateFormat::Jinja2 => (rest.strip_prefix("{#")?, "#}"),
        TemplateFormat::Mustache => (rest.strip_prefix("{{!")?, "}}"),
        TemplateFormat::Handlebars => {
            let inner = rest.strip_prefix("{{~").or_else(|| rest.strip_prefix("{{"))?;
            match inner.strip_prefix("!--") {
                Some(long) => (long, "--"),
                None => (inner.strip_prefix('!')?, "}}"),
            }
        }
    };
    let from = at + (rest.len() - body.len());
    let mut k = from + body.find(close)?;
    if format == TemplateFormat::Handlebars && close == "--" {
        // `--}}` or `--~}}`, the first `--` that one follows.
        loop {
            let after = text.get(k + 2..)?;
            if after.starts_with("}}") || after.starts_with("~}}") {
                break;
            }
            k += 2 + after.find("--")?;
        }
        let trims = text.get(k + 2..)?.starts_with('~');
        let end = k + 2 + usize::from(trims) + 2;
        return Some((end, trims.then_some(k + 2)));
    }
    let end = k + close.len();
    let control = k.checked_sub(1).filter(|&c| {
        let marker = if format == TemplateFormat::Jinja2 { b'-' } else { b'~' };
        c >= from && format != TemplateFormat::Mustache && text.as_bytes().get(c) == Some(&marker)
    });
    Some((end, control))
}
