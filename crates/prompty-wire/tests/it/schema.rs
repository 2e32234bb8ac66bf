//! The JSON Schema builder and the OpenAI strict-mode transform.

use insta::{assert_json_snapshot, assert_snapshot};
use prompty_syntax::{Property, PropertyKind};
use prompty_wire::schema::{object_schema, property_schema, strict};
use prompty_wire::{Provider, Warning};
use serde_json::{Value, json};

const P: Provider = Provider::OpenAi;

fn prop(name: &str, kind: PropertyKind) -> Property {
    Property::new(name, kind)
}

fn required(mut p: Property) -> Property {
    p.required = true;
    p
}

fn nullable(mut p: Property) -> Property {
    p.nullable = true;
    p
}

fn object(name: &str, props: Vec<Property>) -> Property {
    let mut p = prop(name, PropertyKind::Object);
    p.properties = Some(props);
    p
}

fn array(name: &str, items: Property) -> Property {
    let mut p = prop(name, PropertyKind::Array);
    p.items = Some(Box::new(items));
    p
}

fn union(name: &str, one_of: Vec<Property>) -> Property {
    let mut p = prop(name, PropertyKind::Union);
    p.one_of = Some(one_of);
    p
}

fn strict_of(props: &[Property]) -> (Value, Vec<Warning>) {
    let plain = object_schema(props, &[], "outputs", P).expect("plain schema");
    let mut warnings = Vec::new();
    let s = strict(plain, "outputs", P, &mut warnings).expect("strict schema");
    (s, warnings)
}

#[test]
fn kinds_map_to_json_types() {
    let props = [
        prop("s", PropertyKind::String),
        prop("i", PropertyKind::Integer),
        prop("f", PropertyKind::Float),
        prop("b", PropertyKind::Boolean),
        array("a", prop("", PropertyKind::String)),
        prop("o", PropertyKind::Object),
    ];
    assert_eq!(
        object_schema(&props, &[], "p", P).expect("schema"),
        json!({
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "i": {"type": "integer"},
                "f": {"type": "number"},
                "b": {"type": "boolean"},
                "a": {"type": "array", "items": {"type": "string"}},
                "o": {"type": "object"},
            }
        })
    );
}

#[test]
fn plain_schema_keeps_required_description_enum_and_nesting() {
    let mut unit = required(prop("unit", PropertyKind::String));
    unit.description = Some("Temperature unit".into());
    unit.enum_values = Some(vec![json!("celsius"), json!("fahrenheit")]);
    let mut mood = nullable(prop("mood", PropertyKind::String));
    mood.enum_values = Some(vec![json!("calm"), json!("stormy")]);
    let props = [
        required(prop("city", PropertyKind::String)),
        unit,
        mood,
        object("where", vec![required(prop("lat", PropertyKind::Float)), prop("label", PropertyKind::String)]),
        array("tags", nullable(prop("", PropertyKind::String))),
    ];
    assert_json_snapshot!(object_schema(&props, &[], "p", P).expect("schema"));
}

#[test]
fn required_is_dropped_when_empty() {
    let schema = object_schema(&[prop("a", PropertyKind::String)], &[], "p", P).expect("schema");
    assert_eq!(schema.get("required"), None);
    let nested = object_schema(&[object("o", vec![prop("x", PropertyKind::Integer)])], &[], "p", P).expect("schema");
    assert_eq!(nested["properties"]["o"].get("required"), None);
}

#[test]
fn excluded_names_leave_properties_and_required() {
    let props = [required(prop("location", PropertyKind::String)), required(prop("unit", PropertyKind::String))];
    assert_eq!(
        object_schema(&props, &["unit"], "tools.w.parameters", P).expect("schema"),
        json!({"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]})
    );
}

#[test]
fn unions_become_one_of_or_any_of_with_a_null_branch_when_nullable() {
    let plain = union("v", vec![prop("", PropertyKind::String), prop("", PropertyKind::Integer)]);
    assert_eq!(
        property_schema(&plain, "v", P).expect("schema"),
        json!({"oneOf": [{"type": "string"}, {"type": "integer"}]})
    );
    let mut any = nullable(prop("v", PropertyKind::Union));
    any.any_of = Some(vec![prop("", PropertyKind::Boolean)]);
    any.description = Some("either".into());
    assert_eq!(
        property_schema(&any, "v", P).expect("schema"),
        json!({"anyOf": [{"type": "boolean"}, {"type": "null"}], "description": "either"})
    );
}

#[test]
fn strict_requires_everything_and_makes_optional_fields_nullable() {
    // The spec's structured_output_nested_optional vector, one level deeper.
    let style = required(object(
        "style",
        vec![
            required(prop("color", PropertyKind::String)),
            prop("border", PropertyKind::String),
            object("shadow", vec![required(prop("blur", PropertyKind::Float))]),
        ],
    ));
    let (schema, warnings) = strict_of(&[style]);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_json_snapshot!(schema);
}

#[test]
fn strict_nullable_enum_takes_null() {
    let mut level = prop("level", PropertyKind::String);
    level.enum_values = Some(vec![json!("low"), json!("high")]);
    let (schema, _) = strict_of(&[level]);
    assert_eq!(schema["properties"]["level"], json!({"type": ["string", "null"], "enum": ["low", "high", null]}));
}

#[test]
fn strict_recurses_into_array_items_and_union_branches() {
    let item = object("", vec![required(prop("id", PropertyKind::Integer)), prop("note", PropertyKind::String)]);
    let choice = required(union(
        "choice",
        vec![object("", vec![prop("a", PropertyKind::String)]), prop("", PropertyKind::Integer)],
    ));
    let (schema, warnings) = strict_of(&[required(array("rows", item)), choice]);
    assert_json_snapshot!(schema);
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_snapshot!("strict_one_of_warning", text.join("\n"));
}

#[test]
fn strict_optional_union_gets_one_null_branch() {
    let mut u = prop("v", PropertyKind::Union);
    u.any_of = Some(vec![prop("", PropertyKind::String), prop("", PropertyKind::Integer)]);
    let (schema, _) = strict_of(&[u]);
    assert_eq!(
        schema["properties"]["v"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
    );
    // Already nullable: no second null branch.
    let mut n = nullable(prop("v", PropertyKind::Union));
    n.any_of = Some(vec![prop("", PropertyKind::String)]);
    let (schema, _) = strict_of(&[n]);
    assert_eq!(schema["properties"]["v"], json!({"anyOf": [{"type": "string"}, {"type": "null"}]}));
}

#[test]
fn strict_object_without_properties_warns_below_the_top() {
    let (schema, warnings) = strict_of(&[required(prop("extra", PropertyKind::Object))]);
    assert_eq!(
        schema["properties"]["extra"],
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    let (top, top_warnings) = strict_of(&[]);
    assert_eq!(top, json!({"type": "object", "properties": {}, "additionalProperties": false}));
    assert!(top_warnings.is_empty());
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_snapshot!(text.join("\n"));
}

#[test]
fn strict_is_idempotent() {
    let props = [required(object("o", vec![prop("x", PropertyKind::String)])), prop("y", PropertyKind::Integer)];
    let (once, _) = strict_of(&props);
    let mut warnings = Vec::new();
    let twice = strict(once.clone(), "outputs", P, &mut warnings).expect("strict");
    assert_eq!(once, twice);
}

#[test]
fn schema_errors_name_the_path_and_provider() {
    let mut both = prop("v", PropertyKind::Union);
    both.one_of = Some(vec![prop("", PropertyKind::String)]);
    both.any_of = Some(vec![prop("", PropertyKind::Integer)]);
    let errors = [
        object_schema(&[prop("photo", PropertyKind::Image)], &[], "outputs", P).expect_err("image"),
        object_schema(&[object("o", vec![prop("t", PropertyKind::Thread)])], &[], "tools.f.parameters", P)
            .expect_err("thread"),
        object_schema(&[prop("v", PropertyKind::Union)], &[], "outputs", P).expect_err("empty union"),
        object_schema(&[both], &[], "outputs", P).expect_err("both"),
        strict(json!({"type": "object", "properties": {"xs": {"type": "array"}}}), "outputs", P, &mut Vec::new())
            .expect_err("no items"),
    ];
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_snapshot!(text.join("\n"));
}
