prompty_toolkit::include_prompty!("tests/ui/prompts/no_such.prompty");

fn main() {}
