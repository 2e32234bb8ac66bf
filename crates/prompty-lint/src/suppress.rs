//! Inline suppression comments.
//!
//! - In the front matter, a YAML comment `# prompty: ignore[PL003, P030]` silences those
//!   codes in the whole file; `# prompty: ignore` alone silences every code.
//! - In the body, a template comment on the line before a line silences codes on that
//!   line: `{# prompty: ignore[PL001] #}` (Jinja) or `{{! prompty: ignore[PL005] }}`
//!   (Mustache, Handlebars).
//!
//! Codes may be written as codes (`PL001`) or names (`undeclared-variable`).

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;

use crate::{Finding, all_codes};
use prompty_syntax::Document;

/// What one directive silences: `None` is everything.
#[derive(Debug, Clone)]
struct Directive {
    codes: Option<Vec<String>>,
}

impl Directive {
    #[cfg(test)]
    fn covers(&self, f: &Finding) -> bool {
        match &self.codes {
            None => true,
            Some(codes) => codes.iter().any(|c| c == f.diagnostic.code.id || c == f.diagnostic.code.name),
        }
    }
}

/// The suppression comments of one file.
#[derive(Debug, Default)]
pub(crate) struct Suppressions {
    file: Vec<Directive>,
    /// A file byte range (a line) and what is silenced on it.
    lines: Vec<(Range<usize>, Directive)>,
    problems: Vec<Problem>,
}

/// A malformed directive or an unknown code, which the `invalid-suppression` rule reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// Where, in the file.
    pub(crate) span: Range<usize>,
    /// What is wrong.
    pub(crate) message: String,
    /// What to write instead.
    pub(crate) help: String,
}

impl Suppressions {
    /// The directives of `text`, whose pieces the loader found (`None` when it could not
    /// split the file: then there are none).
    pub(crate) fn parse(text: &str, document: Option<&Document>) -> Self {
        let mut s = Suppressions::default();
        let Some(document) = document else { return s };
        // Every directive starts with `prompty:`; most files have none, and one search over
        // the text settles that.
        if memchr::memmem::find(text.as_bytes(), b"prompty:").is_none() {
            return s;
        }
        if let Some(fm) = &document.front_matter {
            let mut pos = fm.start;
            for line in text.get(fm.clone()).unwrap_or("").split_inclusive('\n') {
                if let Some(at) = yaml_comment_directive(line)
                    && let Some(d) = s.directive(text, pos + at)
                {
                    s.file.push(d);
                }
                pos += line.len();
            }
        }
        let body = document.body.clone();
        for (open, close) in [("{#", "#}"), ("{{!", "}}")] {
            let mut from = body.start;
            let find = |from: usize, needle: &str| {
                text.get(from..body.end)
                    .and_then(|t| memchr::memmem::find(t.as_bytes(), needle.as_bytes()))
                    .map(|i| from + i)
            };
            while let Some(start) = find(from, open) {
                let Some(end) = find(start, close) else { break };
                let inner_start = start + open.len();
                let inner = text.get(inner_start..end).unwrap_or("");
                let lead = inner.len() - inner.trim_start_matches(['-', '~', ' ', '\t']).len();
                if inner.get(lead..).is_some_and(|t| t.starts_with("prompty:"))
                    && let Some(d) = s.directive(text, inner_start + lead)
                {
                    let after = end + close.len();
                    let next = text.get(after..).and_then(|t| t.find('\n')).map(|i| after + i + 1);
                    if let Some(line_start) = next {
                        let line_end =
                            text.get(line_start..).and_then(|t| t.find('\n')).map_or(text.len(), |i| line_start + i);
                        s.lines.push((line_start..line_end, d));
                    }
                }
                from = end + close.len();
            }
        }
        s
    }

    /// Reads the directive that starts with `prompty:` at `at`; records problems.
    fn directive(&mut self, text: &str, at: usize) -> Option<Directive> {
        let rest_start = at + "prompty:".len();
        let line_end = text.get(rest_start..).and_then(|t| t.find('\n')).map_or(text.len(), |i| rest_start + i);
        let rest = text.get(rest_start..line_end).unwrap_or("");
        let lead = rest.len() - rest.trim_start().len();
        let word_start = rest_start + lead;
        let trimmed = rest.trim_start();
        let Some(after_ignore) = trimmed.strip_prefix("ignore") else {
            let word: String = trimmed.chars().take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_').collect();
            self.problems.push(Problem {
                span: word_start..word_start + word.len(),
                message: format!("unknown directive `prompty: {word}`"),
                help: "write `prompty: ignore[CODE, ...]`".into(),
            });
            return None;
        };
        let list_start = word_start + "ignore".len();
        let Some(list) = after_ignore.strip_prefix('[') else {
            let next = after_ignore.chars().next();
            return match next {
                None | Some(' ' | '\t' | '\r' | '#' | '}' | '-' | '~') => Some(Directive { codes: None }),
                Some(_) => {
                    self.problems.push(Problem {
                        span: word_start..list_start,
                        message: "a suppression must be `ignore` or `ignore[CODE, ...]`".into(),
                        help: "write `prompty: ignore[CODE, ...]`".into(),
                    });
                    None
                }
            };
        };
        let Some(close) = list.find(']') else {
            self.problems.push(Problem {
                span: list_start..list_start + 1,
                message: "the code list is not closed with `]`".into(),
                help: "write `prompty: ignore[CODE, ...]`".into(),
            });
            return None;
        };
        let mut codes = Vec::new();
        let mut pos = list_start + 1;
        for item in list.get(..close).unwrap_or("").split(',') {
            let code = item.trim();
            let code_start = pos + (item.len() - item.trim_start().len());
            pos += item.len() + 1;
            if code.is_empty() {
                continue;
            }
            let known = all_codes().any(|c| c.id == code || c.name == code);
            if known {
                codes.push(code.to_owned());
            } else {
                let candidates: Vec<&str> = all_codes().flat_map(|c| [c.id, c.name]).collect();
                let suggestion = prompty_syntax::did_you_mean(code, &candidates);
                let help = match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "name a code such as `PL001` or a rule name such as `unused-input`".to_owned(),
                };
                self.problems.push(Problem {
                    span: code_start..code_start + code.len(),
                    message: format!("`{code}` is not a known code"),
                    help,
                });
            }
        }
        Some(Directive { codes: Some(codes) })
    }

    /// Whether a comment silences `f`, by scanning every directive (the definition that
    /// [`Coverage::covers`] is tested against).
    #[cfg(test)]
    fn covers(&self, f: &Finding) -> bool {
        self.file.iter().any(|d| d.covers(f))
            || self.lines.iter().any(|(range, d)| {
                range.start <= f.diagnostic.span.start && f.diagnostic.span.start <= range.end && d.covers(f)
            })
    }

    /// The same answers as [`Suppressions::covers`], from a table built once: file-wide
    /// codes in one set, line directives merged per line and searched by position. A file
    /// with many directives and many findings costs `n log n`, not their product.
    pub(crate) fn index(&self) -> Coverage {
        let mut c = Coverage::default();
        for d in &self.file {
            match &d.codes {
                None => c.file_all = true,
                Some(codes) => c.file_codes.extend(codes.iter().cloned()),
            }
        }
        for (range, d) in &self.lines {
            // Directives point at whole lines: two ranges are equal or disjoint.
            let entry = c.lines.entry(range.start).or_insert_with(|| (range.end, false, HashSet::new()));
            match &d.codes {
                None => entry.1 = true,
                Some(codes) => entry.2.extend(codes.iter().cloned()),
            }
        }
        c
    }

    /// Malformed directives and unknown codes.
    pub(crate) fn problems(self) -> Vec<Problem> {
        self.problems
    }
}

/// What the suppression comments of a file silence, for quick lookups ([`Suppressions::index`]).
#[derive(Debug, Default)]
pub(crate) struct Coverage {
    file_all: bool,
    file_codes: HashSet<String>,
    /// Line start -> (line end, everything silenced, codes silenced).
    lines: BTreeMap<usize, (usize, bool, HashSet<String>)>,
}

impl Coverage {
    /// Whether a comment silences `f`.
    pub(crate) fn covers(&self, f: &Finding) -> bool {
        let code = f.diagnostic.code;
        let named = |codes: &HashSet<String>| codes.contains(code.id) || codes.contains(code.name);
        if self.file_all || named(&self.file_codes) {
            return true;
        }
        let at = f.diagnostic.span.start;
        self.lines.range(..=at).next_back().is_some_and(|(_, (end, all, codes))| at <= *end && (*all || named(codes)))
    }
}

/// The offset of `prompty:` in a front-matter line's YAML comment, if any.
fn yaml_comment_directive(line: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(hash) = line.get(from..).and_then(|t| t.find('#')).map(|i| from + i) {
        let starts_comment = hash == 0 || line.get(..hash).is_some_and(|b| b.ends_with([' ', '\t']));
        let after = line.get(hash + 1..).unwrap_or("");
        let lead = after.len() - after.trim_start().len();
        if starts_comment && after.trim_start().starts_with("prompty:") {
            return Some(hash + 1 + lead);
        }
        from = hash + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use prompty_syntax::{Diagnostic, Severity, codes};

    fn parse(text: &str) -> Suppressions {
        let loaded = prompty_syntax::load_str(text, &prompty_syntax::MapHost::new(), &Default::default());
        Suppressions::parse(text, loaded.document.as_ref())
    }

    fn finding(code: prompty_syntax::Code, at: usize) -> Finding {
        Finding::new(Diagnostic::new(code, Severity::Warning, at..at, "x"))
    }

    #[test]
    fn file_and_line_directives() {
        let text =
            "---\nname: x # prompty: ignore[P030, unused-input]\n---\n{# prompty: ignore[PL001] #}\n{{a}}\n{{b}}";
        let s = parse(text);
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        let s = s.index();
        assert!(s.covers(&finding(codes::LEGACY_KEY, 0)));
        let a = text.find("{{a}}").expect("a");
        let b = text.find("{{b}}").expect("b");
        let pl001 = crate::rule("PL001").expect("rule").code;
        assert!(s.covers(&finding(pl001, a)));
        assert!(!s.covers(&finding(pl001, b)));
    }

    #[test]
    fn the_coverage_table_agrees_with_the_directives() {
        let text = "---\nname: x # prompty: ignore[P030]\nmodel: y # prompty: ignore[unused-input, PL003]\n---\n\
            {# prompty: ignore[PL001] #}\n{{a}} {{b}}\n{# prompty: ignore[PL005] #}{# prompty: ignore #}\n\
            {{c}}\n{{! prompty: ignore[PL001, undeclared-variable] }}\r\n{{d}}\r\n{{e}}\n{# prompty: ignore[PL004] #}";
        let s = parse(text);
        let table = s.index();
        let codes: Vec<prompty_syntax::Code> = crate::all_codes()
            .filter(|c| ["P030", "PL001", "PL002", "PL003", "PL004", "PL005", "PL010"].contains(&c.id))
            .collect();
        let mut covered = 0;
        for at in 0..=text.len() {
            for &code in &codes {
                let f = finding(code, at);
                assert_eq!(table.covers(&f), s.covers(&f), "{} at {at}", code.id);
                covered += usize::from(table.covers(&f));
            }
        }
        assert!(covered > text.len(), "too few covered findings ({covered}) to test anything");
    }

    #[test]
    fn bad_codes_are_problems() {
        let s = parse("---\n# prompty: ignore[PL01]\n---\n{# prompty: ignor #}\nx");
        let messages: Vec<String> = s.problems().into_iter().map(|p| p.message).collect();
        assert_eq!(messages, ["`PL01` is not a known code", "unknown directive `prompty: ignor`"]);
    }
}
