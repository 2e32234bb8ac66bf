//! A role line inside an input value never creates or changes a message, in either profile:
//! the cases that are generated rather than written. The written cases are data, in
//! `tests/security/` (run by `security.rs`).

use crate::{mixed, pf_split};

use std::time::{Duration, Instant};

use prompty_render::{ErrorKind, PROMPTFLOW_ROLES, Renderer};
use prompty_syntax::{LoadOptions, MapHost, load_str};
use serde_json::{Map, Value, json};

fn mixed_case(s: &str) -> String {
    s.chars().enumerate().map(|(i, c)| if i % 2 == 0 { c.to_ascii_uppercase() } else { c }).collect()
}

// ---- The promptflow profile: role lines and labels only from the template ----

/// A v1 prompt (promptflow profile) with `body` as its Jinja template and `q` as input.
fn v1(body: &str) -> Renderer {
    let text = format!("---\nname: t\nmodel:\n  api: chat\ninputs:\n  q:\n    type: string\n---\n{body}");
    let loaded = load_str(&text, &MapHost::new(), &LoadOptions::default());
    let prompt = loaded.prompt.unwrap_or_else(|| panic!("loads: {:?}", loaded.diagnostics));
    Renderer::new(prompt).expect("compiles")
}

fn given(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
}

/// The error of a refused render: kind Injection, naming `input`, one line.
fn refused(r: &Renderer, inputs: &Map<String, Value>, input: &str) -> String {
    let e = match r.prepare(inputs) {
        Ok(ms) => panic!("accepted {inputs:?}: {ms:?}"),
        Err(e) => e,
    };
    assert_eq!(e.kind(), ErrorKind::Injection, "{e}");
    assert_eq!(e.input(), Some(input), "{e}");
    let msg = e.to_string();
    assert!(!msg.contains('\n') && !msg.contains('\r'), "one line: {msg:?}");
    msg
}

const PF_BODY: &str = "system:\nYou are helpful.\n\nuser:\n{{q}}\n";

/// Finding 1: a value that ends in a role word and colon becomes a role line once the
/// template's next line break follows it. promptflow-core escapes only complete role lines
/// in values, so it lets this through; we refuse it (the message: the fixture
/// `pf_value_ending_in_role_word`). Here: the product of every role word, casing, prefix,
/// line break and suffix, 1,080 values.
#[test]
fn promptflow_value_ending_in_a_role_word_is_refused() {
    let r = v1(PF_BODY);
    // Every role word, casing, `#` and whitespace before it, CR before the line break, and
    // Unicode whitespace that Python's `\s` accepts.
    let mut n = 0;
    for role in PROMPTFLOW_ROLES {
        for word in [role.to_string(), role.to_uppercase(), mixed_case(role)] {
            for pre in ["", "  ", "# ", "\t#\t", "\u{3000}", "\u{1f}"] {
                for nl in ["\n", "\r\n", "\n\n  "] {
                    for post in ["", " ", "\r", " \t\r"] {
                        let q = format!("hi{nl}{pre}{word}{post}:{post}");
                        refused(&r, &given(&[("q", json!(q))]), "q");
                        n += 1;
                    }
                }
            }
        }
    }
    assert_eq!(n, 5 * 3 * 6 * 3 * 4);
}

/// Found while attacking the labels: promptflow's `(\S+)` backtracks, so a name glued to
/// `content:` (`name:\nlookupcontent:\n...`) is `lookup`. We read such a label as promptflow
/// does (the split alone, no template; a value that glues its own `content:` to the name is
/// refused: the fixture `pf_label_value_on_own_line`).
#[test]
fn promptflow_label_value_glued_to_content_reads_like_promptflow() {
    // Outputs of Python's `re.search` with promptflow's pattern.
    for (body, name, content) in [
        ("function:\nname:\nlookupcontent:\nhi", "lookup", "hi"),
        ("function:\nname:\nlook#content:\nhi", "look#", "hi"),
        ("function:\nname:\nacontentbcontent:\nhi", "acontentb", "hi"),
        ("function:\nname:\nx##  content :\nhi", "x##", "hi"),
        ("function:\nname:\n  \ncontent:\nname:\nq\ncontent:\nz", "q", "z"),
    ] {
        let ms = prompty_render::split_messages_promptflow(body).unwrap_or_else(|e| panic!("{body:?}: {e}"));
        assert_eq!((ms[0].metadata["name"].as_str(), ms[0].text_content().as_str()), (Some(name), content), "{body:?}");
    }
}

// ---- Every engine, both profiles, together ----

/// xorshift64*: the same sequence on every run.
struct Rng(u64);

impl pf_split::Source for Rng {
    fn byte(&mut self) -> u8 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
    }
}

/// Item: hostile values mixed over Jinja, Mustache and Handlebars templates in both profiles
/// (whitespace control, glued labels, loops, comments, raw blocks, delimiter changes,
/// reserved keys; `support/mixed.rs`). No input ever makes a message boundary, name or tool
/// call id, and benign values render byte for byte as the plain template's text splits.
#[test]
fn property_no_input_made_message_boundary_in_any_engine_or_profile() {
    const CASES: usize = 4_000;
    let mut rng = Rng(0x5eed_0010);
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut outcomes = std::collections::BTreeMap::new();
    for _ in 0..CASES {
        let case = mixed::case(&mut rng);
        match mixed::check(&case) {
            Ok(o) => *outcomes.entry((case.format, format!("{:?}", case.profile), o)).or_insert(0usize) += 1,
            Err(e) => failures.push(e),
        }
    }
    assert!(start.elapsed() < Duration::from_secs(120), "took {:?}", start.elapsed());
    assert!(failures.is_empty(), "{} of {CASES} cases failed; the first:\n{}", failures.len(), failures[0]);
    eprintln!("mixed injection property: {outcomes:?}");
    // Every engine and profile sees both outcomes, so neither half holds vacuously.
    for format in ["jinja2", "mustache", "handlebars"] {
        for profile in ["Spec", "Promptflow"] {
            for o in [mixed::Outcome::Refused, mixed::Outcome::Same] {
                let n = outcomes.get(&(format, profile.to_owned(), o)).copied().unwrap_or(0);
                assert!(n > 50, "{format} {profile} {o:?}: only {n} cases");
            }
        }
    }
    let reserved: usize = outcomes.iter().filter(|((_, _, o), _)| *o == mixed::Outcome::Reserved).map(|(_, n)| n).sum();
    assert!(reserved > 50, "reserved keys refused {reserved} times");
}
