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

/// Keywords whose value is one subschema, a list of them, or a map of them
/// (2020-12); `$defs` is not among them: a definition counts where it is
/// referred to.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "contentSchema",
];
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// How many subschemas checking one value against `schema` (inside `from`)
/// may meet, as a validator meets them: every subschema once, and every
/// `$ref` followed where it stands, so ten references to one schema count
/// it ten times. A reference back into a schema already entered on the way
/// down is not followed again (a validator enters it again only further
/// into the value). `Err` as soon as the count passes `budget`, so the walk
/// costs at most `budget` steps; a stack, not recursion.
pub fn expansion(
    set: &SchemaSet,
    from: &SchemaDoc,
    schema: &Value,
    budget: usize,
) -> Result<usize, usize> {
    // Each item: a schema, how many references lead to it on its way down,
    // and the reference target it enters, if any.
    type Key<'a> = (&'a str, String);
    let mut stack: Vec<(&SchemaDoc, &Value, usize, Option<Key<'_>>)> =
        vec![(from, schema, 0, None)];
    let mut path: Vec<Key<'_>> = Vec::new();
    let mut on_path: std::collections::HashSet<Key<'_>> = std::collections::HashSet::new();
    let mut count = 0usize;
    while let Some((doc, value, depth, entering)) = stack.pop() {
        for left in path.drain(depth.min(path.len())..) {
            on_path.remove(&left);
        }
        if let Some(key) = entering {
            on_path.insert(key.clone());
            path.push(key);
        }
        count += 1;
        if count > budget {
            return Err(count);
        }
        let Value::Object(map) = value else {
            continue;
        };
        let depth = path.len();
        for (keyword, sub) in map {
            let keyword = keyword.as_str();
            if ONE_SCHEMA.contains(&keyword) {
                stack.push((doc, sub, depth, None));
            } else if SCHEMA_LISTS.contains(&keyword) {
                for item in sub.as_array().into_iter().flatten() {
                    stack.push((doc, item, depth, None));
                }
            } else if SCHEMA_MAPS.contains(&keyword) {
                for item in sub.as_object().into_iter().flatten().map(|(_, v)| v) {
                    stack.push((doc, item, depth, None));
                }
            }
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if let Ok(target) = resolve_ref(set, doc, reference) {
                let key = (target.doc.rel.as_str(), target.pointer);
                if !on_path.contains(&key) {
                    stack.push((target.doc, target.schema, depth, Some(key)));
                }
            }
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
