//! An evaluation run over data rows: every row's [`ResultLine`], in data order, and the
//! [`RunSummary`] they add up to.
//!
//! [`Run`] is the one place rows become results, whatever answered them: recorded answers
//! ([`Run::recorded`], read side by side with the data), a provider's batch results, or a
//! live judge (the `prompty` command line tool feeds those through [`Run::score`] and
//! [`Run::fail`], and [`Run::record`]s each result when it writes it, in data order). The
//! caller reads files and sends requests; this module only decides.
//!
//! [`Suite`] is a run over several evaluators, as azure-ai-evaluation's `evaluate()` runs
//! a dictionary of evaluators over one data file: each row is read once, given its id
//! ([`RowIds`]), and each evaluator's inputs are built through its column mapping
//! ([`InputMap`]); one [`RowResults`] line per row holds every evaluator's outcome under
//! its key, and each evaluator keeps its own [`Run`] (its summary). Keys are the
//! evaluators' names; when two evaluators share a name (two `coherence.prompty` files in
//! different folders), the first keeps it and the next ones are `NAME_2`, `NAME_3`, ...
//! (skipping keys already taken).

use std::collections::HashSet;
use std::io::BufRead;

use prompty_syntax::Prompt;
use serde_json::{Map, Value};

use crate::error::Error;
use crate::evaluation::JudgeReply;
use crate::evaluator::Evaluator;
use crate::record::{ResultLine, RowError, RowErrorKind, RowId, RowOutcome, RowResults};
use crate::rows::{IdColumn, InputMap, JsonLines, Line, MapSpec, RowIds, mapped_inputs, parse_row, place};
use crate::summary::RunSummary;

/// The results of a run so far.
#[derive(Debug, Clone)]
pub struct Run {
    evaluator: Evaluator,
    summary: RunSummary,
    ids: IdColumn,
}

impl Run {
    /// A run scoring with `evaluator`.
    pub fn new(evaluator: Evaluator) -> Self {
        let summary = RunSummary::new(evaluator.config().range.clone());
        Run { evaluator, summary, ids: IdColumn::Conventional }
    }

    /// Where [`Run::recorded`] takes row ids from (default: the `id` field, else the line
    /// number).
    #[must_use]
    pub fn with_ids(mut self, column: IdColumn) -> Self {
        self.ids = column;
        self
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
    pub fn call_arguments_row(
        &mut self,
        line: u64,
        kwargs: &Map<String, Value>,
        answer: &Line,
        source: &str,
    ) -> Option<ResultLine> {
        if !self.evaluator.takes_call_arguments(kwargs) {
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
            .evaluate_call_arguments(kwargs, &replies)
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
        let ids = RowIds::new(self.ids.clone());
        Recorded { run: self, prompt, data, answers, ids, answers_ended: false, finished: false, extra: None }
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
    ids: RowIds,
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
        let row = DataRow::read(row, &mut self.ids, self.data.name(), line);
        let answer = if self.answers_ended { None } else { self.answers.next_line()? };
        self.answers_ended = answer.is_none();
        let source = self.answers.name().to_owned();
        let outcome = answer_outcome(
            self.run,
            Some(self.prompt),
            &row,
            row.inputs(self.prompt, &InputMap::new()),
            answer,
            &source,
            self.answers.line(),
        );
        let result = ResultLine { id: Some(row.id), outcome, line };
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

/// The outcome of a row whose inputs were `checked`, from its recorded `answer` (`None`: the
/// answers file, `answers_read` lines long, ended before the data).
#[allow(clippy::too_many_arguments)]
fn answer_outcome(
    run: &mut Run,
    prompt: Option<&Prompt>,
    row: &DataRow,
    inputs: Result<Map<String, Value>, RowError>,
    answer: Option<Line>,
    source: &str,
    answers_read: u64,
) -> RowOutcome {
    let line = row.line;
    let Some(answer) = answer else {
        let message = format!(
            "{}: no answer for this row: {source} has {answers_read} line(s); every data row needs one answer line",
            row.place
        );
        return RowOutcome::new(Err(RowError::new(RowErrorKind::MissingAnswer, message)));
    };
    // A row holding the reference evaluator's call arguments (a conversation, agent message
    // lists) is scored from them, one answer per judge call.
    if let Ok(fields) = &row.fields
        && let Some(result) = run.call_arguments_row(line, fields, &answer, source)
    {
        return result.outcome;
    }
    let inputs = match inputs {
        Ok(inputs) => inputs,
        Err(e) => return RowOutcome::new(Err(e)),
    };
    let result = match answer {
        Line::NotUtf8 => {
            run.fail(line, RowError::new(RowErrorKind::AnswerNotUtf8, format!("{source}:{line}: not UTF-8 text")))
        }
        Line::Text(answer) => match crate::reply::from_text(&answer) {
            Ok(reply) => {
                let mut result = run.score(line, &reply, "", source);
                if let Some(prompt) = prompt {
                    result.set_sample_input(crate::azure::sample_input(prompt, &inputs));
                }
                result
            }
            Err(e) => run.fail(line, RowError::new(RowErrorKind::AnswerNotUnderstood, format!("{source}:{line}: {e}"))),
        },
    };
    result.outcome
}

/// A data row read once for every evaluator: its line, its id, and its fields (or the row
/// error every evaluator reports for it: not JSON, not an object, a bad or duplicate id).
#[derive(Debug, Clone, PartialEq)]
pub struct DataRow {
    /// The 1-based line number.
    pub line: u64,
    /// The row's id.
    pub id: RowId,
    /// How messages name the row: `rows.jsonl:3`, or `rows.jsonl:3 (id q3)`.
    pub place: String,
    /// The row's fields, or why it has none usable.
    pub fields: Result<Map<String, Value>, RowError>,
}

impl DataRow {
    /// Reads data line `line` of `data_name` and gives it its id from `ids`.
    pub fn read(row: Line, ids: &mut RowIds, data_name: &str, line: u64) -> DataRow {
        let parsed = parse_row(row, data_name, line);
        let (id, id_error) = ids.id(parsed.as_ref().ok(), data_name, line);
        let place = place(data_name, line, &id);
        let fields = match (parsed, id_error) {
            (Err(e), _) | (Ok(_), Some(e)) => Err(e),
            (Ok(m), None) => Ok(m),
        };
        DataRow { line, id, place, fields }
    }

    /// The inputs of `prompt` from this row through `map`, checked against the prompt's
    /// declared inputs.
    pub fn inputs(&self, prompt: &Prompt, map: &InputMap) -> Result<Map<String, Value>, RowError> {
        let fields = self.fields.as_ref().map_err(Clone::clone)?;
        mapped_inputs(prompt, fields, map, &self.place)
    }
}

/// One evaluator of a [`Suite`]: its key, its run and its column mapping.
#[derive(Debug, Clone)]
pub struct Member {
    key: String,
    run: Run,
    map: InputMap,
}

impl Member {
    /// The key its results are written under.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Its run (evaluator and summary).
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// Its run, to score and fail rows ([`Run::score`], [`Run::fail`]).
    pub fn run_mut(&mut self) -> &mut Run {
        &mut self.run
    }

    /// Its column mapping.
    pub fn map(&self) -> &InputMap {
        &self.map
    }
}

/// A run over several evaluators: see the [module](self) documentation.
#[derive(Debug, Clone)]
pub struct Suite {
    members: Vec<Member>,
    ids: RowIds,
}

/// Result keys for evaluators of these names: each name, and `NAME_2`, `NAME_3`, ... for the
/// second and later evaluator of one name (skipping keys another evaluator already has).
pub fn evaluator_keys<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let own: HashSet<&str> = names.iter().map(AsRef::as_ref).collect();
    let mut taken: HashSet<String> = HashSet::new();
    let mut keys = Vec::with_capacity(names.len());
    for name in names {
        let name = name.as_ref();
        let mut key = name.to_owned();
        let mut n = 2u64;
        while taken.contains(&key) {
            key = format!("{name}_{n}");
            n += 1;
            if own.contains(key.as_str()) {
                // Another evaluator's own name: it keeps it.
                key = name.to_owned();
            }
        }
        taken.insert(key.clone());
        keys.push(key);
    }
    keys
}

impl Suite {
    /// A run over `evaluators`, keyed by their names ([`evaluator_keys`]); ids from the
    /// `id` field, else the line number.
    pub fn new(evaluators: Vec<Evaluator>) -> Self {
        let names: Vec<&str> = evaluators.iter().map(Evaluator::name).collect();
        let keys = evaluator_keys(&names);
        let members = evaluators
            .into_iter()
            .zip(keys)
            .map(|(evaluator, key)| Member { key, run: Run::new(evaluator), map: InputMap::new() })
            .collect();
        Suite { members, ids: RowIds::default() }
    }

    /// Where row ids come from.
    #[must_use]
    pub fn with_ids(mut self, column: IdColumn) -> Self {
        self.ids = RowIds::new(column);
        self
    }

    /// The evaluators, in order.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// Evaluator `i`.
    pub fn member_mut(&mut self, i: usize) -> Option<&mut Member> {
        self.members.get_mut(i)
    }

    /// The evaluators' keys, in order.
    pub fn keys(&self) -> Vec<&str> {
        self.members.iter().map(|m| m.key.as_str()).collect()
    }

    /// Which evaluator a per-evaluator option names: `Some(index)` for a key of this run,
    /// an error listing the keys for any other.
    pub fn index_of(&self, key: &str, option: &str) -> Result<usize, Error> {
        self.members.iter().position(|m| m.key == key).ok_or_else(|| {
            Error::run_option(
                option,
                format!("the run has no evaluator `{key}` (its evaluators: {})", self.keys().join(", ")),
            )
        })
    }

    /// Sets the column mappings: `prompts[i]` is evaluator `i`'s prompt. A mapping for every
    /// evaluator applies first, an evaluator's own (`KEY:INPUT=FIELD`) replaces it for that
    /// input. A mapping to an input the prompt does not declare, or for an evaluator the run
    /// does not have, is refused.
    pub fn map(&mut self, specs: &[MapSpec], prompts: &[&Prompt]) -> Result<(), Error> {
        let mut targets: Vec<Option<usize>> = Vec::with_capacity(specs.len());
        for spec in specs {
            targets.push(match &spec.evaluator {
                Some(key) => Some(self.index_of(key, &spec.text)?),
                None => None,
            });
        }
        for (i, member) in self.members.iter_mut().enumerate() {
            let Some(prompt) = prompts.get(i) else { continue };
            let mut map = InputMap::new();
            for (spec, target) in specs.iter().zip(&targets) {
                if target.is_none() {
                    add_general(&mut map, spec, prompt, &member.key, prompts.len())?;
                }
            }
            for (spec, target) in specs.iter().zip(&targets) {
                if *target == Some(i) {
                    map.add(spec, prompt, &member.key)?;
                }
            }
            member.map = map;
        }
        Ok(())
    }

    /// Reads data line `line` once for every evaluator.
    pub fn read_row(&mut self, row: Line, data_name: &str, line: u64) -> DataRow {
        DataRow::read(row, &mut self.ids, data_name, line)
    }

    /// Counts a row's results in each evaluator's summary: call it once per row, when its
    /// line is written.
    pub fn record(&mut self, results: &RowResults) {
        for (member, (_, line)) in self.members.iter_mut().zip(results.lines()) {
            member.run.record(&line);
        }
    }

    /// The summaries, by key, once the run is over.
    pub fn into_summaries(self) -> Vec<(String, RunSummary)> {
        self.members.into_iter().map(|m| (m.key, m.run.into_summary())).collect()
    }

    /// Scores the rows of `data` with recorded answers, one answers file per evaluator in
    /// order (`answers[i]` answers evaluator `i`, line N for data row N). `prompts[i]` is
    /// evaluator `i`'s prompt. Yields one [`RowResults`] per data row, each already
    /// [recorded](Suite::record); a read error ends the iteration with that error.
    pub fn recorded<'r, D: BufRead, A: BufRead>(
        &'r mut self,
        prompts: &'r [&'r Prompt],
        data: JsonLines<D>,
        answers: Vec<JsonLines<A>>,
    ) -> SuiteRecorded<'r, D, A> {
        let ended = vec![false; answers.len()];
        SuiteRecorded { suite: self, prompts, data, answers, ended, finished: false, extra: Vec::new() }
    }
}

/// A mapping for every evaluator: an input a prompt does not declare is skipped for that
/// prompt when the run has several evaluators (it is meant for the others), refused when
/// it has one.
fn add_general(map: &mut InputMap, spec: &MapSpec, prompt: &Prompt, key: &str, evaluators: usize) -> Result<(), Error> {
    let declared = prompt.inputs.as_ref().is_none_or(|inputs| inputs.iter().any(|i| i.name == spec.input));
    if !declared && evaluators > 1 {
        return Ok(());
    }
    map.add(spec, prompt, key)
}

/// The iterator of [`Suite::recorded`].
#[derive(Debug)]
pub struct SuiteRecorded<'r, D, A> {
    suite: &'r mut Suite,
    prompts: &'r [&'r Prompt],
    data: JsonLines<D>,
    answers: Vec<JsonLines<A>>,
    ended: Vec<bool>,
    finished: bool,
    extra: Vec<(String, ExtraAnswers)>,
}

impl<D: BufRead, A: BufRead> SuiteRecorded<'_, D, A> {
    /// Answer lines beyond the data, by evaluator key, once the iteration is over.
    pub fn extra_answers(&self) -> &[(String, ExtraAnswers)] {
        &self.extra
    }

    /// The data file's name and each answers file's name, for messages.
    pub fn names(&self) -> (&str, Vec<&str>) {
        (self.data.name(), self.answers.iter().map(JsonLines::name).collect())
    }

    fn step(&mut self) -> Result<Option<RowResults>, Error> {
        let Some(row) = self.data.next_line()? else {
            self.finish()?;
            return Ok(None);
        };
        let line = self.data.line();
        let row = self.suite.read_row(row, self.data.name(), line);
        let mut evaluators = Vec::with_capacity(self.suite.members.len());
        for (i, member) in self.suite.members.iter_mut().enumerate() {
            let (Some(answers), Some(ended)) = (self.answers.get_mut(i), self.ended.get_mut(i)) else {
                let message = format!("{}: no answers file for evaluator `{}`", row.place, member.key);
                evaluators.push((
                    member.key.clone(),
                    RowOutcome::new(Err(RowError::new(RowErrorKind::MissingAnswer, message))),
                ));
                continue;
            };
            let answer = if *ended { None } else { answers.next_line()? };
            *ended = answer.is_none();
            let prompt = self.prompts.get(i).copied();
            let inputs = match prompt {
                Some(prompt) => row.inputs(prompt, &member.map),
                None => row.fields.clone(),
            };
            let source = answers.name().to_owned();
            let outcome = answer_outcome(&mut member.run, prompt, &row, inputs, answer, &source, answers.line());
            evaluators.push((member.key.clone(), outcome));
        }
        let results = RowResults { id: row.id, line, evaluators };
        self.suite.record(&results);
        Ok(Some(results))
    }

    fn finish(&mut self) -> Result<(), Error> {
        self.finished = true;
        for (i, answers) in self.answers.iter_mut().enumerate() {
            if self.ended.get(i).copied().unwrap_or(true) {
                continue;
            }
            let first = answers.line() + 1;
            let mut count = 0u64;
            while answers.next_line()?.is_some() {
                count += 1;
            }
            if count > 0
                && let Some(member) = self.suite.members.get_mut(i)
            {
                self.extra.push((member.key.clone(), ExtraAnswers { first, count }));
                member.run.summary.problem("extra answers", count);
            }
        }
        Ok(())
    }
}

impl<D: BufRead, A: BufRead> Iterator for SuiteRecorded<'_, D, A> {
    type Item = Result<RowResults, Error>;

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
