//! promptflow-core's images (promptflow profile).
//!
//! - An input string `data:image/<type>;base64: <data>` or `data:image/<type>;url: <url>`
//!   (promptflow's `^data:image/(.*);(path|base64|url):\s*(.*)$`) is an image. The template
//!   prints it as `Image(<8 hex>)` (the start of the image's SHA-1); where that text stands
//!   alone on a line of a message, the message becomes a list of parts: the image, and each
//!   other non-blank line as a text part.
//! - The template pre-pass: `![image]({{ var }})` puts the expression on a line of its own.
//!
//! Here the template prints an unguessable placeholder instead of `Image(...)` while
//! preparing, so that only a place where the template prints the image input becomes an
//! image part: another input spelling `Image(<hash>)` stays text. Placeholders left inside a
//! line become the `Image(...)` text promptflow shows there.

use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::message::{Message, Part};
use prompty_py::{py_space, py_strip};

/// An image input.
#[derive(Debug, Clone)]
pub(crate) struct PfImage {
    /// What the image part carries: a `data:` URI, or the URL as given.
    pub(crate) url: String,
    /// How promptflow prints it: `Image(<8 hex>)`.
    pub(crate) text: String,
    /// The placeholder the template prints while preparing.
    pub(crate) placeholder: String,
}

/// The first and last characters of a placeholder: private-use characters no case mapping,
/// trimming or escaping changes, distinct from the provenance marks'.
const OPEN: char = '\u{e002}';
const CLOSE: char = '\u{e003}';

/// A placeholder from 128 random bits: decimal digits, which case mappings leave alone.
pub(crate) fn placeholder(random: u128) -> String {
    format!("{OPEN}{random:039}{CLOSE}")
}

/// `s` read as promptflow reads an image input, if it is one: the text after `image/`, the
/// source kind, and the data.
///
/// Python's `re.match` with `^data:image/(.*);(path|base64|url):\s*(.*)$`: the first group is
/// greedy and stays on the first line; `\s*` crosses line breaks; the data runs to the end,
/// before a final line break.
pub(crate) fn parse_image_input(s: &str) -> Option<(&str, &'static str, &str)> {
    let rest = s.strip_prefix("data:image/")?;
    let first_line = rest.find('\n').map_or(rest, |n| rest.get(..n).unwrap_or(""));
    let mut end = first_line.len();
    // The greedy group: try the rightmost `;kind:` first.
    while let Some(semi) = first_line.get(..end).and_then(|l| l.rfind(';')) {
        end = semi;
        let after = rest.get(semi + 1..)?;
        for kind in ["path", "base64", "url"] {
            let Some(tail) = after.strip_prefix(kind).and_then(|t| t.strip_prefix(':')) else { continue };
            let data = tail.trim_start_matches(py_space);
            // The data is one line, optionally followed by one line break.
            let body = data.strip_suffix('\n').unwrap_or(data);
            if !body.contains('\n') {
                return Some((rest.get(..semi)?, kind, body));
            }
        }
    }
    None
}

/// The image input `s` names, if it is one; a `path` image is an error (reading files is the
/// caller's business), and so is base64 data Python cannot decode.
pub(crate) fn image_of(name: &str, s: &str) -> Result<Option<(String, String)>, Error> {
    let Some((subtype, kind, data)) = parse_image_input(s) else {
        return Ok(None);
    };
    let mime = format!("image/{subtype}").to_lowercase();
    match kind {
        "base64" => {
            // promptflow decodes the part after the last comma and encodes the bytes again.
            let encoded = data.rsplit(',').next().unwrap_or(data);
            let bytes = b64decode(encoded).map_err(|why| {
                Error::new(
                    ErrorKind::InvalidInput,
                    format!("input `{name}` is a promptflow base64 image whose data does not decode: {why}"),
                )
                .with_input(name.to_owned())
            })?;
            let url = format!("data:{mime};base64,{}", b64encode(&bytes));
            Ok(Some((url, image_text(&bytes))))
        }
        "url" => Ok(Some((data.to_owned(), image_text(data.as_bytes())))),
        _ => Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "input `{name}` is a promptflow image file (`data:{mime};path: ...`); rendering reads no files: pass the image as `data:{mime};base64: <data>` or `data:{mime};url: <url>`"
            ),
        )
        .with_input(name.to_owned())),
    }
}

/// `Image(<first 8 hex digits of the SHA-1>)`.
fn image_text(bytes: &[u8]) -> String {
    let digest = sha1(bytes);
    let mut s = String::from("Image(");
    for b in digest.iter().take(4) {
        s.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        s.push(char::from_digit(u32::from(b & 0xf), 16).unwrap_or('0'));
    }
    s.push(')');
    s
}

/// promptflow's pre-pass over a Jinja template: `![image]({{var}})` (alt text
/// `\s*image\s*`, expression `\s*[^\s{}]+\s*`) becomes `\n{{var}}\n`. The line breaks are
/// written as expressions (`{{"\n"}}`) so that the template keeps its lines and error
/// positions; a `-` whitespace control on the expression removes the line break next to it,
/// as it would remove promptflow's. Only plain template text is rewritten (not comments, raw
/// blocks or string literals). `None` when there is nothing to rewrite.
pub(crate) fn markdown_image_prepass(body: &str) -> Option<String> {
    if !body.contains("![") {
        return None;
    }
    let data: Vec<prompty_jinja::lexer::Data> = prompty_jinja::lexer::jinja_lex(body, true)
        .into_iter()
        .filter_map(|item| match item {
            prompty_jinja::lexer::JinjaItem::Data(d) => Some(d),
            _ => None,
        })
        .collect();
    let b = body.as_bytes();
    let mut out = String::with_capacity(body.len() + 16);
    let mut from = 0;
    let mut search = 0;
    while let Some(k) = memchr::memmem::find(b.get(search..)?, b"![") {
        let at = search + k;
        search = at + 2;
        let Some(m) = image_at(body, at) else { continue };
        // `![ image ](` must end plain text right where the expression tag opens, and the
        // `)` must be plain text.
        let text_ends_at_tag = data.iter().any(|d| d.range.start <= at && d.range.end == m.tag_start);
        let close_is_text = data.iter().any(|d| d.range.contains(&m.close));
        if !text_ends_at_tag || !close_is_text {
            continue;
        }
        out.push_str(body.get(from..at)?);
        if !m.inner.starts_with('-') {
            out.push_str("{{\"\\n\"}}");
        }
        out.push_str(body.get(m.tag_start..m.close)?);
        if !m.inner.ends_with('-') {
            out.push_str("{{\"\\n\"}}");
        }
        from = m.close + 1;
        search = from;
    }
    if from == 0 {
        return None;
    }
    out.push_str(body.get(from..)?);
    Some(out)
}

struct ImageMatch<'a> {
    /// Offset of the `{{` of the expression.
    tag_start: usize,
    /// The expression between `{{` and `}}`.
    inner: &'a str,
    /// Offset of the closing `)`.
    close: usize,
}

/// `!\[\s*image\s*\]\(\{\{(\s*[^\s{}]+\s*)\}\}\)` at `at`.
fn image_at(body: &str, at: usize) -> Option<ImageMatch<'_>> {
    let ws = |i: usize| {
        let rest = body.get(i..).unwrap_or("");
        i + (rest.len() - rest.trim_start_matches(py_space).len())
    };
    let mut i = ws(at + 2);
    i = if body.get(i..)?.starts_with("image") { ws(i + 5) } else { return None };
    if !body.get(i..)?.starts_with("](") {
        return None;
    }
    let tag_start = i + 2;
    if !body.get(tag_start..)?.starts_with("{{") {
        return None;
    }
    let inner_start = tag_start + 2;
    let j = ws(inner_start);
    let word = body.get(j..)?;
    let word_len = word.find(|c: char| py_space(c) || c == '{' || c == '}').unwrap_or(word.len());
    if word_len == 0 {
        return None;
    }
    let k = ws(j + word_len);
    if !body.get(k..)?.starts_with("}})") {
        return None;
    }
    Some(ImageMatch { tag_start, inner: body.get(inner_start..k)?, close: k + 2 })
}

/// Turns the image placeholders of rendered messages into parts, as promptflow's
/// `to_content_str_or_list` does with `Image(...)`: a message with a line that is only an
/// image becomes the list of its non-blank lines, images as image parts and the others as
/// text parts (unstripped); a placeholder inside a line, in any message or label, becomes the
/// image's `Image(...)` text.
pub(crate) fn apply_images(messages: &mut [Message], images: &[PfImage]) {
    if images.is_empty() {
        return;
    }
    for m in messages.iter_mut() {
        for v in m.metadata.values_mut() {
            replace_in_value(v, images);
        }
        let text = match m.content.as_slice() {
            [Part::Text { value }] if value.contains(OPEN) => value.clone(),
            _ => continue,
        };
        let whole = |line: &str| images.iter().find(|img| py_strip(line) == img.placeholder);
        if !text.split('\n').any(|line| whole(line).is_some()) {
            m.content = vec![Part::Text { value: with_texts(&text, images) }];
            continue;
        }
        let mut parts = Vec::new();
        for line in text.split('\n') {
            if let Some(img) = whole(line) {
                parts.push(Part::Image { value: img.url.clone(), detail: Some("auto".into()), media_type: None });
            } else if !py_strip(line).is_empty() {
                parts.push(Part::Text { value: with_texts(line, images) });
            }
        }
        m.content = parts;
    }
}

fn with_texts(s: &str, images: &[PfImage]) -> String {
    if !s.contains(OPEN) {
        return s.to_owned();
    }
    let mut out = s.to_owned();
    for img in images {
        if out.contains(&img.placeholder) {
            out = out.replace(&img.placeholder, &img.text);
        }
    }
    out
}

fn replace_in_value(v: &mut Value, images: &[PfImage]) {
    match v {
        Value::String(s) if s.contains(OPEN) => *s = with_texts(s, images),
        Value::Array(items) => items.iter_mut().for_each(|x| replace_in_value(x, images)),
        Value::Object(map) => map.values_mut().for_each(|x| replace_in_value(x, images)),
        _ => {}
    }
}

/// Python's `base64.b64decode` (non-strict): characters outside the alphabet are skipped,
/// decoding stops at complete padding, and leftover bits are an error.
fn b64decode(s: &str) -> Result<Vec<u8>, &'static str> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let mut quad = 0u8;
    let mut left = 0u32;
    let mut pads = 0u8;
    for c in s.bytes() {
        if c == b'=' {
            if quad >= 2 {
                pads += 1;
                if quad + pads >= 4 {
                    return Ok(out);
                }
            }
            continue;
        }
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => continue,
        };
        pads = 0;
        let v = u32::from(v);
        match quad {
            0 => {
                left = v;
                quad = 1;
            }
            1 => {
                out.push(((left << 2) | (v >> 4)) as u8);
                left = v & 0x0f;
                quad = 2;
            }
            2 => {
                out.push(((left << 4) | (v >> 2)) as u8);
                left = v & 0x03;
                quad = 3;
            }
            _ => {
                out.push(((left << 6) | v) as u8);
                quad = 0;
            }
        }
    }
    match quad {
        0 => Ok(out),
        1 => Err("the number of data characters cannot be 1 more than a multiple of 4"),
        _ => Err("Incorrect padding"),
    }
}

fn b64encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sym = |v: u32| char::from(ALPHABET.get((v & 63) as usize).copied().unwrap_or(b'A'));
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sym(n >> 18));
        out.push(sym(n >> 12));
        out.push(if chunk.len() > 1 { sym(n >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(n) } else { '=' });
    }
    out
}

/// SHA-1 (FIPS 180-4), for the `Image(...)` text promptflow derives from an image's bytes.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0];
    let bit_len = (data.len() as u64).wrapping_mul(8);
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks_exact(4).enumerate() {
            if let (Some(slot), Ok(bytes)) = (w.get_mut(i), <[u8; 4]>::try_from(word)) {
                *slot = u32::from_be_bytes(bytes);
            }
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(d: &[u8]) -> String {
        d.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn sha1_vectors() {
        assert_eq!(hex(&sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(hex(&sha1(b"abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(
            hex(&sha1(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
        assert_eq!(hex(&sha1(&[b'a'; 1000])), "291e9a6c66994949b57ba5e650361e98fc36b1ba");
    }

    #[test]
    fn base64_as_python_reads_it() {
        assert_eq!(b64decode("aGVsbG8="), Ok(b"hello".to_vec()));
        assert_eq!(b64decode("aGVs\nbG8=garbage"), Ok(b"hello".to_vec()));
        assert_eq!(b64decode("aGVsbG8"), Err("Incorrect padding"));
        assert_eq!(b64decode("aGVsb"), Err("the number of data characters cannot be 1 more than a multiple of 4"));
        assert_eq!(b64decode("a!G@V#s$b%G&8*="), Ok(b"hello".to_vec()));
        for input in [&b""[..], b"h", b"he", b"hel", b"hello world", &[0, 255, 128, 7]] {
            assert_eq!(b64decode(&b64encode(input)).as_deref(), Ok(input));
        }
        assert_eq!(b64encode(b"hello"), "aGVsbG8=");
    }

    #[test]
    fn image_inputs_as_promptflow_matches_them() {
        assert_eq!(parse_image_input("data:image/png;base64: aGk="), Some(("png", "base64", "aGk=")));
        assert_eq!(parse_image_input("data:image/png;url:https://x/y.png"), Some(("png", "url", "https://x/y.png")));
        assert_eq!(parse_image_input("data:image/png;base64:\n  aGk=\n"), Some(("png", "base64", "aGk=")));
        // The first group is greedy.
        assert_eq!(parse_image_input("data:image/a;url:b;base64:c"), Some(("a;url:b", "base64", "c")));
        // A standard data URI (a comma after base64) is not promptflow's form.
        assert_eq!(parse_image_input("data:image/png;base64,aGk="), None);
        assert_eq!(parse_image_input("data:image/png;base64: a\nb"), None);
        assert_eq!(parse_image_input("data:image/png;base64: a\n\n"), None);
        assert_eq!(parse_image_input("see data:image/png;base64: aGk="), None);
        assert_eq!(parse_image_input("data:image/png\n;base64: aGk="), None);
    }

    #[test]
    fn the_prepass_puts_the_expression_on_its_own_line() {
        let cases = [
            ("a ![image]({{img}}) b", Some("a {{\"\\n\"}}{{img}}{{\"\\n\"}} b")),
            ("![ image ]({{ img }})", Some("{{\"\\n\"}}{{ img }}{{\"\\n\"}}")),
            ("![image]({{-img-}})", Some("{{-img-}}")),
            ("![image]({{- img -}})", None),
            ("![photo]({{img}})", None),
            ("![image]({{ a b }})", None),
            ("![image]({{img}} )", None),
            ("{# ![image]({{img}}) #}", None),
            ("{{ '![image](' }}{{img}})", None),
            ("no images", None),
        ];
        for (body, expected) in cases {
            assert_eq!(markdown_image_prepass(body).as_deref(), expected, "{body}");
        }
    }

    #[test]
    fn placeholders_become_parts() {
        let img = PfImage {
            url: "data:image/png;base64,aGk=".into(),
            text: "Image(12345678)".into(),
            placeholder: placeholder(42),
        };
        let p = &img.placeholder;
        let mut ms = vec![
            Message::text("user", format!("Look:\n  {p}  \n\n  indented\nand {p} here")),
            Message::text("user", format!("only {p} inline")),
        ];
        ms[1].metadata.insert("name".into(), Value::String(p.clone()));
        apply_images(&mut ms, std::slice::from_ref(&img));
        assert_eq!(
            ms[0].content,
            vec![
                Part::Text { value: "Look:".into() },
                Part::Image { value: img.url.clone(), detail: Some("auto".into()), media_type: None },
                Part::Text { value: "  indented".into() },
                Part::Text { value: "and Image(12345678) here".into() },
            ]
        );
        assert_eq!(ms[1].content, vec![Part::Text { value: "only Image(12345678) inline".into() }]);
        assert_eq!(ms[1].metadata["name"], "Image(12345678)");
    }
}
