//! One document for typify: every schema file, and every method's and event's
//! shapes, as an entry of `$defs` named for the Rust type it becomes.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{anyhow, bail, Context};
use contract::{resolve_ref, DocKind, SchemaDoc, SchemaSet};
use serde_json::{Map, Value};

/// Keywords that constrain values without changing their shape: the
/// validator enforces them, the Rust types do not (typify panics on some and
/// would pull in regex and date crates for others).
const ASSERTION_ONLY: &[&str] = &[
    "if",
    "then",
    "else",
    "not",
    "allOf",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "propertyNames",
    "contains",
    "examples",
];

/// The Rust type of every `x-secret` field: a string that `Debug` never prints.
pub const SECRET_TYPE: &str = "SecretString";
const SECRET_REF: &str = "#/$defs/SecretString";

/// The bundle and what codegen needs to know about it.
pub struct Bundle {
    /// `{"$defs": {Name: schema, ...}}`.
    pub document: Value,
    /// The Rust type name of each bundled place, by `(file, pointer)`.
    pub names: BTreeMap<(String, String), String>,
    /// Named objects without properties (empty params and results), with
    /// their descriptions. typify would make them maps, or structs that refuse
    /// unknown fields; `tables` writes them as tolerant empty structs instead.
    pub empty_objects: BTreeMap<String, String>,
    /// JSON names of optional properties that may also be `null`, where
    /// absent and `null` mean different things (`null` clears a setting).
    /// typify would fold both into one `Option`; `patch_nullable` fixes that.
    pub nullable_optional: BTreeSet<String>,
}

impl Bundle {
    /// Every type name the bundle defines, sorted.
    pub fn defined_names(&self) -> impl Iterator<Item = &String> {
        self.document
            .get("$defs")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|defs| defs.keys())
    }

    /// The Rust name of a method's or event's shape (`params`/`result`).
    pub fn shape_name(&self, doc: &SchemaDoc, shape: &str) -> anyhow::Result<&str> {
        self.names
            .get(&(doc.rel.clone(), format!("/$defs/{shape}")))
            .map(String::as_str)
            .ok_or_else(|| anyhow!("{}: no $defs/{shape}", doc.rel))
    }
}

pub fn bundle(set: &SchemaSet) -> anyhow::Result<Bundle> {
    // First name every place, so references can be rewritten in one pass.
    let (mut names, places) = places(set)?;
    let aliases = aliases(set, &places, &names)?;
    names.extend(aliases.clone());

    let mut defs = Map::new();
    let mut empty_objects = BTreeMap::new();
    for (doc, pointer, schema) in &places {
        let key = (doc.rel.clone(), pointer.clone());
        if aliases.contains_key(&key) {
            continue;
        }
        let name = names
            .get(&key)
            .cloned()
            .with_context(|| format!("{}#{pointer}: a place without a name", doc.rel))?;
        let mut shaped = shape(set, doc, schema, &names)
            .with_context(|| format!("bundling {}#{pointer}", doc.rel))?;
        if let Value::Object(map) = &mut shaped {
            map.insert("title".into(), Value::String(name.clone()));
            // typify puts descriptions into doc comments; the version a type
            // appeared in belongs there too.
            let since = doc.value.get("x-since").and_then(Value::as_str);
            if let (Some(since), Some(Value::String(text))) = (since, map.get_mut("description")) {
                text.push_str(&format!("\n\nSince contract {since}."));
            }
        }
        if is_empty_object(schema) {
            // Absent is empty (the lint asks for a description).
            let description = shaped
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            empty_objects.insert(name.clone(), description.to_string());
        }
        if defs.insert(name.clone(), shaped).is_some() {
            bail!("two schema places are both named {name}; rename one title");
        }
    }
    let nullable_optional = nullable_optional(set)?;
    let has_secret = serde_json::to_string(&defs)?.contains(SECRET_REF);
    if has_secret {
        defs.insert(SECRET_TYPE.into(), serde_json::json!({"title": SECRET_TYPE, "type": "string", "description": "A credential."}));
    }
    Ok(Bundle {
        document: serde_json::json!({ "$defs": defs }),
        names,
        empty_objects,
        nullable_optional,
    })
}

/// Rust type names by `(file, pointer)`.
type Names = BTreeMap<(String, String), String>;

/// A place of the set that becomes a Rust type: the file and the pointer.
type Place<'s> = (&'s SchemaDoc, String, &'s Value);

/// Every place that becomes a Rust type, with its name: each type and
/// envelope file, each titled shape under a method's or event's `$defs`.
fn places(set: &SchemaSet) -> anyhow::Result<(Names, Vec<Place<'_>>)> {
    let mut names = BTreeMap::new();
    let mut places: Vec<Place<'_>> = Vec::new();
    for doc in &set.docs {
        match doc.kind {
            // Config files are written from Rust types, not the other way round.
            DocKind::Config => {}
            DocKind::Type | DocKind::Envelope => {
                names.insert((doc.rel.clone(), String::new()), doc.name.clone());
                places.push((doc, String::new(), &doc.value));
            }
            DocKind::Method | DocKind::Event => {
                let defs = doc
                    .value
                    .get("$defs")
                    .and_then(Value::as_object)
                    .with_context(|| format!("{}: no $defs", doc.rel))?;
                for (shape, schema) in defs {
                    let pointer = format!("/$defs/{shape}");
                    let title = schema
                        .get("title")
                        .and_then(Value::as_str)
                        .with_context(|| {
                            format!(
                                "{}#{pointer}: a shape needs a title, the Rust type's name",
                                doc.rel
                            )
                        })?;
                    names.insert((doc.rel.clone(), pointer.clone()), title.to_string());
                    places.push((doc, pointer, schema));
                }
            }
        }
    }
    Ok((names, places))
}

/// A shape that is only a reference to a named type *is* that type: the
/// Rust code uses the target, not a newtype around it.
fn aliases(set: &SchemaSet, places: &[Place<'_>], names: &Names) -> anyhow::Result<Names> {
    let mut aliases = BTreeMap::new();
    for (doc, pointer, schema) in places {
        if let Some(target) = bare_ref(schema) {
            let resolved = resolve_ref(set, doc, target)
                .map_err(|why| anyhow!("{}#{pointer}: {why}", doc.rel))?;
            let key = (resolved.doc.rel.clone(), resolved.pointer.to_string());
            let name = names
                .get(&key)
                .cloned()
                .with_context(|| format!("{}#{pointer}: {target} is not a named place", doc.rel))?;
            aliases.insert((doc.rel.clone(), pointer.clone()), name);
        }
    }
    Ok(aliases)
}

/// Optional properties whose type admits `null`, by JSON name. A name that is
/// also an optional, non-nullable property elsewhere is refused: the patch
/// works by name, so the two would be confused.
fn nullable_optional(set: &SchemaSet) -> anyhow::Result<BTreeSet<String>> {
    fn walk(schema: &Value, nullable: &mut BTreeSet<String>, plain: &mut BTreeSet<String>) {
        let Some(map) = schema.as_object() else {
            return;
        };
        if let Some(props) = map.get("properties").and_then(Value::as_object) {
            let required: BTreeSet<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for (name, sub) in props {
                if required.contains(name.as_str()) {
                    continue;
                }
                let admits_null = sub
                    .get("type")
                    .and_then(Value::as_array)
                    .is_some_and(|types| types.iter().any(|t| t == "null"));
                if admits_null {
                    nullable.insert(name.clone());
                } else {
                    plain.insert(name.clone());
                }
            }
        }
        for value in map.values() {
            match value {
                Value::Object(_) => walk(value, nullable, plain),
                Value::Array(items) => items.iter().for_each(|item| walk(item, nullable, plain)),
                _ => {}
            }
        }
    }
    let (mut nullable, mut plain) = (BTreeSet::new(), BTreeSet::new());
    for doc in set.docs.iter().filter(|doc| doc.kind != DocKind::Config) {
        walk(&doc.value, &mut nullable, &mut plain);
    }
    if let Some(both) = nullable.intersection(&plain).next() {
        bail!("property {both:?} is optional-and-nullable in one place and optional elsewhere; rename one");
    }
    Ok(nullable)
}

/// Marks every generated enum `#[non_exhaustive]`: a later contract may add
/// a value (a minor change), so code outside the bindings matches with a
/// wildcard arm and keeps compiling (`docs/bindings.md`, "Open to
/// additions").
pub fn open_enums(file: &mut syn::File) {
    for item in &mut file.items {
        if let syn::Item::Enum(item) = item {
            if !item
                .attrs
                .iter()
                .any(|attr| attr.path().is_ident("non_exhaustive"))
            {
                item.attrs.push(syn::parse_quote!(#[non_exhaustive]));
            }
        }
    }
}

/// Marks every generated struct with named fields `#[non_exhaustive]` and
/// gives it `new`, taking its required fields in order and leaving the
/// optional ones absent: a later contract may add an optional field (a
/// minor change), and code outside the bindings that builds a struct with
/// `new` and reads one with `..` keeps compiling, where a struct literal
/// naming every field would not (`docs/bindings.md`, "Open to additions").
/// A field is optional when serde may leave it out (`default` or
/// `skip_serializing_if`); run after the passes that set those.
pub fn open_structs(file: &mut syn::File) {
    let mut impls: Vec<syn::Item> = Vec::new();
    for item in &mut file.items {
        let syn::Item::Struct(item) = item else {
            continue;
        };
        let syn::Fields::Named(fields) = &item.fields else {
            continue;
        };
        let mut params: Vec<proc_macro2::TokenStream> = Vec::new();
        let mut inits: Vec<proc_macro2::TokenStream> = Vec::new();
        let mut documented: Vec<String> = Vec::new();
        for field in &fields.named {
            let Some(name) = &field.ident else {
                continue;
            };
            let serde_attrs = serde_attrs(&field.attrs);
            let optional =
                serde_attrs.contains("skip_serializing_if") || serde_attrs.contains("default");
            if optional {
                inits.push(quote::quote!(#name: ::std::default::Default::default()));
            } else {
                let ty = &field.ty;
                params.push(quote::quote!(#name: #ty));
                inits.push(quote::quote!(#name));
                documented.push(format!("`{name}`"));
            }
        }
        if !item
            .attrs
            .iter()
            .any(|attr| attr.path().is_ident("non_exhaustive"))
        {
            item.attrs.push(syn::parse_quote!(#[non_exhaustive]));
        }
        let ident = &item.ident;
        let required = documented.join(", ");
        let doc = match (documented.is_empty(), inits.len() > documented.len()) {
            (true, _) => format!("A `{ident}` with every field absent; set the ones to send."),
            (false, true) => format!(
                "A `{ident}` with its required fields ({required}); the optional ones are absent, to be set as needed."
            ),
            (false, false) => format!("A `{ident}` of its fields ({required})."),
        };
        impls.push(syn::parse_quote! {
            impl #ident {
                #[doc = #doc]
                #[allow(clippy::too_many_arguments)]
                pub fn new(#(#params),*) -> Self {
                    Self { #(#inits),* }
                }
            }
        });
    }
    file.items.extend(impls);
}

/// Keeps a present empty collection, and a present `null` in a free-form
/// field, apart from an absent field, so what is read is written back as it
/// came (the C++ and TypeScript bindings do, and the readers are held to
/// the same value): typify writes an optional array or map as a bare
/// collection that an absent field and `[]` both read as empty, and an
/// optional free-form value as an `Option` that `null` reads as `None`.
pub fn keep_present_empties(file: &mut syn::File) {
    for field in named_fields(file) {
        let serde_attrs = serde_attrs(&field.attrs);
        let ty = &field.ty;
        let ty_text = quote::ToTokens::to_token_stream(ty)
            .to_string()
            .replace(' ', "");
        let rename = serde_rename(&field.attrs);
        let collection = serde_attrs.contains("is_empty");
        let free_form = ty_text == "::std::option::Option<::serde_json::Value>";
        if !collection && !free_form {
            continue;
        }
        if collection {
            let inner: syn::Type = syn::parse_quote!(::std::option::Option<#ty>);
            field.ty = inner;
        }
        field.attrs.retain(|attr| !attr.path().is_ident("serde"));
        let attr: syn::Attribute = match (collection, rename) {
            (true, Some(name)) => syn::parse_quote! {
                #[serde(rename = #name, default, skip_serializing_if = "::std::option::Option::is_none")]
            },
            (true, None) => syn::parse_quote! {
                #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            },
            (false, Some(name)) => syn::parse_quote! {
                #[serde(
                    rename = #name,
                    default,
                    skip_serializing_if = "::std::option::Option::is_none",
                    deserialize_with = "crate::wire::present_value"
                )]
            },
            (false, None) => syn::parse_quote! {
                #[serde(
                    default,
                    skip_serializing_if = "::std::option::Option::is_none",
                    deserialize_with = "crate::wire::present_value"
                )]
            },
        };
        field.attrs.push(attr);
    }
}

/// Makes each optional field that may not be `null` refuse it: serde reads
/// `null` into an `Option` as `None`, so typify's `Option<T>` took
/// `"code": null` where the schema, the validator and the other bindings
/// refuse it. Runs after [`patch_nullable`] and [`keep_present_empties`]: a
/// field that already reads with a `deserialize_with` (`null` allowed, a
/// free-form value, a required nullable field) is left as it is.
pub fn refuse_null_where_absent_is_meant(file: &mut syn::File) {
    for field in named_fields(file) {
        let ty_text = quote::ToTokens::to_token_stream(&field.ty)
            .to_string()
            .replace(' ', "");
        let serde_attrs = serde_attrs(&field.attrs);
        if !ty_text.starts_with("::std::option::Option<")
            || serde_attrs.contains("deserialize_with")
            || !serde_attrs.contains("skip_serializing_if")
        {
            continue;
        }
        let rename = serde_rename(&field.attrs);
        field.attrs.retain(|attr| !attr.path().is_ident("serde"));
        field.attrs.push(match rename {
            Some(name) => syn::parse_quote! {
                #[serde(
                    rename = #name,
                    default,
                    skip_serializing_if = "::std::option::Option::is_none",
                    deserialize_with = "crate::wire::present"
                )]
            },
            None => syn::parse_quote! {
                #[serde(
                    default,
                    skip_serializing_if = "::std::option::Option::is_none",
                    deserialize_with = "crate::wire::present"
                )]
            },
        });
    }
}

/// Rewrites each optional, nullable field from `Option<T>` to
/// `Option<Option<T>>`, so absent (`None`) and `null` (`Some(None)`) stay
/// apart on both reading and writing.
pub fn patch_nullable(file: &mut syn::File, names: &BTreeSet<String>) -> anyhow::Result<()> {
    for field in named_fields(file) {
        // Named fields have identifiers; `Fields::Named` was matched above.
        let ident = field
            .ident
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        let json_name = serde_rename(&field.attrs).unwrap_or(ident);
        if !names.contains(&json_name) {
            continue;
        }
        let ty = &field.ty;
        let inner: syn::Type = syn::parse_quote!(::std::option::Option<#ty>);
        field.ty = inner;
        field.attrs.retain(|attr| !attr.path().is_ident("serde"));
        field.attrs.push(syn::parse_quote! {
            #[serde(
                rename = #json_name,
                default,
                skip_serializing_if = "::std::option::Option::is_none",
                deserialize_with = "crate::wire::present_or_null"
            )]
        });
    }
    Ok(())
}

/// Every named field of every struct in `file`, for the passes that
/// rewrite fields one at a time.
fn named_fields(file: &mut syn::File) -> impl Iterator<Item = &mut syn::Field> {
    file.items
        .iter_mut()
        .filter_map(|item| match item {
            syn::Item::Struct(syn::ItemStruct {
                fields: syn::Fields::Named(fields),
                ..
            }) => Some(fields.named.iter_mut()),
            _ => None,
        })
        .flatten()
}

/// A field's `#[serde(...)]` attributes as one text, to look for a
/// setting in.
fn serde_attrs(attrs: &[syn::Attribute]) -> String {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
        .map(|attr| quote::ToTokens::to_token_stream(attr).to_string())
        .collect()
}

fn serde_rename(attrs: &[syn::Attribute]) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let value: syn::LitStr = meta.value()?.parse()?;
                found = Some(value.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    found
}

fn is_empty_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(|props| props.is_empty())
        && schema.get("additionalProperties") == Some(&Value::Bool(false))
}

fn bare_ref(schema: &Value) -> Option<&str> {
    let map = schema.as_object()?;
    let only_annotations = map
        .keys()
        .all(|key| matches!(key.as_str(), "$ref" | "title" | "description"));
    map.get("$ref")
        .and_then(Value::as_str)
        .filter(|_| only_annotations)
}

fn shape(
    set: &SchemaSet,
    doc: &SchemaDoc,
    schema: &Value,
    names: &BTreeMap<(String, String), String>,
) -> anyhow::Result<Value> {
    let Value::Object(map) = schema else {
        return Ok(schema.clone());
    };
    if map.get("x-secret") == Some(&Value::Bool(true)) {
        let mut secret = Map::new();
        secret.insert("$ref".into(), Value::String(SECRET_REF.into()));
        if let Some(description) = map.get("description") {
            secret.insert("description".into(), description.clone());
        }
        return Ok(Value::Object(secret));
    }
    let mut out = Map::new();
    let is_integer = match map.get("type") {
        Some(Value::String(one)) => one == "integer",
        Some(Value::Array(many)) => many.iter().any(|ty| ty == "integer"),
        _ => false,
    };
    if is_integer {
        let bound = |key: &str| map.get(key).and_then(Value::as_f64);
        out.insert(
            "format".into(),
            Value::String(
                super::model::integer_types(bound("minimum"), bound("maximum"))
                    .format
                    .into(),
            ),
        );
    }
    for (key, value) in map {
        if is_integer && matches!(key.as_str(), "minimum" | "maximum") {
            continue;
        }
        let meta_keyword = key.starts_with('$') && key != "$ref";
        if ASSERTION_ONLY.contains(&key.as_str()) || meta_keyword || key.starts_with("x-") {
            continue;
        }
        let shaped = match key.as_str() {
            "$ref" => {
                let reference = value.as_str().context("$ref is not a string")?;
                let resolved = resolve_ref(set, doc, reference).map_err(|why| anyhow!(why))?;
                let name = names
                    .get(&(resolved.doc.rel.clone(), resolved.pointer.to_string()))
                    .with_context(|| {
                        format!("{reference} points inside a schema, not at a named type")
                    })?;
                Value::String(format!("#/$defs/{name}"))
            }
            // Tolerant readers: an unknown field is ignored, not refused.
            "additionalProperties" if value == &Value::Bool(false) => continue,
            "properties" => {
                let mut props = Map::new();
                for (name, sub) in value.as_object().into_iter().flatten() {
                    let mut shaped = shape(set, doc, sub, names)?;
                    // A field newer than its type says so in its doc comment.
                    if let (Some(since), Some(Value::String(text))) = (
                        sub.get("x-since").and_then(Value::as_str),
                        shaped.get_mut("description"),
                    ) {
                        text.push_str(&format!(" (since contract {since})"));
                    }
                    props.insert(name.clone(), shaped);
                }
                Value::Object(props)
            }
            "items" | "additionalProperties" => shape(set, doc, value, names)?,
            "oneOf" | "anyOf" => Value::Array(
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|sub| shape(set, doc, sub, names))
                    .collect::<anyhow::Result<_>>()?,
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), shaped);
    }
    Ok(Value::Object(out))
}

thread_local! {
    /// Whether typify runs on this thread under [`typify()`]'s catch.
    static TYPIFY_RUNNING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a panic on this thread now is typify's, which [`typify()`] catches
/// and refuses with what it said: the panic hook need not print it too.
pub fn typify_panic_is_caught() -> bool {
    TYPIFY_RUNNING.with(std::cell::Cell::get)
}

/// Runs typify over the bundle. typify panics on shapes it does not handle;
/// the panic becomes an error naming the schema instead of a crash.
pub fn typify(
    bundle: &Bundle,
    replaced: &[(String, String)],
) -> anyhow::Result<proc_macro2::TokenStream> {
    let root: schemars08::schema::RootSchema = serde_json::from_value(bundle.document.clone())
        .context("the bundle is not a schema typify reads")?;
    let mut settings = typify::TypeSpaceSettings::default();
    settings
        .with_derive("PartialEq".to_string())
        .with_map_type("::std::collections::BTreeMap");
    for (name, path) in replaced {
        settings.with_replacement(name, path, std::iter::empty());
    }
    TYPIFY_RUNNING.with(|running| running.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut space = typify::TypeSpace::new(&settings);
        space.add_root_schema(root).map(|_| space.to_stream())
    }));
    TYPIFY_RUNNING.with(|running| running.set(false));
    match result {
        Ok(Ok(tokens)) => Ok(tokens),
        Ok(Err(err)) => bail!("typify refused the bundle: {err}"),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|text| text.to_string()))
                // A payload that is not text says nothing more than "panicked".
                .unwrap_or_default();
            bail!("typify panicked on the bundle: {}", contract::plain(&what))
        }
    }
}

#[cfg(test)]
mod tests {
    /// A schema typify panics on (a string enum with a `const` beside it)
    /// is refused with what typify said, and the flag that keeps the panic
    /// hook quiet is down again after.
    #[test]
    fn a_typify_panic_is_a_refusal_and_the_hook_flag_comes_down() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut set = contract::SchemaSet::load(&root.join("contracts/schema")).expect("loads");
        let doc = set
            .docs
            .iter_mut()
            .find(|doc| doc.name == "TaskState")
            .expect("TaskState");
        let schema = doc.value.as_object_mut().expect("an object");
        let dialect = schema.remove("$schema").expect("a $schema");
        schema.insert("const".into(), dialect);
        let bundle = super::bundle(&set).expect("bundled");
        let err = super::typify(&bundle, &[]).expect_err("typify refuses it");
        assert!(
            err.to_string()
                .starts_with("typify panicked on the bundle: "),
            "{err}"
        );
        assert!(!super::typify_panic_is_caught());
    }
}
