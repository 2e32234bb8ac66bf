//! What a report says about each code it may carry (SARIF lists them as its rules).

use prompty_syntax::{Code, Severity};

/// A code as the documentation describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The code.
    pub code: Code,
    /// Its severity unless configured otherwise.
    pub severity: Severity,
    /// One sentence.
    pub summary: String,
    /// The full documentation (lint rules).
    pub help: Option<String>,
    /// Whether its diagnostics come with an edit.
    pub fixable: bool,
}
