//! A render's mark: the random token placed where the template's own role lines, labels and
//! line breaks are, found again in the rendered text and taken out of it. The bottom layer of
//! the renderer: it uses no other module of the crate.

/// The context variable that carries the per-render mark.
pub(crate) const MARK_VAR: &str = "__prompty_mark";

/// A render's mark: STX (`\x02`), the 20 decimal digits of a random `u64`, ETX (`\x03`).
/// No case mapping, trimming or escaping changes it (neither control character is
/// whitespace to Python or Rust, nor a line break to `str.splitlines`), and it holds no
/// whitespace, so it never joins or splits what the split sees. At 22 ASCII bytes it fits
/// in a minijinja string value without an allocation.
#[derive(Clone, Copy)]
pub(crate) struct Mark([u8; MARK_LEN]);

/// The length of a mark in bytes.
pub(crate) const MARK_LEN: usize = 1 + 20 + 1;

/// The first byte of every mark.
const MARK_OPEN: u8 = 0x02;

/// The last byte of every mark.
const MARK_CLOSE: u8 = 0x03;

/// `"00"` to `"99"`.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

impl Mark {
    /// The mark of `random`, as `format!("\x02{random:020}\x03")` writes it, without the
    /// formatting machinery.
    pub(crate) fn new(random: u64) -> Mark {
        let mut bytes = [MARK_OPEN; MARK_LEN];
        let mut n = random;
        // Two digits at a time, from the last pair (bytes 19 and 20) to the first.
        for pair in bytes.get_mut(1..MARK_LEN - 1).unwrap_or_default().rchunks_exact_mut(2) {
            let k = (n % 100) as usize * 2;
            pair.copy_from_slice(DIGIT_PAIRS.get(k..k + 2).unwrap_or(b"00"));
            n /= 100;
        }
        if let Some(last) = bytes.last_mut() {
            *last = MARK_CLOSE;
        }
        Mark(bytes)
    }

    /// The mark's bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The mark as text.
    pub(crate) fn as_str(&self) -> &str {
        // ASCII: always UTF-8.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// What a render of a marked template needs: this render's mark (none when the template
/// holds none), how many marks the template holds, and its direct places
/// ([`Compiled::direct`](crate::compile::Compiled::direct)).
#[derive(Clone, Copy, Default)]
pub(crate) struct Marking<'a> {
    pub(crate) mark: Option<&'a Mark>,
    pub(crate) marks: usize,
    pub(crate) direct: &'a [usize],
}

/// Where `mark` (a mark's bytes) occurs in `bytes`, in order; nothing without a mark.
/// Occurrences cannot overlap: a mark's inside holds neither of its ends.
pub(crate) fn places<'a>(bytes: &'a [u8], mark: Option<&'a [u8]>) -> impl Iterator<Item = usize> + 'a {
    let mut scan = 0;
    std::iter::from_fn(move || {
        let mark = mark?;
        // A string a mark's length or shorter is compared whole (the template's `{{ mark }}`).
        if bytes.len() <= MARK_LEN {
            let whole = scan == 0 && bytes == mark;
            scan = bytes.len() + 1;
            return whole.then_some(0);
        }
        while let Some(at) = next_mark_start(bytes, scan) {
            scan = at + 1;
            if bytes.get(at..at + MARK_LEN) == Some(mark) {
                scan = at + MARK_LEN;
                return Some(at);
            }
        }
        scan = bytes.len() + 1;
        None
    })
}

/// Where the next byte that may start a mark is in `bytes`, from `from`.
pub(crate) fn next_mark_start(bytes: &[u8], from: usize) -> Option<usize> {
    memchr::memchr(MARK_OPEN, bytes.get(from..)?).map(|k| from + k)
}

/// `text` without the marks `mark`, and where each was (offsets in the returned text,
/// ascending: the mark stood right before that byte). Jinja renders into a
/// [`CappedString`](crate::limits::CappedString) that does this as it writes; the other
/// engines render into strings of their own.
#[cfg(any(feature = "mustache", test))]
pub(crate) fn strip_marks(text: &str, mark: &str) -> (String, Vec<usize>) {
    let mut clean = String::with_capacity(text.len());
    let mut marks = Vec::new();
    let mut from = 0;
    for at in places(text.as_bytes(), Some(mark.as_bytes())) {
        clean.push_str(text.get(from..at).unwrap_or_default());
        marks.push(clean.len());
        from = at + MARK_LEN;
    }
    clean.push_str(text.get(from..).unwrap_or_default());
    (clean, marks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_twenty_padded_digits_between_control_characters() {
        for n in [0, 7, 10, 99, 100, 1_234_567_890, 10_000_000_000_000_000_000, u64::MAX] {
            let mark = Mark::new(n);
            assert_eq!(mark.as_str(), format!("\x02{n:020}\x03"));
            let m = mark.as_bytes();
            let text = [b"x\x02".as_slice(), m, m, b"\x02", m].concat();
            assert_eq!(places(&text, Some(m)).collect::<Vec<_>>(), [2, 24, 47]);
            assert_eq!(places(m, Some(m)).collect::<Vec<_>>(), [0]);
            assert_eq!(places(&text, None).count(), 0);
            assert_eq!(places(Mark::new(n ^ 1).as_bytes(), Some(m)).count(), 0);
        }
    }

    #[test]
    fn strip_marks_records_places() {
        let m = Mark::new(7);
        let m = m.as_str();
        let (clean, places) = strip_marks(&format!("{m}system:\nx {m}content:"), m);
        assert_eq!(clean, "system:\nx content:");
        assert_eq!(places, [0, 10]);
        // Another mark, or the start of one, is text.
        let other = Mark::new(8);
        let other = other.as_str();
        let text = format!("\x02{other}{m}user:\x02");
        let (clean, places) = strip_marks(&text, m);
        assert_eq!(clean, format!("\x02{other}user:\x02"));
        assert_eq!(places, [1 + other.len()]);
    }
}
