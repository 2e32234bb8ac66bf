//! Find references and rename of an input: where the front matter declares it and every
//! place the template reads it.

use std::ops::Range;

use crate::analysis::Snapshot;
use crate::cursor;

/// The input named at byte `offset`: its name in a template tag, or its declaration in the
/// front matter (the key of `inputs`, or the `name:` of a list item).
pub fn input_at(s: &Snapshot, offset: usize) -> Option<(String, Range<usize>)> {
    if s.in_front_matter(offset) {
        return s
            .input_nodes()
            .into_iter()
            .find(|(_, span, _)| span.start <= offset && offset <= span.end)
            .map(|(name, span, _)| (name, span));
    }
    if !s.in_body(offset) || cursor::tag_at(&s.text, s.body_span.start, offset).is_none() {
        return None;
    }
    let (reads, _) = prompty_lint::template_reads(&s.text, &s.loaded);
    let read = reads.into_iter().find(|r| r.span.start <= offset && offset <= r.span.end)?;
    let declared = s.prompt()?.input(&read.name).is_some();
    declared.then_some((read.name, read.span))
}

/// The places of the input `name`: its declarations (when `declarations`), then every read
/// of it in the template, in file order.
pub fn references(s: &Snapshot, name: &str, declarations: bool) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    if declarations {
        out.extend(s.input_nodes().into_iter().filter(|(n, _, _)| n == name).map(|(_, span, _)| unquoted(s, span)));
        out.extend(s.sample_nodes().into_iter().filter(|(n, _)| n == name).map(|(_, span)| unquoted(s, span)));
    }
    let (reads, _) = prompty_lint::template_reads(&s.text, &s.loaded);
    out.extend(reads.into_iter().filter(|r| r.name == name).map(|r| r.span));
    out.sort_by_key(|r| r.start);
    out.dedup();
    out
}

/// A YAML scalar's span without its quotes.
fn unquoted(s: &Snapshot, span: Range<usize>) -> Range<usize> {
    let text = s.text.get(span.clone()).unwrap_or("");
    let quoted = text.len() >= 2
        && (text.starts_with('"') && text.ends_with('"') || text.starts_with('\'') && text.ends_with('\''));
    if quoted { span.start + 1..span.end - 1 } else { span }
}

/// Words a Jinja template cannot use as a variable name.
const RESERVED: &[&str] =
    &["true", "false", "none", "True", "False", "None", "and", "or", "not", "in", "is", "if", "else", "loop"];

/// The edits that rename the input at `offset` to `new_name`, or why it cannot be renamed.
pub fn rename(s: &Snapshot, offset: usize, new_name: &str) -> Result<Vec<(Range<usize>, String)>, String> {
    let (name, _) = input_at(s, offset).ok_or("there is no input here to rename")?;
    let valid = new_name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && new_name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid || RESERVED.contains(&new_name) {
        return Err(format!(
            "`{new_name}` cannot name an input: use letters, digits and `_`, not starting with a digit, and not a template keyword"
        ));
    }
    if new_name == name {
        return Ok(Vec::new());
    }
    let prompt = s.prompt().ok_or("the file does not load; fix its errors first")?;
    if prompt.input(new_name).is_some() || s.input_nodes().iter().any(|(n, _, _)| n == new_name) {
        return Err(format!("an input named `{new_name}` already exists"));
    }
    if !s.input_nodes().iter().any(|(n, _, _)| *n == name) {
        return Err(format!("`{name}` is declared in a referenced file, not in this one; rename it there"));
    }
    let (reads, bound) = prompty_lint::template_reads(&s.text, &s.loaded);
    if let Some(taken) = [name.as_str(), new_name].into_iter().find(|n| bound.contains(*n)) {
        return Err(format!(
            "the template binds a name `{taken}` itself (a loop variable, `set`, a macro or an import): rename by hand"
        ));
    }
    let jinja = prompty_syntax::TemplateFormat::from_kind(&prompt.template.format.kind)
        == Some(prompty_syntax::TemplateFormat::Jinja2);
    if !jinja && reads.iter().any(|r| r.nested && (r.name == name || r.name == new_name)) {
        return Err(format!(
            "a section reads `{}`, which may be a field of the section's item rather than the input: rename by hand",
            if reads.iter().any(|r| r.nested && r.name == name) { &name } else { new_name }
        ));
    }
    Ok(references(s, &name, true).into_iter().map(|span| (span, new_name.to_owned())).collect())
}
