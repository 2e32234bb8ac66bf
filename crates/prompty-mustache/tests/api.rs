//! Errors, limits, rendering details and the `variables()` API.

use std::collections::{BTreeMap, HashMap};

use prompty_mustache::{CompileOptions, Error, ErrorKind, NoPartials, Partials, RenderOptions, Template, VariableKind};
use serde_json::{Value, json};

fn compile_err(source: &str) -> Error {
    match Template::compile(source) {
        Ok(_) => panic!("expected {source:?} not to compile"),
        Err(err) => err,
    }
}

fn render(source: &str, data: Value) -> String {
    Template::compile(source)
        .and_then(|t| t.render(&data, &NoPartials))
        .unwrap_or_else(|e| panic!("rendering {source:?} failed: {e}"))
}

fn render_partials(source: &str, data: Value, partials: &[(&str, &str)]) -> Result<String, Error> {
    let partials: HashMap<String, String> = partials.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    Template::compile(source)?.render(&data, &partials)
}

fn assert_error(err: &Error, kind: ErrorKind, span: std::ops::Range<usize>, needle: &str) {
    assert_eq!(err.kind(), kind, "{err}");
    assert_eq!(err.span(), span, "{err}");
    assert!(err.message().contains(needle), "message {:?} should contain {needle:?}", err.message());
}

mod compile_errors {
    use super::*;

    #[test]
    fn unclosed_tag() {
        let err = compile_err("Hello {{name");
        assert_error(&err, ErrorKind::UnclosedTag, 6..8, "`{{` is never closed by `}}`");
        assert_eq!(err.to_string(), err.message());
        assert_eq!(err.partial(), None);
    }

    #[test]
    fn unclosed_triple_mustache() {
        let err = compile_err("a {{{name}} b");
        assert_error(&err, ErrorKind::UnclosedTag, 2..5, "`{{{` is never closed by `}}}`");
    }

    #[test]
    fn unclosed_tag_with_custom_delimiters() {
        let err = compile_err("{{=<% %>=}} <%name");
        assert_error(&err, ErrorKind::UnclosedTag, 12..14, "`<%` is never closed by `%>`");
    }

    #[test]
    fn unclosed_section() {
        let err = compile_err("{{#items}}\n  {{name}}\n");
        assert_error(&err, ErrorKind::UnclosedSection, 0..10, "unclosed section");
        assert!(err.message().contains("`/items`"), "{err}");
    }

    #[test]
    fn unclosed_inner_section_is_reported() {
        let err = compile_err("{{#a}}{{^b}}{{/b}}{{$c}}");
        assert_error(&err, ErrorKind::UnclosedSection, 18..24, "unclosed block");
    }

    #[test]
    fn mismatched_closing_tag_names_both() {
        let err = compile_err("{{#items}}{{.}}{{/item}}");
        assert_error(&err, ErrorKind::MismatchedClosingTag, 15..24, "found `item`");
        assert!(err.message().contains("is `items`"), "{err}");
        assert!(err.message().contains("opened at byte 0"), "{err}");
    }

    #[test]
    fn mismatched_dynamic_parent() {
        let err = compile_err("{{<*layout}}{{/layout}}");
        assert_error(&err, ErrorKind::MismatchedClosingTag, 12..23, "`*layout`");
        assert!(Template::compile("{{<*layout}}{{/*layout}}").is_ok());
    }

    #[test]
    fn unexpected_closing_tag() {
        let err = compile_err("text {{/done}}");
        assert_error(&err, ErrorKind::UnexpectedClosingTag, 5..14, "`done`");
    }

    #[test]
    fn bad_set_delimiter_tags() {
        let err = compile_err("x {{=<%=}}");
        assert_error(&err, ErrorKind::InvalidDelimiters, 2..10, "two delimiters");
        let err = compile_err("{{=<% %> |=}}");
        assert_error(&err, ErrorKind::InvalidDelimiters, 0..13, "two delimiters");
        let err = compile_err("{{=<= =>=}}");
        assert_error(&err, ErrorKind::InvalidDelimiters, 0..11, "must not contain `=`");
        let err = compile_err("{{=<% %>}} x");
        assert_error(&err, ErrorKind::InvalidDelimiters, 0..3, "never closed by `=}}`");
    }

    #[test]
    fn empty_tag_names() {
        for (source, span) in [
            ("a {{}} b", 2..6),
            ("{{ }}", 0..5),
            ("{{#}}{{/}}", 0..5),
            ("{{{ }}}", 0..7),
            ("{{& }}", 0..6),
            ("{{>}}", 0..5),
            ("{{>* }}", 0..7),
            ("{{$}}{{/}}", 0..5),
        ] {
            let err = compile_err(source);
            assert_error(&err, ErrorKind::EmptyTagName, span, "empty tag name");
        }
    }

    #[test]
    fn invalid_tag_names() {
        let err = compile_err("{{first name}}");
        assert_error(&err, ErrorKind::InvalidTagName, 0..14, "whitespace");
        let err = compile_err("x{{a..b}}");
        assert_error(&err, ErrorKind::InvalidTagName, 1..9, "`a..b`");
        let err = compile_err("{{#.a}}{{/.a}}");
        assert_error(&err, ErrorKind::InvalidTagName, 0..7, "dotted");
        let err = compile_err("{{>*a.}}");
        assert_error(&err, ErrorKind::InvalidTagName, 0..8, "dotted");
    }

    #[test]
    fn nesting_too_deep() {
        let depth = 101;
        let source = format!("{}{}", "{{#a}}".repeat(depth), "{{/a}}".repeat(depth));
        let err = compile_err(&source);
        assert_error(&err, ErrorKind::NestingTooDeep, 600..606, "more than 100");
        let ok = format!("{}{}", "{{#a}}".repeat(100), "{{/a}}".repeat(100));
        assert!(Template::compile(&ok).is_ok());
    }

    #[test]
    fn nesting_limit_is_configurable_and_capped() {
        let three = format!("{}{}", "{{#a}}".repeat(3), "{{/a}}".repeat(3));
        let options = CompileOptions::default().with_max_nesting(2);
        let err = Template::compile_with(&three, &options).expect_err("3 > 2");
        assert_error(&err, ErrorKind::NestingTooDeep, 12..18, "more than 2 nested");
        assert!(Template::compile_with(&three, &CompileOptions::default().with_max_nesting(3)).is_ok());
        // A limit above the renderer's own recursion cap counts as that cap.
        let deep = format!("{}{}", "{{#a}}".repeat(513), "{{/a}}".repeat(513));
        let err = Template::compile_with(&deep, &CompileOptions::default().with_max_nesting(usize::MAX))
            .expect_err("513 > 512");
        assert_error(&err, ErrorKind::NestingTooDeep, 3072..3078, "more than 512 nested");
    }

    #[test]
    fn pathological_inputs_do_not_panic() {
        for source in [
            "{{",
            "{{{",
            "{{=",
            "{{=}}",
            "{{= =}}",
            "}}",
            "{{/}}",
            "{{#a}}{{/a}}{{/a}}",
            "{{!",
            "{{>",
            "é{{é}}ü{{#ü}}{{/ü}}",
            "{{=é ü=}}éaü",
            "\r\n{{#a}}\r\n{{/a}}\r",
            "{{$a}}{{$a}}{{/a}}{{/a}}",
            "{{<p}}{{<q}}{{/q}}{{/p}}",
        ] {
            let _ = Template::compile(source).map(|t| t.render(&json!({"a": [1]}), &NoPartials));
        }
    }
}

mod partial_errors {
    use super::*;

    #[test]
    fn broken_partial_names_the_partial() {
        let err =
            render_partials("x {{>bad}}", json!({}), &[("bad", "{{#a}}")]).expect_err("the partial does not compile");
        assert_error(&err, ErrorKind::UnclosedSection, 0..6, "unclosed section");
        assert_eq!(err.partial(), Some("bad"));
        assert!(err.to_string().ends_with("(in partial `bad`)"), "{err}");
    }

    #[test]
    fn missing_partials_render_nothing() {
        let out = render_partials("[{{>nope}}][{{<nope}}{{/nope}}]", json!({}), &[]);
        assert_eq!(out.expect("renders"), "[][]");
    }
}

mod limits {
    use super::*;

    #[test]
    fn recursive_partial_hits_depth_limit() {
        let err = render_partials("{{>loop}}", json!({}), &[("loop", "x{{>loop}}")])
            .expect_err("infinite recursion must fail");
        assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
        assert_eq!(err.span(), 1..10);
        assert_eq!(err.partial(), Some("loop"));
        assert!(err.message().contains("100 levels"), "{err}");
    }

    #[test]
    fn depth_limit_is_configurable() {
        let template = Template::compile("{{>a}}").expect("compiles");
        let partials: BTreeMap<String, String> = [
            ("a".to_owned(), "{{>b}}".to_owned()),
            ("b".to_owned(), "{{>c}}".to_owned()),
            ("c".to_owned(), "deep".to_owned()),
        ]
        .into();
        let three = RenderOptions::default().with_max_depth(3);
        let out = template.render_with(&json!({}), &partials, &three);
        assert_eq!(out.expect("depth 3 is allowed"), "deep");
        let two = RenderOptions::default().with_max_depth(2);
        let err = template.render_with(&json!({}), &partials, &two).expect_err("depth 3 is too deep");
        assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
        assert_eq!(err.partial(), Some("b"));
    }

    #[test]
    fn recursive_parent_and_dynamic_partial_hit_depth_limit() {
        let err = render_partials("{{<p}}{{/p}}", json!({}), &[("p", "{{<p}}{{/p}}")]).expect_err("recursive parent");
        assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
        let err = render_partials("{{>*me}}", json!({"me": "me"}), &[("me", "{{>*me}}")])
            .expect_err("recursive dynamic partial");
        assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
    }

    #[test]
    fn self_substituting_block_hits_depth_limit() {
        let err = render_partials("{{<p}}{{$a}}[{{$a}}{{/a}}]{{/a}}{{/p}}", json!({}), &[("p", "{{$a}}{{/a}}")])
            .expect_err("the argument keeps substituting itself");
        assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
        assert!(err.message().contains("block `a`"), "{err}");
    }

    #[test]
    fn data_driven_recursion_stays_within_the_stack() {
        // Nested data drives a recursive partial; the limit must trip cleanly.
        let mut data = json!({"name": "leaf", "kids": []});
        for i in 0..300 {
            data = json!({"name": i, "kids": [data]});
        }
        let partials = [("node", "{{name}}({{#kids}}{{>node}}{{/kids}})")];
        let err = render_partials("{{>node}}", data, &partials).expect_err("too deep");
        assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
    }

    #[test]
    fn deep_sections_across_partials_stop_before_the_stack_does() {
        // 99 nested sections per partial level: the overall recursion cap (512)
        // trips long before the partial depth limit (100), on a 2 MiB thread.
        let body = format!("{}{{{{>p}}}}{}", "{{#a}}".repeat(99), "{{/a}}".repeat(99));
        let outcome = std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || render_partials("{{>p}}", json!({"a": true}), &[("p", &body)]))
            .expect("spawn")
            .join()
            .expect("no stack overflow");
        let err = outcome.expect_err("too deep");
        assert_eq!(err.kind(), ErrorKind::DepthLimitExceeded);
        assert!(err.message().contains("512 levels"), "{err}");
    }

    #[test]
    fn output_cap() {
        let template = Template::compile("{{#items}}{{.}},{{/items}}").expect("compiles");
        let data = json!({"items": ["aaaa", "bbbb", "cccc"]});
        let options = RenderOptions::default().with_max_output(10);
        let err = template.render_with(&data, &NoPartials, &options).expect_err("15 bytes > 10");
        assert_error(&err, ErrorKind::OutputLimitExceeded, 10..15, "10 bytes");
        let options = RenderOptions::default().with_max_output(15);
        let out = template.render_with(&data, &NoPartials, &options);
        assert_eq!(out.expect("exactly at the cap"), "aaaa,bbbb,cccc,");
        assert_eq!(RenderOptions::default().max_output, 64 * 1024 * 1024);
    }

    #[test]
    fn exponential_partials_hit_output_cap() {
        let mut partials: Vec<(String, String)> =
            (0..40).map(|i| (format!("p{i}"), format!("{{{{>p{}}}}}{{{{>p{}}}}}", i + 1, i + 1))).collect();
        partials.push(("p40".to_owned(), "xxxxxxxx".to_owned()));
        let partials: HashMap<String, String> = partials.into_iter().collect();
        let template = Template::compile("{{>p0}}").expect("compiles");
        let options = RenderOptions::default().with_max_output(1 << 20);
        let err = template.render_with(&json!({}), &partials, &options).expect_err("2^40 * 8 bytes");
        assert_eq!(err.kind(), ErrorKind::OutputLimitExceeded);
    }

    #[test]
    fn mustache_sections_nested_four_deep_over_1000_items_stop() {
        // 10^12 runs of an empty body: no node is visited inside the innermost
        // section and nothing is written, so only per-iteration steps stop it.
        let template = Template::compile("{{#a}}{{#a}}{{#a}}{{#a}}{{/a}}{{/a}}{{/a}}{{/a}}").expect("compiles");
        let data = json!({"a": vec![1; 1000]});
        let options = RenderOptions::default().with_max_steps(1_000_000);
        let start = std::time::Instant::now();
        let err = template.render_with(&data, &NoPartials, &options).expect_err("10^12 iterations");
        assert!(start.elapsed() < std::time::Duration::from_secs(120), "took {:?}", start.elapsed());
        assert_error(&err, ErrorKind::StepLimitExceeded, 18..24, "more than 1000000 steps");
    }

    #[test]
    fn section_iterations_count_as_steps() {
        // One node (the section) plus one step per item: 1 + 3 = 4 steps.
        let template = Template::compile("{{#a}}{{/a}}").expect("compiles");
        let data = json!({"a": [1, 2, 3]});
        let exact = RenderOptions::default().with_max_steps(4);
        assert_eq!(template.render_with(&data, &NoPartials, &exact).expect("4 steps"), "");
        let short = RenderOptions::default().with_max_steps(3);
        let err = template.render_with(&data, &NoPartials, &short).expect_err("4 > 3");
        assert_error(&err, ErrorKind::StepLimitExceeded, 0..6, "more than 3 steps");
    }

    #[test]
    fn exponential_silent_partials_hit_step_limit() {
        let mut partials: Vec<(String, String)> =
            (0..60).map(|i| (format!("p{i}"), format!("{{{{>p{}}}}}{{{{>p{}}}}}", i + 1, i + 1))).collect();
        partials.push(("p60".to_owned(), String::new()));
        let partials: HashMap<String, String> = partials.into_iter().collect();
        let template = Template::compile("{{>p0}}").expect("compiles");
        let options = RenderOptions::default().with_max_steps(100_000);
        let err = template.render_with(&json!({}), &partials, &options).expect_err("2^60 steps");
        assert_eq!(err.kind(), ErrorKind::StepLimitExceeded);
        assert!(err.message().contains("100000"), "{err}");
    }
}

mod rendering {
    use super::*;

    #[test]
    fn escaping_set_is_exactly_the_specs() {
        let out = render("{{x}}|{{{x}}}|{{& x}}", json!({"x": "<a href=\"/\">'&'</a>"}));
        assert_eq!(out, "&lt;a href=&quot;/&quot;&gt;'&amp;'&lt;/a&gt;|<a href=\"/\">'&'</a>|<a href=\"/\">'&'</a>");
    }

    #[test]
    fn scalars_print_like_json() {
        let data = json!({"i": 85, "n": -3, "f": 1.210, "big": 1e21, "t": true, "z": null});
        assert_eq!(render("{{i}} {{n}} {{f}} {{big}} {{t}} [{{z}}]", data), "85 -3 1.21 1e+21 true []");
        let data = json!({"list": [1, "a"], "obj": {"k": "v"}});
        assert_eq!(render("{{{list}}} {{{obj}}}", data), "[1,\"a\"] {\"k\":\"v\"}");
    }

    #[test]
    fn falsey_values() {
        let template = "{{#v}}yes{{/v}}{{^v}}no{{/v}}";
        for (value, expected) in [
            (json!(null), "no"),
            (json!(false), "no"),
            (json!(0), "no"),
            (json!(0.0), "no"),
            (json!(""), "no"),
            (json!([]), "no"),
            (json!({}), "yes"),
            (json!(true), "yes"),
            (json!(1), "yes"),
            (json!(" "), "yes"),
            (json!([0]), "yes"),
        ] {
            assert_eq!(render(template, json!({"v": value})), expected, "{value}");
        }
    }

    #[test]
    fn array_indices_in_dotted_names() {
        let data = json!({"items": [{"name": "first"}, {"name": "second"}]});
        assert_eq!(render("{{items.1.name}} {{items.x}}", data), "second ");
    }

    #[test]
    fn sigils_after_whitespace() {
        let data = json!({"items": [1, 2]});
        assert_eq!(render("{{ #items }}{{.}}{{ /items }}{{ ! note }}", data), "12");
    }

    #[test]
    fn partials_from_every_map_type() {
        let template = Template::compile("{{>p}}").expect("compiles");
        let data = json!({"x": 1});
        let a: HashMap<String, String> = [("p".to_owned(), "{{x}}".to_owned())].into();
        let b: BTreeMap<String, String> = [("p".to_owned(), "{{x}}".to_owned())].into();
        let c: HashMap<&str, &str> = [("p", "{{x}}")].into();
        let d: BTreeMap<&str, &str> = [("p", "{{x}}")].into();
        let sources: [&dyn Partials; 4] = [&a, &b, &c, &d];
        for partials in sources {
            assert_eq!(template.render(&data, partials).expect("renders"), "1");
        }
        assert_eq!(template.render(&data, &NoPartials).expect("renders"), "");
    }

    #[test]
    fn nested_standalone_partials_accumulate_indentation() {
        let out = render_partials(
            "top\n  {{>outer}}\nend\n",
            json!({"v": "x\ny"}),
            &[("outer", "o1\n  {{>inner}}\no2\n"), ("inner", "i1\n{{v}}\n")],
        );
        assert_eq!(out.expect("renders"), "top\n  o1\n    i1\n    x\ny\n  o2\nend\n");
    }

    #[test]
    fn indentation_skips_empty_lines() {
        let out = render_partials("  {{>p}}\n", json!({}), &[("p", "a\n\nb\r\n\r\nc\n")]);
        assert_eq!(out.expect("renders"), "  a\n\n  b\r\n\r\n  c\n");
    }

    #[test]
    fn standalone_lines_with_several_tags() {
        assert_eq!(render("a\n  {{#x}}{{/x}}  {{! c }}\nb", json!({})), "a\nb");
        // A block placeholder is inline content: its line stays.
        assert_eq!(render("a\n  {{$x}}{{/x}}\nb", json!({})), "a\n  \nb");
    }

    #[test]
    fn block_arguments_keep_relative_indentation() {
        let out = render_partials(
            "{{<layout}}\n    {{$body}}\n    line 1\n      line 2\n    {{/body}}\n{{/layout}}\n",
            json!({}),
            &[("layout", "<main>\n  {{$body}}\n  default\n  {{/body}}\n</main>\n")],
        );
        assert_eq!(out.expect("renders"), "<main>\n  line 1\n    line 2\n</main>\n");
    }

    #[test]
    fn template_is_send_sync_and_shared() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Template>();
        let template = Template::compile("{{n}}").expect("compiles");
        let handles: Vec<_> = (0..4)
            .map(|n| {
                let template = template.clone();
                std::thread::spawn(move || template.render(&json!({"n": n}), &NoPartials))
            })
            .collect();
        for (n, handle) in handles.into_iter().enumerate() {
            let out = handle.join().expect("thread").expect("renders");
            assert_eq!(out, n.to_string());
        }
        assert_eq!(template.source(), "{{n}}");
    }
}

mod variables {
    use super::*;

    #[test]
    fn kinds_spans_and_depths() {
        let source = "{{a}} {{{b}}} {{& c}} {{#d}}{{e.f}}{{^g}}{{h}}{{/g}}{{/d}}{{>*i}}{{.}}";
        let template = Template::compile(source).expect("compiles");
        let vars = template.variables();
        let summary: Vec<_> = vars.iter().map(|v| (v.name, v.kind, v.section_depth, &source[v.span.clone()])).collect();
        assert_eq!(
            summary,
            [
                ("a", VariableKind::Escaped, 0, "{{a}}"),
                ("b", VariableKind::Unescaped, 0, "{{{b}}}"),
                ("c", VariableKind::Unescaped, 0, "{{& c}}"),
                ("d", VariableKind::Section, 0, "{{#d}}"),
                ("e.f", VariableKind::Escaped, 1, "{{e.f}}"),
                ("g", VariableKind::InvertedSection, 1, "{{^g}}"),
                ("h", VariableKind::Escaped, 1, "{{h}}"),
                ("i", VariableKind::DynamicName, 0, "{{>*i}}"),
            ]
        );
        assert!(vars[0].escapes_html());
        assert!(!vars[1].escapes_html());
        assert!(!vars[2].escapes_html());
        assert_eq!(vars[4].root(), "e");
        for v in &vars {
            assert_eq!(&source[v.name_span.clone()], v.name);
        }
    }

    #[test]
    fn custom_delimiters_and_blocks() {
        let source = "{{=<% %>=}}<% x %>\n<%<layout%><%$body%><%y%><%/body%>ignored <%z%><%/layout%>";
        let template = Template::compile(source).expect("compiles");
        let vars = template.variables();
        let names: Vec<_> = vars.iter().map(|v| v.name).collect();
        assert_eq!(names, ["x", "y"]);
        assert_eq!(&source[vars[0].span.clone()], "<% x %>");
        assert_eq!(&source[vars[0].name_span.clone()], "x");
    }
}

mod robustness {
    use super::*;

    /// Compiles and renders pseudo-random tag soup: any outcome but a panic
    /// (or a hang) is fine.
    #[test]
    fn random_tag_soup_never_panics() {
        let atoms = [
            "{{",
            "}}",
            "{",
            "}",
            "#",
            "/",
            "^",
            ">",
            "<",
            "$",
            "=",
            "!",
            "&",
            "*",
            ".",
            " ",
            "\n",
            "\r\n",
            "\t",
            "a",
            "é",
            "|",
            "{{#a}}",
            "{{/a}}",
            "{{^a}}",
            "{{$b}}",
            "{{/b}}",
            "{{<p}}",
            "{{/p}}",
            "{{>p}}",
            "{{=| |=}}",
            "{{a}}",
            "{{>*n}}",
            "{{<*n}}",
            "{{/*n}}",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let data = json!({"a": [1, {"a": false, "n": "p"}, "x"], "b": "B", "n": "p"});
        let options = RenderOptions::default().with_max_steps(100_000).with_max_output(1 << 20);
        for _ in 0..5_000 {
            let mut soup = |max: u64| {
                let len = next() % max;
                (0..len)
                    .map(|_| atoms.get((next() % atoms.len() as u64) as usize).copied())
                    .map(Option::unwrap_or_default)
                    .collect::<String>()
            };
            let source = soup(60);
            let partial = soup(30);
            let partials: HashMap<String, String> = [("p".to_owned(), partial)].into();
            if let Ok(template) = Template::compile(&source) {
                let _ = template.variables();
                let _ = template.render_with(&data, &partials, &options);
            }
        }
    }
}
