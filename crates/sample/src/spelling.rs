//! Numbers written the other way: `1` as `1.0` and back. JSON Schema takes
//! them as one value everywhere but in draft 4's `type: integer`, which
//! refuses `1.0`; a value drawn as written never shows that difference.

use serde_json::{Number, Value};

/// `n` written the other way, if it has no fraction: `1` as `1.0`, `1.0`
/// as `1`; `None` where no other way writes the same number (`2^53 + 1`
/// has no double, `1e300` no integer).
pub fn other_spelling(n: &Number) -> Option<Value> {
    // The bounds keep each conversion exact: past them a cast saturates.
    const I64_EXACT: f64 = 9.2e18;
    const U64_EXACT: f64 = 1.8e19;
    if let Some(i) = n.as_i64() {
        let f = i as f64;
        return (f.abs() < I64_EXACT && f as i64 == i).then(|| Value::from(f));
    }
    if let Some(u) = n.as_u64() {
        let f = u as f64;
        return (f < U64_EXACT && f as u64 == u).then(|| Value::from(f));
    }
    let f = n.as_f64()?;
    if f.fract() != 0.0 {
        None
    } else if f.abs() < I64_EXACT {
        Some(Value::from(f as i64))
    } else if (0.0..U64_EXACT).contains(&f) {
        Some(Value::from(f as u64))
    } else {
        None
    }
}

/// `value` with every number that has another spelling written that way.
pub fn numbers_respelled(value: &Value) -> Value {
    let mut out = value.clone();
    let mut stack = vec![&mut out];
    while let Some(value) = stack.pop() {
        match value {
            Value::Number(n) => {
                if let Some(other) = other_spelling(n) {
                    *value = other;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_integral_number_is_written_the_other_way_and_no_other_changes() {
        let value = json!({"a": [1, 1.0, -3, 2.5, 9_007_199_254_740_993_u64, 1e300], "b": "1"});
        let respelled = numbers_respelled(&value);
        assert_eq!(
            respelled.to_string(),
            r#"{"a":[1.0,1,-3.0,2.5,9007199254740993,1e+300],"b":"1"}"#
        );
        // Written back, each is the number it was.
        assert_eq!(numbers_respelled(&respelled).to_string(), value.to_string());
        assert_eq!(other_spelling(&Number::from(i64::MAX)), None);
        assert_eq!(other_spelling(&Number::from(u64::MAX)), None);
    }
}
