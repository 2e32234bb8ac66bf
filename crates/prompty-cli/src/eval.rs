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

use crate::inputs::{MAX_SIDE_INPUT_BYTES, describe_io, read_object, read_text};
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
/// reference prompt by name or file name. Its evaluations and errors, like this function's,
/// show values `${env:}` supplied as `${env:NAME}`.
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
        Err(e) => return Err(Failure(format!("{}: {}", file.display(), e.redacted(&prompt.secrets)))),
    };
    let name = prompt.name.clone().unwrap_or_else(|| stem.to_owned());
    Ok(Evaluator::new(name, config).with_secrets(prompt.secrets.clone()))
}

/// `message` with the values `${env:}` supplied to `prompt` shown as `${env:NAME}`.
fn shown(prompt: &Prompt, message: String) -> String {
    prompt.secrets.redact(&message).into_owned()
}

fn render_evaluation(e: &Evaluation, evaluator: &Evaluator, format: EvalFormat) -> Value {
    match format {
        EvalFormat::Clean => serde_json::to_value(e).unwrap_or(Value::Null),
        EvalFormat::Azure => Value::Object(e.to_azure(&evaluator.azure_layout())),
    }
}

pub(crate) fn run_score(args: &ScoreArgs) -> Result<(), Failure> {
    if args.answer.as_os_str() == "-" && args.inputs.as_ref().is_some_and(|p| p.as_os_str() == "-") {
        return Err(Failure(
            "--answer - and --inputs - both read standard input, which can be read once; give one of them a file"
                .to_owned(),
        ));
    }
    let (prompt, _) = load_prompt(&args.file, &args.load)?;
    let evaluator = evaluator_for(&args.file, &prompt)?;
    if let Some(path) = &args.inputs {
        let given = read_object(path)?;
        prompt.validate_inputs(&given).map_err(|e| Failure(shown(&prompt, format!("{}: {e}", args.file.display()))))?;
    }
    let (name, text) = read_text(&args.answer)?;
    let reply = reply_from_text(&text).map_err(|e| Failure(format!("{name}: {e}")))?;
    let evaluation = evaluator.evaluate(&reply).map_err(|e| Failure(shown(&prompt, format!("{name}: {e}"))))?;
    let mut shown_evaluation = render_evaluation(&evaluation, &evaluator, args.format);
    // The evaluation is already redacted; this also covers what the layout adds.
    prompt.secrets.redact_json(&mut shown_evaluation);
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &shown_evaluation)?;
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

    /// A data row that has an error record instead of an evaluation.
    fn error(&mut self, kind: &str) {
        self.rows += 1;
        self.problem(kind, 1);
    }

    /// A problem that is not a data row (answer lines beyond the data).
    fn problem(&mut self, kind: &str, count: u64) {
        *self.errors.entry(kind.to_owned()).or_default() += count;
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

/// One line of a JSON-lines file.
enum Line {
    /// The line's text, without its line break.
    Text(String),
    /// The line is not UTF-8 (a bad row, reported by its number).
    NotUtf8,
}

/// A JSON-lines file read line by line, each line at most [`MAX_SIDE_INPUT_BYTES`] long.
/// A read error ends the run: after one, where the next line starts is unknown, and a
/// source that fails once (`/proc/self/mem`) fails again on every read.
struct JsonLines {
    name: String,
    reader: BufReader<File>,
    /// Lines read so far.
    line: u64,
}

impl JsonLines {
    fn open(path: &Path) -> Result<Self, Failure> {
        let name = path.display().to_string();
        if path.is_dir() {
            return Err(Failure(format!("{name}: is a directory, expected a JSON-lines file")));
        }
        let f = File::open(path).map_err(|e| Failure(format!("{name}: cannot read: {}", describe_io(&e))))?;
        Ok(JsonLines { name, reader: BufReader::new(f), line: 0 })
    }

    /// The next line, `None` at the end of the file.
    fn next_line(&mut self) -> Result<Option<Line>, Failure> {
        let mut bytes: Vec<u8> = Vec::new();
        let number = self.line + 1;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Failure(format!(
                        "{}:{number}: cannot read: {}; stopping here",
                        self.name,
                        describe_io(&e)
                    )));
                }
            };
            if available.is_empty() {
                if bytes.is_empty() {
                    return Ok(None);
                }
                break;
            }
            let (take, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (available.len(), false),
            };
            if bytes.len() + take > MAX_SIDE_INPUT_BYTES {
                return Err(Failure(format!(
                    "{}:{number}: the line is longer than the {MAX_SIDE_INPUT_BYTES}-byte limit; one line holds one JSON value",
                    self.name
                )));
            }
            bytes.extend_from_slice(available.get(..take).unwrap_or_default());
            self.reader.consume(if done { take + 1 } else { take });
            if done {
                break;
            }
        }
        self.line = number;
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        Ok(Some(String::from_utf8(bytes).map_or(Line::NotUtf8, Line::Text)))
    }
}

/// Whether two existing paths name one file: the same canonical path, or the same device
/// and inode (a hard link, a symbolic link, `./a` and `a`).
fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (std::fs::canonicalize(a), std::fs::canonicalize(b))
        && x == y
    {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    false
}

/// Where the results of `eval --output` go until the run ends: a new file beside the output,
/// renamed over it when every row is written. Dropped without [`Staged::commit`] (a run
/// that stops on an error), it is removed and the output is left as it was.
struct Staged {
    temp: PathBuf,
    target: PathBuf,
    out: Option<BufWriter<File>>,
    committed: bool,
}

impl Staged {
    /// Checks `target` against the run's inputs and creates the temporary file.
    ///
    /// Refused: an output that is a symbolic link (the rename would replace the link, not
    /// the file it points to, so we ask for the real path), a directory, a device or FIFO
    /// (the rename would replace it), or the same file as an input (the prompt, `--data`,
    /// `--answers`; by path, hard link or symbolic link).
    fn create(target: &Path, inputs: &[(&str, &Path)]) -> Result<Staged, Failure> {
        let shown = target.display();
        if let Ok(meta) = std::fs::symlink_metadata(target) {
            if meta.file_type().is_symlink() {
                return Err(Failure(format!(
                    "--output {shown} is a symbolic link; give the path of the file itself (results are written beside it and renamed over it)"
                )));
            }
            if meta.is_dir() {
                return Err(Failure(format!("--output {shown} is a directory; give a file path")));
            }
            if !meta.is_file() {
                // A device or a FIFO would be replaced by the rename, not written to.
                return Err(Failure(format!(
                    "--output {shown} is not a regular file; give a file path (or leave out --output to print the results)"
                )));
            }
            for (flag, input) in inputs {
                if same_file(target, input) {
                    return Err(Failure(format!(
                        "--output {shown} is the same file as {flag} {}; writing the results there would destroy that input: choose another output path",
                        input.display()
                    )));
                }
            }
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let file_name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let cannot = |e: std::io::Error| Failure(format!("{shown}: cannot write: {}", describe_io(&e)));
        let mut attempt = 0u32;
        let (temp, file) = loop {
            let temp = dir.join(format!(".{file_name}.{}.{attempt}.tmp", std::process::id()));
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(f) => break (temp, f),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
                Err(e) => return Err(cannot(e)),
            }
        };
        // An existing output keeps its permissions.
        if let Ok(meta) = std::fs::metadata(target) {
            let _ = file.set_permissions(meta.permissions());
        }
        Ok(Staged { temp, target: target.to_path_buf(), out: Some(BufWriter::new(file)), committed: false })
    }

    /// Flushes the results to disk and renames them over the output.
    fn commit(mut self) -> Result<(), Failure> {
        let cannot =
            |e: std::io::Error| Failure(format!("{}: cannot write: {}", self.target.display(), describe_io(&e)));
        if let Some(out) = self.out.take() {
            let file = out.into_inner().map_err(|e| cannot(e.into_error()))?;
            file.sync_all().map_err(cannot)?;
        }
        std::fs::rename(&self.temp, &self.target).map_err(cannot)?;
        self.committed = true;
        Ok(())
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.out {
            Some(out) => out.write(buf),
            None => Ok(0),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            drop(self.out.take());
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Evaluates recorded answers row by row; returns whether every row was evaluated.
///
/// Exactly one result line per data row: an evaluation, or an error record (a bad row, a
/// bad answer, a missing answer line). Answer lines beyond the data are one summary error.
/// A read error, or a line over the size limit, ends the run (exit 2); with `--output`,
/// the output file is then left as it was.
pub(crate) fn run_eval(args: &EvalArgs) -> Result<bool, Failure> {
    let mut staged = match &args.output {
        Some(p) => Some(Staged::create(
            p,
            &[("the prompt", args.file.as_path()), ("--data", &args.data), ("--answers", &args.answers)],
        )?),
        None => None,
    };
    let (prompt, _) = load_prompt(&args.file, &args.load)?;
    let evaluator = evaluator_for(&args.file, &prompt)?;
    let mut rows = JsonLines::open(&args.data)?;
    let mut answers = JsonLines::open(&args.answers)?;
    let mut stdout;
    let out: &mut dyn Write = match &mut staged {
        Some(s) => s,
        None => {
            stdout = BufWriter::new(std::io::stdout().lock());
            &mut stdout
        }
    };
    let progress = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut stderr = std::io::stderr().lock();
    let mut answers_ended = false;
    while let Some(row) = rows.next_line()? {
        let line_no = rows.line;
        let answer = if answers_ended { None } else { answers.next_line()? };
        answers_ended = answer.is_none();
        let outcome = match answer {
            Some(answer) => evaluate_row(&prompt, &evaluator, row, answer, &rows.name, &answers.name, line_no),
            None => Err((
                "missing answer",
                format!(
                    "{}:{line_no}: no answer for this row: {} has {} line(s); every data row needs one answer line",
                    rows.name, answers.name, answers.line
                ),
            )),
        };
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
                let message = shown(&prompt, message);
                writeln!(stderr, "error: {message}")?;
                summary.error(kind);
                serde_json::json!({ "line": line_no, "error": { "kind": kind, "message": message } })
            }
        };
        let mut record = record;
        prompt.secrets.redact_json(&mut record);
        serde_json::to_writer(&mut *out, &record)?;
        out.write_all(b"\n")?;
        if progress && line_no.is_multiple_of(1000) {
            write!(stderr, "\r{line_no} rows")?;
        }
    }
    if !answers_ended {
        let first_extra = answers.line + 1;
        let mut extra = 0u64;
        while answers.next_line()?.is_some() {
            extra += 1;
        }
        if extra > 0 {
            writeln!(
                stderr,
                "error: {} has {extra} more line(s) than {} (from line {first_extra}); they were not evaluated",
                answers.name, rows.name
            )?;
            summary.problem("extra answers", extra);
        }
    }
    out.flush()?;
    if let Some(s) = staged {
        s.commit()?;
    }
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
    row: Line,
    answer: Line,
    data_name: &str,
    answers_name: &str,
    line: u64,
) -> Result<Evaluation, RowError> {
    let Line::Text(row) = row else {
        return Err(("unreadable row", format!("{data_name}:{line}: not UTF-8 text")));
    };
    let Line::Text(answer) = answer else {
        return Err(("unreadable answer", format!("{answers_name}:{line}: not UTF-8 text")));
    };
    let inputs = match serde_json::from_str::<Value>(&row) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(("row not an object", format!("{data_name}:{line}: expected a JSON object of inputs"))),
        Err(e) => return Err(("row not JSON", format!("{data_name}:{line}: not valid JSON: {e}"))),
    };
    prompt
        .validate_inputs(&inputs)
        .map_err(|e| ("missing input", shown(prompt, format!("{data_name}:{line}: {e}"))))?;
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
