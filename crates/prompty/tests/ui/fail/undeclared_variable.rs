prompty::include_prompty!("tests/ui/prompts/undeclared.prompty");

fn main() {}
