//! Python's printf-style string formatting, `format % values` (and the `format` filter).
//!
//! Follows CPython's `PyUnicode_Format`: a tuple supplies the arguments in order, any other
//! value is the single argument; a mapping (or list) on the right side also serves `%(key)s`
//! and is not "left over". Conversions `s r a d i u o x X e E f F g G c` and `%%`; flags
//! `-+ #0`, width and precision (also `*`). Errors are those Python raises (type errors for
//! missing or extra arguments, wrong argument types, unknown conversions).

use minijinja::value::{Value, ValueKind};
use minijinja::{Error, State};

use super::budget::{self, Text};
use super::py::{self, error};
use crate::pyrepr;

/// Widths and precisions above this are refused (Python would build the huge string).
pub(crate) const MAX_WIDTH: usize = 1 << 20;

/// Pays for `n` bytes of padding a width or precision asks for: fuel in proportion, and a
/// render-budget refusal above [`MAX_WIDTH`] (also when fuel is not tracked).
pub(crate) fn reserve(state: &State<'_, '_>, n: u128) -> Result<(), Error> {
    state.consume_fuel(u64::try_from(n / 8).unwrap_or(u64::MAX))?;
    if n > MAX_WIDTH as u128 {
        return Err(budget::refusal(format!(
            "a width or precision of {n} is above the limit of {MAX_WIDTH} (the largest padding one \
             conversion may ask for)"
        )));
    }
    budget::reserve(n)
}

/// `format % args`.
pub(crate) fn format(state: &State<'_, '_>, format: &str, args: &Value) -> Result<String, Error> {
    let mut cx = Args::new(args);
    let mut out = Text::new();
    let mut rest = format;
    while let Some(pos) = rest.find('%') {
        out.push_str(rest.get(..pos).unwrap_or_default())?;
        let spec = rest.get(pos + 1..).unwrap_or_default();
        if let Some(after) = spec.strip_prefix('%') {
            out.push('%')?;
            rest = after;
            continue;
        }
        let index = format.len() - spec.len() - 1;
        rest = conversion(state, spec, index, &mut cx, &mut out)?;
    }
    out.push_str(rest)?;
    if cx.left_over() {
        return Err(error("not all arguments converted during string formatting"));
    }
    Ok(out.into_string())
}

/// The right side of `%`, consumed as CPython does.
struct Args {
    args: Value,
    /// Number of tuple items, or -1 for a single argument.
    len: isize,
    /// Next tuple index; for a single argument -2 before and -1 after it is used.
    idx: isize,
    /// The mapping for `%(key)` conversions.
    dict: Option<Value>,
}

impl Args {
    fn new(args: &Value) -> Args {
        let tuple = args.is_tuple();
        let (len, idx) = if tuple { (args.len().map_or(0, |n| n as isize), 0) } else { (-1, -2) };
        // PyMapping_Check minus tuples and strings: dicts and lists (and Jinja2's Undefined).
        let dict = match args.kind() {
            ValueKind::Map | ValueKind::Undefined => Some(args.clone()),
            _ if py::is_list(args) => Some(args.clone()),
            _ => None,
        };
        Args { args: args.clone(), len, idx, dict }
    }

    fn next(&mut self) -> Result<Value, Error> {
        if self.idx < self.len {
            let i = self.idx;
            self.idx += 1;
            if self.len < 0 {
                return Ok(self.args.clone());
            }
            return self.args.get_item_by_index(usize::try_from(i).unwrap_or(0));
        }
        Err(error("not enough arguments for format string"))
    }

    fn by_key(&mut self, key: &str) -> Result<(), Error> {
        let dict = self.dict.as_ref().ok_or_else(|| error("format requires a mapping"))?;
        let item = match dict.kind() {
            ValueKind::Map => {
                let v = dict.get_item(&Value::from(key))?;
                if v.is_undefined() {
                    return Err(error(format!("KeyError: {}", pyrepr::repr_str(key))));
                }
                v
            }
            ValueKind::Undefined => return Err(error("UndefinedError: the mapping is undefined")),
            _ => return Err(error(format!("{} indices must be integers or slices, not str", py::type_name(dict)))),
        };
        self.args = item;
        self.len = -1;
        self.idx = -2;
        Ok(())
    }

    fn left_over(&self) -> bool {
        self.idx < self.len && self.dict.is_none()
    }
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// Parses and applies one conversion; `spec` starts after the `%`. Returns the rest.
fn conversion<'a>(
    state: &State<'_, '_>,
    spec: &'a str,
    index: usize,
    cx: &mut Args,
    out: &mut Text,
) -> Result<&'a str, Error> {
    let mut s = spec;
    if let Some(after) = s.strip_prefix('(') {
        let mut depth = 1usize;
        let mut end = None;
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| error("incomplete format key"))?;
        cx.by_key(after.get(..end).unwrap_or_default())?;
        s = after.get(end + 1..).unwrap_or_default();
    }
    let mut f = Spec::default();
    loop {
        match s.as_bytes().first() {
            Some(b'-') => f.left = true,
            Some(b'+') => f.plus = true,
            Some(b' ') => f.space = true,
            Some(b'#') => f.alt = true,
            Some(b'0') => f.zero = true,
            _ => break,
        }
        s = s.get(1..).unwrap_or_default();
    }
    if let Some(after) = s.strip_prefix('*') {
        let w = star(cx)?;
        if w < 0 {
            f.left = true;
        }
        f.width = usize::try_from(w.unsigned_abs()).unwrap_or(usize::MAX);
        s = after;
    } else {
        let (n, after) = digits(s)?;
        f.width = n.unwrap_or(0);
        s = after;
    }
    if let Some(after) = s.strip_prefix('.') {
        if let Some(after) = after.strip_prefix('*') {
            f.precision = Some(usize::try_from(star(cx)?.max(0)).unwrap_or(usize::MAX));
            s = after;
        } else {
            let (n, after) = digits(after)?;
            f.precision = Some(n.unwrap_or(0));
            s = after;
        }
    }
    reserve(state, f.width as u128 + f.precision.unwrap_or(0) as u128)?;
    s = s.trim_start_matches(['h', 'l', 'L']);
    let Some(ch) = s.chars().next() else {
        return Err(error("incomplete format"));
    };
    let rest = s.get(ch.len_utf8()..).unwrap_or_default();
    if f.left {
        f.zero = false;
    }
    let arg = cx.next()?;
    let text = match ch {
        's' => truncate(py::str_of(&arg)?, f.precision),
        'r' => truncate(py::repr_of(&arg)?, f.precision),
        'a' => truncate(py::ascii_of(&arg)?, f.precision),
        'd' | 'i' | 'u' => return finish(out, &f, integer(&arg, ch, &f)?, rest),
        'o' | 'x' | 'X' => return finish(out, &f, integer(&arg, ch, &f)?, rest),
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let x = py::number_as_f64(&arg)
                .ok_or_else(|| error(format!("must be real number, not {}", py::type_name(&arg))))?;
            return finish(out, &f, float(x, ch, &f), rest);
        }
        'c' => character(&arg)?,
        _ => {
            return Err(error(format!(
                "unsupported format character '{ch}' ({:#x}) at index {}",
                u32::from(ch),
                index + spec.len() - s.len()
            )));
        }
    };
    pad(out, &text, f.width, f.left)?;
    Ok(rest)
}

/// A `*` width or precision: the next argument, which must be an int.
fn star(cx: &mut Args) -> Result<i128, Error> {
    let v = cx.next()?;
    py::as_int(&v).ok_or_else(|| error("* wants int"))
}

fn digits(s: &str) -> Result<(Option<usize>, &str), Error> {
    let end = s.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 {
        return Ok((None, s));
    }
    let n = s.get(..end).unwrap_or_default().parse::<usize>().map_err(|_| error("width too big"))?;
    Ok((Some(n), s.get(end..).unwrap_or_default()))
}

fn truncate(s: String, precision: Option<usize>) -> String {
    match precision {
        Some(p) => s.chars().take(p).collect(),
        None => s,
    }
}

fn pad(out: &mut Text, text: &str, width: usize, left: bool) -> Result<(), Error> {
    let n = text.chars().count();
    let fill = width.saturating_sub(n);
    if !left {
        out.push_repeated(' ', fill)?;
    }
    out.push_str(text)?;
    if left {
        out.push_repeated(' ', fill)?;
    }
    Ok(())
}

/// A formatted number: sign, prefix (`0x`), digits.
struct Number {
    negative: bool,
    prefix: &'static str,
    body: String,
}

fn finish<'a>(out: &mut Text, f: &Spec, n: Number, rest: &'a str) -> Result<&'a str, Error> {
    let sign = if n.negative {
        "-"
    } else if f.plus {
        "+"
    } else if f.space {
        " "
    } else {
        ""
    };
    let len = sign.len() + n.prefix.len() + n.body.chars().count();
    let fill = f.width.saturating_sub(len);
    if f.left {
        out.push_str(sign)?;
        out.push_str(n.prefix)?;
        out.push_str(&n.body)?;
        out.push_repeated(' ', fill)?;
    } else if f.zero {
        out.push_str(sign)?;
        out.push_str(n.prefix)?;
        out.push_repeated('0', fill)?;
        out.push_str(&n.body)?;
    } else {
        out.push_repeated(' ', fill)?;
        out.push_str(sign)?;
        out.push_str(n.prefix)?;
        out.push_str(&n.body)?;
    }
    Ok(rest)
}

/// `%d %i %u` (any real number, truncated) and `%o %x %X` (integers only).
fn integer(arg: &Value, ch: char, f: &Spec) -> Result<Number, Error> {
    let (negative, magnitude): (bool, String) = if let Some(i) = py::as_int(arg) {
        (
            i < 0,
            match ch {
                'o' => format!("{:o}", i.unsigned_abs()),
                'x' => format!("{:x}", i.unsigned_abs()),
                'X' => format!("{:X}", i.unsigned_abs()),
                _ => i.unsigned_abs().to_string(),
            },
        )
    } else if arg.is_integer() {
        // Above i128: only u128 values reach here.
        let u = u128::try_from(arg.clone()).map_err(|_| error("integer out of range"))?;
        (
            false,
            match ch {
                'o' => format!("{u:o}"),
                'x' => format!("{u:x}"),
                'X' => format!("{u:X}"),
                _ => u.to_string(),
            },
        )
    } else if let (Some(x), true) = (py::as_float(arg), matches!(ch, 'd' | 'i' | 'u')) {
        if x.is_nan() {
            return Err(error("cannot convert float NaN to integer"));
        }
        if x.is_infinite() {
            return Err(error("cannot convert float infinity to integer"));
        }
        let t = x.trunc();
        (t < 0.0, format!("{:.0}", t.abs()))
    } else if matches!(ch, 'd' | 'i' | 'u') {
        return Err(error(format!("%{ch} format: a real number is required, not {}", py::type_name(arg))));
    } else {
        return Err(error(format!("%{ch} format: an integer is required, not {}", py::type_name(arg))));
    };
    let mut body = magnitude;
    if let Some(p) = f.precision
        && body.len() < p
    {
        body.insert_str(0, &"0".repeat(p - body.len()));
    }
    let prefix = match (ch, f.alt) {
        ('o', true) => "0o",
        ('x', true) => "0x",
        ('X', true) => "0X",
        _ => "",
    };
    Ok(Number { negative, prefix, body })
}

fn character(arg: &Value) -> Result<String, Error> {
    if let Some(i) = py::as_int(arg) {
        return u32::try_from(i)
            .ok()
            .and_then(char::from_u32)
            .map(String::from)
            .ok_or_else(|| error("%c arg not in range(0x110000)"));
    }
    match arg.as_str() {
        Some(s) if s.chars().count() == 1 => Ok(s.to_owned()),
        _ => Err(error("%c requires int or char")),
    }
}

/// `%e %E %f %F %g %G` of a float.
fn float(x: f64, ch: char, f: &Spec) -> Number {
    let upper = ch.is_ascii_uppercase();
    let negative = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    if !a.is_finite() {
        let body = if a.is_nan() { "nan" } else { "inf" };
        let body = if upper { body.to_ascii_uppercase() } else { body.to_owned() };
        return Number { negative, prefix: "", body };
    }
    let precision = f.precision.unwrap_or(6);
    let body = match ch.to_ascii_lowercase() {
        'e' => exponent(a, precision, f.alt),
        'f' => fixed(a, precision, f.alt),
        _ => general(a, precision, f.alt),
    };
    let body = if upper { body.to_ascii_uppercase() } else { body };
    Number { negative, prefix: "", body }
}

/// `%.Nf` of a non-negative finite float.
pub(crate) fn fixed(a: f64, precision: usize, alt: bool) -> String {
    let mut s = format!("{a:.precision$}");
    if alt && precision == 0 {
        s.push('.');
    }
    s
}

/// `f"{x:.Nf}"` of any float (`inf`, `nan` as Python writes them).
pub(crate) fn fixed_signed(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf".to_owned() } else { "inf".to_owned() };
    }
    format!("{x:.precision$}")
}

/// `%.Ne` of a non-negative finite float: `d.ddde+XX`.
pub(crate) fn exponent(a: f64, precision: usize, alt: bool) -> String {
    let s = format!("{a:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alt && precision == 0 { "." } else { "" };
    format!("{mantissa}{dot}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
}

/// `%.Ng` of a non-negative finite float.
pub(crate) fn general(a: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    let probe = format!("{a:.prec$e}", prec = p - 1);
    let exp: i64 = probe.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let p_i = i64::try_from(p).unwrap_or(i64::MAX);
    let mut s = if (-4..p_i).contains(&exp) {
        let digits = usize::try_from(p_i - 1 - exp).unwrap_or(0);
        format!("{a:.digits$}")
    } else {
        exponent(a, p - 1, false)
    };
    if alt {
        if !s.contains('.') {
            match s.find('e') {
                Some(i) => s.insert(i, '.'),
                None => s.push('.'),
            }
        }
    } else {
        s = strip_zeros(&s);
    }
    s
}

/// Drops trailing zeros of the fraction (and a bare `.`), keeping an exponent.
fn strip_zeros(s: &str) -> String {
    let (num, exp) = match s.find('e') {
        Some(i) => s.split_at(i),
        None => (s, ""),
    };
    let num = if num.contains('.') { num.trim_end_matches('0').trim_end_matches('.') } else { num };
    format!("{num}{exp}")
}
