//! Finding every change between two schemas and judging each alone.
//!
//! The walk follows both schemas in step — references resolved, so moving a
//! definition or refactoring a `$ref` is no change; union branches matched by
//! their tag or their content, so reordering is no change. At each place that
//! differs it builds the old schema with only that change applied, and asks
//! containment both ways between the two.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::accepts::equal;
use crate::node::{is_assertion, Node};
use crate::subset::Subset;
use crate::{Change, Example, Family, How, Rule, Verdict};

pub struct Differ {
    tolerant: bool,
    visited: HashSet<(String, String, String, String)>,
    /// Documents not entered (the envelope's bodies: each method and event is
    /// compared on its own, and adding one is judged by the contract's rules).
    pub skip: HashSet<String>,
    /// Confirms each counterexample with the `jsonschema` crate before it is shown.
    confirm: std::rc::Rc<crate::confirm::Confirm>,
    formats: crate::Formats,
}

/// What a judged change is called: a fixed rule, or a keyword family whose
/// direction the verdicts decide (`bound.narrowed`, `bound.widened`, ...).
enum Named {
    Rule(Rule),
    Family(Family),
}

/// Keywords whose subschemas the walk enters instead of judging them whole.
const NESTED: &[(&str, &str)] = &[
    ("items", "*"),
    ("additionalProperties", "*"),
    ("additionalItems", "*"),
    ("contains", "*"),
    ("propertyNames", "*"),
];

impl Differ {
    pub fn new(
        tolerant: bool,
        formats: crate::Formats,
        confirm: std::rc::Rc<crate::confirm::Confirm>,
    ) -> Self {
        Self {
            tolerant,
            visited: HashSet::new(),
            skip: HashSet::new(),
            confirm,
            formats,
        }
    }

    pub fn diff(
        &mut self,
        old: &Node<'_>,
        new: &Node<'_>,
        group: &str,
        path: &str,
        out: &mut Vec<Change>,
    ) {
        let (old, new) = (old.resolved(), new.resolved());
        if self.skip.contains(&old.doc.rel) || self.skip.contains(&new.doc.rel) {
            return;
        }
        // Changes inside a shared type are reported once, under the type.
        let group = if old.pointer.is_empty() && old.doc.kind == contract::DocKind::Type {
            old.doc.name.clone()
        } else {
            group.to_string()
        };
        let key = (
            old.doc.rel.clone(),
            old.pointer.clone(),
            new.doc.rel.clone(),
            new.pointer.clone(),
        );
        // Equal text is equal meaning only when no `$ref` inside could lead elsewhere.
        if !self.visited.insert(key) || (equal(&old.value, &new.value) && !has_ref(&old.value)) {
            return;
        }
        let (Some(o), Some(n)) = (old.object().cloned(), new.object().cloned()) else {
            self.judge(
                &old,
                &new,
                inline(&new),
                &group,
                path,
                Named::Rule(Rule::SchemaReplaced),
                "the schema was replaced".into(),
                true,
                out,
            );
            return;
        };
        // Definitions are compared where they are used, not as text.
        let container = |k: &str| matches!(k, "$defs" | "definitions" | "$id" | "id" | "$schema");
        let annotations_differ = o
            .iter()
            .chain(n.iter())
            .any(|(k, _)| !is_assertion(k) && !container(k) && o.get(k) != n.get(k));
        if annotations_differ {
            out.push(Change {
                group: group.clone(),
                rule: Rule::AnnotationChanged,
                old_pointer: Some(at(&old, "")),
                new_pointer: Some(at(&new, "")),
                writer: Verdict::Compatible,
                reader: Verdict::Compatible,
                api: Verdict::Compatible,
                detail: "descriptions or other annotations changed".into(),
                why: None,
                example: None,
                undecided: None,
                shape: false,
            });
        }
        let mut keys: Vec<&String> = o
            .keys()
            .chain(n.keys())
            .filter(|k| is_assertion(k))
            .collect();
        keys.sort();
        keys.dedup();
        let added_props: Vec<String> = names(&n, "properties")
            .into_iter()
            .filter(|p| !names(&o, "properties").contains(p))
            .collect();
        let removed_props: Vec<String> = names(&o, "properties")
            .into_iter()
            .filter(|p| !names(&n, "properties").contains(p))
            .collect();
        for key in keys {
            let (ov, nv) = (o.get(key.as_str()), n.get(key.as_str()));
            if ov.zip(nv).is_some_and(|(a, b)| equal(a, b) && !has_ref(a)) {
                continue;
            }
            match key.as_str() {
                "properties" => {
                    self.properties(&old, &new, &group, path, &added_props, &removed_props, out)
                }
                "required" => {
                    let (was, now) = (old.strings("required"), new.strings("required"));
                    for name in now
                        .iter()
                        .filter(|r| !was.contains(r) && !added_props.contains(r))
                    {
                        let mut changed = old.value.clone().into_owned();
                        push_required(&mut changed, name);
                        self.judge(
                            &old,
                            &new,
                            changed,
                            &group,
                            path,
                            Named::Rule(Rule::RequiredAdded),
                            format!("{name:?} became required"),
                            true,
                            out,
                        );
                    }
                    for name in was
                        .iter()
                        .filter(|r| !now.contains(r) && !removed_props.contains(r))
                    {
                        let mut changed = old.value.clone().into_owned();
                        remove_required(&mut changed, name);
                        self.judge(
                            &old,
                            &new,
                            changed,
                            &group,
                            path,
                            Named::Rule(Rule::RequiredRemoved),
                            format!("{name:?} became optional"),
                            true,
                            out,
                        );
                    }
                }
                "enum" => {
                    let (was, now) = (
                        old.finite().unwrap_or_default(),
                        new.finite().unwrap_or_default(),
                    );
                    if o.get("enum").is_none() || n.get("enum").is_none() {
                        self.keyword(&old, &new, key, &group, path, out);
                        continue;
                    }
                    for value in now.iter().filter(|v| !was.iter().any(|w| equal(v, w))) {
                        let mut changed = old.value.clone().into_owned();
                        edit_enum(&mut changed, value, true);
                        self.judge(
                            &old,
                            &new,
                            changed,
                            &group,
                            path,
                            Named::Rule(Rule::EnumValueAdded),
                            format!("enum value {value} added"),
                            true,
                            out,
                        );
                    }
                    for value in was.iter().filter(|v| !now.iter().any(|w| equal(v, w))) {
                        let mut changed = old.value.clone().into_owned();
                        edit_enum(&mut changed, value, false);
                        self.judge(
                            &old,
                            &new,
                            changed,
                            &group,
                            path,
                            Named::Rule(Rule::EnumValueRemoved),
                            format!("enum value {value} removed"),
                            true,
                            out,
                        );
                    }
                }
                "oneOf" | "anyOf"
                    if ov.is_some_and(Value::is_array) && nv.is_some_and(Value::is_array) =>
                {
                    self.branches(&old, &new, key, &group, path, out)
                }
                k if NESTED.iter().any(|(name, _)| *name == k)
                    && ov.is_some_and(Value::is_object)
                    && nv.is_some_and(Value::is_object) =>
                {
                    let token = NESTED
                        .iter()
                        .find(|(name, _)| *name == k)
                        .map_or("*", |(_, t)| *t);
                    if let (Some(oc), Some(nc)) = (old.child(k), new.child(k)) {
                        self.diff(&oc, &nc, &group, &format!("{path}/{token}"), out);
                    }
                }
                "prefixItems" | "items"
                    if ov.is_some_and(Value::is_array) && nv.is_some_and(Value::is_array) =>
                {
                    let len = ov
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len)
                        .min(nv.and_then(Value::as_array).map_or(0, Vec::len));
                    for index in 0..len {
                        let i = index.to_string();
                        if let (Some(oc), Some(nc)) = (
                            old.child(key).and_then(|l| l.child(&i)),
                            new.child(key).and_then(|l| l.child(&i)),
                        ) {
                            self.diff(&oc, &nc, &group, &format!("{path}/{i}"), out);
                        }
                    }
                    if ov.and_then(Value::as_array).map(Vec::len)
                        != nv.and_then(Value::as_array).map(Vec::len)
                    {
                        self.keyword(&old, &new, key, &group, path, out);
                    }
                }
                _ => self.keyword(&old, &new, key, &group, path, out),
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn properties(
        &mut self,
        old: &Node<'_>,
        new: &Node<'_>,
        group: &str,
        path: &str,
        added: &[String],
        removed: &[String],
        out: &mut Vec<Change>,
    ) {
        for name in added {
            let mut changed = old.value.clone().into_owned();
            let schema = new
                .child("properties")
                .and_then(|p| p.child(name))
                .map_or(Value::Bool(true), |p| inline(&p));
            let required = new.strings("required").contains(name);
            set_property(&mut changed, name, Some(schema));
            if required {
                push_required(&mut changed, name);
            }
            let detail = format!(
                "{} field {name:?} added",
                if required { "required" } else { "optional" }
            );
            self.judge(
                old,
                new,
                changed,
                group,
                path,
                Named::Rule(Rule::PropertyAdded),
                detail,
                true,
                out,
            );
            // Point at the field itself, where a reviewer looks.
            if let Some(change) = out.last_mut() {
                let at_field = format!("/properties/{}", contract::escape_pointer_token(name));
                change.new_pointer = Some(at(new, &at_field));
            }
        }
        for name in removed {
            let mut changed = old.value.clone().into_owned();
            set_property(&mut changed, name, None);
            remove_required(&mut changed, name);
            self.judge(
                old,
                new,
                changed,
                group,
                path,
                Named::Rule(Rule::PropertyRemoved),
                format!("field {name:?} removed"),
                true,
                out,
            );
            if let Some(change) = out.last_mut() {
                let at_field = format!("/properties/{}", contract::escape_pointer_token(name));
                change.old_pointer = Some(at(old, &at_field));
            }
        }
        for name in names(old.object().unwrap_or(&Map::new()), "properties") {
            if added.contains(&name) || removed.contains(&name) {
                continue;
            }
            if let (Some(oc), Some(nc)) = (
                old.child("properties").and_then(|p| p.child(&name)),
                new.child("properties").and_then(|p| p.child(&name)),
            ) {
                self.diff(
                    &oc,
                    &nc,
                    group,
                    &format!("{path}/{}", contract::escape_pointer_token(&name)),
                    out,
                );
            }
        }
    }

    /// Union branches, matched by tag, then by equal content, then by containment.
    fn branches(
        &mut self,
        old: &Node<'_>,
        new: &Node<'_>,
        key: &str,
        group: &str,
        path: &str,
        out: &mut Vec<Change>,
    ) {
        let list = |node: &Node<'_>| -> Vec<(usize, Value)> {
            node.get(key)
                .and_then(Value::as_array)
                .map(|items| items.iter().cloned().enumerate().collect())
                .unwrap_or_default()
        };
        let (olds, news) = (list(old), list(new));
        let tag_of = |value: &Value| -> Option<String> {
            value
                .get("properties")
                .and_then(Value::as_object)?
                .iter()
                .find_map(|(name, s)| s.get("const").map(|c| format!("{name}={c}")))
        };
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut free_new: Vec<usize> = news.iter().map(|(i, _)| *i).collect();
        let mut free_old = Vec::new();
        for (oi, ov) in &olds {
            let by_tag = tag_of(ov).and_then(|t| {
                free_new.iter().position(|ni| {
                    news.get(*ni).and_then(|(_, nv)| tag_of(nv)).as_ref() == Some(&t)
                })
            });
            let by_content = || {
                free_new
                    .iter()
                    .position(|ni| news.get(*ni).is_some_and(|(_, nv)| equal(nv, ov)))
            };
            match by_tag.or_else(by_content) {
                Some(position) => pairs.push((*oi, free_new.remove(position))),
                None => free_old.push(*oi),
            }
        }
        // What is left pairs by containment either way (a branch that only widened or narrowed).
        fn branch<'a>(node: &Node<'a>, key: &str, index: usize) -> Option<Node<'a>> {
            node.child(key).and_then(|l| l.child(&index.to_string()))
        }
        let mut still_old = Vec::new();
        for oi in free_old {
            let found = free_new.iter().position(|ni| {
                match (branch(old, key, oi), branch(new, key, *ni)) {
                    (Some(o), Some(n)) => {
                        Subset::new(false).check(&o, &n).is_ok()
                            || Subset::new(false).check(&n, &o).is_ok()
                    }
                    _ => false,
                }
            });
            match found {
                Some(position) => pairs.push((oi, free_new.remove(position))),
                None => still_old.push(oi),
            }
        }
        for (oi, ni) in pairs {
            if let (Some(o), Some(n)) = (branch(old, key, oi), branch(new, key, ni)) {
                self.diff(&o, &n, group, path, out);
            }
        }
        for ni in free_new {
            let mut changed = old.value.clone().into_owned();
            if let (Some(Value::Array(items)), Some(b)) =
                (changed.get_mut(key), branch(new, key, ni))
            {
                items.push(inline(&b));
            }
            self.judge(
                old,
                new,
                changed,
                group,
                path,
                Named::Rule(Rule::BranchAdded),
                format!("`{key}` branch {ni} of the new schema added"),
                true,
                out,
            );
        }
        for oi in still_old {
            let mut changed = old.value.clone().into_owned();
            if let Some(Value::Array(items)) = changed.get_mut(key) {
                if oi < items.len() {
                    items.remove(oi);
                }
            }
            self.judge(
                old,
                new,
                changed,
                group,
                path,
                Named::Rule(Rule::BranchRemoved),
                format!("`{key}` branch {oi} of the old schema removed"),
                true,
                out,
            );
        }
    }

    /// A keyword judged whole: the old schema with the new keyword's value.
    fn keyword(
        &mut self,
        old: &Node<'_>,
        new: &Node<'_>,
        key: &str,
        group: &str,
        path: &str,
        out: &mut Vec<Change>,
    ) {
        let mut changed = old.value.clone().into_owned();
        if let Value::Object(map) = &mut changed {
            match new.child(key) {
                Some(value) => {
                    map.insert(key.to_string(), inline(&value));
                }
                None => {
                    map.remove(key);
                }
            }
        }
        let family = Named::Family(Family::of(key));
        let detail = format!("`{key}`: {} → {}", show(old.get(key)), show(new.get(key)));
        self.judge(old, new, changed, group, path, family, detail, true, out);
        // Point at the keyword itself on each side that has it.
        if let Some(change) = out.last_mut() {
            let at_key = format!("/{}", contract::escape_pointer_token(key));
            if old.get(key).is_some() {
                change.old_pointer = Some(at(old, &at_key));
            }
            if new.get(key).is_some() {
                change.new_pointer = Some(at(new, &at_key));
            }
        }
    }

    /// Judges the old schema against the old schema with one change applied.
    #[allow(clippy::too_many_arguments)]
    fn judge(
        &mut self,
        old: &Node<'_>,
        new: &Node<'_>,
        changed: Value,
        group: &str,
        path: &str,
        rule: Named,
        detail: String,
        shape: bool,
        out: &mut Vec<Change>,
    ) {
        let changed = old.with_value(changed);
        let w = Subset::new(self.tolerant)
            .reading_formats(self.formats)
            .check(&changed, old);
        let r = Subset::new(self.tolerant)
            .reading_formats(self.formats)
            .check(old, &changed);
        let verdict = |result: &Result<(), Box<crate::Break>>| {
            if result.is_ok() {
                Verdict::Compatible
            } else {
                Verdict::Breaking
            }
        };
        let (writer, reader) = (verdict(&w), verdict(&r));
        let rule = match rule {
            Named::Rule(rule) => rule,
            Named::Family(family) => Rule::Keyword(
                family,
                match (writer, reader) {
                    (Verdict::Breaking, Verdict::Compatible) => How::Widened,
                    (Verdict::Compatible, Verdict::Breaking) => How::Narrowed,
                    _ => How::Changed,
                },
            ),
        };
        let mut why = None;
        let mut example = None;
        for (result, accepted_by) in [(&w, "new"), (&r, "old")] {
            let Err(err) = result else { continue };
            let direction = if accepted_by == "new" {
                "a new writer's value fails an old reader"
            } else {
                "an old writer's value fails a new reader"
            };
            let inside = if err.path.is_empty() {
                String::new()
            } else {
                format!(" (at {}{})", path, err.path)
            };
            why.get_or_insert_with(|| format!("{direction}: {}{inside}", err.reason));
            if example.is_none() {
                if let Some(value) = &err.witness {
                    // Shown only when it separates the two schemas as they
                    // are, not merely the old one from the old one plus
                    // this change (another change may refuse it too).
                    let direction = if accepted_by == "new" {
                        crate::confirm::Direction::Writer
                    } else {
                        crate::confirm::Direction::Reader
                    };
                    if self.confirm.separates(direction, old, new, value) {
                        example = Some(Example {
                            path: path.to_string(),
                            value: value.clone(),
                            accepted_by: accepted_by.into(),
                        });
                    }
                }
            }
        }
        out.push(Change {
            group: group.to_string(),
            rule,
            old_pointer: Some(at(old, "")),
            new_pointer: Some(at(new, "")),
            writer,
            reader,
            api: Verdict::Compatible,
            detail,
            why,
            example,
            undecided: [&w, &r].into_iter().find_map(|result| {
                result
                    .as_ref()
                    .err()
                    .and_then(|err| err.undecided().map(str::to_string))
            }),
            shape,
        });
    }
}

fn has_ref(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(k, v)| k == "$ref" || has_ref(v)),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

fn at(node: &Node<'_>, suffix: &str) -> String {
    format!("{}#{}{suffix}", node.doc.rel, node.pointer)
}

fn names(map: &Map<String, Value>, key: &str) -> Vec<String> {
    map.get(key)
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

fn show(value: Option<&Value>) -> String {
    value.map_or_else(|| "(absent)".into(), crate::example::describe)
}

fn push_required(value: &mut Value, name: &str) {
    if let Value::Object(map) = value {
        let list = map
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = list {
            if !items.iter().any(|v| v == name) {
                items.push(Value::String(name.into()));
            }
        }
    }
}

fn remove_required(value: &mut Value, name: &str) {
    if let Some(Value::Array(items)) = value.get_mut("required") {
        items.retain(|v| v != name);
    }
}

fn set_property(value: &mut Value, name: &str, schema: Option<Value>) {
    if let Value::Object(map) = value {
        let props = map
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(props) = props {
            match schema {
                Some(schema) => {
                    props.insert(name.into(), schema);
                }
                None => {
                    props.remove(name);
                }
            }
        }
    }
}

fn edit_enum(value: &mut Value, item: &Value, add: bool) {
    if let Some(Value::Array(items)) = value.get_mut("enum") {
        if add {
            items.push(item.clone());
        } else {
            items.retain(|v| !equal(v, item));
        }
    }
}

/// A subschema with every `$ref` replaced by its target (depth-bounded), so
/// it means the same when placed into the other version's document.
pub fn inline(node: &Node<'_>) -> Value {
    inline_depth(node, 0)
}

fn inline_depth(node: &Node<'_>, depth: usize) -> Value {
    if depth > 16 {
        return Value::Bool(true);
    }
    let node = node.resolved();
    match &*node.value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                if key == "$ref" {
                    continue;
                }
                let child = match value {
                    Value::Object(_) => node
                        .child(key)
                        .map_or(value.clone(), |c| inline_depth(&c, depth + 1)),
                    Value::Array(items)
                        if matches!(
                            key.as_str(),
                            "allOf" | "anyOf" | "oneOf" | "prefixItems" | "items"
                        ) =>
                    {
                        Value::Array(
                            (0..items.len())
                                .map(|i| {
                                    node.child(key)
                                        .and_then(|l| l.child(&i.to_string()))
                                        .map_or(Value::Null, |c| inline_depth(&c, depth + 1))
                                })
                                .collect(),
                        )
                    }
                    _ => value.clone(),
                };
                out.insert(key.clone(), child);
            }
            // Maps of subschemas keyed by name.
            for key in [
                "properties",
                "patternProperties",
                "$defs",
                "definitions",
                "dependentSchemas",
            ] {
                if let Some(Value::Object(entries)) = map.get(key) {
                    let mut inner = Map::new();
                    for name in entries.keys() {
                        let value = node
                            .child(key)
                            .and_then(|m| m.child(name))
                            .map_or(Value::Bool(true), |c| inline_depth(&c, depth + 1));
                        inner.insert(name.clone(), value);
                    }
                    out.insert(key.to_string(), Value::Object(inner));
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}
