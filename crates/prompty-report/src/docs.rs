//! One documentation link per code, the same in every output form: the lint rules
//! (`PLxxx`) have their section in `docs/rules.md`, every other code in
//! `docs/diagnostics.md`; a section's anchor is its heading `PL001 undeclared-variable`
//! lower-cased with the space made a dash.
//!
//! The project has no public address yet (`Cargo.toml` says `example.invalid`), so by default
//! no output carries a link that would lead nowhere: `prompty rule CODE` prints a code's
//! documentation offline, from the same text as `docs/rules.md`. A build that publishes the
//! pages sets `PROMPTY_DOCS_URL` (the address of the `docs/` folder, ending with `/`) when it
//! compiles, and the JSON and SARIF output and the language server link there; the language
//! server also takes `docsUrl` from its client.

use prompty_syntax::Code;

/// Where the documentation is published (the `docs/` folder, ending with `/`), as
/// `PROMPTY_DOCS_URL` said at build time; empty when the build did not say, and then no
/// output links anywhere.
pub const DOCS_URL: &str = match option_env!("PROMPTY_DOCS_URL") {
    Some(url) => url,
    None => "",
};

/// The page of `docs/` that documents `code`.
pub fn doc_page(code: Code) -> &'static str {
    if code.id.starts_with("PL") { "rules.md" } else { "diagnostics.md" }
}

/// The anchor of `code`'s section: `## P002 yaml-syntax` is `p002-yaml-syntax`.
pub fn anchor(code: Code) -> String {
    format!("{}-{}", code.id, code.name).to_ascii_lowercase()
}

/// The address of `code`'s section under the documentation folder `base` (which ends with
/// `/`; [`DOCS_URL`] unless a client publishes the pages elsewhere), or `None` when `base`
/// is empty: no link rather than a dead or relative one.
pub fn doc_url(base: &str, code: Code) -> Option<String> {
    (!base.is_empty()).then(|| format!("{base}{}#{}", doc_page(code), anchor(code)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_other_codes_link_their_own_page() {
        let rule = Code { id: "PL001", name: "undeclared-variable" };
        let loader = Code { id: "P002", name: "yaml-syntax" };
        assert_eq!(
            doc_url("https://x/docs/", rule).as_deref(),
            Some("https://x/docs/rules.md#pl001-undeclared-variable")
        );
        assert_eq!(
            doc_url("https://x/docs/", loader).as_deref(),
            Some("https://x/docs/diagnostics.md#p002-yaml-syntax")
        );
        assert_eq!(doc_url("", rule), None, "no address: no link");
    }

    /// The default build links nowhere: the repository's address is a placeholder, and a
    /// link there (or a relative one) would be dead.
    #[test]
    fn the_default_build_has_no_link() {
        if option_env!("PROMPTY_DOCS_URL").is_none() {
            assert_eq!(DOCS_URL, "");
        } else {
            assert!(DOCS_URL.starts_with("https://") && DOCS_URL.ends_with('/'), "{DOCS_URL}");
        }
        assert!(!DOCS_URL.contains("example.invalid"), "{DOCS_URL}");
    }
}
