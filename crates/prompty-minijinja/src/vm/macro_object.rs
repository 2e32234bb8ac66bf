use std::fmt;
use std::sync::Arc;

use crate::error::{Error, ErrorKind};
use crate::output::Output;
use crate::utils::AutoEscape;
use crate::value::{Enumerator, Kwargs, Object, Value};
use crate::vm;
use crate::vm::state::State;

pub(crate) struct Macro {
    pub name: Value,
    pub arg_spec: Vec<Value>,
    // Values need to be 'static, so the macro cannot directly borrow the
    // instructions that declared it.  The instruction stream is registered
    // once on the render state and identified by its stable address.
    pub instructions_id: usize,
    pub offset: u32,
    pub state_id: isize,
    pub closure: Option<usize>,
    pub caller_reference: bool,
    pub catch_varargs: bool,
    pub catch_kwargs: bool,
}

impl fmt::Debug for Macro {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<macro {}>", self.name)
    }
}

impl Macro {
    /// Binds the arguments of a call as Jinja2's `Macro.__call__` does (prompty patch):
    /// positional arguments first, the remaining parameters from keyword arguments, then
    /// `caller`, `kwargs` (the keyword arguments left) and `varargs` (the positional arguments
    /// left) for a macro that reads them; left-over arguments of a macro that does not are
    /// errors.
    #[allow(clippy::type_complexity)]
    fn prepare_args(
        &self,
        args: &[Value],
    ) -> Result<(Vec<Value>, Vec<(&'static str, Value)>), Error> {
        let (args, kwargs) = match args.last() {
            Some(last) => match Kwargs::extract(last) {
                Some(kwargs) => (&args[..args.len() - 1], Some(kwargs)),
                None => (args, None),
            },
            _ => (args, None),
        };
        let mut rest: Vec<(Value, Value)> = kwargs
            .map(|k| {
                k.values
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let mut take = |name: &str| -> Option<Value> {
            let i = rest.iter().position(|(k, _)| k.as_str() == Some(name))?;
            Some(rest.remove(i).1)
        };

        let count = self.arg_spec.len();
        let mut arg_values: Vec<Value> = args.iter().take(count).cloned().collect();
        let mut found_caller = false;
        for name in self.arg_spec.iter().skip(arg_values.len()) {
            let name = name.as_str().unwrap_or_default();
            found_caller |= name == "caller";
            arg_values.push(take(name).unwrap_or(Value::UNDEFINED));
        }
        if arg_values.len() == args.len().min(count) && args.len() >= count {
            found_caller = self.arg_spec.iter().any(|n| n.as_str() == Some("caller"));
        }

        let mut specials = Vec::new();
        if self.caller_reference && !found_caller {
            specials.push(("caller", take("caller").unwrap_or(Value::UNDEFINED)));
        }
        if self.catch_kwargs {
            let map: crate::value::ValueMap = rest.into_iter().collect();
            specials.push(("kwargs", Value::from_object(map)));
        } else if let Some((key, _)) = rest.first() {
            return Err(Error::new(
                ErrorKind::TooManyArguments,
                format!("macro '{}' takes no keyword argument '{key}'", self.name),
            ));
        }
        if self.catch_varargs {
            let extra = args.get(count..).unwrap_or_default();
            specials.push((
                "varargs",
                Value::from_object(crate::value::Tuple::from(extra)),
            ));
        } else if args.len() > count {
            return Err(Error::new(
                ErrorKind::TooManyArguments,
                format!(
                    "macro '{}' takes not more than {count} argument(s)",
                    self.name
                ),
            ));
        }
        Ok((arg_values, specials))
    }
}

impl Object for Macro {
    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Str(&[
            "name",
            "arguments",
            "caller",
            "catch_varargs",
            "catch_kwargs",
        ])
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        Some(match some!(key.as_str()) {
            "name" => self.name.clone(),
            "arguments" => Value::from_object(crate::value::Tuple::from(&self.arg_spec[..])),
            "caller" => Value::from(self.caller_reference),
            "catch_varargs" => Value::from(self.catch_varargs),
            "catch_kwargs" => Value::from(self.catch_kwargs),
            _ => return None,
        })
    }

    fn call(self: &Arc<Self>, state: &mut State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        if state.id != self.state_id {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "cannot call this macro. template state went away.",
            ));
        }

        let (arg_values, specials) = ok!(self.prepare_args(args));
        let mut rv = String::new();
        ok!(vm::eval_macro(
            state,
            self.instructions_id,
            self.offset,
            &mut Output::new(&mut rv),
            self.closure,
            specials,
            arg_values
        ));

        Ok(if !matches!(state.auto_escape(), AutoEscape::None) {
            Value::from_safe_string(rv)
        } else {
            Value::from(rv)
        })
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<macro {}>", self.name)
    }
}
