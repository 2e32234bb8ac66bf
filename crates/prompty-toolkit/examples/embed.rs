use prompty_toolkit::{Provider, Target, inputs};

fn main() -> Result<(), prompty_toolkit::Error> {
    let prompt = prompty_toolkit::load("prompts/coherence.prompty")?;
    let inputs = inputs! { query: "What is Rust?", response: "A systems programming language." };
    let messages = prompt.render(&inputs)?;
    for message in &messages {
        println!("{}: {}", message.role, message.text_content());
    }
    let request = prompt.compile(&messages, Target::new().with_provider(Provider::OpenAi))?;
    println!("{:#}", request.body);
    Ok(())
}
