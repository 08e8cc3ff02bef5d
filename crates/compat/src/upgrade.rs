//! A document of an older draft rewritten in 2020-12, meaning the same to
//! the validator, for comparing two versions written in different drafts.
//!
//! Each rewrite is one the drafts' own migration notes give: boolean
//! exclusive bounds become numbers, `items: [...]` becomes `prefixItems`,
//! `dependencies` splits in two, plain-name `$id`s become `$anchor`s, and
//! keywords the old draft does not have (so its validator ignored them) are
//! dropped. Where no rewrite keeps the meaning, the document gets an
//! obstacle instead, and comparisons that reach it cannot decide.

use jsonschema::Draft;
use serde_json::{Map, Value};

use crate::vocab;

/// Why no comparison that reaches a document can be decided: the first
/// thing met that this checker does not model (here: a rewrite that would
/// not keep the meaning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Obstacle {
    pub keyword: String,
    pub pointer: String,
    pub why: String,
}

/// Rewrites `value`, a document of `draft`, in 2020-12. `named` holds the
/// JSON pointers that references with an address before the fragment (in
/// any file of the set) name, any of which may lead into this document.
pub fn to_2020_12(value: &mut Value, draft: Draft, named: &[String]) -> Result<(), Obstacle> {
    let original = value.clone();
    let Walked {
        places,
        references,
        bases,
    } = walked(value, draft, named).map_err(|(keyword, pointer, why)| Obstacle {
        keyword: keyword.into(),
        pointer,
        why: why.into(),
    })?;
    // Children before parents: a parent's rewrite moves its children's
    // pointers (a parent's pointer has fewer tokens than its child's).
    for pointer in places.iter().rev() {
        if let Some(Value::Object(map)) = value.pointer_mut(pointer) {
            object(map, draft).map_err(|(keyword, why)| Obstacle {
                keyword: keyword.into(),
                pointer: pointer.clone(),
                why: why.into(),
            })?;
        }
    }
    // Each reference by pointer must still name the same place, or none.
    for (at, fragment) in &references {
        let moved = bases.iter().any(|base| {
            let target = format!("{base}{fragment}");
            match (original.pointer(&target), value.pointer(&target)) {
                (None, None) => false,
                (Some(_), Some(_)) => original_pointer(&original, draft, &target) != target,
                _ => true,
            }
        });
        if moved {
            let whose = if at.is_empty() {
                "a reference in another file"
            } else {
                "the reference"
            };
            return Err(Obstacle {
                keyword: "$ref".into(),
                pointer: at.clone(),
                why: format!(
                    "{whose} names by pointer a place the rewrite renames or drops (a tuple's \
                     `items`, `additionalItems`, `dependencies`, a keyword this draft does not \
                     have); in 2020-12 it would lead elsewhere"
                ),
            });
        }
    }
    if let Value::Object(map) = value {
        map.insert("$schema".into(), Value::String(DRAFT_2020_12.into()));
    }
    Ok(())
}

/// The `$schema` of a rewrite.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Why [`walked`] stopped: the keyword, where, and why.
type Stopped = (&'static str, String, &'static str);

/// What [`walked`] finds.
struct Walked {
    /// Every place the rewrite rewrites, parents before children.
    places: Vec<String>,
    /// Each reference by pointer: where it stands (`""` for one in another
    /// file) and its fragment.
    references: Vec<(String, String)>,
    /// The places a reference's pointer may start from: the root and each
    /// resource in it.
    bases: Vec<String>,
}

/// The places of `value` the validator of `draft` reads as schemas: its
/// schema positions, and each place a reference names by pointer (which
/// the validator reads as a schema of the draft wherever it stands: an
/// entry of `$defs` in a draft without `$defs`, a member of a keyword no
/// draft knows), walked the same way. A
/// pointer into a value a keyword reads otherwise (a `const`, the map of
/// `properties` itself) has no rewrite that keeps both meanings: an error,
/// with where the reference stands and why.
fn walked(value: &Value, draft: Draft, named: &[String]) -> Result<Walked, Stopped> {
    const TOO_LARGE: &str = "the document is too large to rewrite in 2020-12";
    // Each reference is tried from each base, again as more are found: a
    // bound on the pairs, not on the document alone, keeps it quick.
    const MAX_TRIES: usize = 2_000_000;
    let mut tries = 0usize;
    let id = if draft == Draft::Draft4 { "id" } else { "$id" };
    let mut seen = std::collections::BTreeSet::new();
    let mut references: Vec<(String, String)> = Vec::new();
    // Last, so that a reference in this file is named where it stands.
    let elsewhere: Vec<(String, String)> = named
        .iter()
        .map(|fragment| (String::new(), fragment.clone()))
        .collect();
    let mut bases = vec![String::new()];
    let mut roots = vec![String::new()];
    while !roots.is_empty() {
        while let Some(root) = roots.pop() {
            let Some(at) = value.pointer(&root) else {
                continue;
            };
            let positions = vocab::positions(at, &root, draft)
                .map_err(|_| ("nesting", root.clone(), TOO_LARGE))?;
            for position in positions {
                if !seen.insert(position.pointer.clone()) {
                    continue;
                }
                if seen.len() > vocab::MAX_POSITIONS {
                    return Err(("nesting", root, TOO_LARGE));
                }
                let Value::Object(map) = position.value else {
                    continue;
                };
                if map
                    .get(id)
                    .and_then(Value::as_str)
                    .is_some_and(|id| !id.starts_with('#'))
                {
                    bases.push(position.pointer.clone());
                }
                for key in ["$ref", "$dynamicRef", "$recursiveRef"] {
                    if let Some(fragment) = map
                        .get(key)
                        .and_then(Value::as_str)
                        .and_then(pointer_fragment)
                    {
                        references.push((format!("{}/{key}", position.pointer), fragment));
                    }
                }
            }
        }
        for (at, fragment) in references.iter().chain(&elsewhere) {
            for base in &bases {
                tries += 1;
                if tries > MAX_TRIES {
                    return Err(("size", String::new(), TOO_LARGE));
                }
                let target = format!("{base}{fragment}");
                if seen.contains(&target) || value.pointer(&target).is_none() {
                    continue;
                }
                if read_otherwise(&seen, &target, draft) {
                    return Err((
                        "$ref",
                        at.clone(),
                        "a reference names by pointer a place this draft reads as something \
                         other than a schema (here, or from another file where the place is \
                         the root); no rewrite keeps both meanings",
                    ));
                }
                roots.push(target);
            }
        }
    }
    let mut places: Vec<String> = seen.into_iter().collect();
    places.sort_by_key(|pointer| pointer.matches('/').count());
    references.extend(elsewhere);
    Ok(Walked {
        places,
        references,
        bases,
    })
}

/// Whether `target`, a place no walk has reached, stands inside a value a
/// keyword of `draft` reads (below the nearest schema position that holds
/// it), or holds schema positions itself.
fn read_otherwise(seen: &std::collections::BTreeSet<String>, target: &str, draft: Draft) -> bool {
    let below = format!("{target}/");
    if seen
        .range(below.clone()..)
        .next()
        .is_some_and(|p| p.starts_with(&below))
    {
        return true;
    }
    let mut holder = target;
    while let Some((parent, token)) = holder.rsplit_once('/') {
        if seen.contains(parent) {
            let keyword = contract::unescape_pointer_token(token);
            return vocab::row_of(draft, &keyword).is_some() || draft.is_known_keyword(&keyword);
        }
        holder = parent;
    }
    true
}

/// The fragment of `reference` when it is a JSON pointer (or empty: the
/// whole resource), percent-decoded.
fn pointer_fragment(reference: &str) -> Option<String> {
    let (_, fragment) = reference.split_once('#')?;
    let decoded = percent_encoding::percent_decode_str(fragment)
        .decode_utf8()
        .ok()?;
    (decoded.is_empty() || decoded.starts_with('/')).then(|| decoded.into_owned())
}

/// The JSON pointers the references of `documents` that name another
/// file (or resource) name in their fragments, wherever in them they stand.
pub fn named_pointers<'v>(documents: impl IntoIterator<Item = &'v Value>) -> Vec<String> {
    let found: std::collections::BTreeSet<String> = documents
        .into_iter()
        .flat_map(vocab::objects)
        .flat_map(|(_, map)| {
            // One with no address before its fragment stays in its file.
            ["$ref", "$dynamicRef", "$recursiveRef"]
                .into_iter()
                .filter_map(|key| map.get(key)?.as_str())
                .filter(|reference| !reference.starts_with('#'))
                .filter_map(pointer_fragment)
                .collect::<Vec<_>>()
        })
        .collect();
    found.into_iter().collect()
}

/// Why one schema object cannot be rewritten: the keyword and the reason.
type Refusal = (&'static str, &'static str);

fn object(map: &mut Map<String, Value>, draft: Draft) -> Result<(), Refusal> {
    // Drafts up to 7 ignore everything beside a `$ref`: a keyword that
    // constrains, or says what a value means (a `default`), would mean
    // something after the rewrite that it did not mean before.
    if draft <= Draft::Draft7 && map.contains_key("$ref") {
        let ignored = map.keys().any(|k| {
            k != "$ref"
                && matches!(
                    vocab::handling(draft, k),
                    vocab::Handling::Modelled
                        | vocab::Handling::CannotDecide(_)
                        | vocab::Handling::Meaning(_)
                )
        });
        if ignored {
            return Err((
                "$ref",
                "this draft ignores the keywords beside a reference, and 2020-12 does not; \
                 the rewrite would change what they mean",
            ));
        }
        // Its validator resolves the reference against the enclosing base,
        // not against an identifier beside it, as 2020-12's does.
        let id = if draft == Draft::Draft4 { "id" } else { "$id" };
        if map.contains_key(id) {
            return Err((
                id,
                "this draft ignores an identifier beside a reference, and 2020-12 resolves \
                 the reference against it; the rewrite would change where it leads",
            ));
        }
    }
    // Keywords the old draft does not have were ignored by its validator,
    // all but this one (the table's row says where it is not).
    if draft == Draft::Draft201909 && map.contains_key("$dynamicRef") {
        return Err((
            "$dynamicRef",
            "2019-09 has no `$dynamicRef`, yet its validator follows one where it collects what \
             `unevaluatedProperties` and `unevaluatedItems` see past; what the document accepts \
             depends on the validator",
        ));
    }
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !draft.is_known_keyword(k) && Draft::Draft202012.is_known_keyword(k))
        .cloned()
        .collect();
    // This validator still finds an identifier or anchor below some of
    // them (draft 4's `then`): dropped with its keyword, a reference to it
    // would lead nowhere.
    if unknown
        .iter()
        .any(|key| map.get(key).is_some_and(declares_a_resource))
    {
        return Err((
            "$id",
            "a keyword this draft does not have holds an identifier or anchor, which this \
             draft's validator may still find; the rewrite would drop it",
        ));
    }
    for key in unknown {
        // 2020-12 reads `$defs` as a place for definitions and nothing
        // more, as this draft's validator reads it where a pointer names it.
        if key != "$defs" {
            map.remove(&key);
        }
    }
    // A `$schema` inside names the document's own draft (another is an
    // obstacle of its own), and the validator would read what lies below
    // in it: the rewrite is read in 2020-12 throughout.
    if map.get("$schema").is_some_and(Value::is_string) {
        map.insert("$schema".into(), Value::String(DRAFT_2020_12.into()));
    }
    format(map, draft)?;
    if draft == Draft::Draft4 {
        draft_4(map)?;
    }
    if draft <= Draft::Draft7 {
        identifiers(map)?;
        dependencies(map);
    } else if draft == Draft::Draft201909
        && map.get("dependencies").is_some_and(declares_a_resource)
    {
        // This validator reads `dependencies` in every draft, but 2020-12's
        // finds no identifier below it: a reference to one would lead
        // nowhere.
        return Err((
            "dependencies",
            "it holds an identifier or anchor, which 2019-09's validator finds there and \
             2020-12's does not",
        ));
    }
    if draft <= Draft::Draft201909 {
        items(map)?;
    }
    // A keyword that constrains values in the old draft and only annotates
    // in 2020-12 (the content keywords, which this validator checks in
    // drafts 6 and 7) has no spelling there that keeps its check.
    if let Some(keyword) = map.keys().find(|k| {
        !vocab::handling(draft, k).constrains_nothing()
            && vocab::handling(Draft::Draft202012, k).constrains_nothing()
    }) {
        return Err((
            vocab::row_of(draft, keyword).map_or("keyword", |row| row.keyword),
            "this draft's validator checks it and 2020-12's only reads it as an annotation; \
             the rewrite would change what it accepts",
        ));
    }
    Ok(())
}

/// Whether `value` holds, at any depth, an object with an identifier or
/// anchor.
fn declares_a_resource(value: &Value) -> bool {
    vocab::objects(value).any(|(_, map)| {
        ["id", "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor"]
            .iter()
            .any(|key| map.get(*key).is_some_and(Value::is_string))
    })
}

/// A `format` the old draft's validator does not know (`uuid`, `duration`
/// before 2019-09; `iri` before 7) asserted nothing there, so it goes, as
/// an unknown keyword does: 2020-12's validator knows it and would assert
/// it. Whether a name is known is asked of the validator itself, which
/// refuses to compile a format it does not know when told not to ignore it.
fn format(map: &mut Map<String, Value>, draft: Draft) -> Result<(), Refusal> {
    let Some(Value::String(name)) = map.get("format") else {
        return Ok(());
    };
    // The one name both drafts know but read apart: draft 4 and 6 check a
    // hostname by RFC 1034 alone, later drafts the IDNA rules of RFC 5891
    // too (`ab--cd` passes the first, fails the second).
    if name == "hostname" && draft <= Draft::Draft6 {
        return Err((
            "format",
            "draft 4 and 6 read a hostname by RFC 1034 and 2020-12 by RFC 5891; \
             the rewrite would change what it accepts",
        ));
    }
    let known = |draft: Draft| {
        jsonschema::options()
            .with_draft(draft)
            .should_validate_formats(true)
            .should_ignore_unknown_formats(false)
            .build(&serde_json::json!({ "format": name }))
            .is_ok()
    };
    if !known(draft) && known(Draft::Draft202012) {
        map.remove("format");
    }
    Ok(())
}

/// Draft 4's `id`, its integers and its boolean exclusive bounds.
fn draft_4(map: &mut Map<String, Value>) -> Result<(), Refusal> {
    if let Some(id) = map.remove("id") {
        map.insert("$id".into(), id);
    }
    if map.get("type").is_some_and(|t| names(t, "integer")) {
        return Err((
            "type",
            "draft 4 refuses 1.0 as an integer and 2020-12 accepts it",
        ));
    }
    for (exclusive, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        match map.get(exclusive) {
            Some(Value::Bool(true)) => {
                let limit = map.remove(bound);
                map.remove(exclusive);
                if let Some(limit) = limit {
                    map.insert(exclusive.into(), limit);
                }
            }
            // Its validator reads the keyword only as `true` beside the
            // bound; anything else (`false`, a number, which 2020-12 would
            // read as a bound) bounds nothing there.
            Some(_) => {
                map.remove(exclusive);
            }
            None => {}
        }
    }
    Ok(())
}

/// A plain-name `$id` (`#foo`) is an `$anchor` in 2020-12.
fn identifiers(map: &mut Map<String, Value>) -> Result<(), Refusal> {
    if let Some(Value::String(id)) = map.get("$id") {
        if let Some(name) = id.strip_prefix('#') {
            let anchor = Value::String(name.to_string());
            map.remove("$id");
            map.insert("$anchor".into(), anchor);
        } else if id.contains('#') && !id.ends_with('#') {
            return Err((
                "$id",
                "an identifier with both a path and a plain-name fragment has no 2020-12 spelling",
            ));
        }
    }
    Ok(())
}

/// `dependencies` splits into `dependentRequired` and `dependentSchemas`.
fn dependencies(map: &mut Map<String, Value>) {
    if let Some(Value::Object(dependencies)) = map.remove("dependencies") {
        let (mut required, mut schemas) = (Map::new(), Map::new());
        for (name, dependency) in dependencies {
            if dependency.is_array() {
                required.insert(name, dependency);
            } else {
                schemas.insert(name, dependency);
            }
        }
        if !required.is_empty() {
            map.insert("dependentRequired".into(), Value::Object(required));
        }
        if !schemas.is_empty() {
            map.insert("dependentSchemas".into(), Value::Object(schemas));
        }
    }
}

/// `items: [...]` becomes `prefixItems`, and `additionalItems` becomes `items`.
fn items(map: &mut Map<String, Value>) -> Result<(), Refusal> {
    if map.get("items").is_some_and(Value::is_array) {
        if let Some(tuple) = map.remove("items") {
            map.insert("prefixItems".into(), tuple);
        }
        if let Some(rest) = map.remove("additionalItems") {
            map.insert("items".into(), rest);
        }
        #[cfg(test)]
        if tests::CLOSES_TUPLES.get() {
            map.entry("items").or_insert(Value::Bool(false));
        }
    } else {
        // Without a tuple, `additionalItems` applies to nothing.
        map.remove("additionalItems");
    }
    if map.contains_key("$recursiveRef") || map.contains_key("$recursiveAnchor") {
        return Err((
            "$recursiveRef",
            "a recursive reference has no exact 2020-12 spelling",
        ));
    }
    Ok(())
}

/// Where a place of the rewrite (`pointer`, a JSON pointer into the
/// 2020-12 rewrite of `original`, a document of `draft`) stands in
/// `original` as written: each keyword the rewrite renamed or moved is
/// spelled back (`prefixItems` as `items`, `items` after a tuple as
/// `additionalItems`, `dependentRequired` and `dependentSchemas` as
/// `dependencies`, an `$anchor` as the `$id` or `id` it was, draft 4's
/// numeric exclusive bound as the `minimum` or `maximum` that held it), so
/// a report names the place the reader of the file can find.
pub fn original_pointer(original: &Value, draft: Draft, pointer: &str) -> String {
    /// What the next token of the pointer names.
    enum Next<'v> {
        /// A keyword of this schema (absent: the schema is not there).
        Keyword(Option<&'v Map<String, Value>>),
        /// An index into a list of subschemas.
        Index(Option<&'v Value>),
        /// A name in a map of subschemas.
        Name(Option<&'v Value>),
        /// Anything below a keyword's plain value.
        Plain,
    }
    let mut out = String::new();
    let mut next = Next::Keyword(original.as_object());
    for token in pointer.split('/').skip(1) {
        let name = contract::unescape_pointer_token(token);
        let (spelled, below) = match next {
            Next::Keyword(map) => {
                let written = |key: &str| map.and_then(|m| m.get(key));
                let tuple = written("items").is_some_and(Value::is_array);
                let flag = |key: &str| written(key).is_some_and(Value::is_boolean);
                let spelled = match name.as_str() {
                    "prefixItems" if tuple => "items",
                    "items" if tuple => "additionalItems",
                    // Only a split `dependencies` wrote them: 2019-09 has
                    // all three and keeps each where it stands.
                    "dependentRequired" | "dependentSchemas"
                        if draft <= Draft::Draft7 && written("dependencies").is_some() =>
                    {
                        "dependencies"
                    }
                    "$id" if draft == Draft::Draft4 => "id",
                    "$anchor" if draft <= Draft::Draft7 => {
                        if draft == Draft::Draft4 {
                            "id"
                        } else {
                            "$id"
                        }
                    }
                    "exclusiveMinimum" if draft == Draft::Draft4 && flag("exclusiveMinimum") => {
                        "minimum"
                    }
                    "exclusiveMaximum" if draft == Draft::Draft4 && flag("exclusiveMaximum") => {
                        "maximum"
                    }
                    other => other,
                };
                let value = written(spelled);
                // The shape is the rewrite's keyword's, in 2020-12.
                let below = match vocab::row_of(Draft::Draft202012, &name).map(|row| row.shape) {
                    Some(vocab::Shape::Schema | vocab::Shape::SchemaOrList) => {
                        Next::Keyword(value.and_then(Value::as_object))
                    }
                    Some(vocab::Shape::List) => Next::Index(value),
                    Some(vocab::Shape::Map | vocab::Shape::MapOfSchemasOrNames) => {
                        Next::Name(value)
                    }
                    Some(vocab::Shape::Value) | None => Next::Plain,
                };
                (spelled.to_string(), below)
            }
            Next::Index(list) => {
                let item = name
                    .parse::<usize>()
                    .ok()
                    .and_then(|index| list.and_then(|l| l.get(index)));
                (name, Next::Keyword(item.and_then(Value::as_object)))
            }
            Next::Name(map) => {
                let member = map.and_then(|m| m.get(&name));
                (name, Next::Keyword(member.and_then(Value::as_object)))
            }
            Next::Plain => (name, Next::Plain),
        };
        out.push('/');
        out.push_str(&contract::escape_pointer_token(&spelled));
        next = below;
    }
    out
}

fn names(types: &Value, name: &str) -> bool {
    match types {
        Value::String(one) => one == name,
        Value::Array(many) => many.iter().any(|t| t == name),
        _ => false,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    thread_local! {
        /// A fault a test plants in this thread's rewrites: an open tuple
        /// (`items: [...]` alone) is closed, so the rewrite accepts less
        /// than the original.
        pub(crate) static CLOSES_TUPLES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// The first scalar of `rewritten` (the rewrite of `original`, a
    /// document of `draft`) that [`original_pointer`] does not lead back to
    /// in `original`, by its pointer in the rewrite; identifiers and the
    /// dialect, which the rewrite respells, aside.
    fn misplaced(original: &Value, draft: Draft, rewritten: &Value) -> Option<String> {
        let mut stack = vec![(String::new(), rewritten)];
        while let Some((pointer, value)) = stack.pop() {
            match value {
                Value::Object(map) => stack.extend(map.iter().filter_map(|(key, value)| {
                    let respelt = matches!(key.as_str(), "$schema" | "$id" | "$anchor");
                    (!respelt).then(|| {
                        let token = contract::escape_pointer_token(key);
                        (format!("{pointer}/{token}"), value)
                    })
                })),
                Value::Array(items) => stack.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(index, item)| (format!("{pointer}/{index}"), item)),
                ),
                scalar => {
                    let back = original_pointer(original, draft, &pointer);
                    if original.pointer(&back) != Some(scalar) {
                        return Some(format!("{pointer} (put at {back})"));
                    }
                }
            }
        }
        None
    }

    #[test]
    fn a_place_in_the_rewrite_is_named_as_the_file_spells_it() {
        let tuple = json!({"$schema": "http://json-schema.org/draft-07/schema#",
            "items": [{"type": "string"}], "additionalItems": {"type": "integer"},
            "dependencies": {"a": ["b"], "c": {"minProperties": 2}}});
        let mut rewritten = tuple.clone();
        to_2020_12(&mut rewritten, Draft::Draft7, &[]).expect("rewrites");
        for (pointer, spelled) in [
            ("/prefixItems/0/type", "/items/0/type"),
            ("/items/type", "/additionalItems/type"),
            ("/dependentRequired/a/0", "/dependencies/a/0"),
            (
                "/dependentSchemas/c/minProperties",
                "/dependencies/c/minProperties",
            ),
        ] {
            assert!(
                rewritten.pointer(pointer).is_some(),
                "{pointer} in {rewritten}"
            );
            assert_eq!(original_pointer(&tuple, Draft::Draft7, pointer), spelled);
        }
        let bound = json!({"$schema": "http://json-schema.org/draft-04/schema#",
            "minimum": 3, "exclusiveMinimum": true});
        assert_eq!(
            original_pointer(&bound, Draft::Draft4, "/exclusiveMinimum"),
            "/minimum"
        );
        assert_eq!(misplaced(&tuple, Draft::Draft7, &rewritten), None);
        // 2019-09 has both spellings, and the rewrite renames neither.
        let both = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
            "dependencies": {"a": {"minProperties": 2}},
            "dependentRequired": {"c": ["d"]}, "dependentSchemas": {"e": {"minProperties": 3}}});
        let mut rewritten = both.clone();
        to_2020_12(&mut rewritten, Draft::Draft201909, &[]).expect("rewrites");
        for pointer in [
            "/dependentRequired/c/0",
            "/dependentSchemas/e/minProperties",
            "/dependencies/a/minProperties",
        ] {
            assert_eq!(
                original_pointer(&both, Draft::Draft201909, pointer),
                pointer
            );
        }
        assert_eq!(misplaced(&both, Draft::Draft201909, &rewritten), None);
        // So a reference into one of them still leads where it did.
        let mut referred = both.clone();
        referred["allOf"] = json!([{"$ref": "#/dependentSchemas/e"}]);
        assert_eq!(to_2020_12(&mut referred, Draft::Draft201909, &[]), Ok(()));
    }

    /// The rewritten document accepts exactly what the original does, on
    /// every value tried.
    fn same_meaning(original: Value, draft: Draft, values: &[Value]) {
        let mut rewritten = original.clone();
        to_2020_12(&mut rewritten, draft, &[]).expect("rewrites");
        // Formats asserted, as `compat` reads them by default.
        let compile = |schema: &Value| {
            jsonschema::options()
                .should_validate_formats(true)
                .build(schema)
                .expect("compiles")
        };
        let (old, new) = (compile(&original), compile(&rewritten));
        for value in values {
            assert_eq!(
                old.is_valid(value),
                new.is_valid(value),
                "{value} under {original} and {rewritten}"
            );
        }
    }

    #[test]
    fn rewritten_documents_mean_what_the_originals_meant() {
        let numbers = [json!(9), json!(10), json!(10.5), json!(11), json!("x")];
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "number", "minimum": 10, "exclusiveMinimum": true}),
            Draft::Draft4,
            &numbers,
        );
        // Where no meta-schema checks it (a place only a reference reads),
        // a numeric exclusive bound in draft 4 is no bound at all.
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-04/schema#",
                "$defs": {"a": {"type": "number", "minimum": 0, "exclusiveMinimum": 0.1, "exclusiveMaximum": 2}},
                "allOf": [{"$ref": "#/$defs/a"}]}),
            Draft::Draft4,
            &[
                json!(-1),
                json!(0),
                json!(0.05),
                json!(0.1),
                json!(2),
                json!(3),
            ],
        );
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}),
            Draft::Draft7,
            &[json!([]), json!(["a"]), json!(["a", 1]), json!([1])],
        );
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}),
            Draft::Draft7,
            &[
                json!({"a": 1}),
                json!({"a": 1, "b": 2}),
                json!({"c": 1}),
                json!({"c": 1, "d": 1}),
            ],
        );
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-06/schema#", "if": {"type": "string"}, "then": false}),
            Draft::Draft6,
            &[json!("a"), json!(1)],
        );
        same_meaning(
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"$id": "#a", "type": "string"}}, "properties": {"x": {"$ref": "#a"}}}),
            Draft::Draft7,
            &[json!({"x": "s"}), json!({"x": 1})],
        );
    }

    /// Every format the drafts name, in every draft before 2020-12: the
    /// rewrite (where it is not an obstacle) accepts what the original did,
    /// on strings each of some format and none of others. A format the old
    /// draft's validator does not know asserted nothing there.
    #[test]
    fn every_format_means_what_the_old_drafts_validator_made_of_it() {
        let formats = [
            "date",
            "date-time",
            "time",
            "duration",
            "email",
            "idn-email",
            "hostname",
            "idn-hostname",
            "ipv4",
            "ipv6",
            "uri",
            "uri-reference",
            "iri",
            "iri-reference",
            "uri-template",
            "uuid",
            "json-pointer",
            "relative-json-pointer",
            "regex",
        ];
        let probes: Vec<Value> = [
            "",
            "7",
            "a",
            "(",
            "ab--cd",
            "xn--abc",
            "/a",
            "0/a",
            "2026-12-05",
            "10:00:00Z",
            "2026-12-05T10:00:00Z",
            "P1D",
            "a@b.c",
            "é@é.é",
            "1.2.3.4",
            "::1",
            "http://x/é",
            "x:y",
            "{a}",
            "123e4567-e89b-12d3-a456-426614174000",
        ]
        .into_iter()
        .map(Value::from)
        .collect();
        let mut rewritten = 0;
        for (draft, uri) in [
            (Draft::Draft4, "http://json-schema.org/draft-04/schema#"),
            (Draft::Draft6, "http://json-schema.org/draft-06/schema#"),
            (Draft::Draft7, "http://json-schema.org/draft-07/schema#"),
            (
                Draft::Draft201909,
                "https://json-schema.org/draft/2019-09/schema",
            ),
        ] {
            for format in formats {
                let original = json!({"$schema": uri, "format": format});
                if to_2020_12(&mut original.clone(), draft, &[]).is_ok() {
                    same_meaning(original, draft, &probes);
                    rewritten += 1;
                }
            }
        }
        // Only draft 4 and 6's hostname is an obstacle.
        assert_eq!(rewritten, formats.len() * 4 - 2);
    }

    #[test]
    fn what_a_pointer_names_is_rewritten_where_it_stands() {
        let d4 = "http://json-schema.org/draft-04/schema#";
        let d7 = "http://json-schema.org/draft-07/schema#";
        // `$defs` in a draft without it: the validator reads each entry a
        // pointer names as a schema of the draft, and 2020-12 keeps them.
        same_meaning(
            json!({"$schema": d4, "properties": {"v": {"$ref": "#/$defs/a"}},
                "$defs": {"a": {"type": "number", "maximum": 5, "exclusiveMaximum": true}}}),
            Draft::Draft4,
            &[json!({"v": 4}), json!({"v": 5}), json!({"v": 6})],
        );
        same_meaning(
            json!({"$schema": d7, "properties": {"v": {"$ref": "#/$defs/a"}},
                "$defs": {"a": {"items": [{"type": "string"}], "additionalItems": false}}}),
            Draft::Draft7,
            &[
                json!({"v": ["a"]}),
                json!({"v": ["a", "b"]}),
                json!({"v": [1]}),
            ],
        );
        // A member of a keyword no draft knows, named by a pointer here or
        // in another file.
        let tuple = json!({"items": [{"type": "string"}], "additionalItems": false});
        same_meaning(
            json!({"$schema": d7, "properties": {"v": {"$ref": "#/x-defs/a"}}, "x-defs": {"a": tuple}}),
            Draft::Draft7,
            &[json!({"v": ["a"]}), json!({"v": ["a", "b"]})],
        );
        let mut named = json!({"$schema": d7, "x-defs": {"a": tuple}});
        to_2020_12(&mut named, Draft::Draft7, &["/x-defs/a".into()]).expect("rewrites");
        assert_eq!(named.pointer("/x-defs/a/items"), Some(&json!(false)));
        // What another file names: a fragment after an address only.
        let other = json!({"properties": {
            "a": {"$ref": "Case.json#/x-defs/a"},
            "b": {"$ref": "#/items/0"},
            "c": {"$ref": "Case.json#%2Fy"},
        }});
        assert_eq!(named_pointers([&other]), ["/x-defs/a", "/y"]);
    }

    /// A `$schema` inside that names the document's draft would have the
    /// validator read the rewritten keywords below it in that draft.
    #[test]
    fn a_schema_inside_is_read_in_2020_12_after_the_rewrite() {
        let d7 = "http://json-schema.org/draft-07/schema#";
        same_meaning(
            json!({"$schema": d7, "properties": {"v": {"$schema": d7, "items": [{"type": "string"}]}}}),
            Draft::Draft7,
            &[json!({"v": [1]}), json!({"v": ["a", 1]})],
        );
    }

    #[test]
    fn a_document_too_deep_to_walk_is_an_obstacle_of_nesting() {
        let mut deep = json!({"type": "string"});
        for _ in 0..=vocab::MAX_NESTING {
            deep = json!({ "not": deep });
        }
        deep["$schema"] = json!("http://json-schema.org/draft-07/schema#");
        let obstacle = to_2020_12(&mut deep, Draft::Draft7, &[]).expect_err("too deep");
        assert_eq!(obstacle.keyword, "nesting");
    }

    /// Each reference is tried from each resource: past a bound on the
    /// pairs, "cannot decide", not a wait.
    #[test]
    fn many_references_in_many_resources_are_an_obstacle_of_size() {
        let resources: Vec<Value> = (0..1500)
            .map(|n| json!({"$id": format!("r{n}.json"), "allOf": [{"$ref": "#/definitions/a"}]}))
            .collect();
        let mut many = json!({"$schema": "http://json-schema.org/draft-07/schema#",
            "anyOf": resources, "definitions": {"a": true}});
        let obstacle = to_2020_12(&mut many, Draft::Draft7, &[]).expect_err("too many");
        assert_eq!(obstacle.keyword, "size");
    }

    #[test]
    fn a_pointer_to_what_the_rewrite_moves_is_an_obstacle() {
        let d7 = "http://json-schema.org/draft-07/schema#";
        for (draft, uri, document) in [
            (Draft::Draft7, d7, json!({"items": [{"type": "integer"}]})),
            (
                Draft::Draft7,
                d7,
                json!({"items": [true], "additionalItems": {"type": "integer"}}),
            ),
            (
                Draft::Draft7,
                d7,
                json!({"dependencies": {"y": {"required": ["z"]}}}),
            ),
            // Kept by the rewrite, but read as a value here.
            (Draft::Draft7, d7, json!({"const": {"type": "integer"}})),
            // Dropped: the draft does not have it.
            (
                Draft::Draft6,
                "http://json-schema.org/draft-06/schema#",
                json!({"then": {"type": "integer"}}),
            ),
            (
                Draft::Draft4,
                "http://json-schema.org/draft-04/schema#",
                json!({"const": {"minimum": 1}}),
            ),
        ] {
            let Value::Object(map) = &document else {
                unreachable!()
            };
            let (keyword, value) = map.iter().next_back().expect("one keyword");
            let target = match value {
                Value::Array(_) => format!("#/{keyword}/0"),
                Value::Object(map) if keyword == "dependencies" => {
                    format!("#/{keyword}/{}", map.keys().next().expect("a name"))
                }
                _ => format!("#/{keyword}"),
            };
            let mut here = document.clone();
            here["$schema"] = json!(uri);
            here["properties"] = json!({"v": {"$ref": target}});
            let obstacle = to_2020_12(&mut here.clone(), draft, &[]).expect_err(&here.to_string());
            assert_eq!(obstacle.pointer, "/properties/v/$ref", "{here}");
            // Named from another file: no place here to show.
            let mut there = document.clone();
            there["$schema"] = json!(uri);
            let fragment = target.trim_start_matches('#').to_string();
            let obstacle = to_2020_12(&mut there, draft, &[fragment]).expect_err(&target);
            assert_eq!(obstacle.pointer, "", "{target}");
        }
    }

    #[test]
    fn what_has_no_2020_12_spelling_is_an_obstacle() {
        let mut integer =
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"});
        assert!(to_2020_12(&mut integer, Draft::Draft4, &[]).is_err());
        let mut siblings = json!({"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/a", "type": "string", "definitions": {"a": true}});
        assert!(to_2020_12(&mut siblings, Draft::Draft7, &[]).is_err());
        // A `default` beside it was ignored too; 2020-12 reads it.
        let mut default = json!({"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/a", "default": 1, "definitions": {"a": true}});
        assert!(to_2020_12(&mut default, Draft::Draft7, &[]).is_err());
        // An annotation beside it changes no verdict: rewritten.
        let mut titled = json!({"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/a", "title": "A", "definitions": {"a": true}});
        assert!(to_2020_12(&mut titled, Draft::Draft7, &[]).is_ok());
        // An identifier beside a reference: draft 7's validator resolves the
        // reference against the document's base (a string here), 2020-12's
        // against the identifier (an integer).
        let base = "https://x.invalid/a.json";
        let beside = json!({"$schema": "http://json-schema.org/draft-07/schema#", "$id": base,
            "definitions": {"a": {"type": "string"}},
            "properties": {"p": {"$id": "https://x.invalid/b.json", "$ref": "#/definitions/a",
                "definitions": {"a": {"type": "integer"}}}}});
        let reads = jsonschema::validator_for(&beside).expect("compiles");
        assert!(reads.is_valid(&json!({"p": "s"})) && !reads.is_valid(&json!({"p": 1})));
        assert!(to_2020_12(&mut beside.clone(), Draft::Draft7, &[]).is_err());
        // 2019-09's validator finds an identifier below `dependencies`
        // (and reads `dependencies` as draft 7 did); 2020-12's validator
        // reads it too, but finds none there, so the reference fails.
        let dependencies = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
            "properties": {"x": {"dependencies": {"y": {"$id": "r1.json", "$ref": "#/definitions/c",
                "definitions": {"c": {"type": "number"}}}}}}});
        let reads = jsonschema::validator_for(&dependencies).expect("compiles");
        assert!(!reads.is_valid(&json!({"x": {"y": "s"}})));
        let mut in_2020_12 = dependencies.clone();
        in_2020_12["$schema"] = json!(DRAFT_2020_12);
        assert!(jsonschema::validator_for(&in_2020_12).is_err());
        assert!(to_2020_12(&mut dependencies.clone(), Draft::Draft201909, &[]).is_err());
        // 2019-09 has no `$dynamicRef`, but its validator's
        // `unevaluatedProperties` follows one (`x` counts as seen).
        let dynamic = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
            "allOf": [{"$dynamicRef": "#/$defs/b"}], "unevaluatedProperties": false,
            "$defs": {"b": {"properties": {"x": true}}}});
        let reads = jsonschema::validator_for(&dynamic).expect("compiles");
        assert!(reads.is_valid(&json!({"x": 1})) && !reads.is_valid(&json!({"y": 1})));
        assert!(to_2020_12(&mut dynamic.clone(), Draft::Draft201909, &[]).is_err());
        // Draft 4 has no `then`, yet its validator finds the anchor below.
        let hidden = json!({"$schema": "http://json-schema.org/draft-04/schema#",
            "allOf": [{"$ref": "#own"}],
            "definitions": {"a": {"then": {"id": "#own", "type": "integer"}}}});
        let reads = jsonschema::validator_for(&hidden).expect("compiles");
        assert!(!reads.is_valid(&json!("s")) && reads.is_valid(&json!(1)));
        assert!(to_2020_12(&mut hidden.clone(), Draft::Draft4, &[]).is_err());
        let mut beside_4 = json!({"$schema": "http://json-schema.org/draft-04/schema#",
            "properties": {"p": {"id": "https://x.invalid/b.json", "$ref": "#/definitions/a"}}});
        assert!(to_2020_12(&mut beside_4, Draft::Draft4, &[]).is_err());
        // Read apart by the two drafts' validators, which this asks.
        let hostname = |draft| {
            jsonschema::options()
                .with_draft(draft)
                .should_validate_formats(true)
                .build(&json!({"format": "hostname"}))
                .expect("compiles")
                .is_valid(&json!("ab--cd"))
        };
        assert!(hostname(Draft::Draft6) && !hostname(Draft::Draft202012));
        let mut host =
            json!({"$schema": "http://json-schema.org/draft-06/schema#", "format": "hostname"});
        assert!(to_2020_12(&mut host, Draft::Draft6, &[]).is_err());
        // Checked by draft 6 and 7's validator, an annotation in 2020-12.
        for (draft, uri) in [
            (Draft::Draft6, "http://json-schema.org/draft-06/schema#"),
            (Draft::Draft7, "http://json-schema.org/draft-07/schema#"),
        ] {
            for keyword in [
                json!({"contentEncoding": "base64"}),
                json!({"contentMediaType": "application/json"}),
            ] {
                let mut content = json!({"$schema": uri});
                if let (Value::Object(map), Value::Object(more)) = (&mut content, keyword) {
                    map.extend(more);
                }
                let checks = jsonschema::validator_for(&content).expect("compiles");
                assert!(!checks.is_valid(&json!("!!!")), "{content}");
                assert!(to_2020_12(&mut content, draft, &[]).is_err());
            }
        }
    }

    /// Whether compat would put values to the validator of `doc` (see
    /// `Prover::may_validate`).
    fn may_validate(doc: &Value) -> bool {
        use crate::space::{Role, Space, Version};
        let rel = "types/Case.json";
        let Ok(set) = contract::SchemaSet::from_texts(
            std::path::Path::new("t"),
            [(rel, doc.to_string().as_str())],
        ) else {
            return false;
        };
        let Ok(space) = Space::new(&set, &set, Default::default()) else {
            return false;
        };
        let prover = crate::prove::Prover::new(&space);
        space
            .find(Version::Old, Role::Written, rel)
            .and_then(|id| space.place(id, ""))
            .is_some_and(|place| prover.may_validate(&place))
    }

    /// Generated documents in every draft before 2020-12 (the oracle's
    /// pairs, respelt by `sample::schemas::in_draft`): wherever the rewrite
    /// succeeds, the validator reads the original, in its own draft, and the
    /// rewrite alike on values drawn from both, their one-step mutations and
    /// arbitrary ones. The prover trusts the rewrite; the search asks the
    /// originals too, but only on the documents a user compares: this asks
    /// them on documents no one wrote. Each scalar of a rewrite is also
    /// found again where `original_pointer` puts it.
    /// `COMPAT_UPGRADE_DOCS=N COMPAT_UPGRADE_SEED=S` runs N documents a draft.
    #[test]
    fn rewritten_generated_documents_mean_what_the_originals_meant() {
        use sample::schemas::{self, Draft as Written};
        let setting = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|text| text.parse().ok())
                .unwrap_or(default)
        };
        let documents = setting("COMPAT_UPGRADE_DOCS", 150);
        let seed = setting("COMPAT_UPGRADE_SEED", 0x0b5e_55ed);
        let mut rng = sample::Rng::new(seed);
        let (mut rewritten_count, mut values_count) = (0, 0);
        let mut found = Vec::new();
        let uri = "https://sample.invalid/s.json";
        for index in 0..documents {
            let generated = schemas::document(&mut rng);
            let generated = if rng.chance(50) {
                schemas::changed(&generated, &mut rng)
            } else {
                generated
            };
            for (written, draft) in [
                (Written::D4, Draft::Draft4),
                (Written::D6, Draft::Draft6),
                (Written::D7, Draft::Draft7),
                (Written::D2019, Draft::Draft201909),
            ] {
                // Now and then spelt for another draft and only relabelled,
                // as a person edits a file's `$schema`.
                let original = match rng.below(5) {
                    0 => {
                        let spelt = rng.pick(&Written::ALL).copied().unwrap_or(written);
                        schemas::relabelled(&schemas::in_draft(&generated, spelt), written)
                    }
                    _ => schemas::in_draft(&generated, written),
                };
                // Now and then edited after the respelling, as a person
                // edits a file of that draft: with what 2020-12 spells
                // otherwise (a numeric `exclusiveMinimum` in draft 4).
                // The root may be replaced whole: it keeps its draft.
                let original = match (rng.chance(30), original.get("$schema")) {
                    (true, Some(dialect)) => {
                        let mut edited = schemas::changed(&original, &mut rng);
                        if let Value::Object(map) = &mut edited {
                            map.insert("$schema".into(), dialect.clone());
                        }
                        edited
                    }
                    _ => original,
                };
                let mut rewritten = original.clone();
                if to_2020_12(&mut rewritten, draft, &[]).is_err() {
                    continue;
                }
                let compile = |schema: &Value| {
                    jsonschema::options()
                        .should_validate_formats(true)
                        .build(schema)
                };
                let Ok(old) = compile(&original) else {
                    continue;
                };
                let new = match compile(&rewritten) {
                    Ok(new) => new,
                    Err(err) => {
                        found.push(format!("document {index}: {original} compiles, its rewrite {rewritten} does not: {err}"));
                        continue;
                    }
                };
                // A schema that comes back to itself without reading into
                // the value never ends for the validator: compat never
                // gives such a one a value, nor does this.
                if !may_validate(&original) || !may_validate(&rewritten) {
                    continue;
                }
                rewritten_count += 1;
                found.extend(
                    misplaced(&original, draft, &rewritten)
                        .map(|at| format!("document {index}: {at} of the rewrite {rewritten} is not where original_pointer puts it in {original}")),
                );
                let mut values = Vec::new();
                for schema in [&original, &rewritten] {
                    let Ok(registry) = jsonschema::Registry::new()
                        .add(uri, schema.clone())
                        .and_then(|builder| builder.prepare())
                    else {
                        continue;
                    };
                    let mut sampler = sample::Sampler::new(&registry, rng.below(1 << 30) as u64);
                    for _ in 0..8 {
                        if let Ok(value) = sampler.draw(uri) {
                            // Each mutation is a whole copy: a large draw's
                            // would hold its size squared.
                            if value.to_string().len() <= 4096 {
                                values.extend(sample::one_step_mutations(
                                    &value,
                                    &Default::default(),
                                ));
                            }
                            values.push(value);
                        }
                    }
                }
                values.extend((0..8).map(|_| sample::any_value(&mut rng, 3)));
                for value in &values {
                    values_count += 1;
                    if old.is_valid(value) != new.is_valid(value) {
                        found.push(format!(
                            "document {index}: {value} is {} by {original} and {} by its rewrite {rewritten}",
                            if old.is_valid(value) { "accepted" } else { "refused" },
                            if new.is_valid(value) { "accepted" } else { "refused" },
                        ));
                        break;
                    }
                }
            }
        }
        assert!(
            found.is_empty(),
            "rewrites that change a meaning:\n{}",
            found.join("\n")
        );
        assert!(
            rewritten_count as u64 > documents,
            "only {rewritten_count} of {} documents were rewritten: the test had little to check",
            documents * 4
        );
        eprintln!("{rewritten_count} rewritten documents of seed {seed}, {values_count} values: each read alike");
    }
}
