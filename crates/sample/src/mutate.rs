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
    applied_all(value, one_step_edits(value, skip, false))
}

/// [`one_step_mutations`], and more: each string one character shorter, and
/// each string member given the value of a string sibling (a digest one
/// digit short, a `cause` equal to its `code`): faults of the rules that
/// tie a value to its neighbours.
pub fn one_step_mutations_wide(value: &Value, skip: &BTreeSet<String>) -> Vec<Value> {
    applied_all(value, one_step_edits(value, skip, true))
}

/// One mutation of a value, not yet made: the place it changes (a JSON
/// pointer) and what goes there, `None` for a member removed. Listing
/// edits costs a small value each, where each mutation is a whole copy: a
/// caller that uses a few of them makes only those ([`Edit::applied`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    /// Where the change is.
    pub pointer: String,
    /// What is put there; `None`: the member there is removed.
    pub with: Option<Value>,
}

impl Edit {
    /// `value` with this edit made.
    pub fn applied(&self, value: &Value) -> Value {
        let mut out = value.clone();
        let (parent, token) = match self.pointer.rsplit_once('/') {
            Some((parent, token)) => (parent, Some(token)),
            None => ("", None),
        };
        match (token, &self.with) {
            (None, Some(with)) => out = with.clone(),
            (None, None) => {}
            (Some(token), with) => {
                let name = token.replace("~1", "/").replace("~0", "~");
                match (out.pointer_mut(parent), with) {
                    (Some(Value::Object(map)), Some(with)) => {
                        map.insert(name, with.clone());
                    }
                    (Some(Value::Object(map)), None) => {
                        map.remove(&name);
                    }
                    (Some(Value::Array(items)), Some(with)) => {
                        if let Some(slot) =
                            name.parse::<usize>().ok().and_then(|i| items.get_mut(i))
                        {
                            *slot = with.clone();
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

/// The edits [`one_step_mutations`] (`wide`: [`one_step_mutations_wide`])
/// makes, in the order it makes them.
pub fn one_step_edits(value: &Value, skip: &BTreeSet<String>, wide: bool) -> Vec<Edit> {
    let mut out = Vec::new();
    walk(value, "", skip, wide, &mut out);
    // A value with nothing inside to change (a string, a number, an empty
    // object) is changed as a whole, as a member would be.
    if out.is_empty() {
        let mut whole = leaf_variants(value);
        if let (true, Value::String(text)) = (wide, value) {
            let mut chars = text.chars();
            if chars.next_back().is_some() {
                whole.push(Value::String(chars.as_str().to_string()));
            }
        }
        out.extend(whole.into_iter().map(|with| Edit {
            pointer: String::new(),
            with: Some(with),
        }));
    }
    out
}

fn applied_all(value: &Value, edits: Vec<Edit>) -> Vec<Value> {
    edits.iter().map(|edit| edit.applied(value)).collect()
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
/// Every edit below `value`, which stands at `pointer`.
fn walk(value: &Value, pointer: &str, skip: &BTreeSet<String>, wide: bool, out: &mut Vec<Edit>) {
    match value {
        Value::Object(map) => {
            // A body's tag changed is a name this version does not know,
            // which every reader takes as such (the newer-peer tests).
            let body = map.contains_key("params") || map.contains_key("result");
            for (key, child) in map {
                if skip.contains(key) || (body && matches!(key.as_str(), "method" | "name")) {
                    continue;
                }
                let token = key.replace('~', "~0").replace('/', "~1");
                let at = format!("{pointer}/{token}");
                out.push(Edit {
                    pointer: at.clone(),
                    with: None,
                });
                let mut variants = leaf_variants(child);
                if wide {
                    variants.extend(wide_variants(map, key, child));
                }
                out.extend(variants.into_iter().map(|with| Edit {
                    pointer: at.clone(),
                    with: Some(with),
                }));
                walk(child, &at, skip, wide, out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                let at = format!("{pointer}/{index}");
                out.extend(leaf_variants(child).into_iter().map(|with| Edit {
                    pointer: at.clone(),
                    with: Some(with),
                }));
                walk(child, &at, skip, wide, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each edit changes the value where it says, member names holding `/`
    /// and `~` too (pointer tokens escaped), and nothing else.
    #[test]
    fn every_edit_changes_the_value_at_its_place() {
        let value = json!({"a/b": {"c~d": [1, "s"]}, "e": true, "f": "xy"});
        let edits = one_step_edits(&value, &BTreeSet::new(), true);
        assert!(edits.len() > 10, "{edits:?}");
        for edit in &edits {
            let changed = edit.applied(&value);
            assert_ne!(changed, value, "{edit:?} changed nothing");
            match &edit.with {
                Some(with) => assert_eq!(changed.pointer(&edit.pointer), Some(with)),
                None => assert_eq!(changed.pointer(&edit.pointer), None),
            }
        }
        assert!(edits.contains(&Edit {
            pointer: "/a~1b/c~0d/1".into(),
            with: Some(json!(7)),
        }));
    }
}
