//! What code built on the generated bindings names, read off the model the
//! emitters write them from, for `cargo xtask compat`'s API verdict
//! (`compat::api`). Names in the three languages are derived from these
//! (`docs/bindings.md`, "Names"), so an item kept here with its shape is a
//! name kept in each.

use compat::api::{Item, Modelled, Surface};
use contract::{escape_pointer_token as escape, SchemaSet};

use super::{model, Def, Ty};

/// The surface of the bindings `set` generates, or why the generator
/// refuses it.
pub fn surface(set: &SchemaSet) -> Modelled {
    // A document kept unread (compat keeps one that nests too deep) names
    // nothing anyone can know; the generator would read it as `true`.
    if let Some((doc, deep)) = set
        .docs
        .iter()
        .find_map(|doc| doc.too_deep.as_ref().map(|deep| (doc, deep)))
    {
        return Err(format!("{}#{}: {deep}", doc.rel, deep.pointer));
    }
    let model = model(set).map_err(|error| {
        // One line: the reports print it as a change's detail.
        format!("{error:#}")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    })?;
    // The report's group is the file's type, method or event.
    let group = |place: &str| {
        let file = place.split_once('#').map_or(place, |(file, _)| file);
        set.docs
            .iter()
            .find(|doc| doc.rel == file)
            .map_or_else(|| file.to_string(), |doc| doc.name.clone())
    };
    // A place below a type's origin where the schema has one (a field
    // merged from an `allOf` part is located at its type).
    let below = |place: &str, suffix: &str| {
        let (file, pointer) = place.split_once('#').unwrap_or((place, ""));
        let deeper = format!("{pointer}{suffix}");
        let found = set
            .docs
            .iter()
            .any(|doc| doc.rel == file && doc.value.pointer(&deeper).is_some());
        if found {
            format!("{file}#{deeper}")
        } else {
            place.to_string()
        }
    };
    let mut surface = Surface::default();
    let mut add = |key: String, place: &str, shape: String| {
        surface.insert(
            key,
            Item {
                group: group(place),
                place: place.to_string(),
                shape,
            },
        );
    };
    for named in &model.types {
        let (name, place) = (&named.name, named.origin.as_str());
        match &named.def {
            Def::Struct(object) => {
                // With its required fields: the Rust `new` takes them, so a
                // field made required, or a required one added, changes it.
                let required: Vec<&str> = object
                    .fields
                    .iter()
                    .filter(|field| field.required)
                    .map(|field| field.json.as_str())
                    .collect();
                add(
                    format!("type {name}"),
                    place,
                    format!("an object (required: {})", required.join(", ")),
                );
                for field in &object.fields {
                    let mut shape = shape(&field.ty);
                    if !field.required {
                        shape.push_str(", optional");
                    }
                    if field.nullable {
                        shape.push_str(", or null");
                    }
                    if field.secret {
                        shape.push_str(", a secret");
                    }
                    let at = below(place, &format!("/properties/{}", escape(&field.json)));
                    add(format!("field {name}.{}", field.json), &at, shape);
                }
            }
            Def::StringEnum(values) => {
                add(format!("type {name}"), place, "a string enum".into());
                // With its position: the C++ and Rust enumerators are
                // numbered in the contract's order (the engine's mirror of
                // TaskErrorCode holds it to that order), so a value moved, or
                // one inserted before it, renumbers it; one appended does not.
                for (index, value) in values.iter().enumerate() {
                    let at = below(place, &format!("/enum/{index}"));
                    add(
                        format!("value {name}::{value}"),
                        &at,
                        format!("a value, at position {index}"),
                    );
                }
            }
            Def::IntEnum(values) => {
                add(format!("type {name}"), place, "an integer enum".into());
                // Both ways: a name moved to another value compiles and
                // means something else.
                for (index, (value, variant)) in values.iter().enumerate() {
                    let at = below(place, &format!("/x-enum-varnames/{index}"));
                    add(
                        format!("value {name}::{variant}"),
                        &at,
                        format!("= {value}"),
                    );
                    add(
                        format!("value {name} = {value}"),
                        &at,
                        format!("named {variant}"),
                    );
                }
            }
            Def::Alias(ty) => add(format!("type {name}"), place, shape(ty)),
        }
    }
    for call in &model.calls {
        let place = format!("methods/{}.json#", call.method);
        add(
            format!("method {}", call.method),
            &place,
            format!("params {}, result {}", call.params, call.result),
        );
    }
    for event in &model.events {
        let place = format!("events/{}.json#", event.name);
        add(
            format!("event {}", event.name),
            &place,
            format!("params {}", event.params),
        );
    }
    Ok(surface)
}

/// A field's or alias's type as code sees it. Lengths and patterns are left
/// out: no binding's type depends on them (changing them changes what the
/// wire accepts, which the W or R verdict calls breaking). An integer's
/// bounds choose the type code holds it in, which is part of its shape.
fn shape(ty: &Ty) -> String {
    match ty {
        Ty::Bool => "a boolean".into(),
        Ty::Int { min, max } => {
            let held = super::int_types(*min, *max);
            format!("an integer ({} in Rust, {} in C++)", held.rust, held.cpp)
        }
        Ty::Str(_) => "a string".into(),
        Ty::Named(name) => name.clone(),
        Ty::Array { items, unique, .. } => {
            let set = if *unique { " (unique)" } else { "" };
            format!("an array{set} of {}", shape(items))
        }
        Ty::Map { values, .. } => format!("a map of {}", shape(values)),
        Ty::Any => "any JSON value".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// What code built on the bindings sees of them: the TypeScript
    /// declarations, the C++ header outside its `detail` namespace (the
    /// readers live there), and the Rust types and tables, each without
    /// comments.
    fn declarations(set: &SchemaSet) -> Option<[Vec<String>; 3]> {
        let origin = crate::codegen::Origin::working_tree();
        let rust = crate::codegen::rust_bindings(set, &origin).ok()?;
        let [cpp, ts] = crate::codegen::cpp_and_ts_bindings(set, "0.0.0", &origin).ok()?;
        // A string literal's content is data (a method's summary), not a
        // declaration: a name that changes changes the surface too.
        fn unquoted(line: &str) -> String {
            let mut out = String::new();
            let mut chars = line.chars();
            while let Some(c) = chars.next() {
                out.push(c);
                if c == '"' {
                    while let Some(inner) = chars.next() {
                        match inner {
                            '\\' => {
                                chars.next();
                            }
                            '"' => {
                                out.push('"');
                                break;
                            }
                            _ => {}
                        }
                    }
                }
            }
            out
        }
        let code = |text: &str| -> Vec<String> {
            text.lines()
                .map(str::trim)
                .filter(|line| {
                    !(line.is_empty()
                        || line.starts_with("//")
                        || line.starts_with("/*")
                        || line.starts_with('*'))
                })
                .map(unquoted)
                .collect()
        };
        let rust = rust.iter().flat_map(|(_, text)| code(text)).collect();
        let dts = ts
            .iter()
            .filter(|(name, _)| name.ends_with(".d.ts"))
            .flat_map(|(_, text)| code(text))
            .collect();
        let mut header = Vec::new();
        for (name, text) in &cpp {
            if *name != "contract.hpp" {
                continue;
            }
            let mut depth_in_detail: Option<usize> = None;
            let mut depth = 0_usize;
            for line in code(text) {
                if depth_in_detail.is_none() && line.starts_with("namespace detail") {
                    depth_in_detail = Some(depth);
                }
                depth += line.matches('{').count();
                depth = depth.saturating_sub(line.matches('}').count());
                match depth_in_detail {
                    Some(at) if depth <= at => depth_in_detail = None,
                    Some(_) => {}
                    None => header.push(line),
                }
            }
        }
        Some([rust, header, dts])
    }

    /// The contract's places edited one at a time: integer bounds, string
    /// lengths, patterns and formats, array lengths and uniqueness,
    /// descriptions, a field made required, a type made nullable, a string
    /// made a secret, an object opened.
    fn edits(set: &SchemaSet) -> Vec<(String, SchemaSet)> {
        fn places(value: &Value, at: String, out: &mut Vec<String>) {
            match value {
                Value::Object(map) => {
                    out.push(at.clone());
                    for (key, child) in map {
                        places(child, format!("{at}/{}", escape(key)), out);
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        places(child, format!("{at}/{i}"), out);
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        for (d, doc) in set.docs.iter().enumerate() {
            let mut at = Vec::new();
            places(&doc.value, String::new(), &mut at);
            for pointer in at {
                let Some(Value::Object(map)) = doc.value.pointer(&pointer) else {
                    continue;
                };
                let mut changes: Vec<(&str, Value)> = Vec::new();
                let number = |key: &str| map.get(key).and_then(Value::as_i64);
                if let Some(max) = number("maximum") {
                    changes.push(("maximum", json!(max + 1)));
                    changes.push(("maximum", json!(max.saturating_mul(300).max(300))));
                    changes.push(("maximum", json!(u32::MAX)));
                }
                if let Some(min) = number("minimum") {
                    changes.push(("minimum", json!(min - 1)));
                    changes.push(("minimum", json!(min + 1)));
                }
                if let Some(len) = number("maxLength") {
                    changes.push(("maxLength", json!(len + 1)));
                }
                if let Some(len) = number("maxItems") {
                    changes.push(("maxItems", json!(len + 1)));
                }
                if map.contains_key("pattern") {
                    changes.push(("pattern", json!("^.*$")));
                }
                if map.contains_key("description") {
                    changes.push(("description", json!("Changed.")));
                }
                if let Some(Value::String(ty)) = map.get("type") {
                    changes.push(("type", json!([ty, "null"])));
                }
                if map.get("type") == Some(&json!("string")) {
                    changes.push(("x-secret", json!(true)));
                    changes.push(("format", json!("uri")));
                    changes.push(("minLength", json!(2)));
                }
                if map.get("additionalProperties") == Some(&json!(false)) {
                    changes.push(("additionalProperties", json!(true)));
                }
                if map.get("type") == Some(&json!("array")) {
                    changes.push(("uniqueItems", json!(true)));
                    changes.push(("minItems", json!(1)));
                }
                if let (Some(Value::Object(props)), Some(Value::Array(required))) =
                    (map.get("properties"), map.get("required"))
                {
                    if let Some(optional) = props.keys().find(|k| !required.contains(&json!(k))) {
                        let mut more = required.clone();
                        more.push(json!(optional));
                        changes.push(("required", Value::Array(more)));
                    }
                }
                for (key, value) in changes {
                    let mut edited = set.clone();
                    if let Some(Value::Object(target)) = edited
                        .docs
                        .get_mut(d)
                        .and_then(|doc| doc.value.pointer_mut(&pointer))
                    {
                        target.insert(key.to_string(), value.clone());
                        out.push((format!("{}#{pointer}/{key} = {value}", doc.rel), edited));
                    }
                }
            }
        }
        out
    }

    /// A document kept unread because it nests too deep gives no surface,
    /// and the reason is its depth, not what the generator makes of `true`.
    #[test]
    fn a_document_kept_too_deep_is_no_surface_and_says_why() {
        let mut set = SchemaSet::load(&crate::root().join("contracts/schema")).unwrap();
        let doc = set
            .docs
            .iter_mut()
            .find(|doc| doc.rel == "types/DownloadSpec.json")
            .unwrap();
        doc.value = Value::Bool(true);
        doc.too_deep = Some(contract::TooDeep {
            depth: 140,
            pointer: "/properties/url".into(),
        });
        let why = surface(&set).unwrap_err();
        assert_eq!(
            why,
            "types/DownloadSpec.json#/properties/url: the document nests 140 levels deep, \
             past the 127 this tool reads"
        );
    }

    /// The surface is what the API verdict compares, so it must change
    /// whenever what code sees of the bindings does: for edits of the
    /// contract drawn place by place, wherever the surface stays the same,
    /// the declarations in the three languages stay the same.
    /// `SURFACE_EDITS_EVERY=1` tries every edit (the bounded run every
    /// fifteenth).
    #[test]
    fn the_surface_changes_whenever_what_code_sees_does() {
        let root = crate::root();
        let base = SchemaSet::load(&root.join("contracts/schema")).unwrap();
        let every: usize = std::env::var("SURFACE_EDITS_EVERY")
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or(15);
        let (base_surface, base_code) = (surface(&base).unwrap(), declarations(&base).unwrap());
        let (mut same, mut changed, mut missed) = (0, 0, Vec::new());
        for (what, edited) in edits(&base).into_iter().step_by(every.max(1)) {
            let Ok(new_surface) = surface(&edited) else {
                continue;
            };
            let Some(code) = declarations(&edited) else {
                continue;
            };
            if new_surface != base_surface {
                changed += 1;
                continue;
            }
            same += 1;
            for (language, (old, new)) in ["Rust", "C++", "TypeScript"]
                .iter()
                .zip(base_code.iter().zip(code.iter()))
            {
                if old != new {
                    let first = old
                        .iter()
                        .zip(new.iter())
                        .find(|(a, b)| a != b)
                        .map(|(a, b)| format!("{a:?} → {b:?}"))
                        .unwrap_or_else(|| format!("{} → {} lines", old.len(), new.len()));
                    missed.push(format!("{what}: {language}: {first}"));
                }
            }
        }
        eprintln!("{same} edits kept the surface, {changed} changed it");
        assert!(missed.is_empty(), "{}", missed.join("\n"));
        assert!(
            same >= 10,
            "{same} edits kept the surface, {changed} changed it"
        );
    }

    /// The surface names the types the bindings declare: every type of the
    /// model is declared by that name in the generated Rust (typify's
    /// types and the tables), C++ and TypeScript, so a type gone from the surface is a
    /// name gone from each language.
    #[test]
    fn every_type_of_the_surface_is_declared_in_each_language() {
        let root = crate::root();
        let set = SchemaSet::load(&root.join("contracts/schema")).unwrap();
        let model = model(&set).unwrap();
        let read = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
        let rust = read("crates/proto/src/generated/types.rs")
            + &read("crates/proto/src/generated/tables.rs");
        let cpp = read("bindings/cpp/include/vdm/contract.hpp");
        let ts = read("bindings/ts/index.d.ts");
        let declared = |text: &str, forms: &[&str], name: &str| {
            forms
                .iter()
                .any(|form| text.contains(&form.replace("NAME", name)))
        };
        assert!(!model.types.is_empty());
        for named in &model.types {
            let name = named.name.as_str();
            assert!(
                declared(
                    &rust,
                    &["pub struct NAME", "pub enum NAME ", "pub type NAME "],
                    name
                ),
                "Rust does not declare {name}"
            );
            assert!(
                declared(
                    &cpp,
                    &["struct NAME ", "enum class NAME ", "using NAME ="],
                    name
                ),
                "C++ does not declare {name}"
            );
            assert!(
                declared(&ts, &["export interface NAME ", "export type NAME ="], name),
                "TypeScript does not declare {name}"
            );
        }
        let surface = surface(&set).unwrap();
        assert!(surface.len() > model.types.len());
    }
}
