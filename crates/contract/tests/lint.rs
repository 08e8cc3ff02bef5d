//! Every lint rule refuses a small bad edit of the real schema set, with its
//! own rule id and the JSON pointer of the offending place, and nothing else.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use contract::{lint, LintRule, SchemaSet};
use serde_json::{json, Value};

fn schema_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/schema")
}

fn real_set() -> SchemaSet {
    SchemaSet::load(&schema_dir()).expect("contracts/schema loads")
}

/// How many values TaskState lists: where a value added to it stands.
fn task_states() -> usize {
    real_set()
        .docs
        .iter()
        .find(|doc| doc.rel == "types/TaskState.json")
        .and_then(|doc| doc.value["enum"].as_array())
        .expect("TaskState's values")
        .len()
}

/// Applies `edit` to one file of the real set, lints, and expects exactly one
/// rule to fire, at `pointer` of that file.
fn check(file: &str, edit: impl FnOnce(&mut Value), rule: LintRule, pointer: &str) {
    let mut set = real_set();
    let doc = set
        .docs
        .iter_mut()
        .find(|doc| doc.rel == file)
        .unwrap_or_else(|| panic!("{file} is in the set"));
    edit(&mut doc.value);
    let violations = lint(&set);
    let rules: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(
        !violations.is_empty() && violations.iter().all(|v| v.rule == rule),
        "expected only {rule} for the edit of {file}, got:\n{}",
        rules.join("\n")
    );
    assert!(
        violations
            .iter()
            .any(|v| v.file.ends_with(file) && v.pointer.as_str() == pointer),
        "expected {rule} at {file}#{pointer}, got:\n{}",
        rules.join("\n")
    );
}

/// DownloadSpec's document in `set`.
fn spec_of(set: &mut SchemaSet) -> &mut contract::SchemaDoc {
    set.docs
        .iter_mut()
        .find(|doc| doc.rel == "types/DownloadSpec.json")
        .expect("DownloadSpec")
}

/// Whether `lint.secret_transport` names download.add (whose params reach
/// DownloadSpec).
fn refuses_download_add(violations: &[contract::Violation]) -> bool {
    violations.iter().any(|v| {
        v.rule == LintRule::SecretTransport && v.file.ends_with("methods/download.add.json")
    })
}

fn at<'a>(value: &'a mut Value, pointer: &str) -> &'a mut Value {
    value
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("nothing at {pointer}"))
}

fn remove(value: &mut Value, pointer: &str, key: &str) {
    at(value, pointer)
        .as_object_mut()
        .and_then(|map| map.remove(key))
        .unwrap_or_else(|| panic!("no {key} at {pointer}"));
}

#[test]
fn the_contract_schema_set_is_clean() {
    let violations = lint(&real_set());
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn a_missing_since_breaks_the_meta_schema() {
    check(
        "types/TaskId.json",
        |v| remove(v, "", "x-since"),
        LintRule::Meta,
        "",
    );
}

#[test]
fn a_method_without_transports_breaks_the_meta_schema() {
    check(
        "methods/download.get.json",
        |v| remove(v, "", "x-transports"),
        LintRule::Meta,
        "",
    );
}

/// A keyword's value the draft does not allow is refused by lint, naming
/// where, before codegen, conformance and compat meet it.
#[test]
fn a_file_that_is_no_draft_2020_12_schema_is_refused() {
    check(
        "types/TaskId.json",
        |v| *at(v, "/maxLength") = json!("12"),
        LintRule::Meta,
        "/maxLength",
    );
    check(
        "types/TaskSummary.json",
        |v| *at(v, "/required") = json!("taskId"),
        LintRule::Meta,
        "/required",
    );
    let mut set = real_set();
    let spec = spec_of(&mut set);
    *at(&mut spec.value, "/properties/url/format") = json!(7);
    let violations = lint(&set);
    assert!(
        violations
            .iter()
            .any(|v| v.rule == LintRule::Meta && v.pointer.as_str() == "/properties/url/format"),
        "{violations:#?}"
    );
}

#[test]
fn a_missing_id_is_refused() {
    check(
        "types/TaskId.json",
        |v| remove(v, "", "$id"),
        LintRule::Id,
        "",
    );
}

#[test]
fn an_id_that_is_not_the_files_place_is_refused() {
    check(
        "types/TaskId.json",
        |v| *at(v, "/$id") = json!("https://schemas.vdm.invalid/types/Other.json"),
        LintRule::Id,
        "/$id",
    );
}

/// The real set with a copy of `types/TaskId.json` named `name` beside it
/// (its place, `$id` and title), and lint's one violation of it.
fn lint_with_task_id_named(name: &str) -> contract::Violation {
    let mut set = real_set();
    let mut copy = set
        .docs
        .iter()
        .find(|doc| doc.rel == "types/TaskId.json")
        .expect("TaskId")
        .clone();
    copy.rel = format!("types/{name}.json");
    copy.name = name.into();
    copy.value["$id"] = json!(format!("https://schemas.vdm.invalid/types/{name}.json"));
    copy.value["title"] = json!(name);
    set.docs.push(copy);
    let mut violations = lint(&set);
    assert_eq!(violations.len(), 1, "{name}: {violations:#?}");
    let violation = violations.remove(0);
    assert_eq!(violation.rule, LintRule::Id);
    assert!(
        violation.file.ends_with(format!("types/{name}.json")),
        "{violation}"
    );
    violation
}

/// `types/Taskid.json` beside `types/TaskId.json` are one file where case
/// is ignored (macOS's and Windows' file systems by default): a lane's
/// clone there would keep one of the two.
#[test]
fn two_files_whose_places_differ_only_in_case_are_refused() {
    let violation = lint_with_task_id_named("Taskid");
    assert_eq!(violation.pointer.as_str(), "");
    assert!(
        violation.message.contains("types/TaskId.json"),
        "{violation}"
    );
}

/// `types/Aux.json` is the device `AUX` on Windows, whatever its case and
/// extension: a lane's clone there cannot hold it.
#[test]
fn a_file_named_as_a_windows_device_is_refused() {
    for name in ["Aux", "Con", "Nul", "Com1", "Lpt9"] {
        let violation = lint_with_task_id_named(name);
        assert!(
            violation
                .message
                .contains(&format!("the name {} for a device", name.to_uppercase())),
            "{violation}"
        );
    }
}

/// A schema inside a file with an `$id` of its own is another resource, which
/// a reference to a file's place could reach instead of the file.
#[test]
fn an_id_inside_a_file_is_refused() {
    check(
        "methods/download.cancel.json",
        |v| at(v, "/$defs/params/properties/taskId")["$id"] = json!("../types/TaskId.json"),
        LintRule::Id,
        "/$defs/params/properties/taskId/$id",
    );
}

#[test]
fn a_title_other_than_the_type_name_is_refused() {
    check(
        "types/Segment.json",
        |v| *at(v, "/title") = json!("Range"),
        LintRule::Title,
        "/title",
    );
}

#[test]
fn a_property_without_a_description_is_refused() {
    check(
        "types/TaskError.json",
        |v| remove(v, "/properties/message", "description"),
        LintRule::Description,
        "/properties/message",
    );
}

/// A bare CR ends a C++ comment's line: what follows it would be code.
#[test]
fn a_description_with_a_control_character_is_refused() {
    for text in ["One.\rint injected = 1;", "Bell \u{7}", "C1 \u{9b}"] {
        check(
            "types/TaskError.json",
            |v| *at(v, "/properties/message/description") = json!(text),
            LintRule::Description,
            "/properties/message/description",
        );
    }
    // Line breaks and tabs are text.
    let mut set = real_set();
    let doc = set
        .docs
        .iter_mut()
        .find(|doc| doc.rel == "types/TaskError.json")
        .expect("TaskError");
    *at(&mut doc.value, "/properties/message/description") = json!("One.\n\tTwo.\n");
    assert!(lint(&set).is_empty());
}

#[test]
fn a_rule_id_that_is_not_dotted_snake_case_is_refused() {
    for id in [
        "checksum length",
        "checksum.length\nprocess.exit(1)",
        "Checksum.Length",
        "checksum..length",
    ] {
        check(
            "types/Checksum.json",
            |v| *at(v, "/allOf/0/x-rule") = json!(id),
            LintRule::Annotation,
            "/allOf/0/x-rule",
        );
    }
}

#[test]
fn a_shape_without_a_description_is_refused() {
    check(
        "methods/download.get.json",
        |v| remove(v, "/$defs/result", "description"),
        LintRule::Description,
        "/$defs/result",
    );
}

#[test]
fn a_shape_without_a_title_breaks_the_meta_schema() {
    // An event of the contract, whichever it has.
    let set = real_set();
    let mut events: Vec<&str> = set
        .docs
        .iter()
        .map(|doc| doc.rel.as_str())
        .filter(|rel| rel.starts_with("events/"))
        .collect();
    events.sort_unstable();
    check(
        events.first().expect("an event"),
        |v| remove(v, "/$defs/params", "title"),
        LintRule::Meta,
        "/$defs/params",
    );
}

#[test]
fn an_object_without_explicit_additional_properties_is_refused() {
    check(
        "types/Segment.json",
        |v| remove(v, "", "additionalProperties"),
        LintRule::AdditionalProperties,
        "",
    );
}

#[test]
fn an_integer_without_a_maximum_is_refused() {
    check(
        "types/Segment.json",
        |v| remove(v, "/properties/index", "maximum"),
        LintRule::IntegerBounds,
        "/properties/index",
    );
}

#[test]
fn an_integer_bound_beyond_two_to_the_53_is_refused() {
    check(
        "types/Segment.json",
        |v| *at(v, "/properties/endByte/maximum") = json!(9_007_199_254_740_992_u64),
        LintRule::IntegerBounds,
        "/properties/endByte/maximum",
    );
}

/// ToolCapture's `stdout` renamed `to`, in `properties` and `required`.
fn stdout_renamed(to: &'static str) -> impl FnOnce(&mut Value) {
    move |v| {
        let props = at(v, "/properties").as_object_mut().expect("properties");
        let stdout = props.remove("stdout").expect("stdout");
        props.insert(to.into(), stdout);
        *at(v, "/required/1") = json!(to);
    }
}

#[test]
fn a_property_not_in_camel_case_is_refused() {
    check(
        "types/ToolCapture.json",
        stdout_renamed("std_out"),
        LintRule::CamelCase,
        "/properties/std_out",
    );
}

#[test]
fn a_property_named_as_javascript_objects_inherit_is_refused() {
    check(
        "types/ToolCapture.json",
        stdout_renamed("constructor"),
        LintRule::CamelCase,
        "/properties/constructor",
    );
}

/// `exitCode` and `exitCODE` are both `exit_code` in Rust and C++.
#[test]
fn two_properties_one_field_name_apart_are_refused() {
    check(
        "types/ToolCapture.json",
        stdout_renamed("exitCODE"),
        LintRule::CamelCase,
        "/properties/exitCode",
    );
}

/// A violation prints as one line whatever the schema names: a property
/// named with a newline and a workflow command forges no line of its own.
#[test]
fn a_violation_is_one_line_whatever_the_name() {
    let mut set = real_set();
    let doc = set
        .docs
        .iter_mut()
        .find(|doc| doc.rel == "types/Segment.json")
        .expect("Segment");
    at(&mut doc.value, "/properties")
        .as_object_mut()
        .expect("properties")
        .insert(
            "x\n::error file=README.md::forged\u{1b}[2J".into(),
            json!({"type": "string", "description": "d"}),
        );
    let violations = lint(&set);
    assert!(!violations.is_empty());
    for violation in &violations {
        let text = violation.to_string();
        assert!(!text.contains(['\n', '\u{1b}']), "{text}");
        assert!(text.contains("x\\n::error"), "{text}");
    }
}

#[test]
fn an_enum_value_not_in_snake_case_is_refused() {
    let states = task_states();
    check(
        "types/TaskState.json",
        |v| {
            at(v, "/enum")
                .as_array_mut()
                .expect("enum")
                .push(json!("RetryLater"))
        },
        LintRule::SnakeCase,
        &format!("/enum/{states}"),
    );
}

#[test]
fn an_enum_since_entry_must_name_a_value_with_a_version() {
    check(
        "types/TaskState.json",
        |v| v["x-enum-since"] = json!({"throtled": "1.1.0"}),
        LintRule::Annotation,
        "/x-enum-since/throtled",
    );
    check(
        "types/TaskState.json",
        |v| v["x-enum-since"] = json!(["1.1.0"]),
        LintRule::Annotation,
        "/x-enum-since",
    );
    check(
        "types/TaskState.json",
        |v| {
            let first = at(v, "/enum/0").as_str().expect("a value").to_string();
            v["x-enum-since"] = json!({ first: 1 });
        },
        LintRule::Annotation,
        &format!(
            "/x-enum-since/{}",
            real_set()
                .docs
                .iter()
                .find(|doc| doc.rel == "types/TaskState.json")
                .and_then(|doc| doc.value["enum"][0].as_str().map(str::to_string))
                .expect("a first value")
        ),
    );
}

#[test]
fn a_const_or_example_its_enum_does_not_list_is_refused() {
    check(
        "types/TaskState.json",
        |v| v["const"] = json!("no_such_state"),
        LintRule::Satisfiable,
        "/const",
    );
    // An example no message could carry misleads whoever reads the schema.
    check(
        "types/TaskState.json",
        |v| v["examples"] = json!(["no_such_state"]),
        LintRule::Satisfiable,
        "/examples/0",
    );
}

/// A transport added to `Transport` alone is one no method can be carried
/// on: the meta-schema and the tools' meaning of each transport go with it.
#[test]
fn a_transport_no_method_can_name_is_refused() {
    let count = real_set()
        .docs
        .iter()
        .find(|doc| doc.rel == "types/Transport.json")
        .and_then(|doc| doc.value["enum"].as_array().map(Vec::len))
        .expect("Transport's values");
    check(
        "types/Transport.json",
        |v| {
            at(v, "/enum")
                .as_array_mut()
                .expect("enum")
                .push(json!("tcp"))
        },
        LintRule::Annotation,
        &format!("/enum/{count}"),
    );
}

#[test]
fn an_enum_value_listed_twice_is_refused() {
    let states = task_states();
    check(
        "types/TaskState.json",
        |v| {
            let first = at(v, "/enum/0").clone();
            at(v, "/enum").as_array_mut().expect("enum").push(first);
        },
        LintRule::SnakeCase,
        &format!("/enum/{states}"),
    );
    // `a1` and `a_1` are both the Rust variant `A1`.
    check(
        "types/TaskState.json",
        |v| {
            let values = at(v, "/enum").as_array_mut().expect("enum");
            values.push(json!("a1"));
            values.push(json!("a_1"));
        },
        LintRule::SnakeCase,
        &format!("/enum/{}", states + 1),
    );
    // 32700 written as a fraction is still the one value.
    check(
        "types/RpcErrorCode.json",
        |v| {
            let first = at(v, "/enum/0").as_i64().expect("a code");
            at(v, "/enum/1").clone_from(&json!(first as f64));
        },
        LintRule::SnakeCase,
        "/enum/1",
    );
    check(
        "types/RpcErrorCode.json",
        |v| {
            // The two names no method's `x-errors` uses.
            *at(v, "/x-enum-varnames/7") = at(v, "/x-enum-varnames/0").clone();
        },
        LintRule::SnakeCase,
        "/x-enum-varnames/7",
    );
}

#[test]
fn a_reference_to_a_missing_file_is_refused() {
    check(
        "types/TaskDetail.json",
        |v| *at(v, "/properties/segmentDetail/items/$ref") = json!("Segmnt.json"),
        LintRule::Ref,
        "/properties/segmentDetail/items/$ref",
    );
}

#[test]
fn a_reference_that_would_be_fetched_is_refused() {
    check(
        "types/TaskDetail.json",
        |v| *at(v, "/properties/spec/$ref") = json!("https://example.org/DownloadSpec.json"),
        LintRule::Ref,
        "/properties/spec/$ref",
    );
}

#[test]
fn a_reference_to_a_missing_pointer_is_refused() {
    check(
        "types/TaskSummary.json",
        |v| *at(v, "/properties/error/$ref") = json!("TaskError.json#/$defs/occurrence"),
        LintRule::Ref,
        "/properties/error/$ref",
    );
}

#[test]
fn an_unknown_extension_keyword_is_refused() {
    check(
        "types/TaskId.json",
        |v| {
            *at(v, "")
                .as_object_mut()
                .expect("root")
                .entry("x-sinse")
                .or_insert(json!("1.0.0")) = json!("1.0.0")
        },
        LintRule::Extension,
        "/x-sinse",
    );
}

/// The first property of a type file (by file name) whose schema `fits`,
/// as `(file, pointer)`: tests plant edits by the kind of place they need,
/// whatever the contract names it.
fn a_property(set: &SchemaSet, fits: impl Fn(&Value) -> bool) -> (String, String) {
    let mut docs: Vec<&contract::SchemaDoc> = set
        .docs
        .iter()
        .filter(|doc| doc.rel.starts_with("types/"))
        .collect();
    docs.sort_by(|a, b| a.rel.cmp(&b.rel));
    docs.into_iter()
        .find_map(|doc| {
            let properties = doc.value["properties"].as_object()?;
            let (name, _) = properties.iter().find(|(_, schema)| fits(schema))?;
            Some((doc.rel.clone(), format!("/properties/{name}")))
        })
        .expect("a property of the kind the test needs")
}

/// The lint's findings once `key: value` is set in the object at `pointer`
/// of `file`.
fn planted(file: &str, pointer: &str, key: &str, value: Value) -> Vec<contract::Violation> {
    let mut set = real_set();
    let Some(node) = set
        .docs
        .iter_mut()
        .find(|doc| doc.rel == file)
        .and_then(|doc| doc.value.pointer_mut(pointer))
        .and_then(Value::as_object_mut)
    else {
        panic!("{file}#{pointer} is an object of the set");
    };
    node.insert(key.into(), value);
    lint(&set)
}

/// A keyword no validator reads asks nothing: a misspelt bound leaves the
/// value unbounded, OpenAPI's `nullable` admits no `null`, `minimum` on a
/// string is asked of no value. It is named with the keyword it was likely
/// meant to be, wherever a schema stands.
#[test]
fn a_keyword_no_validator_reads_is_refused_with_what_was_meant() {
    let set = real_set();
    let string = a_property(&set, |s| s["type"] == "string");
    let integer = a_property(&set, |s| s["type"] == "integer");
    let any = a_property(&set, |_| true);
    let root = (any.0.clone(), String::new());
    // (where, keyword, value, what the finding says, whether it is the only one)
    for ((file, pointer), keyword, value, hint, alone) in [
        (
            &string,
            "maxLenght",
            json!(255),
            "did you mean `maxLength`?",
            true,
        ),
        (&any, "nullable", json!(true), "OpenAPI's", true),
        (&root, "definitions", json!({}), "write `$defs`", true),
        (
            &any,
            "requried",
            json!(["a"]),
            "did you mean `required`?",
            true,
        ),
        (&any, "xyzzy", json!(1), "asks nothing", true),
        (
            &string,
            "minimum",
            json!(1),
            "did you mean `minLength`?",
            true,
        ),
        (
            &integer,
            "maxLength",
            json!(1),
            "did you mean `maximum`?",
            true,
        ),
        // Not a schema besides (lint.meta says so too).
        (&string, "items", json!(1), "applies to arrays", false),
        // Under a schema reached by name only.
        (
            &string,
            "patternProperties",
            json!({"^a": {"minLenght": 1}}),
            "did you mean `minLength`?",
            false,
        ),
    ] {
        let violations = planted(file, pointer, keyword, value);
        assert!(
            violations.iter().any(|v| v.rule == LintRule::Keyword
                && v.pointer
                    .as_str()
                    .starts_with(&format!("{pointer}/{keyword}"))
                && v.message.contains(hint)),
            "{keyword} at {file}#{pointer}: {violations:#?}"
        );
        if alone {
            assert!(
                violations.iter().all(|v| v.rule == LintRule::Keyword),
                "{violations:#?}"
            );
        }
    }
    // Names and values are no keywords: a property named `maxLenght`, an
    // enum value `nullable`, a `default` with a member `xyzzy` pass.
    let (file, _) = any;
    let violations = planted(
        &file,
        "/properties",
        "maxLenght",
        json!({"type": "string", "enum": ["nullable"], "default": {"xyzzy": 1}, "description": "d"}),
    );
    let keyword: Vec<_> = violations
        .into_iter()
        .filter(|v| v.rule == LintRule::Keyword)
        .collect();
    assert!(keyword.is_empty(), "{keyword:#?}");
}

/// What says how a method is called is read at a method file's root only:
/// elsewhere it is named as meaning nothing, at another kind's root as
/// having no place there.
#[test]
fn method_keywords_stand_only_at_a_method_root() {
    let set = real_set();
    let (file, pointer) = a_property(&set, |_| true);
    let violations = planted(&file, &pointer, "x-errors", json!(["internal_error"]));
    assert!(
        !violations.is_empty()
            && violations.iter().all(|v| v.rule == LintRule::Extension
                && v.pointer.as_str() == format!("{pointer}/x-errors")),
        "{violations:#?}"
    );
    let violations = planted(&file, "", "x-transports", json!(["unix"]));
    assert!(
        violations.iter().any(|v| v.rule == LintRule::Meta
            && v.pointer.as_str() == "/x-transports"
            && v.message
                .contains("`x-transports` has no place at the root of a type file")),
        "{violations:#?}"
    );
}

#[test]
fn a_union_without_a_required_tag_is_refused() {
    check(
        "envelope/Envelope.json",
        |v| *at(v, "/oneOf/3/required") = json!(["v", "body"]),
        LintRule::UnionTag,
        "/oneOf",
    );
}

#[test]
fn a_secret_parameter_on_a_browser_reachable_method_is_refused() {
    check(
        "methods/session.hello.json",
        |v| {
            at(v, "/$defs/params/properties/client")
                .as_object_mut()
                .expect("client")
                .insert("x-secret".into(), json!(true));
        },
        LintRule::SecretTransport,
        "/x-transports",
    );
}

#[test]
fn a_secret_reached_through_a_reference_is_found() {
    // download.add's params reach DownloadSpec by $ref; a secret there counts.
    let mut set = real_set();
    let spec = spec_of(&mut set);
    at(&mut spec.value, "/properties/url")
        .as_object_mut()
        .expect("url")
        .insert("x-secret".into(), json!(true));
    let violations = lint(&set);
    assert!(refuses_download_add(&violations), "{violations:#?}");
}

/// A credential under any keyword counts, not only under `properties`:
/// here one under `then` and one an item of `prefixItems`.
#[test]
fn a_secret_under_any_keyword_is_found() {
    for schema in [
        json!({"description": "d", "if": true, "then": {"type": "string", "x-secret": true}}),
        json!({"description": "d", "type": "array", "maxItems": 1,
               "prefixItems": [{"type": "string", "x-secret": true}]}),
    ] {
        check(
            "methods/session.hello.json",
            |v| *at(v, "/$defs/params/properties/client") = schema,
            LintRule::SecretTransport,
            "/x-transports",
        );
    }
}

/// A chain of references of any length is walked without recursion: the
/// lint reports on it rather than overflowing its stack.
#[test]
fn a_long_chain_of_references_is_linted_without_overflow() {
    let mut set = real_set();
    let spec = spec_of(&mut set);
    let links = 20_000;
    let mut defs = serde_json::Map::new();
    for i in 0..links {
        defs.insert(
            format!("l{i}"),
            json!({"description": "A link.", "allOf": [{"$ref": format!("#/$defs/l{}", i + 1)}]}),
        );
    }
    defs.insert(
        format!("l{links}"),
        json!({"description": "The end.", "type": "string", "x-secret": true}),
    );
    spec.value["$defs"] = Value::Object(defs);
    *at(&mut spec.value, "/properties/url") = json!({"$ref": "#/$defs/l0", "description": "x"});
    let found = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || lint(&set))
        .expect("a thread")
        .join()
        .expect("the lint ends without overflowing a 256 KiB stack");
    assert!(refuses_download_add(&found), "{found:#?}");
}

/// `levels` definitions in DownloadSpec, each an `allOf` of `fan`
/// references to the next, the last an integer; `segments` refers to the
/// first.
fn fanned_out(levels: usize, fan: usize) -> SchemaSet {
    let mut set = real_set();
    let spec = spec_of(&mut set);
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        let next = json!({"$ref": format!("#/$defs/l{}", i + 1)});
        defs.insert(
            format!("l{i}"),
            json!({"description": "A level.", "allOf": vec![next; fan]}),
        );
    }
    defs.insert(
        format!("l{levels}"),
        json!({"description": "The end.", "type": "integer", "minimum": 1, "maximum": 32}),
    );
    spec.value["$defs"] = Value::Object(defs);
    *at(&mut spec.value, "/properties/segments") =
        json!({"$ref": "#/$defs/l0", "description": "x"});
    set
}

/// References that fan out past the budget are refused where a value is
/// checked (the type's root, and a method's params that reach it); four
/// levels of ten (11,111 subschemas) pass.
#[test]
fn references_that_fan_out_are_refused() {
    let refused = lint(&fanned_out(12, 10));
    let at: Vec<String> = refused
        .iter()
        .filter(|v| v.rule == LintRule::Ref && v.message.contains("fan out"))
        .map(|v| format!("{}#{}", v.file.display(), v.pointer.as_str()))
        .collect();
    assert!(
        at.iter()
            .any(|place| place.ends_with("types/DownloadSpec.json#")),
        "{refused:#?}"
    );
    assert!(
        at.iter()
            .any(|place| place.ends_with("methods/download.add.json#/$defs/params")),
        "{at:?}"
    );
    let passed = lint(&fanned_out(4, 10));
    assert!(passed.is_empty(), "{passed:#?}");
}

/// DownloadSpec's `segments` made a `$defs/node` of the given shape: what
/// `lint.ref` says of the set, as `file#pointer: message`.
fn recursive(node: Value) -> Vec<String> {
    let mut set = real_set();
    let spec = spec_of(&mut set);
    spec.value["$defs"] = json!({ "node": node });
    *at(&mut spec.value, "/properties/segments") =
        json!({"$ref": "#/$defs/node", "description": "x"});
    lint(&set)
        .iter()
        .filter(|v| v.rule == LintRule::Ref)
        .map(|v| format!("{}#{}: {}", v.file.display(), v.pointer.as_str(), v.message))
        .collect()
}

/// A recursive type whose references come back to it twice at one part of
/// the value (or one way back starting another) multiplies a check's work
/// at each level of nesting (2^128 at the depth a value may have); one that
/// comes back without going into the value never ends. All are refused; a
/// list and a binary tree (each way back at another part of the value) are
/// not.
#[test]
fn a_type_that_comes_back_to_itself_twice_at_one_place_is_refused() {
    let node = || json!({"$ref": "#/$defs/node", "description": "The next."});
    let twice = recursive(json!({
        "description": "A node.", "type": "object", "additionalProperties": false,
        "properties": {"next": node()},
        "allOf": [{"properties": {"next": node()}}, {"properties": {"next": node()}}],
    }));
    assert!(
        twice
            .iter()
            .any(|v| v.contains("types/DownloadSpec.json#: ")
                && v.contains("applies again at /next")),
        "{twice:#?}"
    );
    let by_pattern = recursive(json!({
        "description": "A node.", "type": "object", "additionalProperties": false,
        "properties": {"next": node()}, "patternProperties": {"^n": node()},
    }));
    assert!(
        by_pattern
            .iter()
            .any(|v| v.contains("applies again at /next")),
        "{by_pattern:#?}"
    );
    // `next` and `next` under `next`: the parts of a chain are reached as
    // many ways as a Fibonacci number.
    let nested = recursive(json!({
        "description": "A node.", "type": "object", "additionalProperties": false,
        "properties": {"next": node()},
        "allOf": [{"properties": {"next": {"properties": {"next": node()}}}}],
    }));
    assert!(
        nested.iter().any(|v| v.contains("applies again at /next")),
        "{nested:#?}"
    );
    let in_place =
        recursive(json!({"description": "A node.", "anyOf": [node(), {"type": "null"}]}));
    assert!(
        in_place
            .iter()
            .any(|v| v.contains("without going into the value")),
        "{in_place:#?}"
    );
    let tree = recursive(json!({
        "description": "A node.", "type": "object", "additionalProperties": false,
        "properties": {"left": node(), "right": node()},
    }));
    assert!(tree.is_empty(), "{tree:#?}");
    let list = recursive(json!({
        "description": "A node.", "type": "array", "maxItems": 4, "items": node(),
    }));
    assert!(list.is_empty(), "{list:#?}");
}

/// The contract's own places are far inside the budget.
#[test]
fn the_contracts_places_meet_few_subschemas() {
    let set = real_set();
    let mut most = 0;
    for doc in &set.docs {
        let defs = doc.value.get("$defs").and_then(Value::as_object);
        let defs = defs.into_iter().flatten().map(|(_, schema)| schema);
        for schema in std::iter::once(&doc.value).chain(defs) {
            let met = contract::expansion(&set, doc, schema, contract::MAX_EXPANDED)
                .unwrap_or_else(|why| panic!("{}: {why}", doc.rel));
            most = most.max(met);
        }
    }
    eprintln!("the most subschemas one place of the contract meets: {most}");
    assert!(most > 10 && most < 2_000, "{most}");
}

#[test]
fn a_process_spawning_method_on_websocket_is_refused() {
    check(
        "methods/tool.invoke.json",
        |v| *at(v, "/x-transports") = json!(["unix", "websocket"]),
        LintRule::SecretTransport,
        "/x-transports",
    );
}

#[test]
fn a_method_missing_from_the_envelope_is_refused() {
    check(
        "envelope/ReplyBody.json",
        |v| {
            at(v, "/oneOf").as_array_mut().expect("oneOf").remove(2);
        },
        LintRule::EnvelopeCoverage,
        "/oneOf",
    );
}

/// A body's branch has one shape: compat compares each method's parts in
/// place of the bodies, so anything else in a branch (a part made optional,
/// a branch opened, an extra constraint, the part inlined) would change the
/// wire where compat does not look.
#[test]
fn a_body_branch_of_any_other_shape_is_refused() {
    type Edit = fn(&mut Value);
    let edits: [(&str, Edit, &str); 6] = [
        (
            "envelope/CallBody.json",
            |v| *at(v, "/oneOf/1/required") = json!(["method"]),
            "/oneOf/1/required",
        ),
        (
            "envelope/ReplyBody.json",
            |v| *at(v, "/oneOf/0/additionalProperties") = json!(true),
            "/oneOf/0/additionalProperties",
        ),
        (
            "envelope/EventBody.json",
            |v| *at(v, "/oneOf/0/properties/params/$ref") = json!("../types/TaskId.json"),
            "/oneOf/0/properties/params",
        ),
        (
            "envelope/CallBody.json",
            |v| {
                at(v, "/oneOf/2")
                    .as_object_mut()
                    .expect("a branch")
                    .insert("maxProperties".into(), json!(2));
            },
            "/oneOf/2/maxProperties",
        ),
        (
            "envelope/CallBody.json",
            |v| {
                at(v, "/oneOf/0/properties/method")
                    .as_object_mut()
                    .expect("a tag")
                    .insert("maxLength".into(), json!(100));
            },
            "/oneOf/0/properties/method",
        ),
        (
            "envelope/EventBody.json",
            |v| {
                v.as_object_mut()
                    .expect("an object")
                    .insert("not".into(), json!({"required": ["x"]}));
            },
            "/not",
        ),
    ];
    for (file, edit, pointer) in edits {
        check(file, edit, LintRule::EnvelopeCoverage, pointer);
    }
}

#[test]
fn an_error_name_that_is_not_an_rpc_error_code_is_refused() {
    check(
        "methods/download.get.json",
        |v| {
            at(v, "/x-errors")
                .as_array_mut()
                .expect("x-errors")
                .push(json!("not_found"))
        },
        LintRule::Annotation,
        "/x-errors/4",
    );
}

/// `x-carriesHttpStatus` says what TaskError's `error.http_status` rule
/// does: a code added to one and not the other is refused.
#[test]
fn a_carriers_list_that_is_not_the_http_status_rule_is_refused() {
    check(
        "types/TaskErrorCode.json",
        |v| {
            at(v, "/x-carriesHttpStatus")
                .as_array_mut()
                .expect("x-carriesHttpStatus")
                .push(json!("dns_failed"))
        },
        LintRule::Annotation,
        "/x-carriesHttpStatus",
    );
}

#[test]
fn a_pattern_with_an_inline_flag_is_refused() {
    check(
        "types/DownloadSpec.json",
        |v| *at(v, "/properties/url/pattern") = json!("^(?i:https?)://"),
        LintRule::Pattern,
        "/properties/url/pattern",
    );
}

/// The validator would assert `email` and the bindings would not.
#[test]
fn a_format_the_contract_does_not_know_is_refused() {
    // `"format": 7` is no schema at all: `lint.meta`'s.
    for format in [json!("email"), json!("uint64")] {
        check(
            "types/DownloadSpec.json",
            |v| *at(v, "/properties/url/format") = format,
            LintRule::Format,
            "/properties/url/format",
        );
    }
}

/// The C++ reader tests UTF-8 bytes: `[^/]{1,8}` counts bytes there and
/// characters elsewhere, so "ééééé" would be valid in one reader only.
#[test]
fn a_pattern_the_readers_read_differently_is_refused() {
    for pattern in ["^[^/]{1,8}$", "^\\d+$", "^.+$", "^é"] {
        check(
            "types/DownloadSpec.json",
            |v| *at(v, "/properties/url/pattern") = json!(pattern),
            LintRule::Pattern,
            "/properties/url/pattern",
        );
    }
    check(
        "types/DownloadSpec.json",
        |v| {
            at(v, "/properties/headers")
                .as_object_mut()
                .expect("headers")
                .insert(
                    "patternProperties".into(),
                    json!({"^x-\\w+$": {"type": "string", "maxLength": 8}}),
                );
        },
        LintRule::Pattern,
        "/properties/headers/patternProperties/^x-\\w+$",
    );
}

/// The bindings run a pattern as the tables of its automaton: one that
/// needs more than 256 states, or whose automaton explodes while it is
/// built, is refused (with a length bound as the way out); the pattern a
/// backtracking engine stalls on is not, since no binding backtracks.
#[test]
fn a_pattern_too_large_for_an_automaton_is_refused() {
    for pattern in ["^[a-z]{1,300}$", "(a|b)*a(a|b){30}"] {
        check(
            "types/DownloadSpec.json",
            |v| *at(v, "/properties/url/pattern") = json!(pattern),
            LintRule::Pattern,
            "/properties/url/pattern",
        );
    }
    let mut set = real_set();
    let task_id = set
        .docs
        .iter_mut()
        .find(|doc| doc.rel == "types/TaskId.json")
        .expect("TaskId is in the set");
    *at(&mut task_id.value, "/pattern") = json!("^([A-Za-z0-9_]+-?)*$");
    let violations: Vec<String> = lint(&set).iter().map(ToString::to_string).collect();
    assert_eq!(violations, Vec::<String>::new());
}

/// Generated comments and pages copy schema text: an unpaired override
/// makes GCC refuse the header, a paired one reorders what a reviewer reads.
#[test]
fn a_bidirectional_override_anywhere_in_a_file_is_refused() {
    check(
        "types/DownloadSpec.json",
        |v| *at(v, "/properties/url/description") = json!("The URL \u{202e}to fetch\u{202c}."),
        LintRule::Text,
        "/properties/url/description",
    );
    check(
        "types/DownloadSpec.json",
        |v| {
            at(v, "/properties/url")
                .as_object_mut()
                .expect("url")
                .insert("$comment".into(), json!("\u{2066}hidden\u{2069}"));
        },
        LintRule::Text,
        "/properties/url/$comment",
    );
}

/// A field no value meets by its own keywords is named at the bound.
#[test]
fn a_schema_no_value_meets_is_refused() {
    // A string enum of the contract, whatever it is called.
    let set = real_set();
    let mut enums: Vec<&str> = set
        .docs
        .iter()
        .filter(|doc| {
            doc.rel.starts_with("types/")
                && doc.value["type"] == "string"
                && doc.value["enum"].is_array()
        })
        .map(|doc| doc.rel.as_str())
        .collect();
    enums.sort_unstable();
    check(
        enums.first().expect("a string enum"),
        |v| *at(v, "/enum") = json!([]),
        LintRule::Satisfiable,
        "/enum",
    );
    check(
        "types/TaskId.json",
        |v| *at(v, "/minLength") = json!(65),
        LintRule::Satisfiable,
        "/maxLength",
    );
    check(
        "types/Segment.json",
        |v| {
            let index = at(v, "/properties/index");
            index["exclusiveMinimum"] = index["maximum"].clone();
        },
        LintRule::Satisfiable,
        "/properties/index/maximum",
    );
    // A closed object requiring a name it does not list.
    check(
        "types/Segment.json",
        |v| {
            at(v, "/required")
                .as_array_mut()
                .unwrap()
                .push(json!("indx"))
        },
        LintRule::Satisfiable,
        "/required/5",
    );
    // A listed value the node's own keywords refuse: no message carries it.
    let rel = enums.first().expect("a string enum");
    let values: Vec<usize> = set
        .docs
        .iter()
        .find(|doc| doc.rel == *rel)
        .and_then(|doc| doc.value["enum"].as_array())
        .expect("its values")
        .iter()
        .map(|value| value.as_str().map_or(0, |s| s.chars().count()))
        .collect();
    let longest = values.iter().copied().max().expect("a value");
    let first_too_long = values.iter().position(|len| *len == longest).expect("it");
    check(
        rel,
        |v| v["maxLength"] = json!(longest - 1),
        LintRule::Satisfiable,
        &format!("/enum/{first_too_long}"),
    );
    check(
        "types/Segment.json",
        |v| *at(v, "/properties/index") = json!({"type": "integer", "minimum": 0, "maximum": 31, "const": 32, "description": "d"}),
        LintRule::Satisfiable,
        "/properties/index/const",
    );
}

#[test]
fn every_rule_is_documented() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/conformance.md"),
    )
    .expect("docs/conformance.md exists");
    for rule in LintRule::ALL {
        assert!(
            doc.contains(rule.id()),
            "docs/conformance.md does not document {rule}"
        );
    }
}

/// What a tool prints of schema text (a lint finding, a compat review)
/// cannot start a line or reorder one.
#[test]
fn plain_text_escapes_what_breaks_or_reorders_a_line() {
    assert_eq!(
        contract::plain("a\u{202e}b\nc\u{2028}d\u{2066}e é"),
        r"a\u202eb\u000ac\u2028d\u2066e é"
    );
}

/// A GitHub workflow command's data and properties: what breaks a line is
/// escaped as everywhere, `%` as the commands read it, and in a property
/// the `,` and `:` that would end it.
#[test]
fn github_commands_get_one_line_that_ends_where_it_should() {
    let forged = "a%b,c:d\r\n::error::x";
    assert_eq!(
        contract::github_data(forged),
        r"a%25b,c:d\u000d\u000a::error::x"
    );
    assert_eq!(
        contract::github_property(forged),
        r"a%25b%2Cc%3Ad\u000d\u000a%3A%3Aerror%3A%3Ax"
    );
}
