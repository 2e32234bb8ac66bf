//! `--review`, `--accept` and `--reject`: the pending `.snap.new` files left by `--check`,
//! and (for `--review` and `--accept`) the stale snapshots of removed prompts and cases,
//! whose removal is the change to accept.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::diff;
use super::store::{self, Found, PENDING};

/// What to do with every pending snapshot.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Ask for each one on standard input.
    Ask,
    Accept,
    Reject,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Answer {
    Accept,
    Reject,
    Skip,
    Quit,
}

/// The snapshot a pending file would replace.
fn target(pending: &Path) -> PathBuf {
    let s = pending.as_os_str().to_string_lossy();
    PathBuf::from(s.strip_suffix(PENDING).unwrap_or(&s).to_owned())
}

/// Reads one answer; `None` at the end of the input.
fn ask(input: &mut impl BufRead, err: &mut impl Write) -> Option<Answer> {
    loop {
        let _ = write!(err, "accept (a), reject (r), skip (s), quit (q)? ");
        let _ = err.flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                let _ = writeln!(err);
                return None;
            }
            Ok(_) => {}
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "a" | "accept" | "y" | "yes" => return Some(Answer::Accept),
            "r" | "reject" | "n" | "no" => return Some(Answer::Reject),
            "s" | "skip" | "" => return Some(Answer::Skip),
            "q" | "quit" => return Some(Answer::Quit),
            other => {
                let _ = writeln!(err, "`{}`: answer a, r, s or q", diff::visible(other));
            }
        }
    }
}

/// Accepts (renames the pending file over the snapshot) or rejects (removes it) one file.
fn apply(found: &Found, answer: Answer) -> Result<(), String> {
    let to = target(&found.path);
    match answer {
        Answer::Accept => {
            store::refuse_symlink(&to, "snapshot file")?;
            std::fs::rename(&found.path, &to)
                .map_err(|e| format!("{}: cannot accept: {}", found.path.display(), crate::inputs::describe_io(&e)))
        }
        Answer::Reject => store::remove(&found.path),
        Answer::Skip | Answer::Quit => Ok(()),
    }
}

/// Runs the review of every pending snapshot under `dir` (those of prompts in `scope`), then
/// of each `stale` snapshot (accepting removes it).
pub(crate) fn run(
    dir: &Path,
    in_scope: &dyn Fn(&Found) -> bool,
    stale: &[Found],
    action: Action,
    color: bool,
) -> ExitCode {
    let mut stderr = std::io::stderr().lock();
    if let Err(e) = store::refuse_symlink(dir, "snapshot folder") {
        let _ = writeln!(stderr, "error: {e}");
        return ExitCode::from(2);
    }
    let pending: Vec<Found> = match store::walk(dir) {
        Ok(found) => found.into_iter().filter(|f| f.pending && in_scope(f)).collect(),
        Err(e) => {
            let _ = writeln!(stderr, "error: {e}");
            return ExitCode::from(2);
        }
    };
    if pending.is_empty() && stale.is_empty() {
        let _ = writeln!(stderr, "no pending or stale snapshots under {}", dir.display());
        return ExitCode::SUCCESS;
    }
    let total = pending.len() + stale.len();
    let mut stdout = std::io::stdout().lock();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let (mut accepted, mut rejected, mut skipped, mut failed) = (0usize, 0usize, 0usize, 0usize);
    let mut done = false;
    for (i, found) in pending.iter().enumerate() {
        if done {
            skipped += 1;
            continue;
        }
        let to = target(&found.path);
        let new = match store::read_snapshot(&found.path) {
            Ok(Some(f)) if f.header.is_some() => f.text,
            Ok(_) => {
                // A pending file cut short (a run that stopped): it can only be rejected.
                let _ = writeln!(
                    stderr,
                    "{}: not a complete pending snapshot (no header); reject it or run `prompty snapshot --check` again",
                    found.path.display()
                );
                String::new()
            }
            Err(e) => {
                let _ = writeln!(stderr, "error: {e}");
                failed += 1;
                continue;
            }
        };
        let complete = found.header.source.is_some() || found.header.input_file.is_some();
        let old = match store::read_snapshot(&to) {
            Ok(old) => old,
            Err(e) => {
                let _ = writeln!(stderr, "error: {e}");
                failed += 1;
                continue;
            }
        };
        let prompt = found.header.input_file.as_deref().unwrap_or("(unknown prompt)");
        let case = found.header.description.as_deref().unwrap_or("(unknown case)");
        let status = if old.is_some() { "changed" } else { "new" };
        let title = format!(
            "[{}/{}] {status}: {} case `{}` ({})",
            i + 1,
            total,
            diff::visible(prompt),
            diff::visible(case),
            to.display()
        );
        let shown = diff::unified(old.as_ref().map_or("", |o| o.text.as_str()), &new, &to.display().to_string());
        if action == Action::Ask {
            let rule = "─".repeat(title.chars().count().min(100));
            let body = if color { diff::colored(&shown) } else { shown };
            let head = if color { format!("\x1b[1m{title}\x1b[0m") } else { title.clone() };
            let _ = write!(stdout, "{rule}\n{head}\n{rule}\n{body}");
            let _ = stdout.flush();
        }
        let answer = match action {
            Action::Accept if complete => Answer::Accept,
            Action::Accept => Answer::Skip,
            Action::Reject => Answer::Reject,
            Action::Ask => match ask(&mut input, &mut stderr) {
                Some(Answer::Accept) if !complete => {
                    let _ = writeln!(stderr, "cannot accept an incomplete pending snapshot; skipped");
                    Answer::Skip
                }
                Some(a) => a,
                None => Answer::Quit,
            },
        };
        match apply(found, answer) {
            Ok(()) if action != Action::Ask && answer != Answer::Skip => {
                let verb = if answer == Answer::Accept { "accepted" } else { "rejected" };
                let _ = writeln!(stderr, "{verb} {}", to.display());
                if answer == Answer::Accept { accepted += 1 } else { rejected += 1 }
            }
            Ok(()) => match answer {
                Answer::Accept => accepted += 1,
                Answer::Reject => rejected += 1,
                Answer::Skip => skipped += 1,
                Answer::Quit => {
                    skipped += 1;
                    done = true;
                }
            },
            Err(e) => {
                let _ = writeln!(stderr, "error: {e}");
                failed += 1;
            }
        }
    }
    for (i, found) in stale.iter().enumerate() {
        if done {
            skipped += 1;
            continue;
        }
        let old = match store::read_snapshot(&found.path) {
            Ok(old) => old.map(|o| o.text).unwrap_or_default(),
            Err(e) => {
                let _ = writeln!(stderr, "error: {e}");
                failed += 1;
                continue;
            }
        };
        let prompt = found.header.input_file.as_deref().unwrap_or("(unknown prompt)");
        let case = found.header.description.as_deref().unwrap_or("(unknown case)");
        let title = format!(
            "[{}/{total}] removed: {} case `{}` no longer renders to {} (accept removes it)",
            pending.len() + i + 1,
            diff::visible(prompt),
            diff::visible(case),
            found.path.display()
        );
        if action == Action::Ask {
            let shown = diff::unified(&old, "", &found.path.display().to_string());
            let rule = "─".repeat(title.chars().count().min(100));
            let body = if color { diff::colored(&shown) } else { shown };
            let head = if color { format!("\x1b[1m{title}\x1b[0m") } else { title.clone() };
            let _ = write!(stdout, "{rule}\n{head}\n{rule}\n{body}");
            let _ = stdout.flush();
        }
        let answer = match action {
            Action::Accept => Answer::Accept,
            Action::Reject => Answer::Skip,
            Action::Ask => ask(&mut input, &mut stderr).unwrap_or(Answer::Quit),
        };
        match answer {
            Answer::Accept => match store::remove(&found.path) {
                Ok(()) => {
                    if action != Action::Ask {
                        let _ = writeln!(stderr, "removed stale snapshot {}", found.path.display());
                    }
                    accepted += 1;
                }
                Err(e) => {
                    let _ = writeln!(stderr, "error: {e}");
                    failed += 1;
                }
            },
            // Rejecting a removal keeps the snapshot.
            Answer::Reject => rejected += 1,
            Answer::Skip => skipped += 1,
            Answer::Quit => {
                skipped += 1;
                done = true;
            }
        }
    }
    let _ = writeln!(stderr, "{accepted} accepted, {rejected} rejected, {skipped} skipped");
    if failed > 0 { ExitCode::from(2) } else { ExitCode::SUCCESS }
}
