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

use std::borrow::Cow;

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

/// What [`crate::Renderer::with_syntax_tree`] hands over: the Jinja text a compile parsed
/// and its syntax tree.
pub type SyntaxTreeObserver<'o> = dyn for<'t> FnMut(&str, &minijinja::machinery::ast::Stmt<'t>) + 'o;

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
/// `tree` is handed the plain body's syntax tree where this compile parses it (see
/// [`crate::Renderer::with_syntax_tree`]).
pub(crate) fn compile(
    target: &CompileTarget<'_>,
    body: &str,
    marked: bool,
    tree: Option<&mut SyntaxTreeObserver<'_>>,
) -> Result<Compiled, Error> {
    if !marked {
        return target.engine(body.to_owned(), None).map(|engine| unmarked(body, engine));
    }
    match target.format {
        TemplateFormat::Jinja2 => {
            // The engine reads `\r\n` and `\r` as `\n`; so must the layout.
            let body = prompty_jinja::normalize_newlines(body.to_owned());
            if may_capture(&body) {
                // Marks are likely: they go into the text before it compiles, so the
                // template is read on its own first and compiled once, with them.
                compile_jinja_apart(target, body)
            } else {
                compile_jinja_observed(target, body, tree)
            }
        }
        #[cfg(feature = "mustache")]
        TemplateFormat::Mustache => {
            let plain = target.engine(body.to_owned(), None)?;
            let Engine::Mustache(template) = &plain else { return Ok(unmarked(body, plain)) };
            let layout = layout::mustache(template, target.profile == Profile::Spec);
            let plan = plan(&layout.view, target.profile, false);
            if plan.places.is_empty() {
                return Ok(unmarked(body, plain));
            }
            let literal = literal_text(template);
            // Every mark is read as a variable and leaves the template's text as it was.
            let same = |engine: &Engine, n: usize| {
                engine.mark_count() == n && matches!(engine, Engine::Mustache(t) if literal_text(t) == literal)
            };
            let compiled = compile_with_places(target, None, Cow::Borrowed(body), &layout, &plan.places, &same, None)?;
            Ok(Compiled { checks: plan.checks, ..compiled })
        }
        #[cfg(feature = "handlebars")]
        TemplateFormat::Handlebars => {
            let mut engine = target.engine(body.to_owned(), None)?;
            let Some(template) = engine.handlebars_template() else { return Ok(unmarked(body, engine)) };
            let layout = layout::handlebars(template, target.profile == Profile::Spec);
            let plan = plan(&layout.view, target.profile, false);
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

/// [`compile`] of a Jinja body (line breaks normalized) in one reading of its tokens for
/// the engine, the layout and the nesting scan: the compile hands its parser's tokens over
/// as it reads them, and the nesting scan stops it at the first token past the limit.
fn compile_jinja_observed(
    target: &CompileTarget<'_>,
    body: String,
    mut tree: Option<&mut SyntaxTreeObserver<'_>>,
) -> Result<Compiled, Error> {
    let profile = target.profile;
    let mut depth = crate::nesting::JinjaDepth::new(target.limits.max_nesting);
    let mut reader = prompty_jinja::lexer::JinjaReader::new(&body);
    // The plain body's tree is the body's as written (line breaks normalized).
    let mut hand_tree = |root: &minijinja::machinery::ast::Stmt<'_>| {
        if let Some(tree) = tree.as_deref_mut() {
            tree(&body, root);
        }
    };
    let plain = Engine::jinja_observed(
        body.clone(),
        profile,
        target.limits,
        &mut |t, s| {
            depth.token(t, s);
            reader.token(t, s);
            !depth.is_deep()
        },
        Some(&mut hand_tree),
    );
    let (Some(plain), Ok(facts)) = (plain, depth.finish()) else {
        // Too deep, or not a template: the reading on its own, then the compile, say
        // where and why.
        return compile_jinja_apart(target, body);
    };
    let layout = layout::jinja_items(&body, reader.finish(), profile == Profile::Spec);
    jinja_with_layout(target, facts, Cow::Owned(body), &layout, Some(plain))
}

/// Whether a Jinja body may hold a block whose text becomes a value or that brings in
/// another template's text, where its layout asks for marks (see the module documentation):
/// a tag whose first word is `macro`, `call`, `filter`, `block`, `include`, `import`,
/// `from` or `extends`, `set` without `=`, or `for` with `recursive`. A guess from the text
/// (a comment or raw block can hold such a tag): it only chooses between two paths that
/// give the same result (`the_observed_compile_agrees_with_the_separate_reading`), the one
/// that compiles the plain body while reading it and the one that reads it first.
fn may_capture(body: &str) -> bool {
    memchr::memmem::find_iter(body.as_bytes(), b"{%").any(|at| {
        let rest = body.get(at + 2..).unwrap_or_default();
        let rest = rest.strip_prefix(['-', '+']).unwrap_or(rest).trim_start();
        let tag = rest.get(..rest.find("%}").unwrap_or(rest.len())).unwrap_or_default();
        let word = tag.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or_default();
        match word {
            "macro" | "call" | "filter" | "block" | "include" | "import" | "from" | "extends" => true,
            "set" => !tag.contains('='),
            "for" => tag.contains("recursive"),
            _ => false,
        }
    })
}

/// [`compile`] of a Jinja body (line breaks normalized) that reads the template on its own
/// before compiling it: the nesting bound before the parser recurses, and the compile's
/// error where there is one. The reference for the one-reading path above
/// (`the_observed_compile_agrees_with_the_separate_reading`).
fn compile_jinja_apart(target: &CompileTarget<'_>, body: String) -> Result<Compiled, Error> {
    let profile = target.profile;
    let mut depth = crate::nesting::JinjaDepth::new(target.limits.max_nesting);
    let items = prompty_jinja::lexer::jinja_lex_with(&body, profile == Profile::Promptflow, &mut |t, s| {
        depth.token(t, s);
    });
    let Ok(facts) = depth.finish() else {
        // Too deep: compiling the plain template reports it, located.
        return target.engine(body.clone(), None).map(|e| unmarked(&body, e));
    };
    let layout = layout::jinja_items(&body, items, profile == Profile::Spec);
    jinja_with_layout(target, facts, Cow::Owned(body), &layout, None)
}

/// A Jinja body compiled with the marks its layout's plan asks for; `plain` is the body
/// compiled as it is, when the caller has it (without the value-growth check, which
/// [`compile_with_places`] runs if it keeps that compile).
fn jinja_with_layout(
    target: &CompileTarget<'_>,
    facts: JinjaFacts,
    body: Cow<'_, str>,
    layout: &Layout,
    plain: Option<Engine>,
) -> Result<Compiled, Error> {
    let plan = plan(&layout.view, target.profile, layout.captures);
    let compiled = compile_with_places(target, Some(facts), body, layout, &plan.places, &|_, _| true, plain)?;
    Ok(Compiled { checks: plan.checks, ..compiled })
}

fn unmarked(body: impl Into<String>, engine: Engine) -> Compiled {
    Compiled { body: body.into(), engine, marks: 0, direct: Vec::new(), checks: Checks::default() }
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
    body: Cow<'_, str>,
    layout: &Layout,
    places: &[usize],
    works: &dyn Fn(&Engine, usize) -> bool,
    plain: Option<Engine>,
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
        let engine = match plain {
            // Compiled while read ([`Engine::jinja_observed`]), before the scan could say
            // whether its values need the growth check: it runs now. A marked body is
            // checked as it compiles below.
            Some(engine) => {
                if scanned.is_some_and(|f| f.keeps_values) {
                    crate::engine::check_growth(&body, target.profile, target.location)?;
                }
                engine
            }
            None => compile(body.to_string())?,
        };
        return Ok(Compiled { direct, ..unmarked(body, engine) });
    }
    let marked = insert(&body, &inserts);
    if let Ok(engine) = compile(marked.clone())
        && works(&engine, marks)
    {
        let direct = shifted(&direct, &inserts);
        return Ok(Compiled { body: marked, engine, marks, direct, checks: Checks::default() });
    }
    // The plain template's own error, located in the file, when it does not compile.
    if plain.is_none() {
        compile(body.into_owned())?;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-reading compile (the engine's parser hands its tokens to the layout and the
    /// nesting scan) against the template read on its own first: the same compiled body,
    /// marks, direct places and checks, or the same error, for every Jinja body of the
    /// prompt corpora and the security cases, the 3,000 templates of the Jinja2 differential
    /// suite, and generated templates built from the constructs the layout and the nesting
    /// scan tell apart, in both profiles, with the default nesting limit and a small one.
    #[test]
    fn the_observed_compile_agrees_with_the_separate_reading() {
        let mut bodies = corpus_bodies();
        let from_corpus = bodies.len();
        bodies.extend(generated(4_000, 0x0b5e_47ed));
        assert!(from_corpus > 3_000, "the corpora gave {from_corpus} bodies");
        let location = BodyLocation { file: None, span: 0..0 };
        let (mut compiled, mut refused) = (0usize, 0usize);
        for limits in [Limits::DEFAULT, Limits { max_nesting: 6, ..Limits::DEFAULT }] {
            for profile in [Profile::Spec, Profile::Promptflow] {
                let target =
                    CompileTarget { format: TemplateFormat::Jinja2, profile, limits: &limits, location: &location };
                for body in &bodies {
                    let normalized = prompty_jinja::normalize_newlines(body.clone());
                    let apart = compile_jinja_apart(&target, normalized.clone());
                    // The one reading, whichever path the guess would choose, and the
                    // compile as it runs.
                    for one in
                        [compile_jinja_observed(&target, normalized.clone(), None), compile(&target, body, true, None)]
                    {
                        match (&one, &apart) {
                            (Ok(a), Ok(b)) => {
                                compiled += 1;
                                assert_eq!(
                                    (&a.body, a.marks, &a.direct, &a.checks),
                                    (&b.body, b.marks, &b.direct, &b.checks),
                                    "{profile:?}, nesting {}: {body:?}",
                                    limits.max_nesting
                                );
                            }
                            (Err(a), Err(b)) => {
                                refused += 1;
                                assert_eq!(a, b, "{profile:?}, nesting {}: {body:?}", limits.max_nesting);
                            }
                            _ => panic!(
                                "{profile:?}, nesting {}: {body:?}: one reading {:?}, apart {:?}",
                                limits.max_nesting,
                                one.as_ref().map(|c| c.marks),
                                apart.as_ref().map(|c| c.marks)
                            ),
                        }
                    }
                }
            }
        }
        // Both kinds of outcome are exercised, the refusals by the nesting bound included.
        assert!(compiled > 20_000 && refused > 2_000, "{compiled} compiled, {refused} refused");
    }

    /// The fork's promise the one reading rests on: the compile hands over every token its
    /// parser reads, once each and in order, the same tokens minijinja's tokenizer gives for
    /// the source, and an observer that answers `false` stops the compile.
    #[test]
    fn the_compile_hands_over_the_tokenizers_tokens() {
        use minijinja::machinery::{Span, Token, tokenize};
        let source = "A {{ q | upper }}\n{% for x in xs %}{{ x.a[0] }}{% endfor %}{# c #}{% raw %}{{ r }}{% endraw %}B";
        let expected: Vec<(String, Span)> = tokenize(source, false, prompty_jinja::syntax(false))
            .map(|t| t.map(|(t, s)| (format!("{t:?}"), s)).expect("lexes"))
            .collect();
        let mut seen = Vec::new();
        let mut env = jinja_environment_for_tests();
        let mut tree = None;
        env.add_template_owned_observed(
            "t",
            source.to_owned(),
            &mut |t: &Token<'_>, s: Span| {
                seen.push((format!("{t:?}"), s));
                true
            },
            Some(&mut |root: &minijinja::machinery::ast::Stmt<'_>| tree = Some(format!("{root:?}"))),
        )
        .expect("compiles");
        assert_eq!(seen, expected);
        // And the syntax tree, once parsed: the parser's own.
        let parsed = minijinja::machinery::parse(source, "t", prompty_jinja::syntax(false)).expect("parses");
        assert_eq!(tree, Some(format!("{parsed:?}")));
        // Stopped at any token: the compile fails, and the observer is not called again.
        for k in 1..=expected.len() {
            let mut count = 0;
            let mut handed = false;
            let stopped = env.add_template_owned_observed(
                "u",
                source.to_owned(),
                &mut |_: &Token<'_>, _: Span| {
                    count += 1;
                    count < k
                },
                Some(&mut |_: &minijinja::machinery::ast::Stmt<'_>| handed = true),
            );
            assert!(stopped.is_err(), "stopped at token {k}");
            assert_eq!(count, k, "stopped at token {k}");
            assert!(!handed, "stopped at token {k}: no tree");
        }
    }

    /// The guess is right for the shapes it names, and wrong only towards reading first.
    #[test]
    fn capturing_blocks_are_guessed_from_the_tags() {
        for body in [
            "{% set v %}x{% endset %}",
            "{%- macro m() %}{% endmacro %}",
            "{% call m() %}{% endcall %}",
            "{% filter upper %}{% endfilter %}",
            "{% for x in xs recursive %}{% endfor %}",
            "{% include 'x' %}",
            "{# {% set v %} #}",
        ] {
            assert!(may_capture(body), "{body}");
        }
        for body in
            ["{% set v = 1 %}", "{% for x in xs %}{% endfor %}", "{% if settings %}{% endif %}", "macro {{ call }}"]
        {
            assert!(!may_capture(body), "{body}");
        }
    }

    fn jinja_environment_for_tests() -> minijinja::Environment<'static> {
        let mut env = prompty_jinja::environment();
        env.set_syntax(prompty_jinja::syntax(false));
        env
    }

    fn corpus_bodies() -> Vec<String> {
        let host = prompty_syntax::MapHost::new();
        let opts = prompty_syntax::LoadOptions::default();
        let mut files: Vec<String> = prompty_test_support::prompt_files()
            .iter()
            .map(|p| std::fs::read_to_string(p).expect("a prompt file"))
            .collect();
        let security = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/security");
        for entry in std::fs::read_dir(&security).expect("tests/security") {
            let path = entry.expect("an entry").path();
            if path.extension().is_none_or(|e| e != "txt") {
                continue;
            }
            let text = std::fs::read_to_string(path).expect("a case");
            // A case is a JSON header, then the `.prompty` file from its first `---` line.
            if let Some(k) = text.find("\n---\n") {
                files.push(text[k + 1..].to_owned());
            }
        }
        let mut bodies: Vec<String> = files
            .iter()
            .filter_map(|text| prompty_syntax::load_str(text, &host, &opts).prompt)
            .filter(|p| TemplateFormat::from_kind(&p.template.format.kind) == Some(TemplateFormat::Jinja2))
            .filter_map(|p| p.instructions)
            .collect();
        let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jinja_diff/golden.jsonl");
        for line in std::fs::read_to_string(golden).expect("golden.jsonl").lines() {
            let case: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            if let Some(t) = case.get("template").and_then(|t| t.as_str()) {
                bodies.push(t.to_owned());
            }
        }
        bodies
    }

    /// Templates put together from pieces that open and close blocks (capturing or not),
    /// role lines and labels, raw blocks, comments and whitespace control, deep brackets,
    /// templates brought in, line ends of every kind, and text that does not parse.
    fn generated(n: usize, seed: u64) -> Vec<String> {
        const PIECES: &[&str] = &[
            "system:\n",
            "user:\n",
            "assistant:\n",
            "# user:\n",
            "name: bob\n",
            "tool_call_id: 7\n",
            "Hello {{ q }}\n",
            "{{ q }}",
            "{{- q -}}",
            "{{ q | upper }}",
            "{% if q %}",
            "{% endif %}",
            "{%- if q -%}",
            "{% for x in xs %}",
            "{% for x in xs recursive %}",
            "{% endfor %}",
            "{{ loop(x) }}",
            "{% set v %}",
            "{% endset %}",
            "{% set w = 1 %}",
            "{% set n = namespace(a=1) %}",
            "{% macro m(a) %}",
            "{% endmacro %}",
            "{{ m(1) }}",
            "{% call m(2) %}",
            "{% endcall %}",
            "{% filter upper %}",
            "{% endfilter %}",
            "{% raw %}user:\n{{ x }}{% endraw %}",
            "{%- raw -%}\nsystem:\n{%- endraw -%}",
            "{# a comment #}",
            "{#-#}",
            "{#+#}",
            "{% include 'x' %}",
            "{{ ((((((((q)))))))) }}",
            "{{ not not not not not not not q }}",
            "{{ q.a.b.c.d.e.f.g }}",
            "{% if a %}{% if b %}{% if c %}{% if d %}",
            "{% endif %}{% endif %}{% endif %}{% endif %}",
            "{{ q ",
            "{% endfor %}{% endfor %}",
            "{% if %}",
            "}}",
            "{",
            "\r\n",
            "\r",
            "\n",
            "  ",
            "text ",
        ];
        let mut rng = prompty_test_support::Rng::new(seed);
        (0..n)
            .map(|_| {
                let len = 1 + rng.below(14);
                (0..len).map(|_| PIECES[rng.below(PIECES.len())]).collect()
            })
            .collect()
    }
}
