//! `prompty score` and `prompty eval`: judge answers to evaluations.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::ValueEnum;
use prompty_eval::{Evaluation, Evaluator, EvaluatorConfig, JudgeReply, Usage, Verdict, builtin_config};
use prompty_syntax::Prompt;
use serde_json::{Map, Value};

use crate::inputs::{read_object, read_text};
use crate::{Failure, LoadArgs, load_prompt};

/// Which JSON layout to print.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum EvalFormat {
    /// This toolkit's record.
    Clean,
    /// The azure-ai-evaluation 1.13 result keys (`{k}`, `gpt_{k}`, `{k}_result`, ...).
    Azure,
}

#[derive(clap::Args)]
pub(crate) struct ScoreArgs {
    /// The evaluator prompt.
    file: PathBuf,
    /// The prompt's input values (a JSON object); checked against the declared inputs.
    #[arg(long, value_name = "FILE|-")]
    inputs: Option<PathBuf>,
    /// The judge's answer: its text, or a provider response (OpenAI or Anthropic JSON).
    #[arg(long, value_name = "FILE|-")]
    answer: PathBuf,
    /// Output layout.
    #[arg(long, value_enum, default_value_t = EvalFormat::Clean)]
    format: EvalFormat,
    #[command(flatten)]
    load: LoadArgs,
}

#[derive(clap::Args)]
pub(crate) struct EvalArgs {
    /// The evaluator prompt.
    file: PathBuf,
    /// One JSON object of input values per line.
    #[arg(long, value_name = "ROWS.jsonl")]
    data: PathBuf,
    /// One judge answer per line, in the same order: a JSON string, `{"answer": ...}`, or a
    /// provider response object.
    #[arg(long, value_name = "ANSWERS.jsonl")]
    answers: PathBuf,
    /// Where to write one result per line (default: standard output).
    #[arg(long, value_name = "RESULTS.jsonl")]
    output: Option<PathBuf>,
    /// Output layout.
    #[arg(long, value_enum, default_value_t = EvalFormat::Clean)]
    format: EvalFormat,
    #[command(flatten)]
    load: LoadArgs,
}

/// The evaluator for a prompt: its `metadata.evaluator` block, or the known settings of a
/// reference prompt by name or file name.
fn evaluator_for(file: &Path, prompt: &Prompt) -> Result<Evaluator, Failure> {
    let metadata = prompt.metadata.clone().map(Value::Object).unwrap_or(Value::Null);
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let config = match EvaluatorConfig::from_metadata(&metadata) {
        Ok(Some(c)) => c,
        Ok(None) => builtin_config(stem)
            .or_else(|| prompt.name.as_deref().and_then(builtin_config))
            .ok_or_else(|| {
                Failure(format!(
                    "{}: no `metadata.evaluator` block and not a known evaluator prompt; add `metadata: {{evaluator: {{answer: json, range: [1, 5], threshold: 3}}}}`",
                    file.display()
                ))
            })?,
        Err(e) => return Err(Failure(format!("{}: {e}", file.display()))),
    };
    Ok(Evaluator::new(prompt.name.clone().unwrap_or_else(|| stem.to_owned()), config))
}

fn render_evaluation(e: &Evaluation, evaluator: &Evaluator, format: EvalFormat) -> Value {
    match format {
        EvalFormat::Clean => serde_json::to_value(e).unwrap_or(Value::Null),
        EvalFormat::Azure => Value::Object(e.to_azure(&evaluator.azure_layout())),
    }
}

pub(crate) fn run_score(args: &ScoreArgs) -> Result<(), Failure> {
    let (prompt, _) = load_prompt(&args.file, &args.load)?;
    let evaluator = evaluator_for(&args.file, &prompt)?;
    if let Some(path) = &args.inputs {
        let given = read_object(path)?;
        prompt.validate_inputs(&given).map_err(|e| Failure(format!("{}: {e}", args.file.display())))?;
    }
    let (name, text) = read_text(&args.answer)?;
    let reply = reply_from_text(&text).map_err(|e| Failure(format!("{name}: {e}")))?;
    let evaluation = evaluator.evaluate(&reply).map_err(|e| Failure(format!("{name}: {e}")))?;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &render_evaluation(&evaluation, &evaluator, args.format))?;
    writeln!(out)?;
    Ok(())
}

/// A judge answer file: a provider response, or the answer text itself.
fn reply_from_text(text: &str) -> Result<JudgeReply, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) if is_response(&o) => reply_from_object(&o),
        Ok(Value::String(s)) => Ok(JudgeReply::text(s)),
        _ => Ok(JudgeReply::text(text)),
    }
}

fn is_response(o: &Map<String, Value>) -> bool {
    o.contains_key("choices")
        || (o.contains_key("content") && o.contains_key("stop_reason"))
        || o.contains_key("answer")
}

/// One recorded answer: `{"answer": ...}`, an OpenAI chat completion or an Anthropic message.
fn reply_from_object(o: &Map<String, Value>) -> Result<JudgeReply, String> {
    let model = o.get("model").and_then(Value::as_str).map(str::to_owned);
    if let Some(answer) = o.get("answer") {
        let content = match answer {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let usage = o.get("usage").and_then(usage_from);
        return Ok(JudgeReply { content: Some(content), usage, model, ..JudgeReply::default() });
    }
    if let Some(choices) = o.get("choices") {
        let first = choices.get(0).ok_or("the response has no choices")?;
        let message = first.get("message").ok_or("the first choice has no message")?;
        return Ok(JudgeReply {
            content: message.get("content").and_then(Value::as_str).map(str::to_owned),
            role: message.get("role").and_then(Value::as_str).map(str::to_owned),
            usage: o.get("usage").and_then(usage_from),
            finish_reason: first.get("finish_reason").and_then(Value::as_str).map(str::to_owned),
            model,
        });
    }
    if let Some(Value::Array(blocks)) = o.get("content") {
        let text: String = blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect();
        let usage = o.get("usage").map(|u| {
            let input = u.get("input_tokens").and_then(Value::as_u64).unwrap_or(0);
            let output = u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0);
            Usage { prompt_tokens: input, completion_tokens: output, total_tokens: input + output }
        });
        return Ok(JudgeReply {
            content: Some(text),
            role: o.get("role").and_then(Value::as_str).map(str::to_owned),
            usage,
            finish_reason: o.get("stop_reason").and_then(Value::as_str).map(str::to_owned),
            model,
        });
    }
    Err("expected a JSON string, {\"answer\": ...}, or a provider response with `choices` or `content`".to_owned())
}

fn usage_from(u: &Value) -> Option<Usage> {
    Some(Usage {
        prompt_tokens: u.get("prompt_tokens")?.as_u64()?,
        completion_tokens: u.get("completion_tokens")?.as_u64()?,
        total_tokens: u.get("total_tokens")?.as_u64()?,
    })
}

/// Running totals, in constant memory.
#[derive(Default)]
struct Summary {
    rows: u64,
    scored: u64,
    score_sum: f64,
    verdicts: BTreeMap<&'static str, u64>,
    errors: BTreeMap<String, u64>,
}

impl Summary {
    fn add(&mut self, e: &Evaluation) {
        self.rows += 1;
        if let Some(s) = e.score.filter(|s| s.is_finite()) {
            self.scored += 1;
            self.score_sum += s;
        }
        let v = match e.verdict {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Unknown => "unknown",
            Verdict::NotApplicable => "not_applicable",
        };
        *self.verdicts.entry(v).or_default() += 1;
    }

    fn error(&mut self, kind: &str) {
        self.rows += 1;
        *self.errors.entry(kind.to_owned()).or_default() += 1;
    }

    fn to_json(&self, seconds: f64) -> Value {
        let pass = self.verdicts.get("pass").copied().unwrap_or(0);
        let judged = pass + self.verdicts.get("fail").copied().unwrap_or(0);
        serde_json::json!({
            "rows": self.rows,
            "scored": self.scored,
            "mean": if self.scored > 0 { Value::from(self.score_sum / self.scored as f64) } else { Value::Null },
            "pass": pass,
            "fail": self.verdicts.get("fail").copied().unwrap_or(0),
            "unknown": self.verdicts.get("unknown").copied().unwrap_or(0),
            "not_applicable": self.verdicts.get("not_applicable").copied().unwrap_or(0),
            "pass_rate": if judged > 0 { Value::from(pass as f64 / judged as f64) } else { Value::Null },
            "errors": self.errors,
            "seconds": (seconds * 1000.0).round() / 1000.0,
        })
    }
}

fn open_lines(path: &Path) -> Result<std::io::Lines<BufReader<File>>, Failure> {
    if path.is_dir() {
        return Err(Failure(format!("{}: is a directory, expected a JSON-lines file", path.display())));
    }
    let f = File::open(path)
        .map_err(|e| Failure(format!("{}: cannot read: {}", path.display(), crate::inputs::describe_io(&e))))?;
    Ok(BufReader::new(f).lines())
}

/// Evaluates recorded answers row by row; returns whether every row was evaluated.
pub(crate) fn run_eval(args: &EvalArgs) -> Result<bool, Failure> {
    let (prompt, _) = load_prompt(&args.file, &args.load)?;
    let evaluator = evaluator_for(&args.file, &prompt)?;
    let mut rows = open_lines(&args.data)?;
    let mut answers = open_lines(&args.answers)?;
    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(BufWriter::new(
            File::create(p).map_err(|e| Failure(format!("{}: cannot write: {e}", p.display())))?,
        )),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let progress = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut stderr = std::io::stderr().lock();
    let (data_name, answers_name) = (args.data.display().to_string(), args.answers.display().to_string());
    let mut line_no = 0u64;
    loop {
        let (row, answer) = match (rows.next(), answers.next()) {
            (None, None) => break,
            (Some(r), Some(a)) => (r, a),
            (r, _) => {
                let (longer, shorter) =
                    if r.is_some() { (&data_name, &answers_name) } else { (&answers_name, &data_name) };
                writeln!(stderr, "error: {longer} has more lines than {shorter} (from line {})", line_no + 1)?;
                summary.error("line count mismatch");
                break;
            }
        };
        line_no += 1;
        let outcome = evaluate_row(&prompt, &evaluator, row, answer, &data_name, &answers_name, line_no);
        let record = match outcome {
            Ok(e) => {
                summary.add(&e);
                let mut v = render_evaluation(&e, &evaluator, args.format);
                if let Value::Object(o) = &mut v {
                    o.insert("line".into(), Value::from(line_no));
                }
                v
            }
            Err((kind, message)) => {
                writeln!(stderr, "error: {message}")?;
                summary.error(kind);
                serde_json::json!({ "line": line_no, "error": { "kind": kind, "message": message } })
            }
        };
        serde_json::to_writer(&mut out, &record)?;
        out.write_all(b"\n")?;
        if progress && line_no.is_multiple_of(1000) {
            write!(stderr, "\r{line_no} rows")?;
        }
    }
    out.flush()?;
    if progress {
        write!(stderr, "\r")?;
    }
    let summary_json = summary.to_json(started.elapsed().as_secs_f64());
    writeln!(stderr, "{}", serde_json::to_string(&summary_json)?)?;
    Ok(summary.errors.is_empty())
}

type RowError = (&'static str, String);

fn evaluate_row(
    prompt: &Prompt,
    evaluator: &Evaluator,
    row: std::io::Result<String>,
    answer: std::io::Result<String>,
    data_name: &str,
    answers_name: &str,
    line: u64,
) -> Result<Evaluation, RowError> {
    let row = row.map_err(|e| ("unreadable row", format!("{data_name}:{line}: {e}")))?;
    let answer = answer.map_err(|e| ("unreadable answer", format!("{answers_name}:{line}: {e}")))?;
    let inputs = match serde_json::from_str::<Value>(&row) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(("row not an object", format!("{data_name}:{line}: expected a JSON object of inputs"))),
        Err(e) => return Err(("row not JSON", format!("{data_name}:{line}: not valid JSON: {e}"))),
    };
    prompt.validate_inputs(&inputs).map_err(|e| ("missing input", format!("{data_name}:{line}: {e}")))?;
    let reply = match serde_json::from_str::<Value>(&answer) {
        Ok(Value::String(s)) => JudgeReply::text(s),
        Ok(Value::Object(o)) => {
            reply_from_object(&o).map_err(|e| ("answer not understood", format!("{answers_name}:{line}: {e}")))?
        }
        Ok(_) => {
            return Err(("answer not understood", format!("{answers_name}:{line}: expected a JSON string or object")));
        }
        Err(e) => return Err(("answer not JSON", format!("{answers_name}:{line}: not valid JSON: {e}"))),
    };
    evaluator.evaluate(&reply).map_err(|e| ("evaluation failed", format!("{answers_name}:{line}: {e}")))
}
