//! Random JSON Schema documents and one-step changes of them: the pairs the
//! compatibility checker's property tests and fuzz target compare, with the
//! search as the oracle.
//!
//! The keywords are drawn from the whole 2020-12 vocabulary, weighted
//! towards what makes provers stumble: `$defs` that refer to each other in
//! cycles (by `$ref` and `$dynamicRef`, to a pointer or an anchor),
//! references by pointer to any place (the root, a member, a part) and to
//! members whose names a pointer escapes and a fragment percent-encodes,
//! `allOf` parts whose keywords interact, integers past 2^53 and
//! fractions, `multipleOf` that is not an integer or is past 2^53, non-ASCII and
//! look-around patterns, `enum` beside `const`, `unevaluatedItems` and
//! `unevaluatedProperties` beside the keywords they see past, and now and
//! then a keyword no prover models. The changes are the edits a contract
//! sees: a bound, a length, a count or a divisor moved, a name made required or not,
//! an object closed or opened, its other fields typed or freed, a field
//! made to ask for another, an `enum` value added, dropped or changed,
//! a type changed or made nullable, a member added or dropped, a union's
//! branch added or dropped or `anyOf` read as `oneOf`, a reference
//! retargeted, a part, pattern, format, `const` or `not` added, a keyword
//! dropped, a schema replaced.

use serde_json::{json, Map, Value};

use crate::Rng;

/// Names of the `$defs` a document carries.
const DEFS: [&str; 3] = ["a", "b", "c"];

/// Keywords written for one another, by mistake or on purpose: in
/// [`keyword_swaps`] each takes the value of any other of its row.
pub const KEYWORD_NEIGHBOURS: &[&[&str]] = &[
    &["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"],
    &["minItems", "maxItems", "minContains", "maxContains"],
    &["minLength", "maxLength"],
    &["minProperties", "maxProperties"],
    &[
        "items",
        "prefixItems",
        "additionalItems",
        "contains",
        "unevaluatedItems",
    ],
    &["allOf", "anyOf", "oneOf"],
    &["if", "then", "else", "not", "propertyNames"],
    &[
        "properties",
        "patternProperties",
        "dependentSchemas",
        "$defs",
        "definitions",
    ],
    &["additionalProperties", "unevaluatedProperties"],
    &["dependentRequired", "dependencies", "required"],
    &["$ref", "$dynamicRef", "$recursiveRef"],
    &["$anchor", "$dynamicAnchor", "$id", "id", "$recursiveAnchor"],
    &["enum", "const", "examples"],
];

/// Every edit of `document` that gives one keyword of an object the name of
/// a neighbour the object lacks ([`KEYWORD_NEIGHBOURS`]), as an edit that
/// writes the object anew.
pub fn keyword_swaps(document: &Value) -> Vec<crate::Edit> {
    let mut edits = Vec::new();
    for (pointer, map) in objects(document) {
        for (key, member) in map {
            for row in KEYWORD_NEIGHBOURS
                .iter()
                .filter(|row| row.contains(&key.as_str()))
            {
                for other in row.iter().filter(|other| !map.contains_key(**other)) {
                    let mut swapped = map.clone();
                    swapped.remove(key);
                    swapped.insert(other.to_string(), member.clone());
                    edits.push(crate::Edit {
                        pointer: pointer.clone(),
                        with: Some(Value::Object(swapped)),
                    });
                }
            }
        }
    }
    edits
}

/// Every object in `document`, schema or not, with its JSON pointer, each
/// before those inside it.
fn objects(document: &Value) -> Vec<(String, &Map<String, Value>)> {
    let mut found = Vec::new();
    let mut stack = vec![(String::new(), document)];
    while let Some((pointer, value)) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, member) in map {
                    let token = key.replace('~', "~0").replace('/', "~1");
                    stack.push((format!("{pointer}/{token}"), member));
                }
                found.push((pointer, map));
            }
            Value::Array(items) => {
                for (at, item) in items.iter().enumerate() {
                    stack.push((format!("{pointer}/{at}"), item));
                }
            }
            _ => {}
        }
    }
    found
}

/// Keywords of every draft with values to add where an object lacks them
/// ([`keyword_additions`]) or to give one it has
/// ([`keyword_replacements`]): the ones the generator writes rarely or never
/// (`minLength`, a type list, `contentEncoding`, draft 4's `id`, a `$schema`
/// below the root), annotations that must change nothing (`default`,
/// `readOnly`), keywords that do nothing alone (`then` without `if`,
/// `minContains` without `contains`), ones no draft defines, and values at
/// an edge (`not: {}`, `oneOf: [true, true]`, `multipleOf: 0.5`).
pub const KEYWORD_ADDITIONS: &[(&str, &str)] = &[
    ("type", r#"["integer", "string"]"#),
    ("type", r#""number""#),
    ("type", r#"["object", "array", "null"]"#),
    ("minLength", "1"),
    ("minLength", "2"),
    ("maxLength", "0"),
    ("minItems", "1"),
    ("maxItems", "1"),
    ("minProperties", "1"),
    ("maxProperties", "1"),
    ("minimum", "0"),
    ("minimum", "-1.5"),
    ("maximum", "1"),
    ("exclusiveMinimum", "0"),
    ("exclusiveMaximum", "true"),
    ("multipleOf", "2"),
    ("multipleOf", "0.5"),
    ("pattern", r#""^a""#),
    ("format", r#""hostname""#),
    ("format", r#""ipv6""#),
    ("format", r#""time""#),
    ("format", r#""regex""#),
    ("format", r#""no-such-format""#),
    ("contentEncoding", r#""base64""#),
    ("contentMediaType", r#""application/json""#),
    ("contentSchema", r#"{"type": "object"}"#),
    ("const", "0"),
    ("const", r#"{"x": 1}"#),
    ("enum", "[null]"),
    ("enum", r#"[[], {}]"#),
    ("uniqueItems", "true"),
    ("items", "false"),
    ("items", r#"[{"type": "integer"}]"#),
    ("prefixItems", "[false]"),
    ("additionalItems", "false"),
    ("contains", r#"{"const": 1}"#),
    ("minContains", "0"),
    ("maxContains", "1"),
    ("unevaluatedItems", "false"),
    ("unevaluatedProperties", "false"),
    ("additionalProperties", "false"),
    ("properties", r#"{"x": false}"#),
    ("patternProperties", r#"{"^x": false}"#),
    ("propertyNames", r#"{"maxLength": 0}"#),
    ("required", r#"["x"]"#),
    ("dependentRequired", r#"{"x": ["z"]}"#),
    ("dependentSchemas", r#"{"x": false}"#),
    ("dependencies", r#"{"x": ["y"]}"#),
    ("dependencies", r#"{"y": {"required": ["z"]}}"#),
    ("allOf", r#"[{"type": "string"}]"#),
    ("anyOf", "[false, true]"),
    ("oneOf", "[true, true]"),
    ("not", "{}"),
    ("not", "false"),
    ("if", r#"{"required": ["x"]}"#),
    ("then", "false"),
    ("else", "false"),
    ("$ref", r##""#""##),
    ("$ref", r##""#/$defs/a""##),
    ("$dynamicRef", r##""#a""##),
    ("$recursiveRef", r##""#""##),
    ("$recursiveAnchor", "true"),
    ("$dynamicAnchor", r#""a""#),
    ("$anchor", r#""z""#),
    ("$id", r#""other.json""#),
    ("id", r#""other.json""#),
    ("$schema", r#""http://json-schema.org/draft-04/schema#""#),
    ("$defs", r#"{"q": false}"#),
    ("definitions", r#"{"q": false}"#),
    ("$comment", r#""a remark""#),
    ("title", r#""t""#),
    ("default", "1"),
    ("examples", "[1]"),
    ("deprecated", "true"),
    ("readOnly", "true"),
    ("writeOnly", "true"),
    ("x-rule", r#""r""#),
    ("nullable", "true"),
    // Counts and bounds written as floats, and values at an edge.
    ("minContains", "2.0"),
    ("maxContains", "0.0"),
    ("maxLength", "1.0"),
    ("minItems", "0.0"),
    ("maximum", "1e308"),
    ("minimum", "-0.0"),
    ("multipleOf", "1e-10"),
    ("const", "1.0"),
    ("enum", "[1.0, 2]"),
    ("required", r#"["x", "x"]"#),
    ("dependentRequired", r#"{"x": ["x"]}"#),
    ("contains", "false"),
    ("items", "true"),
    ("propertyNames", r#"{"pattern": "^x"}"#),
    ("format", r#""uri""#),
    // References and names that lead somewhere else than they seem.
    ("$ref", r##""#/properties/x""##),
    ("$ref", r#""Case.json""#),
    ("$id", r##""#frag""##),
    ("$anchor", r#""a-plain""#),
    ("$dynamicAnchor", r#""b""#),
];

/// Every edit of `document` that adds to one of its objects a keyword of
/// [`KEYWORD_ADDITIONS`] the object lacks, as an edit that writes the
/// object anew.
pub fn keyword_additions(document: &Value) -> Vec<crate::Edit> {
    keyword_values(document, |map, keyword, _| !map.contains_key(keyword))
}

/// Every edit of `document` that gives a keyword one of its objects has a
/// value of [`KEYWORD_ADDITIONS`] for that keyword (a `type` list for a
/// `type`, `2.0` for a count, `"#"` for a `$ref`), as an edit that writes
/// the object anew.
pub fn keyword_replacements(document: &Value) -> Vec<crate::Edit> {
    keyword_values(document, |map, keyword, value| {
        map.get(keyword).is_some_and(|old| old != value)
    })
}

/// Every edit of `document` that sets a keyword of [`KEYWORD_ADDITIONS`] in
/// one of its objects where `wanted(object, keyword, value)` says so.
fn keyword_values(
    document: &Value,
    wanted: impl Fn(&Map<String, Value>, &str, &Value) -> bool,
) -> Vec<crate::Edit> {
    let additions: Vec<(&str, Value)> = KEYWORD_ADDITIONS
        .iter()
        .filter_map(|(keyword, text)| Some((*keyword, serde_json::from_str(text).ok()?)))
        .collect();
    let mut edits = Vec::new();
    for (pointer, map) in objects(document) {
        for (keyword, added) in &additions {
            if wanted(map, keyword, added) {
                let mut with = map.clone();
                with.insert((*keyword).to_string(), added.clone());
                edits.push(crate::Edit {
                    pointer: pointer.clone(),
                    with: Some(Value::Object(with)),
                });
            }
        }
    }
    edits
}

/// A document: a root schema and a few `$defs` it (and they) may refer to.
pub fn document(rng: &mut Rng) -> Value {
    let mut defs = Map::new();
    for name in DEFS {
        defs.insert(name.into(), schema(rng, 1));
    }
    let mut root = schema(rng, 0);
    // Each definition a reference names by anchor declares it.
    let text = root.to_string() + &Value::Object(defs.clone()).to_string();
    for name in DEFS {
        let anchors = [
            (
                "$dynamicAnchor",
                format!(r##""$dynamicRef":"#{name}""##),
                name.to_string(),
            ),
            (
                "$anchor",
                format!(r##""$ref":"#{name}-plain""##),
                format!("{name}-plain"),
            ),
        ];
        for (keyword, named, anchor) in anchors {
            if !text.contains(&named) {
                continue;
            }
            if let Some(def) = defs.get_mut(name) {
                if !def.is_object() {
                    *def = json!({"allOf": [def.take()]});
                }
                if let Value::Object(map) = def {
                    map.insert(keyword.into(), json!(anchor));
                }
            }
        }
    }
    if let Value::Object(map) = &mut root {
        map.insert("$defs".into(), Value::Object(defs));
    } else {
        root = json!({"allOf": [root], "$defs": defs});
    }
    // Now and then a member that refers to an embedded resource by its
    // identifier (resolved against the document's base), not by a pointer.
    if rng.chance(40) {
        if let Some(id) = embedded_ids(&root).first() {
            with_part(&mut root, json!({"properties": {"w": {"$ref": id}}}));
        }
    }
    // And one that refers by pointer to a place that is no definition (the
    // root itself, a member's schema, a part, a schema inside an embedded
    // resource), so that a change there reaches the reference too.
    if rng.chance(25) {
        let targets = places(&root);
        if let Some(target) = rng.pick(&targets) {
            let reference = json!({ "$ref": format!("#{}", fragment(target)) });
            with_part(&mut root, json!({"properties": {"v": reference}}));
        }
    }
    root
}

/// `part` added to the root's `allOf`, after the parts it has (so that
/// pointers into them stay true).
fn with_part(root: &mut Value, part: Value) {
    if let Value::Object(map) = root {
        let own = map.remove("allOf").unwrap_or_else(|| json!([]));
        let mut parts = match own {
            Value::Array(parts) => parts,
            other => vec![other],
        };
        parts.push(part);
        map.insert("allOf".into(), Value::Array(parts));
    }
}

/// A JSON pointer written as a URI fragment: every character a fragment
/// may not hold (`%` itself, a space, anything past ASCII) percent-encoded.
fn fragment(pointer: &str) -> String {
    let mut out = String::new();
    for c in pointer.chars() {
        if c.is_ascii_alphanumeric() || "-._~/!$&'()*+,;=:@".contains(c) {
            out.push(c);
        } else {
            let mut bytes = [0; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    out
}

/// The relative identifiers of the resources embedded in `document`
/// ([`reference`]'s), in the order a walk meets them.
fn embedded_ids(document: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    let mut stack = vec![document];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(id)) = map.get("$id") {
                    if id.ends_with(".json") {
                        ids.push(id.clone());
                    }
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    ids
}

/// The JSON pointers of `document`'s schema objects: the root, each
/// definition, and each subschema under the keywords that hold them (in any
/// draft: `definitions`, `items` as a list), found by the keyword names
/// alone.
pub fn places(document: &Value) -> Vec<String> {
    let mut pointers = Vec::new();
    let mut stack = vec![(String::new(), document)];
    while let Some((pointer, value)) = stack.pop() {
        let Value::Object(map) = value else {
            continue;
        };
        pointers.push(pointer.clone());
        for (key, child) in map {
            let here = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
            match (key.as_str(), child) {
                // Maps of schemas: their values are schemas, the maps are not.
                (
                    "$defs" | "definitions" | "properties" | "patternProperties"
                    | "dependentSchemas" | "dependencies",
                    Value::Object(entries),
                ) => {
                    for (name, schema) in entries {
                        stack.push((
                            format!("{here}/{}", name.replace('~', "~0").replace('/', "~1")),
                            schema,
                        ));
                    }
                }
                // `items` as a list: drafts before 2020-12's `prefixItems`.
                ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(items)) => {
                    for (index, item) in items.iter().enumerate() {
                        stack.push((format!("{here}/{index}"), item));
                    }
                }
                (
                    "items"
                    | "additionalItems"
                    | "additionalProperties"
                    | "not"
                    | "if"
                    | "then"
                    | "else"
                    | "contains"
                    | "propertyNames"
                    | "unevaluatedItems"
                    | "unevaluatedProperties",
                    Value::Object(_),
                ) => {
                    stack.push((here, child));
                }
                _ => {}
            }
        }
    }
    pointers
}

/// `count` edits of `document`, each replacing one of its schemas
/// ([`places`]) with a copy of another, drawn at random: a schema moved as
/// people move them, whose references (by pointer, by anchor, relative to
/// an `$id`) may then resolve elsewhere or nowhere, and whose `$id`s and
/// anchors may now be declared twice.
pub fn transplants(document: &Value, rng: &mut Rng, count: usize) -> Vec<crate::Edit> {
    let pointers = places(document);
    let mut edits = Vec::new();
    for _ in 0..count {
        let (Some(from), Some(to)) = (rng.pick(&pointers), rng.pick(&pointers)) else {
            break;
        };
        if from == to {
            continue;
        }
        if let Some(copy) = document.pointer(from) {
            edits.push(crate::Edit {
                pointer: to.clone(),
                with: Some(copy.clone()),
            });
        }
    }
    edits
}

/// Keywords that name a resource or say how it is read: kept on the schema
/// itself when [`rewrappings`] moves the rest of it inside another.
const RESOURCE_KEYWORDS: [&str; 9] = [
    "$schema",
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$defs",
    "definitions",
    "$vocabulary",
];

/// Every edit of `document` that writes one of its schemas ([`places`])
/// another way: inside `allOf`, `anyOf` beside `false`, `oneOf`, a double
/// `not`, an `if` that always or never holds; its keywords split between
/// the schema and an `allOf` part; or one keyword moved into a part. Most
/// mean what the schema meant (the checker must find them so, or give a
/// value that tells them apart); some do not, as `additionalProperties`
/// sees only the `properties` beside it and `unevaluatedProperties` sees
/// into the parts. The keywords that name a resource (`RESOURCE_KEYWORDS`)
/// stay on the schema, except in one wrapping that moves them too (a
/// `$dynamicAnchor` then leaves the resource's root). And a schema moved
/// into the root's definitions behind a `$ref`, and a `$ref` to a pointer
/// replaced by the schema it leads to.
pub fn rewrappings(document: &Value) -> Vec<crate::Edit> {
    let mut edits = Vec::new();
    for pointer in places(document) {
        let Some(schema) = document.pointer(&pointer) else {
            continue;
        };
        let (kept, moved) = match schema {
            Value::Object(map) => map
                .iter()
                .map(|(key, value)| (key.clone(), value.clone()))
                .partition::<Map<String, Value>, _>(|(key, _)| {
                    RESOURCE_KEYWORDS.contains(&key.as_str())
                }),
            _ => (Map::new(), Map::new()),
        };
        let inner = match schema {
            Value::Object(_) => Value::Object(moved.clone()),
            other => other.clone(),
        };
        let wrapped = |outer: Value| {
            let mut with = kept.clone();
            if let Value::Object(outer) = outer {
                with.extend(outer);
            }
            Value::Object(with)
        };
        let mut rewritten = vec![
            wrapped(json!({"allOf": [inner.clone()]})),
            wrapped(json!({"anyOf": [inner.clone(), false]})),
            wrapped(json!({"oneOf": [inner.clone()]})),
            wrapped(json!({"not": {"not": inner.clone()}})),
            wrapped(json!({"if": true, "then": inner.clone()})),
            wrapped(json!({"if": false, "else": inner.clone()})),
            wrapped(json!({"if": inner.clone(), "else": false})),
            json!({"allOf": [schema.clone()]}),
        ];
        // Half the keywords kept here, half moved into a part; and each
        // keyword on its own moved into a part.
        let keys: Vec<&String> = moved.keys().collect();
        if !moved.contains_key("allOf") {
            let half = keys.len() / 2;
            if half > 0 {
                let (here, there): (Vec<_>, Vec<_>) =
                    moved.iter().enumerate().partition(|(at, _)| *at < half);
                let collect = |part: Vec<(usize, (&String, &Value))>| -> Map<String, Value> {
                    part.into_iter()
                        .map(|(_, (key, value))| (key.clone(), value.clone()))
                        .collect()
                };
                let mut with = collect(here);
                with.extend(kept.clone());
                with.insert("allOf".into(), json!([Value::Object(collect(there))]));
                rewritten.push(Value::Object(with));
            }
            for key in &keys {
                let mut with = schema.as_object().cloned().unwrap_or_default();
                if let Some(value) = with.remove(key.as_str()) {
                    let mut part = Map::new();
                    part.insert((*key).clone(), value);
                    with.insert("allOf".into(), json!([Value::Object(part)]));
                    rewritten.push(Value::Object(with));
                }
            }
        }
        edits.extend(rewritten.into_iter().map(|with| crate::Edit {
            pointer: pointer.clone(),
            with: Some(with),
        }));
        edits.extend(moved_behind_a_reference(document, &pointer));
    }
    edits.extend(references_inlined(document));
    edits
}

/// `document` with one schema at `pointer` or around it written another
/// way ([`rewrappings`]), or `None` when none is: composed with an edit at
/// `pointer`, a change a checker judges only by seeing through the wrapping.
pub fn rewrapped_around(document: &Value, pointer: &str, rng: &mut Rng) -> Option<Value> {
    let around: Vec<crate::Edit> = rewrappings(document)
        .into_iter()
        .filter(|wrap| {
            pointer == wrap.pointer || pointer.starts_with(&format!("{}/", wrap.pointer))
        })
        .collect();
    rng.pick(&around).map(|wrap| wrap.applied(document))
}

/// The schema at `pointer` (not the root) moved into the root's
/// definitions as `moved`, a `$ref` to it left in its place: as the whole
/// document, rewritten. References into the schema now lead nowhere; ones
/// inside it, relative to an `$id` above it, elsewhere.
fn moved_behind_a_reference(document: &Value, pointer: &str) -> Option<crate::Edit> {
    let schema = document.pointer(pointer).filter(|_| !pointer.is_empty())?;
    let defs = ["$defs", "definitions"]
        .into_iter()
        .find(|key| document.get(*key).is_some_and(Value::is_object))
        .unwrap_or("$defs");
    let mut out = document.clone();
    *out.pointer_mut(pointer)? = json!({ "$ref": format!("#/{defs}/moved") });
    let root = out.as_object_mut()?;
    let entries = root
        .entry(defs)
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()?;
    entries.insert("moved".into(), schema.clone());
    Some(crate::Edit {
        pointer: String::new(),
        with: Some(out),
    })
}

/// Every edit of `document` that writes, in place of a `$ref` to a pointer
/// inside the document, the schema it leads to: alone when nothing stands
/// beside the reference, as an `allOf` part beside what does otherwise
/// (which drafts up to 7 ignored beside the reference).
fn references_inlined(document: &Value) -> Vec<crate::Edit> {
    let mut edits = Vec::new();
    for pointer in places(document) {
        let Some(Value::Object(map)) = document.pointer(&pointer) else {
            continue;
        };
        let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .filter(|fragment| fragment.is_empty() || fragment.starts_with('/'))
            .and_then(|fragment| document.pointer(fragment))
        else {
            continue;
        };
        let mut beside = map.clone();
        beside.remove("$ref");
        let with = if beside.is_empty() {
            target.clone()
        } else {
            match beside.get_mut("allOf") {
                Some(Value::Array(parts)) => parts.push(target.clone()),
                _ => {
                    beside.insert("allOf".into(), json!([target.clone()]));
                }
            }
            Value::Object(beside)
        };
        edits.push(crate::Edit {
            pointer,
            with: Some(with),
        });
    }
    edits
}

/// `document` with one thing changed.
pub fn changed(document: &Value, rng: &mut Rng) -> Value {
    let mut out = document.clone();
    // Pick a place: the root, a definition, or somewhere below them.
    let pointers = places(document);
    // No place to change: "" is the root.
    let pointer = rng.pick(&pointers).cloned().unwrap_or_default();
    if let Some(target) = out.pointer_mut(&pointer) {
        mutate(target, rng);
    }
    out
}

/// One small change to a schema object.
fn mutate(schema: &mut Value, rng: &mut Rng) {
    let Value::Object(map) = schema else {
        *schema = leaf(rng);
        return;
    };
    match rng.below(16) {
        0 => nudge(map, "minimum", rng),
        1 => nudge(map, "maximum", rng),
        2 => {
            // A length is a non-negative integer (the meta-schema says so).
            let length = map.get("maxLength").and_then(Value::as_u64).unwrap_or(3);
            let moved = if rng.chance(50) {
                length + 1
            } else {
                length.saturating_sub(1)
            };
            map.insert("maxLength".into(), json!(moved));
        }
        3 => {
            let required = map.entry("required").or_insert_with(|| json!([]));
            if let Value::Array(names) = required {
                // Names are unique (the meta-schema says so).
                let name = json!(rng.pick(&["x", "y", "z"]).copied().unwrap_or("x"));
                if !names.contains(&name) && (names.is_empty() || rng.chance(50)) {
                    names.push(name);
                } else {
                    names.pop();
                }
            }
        }
        4 => {
            let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
            map.insert(
                "additionalProperties".into(),
                if closed { json!(true) } else { json!(false) },
            );
        }
        5 => {
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                if rng.chance(50) {
                    values.push(scalar(rng));
                } else {
                    values.pop();
                }
            } else {
                map.insert("enum".into(), json!([scalar(rng), scalar(rng)]));
            }
        }
        6 => {
            map.insert(
                "type".into(),
                json!(rng
                    .pick(&["string", "integer", "number", "object", "array", "null"])
                    .copied()
                    .unwrap_or("null")),
            );
        }
        7 => {
            map.insert(
                "$ref".into(),
                json!(format!(
                    "#/$defs/{}",
                    rng.pick(&DEFS).copied().unwrap_or("a")
                )),
            );
        }
        8 => {
            let extra = leaf(rng);
            let own = Value::Object(std::mem::take(map));
            map.insert("allOf".into(), json!([own, extra]));
        }
        9 => {
            map.insert("pattern".into(), json!(pattern(rng)));
        }
        10 => {
            // A whole divisor made a multiple or a factor of itself, or
            // another divisor.
            let whole = map.get("multipleOf").and_then(Value::as_u64);
            let moved = match whole {
                Some(m) if m % 2 == 0 && rng.chance(40) => json!(m / 2),
                Some(m) if rng.chance(40) => json!(m.saturating_mul(3)),
                _ => divisor(rng),
            };
            map.insert("multipleOf".into(), moved);
        }
        11 => match rng.below(6) {
            // Made nullable, or no longer: a type list gains or loses "null".
            0 => {
                let types = match map.remove("type") {
                    Some(Value::Array(types)) => types,
                    Some(one) => vec![one],
                    None => vec![json!("string")],
                };
                let null = json!("null");
                let mut types: Vec<Value> = if types.contains(&null) && types.len() > 1 {
                    types.into_iter().filter(|t| t != &null).collect()
                } else {
                    types.into_iter().chain([null]).collect()
                };
                types.dedup();
                map.insert("type".into(), Value::Array(types));
            }
            // A member added, or one dropped from `properties`.
            1 => {
                let props = map.entry("properties").or_insert_with(|| json!({}));
                if let Value::Object(props) = props {
                    let names: Vec<String> = props.keys().cloned().collect();
                    match rng.pick(&names) {
                        Some(name) if rng.chance(50) => {
                            props.remove(name);
                        }
                        _ => {
                            props.insert("w".into(), leaf(rng));
                        }
                    }
                }
            }
            // A union read the other way (`anyOf` as `oneOf` and back), or
            // one branch more or fewer.
            2 => {
                let union = ["anyOf", "oneOf"]
                    .into_iter()
                    .find(|key| map.contains_key(*key));
                match (union, map.remove(union.unwrap_or("anyOf"))) {
                    (Some(key), Some(Value::Array(mut branches))) => {
                        let other = if key == "anyOf" { "oneOf" } else { "anyOf" };
                        match rng.below(3) {
                            0 => {
                                map.insert(other.into(), Value::Array(branches));
                            }
                            1 if branches.len() > 1 => {
                                let gone = rng.below(branches.len());
                                branches.remove(gone);
                                map.insert(key.into(), Value::Array(branches));
                            }
                            _ => {
                                branches.push(leaf(rng));
                                map.insert(key.into(), Value::Array(branches));
                            }
                        }
                    }
                    (_, other) => {
                        let own = Value::Object(std::mem::take(map));
                        let key = if rng.chance(50) { "anyOf" } else { "oneOf" };
                        map.insert(key.into(), json!([own, leaf(rng)]));
                        // What was under the union's key, if it was no list.
                        if let (Some(union), Some(other)) = (union, other) {
                            map.insert(union.into(), other);
                        }
                    }
                }
            }
            // A type given as an enum of some of its values, as a field
            // narrowed to the values it takes (`{type: integer}` to
            // `{enum: [0, 1, 2]}`); the `$` keywords (references,
            // identifiers, anchors, definitions) stay.
            3 => {
                let values = match map.get("type").and_then(Value::as_str) {
                    Some("integer" | "number") => json!([0, 1, 2]),
                    Some("string") => json!(["a", "é"]),
                    Some("boolean") => json!([true]),
                    _ => json!([scalar(rng), scalar(rng)]),
                };
                map.retain(|key, _| key.starts_with('$') || key == "definitions");
                map.insert("enum".into(), values);
            }
            // Fields not named given a schema of their own, or free again.
            4 => {
                if map.remove("additionalProperties").is_none() {
                    map.insert("additionalProperties".into(), leaf(rng));
                }
            }
            // One field asking for another, or no longer.
            5 => {
                if map.remove("dependentRequired").is_none() {
                    map.insert("dependentRequired".into(), json!({"x": ["y"]}));
                }
            }
            // One value of an `enum` changed in place.
            _ => match map.get_mut("enum") {
                Some(Value::Array(values)) if !values.is_empty() => {
                    let at = rng.below(values.len());
                    if let Some(value) = values.get_mut(at) {
                        *value = scalar(rng);
                    }
                }
                _ => {
                    map.insert("enum".into(), json!([scalar(rng)]));
                }
            },
        },
        // One keyword gone, whatever it was.
        12 => {
            let keys: Vec<String> = map.keys().cloned().collect();
            if let Some(key) = rng.pick(&keys) {
                map.remove(key);
            }
        }
        13 => {
            let key = rng
                .pick(&[
                    "minLength",
                    "minItems",
                    "maxItems",
                    "minProperties",
                    "maxProperties",
                    "minContains",
                    "maxContains",
                ])
                .copied()
                .unwrap_or("minLength");
            let count = map.get(key).and_then(Value::as_u64).unwrap_or(1);
            let moved = if rng.chance(50) {
                count + 1
            } else {
                count.saturating_sub(1)
            };
            map.insert(key.into(), json!(moved));
        }
        14 => {
            let key = rng
                .pick(&["exclusiveMinimum", "exclusiveMaximum"])
                .copied()
                .unwrap_or("exclusiveMinimum");
            nudge(map, key, rng);
        }
        15 => match rng.below(5) {
            0 => {
                let unique = map.get("uniqueItems") == Some(&Value::Bool(true));
                map.insert("uniqueItems".into(), json!(!unique));
            }
            1 => {
                let format = rng
                    .pick(&["date-time", "email", "ipv4", "uri", "uuid", "date"])
                    .copied()
                    .unwrap_or("uri");
                map.insert("format".into(), json!(format));
            }
            2 => {
                map.insert("const".into(), scalar(rng));
            }
            3 => {
                // A member's schema made `true` or `false`.
                if let Some(Value::Object(props)) = map.get_mut("properties") {
                    let names: Vec<String> = props.keys().cloned().collect();
                    if let Some(name) = rng.pick(&names) {
                        props.insert(name.clone(), Value::Bool(rng.chance(50)));
                    }
                } else {
                    map.insert("not".into(), leaf(rng));
                }
            }
            _ => {
                let names = if rng.chance(50) {
                    json!({"pattern": pattern(rng)})
                } else {
                    json!({"enum": ["x", "y"]})
                };
                map.insert("propertyNames".into(), names);
            }
        },
        _ => *schema = self::schema(rng, 2),
    }
}

/// A bound moved a little, or set where there was none.
fn nudge(map: &mut Map<String, Value>, key: &str, rng: &mut Rng) {
    let current = map.get(key).and_then(Value::as_f64).unwrap_or(0.0);
    let step = match rng.below(4) {
        0 => 1.0,
        1 => -1.0,
        2 => 0.5,
        _ => 9_007_199_254_740_992.0,
    };
    let moved = current + step;
    let value = if moved.fract() == 0.0 && moved.abs() < 1.0e18 {
        json!(moved as i64)
    } else {
        json!(moved)
    };
    map.insert(key.into(), value);
}

/// A random schema, nested at most a few levels below `depth`.
pub fn schema(rng: &mut Rng, depth: usize) -> Value {
    if depth > 3 || rng.chance(30) {
        return leaf(rng);
    }
    match rng.below(12) {
        0 | 1 => object_schema(rng, depth),
        2 => array_schema(rng, depth),
        3 => json!({"anyOf": [schema(rng, depth + 1), schema(rng, depth + 1)]}),
        4 => json!({"oneOf": [schema(rng, depth + 1), schema(rng, depth + 1)]}),
        // Parts whose keywords interact across the `allOf`.
        5 => match rng.below(3) {
            0 => {
                json!({"allOf": [{"properties": {"x": schema(rng, depth + 1)}}, {"additionalProperties": false}]})
            }
            1 => json!({"allOf": [{"prefixItems": [schema(rng, depth + 1)]}, {"items": false}]}),
            _ => {
                json!({"allOf": [{"if": {"required": ["x"]}}, {"then": {"required": ["y"]}}, schema(rng, depth + 1)]})
            }
        },
        6 => json!({"not": schema(rng, depth + 1)}),
        7 => {
            json!({"if": schema(rng, depth + 1), "then": schema(rng, depth + 1), "else": schema(rng, depth + 1)})
        }
        8 => reference(rng),
        // Definitions that refer to themselves through an object, a list, or directly.
        9 => match rng.below(3) {
            0 => json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/a"}}}),
            1 => json!({"type": "array", "items": {"$ref": "#/$defs/b"}}),
            _ => json!({"allOf": [{"$ref": "#/$defs/c"}, leaf(rng)]}),
        },
        // What `unevaluated*` sees: the keywords beside it and what they
        // reach (a `$ref`, an `allOf` part), never a sibling part's.
        10 => match rng.below(4) {
            0 => {
                json!({"type": "object", "unevaluatedProperties": false, "properties": {"x": leaf(rng)}})
            }
            1 => json!({
                "prefixItems": [schema(rng, depth + 1)],
                "unevaluatedItems": if rng.chance(50) { Value::Bool(false) } else { leaf(rng) },
            }),
            2 => json!({
                "allOf": [{"properties": {"y": leaf(rng)}}, reference(rng)],
                "unevaluatedProperties": leaf(rng),
            }),
            _ => json!({
                "allOf": [
                    {"contains": leaf(rng), "prefixItems": [leaf(rng)]},
                    {"unevaluatedItems": leaf(rng)},
                ],
            }),
        },
        _ => json!({"allOf": [schema(rng, depth + 1), schema(rng, depth + 1)]}),
    }
}

/// A reference to a definition: mostly a `$ref` by pointer, now and then
/// one by the plain anchor [`document`] gives the definition, a
/// `$dynamicRef` by pointer or by the dynamic anchor it gives it, or a
/// reference inside an embedded resource (an `$id` beside the `$ref`) to
/// that resource's own definition of the same name (by pointer or by an
/// anchor only the resource declares), which drafts before 2019-09
/// resolve against the document instead.
fn reference(rng: &mut Rng) -> Value {
    let name = rng.pick(&DEFS).copied().unwrap_or("a");
    match rng.below(7) {
        0 => json!({"$dynamicRef": format!("#{name}")}),
        1 => json!({"$dynamicRef": format!("#/$defs/{name}")}),
        2 => json!({"$ref": format!("#{name}-plain")}),
        // Its definition named by a pointer, or by an anchor the resource
        // declares (and the document's definition of that name does not).
        3 => {
            let mut definition = leaf(rng);
            let reference = if rng.chance(40) {
                if !definition.is_object() {
                    definition = json!({ "allOf": [definition] });
                }
                set(&mut definition, "$anchor", json!("own"));
                "#own".to_string()
            } else {
                format!("#/$defs/{name}")
            };
            json!({
                "$id": format!("r{}.json", rng.below(1 << 20)),
                "$ref": reference,
                "$defs": {name: definition},
            })
        }
        _ => json!({"$ref": format!("#/$defs/{name}")}),
    }
}

/// An object schema: properties, and some of the keywords that judge
/// members beside them.
fn object_schema(rng: &mut Rng, depth: usize) -> Value {
    let mut props = Map::new();
    for name in ["x", "y", "z"].into_iter().take(1 + rng.below(3)) {
        props.insert(name.into(), schema(rng, depth + 1));
    }
    // Now and then a member whose name a pointer must escape: `/` and `~`,
    // a space and `%` a fragment must encode, a letter past ASCII, none; or
    // one named like a keyword, which only its place says is a name.
    if rng.chance(15) {
        let name = rng
            .pick(&["a/b", "~t", "s p", "%41", "é", "", "$ref", "$id", "enum"])
            .copied()
            .unwrap_or("a/b");
        props.insert(name.into(), schema(rng, depth + 1));
    }
    let mut object = json!({"type": "object", "properties": props});
    if rng.chance(50) {
        set(&mut object, "required", json!(["x"]));
    }
    match rng.below(4) {
        0 => set(&mut object, "additionalProperties", json!(false)),
        1 => {
            let additional = schema(rng, depth + 1);
            set(&mut object, "additionalProperties", additional);
        }
        _ => {}
    }
    if rng.chance(25) {
        let patterns = json!({ pattern(rng): schema(rng, depth + 1) });
        set(&mut object, "patternProperties", patterns);
    }
    if rng.chance(15) {
        set(
            &mut object,
            "propertyNames",
            json!({"maxLength": 1 + rng.below(3)}),
        );
    }
    if rng.chance(15) {
        set(&mut object, "dependentRequired", json!({"x": ["y"]}));
    }
    if rng.chance(10) {
        set(
            &mut object,
            "dependentSchemas",
            json!({"y": schema(rng, depth + 1)}),
        );
    }
    if rng.chance(15) {
        set(&mut object, "minProperties", json!(rng.below(3)));
    }
    object
}

/// An array schema: items, and some of the keywords that judge them.
fn array_schema(rng: &mut Rng, depth: usize) -> Value {
    let mut array = json!({"type": "array", "items": schema(rng, depth + 1)});
    if rng.chance(30) {
        set(&mut array, "prefixItems", json!([schema(rng, depth + 1)]));
    }
    if rng.chance(25) {
        set(&mut array, "contains", schema(rng, depth + 1));
        if rng.chance(50) {
            set(&mut array, "minContains", json!(rng.below(3)));
        }
        if rng.chance(30) {
            set(&mut array, "maxContains", json!(1 + rng.below(2)));
        }
    }
    if rng.chance(30) {
        set(&mut array, "maxItems", json!(rng.below(4)));
    }
    if rng.chance(20) {
        set(&mut array, "uniqueItems", json!(true));
    }
    array
}

/// A schema of one JSON type, or a finite one.
fn leaf(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => {
            let mut integer = json!({"type": "integer"});
            if rng.chance(60) {
                set(&mut integer, "minimum", number_value(rng));
            }
            if rng.chance(60) {
                set(&mut integer, "maximum", number_value(rng));
            }
            if rng.chance(20) {
                set(&mut integer, "exclusiveMaximum", number_value(rng));
            }
            if rng.chance(30) {
                set(&mut integer, "multipleOf", divisor(rng));
            }
            integer
        }
        1 => {
            let mut number = json!({"type": "number"});
            if rng.chance(50) {
                set(&mut number, "exclusiveMinimum", number_value(rng));
            }
            if rng.chance(40) {
                set(
                    &mut number,
                    "multipleOf",
                    json!(rng
                        .pick(&[0.5, 0.1, 0.25, 3.0, 1.0e-3])
                        .copied()
                        .unwrap_or(0.5)),
                );
            }
            number
        }
        2 | 3 => {
            let mut string = json!({"type": "string"});
            if rng.chance(50) {
                set(&mut string, "maxLength", json!(rng.below(6)));
            }
            if rng.chance(40) {
                set(&mut string, "pattern", json!(pattern(rng)));
            }
            if rng.chance(15) {
                set(
                    &mut string,
                    "format",
                    // Some formats not every draft knows (`uuid` and
                    // `duration` came in 2019-09, `date` in 7,
                    // `json-pointer` in 6), which that draft's validator
                    // does not assert.
                    json!(rng
                        .pick(&[
                            "date-time",
                            "email",
                            "ipv4",
                            "uri",
                            "uuid",
                            "date",
                            "duration",
                            "json-pointer"
                        ])
                        .copied()
                        .unwrap_or("email")),
                );
            }
            string
        }
        4 => json!({"enum": [scalar(rng), scalar(rng), scalar(rng)]}),
        5 => json!({"const": scalar(rng)}),
        6 => json!({"const": scalar(rng), "enum": [scalar(rng), scalar(rng)]}),
        7 => json!({"type": ["string", "null"]}),
        8 => json!({"type": "boolean"}),
        _ => Value::Bool(rng.chance(80)),
    }
}

fn pattern(rng: &mut Rng) -> String {
    rng.pick(&[
        "^[a-z]+$",
        // Patterns the lint passes that contain one another, or are one
        // language spelled two ways: the prover compares these as automata.
        "^[a-z]*$",
        "^[a-z0-9]+$",
        "^[a-z][a-z]*$",
        "[a-z]",
        "^(a|b)+$",
        "^[ab]+$",
        "^é",
        "\\w",
        "^(?!x)",
        "^[0-9]{1,3}$",
        "a|b",
        "^π+$",
        "^\\d+$",
        "[\\u0041-\\u005A]",
    ])
    .copied()
    .unwrap_or("^a")
    .to_string()
}

fn number(rng: &mut Rng) -> f64 {
    rng.pick(&[
        0.0,
        1.0,
        -1.0,
        2.5,
        10.0,
        0.1,
        9_007_199_254_740_991.0,
        -7.0,
    ])
    .copied()
    .unwrap_or(0.0)
}

/// A `multipleOf`: whole divisors that divide one another, some past 2^53
/// (where the validator divides doubles, each rounded), or fractions.
fn divisor(rng: &mut Rng) -> Value {
    match rng.below(3) {
        0 => json!(rng.pick(&[0.5, 2.5, 0.1, 10.0]).copied().unwrap_or(0.5)),
        1 => json!(rng
            .pick(&[
                1u64 << 53,
                (1u64 << 53) + 2,
                1u64 << 54,
                3 * ((1u64 << 53) + 1),
            ])
            .copied()
            .unwrap_or(1)),
        _ => json!(rng.pick(&[2u64, 3, 4, 6, 12]).copied().unwrap_or(2)),
    }
}

/// A number as a schema writes it: integers past 2^53 exactly, or fractions,
/// now and then one at the edge of what JSON numbers hold here (the
/// integer types' ends, 2^64 as a double, a double's extremes, `-0.0`).
fn number_value(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => json!(9_007_199_254_740_993u64),
        1 => json!(1.0000000000000002),
        2 => rng
            .pick(&[
                json!(u64::MAX),
                json!(i64::MIN),
                json!(-9_007_199_254_740_993i64),
                json!(18_446_744_073_709_551_616.0),
                json!(1.0e300),
                json!(-1.0e300),
                json!(5.0e-324),
                json!(-0.0),
            ])
            .cloned()
            .unwrap_or_default(),
        _ => {
            let x = number(rng);
            if x.fract() == 0.0 {
                json!(x as i64)
            } else {
                json!(x)
            }
        }
    }
}

fn scalar(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => json!("a"),
        1 => json!("é"),
        2 => json!(1),
        3 => json!(1.0),
        4 => json!(null),
        5 => json!(true),
        6 => json!(9_007_199_254_740_993u64),
        // An object, which `properties` and `required` beside it judge.
        7 => json!({"x": 1, "y": "a"}),
        // Data spelled like a schema: a walk that takes it for one would
        // follow its reference, or find the anchor a definition declares
        // twice.
        8 => json!({"$ref": "#/$defs/a", "$anchor": "a-plain", "$id": "data.json#"}),
        _ => json!([1, "a"]),
    }
}

/// Sets one keyword of a schema built here as an object (`Value`'s own
/// `IndexMut` would panic on anything else).
fn set(schema: &mut Value, keyword: &str, value: Value) {
    if let Some(object) = schema.as_object_mut() {
        object.insert(keyword.into(), value);
    }
}

/// A JSON Schema draft a generated document may be written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Draft {
    /// Draft 4.
    D4,
    /// Draft 6.
    D6,
    /// Draft 7.
    D7,
    /// 2019-09.
    D2019,
    /// 2020-12, the spelling [`document`] writes.
    D2020,
}

impl Draft {
    /// Every draft, oldest first.
    pub const ALL: [Draft; 5] = [Draft::D4, Draft::D6, Draft::D7, Draft::D2019, Draft::D2020];

    /// The `$schema` that declares it.
    pub fn uri(self) -> &'static str {
        match self {
            Draft::D4 => "http://json-schema.org/draft-04/schema#",
            Draft::D6 => "http://json-schema.org/draft-06/schema#",
            Draft::D7 => "http://json-schema.org/draft-07/schema#",
            Draft::D2019 => "https://json-schema.org/draft/2019-09/schema",
            Draft::D2020 => "https://json-schema.org/draft/2020-12/schema",
        }
    }
}

/// `document` ([`document`]'s 2020-12 spelling) written for `draft`, with
/// its `$schema`: the keywords the draft spells otherwise are rewritten
/// (`prefixItems` and `items` as `items` and `additionalItems`,
/// `dependentRequired` and `dependentSchemas` as `dependencies`, `$defs` as
/// `definitions` and the pointers into it (but in draft 6, which keeps
/// `$defs`), `$anchor` as an `$id` or `id`
/// fragment; in draft 4, `const` as a one-value `enum`, numeric exclusive
/// bounds as flags and boolean subschemas as `{}` and `{"not": {}}`); the
/// keywords it lacks stay, for a validator of that
/// draft to ignore; each embedded resource names the draft in a `$schema`
/// of its own. Not the same schema in every draft: a `$ref`'s siblings
/// still stand beside it, which drafts before 2019-09 ignore.
pub fn in_draft(document: &Value, draft: Draft) -> Value {
    let mut out = document.clone();
    each_object(&mut out, |map| {
        if draft < Draft::D2020 {
            respell(map, draft);
        }
        // An embedded resource names its draft too, as bundled
        // documents do: the document's own.
        if map
            .get("$id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.ends_with(".json"))
        {
            map.insert("$schema".into(), json!(draft.uri()));
        }
    });
    if let Value::Object(map) = &mut out {
        map.insert("$schema".into(), json!(draft.uri()));
    }
    out
}

/// `document` as it is written, with every `$schema` member in it naming
/// `draft` (the root's, each embedded resource's, and one in any other
/// object, a `const` or a property's name alike): a file whose dialect a
/// person changed without respelling it, so what another draft spells
/// otherwise (draft 6's numeric `exclusiveMinimum`, its `$defs`) stands in
/// this one's.
pub fn relabelled(document: &Value, draft: Draft) -> Value {
    let mut out = document.clone();
    each_object(&mut out, |map| {
        if map.contains_key("$schema") {
            map.insert("$schema".into(), json!(draft.uri()));
        }
    });
    out
}

/// Calls `visit` on every object in `value`, each before those inside it.
fn each_object(value: &mut Value, mut visit: impl FnMut(&mut Map<String, Value>)) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                visit(map);
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// One object's keywords respelt for `draft` (before 2020-12). Every
/// object is respelt, schema or not: a property named like a keyword is
/// respelt too, which changes what is named, never whether it is a schema.
fn respell(map: &mut Map<String, Value>, draft: Draft) {
    if let Some(prefix) = map.remove("prefixItems") {
        if let Some(rest) = map.remove("items") {
            map.insert("additionalItems".into(), rest);
        }
        map.insert("items".into(), prefix);
    }
    if draft >= Draft::D2019 {
        return;
    }
    // Draft 6 keeps `$defs`, which its validator reads where a pointer
    // names it (as writers who never renamed them do); the others spell
    // it `definitions`, and so does each pointer through one.
    if draft != Draft::D6 {
        if let Some(defs) = map.remove("$defs") {
            map.insert("definitions".into(), defs);
        }
        if let Some(Value::String(target)) = map.get_mut("$ref") {
            if target.starts_with("#/") {
                *target = target.replace("/$defs/", "/definitions/");
            }
        }
    }
    let mut dependencies = Map::new();
    if let Some(Value::Object(required)) = map.remove("dependentRequired") {
        dependencies.extend(required);
    }
    if let Some(Value::Object(schemas)) = map.remove("dependentSchemas") {
        for (name, schema) in schemas {
            let both = match dependencies.remove(&name) {
                Some(names) => json!({"allOf": [schema, {"required": names}]}),
                None => schema,
            };
            dependencies.insert(name, both);
        }
    }
    if !dependencies.is_empty() {
        map.insert("dependencies".into(), Value::Object(dependencies));
    }
    if let Some(Value::String(anchor)) = map.remove("$anchor") {
        let id = if draft == Draft::D4 { "id" } else { "$id" };
        map.insert(id.into(), json!(format!("#{anchor}")));
    }
    if draft > Draft::D4 {
        return;
    }
    if let Some(value) = map.remove("const") {
        map.insert("enum".into(), json!([value]));
    }
    // No boolean schemas before draft 6, but where a flag is one of the
    // keyword's two forms.
    let unbool = |schema: &mut Value| {
        if let Value::Bool(holds) = schema {
            *schema = if *holds {
                json!({})
            } else {
                json!({"not": {}})
            };
        }
    };
    for (keyword, value) in map.iter_mut() {
        match (keyword.as_str(), value) {
            ("additionalProperties" | "additionalItems", _) => {}
            ("allOf" | "anyOf" | "oneOf" | "items", Value::Array(list)) => {
                list.iter_mut().for_each(unbool)
            }
            (
                "properties" | "patternProperties" | "definitions" | "dependencies",
                Value::Object(entries),
            ) => entries.values_mut().for_each(unbool),
            ("items" | "not" | "contains" | "propertyNames" | "if" | "then" | "else", schema) => {
                unbool(schema)
            }
            _ => {}
        }
    }
    for (exclusive, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(limit) = map.remove(exclusive) {
            if limit.is_number() {
                map.insert(bound.into(), limit);
                map.insert(exclusive.into(), json!(true));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyword_takes_each_neighbours_name_the_object_lacks() {
        let document =
            json!({"minimum": 1, "maximum": 2, "properties": {"a~b": {"allOf": [true]}}});
        let swapped: Vec<Value> = keyword_swaps(&document)
            .iter()
            .map(|edit| edit.applied(&document))
            .collect();
        assert!(swapped.contains(
            &json!({"exclusiveMinimum": 1, "maximum": 2, "properties": {"a~b": {"allOf": [true]}}})
        ));
        assert!(swapped.contains(
            &json!({"minimum": 1, "maximum": 2, "properties": {"a~b": {"oneOf": [true]}}})
        ));
        assert!(swapped.contains(
            &json!({"minimum": 1, "maximum": 2, "patternProperties": {"a~b": {"allOf": [true]}}})
        ));
        // `maximum` is there: `minimum` is not renamed onto it.
        assert!(
            !swapped
                .iter()
                .any(|value| value.get("minimum").is_none()
                    && value.get("maximum") == Some(&json!(1)))
        );
        // Two names left for each of the two bounds, two for `allOf`, four
        // for `properties`.
        assert_eq!(swapped.len(), 2 * 2 + 2 + 4);
    }

    /// A transplant puts a copy of one schema of the document where
    /// another stood, and changes nothing else.
    #[test]
    fn a_transplant_copies_one_schema_over_another() {
        let document = json!({
            "properties": {"x": {"type": "string"}, "y": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"minimum": 1}},
        });
        let places = places(&document);
        let edits = transplants(&document, &mut Rng::new(7), 40);
        assert!(edits.len() > 10, "{edits:?}");
        for edit in &edits {
            let with = edit.with.as_ref().expect("a schema");
            assert!(places.contains(&edit.pointer), "{edit:?}");
            assert!(places
                .iter()
                .any(|from| document.pointer(from) == Some(with) && *from != edit.pointer));
            assert_eq!(edit.applied(&document).pointer(&edit.pointer), Some(with));
        }
    }

    /// Each keyword of the table is added where an object lacks it, and
    /// every value of the table is JSON.
    #[test]
    fn a_keyword_is_added_where_an_object_lacks_it() {
        let document = json!({"minLength": 3, "properties": {"x": {}}});
        let added: Vec<Value> = keyword_additions(&document)
            .iter()
            .map(|edit| edit.applied(&document))
            .collect();
        for (_, text) in KEYWORD_ADDITIONS {
            assert!(serde_json::from_str::<Value>(text).is_ok(), "{text}");
        }
        assert!(added.contains(&json!({"minLength": 3, "maxLength": 0, "properties": {"x": {}}})));
        assert!(added.contains(&json!({"minLength": 3, "properties": {"x": {"minLength": 1}}})));
        // `minLength` is there at the root: neither of its values is added.
        assert!(!added
            .iter()
            .any(|value| value.get("minLength") != Some(&json!(3))));
        let lacking = |object: &Value| {
            KEYWORD_ADDITIONS
                .iter()
                .filter(|(keyword, _)| object.get(keyword).is_none())
                .count()
        };
        // The root, the map of `properties`, and `x`.
        assert_eq!(
            added.len(),
            lacking(&document) + lacking(&json!({"x": {}})) + lacking(&json!({}))
        );
    }
}
