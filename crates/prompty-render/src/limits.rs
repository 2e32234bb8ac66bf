//! The budget of one render, shared by the three template engines.

use std::fmt;
#[cfg(feature = "handlebars")]
use std::io;

/// Bounds on compiling and rendering an untrusted template, the same for Jinja2, Mustache
/// and Handlebars. A render that hits `steps`, `max_output` or `recursion` ends with an
/// [`ErrorKind::Limit`](crate::ErrorKind::Limit) error; a template deeper than
/// `max_nesting` does not compile ([`ErrorKind::TemplateSyntax`](crate::ErrorKind::TemplateSyntax)).
///
/// ```
/// use prompty_render::Limits;
///
/// let limits = Limits::default().with_steps(10_000).with_max_output(1 << 20);
/// assert_eq!(limits.steps, 10_000);
/// assert_eq!(limits.max_nesting, Limits::DEFAULT_MAX_NESTING);
/// ```
///
/// `docs/performance.md` explains each default and what a user sees when it is hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Units of work one render may do. Jinja2: minijinja's fuel (one unit per instruction,
    /// plus one per 64 bytes of text or two list items the render builds, writes or walks,
    /// in filters, tests, methods and comparisons too; no value one filter, test or method
    /// builds may be larger than what is left, nor than `max_output`). Mustache: one per template node visited and one per run of a section body.
    /// Handlebars: one per expression or block body run (each `#each` item counts).
    pub steps: u64,
    /// Bytes one render may write, counted wherever they go: the final text, and for
    /// Jinja2 also every `{{ }}` written into a `{% set %}` block, a macro or a `caller()`
    /// body even when that text is later thrown away. This is also the bound on the
    /// memory such text can hold.
    pub max_output: usize,
    /// How deeply a template may nest, checked before any recursive parser gets deeper:
    /// blocks and sections, and in Jinja2 and Handlebars expressions (each chained
    /// operator, filter, attribute, call and bracket counts one).
    pub max_nesting: usize,
    /// How deeply a render may recurse: macro calls and recursive loops (Jinja2),
    /// partials, parents and blocks (Mustache).
    pub recursion: usize,
}

impl Limits {
    /// The defaults, usable in constants (`Limits::DEFAULT.with_steps(10_000)`).
    pub const DEFAULT: Limits = Limits {
        steps: Self::DEFAULT_STEPS,
        max_output: Self::DEFAULT_MAX_OUTPUT,
        max_nesting: Self::DEFAULT_MAX_NESTING,
        recursion: Self::DEFAULT_RECURSION,
    };
    /// Default for [`steps`](Self::steps).
    pub const DEFAULT_STEPS: u64 = prompty_jinja::budget::DEFAULT_STEPS;
    /// Default for [`max_output`](Self::max_output): 32 MiB.
    pub const DEFAULT_MAX_OUTPUT: usize = prompty_jinja::budget::DEFAULT_MAX_OUTPUT;
    /// Default for [`max_nesting`](Self::max_nesting).
    pub const DEFAULT_MAX_NESTING: usize = 100;
    /// Default for [`recursion`](Self::recursion).
    pub const DEFAULT_RECURSION: usize = 100;

    /// Sets [`steps`](Self::steps).
    #[must_use]
    pub const fn with_steps(mut self, steps: u64) -> Self {
        self.steps = steps;
        self
    }

    /// Sets [`max_output`](Self::max_output), in bytes.
    #[must_use]
    pub const fn with_max_output(mut self, max_output: usize) -> Self {
        self.max_output = max_output;
        self
    }

    /// Sets [`max_nesting`](Self::max_nesting).
    #[must_use]
    pub const fn with_max_nesting(mut self, max_nesting: usize) -> Self {
        self.max_nesting = max_nesting;
        self
    }

    /// Sets [`recursion`](Self::recursion).
    #[must_use]
    pub const fn with_recursion(mut self, recursion: usize) -> Self {
        self.recursion = recursion;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Output that refuses to grow past a cap: text for the Jinja2 engine ([`CappedString`],
/// a `fmt::Write`), bytes for Handlebars ([`CappedWriter`], an `io::Write`).
///
/// With a mark ([`crate::compile`]), a write of exactly the mark is recorded instead of
/// written: the Jinja formatter writes each of the render's marks in a value on its own (the
/// template's own `{{ mark }}`, or the marks inside a macro's or block's output), the
/// Handlebars mark helper writes it alone, and the template's text holds none. Marks do not
/// count against the cap. With [`Direct`] places (Jinja), the template's own text written
/// straight to the output records its places as it is written, with no mark.
pub(crate) struct Capped<'m, B> {
    pub(crate) buf: B,
    pub(crate) cap: usize,
    pub(crate) overflowed: bool,
    mark: Option<&'m str>,
    pub(crate) direct: Option<Direct<'m>>,
    /// Where the marks and the direct places were in `buf`, non-decreasing (a mark and a
    /// direct place can share an offset).
    pub(crate) places: Vec<usize>,
}

/// Places of a compiled Jinja template's own text that the render writes straight to its
/// output: the fork's [`Template::source_offset`](minijinja::Template::source_offset) tells
/// which writes are the template's text and from where in its source, and each place in such
/// a write is recorded where the write puts it, as a mark in that place would be.
pub(crate) struct Direct<'m> {
    template: &'m minijinja::Template<'m, 'm>,
    /// Byte offsets in the source, ascending.
    places: &'m [usize],
}

impl<'m> Direct<'m> {
    pub(crate) fn new(template: &'m minijinja::Template<'m, 'm>, places: &'m [usize]) -> Self {
        Self { template, places }
    }

    /// Records into `out` the places that `s`, written at `at`, holds.
    fn record(&self, s: &str, at: usize, out: &mut Vec<usize>) {
        let Some(offset) = self.template.source_offset(s) else { return };
        let first = self.places.partition_point(|&p| p < offset);
        let end = offset + s.len();
        for &p in self.places.get(first..).unwrap_or_default().iter().take_while(|&&p| p < end) {
            out.push(at + p - offset);
        }
    }
}

/// What the Jinja2 engine renders into.
pub(crate) type CappedString<'m> = Capped<'m, String>;

/// What the Handlebars engine renders into.
#[cfg(feature = "handlebars")]
pub(crate) type CappedWriter<'m> = Capped<'m, Vec<u8>>;

/// A buffer a [`Capped`] output can hold.
pub(crate) trait Buffer {
    fn with_capacity(n: usize) -> Self;
    fn len(&self) -> usize;
}

impl Buffer for String {
    fn with_capacity(n: usize) -> Self {
        String::with_capacity(n)
    }
    fn len(&self) -> usize {
        self.len()
    }
}

impl Buffer for Vec<u8> {
    fn with_capacity(n: usize) -> Self {
        Vec::with_capacity(n)
    }
    fn len(&self) -> usize {
        self.len()
    }
}

impl<'m, B: Buffer> Capped<'m, B> {
    /// Output of at most `cap` bytes, with room for `hint` of them and for `marks` places;
    /// `mark`, when given, is recorded instead of written.
    pub(crate) fn new(cap: usize, hint: usize, mark: Option<&'m str>, marks: usize) -> Self {
        Self {
            buf: B::with_capacity(hint.min(cap)),
            cap,
            overflowed: false,
            mark,
            direct: None,
            places: Vec::with_capacity(marks),
        }
    }

    /// Whether `data` is to be written: `Some(false)` when it was the mark (now recorded),
    /// `None` when it would pass the cap.
    fn admit(&mut self, data: &[u8]) -> Option<bool> {
        let len = self.buf.len();
        if self.mark.is_some_and(|m| m.as_bytes() == data) {
            self.places.push(len);
            return Some(false);
        }
        if len + data.len() > self.cap {
            self.overflowed = true;
            return None;
        }
        Some(true)
    }
}

impl fmt::Write for CappedString<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        match self.admit(s.as_bytes()) {
            Some(true) => {
                if let Some(direct) = &self.direct {
                    direct.record(s, self.buf.len(), &mut self.places);
                }
                self.buf.push_str(s);
            }
            Some(false) => {}
            None => return Err(fmt::Error),
        }
        Ok(())
    }
}

#[cfg(feature = "handlebars")]
impl io::Write for CappedWriter<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self.admit(data) {
            Some(true) => self.buf.extend_from_slice(data),
            Some(false) => {}
            None => return Err(io::Error::other("rendered output exceeds the size limit")),
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;
    use crate::mark::Mark;

    /// A mark written on its own is recorded, not written; inside a longer piece, or another
    /// render's mark, it is text; marks do not count against the cap.
    #[test]
    fn capped_string_takes_marks_out_as_it_writes() {
        let mark = Mark::new(42);
        let m = mark.as_str();
        let other = Mark::new(43);
        let mut out = CappedString::new(60, 0, Some(m), 1);
        for piece in [m, "system:\n", m, "x", other.as_str()] {
            assert!(out.write_str(piece).is_ok(), "{piece:?}");
        }
        assert_eq!(out.buf, format!("system:\nx{}", other.as_str()));
        assert_eq!(out.places, [0, 8]);
        assert!(out.write_str(&format!("{m}user:")).is_ok());
        assert_eq!(out.places, [0, 8]);
        assert!(out.write_str("123456789").is_err());
        assert!(out.overflowed);
        // Without a mark, a mark is text.
        let mut plain = CappedString::new(100, 0, None, 0);
        assert!(plain.write_str(m).is_ok());
        assert_eq!((plain.buf.as_str(), plain.places.len()), (m, 0));
    }

    /// Direct places are recorded for writes of the template's own text, at the offset the
    /// write puts them; the same text from anywhere else records nothing.
    #[test]
    fn direct_places_come_from_the_source_not_from_equal_text() {
        let mut env = minijinja::Environment::new();
        env.add_template("t", "system:\nA\nuser:\nB").expect("compiles");
        let template = env.get_template("t").expect("exists");
        let source = template.source();
        let places = [0, 10];
        let mut out = CappedString::new(100, 0, None, 0);
        out.direct = Some(Direct::new(&template, &places));
        let copy = source.to_owned();
        for piece in [&copy[..10], "x", &source[..3], &source[3..12], &source[12..], &copy[10..]] {
            assert!(out.write_str(piece).is_ok());
        }
        assert_eq!(out.buf, "system:\nA\nxsystem:\nA\nuser:\nBuser:\nB");
        // `source[..3]` holds offset 0 (written at 11); `source[3..12]` holds offset 10
        // (written at 14 + 7); the copies hold none.
        assert_eq!(out.places, [11, 21]);
        assert_eq!(&out.buf[21..25], "user");
    }

    /// What the renderer relies on in the fork: a render writes the template's text (after
    /// whitespace control and trim_blocks, in loops, raw blocks and after values) as slices
    /// of its source, and no value it prints is taken for one, even when equal to template
    /// text or printed from a string literal of the template.
    #[test]
    fn a_render_writes_the_template_text_from_its_source_and_nothing_else() {
        struct Writes<'t> {
            template: &'t minijinja::Template<'t, 't>,
            text: Vec<(String, Option<usize>)>,
        }
        impl fmt::Write for Writes<'_> {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                self.text.push((s.to_owned(), self.template.source_offset(s)));
                Ok(())
            }
        }
        let body = "A{% for x in xs %}-{{ x }}{% endfor %}\n{% raw %}R{{ }}{% endraw %}{{ 'A' }}{{ y -}}  Z\n{#c#}B";
        let mut env = prompty_jinja::environment();
        env.set_syntax(prompty_jinja::syntax(true));
        env.add_template("t", body).expect("compiles");
        let template = env.get_template("t").expect("exists");
        let mut w = Writes { template: &template, text: Vec::new() };
        template.render_to_fmt(minijinja::context! { xs => ["-", "A"], y => "Z" }, &mut w).expect("renders");
        let all: String = w.text.iter().map(|(s, _)| s.as_str()).collect();
        // trim_blocks takes the line break after `{% endfor %}`; `-}}` the blanks before `Z`.
        assert_eq!(all, "A---AR{{ }}AZZ\nB");
        let source = template.source();
        let from_source: Vec<&str> = w
            .text
            .iter()
            .filter_map(|(s, at)| {
                at.map(|k| {
                    assert_eq!(&source[k..k + s.len()], s);
                    s.as_str()
                })
            })
            .filter(|s| !s.is_empty())
            .collect();
        assert_eq!(from_source, ["A", "-", "-", "R{{ }}", "Z\n", "B"]);
    }
}
