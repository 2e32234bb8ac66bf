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
mod migrate;
mod new;
mod report;
mod results;
mod rule;
mod run;
mod snapshot;
mod stored;
mod summary;
mod tokens;

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
    after_help = "Every diagnostic has a code (PL001, P016, ...): `prompty rule CODE` prints its documentation, offline.\n\nExit status: 0 success; 1 findings (check), a failed request (run), error rows or a failed gate (eval, batch); 2 usage or I/O failure; 130 interrupted."
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
        /// The .prompty file; `-` reads it from standard input.
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
        /// The .prompty file; `-` reads it from standard input.
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
        /// The model is a reasoning model (azure-ai-evaluation's `is_reasoning_model`):
        /// temperature, top_p and the penalties are dropped, and `max_tokens` becomes
        /// `max_completion_tokens` (60000 for v1 prompts, as the reference sets it).
        #[arg(long)]
        reasoning_model: bool,
    },
    /// Render prompts with their input cases and compare with the reviewed snapshot files.
    Snapshot(snapshot::SnapshotArgs),
    /// Print the JSON Schema of the front matter (for editors: yaml-language-server).
    Schema,
    /// Write a new v2 prompt, NAME.prompty, to start from (`prompty check` passes it).
    New(new::NewArgs),
    /// Print the completion script of a shell: `prompty completions bash > /etc/bash_completion.d/prompty`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff): `prompty man > prompty.1 && man ./prompty.1`.
    Man,
    /// Print a code's documentation (what it reports, why, an example, the fix and whether
    /// it is safe), offline; `--all` prints every lint rule's.
    Rule(rule::RuleArgs),
    /// Put front matter keys in canonical order and spell role lines canonically (in place).
    Fmt(fmt::FmtArgs),
    /// Rewrite v1 (promptflow) files to the v2 spec, only when the new file renders the same
    /// messages (in place; --diff/--check change nothing).
    Migrate(migrate::MigrateArgs),
    /// Run the language server on standard input and output (for editors).
    Lsp(lsp::LspArgs),
    /// Render a prompt to chat messages.
    Render {
        /// The .prompty file; `-` reads it from standard input.
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
        /// Fail (exit 1, nothing printed) when a variable no input declares has no value and
        /// would render as empty text; without it, a warning says so.
        #[arg(long)]
        strict: bool,
        /// Render with the values the editor preview uses: a v1 file's `sample:`, and each
        /// input's `example` when it has no default (values given with --set/--inputs win).
        #[arg(long)]
        sample: bool,
        /// Count the tokens of each message and of the request for the prompt's model:
        /// exact for the OpenAI model families, an estimate (labelled) for others.
        #[arg(long, conflicts_with = "raw")]
        tokens: bool,
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
    /// Everything is reported already; the command ends with this exit code.
    Reported(u8),
}

impl Failure {
    /// The failure as text, one problem per line (`file:line:col: message [CODE]`).
    pub(crate) fn text(&self) -> String {
        match self {
            Failure::Message(m) => m.clone(),
            Failure::Diagnostics(ds) => ds.iter().map(Message::one_line).collect::<Vec<_>>().join("\n"),
            Failure::BrokenPipe => "standard output was closed".to_owned(),
            Failure::Reported(code) => format!("failed with exit code {code}"),
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
        Command::Migrate(args) => return migrate::run(&args),
        Command::Lsp(args) => return lsp::run(&args),
        Command::Rule(args) => return rule::run(&args),
        Command::New(args) => return new::run(&args),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut command, "prompty", &mut out);
            std::io::stdout().lock().write_all(&out).map_err(Failure::from)
        }
        Command::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
                .render(&mut out)
                .map_err(Failure::from)
                .and_then(|()| std::io::stdout().lock().write_all(&out).map_err(Failure::from))
        }
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
        Command::Render { file, inputs, load, format, raw, strict, sample, tokens } => {
            cmd_render(&file, &inputs, &load, RenderFlags { format, raw, strict, sample, tokens }, reporter)
        }
        Command::Compile { file, inputs, load, provider, api, model, reasoning_model } => {
            let target = Overrides { provider: provider.as_deref(), api: api.as_deref(), model, reasoning_model };
            cmd_compile(&file, &inputs, &load, target, reporter)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stops early (`| head`) is not an error.
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Reported(code)) => ExitCode::from(code),
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
    let bytes = if is_stdin(file) {
        // `-`: the prompt comes on standard input, size-capped as a file is.
        inputs::read_limited(std::io::stdin().lock()).map_err(|e| Failure::Message(format!("standard input: {e}")))?
    } else {
        read_source(file, host).map_err(|e| Failure::Message(e.to_string()))?
    };
    let options = LoadOptions { path: prompt_path(file), lint, ..load.options() };
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

/// Whether `file` is `-`: the prompt is read from standard input.
pub(crate) fn is_stdin(file: &Path) -> bool {
    file.as_os_str() == "-"
}

/// The path the loader resolves `${file:}` references from: none for standard input (the
/// current folder is used).
fn prompt_path(file: &Path) -> Option<PathBuf> {
    (!is_stdin(file)).then(|| file.to_path_buf())
}

/// Refuses `-` for both the prompt and `--inputs`: standard input holds one of them.
fn one_stdin(file: &Path, inputs: &InputArgs) -> Result<(), Failure> {
    if is_stdin(file) && inputs.reads_stdin() {
        return Err(Failure::Message(
            "standard input holds the prompt (`-`) or the inputs (`--inputs -`), not both; put the inputs in a file"
                .to_owned(),
        ));
    }
    Ok(())
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

/// How `render` renders and what it prints.
struct RenderFlags {
    format: Option<RenderFormat>,
    raw: bool,
    strict: bool,
    sample: bool,
    tokens: bool,
}

fn cmd_render(
    file: &Path,
    inputs: &InputArgs,
    load: &LoadArgs,
    flags: RenderFlags,
    reporter: &Reporter,
) -> Result<(), Failure> {
    one_stdin(file, inputs)?;
    // A preview needs no connection: an unset `${env:}` value stays `${env:NAME}`.
    let (prompt, text) = load_prompt_with(file, load, &cli_host(), true)?;
    let given = inputs.collect(&prompt)?;
    let renderer = Renderer::with_options(prompt, load.render_options(text.clone()))
        .map_err(|e| render_failure(file, &text, &e))?;
    warn_undeclared(file, renderer.prompt(), &given);
    let values = if flags.sample { sample_inputs(renderer.prompt(), &given) } else { given.clone() };
    if !flags.sample {
        note_sample(file, renderer.prompt(), &given);
    }
    let format =
        flags.format.unwrap_or(if std::io::stdout().is_terminal() { RenderFormat::Text } else { RenderFormat::Json });
    // Rendered before anything is printed: `--strict` prints nothing when it fails.
    let output = if flags.raw {
        let rendered = renderer.render_text(&values).map_err(|e| render_failure(file, &text, &e))?;
        match format {
            RenderFormat::Json => format!("{}\n", serde_json::Value::String(rendered)),
            RenderFormat::Text => rendered,
        }
    } else {
        let messages = renderer.prepare(&values).map_err(|e| render_failure(file, &text, &e))?;
        let counts = flags.tokens.then(|| tokens::Counts::new(renderer.prompt(), &messages));
        match (format, counts) {
            (RenderFormat::Json, None) => format!("{}\n", serde_json::to_string_pretty(&messages)?),
            (RenderFormat::Json, Some(counts)) => {
                format!("{}\n", serde_json::to_string_pretty(&counts.json(&messages)?)?)
            }
            (RenderFormat::Text, None) => prompty_render::messages_to_text(&messages),
            (RenderFormat::Text, Some(counts)) => {
                format!("{}\n{}", prompty_render::messages_to_text(&messages), counts.text())
            }
        }
    };
    // Only a template that reads a name with no input and no value can have rendered one
    // as empty text: the linter's closer look is needed then only.
    let declared =
        |name: &String| values.contains_key(name) || renderer.prompt().inputs.iter().flatten().any(|p| &p.name == name);
    if !renderer.template_variables().iter().all(declared)
        && !rendered_empty(file, &text, load, &values, flags.strict, reporter)
    {
        return Err(Failure::Reported(1));
    }
    std::io::stdout().lock().write_all(output.as_bytes())?;
    Ok(())
}

/// The values the editor preview renders with: a v1 file's `sample:` (promptflow reads it
/// as the inputs), the given values over it, then each input's `example` where it has
/// neither a value nor a default.
fn sample_inputs(
    prompt: &Prompt,
    given: &serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut values = serde_json::Map::new();
    if prompt.profile == Profile::Promptflow
        && let Some(sample) = prompt.legacy.as_ref().and_then(|l| l.sample.as_ref()).and_then(|s| s.as_object())
    {
        values.extend(sample.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    values.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
    for p in prompt.inputs.iter().flatten() {
        if !values.contains_key(&p.name)
            && p.default.is_none()
            && let Some(example) = &p.example
        {
            values.insert(p.name.clone(), example.clone());
        }
    }
    values
}

/// Says which inputs have an `example` (a v1 input's `sample:`) that this render leaves
/// out, having neither a value nor a default: `--sample` renders with them, as the editor
/// preview does.
fn note_sample(file: &Path, prompt: &Prompt, given: &serde_json::Map<String, serde_json::Value>) {
    // A v1 file's top-level `sample:` stands in for every input when none is given, and
    // is left out entirely when some are (as promptflow does).
    let top_sample = prompt.legacy.as_ref().and_then(|l| l.sample.as_ref()).and_then(serde_json::Value::as_object);
    if let Some(sample) = top_sample.filter(|_| prompt.profile == Profile::Promptflow) {
        if given.is_empty() {
            return;
        }
        if sample.keys().any(|k| !given.contains_key(k)) {
            eprintln!(
                "note: {}: the file's `sample:` is not used when inputs are given (as promptflow does); `--sample` renders with it under the given values",
                file.display()
            );
        }
    }
    let left: Vec<String> = prompt
        .inputs
        .iter()
        .flatten()
        .filter(|p| p.example.is_some() && p.default.is_none() && !given.contains_key(&p.name))
        .map(|p| format!("`{}`", prompt.secrets.show(&p.name)))
        .collect();
    if !left.is_empty() {
        eprintln!(
            "note: {}: {} {} an example (v1: `sample`) and no value; `--sample` renders with the examples, as the editor preview does",
            file.display(),
            left.join(", "),
            if left.len() == 1 { "has" } else { "have" }
        );
    }
}

/// Reports each variable no input declares that has no value in `values`, and so renders
/// as empty text: a warning, or with `strict` an error. Returns whether rendering goes on.
fn rendered_empty(
    file: &Path,
    text: &Arc<str>,
    load: &LoadArgs,
    values: &serde_json::Map<String, serde_json::Value>,
    strict: bool,
    reporter: &Reporter,
) -> bool {
    let options = LoadOptions { path: prompt_path(file), lint: true, ..load.options() };
    let loaded = load_bytes(text.as_bytes(), &cli_host(), &options);
    let empty: Vec<_> = prompty_lint::undeclared_variables(text, &loaded)
        .into_iter()
        .filter(|v| !values.contains_key(&v.name))
        .collect();
    let Some(code) = prompty_lint::rule("PL001").map(|r| r.code) else { return true };
    let severity = if strict { prompty_syntax::Severity::Error } else { prompty_syntax::Severity::Warning };
    for v in &empty {
        let d = prompty_syntax::Diagnostic::new(
            code,
            severity,
            v.span.clone(),
            format!("`{}` is read by the template but no input declares it: it rendered as empty text", v.name),
        )
        .with_help(format!(
            "declare it under `inputs:`, or give it a value (--set {}=...); `prompty check` reports it too",
            v.name
        ));
        reporter.emit(&report::at(file, text, d));
    }
    !strict || empty.is_empty()
}

fn cmd_compile(
    file: &Path,
    inputs: &InputArgs,
    load: &LoadArgs,
    overrides: Overrides<'_>,
    reporter: &Reporter,
) -> Result<(), Failure> {
    let Overrides { provider, api, model, reasoning_model } = overrides;
    one_stdin(file, inputs)?;
    let (renderer, text) = load_renderer(file, load)?;
    let given = inputs.collect(renderer.prompt())?;
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
    let target = target.with_reasoning_model(reasoning_model);
    let compiled = prompty_wire::compile(renderer.prompt(), &messages, target).map_err(|e| wire_failure(file, &e))?;
    reporter.wire_warnings(file, &compiled.warnings);
    print_json(&compiled.body)
}

/// What `compile` overrides of the prompt's model.
struct Overrides<'a> {
    provider: Option<&'a str>,
    api: Option<&'a str>,
    model: Option<String>,
    reasoning_model: bool,
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
