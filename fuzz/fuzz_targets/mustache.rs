//! The Mustache engine: compiling and rendering arbitrary templates never panics and stays
//! within its limits. Input: a template, optionally followed by a NUL and JSON data.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prompty_mustache::{NoPartials, Partials, RenderOptions, Template};
use serde_json::Value;

/// Every partial name resolves to the template itself: recursion must be bounded.
struct SelfPartials<'a>(&'a str);

impl Partials for SelfPartials<'_> {
    fn get(&self, _name: &str) -> Option<&str> {
        Some(self.0)
    }
}

fuzz_target!(|data: &[u8]| {
    let (tpl, ctx) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], serde_json::from_slice::<Value>(&data[i + 1..]).unwrap_or(Value::Null)),
        None => (data, Value::Null),
    };
    let Ok(source) = std::str::from_utf8(tpl) else { return };
    let Ok(t) = Template::compile(source) else { return };
    let _ = t.variables();
    let options = RenderOptions::default().with_max_depth(20).with_max_output(1 << 20);
    if let Ok(out) = t.render_with(&ctx, &NoPartials, &options) {
        assert!(out.len() <= 1 << 20);
    }
    let _ = t.render_with(&ctx, &SelfPartials(source), &options);
});
