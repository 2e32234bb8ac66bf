//! A Jinja template read from minijinja's own tokenizer (the tokens its parser reads, with
//! the profile's trim_blocks and whitespace control applied): the text that renders, the
//! tags, raw blocks, and which tags open and close blocks whose output becomes a value. Used
//! by the renderer (its layout and promptflow's image pre-pass); it uses no other module.

use minijinja::machinery::{Token, tokenize};

/// The runs of a Jinja template that are plain template text (outside tags, comments and
/// `{% raw %}` blocks), with trim_blocks on (the promptflow profile). See [`jinja_lex`].
#[cfg(test)]
fn jinja_data(src: &str) -> Vec<Data> {
    jinja_lex(src, true)
        .into_iter()
        .filter_map(|item| match item {
            JinjaItem::Data(d) => Some(d),
            _ => None,
        })
        .collect()
}

/// One piece of a Jinja template, in source order. Comments render nothing and are left out.
pub enum JinjaItem {
    /// Plain template text that renders (not empty).
    Data(Data),
    /// A `{{ }}` or `{% %}` tag, and what it does to the blocks around the text.
    Tag(Block),
    /// A `{% raw %}` block: the range of its text that renders (after the block tags'
    /// whitespace control), and whether the block ends the template.
    Raw(std::ops::Range<usize>, bool),
    /// Where the template's last plain text would be: it ran to the end of the template and
    /// whitespace control or trim_blocks removed all of it.
    TrimmedEnd,
}

/// A run of plain template text that renders: what is left once the tags around it trimmed
/// it.
pub struct Data {
    /// The run's bytes in the template.
    pub range: std::ops::Range<usize>,
}

/// A `{% %}` tag being read: its first word, whether an `=` stands outside brackets, whether
/// the word `recursive` appears, and the brackets open.
#[derive(Default)]
struct TagReader {
    word: Option<Word>,
    assigns: bool,
    recursive: bool,
    depth: usize,
}

/// Lexes a Jinja template with minijinja's tokenizer (default delimiters; `trim_blocks` is
/// the environment's setting). Reading stops at the first token minijinja cannot lex, where
/// its parser stops too.
pub fn jinja_lex(src: &str, trim_blocks: bool) -> Vec<JinjaItem> {
    jinja_lex_with(src, trim_blocks, &mut |_, _| {})
}

/// [`jinja_lex`], handing every token it reads to `each` as well (a caller with another use
/// for the tokens reads the template once).
pub fn jinja_lex_with<'s>(
    src: &'s str,
    trim_blocks: bool,
    each: &mut dyn FnMut(&Token<'s>, minijinja::machinery::Span),
) -> Vec<JinjaItem> {
    let mut reader = JinjaReader::new(src);
    for item in tokenize(src, false, crate::syntax(trim_blocks)) {
        let Ok((token, span)) = item else { break };
        each(&token, span);
        reader.token(&token, span);
    }
    reader.finish()
}

/// [`jinja_lex`] fed one token at a time: for a caller that has the tokens from elsewhere
/// (the compile's own parse, through `Environment::add_template_owned_observed`). The tokens
/// must be the ones minijinja's tokenizer gives for `src` with the profile's syntax, in
/// order, up to the end or the first it cannot lex.
pub struct JinjaReader<'s> {
    src: &'s str,
    out: Vec<JinjaItem>,
    /// The end of the previous token: what lies between it and the next one was skipped by
    /// the tokenizer (comments, whitespace the tags removed, a raw block's tags).
    prev_end: usize,
    tag: Option<TagReader>,
    last_was_data: bool,
}

impl<'s> JinjaReader<'s> {
    /// A reader of `src`'s tokens.
    pub fn new(src: &'s str) -> Self {
        Self { src, out: Vec::new(), prev_end: 0, tag: None, last_was_data: false }
    }

    /// Reads the next token.
    pub fn token(&mut self, token: &Token<'_>, span: minijinja::machinery::Span) {
        let src = self.src;
        let (start, end) = (span.start_offset as usize, span.end_offset as usize);
        let gap = src.get(self.prev_end..start).unwrap_or("");
        self.prev_end = end;
        self.last_was_data = false;
        match token {
            Token::TemplateData(_) => {
                // The tokenizer skips a raw block's opening tag and emits its text as data
                // (even when empty): data right after a skipped `{% raw %}` is a raw block's.
                if opens_raw(gap) {
                    let after = src.get(end..).and_then(|r| r.find("%}")).map_or(src.len(), |k| end + k + 2);
                    self.out.push(JinjaItem::Raw(start..end, after == src.len()));
                    // What follows the `{% endraw %}` tag is the next gap: text after it
                    // that its `-` or trim_blocks removes entirely ends the template.
                    self.prev_end = after;
                } else {
                    self.out.push(JinjaItem::Data(Data { range: start..end }));
                    self.last_was_data = end == src.len();
                }
            }
            Token::VariableStart => self.out.push(JinjaItem::Tag(Block::None)),
            Token::BlockStart => self.tag = Some(TagReader::default()),
            Token::BlockEnd => self.out.push(JinjaItem::Tag(self.tag.take().map_or(Block::None, |t| t.block()))),
            token => {
                if let Some(t) = self.tag.as_mut() {
                    t.read(token);
                }
            }
        }
    }

    /// The pieces read.
    pub fn finish(mut self) -> Vec<JinjaItem> {
        // Text after the last token (and after the last comment: only comments and trimmed
        // whitespace are skipped there) that the tokenizer trimmed away entirely.
        let rest = self.src.get(self.prev_end..).unwrap_or("");
        let after_comments = rest.rfind("#}").map_or(rest, |k| rest.get(k + 2..).unwrap_or(""));
        if !self.last_was_data
            && self.tag.is_none()
            && !after_comments.is_empty()
            && after_comments.trim_start().is_empty()
        {
            self.out.push(JinjaItem::TrimmedEnd);
        }
        self.out
    }
}

/// Whether text the tokenizer skipped ends with a `{% raw %}` tag (and the whitespace its
/// `-` removed).
fn opens_raw(skipped: &str) -> bool {
    let s = skipped.trim_end();
    let Some(inner) = s.strip_suffix("%}") else { return false };
    let Some(k) = inner.rfind("{%") else { return false };
    let word = inner.get(k + 2..).unwrap_or("");
    let word = word.strip_prefix(['-', '+']).unwrap_or(word).trim();
    word.strip_suffix(['-', '+']).unwrap_or(word).trim_end() == "raw"
}

impl TagReader {
    fn read(&mut self, token: &Token<'_>) {
        match token {
            Token::Ident(w) if self.word.is_none() => self.word = Some(Word::of(w)),
            Token::Ident("recursive") => self.recursive = true,
            Token::ParenOpen | Token::BracketOpen | Token::BraceOpen => self.depth += 1,
            Token::ParenClose | Token::BracketClose | Token::BraceClose => self.depth = self.depth.saturating_sub(1),
            Token::Assign if self.depth == 0 => self.assigns = true,
            _ => {}
        }
        if self.word.is_none() {
            // A tag that does not start with a name (`{% 1 %}`) is no block.
            self.word = Some(Word::Other);
        }
    }

    /// The block the tag opens or closes. A tag that brings in a template's text
    /// (`include`, `import`, `from`, `extends`) is [`Block::Foreign`].
    fn block(&self) -> Block {
        match self.word.unwrap_or(Word::Other) {
            Word::Foreign => Block::Foreign,
            Word::Close(kind) => Block::Close(kind),
            Word::Other => Block::None,
            Word::Opens("set", _) if self.assigns => Block::None,
            Word::Opens(kind @ "for", _) => Block::Open { kind, captures: self.recursive },
            Word::Opens(kind, captures) => Block::Open { kind, captures },
        }
    }
}

/// The first word of a `{% %}` tag, as far as blocks are concerned.
#[derive(Clone, Copy)]
enum Word {
    /// `include`, `import`, `from`, `extends`.
    Foreign,
    /// `end` and a block's keyword.
    Close(&'static str),
    /// A block's keyword, and whether its text becomes a value.
    Opens(&'static str, bool),
    /// Anything else.
    Other,
}

impl Word {
    fn of(word: &str) -> Self {
        if ["include", "import", "from", "extends"].contains(&word) {
            return Self::Foreign;
        }
        if let Some(name) = word.strip_prefix("end") {
            return BLOCKS.iter().find(|(n, _)| *n == name).map_or(Self::Other, |&(n, _)| Self::Close(n));
        }
        BLOCKS.iter().find(|(n, _)| *n == word).map_or(Self::Other, |&(n, captures)| Self::Opens(n, captures))
    }
}

/// What a `{% %}` tag does to the block structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// Neither opens nor closes a block (`{{ }}` tags, `{% set x = 1 %}`, `{% else %}` ...).
    None,
    /// Opens a block named `kind` (`for`, `if`, `macro` ...); `captures` when the text in it
    /// becomes a value instead of going to the output: a macro, `call`, `filter`, `block` or
    /// `set` body, or a recursive loop's (its `loop()` calls return their output).
    Open {
        /// The tag's keyword.
        kind: &'static str,
        /// Whether the block's text becomes a value.
        captures: bool,
    },
    /// Closes the innermost block, which should be a `kind` block (`endfor` ...).
    Close(&'static str),
    /// Writes a template's text where it stands (`include`; `import`, `from` and `extends`
    /// run one): the template's own, which may be in a capturing block where the writer
    /// cannot see it, so every run gets marks.
    Foreign,
}

/// The block statements with an end tag, and whether their text becomes a value.
const BLOCKS: &[(&str, bool)] = &[
    ("for", false),
    ("if", false),
    ("with", false),
    ("autoescape", false),
    ("set", true),
    ("filter", true),
    ("block", true),
    ("macro", true),
    ("call", true),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A tag's first word classified once (`Word::of`) gives the block the word itself gave
    /// when the reader kept it: the reference is that reading, written out again.
    #[test]
    fn classified_words_give_the_blocks_the_words_gave() {
        fn by_word(word: &str, assigns: bool, recursive: bool) -> Block {
            if ["include", "import", "from", "extends"].contains(&word) {
                return Block::Foreign;
            }
            if let Some(name) = word.strip_prefix("end") {
                return BLOCKS.iter().find(|(n, _)| *n == name).map_or(Block::None, |&(n, _)| Block::Close(n));
            }
            let Some(&(kind, captures)) = BLOCKS.iter().find(|(n, _)| *n == word) else { return Block::None };
            match kind {
                "set" if assigns => Block::None,
                "for" => Block::Open { kind, captures: recursive },
                _ => Block::Open { kind, captures },
            }
        }
        let mut words: Vec<String> = ["include", "import", "from", "extends", "end", "", "raw", "else", "elif"]
            .iter()
            .map(|w| (*w).to_owned())
            .collect();
        for (name, _) in BLOCKS {
            words.extend([(*name).to_owned(), format!("end{name}"), format!("{name}x"), format!("endx{name}")]);
        }
        for word in &words {
            for (assigns, recursive) in [(false, false), (true, false), (false, true), (true, true)] {
                let reader = TagReader { word: Some(Word::of(word)), assigns, recursive, depth: 0 };
                assert_eq!(reader.block(), by_word(word, assigns, recursive), "{word:?} {assigns} {recursive}");
            }
        }
    }

    /// The line breaks of plain template text that rendering keeps, ascending.
    fn kept_newlines(src: &str, data: &[Data]) -> Vec<usize> {
        data.iter()
            .flat_map(|d| src[d.range.clone()].match_indices('\n').map(move |(k, _)| d.range.start + k))
            .collect()
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
    fn tags_open_and_close_blocks() {
        let of = |tag: &str| {
            let src = format!("{{%{tag}");
            let tags: Vec<Block> = jinja_lex(&src, false)
                .into_iter()
                .filter_map(|item| match item {
                    JinjaItem::Tag(b) => Some(b),
                    _ => None,
                })
                .collect();
            assert_eq!(tags.len(), 1, "{src}");
            tags[0]
        };
        let open = |kind, captures| Block::Open { kind, captures };
        // Assignments are no blocks; a `set` without an `=` of its own is one.
        for tag in [" set x = 1 %}", "set x=y-%}", " set (a, b) = (1, 2) %}", " set x = a == b %}", " set ns.x = 1 %}"]
        {
            assert_eq!(of(tag), Block::None, "{tag}");
        }
        for tag in [" set x %}", " set x | upper %}", " set x | replace('=', '-') %}", " set x | f(a == b) %}"] {
            assert_eq!(of(tag), open("set", true), "{tag}");
        }
        assert_eq!(of(" set x | f(k=1) %}"), open("set", true));
        // Loops capture when recursive: the keyword as the engine reads it (`1recursive` is
        // `1` and the keyword), not a name or string that holds the word.
        assert_eq!(of(" for x in xs %}"), open("for", false));
        assert_eq!(of(" for x in xs recursive %}"), open("for", true));
        assert_eq!(of(" for x in xs if 1recursive %}"), open("for", true));
        for tag in [" for x in xs if x.recursive_ok %}", " for x in 'recursive' %}"] {
            assert_eq!(of(tag), open("for", false), "{tag}");
        }
        for tag in [" include 'prompt' %}", " import 'prompt' as m %}", " from 'p' import m %}", " extends 'p' %}"] {
            assert_eq!(of(tag), Block::Foreign, "{tag}");
        }
        for (tag, kind) in [(" macro m(a=1) %}", "macro"), (" call(u) m() %}", "call"), (" filter upper %}", "filter")]
        {
            assert_eq!(of(tag), open(kind, true), "{tag}");
        }
        assert_eq!(of(" block b %}"), open("block", true));
        assert_eq!(of(" if x %}"), open("if", false));
        assert_eq!(of(" with a = 1 %}"), open("with", false));
        assert_eq!(of(" endset %}"), Block::Close("set"));
        assert_eq!(of(" endfor -%}"), Block::Close("for"));
        for tag in [" else %}", " elif y %}", " endraw %}", " endwhatever %}", " do x %}"] {
            assert_eq!(of(tag), Block::None, "{tag}");
        }
    }

    #[test]
    fn a_raw_block_ends_the_template_when_the_text_after_it_is_trimmed_away() {
        // The end tag's `-`, or trim_blocks, removes all the text after the block.
        for (src, trim_blocks) in [("{% raw %}a{% endraw -%}\n ", false), ("{% raw %}a{%- endraw %}\n", true)] {
            let items = jinja_lex(src, trim_blocks);
            assert!(matches!(items.last(), Some(JinjaItem::TrimmedEnd)), "{src:?}");
        }
        // Text after it that renders is the end.
        let items = jinja_lex("{% raw %}a{% endraw %}\n", false);
        assert!(matches!(items.last(), Some(JinjaItem::Data(d)) if d.range == (22..23)));
        // A raw block right after another is still read as one.
        let raws = jinja_lex("{% raw %}a{% endraw -%} {% raw %}b{% endraw %}", false)
            .into_iter()
            .filter(|i| matches!(i, JinjaItem::Raw(..)))
            .count();
        assert_eq!(raws, 2);
    }

    #[test]
    fn kept_newlines_follow_whitespace_control() {
        let src = "a\n{% if x %}\nb\n{{ y -}}\n\nc \n {%- endif %}\n{# c +#}\nd\n";
        let kept: Vec<usize> = kept_newlines(src, &jinja_data(src));
        let expected: Vec<usize> = vec![1, 14, 50, 52];
        assert_eq!(kept, expected, "{:?}", kept.iter().map(|&k| &src[..k]).collect::<Vec<_>>());
    }
}
