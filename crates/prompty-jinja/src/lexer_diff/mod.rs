//! Differential test: the template reader built on minijinja's tokenizer against the byte
//! lexer it replaced, and both against what minijinja renders.

mod old;

use crate::lexer::{Block, JinjaItem, jinja_lex};
use prompty_test_support::Rng;

type R = std::ops::Range<usize>;

/// What the layout reads of a template: the kept text runs, the raw blocks, the tags'
/// blocks, and whether the last item ends the output.
#[derive(Debug, PartialEq, Eq, Default)]
struct Reading {
    data: Vec<R>,
    raw: Vec<(R, bool)>,
    tags: Vec<Block>,
    /// Text and raw runs in order (what renders when every tag writes nothing).
    runs: Vec<R>,
    last_ends: bool,
}

fn new_reading(src: &str, trim_blocks: bool) -> Reading {
    let mut r = Reading::default();
    for item in jinja_lex(src, trim_blocks) {
        r.last_ends = false;
        match item {
            JinjaItem::Data(d) => {
                r.last_ends = d.range.end == src.len();
                r.data.push(d.range.clone());
                r.runs.push(d.range);
            }
            JinjaItem::TrimmedEnd => r.last_ends = true,
            JinjaItem::Raw(k, e) => {
                r.last_ends = e;
                r.runs.push(k.clone());
                r.raw.push((k, e));
            }
            JinjaItem::Tag(b) => r.tags.push(b),
        }
    }
    r
}

fn old_reading(src: &str, trim_blocks: bool) -> Reading {
    let mut r = Reading::default();
    for item in old::jinja_lex(src, trim_blocks) {
        r.last_ends = false;
        match item {
            old::JinjaItem::Data(d) => {
                let kept = d.kept(src);
                r.last_ends = d.range.end == src.len() && kept.end == src.len();
                if !kept.is_empty() {
                    r.data.push(kept.clone());
                    r.runs.push(kept);
                }
            }
            old::JinjaItem::Comment => {}
            old::JinjaItem::Raw(k, e) => {
                r.last_ends = e;
                r.runs.push(k.clone());
                r.raw.push((k, e));
            }
            old::JinjaItem::Tag(b) => {
                r.tags.push(match b {
                    old::Block::None => Block::None,
                    old::Block::Open { kind, captures } => Block::Open { kind, captures },
                    old::Block::Close(k) => Block::Close(k),
                    old::Block::Foreign => Block::Foreign,
                });
            }
        }
    }
    r
}

/// Pieces whose tags write nothing and capture nothing: what renders is the text runs.
const TEXT: &[&str] = &[
    "a", "b c", " ", "  ", "\n", "\r\n", "\r", "\t", "\u{a0}", "\u{2028}", "\u{3000}", "\u{85}", "user:", "![", "}",
    "{", "%}", "#}", "}}", "-", "+", "\n\n", " \n", "\u{a0}\n", "\n\u{a0}",
];
const TAGS: &[&str] = &[
    "{{ '' }}",
    "{{- '' }}",
    "{{ '' -}}",
    "{{- '' -}}",
    "{{+ '' }}",
    "{{ '' +}}",
    "{{ '}}' and '' }}",
    "{{ \"%}\" and '' }}",
    "{{ '#}' and '' }}",
    "{{ {'a': '}}'}.b }}",
    "{% if true %}",
    "{% endif %}",
    "{%- if true -%}",
    "{%- endif -%}",
    "{%+ if true +%}",
    "{% endif +%}",
    "{% if true -%}",
    "{%- endif %}",
    "{% set x = 1 %}",
    "{%- set x = '%}' -%}",
    "{% set x = 1 +%}",
    "{%+ set x = 1 %}",
    "{% set y = {'a': 1} -%}",
    "{# c #}",
    "{#- c -#}",
    "{#+ c +#}",
    "{# %} #}",
    "{# {% raw %} #}",
    "{#-#}",
    "{#+#}",
    "{##}",
    "{#- {{ -#}",
    "{# c -#}",
    "{#- c #}",
    "{# c +#}",
    "{#+ c #}",
    "{#--#}",
    "{#-+#}",
    "{#+-#}",
    "{# - #}",
];
const RAW_OPEN: &[&str] = &[
    "{% raw %}",
    "{%- raw -%}",
    "{%+ raw %}",
    "{% raw +%}",
    "{%raw%}",
    "{%- raw %}",
    "{% raw -%}",
    "{%+ raw +%}",
    "{%-raw-%}",
    "{%  raw\n%}",
    "{%\traw\t-%}",
];
const RAW_CLOSE: &[&str] = &[
    "{% endraw %}",
    "{%- endraw -%}",
    "{%+ endraw +%}",
    "{% endraw -%}",
    "{%- endraw %}",
    "{%endraw%}",
    "{%-endraw-%}",
    "{% endraw +%}",
    "{%+ endraw %}",
    "{%\nendraw\n%}",
];
const RAW_TEXT: &[&str] = &["x", " ", "\n", "{{ y }}", "{% if %}", "%}", "{#", "{% raw %}", "\u{a0}", "\r\n", " \n "];
/// Pieces that break the template or whose tags capture.
const OTHER: &[&str] = &[
    "{{ 'a",
    "{# x",
    "{%",
    "{{",
    "{% set x %}",
    "{% endset %}",
    "{%- set x -%}",
    "{% set x | upper %}",
    "{% for i in [1] recursive %}",
    "{% for i in [1] %}",
    "{% endfor %}",
    "{% macro m() %}",
    "{% endmacro %}",
    "{% set (a, b) = (1, 2) %}",
    "{% set x = a == b %}",
    "{% for x in 'recursive' %}",
    "{% include 'p' %}",
    "{% filter upper %}",
    "{% endfilter %}",
    "{% call m() %}",
    "{% endcall %}",
    "{% raw %}",
    "{% endraw %}",
    "{% set x = '\\'' %}",
    "{{ \"\\\"}}\" }}",
];

fn pick<'a>(rng: &mut Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.below(xs.len())]
}

fn template(rng: &mut Rng, rendering: bool) -> String {
    let mut s = String::new();
    let n = 1 + rng.below(8);
    for _ in 0..n {
        match rng.below(if rendering { 9 } else { 10 }) {
            0..=3 => s.push_str(pick(rng, TEXT)),
            4..=6 => s.push_str(pick(rng, TAGS)),
            7 | 8 => {
                s.push_str(pick(rng, RAW_OPEN));
                for _ in 0..rng.below(4) {
                    s.push_str(pick(rng, RAW_TEXT));
                }
                if rng.below(8) != 0 || rendering {
                    s.push_str(pick(rng, RAW_CLOSE));
                }
            }
            _ => s.push_str(pick(rng, OTHER)),
        }
    }
    // Text often ends the template.
    if rng.below(2) == 0 {
        s.push_str(pick(rng, TEXT));
    }
    s
}

fn render(src: &str, trim_blocks: bool) -> Option<String> {
    let mut env = crate::environment();
    env.set_syntax(crate::syntax(trim_blocks));
    env.render_str(src, ()).ok()
}

fn compiles(src: &str, trim_blocks: bool) -> bool {
    let mut env = crate::environment();
    env.set_syntax(crate::syntax(trim_blocks));
    env.template_from_str(src).is_ok()
}

fn concat(src: &str, runs: &[R]) -> String {
    runs.iter().map(|r| &src[r.clone()]).collect()
}

#[test]
fn new_reader_against_old_lexer_and_minijinja() {
    let mut rng = Rng::new(0x1e7e);
    let (mut compared, mut rendered) = (0usize, 0usize);
    let mut diffs: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    let mut not_compiling = 0usize;
    let mut oracle_wrong: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for case in 0..40_000 {
        let rendering = case % 2 == 0;
        let src = template(&mut rng, rendering);
        for trim in [false, true] {
            compared += 1;
            let compiles = compiles(&src, trim);
            let (o, n) = (old_reading(&src, trim), new_reading(&src, trim));
            let show = || format!("{src:?} trim={trim}");
            let (o, n) = if compiles {
                (o, n)
            } else {
                if o != n {
                    not_compiling += 1;
                }
                continue;
            };
            if o.data != n.data {
                let lone_cr = o
                    .data
                    .iter()
                    .any(|r| src.as_bytes()[r.start] == b'\r' && src.as_bytes().get(r.start + 1) != Some(&b'\n'));
                diffs
                    .entry(if lone_cr && trim { "data: lone CR after a block end, trim_blocks" } else { "data: other" })
                    .or_default()
                    .push(format!("{} old={:?} new={:?}", show(), o.data, n.data));
            }
            if o.raw != n.raw {
                diffs.entry("raw").or_default().push(format!("{} old={:?} new={:?}", show(), o.raw, n.raw));
            }
            if o.tags != n.tags {
                diffs.entry("tags").or_default().push(format!("{} old={:?} new={:?}", show(), o.tags, n.tags));
            }
            if o.last_ends != n.last_ends {
                let raw_last = matches!(jinja_lex(&src, trim).last(), Some(JinjaItem::Raw(_, false)));
                let class = match (o.last_ends, raw_last) {
                    (true, true) => "last_ends: old true, new false, the last item a raw block",
                    (true, false) => "last_ends: old true, new false, other",
                    (false, _) => "last_ends: old false, new true",
                };
                diffs.entry(class).or_default().push(format!("{} old={} new={}", show(), o.last_ends, n.last_ends));
            }
            if rendering && let Some(out) = render(&src, trim) {
                rendered += 1;
                if concat(&src, &o.runs) != out {
                    oracle_wrong.entry("old").or_default().push(format!(
                        "{} out={out:?} old={:?}",
                        show(),
                        concat(&src, &o.runs)
                    ));
                }
                if concat(&src, &n.runs) != out {
                    oracle_wrong.entry("new").or_default().push(format!(
                        "{} out={out:?} new={:?}",
                        show(),
                        concat(&src, &n.runs)
                    ));
                }
            }
        }
    }
    eprintln!("compared {compared} readings, {rendered} rendered, {not_compiling} differing that do not compile");
    for (k, v) in diffs
        .iter()
        .chain(oracle_wrong.iter().map(|(k, v)| (if *k == "old" { &"ORACLE-old" } else { &"ORACLE-new" }, v)))
    {
        eprintln!("== {k}: {} differences", v.len());
        let mut v = v.clone();
        v.sort_by_key(|s| s.len());
        v.dedup();
        let step = (v.len() / 25).max(1);
        for s in v.iter().step_by(step).take(25) {
            eprintln!("   {s}");
        }
    }
    assert!(oracle_wrong.get("new").is_none_or(|v| v.is_empty()), "new reader disagrees with minijinja");
}
