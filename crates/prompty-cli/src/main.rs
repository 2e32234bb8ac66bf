//! `prompty`: lint, load, render and compile `.prompty` files.

mod batch;
mod check;
mod compare;
mod eval;
mod files;
mod fmt;
mod host;
mod http;
mod inputs;
mod live;
mod lsp;
mod report;
mod results;
mod run;
mod snapshot;
mod stored;
mod summary;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use prompty_render::{RenderOptions, Renderer};
use prompty_syntax::{LoadOptions, Profile, ProfileChoice, Prompt, load_bytes, read_source};

use crate::host::cli_host;
use crate::inputs::InputArgs;
use crate::report::{Message, Reporter};

/// Exit code for usage and I/O failures (and files that cannot be used).
const EXIT_FAILURE: u8 = 2;

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

#[derive(Parser)]
#[command(
    name = "prompty",
    version,
    about = "Lint, render, compile and run .prompty files",
    long_about = None,
    after_help = "Exit status: 0 success; 1 findings (check), a failed request (run), error rows or a failed gate (eval, batch); 2 usage or I/O failure; 130 interrupted."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check files and folders (recursively, *.prompty) and report every problem.
    Check(check::CheckArgs),
    /// Print the normalized prompt as JSON (spec field names).
    Load {
        /// The .prompty file.
        file: PathBuf,
        #[command(flatten)]
        load: LoadArgs,
    },
    /// Score one judge answer with an evaluator prompt; prints the evaluation as JSON.
    Score(eval::ScoreArgs),
    /// Score data rows with a judge prompt: recorded answers, a live judge or provider
    /// batch results; `eval compare A B` compares two runs.
    Eval(Box<eval::EvalArgs>),
    /// Write an evaluation report of `eval` results: one self-contained HTML page (two
    /// result files: compared) and JUnit XML.
    Report(results::ReportArgs),
    /// Compile a prompt, send it to the model and print the result.
    Run(run::RunArgs),
    /// Write the provider's batch input file (OpenAI Batch, Anthropic Message Batches)
    /// for a prompt and a data file.
    Batch(batch::BatchArgs),
    /// Compile a prompt to the provider request body (ready for `curl --data @-`).
    Compile {
        /// The .prompty file.
        file: PathBuf,
        #[command(flatten)]
        inputs: InputArgs,
        #[command(flatten)]
        load: LoadArgs,
        /// The provider (default: the prompt's `model.provider`, else openai).
        #[arg(long, value_parser = ["openai", "azure", "foundry", "anthropic"])]
        provider: Option<String>,
        /// The API (default: the prompt's `model.apiType`, else chat).
        #[arg(long, value_parser = ["chat", "responses", "embedding", "image"])]
        api: Option<String>,
        /// The model or deployment id (overrides the prompt's).
        #[arg(long)]
        model: Option<String>,
    },
    /// Render prompts with their input cases and compare with the reviewed snapshot files.
    Snapshot(snapshot::SnapshotArgs),
    /// Print the JSON Schema of the front matter (for editors: yaml-language-server).
    Schema,
    /// Put front matter keys in canonical order and spell role lines canonically (in place).
    Fmt(fmt::FmtArgs),
    /// Run the language server on standard input and output (for editors).
    Lsp(lsp::LspArgs),
    /// Render a prompt to chat messages.
    Render {
        /// The .prompty file.
        file: PathBuf,
        #[command(flatten)]
        inputs: InputArgs,
        #[command(flatten)]
        load: LoadArgs,
        /// Output: readable text with role headers (default on a terminal) or canonical JSON.
        #[arg(long, value_enum)]
        format: Option<RenderFormat>,
        /// Print the rendered text before the role split.
        #[arg(long)]
        raw: bool,
    },
}

/// Options shared by every command that loads one prompt.
#[derive(clap::Args, Clone)]
pub(crate) struct LoadArgs {
    /// Render like this reference engine; `auto` detects v1 files.
    #[arg(long, value_enum, default_value_t = ProfileArg::Auto)]
    profile: ProfileArg,
    /// Another folder `${file:}` references may read from (repeatable).
    #[arg(long = "allow-root", value_name = "DIR")]
    allow_roots: Vec<PathBuf>,
    /// How errors and warnings are written on standard error: human (default), json (one
    /// object per line), github (workflow annotations) or sarif (SARIF 2.1.0).
    #[arg(long, value_enum, default_value_t = report::Format::Human)]
    pub(crate) error_format: report::Format,
    /// Fail to load when a `${env:}` variable of the connection settings (endpoint, API
    /// key) is unset. Without it such a variable is needed only when a request is sent.
    #[arg(long)]
    require_env: bool,
    /// Allow only these roles in the messages of thread inputs (comma-separated, e.g.
    /// `user,assistant`); a thread message with another role is refused. By default a
    /// thread may carry any role.
    #[arg(long, value_name = "ROLE,...", value_delimiter = ',')]
    thread_roles: Option<Vec<String>>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProfileArg {
    Auto,
    Spec,
    Promptflow,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum RenderFormat {
    Text,
    Json,
}

impl LoadArgs {
    fn options(&self) -> LoadOptions {
        LoadOptions {
            path: None,
            allowed_roots: self.allow_roots.clone(),
            lint: false,
            profile: match self.profile {
                ProfileArg::Auto => ProfileChoice::Auto,
                ProfileArg::Spec => ProfileChoice::Force(Profile::Spec),
                ProfileArg::Promptflow => ProfileChoice::Force(Profile::Promptflow),
            },
            require_env: self.require_env,
        }
    }

    /// The render options these arguments give, for the file whose text is `source`.
    pub(crate) fn render_options(&self, source: Arc<str>) -> RenderOptions {
        let thread_roles = self.thread_roles.as_ref().map(|roles| roles.iter().map(|r| r.trim().to_owned()).collect());
        RenderOptions { source: Some(source), thread_roles, ..Default::default() }
    }
}

/// A failure that ends the command: reported on stderr, exit code 2.
pub(crate) enum Failure {
    /// Something that is no diagnostic: a file that cannot be read, a bad flag.
    Message(String),
    /// Diagnostics with stable codes: the prompt cannot be loaded, rendered or compiled.
    Diagnostics(Vec<Message>),
    /// The reader of standard output went away (`| head`): not an error.
    BrokenPipe,
}

impl Failure {
    /// The failure as text, one problem per line (`file:line:col: message [CODE]`).
    pub(crate) fn text(&self) -> String {
        match self {
            Failure::Message(m) => m.clone(),
            Failure::Diagnostics(ds) => ds.iter().map(Message::one_line).collect::<Vec<_>>().join("\n"),
            Failure::BrokenPipe => "standard output was closed".to_owned(),
        }
    }

    /// One diagnostic as a failure.
    pub(crate) fn diagnostic(message: Message) -> Self {
        Failure::Diagnostics(vec![message])
    }
}

/// Whether an error is a write to a closed pipe, by its `io::ErrorKind` (JSON writers wrap
/// the I/O error).
fn is_broken_pipe(e: &dyn std::any::Any) -> bool {
    let kind = match (e.downcast_ref::<std::io::Error>(), e.downcast_ref::<serde_json::Error>()) {
        (Some(io), _) => Some(io.kind()),
        (None, Some(json)) => json.io_error_kind(),
        (None, None) => None,
    };
    kind == Some(std::io::ErrorKind::BrokenPipe)
}

impl<T: std::fmt::Display + 'static> From<T> for Failure {
    fn from(e: T) -> Self {
        if is_broken_pipe(&e) { Failure::BrokenPipe } else { Failure::Message(e.to_string()) }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let reporter = Reporter::new(cli.command.load_args().map_or(report::Format::Human, |load| load.error_format));
    let code = dispatch(cli.command, &reporter);
    reporter.finish();
    code
}

impl Command {
    /// The options of a command that loads one prompt.
    fn load_args(&self) -> Option<&LoadArgs> {
        match self {
            Command::Load { load, .. } | Command::Render { load, .. } | Command::Compile { load, .. } => Some(load),
            Command::Score(args) => Some(&args.load),
            Command::Eval(args) => Some(&args.load),
            Command::Run(args) => Some(&args.load),
            Command::Batch(args) => Some(&args.load),
            _ => None,
        }
    }
}

fn dispatch(command: Command, reporter: &Reporter) -> ExitCode {
    let result = match command {
        Command::Check(args) => return check::run(&args),
        Command::Score(args) => eval::run_score(&args),
        Command::Snapshot(args) => return snapshot::run(&args),
        Command::Fmt(args) => return fmt::run(&args),
        Command::Lsp(args) => return lsp::run(&args),
        Command::Schema => {
            print_json(&prompty_syntax::front_matter_schema_with(&[("evaluator", prompty_eval::evaluator_schema())]))
        }
        Command::Eval(args) => match eval::run_eval(&args, reporter) {
            Ok(eval::EvalStatus::Passed) => Ok(()),
            Ok(eval::EvalStatus::Failed) => return ExitCode::from(1),
            Ok(eval::EvalStatus::Interrupted) => return ExitCode::from(EXIT_INTERRUPTED),
            Err(e) => Err(e),
        },
        Command::Report(args) => results::run(&args),
        Command::Batch(args) => match batch::run(&args, reporter) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
        Command::Run(args) => match run::run(&args, reporter) {
            Ok(()) => Ok(()),
            Err(run::RunFailure::Usage(e)) => Err(e),
            Err(run::RunFailure::Request(message)) => {
                let d = prompty_syntax::Diagnostic::error(prompty_client::codes::REQUEST_FAILED, 0..0, message);
                reporter.emit(&report::whole(&args.file, d));
                return ExitCode::from(1);
            }
        },
        Command::Load { file, load } => cmd_load(&file, &load),
        Command::Render { file, inputs, load, format, raw } => cmd_render(&file, &inputs, &load, format, raw),
        Command::Compile { file, inputs, load, provider, api, model } => {
            cmd_compile(&file, &inputs, &load, provider.as_deref(), api.as_deref(), model, reporter)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stops early (`| head`) is not an error.
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Message(message)) => {
            reporter.fail(&message);
            ExitCode::from(EXIT_FAILURE)
        }
        Err(Failure::Diagnostics(diagnostics)) => {
            for d in &diagnostics {
                reporter.emit(d);
            }
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

/// Loads a prompt for a command: any error-level diagnostic ends the command.
pub(crate) fn load_prompt(file: &Path, load: &LoadArgs) -> Result<(Prompt, Arc<str>), Failure> {
    load_prompt_with(file, load, &cli_host(), false)
}

/// [`load_prompt`] with another host; `lint` makes an unset `${env:}` variable a warning
/// (the value stays as written).
pub(crate) fn load_prompt_with(
    file: &Path,
    load: &LoadArgs,
    host: &dyn prompty_syntax::Host,
    lint: bool,
) -> Result<(Prompt, Arc<str>), Failure> {
    let bytes = read_source(file, host).map_err(|e| Failure::Message(e.to_string()))?;
    let options = LoadOptions { path: Some(file.to_path_buf()), lint, ..load.options() };
    let loaded = load_bytes(&bytes, host, &options);
    let text: Arc<str> = Arc::from(String::from_utf8_lossy(&bytes));
    let errors: Vec<Message> =
        loaded.diagnostics.into_iter().filter(|d| d.is_error()).map(|d| report::at(file, &text, d)).collect();
    match loaded.prompt {
        Some(prompt) if errors.is_empty() => Ok((prompt, text)),
        _ if errors.is_empty() => Err(Failure::Message(format!("{}: cannot be loaded as a prompt", file.display()))),
        _ => Err(Failure::Diagnostics(errors)),
    }
}

fn cmd_load(file: &Path, load: &LoadArgs) -> Result<(), Failure> {
    let (prompt, _) = load_prompt(file, load)?;
    // Values from `${env:}` are secret: shown as `${env:NAME}`.
    print_json(&serde_json::to_value(prompt.redacted())?)
}

fn print_json(value: &serde_json::Value) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

fn cmd_render(
    file: &Path,
    inputs: &InputArgs,
    load: &LoadArgs,
    format: Option<RenderFormat>,
    raw: bool,
) -> Result<(), Failure> {
    let given = inputs.collect()?;
    // A preview needs no connection: an unset `${env:}` value stays `${env:NAME}`.
    let (prompt, text) = load_prompt_with(file, load, &cli_host(), true)?;
    let renderer = Renderer::with_options(prompt, load.render_options(text.clone()))
        .map_err(|e| render_failure(file, &text, &e))?;
    warn_undeclared(file, renderer.prompt(), &given);
    let format =
        format.unwrap_or(if std::io::stdout().is_terminal() { RenderFormat::Text } else { RenderFormat::Json });
    let mut out = std::io::stdout().lock();
    if raw {
        let rendered = renderer.render_text(&given).map_err(|e| render_failure(file, &text, &e))?;
        match format {
            RenderFormat::Json => writeln!(out, "{}", serde_json::Value::String(rendered))?,
            RenderFormat::Text => write!(out, "{rendered}")?,
        }
        return Ok(());
    }
    let messages = renderer.prepare(&given).map_err(|e| render_failure(file, &text, &e))?;
    match format {
        RenderFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &messages)?;
            writeln!(out)?;
        }
        RenderFormat::Text => write!(out, "{}", prompty_render::messages_to_text(&messages))?,
    }
    Ok(())
}

fn cmd_compile(
    file: &Path,
    inputs: &InputArgs,
    load: &LoadArgs,
    provider: Option<&str>,
    api: Option<&str>,
    model: Option<String>,
    reporter: &Reporter,
) -> Result<(), Failure> {
    let given = inputs.collect()?;
    let (renderer, text) = load_renderer(file, load)?;
    warn_undeclared(file, renderer.prompt(), &given);
    let messages = renderer.prepare(&given).map_err(|e| render_failure(file, &text, &e))?;
    let mut target = prompty_wire::Target::new();
    if let Some(p) = provider {
        target = target.with_provider(p.parse().map_err(|e| Failure::Message(format!("--provider: {e}")))?);
    }
    if let Some(a) = api {
        target = target.with_api(a.parse().map_err(|e| Failure::Message(format!("--api: {e}")))?);
    }
    if let Some(m) = model {
        target = target.with_model(m);
    }
    let compiled = prompty_wire::compile(renderer.prompt(), &messages, target).map_err(|e| wire_failure(file, &e))?;
    reporter.wire_warnings(file, &compiled.warnings);
    print_json(&compiled.body)
}

/// Loads a prompt and compiles its template; errors name the file, line and column.
pub(crate) fn load_renderer(file: &Path, load: &LoadArgs) -> Result<(Renderer, Arc<str>), Failure> {
    let (prompt, text) = load_prompt(file, load)?;
    let renderer = Renderer::with_options(prompt, load.render_options(text.clone()))
        .map_err(|e| render_failure(file, &text, &e))?;
    Ok((renderer, text))
}

/// Warns (on stderr) about given inputs the prompt does not declare: a typo would otherwise
/// render silently without the value.
pub(crate) fn warn_undeclared(file: &Path, prompt: &Prompt, given: &serde_json::Map<String, serde_json::Value>) {
    // A suggestion compares a name with every declared input: the first few warnings get
    // one, and the list of declared names is shortened, so the cost stays linear.
    const SUGGESTED: usize = 100;
    const LISTED: usize = 20;
    let Some(declared) = prompt.inputs.as_deref() else { return };
    let names: Vec<&str> = declared.iter().map(|p| p.name.as_str()).collect();
    // A name that came from `${env:}` is shown as its reference and never suggested.
    let secrets = &prompt.secrets;
    let public: Vec<&str> = names.iter().copied().filter(|n| !secrets.contains(n)).collect();
    let known: std::collections::HashSet<&str> = names.iter().copied().collect();
    let mut listed = names.iter().take(LISTED).map(|n| secrets.show(n).into_owned()).collect::<Vec<_>>().join(", ");
    if names.len() > LISTED {
        listed.push_str(&format!(", ... ({} in all)", names.len()));
    }
    let mut err = std::io::stderr().lock();
    for (i, name) in given.keys().filter(|k| !known.contains(k.as_str())).enumerate() {
        let suggestion = if i < SUGGESTED { prompty_syntax::did_you_mean(name, &public) } else { None };
        let hint = match suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("declared: {listed}"),
        };
        let _ = writeln!(err, "warning: {}: input `{name}` is not declared by the prompt; {hint}", file.display());
    }
}

/// A render error, located in the file when it comes from the template.
pub(crate) fn render_failure(file: &Path, text: &Arc<str>, e: &prompty_render::Error) -> Failure {
    Failure::diagnostic(match e.span() {
        Some(_) => report::at(file, text, e.to_diagnostic()),
        None => report::whole(file, e.to_diagnostic()),
    })
}

/// A request that cannot be compiled (or a response that cannot be read) for the prompt.
pub(crate) fn wire_failure(file: &Path, e: &prompty_wire::Error) -> Failure {
    Failure::diagnostic(report::whole(file, e.to_diagnostic()))
}
