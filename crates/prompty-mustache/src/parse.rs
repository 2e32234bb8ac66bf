//! From tokens to a tree: pairs opening and closing tags, applies the
//! standalone-line rules, and builds the nodes.
//!
//! Standalone rule: a line whose only content is whitespace and tags that may
//! stand alone (everything except interpolation) loses its indentation and
//! its line ending. Partials and parents on such a line keep the removed
//! indentation to prefix every line they render. One exception: a block
//! (outside a parent tag) opened and closed on the same line is a placeholder
//! for inline content, so its line is kept as written.

use crate::ast::{BlockDef, DelimiterChange, Inner, Name, Node, Span};
use crate::error::{Error, ErrorKind};
use crate::scan::{OpenKind, TokKind, Token, tokenize};

/// Limits applied while compiling a template.
///
/// ```
/// use prompty_mustache::{CompileOptions, ErrorKind, Template};
///
/// let options = CompileOptions::default().with_max_nesting(2);
/// let err = Template::compile_with("{{#a}}{{#b}}{{#c}}{{/c}}{{/b}}{{/a}}", &options).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::NestingTooDeep);
/// assert_eq!(err.span(), 12..18);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompileOptions {
    /// How deeply sections, inverted sections, blocks and parents may nest in
    /// one template ([`ErrorKind::NestingTooDeep`]). Default: 100. Values
    /// above 512 count as 512, the depth at which rendering stops anyway.
    pub max_nesting: usize,
}

impl CompileOptions {
    /// Default for [`max_nesting`](Self::max_nesting).
    pub const DEFAULT_MAX_NESTING: usize = 100;

    /// Sets [`max_nesting`](Self::max_nesting).
    #[must_use]
    pub fn with_max_nesting(mut self, max_nesting: usize) -> Self {
        self.max_nesting = max_nesting;
        self
    }
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions { max_nesting: Self::DEFAULT_MAX_NESTING }
    }
}

/// Per-token facts worked out before the tree is built.
#[derive(Debug, Clone, Default)]
struct Meta {
    /// For open tags, the index of the matching close tag.
    pair: Option<usize>,
    /// For block open tags: is the block an argument of a parent tag?
    in_parent: bool,
    /// Text removed because its line is standalone.
    removed: bool,
    /// For tags on a standalone line: that line's leading whitespace.
    indent: Option<Span>,
    /// For block open tags: the block's indentation.
    block_indent: Span,
}

pub(crate) fn compile(source: &str, options: &CompileOptions) -> Result<Inner, Error> {
    let tokens = split_lines(source, tokenize(source)?);
    let mut meta = vec![Meta::default(); tokens.len()];
    pair_tags(source, &tokens, &mut meta, options.max_nesting.min(crate::render::MAX_RECURSION))?;
    let newlines: Vec<usize> = source.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i).collect();
    mark_standalone(source, &tokens, &mut meta, &newlines);
    build(source, &tokens, &meta)
}

/// Splits text tokens after every `\n`, so that each text token lies within
/// one line and a line ends with the text token holding its `\n`.
fn split_lines(source: &str, tokens: Vec<Token>) -> Vec<Token> {
    let mut out = Vec::with_capacity(tokens.len());
    for tok in tokens {
        if tok.kind != TokKind::Text {
            out.push(tok);
            continue;
        }
        let text = source.get(tok.span.range()).unwrap_or("");
        let mut start = tok.span.start;
        for piece in text.split_inclusive('\n') {
            out.push(Token { kind: TokKind::Text, span: Span::new(start, start + piece.len()) });
            start += piece.len();
        }
    }
    out
}

fn tag_text(source: &str, span: Span) -> &str {
    source.get(span.range()).unwrap_or("")
}

/// Matches open and close tags, checking names and nesting depth.
fn pair_tags(source: &str, tokens: &[Token], meta: &mut [Meta], max_nesting: usize) -> Result<(), Error> {
    // (token index, kind, name) of every open tag not yet closed.
    let mut stack: Vec<(usize, OpenKind, Name)> = Vec::new();
    for (i, tok) in tokens.iter().enumerate() {
        match tok.kind {
            TokKind::Open { kind, name } => {
                if stack.len() >= max_nesting {
                    return Err(Error::new(
                        ErrorKind::NestingTooDeep,
                        tok.span.range(),
                        format!(
                            "nesting too deep: `{}` opens more than {max_nesting} nested \
                             sections, blocks or parents",
                            tag_text(source, tok.span)
                        ),
                    ));
                }
                if kind == OpenKind::Block
                    && let Some(m) = meta.get_mut(i)
                {
                    m.in_parent = matches!(stack.last(), Some((_, OpenKind::Parent, _)));
                }
                stack.push((i, kind, name));
            }
            TokKind::Close { name } => {
                let closing = tag_text(source, name.span);
                let star = if name.dynamic { "*" } else { "" };
                let Some((open_idx, kind, open_name)) = stack.pop() else {
                    return Err(Error::new(
                        ErrorKind::UnexpectedClosingTag,
                        tok.span.range(),
                        format!(
                            "unexpected closing tag `{}`: nothing named `{star}{closing}` is open",
                            tag_text(source, tok.span)
                        ),
                    ));
                };
                let opening = tag_text(source, open_name.span);
                if open_name.dynamic != name.dynamic || opening != closing {
                    let open_star = if open_name.dynamic { "*" } else { "" };
                    let open_at = tokens.get(open_idx).map_or(0, |t| t.span.start);
                    return Err(Error::new(
                        ErrorKind::MismatchedClosingTag,
                        tok.span.range(),
                        format!(
                            "mismatched closing tag: found `{star}{closing}` but the open {} \
                             is `{open_star}{opening}` (opened at byte {open_at})",
                            kind.noun()
                        ),
                    ));
                }
                if let Some(m) = meta.get_mut(open_idx) {
                    m.pair = Some(i);
                }
            }
            _ => {}
        }
    }
    if let Some((open_idx, kind, name)) = stack.pop() {
        let span = tokens.get(open_idx).map(|t| t.span).unwrap_or_default();
        let star = if name.dynamic { "*" } else { "" };
        return Err(Error::new(
            ErrorKind::UnclosedSection,
            span.range(),
            format!(
                "unclosed {}: `{}` has no closing tag `/{star}{}`",
                kind.noun(),
                tag_text(source, span),
                tag_text(source, name.span)
            ),
        ));
    }
    Ok(())
}

fn is_blank(s: &str) -> bool {
    s.bytes().all(|b| b == b' ' || b == b'\t')
}

/// Length of the leading spaces and tabs of `s`.
fn leading_blank(s: &str) -> usize {
    s.bytes().take_while(|&b| b == b' ' || b == b'\t').count()
}

/// Text without its line ending (`\n` or `\r\n`), if it has one.
fn without_newline(s: &str) -> &str {
    match s.strip_suffix('\n') {
        Some(rest) => rest.strip_suffix('\r').unwrap_or(rest),
        None => s,
    }
}

fn mark_standalone(source: &str, tokens: &[Token], meta: &mut [Meta], newlines: &[usize]) {
    let mut line_start = 0;
    while line_start < tokens.len() {
        // The line runs up to and including the text token holding its `\n`.
        let mut line_end = line_start;
        while let Some(tok) = tokens.get(line_end) {
            line_end += 1;
            if tok.kind == TokKind::Text && tag_text(source, tok.span).ends_with('\n') {
                break;
            }
        }
        mark_line(source, tokens, meta, newlines, line_start, line_end);
        line_start = line_end;
    }
}

/// Applies the standalone rule to tokens `start..end` (one line).
fn mark_line(source: &str, tokens: &[Token], meta: &mut [Meta], newlines: &[usize], start: usize, end: usize) {
    let line = tokens.get(start..end).unwrap_or(&[]);
    let mut has_tag = false;
    let mut standalone = true;
    for tok in line {
        match tok.kind {
            TokKind::Text => {
                if !is_blank(without_newline(tag_text(source, tok.span))) {
                    standalone = false;
                }
            }
            kind if kind.can_stand_alone() => has_tag = true,
            _ => standalone = false,
        }
    }
    for (offset, tok) in line.iter().enumerate() {
        if let TokKind::Open { kind: OpenKind::Block, .. } = tok.kind {
            let Some(m) = meta.get(start + offset) else {
                continue;
            };
            if !m.in_parent && m.pair.is_some_and(|p| p < end) {
                standalone = false;
            }
        }
    }
    let standalone = standalone && has_tag;

    let indent = match line.first() {
        Some(tok) if standalone && tok.kind == TokKind::Text => tok.span,
        Some(tok) => Span::new(tok.span.start, tok.span.start),
        None => Span::default(),
    };
    let line_end = line.last().map_or(source.len(), |t| t.span.end);
    for (offset, tok) in line.iter().enumerate() {
        let Some(m) = meta.get_mut(start + offset) else {
            continue;
        };
        match tok.kind {
            TokKind::Text => m.removed = standalone,
            TokKind::Open { kind: OpenKind::Block, .. } => {
                m.block_indent = if standalone {
                    // The indentation of the block's first line of content.
                    let rest = source.get(line_end..).unwrap_or("");
                    Span::new(line_end, line_end + leading_blank(rest))
                } else {
                    // The indentation of the line the tag is on.
                    let idx = newlines.partition_point(|&n| n < tok.span.start);
                    let from = match idx.checked_sub(1).and_then(|i| newlines.get(i)) {
                        Some(&n) => n + 1,
                        None => 0,
                    };
                    let text = source.get(from..tok.span.start).unwrap_or("");
                    Span::new(from, from + leading_blank(text))
                };
            }
            _ if standalone => m.indent = Some(indent),
            _ => {}
        }
    }
}

/// A container being filled while walking the tokens.
enum Frame {
    Root,
    Section { name: Name, inverted: bool, tag: Span },
    Parent { name: Name, tag: Span, indent: Option<Span>, args: Vec<usize> },
    Block { name: Name, tag: Span, indent: Span },
}

fn push_node(frame: &mut (Frame, Vec<Node>), node: Node) {
    match (&mut frame.0, node) {
        // Inside a parent tag only blocks matter; everything else is ignored.
        (Frame::Parent { args, .. }, Node::Block { index }) => args.push(index),
        (Frame::Parent { .. }, _) => {}
        (_, Node::Text { span, starts_line }) => match frame.1.last_mut() {
            Some(Node::Text { span: last, .. }) if last.end == span.start => last.end = span.end,
            _ => frame.1.push(Node::Text { span, starts_line }),
        },
        (_, node) => frame.1.push(node),
    }
}

fn build(source: &str, tokens: &[Token], meta: &[Meta]) -> Result<Inner, Error> {
    let mut blocks: Vec<BlockDef> = Vec::new();
    let delimiters = tokens
        .iter()
        .filter_map(|t| match t.kind {
            TokKind::SetDelimiters { open, close } => Some(DelimiterChange { at: t.span.end, open, close }),
            _ => None,
        })
        .collect();
    let mut stack: Vec<(Frame, Vec<Node>)> = vec![(Frame::Root, Vec::new())];
    let bytes = source.as_bytes();
    for (i, tok) in tokens.iter().enumerate() {
        let m = meta.get(i).cloned().unwrap_or_default();
        let node = match tok.kind {
            TokKind::Text if m.removed => None,
            TokKind::Text => {
                let starts_line = match tok.span.start.checked_sub(1) {
                    None => true,
                    Some(prev) => bytes.get(prev) == Some(&b'\n'),
                };
                Some(Node::Text { span: tok.span, starts_line })
            }
            TokKind::Var { name, escape } => Some(Node::Var { name, escape, tag: tok.span }),
            TokKind::Partial { name } => Some(Node::Partial { name, tag: tok.span, indent: m.indent }),
            TokKind::Comment | TokKind::SetDelimiters { .. } => None,
            TokKind::Open { kind, name } => {
                let frame = match kind {
                    OpenKind::Section | OpenKind::Inverted => {
                        Frame::Section { name, inverted: kind == OpenKind::Inverted, tag: tok.span }
                    }
                    OpenKind::Parent => Frame::Parent { name, tag: tok.span, indent: m.indent, args: Vec::new() },
                    OpenKind::Block => Frame::Block { name, tag: tok.span, indent: m.block_indent },
                };
                stack.push((frame, Vec::new()));
                None
            }
            TokKind::Close { .. } => {
                let Some((frame, body)) = stack.pop() else {
                    return Err(Error::new(
                        ErrorKind::UnexpectedClosingTag,
                        tok.span.range(),
                        "unexpected closing tag",
                    ));
                };
                match frame {
                    Frame::Root => {
                        return Err(Error::new(
                            ErrorKind::UnexpectedClosingTag,
                            tok.span.range(),
                            "unexpected closing tag",
                        ));
                    }
                    Frame::Section { name, inverted, tag } => Some(Node::Section { name, inverted, tag, body }),
                    Frame::Parent { name, tag, indent, args } => Some(Node::Parent { name, tag, indent, args }),
                    Frame::Block { name, tag, indent } => {
                        blocks.push(BlockDef { name: name.span, tag, indent, body });
                        Some(Node::Block { index: blocks.len() - 1 })
                    }
                }
            }
        };
        if let (Some(node), Some(frame)) = (node, stack.last_mut()) {
            push_node(frame, node);
        }
    }
    let nodes = match stack.pop() {
        Some((Frame::Root, nodes)) if stack.is_empty() => nodes,
        _ => {
            return Err(Error::new(ErrorKind::UnclosedSection, source.len()..source.len(), "unclosed section"));
        }
    };
    Ok(Inner { source: source.to_owned(), nodes, blocks, delimiters })
}
