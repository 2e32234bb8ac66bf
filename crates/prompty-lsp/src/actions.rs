//! Code actions: every lint fix as a quick fix, "declare this input" for a variable no input
//! declares, and one action that applies every safe fix of the file. Only safe fixes are
//! preferred; an unsafe one (it changes what the prompt sends) says so in its title.

use std::ops::Range;

use prompty_lint::Finding;
use prompty_syntax::Profile;
use prompty_syntax::yaml::{Node, NodeValue};

use crate::analysis::{Analysis, Workspace};

/// What an action is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Resolves one finding.
    QuickFix,
    /// Applies every safe fix of the file (`source.fixAll`).
    FixAll,
}

/// One action: a title and edits (byte ranges of the analyzed text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// What the action does.
    pub title: String,
    /// Quick fix or fix-all.
    pub kind: Kind,
    /// Replacements, in file order, not overlapping.
    pub edits: Vec<(Range<usize>, String)>,
    /// The finding it resolves (an index into `Analysis::findings`).
    pub finding: Option<usize>,
    /// The one action an editor may apply without asking.
    pub preferred: bool,
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// The actions for the findings that touch `range`, then the fix-all action when the file
/// has more than one fix.
pub fn actions(a: &Analysis, workspace: &Workspace, range: Range<usize>) -> Vec<Action> {
    let mut out = Vec::new();
    for (i, f) in a.findings.iter().enumerate() {
        if !overlaps(&f.diagnostic.span, &range) {
            continue;
        }
        if let Some(fix) = &f.fix {
            // A fix that changes what the prompt sends is offered, never preferred: an
            // editor applies preferred fixes without showing them.
            let safe = fix.applicability == prompty_lint::Applicability::Safe;
            let title = capitalize(&fix.title);
            out.push(Action {
                title: if safe { title } else { format!("{title} (changes what the prompt sends)") },
                kind: Kind::QuickFix,
                edits: vec![(fix.span.clone(), fix.replacement.clone())],
                finding: Some(i),
                preferred: safe,
            });
        }
        if f.diagnostic.code.id == "PL001"
            && let Some(name) = a.snapshot.text.get(f.diagnostic.span.clone())
            && let Some(edit) = declare_input(a, workspace, name)
        {
            out.push(Action {
                title: format!("Declare input `{name}`"),
                kind: Kind::QuickFix,
                edits: vec![edit],
                finding: Some(i),
                preferred: false,
            });
        }
    }
    // Fix-all runs on save in many editors: safe fixes only.
    let fixes: Vec<&prompty_lint::Fix> = a
        .findings
        .iter()
        .filter_map(|f| f.fix.as_ref())
        .filter(|f| f.applicability == prompty_lint::Applicability::Safe)
        .collect();
    if fixes.len() > 1 {
        let fixed = prompty_lint::apply_fixes(&a.snapshot.text, fixes.iter().copied());
        out.push(Action {
            title: format!("Fix all mechanical problems ({})", fixed.applied.len()),
            kind: Kind::FixAll,
            edits: fixed.applied.iter().map(|f| (f.span.clone(), f.replacement.clone())).collect(),
            finding: None,
            preferred: false,
        });
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// The findings an action resolves, for the client's `diagnostics` field.
pub fn finding_of<'a>(a: &'a Analysis, action: &Action) -> Option<&'a Finding> {
    a.findings.get(action.finding?)
}

/// One edit that declares `name` as a string input, or `None` when the front matter has no
/// place for it that this can write safely. The edit is checked: the edited file must
/// declare the input and load with no more errors than before.
pub fn declare_input(a: &Analysis, workspace: &Workspace, name: &str) -> Option<(Range<usize>, String)> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let s = &a.snapshot;
    let text: &str = &s.text;
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let kind_key = if s.profile() == Profile::Promptflow { "type" } else { "kind" };
    let edit = match (&s.front_span, s.front()) {
        (None, _) => (0..0, format!("---{nl}inputs:{nl}  {name}:{nl}    {kind_key}: string{nl}---{nl}")),
        (Some(span), Some(front)) => match front.key_node("inputs").zip(front.get("inputs")) {
            None => {
                let lead =
                    if text.get(..span.end).is_some_and(|t| t.ends_with('\n')) || span.is_empty() { "" } else { nl };
                (span.end..span.end, format!("{lead}inputs:{nl}  {name}:{nl}    {kind_key}: string{nl}"))
            }
            Some((key, inputs)) => into_inputs(text, key, inputs, name, kind_key, nl)?,
        },
        (Some(span), None) if text.get(span.clone()).is_some_and(|t| t.trim().is_empty()) => {
            (span.end..span.end, format!("inputs:{nl}  {name}:{nl}    {kind_key}: string{nl}"))
        }
        (Some(_), None) => return None,
    };
    // Check the edit: it must declare the input and add no error.
    let mut edited = String::with_capacity(text.len() + edit.1.len());
    edited.push_str(text.get(..edit.0.start)?);
    edited.push_str(&edit.1);
    edited.push_str(text.get(edit.0.end..)?);
    let loaded = workspace.load(&edited, s.path.as_deref());
    let errors = |l: &prompty_syntax::Loaded| l.diagnostics.iter().filter(|d| d.is_error()).count();
    let declared = loaded.prompt.as_ref().is_some_and(|p| p.input(name).is_some());
    (declared && errors(&loaded) <= errors(&s.loaded)).then_some(edit)
}

fn line_start(text: &str, offset: usize) -> usize {
    text.get(..offset).and_then(|t| t.rfind('\n')).map_or(0, |i| i + 1)
}

fn line_end(text: &str, offset: usize) -> usize {
    text.get(offset..).and_then(|t| t.find('\n')).map_or(text.len(), |i| offset + i + 1)
}

/// The column of `offset` when only spaces (and list dashes) precede it on its line.
fn block_column(text: &str, offset: usize) -> Option<usize> {
    let start = line_start(text, offset);
    let before = text.get(start..offset)?;
    before.bytes().all(|b| b == b' ' || b == b'-').then_some(offset - start)
}

/// An edit adding `name` to an existing `inputs` value.
fn into_inputs(
    text: &str,
    key: &Node,
    inputs: &Node,
    name: &str,
    kind_key: &str,
    nl: &str,
) -> Option<(Range<usize>, String)> {
    let after_last = |last: &Node| {
        let end = line_end(text, last.span.end.saturating_sub(1).max(last.span.start));
        let lead = if text.get(..end).is_some_and(|t| t.ends_with('\n')) { "" } else { nl };
        (end, lead)
    };
    match &inputs.value {
        NodeValue::Map(entries)
            if !entries.is_empty() && text.get(inputs.span.clone())?.trim_start().starts_with('{') =>
        {
            flow_insert(text, inputs, &format!(", {name}: {{{kind_key}: string}}"))
        }
        NodeValue::Map(entries) => {
            let (first_key, first_value) = entries.first()?;
            let col = block_column(text, first_key.span.start)?;
            let last =
                entries.iter().map(|(k, v)| if v.span.end > k.span.end { v } else { k }).max_by_key(|n| n.span.end)?;
            let (at, lead) = after_last(last);
            let ind = " ".repeat(col);
            let entry = match first_value.as_map().and_then(|m| m.first()) {
                Some((inner, _)) if block_column(text, inner.span.start).is_some() => {
                    let inner_col = block_column(text, inner.span.start)?;
                    format!("{lead}{ind}{name}:{nl}{}{kind_key}: string{nl}", " ".repeat(inner_col))
                }
                _ => format!("{lead}{ind}{name}: {{{kind_key}: string}}{nl}"),
            };
            Some((at..at, entry))
        }
        NodeValue::Seq(items) if !items.is_empty() && text.get(inputs.span.clone())?.trim_start().starts_with('[') => {
            flow_insert(text, inputs, &format!(", {{name: {name}, {kind_key}: string}}"))
        }
        NodeValue::Seq(items) => {
            let first = items.first()?.as_map()?.first()?.0.span.start;
            let key_col = block_column(text, first)?;
            let dash_col = text.get(line_start(text, first)..first)?.find('-')?;
            let last = items.last()?;
            let (at, lead) = after_last(last);
            let entry = format!(
                "{lead}{}- name: {name}{nl}{}{kind_key}: string{nl}",
                " ".repeat(dash_col),
                " ".repeat(key_col)
            );
            Some((at..at, entry))
        }
        NodeValue::Null => {
            // `inputs:` with nothing after it on its line.
            let end = line_end(text, key.span.end);
            let rest = text.get(key.span.end..end)?.trim_start_matches([' ', '\t']);
            if !rest.starts_with(':') || !rest.get(1..)?.trim().is_empty() {
                return None;
            }
            let col = block_column(text, key.span.start)?;
            let lead = if text.get(..end).is_some_and(|t| t.ends_with('\n')) { "" } else { nl };
            Some((
                end..end,
                format!("{lead}{}  {name}:{nl}{}    {kind_key}: string{nl}", " ".repeat(col), " ".repeat(col)),
            ))
        }
        _ => None,
    }
}

/// Inserts `addition` before the closing bracket of a flow collection.
fn flow_insert(text: &str, node: &Node, addition: &str) -> Option<(Range<usize>, String)> {
    let written = text.get(node.span.clone())?;
    let close = node.span.start + written.trim_end().len().checked_sub(1)?;
    matches!(text.get(close..close + 1), Some("}" | "]")).then(|| (close..close, addition.to_owned()))
}
