//! Which codes to report: `select` and `ignore` lists of codes, prefixes and rule names.

use std::collections::BTreeSet;
use std::fmt;

use crate::all_codes;

/// A set of enabled codes. The default selects everything.
///
/// A few codes are off for some files unless a selector names them exactly (by code or
/// name, not by a prefix or `ALL`): see [`Selection::is_explicit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    enabled: BTreeSet<&'static str>,
    explicit: BTreeSet<&'static str>,
}

impl Default for Selection {
    fn default() -> Self {
        Self::all()
    }
}

/// A selector that matches no code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    /// The selector as written.
    pub selector: String,
    /// A close known code or name, if any.
    pub suggestion: Option<&'static str>,
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` matches no code", self.selector)?;
        if let Some(s) = self.suggestion {
            write!(f, " (did you mean `{s}`?)")?;
        }
        Ok(())
    }
}

impl std::error::Error for SelectorError {}

/// The code a selector names exactly (`P030`, `v1-construct`), if it does.
fn exact(selector: &str) -> Option<&'static str> {
    let s = selector.trim();
    all_codes().find(|c| c.id == s || c.name == s).map(|c| c.id)
}

/// The codes a selector names: `ALL`, a code (`PL001`), a prefix (`PL0`, `P0`) or a rule
/// name (`unused-input`).
pub fn resolve(selector: &str) -> Result<Vec<&'static str>, SelectorError> {
    let s = selector.trim();
    let codes: Vec<&'static str> = if s == "ALL" {
        all_codes().map(|c| c.id).collect()
    } else {
        all_codes().filter(|c| c.name == s || c.id.starts_with(s)).map(|c| c.id).collect()
    };
    if codes.is_empty() || s.is_empty() {
        let candidates: Vec<&'static str> = all_codes().flat_map(|c| [c.id, c.name]).collect();
        return Err(SelectorError { selector: s.to_owned(), suggestion: prompty_syntax::did_you_mean(s, &candidates) });
    }
    Ok(codes)
}

impl Selection {
    /// Every code.
    pub fn all() -> Self {
        Self { enabled: all_codes().map(|c| c.id).collect(), explicit: BTreeSet::new() }
    }

    /// Only the codes the selectors name.
    pub fn only<S: AsRef<str>>(selectors: &[S]) -> Result<Self, SelectorError> {
        let mut selection = Self { enabled: BTreeSet::new(), explicit: BTreeSet::new() };
        selection.select(selectors)?;
        Ok(selection)
    }

    /// Turns off the codes the selectors name.
    pub fn ignore<S: AsRef<str>>(&mut self, selectors: &[S]) -> Result<(), SelectorError> {
        for s in selectors {
            for code in resolve(s.as_ref())? {
                self.enabled.remove(code);
                self.explicit.remove(code);
            }
        }
        Ok(())
    }

    /// Turns on the codes the selectors name.
    pub fn select<S: AsRef<str>>(&mut self, selectors: &[S]) -> Result<(), SelectorError> {
        for s in selectors {
            self.enabled.extend(resolve(s.as_ref())?);
            self.explicit.extend(exact(s.as_ref()));
        }
        Ok(())
    }

    /// Whether `code` is reported.
    pub fn is_selected(&self, code: &str) -> bool {
        self.enabled.contains(code)
    }

    /// Whether a selector named `code` exactly (by code or rule name) and no later one
    /// turned it off. `P030` (v1 constructs) is reported for promptflow files only then:
    /// promptflow cannot read the v2 spellings it advises.
    pub fn is_explicit(&self, code: &str) -> bool {
        self.explicit.contains(code) && self.enabled.contains(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() {
        let mut s = Selection::only(&["PL0"]).expect("prefix");
        assert!(s.is_selected("PL001") && !s.is_selected("P030"));
        s.ignore(&["unused-input"]).expect("name");
        assert!(!s.is_selected("PL002"));
        s.select(&["P030"]).expect("code");
        assert!(s.is_selected("P030"));
        let err = Selection::only(&["PL9999"]).expect_err("unknown");
        assert_eq!(err.to_string(), "`PL9999` matches no code");
        assert_eq!(resolve("unused-inputs").expect_err("typo").suggestion, Some("unused-input"));
        // Only a selector that names a code exactly makes it explicit; `ignore` undoes it.
        let mut s = Selection::only(&["P0", "v1-construct"]).expect("select");
        assert!(s.is_explicit("P030") && !s.is_explicit("P031") && s.is_selected("P031"));
        s.ignore(&["P030"]).expect("ignore");
        assert!(!s.is_explicit("P030"));
        assert!(!Selection::all().is_explicit("P030") && !Selection::only(&["ALL"]).expect("all").is_explicit("P030"));
    }
}
