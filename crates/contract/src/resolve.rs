//! Offline `$ref` resolution inside a schema set.
//!
//! Written by hand rather than taken from a URI crate: contract references are
//! relative paths between files under one base (`../types/TaskId.json`,
//! `#/$defs/params`), and resolving them needs only path joining — a general
//! RFC 3986 resolver would add a dependency to every tool for no case we have.

use serde_json::Value;

use crate::{SchemaDoc, SchemaSet};

/// Where a `$ref` leads.
#[derive(Debug, Clone)]
pub struct Resolved<'a> {
    /// The file it leads to.
    pub doc: &'a SchemaDoc,
    /// The JSON pointer inside `doc` (empty for its root).
    pub pointer: String,
    /// The schema there.
    pub schema: &'a Value,
}

/// Resolves `reference` as written inside `from`. `Err` says why it does not
/// resolve, in words fit for a lint message.
pub fn resolve_ref<'a>(
    set: &'a SchemaSet,
    from: &'a SchemaDoc,
    reference: &str,
) -> Result<Resolved<'a>, String> {
    let (path, fragment) = match reference.split_once('#') {
        Some((path, fragment)) => (path, fragment),
        None => (reference, ""),
    };
    let doc = if path.is_empty() {
        from
    } else {
        // A first segment with a colon is a scheme (`https:`, `urn:`): RFC
        // 3986 gives a relative path none.
        let scheme = path
            .split('/')
            .next()
            .is_some_and(|first| first.contains(':'));
        if scheme || path.starts_with('/') {
            return Err(format!(
                "{reference:?} is not a relative reference; references between contract files \
                 are relative paths, so nothing is fetched"
            ));
        }
        let target = join(&from.rel, path)
            .ok_or_else(|| format!("{reference:?} climbs out of the schema folder"))?;
        set.docs
            .iter()
            .find(|doc| doc.rel == target)
            .ok_or_else(|| {
                format!("{reference:?} names {target}, which is not in the schema set")
            })?
    };
    if !fragment.is_empty() && !fragment.starts_with('/') {
        return Err(format!(
            "{reference:?} uses an anchor; contract references use JSON pointers"
        ));
    }
    let schema = doc
        .value
        .pointer(fragment)
        .ok_or_else(|| format!("{reference:?}: {} has nothing at #{fragment}", doc.rel))?;
    Ok(Resolved {
        doc,
        pointer: fragment.to_string(),
        schema,
    })
}

/// The files `schema` (inside `from`) reaches through `$ref`, transitively,
/// by their path in the set: which types a method's params or result use.
/// Each place is entered once, so a cycle ends; a reference that does not
/// resolve is passed by (the lint reports it).
pub fn files_reached<'a>(
    set: &'a SchemaSet,
    from: &'a SchemaDoc,
    schema: &'a Value,
) -> std::collections::BTreeSet<String> {
    Reached::new(set, from, schema)
        .filter(|place| place.via_ref)
        .map(|place| place.doc.rel.clone())
        .collect()
}

/// One schema [`Reached`] visits.
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    pub doc: &'a SchemaDoc,
    pub schema: &'a Value,
    /// Entered through a `$ref` (else: a subschema of the one before).
    pub via_ref: bool,
}

/// Every schema inside `schema` and everywhere its `$ref`s lead,
/// transitively, without entering `$defs` (a definition counts where it is
/// referred to). Each referred place is entered once, so a cycle ends; a
/// reference that does not resolve is passed by (the lint reports it). A
/// stack, not recursion: any nesting is walked.
pub struct Reached<'a> {
    set: &'a SchemaSet,
    seen: std::collections::HashSet<(&'a str, String)>,
    stack: Vec<Place<'a>>,
}

impl<'a> Reached<'a> {
    /// A walk of `schema` (a place in `from`) and of everything its `$ref`s
    /// lead to in `set`, each place a reference leads to entered once.
    pub fn new(set: &'a SchemaSet, from: &'a SchemaDoc, schema: &'a Value) -> Self {
        Reached {
            set,
            seen: std::collections::HashSet::new(),
            stack: vec![Place {
                doc: from,
                schema,
                via_ref: false,
            }],
        }
    }
}

impl<'a> Iterator for Reached<'a> {
    type Item = Place<'a>;

    fn next(&mut self) -> Option<Place<'a>> {
        let place = self.stack.pop()?;
        let doc = place.doc;
        match place.schema {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                    if let Ok(target) = resolve_ref(self.set, doc, reference) {
                        if self
                            .seen
                            .insert((target.doc.rel.as_str(), target.pointer.clone()))
                        {
                            self.stack.push(Place {
                                doc: target.doc,
                                schema: target.schema,
                                via_ref: true,
                            });
                        }
                    }
                }
                self.stack.extend(
                    map.iter()
                        .filter(|(key, _)| !matches!(key.as_str(), "$defs" | "definitions"))
                        .map(|(_, schema)| Place {
                            doc,
                            schema,
                            via_ref: false,
                        }),
                );
            }
            Value::Array(items) => self.stack.extend(items.iter().map(|schema| Place {
                doc,
                schema,
                via_ref: false,
            })),
            _ => {}
        }
        Some(place)
    }
}

/// How many subschemas checking one value may meet, each `$ref` followed
/// where it stands, before a schema set is refused (`lint.ref`) or a
/// place is "cannot decide" (compat): ten references to a schema that holds
/// ten references to another, a few levels down, make every check of a
/// value exponential. The contract's places meet at most a few hundred.
pub const MAX_EXPANDED: usize = 100_000;

/// Keywords whose subschema applies to the value itself.
const IN_PLACE: &[&str] = &["not", "if", "then", "else"];
const IN_PLACE_LISTS: &[&str] = &["allOf", "anyOf", "oneOf"];
/// Keywords whose subschema applies to some item, or some member, of the
/// value (2020-12); `$defs` is not among them: a definition counts where it
/// is referred to.
const ANY_ITEM: &[&str] = &["items", "additionalItems", "unevaluatedItems", "contains"];
const ANY_MEMBER: &[&str] = &["additionalProperties", "unevaluatedProperties"];
const ANY_MEMBER_MAPS: &[&str] = &["patternProperties"];
/// Keywords whose subschemas apply to the value itself, keyed by a member
/// it may have.
const IN_PLACE_MAPS: &[&str] = &["dependentSchemas"];
/// Keywords whose subschema applies to something else than the value or a
/// part of it (a member's name, a string's decoded content).
const ELSEWHERE: &[&str] = &["propertyNames", "contentSchema"];

/// One step from a value into a part of it, as a subschema is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Member(String),
    AnyMember,
    Item(usize),
    AnyItem,
    /// A member's name or a string's content: not a part of the value.
    Elsewhere,
}

impl Step {
    /// Whether the two steps may reach the same part of a value.
    fn overlaps(&self, other: &Step) -> bool {
        use Step::*;
        match (self, other) {
            (Member(_) | AnyMember, AnyMember) | (AnyMember, Member(_)) => true,
            (Item(_) | AnyItem, AnyItem) | (AnyItem, Item(_)) => true,
            (Elsewhere, Elsewhere) => true,
            (a, b) => a == b,
        }
    }

    /// Of two steps that overlap, the one that says more.
    fn narrower<'s>(&'s self, other: &'s Step) -> &'s Step {
        match self {
            Step::AnyMember | Step::AnyItem => other,
            _ => self,
        }
    }

    fn spell(&self) -> String {
        match self {
            Step::Member(name) => format!("/{}", crate::pointer::escape(name)),
            Step::AnyMember => "/(any member)".into(),
            Step::Item(index) => format!("/{index}"),
            Step::AnyItem => "/(any item)".into(),
            Step::Elsewhere => "/(a name or a content)".into(),
        }
    }
}

/// Why [`expansion`] refused a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unbounded {
    /// Checking one value meets more subschemas than the budget.
    Budget(usize),
    /// A schema reached through its own references applies to one part of
    /// the value more than once (or to the value itself again): checking a
    /// value is exponential in its depth, or never ends.
    Reentered {
        /// The schema (`file#pointer`).
        schema: String,
        /// Where in the value, below the value the schema checks, it
        /// applies again (`""`: the same value).
        at: String,
    },
}

impl std::fmt::Display for Unbounded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unbounded::Budget(_) => write!(
                f,
                "checking one value here may meet more than {MAX_EXPANDED} subschemas, each \
                 `$ref` followed where it stands: references fan out (many references to a \
                 schema that holds many references); every check of a value would take as many \
                 steps"
            ),
            Unbounded::Reentered { schema, at } if at.is_empty() => write!(
                f,
                "{schema} refers back to itself without going into the value: a validator \
                 would check the same value against it again and again"
            ),
            Unbounded::Reentered { schema, at } => write!(
                f,
                "{schema} applies again at {at} below the value it checks by more than one \
                 path of references: each level of a value nested that way would double the \
                 work (or more), and a value may nest 127 levels"
            ),
        }
    }
}

/// How many subschemas checking one value against `schema` (inside `from`)
/// may meet, as a validator meets them: every subschema once, and every
/// `$ref` followed where it stands, so ten references to one schema count
/// it ten times. A reference back into a schema already entered on the way
/// down is not followed again (a validator enters it again only further
/// into the value), but it must go into the value, and no way back to a
/// schema may start where another starts at an overlapping part of the
/// value: two ways back at one part (`next` under each branch of an
/// `allOf`), or one that starts another (`next`, and `next` under `next`),
/// multiply the work at each level of nesting, which this count would not
/// see. `Err` as soon as the count
/// passes `budget`, so the walk costs at most `budget` steps; a stack, not
/// recursion.
pub fn expansion<'a>(
    set: &'a SchemaSet,
    from: &'a SchemaDoc,
    schema: &'a Value,
    budget: usize,
) -> Result<usize, Unbounded> {
    // A reference target: its file and pointer.
    type Key<'s> = (&'s str, String);
    // Each item: a schema, the steps into the value that lead to it, how
    // many reference targets are entered on its way down, and the
    // reference target it enters, if any.
    struct Item<'s> {
        doc: &'s SchemaDoc,
        schema: &'s Value,
        steps: Vec<Step>,
        depth: usize,
        entering: Option<Key<'s>>,
    }
    // A target on the path: where it is, how far into the value it was
    // entered, and the ways back into it found so far (steps below it).
    struct Entered<'s> {
        key: Key<'s>,
        steps: usize,
        back: Vec<Vec<Step>>,
    }
    let mut stack = vec![Item {
        doc: from,
        schema,
        steps: Vec::new(),
        depth: 0,
        entering: None,
    }];
    let mut path: Vec<Entered<'_>> = Vec::new();
    // Where each target on the path is in it.
    let mut on_path: std::collections::HashMap<Key<'_>, usize> = std::collections::HashMap::new();
    let mut count = 0usize;
    while let Some(item) = stack.pop() {
        for left in path.drain(item.depth.min(path.len())..) {
            on_path.remove(&left.key);
        }
        if let Some(key) = item.entering {
            on_path.insert(key.clone(), path.len());
            path.push(Entered {
                key,
                steps: item.steps.len(),
                back: Vec::new(),
            });
        }
        count += 1;
        if count > budget {
            return Err(Unbounded::Budget(count));
        }
        let Value::Object(map) = item.schema else {
            continue;
        };
        let depth = path.len();
        let (doc, steps) = (item.doc, &item.steps);
        let mut push = |schema: &'a Value, step: Option<Step>| {
            let mut steps = steps.clone();
            steps.extend(step);
            stack.push(Item {
                doc,
                schema,
                steps,
                depth,
                entering: None,
            });
        };
        for (keyword, sub) in map {
            let keyword = keyword.as_str();
            let list = || sub.as_array().into_iter().flatten();
            let members = || sub.as_object().into_iter().flatten();
            if IN_PLACE.contains(&keyword) {
                push(sub, None);
            } else if IN_PLACE_LISTS.contains(&keyword) {
                list().for_each(|item| push(item, None));
            } else if IN_PLACE_MAPS.contains(&keyword) {
                members().for_each(|(_, item)| push(item, None));
            } else if ANY_ITEM.contains(&keyword) {
                push(sub, Some(Step::AnyItem));
            } else if keyword == "prefixItems" {
                list()
                    .enumerate()
                    .for_each(|(index, item)| push(item, Some(Step::Item(index))));
            } else if ANY_MEMBER.contains(&keyword) {
                push(sub, Some(Step::AnyMember));
            } else if ANY_MEMBER_MAPS.contains(&keyword) {
                members().for_each(|(_, item)| push(item, Some(Step::AnyMember)));
            } else if keyword == "properties" {
                members().for_each(|(name, item)| push(item, Some(Step::Member(name.clone()))));
            } else if ELSEWHERE.contains(&keyword) {
                push(sub, Some(Step::Elsewhere));
            }
        }
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
            continue;
        };
        let Ok(target) = resolve_ref(set, doc, reference) else {
            continue;
        };
        let key = (target.doc.rel.as_str(), target.pointer);
        match on_path.get(&key).and_then(|&index| path.get_mut(index)) {
            Some(entered) => {
                let below = steps.get(entered.steps..).unwrap_or_default().to_vec();
                // Two ways back where one may start the other (`/x` and
                // `/x/x`) reach one part of a value by more than one
                // sequence of ways back: the count grows with the depth.
                // Ways back none of which starts another split any part
                // one way only.
                let earlier = entered
                    .back
                    .iter()
                    .find(|other| other.iter().zip(&below).all(|(a, b)| a.overlaps(b)));
                if below.is_empty() || earlier.is_some() {
                    // Where both ways meet, named as the narrower of the two.
                    let at = match earlier {
                        Some(other) => other
                            .iter()
                            .zip(&below)
                            .map(|(a, b)| a.narrower(b).spell())
                            .collect(),
                        None => String::new(),
                    };
                    return Err(Unbounded::Reentered {
                        schema: format!("{}#{}", key.0, key.1),
                        at,
                    });
                }
                entered.back.push(below);
            }
            None => stack.push(Item {
                doc: target.doc,
                schema: target.schema,
                steps: steps.clone(),
                depth,
                entering: Some(key),
            }),
        }
    }
    Ok(count)
}

fn join(from: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for segment in path.split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn relative_paths_join_against_the_referring_files_folder() {
        assert_eq!(
            join("methods/a.json", "../types/T.json").as_deref(),
            Some("types/T.json")
        );
        assert_eq!(
            join("types/A.json", "B.json").as_deref(),
            Some("types/B.json")
        );
        assert_eq!(join("types/A.json", "../../x.json"), None);
    }

    /// A reference with a scheme or from the root is refused as not
    /// relative, whatever the scheme (not only `scheme://`).
    #[test]
    fn a_reference_with_a_scheme_is_not_relative() {
        let set = crate::SchemaSet::from_texts(
            std::path::Path::new("set"),
            [("types/A.json", r#"{"type": "string"}"#)],
        )
        .unwrap_or_else(|err| panic!("{err}"));
        let from = set.docs.first().unwrap_or_else(|| panic!("one document"));
        for reference in [
            "urn:vdm:A",
            "https://schemas.vdm.invalid/types/A.json",
            "//schemas.vdm.invalid/types/A.json",
            "/types/A.json",
            "tag:x,2026:A.json",
        ] {
            match super::resolve_ref(&set, from, reference) {
                Ok(_) => panic!("{reference} resolved"),
                Err(why) => assert!(why.contains("is not a relative reference"), "{why}"),
            }
        }
        assert!(super::resolve_ref(&set, from, "A.json").is_ok());
    }
}
