//! `lint.since`, judged against a release: what is new says the working
//! version, what was released keeps its own.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use contract::{since, LintRule, Released, SchemaSet};
use serde_json::{json, Value};

fn load(dir: &str) -> SchemaSet {
    SchemaSet::load(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(dir),
    )
    .expect("the set loads")
}

/// `since` over release 1.1.0 with `edit` applied, as version 1.2.0,
/// against release 1.1.0: the `(file, pointer)` of each violation.
fn after(edit: impl FnOnce(&mut SchemaSet)) -> Vec<(String, String)> {
    after_release(|_| {}, edit)
}

/// As [`after`], with release 1.1.0 changed by `release` first.
fn after_release(
    release: impl FnOnce(&mut SchemaSet),
    edit: impl FnOnce(&mut SchemaSet),
) -> Vec<(String, String)> {
    let mut released = load("contracts/released/1.1.0/schema");
    release(&mut released);
    let mut set = released.clone();
    edit(&mut set);
    let base = Released {
        version: "1.1.0",
        set: &released,
    };
    since(&set, "1.2.0", Some(&base))
        .into_iter()
        .inspect(|v| assert_eq!(v.rule, LintRule::Since, "{v}"))
        .map(|v| {
            let file = v.file.to_string_lossy().replace('\\', "/");
            let rel = file
                .rsplit_once("schema/")
                .map_or(file.clone(), |(_, rel)| rel.to_string());
            (rel, v.pointer.as_str().to_string())
        })
        .collect()
}

fn doc<'a>(set: &'a mut SchemaSet, name: &str) -> &'a mut Value {
    &mut set
        .docs
        .iter_mut()
        .find(|doc| doc.name == name)
        .unwrap_or_else(|| panic!("{name}"))
        .value
}

/// Adds a copy of the document `name` as the file `rel`; its schema, to edit.
fn copy_as<'a>(set: &'a mut SchemaSet, name: &str, rel: &str) -> &'a mut Value {
    let mut copy = set
        .docs
        .iter()
        .find(|doc| doc.name == name)
        .cloned()
        .unwrap_or_else(|| panic!("{name}"));
    copy.name = rel
        .rsplit_once('/')
        .and_then(|(_, file)| file.strip_suffix(".json"))
        .expect("folder/Name.json")
        .to_string();
    copy.rel = rel.into();
    set.docs.push(copy);
    &mut set.docs.last_mut().expect("just pushed").value
}

#[test]
fn the_releases_say_when_each_thing_arrived() {
    let base = load("contracts/released/1.0.0/schema");
    let released = Released {
        version: "1.0.0",
        set: &base,
    };
    let found = since(
        &load("contracts/released/1.1.0/schema"),
        "1.1.0",
        Some(&released),
    );
    assert!(found.is_empty(), "{found:?}");
    assert!(since(&base, "1.0.0", None).is_empty());
}

#[test]
fn a_new_field_says_the_working_version() {
    let at = "/properties/priority";
    let field = |since: Option<&str>| {
        let mut field = json!({"type": "integer", "minimum": 0, "maximum": 9, "description": "d"});
        if let Some(since) = since {
            field["x-since"] = json!(since);
        }
        field
    };
    for (given, broken) in [(None, true), (Some("1.1.0"), true), (Some("1.2.0"), false)] {
        let found = after(|set| doc(set, "TaskSummary")["properties"]["priority"] = field(given));
        let expected = if broken {
            vec![("types/TaskSummary.json".to_string(), at.to_string())]
        } else {
            Vec::new()
        };
        assert_eq!(found, expected, "x-since {given:?}");
    }
}

#[test]
fn what_was_released_keeps_its_version() {
    let found = after(|set| {
        doc(set, "TaskSummary")["properties"]["effectiveBufferBytes"]["x-since"] = json!("1.2.0");
        doc(set, "download.provideAuth")["x-since"] = json!("1.0.0");
        // Giving an old field the version it already had is documentation.
        doc(set, "TaskSummary")["properties"]["url"]["x-since"] = json!("1.0.0");
    });
    assert_eq!(
        found,
        [
            (
                "methods/download.provideAuth.json".to_string(),
                "/x-since".to_string()
            ),
            (
                "types/TaskSummary.json".to_string(),
                "/properties/effectiveBufferBytes/x-since".to_string()
            ),
        ]
    );
    // An old field given a later version than the release it was in.
    let found = after(|set| {
        doc(set, "TaskSummary")["properties"]["url"]["x-since"] = json!("1.2.0");
    });
    assert_eq!(
        found,
        [(
            "types/TaskSummary.json".to_string(),
            "/properties/url/x-since".to_string()
        )]
    );
}

#[test]
fn a_new_enum_value_is_listed_in_x_enum_since() {
    let add = |entry: Option<Value>| {
        after(move |set| {
            let state = doc(set, "TaskState");
            if let Some(values) = state["enum"].as_array_mut() {
                values.push(json!("archived"));
            }
            if let Some(entry) = entry {
                state["x-enum-since"] = json!({"archived": entry});
            }
        })
    };
    let at = vec![("types/TaskState.json".to_string(), "/enum/12".to_string())];
    assert_eq!(add(None), at);
    assert_eq!(add(Some(json!("1.1.0"))), at);
    assert!(add(Some(json!("1.2.0"))).is_empty());
}

#[test]
fn a_new_file_says_the_working_version() {
    let found = after(|set| {
        copy_as(set, "TaskId", "types/TaskLabel.json");
    });
    assert_eq!(found, [("types/TaskLabel.json".to_string(), String::new())]);
}

/// Something added while VERSION still names the latest release: whatever
/// `x-since` it gives, the advice is to move VERSION on first.
#[test]
fn a_change_before_version_moves_on_says_to_move_it() {
    let released = load("contracts/released/1.1.0/schema");
    let base = Released {
        version: "1.1.0",
        set: &released,
    };
    for given in [None, Some("1.1.0"), Some("1.2.0")] {
        let mut set = released.clone();
        let mut field = json!({"type": "integer", "minimum": 0, "maximum": 9, "description": "d"});
        if let Some(given) = given {
            field["x-since"] = json!(given);
        }
        doc(&mut set, "TaskSummary")["properties"]["priority"] = field;
        if let Some(values) = doc(&mut set, "TaskState")["enum"].as_array_mut() {
            values.push(json!("archived"));
        }
        doc(&mut set, "TaskState")["x-enum-since"] = json!({"archived": given});
        let found = since(&set, "1.1.0", Some(&base));
        let places: Vec<&str> = found.iter().map(|v| v.pointer.as_str()).collect();
        assert_eq!(
            places,
            ["/enum/12", "/properties/priority"],
            "x-since {given:?}"
        );
        for violation in &found {
            assert!(
                violation.message.contains(
                    "VERSION is still 1.1.0: set VERSION to the release this change goes into"
                ),
                "{violation}"
            );
        }
    }
    // Nothing new, nothing to say, whatever VERSION is.
    assert!(since(&released, "1.1.0", Some(&base)).is_empty());
}

/// A new method's branches in the envelope bodies say when they arrived, as
/// its file does; the branches the release had are left as they are.
#[test]
fn a_new_union_branch_says_the_working_version() {
    let add = |since: Option<&str>| {
        after(|set| {
            copy_as(set, "download.get", "methods/download.touch.json")["x-since"] = json!("1.2.0");
            for body in ["CallBody", "ReplyBody"] {
                let doc = doc(set, body);
                let mut branch = doc["oneOf"][8].clone();
                let text = serde_json::to_string(&branch).expect("text");
                branch = serde_json::from_str(&text.replace("download.get", "download.touch"))
                    .expect("json");
                if let Some(since) = since {
                    branch["x-since"] = json!(since);
                }
                // In the middle: branches are matched by their tag, not their place.
                doc["oneOf"]
                    .as_array_mut()
                    .expect("oneOf")
                    .insert(3, branch);
            }
        })
    };
    let places = |file: &str| (format!("envelope/{file}.json"), "/oneOf/3".to_string());
    assert_eq!(add(None), [places("CallBody"), places("ReplyBody")]);
    assert_eq!(
        add(Some("1.1.0")),
        [places("CallBody"), places("ReplyBody")]
    );
    assert!(add(Some("1.2.0")).is_empty());
}

/// Union branches with neither a tag nor a `$ref` are matched by their
/// content: the one inserted among them is the one that is new.
#[test]
fn a_new_plain_union_branch_is_found_where_it_was_inserted() {
    let branches = |set: &mut SchemaSet| {
        doc(set, "DownloadSpec")["properties"]["segments"]["anyOf"] =
            json!([{"maximum": 16}, {"minimum": 8}]);
    };
    let insert = |since: Option<&str>| {
        after_release(branches, move |set| {
            let mut branch = json!({"multipleOf": 2});
            if let Some(since) = since {
                branch["x-since"] = json!(since);
            }
            doc(set, "DownloadSpec")["properties"]["segments"]["anyOf"]
                .as_array_mut()
                .expect("anyOf")
                .insert(1, branch);
        })
    };
    assert_eq!(
        insert(None),
        [(
            "types/DownloadSpec.json".to_string(),
            "/properties/segments/anyOf/1".to_string()
        )]
    );
    assert!(insert(Some("1.2.0")).is_empty());
    // A branch edited in place is not new.
    let edited = after_release(branches, |set| {
        doc(set, "DownloadSpec")["properties"]["segments"]["anyOf"][1] = json!({"minimum": 4});
    });
    assert!(edited.is_empty(), "{edited:?}");
}

/// An integer enum's new value is listed by its digits.
#[test]
fn a_new_integer_enum_value_is_listed_by_its_digits() {
    let add = |entry: Option<Value>| {
        after(move |set| {
            let codes = doc(set, "RpcErrorCode");
            if let Some(values) = codes["enum"].as_array_mut() {
                values.push(json!(-32006));
            }
            if let Some(names) = codes["x-enum-varnames"].as_array_mut() {
                names.push(json!("busy"));
            }
            if let Some(entry) = entry {
                codes["x-enum-since"] = json!({"-32006": entry});
            }
        })
    };
    let at = vec![(
        "types/RpcErrorCode.json".to_string(),
        "/enum/10".to_string(),
    )];
    assert_eq!(add(None), at);
    assert_eq!(add(Some(json!("1.1.0"))), at);
    assert!(add(Some(json!("1.2.0"))).is_empty());
}
