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
