prompty_toolkit::include_prompty!("tests/ui/prompts/greeting.mustache.prompty");

fn main() {
    let _ = GreetingInputs {}.render();
}
