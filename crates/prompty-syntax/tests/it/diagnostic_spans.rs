//! Where loader diagnostics point, and which ones a single mistake produces.

use std::path::{Path, PathBuf};

use prompty_syntax::{
    Diagnostic, Host, HostError, LoadOptions, MapHost, Severity, codes, load_path, load_str, normalize,
};

/// The text each diagnostic's span covers, with its code.
fn spans(text: &str) -> Vec<(&'static str, String)> {
    let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
    loaded.diagnostics.iter().map(|d| (d.code.id, text[d.span.clone()].to_owned())).collect()
}

fn codes_of(diags: &[Diagnostic]) -> Vec<&'static str> {
    diags.iter().map(|d| d.code.id).collect()
}

#[test]
fn a_tab_in_indentation_points_at_the_tab() {
    let text = "---\nname: t\nmodel:\n\tid: gpt-4o\n---\nuser:\nhi\n";
    let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
    let d = &loaded.diagnostics[0];
    assert_eq!(d.code, codes::YAML_SYNTAX);
    assert_eq!(&text[d.span.clone()], "\t");
}

#[test]
fn missing_fields_point_at_the_name() {
    assert_eq!(
        spans("---\ninputs:\n  question:\n    description: x\n    required: true\n---\n"),
        [("P015", "question".to_owned())]
    );
    assert_eq!(spans("---\ntools:\n  - name: lookup\n    description: x\n---\n"), [("P015", "lookup".to_owned())]);
    assert_eq!(
        spans("---\ntools:\n  lookup:\n    kind: function\n    description: x\n---\n"),
        [("P015", "lookup".to_owned())]
    );
    assert_eq!(
        spans("---\nmodel:\n  id: m\n  connection:\n    endpoint: https://e\n---\n"),
        [("P015", "connection".to_owned())]
    );
    assert_eq!(
        spans("---\ninputs:\n  - kind: string\n    description: x\n---\n"),
        [("P015", "kind: string".to_owned())]
    );
}

#[test]
fn kind_problems_point_at_the_kind() {
    assert_eq!(
        spans("---\ninputs:\n  tags:\n    description: x\n    kind: array\n---\n"),
        [("P017", "array".to_owned())]
    );
    assert_eq!(spans("---\ninputs:\n  v:\n    kind: union\n    description: x\n---\n"), [("P019", "union".to_owned())]);
}

#[test]
fn engine_and_model_problems_point_at_the_value() {
    assert_eq!(
        spans("---\ntemplate:\n  format:\n    kind: liquid\n  parser: prompty\n---\n"),
        [("P014", "liquid".to_owned())]
    );
    assert_eq!(spans("---\nmodel: [a, [b]]\n---\n"), [("P012", "[a, [b]]".to_owned())]);
    assert_eq!(spans("---\nmodel: { }\n---\n"), []);
    assert_eq!(spans("---\nmodel: []\n---\n"), [("P012", "[]".to_owned())]);
}

#[test]
fn nunjucks_loads_with_a_portability_warning() {
    let text = "---\ntemplate:\n  format: nunjucks\n  parser: prompty\n---\nuser:\n{{ q }}\n";
    let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    assert_eq!(spans(text), [("P032", "nunjucks".to_owned())]);
    let d = &loaded.diagnostics[0];
    assert!(!d.is_error());
    assert!(
        d.message.contains("TypeScript runtime") && d.message.contains("Python runtime rejects it"),
        "{}",
        d.message
    );
    assert_eq!(d.help.as_deref(), Some("write `jinja2`: every runtime accepts it"));
    assert_eq!(loaded.prompt.map(|p| p.template.format.kind), Some("nunjucks".to_owned()));
    // The object form too.
    assert_eq!(
        spans("---\ntemplate:\n  format: {kind: nunjucks}\n  parser: prompty\n---\n"),
        [("P032", "nunjucks".to_owned())]
    );
}

#[test]
fn a_v1_option_name_gets_its_v2_spelling() {
    let text = "---\nmodel:\n  id: m\n  options:\n    max_tokens: 5\n---\n";
    let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
    let help = loaded.diagnostics[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("`maxOutputTokens`") && help.contains("v1"), "{help}");
}

#[test]
fn a_duplicate_list_entry_points_at_its_name() {
    assert_eq!(
        spans("---\ninputs:\n  - name: q\n    kind: string\n  - name: q\n    kind: string\n---\n"),
        [("P018", "q".to_owned())]
    );
}

#[test]
fn a_failed_reference_is_reported_once() {
    let host = MapHost::new();
    let options = LoadOptions { path: Some(PathBuf::from("/p/a.prompty")), ..LoadOptions::default() };
    let text = "---\nmetadata: ${file:missing.json}\nmodel:\n  id: m\n  connection: ${env:UNSET_CONN}\n---\n";
    let loaded = load_str(text, &host, &options);
    assert_eq!(codes_of(&loaded.diagnostics), [codes::FILE_NOT_FOUND.id, codes::ENV_NOT_SET.id]);
}

/// Connection settings are read only by a request: an unset variable there (or in any
/// credential field) is a warning, its reference stays literal and is listed as unset; with
/// `require_env`, and anywhere else, it is an error.
#[test]
fn unset_connection_variables_wait_for_the_request() {
    let host = MapHost::new();
    let v2 = "---\nmodel:\n  id: m\n  connection:\n    kind: key\n    endpoint: ${env:MY_ENDPOINT}\n    apiKey: ${env:MY_KEY}\n---\nuser:\nhi\n";
    let v1 = "---\nmodel:\n  api: chat\n  configuration:\n    type: azure_openai\n    azure_endpoint: ${env:MY_ENDPOINT}\n    api_key: ${env:MY_KEY}\n---\nuser:\nhi\n";
    for text in [v2, v1] {
        let loaded = load_str(text, &host, &LoadOptions::default());
        let severities: Vec<_> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.code != codes::LEGACY_KEY)
            .map(|d| (d.code.id, d.severity))
            .collect();
        assert_eq!(
            severities,
            [(codes::ENV_NOT_SET.id, Severity::Warning), (codes::ENV_NOT_SET.id, Severity::Warning)],
            "{text}"
        );
        let prompt = loaded.prompt.expect("the prompt loads");
        assert_eq!(prompt.secrets.unset(), ["MY_ENDPOINT", "MY_KEY"]);
        assert_eq!(prompt.secrets.unset_reference("${env:MY_KEY}"), Some("MY_KEY"));
        assert_eq!(prompt.secrets.unset_reference("${env:OTHER}"), None);

        let strict = LoadOptions { require_env: true, ..LoadOptions::default() };
        let loaded = load_str(text, &host, &strict);
        let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code.id).collect();
        assert_eq!(errors, [codes::ENV_NOT_SET.id, codes::ENV_NOT_SET.id], "{text}");
    }
    // Outside the connection settings a value changes what is rendered or sent: an error.
    let text = "---\nmodel:\n  id: ${env:MY_MODEL}\ninputs:\n  - name: q\n    kind: string\n    default: ${env:MY_Q}\n---\nuser:\n{{q}}\n";
    let loaded = load_str(text, &host, &LoadOptions::default());
    assert_eq!(loaded.diagnostics.iter().filter(|d| d.is_error()).count(), 2, "{:?}", loaded.diagnostics);
    // A credential field is deferred wherever it is.
    let text = "---\nmetadata:\n  service:\n    token: ${env:MY_TOKEN}\n---\nuser:\nhi\n";
    let loaded = load_str(text, &host, &LoadOptions::default());
    assert!(!loaded.diagnostics.iter().any(Diagnostic::is_error), "{:?}", loaded.diagnostics);
}

#[test]
fn an_escaping_reference_is_refused_whether_or_not_the_target_exists() {
    let options = LoadOptions { path: Some(PathBuf::from("/p/a.prompty")), ..LoadOptions::default() };
    let text = "---\nmetadata: ${file:../x.json}\n---\n";
    for host in [MapHost::new(), MapHost::new().with_file("/x.json", "{}")] {
        let loaded = load_str(text, &host, &options);
        assert_eq!(codes_of(&loaded.diagnostics), [codes::FILE_OUTSIDE_ROOTS.id]);
    }
    let allowed = LoadOptions { allowed_roots: vec![PathBuf::from("/shared")], ..options };
    let host = MapHost::new().with_file("/shared/x.json", "{\"a\": 1}");
    let loaded = load_str("---\nmetadata: ${file:../shared/x.json}\n---\n", &host, &allowed);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
}

/// A host that behaves like a real file system for relative paths: the current folder is
/// `/cwd`, and the empty path cannot be canonicalized.
struct CwdHost(MapHost);

impl Host for CwdHost {
    fn env(&self, name: &str) -> Option<String> {
        self.0.env(name)
    }
    fn canonicalize(&self, path: &Path) -> Result<PathBuf, HostError> {
        if path.as_os_str().is_empty() {
            return Err(HostError::NotFound);
        }
        let absolute = normalize(&Path::new("/cwd").join(path));
        self.0
            .read(&absolute)
            .map(|_| absolute.clone())
            .or_else(|e| if absolute == Path::new("/cwd") { Ok(absolute) } else { Err(e) })
    }
    fn read(&self, path: &Path) -> Result<Vec<u8>, HostError> {
        self.0.read(&normalize(&Path::new("/cwd").join(path)))
    }
}

#[test]
fn a_bare_file_name_resolves_references_from_the_current_folder() {
    let host = CwdHost(
        MapHost::new()
            .with_file("/cwd/a.prompty", "---\nmetadata: ${file:meta.json}\n---\nuser:\nhi\n")
            .with_file("/cwd/meta.json", "{\"team\": \"x\"}"),
    );
    let loaded = load_path(Path::new("a.prompty"), &host, &LoadOptions::default()).expect("readable");
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let metadata = loaded.prompt.and_then(|p| p.metadata).expect("metadata");
    assert_eq!(metadata["team"], "x");
}

#[test]
fn v1_and_v2_spellings_of_one_thing_are_mixed_versions_at_the_v1_key() {
    let text = "---\nname: t\nmodel:\n  id: gpt-4o\n  options: {temperature: 0.2, stopSequences: ['###'], additionalProperties: {user: a}}\n  parameters: {temperature: 0.9, stop: [END], user: b, logit_bias: {}}\n---\nuser:\nhi\n";
    let loaded = load_str(text, &MapHost::new(), &LoadOptions::default());
    let mixed: Vec<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::MIXED_VERSIONS)
        .map(|d| text[d.span.clone()].to_owned())
        .collect();
    assert_eq!(mixed, ["parameters"]);
    // Where both give a value the v2 spelling is the one kept, for every option alike.
    let options = loaded.prompt.and_then(|p| p.model).and_then(|m| m.options).expect("options");
    assert_eq!(options.temperature, Some(0.2));
    assert_eq!(options.stop_sequences, Some(vec!["###".to_owned()]));
    let extra = options.additional_properties.unwrap_or_default();
    assert_eq!(extra.get("user"), Some(&serde_json::json!("a")));
    assert_eq!(extra.get("logit_bias"), Some(&serde_json::json!({})));
    // One spelling alone is not mixed.
    for one in
        ["---\nmodel: {id: x, options: {temperature: 1}}\n---\n", "---\nmodel: {id: x, parameters: {stop: [a]}}\n---\n"]
    {
        let loaded = load_str(one, &MapHost::new(), &LoadOptions::default());
        assert!(!loaded.diagnostics.iter().any(|d| d.code == codes::MIXED_VERSIONS), "{one}");
    }
}
