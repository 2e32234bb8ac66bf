//! The module graph of one crate, read from its source files, and the import cycles in it.
//!
//! A module is a file (`lib.rs` or `main.rs` is the crate root, `a/mod.rs` and `a.rs` are
//! `a`, `a/b.rs` is `a::b`); inline modules (`mod tests { ... }`) count as part of their
//! file. A module uses another when its code names it through a path: `use` trees
//! (`use crate::{a, b::c}`, `use super::x::{self, Y}`), and paths in code that start with
//! `crate::`, `$crate::`, `super::`, `self::` or the name of a child module
//! (`filters::install` in `mod.rs`). A name the crate root or a `mod.rs` brings in with
//! `use` (a re-export such as `pub use engine::check_nesting`) is followed to the module
//! it comes from. The crate root itself is left out: it declares every module and re-exports
//! from them, and it is the crate's facade rather than a layer.
//!
//! Comments and string literals are skipped, so a doc link (`[x](crate::a::X)`) is not a use.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

/// Which modules of a crate use which.
#[derive(Debug, Clone, Default)]
pub struct ModuleGraph {
    /// Every module of the crate but the root, by path (`compat::py`), with the
    /// modules it uses (itself and the root left out).
    pub uses: BTreeMap<String, BTreeSet<String>>,
}

/// A group of modules that use each other in a circle (a strongly connected component of
/// more than one module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The modules in the group, sorted.
    pub modules: Vec<String>,
    /// One shortest circle through the first of them, first module repeated at the end.
    pub example: Vec<String>,
}

impl std::fmt::Display for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{{{}}}, e.g. {}", self.modules.join(", "), self.example.join(" -> "))
    }
}

impl ModuleGraph {
    /// Reads every `.rs` file under `src_dir` (a crate's `src`).
    pub fn read(src_dir: &Path) -> ModuleGraph {
        let mut files = Vec::new();
        collect(src_dir, src_dir, &mut files);
        ModuleGraph::from_sources(&files)
    }

    /// The graph of the given files, each a path relative to `src` (`a/b.rs`) and its text.
    pub fn from_sources(files: &[(String, String)]) -> ModuleGraph {
        let modules: BTreeMap<Vec<String>, Vec<Token>> =
            files.iter().filter_map(|(path, text)| Some((module_of(path)?, tokens(&strip(text))))).collect();
        let known: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
        let mut imports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        let mut paths: BTreeMap<Vec<String>, Vec<Written>> = BTreeMap::new();
        for (module, toks) in &modules {
            let found = scan(module, toks, &known);
            imports.insert(module.clone(), found.imports);
            paths.insert(module.clone(), found.paths);
        }
        let resolver = Resolver { known: &known, imports: &imports };
        let mut graph = ModuleGraph::default();
        for (module, found) in &paths {
            if module.is_empty() {
                continue;
            }
            let targets = graph.uses.entry(module.join("::")).or_default();
            for (scope, path) in found {
                if let Some(target) = resolver.resolve(scope, path, 0)
                    && !target.is_empty()
                    && &target != module
                {
                    targets.insert(target.join("::"));
                }
            }
        }
        graph
    }

    /// The graph of `module` and the modules under it (`compat`, `compat::py`,
    /// ...), with only the uses among them.
    pub fn within(&self, module: &str) -> ModuleGraph {
        let inside = |m: &str| m == module || m.strip_prefix(module).is_some_and(|r| r.starts_with("::"));
        let uses = self
            .uses
            .iter()
            .filter(|(m, _)| inside(m))
            .map(|(m, t)| (m.clone(), t.iter().filter(|t| inside(t)).cloned().collect()))
            .collect();
        ModuleGraph { uses }
    }

    /// Every group of modules that use each other in a circle, sorted by their first module.
    pub fn cycles(&self) -> Vec<Cycle> {
        let names: Vec<&str> = self.uses.keys().map(String::as_str).collect();
        let index: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let succ: Vec<Vec<usize>> =
            self.uses.values().map(|t| t.iter().filter_map(|n| index.get(n.as_str()).copied()).collect()).collect();
        let mut cycles: Vec<Cycle> = components(&succ)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|mut c| {
                c.sort_unstable();
                let example = shortest_circle(&succ, &c).into_iter().map(|i| names[i].to_owned()).collect();
                Cycle { modules: c.into_iter().map(|i| names[i].to_owned()).collect(), example }
            })
            .collect();
        cycles.sort_by(|a, b| a.modules.cmp(&b.modules));
        cycles
    }
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let rel = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.push((rel, text));
        }
    }
}

/// The module a file under `src` holds; `None` for binaries under `bin/`.
fn module_of(rel: &str) -> Option<Vec<String>> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        return Some(Vec::new());
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts)
}

/// The text with comments, string literals and character literals blanked out.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
            continue;
        }
        if rest.starts_with("/*") {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                if text[j..].starts_with("/*") {
                    depth += 1;
                    j += 2;
                } else if text[j..].starts_with("*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            i = j;
            out.push(' ');
            continue;
        }
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        // Raw strings: r"..", r#".."#, br#".."#.
        let raw_at = if rest.starts_with("br") {
            Some(2)
        } else if rest.starts_with('r') {
            Some(1)
        } else {
            None
        };
        if let (Some(skip), false) = (raw_at, ident_before) {
            let hashes = rest[skip..].bytes().take_while(|&c| c == b'#').count();
            if rest.as_bytes().get(skip + hashes) == Some(&b'"') {
                let close = format!("\"{}", "#".repeat(hashes));
                let body = skip + hashes + 1;
                i += body + rest[body..].find(&close).map_or(rest.len() - body, |e| e + close.len());
                out.push_str("\"\"");
                continue;
            }
        }
        if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
            out.push_str("\"\"");
            continue;
        }
        if b[i] == b'\'' {
            // A character literal ('x', '\n', '\u{1F600}'), or else a lifetime or label.
            let mut chars = rest[1..].chars();
            let literal_len = match chars.next() {
                Some('\\') => rest[2..].find('\'').map(|e| e + 3),
                Some(c) if chars.next() == Some('\'') => Some(1 + c.len_utf8() + 1),
                _ => None,
            };
            if let Some(len) = literal_len {
                i += len;
                out.push_str("' '");
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    Path,
    Open,
    Close,
    Semi,
    Comma,
    Star,
    Other,
}

fn tokens(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' || (c == b'$' && text[i + 1..].starts_with("crate")) {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Token::Ident(text[start..i].to_owned()));
            continue;
        }
        if text[i..].starts_with("::") {
            out.push(Token::Path);
            i += 2;
            continue;
        }
        out.push(match c {
            b'{' => Token::Open,
            b'}' => Token::Close,
            b';' => Token::Semi,
            b',' => Token::Comma,
            b'*' => Token::Star,
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ => Token::Other,
        });
        i += if c.is_ascii() { 1 } else { text[i..].chars().next().map_or(1, char::len_utf8) };
    }
    out
}

/// What one file names: the names its `use` items bring in at its top level, and every
/// path it writes, each with the module it is written in (inline modules included).
struct Found {
    imports: BTreeMap<String, Vec<String>>,
    paths: Vec<Written>,
}

/// The module a path is written in (inline modules included) and the path as written
/// (`["super", "py", "str_of"]`).
type Written = (Vec<String>, Vec<String>);

fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token::Ident(s)) => Some(s),
        _ => None,
    }
}

fn scan(module: &[String], toks: &[Token], known: &BTreeSet<Vec<String>>) -> Found {
    let mut found = Found { imports: BTreeMap::new(), paths: Vec::new() };
    // The inline modules we are in, each with the brace depth its body opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let scope: Vec<String> = module.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
        match &toks[i] {
            Token::Open => depth += 1,
            Token::Close => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Token::Ident(kw) if kw == "mod" => {
                if let (Some(name), Some(Token::Open)) = (ident(toks.get(i + 1)), toks.get(i + 2)) {
                    inline.push((name.to_owned(), depth + 1));
                    depth += 1;
                    i += 3;
                    continue;
                }
            }
            Token::Ident(kw) if kw == "use" => {
                let mut j = i + 1;
                let mut trees = Vec::new();
                use_tree(toks, &mut j, Vec::new(), &mut trees);
                for (path, name) in trees {
                    if let (true, Some(name)) = (inline.is_empty(), name) {
                        found.imports.insert(name, path.clone());
                    }
                    found.paths.push((scope.clone(), path));
                }
                i = j;
                continue;
            }
            Token::Ident(first) if i == 0 || toks[i - 1] != Token::Path => {
                let starts = matches!(first.as_str(), "crate" | "$crate" | "super" | "self") || {
                    let mut child = scope.clone();
                    child.push(first.clone());
                    known.contains(&child)
                };
                if starts && toks.get(i + 1) == Some(&Token::Path) {
                    let mut path = vec![first.clone()];
                    let mut j = i + 1;
                    while toks.get(j) == Some(&Token::Path) {
                        let Some(next) = ident(toks.get(j + 1)) else { break };
                        path.push(next.to_owned());
                        j += 2;
                    }
                    found.paths.push((scope, path));
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// Reads a use tree at `toks[*j]`, adding each leaf path under `prefix` with the name it
/// brings in (none for `*`), and stops after the tree (at `,`, `}` or `;`).
fn use_tree(toks: &[Token], j: &mut usize, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let mut path = prefix;
    loop {
        match toks.get(*j) {
            Some(Token::Ident(s)) if s != "as" => {
                path.push(s.clone());
                *j += 1;
                if toks.get(*j) == Some(&Token::Path) {
                    *j += 1;
                    continue;
                }
                let mut name = path.last().cloned().filter(|n| n != "self");
                if name.is_none() {
                    name = path.iter().rev().nth(1).cloned();
                }
                if ident(toks.get(*j)) == Some("as") {
                    name = ident(toks.get(*j + 1)).map(str::to_owned);
                    *j += 2;
                }
                out.push((path, name));
                break;
            }
            Some(Token::Star) => {
                *j += 1;
                out.push((path, None));
                break;
            }
            Some(Token::Open) => {
                *j += 1;
                loop {
                    match toks.get(*j) {
                        Some(Token::Close) => {
                            *j += 1;
                            break;
                        }
                        Some(Token::Comma) => *j += 1,
                        None => return,
                        Some(_) => {
                            let before = *j;
                            use_tree(toks, j, path.clone(), out);
                            if *j == before {
                                *j += 1;
                            }
                        }
                    }
                }
                break;
            }
            _ => break,
        }
    }
    if toks.get(*j) == Some(&Token::Semi) {
        *j += 1;
    }
}

struct Resolver<'a> {
    known: &'a BTreeSet<Vec<String>>,
    imports: &'a BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
}

impl Resolver<'_> {
    /// The module (a file) that `path`, written in `scope`, names; `None` when it names
    /// something outside the crate.
    fn resolve(&self, scope: &[String], path: &[String], hops: usize) -> Option<Vec<String>> {
        let (mut base, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
            Some("crate" | "$crate") => (Vec::new(), &path[1..]),
            Some("self") => (scope.to_vec(), &path[1..]),
            Some("super") => {
                let supers = path.iter().take_while(|s| *s == "super").count();
                let mut base = scope.to_vec();
                for _ in 0..supers {
                    base.pop()?;
                }
                (base, &path[supers..])
            }
            Some(first) => {
                let mut child = scope.to_vec();
                child.push(first.to_owned());
                if !self.known.contains(&child) {
                    return None;
                }
                (scope.to_vec(), path)
            }
            None => return None,
        };
        // An inline module's path belongs to its file.
        while !base.is_empty() && !self.known.contains(&base) {
            base.pop();
        }
        let mut rest = rest.iter();
        for seg in rest.by_ref() {
            let mut next = base.clone();
            next.push(seg.clone());
            if self.known.contains(&next) {
                base = next;
                continue;
            }
            // A name the module brings in with `use` is followed to where it comes from.
            if let Some(source) = self.imports.get(&base).and_then(|m| m.get(seg))
                && hops < 8
                && let Some(target) = self.resolve(&base, source, hops + 1)
            {
                return Some(target);
            }
            break;
        }
        Some(base)
    }
}

/// The strongly connected components of the graph (Tarjan's algorithm).
fn components(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'s> {
        succ: &'s [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.succ[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = succ.len();
    let mut s = State {
        succ,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// A shortest circle from `group[0]` back to itself inside `group` (breadth first).
fn shortest_circle(succ: &[Vec<usize>], group: &[usize]) -> Vec<usize> {
    let start = group[0];
    let inside: BTreeSet<usize> = group.iter().copied().collect();
    let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &succ[v] {
            if w == start {
                let mut path = vec![start];
                let mut at = v;
                while at != start {
                    path.push(at);
                    at = came_from[&at];
                }
                path.push(start);
                path.reverse();
                return path;
            }
            if inside.contains(&w) && w != start && !came_from.contains_key(&w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start, start]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(files: &[(&str, &str)]) -> ModuleGraph {
        let files: Vec<(String, String)> = files.iter().map(|(p, t)| ((*p).to_owned(), (*t).to_owned())).collect();
        ModuleGraph::from_sources(&files)
    }

    fn uses<'g>(g: &'g ModuleGraph, module: &str) -> Vec<&'g str> {
        g.uses.get(module).map(|t| t.iter().map(String::as_str).collect()).unwrap_or_default()
    }

    #[test]
    fn use_trees_code_paths_and_reexports_are_uses() {
        let g = graph(&[
            ("lib.rs", "mod a; mod b; mod c; mod d; pub mod e; pub use c::Thing;\nuse other_crate::x;"),
            ("a.rs", "use crate::{b, e::f::{self, G as H}};\nfn x() { crate::Thing::new(); }"),
            ("b.rs", "fn y() -> crate::d::D { todo!() }"),
            ("c.rs", "pub struct Thing;"),
            ("d.rs", "use std::fmt;\nuse super::x::Y; // crate::a in a comment\nconst S: &str = \"crate::a::Z\";"),
            ("e/mod.rs", "mod f;\nfn z() { f::run(); }"),
            ("e/f.rs", "use super::super::c::*;\n#[cfg(test)]\nmod tests { use super::*; use crate::b; }"),
        ]);
        assert_eq!(uses(&g, "a"), ["b", "c", "e::f"]);
        assert_eq!(uses(&g, "b"), ["d"]);
        assert_eq!(uses(&g, "d"), Vec::<&str>::new());
        assert_eq!(uses(&g, "e"), ["e::f"]);
        assert_eq!(uses(&g, "e::f"), ["b", "c"]);
        assert!(g.cycles().is_empty());
        let e = g.within("e");
        assert_eq!(e.uses.keys().collect::<Vec<_>>(), ["e", "e::f"]);
        assert_eq!(uses(&e, "e::f"), Vec::<&str>::new());
    }

    #[test]
    fn cycles_are_reported_with_their_modules_and_a_shortest_circle() {
        let g = graph(&[
            ("lib.rs", "mod a; mod b; mod c; mod d; mod e;"),
            ("a.rs", "use crate::b::X;"),
            ("b.rs", "use crate::c::Y;\nuse crate::e;"),
            ("c.rs", "fn f() { crate::a::g(); crate::b::h(); }"),
            ("d.rs", "use crate::a;"),
            ("e.rs", "use crate::d; fn f(x: &'static str) -> char { 'x' }"),
        ]);
        let cycles = g.cycles();
        assert_eq!(cycles.len(), 1, "{cycles:?}");
        assert_eq!(cycles[0].modules, ["a", "b", "c", "d", "e"]);
        assert_eq!(cycles[0].example, ["a", "b", "c", "a"]);
        assert_eq!(cycles[0].to_string(), "{a, b, c, d, e}, e.g. a -> b -> c -> a");
    }

    #[test]
    fn comments_strings_and_lifetimes_are_skipped() {
        let stripped = strip("a /* x /* y */ z */ b // c\n\"d\\\"e\" r#\"f\"g\"# 'h' '\\n' 'i b'");
        assert_eq!(
            stripped.split_whitespace().collect::<Vec<_>>(),
            ["a", "b", "\"\"", "\"\"", "'", "'", "'", "'", "'i", "b'"]
        );
    }
}
