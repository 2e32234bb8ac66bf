//! Python `repr()` of a float: the shortest digits that read back as the same float, in
//! Python's layout (`3.0`, `1e-05`, `1e+16`, `inf`, `nan`).

use std::fmt::{self, Write};

/// Python `repr()` of a float (identical to `str()` for floats).
pub fn repr_float(x: f64) -> String {
    let mut s = String::new();
    let _ = write_repr_float(&mut s, x);
    s
}

/// Writes Python `repr()` of a float: the shortest digits that round-trip, in positional
/// notation when the decimal exponent is in `[-4, 16)` (with `.0` added to integral values)
/// and as `d[.ddd]e±XX` otherwise; `inf`, `-inf`, `nan`, `-0.0`.
pub fn write_repr_float<W: Write + ?Sized>(out: &mut W, x: f64) -> fmt::Result {
    if x.is_nan() {
        return out.write_str("nan");
    }
    if x.is_sign_negative() {
        out.write_char('-')?;
    }
    let a = x.abs();
    if a.is_infinite() {
        return out.write_str("inf");
    }
    if a == 0.0 {
        return out.write_str("0.0");
    }
    // `{:e}` gives the shortest round-trip digits as `d[.ddd]e[-]N`.
    let mut sci = AsciiBuf::new();
    write!(sci, "{a:e}")?;
    let sci = sci.as_bytes();
    let e_pos = sci.iter().position(|&b| b == b'e').ok_or(fmt::Error)?;
    let (mantissa, exponent) = sci.split_at(e_pos);
    let exp = parse_exponent(exponent.get(1..).unwrap_or_default()).ok_or(fmt::Error)?;
    let mut digit_buf = [b'0'; 32];
    let mut n = 0usize;
    for (slot, &b) in digit_buf.iter_mut().zip(mantissa.iter().filter(|b| b.is_ascii_digit())) {
        *slot = b;
        n += 1;
    }
    let digits = digit_buf.get(..n).ok_or(fmt::Error)?;
    if n == 0 {
        return Err(fmt::Error);
    }

    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = usize::try_from(exp).map_err(|_| fmt::Error)? + 1;
            if n <= int_len {
                write_ascii(out, digits)?;
                write_zeros(out, int_len - n)?;
                out.write_str(".0")
            } else {
                let (int_part, frac_part) = digits.split_at(int_len);
                write_ascii(out, int_part)?;
                out.write_char('.')?;
                write_ascii(out, frac_part)
            }
        } else {
            out.write_str("0.")?;
            write_zeros(out, usize::try_from(-exp - 1).map_err(|_| fmt::Error)?)?;
            write_ascii(out, digits)
        }
    } else {
        let (first, rest) = digits.split_at(1);
        write_ascii(out, first)?;
        if !rest.is_empty() {
            out.write_char('.')?;
            write_ascii(out, rest)?;
        }
        let sign = if exp < 0 { '-' } else { '+' };
        write!(out, "e{sign}{:02}", exp.unsigned_abs())
    }
}

fn parse_exponent(s: &[u8]) -> Option<i32> {
    let (neg, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i32 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i32::from(d - b'0'))?;
    }
    Some(if neg { -v } else { v })
}

fn write_ascii<W: Write + ?Sized>(out: &mut W, bytes: &[u8]) -> fmt::Result {
    out.write_str(std::str::from_utf8(bytes).map_err(|_| fmt::Error)?)
}

fn write_zeros<W: Write + ?Sized>(out: &mut W, mut n: usize) -> fmt::Result {
    const ZEROS: &str = "0000000000000000";
    while n > 0 {
        let k = n.min(ZEROS.len());
        out.write_str(ZEROS.get(..k).unwrap_or_default())?;
        n -= k;
    }
    Ok(())
}

/// A fixed-capacity ASCII buffer, so that float formatting does not allocate.
struct AsciiBuf {
    buf: [u8; 40],
    len: usize,
}

impl AsciiBuf {
    fn new() -> Self {
        AsciiBuf { buf: [0; 40], len: 0 }
    }

    fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }
}

impl Write for AsciiBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        let dst = self.buf.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
