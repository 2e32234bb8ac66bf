//! Templates in each format render when the engine's feature is on, and fail to load with an
//! error naming the feature when it is off. `.ci/run` runs this file with no default
//! features too.

use prompty_toolkit::ErrorKind;

fn prompt(format: &str) -> String {
    format!(
        "---\ntemplate:\n  format:\n    kind: {format}\n  parser:\n    kind: prompty\ninputs:\n  name:\n    kind: string\n---\nuser:\nHi {{{{name}}}}!"
    )
}

fn render(format: &str) -> Result<String, prompty_toolkit::Error> {
    let prompt = prompty_toolkit::from_str(&prompt(format))?;
    Ok(prompt.render(&prompty_toolkit::inputs! { name: "Ada" })?.iter().map(|m| m.text_content()).collect())
}

#[test]
fn jinja_always_renders() {
    assert_eq!(render("jinja2").ok().as_deref(), Some("Hi Ada!"));
}

#[test]
fn mustache_renders_only_with_its_feature() {
    let result = render("mustache");
    #[cfg(feature = "mustache")]
    assert_eq!(result.ok().as_deref(), Some("Hi Ada!"));
    #[cfg(not(feature = "mustache"))]
    {
        let e = result.expect_err("left out");
        assert_eq!(e.kind(), ErrorKind::Template);
        assert_eq!(
            e.to_string(),
            "<string>: the Mustache engine is not part of this build (cargo feature `mustache` of prompty-render, \
             or of prompty, is off); enable the feature to render `format: mustache` templates"
        );
    }
}

#[test]
fn handlebars_renders_only_with_its_feature() {
    let result = render("handlebars");
    #[cfg(feature = "handlebars")]
    assert_eq!(result.ok().as_deref(), Some("Hi Ada!"));
    #[cfg(not(feature = "handlebars"))]
    {
        let e = result.expect_err("left out");
        assert_eq!(e.kind(), ErrorKind::Template);
        assert!(e.to_string().contains("cargo feature `handlebars`"), "{e}");
    }
}

#[test]
fn an_unknown_format_is_still_a_load_error() {
    let e = render("liquid").expect_err("unknown");
    assert_eq!(e.kind(), ErrorKind::Load);
    assert!(e.to_string().contains("[P014]"), "{e}");
}
