//! Findings as LSP diagnostics: the same codes and spans `prompty check` reports, ranges in
//! UTF-16 code units; the text, tags and documentation link are `prompty_report::lsp`'s,
//! the same page and anchor every other form links.

use std::str::FromStr;

use lsp_types::{CodeDescription, DiagnosticSeverity, DiagnosticTag, NumberOrString, Uri};
use prompty_lint::Finding;
use prompty_report::lsp::{Parts, Tag};
use prompty_report::{Edit, Message, SourceFile};

use crate::analysis::Analysis;

/// The `source` of every diagnostic.
pub const SOURCE: &str = prompty_report::lsp::SOURCE;

/// Where the documentation pages are published, unless the client says otherwise
/// (`docsUrl`): empty, and no diagnostic links anywhere, unless the build set
/// `PROMPTY_DOCS_URL` (see [`prompty_report::DOCS_URL`]).
pub const DEFAULT_DOCS_URL: &str = prompty_report::DOCS_URL;

/// One finding as an LSP diagnostic, its code linked under the documentation folder `docs`.
pub fn to_lsp(analysis: &Analysis, finding: &Finding, docs: &str) -> lsp_types::Diagnostic {
    let s = &analysis.snapshot;
    // No text: the range is computed here, in the client's position encoding.
    let fix = finding.fix.as_ref().map(|fix| Edit {
        title: fix.title.clone(),
        span: fix.span.clone(),
        replacement: fix.replacement.clone(),
        safe: fix.applicability == prompty_lint::Applicability::Safe,
    });
    let message = Message::new(SourceFile::unlocated(""), finding.diagnostic.clone()).with_fix(fix);
    let Parts { severity, code, href, message, tags } = prompty_report::lsp::parts(&message, docs);
    let tags: Vec<DiagnosticTag> = tags
        .into_iter()
        .map(|t| match t {
            Tag::Unnecessary => DiagnosticTag::UNNECESSARY,
            Tag::Deprecated => DiagnosticTag::DEPRECATED,
        })
        .collect();
    lsp_types::Diagnostic {
        range: s.index.range(&s.text, finding.diagnostic.span.clone()),
        severity: Some(match severity {
            1 => DiagnosticSeverity::ERROR,
            2 => DiagnosticSeverity::WARNING,
            _ => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(code.to_owned())),
        code_description: href.and_then(|h| Uri::from_str(&h).ok()).map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_owned()),
        message,
        related_information: None,
        tags: (!tags.is_empty()).then_some(tags),
        data: None,
    }
}

/// Every diagnostic of a document, a configuration problem first.
pub fn all(analysis: &Analysis, docs: &str) -> Vec<lsp_types::Diagnostic> {
    let mut out = Vec::with_capacity(analysis.findings.len() + 1);
    if let Some(problem) = &analysis.config_error {
        let e = &problem.error;
        let config = crate::uri::from_path(e.path());
        let related = config.map(|uri| {
            vec![lsp_types::DiagnosticRelatedInformation {
                location: lsp_types::Location { uri, range: problem.range.unwrap_or_default() },
                message: e.summary().to_owned(),
            }]
        });
        let href = prompty_report::doc_url(docs, e.code());
        out.push(lsp_types::Diagnostic {
            range: lsp_types::Range::default(),
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String(e.code().id.to_owned())),
            code_description: href.and_then(|h| Uri::from_str(&h).ok()).map(|href| CodeDescription { href }),
            source: Some(SOURCE.to_owned()),
            message: format!("prompty.toml cannot be applied (every code is reported meanwhile): {e}"),
            related_information: related,
            ..lsp_types::Diagnostic::default()
        });
    }
    out.extend(analysis.findings.iter().map(|f| to_lsp(analysis, f, docs)));
    out
}
