//! Generated front matter: the byte reader (`scan`) against the full parser on documents
//! built from the constructs prompt files use, and on the same documents with bytes
//! inserted, removed and replaced (so that errors and near misses are covered too). Where
//! the byte reader builds a tree, it must be the full parser's tree, spans included; where
//! the full parser refuses the text, the byte reader must give up.

use super::{parse_full, scan};

/// A small deterministic generator (xorshift64*), so that a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const KEYS: &[&str] = &[
    "name",
    "description",
    "id",
    "kind",
    "type",
    "model",
    "inputs",
    "a",
    "b c",
    "key_1",
    "k-2",
    "x.y",
    "apiKey",
    "'quoted key'",
    "\"double key\"",
    "default",
    "items",
    "ja\u{e9}",
    "a:b",
    "k#1",
];

/// Keys the byte reader leaves to the general path.
const ODD_KEYS: &[&str] = &["true", "1", "null", "<<", "? complex", "&a key", "key ", "[a]", "'it''s'"];

const SCALARS: &[&str] = &[
    "hello",
    "hello world",
    "gpt-4o",
    "0.7",
    "1000",
    "-2",
    "0",
    "3.5",
    "-0.25",
    "1.0e3",
    "true",
    "False",
    "yes",
    "no",
    "on",
    "null",
    "Null",
    "~",
    "a#b",
    "x # note",
    "http://example.com:8080/v1",
    "${env:OPENAI_API_KEY}",
    "${env:ENDPOINT:https://api.openai.com/v1}",
    "${file:data.json}",
    "\u{e9}t\u{e9} \u{1f600}",
    "'single'",
    "'it''s'",
    "''",
    "\"double\"",
    "\"\"",
    "\"say \\\"hi\\\"\\n\"",
    "\"\\u00e9\\t\\\\\"",
    "\"a # b\"",
    "'a: b'",
    "[]",
    "{}",
    "[a, b, c]",
    "[1, 'two', \"three\"]",
    "{a: 1, b: [x, y]}",
    "{\"k\":1}",
    "[a, [b, [c]], {d: e}, ]",
    "{x: {y: {z: 1}}}",
    "value,with,commas",
    "-x",
    "a:b",
    "1.5e-3",
    "-0",
    "9223372036854775807",
];

/// Scalars the byte reader leaves to the general path, or that are errors.
const ODD_SCALARS: &[&str] = &[
    "007",
    "0x1F",
    "1_000",
    ".5",
    "1e5",
    "+3",
    ".inf",
    "-.nan",
    "18446744073709551616",
    "-9223372036854775809",
    "1.",
    "2.5E+2",
    "&anchor value",
    "*alias",
    "!!str 12",
    "plain: colon",
    "- dash",
    "a\tb",
    "@at",
    "`tick`",
    "%pct",
    "? q",
    "[a, b",
    "{a: 1",
    "'open",
    "\"open",
    "\"\\x41\"",
    "\"\\N\"",
    "[a: b]",
    "{a}",
    "{a: }",
    "\"\\ud800\"",
    "'two\n  lines'",
    "two\n  lines",
];

fn key(r: &mut Rng) -> &'static str {
    if r.chance(2) { r.pick(ODD_KEYS) } else { r.pick(KEYS) }
}

fn scalar(r: &mut Rng) -> &'static str {
    if r.chance(3) { r.pick(ODD_SCALARS) } else { r.pick(SCALARS) }
}

const WORDS: &[&str] = &["alpha", "beta", "gamma", "# not a comment", "key: value", "- item", "  indented", "{{ x }}"];

/// Writes a mapping at `indent`; with `inline`, the first key goes on the current line (a
/// compact mapping after `- `).
fn map(r: &mut Rng, out: &mut String, indent: usize, depth: usize, inline: bool) {
    let n = 1 + r.below(4);
    let mut used = Vec::new();
    for i in 0..n {
        let key = loop {
            let k = key(r);
            if !used.contains(&k) || r.chance(2) {
                break k;
            }
        };
        used.push(key);
        if i > 0 || !inline {
            if r.chance(10) {
                out.push_str(&" ".repeat(r.below(indent + 3)));
                out.push_str("# a comment\n");
            }
            if r.chance(8) {
                out.push('\n');
            }
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(key);
        out.push(':');
        value(r, out, indent, depth, true);
    }
}

fn seq(r: &mut Rng, out: &mut String, indent: usize, depth: usize, inline: bool) {
    let n = 1 + r.below(4);
    for i in 0..n {
        if i > 0 || !inline {
            out.push_str(&" ".repeat(indent));
        }
        out.push('-');
        match r.below(10) {
            0 if depth < 6 => {
                let pad = 1 + r.below(2);
                out.push_str(&" ".repeat(pad));
                map(r, out, indent + 1 + pad, depth + 1, true);
            }
            1 | 2 if depth < 6 => {
                out.push(' ');
                map(r, out, indent + 2, depth + 1, true);
            }
            3 if depth < 6 => {
                out.push(' ');
                seq(r, out, indent + 2, depth + 1, true);
            }
            _ => value(r, out, indent, depth, false),
        }
    }
}

/// Writes what follows a key's `:` or a `-`: a value on the same line, a block scalar, a
/// nested collection on the next lines, or nothing.
fn value(r: &mut Rng, out: &mut String, indent: usize, depth: usize, in_map: bool) {
    match r.below(12) {
        0..=4 => {
            out.push_str(if r.chance(90) { " " } else { "   " });
            out.push_str(scalar(r));
            if r.chance(10) {
                out.push_str(" # trailing");
            }
            if r.chance(5) {
                out.push_str("  ");
            }
            out.push('\n');
        }
        5 => block_scalar(r, out, indent),
        6 | 7 if depth < 6 => {
            if r.chance(10) {
                out.push_str(" # before");
            }
            out.push('\n');
            let at = indent + 1 + r.below(4);
            map(r, out, at, depth + 1, false);
        }
        8 | 9 if depth < 6 => {
            out.push('\n');
            let at = if in_map && r.chance(50) { indent } else { indent + 1 + r.below(3) };
            seq(r, out, at, depth + 1, false);
        }
        10 => {
            out.push_str(&" ".repeat(r.below(3)));
            out.push('\n');
        }
        _ => {
            out.push_str(" [");
            let n = r.below(4);
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                if r.chance(20) {
                    out.push('\n');
                    out.push_str(&" ".repeat(indent + 1 + r.below(3)));
                } else if i > 0 {
                    out.push(' ');
                }
                out.push_str(scalar(r));
            }
            out.push_str("]\n");
        }
    }
}

fn block_scalar(r: &mut Rng, out: &mut String, indent: usize) {
    out.push(' ');
    let header = if r.chance(3) {
        r.pick(&["|2", ">1", "|-+", "|x"])
    } else {
        r.pick(&["|", ">", "|-", ">-", "|+", ">+", "| # header comment"])
    };
    out.push_str(header);
    out.push('\n');
    let at = indent + 1 + r.below(3);
    let lines = 1 + r.below(4);
    for _ in 0..lines {
        match r.below(30) {
            0..=2 => out.push('\n'),
            3 => {
                out.push_str(&" ".repeat(at + 2));
                out.push_str(r.pick(WORDS));
                out.push('\n');
            }
            4 | 5 => {
                out.push_str(&" ".repeat(at - r.below(2)));
                out.push('\n');
            }
            _ => {
                out.push_str(&" ".repeat(at));
                out.push_str(r.pick(WORDS));
                if r.chance(20) {
                    out.push(' ');
                    out.push_str(r.pick(WORDS));
                }
                out.push('\n');
            }
        }
    }
    for _ in 0..r.below(3) {
        out.push('\n');
    }
}

fn document(r: &mut Rng) -> String {
    let mut out = String::new();
    if r.chance(5) {
        out.push_str("# leading comment\n");
    }
    if r.chance(10) {
        seq(r, &mut out, 0, 0, false);
    } else {
        map(r, &mut out, 0, 0, false);
    }
    out
}

/// One random edit: a byte that matters to YAML inserted, removed or replaced.
fn mutate(r: &mut Rng, doc: &str) -> String {
    const BYTES: &[&str] =
        &[" ", "\n", ":", "-", "#", "\"", "'", "|", ">", "[", "]", "{", "}", ",", "\t", "&", "*", "a", "1", "\\", "\r"];
    let mut s = doc.to_owned();
    let boundaries: Vec<usize> = (0..=s.len()).filter(|&i| s.is_char_boundary(i)).collect();
    let at = boundaries[r.below(boundaries.len())];
    let piece = r.pick(BYTES);
    match r.below(3) {
        0 => s.insert_str(at, piece),
        1 => {
            if let Some(c) = s.get(at..).and_then(|t| t.chars().next()) {
                s.replace_range(at..at + c.len_utf8(), "");
            }
        }
        _ => {
            if let Some(c) = s.get(at..).and_then(|t| t.chars().next()) {
                s.replace_range(at..at + c.len_utf8(), piece);
            }
        }
    }
    s
}

#[test]
fn the_byte_reader_agrees_with_the_full_parser_on_generated_front_matter() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut docs, mut taken, mut mutants, mut mutants_taken, mut refused) = (0, 0, 0, 0, 0);
    for _ in 0..2000 {
        let doc = document(&mut r);
        let mut variants = vec![doc.clone()];
        for _ in 0..3 {
            variants.push(mutate(&mut r, &doc));
        }
        for (i, text) in variants.iter().enumerate() {
            let full = parse_full(text, 3, text);
            let fast = scan::parse(text, 3);
            if i == 0 {
                docs += 1;
                taken += usize::from(fast.is_some());
            } else {
                mutants += 1;
                mutants_taken += usize::from(fast.is_some());
                refused += usize::from(full.is_err());
            }
            if let Some(node) = fast {
                assert_eq!(Ok(node), full, "the byte reader and the full parser differ for\n{text}\n{text:?}");
            }
        }
    }
    eprintln!(
        "generated: byte reader took {taken} of {docs} documents and {mutants_taken} of {mutants} edited ones \
         ({refused} of which the full parser refuses)"
    );
    // The generator must exercise the reader, not only its ways of giving up.
    assert!(taken * 3 > docs, "the byte reader took only {taken} of {docs} generated documents");
    assert!(mutants_taken * 5 > mutants, "the byte reader took only {mutants_taken} of {mutants} edited documents");
    assert!(refused * 10 > mutants, "only {refused} of {mutants} edited documents are errors");
}
