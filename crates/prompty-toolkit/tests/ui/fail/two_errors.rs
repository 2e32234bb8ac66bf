prompty_toolkit::include_prompty!("tests/ui/prompts/two_errors.prompty");

fn main() {}
