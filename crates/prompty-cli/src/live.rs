//! `prompty eval --judge`: render each data row, send it to the judge, score the answer.
//!
//! Rows are read one by one and sent with at most `--concurrency` requests at once; their
//! answers arrive in any order and are written in data order (a finished row waits in a
//! bounded buffer for the rows before it; reading pauses while the buffer is full). Every
//! answered request is stored in `--cache` as it arrives (request body and response
//! only), so a run stopped by Ctrl-C or SIGTERM writes the rows done and a second run with the same
//! cache sends only the rest; an identical second run sends nothing.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use prompty_client::{Endpoint, HttpRequest};
use prompty_eval::run::DataRow;
use prompty_eval::{RowError, RowErrorKind, RowId, RowOutcome, RowResults};
use prompty_render::Renderer;
use prompty_wire::{ResponseSpec, Target};
use serde_json::Value;
use tokio::task::JoinSet;

use crate::eval::{Judged, Lines, Sink};
use crate::host::cli_host;
use crate::http::{SendError, Transport};
use crate::run::{SendArgs, TargetArgs};
use crate::{Failure, LoadArgs, load_renderer};

/// The largest cache entry read: a request and a response, each within the response limit.
const MAX_ENTRY_BYTES: u64 = 2 * crate::http::MAX_RESPONSE_BYTES as u64;

/// The environment variable holding the cache's integrity key: when set, every entry
/// written carries an HMAC under it, and an entry without a matching one is not used.
pub(crate) const CACHE_KEY_VAR: &str = "PROMPTY_CACHE_KEY";

/// The most requests at once.
pub(crate) const MAX_CONCURRENCY: usize = 1024;

/// A live judge run's settings.
pub(crate) struct Live<'a> {
    /// The evaluators' prompts, in the run's order.
    pub(crate) judged: &'a [Judged],
    pub(crate) load: &'a LoadArgs,
    pub(crate) target: &'a TargetArgs,
    pub(crate) send: &'a SendArgs,
    pub(crate) concurrency: usize,
    pub(crate) cache: Option<&'a Path>,
}

/// Requests of a run, for the summary.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Requests {
    pub(crate) sent: u64,
    pub(crate) retried: u64,
    pub(crate) cached: u64,
}

/// How a live run ended.
pub(crate) struct Outcome {
    pub(crate) interrupted: bool,
    pub(crate) requests: Requests,
}

/// One row's request for one evaluator, ready to send.
struct Prepared {
    request: Arc<HttpRequest>,
    spec: ResponseSpec,
    model: String,
    key: Option<String>,
    /// The row's inputs as the reference records them (`sample_input`).
    sample_input: String,
    /// How messages name the row (`rows.jsonl:3 (id q3)`).
    place: String,
}

/// One evaluator's prompt, target and endpoint.
struct Slot<'a> {
    file: &'a Path,
    renderer: Renderer,
    target: Target,
    endpoint: Endpoint,
    warned: HashSet<String>,
}

/// A row waiting for its evaluators' results.
struct Pending {
    id: RowId,
    outcomes: Vec<Option<RowOutcome>>,
}

impl Pending {
    fn complete(&self) -> bool {
        self.outcomes.iter().all(Option::is_some)
    }

    fn into_results(self, line: u64, keys: &[String]) -> RowResults {
        let evaluators = keys
            .iter()
            .cloned()
            .zip(self.outcomes)
            .map(|(k, o)| {
                let o =
                    o.unwrap_or_else(|| RowOutcome::new(Err(RowError::new(RowErrorKind::RequestFailed, "no answer"))));
                (k, o)
            })
            .collect();
        RowResults { id: self.id, line, evaluators }
    }
}

/// The state a run shares between reading rows and receiving answers.
struct Judge<'a> {
    slots: Vec<Slot<'a>>,
    keys: Vec<String>,
    cache: Option<PathBuf>,
    /// The integrity key of the cache entries ([`CACHE_KEY_VAR`]).
    cache_secret: Option<Vec<u8>>,
    cache_broken: bool,
    data_name: String,
    cached: u64,
}

impl Live<'_> {
    pub(crate) fn run(&self, rows: Lines, sink: &mut Sink<'_>) -> Result<Outcome, Failure> {
        if self.concurrency == 0 || self.concurrency > MAX_CONCURRENCY {
            return Err(Failure::Message(format!(
                "--concurrency {}: expected 1 to {MAX_CONCURRENCY}",
                self.concurrency
            )));
        }
        let target = self.target.target()?;
        let mut slots = Vec::with_capacity(self.judged.len());
        for j in self.judged {
            let (renderer, _) = load_renderer(&j.file, self.load)?;
            let spec =
                ResponseSpec::for_prompt(renderer.prompt(), &target).map_err(|e| crate::wire_failure(&j.file, &e))?;
            let settings = self.target.settings(spec.provider)?;
            // The trust check comes before anything is sent.
            let endpoint = prompty_client::resolve(renderer.prompt(), &settings, &cli_host())
                .map_err(|e| crate::run::client_failure(&j.file, &e))?;
            slots.push(Slot { file: &j.file, renderer, target: target.clone(), endpoint, warned: HashSet::new() });
        }
        let transport = self.send.transport()?;
        let cache_secret = match prompty_syntax::Host::env(&cli_host(), CACHE_KEY_VAR) {
            Some(v) if v.trim().is_empty() => {
                return Err(Failure::Message(format!(
                    "{CACHE_KEY_VAR} is set but empty: set it to a secret kept outside the cache folder, or unset it"
                )));
            }
            Some(v) if self.cache.is_some() => Some(v.into_bytes()),
            _ => None,
        };
        if let Some(dir) = self.cache {
            std::fs::create_dir_all(dir).map_err(|e| {
                Failure::Message(format!(
                    "--cache {}: cannot create: {}",
                    dir.display(),
                    crate::inputs::describe_io(&e)
                ))
            })?;
        }
        let mut judge = Judge {
            slots,
            keys: sink.suite.keys().into_iter().map(str::to_owned).collect(),
            cache: self.cache.map(Path::to_path_buf),
            cache_secret,
            cache_broken: false,
            data_name: rows.name().to_owned(),
            cached: 0,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Failure::Message(format!("cannot start: {e}")))?;
        let interrupted = runtime.block_on(judge.drive(rows, sink, &transport, self.concurrency))?;
        // Requests still in flight are dropped with the runtime.
        drop(runtime);
        let requests = Requests {
            sent: transport.counters.sent.load(Ordering::Relaxed),
            retried: transport.counters.retried.load(Ordering::Relaxed),
            cached: judge.cached,
        };
        Ok(Outcome { interrupted, requests })
    }
}

impl Judge<'_> {
    /// Reads, sends and writes every row; `true` when Ctrl-C or SIGTERM stopped the run.
    /// Each row needs one request per evaluator; at most `concurrency` are in flight.
    async fn drive(
        &mut self,
        mut rows: Lines,
        sink: &mut Sink<'_>,
        transport: &Transport,
        concurrency: usize,
    ) -> Result<bool, Failure> {
        let mut set: JoinSet<(u64, usize, Result<Value, SendError>)> = JoinSet::new();
        let mut queue: VecDeque<(u64, usize)> = VecDeque::new();
        let mut prepared: HashMap<(u64, usize), Prepared> = HashMap::new();
        let mut done: BTreeMap<u64, Pending> = BTreeMap::new();
        let mut next = 1u64;
        let mut ended = false;
        let window = concurrency.saturating_mul(4).max(64);
        let stop = crate::http::stop_requested();
        tokio::pin!(stop);
        loop {
            loop {
                while set.len() < concurrency
                    && let Some((line, i)) = queue.pop_front()
                {
                    let Some(p) = prepared.get(&(line, i)) else { continue };
                    let Some(slot) = self.slots.get(i) else { continue };
                    let (t, request, endpoint) = (transport.clone(), p.request.clone(), slot.endpoint.clone());
                    set.spawn(async move { (line, i, t.send_json(&request, &endpoint).await) });
                }
                if ended || !queue.is_empty() || set.len() >= concurrency || set.len() + done.len() >= window {
                    break;
                }
                let Some(row) = rows.next_line()? else {
                    ended = true;
                    break;
                };
                let line = rows.line();
                let row = sink.suite.read_row(row, rows.name(), line);
                let mut pending = Pending { id: row.id.clone(), outcomes: vec![None; self.slots.len()] };
                for i in 0..self.slots.len() {
                    match self.prepare(&row, i, sink) {
                        Err(e) => pending.outcomes[i] = Some(RowOutcome::new(Err(e))),
                        Ok(p) => match self.cached_response(i, &p, sink) {
                            Some(response) => {
                                self.cached += 1;
                                sink.cached.insert((line, i));
                                pending.outcomes[i] = Some(self.finish(sink, i, line, &p, Ok(response)));
                            }
                            None => {
                                prepared.insert((line, i), p);
                                queue.push_back((line, i));
                            }
                        },
                    }
                }
                done.insert(line, pending);
                self.write_ready(&mut done, &mut next, sink)?;
            }
            self.write_ready(&mut done, &mut next, sink)?;
            if set.is_empty() {
                if ended && queue.is_empty() {
                    return Ok(false);
                }
                continue;
            }
            tokio::select! {
                biased;
                _ = &mut stop => break,
                joined = set.join_next() => match joined {
                    Some(Ok((line, i, result))) => {
                        let Some(p) = prepared.remove(&(line, i)) else { continue };
                        if let Ok(response) = &result {
                            self.store(&p, response, sink);
                        }
                        let outcome = self.finish(sink, i, line, &p, result);
                        if let Some(slot) = done.get_mut(&line).and_then(|r| r.outcomes.get_mut(i)) {
                            *slot = Some(outcome);
                        }
                    }
                    Some(Err(e)) => return Err(Failure::Message(format!("a request task failed: {e}"))),
                    None => {}
                },
            }
        }
        // Interrupted: the rows every evaluator finished are written, in data order, gaps
        // and all; the others' answers are in the cache.
        set.abort_all();
        for (line, pending) in std::mem::take(&mut done) {
            if pending.complete() {
                sink.row(pending.into_results(line, &self.keys))?;
            }
        }
        Ok(true)
    }

    /// Writes the finished rows that continue the written ones.
    fn write_ready(
        &self,
        done: &mut BTreeMap<u64, Pending>,
        next: &mut u64,
        sink: &mut Sink<'_>,
    ) -> Result<(), Failure> {
        while done.get(next).is_some_and(Pending::complete) {
            if let Some(pending) = done.remove(next) {
                sink.row(pending.into_results(*next, &self.keys))?;
            }
            *next += 1;
        }
        Ok(())
    }

    /// Renders and compiles one row for evaluator `i`, and builds its request.
    fn prepare(&mut self, row: &DataRow, i: usize, sink: &Sink<'_>) -> Result<Prepared, RowError> {
        let map = sink.suite.members().get(i).map(|m| m.map().clone()).unwrap_or_default();
        let has_cache = self.cache.is_some();
        let Some(slot) = self.slots.get_mut(i) else {
            return Err(RowError::new(RowErrorKind::RenderFailed, format!("{}: no evaluator {i}", row.place)));
        };
        let inputs = row.inputs(slot.renderer.prompt(), &map)?;
        let place = &row.place;
        let fail = |kind, e: &dyn std::fmt::Display| RowError::new(kind, format!("{place}: {e}"));
        let messages = slot.renderer.prepare(&inputs).map_err(|e| fail(RowErrorKind::RenderFailed, &e))?;
        let compiled = prompty_wire::compile(slot.renderer.prompt(), &messages, slot.target.clone())
            .map_err(|e| fail(RowErrorKind::CompileFailed, &e))?;
        for w in &compiled.warnings {
            if slot.warned.insert(w.to_string()) {
                let file = slot.file;
                sink.output.progress.suspend(|| sink.output.reporter.wire_warnings(file, std::slice::from_ref(w)));
            }
        }
        let request = prompty_client::build(&slot.endpoint, compiled.api, &compiled.body, false)
            .map_err(|e| fail(RowErrorKind::RequestNotBuilt, &e))?;
        let key = has_cache.then(|| prompty_client::cache::key(&request.url, &request.body));
        let model = compiled.body.get("model").and_then(Value::as_str).unwrap_or_default().to_owned();
        let sample_input = prompty_eval::azure::sample_input(slot.renderer.prompt(), &inputs);
        Ok(Prepared {
            request: Arc::new(request),
            spec: compiled.response,
            model,
            key,
            sample_input,
            place: row.place.clone(),
        })
    }

    fn entry_path(&self, p: &Prepared) -> Option<PathBuf> {
        let key = p.key.as_deref()?;
        Some(self.cache.as_ref()?.join(prompty_client::cache::entry_path(key)))
    }

    /// The cached response to exactly this request, if any. An entry that is a symbolic
    /// link, sits in a linked shard folder, is no regular file or is over the size limit is
    /// a miss with a warning naming it: the request is sent.
    fn cached_response(&self, i: usize, p: &Prepared, sink: &Sink<'_>) -> Option<Value> {
        let (dir, path) = (self.cache.as_ref()?, self.entry_path(p)?);
        let read = crate::stored::refuse_linked_folders(dir, &path, "cache folder", "cache entries")
            .and_then(|()| crate::stored::read_regular(&path, MAX_ENTRY_BYTES, "cache entry", "cache entries"));
        match read {
            Ok(text) => {
                let key = p.key.as_deref().unwrap_or_default();
                match prompty_client::cache::read(&text?, key, &p.request.body, self.cache_secret.as_deref()) {
                    Ok(mut response) => {
                        // An entry written before answers were redacted holds no key when used.
                        if let Some(slot) = self.slots.get(i) {
                            slot.endpoint.redact_json(&mut response);
                        }
                        Some(response)
                    }
                    Err(refused) => {
                        sink.warn(&format!("--cache: {}: {refused}; the request is sent", path.display()));
                        None
                    }
                }
            }
            Err(e) => {
                sink.warn(&format!("--cache: {e}; the request is sent"));
                None
            }
        }
    }

    /// Stores an answered request in the cache: a new file (created exclusively, so nothing
    /// is followed) renamed into place, so that a run stopped midway never leaves half an
    /// entry. A shard folder that is a symbolic link is never written through.
    fn store(&mut self, p: &Prepared, response: &Value, sink: &Sink<'_>) {
        if self.cache_broken {
            return;
        }
        let (Some(dir), Some(path)) = (self.cache.clone(), self.entry_path(p)) else { return };
        if let Some(parent) = path.parent()
            && let Err(e) = std::fs::create_dir_all(parent)
                .map_err(|e| format!("{}: cannot write: {}", path.display(), crate::inputs::describe_io(&e)))
                .and_then(|()| crate::stored::refuse_linked_folders(&dir, &path, "cache folder", "cache entries"))
        {
            sink.warn(&format!("--cache: {e}; this answer is not cached"));
            return;
        }
        let key = p.key.as_deref().unwrap_or_default();
        let entry = prompty_client::cache::entry(key, &p.request.body, response, self.cache_secret.as_deref());
        let temp = path.with_extension(format!("{}.tmp", std::process::id()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .and_then(|mut f| std::io::Write::write_all(&mut f, entry.as_bytes()))
            .and_then(|()| std::fs::rename(&temp, &path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            self.cache_broken = true;
            sink.error(&format!(
                "--cache: cannot write {}: {}; answers from here on are not cached",
                path.display(),
                crate::inputs::describe_io(&e)
            ));
        }
    }

    /// Scores evaluator `i`'s answer (or says why there is none).
    fn finish(
        &self,
        sink: &mut Sink<'_>,
        i: usize,
        line: u64,
        p: &Prepared,
        result: Result<Value, SendError>,
    ) -> RowOutcome {
        let data = &self.data_name;
        let place = &p.place;
        let Some(member) = sink.suite.member_mut(i) else {
            return RowOutcome::new(Err(RowError::new(
                RowErrorKind::BadResponse,
                format!("{place}: no evaluator {i}"),
            )));
        };
        let response = match result {
            Ok(response) => response,
            Err(e) => {
                let error = RowError::new(RowErrorKind::RequestFailed, format!("{place}: {}", e.0));
                return member.run_mut().fail(line, error).outcome;
            }
        };
        match prompty_wire::process(&p.spec, &response) {
            Ok(processed) => {
                let reply = prompty_eval::reply::from_processed(&processed);
                let mut result = member.run_mut().score(line, &reply, &p.model, data);
                result.set_sample_input(p.sample_input.clone());
                result.outcome
            }
            Err(e) => {
                let mut message = format!("{place}: {e}");
                if let Some(slot) = self.slots.get(i) {
                    message = slot.endpoint.redact(&message);
                }
                member.run_mut().fail(line, RowError::new(RowErrorKind::BadResponse, message)).outcome
            }
        }
    }
}
