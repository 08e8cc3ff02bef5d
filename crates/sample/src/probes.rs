//! What each JSON Schema keyword asks, as the validator can be asked it: a
//! schema holding the keyword, and a value that schema refuses wherever a
//! validator reads the keyword. Tests put these to the validator in each
//! draft to learn which keywords it reads there, rather than keep a list of
//! their own.

use serde_json::{json, Value};

/// Every probe: the keyword, a schema holding it, and a value the schema
/// refuses when the keyword is read. A keyword written two ways across
/// drafts (draft 4's boolean `exclusiveMaximum`, `items` as a list before
/// 2020-12) has a probe for each; in a draft that takes neither, the
/// validator refuses to compile the schema. An annotation's value is
/// refused by no validator.
pub fn keyword_probes() -> Vec<(&'static str, Value, Value)> {
    vec![
        (
            "$ref",
            json!({"$ref": "#/definitions/f", "definitions": {"f": false}}),
            json!(1),
        ),
        ("allOf", json!({"allOf": [false]}), json!(1)),
        ("anyOf", json!({"anyOf": [false]}), json!(1)),
        ("oneOf", json!({"oneOf": [false]}), json!(1)),
        ("not", json!({"not": true}), json!(1)),
        ("if", json!({"if": true, "then": false}), json!(1)),
        ("then", json!({"if": true, "then": false}), json!(1)),
        ("else", json!({"if": false, "else": false}), json!(1)),
        (
            "dependentSchemas",
            json!({"dependentSchemas": {"a": false}}),
            json!({"a": 1}),
        ),
        (
            "dependencies",
            json!({"dependencies": {"a": ["b"]}}),
            json!({"a": 1}),
        ),
        ("prefixItems", json!({"prefixItems": [false]}), json!([1])),
        ("items", json!({"items": false}), json!([1])),
        ("items", json!({"items": [false]}), json!([1])),
        (
            "additionalItems",
            json!({"items": [true], "additionalItems": false}),
            json!([1, 2]),
        ),
        ("contains", json!({"contains": false}), json!([1])),
        (
            "minContains",
            json!({"contains": true, "minContains": 2}),
            json!([1]),
        ),
        (
            "maxContains",
            json!({"contains": true, "maxContains": 0}),
            json!([1]),
        ),
        (
            "properties",
            json!({"properties": {"a": false}}),
            json!({"a": 1}),
        ),
        (
            "patternProperties",
            json!({"patternProperties": {"a": false}}),
            json!({"a": 1}),
        ),
        (
            "additionalProperties",
            json!({"additionalProperties": false}),
            json!({"a": 1}),
        ),
        (
            "propertyNames",
            json!({"propertyNames": false}),
            json!({"a": 1}),
        ),
        (
            "unevaluatedItems",
            json!({"unevaluatedItems": false}),
            json!([1]),
        ),
        (
            "unevaluatedProperties",
            json!({"unevaluatedProperties": false}),
            json!({"a": 1}),
        ),
        ("type", json!({"type": "string"}), json!(1)),
        ("enum", json!({"enum": [1]}), json!(2)),
        ("const", json!({"const": 1}), json!(2)),
        ("multipleOf", json!({"multipleOf": 2}), json!(3)),
        ("maximum", json!({"maximum": 1}), json!(2)),
        ("exclusiveMaximum", json!({"exclusiveMaximum": 1}), json!(1)),
        (
            "exclusiveMaximum",
            json!({"maximum": 1, "exclusiveMaximum": true}),
            json!(1),
        ),
        ("minimum", json!({"minimum": 2}), json!(1)),
        ("exclusiveMinimum", json!({"exclusiveMinimum": 1}), json!(1)),
        (
            "exclusiveMinimum",
            json!({"minimum": 1, "exclusiveMinimum": true}),
            json!(1),
        ),
        ("maxLength", json!({"maxLength": 1}), json!("ab")),
        ("minLength", json!({"minLength": 2}), json!("a")),
        ("pattern", json!({"pattern": "^a$"}), json!("b")),
        ("maxItems", json!({"maxItems": 0}), json!([1])),
        ("minItems", json!({"minItems": 2}), json!([1])),
        ("uniqueItems", json!({"uniqueItems": true}), json!([1, 1])),
        (
            "maxProperties",
            json!({"maxProperties": 0}),
            json!({"a": 1}),
        ),
        (
            "minProperties",
            json!({"minProperties": 2}),
            json!({"a": 1}),
        ),
        ("required", json!({"required": ["a"]}), json!({})),
        (
            "dependentRequired",
            json!({"dependentRequired": {"a": ["b"]}}),
            json!({"a": 1}),
        ),
        ("format", json!({"format": "ipv4"}), json!("x")),
        (
            "contentEncoding",
            json!({"contentEncoding": "base64"}),
            json!("!!!"),
        ),
        (
            "contentMediaType",
            json!({"contentMediaType": "application/json"}),
            json!("{"),
        ),
        (
            "contentSchema",
            json!({"contentMediaType": "application/json", "contentSchema": false}),
            json!("{}"),
        ),
        ("title", json!({"title": "t"}), json!(1)),
        ("description", json!({"description": "d"}), json!(1)),
        ("default", json!({"default": 2}), json!(1)),
        ("examples", json!({"examples": [2]}), json!(1)),
        ("readOnly", json!({"readOnly": true}), json!(1)),
        ("writeOnly", json!({"writeOnly": true}), json!(1)),
        ("deprecated", json!({"deprecated": true}), json!(1)),
        ("$comment", json!({"$comment": "c"}), json!(1)),
    ]
}
