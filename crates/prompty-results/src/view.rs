//! The report's own model of a run: what the pages show, filled from the result lines
//! `prompty eval` writes ([`Run::from_lines`], the one place that knows their layout).

use std::collections::BTreeSet;

use prompty_eval::{ResultLine, Verdict};
use serde_json::{Map, Value};

/// The longest text (an input value, a reason, an answer) a report keeps, in characters;
/// a longer one is cut there and says how much was left out.
pub const MAX_TEXT_CHARS: usize = 20_000;

/// What became of a row for one evaluator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// The score meets the threshold.
    Pass,
    /// The score misses the threshold.
    Fail,
    /// No usable score.
    Unknown,
    /// The evaluation does not apply to the row.
    NotApplicable,
    /// The row has an error record.
    Error,
    /// The run has no result for the row.
    Missing,
}

impl Outcome {
    /// `pass`, `fail`, `unknown`, `not_applicable`, `error` or `missing`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Unknown => "unknown",
            Outcome::NotApplicable => "not_applicable",
            Outcome::Error => "error",
            Outcome::Missing => "missing",
        }
    }

    /// Every outcome, in the order the pages list them.
    pub const ALL: [Outcome; 6] =
        [Outcome::Pass, Outcome::Fail, Outcome::Unknown, Outcome::NotApplicable, Outcome::Error, Outcome::Missing];

    fn of(v: Verdict) -> Outcome {
        match v {
            Verdict::Pass => Outcome::Pass,
            Verdict::Fail => Outcome::Fail,
            Verdict::NotApplicable => Outcome::NotApplicable,
            _ => Outcome::Unknown,
        }
    }

    /// Whether the row was judged (pass or fail): only judged scores count in statistics.
    pub fn judged(self) -> bool {
        matches!(self, Outcome::Pass | Outcome::Fail)
    }
}

/// One evaluator's result for one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The outcome.
    pub outcome: Outcome,
    /// The score as the result gives it (a score without a verdict included).
    pub score: Option<f64>,
    /// The judge's answer, when the run kept it (or the label it gave).
    pub answer: Option<String>,
    /// The judge's reason, or the error record's message.
    pub reason: String,
}

impl Cell {
    /// A row the run has no result for.
    pub fn missing() -> Cell {
        Cell { outcome: Outcome::Missing, score: None, answer: None, reason: String::new() }
    }

    /// The score when the row was judged.
    pub fn judged_score(&self) -> Option<f64> {
        self.score.filter(|s| self.outcome.judged() && s.is_finite())
    }
}

/// One data row of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The row's id (its line number when the data gives none).
    pub id: String,
    /// The 1-based data line.
    pub line: u64,
    /// The row's input values (strings as written, other values as JSON), when known.
    pub inputs: Vec<(String, String)>,
    /// One cell per evaluator of the run, in [`Run::evaluators`] order.
    pub cells: Vec<Cell>,
}

/// An evaluator of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvaluatorInfo {
    /// Its result key (`coherence`).
    pub key: String,
    /// The pass threshold, as written, when the results give it.
    pub threshold: Option<String>,
}

/// What is known about a run as a whole.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Meta {
    /// The judge prompts.
    pub prompts: Vec<String>,
    /// The judge models that answered.
    pub models: Vec<String>,
    /// The result contract (key layout) of the run, when known.
    pub contract: Option<String>,
    /// When the run was made (RFC 3339), when known.
    pub when: Option<String>,
    /// Tokens in the requests, when the results give them.
    pub input_tokens: Option<u64>,
    /// Tokens in the answers, when the results give them.
    pub output_tokens: Option<u64>,
    /// The cost of the tokens, when priced.
    pub cost: Option<f64>,
}

/// One run: where it came from, its evaluators and its rows in data order.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Its name (the results file).
    pub name: String,
    /// What is known about it.
    pub meta: Meta,
    /// Its evaluators, in order.
    pub evaluators: Vec<EvaluatorInfo>,
    /// Its rows, in data order.
    pub rows: Vec<Row>,
}

/// `text` cut to [`MAX_TEXT_CHARS`] characters, saying how many were left out.
pub fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        None => text.to_owned(),
        Some((at, _)) => {
            let left = text[at..].chars().count();
            format!("{}… ({left} more characters not shown)", &text[..at])
        }
    }
}

/// The judge's answer text from the reference's `sample_output` (a JSON list of messages),
/// or the text itself when it is no such list.
fn answer_text(sample_output: &str) -> Option<String> {
    let content = match serde_json::from_str::<Value>(sample_output) {
        Ok(Value::Array(messages)) => {
            let texts: Vec<&str> = messages.iter().filter_map(|m| m.get("content")?.as_str()).collect();
            texts.join("\n")
        }
        _ => sample_output.to_owned(),
    };
    (!content.is_empty()).then(|| bounded(&content))
}

impl Run {
    /// The run of these result lines (in any order; they are shown in data order).
    ///
    /// This and [`Run::from_keyed`] are the only functions that read the result layout. A
    /// line holds one evaluator's result (its `name` is the evaluator's key); an error
    /// record counts for every evaluator of the run. A run whose lines name no evaluator
    /// (only error records) has one, `result`.
    pub fn from_lines(name: impl Into<String>, lines: impl IntoIterator<Item = ResultLine>) -> Run {
        Run::from_keyed(name, lines.into_iter().map(|l| (None, l)))
    }

    /// The run of result lines that each say which evaluator they are for: `(Some(key),
    /// line)` puts the line, an error record too, under evaluator `key`; `(None, line)` is
    /// read as [`Run::from_lines`] reads it. A run over several evaluators gives one line per
    /// row and evaluator, keyed.
    pub fn from_keyed(name: impl Into<String>, lines: impl IntoIterator<Item = (Option<String>, ResultLine)>) -> Run {
        let mut lines: Vec<(Option<String>, ResultLine)> =
            lines.into_iter().map(|(key, l)| (key.or_else(|| l.evaluation().map(|e| e.name.clone())), l)).collect();
        lines.sort_by_key(|(_, l)| l.line);
        let mut evaluators: Vec<EvaluatorInfo> = Vec::new();
        let mut meta = Meta::default();
        let mut models = BTreeSet::new();
        let (mut input_tokens, mut output_tokens, mut any_usage) = (0u64, 0u64, false);
        for (key, l) in &lines {
            let Some(key) = key else { continue };
            if !evaluators.iter().any(|x| &x.key == key) {
                evaluators.push(EvaluatorInfo { key: key.clone(), threshold: None });
            }
            let Some(e) = l.evaluation() else { continue };
            if let Some(x) = evaluators.iter_mut().find(|x| &x.key == key)
                && x.threshold.is_none()
            {
                x.threshold = e.threshold.as_ref().map(|t| t.0.to_string());
            }
            if let Some(m) = &e.model {
                models.insert(m.clone());
            }
            if let Some(u) = &e.usage {
                any_usage = true;
                input_tokens += u.prompt_tokens;
                output_tokens += u.completion_tokens;
            }
        }
        if evaluators.is_empty() {
            evaluators.push(EvaluatorInfo { key: "result".to_owned(), threshold: None });
        }
        meta.models = models.into_iter().collect();
        if any_usage {
            meta.input_tokens = Some(input_tokens);
            meta.output_tokens = Some(output_tokens);
        }
        let mut rows: Vec<Row> = Vec::with_capacity(lines.len());
        for (key, l) in lines {
            let cell_of = |l: &ResultLine| -> Cell {
                match (l.evaluation(), l.error()) {
                    (Some(e), _) => Cell {
                        outcome: Outcome::of(e.verdict),
                        score: e.score,
                        answer: e.sample_output.as_deref().and_then(answer_text).or_else(|| e.label.clone()),
                        reason: bounded(if e.reason.is_empty() {
                            e.problem.as_deref().unwrap_or("")
                        } else {
                            &e.reason
                        }),
                    },
                    (None, Some(err)) => Cell {
                        outcome: Outcome::Error,
                        score: None,
                        answer: None,
                        reason: bounded(&format!("{} ({}): {}", err.kind.as_str(), err.code().id, err.message)),
                    },
                    (None, None) => Cell::missing(),
                }
            };
            let cell = cell_of(&l);
            let slot = key.as_ref().and_then(|k| evaluators.iter().position(|x| &x.key == k));
            // A second line for a row already seen (another evaluator's) fills its cell.
            if let Some(row) = rows.last_mut().filter(|r| r.line == l.line) {
                match slot {
                    Some(i) => row.cells[i] = cell,
                    None => row.cells.iter_mut().for_each(|c| *c = cell.clone()),
                }
                continue;
            }
            let cells = match slot {
                Some(i) => (0..evaluators.len()).map(|j| if j == i { cell.clone() } else { Cell::missing() }).collect(),
                None => vec![cell; evaluators.len()],
            };
            rows.push(Row { id: l.line.to_string(), line: l.line, inputs: Vec::new(), cells });
        }
        Run { name: name.into(), meta, evaluators, rows }
    }

    /// Sets the input values of the row of data line `line` (a data row as read).
    pub fn set_inputs(&mut self, line: u64, inputs: &Map<String, Value>) {
        if let Ok(i) = self.rows.binary_search_by_key(&line, |r| r.line) {
            self.rows[i].inputs = inputs
                .iter()
                .map(|(k, v)| {
                    let text = match v {
                        Value::String(s) => bounded(s),
                        v => bounded(&v.to_string()),
                    };
                    (bounded(k), text)
                })
                .collect();
        }
    }

    /// The position of evaluator `key`.
    pub fn evaluator(&self, key: &str) -> Option<usize> {
        self.evaluators.iter().position(|e| e.key == key)
    }
}
