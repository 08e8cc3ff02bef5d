//! Containment: does every value schema `a` accepts pass schema `b`?
//!
//! Decided by structure, not text: references are followed, `allOf`s merged,
//! unions split (a union on the left holds when each branch does; on the
//! right, when some branch does), and each JSON type compared keyword by
//! keyword. Where the answer is no, the check names the place and builds a
//! value `a` accepts and `b` rejects. Recursive schemas are handled
//! coinductively (a pair met again is assumed to hold).
//!
//! Where it cannot decide, it says so: a [`Break`] of kind
//! [`BreakKind::Undecided`] names the
//! keyword, counted as breaking (the safe answer). That covers regex
//! containment beyond equality or a found counterexample (`pattern`,
//! `patternProperties`), `not` on the reader's side, the exclusivity of
//! `oneOf` branches it cannot prove disjoint, keywords it does not model
//! (`minContains`, `maxContains`, `unevaluated*`, dynamic references), and
//! nesting past [`MAX_DEPTH`].

use std::collections::HashSet;

use serde_json::{Map, Value};

mod types;

pub use crate::merge::{conjoin, merge_all_of, without};

use crate::accepts::{accepts, equal};
use crate::example::{example, find_witness};
use crate::node::Node;

/// Where and why containment fails.
#[derive(Debug, Clone)]
pub struct Break {
    /// JSON pointer into the instance.
    pub path: String,
    /// Pointers into `a`'s and `b`'s documents.
    pub a_pointer: String,
    pub b_pointer: String,
    pub a_file: String,
    pub b_file: String,
    pub reason: String,
    /// A value at `path` that `a` accepts and `b` rejects (wrapped up to the
    /// node the check started from as the failure travels out).
    pub witness: Option<Value>,
    /// What kind of break this is.
    pub kind: BreakKind,
}

/// What kind of break a [`Break`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakKind {
    /// Shown: the reader refuses values the writer sends.
    Refused,
    /// Shown, where the writer accepted anything at all and the reader does
    /// not (for an unlisted field: the reader refuses fields it does not list).
    AnyNarrowed,
    /// Assumed: the check could not reason about this keyword (the safe answer).
    Undecided { keyword: String },
}

/// A break between the places `a` and `b`, as found.
fn break_at(
    kind: BreakKind,
    a: &Node<'_>,
    b: &Node<'_>,
    reason: String,
    witness: Option<Value>,
) -> Outcome {
    Err(Box::new(Break {
        path: String::new(),
        a_pointer: a.pointer.clone(),
        b_pointer: b.pointer.clone(),
        a_file: a.doc.rel.clone(),
        b_file: b.doc.rel.clone(),
        reason,
        witness,
        kind,
    }))
}

impl Break {
    /// The keyword the check could not reason about, when it could not decide.
    pub fn undecided(&self) -> Option<&str> {
        match &self.kind {
            BreakKind::Undecided { keyword } => Some(keyword),
            _ => None,
        }
    }
}

/// How deep the check follows nested schemas and references before it says
/// it cannot decide (a verdict, not a stack overflow).
pub const MAX_DEPTH: usize = 48;

/// Keywords that constrain values and that the check does not model. On the
/// reader's side (`b`) they make the answer "cannot decide" unless the
/// writer's side has exactly the same; on the writer's side (`a`) ignoring
/// them only lets more values through, which is safe.
const UNMODELLED: &[&str] = &[
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$dynamicRef",
    "$recursiveRef",
];

/// How many pairs one comparison may examine, probes included, before it
/// says it cannot decide: a bound in time for schemas whose unions and
/// references multiply the pairs.
pub const MAX_STEPS: usize = 5_000;

pub struct Subset {
    /// `b` ignores object fields it does not know (a tolerant reader).
    pub tolerant: bool,
    /// Pairs met on the way, by place and (for schemas built on the way,
    /// which have no place of their own) by content.
    seen: HashSet<(String, String, String, String)>,
    /// Steps left, shared with every probe this comparison makes.
    steps: std::rc::Rc<std::cell::Cell<usize>>,
    /// Whether two documents are equal and self-contained, by their paths.
    same_docs: std::collections::HashMap<(String, String), bool>,
    /// How `format` is read.
    formats: crate::Formats,
}

type Outcome = Result<(), Box<Break>>;

impl Subset {
    pub fn new(tolerant: bool) -> Self {
        Self {
            tolerant,
            seen: HashSet::new(),
            steps: std::rc::Rc::new(std::cell::Cell::new(MAX_STEPS)),
            same_docs: std::collections::HashMap::new(),
            formats: crate::Formats::default(),
        }
    }

    /// Reads `format` as `formats` says (an assertion unless told otherwise).
    pub fn reading_formats(mut self, formats: crate::Formats) -> Self {
        self.formats = formats;
        self
    }

    /// Whether `a` and `b` are the same place of two equal documents whose
    /// references all stay inside them: the same schema, so nothing to check.
    fn same_place(&mut self, a: &Node<'_>, b: &Node<'_>) -> bool {
        if a.pointer != b.pointer || a.doc.rel != b.doc.rel || a.value != b.value {
            return false;
        }
        let key = (a.doc.rel.clone(), b.doc.rel.clone());
        if let Some(same) = self.same_docs.get(&key) {
            return *same;
        }
        let same = documents_alike(a, b);
        self.same_docs.insert(key, same);
        same
    }

    /// A side question of this comparison: its own pairs seen, the same budget.
    fn probe(&self, tolerant: bool) -> Self {
        Self {
            tolerant,
            seen: HashSet::new(),
            steps: self.steps.clone(),
            same_docs: self.same_docs.clone(),
            formats: self.formats,
        }
    }

    /// Like [`Subset::probe`], knowing the pairs already met.
    fn branch(&self) -> Self {
        Self {
            tolerant: self.tolerant,
            seen: self.seen.clone(),
            steps: self.steps.clone(),
            same_docs: self.same_docs.clone(),
            formats: self.formats,
        }
    }

    pub fn check(&mut self, a: &Node<'_>, b: &Node<'_>) -> Outcome {
        self.seen.clear();
        self.sub(a, b, 0)
    }

    fn fail(&self, a: &Node<'_>, b: &Node<'_>, reason: String, witness: Option<Value>) -> Outcome {
        self.fail_as(BreakKind::Refused, a, b, reason, witness)
    }

    fn fail_as(
        &self,
        kind: BreakKind,
        a: &Node<'_>,
        b: &Node<'_>,
        reason: String,
        witness: Option<Value>,
    ) -> Outcome {
        let witness = witness.or_else(|| find_witness(a, b, self.tolerant));
        break_at(kind, a, b, reason, witness)
    }

    /// The check cannot reason about `keyword` here: a break is assumed,
    /// unless a counterexample shows a real one.
    fn undecided(&self, a: &Node<'_>, b: &Node<'_>, keyword: &str, why: &str) -> Outcome {
        // Out of depth or steps, no more searching: the answer must come back.
        let exhausted = matches!(keyword, "nesting" | "size");
        if let Some(witness) = (!exhausted)
            .then(|| find_witness(a, b, self.tolerant))
            .flatten()
        {
            return self.fail(a, b, format!("{why} (shown by a value)"), Some(witness));
        }
        // No witness: it was looked for above, or there is no budget left.
        break_at(
            BreakKind::Undecided {
                keyword: keyword.to_string(),
            },
            a,
            b,
            format!(
                "cannot decide: {keyword} at {}#{} ({why}); counted as breaking",
                b.doc.rel, b.pointer
            ),
            None,
        )
    }

    fn sub(&mut self, a: &Node<'_>, b: &Node<'_>, depth: usize) -> Outcome {
        if depth > MAX_DEPTH {
            return self.undecided(
                a,
                b,
                "nesting",
                &format!("schemas nested more than {MAX_DEPTH} levels deep"),
            );
        }
        match self.steps.get().checked_sub(1) {
            Some(left) => self.steps.set(left),
            None => {
                return self.undecided(
                    a,
                    b,
                    "size",
                    &format!("the comparison needs more than {MAX_STEPS} steps"),
                )
            }
        }
        let (a, b) = (merge_all_of(&a.resolved()), merge_all_of(&b.resolved()));
        if self.same_place(&a, &b) {
            return Ok(());
        }
        if let Some(keyword) = UNMODELLED.iter().find(|k| b.get(k).is_some()) {
            let has_ref =
                |value: Option<&Value>| value.is_some_and(|v| v.to_string().contains("\"$ref\""));
            if a.value == b.value && !has_ref(Some(&b.value)) {
                return Ok(()); // the same schema, referring to nothing else
            }
            // The same count of the same `contains` constrains both alike.
            let same = |key: &str| a.get(key) == b.get(key);
            let alike = matches!(*keyword, "minContains" | "maxContains")
                && same("contains")
                && same("minContains")
                && same("maxContains")
                && !has_ref(b.get("contains"));
            if !alike {
                return self.undecided(&a, &b, keyword, "the checker does not model this keyword");
            }
        }
        // A pair met again is assumed to hold (recursive schemas). A schema
        // built on the way is known by its content as well as its place.
        let place = |node: &Node<'_>| match &node.value {
            std::borrow::Cow::Borrowed(_) => node.pointer.clone(),
            std::borrow::Cow::Owned(value) => format!("{}={value}", node.pointer),
        };
        let key = (a.doc.rel.clone(), place(&a), b.doc.rel.clone(), place(&b));
        if !self.seen.insert(key) {
            return Ok(());
        }
        if a.is_false() || b.is_true() || empty(&a, 0) {
            return Ok(());
        }
        if b.is_false() {
            return self.fail(
                &a,
                &b,
                "nothing is accepted here any more".into(),
                Some(example(&a)),
            );
        }
        if a.value.as_bool() == Some(true) {
            return self.fail_as(
                BreakKind::AnyNarrowed,
                &a,
                &b,
                "anything was accepted here, and now only some values are".into(),
                None,
            );
        }
        // Conjunctions on the right: each part must hold.
        if let Some(parts) = b.get("allOf").and_then(Value::as_array) {
            for index in 0..parts.len() {
                if let Some(part) = b.child("allOf").and_then(|l| l.child(&index.to_string())) {
                    self.sub(&a, &part, depth + 1)?;
                }
            }
            return self.sub(&a, &without(&b, &["allOf"]), depth + 1);
        }
        // Unions and conditions on the left: every case must hold.
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = a.get(key).and_then(Value::as_array).cloned() {
                let base = without(&a, &[key]);
                for index in 0..branches.len() {
                    if let Some(branch) = a.child(key).and_then(|l| l.child(&index.to_string())) {
                        let mut case = conjoin(&base, &branch);
                        // A oneOf branch holds only the values no other branch accepts.
                        let others: Vec<Value> = branches
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| *i != index)
                            .map(|(_, v)| v.clone())
                            .collect();
                        if key == "oneOf"
                            && !others.is_empty()
                            && case.get("not").is_none()
                            && base.doc.rel == branch.resolved().doc.rel
                        {
                            let mut value = case.value.into_owned();
                            if let Value::Object(map) = &mut value {
                                map.insert("not".into(), serde_json::json!({ "anyOf": others }));
                            }
                            case = base.with_value(value);
                        }
                        self.sub(&case, &b, depth + 1)?;
                    }
                }
                return Ok(());
            }
        }
        // A condition on the left (at the top or among unmerged allOf parts)
        // is two cases: `if ∧ then`, and `not if ∧ else`.
        if let Some((rest, condition, then, otherwise)) = take_condition(&a) {
            let not_condition = serde_json::json!({ "not": condition });
            for parts in [
                vec![condition.clone(), then],
                vec![not_condition, otherwise],
            ] {
                let mut all = vec![rest.value.clone().into_owned()];
                all.extend(parts);
                let case = merge_all_of(&rest.with_value(serde_json::json!({ "allOf": all })));
                self.sub(&case, &b, depth + 1)?;
            }
            return Ok(());
        }
        if let Some(condition) = b.child("if") {
            let rest = without(&b, &["if", "then", "else"]);
            self.sub(&a, &rest, depth + 1)?;
            let then = b.child("then");
            let otherwise = b.child("else");
            let mut probe = self.probe(self.tolerant);
            if probe.sub(&a, &condition, depth + 1).is_ok() {
                return then.map_or(Ok(()), |t| self.sub(&a, &t, depth + 1));
            }
            let excluded = condition
                .with_value(serde_json::json!({ "not": condition.value.clone().into_owned() }));
            let mut probe = self.probe(self.tolerant);
            if probe.sub(&a, &excluded, depth + 1).is_ok() {
                return otherwise.map_or(Ok(()), |e| self.sub(&a, &e, depth + 1));
            }
            for case in [then, otherwise].into_iter().flatten() {
                self.sub(&a, &case, depth + 1)?;
            }
            return Ok(());
        }
        // Parts of `a` that did not merge (another document's type): `a` is
        // inside each, so one part inside `b` is enough.
        if let Some(count) = a.get("allOf").and_then(Value::as_array).map(Vec::len) {
            for index in 0..count {
                if let Some(part) = a.child("allOf").and_then(|l| l.child(&index.to_string())) {
                    let mut probe = self.branch();
                    if probe.sub(&part, &b, depth + 1).is_ok() {
                        return Ok(());
                    }
                }
            }
        }
        if let Some(not_a) = a.child("not") {
            if let Some(not_b) = b.child("not") {
                // not X ⊆ not Y exactly when Y ⊆ X; a counterexample is the same value.
                let rest = without(&b, &["not"]);
                let mut inner = self.probe(false);
                if let Err(err) = inner.sub(&not_b, &not_a, depth + 1) {
                    return self.fail(
                        &a,
                        &b,
                        format!("the excluded values changed: {}", err.reason),
                        err.witness,
                    );
                }
                return self
                    .sub(&without(&a, &["not"]), &rest, depth + 1)
                    .or_else(|_| self.sub(&a, &rest, depth + 1));
            }
            if let Some(w) = find_witness(&a, &b, self.tolerant) {
                return self.fail(
                    &a,
                    &b,
                    "a value outside the excluded set is refused now".into(),
                    Some(w),
                );
            }
            // Otherwise go on with `a` as it is: the comparisons below read past
            // its `not` (they over-approximate `a`), and every candidate value
            // is still tried against all of `a`.
        }
        if let Some(not_b) = b.child("not") {
            // a must share nothing with what b excludes.
            let rest = without(&b, &["not"]);
            self.sub(&a, &rest, depth + 1)?;
            let both = crate::example::candidates(&a, &not_b)
                .into_iter()
                .find(|v| accepts(&a, v, false) && accepts(&not_b, v, false));
            return match both {
                Some(w) => self.fail(
                    &a,
                    &b,
                    "a value that is now excluded (`not`) was accepted".into(),
                    Some(w),
                ),
                None if disjoint(&a, &not_b) || excludes(&a, &not_b) => Ok(()),
                None => self.undecided(
                    &a,
                    &b,
                    "not",
                    "whether the writer's values avoid every excluded value is not decided",
                ),
            };
        }
        // Unions on the right: some branch must hold.
        for key in ["anyOf", "oneOf"] {
            if let Some(count) = b.get(key).and_then(Value::as_array).map(Vec::len) {
                let base = without(&b, &[key]);
                self.sub(&a, &base, depth + 1)?;
                let mut first_break = None;
                for index in 0..count {
                    if let Some(branch) = b.child(key).and_then(|l| l.child(&index.to_string())) {
                        let mut attempt = self.branch();
                        match attempt.sub(&a, &branch, depth + 1) {
                            Ok(()) if key == "oneOf" => {
                                // oneOf also refuses a value that two branches accept.
                                for other in (0..count).filter(|k| *k != index) {
                                    let Some(other) =
                                        b.child(key).and_then(|l| l.child(&other.to_string()))
                                    else {
                                        continue;
                                    };
                                    let shared = crate::example::candidates(&a, &other)
                                        .into_iter()
                                        .find(|v| {
                                            accepts(&a, v, false)
                                                && accepts(&branch, v, self.tolerant)
                                                && accepts(&other, v, self.tolerant)
                                        });
                                    if let Some(w) = shared {
                                        return self.fail(&a, &b, "a value that more than one `oneOf` branch accepts is refused".into(), Some(w));
                                    }
                                    if !disjoint(&a, &other) {
                                        return self.undecided(&a, &b, "oneOf", "whether another branch also accepts the writer's values (which oneOf refuses) is not decided");
                                    }
                                }
                                return Ok(());
                            }
                            Ok(()) => return Ok(()),
                            Err(err) if first_break.is_none() || tag_matches(&a, &branch) => {
                                first_break = Some(err)
                            }
                            Err(_) => {}
                        }
                    }
                }
                return match first_break {
                    Some(err) => Err(err),
                    None => self.fail(
                        &a,
                        &b,
                        format!("no branch of `{key}` accepts these values"),
                        None,
                    ),
                };
            }
        }
        self.flat(&a, &b, depth)
    }
}

/// Whether `a`'s and `b`'s documents are equal, and so is every document
/// their references reach (compared by path).
fn documents_alike(a: &Node<'_>, b: &Node<'_>) -> bool {
    fn refs<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
        match value {
            Value::Object(map) => {
                if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                    out.push(r);
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut queue = vec![a.doc.rel.clone()];
    let mut done = HashSet::new();
    while let Some(rel) = queue.pop() {
        if !done.insert(rel.clone()) {
            continue;
        }
        let (Some(old), Some(new)) = (
            a.set.docs.iter().find(|d| d.rel == rel),
            b.set.docs.iter().find(|d| d.rel == rel),
        ) else {
            return false;
        };
        if old.value != new.value {
            return false;
        }
        let mut found = Vec::new();
        refs(&old.value, &mut found);
        for reference in found {
            match contract::resolve_ref(a.set, old, reference) {
                Ok(target) => queue.push(target.doc.rel.clone()),
                Err(_) => return false,
            }
        }
    }
    true
}

fn has_ref(value: Option<&Value>) -> bool {
    value.is_some_and(|v| v.to_string().contains("\"$ref\""))
}

/// Whether `a` provably accepts nothing `excluded` accepts, for the shapes a
/// `not` takes in practice: "this field is absent" (`required`) and "not this
/// value" (`const`/`enum`).
fn excludes(a: &Node<'_>, excluded: &Node<'_>) -> bool {
    let excluded = merge_all_of(&excluded.resolved());
    let Some(map) = excluded.object() else {
        return false;
    };
    let asserting: Vec<&String> = map
        .keys()
        .filter(|k| crate::node::is_assertion(k))
        .collect();
    // What `a` itself excludes with its own `not`s.
    let own: Vec<Value> = match a.get("not") {
        Some(not) => match not.get("anyOf") {
            Some(Value::Array(all)) => all.clone(),
            _ => vec![not.clone()],
        },
        None => Vec::new(),
    };
    let only = |keys: &[&str]| asserting.iter().all(|k| keys.contains(&k.as_str()));
    if only(&["required"]) {
        // Non-objects pass `required`: `a` must hold objects only.
        if a.types().as_deref() != Some(&["object"][..]) {
            return false;
        }
        return excluded.strings("required").iter().any(|name| {
            let absent = serde_json::json!({ "required": [name] });
            own.iter().any(|e| e == &absent)
                || a.get("properties").and_then(|p| p.get(name)) == Some(&Value::Bool(false))
                || (a.get("additionalProperties") == Some(&Value::Bool(false))
                    && a.get("patternProperties").is_none()
                    && a.get("properties").and_then(|p| p.get(name)).is_none())
        });
    }
    if only(&["const", "enum"]) {
        let values = excluded.finite().unwrap_or_default();
        return !values.is_empty()
            && values.iter().all(|value| {
                let named = serde_json::json!({ "const": value });
                own.iter().any(|e| e == &named)
                    || a.types().is_some_and(|types| {
                        let ty = crate::node::type_of(value);
                        !types
                            .iter()
                            .any(|t| *t == ty || (*t == "number" && ty == "integer"))
                    })
                    || a.finite()
                        .is_some_and(|mine| !mine.iter().any(|m| equal(m, value)))
            });
    }
    false
}

/// Whether two schemas provably share no value: different JSON types, finite
/// sets with nothing in common, or a required property each fixes to a
/// different constant (a tag).
fn disjoint(a: &Node<'_>, b: &Node<'_>) -> bool {
    let (a, b) = (merge_all_of(&a.resolved()), merge_all_of(&b.resolved()));
    if a.is_false() || b.is_false() {
        return true;
    }
    // One excludes the other by name (a `oneOf` case carries `not` of its
    // siblings), written out without references, so equal text is equal meaning.
    for (x, y) in [(&a, &b), (&b, &a)] {
        let excluded = x.get("not").map(|not| match not.get("anyOf") {
            Some(Value::Array(all)) => all.clone(),
            _ => vec![not.clone()],
        });
        if excluded.is_some_and(|all| all.iter().any(|e| e == y.value.as_ref()))
            && !has_ref(Some(y.value.as_ref()))
        {
            return true;
        }
    }
    if let (Some(x), Some(y)) = (a.types(), b.types()) {
        let overlaps = x.iter().any(|t| {
            y.contains(t)
                || (*t == "integer" && y.contains(&"number"))
                || (*t == "number" && y.contains(&"integer"))
        });
        if !overlaps {
            return true;
        }
    }
    for (finite, other) in [(&a, &b), (&b, &a)] {
        if let Some(values) = finite.finite() {
            if values
                .iter()
                .all(|v| !accepts(other, v, false) || !accepts(finite, v, false))
            {
                // `accepts` is the small validator; trusted here only for
                // `const`/`enum` sets, which it decides by equality.
                if other.finite().is_some() {
                    return true;
                }
            }
        }
    }
    let tag = |node: &Node<'_>, name: &str| -> Option<Value> {
        if !node.strings("required").iter().any(|r| r == name) {
            return None;
        }
        let prop = node.property(name, false)?;
        let prop = merge_all_of(&prop.resolved());
        prop.get("const").cloned().or_else(|| {
            prop.get("enum")
                .and_then(Value::as_array)
                .filter(|values| values.len() == 1)
                .and_then(|values| values.first().cloned())
        })
    };
    a.get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .any(|(name, _)| {
            matches!((tag(&a, name), tag(&b, name)), (Some(x), Some(y)) if !equal(&x, &y))
        })
}

/// Whether a schema accepts nothing, as far as its keywords show (a case of
/// a condition split can be impossible: sha256 and sha512 at once).
fn empty(node: &Node<'_>, depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    let node = merge_all_of(&node.resolved());
    if node.is_false() {
        return true;
    }
    if let Some(values) = node.finite() {
        return !values.iter().any(|v| accepts(&node, v, false));
    }
    let Some(types) = node.types() else {
        return false;
    };
    let count = |key: &str| node.number(key);
    types.iter().all(|ty| match *ty {
        "string" => count("minLength")
            .zip(count("maxLength"))
            .is_some_and(|(lo, hi)| lo > hi),
        "integer" | "number" => {
            let i = node.interval();
            i.lo.zip(i.hi)
                .is_some_and(|(lo, hi)| lo > hi || (lo == hi && (i.lo_open || i.hi_open)))
        }
        "array" => count("minItems")
            .zip(count("maxItems"))
            .is_some_and(|(lo, hi)| lo > hi),
        "object" => {
            count("minProperties")
                .zip(count("maxProperties"))
                .is_some_and(|(lo, hi)| lo > hi)
                || node.strings("required").iter().any(|name| {
                    node.property(name, false)
                        .is_some_and(|p| empty(&p, depth + 1))
                })
        }
        _ => false,
    })
}

/// Splits off one condition: `(the rest, if, then, else)`, `then`/`else`
/// defaulting to `true`.
fn take_condition<'a>(node: &Node<'a>) -> Option<(Node<'a>, Value, Value, Value)> {
    let parts = |map: &Map<String, Value>| -> Option<(Value, Value, Value)> {
        let condition = map.get("if")?.clone();
        Some((
            condition,
            map.get("then").cloned().unwrap_or(Value::Bool(true)),
            map.get("else").cloned().unwrap_or(Value::Bool(true)),
        ))
    };
    let map = node.object()?;
    if let Some((c, t, e)) = parts(map) {
        return Some((without(node, &["if", "then", "else"]), c, t, e));
    }
    let all = map.get("allOf")?.as_array()?;
    let index = all.iter().position(|part| part.get("if").is_some())?;
    let (c, t, e) = all.get(index)?.as_object().and_then(parts)?;
    let mut rest = node.value.clone().into_owned();
    if let Some(Value::Array(items)) = rest.get_mut("allOf") {
        items.remove(index);
        if items.is_empty() {
            if let Value::Object(map) = &mut rest {
                map.remove("allOf");
            }
        }
    }
    Some((node.with_value(rest), c, t, e))
}

/// Whether `branch`'s tag `const` matches the tag value `a` fixes (for
/// reporting the branch a value meant, in a tagged union).
fn tag_matches(a: &Node<'_>, branch: &Node<'_>) -> bool {
    let Some(props) = branch.get("properties").and_then(Value::as_object) else {
        return false;
    };
    props.iter().any(|(name, schema)| {
        let Some(tag) = schema.get("const") else {
            return false;
        };
        a.get("properties")
            .and_then(|p| p.get(name))
            .and_then(|s| s.get("const"))
            .is_some_and(|own| own == tag)
    })
}
