//! Checks of the workspace itself, from `cargo metadata`: every declared dependency is used,
//! the crate graph in `docs/architecture.md` is the real one, and no crate's modules import
//! each other in a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use prompty_test_support::modules::{Cycle, ModuleGraph};
use serde_json::Value;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn metadata() -> Value {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

fn str_of<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn packages(meta: &Value) -> Vec<&Value> {
    meta["packages"].as_array().map(|a| a.iter().collect()).unwrap_or_default()
}

/// The text of every `.rs` file under `dir`, with its path.
fn rust_files(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((path.clone(), std::fs::read_to_string(&path).unwrap_or_default()));
        }
    }
}

/// Whether `text` names the crate `ident` as a path root (`ident::`, `use ident`,
/// `extern crate ident`) or as a macro or attribute (`ident!`, `#[ident`).
fn names_crate(text: &str, ident: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(ident).any(|(at, _)| {
        let before = at.checked_sub(1).and_then(|i| bytes.get(i)).copied();
        let boundary = before.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_'));
        let rest = text.get(at + ident.len()..).unwrap_or_default();
        boundary
            && (rest.starts_with("::")
                || rest.starts_with('!')
                || rest.starts_with(';')
                || rest.starts_with(" as ")
                || text.get(..at).is_some_and(|h| h.ends_with("#[") || h.ends_with("extern crate ")))
    })
}

#[test]
fn every_declared_dependency_is_used() {
    let meta = metadata();
    let mut unused = Vec::new();
    for package in packages(&meta) {
        let name = str_of(package, "name");
        let dir = Path::new(str_of(package, "manifest_path")).parent().map(Path::to_path_buf).unwrap_or_default();
        let mut lib = Vec::new();
        rust_files(&dir.join("src"), &mut lib);
        let mut dev = lib.clone();
        for folder in ["tests", "benches", "examples"] {
            rust_files(&dir.join(folder), &mut dev);
        }
        let mut build = Vec::new();
        if let Ok(text) = std::fs::read_to_string(dir.join("build.rs")) {
            build.push((dir.join("build.rs"), text));
        }
        // Dependencies kept on purpose (a feature switch, a version pin) are listed under
        // `[package.metadata.cargo-machete] ignored`, as cargo-machete reads them.
        let ignored: Vec<&str> = package
            .pointer("/metadata/cargo-machete/ignored")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let dep_name = str_of(dep, "name");
            let ident = dep.get("rename").and_then(Value::as_str).unwrap_or(dep_name).replace('-', "_");
            if ignored.contains(&dep_name) {
                continue;
            }
            let (files, kind) = match dep.get("kind").and_then(Value::as_str) {
                Some("dev") => (&dev, "dev-dependency"),
                Some("build") => (&build, "build-dependency"),
                _ => (&lib, "dependency"),
            };
            if !files.iter().any(|(_, text)| names_crate(text, &ident)) {
                unused.push(format!("{name}: {kind} `{dep_name}` is not used"));
            }
        }
    }
    assert!(unused.is_empty(), "remove them from Cargo.toml:\n{}", unused.join("\n"));
}

#[test]
fn every_workspace_dependency_is_used_by_a_member() {
    let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml")).expect("Cargo.toml");
    let section = manifest.split("[workspace.dependencies]").nth(1).unwrap_or_default();
    let section = section.split("\n[").next().unwrap_or_default();
    let declared: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_alphabetic()))
        .filter_map(|l| l.split('=').next().map(str::trim))
        .collect();
    assert!(declared.contains(&"serde_json"), "the [workspace.dependencies] table was not found");
    let meta = metadata();
    let used: BTreeSet<&str> = packages(&meta)
        .iter()
        .flat_map(|p| p["dependencies"].as_array().into_iter().flatten())
        // A renamed dependency (`minijinja = { package = "prompty-minijinja" }`) is declared
        // under its new name.
        .map(|d| d["rename"].as_str().unwrap_or_else(|| str_of(d, "name")))
        .collect();
    let unused: Vec<&&str> = declared.iter().filter(|d| !used.contains(**d)).collect();
    assert!(unused.is_empty(), "[workspace.dependencies] no member uses: {unused:?}");
}

#[test]
fn names_crate_finds_paths_macros_and_attributes_only() {
    assert!(names_crate("use serde_json::Value;", "serde_json"));
    assert!(names_crate("let v = serde_json::json!({});", "serde_json"));
    assert!(names_crate("#[derive(Debug)]\n#[thiserror::error]", "thiserror"));
    assert!(names_crate("extern crate memchr;", "memchr"));
    assert!(names_crate("insta::assert_snapshot!(x);", "insta"));
    assert!(!names_crate("// serde_json is used elsewhere", "serde_json"));
    assert!(!names_crate("use my_serde_json::Value;", "serde_json"));
    assert!(!names_crate("let nom = 3;", "nom"));
}

/// The workspace crates and the workspace crates each depends on (normal dependencies).
fn crate_graph(meta: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let members: BTreeSet<String> = packages(meta).iter().map(|p| str_of(p, "name").to_owned()).collect();
    packages(meta)
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d.get("kind").is_none_or(Value::is_null))
                .map(|d| str_of(d, "name").to_owned())
                .filter(|d| members.contains(d))
                .collect();
            (str_of(p, "name").to_owned(), deps)
        })
        .collect()
}

/// The graph written in `docs/architecture.md`: the fenced block after the line
/// `<!-- crate graph -->`, one `crate -> dep, dep` line per crate.
fn documented_graph(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let after = doc.split("<!-- crate graph -->").nth(1).unwrap_or_default();
    let block = after.split("```").nth(1).unwrap_or_default();
    block
        .lines()
        .skip(1)
        .filter_map(|line| {
            let (krate, deps) = line.split_once("->")?;
            let deps = deps.split(',').map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned).collect();
            Some((krate.trim().to_owned(), deps))
        })
        .collect()
}

fn render(graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    graph
        .iter()
        .map(|(k, deps)| {
            format!("{k} -> {}", deps.iter().cloned().collect::<Vec<_>>().join(", ")).trim_end().to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_architecture_document_shows_the_crate_graph() {
    let doc = std::fs::read_to_string(workspace_root().join("docs/architecture.md")).expect("docs/architecture.md");
    let real = crate_graph(&metadata());
    let documented = documented_graph(&doc);
    assert_eq!(
        render(&documented),
        render(&real),
        "docs/architecture.md (after `<!-- crate graph -->`) differs from cargo metadata; the real graph is:\n{}",
        render(&real)
    );
}

#[test]
fn the_crate_graph_has_no_cycle_and_libraries_do_not_depend_on_the_binary() {
    let graph = crate_graph(&metadata());
    // Depth-first: a crate on the current path reached again is a cycle.
    fn visit<'g>(
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        k: &'g str,
        path: &mut Vec<&'g str>,
        done: &mut BTreeSet<&'g str>,
    ) {
        assert!(!path.contains(&k), "cycle: {} -> {k}", path.join(" -> "));
        if !done.insert(k) {
            return;
        }
        path.push(k);
        for d in graph.get(k).into_iter().flatten() {
            visit(graph, d, path, done);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for k in graph.keys() {
        visit(&graph, k, &mut Vec::new(), &mut done);
    }
    for (k, deps) in &graph {
        assert!(!deps.contains("prompty-cli"), "{k} depends on the binary crate");
    }
}

#[test]
fn every_library_crate_warns_on_missing_docs_and_shows_an_example_on_its_top_page() {
    let meta = metadata();
    let mut missing = Vec::new();
    for package in packages(&meta) {
        let name = str_of(package, "name");
        let libs = package["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "lib" || k == "proc-macro")));
        for target in libs {
            let text = std::fs::read_to_string(str_of(target, "src_path")).unwrap_or_default();
            let top: Vec<&str> = text.lines().take_while(|l| l.starts_with("//!") || l.trim().is_empty()).collect();
            if !text.contains("#![warn(missing_docs)]") && !text.contains("#![deny(missing_docs)]") {
                missing.push(format!("{name}: no #![warn(missing_docs)]"));
            }
            if !top.iter().any(|l| l.trim_start_matches("//!").trim_start().starts_with("```")) {
                missing.push(format!("{name}: no example (doctest) on the crate's top page"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The crates whose modules are layered, each with the module trees (`""` the whole crate)
/// whose modules may not import each other in a circle.
const LAYERED: &[(&str, &[&str])] = &[("prompty-render", &[""]), ("prompty-jinja", &["", "compat"])];

/// The folder of `krate`'s library target (its `src`).
fn library_src(meta: &Value, krate: &str) -> PathBuf {
    let package = packages(meta).into_iter().find(|p| str_of(p, "name") == krate);
    let lib = package.and_then(|p| {
        p["targets"].as_array()?.iter().find(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "lib")))
    });
    let src = lib.and_then(|t| Path::new(str_of(t, "src_path")).parent().map(Path::to_path_buf));
    src.unwrap_or_else(|| panic!("{krate}: no library target"))
}

/// The crates read top-down as a pipeline: each layer, from the bottom, with the modules in
/// it. A module may use modules of its own layer or of layers below it, never one above;
/// every module of the crate (a file under `src`, root left out) has a layer.
const PIPELINES: &[(&str, &[&[&str]])] = &[
    (
        "prompty-render",
        &[
            // Leaves: errors, role-line syntax, marks, nesting depth.
            &["codes", "error", "roles", "mark", "nesting"],
            // What a render reads and writes through.
            &["limits", "context", "text"],
            // The engines' own layers, and the template's text as they read it.
            &["handlebars::compat", "handlebars", "layout"],
            // Which places of that text the split checks.
            &["plan"],
            // One engine, compiled and rendered.
            &["engine"],
            // The template compiled for a render, marked as the plan says.
            &["compile"],
            // Rendered text to messages, checked against the places.
            &["split", "split::spec", "split::promptflow", "rich", "pfimage"],
            &["renderer"],
        ],
    ),
    (
        "prompty-jinja",
        &[
            &["pyrepr"],
            // Python's behaviour over minijinja values, from its value model up to the filters.
            &["compat::budget"],
            &["compat::py", "compat::strings"],
            &["compat::printf"],
            &["compat::strformat"],
            &["compat::filters", "compat::predicates", "compat::methods"],
            &["compat", "growth", "lexer"],
            // The reader's differential test against what minijinja renders.
            &["lexer_diff"],
        ],
    ),
];

#[test]
fn pipeline_crates_use_no_module_above_their_own_layer() {
    let meta = metadata();
    let mut wrong = Vec::new();
    for (krate, layers) in PIPELINES {
        let src = library_src(&meta, krate);
        let graph = ModuleGraph::read(&src);
        let layer_of = |m: &str| layers.iter().position(|l| l.contains(&m));
        for (module, uses) in &graph.uses {
            let Some(own) = layer_of(module) else {
                wrong.push(format!("{krate}: module `{module}` has no layer in PIPELINES"));
                continue;
            };
            for used in uses {
                match layer_of(used) {
                    Some(layer) if layer > own => {
                        wrong.push(format!("{krate}: `{module}` (layer {own}) uses `{used}` (layer {layer}), above it"))
                    }
                    _ => {}
                }
            }
        }
        for layer in *layers {
            for m in *layer {
                if !graph.uses.contains_key(*m) {
                    wrong.push(format!("{krate}: PIPELINES names `{m}`, which is no module of the crate"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Import cycles in [`LAYERED`] that are still being cut, each by its crate and its modules
/// (sorted). The test prints them; an entry whose cycle is gone or has changed fails the
/// test, so the list only shrinks.
const KNOWN_MODULE_CYCLES: &[(&str, &[&str])] = &[];

#[test]
fn layered_crates_have_no_import_cycle_among_their_modules() {
    let meta = metadata();
    let mut found: Vec<(&str, Cycle)> = Vec::new();
    for (krate, trees) in LAYERED {
        let src = library_src(&meta, krate);
        let graph = ModuleGraph::read(&src);
        assert!(graph.uses.len() > 1, "{krate}: no modules read from {}", src.display());
        for tree in *trees {
            let part = if tree.is_empty() { graph.clone() } else { graph.within(tree) };
            assert!(tree.is_empty() || part.uses.len() > 1, "{krate}: no module {tree} with modules under it");
            for cycle in part.cycles() {
                if !found.iter().any(|(k, c)| k == krate && c.modules == cycle.modules) {
                    found.push((*krate, cycle));
                }
            }
        }
    }
    let mut unknown = Vec::new();
    for (krate, cycle) in &found {
        if KNOWN_MODULE_CYCLES.iter().any(|(k, m)| k == krate && *m == cycle.modules.as_slice()) {
            println!("known import cycle in {krate}: {cycle}");
        } else {
            unknown.push(format!("{krate}: {cycle}"));
        }
    }
    let gone: Vec<String> = KNOWN_MODULE_CYCLES
        .iter()
        .filter(|(k, m)| !found.iter().any(|(krate, c)| krate == k && c.modules.as_slice() == *m))
        .map(|(k, m)| format!("{k}: {{{}}}", m.join(", ")))
        .collect();
    assert!(unknown.is_empty(), "modules that import each other in a circle:\n{}", unknown.join("\n"));
    assert!(
        gone.is_empty(),
        "known cycles no longer there (remove them from KNOWN_MODULE_CYCLES):\n{}",
        gone.join("\n")
    );
}
