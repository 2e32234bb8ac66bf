//! `prompty-lint`: the rules that catch what `.prompty` authors get wrong and the loader
//! cannot know: template variables no input declares, role lines that will not split,
//! `{{x}}` that HTML-escapes in Mustache, JSON mode without the word JSON, and more.
//!
//! ```
//! use prompty_syntax::{load_str, LoadOptions, MapHost};
//!
//! let text = "---\ninputs:\n  question: {kind: string}\n---\nsytem:\nBe brief.\nuser:\n{{question}} {{topic}}";
//! let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
//! let findings = prompty_lint::lint(text, &loaded);
//! let codes: Vec<&str> = findings.iter().map(|f| f.diagnostic.code.id).collect();
//! assert_eq!(codes, ["PL007", "PL001"]);
//! // The misspelt role word has a mechanical fix.
//! let fixed = prompty_lint::apply_fixes(text, findings.iter().filter_map(|f| f.fix.as_ref()));
//! assert!(fixed.text.contains("\nsystem:\n"));
//! ```
//!
//! Findings use the loader's [`Diagnostic`] model (stable code, severity, message, byte span
//! into the original file, help), wrapped in a [`Finding`] that may carry a [`Fix`].
//! [`check`] is the whole pipeline a front end wants: the loader's diagnostics (with fixes
//! where they are mechanical) and the rules' findings, filtered by a [`Selection`] and by the
//! file's inline suppression comments, in file order.
//!
//! The crate does no I/O: configuration files are the caller's business.

#![warn(missing_docs)]

mod body;
mod context;
mod docs;
mod fix;
pub mod fmt;
mod loader_fixes;
pub mod migrate;
mod rules;
mod select;
mod suppress;
mod template;

use std::ops::Range;

use prompty_syntax::{Code, Diagnostic, Loaded, Severity};

pub use docs::{rule_markdown, rules_markdown};
pub use fix::{Fixed, apply_fixes};
pub use select::{Selection, SelectorError, resolve as resolve_selector};

/// Whether applying a fix can change what the prompt sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Applicability {
    /// The prompt sends the same request after the fix: applied by `--fix` and offered as
    /// the preferred quick fix.
    Safe,
    /// The fix changes the messages or the request (a new message, a renamed option, text
    /// no longer escaped), almost always to what the author meant, but it needs a look:
    /// applied only with `--unsafe-fixes`, never by an editor's fix-all.
    Unsafe,
}

impl Applicability {
    /// `safe` or `unsafe`, as the docs and the JSON output write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// A mechanical edit that resolves a finding: replace the bytes of `span` in the original
/// file with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// Byte range in the original file.
    pub span: Range<usize>,
    /// The new text.
    pub replacement: String,
    /// What the fix does, in a few words ("replace `sytem` with `system`").
    pub title: String,
    /// Whether the fix can change what the prompt sends.
    pub applicability: Applicability,
}

/// A diagnostic and, when the problem has a mechanical solution, its fix.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The diagnostic, in the loader's model.
    pub diagnostic: Diagnostic,
    /// The fix, if any.
    pub fix: Option<Fix>,
}

impl Finding {
    /// A finding without a fix.
    pub fn new(diagnostic: Diagnostic) -> Self {
        Self { diagnostic, fix: None }
    }

    #[must_use]
    pub(crate) fn help(mut self, help: impl Into<String>) -> Self {
        self.diagnostic.help = Some(help.into());
        self
    }

    #[must_use]
    pub(crate) fn severity(mut self, severity: Severity) -> Self {
        self.diagnostic.severity = severity;
        self
    }

    /// Adds a fix that leaves what the prompt sends unchanged.
    #[must_use]
    pub(crate) fn fix(self, span: Range<usize>, replacement: impl Into<String>, title: impl Into<String>) -> Self {
        self.fix_with(Applicability::Safe, span, replacement, title)
    }

    /// Adds a fix that changes what the prompt sends.
    #[must_use]
    pub(crate) fn unsafe_fix(
        self,
        span: Range<usize>,
        replacement: impl Into<String>,
        title: impl Into<String>,
    ) -> Self {
        self.fix_with(Applicability::Unsafe, span, replacement, title)
    }

    fn fix_with(
        mut self,
        applicability: Applicability,
        span: Range<usize>,
        replacement: impl Into<String>,
        title: impl Into<String>,
    ) -> Self {
        self.fix = Some(Fix { span, replacement: replacement.into(), title: title.into(), applicability });
        self
    }
}

/// What the catalog knows about a rule.
#[derive(Debug, Clone, Copy)]
pub struct RuleMeta {
    /// Stable code and kebab-case name.
    pub code: Code,
    /// The severity the rule reports with (a few rules raise it for one profile; the docs say so).
    pub severity: Severity,
    /// Whether the rule offers fixes, and whether they can change what the prompt sends.
    pub fix: Option<Applicability>,
    /// The rule's rustdoc, in the fixed sections `## What it does`, `## Why is this bad?`,
    /// `## Example`, `## Use instead`.
    pub docs: &'static str,
}

impl RuleMeta {
    /// Whether the rule offers fixes.
    pub fn fixable(&self) -> bool {
        self.fix.is_some()
    }

    /// The first sentence of `## What it does`.
    pub fn summary(&self) -> String {
        let section = docs::section(self.docs, "What it does");
        let flat = section.split_whitespace().collect::<Vec<_>>().join(" ");
        match flat.find(". ") {
            Some(i) => flat.get(..=i).unwrap_or(&flat).to_owned(),
            None => flat,
        }
    }

    /// A finding of this rule at `span` with the rule's severity.
    pub(crate) fn finding(&self, span: Range<usize>, message: impl Into<String>) -> Finding {
        Finding::new(Diagnostic::new(self.code, self.severity, span, message))
    }
}

/// The role a body line starts a message with in `profile`, as the renderer splits it
/// (`system:`, `# User[name=Bob]:`), or `None` when the line is not a role line.
pub fn role_of(line: &str, profile: prompty_syntax::Profile) -> Option<&'static str> {
    body::role_of(line, profile)
}

/// Every rule, in code order.
pub fn rules() -> impl Iterator<Item = &'static RuleMeta> {
    rules::REGISTRY.iter().map(|r| &r.meta)
}

/// The rule with this code (`PL001`) or name (`undeclared-variable`).
pub fn rule(code_or_name: &str) -> Option<&'static RuleMeta> {
    rules().find(|r| r.code.id == code_or_name || r.code.name == code_or_name)
}

/// Every code `check` can report: the loader's, then the rules'.
pub fn all_codes() -> impl Iterator<Item = Code> {
    prompty_syntax::codes::ALL.iter().map(|(c, _)| *c).chain(rules().map(|r| r.code))
}

/// Where a template reads one variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateRead {
    /// The first part of the name (`user` for `user.name`).
    pub name: String,
    /// Where that first part is written, in the file.
    pub span: std::ops::Range<usize>,
    /// Inside a loop, macro, `with` block or Mustache/Handlebars section: the name may
    /// resolve to something the block provides (an item's field) instead of an input.
    pub nested: bool,
}

/// The variables a loaded document's template reads, in file order, and the names the
/// template binds itself (Jinja `for` targets, `set`, macros and their arguments, `with`,
/// imports). Empty when the file does not load or its template does not parse.
pub fn template_reads(text: &str, loaded: &Loaded) -> (Vec<TemplateRead>, std::collections::BTreeSet<String>) {
    let Some(cx) = context::Context::new(text, loaded) else { return Default::default() };
    let mut reads: Vec<TemplateRead> = cx
        .template
        .vars
        .iter()
        .map(|v| TemplateRead { name: v.root.clone(), span: cx.span(v.span.clone()), nested: v.depth > 0 })
        .collect();
    reads.sort_by_key(|r| r.span.start);
    reads.dedup_by_key(|r| r.span.clone());
    (reads, cx.template.bound.iter().cloned().collect())
}

/// The role lines of a loaded document's template that split it into messages (role-shaped
/// text inside tags and comments is not one), in order: the file span of each line (without
/// its line ending) and its role, lowercased.
pub fn role_lines(text: &str, loaded: &Loaded) -> Vec<(std::ops::Range<usize>, &'static str)> {
    let Some(cx) = context::Context::new(text, loaded) else { return Vec::new() };
    cx.roles.iter().map(|r| (cx.line_span(r.line), r.role)).collect()
}

/// Runs every rule on a loaded file. `text` is the file's text, as loaded into `loaded`.
///
/// Returns the rules' findings only (not the loader's diagnostics), in file order, before
/// selection and suppression. A file that could not be loaded as a prompt has no findings.
pub fn lint(text: &str, loaded: &Loaded) -> Vec<Finding> {
    let Some(cx) = context::Context::new(text, loaded) else { return Vec::new() };
    let mut out = Vec::new();
    if cx.too_many_roles.is_some() {
        // Most rules would report every message: only the limit is reported.
        rules::too_many_messages_check(&cx, &mut out);
        hide_secrets(&mut out, loaded.secrets());
        return out;
    }
    for rule in rules::REGISTRY {
        (rule.check)(&cx, &mut out);
    }
    hide_secrets(&mut out, loaded.secrets());
    sort(&mut out);
    out
}

/// A variable the template reads that no input declares: what the `undeclared-variable`
/// rule (PL001) reports, for a front end that renders (`prompty render` says which of them
/// rendered as empty text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndeclaredVariable {
    /// The variable's name (the root of `user.name`).
    pub name: String,
    /// Its first read, a byte range in the file.
    pub span: Range<usize>,
}

/// The template's variables that no input declares, in the order the template first reads
/// them, as [`check`] reports them: a read an inline `prompty: ignore[PL001]` (or
/// `ignore[undeclared-variable]`) comment covers is left out. Names that came from
/// `${env:}` are never listed.
pub fn undeclared_variables(text: &str, loaded: &Loaded) -> Vec<UndeclaredVariable> {
    let Some(cx) = context::Context::new(text, loaded) else { return Vec::new() };
    let suppressions = suppress::Suppressions::parse(text, loaded.document.as_ref()).index();
    let meta = rules::UndeclaredVariable::META;
    rules::undeclared(&cx)
        .into_iter()
        .filter(|(name, span)| {
            !loaded.secrets().contains(name) && !suppressions.covers(&meta.finding(span.clone(), String::new()))
        })
        .map(|(name, span)| UndeclaredVariable { name: name.to_owned(), span })
        .collect()
}

/// No finding quotes a value `${env:}` supplied (the loader's diagnostics are redacted by
/// the loader), and no fix writes one into the file.
fn hide_secrets(findings: &mut [Finding], secrets: &prompty_syntax::Secrets) {
    if secrets.is_empty() {
        return;
    }
    for f in findings {
        secrets.redact_diagnostic(&mut f.diagnostic);
        if f.fix.as_ref().is_some_and(|fix| secrets.redact(&fix.replacement) != fix.replacement.as_str()) {
            f.fix = None;
        }
        if let Some(fix) = &mut f.fix {
            secrets.redact_string(&mut fix.title);
        }
    }
}

/// What [`check`] found in one file.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Loader diagnostics and rule findings that are selected and not suppressed, in file order.
    pub findings: Vec<Finding>,
    /// How many findings an inline `prompty: ignore[...]` comment or the selection removed.
    pub suppressed: usize,
}

/// The loader's diagnostics plus the rules' findings, filtered by `selection` (`P030`, v1
/// constructs, only when selected by its code or name for files detected as promptflow)
/// and by the file's inline suppression comments (`# prompty: ignore[CODE]` in the front matter for the
/// whole file, `{# prompty: ignore[CODE] #}` on the line before a body line).
pub fn check(text: &str, loaded: &Loaded, selection: &Selection) -> Report {
    let mut all: Vec<Finding> = loader_fixes::with_fixes(text, loaded);
    all.extend(lint(text, loaded));
    let suppressions = suppress::Suppressions::parse(text, loaded.document.as_ref()).index();
    // A finding about a suppression comment is never silenced by one.
    let silenced = |f: &Finding| f.diagnostic.code != rules::InvalidSuppression::META.code && suppressions.covers(f);
    let before = all.len();
    // Promptflow cannot read v2 spellings: their advice is for those who ask for it.
    let promptflow = loaded.prompt.as_ref().is_some_and(|p| p.profile == prompty_syntax::Profile::Promptflow);
    let wanted = |code: &str| {
        selection.is_selected(code)
            && !(promptflow && code == prompty_syntax::codes::LEGACY_KEY.id && !selection.is_explicit(code))
    };
    let mut findings: Vec<Finding> = all.into_iter().filter(|f| wanted(f.diagnostic.code.id) && !silenced(f)).collect();
    let suppressed = before - findings.len();
    keep_most_specific(&mut findings);
    sort(&mut findings);
    Report { findings, suppressed }
}

/// Of the findings the spelling of one key gives, only the most specific is kept: both
/// versions' spellings (P031) over a v1 key (P030) over an unknown key (P010). Applied after
/// the selection, so ignoring the specific code shows the next one.
fn keep_most_specific(findings: &mut Vec<Finding>) {
    use prompty_syntax::codes::{LEGACY_KEY, MIXED_VERSIONS, UNKNOWN_KEY};
    let rank = |f: &Finding| {
        [MIXED_VERSIONS.id, LEGACY_KEY.id, UNKNOWN_KEY.id].iter().position(|c| *c == f.diagnostic.code.id)
    };
    let ranked: Vec<(std::ops::Range<usize>, usize)> =
        findings.iter().filter_map(|f| Some((f.diagnostic.span.clone(), rank(f)?))).collect();
    findings.retain(|f| {
        rank(f).is_none_or(|r| !ranked.iter().any(|(span, other)| *span == f.diagnostic.span && *other < r))
    });
}

/// The findings in a prompt's input cases file (`<name>.cases.yaml`, as `prompty
/// snapshot` reads it) with `text` its content: spans are into `text`. Filtered by
/// `selection` (codes `PL027` and `PL030`); nothing when the prompt could not be loaded.
pub fn check_cases(text: &str, loaded: &Loaded, selection: &Selection) -> Vec<Finding> {
    let Some(prompt) = &loaded.prompt else { return Vec::new() };
    let mut findings = rules::check_cases(text, prompt);
    findings.retain(|f| selection.is_selected(f.diagnostic.code.id));
    sort(&mut findings);
    findings
}

fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (a.diagnostic.span.start, a.diagnostic.span.end, a.diagnostic.code.id).cmp(&(
            b.diagnostic.span.start,
            b.diagnostic.span.end,
            b.diagnostic.code.id,
        ))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_never_quote_or_write_a_secret() {
        let mut secrets = prompty_syntax::Secrets::new();
        secrets.add("KEY", "sk-test-SECRET-1234");
        let code = Code { id: "PL000", name: "test" };
        let quoting = Finding::new(Diagnostic::warning(code, 0..1, "value `sk-test-SECRET-1234`"))
            .help("replace sk-test-SECRET-1234")
            .fix(0..1, "x", "rename `sk-test-SECRET-1234`");
        let writing = Finding::new(Diagnostic::warning(code, 0..1, "m")).fix(0..1, "sk-test-SECRET-1234", "t");
        let mut findings = [quoting, writing];
        hide_secrets(&mut findings, &secrets);
        assert_eq!(findings[0].diagnostic.message, "value `${env:KEY}`");
        assert_eq!(findings[0].diagnostic.help.as_deref(), Some("replace ${env:KEY}"));
        assert_eq!(findings[0].fix.as_ref().map(|f| f.title.as_str()), Some("rename `${env:KEY}`"));
        assert_eq!(findings[1].fix, None, "a fix that would write the secret into the file is dropped");
    }

    /// A v1 key beside its v2 spelling in a v2 file is one finding, the most specific; with
    /// that code ignored, the next one shows.
    #[test]
    fn one_key_gives_one_finding() {
        use prompty_syntax::{LoadOptions, MapHost, load_str};
        let text =
            "---\nname: x\ninputs:\n  q:\n    kind: string\n    required: true\n    optional: false\n---\nuser:\n{{q}}";
        let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
        let codes = |selection: &Selection| -> Vec<&str> {
            check(text, &loaded, selection).findings.iter().map(|f| f.diagnostic.code.id).collect()
        };
        assert_eq!(codes(&Selection::all()), ["P031"]);
        let mut selection = Selection::all();
        selection.ignore(&["P031"]).expect("code");
        assert_eq!(codes(&selection), ["P030"]);
        selection.ignore(&["P030"]).expect("code");
        assert_eq!(codes(&selection), ["P010"]);
        // Without the v2 spelling, the v1 key alone is P030 (and not also P010).
        let text = text.replace("    required: true\n", "");
        let loaded = load_str(&text, &MapHost::new(), &LoadOptions::default());
        let found: Vec<&str> =
            check(&text, &loaded, &Selection::all()).findings.iter().map(|f| f.diagnostic.code.id).collect();
        assert_eq!(found, ["P030"]);
    }

    #[test]
    fn a_bad_suppression_is_reported_even_where_everything_is_silenced() {
        use prompty_syntax::{LoadOptions, MapHost, load_str};
        let text = "---\nname: x # prompty: ignore\n---\nuser:\n{# prompty: ignore[PL01] #}\n{{ extra }}";
        let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
        let report = check(text, &loaded, &Selection::all());
        let codes: Vec<&str> = report.findings.iter().map(|f| f.diagnostic.code.id).collect();
        assert_eq!(codes, ["PL022"]);
        assert!(report.suppressed > 0, "the undeclared `extra` is silenced");
    }
}
