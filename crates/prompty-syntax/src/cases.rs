//! A prompt's input cases: the sidecar `<name>.cases.yaml` that maps case names to input
//! values, read once here for every tool (`prompty snapshot` renders each case, the linter
//! checks them against the prompt's inputs, `fmt` checks its rewrites on them).
//!
//! ```yaml
//! short_answer:
//!   query: What is Rust?
//!   response: A language.
//! empty: {}
//! ```

use std::ops::Range;

use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;
use crate::yaml::{Node, NodeValue};

/// One case: its name and its input values as written (spans into the cases file).
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The case's name.
    pub name: String,
    /// Where the name is written.
    pub name_span: Range<usize>,
    /// The input values: each input's name node and value node.
    pub inputs: Vec<(Node, Node)>,
}

impl Case {
    /// The input values as JSON, what a renderer takes.
    pub fn values(&self) -> Map<String, Value> {
        self.inputs.iter().map(|(k, v)| (k.key_string(), v.to_json())).collect()
    }
}

/// What is wrong with a cases file.
#[derive(Debug, Clone, PartialEq)]
pub enum CasesProblem {
    /// It is not YAML (the parser's diagnostic; no case was read).
    Yaml(Diagnostic),
    /// It is YAML but not a mapping of case names (no case was read).
    NotAMapping {
        /// The document's span.
        span: Range<usize>,
    },
    /// A case's value is not a mapping of input values (that case is left out).
    CaseNotAMapping {
        /// The case's name.
        name: String,
        /// The value's span.
        span: Range<usize>,
    },
}

impl CasesProblem {
    /// Where the problem is.
    pub fn span(&self) -> Range<usize> {
        match self {
            CasesProblem::Yaml(d) => d.span.clone(),
            CasesProblem::NotAMapping { span } | CasesProblem::CaseNotAMapping { span, .. } => span.clone(),
        }
    }

    /// What is wrong, in one sentence.
    pub fn message(&self) -> String {
        match self {
            CasesProblem::Yaml(d) => d.message.clone(),
            CasesProblem::NotAMapping { .. } => "a cases file must map case names to input values".to_owned(),
            CasesProblem::CaseNotAMapping { name, .. } => format!("case `{name}` must be a mapping of input values"),
        }
    }

    /// What to do about it.
    pub fn help(&self) -> String {
        match self {
            CasesProblem::Yaml(d) => d.help.clone().unwrap_or_else(|| "fix the YAML syntax".to_owned()),
            CasesProblem::NotAMapping { .. } => "write `case_name:` followed by `input: value` lines".to_owned(),
            CasesProblem::CaseNotAMapping { .. } => "write `input: value` lines under the case name".to_owned(),
        }
    }
}

/// Reads a cases file: every case it holds, in order, and every problem. An empty file
/// holds no case; a case written with no value (`name:`) has no inputs.
pub fn parse_cases(text: &str) -> (Vec<Case>, Vec<CasesProblem>) {
    let root = match crate::yaml::parse(text, 0, text) {
        Ok(root) => root,
        Err(d) => return (Vec::new(), vec![CasesProblem::Yaml(d)]),
    };
    let entries = match root.value {
        NodeValue::Map(entries) => entries,
        NodeValue::Null => return (Vec::new(), Vec::new()),
        _ => return (Vec::new(), vec![CasesProblem::NotAMapping { span: root.span }]),
    };
    let mut cases = Vec::new();
    let mut problems = Vec::new();
    for (key, value) in entries {
        let name = key.key_string();
        let inputs = match value.value {
            NodeValue::Map(inputs) => inputs,
            NodeValue::Null => Vec::new(),
            _ => {
                problems.push(CasesProblem::CaseNotAMapping { name, span: value.span });
                continue;
            }
        };
        cases.push(Case { name, name_span: key.span, inputs });
    }
    (cases, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_in_order_with_spans_and_problems_without_stopping() {
        let text = "a:\n  q: hi\n  n: 2\nb:\nc: [1]\nd: {q: x}\n";
        let (cases, problems) = parse_cases(text);
        let names: Vec<(&str, &str, Map<String, Value>)> =
            cases.iter().map(|c| (c.name.as_str(), &text[c.name_span.clone()], c.values())).collect();
        let map = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(
            names,
            [
                ("a", "a", map(serde_json::json!({"q": "hi", "n": 2}))),
                ("b", "b", Map::new()),
                ("d", "d", map(serde_json::json!({"q": "x"}))),
            ]
        );
        assert_eq!(problems.len(), 1);
        assert_eq!(&text[problems[0].span()], "[1]");
        assert_eq!(problems[0].message(), "case `c` must be a mapping of input values");
        assert_eq!(parse_cases(""), (Vec::new(), Vec::new()));
        assert!(matches!(parse_cases("- a\n").1.as_slice(), [CasesProblem::NotAMapping { .. }]));
        assert!(matches!(parse_cases("a: [\n").1.as_slice(), [CasesProblem::Yaml(_)]));
    }
}
