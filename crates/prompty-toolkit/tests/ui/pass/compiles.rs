// Uses of the macro that must compile, one per template format the cases use: the harness
// (tests/it/ui.rs) checks this first against each build of the facade it finds, with
// assertions on the build's features appended, and takes the first build that compiles it.
prompty_toolkit::include_prompty!("tests/ui/prompts/optional.prompty");
prompty_toolkit::include_prompty!("tests/ui/prompts/greeting.mustache.prompty");

fn main() {
    let _ = OptionalInputs { count: Some(10), ..Default::default() }.render();
    let _ = GreetingInputs { name: "Ada".to_owned() }.render();
}
