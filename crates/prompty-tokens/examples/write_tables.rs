//! Writes the crate's tables (`tables/cl100k_base.bin`, `tables/o200k_base.bin`) from
//! OpenAI's published ones, as tiktoken-rs ships them: the ordinary tokens in rank order,
//! each as one length byte followed by its bytes. The special tokens (`<|endoftext|>` and
//! the like) are not in them: a count reads their spellings as plain text.
//!
//! `cargo run -p prompty-tokens --example write_tables -- crates/prompty-tokens/tables`
//!
//! The tests (`bpe.rs`' `the_tables_are_openais_rank_by_rank`) check the written tables against tiktoken-rs rank by
//! rank, so a table out of date fails them.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: write_tables DIR");
        return ExitCode::from(2);
    };
    for (name, bpe) in
        [("cl100k_base", tiktoken_rs::cl100k_base_singleton()), ("o200k_base", tiktoken_rs::o200k_base_singleton())]
    {
        let mut out = Vec::new();
        let mut rank = 0u32;
        // The ordinary ranks are 0, 1, 2, ... up to the first one that is not a token.
        while let Ok(bytes) = bpe.decode_bytes(&[rank]) {
            if bpe.special_tokens().iter().any(|s| s.as_bytes() == bytes.as_slice()) {
                break;
            }
            let Ok(len) = u8::try_from(bytes.len()) else {
                eprintln!("error: {name} rank {rank} is {} bytes, more than a length byte holds", bytes.len());
                return ExitCode::FAILURE;
            };
            out.push(len);
            out.extend_from_slice(&bytes);
            rank += 1;
        }
        let path = dir.join(format!("{name}.bin"));
        if let Err(e) = std::fs::write(&path, &out) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{}: {rank} tokens, {} bytes", path.display(), out.len());
    }
    ExitCode::SUCCESS
}
