//! The loader keeps what it split and parsed (`Loaded::document`): the pieces' spans and the
//! front matter as written. Tools that read the source (lint, the formatter, the language
//! server) use it instead of splitting and parsing the file again, so it must be exactly
//! what a fresh split and parse of the text gives, references unresolved and no secret in it.

use prompty_syntax::yaml::{self, Node, NodeValue};
use prompty_syntax::{LoadOptions, MapHost, Profile, ProfileChoice, load_bytes, load_str, split};
use prompty_test_support::prompt_files;

/// What a fresh split and parse of `text` gives: (front matter span, open fence, body span,
/// tree); `None` when the file does not split.
type Fresh = (Option<std::ops::Range<usize>>, Option<std::ops::Range<usize>>, std::ops::Range<usize>, Option<Node>);

fn fresh(text: &str) -> Option<Fresh> {
    let parts = split::split(text).ok()?;
    let tree = parts.front_matter.as_ref().and_then(|fm| yaml::parse(text, fm.span.start, fm.text).ok());
    Some((parts.front_matter.map(|p| p.span), parts.open_fence, parts.body.span, tree))
}

fn kept(loaded: &prompty_syntax::Loaded) -> Option<Fresh> {
    let d = loaded.document.clone()?;
    Some((d.front_matter, d.open_fence, d.body, d.tree))
}

fn strings(node: &Node, out: &mut Vec<String>) {
    match &node.value {
        NodeValue::String(s) => out.push(s.clone()),
        NodeValue::Seq(items) => items.iter().for_each(|i| strings(i, out)),
        NodeValue::Map(entries) => entries.iter().for_each(|(k, v)| {
            strings(k, out);
            strings(v, out);
        }),
        _ => {}
    }
}

#[test]
fn every_prompt_file_keeps_the_document_a_fresh_parse_gives() {
    let host = MapHost::new().with_env("OPENAI_API_KEY", "sk-test-0123456789").with_env("MODEL", "gpt-4o");
    let mut with_tree = 0;
    for file in prompt_files() {
        let text = std::fs::read_to_string(&file).expect("readable");
        for profile in [ProfileChoice::Auto, ProfileChoice::Force(Profile::Promptflow)] {
            for lint in [false, true] {
                let options = LoadOptions { path: Some(file.clone()), profile, lint, ..LoadOptions::default() };
                let loaded = load_str(&text, &host, &options);
                assert_eq!(kept(&loaded), fresh(&text), "{} {profile:?} lint={lint}", file.display());
                with_tree += usize::from(loaded.document.is_some_and(|d| d.tree.is_some()));
            }
        }
    }
    assert!(with_tree > 150, "only {with_tree} loads kept a tree");
}

#[test]
fn references_stay_as_written_and_no_secret_is_kept() {
    let secret = "sk-test-SECRET-value";
    let host =
        MapHost::new().with_env("KEY", secret).with_file("/p/conn.json", r#"{"kind": "key", "key": "${env:KEY}"}"#);
    let options = LoadOptions { path: Some("/p/x.prompty".into()), ..LoadOptions::default() };
    // Plain, escaped (`\x24` is `$`: the reference is only visible after YAML reads it) and
    // file references, and a file whose values resolve to nothing new.
    let texts = [
        "---\nmodel:\n  id: gpt-4o\n  connection: ${file:conn.json}\ninputs:\n  q:\n    kind: string\n    default: ${env:KEY}\n---\nuser:\n{{q}}",
        "---\nmodel:\n  id: gpt-4o\n  connection:\n    kind: key\n    key: \"\\x24{env:KEY}\"\n---\nuser:\nhi",
        "---\nname: plain\n---\nuser:\nhi",
    ];
    for text in texts {
        let loaded = load_str(text, &host, &options);
        assert!(!loaded.has_errors(), "{text:?}: {:?}", loaded.diagnostics);
        assert_eq!(kept(&loaded), fresh(text), "{text:?}");
        let mut all = Vec::new();
        strings(loaded.document.as_ref().and_then(|d| d.tree.as_ref()).expect("a tree"), &mut all);
        assert!(all.iter().all(|s| !s.contains(secret)), "{text:?}: a secret in the kept tree: {all:?}");
        // The prompt itself got the resolved values.
        if text.contains("KEY") {
            assert!(!loaded.secrets().is_empty(), "{text:?}: nothing resolved");
        }
    }
}

#[test]
fn files_that_do_not_load_keep_what_was_found() {
    let host = MapHost::new();
    let options = LoadOptions::default();
    // Front matter that is not YAML: the pieces, no tree.
    let text = "---\nname: [unclosed\n---\nuser:\nhi";
    let loaded = load_str(text, &host, &options);
    assert!(loaded.prompt.is_none());
    let d = loaded.document.expect("the file splits");
    assert_eq!(d.tree, None);
    assert_eq!(text.get(d.body.clone()), Some("user:\nhi"));
    assert_eq!(d.front_matter.and_then(|s| text.get(s)), Some("name: [unclosed\n"));
    // Rejected before parsing (a NUL byte, over the size limit): the pieces, no tree.
    for bytes in [b"---\nname: x\n---\nuser:\nhi\0".to_vec(), {
        let mut big = b"---\nname: x\n---\nuser:\n".to_vec();
        big.resize(prompty_syntax::MAX_FILE_BYTES + 1, b'a');
        big
    }] {
        let loaded = load_bytes(&bytes, &host, &options);
        assert!(loaded.prompt.is_none() && loaded.has_errors());
        let d = loaded.document.expect("the file splits");
        assert_eq!((d.front_matter, d.body.start, d.tree), (Some(4..12), 16, None));
    }
    // Never closed, not text, empty: nothing, or the whole body.
    assert_eq!(load_str("---\nname: x\n", &host, &options).document, None);
    assert_eq!(load_bytes(b"\xff\xfe", &host, &options).document, None);
    let empty = load_str("", &host, &options).document.expect("an empty file splits");
    assert_eq!((empty.front_matter, empty.body, empty.tree), (None, 0..0, None));
}
