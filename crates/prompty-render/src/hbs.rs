//! The Handlebars engine's share of the render budget.
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

use std::cell::Cell;

use handlebars::template::{Parameter, Template, TemplateElement, TemplateMapping};
use handlebars::{Context, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext, RenderErrorReason};

/// The helper name of the step counter. It writes nothing.
const STEP_HELPER: &str = "__prompty_step";

thread_local! {
    /// Steps left for the render running on this thread (`u64::MAX` outside a render).
    static STEPS_LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// Whether the render on this thread ran out of steps.
    static EXHAUSTED: Cell<bool> = const { Cell::new(false) };
}

/// Counts one step; fails once the render's steps are spent.
struct StepHelper;

impl HelperDef for StepHelper {
    fn call<'reg: 'rc, 'rc>(
        &self,
        _: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        _: &'rc Context,
        _: &mut RenderContext<'reg, 'rc>,
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
}

/// Installs a step budget on this thread for the duration of one render.
pub(crate) struct StepBudget {
    previous: (u64, bool),
}

impl StepBudget {
    pub(crate) fn start(steps: u64) -> Self {
        let previous = (STEPS_LEFT.with(|s| s.replace(steps)), EXHAUSTED.with(|e| e.replace(false)));
        StepBudget { previous }
    }

    /// Whether the render ran out of steps.
    pub(crate) fn exhausted(&self) -> bool {
        EXHAUSTED.with(Cell::get)
    }
}

impl Drop for StepBudget {
    fn drop(&mut self) {
        STEPS_LEFT.with(|s| s.set(self.previous.0));
        EXHAUSTED.with(|e| e.set(self.previous.1));
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
    hb.register_helper(STEP_HELPER, Box::new(StepHelper));
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
