//! One-step mutations of a JSON value: the faults a reader is fed.

use std::collections::BTreeSet;

use serde_json::Value;

/// Every one-step mutation of `value`: each member removed, nulled, or
/// given a neighbouring or wrong value (a value without members, such as a
/// string, is itself given those values); members named in `skip` are left
/// alone, and a body's `method` or `name` too (a changed one is a name the
/// contract does not know, which readers take as such). The differential
/// tests of the readers and `vdm-conform generate --mutants` draw from it.
/// The walk recurses as deep as `value` nests: give it values built here
/// (drawn or from fixtures), not the wire's.
pub fn one_step_mutations(value: &Value, skip: &BTreeSet<String>) -> Vec<Value> {
    mutations(value, skip, false)
}

/// [`one_step_mutations`], and more: each string one character shorter, and
/// each string member given the value of a string sibling (a digest one
/// digit short, a `cause` equal to its `code`): faults of the rules that
/// tie a value to its neighbours.
pub fn one_step_mutations_wide(value: &Value, skip: &BTreeSet<String>) -> Vec<Value> {
    mutations(value, skip, true)
}

fn mutations(value: &Value, skip: &BTreeSet<String>, wide: bool) -> Vec<Value> {
    let mut out = Vec::new();
    walk(
        value,
        &|inner| inner.unwrap_or(Value::Null),
        skip,
        wide,
        &mut out,
    );
    // A value with nothing inside to change (a string, a number, an empty
    // object) is changed as a whole, as a member would be.
    if out.is_empty() {
        out.extend(leaf_variants(value));
        if let (true, Value::String(text)) = (wide, value) {
            let mut chars = text.chars();
            if chars.next_back().is_some() {
                out.push(Value::String(chars.as_str().to_string()));
            }
        }
    }
    out
}

/// The values a member is given in place of its own: none, a neighbour, a
/// wrong type.
fn leaf_variants(value: &Value) -> Vec<Value> {
    let mut out = vec![Value::Null];
    match value {
        Value::Number(number) => {
            if let Some(n) = number.as_i64() {
                out.extend([
                    serde_json::json!(n.saturating_add(1)),
                    serde_json::json!(n.saturating_sub(1)),
                    serde_json::json!(n as f64 + 0.5),
                ]);
            }
            out.push(serde_json::json!("7"));
        }
        Value::String(text) => {
            out.extend([
                serde_json::json!(""),
                serde_json::json!("x".repeat(300)),
                serde_json::json!(format!("{text} ")),
            ]);
            out.push(serde_json::json!(7));
        }
        Value::Bool(flag) => out.push(serde_json::json!(flag.to_string())),
        Value::Array(items) => {
            out.push(serde_json::json!([]));
            if let Some(first) = items.first() {
                let mut doubled = items.clone();
                doubled.push(first.clone());
                out.push(Value::Array(doubled));
            }
        }
        Value::Object(_) => out.push(serde_json::json!({})),
        Value::Null => out.push(serde_json::json!(0)),
    }
    out
}
/// A string one character shorter, and each string sibling's value.
fn wide_variants(map: &serde_json::Map<String, Value>, key: &str, child: &Value) -> Vec<Value> {
    let Value::String(text) = child else {
        return Vec::new();
    };
    let mut chars = text.chars();
    chars.next_back();
    let mut out = vec![Value::String(chars.as_str().to_string())];
    out.extend(
        map.iter()
            .filter(|(name, sibling)| {
                name.as_str() != key && sibling.is_string() && *sibling != child
            })
            .map(|(_, sibling)| sibling.clone()),
    );
    out
}
/// Every mutation below `value`, each rebuilt into the whole by `rebuild`.
fn walk(
    value: &Value,
    rebuild: &dyn Fn(Option<Value>) -> Value,
    skip: &BTreeSet<String>,
    wide: bool,
    out: &mut Vec<Value>,
) {
    match value {
        Value::Object(map) => {
            // A body's tag changed is a name this version does not know,
            // which every reader takes as such (the newer-peer tests).
            let body = map.contains_key("params") || map.contains_key("result");
            for (key, child) in map {
                if skip.contains(key) || (body && matches!(key.as_str(), "method" | "name")) {
                    continue;
                }
                let with = |replacement: Option<Value>| {
                    let mut map = map.clone();
                    match replacement {
                        Some(replacement) => map.insert(key.clone(), replacement),
                        None => map.remove(key),
                    };
                    rebuild(Some(Value::Object(map)))
                };
                out.push(with(None));
                for variant in leaf_variants(child) {
                    out.push(with(Some(variant)));
                }
                if wide {
                    for variant in wide_variants(map, key, child) {
                        out.push(with(Some(variant)));
                    }
                }
                walk(child, &|inner| with(inner), skip, wide, out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                let with = |replacement: Option<Value>| {
                    let mut items = items.clone();
                    if let (Some(slot), Some(replacement)) = (items.get_mut(index), replacement) {
                        *slot = replacement;
                    }
                    rebuild(Some(Value::Array(items)))
                };
                for variant in leaf_variants(child) {
                    out.push(with(Some(variant)));
                }
                walk(child, &|inner| with(inner), skip, wide, out);
            }
        }
        _ => {}
    }
}
