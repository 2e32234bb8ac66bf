// A use of the macro that must compile: the harness checks it first, against each build of
// the facade it finds, and takes the first that compiles it (tests/ui.rs).
prompty_toolkit::include_prompty!("tests/ui/prompts/optional.prompty");

fn main() {
    let _ = OptionalInputs { count: Some(10), ..Default::default() }.render();
}
