//! Finding every change between two schemas and judging each alone.
//!
//! The walk follows both schemas in step — references resolved, so moving a
//! definition or refactoring a `$ref` is no change; union branches matched by
//! their tag or their content and `allOf` entries by their content, so
//! reordering is no change. At each place that
//! differs it builds the old schema with only that change applied (a copy of
//! the old document in the [`Space`], the new part's references pointed at
//! the new version), and asks the prover both ways between the two.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};

use crate::prove::{Break, Compare, Prover};
use crate::space::{location, Patch, Place, Role, Space, Version};
use crate::vocab::{self, Handling};
use crate::{Change, Direction, Example, Family, How, Rule, Verdict, BOTH_WAYS};

pub struct Differ<'p, 's> {
    prover: &'p Prover<'s>,
    visited: HashSet<(usize, usize)>,
    /// How many places deep the walk is now.
    depth: usize,
    /// Documents not entered (the envelope's bodies: each method and event is
    /// compared on its own, and adding one is judged by the contract's rules).
    pub skip: HashSet<String>,
}

/// What a judged change is called: a fixed rule, or a keyword family whose
/// direction the verdicts decide (`bound.narrowed`, `bound.widened`, ...).
enum Named {
    Rule(Rule),
    Family(Family),
}

/// Keywords whose subschemas the walk enters instead of judging them whole.
const NESTED: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
];

/// How the changed schema is made from the old one, given the new one in the same view.
type Edit<'e, 's> = dyn Fn(&Value, &Place<'s>) -> Value + 'e;

/// The place a change is found at, in both versions, and how it is reported.
#[derive(Clone, Copy)]
struct Here<'a, 's> {
    old: &'a Place<'s>,
    new: &'a Place<'s>,
    group: &'a str,
    path: &'a str,
}

/// One judged change, before it becomes a [`Change`].
struct Judged {
    rule: Named,
    detail: String,
    /// Where in the place each side's keyword is (`/enum/3`, `/required`),
    /// for reports to point at its line; empty for the place itself.
    old_at: String,
    new_at: String,
}

impl Judged {
    fn new(rule: Named, detail: String) -> Self {
        Judged {
            rule,
            detail,
            old_at: String::new(),
            new_at: String::new(),
        }
    }

    /// Points each side at a keyword inside the place.
    fn at(mut self, old_at: String, new_at: String) -> Self {
        self.old_at = old_at;
        self.new_at = new_at;
        self
    }
}

/// The fields a change of `properties` adds and removes.
struct Fields {
    added: Vec<String>,
    removed: Vec<String>,
}

/// Old and new union branches: paired, only new, only old (by index).
struct Pairing {
    pairs: Vec<(usize, usize)>,
    added: Vec<usize>,
    removed: Vec<usize>,
}

/// One change's verdicts: W and R.
struct Verdicts {
    writer: Result<(), Break>,
    reader: Result<(), Break>,
}

/// A place in each view of each version.
struct Views<'a, 's> {
    old_w: &'a Place<'s>,
    new_w: &'a Place<'s>,
    old_r: &'a Place<'s>,
    new_r: &'a Place<'s>,
}

impl<'p, 's> Differ<'p, 's> {
    pub fn new(prover: &'p Prover<'s>) -> Self {
        Self {
            prover,
            visited: HashSet::new(),
            depth: 0,
            skip: HashSet::new(),
        }
    }

    fn space(&self) -> &'s Space<'s> {
        self.prover.space()
    }

    fn rel(&self, place: &Place<'_>) -> String {
        self.space()
            .doc(place.doc)
            .map_or_else(String::new, |d| d.rel.clone())
    }

    pub fn diff(
        &mut self,
        old: &Place<'s>,
        new: &Place<'s>,
        group: &str,
        path: &str,
        out: &mut Vec<Change>,
    ) {
        let space = self.space();
        // References are followed in step: where one side stops at a `$ref`
        // with assertions beside it and the other does not, the two are
        // compared as written, so the reference meets the reference (the
        // other side's target against the reference and its siblings would
        // read as every field of the target removed).
        let stops = |place: &Place<'s>| place.value.get("$ref").is_some();
        let (old, new) = match (space.follow(old), space.follow(new)) {
            (Ok(o), Ok(n)) if stops(&o) == stops(&n) => {
                // What stands beside a reference followed here is compared
                // here: past it, only the target is.
                let moved =
                    |from: &Place<'s>, to: &Place<'s>| address(from.value) != address(to.value);
                if moved(old, &o) || moved(new, &n) {
                    let site = Here {
                        old,
                        new,
                        group,
                        path,
                    };
                    self.inert(&site, out);
                }
                (o, n)
            }
            _ => (old.clone(), new.clone()),
        };
        if self.skip.contains(&self.rel(&old)) || self.skip.contains(&self.rel(&new)) {
            return;
        }
        if !self
            .visited
            .insert((address(old.value), address(new.value)))
        {
            return;
        }
        // Changes inside a shared type are reported once, under the type;
        // a reference moved to another type is a change where it was moved.
        let group = match (space.doc(old.doc), space.doc(new.doc)) {
            (Some(doc), Some(other))
                if old.pointer.is_empty()
                    && doc.kind == contract::DocKind::Type
                    && doc.rel == other.rel =>
            {
                doc.name.clone()
            }
            _ => group.to_string(),
        };
        let here = Here {
            old: &old,
            new: &new,
            group: &group,
            path,
        };
        // The walk recurses, through references too. Below this depth it
        // lists no more changes: the whole-schema verdicts, which the prover
        // bounds the same way, still judge what lies below.
        if self.depth >= vocab::MAX_NESTING {
            return;
        }
        self.depth += 1;
        self.schema(&here, out);
        self.depth -= 1;
    }

    /// The changes between two schemas at one place.
    fn schema(&mut self, here: &Here<'_, 's>, out: &mut Vec<Change>) {
        let (Some(o), Some(n)) = (here.old.value.as_object(), here.new.value.as_object()) else {
            if here.old.value != here.new.value {
                let edit = |_: &Value, new: &Place<'s>| self.absolute(new);
                let judged = Judged::new(
                    Named::Rule(Rule::SchemaReplaced),
                    "the schema was replaced".into(),
                );
                self.judge(here, &edit, judged, out);
            }
            return;
        };
        let draft = self.space().draft(here.old);
        self.inert(here, out);
        // Definitions are compared where they are used, not as text; what
        // constrains nothing was compared just now.
        let mut keys: Vec<&String> = o
            .keys()
            .chain(n.keys())
            .filter(|k| !vocab::handling(draft, k).constrains_nothing())
            .collect();
        keys.sort();
        keys.dedup();
        // Looked up in the other side's map, not a list of its names made
        // again for each name: an object of many properties is compared in
        // one pass.
        let declares = |map: &Map<String, Value>, name: &str| {
            map.get("properties")
                .and_then(Value::as_object)
                .is_some_and(|properties| properties.contains_key(name))
        };
        let fields = Fields {
            added: names(n, "properties")
                .into_iter()
                .filter(|p| !declares(o, p))
                .collect(),
            removed: names(o, "properties")
                .into_iter()
                .filter(|p| !declares(n, p))
                .collect(),
        };
        for key in keys {
            let (ov, nv) = (o.get(key.as_str()), n.get(key.as_str()));
            // `const` and `enum` hold values, which JSON Schema compares as
            // numbers: `1` and `1.0` are one value.
            let same_values = |a: &Value, b: &Value| {
                a == b
                    || matches!(key.as_str(), "const" | "enum")
                        && crate::numbers::canonical(a) == crate::numbers::canonical(b)
            };
            let unchanged = ov.zip(nv).is_some_and(|(a, b)| {
                same_values(a, b)
                    && (!has_ref(a)
                        || self
                            .prover
                            .same_under(here.old, here.new, key, Compare::Written))
            });
            if unchanged || self.reordered(here, key) {
                continue;
            }
            // Entered as usual where the walk enters them anyway.
            let entered = key == "properties"
                || NESTED.contains(&key.as_str())
                || ov.is_some_and(Value::is_array)
                    && matches!(key.as_str(), "prefixItems" | "items");
            if !entered
                && self
                    .prover
                    .same_under(here.old, here.new, key, Compare::Constraints)
            {
                self.under(here, key, out);
            } else {
                self.key(here, key, &fields, out);
            }
        }
    }

    /// The subschemas under `key` (one that applies them to the value
    /// itself: `allOf`, `not`, `if`, a `$ref` beside assertions, ...), which
    /// accept the same values on both sides, entered in step: what differs
    /// below constrains nothing, and is reported where it stands.
    fn under(&mut self, here: &Here<'_, 's>, key: &str, out: &mut Vec<Change>) {
        let space = self.space();
        let path = here.path;
        if key == "$ref" {
            let target = |place: &Place<'s>| {
                let reference = place.value.get("$ref").and_then(Value::as_str)?;
                space.resolve(place, reference).ok()
            };
            if let (Some(ot), Some(nt)) = (target(here.old), target(here.new)) {
                self.diff(&ot, &nt, here.group, path, out);
            }
            return;
        }
        let (Some(ov), Some(nv)) = (here.old.value.get(key), here.new.value.get(key)) else {
            return;
        };
        let children = |place: &Place<'s>, value: &'s Value| {
            vocab::children(space.draft(place), key, value)
                .into_iter()
                .map(|(suffix, value)| Place {
                    doc: place.doc,
                    pointer: format!("{}{suffix}", place.pointer),
                    value,
                })
                .collect::<Vec<_>>()
        };
        for (oc, nc) in children(here.old, ov)
            .iter()
            .zip(children(here.new, nv).iter())
        {
            self.diff(oc, nc, here.group, path, out);
        }
    }

    /// [`Differ::inert`] at every schema position of `old` that `new` has
    /// at the same pointer: for a file the walk does not enter (an envelope
    /// body, compared part by part).
    pub fn inert_in_step(
        &self,
        old: &Place<'s>,
        new: &Place<'s>,
        group: &str,
        out: &mut Vec<Change>,
    ) {
        let Ok(positions) = vocab::positions(old.value, &old.pointer, self.space().draft(old))
        else {
            return;
        };
        for position in positions {
            let Some(relative) = position.pointer.strip_prefix(old.pointer.as_str()) else {
                continue;
            };
            let Some(value) = new.value.pointer(relative) else {
                continue;
            };
            let (old, new) = (
                Place {
                    doc: old.doc,
                    pointer: position.pointer.clone(),
                    value: position.value,
                },
                Place {
                    doc: new.doc,
                    pointer: format!("{}{relative}", new.pointer),
                    value,
                },
            );
            let here = Here {
                old: &old,
                new: &new,
                group,
                path: "",
            };
            self.inert(&here, out);
        }
    }

    /// [`Differ::inert`] at one pair of places, and nothing below them.
    pub fn inert_here(&self, old: &Place<'s>, new: &Place<'s>, group: &str, out: &mut Vec<Change>) {
        let here = Here {
            old,
            new,
            group,
            path: "",
        };
        self.inert(&here, out);
    }

    /// The keywords here that constrain no value: annotations changed (one
    /// change, a patch), and each keyword that says what an accepted value
    /// means (`default`, the `content…` ones) and differs: the values that
    /// pass are the same, what one of them stands for is not, so both
    /// directions break.
    fn inert(&self, here: &Here<'_, 's>, out: &mut Vec<Change>) {
        let (Some(o), Some(n)) = (here.old.value.as_object(), here.new.value.as_object()) else {
            return;
        };
        let draft = self.space().draft(here.old);
        let mut keys: Vec<&String> = o.keys().chain(n.keys()).collect();
        keys.sort();
        keys.dedup();
        let changed = |k: &&String| o.get(k.as_str()) != n.get(k.as_str());
        // Definitions are compared where they are used, not as text; so
        // are identifiers and anchors, whose change moves what a reference
        // (a dynamic one, through the scope a value takes) resolves to.
        let container = |k: &str| {
            matches!(
                k,
                "$defs"
                    | "definitions"
                    | "$id"
                    | "id"
                    | "$schema"
                    | "$anchor"
                    | "$dynamicAnchor"
                    | "$recursiveAnchor"
            )
        };
        let annotation = |k: &str| {
            matches!(
                vocab::handling(draft, k),
                Handling::Annotation | Handling::Structure
            ) && !container(k)
        };
        if keys.iter().filter(|k| changed(k)).any(|k| annotation(k)) {
            out.push(Change {
                group: here.group.to_string(),
                rule: Rule::AnnotationChanged,
                old_pointer: Some(self.at(here.old, "")),
                new_pointer: Some(self.at(here.new, "")),
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
        for key in keys.into_iter().filter(|k| changed(k)) {
            if let Handling::Meaning(what) = vocab::handling(draft, key) {
                let at = |place: &Place<'s>| self.at(place, &keyword_at(place.value, key, None));
                let sides = [o.get(key.as_str()), n.get(key.as_str())];
                out.push(meaning_changed(
                    here,
                    [at(here.old), at(here.new)],
                    (key, what),
                    "",
                    sides,
                ));
            }
        }
    }

    /// Whether `key` is `allOf` with the same entries in another order (the
    /// same conjunction), each entry the same schema as the one it moved to.
    fn reordered(&self, here: &Here<'_, 's>, key: &str) -> bool {
        let (Some(Value::Array(old)), Some(Value::Array(new))) =
            (here.old.value.get(key), here.new.value.get(key))
        else {
            return false;
        };
        if key != "allOf" || old.len() != new.len() {
            return false;
        }
        let mut taken = vec![false; new.len()];
        for (i, entry) in old.iter().enumerate() {
            let Some(j) = new
                .iter()
                .zip(&taken)
                .position(|(other, used)| !used && other == entry)
            else {
                return false;
            };
            let (Some(a), Some(b)) = (
                here.old.at_path(&[key, &i.to_string()]),
                here.new.at_path(&[key, &j.to_string()]),
            ) else {
                return false;
            };
            if has_ref(entry) && !self.prover.same(&a, &b) {
                return false;
            }
            if let Some(used) = taken.get_mut(j) {
                *used = true;
            }
        }
        true
    }

    /// A keyword that differs: entered, split into changes, or judged whole.
    fn key(&mut self, here: &Here<'_, 's>, key: &str, fields: &Fields, out: &mut Vec<Change>) {
        let (ov, nv) = (here.old.value.get(key), here.new.value.get(key));
        let both = |is: fn(&Value) -> bool| ov.is_some_and(is) && nv.is_some_and(is);
        match key {
            "properties" => self.properties(here, fields, out),
            "required" => self.required(here, fields, out),
            "enum" if both(Value::is_array) => self.enumeration(here, out),
            "oneOf" | "anyOf" if both(Value::is_array) => self.branches(here, key, out),
            k if NESTED.contains(&k) && both(Value::is_object) => {
                if let (Some(oc), Some(nc)) = (here.old.at(k), here.new.at(k)) {
                    self.diff(&oc, &nc, here.group, &format!("{}/*", here.path), out);
                }
            }
            "prefixItems" | "items" if both(Value::is_array) => self.tuple(here, key, out),
            _ => self.keyword(here, key, out),
        }
    }

    /// A list of item schemas: each position entered, a change of length judged whole.
    fn tuple(&mut self, here: &Here<'_, 's>, key: &str, out: &mut Vec<Change>) {
        let length = |p: &Place<'s>| {
            p.value
                .get(key)
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        };
        let (la, lb) = (length(here.old), length(here.new));
        for index in 0..la.min(lb) {
            let i = index.to_string();
            if let (Some(oc), Some(nc)) =
                (here.old.at_path(&[key, &i]), here.new.at_path(&[key, &i]))
            {
                self.diff(&oc, &nc, here.group, &format!("{}/{i}", here.path), out);
            }
        }
        if la != lb {
            self.keyword(here, key, out);
        }
    }

    fn properties(&mut self, here: &Here<'_, 's>, fields: &Fields, out: &mut Vec<Change>) {
        for name in &fields.added {
            let required =
                contract::string_list(here.new.value.get("required")).contains(&name.as_str());
            let edit = |old_value: &Value, new: &Place<'s>| {
                let mut changed = old_value.clone();
                let schema = new
                    .at_path(&["properties", name])
                    .map_or(Value::Bool(true), |p| self.absolute(&p));
                set_property(&mut changed, name, Some(schema));
                if required {
                    push_required(&mut changed, name);
                }
                changed
            };
            let detail = format!(
                "{} field {} added",
                if required { "required" } else { "optional" },
                contract::quoted(name)
            );
            self.judge(
                here,
                &edit,
                // Point at the field itself, where a reviewer looks.
                Judged::new(Named::Rule(Rule::PropertyAdded), detail).at(
                    "/properties".into(),
                    format!("/properties/{}", contract::escape_pointer_token(name)),
                ),
                out,
            );
        }
        for name in &fields.removed {
            let edit = |old_value: &Value, _: &Place<'s>| {
                let mut changed = old_value.clone();
                set_property(&mut changed, name, None);
                remove_required(&mut changed, name);
                changed
            };
            let detail = format!("field {} removed", contract::quoted(name));
            self.judge(
                here,
                &edit,
                Judged::new(Named::Rule(Rule::PropertyRemoved), detail).at(
                    format!("/properties/{}", contract::escape_pointer_token(name)),
                    "/properties".into(),
                ),
                out,
            );
        }
        for name in names(
            here.old.value.as_object().unwrap_or(&Map::new()),
            "properties",
        ) {
            if fields.added.contains(&name) || fields.removed.contains(&name) {
                continue;
            }
            if let (Some(oc), Some(nc)) = (
                here.old.at_path(&["properties", &name]),
                here.new.at_path(&["properties", &name]),
            ) {
                self.diff(
                    &oc,
                    &nc,
                    here.group,
                    &format!("{}/{}", here.path, contract::escape_pointer_token(&name)),
                    out,
                );
            }
        }
    }

    fn required(&mut self, here: &Here<'_, 's>, fields: &Fields, out: &mut Vec<Change>) {
        let was = contract::string_list(here.old.value.get("required"));
        let now = contract::string_list(here.new.value.get("required"));
        let (was_set, now_set): (HashSet<&str>, HashSet<&str>) =
            (was.iter().copied().collect(), now.iter().copied().collect());
        let (added, removed): (HashSet<&str>, HashSet<&str>) = (
            fields.added.iter().map(String::as_str).collect(),
            fields.removed.iter().map(String::as_str).collect(),
        );
        for name in now
            .iter()
            .filter(|r| !was_set.contains(*r) && !added.contains(*r))
        {
            let edit = |old_value: &Value, _: &Place<'s>| {
                let mut changed = old_value.clone();
                push_required(&mut changed, name);
                changed
            };
            let detail = format!("{} became required", contract::quoted(name));
            self.judge(
                here,
                &edit,
                Judged::new(Named::Rule(Rule::RequiredAdded), detail).at(
                    keyword_at(here.old.value, "required", None),
                    keyword_at(
                        here.new.value,
                        "required",
                        now.iter().position(|r| r == name),
                    ),
                ),
                out,
            );
        }
        for name in was
            .iter()
            .filter(|r| !now_set.contains(*r) && !removed.contains(*r))
        {
            let edit = |old_value: &Value, _: &Place<'s>| {
                let mut changed = old_value.clone();
                remove_required(&mut changed, name);
                changed
            };
            let detail = format!("{} became optional", contract::quoted(name));
            self.judge(
                here,
                &edit,
                Judged::new(Named::Rule(Rule::RequiredRemoved), detail).at(
                    keyword_at(
                        here.old.value,
                        "required",
                        was.iter().position(|r| r == name),
                    ),
                    keyword_at(here.new.value, "required", None),
                ),
                out,
            );
        }
    }

    fn enumeration(&mut self, here: &Here<'_, 's>, out: &mut Vec<Change>) {
        let list = |p: &Place<'s>| {
            // Called only when both sides have an `enum` array.
            p.value
                .get("enum")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let (was, now) = (list(here.old), list(here.new));
        // Values compared as JSON Schema compares them: `1` and `1.0` are one.
        let canonical = |values: &[Value]| -> Vec<Value> {
            values.iter().map(crate::numbers::canonical).collect()
        };
        let (was_c, now_c) = (canonical(&was), canonical(&now));
        // Each list indexed once by a hash equal values share, each hit
        // confirmed with `==`: a list of many values is compared in one pass
        // over each, not one pass over the other for every value.
        let (was_at, now_at) = (Positions::of(&was_c), Positions::of(&now_c));
        for (value, canon) in now
            .iter()
            .zip(&now_c)
            .filter(|(_, c)| was_at.find(&was_c, c).is_none())
        {
            let edit = |old_value: &Value, _: &Place<'s>| {
                let mut changed = old_value.clone();
                if let Some(Value::Array(items)) = changed.get_mut("enum") {
                    items.push(value.clone());
                }
                changed
            };
            let detail = format!("enum value {value} added");
            self.judge(
                here,
                &edit,
                Judged::new(Named::Rule(Rule::EnumValueAdded), detail).at(
                    keyword_at(here.old.value, "enum", None),
                    keyword_at(here.new.value, "enum", now_at.find(&now_c, canon)),
                ),
                out,
            );
        }
        for (value, canon) in was
            .iter()
            .zip(&was_c)
            .filter(|(_, c)| now_at.find(&now_c, c).is_none())
        {
            let edit = |old_value: &Value, _: &Place<'s>| {
                let mut changed = old_value.clone();
                if let Some(Value::Array(items)) = changed.get_mut("enum") {
                    items.retain(|v| crate::numbers::canonical(v) != *canon);
                }
                changed
            };
            let detail = format!("enum value {value} removed");
            self.judge(
                here,
                &edit,
                Judged::new(Named::Rule(Rule::EnumValueRemoved), detail).at(
                    keyword_at(here.old.value, "enum", was_at.find(&was_c, canon)),
                    keyword_at(here.new.value, "enum", None),
                ),
                out,
            );
        }
    }

    /// Union branches, matched by tag, then by equal content, then by
    /// containment; the rest added or removed.
    fn branches(&mut self, here: &Here<'_, 's>, key: &str, out: &mut Vec<Change>) {
        let list = |p: &Place<'s>| -> Vec<Place<'s>> {
            let count = p
                .value
                .get(key)
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            (0..count)
                .filter_map(|i| p.at_path(&[key, &i.to_string()]))
                .collect()
        };
        let (olds, news) = (list(here.old), list(here.new));
        let pairing = self.pair(&olds, &news);
        for (oi, ni) in pairing.pairs {
            if let (Some(o), Some(n)) = (olds.get(oi), news.get(ni)) {
                self.diff(o, n, here.group, here.path, out);
            }
        }
        for ni in pairing.added {
            let edit = |old_value: &Value, new: &Place<'s>| {
                let mut changed = old_value.clone();
                let branch = new
                    .at_path(&[key, &ni.to_string()])
                    .map_or(Value::Bool(true), |b| self.absolute(&b));
                if let Some(Value::Array(items)) = changed.get_mut(key) {
                    items.push(branch);
                }
                changed
            };
            let detail = format!("`{key}` branch {ni} of the new schema added");
            self.judge(
                here,
                &edit,
                Judged::new(Named::Rule(Rule::BranchAdded), detail).at(
                    keyword_at(here.old.value, key, None),
                    format!("/{key}/{ni}"),
                ),
                out,
            );
        }
        for oi in pairing.removed {
            let edit = |old_value: &Value, _: &Place<'s>| {
                let mut changed = old_value.clone();
                if let Some(Value::Array(items)) = changed.get_mut(key) {
                    if oi < items.len() {
                        items.remove(oi);
                    }
                }
                changed
            };
            let detail = format!("`{key}` branch {oi} of the old schema removed");
            self.judge(
                here,
                &edit,
                Judged::new(Named::Rule(Rule::BranchRemoved), detail).at(
                    format!("/{key}/{oi}"),
                    keyword_at(here.new.value, key, None),
                ),
                out,
            );
        }
    }

    /// Old branches paired with new ones: by a tag `const`, then by equal
    /// content, then by containment either way (a branch that only widened
    /// or narrowed).
    fn pair(&self, olds: &[Place<'s>], news: &[Place<'s>]) -> Pairing {
        let tag_of = |p: &Place<'s>| -> Option<String> {
            p.value
                .get("properties")
                .and_then(Value::as_object)?
                .iter()
                .find_map(|(name, s)| s.get("const").map(|c| format!("{name}={c}")))
        };
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut free_new: Vec<usize> = (0..news.len()).collect();
        let mut free_old = Vec::new();
        for (oi, ov) in olds.iter().enumerate() {
            let by_tag = tag_of(ov).and_then(|t| {
                free_new
                    .iter()
                    .position(|ni| news.get(*ni).and_then(tag_of).as_ref() == Some(&t))
            });
            let by_content = || {
                free_new
                    .iter()
                    .position(|ni| news.get(*ni).is_some_and(|nv| nv.value == ov.value))
            };
            match by_tag.or_else(by_content) {
                Some(position) => pairs.push((oi, free_new.remove(position))),
                None => free_old.push(oi),
            }
        }
        let mut removed = Vec::new();
        for oi in free_old {
            let found = free_new
                .iter()
                .position(|ni| match (olds.get(oi), news.get(*ni)) {
                    (Some(o), Some(n)) => {
                        self.prover.contains(o, n).is_ok() || self.prover.contains(n, o).is_ok()
                    }
                    _ => false,
                });
            match found {
                Some(position) => pairs.push((oi, free_new.remove(position))),
                None => removed.push(oi),
            }
        }
        Pairing {
            pairs,
            added: free_new,
            removed,
        }
    }

    /// A keyword judged whole: the old schema with the new keyword's value.
    fn keyword(&mut self, here: &Here<'_, 's>, key: &str, out: &mut Vec<Change>) {
        let edit = |old_value: &Value, new: &Place<'s>| {
            let mut changed = old_value.clone();
            if let Value::Object(map) = &mut changed {
                match new.at(key) {
                    Some(value) => {
                        map.insert(key.to_string(), self.absolute(&value));
                    }
                    None => {
                        map.remove(key);
                    }
                }
            }
            changed
        };
        // Shown as the files spell them, not as the views registered them.
        let space = self.space();
        let written = |place: &Place<'s>| space.written_keyword(place, key);
        let (old_value, new_value) = (written(here.old), written(here.new));
        let (old_value, new_value) = (old_value.as_ref(), new_value.as_ref());
        // Two long values that start alike would read as one: name where
        // they first differ.
        let detail = match (old_value, new_value) {
            (Some(old), Some(new)) if old == new => format!(
                "`{key}`: {}, written the same, but a schema it refers to changed or cannot be compared",
                show(Some(old))
            ),
            (Some(old), Some(new)) => match first_difference(old, new, String::new()) {
                Some((at, before, after)) if !at.is_empty() => format!(
                    "`{key}`, first different at {at}: {} → {}",
                    show(before),
                    show(after)
                ),
                _ => format!("`{key}`: {} → {}", show(Some(old)), show(Some(new))),
            },
            _ => format!("`{key}`: {} → {}", show(old_value), show(new_value)),
        };
        self.judge(
            here,
            &edit,
            // Point at the keyword itself on each side that has it.
            Judged::new(Named::Family(Family::of(key)), detail).at(
                keyword_at(here.old.value, key, None),
                keyword_at(here.new.value, key, None),
            ),
            out,
        );
        // Judged whole, its subschemas are not entered: what says what a
        // value means there is compared here, by where it stands.
        let (was, is) = (
            self.meanings_under(here.old, key),
            self.meanings_under(here.new, key),
        );
        let value_at = |side: &BTreeMap<String, Meaning<'s>>, at: &str| side.get(at).map(|m| m.2);
        if let Some((at, &(name, what, _))) = was
            .iter()
            .chain(&is)
            .find(|(at, _)| value_at(&was, at) != value_at(&is, at))
        {
            let place = |p: &Place<'s>| self.at(p, &keyword_at(p.value, key, None));
            let sides = [value_at(&was, at), value_at(&is, at)];
            let inside = format!(" at {at}, below `{key}` (judged whole)");
            out.push(meaning_changed(
                here,
                [place(here.old), place(here.new)],
                (name, what),
                &inside,
                sides,
            ));
        }
    }

    /// Every keyword that says what a value means under `key` at `place`,
    /// by the pointer it stands at (below the keyword) and its name.
    fn meanings_under(&self, place: &Place<'s>, key: &str) -> BTreeMap<String, Meaning<'s>> {
        let mut out = BTreeMap::new();
        let Some(value) = place.value.get(key) else {
            return out;
        };
        let draft = self.space().draft(place);
        for (suffix, child) in vocab::children(draft, key, value) {
            let Ok(positions) = vocab::positions(child, &suffix, draft) else {
                continue;
            };
            for position in positions {
                let Some(map) = position.value.as_object() else {
                    continue;
                };
                for (name, value) in map {
                    if let Handling::Meaning(what) = vocab::handling(draft, name) {
                        let at = format!(
                            "{}/{}",
                            position.pointer,
                            contract::escape_pointer_token(name)
                        );
                        out.insert(at, (name.as_str(), what, value));
                    }
                }
            }
        }
        out
    }

    /// `value` at `place`, its references made absolute (to the version and
    /// view it came from), so it means the same wherever it is put.
    fn absolute(&self, place: &Place<'s>) -> Value {
        let space = self.space();
        let mut value = place.value.clone();
        let draft = space.draft(place);
        let Ok(positions) = vocab::positions(place.value, "", draft) else {
            return value;
        };
        for position in positions {
            let Some(reference) = position.value.get("$ref").and_then(Value::as_str) else {
                continue;
            };
            let here = Place {
                doc: place.doc,
                pointer: format!("{}{}", place.pointer, position.pointer),
                value: position.value,
            };
            let Ok(target) = space.resolve(&here, reference) else {
                continue; // left as written: the derived document will not resolve it, and says so
            };
            let Some(doc) = space.doc(target.doc) else {
                continue;
            };
            if let Some(Value::Object(map)) = value.pointer_mut(&position.pointer) {
                map.insert(
                    "$ref".into(),
                    Value::String(location(&doc.uri, &target.pointer)),
                );
            }
        }
        value
    }

    /// Judges the old schema against the old schema with one change applied.
    fn judge(
        &self,
        here: &Here<'_, 's>,
        edit: &Edit<'_, 's>,
        judged: Judged,
        out: &mut Vec<Change>,
    ) {
        let space = self.space();
        // The same place in each view of each version.
        let view = |place: &Place<'s>, version: Version, role: Role| -> Option<Place<'s>> {
            let rel = space.doc(place.doc)?.rel.clone();
            let doc = space.find(version, role, &rel)?;
            space.place(doc, &place.pointer)
        };
        let (Some(old_w), Some(old_r), Some(new_w), Some(new_r)) = (
            view(here.old, Version::Old, Role::Written),
            view(here.old, Version::Old, Role::Read),
            view(here.new, Version::New, Role::Written),
            view(here.new, Version::New, Role::Read),
        ) else {
            return;
        };
        let views = Views {
            old_w: &old_w,
            new_w: &new_w,
            old_r: &old_r,
            new_r: &new_r,
        };
        // A change is judged on a copy of the old document with the new
        // schema put in, which would shed an obstacle of the new side's
        // document (a stand-in for a file it lacks, say): there, the two
        // places as they are, which the obstacle leaves undecided.
        // And where no such copy can be made (one that would share an
        // identifier with its original).
        let as_they_are = |out: &mut Vec<Change>, judged: Judged| {
            let verdicts = Verdicts {
                writer: self.prover.contains(&new_w, &old_r).map_err(|b| *b),
                reader: self.prover.contains(&old_w, &new_r).map_err(|b| *b),
            };
            out.push(self.change(here, &views, verdicts, judged));
        };
        let stopped =
            |place: &Place<'s>| space.doc(place.doc).is_some_and(|d| d.obstacle.is_some());
        if [&old_w, &old_r, &new_w, &new_r].into_iter().any(stopped) {
            return as_they_are(out, judged);
        }
        let next = space.next_id();
        let patches = vec![
            Patch {
                doc: old_w.doc,
                pointer: old_w.pointer.clone(),
                value: edit(old_w.value, &new_w),
            },
            Patch {
                doc: old_r.doc,
                pointer: old_r.pointer.clone(),
                value: edit(old_r.value, &new_r),
            },
        ];
        let Ok(derived) = space.derive(patches) else {
            return as_they_are(out, judged);
        };
        let prover = Prover::new(&derived);
        let (Some(changed_w), Some(changed_r), Some(ow), Some(or)) = (
            derived.place(next, &old_w.pointer),
            derived.place(next + 1, &old_r.pointer),
            derived.place(old_w.doc, &old_w.pointer),
            derived.place(old_r.doc, &old_r.pointer),
        ) else {
            return;
        };
        let verdicts = Verdicts {
            writer: prover.contains(&changed_w, &or).map_err(|b| *b),
            reader: prover.contains(&ow, &changed_r).map_err(|b| *b),
        };
        out.push(self.change(here, &views, verdicts, judged));
    }

    fn change(
        &self,
        here: &Here<'_, 's>,
        views: &Views<'_, 's>,
        verdicts: Verdicts,
        judged: Judged,
    ) -> Change {
        let Verdicts {
            writer: w,
            reader: r,
        } = verdicts;
        let verdict = |result: &Result<(), Break>| {
            if result.is_ok() {
                Verdict::Compatible
            } else {
                Verdict::Breaking
            }
        };
        let (writer, reader) = (verdict(&w), verdict(&r));
        let rule = match judged.rule {
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
        let (why, example) = self.explain(here, views, [&w, &r]);
        let undecided = [&w, &r].into_iter().find_map(|result| {
            result
                .as_ref()
                .err()
                .and_then(|err| err.undecided().map(str::to_string))
        });
        Change {
            group: here.group.to_string(),
            rule,
            old_pointer: Some(self.at(views.old_w, &judged.old_at)),
            new_pointer: Some(self.at(views.new_w, &judged.new_at)),
            writer,
            reader,
            api: Verdict::Compatible,
            detail: judged.detail,
            why,
            example,
            undecided,
            shape: true,
        }
    }

    /// Why a change breaks (the first direction that does, in words) and a
    /// value that shows it, when the value separates the two schemas as
    /// they stand.
    fn explain(
        &self,
        here: &Here<'_, 's>,
        views: &Views<'_, 's>,
        [w, r]: [&Result<(), Break>; 2],
    ) -> (Option<String>, Option<Example>) {
        let space = self.space();
        let mut why = None;
        let mut example = None;
        for (result, direction) in [(w, Direction::Writer), (r, Direction::Reader)] {
            let Err(err) = result else { continue };
            let accepted_by = direction.accepted_by();
            let inside = if err.path.is_empty() {
                String::new()
            } else {
                format!(" (at {}{})", here.path, err.path)
            };
            // Each way's reason, W's first, or one for both when they are
            // the same: a whole that settles one way leaves the other's
            // (`reason_without`).
            let reason = format!("{}{inside}", err.reason);
            why = Some(match why {
                Some(first) if first == format!("{}: {reason}", Direction::Writer.fails()) => {
                    format!("{BOTH_WAYS}{reason}")
                }
                Some(first) => format!("{first}; {}: {reason}", direction.fails()),
                None => format!("{}: {reason}", direction.fails()),
            });
            if example.is_none() {
                if let Some(value) = &err.witness {
                    // Shown only when it separates the two schemas as they
                    // are, not merely the old one from the old one plus this
                    // change (another change may refuse it too).
                    let (writes, reads) = if accepted_by == "new" {
                        (views.new_w, views.old_r)
                    } else {
                        (views.old_w, views.new_r)
                    };
                    if self.prover.may_validate(writes)
                        && self.prover.may_validate(reads)
                        && space.accepts(writes, value) == Some(true)
                        && space.accepts(reads, value) == Some(false)
                    {
                        example = Some(Example {
                            path: here.path.to_string(),
                            value: value.clone(),
                            accepted_by: accepted_by.into(),
                        });
                    }
                }
            }
        }
        (why, example)
    }

    fn at(&self, place: &Place<'_>, suffix: &str) -> String {
        let pointer = format!("{}{suffix}", place.pointer);
        let shown = self.space().shown_pointer(place.doc, &pointer);
        format!("{}#{shown}", crate::file_shown(&self.rel(place)))
    }
}

/// A keyword that says what a value means: its name, what it says, its value.
type Meaning<'s> = (&'s str, &'static str, &'s Value);

/// A [`Rule::MeaningChanged`] change: `name` (saying `what`) is `[old,
/// new]` on the two sides, `at` the pointers, `inside` where below them.
fn meaning_changed(
    here: &Here<'_, '_>,
    [old_at, new_at]: [String; 2],
    (name, what): (&str, &str),
    inside: &str,
    [old, new]: [Option<&Value>; 2],
) -> Change {
    let why = match (old, new) {
        (Some(_), Some(_)) => format!(
            "`{name}` ({what}){inside} is {} to an old side and {} to a new one: a value both accept is read as two things",
            show(old),
            show(new)
        ),
        (None, _) => format!(
            "cannot decide: `{name}` ({what}){inside} is new; what an old side meant there the old schema does not say"
        ),
        (_, None) => format!(
            "cannot decide: `{name}` ({what}){inside} is gone; what a new side means there the new schema does not say"
        ),
    };
    Change {
        group: here.group.to_string(),
        rule: Rule::MeaningChanged,
        old_pointer: Some(old_at),
        new_pointer: Some(new_at),
        writer: Verdict::Breaking,
        reader: Verdict::Breaking,
        api: Verdict::Compatible,
        detail: format!("`{name}`{inside}: {} → {}", show(old), show(new)),
        why: Some(why),
        example: None,
        undecided: (old.is_none() || new.is_none()).then(|| name.to_string()),
        shape: true,
    }
}

/// The pointer, inside a schema, of its `key` keyword (and the item at
/// `index` of it): empty when the schema has no such keyword, so a report
/// points at the schema itself.
fn keyword_at(schema: &Value, key: &str, index: Option<usize>) -> String {
    if schema.get(key).is_none() {
        return String::new();
    }
    let at = format!("/{}", contract::escape_pointer_token(key));
    match index {
        Some(index) => format!("{at}/{index}"),
        None => at,
    }
}

fn has_ref(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.contains_key("$ref") {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

fn address(value: &Value) -> usize {
    std::ptr::from_ref(value) as usize
}

/// Where each value of a list stands, by a hash equal values share.
struct Positions(HashMap<u64, Vec<usize>>);

impl Positions {
    fn of(values: &[Value]) -> Self {
        let mut at: HashMap<u64, Vec<usize>> = HashMap::with_capacity(values.len());
        for (index, value) in values.iter().enumerate() {
            at.entry(value_hash(value)).or_default().push(index);
        }
        Positions(at)
    }

    /// The first place of `value` in `values` (the list indexed).
    fn find(&self, values: &[Value], value: &Value) -> Option<usize> {
        self.0
            .get(&value_hash(value))?
            .iter()
            .copied()
            .find(|at| values.get(*at) == Some(value))
    }
}

/// A hash that values equal under serde_json's `==` share: a number by its
/// kind and value (a float's zero unsigned, as `-0.0 == 0.0`), an object's
/// members in their sorted order. An explicit stack: a value may nest as
/// deep as its schema file.
fn value_hash(value: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Null => 0u8.hash(&mut hasher),
            Value::Bool(b) => (1u8, b).hash(&mut hasher),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => (2u8, u).hash(&mut hasher),
                (None, Some(i), _) => (3u8, i).hash(&mut hasher),
                (None, None, f) => {
                    let f = f.unwrap_or_default();
                    let f = if f == 0.0 { 0.0f64 } else { f };
                    (4u8, f.to_bits()).hash(&mut hasher);
                }
            },
            Value::String(text) => (5u8, text).hash(&mut hasher),
            Value::Array(items) => {
                (6u8, items.len()).hash(&mut hasher);
                stack.extend(items.iter().rev());
            }
            Value::Object(members) => {
                (7u8, members.len()).hash(&mut hasher);
                for name in members.keys() {
                    name.hash(&mut hasher);
                }
                stack.extend(members.values().rev());
            }
        }
    }
    hasher.finish()
}

fn names(map: &Map<String, Value>, key: &str) -> Vec<String> {
    // No such keyword: no names.
    map.get(key)
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// The first place (a JSON pointer below `at`, members in name order) where
/// `old` and `new` differ, with what each holds there. Schema documents
/// nest no deeper than the loader allows, which bounds the recursion.
fn first_difference<'v>(
    old: &'v Value,
    new: &'v Value,
    at: String,
) -> Option<(String, Option<&'v Value>, Option<&'v Value>)> {
    if old == new {
        return None;
    }
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|key| {
                let place = format!("{at}/{}", contract::escape_pointer_token(key));
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => first_difference(x, y, place),
                    (x, y) if x != y => Some((place, x, y)),
                    _ => None,
                }
            })
        }
        (Value::Array(a), Value::Array(b)) => (0..a.len().max(b.len())).find_map(|index| {
            let place = format!("{at}/{index}");
            match (a.get(index), b.get(index)) {
                (Some(x), Some(y)) => first_difference(x, y, place),
                (x, y) => Some((place, x, y)),
            }
        }),
        _ => Some((at, Some(old), Some(new))),
    }
}

fn show(value: Option<&Value>) -> String {
    value.map_or_else(|| "(absent)".into(), crate::report::short)
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

#[cfg(test)]
mod tests {
    use super::{value_hash, Positions};
    use serde_json::{json, Value};

    /// Values serde_json calls equal share a hash (the index finds them);
    /// some it does not call equal are told apart.
    #[test]
    fn equal_values_share_a_hash() {
        let zero: Value = serde_json::from_str("0.0").unwrap_or_default();
        let minus: Value = serde_json::from_str("-0.0").unwrap_or_default();
        assert_eq!(zero, minus);
        assert_eq!(value_hash(&zero), value_hash(&minus));
        let a: Value =
            serde_json::from_str(r#"{"b": [1, {"c": null}], "a": "x"}"#).unwrap_or_default();
        let b = json!({"a": "x", "b": [1, {"c": null}]});
        assert_eq!(a, b);
        assert_eq!(value_hash(&a), value_hash(&b));
        for (x, y) in [
            (json!(1), json!(1.0)),
            (json!("1"), json!(1)),
            (json!([1, 2]), json!([2, 1])),
        ] {
            assert_ne!(x, y);
            assert_ne!(value_hash(&x), value_hash(&y), "{x} {y}");
        }
        let list = [json!("a"), minus.clone(), json!({"k": 1}), json!("a")];
        let at = Positions::of(&list);
        assert_eq!(at.find(&list, &zero), Some(1));
        assert_eq!(at.find(&list, &json!("a")), Some(0));
        assert_eq!(at.find(&list, &json!({"k": 1})), Some(2));
        assert_eq!(at.find(&list, &json!({"k": 2})), None);
    }
}
