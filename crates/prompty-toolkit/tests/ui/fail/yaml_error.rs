prompty_toolkit::include_prompty!("tests/ui/prompts/bad_yaml.prompty");

fn main() {}
