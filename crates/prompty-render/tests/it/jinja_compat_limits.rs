//! Hostile input against the Jinja2 compatibility layer: huge widths and precisions in `%`,
//! `str.format` and the padding filters and methods, big collections through the sorting and
//! de-duplicating filters, deep nesting through `tojson` and `pprint`. Every case ends with a
//! typed error or a correct result within a generous hang guard, never a panic.

use std::time::{Duration, Instant};

use prompty_render::{Error, ErrorKind, Limits, RenderOptions, Renderer};
use prompty_syntax::{LoadOptions, MapHost, load_str};
use serde_json::{Map, Value, json};

const HANG_GUARD: Duration = Duration::from_secs(120);

fn render(body: &str, inputs: &Map<String, Value>, limits: Limits) -> Result<String, Error> {
    let loaded = load_str("---\nname: t\n---\n", &MapHost::new(), &LoadOptions::default());
    let mut prompt = loaded.prompt.expect("an empty prompt loads");
    prompt.instructions = Some(body.to_owned());
    let start = Instant::now();
    let out = Renderer::with_options(prompt, RenderOptions { limits, ..RenderOptions::default() })
        .and_then(|r| r.render_text(inputs));
    assert!(start.elapsed() < HANG_GUARD, "{body:?} took {:?}", start.elapsed());
    out
}

#[test]
fn huge_widths_are_limit_errors() {
    let bodies = [
        "{{ '%*d' % (10 ** 12, 1) }}",
        "{{ '%.*f' % (10 ** 9, 1.5) }}",
        "{{ '%0999999999999d' % 1 }}",
        "{{ '%0999999999999d'|format(1) }}",
        "{{ '{:>99999999999}'.format(1) }}",
        "{{ '{:.99999999999f}'.format(1.5) }}",
        "{{ 'x'|center(10 ** 12) }}",
        "{{ 'x'.ljust(10 ** 12) }}",
        "{{ 'x'.center(10 ** 12, '*') }}",
        "{{ 'x'.zfill(10 ** 12) }}",
        "{{ 'a\nb'|indent(10 ** 12) }}",
        "{{ [1]|tojson(indent=10 ** 12) }}",
        "{{ 'a\tb'.expandtabs(10 ** 12) }}",
    ];
    for body in bodies {
        for limits in [Limits::default(), Limits::default().with_steps(u64::MAX)] {
            match render(body, &Map::new(), limits) {
                Err(e) => assert_eq!(e.kind(), ErrorKind::Limit, "{body}: {e}"),
                Ok(out) => panic!("{body}: rendered {} bytes", out.len()),
            }
        }
    }
}

#[test]
fn moderate_widths_render() {
    let out = render(
        "{{ '%8.3f|%-6s|%05d' % (3.14159, 'ab', 42) }}{{ '{:^7}'.format('x') }}",
        &Map::new(),
        Limits::default(),
    );
    assert_eq!(out.ok().as_deref(), Some("   3.142|ab    |00042   x   "));
}

#[test]
fn big_collections_stay_within_fuel() {
    let big: Vec<Value> = (0..10_000).map(|i| json!(i % 977)).collect();
    let mut inputs = Map::new();
    inputs.insert("xs".into(), Value::Array(big));
    let out =
        render("{{ xs|unique|length }} {{ xs|sort|first }} {{ xs|max }} {{ xs|sum }}", &inputs, Limits::default());
    let sum: i64 = (0..10_000).map(|i| i % 977).sum();
    assert_eq!(out.map_err(|e| e.to_string()), Ok(format!("977 0 976 {sum}")));
    // Sorting in a loop runs out of fuel instead of running for minutes.
    let err = render("{% for i in range(1000) %}{{ xs|sort|length }}{% endfor %}", &inputs, Limits::default())
        .expect_err("out of fuel");
    assert_eq!(err.kind(), ErrorKind::Limit, "{err}");
}

#[test]
fn deep_nesting_is_an_error_or_cut_off() {
    let mut v = json!(1);
    for _ in 0..120 {
        v = json!([v, {"k": v}]);
        if v.to_string().len() > 1_000_000 {
            break;
        }
    }
    let mut deep = json!(0);
    for _ in 0..120 {
        deep = json!([deep]);
    }
    let mut inputs = Map::new();
    inputs.insert("deep".into(), deep);
    for body in [
        "{{ deep|tojson|length }}",
        "{{ deep|pprint|length }}",
        "{{ '%s' % [deep] }}",
        "{{ '{}'.format(deep)|length }}",
    ] {
        let out = render(body, &inputs, Limits::default());
        assert!(out.is_ok(), "{body}: {out:?}");
    }
}

#[test]
fn unorderable_and_unhashable_values_are_errors() {
    let mut inputs = Map::new();
    inputs.insert("n".into(), Value::Null);
    for body in [
        "{{ [1, 'a']|sort }}",
        "{{ [[1], [2]]|unique|list }}",
        "{{ n > 3 }}",
        "{% if missing < 3 %}x{% endif %}",
        "{{ 1 in 'abc' }}",
        "{{ [1] in {'a': 1} }}",
        "{{ '%d' % 'x' }}",
        "{{ '%s %s' % (1,) }}",
        "{{ 'x'.append(1) }}",
        "{{ [1].append(2) }}",
    ] {
        let err = render(body, &inputs, Limits::default()).expect_err(body);
        assert_eq!(err.kind(), ErrorKind::TemplateRender, "{body}: {err}");
    }
}
