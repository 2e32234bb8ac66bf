//! The Handlebars engine's layer over the handlebars crate: the render budget, the marks
//! spliced into the compiled template (see [`crate::compile`]), and where the format reads a
//! template as handlebars.js does ([`compat`]).
//!
//! ## The budget
//!
//! The handlebars crate has no limits of its own, so the compiled template is checked and
//! instrumented before it is registered:
//!
//! * an inline partial that calls a partial is refused (the only way one template can
//!   recurse), and so is a partial block (`{{#> p}}...{{/p}}`) whose body would be
//!   rendered into a buffer and thrown away (its partial is an inline partial of the
//!   template, or its name is computed): output nobody sees could grow past any cap;
//! * every block body (each branch of `#if`, every `#each` item, inline partial bodies)
//!   starts with a call of a silent helper that counts one step against the budget, so
//!   that nested loops stop even when they print nothing;
//! * rendering writes through a writer that refuses to grow past the output cap, so a
//!   huge output stops when it reaches the cap instead of being built first.

pub(crate) mod compat;

use std::cell::Cell;

use handlebars::template::{HelperTemplate, Parameter, Template, TemplateElement, TemplateMapping};
use handlebars::{Context, Handlebars, Helper, HelperResult, Output, RenderContext, RenderErrorReason};

use crate::mark::{MARK_VAR, Mark};

/// The helper name of the step counter. It writes nothing.
const STEP_HELPER: &str = "__prompty_step";

thread_local! {
    /// Steps left for the render running on this thread (`u64::MAX` outside a render).
    static STEPS_LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// Whether the render on this thread ran out of steps.
    static EXHAUSTED: Cell<bool> = const { Cell::new(false) };
    /// The mark of the render running on this thread, if it has one.
    static MARK: Cell<Option<Mark>> = const { Cell::new(None) };
}

/// Writes the render's mark (see [`crate::compile`]). A helper rather than a variable: the
/// template's data holds no mark, so no `lookup`, `#each` or path over the inputs reaches
/// it, and an input cannot stand in for it.
fn mark_helper(
    _: &Helper<'_>,
    _: &Handlebars<'_>,
    _: &Context,
    _: &mut RenderContext<'_, '_>,
    out: &mut dyn Output,
) -> HelperResult {
    match MARK.with(Cell::get) {
        Some(mark) => out.write(mark.as_str()).map_err(Into::into),
        None => Ok(()),
    }
}

/// Counts one step; fails once the render's steps are spent.
fn step_helper(
    _: &Helper<'_>,
    _: &Handlebars<'_>,
    _: &Context,
    _: &mut RenderContext<'_, '_>,
    _: &mut dyn Output,
) -> HelperResult {
    let left = STEPS_LEFT.with(Cell::get);
    if left == 0 {
        EXHAUSTED.with(|e| e.set(true));
        return Err(RenderErrorReason::Other("the step limit was reached".to_owned()).into());
    }
    STEPS_LEFT.with(|s| s.set(left - 1));
    Ok(())
}

/// Installs a step budget and the render's mark on this thread for the duration of one
/// render.
pub(crate) struct RenderScope {
    previous: (u64, bool, Option<Mark>),
}

impl RenderScope {
    pub(crate) fn start(steps: u64, mark: Option<Mark>) -> Self {
        let previous = (
            STEPS_LEFT.with(|s| s.replace(steps)),
            EXHAUSTED.with(|e| e.replace(false)),
            MARK.with(|m| m.replace(mark)),
        );
        RenderScope { previous }
    }

    /// Whether the render ran out of steps.
    pub(crate) fn exhausted(&self) -> bool {
        EXHAUSTED.with(Cell::get)
    }
}

impl Drop for RenderScope {
    fn drop(&mut self) {
        STEPS_LEFT.with(|s| s.set(self.previous.0));
        EXHAUSTED.with(|e| e.set(self.previous.1));
        MARK.with(|m| m.set(self.previous.2));
    }
}

/// Why a template is refused before it is registered.
pub(crate) const RECURSIVE_PARTIAL: &str =
    "an inline partial calls a partial; partials may not nest (they could recurse without end)";
pub(crate) const DISCARDED_PARTIAL_BLOCK: &str = "the body of this partial block would be rendered and thrown away \
     (its partial is an inline partial of this template, or its name is computed); write `{{> name}}` instead";

/// Why a template is refused, and at which (line, column) of the body when known.
pub(crate) type Refusal = (&'static str, Option<(usize, usize)>);

/// Checks and instruments the template registered as `name`, and registers the step helper.
pub(crate) fn prepare(hb: &mut Handlebars<'static>, name: &str) -> Result<(), Refusal> {
    let Some(template) = hb.get_template(name) else { return Ok(()) };
    if inline_calls_partial(&template.elements, false) {
        return Err((RECURSIVE_PARTIAL, None));
    }
    let mut inline = Vec::new();
    inline_names(&template.elements, &mut inline);
    if let Some(at) = discarded_partial_block(template, &inline) {
        return Err((DISCARDED_PARTIAL_BLOCK, at));
    }
    let tick = Template::compile(&format!("{{{{{STEP_HELPER}}}}}"))
        .ok()
        .and_then(|t| t.elements.into_iter().next().zip(t.mapping.into_iter().next()));
    let mut instrumented = template.clone();
    if let Some((tick, start)) = &tick {
        add_steps(&mut instrumented, tick, start.clone(), true);
    }
    hb.register_template(name, instrumented);
    hb.register_helper(STEP_HELPER, Box::new(step_helper));
    hb.register_helper(MARK_VAR, Box::new(mark_helper));
    Ok(())
}

/// Adds a step at the start of `template` (and of every block body inside it).
fn add_steps(template: &mut Template, tick: &TemplateElement, at: TemplateMapping, count_here: bool) {
    use TemplateElement as E;
    for (element, mapping) in template.elements.iter_mut().zip(template.mapping.iter()) {
        let at = mapping.clone();
        match element {
            E::HelperBlock(h) => {
                for t in [&mut h.template, &mut h.inverse].into_iter().flatten() {
                    add_steps(t, tick, at.clone(), true);
                }
            }
            E::DecoratorBlock(d) | E::PartialBlock(d) => {
                if let Some(t) = &mut d.template {
                    add_steps(t, tick, at, true);
                }
            }
            _ => {}
        }
    }
    if count_here {
        template.elements.insert(0, tick.clone());
        template.mapping.insert(0, at);
    }
}

/// Whether a partial is called inside an inline partial's body: the only way a
/// single Handlebars template can recurse, which the engine does without a depth limit.
fn inline_calls_partial(elements: &[TemplateElement], in_inline: bool) -> bool {
    use TemplateElement as E;
    elements.iter().any(|e| match e {
        E::PartialExpression(_) | E::PartialBlock(_) if in_inline => true,
        E::PartialBlock(d) | E::DecoratorBlock(d) => {
            let inline = in_inline || matches!(e, E::DecoratorBlock(_));
            d.template.as_ref().is_some_and(|t| inline_calls_partial(&t.elements, inline))
        }
        E::HelperBlock(h) => {
            [&h.template, &h.inverse].into_iter().flatten().any(|t| inline_calls_partial(&t.elements, in_inline))
        }
        _ => false,
    })
}

/// The names of the inline partials the template declares (`{{#*inline "name"}}`).
fn inline_names(elements: &[TemplateElement], out: &mut Vec<String>) {
    use TemplateElement as E;
    for e in elements {
        match e {
            E::DecoratorBlock(d) | E::PartialBlock(d) => {
                if let E::DecoratorBlock(_) = e
                    && d.name.as_name() == Some("inline")
                    && let Some(Parameter::Literal(serde_json::Value::String(n))) = d.params.first()
                {
                    out.push(n.clone());
                }
                if let Some(t) = &d.template {
                    inline_names(&t.elements, out);
                }
            }
            E::HelperBlock(h) => {
                for t in [&h.template, &h.inverse].into_iter().flatten() {
                    inline_names(&t.elements, out);
                }
            }
            _ => {}
        }
    }
}

/// The position of the first partial block whose body would be rendered into a buffer
/// and dropped: its partial exists (an inline partial of this template) or may exist (a
/// computed name). Returns `Some(None)` when the position is unknown.
fn discarded_partial_block(template: &Template, inline: &[String]) -> Option<Option<(usize, usize)>> {
    use TemplateElement as E;
    for (e, mapping) in template.elements.iter().zip(template.mapping.iter().map(Some).chain(std::iter::repeat(None))) {
        let at = mapping.map(|m| (m.0, m.1));
        match e {
            E::PartialBlock(d) => {
                let name = match &d.name {
                    Parameter::Literal(serde_json::Value::String(s)) => Some(s.as_str()),
                    Parameter::Subexpression(_) | Parameter::Literal(_) => None,
                    other => other.as_name(),
                };
                let discarded = name.is_none_or(|n| inline.iter().any(|i| i == n));
                if discarded {
                    return Some(at);
                }
                if let Some(found) = d.template.as_ref().and_then(|t| discarded_partial_block(t, inline)) {
                    return Some(found);
                }
            }
            E::DecoratorBlock(d) => {
                if let Some(found) = d.template.as_ref().and_then(|t| discarded_partial_block(t, inline)) {
                    return Some(found);
                }
            }
            E::HelperBlock(h) => {
                for t in [&h.template, &h.inverse].into_iter().flatten() {
                    if let Some(found) = discarded_partial_block(t, inline) {
                        return Some(found);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `h` is the step counter this module adds at the start of every block body.
pub(crate) fn is_step(h: &HelperTemplate) -> bool {
    h.name.as_name() == Some(STEP_HELPER)
}

/// Whether `h` is a block of the `raw` helper (`{{{{raw}}}}...{{{{/raw}}}}` or `{{#raw}}`),
/// whose body is text the handlebars crate writes without reading tags in it.
pub(crate) fn is_raw(h: &HelperTemplate) -> bool {
    h.block && h.name.as_name() == Some("raw")
}

/// The bodies of an element, in the order they render: a block's body, then its `else`.
fn bodies_mut(e: &mut TemplateElement) -> Vec<&mut Template> {
    use TemplateElement as E;
    match e {
        E::HelperBlock(h) => [&mut h.template, &mut h.inverse].into_iter().flatten().collect(),
        E::DecoratorBlock(d) | E::PartialBlock(d) => d.template.iter_mut().collect(),
        _ => Vec::new(),
    }
}

fn bodies(e: &TemplateElement) -> Vec<&Template> {
    use TemplateElement as E;
    match e {
        E::HelperBlock(h) => [&h.template, &h.inverse].into_iter().flatten().collect(),
        E::DecoratorBlock(d) | E::PartialBlock(d) => d.template.iter().collect(),
        _ => Vec::new(),
    }
}

/// How many raw strings a template holds, nested bodies included.
pub(crate) fn raw_strings(t: &Template) -> usize {
    t.elements
        .iter()
        .map(|e| match e {
            TemplateElement::RawString(_) => 1,
            other => bodies(other).into_iter().map(raw_strings).sum(),
        })
        .sum()
}

/// Splits raw strings of `template` to put the mark helper's call (`{{__prompty_mark}}`,
/// a helper, which no block context or data can shadow) at each (raw string, byte offset) of `places`. Raw
/// strings are counted in pre-order: a template's elements in order, a block's body before
/// its `else`, as [`crate::layout::handlebars`] counts them.
pub(crate) fn splice_marks(template: &mut Template, places: &[(usize, usize)]) {
    let Ok(mark) = Template::compile(&format!("{{{{{MARK_VAR}}}}}")) else { return };
    let Some(mark) = mark.elements.into_iter().next() else { return };
    let mut places = places.to_vec();
    places.sort_unstable();
    splice(template, &places, &mut 0, &mark);
}

fn splice(t: &mut Template, places: &[(usize, usize)], next: &mut usize, mark: &TemplateElement) {
    let elements = std::mem::take(&mut t.elements);
    let mut mapping = std::mem::take(&mut t.mapping).into_iter();
    for mut e in elements {
        let at = mapping.next();
        let push = |t: &mut Template, e: TemplateElement| {
            t.elements.push(e);
            if let Some(m) = &at {
                t.mapping.push(m.clone());
            }
        };
        let TemplateElement::RawString(text) = &e else {
            for body in bodies_mut(&mut e) {
                splice(body, places, next, mark);
            }
            push(t, e);
            continue;
        };
        let index = *next;
        *next += 1;
        let from = places.partition_point(|p| p.0 < index);
        let to = places.partition_point(|p| p.0 <= index);
        let Some(offsets) = places.get(from..to).filter(|o| !o.is_empty()) else {
            push(t, e);
            continue;
        };
        let mut start = 0;
        for &(_, offset) in offsets {
            if let Some(piece) = text.get(start..offset).filter(|p| !p.is_empty()) {
                push(t, TemplateElement::RawString(piece.to_owned()));
            }
            push(t, mark.clone());
            start = offset;
        }
        if let Some(piece) = text.get(start..).filter(|p| !p.is_empty()) {
            push(t, TemplateElement::RawString(piece.to_owned()));
        }
    }
    // Mapping entries past the elements (none in practice) are kept as they were.
    t.mapping.extend(mapping);
}
