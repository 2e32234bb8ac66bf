//! Where the Handlebars format follows handlebars.js rather than the handlebars crate.
//!
//! The body is rewritten before the crate parses it, and the compiled template adjusted
//! before it is registered:
//!
//! * a path with a named part after its first name (`l.length`, `s.[0]`, `../o.a.b`) reads
//!   its parts as handlebars.js does: a list has its length and its numbered items, a string
//!   its length and its characters (UTF-16 code units, as JavaScript counts them), an object
//!   its keys, and anything else nothing. The crate stops with a render error at a named part
//!   of a list. The first name is still resolved by the crate (block parameters, `../`,
//!   `@root`, the current context), the parts after it by a helper;
//! * `lookup` reads its key the same way (`lookup l "length"`, `lookup s 0`, `lookup o 1`);
//! * `.` alone as a path (`{{.}}`, `{{~.~}}`, `{{#each .}}`, `lookup . "k"`) is the current
//!   context, as `this` is. The crate's grammar has no such path: before it parses the body,
//!   each such `.` inside a tag becomes a one-byte name the body uses nowhere as a name alone
//!   (so that every position in the body stays where it was, for error messages), and that
//!   name becomes the current context again in the compiled template;
//! * a comment with whitespace control (`{{~! c ~}}`, a syntax error in the crate) has its
//!   `~` moved inside it before the crate parses the body, and the whitespace on the side of
//!   each `~` is stripped from the compiled template's text;
//! * the whitespace a raw block's body starts with, which the crate's grammar skips, is put
//!   back;
//! * a path that climbs with `../` past the root is nothing, as in handlebars.js (the crate
//!   falls back to the innermost context);
//! * `#if` and `#unless` of an empty object render as handlebars.js does (any object is true
//!   in JavaScript; the crate calls an empty one false);
//! * `@root` alone is the root of the inputs (the crate reads it as a variable named `root`);
//! * a string literal alone in a tag (`{{"name"}}`, a syntax error in the crate) is a name, as
//!   handlebars.js reads it: written as a key in brackets (`{{[name]}}`), the same length.
//!
//! Every rewrite of the body keeps its length, so that error positions stay right; the
//! template's own text (its raw strings, where role lines are found and marked) is only
//! changed where handlebars.js's output differs.

use std::borrow::Cow;
use std::collections::HashMap;

use handlebars::template::{BlockParam, HelperTemplate, Parameter, Subexpression, Template, TemplateElement};
use handlebars::{
    Context, Handlebars, Helper, HelperDef, Path, PathSeg, RenderContext, RenderError, RenderErrorReason, ScopedJson,
};
use serde_json::Value as Json;

/// The helper that tells whether a value is true for `#if` as handlebars.js tells it.
const TRUTHY_HELPER: &str = "__prompty_truthy";

/// The helper that reads the parts of a path after its first name.
const MEMBER_HELPER: &str = "__prompty_member";

/// Adjusts the template registered as `name` (see the module documentation) and registers
/// the helpers it calls.
pub(crate) fn adapt(hb: &mut Handlebars<'static>, name: &str, written: &Written) {
    if let Some(template) = hb.get_template(name) {
        let mut adapted = template.clone();
        restore_paths(&mut adapted, &Paths::new(written));
        if !written.raws.is_empty() || !written.comments.is_empty() {
            restore_text(&mut adapted, written);
        }
        let mut params = Vec::new();
        block_params(&adapted, &mut params);
        rewrite_template(&mut adapted, &Scope { nested: false, depth: Some(0), block_params: &params });
        hb.register_template(name, adapted);
    }
    hb.register_helper(MEMBER_HELPER, Box::new(MemberHelper));
    hb.register_helper("lookup", Box::new(LookupHelper));
    hb.register_helper(TRUTHY_HELPER, Box::new(TruthyHelper));
}

/// The helpers a name alone can call (`{{log}}`): such a name is left to the crate.
const HELPER_NAMES: &[&str] = &[
    "if",
    "unless",
    "each",
    "with",
    "lookup",
    "raw",
    "log",
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "and",
    "or",
    "not",
    "len",
    "lowerCamelCase",
    "upperCamelCase",
    "snakeCase",
    "kebabCase",
    "shoutySnakeCase",
    "shoutyKebabCase",
    "titleCase",
    "trainCase",
];

/// What a rewrite knows about where it is.
struct Scope<'a> {
    /// Inside a body whose context may be something else than the inputs object (the body of
    /// `#each`, `#with`, a partial block or an inline partial): a name alone is read as a part
    /// of the context too.
    nested: bool,
    /// How many enclosing bodies push a context (`#each`, `#with`): how far `../` can reach.
    /// Unknown inside partials.
    depth: Option<usize>,
    /// Every block parameter the template declares: a name that may be one is left to the
    /// crate, which resolves block parameters.
    block_params: &'a [String],
}

/// The bytes that may follow a `.` that is a path of its own.
const DOT_FOLLOWS: &[u8] = b"}~) \t\r\n";
/// The bytes that may come before it.
const DOT_FOLLOWS_ON: &[u8] = b"{~#^&>( \t\r\n=";
/// The one-byte names that may stand for `.`, in order of preference.
const DOT_NAMES: &[u8] = b"$_QZXJKVWYqzxjkvwyBCDFGHLMNPRSTbcdfghlmnprstAEIOUaeiou";

/// A byte of a name in the crate's grammar (ASCII letters and digits, `-`, `_`, `$`, `:`,
/// and any byte of a character past ASCII).
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'$' | b':') || b >= 0x80
}

/// The body as the crate is given it (the same length as the body: every position stays
/// where it was, for error messages), and what the crate's parse loses of it.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// The text the crate parses, when it differs from the body.
    pub(crate) source: Option<String>,
    /// The one-byte name that stands for `.`.
    dot: Option<char>,
    /// Raw blocks: the (line, column) of the opening tag, and the whitespace at the start of
    /// the body that the crate's grammar skips and handlebars.js keeps.
    raws: Vec<((usize, usize), String)>,
    /// Comments with whitespace control: the (line, column) of the tag, and whether it has
    /// `~` before and after.
    comments: Vec<((usize, usize), bool, bool)>,
}

/// Reads `body` for what the crate's grammar reads differently from handlebars.js (see the
/// module documentation).
pub(crate) fn write_body(body: &str) -> Written {
    let b = body.as_bytes();
    let scan = scan(b);
    let mut out = b.to_vec();
    let mut written = Written::default();
    if !scan.dots.is_empty() {
        let alone = |c: u8| {
            b.iter().enumerate().any(|(i, &x)| {
                x == c
                    && !i.checked_sub(1).and_then(|p| b.get(p)).is_some_and(|&p| name_byte(p))
                    && !b.get(i + 1).is_some_and(|&n| name_byte(n))
            })
        };
        if let Some(&name) = DOT_NAMES.iter().find(|&&c| !alone(c)) {
            for &at in &scan.dots {
                if let Some(x) = out.get_mut(at) {
                    *x = name;
                }
            }
            written.dot = Some(char::from(name));
        }
    }
    for c in &scan.comments {
        for &(at, ref bytes) in &c.edits {
            if let Some(place) = out.get_mut(at..at + bytes.len()) {
                place.copy_from_slice(bytes);
            }
        }
        written.comments.push((line_col(body, c.open), c.left, c.right));
    }
    for &(open, close) in &scan.names {
        for (at, byte) in [(open, b'['), (close, b']')] {
            if let Some(x) = out.get_mut(at) {
                *x = byte;
            }
        }
    }
    for r in &scan.raws {
        let gap = body.get(r.body..r.text).unwrap_or_default();
        let kept = if r.tilde {
            ""
        } else if r.standalone {
            let g = gap.trim_start_matches([' ', '\t']);
            g.strip_prefix("\r\n").or_else(|| g.strip_prefix('\n')).unwrap_or(g)
        } else {
            gap
        };
        if !kept.is_empty() {
            written.raws.push((line_col(body, r.open), kept.to_owned()));
        }
    }
    if out != b {
        // Only ASCII bytes were replaced by ASCII bytes: still UTF-8.
        written.source = String::from_utf8(out).ok();
    }
    written
}

/// The (line, column) of a byte offset as the crate's parser counts them: lines and
/// characters from 1, `\r\n` one line break.
fn line_col(body: &str, at: usize) -> (usize, usize) {
    let before = body.get(..at).unwrap_or(body);
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |p| p + 1);
    (line, before.get(start..).unwrap_or_default().chars().count() + 1)
}

#[derive(Debug, Default)]
struct Scan {
    dots: Vec<usize>,
    raws: Vec<RawBlock>,
    comments: Vec<Comment>,
    /// The quotes of a string literal that is a whole tag (`{{"name"}}`), which handlebars.js
    /// reads as a name: written as the brackets of a key (`{{[name]}}`).
    names: Vec<(usize, usize)>,
}

#[derive(Debug)]
struct RawBlock {
    /// Where the opening tag starts.
    open: usize,
    /// Where the body starts, and where its text starts after the whitespace the crate skips.
    body: usize,
    text: usize,
    /// Whether the opening tag ends with `~`.
    tilde: bool,
    /// Whether the opening tag is alone on its line, as the crate tells.
    standalone: bool,
}

#[derive(Debug)]
struct Comment {
    open: usize,
    left: bool,
    right: bool,
    /// Bytes to write over the tag so that the crate reads it as a comment.
    edits: Vec<(usize, Vec<u8>)>,
}

/// Where `.` is a path of its own inside a tag (not in text, comments, raw blocks, string
/// literals or `[...]` keys, and not the name of a helper call `{{. x}}`), the raw blocks,
/// and the comments with whitespace control.
fn scan(b: &[u8]) -> Scan {
    let find = |from: usize, what: &[u8]| {
        b.get(from..).and_then(|rest| rest.windows(what.len()).position(|w| w == what)).map(|p| p + from)
    };
    let blank = |c: &u8| matches!(c, b' ' | b'\t');
    let mut found = Scan::default();
    let mut i = 0;
    while let Some(open) = find(i, b"{{") {
        if open > 0 && b.get(open - 1) == Some(&b'\\') {
            i = open + 2;
            continue;
        }
        if b.get(open + 2) == Some(&b'{') && b.get(open + 3) == Some(&b'{') {
            // A raw block: its body is text up to its closing tag.
            let Some(end) = find(open + 4, b"}}}}") else { break };
            let body = end + 4;
            let text = body
                + b.get(body..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|c| c.is_ascii_whitespace() && **c != 0x0c)
                    .count();
            let after = b.get(body..).unwrap_or_default();
            let after_blank = after.iter().find(|c| !blank(c));
            let before = b.get(..open).unwrap_or_default();
            let before_blank = before.iter().rev().find(|c| !blank(c));
            let standalone = (after.is_empty() || matches!(after_blank, Some(b'\n' | b'\r')))
                && (open == 0 || before_blank.is_none_or(|c| matches!(c, b'\n' | b'\r')));
            let tilde = end > 0 && b.get(end - 1) == Some(&b'~');
            found.raws.push(RawBlock { open, body, text, tilde, standalone });
            let Some(close) = find(body, b"{{{{/") else { break };
            i = find(close, b"}}}}").map_or(b.len(), |e| e + 4);
            continue;
        }
        let mut j = open + 2;
        let left = b.get(j) == Some(&b'~');
        if left {
            j += 1;
        }
        if b.get(j) == Some(&b'!') {
            let mut edits = Vec::new();
            let long = b.get(j + 1..j + 3) == Some(b"--".as_slice());
            let ends = [find(j + 3, b"--}}"), find(j + 3, b"--~}}")];
            let long_end = if long { ends.into_iter().flatten().min() } else { None };
            let right;
            match long_end {
                Some(e) => {
                    right = b.get(e + 2) == Some(&b'~');
                    if left {
                        edits.push((j - 1, b"!--~".to_vec()));
                    }
                    if right {
                        edits.push((e, b"~--".to_vec()));
                    }
                    i = e + if right { 5 } else { 4 };
                }
                None => {
                    let Some(e) = find(j, b"}}") else { break };
                    right = e > j + 1 && b.get(e - 1) == Some(&b'~');
                    if left {
                        edits.push((j - 1, b"!~".to_vec()));
                    }
                    i = e + 2;
                }
            }
            if left || right {
                found.comments.push(Comment { open, left, right, edits });
            }
            continue;
        }
        if let Some((quotes, end)) = literal_name(b, j) {
            found.names.push(quotes);
            i = end;
            continue;
        }
        i = tag_dots(b, j, &mut found.dots);
    }
    found
}

/// A tag from `from` (after `{{` and `~`) that is a string literal alone (`"name"`, `{"name"}`
/// of a triple-stash, `~` allowed before the end): the places of its quotes and where the tag
/// ends. A string with `]`, `\\` or a line break in it is left as it is.
fn literal_name(b: &[u8], from: usize) -> Option<((usize, usize), usize)> {
    let ws = |k: &mut usize| {
        while b.get(*k).is_some_and(u8::is_ascii_whitespace) {
            *k += 1;
        }
    };
    let mut k = from;
    let triple = b.get(k) == Some(&b'{');
    if triple {
        k += 1;
    }
    ws(&mut k);
    let q = *b.get(k).filter(|c| matches!(c, b'"' | b'\''))?;
    let open = k;
    let len = b.get(open + 1..)?.iter().position(|&c| c == q)?;
    let close = open + 1 + len;
    if b.get(open + 1..close)?.iter().any(|c| matches!(c, b']' | b'\\' | b'\n' | b'\r')) {
        return None;
    }
    k = close + 1;
    ws(&mut k);
    if triple {
        if b.get(k) != Some(&b'}') {
            return None;
        }
        k += 1;
    }
    if b.get(k) == Some(&b'~') {
        k += 1;
    }
    (b.get(k..k + 2) == Some(b"}}".as_slice())).then_some(((open, close), k + 2))
}

/// Scans one tag from `from` (after `{{` and `~`) to its end, recording the `.` paths in it;
/// returns where scanning goes on.
fn tag_dots(b: &[u8], from: usize, dots: &mut Vec<usize>) -> usize {
    let mut k = from;
    let mut quote = None;
    let mut first_token = true;
    while let Some(&c) = b.get(k) {
        match quote {
            Some(q) => {
                if c == b'\\' {
                    k += 1;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'[' => {
                    // A key in brackets is read up to its `]`.
                    k = b.get(k..).and_then(|r| r.iter().position(|&x| x == b']')).map_or(b.len(), |p| k + p);
                }
                b'}' if b.get(k + 1) == Some(&b'}') => return k + 2,
                b'.' => {
                    let before = k.checked_sub(1).and_then(|p| b.get(p)).is_some_and(|p| DOT_FOLLOWS_ON.contains(p));
                    let after = b.get(k + 1).is_some_and(|n| DOT_FOLLOWS.contains(n));
                    // First in the tag and followed by more than the tag's end: a helper's name.
                    let named = first_token && {
                        let rest = b.get(k + 1..).unwrap_or_default();
                        let end = rest.iter().position(|&x| x != b' ' && x != b'\t' && x != b'\r' && x != b'\n');
                        end.and_then(|e| rest.get(e)).is_some_and(|&x| x != b'}' && x != b'~')
                    };
                    if before && after && !named {
                        dots.push(k);
                    }
                }
                _ => {}
            },
        }
        if !matches!(c, b'{' | b'~' | b'&' | b' ' | b'\t' | b'\r' | b'\n') {
            first_token = false;
        }
        k += 1;
    }
    k
}

/// Puts back the whitespace at the start of raw blocks, and strips the whitespace next to
/// comments with `~` (the crate reads them as comments without whitespace control).
fn restore_text(t: &mut Template, written: &Written) {
    use TemplateElement as E;
    let at: Vec<(usize, usize)> = t.mapping.iter().map(|m| (m.0, m.1)).collect();
    for k in 0..t.elements.len() {
        let Some(&pos) = at.get(k) else { break };
        let mapping = t.mapping.get(k).cloned();
        if let Some(E::HelperBlock(h)) = t.elements.get_mut(k)
            && let Some((_, gap)) = written.raws.iter().find(|(p, _)| *p == pos)
            && let Some(body) = &mut h.template
        {
            match body.elements.first_mut() {
                Some(E::RawString(text)) => text.insert_str(0, gap),
                _ => {
                    // Elements and their places stay in step.
                    if let Some(m) = body.mapping.first().cloned().or(mapping) {
                        body.elements.insert(0, E::RawString(gap.clone()));
                        body.mapping.insert(0, m);
                    }
                }
            }
        }
        if let Some(E::Comment(_)) = t.elements.get(k)
            && let Some(&(_, left, right)) = written.comments.iter().find(|(p, ..)| *p == pos)
        {
            if left && let Some(E::RawString(text)) = k.checked_sub(1).and_then(|p| t.elements.get_mut(p)) {
                text.truncate(text.trim_end().len());
            }
            if right && let Some(E::RawString(text)) = t.elements.get_mut(k + 1) {
                let start = text.len() - text.trim_start().len();
                text.replace_range(..start, "");
            }
        }
    }
    for e in &mut t.elements {
        match e {
            E::HelperBlock(h) => {
                for body in [&mut h.template, &mut h.inverse].into_iter().flatten() {
                    restore_text(body, written);
                }
            }
            E::DecoratorBlock(d) | E::PartialBlock(d) => {
                if let Some(body) = &mut d.template {
                    restore_text(body, written);
                }
            }
            _ => {}
        }
    }
}

/// The paths the compiled template reads differently from handlebars.js.
struct Paths {
    /// The name written for `.` by [`write_body`]: the current context.
    dot: Option<String>,
    /// `@root` alone, which the crate reads as a local variable named `root` (empty): the
    /// root of the inputs.
    root: Option<Path>,
}

impl Paths {
    fn new(written: &Written) -> Paths {
        // The crate has no way to write `@root` alone: its first part, taken from a longer path.
        let root = match Path::parse("@root/x") {
            Ok(Path::Relative((segs, _))) => match segs.first() {
                Some(seg @ PathSeg::Ruled(_)) => Some(Path::Relative((vec![seg.clone()], "@root".to_owned()))),
                _ => None,
            },
            _ => None,
        };
        Paths { dot: written.dot.map(String::from), root }
    }
}

/// Puts back the paths of [`Paths`] everywhere in `t`.
fn restore_paths(t: &mut Template, paths: &Paths) {
    use TemplateElement as E;
    for e in &mut t.elements {
        match e {
            E::Expression(h) | E::HtmlExpression(h) | E::HelperBlock(h) => {
                restore_in_helper(h, paths);
                for body in [&mut h.template, &mut h.inverse].into_iter().flatten() {
                    restore_paths(body, paths);
                }
            }
            E::DecoratorExpression(d) | E::PartialExpression(d) | E::DecoratorBlock(d) | E::PartialBlock(d) => {
                for p in d.params.iter_mut().chain(d.hash.values_mut()) {
                    restore_parameter(p, paths);
                }
                if let Some(body) = &mut d.template {
                    restore_paths(body, paths);
                }
            }
            _ => {}
        }
    }
}

fn restore_in_helper(h: &mut HelperTemplate, paths: &Paths) {
    for p in std::iter::once(&mut h.name).chain(h.params.iter_mut()).chain(h.hash.values_mut()) {
        restore_parameter(p, paths);
    }
}

fn restore_parameter(p: &mut Parameter, paths: &Paths) {
    match p {
        Parameter::Path(Path::Relative((segs, raw)))
            if paths
                .dot
                .as_ref()
                .is_some_and(|dot| raw == dot && matches!(segs.as_slice(), [PathSeg::Named(n)] if n == dot)) =>
        {
            *p = Parameter::Path(Path::Relative((Vec::new(), "this".to_owned())));
        }
        Parameter::Path(Path::Local((0, name, _))) if name == "root" => {
            if let Some(root) = &paths.root {
                *p = Parameter::Path(root.clone());
            }
        }
        Parameter::Subexpression(s) => {
            if let TemplateElement::Expression(h) = s.element.as_mut() {
                restore_in_helper(h, paths);
            }
        }
        _ => {}
    }
}

fn rewrite_template(t: &mut Template, scope: &Scope<'_>) {
    use TemplateElement as E;
    for e in &mut t.elements {
        match e {
            E::Expression(h) | E::HtmlExpression(h) => {
                let name_only = !h.block && h.params.is_empty() && h.hash.is_empty();
                let helper = matches!(&h.name, Parameter::Path(p) if is_helper_name(p));
                if name_only && matches!(&h.name, Parameter::Path(p) if beyond_root(p, scope)) {
                    // Nothing is there: `{{__prompty_member null}}` prints nothing.
                    h.name = Parameter::Name(MEMBER_HELPER.to_owned());
                    h.params = vec![Parameter::Literal(Json::Null)];
                } else if name_only
                    && !helper
                    && let Parameter::Path(path) = &h.name
                    && let Some(params) = member_params(path, scope)
                {
                    // `{{l.length}}` becomes `{{__prompty_member l "length"}}`.
                    h.name = Parameter::Name(MEMBER_HELPER.to_owned());
                    h.params = params;
                } else {
                    rewrite_helper(h, scope);
                }
            }
            E::HelperBlock(h) => {
                rewrite_helper(h, scope);
                if matches!(h.name.as_name(), Some("if" | "unless")) && h.hash.is_empty() && h.params.len() == 1 {
                    // `{{#if x}}` becomes `{{#if (__prompty_truthy x)}}`.
                    let condition = std::mem::replace(&mut h.params[0], Parameter::Literal(Json::Null));
                    h.params[0] = Parameter::Subexpression(Subexpression::new(
                        Parameter::Name(TRUTHY_HELPER.to_owned()),
                        vec![condition],
                        HashMap::new(),
                    ));
                }
                let pushes = matches!(h.name.as_name(), Some("each" | "with"));
                let depth = scope.depth.map(|d| d + usize::from(pushes));
                let inner = Scope { nested: scope.nested || pushes, depth, block_params: scope.block_params };
                if let Some(body) = &mut h.template {
                    rewrite_template(body, &inner);
                }
                if let Some(body) = &mut h.inverse {
                    rewrite_template(body, scope);
                }
            }
            E::DecoratorBlock(d) | E::PartialBlock(d) => {
                if let Some(body) = &mut d.template {
                    rewrite_template(body, &Scope { nested: true, depth: None, block_params: scope.block_params });
                }
            }
            _ => {}
        }
    }
}

fn is_helper_name(path: &Path) -> bool {
    match path {
        Path::Relative((segs, raw)) => {
            segs.len() == 1 && (HELPER_NAMES.contains(&raw.as_str()) || raw.starts_with("__prompty_"))
        }
        Path::Local(_) => false,
    }
}

/// The block parameters a template declares (`as |v i|`), nested bodies included.
fn block_params(t: &Template, out: &mut Vec<String>) {
    use TemplateElement as E;
    for e in &t.elements {
        match e {
            E::HelperBlock(h) => {
                match &h.block_param {
                    Some(BlockParam::Single(p)) => out.extend(p.as_name().map(str::to_owned)),
                    Some(BlockParam::Pair((a, b))) => {
                        out.extend([a, b].into_iter().filter_map(|p| p.as_name().map(str::to_owned)));
                    }
                    _ => {}
                }
                for body in [&h.template, &h.inverse].into_iter().flatten() {
                    block_params(body, out);
                }
            }
            E::DecoratorBlock(d) | E::PartialBlock(d) => {
                if let Some(body) = &d.template {
                    block_params(body, out);
                }
            }
            _ => {}
        }
    }
}

/// Rewrites the parameters and hash values of a helper call (not its name).
fn rewrite_helper(h: &mut HelperTemplate, scope: &Scope<'_>) {
    for p in h.params.iter_mut().chain(h.hash.values_mut()) {
        rewrite_parameter(p, scope);
    }
}

fn rewrite_parameter(p: &mut Parameter, scope: &Scope<'_>) {
    match p {
        Parameter::Path(path) if beyond_root(path, scope) => *p = Parameter::Literal(Json::Null),
        Parameter::Path(path) => {
            if let Some(params) = member_params(path, scope) {
                *p = Parameter::Subexpression(Subexpression::new(
                    Parameter::Name(MEMBER_HELPER.to_owned()),
                    params,
                    HashMap::new(),
                ));
            }
        }
        Parameter::Subexpression(s) => {
            if let TemplateElement::Expression(h) = s.element.as_mut() {
                rewrite_helper(h, scope);
            }
        }
        _ => {}
    }
}

/// Whether `path` climbs with `../` past the root: handlebars.js finds nothing there, the
/// crate the innermost context.
fn beyond_root(path: &Path, scope: &Scope<'_>) -> bool {
    let Path::Relative((segs, raw)) = path else { return false };
    if !raw.starts_with("../") {
        return false;
    }
    let ups = segs.iter().take_while(|s| matches!(s, PathSeg::Ruled(_))).count();
    scope.depth.is_some_and(|d| ups > d)
}

/// The parameters of the member helper for `path`: the path up to its first name, then each
/// later part as a string. In a nested scope the first name is a part too (of the context,
/// or of the scope `../` reaches), unless it may be a block parameter. `None` for a path the
/// crate reads as handlebars.js does.
fn member_params(path: &Path, scope: &Scope<'_>) -> Option<Vec<Parameter>> {
    let Path::Relative((segs, raw)) = path else { return None };
    let first = segs.iter().position(|s| matches!(s, PathSeg::Named(_)))?;
    if !segs[..first].iter().all(|s| matches!(s, PathSeg::Ruled(_))) {
        return None;
    }
    let own = match &segs[first] {
        PathSeg::Named(n) => scope.nested && !scope.block_params.contains(n) && (first == 0 || !raw.contains("@root")),
        _ => false,
    };
    let split = if own { first } else { first + 1 };
    if split == segs.len() {
        return None;
    }
    let mut params = vec![Parameter::Path(Path::Relative((segs[..split].to_vec(), raw.clone())))];
    for s in &segs[split..] {
        let PathSeg::Named(k) = s else { return None };
        params.push(Parameter::Literal(Json::String(k.clone())));
    }
    Some(params)
}

/// One part of a value, as handlebars.js reads it (own properties only).
fn member<'a>(value: &Cow<'a, Json>, key: &str) -> Option<Cow<'a, Json>> {
    match value {
        Cow::Borrowed(v) => member_of(v, key),
        Cow::Owned(v) => member_of(v, key).map(|m| Cow::Owned(m.into_owned())),
    }
}

fn member_of<'a>(value: &'a Json, key: &str) -> Option<Cow<'a, Json>> {
    match value {
        Json::Object(m) => m.get(key).map(Cow::Borrowed),
        Json::Array(items) if key == "length" => Some(Cow::Owned(Json::from(items.len()))),
        Json::Array(items) => array_index(key).and_then(|i| items.get(i)).map(Cow::Borrowed),
        Json::String(s) if key == "length" => Some(Cow::Owned(Json::from(s.encode_utf16().count()))),
        Json::String(s) => {
            let unit = s.encode_utf16().nth(array_index(key)?)?;
            // A lone half of a surrogate pair has no UTF-8 form: it prints as U+FFFD.
            let c = char::decode_utf16([unit]).next().and_then(Result::ok).unwrap_or(char::REPLACEMENT_CHARACTER);
            Some(Cow::Owned(Json::String(c.to_string())))
        }
        _ => None,
    }
}

/// The index a key names as JavaScript reads an array index: digits without a leading zero.
fn array_index(key: &str) -> Option<usize> {
    let canonical = !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()) && (key == "0" || !key.starts_with('0'));
    if canonical { key.parse().ok() } else { None }
}

/// The value of a JavaScript property key given as a value: a string as itself, an integer
/// as its digits.
fn key_text(key: &Json) -> Option<Cow<'_, str>> {
    match key {
        Json::String(s) => Some(Cow::Borrowed(s)),
        Json::Number(n) if n.is_u64() || n.is_i64() => Some(Cow::Owned(n.to_string())),
        Json::Bool(b) => Some(Cow::Owned(b.to_string())),
        _ => None,
    }
}

fn scoped(value: Option<Cow<'_, Json>>) -> ScopedJson<'static> {
    match value {
        Some(v) => ScopedJson::Derived(v.into_owned()),
        None => ScopedJson::Missing,
    }
}

/// `__prompty_member base "k1" "k2" ...`: the parts `k1`, `k2`, ... of `base`.
struct MemberHelper;

impl HelperDef for MemberHelper {
    fn call_inner<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        _: &'rc Context,
        _: &mut RenderContext<'reg, 'rc>,
    ) -> Result<ScopedJson<'rc>, RenderError> {
        let Some((base, keys)) = h.params().split_first() else { return Ok(ScopedJson::Missing) };
        if base.is_value_missing() {
            return Ok(ScopedJson::Missing);
        }
        let mut value = Some(Cow::Borrowed(base.value()));
        for key in keys {
            let Some(k) = key.value().as_str() else { return Ok(ScopedJson::Missing) };
            value = value.and_then(|v| member(&v, k));
        }
        Ok(scoped(value))
    }
}

/// `__prompty_truthy value`: whether `#if` renders its block in handlebars.js. Nothing,
/// `null`, `false`, `0`, `""` and an empty list are false; anything else (an empty object
/// too, where the crate says false) is true.
struct TruthyHelper;

impl HelperDef for TruthyHelper {
    fn call_inner<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        _: &'rc Context,
        _: &mut RenderContext<'reg, 'rc>,
    ) -> Result<ScopedJson<'rc>, RenderError> {
        let truthy = match h.param(0).map(|p| p.value()) {
            None | Some(Json::Null) => false,
            Some(Json::Bool(b)) => *b,
            Some(Json::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
            Some(Json::String(s)) => !s.is_empty(),
            Some(Json::Array(items)) => !items.is_empty(),
            Some(Json::Object(_)) => true,
        };
        Ok(ScopedJson::Derived(Json::Bool(truthy)))
    }
}

/// `lookup value key`, with the key read as handlebars.js reads it.
struct LookupHelper;

impl HelperDef for LookupHelper {
    fn call_inner<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        _: &'rc Context,
        _: &mut RenderContext<'reg, 'rc>,
    ) -> Result<ScopedJson<'rc>, RenderError> {
        let value = h.param(0).ok_or(RenderErrorReason::ParamNotFoundForIndex("lookup", 0))?;
        let key = h.param(1).ok_or(RenderErrorReason::ParamNotFoundForIndex("lookup", 1))?;
        let found = key_text(key.value()).and_then(|k| member_of(value.value(), &k));
        Ok(scoped(found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_read_as_javascript_reads_them() {
        let v = serde_json::json!({"l": [1, 2, 3], "s": "añ😀", "o": {"length": 7}, "n": 5});
        let get = |path: &[&str]| {
            let mut value = Some(Cow::Borrowed(&v));
            for k in path {
                value = value.and_then(|x| member(&x, k));
            }
            value.map(Cow::into_owned)
        };
        assert_eq!(get(&["l", "length"]), Some(Json::from(3)));
        assert_eq!(get(&["l", "1"]), Some(Json::from(2)));
        assert_eq!(get(&["l", "01"]), None);
        assert_eq!(get(&["l", "x"]), None);
        assert_eq!(get(&["s", "length"]), Some(Json::from(4)));
        assert_eq!(get(&["s", "1"]), Some(Json::from("ñ")));
        assert_eq!(get(&["s", "2"]), Some(Json::from("\u{fffd}")));
        assert_eq!(get(&["s", "0", "length"]), Some(Json::from(1)));
        assert_eq!(get(&["o", "length"]), Some(Json::from(7)));
        assert_eq!(get(&["n", "length"]), None);
    }

    fn render(template: &str, data: &Json) -> Result<String, String> {
        let mut hb = Handlebars::new();
        hb.register_escape_fn(handlebars::no_escape);
        let written = write_body(template);
        hb.register_template_string("t", written.source.as_deref().unwrap_or(template)).map_err(|e| e.to_string())?;
        adapt(&mut hb, "t", &written);
        hb.render("t", data).map_err(|e| e.to_string())
    }

    #[test]
    fn templates_read_lists_and_strings_as_handlebars_js() {
        let data = serde_json::json!({"l": [1, 2], "s": "abc", "ll": [[1], [2, 3]], "o": {"l": ["x"]}});
        let got = render(
            "{{l.length}}|{{l.x}}|{{s.length}}|{{s.[1]}}|{{#each ll}}{{length}}{{x}}{{/each}}|\
             {{#each l as |v|}}{{v}}{{/each}}|{{lookup l \"length\"}}|{{lookup s 2}}|{{#each o.l.x}}y{{else}}n{{/each}}|\
             {{#with o.l}}{{length}}{{../s.length}}{{/with}}|{{{o.l.length}}}",
            &data,
        );
        assert_eq!(got.as_deref(), Ok("2||3|b|12|12|2|c|n|13|1"));
    }

    #[test]
    fn dots_are_names_of_the_same_length_inside_tags_only() {
        let body = "a. {{.}} {{~ . ~}} {{{.}}} {{#each .}}{{lookup . \"k.\"}}{{/each}} {{! . }} {{!-- {{.}} --}} \
                    \\{{.}} {{{{raw}}}}{{.}}{{{{/raw}}}} {{./x}} {{../y}} {{a.[.]}} {{. x}}";
        let written = write_body(body).source.expect("a dot path");
        assert_eq!(written.len(), body.len());
        let changed: Vec<usize> =
            body.bytes().zip(written.bytes()).enumerate().filter(|(_, (a, b))| a != b).map(|(i, _)| i).collect();
        let at = |pat: &str| body.find(pat).map(|i| i + pat.find('.').unwrap_or(0));
        let want: Vec<usize> =
            ["{{.}}", "{{~ . ~}}", "{{{.}}}", "each .", "lookup . "].into_iter().filter_map(at).collect();
        assert_eq!(changed, want);
        assert_eq!(write_body("{{this}} {{a.b}} x.").source, None);
    }

    #[test]
    fn dots_render_the_current_context() {
        let data = serde_json::json!({"l": ["a", "b"], "o": {"k": "v"}, "$": "dollar"});
        let body = "{{#each l}}{{.}}{{~ . ~}}{{/each}}|{{#with o}}{{lookup . \"k\"}}{{/with}}|{{$}}";
        let written = write_body(body);
        // `$` is a name alone in the body: another name stands for `.`.
        assert_ne!(written.dot, Some('$'));
        let mut hb = Handlebars::new();
        hb.register_escape_fn(handlebars::no_escape);
        hb.register_template_string("t", written.source.as_deref().unwrap_or(body)).expect("compiles");
        adapt(&mut hb, "t", &written);
        assert_eq!(hb.render("t", &data).as_deref().ok(), Some("aabb|v|dollar"));
    }

    #[test]
    fn comments_with_tildes_strip_whitespace_as_handlebars_js() {
        let data = serde_json::json!({});
        let cases = [
            ("a  {{~! c ~}}  b", "ab"),
            ("a  {{~!-- {{x}} --~}}  b", "ab"),
            ("a  {{~! c }}  b", "a  b"),
            ("a  {{! c ~}}  b", "a  b"),
            ("a  {{!-- c --~}}  b|{{!-- d --}}", "a  b|"),
        ];
        for (template, want) in cases {
            assert_eq!(render(template, &data).as_deref(), Ok(want), "{template}");
        }
        // The tag keeps its length: a syntax error after it is where it was.
        let written = write_body("{{~! c ~}}");
        assert_eq!(written.source.as_deref(), Some("{{!~ c ~}}"));
    }

    #[test]
    fn raw_blocks_keep_the_whitespace_their_body_starts_with() {
        let data = serde_json::json!({"s": "x"});
        let cases = [
            ("  {{{{raw}}}}  lead{{{{/raw}}}}", "    lead"),
            ("-{{{{raw}}}}\n  {{s}}\n{{{{/raw}}}}", "-\n  {{s}}\n"),
            ("{{{{raw}}}}\n  {{s}}\n{{{{/raw}}}}", "  {{s}}\n"),
            ("{{{{raw}}}} {{{{/raw}}}}|", " |"),
        ];
        for (template, want) in cases {
            assert_eq!(render(template, &data).as_deref(), Ok(want), "{template}");
        }
    }

    #[test]
    fn a_string_alone_in_a_tag_is_a_name() {
        let data = serde_json::json!({"lit": "v", "a b": "w"});
        assert_eq!(render("{{\"lit\"}}|{{~ 'a b' ~}} |{{{\"lit\"}}}|{{\"none\"}}", &data).as_deref(), Ok("v|w|v|"));
        assert_eq!(write_body("{{\"lit\"}}").source.as_deref(), Some("{{[lit]}}"));
        // A literal that is a helper's parameter, or holds a bracket, stays a literal.
        assert_eq!(write_body("{{lookup o \"k\"}}{{\"a]\"}}").source, None);
    }

    #[test]
    fn root_alone_is_the_inputs() {
        let data = serde_json::json!({"a": "x", "b": {"c": 1}});
        let got = render(
            "{{#each @root}}{{@key}};{{/each}}|{{lookup @root \"a\"}}|{{#with b}}{{#with @root}}{{a}}{{/with}}{{/with}}",
            &data,
        );
        assert_eq!(got.as_deref(), Ok("a;b;|x|x"));
    }

    #[test]
    fn parents_past_the_root_are_nothing() {
        let data = serde_json::json!({"s": "top", "o": {"s": "in"}, "l": [1]});
        let got = render(
            "{{#if s}}[{{../s}}]{{/if}}{{#with o}}{{s}}{{../s}}[{{../../s}}]{{#if ../../s}}y{{else}}n{{/if}}{{/with}}\
             {{#each l}}{{../s}}{{/each}}",
            &data,
        );
        assert_eq!(got.as_deref(), Ok("[]intop[]ntop"));
    }

    #[test]
    fn if_of_an_empty_object_is_true() {
        let data = serde_json::json!({"e": {}, "l": [], "z": 0, "s": "0"});
        let got = render(
            "{{#if e}}a{{/if}}{{#if l}}b{{/if}}{{#if z}}c{{/if}}{{#if s}}d{{/if}}{{#unless e}}f{{/unless}}\
             {{#if l}}{{else if e}}g{{/if}}{{#if z includeZero=true}}h{{/if}}",
            &data,
        );
        assert_eq!(got.as_deref(), Ok("adgh"));
    }
}
