//! Issue 23, item 9: filters, tests, methods, comparisons and operators are charged for the
//! bytes and items they build or visit, and refuse a value larger than the render allows
//! before building it.
//!
//! One trial per attack class. Each case renders in a child process of this test binary
//! (started with `PROMPTY_BUDGET_CASE` set) under an address-space limit of
//! [`MEMORY_LIMIT_KIB`], so a filter that allocated without bound would abort the child
//! instead of taking the machine's memory; the child reports the error it got, and the
//! trial asserts that it is the render-budget error (`ErrorKind::Limit`) naming the call
//! and the limit. A watchdog kills a child that outlives [`WATCHDOG`] (a hang is a failure,
//! not a measured time).

use std::process::{Command, Stdio};
use std::time::Duration;

use libtest_mimic::{Arguments, Failed, Trial};
use prompty_render::{ErrorKind, Limits, RenderOptions, Renderer};
use prompty_syntax::{LoadOptions, MapHost, load_str};
use prompty_test_support::finish;
use serde_json::{Map, Value, json};

/// The address space a child may use, in KiB (1 GiB): the inputs take about 100 MB; the
/// attacks below reached 1.3 to 6 GB before they were bounded.
const MEMORY_LIMIT_KIB: u64 = 1 << 20;

/// How long one child may run before it counts as hung.
const WATCHDOG: Duration = Duration::from_secs(300);

const CASE_VAR: &str = "PROMPTY_BUDGET_CASE";

/// Two equal 10 MB strings in separate allocations (`a`, `b`), a 20 MB text of words,
/// 30,000 short lines, 100,000 tabs, a map of 1,000 10 kB strings that differ in their last bytes only, shuffled (`m`).
fn big_inputs() -> Map<String, Value> {
    let ten = "0123456789".repeat(1_000_000);
    let mut m = Map::new();
    m.insert("a".into(), json!(ten.clone()));
    m.insert("b".into(), json!(ten));
    m.insert("words".into(), json!("word ".repeat(4_000_000)));
    m.insert("lines".into(), json!("x\n".repeat(30_000)));
    m.insert("tabs".into(), json!("\t".repeat(100_000)));
    let kilo = "0123456789".repeat(1000);
    m.insert(
        "m".into(),
        Value::Object((0..1000).map(|i| (format!("k{i}"), json!(format!("{kilo}{:04}", i * 389 % 1000)))).collect()),
    );
    m
}

/// The child: renders one body with the default limits and prints the outcome.
fn run_case(body: &str) {
    let loaded = load_str("---\nname: t\n---\n", &MapHost::new(), &LoadOptions::default());
    let mut prompt = loaded.prompt.expect("an empty prompt loads");
    prompt.instructions = Some(body.to_owned());
    let renderer =
        Renderer::with_options(prompt, RenderOptions { limits: Limits::default(), ..RenderOptions::default() })
            .expect("the template compiles");
    let out = renderer.render_text(&big_inputs());
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(str::to_owned))
        .unwrap_or_default();
    match out {
        Err(e) => println!("kind={:?}\nmessage={e}\n{peak}", e.kind()),
        Ok(text) => println!("kind=rendered\nmessage={} bytes\n{peak}", text.len()),
    }
}

/// Renders `body` in a child under the memory limit; the error it reports must be the
/// budget's.
fn refused(body: &str) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_LIMIT_KIB} && exec \"$0\""))
        .arg(exe)
        .env(CASE_VAR, body)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("the test binary cannot start: {e}"))?;
    let done = finish(child, WATCHDOG, body);
    if !done.status.success() {
        return Err(format!("{body}: the child failed ({}):\n{}{}", done.status, done.stdout, done.stderr));
    }
    let field =
        |name: &str| done.stdout.lines().find_map(|l| l.strip_prefix(name)).map(str::to_owned).unwrap_or_default();
    let (kind, message) = (field("kind="), field("message="));
    if kind != format!("{:?}", ErrorKind::Limit) {
        return Err(format!("{body}: not refused by the budget: {kind}: {message}"));
    }
    Ok(message)
}

/// A trial asserting that every body of `cases` is refused, each message containing the
/// matching `expect` text (the call named, the limit named).
fn class(name: &'static str, cases: &'static [(&'static str, &'static str)]) -> Trial {
    Trial::test(name, move || {
        let mut failures = Vec::new();
        for (body, expect) in cases {
            match refused(body) {
                Ok(message) if message.contains(expect) => {}
                Ok(message) => failures.push(format!("{body}: the message lacks {expect:?}: {message}")),
                Err(e) => failures.push(e),
            }
        }
        if failures.is_empty() { Ok(()) } else { Err(Failed::from(failures.join("\n"))) }
    })
}

/// Refused by the fuel, wherever it ran out.
const FUEL_ANY: &str = "fuel";

fn main() {
    if let Ok(body) = std::env::var(CASE_VAR) {
        run_case(&body);
        return;
    }
    let args = Arguments::from_args();
    let trials = vec![
        class("batch_fill", &[("{{ [1]|batch(10**9, 0) }}", "`batch` filter")]),
        class(
            "indent",
            &[("{{ lines|indent(10**6) }}", "`indent` filter"), ("{{ lines|indent(' ' * 10**5) }}", "`indent` filter")],
        ),
        class(
            "wordwrap",
            &[
                ("{{ words|wordwrap(1) }}", FUEL_ANY),
                ("{{ words|wordwrap(1, wrapstring='x' * 1000) }}", "`wordwrap` filter"),
            ],
        ),
        class(
            "comparisons",
            &[
                ("{% for i in range(30000) %}{% if a == b %}{% endif %}{% endfor %}", FUEL_ANY),
                ("{% for i in range(30000) %}{% if a != b %}{% endif %}{% endfor %}", FUEL_ANY),
                ("{% for i in range(30000) %}{% if a < b %}{% endif %}{% endfor %}", FUEL_ANY),
                ("{% for i in range(30000) %}{% if [a] == [b] %}{% endif %}{% endfor %}", FUEL_ANY),
                ("{% for i in range(30000) %}{% if a in b %}{% endif %}{% endfor %}", FUEL_ANY),
                ("{% for i in range(30000) %}{% if a is eq(b) %}{% endif %}{% endfor %}", "`eq` test"),
                ("{% for i in range(30000) %}{% if a is lt(b) %}{% endif %}{% endfor %}", "`lt` test"),
                ("{% for i in range(30000) %}{% if a is in([b]) %}{% endif %}{% endfor %}", "`in` test"),
                ("{% for i in range(30000) %}{% if [a] < [b] %}{% endif %}{% endfor %}", "`<` operator"),
            ],
        ),
        class(
            "repetition",
            &[
                ("{{ 'x' * 10**10 }}", FUEL_ANY),
                ("{{ ([a] * 1000)|string }}", "`string` filter"),
                ("{{ ([a] * 1000)|upper }}", "`upper` filter"),
                ("{{ ([1] * 10**7)|list|length }}", "`list` filter"),
            ],
        ),
        class(
            "concatenation",
            &[
                ("{% for i in range(100000) %}{% set x = a ~ b %}{% endfor %}", FUEL_ANY),
                ("{% for i in range(100000) %}{% set x = a + b %}{% endfor %}", FUEL_ANY),
                ("{{ ([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]] * 10000)|sum(start=[])|length }}", "`sum` filter"),
            ],
        ),
        class(
            "percent_formatting",
            &[
                ("{{ ('%s' * 1000) % ((a,) * 1000) }}", "`%` operator"),
                ("{{ '%s' % ([a] * 1000,) }}", "`%` operator"),
                ("{{ '%r' % ([a] * 1000,) }}", "`%` operator"),
                ("{{ ('%s' * 1000)|format(*((a,) * 1000)) }}", "`format` filter"),
            ],
        ),
        class(
            "str_format",
            &[
                ("{{ ('{0}' * 10**5).format(a) }}", "`format` method"),
                ("{{ '{!r}'.format([a] * 1000) }}", "`format` method"),
            ],
        ),
        class("range", &[("{{ range(10**9)|length }}", "100000")]),
        class(
            "join",
            &[
                ("{{ ([a] * 10**6)|join }}", "`join` filter"),
                ("{{ ([1] * 10**6)|join(a) }}", "`join` filter"),
                ("{{ a.join(['x'] * 10**6) }}", "`join` method"),
            ],
        ),
        class(
            "replace",
            &[
                ("{{ a|replace('0', a) }}", "`replace` filter"),
                ("{{ a|replace('', 'xyz') }}", "`replace` filter"),
                ("{{ a.replace('0', a) }}", "`replace` method"),
            ],
        ),
        class(
            "padding",
            &[
                ("{% for i in range(100000) %}{% set x = 'x'|center(10**6) %}{% endfor %}", "`center` filter"),
                ("{% for i in range(100000) %}{% set x = 'x'.ljust(10**6) %}{% endfor %}", "`ljust` method"),
                ("{{ tabs.expandtabs(10**6)|length }}", "`expandtabs` method"),
            ],
        ),
        class(
            "sorting",
            &[
                ("{{ ([a, b] * 500)|sort|length }}", "`sort` filter"),
                ("{{ ([a, b] * 500)|unique|list|length }}", "`unique` filter"),
                ("{{ ([a, b] * 500)|max }}", "`max` filter"),
                ("{{ ([{'k': a}, {'k': b}] * 500)|groupby('k')|length }}", FUEL_ANY),
                ("{{ m|dictsort(by='value')|length }}", "`dictsort` filter"),
            ],
        ),
        class(
            "map_select",
            &[
                ("{{ ([a] * 1000)|map('upper')|list|length }}", FUEL_ANY),
                ("{{ ([a] * 1000)|select('eq', b)|list|length }}", FUEL_ANY),
                ("{{ ([a] * 1000)|reject('in', b)|list|length }}", FUEL_ANY),
            ],
        ),
        class(
            "serialization",
            &[
                ("{{ ([a] * 1000)|tojson }}", "`tojson` filter"),
                ("{{ ([1] * 10**6)|tojson(indent=10**6) }}", "`tojson` filter"),
                ("{{ ([a] * 1000)|pprint }}", "`pprint` filter"),
                ("{{ dict(k=[a] * 1000)|xmlattr }}", "`xmlattr` filter"),
                ("{{ ([['k', a]] * 1000)|urlencode }}", "`urlencode` filter"),
            ],
        ),
        class("slice", &[("{{ []|slice(10**6, 0)|length }}", "`slice` filter")]),
        class(
            "splitting",
            &[
                ("{{ words.split()|length }}", "`split` method"),
                ("{{ words.split(' ')|length }}", "`split` method"),
                ("{{ ('x\n' * 3 * 10**6).splitlines()|length }}", "`splitlines` method"),
            ],
        ),
        class(
            "walking",
            &[
                ("{% for i in range(30000) %}{{ ([1] * 999999)|first }}{% endfor %}", "`first` filter"),
                ("{% for i in range(30000) %}{{ ([1] * 999999)|last }}{% endfor %}", "`last` filter"),
            ],
        ),
    ];
    libtest_mimic::run(&args, trials).exit();
}
