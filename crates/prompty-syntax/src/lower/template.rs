//! `template`: the engine (`format`) and the role-line parser (`parser`).

use super::Lowerer;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::format::TemplateFormat;
use crate::keys::{self, Key};
use crate::model::{FormatConfig, ParserConfig, Profile, Template};
use crate::suggest::did_you_mean;
use crate::yaml::{Node, NodeValue};

/// Template formats this toolkit renders, by their spec names.
pub const FORMATS: &[&str] =
    &[TemplateFormat::Jinja2.name(), TemplateFormat::Mustache.name(), TemplateFormat::Handlebars.name()];
/// Parsers this toolkit splits with.
pub const PARSERS: &[&str] = &["prompty"];

impl Lowerer<'_> {
    pub(super) fn template(&mut self, root: &Node, node: &Node) -> Template {
        let mut t = Template::default();
        match &node.value {
            NodeValue::String(s) => {
                if self.profile == Profile::Promptflow {
                    if let Some(k) = root.key_node("template") {
                        self.legacy(
                            k,
                            "`template: <engine>` is the v1 spelling".into(),
                            format!("v2 spelling: `template: {{format: {s}, parser: prompty}}`"),
                        );
                    }
                    t.format.kind.clone_from(s);
                    self.check_engine(node, s, FORMATS, "format");
                } else {
                    self.error(
                        codes::BAD_TEMPLATE,
                        node,
                        "Invalid template format: `template` must be a mapping with `format` and `parser`".into(),
                        format!("write `template: {{format: {s}, parser: prompty}}`"),
                    );
                }
            }
            NodeValue::Map(_) => {
                self.check_keys(node, "`template`", keys::TEMPLATE, &[]);
                if let Some(f) = node.get("format")
                    && let Some((kind, rest)) = self.engine(f, "template.format", keys::FORMAT)
                {
                    self.check_engine(rest.and_then(|n| n.get("kind")).unwrap_or(f), &kind, FORMATS, "format");
                    t.format = FormatConfig {
                        kind,
                        strict: self.bool(rest.and_then(|n| n.get("strict")), "template.format.strict"),
                        options: self.object(rest.and_then(|n| n.get("options")), "template.format.options"),
                    };
                }
                if let Some(p) = node.get("parser")
                    && let Some((kind, rest)) = self.engine(p, "template.parser", keys::PARSER)
                {
                    self.check_engine(rest.and_then(|n| n.get("kind")).unwrap_or(p), &kind, PARSERS, "parser");
                    t.parser = ParserConfig {
                        kind,
                        options: self.object(rest.and_then(|n| n.get("options")), "template.parser.options"),
                    };
                }
            }
            NodeValue::Null => {}
            _ => self.error(
                codes::BAD_TEMPLATE,
                node,
                format!("Invalid template format: `template` must be a mapping, found {}", node.type_name()),
                "write `template: {format: jinja2, parser: prompty}`",
            ),
        }
        t
    }

    /// `kind` of a format/parser given as a string or `{kind, ...}`.
    pub(super) fn engine<'n>(
        &mut self,
        node: &'n Node,
        what: &str,
        keys: &[Key],
    ) -> Option<(String, Option<&'n Node>)> {
        match &node.value {
            NodeValue::String(s) => Some((s.clone(), None)),
            NodeValue::Map(_) => {
                self.check_keys(node, format_args!("`{what}`"), keys, &[]);
                match self.string(node.get("kind"), format_args!("{what}.kind")) {
                    Some(k) => Some((k, Some(node))),
                    None => {
                        self.error(codes::MISSING_FIELD, node, format!("`{what}` has no `kind`"), "add `kind: ...`");
                        None
                    }
                }
            }
            _ => {
                self.wrong_type(node, what, "a string or a mapping with `kind`");
                None
            }
        }
    }

    pub(super) fn check_engine(&mut self, node: &Node, kind: &str, known: &[&str], what: &str) {
        if what == "format" && kind == "nunjucks" {
            // The TypeScript runtime's name for its engine; it renders `jinja2` the same way.
            self.push(
                Diagnostic::warning(
                    codes::NON_PORTABLE_FORMAT,
                    node.span.clone(),
                    "template format `nunjucks` is accepted by the TypeScript runtime only: it is rendered here as Jinja2 (Python semantics), the Python runtime rejects it, and Nunjucks itself prints some values differently (`true`, `a,b`)",
                )
                .with_help("write `jinja2`: every runtime accepts it"),
            );
            return;
        }
        if known.contains(&kind) || (what == "format" && TemplateFormat::from_kind(kind).is_some()) {
            return;
        }
        let guess = if self.secrets.contains(kind) { None } else { did_you_mean(kind, known) };
        let help = match guess {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("supported: {}", known.join(", ")),
        };
        self.error(codes::UNKNOWN_ENGINE, node, format!("unknown template {what} `{kind}`"), help);
    }
}
