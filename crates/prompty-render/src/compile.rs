//! The template compiled for a render: plain, or with a mark before each place of its own
//! text that the split checks ([`crate::plan`]).
//!
//! At render time the mark variable holds a fresh random mark, so the rendered text carries
//! the mark exactly where the template's own text put a role word, a label or a line break,
//! however often a loop repeats it. The marks are taken out of the text as it is written
//! (Jinja, Handlebars) or right after (Mustache), giving the text the reference would have
//! rendered, byte for byte, and their places are kept for the split
//! ([`TemplatePlaces`](crate::plan::TemplatePlaces)).
//!
//! In Jinja, a place in text the render writes straight to its output (outside any block
//! whose output becomes a value) gets no mark: it is a *direct* place, recorded by the
//! writer when the fork tells it a write is the template's own text and from where
//! ([`crate::limits::Direct`], `Template::source_offset`), the same place a mark would have
//! given. Only places in capturing blocks (macros, `call`, `filter`, `set` and `block`
//! bodies, recursive loops; [`prompty_jinja::lexer`]) get marks; a template brought in by
//! `include`, `import`, `from` or `extends`, or a block structure that does not add up,
//! gives every place a mark.
//!
//! Text the profile does not mark (a Jinja `{% raw %}` block, Mustache text after a
//! set-delimiter tag or a Handlebars raw block in the promptflow profile; text printed by an
//! expression) holds no marks, so a role line there is refused when it renders, rather than
//! rendered differently.

use prompty_syntax::{Profile, TemplateFormat};

use crate::engine::{BodyLocation, Engine};
use crate::error::{Error, ErrorKind};
use crate::layout::{self, Layout, Origin};
use crate::limits::Limits;
use crate::nesting::JinjaFacts;
use crate::plan::{Checks, plan};

/// What a template is compiled for: its format and the profile, limits and place in its
/// file it renders with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CompileTarget<'a> {
    pub(crate) format: TemplateFormat,
    pub(crate) profile: Profile,
    pub(crate) limits: &'a Limits,
    pub(crate) location: &'a BodyLocation,
}

impl CompileTarget<'_> {
    /// The engine for `text`, checked for nesting by `scanned` when given (Jinja; see
    /// [`Engine::compile_scanned`]).
    fn engine(&self, text: String, scanned: Option<JinjaFacts>) -> Result<Engine, Error> {
        Engine::compile_scanned(self.format, text, self.profile, self.limits, self.location, scanned)
    }
}

/// A template compiled for a render, with its marks.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// The body as compiled (the template's own for Handlebars, whose marks are spliced
    /// into the compiled template).
    pub(crate) body: String,
    pub(crate) engine: Engine,
    /// How many marks the template holds (0: the engine renders the plain template).
    pub(crate) marks: usize,
    /// Jinja: the places of the compiled body's own text that get no mark, since the render
    /// writes them straight to its output (byte offsets in [`Compiled::body`], ascending; see
    /// [`crate::limits::Direct`]).
    pub(crate) direct: Vec<usize>,
    /// What the split checks the render's places against.
    pub(crate) checks: Checks,
}

/// Compiles `body` for `target`; with `marked`, with a mark before each role word, label
/// and line break of the template's own text that the profile checks (in Jinja, those in
/// capturing blocks; the rest are direct places).
pub(crate) fn compile(target: &CompileTarget<'_>, body: &str, marked: bool) -> Result<Compiled, Error> {
    if !marked {
        return target.engine(body.to_owned(), None).map(|engine| unmarked(body, engine));
    }
    let profile = target.profile;
    let spec = profile == Profile::Spec;
    match target.format {
        TemplateFormat::Jinja2 => {
            // The engine reads `\r\n` and `\r` as `\n`; so must the layout.
            let body = prompty_jinja::normalize_newlines(body.to_owned());
            // One reading of the template's tokens for the layout and the nesting scan.
            let mut depth = crate::nesting::JinjaDepth::new(target.limits.max_nesting);
            let layout = layout::jinja(&body, profile == Profile::Promptflow, spec, &mut |t, s| depth.token(t, s));
            let Ok(facts) = depth.finish() else {
                // Too deep: compiling the plain template reports it, located.
                return target.engine(body.clone(), None).map(|e| unmarked(&body, e));
            };
            let plan = plan(&layout.view, profile, layout.captures);
            let compiled = compile_with_places(target, Some(facts), &body, &layout, &plan.places, &|_, _| true)?;
            Ok(Compiled { checks: plan.checks, ..compiled })
        }
        #[cfg(feature = "mustache")]
        TemplateFormat::Mustache => {
            let plain = target.engine(body.to_owned(), None)?;
            let Engine::Mustache(template) = &plain else { return Ok(unmarked(body, plain)) };
            let layout = layout::mustache(template, spec);
            let plan = plan(&layout.view, profile, false);
            if plan.places.is_empty() {
                return Ok(unmarked(body, plain));
            }
            let literal = literal_text(template);
            // Every mark is read as a variable and leaves the template's text as it was.
            let same = |engine: &Engine, n: usize| {
                engine.mark_count() == n && matches!(engine, Engine::Mustache(t) if literal_text(t) == literal)
            };
            let compiled = compile_with_places(target, None, body, &layout, &plan.places, &same)?;
            Ok(Compiled { checks: plan.checks, ..compiled })
        }
        #[cfg(feature = "handlebars")]
        TemplateFormat::Handlebars => {
            let mut engine = target.engine(body.to_owned(), None)?;
            let Some(template) = engine.handlebars_template() else { return Ok(unmarked(body, engine)) };
            let layout = layout::handlebars(template, spec);
            let plan = plan(&layout.view, profile, false);
            let places: Vec<(usize, usize)> = plan
                .places
                .into_iter()
                .filter_map(|p| match layout.locate(p)? {
                    (layout::Run { origin: Origin::Element(k), .. }, offset) => Some((*k, offset)),
                    _ => None,
                })
                .collect();
            engine.splice_marks(&places);
            let marks = places.len();
            Ok(Compiled { body: body.to_owned(), engine, marks, direct: Vec::new(), checks: plan.checks })
        }
        // An engine left out of the build: compiling reports it.
        #[allow(unreachable_patterns, reason = "reached when an engine is left out of the build")]
        _ => target.engine(body.to_owned(), None).map(|engine| unmarked(body, engine)),
    }
}

fn unmarked(body: &str, engine: Engine) -> Compiled {
    Compiled { body: body.to_owned(), engine, marks: 0, direct: Vec::new(), checks: Checks::default() }
}

/// A Mustache template's literal text, all runs joined.
#[cfg(feature = "mustache")]
fn literal_text(t: &prompty_mustache::Template) -> String {
    t.literals().iter().filter_map(|l| t.source().get(l.span.clone())).collect()
}

/// Writes the mark's variable into `body` at the view offsets `places` and compiles it;
/// a place in a run written straight to the output gets no mark and is kept as a byte
/// offset of the compiled body ([`Compiled::direct`]).
/// `works` confirms a compiled template (given the number of marks): a marked body that
/// does not compile, or that `works` refuses, is an error (the template's own, when the
/// plain body does not compile either).
fn compile_with_places(
    target: &CompileTarget<'_>,
    scanned: Option<JinjaFacts>,
    body: &str,
    layout: &Layout,
    places: &[usize],
    works: &dyn Fn(&Engine, usize) -> bool,
) -> Result<Compiled, Error> {
    // The marked template is not scanned again: a mark is an expression one level inside
    // the text it stands in, and the plain template is within the limit.
    let compile = |text: String| target.engine(text, scanned);
    let mut inserts: Vec<Insert<'_>> = Vec::new();
    let mut marks = 0usize;
    let mut direct = Vec::new();
    for &p in places {
        if let Some((layout::Run { origin: Origin::Body { at, tag }, direct: d, .. }, offset)) = layout.locate(p) {
            if *d {
                direct.push(at + offset);
            } else if let Some(tag) = layout.tags.get(*tag) {
                let at = at + offset;
                // A `{` of the template's text right before the mark would open a tag with
                // the mark's `{{`: it goes in a raw block of its own, which writes it as it was.
                // (In a raw block, the mark's tag closes the block first.)
                let after_brace = at > 0 && body.as_bytes().get(at - 1) == Some(&b'{');
                if after_brace && tag.starts_with("{{") {
                    if target.format != TemplateFormat::Jinja2 {
                        // Mustache has no raw text: the place stays unmarked, so what it
                        // guards is refused if it renders, never rendered differently.
                        continue;
                    }
                    inserts.push((at - 1, "{% raw %}"));
                    inserts.push((at, "{% endraw %}"));
                }
                inserts.push((at, tag.as_str()));
                marks += 1;
            }
        }
    }
    if inserts.is_empty() {
        return Ok(Compiled { direct, ..unmarked(body, compile(body.to_owned())?) });
    }
    let marked = insert(body, &inserts);
    if let Ok(engine) = compile(marked.clone())
        && works(&engine, marks)
    {
        let direct = shifted(&direct, &inserts);
        return Ok(Compiled { body: marked, engine, marks, direct, checks: Checks::default() });
    }
    // The plain template's own error, located in the file, when it does not compile.
    compile(body.to_owned())?;
    // The marks go where the engine's own reading of the template puts its text
    // ([`crate::layout`]), so a template that compiles compiles with them.
    Err(Error::new(
        ErrorKind::Unsupported,
        "the template compiles, but the marks that tell its own role lines from values cannot be placed in it; \
         this is a bug: please report it with the template",
    ))
}

/// The offsets `places` of a body (ascending) in the body with `inserts` written into it:
/// a tag written at an offset goes before the byte there.
fn shifted(places: &[usize], inserts: &[Insert<'_>]) -> Vec<usize> {
    let mut added = 0;
    let mut next = inserts.iter().peekable();
    places
        .iter()
        .map(|&p| {
            while let Some((_, tag)) = next.next_if(|(at, _)| *at <= p) {
                added += tag.len();
            }
            p + added
        })
        .collect()
}

/// A tag to write into the body, at a byte offset.
type Insert<'t> = (usize, &'t str);

/// `body` with each tag written at its offset (ascending).
fn insert(body: &str, inserts: &[Insert<'_>]) -> String {
    let mut out = String::with_capacity(body.len() + inserts.iter().map(|(_, t)| t.len()).sum::<usize>());
    let mut from = 0;
    for &(p, tag) in inserts {
        out.push_str(body.get(from..p).unwrap_or(""));
        out.push_str(tag);
        from = p;
    }
    out.push_str(body.get(from..).unwrap_or(""));
    out
}
