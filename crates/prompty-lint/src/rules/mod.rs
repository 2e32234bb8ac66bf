//! The rule catalog: one rule per file, each with its rustdoc in fixed sections, and the
//! registry that runs them in code order.
//!
//! Adding a rule: write `src/rules/<rule_name>.rs` with [`declare_rule!`] (the next free
//! code, a kebab-case name, the severity, `fix: None`, `Safe` or `Unsafe`) and a `check` function, add it
//! to [`REGISTRY`], add `tests/fixtures/<CODE>_fires.prompty` and `<CODE>_clean.prompty`,
//! then run the tests with `INSTA_UPDATE=always` and `PROMPTY_UPDATE_DOCS=1` and review the
//! new snapshot and `docs/rules.md`. Codes are stable: never renumber, only add.

use crate::context::Context;
use crate::{Finding, RuleMeta};

/// The applicability a rule declares: `None`, `Safe` or `Unsafe`.
macro_rules! fix_of {
    (None) => {
        None
    };
    ($applicability:ident) => {
        Some($crate::Applicability::$applicability)
    };
}

/// Declares a rule: its documentation (the doc comment), code, name, severity and the
/// applicability of its fixes (`None` when it has none).
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub(crate) struct $name:ident {
            code: $code:literal,
            name: $rule_name:literal,
            severity: $severity:ident,
            fix: $fix:ident,
        }
    ) => {
        $(#[doc = $doc])*
        pub(crate) struct $name;

        impl $name {
            pub(crate) const META: $crate::RuleMeta = $crate::RuleMeta {
                code: prompty_syntax::Code { id: $code, name: $rule_name },
                severity: prompty_syntax::Severity::$severity,
                fix: fix_of!($fix),
                docs: concat!($($doc, "\n"),*),
            };
        }
    };
}

mod context_window_exceeded;
mod default_kind_mismatch;
mod default_not_in_enum;
mod developer_role_in_v1;
mod empty_message;
mod env_without_default;
mod hardcoded_secret;
mod invalid_evaluator_config;
mod invalid_input_case;
mod invalid_suppression;
mod json_mode_without_json;
mod malformed_role_attributes;
mod misspelt_role;
mod mustache_html_escape;
mod repeated_role;
mod required_with_default;
mod role_in_control_block;
mod role_line_after_value;
mod role_line_trailing_whitespace;
mod role_line_with_text;
mod strict_disabled;
mod template_syntax_error;
mod text_before_first_role;
mod thread_not_on_own_line;
mod too_many_messages;
mod undeclared_variable;
mod unknown_filter;
mod unresolved_reference;
mod unused_input;
mod v1_role_in_v2;
mod value_in_role_attributes;

pub(crate) use invalid_input_case::check_cases;
pub(crate) use invalid_suppression::InvalidSuppression;
pub(crate) use too_many_messages::check as too_many_messages_check;
pub(crate) use undeclared_variable::{UndeclaredVariable, undeclared};

/// A rule in the registry.
pub(crate) struct Registered {
    pub(crate) meta: RuleMeta,
    pub(crate) check: fn(&Context<'_>, &mut Vec<Finding>),
}

macro_rules! registry {
    ($($module:ident :: $rule:ident),* $(,)?) => {
        /// Every rule, in code order.
        pub(crate) const REGISTRY: &[Registered] = &[
            $(Registered { meta: $module::$rule::META, check: $module::check }),*
        ];
    };
}

registry! {
    undeclared_variable::UndeclaredVariable,
    unused_input::UnusedInput,
    required_with_default::RequiredWithDefault,
    default_kind_mismatch::DefaultKindMismatch,
    mustache_html_escape::MustacheHtmlEscape,
    json_mode_without_json::JsonModeWithoutJson,
    misspelt_role::MisspeltRole,
    role_line_with_text::RoleLineWithText,
    text_before_first_role::TextBeforeFirstRole,
    empty_message::EmptyMessage,
    repeated_role::RepeatedRole,
    template_syntax_error::TemplateSyntaxError,
    env_without_default::EnvWithoutDefault,
    unresolved_reference::UnresolvedReference,
    role_in_control_block::RoleInControlBlock,
    thread_not_on_own_line::ThreadNotOnOwnLine,
    developer_role_in_v1::DeveloperRoleInV1,
    v1_role_in_v2::V1RoleInV2,
    role_line_trailing_whitespace::RoleLineTrailingWhitespace,
    unknown_filter::UnknownFilter,
    default_not_in_enum::DefaultNotInEnum,
    invalid_suppression::InvalidSuppression,
    malformed_role_attributes::MalformedRoleAttributes,
    strict_disabled::StrictDisabled,
    hardcoded_secret::HardcodedSecret,
    invalid_evaluator_config::InvalidEvaluatorConfig,
    invalid_input_case::InvalidInputCase,
    value_in_role_attributes::ValueInRoleAttributes,
    too_many_messages::TooManyMessages,
    context_window_exceeded::ContextWindowExceeded,
    role_line_after_value::RoleLineAfterValue,
}

#[cfg(test)]
mod tests {
    use super::REGISTRY;

    #[test]
    fn codes_are_sequential_unique_and_documented() {
        for (i, rule) in REGISTRY.iter().enumerate() {
            assert_eq!(rule.meta.code.id, format!("PL{:03}", i + 1), "codes follow registry order");
            for section in ["## What it does", "## Why is this bad?", "## Example", "## Use instead"] {
                assert!(rule.meta.docs.contains(section), "{} lacks `{section}`", rule.meta.code.id);
            }
        }
    }
}
