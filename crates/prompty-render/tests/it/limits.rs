//! Limits for untrusted templates end renders with a clear error, never a hang or abort.

use prompty_render::{ErrorKind, Limits, RenderOptions, Renderer};
use prompty_syntax::{LoadOptions, MapHost, load_str};
use serde_json::Map;

fn render_with(body: &str, format: &str, limits: Limits) -> Result<String, prompty_render::Error> {
    let text = format!("---\nname: t\ntemplate: {{format: {format}, parser: prompty}}\n---\n{body}");
    let prompt = load_str(&text, &MapHost::new(), &LoadOptions::default()).prompt.expect("loads");
    let r = Renderer::with_options(prompt, RenderOptions { limits, ..Default::default() })?;
    r.render_text(&Map::new())
}

#[test]
fn exploding_loops_run_out_of_fuel() {
    let body = "{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}x{% endfor %}{% endfor %}{% endfor %}";
    let e = render_with(body, "jinja2", Limits::default().with_steps(100_000)).expect_err("fuel");
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    assert!(e.to_string().contains("fuel"), "{e}");
}

#[test]
fn output_is_capped() {
    let body = "{% for a in range(100000) %}0123456789{% endfor %}";
    let e = render_with(body, "jinja2", Limits::default().with_max_output(10_000)).expect_err("cap");
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    assert!(e.to_string().contains("10000 bytes"), "{e}");
}

#[test]
fn deep_recursion_is_stopped() {
    let body = "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}";
    let e = render_with(body, "jinja2", Limits::default()).expect_err("recursion");
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
}

#[test]
fn mustache_output_is_capped() {
    let body = "{{#a}}{{#a}}{{#a}}xxxxxxxxxx{{/a}}{{/a}}{{/a}}";
    let text = format!(
        "---\nname: t\ninputs:\n  a: {{kind: array, items: {{kind: integer}}, default: [{}]}}\ntemplate: {{format: mustache, parser: prompty}}\n---\n{body}",
        vec!["1"; 100].join(",")
    );
    let prompt = load_str(&text, &MapHost::new(), &LoadOptions::default()).prompt.expect("loads");
    let r = Renderer::with_options(
        prompt,
        RenderOptions { limits: Limits::default().with_max_output(1000), ..Default::default() },
    )
    .expect("compiles");
    let e = r.render_text(&Map::new()).expect_err("cap");
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
}

#[test]
fn unknown_engine_is_a_typed_error() {
    let text = "---\nname: t\ntemplate: {format: jinja3, parser: prompty}\n---\nhi";
    let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
    assert!(loaded.has_errors(), "the loader reports the unknown engine");
    let e = Renderer::new(loaded.prompt.expect("a prompt is still built")).expect_err("unknown engine");
    assert_eq!(e.kind(), ErrorKind::UnknownEngine);
}

#[test]
fn syntax_errors_point_into_the_file() {
    let text = "---\nname: t\n---\nsystem:\nHello {{ name\n";
    let prompt = load_str(text, &MapHost::new(), &LoadOptions::default()).prompt.expect("loads");
    let e = Renderer::with_options(prompt, RenderOptions { source: Some(text.into()), ..Default::default() })
        .expect_err("syntax error");
    assert_eq!(e.kind(), ErrorKind::TemplateSyntax);
    let span = e.span().expect("located");
    let (line, _) = prompty_syntax::LineIndex::new(text).line_col(text, span.start);
    assert_eq!(line, 5, "the error is on file line 5, not body line 2: {e}");
}

#[test]
fn missing_required_input_is_named() {
    let text = "---\nname: t\ninputs:\n  city: {kind: string, required: true}\n---\nuser:\n{{city}}";
    let prompt = load_str(text, &MapHost::new(), &LoadOptions::default()).prompt.expect("loads");
    let e = Renderer::new(prompt).expect("compiles").prepare(&Map::new()).expect_err("missing");
    assert_eq!(e.kind(), ErrorKind::MissingInputs);
    assert_eq!(e.to_string(), "Missing required input: city");
}

/// Issue 23, item 10: a body of a million role lines ends in the message limit, in both
/// profiles and with strict role lines off, instead of building a million messages; the
/// limit itself still renders.
#[test]
fn a_million_role_lines_end_in_the_message_limit() {
    let expected = format!(
        "the rendered text splits into more than {} messages, the most a render may give; write fewer role lines (or a thread input) per prompt",
        prompty_render::MAX_MESSAGES
    );
    for head in ["", "model:\n  api: chat\n", "template: {format: {kind: jinja2, strict: false}, parser: prompty}\n"] {
        for (lines, fits) in [(1_000_000, false), (prompty_render::MAX_MESSAGES, true)] {
            let text = format!("---\nname: t\n{head}---\n{}", "user:\nhi\n".repeat(lines));
            let prompt = load_str(&text, &MapHost::new(), &LoadOptions::default()).prompt.expect("loads");
            let r = Renderer::new(prompt).expect("compiles");
            match r.prepare(&Map::new()) {
                Ok(ms) => assert!(fits && ms.len() == lines, "{head:?}: {} messages", ms.len()),
                Err(e) => {
                    assert!(!fits, "{head:?}: {lines} lines: {e}");
                    assert_eq!((e.kind(), e.to_string()), (ErrorKind::Limit, expected.clone()), "{head:?}");
                }
            }
        }
    }
}
