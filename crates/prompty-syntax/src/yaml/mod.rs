//! YAML front matter as a tree of nodes that keep their byte spans.
//!
//! Three readers build the same [`Node`] tree: `scan` straight from the bytes, for the YAML
//! that front matter nearly always is; `fast` from the parser's events, for the little more
//! that the event path takes; and `full` (`serde-saphyr` through `Spanned`) for everything
//! else and for the error messages. [`parse`] tries them in that order; differential tests
//! keep them equal, spans included.

mod fast;
mod flat;
mod full;
#[cfg(test)]
mod generated;
mod node;
mod scan;

pub use flat::{Flat, FlatNode};
pub use full::parse_full;
pub use node::{MAX_YAML_DEPTH, MAX_YAML_NODES, Node, NodeValue};

use crate::diagnostic::Diagnostic;

/// Parses `yaml`, which starts at byte `base` of the file `file_text`.
///
/// Returns the root node, or one diagnostic locating the syntax error.
pub fn parse(file_text: &str, base: usize, yaml: &str) -> Result<Node, Diagnostic> {
    if let Some(node) = scan::parse(yaml, base).or_else(|| fast::parse(yaml, base)) {
        return Ok(node);
    }
    parse_full(file_text, base, yaml)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::codes;

    fn prompty_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                prompty_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "prompty") {
                out.push(p);
            }
        }
    }

    /// Handcrafted front matter around the fast path's edges.
    const EDGES: &[&str] = &[
        "a: 1\nb: -2\nc: 0\nd: 3.5\ne: -0.25\nf: 1.0e3\ng: 007\nh: 0x1F\ni: 1_000\nj: .5\nk: 1e5\nl: +3\nm: .inf\nn: -.nan\n",
        "s: 'single'\nd: \"double \\\"q\\\"\"\np: plain text: with colon\nu: \u{e9}t\u{e9} \u{1f600}\nn: ~\nt: True\nf: FALSE\ny: yes\no: on\nnull_word: Null\n",
        "block: |\n  line one\n  line two\nfolded: >\n  a\n  b\nkeep: |+\n  x\n\nstrip: |-\n  y\n",
        "flow: {a: 1, b: [x, y, {c: d}], e: \"f\"}\nempty_map: {}\nempty_seq: []\n",
        "list:\n  - a\n  - b: 1\n    c: 2\n  - - nested\n    - seq\n  -\n",
        "# comment\nname: x # trailing\n# another\nmodel:\n  id: gpt  # c\n",
        "anchor: &a {x: 1}\nalias: *a\n",
        "tagged: !!str 123\n",
        "merge:\n  <<: {a: 1}\n",
        "dup: 1\ndup: 2\n",
        "key with spaces: v\n'quoted key': v\n? complex\n: v\n",
        "a:\r\n  b: 1\r\n  c: [1, 2]\r\n",
        "",
        "   \n",
        "- just\n- a\n- list\n",
        "scalar only",
        "big: 18446744073709551615\nbigger: 18446744073709551616\nneg: -9223372036854775808\n",
        "f: 1.\ng: -1.5e-3\nh: 2.5E+2\n",
    ];

    /// Around the node budget both paths agree: the fast path gives up exactly where the
    /// full path refuses, so a long mapping is never accepted by one and refused by the other.
    #[test]
    fn the_node_budget_is_the_same_on_both_paths() {
        let limit = super::MAX_YAML_NODES;
        // A list of n scalars is 1 + n values.
        for extra in [0, 1] {
            let doc: String = (0..limit - 1 + extra).map(|i| format!("- {i}\n")).collect();
            let full = parse_full(&doc, 0, &doc);
            for (path, node) in [("event path", fast::parse(&doc, 0)), ("byte reader", scan::parse(&doc, 0))] {
                assert_eq!((node.is_some(), full.is_ok()), (extra == 0, extra == 0), "{path}: {extra} over the limit");
                if let Some(node) = node {
                    assert_eq!(Ok(node), full, "{path}");
                }
            }
        }
    }

    #[test]
    fn the_fast_path_agrees_with_the_full_parser() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        for dir in ["../shared/conformance", "../shared/bench", "prompts", "crates"] {
            prompty_files(&root.join(dir), &mut files);
        }
        assert!(files.len() > 50, "found only {} prompt files under {}", files.len(), root.display());
        let mut docs: Vec<(String, String)> = EDGES.iter().map(|s| ("edge".to_owned(), (*s).to_owned())).collect();
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else { continue };
            if let Ok(split) = crate::split::split(&text)
                && let Some(fm) = split.front_matter
            {
                docs.push((f.display().to_string(), fm.text.to_owned()));
            }
        }
        let (mut scanned, mut fast, mut full) = (0, 0, 0);
        for (name, yaml) in &docs {
            let reference = parse_full(yaml, 7, yaml);
            if let Some(node) = scan::parse(yaml, 7) {
                scanned += 1;
                assert_eq!(Ok(node), reference, "{name}: the byte reader and the full parser differ for\n{yaml}");
            }
            match fast::parse(yaml, 7) {
                Some(node) => {
                    fast += 1;
                    assert_eq!(Ok(node), reference, "{name}: the event path and the full parser differ for\n{yaml}");
                }
                None => full += 1,
            }
        }
        eprintln!(
            "yaml byte reader: {scanned} documents, event path: {fast}, full path only: {full} (of {})",
            docs.len()
        );
        assert!(fast * 2 > docs.len(), "the event path should take most front matter ({fast} of {})", docs.len());
        // Every file of the repository and the suites that the event path takes, the byte
        // reader takes too, but for the constructs it leaves to the general path.
        let files: Vec<_> = docs.iter().filter(|(n, _)| n != "edge").collect();
        let missed: Vec<&str> = files
            .iter()
            .filter(|(_, y)| fast::parse(y, 0).is_some() && scan::parse(y, 0).is_none())
            .map(|(n, _)| n.as_str())
            .collect();
        eprintln!("left to the event path: {missed:#?}");
        assert!(
            missed.len() * 10 < files.len(),
            "the byte reader gives up on {} of {} files",
            missed.len(),
            files.len()
        );
    }

    fn slice<'a>(text: &'a str, n: &Node) -> &'a str {
        &text[n.span.clone()]
    }

    #[test]
    fn spans_point_into_the_file() {
        let file = "---\nname: a\nmodel:\n  id: gpt-4\nn: y\n---\nbody";
        let yaml = &file[4..file.rfind("---").expect("fence")];
        let root = parse(file, 4, yaml).expect("valid");
        assert_eq!(slice(file, root.key_node("name").expect("key")), "name");
        let model = root.get("model").expect("model");
        assert_eq!(slice(file, model.get("id").expect("id")), "gpt-4");
        assert_eq!(root.get("n").and_then(Node::as_str), Some("y"));
    }

    #[test]
    fn duplicate_key_is_located() {
        let file = "---\na: 1\na: 2\n---\n";
        let err = parse(file, 4, &file[4..13]).expect_err("duplicate");
        assert_eq!(err.code, codes::DUPLICATE_KEY);
        assert_eq!(&file[err.span.clone()], "a");
        assert_eq!(err.span.start, 9);
    }

    #[test]
    fn syntax_error_message_is_clean() {
        let file = "---\nname: [invalid\n---\n";
        let err = parse(file, 4, &file[4..18]).expect_err("invalid");
        assert_eq!(err.code, codes::YAML_SYNTAX);
        assert!(err.message.starts_with("invalid front matter YAML: "), "{}", err.message);
        assert!(!err.message.contains("line "), "{}", err.message);
    }
}
