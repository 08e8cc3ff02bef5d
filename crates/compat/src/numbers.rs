//! Numeric bounds compared exactly, as the validator reads them.
//!
//! A schema's numbers are read by serde_json as the validator reads them:
//! integers exactly (to 2^64), anything else as the nearest double. Bounds
//! are compared on those values without rounding (`num-cmp` compares an
//! integer with a double exactly), so 2^53 and 2^53 + 1 are two bounds, not one.

use std::cmp::Ordering;

use jsonschema::Draft;
use num_cmp::NumCmp;
use serde_json::{Map, Number, Value};

/// A bound: the number, and whether it is excluded.
#[derive(Clone, Debug)]
pub struct Bound {
    pub value: Number,
    pub open: bool,
}

/// Exactly how two JSON numbers compare (`None` for a NaN, which JSON cannot write).
pub fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    match (a.as_i64(), a.as_u64(), b.as_i64(), b.as_u64()) {
        // One negative i64 and one u64 beyond i64.
        (Some(_), _, None, Some(_)) => return Some(Ordering::Less),
        (None, Some(_), Some(_), _) => return Some(Ordering::Greater),
        _ => {}
    }
    let (x, y) = (a.as_f64()?, b.as_f64()?);
    if let Some(i) = a.as_i64() {
        return i.num_cmp(y);
    }
    if let Some(u) = a.as_u64() {
        return u.num_cmp(y);
    }
    if let Some(i) = b.as_i64() {
        return x.num_cmp(i);
    }
    if let Some(u) = b.as_u64() {
        return x.num_cmp(u);
    }
    x.partial_cmp(&y)
}

/// The tightest lower bound a schema object sets.
pub fn lower(map: &Map<String, Value>, draft: Draft) -> Option<Bound> {
    bound(map, draft, "minimum", "exclusiveMinimum", Ordering::Greater)
}

/// The tightest upper bound a schema object sets.
pub fn upper(map: &Map<String, Value>, draft: Draft) -> Option<Bound> {
    bound(map, draft, "maximum", "exclusiveMaximum", Ordering::Less)
}

fn bound(
    map: &Map<String, Value>,
    draft: Draft,
    closed: &str,
    open: &str,
    tighter: Ordering,
) -> Option<Bound> {
    let number = |key: &str| match map.get(key) {
        Some(Value::Number(n)) => Some(n.clone()),
        _ => None,
    };
    let mut found: Option<Bound> = number(closed).map(|value| Bound { value, open: false });
    if draft == Draft::Draft4 {
        if map.get(open) == Some(&Value::Bool(true)) {
            if let Some(b) = &mut found {
                b.open = true;
            }
        }
        return found;
    }
    if let Some(value) = number(open) {
        let replace = match &found {
            None => true,
            Some(current) => compare(&value, &current.value)
                .is_some_and(|o| o == tighter || o == Ordering::Equal),
        };
        if replace {
            found = Some(Bound { value, open: true });
        }
    }
    found
}

/// The count a keyword holds (`minItems`, `minContains`, …) as the
/// validator reads it: `2.0` is `2`. `None` for anything else.
pub fn count(value: &Value) -> Option<u64> {
    match value {
        Value::Number(_) => canonical(value).as_u64(),
        _ => None,
    }
}

/// `value` with every whole number written as an integer (`1.0` → `1`,
/// `-0.0` → `0`, `1e2` → `100`), as JSON Schema compares values: two values
/// the validator calls equal are `==` after it. Below
/// [`crate::vocab::MAX_NESTING`] levels a value is kept as it is.
pub fn canonical(value: &Value) -> Value {
    canonical_below(value, 0)
}

fn canonical_below(value: &Value, depth: usize) -> Value {
    if depth > crate::vocab::MAX_NESTING {
        return value.clone();
    }
    match value {
        Value::Number(n) if n.as_i64().is_none() && n.as_u64().is_none() => {
            let whole = |f: f64| f.fract() == 0.0;
            // 2^63 and 2^64, exact as doubles: casts below them are exact.
            let two_63 = -(i64::MIN as f64);
            match n.as_f64() {
                Some(f) if whole(f) && (-two_63..two_63).contains(&f) => Value::from(f as i64),
                Some(f) if whole(f) && (0.0..2.0 * two_63).contains(&f) => Value::from(f as u64),
                _ => value.clone(),
            }
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| canonical_below(item, depth + 1))
                .collect(),
        ),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(name, member)| (name.clone(), canonical_below(member, depth + 1)))
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// Whether a writer's lower bound `a` keeps it at or above a reader's `b`.
pub fn at_least(a: &Bound, b: &Bound) -> bool {
    match compare(&a.value, &b.value) {
        Some(Ordering::Greater) => true,
        Some(Ordering::Equal) => a.open || !b.open,
        _ => false,
    }
}

/// Whether a writer's upper bound `a` keeps it at or below a reader's `b`.
pub fn at_most(a: &Bound, b: &Bound) -> bool {
    match compare(&a.value, &b.value) {
        Some(Ordering::Less) => true,
        Some(Ordering::Equal) => a.open || !b.open,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_numbers_are_written_as_integers() {
        let read = |text: &str| serde_json::from_str::<Value>(text).unwrap_or_default();
        for (text, canonical_text) in [
            ("1.0", "1"),
            ("-0.0", "0"),
            ("1e2", "100"),
            ("-2.0", "-2"),
            ("1.5", "1.5"),
            ("1e19", "10000000000000000000"),
            ("1e20", "1e20"),
            ("[1.0, {\"a\": 2.0}]", "[1, {\"a\": 2}]"),
            ("\"1.0\"", "\"1.0\""),
        ] {
            assert_eq!(canonical(&read(text)), read(canonical_text), "{text}");
        }
    }

    fn n(value: Value) -> Number {
        match value {
            Value::Number(n) => n,
            _ => Number::from(0),
        }
    }

    #[test]
    fn integers_past_two_to_the_53_are_told_apart() {
        let (a, b) = (
            n(json!(9_007_199_254_740_993u64)),
            n(json!(9_007_199_254_740_992u64)),
        );
        assert_eq!(compare(&a, &b), Some(Ordering::Greater));
        // The double nearest 2^53 + 1 is 2^53: still not equal to the integer.
        assert_eq!(
            compare(&a, &n(json!(9_007_199_254_740_992.0))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&n(json!(-1)), &n(json!(u64::MAX))),
            Some(Ordering::Less)
        );
        assert_eq!(compare(&n(json!(0.5)), &n(json!(1))), Some(Ordering::Less));
    }

    #[test]
    fn the_tighter_of_minimum_and_exclusive_minimum_wins() {
        let schema = json!({"minimum": 5, "exclusiveMinimum": 5});
        let found =
            lower(schema.as_object().expect("object"), Draft::Draft202012).expect("a bound");
        assert!(found.open);
        let draft4 = json!({"minimum": 5, "exclusiveMinimum": true});
        assert!(lower(draft4.as_object().expect("object"), Draft::Draft4).is_some_and(|b| b.open));
    }
}
