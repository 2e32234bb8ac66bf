prompty_toolkit::include_prompty!("tests/ui/prompts/optional.prompty");

fn main() {
    let _ = OptionalInputs { count: "ten", ..Default::default() }.render();
}
