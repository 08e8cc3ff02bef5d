//! The checker on changes a lane would make to the contract: each change's
//! rule, its verdict each way, a counterexample where it breaks, and the bump.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use compat::{
    bump_shortfall, compare_sets, declared_bump, Bump, Comparison, Options, Readers, Verdict,
};
use contract::SchemaSet;
use serde_json::{json, Value};

fn base() -> SchemaSet {
    SchemaSet::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/schema"))
        .expect("schemas load")
}

fn edited(file: &str, edit: impl FnOnce(&mut Value)) -> SchemaSet {
    let mut set = base();
    let doc = set
        .docs
        .iter_mut()
        .find(|d| d.rel == file)
        .unwrap_or_else(|| panic!("{file}"));
    edit(&mut doc.value);
    set
}

fn compare(new: &SchemaSet, readers: Readers) -> Comparison {
    compare_sets(
        &base(),
        new,
        Options {
            readers,
            ..Default::default()
        },
    )
    .expect("the schemas register")
}

/// Whether some change's reason says every one of `parts`.
fn explains(comparison: &Comparison, parts: &[&str]) -> bool {
    comparison.changes.iter().any(|c| {
        c.why
            .as_deref()
            .is_some_and(|why| parts.iter().all(|part| why.contains(part)))
    })
}

fn only_change(comparison: &Comparison) -> &compat::Change {
    assert_eq!(comparison.changes.len(), 1, "{:#?}", comparison.changes);
    &comparison.changes[0]
}

/// The contract with one more TaskState (`seeding`, or a name like it the
/// contract does not have yet), and its name.
fn with_a_new_state() -> (SchemaSet, String) {
    let mut name = String::new();
    let set = edited("types/TaskState.json", |v| {
        let values = at(v, "/enum").as_array_mut().expect("enum");
        name = (0..)
            .map(|n| {
                if n == 0 {
                    "seeding".to_string()
                } else {
                    format!("seeding_{n}")
                }
            })
            .find(|name| !values.iter().any(|value| value == name.as_str()))
            .expect("a fresh name");
        values.push(json!(name));
    });
    (set, name)
}

fn at<'a>(value: &'a mut Value, pointer: &str) -> &'a mut Value {
    value
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("nothing at {pointer}"))
}

#[test]
fn the_same_contract_has_no_changes() {
    let comparison = compare(&base(), Readers::Tolerant);
    assert!(comparison.changes.is_empty(), "{:#?}", comparison.changes);
    assert_eq!(comparison.bump, Bump::None);
}

#[test]
fn a_new_optional_field_is_minor_for_tolerant_readers() {
    let new = edited("types/TaskSummary.json", |v| {
        at(v, "/properties").as_object_mut().expect("props").insert(
            "peakSpeedBytesPerSec".into(),
            json!({"type": "integer", "minimum": 0, "maximum": 9_007_199_254_740_991_u64, "description": "The fastest rate seen."}),
        );
    });
    let comparison = compare(&new, Readers::Tolerant);
    let change = only_change(&comparison);
    assert_eq!(
        (change.rule, change.group.as_str()),
        (compat::Rule::PropertyAdded, "TaskSummary")
    );
    assert_eq!(
        (change.writer, change.reader),
        (Verdict::Compatible, Verdict::Compatible)
    );
    assert_eq!(
        change.new_pointer.as_deref(),
        Some("types/TaskSummary.json#/properties/peakSpeedBytesPerSec")
    );
    assert_eq!(comparison.bump, Bump::Minor);
    // A strict old reader refuses the new field: that is a break, with an example.
    let strict = compare(&new, Readers::Strict);
    let change = only_change(&strict);
    assert_eq!(change.writer, Verdict::Breaking);
    let example = change.example.as_ref().expect("a counterexample");
    assert_eq!(example.accepted_by, "new");
    assert!(
        example.value.get("peakSpeedBytesPerSec").is_some(),
        "{example:?}"
    );
    assert_eq!(strict.bump, Bump::Major);
}

#[test]
fn a_new_required_param_breaks_old_clients() {
    let new = edited("methods/download.pause.json", |v| {
        at(v, "/$defs/params/properties")
            .as_object_mut()
            .expect("props")
            .insert(
                "reason".into(),
                json!({"type": "string", "description": "Why."}),
            );
        at(v, "/$defs/params/required")
            .as_array_mut()
            .expect("required")
            .push(json!("reason"));
    });
    let comparison = compare(&new, Readers::Tolerant);
    let change = only_change(&comparison);
    assert_eq!(change.rule, "property.added");
    assert_eq!(
        (change.writer, change.reader),
        (Verdict::Compatible, Verdict::Breaking)
    );
    let example = change.example.as_ref().expect("a counterexample");
    assert_eq!(example.accepted_by, "old");
    assert!(
        example.value.get("taskId").is_some() && example.value.get("reason").is_none(),
        "{example:?}"
    );
    assert_eq!(comparison.bump, Bump::Major);
}

#[test]
fn a_new_enum_value_breaks_old_readers() {
    let (new, name) = with_a_new_state();
    let comparison = compare(&new, Readers::Tolerant);
    let change = only_change(&comparison);
    assert_eq!(change.rule, "enum.value_added");
    assert_eq!(
        (change.writer, change.reader),
        (Verdict::Breaking, Verdict::Compatible)
    );
    assert_eq!(
        change.example.as_ref().map(|e| e.value.clone()),
        Some(json!(name))
    );
    assert_eq!(comparison.bump, Bump::Major);
}

#[test]
fn a_widened_bound_breaks_old_readers_and_a_narrowed_one_old_writers() {
    // Doubled and halved from whatever the contract says today.
    let mut spec = base();
    let maximum = at(
        &mut spec
            .docs
            .iter_mut()
            .find(|d| d.rel == "types/DownloadSpec.json")
            .expect("DownloadSpec")
            .value,
        "/properties/segments/maximum",
    )
    .as_u64()
    .expect("a whole maximum");
    assert!(maximum >= 2, "{maximum}");
    let wider = edited("types/DownloadSpec.json", |v| {
        *at(v, "/properties/segments/maximum") = json!(maximum * 2)
    });
    let change = only_change(&compare(&wider, Readers::Tolerant)).clone();
    assert_eq!(change.rule, "bound.widened");
    assert_eq!(
        (change.writer, change.reader),
        (Verdict::Breaking, Verdict::Compatible)
    );
    let narrower = edited("types/DownloadSpec.json", |v| {
        *at(v, "/properties/segments/maximum") = json!(maximum / 2)
    });
    let change = only_change(&compare(&narrower, Readers::Tolerant)).clone();
    assert_eq!(change.rule, "bound.narrowed");
    assert_eq!(
        (change.writer, change.reader),
        (Verdict::Compatible, Verdict::Breaking)
    );
    let shown = change.example.and_then(|e| e.value.as_u64());
    assert!(
        shown.is_some_and(|n| (maximum / 2 + 1..=maximum).contains(&n)),
        "{shown:?}"
    );
}

#[test]
fn a_description_change_is_a_patch() {
    let new = edited("types/TaskId.json", |v| {
        *at(v, "/description") = json!("Names a task.")
    });
    let comparison = compare(&new, Readers::Tolerant);
    assert_eq!(only_change(&comparison).rule, "annotation.changed");
    assert_eq!(comparison.bump, Bump::Patch);
}

/// Each key of a method file outside its `params` and `result` is judged by
/// what it says; none goes unreported.
#[test]
fn a_method_files_other_keys_are_each_judged() {
    let cancel = "methods/download.cancel.json";
    let cases: [(&str, Value, &str, Bump); 7] = [
        (
            "/description",
            json!("Cancels."),
            "annotation.changed",
            Bump::Patch,
        ),
        (
            "/x-since",
            json!("1.1.0"),
            "annotation.changed",
            Bump::Patch,
        ),
        (
            "/x-errors/-",
            json!("checksum_mismatch"),
            "method.errors_changed",
            Bump::Minor,
        ),
        (
            "/x-errors/0",
            json!("invalid_request"),
            "method.errors_changed",
            Bump::None,
        ),
        (
            "/x-spawnsProcess",
            json!(true),
            "method.spawns_process_changed",
            Bump::Minor,
        ),
        (
            "/x-transports/-",
            json!("unix"),
            "method.transports_changed",
            Bump::None,
        ),
        ("/type", json!("object"), "file.root_changed", Bump::Major),
    ];
    for (pointer, value, rule, bump) in cases {
        let new = edited(cancel, |v| {
            let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
            match at(v, if parent.is_empty() { "" } else { parent }) {
                Value::Array(items) if key == "-" => items.push(value),
                Value::Array(items) => items.insert(0, value),
                Value::Object(map) => {
                    map.insert(key.to_string(), value);
                }
                other => panic!("{other}"),
            }
        });
        let comparison = compare(&new, Readers::Tolerant);
        assert_eq!(
            comparison.bump, bump,
            "{pointer}: {:#?}",
            comparison.changes
        );
        if bump == Bump::None {
            // A list reordered or holding a name twice says the same.
            assert!(
                comparison.changes.is_empty(),
                "{pointer}: {:#?}",
                comparison.changes
            );
            continue;
        }
        let change = only_change(&comparison);
        assert_eq!(change.rule, rule, "{pointer}");
        let wire_holds = change.writer.holds() && change.reader.holds();
        assert_eq!(wire_holds, rule != "file.root_changed", "{pointer}");
    }
    // The same keys on an event say nothing the checker models.
    let new = edited("events/event.task.removed.json", |v| {
        *at(v, "")
            .as_object_mut()
            .expect("an object")
            .entry("x-errors")
            .or_insert(json!(null)) = json!(["internal_error"]);
    });
    let comparison = compare(&new, Readers::Tolerant);
    assert_eq!(only_change(&comparison).rule, "file.root_changed");
    assert!(explains(
        &comparison,
        &["cannot decide: x-errors at events/event.task.removed.json#/x-errors"]
    ));
}

/// A method file no lint has passed may leave out `x-transports` or spell
/// it, or `x-spawnsProcess`, otherwise: what the method's root then says is
/// not known, so a change there cannot be judged compatible, whichever side
/// spells it so.
#[test]
fn a_method_root_key_of_another_shape_cannot_be_decided() {
    let cancel = "methods/download.cancel.json";
    let spelled = |key: &str, value: Option<Value>| {
        edited(cancel, |v| {
            let root = v.as_object_mut().expect("an object");
            match value {
                Some(value) => root.insert(key.to_string(), value),
                None => root.remove(key),
            };
        })
    };
    let cases = [
        ("x-transports", None),
        ("x-transports", Some(json!("unix"))),
        ("x-transports", Some(json!([]))),
        ("x-transports", Some(json!([1]))),
        ("x-spawnsProcess", Some(json!("true"))),
        ("x-spawnsProcess", Some(json!(1))),
    ];
    for (key, value) in cases {
        let odd = spelled(key, value.clone());
        // Going to `["unix"]` from a file that did not list websocket
        // narrows nothing as the two lists read; it is still unknown.
        let narrow = spelled(
            key,
            Some(json!(if key == "x-transports" {
                json!(["unix"])
            } else {
                json!(true)
            })),
        );
        for (old, new) in [(&odd, &narrow), (&narrow, &odd)] {
            let comparison = compare_sets(old, new, Options::default()).expect("registers");
            let change = only_change(&comparison);
            assert_eq!(change.rule, "file.root_changed", "{key} {value:?}");
            assert!(
                !change.writer.holds() && !change.reader.holds(),
                "{key} {value:?}: {change:#?}"
            );
            assert!(
                explains(
                    &comparison,
                    &[&format!("cannot decide: {key} at {cancel}#/{key}")]
                ),
                "{key} {value:?}: {change:#?}"
            );
            assert_eq!(comparison.bump, Bump::Major, "{key} {value:?}");
        }
    }
}

#[test]
fn moving_a_definition_behind_a_ref_is_no_change() {
    let mut new = base();
    // TaskDetail.summary's $ref is replaced by the TaskSummary schema it names, inlined.
    let summary = new
        .docs
        .iter()
        .find(|d| d.rel == "types/TaskSummary.json")
        .expect("summary")
        .value
        .clone();
    let detail = new
        .docs
        .iter_mut()
        .find(|d| d.rel == "types/TaskDetail.json")
        .expect("detail");
    let mut inlined = summary;
    if let Value::Object(map) = &mut inlined {
        map.remove("$id");
        map.remove("$schema");
        // Its own $refs are relative to types/ as well, so they still resolve.
    }
    *at(&mut detail.value, "/properties/summary") = inlined;
    let comparison = compare(&new, Readers::Tolerant);
    assert!(
        comparison
            .changes
            .iter()
            .all(|c| c.rule == "annotation.changed"),
        "{:#?}",
        comparison.changes
    );
    assert!(comparison.bump <= Bump::Patch);
}

#[test]
fn reordering_union_branches_is_no_change() {
    let new = edited("envelope/Envelope.json", |v| {
        at(v, "/oneOf").as_array_mut().expect("oneOf").reverse()
    });
    let comparison = compare(&new, Readers::Tolerant);
    assert!(comparison.changes.is_empty(), "{:#?}", comparison.changes);
}

/// `allOf` is a conjunction: its entries in another order are no change,
/// and one entry changed on the way still is one.
#[test]
fn reordering_all_of_entries_is_no_change() {
    let new = edited("types/TaskError.json", |v| {
        at(v, "/allOf").as_array_mut().expect("allOf").reverse()
    });
    let comparison = compare(&new, Readers::Tolerant);
    assert!(comparison.changes.is_empty(), "{:#?}", comparison.changes);
    // Reordered, and one entry's `else` (which refuses something) dropped.
    let new = edited("types/TaskError.json", |v| {
        let entries = at(v, "/allOf").as_array_mut().expect("allOf");
        entries.reverse();
        let with_else = entries
            .iter_mut()
            .find(|entry| entry.get("else").is_some_and(|e| *e != json!(true)))
            .expect("an allOf entry with an else");
        with_else["else"] = json!(true);
    });
    let comparison = compare(&new, Readers::Tolerant);
    assert!(!comparison.writer.holds(), "{:#?}", comparison.changes);
}

/// The envelope's bodies without `name`'s branches.
fn unlist(set: &mut SchemaSet, name: &str) {
    for doc in set.docs.iter_mut().filter(|d| d.rel.ends_with("Body.json")) {
        if let Some(branches) = doc.value["oneOf"].as_array_mut() {
            branches.retain(|b| {
                b["properties"]["method"]["const"] != name
                    && b["properties"]["name"]["const"] != name
            });
        }
    }
}

/// `body` (`CallBody`, …) with a branch for `name`: its `tag` naming it,
/// its `field` the part of `file`.
fn list(set: &mut SchemaSet, body: &str, [tag, field]: [&str; 2], name: &str, file: &str) {
    let doc = set
        .docs
        .iter_mut()
        .find(|d| d.rel == format!("envelope/{body}.json"))
        .expect("the body");
    doc.value["oneOf"]
        .as_array_mut()
        .expect("oneOf")
        .push(json!({
            "type": "object",
            "properties": {
                tag: {"type": "string", "const": name},
                field: {"$ref": format!("../{file}#/$defs/{field}")},
            },
            "required": [tag, field],
            "additionalProperties": false,
        }));
}

#[test]
fn a_removed_method_breaks_old_clients_and_an_added_one_is_minor() {
    let mut removed = base();
    removed
        .docs
        .retain(|d| d.rel != "methods/download.remove.json");
    unlist(&mut removed, "download.remove");
    let comparison = compare(&removed, Readers::Tolerant);
    let change = comparison
        .changes
        .iter()
        .find(|c| c.rule == "method.removed")
        .expect("method.removed");
    assert_eq!(change.reader, Verdict::Breaking);
    assert_eq!(comparison.bump, Bump::Major);

    let mut added = base();
    let mut doc = added
        .docs
        .iter()
        .find(|d| d.rel == "methods/download.pause.json")
        .expect("pause")
        .clone();
    doc.rel = "methods/download.planted.json".into();
    doc.name = "download.planted".into();
    doc.value["$id"] = json!(doc.expected_id());
    added.docs.push(doc);
    let file = "methods/download.planted.json";
    list(
        &mut added,
        "CallBody",
        ["method", "params"],
        "download.planted",
        file,
    );
    list(
        &mut added,
        "ReplyBody",
        ["method", "result"],
        "download.planted",
        file,
    );
    let comparison = compare(&added, Readers::Tolerant);
    let change = only_change(&comparison);
    assert_eq!(change.rule, "method.added");
    assert_eq!(comparison.bump, Bump::Minor);
}

#[test]
fn a_method_that_becomes_an_event_is_major() {
    let mut new = base();
    let doc = new
        .docs
        .iter_mut()
        .find(|d| d.rel == "methods/download.remove.json")
        .expect("remove");
    doc.kind = contract::DocKind::Event;
    doc.rel = "events/download.remove.json".into();
    doc.value["$id"] = json!(doc.expected_id());
    unlist(&mut new, "download.remove");
    let file = "events/download.remove.json";
    list(
        &mut new,
        "EventBody",
        ["name", "params"],
        "download.remove",
        file,
    );
    let comparison = compare(&new, Readers::Tolerant);
    assert!(
        comparison
            .changes
            .iter()
            .any(|c| c.rule == "method.became_event"),
        "{:#?}",
        comparison.changes
    );
    assert_eq!(comparison.bump, Bump::Major);
}

#[test]
fn a_bump_too_small_for_the_changes_is_explained() {
    let (new, _) = with_a_new_state();
    let comparison = compare(&new, Readers::Tolerant);
    let declared = declared_bump("1.0.0", "1.1.0").expect("versions");
    assert_eq!(declared, Bump::Minor);
    let why = bump_shortfall(&comparison, declared).expect("minor does not cover a new enum value");
    assert!(why.starts_with("the changes need a major bump, but VERSION declares a minor bump (for example enum.value_added in TaskState:"), "{why}");
    assert_eq!(bump_shortfall(&comparison, Bump::Major), None);
}

#[test]
fn versions_are_read_as_semver() {
    assert_eq!(declared_bump("1.0.0", "2.0.0"), Ok(Bump::Major));
    assert_eq!(declared_bump("1.0.0", "1.0.1\n"), Ok(Bump::Patch));
    assert_eq!(declared_bump("1.0.0", "1.0.0"), Ok(Bump::None));
    assert!(declared_bump("1.1.0", "1.0.9").is_err());
    assert!(declared_bump("1.0.0", "1.0").is_err());
}

/// Both wire directions hold when an optional field goes (readers are
/// tolerant, writers never had to send it), but code that reads it from the
/// generated bindings stops compiling: the API verdict makes it major.
#[test]
fn removing_an_optional_field_breaks_the_api_and_needs_a_major_bump() {
    // Whichever optional field `TaskSummary` has last, so that a release
    // that removes one leaves the test as it was.
    let new = edited("types/TaskSummary.json", |schema| {
        let required: Vec<String> = contract::string_list(schema.get("required"))
            .into_iter()
            .map(str::to_string)
            .collect();
        let properties = at(schema, "/properties")
            .as_object_mut()
            .expect("properties");
        let optional = properties
            .keys()
            .rfind(|name| !required.contains(name))
            .cloned()
            .expect("TaskSummary has an optional field");
        properties.remove(&optional);
    });
    let comparison = compare(&new, Readers::Tolerant);
    assert_eq!(comparison.writer, Verdict::Compatible, "{comparison:#?}");
    assert_eq!(comparison.reader, Verdict::Compatible, "{comparison:#?}");
    assert_eq!(comparison.api, Verdict::Breaking, "{comparison:#?}");
    assert_eq!(comparison.bump, Bump::Major);
    assert_eq!(only_change(&comparison).rule, "property.removed");
    // Added back, it is an addition: minor, and the API holds.
    let added = compare_sets(&new, &base(), Options::default()).expect("the schemas register");
    assert_eq!(added.api, Verdict::Compatible, "{added:#?}");
    assert_eq!(added.bump, Bump::Minor);
}

fn breaks_both_ways(comparison: &Comparison) {
    assert_eq!(
        comparison.writer,
        Verdict::Breaking,
        "{:#?}",
        comparison.changes
    );
    assert_eq!(
        comparison.reader,
        Verdict::Breaking,
        "{:#?}",
        comparison.changes
    );
}

/// The envelope outside its bodies is compared whole: a new protocol
/// version changes `v` by a bound and an enum together, neither of which
/// breaks old readers alone; together every envelope a new peer writes is
/// refused by an old one, and every old one by a new one.
#[test]
fn a_new_protocol_version_breaks_both_ways() {
    let new = edited("envelope/ProtocolVersion.json", |v| {
        *at(v, "/minimum") = json!(2);
        *at(v, "/maximum") = json!(2);
        *at(v, "/enum") = json!([2]);
    });
    let comparison = compare(&new, Readers::Tolerant);
    breaks_both_ways(&comparison);
    assert_eq!(comparison.bump, Bump::Major);
}

/// A call's `id` made optional, in the envelope itself: old daemons refuse
/// a new client's call without one.
#[test]
fn an_envelope_member_made_optional_breaks_old_readers() {
    let new = edited("envelope/Envelope.json", |v| {
        *at(v, "/oneOf/0/required") = json!(["v", "kind", "body"]);
    });
    let comparison = compare(&new, Readers::Tolerant);
    assert_eq!(
        comparison.writer,
        Verdict::Breaking,
        "{:#?}",
        comparison.changes
    );
}

/// Compat compares each method's parts in place of the bodies, which holds
/// for bodies of the one shape alone: a body of another (here a call's
/// params made optional, which old daemons refuse) cannot be decided, and
/// says where.
#[test]
fn a_body_of_another_shape_cannot_be_decided() {
    let new = edited("envelope/CallBody.json", |v| {
        *at(v, "/oneOf/1/required") = json!(["method"]);
    });
    undecided_body(&new, "CallBody", "envelope/CallBody.json#/oneOf/1/required");
}

/// That compared with the base, `body` is "cannot decide: envelope body"
/// both ways, saying `why`.
fn undecided_body(new: &SchemaSet, body: &str, why: &str) {
    let comparison = compare(new, Readers::Tolerant);
    breaks_both_ways(&comparison);
    let change = comparison
        .changes
        .iter()
        .find(|c| c.group == body)
        .unwrap_or_else(|| panic!("{:#?}", comparison.changes));
    assert_eq!(change.undecided.as_deref(), Some("envelope body"));
    assert!(
        change.why.as_deref().unwrap_or_default().contains(why),
        "{change:#?}"
    );
}

/// The one shape is read in 2020-12: draft 4 has no `const`, so there
/// no branch is told apart by its name, and a message that meets two
/// branches fails the `oneOf`. A body whose `$schema` names another draft
/// cannot be decided, both ways, though its JSON is otherwise the same.
#[test]
fn a_body_read_in_another_draft_cannot_be_decided() {
    for draft in [
        "http://json-schema.org/draft-04/schema#",
        "https://json-schema.org/draft/2019-09/schema",
    ] {
        let new = edited("envelope/EventBody.json", |v| {
            *at(v, "/$schema") = json!(draft);
        });
        undecided_body(&new, "EventBody", "envelope/EventBody.json#/$schema");
    }
}

/// The envelope's branches are told apart by the `const` of their `kind`,
/// which lets compat leave each body open while it compares the rest; in
/// draft 4 there is no `const`, so a message there may meet the call and
/// the reply branch alike, told apart by its body alone. Such an envelope
/// is compared with its bodies (it was an error naming a file compat had
/// made up, where `true` is no schema in draft 4), and its kinds, no longer
/// fixed, break both ways.
#[test]
fn an_envelope_read_in_draft_4_is_compared_with_its_bodies() {
    let new = edited("envelope/Envelope.json", |v| {
        *at(v, "/$schema") = json!("http://json-schema.org/draft-04/schema#");
    });
    for readers in [Readers::Tolerant, Readers::Strict] {
        let comparison = compare(&new, readers);
        breaks_both_ways(&comparison);
        assert!(
            comparison.changes.iter().any(|c| c.group == "Envelope"),
            "{:#?}",
            comparison.changes
        );
    }
}

/// A branch of the envelope read in another draft cannot be decided (the
/// validator reads it in that draft from above and in the envelope's own
/// by a reference), and the report names the envelope's file, not the one
/// compat compares it as with its bodies left open.
#[test]
fn an_envelope_branch_in_another_draft_cannot_be_decided_in_the_envelope() {
    let new = edited("envelope/Envelope.json", |v| {
        at(v, "/oneOf/0")["$schema"] = json!("http://json-schema.org/draft-04/schema#");
    });
    let comparison = compare(&new, Readers::Tolerant);
    breaks_both_ways(&comparison);
    let human = compat::report::human(&comparison, None);
    assert!(
        human.contains("cannot decide: $schema at envelope/Envelope.json#/oneOf/0")
            && !human.contains("headers"),
        "{human}"
    );
}

/// A body that leaves out a method (whose own file is unchanged) makes
/// every reader of that version refuse its calls; one that lists a name no
/// file has is no contract either. Neither is compared method by method:
/// "cannot decide", both ways.
#[test]
fn a_body_that_leaves_out_a_method_cannot_be_decided() {
    let left_out = edited("envelope/CallBody.json", |v| {
        at(v, "/oneOf")
            .as_array_mut()
            .expect("oneOf")
            .retain(|b| b["properties"]["method"]["const"] != "download.cancel");
    });
    let listed_extra = edited("envelope/EventBody.json", |v| {
        let mut extra = at(v, "/oneOf/0").clone();
        extra["properties"]["name"]["const"] = json!("event.nowhere");
        extra["properties"]["params"]["$ref"] = json!("../events/event.nowhere.json#/$defs/params");
        at(v, "/oneOf").as_array_mut().expect("oneOf").push(extra);
    });
    for (new, body, why) in [
        (
            left_out,
            "CallBody",
            "\"download.cancel\" (methods/download.cancel.json) is missing",
        ),
        (
            listed_extra,
            "EventBody",
            "\"event.nowhere\" is not an event in the schema set",
        ),
    ] {
        undecided_body(&new, body, why);
    }
}

/// Without `envelope/Envelope.json` in one version, what every message is
/// read as is unknown there: "cannot decide", both ways.
#[test]
fn an_envelope_in_one_version_only_cannot_be_decided() {
    let mut without = base();
    without.docs.retain(|d| d.rel != "envelope/Envelope.json");
    for comparison in [
        compare(&without, Readers::Tolerant),
        compare_sets(&without, &base(), Options::default()).expect("compared"),
    ] {
        breaks_both_ways(&comparison);
        let change = comparison
            .changes
            .iter()
            .find(|c| c.group == "Envelope")
            .unwrap_or_else(|| panic!("{:#?}", comparison.changes));
        assert_eq!(change.undecided.as_deref(), Some("$ref"));
    }
}

/// Every file of the contract removed in turn (the edit no generated
/// change makes): wherever a schema of the set refers to it, and for the
/// envelope and the tool-set file, which every message or the executor
/// reads, compat never says both directions hold.
#[test]
fn no_file_removed_that_anything_reads_leaves_both_directions_holding() {
    let old = base();
    let refers_to = |doc: &contract::SchemaDoc, file: &str| {
        let name = file.rsplit('/').next().unwrap_or(file);
        let mut stack = vec![&doc.value];
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(map) => {
                    if map.get("$ref").and_then(Value::as_str).is_some_and(|r| {
                        let path = r.split('#').next().unwrap_or(r);
                        path == name || path.ends_with(&format!("/{name}"))
                    }) {
                        return true;
                    }
                    stack.extend(map.values());
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        false
    };
    let mut checked = 0;
    for doc in &old.docs {
        let read = doc.rel == "envelope/Envelope.json"
            || doc.kind == contract::DocKind::Config
            || old
                .docs
                .iter()
                .any(|other| other.rel != doc.rel && refers_to(other, &doc.rel));
        if !read {
            continue;
        }
        let mut new = old.clone();
        new.docs.retain(|d| d.rel != doc.rel);
        let comparison = compare(&new, Readers::Tolerant);
        assert!(
            !(comparison.writer.holds() && comparison.reader.holds()),
            "{} removed: {:#?}",
            doc.rel,
            comparison.changes
        );
        checked += 1;
    }
    assert!(checked > 20, "{checked} files checked");
}

/// A method's `result` gone from its file while the reply body still
/// refers to it: no validator compiles the new envelope, so there is no
/// verdict, but an error naming the reference (rule `lint.ref`).
#[test]
fn a_part_removed_while_referred_to_is_refused() {
    let new = edited("methods/download.cancel.json", |v| {
        at(v, "/$defs")
            .as_object_mut()
            .expect("$defs")
            .remove("result");
    });
    let err = compare_sets(&base(), &new, Options::default())
        .expect_err("a reference that leads nowhere is refused");
    match &err {
        compat::Error::Unresolved {
            version,
            file,
            pointer,
            why,
        } => {
            assert_eq!(*version, compat::Version::New);
            assert_eq!(file, "envelope/ReplyBody.json");
            assert!(pointer.ends_with("/properties/result/$ref"), "{pointer}");
            assert!(
                why.contains("\"../methods/download.cancel.json#/$defs/result\""),
                "{why}"
            );
        }
        other => panic!("{other}"),
    }
}

/// The envelope's bodies are left open for its whole-schema check only
/// where both versions refer to the same body file: a call's body made to
/// refer to the replies is compared as it is, and breaks.
#[test]
fn an_envelope_body_that_refers_elsewhere_breaks() {
    let new = edited("envelope/Envelope.json", |v| {
        *at(v, "/oneOf/0/properties/body/$ref") = json!("ReplyBody.json");
    });
    let comparison = compare(&new, Readers::Tolerant);
    breaks_both_ways(&comparison);
}

/// The envelope's branches are matched by `kind`, not by place: reordered,
/// they change nothing. A second branch of a kind already told makes each
/// message of that kind match two branches of a `oneOf`, which new readers
/// refuse.
#[test]
fn envelope_branches_are_matched_by_kind() {
    let reordered = edited("envelope/Envelope.json", |v| {
        at(v, "/oneOf").as_array_mut().expect("oneOf").reverse();
    });
    let comparison = compare(&reordered, Readers::Tolerant);
    assert!(comparison.changes.is_empty(), "{:#?}", comparison.changes);
    assert_eq!(comparison.bump, Bump::None);

    let doubled = edited("envelope/Envelope.json", |v| {
        let call = at(v, "/oneOf/0").clone();
        at(v, "/oneOf").as_array_mut().expect("oneOf").push(call);
    });
    let comparison = compare(&doubled, Readers::Tolerant);
    assert_eq!(
        comparison.reader,
        Verdict::Breaking,
        "{:#?}",
        comparison.changes
    );
}

/// A reference moved to another type is a change of the part that moved
/// it (here `download.cancel`'s params), not of the type it left, which
/// still reads what it read.
#[test]
fn a_reference_moved_to_another_type_is_reported_where_it_moved() {
    let mut new = edited("methods/download.cancel.json", |v| {
        *at(v, "/$defs/params/properties/taskId/$ref") = json!("../types/ShortTaskId.json");
    });
    let mut short = base()
        .docs
        .into_iter()
        .find(|d| d.rel == "types/TaskId.json")
        .expect("TaskId");
    short.rel = "types/ShortTaskId.json".into();
    short.name = "ShortTaskId".into();
    short.value["$id"] = json!(short.expected_id());
    short.value["title"] = json!("ShortTaskId");
    short.value["maxLength"] = json!(8);
    new.docs.push(short);
    let comparison = compare(&new, Readers::Tolerant);
    let narrowed = comparison
        .changes
        .iter()
        .find(|c| c.rule == "length.narrowed")
        .unwrap_or_else(|| panic!("{:#?}", comparison.changes));
    assert_eq!(narrowed.group, "download.cancel");
    assert_eq!(narrowed.reader, Verdict::Breaking);
    assert!(comparison
        .changes
        .iter()
        .all(|c| c.group == "download.cancel"));
}

/// A type file removed while parts still refer to it: no validator of the
/// new version can be built, so nothing about it can be decided; the
/// change is the type's, and says which file is missing.
#[test]
fn a_type_removed_while_referred_to_cannot_be_decided() {
    for (file, group) in [
        ("types/TaskState.json", "TaskState"),
        ("types/ChecksumAlgorithm.json", "ChecksumAlgorithm"),
    ] {
        let mut new = base();
        new.docs.retain(|d| d.rel != file);
        let comparison = compare(&new, Readers::Tolerant);
        breaks_both_ways(&comparison);
        let change = comparison
            .changes
            .iter()
            .find(|c| c.group == group)
            .unwrap_or_else(|| panic!("{:#?}", comparison.changes));
        assert_eq!(
            (change.writer, change.reader),
            (Verdict::Breaking, Verdict::Breaking)
        );
        assert_eq!(change.undecided.as_deref(), Some("$ref"));
        let why = change.why.as_deref().unwrap_or_default();
        assert!(
            why.contains(&format!(
                "a reference names {file}, which the new version does not have"
            )),
            "{change:#?}"
        );
    }
}

/// Validators built from a contract register each document under its
/// `$id`, compat under its place: where the two differ, a reference could
/// reach another document in each (here every `TaskId` would be the
/// narrower one), so compat gives no verdict and says which file and rule.
#[test]
fn a_document_whose_id_is_not_its_place_gets_no_verdict() {
    let mut new = base();
    let task_id = new
        .docs
        .iter_mut()
        .find(|d| d.rel == "types/TaskId.json")
        .expect("TaskId");
    let place = task_id.expected_id();
    task_id.value["$id"] = json!(place.replace("TaskId.json", "TaskIdOld.json"));
    let mut narrow = task_id.clone();
    narrow.rel = "types/TaskIdNarrow.json".into();
    narrow.name = "TaskIdNarrow".into();
    narrow.value["$id"] = json!(place);
    narrow.value["maxLength"] = json!(8);
    new.docs.push(narrow);
    let err = compare_sets(&base(), &new, Options::default()).expect_err("no verdict");
    let text = err.to_string();
    assert!(
        text.starts_with("types/TaskId.json (new version): `$id` is ")
            && text.contains("(at /$id, rule lint.id)"),
        "{text}"
    );

    let mut unnamed = base();
    if let Some(map) = unnamed.docs[0].value.as_object_mut() {
        map.remove("$id");
    }
    let err = compare_sets(&unnamed, &base(), Options::default()).expect_err("no verdict");
    assert!(err.to_string().contains("no `$id`"), "{err}");
    assert!(err.to_string().contains("(old version)"), "{err}");
    assert!(
        err.to_string().contains("(at the root, rule lint.id)"),
        "{err}"
    );

    let shadowed = edited("methods/download.cancel.json", |v| {
        at(v, "/$defs").as_object_mut().expect("$defs").insert(
            "shadow".into(),
            json!({"$id": "../types/TaskId.json", "type": "string", "maxLength": 8}),
        );
    });
    let err = compare_sets(&base(), &shadowed, Options::default()).expect_err("no verdict");
    assert!(
        err.to_string()
            .contains("(at /$defs/shadow/$id, rule lint.id)"),
        "{err}"
    );
}

/// Draft 4 names a resource by `id` and ignores `$id`: a file of that draft
/// whose `id` is another file's place takes that place in every validator
/// built from the set (here every `TaskSummary` would be a `TaskId`), and
/// so does an `id` inside it. No verdict, as for `$id`.
#[test]
fn a_draft_4_document_whose_id_is_not_its_place_gets_no_verdict() {
    let d4 = "http://json-schema.org/draft-04/schema#";
    let elsewhere = edited("types/TaskId.json", |v| {
        *at(v, "/$schema") = json!(d4);
        v["id"] = json!("https://schemas.vdm.invalid/types/TaskSummary.json");
    });
    let err = compare_sets(&base(), &elsewhere, Options::default()).expect_err("no verdict");
    assert!(
        err.to_string()
            .starts_with("types/TaskId.json (new version): `id` is ")
            && err.to_string().contains("(at /id, rule lint.id)"),
        "{err}"
    );
    let inside = edited("types/TaskDetail.json", |v| {
        *at(v, "/$schema") = json!(d4);
        at(v, "/properties/summary")["id"] = json!("TaskSpec.json");
    });
    let err = compare_sets(&inside, &base(), Options::default()).expect_err("no verdict");
    assert!(
        err.to_string()
            .contains("(at /properties/summary/id, rule lint.id)"),
        "{err}"
    );
    // Its own place as `id`, or `id` in a later draft (where it is no
    // keyword), names nothing else.
    let own = edited("types/TaskId.json", |v| {
        *at(v, "/$schema") = json!(d4);
        v["id"] = json!("https://schemas.vdm.invalid/types/TaskId.json");
    });
    let later = edited("types/TaskId.json", |v| {
        v["id"] = json!("https://schemas.vdm.invalid/types/TaskSummary.json");
    });
    for new in [own, later] {
        compare_sets(&base(), &new, Options::default()).expect("compared");
    }
}

/// The executor's tool-set file is compared too, read as the executor reads
/// it (strictly, whatever the wire's readers do): a field it no longer
/// knows, or one it now requires, refuses files written for the old one,
/// and so may a new executor whose contract has no tool-set file at all;
/// a schema added or removed cannot be decided either way.
#[test]
fn a_tool_set_file_the_new_executor_refuses_breaks_old_files() {
    let removed = edited("config/ToolSet.json", |v| {
        at(v, "/$defs/Tool/properties")
            .as_object_mut()
            .expect("properties")
            .remove("subjectCwd")
            .expect("subjectCwd");
    });
    let required = edited("config/ToolSet.json", |v| {
        at(v, "/$defs/Tool/required")
            .as_array_mut()
            .expect("required")
            .push(json!("cwd"));
    });
    let mut gone = base();
    gone.docs.retain(|d| d.rel != "config/ToolSet.json");
    // Described where it was not: files written with no schema may not be
    // read by an executor that now reads them strictly, and what the old
    // executor reads is not in the contract: neither way can be decided,
    // as for the removal the other way round.
    let comparison = compare_sets(&gone, &base(), Options::default()).expect("compared");
    let added = only_change(&comparison);
    assert_eq!(added.rule, "config.added");
    assert!(added.undecided.is_some(), "{added:?}");
    assert!(!comparison.writer.holds() && !comparison.reader.holds());
    assert_eq!(comparison.bump, Bump::Major);
    let comparison = compare_sets(&base(), &gone, Options::default()).expect("compared");
    assert!(!comparison.writer.holds() && !comparison.reader.holds());
    for new in [removed, required, gone] {
        let comparison = compare(&new, Readers::Tolerant);
        assert_eq!(
            comparison.reader,
            Verdict::Breaking,
            "{:#?}",
            comparison.changes
        );
        assert!(comparison.changes.iter().all(|c| c.group == "ToolSet"));
        assert_eq!(comparison.bump, Bump::Major);
        assert_eq!(
            compat::report::reaches(&comparison, "ToolSet").as_deref(),
            Some("config/ToolSet.json file (operator → vdm-exec)")
        );
    }
}

/// A reference spelled another way that validators resolve to the same
/// file (RFC 3986: a network-path `//host/path` keeps the document's
/// scheme, an absolute path keeps its host) is the same reference; through
/// it, a change of the file it reaches is still seen, and one reaching a
/// host outside the set cannot be decided.
#[test]
fn a_reference_spelled_another_way_reaches_the_same_file() {
    let spelled = |spelling: &'static str| {
        move |v: &mut Value| {
            at(v, "/$defs/params/properties/taskId")["$ref"] = json!(spelling);
        }
    };
    for spelling in [
        "//schemas.vdm.invalid/types/TaskId.json",
        "https://schemas.vdm.invalid/types/TaskId.json",
        "/types/TaskId.json",
        "../methods/../types/TaskId.json#",
    ] {
        let new = edited("methods/download.cancel.json", spelled(spelling));
        let comparison = compare(&new, Readers::Tolerant);
        assert!(
            comparison.writer.holds() && comparison.reader.holds(),
            "{spelling}: {:#?}",
            comparison.changes
        );
        // Narrowed behind the new spelling: old writers' long ids break R.
        let mut narrowed = new.clone();
        if let Some(task_id) = narrowed
            .docs
            .iter_mut()
            .find(|d| d.rel == "types/TaskId.json")
        {
            task_id.value["maxLength"] = json!(8);
        }
        let comparison = compare(&narrowed, Readers::Tolerant);
        assert!(!comparison.reader.holds(), "{spelling}");
    }
    // Outside the set, named as written (not by where a view keeps it).
    for (spelling, named) in [
        (
            "//example.com/TaskId.json",
            "https://example.com/TaskId.json",
        ),
        ("urn:vdm:TaskId", "urn:vdm:TaskId"),
    ] {
        let outside = edited("methods/download.cancel.json", spelled(spelling));
        let comparison = compare(&outside, Readers::Tolerant);
        assert!(!comparison.writer.holds() && !comparison.reader.holds());
        let said = format!("a reference names {named}, which is not among the schemas compared");
        assert!(
            comparison
                .changes
                .iter()
                .any(|c| c.group == "download.cancel"
                    && c.why.as_deref().is_some_and(|why| why.contains(&said))),
            "{:#?}",
            comparison.changes
        );
        let shown = format!("{:?}", comparison.changes);
        assert!(
            !shown.contains("~abs") && !shown.contains("compat.invalid"),
            "{shown}"
        );
    }
}

/// A reference the validator's resolver cannot read at all (not a URI
/// reference) once refused the whole registry: every document was tried
/// alone, and the report blamed `Checksum`, whose resolver is eager, while
/// never naming the reference. Now the document holding it cannot be
/// decided, at that reference, and nothing else is touched.
#[test]
fn a_reference_the_resolver_cannot_read_is_named_where_it_stands() {
    for spelling in [
        "../types/TaskId%zz.json",
        "http://[bad/x.json",
        "../types/Task Id.json",
        "../types/TaskId.json#/$defs/%zz",
    ] {
        let new = edited("methods/download.cancel.json", |v| {
            at(v, "/$defs/params/properties/taskId")["$ref"] = json!(spelling);
        });
        for comparison in [
            compare(&new, Readers::Tolerant),
            compare_sets(&new, &base(), Options::default()).expect("compared"),
        ] {
            assert!(
                !comparison.writer.holds() && !comparison.reader.holds(),
                "{spelling}"
            );
            let groups: std::collections::BTreeSet<&str> = comparison
                .changes
                .iter()
                .filter(|c| c.rule != "api.changed")
                .map(|c| c.group.as_str())
                .collect();
            assert_eq!(
                groups.into_iter().collect::<Vec<_>>(),
                ["download.cancel"],
                "{spelling}: {:#?}",
                comparison.changes
            );
            assert!(
                explains(
                    &comparison,
                    &[
                        "methods/download.cancel.json#/$defs/params/properties/taskId",
                        spelling
                    ]
                ),
                "{spelling}: {:#?}",
                comparison.changes
            );
        }
    }
}

/// An assertion added beside a reference (`{"$ref": …, "maxProperties": 2}`)
/// is that one change. The reference was followed on the old side only, and
/// the target compared with the reference and its sibling read as every
/// field of the target removed.
#[test]
fn an_assertion_beside_a_reference_is_one_change() {
    let new = edited("methods/download.add.json", |v| {
        at(v, "/$defs/params/properties/spec")["maxProperties"] = json!(2);
    });
    for comparison in [
        compare(&new, Readers::Tolerant),
        compare_sets(&new, &base(), Options::default()).expect("compared"),
    ] {
        let wire: Vec<_> = comparison
            .changes
            .iter()
            .filter(|c| c.rule != "api.changed")
            .collect();
        assert_eq!(wire.len(), 1, "{wire:#?}");
        assert!(
            wire[0]
                .new_pointer
                .iter()
                .chain(&wire[0].old_pointer)
                .any(|p| p.ends_with("/spec/maxProperties")),
            "{wire:#?}"
        );
    }
    // Old writers' specs have more than two fields: R breaks.
    assert!(!compare(&new, Readers::Tolerant).reader.holds());
}

/// Where the prover cannot decide, the reason names the keyword that
/// changed, not the `additionalProperties: false` a tolerant reader's view
/// always lacks (which every such reason named before).
#[test]
fn a_reason_not_to_decide_names_what_changed() {
    let new = edited("types/TaskDetail.json", |v| {
        v["minimum"] = json!(-1);
    });
    let comparison = compare(&new, Readers::Tolerant);
    // `minimum` reads numbers only, so R holds; a prover that cannot see
    // that says why.
    assert!(
        comparison.reader.holds() || comparison.changes.iter().any(|c| c.undecided.is_some()),
        "{:#?}",
        comparison.changes
    );
    for change in comparison.changes.iter().filter(|c| c.undecided.is_some()) {
        let why = change.why.as_deref().unwrap_or_default();
        assert!(
            why.contains("cannot decide: minimum") && !why.contains("additionalProperties"),
            "{change:#?}"
        );
    }
}

/// `Segment.index` as the end of a chain of `links` definitions, each a bare
/// reference to the next or (`nested`) an object whose one property refers
/// to the next, ending in an integer up to `maximum`.
fn chained(links: usize, nested: bool, maximum: u64) -> SchemaSet {
    linked(links, maximum, |next| {
        if nested {
            json!({ "type": "object", "properties": { "x": next } })
        } else {
            next
        }
    })
}

/// `Segment.index` as definitions `d0` … `d{links}`, each `link` of a
/// reference to the next, the last an integer up to `maximum`.
fn linked(links: usize, maximum: u64, link: impl Fn(Value) -> Value) -> SchemaSet {
    edited("types/Segment.json", |v| {
        let mut defs = serde_json::Map::new();
        for i in 0..links {
            let next = json!({ "$ref": format!("#/$defs/d{}", i + 1) });
            defs.insert(format!("d{i}"), link(next));
        }
        defs.insert(
            format!("d{links}"),
            json!({ "type": "integer", "minimum": 0, "maximum": maximum }),
        );
        v["$defs"] = Value::Object(defs);
        v["properties"]["index"] = json!({ "$ref": "#/$defs/d0" });
    })
}

/// The canonical form, the validator and the change walk all recurse through
/// references: a chain of them thousands deep overflowed the stack. Past
/// the nesting the prover follows it cannot decide (and says where); below
/// it the verdict is exact.
#[test]
fn a_chain_of_references_too_deep_to_follow_is_undecided_not_a_crash() {
    for nested in [false, true] {
        let old = chained(3000, nested, 30);
        let new = chained(3000, nested, 29);
        let comparison = compare_sets(&old, &new, Options::default()).expect("compared");
        assert!(
            !comparison.writer.holds() && !comparison.reader.holds(),
            "nested {nested}: {:#?}",
            comparison.changes
        );
        assert!(
            explains(
                &comparison,
                &[
                    "cannot decide: $ref at types/Segment.json#/$defs/d",
                    "levels deep through references"
                ]
            ),
            "nested {nested}: {:#?}",
            comparison.changes
        );
        let (old, new) = (chained(20, nested, 30), chained(20, nested, 29));
        let comparison = compare_sets(&old, &new, Options::default()).expect("compared");
        assert!(
            comparison.writer.holds() && !comparison.reader.holds(),
            "nested {nested}: {:#?}",
            comparison.changes
        );
    }
    // Many references side by side nest no deeper than one: still decided.
    let wide = |maximum: u64| {
        edited("types/Segment.json", |v| {
            let refs: Vec<Value> = (0..300)
                .map(|i| json!({ "$ref": format!("#/$defs/d{i}") }))
                .collect();
            let mut defs = serde_json::Map::new();
            for i in 0..300 {
                defs.insert(format!("d{i}"), json!({ "minimum": 0 }));
            }
            defs.insert("d299".into(), json!({ "maximum": maximum }));
            v["$defs"] = Value::Object(defs);
            v["properties"]["index"] = json!({ "type": "integer", "allOf": refs });
        })
    };
    let comparison = compare_sets(&wide(30), &wide(29), Options::default()).expect("compared");
    assert!(
        comparison.writer.holds() && !comparison.reader.holds(),
        "{:#?}",
        comparison.changes
    );
}

/// A file that nests past the depth this tool reads is kept as that fact:
/// every verdict it reaches cannot be decided, and nothing says it lacks the
/// `$id` it has (that was the error, which named the wrong fault).
#[test]
fn a_file_too_deep_to_read_is_undecided_not_a_file_without_its_id() {
    let texts: Vec<(String, String)> = base()
        .docs
        .iter()
        .map(|doc| {
            let mut value = doc.value.clone();
            if doc.rel == "types/DownloadSpec.json" {
                let mut url = json!({"type": "string"});
                for _ in 0..70 {
                    url = json!({ "allOf": [url] });
                }
                value["properties"]["url"] = url;
            }
            (doc.rel.clone(), value.to_string())
        })
        .collect();
    let new = SchemaSet::from_texts_with(
        Path::new("deep"),
        texts
            .iter()
            .map(|(rel, text)| (rel.as_str(), text.as_str())),
        contract::DeepDocuments::Keep,
    )
    .expect("kept");
    assert!(new.docs.iter().any(|doc| doc.too_deep.is_some()));
    let comparison = compare_sets(&base(), &new, Options::default()).expect("compared");
    assert!(
        !comparison.writer.holds() && !comparison.reader.holds(),
        "{:#?}",
        comparison.changes
    );
    assert!(
        comparison.changes.iter().any(|c| c
            .why
            .as_deref()
            .is_some_and(|why| why.contains("levels deep"))),
        "{:#?}",
        comparison.changes
    );
}

/// `Segment.index` as `levels` definitions, each an `allOf` of `fan`
/// references to the next, ending in an integer up to `maximum`: checking
/// one value meets `fan^levels` schemas.
fn fanned(levels: usize, fan: usize, maximum: u64) -> SchemaSet {
    linked(levels, maximum, |next| json!({ "allOf": vec![next; fan] }))
}

/// References that fan out (ten to a schema holding ten to another, twelve
/// levels down) made every validation exponential: compat ran for hours.
/// Past what a check of one value may meet the place cannot be decided, at
/// once; a few levels are still decided exactly.
#[test]
fn references_that_fan_out_past_the_budget_are_undecided_not_a_hang() {
    let comparison = compare_sets(&fanned(12, 10, 30), &fanned(12, 10, 29), Options::default())
        .expect("compared");
    assert!(
        !comparison.writer.holds() && !comparison.reader.holds(),
        "{:#?}",
        comparison.changes
    );
    assert!(
        explains(
            &comparison,
            &["cannot decide: $ref", "hold more than 100000 subschemas"]
        ),
        "{:#?}",
        comparison.changes
    );
    let comparison =
        compare_sets(&fanned(3, 10, 30), &fanned(3, 10, 29), Options::default()).expect("compared");
    assert!(
        comparison.writer.holds() && !comparison.reader.holds(),
        "{:#?}",
        comparison.changes
    );
}

/// A default says what a member left out stands for: the same values pass
/// before and after, and one of them is read as two things. Changed, it
/// breaks both ways; added or removed, what the side without it meant is
/// not written, which is "cannot decide".
#[test]
fn a_changed_default_breaks_both_ways() {
    let flipped = edited("config/ToolSet.json", |v| {
        *at(v, "/$defs/Tool/properties/subjectCwd/default") = json!(true)
    });
    let comparison = compare(&flipped, Readers::Tolerant);
    let change = only_change(&comparison);
    assert_eq!(change.rule, "meaning.changed");
    assert_eq!(
        (change.writer, change.reader),
        (Verdict::Breaking, Verdict::Breaking)
    );
    assert!(change.undecided.is_none(), "{change:?}");
    assert_eq!(
        change.new_pointer.as_deref(),
        Some("config/ToolSet.json#/$defs/Tool/properties/subjectCwd/default")
    );
    assert!(explains(
        &comparison,
        &["false", "true", "read as two things"]
    ));
    assert_eq!(comparison.bump, Bump::Major);

    let dropped = edited("config/ToolSet.json", |v| {
        at(v, "/$defs/Tool/properties/subjectCwd")
            .as_object_mut()
            .expect("subjectCwd")
            .remove("default")
            .expect("a default");
    });
    let comparison = compare(&dropped, Readers::Tolerant);
    let change = only_change(&comparison);
    assert_eq!(change.rule, "meaning.changed");
    assert_eq!(change.undecided.as_deref(), Some("default"));
    assert!(!comparison.writer.holds() && !comparison.reader.holds());
}

/// What stands beside a reference, and what a reference reaches inside its
/// own file, is compared as written: a description changed there is a
/// patch, not "no changes".
#[test]
fn an_annotation_beside_or_behind_a_reference_is_a_change() {
    let beside = edited("methods/download.add.json", |v| {
        *at(v, "/$defs/params/properties/spec/description") = json!("What to fetch.")
    });
    let behind = edited("config/ToolSet.json", |v| {
        *at(v, "/$defs/Tool/properties/name/description") = json!("The name.")
    });
    for (new, place) in [
        (
            beside,
            "methods/download.add.json#/$defs/params/properties/spec",
        ),
        (behind, "config/ToolSet.json#/$defs/Tool/properties/name"),
    ] {
        let comparison = compare(&new, Readers::Tolerant);
        let change = only_change(&comparison);
        assert_eq!(change.rule, "annotation.changed", "{place}");
        assert_eq!(change.new_pointer.as_deref(), Some(place));
        assert_eq!(comparison.bump, Bump::Patch, "{place}");
    }
}

/// `contentEncoding` passes every string in 2020-12, and says how to read
/// one: the same string is another content once it changes.
#[test]
fn a_changed_content_encoding_breaks_both_ways() {
    let set = |schema: Value| {
        SchemaSet::from_texts(
            Path::new("example"),
            [("types/Blob.json", schema.to_string().as_str())],
        )
        .expect("a set")
    };
    let schema = |encoding: &str| {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "string",
            "contentEncoding": encoding
        })
    };
    let comparison = compat::compare_documents(
        &set(schema("base64")),
        &set(schema("base32")),
        Options::default(),
    )
    .expect("compared");
    let change = only_change(&comparison);
    assert_eq!(change.rule, "meaning.changed");
    assert!(!comparison.writer.holds() && !comparison.reader.holds());
}

/// Every schema place of the contract as `(file, pointer)` (found by the
/// keyword names alone, not by the checker's own walk, which is what is
/// under test) but those `skip` leaves out, and the stride a run takes
/// through them: `COMPAT_PLACES_EVERY`, or every twelfth.
fn spread_places(skip: impl Fn(&str) -> bool) -> (Vec<(String, String)>, usize) {
    let every: usize = std::env::var("COMPAT_PLACES_EVERY")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(12);
    let places = base()
        .docs
        .iter()
        .flat_map(|doc| {
            sample::schemas::places(&doc.value)
                .into_iter()
                .filter(|pointer| !skip(pointer))
                .map(|pointer| (doc.rel.clone(), pointer))
        })
        .collect();
    (places, every.max(1))
}

/// At places spread over the whole contract (every file, every depth): a
/// description written there is reported, a patch that breaks nothing, and
/// a default set there breaks both ways, alone or beside another change. `COMPAT_PLACES_EVERY=1` tries every
/// place (the bounded run takes every twelfth).
#[test]
fn a_note_or_a_default_anywhere_in_the_contract_is_seen() {
    let (places, every) = spread_places(|_| false);
    let mut unseen = Vec::new();
    for (file, pointer) in places.iter().step_by(every) {
        let noted = edited(file, |v| {
            at(v, pointer)["description"] = json!("A note no version had.")
        });
        let comparison = compare(&noted, Readers::Tolerant);
        let seen = comparison.bump >= Bump::Patch
            && comparison
                .changes
                .iter()
                .any(|c| c.rule == "annotation.changed");
        if !seen || !comparison.writer.holds() || !comparison.reader.holds() {
            unseen.push(format!(
                "{file}#{pointer}: a description: bump {:?}, W {:?}, R {:?}",
                comparison.bump, comparison.writer, comparison.reader
            ));
        }
        // A default alone, and one beside a keyword that constrains
        // nothing more (`minLength: 0`) but is a change of the schema's
        // constraints as written, which the walk may judge whole.
        for beside in [None, Some(("minLength", json!(0)))] {
            let defaulted = edited(file, |v| {
                let here = at(v, pointer);
                here["default"] = json!("left out");
                if let Some((key, value)) = &beside {
                    here[*key] = value.clone();
                }
            });
            let comparison = compare(&defaulted, Readers::Tolerant);
            if comparison.writer.holds() || comparison.reader.holds() {
                unseen.push(format!(
                    "{file}#{pointer}: a default (beside {beside:?}): W {:?}, R {:?}",
                    comparison.writer, comparison.reader
                ));
            }
        }
    }
    assert!(
        unseen.is_empty(),
        "{} of {} places:\n{}",
        unseen.len(),
        places.len().div_ceil(every),
        unseen.join("\n")
    );
}

/// At places spread over the whole contract, the schema replaced by
/// `false` (nothing passes there any more): every value an old writer sent
/// through that place is refused by a new reader, so R breaks, wherever the
/// place is reached, for tolerant and strict readers. Places under `not`
/// and `if` are left out (there, refusing everything lets more through, or
/// picks another branch). `COMPAT_PLACES_EVERY=1` tries every place.
#[test]
fn nothing_passing_where_something_did_breaks_old_writers_anywhere() {
    let old = base();
    let (places, every) =
        spread_places(|pointer| pointer.split('/').any(|t| t == "not" || t == "if"));
    let mut held = Vec::new();
    for (file, pointer) in places.iter().step_by(every) {
        let refused = edited(file, |v| *at(v, pointer) = json!(false));
        // Tolerant readers ignore members an object does not declare, so a
        // map's values refused there are not seen by them: judged for
        // strict readers only.
        let readers = if pointer.ends_with("/additionalProperties") {
            vec![Readers::Strict]
        } else {
            vec![Readers::Tolerant, Readers::Strict]
        };
        for readers in readers {
            let options = Options {
                readers,
                ..Options::default()
            };
            // A file with no `$id` left gets no verdict at all: nothing ships.
            let Ok(comparison) = compare_sets(&old, &refused, options) else {
                continue;
            };
            if comparison.reader.holds() {
                held.push(format!("{file}#{pointer} ({readers:?} readers)"));
            }
        }
    }
    assert!(
        held.is_empty(),
        "R said to hold with nothing passing at {} of {} places:\n{}",
        held.len(),
        places.len().div_ceil(every),
        held.join("\n")
    );
}

/// A keyword that judges only values of one JSON type (a numeric bound,
/// a string length, an item count) passes every value of another: added
/// beside an object's `type`, it breaks no old writer. (`DownloadSpec`
/// reaches `Checksum`'s conditions, which the canonical form cannot
/// settle, so the keyword's type alone must.)
#[test]
fn a_keyword_for_another_type_than_the_writers_breaks_nothing() {
    for (keyword, value) in [
        ("exclusiveMinimum", json!(5)),
        ("maxLength", json!(3)),
        ("minItems", json!(2)),
    ] {
        let new = edited("types/DownloadSpec.json", |v| {
            v[keyword] = value.clone();
        });
        let comparison = compare(&new, Readers::Strict);
        assert_eq!(
            comparison.reader,
            Verdict::Compatible,
            "{keyword}: {:#?}",
            comparison.changes
        );
        assert_eq!(comparison.writer, Verdict::Compatible, "{keyword}");
    }
}

/// Beside a `$ref` (2020-12 reads both), a keyword that passes every value
/// of the target's type breaks nothing, added or taken away: a reader
/// takes what the target and the keyword both take, a writer writes no
/// more than the target. (`DownloadSpec` is the object an item count
/// passes.)
#[test]
fn a_keyword_beside_a_reference_is_judged_with_its_target() {
    for readers in [Readers::Strict, Readers::Tolerant] {
        let beside = edited("types/TaskDetail.json", |v| {
            at(v, "/properties/spec")["uniqueItems"] = json!(true);
        });
        for (old, new) in [(base(), beside.clone()), (beside, base())] {
            let options = Options {
                readers,
                ..Default::default()
            };
            let comparison = compare_sets(&old, &new, options).expect("the schemas register");
            let said = format!("{readers:?}: {:#?}", comparison.changes);
            assert_eq!(comparison.reader, Verdict::Compatible, "{said}");
            assert_eq!(comparison.writer, Verdict::Compatible, "{said}");
        }
    }
}

/// A method's params moved behind a `$ref`, to a condition that always
/// holds (`{if: true, then: <params>}`): the same values pass, and both
/// directions hold whichever version is compared from. The walk finds the
/// changes under `$defs/moved` on the side that moved, and under
/// `$defs/params` on the other; the whole of `params` judges both.
#[test]
fn params_moved_behind_a_reference_hold_either_way_round() {
    let moved = edited("methods/download.list.json", |v| {
        let defs = at(v, "/$defs");
        let params = defs["params"].take();
        defs["moved"] = json!({"if": true, "then": params});
        defs["params"] = json!({"$ref": "#/$defs/moved"});
    });
    for readers in [Readers::Tolerant, Readers::Strict] {
        let options = Options {
            readers,
            ..Default::default()
        };
        for (old, new) in [(base(), moved.clone()), (moved.clone(), base())] {
            let comparison = compare_sets(&old, &new, options).expect("the schemas register");
            assert!(
                comparison.writer.holds() && comparison.reader.holds(),
                "{readers:?}: {:#?}",
                comparison.changes
            );
            // No line is left with a reason to break either.
            assert!(
                comparison.changes.iter().all(|c| c.why.is_none()),
                "{:#?}",
                comparison.changes
            );
        }
    }
}
