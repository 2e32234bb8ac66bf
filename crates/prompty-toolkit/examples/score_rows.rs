use std::{fs::File, io::BufReader};

use prompty_toolkit::eval::JsonLines;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prompt = prompty_toolkit::load("prompts/coherence.prompty")?;
    let open = |path: &str| -> std::io::Result<_> { Ok(JsonLines::new(path, BufReader::new(File::open(path)?))) };
    let rows = open("prompts/data/coherence.rows.jsonl")?;
    let answers = open("prompts/data/coherence.answers.jsonl")?;
    let mut run = prompt.eval_run()?;
    for result in run.recorded(prompt.prompt(), rows, answers) {
        let result = result?;
        match result.evaluation() {
            Some(e) => println!("row {}: {} ({:?}) {}", result.line, e.verdict.as_str(), e.score, e.reason),
            None => println!("row {}: {}", result.line, result.error().map_or("", |e| e.message.as_str())),
        }
    }
    let summary = run.summary();
    println!("rows {}, mean {:?}, pass rate {:?}", summary.rows(), summary.mean(), summary.pass_rate());
    Ok(())
}
