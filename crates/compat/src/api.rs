//! What code built on the generated bindings names, compared between two
//! versions. The keyword-by-keyword diff sees the wire; it cannot see that a
//! type was renamed (every `$ref` moved with it), that an integer enum's
//! names were swapped, or that a field became a credential: the wire is the
//! same, and code built on the old bindings no longer compiles or means
//! something else. So the API verdict also compares the bindings' surface,
//! as the generator that writes them models it (the caller builds the
//! [`Surface`] from that model): every item of the old surface must be in
//! the new one, unchanged. Additions are open (`docs/bindings.md`).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::{vocab, Change, Rule, Verdict};

/// The named things of one version's bindings, by a key that says what each
/// is (`type Segment`, `field Segment.index`, `method download.add`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Surface {
    items: BTreeMap<String, Item>,
}

/// One named thing of the bindings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The method, event or type it belongs to (the report's group).
    pub group: String,
    /// `file#pointer` of the schema it is generated from.
    pub place: String,
    /// What it is, in words: two items with the same key and shape are the
    /// same to code that uses them.
    pub shape: String,
}

impl Surface {
    /// Adds an item; a key given twice keeps both shapes (joined), so two
    /// places generating one name cannot hide each other.
    pub fn insert(&mut self, key: String, item: Item) {
        match self.items.get_mut(&key) {
            Some(known) => {
                known.shape.push_str(" | ");
                known.shape.push_str(&item.shape);
            }
            None => {
                self.items.insert(key, item);
            }
        }
    }

    /// How many items it holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// The bindings' surface of one side, or why it cannot be had (the generator
/// refuses the schemas).
pub type Modelled = Result<Surface, String>;

/// Most items a change's detail lists before it counts the rest.
const LISTED: usize = 8;

/// The API changes between two sides: one change per group whose old items
/// are not all in the new surface as they were. Where a side cannot be
/// modelled the API cannot be decided (breaking): even where neither can,
/// code may be built on bindings a generator of another day wrote for the
/// old side (a frozen release's), and nothing says what it names.
pub(crate) fn changes(old: &Modelled, new: &Modelled) -> Vec<Change> {
    changes_as(old, new, "the generated bindings")
}

/// [`changes`] between two documents compared alone, by what [`named`]
/// lists of each.
pub(crate) fn named_changes(old: &contract::SchemaDoc, new: &contract::SchemaDoc) -> Vec<Change> {
    let listed = |doc: &contract::SchemaDoc| match &doc.too_deep {
        // Kept unread: what it names is not known.
        Some(deep) => Err(format!("{}#{}: {deep}", doc.rel, deep.pointer)),
        None => named(&doc.value, &doc.rel, &doc.name),
    };
    changes_as(
        &listed(old),
        &listed(new),
        "the names code generated from the document uses",
    )
}

/// Whether `shape` is empty shapes joined by [`Surface::insert`].
fn joins_only(shape: &str) -> bool {
    shape.split(" | ").all(str::is_empty)
}

/// `what`: what the surfaces are, in words (`the generated bindings`).
fn changes_as(old: &Modelled, new: &Modelled, what: &str) -> Vec<Change> {
    let (old, new) = match (old, new) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(why), Ok(_) | Err(_)) => return vec![undecided(what, "old", why)],
        (Ok(_), Err(why)) => return vec![undecided(what, "new", why)],
    };
    // Per group: the first place touched on each side, and what changed.
    let mut groups: BTreeMap<&str, (&Item, Option<&Item>, Vec<String>)> = BTreeMap::new();
    for (key, was) in &old.items {
        let now = new.items.get(key);
        let said = match now {
            None => format!("{key} is gone"),
            // Shapes that are only the joins of empty ones: a name given by
            // several places (two files compared alone list no shapes).
            Some(now)
                if now.shape != was.shape && joins_only(&was.shape) && joins_only(&now.shape) =>
            {
                let places = |shape: &str| shape.matches(" | ").count() + 1;
                format!(
                    "{key}: named by {} places → {}",
                    places(&was.shape),
                    places(&now.shape)
                )
            }
            Some(now) if now.shape != was.shape => {
                format!("{key}: {} → {}", was.shape, now.shape)
            }
            Some(_) => continue,
        };
        let entry = groups
            .entry(was.group.as_str())
            .or_insert((was, now, Vec::new()));
        if entry.1.is_none() {
            entry.1 = now;
        }
        entry.2.push(said);
    }
    groups
        .into_iter()
        .map(|(group, (was, now, said))| {
            let more = said.len().saturating_sub(LISTED);
            let mut detail = said
                .iter()
                .take(LISTED)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ");
            if more > 0 {
                detail.push_str(&format!("; and {more} more"));
            }
            Change {
                group: group.to_string(),
                rule: Rule::ApiChanged,
                old_pointer: Some(was.place.clone()),
                new_pointer: now.map(|item| item.place.clone()),
                writer: Verdict::Compatible,
                reader: Verdict::Compatible,
                api: Verdict::Breaking,
                detail: format!("{what} change: {detail}"),
                why: Some(
                    "code built on the old bindings no longer compiles, or compiles and means something else"
                        .into(),
                ),
                example: None,
                undecided: None,
                shape: false,
            }
        })
        .collect()
}

/// The names one schema document gives code, for two documents compared
/// alone (no generator models them): every definition (`type NAME`), every
/// declared member (`field PLACE/NAME`) and every listed value (`value
/// PLACE = JSON`), wherever it stands in the document, whether or not a
/// reference reaches it, so a removal is seen however the diff walks to it.
/// A place is written as its pointer with the keywords that combine
/// schemas into one left out (`allOf`, `anyOf`, `oneOf`, `then`, `else`,
/// `dependentSchemas`, `dependencies`: a generator merges their members
/// into one type), and a definition starts a place of its own. Keywords
/// that only test a value (`not`, `if`, `contains`, `propertyNames`,
/// `contentSchema`) name nothing code uses and are not entered. A
/// definition is named the same under `definitions` (drafts 4 to 7) and
/// `$defs`, as generators name it by its key, so a document moved to a
/// newer draft keeps its names; definitions named alike are each counted
/// ([`Surface::insert`]).
/// Shapes are not compared (`shape` is empty): for documents alone the API
/// covers removals.
fn named(document: &Value, rel: &str, group: &str) -> Modelled {
    let mut surface = Surface::default();
    let mut add = |key: String, pointer: &str| {
        surface.insert(
            key,
            Item {
                group: group.to_string(),
                place: format!("{rel}#{pointer}"),
                shape: String::new(),
            },
        );
    };
    let around = crate::space::draft_of(document);
    // (schema, its pointer, the pointer with `definitions` spelled `$defs`,
    // its place, depth), walked with a stack.
    let mut stack = vec![(
        document,
        String::new(),
        String::new(),
        String::new(),
        0usize,
    )];
    let mut walked = 0usize;
    while let Some((schema, pointer, named_at, place, depth)) = stack.pop() {
        walked += 1;
        if depth > vocab::MAX_NESTING || walked > vocab::MAX_POSITIONS {
            return Err(format!(
                "{rel}#{pointer}: the document is too large or too deep to list what it names"
            ));
        }
        let Value::Object(map) = schema else {
            continue;
        };
        let draft = vocab::draft_of(map, around);
        for (key, value) in map {
            if key == "enum" || key == "const" {
                let listed = match (key.as_str(), value) {
                    ("enum", Value::Array(values)) => values.iter().collect(),
                    ("const", value) => vec![value],
                    _ => Vec::new(),
                };
                for value in listed {
                    // As JSON Schema compares values: `1.0` is `1`.
                    let value = crate::numbers::canonical(value);
                    add(
                        format!("value {place} = {value}"),
                        &format!("{pointer}/{key}"),
                    );
                }
                continue;
            }
            for (suffix, child) in vocab::children(draft, key, value) {
                let below = suffix
                    .strip_prefix(&format!("/{}", contract::escape_pointer_token(key)))
                    .unwrap_or_default();
                let child_named_at = match key.as_str() {
                    "$defs" | "definitions" => format!("{named_at}/$defs{below}"),
                    _ => format!("{named_at}{suffix}"),
                };
                let child_place = match key.as_str() {
                    "$defs" | "definitions" => {
                        add(
                            format!("type {child_named_at}"),
                            &format!("{pointer}{suffix}"),
                        );
                        child_named_at.clone()
                    }
                    "properties" => {
                        let field = format!("{place}/properties{below}");
                        add(format!("field {field}"), &format!("{pointer}{suffix}"));
                        field
                    }
                    "allOf" | "anyOf" | "oneOf" | "then" | "else" | "dependentSchemas"
                    | "dependencies" => place.clone(),
                    "items"
                    | "prefixItems"
                    | "additionalItems"
                    | "unevaluatedItems"
                    | "additionalProperties"
                    | "unevaluatedProperties"
                    | "patternProperties" => {
                        format!("{place}{suffix}")
                    }
                    _ => continue,
                };
                stack.push((
                    child,
                    format!("{pointer}{suffix}"),
                    child_named_at,
                    child_place,
                    depth + 1,
                ));
            }
        }
    }
    Ok(surface)
}

fn undecided(what: &str, side: &str, why: &str) -> Change {
    // The generator names the place it refuses first (`file#pointer: why`):
    // the report locates the change there.
    let place = why
        .split_once(": ")
        .map(|(place, _)| place)
        .filter(|place| place.contains(".json#") && !place.contains(' '))
        .map(str::to_string);
    let (old_pointer, new_pointer) = if side == "old" {
        (place, None)
    } else {
        (None, place)
    };
    Change {
        group: "(bindings)".into(),
        rule: Rule::ApiChanged,
        old_pointer,
        new_pointer,
        writer: Verdict::Compatible,
        reader: Verdict::Compatible,
        api: Verdict::Breaking,
        detail: format!("{what} of the {side} side cannot be listed: {why}"),
        why: Some("what code built on the bindings names cannot be compared".into()),
        example: None,
        undecided: Some(format!("{what} ({side} side: {why})")),
        shape: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface(items: &[(&str, &str, &str)]) -> Surface {
        let mut surface = Surface::default();
        for (key, group, shape) in items {
            surface.insert(
                (*key).into(),
                Item {
                    group: (*group).into(),
                    place: format!("types/{group}.json#"),
                    shape: (*shape).into(),
                },
            );
        }
        surface
    }

    #[test]
    fn an_item_gone_or_reshaped_breaks_and_an_addition_does_not() {
        let old = surface(&[("type A", "A", "object"), ("field A.x", "A", "integer")]);
        let same = changes(&Ok(old.clone()), &Ok(old.clone()));
        assert!(same.is_empty());
        let added = surface(&[
            ("type A", "A", "object"),
            ("field A.x", "A", "integer"),
            ("field A.y", "A", "string"),
            ("type B", "B", "object"),
        ]);
        assert!(changes(&Ok(old.clone()), &Ok(added)).is_empty());
        let reshaped = surface(&[("type A", "A", "object"), ("field A.x", "A", "number")]);
        let found = changes(&Ok(old.clone()), &Ok(reshaped));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].api, Verdict::Breaking);
        assert!(
            found[0].detail.contains("field A.x: integer → number"),
            "{}",
            found[0].detail
        );
        let renamed = surface(&[("type C", "A", "object"), ("field C.x", "A", "integer")]);
        let found = changes(&Ok(old), &Ok(renamed));
        assert_eq!(found.len(), 1);
        assert!(found[0].detail.contains("type A is gone"));
        assert!(found[0].detail.contains("field A.x is gone"));
    }

    #[test]
    fn a_side_that_cannot_be_modelled_is_undecided() {
        let one = surface(&[("type A", "A", "object")]);
        let found = changes(&Ok(one.clone()), &Err("no envelope".into()));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].api, Verdict::Breaking);
        assert!(found[0].undecided.is_some());
        assert_eq!(found[0].new_pointer, None);
        let placed = changes(&Ok(one.clone()), &Err("types/A.json#/type: number".into()));
        assert_eq!(placed[0].new_pointer.as_deref(), Some("types/A.json#/type"));
        assert_eq!(changes(&Err("x".into()), &Ok(one)).len(), 1);
        let neither = changes(&Err("x".into()), &Err("y".into()));
        assert_eq!(neither.len(), 1);
        assert!(neither[0].undecided.is_some());
    }

    #[test]
    fn a_name_generated_twice_keeps_both_shapes() {
        let mut twice = surface(&[("type A", "A", "object")]);
        twice.insert(
            "type A".into(),
            Item {
                group: "A".into(),
                place: "types/A.json#".into(),
                shape: "string".into(),
            },
        );
        let found = changes(&Ok(surface(&[("type A", "A", "object")])), &Ok(twice));
        assert_eq!(found.len(), 1);
    }
}
