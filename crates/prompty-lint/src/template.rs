//! What a template body contains, with spans in the body: the variables it reads, the
//! filters it applies, and which literal text renders unconditionally.
//!
//! Jinja bodies are read through minijinja's parser (the same parser and syntax settings
//! the renderer compiles with); Mustache and Handlebars bodies through a tag scanner, and
//! Mustache variables through the Mustache engine itself.

use std::ops::Range;

use minijinja::machinery::ast::{self, Expr, Stmt};
use prompty_syntax::{Profile, TemplateFormat};

/// One read of a variable.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VarUse {
    /// The first part of the name (`user` for `user.name`).
    pub(crate) root: String,
    /// Where the name is written.
    pub(crate) span: Range<usize>,
    /// The whole tag (`{{ x }}`), when the variable is interpolated alone.
    pub(crate) tag: Option<Range<usize>>,
    /// Mustache `{{x}}`: the value is HTML-escaped.
    pub(crate) escapes_html: bool,
    /// How many sections or loops enclose the read (names inside may come from them).
    pub(crate) depth: usize,
}

/// A run of literal template text and how many control blocks enclose it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Literal {
    pub(crate) range: Range<usize>,
    /// Enclosing `if`/`for`/sections (0: always rendered once).
    pub(crate) depth: usize,
    /// The innermost enclosing block, e.g. `if`, `for`, `#items`.
    pub(crate) block: Option<String>,
}

/// What a body contains. Empty when the body does not parse.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Template {
    pub(crate) vars: Vec<VarUse>,
    /// Filters applied: name and where the name is written.
    pub(crate) filters: Vec<(String, Range<usize>)>,
    pub(crate) literals: Vec<Literal>,
    /// Tags that print something (`{{ expr }}`).
    pub(crate) exprs: Vec<Range<usize>>,
    /// Whether the body parsed.
    pub(crate) parsed: bool,
    /// Mustache `{{.}}` tags (the current item, HTML-escaped).
    pub(crate) escaped_items: Vec<Range<usize>>,
    /// Jinja variables the template tests with `is defined` or `is undefined`: the author
    /// expects them to be missing at times.
    pub(crate) guarded: std::collections::HashSet<String>,
    /// Names the template binds itself (Jinja loop targets, `set`, macro names and
    /// arguments, `with`, imports): a read of such a name may not be the input's.
    pub(crate) bound: std::collections::HashSet<String>,
    /// Jinja: the top-level variables the template reads and does not set itself, sorted,
    /// as the engine computes them (`Template::undeclared_variables`), from this parse.
    pub(crate) undeclared: Option<Vec<String>>,
}

impl Template {
    pub(crate) fn analyze(format: Option<TemplateFormat>, body: &str, profile: Profile) -> Self {
        Self::read(format, body, profile, false)
    }

    /// [`analyze`](Self::analyze) for a body the renderer compiled with the default limits:
    /// its nesting is known to be within them, and is not scanned a second time.
    pub(crate) fn analyze_compiled(format: Option<TemplateFormat>, body: &str, profile: Profile) -> Self {
        Self::read(format, body, profile, true)
    }

    /// [`analyze`](Self::analyze) of a Jinja body from its syntax tree, parsed with the
    /// renderer's syntax settings (the tree a compile of `body` hands over).
    pub(crate) fn from_jinja_tree(root: &Stmt<'_>, body: &str) -> Self {
        jinja_tree(root, body).ordered()
    }

    fn read(format: Option<TemplateFormat>, body: &str, profile: Profile, nesting_checked: bool) -> Self {
        match format {
            Some(TemplateFormat::Jinja2) => jinja(body, profile, nesting_checked),
            Some(TemplateFormat::Mustache) => mustache(body),
            Some(TemplateFormat::Handlebars) => scan_tags(body, Flavor::Handlebars),
            None => Template::default(),
        }
        .ordered()
    }

    fn ordered(mut self) -> Self {
        let t = &mut self;
        // Literal runs are disjoint pieces of the body; in body order (which the walkers
        // already produce) they can be searched instead of scanned.
        t.literals.retain(|l| l.range.start < l.range.end);
        t.literals.sort_by_key(|l| l.range.start);
        t.exprs.sort_by_key(|e| e.start);
        self
    }

    /// The literal run that holds body offset `offset`, if it is literal text.
    pub(crate) fn literal_at(&self, offset: usize) -> Option<&Literal> {
        let after = self.literals.partition_point(|l| l.range.start <= offset);
        self.literals.get(after.checked_sub(1)?).filter(|l| offset < l.range.end)
    }

    /// Whether anything in `range` prints: an expression tag, or literal non-blank text.
    /// Costs a binary search plus the literal text inside `range`.
    pub(crate) fn prints_in(&self, body: &str, range: Range<usize>) -> bool {
        let first_expr = self.exprs.partition_point(|e| e.start < range.start);
        if self.exprs.get(first_expr).is_some_and(|e| e.start < range.end) {
            return true;
        }
        let first_literal = self.literals.partition_point(|l| l.range.end <= range.start);
        self.literals.get(first_literal..).unwrap_or_default().iter().take_while(|l| l.range.start < range.end).any(
            |l| {
                let s = l.range.start.max(range.start);
                let e = l.range.end.min(range.end);
                s < e && body.get(s..e).is_some_and(|t| !t.trim().is_empty())
            },
        )
    }
}

fn jinja(body: &str, profile: Profile, nesting_checked: bool) -> Template {
    // The renderer's syntax settings, so that the linter reads the body as it renders.
    let syntax = prompty_jinja::syntax(profile == Profile::Promptflow);
    // The parser recurses once per level: a body nested deeper than the renderer accepts
    // (which the template-syntax rule reports) is not parsed here.
    if !nesting_checked
        && prompty_render::check_nesting(TemplateFormat::Jinja2, body, profile, &prompty_render::Limits::default())
            .is_err()
    {
        return Template::default();
    }
    match minijinja::machinery::parse(body, "prompt", syntax) {
        Ok(root) => jinja_tree(&root, body),
        Err(_) => Template::default(),
    }
}

/// What the Jinja body `body`, parsed as `root`, contains.
fn jinja_tree(root: &Stmt<'_>, body: &str) -> Template {
    let mut undeclared: Vec<String> = minijinja::machinery::find_undeclared(root, false).into_iter().collect();
    undeclared.sort();
    let mut t = Template { parsed: true, undeclared: Some(undeclared), ..Template::default() };
    let mut walker = JinjaWalker { t: &mut t, body, blocks: Vec::new() };
    walker.stmt(root);
    t
}

fn range(span: minijinja::machinery::Span) -> Range<usize> {
    span.start_offset as usize..(span.end_offset as usize).max(span.start_offset as usize)
}

/// The parser spans an emitted expression without its `{{ }}`: widen `expr` to the tag.
fn widen_to_tag(body: &str, expr: Range<usize>) -> Range<usize> {
    let trim = |c: char| c.is_whitespace() || c == '-' || c == '+';
    let before = body.get(..expr.start).unwrap_or("").trim_end_matches(trim);
    let after = body.get(expr.end..).unwrap_or("");
    let after_trimmed = after.trim_start_matches(trim);
    match (before.strip_suffix("{{"), after_trimmed.strip_prefix("}}")) {
        (Some(b), Some(a)) => b.len()..body.len() - a.len(),
        _ => expr,
    }
}

struct JinjaWalker<'t> {
    t: &'t mut Template,
    body: &'t str,
    blocks: Vec<&'static str>,
}

impl JinjaWalker<'_> {
    fn stmts(&mut self, stmts: &[Stmt<'_>]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn nested(&mut self, block: &'static str, f: impl FnOnce(&mut Self)) {
        self.blocks.push(block);
        f(self);
        self.blocks.pop();
    }

    fn stmt(&mut self, stmt: &Stmt<'_>) {
        match stmt {
            Stmt::Template(t) => self.stmts(&t.children),
            Stmt::EmitExpr(e) => {
                let tag = widen_to_tag(self.body, range(e.span()));
                self.t.exprs.push(tag.clone());
                if let Expr::Var(v) = &e.expr {
                    self.var(v.id, range(v.span()), Some(tag));
                } else {
                    self.expr(&e.expr);
                }
            }
            Stmt::EmitRaw(r) => self.t.literals.push(Literal {
                range: range(r.span()),
                depth: self.blocks.len(),
                block: self.blocks.last().map(|b| (*b).to_owned()),
            }),
            Stmt::ForLoop(f) => {
                self.bind(&f.target);
                self.t.bound.insert("loop".to_owned());
                self.expr(&f.iter);
                if let Some(e) = &f.filter_expr {
                    self.expr(e);
                }
                self.nested("for", |w| {
                    w.stmts(&f.body);
                    w.stmts(&f.else_body);
                });
            }
            Stmt::IfCond(i) => {
                self.expr(&i.expr);
                self.nested("if", |w| {
                    w.stmts(&i.true_body);
                    w.stmts(&i.false_body);
                });
            }
            Stmt::WithBlock(w) => {
                for (target, e) in &w.assignments {
                    self.bind(target);
                    self.expr(e);
                }
                self.nested("with", |w2| w2.stmts(&w.body));
            }
            Stmt::Set(s) => {
                self.bind(&s.target);
                self.expr(&s.expr);
            }
            Stmt::SetBlock(s) => {
                self.bind(&s.target);
                if let Some(f) = &s.filter {
                    self.expr(f);
                }
                self.nested("set", |w| w.stmts(&s.body));
            }
            Stmt::AutoEscape(a) => {
                self.expr(&a.enabled);
                self.stmts(&a.body);
            }
            Stmt::FilterBlock(f) => {
                self.expr(&f.filter);
                self.nested("filter", |w| w.stmts(&f.body));
            }
            Stmt::Block(b) => self.stmts(&b.body),
            Stmt::Import(i) => {
                self.bind(&i.name);
                self.expr(&i.expr);
            }
            Stmt::FromImport(i) => {
                for (name, alias) in &i.names {
                    self.bind(alias.as_ref().unwrap_or(name));
                }
                self.expr(&i.expr);
            }
            Stmt::Extends(e) => self.expr(&e.name),
            Stmt::Include(i) => self.expr(&i.name),
            Stmt::Macro(m) => {
                self.t.bound.insert(m.name.to_owned());
                m.args.iter().for_each(|a| self.bind(a));
                for d in &m.defaults {
                    self.expr(d);
                }
                self.nested("macro", |w| w.stmts(&m.body));
            }
            Stmt::CallBlock(c) => {
                c.macro_decl.args.iter().for_each(|a| self.bind(a));
                self.t.bound.insert("caller".to_owned());
                self.call(&c.call);
                self.nested("call", |w| w.stmts(&c.macro_decl.body));
            }
            Stmt::Do(d) => self.call(&d.call),
            // `continue`/`break`, when another crate turns on minijinja's `loop_controls`.
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }

    fn var(&mut self, id: &str, span: Range<usize>, tag: Option<Range<usize>>) {
        self.t.vars.push(VarUse {
            root: id.to_owned(),
            span,
            tag,
            escapes_html: false,
            depth: self.blocks.iter().filter(|b| matches!(**b, "for" | "macro" | "call" | "with")).count(),
        });
    }

    /// Records the names an assignment target binds.
    fn bind(&mut self, target: &Expr<'_>) {
        match target {
            Expr::Var(v) => {
                self.t.bound.insert(v.id.to_owned());
            }
            Expr::List(l) => l.items.iter().for_each(|e| self.bind(e)),
            _ => {}
        }
    }

    fn call(&mut self, call: &ast::Call<'_>) {
        self.expr(&call.expr);
        self.args(&call.args);
    }

    fn args(&mut self, args: &[ast::CallArg<'_>]) {
        for a in args {
            match a {
                ast::CallArg::Pos(e)
                | ast::CallArg::Kwarg(_, e)
                | ast::CallArg::PosSplat(e)
                | ast::CallArg::KwargSplat(e) => self.expr(e),
            }
        }
    }

    fn expr(&mut self, expr: &Expr<'_>) {
        match expr {
            Expr::Var(v) => self.var(v.id, range(v.span()), None),
            Expr::Const(_) => {}
            Expr::Slice(s) => {
                self.expr(&s.expr);
                for e in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                    self.expr(e);
                }
            }
            Expr::UnaryOp(u) => self.expr(&u.expr),
            Expr::BinOp(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::Compare(c) => {
                self.expr(&c.expr);
                for op in &c.ops {
                    self.expr(&op.expr);
                }
            }
            Expr::IfExpr(i) => {
                self.expr(&i.test_expr);
                self.expr(&i.true_expr);
                if let Some(f) = &i.false_expr {
                    self.expr(f);
                }
            }
            Expr::Filter(f) => {
                let start = f.span().start_offset as usize;
                self.t.filters.push((f.name.to_owned(), start..start + f.name.len()));
                if let Some(e) = &f.expr {
                    self.expr(e);
                }
                self.args(&f.args);
            }
            Expr::Test(t) => {
                if let (Expr::Var(v), "defined" | "undefined") = (&t.expr, t.name) {
                    self.t.guarded.insert(v.id.to_owned());
                }
                self.expr(&t.expr);
                self.args(&t.args);
            }
            Expr::GetAttr(g) => self.expr(&g.expr),
            Expr::GetItem(g) => {
                self.expr(&g.expr);
                self.expr(&g.subscript_expr);
            }
            Expr::Call(c) => {
                self.expr(&c.expr);
                self.args(&c.args);
            }
            Expr::List(l) => l.items.iter().for_each(|e| self.expr(e)),
            Expr::Tuple(t) => t.items.iter().for_each(|e| self.expr(e)),
            Expr::Map(m) => m.keys.iter().chain(&m.values).for_each(|e| self.expr(e)),
        }
    }
}

fn mustache(body: &str) -> Template {
    let Ok(compiled) = prompty_mustache::Template::compile(body) else {
        return Template::default();
    };
    let mut t = scan_tags(body, Flavor::Mustache);
    t.vars = compiled
        .variables()
        .iter()
        .map(|v| VarUse {
            root: v.root().to_owned(),
            span: v.name_span.clone(),
            tag: Some(v.span.clone()),
            escapes_html: v.escapes_html(),
            depth: v.section_depth,
        })
        .collect();
    t.escaped_items = compiled.escaped_implicit_iterators();
    t
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    Mustache,
    Handlebars,
}

/// Splits a Mustache or Handlebars body (default `{{ }}` delimiters) into literal runs and
/// tags. Sections (`{{#x}}`...`{{/x}}`, `{{^x}}`) raise the depth of what they enclose;
/// comments, section tags and partials print nothing.
fn scan_tags(body: &str, flavor: Flavor) -> Template {
    let mut t = Template { parsed: true, ..Template::default() };
    let mut stack: Vec<String> = Vec::new();
    let mut pos = 0usize;
    let push_literal = |t: &mut Template, range: Range<usize>, stack: &[String]| {
        if range.start < range.end {
            t.literals.push(Literal { range, depth: stack.len(), block: stack.last().cloned() });
        }
    };
    let mut search = 0usize;
    while let Some(open) = body.get(search..).and_then(|s| s.find("{{")).map(|i| search + i) {
        if flavor == Flavor::Handlebars {
            let before = body.get(..open).unwrap_or_default();
            if before.ends_with('\\') && !before.ends_with("\\\\") {
                // `\{{x}}` prints `{{x}}`: literal text.
                search = open + 2;
                continue;
            }
            if let Some(raw) = raw_block(body, open) {
                // A raw block's body is literal text; its opening and closing tags print nothing.
                push_literal(&mut t, pos..open, &stack);
                push_literal(&mut t, raw.body, &stack);
                pos = raw.end;
                search = raw.end;
                continue;
            }
        }
        push_literal(&mut t, pos..open, &stack);
        let inner_start = open + 2;
        let (close_pat, inner_start) = match body.get(inner_start..) {
            Some(rest) if rest.starts_with('{') => ("}}}", inner_start + 1),
            Some(rest) if flavor == Flavor::Handlebars && rest.starts_with("!--") => ("--}}", inner_start),
            _ => ("}}", inner_start),
        };
        let Some(close) = body.get(inner_start..).and_then(|s| s.find(close_pat)).map(|i| inner_start + i) else {
            pos = open;
            break;
        };
        let end = close + close_pat.len();
        let inner = body.get(inner_start..close).unwrap_or("").trim();
        let inner = inner.strip_prefix('~').unwrap_or(inner).trim_end_matches('~').trim();
        match inner.chars().next() {
            Some('#' | '^') => stack.push(inner.get(1..).unwrap_or("").trim().to_owned()),
            Some('/') => {
                stack.pop();
            }
            Some('!' | '>' | '<' | '$' | '=') => {}
            _ if inner == "else" || inner.starts_with("else ") => {}
            _ => t.exprs.push(open..end),
        }
        pos = end;
        search = end;
    }
    push_literal(&mut t, pos..body.len(), &stack);
    t
}

/// A Handlebars raw block (`{{{{name}}}}...{{{{/name}}}}`) opening at `open`.
struct RawBlock {
    /// The text between its tags.
    body: Range<usize>,
    /// The end of its closing tag.
    end: usize,
}

fn raw_block(text: &str, open: usize) -> Option<RawBlock> {
    let rest = text.get(open..)?.strip_prefix("{{{{")?;
    let name_end = rest.find("}}}}")?;
    let name = rest.get(..name_end)?.trim();
    if name.is_empty() || name.starts_with('/') {
        return None;
    }
    let body_start = open + 4 + name_end + 4;
    let head = name.split_whitespace().next().unwrap_or(name);
    let closer = ["{{{{/", head, "}}}}"].concat();
    let body_len = text.get(body_start..)?.find(&closer)?;
    Some(RawBlock { body: body_start..body_start + body_len, end: body_start + body_len + closer.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handlebars_raw_blocks_and_escaped_tags_are_literal_text() {
        let body = "{{{{raw}}}}{{q}}user:{{{{/raw}}}}\\{{r}}\n{{s}}";
        let t = Template::analyze(Some(TemplateFormat::Handlebars), body, Profile::Spec);
        let exprs: Vec<&str> = t.exprs.iter().map(|e| &body[e.clone()]).collect();
        assert_eq!(exprs, ["{{s}}"]);
        let q = body.find("{{q}}").expect("q");
        assert!(t.literal_at(q).is_some(), "a raw block's body is literal");
        let r = body.find("{{r}}").expect("r");
        assert!(t.literal_at(r).is_some(), "an escaped tag is literal");
    }

    #[test]
    fn jinja_literals_know_their_blocks() {
        let body = "system:\nhi {{ name | upper }}\n{% if x %}\nuser:\n{{ q }}\n{% endif %}";
        let t = Template::analyze(Some(TemplateFormat::Jinja2), body, Profile::Spec);
        assert!(t.parsed);
        let user = body.find("user:").expect("user");
        assert_eq!(t.literal_at(user).map(|l| l.depth), Some(1));
        assert_eq!(t.literal_at(0).map(|l| l.depth), Some(0));
        let roots: Vec<&str> = t.vars.iter().map(|v| v.root.as_str()).collect();
        assert_eq!(roots, ["name", "x", "q"]);
        assert_eq!(t.filters.first().map(|(n, r)| (n.as_str(), body.get(r.clone()))), Some(("upper", Some("upper"))));
        assert_eq!(t.vars.first().and_then(|v| body.get(v.span.clone())), Some("name"));
        let q = t.vars.iter().find(|v| v.root == "q").and_then(|v| v.tag.clone()).and_then(|r| body.get(r));
        assert_eq!(q, Some("{{ q }}"));
    }

    #[test]
    fn mustache_sections_and_comments() {
        let body = "{{! note }}\nsystem:\n{{#items}}\nuser:\n{{.}}\n{{/items}}\n{{x}}";
        let t = Template::analyze(Some(TemplateFormat::Mustache), body, Profile::Spec);
        let user = body.find("user:").expect("user");
        assert_eq!(t.literal_at(user).and_then(|l| l.block.as_deref()), Some("items"));
        assert!(!t.prints_in(body, 0..11));
        assert!(t.vars.iter().any(|v| v.root == "x" && v.escapes_html));
    }

    /// The searched lookups answer like a scan of every literal and tag, at every offset and
    /// over every short range, for each engine.
    #[test]
    fn searches_agree_with_scans() {
        let bodies = [
            (
                Some(TemplateFormat::Jinja2),
                "system:\nhi {{ a }}{{b}} x\n{% if c %}\nuser:\n  {{ d }}\n{% endif %}{# c #}\n\n{% for i in e %}{{ i }}{% endfor %}tail",
            ),
            (Some(TemplateFormat::Jinja2), "{% raw %}{{ x }}{% endraw %}\n{%- if y -%}\n  \n{%- endif %}\nuser:\n"),
            (
                Some(TemplateFormat::Mustache),
                "{{! c }}\nsystem:\n{{#s}}\nuser:\n{{.}} {{{t}}}\n{{/s}}\n \n{{^n}}x{{/n}}",
            ),
            (Some(TemplateFormat::Handlebars), "{{#if a}}\nuser:\n{{b}}\n{{/if}}\n  \n{{c}}"),
        ];
        for (engine, body) in bodies {
            let t = Template::analyze(engine, body, Profile::Spec);
            assert!(t.parsed, "{body}");
            for offset in 0..=body.len() {
                let scanned = t.literals.iter().find(|l| l.range.start <= offset && offset < l.range.end);
                assert_eq!(t.literal_at(offset).map(|l| &l.range), scanned.map(|l| &l.range), "{body:?} at {offset}");
                for end in offset..=(offset + 12).min(body.len()) {
                    let expr = t.exprs.iter().any(|e| e.start >= offset && e.start < end);
                    let text = t.literals.iter().any(|l| {
                        let (s, e) = (l.range.start.max(offset), l.range.end.min(end));
                        s < e && body.get(s..e).is_some_and(|x| !x.trim().is_empty())
                    });
                    assert_eq!(t.prints_in(body, offset..end), expr || text, "{body:?} over {offset}..{end}");
                }
            }
        }
    }
}
