//! A document of an older draft rewritten in 2020-12, meaning the same to
//! the validator, for comparing two versions written in different drafts.
//!
//! Each rewrite is one the drafts' own migration notes give: boolean
//! exclusive bounds become numbers, `items: [...]` becomes `prefixItems`,
//! `dependencies` splits in two, plain-name `$id`s become `$anchor`s, and
//! keywords the old draft does not have (so its validator ignored them) are
//! dropped. Where no rewrite keeps the meaning, the document gets an
//! obstacle instead, and comparisons that reach it cannot decide.

use jsonschema::Draft;
use serde_json::{Map, Value};

use crate::vocab;

/// Why no comparison that reaches a document can be decided: the first
/// thing met that this checker does not model (here: a rewrite that would
/// not keep the meaning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Obstacle {
    pub keyword: String,
    pub pointer: String,
    pub why: String,
}

/// Rewrites `value`, a document of `draft`, in 2020-12.
pub fn to_2020_12(value: &mut Value, draft: Draft) -> Result<(), Obstacle> {
    let pointers: Vec<String> = match vocab::positions(value, "", draft) {
        Ok(positions) => positions.into_iter().map(|p| p.pointer).collect(),
        Err(_) => {
            return Err(Obstacle {
                keyword: "nesting".into(),
                pointer: String::new(),
                why: "the document is too large to rewrite in 2020-12".into(),
            })
        }
    };
    // Children before parents: a parent's rewrite moves its children's pointers.
    for pointer in pointers.iter().rev() {
        if let Some(Value::Object(map)) = value.pointer_mut(pointer) {
            object(map, draft).map_err(|(keyword, why)| Obstacle {
                keyword: keyword.into(),
                pointer: pointer.clone(),
                why: why.into(),
            })?;
        }
    }
    if let Value::Object(map) = value {
        map.insert(
            "$schema".into(),
            Value::String("https://json-schema.org/draft/2020-12/schema".into()),
        );
    }
    Ok(())
}

/// Why one schema object cannot be rewritten: the keyword and the reason.
type Refusal = (&'static str, &'static str);

fn object(map: &mut Map<String, Value>, draft: Draft) -> Result<(), Refusal> {
    // Drafts up to 7 ignore everything beside a `$ref`.
    if draft <= Draft::Draft7 && map.contains_key("$ref") {
        let ignored = map.keys().any(|k| {
            k != "$ref"
                && matches!(
                    vocab::handling(draft, k),
                    vocab::Handling::Modelled | vocab::Handling::CannotDecide(_)
                )
        });
        if ignored {
            return Err((
                "$ref",
                "this draft ignores the keywords beside a reference, and 2020-12 does not; \
                 the rewrite would change what they mean",
            ));
        }
    }
    // Keywords the old draft does not have were ignored by its validator.
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !draft.is_known_keyword(k) && Draft::Draft202012.is_known_keyword(k))
        .cloned()
        .collect();
    for key in unknown {
        map.remove(&key);
    }
    if draft == Draft::Draft4 {
        draft_4(map)?;
    }
    if draft <= Draft::Draft7 {
        identifiers(map)?;
        dependencies(map);
    }
    if draft <= Draft::Draft201909 {
        items(map)?;
    }
    Ok(())
}

/// Draft 4's `id`, its integers and its boolean exclusive bounds.
fn draft_4(map: &mut Map<String, Value>) -> Result<(), Refusal> {
    if let Some(id) = map.remove("id") {
        map.insert("$id".into(), id);
    }
    if map.get("type").is_some_and(|t| names(t, "integer")) {
        return Err((
            "type",
            "draft 4 refuses 1.0 as an integer and 2020-12 accepts it",
        ));
    }
    for (exclusive, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        match map.get(exclusive) {
            Some(Value::Bool(true)) => {
                let limit = map.remove(bound);
                map.remove(exclusive);
                if let Some(limit) = limit {
                    map.insert(exclusive.into(), limit);
                }
            }
            Some(Value::Bool(false)) => {
                map.remove(exclusive);
            }
            _ => {}
        }
    }
    Ok(())
}

/// A plain-name `$id` (`#foo`) is an `$anchor` in 2020-12.
fn identifiers(map: &mut Map<String, Value>) -> Result<(), Refusal> {
    if let Some(Value::String(id)) = map.get("$id") {
        if let Some(name) = id.strip_prefix('#') {
            let anchor = Value::String(name.to_string());
            map.remove("$id");
            map.insert("$anchor".into(), anchor);
        } else if id.contains('#') && !id.ends_with('#') {
            return Err((
                "$id",
                "an identifier with both a path and a plain-name fragment has no 2020-12 spelling",
            ));
        }
    }
    Ok(())
}

/// `dependencies` splits into `dependentRequired` and `dependentSchemas`.
fn dependencies(map: &mut Map<String, Value>) {
    if let Some(Value::Object(dependencies)) = map.remove("dependencies") {
        let (mut required, mut schemas) = (Map::new(), Map::new());
        for (name, dependency) in dependencies {
            if dependency.is_array() {
                required.insert(name, dependency);
            } else {
                schemas.insert(name, dependency);
            }
        }
        if !required.is_empty() {
            map.insert("dependentRequired".into(), Value::Object(required));
        }
        if !schemas.is_empty() {
            map.insert("dependentSchemas".into(), Value::Object(schemas));
        }
    }
}

/// `items: [...]` becomes `prefixItems`, and `additionalItems` becomes `items`.
fn items(map: &mut Map<String, Value>) -> Result<(), Refusal> {
    if map.get("items").is_some_and(Value::is_array) {
        if let Some(tuple) = map.remove("items") {
            map.insert("prefixItems".into(), tuple);
        }
        if let Some(rest) = map.remove("additionalItems") {
            map.insert("items".into(), rest);
        }
    } else {
        // Without a tuple, `additionalItems` applies to nothing.
        map.remove("additionalItems");
    }
    if map.contains_key("$recursiveRef") || map.contains_key("$recursiveAnchor") {
        return Err((
            "$recursiveRef",
            "a recursive reference has no exact 2020-12 spelling",
        ));
    }
    Ok(())
}

fn names(types: &Value, name: &str) -> bool {
    match types {
        Value::String(one) => one == name,
        Value::Array(many) => many.iter().any(|t| t == name),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The rewritten document accepts exactly what the original does, on
    /// every value tried.
    fn same_meaning(original: Value, draft: Draft, values: &[Value]) {
        let mut rewritten = original.clone();
        to_2020_12(&mut rewritten, draft).expect("rewrites");
        let old = jsonschema::validator_for(&original).expect("compiles");
        let new = jsonschema::validator_for(&rewritten).expect("compiles");
        for value in values {
            assert_eq!(
                old.is_valid(value),
                new.is_valid(value),
                "{value} under {original} and {rewritten}"
            );
        }
    }

    #[test]
    fn rewritten_documents_mean_what_the_originals_meant() {
        let numbers = [json!(9), json!(10), json!(10.5), json!(11), json!("x")];
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "number", "minimum": 10, "exclusiveMinimum": true}),
            Draft::Draft4,
            &numbers,
        );
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}),
            Draft::Draft7,
            &[json!([]), json!(["a"]), json!(["a", 1]), json!([1])],
        );
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}),
            Draft::Draft7,
            &[
                json!({"a": 1}),
                json!({"a": 1, "b": 2}),
                json!({"c": 1}),
                json!({"c": 1, "d": 1}),
            ],
        );
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-06/schema#", "if": {"type": "string"}, "then": false}),
            Draft::Draft6,
            &[json!("a"), json!(1)],
        );
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"$id": "#a", "type": "string"}}, "properties": {"x": {"$ref": "#a"}}}),
            Draft::Draft7,
            &[json!({"x": "s"}), json!({"x": 1})],
        );
    }

    #[test]
    fn what_has_no_2020_12_spelling_is_an_obstacle() {
        let mut integer =
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"});
        assert!(to_2020_12(&mut integer, Draft::Draft4).is_err());
        let mut siblings = json!({"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/a", "type": "string", "definitions": {"a": true}});
        assert!(to_2020_12(&mut siblings, Draft::Draft7).is_err());
    }
}
