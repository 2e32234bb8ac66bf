//! Unified diffs of snapshots, plain or colored, and the color choice.

use std::io::IsTerminal;

/// When diffs are colored.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub(crate) enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set to a non-empty value.
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether output to standard output is colored.
    pub(crate) fn for_stdout(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
            }
        }
    }
}

/// A unified diff of two texts, `name` on both header lines.
/// Snapshot texts are compared without their final line break, and diffed with one.
pub(crate) fn unified(old: &str, new: &str, name: &str) -> String {
    let line = |s: &str| if s.is_empty() || s.ends_with('\n') { s.to_owned() } else { format!("{s}\n") };
    let (old, new) = (line(old), line(new));
    similar::TextDiff::from_lines(&old, &new).unified_diff().context_radius(3).header(name, name).to_string()
}

/// `diff` with removed lines red, added lines green, hunk headers cyan and file headers bold.
pub(crate) fn colored(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + diff.len() / 4);
    for line in diff.split_inclusive('\n') {
        let (body, end) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        let code = if body.starts_with("+++") || body.starts_with("---") {
            "1"
        } else if body.starts_with('+') {
            "32"
        } else if body.starts_with('-') {
            "31"
        } else if body.starts_with("@@") {
            "36"
        } else {
            ""
        };
        if code.is_empty() {
            out.push_str(line);
        } else {
            out.push_str(&format!("\x1b[{code}m{body}\x1b[0m{end}"));
        }
    }
    out
}

/// A line of text with escape and control characters shown as `\u{..}`, so that a name
/// taken from a file cannot drive the terminal.
pub(crate) fn visible(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colored_marks_each_kind_of_line_and_keeps_the_text() {
        let diff = unified("a\nb\n", "a\nc\n", "x.snap");
        let c = colored(&diff);
        assert!(c.contains("\x1b[31m-b\x1b[0m\n") && c.contains("\x1b[32m+c\x1b[0m\n"), "{c:?}");
        assert!(c.contains("\x1b[1m--- x.snap\x1b[0m\n") && c.contains("\x1b[36m@@"), "{c:?}");
        let stripped = c.replace("\x1b[31m", "").replace("\x1b[32m", "").replace("\x1b[36m", "");
        assert_eq!(stripped.replace("\x1b[1m", "").replace("\x1b[0m", ""), diff);
    }

    #[test]
    fn visible_escapes_terminal_controls() {
        assert_eq!(visible("a\x1b[31mb\nc"), "a\\u{1b}[31mb\\nc");
        assert_eq!(visible("ünï"), "ünï");
    }
}
