//! The compiled form of a template.

use std::ops::Range;

/// A byte range in a template source (a `Copy` stand-in for `Range<usize>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Span {
    pub(crate) fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    pub(crate) fn range(self) -> Range<usize> {
        self.start..self.end
    }
}

/// A tag name: its location in the source, and whether it was written
/// `*name` (a dynamic name, resolved against the data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Name {
    pub(crate) span: Span,
    pub(crate) dynamic: bool,
}

#[derive(Debug)]
pub(crate) enum Node {
    /// Literal text. `starts_line` is true when the text begins a source line.
    Text { span: Span, starts_line: bool },
    /// `{{x}}` (`escape`), `{{{x}}}` or `{{& x}}`.
    Var { name: Name, escape: bool, tag: Span },
    /// `{{#x}}...{{/x}}` or `{{^x}}...{{/x}}`.
    Section { name: Name, inverted: bool, tag: Span, body: Vec<Node> },
    /// `{{>x}}`; `indent` is set when the tag stands alone on its line.
    Partial { name: Name, tag: Span, indent: Option<Span> },
    /// `{{<x}}...{{/x}}`; `args` index the template's blocks.
    Parent { name: Name, tag: Span, indent: Option<Span>, args: Vec<usize> },
    /// `{{$x}}...{{/x}}`, by index into the template's blocks.
    Block { index: usize },
}

impl Node {
    /// The span reported when rendering this node fails.
    pub(crate) fn span(&self, blocks: &[BlockDef]) -> Span {
        match self {
            Node::Text { span, .. } => *span,
            Node::Var { tag, .. }
            | Node::Section { tag, .. }
            | Node::Partial { tag, .. }
            | Node::Parent { tag, .. } => *tag,
            Node::Block { index } => blocks.get(*index).map(|b| b.tag).unwrap_or_default(),
        }
    }
}

/// A `{{$name}}` block: a parameter of its template (default content) and,
/// inside a parent tag, an argument to the parent.
#[derive(Debug)]
pub(crate) struct BlockDef {
    pub(crate) name: Span,
    pub(crate) tag: Span,
    /// The block's own indentation: removed from an argument's lines, and
    /// added to the lines of whatever content replaces the block.
    pub(crate) indent: Span,
    pub(crate) body: Vec<Node>,
}

/// A compiled template: its source and the tree that points into it.
#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) source: String,
    pub(crate) nodes: Vec<Node>,
    pub(crate) blocks: Vec<BlockDef>,
    /// The set-delimiter tags, in source order.
    pub(crate) delimiters: Vec<DelimiterChange>,
}

/// A set-delimiter tag: where it ends and the delimiters it sets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DelimiterChange {
    pub(crate) at: usize,
    pub(crate) open: Span,
    pub(crate) close: Span,
}

impl Inner {
    /// The source text under `span` (empty if the span is out of range).
    pub(crate) fn slice(&self, span: Span) -> &str {
        self.source.get(span.start..span.end).unwrap_or("")
    }

    /// The name of block `index`, if it exists.
    pub(crate) fn block_name(&self, index: usize) -> Option<&str> {
        self.blocks.get(index).map(|b| self.slice(b.name))
    }
}
