//! The checker never calls a break compatible: where it cannot reason about
//! a keyword it says "cannot decide" and counts the direction as breaking,
//! and no schema makes it crash or run away. Where a case names a value, the
//! `jsonschema` crate is asked first that the writer accepts it and the
//! reader refuses it, so each case proves itself before it judges the checker.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use compat::{compare_documents, Comparison, Options, Readers, Verdict};
use contract::{DeepDocuments, SchemaSet};
use serde_json::{json, Value};

fn set(schema: &Value) -> SchemaSet {
    set_text(&schema.to_string())
}

/// A set of several files, each `(rel, schema)`.
fn files<const N: usize>(files: [(&str, Value); N]) -> SchemaSet {
    let texts = files.map(|(rel, schema)| (rel, schema.to_string()));
    SchemaSet::from_texts(
        Path::new("cases"),
        texts.iter().map(|(rel, text)| (*rel, text.as_str())),
    )
    .expect("the files load")
}

fn set_text(text: &str) -> SchemaSet {
    SchemaSet::from_texts_with(
        Path::new("cases"),
        [("types/Case.json", text)],
        DeepDocuments::Keep,
    )
    .expect("one schema loads")
}

/// Compares under strict readers (every keyword counts).
fn compare(old: &Value, new: &Value) -> Comparison {
    compare_sets_of(set(old), set(new))
}

fn compare_sets_of(old: SchemaSet, new: SchemaSet) -> Comparison {
    compare_documents(
        &old,
        &new,
        Options {
            readers: Readers::Strict,
            ..Default::default()
        },
    )
    .expect("the schemas register")
}

/// What one direction must come to.
#[derive(Clone, Copy)]
enum Expect<'a> {
    Holds,
    /// Breaks; this value (if given) passes the writer and fails the reader.
    Breaks(Option<&'a Value>),
    /// Cannot decide, naming this keyword.
    Undecided(&'a str),
}

/// Whether a change of `comparison` cannot be decided for `keyword` and
/// says `said` in its reason.
fn undecided_saying(comparison: &Comparison, keyword: &str, said: &str) -> bool {
    comparison.changes.iter().any(|c| {
        c.undecided.as_deref() == Some(keyword)
            && c.why.as_deref().is_some_and(|why| why.contains(said))
    })
}

/// Every direction between `a` and `b`, either way round, cannot be
/// decided, naming `keyword`.
fn undecided_both_ways(a: &Value, b: &Value, keyword: &str) {
    for (old, new) in [(a, b), (b, a)] {
        let comparison = compare(old, new);
        for verdict in [comparison.writer, comparison.reader] {
            assert_eq!(verdict, Verdict::Breaking, "{comparison:#?}");
        }
        assert!(
            undecided_saying(
                &comparison,
                keyword,
                &format!("cannot decide: {keyword} at")
            ),
            "{comparison:#?}"
        );
    }
}

/// One direction: `writer` is what the sender's schema says, `reader` the
/// receiver's. Checked as W (old = reader, new = writer).
fn check(writer: Value, reader: Value, expect: Expect<'_>) {
    if let Expect::Breaks(Some(value)) = expect {
        let accepts = |schema: &Value| {
            jsonschema::options()
                .should_validate_formats(true)
                .build(schema)
                .map(|v| v.is_valid(value))
        };
        assert_eq!(
            accepts(&writer).ok(),
            Some(true),
            "the case is wrong: the writer {writer} refuses {value}"
        );
        assert_eq!(
            accepts(&reader).ok(),
            Some(false),
            "the case is wrong: the reader {reader} accepts {value}"
        );
    }
    let comparison = compare(&reader, &writer);
    match expect {
        Expect::Holds => assert_eq!(comparison.writer, Verdict::Compatible, "{comparison:#?}"),
        Expect::Breaks(_) => assert_eq!(comparison.writer, Verdict::Breaking, "{comparison:#?}"),
        Expect::Undecided(keyword) => {
            assert_eq!(comparison.writer, Verdict::Breaking, "{comparison:#?}");
            assert!(
                undecided_saying(
                    &comparison,
                    keyword,
                    &format!("cannot decide: {keyword} at")
                ),
                "no `cannot decide: {keyword}` in {comparison:#?}"
            );
        }
    }
}

fn breaks(writer: Value, reader: Value, value: Value) {
    check(writer, reader, Expect::Breaks(Some(&value)));
}

fn holds(writer: Value, reader: Value) {
    check(writer, reader, Expect::Holds);
}

// A second validator no longer decides: these were judged by a small
// validator of the checker's own, which read JSON Schema differently.

#[test]
fn a_nested_keyword_the_old_validator_skipped_is_enforced() {
    breaks(
        json!({"const": {"x": [1]}}),
        json!({"properties": {"x": {"contains": {"type": "integer"}, "minContains": 2}}}),
        json!({"x": [1]}),
    );
}

#[test]
fn every_matching_pattern_property_applies_not_only_the_first() {
    breaks(
        json!({"const": {"ab": -1}}),
        json!({"patternProperties": {"^a": {"type": "integer"}, "b$": {"minimum": 0}}}),
        json!({"ab": -1}),
    );
}

#[test]
fn an_enum_beside_a_const_narrows_it() {
    breaks(
        json!({"const": 1}),
        json!({"const": 1, "enum": [2]}),
        json!(1),
    );
}

#[test]
fn a_look_ahead_pattern_is_read_by_the_validators_engine() {
    breaks(
        json!({"const": "x"}),
        json!({"type": "string", "pattern": "^(?!x)"}),
        json!("x"),
    );
}

/// Patterns the lint passes are compared as automata: a reader's pattern
/// that takes every string the writer's takes holds, a spelling of the same
/// language holds both ways, and a narrower one breaks with a value. One
/// outside the lint's vocabulary is not compared.
#[test]
fn patterns_are_compared_by_the_strings_they_match() {
    let string = |pattern: &str| json!({"type": "string", "pattern": pattern});
    holds(string("^[a-z]+$"), string("^[a-z0-9]+$"));
    holds(string("^[a-z]+$"), string("^[a-z][a-z]*$"));
    holds(string("^[a-z][a-z]*$"), string("^[a-z]+$"));
    holds(string("^(ab)+c"), string("b"));
    breaks(string("^[a-z0-9]+$"), string("^[a-z]+$"), json!("0"));
    check(
        string("^(?!x)[a-z]+$"),
        string("^(?!x)[a-z0-9]+$"),
        Expect::Undecided("pattern"),
    );
}

#[test]
fn word_characters_are_ascii_as_the_validator_reads_them() {
    breaks(
        json!({"const": "é"}),
        json!({"type": "string", "pattern": "^\\w+$"}),
        json!("é"),
    );
}

#[test]
fn every_format_the_validator_asserts_is_asserted() {
    breaks(
        json!({"const": "not-an-address"}),
        json!({"type": "string", "format": "ipv4"}),
        json!("not-an-address"),
    );
}

#[test]
fn multiples_are_exact_not_within_a_slack() {
    breaks(
        json!({"const": 0.30000000000001}),
        json!({"multipleOf": 0.1}),
        json!(0.30000000000001),
    );
}

#[test]
fn a_deep_value_is_checked_to_its_leaf() {
    let (mut writer, mut reader, mut value) = (json!(1), json!({"type": "string"}), json!(1));
    for _ in 0..70 {
        writer = json!({"x": writer});
        reader = json!({"properties": {"x": reader}});
        value = json!({"x": value});
    }
    breaks(json!({"const": writer}), reader, value);
}

#[test]
fn a_draft_7_keyword_means_nothing_in_a_2020_12_document() {
    // `additionalItems` has no effect in 2020-12: the validator takes [1, 2].
    holds(
        json!({"const": [1, 2]}),
        json!({"prefixItems": [{}], "additionalItems": false}),
    );
}

// allOf parts are not merged as if they were one schema.

#[test]
fn additional_properties_in_one_part_ignore_another_parts_properties() {
    breaks(
        json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}),
        json!({"allOf": [{"properties": {"a": {}}}, {"additionalProperties": false}]}),
        json!({"a": 1}),
    );
}

#[test]
fn items_false_in_one_part_ignores_another_parts_prefix() {
    breaks(
        json!({"type": "array", "maxItems": 1}),
        json!({"allOf": [{"prefixItems": [{}]}, {"items": false}]}),
        json!([1]),
    );
}

#[test]
fn a_then_in_another_part_than_its_if_constrains_nothing() {
    breaks(
        json!({"allOf": [{"if": {"required": ["a"]}}, {"then": false}]}),
        json!({"if": {"required": ["a"]}, "then": false}),
        json!({"a": 1}),
    );
}

// Numbers are compared exactly.

#[test]
fn integers_past_two_to_the_53_are_not_equal() {
    breaks(
        json!({"const": 9_007_199_254_740_993u64}),
        json!({"type": "integer", "maximum": 9_007_199_254_740_992u64}),
        json!(9_007_199_254_740_993u64),
    );
}

#[test]
fn a_near_multiple_is_not_a_multiple() {
    breaks(
        json!({"type": "integer", "multipleOf": 3}),
        json!({"multipleOf": 3.0000000001}),
        json!(3),
    );
}

#[test]
fn fractions_between_the_bounds_reach_an_integer_reader() {
    breaks(
        json!({"type": "number", "minimum": 10, "maximum": 11}),
        json!({"type": "integer"}),
        json!(10.5),
    );
}

// References resolve as the validator resolves them.

#[test]
fn a_percent_encoded_pointer_resolves() {
    breaks(
        json!({"type": "string"}),
        json!({"$defs": {"a b": {"type": "integer"}}, "$ref": "#/$defs/a%20b"}),
        json!("s"),
    );
}

#[test]
fn an_embedded_id_resolves() {
    breaks(
        json!({"type": "string"}),
        json!({"$defs": {"x": {"$id": "http://example.invalid/x.json", "type": "integer"}}, "$ref": "http://example.invalid/x.json"}),
        json!("s"),
    );
}

#[test]
fn equal_text_under_dependent_schemas_is_not_equal_meaning_when_a_reference_inside_changed() {
    let with = |t: &str| json!({"$defs": {"t": {"type": t}}, "dependentSchemas": {"a": {"properties": {"a": {"$ref": "#/$defs/t"}}}}});
    breaks(with("string"), with("integer"), json!({"a": "s"}));
    breaks(with("integer"), with("string"), json!({"a": 1}));
}

#[test]
fn a_branch_that_failed_once_is_not_assumed_to_hold_on_the_next_try() {
    breaks(
        json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}),
        json!({"$defs": {"n": {"type": "integer"}}, "anyOf": [
            {"properties": {"x": {"$ref": "#/$defs/n"}}, "required": ["q"]},
            {"properties": {"x": {"$ref": "#/$defs/n"}}}
        ]}),
        json!({"x": "s"}),
    );
}

// Depth.

#[test]
fn a_writers_min_contains_of_zero_is_read() {
    breaks(
        json!({"type": "array", "contains": {"type": "string"}, "minContains": 0}),
        json!({"type": "array", "contains": {"type": "string"}}),
        json!([]),
    );
}

#[test]
fn a_schema_nested_past_serdes_limit_gets_a_verdict() {
    let depth = 10_000;
    let deep = format!("{}{{}}{}", r#"{"items": "#.repeat(depth), "}".repeat(depth));
    let comparison = compare_sets_of(set_text(&deep), set(&json!({"type": "array"})));
    assert_eq!(comparison.reader, Verdict::Breaking, "{comparison:#?}");
    assert!(
        comparison
            .changes
            .iter()
            .any(|c| c.undecided.as_deref() == Some("nesting")),
        "{comparison:#?}"
    );
}

#[test]
fn a_definition_whose_all_of_refers_to_itself_gets_a_verdict() {
    let looped = |t: &str| json!({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}, {"type": t}]}}, "$ref": "#/$defs/a"});
    let comparison = compare(&looped("integer"), &looped("string"));
    assert_eq!(comparison.writer, Verdict::Breaking, "{comparison:#?}");
    assert_eq!(comparison.reader, Verdict::Breaking, "{comparison:#?}");
    // Unchanged, it still cannot be decided: the validator answers such a
    // cycle by the path it came along (see the next test).
    let same = compare(&looped("integer"), &looped("integer"));
    assert_undecided_by_a_cycle(&same);
}

/// Every change of `comparison` that is not held is "cannot decide: $ref"
/// for a cycle that reads nothing of the value, and there is one.
fn assert_undecided_by_a_cycle(comparison: &Comparison) {
    let undecided: Vec<_> = comparison
        .changes
        .iter()
        .filter(|c| !(c.writer.holds() && c.reader.holds()))
        .collect();
    assert!(!undecided.is_empty(), "{comparison:#?}");
    for change in undecided {
        assert_eq!(change.undecided.as_deref(), Some("$ref"), "{comparison:#?}");
    }
}

/// A tree whose children are its own kind, by `$dynamicRef`.
fn tree(data: Value, extended_by: Option<Value>) -> Value {
    let mut tree = json!({
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {
            "data": data,
            "children": {"type": "array", "items": {"$dynamicRef": "#node"}}
        }
    });
    // The pattern `$dynamicRef` is made for: another resource declares the
    // same anchor, and children are read as that one where a value enters
    // through it. It extends the tree by the document's name: `#` inside
    // it would be itself, a cycle that reads nothing of the value.
    if let (Some(extension), Value::Object(map)) = (extended_by, &mut tree) {
        map.insert(
            "$defs".into(),
            json!({"strict": {"$id": "strict", "$dynamicAnchor": "node", "$ref": "Case.json", "properties": extension}}),
        );
    }
    tree
}

/// Where only one schema declares the anchor, every validator resolves the
/// reference to it whatever path a value takes: a tree unchanged is the
/// same schema on both sides.
#[test]
fn a_tree_by_a_dynamic_reference_only_it_can_mean_is_the_same_as_itself() {
    let comparison = compare(&tree(json!(true), None), &tree(json!(true), None));
    assert_eq!(comparison.writer, Verdict::Compatible, "{comparison:#?}");
    assert_eq!(comparison.reader, Verdict::Compatible, "{comparison:#?}");
    // Narrowed behind the reference, it breaks.
    breaks(
        tree(json!(true), None),
        tree(json!({"type": "string"}), None),
        json!({"children": [{"data": 1}]}),
    );
}

/// Where two schemas declare the anchor, the one the reference means
/// depends on where validation entered: not even equality proves anything.
#[test]
fn a_dynamic_reference_two_schemas_may_mean_is_undecided_even_unchanged() {
    let extended = || tree(json!(true), Some(json!({"data": {"type": "string"}})));
    check(extended(), extended(), Expect::Undecided("$dynamicRef"));
}

/// A dynamic reference back to the schema itself, without reading into the
/// value, is a cycle like any other.
#[test]
fn a_dynamic_reference_that_reads_nothing_is_a_cycle() {
    let looped =
        json!({"$dynamicAnchor": "x", "anyOf": [{"type": "string"}, {"$dynamicRef": "#x"}]});
    let comparison = compare(&looped, &looped);
    assert_undecided_by_a_cycle(&comparison);
}

/// Before 2020-12 `$dynamicRef` is no keyword: the validator ignores it, and
/// so does the walk for cycles, even where it would resolve.
#[test]
fn a_dynamic_reference_before_2020_12_is_no_cycle() {
    let ignored = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$anchor": "x",
        "anyOf": [{"type": "string"}, {"$dynamicRef": "#x"}]
    });
    let comparison = compare(&ignored, &ignored);
    assert_eq!(comparison.writer, Verdict::Compatible, "{comparison:#?}");
    assert_eq!(comparison.reader, Verdict::Compatible, "{comparison:#?}");
}

/// Cut down from a pair the search over generated pairs refuted: `a` is
/// `allOf: [{$ref: a}, {not: {$ref: b}}]`, a cycle that reads nothing of
/// the value. There, property `z` referred to `a` and was the same on both
/// sides, yet once the `not` under `x` changed the validator refused
/// `{"x": "", "y": {}, "z": ""}` on one side only, at `/z`: equality of a
/// part proves nothing on such a cycle, and the prover called the pair
/// compatible. It must say it cannot decide.
#[test]
fn a_cycle_that_reads_nothing_is_undecided_even_where_a_part_is_unchanged() {
    let schema = |condition: Value| {
        json!({
            "$defs": {
                "a": {"allOf": [{"$ref": "#/$defs/a"}, {"not": {"$ref": "#/$defs/b"}}]},
                "b": {"allOf": [{"if": {"required": ["x"]}}, {"then": {"required": ["y"]}}, {"$ref": "#/$defs/a"}]}
            },
            "type": "object",
            "required": ["x"],
            "properties": {
                "x": {"not": {"if": condition, "then": {"type": "null"}}},
                "y": {"properties": {"y": {"$ref": "#/$defs/a"}}},
                "z": {"$ref": "#/$defs/a"}
            }
        })
    };
    let comparison = compare(
        &schema(json!({"maxLength": 4, "type": "string"})),
        &schema(json!({"$ref": "#/$defs/b", "maxLength": 4, "type": "string"})),
    );
    assert_eq!(comparison.writer, Verdict::Breaking, "{comparison:#?}");
    assert_eq!(comparison.reader, Verdict::Breaking, "{comparison:#?}");
    assert!(comparison.defects.is_empty(), "{comparison:#?}");
    assert_undecided_by_a_cycle(&comparison);
}

// What the prover does not model is "cannot decide", named.

#[test]
fn unevaluated_properties_on_the_reader_cannot_be_decided() {
    // The writer never sends another field, so this holds; the prover does
    // not model `unevaluatedProperties` and must say it cannot tell.
    check(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": false}),
        Expect::Undecided("unevaluatedProperties"),
    );
}

#[test]
fn unevaluated_properties_that_refuse_a_drawn_value_are_a_shown_break() {
    breaks(
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": false}),
        json!({"b": 1}),
    );
}

#[test]
fn a_raised_max_contains_is_not_compatible_for_old_readers() {
    breaks(
        json!({"type": "array", "contains": {"type": "integer"}, "maxContains": 3}),
        json!({"type": "array", "contains": {"type": "integer"}, "maxContains": 2}),
        json!([1, 2, 3]),
    );
}

#[test]
fn a_declared_property_does_not_hide_a_pattern_that_also_matches_it() {
    breaks(
        json!({"type": "object", "properties": {"A": {}}}),
        json!({"type": "object", "properties": {"A": {}}, "patternProperties": {"^\\x41$": {"type": "integer"}}}),
        json!({"A": "x"}),
    );
}

#[test]
fn not_over_different_operands_is_not_assumed_to_hold() {
    breaks(
        json!({"type": "string", "minLength": 1}),
        json!({"type": "string", "not": {"pattern": "^[0-9]+$"}}),
        json!("1"),
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
    // `name` refers to itself through `anyOf` without reading into the
    // value: undecided even unchanged.
    let same = compare(&recursive(json!({})), &recursive(json!({})));
    assert_undecided_by_a_cycle(&same);
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

// Precision where it is provable: these hold, and the checker says so.

#[test]
fn widened_bounds_hold_for_old_writers() {
    holds(
        json!({"type": "integer", "minimum": 0, "maximum": 10}),
        json!({"type": "integer", "minimum": -5, "maximum": 100}),
    );
}

#[test]
fn an_enum_grown_on_the_reader_holds() {
    holds(
        json!({"enum": ["a", "b"]}),
        json!({"enum": ["a", "b", "c"]}),
    );
}

#[test]
fn reordered_any_of_holds() {
    holds(
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    );
}

#[test]
fn an_optional_property_added_to_an_open_object_holds_for_new_writers() {
    holds(
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}}),
    );
}

#[test]
fn a_one_of_split_by_type_holds() {
    holds(
        json!({"oneOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]}),
        json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
    );
}

#[test]
fn a_one_of_split_by_a_tag_holds() {
    let tagged = |x: &str| {
        json!({"oneOf": [
            {"type": "object", "properties": {"k": {"const": "a"}, "x": {"type": x}}, "required": ["k"]},
            {"type": "object", "properties": {"k": {"const": "b"}}, "required": ["k"]}
        ]})
    };
    holds(tagged("integer"), tagged("number"));
}

#[test]
fn a_one_of_split_by_a_required_and_a_forbidden_property_holds() {
    let split = |max: u64| {
        json!({"oneOf": [
            {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "maximum": max}}},
            {"type": "object", "properties": {"a": false}}
        ]})
    };
    holds(split(5), split(10));
}

#[test]
fn pattern_properties_unchanged_beside_a_changed_field_hold() {
    holds(
        json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}),
    );
}

#[test]
fn a_declared_field_matching_the_readers_additional_schema_holds() {
    // Apicurio "Issue 4965-O1": `bar` is new on the reader, with the schema
    // every other field already had.
    holds(
        json!({"type": "object", "properties": {"foo": {"type": "string"}}, "required": ["foo"], "additionalProperties": {"type": "string"}}),
        json!({"type": "object", "properties": {"foo": {"type": "string"}, "bar": {"type": "string"}}, "required": ["foo"], "additionalProperties": {"type": "string"}}),
    );
}

#[test]
fn a_document_its_meta_schema_refuses_is_not_compared() {
    // `required` repeats a name: validators read that each their own way.
    let result = compare_documents(
        &set(&json!({"type": "object", "required": ["x"]})),
        &set(&json!({"type": "object", "required": ["x", "x"]})),
        Options::default(),
    );
    match result {
        Err(compat::Error::NotASchema { file, pointer, .. }) => {
            assert_eq!(
                (file.as_str(), pointer.as_str()),
                ("types/Case.json", "/required")
            );
        }
        other => panic!("{other:?}"),
    }
}

/// A reference to a schema outside the ones compared names what nothing
/// here reads: wherever a change reaches it, that direction cannot be
/// decided, and says which reference.
#[test]
fn a_reference_outside_the_schemas_compared_cannot_be_decided() {
    let with = |extra: Value| {
        json!({
            "type": "object",
            "properties": {"a": {"$ref": "https://example.com/x.json"}, "b": extra},
        })
    };
    check(
        with(json!({"type": "string", "maxLength": 3})),
        with(json!({"type": "string"})),
        Expect::Undecided("$ref"),
    );
    let comparison = compare(
        &with(json!({"type": "string"})),
        &with(json!({"type": "string", "maxLength": 3})),
    );
    assert!(
        comparison.changes.iter().any(|c| c.why.as_deref().is_some_and(|why| why
            .contains("a reference names https://example.com/x.json, which is not among the schemas compared"))),
        "{comparison:#?}"
    );
}

/// A `$ref` naming a pointer, array index or anchor its document does not
/// have makes the document no schema (a validator refuses to compile it):
/// an error naming the reference, rule `lint.ref`, not a verdict. One that
/// leads somewhere through an embedded `$id` is no such error.
#[test]
fn a_reference_that_leads_nowhere_is_refused() {
    let good = json!({"type": "object"});
    for (bad, said) in [
        (
            json!({"properties": {"a": {"$ref": "#/$defs/missing"}}}),
            "Pointer '/$defs/missing' does not exist",
        ),
        (
            json!({"allOf": [{}], "properties": {"a": {"$ref": "#/allOf/3"}}}),
            "/allOf/3",
        ),
        (
            json!({"properties": {"a": {"$ref": "#nowhere"}}}),
            "Anchor 'nowhere' does not exist",
        ),
        // Through the document's own `$id`: quoted as written.
        (
            json!({"$id": "https://example.com/root.json", "properties": {"a": {"$ref": "https://example.com/root.json#/properties/c"}}}),
            "the reference \"https://example.com/root.json#/properties/c\" leads nowhere: Pointer '/properties/c' does not exist",
        ),
        // In a draft-07 definition nothing else refers to.
        (
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"$ref": "#/definitions/b"}}}),
            "Pointer '/definitions/b' does not exist",
        ),
    ] {
        let err = compare_documents(&set(&good), &set(&bad), Options::default())
            .expect_err("no verdict on a schema no validator builds");
        match &err {
            compat::Error::Unresolved {
                pointer,
                version,
                why,
                ..
            } => {
                assert!(
                    ["/properties/a/$ref", "/definitions/a/$ref"].contains(&pointer.as_str()),
                    "{pointer}"
                );
                assert_eq!(*version, compat::Version::New);
                assert!(why.contains(said), "{why}");
            }
            other => panic!("{other}"),
        }
        assert!(err.to_string().contains("rule lint.ref"), "{err}");
    }
    let embedded = json!({
        "$defs": {"x": {
            "$id": "https://example.com/x.json",
            "$defs": {"y": {"type": "string"}},
            "properties": {"a": {"$ref": "#/$defs/y"}},
        }},
        "$ref": "https://example.com/x.json",
    });
    let comparison = compare_documents(&set(&embedded), &set(&embedded), Options::default())
        .expect("a reference resolved against its embedded resource leads somewhere");
    assert!(comparison.changes.is_empty(), "{comparison:#?}");
}

/// A pointer into a document the set does not hold says which document is
/// missing, and a report shows the reference as the file writes it.
#[test]
fn a_pointer_into_a_schema_outside_the_set_names_the_schema() {
    let schema = json!({"properties": {"a": {"$ref": "https://example.com/x.json#/a"}}});
    let comparison = compare(&schema, &schema);
    let change = comparison
        .changes
        .iter()
        .find(|c| c.old_pointer.as_deref() == Some("types/Case.json#/properties/a/$ref"))
        .unwrap_or_else(|| panic!("{comparison:#?}"));
    assert!(!change.writer.holds(), "{change:#?}");
    assert!(
        change.why.as_deref().is_some_and(|why| why.contains(
            "a reference names https://example.com/x.json, which is not among the schemas compared"
        )),
        "{change:#?}"
    );
    assert!(
        change.detail.contains("\"https://example.com/x.json#/a\"")
            && !change.detail.contains(".invalid"),
        "{change:#?}"
    );
}

/// Two documents compared alone have no bindings, so the API verdict
/// covers removals: a member removed from any `properties`, or a value from
/// any `enum` of two or more (one listed once), wherever it stands in a generated document
/// (a definition no reference reaches, an `allOf` part, a branch, below a
/// keyword the diff judges whole), breaks the API. Places under keywords
/// that only test a value (`not`, `if`, `contains`, `propertyNames`) are
/// left out: nothing generated from them names a field.
#[test]
fn a_member_or_value_removed_anywhere_breaks_the_api() {
    let mut rng = sample::Rng::new(20_261_204);
    let (mut tried, mut missed) = (0, Vec::new());
    for _ in 0..40 {
        let old = sample::schemas::document(&mut rng);
        for place in sample::schemas::places(&old) {
            let tested_only = place
                .split('/')
                .any(|token| matches!(token, "not" | "if" | "contains" | "propertyNames"));
            if tested_only {
                continue;
            }
            let here = old.pointer(&place).and_then(Value::as_object);
            let member = here
                .and_then(|map| map.get("properties"))
                .and_then(Value::as_object)
                .and_then(|members| members.keys().next().cloned());
            // A value listed once (one listed twice is still there after).
            let once = here
                .and_then(|map| map.get("enum"))
                .and_then(Value::as_array)
                .filter(|values| values.len() >= 2)
                .and_then(|values| {
                    values
                        .iter()
                        .position(|v| values.iter().filter(|w| *w == v).count() == 1)
                });
            let mut edits: Vec<(String, Value)> = Vec::new();
            if let Some(name) = member {
                let mut new = old.clone();
                if let Some(Value::Object(members)) =
                    new.pointer_mut(&format!("{place}/properties"))
                {
                    members.remove(&name);
                }
                edits.push((format!("{place}: member {name:?} removed"), new));
            }
            if let Some(index) = once {
                let mut new = old.clone();
                if let Some(Value::Array(values)) = new.pointer_mut(&format!("{place}/enum")) {
                    values.remove(index);
                }
                edits.push((format!("{place}: enum value {index} removed"), new));
            }
            for (what, new) in edits {
                // A pair the checker refuses to load gets no verdict at all.
                let Ok(comparison) = compare_documents(&set(&old), &set(&new), Options::default())
                else {
                    continue;
                };
                tried += 1;
                if comparison.api == Verdict::Compatible {
                    missed.push(format!("{what} in {old}"));
                }
            }
        }
    }
    assert!(tried >= 100, "only {tried} removals were judged");
    assert!(
        missed.is_empty(),
        "API said to hold after {} of {tried} removals:\n{}",
        missed.len(),
        missed.join("\n")
    );
}

/// A document kept unread because it nests too deep names what nobody
/// listed: the API cannot be decided, as W and R cannot, even between two
/// copies of it.
#[test]
fn a_document_too_deep_to_read_leaves_the_api_undecided() {
    let mut schema = json!({"type": "string"});
    for _ in 0..140 {
        schema = json!({"type": "array", "items": schema});
    }
    let text = schema.to_string();
    let comparison = compare_sets_of(set_text(&text), set_text(&text));
    assert_eq!(comparison.api, Verdict::Breaking, "{comparison:#?}");
    assert!(
        comparison.changes.iter().any(|c| c.rule == "api.changed"
            && c.undecided
                .as_deref()
                .is_some_and(|u| u.contains("levels deep"))),
        "{comparison:#?}"
    );
}

/// A schema that is only a reference to itself cannot be decided even
/// against a copy of itself (validators answer it differently): both ways
/// break, and the words say no change was found, not that changes combine.
#[test]
fn a_schema_that_only_refers_to_itself_stays_undecided_against_itself() {
    let schema = json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]});
    let comparison = compare(&schema, &schema);
    assert_eq!(comparison.writer, Verdict::Breaking, "{comparison:#?}");
    assert_eq!(comparison.reader, Verdict::Breaking, "{comparison:#?}");
    assert!(
        comparison.changes.iter().all(|c| c.rule == "shape.changed"
            && c.detail.contains("no change was found part by part")
            && c.why
                .as_deref()
                .is_some_and(|why| why.contains("cannot decide"))),
        "{comparison:#?}"
    );
}

/// A `pattern` or `patternProperties` name no validator compiles makes the
/// document no schema (validators refuse it, each its own way): an error
/// naming the place, not a verdict.
#[test]
fn a_pattern_that_does_not_compile_is_no_schema() {
    let good = json!({"type": "object"});
    for (bad, pointer) in [
        (
            json!({"properties": {"a": {"pattern": "(["}}}),
            "/properties/a/pattern",
        ),
        (
            json!({"patternProperties": {"^(a/b": {"type": "string"}}}),
            "/patternProperties/^(a~1b",
        ),
    ] {
        let err = compare_documents(&set(&good), &set(&bad), Options::default())
            .expect_err("no verdict on a schema no validator builds");
        match err {
            compat::Error::NotASchema {
                pointer: at,
                version,
                ..
            } => {
                assert_eq!(at, pointer);
                assert_eq!(version, compat::Version::New);
            }
            other => panic!("{other}"),
        }
    }
}

/// The refusal of a reference that leads nowhere agrees with the validator,
/// over generated documents (whose changes refer to any `$defs` name, there
/// or not): compat refuses a document exactly when the validator cannot be
/// built for it with every definition reached.
#[test]
fn a_reference_is_refused_exactly_when_the_validator_cannot_resolve_it() {
    const URI: &str = "https://probe.invalid/doc.json";
    let builds = |doc: &Value| -> Option<bool> {
        let registry = jsonschema::Registry::new()
            .extend([(URI.to_string(), doc.clone())])
            .ok()?
            .prepare()
            .ok()?;
        let mut reached = vec![json!({ "$ref": URI })];
        if let Some(defs) = doc.get("$defs").and_then(Value::as_object) {
            reached.extend(defs.keys().map(|name| {
                let token = contract::escape_pointer_token(name);
                json!({ "$ref": format!("{URI}#/$defs/{token}") })
            }));
        }
        let probe = json!({ "allOf": reached });
        Some(
            jsonschema::options()
                .with_registry(&registry)
                .build(&probe)
                .is_ok(),
        )
    };
    let mut rng = sample::Rng::new(20_261_205);
    let (mut refused, mut compared, mut disagreements) = (0, 0, Vec::new());
    for _ in 0..1500 {
        let doc = sample::schemas::changed(&sample::schemas::document(&mut rng), &mut rng);
        let said = match compare_documents(&set(&doc), &set(&doc), Options::default()) {
            Err(compat::Error::NotASchema { .. }) => continue,
            Err(compat::Error::Unresolved { .. }) => false,
            Err(other) => panic!("{other}: {doc}"),
            Ok(_) => true,
        };
        let Some(built) = builds(&doc) else {
            continue;
        };
        if said {
            compared += 1;
        } else {
            refused += 1;
        }
        if said != built {
            disagreements.push(format!(
                "compat compares: {said}, the validator builds: {built}: {doc}"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(
        refused >= 3 && compared >= 1000,
        "{refused} refused, {compared} compared"
    );
}

/// A wide union with one branch narrowed: each writer branch is matched
/// with the reader's branch at its own index first, so the proof fits in
/// its steps and W holds; the other way round, a value shows the break.
#[test]
fn a_wide_union_with_one_branch_narrowed_holds_one_way() {
    for union in ["anyOf", "oneOf"] {
        let schema = |narrowed: Option<i64>| {
            let branches: Vec<Value> = (0..120)
                .map(|i| {
                    let maximum = match narrowed {
                        Some(maximum) if i == 1 => maximum,
                        _ => i + 10,
                    };
                    json!({
                        "type": "object",
                        "properties": {"k": {"const": format!("b{i}")}, "x": {"type": "integer", "maximum": maximum}},
                        "required": ["k"],
                    })
                })
                .collect();
            json!({ union: branches })
        };
        holds(schema(Some(5)), schema(None));
        breaks(schema(None), schema(Some(5)), json!({"k": "b1", "x": 11}));
        // As `cargo xtask compat` compares by default: tolerant readers.
        let comparison = compare_documents(
            &set(&schema(None)),
            &set(&schema(Some(5))),
            Options::default(),
        )
        .expect("compared");
        assert_eq!(
            (comparison.writer, comparison.reader),
            (Verdict::Compatible, Verdict::Breaking),
            "{union}: {comparison:#?}"
        );
    }
}

/// A tolerant reader ignores a field it does not know however the schema
/// closes the object: an optional field added where `unevaluatedProperties:
/// false` closed it holds for new writers with tolerant readers, as it does
/// where `additionalProperties: false` closed it, and breaks them with
/// strict ones (a value with the field shows it).
#[test]
fn a_field_added_to_an_object_closed_by_unevaluated_properties_holds_for_tolerant_readers() {
    for closing in ["additionalProperties", "unevaluatedProperties"] {
        let object = |extra: bool| {
            let mut properties = json!({"a": {"type": "string"}});
            if extra {
                properties["c"] = json!({"type": "boolean"});
            }
            json!({
                "type": "object",
                "allOf": [{"properties": {"b": {"type": "integer"}}}],
                "properties": properties,
                "required": ["a"],
                closing: false,
            })
        };
        let (old, new) = (object(false), object(true));
        let tolerant =
            compare_documents(&set(&old), &set(&new), Options::default()).expect("compared");
        assert_eq!(
            tolerant.writer,
            Verdict::Compatible,
            "{closing}: {tolerant:#?}"
        );
        let strict = compare(&old, &new);
        assert_eq!(strict.writer, Verdict::Breaking, "{closing}: {strict:#?}");
    }
    breaks(
        json!({"type": "object", "properties": {"a": {"type": "string"}, "c": {"type": "boolean"}},
            "unevaluatedProperties": false}),
        json!({"type": "object", "properties": {"a": {"type": "string"}},
            "unevaluatedProperties": false}),
        json!({"c": true}),
    );
}

/// Every word a comparison says is in the files' own terms: generated pairs
/// whose references are absolute (through the document's own `$id`, or to a
/// schema outside the set) never show the URIs the checker registers its
/// views under, in a change or in an error.
#[test]
fn reports_never_show_the_views_uris() {
    const ID: &str = "https://example.com/s.json";
    fn absolute(value: &mut Value, to: &str) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get_mut("$ref") {
                    if let Some(fragment) = reference.strip_prefix('#') {
                        *reference = format!("{to}#{fragment}");
                    }
                }
                map.values_mut().for_each(|v| absolute(v, to));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| absolute(v, to)),
            _ => {}
        }
    }
    let mut rng = sample::Rng::new(20_261_206);
    let (mut changes, mut errors, mut leaks) = (0, 0, Vec::new());
    for index in 0..300 {
        let mut old = sample::schemas::document(&mut rng);
        let mut new = sample::schemas::changed(&old, &mut rng);
        // Two pairs in three through the own `$id`, one to a schema outside.
        let to = if index % 3 == 2 {
            "https://elsewhere.example/x.json"
        } else {
            ID
        };
        for doc in [&mut old, &mut new] {
            absolute(doc, to);
            if let Value::Object(map) = doc {
                map.insert("$id".into(), json!(ID));
            }
        }
        let said = match compare_documents(&set(&old), &set(&new), Options::default()) {
            Ok(comparison) => {
                changes += comparison.changes.len();
                comparison
                    .changes
                    .iter()
                    .flat_map(|c| {
                        [
                            Some(c.detail.clone()),
                            c.why.clone(),
                            c.undecided.clone(),
                            c.old_pointer.clone(),
                            c.new_pointer.clone(),
                        ]
                    })
                    .flatten()
                    .collect::<Vec<_>>()
            }
            Err(err) => {
                errors += 1;
                vec![err.to_string()]
            }
        };
        leaks.extend(
            said.into_iter()
                .filter(|words| words.contains(".invalid/"))
                .map(|words| format!("pair {index}: {words}")),
        );
    }
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
    assert!(changes > 150, "{changes} changes, {errors} errors");
}

/// 2019-09 has no `$dynamicRef`, but its validator's `unevaluated*`
/// follows one: where the definition it names changes, the two versions
/// read apart by that validator are not "compatible" because the draft
/// ignores the keyword.
#[test]
fn a_dynamic_reference_in_2019_09_is_not_taken_as_ignored() {
    let doc = |name: &str| {
        json!({
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "allOf": [{"$dynamicRef": "#/$defs/b"}],
            "unevaluatedProperties": false,
            "$defs": {"b": {"properties": {name: true}}},
        })
    };
    let (old, new) = (doc("x"), doc("y"));
    let reads = |schema: &Value| jsonschema::validator_for(schema).expect("compiles");
    assert!(reads(&old).is_valid(&json!({"x": 1})) && !reads(&new).is_valid(&json!({"x": 1})));
    let comparison = compare_documents(
        &set(&old),
        &set(&new),
        Options {
            readers: Readers::Strict,
            ..Default::default()
        },
    )
    .expect("compared");
    assert!(
        !comparison.writer.holds() && !comparison.reader.holds(),
        "{:#?}",
        comparison.changes
    );
}

/// A reference beside an identifier leads into the resource that
/// identifier names, constraints beside it or not: with nothing searched,
/// the prover alone must not call a writer compatible by reading the
/// reference against the document.
#[test]
fn a_reference_beside_an_identifier_and_constraints_is_not_misread() {
    let old = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "anyOf": [{"type": "number"}, {"$ref": "#/$defs/a"}],
        "$defs": {"a": {"type": ["string", "null"]}},
    });
    let new = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"a": {"type": ["string", "null"]}},
        "anyOf": [{"$id": "r1.json", "$ref": "#/$defs/a",
            "$defs": {"a": {"enum": [[1, "a"]]}}, "exclusiveMaximum": 1}],
    });
    let reads = |schema: &Value| jsonschema::validator_for(schema).expect("compiles");
    assert!(reads(&new).is_valid(&json!([1, "a"])) && !reads(&old).is_valid(&json!([1, "a"])));
    let comparison = compare_documents(
        &set(&old),
        &set(&new),
        Options {
            readers: Readers::Strict,
            search: 0,
            ..Default::default()
        },
    )
    .expect("compared");
    assert!(!comparison.writer.holds(), "{:#?}", comparison.changes);
    // The same with the identifier on an enclosing schema.
    let enclosed = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"a": {"type": ["string", "null"]}},
        "anyOf": [{"$id": "r1.json", "$defs": {"a": {"enum": [[1, "a"]]}},
            "allOf": [{"$ref": "#/$defs/a", "exclusiveMaximum": 1}]}],
    });
    assert!(reads(&enclosed).is_valid(&json!([1, "a"])));
    let comparison = compare_documents(
        &set(&old),
        &set(&enclosed),
        Options {
            readers: Readers::Strict,
            search: 0,
            ..Default::default()
        },
    )
    .expect("compared");
    assert!(!comparison.writer.holds(), "{:#?}", comparison.changes);
}

/// A root `$id` relative to the file's place is the base the document's
/// own references resolve against: a reference to the document by that
/// identifier is followed, not taken for a file the set lacks.
#[test]
fn a_reference_by_the_roots_relative_identifier_is_followed() {
    let doc = |leaf: &str| {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "other.json",
            "type": "object",
            "properties": {"n": {"$ref": "other.json#/$defs/a"}},
            "$defs": {"a": {"type": leaf}},
        })
    };
    let options = Options {
        readers: Readers::Strict,
        search: 200,
        ..Default::default()
    };
    let same =
        compare_documents(&set(&doc("integer")), &set(&doc("integer")), options).expect("compared");
    assert!(same.changes.is_empty(), "{:#?}", same.changes);
    assert!(same.writer.holds() && same.reader.holds());
    let changed =
        compare_documents(&set(&doc("integer")), &set(&doc("string")), options).expect("compared");
    let change = changed.changes.first().expect("a change");
    assert_eq!(
        change.old_pointer.as_deref(),
        Some("types/Case.json#/$defs/a/type"),
        "{change:#?}"
    );
    assert!(change.undecided.is_none(), "{change:#?}");
    assert!(!changed.writer.holds() && !changed.reader.holds());
}

/// A file with an absolute identifier of its own that refers to itself by
/// its name, relative to that identifier, and to a resource it embeds by a
/// path relative to it: followed, not "a document the set does not have".
#[test]
fn a_reference_by_the_files_own_name_is_followed() {
    let doc = |maximum: u64| {
        json!({
            "$id": "https://example.com/d/a.json",
            "properties": {"n": {"$ref": "a.json#/$defs/n"}, "r": {"$ref": "sub/r.json"}},
            "$defs": {
                "n": {"type": "integer", "maximum": maximum},
                "r": {"$id": "sub/r.json", "allOf": [{"$ref": "../a.json#/$defs/n"}]},
            },
        })
    };
    let same = compare(&doc(5), &doc(5));
    assert!(same.changes.is_empty(), "{:#?}", same.changes);
    assert!(same.writer.holds() && same.reader.holds());
    let wider = compare(&doc(5), &doc(6));
    assert_eq!(
        (wider.writer, wider.reader),
        (Verdict::Breaking, Verdict::Compatible),
        "{wider:#?}"
    );
    assert!(
        wider.changes.iter().all(|c| c.undecided.is_none()),
        "{wider:#?}"
    );
}

/// A document compared with itself, readers strict, has no change and holds
/// both ways, unless it cannot be validated at all (a reference cycle that
/// comes back without reading into the value, or is refused): "cannot
/// decide" must not stand for "nothing changed".
#[test]
fn a_document_compared_with_itself_holds_both_ways() {
    let mut rng = sample::Rng::new(20_261_207);
    let (mut held, mut cycles, mut wrong) = (0, 0, Vec::new());
    for _ in 0..400 {
        let doc = sample::schemas::changed(&sample::schemas::document(&mut rng), &mut rng);
        let Ok(comparison) = compare_documents(
            &set(&doc),
            &set(&doc),
            Options {
                readers: Readers::Strict,
                ..Default::default()
            },
        ) else {
            continue;
        };
        if comparison.changes.is_empty() && comparison.writer.holds() && comparison.reader.holds() {
            held += 1;
        } else if comparison.changes.iter().all(|c| {
            c.why.as_deref().is_some_and(|why| {
                why.contains(
                    "a reference cycle comes back to this schema without reading into the value",
                ) || why.contains("references lead to references more than 64 times")
            })
        }) {
            cycles += 1;
        } else {
            wrong.push(format!("{doc}: {:#?}", comparison.changes));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(held > 300, "{held} held, {cycles} cycles");
}

/// A document moved from draft-07 to 2020-12 keeps the names of its
/// definitions (`definitions/x` is `$defs/x` to a generator); one defined
/// under both keywords is two types, and losing either breaks the API.
#[test]
fn definitions_moved_to_defs_keep_their_names() {
    let draft7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"x": {"type": "object", "properties": {"a": {"type": "string"}}}},
        "type": "object",
        "properties": {"x": {"$ref": "#/definitions/x"}},
    });
    let current = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"x": {"type": "object", "properties": {"a": {"type": "string"}}}},
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/x"}},
    });
    let comparison =
        compare_documents(&set(&draft7), &set(&current), Options::default()).expect("compared");
    assert_eq!(comparison.api, Verdict::Compatible, "{comparison:#?}");
    let both = json!({
        "definitions": {"x": {"type": "string"}},
        "$defs": {"x": {"type": "integer"}},
    });
    let one = json!({"definitions": {"x": {"type": "string"}}});
    let comparison =
        compare_documents(&set(&both), &set(&one), Options::default()).expect("compared");
    assert_eq!(comparison.api, Verdict::Breaking, "{comparison:#?}");
    // Three definitions of one name: each of them counts.
    let inner = |key: &str| json!({ key: {"b": {"type": "string"}} });
    let three = json!({
        "$defs": {"a": inner("definitions")},
        "definitions": {"a": inner("$defs")},
    });
    let mut two = three.clone();
    two["$defs"]["a"] = inner("$defs");
    let mut three = three;
    three["$defs"]["a"]["$defs"] = json!({"b": {"type": "integer"}});
    let comparison =
        compare_documents(&set(&three), &set(&two), Options::default()).expect("compared");
    assert_eq!(comparison.api, Verdict::Breaking, "{comparison:#?}");
    assert!(
        comparison.changes.iter().any(|c| c
            .detail
            .contains("type /$defs/a/$defs/b: named by 3 places → 2")),
        "{comparison:#?}"
    );
}

/// A draft-07 document that keeps its definitions under `$defs` (its
/// validator follows a pointer there) compared with its 2020-12 version:
/// compared, not refused as a reference that leads nowhere, and with
/// another draft-07 version as well; a pointer to what the move to 2020-12
/// renames (a tuple's `items`) cannot be decided.
#[test]
fn a_draft_7_document_with_defs_is_compared_with_its_2020_12_version() {
    let draft7 = |maximum: u64, reference: &str| {
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$defs": {"n": {"type": "integer", "maximum": maximum}},
            "items": [{"type": "string"}],
            "properties": {"n": {"$ref": reference}},
        })
    };
    let current = json!({
        "$defs": {"n": {"type": "integer", "maximum": 5}},
        "prefixItems": [{"type": "string"}],
        "properties": {"n": {"$ref": "#/$defs/n"}},
    });
    let same = compare(&draft7(5, "#/$defs/n"), &current);
    assert!(same.writer.holds() && same.reader.holds(), "{same:#?}");
    let wider = compare(&draft7(4, "#/$defs/n"), &current);
    assert_eq!(
        (wider.writer, wider.reader),
        (Verdict::Breaking, Verdict::Compatible),
        "{wider:#?}"
    );
    // Two draft-07 versions: each `$defs` entry is a place like any other.
    let both = compare(&draft7(4, "#/$defs/n"), &draft7(5, "#/$defs/n"));
    assert_eq!(
        (both.writer, both.reader),
        (Verdict::Breaking, Verdict::Compatible),
        "{both:#?}"
    );
    assert!(
        both.changes.iter().all(|c| c.undecided.is_none()),
        "{both:#?}"
    );
    let moved = compare(&draft7(5, "#/items/0"), &current);
    assert!(!moved.writer.holds() && !moved.reader.holds(), "{moved:#?}");
    // Said of the file: the place it names is there, the rewrite moves it.
    assert!(
        undecided_saying(&moved, "$ref", "renames or drops"),
        "{moved:#?}"
    );
}

/// A reference from another file by pointer into a draft-07 document
/// moved to 2020-12: where the move renames the place it names, "cannot
/// decide" (not a reference that leads nowhere).
#[test]
fn a_pointer_from_another_file_to_what_the_rewrite_moves_cannot_be_decided() {
    let two =
        |case: Value, other: Value| files([("types/Case.json", case), ("types/Tuple.json", other)]);
    let old = two(
        json!({"properties": {"v": {"$ref": "Tuple.json#/items/0"}}}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}),
    );
    let new = two(
        json!({"properties": {"v": {"$ref": "Tuple.json#/prefixItems/0"}}}),
        json!({"prefixItems": [{"type": "string"}]}),
    );
    let comparison = compare_sets_of(old, new);
    assert!(
        !comparison.writer.holds() && !comparison.reader.holds(),
        "{comparison:#?}"
    );
    assert!(
        comparison.changes.iter().any(|c| c
            .why
            .as_deref()
            .is_some_and(|why| why.contains("another file"))),
        "{comparison:#?}"
    );
}

/// The validator reads what lies below a schema with a `$schema` of its
/// own in that draft when it descends there, and in the draft of the
/// resource a reference names when one leads there: which draft a place is
/// read in depends on the way there, so a document that mixes drafts is
/// "cannot decide", the place it mixes them named.
#[test]
fn a_schema_of_another_draft_inside_a_document_cannot_be_decided() {
    let d7 = "http://json-schema.org/draft-07/schema#";
    let d6 = "http://json-schema.org/draft-06/schema#";
    let d2020 = "https://json-schema.org/draft/2020-12/schema";
    // Inside a draft-07 document, a 2020-12 resource whose member's
    // `dependentRequired` goes: the old reader refused {"a": 1} there.
    let inner = |member: Value| {
        json!({"$schema": d7, "properties": {"v": {"$id": "r.json", "$schema": d2020,
            "properties": {"w": member}}}})
    };
    let gone = compare(
        &inner(json!({"dependentRequired": {"a": ["b"]}})),
        &inner(json!({})),
    );
    // Inside a 2020-12 document, a draft-06 schema (whose `if` and `then`
    // its validator ignores) that becomes 2020-12 when its `$schema` goes.
    let own = |schema: Option<&str>| {
        let mut v = json!({"if": {"type": "string"}, "then": {"maxLength": 1}});
        if let Some(uri) = schema {
            v["$schema"] = json!(uri);
        }
        json!({"properties": {"v": v}})
    };
    let read_now = compare(&own(Some(d6)), &own(None));
    for (comparison, direction) in [(&gone, gone.writer), (&read_now, read_now.reader)] {
        assert_eq!(direction, Verdict::Breaking, "{comparison:#?}");
        assert!(
            undecided_saying(comparison, "$schema", "#/properties/v"),
            "{comparison:#?}"
        );
    }
}

/// A number is compared by its value, as the validator compares `const`
/// and `enum` values: `1.0` is `1`, so an enum or a `const` respelled so is
/// no change (the API included), and a value removed beside them is named.
#[test]
fn a_whole_number_respelled_is_the_same_value() {
    let read = |text: &str| serde_json::from_str::<Value>(text).expect("JSON");
    for (old, new) in [
        (r#"{"enum": [1, 2]}"#, r#"{"enum": [1.0, 2e0]}"#),
        (r#"{"const": {"a": [0]}}"#, r#"{"const": {"a": [-0.0]}}"#),
    ] {
        let comparison = compare(&read(old), &read(new));
        assert!(
            comparison.changes.is_empty(),
            "{old} → {new}: {comparison:#?}"
        );
        assert_eq!(comparison.api, Verdict::Compatible);
    }
    let comparison = compare(&read(r#"{"enum": [1, 2]}"#), &read(r#"{"enum": [2.0]}"#));
    let rules: Vec<(String, &str)> = comparison
        .changes
        .iter()
        .map(|c| (c.rule.to_string(), c.detail.as_str()))
        .collect();
    assert_eq!(
        rules,
        [("enum.value_removed".to_string(), "enum value 1 removed")]
    );
    assert_eq!(comparison.writer, Verdict::Compatible);
    assert_eq!(comparison.reader, Verdict::Breaking);
}

/// A name a reader's `dependencies` asks for, where the writer's has no
/// entry for that trigger, breaks: the two were taken for the same schema
/// when the extra entry stood on the reader's side only (found by one-step
/// edits of generated documents).
#[test]
fn a_dependency_the_reader_alone_asks_for_breaks() {
    for draft in [
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2020-12/schema",
    ] {
        let with = |dependencies: Value| json!({"$schema": draft, "dependencies": dependencies});
        breaks(with(json!({})), with(json!({"x": ["y"]})), json!({"x": 1}));
        breaks(
            with(json!({"z": {"type": "object"}})),
            with(json!({"z": {"type": "object"}, "x": ["y"]})),
            json!({"x": 1}),
        );
        holds(with(json!({"x": ["y"]})), with(json!({})));
    }
}

/// The validator skips an empty reference (`"$ref": ""`, which RFC 3986
/// reads as the enclosing resource): a writer whose items refer to it
/// writes anything there. Proved as the whole document it was called
/// compatible with a reader whose items are arrays (found by one-step
/// edits of generated documents); it is "cannot decide" instead.
#[test]
fn an_empty_reference_is_read_as_the_validator_reads_it() {
    let array_of = |items: Value| json!({"type": "array", "items": items});
    breaks(
        array_of(json!({"$ref": ""})),
        array_of(json!({"type": "array"})),
        json!([1]),
    );
    breaks(
        array_of(json!({"$dynamicRef": ""})),
        array_of(json!({"$dynamicRef": "#"})),
        json!([1]),
    );
    check(
        array_of(json!({"$ref": ""})),
        array_of(json!({"$ref": "#"})),
        Expect::Undecided("$ref"),
    );
}

/// An embedded resource whose `$id` is on json-schema.org is read by the
/// validator against the meta-schema it holds there (an anchor looked up
/// there made it panic), and one whose `$id` another schema of the document
/// has is one of two to it: "cannot decide: $id", never a panic, even where
/// nothing changed (found by one-step edits of generated documents).
#[test]
fn an_identifier_the_validator_holds_elsewhere_is_undecided() {
    let embedded = |id: &str| {
        json!({"properties": {"x": {
            "$id": id,
            "$defs": {"a": {"$anchor": "own", "type": "string"}},
            "$ref": "#own"
        }}})
    };
    for id in [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2020-12/meta/core",
        "HTTP://JSON-SCHEMA.ORG/draft-07/schema",
    ] {
        check(embedded(id), embedded(id), Expect::Undecided("$id"));
        check(embedded("own.json"), embedded(id), Expect::Undecided("$id"));
    }
    // Two resources of one identifier (an anchor looked up in the one the
    // validator did not keep made it panic too).
    let twice = json!({"properties": {
        "x": {"$id": "a.json", "$defs": {"a": {"$anchor": "own"}}, "$ref": "#own"},
        "y": {"$id": "./a.json", "$defs": {"b": {"$anchor": "other"}}, "$ref": "#other"}
    }});
    let mut narrowed = twice.clone();
    narrowed["minProperties"] = json!(1);
    check(twice, narrowed, Expect::Undecided("$id"));
}

/// A reader that asks for a member beside another the writer never sends
/// (a closed object without it, or one whose schema there is `false`)
/// takes everything the writer sends; one the writer may send breaks.
#[test]
fn a_dependency_on_a_member_the_writer_never_has_holds() {
    // `z` reaches a keyword the canonical form is not asked about, so the
    // keyword-by-keyword proof alone decides.
    let closed = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "z": {"$ref": "#/$defs/u"}},
        "patternProperties": {"^p": true},
        "additionalProperties": false,
        "$defs": {"u": {"unevaluatedItems": false}}
    });
    let with = |key: &str, value: Value| {
        let mut schema = closed.clone();
        schema[key] = value;
        schema
    };
    for (key, names) in [
        ("dependentRequired", json!(["y"])),
        ("dependencies", json!(["y"])),
        ("dependentSchemas", json!({"required": ["y"]})),
        ("dependencies", json!({"required": ["y"]})),
    ] {
        holds(closed.clone(), with(key, json!({"x": names})));
        breaks(
            closed.clone(),
            with(key, json!({"a": names})),
            json!({"a": ""}),
        );
        breaks(
            closed.clone(),
            with(key, json!({"px": names})),
            json!({"px": 1}),
        );
    }
    let refused = json!({
        "type": "object",
        "properties": {"x": false, "z": {"$ref": "#/$defs/u"}},
        "$defs": {"u": {"unevaluatedItems": false}}
    });
    let mut asking = refused.clone();
    asking["dependentRequired"] = json!({"x": ["y"]});
    holds(refused, asking.clone());
    asking["properties"]["x"] = json!(true);
    breaks(
        json!({"type": "object", "properties": {"x": true}}),
        asking,
        json!({"x": 1}),
    );
}

/// The validator reads a `required` that names a member twice (where no
/// meta-schema looked: a `$defs` in draft 6) as asking for that many
/// members, so `{"x": 1}` fails `required: ["x", "x"]`: such a reader is
/// not taken as asking for `x` alone (found by one-step edits of generated
/// documents).
#[test]
fn a_name_required_twice_is_read_as_the_validator_reads_it() {
    let asking = |names: Value| {
        json!({
            "$schema": "http://json-schema.org/draft-06/schema#",
            "$defs": {"a": {"required": names}},
            "properties": {"next": {"$ref": "#/$defs/a"}}
        })
    };
    breaks(
        asking(json!(["x"])),
        asking(json!(["x", "x"])),
        json!({"next": {"x": 1}}),
    );
}

/// 2019-09 defines `$recursiveRef` for `"#"` only. The validator read
/// another value unlike the specification once a reference elsewhere led to
/// the schema around it (from a member no array has): an item no tuple
/// reaches failed. The keyword proof read the specification and called the
/// change compatible (found by one-step edits with a `$ref` renamed
/// `$recursiveRef`, seed 159); it is "cannot decide" instead, and `"#"`
/// is still read.
#[test]
fn a_recursive_reference_elsewhere_than_the_root_is_undecided() {
    let document = |tuple: Value, elsewhere: bool| {
        let mut document = json!({
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "type": "array",
            "items": {"$ref": "#/$defs/b"},
            "$defs": {"b": {"allOf": [{"items": tuple}]}}
        });
        if elsewhere {
            document["allOf"] = json!([{"properties": {"v": {"$ref": "#/$defs/b/allOf/0"}}}]);
        }
        document
    };
    let writer = document(json!(false), false);
    breaks(
        writer.clone(),
        document(json!([{"$recursiveRef": "#/$defs/b"}]), true),
        json!([[], [], 683]),
    );
    check(
        writer.clone(),
        document(json!([{"$recursiveRef": "#/$defs/b"}]), false),
        Expect::Undecided("$recursiveRef"),
    );
    holds(writer, document(json!([{"$recursiveRef": "#"}]), true));
}

/// The validator reads a count written as a float (`minContains: 0.0`) as
/// the integer: a writer asking for no match at all passes `[]`, which a
/// reader's `contains` refuses. The proof of `contains` read the writer's
/// count as absent, so as one, and called the change compatible (found by
/// one-step edits with numbers respelled, seed 174). Counts are read as
/// the validator reads them, whatever their spelling.
#[test]
fn a_count_written_as_a_float_is_read_as_its_integer() {
    breaks(
        json!({"contains": {}, "minContains": 0.0}),
        json!({"contains": {}}),
        json!([]),
    );
    breaks(
        json!({"contains": {}, "minContains": 1.0}),
        json!({"contains": {}, "minContains": 2}),
        json!([1]),
    );
    holds(
        json!({"contains": {}, "minContains": 2.0}),
        json!({"contains": {}, "minContains": 2}),
    );
    holds(json!({"minItems": 2.0}), json!({"minItems": 1}));
    holds(json!({"maxLength": 1}), json!({"maxLength": 2.0}));
    breaks(
        json!({"maxItems": 2.0}),
        json!({"maxItems": 1}),
        json!([1, 2]),
    );
}

/// `$recursiveRef` is no 2020-12 keyword, yet that draft's validator
/// follows it where it collects what `unevaluatedItems` and
/// `unevaluatedProperties` see past (here to the root, whose `prefixItems`
/// then counts as evaluated): the proof read it as an annotation, found
/// the reader's part among the writer's, and called the change compatible
/// (found by one-step edits, seed 174). It is "cannot decide", as
/// `$dynamicRef` is in 2019-09, even in a reader with no `unevaluated*`
/// near.
#[test]
fn a_recursive_reference_in_2020_12_is_undecided() {
    let writer = json!({"allOf": [
        {"prefixItems": [true]},
        {"$recursiveRef": "#", "unevaluatedItems": {"type": "string"}}
    ]});
    let reader = json!({"allOf": [{"unevaluatedItems": {"type": "string"}}]});
    breaks(writer, reader, json!([1]));
    check(
        json!({"minimum": 1}),
        json!({"$recursiveRef": "#", "minimum": 0}),
        Expect::Undecided("$recursiveRef"),
    );
}

/// A file whose `$id` is the identifier a schema inside another file of
/// the set takes: the validator reads one of the two wherever a reference
/// names it (and panicked looking up an anchor in the other). The proof
/// read the reference as leading to the embedded schema, and called a
/// writer compatible whose file made the reference lead to strings (found
/// by one-step edits of split documents, a schema copied into another
/// file, seed 175). Both files are "cannot decide" now, and no panic is
/// met on the way.
#[test]
fn a_file_taking_an_identifier_another_file_embeds_is_undecided() {
    let case = json!({"properties": {
        "w": {"$ref": "r1.json"},
        "x": {"$id": "r1.json", "$defs": {"a": {"$anchor": "own", "type": "integer"}}, "$ref": "#own"}
    }});
    let load = |other: &Value| {
        files([
            ("types/Case.json", case.clone()),
            ("types/DefB.json", other.clone()),
        ])
    };
    let old = load(&json!({"type": "number"}));
    let new = load(&json!({
        "$id": "r1.json", "$defs": {"a": {"$anchor": "own", "type": "string"}}, "$ref": "#own"
    }));
    let options = Options {
        readers: Readers::Strict,
        search: 0,
        ..Default::default()
    };
    let comparison = compare_documents(&old, &new, options).expect("compared");
    assert_eq!(comparison.writer, Verdict::Breaking, "{comparison:#?}");
    assert!(
        undecided_saying(
            &comparison,
            "$id",
            "another document of the set makes a resource"
        ),
        "{comparison:#?}"
    );
}

/// `then` and `else` without an `if` beside them apply to nothing (the
/// validator passes `1` against `{"else": false}`): a reader that gains
/// one holds, where the keyword proof said "cannot decide" (a divisor past
/// 2^53 keeps the canonical form, which knew, from these); beside an `if`
/// they still count.
#[test]
fn then_and_else_without_if_constrain_nothing() {
    let with = |extra: Value| {
        let mut schema = json!({"type": "integer", "multipleOf": 18014398509481984u64});
        if let (Some(schema), Value::Object(extra)) = (schema.as_object_mut(), extra) {
            schema.extend(extra);
        }
        schema
    };
    holds(with(json!({})), with(json!({"else": false})));
    holds(with(json!({})), with(json!({"then": false})));
    breaks(
        with(json!({})),
        with(json!({"if": true, "then": false})),
        json!(0),
    );
    breaks(
        with(json!({})),
        with(json!({"if": false, "else": false})),
        json!(0),
    );
}

/// `patternProperties` on one side only decide nothing where no name
/// outside `properties` meets them: a writer whose every other name meets
/// `false`, or a reader that asks nothing of other names. A reader that
/// gains one beside a closed writer holds, where the keyword proof said
/// "cannot decide: patternProperties ... present on one side only";
/// a writer that may send another name still meets the reader's patterns.
#[test]
fn patterns_on_one_side_decide_nothing_no_undeclared_name_meets() {
    let object = |members: Value| {
        let mut schema = json!({"type": "object", "properties": {"x": {"type": "integer"}}});
        if let (Some(schema), Value::Object(members)) = (schema.as_object_mut(), members) {
            schema.extend(members);
        }
        schema
    };
    let closed = json!({"additionalProperties": false});
    holds(
        object(json!({"additionalProperties": false, "patternProperties": {"^y": false}})),
        object(closed.clone()),
    );
    holds(
        object(closed.clone()),
        object(json!({"patternProperties": {"^y": {"type": "string"}}})),
    );
    holds(
        json!({"type": "object", "patternProperties": {"x": {"type": "integer"}}}),
        object(json!({})),
    );
    breaks(
        object(json!({})),
        object(json!({"patternProperties": {"^y": {"type": "string"}}})),
        json!({"y": 1}),
    );
    breaks(
        object(json!({"additionalProperties": false, "patternProperties": {"^y": {}}})),
        object(closed),
        json!({"y": 1}),
    );
    breaks(
        json!({"type": "object", "patternProperties": {"x": {"type": "integer"}}}),
        object(json!({"properties": {"x": {"minimum": 5}}})),
        json!({"x": 1}),
    );
    breaks(
        json!({"properties": {"xa": {}}, "patternProperties": {"^x": {"type": "integer"}}}),
        json!({"properties": {"xa": {"type": "string"}}}),
        json!({"xa": 1}),
    );
}

/// Drafts 4 to 7 ignore what stands beside a `$ref`, an identifier too:
/// the validator resolves `#/definitions/a` against the document, not
/// against the `$id` beside it. The checker's resolver took the `$id`, read
/// the two schemas below as one, and called the writer compatible where
/// `{"p": {"x": 1}}` refutes it; such a document is now "cannot decide".
#[test]
fn an_identifier_beside_a_reference_in_draft_7_is_undecided() {
    let with = |inner: Value| {
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"a": {"enum": [null]}},
            "properties": {"p": inner},
        })
    };
    let embedded = json!({"a": {"enum": [{"x": 1}]}});
    let beside = with(json!({"$id": "r.json", "$ref": "#/definitions/a", "definitions": embedded}));
    let inside = with(
        json!({"$id": "r.json", "allOf": [{"$ref": "#/definitions/a"}], "definitions": embedded}),
    );
    let value = json!({"p": {"x": 1}});
    let accepts = |schema: &Value| jsonschema::validator_for(schema).map(|v| v.is_valid(&value));
    assert_eq!(accepts(&inside).ok(), Some(true), "the case is wrong");
    assert_eq!(accepts(&beside).ok(), Some(false), "the case is wrong");
    check(inside, beside, Expect::Undecided("$id"));
}

/// The same across files: the schema with the identifier beside it is
/// unchanged, and the file the validator reads for its reference
/// (`events/T.json`, the identifier ignored) changed, while the file the
/// identifier would lead to (`methods/T.json`) did not: not compatible.
#[test]
fn a_file_an_ignored_identifier_hides_is_still_compared() {
    let d7 = "http://json-schema.org/draft-07/schema#";
    let case =
        json!({"$schema": d7, "properties": {"p": {"$id": "../methods/r.json", "$ref": "T.json"}}});
    let load = |t: Value| {
        files([
            ("events/Case.json", case.clone()),
            ("events/T.json", t),
            ("methods/T.json", json!({"$schema": d7, "type": "integer"})),
        ])
    };
    let old = load(json!({"$schema": d7, "type": "string"}));
    let new = load(json!({"$schema": d7, "type": "boolean"}));
    let comparison = compare_documents(&old, &new, Options::default()).expect("compares");
    for verdict in [comparison.writer, comparison.reader] {
        assert_eq!(verdict, Verdict::Breaking, "{comparison:#?}");
    }
}

/// A root whose identifier names another place than its file, beside a
/// `$ref`, in draft 7: the validator reads the file at its own place, so a
/// relative reference there leads to another file than the identifier
/// would make it. The checker followed it by the identifier, out of the
/// document (past its obstacle), to one file on both sides, and called the
/// two compatible both ways.
#[test]
fn a_root_identifier_naming_another_place_beside_a_reference_is_undecided() {
    let d7 = "http://json-schema.org/draft-07/schema#";
    let load = |case: Value| {
        files([
            ("events/Case.json", case),
            ("events/T.json", json!({"$schema": d7, "type": "string"})),
            ("methods/T.json", json!({"$schema": d7, "type": "integer"})),
        ])
    };
    let old = json!({"$schema": d7, "$id": "../methods/Case.json", "$ref": "T.json"});
    let new = json!({"$schema": d7, "$id": "../methods/Case.json", "allOf": [{"$ref": "T.json"}]});
    let comparison =
        compare_documents(&load(old), &load(new), Options::default()).expect("compares");
    for verdict in [comparison.writer, comparison.reader] {
        assert_eq!(verdict, Verdict::Breaking, "{comparison:#?}");
    }
    assert!(
        undecided_saying(&comparison, "$id", "cannot decide: $id at"),
        "{comparison:#?}"
    );
}

/// A file compared alone whose root identifier is a URN (no authority, a
/// rootless path): the validator resolves no relative identifier or
/// reference against it and refuses the whole document, while the checker
/// read `other.json` against the file's own place and found the two files
/// alike (found on the JSON Schema Test Suite's `ref.json`, one keyword
/// added). Such a document is "cannot decide" wherever it is reached.
#[test]
fn a_relative_identifier_no_validator_resolves_against_the_base_is_undecided() {
    let d = "https://json-schema.org/draft/2020-12/schema";
    let with = |bar: Value| {
        json!({
            "$schema": d,
            "$id": "urn:example:1/406/47452/2",
            "$defs": {"bar": bar},
            "properties": {"foo": {"$ref": "#/$defs/bar"}},
        })
    };
    let plain = with(json!({"type": "string"}));
    for (keyword, bar) in [
        ("$id", json!({"$id": "other.json", "type": "string"})),
        ("$ref", json!({"$ref": "Case.json", "type": "string"})),
    ] {
        let odd = with(bar);
        assert!(
            jsonschema::validator_for(&plain).is_ok(),
            "the case is wrong"
        );
        assert!(
            jsonschema::validator_for(&odd).is_err(),
            "the case is wrong: the validator compiles {odd}"
        );
        undecided_both_ways(&plain, &odd, keyword);
    }
    // The same below a schema inside that takes the URN, the root having
    // no identifier (seed 13 of the suite oracle).
    let inside = |bar: Value| {
        json!({
            "$schema": d,
            "$ref": "urn:uuid:deadbeef-4321-ffff-ffff-1234feebdaed",
            "$defs": {"foo": {
                "$id": "urn:uuid:deadbeef-4321-ffff-ffff-1234feebdaed",
                "$ref": "#/$defs/bar",
                "$defs": {"bar": bar},
            }},
        })
    };
    let (plain, odd) = (
        inside(json!({"type": "string"})),
        inside(json!({"$id": "other.json", "type": "string"})),
    );
    assert!(
        jsonschema::validator_for(&plain).is_ok(),
        "the case is wrong"
    );
    assert!(
        jsonschema::validator_for(&odd).is_err(),
        "the case is wrong"
    );
    undecided_both_ways(&plain, &odd, "$id");
}

/// An empty reference in a file whose own identifier is absolute: the
/// validator skips it, and the checker says it cannot decide it; but it
/// first resolved the reference against the identifier, where it became a
/// reference to the file's root, and called a writer with it compatible
/// with one that refers to the root by name (the test suite's `ref.json`,
/// the reference emptied, refuted by `{"foo": 12}`).
#[test]
fn an_empty_reference_stays_empty_beside_an_absolute_identifier() {
    let with = |reference: &str| {
        json!({
            "$schema": "http://json-schema.org/draft-06/schema#",
            "$id": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed",
            "minimum": 30,
            "properties": {"foo": {"$ref": reference}},
        })
    };
    let (named, empty) = (
        with("urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"),
        with(""),
    );
    let value = json!({"foo": 12});
    let accepts = |schema: &Value| jsonschema::validator_for(schema).map(|v| v.is_valid(&value));
    assert_eq!(accepts(&empty).ok(), Some(true), "the case is wrong");
    assert_eq!(accepts(&named).ok(), Some(false), "the case is wrong");
    check(empty, named, Expect::Undecided("$ref"));
}

/// A file whose own identifier is a path (`/s/a`) that a schema inside it
/// takes too: the validator reads the file at that path, the two schemas
/// are one resource, and the root's `$ref` to it leads back to the root,
/// so the file accepts `5`. The checker put the root at the file's own
/// place, found no second schema of that identifier and called the file
/// alike to one whose root names another place (the JSON Schema Test
/// Suite's draft 2019-09 `ref.json`, the root's identifier replaced).
#[test]
fn a_root_identifier_a_schema_inside_takes_too_is_undecided() {
    let d = "https://json-schema.org/draft/2020-12/schema";
    let with = |id: &str| {
        json!({
            "$schema": d,
            "$id": id,
            "$ref": "/s/a",
            "$defs": {"a": {"$id": "/s/a", "type": "string"}},
        })
    };
    let (elsewhere, taken) = (with("https://example.com/s/root"), with("/s/a"));
    let value = json!(5);
    let accepts = |schema: &Value| jsonschema::validator_for(schema).map(|v| v.is_valid(&value));
    assert_eq!(accepts(&taken).ok(), Some(true), "the case is wrong");
    assert_eq!(accepts(&elsewhere).ok(), Some(false), "the case is wrong");
    check(taken, elsewhere, Expect::Undecided("$id"));
}

/// A file's own identifier that is no URI reference (a trailing space, a
/// space inside a URN): the validator refuses the document, while the
/// checker, which reads a file at its own place, compared the two as if
/// the identifier were fine (the test suite's `ref.json` again, a space
/// added). Draft 7's meta-schema refuses such a file already.
#[test]
fn an_identifier_that_is_no_uri_is_undecided() {
    for draft in [
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    ] {
        let with = |id: &str| {
            json!({
                "$schema": draft,
                "$id": id,
                "$defs": {"foo": {"type": "number"}},
                "properties": {"foo": {"$ref": "#/$defs/foo"}},
            })
        };
        for (good, bad) in [
            ("file:///folder/file.json", "file:///folder/file.json "),
            ("urn:example:ab", "urn:example:a b"),
            ("Case.json", "Case .json"),
        ] {
            let (good, bad) = (with(good), with(bad));
            assert!(
                jsonschema::validator_for(&good).is_ok(),
                "the case is wrong"
            );
            assert!(
                jsonschema::validator_for(&bad).is_err(),
                "the case is wrong: the validator compiles {bad}"
            );
            undecided_both_ways(&good, &bad, "$id");
        }
    }
}

/// An identifier on a host whose name merely ends in `json-schema.org`
/// (`test.json-schema.org`) is the file's own, not one of the
/// specification's meta-schemas. The checker kept such URIs where they
/// were instead of moving them into each version's own namespace, so the
/// old and the new file registered their embedded resources under one URI,
/// and which version a reference reached changed from run to run: a
/// narrowed bound was now compatible, now not (the JSON Schema Test Suite's
/// `dynamicRef.json`, a `const` added). Compared many times over, since
/// the order the registry met the two in was what decided.
#[test]
fn an_identifier_on_a_host_named_like_the_specifications_is_the_files_own() {
    let with = |bar: Value| {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://test.json-schema.org/suite/root",
            "$ref": "extended",
            "$defs": {"extended": {"$id": "extended", "properties": {"bar": bar}}},
        })
    };
    let wide = with(json!({"type": "integer"}));
    let narrow = with(json!({"type": "integer", "minimum": 5}));
    for _ in 0..16 {
        breaks(wide.clone(), narrow.clone(), json!({"bar": 1}));
        holds(narrow.clone(), wide.clone());
    }
}

/// A writer's `if: false` applies its `else`, `if: true` its `then`, and
/// `not: {not: X}` is X on either side: the branch inside the reader proves
/// the writer is (a schema moved into `else` beside `if: false`, or into
/// `not: {not: ...}`, was "cannot decide" one way round, found by contract
/// edits, seeds 10022010 and 10030035). A divisor past 2^53
/// keeps the canonical form, which knew, from these. Where the draft has no
/// `if` (draft 6), or the `not` holds more than a `not`, nothing follows.
#[test]
fn a_condition_a_boolean_settles_is_read_as_its_branch() {
    let big = 18014398509481984u64;
    let integer = json!({"type": "integer", "multipleOf": big});
    holds(
        json!({"if": false, "else": integer.clone()}),
        integer.clone(),
    );
    holds(
        json!({"if": true, "then": integer.clone()}),
        integer.clone(),
    );
    holds(json!({"not": {"not": integer.clone()}}), integer.clone());
    holds(integer.clone(), json!({"not": {"not": integer.clone()}}));
    breaks(
        json!({"if": false, "then": integer.clone()}),
        integer.clone(),
        json!("a"),
    );
    breaks(
        json!({"not": {"not": integer.clone(), "minimum": 5}}),
        integer.clone(),
        json!(1.5),
    );
    breaks(
        json!({"type": "number"}),
        json!({"not": {"not": integer.clone()}}),
        json!(1.5),
    );
    let d6 = "http://json-schema.org/draft-06/schema#";
    breaks(
        json!({"$schema": d6, "if": false, "else": {"type": "integer"}}),
        json!({"$schema": d6, "type": "integer"}),
        json!("a"),
    );
}

/// A writer's `allOf` part (or a reference's target, beside which the
/// writer has keywords of its own) that implies one keyword of the reader
/// proves that keyword, though neither the part nor the rest of the writer
/// is inside the whole reader (a `required` moved into a part, say).
#[test]
fn a_reader_keyword_one_writer_part_implies_holds() {
    let big = 18014398509481984u64;
    let name = json!({"type": "integer", "multipleOf": big});
    let reader = json!({"type": "object", "properties": {"n": name.clone()}, "required": ["n"]});
    holds(
        json!({"type": "object", "properties": {"n": name.clone()}, "allOf": [{"required": ["n"]}]}),
        reader.clone(),
    );
    holds(
        json!({"$defs": {"part": {"required": ["n"]}}, "type": "object",
               "properties": {"n": name.clone()}, "allOf": [{"allOf": [{"$ref": "#/$defs/part"}]}]}),
        reader.clone(),
    );
    breaks(
        json!({"type": "object", "properties": {"n": name.clone()}, "anyOf": [{"required": ["n"]}, {"minProperties": 2}]}),
        reader.clone(),
        json!({"a": 1, "b": 2}),
    );
    // Drafts up to 7 ignore what stands beside a reference: a part there
    // proves nothing.
    let d7 = "http://json-schema.org/draft-07/schema#";
    breaks(
        json!({"$schema": d7, "definitions": {"any": {}}, "type": "object",
               "properties": {"n": name.clone()},
               "allOf": [{"$ref": "#/definitions/any", "required": ["n"]}]}),
        json!({"$schema": d7, "type": "object", "properties": {"n": name.clone()}, "required": ["n"]}),
        json!({}),
    );
    // From 2019-09 on, the keywords beside a `$ref` apply with its target:
    // each of the two may imply a keyword of the reader.
    let beside = json!({"$defs": {"n": name.clone()}, "$ref": "#/$defs/n", "minimum": 0});
    holds(
        beside.clone(),
        json!({"type": "integer", "multipleOf": big, "minimum": 0}),
    );
    breaks(
        beside,
        json!({"type": "integer", "multipleOf": big, "minimum": 0, "maximum": 0}),
        json!(big),
    );
}

/// A reader's `not: N` passes every value of a writer whose `type` no
/// value of N has (a string pattern ruled out of an object field, say).
#[test]
fn a_negation_of_other_types_than_the_writers_holds() {
    let big = 18014398509481984u64;
    let name = json!({"type": "integer", "multipleOf": big});
    let object = json!({"type": "object", "properties": {"n": name.clone()}});
    let mut reader = object.clone();
    reader["not"] = json!({"type": "string", "pattern": "[A-Z]"});
    holds(object.clone(), reader.clone());
    reader["not"] = json!({"type": ["string", "object"], "required": ["n"]});
    breaks(object.clone(), reader, json!({"n": big}));
    // `integer` values are numbers too.
    breaks(
        json!({"type": "number", "multipleOf": 0.5}),
        json!({"not": {"type": "integer", "minimum": 1}}),
        json!(1),
    );
}

/// A writer that sends only the members it declares passes a reader's
/// `propertyNames` when each declared name does, as the validator reads it.
#[test]
fn a_closed_writer_whose_every_name_passes_property_names_holds() {
    let big = 18014398509481984u64;
    let name = json!({"type": "integer", "multipleOf": big});
    let writer = json!({"type": "object", "properties": {"ab": name.clone(), "cd": name.clone()},
                        "additionalProperties": false, "patternProperties": {"^x": false}});
    let reader = |names: Value| json!({"type": "object", "properties": {"ab": name.clone(), "cd": name.clone()}, "propertyNames": names});
    holds(writer.clone(), reader(json!({"pattern": "[a-z]"})));
    breaks(
        writer.clone(),
        reader(json!({"maxLength": 1})),
        json!({"ab": big}),
    );
    // A writer that may send other names proves nothing so.
    let mut open = writer.clone();
    open["patternProperties"] = json!({"^x": true});
    breaks(open, reader(json!({"pattern": "^[a-d]"})), json!({"x": 1}));
}

/// Draft 4's validator reads `exclusiveMinimum` only as `true` beside a
/// `minimum`; a number there (where no meta-schema checks it: a place only
/// a reference reads) bounds nothing, where draft 6 reads it as a bound.
#[test]
fn a_numeric_exclusive_bound_in_draft_4_bounds_nothing() {
    let in_draft = |draft: &str| {
        json!({"$schema": format!("http://json-schema.org/{draft}/schema#"),
            "$defs": {"a": {"type": "number", "exclusiveMinimum": 0.1}},
            "allOf": [{"$ref": "#/$defs/a"}]})
    };
    let (four, six) = (in_draft("draft-04"), in_draft("draft-06"));
    breaks(four.clone(), six.clone(), json!(0));
    holds(six, four);
}

/// Draft 7 has no `$defs`, so its meta-schema does not look at an entry
/// there, which its validator still reads where a reference names it.
fn in_draft_7_defs(entry: Value) -> Value {
    json!({"$schema": "http://json-schema.org/draft-07/schema#",
        "$defs": {"a": entry},
        "allOf": [{"$ref": "#/$defs/a"}]})
}

/// A schema the validator refuses to compile (`required: 5`) is read by
/// each validator its own way: the prover, which took it for no
/// requirement, does not say what it holds.
#[test]
fn a_schema_the_validator_cannot_compile_holds_for_nothing() {
    let refused = in_draft_7_defs(json!({"required": 5}));
    let requiring = in_draft_7_defs(json!({"type": "object", "required": ["a"]}));
    check(
        requiring.clone(),
        refused.clone(),
        Expect::Undecided("required"),
    );
    check(refused, requiring, Expect::Undecided("required"));
}

/// The validator takes no number at all under `multipleOf: 0` (each is
/// "not a multiple of 0"); only a meta-schema refuses such a divisor.
#[test]
fn a_divisor_of_zero_takes_no_number() {
    for zero in [json!(0), json!(0.0), json!(-0.0)] {
        breaks(
            in_draft_7_defs(json!({"type": "integer", "minimum": 0})),
            in_draft_7_defs(json!({"multipleOf": zero})),
            json!(0),
        );
    }
}

/// A member that is no schema (`properties: {"x": 0}`) does not compare
/// equal to its absence: the validator refuses to compile the one and not
/// the other.
#[test]
fn a_member_that_is_no_schema_differs_from_none() {
    let holding = in_draft_7_defs(json!({"properties": {"x": 0}}));
    let without = in_draft_7_defs(json!({"properties": {}}));
    check(
        holding.clone(),
        without.clone(),
        Expect::Undecided("properties"),
    );
    check(without, holding, Expect::Undecided("properties"));
    let listed = in_draft_7_defs(json!({"allOf": [{}, 5]}));
    let shorter = in_draft_7_defs(json!({"allOf": [{}]}));
    check(listed.clone(), shorter.clone(), Expect::Undecided("allOf"));
    check(shorter, listed, Expect::Undecided("allOf"));
}

/// Draft 4 takes no `5.0` for a length, and its meta-schema does not look
/// below `$defs` (a later draft's keyword); the validator refuses the
/// place when a reference leads there, where the rewrite in 2020-12, which
/// a change of draft calls for, would read it as 5. A numeric exclusive
/// bound there, which the meta-schema would refuse too, the validator
/// takes (as no bound): that one is compared.
#[test]
fn a_referenced_schema_its_draft_refuses_is_undecided_after_a_rewrite() {
    let document = |schema: &str, length: Value| {
        json!({
            "$schema": schema,
            "$defs": {"c": {"type": "string", "maxLength": length}},
            "properties": {"v": {"$ref": "#/$defs/c"}}
        })
    };
    undecided_both_ways(
        &document("https://json-schema.org/draft/2020-12/schema", json!(5)),
        &document("http://json-schema.org/draft-04/schema#", json!(5.0)),
        "maxLength",
    );
    let bounded = |schema: &str, bound: Value| {
        json!({
            "$schema": schema,
            "$defs": {"c": {"type": "number", "exclusiveMaximum": bound}},
            "properties": {"v": {"$ref": "#/$defs/c"}}
        })
    };
    // Draft 4 reads `exclusiveMaximum: 2` there as no bound: a new
    // 2020-12 reader bounds what an old draft 4 writer sent.
    check(
        bounded("http://json-schema.org/draft-04/schema#", json!(2)),
        bounded("https://json-schema.org/draft/2020-12/schema", json!(2)),
        Expect::Breaks(Some(&json!({"v": 3}))),
    );
}

/// The same, with the refused place in another file than the one whose
/// comparison reaches it: the obstacle names the file that holds it.
#[test]
fn a_refused_place_in_another_file_is_named_where_it_is() {
    let files = |schema: &str, length: &str| {
        let a = format!(
            r##"{{"$schema": "{schema}", "properties": {{"v": {{"$ref": "B.json#/$defs/c"}}}}}}"##
        );
        let b = format!(
            r##"{{"$schema": "{schema}", "$defs": {{"c": {{"type": "string", "maxLength": {length}}}}}}}"##
        );
        SchemaSet::from_texts(
            Path::new("t"),
            [("types/A.json", a.as_str()), ("types/B.json", b.as_str())],
        )
        .expect("two schemas load")
    };
    let comparison = compare_sets_of(
        files("https://json-schema.org/draft/2020-12/schema", "5"),
        files("http://json-schema.org/draft-04/schema#", "5.0"),
    );
    assert_eq!(
        [comparison.writer, comparison.reader],
        [Verdict::Breaking, Verdict::Breaking]
    );
    assert!(
        undecided_saying(
            &comparison,
            "maxLength",
            "cannot decide: maxLength at types/B.json#/$defs/c"
        ),
        "{comparison:#?}"
    );
}

/// A `$ref` into a resource of its own (`$id: "list"`) leaves the root's
/// resource behind only for a check started there: a value's check that
/// starts at the root passes through it, and the root declares the anchor
/// `items` too, which the dynamic reference then means (strings only). The
/// validator put to the list alone means the list's own (anything), and
/// took `[true]`. From the JSON Schema Test Suite's dynamic references.
#[test]
fn a_dynamic_reference_is_not_read_from_a_place_a_reference_led_to() {
    for (id, reference) in [
        (None, "#/$defs/list"),
        (
            Some("https://test.json-schema.org/typical-dynamic-resolution/root"),
            "list",
        ),
    ] {
        let mut reader = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": reference,
            "$defs": {
                "foo": {"$dynamicAnchor": "items", "type": "string"},
                "list": {
                    "$id": "list",
                    "type": "array",
                    "items": {"$dynamicRef": "#items"},
                    "$defs": {"items": {"$dynamicAnchor": "items"}}
                }
            }
        });
        if let Some(id) = id {
            reader["$id"] = json!(id);
        }
        let writer = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "enum": [[true]]
        });
        check(writer, reader, Expect::Undecided("$dynamicRef"));
    }
}

/// Tolerant readers drop `additionalProperties: false`: where a closed
/// object is negated or counted, the opened reader refuses what the same
/// file's writer sends (two `oneOf` branches both take `{"b": 1}`; `not`
/// and `if` then read `{"b": 1}` as `{}`), so a file compared with itself
/// breaks (safe, and said in the README); strict readers read it as
/// written, and it holds.
#[test]
fn a_closed_object_tolerant_readers_open_where_it_is_negated_breaks_even_unchanged() {
    let closed =
        json!({"type": "object", "properties": {"a": true}, "additionalProperties": false});
    for schema in [
        json!({"oneOf": [closed, {"required": ["b"]}]}),
        json!({"type": "object", "not": closed}),
        json!({"if": closed, "then": {"required": ["a"]}}),
    ] {
        let tolerant = compare_documents(&set(&schema), &set(&schema), Options::default())
            .expect("the schemas register");
        assert_eq!(
            [tolerant.writer, tolerant.reader],
            [Verdict::Breaking, Verdict::Breaking],
            "{schema}"
        );
        let strict = compare(&schema, &schema);
        assert_eq!(
            [strict.writer, strict.reader],
            [Verdict::Compatible, Verdict::Compatible],
            "{schema}"
        );
    }
}

/// The validator parses a `$ref` under draft 4's `then`, a keyword draft 4
/// does not read, and refuses the file when the reference is no URI; the
/// rewrite in 2020-12 a change of draft calls for leaves `then` out and
/// reads the rest. Called compatible, the change would ship a reader the
/// validator cannot build (the JSON Schema Test Suite, edited, seed 64).
#[test]
fn a_file_the_validator_refuses_for_a_reference_it_does_not_follow_is_undecided_after_a_rewrite() {
    let later = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "maximum": 10});
    let refused = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 10,
        "then": {"$ref": "a b"}
    });
    assert!(
        jsonschema::validator_for(&refused).is_err(),
        "the case is wrong"
    );
    undecided_both_ways(&later, &refused, "$id");
}

/// A file whose `$id` names another file of the set (`DefB.json` says it
/// is `/types/DefC.json`) makes the validator panic compiling the files as
/// written, where an anchor of the real `DefC.json` is referred to ("a
/// named target lives in its resolver's resource"): no lane's validator
/// can build either side from them, so neither direction is compatible
/// (generated split documents, edited, seed 260).
#[test]
fn files_the_validator_panics_on_as_written_are_undecided() {
    let files = |id: &str| {
        let case = r##"{"$schema": "https://json-schema.org/draft/2019-09/schema",
            "oneOf": [{"type": "boolean"}, {"oneOf": [{"$ref": "/types/DefB.json"}, {"$ref": "/types/DefC.json#c-plain"}]}]}"##;
        let b = format!(
            r##"{{"$schema": "https://json-schema.org/draft/2019-09/schema", "$id": "{id}", "$ref": "/types/DefC.json"}}"##
        );
        let c = r##"{"$schema": "https://json-schema.org/draft/2019-09/schema", "$anchor": "c-plain",
            "type": "array", "items": {"$ref": "/types/DefB.json"}}"##;
        SchemaSet::from_texts(
            Path::new("t"),
            [
                ("types/Case.json", case),
                ("types/DefB.json", b.as_str()),
                ("types/DefC.json", c),
            ],
        )
        .expect("three schemas load")
    };
    let (own, taken) = (files("r776014.json"), files("/types/DefC.json"));
    let builds = |set: &SchemaSet| {
        std::panic::catch_unwind(|| {
            let registry = jsonschema::Registry::new()
                .extend(
                    set.docs
                        .iter()
                        .map(|doc| (doc.expected_id(), doc.value.clone())),
                )
                .and_then(|builder| builder.prepare())
                .expect("registers");
            let root = json!({"$ref": format!("{}types/Case.json", contract::ID_BASE)});
            jsonschema::options()
                .with_registry(&registry)
                .build(&root)
                .is_ok()
        })
        .unwrap_or(false)
    };
    assert!(builds(&own) && !builds(&taken), "the case is wrong");
    for (old, new) in [(&own, &taken), (&taken, &own)] {
        let comparison = compare_sets_of(old.clone(), new.clone());
        assert_eq!(
            [comparison.writer, comparison.reader],
            [Verdict::Breaking, Verdict::Breaking],
            "{comparison:#?}"
        );
    }
}

/// Two files taking one identifier, one of them through a resource nested
/// under `items`, with anchors in both and resource-like objects in
/// `const` and `enum`: the validator panics when compat compiles the old
/// files as written to compare them with their rewrite (the drafts of the
/// two versions differ, and the search is on), and it ended `cargo xtask
/// compat` (the split documents of the oracle, seed 266, document 885).
/// The shared identifier is an obstacle on every file of its version: no
/// file of that set is compiled as written, and its places are "cannot
/// decide".
#[test]
fn a_validator_panic_on_the_files_as_written_is_undecided() {
    // Objects in `const` and `enum` that look like resources: data, which
    // the resolver reads as well.
    let own = r##"{"a": {"$anchor": "own",
        "const": {"$anchor": "a-plain", "$id": "data.json#", "$ref": "/types/DefA.json"},
        "enum": [{"$anchor": "a-plain", "$id": "data.json#", "$ref": "/types/DefA.json"}, null]}}"##;
    let case = r##"{"$defs": {}, "$schema": "https://json-schema.org/draft/2019-09/schema",
        "allOf": [{"items": {"$ref": "/types/DefB.json"}, "type": "array"},
            {"additionalProperties": false, "properties": {"x": {"const": null, "enum": [1, "a"]},
                "y": {"const": "é"}}, "required": ["x"], "type": "object"}]}"##;
    let c = r##"{"$schema": "https://json-schema.org/draft/2019-09/schema", "multipleOf": 3, "type": "integer"}"##;
    let a = format!(
        r##"{{"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "array",
            "items": {{"$defs": {own}, "$id": "r262410.json", "$ref": "#own",
                "$schema": "https://json-schema.org/draft/2019-09/schema"}}}}"##
    );
    let b_old = format!(
        r##"{{"$schema": "https://json-schema.org/draft/2019-09/schema", "$id": "r262410.json",
            "$defs": {own}, "if": false, "else": {{"$ref": "#own"}}}}"##
    );
    let b_new = r##"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "number", "multipleOf": 3.0}"##;
    let set = |b: &str| {
        SchemaSet::from_texts(
            Path::new("cases"),
            [
                ("types/Case.json", case),
                ("types/DefA.json", a.as_str()),
                ("types/DefB.json", b),
                ("types/DefC.json", c),
            ],
        )
        .expect("three schemas load")
    };
    let (old, new) = (set(&b_old), set(b_new));
    // A panic compat catches is still one the validator should not have
    // been led into: count this thread's.
    thread_local!(static PANICS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) });
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.with(|panics| panics.set(panics.get() + 1));
        previous(info);
    }));
    for readers in [Readers::Strict, Readers::Tolerant] {
        for (writer, reader) in [(&old, &new), (&new, &old)] {
            let options = Options {
                readers,
                search: 300,
                ..Default::default()
            };
            let comparison = compare_documents(writer, reader, options).expect("compared");
            assert_eq!(
                PANICS.with(|panics| panics.get()),
                0,
                "the validator panicked"
            );
            assert_eq!(
                [comparison.writer, comparison.reader],
                [Verdict::Breaking, Verdict::Breaking],
                "{comparison:#?}"
            );
        }
    }
}
