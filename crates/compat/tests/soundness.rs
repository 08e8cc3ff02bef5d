//! The checker never calls a break compatible: where it cannot reason about
//! a keyword it says "cannot decide" and counts the direction as breaking,
//! and no schema makes it crash or run away.

use std::path::Path;
use std::time::{Duration, Instant};

use compat::{compare_documents, Comparison, Options, Verdict};
use contract::SchemaSet;
use serde_json::{json, Value};

fn set(schema: &Value) -> SchemaSet {
    SchemaSet::from_texts(
        Path::new("cases"),
        [("types/Case.json", schema.to_string().as_str())],
    )
    .expect("one schema loads")
}

/// Compares under strict readers (every keyword counts), in bounded time.
fn compare(old: &Value, new: &Value) -> Comparison {
    let started = Instant::now();
    let comparison = compare_documents(
        &set(old),
        &set(new),
        Options {
            strict_readers: true,
            ..Default::default()
        },
    );
    // Generous: a verdict, not a runaway search.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "took {:?}",
        started.elapsed()
    );
    comparison
}

/// The direction breaks, and the report says why: a confirmed example or a
/// "cannot decide" naming the keyword.
fn check_breaks(old: Value, new: Value, writer: bool, keyword: Option<&str>) {
    let comparison = compare(&old, &new);
    let verdict = if writer {
        comparison.writer
    } else {
        comparison.reader
    };
    assert_eq!(verdict, Verdict::Breaking, "{comparison:#?}");
    if let Some(keyword) = keyword {
        assert!(
            comparison
                .changes
                .iter()
                .any(|c| c.undecided.as_deref() == Some(keyword)
                    && c.why
                        .as_deref()
                        .is_some_and(|why| why.contains(&format!("cannot decide: {keyword} at")))),
            "no `cannot decide: {keyword}` in {comparison:#?}"
        );
    }
}

#[test]
fn a_raised_max_contains_is_not_compatible_for_old_readers() {
    check_breaks(
        json!({"type": "array", "contains": {"type": "integer"}, "maxContains": 2}),
        json!({"type": "array", "contains": {"type": "integer"}, "maxContains": 3}),
        true,
        Some("maxContains"),
    );
}

#[test]
fn a_raised_min_contains_is_not_an_annotation() {
    check_breaks(
        json!({"type": "array", "contains": {"type": "integer"}, "minContains": 1}),
        json!({"type": "array", "contains": {"type": "integer"}, "minContains": 2}),
        false,
        Some("minContains"),
    );
}

#[test]
fn unevaluated_properties_on_the_reader_cannot_be_decided() {
    check_breaks(
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": false}),
        false,
        None,
    );
}

#[test]
fn overlapping_pattern_properties_must_both_hold() {
    // A name matching both patterns must satisfy both: "ab": "xyz" passes the
    // old schema and fails the new one.
    check_breaks(
        json!({"type": "object", "patternProperties": {"^a": {"type": "string"}}}),
        json!({"type": "object", "patternProperties": {"^a": {"type": "string"}, "b$": {"maxLength": 2}}}),
        false,
        None,
    );
}

#[test]
fn a_declared_property_does_not_hide_a_pattern_that_also_matches_it() {
    check_breaks(
        json!({"type": "object", "properties": {"A": {}}}),
        json!({"type": "object", "properties": {"A": {}}, "patternProperties": {"^\\x41$": {"type": "integer"}}}),
        false,
        None,
    );
}

#[test]
fn a_pattern_whose_name_needs_a_rare_escape_is_not_guessed() {
    // "\u0041" is "A": the old writer's {"A": "x"} fails the new reader.
    check_breaks(
        json!({"type": "object", "patternProperties": {"^B": {"type": "string"}}}),
        json!({"type": "object", "patternProperties": {"^B": {"type": "string"}, "^\\u0041": {"type": "integer"}}}),
        false,
        None,
    );
}

#[test]
fn not_over_different_operands_is_not_assumed_to_hold() {
    check_breaks(
        json!({"type": "string", "minLength": 1}),
        json!({"type": "string", "not": {"pattern": "^[0-9]+$"}}),
        false,
        None,
    );
}

#[test]
fn a_changed_pattern_without_a_counterexample_cannot_be_decided() {
    check_breaks(
        json!({"type": "string", "pattern": "^[a-c]+$"}),
        json!({"type": "string", "pattern": "^[a-d]+$"}),
        true,
        None,
    );
}

#[test]
fn recursive_schemas_through_applicators_and_property_names_get_a_verdict() {
    let recursive = |extra: Value| {
        json!({
            "$defs": {
                "node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}, "tag": extra},
                         "propertyNames": {"$ref": "#/$defs/name"}},
                "name": {"anyOf": [{"$ref": "#/$defs/name"}, {"type": "string", "maxLength": 8}],
                         "oneOf": [{"$ref": "#/$defs/name"}, {"minLength": 1}]}
            },
            "$ref": "#/$defs/node"
        })
    };
    let comparison = compare(
        &recursive(json!({"type": "string"})),
        &recursive(json!({"type": "integer"})),
    );
    assert_eq!(comparison.writer, Verdict::Breaking, "{comparison:#?}");
    assert_eq!(comparison.reader, Verdict::Breaking, "{comparison:#?}");
    let same = compare(&recursive(json!({})), &recursive(json!({})));
    assert!(
        same.changes
            .iter()
            .all(|c| c.writer.holds() && c.reader.holds()),
        "{same:#?}"
    );
}

#[test]
fn deep_nesting_gets_a_verdict_not_a_stack_overflow() {
    let mut old = json!({"type": "string"});
    let mut new = json!({"type": "string", "maxLength": 3});
    for _ in 0..60 {
        old = json!({"type": "object", "properties": {"x": old}});
        new = json!({"type": "object", "properties": {"x": new}});
    }
    let comparison = compare(&old, &new);
    assert_eq!(comparison.reader, Verdict::Breaking, "{comparison:#?}");
}

#[test]
fn huge_bounds_and_enums_ask_for_nothing_huge() {
    let values: Vec<Value> = (0..5000).map(|i| json!(format!("v{i}"))).collect();
    let mut fewer = values.clone();
    fewer.pop();
    let comparison = compare(
        &json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 1_000_000_000_000u64}, "e": {"enum": values}}, "required": ["s", "e"]}),
        &json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 1_000_000_000_000u64}, "e": {"enum": fewer}}, "required": ["s", "e"]}),
    );
    assert_eq!(comparison.reader, Verdict::Breaking, "{comparison:#?}");
    assert_eq!(comparison.writer, Verdict::Compatible, "{comparison:#?}");
}
