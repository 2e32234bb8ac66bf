//! Hostile input: every case ends quickly, within bounded memory, with a clear diagnostic
//! and never a panic. The time bounds below are generous hang guards for debug builds, not
//! benchmarks.

use std::time::{Duration, Instant};

use prompty_syntax::yaml::{MAX_YAML_DEPTH, MAX_YAML_NODES};
use prompty_syntax::{
    Diagnostic, LineIndex, LoadOptions, Loaded, MAX_FILE_BYTES, MapHost, codes, load_bytes, load_str,
};
use prompty_test_support::Rng;

const HANG_GUARD: Duration = Duration::from_secs(120);

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    assert!(took < HANG_GUARD, "{what} took {took:?}");
    out
}

fn load(text: &str) -> Loaded {
    load_str(text, &MapHost::new(), &LoadOptions::default())
}

fn codes_of(loaded: &Loaded) -> Vec<&'static str> {
    loaded.diagnostics.iter().map(|d| d.code.id).collect()
}

fn first_error(loaded: &Loaded) -> &Diagnostic {
    loaded.diagnostics.iter().find(|d| d.is_error()).unwrap_or_else(|| panic!("no error in {:?}", loaded.diagnostics))
}

fn spans_in_bounds(loaded: &Loaded, len: usize) {
    for d in &loaded.diagnostics {
        assert!(d.span.start <= d.span.end && d.span.end <= len, "span {:?} outside 0..{len}: {d:?}", d.span);
    }
}

#[test]
fn deeply_nested_flow_yaml_is_an_error_not_a_stack_overflow() {
    for depth in [1_000, 100_000] {
        let text = format!("---\nname: t\nx: {}{}\n---\nuser:\nhi", "[".repeat(depth), "]".repeat(depth));
        let loaded = timed("nested flow sequences", || load(&text));
        assert!(loaded.has_errors(), "depth {depth}: {:?}", codes_of(&loaded));
        let e = first_error(&loaded);
        assert_eq!(e.code, codes::YAML_SYNTAX, "{e:?}");
        spans_in_bounds(&loaded, text.len());
    }
}

#[test]
fn nesting_up_to_the_limit_loads_on_a_small_stack() {
    // Library users load from ordinary threads: 32 levels must fit a 2 MB stack even in a
    // debug build, and one more level is a clear error.
    let nested = |depth: usize| {
        let mut fm = String::from("name: t\nmetadata:\n");
        for i in 0..depth {
            fm.push_str(&" ".repeat(i + 1));
            fm.push_str("a:\n");
        }
        format!("---\n{fm}---\nuser:\nhi")
    };
    let ok = nested(MAX_YAML_DEPTH - 2);
    let deep = nested(MAX_YAML_DEPTH);
    let (ok, deep) = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || (load(&ok), load(&deep)))
        .expect("spawn")
        .join()
        .expect("no panic");
    assert!(!ok.has_errors(), "{:?}", ok.diagnostics);
    let e = first_error(&deep);
    assert_eq!(e.code, codes::YAML_SYNTAX);
    assert_eq!(
        e.message,
        format!("invalid front matter YAML: the front matter nests deeper than {MAX_YAML_DEPTH} levels")
    );
}

#[test]
fn deeply_nested_block_yaml_is_an_error_not_a_stack_overflow() {
    let mut fm = String::from("name: t\nx:\n");
    for i in 0..5_000 {
        fm.push_str(&" ".repeat(i + 1));
        fm.push_str("a:\n");
    }
    let text = format!("---\n{fm}---\nuser:\nhi");
    let loaded = timed("nested block mappings", || load(&text));
    assert!(loaded.has_errors(), "{:?}", codes_of(&loaded));
    spans_in_bounds(&loaded, text.len());
}

#[test]
fn nested_flow_mappings_in_inputs_do_not_overflow() {
    let depth = 50_000;
    let text = format!(
        "---\nname: t\ninputs:\n  q:\n    kind: object\n    default: {}{}\n---\nuser:\nhi",
        "{a: ".repeat(depth),
        "}".repeat(depth)
    );
    let loaded = timed("nested flow mappings", || load(&text));
    assert!(loaded.has_errors());
    spans_in_bounds(&loaded, text.len());
}

#[test]
fn alias_bomb_is_rejected() {
    // Billion laughs: nine levels of ten aliases each expand to 10^9 strings.
    let mut fm = String::from("name: t\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let p = i - 1;
        fm.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
    }
    let text = format!("---\n{fm}---\nuser:\nhi");
    let loaded = timed("alias bomb", || load(&text));
    assert!(loaded.has_errors(), "{:?}", codes_of(&loaded));
    let e = first_error(&loaded);
    assert_eq!(e.code, codes::YAML_SYNTAX, "{e:?}");
    assert_eq!(
        e.message,
        format!(
            "invalid front matter YAML: the front matter holds more than {MAX_YAML_NODES} values once its aliases are expanded"
        )
    );
    spans_in_bounds(&loaded, text.len());
}

#[test]
fn hundred_megabytes_are_rejected_by_size_without_parsing() {
    let dir = std::env::temp_dir().join(format!("prompty-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("huge.prompty");
    {
        // Real bytes on disk: front matter, then a 100 MB body.
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
        f.write_all(b"---\nname: huge\n---\nuser:\n").expect("write");
        let line = [b'x'; 1023];
        for _ in 0..100 * 1024 {
            f.write_all(&line).expect("write");
            f.write_all(b"\n").expect("write");
        }
        f.flush().expect("flush");
    }
    let bytes = std::fs::read(&path).expect("read back");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(bytes.len() > 100 * 1024 * 1024);
    let start = Instant::now();
    let loaded = load_bytes(&bytes, &MapHost::new(), &LoadOptions::default());
    let took = start.elapsed();
    assert!(took < Duration::from_secs(10), "rejecting by size took {took:?}");
    assert!(loaded.prompt.is_none());
    let e = first_error(&loaded);
    assert_eq!(e.code, codes::TOO_LARGE);
    assert_eq!(e.message, format!("the file is {} bytes; the limit is {MAX_FILE_BYTES}", bytes.len()));
}

#[test]
fn just_under_the_size_limit_still_loads() {
    let mut text = String::from("---\nname: big\n---\nuser:\n");
    text.push_str(&"y".repeat(MAX_FILE_BYTES - text.len()));
    let loaded = timed("16 MB body", || load(&text));
    assert!(!loaded.has_errors(), "{:?}", codes_of(&loaded));
    assert_eq!(loaded.prompt.expect("prompt").instructions.map(|s| s.len()), Some(MAX_FILE_BYTES - 18));
}

#[test]
fn invalid_utf8_is_not_text_at_its_offset() {
    let mut bytes = b"---\nname: t\n---\nuser:\nhello ".to_vec();
    let at = bytes.len();
    bytes.extend_from_slice(&[0xff, 0xfe, 0xc3]);
    let loaded = load_bytes(&bytes, &MapHost::new(), &LoadOptions::default());
    assert!(loaded.prompt.is_none());
    let e = first_error(&loaded);
    assert_eq!(e.code, codes::NOT_TEXT);
    assert_eq!(e.span, at..at);
    assert_eq!(e.message, format!("the file is not UTF-8 text (invalid byte at offset {at})"));
    // A truncated multi-byte sequence at the very end, and a lone continuation byte first.
    for bytes in [&b"---\nname: t\n---\nuser:\n\xe2\x82"[..], b"\x80---\n"] {
        let loaded = load_bytes(bytes, &MapHost::new(), &LoadOptions::default());
        assert_eq!(first_error(&loaded).code, codes::NOT_TEXT);
        spans_in_bounds(&loaded, bytes.len());
    }
}

#[test]
fn nul_bytes_are_not_text() {
    for bytes in [&b"---\nname: t\0\n---\nuser:\nhi"[..], b"\0", b"---\nname: t\n---\nuser:\nhi\0there"] {
        let loaded = load_bytes(bytes, &MapHost::new(), &LoadOptions::default());
        assert!(loaded.prompt.is_none());
        let e = first_error(&loaded);
        assert_eq!(e.code, codes::NOT_TEXT);
        let at = bytes.iter().position(|&b| b == 0).expect("has a NUL");
        assert_eq!(e.span, at..at + 1);
        assert_eq!(e.message, "the file contains a NUL byte; it looks binary");
    }
}

#[test]
fn mixed_line_endings_load_with_lf_only_instructions() {
    let text = "---\r\nname: mixed\nmodel:\r  id: gpt-4o\r\n---\nsystem:\r\nBe brief.\ruser:\n{{q}}\r\n";
    let loaded = timed("mixed newlines", || load(text));
    spans_in_bounds(&loaded, text.len());
    let prompt = loaded.prompt.expect("a prompt");
    let body = prompt.instructions.expect("instructions");
    assert!(!body.contains('\r'), "{body:?}");
    assert!(body.starts_with("system:\nBe brief.\n"), "{body:?}");
    assert!(prompt.body_span.end <= text.len());
}

#[test]
fn only_carriage_returns_load() {
    let text = "---\rname: cr\rmodel:\r  id: gpt-4o\r---\rsystem:\rBe brief.\ruser:\rhi\r";
    let loaded = timed("CR-only file", || load(text));
    spans_in_bounds(&loaded, text.len());
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let prompt = loaded.prompt.expect("a prompt");
    // The front matter is read as front matter, not left in the body as a system message.
    assert_eq!(prompt.name.as_deref(), Some("cr"));
    assert_eq!(prompt.model.map(|m| m.id).as_deref(), Some("gpt-4o"));
    assert_eq!(prompt.instructions.as_deref(), Some("system:\nBe brief.\nuser:\nhi"));
}

#[test]
fn only_carriage_returns_diagnostics_point_at_their_line() {
    let text = "---\rname: cr\rmodel: m\rinputs:\r  q:\r    kind: strng\r---\ruser:\r{{q}}\r";
    let loaded = timed("CR-only file with an error", || load(text));
    let e = first_error(&loaded);
    let (line, col) = LineIndex::new(text).line_col(text, e.span.start);
    assert_eq!((line, col), (6, 11), "{e:?}");
    assert_eq!(&text[e.span.clone()], "strng");
}

#[test]
fn byte_order_mark_is_skipped() {
    let text = "\u{feff}---\nname: bom\n---\nuser:\nhi";
    let loaded = load_bytes(text.as_bytes(), &MapHost::new(), &LoadOptions::default());
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    assert_eq!(loaded.prompt.expect("prompt").name.as_deref(), Some("bom"));
    // A BOM alone, and a BOM in the middle of the file, are harmless too.
    for text in ["\u{feff}", "---\nname: t\n---\nuser:\n\u{feff}hi\u{feff}"] {
        let loaded = load(text);
        spans_in_bounds(&loaded, text.len());
    }
}

#[test]
fn many_keys_and_long_lines_stay_fast() {
    let mut fm = String::from("name: t\n");
    for i in 0..5_000 {
        fm.push_str(&format!("unknown_key_{i}: {i}\n"));
    }
    fm.push_str(&format!("description: {}\n", "d".repeat(1 << 20)));
    let text = format!("---\n{fm}---\nuser:\nhi");
    let loaded = timed("5,000 unknown keys", || load(&text));
    assert!(codes_of(&loaded).iter().filter(|c| **c == codes::UNKNOWN_KEY.id).count() >= 1);
    spans_in_bounds(&loaded, text.len());
}

#[test]
fn unterminated_front_matter_at_eof() {
    for text in ["---", "---\n", "---\nname: t", "+++\nname = 't'\n", "---\n---"] {
        let loaded = timed("unterminated", || load(text));
        spans_in_bounds(&loaded, text.len());
    }
}

#[test]
fn self_referencing_file_is_a_depth_error() {
    let host = MapHost::new().with_file("/p/a.yaml", "x: ${file:a.yaml}\n");
    let text = "---\nname: t\nmetadata:\n  loop: ${file:a.yaml}\n---\nuser:\nhi";
    let opts = LoadOptions { path: Some("/p/x.prompty".into()), ..LoadOptions::default() };
    let loaded = timed("reference cycle", || load_str(text, &host, &opts));
    assert!(codes_of(&loaded).contains(&codes::REFERENCE_DEPTH.id), "{:?}", loaded.diagnostics);
    spans_in_bounds(&loaded, text.len());
}

#[test]
fn file_reference_fan_out_is_bounded() {
    // Each file names the next one ten times: without a bound on the total, eight levels
    // would be 10^8 file loads.
    let refs = |next: &str| (0..10).map(|i| format!("k{i}: ${{file:{next}}}\n")).collect::<String>();
    let host = MapHost::new().with_file("/p/a.yaml", &refs("a.yaml"));
    let text = "---\nname: t\nmetadata:\n  bomb: ${file:a.yaml}\n---\nuser:\nhi";
    let opts = LoadOptions { path: Some("/p/x.prompty".into()), ..LoadOptions::default() };
    let loaded = timed("reference fan-out", || load_str(text, &host, &opts));
    assert!(loaded.has_errors());
    // One diagnostic per distinct cause, not one per path through the tree.
    assert!(loaded.diagnostics.len() <= 10 * 256, "{} diagnostics", loaded.diagnostics.len());
}

#[test]
fn deeply_nested_json_file_reference_is_an_error() {
    let depth = 100_000;
    let json = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let host = MapHost::new().with_file("/p/deep.json", &json);
    let text = "---\nname: t\nmetadata:\n  deep: ${file:deep.json}\n---\nuser:\nhi";
    let opts = LoadOptions { path: Some("/p/x.prompty".into()), ..LoadOptions::default() };
    let loaded = timed("deep JSON file", || load_str(text, &host, &opts));
    assert!(codes_of(&loaded).contains(&codes::FILE_PARSE.id), "{:?}", loaded.diagnostics);
}

#[test]
fn deeply_nested_yaml_file_reference_is_an_error() {
    let depth = 100_000;
    let yaml = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let host = MapHost::new().with_file("/p/deep.yaml", &yaml);
    let text = "---\nname: t\nmetadata:\n  deep: ${file:deep.yaml}\n---\nuser:\nhi";
    let opts = LoadOptions { path: Some("/p/x.prompty".into()), ..LoadOptions::default() };
    let loaded = timed("deep YAML file", || load_str(text, &host, &opts));
    assert!(codes_of(&loaded).contains(&codes::FILE_PARSE.id), "{:?}", loaded.diagnostics);
}

/// Pieces of `.prompty` syntax to splice into seeds.
const TOKENS: &[&str] = &[
    "---\n",
    "\n",
    "\r\n",
    "\r",
    ": ",
    "- ",
    "  ",
    "{",
    "}",
    "[",
    "]",
    "&a ",
    "*a",
    "!!str ",
    "? ",
    "|\n",
    ">-\n",
    "${env:X}",
    "${file:a.yaml}",
    "${file:../x}",
    "${",
    "\u{feff}",
    "\t",
    "\"",
    "'",
    "#",
    "name: x\n",
    "model:\n",
    "inputs:\n",
    "  - name: q\n",
    "    kind: array\n",
    "kind: thread\n",
    "template:\n  format: mustache\n",
    "user:\n",
    "system:\n",
    "assistant[a=b]:\n",
    "é",
    "\u{10ffff}",
    "0x10",
    "1e999",
    "-.inf",
    "~",
    "<<: *a\n",
    "+++\n",
];

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut out = seed.to_vec();
    for _ in 0..1 + rng.below(6) {
        let at = rng.below(out.len() + 1);
        match rng.below(5) {
            0 => {
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                out.splice(at..at, t.iter().copied());
            }
            1 => {
                let end = (at + rng.below(64)).min(out.len());
                out.drain(at..end);
            }
            2 => {
                let end = (at + rng.below(64)).min(out.len());
                let chunk = out[at..end].to_vec();
                out.splice(at..at, chunk);
            }
            3 if at < out.len() => out[at] = rng.next_u64() as u8,
            _ => out.truncate(at),
        }
    }
    out
}

/// Every `.prompty` file of the conformance data, the seeds of the load property test.
fn conformance_seeds() -> Vec<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance");
    let mut seeds = Vec::new();
    for sub in ["prompty-spec/fixtures", "azure-eval/prompts"] {
        let dir = root.join(sub);
        let entries =
            std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("conformance data missing: {}: {e}", dir.display()));
        let mut paths: Vec<_> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "prompty")) {
            seeds.push(std::fs::read(&p).expect("readable seed"));
        }
    }
    assert!(seeds.len() > 10, "too few seeds");
    seeds
}

#[test]
fn property_mutated_prompts_load_without_panics() {
    let seeds = conformance_seeds();
    let host = MapHost::new().with_env("OPENAI_API_KEY", "k").with_file("/p/a.yaml", "k: ${file:a.yaml}\n");
    let opts = LoadOptions { path: Some("/p/x.prompty".into()), ..LoadOptions::default() };
    let lint = LoadOptions { lint: true, ..opts.clone() };
    let mut rng = Rng::new(0x5eed_0001);
    let start = Instant::now();
    for i in 0..3_000 {
        let input = mutate(&mut rng, &seeds[i % seeds.len()]);
        let loaded = load_bytes(&input, &host, if i % 2 == 0 { &opts } else { &lint });
        spans_in_bounds(&loaded, input.len());
        if loaded.prompt.is_none() {
            assert!(loaded.has_errors(), "no prompt and no error for {:?}", String::from_utf8_lossy(&input));
        }
    }
    assert!(start.elapsed() < HANG_GUARD, "took {:?}", start.elapsed());
}
