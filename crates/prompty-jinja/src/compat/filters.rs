//! Filters with Jinja2's (jinja2 3.1) semantics where minijinja's differ, and the Jinja2
//! filters minijinja lacks. Every value is stringified by Python `str()`.

use std::cmp::Ordering;

use minijinja::value::{Rest, Value, ValueKind, ValueOrKwargs};
use minijinja::{Environment, Error, State};

use super::py::{self, bind, error, int_arg};
use super::strings::{py_center, py_replace};
use super::{budget, printf};
use crate::pyrepr;

type Args = Rest<ValueOrKwargs>;

/// Registers the filters on `env`, each run as a metered call of the render budget
/// ([`budget::metered`]).
pub(crate) fn install(env: &mut Environment<'_>) {
    // minijinja filters Jinja2 does not have: a template using them fails there.
    for name in ["split", "lines", "bool", "chain", "zip"] {
        env.remove_filter(name);
    }
    add(env, "string", |_, v, a| {
        bind("string", &a.into_values(), [])?;
        Ok(Value::from(py::str_of(&v)?))
    });
    add(env, "upper", |_, v, a| {
        bind("upper", &a.into_values(), [])?;
        Ok(Value::from(py::str_of(&v)?.to_uppercase()))
    });
    add(env, "lower", |_, v, a| {
        bind("lower", &a.into_values(), [])?;
        Ok(Value::from(py::str_of(&v)?.to_lowercase()))
    });
    add(env, "capitalize", |_, v, a| {
        bind("capitalize", &a.into_values(), [])?;
        Ok(Value::from(py::capitalize(&py::str_of(&v)?)))
    });
    add(env, "title", |_, v, a| {
        bind("title", &a.into_values(), [])?;
        Ok(Value::from(title(&py::str_of(&v)?)))
    });
    add(env, "trim", |_, v, a| trim(v, a));
    add(env, "replace", |_, v, a| replace(v, a));
    add(env, "join", join);
    add(env, "safe", |_, v, a| {
        bind("safe", &a.into_values(), [])?;
        Ok(if v.is_safe() { v } else { Value::from_safe_string(py::str_of(&v)?) })
    });
    add(env, "escape", |_, v, a| escape(v, a));
    add(env, "e", |_, v, a| escape(v, a));
    add(env, "forceescape", |_, v, a| {
        bind("forceescape", &a.into_values(), [])?;
        Ok(Value::from_safe_string(html_escape(&py::str_of(&v)?)?))
    });
    add(env, "int", |_, v, a| int(v, a));
    add(env, "float", |_, v, a| float(v, a));
    add(env, "round", |_, v, a| round(v, a));
    add(env, "abs", |_, v, a| abs(v, a));
    add(env, "length", |_, v, a| length(v, a));
    add(env, "count", |_, v, a| length(v, a));
    add(env, "list", |_, v, a| {
        bind("list", &a.into_values(), [])?;
        Ok(Value::from(py::iterate(&v)?))
    });
    add(env, "first", |_, v, a| first(v, a));
    add(env, "last", |_, v, a| last(v, a));
    add(env, "default", |_, v, a| default(v, a));
    add(env, "d", |_, v, a| default(v, a));
    add(env, "sort", sort);
    add(env, "unique", unique);
    add(env, "min", |s, v, a| min_max(s, &v, &a.into_values(), Ordering::Less));
    add(env, "max", |s, v, a| min_max(s, &v, &a.into_values(), Ordering::Greater));
    add(env, "sum", sum);
    add(env, "reverse", |_, v, a| reverse(v, a));
    add(env, "dictsort", dictsort);
    add(env, "items", |_, v, a| items(v, a));
    add(env, "format", format);
    add(env, "center", center);
    add(env, "indent", indent);
    add(env, "truncate", |_, v, a| truncate(v, a));
    add(env, "wordcount", |_, v, a| {
        bind("wordcount", &a.into_values(), [])?;
        Ok(Value::from(wordcount(&py::str_of(&v)?)))
    });
    add(env, "wordwrap", |_, v, a| wordwrap(v, a));
    add(env, "filesizeformat", |_, v, a| filesizeformat(v, a));
    add(env, "striptags", |_, v, a| {
        bind("striptags", &a.into_values(), [])?;
        Ok(Value::from(striptags(&py::str_of(&v)?)))
    });
    add(env, "urlencode", |_, v, a| urlencode(v, a));
    add(env, "xmlattr", |_, v, a| xmlattr(v, a));
    add(env, "tojson", tojson);
    add(env, "pprint", |_, v, a| {
        bind("pprint", &a.into_values(), [])?;
        pprint(&v).map(Value::from)
    });
    add(env, "random", |_, v, a| random(v, a));
    add(env, "attr", |_, v, a| attr(v, a));
    add(env, "batch", |_, v, a| batch(v, a));
    add(env, "slice", |_, v, a| slice(v, a));
}

/// Registers `filter` as `name`, run as a metered call ([`budget::metered`]).
fn add<F>(env: &mut Environment<'_>, name: &'static str, filter: F)
where
    F: Fn(&State<'_, '_>, Value, Args) -> Result<Value, Error> + Send + Sync + 'static,
{
    let what = budget::What { kind: "filter", name };
    env.add_filter(name, move |state: &State<'_, '_>, v: Value, a: Args| {
        budget::metered(state, what, || filter(state, v, a))
    });
}

// ---------------------------------------------------------------------------------------------
// strings
// ---------------------------------------------------------------------------------------------

/// Jinja2's `title`: words start after runs of `-`, whitespace, `(`, `{`, `[` or `<`; the first
/// character of a word is uppercased, the rest lowercased.
fn title(s: &str) -> String {
    let sep = |c: char| matches!(c, '-' | '(' | '{' | '[' | '<') || is_regex_space(c);
    let mut out = String::with_capacity(s.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(&chars.as_str().to_lowercase());
        }
        word.clear();
    };
    for c in s.chars() {
        if sep(c) {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Python `re`'s `\s` for str patterns: `str.isspace()`.
fn is_regex_space(c: char) -> bool {
    pyrepr::py_space(c)
}

fn trim(v: Value, a: Args) -> Result<Value, Error> {
    let [chars] = bind("trim", &a.into_values(), ["chars"])?;
    let s = py::str_of(&v)?;
    let chars = match &chars {
        None => None,
        Some(c) if c.is_none() => None,
        Some(c) => Some(c.as_str().ok_or_else(|| error("strip arg must be None or str"))?.to_owned()),
    };
    Ok(Value::from(py::strip(&s, chars.as_deref(), true, true)))
}

fn replace(v: Value, a: Args) -> Result<Value, Error> {
    let [old, new, count] = bind("replace", &a.into_values(), ["old", "new", "count"])?;
    let (Some(old), Some(new)) = (old, new) else {
        return Err(error("replace() missing required arguments 'old' and 'new'"));
    };
    let count = match count {
        None => -1,
        Some(c) if c.is_none() => -1,
        Some(c) => int_arg("replace", &c)?,
    };
    Ok(Value::from(py_replace(&py::str_of(&v)?, &py::str_of(&old)?, &py::str_of(&new)?, count)?))
}

fn join(state: &State<'_, '_>, v: Value, a: Args) -> Result<Value, Error> {
    let [sep, attribute] = bind("join", &a.into_values(), ["d", "attribute"])?;
    let sep = sep.map(|s| py::str_of(&s)).transpose()?.unwrap_or_default();
    let mut items = py::iterate(&v)?;
    if let Some(attr) = attribute.filter(|a| !a.is_none()) {
        items = items.iter().map(|item| attr_get(state, item, &attr)).collect::<Result<_, _>>()?;
    }
    let mut out = budget::Text::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(&sep)?;
        }
        match item.as_str().filter(|_| item.kind() == ValueKind::String) {
            Some(s) => out.push_str(s)?,
            None => out.push_str(&py::str_of(item)?)?,
        }
    }
    Ok(Value::from(out.into_string()))
}

/// MarkupSafe's escape: `&`, `<`, `>`, `"`, `'`. The size of the result is checked
/// against the render budget first (each escape is four or five bytes).
pub(crate) fn html_escape(s: &str) -> Result<String, Error> {
    let extra: u128 = s
        .bytes()
        .map(|b| {
            if b == b'&' {
                4
            } else if matches!(b, b'<' | b'>' | b'"' | b'\'') {
                3
            } else {
                0
            }
        })
        .sum();
    budget::reserve(s.len() as u128 + extra)?;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Ok(out)
}

fn escape(v: Value, a: Args) -> Result<Value, Error> {
    bind("escape", &a.into_values(), [])?;
    if v.is_safe() {
        return Ok(v);
    }
    Ok(Value::from_safe_string(html_escape(&py::str_of(&v)?)?))
}

fn center(state: &State<'_, '_>, v: Value, a: Args) -> Result<Value, Error> {
    let [width] = bind("center", &a.into_values(), ["width"])?;
    let width = width.map(|w| int_arg("center", &w)).transpose()?.unwrap_or(80);
    printf::reserve(state, width.max(0) as u128)?;
    let s = py::str_of(&v)?;
    budget::reserve(s.len() as u128 + width.max(0) as u128)?;
    Ok(Value::from(py_center(&s, width, ' ')))
}

fn indent(state: &State<'_, '_>, v: Value, a: Args) -> Result<Value, Error> {
    let [width, first, blank] = bind("indent", &a.into_values(), ["width", "first", "blank"])?;
    let Some(s) = v.as_str() else {
        return Err(error(format!("unsupported operand type(s) for +=: '{}' and 'str'", py::type_name(&v))));
    };
    let indention = match &width {
        None => "    ".to_owned(),
        Some(w) if w.kind() == ValueKind::String => w.as_str().unwrap_or_default().to_owned(),
        Some(w) => {
            let n = int_arg("indent", w)?.max(0);
            printf::reserve(state, n as u128)?;
            " ".repeat(usize::try_from(n).unwrap_or(0))
        }
    };
    let first = first.is_some_and(|f| f.is_true());
    let blank = blank.is_some_and(|b| b.is_true());
    let s = format!("{s}\n");
    let lines = py::splitlines(&s, false);
    // Every line but the first gets the indention (and the first too with `first`): the
    // size is known before anything is built.
    budget::reserve(s.len() as u128 + lines.len() as u128 * indention.len() as u128)?;
    let mut rv = budget::Text::new();
    if first {
        rv.push_str(&indention)?;
    }
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            rv.push('\n')?;
            if blank || !line.is_empty() {
                rv.push_str(&indention)?;
            }
        }
        rv.push_str(line)?;
    }
    let rv = rv.into_string();
    Ok(if v.is_safe() { Value::from_safe_string(rv) } else { Value::from(rv) })
}

fn truncate(v: Value, a: Args) -> Result<Value, Error> {
    let [length, killwords, end, leeway] =
        bind("truncate", &a.into_values(), ["length", "killwords", "end", "leeway"])?;
    let Some(s) = v.as_str() else {
        return Err(error(format!("object of type '{}' has no len()", py::type_name(&v))));
    };
    let length = length.map(|l| int_arg("truncate", &l)).transpose()?.unwrap_or(255);
    let killwords = killwords.is_some_and(|k| k.is_true());
    let end = end.map(|e| py::str_of(&e)).transpose()?.unwrap_or_else(|| "...".to_owned());
    let leeway = match leeway {
        None => 5,
        Some(l) if l.is_none() => 5,
        Some(l) => int_arg("truncate", &l)?,
    };
    let end_len = end.chars().count() as i128;
    if length < end_len {
        return Err(error(format!("AssertionError: expected length >= {end_len}, got {length}")));
    }
    if leeway < 0 {
        return Err(error(format!("AssertionError: expected leeway >= 0, got {leeway}")));
    }
    let len = s.chars().count() as i128;
    if len <= length + leeway {
        return Ok(v.clone());
    }
    let keep: String = s.chars().take(usize::try_from(length - end_len).unwrap_or(0)).collect();
    if killwords {
        return Ok(Value::from(format!("{keep}{end}")));
    }
    let cut = match keep.rfind(' ') {
        Some(i) => keep.get(..i).unwrap_or_default(),
        None => keep.as_str(),
    };
    Ok(Value::from(format!("{cut}{end}")))
}

/// `len(re.findall(r"\w+", s))`.
fn wordcount(s: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for c in s.chars() {
        let w = c.is_alphanumeric() || c == '_';
        if w && !in_word {
            n += 1;
        }
        in_word = w;
    }
    n
}

fn wordwrap(v: Value, a: Args) -> Result<Value, Error> {
    let [width, break_long, wrapstring, break_on_hyphens] =
        bind("wordwrap", &a.into_values(), ["width", "break_long_words", "wrapstring", "break_on_hyphens"])?;
    let Some(s) = v.as_str() else {
        return Err(error(format!("'{}' object has no attribute 'splitlines'", py::type_name(&v))));
    };
    let width = width.map(|w| int_arg("wordwrap", &w)).transpose()?.unwrap_or(79);
    if width <= 0 {
        return Err(error(format!("invalid width {width} (must be > 0)")));
    }
    let width = usize::try_from(width).unwrap_or(usize::MAX);
    let break_long = break_long.is_none_or(|b| b.is_true());
    let hyphens = break_on_hyphens.is_none_or(|b| b.is_true());
    let wrapstring = match wrapstring {
        Some(w) if !w.is_none() => py::str_of(&w)?,
        _ => "\n".to_owned(),
    };
    let mut out = budget::Text::new();
    for (i, line) in py::splitlines(s, false).into_iter().enumerate() {
        if i > 0 {
            out.push_str(&wrapstring)?;
        }
        textwrap(&mut out, line, width, break_long, hyphens, &wrapstring)?;
    }
    Ok(Value::from(out.into_string()))
}

/// Python's `textwrap.wrap(text, width, expand_tabs=False, replace_whitespace=False, ...)`
/// for the chunking without hyphen breaks (a hyphenated word is kept whole unless it is too
/// long) — see docs/compatibility.md. The lines are written into `out`, `sep` between them;
/// the chunks are slices of `text`, and no chunk is counted past `width + 1` characters, so
/// the work is linear in the text and the output.
fn textwrap(
    out: &mut budget::Text,
    text: &str,
    width: usize,
    break_long: bool,
    _hyphens: bool,
    sep: &str,
) -> Result<(), Error> {
    let mut chunks = Chunks { text, pos: 0, back: None };
    // The characters of `chunk`, counted up to `most + 1`.
    let len_upto = |chunk: &str, most: usize| chunk.chars().take(most.saturating_add(1)).count();
    let mut lines = 0usize;
    let mut cur: Vec<&str> = Vec::new();
    while chunks.peek().is_some() {
        cur.clear();
        let mut cur_len = 0usize;
        // Drop leading whitespace of a line after the first.
        if lines > 0 && chunks.peek().is_some_and(is_space_chunk) {
            chunks.pop();
        }
        while let Some(chunk) = chunks.peek() {
            let l = len_upto(chunk, width - cur_len);
            if cur_len + l <= width {
                cur_len += l;
                cur.push(chunk);
                chunks.pop();
            } else {
                break;
            }
        }
        if let Some(chunk) = chunks.peek()
            && len_upto(chunk, width) > width
        {
            let space_left = if width < 1 { 1 } else { width - cur_len };
            if break_long {
                chunks.pop();
                let cut = chunk.char_indices().nth(space_left).map_or(chunk.len(), |(i, _)| i);
                let (head, tail) = chunk.split_at(cut);
                cur.push(head);
                if !tail.is_empty() {
                    chunks.back = Some(tail);
                }
            } else if cur.is_empty() {
                cur.push(chunk);
                chunks.pop();
            }
        }
        if cur.last().is_some_and(|c| is_space_chunk(c)) {
            cur.pop();
        }
        if !cur.is_empty() {
            if lines > 0 {
                out.push_str(sep)?;
            }
            for piece in &cur {
                out.push_str(piece)?;
            }
            lines += 1;
        }
    }
    Ok(())
}

/// The whitespace `textwrap` splits at.
fn is_wrap_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ')
}

/// A chunk of whitespace only (the empty chunk counts as one).
fn is_space_chunk(chunk: &str) -> bool {
    chunk.chars().all(is_wrap_space)
}

/// The chunks of a text, in order: runs of whitespace and runs of anything else; `back`
/// holds the rest of a chunk that was cut, to come next.
struct Chunks<'a> {
    text: &'a str,
    pos: usize,
    back: Option<&'a str>,
}

impl<'a> Chunks<'a> {
    fn peek(&self) -> Option<&'a str> {
        if let Some(b) = self.back {
            return Some(b);
        }
        let rest = self.text.get(self.pos..).unwrap_or_default();
        let first = rest.chars().next()?;
        let space = is_wrap_space(first);
        let end = rest.find(|c: char| is_wrap_space(c) != space).unwrap_or(rest.len());
        rest.get(..end)
    }

    fn pop(&mut self) {
        if self.back.take().is_some() {
            return;
        }
        if let Some(chunk) = self.peek() {
            self.pos += chunk.len();
        }
    }
}

fn filesizeformat(v: Value, a: Args) -> Result<Value, Error> {
    let [binary] = bind("filesizeformat", &a.into_values(), ["binary"])?;
    let binary = binary.is_some_and(|b| b.is_true());
    if v.is_undefined() {
        return Err(undefined_number());
    }
    let bytes = to_float(&v)?.ok_or_else(|| {
        error(format!("float() argument must be a string or a real number, not '{}'", py::type_name(&v)))
    })?;
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let prefixes: [&str; 8] = if binary {
        ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"]
    } else {
        ["kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
    };
    if bytes == 1.0 {
        return Ok(Value::from("1 Byte"));
    }
    if bytes < base {
        let n = py_int_of_float(bytes)?;
        return Ok(Value::from(format!("{n} Bytes")));
    }
    let mut unit = base;
    for (i, prefix) in prefixes.iter().enumerate() {
        unit = base.powi(i as i32 + 2);
        if bytes < unit || i == prefixes.len() - 1 {
            return Ok(Value::from(format!("{} {prefix}", printf::fixed_signed(base * bytes / unit, 1))));
        }
    }
    Ok(Value::from(format!("{} YB", printf::fixed_signed(base * bytes / unit, 1))))
}

/// `int(x)` of a float, exactly (Python ints are unbounded).
fn py_int_of_float(x: f64) -> Result<String, Error> {
    if x.is_nan() {
        return Err(error("cannot convert float NaN to integer"));
    }
    if x.is_infinite() {
        return Err(error("cannot convert float infinity to integer"));
    }
    let t = x.trunc();
    Ok(if t == 0.0 { "0".to_owned() } else { format!("{t:.0}") })
}

/// MarkupSafe's `striptags`: comments and tags removed, whitespace collapsed, entities
/// decoded.
fn striptags(s: &str) -> String {
    let mut text = String::with_capacity(s.len());
    let mut rest = s;
    loop {
        let comment = rest.find("<!--");
        let tag = rest.find('<');
        match (comment, tag) {
            (Some(c), _) if tag.is_none_or(|t| c <= t) => {
                text.push_str(rest.get(..c).unwrap_or_default());
                match rest.get(c + 4..).and_then(|r| r.find("-->")) {
                    Some(e) => rest = rest.get(c + 4 + e + 3..).unwrap_or_default(),
                    None => {
                        text.push_str(rest.get(c..).unwrap_or_default());
                        break;
                    }
                }
            }
            (_, Some(t)) => {
                text.push_str(rest.get(..t).unwrap_or_default());
                match rest.get(t + 1..).and_then(|r| r.find('>')) {
                    Some(e) => rest = rest.get(t + 1 + e + 1..).unwrap_or_default(),
                    None => {
                        text.push_str(rest.get(t..).unwrap_or_default());
                        break;
                    }
                }
            }
            _ => {
                text.push_str(rest);
                break;
            }
        }
    }
    let collapsed: Vec<&str> = text.split(pyrepr::py_space).filter(|w| !w.is_empty()).collect();
    html_unescape(&collapsed.join(" "))
}

/// Decodes the character references MarkupSafe's `unescape` handles most often: the five
/// escapes, `&nbsp;` and numeric references.
fn html_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(rest.get(..i).unwrap_or_default());
        let after = rest.get(i + 1..).unwrap_or_default();
        let semi = after.find(';').filter(|&n| n <= 10);
        let decoded = semi.and_then(|n| {
            let name = after.get(..n)?;
            let c = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                "nbsp" => '\u{a0}',
                _ => {
                    let num = name.strip_prefix('#')?;
                    let cp = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(cp)?
                }
            };
            Some((c, n + 1))
        });
        match decoded {
            Some((c, used)) => {
                out.push(c);
                rest = after.get(used..).unwrap_or_default();
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn urlencode(v: Value, a: Args) -> Result<Value, Error> {
    bind("urlencode", &a.into_values(), [])?;
    let quote = |out: &mut budget::Text, v: &Value, for_qs: bool| -> Result<(), Error> {
        let s = py::str_of(v)?;
        for b in s.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => out.push(char::from(b))?,
                b'/' if !for_qs => out.push('/')?,
                b' ' if for_qs => out.push('+')?,
                _ => out.push_str(&format!("%{b:02X}"))?,
            }
        }
        Ok(())
    };
    let mut out = budget::Text::new();
    match v.kind() {
        ValueKind::String | ValueKind::Number | ValueKind::Bool | ValueKind::None | ValueKind::Undefined => {
            quote(&mut out, &v, false)?;
        }
        ValueKind::Map => {
            for (i, k) in py::iterate(&v)?.iter().enumerate() {
                if i > 0 {
                    out.push('&')?;
                }
                quote(&mut out, k, true)?;
                out.push('=')?;
                quote(&mut out, &v.get_item(k).unwrap_or_default(), true)?;
            }
        }
        _ => {
            for (i, item) in py::iterate(&v)?.into_iter().enumerate() {
                let pair = py::iterate(&item)?;
                let [k, val] = pair.as_slice() else {
                    return Err(error("too many values to unpack (expected 2)"));
                };
                if i > 0 {
                    out.push('&')?;
                }
                quote(&mut out, k, true)?;
                out.push('=')?;
                quote(&mut out, val, true)?;
            }
        }
    }
    Ok(Value::from(out.into_string()))
}

fn xmlattr(v: Value, a: Args) -> Result<Value, Error> {
    let [autospace] = bind("xmlattr", &a.into_values(), ["autospace"])?;
    if v.kind() != ValueKind::Map {
        return Err(error(format!("'{}' object has no attribute 'items'", py::type_name(&v))));
    }
    let mut items = Vec::new();
    for key in py::iterate(&v)? {
        let value = v.get_item(&key)?;
        if value.is_none() || value.is_undefined() {
            continue;
        }
        let k = py::str_of(&key)?;
        if k.chars().any(|c| c.is_ascii_whitespace() || matches!(c, '/' | '>' | '=')) {
            return Err(error(format!("Invalid character in attribute name: {}", py::repr_of(&key)?)));
        }
        items.push(format!("{}=\"{}\"", html_escape(&k)?, html_escape(&py::str_of(&value)?)?));
    }
    let mut rv = items.join(" ");
    if autospace.is_none_or(|s| s.is_true()) && !rv.is_empty() {
        rv.insert(0, ' ');
    }
    Ok(Value::from(rv))
}

// ---------------------------------------------------------------------------------------------
// numbers
// ---------------------------------------------------------------------------------------------

/// Python `float(v)` for strings and numbers: `Ok(None)` when Python raises `TypeError` or
/// `ValueError` (the filter then returns its default).
fn to_float(v: &Value) -> Result<Option<f64>, Error> {
    match v.kind() {
        ValueKind::Bool | ValueKind::Number => Ok(py::number_as_f64(v)),
        ValueKind::String => Ok(parse_py_float(v.as_str().unwrap_or_default())),
        _ => Ok(None),
    }
}

/// Python's `float(str)`: surrounding whitespace, `_` between digits, `inf`/`infinity`/`nan`
/// in any case with an optional sign.
pub(crate) fn parse_py_float(s: &str) -> Option<f64> {
    let t = py::strip(s, None, true, true);
    let (sign, body) = match t.strip_prefix('-') {
        Some(b) => (-1.0, b),
        None => (1.0, t.strip_prefix('+').unwrap_or(t)),
    };
    let lower = body.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" => return Some(sign * f64::INFINITY),
        "nan" => return Some(f64::NAN.copysign(sign)),
        _ => {}
    }
    let cleaned = remove_digit_underscores(body)?;
    if cleaned.is_empty()
        || !cleaned.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    if !cleaned.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    cleaned.parse::<f64>().ok().map(|x| sign * x)
}

/// Removes `_` that sit between two digits; any other `_` makes the literal invalid.
fn remove_digit_underscores(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let prev = i.checked_sub(1).and_then(|j| b.get(j)).is_some_and(u8::is_ascii_digit);
            let next = b.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !(prev && next) {
                return None;
            }
        } else {
            out.push(char::from(c));
        }
    }
    Some(out)
}

/// Python's `int(str, base)`: `Ok(None)` when the text is not an integer literal.
fn parse_py_int(s: &str, base: u32) -> Option<i128> {
    let t = py::strip(s, None, true, true);
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let lower = body.to_ascii_lowercase();
    let (base, digits) = match (base, lower.get(..2)) {
        (0 | 16, Some("0x")) => (16, lower.get(2..)?),
        (0 | 8, Some("0o")) => (8, lower.get(2..)?),
        (0 | 2, Some("0b")) => (2, lower.get(2..)?),
        (0, _) => (10, lower.as_str()),
        (b, _) => (b, lower.as_str()),
    };
    let digits = digits.strip_prefix('_').unwrap_or(digits);
    let cleaned = remove_digit_underscores(digits).filter(|d| !d.is_empty())?;
    let n = i128::from_str_radix(&cleaned, base).ok()?;
    Some(if neg { -n } else { n })
}

fn int(v: Value, a: Args) -> Result<Value, Error> {
    let [default, base] = bind("int", &a.into_values(), ["default", "base"])?;
    let default = default.unwrap_or_else(|| Value::from(0));
    let base = base.map(|b| int_arg("int", &b)).transpose()?.unwrap_or(10);
    let as_float_then_int = |x: f64| -> Result<Value, Error> {
        if x.is_infinite() {
            return Err(error("OverflowError: cannot convert float infinity to integer"));
        }
        if x.is_nan() {
            return Ok(default.clone());
        }
        float_to_int_value(x)
    };
    match v.kind() {
        ValueKind::Undefined => Err(undefined_number()),
        ValueKind::Bool => Ok(Value::from(i64::from(v.is_true()))),
        ValueKind::Number if v.is_integer() => Ok(v.clone()),
        ValueKind::Number => as_float_then_int(py::number_as_f64(&v).unwrap_or(0.0)),
        ValueKind::String => {
            let s = v.as_str().unwrap_or_default();
            let parsed =
                u32::try_from(base).ok().filter(|b| *b == 0 || (2..=36).contains(b)).and_then(|b| parse_py_int(s, b));
            match parsed {
                Some(n) => Ok(Value::from(n)),
                // Jinja2 retries `int(float(s))` and gives the default when that fails too:
                // for "inf" (OverflowError) as for "nan" and "abc" (ValueError).
                None => match parse_py_float(s).filter(|x| x.is_finite()) {
                    Some(x) => float_to_int_value(x),
                    None => Ok(default),
                },
            }
        }
        _ => Ok(default),
    }
}

/// A Python int from a finite float, exact where it fits i128.
fn float_to_int_value(x: f64) -> Result<Value, Error> {
    let t = x.trunc();
    if t.abs() < 1.7e38 { Ok(Value::from(t as i128)) } else { Err(error("integer too large for this implementation")) }
}

/// `int()`, `float()`, `abs()` and `round()` of Jinja2's `Undefined` raise.
fn undefined_number() -> Error {
    error("UndefinedError: an undefined value has no number")
}

fn float(v: Value, a: Args) -> Result<Value, Error> {
    let [default] = bind("float", &a.into_values(), ["default"])?;
    if v.is_undefined() {
        return Err(undefined_number());
    }
    Ok(match to_float(&v)? {
        Some(x) => Value::from(x),
        None => default.unwrap_or_else(|| Value::from(0.0)),
    })
}

fn round(v: Value, a: Args) -> Result<Value, Error> {
    let [precision, method] = bind("round", &a.into_values(), ["precision", "method"])?;
    let precision = precision.map(|p| int_arg("round", &p)).transpose()?.unwrap_or(0);
    let method = method.map(|m| py::str_of(&m)).transpose()?.unwrap_or_else(|| "common".to_owned());
    if !matches!(method.as_str(), "common" | "ceil" | "floor") {
        return Err(error("method must be common, ceil or floor"));
    }
    if !py::is_number(&v) {
        return Err(error(format!("type {} doesn't define __round__ method", py::type_name(&v))));
    }
    if method == "common" {
        // round(int, n) stays an int; round(float, n) is a float.
        if let Some(i) = py::as_int(&v) {
            if precision >= 0 {
                return Ok(Value::from(i));
            }
            let p = 10i128.checked_pow(u32::try_from(-precision).unwrap_or(u32::MAX));
            return Ok(Value::from(match p {
                Some(p) => round_half_even_int(i, p) * p,
                None => 0,
            }));
        }
        let x = py::as_float(&v).unwrap_or(0.0);
        return Ok(Value::from(py_round(x, precision)));
    }
    let x = py::number_as_f64(&v).unwrap_or(0.0);
    let scale = 10f64.powi(i32::try_from(precision.clamp(-400, 400)).unwrap_or(0));
    let y = if method == "ceil" { (x * scale).ceil() } else { (x * scale).floor() };
    if !y.is_finite() {
        return Err(error("OverflowError: cannot convert float infinity to integer"));
    }
    // An int has no negative zero.
    let y = if y == 0.0 { 0.0 } else { y };
    // math.ceil/floor give an int; dividing by 10**precision gives a float.
    Ok(Value::from(y / scale))
}

fn round_half_even_int(i: i128, p: i128) -> i128 {
    let q = i.div_euclid(p);
    let r = i.rem_euclid(p);
    match (2 * r).cmp(&p) {
        Ordering::Less => q,
        Ordering::Greater => q + 1,
        Ordering::Equal => {
            if q % 2 == 0 {
                q
            } else {
                q + 1
            }
        }
    }
}

/// Python's `round(x, n)` for a float: correctly rounded, ties to even.
pub(crate) fn py_round(x: f64, n: i128) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    if n > 330 {
        return x;
    }
    if n < -330 {
        return 0.0f64.copysign(x);
    }
    if n >= 0 {
        let s = format!("{x:.prec$}", prec = usize::try_from(n).unwrap_or(0));
        return s.parse().unwrap_or(x);
    }
    // Negative precision: round to tens, hundreds, ... through the exact decimal digits.
    let digits = format!("{:.0}", x.abs());
    let k = usize::try_from(-n).unwrap_or(0);
    if digits.len() < k {
        // |x| < 10**k / 10: compare against half of 10**k.
        let half = 10f64.powi(i32::try_from(k).unwrap_or(0)) / 2.0;
        return if x.abs() > half { 10f64.powi(i32::try_from(k).unwrap_or(0)).copysign(x) } else { 0.0f64.copysign(x) };
    }
    let s = format!("{:.0}", x.abs() / 10f64.powi(i32::try_from(k).unwrap_or(0)));
    let q: f64 = s.parse().unwrap_or(0.0);
    (q * 10f64.powi(i32::try_from(k).unwrap_or(0))).copysign(x)
}

fn abs(v: Value, a: Args) -> Result<Value, Error> {
    bind("abs", &a.into_values(), [])?;
    if v.is_undefined() {
        return Err(undefined_number());
    }
    if let Some(i) = py::as_int(&v) {
        return Ok(Value::from(i.unsigned_abs()));
    }
    if v.is_integer() {
        return Ok(v);
    }
    match py::as_float(&v) {
        Some(x) => Ok(Value::from(x.abs())),
        None => Err(error(format!("bad operand type for abs(): '{}'", py::type_name(&v)))),
    }
}

// ---------------------------------------------------------------------------------------------
// sequences
// ---------------------------------------------------------------------------------------------

fn length(v: Value, a: Args) -> Result<Value, Error> {
    bind("length", &a.into_values(), [])?;
    Ok(Value::from(py::length(&v)?))
}

fn first(v: Value, a: Args) -> Result<Value, Error> {
    bind("first", &a.into_values(), [])?;
    Ok(py::iterate(&v)?.into_iter().next().unwrap_or_default())
}

fn last(v: Value, a: Args) -> Result<Value, Error> {
    bind("last", &a.into_values(), [])?;
    if v.kind() == ValueKind::Iterable && !py::is_list(&v) {
        return Err(error("'generator' object is not reversible"));
    }
    Ok(py::iterate(&v)?.pop().unwrap_or_default())
}

fn default(v: Value, a: Args) -> Result<Value, Error> {
    let [default_value, boolean] = bind("default", &a.into_values(), ["default_value", "boolean"])?;
    let boolean = boolean.is_some_and(|b| b.is_true());
    if v.is_undefined() || (boolean && !v.is_true()) {
        return Ok(default_value.unwrap_or_else(|| Value::from("")));
    }
    Ok(v)
}

/// Jinja2's `make_attrgetter`: `a.b.0` walks items (an all-digit part is an index);
/// a missing part is undefined.
fn attr_get(_state: &State<'_, '_>, item: &Value, attribute: &Value) -> Result<Value, Error> {
    if let Some(i) = py::as_int(attribute) {
        return Ok(item.get_item(&Value::from(i)).unwrap_or_default());
    }
    let path = py::str_of(attribute)?;
    let mut cur = item.clone();
    for part in path.split('.') {
        let key = match part.parse::<i64>() {
            Ok(i) if part.bytes().all(|b| b.is_ascii_digit()) => Value::from(i),
            _ => Value::from(part),
        };
        cur = if cur.is_undefined() { return Ok(Value::UNDEFINED) } else { cur.get_item(&key).unwrap_or_default() };
    }
    Ok(cur)
}

/// The sort key Jinja2 uses without `case_sensitive`: strings lowercased (a copy, charged
/// to the render budget).
fn ignore_case(v: Value, case_sensitive: bool) -> Result<Value, Error> {
    match v.as_str() {
        Some(s) if !case_sensitive => {
            budget::spend_bytes(s.len())?;
            Ok(Value::from(s.to_lowercase()))
        }
        _ => Ok(v),
    }
}

fn keys_of(
    state: &State<'_, '_>,
    items: &[Value],
    attribute: Option<&Value>,
    case_sensitive: bool,
) -> Result<Vec<Vec<Value>>, Error> {
    budget::spend_items(items.len())?;
    items
        .iter()
        .map(|item| match attribute {
            // "age,name" sorts by several attributes.
            Some(attr) if attr.as_str().is_some_and(|s| s.contains(',')) => attr
                .as_str()
                .unwrap_or_default()
                .split(',')
                .map(|part| attr_get(state, item, &Value::from(part)).and_then(|k| ignore_case(k, case_sensitive)))
                .collect(),
            Some(attr) => Ok(vec![ignore_case(attr_get(state, item, attr)?, case_sensitive)?]),
            None => Ok(vec![ignore_case(item.clone(), case_sensitive)?]),
        })
        .collect()
}

fn cmp_keys(a: &[Value], b: &[Value]) -> Result<Ordering, Error> {
    for (x, y) in a.iter().zip(b) {
        if x.is_undefined() || y.is_undefined() {
            return Err(error("UndefinedError: a sort key is undefined"));
        }
        let o = py::cmp(x, y)?;
        if o != Ordering::Equal {
            return Ok(o);
        }
    }
    Ok(Ordering::Equal)
}

/// A stable sort by Python ordering; a comparison Python refuses is an error.
fn sorted(items: Vec<Value>, keys: Vec<Vec<Value>>, reverse: bool) -> Result<Vec<Value>, Error> {
    // n log n comparisons
    let n = items.len();
    budget::spend_items(n.saturating_mul(usize::BITS as usize - n.leading_zeros() as usize))?;
    let mut pairs: Vec<(Vec<Value>, Value)> = keys.into_iter().zip(items).collect();
    let mut failure = None;
    // Check every adjacent comparison the merge would need by validating first.
    for w in pairs.windows(2) {
        if let [a, b] = w
            && let Err(e) = cmp_keys(&a.0, &b.0)
        {
            failure = Some(e);
            break;
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    pairs.sort_by(|a, b| {
        let o = cmp_keys(&a.0, &b.0).unwrap_or(Ordering::Equal);
        if reverse { o.reverse() } else { o }
    });
    Ok(pairs.into_iter().map(|(_, v)| v).collect())
}

fn sort(state: &State<'_, '_>, v: Value, a: Args) -> Result<Value, Error> {
    let [reverse, case_sensitive, attribute] =
        bind("sort", &a.into_values(), ["reverse", "case_sensitive", "attribute"])?;
    let items = py::iterate(&v)?;
    let keys = keys_of(
        state,
        &items,
        attribute.as_ref().filter(|a| !a.is_none()),
        case_sensitive.is_some_and(|c| c.is_true()),
    )?;
    Ok(Value::from(sorted(items, keys, reverse.is_some_and(|r| r.is_true()))?))
}

fn unique(state: &State<'_, '_>, v: Value, a: Args) -> Result<Value, Error> {
    let [case_sensitive, attribute] = bind("unique", &a.into_values(), ["case_sensitive", "attribute"])?;
    let items = py::iterate(&v)?;
    let keys = keys_of(
        state,
        &items,
        attribute.as_ref().filter(|a| !a.is_none()),
        case_sensitive.is_some_and(|c| c.is_true()),
    )?;
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    let mut out = Vec::new();
    for (item, key) in items.into_iter().zip(keys) {
        let key = py::hash_key(&key.into_iter().next().unwrap_or_default())?;
        if seen.insert(key) {
            out.push(item);
        }
    }
    Ok(Value::from(out))
}

fn min_max(state: &State<'_, '_>, v: &Value, a: &[Value], want: Ordering) -> Result<Value, Error> {
    let [case_sensitive, attribute] = bind("min", a, ["case_sensitive", "attribute"])?;
    let items = py::iterate(v)?;
    let keys = keys_of(
        state,
        &items,
        attribute.as_ref().filter(|a| !a.is_none()),
        case_sensitive.is_some_and(|c| c.is_true()),
    )?;
    let mut best: Option<(usize, &Vec<Value>)> = None;
    for (i, k) in keys.iter().enumerate() {
        best = match best {
            None => Some((i, k)),
            // min() keeps the first of equal items, and so does max().
            Some((j, b)) => {
                if cmp_keys(k, b)? == want {
                    Some((i, k))
                } else {
                    Some((j, b))
                }
            }
        };
    }
    Ok(best.and_then(|(i, _)| items.get(i).cloned()).unwrap_or_default())
}

fn sum(state: &State<'_, '_>, v: Value, a: Args) -> Result<Value, Error> {
    let [attribute, start] = bind("sum", &a.into_values(), ["attribute", "start"])?;
    let mut items = py::iterate(&v)?;
    if let Some(attr) = attribute.filter(|a| !a.is_none()) {
        items = items.iter().map(|item| attr_get(state, item, &attr)).collect::<Result<_, _>>()?;
    }
    let mut acc = start.unwrap_or_else(|| Value::from(0));
    for item in items {
        acc = py_add(&acc, &item)?;
    }
    Ok(acc)
}

/// Python `a + b` for what `sum` meets: numbers, and lists/tuples/strings of one kind.
fn py_add(a: &Value, b: &Value) -> Result<Value, Error> {
    let unsupported =
        || error(format!("unsupported operand type(s) for +: '{}' and '{}'", py::type_name(a), py::type_name(b)));
    if py::is_number(a) && py::is_number(b) {
        if let (Some(x), Some(y)) = (py::as_int(a), py::as_int(b)) {
            return x.checked_add(y).map(Value::from).ok_or_else(|| error("integer overflow"));
        }
        return Ok(Value::from(py::number_as_f64(a).unwrap_or(0.0) + py::number_as_f64(b).unwrap_or(0.0)));
    }
    match (a.kind(), b.kind()) {
        (ValueKind::Seq, ValueKind::Seq) if a.is_tuple() == b.is_tuple() => {
            let mut items = py::iterate(a)?;
            items.extend(py::iterate(b)?);
            Ok(if a.is_tuple() { Value::from(minijinja::value::Tuple::from(items)) } else { Value::from(items) })
        }
        (ValueKind::String, ValueKind::String) => {
            let (x, y) = (a.as_str().unwrap_or_default(), b.as_str().unwrap_or_default());
            budget::reserve(x.len() as u128 + y.len() as u128)?;
            budget::spend_bytes(x.len() + y.len())?;
            Ok(Value::from(format!("{x}{y}")))
        }
        (ValueKind::Undefined, _) | (_, ValueKind::Undefined) => Err(error("UndefinedError: undefined operand")),
        _ => Err(unsupported()),
    }
}

fn reverse(v: Value, a: Args) -> Result<Value, Error> {
    bind("reverse", &a.into_values(), [])?;
    if let Some(s) = v.as_str() {
        return Ok(Value::from(s.chars().rev().collect::<String>()));
    }
    let mut items = py::iterate(&v).map_err(|_| error("argument must be iterable"))?;
    items.reverse();
    Ok(Value::from(items))
}

fn mapping_items(v: &Value) -> Result<Vec<Value>, Error> {
    py::iterate(v)?
        .into_iter()
        .map(|k| {
            let value = v.get_item(&k)?;
            Ok(Value::from(minijinja::value::Tuple::from(vec![k, value])))
        })
        .collect()
}

fn dictsort(_state: &State<'_, '_>, v: Value, a: Args) -> Result<Value, Error> {
    let [case_sensitive, by, reverse] = bind("dictsort", &a.into_values(), ["case_sensitive", "by", "reverse"])?;
    if v.kind() != ValueKind::Map {
        return Err(error(format!("'{}' object has no attribute 'items'", py::type_name(&v))));
    }
    let pos = match by.map(|b| py::str_of(&b)).transpose()?.as_deref() {
        None | Some("key") => 0,
        Some("value") => 1,
        Some(_) => return Err(error("You can only sort by either \"key\" or \"value\"")),
    };
    let case_sensitive = case_sensitive.is_some_and(|c| c.is_true());
    let items = mapping_items(&v)?;
    let keys = items
        .iter()
        .map(|pair| Ok(vec![ignore_case(pair.get_item(&Value::from(pos))?, case_sensitive)?]))
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(Value::from(sorted(items, keys, reverse.is_some_and(|r| r.is_true()))?))
}

fn items(v: Value, a: Args) -> Result<Value, Error> {
    bind("items", &a.into_values(), [])?;
    match v.kind() {
        ValueKind::Undefined => Ok(Value::from(Vec::<Value>::new())),
        ValueKind::Map => Ok(Value::from(mapping_items(&v)?)),
        _ => Err(error("Can only get item pairs from a mapping.")),
    }
}

fn batch(v: Value, a: Args) -> Result<Value, Error> {
    let [linecount, fill_with] = bind("batch", &a.into_values(), ["linecount", "fill_with"])?;
    let n = linecount.map(|l| int_arg("batch", &l)).transpose()?.ok_or_else(|| error("batch() missing 'linecount'"))?;
    let items = py::iterate(&v)?;
    let fill = fill_with.filter(|f| !f.is_none());
    let mut out: Vec<Value> = Vec::new();
    let mut tmp: Vec<Value> = Vec::new();
    for item in items {
        if tmp.len() as i128 == n {
            out.push(Value::from(std::mem::take(&mut tmp)));
        }
        tmp.push(item);
    }
    if !tmp.is_empty() {
        if let Some(f) = &fill {
            let missing = u128::try_from(n - tmp.len() as i128).unwrap_or(0);
            budget::reserve_items(missing)?;
            budget::spend_items(usize::try_from(missing).unwrap_or(usize::MAX))?;
            while (tmp.len() as i128) < n {
                tmp.push(f.clone());
            }
        }
        out.push(Value::from(tmp));
    }
    Ok(Value::from(out))
}

fn slice(v: Value, a: Args) -> Result<Value, Error> {
    let [slices, fill_with] = bind("slice", &a.into_values(), ["slices", "fill_with"])?;
    let slices = slices.map(|s| int_arg("slice", &s)).transpose()?.ok_or_else(|| error("slice() missing 'slices'"))?;
    if slices <= 0 {
        return Err(if slices == 0 { error("integer division or modulo by zero") } else { error("negative slices") });
    }
    let seq = py::iterate(&v)?;
    let slices = usize::try_from(slices.min(1 << 20)).unwrap_or(1);
    let length = seq.len();
    let per = length / slices;
    let extra = length % slices;
    let fill = fill_with.filter(|f| !f.is_none());
    // Each slice is a list of its own.
    budget::reserve_items(slices as u128 * 2)?;
    budget::spend_items(slices.saturating_mul(2))?;
    let mut offset = 0usize;
    let mut out = Vec::with_capacity(slices);
    for n in 0..slices {
        let start = offset + n * per;
        if n < extra {
            offset += 1;
        }
        let end = offset + (n + 1) * per;
        let mut tmp: Vec<Value> = seq.get(start.min(length)..end.min(length)).unwrap_or_default().to_vec();
        if let Some(f) = &fill
            && n >= extra
        {
            tmp.push(f.clone());
        }
        out.push(Value::from(tmp));
    }
    Ok(Value::from(out))
}

/// Jinja2's `attr`: an attribute only, never an item. Dicts, lists, strings and numbers have
/// no attributes a template can read (their attributes are methods); objects such as the loop
/// do.
fn attr(v: Value, a: Args) -> Result<Value, Error> {
    let [name] = bind("attr", &a.into_values(), ["name"])?;
    let name = name.ok_or_else(|| error("do_attr() missing 1 required positional argument: 'name'"))?;
    if v.is_undefined() {
        return Err(error("UndefinedError: attribute of an undefined value"));
    }
    let Some(name) = name.as_str() else {
        return Err(error("attribute name must be string"));
    };
    let is_dict = v.downcast_object_ref::<indexmap::IndexMap<Value, Value>>().is_some();
    match v.kind() {
        ValueKind::Plain if !py::is_dict_view(&v) => Ok(v.get_attr(name).unwrap_or_default()),
        // Engine objects (the loop, a namespace) expose attributes; dicts do not.
        ValueKind::Map if !is_dict => Ok(v.get_attr(name).unwrap_or_default()),
        _ => Ok(Value::UNDEFINED),
    }
}

fn random(v: Value, a: Args) -> Result<Value, Error> {
    bind("random", &a.into_values(), [])?;
    let items = py::iterate(&v)?;
    if items.is_empty() {
        return Ok(Value::UNDEFINED);
    }
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| error(format!("no random source: {e}")))?;
    let i = (u64::from_le_bytes(b) % items.len() as u64) as usize;
    Ok(items.get(i).cloned().unwrap_or_default())
}

// ---------------------------------------------------------------------------------------------
// formatting
// ---------------------------------------------------------------------------------------------

fn format(state: &State<'_, '_>, v: Value, a: Args) -> Result<Value, Error> {
    let a = a.into_values();
    let (positional, kwargs) = py::split_args(&a);
    let args = match kwargs {
        Some(k) if positional.is_empty() => {
            let mut map = std::collections::BTreeMap::new();
            for key in k.args() {
                map.insert(key.to_owned(), k.get::<Value>(key)?);
            }
            Value::from(map)
        }
        Some(_) => return Err(error("can't handle positional and keyword arguments at the same time")),
        None => Value::from(minijinja::value::Tuple::from(positional.to_vec())),
    };
    Ok(Value::from(printf::format(state, &py::str_of(&v)?, &args)?))
}

fn tojson(state: &State<'_, '_>, v: Value, a: Args) -> Result<Value, Error> {
    let [indent] = bind("tojson", &a.into_values(), ["indent"])?;
    let indent = match indent {
        None => None,
        Some(i) if i.is_none() => None,
        Some(i) if i.kind() == ValueKind::String => Some(i.as_str().unwrap_or_default().to_owned()),
        Some(i) => {
            let n = int_arg("tojson", &i)?.max(0);
            printf::reserve(state, n as u128)?;
            Some(" ".repeat(usize::try_from(n).unwrap_or(0)))
        }
    };
    let mut out = budget::Text::new();
    json_dump(&mut out, &v, indent.as_deref(), 0)?;
    Ok(Value::from_safe_string(out.into_string()))
}

/// Python's `json.dumps(v, sort_keys=True, indent=indent)` (ASCII output).
fn json_dump(out: &mut budget::Text, v: &Value, indent: Option<&str>, depth: usize) -> Result<(), Error> {
    if depth > pyrepr::MAX_DEPTH {
        return Err(error("RecursionError: maximum recursion depth exceeded"));
    }
    let newline = |out: &mut budget::Text, d: usize| -> Result<(), Error> {
        if let Some(ind) = indent {
            out.push('\n')?;
            for _ in 0..d {
                out.push_str(ind)?;
            }
        }
        Ok(())
    };
    let item_sep = if indent.is_some() { "," } else { ", " };
    match v.kind() {
        ValueKind::None => out.push_str("null")?,
        ValueKind::Bool => out.push_str(if v.is_true() { "true" } else { "false" })?,
        ValueKind::Number => {
            if let Some(x) = py::as_float(v) {
                if x.is_nan() {
                    out.push_str("NaN")?;
                } else if x.is_infinite() {
                    out.push_str(if x < 0.0 { "-Infinity" } else { "Infinity" })?;
                } else {
                    out.push_str(&pyrepr::repr_float(x))?;
                }
            } else {
                out.push_str(&py::str_of(v)?)?;
            }
        }
        ValueKind::String => json_string(out, v.as_str().unwrap_or_default())?,
        _ if v.kind() == ValueKind::Seq || py::is_list(v) => {
            let items = py::iterate(v)?;
            out.push('[')?;
            if !items.is_empty() {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(item_sep)?;
                    }
                    newline(out, depth + 1)?;
                    json_dump(out, item, indent, depth + 1)?;
                }
                newline(out, depth)?;
            }
            out.push(']')?;
        }
        ValueKind::Map => {
            let mut keys = py::iterate(v)?;
            let mut pairs: Vec<(String, Value)> = Vec::with_capacity(keys.len());
            // Keys are converted to strings the way json does: str keys as is, numbers,
            // booleans and None by their JSON spelling; sorting happens on the originals.
            let mut sort_err = None;
            keys.sort_by(|a, b| match py::cmp(a, b) {
                Ok(o) => o,
                Err(e) => {
                    sort_err.get_or_insert(e);
                    Ordering::Equal
                }
            });
            if let Some(e) = sort_err {
                return Err(e);
            }
            for k in keys {
                let value = v.get_item(&k)?;
                let key = match k.kind() {
                    ValueKind::String => k.as_str().unwrap_or_default().to_owned(),
                    ValueKind::None => "null".to_owned(),
                    ValueKind::Bool => (if k.is_true() { "true" } else { "false" }).to_owned(),
                    ValueKind::Number => {
                        let mut s = budget::Text::new();
                        json_dump(&mut s, &k, None, depth + 1)?;
                        s.into_string()
                    }
                    _ => {
                        return Err(error(format!(
                            "keys must be str, int, float, bool or None, not {}",
                            py::type_name(&k)
                        )));
                    }
                };
                pairs.push((key, value));
            }
            out.push('{')?;
            if !pairs.is_empty() {
                for (i, (k, value)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(item_sep)?;
                    }
                    newline(out, depth + 1)?;
                    json_string(out, k)?;
                    out.push_str(": ")?;
                    json_dump(out, value, indent, depth + 1)?;
                }
                newline(out, depth)?;
            }
            out.push('}')?;
        }
        _ => {
            return Err(error(format!("Object of type {} is not JSON serializable", py::type_name(v))));
        }
    }
    Ok(())
}

/// A JSON string literal as Python's `json.dumps` writes it (`ensure_ascii`), with the
/// characters Jinja2's `htmlsafe_json_dumps` escapes (`<`, `>`, `&`, `'`: JSON has them
/// only inside strings).
fn json_string(out: &mut budget::Text, s: &str) -> Result<(), Error> {
    budget::reserve(s.len() as u128)?;
    let quoted = prompty_py::builtins::json_dumps_str(s);
    if !quoted.contains(['<', '>', '&', '\'']) {
        return out.push_str(&quoted);
    }
    for c in quoted.chars() {
        match c {
            '<' => out.push_str("\\u003c")?,
            '>' => out.push_str("\\u003e")?,
            '&' => out.push_str("\\u0026")?,
            '\'' => out.push_str("\\u0027")?,
            c => out.push(c)?,
        }
    }
    Ok(())
}

/// `pprint.pformat(v)` for values whose repr fits in 80 columns (dicts with sorted keys);
/// longer values are wrapped by pprint, which this does not do.
fn pprint(v: &Value) -> Result<String, Error> {
    fn sorted_repr(out: &mut budget::Text, v: &Value, depth: usize) -> Result<(), Error> {
        if depth > pyrepr::MAX_DEPTH {
            out.push_str("...")?;
            return Ok(());
        }
        match v.kind() {
            ValueKind::Map => {
                let mut keys = py::iterate(v)?;
                keys.sort_by(|a, b| py::cmp(a, b).unwrap_or(Ordering::Equal));
                out.push('{')?;
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ")?;
                    }
                    out.push_str(&py::repr_of(k)?)?;
                    out.push_str(": ")?;
                    sorted_repr(out, &v.get_item(k)?, depth + 1)?;
                }
                out.push('}')?;
            }
            _ if v.kind() == ValueKind::Seq || py::is_list(v) => {
                let items = py::iterate(v)?;
                let (open, close) = if v.is_tuple() { ('(', ')') } else { ('[', ']') };
                out.push(open)?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ")?;
                    }
                    sorted_repr(out, item, depth + 1)?;
                }
                if v.is_tuple() && items.len() == 1 {
                    out.push(',')?;
                }
                out.push(close)?;
            }
            _ => out.push_str(&py::repr_of(v)?)?,
        }
        Ok(())
    }
    let mut out = budget::Text::new();
    sorted_repr(&mut out, v, 0)?;
    Ok(out.into_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_float_parsing() {
        for (s, want) in [
            ("1e5", Some(1e5)),
            (" 42 ", Some(42.0)),
            ("1_000.5", Some(1000.5)),
            ("inf", Some(f64::INFINITY)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("", None),
            ("1__0", None),
            ("_1", None),
            ("abc", None),
            (".", None),
            ("1e", None),
            ("0x10", None),
        ] {
            assert_eq!(parse_py_float(s), want, "{s:?}");
        }
        assert!(parse_py_float("nan").is_some_and(f64::is_nan));
    }

    #[test]
    fn python_int_parsing() {
        for (s, base, want) in [
            ("42", 10, Some(42)),
            (" -7 ", 10, Some(-7)),
            ("1_000", 10, Some(1000)),
            ("0x1f", 16, Some(31)),
            ("0x1f", 10, None),
            ("ff", 16, Some(255)),
            ("0b101", 0, Some(5)),
            ("1.5", 10, None),
            ("", 10, None),
        ] {
            assert_eq!(parse_py_int(s, base), want, "{s:?} base {base}");
        }
    }

    #[test]
    fn python_round() {
        for (x, n, want) in [
            (2.675, 2, 2.67),
            (2.5, 0, 2.0),
            (3.5, 0, 4.0),
            (1234.5, -2, 1200.0),
            (1250.0, -2, 1200.0),
            (1350.0, -2, 1400.0),
            (-0.5, 0, -0.0),
            (0.125, 2, 0.12),
            (49.0, -2, 0.0),
            (51.0, -2, 100.0),
        ] {
            assert_eq!(py_round(x, n).to_bits(), f64::to_bits(want), "round({x}, {n})");
        }
    }
}
