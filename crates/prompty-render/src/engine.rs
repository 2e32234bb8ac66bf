//! The template engines: Jinja2 (minijinja), Mustache (ours) and Handlebars.
//!
//! A template is compiled once; rendering takes `&self` and is safe to share between
//! threads. Errors are located in the `.prompty` file, not in the body.

use std::fmt;
use std::ops::Range;

use minijinja::value::{Value as JinjaValue, ValueKind};
use minijinja::{Environment, ErrorKind as JinjaErrorKind, Output, State, UndefinedBehavior};
use prompty_syntax::{LineIndex, Profile, TemplateFormat};

use crate::context::Context;
use crate::error::{Error, ErrorKind};
#[cfg(feature = "handlebars")]
use crate::limits::CappedWriter;
use crate::limits::{CappedString, Direct, Limits};
use crate::mark::{Mark, Marking};
use crate::nesting::TooDeep;
use crate::{mark, nesting};
use prompty_jinja::{budget, growth, pyrepr};

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

/// Checks, with one linear scan and before any parser reads it, that a template body nests
/// no deeper than `limits.max_nesting` (what [`Renderer`](crate::Renderer) checks first when
/// it compiles). For callers that parse template bodies themselves, such as a linter:
/// minijinja's and handlebars' parsers recurse once per level of nesting.
///
/// The error is a [`TemplateSyntax`](ErrorKind::TemplateSyntax) error whose
/// [`span`](Error::span) is a byte range of `body` (not of the file). Formats other than
/// Jinja2 and Handlebars always pass: the Mustache parser does not recurse.
///
/// ```
/// use prompty_render::{ErrorKind, Limits, check_nesting};
/// use prompty_syntax::{Profile, TemplateFormat};
///
/// let body = format!("{{{{ {}1 }}}}", "not ".repeat(30_000));
/// let err = check_nesting(TemplateFormat::Jinja2, &body, Profile::Spec, &Limits::default()).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::TemplateSyntax);
/// assert_eq!(err.span(), Some(399..402));
/// assert!(check_nesting(TemplateFormat::Jinja2, "{{ not not q }}", Profile::Spec, &Limits::default()).is_ok());
/// ```
pub fn check_nesting(format: TemplateFormat, body: &str, _profile: Profile, limits: &Limits) -> Result<(), Error> {
    let unlocated = BodyLocation::default();
    match format {
        TemplateFormat::Jinja2 => nesting::scan_jinja(body, limits.max_nesting)
            .map(|_| ())
            .map_err(|d| too_deep(&d, "template syntax error", body, &unlocated, limits).with_span(d.span)),
        TemplateFormat::Handlebars => nesting::scan_handlebars(body, limits.max_nesting)
            .map_err(|d| too_deep(&d, "Handlebars syntax error", body, &unlocated, limits).with_span(d.span)),
        TemplateFormat::Mustache => Ok(()),
    }
}

/// A compiled template.
pub(crate) enum Engine {
    Jinja(Box<Environment<'static>>),
    #[cfg(feature = "mustache")]
    Mustache(Box<prompty_mustache::Template>),
    #[cfg(feature = "handlebars")]
    Handlebars(Box<handlebars::Handlebars<'static>>),
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Jinja(_) => "Engine::Jinja",
            #[cfg(feature = "mustache")]
            Engine::Mustache(_) => "Engine::Mustache",
            #[cfg(feature = "handlebars")]
            Engine::Handlebars(_) => "Engine::Handlebars",
        })
    }
}

impl Engine {
    /// Compiles `source` with the engine of `format`, configured for `profile`.
    pub(crate) fn compile(
        format: TemplateFormat,
        source: String,
        profile: Profile,
        limits: &Limits,
        loc: &BodyLocation,
    ) -> Result<Engine, Error> {
        Self::compile_scanned(format, source, profile, limits, loc, None)
    }

    /// [`compile`](Self::compile), with the Jinja nesting scan's answer when the caller has
    /// it already (the marked template: its plain text was scanned while laid out, and a
    /// mark adds one expression level inside text, which the parser takes in its stride).
    pub(crate) fn compile_scanned(
        format: TemplateFormat,
        source: String,
        profile: Profile,
        limits: &Limits,
        loc: &BodyLocation,
        scanned: Option<nesting::JinjaFacts>,
    ) -> Result<Engine, Error> {
        match format {
            TemplateFormat::Jinja2 => {
                // minijinja's parser and code generator recurse once per level: bound the
                // depth first, then refuse values that could grow past the fuel.
                let facts = match scanned {
                    Some(facts) => facts,
                    None => nesting::scan_jinja(&source, limits.max_nesting)
                        .map_err(|d| too_deep(&d, "template syntax error", &source, loc, limits))?,
                };
                if facts.keeps_values {
                    check_growth(&source, profile, loc)?;
                }
                let mut env = jinja_environment(profile, limits);
                let source = prompty_jinja::normalize_newlines(source);
                let body = source.clone();
                env.add_template_owned(TEMPLATE_NAME, source).map_err(|e| jinja_error(&e, &body, loc, limits))?;
                Ok(Engine::Jinja(Box::new(env)))
            }
            #[cfg(feature = "mustache")]
            TemplateFormat::Mustache => {
                let options = prompty_mustache::CompileOptions::default().with_max_nesting(limits.max_nesting);
                prompty_mustache::Template::compile_with(&source, &options)
                    .map(|t| Engine::Mustache(Box::new(t)))
                    .map_err(|e| {
                        let err =
                            Error::new(ErrorKind::TemplateSyntax, format!("Mustache syntax error: {}", e.message()));
                        located(err, &source, e.span(), loc)
                    })
            }
            #[cfg(not(feature = "mustache"))]
            TemplateFormat::Mustache => Err(left_out("Mustache", "mustache")),
            #[cfg(feature = "handlebars")]
            TemplateFormat::Handlebars => {
                // The handlebars parser recurses once per block and subexpression.
                nesting::scan_handlebars(&source, limits.max_nesting)
                    .map_err(|d| too_deep(&d, "Handlebars syntax error", &source, loc, limits))?;
                let mut hb = handlebars::Handlebars::new();
                hb.register_escape_fn(handlebars::no_escape);
                // What the crate's grammar reads differently is written over with text of the same
                // length: positions stay right.
                let written = crate::handlebars::compat::write_body(&source);
                let parsed = written.source.as_deref().unwrap_or(&source);
                hb.register_template_string(TEMPLATE_NAME, parsed).map_err(|e| {
                    let err = Error::new(ErrorKind::TemplateSyntax, format!("Handlebars syntax error: {}", e.reason()));
                    hbs_located(err, &source, e.pos(), loc)
                })?;
                crate::handlebars::compat::adapt(&mut hb, TEMPLATE_NAME, &written);
                crate::handlebars::prepare(&mut hb, TEMPLATE_NAME).map_err(|(message, at)| {
                    let err = Error::new(ErrorKind::TemplateSyntax, format!("Handlebars syntax error: {message}"));
                    hbs_located(err, &source, at, loc)
                })?;
                Ok(Engine::Handlebars(Box::new(hb)))
            }
            #[cfg(not(feature = "handlebars"))]
            TemplateFormat::Handlebars => Err(left_out("Handlebars", "handlebars")),
        }
    }

    /// A Jinja template compiled from `source` (line breaks already normalized), with every
    /// token its parser reads handed to `observer` as it is read: one lexing of the template
    /// for the engine and for a caller that reads its tokens too ([`crate::compile`]).
    /// `None` when it does not compile or the observer stops it; [`Engine::compile_scanned`]
    /// then tells why. Neither the nesting bound nor the value-growth check is applied here:
    /// the observer bounds the nesting as the parser reads (it stops the parse at the first
    /// token past the limit, before the parser's recursion gets there), and the caller
    /// checks growth with [`check_growth`] once the tokens have told it whether to.
    pub(crate) fn jinja_observed(
        source: String,
        profile: Profile,
        limits: &Limits,
        observer: &mut minijinja::machinery::TokenObserver<'_>,
        tree: Option<&mut minijinja::machinery::TreeObserver<'_>>,
    ) -> Option<Engine> {
        let mut env = jinja_environment(profile, limits);
        env.add_template_owned_observed(TEMPLATE_NAME, source, observer, tree).ok()?;
        Some(Engine::Jinja(Box::new(env)))
    }

    /// Renders with `ctx` (a JSON object of inputs).
    pub(crate) fn render(
        &self,
        ctx: &Context<'_>,
        limits: &Limits,
        body: &str,
        loc: &BodyLocation,
    ) -> Result<String, Error> {
        self.render_marked(ctx, Marking::default(), limits, body, loc).map(|(text, _)| text)
    }

    /// Renders with `ctx` and the [`Marking`] of a marked template: the text without the
    /// marks, and the places of the marks and of the direct places ([`crate::compile`]).
    pub(crate) fn render_marked(
        &self,
        ctx: &Context<'_>,
        marking: Marking<'_>,
        limits: &Limits,
        body: &str,
        loc: &BodyLocation,
    ) -> Result<(String, Vec<usize>), Error> {
        let Marking { mark, marks, direct } = marking;
        let mark_text = mark.map(Mark::as_str);
        match self {
            Engine::Jinja(env) => {
                let tmpl = env.get_template(TEMPLATE_NAME).map_err(|e| jinja_error(&e, body, loc, limits))?;
                let mut out = CappedString::new(limits.max_output, body.len() * 2, mark_text, marks + direct.len());
                if !direct.is_empty() {
                    out.direct = Some(Direct::new(&tmpl, direct));
                }
                start_count(mark.copied(), limits);
                let result = tmpl.render_to_fmt(ctx.to_minijinja(mark_text), &mut out);
                if out.overflowed {
                    let err = output_limit(limits, true);
                    return Err(
                        match result.err().and_then(|e| e.line().and_then(|l| loc.locate(body, l, e.range()))) {
                            Some(span) => err.with_span(span),
                            None => err,
                        },
                    );
                }
                result.map_err(|e| jinja_error(&e, body, loc, limits))?;
                Ok((out.buf, out.places))
            }
            #[cfg(feature = "mustache")]
            Engine::Mustache(t) => {
                let options = prompty_mustache::RenderOptions::default()
                    .with_max_depth(limits.recursion)
                    .with_max_output(limits.max_output)
                    .with_max_steps(limits.steps)
                    .with_display(chevron_display)
                    .with_empty_object_falsey(true);
                // The Mustache engine renders into a string of its own: the marks are taken
                // out afterwards.
                let unmarked = |text: String| match mark_text {
                    Some(mark) => crate::mark::strip_marks(&text, mark),
                    None => (text, Vec::new()),
                };
                t.render_with(&ctx.to_json(mark_text), &prompty_mustache::NoPartials, &options).map(unmarked).map_err(
                    |e| {
                        let kind = match e.kind() {
                            prompty_mustache::ErrorKind::OutputLimitExceeded
                            | prompty_mustache::ErrorKind::DepthLimitExceeded
                            | prompty_mustache::ErrorKind::StepLimitExceeded => ErrorKind::Limit,
                            _ => ErrorKind::TemplateRender,
                        };
                        let err = Error::new(kind, format!("Mustache render error: {}", e.message()));
                        if e.partial().is_some() { err } else { located(err, body, e.span(), loc) }
                    },
                )
            }
            #[cfg(feature = "handlebars")]
            Engine::Handlebars(hb) => {
                let mut out = CappedWriter::new(limits.max_output, body.len() * 2, mark_text, marks);
                // The mark is a helper's output, not data: no lookup or iteration of the
                // inputs can print it.
                let scope = crate::handlebars::RenderScope::start(limits.steps, mark.copied());
                let result = hb.render_to_write(TEMPLATE_NAME, &ctx.to_json(None), &mut out);
                let exhausted = scope.exhausted();
                drop(scope);
                if let Err(e) = result {
                    let (kind, message) = if out.overflowed {
                        (ErrorKind::Limit, output_limit(limits, false).message().to_owned())
                    } else if exhausted {
                        (ErrorKind::Limit, steps_limit(limits))
                    } else {
                        (ErrorKind::TemplateRender, format!("Handlebars render error: {}", e.reason()))
                    };
                    let at = e.line_no.zip(e.column_no);
                    return Err(hbs_located(Error::new(kind, message), body, at, loc));
                }
                let places = out.places;
                String::from_utf8(out.buf)
                    .map(|text| (text, places))
                    .map_err(|_| Error::new(ErrorKind::TemplateRender, "rendered output is not UTF-8"))
            }
        }
    }

    /// Renders a Jinja template and reports which output ranges came from expressions.
    pub(crate) fn render_with_spans(
        &self,
        ctx: &Context<'_>,
        limits: &Limits,
        body: &str,
        loc: &BodyLocation,
    ) -> Result<(String, Vec<ExprSpan>), Error> {
        // Irrefutable in a build with the Jinja engine only.
        #[allow(irrefutable_let_patterns)]
        let Engine::Jinja(env) = self else {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "provenance segments are available for jinja2 templates only",
            ));
        };
        let tmpl = env.get_template(TEMPLATE_NAME).map_err(|e| jinja_error(&e, body, loc, limits))?;
        start_count(None, limits);
        let (out, spans) =
            tmpl.render_with_spans(ctx.to_minijinja(None)).map_err(|e| jinja_error(&e, body, loc, limits))?;
        if out.len() > limits.max_output {
            return Err(output_limit(limits, true));
        }
        let exprs = spans
            .iter()
            .filter(|s| s.kind() == minijinja::OutputSpanKind::Expression)
            .map(|s| (s.output_range(), tmpl.source().get(s.source_range()).unwrap_or("").to_owned()))
            .collect();
        Ok((out, exprs))
    }

    /// How many times a Mustache template reads the promptflow mark as a variable (0 for the
    /// other engines: Jinja's marks are placed by a lexer, Handlebars' spliced into its tree).
    #[cfg(feature = "mustache")]
    pub(crate) fn mark_count(&self) -> usize {
        match self {
            Engine::Mustache(t) => t.variables().iter().filter(|v| v.name == crate::mark::MARK_VAR).count(),
            _ => 0,
        }
    }

    /// The compiled Handlebars template.
    #[cfg(feature = "handlebars")]
    pub(crate) fn handlebars_template(&self) -> Option<&handlebars::template::Template> {
        match self {
            Engine::Handlebars(hb) => hb.get_template(TEMPLATE_NAME),
            _ => None,
        }
    }

    /// Splices the promptflow mark into a compiled Handlebars template: at each (raw string,
    /// byte offset) of `places`, raw strings counted in pre-order (see [`crate::handlebars::splice_marks`]).
    #[cfg(feature = "handlebars")]
    pub(crate) fn splice_marks(&mut self, places: &[(usize, usize)]) {
        if let Engine::Handlebars(hb) = self
            && !places.is_empty()
            && let Some(template) = hb.get_template(TEMPLATE_NAME)
        {
            let mut marked = template.clone();
            crate::handlebars::splice_marks(&mut marked, places);
            hb.register_template(TEMPLATE_NAME, marked);
        }
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
            #[cfg(feature = "mustache")]
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
            #[cfg(feature = "handlebars")]
            Engine::Handlebars(_) => Vec::new(),
        }
    }
}

/// The error for a template format whose engine this build leaves out.
#[cfg(any(not(feature = "mustache"), not(feature = "handlebars")))]
fn left_out(engine: &str, feature: &str) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!(
            "the {engine} engine is not part of this build (cargo feature `{feature}` of prompty-render, or of \
             prompty, is off); enable the feature to render `format: {feature}` templates"
        ),
    )
}

/// The output cap error; Jinja2 also counts what `{{ }}` writes into captured text.
fn output_limit(limits: &Limits, jinja: bool) -> Error {
    let captured = if jinja { " (text written into `set` blocks, macros and `caller()` counts too)" } else { "" };
    Error::new(
        ErrorKind::Limit,
        format!("rendered output exceeds the limit of {} bytes{captured}; is there a runaway loop?", limits.max_output),
    )
}

#[cfg(feature = "handlebars")]
fn steps_limit(limits: &Limits) -> String {
    format!("the render took more than {} steps (too much work for one render; is there a runaway loop?)", limits.steps)
}

/// The environment a Jinja template of `profile` compiles and renders in: the profile's
/// syntax, lenient undefined values, no auto-escaping, the budgeted formatter, fuel and the
/// recursion limit.
fn jinja_environment(profile: Profile, limits: &Limits) -> minijinja::Environment<'static> {
    let mut env = prompty_jinja::environment();
    env.set_syntax(prompty_jinja::syntax(profile == Profile::Promptflow));
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    let max_output = limits.max_output;
    env.set_formatter(move |out, state, value| budgeted_format(out, state, value, max_output));
    env.set_fuel(Some(limits.steps));
    env.set_recursion_limit(limits.recursion);
    env
}

/// Refuses a Jinja template whose values could grow past the fuel ([`growth`]); a template
/// that does not parse is left to the compile, which reports it.
pub(crate) fn check_growth(source: &str, profile: Profile, loc: &BodyLocation) -> Result<(), Error> {
    let syntax = prompty_jinja::syntax(profile == Profile::Promptflow);
    if let Ok(ast) = minijinja::machinery::parse(source, TEMPLATE_NAME, syntax) {
        growth::check(&ast).map_err(|r| {
            located(
                Error::new(ErrorKind::TemplateSyntax, format!("template refused: {}", r.message)),
                source,
                r.span,
                loc,
            )
        })?;
    }
    Ok(())
}

/// The error for a template nested deeper than the limit.
fn too_deep(d: &TooDeep, prefix: &str, body: &str, loc: &BodyLocation, limits: &Limits) -> Error {
    let message = format!(
        "{prefix}: this {} nests deeper than {} levels (each block, bracket, subexpression, chained operator, \
         filter, attribute and call counts one); split it into smaller parts",
        d.what, limits.max_nesting
    );
    located(Error::new(ErrorKind::TemplateSyntax, message), body, d.span.clone(), loc)
}

/// Points `err` at `span` (a byte range of the body) in the file, when the file is known.
fn located(err: Error, body: &str, span: Range<usize>, loc: &BodyLocation) -> Error {
    let (line, _) = LineIndex::new(body).line_col(body, span.start.min(body.len()));
    match loc.locate(body, line, Some(span)) {
        Some(s) => err.with_span(s),
        None => err,
    }
}

/// Points `err` at a Handlebars (line, column) of the body.
#[cfg(feature = "handlebars")]
fn hbs_located(err: Error, body: &str, at: Option<(usize, usize)>, loc: &BodyLocation) -> Error {
    match at {
        Some((line, col)) => {
            let start = LineIndex::new(body).offset(body, line, col);
            match loc.locate(body, line, Some(start..start)) {
                Some(s) => err.with_span(s),
                None => err,
            }
        }
        None => err,
    }
}

thread_local! {
    /// Bytes written by `{{ }}` tags during the render running on this thread, wherever
    /// they went (final text, `set` blocks, macro bodies, `caller()`). Each render starts it
    /// at zero ([`start_count`]); a render runs on one thread from start to end and starts
    /// no other render. (A thread-local counter, not a state extension: that one cost a
    /// map and a box per render.)
    static WRITTEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The mark of the render running on this thread, if it has one: the formatter writes
    /// it apart and does not count it (set by [`start_count`] with the count).
    static RENDER_MARK: std::cell::Cell<Option<Mark>> = const { std::cell::Cell::new(None) };
}

/// Starts the count of bytes written by `{{ }}` tags for a new render with `mark`, and the
/// budget the filters, tests and methods see ([`prompty_jinja::budget`]).
fn start_count(mark: Option<Mark>, limits: &Limits) {
    WRITTEN.set(0);
    RENDER_MARK.set(mark);
    budget::start(limits.max_output, limits.steps);
}

/// The output cap, as the error source the formatter returns when it is reached.
#[derive(Debug)]
struct OutputCap;

impl fmt::Display for OutputCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("output limit")
    }
}

impl std::error::Error for OutputCap {}

/// A writer that stops after `left` bytes.
struct Budgeted<'o, 'w> {
    out: &'o mut Output<'w>,
    left: usize,
    used: usize,
    over: bool,
}

impl fmt::Write for Budgeted<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.len() > self.left - self.used {
            self.over = true;
            return Err(fmt::Error);
        }
        self.used += s.len();
        self.out.write_str(s)
    }
}

/// Prints a value as Python's `str()` ([`pyrepr::write_str_value`]) and counts the bytes
/// against the render's output cap, stopping as soon as it is reached (a value may be
/// far larger than the cap, e.g. a lazily repeated list).
fn budgeted_format(
    out: &mut Output<'_>,
    state: &mut State<'_, '_>,
    value: &JinjaValue,
    max_output: usize,
) -> Result<(), minijinja::Error> {
    let kind = value.kind();
    if kind == ValueKind::Invalid {
        return pyrepr::formatter(out, state, value);
    }
    let written = WRITTEN.get();
    let left = max_output.saturating_sub(written);
    let refused = || {
        minijinja::Error::new(JinjaErrorKind::InvalidOperation, "the output limit was reached").with_source(OutputCap)
    };
    // A string prints as itself: the common case, written at once.
    if kind == ValueKind::String
        && let Some(s) = value.as_str()
    {
        // This render's marks are not output: they do not count (counted here only near the
        // limit). Text that merely looks like a mark counts as any other.
        let mark = RENDER_MARK.get();
        let mark = mark.as_ref().map(Mark::as_bytes);
        if s.len() > left && s.len() - mark::MARK_LEN * mark::places(s.as_bytes(), mark).count() > left {
            return Err(refused());
        }
        let pieces = write_marks_apart(out, s, mark).map_err(minijinja::Error::from)?;
        WRITTEN.set(written + s.len() - mark::MARK_LEN * pieces);
        return Ok(());
    }
    if !may_fit(value, &mut left.clone()) {
        return Err(refused());
    }
    let mut w = Budgeted { out, left, used: 0, over: false };
    let result = pyrepr::write_str_value(&mut w, value);
    WRITTEN.set(written + w.used);
    match result {
        Ok(()) => Ok(()),
        Err(_) if w.over => Err(refused()),
        Err(e) => Err(minijinja::Error::from(e)),
    }
}

/// Writes `s` with each of this render's marks in it (`mark`) in a write of its own, where
/// the render's [`CappedString`] records it (in a macro's or block's capture, the pieces join
/// again); returns how many marks it wrote apart.
fn write_marks_apart(out: &mut Output<'_>, s: &str, mark: Option<&[u8]>) -> Result<usize, fmt::Error> {
    let bytes = s.as_bytes();
    // The common cases at once: no mark, the template's own `{{ mark }}` or a short value,
    // a value with no byte that starts a mark.
    let Some(mark_bytes) = mark else { return out.write_str(s).map(|()| 0) };
    if bytes.len() <= mark::MARK_LEN || mark::next_mark_start(bytes, 0).is_none() {
        out.write_str(s)?;
        return Ok(usize::from(bytes == mark_bytes));
    }
    let (mut from, mut pieces) = (0, 0);
    for at in mark::places(s.as_bytes(), mark) {
        if at > from {
            out.write_str(s.get(from..at).unwrap_or_default())?;
        }
        from = at + mark::MARK_LEN;
        out.write_str(s.get(at..from).unwrap_or_default())?;
        pieces += 1;
    }
    if pieces == 0 || from < s.len() {
        out.write_str(s.get(from..).unwrap_or_default())?;
    }
    Ok(pieces)
}

/// Whether `value` can print in `left` bytes, as far as counting tells: every item of a
/// list or map prints at least one byte. Visits at most `left` items, and sizes lazy
/// sequences by their length without walking them, so that a list repeated a hundred
/// million times is refused at once (printing would walk every item, even past an error).
/// Iterating twice is safe: renders hold no one-shot iterators (inputs are JSON, and no
/// built-in filter or function makes one).
fn may_fit(value: &JinjaValue, left: &mut usize) -> bool {
    match value.kind() {
        ValueKind::String => match value.as_str() {
            Some(s) if s.len() > *left => false,
            Some(s) => {
                *left -= s.len();
                true
            }
            None => true,
        },
        ValueKind::Seq | ValueKind::Iterable | ValueKind::Map => {
            if value.len().is_some_and(|n| n > *left) {
                return false;
            }
            if let Some(pairs) =
                value.as_object().filter(|_| value.kind() == ValueKind::Map).and_then(|o| o.try_iter_pairs())
            {
                for (key, item) in pairs {
                    if *left == 0 || !may_fit(&key, left) || !may_fit(&item, left) {
                        return false;
                    }
                    *left -= 1;
                }
                return true;
            }
            let Ok(items) = value.try_iter() else { return true };
            for item in items {
                if *left == 0 || !may_fit(&item, left) {
                    return false;
                }
                *left -= 1;
            }
            true
        }
        _ => true,
    }
}

/// The most items minijinja's `range` makes (Jinja2's sandbox has the same `MAX_RANGE`).
const MAX_RANGE: usize = 100_000;

fn jinja_error(e: &minijinja::Error, body: &str, loc: &BodyLocation, limits: &Limits) -> Error {
    let output_cap =
        std::iter::successors(Some(e as &dyn std::error::Error), |e| e.source()).any(|e| e.is::<OutputCap>());
    if output_cap {
        let err = output_limit(limits, true);
        return match e.line().and_then(|l| loc.locate(body, l, e.range())) {
            Some(span) => err.with_span(span),
            None => err,
        };
    }
    if budget::is_refusal(e) {
        // The budget's own message names the call and the limit.
        let err = Error::new(ErrorKind::Limit, e.detail().unwrap_or("the render budget was exceeded"));
        return match e.line().and_then(|l| loc.locate(body, l, e.range())) {
            Some(span) => err.with_span(span),
            None => err,
        };
    }
    if e.kind() == JinjaErrorKind::InvalidOperation && e.detail() == Some("range has too many elements") {
        let err = Error::new(
            ErrorKind::Limit,
            format!(
                "`range` would make more than {MAX_RANGE} items (the limit on one range, as in Jinja2's sandbox); \
                 loop over the input itself or a smaller range"
            ),
        );
        return match e.line().and_then(|l| loc.locate(body, l, e.range())) {
            Some(span) => err.with_span(span),
            None => err,
        };
    }
    let kind = match e.kind() {
        JinjaErrorKind::SyntaxError => ErrorKind::TemplateSyntax,
        JinjaErrorKind::OutOfFuel => ErrorKind::Limit,
        JinjaErrorKind::InvalidOperation if e.to_string().contains("recursion") => ErrorKind::Limit,
        _ => ErrorKind::TemplateRender,
    };
    let detail = e.detail().map_or_else(|| e.kind().to_string(), str::to_owned);
    let message = match kind {
        ErrorKind::TemplateSyntax => format!("template syntax error: {detail}"),
        ErrorKind::Limit if e.kind() == JinjaErrorKind::OutOfFuel => format!(
            "the template ran out of fuel: the render took more than {} steps (too much work for one render; is \
             there a runaway loop?)",
            limits.steps
        ),
        ErrorKind::Limit => format!("template recursion limit hit: {detail}"),
        _ => format!("template error: {detail}"),
    };
    let err = Error::new(kind, message);
    match e.line().and_then(|l| loc.locate(body, l, e.range())) {
        Some(span) => err.with_span(span),
        None => err,
    }
}

/// How chevron, the Mustache engine of the Prompty Python runtime, prints a value that is not
/// a string: Python's `str()` (`True`, `1.0`, `1e+21`, `['a', 1]`, `{'k': None}`), except that
/// `None` and an empty list or object print nothing (chevron prints `value or ''`).
#[cfg(feature = "mustache")]
fn chevron_display(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => String::new(),
        Value::Array(items) if items.is_empty() => String::new(),
        Value::Object(map) if map.is_empty() => String::new(),
        other => crate::pyrepr::str_value(&crate::context::jinja_value(other)),
    }
}
