//! A minimal command-line renderer built on the published `prompty` crate, for comparing
//! process start-up time and peak memory with `prompty render`:
//! `official-render FILE [INPUTS.json]` loads the file, prepares its messages with the
//! inputs and prints each message's role and content parts.

use std::io::Write;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: official-render FILE [INPUTS.json]");
        std::process::exit(2);
    };
    let inputs: serde_json::Value = match args.next() {
        Some(p) => {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| fail(&format!("{p}: {e}")));
            serde_json::from_str(&text).unwrap_or_else(|e| fail(&format!("{p}: {e}")))
        }
        None => serde_json::json!({}),
    };
    prompty::register_defaults();
    let agent = prompty::load(&path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let messages = futures::executor::block_on(prompty::prepare(&agent, Some(&inputs)))
        .unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let mut out = std::io::stdout().lock();
    for m in &messages {
        let _ = writeln!(out, "{}:\n{:?}\n", m.role.as_str(), m.parts);
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2);
}
