//! Where a compiled template's own text is: the runs of literal text it writes as written,
//! in output order, for each engine, and the *view* that mark placement reads.
//!
//! The view is the runs' text with one [`BOUNDARY`] character wherever something else may
//! render between two runs (a value, a tag, a block boundary, another loop iteration), and
//! at the start and end unless a run begins or ends the output. A line of the view that
//! holds no boundary is a line the template writes whole, whatever the values; a role line
//! next to a boundary is glued to whatever renders there. Runs are taken after the engine's
//! whitespace control, so a line break that `-` (Jinja), `~` (Handlebars), `trim_blocks` or a
//! standalone tag removes is not in the view.
//!
//! - Jinja: the template data between tags (minijinja's tokenizer, [`prompty_jinja::lexer::jinja_lex`]),
//!   trimmed as its tags' whitespace control trims it; comments render nothing between two
//!   runs. `{{% raw %}}` blocks are runs too where the profile reaches into them.
//! - Mustache: the template's literal text ([`prompty_mustache::Template::literals`]).
//! - Handlebars: the compiled template's raw strings, whitespace control and standalone
//!   lines already applied by the handlebars crate, in pre-order.
//!
//! Marks placed in Jinja and Mustache runs are written into the body as variables (with the
//! delimiters in effect there); in Handlebars they are spliced into the compiled template.
//! Jinja runs written straight to the output ([`Run::direct`]) need none.

#[cfg(feature = "handlebars")]
use handlebars::template::{Template as HbsTemplate, TemplateElement};

use prompty_jinja::lexer::{Block, JinjaItem};

/// Stands in the view for anything that is not the template's literal text. Never part of
/// a role line or label (it is not whitespace), so a role line next to one is not whole.
pub(crate) const BOUNDARY: char = '\0';

/// The runs of literal text of a template and the view over them.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    pub(crate) view: String,
    pub(crate) runs: Vec<Run>,
    /// The variable tag for each kind of place (Jinja and Mustache), indexed by [`Origin::Body`].
    pub(crate) tags: Vec<String>,
    /// Whether text of the template may be used as a value, which filters can rewrite (Jinja
    /// `set` blocks, macros, `call`, `filter` and `block` blocks, recursive loops).
    pub(crate) captures: bool,
}

/// One run of literal text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run {
    /// Where the run's text starts in the view.
    pub(crate) view_at: usize,
    pub(crate) origin: Origin,
    /// Jinja: whether the run is written straight to the render's output (outside any
    /// block whose text becomes a value), where the writer can tell the template's own text
    /// by where it points ([`crate::limits::Direct`]) and the run needs no marks.
    pub(crate) direct: bool,
}

/// Where a run is in the template.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Origin {
    /// Jinja or Mustache: the run's byte offset in the body, and the index of the tag (in
    /// [`Layout::tags`]) that writes the mark there.
    Body { at: usize, tag: usize },
    /// Handlebars: the index of the run's raw string among the template's raw strings, in
    /// pre-order.
    #[cfg_attr(not(feature = "handlebars"), allow(dead_code, reason = "built only by the Handlebars layout"))]
    Element(usize),
}

impl Layout {
    /// Appends a run; `follows` says that nothing renders between it and the previous run
    /// (or, for the first run, before it).
    fn push(&mut self, text: &str, follows: bool, origin: Origin, direct: bool) {
        if !follows {
            self.view.push(BOUNDARY);
        }
        self.runs.push(Run { view_at: self.view.len(), origin, direct });
        self.view.push_str(text);
    }

    /// Closes the view: a boundary after the last run unless it ends the output.
    fn finish(&mut self, ends_output: bool) {
        if !ends_output {
            self.view.push(BOUNDARY);
        }
    }

    /// The run holding view offset `p` (a character of a run, never a boundary), and the
    /// offset of `p` inside it.
    pub(crate) fn locate(&self, p: usize) -> Option<(&Run, usize)> {
        let i = self.runs.partition_point(|r| r.view_at <= p).checked_sub(1)?;
        let run = self.runs.get(i)?;
        Some((run, p - run.view_at))
    }

    fn tag(&mut self, text: String) -> usize {
        match self.tags.iter().position(|t| *t == text) {
            Some(i) => i,
            None => {
                self.tags.push(text);
                self.tags.len() - 1
            }
        }
    }
}

/// The layout of a Jinja body. With `raw`, the text of `{% raw %}` blocks is a run (a mark
/// there closes the block, writes the variable and opens it again); without, a raw block is
/// text the template writes without marks.
///
/// `each` sees every token of the template as it is read. The renderer builds layouts with
/// [`jinja_items`] from the tokens its compile reads; this reads them itself (tests).
#[cfg(test)]
pub(crate) fn jinja<'s>(
    body: &'s str,
    trim_blocks: bool,
    raw: bool,
    each: &mut dyn FnMut(&minijinja::machinery::Token<'s>, minijinja::machinery::Span),
) -> Layout {
    jinja_items(body, prompty_jinja::lexer::jinja_lex_with(body, trim_blocks, each), raw)
}

/// [`jinja`] from the body's pieces as [`prompty_jinja::lexer::JinjaReader`] read them.
pub(crate) fn jinja_items(body: &str, items: Vec<JinjaItem>, raw: bool) -> Layout {
    // The view is at most the body's text and a boundary between pieces.
    let mut layout = Layout {
        view: String::with_capacity(body.len() + items.len() + 1),
        runs: Vec::with_capacity(items.len()),
        ..Layout::default()
    };
    let plain = layout.tag(format!("{{{{ {} }}}}", crate::mark::MARK_VAR));
    let spliced = layout.tag(format!("{{% endraw %}}{{{{ {} }}}}{{% raw %}}", crate::mark::MARK_VAR));
    let mut follows = true;
    let mut last_ends = false;
    // The open blocks, and how many of them capture their text.
    let mut open: Vec<(&str, bool)> = Vec::new();
    let mut capturing = 0usize;
    let mut confused = false;
    for item in items {
        let direct = capturing == 0;
        last_ends = false;
        match item {
            JinjaItem::Data(d) => {
                let text = body.get(d.range.clone()).unwrap_or("");
                layout.push(text, follows, Origin::Body { at: d.range.start, tag: plain }, direct);
                follows = true;
                last_ends = d.range.end == body.len();
            }
            JinjaItem::TrimmedEnd => last_ends = true,
            JinjaItem::Raw(kept, ends) if raw => {
                let text = body.get(kept.clone()).unwrap_or("");
                if !text.is_empty() {
                    layout.push(text, follows, Origin::Body { at: kept.start, tag: spliced }, direct);
                    follows = true;
                }
                // A raw block that closes the template ends the output.
                last_ends = ends;
            }
            JinjaItem::Tag(block) => {
                match block {
                    Block::Open { kind, captures } => {
                        open.push((kind, captures));
                        capturing += usize::from(captures);
                        layout.captures |= captures;
                    }
                    Block::Close(kind) => match open.pop() {
                        Some((k, captures)) if k == kind => capturing -= usize::from(captures),
                        _ => confused = true,
                    },
                    Block::Foreign => confused = true,
                    Block::None => {}
                }
                follows = false;
            }
            JinjaItem::Raw(..) => follows = false,
        }
    }
    layout.finish(last_ends);
    // A block structure read wrong (the engine's own parser accepted it), or a template's
    // text brought in by a tag: every run gets marks, as if it were captured.
    if confused {
        layout.runs.iter_mut().for_each(|r| r.direct = false);
    }
    layout
}

/// The layout of a Mustache template. With `any_delimiters`, text after a set-delimiter
/// tag is a run (its mark written with the delimiters in effect there); without, only text
/// under the default delimiters is.
#[cfg(feature = "mustache")]
pub(crate) fn mustache(template: &prompty_mustache::Template, any_delimiters: bool) -> Layout {
    let mut layout = Layout::default();
    let source = template.source();
    let literals = template.literals();
    let mut follows = true;
    for l in &literals {
        // A literal that follows its previous sibling follows the previous literal in source
        // order, which is that sibling.
        let joined = l.follows_previous;
        let (open, close) = l.delimiters;
        if !any_delimiters && (open, close) != ("{{", "}}") {
            follows = false;
            continue;
        }
        let text = source.get(l.span.clone()).unwrap_or("");
        let tag = layout.tag(format!("{open}{}{close}", crate::mark::MARK_VAR));
        layout.push(text, follows && joined, Origin::Body { at: l.span.start, tag }, false);
        follows = true;
    }
    let ends = literals.last().is_some_and(|l| l.span.end == source.len());
    layout.finish(ends && follows);
    layout
}

/// The layout of a compiled Handlebars template. With `raw`, the text of raw blocks
/// (`{{{{raw}}}}...{{{{/raw}}}}`, and `{{#raw}}` blocks) is a run; without, it is text the
/// template writes without marks.
#[cfg(feature = "handlebars")]
pub(crate) fn handlebars(template: &HbsTemplate, raw: bool) -> Layout {
    let mut layout = Layout::default();
    let mut walk = HbsWalk { layout: &mut layout, raw, index: 0, follows: true };
    walk.template(template);
    let ends = matches!(template.elements.last(), Some(TemplateElement::RawString(s)) if !s.is_empty());
    let follows = walk.follows;
    layout.finish(ends && follows);
    layout
}

#[cfg(feature = "handlebars")]
struct HbsWalk<'l> {
    layout: &'l mut Layout,
    raw: bool,
    /// Raw strings seen so far (the next one's index).
    index: usize,
    follows: bool,
}

#[cfg(feature = "handlebars")]
impl HbsWalk<'_> {
    fn template(&mut self, t: &HbsTemplate) {
        use TemplateElement as E;
        for e in &t.elements {
            match e {
                E::RawString(s) => {
                    let index = self.index;
                    self.index += 1;
                    if !s.is_empty() {
                        self.layout.push(s, self.follows, Origin::Element(index), false);
                        self.follows = true;
                    }
                }
                // Renders nothing.
                E::Comment(_) => {}
                E::Expression(h) if crate::handlebars::is_step(h) => {}
                E::HelperBlock(h) => {
                    self.follows = false;
                    let opaque = !self.raw && crate::handlebars::is_raw(h);
                    for body in [&h.template, &h.inverse].into_iter().flatten() {
                        if opaque {
                            self.skip(body);
                        } else {
                            self.template(body);
                        }
                        self.follows = false;
                    }
                }
                E::DecoratorBlock(d) | E::PartialBlock(d) => {
                    self.follows = false;
                    if let Some(body) = &d.template {
                        self.template(body);
                    }
                    self.follows = false;
                }
                _ => self.follows = false,
            }
        }
    }

    /// Counts the raw strings of a body that gets no marks.
    fn skip(&mut self, t: &HbsTemplate) {
        self.index += crate::handlebars::raw_strings(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(layout: &Layout) -> String {
        layout.view.replace(BOUNDARY, "|")
    }

    #[test]
    fn jinja_view_follows_whitespace_control() {
        let body = "A\n{% if x %}\nuser:\n{{ q -}}\n  B{# c #}C\n{% raw %}R{% endraw %}\nD";
        // The spec profile: no trim_blocks, raw blocks reached into.
        assert_eq!(shown(&jinja(body, false, true, &mut |_, _| {})), "A\n|\nuser:\n|BC\nR\nD");
        // The promptflow profile: trim_blocks, raw blocks left alone.
        assert_eq!(shown(&jinja(body, true, false, &mut |_, _| {})), "A\n|user:\n|BC\n|D");
        assert_eq!(shown(&jinja("{# c #}user:\n{{ q }}", true, false, &mut |_, _| {})), "user:\n|");
    }

    #[cfg(feature = "mustache")]
    #[test]
    fn mustache_view_skips_standalone_lines_and_comments() {
        let t = prompty_mustache::Template::compile("A\n{{#items}}\nuser:\n{{.}}{{/items}}\nB{{! c }}C\n{{=<% %>=}}D")
            .expect("compiles");
        assert_eq!(shown(&mustache(&t, false)), "A\n|user:\n|\nBC\n|");
        let all = mustache(&t, true);
        assert_eq!(shown(&all), "A\n|user:\n|\nBC\nD");
        assert_eq!(all.tags, ["{{__prompty_mark}}", "<%__prompty_mark%>"]);
    }

    #[test]
    fn runs_in_capturing_blocks_are_not_direct() {
        let directs = |body: &str| -> Vec<(String, bool)> {
            let layout = jinja(body, true, false, &mut |_, _| {});
            layout
                .runs
                .iter()
                .map(|r| {
                    let end = layout.view[r.view_at..].find(BOUNDARY).map_or(layout.view.len(), |k| r.view_at + k);
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
