prompty::include_prompty!(tests / ui);

prompty::include_prompty!("tests/ui/prompts/optional.prompty", extra);

fn main() {}
