//! `${env:NAME}`, `${env:NAME:default}` and `${file:path}` references in front matter.
//!
//! Only a string value that is entirely a reference resolves; keys never do. `${file:}`
//! loads JSON, YAML or text by extension, relative to the prompt's folder, and must stay
//! inside that folder or a root the host allows. References inside loaded JSON and YAML
//! files resolve too, relative to the loaded file, with a depth limit against cycles.

use std::cell::OnceCell;
use std::path::{Component, Path, PathBuf};

use nom::bytes::complete::{tag, take_till, take_while1};
use nom::combinator::{all_consuming, opt, rest};
use nom::sequence::{delimited, preceded};
use nom::{IResult, Parser};

use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::host::{Host, HostError, normalize};
use crate::model::Profile;
use crate::secret::Secrets;
use crate::yaml::{Node, NodeValue};

/// How deep `${file:}` references may nest.
pub(crate) const MAX_FILE_DEPTH: usize = 8;

/// How many `${file:}` references one load may resolve in all, counting every file each
/// time it is read: references fan out (a file that names another file ten times, eight
/// levels deep, would be 10^8 reads).
pub(crate) const MAX_FILE_LOADS: usize = 256;

/// How many bytes all `${file:}` references of one load may read together.
pub(crate) const MAX_FILE_LOAD_BYTES: usize = crate::MAX_FILE_BYTES;

/// Where a walk over the front matter is: the folder `${file:}` paths are relative to, the
/// allowed roots, how many files deep, and what the load has spent so far.
#[derive(Clone, Copy)]
struct Walk<'a> {
    dir: Option<&'a Path>,
    /// Canonicalized at the first `${file:}` reference: most prompts have none, and a
    /// canonical path costs a system call per component of the path.
    roots: &'a OnceCell<Vec<PathBuf>>,
    depth: usize,
    spent: &'a Spent,
    /// The value under the current key holds a credential (`apiKey`...): no default is advised.
    secret_field: bool,
    /// Where in the file's own front matter the walk is, for [`Place::defers`].
    place: Place,
}

/// Where a value sits, as far as an unset `${env:}` reference cares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The top-level mapping.
    Root,
    /// Inside `model`, outside its connection settings.
    Model,
    /// Inside `model.connection` or `model.configuration` (v1): settings only a request
    /// reads (endpoint, key, API version), never rendering or compiling.
    Connection,
    /// Anywhere else.
    Other,
}

/// What one load has spent on `${file:}` references so far.
#[derive(Default)]
struct Spent {
    loads: std::cell::Cell<usize>,
    bytes: std::cell::Cell<usize>,
    reported: std::cell::Cell<bool>,
    /// The values `${env:}` supplied so far.
    secrets: std::cell::RefCell<Secrets>,
    /// Where the walk is in the file's own tree: the index of each entry or item on the way.
    path: std::cell::RefCell<Vec<usize>>,
    /// The file's own nodes that resolving replaced, with where they were.
    replaced: std::cell::RefCell<Replaced>,
}

/// What resolving did to a tree.
pub(crate) struct Resolved {
    /// The values `${env:}` supplied.
    pub(crate) secrets: Secrets,
    /// The nodes it replaced (see [`restore`]).
    pub(crate) replaced: Replaced,
}

/// Nodes resolving replaced, as written, each with its path: the index of each entry or item
/// on the way from the root.
pub(crate) type Replaced = Vec<(Vec<usize>, Node)>;

/// Puts back the nodes resolving replaced: `node` becomes the tree as written.
pub(crate) fn restore(node: &mut Node, replaced: Replaced) {
    fn at<'n>(node: &'n mut Node, path: &[usize]) -> Option<&'n mut Node> {
        let Some((&i, rest)) = path.split_first() else { return Some(node) };
        let next = match &mut node.value {
            NodeValue::Seq(items) => items.get_mut(i)?,
            NodeValue::Map(entries) => &mut entries.get_mut(i)?.1,
            _ => return None,
        };
        at(next, rest)
    }
    for (path, original) in replaced {
        if let Some(place) = at(node, &path) {
            *place = original;
        }
    }
}

/// A parsed reference: protocol and the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference<'a> {
    /// Lowercased by the caller; as written here.
    pub protocol: &'a str,
    /// Everything after the first `:`.
    pub value: &'a str,
}

/// Parses `${protocol:value}` when it is the whole string.
pub fn parse_reference(s: &str) -> Option<Reference<'_>> {
    if !s.starts_with("${") {
        return None;
    }
    fn inner(s: &str) -> IResult<&str, Reference<'_>> {
        let (rest_in, body) = all_consuming(delimited(tag("${"), take_till_last_brace, tag("}"))).parse(s)?;
        let (_, (protocol, value)) =
            (take_while1(|c: char| c.is_alphanumeric() || c == '_'), preceded(tag(":"), rest)).parse(body)?;
        Ok((rest_in, Reference { protocol, value }))
    }
    inner(s).ok().map(|(_, r)| r)
}

/// Everything up to the final `}` of the input.
fn take_till_last_brace(s: &str) -> IResult<&str, &str> {
    match s.rfind('}') {
        Some(i) => Ok((&s[i..], &s[..i])),
        None => take_till(|_| false).parse(s),
    }
}

/// Whether `name` can name an environment variable: not empty, no whitespace, no `=` (which
/// ends a name in the environment block) and no `$`, `{` or `}` (a reference written inside
/// another).
fn is_env_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| c.is_whitespace() || matches!(c, '=' | '$' | '{' | '}'))
}

/// Splits `NAME[:default]`; the default may itself contain `:`.
pub(crate) fn split_env(value: &str) -> (&str, Option<&str>) {
    let parsed: IResult<&str, (&str, Option<&str>)> =
        (take_till(|c| c == ':'), opt(preceded(tag(":"), rest))).parse(value);
    parsed.map_or((value, None), |(_, v)| v)
}

/// Resolution context.
pub(crate) struct Resolver<'a> {
    /// Host for env and files.
    pub(crate) host: &'a dyn Host,
    /// The folder `${file:}` paths are relative to (the prompt's folder).
    pub(crate) base_dir: Option<PathBuf>,
    /// Extra folders `${file:}` may read from.
    pub(crate) allowed_roots: &'a [PathBuf],
    /// v1 leaves unset variables literal instead of failing.
    pub(crate) profile: Profile,
    /// Linting: the environment is never read (see [`Resolver::lint_env`]).
    pub(crate) lint: bool,
    /// An unset variable in the connection settings or a credential field is an error, as
    /// everywhere else, instead of a warning that leaves it for the request to report.
    pub(crate) require_env: bool,
}

impl Resolver<'_> {
    /// Resolves every reference in `node`, in place, collecting problems. Returns the values
    /// environment variables supplied and the nodes it replaced.
    pub(crate) fn resolve(&self, node: &mut Node, diags: &mut Vec<Diagnostic>) -> Resolved {
        let roots = OnceCell::new();
        let spent = Spent::default();
        self.walk(
            node,
            Walk {
                dir: self.base_dir.as_deref(),
                roots: &roots,
                depth: 0,
                spent: &spent,
                secret_field: false,
                place: Place::Root,
            },
            diags,
        );
        Resolved { secrets: spent.secrets.into_inner(), replaced: spent.replaced.into_inner() }
    }

    fn roots(&self) -> Vec<PathBuf> {
        let mut roots = Vec::new();
        for root in self.base_dir.iter().chain(self.allowed_roots) {
            if let Ok(c) = self.host.canonicalize(root) {
                roots.push(c);
            }
        }
        roots
    }

    fn walk(&self, node: &mut Node, at: Walk<'_>, diags: &mut Vec<Diagnostic>) {
        // Paths are kept in the file's own tree only, not in the files it references.
        let own = at.depth == 0;
        let step = |i: usize, f: &mut dyn FnMut()| {
            if own {
                at.spent.path.borrow_mut().push(i);
            }
            f();
            if own {
                at.spent.path.borrow_mut().pop();
            }
        };
        match &mut node.value {
            NodeValue::Seq(items) => {
                let place = if at.place == Place::Connection { Place::Connection } else { Place::Other };
                for (i, item) in items.iter_mut().enumerate() {
                    step(i, &mut || self.walk(item, Walk { place, ..at }, diags));
                }
            }
            NodeValue::Map(entries) => {
                for (i, (k, v)) in entries.iter_mut().enumerate() {
                    // Asked only where it matters: a reference under the key, or a list.
                    let secret_field = match &v.value {
                        NodeValue::String(s) => s.starts_with("${"),
                        NodeValue::Seq(_) => true,
                        _ => false,
                    } && crate::secret::is_secret_field(&k.key_string());
                    let place = match (at.place, k.as_str().unwrap_or_default()) {
                        (Place::Root, "model") if own => Place::Model,
                        (Place::Model, "connection" | "configuration") => Place::Connection,
                        (Place::Connection, _) => Place::Connection,
                        _ => Place::Other,
                    };
                    step(i, &mut || self.walk(v, Walk { secret_field, place, ..at }, diags));
                }
            }
            NodeValue::String(s) => {
                if let Some(new) = self.resolve_string(s, &node.span, at, diags) {
                    let original = std::mem::replace(node, new);
                    if own {
                        at.spent.replaced.borrow_mut().push((at.spent.path.borrow().clone(), original));
                    }
                }
            }
            _ => {}
        }
    }

    fn resolve_string(
        &self,
        s: &str,
        span: &std::ops::Range<usize>,
        at: Walk<'_>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Node> {
        let r = parse_reference(s)?;
        match r.protocol.to_ascii_lowercase().as_str() {
            "env" => {
                let (name, default) = split_env(r.value);
                if self.lint {
                    return self.lint_env(name, default, span, diags);
                }
                // A credential gets no default: the advice is to set it.
                let help = if at.secret_field {
                    format!("set {name} where the prompt runs")
                } else {
                    format!("set {name}, or give a default: ${{env:{name}:value}}")
                };
                let deferred = at.place == Place::Connection || at.secret_field;
                match (self.host.env(name), default) {
                    (Some(v), _) => {
                        at.spent.secrets.borrow_mut().add(name, &v);
                        Some(Node { value: NodeValue::String(v), span: span.clone() })
                    }
                    (None, Some(d)) => Some(Node { value: NodeValue::String(d.to_owned()), span: span.clone() }),
                    // Only a request reads these: loading, rendering and compiling go on, and
                    // the request (`prompty run`, a live `eval`) reports the variable.
                    (None, None) if !self.require_env && deferred => {
                        at.spent.secrets.borrow_mut().add_unset(name);
                        diags.push(
                            Diagnostic::warning(
                                codes::ENV_NOT_SET,
                                span.clone(),
                                format!(
                                    "Environment variable '{name}' not set; the value stays literal until a request needs it"
                                ),
                            )
                            .with_help(help),
                        );
                        None
                    }
                    (None, None) if self.profile == Profile::Promptflow && !(self.require_env && deferred) => {
                        diags.push(
                            Diagnostic::warning(
                                codes::ENV_NOT_SET,
                                span.clone(),
                                format!("Environment variable '{name}' not set; the value stays literal"),
                            )
                            .with_help(help),
                        );
                        None
                    }
                    (None, None) => {
                        diags.push(
                            Diagnostic::error(
                                codes::ENV_NOT_SET,
                                span.clone(),
                                format!("Environment variable '{name}' not set"),
                            )
                            .with_help(help),
                        );
                        None
                    }
                }
            }
            "file" => self.load_file(r.value, span, at, diags),
            other => {
                diags.push(
                    Diagnostic::warning(
                        codes::UNKNOWN_REFERENCE,
                        span.clone(),
                        format!("unknown reference protocol `{other}`; the value stays literal"),
                    )
                    .with_help("only `${env:NAME}` and `${file:path}` are resolved"),
                );
                None
            }
        }
    }

    /// A reference as `check` sees it: the environment is never read, so that a file gives
    /// the same findings on every machine. The default stands in for the value; without
    /// one the reference stays literal (PL013 reports a missing default where one helps).
    fn lint_env(
        &self,
        name: &str,
        default: Option<&str>,
        span: &std::ops::Range<usize>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Node> {
        if !is_env_name(name) {
            let shown = if name.is_empty() { "an empty name".to_owned() } else { format!("`{name}`") };
            diags.push(
                Diagnostic::warning(
                    codes::BAD_ENV_NAME,
                    span.clone(),
                    format!("`${{env:...}}` names {shown}, which is not an environment variable name"),
                )
                .with_help("write `${env:NAME}` or `${env:NAME:default}`, NAME without spaces, `=`, `$` or braces"),
            );
            return None;
        }
        default.map(|d| Node { value: NodeValue::String(d.to_owned()), span: span.clone() })
    }

    fn load_file(
        &self,
        rel: &str,
        span: &std::ops::Range<usize>,
        at: Walk<'_>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Node> {
        let Walk { dir, roots, depth, spent, .. } = at;
        let roots = roots.get_or_init(|| self.roots()).as_slice();
        let err = |code, msg: String, help: &str| Diagnostic::error(code, span.clone(), msg).with_help(help.to_owned());
        if depth >= MAX_FILE_DEPTH {
            diags.push(err(
                codes::REFERENCE_DEPTH,
                format!("`${{file:{rel}}}` is nested more than {MAX_FILE_DEPTH} files deep"),
                "check the referenced files for a cycle",
            ));
            return None;
        }
        let Some(dir) = dir else {
            diags.push(err(
                codes::FILE_NOT_FOUND,
                format!("Referenced file not found: {rel} (the prompt has no folder to resolve it from)"),
                "load the prompt from a file to use `${file:}` references",
            ));
            return None;
        };
        let joined = dir.join(rel);
        // A path that leaves the allowed folders is refused before the file system is asked
        // whether it exists, so the answer never tells what lies outside.
        if let Ok(real_dir) = self.host.canonicalize(dir) {
            let lexical = normalize(&real_dir.join(rel));
            if !roots.iter().any(|root| lexical.starts_with(root)) {
                diags.push(outside(rel, span));
                return None;
            }
        }
        let unreadable = |e: HostError| match e {
            HostError::NotFound => err(
                codes::FILE_NOT_FOUND,
                format!("Referenced file not found: {rel}"),
                "check the path; it is relative to the prompt's folder",
            ),
            e => err(codes::FILE_NOT_FOUND, format!("cannot read `{rel}`: {e}"), "reference a regular text file"),
        };
        let canonical = match self.host.canonicalize(&joined) {
            Ok(c) => c,
            Err(e) => {
                // The path cannot be resolved. Whether its deepest resolvable folder lies
                // outside the roots (a symlinked folder pointing out) decides the answer,
                // so a missing file out there reads exactly like an existing one.
                if self.resolves_outside(dir, rel, roots) {
                    diags.push(outside(rel, span));
                } else {
                    diags.push(unreadable(e));
                }
                return None;
            }
        };
        if !roots.iter().any(|root| canonical.starts_with(root)) {
            diags.push(outside(rel, span));
            return None;
        }
        if spent.loads.get() >= MAX_FILE_LOADS || spent.bytes.get() > MAX_FILE_LOAD_BYTES {
            if !spent.reported.replace(true) {
                diags.push(err(
                    codes::REFERENCE_DEPTH,
                    format!(
                        "`${{file:{rel}}}`: the prompt's file references read more than {MAX_FILE_LOADS} files or {MAX_FILE_LOAD_BYTES} bytes in all"
                    ),
                    "check the referenced files for references that repeat or fan out",
                ));
            }
            return None;
        }
        let text = match self.host.read_to_string(&canonical) {
            Ok(t) => t,
            Err(e) => {
                diags.push(unreadable(e));
                return None;
            }
        };
        spent.loads.set(spent.loads.get() + 1);
        spent.bytes.set(spent.bytes.get().saturating_add(text.len()));
        let ext = canonical.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        let value = match ext.as_deref() {
            Some("json") => match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(v) => v,
                Err(e) => {
                    diags.push(err(
                        codes::FILE_PARSE,
                        format!("`{rel}` is not valid JSON: {e}"),
                        "fix the referenced file",
                    ));
                    return None;
                }
            },
            Some("yaml" | "yml") => match crate::yaml::parse(&text, 0, &text) {
                Ok(n) => n.to_json(),
                Err(d) => {
                    diags.push(err(
                        codes::FILE_PARSE,
                        format!("`{rel}` is not valid YAML: {}", d.message),
                        "fix the referenced file",
                    ));
                    return None;
                }
            },
            _ => serde_json::Value::String(text),
        };
        let mut node = Node::synthetic(&value, span.clone());
        if !matches!(node.value, NodeValue::String(_)) {
            let sub_dir = canonical.parent().map(Path::to_path_buf);
            self.walk(
                &mut node,
                Walk { dir: sub_dir.as_deref(), depth: at.depth + 1, secret_field: false, ..at },
                diags,
            );
        }
        Some(node)
    }
}

impl Resolver<'_> {
    /// Whether resolving `rel` from `dir` touches the file system outside every root: the
    /// path is followed component by component, symbolic links included (their targets
    /// read through the host), without needing the components to exist. A path whose
    /// resolution passes outside is reported as outside whatever lies there, so the
    /// answer never tells whether something outside exists.
    fn resolves_outside(&self, dir: &Path, rel: &str, roots: &[PathBuf]) -> bool {
        /// As many links as Linux follows before ELOOP.
        const MAX_LINKS: usize = 40;
        let Ok(start) = self.host.canonicalize(dir) else { return false };
        let inside = |p: &Path| roots.iter().any(|root| p.starts_with(root));
        let above_a_root = |p: &Path| roots.iter().any(|root| root.starts_with(p));
        let mut out = start;
        // Components still to walk, each as an owned single-component path.
        let mut queue: std::collections::VecDeque<PathBuf> =
            Path::new(rel).components().map(|c| PathBuf::from(c.as_os_str())).collect();
        let mut links = 0;
        while let Some(piece) = queue.pop_front() {
            let Some(c) = piece.components().next() else { continue };
            match c {
                Component::Prefix(_) | Component::RootDir => out = piece.clone(),
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                Component::Normal(name) => {
                    let next = out.join(name);
                    match self.host.read_link(&next) {
                        Some(target) => {
                            links += 1;
                            if links > MAX_LINKS {
                                return true;
                            }
                            for t in target.components().rev() {
                                queue.push_front(PathBuf::from(t.as_os_str()));
                            }
                            continue;
                        }
                        None => out = next,
                    }
                }
            }
            if !inside(&out) && !above_a_root(&out) {
                return true;
            }
        }
        !inside(&out)
    }
}

/// `${file:rel}` leaves the prompt's folder and every allowed root.
fn outside(rel: &str, span: &std::ops::Range<usize>) -> Diagnostic {
    Diagnostic::error(
        codes::FILE_OUTSIDE_ROOTS,
        span.clone(),
        format!("`${{file:{rel}}}` resolves outside allowed roots"),
    )
    .with_help("reference files inside the prompt's folder, or allow another folder with --allow-root")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse() {
        assert_eq!(parse_reference("${env:X}"), Some(Reference { protocol: "env", value: "X" }));
        assert_eq!(
            parse_reference("${env:E:https://a.b/v1}"),
            Some(Reference { protocol: "env", value: "E:https://a.b/v1" })
        );
        assert_eq!(parse_reference("prefix ${env:X}"), None);
        assert_eq!(parse_reference("${env:X} suffix"), None);
        assert_eq!(parse_reference("${nocolon}"), None);
        assert_eq!(split_env("E:https://a.b/v1"), ("E", Some("https://a.b/v1")));
        assert_eq!(split_env("E"), ("E", None));
        assert_eq!(split_env("E:"), ("E", Some("")));
    }
}
