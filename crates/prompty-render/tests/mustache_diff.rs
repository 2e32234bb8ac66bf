//! Differential test against chevron 0.14 (the Mustache engine of Python prompty): random
//! templates (`mustache_diff/generate.py`, fixed seed) rendered by `chevron.render`, compared
//! byte for byte with a `.prompty` body of `format: mustache`. One trial per template.
//!
//! A known difference is a waiver in `mustache_diff/waivers.json` with its category and
//! reason (see docs/compatibility.md, "Mustache"); a difference without a waiver fails, and so
//! does a waiver whose case agrees.
//!
//! `MUSTACHE_DIFF_DUMP=<file>` writes every difference (waived or not) as JSON lines, for
//! `mustache_diff/triage.py`. `MUSTACHE_DIFF_GOLDEN=<file>` reads the cases from another file
//! written by `generate.py` (a fresh seed, to measure agreement); the waivers then apply to
//! the cases they name, and the checks that every waiver names a case of the file are left
//! out.

mod engine_diff;

fn main() {
    engine_diff::Suite {
        name: "mustache_diff",
        format: "mustache",
        reference: "chevron",
        golden_var: "MUSTACHE_DIFF_GOLDEN",
        dump_var: "MUSTACHE_DIFF_DUMP",
        min_cases: 2000,
    }
    .run();
}
