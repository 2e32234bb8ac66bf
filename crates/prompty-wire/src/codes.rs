//! The wire compiler's diagnostic codes: `PW0xx` for each [`Error`](crate::Error) (the
//! request cannot be compiled or the response cannot be read) and `PW1xx` for each
//! [`Warning`](crate::Warning) (something was not sent as written). Codes are stable: never
//! renumber, only add.

prompty_syntax::define_codes! {
    UNKNOWN_PROVIDER = "PW001", "unknown-provider", Error, "`model.provider` names no provider this toolkit compiles for.";
    UNKNOWN_API = "PW002", "unknown-api", Error, "`model.apiType` names no API this toolkit compiles for.";
    UNSUPPORTED_API = "PW003", "unsupported-api", Error, "The provider has no such API (Anthropic takes only `chat`).";
    MISSING_MODEL = "PW004", "missing-model", Error, "Neither the prompt nor the command names a model id.";
    MISSING_DEPLOYMENT = "PW005", "missing-deployment", Error, "A v1 prompt names no deployment and none was given.";
    PROMPTFLOW_TARGET = "PW006", "v1-target", Error, "A v1 (promptflow) prompt compiles only to an OpenAI-style chat request.";
    PROMPTFLOW_API = "PW007", "v1-api", Error, "A v1 prompt's `model.api` is not `chat`.";
    UNSUPPORTED_TOOL = "PW008", "unsupported-tool", Error, "A tool whose kind the request format cannot express (only function tools compile).";
    SCHEMA_KIND = "PW009", "schema-kind", Error, "A tool parameter or output whose kind has no JSON Schema type.";
    EMPTY_UNION = "PW010", "empty-union", Error, "A union property without branches.";
    AMBIGUOUS_UNION = "PW011", "ambiguous-union", Error, "A union property with both `oneOf` and `anyOf`.";
    STRICT_ARRAY_ITEMS = "PW012", "strict-array-items", Error, "An array without `items` where strict mode needs them.";
    UNSUPPORTED_PART = "PW013", "unsupported-part", Error, "A content part (image, file, audio) the request format cannot carry.";
    MISSING_MEDIA_TYPE = "PW014", "missing-media-type", Error, "A content part with inline data and no `mediaType`.";
    UNSUPPORTED_ROLE = "PW015", "unsupported-role", Error, "A message role the request format has no place for.";
    BAD_METADATA = "PW016", "bad-message-metadata", Error, "Message metadata the conversion needs is missing or malformed.";
    NOTHING_TO_EMBED = "PW017", "nothing-to-embed", Error, "An embedding request with no text to embed.";
    BAD_RESPONSE = "PW018", "bad-response", Error, "A response that does not have the provider's shape.";
    PROVIDER_ERROR = "PW019", "provider-error", Error, "The provider answered with an error object.";
    INVALID_JSON = "PW020", "invalid-json-reply", Error, "The reply is not JSON although the prompt asks for a JSON object.";
    MISSING_OUTPUT_KEY = "PW021", "missing-output-key", Error, "A JSON reply without a key `outputs` declares.";
    REASONING_MODEL = "PW022", "reasoning-model-unsupported", Error, "A reasoning-model request for a provider or API that has no such form.";
    UNSUPPORTED_OPTION = "PW101", "unsupported-option", Warning, "A `model.options` field the provider's API does not take is not sent.";
    SHADOWED_PARAMETER = "PW102", "shadowed-parameter", Warning, "A free-form parameter (`additionalProperties`, v1 `parameters`) whose field the request already sets is not sent.";
    DROPPED_METADATA = "PW103", "dropped-metadata", Warning, "A message metadata key the provider's message format has no place for is not sent.";
    IGNORED_TOOLS = "PW104", "ignored-tools", Warning, "`tools` on an API that takes none are not sent.";
    IGNORED_OUTPUTS = "PW105", "ignored-outputs", Warning, "`outputs` on an API without structured output are not sent.";
    UNENFORCED_JSON = "PW106", "unenforced-json", Warning, "JSON output (`outputs` or a JSON `response_format`) this request cannot enforce: the reply is still parsed as JSON.";
    IGNORED_PART = "PW107", "ignored-part", Warning, "A non-text part on an API that takes only text is not sent.";
    EMPTY_STRICT_OBJECT = "PW108", "empty-strict-object", Warning, "An object without properties in a strict schema: the model can only return `{}`.";
    ONE_OF_AS_ANY_OF = "PW109", "one-of-as-any-of", Warning, "`oneOf` in a strict schema is sent as `anyOf`.";
    UNKNOWN_BINDING = "PW110", "unknown-binding", Warning, "A tool binding names no parameter of the tool, so nothing is hidden.";
    PARALLEL_WITHOUT_TOOLS = "PW111", "parallel-calls-without-tools", Warning, "`allowMultipleToolCalls` on a request without tools is not sent.";
    MOVED_SYSTEM_MESSAGE = "PW112", "moved-system-message", Warning, "A system message after the conversation started is joined into the top-level system text.";
    DROPPED_EMPTY_MESSAGE = "PW113", "dropped-empty-message", Warning, "A message with no content is left out because the provider rejects empty content.";
    EMPTY_IMAGE_PROMPT = "PW114", "empty-image-prompt", Warning, "An image request whose prompt is empty.";
    DROPPED_PARAMETER = "PW115", "dropped-parameter", Warning, "A free-form parameter the target API has no field for is not sent.";
    JSON_AS_TOOL = "PW116", "json-as-tool", Warning, "JSON output is sent as a forced tool whose input is the answer (the provider has no JSON mode).";
    FOREIGN_MODEL = "PW117", "foreign-model", Warning, "The model id belongs to another provider's family of models.";
}
