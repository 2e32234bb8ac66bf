//! The promptflow profile's provenance marks: which role lines and `name:`/`content:`
//! labels of the rendered text the template wrote.
//!
//! Before compiling, every role line that stands alone on a line of the template, and every
//! `name`, `tool_call_id` and `content` label in the template's literal text, gets a variable
//! placed right before its word. At render time that variable holds a fresh random mark, so
//! the rendered text carries the mark exactly where the template's own text put a role word
//! or label, however often a loop repeats it. The split removes the marks (giving the text
//! promptflow would have rendered, byte for byte) and remembers where they were; a role line
//! or label without a mark came from an input value and is refused.
//!
//! A placeholder placed where the engine would not read it as a variable (a Jinja comment or
//! `{% raw %}` block, a string literal inside a tag, a Mustache comment, a Handlebars raw
//! block) is left out: the lexer below skips such places in Jinja, and Mustache and
//! Handlebars templates are checked after compiling. A role line there is then refused when
//! it renders, rather than rendered differently.

use prompty_syntax::{Profile, TemplateFormat};

use crate::engine::{BodyLocation, Engine};
use crate::error::Error;
use crate::limits::Limits;
use crate::promptflow::PROMPTFLOW_ROLES;
use crate::pyrepr::py_space;

/// The context variable that carries the per-render mark.
pub(crate) const MARK_VAR: &str = "__prompty_mark";

/// The labels of promptflow's `name:`/`tool_call_id:` and `content:` sub-syntax.
const LABELS: &[&str] = &["name", "tool_call_id", "content"];

/// What a mark looks like: a private-use character, 20 decimal digits of a random `u64`,
/// another private-use character. No case mapping, trimming or escaping changes it, and it
/// holds no whitespace, so it never joins or splits what the promptflow split sees.
pub(crate) fn mark_from(random: u64) -> String {
    format!("{MARK_OPEN}{random:020}\u{e001}")
}

/// The first character of every mark.
const MARK_OPEN: char = '\u{e000}';
const MARK_OPEN_UTF8: &str = "\u{e000}";

/// The template compiled for prepare, with its marks.
pub(crate) struct Marked {
    /// The body as compiled.
    pub(crate) body: String,
    pub(crate) engine: Engine,
    /// How many marks the body holds (0: the body is the plain template).
    pub(crate) marks: usize,
    /// Whether the template's line breaks carry marks too (see [`compile_marked`]).
    pub(crate) newlines: bool,
}

/// Compiles `body` with a mark before each role word and label the template writes.
pub(crate) fn compile_marked(
    format: &str,
    body: &str,
    profile: Profile,
    limits: &Limits,
    loc: &BodyLocation,
) -> Result<Marked, Error> {
    let Some(tag) = mark_tag(format) else {
        // An unknown format: compiling reports it.
        return Engine::compile(format, body.to_owned(), profile, limits, loc).map(|engine| Marked {
            body: body.to_owned(),
            engine,
            marks: 0,
            newlines: false,
        });
    };
    let (mut places, roles) = candidates(body);
    let mut newlines = false;
    if tag.jinja {
        let data = jinja_data(body);
        places.retain(|&p| in_data(&data, p));
        // Whitespace control can remove the line break before or after one of the template's
        // role lines; what stands there at render time may then be a value's text, which would
        // decide whether the role line splits. A role line whose own line break after it goes
        // is left unmarked (refused if it ever splits). Where the line break before one goes,
        // every kept line break of the template and the start of every role line carry marks
        // too, and the split checks that each role line starts right after a line break of the
        // template's and ends with its own.
        let kept = kept_newlines(body, &data);
        let bytes = body.as_bytes();
        let is_kept = |n: usize| kept.binary_search(&n).is_ok();
        let mut unmarkable = Vec::new();
        let mut starts = Vec::new();
        for &r in roles.iter().filter(|&&r| in_data(&data, r)) {
            let before = memchr::memrchr(b'\n', bytes.get(..r).unwrap_or_default());
            let after = memchr::memchr(b'\n', bytes.get(r..).unwrap_or_default()).map(|i| r + i);
            if after.is_some_and(|n| !is_kept(n)) {
                unmarkable.push(r);
                continue;
            }
            newlines |= before.is_some_and(|n| !is_kept(n));
            starts.push(before.map_or(0, |n| n + 1));
        }
        places.retain(|p| !unmarkable.contains(p));
        if newlines {
            places.extend(starts);
            places.extend(kept);
            places.sort_unstable();
            places.dedup();
        }
    }
    if places.is_empty() {
        let engine = Engine::compile(format, body.to_owned(), profile, limits, loc)?;
        return Ok(Marked { body: body.to_owned(), engine, marks: 0, newlines: false });
    }
    let marked = insert(body, &places, tag.text);
    if let Ok(engine) = Engine::compile(format, marked.clone(), profile, limits, loc)
        && (tag.jinja || engine.mark_count() == places.len())
    {
        return Ok(Marked { body: marked, engine, marks: places.len(), newlines });
    }
    // The plain template's own error, located in the file, when it does not compile.
    Engine::compile(format, body.to_owned(), profile, limits, loc)?;
    // Some placeholder broke the template or is not read as a variable (a rare case): find
    // the places that work by halving, within a budget of compiles. A place left out is
    // unmarked, so its role line is refused if it renders, never rendered differently.
    let works = |set: &[usize]| {
        Engine::compile(format, insert(body, set, tag.text), profile, limits, loc)
            .is_ok_and(|e| tag.jinja || e.mark_count() == set.len())
    };
    let mut budget = FALLBACK_COMPILES;
    let mut kept = Vec::new();
    keep_working(&places, &works, &mut budget, &mut kept);
    let places = kept;
    let marked = insert(body, &places, tag.text);
    let engine = Engine::compile(format, marked.clone(), profile, limits, loc)?;
    Ok(Marked { body: marked, engine, marks: places.len(), newlines })
}

/// Compiles the fallback may spend finding the places that work.
const FALLBACK_COMPILES: usize = 64;

/// Adds to `kept` the places of `set` that `works`, halving sets that do not.
fn keep_working(set: &[usize], works: &dyn Fn(&[usize]) -> bool, budget: &mut usize, kept: &mut Vec<usize>) {
    if set.is_empty() || *budget == 0 {
        return;
    }
    *budget -= 1;
    if works(set) {
        kept.extend_from_slice(set);
        return;
    }
    if let [_] = set {
        return;
    }
    let (left, right) = set.split_at(set.len() / 2);
    keep_working(left, works, budget, kept);
    keep_working(right, works, budget, kept);
}

struct MarkTag {
    text: &'static str,
    jinja: bool,
}

fn mark_tag(format: &str) -> Option<MarkTag> {
    match TemplateFormat::from_kind(format)? {
        TemplateFormat::Jinja2 => Some(MarkTag { text: "{{ __prompty_mark }}", jinja: true }),
        TemplateFormat::Mustache => Some(MarkTag { text: "{{__prompty_mark}}", jinja: false }),
        // Inside `{{#each}}` and `{{#with}}` a bare name is looked up in the block's value.
        TemplateFormat::Handlebars => Some(MarkTag { text: "{{@root.__prompty_mark}}", jinja: false }),
    }
}

fn insert(body: &str, places: &[usize], tag: &str) -> String {
    let mut out = String::with_capacity(body.len() + places.len() * tag.len());
    let mut from = 0;
    for &p in places {
        out.push_str(body.get(from..p).unwrap_or(""));
        out.push_str(tag);
        from = p;
    }
    out.push_str(body.get(from..).unwrap_or(""));
    out
}

fn skip_space(s: &str, mut i: usize) -> usize {
    while let Some(c) = s.get(i..).and_then(|r| r.chars().next()) {
        if !py_space(c) {
            break;
        }
        i += c.len_utf8();
    }
    i
}

/// Byte offsets in `body`, ascending, where a mark goes: the role word of every line that
/// is a promptflow role line on its own (`^\s*#?\s*ROLE\s*:\s*$`), and every `name` or
/// `tool_call_id` followed by `\s*:` and the end of its line, and every `content` followed
/// by `\s*:` (promptflow searches these labels anywhere in a message).
pub(crate) fn candidates(body: &str) -> (Vec<usize>, Vec<usize>) {
    let mut out = Vec::new();
    let mut roles = Vec::new();
    let mut line_start = 0;
    // Only lines with a colon can hold a role line or a label.
    for colon in memchr::memchr_iter(b':', body.as_bytes()) {
        if colon < line_start {
            continue;
        }
        let bytes = body.as_bytes();
        line_start = memchr::memrchr(b'\n', bytes.get(..colon).unwrap_or_default()).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', bytes.get(colon..).unwrap_or_default()).map_or(body.len(), |i| colon + i);
        let line = body.get(line_start..line_end).unwrap_or("");
        if let Some(p) = role_word_of_line(line) {
            out.push(line_start + p);
            roles.push(line_start + p);
        } else {
            label_places(line, line_start, &mut out);
        }
        line_start = line_end + 1;
    }
    (out, roles)
}

/// The offset of the role word when `line` is a role line alone.
fn role_word_of_line(line: &str) -> Option<usize> {
    let mut i = skip_space(line, 0);
    if line.get(i..)?.starts_with('#') {
        i = skip_space(line, i + 1);
    }
    let rest = line.get(i..)?;
    let len = PROMPTFLOW_ROLES
        .iter()
        .find(|r| rest.get(..r.len()).is_some_and(|w| w.eq_ignore_ascii_case(r)))
        .map(|r| r.len())?;
    let j = skip_space(line, i + len);
    if !line.get(j..)?.starts_with(':') {
        return None;
    }
    (skip_space(line, j + 1) == line.len()).then_some(i)
}

fn label_places(line: &str, line_start: usize, out: &mut Vec<usize>) {
    let mut from = 0;
    while let Some(k) = line.get(from..).and_then(|s| s.find(':')) {
        let colon = from + k;
        let before = line.get(..colon).unwrap_or("").trim_end_matches(py_space);
        let at_end = skip_space(line, colon + 1) == line.len();
        for label in LABELS {
            if before.ends_with(label) && (at_end || *label == "content") {
                out.push(line_start + before.len() - label.len());
            }
        }
        from = colon + 1;
    }
}

/// The byte ranges of a Jinja template that are plain template text: outside tags
/// (`{{ }}`, `{% %}`), comments and `{% raw %}` blocks. Follows minijinja's lexer with the
/// default delimiters: a tag ends at its closing delimiter outside string literals and
/// brackets; a comment at the first `#}`; a raw block at the first `{% endraw %}`.
pub(crate) fn jinja_data(src: &str) -> Vec<Data> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    let mut lead = Lead::Keep;
    while pos < b.len() {
        let Some(open) = find_open(b, pos) else {
            out.push(Data { range: pos..b.len(), lead, tail_strip: false });
            break;
        };
        if open > pos {
            out.push(Data { range: pos..open, lead, tail_strip: b.get(open + 2) == Some(&b'-') });
        }
        let kind = b.get(open + 1).copied();
        let mut i = open + 2;
        pos = match kind {
            Some(b'#') => find(b, i, b"#}").map_or(b.len(), |e| e + 2),
            Some(b'%') => {
                if matches!(b.get(i), Some(b'-' | b'+')) {
                    i += 1;
                }
                match basic_tag(b, i, b"raw", false) {
                    Some(after) => end_of_raw(b, after),
                    None => end_of_tag(b, i, b"%}"),
                }
            }
            _ => {
                if matches!(b.get(i), Some(b'-' | b'+')) {
                    i += 1;
                }
                end_of_tag(b, i, b"}}")
            }
        };
        // How the tag's end trims the text after it: `-` strips all whitespace; a block or
        // comment end without `+` drops one line break (trim_blocks, on in this profile).
        lead = match b.get(pos.saturating_sub(3)) {
            Some(b'-') => Lead::Strip,
            Some(b'+') => Lead::Keep,
            _ if kind == Some(b'{') => Lead::Keep,
            _ => Lead::FirstNewline,
        };
    }
    out
}

/// A run of plain template text, and how the tags around it trim it.
pub(crate) struct Data {
    pub(crate) range: std::ops::Range<usize>,
    lead: Lead,
    /// The next tag opens with `-`: the run's trailing whitespace goes.
    tail_strip: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lead {
    Keep,
    FirstNewline,
    Strip,
}

fn in_data(data: &[Data], p: usize) -> bool {
    let i = data.partition_point(|d| d.range.end <= p);
    data.get(i).is_some_and(|d| d.range.contains(&p))
}

/// The line breaks of plain template text that rendering keeps (not removed by
/// trim_blocks or a `-` whitespace control), ascending.
fn kept_newlines(src: &str, data: &[Data]) -> Vec<usize> {
    let mut out = Vec::new();
    for d in data {
        let text = src.get(d.range.clone()).unwrap_or("");
        let lead_end = match d.lead {
            Lead::Keep => 0,
            Lead::FirstNewline => {
                let cr = usize::from(text.starts_with('\r'));
                if text.get(cr..).is_some_and(|t| t.starts_with('\n')) { cr + 1 } else { 0 }
            }
            Lead::Strip => text.len() - text.trim_start().len(),
        };
        let tail_start = if d.tail_strip { text.trim_end().len() } else { text.len() };
        for k in memchr::memchr_iter(b'\n', text.as_bytes()) {
            if k >= lead_end && k < tail_start {
                out.push(d.range.start + k);
            }
        }
    }
    out
}

fn find_open(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        let k = memchr::memchr(b'{', b.get(i..)?)?;
        i += k;
        if matches!(b.get(i + 1), Some(b'{' | b'%' | b'#')) {
            return Some(i);
        }
        i += 1;
    }
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(b.get(from..)?, needle).map(|k| from + k)
}

/// `[-+]? \s* NAME \s* [-+]? %}` at `i` (after `{%`): the offset after the tag.
fn basic_tag(b: &[u8], mut i: usize, name: &[u8], ws_control: bool) -> Option<usize> {
    if ws_control && matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if !b.get(i..)?.starts_with(name) {
        return None;
    }
    i += name.len();
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    b.get(i..)?.starts_with(b"%}").then_some(i + 2)
}

fn end_of_raw(b: &[u8], mut i: usize) -> usize {
    while let Some(open) = find(b, i, b"{%") {
        if let Some(after) = basic_tag(b, open + 2, b"endraw", true) {
            return after;
        }
        i = open + 2;
    }
    b.len()
}

/// The offset after the closing delimiter of a tag whose expression starts at `i`.
fn end_of_tag(b: &[u8], mut i: usize, close: &[u8]) -> usize {
    let mut depth: isize = 0;
    while let Some(&c) = b.get(i) {
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if depth == 0 {
            if b.get(i..).is_some_and(|r| r.starts_with(close)) {
                return i + close.len();
            }
            if matches!(c, b'-' | b'+') && b.get(i + 1..).is_some_and(|r| r.starts_with(close)) {
                return i + 1 + close.len();
            }
        }
        match c {
            b'\'' | b'"' => {
                i += 1;
                while let Some(&d) = b.get(i) {
                    i += if d == b'\\' { 2 } else { 1 };
                    if d == c {
                        break;
                    }
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth -= 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    b.len()
}

/// The rendered text without its marks, and where each mark was (offsets in the returned
/// text, ascending: the mark stood right before that byte).
pub(crate) fn strip_marks(text: &str, mark: &str) -> (String, Vec<usize>) {
    let mut clean = String::with_capacity(text.len());
    let mut places = Vec::new();
    let mut from = 0;
    let mut scan = 0;
    // A search for the first byte of the mark's first character (a SIMD memchr) is far
    // faster than a substring search; the mark is compared where that byte appears.
    let first = MARK_OPEN_UTF8.as_bytes().first().copied().unwrap_or_default();
    while let Some(k) = memchr::memchr(first, text.as_bytes().get(scan..).unwrap_or_default()) {
        let at = scan + k;
        if text.get(at..).is_some_and(|s| s.starts_with(mark)) {
            clean.push_str(text.get(from..at).unwrap_or(""));
            places.push(clean.len());
            from = at + mark.len();
            scan = from;
        } else {
            scan = at + 1;
        }
    }
    clean.push_str(text.get(from..).unwrap_or(""));
    (clean, places)
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
    fn jinja_data_skips_tags_comments_and_raw_blocks() {
        let src = "a{{ '}}' }}b{# c #}d{%- raw -%}e{% endraw %}f{% if {'x': 1} %}g{{x-}}h";
        let text: Vec<&str> = jinja_data(src).into_iter().map(|d| &src[d.range]).collect();
        assert_eq!(text, ["a", "b", "d", "f", "g", "h"]);
        // Unterminated constructs run to the end.
        let ranges = |s| jinja_data(s).into_iter().map(|d| d.range).collect::<Vec<_>>();
        assert_eq!(ranges("a{# b"), vec![0..1]);
        assert_eq!(ranges("a{{ 'b"), vec![0..1]);
    }

    #[test]
    fn kept_newlines_follow_whitespace_control() {
        let src = "a\n{% if x %}\nb\n{{ y -}}\n\nc \n {%- endif %}\n{# c +#}\nd\n";
        let kept: Vec<usize> = kept_newlines(src, &jinja_data(src));
        let expected: Vec<usize> = vec![1, 14, 50, 52];
        assert_eq!(kept, expected, "{:?}", kept.iter().map(|&k| &src[..k]).collect::<Vec<_>>());
    }

    #[test]
    fn strip_marks_records_places() {
        let m = mark_from(7);
        let (clean, places) = strip_marks(&format!("{m}system:\nx {m}content:"), &m);
        assert_eq!(clean, "system:\nx content:");
        assert_eq!(places, [0, 10]);
        // Another mark, or the start of one, is text.
        let other = mark_from(8);
        let text = format!("\u{e000}{other}{m}user:\u{e000}");
        let (clean, places) = strip_marks(&text, &m);
        assert_eq!(clean, format!("\u{e000}{other}user:\u{e000}"));
        assert_eq!(places, [3 + other.len()]);
    }
}
