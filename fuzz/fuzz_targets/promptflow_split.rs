//! The promptflow split with structured inputs: libFuzzer's bytes choose a template (role
//! lines, literal text, interpolations of string/object/list inputs, loops, the name and tool
//! call id sub-syntax; Jinja, Mustache or Handlebars) and hostile values; the property is
//! checked on each: the hostile render is refused as an injection (one line, naming an
//! input) or gives the same messages as benign values of the same shape.
#![no_main]

#[path = "../../crates/prompty-render/tests/it/support/pf_split.rs"]
mod pf_split;

use libfuzzer_sys::fuzz_target;
use pf_split::{Source, case, check};

/// The fuzz input, one choice byte at a time; zeros once it runs out.
struct Bytes<'a>(&'a [u8]);

impl Source for Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let c = case(&mut Bytes(data));
    if let Err(e) = check(&c) {
        panic!("{e}");
    }
});
