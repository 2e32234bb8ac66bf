//! Values that came from `${env:NAME}` are secret.
//!
//! Resolution records every value an environment variable supplied, with the variable's
//! name, in the prompt's [`Secrets`]. The prompt itself keeps the real values (a request
//! needs the real key), and every display path shows the reference instead:
//!
//! - [`Prompt::redacted`] is the prompt as `prompty load` prints it: every front-matter
//!   string that equals an environment value reads `${env:NAME}`.
//! - [`Prompt::redacted_inputs`] replaces them only in input defaults and the v1 `sample`,
//!   the values a rendering can show; snapshots render it.
//! - [`Secrets::redact`] replaces every occurrence in a message; the loader applies it to
//!   its diagnostics, and the linter, the renderer and the wire compiler to theirs.
//!
//! An empty value hides nothing and is never replaced. A value shorter than
//! [`Secrets::ANYWHERE`] bytes is replaced only where it stands as a word of its own
//! (`` `abc` ``, not inside `abcdef`), so that a short value does not mangle every message.

use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Value};

use crate::diagnostic::Diagnostic;
use crate::model::{Connection, Model, Prompt, Property, Tool};

/// Whether a front-matter key holds a credential (`apiKey`, `api_key`, `clientSecret`,
/// `password`, `token`...): compared without case, `_` or `-`. Such a value belongs in the
/// environment, with no default.
pub fn is_secret_field(key: &str) -> bool {
    // Non-ASCII characters are dropped like `_` and `-`: their UTF-8 bytes are never
    // ASCII alphanumerics.
    let letters = || key.bytes().filter(u8::is_ascii_alphanumeric).map(|b| b.to_ascii_lowercase());
    ["apikey", "secret", "clientsecret", "password", "token", "accesstoken", "bearertoken"]
        .iter()
        .any(|name| letters().eq(name.bytes()))
}

/// One value an environment variable supplied.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    /// The variable's name.
    pub name: String,
    /// The value; never shown.
    pub value: String,
}

impl Secret {
    /// How the value is shown: the reference that supplied it.
    pub fn reference(&self) -> String {
        format!("${{env:{}}}", self.name)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Secret").field("name", &self.name).field("value", &"<redacted>").finish()
    }
}

/// Every value `${env:}` supplied to one prompt, longest first, and the variables of the
/// connection settings that were not set (their references stay literal).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets {
    entries: Vec<Secret>,
    unset: Vec<String>,
}

impl Secrets {
    /// Values at least this long are replaced wherever they occur in a message; shorter
    /// ones only where they stand as a word of their own.
    pub const ANYWHERE: usize = 8;

    /// No secrets.
    pub const fn new() -> Self {
        Self { entries: Vec::new(), unset: Vec::new() }
    }

    /// Records that variable `name`, read by the connection settings (or a credential
    /// field), was not set: its `${env:NAME}` reference stays literal in the prompt.
    pub fn add_unset(&mut self, name: &str) {
        if !self.unset.iter().any(|n| n == name) {
            self.unset.push(name.to_owned());
        }
    }

    /// The variables [`add_unset`](Self::add_unset) recorded, in the order met.
    pub fn unset(&self) -> &[String] {
        &self.unset
    }

    /// The variable `value` still refers to, when `value` is a `${env:NAME}` reference that
    /// stayed literal because `NAME` was not set.
    pub fn unset_reference(&self, value: &str) -> Option<&str> {
        let reference = crate::refs::parse_reference(value.trim())?;
        if !reference.protocol.eq_ignore_ascii_case("env") {
            return None;
        }
        let (name, _) = crate::refs::split_env(reference.value);
        self.unset.iter().find(|n| *n == name).map(String::as_str)
    }

    /// Records that variable `name` supplied `value`. Empty values hide nothing and are
    /// not recorded.
    pub fn add(&mut self, name: &str, value: &str) {
        if value.is_empty() || self.entries.iter().any(|s| s.value == value) {
            return;
        }
        let at = self.entries.partition_point(|s| s.value.len() >= value.len());
        self.entries.insert(at, Secret { name: name.to_owned(), value: value.to_owned() });
    }

    /// Whether there is nothing to hide.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The recorded values, longest first.
    pub fn iter(&self) -> impl Iterator<Item = &Secret> {
        self.entries.iter()
    }

    /// The secret whose value is exactly `value`.
    pub fn find(&self, value: &str) -> Option<&Secret> {
        self.entries.iter().find(|s| s.value == value)
    }

    /// Whether `value` is exactly a secret.
    pub fn contains(&self, value: &str) -> bool {
        self.find(value).is_some()
    }

    /// `value` as it may be shown: `${env:NAME}` when it is a secret, else itself.
    pub fn show<'a>(&self, value: &'a str) -> Cow<'a, str> {
        match self.find(value) {
            Some(s) => Cow::Owned(s.reference()),
            None => Cow::Borrowed(value),
        }
    }

    /// `text` with every occurrence of a secret replaced by its reference. At each place
    /// the longest secret that matches wins, and replacements are never searched again.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.entries.is_empty() || !self.entries.iter().any(|s| text.contains(s.value.as_str())) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        let mut copied = 0;
        while i < text.len() {
            let rest = &text[i..];
            let hit = self.entries.iter().find(|s| {
                rest.starts_with(s.value.as_str())
                    && (s.value.len() >= Self::ANYWHERE || stands_alone(text, i, i + s.value.len()))
            });
            match hit {
                Some(s) => {
                    out.push_str(&text[copied..i]);
                    out.push_str(&s.reference());
                    i += s.value.len();
                    copied = i;
                }
                None => i += rest.chars().next().map_or(1, char::len_utf8),
            }
        }
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }

    /// Redacts `s` in place.
    pub fn redact_string(&self, s: &mut String) {
        if let Cow::Owned(r) = self.redact(s) {
            *s = r;
        }
    }

    /// Redacts a diagnostic's message and help in place.
    pub fn redact_diagnostic(&self, d: &mut Diagnostic) {
        self.redact_string(&mut d.message);
        if let Some(h) = &mut d.help {
            self.redact_string(h);
        }
    }

    /// Replaces every string in `v` that is exactly a secret by its reference.
    pub fn redact_value(&self, v: &mut Value) {
        match v {
            Value::String(s) => self.replace_exact(s),
            Value::Array(items) => items.iter_mut().for_each(|i| self.redact_value(i)),
            Value::Object(m) => self.redact_map(m),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Redacts every string and every object key of `v` the way [`Secrets::redact`] redacts
    /// a message: each occurrence of a secret, not only whole strings. For output that may
    /// quote a secret anywhere (an evaluation's reason, a result key built from a name).
    pub fn redact_json(&self, v: &mut Value) {
        if self.entries.is_empty() {
            return;
        }
        match v {
            Value::String(s) => self.redact_string(s),
            Value::Array(items) => items.iter_mut().for_each(|i| self.redact_json(i)),
            Value::Object(m) => {
                if m.keys().any(|k| matches!(self.redact(k), Cow::Owned(_))) {
                    let old = std::mem::take(m);
                    for (k, val) in old {
                        m.insert(self.redact(&k).into_owned(), val);
                    }
                }
                m.values_mut().for_each(|val| self.redact_json(val));
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    fn redact_map(&self, m: &mut Map<String, Value>) {
        m.values_mut().for_each(|v| self.redact_value(v));
    }

    fn replace_exact(&self, s: &mut String) {
        if let Some(secret) = self.find(s) {
            *s = secret.reference();
        }
    }

    fn opt(&self, s: &mut Option<String>) {
        if let Some(s) = s {
            self.replace_exact(s);
        }
    }

    fn opt_value(&self, v: &mut Option<Value>) {
        if let Some(v) = v {
            self.redact_value(v);
        }
    }

    fn opt_map(&self, m: &mut Option<Map<String, Value>>) {
        if let Some(m) = m {
            self.redact_map(m);
        }
    }

    fn connection(&self, c: &mut Option<Connection>) {
        if let Some(c) = c {
            self.replace_exact(&mut c.kind);
            self.redact_map(&mut c.fields);
        }
    }

    fn model(&self, m: &mut Model) {
        self.replace_exact(&mut m.id);
        self.opt(&mut m.provider);
        self.opt(&mut m.api_type);
        self.connection(&mut m.connection);
        if let Some(o) = &mut m.options {
            o.stop_sequences.iter_mut().flatten().for_each(|s| self.replace_exact(s));
            self.opt_map(&mut o.additional_properties);
        }
    }

    /// Every string of a property; `values_only` leaves names, descriptions and kinds (what
    /// rendering looks up) alone and redacts defaults only.
    fn property(&self, p: &mut Property, values_only: bool) {
        self.opt_value(&mut p.default);
        if !values_only {
            self.replace_exact(&mut p.name);
            self.opt(&mut p.description);
            self.opt_value(&mut p.example);
            p.enum_values.iter_mut().flatten().for_each(|v| self.redact_value(v));
        }
        let nested =
            p.items.iter_mut().map(Box::as_mut).chain(
                [&mut p.properties, &mut p.one_of, &mut p.any_of].into_iter().flat_map(|l| l.iter_mut().flatten()),
            );
        for q in nested {
            self.property(q, values_only);
        }
    }

    fn tool(&self, t: &mut Tool) {
        self.replace_exact(&mut t.name);
        self.replace_exact(&mut t.kind);
        self.opt(&mut t.description);
        t.parameters.iter_mut().flatten().for_each(|p| self.property(p, false));
        self.opt_map(&mut t.bindings);
        self.connection(&mut t.connection);
        self.opt(&mut t.server_name);
        self.opt(&mut t.server_description);
        self.opt_value(&mut t.approval_mode);
        t.allowed_tools.iter_mut().flatten().for_each(|s| self.replace_exact(s));
        self.opt(&mut t.specification);
        self.opt_map(&mut t.options);
    }
}

/// Whether `text[start..end]` is not part of a longer word.
fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    !text[..start].chars().next_back().is_some_and(word) && !text[end..].chars().next().is_some_and(word)
}

impl Prompt {
    /// The prompt as it may be shown: every front-matter string that is exactly a value
    /// `${env:}` supplied reads `${env:NAME}` instead. The copy holds no secret (its own
    /// [`Prompt::secrets`] is empty); the body is left as written.
    pub fn redacted(&self) -> Prompt {
        let mut p = self.clone();
        let s = std::mem::take(&mut p.secrets);
        if s.is_empty() {
            return p;
        }
        s.opt(&mut p.name);
        s.opt(&mut p.display_name);
        s.opt(&mut p.description);
        s.opt_map(&mut p.metadata);
        if let Some(m) = &mut p.model {
            s.model(m);
        }
        for list in [&mut p.inputs, &mut p.outputs] {
            list.iter_mut().flatten().for_each(|q| s.property(q, false));
        }
        p.tools.iter_mut().flatten().for_each(|t| s.tool(t));
        let t = &mut p.template;
        s.replace_exact(&mut t.format.kind);
        s.opt_map(&mut t.format.options);
        s.replace_exact(&mut t.parser.kind);
        s.opt_map(&mut t.parser.options);
        if let Some(l) = &mut p.legacy {
            s.opt(&mut l.api);
            s.opt_map(&mut l.configuration);
            s.opt_map(&mut l.parameters);
            s.opt_value(&mut l.sample);
        }
        p
    }

    /// The prompt with secrets replaced only where a rendering can show them: input
    /// defaults and the v1 `sample`. Names, kinds and the template stay, so the copy
    /// renders like the original, with `${env:NAME}` where a secret would appear. Its own
    /// [`Prompt::secrets`] is empty.
    pub fn redacted_inputs(&self) -> Prompt {
        let mut p = self.clone();
        let s = std::mem::take(&mut p.secrets);
        p.inputs.iter_mut().flatten().for_each(|q| s.property(q, true));
        if let Some(l) = &mut p.legacy {
            s.opt_value(&mut l.sample);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_fields_are_named_without_case_separators_or_other_characters() {
        for key in ["apiKey", "api_key", "API-KEY", "clientSecret", "Bearer_Token", "pass\u{e9}word", "tok\u{1f511}en"]
        {
            assert!(is_secret_field(key), "{key}");
        }
        for key in ["api", "keys", "tokens", "passwords", "", "\u{e9}", "secretary", "access"] {
            assert!(!is_secret_field(key), "{key}");
        }
    }

    fn secrets(pairs: &[(&str, &str)]) -> Secrets {
        let mut s = Secrets::new();
        for (n, v) in pairs {
            s.add(n, v);
        }
        s
    }

    #[test]
    fn redact_replaces_every_occurrence_longest_first() {
        let s = secrets(&[("SHORT", "sk-test"), ("KEY", "sk-test-SECRET-1234")]);
        assert_eq!(s.redact("a sk-test-SECRET-1234 b sk-test c"), "a ${env:KEY} b ${env:SHORT} c");
        assert_eq!(s.redact("no secret here"), "no secret here");
        assert!(matches!(s.redact("no secret here"), Cow::Borrowed(_)));
    }

    #[test]
    fn short_values_are_replaced_only_as_words() {
        let s = secrets(&[("K", "strng")]);
        assert_eq!(s.redact("unknown kind `strng` for `x`"), "unknown kind `${env:K}` for `x`");
        assert_eq!(s.redact("strngs and xstrng stay"), "strngs and xstrng stay");
        let long = secrets(&[("K", "abcdefgh")]);
        assert_eq!(long.redact("xabcdefghx"), "x${env:K}x");
    }

    #[test]
    fn replacements_are_not_searched_again() {
        // A secret that occurs in the reference text itself must not rewrite it.
        let s = secrets(&[("env", "env"), ("X", "value-of-x")]);
        assert_eq!(s.redact("value-of-x"), "${env:X}");
    }

    #[test]
    fn empty_values_are_not_secrets() {
        let s = secrets(&[("E", "")]);
        assert!(s.is_empty());
        assert_eq!(s.redact(""), "");
    }

    #[test]
    fn debug_never_shows_the_value() {
        let s = secrets(&[("KEY", "sk-test-SECRET-1234")]);
        let shown = format!("{s:?}");
        assert!(shown.contains("KEY") && !shown.contains("SECRET-1234"), "{shown}");
    }

    fn load(text: &str, host: &crate::MapHost) -> crate::Loaded {
        let options = crate::LoadOptions { path: Some("/p/a.prompty".into()), ..Default::default() };
        crate::load_str(text, host, &options)
    }

    #[test]
    fn loading_records_every_env_value_with_its_name() {
        let host = crate::MapHost::new()
            .with_env("KEY", "sk-test-SECRET-1234")
            .with_env("MODEL", "my-model")
            .with_env("INNER", "inner-secret-value")
            .with_file("/p/conn.json", r#"{"token": "${env:INNER}"}"#);
        let text = "---\nmodel:\n  id: ${env:MODEL}\n  connection:\n    kind: key\n    apiKey: ${env:KEY}\n    endpoint: ${env:UNSET:https://d.example}\nmetadata:\n  conn: ${file:conn.json}\n---\nuser:\nhi";
        let loaded = load(text, &host);
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let prompt = loaded.prompt.expect("prompt");
        let names: Vec<&str> = prompt.secrets.iter().map(|s| s.name.as_str()).collect();
        // Longest first; the default written in the file is not a secret.
        assert_eq!(names, ["KEY", "INNER", "MODEL"]);
        // The prompt keeps the real values for the code that needs them...
        let model = prompt.model.as_ref().expect("model");
        assert_eq!(model.id, "my-model");
        let conn = model.connection.as_ref().expect("connection");
        assert_eq!(conn.fields["apiKey"], "sk-test-SECRET-1234");
        // ...and its shown form has the references.
        let shown = serde_json::to_value(prompt.redacted()).expect("JSON");
        assert_eq!(shown["model"]["id"], "${env:MODEL}");
        assert_eq!(shown["model"]["connection"]["apiKey"], "${env:KEY}");
        assert_eq!(shown["model"]["connection"]["endpoint"], "https://d.example");
        assert_eq!(shown["metadata"]["conn"]["token"], "${env:INNER}");
        assert!(prompt.redacted().secrets.is_empty());
    }

    #[test]
    fn loader_diagnostics_show_references() {
        let host = crate::MapHost::new().with_env("KIND", "sk-test-SECRET-1234").with_env("FMT", "jinja-secret-3");
        let text = "---\ninputs:\n  q:\n    kind: ${env:KIND}\ntemplate:\n  format: ${env:FMT}\n  parser: prompty\n---\nuser:\nhi";
        let loaded = load(text, &host);
        let messages: Vec<&str> = loaded.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["unknown kind `${env:KIND}` for `inputs.q`", "unknown template format `${env:FMT}`"]);
        let helps: Vec<&str> = loaded.diagnostics.iter().filter_map(|d| d.help.as_deref()).collect();
        assert!(helps.iter().all(|h| !h.contains("did you mean")), "{helps:?}");
    }

    #[test]
    fn redacted_inputs_keep_names_and_kinds() {
        let host = crate::MapHost::new().with_env("NAME", "who").with_env("D", "sk-test-SECRET-1234");
        let text = "---\ninputs:\n  - name: ${env:NAME}\n    kind: string\n    default: ${env:D}\n---\nuser:\n{{who}}";
        let prompt = load(text, &host).prompt.expect("prompt");
        let r = prompt.redacted_inputs();
        let input = r.input("who").expect("the name stays, so the template still finds it");
        assert_eq!(input.default, Some(Value::String("${env:D}".into())));
        assert_eq!(prompt.redacted().inputs.as_ref().map(|i| i[0].name.as_str()), Some("${env:NAME}"));
    }

    #[test]
    fn multibyte_text_is_walked_by_characters() {
        let s = secrets(&[("K", "é-secret-value")]);
        assert_eq!(s.redact("ü é-secret-value ü"), "ü ${env:K} ü");
    }

    #[test]
    fn json_strings_and_keys_are_redacted_wherever_a_secret_occurs() {
        let s = secrets(&[("K", "sk-test-SECRET-1234"), ("S", "abc")]);
        let mut v = serde_json::json!({
            "sk-test-SECRET-1234_reason": "the key sk-test-SECRET-1234 and abc, not abcdef",
            "n": [1, "abc", {"abc": true}],
        });
        s.redact_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({
                "${env:K}_reason": "the key ${env:K} and ${env:S}, not abcdef",
                "n": [1, "${env:S}", {"${env:S}": true}],
            })
        );
    }
}
