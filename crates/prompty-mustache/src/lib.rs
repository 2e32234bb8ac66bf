//! A Mustache template engine for `.prompty` files.
//!
//! Templates are compiled once into a tree whose tags keep their byte spans
//! in the source (for diagnostics), then rendered any number of times against
//! [`serde_json::Value`] data.
//!
//! ```
//! use prompty_mustache::{NoPartials, Template};
//! use serde_json::json;
//!
//! let template = Template::compile("Hello {{name}}!{{#items}} {{.}}{{/items}}")?;
//! let data = json!({"name": "World", "items": ["a", "b"]});
//! assert_eq!(template.render(&data, &NoPartials)?, "Hello World! a b");
//! # Ok::<(), prompty_mustache::Error>(())
//! ```
//!
//! # Language
//!
//! The engine follows the [Mustache spec](https://github.com/mustache/spec)
//! v1.4: interpolation, sections, inverted sections, comments, partials and
//! set-delimiter tags, plus the optional inheritance (`{{<parent}}`,
//! `{{$block}}`) and dynamic-name (`{{>*name}}`) modules. Lambdas do not
//! exist, since the data is plain JSON.
//!
//! - `{{name}}` HTML-escapes `&`, `"`, `<` and `>`; `{{{name}}}` and
//!   `{{& name}}` insert the value as is. Prompts usually want the raw forms;
//!   [`Variable::escapes_html`] lets a linter point this out.
//! - Names are looked up through the context stack; `a.b.c` resolves `a`
//!   there and then `b` and `c` inside it only. A dotted part that is all
//!   digits also indexes arrays (`items.0`). `{{.}}` is the current item.
//! - Falsey values, which skip `{{#x}}` and show `{{^x}}`, follow the spec's
//!   `!!data` rule: `null`, `false`, `0`, `""` and `[]`. Objects are truthy,
//!   even empty ones. Arrays repeat a section once per item.
//! - Values print as: strings as is, numbers as `serde_json` writes them
//!   (`85`, `1.21`), booleans as `true`/`false`, `null` and missing names as
//!   nothing, arrays and objects as compact JSON.
//! - Tags other than interpolations that stand alone on a line take the whole
//!   line with them; a standalone partial or parent indents every line it
//!   renders (empty lines excepted) by the tag's indentation.
//! - Missing partials render as nothing. Partials are compiled with the
//!   default delimiters the first time a render needs them.
//! - A sigil may follow whitespace (`{{ #items }}` opens a section). Names
//!   must not contain whitespace or empty dotted parts; such tags are
//!   compile errors rather than silent misses.
//!
//! # Inheritance
//!
//! `{{<layout}}...{{/layout}}` renders the partial `layout`, replacing each
//! of its `{{$name}}...{{/name}}` blocks with the block of the same name
//! given inside the tag; anything else inside the tag is ignored. Arguments
//! given further out win over those given further in, so the top-level
//! template has the last word in multi-level inheritance. An argument renders
//! in the data context of the block it replaces.
//!
//! Block arguments are re-indented: the argument's own indentation (that of
//! its first content line when its opening tag stands alone, otherwise that
//! of its tag's line) is removed from each of its lines, and the indentation
//! of the replaced block is added. A block opened and closed on one line
//! (outside a parent tag) is inline content and never makes its line
//! standalone.
//!
//! # Limits
//!
//! Nothing a template or its data contains can panic the engine or hang it.
//! Sections, blocks and parents nest at most 100 deep in one template
//! (checked at compile time, [`CompileOptions`]); [`RenderOptions`] caps
//! partial/parent/block nesting, output size and the work done while
//! rendering (every node visited and every run of a section body counts, so
//! nested sections over long lists stop even when they print nothing); and
//! rendering never recurses more than 512 levels (sections included)
//! whatever the options say. Each limit ends in an [`Error`] with a span.

mod ast;
mod error;
mod parse;
mod partials;
mod render;
mod scan;

use std::ops::Range;
use std::sync::Arc;

use serde_json::Value;

pub use crate::error::{Error, ErrorKind};
pub use crate::parse::CompileOptions;
pub use crate::partials::{NoPartials, Partials};
pub use crate::render::RenderOptions;

use crate::ast::{Inner, Node};

/// A compiled Mustache template.
///
/// Cheap to clone (the tree is shared), and `Send + Sync`: one template can
/// render on many threads at once.
#[derive(Debug, Clone)]
pub struct Template {
    inner: Arc<Inner>,
}

impl Template {
    /// Parses `source` into a template.
    ///
    /// Fails on malformed tags: unclosed tags or sections, closing tags that
    /// do not match, bad set-delimiter tags, empty or malformed names, and
    /// sections nested more than 100 deep. The error's
    /// [`span`](Error::span) points at the offending tag.
    ///
    /// ```
    /// use prompty_mustache::{ErrorKind, Template};
    ///
    /// let err = Template::compile("{{#items}}{{.}}{{/item}}").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::MismatchedClosingTag);
    /// assert_eq!(err.span(), 15..24);
    /// ```
    pub fn compile(source: &str) -> Result<Template, Error> {
        Self::compile_with(source, &CompileOptions::default())
    }

    /// Parses `source` into a template with the given limits; see
    /// [`compile`](Self::compile).
    pub fn compile_with(source: &str, options: &CompileOptions) -> Result<Template, Error> {
        Ok(Template { inner: Arc::new(parse::compile(source, options)?) })
    }

    /// The source the template was compiled from.
    pub fn source(&self) -> &str {
        &self.inner.source
    }

    /// Renders the template against `data` with the default
    /// [`RenderOptions`].
    ///
    /// Fails only when a partial does not compile or a limit is hit; missing
    /// names and partials render as nothing.
    pub fn render(&self, data: &Value, partials: &dyn Partials) -> Result<String, Error> {
        self.render_with(data, partials, &RenderOptions::default())
    }

    /// Renders the template against `data` with the given limits.
    ///
    /// ```
    /// use prompty_mustache::{ErrorKind, NoPartials, RenderOptions, Template};
    /// use serde_json::json;
    ///
    /// let template = Template::compile("{{#items}}{{.}}{{/items}}")?;
    /// let options = RenderOptions::default().with_max_output(4);
    /// let err = template
    ///     .render_with(&json!({"items": ["ab", "cd", "ef"]}), &NoPartials, &options)
    ///     .unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::OutputLimitExceeded);
    /// # Ok::<(), prompty_mustache::Error>(())
    /// ```
    pub fn render_with(&self, data: &Value, partials: &dyn Partials, options: &RenderOptions) -> Result<String, Error> {
        render::render(&self.inner, data, partials, options)
    }

    /// The data names the template refers to, in source order: every
    /// interpolation, section and inverted section tag, and the names behind
    /// dynamic partials (`{{>*name}}`). The implicit iterator `{{.}}` is not
    /// a name and is left out, as is anything inside a parent tag but outside
    /// its blocks (which never renders).
    ///
    /// ```
    /// use prompty_mustache::{Template, VariableKind};
    ///
    /// let template = Template::compile("{{name}} {{{bio}}}{{#items}}{{title}}{{/items}}")?;
    /// let vars = template.variables();
    /// let names: Vec<_> = vars.iter().map(|v| v.name).collect();
    /// assert_eq!(names, ["name", "bio", "items", "title"]);
    /// assert!(vars[0].escapes_html());
    /// assert_eq!(vars[1].kind, VariableKind::Unescaped);
    /// assert_eq!(vars[3].section_depth, 1);
    /// assert_eq!(vars[0].span, 0..8);
    /// # Ok::<(), prompty_mustache::Error>(())
    /// ```
    pub fn variables(&self) -> Vec<Variable<'_>> {
        let mut out = Vec::new();
        collect_variables(&self.inner, &self.inner.nodes, 0, &mut out);
        out
    }

    /// The literal text of the template: each run of source text it writes as written, in
    /// source order (tags, comments and standalone lines left out), with the delimiters in
    /// effect there. Runs inside sections, blocks and parent arguments are included.
    ///
    /// ```
    /// use prompty_mustache::Template;
    ///
    /// let template = Template::compile("a {{x}} b\n{{! note }}c\n{{#s}}\nd\n{{/s}}\n{{=<% %>=}}e")?;
    /// let runs: Vec<_> = template.literals().iter().map(|l| &template.source()[l.span.clone()]).collect();
    /// assert_eq!(runs, ["a ", " b\n", "c\n", "d\n", "e"]);
    /// let literals = template.literals();
    /// assert!(literals[0].follows_previous && !literals[1].follows_previous && literals[2].follows_previous);
    /// assert_eq!(literals[4].delimiters, ("<%", "%>"));
    /// # Ok::<(), prompty_mustache::Error>(())
    /// ```
    pub fn literals(&self) -> Vec<Literal<'_>> {
        let mut out = Vec::new();
        collect_literals(&self.inner, &self.inner.nodes, true, &mut out);
        out.sort_by_key(|l| l.span.start);
        out
    }
}

/// A run of literal text; see [`Template::literals`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Literal<'a> {
    /// Byte range of the text in the source.
    pub span: Range<usize>,
    /// Whether the text renders right after the previous run with nothing in between (only
    /// comments, set-delimiter tags or standalone lines lie between them), or, for the
    /// template's first output, at the very start.
    pub follows_previous: bool,
    /// The open and close delimiters in effect where the text is.
    pub delimiters: (&'a str, &'a str),
}

fn collect_literals<'a>(inner: &'a Inner, nodes: &'a [Node], at_start: bool, out: &mut Vec<Literal<'a>>) {
    let mut follows = at_start;
    for node in nodes {
        match node {
            Node::Text { span, .. } => {
                let change = inner.delimiters.iter().take_while(|d| d.at <= span.start).last();
                let delimiters = change.map_or(("{{", "}}"), |d| (inner.slice(d.open), inner.slice(d.close)));
                out.push(Literal { span: span.range(), follows_previous: follows, delimiters });
                follows = true;
                continue;
            }
            Node::Var { .. } | Node::Partial { .. } => {}
            Node::Section { body, .. } => collect_literals(inner, body, false, out),
            Node::Parent { args, .. } => {
                for &index in args {
                    if let Some(block) = inner.blocks.get(index) {
                        collect_literals(inner, &block.body, false, out);
                    }
                }
            }
            Node::Block { index } => {
                if let Some(block) = inner.blocks.get(*index) {
                    collect_literals(inner, &block.body, false, out);
                }
            }
        }
        follows = false;
    }
}

/// How a tag uses the name it refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VariableKind {
    /// `{{name}}`: inserted with `&`, `"`, `<`, `>` HTML-escaped.
    Escaped,
    /// `{{{name}}}` or `{{& name}}`: inserted as is.
    Unescaped,
    /// `{{#name}}`: a section.
    Section,
    /// `{{^name}}`: an inverted section.
    InvertedSection,
    /// `{{>*name}}` or `{{<*name}}`: the value names a partial.
    DynamicName,
}

/// A data name referenced by a template; see [`Template::variables`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Variable<'a> {
    /// The name as written, dots included (`user.name`), without `*`.
    pub name: &'a str,
    /// Byte range of the whole tag, delimiters included.
    pub span: Range<usize>,
    /// Byte range of the name alone.
    pub name_span: Range<usize>,
    /// The kind of tag.
    pub kind: VariableKind,
    /// How many enclosing `{{#section}}`s push a context around the tag.
    /// At depth 0 the name resolves against the root data (unless the
    /// template is used as a partial); deeper, its first part may come from
    /// a section's value instead.
    pub section_depth: usize,
}

impl Variable<'_> {
    /// True for `{{name}}`, which HTML-escapes the value.
    pub fn escapes_html(&self) -> bool {
        self.kind == VariableKind::Escaped
    }

    /// The first part of a dotted name (`user` for `user.name`).
    pub fn root(&self) -> &str {
        self.name.split('.').next().unwrap_or(self.name)
    }
}

fn push_variable<'a>(
    inner: &'a Inner,
    name: ast::Name,
    tag: ast::Span,
    kind: VariableKind,
    depth: usize,
    out: &mut Vec<Variable<'a>>,
) {
    let text = inner.slice(name.span);
    if text != "." {
        out.push(Variable { name: text, span: tag.range(), name_span: name.span.range(), kind, section_depth: depth });
    }
}

fn collect_variables<'a>(inner: &'a Inner, nodes: &'a [Node], depth: usize, out: &mut Vec<Variable<'a>>) {
    for node in nodes {
        match node {
            Node::Text { .. } => {}
            Node::Var { name, escape, tag } => {
                let kind = if *escape { VariableKind::Escaped } else { VariableKind::Unescaped };
                push_variable(inner, *name, *tag, kind, depth, out);
            }
            Node::Section { name, inverted, tag, body } => {
                let kind = if *inverted { VariableKind::InvertedSection } else { VariableKind::Section };
                push_variable(inner, *name, *tag, kind, depth, out);
                let body_depth = if *inverted { depth } else { depth + 1 };
                collect_variables(inner, body, body_depth, out);
            }
            Node::Partial { name, tag, .. } => {
                if name.dynamic {
                    push_variable(inner, *name, *tag, VariableKind::DynamicName, depth, out);
                }
            }
            Node::Parent { name, tag, args, .. } => {
                if name.dynamic {
                    push_variable(inner, *name, *tag, VariableKind::DynamicName, depth, out);
                }
                for &index in args {
                    if let Some(block) = inner.blocks.get(index) {
                        collect_variables(inner, &block.body, depth, out);
                    }
                }
            }
            Node::Block { index } => {
                if let Some(block) = inner.blocks.get(*index) {
                    collect_variables(inner, &block.body, depth, out);
                }
            }
        }
    }
}
