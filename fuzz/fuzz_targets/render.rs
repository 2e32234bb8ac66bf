//! Load, compile, render and split arbitrary prompts never panics and stays within the
//! limits. Input: `.prompty` text, optionally followed by a NUL and a JSON object of inputs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prompty_render::{Limits, RenderOptions, Renderer, split_messages, split_messages_promptflow};
use prompty_syntax::{LoadOptions, MapHost, load_bytes};
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let (text, inputs) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], serde_json::from_slice::<Map<String, Value>>(&data[i + 1..]).unwrap_or_default()),
        None => (data, Map::new()),
    };
    if let Ok(s) = std::str::from_utf8(text) {
        let _ = split_messages(s);
        let _ = split_messages_promptflow(s);
    }
    let host = MapHost::new().with_env("OPENAI_API_KEY", "k");
    let Some(prompt) = load_bytes(text, &host, &LoadOptions::default()).prompt else { return };
    let limits = Limits::DEFAULT.with_steps(200_000).with_recursion(50).with_max_output(1 << 20);
    let Ok(r) = Renderer::with_options(prompt, RenderOptions { limits, ..RenderOptions::default() }) else { return };
    if let Ok(out) = r.render_text(&inputs) {
        assert!(out.len() <= limits.max_output);
    }
    let _ = r.prepare(&inputs);
    let _ = r.template_variables();
    let _ = r.render_segments(&inputs, &[]);
});
