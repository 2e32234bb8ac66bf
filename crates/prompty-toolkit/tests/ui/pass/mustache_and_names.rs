// A Mustache prompt; a type name given with `as`; two prompts of one name in two modules.
prompty_toolkit::include_prompty!("tests/ui/prompts/greeting.mustache.prompty");

mod other {
    prompty_toolkit::include_prompty!("tests/ui/prompts/greeting.mustache.prompty");
}

prompty_toolkit::include_prompty!("tests/ui/prompts/optional.prompty" as Topic);

fn main() -> Result<(), prompty_toolkit::Error> {
    let messages = GreetingInputs { name: "Ada & Bob".into() }.render()?;
    assert_eq!(messages[0].text_content(), "Hello Ada & Bob!");
    assert_eq!(other::GreetingInputs { name: "Cy".into() }.render()?[0].text_content(), "Hello Cy!");
    assert_eq!(TopicInputs::default().render()?[0].text_content(), "Tell me about the weather.");
    Ok(())
}
