//! Everything the rules look at, computed once per file.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use prompty_render::{ErrorKind, RenderOptions, Renderer};
use prompty_syntax::yaml::Node;
use prompty_syntax::{LineIndex, Loaded, Profile, Prompt, TemplateFormat};

use crate::body::{Body, role_of};
use crate::template::Template;

/// A line that starts a message in the file's profile.
#[derive(Debug, Clone)]
pub(crate) struct RoleLine {
    /// Index into `Body::lines`.
    pub(crate) line: usize,
    /// The role, lowercased.
    pub(crate) role: &'static str,
    /// Enclosing control blocks (0: the line always renders, once).
    pub(crate) depth: usize,
    /// The innermost enclosing block (`if`, `for`, a section name).
    pub(crate) block: Option<String>,
}

/// One message of the template, between two role lines at depth 0.
#[derive(Debug, Clone)]
pub(crate) struct MessageSpan {
    /// Index into `Context::roles` of the role line that opens it.
    pub(crate) role_index: usize,
    /// The content, in body offsets (after the role line's newline, up to the next role line).
    pub(crate) content: Range<usize>,
}

pub(crate) struct Context<'a> {
    pub(crate) text: &'a str,
    pub(crate) loaded: &'a Loaded,
    pub(crate) prompt: &'a Prompt,
    pub(crate) profile: Profile,
    /// The front matter as written (references unresolved), spans into the file.
    pub(crate) front: Option<&'a Node>,
    pub(crate) body: Body,
    pub(crate) format: Option<TemplateFormat>,
    pub(crate) template: Template,
    /// The template's compile error, when it does not compile.
    pub(crate) compile_error: Option<prompty_render::Error>,
    /// The top-level variables the engine says the template reads (none for Handlebars).
    pub(crate) engine_vars: Option<Vec<String>>,
    /// The template compiled as `prompty render` compiles it, when it compiles so.
    pub(crate) renderer: Option<Renderer>,
    /// Role lines that split in this profile, in order.
    pub(crate) roles: Vec<RoleLine>,
    /// The body line of the role line past [`prompty_render::MAX_MESSAGES`], when there is
    /// one: the body cannot render, and [`Context::roles`] stops there.
    pub(crate) too_many_roles: Option<usize>,
    /// Line starts of the file, built on first use.
    line_index: OnceCell<LineIndex>,
    /// Input names as loaded or as written, built on first use (see [`Context::declares`]).
    declared: OnceCell<HashSet<String>>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(text: &'a str, loaded: &'a Loaded) -> Option<Self> {
        let prompt = loaded.prompt.as_ref()?;
        let profile = prompt.profile;
        let front = loaded.document.as_ref().and_then(|d| d.tree.as_ref());
        let original = text.get(prompt.body_span.clone()).unwrap_or("");
        let body = Body::new(original, prompt.body_span.start, prompt.instructions.clone().unwrap_or_default());
        let format = TemplateFormat::from_kind(&prompt.template.format.kind);
        let mut compile_error = None;
        let mut renderer = None;
        // The template compiled either way, for its variables.
        let mut compiled = None;
        // A Jinja body read from the compile's own syntax tree, when the compile parsed the
        // body as written (see `Renderer::with_syntax_tree`).
        let mut from_tree = None;
        if format.is_some() && prompt.template.parser.kind == "prompty" {
            // Compiled as `prompty render` compiles it; on failure, again without role-line
            // nonces, so that the error's spans point at the file as written.
            let mut read_tree = |source: &str, root: &minijinja::machinery::ast::Stmt<'_>| {
                if format == Some(TemplateFormat::Jinja2) && source == body.text {
                    from_tree = Some(Template::from_jinja_tree(root, source));
                }
            };
            match Renderer::with_syntax_tree(prompt.clone(), RenderOptions::default(), &mut read_tree) {
                Ok(r) => renderer = Some(r),
                Err(_) => {
                    let mut plain = prompt.clone();
                    plain.template.format.strict = Some(false);
                    let options = RenderOptions { source: Some(Arc::from(text)), ..RenderOptions::default() };
                    match Renderer::with_options(plain, options) {
                        Ok(r) => compiled = Some(r),
                        Err(e) if e.kind() == ErrorKind::TemplateSyntax => compile_error = Some(e),
                        Err(_) => {}
                    }
                }
            }
        }
        let mut template = if compile_error.is_some() {
            Template::default()
        } else if renderer.is_some() || compiled.is_some() {
            from_tree.unwrap_or_else(|| Template::analyze_compiled(format, &body.text, profile))
        } else {
            Template::analyze(format, &body.text, profile)
        };
        // A Jinja body's variables come from the analysis's parse (the engine's own
        // computation over the same syntax tree), not from a second parse in the renderer.
        let engine_vars =
            renderer.as_ref().or(compiled.as_ref()).filter(|_| format != Some(TemplateFormat::Handlebars)).map(|r| {
                match template.undeclared.take() {
                    Some(vars) => vars,
                    None => r.template_variables(),
                }
            });
        let mut roles = Vec::new();
        let mut too_many_roles = None;
        for (i, range) in body.lines.iter().enumerate() {
            let Some(role) = body.text.get(range.clone()).and_then(|l| role_of(l, profile)) else { continue };
            let (depth, block) = if template.parsed {
                // Skip role-shaped text inside comments and tags: only literal text splits.
                let Some(lit) = template.literal_at(range.start + leading_blanks(body.line(i))) else { continue };
                (lit.depth, lit.block.clone())
            } else {
                (0, None)
            };
            if roles.len() == prompty_render::MAX_MESSAGES {
                too_many_roles = Some(i);
                break;
            }
            roles.push(RoleLine { line: i, role, depth, block });
        }
        Some(Self {
            text,
            loaded,
            prompt,
            profile,
            front,
            body,
            format,
            template,
            compile_error,
            engine_vars,
            renderer,
            roles,
            too_many_roles,
            line_index: OnceCell::new(),
            declared: OnceCell::new(),
        })
    }

    /// The file span of a body range.
    pub(crate) fn span(&self, range: Range<usize>) -> Range<usize> {
        self.body.span(range)
    }

    /// The file span of body line `index` (without its line ending).
    pub(crate) fn line_span(&self, index: usize) -> Range<usize> {
        self.span(self.body.lines.get(index).cloned().unwrap_or(0..0))
    }

    /// The 1-based line number of a file offset.
    pub(crate) fn line_number(&self, offset: usize) -> usize {
        self.line_index.get_or_init(|| LineIndex::new(self.text)).line_col(self.text, offset).0
    }

    /// The messages of the template, when every role line renders unconditionally.
    pub(crate) fn messages(&self) -> Option<Vec<MessageSpan>> {
        if self.roles.iter().any(|r| r.depth > 0) {
            return None;
        }
        let mut out = Vec::new();
        for (k, r) in self.roles.iter().enumerate() {
            let start = self.body.lines.get(r.line).map_or(0, |l| (l.end + 1).min(self.body.text.len()));
            let end = self
                .roles
                .get(k + 1)
                .and_then(|next| self.body.lines.get(next.line))
                .map_or(self.body.text.len(), |l| l.start);
            out.push(MessageSpan { role_index: k, content: start..end.max(start) });
        }
        Some(out)
    }

    /// Whether `range` of the body prints anything but whitespace.
    pub(crate) fn prints(&self, range: Range<usize>) -> bool {
        if self.template.parsed {
            self.template.prints_in(&self.body.text, range)
        } else {
            self.body.text.get(range).is_some_and(|t| !t.trim().is_empty())
        }
    }

    /// Whether the front matter declares an input (or a v1 `sample` key) named `name`.
    pub(crate) fn declares(&self, name: &str) -> bool {
        // Names as written count too: an input the loader rejected (say, for an unknown
        // kind) is reported there, not again as undeclared here.
        let declared = self.declared.get_or_init(|| {
            let loaded = self.prompt.inputs.iter().flatten().map(|p| p.name.clone());
            loaded.chain(self.input_nodes().into_iter().map(|(n, _, _)| n)).collect()
        });
        if declared.contains(name) {
            return true;
        }
        self.prompt
            .legacy
            .as_ref()
            .and_then(|l| l.sample.as_ref())
            .and_then(|s| s.as_object())
            .is_some_and(|s| s.contains_key(name))
    }

    /// The YAML node at a path of mapping keys.
    pub(crate) fn node(&self, path: &[&str]) -> Option<&Node> {
        let mut node = self.front?;
        for key in path {
            node = node.get(key)?;
        }
        Some(node)
    }

    /// The input property nodes as written: (name, name span, property node).
    pub(crate) fn input_nodes(&self) -> Vec<(String, Range<usize>, &Node)> {
        let Some(inputs) = self.node(&["inputs"]) else { return Vec::new() };
        match &inputs.value {
            prompty_syntax::yaml::NodeValue::Map(entries) => {
                entries.iter().map(|(k, v)| (k.key_string(), k.span.clone(), v)).collect()
            }
            prompty_syntax::yaml::NodeValue::Seq(items) => items
                .iter()
                .filter_map(|item| {
                    let name = item.get("name")?;
                    Some((name.as_str()?.to_owned(), name.span.clone(), item))
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Calls `f` with every string scalar under `node` and the key path that leads to it.
pub(crate) fn walk_strings<'n>(
    node: &'n Node,
    path: &mut Vec<Cow<'n, str>>,
    f: &mut dyn FnMut(&[Cow<'n, str>], &'n Node),
) {
    match &node.value {
        prompty_syntax::yaml::NodeValue::String(_) => f(path, node),
        prompty_syntax::yaml::NodeValue::Seq(items) => {
            for item in items {
                walk_strings(item, path, f);
            }
        }
        prompty_syntax::yaml::NodeValue::Map(entries) => {
            for (k, v) in entries {
                // A string key is borrowed: most keys are, and this walk visits every one.
                path.push(k.as_str().map_or_else(|| Cow::Owned(k.key_string()), Cow::Borrowed));
                walk_strings(v, path, f);
                path.pop();
            }
        }
        _ => {}
    }
}

pub(crate) fn leading_blanks(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prompty_syntax::{LoadOptions, MapHost, load_str};

    /// Every prompt file of the corpora and of the rule fixtures.
    fn corpus_and_fixtures() -> Vec<std::path::PathBuf> {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut files = prompty_test_support::prompt_files();
        files.extend(
            std::fs::read_dir(&fixtures)
                .expect("the rule fixtures")
                .filter_map(|e| Some(e.ok()?.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "prompty")),
        );
        files
    }

    /// The variables the rules see for a Jinja body come from the analysis's parse: they
    /// must be the ones the renderer's compiled template reports, on every prompt of the
    /// corpus and of the rule fixtures.
    #[test]
    fn variables_from_the_analysis_equal_the_renderers() {
        let files = corpus_and_fixtures();
        let (mut jinja, mut mismatches) = (0, Vec::new());
        for file in &files {
            let text = std::fs::read_to_string(file).expect("a readable prompt");
            let loaded = load_str(&text, &MapHost::new(), &LoadOptions { lint: true, ..LoadOptions::default() });
            let Some(cx) = Context::new(&text, &loaded) else { continue };
            if cx.format != Some(TemplateFormat::Jinja2) || cx.compile_error.is_some() {
                continue;
            }
            let Some(prompt) = loaded.prompt.clone() else { continue };
            let mut plain = prompt;
            plain.template.format.strict = Some(false);
            let Ok(renderer) = Renderer::with_options(plain, RenderOptions::default()) else { continue };
            jinja += 1;
            if cx.engine_vars.as_deref() != Some(&renderer.template_variables()[..]) {
                mismatches.push(format!(
                    "{}: {:?} vs {:?}",
                    file.display(),
                    cx.engine_vars,
                    renderer.template_variables()
                ));
            }
        }
        assert!(jinja > 60, "only {jinja} Jinja prompts compiled");
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    }

    /// A Jinja body read from the tree the renderer's compile hands over is the body read
    /// from the linter's own parse: every prompt of the corpora and of the rule fixtures, and
    /// the templates of the Jinja2 differential suite as the body of a spec file and of a
    /// promptflow file. The renderer hands its tree over for most of them, so the test
    /// covers both ways of getting it.
    #[test]
    fn the_compiles_tree_reads_as_the_linters_own_parse() {
        let files = corpus_and_fixtures();
        let mut texts: Vec<String> =
            files.iter().map(|f| std::fs::read_to_string(f).expect("a readable prompt")).collect();
        let golden =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../prompty-render/tests/jinja_diff/golden.jsonl");
        let golden = std::fs::read_to_string(&golden).expect("the Jinja2 differential suite's templates");
        for line in golden.lines().skip(1) {
            let case: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let template = case["template"].as_str().expect("a template");
            texts.push(format!("---\nname: spec\n---\nsystem:\n{template}\n"));
            texts.push(format!("---\nname: promptflow\nsample: {{}}\n---\nsystem:\n{template}\n"));
        }
        let (mut handed, mut parsed_here, mut mismatches) = (0, 0, Vec::new());
        for text in &texts {
            let loaded = load_str(text, &MapHost::new(), &LoadOptions { lint: true, ..LoadOptions::default() });
            let Some(cx) = Context::new(text, &loaded) else { continue };
            if cx.format != Some(TemplateFormat::Jinja2) || cx.compile_error.is_some() || !cx.template.parsed {
                continue;
            }
            let Some(prompt) = loaded.prompt.clone() else { continue };
            let mut tree_given = false;
            let _ = Renderer::with_syntax_tree(prompt, RenderOptions::default(), &mut |source, _| {
                tree_given |= source == cx.body.text;
            });
            if tree_given {
                handed += 1
            } else {
                parsed_here += 1
            }
            let mut own = Template::analyze_compiled(cx.format, &cx.body.text, cx.profile);
            let own_vars = own.undeclared.take();
            if cx.template != own || cx.engine_vars != own_vars {
                mismatches.push(format!("{text:?}:\n{:?}\n{own:?}", cx.template));
            }
        }
        assert!(
            handed > 5_000 && parsed_here > 100,
            "{handed} bodies read from the compile's tree, {parsed_here} parsed apart"
        );
        assert!(
            mismatches.is_empty(),
            "{} differ:\n{}",
            mismatches.len(),
            mismatches[..mismatches.len().min(3)].join("\n")
        );
    }
}
