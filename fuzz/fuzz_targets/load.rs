//! Loading arbitrary bytes never panics: as a prompt, in lint mode, and with each profile.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prompty_syntax::{LoadOptions, MapHost, Profile, ProfileChoice, load_bytes};

fuzz_target!(|data: &[u8]| {
    let host = MapHost::new().with_env("OPENAI_API_KEY", "k").with_file("/p/a.txt", "file text");
    let path = Some("/p/x.prompty".into());
    let auto = LoadOptions { path: path.clone(), ..LoadOptions::default() };
    let loaded = load_bytes(data, &host, &auto);
    // Every span points into the input.
    for d in &loaded.diagnostics {
        assert!(d.span.start <= d.span.end && d.span.end <= data.len(), "span {:?} of {}", d.span, data.len());
    }
    let lint =
        LoadOptions { lint: true, profile: ProfileChoice::Force(Profile::Promptflow), path, ..LoadOptions::default() };
    let _ = load_bytes(data, &host, &lint);
});
