//! Which places of a template's own text the split checks, and what it checks a render
//! against: the first step of the injection defence, after the layout
//! ([`crate::layout`]) and before the marked compile ([`crate::compile`]).
//!
//! The template's own text is read as the layout's *view*: the runs of literal text it
//! writes, as written, with a boundary where anything else renders. [`plan`] finds in it every
//! role line of the profile written whole by one run and, in the promptflow profile, every
//! `name:`/`tool_call_id:`/`content:` label, and chooses the places that prove them the
//! template's: the role word or label, and where whitespace control or a capturing block
//! makes it matter, the role line's start and the line breaks around it. At render time
//! those places come back as offsets in the rendered text ([`TemplatePlaces`]): a role line
//! or label at no such place came from an input value, and a role line whose line breaks are
//! not the template's was made one by a value; the split refuses both.
//!
//! Where whitespace control glues a role line to something else (its run starts with it),
//! what renders before it decides whether it starts a line: then every line break of the
//! template is a place, and the role line must start right after one. A role line whose
//! own line break whitespace control removes is left out: it is refused whenever it
//! splits, since only a value can complete it.

use std::collections::HashSet;

use prompty_py::py_space;
use prompty_syntax::Profile;

use crate::context::Context;
use crate::layout::BOUNDARY;
use crate::roles::skip_space;

/// The labels of promptflow's `name:`/`tool_call_id:` and `content:` sub-syntax, and of an
/// assistant message's `tool_calls:`.
const LABELS: &[&str] = &["name", "tool_call_id", "tool_calls", "content"];

/// What [`plan`] chose in a layout's view.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// The places to check (offsets in the view, ascending): role words and labels, and
    /// when [`Checks::lines`], role-line starts and line breaks.
    pub(crate) places: Vec<usize>,
    pub(crate) checks: Checks,
}

/// What the split checks a render's places against, fixed when the template compiles.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Checks {
    /// Whether role-line starts and line breaks are among the places: then each role line's
    /// start and the line breaks around it, and (promptflow) the line break after a
    /// `name:`/`tool_call_id:` label, must be the template's.
    pub(crate) lines: bool,
    /// The template's own role lines: a role line at a place must be one of them.
    pub(crate) shapes: Shapes,
}

/// The places of a layout's view that the split checks (offsets, ascending): each gets a mark,
/// or in Jinja is a direct place; whether the role lines' starts and line breaks are among
/// them (then the split checks them too); and the template's own role lines.
///
/// Always: the role word of every role line of `profile` that a line of the view holds
/// whole (after any boundaries it starts with) and every label's word (promptflow). Where a
/// role line starts right after a boundary, or the template's text may pass through a filter
/// (`captures`: a Jinja block used as a value), also each role line's start and the line
/// breaks that end it and the line before it, and the line break after each `name:` and
/// `tool_call_id:` label; after a boundary, every line break of the view.
pub(crate) fn plan(view: &str, profile: Profile, captures: bool) -> Plan {
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
    shapes.seal();
    let full = glued || (captures && !lines.is_empty());
    if full {
        words.extend(lines);
    }
    if glued {
        words.extend(memchr::memchr_iter(b'\n', view.as_bytes()));
    }
    words.sort_unstable();
    words.dedup();
    Plan { places: words, checks: Checks { lines: full, shapes } }
}

/// Where the template's own role words, labels, role-line starts and line breaks are in
/// one render's text, what they are checked against, and the inputs to blame for a role
/// line that is not at one. Both splits read it: the spec profile's in strict mode, the
/// promptflow profile's always.
pub(crate) struct TemplatePlaces<'a> {
    /// Offsets in the rendered text, ascending: where the render wrote a mark or the
    /// template's own text at a direct place.
    at: Vec<usize>,
    checks: &'a Checks,
    /// The render's inputs, which an error names when one of them holds the text refused.
    pub(crate) inputs: &'a Context<'a>,
}

impl<'a> TemplatePlaces<'a> {
    /// The places `at` (ascending, as the render records them) of a template with `checks`.
    pub(crate) fn new(at: Vec<usize>, checks: &'a Checks, inputs: &'a Context<'a>) -> Self {
        debug_assert!(at.is_sorted(), "a render records its places in order");
        Self { at, checks, inputs }
    }

    /// Whether the template's own text put a role word, label, role-line start or line
    /// break at `at`.
    #[inline]
    pub(crate) fn own(&self, at: usize) -> bool {
        self.at.binary_search(&at).is_ok()
    }

    /// Whether the line break (or line start) at `at` passes: the template's own, or line
    /// breaks are not checked for this template. `None` (the text's start or end) passes.
    #[inline]
    pub(crate) fn own_line_break(&self, at: Option<usize>) -> bool {
        !self.checks.lines || at.is_none_or(|n| self.own(n))
    }

    /// Whether line breaks are checked for this template (see [`Checks::lines`]).
    #[inline]
    pub(crate) fn checks_lines(&self) -> bool {
        self.checks.lines
    }

    /// The template's own role lines.
    #[inline]
    pub(crate) fn shapes(&self) -> &Shapes {
        &self.checks.shapes
    }

    /// The places from the `from`-th on (for a scan that moves forward through the text).
    #[inline]
    pub(crate) fn tail(&self, from: usize) -> &[usize] {
        self.at.get(from..).unwrap_or_default()
    }
}

/// The template's own role lines, which a role line the split finds at a mark must be one
/// of: a mark proves only where the template's role line stood, and a filter working on
/// the template's text (`replace`) may have rewritten its role word or attributes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Shapes {
    /// The role lines the template writes whole (spec profile): the text after the role word
    /// to the line's end (trailing blanks dropped) and the role (lowercased) written before
    /// it, sorted and without repeats once [`plan`] has them all ([`Shapes::seal`]). A
    /// rendered role line is looked up by binary search on that text, without building a
    /// key or hashing it (most templates have two to four). A template with thousands of
    /// distinct role lines pays a comparison per halving instead of one hash (a strict
    /// render of 9,999 of them went from about 3.4 to 4.5 ms); the message cap bounds the
    /// lookups per render.
    whole: Vec<(Box<str>, &'static str)>,
    /// The role words the template writes (promptflow profile; lowercased, a handful).
    words: Vec<&'static str>,
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
            if let Some(word) = crate::roles::promptflow_role_prefix(line.as_bytes())
                && !self.has_role(word)
            {
                self.words.push(word);
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
                self.whole.push((after_role(role.role, line).into(), role.role));
                false
            }
        }
    }

    /// Sorts and dedups the whole role lines [`Shapes::add`] collected, for [`Shapes::fit`].
    fn seal(&mut self) {
        self.whole.sort_unstable();
        self.whole.dedup();
        self.whole.shrink_to_fit();
    }

    /// How the rendered role line `line` (from its role word) fits (spec profile).
    pub(crate) fn fit(&self, line: &str) -> Fit {
        let Some(role) = crate::roles::role_line(line) else { return Fit::None };
        debug_assert!(self.whole.is_sorted(), "Shapes::seal runs before any lookup");
        let key = after_role(role.role, line);
        let from = self.whole.partition_point(|(k, _)| &**k < key);
        if self.whole[from..].iter().take_while(|(k, _)| &**k == key).any(|(_, r)| *r == role.role) {
            return Fit::Whole;
        }
        let Some(attrs) = role.attrs else { return Fit::None };
        let keys = crate::roles::attr_keys(attrs);
        let fits = self.open.iter().any(|(r, own)| {
            *r == role.role && keys.len() <= own.len() && keys.iter().all(|k| own.iter().any(|o| o == k))
        });
        if fits { Fit::Open } else { Fit::None }
    }

    /// Whether the template writes a role line with the role `role` (promptflow profile;
    /// lowercased, as [`crate::roles::promptflow_role_prefix`] gives it).
    pub(crate) fn has_role(&self, role: &str) -> bool {
        self.words.contains(&role)
    }
}

/// What follows the role word `role` (written in any case at the start of `line`) to the
/// line's end, trailing blanks dropped: the key of [`Shapes::whole`].
fn after_role<'l>(role: &str, line: &'l str) -> &'l str {
    line.get(role.len()..).unwrap_or_default().trim_end_matches([' ', '\t', '\r', '\n'])
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
    fn a_rendered_role_line_fits_only_a_role_line_the_template_writes_whole() {
        // Two roles share one shape (`:`), one role has two, and one line comes twice.
        let view = "system:\nhi\nuser:\nq\nassistant[name=\"a\"]:\nx\nuser:\nagain\nsystem[name=\"b\"]:\ny";
        let shapes = plan(view, Profile::Spec, false).checks.shapes;
        assert_eq!(shapes.whole.len(), 4, "{:?}", shapes.whole);
        assert!(shapes.whole.is_sorted(), "{:?}", shapes.whole);
        let fits: Vec<(&str, Fit)> = [
            "system:",
            "user:",
            "user:  ",
            "assistant[name=\"a\"]:",
            "system[name=\"b\"]:",
            "assistant:",
            "user [name=\"b\"]:",
            "assistant[name=\"b\"]:",
            "tool:",
        ]
        .into_iter()
        .map(|line| (line, shapes.fit(line)))
        .collect();
        assert_eq!(
            fits,
            [
                ("system:", Fit::Whole),
                ("user:", Fit::Whole),
                ("user:  ", Fit::Whole),
                ("assistant[name=\"a\"]:", Fit::Whole),
                ("system[name=\"b\"]:", Fit::Whole),
                ("assistant:", Fit::None),
                ("user [name=\"b\"]:", Fit::None),
                ("assistant[name=\"b\"]:", Fit::None),
                ("tool:", Fit::None),
            ]
        );
    }
}
