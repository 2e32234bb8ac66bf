//! Provenance marks: which role lines and `name:`/`tool_call_id:`/`content:` labels of the
//! rendered text the template wrote. Used by the promptflow profile (role lines and labels)
//! and by the spec profile in strict mode (role lines).
//!
//! Before compiling, the template's own text is laid out ([`crate::layout`]): the runs of
//! literal text it writes as written. Every role line written whole by one run, and every
//! label in a run, gets a variable placed right before its word; so do the role line's start
//! and the line breaks that end it and the line before it. At render time that variable
//! holds a fresh random mark, so the rendered text carries the mark exactly where the
//! template's own text put a role word, a label or a line break, however often a loop
//! repeats it. The marks are taken out of the text as it is written (Jinja, Handlebars) or
//! right after (Mustache), giving the text the reference would have rendered, byte for byte,
//! and their places are kept for the split: a role line or label without a mark came from an
//! input value, and a role line whose line breaks are not the template's was made one by a
//! value; both are refused.
//!
//! In Jinja, a place in text the render writes straight to its output (outside any block
//! whose output becomes a value) gets no mark: it is a *direct* place, recorded by the
//! writer when the fork tells it a write is the template's own text and from where
//! ([`crate::limits::Direct`], `Template::source_offset`), the same place a mark would have
//! given. Only places in capturing blocks (macros, `call`, `filter`, `set` and `block`
//! bodies, recursive loops; [`prompty_jinja::lexer`]) get marks; a template brought in by `include`, `import`, `from` or
//! `extends`, or a block structure that does not add up, gives every place a mark.
//!
//! Where whitespace control glues a role line to something else (its run starts with it),
//! what renders before it decides whether it starts a line: then every line break of the
//! template carries a mark, and the role line must start right after one. A role line whose
//! own line break whitespace control removes is left unmarked: it is refused whenever it
//! splits, since only a value can complete it.
//!
//! Text the profile does not mark (a Jinja `{% raw %}` block, Mustache text after a
//! set-delimiter tag or a Handlebars raw block in the promptflow profile; text printed by an
//! expression) holds no marks, so a role line there is refused when it renders, rather than
//! rendered differently.

use std::collections::HashSet;

use prompty_syntax::{Profile, TemplateFormat};

use crate::context::Context;
use crate::engine::{BodyLocation, Engine};
use crate::error::{Error, ErrorKind};
use crate::layout::{self, BOUNDARY, Layout, Origin};
use crate::limits::Limits;
use crate::roles::skip_space;
use prompty_py::py_space;

/// The labels of promptflow's `name:`/`tool_call_id:` and `content:` sub-syntax, and of an
/// assistant message's `tool_calls:`.
const LABELS: &[&str] = &["name", "tool_call_id", "tool_calls", "content"];

/// The template compiled for prepare, with its marks.
pub(crate) struct Marked {
    /// The body as compiled (the template's own for Handlebars, whose marks are spliced
    /// into the compiled template).
    pub(crate) body: String,
    pub(crate) engine: Engine,
    /// How many marks the template holds (0: the engine renders the plain template).
    pub(crate) marks: usize,
    /// Jinja: the places of the compiled body's own text that get no mark, since the render
    /// writes them straight to its output (byte offsets in [`Marked::body`], ascending; see
    /// [`crate::limits::Direct`]).
    pub(crate) direct: Vec<usize>,
    /// Whether role-line starts and line breaks carry marks (see [`plan`]).
    pub(crate) lines: bool,
    /// The template's own role lines (see [`plan`]).
    pub(crate) shapes: Shapes,
}

/// Compiles `body` with a mark before each role word, label and line break of the
/// template's own text that `profile` checks (in Jinja, those in capturing blocks; the rest
/// are direct places).
pub(crate) fn compile_marked(
    format: TemplateFormat,
    body: &str,
    profile: Profile,
    limits: &Limits,
    loc: &BodyLocation,
) -> Result<Marked, Error> {
    let spec = profile == Profile::Spec;
    let how = How { format, profile, limits, loc, scanned: None };
    match format {
        TemplateFormat::Jinja2 => {
            // The engine reads `\r\n` and `\r` as `\n`; so must the layout.
            let body = prompty_jinja::normalize_newlines(body.to_owned());
            // One reading of the template's tokens for the layout and the nesting scan.
            let mut depth = crate::nesting::JinjaDepth::new(limits.max_nesting);
            let layout = layout::jinja(&body, profile == Profile::Promptflow, spec, &mut |t, s| depth.token(t, s));
            let Ok(facts) = depth.finish() else {
                // Too deep: compiling the plain template reports it, located.
                return Engine::compile(format, body.clone(), profile, limits, loc).map(|e| unmarked(&body, e));
            };
            let how = How { scanned: Some(facts), ..how };
            let (places, lines, shapes) = plan(&layout.view, profile, layout.captures);
            compile_with_places(&how, &body, &layout, &places, &|_, _| true).map(|m| Marked { lines, shapes, ..m })
        }
        #[cfg(feature = "mustache")]
        TemplateFormat::Mustache => {
            let plain = Engine::compile(format, body.to_owned(), profile, limits, loc)?;
            let Engine::Mustache(template) = &plain else { return Ok(unmarked(body, plain)) };
            let layout = layout::mustache(template, spec);
            let (places, lines, shapes) = plan(&layout.view, profile, false);
            if places.is_empty() {
                return Ok(unmarked(body, plain));
            }
            let literal = literal_text(template);
            // Every mark is read as a variable and leaves the template's text as it was.
            let same = |engine: &Engine, n: usize| {
                engine.mark_count() == n && matches!(engine, Engine::Mustache(t) if literal_text(t) == literal)
            };
            compile_with_places(&how, body, &layout, &places, &same).map(|m| Marked { lines, shapes, ..m })
        }
        #[cfg(feature = "handlebars")]
        TemplateFormat::Handlebars => {
            let mut engine = Engine::compile(format, body.to_owned(), profile, limits, loc)?;
            let Some(template) = engine.handlebars_template() else { return Ok(unmarked(body, engine)) };
            let layout = layout::handlebars(template, spec);
            let (places, lines, shapes) = plan(&layout.view, profile, false);
            let places: Vec<(usize, usize)> = places
                .into_iter()
                .filter_map(|p| match layout.locate(p)? {
                    (layout::Run { origin: Origin::Element(k), .. }, offset) => Some((*k, offset)),
                    _ => None,
                })
                .collect();
            engine.splice_marks(&places);
            Ok(Marked { body: body.to_owned(), engine, marks: places.len(), direct: Vec::new(), lines, shapes })
        }
        // An engine left out of the build: compiling reports it.
        #[allow(unreachable_patterns, reason = "reached when an engine is left out of the build")]
        _ => Engine::compile(format, body.to_owned(), profile, limits, loc).map(|engine| unmarked(body, engine)),
    }
}

/// How to compile a template.
struct How<'a> {
    format: TemplateFormat,
    profile: Profile,
    limits: &'a Limits,
    loc: &'a BodyLocation,
    /// Jinja: the nesting scan of the plain template, made while it was laid out. The
    /// marked template is not scanned again: a mark is an expression one level inside the
    /// text it stands in, and the plain template is within the limit.
    scanned: Option<crate::nesting::JinjaFacts>,
}

fn unmarked(body: &str, engine: Engine) -> Marked {
    Marked { body: body.to_owned(), engine, marks: 0, direct: Vec::new(), lines: false, shapes: Shapes::default() }
}

/// A Mustache template's literal text, all runs joined.
#[cfg(feature = "mustache")]
fn literal_text(t: &prompty_mustache::Template) -> String {
    t.literals().iter().filter_map(|l| t.source().get(l.span.clone())).collect()
}

/// Writes the mark's variable into `body` at the view offsets `places` and compiles it;
/// a place in a run written straight to the output gets no mark and is kept as a byte
/// offset of the compiled body ([`Marked::direct`]).
/// `works` confirms a compiled template (given the number of marks): a marked body that
/// does not compile, or that `works` refuses, is an error (the template's own, when the
/// plain body does not compile either).
fn compile_with_places(
    how: &How<'_>,
    body: &str,
    layout: &Layout,
    places: &[usize],
    works: &dyn Fn(&Engine, usize) -> bool,
) -> Result<Marked, Error> {
    let compile =
        |text: String| Engine::compile_scanned(how.format, text, how.profile, how.limits, how.loc, how.scanned);
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
                    if how.format != TemplateFormat::Jinja2 {
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
        return Ok(Marked { direct, ..unmarked(body, compile(body.to_owned())?) });
    }
    let marked = insert(body, &inserts);
    if let Ok(engine) = compile(marked.clone())
        && works(&engine, marks)
    {
        let direct = shifted(&direct, &inserts);
        return Ok(Marked { body: marked, engine, marks, direct, lines: false, shapes: Shapes::default() });
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

/// The places of a layout's view that the split checks (offsets, ascending): each gets a mark,
/// or in Jinja is a direct place; and whether the role lines' starts and line breaks are
/// among them (then the split checks them too).
///
/// Always: the role word of every role line of `profile` that a line of the view holds
/// whole (after any boundaries it starts with) and every label's word (promptflow). Where a
/// role line starts right after a boundary, or the template's text may pass through a filter
/// (`captures`: a Jinja block used as a value), also each role line's start and the line
/// breaks that end it and the line before it, and the line break after each `name:` and
/// `tool_call_id:` label; after a boundary, every line break of the view.
pub(crate) fn plan(view: &str, profile: Profile, captures: bool) -> (Vec<usize>, bool, Shapes) {
    let mut words = Vec::new();
    let mut lines = Vec::new();
    let mut glued = false;
    let mut shapes = Shapes::default();
    for_each_mark_line(view, profile, |line| match line.role {
        Some(word) => {
            words.push(word);
            let end = line.newline_after.unwrap_or(view.len());
            if shapes.add(profile, view.get(word..end).unwrap_or_default()) {
                // A value inside the attributes: the line break that ends the role line must
                // be the template's, so that no value ends it early.
                words.extend(line.newline_after);
            }
            lines.push(line.start);
            lines.extend(line.newline_after);
            if line.after_boundary {
                glued = true;
            } else if let Some(before) = line.start.checked_sub(1) {
                lines.push(before);
            }
        }
        None => {
            for label in line.labels {
                words.push(label.word);
                lines.extend(label.newline);
            }
        }
    });
    let full = glued || (captures && !lines.is_empty());
    if full {
        words.extend(lines);
    }
    if glued {
        words.extend(memchr::memchr_iter(b'\n', view.as_bytes()));
    }
    words.sort_unstable();
    words.dedup();
    (words, full, shapes)
}

/// Where the template's own role words, labels, role-line starts and line breaks are in
/// the rendered text (the places of marks and direct places, ascending; see the top of this
/// module), and the inputs to blame for any other. Both splits read it: the spec profile's
/// in strict mode, the promptflow profile's always.
pub(crate) struct Provenance<'a> {
    pub(crate) marks: &'a [usize],
    pub(crate) inputs: &'a Context<'a>,
    /// Whether role-line starts and line breaks carry marks too: then each role line's start
    /// and the line breaks around it, and (promptflow) the line break after a
    /// `name:`/`tool_call_id:` label, must be the template's.
    pub(crate) lines: bool,
    /// The template's own role lines: a role line at a mark must be one of them.
    pub(crate) shapes: &'a Shapes,
}

impl Provenance<'_> {
    /// Whether a mark or direct place is at `at`.
    #[inline]
    pub(crate) fn marked(&self, at: usize) -> bool {
        self.marks.binary_search(&at).is_ok()
    }
}

/// The template's own role lines, which a role line the split finds at a mark must be one
/// of: a mark proves only where the template's role line stood, and a filter working on
/// the template's text (`replace`) may have rewritten its role word or attributes.
#[derive(Debug, Default, Clone)]
pub(crate) struct Shapes {
    /// The role lines the template writes whole, from the role word (lowercased) to the
    /// line's end (trailing blanks dropped); in the promptflow profile, the role words.
    whole: HashSet<String>,
    /// The role lines with values inside their attributes: the role and the keys the
    /// template writes.
    open: HashSet<(&'static str, Vec<String>)>,
}

/// How a rendered role line fits the template's role lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    /// As the template writes one, byte for byte.
    Whole,
    /// A role line with values inside its attributes: the template's role, and only keys
    /// the template writes there, each at most once.
    Open,
    /// Not a role line of the template.
    None,
}

impl Shapes {
    /// Adds the role line `line` of the view (from its role word to its end); whether a
    /// value renders inside its attributes.
    fn add(&mut self, profile: Profile, line: &str) -> bool {
        if profile == Profile::Promptflow {
            if let Some(word) = crate::roles::promptflow_role_prefix(line.as_bytes()) {
                self.whole.insert(word.to_owned());
            }
            return false;
        }
        let Some(role) = crate::roles::role_line(line) else { return false };
        match role.attrs {
            Some(attrs) if attrs.contains(BOUNDARY) => {
                let keys = crate::roles::attr_keys(attrs).into_iter().map(str::to_owned).collect();
                self.open.insert((role.role, keys));
                true
            }
            _ => {
                self.whole.insert(whole_key(role.role, line));
                false
            }
        }
    }

    /// How the rendered role line `line` (from its role word) fits (spec profile).
    pub(crate) fn fit(&self, line: &str) -> Fit {
        let Some(role) = crate::roles::role_line(line) else { return Fit::None };
        if self.whole.contains(&whole_key(role.role, line)) {
            return Fit::Whole;
        }
        let Some(attrs) = role.attrs else { return Fit::None };
        let keys = crate::roles::attr_keys(attrs);
        let fits = self.open.iter().any(|(r, own)| {
            *r == role.role && keys.len() <= own.len() && keys.iter().all(|k| own.iter().any(|o| o == k))
        });
        if fits { Fit::Open } else { Fit::None }
    }

    /// Whether the template writes a role line with the role word `word` (promptflow
    /// profile; any case).
    pub(crate) fn has_role(&self, word: &str) -> bool {
        self.whole.contains(&word.to_ascii_lowercase())
    }
}

/// A role line from its role word (`role`, in any case) as [`Shapes::whole`] holds it.
fn whole_key(role: &str, line: &str) -> String {
    let rest = line.get(role.len()..).unwrap_or_default().trim_end_matches([' ', '\t', '\r', '\n']);
    format!("{role}{rest}")
}

/// The role words and labels of `text` read as one run (offsets of their words, ascending),
/// and the role words alone.
#[cfg(test)]
fn candidates(text: &str) -> (Vec<usize>, Vec<usize>) {
    let mut words = Vec::new();
    let mut roles = Vec::new();
    for_each_mark_line(text, Profile::Promptflow, |line| match line.role {
        Some(word) => {
            words.push(word);
            roles.push(word);
        }
        None => words.extend(line.labels.iter().map(|l| l.word)),
    });
    (words, roles)
}

/// A line of the view that holds a role line or labels.
struct MarkLine {
    /// Where the line's text starts (after the boundaries it starts with).
    start: usize,
    /// Whether the line starts with a boundary.
    after_boundary: bool,
    /// The line break that ends the line.
    newline_after: Option<usize>,
    /// The role word, when the line is a role line.
    role: Option<usize>,
    labels: Vec<Label>,
}

struct Label {
    word: usize,
    /// The line break after a `name:` or `tool_call_id:` label.
    newline: Option<usize>,
}

/// Calls `f` for every line of `view` with a colon that is a role line of `profile` or
/// holds labels (promptflow).
fn for_each_mark_line(view: &str, profile: Profile, mut f: impl FnMut(MarkLine)) {
    let bytes = view.as_bytes();
    let mut line_start = 0;
    // Only lines with a colon can hold a role line or a label.
    for colon in memchr::memchr_iter(b':', bytes) {
        if colon < line_start {
            continue;
        }
        line_start = memchr::memrchr(b'\n', bytes.get(..colon).unwrap_or_default()).map_or(0, |i| i + 1);
        let newline_after = memchr::memchr(b'\n', bytes.get(colon..).unwrap_or_default()).map(|i| colon + i);
        let line_end = newline_after.unwrap_or(view.len());
        let line = view.get(line_start..line_end).unwrap_or("");
        let rest = line.trim_start_matches(BOUNDARY);
        let start = line_end - rest.len();
        let role = crate::roles::role_word_in_line(profile, rest);
        let mut labels = Vec::new();
        if role.is_none() && profile == Profile::Promptflow {
            // The whole line: a label right after a boundary is glued to what renders there.
            label_places(line, line_start, newline_after, &mut labels);
        }
        if role.is_some() || !labels.is_empty() {
            f(MarkLine {
                start,
                after_boundary: start > line_start,
                newline_after,
                role: role.map(|w| start + w),
                labels,
            });
        }
        line_start = line_end + 1;
    }
}

/// The labels in `line` (which starts at `line_start`): every `content` followed by `\s*:`
/// (promptflow searches it anywhere in a message) that does not follow a boundary, and every
/// `name` or `tool_call_id` followed by `\s*:` and the end of its line.
fn label_places(line: &str, line_start: usize, newline: Option<usize>, out: &mut Vec<Label>) {
    let mut from = 0;
    while let Some(k) = line.get(from..).and_then(|s| s.find(':')) {
        let colon = from + k;
        let before = line.get(..colon).unwrap_or("").trim_end_matches(py_space);
        let at_end = skip_space(line, colon + 1) == line.len();
        for label in LABELS {
            if !before.ends_with(label) {
                continue;
            }
            let word = line_start + before.len() - label.len();
            if *label == "content" {
                // Right after a boundary (`{{ q }}content:`, `{{ q }} ## content:`), what
                // renders before it decides whether the label is one: left unmarked.
                let pre = before.get(..before.len() - label.len()).unwrap_or("");
                let glued = pre.trim_end_matches(|c| c == '#' || py_space(c)).ends_with(BOUNDARY);
                if !glued {
                    out.push(Label { word, newline: None });
                }
            } else if at_end && newline.is_some() {
                out.push(Label { word, newline });
            }
        }
        from = colon + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_go_before_role_words_and_labels() {
        let body = "# System :\nhi\n  user:  \nuser: hi\nfunction:\nname:\nf\ncontent: x\nYour username:\nsystem";
        let places: Vec<&str> = candidates(body).0.iter().map(|&p| body.get(p..p + 4).unwrap_or("")).collect();
        assert_eq!(places, ["Syst", "user", "func", "name", "cont", "name"]);
    }

    #[test]
    fn runs_in_capturing_blocks_are_not_direct() {
        let directs = |body: &str| -> Vec<(String, bool)> {
            let layout = crate::layout::jinja(body, true, false, &mut |_, _| {});
            layout
                .runs
                .iter()
                .map(|r| {
                    let end = layout.view[r.view_at..]
                        .find(crate::layout::BOUNDARY)
                        .map_or(layout.view.len(), |k| r.view_at + k);
                    (layout.view[r.view_at..end].to_owned(), r.direct)
                })
                .collect()
        };
        let body = "A{% for x in xs %}B{% if x %}C{% endif %}{% endfor %}\
                    {% macro m() %}D{% for y in ys recursive %}E{% endfor %}{% endmacro %}\
                    {% set v %}F{% endset %}{% set w = 1 %}G{% filter upper %}H{% endfilter %}\
                    {% call m() %}I{% endcall %}{% for z in zs recursive %}J{% if z %}K{% endif %}{% endfor %}L";
        let expected = [
            ("A", true),
            ("B", true),
            ("C", true),
            ("D", false),
            ("E", false),
            ("F", false),
            ("G", true),
            ("H", false),
            ("I", false),
            ("J", false),
            ("K", false),
            ("L", true),
        ];
        let expected: Vec<(String, bool)> = expected.iter().map(|(t, d)| ((*t).to_owned(), *d)).collect();
        assert_eq!(directs(body), expected);
        // A block structure that does not add up (an `endset` with no `set` block open):
        // every run gets marks.
        let confused = directs("A{% set x = 1 %}B{% endset %}C");
        assert!(confused.iter().all(|(_, d)| !d), "{confused:?}");
    }
}
