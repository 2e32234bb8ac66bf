//! `prepare` in a loop, for instruction counts: run it under callgrind twice, with N and
//! with 0 calls, and the difference divided by N is the cost of one call.
//!
//! ```text
//! cargo build --release -p prompty-render --example prepare_loop
//! valgrind --tool=callgrind target/release/examples/prepare_loop FILE.prompty INPUTS.json 1000
//! ```
//!
//! `INPUTS.json` is a JSON object of input values (`-` for none). `--bare` runs the
//! baseline instead: the body rendered by a plain minijinja environment with the reference
//! engine's settings and split into lines, as `benches/render.rs` measures it. `--load`
//! runs the whole `load+prepare` case of the benchmarks instead: load the text, compile
//! the template (`Renderer::new`) and prepare, every call. `--bare-compile` is the bare
//! baseline with the compile in the loop: a new environment compiles the body, renders it
//! and splits it into lines, every call (the benchmarks' `bare minijinja
//! compile+render+split`).

use std::hint::black_box;

use prompty_render::Renderer;
use prompty_syntax::{LoadOptions, MapHost, load_str};
use prompty_test_support::bench::bare_env;
use serde_json::{Map, Value};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flags = ["--bare", "--bare-compile", "--load"];
    let bare = args.iter().any(|a| a == "--bare");
    let bare_compile = args.iter().any(|a| a == "--bare-compile");
    let whole = args.iter().any(|a| a == "--load");
    let args: Vec<&String> = args.iter().filter(|a| !flags.contains(&a.as_str())).collect();
    let [file, inputs, n] = args.as_slice() else {
        eprintln!("usage: prepare_loop [--bare|--bare-compile|--load] FILE.prompty INPUTS.json|- N");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| fail(&format!("{file}: {e}")));
    let inputs: Map<String, Value> = if inputs.as_str() == "-" {
        Map::new()
    } else {
        let raw = std::fs::read_to_string(inputs).unwrap_or_else(|e| fail(&format!("{inputs}: {e}")));
        serde_json::from_str(&raw).unwrap_or_else(|e| fail(&format!("{inputs}: {e}")))
    };
    let n: usize = n.parse().unwrap_or_else(|_| fail("N must be a number"));
    let host = MapHost::new().with_env("OPENAI_API_KEY", "sk-bench");
    let opts = LoadOptions { path: Some(file.into()), ..LoadOptions::default() };
    let prompt = load_str(&text, &host, &opts).prompt.unwrap_or_else(|| fail("the prompt does not load"));
    if bare || bare_compile {
        let mut filled = inputs.clone();
        for p in prompt.inputs.iter().flatten() {
            if let (false, Some(d)) = (filled.contains_key(&p.name), &p.default) {
                filled.insert(p.name.clone(), d.clone());
            }
        }
        let body = prompt.instructions.clone().unwrap_or_default();
        let render_and_split = |t: &minijinja::Template<'_, '_>| {
            let ctx = minijinja::Value::from(minijinja::value::Serde(black_box(&filled)));
            let out = t.render(ctx).unwrap_or_else(|e| fail(&e.to_string()));
            black_box(out.lines().collect::<Vec<&str>>().len());
        };
        if bare_compile {
            for _ in 0..n {
                let env = bare_env(black_box(&body).clone(), prompt.profile);
                render_and_split(&env.get_template("t").unwrap_or_else(|e| fail(&e.to_string())));
            }
        } else {
            let env = bare_env(body, prompt.profile);
            let t = env.get_template("t").unwrap_or_else(|e| fail(&e.to_string()));
            for _ in 0..n {
                render_and_split(&t);
            }
        }
        return;
    }
    if whole {
        for _ in 0..n {
            let prompt = load_str(black_box(&text), &host, &opts).prompt.unwrap_or_else(|| fail("no prompt"));
            let renderer = Renderer::new(prompt).unwrap_or_else(|e| fail(&e.to_string()));
            black_box(renderer.prepare(black_box(&inputs)).unwrap_or_else(|e| fail(&e.to_string())));
        }
        return;
    }
    let renderer = Renderer::new(prompt).unwrap_or_else(|e| fail(&e.to_string()));
    for _ in 0..n {
        let messages = renderer.prepare(black_box(&inputs)).unwrap_or_else(|e| fail(&e.to_string()));
        black_box(messages);
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2)
}
