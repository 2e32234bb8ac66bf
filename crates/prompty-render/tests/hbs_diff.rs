//! Differential test against handlebars.js 4.7: random templates (`hbs_diff/generate.js`,
//! fixed seed) rendered by handlebars.js with `noEscape: true`, compared byte for byte with a
//! `.prompty` body of `format: handlebars`. One trial per template.
//!
//! A known difference is a waiver in `hbs_diff/waivers.json` with its category and reason
//! (see docs/compatibility.md, "Handlebars"); a difference without a waiver fails, and so does
//! a waiver whose case agrees.
//!
//! `HBS_DIFF_DUMP=<file>` writes every difference (waived or not) as JSON lines, for
//! `hbs_diff/triage.py`. `HBS_DIFF_GOLDEN=<file>` reads the cases from another file written by
//! `generate.js` (a fresh seed, to measure agreement); the waivers then apply to the cases
//! they name, and the checks that every waiver names a case of the file are left out.

mod engine_diff;

fn main() {
    engine_diff::Suite {
        name: "hbs_diff",
        format: "handlebars",
        reference: "handlebars.js",
        golden_var: "HBS_DIFF_GOLDEN",
        dump_var: "HBS_DIFF_DUMP",
        min_cases: 2000,
    }
    .run();
}
