//! `prompty score` and `prompty eval`: judge answers to evaluations.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::ValueEnum;
use prompty_eval::{AzureLayout, Evaluator, Gates, MaxUnknown, OutOfRange, Pricing, ResultLine, Run, Threshold};
use prompty_syntax::Prompt;
use serde_json::Value;

use crate::inputs::{describe_io, read_object, read_text};
use crate::run::{SendArgs, TargetArgs};
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
    verdict: VerdictArgs,
    #[command(flatten)]
    pub(crate) load: LoadArgs,
}

/// How scores become verdicts: shared by `score` and `eval`.
#[derive(clap::Args)]
pub(crate) struct VerdictArgs {
    /// The pass threshold (overrides the prompt's, like the reference evaluators'
    /// `threshold` argument).
    #[arg(long, value_name = "N")]
    threshold: Option<String>,
    /// Compare a score outside the evaluator's range with the threshold like any other
    /// (default: such a score has no verdict, `unknown`, never a pass).
    #[arg(long)]
    allow_out_of_range: bool,
}

/// Exit status: 0 every row evaluated and every gate passed; 1 a row has an error record or
/// a gate failed; 2 usage or I/O failure (nothing is scored); 130 interrupted (the rows
/// done are written).
#[derive(clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    group(clap::ArgGroup::new("answer-source").required(true).args(["answers", "judge", "batch_results"])),
    after_help = "Exit status: 0 every row evaluated and every gate passed; 1 a row has an error record or a gate failed; 2 usage or I/O failure; 130 interrupted (the rows done are written; rerun with the same --cache to finish)."
)]
pub(crate) struct EvalArgs {
    #[command(subcommand)]
    command: Option<EvalCommand>,
    /// The evaluator prompt.
    #[arg(required = true)]
    file: Option<PathBuf>,
    /// One JSON object of input values per line.
    #[arg(long, value_name = "ROWS.jsonl", required = true)]
    data: Option<PathBuf>,
    /// One judge answer per line, in the same order: the answer text, a JSON string,
    /// `{"answer": ...}`, a provider response or a provider batch result line.
    #[arg(long, value_name = "ANSWERS.jsonl")]
    answers: Option<PathBuf>,
    /// Ask the judge: render each row, send it, score the answer.
    #[arg(long)]
    judge: bool,
    /// Score a provider's batch output (`prompty batch` made the input), matched by
    /// `custom_id`.
    #[arg(long, value_name = "OUT.jsonl")]
    batch_results: Option<PathBuf>,
    /// Where to write one result per line (default: standard output).
    #[arg(long, value_name = "RESULTS.jsonl")]
    output: Option<PathBuf>,
    /// Output layout.
    #[arg(long, value_enum, default_value_t = EvalFormat::Clean)]
    format: EvalFormat,
    /// Also write the run as one self-contained HTML page (statistics, histograms, every
    /// row with its inputs, the judge's answer and reason; `prompty report` makes it from
    /// result files).
    #[arg(long, value_name = "REPORT.html")]
    report: Option<PathBuf>,
    /// Also write the run as JUnit XML: one test case per row, a failure for `fail`,
    /// skipped for `unknown` and `not_applicable`.
    #[arg(long, value_name = "RESULTS.xml")]
    junit: Option<PathBuf>,
    #[command(flatten)]
    verdict: VerdictArgs,
    #[command(flatten)]
    gates: GateArgs,
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    send: SendArgs,
    /// Requests at once (--judge).
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
    /// A folder of answered requests (--judge): a request answered before is not sent
    /// again, so a second run resumes where an interrupted one stopped.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) load: LoadArgs,
}

#[derive(clap::Subcommand)]
enum EvalCommand {
    /// Compare two result files row by row.
    Compare(crate::compare::CompareArgs),
}

/// The run's gates and summaries.
#[derive(clap::Args)]
pub(crate) struct GateArgs {
    /// Exit 1 when the mean score is below MEAN.
    #[arg(long, value_name = "MEAN")]
    fail_under: Option<f64>,
    /// Exit 1 when more rows than this have no verdict: a count, or a percentage of the
    /// rows (`5%`).
    #[arg(long, value_name = "N|P%")]
    max_unknown: Option<MaxUnknown>,
    /// Also write the summary as JSON to this file.
    #[arg(long, value_name = "FILE")]
    summary_json: Option<PathBuf>,
    /// The price of a model's tokens, per million input and output tokens, for the cost
    /// in the summary (repeatable).
    #[arg(long = "price", value_name = "MODEL=IN,OUT")]
    prices: Vec<String>,
}

impl VerdictArgs {
    /// The evaluator with the threshold override and the out-of-range policy applied.
    fn apply(&self, evaluator: Evaluator) -> Result<Evaluator, Failure> {
        let policy = if self.allow_out_of_range { OutOfRange::Allow } else { OutOfRange::Unknown };
        let evaluator = evaluator.with_out_of_range(policy);
        match &self.threshold {
            None => Ok(evaluator),
            Some(t) => {
                let number = serde_json::from_str::<serde_json::Number>(t.trim())
                    .map_err(|_| Failure::Message(format!("--threshold {t}: expected a number")))?;
                evaluator
                    .with_threshold(Threshold(number))
                    .map_err(|e| Failure::Message(format!("--threshold {t}: {e}")))
            }
        }
    }
}

/// The evaluator for a prompt ([`Evaluator::for_prompt`]): its evaluations and errors, like
/// this function's, show values `${env:}` supplied as `${env:NAME}`.
fn evaluator_for(file: &Path, prompt: &Prompt) -> Result<Evaluator, Failure> {
    let stem = file.file_stem().and_then(|s| s.to_str());
    Evaluator::for_prompt(prompt, stem).map_err(|e| match e {
        prompty_eval::Error::NoEvaluator => Failure::Message(format!("{}: {e}", file.display())),
        e => Failure::diagnostic(crate::report::whole(file, e.to_diagnostic())),
    })
}

/// `message` with the values `${env:}` supplied to `prompt` shown as `${env:NAME}`.
fn shown(prompt: &Prompt, message: String) -> String {
    prompt.secrets.redact(&message).into_owned()
}

pub(crate) fn run_score(args: &ScoreArgs) -> Result<(), Failure> {
    if args.answer.as_os_str() == "-" && args.inputs.as_ref().is_some_and(|p| p.as_os_str() == "-") {
        return Err(Failure::Message(
            "--answer - and --inputs - both read standard input, which can be read once; give one of them a file"
                .to_owned(),
        ));
    }
    let (prompt, _) = load_prompt(&args.file, &args.load)?;
    let evaluator = args.verdict.apply(evaluator_for(&args.file, &prompt)?)?;
    if let Some(path) = &args.inputs {
        let given = read_object(path)?;
        prompt
            .validate_inputs(&given)
            .map_err(|e| Failure::Message(shown(&prompt, format!("{}: {e}", args.file.display()))))?;
    }
    let (name, text) = read_text(&args.answer)?;
    let reply = prompty_eval::reply::from_text(&text).map_err(|e| Failure::Message(format!("{name}: {e}")))?;
    let evaluation = evaluator.evaluate(&reply).map_err(|e| {
        let mut d = e.to_diagnostic();
        prompt.secrets.redact_diagnostic(&mut d);
        Failure::diagnostic(crate::report::whole(Path::new(&name), d))
    })?;
    let mut shown_evaluation = match args.format {
        EvalFormat::Clean => serde_json::to_value(&evaluation).unwrap_or(Value::Null),
        EvalFormat::Azure => Value::Object(evaluation.to_azure(&evaluator.azure_layout())),
    };
    // The evaluation is already redacted; this also covers what the layout adds.
    prompt.secrets.redact_json(&mut shown_evaluation);
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &shown_evaluation)?;
    writeln!(out)?;
    Ok(())
}

/// A JSON-lines file of the command line (`--data`, `--answers`, results).
pub(crate) type Lines = prompty_eval::JsonLines<BufReader<File>>;

/// Opens a JSON-lines file named on the command line.
pub(crate) fn open_lines(path: &Path) -> Result<Lines, Failure> {
    let name = path.display().to_string();
    if path.is_dir() {
        return Err(Failure::Message(format!("{name}: is a directory, expected a JSON-lines file")));
    }
    let f = File::open(path).map_err(|e| Failure::Message(format!("{name}: cannot read: {}", describe_io(&e))))?;
    Ok(prompty_eval::JsonLines::new(name, BufReader::new(f)))
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
pub(crate) struct Staged {
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
    pub(crate) fn create(target: &Path, inputs: &[(&str, &Path)]) -> Result<Staged, Failure> {
        Staged::create_for("--output", target, inputs)
    }

    /// [`Staged::create`] for the output of option `flag`, which messages name.
    pub(crate) fn create_for(flag: &str, target: &Path, inputs: &[(&str, &Path)]) -> Result<Staged, Failure> {
        let shown = target.display();
        if let Ok(meta) = std::fs::symlink_metadata(target) {
            if meta.file_type().is_symlink() {
                return Err(Failure::Message(format!(
                    "{flag} {shown} is a symbolic link; give the path of the file itself (results are written beside it and renamed over it)"
                )));
            }
            if meta.is_dir() {
                return Err(Failure::Message(format!("{flag} {shown} is a directory; give a file path")));
            }
            if !meta.is_file() {
                // A device or a FIFO would be replaced by the rename, not written to.
                return Err(Failure::Message(format!(
                    "{flag} {shown} is not a regular file; give a file path (or leave out --output to print the results)"
                )));
            }
            for (input_flag, input) in inputs {
                if same_file(target, input) {
                    return Err(Failure::Message(format!(
                        "{flag} {shown} is the same file as {input_flag} {}; writing the results there would destroy that input: choose another output path",
                        input.display()
                    )));
                }
            }
        }
        // Beside the output, with its permissions when it exists.
        let (temp, file) = crate::files::create_temp(target)
            .map_err(|e| Failure::Message(format!("{shown}: cannot write: {}", describe_io(&e))))?;
        Ok(Staged { temp, target: target.to_path_buf(), out: Some(BufWriter::new(file)), committed: false })
    }

    /// Flushes the results to disk and renames them over the output.
    pub(crate) fn commit(mut self) -> Result<(), Failure> {
        let cannot = |why: String| Failure::Message(format!("{}: cannot write: {why}", self.target.display()));
        let Some(out) = self.out.take() else { return Err(cannot("the results were already written".to_owned())) };
        let file = out.into_inner().map_err(|e| cannot(describe_io(&e.into_error())))?;
        // The temporary file is removed on failure; `Drop` finds nothing left to remove.
        self.committed = true;
        crate::files::commit(file, &self.temp, &self.target, || Ok(())).map_err(|e| match e {
            crate::files::WriteError::Io(why) => cannot(why),
            crate::files::WriteError::Link | crate::files::WriteError::Changed => {
                cannot("the output changed while the results were written".to_owned())
            }
        })
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

/// How an `eval` run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EvalStatus {
    /// Every row evaluated, every gate passed: exit 0.
    Passed,
    /// A row has an error record or a gate failed: exit 1.
    Failed,
    /// Stopped by Ctrl-C; the rows done are written: exit 130.
    Interrupted,
}

/// Where result lines go, in data order: the output in the layout asked for, with the
/// prompt's `${env:}` values shown as references.
pub(crate) struct Output<'a> {
    out: &'a mut dyn Write,
    /// Where warnings about the prompt go.
    pub(crate) reporter: &'a crate::report::Reporter,
    format: EvalFormat,
    layout: AzureLayout,
    pub(crate) progress: indicatif::ProgressBar,
    /// Values `${env:}` supplied to the prompt: records and messages show `${env:NAME}`.
    secrets: &'a prompty_syntax::Secrets,
    /// The result lines written, kept for `--report` and `--junit`.
    pub(crate) kept: Option<Vec<ResultLine>>,
}

impl Output<'_> {
    /// Writes a result line (and reports an error record on standard error).
    pub(crate) fn emit(&mut self, result: &ResultLine) -> Result<(), Failure> {
        self.emit_marked(result, false)
    }

    /// Writes a result line; `cached` adds `"cached": true` (the answer came from `--cache`).
    pub(crate) fn emit_marked(&mut self, result: &ResultLine, cached: bool) -> Result<(), Failure> {
        if let Some(error) = result.error() {
            self.error(&error.message);
        }
        let mut record = match self.format {
            EvalFormat::Clean => result.to_json(),
            EvalFormat::Azure => result.to_azure(&self.layout),
        };
        if cached && let Value::Object(o) = &mut record {
            o.insert("cached".into(), Value::Bool(true));
        }
        self.secrets.redact_json(&mut record);
        if self.kept.is_some() {
            let line = self.redacted(result);
            self.kept.get_or_insert_default().push(line);
        }
        serde_json::to_writer(&mut *self.out, &record)?;
        self.out.write_all(b"\n")?;
        self.progress.inc(1);
        Ok(())
    }

    /// A result line with the prompt's `${env:}` values shown as `${env:NAME}` (the judge's
    /// answer, which the written line leaves out, included).
    fn redacted(&self, result: &ResultLine) -> ResultLine {
        let mut line = result.clone();
        match &mut line.outcome {
            prompty_eval::RowOutcome::Evaluated(e) => {
                **e = std::mem::take(&mut **e).redacted(self.secrets);
            }
            prompty_eval::RowOutcome::Error { error } => self.secrets.redact_string(&mut error.message),
        }
        line
    }

    /// Reports a problem on standard error (above the progress bar).
    pub(crate) fn error(&self, message: &str) {
        let message = self.secrets.redact(message);
        self.progress.suspend(|| eprintln!("error: {message}"));
    }

    /// Reports a warning on standard error (above the progress bar).
    pub(crate) fn warn(&self, message: &str) {
        let message = self.secrets.redact(message);
        self.progress.suspend(|| eprintln!("warning: {message}"));
    }
}

/// A run's results ([`Run`]) and where they are written.
pub(crate) struct Sink<'a> {
    pub(crate) run: Run,
    pub(crate) output: Output<'a>,
    /// The data lines answered from `--cache`: their result lines say `"cached": true`.
    pub(crate) cached: std::collections::HashSet<u64>,
}

impl Sink<'_> {
    /// Counts and writes the result of a data row.
    pub(crate) fn row(&mut self, result: ResultLine) -> Result<(), Failure> {
        self.run.record(&result);
        let cached = self.cached.remove(&result.line);
        self.output.emit_marked(&result, cached)
    }

    /// Reports a problem on standard error.
    pub(crate) fn error(&self, message: &str) {
        self.output.error(message);
    }

    /// Reports a warning on standard error.
    pub(crate) fn warn(&self, message: &str) {
        self.output.warn(message);
    }

    /// Counts a problem that is no data row.
    pub(crate) fn problem(&mut self, kind: &str, count: u64) {
        self.run.summary_mut().problem(kind, count);
    }
}

/// A progress bar on a terminal (rows, rate, time left); hidden elsewhere.
fn progress_bar(data: &Path) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let total = File::open(data).map(|f| BufReader::new(f).split(b'\n').count() as u64).unwrap_or(0);
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} rows  {per_sec}  ETA {eta}  {msg}")
    {
        bar.set_style(style);
    }
    bar
}

/// Evaluates the rows of `--data` with answers from `--answers`, `--batch-results` or the
/// judge (`--judge`).
///
/// Exactly one result line per data row, in data order: an evaluation, or an error record
/// (a bad row, a bad answer, a missing answer, a request that failed after its retries).
/// A read error, or a line over the size limit, ends the run (exit 2); with `--output`, the
/// output file is then left as it was. Ctrl-C during `--judge` writes the rows done.
pub(crate) fn run_eval(args: &EvalArgs, reporter: &crate::report::Reporter) -> Result<EvalStatus, Failure> {
    if let Some(EvalCommand::Compare(c)) = &args.command {
        return crate::compare::run(c).map(|()| EvalStatus::Passed);
    }
    let (Some(file), Some(data)) = (args.file.as_deref(), args.data.as_deref()) else {
        return Err(Failure::Message("eval needs the evaluator prompt and --data".to_owned()));
    };
    let mut inputs: Vec<(&str, &Path)> = vec![("the prompt", file), ("--data", data)];
    if let Some(a) = &args.answers {
        inputs.push(("--answers", a));
    }
    if let Some(b) = &args.batch_results {
        inputs.push(("--batch-results", b));
    }
    let mut staged = match &args.output {
        Some(p) => Some(Staged::create(p, &inputs)?),
        None => None,
    };
    if let (Some(o), Some(j)) = (&args.output, &args.gates.summary_json)
        && std::path::absolute(o).ok() == std::path::absolute(j).ok()
    {
        return Err(Failure::Message(format!(
            "--summary-json {} is the --output file; give them different paths",
            j.display()
        )));
    }
    let mut summary_file = match &args.gates.summary_json {
        Some(p) => Some(Staged::create(p, &inputs)?),
        None => None,
    };
    let mut outputs: Vec<(&str, &Path)> = Vec::new();
    for (flag, path) in [
        ("--output", args.output.as_deref()),
        ("--summary-json", args.gates.summary_json.as_deref()),
        ("--report", args.report.as_deref()),
        ("--junit", args.junit.as_deref()),
    ] {
        let Some(path) = path else { continue };
        if let Some((other, _)) =
            outputs.iter().find(|(_, p)| std::path::absolute(p).ok() == std::path::absolute(path).ok())
        {
            return Err(Failure::Message(format!(
                "{flag} {} is the {other} file; give them different paths",
                path.display()
            )));
        }
        outputs.push((flag, path));
    }
    let mut report_files = Vec::new();
    for (kind, path) in [("report", args.report.as_deref()), ("junit", args.junit.as_deref())] {
        if let Some(p) = path {
            report_files.push((kind, Staged::create_for(&format!("--{kind}"), p, &inputs)?));
        }
    }
    let mut pricing = Pricing::new();
    for p in &args.gates.prices {
        pricing.add(p).map_err(|e| Failure::Message(format!("--price {e}")))?;
    }
    let gates = Gates { fail_under: args.gates.fail_under, max_unknown: args.gates.max_unknown };
    if gates.fail_under.is_some_and(|f| !f.is_finite()) {
        return Err(Failure::Message("--fail-under: expected a finite number".to_owned()));
    }
    let (prompt, _) = load_prompt(file, &args.load)?;
    // Every error from here on may quote the prompt (a provider's answer, a model name).
    let run = || -> Result<EvalStatus, Failure> {
        let evaluator = args.verdict.apply(evaluator_for(file, &prompt)?)?;
        let rows = open_lines(data)?;
        let mut stdout;
        let out: &mut dyn Write = match &mut staged {
            Some(s) => s,
            None => {
                stdout = BufWriter::new(std::io::stdout().lock());
                &mut stdout
            }
        };
        let started = Instant::now();
        let layout = evaluator.azure_layout();
        let mut sink = Sink {
            run: Run::new(evaluator),
            output: Output {
                out,
                reporter,
                format: args.format,
                layout,
                progress: progress_bar(data),
                secrets: &prompt.secrets,
                kept: (!report_files.is_empty()).then(Vec::new),
            },
            cached: std::collections::HashSet::new(),
        };
        let mut requests = None;
        let mut interrupted = false;
        if let Some(answers) = &args.answers {
            from_answers(&prompt, rows, answers, &mut sink)?;
        } else if let Some(results) = &args.batch_results {
            crate::batch::score_results(file, &args.load, &args.target, rows, results, &mut sink)?;
        } else {
            let live = crate::live::Live {
                file,
                load: &args.load,
                target: &args.target,
                send: &args.send,
                concurrency: args.concurrency,
                cache: args.cache.as_deref(),
            };
            let outcome = live.run(rows, &mut sink)?;
            interrupted = outcome.interrupted;
            requests = Some(outcome.requests);
        }
        let Sink { run, mut output, .. } = sink;
        let kept = output.kept.take();
        let summary = run.into_summary();
        output.out.flush()?;
        output.progress.finish_and_clear();
        if let Some(s) = staged {
            s.commit()?;
        }
        let seconds = started.elapsed().as_secs_f64();
        let failed_gates = gates.check(&summary);
        let mut json = summary.to_json(&pricing, seconds);
        if let Value::Object(o) = &mut json {
            if let Some(r) = &requests {
                o.insert(
                    "requests".into(),
                    serde_json::json!({"sent": r.sent, "retried": r.retried, "cached": r.cached}),
                );
            }
            o.insert("gates".into(), serde_json::json!({"passed": failed_gates.is_empty(), "failed": failed_gates}));
            if interrupted {
                o.insert("interrupted".into(), Value::Bool(true));
            }
        }
        prompt.secrets.redact_json(&mut json);
        if let Some(mut f) = summary_file.take() {
            serde_json::to_writer_pretty(&mut f, &json)?;
            f.write_all(b"\n")?;
            f.commit()?;
        }
        if let Some(kept) = kept {
            let name = args.output.as_ref().map_or_else(|| "standard output".to_owned(), |p| p.display().to_string());
            let mut report = prompty_results::Run::from_lines(name, kept);
            report.meta.prompts = vec![file.display().to_string()];
            report.meta.when = Some(crate::results::rfc3339(std::time::SystemTime::now()));
            report.meta.cost = json.get("cost").and_then(Value::as_f64);
            crate::results::add_inputs(&mut report, data, Some(&prompt.secrets))?;
            for (kind, mut f) in report_files.drain(..) {
                let text = match kind {
                    "report" => prompty_results::html::single(&report),
                    _ => prompty_results::junit::junit(&report),
                };
                f.write_all(text.as_bytes())?;
                f.commit()?;
            }
        }
        let table =
            crate::summary::table(&summary, &pricing, requests.as_ref(), seconds, crate::summary::Plot::for_stderr());
        let table = prompt.secrets.redact(&table);
        let mut stderr = std::io::stderr().lock();
        write!(stderr, "{table}")?;
        for g in &failed_gates {
            writeln!(stderr, "gate failed: {g}")?;
        }
        if interrupted {
            writeln!(
                stderr,
                "interrupted: {} row(s) written; run again with the same --cache to send only the rest",
                summary.rows()
            )?;
            return Ok(EvalStatus::Interrupted);
        }
        Ok(if summary.error_count() == 0 && failed_gates.is_empty() { EvalStatus::Passed } else { EvalStatus::Failed })
    };
    run().map_err(|f| match f {
        Failure::Message(message) => Failure::Message(shown(&prompt, message)),
        Failure::Diagnostics(mut ds) => {
            for d in &mut ds {
                prompt.secrets.redact_diagnostic(&mut d.diagnostic);
            }
            Failure::Diagnostics(ds)
        }
        Failure::BrokenPipe => Failure::BrokenPipe,
    })
}

/// `--answers`: one answer line per data row, read side by side ([`Run::recorded`]).
fn from_answers(prompt: &Prompt, rows: Lines, answers: &Path, sink: &mut Sink<'_>) -> Result<(), Failure> {
    let answers = open_lines(answers)?;
    let mut recorded = sink.run.recorded(prompt, rows, answers);
    for result in recorded.by_ref() {
        sink.output.emit(&result?)?;
    }
    if let Some(extra) = recorded.extra_answers() {
        let (data, answers) = recorded.names();
        sink.output.error(&format!(
            "{answers} has {} more line(s) than {data} (from line {}); they were not evaluated",
            extra.count, extra.first
        ));
    }
    Ok(())
}
