// A prompt whose inputs are all optional gets `Default`; defaults apply to `None`.
prompty_toolkit::include_prompty!("tests/ui/prompts/optional.prompty");

fn main() -> Result<(), prompty_toolkit::Error> {
    let messages = OptionalInputs::default().render()?;
    assert_eq!(messages[0].text_content(), "Tell me about the weather.");
    let inputs = OptionalInputs { tone: Some("dry".into()), count: Some(2), ..Default::default() };
    assert_eq!(inputs.render()?[0].text_content(), "Tell me about the weather in a dry tone, 2 times.");
    Ok(())
}
