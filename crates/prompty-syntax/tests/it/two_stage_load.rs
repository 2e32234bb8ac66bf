//! `parse_front_matter` then `load_parsed` is `load_str`: the same prompt and the same
//! diagnostics, on every prompt file of the repository and the conformance data, under
//! both profiles, with references and secrets.

use prompty_syntax::yaml::{Flat, FlatNode, Node, NodeValue};
use prompty_syntax::{
    Diagnostic, LoadOptions, Loaded, MapHost, Profile, ProfileChoice, load_parsed, load_str, parse_front_matter,
};
use prompty_test_support::prompt_files;

fn two_stage(text: &str, host: &MapHost, options: &LoadOptions) -> Loaded {
    let (front, mut diagnostics) = parse_front_matter(text, host, options);
    let Some(front) = front else { return Loaded { prompt: None, diagnostics, document: None } };
    let rest = load_parsed(text, front);
    diagnostics.extend(rest.diagnostics);
    diagnostics.sort_by_key(|d: &Diagnostic| (d.span.start, d.span.end));
    Loaded { prompt: rest.prompt, diagnostics, document: rest.document }
}

fn assert_same(text: &str, host: &MapHost, options: &LoadOptions, what: &str) {
    let one = load_str(text, host, options);
    let two = two_stage(text, host, options);
    assert_eq!(one.prompt, two.prompt, "{what}: prompts differ");
    assert_eq!(one.diagnostics, two.diagnostics, "{what}: diagnostics differ");
    // The same pieces; only the one-stage load keeps the tree as written.
    let spans =
        |l: &Loaded| l.document.as_ref().map(|d| (d.front_matter.clone(), d.open_fence.clone(), d.body.clone()));
    if two.prompt.is_some() {
        assert_eq!(spans(&one), spans(&two), "{what}: documents differ");
        assert_eq!(two.document.and_then(|d| d.tree), None, "{what}: load_parsed reads no YAML");
    }
}

#[test]
fn every_prompt_file_loads_the_same_in_two_stages() {
    let host = MapHost::new().with_env("OPENAI_API_KEY", "sk-test-0123456789").with_env("MODEL", "gpt-4o");
    for file in prompt_files() {
        let text = std::fs::read_to_string(&file).expect("readable");
        // The front matter laid out flat and rebuilt is the same tree.
        let (front, _) = parse_front_matter(&text, &host, &LoadOptions::default());
        if let Some(front) = front {
            let rebuilt = Node::from_flat(&front.root.to_flat());
            assert_eq!(rebuilt.as_ref(), Some(&front.root), "{}: flat round trip", file.display());
        }
        for profile in
            [ProfileChoice::Auto, ProfileChoice::Force(Profile::Spec), ProfileChoice::Force(Profile::Promptflow)]
        {
            for lint in [false, true] {
                let options = LoadOptions { path: Some(file.clone()), profile, lint, ..LoadOptions::default() };
                assert_same(&text, &host, &options, &format!("{} {profile:?} lint={lint}", file.display()));
            }
        }
    }
}

#[test]
fn references_secrets_and_broken_files_load_the_same_in_two_stages() {
    let host = MapHost::new()
        .with_env("KEY", "sk-test-SECRET-value")
        .with_file("/p/schema.json", r#"{"kind": "key", "key": "${env:KEY}"}"#);
    let options = LoadOptions { path: Some("/p/x.prompty".into()), ..LoadOptions::default() };
    let texts = [
        "---\nmodel:\n  id: gpt-4o\n  connection: ${file:schema.json}\ninputs:\n  q:\n    kind: string\n    default: ${env:KEY}\n---\nuser:\n{{q}}",
        "---\nmodel: ${env:UNSET}\n---\nuser:\nhi",
        "---\nname: [unclosed\n---\nuser:\nhi",
        "---\nname: x\n",
        "",
        "user:\nno front matter",
        "---\nmodel:\n  api: chat\n  parameters: {temperature: 0}\nsample: {q: hi}\n---\nsystem:\n{{q}}\n",
    ];
    for text in texts {
        assert_same(text, &host, &options, &format!("{text:?}"));
    }
    let (front, _) = parse_front_matter(texts[0], &host, &options);
    let front = front.expect("front matter");
    assert_eq!(front.secrets.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["KEY"]);
    let prompt = load_parsed(texts[0], front).prompt.expect("prompt");
    assert_eq!(prompt.input("q").and_then(|p| p.default.clone()), Some("sk-test-SECRET-value".into()));
}

#[test]
fn flat_trees_round_trip_deep_wide_and_odd() {
    let at = |value| Node { value, span: 1..2 };
    // `to_flat` and `from_flat` walk without recursion; the derived drop of a tree this deep
    // does recurse (the loader never builds one: its nesting is bounded), so the deep case
    // runs on a thread with room for the drop, also when an assertion fails.
    let deep_case = move || {
        let deep = (0..100_000).fold(at(NodeValue::Null), |inner, i| {
            if i % 2 == 0 {
                at(NodeValue::Seq(vec![inner]))
            } else {
                at(NodeValue::Map(vec![(at(NodeValue::String("k".into())), inner)]))
            }
        });
        let flat = deep.to_flat();
        assert_eq!(flat.len(), 150_001, "100,000 nodes, 50,000 map keys, the leaf");
        let rebuilt = Node::from_flat(&flat).expect("one tree");
        assert_eq!(rebuilt.to_flat(), flat);
    };
    let big_stack = std::thread::Builder::new().stack_size(1 << 30);
    big_stack.spawn(deep_case).expect("thread").join().expect("the deep tree round trips");
    let numbers = at(NodeValue::Seq(vec![
        at(NodeValue::Number((-3i64).into())),
        at(NodeValue::Number(u64::MAX.into())),
        at(NodeValue::Number(serde_json::Number::from_f64(0.1).expect("finite"))),
        at(NodeValue::Map(Vec::new())),
        at(NodeValue::Seq(Vec::new())),
        at(NodeValue::Bool(true)),
    ]));
    assert_eq!(Node::from_flat(&numbers.to_flat()).as_ref(), Some(&numbers));
    // Not exactly one tree: nothing.
    let item = |value| FlatNode { value, start: 0, end: 0 };
    assert_eq!(Node::from_flat(&[]), None);
    assert_eq!(Node::from_flat(&[item(Flat::Seq(2)), item(Flat::Null)]), None);
    assert_eq!(Node::from_flat(&[item(Flat::Null), item(Flat::Null)]), None);
    assert_eq!(Node::from_flat(&[item(Flat::Map(usize::MAX))]), None);
    assert_eq!(Node::from_flat(&[item(Flat::Float(f64::NAN))]), None);
}
