//! [`Loader`] and [`Prompty`]: load once, render many times.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, FileText};
use crate::render::{Limits, RenderOptions, Renderer};
use crate::syntax::{LoadOptions, Loaded, ProfileChoice, codes};
use crate::{Diagnostic, Host, MapHost, Message, Profile, Prompt};

/// What [`Loader::new`] and [`from_str`](crate::from_str) tell an author whose prompt reads
/// `${env:}`: the default host reads no environment.
#[cfg(feature = "std-host")]
const NO_ENV_HOST: &str = "this loader's host reads no environment variable; load with a host that does: \
     `Loader::new().std_host(StdHost::new().allow_env(true))`";
#[cfg(not(feature = "std-host"))]
const NO_ENV_HOST: &str =
    "this loader's host reads no environment variable; load with a host that does: `Loader::new().host(...)`";

/// What a [`StdHost`](crate::StdHost) that keeps the environment closed tells the same author.
#[cfg(feature = "std-host")]
const CLOSED_STD_HOST: &str = "this `StdHost` reads only the environment variables it is allowed to: \
     `StdHost::new().allow_env(true)`, or `.allow_env_var(\"NAME\")` for one";

/// How to load prompts: the host that `${file:}` and `${env:}` go through, the folders
/// `${file:}` may read besides the prompt's own, the profile and the render budget.
///
/// [`Loader::new`] reads nothing: no file, no environment variable. Give it a host to read
/// files ([`std_host`](Loader::std_host) for the real file system, [`host`](Loader::host)
/// for any other, such as a [`MapHost`]).
///
/// ```
/// use prompty_toolkit::{Loader, MapHost, Profile};
///
/// let host = MapHost::new().with_env("MODEL", "gpt-4o");
/// let loader = Loader::new().host(host).profile(Profile::Spec);
/// let prompt = loader.load_str("---\nmodel: ${env:MODEL}\n---\nuser:\nHi")?;
/// assert_eq!(prompt.prompt().model.as_ref().map(|m| m.id.as_str()), Some("gpt-4o"));
/// # Ok::<(), prompty_toolkit::Error>(())
/// ```
#[derive(Clone)]
pub struct Loader {
    host: Arc<dyn Host + Send + Sync>,
    roots: Vec<PathBuf>,
    profile: ProfileChoice,
    limits: Limits,
    /// The roles thread inputs may carry (`None`: any).
    thread_roles: Option<Vec<String>>,
    require_env: bool,
    /// Help added to "environment variable not set" errors.
    env_hint: Option<&'static str>,
    /// The judge contract every loaded prompt's evaluator follows (`None`: the prompt's).
    #[cfg(feature = "eval")]
    contract: Option<crate::eval::Contract>,
}

impl std::fmt::Debug for Loader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loader")
            .field("roots", &self.roots)
            .field("profile", &self.profile)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for Loader {
    fn default() -> Self {
        Self::new()
    }
}

impl Loader {
    /// A loader whose host reads nothing: `${file:}` finds no file and every `${env:}`
    /// variable is unset. The profile is detected from each file; the render budget is
    /// [`Limits::default`].
    pub fn new() -> Self {
        Loader {
            host: Arc::new(MapHost::new()),
            roots: Vec::new(),
            profile: ProfileChoice::Auto,
            limits: Limits::default(),
            thread_roles: None,
            require_env: false,
            env_hint: Some(NO_ENV_HOST),
            #[cfg(feature = "eval")]
            contract: None,
        }
    }

    /// The azure-ai-evaluation judge contract the loaded prompts' evaluators follow, as
    /// the command line's `--contract` (default: the prompt's `metadata.evaluator.contract`,
    /// else the one its text asks for, else 1.13; see
    /// [`Contract::recognise`](crate::eval::Contract::recognise)).
    ///
    /// ```
    /// use prompty_toolkit::{Contract, Loader};
    ///
    /// let text = "---\nname: brevity\nmetadata:\n  evaluator: {answer: json}\n---\nuser:\nRate it.";
    /// let prompt = Loader::new().contract(Contract::V1_18).load_str(text)?;
    /// let e = prompt.score(r#"{"reason": "empty", "score": null, "status": "skipped"}"#)?;
    /// assert_eq!(e.verdict, prompty_toolkit::Verdict::NotApplicable);
    /// let azure = prompt.to_azure(&e)?;
    /// assert_eq!(azure["brevity_result"], "not_applicable");
    /// assert_eq!(azure["brevity_passed"], serde_json::Value::Null);
    /// # Ok::<(), prompty_toolkit::Error>(())
    /// ```
    #[cfg(feature = "eval")]
    #[must_use]
    pub fn contract(mut self, contract: crate::eval::Contract) -> Self {
        self.contract = Some(contract);
        self
    }

    /// Loads through the real file system (and the environment, when `host` allows it),
    /// `${file:}` confined to the prompt's folder and `host`'s [roots](crate::StdHost::root).
    #[cfg(feature = "std-host")]
    #[must_use]
    pub fn std_host(mut self, host: crate::StdHost) -> Self {
        self.roots = host.roots().to_vec();
        self.env_hint = (!host.reads_all_env()).then_some(CLOSED_STD_HOST);
        self.host = Arc::new(host);
        self
    }

    /// Loads through `host` (any [`Host`]: an in-memory [`MapHost`], a virtual file system).
    #[must_use]
    pub fn host(mut self, host: impl Host + Send + Sync + 'static) -> Self {
        self.host = Arc::new(host);
        self.env_hint = None;
        self
    }

    /// Adds a folder `${file:}` references may read from, besides the prompt's own.
    #[must_use]
    pub fn root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.roots.push(dir.into());
        self
    }

    /// Renders like this profile's reference engine, whatever the file looks like (by
    /// default v1 keys mean [`Profile::Promptflow`]).
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = ProfileChoice::Force(profile);
        self
    }

    /// The render budget of every prompt this loader loads.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Restricts the messages of `kind: thread` inputs to these roles (say `["user",
    /// "assistant"]`, compared in any ASCII case): a render whose thread input holds a
    /// `system` or `developer` message, or any other role not listed, fails with an
    /// [`InvalidInput`](crate::render::ErrorKind::InvalidInput) error naming the input and
    /// the role. By default a thread may carry every role and its metadata, as the spec's
    /// runtimes allow.
    #[must_use]
    pub fn thread_roles<S: Into<String>>(mut self, roles: impl IntoIterator<Item = S>) -> Self {
        self.thread_roles = Some(roles.into_iter().map(Into::into).collect());
        self
    }

    /// Fails to load a prompt whose connection settings name an unset `${env:}` variable.
    /// By default such a variable (the API key, say) is needed only when a request is sent:
    /// loading, rendering and compiling work without it, and `prompt().secrets` lists it
    /// in [`Secrets::unset`](crate::Secrets::unset).
    #[must_use]
    pub fn require_env(mut self, yes: bool) -> Self {
        self.require_env = yes;
        self
    }

    fn options(&self, path: Option<&Path>) -> LoadOptions {
        LoadOptions {
            path: path.map(Path::to_path_buf),
            allowed_roots: self.roots.clone(),
            profile: self.profile,
            lint: false,
            require_env: self.require_env,
        }
    }

    /// Reads and loads the `.prompty` file at `path` through the host.
    pub fn load(&self, path: impl AsRef<Path>) -> Result<Prompty, Error> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = crate::syntax::read_source(path, &*self.host).map_err(|e| {
            let message = match &e {
                crate::syntax::Error::FileNotFound(_) => "no such file".to_owned(),
                crate::syntax::Error::Read { source, .. } => format!("cannot be read: {source}"),
                other => other.to_string(),
            };
            let file = FileText { name: Arc::from(name.as_str()), text: Arc::from("") };
            Error::new(ErrorKind::Read, message).with_file(&file).with_source(e)
        })?;
        let loaded = crate::syntax::load_bytes(&bytes, &*self.host, &self.options(Some(path)));
        let text = Arc::from(String::from_utf8_lossy(&bytes));
        let file = FileText { name: Arc::from(name.as_str()), text };
        self.finish(file, loaded, path.file_stem().and_then(|s| s.to_str()).map(str::to_owned))
    }

    /// Loads `.prompty` text. Errors call it `<string>`; `${file:}` references resolve
    /// from the current folder.
    pub fn load_str(&self, text: &str) -> Result<Prompty, Error> {
        let loaded = crate::syntax::load_str(text, &*self.host, &self.options(None));
        let file = FileText { name: Arc::from("<string>"), text: Arc::from(text) };
        self.finish(file, loaded, None)
    }

    /// Builds the prompt from a load's result: any error-level diagnostic is an error.
    pub(crate) fn finish(&self, file: FileText, loaded: Loaded, stem: Option<String>) -> Result<Prompty, Error> {
        let mut diagnostics = loaded.diagnostics;
        if let Some(hint) = self.env_hint {
            for d in diagnostics.iter_mut().filter(|d| d.code == codes::ENV_NOT_SET) {
                d.help = Some(match d.help.take() {
                    Some(help) => format!("{help}; {hint}"),
                    None => hint.to_owned(),
                });
            }
        }
        let prompt = match loaded.prompt {
            Some(prompt) if !diagnostics.iter().any(Diagnostic::is_error) => prompt,
            _ => {
                let errors = diagnostics.iter().filter(|d| d.is_error()).count();
                let message = match errors {
                    0 => "cannot be loaded as a prompt".to_owned(),
                    1 => "cannot be loaded: 1 error".to_owned(),
                    n => format!("cannot be loaded: {n} errors"),
                };
                return Err(Error::new(ErrorKind::Load, message).with_file(&file).with_diagnostics(diagnostics));
            }
        };
        let secrets = prompt.secrets.clone();
        let options = RenderOptions {
            limits: self.limits,
            profile: None,
            source: Some(file.text.clone()),
            thread_roles: self.thread_roles.clone(),
        };
        let renderer = Renderer::with_options(prompt, options)
            .map_err(|e| render_error(ErrorKind::Template, &file, e).redacted(&secrets))?;
        Ok(Prompty {
            renderer,
            file,
            diagnostics,
            stem,
            #[cfg(feature = "eval")]
            contract: self.contract,
            #[cfg(feature = "eval")]
            evaluator: std::sync::OnceLock::new(),
        })
    }
}

/// A renderer error as the facade's, located in the file.
fn render_error(kind: ErrorKind, file: &FileText, e: crate::render::Error) -> Error {
    let message = e.message().to_owned();
    Error::new(kind, message).with_file(file).with_span(e.span()).with_source(e)
}

/// A loaded prompt with its compiled template: render it any number of times, from any
/// number of threads. Made by [`load`](crate::load), [`from_str`](crate::from_str), a
/// [`Loader`], or the `render` function `include_prompty!` generates.
///
/// ```
/// let prompt = prompty_toolkit::from_str("---\ninputs:\n  name: {kind: string, default: there}\n---\nuser:\nHello {{name}}!")?;
/// assert_eq!(prompt.render(&())?[0].text_content(), "Hello there!");
/// assert_eq!(prompt.render(&serde_json::json!({"name": "Ada"}))?[0].text_content(), "Hello Ada!");
/// # Ok::<(), prompty_toolkit::Error>(())
/// ```
pub struct Prompty {
    renderer: Renderer,
    file: FileText,
    diagnostics: Vec<Diagnostic>,
    /// The file's stem: a known evaluator prompt is found by it.
    #[cfg_attr(not(feature = "eval"), allow(dead_code))]
    stem: Option<String>,
    #[cfg(feature = "eval")]
    contract: Option<crate::eval::Contract>,
    #[cfg(feature = "eval")]
    evaluator: std::sync::OnceLock<Result<crate::eval::Evaluator, Error>>,
}

impl std::fmt::Debug for Prompty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompty")
            .field("file", &&*self.file.name)
            .field("name", &self.prompt().name)
            .field("profile", &self.renderer.profile())
            .field("diagnostics", &self.diagnostics.len())
            .finish_non_exhaustive()
    }
}

impl Prompty {
    /// The prompt as loaded (the typed front matter and the template). It holds the values
    /// `${env:}` supplied; show [`Prompt::redacted`] rather than the prompt itself.
    pub fn prompt(&self) -> &Prompt {
        self.renderer.prompt()
    }

    /// The warnings (and informational notes) loading found; errors would have failed the load.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The file's name: its path, or `<string>`.
    pub fn name(&self) -> &str {
        &self.file.name
    }

    /// The file's text.
    pub fn source(&self) -> &str {
        &self.file.text
    }

    /// The compiled renderer, for what this type does not wrap (`render_segments`, ...).
    pub fn renderer(&self) -> &Renderer {
        &self.renderer
    }

    /// Renders the template with `inputs` (any value that serializes to a map: a struct, a
    /// map, a `serde_json` object, [`inputs!`](crate::inputs!); `()` for none) and splits
    /// it into messages. Declared defaults fill what `inputs` leaves out; a missing
    /// required input is an [`ErrorKind::Inputs`] error naming every one.
    pub fn render<T: Serialize + ?Sized>(&self, inputs: &T) -> Result<Vec<Message>, Error> {
        let map = crate::inputs::to_map(inputs).map_err(|e| e.with_file(&self.file))?;
        self.render_map(&map)
    }

    /// [`render`](Prompty::render) with inputs that are a JSON map already (no copy).
    pub fn render_map(&self, inputs: &Map<String, Value>) -> Result<Vec<Message>, Error> {
        self.renderer.prepare(inputs).map_err(|e| self.error(e))
    }

    /// The rendered text before it is split into messages (what `prompty render --raw`
    /// prints).
    pub fn render_text<T: Serialize + ?Sized>(&self, inputs: &T) -> Result<String, Error> {
        let map = crate::inputs::to_map(inputs).map_err(|e| e.with_file(&self.file))?;
        self.renderer.render_text(&map).map_err(|e| self.error(e))
    }

    fn error(&self, e: crate::render::Error) -> Error {
        use crate::render::ErrorKind as R;
        let kind = match e.kind() {
            R::MissingInputs | R::InvalidInput => ErrorKind::Inputs,
            _ => ErrorKind::Render,
        };
        render_error(kind, &self.file, e).redacted(&self.prompt().secrets)
    }

    /// The request body for `target` (provider and API; what it leaves unset comes from the
    /// prompt's `model`, else OpenAI chat). What the target cannot take is left out with a
    /// warning in [`Compiled::warnings`](crate::Compiled::warnings), or is an error when
    /// the request would be invalid without it.
    #[cfg(feature = "wire")]
    pub fn compile(&self, messages: &[Message], target: crate::Target) -> Result<crate::Compiled, Error> {
        crate::wire::compile(self.prompt(), messages, target).map_err(|e| {
            Error::new(ErrorKind::Compile, e.to_string())
                .with_file(&self.file)
                .with_source(e)
                .redacted(&self.prompt().secrets)
        })
    }

    /// `messages` as the OpenAI SDKs take them: the `messages` array of an OpenAI chat
    /// completions request (`{role, content}`, string content for one text part, a list of
    /// content parts otherwise; for a v1 prompt exactly what promptflow-core sends), with
    /// the warnings for what that form cannot carry (message metadata other than `name`,
    /// `tool_call_id` and `tool_calls`). Unlike [`compile`](Prompty::compile), the prompt's
    /// model, options and tools play no part.
    ///
    /// ```
    /// let prompt = prompty_toolkit::from_str("---\nname: hi\n---\nsystem:\nBe brief.\n\nuser:\nHi")?;
    /// let (messages, warnings) = prompt.chat_messages(&prompt.render(&())?)?;
    /// assert_eq!(messages[1], serde_json::json!({"role": "user", "content": "Hi"}));
    /// assert!(warnings.is_empty());
    /// # Ok::<(), prompty_toolkit::Error>(())
    /// ```
    #[cfg(feature = "wire")]
    pub fn chat_messages(&self, messages: &[Message]) -> Result<(Vec<Value>, Vec<crate::Warning>), Error> {
        crate::wire::chat_messages(self.prompt(), messages).map_err(|e| {
            Error::new(ErrorKind::Compile, e.to_string())
                .with_file(&self.file)
                .with_source(e)
                .redacted(&self.prompt().secrets)
        })
    }

    /// The evaluator this prompt configures: its `metadata.evaluator` block, else the known
    /// settings of the azure-ai-evaluation prompt of its name (or file name).
    #[cfg(feature = "eval")]
    pub fn evaluator(&self) -> Result<&crate::eval::Evaluator, Error> {
        self.evaluator.get_or_init(|| self.make_evaluator()).as_ref().map_err(Clone::clone)
    }

    #[cfg(feature = "eval")]
    fn make_evaluator(&self) -> Result<crate::eval::Evaluator, Error> {
        let evaluator =
            crate::eval::Evaluator::for_prompt(self.prompt(), self.stem.as_deref()).map_err(|e| self.score_error(e))?;
        Ok(match self.contract {
            Some(c) => evaluator.with_contract(c),
            None => evaluator,
        })
    }

    /// An evaluation in the azure-ai-evaluation key layout of the evaluator's contract
    /// (what `prompty score --format azure` prints): 1.13 `{k}`, `gpt_{k}`, ...; 1.18
    /// `{k}`, `{k}_score`, `{k}_passed`, `{k}_result`, `{k}_reason`, `{k}_status`,
    /// `{k}_threshold`, `{k}_properties`.
    #[cfg(feature = "eval")]
    pub fn to_azure(&self, evaluation: &crate::Evaluation) -> Result<Map<String, Value>, Error> {
        let mut out = Value::Object(evaluation.to_azure(&self.evaluator()?.azure_layout()));
        self.prompt().secrets.redact_json(&mut out);
        Ok(match out {
            Value::Object(o) => o,
            _ => Map::new(),
        })
    }

    #[cfg(feature = "eval")]
    fn score_error(&self, e: crate::eval::Error) -> Error {
        let secrets = &self.prompt().secrets;
        let e = e.redacted(secrets);
        Error::new(ErrorKind::Score, e.to_string()).with_file(&self.file).with_source(e).redacted(secrets)
    }

    /// A run over data rows with this prompt's evaluator: [`Run::recorded`] scores recorded
    /// answers read side by side with the data, and its summary adds the results up.
    ///
    /// [`Run::recorded`]: crate::eval::Run::recorded
    #[cfg(feature = "eval")]
    pub fn eval_run(&self) -> Result<crate::eval::Run, Error> {
        Ok(crate::eval::Run::new(self.evaluator()?.clone()))
    }

    /// Scores a judge model's answer (its text) with this prompt's evaluator: the score,
    /// the threshold's verdict and the reason.
    #[cfg(feature = "eval")]
    pub fn score(&self, answer: &str) -> Result<crate::Evaluation, Error> {
        self.score_reply(&crate::JudgeReply::text(answer))
    }

    /// Scores `reply` and returns the result dictionary the azure-ai-evaluation evaluator
    /// this prompt follows returns for it (its key layout: `{k}`, `{k}_result`,
    /// `{k}_threshold`, `{k}_reason`, ..., as
    /// [`Evaluator::azure_record`](crate::eval::Evaluator::azure_record) writes it).
    /// `inputs` are the inputs the judge prompt was rendered with (they fill
    /// `{k}_sample_input`, as the reference records them); `threshold` overrides the
    /// configured threshold as the reference evaluators' `threshold` argument does.
    ///
    /// ```
    /// let prompt = prompty_toolkit::from_str(
    ///     "---\nname: quality\nmetadata:\n  evaluator: {answer: json, range: [1, 5], threshold: 3}\n---\nuser:\n{{q}}",
    /// )?;
    /// let reply = prompty_toolkit::JudgeReply::text(r#"{"score": 2, "reason": "vague"}"#);
    /// let result = prompt.score_azure(&reply, None, None)?;
    /// assert_eq!(result["quality"], 2.0);
    /// assert_eq!(result["quality_result"], "fail");
    /// assert_eq!(result["quality_reason"], "vague");
    /// # Ok::<(), prompty_toolkit::Error>(())
    /// ```
    #[cfg(feature = "eval")]
    pub fn score_azure(
        &self,
        reply: &crate::JudgeReply,
        inputs: Option<&Map<String, Value>>,
        threshold: Option<crate::eval::Threshold>,
    ) -> Result<Map<String, Value>, Error> {
        let configured = self.evaluator()?;
        let overridden;
        let evaluator = match threshold {
            Some(t) => {
                overridden = configured.clone().with_threshold(t).map_err(|e| self.score_error(e))?;
                &overridden
            }
            None => configured,
        };
        let mut evaluation = evaluator.evaluate(reply).map_err(|e| self.score_error(e))?;
        if let Some(inputs) = inputs {
            // The reference records the inputs resolved against its prompt's declared inputs.
            let builtin = self
                .stem
                .as_deref()
                .and_then(crate::eval::builtin_prompt)
                .or_else(|| self.prompt().name.as_deref().and_then(crate::eval::builtin_prompt));
            let call = crate::eval::JudgeCall {
                prompt: builtin.map_or("", |b| b.prompt),
                inputs: inputs.clone(),
                contract: evaluator.contract(),
            };
            evaluation.sample_input = Some(call.sample_input());
            evaluation = evaluation.redacted(&self.prompt().secrets);
        }
        Ok(evaluator.azure_record(&evaluation, reply))
    }

    /// [`score`](Prompty::score) with the whole reply (usage, model, finish reason).
    #[cfg(feature = "eval")]
    pub fn score_reply(&self, reply: &crate::JudgeReply) -> Result<crate::Evaluation, Error> {
        self.evaluator()?.evaluate(reply).map_err(|e| self.score_error(e))
    }
}

/// A run of several evaluator prompts over one data file, as azure-ai-evaluation's
/// `evaluate()` runs a dictionary of evaluators: each row is read once and given its id
/// (its `id` field, else its line number; [`Suite::with_ids`] names another column), each
/// evaluator's inputs come from the row through the column mappings `maps`
/// (`"query=question"`, `"context=doc.text"`, `"coherence:query=q"` for one evaluator),
/// and [`Suite::recorded`] yields one `RowResults` per row with every evaluator's result
/// under its key (the evaluator's name; `NAME_2`, `NAME_3` for repeated names).
///
/// A mapping that names an input no prompt declares, or an evaluator the run does not have,
/// is an [`ErrorKind::Inputs`] error.
///
/// [`Suite::with_ids`]: crate::eval::Suite::with_ids
/// [`Suite::recorded`]: crate::eval::Suite::recorded
#[cfg(feature = "eval")]
pub fn eval_suite(prompts: &[&Prompty], maps: &[&str]) -> Result<crate::eval::Suite, Error> {
    let evaluators = prompts.iter().map(|p| p.evaluator().cloned()).collect::<Result<Vec<_>, _>>()?;
    let mut suite = crate::eval::Suite::new(evaluators);
    let refused = |e: crate::eval::Error| Error::new(ErrorKind::Inputs, e.to_string()).with_source(e);
    let specs = maps.iter().map(|m| crate::eval::MapSpec::parse(m)).collect::<Result<Vec<_>, _>>().map_err(refused)?;
    let inner: Vec<&Prompt> = prompts.iter().map(|p| p.prompt()).collect();
    suite.map(&specs, &inner).map_err(refused)?;
    Ok(suite)
}
