prompty_toolkit::include_prompty!("../prompty-toolkit/tests/ui/prompts/optional.prompty");

fn main() {
    let _ = OptionalInputs { count: Some("ten"), ..Default::default() }.render();
}
