//! `prompty.toml`: which codes `prompty check` reports, per path.
//!
//! ```toml
//! [lint]
//! select = ["ALL"]          # codes, prefixes (`PL0`, `P0`), rule names, or ALL (the default)
//! ignore = ["PL019"]
//!
//! [[lint.per-path]]
//! glob = "prompts/legacy/**"  # relative to the folder of prompty.toml
//! ignore = ["P030", "PL010"]
//! select = []               # turns codes back on for these paths
//! ```
//!
//! The file is found by walking up from each checked file's folder; the nearest one wins.
//! Per-path entries apply in order after the top-level lists.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobMatcher};
use prompty_lint::Selection;
use serde::Deserialize;
use toml::Spanned;

/// The configuration file's name.
pub(crate) const FILE_NAME: &str = "prompty.toml";

/// A loaded `prompty.toml`.
#[derive(Debug)]
pub(crate) struct Config {
    /// The folder globs are relative to.
    dir: PathBuf,
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    per_path: Vec<PerPath>,
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawLint {
    select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
    per_path: Option<Vec<RawPerPath>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPerPath {
    glob: Spanned<String>,
    select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
}

/// A configuration error: where and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigError {
    pub(crate) message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn located(path: &Path, text: &str, span: Option<Range<usize>>, message: &str, help: &str) -> ConfigError {
    let at = match span {
        Some(s) => {
            let (line, col) = prompty_syntax::LineIndex::new(text).line_col(text, s.start);
            format!("{}:{line}:{col}", path.display())
        }
        None => path.display().to_string(),
    };
    ConfigError { message: format!("{at}: {message}\n  help: {help}") }
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
            return Err(located(path, text, Some(span), &format!("`{value}` matches no code"), &help));
        }
        out.push(value);
    }
    Ok(out)
}

impl Config {
    /// Reads and validates `path`.
    pub(crate) fn load(path: &Path) -> Result<Config, ConfigError> {
        let cannot = |why: String| ConfigError { message: format!("{}: {why}", path.display()) };
        let file = std::fs::File::open(path)
            .map_err(|e| cannot(format!("cannot read the configuration: {}", crate::inputs::describe_io(&e))))?;
        let bytes = crate::inputs::read_limited(file).map_err(cannot)?;
        let text = String::from_utf8(bytes).map_err(|_| cannot("the configuration is not UTF-8 text".to_owned()))?;
        let raw: RawFile = toml::from_str(&text).map_err(|e| {
            let message = e.message().trim().to_owned();
            let help = if message.contains("unknown field") {
                "`[lint]` takes `select`, `ignore` and `[[lint.per-path]]` entries with `glob`, `select`, `ignore`"
            } else {
                "fix the TOML syntax"
            };
            located(path, &text, e.span(), &message, help)
        })?;
        let dir = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let Some(lint) = raw.lint else {
            return Ok(Config { dir, select: None, ignore: Vec::new(), per_path: Vec::new() });
        };
        let select = match lint.select {
            Some(list) => Some(codes(path, &text, Some(list))?),
            None => None,
        };
        let ignore = codes(path, &text, lint.ignore)?;
        let mut per_path = Vec::new();
        for entry in lint.per_path.unwrap_or_default() {
            let span = entry.glob.span();
            let glob = entry.glob.into_inner();
            let built: Result<Glob, _> = GlobBuilder::new(&glob).literal_separator(true).build();
            let matcher = built
                .map_err(|e| {
                    located(
                        path,
                        &text,
                        Some(span),
                        &format!("invalid glob `{glob}`: {}", e.kind()),
                        "write a glob relative to this file's folder, e.g. `prompts/legacy/**`",
                    )
                })?
                .compile_matcher();
            per_path.push(PerPath {
                matcher,
                select: codes(path, &text, entry.select)?,
                ignore: codes(path, &text, entry.ignore)?,
            });
        }
        Ok(Config { dir, select, ignore, per_path })
    }

    /// The codes to report for `file`.
    pub(crate) fn selection(&self, file: &Path) -> Selection {
        // The selectors were checked when the file was loaded.
        let mut s = match &self.select {
            Some(list) => Selection::only(list).unwrap_or_default(),
            None => Selection::all(),
        };
        let _ = s.ignore(&self.ignore);
        let absolute = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        let dir = std::fs::canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone());
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

/// Finds and caches the nearest `prompty.toml` above each file.
#[derive(Default)]
pub(crate) struct Configs {
    /// Configuration file per folder searched (`None`: no file up from there).
    by_dir: HashMap<PathBuf, Option<PathBuf>>,
    loaded: HashMap<PathBuf, Config>,
}

impl Configs {
    /// The selection for `file`: from `explicit` when given, else from the nearest
    /// `prompty.toml` above it, else everything.
    pub(crate) fn selection(&mut self, file: &Path, explicit: Option<&Path>) -> Result<Selection, ConfigError> {
        let path = match explicit {
            Some(p) => Some(p.to_path_buf()),
            None => self.find(file),
        };
        let Some(path) = path else { return Ok(Selection::all()) };
        if !self.loaded.contains_key(&path) {
            let config = Config::load(&path)?;
            self.loaded.insert(path.clone(), config);
        }
        Ok(self.loaded.get(&path).map_or_else(Selection::all, |c| c.selection(file)))
    }

    fn find(&mut self, file: &Path) -> Option<PathBuf> {
        let absolute = std::fs::canonicalize(file).ok()?;
        let start = absolute.parent()?.to_path_buf();
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
            if candidate.is_file() {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, text).expect("write");
        p
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("prompty-config-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        dir
    }

    #[test]
    fn per_path_ignores() {
        let dir = temp("per-path");
        let cfg = write(
            &dir,
            FILE_NAME,
            "[lint]\nignore = [\"PL019\"]\n[[lint.per-path]]\nglob = \"legacy/**\"\nignore = [\"P030\", \"unused-input\"]\n",
        );
        let legacy = write(&dir, "legacy/a/x.prompty", "");
        let other = write(&dir, "new/x.prompty", "");
        let mut configs = Configs::default();
        let s = configs.selection(&legacy, None).expect("config");
        assert!(!s.is_selected("P030") && !s.is_selected("PL002") && !s.is_selected("PL019"));
        let s = configs.selection(&other, None).expect("config");
        assert!(s.is_selected("P030") && s.is_selected("PL002") && !s.is_selected("PL019"));
        assert!(configs.find(&other) == Some(cfg));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn errors_name_file_line_and_fix() {
        let dir = temp("errors");
        let cfg = write(&dir, FILE_NAME, "[lint]\nselect = [\"PL001\",\n  \"unused-inputs\"]\n");
        let err = Config::load(&cfg).expect_err("bad code");
        assert!(err.message.ends_with(":3:3: `unused-inputs` matches no code\n  help: did you mean `unused-input`? (run `prompty check --list-rules` for every code)"), "{}", err.message);
        let cfg = write(&dir, FILE_NAME, "[lint]\nselct = []\n");
        let err = Config::load(&cfg).expect_err("bad key");
        assert!(err.message.contains(":2:1: unknown field `selct`"), "{}", err.message);
        let cfg = write(&dir, FILE_NAME, "[[lint.per-path]]\nglob = \"a/[b\"\n");
        let err = Config::load(&cfg).expect_err("bad glob");
        assert!(err.message.contains(":2:8: invalid glob `a/[b`"), "{}", err.message);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
