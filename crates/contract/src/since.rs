//! `lint.since`: what the contract adds says when it arrived, and what a
//! release froze keeps the version it had. Judged against the latest
//! release, place by place: a file, a field (a `properties` entry), a
//! union branch (a `oneOf` or `anyOf` item), any subschema carrying
//! `x-since`, and an enum value (`x-enum-since`).

use serde_json::Value;

use crate::lint::{LintRule, Violation};
use crate::{Pointer, SchemaDoc, SchemaSet};

/// The release the working tree is judged against.
pub struct Released<'a> {
    /// Its version (`1.1.0`).
    pub version: &'a str,
    /// Its frozen schemas.
    pub set: &'a SchemaSet,
}

/// The violations of `lint.since` in `set`, whose `VERSION` is `version`.
/// Without a release there is nothing to compare with, and nothing to say.
pub fn since(set: &SchemaSet, version: &str, released: Option<&Released<'_>>) -> Vec<Violation> {
    let mut out = Vec::new();
    let Some(released) = released else {
        return out;
    };
    for doc in &set.docs {
        let file = set.display_path(doc);
        let mut say = |pointer: Pointer, message: String| {
            out.push(Violation {
                file: file.clone(),
                pointer,
                rule: LintRule::Since,
                message,
            })
        };
        let before = released.set.docs.iter().find(|old| old.rel == doc.rel);
        walk(doc, before, version, released, &mut say);
    }
    out.sort();
    out
}

/// Every place of `doc` beside its counterpart in the release (explicit
/// stack: a schema file is data).
fn walk(
    doc: &SchemaDoc,
    before: Option<&SchemaDoc>,
    version: &str,
    released: &Released<'_>,
    say: &mut dyn FnMut(Pointer, String),
) {
    // The file itself: new files arrive with the working version.
    if before.is_none() {
        arrives(
            doc.value.get("x-since"),
            Pointer::root(),
            version,
            released,
            "this file",
            say,
        );
    }
    let mut stack = vec![(Pointer::root(), &doc.value, before.map(|old| &old.value))];
    while let Some((pointer, schema, old)) = stack.pop() {
        let Some(map) = schema.as_object() else {
            continue;
        };
        if let Some(old) = old {
            keeps(
                old.get("x-since"),
                map.get("x-since"),
                &pointer,
                released,
                say,
            );
            enum_values(old, schema, &pointer, version, released, say);
            if let Some(Value::Object(fields)) = map.get("properties") {
                for (name, field) in fields {
                    // A field the release did not have, in a place it had.
                    if old.get("properties").and_then(|p| p.get(name)).is_none() {
                        let what = format!("the field {name:?}");
                        let at = pointer.push("properties").push(name);
                        arrives(field.get("x-since"), at, version, released, &what, say);
                    }
                }
            }
        }
        for (key, sub) in map {
            let old_sub = old.and_then(|old| old.get(key));
            match sub {
                Value::Object(_) => stack.push((pointer.push(key), sub, old_sub)),
                Value::Array(items) => {
                    let at = pointer.push(key);
                    let olds = old_sub.and_then(Value::as_array);
                    let counterparts = olds.map(|olds| counterparts(olds, items));
                    for (index, item) in items.iter().enumerate() {
                        let counterpart = counterparts
                            .as_ref()
                            .and_then(|found| found.get(index).copied().flatten());
                        // A union branch the release did not have, in a union it had.
                        if olds.is_some()
                            && counterpart.is_none()
                            && matches!(key.as_str(), "oneOf" | "anyOf")
                        {
                            let what = format!("this `{key}` branch");
                            arrives(
                                item.get("x-since"),
                                at.push(index),
                                version,
                                released,
                                &what,
                                say,
                            );
                        }
                        stack.push((at.push(index), item, counterpart));
                    }
                }
                _ => {}
            }
        }
    }
}

/// The item of a released list that each item continues: a union branch by
/// its tag (the `const`s of its properties) or its `$ref`, so a branch
/// inserted before it does not make it another; an item with neither by an
/// equal released item, then the rest of both in order, so an item inserted
/// among unchanged ones is the one left without a counterpart.
fn counterparts<'v>(olds: &'v [Value], items: &[Value]) -> Vec<Option<&'v Value>> {
    let mut taken = vec![false; olds.len()];
    let mut found: Vec<Option<&'v Value>> = vec![None; items.len()];
    for (slot, item) in found.iter_mut().zip(items) {
        *slot = match identity(item) {
            Some(id) => olds.iter().find(|old| identity(old).as_ref() == Some(&id)),
            None => olds
                .iter()
                .zip(taken.iter_mut())
                .find(|(old, used)| !**used && identity(old).is_none() && *old == item)
                .map(|(old, used)| {
                    *used = true;
                    old
                }),
        };
    }
    let mut rest = olds
        .iter()
        .zip(&taken)
        .filter(|(old, used)| !**used && identity(old).is_none())
        .map(|(old, _)| old);
    for (slot, item) in found.iter_mut().zip(items) {
        if slot.is_none() && identity(item).is_none() {
            *slot = rest.next();
        }
    }
    found
}

fn identity(item: &Value) -> Option<Value> {
    if let Some(reference) = item.get("$ref") {
        return Some(reference.clone());
    }
    let tags: serde_json::Map<String, Value> = item
        .get("properties")?
        .as_object()?
        .iter()
        .filter_map(|(name, field)| Some((name.clone(), field.get("const")?.clone())))
        .collect();
    (!tags.is_empty()).then_some(Value::Object(tags))
}

/// Something new says it arrives with the working version.
fn arrives(
    since: Option<&Value>,
    pointer: Pointer,
    version: &str,
    released: &Released<'_>,
    what: &str,
    say: &mut dyn FnMut(Pointer, String),
) {
    let given = since.and_then(Value::as_str);
    let message = if version == released.version {
        Some(unreleased(what, "`x-since`", released))
    } else {
        match given {
            Some(given) if given == version => None,
            Some(given) => Some(format!(
                "{what} is new since release {}, so `x-since` is {version:?} (VERSION), not {given:?}",
                released.version
            )),
            None => Some(format!(
                "{what} is new since release {}: give it `\"x-since\": {version:?}` (VERSION)",
                released.version
            )),
        }
    };
    if let Some(message) = message {
        say(pointer, message);
    }
}

/// Something new while `VERSION` still names the latest release: no
/// `x-since` can be right until `VERSION` moves on, so the advice is that.
fn unreleased(what: &str, mark: &str, released: &Released<'_>) -> String {
    format!(
        "{what} is new since release {0}, and VERSION is still {0}: set VERSION to the release this change goes into (`cargo xtask compat` says the bump it needs), and give it {mark} that version",
        released.version
    )
}

/// What a release froze keeps its `x-since`; one it lacked may be given,
/// no later than that release.
fn keeps(
    old: Option<&Value>,
    new: Option<&Value>,
    pointer: &Pointer,
    released: &Released<'_>,
    say: &mut dyn FnMut(Pointer, String),
) {
    match (old.and_then(Value::as_str), new.and_then(Value::as_str)) {
        (Some(old), Some(new)) if old == new => {}
        (Some(old), _) => say(
            pointer.push("x-since"),
            format!(
                "released in {} with `x-since` {old:?}, which it keeps",
                released.version
            ),
        ),
        (None, Some(new)) if !not_after(new, released.version) => say(
            pointer.push("x-since"),
            format!(
                "this was in release {}, so it arrived no later: `x-since` {new:?} is after it",
                released.version
            ),
        ),
        _ => {}
    }
}

/// Enum values the release lacked are listed in `x-enum-since` with the
/// working version; those it had keep their entry.
fn enum_values(
    old: &Value,
    new: &Value,
    pointer: &Pointer,
    version: &str,
    released: &Released<'_>,
    say: &mut dyn FnMut(Pointer, String),
) {
    let (Some(was), Some(now)) = (
        old.get("enum").and_then(Value::as_array),
        new.get("enum").and_then(Value::as_array),
    ) else {
        return;
    };
    let entry = |schema: &Value, value: &str| -> Option<Value> {
        schema.get("x-enum-since")?.get(value).cloned()
    };
    for (index, value) in now.iter().enumerate() {
        // `x-enum-since` is keyed by the value's text: a string as it is,
        // an integer (`RpcErrorCode`) by its digits.
        let text = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let text = text.as_str();
        let at = pointer.push("enum").push(index);
        if was.contains(value) {
            keeps(
                entry(old, text).as_ref(),
                entry(new, text).as_ref(),
                &at,
                released,
                say,
            );
        } else {
            let what = format!("the enum value {value}");
            match entry(new, text) {
                _ if version == released.version => {
                    say(at, unreleased(&what, "an `x-enum-since` entry of", released));
                }
                Some(Value::String(given)) if given == version => {}
                given => say(
                    at,
                    format!(
                        "{what} is new since release {}: list it in `x-enum-since` as {version:?} (VERSION){}",
                        released.version,
                        given.map_or(String::new(), |g| format!(", not {g}"))
                    ),
                ),
            }
        }
    }
}

/// Whether version `a` is no later than `b` (both `MAJOR.MINOR.PATCH`; an
/// unreadable one is not).
fn not_after(a: &str, b: &str) -> bool {
    let parse = |v: &str| -> Option<Vec<u64>> {
        let parts: Option<Vec<u64>> = v.split('.').map(|p| p.parse().ok()).collect();
        parts.filter(|p| p.len() == 3)
    };
    match (parse(a), parse(b)) {
        (Some(a), Some(b)) => a <= b,
        _ => false,
    }
}
