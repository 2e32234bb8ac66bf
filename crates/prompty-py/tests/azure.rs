//! `str_json` against the renderings recorded from azure-ai-evaluation.
//!
//! Every list or dict among the inputs of a case in `shared/conformance/azure-eval/inputs`
//! reached the Python template as a value and was printed with `str()`. Its `str_json` must
//! therefore appear verbatim in a message of `expected/<same name>.json`, unless the
//! prompt template never references that input.

use std::fs;
use std::path::{Path, PathBuf};

use prompty_py::str_json;
use serde_json::Value;

const AZURE_EVAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/azure-eval");

/// At least this many list/dict inputs must be found in the recorded renderings, so that
/// the test cannot pass on an emptied or reshaped data folder.
const MIN_VERIFIED: usize = 15;

fn read_json(path: &Path) -> Value {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    };
    match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => panic!("{} is not valid JSON: {e}", path.display()),
    }
}

fn string_leaves<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|x| string_leaves(x, out)),
        Value::Object(map) => map.values().for_each(|x| string_leaves(x, out)),
        _ => {}
    }
}

/// The template part of a `.prompty` file: what follows the closing `---` of the front
/// matter, or the whole text when there is no front matter.
fn template_body(prompty: &str) -> &str {
    let mut lines = prompty.split_inclusive('\n');
    let mut offset = 0usize;
    match lines.next() {
        Some(first) if first.trim() == "---" => offset += first.len(),
        _ => return prompty,
    }
    for line in lines {
        offset += line.len();
        if line.trim() == "---" {
            return prompty.get(offset..).unwrap_or_default();
        }
    }
    prompty
}

/// Names that `{{ name ... }}` expressions of the template start with.
fn referenced_names(body: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find("{{") {
        let after = rest.get(start + 2..).unwrap_or_default();
        let Some(end) = after.find("}}") else { break };
        let expr = after.get(..end).unwrap_or_default().trim_start();
        let ident_len = expr.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(expr.len());
        names.push(expr.get(..ident_len).unwrap_or_default());
        rest = after.get(end + 2..).unwrap_or_default();
    }
    names
}

/// The longest prefix of `needle` found in one of `haystacks`, to point at a divergence.
fn longest_found_prefix(needle: &str, haystacks: &[&str]) -> usize {
    let mut boundaries: Vec<usize> = needle.char_indices().map(|(i, _)| i).collect();
    boundaries.push(needle.len());
    let found = |n: usize| {
        let prefix = needle.get(..n).unwrap_or_default();
        haystacks.iter().any(|h| h.contains(prefix))
    };
    // Binary search over char boundaries: found() is monotone in the prefix length.
    let (mut lo, mut hi) = (0usize, boundaries.len() - 1);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if found(boundaries[mid]) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    boundaries[lo]
}

#[test]
fn str_json_of_list_and_dict_inputs_appears_in_expected_messages() {
    let root = PathBuf::from(AZURE_EVAL);
    let inputs_dir = root.join("inputs");
    assert!(inputs_dir.is_dir(), "shared conformance data missing: {} is not a directory", inputs_dir.display());

    let mut files: Vec<PathBuf> = match fs::read_dir(&inputs_dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) => panic!("cannot list {}: {e}", inputs_dir.display()),
    };
    files.sort();
    assert!(!files.is_empty(), "no input files in {}", inputs_dir.display());

    let mut verified = Vec::new();
    let mut unreferenced = Vec::new();
    let mut failures = Vec::new();

    for input_path in &files {
        let Some(name) = input_path.file_name().and_then(|n| n.to_str()) else {
            panic!("non-UTF-8 file name {}", input_path.display());
        };
        let stem = name.trim_end_matches(".json");
        let parts: Vec<&str> = stem.split("__").collect();
        let [version, evaluator, prompt, _case] = parts.as_slice() else {
            panic!("{name}: expected <version>__<evaluator>__<prompt>__<case>.json");
        };
        let prompty_path = root.join("prompts").join(format!("{version}__{evaluator}__{prompt}.prompty"));
        let prompty = match fs::read_to_string(&prompty_path) {
            Ok(t) => t.replace("\r\n", "\n"),
            Err(e) => panic!("{name}: cannot read {}: {e}", prompty_path.display()),
        };
        let names = referenced_names(template_body(&prompty));

        let expected = read_json(&root.join("expected").join(name));
        let mut leaves = Vec::new();
        string_leaves(&expected, &mut leaves);

        let inputs = read_json(input_path);
        let Some(inputs) = inputs.as_object() else {
            panic!("{name}: inputs are not a JSON object");
        };
        for (key, value) in inputs {
            if !(value.is_array() || value.is_object()) {
                continue;
            }
            let text = str_json(value);
            if leaves.iter().any(|leaf| leaf.contains(&text)) {
                verified.push(format!("{name}: {key}"));
            } else if !names.contains(&key.as_str()) {
                unreferenced.push(format!("{name}: {key}"));
            } else {
                let at = longest_found_prefix(&text, &leaves);
                let context: String = text.get(at..).unwrap_or_default().chars().take(80).collect();
                failures.push(format!(
                    "{name}: input {key:?} is used by the template but its str() is not in the \
                     expected messages; the first {at} of {} bytes match, then: {context:?}",
                    text.len()
                ));
            }
        }
    }

    eprintln!("verified {} list/dict inputs", verified.len());
    for u in &unreferenced {
        eprintln!("not referenced by the template (skipped): {u}");
    }
    assert!(failures.is_empty(), "{} input(s) differ:\n{}", failures.len(), failures.join("\n"));
    assert!(
        verified.len() >= MIN_VERIFIED,
        "only {} list/dict inputs verified (want at least {MIN_VERIFIED}): {verified:#?}",
        verified.len()
    );
}

#[test]
fn template_reference_scan() {
    let body = template_body(
        "---\nname: x\nsample: '{{ not_body }}'\n---\nsystem:\nQ: {{query}} R: {{ response }} {{ a.b }}\n",
    );
    assert_eq!(referenced_names(body), ["query", "response", "a"]);
    assert_eq!(referenced_names("no front matter {{x}}"), ["x"]);
}
