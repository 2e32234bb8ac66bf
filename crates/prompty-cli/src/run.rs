//! `prompty run`: compile a prompt, send it, process the answer, print the result.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::ValueEnum;
use prompty_client::retry::RetryPolicy;
use prompty_client::stream::{Assembler, SseDecoder};
use prompty_client::{Endpoint, Settings};
use prompty_render::Renderer;
use prompty_wire::{Api, Compiled, Output, ProcessResult, ResultFormat, Target};
use serde_json::{Map, Value};

use crate::host::cli_host;
use crate::http::{SendError, Transport};
use crate::inputs::InputArgs;
use crate::{Failure, LoadArgs, load_renderer, render_failure, warn_undeclared, wire_failure};

/// Where a prompt is sent: shared by `run`, `eval --judge` and `batch`.
#[derive(clap::Args, Clone, Default)]
pub(crate) struct TargetArgs {
    /// The provider (default: the prompt's `model.provider`, else openai).
    #[arg(long, value_parser = ["openai", "azure", "foundry", "anthropic"])]
    pub(crate) provider: Option<String>,
    /// The endpoint: an OpenAI-compatible server up to `/v1` (http://localhost:11434/v1
    /// for Ollama), an Azure resource, or an Anthropic host. Default: OPENAI_BASE_URL,
    /// AZURE_OPENAI_ENDPOINT or ANTHROPIC_BASE_URL, then the prompt's connection.
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// The model or deployment id (overrides the prompt's).
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// Let the prompt send this environment variable as its key (`apiKey: ${env:NAME}`);
    /// without it only the provider's own key variable is sent (repeatable; also
    /// `[run] allow-key-vars` in prompty.toml).
    #[arg(long = "allow-key-var", value_name = "NAME")]
    pub(crate) allow_key_vars: Vec<String>,
    /// The model is a reasoning model (azure-ai-evaluation's `is_reasoning_model`): the
    /// request drops temperature, top_p and the penalties, and `max_tokens` becomes
    /// `max_completion_tokens` (60000 for v1 prompts, as the reference sets it).
    #[arg(long)]
    pub(crate) reasoning_model: bool,
}

impl TargetArgs {
    /// The compile target.
    pub(crate) fn target(&self) -> Result<Target, Failure> {
        let mut target = Target::new();
        if let Some(p) = &self.provider {
            target = target.with_provider(p.parse().map_err(|e| Failure::Message(format!("--provider: {e}")))?);
        }
        if let Some(m) = &self.model {
            target = target.with_model(m.clone());
        }
        Ok(target.with_reasoning_model(self.reasoning_model))
    }

    /// What the user says about the endpoint: the command line, and `[run]` of the
    /// prompty.toml found from the current folder (never one beside the prompt, which could
    /// come with the prompt).
    pub(crate) fn settings(&self, provider: prompty_wire::Provider) -> Result<Settings, Failure> {
        let mut allowed = Vec::new();
        for name in &self.allow_key_vars {
            if !prompty_config::is_variable_name(name) {
                return Err(Failure::Message(format!(
                    "--allow-key-var `{name}`: not an environment variable name (letters, digits and `_`)"
                )));
            }
            allowed.push(name.clone());
        }
        let host = cli_host();
        let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        if let Some(path) = prompty_config::Configs::default().find(&here.join(prompty_config::FILE_NAME), &host) {
            let config = prompty_config::Config::load(&path, &host)
                .map_err(|e| Failure::Message(format!("{e} [{}]", e.code().id)))?;
            allowed.extend(config.allowed_key_vars().iter().cloned());
        }
        Ok(Settings { provider: Some(provider), base_url: self.base_url.clone(), allowed_key_vars: allowed })
    }

    /// The endpoint of a compiled request, checked against the trust policy.
    pub(crate) fn endpoint(&self, file: &Path, renderer: &Renderer, compiled: &Compiled) -> Result<Endpoint, Failure> {
        let settings = self.settings(compiled.provider)?;
        let endpoint =
            prompty_client::resolve(renderer.prompt(), &settings, &cli_host()).map_err(|e| client_failure(file, &e))?;
        if let Some(var) = &endpoint.missing_key {
            eprintln!(
                "warning: {}: the prompt's API key is `${{env:{var}}}`, and {var} is not set: requests go without a key",
                file.display()
            );
        }
        Ok(endpoint)
    }
}

/// Retries and timeouts: shared by `run` and `eval --judge`.
#[derive(clap::Args, Clone)]
pub(crate) struct SendArgs {
    /// Retries of a request answered 408, 409, 429 or 5xx, or not answered (jittered
    /// exponential backoff; `Retry-After` is honoured).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub(crate) max_retries: u32,
    /// Seconds one request may take, answer included.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    pub(crate) timeout: f64,
}

impl SendArgs {
    pub(crate) fn transport(&self) -> Result<Transport, Failure> {
        if !(self.timeout.is_finite() && self.timeout > 0.0 && self.timeout <= 86_400.0) {
            return Err(Failure::Message(format!("--timeout {}: expected a number of seconds above 0", self.timeout)));
        }
        let policy = RetryPolicy { max_retries: self.max_retries, ..RetryPolicy::default() };
        Transport::new(Duration::from_secs_f64(self.timeout), policy).map_err(Failure::Message)
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum RunFormat {
    /// The result: text as is, anything else as JSON.
    Text,
    /// `{output, finish_reason, usage, model, id}`.
    Json,
}

#[derive(clap::Args)]
#[command(
    after_help = "Endpoint: --base-url, else OPENAI_BASE_URL / AZURE_OPENAI_ENDPOINT / ANTHROPIC_BASE_URL, else the prompt's model.connection.endpoint (refused unless listed in PROMPTY_TRUSTED_ENDPOINTS), else the provider's public API.\nKeys: OPENAI_API_KEY, AZURE_OPENAI_API_KEY, ANTHROPIC_API_KEY, or the prompt's connection key (a `${env:NAME}` key other than the provider's own only with --allow-key-var NAME).\nExit status: 0 success; 1 the request failed (after retries) or the answer could not be read; 2 usage or I/O failure."
)]
pub(crate) struct RunArgs {
    /// The .prompty file.
    pub(crate) file: PathBuf,
    #[command(flatten)]
    inputs: InputArgs,
    #[command(flatten)]
    pub(crate) load: LoadArgs,
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    send: SendArgs,
    /// Output (default: text). Text results stream as they arrive on a terminal.
    #[arg(long, value_enum, default_value_t = RunFormat::Text)]
    format: RunFormat,
}

/// Why `run` failed: the command could not start (exit 2), or the request failed (exit 1).
/// A client error about the prompt `file`, with its code.
pub(crate) fn client_failure(file: &Path, e: &prompty_client::Error) -> Failure {
    Failure::diagnostic(crate::report::whole(file, e.to_diagnostic()))
}

pub(crate) enum RunFailure {
    Usage(Failure),
    Request(String),
}

impl From<Failure> for RunFailure {
    fn from(f: Failure) -> Self {
        RunFailure::Usage(f)
    }
}

pub(crate) fn run(args: &RunArgs, reporter: &crate::report::Reporter) -> Result<(), RunFailure> {
    let (renderer, text) = load_renderer(&args.file, &args.load)?;
    let given = args.inputs.collect(renderer.prompt())?;
    warn_undeclared(&args.file, renderer.prompt(), &given);
    let messages = renderer.prepare(&given).map_err(|e| render_failure(&args.file, &text, &e))?;
    let compiled = prompty_wire::compile(renderer.prompt(), &messages, args.target.target()?)
        .map_err(|e| wire_failure(&args.file, &e))?;
    reporter.wire_warnings(&args.file, &compiled.warnings);
    let endpoint = args.target.endpoint(&args.file, &renderer, &compiled)?;
    let transport = args.send.transport()?;
    let stdout_tty = std::io::stdout().is_terminal();
    let stream = stdout_tty
        && args.format == RunFormat::Text
        && compiled.api == Api::Chat
        && compiled.response.format == ResultFormat::Text
        && compiled.body.get("tools").is_none();
    let request = prompty_client::build(&endpoint, compiled.api, &compiled.body, stream)
        .map_err(|e| client_failure(&args.file, &e))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Message(format!("cannot start: {e}")))?;
    let outcome = runtime.block_on(async {
        tokio::select! {
            r = send(&transport, &request, &endpoint, stream) => r,
            _ = crate::http::stop_requested() => Err(SendError("interrupted".to_owned())),
        }
    });
    let (response, streamed) = outcome.map_err(|e| RunFailure::Request(e.0))?;
    let result = prompty_wire::process(&compiled.response, &response)
        .map_err(|e| RunFailure::Request(endpoint.redact(&e.to_string())))?;
    print_result(&result, args.format, streamed).map_err(|e| RunFailure::Usage(Failure::from(e)))
}

/// Sends the request; the answer, and whether its text was already printed.
async fn send(
    t: &Transport,
    req: &prompty_client::HttpRequest,
    endpoint: &Endpoint,
    stream: bool,
) -> Result<(Value, bool), SendError> {
    if !stream {
        return t.send_json(req, endpoint).await.map(|v| (v, false));
    }
    let mut response = t.open_stream(req, endpoint).await?;
    let event_stream = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !event_stream {
        // A server that ignores `stream: true` answers with the whole response.
        let body = crate::http::read_body(response).await.map_err(SendError)?;
        let mut v: Value =
            serde_json::from_slice(&body).map_err(|e| SendError(format!("the answer is not JSON ({e})")))?;
        endpoint.redact_json(&mut v);
        return Ok((v, false));
    }
    let mut decoder = SseDecoder::new();
    let mut assembler = Assembler::new(endpoint.wire);
    let mut redactor = endpoint.stream_redactor();
    let mut out = std::io::stdout();
    let broke = |e: String| SendError(endpoint.redact(&format!("the stream broke off: {e}")));
    while let Some(chunk) = response.chunk().await.map_err(|e| broke(e.to_string()))? {
        for event in decoder.feed(&chunk).map_err(|e| broke(e.to_string()))? {
            if let Some(text) = assembler.push(&event).map_err(|e| SendError(endpoint.redact(&e.to_string())))? {
                let _ = out.write_all(redactor.push(&text).as_bytes());
                let _ = out.flush();
            }
        }
    }
    if let Some(event) = decoder.finish()
        && let Some(text) = assembler.push(&event).map_err(|e| SendError(endpoint.redact(&e.to_string())))?
    {
        let _ = out.write_all(redactor.push(&text).as_bytes());
    }
    let _ = out.write_all(redactor.finish().as_bytes());
    let mut v = assembler.response();
    endpoint.redact_json(&mut v);
    Ok((v, true))
}

fn print_result(r: &ProcessResult, format: RunFormat, streamed: bool) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match format {
        RunFormat::Json => {
            let mut m = Map::new();
            m.insert("output".into(), r.output.to_value());
            m.insert("finish_reason".into(), r.finish_reason.clone().map_or(Value::Null, Value::String));
            m.insert("usage".into(), serde_json::to_value(r.usage).unwrap_or(Value::Null));
            m.insert("model".into(), r.model.clone().map_or(Value::Null, Value::String));
            m.insert("id".into(), r.id.clone().map_or(Value::Null, Value::String));
            serde_json::to_writer_pretty(&mut out, &Value::Object(m))?;
            writeln!(out)
        }
        RunFormat::Text => match &r.output {
            Output::Text(s) | Output::Refusal(s) => {
                if let Output::Refusal(_) = &r.output {
                    eprintln!("warning: the model refused");
                }
                if !streamed {
                    out.write_all(s.as_bytes())?;
                }
                if !s.ends_with('\n') {
                    writeln!(out)?;
                }
                Ok(())
            }
            other => {
                serde_json::to_writer_pretty(&mut out, &other.to_value())?;
                writeln!(out)
            }
        },
    }
}
