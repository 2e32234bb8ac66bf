//! [`Renderer`]: a loaded prompt with its compiled template, rendering through `&self`.

use std::sync::{Arc, OnceLock};

use prompty_syntax::{Profile, Prompt, PropertyKind, TemplateFormat};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::compile::{CompileTarget, Compiled, SyntaxTreeObserver, compile};
use crate::context::Context;
use crate::engine::{BodyLocation, Engine};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::mark::{MARK_VAR, Mark, Marking};
use crate::message::Message;
use crate::pfimage::{self, PfImage, apply_images, image_of, markdown_image_prepass};
use crate::plan::TemplatePlaces;
use crate::rich::{RichInput, expand_rich};
use crate::roles::forges_boundary;
use crate::split::MAX_MESSAGES;
use crate::split::promptflow::{Escapes, split_checked};
use crate::split::spec::split_inner;

/// The name the spec profile's role-line nonce had; reserved like [`MARK_VAR`].
const NONCE_VAR: &str = "__prompty_nonce";

/// Random bytes in the rich-input placeholders `prepare` expands: 128 bits, so that no input
/// value can guess the placeholder of a render.
const RICH_NONCE_BYTES: usize = 16;

/// Random bytes in the placeholders shown by `render_text` (never expanded): the spec's
/// form, `__PROMPTY_THREAD_<8 hex>_<name>__`.
const DISPLAY_NONCE_BYTES: usize = 4;

/// How to build a [`Renderer`].
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// Limits for untrusted templates.
    pub limits: Limits,
    /// Render with this profile instead of the prompt's own.
    pub profile: Option<Profile>,
    /// The original `.prompty` text, so that template errors point into the file.
    pub source: Option<Arc<str>>,
    /// The roles a thread input's messages may have (`["user", "assistant"]`, compared in
    /// any ASCII case); `None` allows every role, metadata included, as the spec does. A
    /// thread message with another role is refused, naming the input and the role.
    pub thread_roles: Option<Vec<String>>,
}

/// A provenance segment of rendered text: literal template text or an interpolated value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// `literal` or `interp`.
    pub kind: &'static str,
    /// The text.
    pub text: String,
    /// The input an interpolation reads, when it is a plain variable.
    pub source: Option<String>,
    /// Whether that input is strict.
    pub strict: bool,
}

/// A prompt and its compiled template. Immutable, `Send + Sync`; render from many threads.
#[derive(Debug)]
pub struct Renderer {
    prompt: Prompt,
    profile: Profile,
    /// The template's format (`template.format.kind`, read once).
    format: TemplateFormat,
    limits: Limits,
    location: BodyLocation,
    /// The template as compiled for prepare: with marks before the role words, labels and
    /// line breaks the split checks (promptflow profile, and spec profile when strict; in
    /// Jinja only inside capturing blocks).
    compiled: Compiled,
    strict: bool,
    /// The roles thread inputs may carry (`None`: any).
    thread_roles: Option<Vec<String>>,
    /// The body without nonces or marks, compiled on first use (for `render_text`).
    plain: OnceLock<Result<Engine, Error>>,
    /// The promptflow profile's template after its `![image]({{var}})` pre-pass, when that
    /// changed it: what is rendered instead of the prompt's instructions.
    prepassed: Option<String>,
    rich: Vec<(String, PropertyKind)>,
}

impl Renderer {
    /// Compiles the prompt's template with default options.
    pub fn new(prompt: Prompt) -> Result<Self, Error> {
        Self::with_options(prompt, RenderOptions::default())
    }

    /// Compiles the prompt's template.
    pub fn with_options(prompt: Prompt, options: RenderOptions) -> Result<Self, Error> {
        let secrets = prompt.secrets.clone();
        Self::build(prompt, options, None).map_err(|e| e.redacted(&secrets))
    }

    /// [`with_options`](Self::with_options), handing `tree` the syntax tree of a Jinja body
    /// as the compile parses it, with the text parsed (the body with line breaks normalized;
    /// in the promptflow profile, after the `![image]({{var}})` pre-pass where that changes
    /// it), so that a caller that reads the tree too (the linter) does not parse the body a
    /// second time. `tree` is called at most once, before the compile has
    /// finished (it may still fail), and not at all where the compile does not parse the
    /// plain body: a body read on its own first (one whose tags suggest a capturing block
    /// or an included template, or one that does not compile), a Mustache or Handlebars
    /// body. A caller parses the body itself when it was not called, and should check that
    /// the text is the one it means.
    pub fn with_syntax_tree(
        prompt: Prompt,
        options: RenderOptions,
        tree: &mut SyntaxTreeObserver<'_>,
    ) -> Result<Self, Error> {
        let secrets = prompt.secrets.clone();
        Self::build(prompt, options, Some(tree)).map_err(|e| e.redacted(&secrets))
    }

    fn build(prompt: Prompt, options: RenderOptions, tree: Option<&mut SyntaxTreeObserver<'_>>) -> Result<Self, Error> {
        let profile = options.profile.unwrap_or(prompt.profile);
        if prompt.template.parser.kind != "prompty" {
            return Err(Error::new(
                ErrorKind::UnknownEngine,
                format!("No parser registered for key: {} (supported: prompty)", prompt.template.parser.kind),
            ));
        }
        let strict = profile == Profile::Spec && prompt.template.format.strict.unwrap_or(true);
        let instructions = prompt.instructions.as_deref().unwrap_or_default();
        let location = BodyLocation { file: options.source.clone(), span: prompt.body_span.clone() };
        let kind = &prompt.template.format.kind;
        let Some(format) = TemplateFormat::from_kind(kind) else {
            return Err(Error::new(
                ErrorKind::UnknownEngine,
                format!("No renderer registered for key: {kind} (supported: jinja2, mustache, handlebars)"),
            ));
        };
        let prepassed = (profile == Profile::Promptflow && format == TemplateFormat::Jinja2)
            .then(|| markdown_image_prepass(instructions))
            .flatten();
        let instructions = prepassed.as_deref().unwrap_or(instructions);
        let target = CompileTarget { format, profile, limits: &options.limits, location: &location };
        let compiled = compile(&target, instructions, profile == Profile::Promptflow || strict, tree)?;
        let rich =
            prompt.inputs.iter().flatten().filter(|p| p.kind.is_rich()).map(|p| (p.name.clone(), p.kind)).collect();
        let plain = OnceLock::new();
        Ok(Self {
            prompt,
            profile,
            format,
            limits: options.limits,
            location,
            compiled,
            strict,
            thread_roles: options.thread_roles,
            plain,
            prepassed,
            rich,
        })
    }

    /// The prompt.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    /// The profile this renderer follows.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The variables the template reads (Jinja and Mustache); the renderer's own nonce and
    /// mark variables are left out.
    pub fn template_variables(&self) -> Vec<String> {
        let mut vars = self.compiled.engine.variables();
        vars.retain(|v| v != NONCE_VAR && v != MARK_VAR);
        vars
    }

    /// Validates inputs and renders the template to text, without the role split: what
    /// the reference engine's render step returns. Rich inputs appear as their nonces.
    pub fn render_text(&self, inputs: &Map<String, Value>) -> Result<String, Error> {
        self.render_text_inner(inputs).map_err(|e| self.without_secrets(e, |r| r.render_text_inner(inputs).err()))
    }

    fn render_text_inner(&self, inputs: &Map<String, Value>) -> Result<String, Error> {
        let (mut ctx, _) = self.context(inputs, DISPLAY_NONCE_BYTES)?;
        if self.profile == Profile::Promptflow {
            self.promptflow_images(&mut ctx, false)?;
            Escapes::escape(&mut ctx)?;
        }
        let engine = self.plain_engine()?;
        engine.render(&ctx, &self.limits, self.plain_body(), &self.location)
    }

    /// Validates inputs, renders, splits into messages and expands rich inputs.
    pub fn prepare(&self, inputs: &Map<String, Value>) -> Result<Vec<Message>, Error> {
        self.prepare_inner(inputs).map_err(|e| self.without_secrets(e, |r| r.prepare_inner(inputs).err()))
    }

    fn prepare_inner(&self, inputs: &Map<String, Value>) -> Result<Vec<Message>, Error> {
        let (mut ctx, rich) = self.context(inputs, RICH_NONCE_BYTES)?;
        match self.profile {
            Profile::Spec if self.strict => {
                // Every role line must be at a place of the template's own (a mark or a
                // direct place).
                let (text, places) = self.render_marked(&ctx)?;
                // The context doubles as the inputs an injection error names: the mark can
                // never hold a role line.
                let places = TemplatePlaces::new(places, &self.compiled.checks, &ctx);
                let messages = split_inner(&text, Some(&places), MAX_MESSAGES)?;
                if rich.is_empty() {
                    Ok(messages)
                } else {
                    expand_rich(messages, &rich, self.limits.max_output, self.thread_roles.as_deref())
                }
            }
            Profile::Spec => {
                let text = self.compiled.engine.render(&ctx, &self.limits, &self.compiled.body, &self.location)?;
                let messages = split_inner(&text, None, MAX_MESSAGES)?;
                if rich.is_empty() {
                    Ok(messages)
                } else {
                    expand_rich(messages, &rich, self.limits.max_output, self.thread_roles.as_deref())
                }
            }
            Profile::Promptflow => {
                // Image inputs print placeholders, which become image parts after the split.
                let images = self.promptflow_images(&mut ctx, true)?;
                // As promptflow does: role words on role lines of top-level string inputs are
                // replaced by placeholders before rendering and restored after the split.
                let escapes = Escapes::escape(&mut ctx)?;
                // Any other role line or label must be at a place of the template's own.
                let (text, places) = self.render_marked(&ctx)?;
                let places = TemplatePlaces::new(places, &self.compiled.checks, &ctx);
                let mut messages = split_checked(&text, Some(&places))?;
                apply_images(&mut messages, &images);
                escapes.restore(&mut messages);
                Ok(messages)
            }
        }
    }

    /// Renders the compiled template with a fresh mark (when it holds any): the text
    /// without the marks, and the places of the template's own role words, labels and line
    /// breaks ([`crate::compile`]).
    fn render_marked(&self, ctx: &Context<'_>) -> Result<(String, Vec<usize>), Error> {
        let c = &self.compiled;
        let mark = if c.marks > 0 { Some(Mark::new(random_u64()?)) } else { None };
        let marking = Marking { mark: mark.as_ref(), marks: c.marks, direct: &c.direct };
        c.engine.render_marked(ctx, marking, &self.limits, &c.body, &self.location)
    }

    /// Renders a Jinja template into provenance segments: literal template text and
    /// interpolated values with the input they came from. A strict input (`strict: true`
    /// or named in `strict_inputs`) whose value forges a role line is an error.
    pub fn render_segments(
        &self,
        inputs: &Map<String, Value>,
        strict_inputs: &[String],
    ) -> Result<Vec<Segment>, Error> {
        self.render_segments_inner(inputs, strict_inputs)
            .map_err(|e| self.without_secrets(e, |r| r.render_segments_inner(inputs, strict_inputs).err()))
    }

    fn render_segments_inner(
        &self,
        inputs: &Map<String, Value>,
        strict_inputs: &[String],
    ) -> Result<Vec<Segment>, Error> {
        let (ctx, _) = self.context(inputs, DISPLAY_NONCE_BYTES)?;
        let is_strict = |name: &str| {
            strict_inputs.iter().any(|s| s == name) || self.prompt.input(name).is_some_and(|p| p.strict == Some(true))
        };
        let engine = self.plain_engine()?;
        let body = self.prompt.instructions.as_deref().unwrap_or("");
        let (text, exprs) = engine.render_with_spans(&ctx, &self.limits, body, &self.location)?;
        let mut segments: Vec<Segment> = Vec::new();
        let mut pos = 0;
        let push_literal = |segments: &mut Vec<Segment>, s: &str| {
            if s.is_empty() {
                return;
            }
            match segments.last_mut() {
                Some(last) if last.kind == "literal" => last.text.push_str(s),
                _ => segments.push(Segment { kind: "literal", text: s.to_owned(), source: None, strict: false }),
            }
        };
        for (range, expr) in exprs {
            if range.start < pos {
                continue;
            }
            push_literal(&mut segments, text.get(pos..range.start).unwrap_or(""));
            let value = text.get(range.clone()).unwrap_or("").to_owned();
            let source = root_variable(&expr);
            let strict = source.as_deref().is_some_and(is_strict);
            if strict && forges_boundary(&value) {
                let name = source.clone().unwrap_or_default();
                return Err(Error::new(
                    ErrorKind::Injection,
                    format!("StrictViolation: strict input `{name}` contains a role line"),
                )
                .with_input(name));
            }
            segments.push(Segment { kind: "interp", text: value, source, strict });
            pos = range.end;
        }
        push_literal(&mut segments, text.get(pos..).unwrap_or(""));
        Ok(segments)
    }

    /// `e` without the values `${env:}` supplied (input defaults, the v1 sample). A message
    /// may quote rendered text, even cut short, so the render is repeated with each such
    /// value replaced by its reference; when that fails the same way, its error is the one
    /// shown. Otherwise every occurrence of a value in `e` is replaced.
    fn without_secrets(&self, e: Error, again: impl Fn(&Renderer) -> Option<Error>) -> Error {
        let secrets = &self.prompt.secrets;
        if secrets.is_empty() {
            return e;
        }
        let options = RenderOptions {
            limits: self.limits,
            profile: Some(self.profile),
            source: self.location.file.clone(),
            thread_roles: self.thread_roles.clone(),
        };
        let shown = Renderer::build(self.prompt.redacted_inputs(), options, None).ok().and_then(|r| again(&r));
        match shown {
            Some(same) if same.kind() == e.kind() && same.span() == e.span() => same.redacted(secrets),
            _ => e.redacted(secrets),
        }
    }

    fn plain_engine(&self) -> Result<&Engine, Error> {
        // Without nonces or marks the compiled body is the plain body.
        if self.compiled.marks == 0 {
            return Ok(&self.compiled.engine);
        }
        let compiled = self.plain.get_or_init(|| {
            Engine::compile(self.format, self.plain_body().to_owned(), self.profile, &self.limits, &self.location)
        });
        compiled.as_ref().map_err(Clone::clone)
    }

    /// The template as rendered without nonces or marks.
    fn plain_body(&self) -> &str {
        self.prepassed.as_deref().or(self.prompt.instructions.as_deref()).unwrap_or("")
    }

    /// promptflow's image inputs: each top-level string input written
    /// `data:image/<type>;(base64|url): ...` is replaced by a fresh placeholder (`placeholders`)
    /// or by the `Image(...)` text promptflow prints for it.
    fn promptflow_images(&self, ctx: &mut Context<'_>, placeholders: bool) -> Result<Vec<PfImage>, Error> {
        let mut images = Vec::new();
        let mut found = Vec::new();
        for (name, v) in ctx.iter() {
            if let Value::String(s) = v
                && s.starts_with("data:image/")
                && let Some((url, text)) = image_of(name, s)?
            {
                found.push((name.to_owned(), url, text));
            }
        }
        for (name, url, text) in found {
            let shown = if placeholders {
                let mut b = [0u8; 16];
                random_fill(&mut b)?;
                pfimage::placeholder(u128::from_le_bytes(b))
            } else {
                text.clone()
            };
            ctx.set(&name, Value::String(shown.clone()));
            images.push(PfImage { url, text, placeholder: shown });
        }
        Ok(images)
    }

    /// Validated inputs with rich inputs replaced by nonces of `nonce_bytes` random bytes,
    /// and the rich values.
    fn context<'a>(
        &'a self,
        inputs: &'a Map<String, Value>,
        nonce_bytes: usize,
    ) -> Result<(Context<'a>, Vec<RichInput>), Error> {
        let mut ctx = Context::new(self.prompt.resolve_inputs(inputs)?);
        check_reserved(&ctx)?;
        for p in self.prompt.inputs.iter().flatten() {
            if p.strict == Some(true)
                && let Some(Value::String(s)) = ctx.get(&p.name)
                && forges_boundary(s)
            {
                return Err(Error::new(
                    ErrorKind::Injection,
                    format!("StrictViolation: strict input `{}` contains a role line", p.name),
                )
                .with_input(p.name.clone()));
            }
        }
        let mut rich = Vec::new();
        if self.profile == Profile::Spec {
            for (name, kind) in &self.rich {
                let Some(original) = ctx.get(name).cloned() else { continue };
                let nonce = format!("__PROMPTY_THREAD_{}_{name}__", random_hex(nonce_bytes)?);
                ctx.set(name, Value::String(nonce.clone()));
                rich.push(RichInput { name: name.clone(), kind: *kind, value: original, nonce });
            }
        }
        Ok((ctx, rich))
    }
}

/// Names the renderer keeps for its own variables. No input may use one, as its name or as
/// a key anywhere inside its value: a Mustache section looks names up in its item first, so
/// an item holding one would stand in for the mark inside the section.
const RESERVED: [&str; 2] = [MARK_VAR, NONCE_VAR];

/// Refuses inputs that use a [`RESERVED`] name.
fn check_reserved(ctx: &Context<'_>) -> Result<(), Error> {
    for (name, value) in ctx.iter() {
        if RESERVED.contains(&name) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("input `{name}`: the name is reserved for the renderer's own marks; rename the input"),
            )
            .with_input(name));
        }
        if let Some(key) = reserved_key(value) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "input `{name}` holds the key `{key}`, which is reserved for the renderer's own marks; rename the key"
                ),
            )
            .with_input(name));
        }
    }
    Ok(())
}

/// The first reserved name used as a key anywhere in `value` (walked without recursion).
fn reserved_key(value: &Value) -> Option<&'static str> {
    if !matches!(value, Value::Object(_) | Value::Array(_)) {
        return None;
    }
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(key) = RESERVED.into_iter().find(|k| o.contains_key(*k)) {
                    return Some(key);
                }
                stack.extend(o.values().filter(|v| matches!(v, Value::Object(_) | Value::Array(_))));
            }
            Value::Array(a) => stack.extend(a.iter().filter(|v| matches!(v, Value::Object(_) | Value::Array(_)))),
            _ => {}
        }
    }
    None
}

/// The input name an interpolation reads: `q`, `user.name` -> `user`, `q | upper` -> `q`.
fn root_variable(expr: &str) -> Option<String> {
    let name: String = expr.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
}

/// Bytes from the operating system's CSPRNG, fetched 512 at a time per thread; every byte
/// is handed out once.
struct RandomPool {
    buf: [u8; 512],
    used: usize,
}

thread_local! {
    static POOL: std::cell::RefCell<RandomPool> = const { std::cell::RefCell::new(RandomPool { buf: [0; 512], used: 512 }) };
}

/// Fills `out` (at most 16 bytes) with fresh random bytes.
fn random_fill(out: &mut [u8]) -> Result<(), Error> {
    let n = out.len().min(16);
    POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        if pool.used + n > pool.buf.len() {
            getrandom::fill(&mut pool.buf)
                .map_err(|e| Error::new(ErrorKind::InvalidInput, format!("no random source: {e}")))?;
            pool.used = 0;
        }
        let start = pool.used;
        pool.used += n;
        if let (Some(dst), Some(src)) = (out.get_mut(..n), pool.buf.get(start..start + n)) {
            dst.copy_from_slice(src);
        }
        Ok(())
    })
}

/// `n` (at most 16) fresh random bytes as lowercase hex.
fn random_hex(n: usize) -> Result<String, Error> {
    let mut b = [0u8; 16];
    let n = n.min(16);
    random_fill(b.get_mut(..n).unwrap_or_default())?;
    let mut s = String::with_capacity(n * 2);
    for b in b.get(..n).unwrap_or_default() {
        s.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        s.push(char::from_digit(u32::from(b & 0xf), 16).unwrap_or('0'));
    }
    Ok(s)
}

/// A fresh random `u64`.
fn random_u64() -> Result<u64, Error> {
    let mut b = [0u8; 8];
    random_fill(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_keep_attributes() {
        // Strict mode marks the template's role lines; their attributes stay metadata, and
        // the attribute text the template wrote is what the split reads.
        let text = "---\nname: t\ninputs:\n  q: {kind: string, default: x}\n---\nsystem:\nhi\n# User[name=Bob]:\n{{q}}";
        let prompt =
            prompty_syntax::load_str(text, &prompty_syntax::MapHost::new(), &Default::default()).prompt.expect("loads");
        let renderer = Renderer::new(prompt).expect("compiles");
        // Both role lines are written straight to the output: no marks, two direct places.
        assert_eq!(
            (renderer.compiled.body.as_str(), renderer.compiled.marks),
            ("system:\nhi\n# User[name=Bob]:\n{{q}}", 0)
        );
        let words: Vec<&str> = renderer.compiled.direct.iter().map(|&p| &renderer.compiled.body[p..p + 4]).collect();
        assert_eq!(words, ["syst", "User"]);
        let ms = renderer.prepare(&Map::new()).expect("renders");
        assert_eq!(ms[1].metadata.get("name"), Some(&Value::String("Bob".into())));
        assert_eq!(ms[1].text_content(), "x");
    }

    #[test]
    fn hex_is_fresh() {
        // Across pool refills too: no nonce repeats.
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            assert!(seen.insert(random_hex(8).expect("rng")), "a nonce repeated");
        }
        let a = random_hex(8).expect("rng");
        let b = random_hex(8).expect("rng");
        assert_eq!(a.len(), 16);
        assert_ne!(a, b);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    }

    #[test]
    fn renderer_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Renderer>();
    }
}
