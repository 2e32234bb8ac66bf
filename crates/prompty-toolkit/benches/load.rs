//! What `include_prompty!` saves at run time: building a prompt from compile-time data (the
//! front matter already parsed, rebuilt from its flat form, then lowered) against loading
//! its text, on a v2 prompt with every input kind and a bundled (v1) evaluator prompt. Each case is
//! measured for the loader alone and for a ready `Prompty` (template compiled too).
//!
//! `cargo bench -p prompty-toolkit --bench load`

use std::hint::black_box;

use criterion::Criterion;
use prompty_toolkit::__private::{Embedded, build};
use prompty_toolkit::syntax::yaml::Node;
use prompty_toolkit::syntax::{FrontMatter, LoadOptions, Profile, Secrets, load_parsed, load_str};

mod trip {
    prompty_toolkit::include_prompty!("tests/ui/prompts/all_kinds.prompty" as Trip);
}
mod coherence {
    prompty_toolkit::include_prompty!("../../prompts/coherence.prompty");
}

fn lowered(e: &Embedded) -> prompty_toolkit::syntax::Loaded {
    let root = Node::from_flat(e.front_matter).expect("a tree");
    let profile = if e.promptflow { Profile::Promptflow } else { Profile::Spec };
    load_parsed(e.text, FrontMatter { root, profile, secrets: Secrets::new() })
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let cases: [(&str, &Embedded); 2] =
        [("v2_all_kinds", trip::TripInputs::__embedded()), ("coherence", coherence::CoherenceInputs::__embedded())];
    let host = prompty_toolkit::MapHost::new();
    for (name, e) in cases {
        assert_eq!(lowered(e).prompt, load_str(e.text, &host, &LoadOptions::default()).prompt, "{name}");
        let mut g = c.benchmark_group(name);
        g.bench_function("loader: load_str", |b| {
            b.iter(|| load_str(black_box(e.text), &host, &LoadOptions::default()))
        });
        g.bench_function("loader: from compile-time data", |b| b.iter(|| lowered(black_box(e))));
        g.bench_function("Prompty: from_str", |b| b.iter(|| prompty_toolkit::from_str(black_box(e.text))));
        g.bench_function("Prompty: from compile-time data", |b| b.iter(|| build(black_box(e))));
        g.finish();
    }
    c.final_summary();
}
