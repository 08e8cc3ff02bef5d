//! Small values a schema accepts, and candidates for counterexamples.

use std::cell::Cell;

use serde_json::{json, Map, Value};

use crate::accepts::{accepts, accepts_counted};
use crate::node::{type_of, Node, TYPES};

/// A small value `node` is meant to accept (best effort: `accepts` has the last word).
pub fn example(node: &Node<'_>) -> Value {
    example_depth(node, 0, &Cell::new(MAX_VISITS))
}

/// How many subschemas one example may visit (unions over recursive
/// references would otherwise multiply without end); past that, `null`.
const MAX_VISITS: usize = 4096;

fn example_depth(node: &Node<'_>, depth: usize, visits: &Cell<usize>) -> Value {
    match visits.get().checked_sub(1) {
        Some(left) if depth <= 24 => visits.set(left),
        _ => return Value::Null,
    }
    let node = crate::merge::merge_all_of(&node.resolved());
    if node.is_false() {
        return Value::Null;
    }
    if let Some(values) = node.finite() {
        if let Some(first) = values
            .iter()
            .find(|v| accepts_counted(&node, v, false, visits))
            .or(values.first())
        {
            return first.clone();
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        let count = node.get(key).and_then(Value::as_array).map_or(0, Vec::len);
        for index in 0..count {
            if let Some(part) = node
                .child(key)
                .and_then(|list| list.child(&index.to_string()))
            {
                let candidate = example_depth(&part, depth + 1, visits);
                if accepts_counted(&node, &candidate, false, visits) {
                    return candidate;
                }
            }
        }
    }
    let types = node.types().unwrap_or_else(|| {
        if node.get("properties").is_some() || node.get("required").is_some() {
            vec!["object"]
        } else if node.get("items").is_some() || node.get("prefixItems").is_some() {
            vec!["array"]
        } else if node.get("minLength").is_some() || node.get("pattern").is_some() {
            vec!["string"]
        } else if node.get("minimum").is_some() || node.get("maximum").is_some() {
            vec!["number"]
        } else {
            vec!["object"]
        }
    });
    let ty = types
        .iter()
        .copied()
        .find(|t| *t != "null")
        .or(types.first().copied())
        .unwrap_or("null");
    of_type(&node, ty, depth, visits)
}

/// The longest string, and the most items, an example is given: a schema's
/// `minLength` of 10^12 asks for nothing that large. An example cut short may
/// not fit its schema; every counterexample is checked before it is used.
pub const MAX_EXAMPLE: usize = 4096;

/// A count from a schema, as a size this module will build.
fn size(count: f64) -> usize {
    if count.is_finite() && count > 0.0 {
        (count as usize).min(MAX_EXAMPLE)
    } else {
        0
    }
}

/// A small value of type `ty` shaped by `node`'s keywords for that type.
pub fn example_of_type(node: &Node<'_>, ty: &str) -> Value {
    of_type(node, ty, 0, &Cell::new(MAX_VISITS))
}

fn of_type(node: &Node<'_>, ty: &str, depth: usize, visits: &Cell<usize>) -> Value {
    match ty {
        "null" => Value::Null,
        "boolean" => Value::Bool(false),
        "integer" | "number" => number_in(node),
        "string" => string_for(node),
        "array" => {
            let min = size(node.number("minItems").unwrap_or(0.0));
            Value::Array(
                (0..min.max(node.tuple_len().min(min.max(1))))
                    .map(|i| {
                        node.item(i)
                            .map_or(json!(0), |item| example_depth(&item, depth + 1, visits))
                    })
                    .collect(),
            )
        }
        _ => {
            let mut map = Map::new();
            for name in node.strings("required") {
                let value = node
                    .property(&name, false)
                    .map_or(json!(0), |p| example_depth(&p, depth + 1, visits));
                map.insert(name, value);
            }
            Value::Object(map)
        }
    }
}

fn number_in(node: &Node<'_>) -> Value {
    let interval = node.interval();
    let step = node
        .number("multipleOf")
        .filter(|m| *m > 0.0)
        .unwrap_or(1.0);
    let mut x = match (interval.lo, interval.hi) {
        (Some(lo), _) => (lo / step).ceil() * step,
        (None, Some(hi)) if hi < 0.0 => (hi / step).floor() * step,
        _ => 0.0,
    };
    if !interval.contains(x) {
        x += step;
    }
    to_number(x)
}

pub use crate::node::to_number;

fn string_for(node: &Node<'_>) -> Value {
    match node.get("format").and_then(Value::as_str) {
        Some("date-time") => return json!("2026-01-01T00:00:00Z"),
        Some("uri") => return json!("https://example.org/"),
        Some("email") => return json!("someone@example.org"),
        _ => {}
    }
    let min = size(node.number("minLength").unwrap_or(0.0));
    let candidates = [
        String::new(),
        "a".into(),
        "abc".into(),
        "A".into(),
        "0".into(),
        "https://example.org/a".into(),
        "a".repeat(min.max(1)),
    ];
    for candidate in candidates.iter().chain(std::iter::once(&"x".repeat(min))) {
        let value = Value::String(candidate.clone());
        if accepts(node, &value, false) {
            return value;
        }
    }
    Value::String("x".repeat(min))
}

/// Values worth trying as a counterexample between `a` and `b`: examples of
/// every type, and values at and past every bound either side states.
pub fn candidates(a: &Node<'_>, b: &Node<'_>) -> Vec<Value> {
    let (a, b) = (a.resolved(), b.resolved());
    let mut out = vec![example(&a)];
    for ty in TYPES {
        out.push(example_of_type(&a, ty));
    }
    out.extend([
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(-1),
        json!(0.5),
        json!(42),
        json!(1e9),
        json!(-1e9),
        json!(""),
        json!("x"),
        json!([]),
        json!({}),
    ]);
    for node in [&a, &b] {
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            if let Some(x) = node.number(key) {
                for delta in [0.0, 1.0, -1.0, 0.5, -0.5] {
                    out.push(to_number(x + delta));
                }
            }
        }
        if let Some(m) = node.number("multipleOf") {
            out.extend([
                to_number(m),
                to_number(m / 2.0),
                to_number(m * 3.0),
                to_number(m + 1.0),
            ]);
        }
        for key in ["minLength", "maxLength"] {
            if let Some(n) = node.number(key) {
                let n = size(n);
                for len in [n.saturating_sub(1), n, (n + 1).min(MAX_EXAMPLE)] {
                    out.push(Value::String("x".repeat(len)));
                    out.push(Value::String("A".repeat(len)));
                    out.push(Value::String("0".repeat(len)));
                }
            }
        }
        if let Some(values) = node.finite() {
            out.extend(values);
        }
        out.push(example(node));
    }
    // Strings of other shapes, for patterns and formats.
    out.extend(
        [
            "ABC",
            "a1",
            "Z",
            "-",
            " ",
            "π",
            "aaaaaaaaaaaaaaaa",
            "2026-01-01T00:00:00Z",
            "not a date",
        ]
        .map(|s| json!(s)),
    );
    out
}

/// The first candidate `a` accepts and `b` rejects.
pub fn find_witness(a: &Node<'_>, b: &Node<'_>, tolerant: bool) -> Option<Value> {
    candidates(a, b)
        .into_iter()
        .find(|v| accepts(a, v, false) && !accepts(b, v, tolerant))
}

/// The kind of value, for messages.
pub fn describe(value: &Value) -> String {
    let text = value.to_string();
    let short: String = text.chars().take(80).collect();
    if short.len() < text.len() {
        format!("{short}… ({})", type_of(value))
    } else {
        short
    }
}
