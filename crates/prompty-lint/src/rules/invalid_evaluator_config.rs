use prompty_eval::EvaluatorConfig;
use prompty_syntax::Severity;
use prompty_syntax::yaml::Node;

use crate::Finding;
use crate::context::Context;

declare_rule! {
    /// ## What it does
    /// Checks the `metadata.evaluator` block that configures scoring (`prompty score`,
    /// `prompty eval`): unknown keys (with the closest known key), values of the wrong
    /// type or out of their set (`answer`, `direction`, `scoreType`, `compat`), a `range`
    /// whose minimum is above its maximum, and, as a warning, a threshold outside the
    /// range.
    ///
    /// ## Why is this bad?
    /// `metadata` is free-form for every other tool, so nothing else reads this block:
    /// a misspelt `thresold` is silently ignored by the loader, and scoring fails (or, for
    /// a threshold outside the range, every answer passes or every answer fails) only when
    /// an evaluation runs.
    ///
    /// ## Example
    /// ```yaml
    /// metadata:
    ///   evaluator:
    ///     range: [5, 1]
    ///     thresold: 3
    /// ```
    ///
    /// ## Use instead
    /// ```yaml
    /// metadata:
    ///   evaluator:
    ///     range: [1, 5]
    ///     threshold: 3
    /// ```
    pub(crate) struct InvalidEvaluatorConfig {
        code: "PL026",
        name: "invalid-evaluator-config",
        severity: Error,
        fix: None,
    }
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(block) = cx.node(&["metadata", "evaluator"]) else { return };
    let Some(entries) = block.as_map() else {
        out.push(
            InvalidEvaluatorConfig::META
                .finding(block.span.clone(), "`metadata.evaluator` must be a mapping")
                .help("write the evaluator settings as keys under `evaluator:` (`threshold: 3`, `range: [1, 5]`)"),
        );
        return;
    };
    let keys = prompty_eval::evaluator_keys();
    let mut known = serde_json::Map::new();
    for (key, value) in entries {
        let name = key.key_string();
        if keys.contains(&name.as_str()) {
            known.insert(name, value.to_json());
            continue;
        }
        let help = match prompty_syntax::did_you_mean(&name, &keys) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("the evaluator block takes: {}", keys.join(", ")),
        };
        out.push(
            InvalidEvaluatorConfig::META
                .finding(key.span.clone(), format!("unknown key `{name}` in `metadata.evaluator`"))
                .help(help),
        );
    }
    // A value that is still a `${...}` reference is checked where it is resolved.
    if known.values().any(|v| v.as_str().is_some_and(|s| s.starts_with("${"))) {
        return;
    }
    let config = match EvaluatorConfig::from_block(&serde_json::Value::Object(known)) {
        Ok(config) => config,
        Err(prompty_eval::Error::Config { key, message }) => {
            // `metadata.evaluator.range[0]`: the node of `range`.
            let field = key.strip_prefix("metadata.evaluator.").unwrap_or(&key);
            let field = field.split(['[', '.']).next().unwrap_or(field);
            let span = block.get(field).map_or_else(|| block.span.clone(), |n| n.span.clone());
            out.push(InvalidEvaluatorConfig::META.finding(span, format!("`{key}`: {message}")).help(match field {
                "range" => "write `range: [min, max]` with numbers, min not above max",
                "answer" => "write one of `tags`, `json`, `number`, `label`",
                "direction" => "write one of `higher`, `lower`, `equal`",
                "scoreType" => "write one of `float`, `int`, `bool`",
                "compat" => "name one of azure-ai-evaluation's evaluators (`coherence`, `relevance`, ...)",
                "validateRange" => "give a `range` too, or remove `validateRange`",
                _ => "fix this value (see the `metadata.evaluator` settings in docs/rules.md)",
            }));
            return;
        }
        Err(e) => {
            out.push(InvalidEvaluatorConfig::META.finding(block.span.clone(), e.to_string()));
            return;
        }
    };
    let Some(range) = &config.range else { return };
    let threshold = config.threshold.value();
    if threshold.is_finite() && !(range.min_f64()..=range.max_f64()).contains(&threshold) {
        let at: &Node = block.get("threshold").or_else(|| block.get("range")).unwrap_or(block);
        let written = if block.get("threshold").is_some() { "" } else { "the default " };
        out.push(
            InvalidEvaluatorConfig::META
                .finding(
                    at.span.clone(),
                    format!(
                        "{written}threshold {} is outside the score range [{}, {}]: every score {} it",
                        config.threshold.0,
                        range.min,
                        range.max,
                        if threshold < range.min_f64() { "is above" } else { "is below" }
                    ),
                )
                .severity(Severity::Warning)
                .help("set `threshold` to a score inside `range`"),
        );
    }
}

#[cfg(test)]
mod tests {
    use prompty_syntax::{LoadOptions, MapHost, Severity, load_str};

    /// (message, severity) of this rule's findings on a prompt with `evaluator` as its block.
    fn findings(evaluator: &str) -> Vec<(String, Severity)> {
        let text = format!("---\nname: j\nmetadata:\n  evaluator: {evaluator}\n---\nuser:\nhi\n");
        let loaded = load_str(&text, &MapHost::new(), &LoadOptions { lint: true, ..LoadOptions::default() });
        crate::lint(&text, &loaded)
            .into_iter()
            .filter(|f| f.diagnostic.code.id == "PL026")
            .map(|f| (f.diagnostic.message, f.diagnostic.severity))
            .collect()
    }

    #[test]
    fn evaluator_blocks() {
        assert_eq!(findings("{range: [1, 5], threshold: 3}"), []);
        assert_eq!(findings("{answer: json, range: [0, 1], threshold: 0.5}"), []);
        let outside = findings("{answer: json, range: [0, 1], threshold: 3}");
        assert_eq!(
            outside,
            [("threshold 3 is outside the score range [0, 1]: every score is below it".to_owned(), Severity::Warning)]
        );
        // The default threshold (3) against a range that excludes it.
        let default = findings("{answer: number, range: [0, 1]}");
        assert!(default.first().is_some_and(|(m, _)| m.starts_with("the default threshold 3")), "{default:?}");
        let order = findings("{answer: json, range: [5, 1]}");
        assert!(order.first().is_some_and(|(m, s)| m.contains("min is greater than max") && *s == Severity::Error));
        let typo = findings("{thresold: 3, directon: higher}");
        assert_eq!(typo.len(), 2, "{typo:?}");
        assert!(findings("{direction: up}").first().is_some_and(|(m, _)| m.contains("higher, lower, equal")));
        assert!(findings("[1, 5]").first().is_some_and(|(m, _)| m.contains("must be a mapping")));
        // A reference is checked where it is resolved, not here.
        assert_eq!(findings("{threshold: '${env:T}'}"), []);
    }
}
