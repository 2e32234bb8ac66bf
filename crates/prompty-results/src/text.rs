//! Escaping for each output: HTML text and attributes, XML 1.0, JSON inside a `<script>`
//! element, Markdown table cells.

/// `s` as HTML text or a double-quoted attribute value.
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Whether XML 1.0 allows `c` in a document.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// `s` as XML 1.0 text or a double-quoted attribute value: markup characters escaped, line
/// breaks and tabs as character references (attribute values keep them), characters XML
/// does not allow as U+FFFD.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if xml_char(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

/// JSON text that can stand inside a `<script>` element: `<`, `>` and `&` as `\u` escapes
/// (no `</script>` or `<!--` can appear), and the two line separators JavaScript once
/// treated as line ends.
pub fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A Markdown table cell: one line, at most `max` characters, Markdown and HTML syntax
/// escaped, `@` written so that it mentions no one.
pub fn md_cell(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' => out.push_str("&#64;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Standard base64 (with padding).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, expected) in cases {
            assert_eq!(base64(input.as_bytes()), expected, "{input:?}");
        }
    }

    #[test]
    fn script_json_cannot_close_the_script_element() {
        let json = serde_json::to_string("</script><!-- & \u{2028}").unwrap_or_default();
        let escaped = script_json(&json);
        assert!(!escaped.contains('<') && !escaped.contains('>') && !escaped.contains('&'), "{escaped}");
        let back: String = serde_json::from_str(&escaped).unwrap_or_default();
        assert_eq!(back, "</script><!-- & \u{2028}");
    }

    #[test]
    fn xml_replaces_what_xml_forbids() {
        assert_eq!(xml("a\u{0}b\u{1b}c\u{FFFE}<&>\"'\n"), "a\u{FFFD}b\u{FFFD}c\u{FFFD}&lt;&amp;&gt;&quot;&apos;&#10;");
    }

    #[test]
    fn markdown_cells_stay_one_line_and_mention_no_one() {
        assert_eq!(md_cell("a|b\n<img src=x> @team **x**", 100), "a\\|b &lt;img src=x&gt; &#64;team \\*\\*x\\*\\*");
        assert_eq!(md_cell("abcdef", 3), "abc…");
    }
}
