//! `prompty rule CODE`: a code's documentation, offline, as `ruff rule` prints a rule's.
//!
//! The text is compiled into the binary from the same source as `docs/rules.md` (each lint
//! rule's rustdoc, through [`prompty_lint::rule_markdown`]) and `docs/diagnostics.md` (the
//! code tables of the crates).

use std::io::Write;
use std::process::ExitCode;

use clap::ValueEnum;

use crate::report::{self, Entry};

#[derive(clap::Args)]
#[command(after_help = "The text is the one docs/rules.md and docs/diagnostics.md are generated from; \
    `prompty check --list-rules` lists every code in a table.")]
pub(crate) struct RuleArgs {
    /// The code (`PL001`, `P016`, any case) or the rule's name (`undeclared-variable`).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    code: Option<String>,
    /// Print the documentation of every lint rule, in code order.
    #[arg(long)]
    all: bool,
    /// Output: text (the Markdown of docs/rules.md) or json (one object per line).
    #[arg(long, value_enum, default_value_t = RuleFormat::Text)]
    format: RuleFormat,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum RuleFormat {
    Text,
    Json,
}

pub(crate) fn run(args: &RuleArgs) -> ExitCode {
    let catalog = report::catalog();
    let chosen: Vec<&Entry> = if args.all {
        catalog.iter().filter(|e| e.origin == "lint").collect()
    } else {
        let wanted = args.code.as_deref().unwrap_or_default().trim();
        match catalog.iter().find(|e| e.rule.code.id.eq_ignore_ascii_case(wanted) || e.rule.code.name == wanted) {
            Some(e) => vec![e],
            None => {
                let names: Vec<&str> = catalog.iter().flat_map(|e| [e.rule.code.id, e.rule.code.name]).collect();
                let hint = match prompty_syntax::did_you_mean(&wanted.to_ascii_uppercase(), &names)
                    .or_else(|| prompty_syntax::did_you_mean(wanted, &names))
                {
                    Some(s) => format!("did you mean `{s}`? "),
                    None => String::new(),
                };
                eprintln!(
                    "error: `{wanted}` is not a code or rule name; {hint}(`prompty check --list-rules` lists every code)"
                );
                return ExitCode::from(crate::EXIT_FAILURE);
            }
        }
    };
    let mut out = std::io::stdout().lock();
    for (i, e) in chosen.iter().enumerate() {
        let text = markdown(e);
        let written = match args.format {
            RuleFormat::Text if i == 0 => write!(out, "{text}"),
            RuleFormat::Text => write!(out, "\n{text}"),
            RuleFormat::Json => {
                let lint = prompty_lint::rule(e.rule.code.id);
                let line = serde_json::json!({
                    "code": e.rule.code.id,
                    "name": e.rule.code.name,
                    "severity": e.rule.severity,
                    "fix": lint.and_then(|r| r.fix).map(prompty_lint::Applicability::as_str),
                    "summary": e.rule.summary,
                    "docs": text,
                });
                writeln!(out, "{line}")
            }
        };
        if written.is_err() {
            // The reader went away (`| head`).
            break;
        }
    }
    ExitCode::SUCCESS
}

/// A code's documentation: a lint rule's full text, or another code's section of
/// `docs/diagnostics.md`.
fn markdown(e: &Entry) -> String {
    match prompty_lint::rule(e.rule.code.id) {
        Some(rule) => prompty_lint::rule_markdown(rule),
        None => format!("# {} {}\n\n{}", e.rule.code.id, e.rule.code.name, report::code_section(&e.rule)),
    }
}
