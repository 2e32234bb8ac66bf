//! How deeply a template nests, measured by a linear scan before any recursive parser
//! gets that deep: over the whole template first, or (a Jinja template the renderer
//! compiles) token by token as minijinja's parser reads them, stopping the parse at the
//! first token past the limit.
//!
//! minijinja's parser and code generator, and the handlebars parser, recurse once per
//! level of nesting: `{{ not not ... 1 }}`, `{{ q|upper|upper... }}`, `{{ q.a.a... }}`,
//! `{{ q()()... }}` or `(concat (concat ...` thirty thousand levels deep overflow the
//! stack and abort the process. The scan here counts, for every position, an upper
//! bound of the depth of the tree the parser would build there, and refuses the
//! template at the first position deeper than the limit.
//!
//! Jinja2 is read from minijinja's own tokenizer (which does not recurse), so the scan sees
//! the tokens the parser will. Every open block statement (`if`, `for`, `macro`,
//! `call`, `with`, `filter`, `autoescape`, `block`, a `set` block) adds one level; within
//! one tag, every chained operator (`~`, `+`, `and`, `not`, `|`, `.`, `is`, `if`, ...)
//! and every postfix call or subscript adds one, every bracket opens one more, and a
//! comma or colon starts a sibling at the same level.
//!
//! Handlebars is scanned byte by byte: each open block (`{{#...}}`), each chained
//! `{{else if ...}}` and each subexpression or literal bracket inside a tag counts one.

use std::ops::Range;

use minijinja::machinery::Token;

/// A position nested deeper than the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TooDeep {
    /// Where in the body the limit was crossed.
    pub(crate) span: Range<usize>,
    /// What nests there, for the message.
    pub(crate) what: &'static str,
}

/// What the Jinja scan learned besides the depth.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct JinjaFacts {
    /// The template may keep values between expressions in a way that can build up
    /// (assignments, namespaces, macros, call blocks, recursive loops, loops over built
    /// values): the value-growth check has to read it.
    pub(crate) keeps_values: bool,
}

/// Words that combine or modify operands, each a level of the expression tree.
const JINJA_OPERATOR_WORDS: &[&str] = &["not", "and", "or", "is", "in", "if", "else"];

/// Block tags that bind values.
const JINJA_BINDING_TAGS: &[&str] = &["set", "with", "macro", "call"];

/// Block tags that open a body (`set` does too when it has no `=`).
const JINJA_OPENING_TAGS: &[&str] = &["if", "for", "macro", "call", "with", "filter", "autoescape", "block"];

/// Block tags that close a body.
const JINJA_CLOSING_TAGS: &[&str] =
    &["endif", "endfor", "endmacro", "endcall", "endwith", "endfilter", "endautoescape", "endblock", "endset"];

/// A lexical item of a Jinja tag, as far as depth is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'s> {
    /// `{{` or `{%`.
    Start {
        block: bool,
    },
    /// `}}` or `%}`.
    End,
    Word(&'s str),
    /// A string or number literal.
    Literal,
    /// `(`, `[` or `{`.
    Open {
        brace: bool,
    },
    /// `)`, `]` or `}`.
    Close,
    /// `,`, `:` or `=`.
    Sep {
        assign: bool,
    },
    /// An operator; `repeats` for `+` and `*`, which may repeat what a loop builds.
    Op {
        repeats: bool,
    },
}

/// The depth count over a stream of [`Tok`]s; see the module documentation.
#[derive(Default)]
struct Depth {
    facts: JinjaFacts,
    /// Open block statements.
    blocks: usize,
    /// One counter per open bracket in the current tag, and their sum.
    levels: Vec<usize>,
    sum: usize,
    /// Whether the previous item ends an operand (so `(` or `[` is a call or subscript).
    after_operand: bool,
    /// The current block tag: where it starts, its first word, and whether it has an `=`.
    tag_start: usize,
    first_word: bool,
    tag_word: &'static str,
    assigns: bool,
    /// The deepest level seen, for tests.
    #[cfg(test)]
    deepest: usize,
}

impl Depth {
    /// Counts one item at `span`; `Err` once deeper than `max`.
    fn push(&mut self, tok: Tok<'_>, span: Range<usize>, max: usize) -> Result<(), TooDeep> {
        let mut deeper = false;
        match tok {
            Tok::Start { block } => {
                self.levels.clear();
                self.levels.push(0);
                self.sum = 0;
                self.after_operand = false;
                self.first_word = block;
                self.tag_word = "";
                self.assigns = false;
                self.tag_start = span.start;
                return Ok(());
            }
            Tok::End => {
                self.levels.clear();
                self.sum = 0;
                if self.first_word || self.tag_word.is_empty() {
                    return Ok(());
                }
                if JINJA_OPENING_TAGS.contains(&self.tag_word) || (self.tag_word == "set" && !self.assigns) {
                    self.blocks += 1;
                    #[cfg(test)]
                    {
                        self.deepest = self.deepest.max(self.blocks);
                    }
                    if self.blocks > max {
                        return Err(TooDeep { span: self.tag_start..span.end, what: "block" });
                    }
                }
                self.tag_word = "";
                return Ok(());
            }
            Tok::Word(word) if self.first_word => {
                self.tag_word = tag_word(word);
                self.facts.keeps_values |= JINJA_BINDING_TAGS.contains(&word);
                if JINJA_CLOSING_TAGS.contains(&word) {
                    self.blocks = self.blocks.saturating_sub(1);
                }
                self.after_operand = true;
            }
            Tok::Word(word) => {
                if word == "namespace" || word == "recursive" {
                    self.facts.keeps_values = true;
                }
                deeper = JINJA_OPERATOR_WORDS.contains(&word);
                self.after_operand = !deeper;
            }
            Tok::Literal => self.after_operand = true,
            Tok::Open { brace } => {
                // A loop over a literal, a call or a computed value may repeat what it builds.
                self.facts.keeps_values |= self.tag_word == "for";
                if self.after_operand && !brace {
                    // A call or subscript wraps everything before it.
                    if let Some(top) = self.levels.last_mut() {
                        *top += 1;
                        self.sum += 1;
                    }
                }
                self.levels.push(0);
                self.after_operand = false;
            }
            Tok::Close => {
                if self.levels.len() > 1 {
                    self.sum -= self.levels.pop().unwrap_or(0);
                }
                self.after_operand = true;
            }
            Tok::Sep { assign } => {
                self.assigns |= assign;
                if let Some(top) = self.levels.last_mut() {
                    self.sum -= *top;
                    *top = 0;
                }
                self.after_operand = false;
            }
            Tok::Op { repeats } => {
                self.facts.keeps_values |= repeats && self.tag_word == "for";
                deeper = true;
                self.after_operand = false;
            }
        }
        self.first_word = false;
        if deeper && let Some(top) = self.levels.last_mut() {
            *top += 1;
            self.sum += 1;
        }
        let depth = self.blocks + self.levels.len() + self.sum;
        #[cfg(test)]
        {
            self.deepest = self.deepest.max(depth);
        }
        if depth > max {
            return Err(TooDeep { span, what: "expression" });
        }
        Ok(())
    }
}

/// A block tag's first word as [`Depth`] keeps it: the keyword when it opens a body
/// (`set` included), `?` for any other word.
fn tag_word(word: &str) -> &'static str {
    if word == "set" {
        return "set";
    }
    JINJA_OPENING_TAGS.iter().find(|w| **w == word).copied().unwrap_or("?")
}

/// Scans a Jinja body; see the module documentation. Comments, raw blocks and template text
/// are the tokenizer's to skip; a body it cannot lex is counted up to the error (where the
/// parser stops too).
pub(crate) fn scan_jinja(body: &str, max: usize) -> Result<JinjaFacts, TooDeep> {
    let mut depth = Depth::default();
    lex_jinja(body, &mut |tok, span| depth.push(tok, span, max))?;
    Ok(depth.facts)
}

/// Feeds the depth items of every tag of `body` to `f`, from minijinja's own tokenizer (the
/// tokens its parser reads; the tokenizer does not recurse). Scanning stops at the first
/// token minijinja cannot lex: the parser stops there too.
fn lex_jinja<'s>(
    body: &'s str,
    f: &mut impl FnMut(Tok<'s>, Range<usize>) -> Result<(), TooDeep>,
) -> Result<(), TooDeep> {
    for item in minijinja::machinery::tokenize(body, false, prompty_jinja::syntax(false)) {
        let Ok((token, span)) = item else { break };
        if let Some(tok) = tok_of(&token) {
            f(tok, range_of(span))?;
        }
    }
    Ok(())
}

fn range_of(span: minijinja::machinery::Span) -> Range<usize> {
    let start = span.start_offset as usize;
    start..(span.end_offset as usize).max(start)
}

/// The depth item of a token (none for template text).
fn tok_of<'s>(token: &Token<'s>) -> Option<Tok<'s>> {
    Some(match *token {
        Token::VariableStart => Tok::Start { block: false },
        Token::BlockStart => Tok::Start { block: true },
        Token::VariableEnd | Token::BlockEnd => Tok::End,
        Token::TemplateData(_) => return None,
        Token::Ident(w) => Tok::Word(w),
        Token::Str(_) | Token::String(_) | Token::Int(_) | Token::Int128(_) | Token::Float(_) => Tok::Literal,
        Token::ParenOpen | Token::BracketOpen => Tok::Open { brace: false },
        Token::BraceOpen => Tok::Open { brace: true },
        Token::ParenClose | Token::BracketClose | Token::BraceClose => Tok::Close,
        Token::Comma | Token::Colon => Tok::Sep { assign: false },
        Token::Assign => Tok::Sep { assign: true },
        Token::Plus | Token::Mul => Tok::Op { repeats: true },
        Token::Minus
        | Token::Div
        | Token::FloorDiv
        | Token::Pow
        | Token::Mod
        | Token::Dot
        | Token::Tilde
        | Token::Pipe
        | Token::Eq
        | Token::Ne
        | Token::Gt
        | Token::Gte
        | Token::Lt
        | Token::Lte => Tok::Op { repeats: false },
    })
}

/// The Jinja scan fed one token at a time, by a caller that reads the tokens anyway: the
/// compile's own parser hands them over (`crate::compile`), so the template is tokenized
/// once for the engine, the layout and the scan, and the scan stops the parse before it
/// recurses past the limit.
pub(crate) struct JinjaDepth {
    depth: Depth,
    max: usize,
    deep: Option<TooDeep>,
}

impl JinjaDepth {
    pub(crate) fn new(max: usize) -> Self {
        Self { depth: Depth::default(), max, deep: None }
    }

    pub(crate) fn token(&mut self, token: &Token<'_>, span: minijinja::machinery::Span) {
        if self.deep.is_none()
            && let Some(tok) = tok_of(token)
            && let Err(e) = self.depth.push(tok, range_of(span), self.max)
        {
            self.deep = Some(e);
        }
    }

    /// Whether the tokens given so far nest deeper than the limit.
    pub(crate) fn is_deep(&self) -> bool {
        self.deep.is_some()
    }

    /// What [`scan_jinja`] would have returned for the tokens given.
    pub(crate) fn finish(self) -> Result<JinjaFacts, TooDeep> {
        match self.deep {
            Some(e) => Err(e),
            None => Ok(self.depth.facts),
        }
    }
}

/// Scans a Handlebars body; see the module documentation.
pub(crate) fn scan_handlebars(body: &str, max: usize) -> Result<(), TooDeep> {
    let bytes = body.as_bytes();
    // Open blocks, each with the number of `{{else x}}` chains inside it.
    let mut blocks: Vec<usize> = Vec::new();
    let mut block_depth = 0usize;
    let mut pos = 0usize;
    while let Some(found) = find(bytes, b"{{", pos) {
        // `\{{` is literal text; two or more backslashes are text before a real tag.
        let escaped =
            found >= 1 && bytes.get(found - 1) == Some(&b'\\') && (found < 2 || bytes.get(found - 2) != Some(&b'\\'));
        if escaped {
            pos = found + 2;
            continue;
        }
        let rest = &bytes[found..];
        if rest.starts_with(b"{{{{") {
            // A raw block: nothing inside is parsed.
            let Some(open_end) = find(bytes, b"}}}}", found + 4) else { return Ok(()) };
            if rest.get(4) == Some(&b'/') {
                pos = open_end + 4;
                continue;
            }
            match find(bytes, b"{{{{/", open_end + 4) {
                Some(close) => pos = find(bytes, b"}}}}", close + 5).map_or(bytes.len(), |e| e + 4),
                None => return Ok(()),
            }
            continue;
        }
        if rest.starts_with(b"{{!--") {
            pos = find(bytes, b"--}}", found + 5).map_or(bytes.len(), |e| e + 4);
            continue;
        }
        if rest.starts_with(b"{{!") {
            pos = find(bytes, b"}}", found + 3).map_or(bytes.len(), |e| e + 2);
            continue;
        }
        // The tag's kind comes after `{{`, an optional `{`, `~` and blanks.
        let mut i = found + 2;
        while matches!(bytes.get(i), Some(b'{' | b'~' | b' ' | b'\t' | b'\r' | b'\n')) {
            i += 1;
        }
        let (end, deepest) = scan_tag(bytes, i);
        let tag = found..end.min(bytes.len());
        match bytes.get(i) {
            Some(b'#') => {
                blocks.push(0);
                block_depth += 1;
                if block_depth + deepest > max {
                    return Err(TooDeep { span: tag, what: "block" });
                }
            }
            Some(b'/') => {
                if let Some(chains) = blocks.pop() {
                    block_depth -= 1 + chains;
                }
            }
            Some(b'^') | Some(b'e') if is_chain(bytes, i) => {
                // `{{else if x}}` nests the rest of the block one level deeper.
                if let Some(chains) = blocks.last_mut() {
                    *chains += 1;
                    block_depth += 1;
                }
                if block_depth + deepest > max {
                    return Err(TooDeep { span: tag, what: "block" });
                }
            }
            _ => {
                if block_depth + deepest > max {
                    return Err(TooDeep { span: tag, what: "expression" });
                }
            }
        }
        pos = end;
    }
    Ok(())
}

/// Whether the tag at `i` (just after `{{`) is an `{{else x ...}}` or `{{^x ...}}` chain
/// rather than a plain `{{else}}` or `{{^}}`.
fn is_chain(bytes: &[u8], i: usize) -> bool {
    let after = match bytes.get(i) {
        Some(b'^') => i + 1,
        _ if bytes.get(i..).is_some_and(|r| r.starts_with(b"else")) => {
            // `elsewhere` is a name, not `else`.
            let next = bytes.get(i + 4).copied().unwrap_or(b'}');
            if next.is_ascii_alphanumeric() || matches!(next, b'-' | b'_' | b'$' | b':') {
                return false;
            }
            i + 4
        }
        _ => return false,
    };
    let mut j = after;
    while matches!(bytes.get(j), Some(b' ' | b'\t' | b'\r' | b'\n' | b'~')) {
        j += 1;
    }
    !matches!(bytes.get(j), None | Some(b'}'))
}

/// The offset after the string literal whose opening quote is at `i` (backslash escapes
/// skipped), or past the end when it is not closed.
fn after_string(b: &[u8], mut i: usize) -> usize {
    let quote = b.get(i).copied();
    i += 1;
    while let Some(&c) = b.get(i) {
        i += if c == b'\\' { 2 } else { 1 };
        if Some(c) == quote {
            break;
        }
    }
    i
}

/// Scans one tag from `i` to its closing `}}` (outside string literals). Returns the
/// offset after the tag and the deepest bracket nesting inside it.
fn scan_tag(bytes: &[u8], mut i: usize) -> (usize, usize) {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'}' if bytes.get(i + 1) == Some(&b'}') => return (i + 2, deepest),
            b'"' | b'\'' => {
                i = after_string(bytes, i);
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    (bytes.len(), deepest)
}

/// The first occurrence of `needle` (not empty) in `hay` at or after `from`.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut at = from;
    loop {
        at += memchr::memchr(first, hay.get(at..)?)?;
        if hay.get(at + 1..at + 1 + rest.len()) == Some(rest) {
            return Some(at);
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word a block tag keeps (`tag_word`) answers every question the scan asks of it
    /// as the word itself did.
    #[test]
    fn kept_tag_words_answer_as_the_words_did() {
        let mut words: Vec<&str> = vec!["set", "for", "x", "settings", "format", "include", "endif"];
        words.extend(JINJA_OPENING_TAGS);
        words.extend(JINJA_CLOSING_TAGS);
        words.extend(JINJA_BINDING_TAGS);
        for w in words {
            let kept = tag_word(w);
            assert_eq!(JINJA_OPENING_TAGS.contains(&kept), JINJA_OPENING_TAGS.contains(&w), "{w}");
            assert_eq!(kept == "set", w == "set", "{w}");
            assert_eq!(kept == "for", w == "for", "{w}");
            assert_eq!(kept.is_empty(), w.is_empty(), "{w}");
        }
    }

    fn jinja_depth_ok(body: &str, max: usize) -> bool {
        scan_jinja(body, max).is_ok()
    }

    #[test]
    fn jinja_chains_count_one_level_each() {
        for (body, depth) in [
            ("{{ q }}", 1),
            ("{{ not not q }}", 3),
            ("{{ q.a.b }}", 3),
            ("{{ q|upper|lower }}", 3),
            ("{{ a ~ b ~ c }}", 3),
            ("{{ q()() }}", 4),
            ("{{ f(a.b.c, d) }}", 5),
            ("{{ [1, 2, 3] }}", 2),
            ("{{ ((1)) }}", 3),
            ("{% for x in y %}{{ x }}{% endfor %}", 2),
            ("{% if a %}{% if b %}{% if c %}x{% endif %}{% endif %}{% endif %}{% if d %}{% endif %}", 3),
            ("{% set x %}{% if a %}{{ y }}{% endif %}{% endset %}{% set z = 1 %}{% if b %}{% endif %}", 3),
            ("{% macro m(a) %}{% for x in a %}{{ x }}{% endfor %}{% endmacro %}", 3),
        ] {
            assert!(jinja_depth_ok(body, depth), "{body} fits in {depth}");
            assert!(!jinja_depth_ok(body, depth - 1), "{body} is deeper than {}", depth - 1);
        }
    }

    #[test]
    fn jinja_strings_comments_and_raw_blocks_do_not_count() {
        let deep = "not ".repeat(500);
        for body in [
            format!("{{{{ '{deep}' }}}}"),
            format!("{{# {deep} #}}"),
            format!("{{% raw %}}{{{{ {deep} }}}}{{% endraw %}}"),
            format!("text {deep} text"),
        ] {
            assert!(jinja_depth_ok(&body, 10), "{body}");
        }
    }

    #[test]
    fn jinja_facts_flag_value_keeping_constructs() {
        let keeps = |body: &str| scan_jinja(body, 100).map(|f| f.keeps_values);
        assert_eq!(keeps("{{ q }}{% for m in messages %}{{ m }}{% endfor %}"), Ok(false));
        assert_eq!(keeps("{% set x = 1 %}"), Ok(true));
        assert_eq!(keeps("{% for i in range(3) %}{% endfor %}"), Ok(true));
        assert_eq!(keeps("{% for i in a + b %}{% endfor %}"), Ok(true));
        assert_eq!(keeps("{% macro m() %}{% endmacro %}"), Ok(true));
        assert_eq!(keeps("{{ namespace(x=1) }}"), Ok(true));
    }

    #[test]
    fn handlebars_blocks_chains_and_subexpressions() {
        let ok = |body: &str, max: usize| scan_handlebars(body, max).is_ok();
        let ifs = format!("{}x{}", "{{#if a}}".repeat(3), "{{/if}}".repeat(3));
        assert!(ok(&ifs, 3) && !ok(&ifs, 2));
        let chain = "{{#if a}}x{{else if b}}y{{else if c}}z{{else}}w{{/if}}{{#if d}}{{/if}}";
        assert!(ok(chain, 3) && !ok(chain, 2));
        let sub = "{{#if a}}{{f (g (h x))}}{{/if}}";
        assert!(ok(sub, 3) && !ok(sub, 2));
        assert!(ok("{{elsewhere}}{{else}}{{^}}", 0));
        // Comments, raw blocks, escapes and strings are not parsed as nesting.
        let deep = "{{#if a}}".repeat(50);
        for body in [
            format!("{{{{!-- {deep} --}}}}"),
            format!("{{{{{{{{raw}}}}}}}}{deep}{{{{{{{{/raw}}}}}}}}"),
            deep.replace("{{", "\\{{"),
            format!("{{{{f \"{}\"}}}}", "(".repeat(50)),
        ] {
            assert!(ok(&body, 1), "{body}");
        }
        assert_eq!(scan_handlebars("ab{{#if x}}", 0).map_err(|e| e.span), Err(2..11));
    }
}
