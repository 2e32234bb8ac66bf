//! Jinja2 templates that could build values without bound are refused before they run.
//!
//! minijinja's fuel charges what a render creates, but some work escapes it: a list
//! concatenated with itself (`x + x`) stays lazy until 32 levels deep and is then copied
//! in one go, and a value that holds another one twice (`[x, x]`, `dict(a=x, b=x)`)
//! is walked in full whenever it is printed, compared or serialized. Doubling a value
//! forty times (in a loop through a namespace, through a macro that calls itself, or
//! forty `{% set %}` lines) costs forty units of fuel and then 2^40 units of time and
//! memory. Wrapping a value in a list once per loop iteration (`ns.x = [ns.x]`) builds
//! a value so deep that serializing it overflows the stack, and so does a namespace
//! stored inside itself.
//!
//! The rule enforced here keeps every value a render builds linear in the work it does,
//! and no deeper than its inputs and literals:
//!
//! * a *built* value is one the template made (a list, tuple or dict literal holding a
//!   variable, `+` or `*` of a non-constant, a filter or call with non-constant
//!   arguments, a macro parameter, a loop variable over a built value, and any alias of
//!   one);
//! * wherever a value is kept (`{% set %}`, a namespace attribute, `{% with %}`, a loop
//!   iterable, a macro default, a call argument), it may hold at most one built value,
//!   once and at the top: the whole value, an operand of `+`, `and`, `or` or `if`, the
//!   subject of an attribute, index or slice, or the input of a filter that keeps the
//!   shape of its input (`list`, `sort`, `select`, ...). Two built values, one repeated
//!   (`*`, a filter or call argument) or one put inside a literal, call or reshaping
//!   filter (`[a]`, `a|batch(2)`) are refused;
//! * a namespace is created only by `{% set name = namespace(...) %}` (or `{% with %}`)
//!   and used only through its attributes: it is never stored as a value.
//!
//! The check is syntactic and conservative: it reads names, not values, so a few
//! harmless templates (two numbers built by the template and put in one list) are
//! refused too. Prompt templates rarely assign at all; every refusal names the
//! expression.

use std::collections::HashSet;
use std::ops::Range;

use minijinja::machinery::ast::{BinOpKind, CallArg, Expr, Stmt};

/// Why a template is refused, and where in the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The refused expression, a byte range of the body.
    pub span: Range<usize>,
    /// Why, in words a template author reads.
    pub message: &'static str,
}

const COMBINES: &str = "this value combines two values the template built itself, repeats one (with `*`, \
     a filter or call argument) or wraps one in a new list, dict or call; kept across a loop or a chain \
     of assignments that grows without bound, so it is refused: keep at most one such value, at the top \
     (`a + [x]`, not `[a, x]`), and add inputs or literals to it";
const STORES_NAMESPACE: &str = "a namespace is used here as a value; namespaces can only be read and \
     assigned through their attributes (`ns.attr`), since a namespace stored in itself never ends";
const NESTED_NAMESPACE: &str =
    "create namespaces only as `{% set name = namespace(...) %}`, not inside another expression";

/// Filters whose result is a string, number or boolean: what goes in is not kept.
const FLAT_FILTERS: &[&str] = &[
    "abs",
    "bool",
    "capitalize",
    "center",
    "count",
    "e",
    "escape",
    "float",
    "format",
    "indent",
    "int",
    "join",
    "length",
    "lower",
    "pprint",
    "replace",
    "round",
    "safe",
    "string",
    "striptags",
    "title",
    "tojson",
    "trim",
    "truncate",
    "upper",
    "urlencode",
    "wordcount",
    "wordwrap",
];

/// Filters whose result holds the items of their input and nothing deeper.
const SHAPE_FILTERS: &[&str] = &[
    "attr",
    "d",
    "default",
    "first",
    "last",
    "list",
    "max",
    "min",
    "random",
    "reject",
    "rejectattr",
    "reverse",
    "select",
    "selectattr",
    "sort",
    "sum",
    "unique",
];

/// Functions whose result holds nothing the template passed in.
const FLAT_FUNCTIONS: &[&str] = &["range", "lipsum", "joiner"];

/// Attributes of `loop` that are numbers or booleans.
const FLAT_LOOP_ATTRS: &[&str] = &["index", "index0", "revindex", "revindex0", "first", "last", "length", "depth"];

/// Names bound by the engine to values the template may have built.
const BUILT_SPECIALS: &[&str] = &["loop", "varargs", "kwargs"];

/// Checks a parsed template; see the module documentation.
pub fn check(root: &Stmt<'_>) -> Result<(), Refused> {
    let mut names = Names::default();
    // Binding facts feed each other (an alias of a built value is built): repeat until
    // nothing changes. Each round only adds names, so this ends.
    loop {
        let before = names.size();
        names.collect(root);
        if names.size() == before {
            break;
        }
    }
    names.check_stmt(root)
}

#[derive(Default)]
struct Names<'a> {
    built: HashSet<&'a str>,
    built_attrs: HashSet<&'a str>,
    namespaces: HashSet<&'a str>,
    namespace_attrs: HashSet<&'a str>,
    /// A namespace was made from a computed mapping: every attribute may be built.
    any_attr_built: bool,
    macros: HashSet<&'a str>,
}

fn range(span: minijinja::machinery::Span) -> Range<usize> {
    let start = span.start_offset as usize;
    start..(span.end_offset as usize).max(start)
}

fn span_of(expr: &Expr<'_>) -> Range<usize> {
    range(expr.span())
}

fn is_const(expr: &Expr<'_>) -> bool {
    matches!(expr, Expr::Const(_))
}

fn args_exprs<'e, 'a>(args: &'e [CallArg<'a>]) -> impl Iterator<Item = &'e Expr<'a>> {
    args.iter().map(|a| match a {
        CallArg::Pos(e) | CallArg::Kwarg(_, e) | CallArg::PosSplat(e) | CallArg::KwargSplat(e) => e,
    })
}

/// A call of `namespace(...)`.
fn is_namespace_call(expr: &Expr<'_>) -> bool {
    matches!(expr, Expr::Call(c) if matches!(&c.expr, Expr::Var(v) if v.id == "namespace"))
}

impl<'a> Names<'a> {
    fn size(&self) -> usize {
        self.built.len()
            + self.built_attrs.len()
            + self.namespaces.len()
            + self.namespace_attrs.len()
            + usize::from(self.any_attr_built)
    }

    /// Whether `expr` evaluates to a namespace the template created.
    fn is_namespace(&self, expr: &Expr<'a>) -> bool {
        match expr {
            Expr::Var(v) => self.namespaces.contains(v.id),
            Expr::GetAttr(g) => self.is_namespace(&g.expr) && self.namespace_attrs.contains(g.name),
            _ => false,
        }
    }

    /// Whether a call's result is text (a macro, `caller()`, a recursive `loop()`) or
    /// holds nothing passed in.
    fn is_flat_call(&self, callee: &Expr<'a>) -> bool {
        match callee {
            Expr::Var(v) => {
                self.macros.contains(v.id)
                    || matches!(v.id, "caller" | "loop" | "super" | "self")
                    || FLAT_FUNCTIONS.contains(&v.id)
            }
            _ => false,
        }
    }

    /// Whether `expr` may evaluate to (or hold) a value the template built.
    fn is_built(&self, expr: &Expr<'a>) -> bool {
        match expr {
            Expr::Const(_) | Expr::UnaryOp(_) | Expr::Compare(_) | Expr::Test(_) => false,
            Expr::Var(v) => self.built.contains(v.id) || BUILT_SPECIALS.contains(&v.id),
            Expr::GetAttr(g) if is_namespace_call(&g.expr) => match &g.expr {
                Expr::Call(c) => args_exprs(&c.args).any(|e| self.is_built(e)),
                _ => false,
            },
            Expr::GetAttr(g) => {
                if self.is_namespace(&g.expr) {
                    self.any_attr_built || self.built_attrs.contains(g.name)
                } else if matches!(&g.expr, Expr::Var(v) if v.id == "loop") {
                    !FLAT_LOOP_ATTRS.contains(&g.name)
                } else {
                    self.is_built(&g.expr)
                }
            }
            Expr::GetItem(g) => self.is_namespace(&g.expr) || self.is_built(&g.expr),
            Expr::Slice(s) => self.is_built(&s.expr),
            Expr::List(l) => !l.items.iter().all(is_const),
            Expr::Tuple(t) => !t.items.iter().all(is_const),
            Expr::Map(m) => !(m.keys.iter().all(is_const) && m.values.iter().all(is_const)),
            Expr::BinOp(b) => match b.op {
                BinOpKind::Add | BinOpKind::Mul => !(is_const(&b.left) && is_const(&b.right)),
                BinOpKind::ScAnd | BinOpKind::ScOr => self.is_built(&b.left) || self.is_built(&b.right),
                _ => false,
            },
            Expr::IfExpr(i) => self.is_built(&i.true_expr) || i.false_expr.as_ref().is_some_and(|e| self.is_built(e)),
            // A filter that reshapes its input (`batch`, `items`, `map`) builds a new value
            // even from an input; one that keeps the shape builds one from its arguments.
            Expr::Filter(f) => {
                !FLAT_FILTERS.contains(&f.name)
                    && (!SHAPE_FILTERS.contains(&f.name)
                        || f.expr.as_ref().is_some_and(|e| self.is_built(e))
                        || !args_exprs(&f.args).all(is_const))
            }
            // Calls and methods (`dict(...)`, `x.items()`) build values.
            Expr::Call(c) => !self.is_flat_call(&c.expr) && !is_namespace_call(expr),
        }
    }

    /// Records what `target` holds after being bound to `value`.
    fn bind(&mut self, target: &Expr<'a>, value: &Expr<'a>, elements: bool) {
        let namespace = !elements && is_namespace_call(value);
        if namespace && let Expr::Call(c) = value {
            // `namespace(x=...)` binds the attribute `x`.
            for arg in &c.args {
                match arg {
                    CallArg::Kwarg(name, v) if self.is_built(v) => {
                        self.built_attrs.insert(name);
                    }
                    CallArg::Pos(v) | CallArg::PosSplat(v) | CallArg::KwargSplat(v) if !is_const(v) => {
                        // Attributes from a mapping: any name may hold a built value.
                        self.any_attr_built = true;
                    }
                    _ => {}
                }
            }
        }
        let built = self.is_built(value) || (elements && self.is_namespace(value));
        match target {
            Expr::Var(v) => {
                if namespace {
                    self.namespaces.insert(v.id);
                } else if built {
                    self.built.insert(v.id);
                }
            }
            Expr::GetAttr(g) => {
                if namespace {
                    self.namespace_attrs.insert(g.name);
                } else if built {
                    self.built_attrs.insert(g.name);
                }
            }
            // `a, b = value`: each part may be anything `value` holds.
            Expr::Tuple(t) => {
                for item in &t.items {
                    self.bind(item, value, true);
                }
            }
            Expr::List(l) => {
                for item in &l.items {
                    self.bind(item, value, true);
                }
            }
            _ => {}
        }
    }

    /// Marks every name in a parameter or loop target as built.
    fn bind_unknown(&mut self, target: &Expr<'a>) {
        match target {
            Expr::Var(v) => {
                self.built.insert(v.id);
            }
            Expr::Tuple(t) => t.items.iter().for_each(|e| self.bind_unknown(e)),
            Expr::List(l) => l.items.iter().for_each(|e| self.bind_unknown(e)),
            _ => {}
        }
    }

    fn collect_all(&mut self, stmts: &[Stmt<'a>]) {
        for s in stmts {
            self.collect(s);
        }
    }

    /// Pass one: what every assignment, loop and parameter binds.
    fn collect(&mut self, stmt: &Stmt<'a>) {
        match stmt {
            Stmt::Template(t) => self.collect_all(&t.children),
            Stmt::Set(s) => self.bind(&s.target, &s.expr, false),
            Stmt::WithBlock(w) => {
                for (target, value) in &w.assignments {
                    self.bind(target, value, false);
                }
                self.collect_all(&w.body);
            }
            Stmt::ForLoop(f) => {
                // A recursive loop also binds its target to whatever `loop(...)` passes.
                if f.recursive || self.is_built(&f.iter) || self.is_namespace(&f.iter) {
                    self.bind_unknown(&f.target);
                }
                self.collect_all(&f.body);
                self.collect_all(&f.else_body);
            }
            Stmt::IfCond(i) => {
                self.collect_all(&i.true_body);
                self.collect_all(&i.false_body);
            }
            Stmt::SetBlock(s) => self.collect_all(&s.body),
            Stmt::AutoEscape(a) => self.collect_all(&a.body),
            Stmt::FilterBlock(f) => self.collect_all(&f.body),
            Stmt::Block(b) => self.collect_all(&b.body),
            Stmt::Macro(m) => {
                self.macros.insert(m.name);
                m.args.iter().for_each(|a| self.bind_unknown(a));
                self.collect_all(&m.body);
            }
            Stmt::CallBlock(c) => {
                c.macro_decl.args.iter().for_each(|a| self.bind_unknown(a));
                self.collect_all(&c.macro_decl.body);
            }
            Stmt::FromImport(i) => {
                for (name, alias) in &i.names {
                    self.bind_unknown(alias.as_ref().unwrap_or(name));
                }
            }
            Stmt::Import(i) => self.bind_unknown(&i.name),
            _ => {}
        }
    }

    fn check_all(&self, stmts: &[Stmt<'a>]) -> Result<(), Refused> {
        stmts.iter().try_for_each(|s| self.check_stmt(s))
    }

    /// Pass two: every place a value is kept holds at most one built value.
    fn check_stmt(&self, stmt: &Stmt<'a>) -> Result<(), Refused> {
        match stmt {
            Stmt::Template(t) => self.check_all(&t.children),
            Stmt::EmitExpr(e) => self.visit(&e.expr),
            Stmt::Set(s) => {
                self.visit(&s.target)?;
                self.kept(&s.expr, true)
            }
            Stmt::WithBlock(w) => {
                for (_, value) in &w.assignments {
                    self.kept(value, true)?;
                }
                self.check_all(&w.body)
            }
            Stmt::ForLoop(f) => {
                self.kept(&f.iter, false)?;
                if let Some(e) = &f.filter_expr {
                    self.visit(e)?;
                }
                self.check_all(&f.body)?;
                self.check_all(&f.else_body)
            }
            Stmt::IfCond(i) => {
                self.visit(&i.expr)?;
                self.check_all(&i.true_body)?;
                self.check_all(&i.false_body)
            }
            Stmt::SetBlock(s) => {
                if let Some(f) = &s.filter {
                    self.visit(f)?;
                }
                self.check_all(&s.body)
            }
            Stmt::AutoEscape(a) => {
                self.visit(&a.enabled)?;
                self.check_all(&a.body)
            }
            Stmt::FilterBlock(f) => {
                self.visit(&f.filter)?;
                self.check_all(&f.body)
            }
            Stmt::Block(b) => self.check_all(&b.body),
            Stmt::Macro(m) => {
                for d in &m.defaults {
                    self.kept(d, false)?;
                }
                self.check_all(&m.body)
            }
            Stmt::CallBlock(c) => {
                self.visit_call_args(&c.call.args)?;
                self.visit(&c.call.expr)?;
                for d in &c.macro_decl.defaults {
                    self.kept(d, false)?;
                }
                self.check_all(&c.macro_decl.body)
            }
            Stmt::Do(d) => {
                self.visit_call_args(&d.call.args)?;
                self.visit(&d.call.expr)
            }
            _ => Ok(()),
        }
    }

    /// A value that is kept: it may hold at most one built value, and no namespace.
    /// `assignment`: the whole value of `{% set %}` or `{% with %}`, where a
    /// `namespace(...)` call is allowed (its arguments are kept values themselves).
    fn kept(&self, expr: &Expr<'a>, assignment: bool) -> Result<(), Refused> {
        if assignment
            && let Expr::Call(c) = expr
            && is_namespace_call(expr)
        {
            return self.visit_call_args(&c.args);
        }
        if self.count(expr)? > 1 {
            return Err(Refused { span: span_of(expr), message: COMBINES });
        }
        self.visit(expr)
    }

    fn visit_call_args(&self, args: &[CallArg<'a>]) -> Result<(), Refused> {
        args_exprs(args).try_for_each(|e| self.kept(e, false))
    }

    /// Walks an expression for the rules that hold everywhere: call arguments are kept
    /// values, and `namespace(...)` appears only as a whole assignment.
    fn visit(&self, expr: &Expr<'a>) -> Result<(), Refused> {
        match expr {
            Expr::Var(_) | Expr::Const(_) => Ok(()),
            Expr::Slice(s) => {
                self.visit(&s.expr)?;
                [&s.start, &s.stop, &s.step].into_iter().flatten().try_for_each(|e| self.visit(e))
            }
            Expr::UnaryOp(u) => self.visit(&u.expr),
            Expr::BinOp(b) => {
                self.visit(&b.left)?;
                self.visit(&b.right)
            }
            Expr::Compare(c) => {
                self.visit(&c.expr)?;
                c.ops.iter().try_for_each(|op| self.visit(&op.expr))
            }
            Expr::IfExpr(i) => {
                self.visit(&i.test_expr)?;
                self.visit(&i.true_expr)?;
                i.false_expr.as_ref().map_or(Ok(()), |e| self.visit(e))
            }
            Expr::Filter(f) => {
                if let Some(e) = &f.expr {
                    self.visit(e)?;
                }
                args_exprs(&f.args).try_for_each(|e| self.visit(e))
            }
            Expr::Test(t) => {
                self.visit(&t.expr)?;
                args_exprs(&t.args).try_for_each(|e| self.visit(e))
            }
            // `namespace(a=x).a` reads an attribute of a namespace nobody keeps: it is `x`.
            Expr::GetAttr(g) => match &g.expr {
                Expr::Call(c) if is_namespace_call(&g.expr) => self.visit_call_args(&c.args),
                inner => self.visit(inner),
            },
            Expr::GetItem(g) => {
                self.visit(&g.expr)?;
                self.visit(&g.subscript_expr)
            }
            Expr::Call(c) => {
                if is_namespace_call(expr) {
                    return Err(Refused { span: span_of(expr), message: NESTED_NAMESPACE });
                }
                self.visit(&c.expr)?;
                self.visit_call_args(&c.args)
            }
            Expr::List(l) => l.items.iter().try_for_each(|e| self.visit(e)),
            Expr::Tuple(t) => t.items.iter().try_for_each(|e| self.visit(e)),
            Expr::Map(m) => m.keys.iter().chain(&m.values).try_for_each(|e| self.visit(e)),
        }
    }

    /// How many built values a kept value holds at its top (2 stands for "more than one,
    /// repeated or nested": refused).
    fn count(&self, expr: &Expr<'a>) -> Result<usize, Refused> {
        let stored_namespace = || Refused { span: span_of(expr), message: STORES_NAMESPACE };
        Ok(match expr {
            Expr::Const(_) | Expr::UnaryOp(_) | Expr::Compare(_) | Expr::Test(_) => 0,
            Expr::Var(_) | Expr::GetAttr(_) if self.is_namespace(expr) => return Err(stored_namespace()),
            Expr::Var(_) => usize::from(self.is_built(expr)),
            Expr::GetAttr(g) if is_namespace_call(&g.expr) => match &g.expr {
                Expr::Call(c) => {
                    self.visit_call_args(&c.args)?;
                    self.sum_args(&c.args)?
                }
                _ => 0,
            },
            Expr::GetAttr(g) => {
                if self.is_namespace(&g.expr) || matches!(&g.expr, Expr::Var(v) if v.id == "loop") {
                    usize::from(self.is_built(expr))
                } else {
                    self.count(&g.expr)?
                }
            }
            Expr::GetItem(g) => {
                if !self.is_namespace(&g.expr) {
                    self.count(&g.expr)?
                } else if !self.namespace_attrs.is_empty() {
                    return Err(stored_namespace());
                } else {
                    usize::from(self.any_attr_built || !self.built_attrs.is_empty())
                }
            }
            Expr::Slice(s) => self.count(&s.expr)?,
            Expr::List(l) => wrapped(self.sum(&l.items)?),
            Expr::Tuple(t) => wrapped(self.sum(&t.items)?),
            Expr::Map(m) => wrapped(self.sum(&m.keys)? + self.sum(&m.values)?),
            Expr::BinOp(b) => match b.op {
                BinOpKind::Add => self.count(&b.left)? + self.count(&b.right)?,
                BinOpKind::Mul => wrapped(self.count(&b.left)? + self.count(&b.right)?),
                BinOpKind::ScAnd | BinOpKind::ScOr => self.count(&b.left)?.max(self.count(&b.right)?),
                _ => 0,
            },
            Expr::IfExpr(i) => {
                let t = self.count(&i.true_expr)?;
                let f = match &i.false_expr {
                    Some(e) => self.count(e)?,
                    None => 0,
                };
                t.max(f)
            }
            Expr::Filter(f) => {
                if FLAT_FILTERS.contains(&f.name) {
                    0
                } else {
                    let input = match &f.expr {
                        Some(e) => self.count(e)?,
                        None => 0,
                    };
                    let input = if SHAPE_FILTERS.contains(&f.name) { input } else { wrapped(input) };
                    input + wrapped(self.sum_args(&f.args)?)
                }
            }
            Expr::Call(c) => {
                if is_namespace_call(expr) {
                    return Err(Refused { span: span_of(expr), message: NESTED_NAMESPACE });
                }
                if self.is_flat_call(&c.expr) {
                    0
                } else {
                    let callee = match &c.expr {
                        // A method of a built value (`a.items()`) may reshape it.
                        Expr::GetAttr(g) => wrapped(self.count(&g.expr)?),
                        other => wrapped(usize::from(self.is_built(other))),
                    };
                    callee + wrapped(self.sum_args(&c.args)?)
                }
            }
        }
        .min(2))
    }

    fn sum(&self, items: &[Expr<'a>]) -> Result<usize, Refused> {
        items.iter().try_fold(0, |acc, e| Ok(acc + self.count(e)?))
    }

    fn sum_args(&self, args: &[CallArg<'a>]) -> Result<usize, Refused> {
        args_exprs(args).try_fold(0, |acc, e| Ok(acc + self.count(e)?))
    }
}

/// A built value where it may be repeated or nested counts as more than one.
fn wrapped(count: usize) -> usize {
    if count > 0 { 2 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::syntax::SyntaxConfig;

    fn verdict(body: &str) -> Result<(), &'static str> {
        let ast = minijinja::machinery::parse(body, "t", SyntaxConfig::default()).expect("parses");
        check(&ast).map_err(|r| r.message)
    }

    #[test]
    fn doubling_is_refused_everywhere() {
        for body in [
            "{% set ns = namespace(x=[1]) %}{% for i in range(40) %}{% set ns.x = ns.x + ns.x %}{% endfor %}",
            "{% set a = [1] %}{% set a = a + a %}",
            "{% set a = [1] %}{% set a = [a, a] %}",
            "{% set a = [1] %}{% set b = a %}{% set a = a + b %}",
            "{% set a = [1] %}{% set a = [a] * 2 %}",
            "{% set a = [1] %}{% set a = dict(x=a, y=a) %}",
            "{% set a = [1] %}{% set a = ([none] * 9)|map('default', a)|list %}",
            "{% macro f(x, n) %}{{ f(x + x, n - 1) }}{% endmacro %}",
            "{% for x in [[1]] recursive %}{{ loop([x + x]) }}{% endfor %}",
            "{% set ns = namespace(a=[1], b=[1]) %}{% set ns.a = ns.a + ns.b %}{% set ns.b = ns.a %}",
            "{% set a = [q] %}{% with b = [a, a] %}{% endwith %}",
            "{% set a = [q] %}{% for x in [[a, a]] %}{% for y in [[x, x]] %}{% endfor %}{% endfor %}",
            "{% set ns = namespace(x=1) %}{% for i in range(99999) %}{% set ns.x = [ns.x] %}{% endfor %}",
            "{% set ns = namespace(x=[1]) %}{% for i in range(99999) %}{% set ns.x = ns.x|batch(1) %}{% endfor %}",
            "{% set ns = namespace(x={}) %}{% for i in range(99999) %}{% set ns.x = ns.x.items() %}{% endfor %}",
            "{% macro add(v) %}{% set ns.x = ns.x + [v] %}{% endmacro %}",
            "{% set ns = namespace(x=[q]) %}{% set ns.x = ns.x + ns.x %}",
            "{% set ns = namespace(d) %}{% set ns.x = ns.y + ns.z %}",
            // Conservative: the names could hold numbers, but nothing says so.
            "{% set total = price + tax %}{% set pair = [total, total] %}",
        ] {
            assert_eq!(verdict(body), Err(COMBINES), "{body}");
        }
    }

    #[test]
    fn namespaces_are_never_stored() {
        for (body, message) in [
            ("{% set ns = namespace() %}{% set ns.x = ns %}", STORES_NAMESPACE),
            ("{% set ns = namespace() %}{% set ns.x = [ns] %}", STORES_NAMESPACE),
            ("{% set ns = namespace() %}{% set y = ns %}", STORES_NAMESPACE),
            ("{% set ns = namespace() %}{% macro m(n) %}{% endmacro %}{{ m(ns) }}", STORES_NAMESPACE),
            ("{% set ns = namespace() %}{% for n in [ns] %}{% endfor %}", STORES_NAMESPACE),
            ("{% set ns = namespace(c=namespace()) %}", NESTED_NAMESPACE),
            ("{% set ns = namespace(c=namespace().x) %}{{ namespace(a=namespace()).a }}", NESTED_NAMESPACE),
            ("{% for n in [namespace()] %}{% set n.x = n %}{% endfor %}", NESTED_NAMESPACE),
            ("{% set ns = namespace() %}{% set ns.c = namespace() %}{% set ns.c.x = ns.c %}", STORES_NAMESPACE),
        ] {
            assert_eq!(verdict(body), Err(message), "{body}");
        }
    }

    #[test]
    fn ordinary_templates_pass() {
        for body in [
            "{{ q }}{% for m in messages %}{{ m.role }}: {{ m.content }}{% endfor %}",
            "{{ namespace(a=1).a }}{% set v = namespace(a=q).a %}{% if (namespace(a=1).a) %}{% endif %}",
            "{% set ns = namespace(count=0, items=[], text='') %}{% for x in xs %}\
             {% set ns.count = ns.count + 1 %}{% set ns.items = ns.items + [x, x.name] %}\
             {% set ns.text = ns.text ~ sep ~ x %}{% endfor %}{{ ns.count }}{{ ns.items|join(', ') }}",
            "{% set full = first ~ ' ' ~ last %}{% set both = [full, full] %}",
            "{% set total = price + tax %}{% set grand = total + fee %}{% set rows = [[a, b], [c, d]] %}",
            "{% set ns = namespace(rows=[]) %}{% for r in data %}{% set ns.rows = ns.rows + [[r.a, r.b]] %}{% endfor %}",
            "{% set ns = namespace(x=[]) %}{% for r in data %}{% set ns.x = (ns.x + [r])|sort(attribute='k') %}{% endfor %}",
            "{% set ns = namespace(x=[3, 1, 2]) %}{% for i in range(9) %}{% set ns.x = ns.x|sort|reverse|list %}{% endfor %}",
            "{% for i in range(3) %}{{ loop.index * 2 }}{% set ns2 = loop.index + loop.length %}{% endfor %}",
            "{% macro row(a, b) %}{{ a }}|{{ b }}{% endmacro %}{{ row(x, x) }}{{ row([x], y) }}",
            "{% set items = data|selectattr('k')|list %}{% set first = items|first %}",
            "{% set ns = namespace(found=false) %}{% for x in xs %}{% if x == q %}{% set ns.found = true %}{% endif %}{% endfor %}",
            "{% call(user) dump(users) %}{{ user }}{% endcall %}",
            "{{ [q, q, q] }}{{ dict(a=q, b=q) }}",
        ] {
            assert_eq!(verdict(body), Ok(()), "{body}");
        }
    }
}
