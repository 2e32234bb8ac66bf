use std::cell::OnceCell;
use std::collections::HashMap;

use prompty_syntax::{Severity, did_you_mean};

use crate::Finding;
use crate::context::Context;
use prompty_syntax::TemplateFormat;

declare_rule! {
    /// ## What it does
    /// Reports a Jinja filter the renderer does not have (`{{ text | trucate }}`).
    ///
    /// A filter that Python's Jinja2 has but this renderer lacks (`urlize`) is a warning: the
    /// reference runtime renders it, this toolkit cannot. Any other unknown filter is an error,
    /// including minijinja's own extras (`split`, `lines`, ...), which Jinja2 does not have.
    ///
    /// ## Why is this bad?
    /// Filters are looked up when the template runs: the template compiles, then every
    /// render that reaches the filter fails, possibly only for some inputs.
    ///
    /// ## Example
    /// ```text
    /// user:
    /// {{ question | trim | uper }}
    /// ```
    ///
    /// ## Use instead
    /// ```text
    /// user:
    /// {{ question | trim | upper }}
    /// ```
    pub(crate) struct UnknownFilter {
        code: "PL020",
        name: "unknown-filter",
        severity: Error,
        fix: None,
    }
}

/// Whether the renderer's Jinja environment has the filter: the engine answers.
fn known(name: &str) -> bool {
    prompty_render::has_jinja_filter(name)
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    if cx.format != Some(TemplateFormat::Jinja2) {
        return;
    }
    let mut verdicts: HashMap<&str, bool> = HashMap::new();
    // The Jinja2 filters this renderer has, worked out once for every suggestion.
    let candidates: OnceCell<Vec<&str>> = OnceCell::new();
    for (name, span) in &cx.template.filters {
        let is_known = *verdicts.entry(name.as_str()).or_insert_with(|| known(name));
        if is_known {
            continue;
        }
        let finding = if prompty_jinja::JINJA2_FILTERS.contains(&name.as_str()) {
            UnknownFilter::META
                .finding(cx.span(span.clone()), format!("Jinja2 has the filter `{name}` but this renderer does not"))
                .severity(Severity::Warning)
                .help("rewrite the expression without it; this toolkit cannot render the prompt as written")
        } else {
            let candidates =
                candidates.get_or_init(|| prompty_jinja::JINJA2_FILTERS.iter().copied().filter(|f| known(f)).collect());
            let help = match did_you_mean(name, candidates) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "see the Jinja2 built-in filters".to_owned(),
            };
            UnknownFilter::META.finding(cx.span(span.clone()), format!("unknown filter `{name}`")).help(help)
        };
        out.push(finding);
    }
}
