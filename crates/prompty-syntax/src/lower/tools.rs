//! `tools`: functions, MCP servers, OpenAPI specifications and custom kinds, with their
//! bindings.

use serde_json::{Map, Value};

use super::{Lowerer, head};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::keys;
use crate::model::Tool;
use crate::yaml::{Node, NodeValue};

impl Lowerer<'_> {
    pub(super) fn tools(&mut self, node: &Node) -> Vec<Tool> {
        let mut out = Vec::new();
        match &node.value {
            NodeValue::Seq(items) => {
                for item in items {
                    match item.get("name").filter(|n| n.as_str().is_some()) {
                        Some(n) => out.extend(self.tool(item, n.key_string(), n.span.clone())),
                        None => self.push(
                            Diagnostic::error(codes::MISSING_FIELD, head(item), "a tool has no `name`")
                                .with_help("add `name:` to the tool"),
                        ),
                    }
                }
            }
            NodeValue::Map(entries) => {
                for (k, v) in entries {
                    out.extend(self.tool(v, k.key_string(), k.span.clone()));
                }
            }
            NodeValue::Null => {}
            _ => self.wrong_type(node, "tools", "a list of tools"),
        }
        out
    }

    /// One tool; `at` is the span of its name, where problems with the whole tool point.
    pub(super) fn tool(&mut self, node: &Node, name: String, at: std::ops::Range<usize>) -> Option<Tool> {
        if node.as_map().is_none() {
            self.wrong_type(node, format_args!("tools.{name}"), "a mapping");
            return None;
        }
        let Some(kind) = self.string(node.get("kind"), format_args!("tools.{name}.kind")) else {
            self.push(
                Diagnostic::error(codes::MISSING_FIELD, at, format!("tool `{name}` has no `kind`"))
                    .with_help("add `kind: function` (or mcp, openapi, or a custom kind)"),
            );
            return None;
        };
        let what = format!("tool `{name}`");
        let connection_what = format!("tools.{name}.connection");
        let specific = keys::tool_keys(&kind);
        self.check_keys(node, &what, keys::TOOL, specific);
        let mut tool = Tool {
            description: self.string(node.get("description"), format_args!("{what}.description")),
            name,
            kind,
            parameters: None,
            strict: None,
            bindings: node.get("bindings").and_then(|b| self.bindings(b)),
            connection: self.connection(node, &connection_what),
            server_name: self.string(node.get("serverName"), "serverName"),
            server_description: self.string(node.get("serverDescription"), "serverDescription"),
            approval_mode: node.get("approvalMode").map(|a| match a.to_json() {
                Value::String(s) => serde_json::json!({ "kind": s }),
                other => other,
            }),
            allowed_tools: node.get("allowedTools").and_then(|a| match a.to_json() {
                Value::Array(items) => Some(items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()),
                _ => None,
            }),
            specification: self.string(node.get("specification"), "specification"),
            options: self.object(node.get("options"), "options"),
        };
        if tool.kind == "function" {
            // Left unset when not written: consumers apply the schema default (true) themselves.
            tool.strict = self.bool(node.get("strict"), "strict");
            match node.get("parameters") {
                Some(p) => {
                    tool.parameters = Some(self.properties(p, &format!("tools.{}.parameters", tool.name), false))
                }
                None => self.push(
                    Diagnostic::error(
                        codes::MISSING_FIELD,
                        at.clone(),
                        format!("function tool `{}` has no `parameters`", tool.name),
                    )
                    .with_help("add `parameters:` (an empty list `[]` if it takes none)"),
                ),
            }
        }
        if tool.kind == "openapi" && tool.specification.is_none() {
            self.push(
                Diagnostic::error(
                    codes::MISSING_FIELD,
                    at,
                    format!("openapi tool `{}` has no `specification`", tool.name),
                )
                .with_help("add `specification: ./api.json`"),
            );
        }
        Some(tool)
    }

    pub(super) fn bindings(&mut self, node: &Node) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        let mut one = |this: &mut Self, param: String, b: &Node| match &b.value {
            NodeValue::String(s) => {
                out.insert(param, serde_json::json!({ "input": s }));
            }
            NodeValue::Map(_) => match b.get("input").and_then(Node::as_str) {
                Some(s) => {
                    out.insert(param, serde_json::json!({ "input": s }));
                }
                None => this.error(
                    codes::MISSING_FIELD,
                    b,
                    format!("binding `{param}` has no `input`"),
                    "write `input: <input name>`",
                ),
            },
            _ => this.wrong_type(b, format_args!("bindings.{param}"), "an input name or `{input: name}`"),
        };
        match &node.value {
            NodeValue::Map(entries) => {
                for (k, v) in entries {
                    one(self, k.key_string(), v);
                }
            }
            NodeValue::Seq(items) => {
                for item in items {
                    match item.get("name").and_then(Node::as_str) {
                        Some(name) => one(self, name.to_owned(), item),
                        None => self.error(
                            codes::MISSING_FIELD,
                            item,
                            "a binding has no `name`".into(),
                            "write `- name: param\\n  input: input_name`",
                        ),
                    }
                }
            }
            _ => self.wrong_type(node, "bindings", "a mapping of parameter to input"),
        }
        Some(out)
    }
}
