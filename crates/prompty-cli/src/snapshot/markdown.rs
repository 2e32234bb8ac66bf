//! The Markdown summary of a snapshot run, for a pull request (`$GITHUB_STEP_SUMMARY`).

use std::fmt::Write as _;

/// One line of the summary table.
pub(crate) struct Entry {
    /// `changed`, `new`, `removed` or `failed`.
    pub(crate) status: &'static str,
    pub(crate) snapshot: String,
    pub(crate) prompt: String,
    pub(crate) case: String,
    /// The unified diff (or the snapshot's text, or the error).
    pub(crate) detail: String,
}

/// The summary: a count line, a table of the snapshots that are not unchanged, then one
/// collapsible section per entry with its diff.
pub(crate) fn summary(entries: &[Entry], unchanged: usize) -> String {
    let mut out = String::from("## Prompt snapshots\n\n");
    let count = |s: &str| entries.iter().filter(|e| e.status == s).count();
    let _ = writeln!(
        out,
        "{unchanged} unchanged, {} changed, {} new, {} removed, {} failed.\n",
        count("changed"),
        count("new"),
        count("removed"),
        count("failed")
    );
    if entries.is_empty() {
        out.push_str("Every rendering matches its snapshot.\n");
        return out;
    }
    out.push_str("| Status | Prompt | Case | Snapshot |\n|---|---|---|---|\n");
    for e in entries {
        let _ = writeln!(out, "| {} | {} | {} | {} |", e.status, cell(&e.prompt), cell(&e.case), cell(&e.snapshot));
    }
    for e in entries {
        let title = if e.case.is_empty() {
            format!("{}: {}", e.status, e.prompt)
        } else {
            format!("{}: {} case {}", e.status, e.prompt, e.case)
        };
        let lang = if e.status == "failed" { "text" } else { "diff" };
        let fence = fence_for(&e.detail);
        let _ = write!(out, "\n<details><summary>{}</summary>\n\n{fence}{lang}\n{}", html(&title), e.detail);
        if !e.detail.ends_with('\n') {
            out.push('\n');
        }
        let _ = writeln!(out, "{fence}\n\n</details>");
    }
    out
}

/// A table cell: one line, with Markdown and HTML syntax escaped.
fn cell(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c if c.is_control() => out.push_str(&c.escape_default().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// Text inside an HTML element, on one line.
fn html(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => out.push_str(&c.escape_default().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// A code fence longer than any run of backticks in `text`, so the text cannot close it.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_break_the_table_or_the_html() {
        let entries = [Entry {
            status: "changed",
            snapshot: "s/a|b.snap".into(),
            prompt: "p/<script>.prompty".into(),
            case: "x|y\n`z`".into(),
            detail: "-a\n+```\n".into(),
        }];
        let md = summary(&entries, 1);
        assert!(md.contains("| changed | p/&lt;script&gt;.prompty | x\\|y\\n\\`z\\` | s/a\\|b.snap |\n"), "{md}");
        assert!(md.contains("<summary>changed: p/&lt;script&gt;.prompty case x|y\\n`z`</summary>"), "{md}");
        assert!(md.contains("\n````diff\n-a\n+```\n````\n"), "{md}");
        assert!(!md.contains("<script>"), "{md}");
    }

    #[test]
    fn an_all_clean_run_says_so() {
        assert_eq!(
            summary(&[], 3),
            "## Prompt snapshots\n\n3 unchanged, 0 changed, 0 new, 0 removed, 0 failed.\n\nEvery rendering matches its snapshot.\n"
        );
    }
}
