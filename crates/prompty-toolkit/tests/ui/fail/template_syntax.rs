prompty_toolkit::include_prompty!("tests/ui/prompts/bad_template.prompty");

fn main() {}
