//! Schema algebra the checker and the example builder share: a node without
//! some keywords, two nodes' conjunction, and `allOf` folded into its node.

use serde_json::{Map, Value};

use crate::accepts::equal;
use crate::node::{to_number, Node};

/// The node without some keywords.
pub fn without<'a>(node: &Node<'a>, keys: &[&str]) -> Node<'a> {
    let mut value = node.value.clone().into_owned();
    if let Value::Object(map) = &mut value {
        for key in keys {
            map.remove(*key);
        }
    }
    node.with_value(value)
}

/// `base ∧ extra`, merged when both are in the same document.
pub fn conjoin<'a>(base: &Node<'a>, extra: &Node<'a>) -> Node<'a> {
    let extra = extra.resolved();
    if extra.doc.rel != base.doc.rel {
        return base.with_value(serde_json::json!({"allOf": [base.value.clone().into_owned()]}));
    }
    merge_all_of(&base.with_value(serde_json::json!({"allOf": [base.value.clone().into_owned(), extra.value.clone().into_owned()]})))
}

/// Folds `allOf` into its node where the keywords combine plainly; what does
/// not combine stays in a residual `allOf` (checked part by part on the right).
pub fn merge_all_of<'a>(node: &Node<'a>) -> Node<'a> {
    let Some(parts) = node.get("allOf").and_then(Value::as_array).cloned() else {
        return node.clone();
    };
    let mut merged: Map<String, Value> = node.object().cloned().unwrap_or_default();
    merged.remove("allOf");
    let mut residual = Vec::new();
    for part in parts {
        let original = part.clone();
        let part = node.with_value(part).resolved();
        if part.doc.rel != node.doc.rel {
            // Kept as written (a `$ref`), so it still resolves from here.
            residual.push(original);
            continue;
        }
        let part = merge_all_of(&part);
        let Some(map) = part.object() else {
            if part.is_false() {
                return node.with_value(Value::Bool(false));
            }
            continue;
        };
        // `additionalProperties` speaks of the properties beside it: merging
        // would put another part's properties beside it and change what it
        // refuses. Such a part stays a part.
        let names = |m: &Map<String, Value>| -> Vec<String> {
            m.get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default()
        };
        let closes = |m: &Map<String, Value>| {
            m.get("additionalProperties")
                .is_some_and(|v| v != &Value::Bool(true))
        };
        let (mine, theirs) = (names(&merged), names(map));
        if (closes(&merged) && !theirs.iter().all(|n| mine.contains(n)))
            || (closes(map) && !mine.iter().all(|n| theirs.contains(n)))
        {
            residual.push(original);
            continue;
        }
        let mut leftover = Map::new();
        for (key, value) in map {
            match (key.as_str(), merged.get(key)) {
                (_, None) => {
                    merged.insert(key.clone(), value.clone());
                }
                (_, Some(existing)) if equal(existing, value) => {}
                // Annotations do not constrain: the first one stands.
                (k, Some(_)) if !crate::node::is_assertion(k) => {}
                ("required", Some(Value::Array(existing))) => {
                    let mut all = existing.clone();
                    all.extend(
                        value
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter(|v| !existing.contains(v))
                            .cloned(),
                    );
                    merged.insert(key.clone(), Value::Array(all));
                }
                ("properties", Some(Value::Object(existing))) => {
                    let mut all = existing.clone();
                    for (name, schema) in value.as_object().into_iter().flatten() {
                        let combined = match all.get(name) {
                            Some(old) => serde_json::json!({"allOf": [old, schema]}),
                            None => schema.clone(),
                        };
                        all.insert(name.clone(), combined);
                    }
                    merged.insert(key.clone(), Value::Object(all));
                }
                ("not", Some(existing)) => {
                    // not x ∧ not y = not (x ∨ y)
                    merged.insert(
                        key.clone(),
                        serde_json::json!({ "anyOf": [existing, value] }),
                    );
                }
                ("minimum" | "minLength" | "minItems" | "minProperties", Some(existing)) => {
                    let max = existing
                        .as_f64()
                        .unwrap_or(f64::MIN)
                        .max(value.as_f64().unwrap_or(f64::MIN));
                    merged.insert(key.clone(), to_number(max));
                }
                ("maximum" | "maxLength" | "maxItems" | "maxProperties", Some(existing)) => {
                    let min = existing
                        .as_f64()
                        .unwrap_or(f64::MAX)
                        .min(value.as_f64().unwrap_or(f64::MAX));
                    merged.insert(key.clone(), to_number(min));
                }
                ("type", Some(existing)) => {
                    let set = |v: &Value| -> Vec<String> {
                        match v {
                            Value::String(s) => vec![s.clone()],
                            Value::Array(a) => a
                                .iter()
                                .filter_map(Value::as_str)
                                .map(str::to_string)
                                .collect(),
                            _ => Vec::new(),
                        }
                    };
                    let (x, y) = (set(existing), set(value));
                    let both: Vec<Value> =
                        x.iter()
                            .filter(|t| {
                                y.contains(t)
                                    || (t.as_str() == "integer" && y.iter().any(|u| u == "number"))
                            })
                            .chain(y.iter().filter(|t| {
                                t.as_str() == "integer" && x.iter().any(|u| u == "number")
                            }))
                            .map(|t| Value::String(t.clone()))
                            .collect();
                    merged.insert(key.clone(), Value::Array(both));
                }
                _ => {
                    leftover.insert(key.clone(), value.clone());
                }
            }
        }
        if !leftover.is_empty() {
            residual.push(Value::Object(leftover));
        }
    }
    if !residual.is_empty() {
        merged.insert("allOf".into(), Value::Array(residual));
    }
    node.with_value(Value::Object(merged))
}
