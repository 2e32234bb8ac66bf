prompty_toolkit::include_prompty!(tests / ui);

prompty_toolkit::include_prompty!("tests/ui/prompts/optional.prompty", extra);

fn main() {}
