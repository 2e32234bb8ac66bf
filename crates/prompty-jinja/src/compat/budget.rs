//! The render budget as the filters, tests and methods of this layer (and the `%`, `<`,
//! `in` operators minijinja hands to them) see it.
//!
//! minijinja charges each call one step of fuel, plus the string its input is and the value
//! it returns. What happens in between is charged here, in the same units (one step pays
//! for `BYTES_PER_STEP` bytes or `ITEMS_PER_STEP` items): every call runs in a
//! `metered` scope, and the helpers it uses charge (`spend_bytes`, `spend_items`) the
//! bytes and items they visit or build, so that the work of one call is in proportion to
//! what it produces and reads, not one step whatever its size. Before a value is built, its
//! size is checked (`reserve`, `reserve_items`, `Text`): no value may be larger than the
//! render's output limit ([`start`]), nor than what the fuel left can pay for.
//! A refusal is an out-of-fuel error whose message names the call and the limit; the
//! renderer reports it as a limit error ([`is_refusal`]).
//!
//! The budget of the render running on this thread is set by [`start`] (the renderer calls
//! it with each render's limits); outside a scope (or a render) nothing is charged, and values
//! are capped by the default output limit.

use std::cell::Cell;
use std::fmt;

use minijinja::{Error, ErrorKind, State};

/// The bytes one step of fuel pays for (minijinja's own rate).
pub(crate) const BYTES_PER_STEP: u64 = 64;
/// The items (list slots, items visited) one step of fuel pays for (minijinja's own rate).
pub(crate) const ITEMS_PER_STEP: u64 = 2;
/// What one item costs in the budget's unit, the byte.
const ITEM_BYTES: u64 = BYTES_PER_STEP / ITEMS_PER_STEP;

/// A call of the layer, as refusals name it: "the `indent` filter".
#[derive(Clone, Copy)]
pub(crate) struct What {
    /// `filter`, `test`, `method` or `operator`.
    pub(crate) kind: &'static str,
    pub(crate) name: &'static str,
}

impl fmt::Display for What {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the `{}` {}", self.name, self.kind)
    }
}

const UNNAMED: What = What { kind: "call", name: "?" };

/// The scope of one call: what it is, and what it may still spend (in bytes of fuel).
#[derive(Clone, Copy)]
struct Meter {
    what: What,
    /// What the fuel left at the start of the call pays for, in bytes.
    left: u64,
    spent: u64,
    /// Set when a charge did not fit: the call is refused even if it went on.
    refused: bool,
}

thread_local! {
    /// `max_output` and `steps` of the render running on this thread ([`start`]).
    static LIMITS: Cell<(usize, u64)> = const { Cell::new((DEFAULT_MAX_OUTPUT, DEFAULT_STEPS)) };
    /// The innermost metered call running on this thread.
    static METER: Cell<Option<Meter>> = const { Cell::new(None) };
}

/// The output limit, in bytes, outside a render (and the renderer's default).
pub const DEFAULT_MAX_OUTPUT: usize = 32 * 1024 * 1024;
/// The fuel, in steps, outside a render (and the renderer's default).
pub const DEFAULT_STEPS: u64 = 1_000_000;

/// Sets the limits of the render starting on this thread: its output limit in bytes and its
/// fuel in steps (what the environment was given with `set_fuel`).
pub fn start(max_output: usize, steps: u64) {
    LIMITS.set((max_output, steps));
    METER.set(None);
}

/// The largest value, in bytes, one call may build: the render's output limit.
pub(crate) fn max_value_bytes() -> usize {
    LIMITS.get().0
}

/// Runs `call` (the filter, test, method or operator `what`) as a metered scope: what it
/// spends is taken from the render's fuel when it ends, and a charge that did not fit makes
/// it fail even if `call` went on (a helper that cannot return an error stops early).
pub(crate) fn metered<T>(
    state: &State<'_, '_>,
    what: What,
    call: impl FnOnce() -> Result<T, Error>,
) -> Result<T, Error> {
    let left = state.fuel_levels().map_or(u64::MAX, |(_, remaining)| remaining.saturating_mul(BYTES_PER_STEP));
    let outer = METER.replace(Some(Meter { what, left, spent: 0, refused: false }));
    let result = call();
    let inner = METER.replace(outer).unwrap_or(Meter { what, left, spent: 0, refused: false });
    if let Some(mut o) = outer {
        // The inner call's spending is paid from the fuel the outer one counted on.
        o.left = o.left.saturating_sub(inner.spent);
        METER.set(Some(o));
    }
    let charged = state.consume_fuel(inner.spent / BYTES_PER_STEP);
    if inner.refused || charged.is_err() {
        // Whatever catches this error, the render has no fuel left.
        let _ = state.consume_fuel(u64::MAX);
        return Err(match result {
            Err(e) if is_refusal(&e) => e,
            _ => out_of_fuel(inner.what),
        });
    }
    result
}

/// Charges `n` bytes built or visited by the running call.
pub(crate) fn spend_bytes(n: usize) -> Result<(), Error> {
    spend(u64::try_from(n).unwrap_or(u64::MAX))
}

/// Charges `n` items built or visited by the running call.
pub(crate) fn spend_items(n: usize) -> Result<(), Error> {
    spend(u64::try_from(n).unwrap_or(u64::MAX).saturating_mul(ITEM_BYTES))
}

/// [`spend_bytes`] for helpers that cannot return an error: `false` when the budget is
/// spent (the helper stops early; its scope then fails).
pub(crate) fn spend_bytes_ok(n: usize) -> bool {
    take(u64::try_from(n).unwrap_or(u64::MAX)).is_ok()
}

fn spend(bytes: u64) -> Result<(), Error> {
    match take(bytes) {
        Ok(()) => Ok(()),
        // The first refusal says why; later ones (a helper going on) are cheap, and the
        // scope reports the first.
        Err(Some(what)) => Err(out_of_fuel(what)),
        Err(None) => Err(Error::from(ErrorKind::OutOfFuel)),
    }
}

/// Takes `bytes` from the running call's budget: `Err(Some(call))` when this charge did
/// not fit, `Err(None)` when an earlier one did not.
fn take(bytes: u64) -> Result<(), Option<What>> {
    let Some(mut m) = METER.get() else { return Ok(()) };
    if m.refused {
        return Err(None);
    }
    m.spent = m.spent.saturating_add(bytes);
    let over = m.spent > m.left;
    m.refused = over;
    METER.set(Some(m));
    if over { Err(Some(m.what)) } else { Ok(()) }
}

/// What the running call may still build, in bytes: the output limit, or less when the
/// fuel left pays for less.
fn room() -> (usize, bool) {
    let cap = max_value_bytes();
    match METER.get() {
        Some(m) => {
            let fuel = usize::try_from(m.left.saturating_sub(m.spent)).unwrap_or(usize::MAX);
            if fuel < cap { (fuel, true) } else { (cap, false) }
        }
        None => (cap, false),
    }
}

/// Checks, before it is built, that a value of `bytes` bytes fits the budget (the result of
/// a call is charged when the call returns; this does not charge).
pub(crate) fn reserve(bytes: u128) -> Result<(), Error> {
    let (room, by_fuel) = room();
    if bytes <= room as u128 {
        return Ok(());
    }
    Err(if by_fuel { refuse_fuel() } else { over_cap(bytes) })
}

/// [`reserve`] for a list of `n` items.
pub(crate) fn reserve_items(n: u128) -> Result<(), Error> {
    reserve(n.saturating_mul(u128::from(ITEM_BYTES)))
}

fn refuse_fuel() -> Error {
    let what = match METER.get() {
        Some(mut m) => {
            m.refused = true;
            METER.set(Some(m));
            m.what
        }
        None => UNNAMED,
    };
    out_of_fuel(what)
}

/// The name of the running call.
fn current() -> What {
    METER.get().map_or(UNNAMED, |m| m.what)
}

/// Marks an error as a refusal of the budget, with its message for the user.
#[derive(Debug)]
pub(crate) struct Refusal;

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("render budget")
    }
}

impl std::error::Error for Refusal {}

/// Whether `e` (or an error it wraps) is a refusal of the budget: the renderer reports it as
/// a limit error rather than a template error.
pub fn is_refusal(e: &Error) -> bool {
    std::iter::successors(Some(e as &dyn std::error::Error), |e| e.source()).any(|e| e.is::<Refusal>())
}

/// A refusal with its own message (a limit the layer enforces besides the budget).
pub(crate) fn refusal(message: String) -> Error {
    Error::new(ErrorKind::OutOfFuel, message).with_source(Refusal)
}

fn out_of_fuel(what: What) -> Error {
    let steps = LIMITS.get().1;
    refusal(format!(
        "the template ran out of fuel in {what}: the render took more than {steps} steps (one step pays for \
         {BYTES_PER_STEP} bytes or {ITEMS_PER_STEP} items that a filter, test, method or comparison builds or \
         visits; is there a runaway loop?)"
    ))
}

/// The refusal of a walk over more than `max` items (a lazily repeated list).
pub(crate) fn too_many_items(max: usize) -> Error {
    refusal(format!(
        "{} would walk more than {max} items, the limit on one sequence a filter, test or method collects",
        current()
    ))
}

fn over_cap(bytes: u128) -> Error {
    let cap = max_value_bytes();
    refusal(format!(
        "{} would build a value of {bytes} bytes, more than the limit of {cap} bytes on one value (the render's \
         output limit)",
        current()
    ))
}

/// Text built under the budget: refuses (before growing) to hold more than the running
/// call may build ([`reserve`]).
pub(crate) struct Text {
    buf: String,
    room: usize,
    by_fuel: bool,
    /// Set when a write through `fmt::Write` was refused.
    over: Option<u128>,
}

impl Text {
    pub(crate) fn new() -> Self {
        let (room, by_fuel) = room();
        Self { buf: String::new(), room, by_fuel, over: None }
    }

    fn check(&mut self, add: usize) -> Result<(), Error> {
        let want = self.buf.len() as u128 + add as u128;
        if want <= self.room as u128 {
            return Ok(());
        }
        self.over = Some(want);
        Err(if self.by_fuel { refuse_fuel() } else { over_cap(want) })
    }

    pub(crate) fn push_str(&mut self, s: &str) -> Result<(), Error> {
        self.check(s.len())?;
        self.buf.push_str(s);
        Ok(())
    }

    pub(crate) fn push(&mut self, c: char) -> Result<(), Error> {
        self.check(c.len_utf8())?;
        self.buf.push(c);
        Ok(())
    }

    /// `c` written `n` times.
    pub(crate) fn push_repeated(&mut self, c: char, n: usize) -> Result<(), Error> {
        self.check(c.len_utf8().saturating_mul(n))?;
        self.buf.extend(std::iter::repeat_n(c, n));
        Ok(())
    }

    pub(crate) fn into_string(self) -> String {
        self.buf
    }

    /// The error of a refused `fmt::Write` write, or `fallback` for any other failure.
    pub(crate) fn error(&self, fallback: impl FnOnce() -> Error) -> Error {
        match self.over {
            Some(_) if self.by_fuel => out_of_fuel(current()),
            Some(want) => over_cap(want),
            None => fallback(),
        }
    }
}

impl fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s).map_err(|_| fmt::Error)
    }
}
