//! `prompty score` and `prompty eval`: judge answers to evaluations.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::ValueEnum;
use prompty_eval::{
    AzureLayout, Contract, Evaluator, Gates, IdColumn, MapSpec, MaxUnknown, OutOfRange, Pricing, ResultLine,
    RowResults, Suite, Threshold,
};
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
    /// The azure-ai-evaluation result keys of the contract in use (1.13: `{k}`, `gpt_{k}`,
    /// `{k}_result`, ...; 1.18: `{k}`, `{k}_score`, `{k}_passed`, ..., `{k}_properties`).
    Azure,
}

/// The azure-ai-evaluation judge contract.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum ContractArg {
    /// azure-ai-evaluation 1.13.3: tags or evaluator-specific JSON; `gpt_{k}` keys.
    #[value(name = "1.13")]
    V1_13,
    /// azure-ai-evaluation 1.18.10: JSON `{reason, score, status}`; `{k}_passed`,
    /// `{k}_status`, `{k}_properties` keys.
    #[value(name = "1.18")]
    V1_18,
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
    /// `threshold` argument); `EVALUATOR=N` for one evaluator of several (repeatable).
    #[arg(long, value_name = "[EVALUATOR=]N")]
    threshold: Vec<String>,
    /// Compare a score outside the evaluator's range with the threshold like any other
    /// (default: such a score has no verdict, `unknown`, never a pass).
    #[arg(long)]
    allow_out_of_range: bool,
    /// The judge contract (default: the prompt's `metadata.evaluator.contract`, else 1.18
    /// when the prompt asks for JSON mode and a reason, score and status, else 1.13).
    #[arg(long, value_enum, value_name = "VERSION")]
    contract: Option<ContractArg>,
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
    /// The evaluator prompts: one, or several run over the same rows (one result line per
    /// row with every evaluator's result under its key).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// One JSON object of input values per line.
    #[arg(long, value_name = "ROWS.jsonl", required = true)]
    data: Option<PathBuf>,
    /// One judge answer per line, in the same order: the answer text, a JSON string,
    /// `{"answer": ...}`, a provider response or a provider batch result line. With several
    /// evaluators, one file each: in the order of the prompts, or EVALUATOR=FILE.
    #[arg(long, value_name = "[EVALUATOR=]ANSWERS.jsonl")]
    answers: Vec<String>,
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
    /// Take a prompt input from another field of the row: `query=question`, a nested
    /// field `context=doc.text` (or `${data.doc.text}`), for one evaluator only
    /// `coherence:query=q` (repeatable).
    #[arg(long = "map", value_name = "[EVALUATOR:]INPUT=FIELD")]
    maps: Vec<String>,
    /// The field holding each row's id, written into the result lines and used by `eval
    /// compare` (default: the row's `id` field, else its line number).
    #[arg(long, value_name = "FIELD")]
    id_column: Option<String>,
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
    /// Exit 1 when the mean score is below MEAN: every evaluator's, or `EVALUATOR=MEAN`
    /// for one (repeatable; an evaluator's own replaces the general one).
    #[arg(long, value_name = "[EVALUATOR=]MEAN")]
    fail_under: Vec<String>,
    /// Exit 1 when more rows than this have no verdict: a count, or a percentage of the
    /// rows (`5%`); `EVALUATOR=N|P%` for one evaluator (repeatable).
    #[arg(long, value_name = "[EVALUATOR=]N|P%")]
    max_unknown: Vec<String>,
    /// Also write the summary as JSON to this file.
    #[arg(long, value_name = "FILE")]
    summary_json: Option<PathBuf>,
    /// The price of a model's tokens, per million input and output tokens, for the cost
    /// in the summary (repeatable).
    #[arg(long = "price", value_name = "MODEL=IN,OUT")]
    prices: Vec<String>,
}

impl VerdictArgs {
    /// The evaluator with the threshold override (the one for `key`, else the general one)
    /// and the out-of-range policy applied.
    fn apply(&self, evaluator: Evaluator, key: &str, keys: &[&str]) -> Result<Evaluator, Failure> {
        let policy = if self.allow_out_of_range { OutOfRange::Allow } else { OutOfRange::Unknown };
        let mut evaluator = evaluator.with_out_of_range(policy);
        match self.contract {
            Some(ContractArg::V1_13) => evaluator = evaluator.with_contract(Contract::V1_13),
            Some(ContractArg::V1_18) => evaluator = evaluator.with_contract(Contract::V1_18),
            None => {}
        }
        match per_evaluator(&self.threshold, "--threshold", key, keys)? {
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

/// The value of a repeatable per-evaluator option (`--fail-under 3`, `--fail-under
/// coherence=3.5`) for evaluator `key`: its own, else the general one. A value naming an
/// evaluator the run does not have, or a second value for every evaluator or for one
/// evaluator, is refused (never silently dropped).
pub(crate) fn per_evaluator<'a>(
    values: &'a [String],
    flag: &str,
    key: &str,
    keys: &[&str],
) -> Result<Option<&'a str>, Failure> {
    let mut general: Option<&str> = None;
    let mut own: Option<&str> = None;
    let twice = |first: &str, second: &str, whom: &str| {
        Failure::Message(format!("{flag} is given twice for {whom} ({first} and {second}); give it once"))
    };
    for v in values {
        match v.split_once('=') {
            Some((k, value)) => {
                let k = k.trim();
                if !keys.contains(&k) {
                    return Err(Failure::Message(format!(
                        "{flag} {v}: the run has no evaluator `{k}` (its evaluators: {})",
                        keys.join(", ")
                    )));
                }
                if k == key {
                    if let Some(first) = own {
                        return Err(twice(first, value, &format!("evaluator `{key}`")));
                    }
                    own = Some(value);
                }
            }
            None => {
                if let Some(first) = general {
                    return Err(twice(first, v, "every evaluator"));
                }
                general = Some(v.as_str());
            }
        }
    }
    Ok(own.or(general))
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
    let evaluator = evaluator_for(&args.file, &prompt)?;
    let key = evaluator.name().to_owned();
    let evaluator = args.verdict.apply(evaluator, &key, &[&key])?;
    let mut sample_input = None;
    if let Some(path) = &args.inputs {
        let given = read_object(path)?;
        prompt
            .validate_inputs(&given)
            .map_err(|e| Failure::Message(shown(&prompt, format!("{}: {e}", args.file.display()))))?;
        sample_input = Some(prompty_eval::azure::sample_input(&prompt, &given));
    }
    let (name, text) = read_text(&args.answer)?;
    let reply = prompty_eval::reply::from_text(&text).map_err(|e| Failure::Message(format!("{name}: {e}")))?;
    let mut evaluation = evaluator.evaluate(&reply).map_err(|e| {
        let mut d = e.to_diagnostic();
        prompt.secrets.redact_diagnostic(&mut d);
        Failure::diagnostic(crate::report::whole(Path::new(&name), d))
    })?;
    if let Some(s) = sample_input {
        evaluation.sample_input = Some(prompt.secrets.redact(&s).into_owned());
    }
    report_contract(&evaluator, &args.load);
    for w in &evaluation.warnings {
        eprintln!("warning: {}", shown(&prompt, w.clone()));
    }
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

/// Says on standard error which judge contract the evaluator follows and why, once the
/// answer is scored (with the human error format; the machine formats keep standard error
/// to their own records). `eval` says it above its summary, and `--summary-json` carries it.
fn report_contract(evaluator: &Evaluator, load: &LoadArgs) {
    if load.error_format == crate::report::Format::Human {
        eprintln!("contract: {} ({})", evaluator.contract(), evaluator.contract_source().describe());
    }
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
/// prompts' `${env:}` values shown as references.
pub(crate) struct Output<'a> {
    out: &'a mut dyn Write,
    /// Where warnings about the prompts go.
    pub(crate) reporter: &'a crate::report::Reporter,
    format: EvalFormat,
    /// Each evaluator's layout, in order.
    layouts: Vec<AzureLayout>,
    pub(crate) progress: indicatif::ProgressBar,
    /// Values `${env:}` supplied to the prompts: records and messages show `${env:NAME}`.
    secrets: &'a [prompty_syntax::Secrets],
    /// The result lines written, with their evaluator's key, kept for `--report` and
    /// `--junit`.
    pub(crate) kept: Option<Vec<(String, ResultLine)>>,
}

impl Output<'_> {
    fn redact(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for s in self.secrets {
            s.redact_string(&mut text);
        }
        text
    }

    /// Writes a row's result line (and reports its error records on standard error);
    /// `cached[i]` adds `"cached": true` to evaluator `i`'s result (its answer came from
    /// `--cache`). One evaluator: the one-evaluator line; several: the keyed line.
    pub(crate) fn emit(&mut self, results: &RowResults, cached: &[bool]) -> Result<(), Failure> {
        // A row error every evaluator has (a row that is no object) is reported once.
        let mut reported: Vec<&str> = Vec::new();
        for (_, outcome) in &results.evaluators {
            if let Some(error) = outcome.error()
                && !reported.contains(&error.message.as_str())
            {
                reported.push(&error.message);
                self.error(&error.message);
            }
        }
        let single = results.evaluators.len() == 1;
        for (key, outcome) in &results.evaluators {
            for w in outcome.evaluation().map(|e| e.warnings.as_slice()).unwrap_or_default() {
                let line = results.line;
                if single {
                    self.warn(&format!("line {line}: {w}"))
                } else {
                    self.warn(&format!("line {line}: {key}: {w}"))
                }
            }
        }
        let mut record = match (single, self.format) {
            (true, EvalFormat::Clean) => results.lines().next().map_or(Value::Null, |(_, l)| l.to_json()),
            (true, EvalFormat::Azure) => results
                .lines()
                .next()
                .map_or(Value::Null, |(_, l)| l.to_azure(self.layouts.first().unwrap_or(&AzureLayout::default()))),
            (false, EvalFormat::Clean) => results.to_json(),
            (false, EvalFormat::Azure) => results.to_azure(&self.layouts),
        };
        if let Value::Object(o) = &mut record {
            for ((key, _), was_cached) in results.evaluators.iter().zip(cached) {
                if !was_cached {
                    continue;
                }
                match (single, self.format) {
                    (true, _) => {
                        o.insert("cached".into(), Value::Bool(true));
                    }
                    (false, EvalFormat::Clean) => {
                        if let Some(Value::Object(entry)) =
                            o.get_mut("evaluators").and_then(|e| e.get_mut(key.as_str()))
                        {
                            entry.insert("cached".into(), Value::Bool(true));
                        }
                    }
                    (false, EvalFormat::Azure) => {
                        o.insert(format!("outputs.{key}.cached"), Value::Bool(true));
                    }
                }
            }
        }
        for s in self.secrets {
            s.redact_json(&mut record);
        }
        if self.kept.is_some() {
            // The evaluator's key is its name, which a value from the environment may supply.
            let lines: Vec<(String, ResultLine)> =
                results.lines().map(|(key, line)| (self.redact(key), self.redacted(&line))).collect();
            self.kept.get_or_insert_default().extend(lines);
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
                for s in self.secrets {
                    **e = std::mem::take(&mut **e).redacted(s);
                }
            }
            prompty_eval::RowOutcome::Error { error } => {
                for s in self.secrets {
                    s.redact_string(&mut error.message);
                }
            }
        }
        line
    }

    /// Reports a problem on standard error (above the progress bar).
    pub(crate) fn error(&self, message: &str) {
        let message = self.redact(message);
        self.progress.suspend(|| eprintln!("error: {message}"));
    }

    /// Reports a warning on standard error (above the progress bar).
    pub(crate) fn warn(&self, message: &str) {
        let message = self.redact(message);
        self.progress.suspend(|| eprintln!("warning: {message}"));
    }
}

/// A run's results ([`Suite`]) and where they are written.
pub(crate) struct Sink<'a> {
    pub(crate) suite: Suite,
    pub(crate) output: Output<'a>,
    /// The (data line, evaluator) answered from `--cache`: their results say `"cached": true`.
    pub(crate) cached: std::collections::HashSet<(u64, usize)>,
}

impl Sink<'_> {
    /// Counts and writes the results of a data row.
    pub(crate) fn row(&mut self, results: RowResults) -> Result<(), Failure> {
        self.suite.record(&results);
        let cached: Vec<bool> = (0..results.evaluators.len()).map(|i| self.cached.remove(&(results.line, i))).collect();
        self.output.emit(&results, &cached)
    }

    /// Reports a problem on standard error.
    pub(crate) fn error(&self, message: &str) {
        self.output.error(message);
    }

    /// Reports a warning on standard error.
    pub(crate) fn warn(&self, message: &str) {
        self.output.warn(message);
    }

    /// Counts a problem that is no data row, for evaluator `i`.
    pub(crate) fn problem(&mut self, i: usize, kind: &str, count: u64) {
        if let Some(m) = self.suite.member_mut(i) {
            m.run_mut().summary_mut().problem(kind, count);
        }
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

/// An evaluator of the run: its prompt file and loaded prompt.
pub(crate) struct Judged {
    pub(crate) file: PathBuf,
    pub(crate) prompt: Prompt,
}

/// `--answers` as given: one file per evaluator, in the evaluators' order.
fn answer_files(given: &[String], keys: &[&str]) -> Result<Vec<PathBuf>, Failure> {
    let named: Vec<Option<(&str, &str)>> = given
        .iter()
        .map(|g| g.split_once('=').filter(|(k, _)| keys.contains(&k.trim())).map(|(k, f)| (k.trim(), f)))
        .collect();
    let count = named.iter().filter(|n| n.is_some()).count();
    if count == 0 {
        if given.len() != keys.len() {
            return Err(Failure::Message(format!(
                "{} --answers file(s) for {} evaluator(s) ({}); give one per evaluator, in the order of the prompts or as EVALUATOR=FILE",
                given.len(),
                keys.len(),
                keys.join(", ")
            )));
        }
        return Ok(given.iter().map(PathBuf::from).collect());
    }
    if count != given.len() {
        return Err(Failure::Message(
            "--answers: give every file as EVALUATOR=FILE, or every file in the order of the prompts, not both"
                .to_owned(),
        ));
    }
    let mut files = Vec::with_capacity(keys.len());
    for key in keys {
        let mine: Vec<&str> = named.iter().flatten().filter(|(k, _)| k == key).map(|(_, f)| *f).collect();
        match mine.as_slice() {
            [one] => files.push(PathBuf::from(one)),
            [] => {
                return Err(Failure::Message(format!(
                    "--answers: no answers file for evaluator `{key}`; give {key}=FILE"
                )));
            }
            _ => {
                return Err(Failure::Message(format!(
                    "--answers: evaluator `{key}` has {} answers files; give one",
                    mine.len()
                )));
            }
        }
    }
    Ok(files)
}

/// Evaluates the rows of `--data` with every evaluator prompt, with answers from
/// `--answers`, `--batch-results` or the judge (`--judge`).
///
/// Exactly one result line per data row, in data order: with one evaluator, its evaluation
/// or error record; with several, every evaluator's under its key. A read error, or a line
/// over the size limit, ends the run (exit 2); with `--output`, the output file is then left
/// as it was. Ctrl-C during `--judge` writes the rows done.
pub(crate) fn run_eval(args: &EvalArgs, reporter: &crate::report::Reporter) -> Result<EvalStatus, Failure> {
    if let Some(EvalCommand::Compare(c)) = &args.command {
        return crate::compare::run(c);
    }
    let Some(data) = args.data.as_deref() else {
        return Err(Failure::Message("eval needs the evaluator prompts and --data".to_owned()));
    };
    if args.files.is_empty() {
        return Err(Failure::Message("eval needs the evaluator prompts and --data".to_owned()));
    }
    let mut judged = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let (prompt, _) = load_prompt(file, &args.load)?;
        judged.push(Judged { file: file.clone(), prompt });
    }
    let secrets: Vec<prompty_syntax::Secrets> = judged.iter().map(|j| j.prompt.secrets.clone()).collect();
    let redact = |mut text: String| {
        for s in &secrets {
            s.redact_string(&mut text);
        }
        text
    };
    // Every error from here on may quote a prompt (a provider's answer, a model name).
    let run = || -> Result<EvalStatus, Failure> { evaluate(args, reporter, data, &judged, &secrets) };
    run().map_err(|f| match f {
        Failure::Message(message) => Failure::Message(redact(message)),
        Failure::Diagnostics(mut ds) => {
            for d in &mut ds {
                for s in &secrets {
                    s.redact_diagnostic(&mut d.diagnostic);
                }
            }
            Failure::Diagnostics(ds)
        }
        other @ (Failure::BrokenPipe | Failure::Reported(_)) => other,
    })
}

fn evaluate(
    args: &EvalArgs,
    reporter: &crate::report::Reporter,
    data: &Path,
    judged: &[Judged],
    secrets: &[prompty_syntax::Secrets],
) -> Result<EvalStatus, Failure> {
    let mut evaluators = Vec::with_capacity(judged.len());
    for j in judged {
        evaluators.push(evaluator_for(&j.file, &j.prompt)?);
    }
    let names: Vec<&str> = evaluators.iter().map(Evaluator::name).collect();
    let keys = prompty_eval::run::evaluator_keys(&names);
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let mut applied = Vec::with_capacity(evaluators.len());
    for (e, key) in evaluators.into_iter().zip(&keys) {
        applied.push(args.verdict.apply(e, key, &keys)?);
    }
    let mut suite = Suite::new(applied);
    if let Some(column) = &args.id_column {
        let path = prompty_eval::FieldPath::parse(column, &format!("--id-column {column}"))?;
        suite = suite.with_ids(IdColumn::Field(path));
    }
    let specs: Vec<MapSpec> = args.maps.iter().map(|m| MapSpec::parse(m)).collect::<Result<_, _>>()?;
    let prompts: Vec<&Prompt> = judged.iter().map(|j| &j.prompt).collect();
    suite.map(&specs, &prompts)?;
    let answers = if args.answers.is_empty() { Vec::new() } else { answer_files(&args.answers, &keys)? };
    if args.batch_results.is_some() && judged.len() > 1 {
        return Err(Failure::Message(
            "--batch-results scores one evaluator's batch: run `prompty eval` once per evaluator with its batch output, or use --answers or --judge".to_owned(),
        ));
    }
    if args.batch_results.is_some() && !specs.is_empty() {
        return Err(Failure::Message(
            "--map with --batch-results: `prompty batch` wrote the requests from the rows as they are; map the columns in the data file instead".to_owned(),
        ));
    }
    let mut gates = Vec::with_capacity(keys.len());
    for key in &keys {
        let fail_under = match per_evaluator(&args.gates.fail_under, "--fail-under", key, &keys)? {
            None => None,
            Some(v) => match v.trim().parse::<f64>() {
                Ok(f) if f.is_finite() => Some(f),
                _ => return Err(Failure::Message(format!("--fail-under {v}: expected a finite number"))),
            },
        };
        let max_unknown = match per_evaluator(&args.gates.max_unknown, "--max-unknown", key, &keys)? {
            None => None,
            Some(v) => Some(v.parse::<MaxUnknown>().map_err(|e| Failure::Message(format!("--max-unknown {v}: {e}")))?),
        };
        gates.push(Gates { fail_under, max_unknown });
    }
    let mut inputs: Vec<(&str, &Path)> = judged.iter().map(|j| ("the prompt", j.file.as_path())).collect();
    inputs.push(("--data", data));
    for a in &answers {
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
    let layouts = suite.members().iter().map(|m| m.run().evaluator().azure_layout()).collect();
    // Each evaluator's judge contract and why it applies.
    let contracts: Vec<(&'static str, &'static str)> = suite
        .members()
        .iter()
        .map(|m| (m.run().evaluator().contract().as_str(), m.run().evaluator().contract_source().describe()))
        .collect();
    let files: Vec<String> = judged.iter().map(|j| j.file.display().to_string()).collect();
    let mut sink = Sink {
        suite,
        output: Output {
            out,
            reporter,
            format: args.format,
            layouts,
            progress: progress_bar(data),
            secrets,
            kept: (!report_files.is_empty()).then(Vec::new),
        },
        cached: std::collections::HashSet::new(),
    };
    let mut requests = None;
    let mut interrupted = false;
    if !answers.is_empty() {
        from_answers(&prompts, rows, &answers, &mut sink)?;
    } else if let (Some(results), Some(j)) = (&args.batch_results, judged.first()) {
        crate::batch::score_results(&j.file, &args.load, &args.target, rows, results, &mut sink)?;
    } else {
        let live = crate::live::Live {
            judged,
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
    let Sink { suite, mut output, .. } = sink;
    let kept = output.kept.take();
    let summaries = suite.into_summaries();
    output.out.flush()?;
    output.progress.finish_and_clear();
    if let Some(s) = staged {
        s.commit()?;
    }
    let seconds = started.elapsed().as_secs_f64();
    let single = summaries.len() == 1;
    let mut failed_gates: Vec<String> = Vec::new();
    let mut per_evaluator_json = serde_json::Map::new();
    let mut tables = String::new();
    for ((((key, summary), gate), file), (contract, why)) in summaries.iter().zip(&gates).zip(&files).zip(&contracts) {
        let failed = gate.check(summary);
        let mut json = summary.to_json(&pricing, seconds);
        if let Value::Object(o) = &mut json {
            o.insert("contract".into(), Value::String((*contract).to_owned()));
            if !single {
                o.insert("file".into(), Value::String(file.clone()));
                o.insert("gates".into(), serde_json::json!({"passed": failed.is_empty(), "failed": failed}));
            }
        }
        let mut table = crate::summary::table(
            summary,
            &pricing,
            if single { requests.as_ref() } else { None },
            seconds,
            crate::summary::Plot::for_stderr(),
        );
        if args.load.error_format == crate::report::Format::Human {
            table.insert_str(0, &format!("contract: {contract} ({why})\n"));
        }
        if single {
            tables.push_str(&table);
            failed_gates.extend(failed);
            per_evaluator_json.insert(key.clone(), json);
        } else {
            if !tables.is_empty() {
                tables.push('\n');
            }
            tables.push_str(&format!("== {key} ({file})\n{table}"));
            failed_gates.extend(failed.into_iter().map(|g| format!("{key}: {g}")));
            per_evaluator_json.insert(key.clone(), json);
        }
    }
    let mut json = if single {
        per_evaluator_json.into_iter().next().map_or(Value::Null, |(_, v)| v)
    } else {
        let rows = summaries.first().map_or(0, |(_, s)| s.rows());
        let seconds = (seconds * 1000.0).round() / 1000.0;
        serde_json::json!({"rows": rows, "evaluators": per_evaluator_json, "seconds": seconds})
    };
    if let Value::Object(o) = &mut json {
        if let Some(r) = &requests {
            o.insert("requests".into(), serde_json::json!({"sent": r.sent, "retried": r.retried, "cached": r.cached}));
        }
        o.insert("gates".into(), serde_json::json!({"passed": failed_gates.is_empty(), "failed": failed_gates}));
        if interrupted {
            o.insert("interrupted".into(), Value::Bool(true));
        }
    }
    if let Some(kept) = kept {
        let name = args.output.as_ref().map_or_else(|| "standard output".to_owned(), |p| p.display().to_string());
        let mut report = prompty_results::Run::from_keyed(name, kept.into_iter().map(|(key, line)| (Some(key), line)));
        report.meta.prompts = files.clone();
        report.meta.when = Some(crate::results::rfc3339(std::time::SystemTime::now()));
        report.meta.cost = json.get("cost").and_then(Value::as_f64);
        crate::results::add_inputs(&mut report, data, secrets)?;
        for (kind, mut f) in report_files.drain(..) {
            let text = match kind {
                "report" => prompty_results::html::single(&report),
                _ => prompty_results::junit::junit(&report),
            };
            f.write_all(text.as_bytes())?;
            f.commit()?;
        }
    }
    for s in secrets {
        s.redact_json(&mut json);
    }
    if let Some(mut f) = summary_file.take() {
        serde_json::to_writer_pretty(&mut f, &json)?;
        f.write_all(b"\n")?;
        f.commit()?;
    }
    if !single && let Some(r) = &requests {
        tables.push_str(&format!("requests  {} sent, {} retried, {} from cache\n", r.sent, r.retried, r.cached));
    }
    for s in secrets {
        s.redact_string(&mut tables);
    }
    let mut stderr = std::io::stderr().lock();
    write!(stderr, "{tables}")?;
    for g in &failed_gates {
        writeln!(stderr, "gate failed: {g}")?;
    }
    let rows = summaries.first().map_or(0, |(_, s)| s.rows());
    if interrupted {
        writeln!(stderr, "interrupted: {rows} row(s) written; run again with the same --cache to send only the rest")?;
        return Ok(EvalStatus::Interrupted);
    }
    let errors: u64 = summaries.iter().map(|(_, s)| s.error_count()).sum();
    Ok(if errors == 0 && failed_gates.is_empty() { EvalStatus::Passed } else { EvalStatus::Failed })
}

/// `--answers`: one answer line per data row for each evaluator, read side by side
/// ([`Suite::recorded`], which counts each row in the summaries).
fn from_answers(prompts: &[&Prompt], rows: Lines, answers: &[PathBuf], sink: &mut Sink<'_>) -> Result<(), Failure> {
    let answers = answers.iter().map(|a| open_lines(a)).collect::<Result<Vec<_>, _>>()?;
    let keys: Vec<String> = sink.suite.keys().into_iter().map(str::to_owned).collect();
    let output = &mut sink.output;
    let mut recorded = sink.suite.recorded(prompts, rows, answers);
    let none = vec![false; prompts.len()];
    for results in recorded.by_ref() {
        output.emit(&results?, &none)?;
    }
    let (data, names) = recorded.names();
    for (key, extra) in recorded.extra_answers() {
        let file = keys.iter().position(|k| k == key).and_then(|i| names.get(i)).copied().unwrap_or_default();
        output.error(&format!(
            "{file} has {} more line(s) than {data} (from line {}); they were not evaluated",
            extra.count, extra.first
        ));
    }
    Ok(())
}
