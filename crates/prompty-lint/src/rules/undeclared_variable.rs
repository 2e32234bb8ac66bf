use std::collections::{HashMap, HashSet};

use prompty_syntax::did_you_mean;

use crate::Finding;
use crate::context::Context;
use prompty_syntax::TemplateFormat;

use crate::template::VarUse;

declare_rule! {
    /// ## What it does
    /// Reports a variable the template reads that no input declares (nor, in a v1 file, the
    /// top-level `sample`).
    ///
    /// ## Why is this bad?
    /// An undeclared variable renders as nothing: the engines never fail on it. A typo in a
    /// variable name, or an input renamed in the front matter but not in the body, silently
    /// drops text from the prompt. Declared inputs are also what tools and callers read to
    /// know what a prompt needs.
    ///
    /// Jinja globals (`range`, `loop`, `namespace`, ...), names bound inside the template
    /// (`{% set %}`, loop variables, Mustache section contexts) and names the template
    /// tests with `is defined` or `is undefined` (optional by design) are not reported.
    /// The help names the closest declared input when there is one.
    ///
    /// ## Example
    /// ```yaml
    /// ---
    /// inputs:
    ///   question: {kind: string}
    /// ---
    /// user:
    /// {{questoin}}
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// ---
    /// inputs:
    ///   question: {kind: string}
    /// ---
    /// user:
    /// {{question}}
    /// ```
    pub(crate) struct UndeclaredVariable {
        code: "PL001",
        name: "undeclared-variable",
        severity: Error,
        fix: None,
    }
}

/// Names the Jinja environment provides.
const GLOBALS: &[&str] = &[
    "range",
    "dict",
    "namespace",
    "debug",
    "loop",
    "joiner",
    "cycler",
    "lipsum",
    "self",
    "caller",
    "varargs",
    "kwargs",
];

/// Findings that get a "did you mean" search; the search compares a name with every
/// declared input, so past this many findings in one file the help names no candidate and
/// the rule stays linear in the file's size.
const SUGGESTED_FINDINGS: usize = 100;

/// Every variable the template reads that no input declares, once, with the span of its
/// first read in the file.
pub(crate) fn undeclared<'a>(cx: &'a Context<'_>) -> Vec<(&'a str, std::ops::Range<usize>)> {
    let Some(vars) = &cx.engine_vars else { return Vec::new() };
    // Mustache names inside a section may come from the section's value: only
    // top-level reads are certain to come from the inputs.
    let mut first_reads: HashMap<&str, &VarUse> = HashMap::new();
    for v in cx.template.vars.iter().filter(|v| cx.format != Some(TemplateFormat::Mustache) || v.depth == 0) {
        first_reads.entry(v.root.as_str()).or_insert(v);
    }
    let mut out = Vec::new();
    for name in vars {
        if cx.declares(name)
            || (cx.format == Some(TemplateFormat::Jinja2)
                && (GLOBALS.contains(&name.as_str()) || cx.template.guarded.contains(name)))
        {
            continue;
        }
        if let Some(first) = first_reads.get(name.as_str()) {
            out.push((name.as_str(), cx.span(first.span.clone())));
        }
    }
    out
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(vars) = &cx.engine_vars else { return };
    let declared: Vec<&str> = cx.prompt.inputs.iter().flatten().map(|p| p.name.as_str()).collect();
    let read: HashSet<&str> = vars.iter().map(String::as_str).collect();
    let unread: Vec<&str> = declared.iter().copied().filter(|d| !read.contains(d)).collect();
    let mut suggestions = SUGGESTED_FINDINGS;
    for (name, span) in undeclared(cx) {
        // A declared input that the template never reads and that shares a prefix with this
        // name is the likeliest intended spelling (`doc` declared, `document` read).
        let unused_match = || {
            unread
                .iter()
                .copied()
                .find(|d| d.len().min(name.len()) >= 3 && (name.starts_with(d) || d.starts_with(name)))
        };
        let (close, unused) = match suggestions.checked_sub(1) {
            Some(left) => {
                suggestions = left;
                (did_you_mean(name, &declared), unused_match())
            }
            None => (None, None),
        };
        let help = match (close, unused) {
            (Some(s), _) => format!("did you mean `{s}`?"),
            (None, Some(s)) => format!("did you mean `{s}` (declared, but never read)?"),
            (None, None) if cx.prompt.profile == prompty_syntax::Profile::Promptflow => {
                format!("declare it under `inputs:` (`{name}: {{type: string}}`)")
            }
            (None, None) => format!("declare it under `inputs:` (`{name}: {{kind: string}}`)"),
        };
        out.push(
            UndeclaredVariable::META
                .finding(span, format!("`{name}` is read by the template but no input declares it"))
                .help(help),
        );
    }
}
