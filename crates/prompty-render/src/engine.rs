//! The template engines: Jinja2 (minijinja), Mustache (ours) and Handlebars.
//!
//! A template is compiled once; rendering takes `&self` and is safe to share between
//! threads. Errors are located in the `.prompty` file, not in the body.

use std::ops::Range;

use minijinja::syntax::SyntaxConfig;
use minijinja::{Environment, ErrorKind as JinjaErrorKind, UndefinedBehavior};
use prompty_syntax::{LineIndex, Profile};

use crate::context::Context;
use crate::error::{Error, ErrorKind};
use crate::limits::{CappedWriter, Limits};
use crate::{jinja_compat, pyrepr};

const TEMPLATE_NAME: &str = "prompt";

/// An output range written by an expression, and the expression's source text.
pub(crate) type ExprSpan = (Range<usize>, String);

/// Where the template body sits in the original file, to locate errors.
#[derive(Debug, Clone, Default)]
pub(crate) struct BodyLocation {
    /// The original file text, when known.
    pub(crate) file: Option<std::sync::Arc<str>>,
    /// Byte span of the body in the file.
    pub(crate) span: Range<usize>,
}

impl BodyLocation {
    /// Maps a 1-based line and a byte column range in the body to a span in the file.
    fn locate(&self, body: &str, line: usize, col_range: Option<Range<usize>>) -> Option<Range<usize>> {
        let file = self.file.as_deref()?;
        let body_index = LineIndex::new(body);
        let line_start = body_index.offset(body, line, 1);
        let (start_col, len) = match col_range {
            Some(r) => (r.start.saturating_sub(line_start), r.end.saturating_sub(r.start)),
            None => (0, 0),
        };
        let file_index = LineIndex::new(file);
        let (body_line, _) = file_index.line_col(file, self.span.start);
        let file_line_start = file_index.offset(file, body_line + line - 1, 1);
        let start = (file_line_start + start_col).min(file.len());
        Some(start..(start + len).min(file.len()))
    }
}

/// A compiled template.
pub(crate) enum Engine {
    Jinja(Box<Environment<'static>>),
    Mustache(Box<prompty_mustache::Template>),
    Handlebars(Box<handlebars::Handlebars<'static>>),
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Jinja(_) => "Engine::Jinja",
            Engine::Mustache(_) => "Engine::Mustache",
            Engine::Handlebars(_) => "Engine::Handlebars",
        })
    }
}

impl Engine {
    /// Compiles `source` with the engine named by `format`, configured for `profile`.
    pub(crate) fn compile(
        format: &str,
        source: String,
        profile: Profile,
        limits: &Limits,
        loc: &BodyLocation,
    ) -> Result<Engine, Error> {
        match format {
            "jinja2" | "jinja" | "nunjucks" => {
                let mut env = jinja_compat::environment();
                let syntax = SyntaxConfig::builder()
                    .keep_trailing_newline(true)
                    .trim_blocks(profile == Profile::Promptflow)
                    .lstrip_blocks(false)
                    .build()
                    .map_err(|e| Error::new(ErrorKind::TemplateSyntax, e.to_string()))?;
                env.set_syntax(syntax);
                env.set_undefined_behavior(UndefinedBehavior::Lenient);
                env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
                env.set_formatter(pyrepr::formatter);
                env.set_fuel(limits.fuel);
                env.set_recursion_limit(limits.recursion);
                let source = jinja_compat::normalize_newlines(source);
                let body = source.clone();
                env.add_template_owned(TEMPLATE_NAME, source).map_err(|e| jinja_error(&e, &body, loc))?;
                Ok(Engine::Jinja(Box::new(env)))
            }
            "mustache" => {
                prompty_mustache::Template::compile(&source).map(|t| Engine::Mustache(Box::new(t))).map_err(|e| {
                    let span = e.span();
                    let (line, _) = LineIndex::new(&source).line_col(&source, span.start);
                    let err = Error::new(ErrorKind::TemplateSyntax, format!("Mustache syntax error: {}", e.message()));
                    match loc.locate(&source, line, Some(span)) {
                        Some(s) => err.with_span(s),
                        None => err,
                    }
                })
            }
            "handlebars" | "hbs" => {
                let mut hb = handlebars::Handlebars::new();
                hb.register_escape_fn(handlebars::no_escape);
                hb.register_template_string(TEMPLATE_NAME, &source).map_err(|e| {
                    let err = Error::new(ErrorKind::TemplateSyntax, format!("Handlebars syntax error: {}", e.reason()));
                    let at = e.pos().and_then(|(line, col)| {
                        let start = LineIndex::new(&source).offset(&source, line, col);
                        loc.locate(&source, line, Some(start..start))
                    });
                    match at {
                        Some(s) => err.with_span(s),
                        None => err,
                    }
                })?;
                if hb.get_template(TEMPLATE_NAME).is_some_and(|t| hbs_inline_calls_partial(&t.elements, false)) {
                    return Err(Error::new(
                        ErrorKind::TemplateSyntax,
                        "Handlebars syntax error: an inline partial calls a partial; partials may not nest (they could recurse without end)",
                    ));
                }
                Ok(Engine::Handlebars(Box::new(hb)))
            }
            other => Err(Error::new(
                ErrorKind::UnknownEngine,
                format!("No renderer registered for key: {other} (supported: jinja2, mustache, handlebars)"),
            )),
        }
    }

    /// Renders with `ctx` (a JSON object of inputs).
    pub(crate) fn render(
        &self,
        ctx: &Context<'_>,
        limits: &Limits,
        body: &str,
        loc: &BodyLocation,
    ) -> Result<String, Error> {
        match self {
            Engine::Jinja(env) => {
                let tmpl = env.get_template(TEMPLATE_NAME).map_err(|e| jinja_error(&e, body, loc))?;
                let mut out = CappedWriter::new(limits.max_output, body.len() * 2);
                let result = tmpl.render_captured_to(ctx.to_minijinja(), &mut out);
                if out.overflowed {
                    return Err(output_limit(limits));
                }
                result.map_err(|e| jinja_error(&e, body, loc))?;
                String::from_utf8(out.buf)
                    .map_err(|_| Error::new(ErrorKind::TemplateRender, "rendered output is not UTF-8"))
            }
            Engine::Mustache(t) => {
                let options = prompty_mustache::RenderOptions::default()
                    .with_max_depth(limits.recursion)
                    .with_max_output(limits.max_output);
                t.render_with(&ctx.to_json(), &prompty_mustache::NoPartials, &options).map_err(|e| {
                    let kind = match e.kind() {
                        prompty_mustache::ErrorKind::OutputLimitExceeded
                        | prompty_mustache::ErrorKind::DepthLimitExceeded
                        | prompty_mustache::ErrorKind::StepLimitExceeded => ErrorKind::Limit,
                        _ => ErrorKind::TemplateRender,
                    };
                    Error::new(kind, format!("Mustache render error: {}", e.message()))
                })
            }
            Engine::Handlebars(hb) => {
                let out = hb.render(TEMPLATE_NAME, &ctx.to_json()).map_err(|e| {
                    Error::new(ErrorKind::TemplateRender, format!("Handlebars render error: {}", e.reason()))
                })?;
                if out.len() > limits.max_output {
                    return Err(output_limit(limits));
                }
                Ok(out)
            }
        }
    }

    /// Renders a Jinja template and reports which output ranges came from expressions.
    pub(crate) fn render_with_spans(
        &self,
        ctx: &Context<'_>,
        body: &str,
        loc: &BodyLocation,
    ) -> Result<(String, Vec<ExprSpan>), Error> {
        let Engine::Jinja(env) = self else {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "provenance segments are available for jinja2 templates only",
            ));
        };
        let tmpl = env.get_template(TEMPLATE_NAME).map_err(|e| jinja_error(&e, body, loc))?;
        let (out, spans) = tmpl.render_with_spans(ctx.to_minijinja()).map_err(|e| jinja_error(&e, body, loc))?;
        let exprs = spans
            .iter()
            .filter(|s| s.kind() == minijinja::OutputSpanKind::Expression)
            .map(|s| (s.output_range(), tmpl.source().get(s.source_range()).unwrap_or("").to_owned()))
            .collect();
        Ok((out, exprs))
    }

    /// The variables a Jinja or Mustache template reads (for lint).
    pub(crate) fn variables(&self) -> Vec<String> {
        match self {
            Engine::Jinja(env) => env
                .get_template(TEMPLATE_NAME)
                .map(|t| {
                    let mut v: Vec<String> = t.undeclared_variables(false).into_iter().collect();
                    v.sort();
                    v
                })
                .unwrap_or_default(),
            Engine::Mustache(t) => {
                let mut v: Vec<String> = t
                    .variables()
                    .iter()
                    .filter_map(|var| var.name.split('.').next().map(str::to_owned))
                    .filter(|n| !n.is_empty())
                    .collect();
                v.sort();
                v.dedup();
                v
            }
            Engine::Handlebars(_) => Vec::new(),
        }
    }
}

/// Whether a partial is called inside an inline partial's body: the only way a
/// single Handlebars template can recurse, which the engine does without a depth limit.
fn hbs_inline_calls_partial(elements: &[handlebars::template::TemplateElement], in_inline: bool) -> bool {
    use handlebars::template::TemplateElement as E;
    elements.iter().any(|e| match e {
        E::PartialExpression(_) | E::PartialBlock(_) if in_inline => true,
        E::PartialBlock(d) | E::DecoratorBlock(d) => {
            let inline = in_inline || matches!(e, E::DecoratorBlock(_));
            d.template.as_ref().is_some_and(|t| hbs_inline_calls_partial(&t.elements, inline))
        }
        E::HelperBlock(h) => {
            [&h.template, &h.inverse].into_iter().flatten().any(|t| hbs_inline_calls_partial(&t.elements, in_inline))
        }
        _ => false,
    })
}

fn output_limit(limits: &Limits) -> Error {
    Error::new(ErrorKind::Limit, format!("rendered output exceeds the limit of {} bytes", limits.max_output))
}

fn jinja_error(e: &minijinja::Error, body: &str, loc: &BodyLocation) -> Error {
    let kind = match e.kind() {
        JinjaErrorKind::SyntaxError => ErrorKind::TemplateSyntax,
        JinjaErrorKind::OutOfFuel => ErrorKind::Limit,
        JinjaErrorKind::InvalidOperation if e.to_string().contains("recursion") => ErrorKind::Limit,
        _ => ErrorKind::TemplateRender,
    };
    let detail = e.detail().map_or_else(|| e.kind().to_string(), str::to_owned);
    let message = match kind {
        ErrorKind::TemplateSyntax => format!("template syntax error: {detail}"),
        ErrorKind::Limit if e.kind() == JinjaErrorKind::OutOfFuel => {
            "the template ran out of fuel (too much work for one render; is there a runaway loop?)".to_owned()
        }
        ErrorKind::Limit => format!("template recursion limit hit: {detail}"),
        _ => format!("template error: {detail}"),
    };
    let err = Error::new(kind, message);
    match e.line().and_then(|l| loc.locate(body, l, e.range())) {
        Some(span) => err.with_span(span),
        None => err,
    }
}
