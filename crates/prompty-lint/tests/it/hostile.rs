//! Templates nested deep enough to overflow a recursive parser, and templates whose values
//! could grow without bound: `check` reports each as a located PL012 finding, never an
//! abort, whichever path parses the body.

use prompty_lint::Selection;
use prompty_syntax::{LineIndex, LoadOptions, MapHost, load_str};

/// The PL012 findings of a file, as (line, column, message).
fn template_errors(text: &str) -> Vec<(usize, usize, String)> {
    let loaded = load_str(text, &MapHost::new(), &LoadOptions { lint: true, ..LoadOptions::default() });
    let index = LineIndex::new(text);
    prompty_lint::check(text, &loaded, &Selection::all())
        .findings
        .into_iter()
        .filter(|f| f.diagnostic.code.id == "PL012")
        .map(|f| {
            let (line, col) = index.line_col(text, f.diagnostic.span.start);
            (line, col, f.diagnostic.message)
        })
        .collect()
}

fn file(format: &str, body: &str) -> String {
    format!("---\nname: t\ntemplate: {{format: {format}, parser: prompty}}\n---\nuser:\n{body}\n")
}

const TOO_DEEP: &str = "nests deeper than 100 levels (each block, bracket, subexpression, chained operator, filter, \
                        attribute and call counts one); split it into smaller parts";

#[test]
fn jinja_thirty_thousand_nots_is_a_diagnostic() {
    let text = file("jinja2", &format!("{{{{ {}1 }}}}", "not ".repeat(30_000)));
    let expected = format!("template syntax error: this expression {TOO_DEEP}");
    assert_eq!(template_errors(&text), [(6, 400, expected)]);
}

#[test]
fn jinja_deep_expressions_are_diagnostics_in_check() {
    for (expr, col) in [
        (format!("{{{{ {}1 }}}}", "-".repeat(30_000)), 103),
        (format!("{{{{ {} }}}}", vec!["q"; 30_000].join(" ~ ")), 402),
        (format!("{{{{ q{} }}}}", "()".repeat(30_000)), 201),
        (format!("{{{{ q{} }}}}", "|upper".repeat(100_000)), 599),
        (format!("{{{{ q{} }}}}", ".a".repeat(200_000)), 203),
    ] {
        let expected = format!("template syntax error: this expression {TOO_DEEP}");
        assert_eq!(template_errors(&file("jinja2", &expr)), [(6, col, expected)], "{}", &expr[..20]);
    }
}

#[test]
fn handlebars_deep_templates_are_diagnostics_in_check() {
    let ifs = format!("{}x{}", "{{#if true}}".repeat(10_000), "{{/if}}".repeat(10_000));
    let concat = format!("{{{{ {}1{} }}}}", "(concat ".repeat(10_000), ")".repeat(10_000));
    for (body, what, col) in [(ifs, "block", 1201), (concat, "expression", 1)] {
        let expected = format!("Handlebars syntax error: this {what} {TOO_DEEP}");
        assert_eq!(template_errors(&file("handlebars", &body)), [(6, col, expected)]);
    }
}

#[test]
fn jinja_list_doubling_is_a_diagnostic_in_check() {
    let body = "{% set ns = namespace(x=[1]) %}{% for i in range(40) %}{% set ns.x = ns.x + ns.x %}{% endfor %}";
    let found = template_errors(&file("jinja2", body));
    assert_eq!(found.len(), 1, "{found:?}");
    let (line, col, message) = &found[0];
    assert_eq!((*line, *col), (6, 70));
    assert!(
        message.starts_with("template refused: this value combines two values the template built itself"),
        "{message}"
    );
}

#[test]
fn a_deep_body_with_an_unknown_parser_is_not_parsed_by_the_linter() {
    // The renderer is not built for an unknown parser, so the linter's own parse of the
    // body is the only one: it must stop at the same bound instead of overflowing.
    let text = format!(
        "---\nname: t\ntemplate: {{format: jinja2, parser: other}}\n---\nuser:\n{{{{ {}1 }}}}\n",
        "not ".repeat(30_000)
    );
    let loaded = load_str(&text, &MapHost::new(), &LoadOptions { lint: true, ..LoadOptions::default() });
    let report = prompty_lint::check(&text, &loaded, &Selection::all());
    let codes: Vec<&str> = report.findings.iter().map(|f| f.diagnostic.code.id).collect();
    assert_eq!(codes, ["P014"], "only the unknown parser is reported");
}

/// Issue 23, item 10: a body of a million role lines gets one located error for the message
/// limit, not a finding per message.
#[test]
fn a_million_role_lines_are_one_limit_error() {
    let text = format!("---\nname: t\n---\n{}", "user:\n".repeat(1_000_000));
    let loaded = load_str(&text, &MapHost::new(), &LoadOptions { lint: true, ..LoadOptions::default() });
    let index = LineIndex::new(&text);
    let found: Vec<(String, usize, String)> = prompty_lint::check(&text, &loaded, &Selection::all())
        .findings
        .into_iter()
        .map(|f| {
            (f.diagnostic.code.id.to_owned(), index.line_col(&text, f.diagnostic.span.start).0, f.diagnostic.message)
        })
        .collect();
    let message = "the body has more than 10000 role lines, so it cannot render: a render gives at most 10000 messages";
    assert_eq!(found, [("PL029".to_owned(), 10_004, message.to_owned())]);
}
