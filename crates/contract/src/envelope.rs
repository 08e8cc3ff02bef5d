//! The one shape an envelope body's branch may have. `CallBody`,
//! `ReplyBody` and `EventBody` only name each method's or event's part:
//! a branch is `{"type": "object", "properties": {TAG: {"type": "string",
//! "const": NAME}, FIELD: {"$ref": PART}}, "required": [TAG, FIELD],
//! "additionalProperties": false}` and nothing else. The compatibility
//! checker compares each method's and event's parts instead of the bodies,
//! which holds only for bodies of that shape; the lint keeps the contract's
//! bodies to it, and compat cannot decide on a body that departs from it.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::{DocKind, Pointer, SchemaDoc, SchemaSet};

/// One body: its file's name, the kind of file its branches name, the member
/// naming the branch and the member holding the part.
pub struct Body {
    /// `CallBody`, `ReplyBody`, `EventBody`.
    pub name: &'static str,
    /// What a branch names: a method or an event.
    pub names: DocKind,
    /// The member whose `const` is the name.
    pub tag: &'static str,
    /// The member that refers to the part (`params`, `result`).
    pub field: &'static str,
}

/// The three bodies.
pub const BODIES: [Body; 3] = [
    Body {
        name: "CallBody",
        names: DocKind::Method,
        tag: "method",
        field: "params",
    },
    Body {
        name: "ReplyBody",
        names: DocKind::Method,
        tag: "method",
        field: "result",
    },
    Body {
        name: "EventBody",
        names: DocKind::Event,
        tag: "name",
        field: "params",
    },
];

/// Keywords that constrain nothing (wording, versions).
const WORDING: [&str; 3] = ["description", "$comment", "x-since"];

impl Body {
    /// Where `doc` (this body's file) departs from the one shape, and how.
    /// Which methods or events it must list is the lint's
    /// (`lint.envelope_coverage`); this is the shape of what it lists.
    pub fn departures(&self, doc: &SchemaDoc) -> Vec<(Pointer, String)> {
        let mut out = Vec::new();
        let Some(map) = doc.value.as_object() else {
            out.push((Pointer::root(), "not an object schema".into()));
            return out;
        };
        for key in map.keys() {
            let known = WORDING.contains(&key.as_str())
                || matches!(key.as_str(), "$schema" | "$id" | "title" | "oneOf");
            if !known {
                out.push((
                    Pointer::root().push(key),
                    format!("a body holds only its branches (`oneOf`), not `{key}`"),
                ));
            }
        }
        let Some(branches) = map.get("oneOf").and_then(Value::as_array) else {
            out.push((
                Pointer::root().push("oneOf"),
                "a body's branches are a `oneOf` list".into(),
            ));
            return out;
        };
        let mut names = BTreeSet::new();
        for (index, branch) in branches.iter().enumerate() {
            let at = Pointer::root().push("oneOf").push(index);
            self.branch(branch, &at, &mut names, &mut out);
        }
        out
    }

    /// Where `doc` (this body's file) does not list exactly the methods or
    /// events of `set`: a name no file of the set has, at its branch, and a
    /// file it does not name, at `/oneOf`. A message of a method a body
    /// leaves out is refused by every reader of that version, whatever the
    /// method's own file says.
    pub fn uncovered(&self, doc: &SchemaDoc, set: &SchemaSet) -> Vec<(Pointer, String)> {
        let mut out = Vec::new();
        // No branches: every method or event is then missing.
        let branches = doc
            .value
            .get("oneOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut named = BTreeSet::new();
        for (index, branch) in branches.iter().enumerate() {
            let Some(name) = branch
                .pointer(&format!("/properties/{}/const", self.tag))
                .and_then(Value::as_str)
            else {
                continue; // the branch's shape says so
            };
            named.insert(name);
            if set.get(self.names, name).is_none() {
                out.push((
                    Pointer::root().push("oneOf").push(index),
                    format!(
                        "{name:?} is not {} in the schema set",
                        if self.names == DocKind::Event {
                            "an event"
                        } else {
                            "a method"
                        }
                    ),
                ));
            }
        }
        for other in set.of_kind(self.names) {
            if !named.contains(other.name.as_str()) {
                out.push((
                    Pointer::root().push("oneOf"),
                    format!(
                        "{:?} ({}) is missing: add a branch for it",
                        other.name, other.rel
                    ),
                ));
            }
        }
        out
    }

    fn branch(
        &self,
        branch: &Value,
        at: &Pointer,
        names: &mut BTreeSet<String>,
        out: &mut Vec<(Pointer, String)>,
    ) {
        let (tag, field) = (self.tag, self.field);
        let mut depart = |pointer: Pointer, why: String| out.push((pointer, why));
        let Some(map) = branch.as_object() else {
            depart(at.clone(), "a branch is an object schema".into());
            return;
        };
        for (key, value) in map {
            let fits = match key.as_str() {
                "type" => value == "object",
                "additionalProperties" => value == &Value::Bool(false),
                "required" => {
                    let listed: BTreeSet<&str> =
                        crate::string_list(Some(value)).into_iter().collect();
                    value.as_array().map(Vec::len) == Some(2)
                        && listed == BTreeSet::from([tag, field])
                }
                "properties" => {
                    value
                        .as_object()
                        .map(|p| p.keys().map(String::as_str).collect())
                        == Some(BTreeSet::from([tag, field]))
                }
                other => WORDING.contains(&other),
            };
            if !fits {
                depart(
                    at.push(key),
                    format!("a branch is `type: object`, `properties` {tag:?} and {field:?} only, both `required`, `additionalProperties: false`; not this `{key}`"),
                );
            }
        }
        for key in ["type", "properties", "required", "additionalProperties"] {
            if !map.contains_key(key) {
                depart(at.clone(), format!("a branch needs `{key}`"));
            }
        }
        let name = branch
            .pointer(&format!("/properties/{tag}"))
            .and_then(|schema| {
                let map = schema.as_object()?;
                let only = map.iter().all(|(k, v)| {
                    (k == "type" && v == "string") || k == "const" || WORDING.contains(&k.as_str())
                });
                if !only || map.get("type").is_none() {
                    return None;
                }
                map.get("const").and_then(Value::as_str)
            });
        let Some(name) = name else {
            depart(
                at.push("properties").push(tag),
                format!("{tag:?} is `{{\"type\": \"string\", \"const\": NAME}}`"),
            );
            return;
        };
        if !names.insert(name.to_string()) {
            depart(at.clone(), format!("{name:?} is listed twice"));
        }
        let part = format!("../{}/{name}.json#/$defs/{field}", self.names.folder());
        let refers = branch
            .pointer(&format!("/properties/{field}"))
            .and_then(Value::as_object)
            .is_some_and(|map| {
                map.get("$ref").and_then(Value::as_str) == Some(part.as_str())
                    && map
                        .keys()
                        .all(|k| k == "$ref" || WORDING.contains(&k.as_str()))
            });
        if !refers {
            depart(
                at.push("properties").push(field),
                format!("the {field} of {name:?} must be {{\"$ref\": {part:?}}}"),
            );
        }
    }
}
