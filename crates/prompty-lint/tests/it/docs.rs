//! `docs/rules.md` is generated from the rules' rustdoc; this test fails when the committed
//! file is not current. Regenerate with `PROMPTY_UPDATE_DOCS=1 cargo test -p prompty-lint --test docs`.

use std::path::Path;

#[test]
fn rules_doc_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md");
    let expected = prompty_lint::rules_markdown();
    if std::env::var_os("PROMPTY_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).expect("write docs/rules.md");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == expected,
        "docs/rules.md is out of date with the rule docs; regenerate it with\n    PROMPTY_UPDATE_DOCS=1 cargo test -p prompty-lint --test docs"
    );
}
