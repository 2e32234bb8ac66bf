//! Differential test: the template reader built on minijinja's tokenizer against what
//! minijinja renders. On templates whose tags write nothing, the text runs the reader keeps
//! (after whitespace control, `trim_blocks`, comments and raw blocks) joined are exactly
//! the rendered text.

use crate::lexer::{JinjaItem, jinja_lex};
use prompty_test_support::Rng;

type R = std::ops::Range<usize>;

/// The text runs the reader keeps, in order: what renders when every tag writes nothing.
fn kept_runs(src: &str, trim_blocks: bool) -> Vec<R> {
    jinja_lex(src, trim_blocks)
        .into_iter()
        .filter_map(|item| match item {
            JinjaItem::Data(d) => Some(d.range),
            JinjaItem::Raw(k, _) => Some(k),
            JinjaItem::TrimmedEnd | JinjaItem::Tag(_) => None,
        })
        .collect()
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
fn the_reader_keeps_exactly_the_text_minijinja_renders() {
    let mut rng = Rng::new(0x1e7e);
    let (mut compared, mut rendered) = (0usize, 0usize);
    let mut wrong: Vec<String> = Vec::new();
    for case in 0..40_000 {
        let rendering = case % 2 == 0;
        let src = template(&mut rng, rendering);
        for trim in [false, true] {
            compared += 1;
            // Every template is read without a panic, whether it compiles or not.
            let runs = kept_runs(&src, trim);
            if !rendering || !compiles(&src, trim) {
                continue;
            }
            let Some(out) = render(&src, trim) else { continue };
            rendered += 1;
            let kept = concat(&src, &runs);
            if kept != out {
                wrong.push(format!("{src:?} trim={trim} out={out:?} kept={kept:?}"));
            }
        }
    }
    eprintln!("read {compared} templates, compared {rendered} with what minijinja renders");
    assert!(rendered > compared / 4, "too few templates rendered: {rendered} of {compared}");
    wrong.sort_by_key(String::len);
    assert!(
        wrong.is_empty(),
        "{} readings disagree with minijinja, e.g.\n{}",
        wrong.len(),
        wrong.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}
