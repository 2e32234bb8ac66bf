//! The renderer's diagnostic codes, one per [`ErrorKind`](crate::ErrorKind). Codes are
//! stable: never renumber, only add.

prompty_syntax::define_codes! {
    MISSING_INPUTS = "PR001", "missing-inputs", Error, "A required input has no value and no default.";
    UNKNOWN_ENGINE = "PR002", "unknown-engine", Error, "The template format or parser is not one this build renders.";
    TEMPLATE_SYNTAX = "PR003", "template-syntax", Error, "The template does not parse, nests too deeply, or builds values that could grow without bound.";
    TEMPLATE_RENDER = "PR004", "template-render", Error, "The template failed while rendering: a bad filter argument, a type error, an undefined value in strict mode.";
    INJECTION = "PR005", "input-injection", Error, "An input value tried to create or change a message (a role line or a message marker in the value).";
    LIMIT = "PR006", "render-limit", Error, "Rendering hit a limit of the render budget: steps, output size or recursion.";
    MESSAGE_SPLIT = "PR007", "message-split", Error, "The rendered text cannot be split into chat messages.";
    INVALID_INPUT = "PR008", "invalid-input", Error, "An input value has a shape rendering cannot use.";
    UNSUPPORTED = "PR009", "unsupported-operation", Error, "The operation is not available for this template format.";
}
