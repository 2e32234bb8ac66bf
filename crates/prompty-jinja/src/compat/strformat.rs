//! Python's `str.format()` as Jinja2's sandbox runs it: replacement fields with automatic or
//! explicit numbering, keyword names, `.attr` / `[key]` lookups (missing ones are undefined,
//! as the sandbox's formatter looks them up like the template does), `!r` / `!s` / `!a`, nested
//! fields inside the spec, and the format-spec mini-language for strings, ints and floats.

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::{Error, State};

use super::budget::Text;
use super::printf;
use super::py::{self, error};

/// `template.format(*args, **kwargs)`.
pub(crate) fn format(state: &State<'_, '_>, template: &str, args: &[Value]) -> Result<String, Error> {
    let (positional, kwargs) = py::split_args(args);
    let mut cx = Fields { positional, kwargs: kwargs.as_ref(), auto: None };
    let out = render(state, template, &mut cx, 2)?;
    Ok(out)
}

struct Fields<'a> {
    positional: &'a [Value],
    kwargs: Option<&'a Kwargs>,
    /// Next automatic index; `None` until the first field decides the numbering.
    auto: Option<Numbering>,
}

#[derive(Clone, Copy, PartialEq)]
enum Numbering {
    Auto(usize),
    Manual,
}

fn render(state: &State<'_, '_>, template: &str, cx: &mut Fields<'_>, depth: u8) -> Result<String, Error> {
    let mut out = Text::new();
    let mut chars = template.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if chars.peek().is_some_and(|&(_, n)| n == '{') => {
                chars.next();
                out.push('{')?;
            }
            '}' if chars.peek().is_some_and(|&(_, n)| n == '}') => {
                chars.next();
                out.push('}')?;
            }
            '}' => return Err(error("Single '}' encountered in format string")),
            '{' => {
                // The field runs to the matching `}` (nested braces belong to the spec).
                let mut level = 1usize;
                let mut end = None;
                for (j, d) in chars.by_ref() {
                    match d {
                        '{' => level += 1,
                        '}' => {
                            level -= 1;
                            if level == 0 {
                                end = Some(j);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let end = end.ok_or_else(|| error("Single '{' encountered in format string"))?;
                let field = template.get(i + 1..end).unwrap_or_default();
                out.push_str(&replace_field(state, field, cx, depth)?)?;
            }
            c => out.push(c)?,
        }
    }
    Ok(out.into_string())
}

fn replace_field(state: &State<'_, '_>, field: &str, cx: &mut Fields<'_>, depth: u8) -> Result<String, Error> {
    // field_name [! conversion] [: spec]
    let name_end = field.find(['!', ':']).unwrap_or(field.len());
    let (name, rest) = field.split_at(name_end);
    let (conversion, spec) = match rest.strip_prefix('!') {
        Some(r) => {
            let mut it = r.chars();
            let conv = it.next().ok_or_else(|| error("end of string while looking for conversion specifier"))?;
            let after = it.as_str();
            let spec = match after.strip_prefix(':') {
                Some(s) => s,
                None if after.is_empty() => "",
                None => return Err(error("expected ':' after conversion specifier")),
            };
            (Some(conv), spec)
        }
        None => (None, rest.strip_prefix(':').unwrap_or_default()),
    };
    let value = lookup(name, cx)?;
    let value = match conversion {
        None => value,
        Some('s') => Value::from(py::str_of(&value)?),
        Some('r') => Value::from(py::repr_of(&value)?),
        Some('a') => Value::from(py::ascii_of(&value)?),
        Some(c) => return Err(error(format!("Unknown conversion specifier {c}"))),
    };
    let spec = if spec.contains('{') {
        if depth == 0 {
            return Err(error("Max string recursion exceeded"));
        }
        render(state, spec, cx, depth - 1)?
    } else {
        spec.to_owned()
    };
    format_value(state, &value, &spec)
}

fn lookup(name: &str, cx: &mut Fields<'_>) -> Result<Value, Error> {
    let first_end = name.find(['.', '[']).unwrap_or(name.len());
    let (arg, mut path) = name.split_at(first_end);
    let mut value = if arg.is_empty() {
        let i = match cx.auto {
            None => 0,
            Some(Numbering::Auto(i)) => i,
            Some(Numbering::Manual) => {
                return Err(error("cannot switch from manual field specification to automatic field numbering"));
            }
        };
        cx.auto = Some(Numbering::Auto(i + 1));
        positional(cx, i)?
    } else if arg.bytes().all(|b| b.is_ascii_digit()) {
        if matches!(cx.auto, Some(Numbering::Auto(_))) {
            return Err(error("cannot switch from automatic field numbering to manual field specification"));
        }
        cx.auto = Some(Numbering::Manual);
        positional(cx, arg.parse().map_err(|_| error("Too many decimal digits in format string"))?)?
    } else {
        match cx.kwargs.filter(|k| k.has(arg)) {
            Some(k) => k.get::<Value>(arg)?,
            None => return Err(error(format!("KeyError: '{arg}'"))),
        }
    };
    while !path.is_empty() {
        if let Some(r) = path.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let (attr, rest) = r.split_at(end);
            if attr.is_empty() {
                return Err(error("Empty attribute in format string"));
            }
            value = get(&value, &Value::from(attr))?;
            path = rest;
        } else if let Some(r) = path.strip_prefix('[') {
            let end = r.find(']').ok_or_else(|| error("Missing ']' in format string"))?;
            let key = r.get(..end).unwrap_or_default();
            if key.is_empty() {
                return Err(error("Empty attribute in format string"));
            }
            let key = match key.parse::<i64>() {
                Ok(i) if key.bytes().all(|b| b.is_ascii_digit()) => Value::from(i),
                _ => Value::from(key),
            };
            value = get(&value, &key)?;
            path = r.get(end + 1..).unwrap_or_default();
            if !path.is_empty() && !path.starts_with(['.', '[']) {
                return Err(error("Only '.' or '[' may follow ']' in format field specifier"));
            }
        } else {
            return Err(error("Only '.' or '[' may follow ']' in format field specifier"));
        }
    }
    Ok(value)
}

fn positional(cx: &Fields<'_>, i: usize) -> Result<Value, Error> {
    cx.positional
        .get(i)
        .cloned()
        .ok_or_else(|| error(format!("IndexError: Replacement index {i} out of range for positional args tuple")))
}

/// The sandbox's lookup: an attribute or item, undefined when missing.
fn get(value: &Value, key: &Value) -> Result<Value, Error> {
    if value.is_undefined() {
        return Err(error("UndefinedError: attribute of an undefined value"));
    }
    Ok(value.get_item(key).unwrap_or_default())
}

/// A parsed format spec: `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`.
#[derive(Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    z: bool,
    alt: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

fn parse_spec(spec: &str) -> Result<Spec, Error> {
    let mut s = Spec::default();
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0usize;
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && chars.get(1).copied().is_some_and(is_align) {
        s.fill = chars.first().copied();
        s.align = chars.get(1).copied();
        i = 2;
    } else if chars.first().copied().is_some_and(is_align) {
        s.align = chars.first().copied();
        i = 1;
    }
    if let Some(&c) = chars.get(i)
        && matches!(c, '+' | '-' | ' ')
    {
        s.sign = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'z') {
        s.z = true;
        i += 1;
    }
    if chars.get(i) == Some(&'#') {
        s.alt = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        s.zero = true;
        i += 1;
    }
    let start = i;
    while chars.get(i).is_some_and(char::is_ascii_digit) {
        i += 1;
    }
    if i > start {
        let digits: String = chars.get(start..i).unwrap_or_default().iter().collect();
        s.width = digits.parse().map_err(|_| error("Too many decimal digits in format string"))?;
    }
    if let Some(&c) = chars.get(i)
        && matches!(c, ',' | '_')
    {
        s.grouping = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        let start = i;
        while chars.get(i).is_some_and(char::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return Err(error("Format specifier missing precision"));
        }
        let digits: String = chars.get(start..i).unwrap_or_default().iter().collect();
        s.precision = Some(digits.parse().map_err(|_| error("Too many decimal digits in format string"))?);
    }
    if let Some(&c) = chars.get(i) {
        s.ty = Some(c);
        i += 1;
    }
    if i < chars.len() {
        return Err(error("Invalid format specifier"));
    }
    Ok(s)
}

/// `format(value, spec)`.
fn format_value(state: &State<'_, '_>, value: &Value, spec: &str) -> Result<String, Error> {
    let numeric = py::is_number(value);
    if spec.is_empty() {
        return py::str_of(value);
    }
    let s = parse_spec(spec)?;
    printf::reserve(state, s.width as u128 + s.precision.unwrap_or(0) as u128)?;
    match value.kind() {
        ValueKind::String => format_str(value.as_str().unwrap_or_default(), &s),
        _ if numeric => {
            if let Some(i) = py::as_int(value) {
                format_int(i, &s)
            } else if value.is_integer() {
                let u = u128::try_from(value.clone()).map_err(|_| error("integer out of range"))?;
                format_big(u, &s)
            } else {
                format_float(py::as_float(value).unwrap_or(0.0), &s)
            }
        }
        _ => Err(error(format!("unsupported format string passed to {}.__format__", py::type_name(value)))),
    }
}

fn format_str(v: &str, s: &Spec) -> Result<String, Error> {
    if !matches!(s.ty, None | Some('s')) {
        return Err(error(format!("Unknown format code '{}' for object of type 'str'", s.ty.unwrap_or(' '))));
    }
    if s.sign.is_some() {
        return Err(error("Sign not allowed in string format specifier"));
    }
    if s.alt {
        return Err(error("Alternate form (#) not allowed in string format specifier"));
    }
    if s.grouping.is_some() {
        return Err(error("Cannot specify ',' with 's'."));
    }
    if s.align == Some('=') {
        return Err(error("'=' alignment not allowed in string format specifier"));
    }
    let text: String = match s.precision {
        Some(p) => v.chars().take(p).collect(),
        None => v.to_owned(),
    };
    let fill = s.fill.unwrap_or(if s.zero { '0' } else { ' ' });
    Ok(align(&text, "", s.width, fill, s.align.unwrap_or('<')))
}

/// Pads `body` (after `sign`) to `width`.
fn align(body: &str, sign: &str, width: usize, fill: char, how: char) -> String {
    let len = sign.chars().count() + body.chars().count();
    let pad = width.saturating_sub(len);
    let (left, right) = match how {
        '<' => (0, pad),
        '^' => (pad / 2, pad - pad / 2),
        '=' => {
            let mut out = String::with_capacity(width);
            out.push_str(sign);
            out.extend(std::iter::repeat_n(fill, pad));
            out.push_str(body);
            return out;
        }
        _ => (pad, 0),
    };
    let mut out = String::with_capacity(width.max(len));
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(sign);
    out.push_str(body);
    out.extend(std::iter::repeat_n(fill, right));
    out
}

fn sign_str(negative: bool, sign: Option<char>) -> &'static str {
    match (negative, sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    }
}

/// Inserts `sep` every `every` digits from the right of the integer part of `digits`.
fn group(digits: &str, sep: char, every: usize) -> String {
    let (int_part, frac) = match digits.find(|c: char| !c.is_ascii_alphanumeric()) {
        Some(i) => digits.split_at(i),
        None => (digits, ""),
    };
    let n = int_part.chars().count();
    let mut out = String::with_capacity(digits.len() + n / every);
    for (i, c) in int_part.chars().enumerate() {
        if i > 0 && (n - i) % every == 0 {
            out.push(sep);
        }
        out.push(c);
    }
    out.push_str(frac);
    out
}

/// The numeric layout shared by ints and floats: sign, prefix, grouping, zero padding.
fn finish_number(negative: bool, prefix: &str, digits: &str, s: &Spec, group_every: usize) -> String {
    let body = match s.grouping {
        Some(sep) => group(digits, sep, group_every),
        None => digits.to_owned(),
    };
    let sign = format!("{}{prefix}", sign_str(negative, s.sign));
    let (fill, how) = match (s.fill, s.align) {
        (f, Some(a)) => (f.unwrap_or(if s.zero { '0' } else { ' ' }), a),
        (None, None) if s.zero => ('0', '='),
        (f, None) => (f.unwrap_or(' '), '>'),
    };
    align(&body, &sign, s.width, fill, how)
}

fn format_int(i: i128, s: &Spec) -> Result<String, Error> {
    let negative = i < 0;
    let a = i.unsigned_abs();
    let (prefix, digits, every) = match s.ty {
        None | Some('d') | Some('n') => ("", a.to_string(), 3),
        Some('b') => (if s.alt { "0b" } else { "" }, format!("{a:b}"), 4),
        Some('o') => (if s.alt { "0o" } else { "" }, format!("{a:o}"), 4),
        Some('x') => (if s.alt { "0x" } else { "" }, format!("{a:x}"), 4),
        Some('X') => (if s.alt { "0X" } else { "" }, format!("{a:X}"), 4),
        Some('c') => {
            if s.sign.is_some() {
                return Err(error("Sign not allowed with integer format specifier 'c'"));
            }
            let c =
                u32::try_from(i).ok().and_then(char::from_u32).ok_or_else(|| error("%c arg not in range(0x110000)"))?;
            return Ok(align(&c.to_string(), "", s.width, s.fill.unwrap_or(' '), s.align.unwrap_or('>')));
        }
        Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => return format_float(i as f64, s),
        Some(c) => return Err(error(format!("Unknown format code '{c}' for object of type 'int'"))),
    };
    if s.precision.is_some() {
        return Err(error("Precision not allowed in integer format specifier"));
    }
    if s.grouping == Some(',') && every == 4 {
        return Err(error(format!("Cannot specify ',' with '{}'.", s.ty.unwrap_or(' '))));
    }
    Ok(finish_number(negative, prefix, &digits, s, every))
}

fn format_big(u: u128, s: &Spec) -> Result<String, Error> {
    match s.ty {
        None | Some('d') | Some('n') => Ok(finish_number(false, "", &u.to_string(), s, 3)),
        Some('x') => Ok(finish_number(false, if s.alt { "0x" } else { "" }, &format!("{u:x}"), s, 4)),
        Some('X') => Ok(finish_number(false, if s.alt { "0X" } else { "" }, &format!("{u:X}"), s, 4)),
        Some('o') => Ok(finish_number(false, if s.alt { "0o" } else { "" }, &format!("{u:o}"), s, 4)),
        Some('b') => Ok(finish_number(false, if s.alt { "0b" } else { "" }, &format!("{u:b}"), s, 4)),
        _ => format_float(u as f64, s),
    }
}

fn format_float(x: f64, s: &Spec) -> Result<String, Error> {
    let negative = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    let upper = s.ty.is_some_and(|t| t.is_ascii_uppercase());
    let mut digits = if !a.is_finite() {
        let t = if a.is_nan() { "nan" } else { "inf" };
        let t = if s.ty == Some('%') { format!("{t}%") } else { t.to_owned() };
        if upper { t.to_ascii_uppercase() } else { t }
    } else {
        match s.ty {
            Some('e' | 'E') => printf::exponent(a, s.precision.unwrap_or(6), s.alt),
            Some('f' | 'F') => printf::fixed(a, s.precision.unwrap_or(6), s.alt),
            Some('g' | 'G' | 'n') => printf::general(a, s.precision.unwrap_or(6), s.alt),
            Some('%') => format!("{}%", printf::fixed(a * 100.0, s.precision.unwrap_or(6), s.alt)),
            None => match s.precision {
                None => {
                    let r = crate::pyrepr::repr_float(a);
                    if s.alt && !r.contains(['.', 'e', 'n', 'i']) { format!("{r}.") } else { r }
                }
                Some(p) => shortest_general(a, p, s.alt),
            },
            Some(c) => return Err(error(format!("Unknown format code '{c}' for object of type 'float'"))),
        }
    };
    if upper {
        digits = digits.to_ascii_uppercase();
    }
    // `z` turns a negative zero (after rounding) into a positive one.
    let negative = negative && !(s.z && digits.bytes().all(|b| !matches!(b, b'1'..=b'9')));
    Ok(finish_number(negative, "", &digits, s, 3))
}

/// The empty type with a precision: `g` with "add `.0`", which moves the switch to exponent
/// notation to `exp >= p - 1` and keeps one digit after the point in fixed notation.
fn shortest_general(a: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    let probe = format!("{a:.prec$e}", prec = p - 1);
    let exp: i64 = probe.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let p_i = i64::try_from(p).unwrap_or(i64::MAX);
    if (-4..p_i - 1).contains(&exp) {
        let digits = usize::try_from(p_i - 1 - exp).unwrap_or(0);
        let s = format!("{a:.digits$}");
        let s = if alt || !s.contains('.') { s } else { s.trim_end_matches('0').trim_end_matches('.').to_owned() };
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let s = printf::exponent(a, p - 1, alt);
        if alt {
            return s;
        }
        let (m, e) = s.split_at(s.find('e').unwrap_or(s.len()));
        let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.') } else { m };
        format!("{m}{e}")
    }
}
