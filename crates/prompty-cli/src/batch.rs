//! `prompty batch`: the provider's batch input file for a prompt and a data file; and
//! `prompty eval --batch-results`: the provider's batch output scored row by row.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use prompty_client::batch::{self, BatchFormat};
use prompty_render::Renderer;
use prompty_wire::{Compiled, Target};

use prompty_eval::rows::{Line, row_inputs};
use prompty_eval::run::DataRow;
use prompty_eval::{InputMap, RowError, RowErrorKind, RowOutcome, RowResults};

use crate::eval::{Lines, Sink, Staged, open_lines};
use crate::run::TargetArgs;
use crate::{Failure, LoadArgs, load_renderer};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum BatchProvider {
    /// OpenAI (or Azure OpenAI) Batch: JSON lines with `custom_id`, `method`, `url`, `body`.
    Openai,
    /// Anthropic Message Batches: the `{"requests": [...]}` body, one request per line.
    Anthropic,
}

/// Exit status: 0 every row is in the file; 1 some rows could not be rendered (they are
/// left out and reported); 2 usage or I/O failure.
#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 every row is in the file; 1 some rows could not be rendered (left out, reported on standard error); 2 usage or I/O failure.\nScore the provider's output with `prompty eval FILE --data ROWS --batch-results OUT.jsonl` (same --provider and --model)."
)]
pub(crate) struct BatchArgs {
    /// The .prompty file.
    file: PathBuf,
    /// One JSON object of input values per line.
    #[arg(long, value_name = "ROWS.jsonl")]
    data: PathBuf,
    /// The provider whose batch format to write.
    #[arg(long, value_enum)]
    provider: BatchProvider,
    /// The model or deployment id (overrides the prompt's).
    #[arg(long)]
    model: Option<String>,
    /// The model is a reasoning model (azure-ai-evaluation's `is_reasoning_model`):
    /// temperature, top_p and the penalties are dropped, and `max_tokens` becomes
    /// `max_completion_tokens` (60000 for v1 prompts, as the reference sets it).
    #[arg(long)]
    reasoning_model: bool,
    /// Where to write the batch file (default: standard output).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) load: LoadArgs,
}

/// Renders and compiles data rows to request bodies.
pub(crate) struct RowCompiler {
    renderer: Renderer,
    target: Target,
}

impl RowCompiler {
    pub(crate) fn new(file: &Path, load: &LoadArgs, target: Target) -> Result<Self, Failure> {
        let (renderer, _) = load_renderer(file, load)?;
        Ok(RowCompiler { renderer, target })
    }

    /// The compiled request of one row, and its body as sent (compact JSON).
    pub(crate) fn compile(&self, row: Line, data: &str, line: u64) -> Result<(Compiled, Vec<u8>), RowError> {
        let inputs = row_inputs(self.renderer.prompt(), row, data, line)?;
        self.compile_inputs(&inputs, &format!("{data}:{line}"))
    }

    /// The compiled request of a row's inputs; `place` names the row in messages.
    fn compile_inputs(
        &self,
        inputs: &serde_json::Map<String, serde_json::Value>,
        place: &str,
    ) -> Result<(Compiled, Vec<u8>), RowError> {
        let fail = |kind, e: &dyn std::fmt::Display| RowError::new(kind, format!("{place}: {e}"));
        let messages = self.renderer.prepare(inputs).map_err(|e| fail(RowErrorKind::RenderFailed, &e))?;
        let compiled = prompty_wire::compile(self.renderer.prompt(), &messages, self.target.clone())
            .map_err(|e| fail(RowErrorKind::CompileFailed, &e))?;
        let body = serde_json::to_vec(&compiled.body).map_err(|e| fail(RowErrorKind::CompileFailed, &e))?;
        Ok((compiled, body))
    }
}

pub(crate) fn run(args: &BatchArgs, reporter: &crate::report::Reporter) -> Result<bool, Failure> {
    let format = match args.provider {
        BatchProvider::Openai => BatchFormat::OpenAi,
        BatchProvider::Anthropic => BatchFormat::Anthropic,
    };
    let mut staged = match &args.output {
        Some(p) => Some(Staged::create(p, &[("the prompt", &args.file), ("--data", &args.data)])?),
        None => None,
    };
    let provider = match args.provider {
        BatchProvider::Openai => prompty_wire::Provider::OpenAi,
        BatchProvider::Anthropic => prompty_wire::Provider::Anthropic,
    };
    let mut target = Target::new().with_provider(provider).with_reasoning_model(args.reasoning_model);
    if let Some(m) = &args.model {
        target = target.with_model(m.clone());
    }
    let compiler = RowCompiler::new(&args.file, &args.load, target)?;
    let mut rows = open_lines(&args.data)?;
    let mut stdout;
    let out: &mut dyn Write = match &mut staged {
        Some(s) => s,
        None => {
            stdout = BufWriter::new(std::io::stdout().lock());
            &mut stdout
        }
    };
    let mut written = 0u64;
    let mut failed = 0u64;
    let mut warned = std::collections::HashSet::new();
    out.write_all(batch::header(format).as_bytes())?;
    while let Some(row) = rows.next_line()? {
        let line = rows.line();
        let made = compiler.compile(row, rows.name(), line).and_then(|(compiled, body)| {
            for w in &compiled.warnings {
                if warned.insert(w.to_string()) {
                    reporter.wire_warnings(&args.file, std::slice::from_ref(w));
                }
            }
            let id = batch::custom_id(line, &body);
            batch::request_line(format, compiled.api, &id, &compiled.body)
                .map_err(|e| RowError::new(RowErrorKind::NotBatchable, format!("{}:{line}: {e}", rows.name())))
        });
        match made {
            Ok(request) => {
                if written > 0 {
                    out.write_all(batch::separator(format).as_bytes())?;
                }
                out.write_all(request.as_bytes())?;
                written += 1;
            }
            Err(RowError { message, .. }) => {
                eprintln!("error: {message}; the row is left out");
                failed += 1;
            }
        }
    }
    let footer = batch::footer(format);
    out.write_all(if footer.is_empty() && written > 0 { b"\n" } else { footer.as_bytes() })?;
    out.flush()?;
    if let Some(s) = staged {
        s.commit()?;
    }
    eprintln!("{written} request(s) written, {failed} row(s) left out");
    Ok(failed == 0)
}

/// `eval --batch-results`: each data row is compiled again, its `custom_id` computed, and
/// the result with that id scored. A result for the row's line made from another request
/// (the prompt, the model or the row changed since) is an error record, not a score.
pub(crate) fn score_results(
    file: &Path,
    load: &LoadArgs,
    target: &TargetArgs,
    mut rows: Lines,
    results_path: &Path,
    sink: &mut Sink<'_>,
) -> Result<(), Failure> {
    let compiler = RowCompiler::new(file, load, target.target()?)?;
    let mut results = open_lines(results_path)?;
    let name = results.name().to_owned();
    // Data line -> (custom_id, result line).
    let mut by_line: HashMap<u64, (String, Result<serde_json::Value, String>)> = HashMap::new();
    let mut unmatched = 0u64;
    while let Some(line) = results.next_line()? {
        let n = results.line();
        let Line::Text(text) = line else {
            sink.error(&format!("{name}:{n}: not UTF-8 text; skipped"));
            sink.problem(0, "unreadable batch result", 1);
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        let parsed = match batch::parse_result(&text) {
            Ok(r) => r,
            Err(e) => {
                sink.error(&format!("{name}:{n}: {e}"));
                sink.problem(0, "unreadable batch result", 1);
                continue;
            }
        };
        match batch::line_of(&parsed.custom_id) {
            Some(data_line) => {
                if by_line.insert(data_line, (parsed.custom_id.clone(), parsed.outcome)).is_some() {
                    sink.error(&format!(
                        "{name}:{n}: a second result for `{}`; the last one is used",
                        parsed.custom_id
                    ));
                    sink.problem(0, "duplicate batch result", 1);
                }
            }
            None => {
                sink.error(&format!("{name}:{n}: `{}` is not a custom_id written by prompty batch", parsed.custom_id));
                unmatched += 1;
            }
        }
    }
    let key = sink.suite.keys().first().map(|k| (*k).to_owned()).unwrap_or_default();
    while let Some(row) = rows.next_line()? {
        let line = rows.line();
        let row = sink.suite.read_row(row, rows.name(), line);
        let outcome = score_row(&compiler, &row, rows.name(), &name, by_line.remove(&line), sink);
        sink.row(RowResults { id: row.id, line, evaluators: vec![(key.clone(), outcome)] })?;
    }
    let extra = by_line.len() as u64 + unmatched;
    if extra > 0 {
        sink.error(&format!("{name}: {extra} result(s) match no data row of {}", rows.name()));
        sink.problem(0, "extra batch results", extra);
    }
    Ok(())
}

fn score_row(
    compiler: &RowCompiler,
    row: &DataRow,
    data: &str,
    results: &str,
    result: Option<(String, Result<serde_json::Value, String>)>,
    sink: &mut Sink<'_>,
) -> RowOutcome {
    let (line, place) = (row.line, &row.place);
    let scored = (|| {
        let inputs = row.inputs(compiler.renderer.prompt(), &InputMap::new())?;
        let (compiled, body) = compiler.compile_inputs(&inputs, place)?;
        let Some((id, outcome)) = result else {
            return Err(RowError::new(
                RowErrorKind::MissingBatchResult,
                format!("{place}: {results} has no result for this row"),
            ));
        };
        let wanted = batch::custom_id(line, &body);
        if id != wanted {
            return Err(RowError::new(
                RowErrorKind::StaleBatchResult,
                format!(
                    "{place}: {results} answers `{id}`, but this row's request is now `{wanted}`: the prompt, the model or the row changed since the batch was made (give the same --provider and --model as to prompty batch)"
                ),
            ));
        }
        let response = outcome.map_err(|e| RowError::new(RowErrorKind::RequestFailed, format!("{place}: {e}")))?;
        let processed = prompty_wire::process(&compiled.response, &response)
            .map_err(|e| RowError::new(RowErrorKind::BadResponse, format!("{results}: {id}: {e}")))?;
        let reply = prompty_eval::reply::from_processed(&processed);
        let model = compiled.body.get("model").and_then(serde_json::Value::as_str).unwrap_or_default().to_owned();
        Ok((reply, model))
    })();
    let Some(member) = sink.suite.member_mut(0) else {
        return RowOutcome::new(Err(RowError::new(RowErrorKind::MissingBatchResult, format!("{place}: no evaluator"))));
    };
    match scored {
        Ok((reply, model)) => member.run_mut().score(line, &reply, &model, data).outcome,
        Err(e) => member.run_mut().fail(line, e).outcome,
    }
}
