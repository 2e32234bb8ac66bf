//! An evaluation run over data rows: every row's [`ResultLine`], in data order, and the
//! [`RunSummary`] they add up to.
//!
//! [`Run`] is the one place rows become results, whatever answered them: recorded answers
//! ([`Run::recorded`], read side by side with the data), a provider's batch results, or a
//! live judge (the `prompty` command line tool feeds those through [`Run::score`] and
//! [`Run::fail`], and [`Run::record`]s each result when it writes it, in data order). The
//! caller reads files and sends requests; this module only decides.

use std::io::BufRead;

use prompty_syntax::Prompt;

use crate::error::Error;
use crate::evaluation::JudgeReply;
use crate::evaluator::Evaluator;
use crate::record::{ResultLine, RowError, RowErrorKind};
use crate::rows::{JsonLines, Line, row_inputs};
use crate::summary::RunSummary;

/// The results of a run so far.
#[derive(Debug, Clone)]
pub struct Run {
    evaluator: Evaluator,
    summary: RunSummary,
}

impl Run {
    /// A run scoring with `evaluator`.
    pub fn new(evaluator: Evaluator) -> Self {
        let summary = RunSummary::new(evaluator.config().range.clone());
        Run { evaluator, summary }
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }

    /// What the rows so far add up to.
    pub fn summary(&self) -> &RunSummary {
        &self.summary
    }

    /// The summary, to count what is no row (answer lines beyond the data, a duplicate
    /// batch result).
    pub fn summary_mut(&mut self) -> &mut RunSummary {
        &mut self.summary
    }

    /// The summary, once the run is over.
    pub fn into_summary(self) -> RunSummary {
        self.summary
    }

    /// Scores the judge's `reply` for data line `line`: its tokens are counted at once
    /// (under `requested_model` when the reply names no model: they were spent), and the
    /// answer evaluated. The result counts in the summary once [recorded](Run::record).
    /// `source` names where the answer came from in messages (`answers.jsonl`).
    pub fn score(&mut self, line: u64, reply: &JudgeReply, requested_model: &str, source: &str) -> ResultLine {
        let model = reply.model.as_deref().filter(|m| !m.is_empty()).unwrap_or(requested_model);
        if reply.usage.is_some() || !model.is_empty() {
            self.summary.tokens(model, reply.usage);
        }
        let outcome = self
            .evaluator
            .evaluate(reply)
            .map_err(|e| RowError::new(RowErrorKind::EvaluationFailed, format!("{source}:{line}: {e}")));
        ResultLine::new(line, outcome)
    }

    /// The result of a data row that holds the reference evaluator's call arguments
    /// ([`Evaluator::takes_call_arguments`]: a conversation, agent message lists), scored
    /// with its answer line: a JSON array with one answer per judge call the reference
    /// makes for the row (a single answer when it makes one). `None` for any other row.
    pub fn call_arguments_row(&mut self, line: u64, row: &Line, answer: &Line, source: &str) -> Option<ResultLine> {
        let Line::Text(text) = row else { return None };
        let Ok(serde_json::Value::Object(kwargs)) = serde_json::from_str::<serde_json::Value>(text) else {
            return None;
        };
        if !self.evaluator.takes_call_arguments(&kwargs) {
            return None;
        }
        let fail = |kind, message: String| ResultLine::new(line, Err(RowError::new(kind, message)));
        let Line::Text(answer) = answer else {
            return Some(fail(RowErrorKind::AnswerNotUtf8, format!("{source}:{line}: not UTF-8 text")));
        };
        let replies = match serde_json::from_str::<serde_json::Value>(answer) {
            Ok(serde_json::Value::Array(items)) => items.into_iter().map(crate::reply::from_value).collect(),
            _ => crate::reply::from_text(answer).map(|r| vec![r]),
        };
        let replies = match replies {
            Ok(r) => r,
            Err(e) => return Some(fail(RowErrorKind::AnswerNotUnderstood, format!("{source}:{line}: {e}"))),
        };
        for r in &replies {
            let model = r.model.as_deref().unwrap_or_default();
            if r.usage.is_some() || !model.is_empty() {
                self.summary.tokens(model, r.usage);
            }
        }
        let outcome = self
            .evaluator
            .evaluate_call_arguments(&kwargs, &replies)
            .map_err(|e| RowError::new(RowErrorKind::EvaluationFailed, format!("{source}:{line}: {e}")));
        Some(ResultLine::new(line, outcome))
    }

    /// Data line `line` has no evaluation: `error` says why. Counts once recorded.
    pub fn fail(&self, line: u64, error: RowError) -> ResultLine {
        ResultLine::new(line, Err(error))
    }

    /// Counts a result in the summary: call it once per result, when the result is kept
    /// (written), so that the summary describes exactly what was written.
    pub fn record(&mut self, result: &ResultLine) {
        self.summary.record(result);
    }

    /// Scores the rows of `data` with the answers of `answers`, line by line: the answer on
    /// line N is the judge's answer for data row N. Yields one result per data row, in
    /// order, each already [recorded](Run::record); a read error ends the iteration with
    /// that error. Rows without an answer get a
    /// `missing answer` record; answer lines beyond the data are counted
    /// ([`Recorded::extra_answers`]) once the iteration is over.
    pub fn recorded<'r, D: BufRead, A: BufRead>(
        &'r mut self,
        prompt: &'r Prompt,
        data: JsonLines<D>,
        answers: JsonLines<A>,
    ) -> Recorded<'r, D, A> {
        Recorded { run: self, prompt, data, answers, answers_ended: false, finished: false, extra: None }
    }
}

/// Answer lines beyond the data rows: they were not evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtraAnswers {
    /// The first one's line number.
    pub first: u64,
    /// How many.
    pub count: u64,
}

/// The iterator of [`Run::recorded`].
#[derive(Debug)]
pub struct Recorded<'r, D, A> {
    run: &'r mut Run,
    prompt: &'r Prompt,
    data: JsonLines<D>,
    answers: JsonLines<A>,
    answers_ended: bool,
    finished: bool,
    extra: Option<ExtraAnswers>,
}

impl<D: BufRead, A: BufRead> Recorded<'_, D, A> {
    fn keep(&mut self, line: ResultLine) -> Option<ResultLine> {
        self.run.record(&line);
        Some(line)
    }

    /// Answer lines beyond the data, once the iteration is over.
    pub fn extra_answers(&self) -> Option<ExtraAnswers> {
        self.extra
    }

    /// The data and answers files' names, for messages.
    pub fn names(&self) -> (&str, &str) {
        (self.data.name(), self.answers.name())
    }

    fn step(&mut self) -> Result<Option<ResultLine>, Error> {
        let Some(row) = self.data.next_line()? else {
            self.finish()?;
            return Ok(None);
        };
        let line = self.data.line();
        let answer = if self.answers_ended { None } else { self.answers.next_line()? };
        self.answers_ended = answer.is_none();
        let Some(answer) = answer else {
            let message = format!(
                "{}:{line}: no answer for this row: {} has {} line(s); every data row needs one answer line",
                self.data.name(),
                self.answers.name(),
                self.answers.line()
            );
            let result = self.run.fail(line, RowError::new(RowErrorKind::MissingAnswer, message));
            return Ok(self.keep(result));
        };
        if let Some(result) = self.run.call_arguments_row(line, &row, &answer, self.answers.name()) {
            return Ok(self.keep(result));
        }
        let inputs = match row_inputs(self.prompt, row, self.data.name(), line) {
            Ok(inputs) => inputs,
            Err(e) => {
                let result = self.run.fail(line, e);
                return Ok(self.keep(result));
            }
        };
        let source = self.answers.name().to_owned();
        let result = match answer {
            Line::NotUtf8 => self
                .run
                .fail(line, RowError::new(RowErrorKind::AnswerNotUtf8, format!("{source}:{line}: not UTF-8 text"))),
            Line::Text(answer) => match crate::reply::from_text(&answer) {
                Ok(reply) => {
                    let mut result = self.run.score(line, &reply, "", &source);
                    result.set_sample_input(crate::azure::sample_input(self.prompt, &inputs));
                    result
                }
                Err(e) => self
                    .run
                    .fail(line, RowError::new(RowErrorKind::AnswerNotUnderstood, format!("{source}:{line}: {e}"))),
            },
        };
        Ok(self.keep(result))
    }

    fn finish(&mut self) -> Result<(), Error> {
        self.finished = true;
        if self.answers_ended {
            return Ok(());
        }
        let first = self.answers.line() + 1;
        let mut count = 0u64;
        while self.answers.next_line()?.is_some() {
            count += 1;
        }
        if count > 0 {
            self.extra = Some(ExtraAnswers { first, count });
            self.run.summary.problem("extra answers", count);
        }
        Ok(())
    }
}

impl<D: BufRead, A: BufRead> Iterator for Recorded<'_, D, A> {
    type Item = Result<ResultLine, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        match self.step() {
            Ok(Some(line)) => Some(Ok(line)),
            Ok(None) => None,
            Err(e) => {
                self.finished = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EvaluatorConfig, Verdict};

    fn prompt() -> Prompt {
        let text = "---\ninputs:\n  - name: q\n    kind: string\n    required: true\n---\nuser:\n{{q}}\n";
        let loaded = prompty_syntax::load_str(text, &prompty_syntax::MapHost::new(), &Default::default());
        loaded.prompt.expect("loads")
    }

    fn judge() -> Evaluator {
        let metadata = serde_json::json!({"evaluator": {"answer": "json", "range": [1, 5], "threshold": 3}});
        let config = EvaluatorConfig::from_metadata(&metadata).ok().flatten().unwrap_or_default();
        Evaluator::new("quality", config)
    }

    #[test]
    fn recorded_answers_give_one_result_per_row_in_order() {
        let prompt = prompt();
        let mut run = Run::new(judge());
        let data = "{\"q\": \"a\"}\n{\"q\": \"b\"}\n[1]\n{\"q\": \"d\"}\n{\"q\": \"e\"}\n";
        let answers = "{\"score\": 4, \"reason\": \"good\"}\n{\"score\": 1, \"reason\": \"bad\"}\n{\"score\": 5}\n{\"custom_id\": \"c\", \"result\": {\"type\": \"expired\"}}\n";
        let results: Vec<ResultLine> = run
            .recorded(
                &prompt,
                JsonLines::new("d.jsonl", data.as_bytes()),
                JsonLines::new("a.jsonl", answers.as_bytes()),
            )
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        let seen: Vec<(u64, Option<Verdict>, Option<RowErrorKind>)> =
            results.iter().map(|r| (r.line, r.evaluation().map(|e| e.verdict), r.error().map(|e| e.kind))).collect();
        assert_eq!(
            seen,
            [
                (1, Some(Verdict::Pass), None),
                (2, Some(Verdict::Fail), None),
                (3, None, Some(RowErrorKind::RowNotObject)),
                (4, None, Some(RowErrorKind::AnswerNotUnderstood)),
                (5, None, Some(RowErrorKind::MissingAnswer)),
            ]
        );
        assert_eq!(run.summary().rows(), 5);
        assert_eq!(run.summary().error_count(), 3);
        // Read back as the same type, which writes the same line again.
        for r in &results {
            let text = serde_json::to_string(r).unwrap_or_default();
            let back = ResultLine::parse(&text, "r.jsonl", 1).map(|b| serde_json::to_string(&b).unwrap_or_default());
            assert_eq!(back.as_deref(), Ok(text.as_str()));
        }
    }

    #[test]
    fn answers_beyond_the_data_are_counted_once_the_rows_end() {
        let prompt = prompt();
        let mut run = Run::new(judge());
        let answers = "{\"score\": 4}\n{\"score\": 4}\n{\"score\": 4}\n";
        let mut recorded = run.recorded(
            &prompt,
            JsonLines::new("d.jsonl", "{\"q\": \"a\"}\n".as_bytes()),
            JsonLines::new("a.jsonl", answers.as_bytes()),
        );
        assert_eq!(recorded.by_ref().count(), 1);
        assert_eq!(recorded.extra_answers(), Some(ExtraAnswers { first: 2, count: 2 }));
        assert_eq!(run.summary().errors().get("extra answers"), Some(&2));
    }
}
