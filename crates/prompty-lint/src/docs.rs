//! The rule reference in Markdown, generated from the rules' rustdoc.

use std::fmt::Write;

use prompty_syntax::Severity;

/// The text of `## {title}` in a rule's docs, up to the next `## ` heading.
pub(crate) fn section<'a>(docs: &'a str, title: &str) -> &'a str {
    let heading = format!("## {title}");
    let Some(start) = docs.lines().position(|l| l.trim() == heading) else { return "" };
    let mut offset = 0;
    let mut begin = None;
    let mut end = docs.len();
    for (i, line) in docs.split_inclusive('\n').enumerate() {
        if i == start + 1 {
            begin = Some(offset);
        }
        if i > start && line.trim_start().starts_with("## ") {
            end = offset;
            break;
        }
        offset += line.len();
    }
    begin.and_then(|b| docs.get(b..end)).unwrap_or("").trim()
}

/// Doc comment lines start with the space after `///`.
fn unindent(docs: &str) -> String {
    docs.lines().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n")
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// One rule's documentation in Markdown: `# PL001 undeclared-variable`, its severity and fix
/// safety, then its sections (`## What it does`, `## Why is this bad?`, `## Example`,
/// `## Use instead`). `docs/rules.md` holds each rule's text one heading level down, and
/// `prompty rule CODE` prints it as it is: one source for both.
pub fn rule_markdown(r: &crate::RuleMeta) -> String {
    let mut out = format!("# {} {}\n\n", r.code.id, r.code.name);
    let fix = match r.fix {
        None => "none",
        Some(crate::Applicability::Safe) => "safe (applied by `--fix`)",
        Some(crate::Applicability::Unsafe) => {
            "unsafe (changes what the prompt sends; applied by `--fix --unsafe-fixes`)"
        }
    };
    let _ = writeln!(out, "Severity: {}. Fix: {fix}.\n", severity(r.severity));
    let docs = unindent(r.docs);
    for line in docs.trim().lines() {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// `docs/rules.md`: a table of every rule and loader code, then each rule's documentation.
pub fn rules_markdown() -> String {
    let mut out = String::new();
    out.push_str("<!-- Generated from the rule docs in crates/prompty-lint/src/rules/ by the test\n");
    out.push_str(
        "     `rules_doc_is_current` (PROMPTY_UPDATE_DOCS=1 cargo test -p prompty-lint). Do not edit. -->\n\n",
    );
    out.push_str("# Lint rules\n\n");
    out.push_str("`prompty check` reports the loader's diagnostics (`P0xx`) and these rules (`PLxxx`).\n");
    out.push_str("Select and ignore them in `prompty.toml` (`[lint] select`/`ignore`, `[[lint.per-path]]`),\n");
    out.push_str("or inline: `# prompty: ignore[CODE]` in the front matter for the whole file, and\n");
    out.push_str("`{# prompty: ignore[CODE] #}` (Mustache: `{{! prompty: ignore[CODE] }}`) on the line\n");
    out.push_str("before a body line.\n\n");
    out.push_str("Every finding fails `prompty check` (exit code 1) unless you say otherwise: `--exit-zero`\n");
    out.push_str("reports without failing, `--fail-on warning` or `--fail-on error` (or `fail-on` under\n");
    out.push_str("`[lint]` in `prompty.toml`) lets the less severe findings pass, and `--max-warnings N` lets up\n");
    out.push_str("to N warnings pass. The severity says how sure a rule is that the prompt is wrong. An\n");
    out.push_str("**error** is a prompt that does not send what its author wrote: a variable no input declares\n");
    out.push_str("renders as empty text, a misspelt or malformed role line starts no message, a default or a\n");
    out.push_str("case value of the wrong kind reaches the template as it is. A **warning** is probably not\n");
    out.push_str("what was meant (an input the template never reads); **info** is a style hint.\n\n");
    out.push_str("`prompty rule CODE` prints a rule's section of this page, offline, from the text compiled\n");
    out.push_str("into the binary (the same text this page is generated from); `prompty rule --all` prints\n");
    out.push_str("every rule's.\n\n");
    out.push_str("The Fix column says what `prompty check --fix` does. A **safe** fix leaves the request the\n");
    out.push_str("prompt sends unchanged and is applied by `--fix`. An **unsafe** fix changes the messages or\n");
    out.push_str("the request (it makes a misspelt role line start a message, for instance), so it is applied\n");
    out.push_str("only with `--fix --unsafe-fixes`; `check` says how many are waiting for the flag. Editors\n");
    out.push_str("offer both as quick fixes, but mark only safe ones as preferred and leave unsafe ones out\n");
    out.push_str("of \"fix all\".\n\n");
    out.push_str("| Code | Name | Severity | Fix | Summary |\n|---|---|---|---|---|\n");
    for r in crate::rules() {
        let _ = writeln!(
            out,
            "| [{id}](#{anchor}) | `{name}` | {sev} | {fix} | {summary} |",
            id = r.code.id,
            anchor = format!("{}-{}", r.code.id, r.code.name).to_ascii_lowercase(),
            name = r.code.name,
            sev = severity(r.severity),
            fix = r.fix.map_or("", crate::Applicability::as_str),
            summary = r.summary().replace('|', "\\|"),
        );
    }
    out.push_str("\n## Loader diagnostics\n\n");
    out.push_str("Reported while reading the front matter; listed here so that codes can be selected.\n");
    out.push_str("`P010` in `model.options` for a v1 parameter name (`max_tokens`) has an unsafe fix: the key\n");
    out.push_str("is renamed to its v2 name, so an option the request left out before is sent.\n\n");
    out.push_str("| Code | Name | Meaning |\n|---|---|---|\n");
    for (code, doc) in prompty_syntax::codes::ALL {
        let _ = writeln!(out, "| {} | `{}` | {} |", code.id, code.name, doc.replace('|', "\\|"));
    }
    for r in crate::rules() {
        out.push('\n');
        // One level down: each rule is a `##` section of this page (headings only, not the
        // comments of code blocks).
        let mut in_code = false;
        for line in rule_markdown(r).lines() {
            if line.starts_with("```") {
                in_code = !in_code;
            }
            if !in_code && line.starts_with('#') {
                let _ = writeln!(out, "#{line}");
            } else {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    out
}
