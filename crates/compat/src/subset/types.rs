//! Containment within one JSON type: numbers, strings, arrays, objects.
//! The combinators (`allOf`, unions, conditions, `not`, references) are in
//! the parent module; these compare what is left once they are taken apart.

use serde_json::Value;

use super::{empty, has_ref, BreakKind, Outcome, Subset};
use crate::accepts::{accepts, equal};
use crate::example::{example, example_of_type, find_witness};
use crate::node::{to_number, Node, TYPES};

impl Subset {
    /// Neither side has combinators left: compare by type.
    pub(super) fn flat(&mut self, a: &Node<'_>, b: &Node<'_>, depth: usize) -> Outcome {
        if let Some(values) = a.finite() {
            for value in values.iter().filter(|v| accepts(a, v, false)) {
                if !accepts(b, value, self.tolerant) {
                    return self.fail(
                        a,
                        b,
                        format!("the value {value} is no longer accepted"),
                        Some(value.clone()),
                    );
                }
            }
            return Ok(());
        }
        let a_types: Vec<&str> = match a.types() {
            Some(types) => types,
            None => TYPES.to_vec(),
        };
        let b_types = b.types();
        for ty in a_types
            .iter()
            .copied()
            .filter(|t| !(*t == "integer" && a_types.contains(&"number")))
        {
            let accepted = b_types
                .as_ref()
                .is_none_or(|bt| bt.contains(&ty) || (ty == "integer" && bt.contains(&"number")));
            let only_integers = ty == "number"
                && b_types
                    .as_ref()
                    .is_some_and(|bt| !bt.contains(&"number") && bt.contains(&"integer"));
            if !accepted && !only_integers {
                let witness = example_of_type(a, ty);
                return self.fail(
                    a,
                    b,
                    format!("values of type {ty} are no longer accepted"),
                    Some(witness),
                );
            }
            if only_integers && !a.number("multipleOf").is_some_and(|m| m.fract() == 0.0) {
                let witness = [0.5, 1.5, -0.5]
                    .into_iter()
                    .map(to_number)
                    .find(|v| accepts(a, v, false));
                if let Some(w) = witness {
                    return self.fail(
                        a,
                        b,
                        "numbers that are not integers are no longer accepted".into(),
                        Some(w),
                    );
                }
            }
            if let Some(values) = b.finite() {
                let domain: Option<Vec<Value>> = match ty {
                    "null" => Some(vec![Value::Null]),
                    "boolean" => Some(vec![Value::Bool(true), Value::Bool(false)]),
                    _ => None,
                };
                let missing = match domain {
                    Some(domain) => domain
                        .into_iter()
                        .find(|v| accepts(a, v, false) && !values.iter().any(|x| equal(x, v))),
                    None => {
                        find_witness(a, b, self.tolerant).or_else(|| Some(example_of_type(a, ty)))
                    }
                };
                if let Some(w) = missing {
                    return self.fail(
                        a,
                        b,
                        "the allowed values were narrowed to a fixed list".into(),
                        Some(w),
                    );
                }
                continue;
            }
            match ty {
                "integer" | "number" => self.numbers(a, b, ty == "integer")?,
                "string" => self.strings(a, b)?,
                "array" => self.arrays(a, b, depth)?,
                "object" => self.objects(a, b, depth)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn numbers(&mut self, a: &Node<'_>, b: &Node<'_>, integer: bool) -> Outcome {
        let (ai, bi) = (a.interval(), b.interval());
        let tighten = |x: Option<f64>, open: bool, up: bool| -> Option<f64> {
            x.map(|x| {
                if integer && open {
                    if up {
                        x.floor() + 1.0
                    } else {
                        x.ceil() - 1.0
                    }
                } else {
                    x
                }
            })
        };
        let (alo, ahi) = (
            tighten(ai.lo, ai.lo_open, true),
            tighten(ai.hi, ai.hi_open, false),
        );
        let lo_ok = match bi.lo {
            None => true,
            Some(blo) => {
                alo.is_some_and(|alo| {
                    alo > blo || (alo == blo && (!bi.lo_open || (ai.lo_open && !integer)))
                }) || (integer && bi.lo_open && alo.is_some_and(|alo| alo > blo))
            }
        };
        let hi_ok = match bi.hi {
            None => true,
            Some(bhi) => {
                ahi.is_some_and(|ahi| {
                    ahi < bhi || (ahi == bhi && (!bi.hi_open || (ai.hi_open && !integer)))
                }) || (integer && bi.hi_open && ahi.is_some_and(|ahi| ahi < bhi))
            }
        };
        if !lo_ok || !hi_ok {
            return self.fail(
                a,
                b,
                "the allowed range of numbers was narrowed".into(),
                None,
            );
        }
        if let Some(bm) = b.number("multipleOf").filter(|m| *m > 0.0) {
            let divides = a
                .number("multipleOf")
                .is_some_and(|am| ((am / bm) - (am / bm).round()).abs() < 1e-9);
            let integers_fit = integer && (1.0 / bm - (1.0 / bm).round()).abs() < 1e-9;
            if !divides && !integers_fit {
                return self.fail(
                    a,
                    b,
                    format!("numbers must now be a multiple of {bm}"),
                    None,
                );
            }
        }
        Ok(())
    }

    fn strings(&mut self, a: &Node<'_>, b: &Node<'_>) -> Outcome {
        let within = |key_a: &str, key_b: &str, lower: bool| -> bool {
            match b.number(key_b) {
                None => true,
                Some(limit) => {
                    a.number(key_a)
                        .is_some_and(|x| if lower { x >= limit } else { x <= limit })
                }
            }
        };
        if !within("minLength", "minLength", true) || !within("maxLength", "maxLength", false) {
            return self.fail(a, b, "the allowed string length was narrowed".into(), None);
        }
        // Whether one regular expression's language contains another's is not
        // decided here: a pattern, format or content rule the reader adds or
        // changes counts as narrowing (with a counterexample when one is found).
        for (key, what) in [
            ("pattern", "match the pattern"),
            ("format", "be in the format"),
            ("contentEncoding", "be encoded as"),
            ("contentMediaType", "hold media of type"),
        ] {
            if key == "format" && self.formats == crate::Formats::Annotation {
                continue;
            }
            if let Some(rule) = b.get(key) {
                if a.get(key) != Some(rule) {
                    return self.undecided(
                        a,
                        b,
                        key,
                        &format!("strings must {what} {rule}, and whether every string the writer sends does is not decided"),
                    );
                }
            }
        }
        Ok(())
    }

    fn arrays(&mut self, a: &Node<'_>, b: &Node<'_>, depth: usize) -> Outcome {
        let bound = |node: &Node<'_>, key: &str| node.number(key);
        if bound(b, "minItems").is_some_and(|bm| bound(a, "minItems").unwrap_or(0.0) < bm)
            || bound(b, "maxItems").is_some_and(|bm| bound(a, "maxItems").is_none_or(|am| am > bm))
        {
            return self.fail(
                a,
                b,
                "the allowed number of items was narrowed".into(),
                None,
            );
        }
        let a_max = bound(a, "maxItems").map(|m| if m > 0.0 { m as usize } else { 0 });
        for index in 0..=a.tuple_len().max(b.tuple_len()) {
            if a_max.is_some_and(|max| index >= max) {
                break;
            }
            let Some(b_item) = b.item(index) else {
                continue;
            };
            let a_item = a
                .item(index)
                .unwrap_or_else(|| a.with_value(Value::Bool(true)));
            if let Err(mut err) = self.sub(&a_item, &b_item, depth + 1) {
                err.path = format!("/{index}{}", err.path);
                err.witness = err.witness.map(|w| {
                    let mut items: Vec<Value> = (0..index)
                        .map(|i| a.item(i).map_or(Value::Null, |n| example(&n)))
                        .collect();
                    items.push(w);
                    Value::Array(items)
                });
                return Err(err);
            }
        }
        if b.get("uniqueItems") == Some(&Value::Bool(true))
            && a.get("uniqueItems") != Some(&Value::Bool(true))
            && a_max.is_none_or(|m| m > 1)
        {
            let item = a.item(0).map_or(Value::Null, |n| example(&n));
            return self.fail(
                a,
                b,
                "items must now be unique".into(),
                Some(Value::Array(vec![item.clone(), item])),
            );
        }
        if let Some(contains) = b.child("contains") {
            match a.child("contains") {
                Some(a_contains) => self.sub(&a_contains, &contains, depth + 1)?,
                None => {
                    return self.fail(
                        a,
                        b,
                        "the array must now contain a particular item".into(),
                        None,
                    )
                }
            }
        }
        Ok(())
    }

    fn objects(&mut self, a: &Node<'_>, b: &Node<'_>, depth: usize) -> Outcome {
        let a_required = a.strings("required");
        for name in b.strings("required") {
            if !a_required.contains(&name) {
                let mut witness = example(a);
                if let Value::Object(map) = &mut witness {
                    map.remove(&name);
                }
                return self.fail(
                    a,
                    b,
                    format!("the field {name:?} is now required"),
                    Some(witness),
                );
            }
        }
        // Which names patterns match is a question about regular languages:
        // decided only when both sides have the same patterns.
        let (a_patterns, b_patterns) = (a.get("patternProperties"), b.get("patternProperties"));
        let has = |p: Option<&Value>| p.and_then(Value::as_object).is_some_and(|m| !m.is_empty());
        // Also decided: each of the reader's patterns is one of the writer's,
        // with the same schema, and the reader leaves other names open. Every
        // pattern the reader applies to a name then held for the writer too.
        let within = b_patterns
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .all(|(pattern, schema)| a_patterns.and_then(|p| p.get(pattern)) == Some(schema));
        let open = self.tolerant
            || matches!(
                b.get("additionalProperties"),
                None | Some(Value::Bool(true))
            );
        let same = a_patterns == b_patterns || (within && open);
        if (has(a_patterns) || has(b_patterns)) && (!same || has_ref(b_patterns)) {
            return self.undecided(
                a,
                b,
                "patternProperties",
                "which property names the changed patterns match is not decided",
            );
        }
        let mut names: Vec<String> = Vec::new();
        for node in [a, b] {
            names.extend(
                node.get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.clone()),
            );
        }
        names.sort();
        names.dedup();
        for name in &names {
            let Some(b_prop) = b.property(name, self.tolerant) else {
                continue;
            };
            let a_prop = a
                .property(name, false)
                .unwrap_or_else(|| a.with_value(Value::Bool(true)));
            self.property(
                a,
                &a_prop,
                &b_prop,
                name,
                &format!("the field {name:?}"),
                depth,
            )?;
        }
        // Fields neither side declares: a name no pattern matches stands for them all.
        if let Some(extra) = unlisted_name(&names, b_patterns) {
            if let Some(b_extra) = b.property(&extra, self.tolerant) {
                let a_extra = a
                    .property(&extra, false)
                    .unwrap_or_else(|| a.with_value(Value::Bool(true)));
                self.property(
                    a,
                    &a_extra,
                    &b_extra,
                    &extra,
                    "a field the schema does not list",
                    depth,
                )
                .map_err(|mut err| {
                    if err.kind == BreakKind::AnyNarrowed {
                        err.reason = "fields the schema does not list are refused now".into();
                    }
                    err
                })?;
            }
        }
        let count = |node: &Node<'_>, key: &str| node.number(key);
        if count(b, "minProperties").is_some_and(|bm| count(a, "minProperties").unwrap_or(0.0) < bm)
            || count(b, "maxProperties")
                .is_some_and(|bm| count(a, "maxProperties").is_none_or(|am| am > bm))
        {
            return self.fail(
                a,
                b,
                "the allowed number of fields was narrowed".into(),
                None,
            );
        }
        if let Some(b_names) = b.child("propertyNames") {
            let a_names = a
                .child("propertyNames")
                .unwrap_or_else(|| a.with_value(serde_json::json!({"type": "string"})));
            self.sub(&a_names, &b_names, depth + 1)?;
        }
        for key in ["dependencies", "dependentRequired", "dependentSchemas"] {
            for (trigger, dependency) in b.get(key).and_then(Value::as_object).into_iter().flatten()
            {
                let same = a
                    .get(key)
                    .and_then(|d| d.get(trigger))
                    .is_some_and(|other| equal(other, dependency));
                // A list of names is implied when `a` requires each always, or
                // requires at least those names under the same trigger.
                let a_dependency: Vec<&str> = a
                    .get(key)
                    .and_then(|d| d.get(trigger))
                    .and_then(Value::as_array)
                    .map(|n| n.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let implied = dependency.as_array().is_some_and(|names| {
                    names
                        .iter()
                        .filter_map(Value::as_str)
                        .all(|n| a_required.iter().any(|r| r == n) || a_dependency.contains(&n))
                });
                if !same && !implied {
                    let mut witness = example(a);
                    if let (Value::Object(map), Some(p)) =
                        (&mut witness, a.property(trigger, false))
                    {
                        map.insert(trigger.clone(), example(&p));
                    }
                    return self.fail(
                        a,
                        b,
                        format!("a dependency on {trigger:?} was added or changed"),
                        Some(witness),
                    );
                }
            }
        }
        Ok(())
    }
    /// One property: `a`'s schema for it inside `b`'s, the failure placed at it.
    fn property(
        &mut self,
        a: &Node<'_>,
        a_prop: &Node<'_>,
        b_prop: &Node<'_>,
        name: &str,
        what: &str,
        depth: usize,
    ) -> Outcome {
        if b_prop.is_false() && !a_prop.is_false() && !empty(a_prop, 0) {
            let mut witness = example(a);
            if let Value::Object(map) = &mut witness {
                map.insert(name.to_string(), example(a_prop));
            }
            return self.fail(
                a,
                b_prop,
                format!("{what} is unknown to this reader, whose object is closed"),
                Some(witness),
            );
        }
        self.sub(a_prop, b_prop, depth + 1).map_err(|mut err| {
            err.path = format!("/{}{}", contract::escape_pointer_token(name), err.path);
            err.witness = err.witness.map(|w| {
                let mut base = example(a);
                if let Value::Object(map) = &mut base {
                    map.insert(name.to_string(), w);
                }
                base
            });
            err
        })
    }
}

/// A property name that neither side declares and no pattern matches, to
/// stand for every such name (`None` when the patterns seem to cover all).
fn unlisted_name(declared: &[String], patterns: Option<&Value>) -> Option<String> {
    let patterns: Vec<regex::Regex> = patterns
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(pattern, _)| regex::Regex::new(pattern).ok())
        .collect();
    (0..64)
        .map(|n| format!("unlistedField{n}"))
        .find(|name| !declared.contains(name) && !patterns.iter().any(|re| re.is_match(name)))
}
