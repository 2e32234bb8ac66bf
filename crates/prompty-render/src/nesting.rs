//! How deeply a template nests, measured by a linear scan before any recursive parser
//! reads it.
//!
//! minijinja's parser and code generator, and the handlebars parser, recurse once per
//! level of nesting: `{{ not not ... 1 }}`, `{{ q|upper|upper... }}`, `{{ q.a.a... }}`,
//! `{{ q()()... }}` or `(concat (concat ...` thirty thousand levels deep overflow the
//! stack and abort the process. The scan here counts, for every position, an upper
//! bound of the depth of the tree the parser would build there, and refuses the
//! template at the first position deeper than the limit.
//!
//! Jinja2 reads minijinja's own tokens (so strings, comments and raw blocks are skipped
//! exactly as the parser skips them). Every open block statement (`if`, `for`, `macro`,
//! `call`, `with`, `filter`, `autoescape`, `block`, a `set` block) adds one level; within
//! one tag, every chained operator (`~`, `+`, `and`, `not`, `|`, `.`, `is`, `if`, ...)
//! and every postfix call or subscript adds one, every bracket opens one more, and a
//! comma or colon starts a sibling at the same level.
//!
//! Handlebars is scanned byte by byte: each open block (`{{#...}}`), each chained
//! `{{else if ...}}` and each subexpression or literal bracket inside a tag counts one.

use std::ops::Range;

use minijinja::machinery::{Token, tokenize};
use minijinja::syntax::SyntaxConfig;

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

/// Scans a Jinja body; see the module documentation. Tokenizer errors end the scan
/// quietly: the parser reports them with its own message.
pub(crate) fn scan_jinja(body: &str, syntax: SyntaxConfig, max: usize) -> Result<JinjaFacts, TooDeep> {
    let mut facts = JinjaFacts::default();
    // Open block statements.
    let mut blocks = 0usize;
    // One counter per open bracket in the current tag, and their sum.
    let mut levels: Vec<usize> = Vec::new();
    let mut sum = 0usize;
    // Whether the previous token ends an operand (so `(` or `[` is a call or subscript).
    let mut after_operand = false;
    // The current block tag: where it starts, its first word, and whether it has an `=`.
    let mut tag_start = 0usize;
    let mut first_word = false;
    let mut tag_word = "";
    let mut assigns = false;
    for item in tokenize(body, false, syntax) {
        let Ok((token, span)) = item else { break };
        let start = span.start_offset as usize;
        let end = (span.end_offset as usize).max(start);
        let mut deeper = false;
        match token {
            Token::VariableStart | Token::BlockStart => {
                levels.clear();
                levels.push(0);
                sum = 0;
                after_operand = false;
                first_word = matches!(token, Token::BlockStart);
                tag_word = "";
                assigns = false;
                tag_start = start;
                continue;
            }
            Token::VariableEnd => {
                levels.clear();
                sum = 0;
                continue;
            }
            Token::BlockEnd => {
                levels.clear();
                sum = 0;
                if JINJA_OPENING_TAGS.contains(&tag_word) || (tag_word == "set" && !assigns) {
                    blocks += 1;
                    if blocks > max {
                        return Err(TooDeep { span: tag_start..end, what: "block" });
                    }
                }
                continue;
            }
            Token::TemplateData(_) => continue,
            Token::Ident(word) if first_word => {
                tag_word = word;
                facts.keeps_values |= JINJA_BINDING_TAGS.contains(&word);
                if JINJA_CLOSING_TAGS.contains(&word) {
                    blocks = blocks.saturating_sub(1);
                }
                after_operand = true;
            }
            Token::Ident(word) => {
                if word == "namespace" || word == "recursive" {
                    facts.keeps_values = true;
                }
                if JINJA_OPERATOR_WORDS.contains(&word) {
                    deeper = true;
                    after_operand = false;
                } else {
                    after_operand = true;
                }
            }
            Token::Str(_) | Token::String(_) | Token::Int(_) | Token::Int128(_) | Token::Float(_) => {
                after_operand = true;
            }
            Token::ParenOpen | Token::BracketOpen | Token::BraceOpen => {
                // A loop over a literal, a call or a computed value may repeat what it builds.
                facts.keeps_values |= tag_word == "for";
                if after_operand && !matches!(token, Token::BraceOpen) {
                    // A call or subscript wraps everything before it.
                    if let Some(top) = levels.last_mut() {
                        *top += 1;
                        sum += 1;
                    }
                }
                levels.push(0);
                after_operand = false;
            }
            Token::ParenClose | Token::BracketClose | Token::BraceClose => {
                if levels.len() > 1 {
                    sum -= levels.pop().unwrap_or(0);
                }
                after_operand = true;
            }
            Token::Comma | Token::Colon | Token::Assign => {
                assigns |= matches!(token, Token::Assign);
                if let Some(top) = levels.last_mut() {
                    sum -= *top;
                    *top = 0;
                }
                after_operand = false;
            }
            Token::Plus | Token::Mul => {
                facts.keeps_values |= tag_word == "for";
                deeper = true;
                after_operand = false;
            }
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
            | Token::Lte => {
                deeper = true;
                after_operand = false;
            }
        }
        first_word = false;
        if deeper && let Some(top) = levels.last_mut() {
            *top += 1;
            sum += 1;
        }
        if blocks + levels.len() + sum > max {
            return Err(TooDeep { span: start..end, what: "expression" });
        }
    }
    Ok(facts)
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

/// Scans one tag from `i` to its closing `}}` (outside string literals). Returns the
/// offset after the tag and the deepest bracket nesting inside it.
fn scan_tag(bytes: &[u8], mut i: usize) -> (usize, usize) {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'}' if bytes.get(i + 1) == Some(&b'}') => return (i + 2, deepest),
            b'"' | b'\'' => {
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    if c == b'\\' {
                        i += 2;
                        continue;
                    }
                    if c == b {
                        break;
                    }
                    i += 1;
                }
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

/// The first occurrence of `needle` in `hay` at or after `from`.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jinja_depth_ok(body: &str, max: usize) -> bool {
        scan_jinja(body, SyntaxConfig::default(), max).is_ok()
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
        let keeps = |body: &str| scan_jinja(body, SyntaxConfig::default(), 100).map(|f| f.keeps_values);
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
