prompty_toolkit::include_prompty!("tests/ui/prompts/undeclared.prompty");

fn main() {}
