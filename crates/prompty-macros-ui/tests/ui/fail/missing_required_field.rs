prompty_toolkit::include_prompty!("../prompty-toolkit/tests/ui/prompts/greeting.mustache.prompty");

fn main() {
    let _ = GreetingInputs {}.render();
}
