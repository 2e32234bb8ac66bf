//! Python literals as `ast.literal_eval` reads them, as JSON values: what promptflow-core
//! makes of the list after an assistant message's `tool_calls:` label.
//!
//! Accepted: strings (`'`, `"`, triple quotes, `r`/`u` prefixes, implicit concatenation,
//! Python's escapes), numbers (`_` separators, `0x`/`0o`/`0b`, floats, a sign), `True`,
//! `False`, `None`, lists, tuples (as lists), dicts, and `#` comments. What `literal_eval`
//! rejects is [`LiteralError::Syntax`] (promptflow then keeps the text as content); a value
//! it accepts but JSON cannot carry (bytes, sets, complex numbers, `...`, integers beyond 64
//! bits, infinite floats, non-scalar dict keys) is [`LiteralError::NotJson`].

use serde_json::{Map, Number, Value};

/// Why a text is not read as a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiteralError {
    /// Not a Python literal (`ast.literal_eval` raises).
    Syntax,
    /// A Python literal with a value JSON cannot carry: what it is.
    NotJson(&'static str),
}

impl std::fmt::Display for LiteralError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiteralError::Syntax => f.write_str("not a Python literal"),
            LiteralError::NotJson(what) => write!(f, "a Python literal JSON cannot carry: {what}"),
        }
    }
}

impl std::error::Error for LiteralError {}

/// Nesting Python's parser accepts (it stops at 200 nested brackets).
const MAX_DEPTH: usize = 200;

/// `ast.literal_eval(src)` as a JSON value.
pub fn literal_eval(src: &str) -> Result<Value, LiteralError> {
    let mut p = Parser { s: src.as_bytes(), src, i: 0, depth: 0 };
    p.skip_ws(false);
    let v = p.expr(false)?;
    p.skip_ws(false);
    if p.i != p.s.len() {
        return Err(LiteralError::Syntax);
    }
    v.into_json()
}

/// A parsed literal, before it is known to fit JSON.
enum Lit {
    Str(String),
    Bytes,
    Int(i128),
    BigInt,
    Float(f64),
    Complex,
    Bool(bool),
    None,
    Ellipsis,
    List(Vec<Lit>),
    Set,
    Dict(Vec<(Lit, Lit)>),
}

impl Lit {
    fn into_json(self) -> Result<Value, LiteralError> {
        Ok(match self {
            Lit::Str(s) => Value::String(s),
            Lit::Bytes => return Err(LiteralError::NotJson("a bytes value")),
            Lit::Int(n) => {
                if let Ok(v) = i64::try_from(n) {
                    Value::from(v)
                } else if let Ok(v) = u64::try_from(n) {
                    Value::from(v)
                } else {
                    return Err(LiteralError::NotJson("an integer beyond 64 bits"));
                }
            }
            Lit::BigInt => return Err(LiteralError::NotJson("an integer beyond 64 bits")),
            Lit::Float(f) => match Number::from_f64(f) {
                Some(n) => Value::Number(n),
                None => return Err(LiteralError::NotJson("an infinite float")),
            },
            Lit::Complex => return Err(LiteralError::NotJson("a complex number")),
            Lit::Bool(b) => Value::Bool(b),
            Lit::None => Value::Null,
            Lit::Ellipsis => return Err(LiteralError::NotJson("an Ellipsis (`...`)")),
            Lit::List(items) => Value::Array(items.into_iter().map(Lit::into_json).collect::<Result<_, _>>()?),
            Lit::Set => return Err(LiteralError::NotJson("a set")),
            Lit::Dict(pairs) => {
                let mut map = Map::new();
                for (k, v) in pairs {
                    // The keys `json.dumps` writes: strings as they are, scalars as text.
                    let key = match k {
                        Lit::Str(s) => s,
                        Lit::Int(n) => n.to_string(),
                        Lit::Bool(b) => b.to_string(),
                        Lit::None => "null".to_owned(),
                        Lit::Float(f) if f.is_finite() => crate::repr_float(f),
                        _ => return Err(LiteralError::NotJson("a dict key that is not a string or number")),
                    };
                    map.insert(key, v.into_json()?);
                }
                Value::Object(map)
            }
        })
    }
}

struct Parser<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    /// Spaces, tabs, form feeds, comments; line breaks too inside brackets.
    fn skip_ws(&mut self, bracketed: bool) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\x0c' => self.i += 1,
                b'\r' | b'\n' if bracketed => self.i += 1,
                b'\\' if matches!(self.s.get(self.i + 1), Some(b'\n')) => self.i += 2,
                b'#' => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn eat(&mut self, c: u8, bracketed: bool) -> bool {
        self.skip_ws(bracketed);
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// `item (, item)* ,?`: a tuple when there is a comma.
    fn expr(&mut self, bracketed: bool) -> Result<Lit, LiteralError> {
        let first = self.item(bracketed)?;
        if !self.eat(b',', bracketed) {
            return Ok(first);
        }
        let mut items = vec![first];
        loop {
            self.skip_ws(bracketed);
            if self.at_close() {
                break;
            }
            items.push(self.item(bracketed)?);
            if !self.eat(b',', bracketed) {
                break;
            }
        }
        Ok(Lit::List(items))
    }

    fn at_close(&self) -> bool {
        matches!(self.peek(), None | Some(b')' | b']' | b'}'))
    }

    /// A signed number, possibly `real +/- imaginary`, or an atom.
    fn item(&mut self, bracketed: bool) -> Result<Lit, LiteralError> {
        self.skip_ws(bracketed);
        let sign = match self.peek() {
            Some(c @ (b'+' | b'-')) => {
                self.i += 1;
                self.skip_ws(bracketed);
                Some(c)
            }
            _ => None,
        };
        let atom = self.atom(bracketed)?;
        let value = match sign {
            None => atom,
            Some(s) => match atom {
                Lit::Int(n) if s == b'-' => Lit::Int(-n),
                Lit::Float(f) if s == b'-' => Lit::Float(-f),
                n @ (Lit::Int(_) | Lit::Float(_) | Lit::BigInt | Lit::Complex) => n,
                _ => return Err(LiteralError::Syntax),
            },
        };
        // `literal_eval` takes `+`/`-` between two numbers only to write a complex number.
        let save = self.i;
        self.skip_ws(bracketed);
        if matches!(self.peek(), Some(b'+' | b'-')) && matches!(value, Lit::Int(_) | Lit::Float(_) | Lit::BigInt) {
            self.i += 1;
            self.skip_ws(bracketed);
            return match self.atom(bracketed)? {
                Lit::Complex => Ok(Lit::Complex),
                _ => Err(LiteralError::Syntax),
            };
        }
        self.i = save;
        Ok(value)
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, LiteralError>) -> Result<T, LiteralError> {
        if self.depth >= MAX_DEPTH {
            return Err(LiteralError::Syntax);
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn atom(&mut self, bracketed: bool) -> Result<Lit, LiteralError> {
        self.skip_ws(bracketed);
        let c = self.peek().ok_or(LiteralError::Syntax)?;
        match c {
            b'[' => {
                self.i += 1;
                self.nested(|p| {
                    let mut items = Vec::new();
                    loop {
                        p.skip_ws(true);
                        if p.eat(b']', true) {
                            return Ok(Lit::List(items));
                        }
                        items.push(p.item(true)?);
                        if !p.eat(b',', true) {
                            return if p.eat(b']', true) { Ok(Lit::List(items)) } else { Err(LiteralError::Syntax) };
                        }
                    }
                })
            }
            b'(' => {
                self.i += 1;
                self.nested(|p| {
                    if p.eat(b')', true) {
                        return Ok(Lit::List(Vec::new()));
                    }
                    let v = p.expr(true)?;
                    if p.eat(b')', true) { Ok(v) } else { Err(LiteralError::Syntax) }
                })
            }
            b'{' => {
                self.i += 1;
                self.nested(Parser::dict_or_set)
            }
            b'\'' | b'"' => self.strings(bracketed),
            b'0'..=b'9' | b'.' => self.number(),
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.i;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
                    self.i += 1;
                }
                let word = self.src.get(start..self.i).unwrap_or("");
                match word {
                    "True" => Ok(Lit::Bool(true)),
                    "False" => Ok(Lit::Bool(false)),
                    "None" => Ok(Lit::None),
                    // `set()`: the one call `literal_eval` takes.
                    "set" if self.eat(b'(', bracketed) && self.eat(b')', true) => Ok(Lit::Set),
                    _ if matches!(self.peek(), Some(b'\'' | b'"')) && is_string_prefix(word) => {
                        self.i = start;
                        self.strings(bracketed)
                    }
                    _ => Err(LiteralError::Syntax),
                }
            }
            _ => Err(LiteralError::Syntax),
        }
    }

    fn dict_or_set(&mut self) -> Result<Lit, LiteralError> {
        if self.eat(b'}', true) {
            return Ok(Lit::Dict(Vec::new()));
        }
        let first = self.item(true)?;
        if self.eat(b':', true) {
            let mut pairs = vec![(first, self.item(true)?)];
            loop {
                if !self.eat(b',', true) {
                    return if self.eat(b'}', true) { Ok(Lit::Dict(pairs)) } else { Err(LiteralError::Syntax) };
                }
                if self.eat(b'}', true) {
                    return Ok(Lit::Dict(pairs));
                }
                let k = self.item(true)?;
                if !self.eat(b':', true) {
                    return Err(LiteralError::Syntax);
                }
                pairs.push((k, self.item(true)?));
            }
        }
        loop {
            if !self.eat(b',', true) {
                return if self.eat(b'}', true) { Ok(Lit::Set) } else { Err(LiteralError::Syntax) };
            }
            if self.eat(b'}', true) {
                return Ok(Lit::Set);
            }
            self.item(true)?;
        }
    }

    /// One or more adjacent string literals, concatenated (str and bytes do not mix).
    fn strings(&mut self, bracketed: bool) -> Result<Lit, LiteralError> {
        let mut text = String::new();
        let mut bytes = None;
        loop {
            let (is_bytes, piece) = self.string()?;
            if bytes.is_some_and(|b| b != is_bytes) {
                return Err(LiteralError::Syntax);
            }
            bytes = Some(is_bytes);
            text.push_str(&piece);
            let save = self.i;
            self.skip_ws(bracketed);
            let start = self.i;
            while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                self.i += 1;
            }
            let prefix = self.src.get(start..self.i).unwrap_or("");
            let next_is_string = matches!(self.peek(), Some(b'\'' | b'"')) && is_string_prefix(prefix);
            self.i = if next_is_string { start } else { save };
            if !next_is_string {
                break;
            }
        }
        Ok(if bytes == Some(true) { Lit::Bytes } else { Lit::Str(text) })
    }

    /// One string literal with its prefix: (is bytes, value).
    fn string(&mut self) -> Result<(bool, String), LiteralError> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        let prefix = self.src.get(start..self.i).unwrap_or("").to_ascii_lowercase();
        if !is_string_prefix(&prefix) || prefix.contains('f') {
            // f-strings are not literals.
            return Err(LiteralError::Syntax);
        }
        let raw = prefix.contains('r');
        let is_bytes = prefix.contains('b');
        let quote = self.peek().ok_or(LiteralError::Syntax)?;
        let triple = self.s.get(self.i..self.i + 3).is_some_and(|t| t.iter().all(|&c| c == quote));
        self.i += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let rest = self.src.get(self.i..).ok_or(LiteralError::Syntax)?;
            let c = rest.chars().next().ok_or(LiteralError::Syntax)?;
            if c as u32 == u32::from(quote) {
                if !triple {
                    self.i += 1;
                    return Ok((is_bytes, out));
                }
                if rest.as_bytes().get(..3).is_some_and(|t| t.iter().all(|&b| b == quote)) {
                    self.i += 3;
                    return Ok((is_bytes, out));
                }
            }
            if c == '\n' && !triple {
                return Err(LiteralError::Syntax);
            }
            if is_bytes && !c.is_ascii() {
                return Err(LiteralError::Syntax);
            }
            if c == '\\' {
                self.i += 1;
                let e = self.src.get(self.i..).and_then(|r| r.chars().next()).ok_or(LiteralError::Syntax)?;
                if raw {
                    // A raw string keeps the backslash; it still cannot end on it.
                    out.push('\\');
                    out.push(e);
                    self.i += e.len_utf8();
                    continue;
                }
                self.escape(e, is_bytes, &mut out)?;
                continue;
            }
            out.push(c);
            self.i += c.len_utf8();
        }
    }

    /// The escape after a backslash (`e`, not yet consumed).
    fn escape(&mut self, e: char, is_bytes: bool, out: &mut String) -> Result<(), LiteralError> {
        self.i += e.len_utf8();
        let simple = match e {
            '\n' => Some(None),
            '\\' => Some(Some('\\')),
            '\'' => Some(Some('\'')),
            '"' => Some(Some('"')),
            'a' => Some(Some('\x07')),
            'b' => Some(Some('\x08')),
            'f' => Some(Some('\x0c')),
            'n' => Some(Some('\n')),
            'r' => Some(Some('\r')),
            't' => Some(Some('\t')),
            'v' => Some(Some('\x0b')),
            _ => None,
        };
        if let Some(c) = simple {
            out.extend(c);
            return Ok(());
        }
        let hex = |p: &mut Self, n: usize| -> Result<u32, LiteralError> {
            let digits = p.src.get(p.i..p.i + n).ok_or(LiteralError::Syntax)?;
            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(LiteralError::Syntax);
            }
            p.i += n;
            u32::from_str_radix(digits, 16).map_err(|_| LiteralError::Syntax)
        };
        let code = match e {
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            self.i += 1;
                        }
                        _ => break,
                    }
                }
                v
            }
            'x' => hex(self, 2)?,
            'u' if !is_bytes => hex(self, 4)?,
            'U' if !is_bytes => hex(self, 8)?,
            // `\N{name}` needs Unicode's name table; reading it as something else would be
            // wrong, so the literal is not read.
            'N' if !is_bytes => return Err(LiteralError::Syntax),
            other => {
                // Python keeps an unknown escape as written.
                out.push('\\');
                out.push(other);
                return Ok(());
            }
        };
        // A lone surrogate is a Python string JSON cannot carry.
        let c = char::from_u32(code).ok_or(LiteralError::NotJson("a string with a lone surrogate"))?;
        out.push(c);
        Ok(())
    }

    fn number(&mut self) -> Result<Lit, LiteralError> {
        let start = self.i;
        let b = self.s;
        let digits = |p: &mut Self, ok: fn(u8) -> bool| {
            while p.peek().is_some_and(|c| ok(c) || (c == b'_' && p.s.get(p.i + 1).is_some_and(|&n| ok(n)))) {
                p.i += 1;
            }
        };
        if b.get(self.i) == Some(&b'0') && matches!(b.get(self.i + 1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B')) {
            let radix = match b.get(self.i + 1).map(u8::to_ascii_lowercase) {
                Some(b'x') => 16,
                Some(b'o') => 8,
                _ => 2,
            };
            self.i += 2;
            if self.peek() == Some(b'_') {
                self.i += 1;
            }
            let from = self.i;
            digits(
                self,
                match radix {
                    16 => |c: u8| c.is_ascii_hexdigit(),
                    8 => |c: u8| (b'0'..=b'7').contains(&c),
                    _ => |c: u8| c == b'0' || c == b'1',
                },
            );
            let text: String = self.src.get(from..self.i).unwrap_or("").chars().filter(|&c| c != '_').collect();
            if text.is_empty() || self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                return Err(LiteralError::Syntax);
            }
            return Ok(i128::from_str_radix(&text, radix).map_or(Lit::BigInt, Lit::Int));
        }
        digits(self, |c| c.is_ascii_digit());
        let mut float = false;
        if self.peek() == Some(b'.') {
            float = true;
            self.i += 1;
            digits(self, |c| c.is_ascii_digit());
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let save = self.i;
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            let exp_start = self.i;
            digits(self, |c| c.is_ascii_digit());
            if self.i == exp_start {
                self.i = save;
            } else {
                float = true;
            }
        }
        let text: String = self.src.get(start..self.i).unwrap_or("").chars().filter(|&c| c != '_').collect();
        if text == "." || text.is_empty() {
            // `...` is Ellipsis.
            if self.src.get(start..).is_some_and(|r| r.starts_with("...")) {
                self.i = start + 3;
                return Ok(Lit::Ellipsis);
            }
            return Err(LiteralError::Syntax);
        }
        if matches!(self.peek(), Some(b'j' | b'J')) {
            self.i += 1;
            return Ok(Lit::Complex);
        }
        if self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return Err(LiteralError::Syntax);
        }
        if float {
            return text.parse::<f64>().map(Lit::Float).map_err(|_| LiteralError::Syntax);
        }
        // Decimal integers other than zero take no leading zeros.
        if text.len() > 1 && text.starts_with('0') && text.bytes().any(|c| c != b'0') {
            return Err(LiteralError::Syntax);
        }
        Ok(text.parse::<i128>().map_or(Lit::BigInt, Lit::Int))
    }
}

fn is_string_prefix(p: &str) -> bool {
    matches!(p.to_ascii_lowercase().as_str(), "" | "r" | "u" | "b" | "br" | "rb" | "f" | "fr" | "rf")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_what_literal_eval_reads() {
        let cases = [
            (
                "[{'id': 'call_1', 'type': 'function', 'function': {'name': 'get_weather', 'arguments': '{\"city\": \"Paris\"}'}}]",
                json!([{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]),
            ),
            (
                "[1, -2, 3.5, 1_000, 0x1F, 0o17, 0b101, 1e3, .5, 5.]",
                json!([1, -2, 3.5, 1000, 31, 15, 5, 1000.0, 0.5, 5.0]),
            ),
            ("[True, False, None, (1, 2), (), (3,)]", json!([true, false, null, [1, 2], [], [3]])),
            ("['a' \"b\" '''c''', r'\\n', u'\\u00e9\\x41\\101\\q']", json!(["abc", "\\n", "éAA\\q"])),
            ("[\n  1,  # one\n  2,\n]", json!([1, 2])),
            ("[{1: 'a', True: 'b', None: 'c', 1.5: 'd'}]", json!([{"1": "a", "true": "b", "null": "c", "1.5": "d"}])),
            ("[{'k': 1, 'k': 2}]", json!([{"k": 2}])),
            ("[1], [2]", json!([[1], [2]])),
        ];
        for (src, expected) in cases {
            assert_eq!(literal_eval(src), Ok(expected), "{src}");
        }
    }

    #[test]
    fn refuses_what_literal_eval_refuses() {
        for src in [
            "[1 + 2]",
            "[x]",
            "[f'a']",
            "[-'a']",
            "[1, 2",
            "[1] [2]",
            "[__import__('os')]",
            "['a' b'b']",
            "[01]",
            "['\\N{BULLET}']",
            "['a\nb']",
            "[1 2]",
            "[{1: }]",
            "[--1]",
        ] {
            assert_eq!(literal_eval(src), Err(LiteralError::Syntax), "{src}");
        }
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        assert_eq!(literal_eval(&deep), Err(LiteralError::Syntax));
        let ok = format!("{}{}", "[".repeat(150), "]".repeat(150));
        assert!(literal_eval(&ok).is_ok());
    }

    #[test]
    fn values_json_cannot_carry() {
        for (src, what) in [
            ("[b'x']", "a bytes value"),
            ("[{1, 2}]", "a set"),
            ("[set()]", "a set"),
            ("[1j]", "a complex number"),
            ("[1 + 2j]", "a complex number"),
            ("[...]", "an Ellipsis (`...`)"),
            ("[10 ** 2]", ""),
            ("[123456789012345678901234567890]", "an integer beyond 64 bits"),
            ("[1e999]", "an infinite float"),
            ("[{(1, 2): 3}]", "a dict key that is not a string or number"),
            ("['\\ud800']", "a string with a lone surrogate"),
        ] {
            let got = literal_eval(src);
            if what.is_empty() {
                assert_eq!(got, Err(LiteralError::Syntax), "{src}");
            } else {
                assert_eq!(got, Err(LiteralError::NotJson(what)), "{src}");
            }
        }
    }
}
