//! Findings as LSP diagnostics: the same codes and spans `prompty check` reports, ranges in
//! UTF-16 code units, each code linked to its entry in `docs/rules.md`.

use std::str::FromStr;

use lsp_types::{CodeDescription, DiagnosticSeverity, DiagnosticTag, NumberOrString, Uri};
use prompty_lint::Finding;
use prompty_syntax::Severity;

use crate::analysis::Analysis;

/// The `source` of every diagnostic.
pub const SOURCE: &str = "prompty";

/// Where `docs/rules.md` is published, unless the client says otherwise (`rulesUrl`).
pub const DEFAULT_RULES_URL: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/rules.md");

/// The anchor of a code in `docs/rules.md`: each rule has a heading `## PL001 undeclared-variable`;
/// the loader's codes share one table.
pub fn rule_anchor(id: &str, name: &str) -> String {
    if id.starts_with("PL") { format!("{}-{name}", id.to_ascii_lowercase()) } else { "loader-diagnostics".to_owned() }
}

/// One finding as an LSP diagnostic.
pub fn to_lsp(analysis: &Analysis, finding: &Finding, rules_url: &str) -> lsp_types::Diagnostic {
    let s = &analysis.snapshot;
    let d = &finding.diagnostic;
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    if let Some(fix) = &finding.fix {
        message.push_str("\nquick fix: ");
        message.push_str(&fix.title);
    }
    let href = format!("{rules_url}#{}", rule_anchor(d.code.id, d.code.name));
    let tags = match d.code.id {
        "PL002" => Some(vec![DiagnosticTag::UNNECESSARY]),
        "P030" => Some(vec![DiagnosticTag::DEPRECATED]),
        _ => None,
    };
    lsp_types::Diagnostic {
        range: s.index.range(&s.text, d.span.clone()),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.id.to_owned())),
        code_description: Uri::from_str(&href).ok().map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_owned()),
        message,
        related_information: None,
        tags,
        data: None,
    }
}

/// Every diagnostic of a document, a configuration problem first.
pub fn all(analysis: &Analysis, rules_url: &str) -> Vec<lsp_types::Diagnostic> {
    let mut out = Vec::with_capacity(analysis.findings.len() + 1);
    if let Some(e) = &analysis.config_error {
        out.push(lsp_types::Diagnostic {
            range: lsp_types::Range::default(),
            severity: Some(DiagnosticSeverity::ERROR),
            source: Some(SOURCE.to_owned()),
            message: format!("prompty.toml cannot be applied (every code is reported meanwhile): {e}"),
            ..lsp_types::Diagnostic::default()
        });
    }
    out.extend(analysis.findings.iter().map(|f| to_lsp(analysis, f, rules_url)));
    out
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}
