//! The human summary of an `eval` run: a two-column table on standard error, with a score
//! histogram drawn as the terminal allows ([`Plot`]).

use std::fmt::Write;

use prompty_eval::summary::format_number;
use prompty_eval::{Pricing, RunSummary, Verdict};

use crate::live::Requests;

/// The widest histogram bar of a plain summary.
const BAR: usize = 30;
/// The widest histogram bar on a terminal, however wide it is.
const MAX_BAR: usize = 100;

/// How the summary's histogram is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plot {
    /// `#` bars of at most 30 characters: for files, pipes and `NO_COLOR`.
    Plain,
    /// `#` bars as wide as a terminal of this many columns allows.
    Ascii(usize),
    /// Unicode block bars (eighths of a cell) as wide as a terminal of this many columns allows.
    Unicode(usize),
}

impl Plot {
    /// The plot for standard error: plain unless it is a terminal and `NO_COLOR` is unset
    /// (or `TERM=dumb`); Unicode blocks when the locale is UTF-8 ([`Plot::detect`]).
    pub(crate) fn for_stderr() -> Plot {
        use std::io::IsTerminal;
        let env = |k: &str| std::env::var(k).ok();
        let width = terminal_size::terminal_size_of(std::io::stderr()).map(|(w, _)| usize::from(w.0));
        Plot::detect(std::io::stderr().is_terminal(), width, env)
    }

    /// The plot for a terminal (`terminal`) `width` columns wide, from the environment
    /// `env`: `NO_COLOR` (set and not empty) or `TERM=dumb` make it plain; the first of
    /// `LC_ALL`, `LC_CTYPE`, `LANG` that is set decides whether it is UTF-8.
    pub(crate) fn detect(terminal: bool, width: Option<usize>, env: impl Fn(&str) -> Option<String>) -> Plot {
        if !terminal || env("NO_COLOR").is_some_and(|v| !v.is_empty()) || env("TERM").as_deref() == Some("dumb") {
            return Plot::Plain;
        }
        let width = width.filter(|w| *w > 0).unwrap_or(80);
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].iter().find_map(|k| env(k).filter(|v| !v.is_empty()));
        let utf8 = locale.is_some_and(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("utf-8") || l.contains("utf8")
        });
        if utf8 { Plot::Unicode(width) } else { Plot::Ascii(width) }
    }

    /// The bar of `n` rows out of `most`, when a bar may take `room` columns.
    fn bar(self, n: u64, most: u64, room: usize) -> String {
        if n == 0 {
            return String::new();
        }
        let share = n as f64 / most.max(1) as f64;
        match self {
            Plot::Plain | Plot::Ascii(_) => {
                let width = if self == Plot::Plain { BAR } else { room };
                "#".repeat(((share * width as f64).round() as usize).max(1))
            }
            Plot::Unicode(_) => {
                const PARTS: [char; 8] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];
                let eighths = ((share * room as f64 * 8.0).round() as usize).max(1);
                let mut bar = "█".repeat(eighths / 8);
                if let Some(part) = (eighths % 8).checked_sub(1) {
                    bar.push(PARTS[part]);
                }
                bar
            }
        }
    }
}

/// The table: rows, scored, mean, standard deviation, pass rate, unknown, errors, the score
/// histogram, tokens (and cost) per model, requests, time.
pub(crate) fn table(
    s: &RunSummary,
    pricing: &Pricing,
    requests: Option<&Requests>,
    seconds: f64,
    plot: Plot,
) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    let opt = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), format_number);
    rows.push(("rows".into(), s.rows().to_string()));
    rows.push(("scored".into(), s.scored().to_string()));
    if s.left_out() > 0 {
        rows.push(("left out".into(), format!("{} score(s) without a verdict, not in the statistics", s.left_out())));
    }
    rows.push(("mean".into(), opt(s.mean())));
    rows.push(("std dev".into(), opt(s.std_dev())));
    let pass_rate = match s.pass_rate() {
        Some(r) => {
            format!("{}% ({} pass, {} fail)", format_number(r * 100.0), s.count(Verdict::Pass), s.count(Verdict::Fail))
        }
        None => "-".to_owned(),
    };
    rows.push(("pass rate".into(), pass_rate));
    rows.push(("unknown".into(), s.count(Verdict::Unknown).to_string()));
    if s.count(Verdict::NotApplicable) > 0 {
        rows.push(("not applicable".into(), s.count(Verdict::NotApplicable).to_string()));
    }
    let errors = if s.errors().is_empty() {
        "0".to_owned()
    } else {
        let kinds: Vec<String> = s.errors().iter().map(|(k, n)| format!("{n} {k}")).collect();
        format!("{} ({})", s.error_count(), kinds.join(", "))
    };
    rows.push(("errors".into(), errors));
    for (model, t) in s.model_tokens() {
        let mut v = format!("{} in, {} out ({} responses)", t.input, t.output, t.responses);
        if let Some(cost) = pricing.cost(model, t) {
            let _ = write!(v, ", cost {cost:.4}");
        }
        rows.push((format!("tokens {model}"), v));
    }
    if let Some(r) = requests {
        rows.push(("requests".into(), format!("{} sent, {} retried, {} from cache", r.sent, r.retried, r.cached)));
    }
    rows.push(("time".into(), format!("{seconds:.2} s")));
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in &rows {
        let _ = writeln!(out, "{k:<width$}  {v}");
    }
    let histogram = s.histogram();
    if !histogram.is_empty() {
        let _ = writeln!(out, "histogram");
        let label = histogram.iter().map(|(b, _)| b.len()).max().unwrap_or(0);
        let most = histogram.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
        let digits = most.to_string().len();
        let room = match plot {
            Plot::Plain => BAR,
            Plot::Ascii(w) | Plot::Unicode(w) => w.saturating_sub(label + digits + 7).clamp(10, MAX_BAR),
        };
        for (bin, n) in &histogram {
            let bar = plot.bar(*n, most, room);
            let line = format!("  {bin:>label$}  {n:>digits$}  {bar}");
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use prompty_eval::{Evaluation, ScoreRange, Usage};

    #[test]
    fn the_table_users_see() {
        let mut s = RunSummary::new(Some(ScoreRange::new(1, 5)));
        let scores = [5.0, 4.0, 4.0, 3.0, 1.0, 5.0, 2.0, 4.0];
        for (i, score) in scores.iter().enumerate() {
            let verdict = if *score >= 3.0 { Verdict::Pass } else { Verdict::Fail };
            s.add(&Evaluation { score: Some(*score), verdict, ..Evaluation::default() });
            let usage = Usage { prompt_tokens: 120 + i as u64, completion_tokens: 30, total_tokens: 150 + i as u64 };
            s.tokens("gpt-4o-mini", Some(usage));
        }
        s.add(&Evaluation { score: Some(9.0), verdict: Verdict::Unknown, ..Evaluation::default() });
        s.add(&Evaluation { score: None, verdict: Verdict::Unknown, ..Evaluation::default() });
        s.error("request failed");
        let mut pricing = Pricing::new();
        let _ = pricing.add("gpt-4o-mini=0.15,0.6");
        let requests = Requests { sent: 12, retried: 3, cached: 2 };
        insta::assert_snapshot!(table(&s, &pricing, Some(&requests), 1.25, Plot::Plain));
    }

    fn histogram_lines(plot: Plot) -> String {
        let mut s = RunSummary::new(Some(ScoreRange::new(1, 5)));
        for (score, n) in [(1.0, 3), (2.0, 0), (3.0, 7), (4.0, 40), (5.0, 1)] {
            for _ in 0..n {
                let verdict = if score >= 3.0 { Verdict::Pass } else { Verdict::Fail };
                s.add(&Evaluation { score: Some(score), verdict, ..Evaluation::default() });
            }
        }
        let t = table(&s, &Pricing::new(), None, 0.5, plot);
        t.split_once("histogram\n").map(|(_, h)| h.to_owned()).unwrap_or_default()
    }

    #[test]
    fn the_histogram_on_a_wide_unicode_terminal() {
        insta::assert_snapshot!(histogram_lines(Plot::Unicode(60)));
    }

    #[test]
    fn the_histogram_on_an_ascii_terminal() {
        insta::assert_snapshot!(histogram_lines(Plot::Ascii(60)));
    }

    #[test]
    fn histogram_bars_fill_the_terminal_width() {
        for width in [40, 80, 120] {
            let h = histogram_lines(Plot::Unicode(width));
            let widest = h.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            assert!(widest < width && widest >= (width - 2).min(MAX_BAR + 9), "{width}: {widest}\n{h}");
        }
        // Plain output keeps its 30-column bars whatever the width.
        assert!(histogram_lines(Plot::Plain).lines().any(|l| l.ends_with(&"#".repeat(30))));
    }

    #[test]
    fn which_plot_the_environment_gives() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
        };
        assert_eq!(Plot::detect(false, Some(100), env(&[("LANG", "en_US.UTF-8")])), Plot::Plain);
        assert_eq!(Plot::detect(true, Some(100), env(&[("LANG", "en_US.UTF-8"), ("NO_COLOR", "1")])), Plot::Plain);
        assert_eq!(Plot::detect(true, Some(100), env(&[("LANG", "en_US.UTF-8"), ("TERM", "dumb")])), Plot::Plain);
        assert_eq!(
            Plot::detect(true, Some(100), env(&[("LANG", "en_US.UTF-8"), ("NO_COLOR", "")])),
            Plot::Unicode(100)
        );
        assert_eq!(Plot::detect(true, None, env(&[("LC_ALL", "C"), ("LANG", "en_US.UTF-8")])), Plot::Ascii(80));
        assert_eq!(Plot::detect(true, Some(90), env(&[("LC_CTYPE", "de_DE.utf8")])), Plot::Unicode(90));
        assert_eq!(Plot::detect(true, Some(90), env(&[])), Plot::Ascii(90));
    }
}
