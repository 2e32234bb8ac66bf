//! The renderer: walks a compiled template against JSON data.

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::Value;

use crate::Partials;
use crate::ast::{Inner, Name, Node, Span};
use crate::error::{Error, ErrorKind};
use crate::parse;

/// Limits applied while rendering. Each one, when hit, ends rendering with an
/// [`Error`] instead of running away.
///
/// ```
/// use prompty_mustache::RenderOptions;
///
/// let options = RenderOptions::default().with_max_output(1024).with_max_depth(10);
/// assert_eq!(options.max_output, 1024);
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RenderOptions {
    /// How deeply partials, parents and block substitutions may nest
    /// ([`ErrorKind::DepthLimitExceeded`]). Default: 100.
    pub max_depth: usize,
    /// The largest output, in bytes ([`ErrorKind::OutputLimitExceeded`]).
    /// Default: 64 MiB.
    pub max_output: usize,
    /// How many steps one render may take ([`ErrorKind::StepLimitExceeded`]):
    /// one for every template node visited and one for every time a section
    /// body runs (once per item of a list), so that sections over long lists
    /// are counted even when their body is empty. Guards against templates
    /// whose work grows much faster than their output. Default: 50 million.
    pub max_steps: u64,
    /// How an interpolated value that is not a string prints, when the caller
    /// wants another form than this crate's (numbers as `serde_json` writes
    /// them, `true`/`false`, arrays and objects as compact JSON). Strings
    /// always print as they are and missing names as nothing. Default: `None`.
    pub display: Option<fn(&Value) -> String>,
    /// Whether an empty object is falsey, as in Python (`bool({})`), instead
    /// of truthy as the spec's `!!data` rule makes it. Default: `false`.
    pub empty_object_falsey: bool,
}

impl RenderOptions {
    /// Default for [`max_depth`](Self::max_depth).
    pub const DEFAULT_MAX_DEPTH: usize = 100;
    /// Default for [`max_output`](Self::max_output): 64 MiB.
    pub const DEFAULT_MAX_OUTPUT: usize = 64 * 1024 * 1024;
    /// Default for [`max_steps`](Self::max_steps).
    pub const DEFAULT_MAX_STEPS: u64 = 50_000_000;

    /// Sets [`max_depth`](Self::max_depth).
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Sets [`max_output`](Self::max_output), in bytes.
    #[must_use]
    pub fn with_max_output(mut self, max_output: usize) -> Self {
        self.max_output = max_output;
        self
    }

    /// Sets [`max_steps`](Self::max_steps).
    #[must_use]
    pub fn with_max_steps(mut self, max_steps: u64) -> Self {
        self.max_steps = max_steps;
        self
    }

    /// Sets [`display`](Self::display).
    #[must_use]
    pub fn with_display(mut self, display: fn(&Value) -> String) -> Self {
        self.display = Some(display);
        self
    }

    /// Sets [`empty_object_falsey`](Self::empty_object_falsey).
    #[must_use]
    pub fn with_empty_object_falsey(mut self, falsey: bool) -> Self {
        self.empty_object_falsey = falsey;
        self
    }
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_output: Self::DEFAULT_MAX_OUTPUT,
            max_steps: Self::DEFAULT_MAX_STEPS,
            display: None,
            empty_object_falsey: false,
        }
    }
}

/// Hard cap on recursive descents (sections, partials, parents, blocks),
/// whatever the options say, so that rendering never exhausts the stack.
pub(crate) const MAX_RECURSION: usize = 512;

/// A block argument passed down by a parent tag.
#[derive(Clone)]
struct Override {
    tmpl: Arc<Inner>,
    /// Partial name of `tmpl`, for error messages (`None`: the root).
    origin: Option<Rc<str>>,
    block: usize,
}

impl Override {
    fn name(&self) -> Option<&str> {
        self.tmpl.block_name(self.block)
    }
}

/// Everything that changes when rendering enters another template or block.
struct Frame<'f> {
    tmpl: &'f Arc<Inner>,
    /// Partial name of `tmpl` (`None`: the root template).
    name: Option<&'f str>,
    /// Prefix for every output line that starts from template text.
    indent: &'f str,
    /// Indentation removed from the start of source lines (block arguments).
    dedent: &'f str,
    /// Block arguments in force; the first one with a given name wins.
    overrides: &'f [Override],
}

struct Renderer<'d, 'p> {
    partials: &'p dyn Partials,
    options: RenderOptions,
    cache: HashMap<String, Option<Arc<Inner>>>,
    out: String,
    stack: Vec<&'d Value>,
    /// The output is at the start of a line (as far as indentation goes).
    at_line_start: bool,
    depth: usize,
    recursion: usize,
    steps: u64,
}

pub(crate) fn render(
    root: &Arc<Inner>,
    data: &Value,
    partials: &dyn Partials,
    options: &RenderOptions,
) -> Result<String, Error> {
    let mut renderer = Renderer {
        partials,
        options: *options,
        cache: HashMap::new(),
        out: String::new(),
        stack: vec![data],
        at_line_start: true,
        depth: 0,
        recursion: 0,
        steps: 0,
    };
    let frame = Frame { tmpl: root, name: None, indent: "", dedent: "", overrides: &[] };
    renderer.nodes(&root.nodes, &frame)?;
    Ok(renderer.out)
}

/// The value under `key` in an object, or at index `key` in an array.
fn child<'d>(value: &'d Value, key: &str) -> Option<&'d Value> {
    match value {
        Value::Object(map) => map.get(key),
        Value::Array(items) if !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()) => {
            key.parse::<usize>().ok().and_then(|i| items.get(i))
        }
        _ => None,
    }
}

/// Mustache truthiness: `null`, `false`, `0`, `""` and `[]` are falsey.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(_) => true,
    }
}

/// How a value prints: strings as is, numbers as `serde_json` writes them,
/// `null` as nothing, arrays and objects as compact JSON.
fn display(value: &Value) -> Cow<'_, str> {
    match value {
        Value::Null => Cow::Borrowed(""),
        Value::String(s) => Cow::Borrowed(s),
        Value::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Value::Number(n) => Cow::Owned(n.to_string()),
        Value::Array(_) | Value::Object(_) => Cow::Owned(serde_json::to_string(value).unwrap_or_default()),
    }
}

/// Escapes `&`, `"`, `<` and `>` (the set the Mustache spec requires).
fn escape_html(s: &str) -> Cow<'_, str> {
    if !s.contains(['&', '"', '<', '>']) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + s.len() / 4);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `line` without as much of `prefix` as it starts with.
fn strip_indent<'a>(line: &'a str, prefix: &str) -> &'a str {
    let common = line.bytes().zip(prefix.bytes()).take_while(|(a, b)| a == b).count();
    // Indentation is ASCII blanks, so `common` is a char boundary; fall back
    // to the whole line if it is not.
    line.get(common..).unwrap_or(line)
}

impl<'d> Renderer<'d, '_> {
    fn error(&self, kind: ErrorKind, span: Span, frame: &Frame<'_>, message: String) -> Error {
        Error::new(kind, span.range(), message).in_partial(frame.name)
    }

    fn push(&mut self, s: &str, span: Span, frame: &Frame<'_>) -> Result<(), Error> {
        if self.out.len().saturating_add(s.len()) > self.options.max_output {
            return Err(self.error(
                ErrorKind::OutputLimitExceeded,
                span,
                frame,
                format!("output limit exceeded: the rendered text would exceed {} bytes", self.options.max_output),
            ));
        }
        self.out.push_str(s);
        Ok(())
    }

    /// Writes `s`, indenting it if it starts a line (empty lines stay empty).
    fn emit(&mut self, s: &str, span: Span, frame: &Frame<'_>) -> Result<(), Error> {
        if s.is_empty() {
            return Ok(());
        }
        let blank_line = s.starts_with('\n') || s.starts_with("\r\n");
        if self.at_line_start && !frame.indent.is_empty() && !blank_line {
            self.push(frame.indent, span, frame)?;
        }
        self.push(s, span, frame)
    }

    fn text(&mut self, span: Span, starts_line: bool, frame: &Frame<'_>) -> Result<(), Error> {
        let text = frame.tmpl.slice(span);
        let mut line_start = starts_line;
        for piece in text.split_inclusive('\n') {
            let piece = if line_start && !frame.dedent.is_empty() { strip_indent(piece, frame.dedent) } else { piece };
            if !piece.is_empty() {
                self.emit(piece, span, frame)?;
                self.at_line_start = piece.ends_with('\n');
            }
            line_start = true;
        }
        Ok(())
    }

    fn value(&mut self, s: &str, span: Span, frame: &Frame<'_>) -> Result<(), Error> {
        if !s.is_empty() {
            self.emit(s, span, frame)?;
            self.at_line_start = false;
        }
        Ok(())
    }

    /// Resolves a name against the context stack.
    fn lookup(&self, path: &str) -> Option<&'d Value> {
        if path == "." {
            return self.stack.last().copied();
        }
        let mut parts = path.split('.');
        let first = parts.next()?;
        let mut current = self.stack.iter().rev().find_map(|v| child(v, first))?;
        for part in parts {
            current = child(current, part)?;
        }
        Some(current)
    }

    /// Runs `body` one recursion level deeper.
    fn descend(
        &mut self,
        span: Span,
        frame: &Frame<'_>,
        body: impl FnOnce(&mut Self) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if self.recursion >= MAX_RECURSION {
            return Err(self.error(
                ErrorKind::DepthLimitExceeded,
                span,
                frame,
                format!(
                    "depth limit exceeded: sections, partials and blocks nest more than \
                     {MAX_RECURSION} levels deep"
                ),
            ));
        }
        self.recursion += 1;
        let result = body(self);
        self.recursion -= 1;
        result
    }

    /// Runs `body` one partial/parent/block level deeper.
    fn expand(
        &mut self,
        span: Span,
        frame: &Frame<'_>,
        (kind, name): (&str, &str),
        body: impl FnOnce(&mut Self) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if self.depth >= self.options.max_depth {
            return Err(self.error(
                ErrorKind::DepthLimitExceeded,
                span,
                frame,
                format!(
                    "depth limit exceeded: expanding {kind} `{name}` would nest partials, \
                     parents and blocks more than {} levels deep (unbounded recursion?)",
                    self.options.max_depth
                ),
            ));
        }
        self.depth += 1;
        let result = self.descend(span, frame, body);
        self.depth -= 1;
        result
    }

    fn nodes(&mut self, nodes: &[Node], frame: &Frame<'_>) -> Result<(), Error> {
        for node in nodes {
            self.node(node, frame)?;
        }
        Ok(())
    }

    /// Counts one step of work against [`RenderOptions::max_steps`].
    fn step(&mut self, span: Span, frame: &Frame<'_>) -> Result<(), Error> {
        self.steps += 1;
        if self.steps > self.options.max_steps {
            return Err(self.error(
                ErrorKind::StepLimitExceeded,
                span,
                frame,
                format!(
                    "step limit exceeded: rendering took more than {} steps (template nodes visited \
                     and section bodies run)",
                    self.options.max_steps
                ),
            ));
        }
        Ok(())
    }

    fn node(&mut self, node: &Node, frame: &Frame<'_>) -> Result<(), Error> {
        self.step(node.span(&frame.tmpl.blocks), frame)?;
        match node {
            Node::Text { span, starts_line } => self.text(*span, *starts_line, frame),
            Node::Var { name, escape, tag } => {
                let Some(value) = self.lookup(frame.tmpl.slice(name.span)) else {
                    return Ok(());
                };
                let shown = match (value, self.options.display) {
                    (Value::String(_), _) | (_, None) => display(value),
                    (_, Some(show)) => Cow::Owned(show(value)),
                };
                if *escape { self.value(&escape_html(&shown), *tag, frame) } else { self.value(&shown, *tag, frame) }
            }
            Node::Section { name, inverted, tag, body } => {
                let value = self.lookup(frame.tmpl.slice(name.span));
                if *inverted {
                    if !value.is_some_and(|v| self.truthy(v)) {
                        self.descend(*tag, frame, |r| r.nodes(body, frame))?;
                    }
                    return Ok(());
                }
                match value {
                    Some(Value::Array(items)) => {
                        for item in items {
                            self.section_body(item, body, *tag, frame)?;
                        }
                        Ok(())
                    }
                    Some(value) if self.truthy(value) => self.section_body(value, body, *tag, frame),
                    _ => Ok(()),
                }
            }
            Node::Partial { name, tag, indent } => self.include(("partial", *name), *tag, *indent, &[], frame),
            Node::Parent { name, tag, indent, args } => self.include(("parent", *name), *tag, *indent, args, frame),
            Node::Block { index } => self.block(*index, frame),
        }
    }

    /// [`truthy`], with an empty object falsey when the options say so.
    fn truthy(&self, value: &Value) -> bool {
        match value {
            Value::Object(map) if self.options.empty_object_falsey => !map.is_empty(),
            other => truthy(other),
        }
    }

    fn section_body(&mut self, value: &'d Value, body: &[Node], tag: Span, frame: &Frame<'_>) -> Result<(), Error> {
        // Counted here as well as per node: a section over a long list with an
        // empty body visits no node, yet runs once per item.
        self.step(tag, frame)?;
        self.stack.push(value);
        let result = self.descend(tag, frame, |r| r.nodes(body, frame));
        self.stack.pop();
        result
    }

    /// Compiles (once per render) and returns the named partial, if any.
    fn load(&mut self, name: &str) -> Result<Option<Arc<Inner>>, Error> {
        if let Some(cached) = self.cache.get(name) {
            return Ok(cached.clone());
        }
        let compiled = match self.partials.get(name) {
            Some(source) => Some(Arc::new(
                parse::compile(source, &parse::CompileOptions::default()).map_err(|e| e.in_partial(Some(name)))?,
            )),
            None => None,
        };
        self.cache.insert(name.to_owned(), compiled.clone());
        Ok(compiled)
    }

    /// Renders a partial (`args` empty) or a parent with its block arguments.
    fn include(
        &mut self,
        (kind, name): (&str, Name),
        tag: Span,
        indent: Option<Span>,
        args: &[usize],
        frame: &Frame<'_>,
    ) -> Result<(), Error> {
        let written = frame.tmpl.slice(name.span);
        let resolved: Cow<'_, str> = if name.dynamic {
            match self.lookup(written) {
                Some(value) => display(value),
                None => return Ok(()),
            }
        } else {
            Cow::Borrowed(written)
        };
        if resolved.is_empty() {
            return Ok(());
        }
        let Some(tmpl) = self.load(&resolved)? else {
            return Ok(());
        };

        let mut overrides = frame.overrides.to_vec();
        if !args.is_empty() {
            let origin: Option<Rc<str>> = frame.name.map(Rc::from);
            for &arg in args {
                let Some(arg_name) = frame.tmpl.block_name(arg) else {
                    continue;
                };
                if !overrides.iter().any(|o| o.name() == Some(arg_name)) {
                    overrides.push(Override { tmpl: Arc::clone(frame.tmpl), origin: origin.clone(), block: arg });
                }
            }
        }
        let extra = indent.map_or("", |s| strip_indent(frame.tmpl.slice(s), frame.dedent));
        let indent = [frame.indent, extra].concat();
        let inner = Frame { tmpl: &tmpl, name: Some(&resolved), indent: &indent, dedent: "", overrides: &overrides };
        self.expand(tag, frame, (kind, &resolved), |r| r.nodes(&tmpl.nodes, &inner))
    }

    /// Renders block `index` of the current template: its default content, or
    /// the argument a parent tag passed for it.
    fn block(&mut self, index: usize, frame: &Frame<'_>) -> Result<(), Error> {
        let Some(block) = frame.tmpl.blocks.get(index) else {
            return Ok(());
        };
        let name = frame.tmpl.slice(block.name);
        let Some(arg) = frame.overrides.iter().find(|o| o.name() == Some(name)) else {
            return self.descend(block.tag, frame, |r| r.nodes(&block.body, frame));
        };
        let Some(arg_block) = arg.tmpl.blocks.get(arg.block) else {
            return Ok(());
        };
        let extra = strip_indent(frame.tmpl.slice(block.indent), frame.dedent);
        let indent = [frame.indent, extra].concat();
        let inner = Frame {
            tmpl: &arg.tmpl,
            name: arg.origin.as_deref(),
            indent: &indent,
            dedent: arg.tmpl.slice(arg_block.indent),
            overrides: frame.overrides,
        };
        self.expand(block.tag, frame, ("block", name), |r| r.nodes(&arg_block.body, &inner))
    }
}
