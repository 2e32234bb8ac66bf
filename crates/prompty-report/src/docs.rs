//! One documentation link per code, the same in every output form: the lint rules
//! (`PLxxx`) have their section in `docs/rules.md`, every other code in
//! `docs/diagnostics.md`; a section's anchor is its heading `PL001 undeclared-variable`
//! lower-cased with the space made a dash.

use prompty_syntax::Code;

/// Where the documentation is published: the `docs/` folder of the repository.
pub const DOCS_URL: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/");

/// The page of `docs/` that documents `code`.
pub fn doc_page(code: Code) -> &'static str {
    if code.id.starts_with("PL") { "rules.md" } else { "diagnostics.md" }
}

/// The anchor of `code`'s section: `## P002 yaml-syntax` is `p002-yaml-syntax`.
pub fn anchor(code: Code) -> String {
    format!("{}-{}", code.id, code.name).to_ascii_lowercase()
}

/// The address of `code`'s section under the documentation folder `base` (which ends with
/// `/`; [`DOCS_URL`] unless a client publishes the pages elsewhere).
pub fn doc_url(base: &str, code: Code) -> String {
    format!("{base}{}#{}", doc_page(code), anchor(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_other_codes_link_their_own_page() {
        let rule = Code { id: "PL001", name: "undeclared-variable" };
        let loader = Code { id: "P002", name: "yaml-syntax" };
        assert_eq!(doc_url("https://x/docs/", rule), "https://x/docs/rules.md#pl001-undeclared-variable");
        assert_eq!(doc_url("https://x/docs/", loader), "https://x/docs/diagnostics.md#p002-yaml-syntax");
        assert!(DOCS_URL.ends_with("/blob/main/docs/"), "{DOCS_URL}");
    }
}
