//! Whether a schema accepts a value: a small validator over the keywords the
//! containment check understands, used to test candidate counterexamples
//! while searching. (Reported counterexamples are confirmed again with the
//! `jsonschema` crate.) `tolerant` makes unknown object fields acceptable, as
//! a tolerant reader does.

use serde_json::Value;

use crate::node::{type_of, Node};

/// How many subschemas one answer may visit: unions over recursive
/// references would otherwise multiply without end.
const MAX_VISITS: usize = 4096;

pub fn accepts(node: &Node<'_>, value: &Value, tolerant: bool) -> bool {
    let visits = std::cell::Cell::new(MAX_VISITS);
    accepts_within(node, value, tolerant, 0, &visits)
}

/// [`accepts`], drawing on a caller's budget of visits (shared by a search
/// that asks many times).
pub fn accepts_counted(
    node: &Node<'_>,
    value: &Value,
    tolerant: bool,
    visits: &std::cell::Cell<usize>,
) -> bool {
    accepts_within(node, value, tolerant, 0, visits)
}

/// Past the depth or the visits it answers `true`, as for a keyword it does
/// not model: this validator only proposes counterexamples, and every one is
/// confirmed before it is shown.
fn accepts_within(
    node: &Node<'_>,
    value: &Value,
    tolerant: bool,
    depth: usize,
    visits: &std::cell::Cell<usize>,
) -> bool {
    match visits.get().checked_sub(1) {
        Some(left) if depth <= 64 => visits.set(left),
        _ => return true,
    }
    let node = node.resolved();
    let recurse = |child: Option<Node<'_>>, v: &Value| {
        child.is_none_or(|c| accepts_within(&c, v, tolerant, depth + 1, visits))
    };
    match &*node.value {
        Value::Bool(b) => return *b,
        Value::Object(_) => {}
        _ => return true,
    }
    if let Some(types) = node.types() {
        let t = type_of(value);
        if !types
            .iter()
            .any(|ty| *ty == t || (*ty == "number" && t == "integer"))
        {
            return false;
        }
    }
    if let Some(values) = node.finite() {
        if !values.iter().any(|allowed| equal(allowed, value)) {
            return false;
        }
    }
    match value {
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            if !node.interval().contains(x) {
                return false;
            }
            if let Some(m) = node.number("multipleOf").filter(|m| *m > 0.0) {
                let q = x / m;
                if (q - q.round()).abs() > 1e-9 {
                    return false;
                }
            }
        }
        Value::String(s) => {
            let len = s.chars().count() as f64;
            if node.number("minLength").is_some_and(|m| len < m)
                || node.number("maxLength").is_some_and(|m| len > m)
            {
                return false;
            }
            if let Some(pattern) = node.get("pattern").and_then(Value::as_str) {
                if regex::Regex::new(pattern).is_ok_and(|re| !re.is_match(s)) {
                    return false;
                }
            }
            if let Some(format) = node.get("format").and_then(Value::as_str) {
                if !format_ok(format, s) {
                    return false;
                }
            }
        }
        Value::Array(items) => {
            let len = items.len() as f64;
            if node.number("minItems").is_some_and(|m| len < m)
                || node.number("maxItems").is_some_and(|m| len > m)
            {
                return false;
            }
            for (index, item) in items.iter().enumerate() {
                if !recurse(node.item(index), item) {
                    return false;
                }
            }
            if node.get("uniqueItems") == Some(&Value::Bool(true)) {
                for (i, a) in items.iter().enumerate() {
                    if items.iter().skip(i + 1).any(|b| equal(a, b)) {
                        return false;
                    }
                }
            }
            if let Some(contains) = node.child("contains") {
                if !items
                    .iter()
                    .any(|item| accepts_within(&contains, item, tolerant, depth + 1, visits))
                {
                    return false;
                }
            }
        }
        Value::Object(map) => {
            let len = map.len() as f64;
            if node.number("minProperties").is_some_and(|m| len < m)
                || node.number("maxProperties").is_some_and(|m| len > m)
            {
                return false;
            }
            if node
                .strings("required")
                .iter()
                .any(|name| !map.contains_key(name))
            {
                return false;
            }
            for (name, item) in map {
                if !recurse(node.property(name, tolerant), item) {
                    return false;
                }
                if let Some(names) = node.child("propertyNames") {
                    if !accepts_within(
                        &names,
                        &Value::String(name.clone()),
                        tolerant,
                        depth + 1,
                        visits,
                    ) {
                        return false;
                    }
                }
            }
            for key in ["dependencies", "dependentRequired", "dependentSchemas"] {
                if let Some(deps) = node.get(key).and_then(Value::as_object) {
                    for (trigger, dependency) in deps {
                        if !map.contains_key(trigger) {
                            continue;
                        }
                        let ok = match dependency {
                            Value::Array(names) => names
                                .iter()
                                .filter_map(Value::as_str)
                                .all(|n| map.contains_key(n)),
                            _ => recurse(node.child(key).and_then(|d| d.child(trigger)), value),
                        };
                        if !ok {
                            return false;
                        }
                    }
                }
            }
        }
        _ => {}
    }
    let branches = |key: &str| -> Vec<Node<'_>> {
        let count = node.get(key).and_then(Value::as_array).map_or(0, Vec::len);
        (0..count)
            .filter_map(|i| node.child(key).and_then(|list| list.child(&i.to_string())))
            .collect()
    };
    if !branches("allOf")
        .iter()
        .all(|b| accepts_within(b, value, tolerant, depth + 1, visits))
    {
        return false;
    }
    if node.get("anyOf").is_some()
        && !branches("anyOf")
            .iter()
            .any(|b| accepts_within(b, value, tolerant, depth + 1, visits))
    {
        return false;
    }
    if node.get("oneOf").is_some()
        && branches("oneOf")
            .iter()
            .filter(|b| accepts_within(b, value, tolerant, depth + 1, visits))
            .count()
            != 1
    {
        return false;
    }
    if let Some(not) = node.child("not") {
        if accepts_within(&not, value, tolerant, depth + 1, visits) {
            return false;
        }
    }
    if let Some(condition) = node.child("if") {
        let branch = if accepts_within(&condition, value, tolerant, depth + 1, visits) {
            node.child("then")
        } else {
            node.child("else")
        };
        if !recurse(branch, value) {
            return false;
        }
    }
    true
}

/// JSON equality with numbers compared by value (`1` equals `1.0`).
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// The formats the contract uses, checked loosely; others are annotations.
fn format_ok(format: &str, text: &str) -> bool {
    match format {
        "date-time" => {
            let bytes = text.as_bytes();
            bytes.len() >= 20
                && bytes.get(4) == Some(&b'-')
                && bytes.get(10).is_some_and(|c| *c == b'T' || *c == b't')
        }
        "uri" => text.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }),
        "email" => text
            .split_once('@')
            .is_some_and(|(a, b)| !a.is_empty() && b.contains('.')),
        _ => true,
    }
}
