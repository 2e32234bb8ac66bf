//! `prompty.toml`: which codes `prompty check` and `prompty lsp` report, per path.
//!
//! ```toml
//! [lint]
//! select = ["ALL"]          # codes, prefixes (`PL0`, `P0`), rule names, or ALL (the default)
//! ignore = ["PL019"]
//! fail-on = "info"          # the least severe finding that fails `prompty check`:
//!                           # "info" (the default: every finding), "warning" or "error"
//!
//! [[lint.per-path]]
//! glob = "prompts/legacy/**"  # relative to the folder of prompty.toml
//! ignore = ["P030", "PL010"]
//! select = []               # turns codes back on for these paths
//!
//! [run]
//! allow-key-vars = ["GITHUB_TOKEN"]  # variables a prompt's `apiKey: ${env:NAME}` may send
//! ```
//!
//! The file is found by walking up from each checked file's folder; the nearest one wins.
//! Per-path entries apply in order after the top-level lists. `run`, `eval --judge` and
//! `batch` read `[run]` from the file found from the current folder, not the prompt's.
//!
//! The crate does no process I/O: files are found and read through a
//! [`Host`], the same window on the file system the loader uses.

#![warn(missing_docs)]

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobMatcher};
use prompty_lint::Selection;
use prompty_syntax::{Host, HostError, Severity};
use serde::Deserialize;
use toml::Spanned;

/// The configuration file's name.
pub const FILE_NAME: &str = "prompty.toml";

/// A loaded `prompty.toml`.
#[derive(Debug)]
pub struct Config {
    /// The folder globs are relative to.
    dir: PathBuf,
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    per_path: Vec<PerPath>,
    allow_key_vars: Vec<String>,
    fail_on: Option<Severity>,
}

#[derive(Debug)]
struct PerPath {
    matcher: GlobMatcher,
    select: Vec<String>,
    ignore: Vec<String>,
}

#[derive(Deserialize)]
struct RawFile {
    lint: Option<RawLint>,
    run: Option<RawRun>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawRun {
    allow_key_vars: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawLint {
    select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
    per_path: Option<Vec<RawPerPath>>,
    fail_on: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPerPath {
    glob: Spanned<String>,
    select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
}

/// The diagnostic codes of `prompty.toml` (`PT0xx`). Codes are stable: never renumber,
/// only add.
pub mod codes {
    prompty_syntax::define_codes! {
        UNREADABLE = "PT001", "config-unreadable", Error, "The configuration file cannot be read.";
        SYNTAX = "PT002", "config-syntax", Error, "The configuration is not valid TOML, or has a key `[lint]` does not take.";
        UNKNOWN_SELECTOR = "PT003", "unknown-selector", Error, "A `select` or `ignore` entry matches no code.";
        BAD_GLOB = "PT004", "invalid-glob", Error, "A `[[lint.per-path]]` glob does not parse.";
        BAD_VARIABLE_NAME = "PT005", "invalid-variable-name", Error, "A `[run] allow-key-vars` entry is not an environment variable name.";
        BAD_SEVERITY = "PT006", "invalid-fail-on", Error, "`[lint] fail-on` is not `info`, `warning` or `error`.";
    }
}

/// A configuration error: its code, where (the file and the byte span of the offending
/// text) and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(Box<Details>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Details {
    message: String,
    code: prompty_syntax::Code,
    path: PathBuf,
    span: Option<Range<usize>>,
    summary: String,
    help: String,
}

impl ConfigError {
    /// `path:line:col: what` and a `help:` line.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The stable code.
    pub fn code(&self) -> prompty_syntax::Code {
        self.0.code
    }

    /// The configuration file.
    pub fn path(&self) -> &Path {
        &self.0.path
    }

    /// The bytes of the file the error is about, when it is about a place in it.
    pub fn span(&self) -> Option<Range<usize>> {
        self.0.span.clone()
    }

    /// What is wrong, without the location.
    pub fn summary(&self) -> &str {
        &self.0.summary
    }

    /// The error as a diagnostic at its span in the configuration's text (at its start when
    /// it is about the file as a whole).
    pub fn to_diagnostic(&self) -> prompty_syntax::Diagnostic {
        let d = &self.0;
        prompty_syntax::Diagnostic::error(d.code, d.span.clone().unwrap_or(0..0), d.summary.clone())
            .with_help(d.help.clone())
    }
}

impl std::error::Error for ConfigError {}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message)
    }
}

fn located(
    code: prompty_syntax::Code,
    path: &Path,
    text: &str,
    span: Option<Range<usize>>,
    message: &str,
    help: &str,
) -> ConfigError {
    let at = match &span {
        Some(s) => {
            let (line, col) = prompty_syntax::LineIndex::new(text).line_col(text, s.start);
            format!("{}:{line}:{col}", path.display())
        }
        None => path.display().to_string(),
    };
    ConfigError(Box::new(Details {
        message: format!("{at}: {message}\n  help: {help}"),
        code,
        path: path.to_path_buf(),
        span,
        summary: message.to_owned(),
        help: help.to_owned(),
    }))
}

fn codes(path: &Path, text: &str, list: Option<Vec<Spanned<String>>>) -> Result<Vec<String>, ConfigError> {
    let mut out = Vec::new();
    for item in list.unwrap_or_default() {
        let span = item.span();
        let value = item.into_inner();
        if let Err(e) = prompty_lint::resolve_selector(&value) {
            let help = match e.suggestion {
                Some(s) => format!("did you mean `{s}`? (run `prompty check --list-rules` for every code)"),
                None => "use a code (`PL001`), a prefix (`PL0`), a rule name (`unused-input`) or `ALL`; `prompty check --list-rules` lists them".to_owned(),
            };
            let message = format!("`{value}` matches no code");
            return Err(located(codes::UNKNOWN_SELECTOR, path, text, Some(span), &message, &help));
        }
        out.push(value);
    }
    Ok(out)
}

impl Config {
    /// Reads and validates `path` through `host`.
    pub fn load(path: &Path, host: &dyn Host) -> Result<Config, ConfigError> {
        let text = host.read_to_string(path).map_err(|e| {
            let mut err = located(
                codes::UNREADABLE,
                path,
                "",
                None,
                &format!("cannot read the configuration: {e}"),
                "make the file readable, or point --config at another one",
            );
            // The file's own error says it all.
            err.0.message = format!("{}: cannot read the configuration: {e}", path.display());
            err
        })?;
        Self::parse(path, &text)
    }

    /// Validates the text of the configuration file at `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            let message = e.message().trim().to_owned();
            let help = if message.contains("unknown field `allow") || message.contains("expected `allow-key-vars`") {
                "`[run]` takes `allow-key-vars`, a list of environment variable names"
            } else if message.contains("unknown field") {
                "`[lint]` takes `select`, `ignore`, `fail-on` and `[[lint.per-path]]` entries with `glob`, `select`, `ignore`"
            } else {
                "fix the TOML syntax"
            };
            located(codes::SYNTAX, path, text, e.span(), &message, help)
        })?;
        let dir = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let mut allow_key_vars = Vec::new();
        for item in raw.run.and_then(|r| r.allow_key_vars).unwrap_or_default() {
            let span = item.span();
            let name = item.into_inner();
            if !is_variable_name(&name) {
                return Err(located(
                    codes::BAD_VARIABLE_NAME,
                    path,
                    text,
                    Some(span),
                    &format!("`{name}` is not an environment variable name"),
                    "list variable names such as `GITHUB_TOKEN` (letters, digits and `_`, not starting with a digit)",
                ));
            }
            allow_key_vars.push(name);
        }
        let Some(lint) = raw.lint else {
            return Ok(Config {
                dir,
                select: None,
                ignore: Vec::new(),
                per_path: Vec::new(),
                allow_key_vars,
                fail_on: None,
            });
        };
        let fail_on = match lint.fail_on {
            None => None,
            Some(item) => {
                let span = item.span();
                let value = item.into_inner();
                Some(parse_severity(&value).ok_or_else(|| {
                    located(
                        codes::BAD_SEVERITY,
                        path,
                        text,
                        Some(span),
                        &format!("`fail-on = \"{value}\"` is not a severity"),
                        "write \"info\" (every finding fails, the default), \"warning\" (warnings and errors fail) or \"error\" (only errors fail)",
                    )
                })?)
            }
        };
        let select = match lint.select {
            Some(list) => Some(codes(path, text, Some(list))?),
            None => None,
        };
        let ignore = codes(path, text, lint.ignore)?;
        let mut per_path = Vec::new();
        for entry in lint.per_path.unwrap_or_default() {
            let span = entry.glob.span();
            let glob = entry.glob.into_inner();
            let built: Result<Glob, _> = GlobBuilder::new(&glob).literal_separator(true).build();
            let matcher = built
                .map_err(|e| {
                    located(
                        codes::BAD_GLOB,
                        path,
                        text,
                        Some(span),
                        &format!("invalid glob `{glob}`: {}", e.kind()),
                        "write a glob relative to this file's folder, e.g. `prompts/legacy/**`",
                    )
                })?
                .compile_matcher();
            per_path.push(PerPath {
                matcher,
                select: codes(path, text, entry.select)?,
                ignore: codes(path, text, entry.ignore)?,
            });
        }
        Ok(Config { dir, select, ignore, per_path, allow_key_vars, fail_on })
    }

    /// `[lint] fail-on`: the least severe finding that makes `prompty check` fail, when the
    /// file sets it (every finding fails when it does not).
    pub fn fail_on(&self) -> Option<Severity> {
        self.fail_on
    }

    /// The environment variables `[run] allow-key-vars` lets a prompt send as its API key
    /// (besides the provider's own key variable).
    pub fn allowed_key_vars(&self) -> &[String] {
        &self.allow_key_vars
    }

    /// The codes to report for `file`.
    pub fn selection(&self, file: &Path, host: &dyn Host) -> Selection {
        // The selectors were checked when the file was loaded.
        let mut s = match &self.select {
            Some(list) => Selection::only(list).unwrap_or_default(),
            None => Selection::all(),
        };
        let _ = s.ignore(&self.ignore);
        let absolute = host.canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        let dir = host.canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone());
        let relative = absolute.strip_prefix(&dir).unwrap_or(&absolute);
        for entry in &self.per_path {
            if entry.matcher.is_match(relative) {
                let _ = s.ignore(&entry.ignore);
                let _ = s.select(&entry.select);
            }
        }
        s
    }
}

/// A `fail-on` value: `info`, `warning` or `error`.
pub fn parse_severity(value: &str) -> Option<Severity> {
    match value {
        "info" => Some(Severity::Info),
        "warning" => Some(Severity::Warning),
        "error" => Some(Severity::Error),
        _ => None,
    }
}

/// What `prompty check` applies to one file: the codes it reports and the least severe
/// finding that fails it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintSettings {
    /// The codes to report.
    pub selection: Selection,
    /// `[lint] fail-on`, when the configuration sets it.
    pub fail_on: Option<Severity>,
}

/// Finds and caches the nearest `prompty.toml` above each file.
#[derive(Default)]
pub struct Configs {
    /// Configuration file per folder searched (`None`: no file up from there).
    by_dir: HashMap<PathBuf, Option<PathBuf>>,
    /// Each folder as written, resolved (one resolution per folder, not per file).
    resolved_dirs: HashMap<PathBuf, PathBuf>,
    loaded: HashMap<PathBuf, Config>,
}

impl Configs {
    /// The selection for `file`: from `explicit` when given, else from the nearest
    /// `prompty.toml` above it, else everything.
    pub fn selection(
        &mut self,
        file: &Path,
        explicit: Option<&Path>,
        host: &dyn Host,
    ) -> Result<Selection, ConfigError> {
        Ok(self.settings(file, explicit, host)?.selection)
    }

    /// The selection and `fail-on` for `file`, from `explicit` when given, else from the
    /// nearest `prompty.toml` above it, else every code and no `fail-on`.
    pub fn settings(
        &mut self,
        file: &Path,
        explicit: Option<&Path>,
        host: &dyn Host,
    ) -> Result<LintSettings, ConfigError> {
        let path = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => self.find(file, host),
        };
        let none = || LintSettings { selection: Selection::all(), fail_on: None };
        let Some(path) = path else { return Ok(none()) };
        if !self.loaded.contains_key(&path) {
            let config = Config::load(&path, host)?;
            self.loaded.insert(path.clone(), config);
        }
        Ok(self
            .loaded
            .get(&path)
            .map_or_else(none, |c| LintSettings { selection: c.selection(file, host), fail_on: c.fail_on }))
    }

    /// The configuration file that applies to `file`: the nearest `prompty.toml` in its
    /// folder or above. A file that does not exist yet (an unsaved editor buffer) is looked
    /// up from its folder.
    pub fn find(&mut self, file: &Path, host: &dyn Host) -> Option<PathBuf> {
        let start = self.resolved_folder(file, host)?;
        let mut visited = Vec::new();
        let mut dir = Some(start.as_path());
        let mut found = None;
        while let Some(d) = dir {
            if let Some(cached) = self.by_dir.get(d) {
                found = cached.clone();
                break;
            }
            visited.push(d.to_path_buf());
            let candidate = d.join(FILE_NAME);
            if exists(host, &candidate) {
                found = Some(candidate);
                break;
            }
            dir = d.parent();
        }
        for v in visited {
            self.by_dir.insert(v, found.clone());
        }
        found
    }
}

impl Configs {
    /// The resolved folder of `file` (symbolic links followed, as `canonicalize` does): a
    /// file that is not itself a link lies in its folder as written, resolved once per
    /// folder; a link is resolved whole.
    fn resolved_folder(&mut self, file: &Path, host: &dyn Host) -> Option<PathBuf> {
        let parent = file.parent().filter(|p| !p.as_os_str().is_empty());
        if let Some(parent) = parent
            && host.read_link(file).is_none()
        {
            if let Some(dir) = self.resolved_dirs.get(parent) {
                return Some(dir.clone());
            }
            let dir = host.canonicalize(parent).ok()?;
            self.resolved_dirs.insert(parent.to_path_buf(), dir.clone());
            return Some(dir);
        }
        match host.canonicalize(file) {
            Ok(absolute) => Some(absolute.parent()?.to_path_buf()),
            Err(_) => host.canonicalize(parent?).ok(),
        }
    }
}

/// Whether `name` is an environment variable name: ASCII letters, digits and `_`, not
/// starting with a digit.
pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a configuration file is at `path`. Anything there but a missing path or a
/// special file counts, so that an unreadable configuration (or a folder named
/// `prompty.toml`) is reported rather than skipped.
fn exists(host: &dyn Host, path: &Path) -> bool {
    !matches!(host.read(path), Err(HostError::NotFound | HostError::NotAFile))
}

#[cfg(test)]
mod tests {
    use prompty_syntax::MapHost;

    use super::*;

    #[test]
    fn per_path_ignores() {
        let host = MapHost::new()
            .with_file(
                "/w/prompty.toml",
                "[lint]\nignore = [\"PL019\"]\n[[lint.per-path]]\nglob = \"legacy/**\"\nignore = [\"P030\", \"unused-input\"]\n",
            )
            .with_file("/w/legacy/a/x.prompty", "")
            .with_file("/w/new/x.prompty", "");
        let legacy = Path::new("/w/legacy/a/x.prompty");
        let other = Path::new("/w/new/x.prompty");
        let mut configs = Configs::default();
        let s = configs.selection(legacy, None, &host).expect("config");
        assert!(!s.is_selected("P030") && !s.is_selected("PL002") && !s.is_selected("PL019"));
        let s = configs.selection(other, None, &host).expect("config");
        assert!(s.is_selected("P030") && s.is_selected("PL002") && !s.is_selected("PL019"));
        assert_eq!(configs.find(other, &host), Some(PathBuf::from("/w/prompty.toml")));
        // The nearest file wins.
        let host = host.with_file("/w/legacy/prompty.toml", "");
        assert_eq!(Configs::default().find(legacy, &host), Some(PathBuf::from("/w/legacy/prompty.toml")));
        assert!(Configs::default().selection(legacy, None, &host).expect("config").is_selected("PL002"));
    }

    #[test]
    fn no_file_selects_everything() {
        let host = MapHost::new().with_file("/w/a.prompty", "");
        let mut configs = Configs::default();
        assert_eq!(configs.find(Path::new("/w/a.prompty"), &host), None);
        assert_eq!(configs.selection(Path::new("/w/a.prompty"), None, &host), Ok(Selection::all()));
    }

    #[test]
    fn fail_on_is_read_and_checked() {
        let cfg = Path::new("/w/prompty.toml");
        assert_eq!(Config::parse(cfg, "").expect("config").fail_on(), None);
        assert_eq!(Config::parse(cfg, "[lint]\nselect = [\"ALL\"]\n").expect("config").fail_on(), None);
        for (value, severity) in [("info", Severity::Info), ("warning", Severity::Warning), ("error", Severity::Error)]
        {
            let c = Config::parse(cfg, &format!("[lint]\nfail-on = \"{value}\"\n")).expect("config");
            assert_eq!(c.fail_on(), Some(severity), "{value}");
        }
        let err = Config::parse(cfg, "[lint]\nfail-on = \"warnings\"\n").expect_err("bad value");
        assert_eq!(err.code(), codes::BAD_SEVERITY);
        assert!(
            err.message().starts_with("/w/prompty.toml:2:11: `fail-on = \"warnings\"` is not a severity"),
            "{}",
            err.message()
        );
        let host =
            MapHost::new().with_file("/w/prompty.toml", "[lint]\nfail-on = \"error\"\n").with_file("/w/a.prompty", "");
        let settings = Configs::default().settings(Path::new("/w/a.prompty"), None, &host).expect("config");
        assert_eq!(settings.fail_on, Some(Severity::Error));
        assert_eq!(settings.selection, Selection::all());
    }

    #[test]
    fn run_allows_key_variables() {
        let cfg = Path::new("/w/prompty.toml");
        let c = Config::parse(cfg, "[run]\nallow-key-vars = [\"GITHUB_TOKEN\", \"_X1\"]\n").expect("config");
        assert_eq!(c.allowed_key_vars(), ["GITHUB_TOKEN", "_X1"]);
        assert!(Config::parse(cfg, "").expect("config").allowed_key_vars().is_empty());
        let err = Config::parse(cfg, "[run]\nallow-key-vars = [\"1BAD\"]\n").expect_err("bad name");
        assert_eq!(
            err.message(),
            "/w/prompty.toml:2:19: `1BAD` is not an environment variable name\n  help: list variable names such as `GITHUB_TOKEN` (letters, digits and `_`, not starting with a digit)"
        );
        let err = Config::parse(cfg, "[run]\nallow-key-var = []\n").expect_err("bad key");
        assert!(err.message().contains(":2:1: unknown field `allow-key-var`"), "{}", err.message());
        assert!(err.message().contains("`[run]` takes `allow-key-vars`"), "{}", err.message());
    }

    #[test]
    fn errors_name_file_line_and_fix() {
        let cfg = Path::new("/w/prompty.toml");
        let err = Config::parse(cfg, "[lint]\nselect = [\"PL001\",\n  \"unused-inputs\"]\n").expect_err("bad code");
        assert_eq!(
            err.message(),
            "/w/prompty.toml:3:3: `unused-inputs` matches no code\n  help: did you mean `unused-input`? (run `prompty check --list-rules` for every code)"
        );
        let err = Config::parse(cfg, "[lint]\nselct = []\n").expect_err("bad key");
        assert!(err.message().contains(":2:1: unknown field `selct`"), "{}", err.message());
        let err = Config::parse(cfg, "[[lint.per-path]]\nglob = \"a/[b\"\n").expect_err("bad glob");
        assert!(err.message().contains(":2:8: invalid glob `a/[b`"), "{}", err.message());
        let err = Config::load(cfg, &MapHost::new()).expect_err("missing");
        assert_eq!(err.message(), "/w/prompty.toml: cannot read the configuration: no such file");
        assert_eq!((err.code(), err.span()), (codes::UNREADABLE, None));
    }

    /// Each error has its own code and the span of the text it is about, so that an editor
    /// underlines that text in `prompty.toml`.
    #[test]
    fn errors_carry_a_code_and_a_span() {
        let cfg = Path::new("/w/prompty.toml");
        let cases = [
            ("[lint]\nselect = [\"PL001\", \"nope\"]\n", codes::UNKNOWN_SELECTOR, "\"nope\""),
            ("[lint]\nselct = []\n", codes::SYNTAX, "selct"),
            ("[[lint.per-path]]\nglob = \"a/[b\"\n", codes::BAD_GLOB, "\"a/[b\""),
        ];
        for (text, code, spanned) in cases {
            let err = Config::parse(cfg, text).expect_err(text);
            let d = err.to_diagnostic();
            assert_eq!(d.code, code, "{text}");
            assert_eq!(&text[d.span.clone()], spanned, "{text}");
            assert!(d.help.is_some_and(|h| !h.is_empty()), "{text}");
        }
        assert!(codes::ALL.iter().all(|c| c.code.id.starts_with("PT")));
    }
}
