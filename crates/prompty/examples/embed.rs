fn main() -> Result<(), prompty::Error> {
    let prompt = prompty::load("prompts/coherence.prompty")?;
    let inputs = prompty::inputs! { query: "What is Rust?", response: "A systems programming language." };
    let messages = prompt.render(&inputs)?;
    for message in &messages {
        println!("{}: {}", message.role, message.text_content());
    }
    let target = prompty::Target::new().with_provider(prompty::Provider::OpenAi);
    let request = prompt.compile(&messages, target)?;
    println!("{:#}", request.body);
    Ok(())
}
