//! Reading the schema set into named types: each place named once, every
//! keyword a type may carry checked against the ones the emitters read.

use super::*;

pub(super) struct Builder<'a> {
    pub(super) set: &'a SchemaSet,
    pub(super) names: BTreeMap<(String, String), String>,
    pub(super) types: BTreeMap<String, Named>,
}

/// Keywords that only annotate.
pub(super) const ANNOTATIONS: &[&str] = &["title", "description", "$schema", "$id", "examples"];

impl Builder<'_> {
    /// The type name a `$ref` from `doc` stands for, following bare references.
    pub(super) fn reference(&self, doc: &SchemaDoc, reference: &str) -> anyhow::Result<String> {
        let mut resolved = resolve_ref(self.set, doc, reference).map_err(|why| anyhow!(why))?;
        // A place that is only a reference (tool.invoke's result) is its target.
        for _ in 0..16 {
            let key = (resolved.doc.rel.clone(), resolved.pointer.to_string());
            match bare_ref(resolved.schema) {
                Some(next) => {
                    resolved =
                        resolve_ref(self.set, resolved.doc, next).map_err(|why| anyhow!(why))?
                }
                None => {
                    return self.names.get(&key).cloned().with_context(|| {
                        format!("{reference} points inside a schema, not at a named type")
                    })
                }
            }
        }
        bail!("{reference}: a chain of more than 16 bare references")
    }

    pub(super) fn named(
        &mut self,
        doc: &SchemaDoc,
        pointer: &str,
        name: &str,
        schema: &Value,
    ) -> anyhow::Result<()> {
        let origin = format!("{}#{pointer}", doc.rel);
        let map = schema
            .as_object()
            .with_context(|| format!("{origin}: not an object schema"))?;
        let description = text(map.get("description"));
        let since = since([schema, &doc.value]);
        not_secret(schema, &origin)?;
        let def = if map.get("type").and_then(Value::as_str) == Some("object")
            && map.get("properties").is_some()
        {
            Def::Struct(self.object(doc, pointer, name, map)?)
        } else if let Some(values) = map.get("enum").and_then(Value::as_array) {
            let names = contract::string_list(map.get("x-enum-varnames"));
            // One type, never null: null is said at the field that uses it.
            let wanted = if names.is_empty() {
                "string"
            } else {
                "integer"
            };
            if map.get("type").and_then(Value::as_str) != Some(wanted) {
                bail!("{origin}/type: an enum with{} `x-enum-varnames` is `\"type\": \"{wanted}\"` (a named type may not admit null; say it at the field)", if names.is_empty() { "out" } else { "" });
            }
            if names.is_empty() {
                let strings: Vec<String> = values
                    .iter()
                    .map(|value| value.as_str().map(str::to_string))
                    .collect::<Option<_>>()
                    .with_context(|| format!("{origin}/enum: a string enum holds strings only"))?;
                one_variant_each(&strings, &format!("{origin}/enum"))?;
                Def::StringEnum(strings)
            } else {
                let ints: Vec<i64> = values
                    .iter()
                    .map(Value::as_i64)
                    .collect::<Option<_>>()
                    .with_context(|| format!("{origin}/enum: a named enum holds integers only"))?;
                if ints.len() != names.len() {
                    bail!("{origin}: `enum` and `x-enum-varnames` differ in length");
                }
                one_variant_each(&names, &format!("{origin}/x-enum-varnames"))?;
                Def::IntEnum(
                    ints.into_iter()
                        .zip(names.iter().map(|n| n.to_string()))
                        .collect(),
                )
            }
        } else {
            let (ty, nullable) = self.ty(doc, pointer, name, schema)?;
            if nullable {
                bail!("{origin}: a named type may not admit null; say it at the field");
            }
            Def::Alias(ty)
        };
        self.insert(Named {
            name: name.to_string(),
            description,
            since,
            origin,
            def,
            http_carriers: contract::string_list(map.get("x-carriesHttpStatus"))
                .into_iter()
                .map(str::to_string)
                .collect(),
        })
    }

    pub(super) fn insert(&mut self, named: Named) -> anyhow::Result<()> {
        if let Some(old) = self.types.get(&named.name) {
            bail!(
                "{} and {} are both named {}",
                old.origin,
                named.origin,
                named.name
            );
        }
        self.types.insert(named.name.clone(), named);
        Ok(())
    }

    pub(super) fn object(
        &mut self,
        doc: &SchemaDoc,
        pointer: &str,
        name: &str,
        map: &Map<String, Value>,
    ) -> anyhow::Result<Struct> {
        let origin = format!("{}#{pointer}", doc.rel);
        for key in map.keys() {
            let known = ANNOTATIONS.contains(&key.as_str())
                || key.starts_with("x-")
                || matches!(
                    key.as_str(),
                    "type" | "properties" | "required" | "additionalProperties" | "allOf" | "$defs"
                );
            if !known {
                bail!("{origin}/{key}: the C++ and TypeScript generators do not read this keyword on an object");
            }
        }
        if !matches!(
            map.get("additionalProperties"),
            None | Some(Value::Bool(false))
        ) {
            bail!("{origin}/additionalProperties: an object with properties is closed or says nothing");
        }
        let required: BTreeSet<&str> = contract::string_list(map.get("required"))
            .into_iter()
            .collect();
        let mut fields = Vec::new();
        let props = map
            .get("properties")
            .and_then(Value::as_object)
            .with_context(|| format!("{origin}/properties: not an object"))?;
        let mut field_names = BTreeMap::new();
        for (json, sub) in props {
            let at = format!(
                "{pointer}/properties/{}",
                contract::escape_pointer_token(json)
            );
            if let Some(other) = field_names.insert(json.to_snake_case(), json) {
                bail!("{origin}/properties: {other:?} and {json:?} are both the field `{}` in Rust and C++", json.to_snake_case());
            }
            let inner_name = format!("{name}{}", json.to_pascal_case());
            let (ty, nullable) = self.ty(doc, &at, &inner_name, sub)?;
            let secret = match sub.get("x-secret") {
                None | Some(Value::Bool(false)) => false,
                Some(Value::Bool(true)) if matches!(ty, Ty::Str(_)) => true,
                Some(_) => bail!(
                    "{}#{at}/x-secret: the generators read `x-secret: true` on a property whose own schema is a string (not a reference, not another type)",
                    doc.rel
                ),
            };
            fields.push(Field {
                json: json.clone(),
                ty,
                required: required.contains(json.as_str()),
                nullable,
                secret,
                description: text(sub.get("description")),
            });
        }
        if let Some(missing) = required.iter().find(|name| !props.contains_key(**name)) {
            bail!("{origin}/required: {missing} is not a property");
        }
        let mut rules = Vec::new();
        for (index, part) in map
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let at = format!("{origin}/allOf/{index}");
            rules.push(rule(part, &fields).with_context(|| at.clone())?);
        }
        Ok(Struct { fields, rules })
    }

    /// A property's type, and whether it admits `null`.
    pub(super) fn ty(
        &mut self,
        doc: &SchemaDoc,
        pointer: &str,
        name: &str,
        schema: &Value,
    ) -> anyhow::Result<(Ty, bool)> {
        let origin = format!("{}#{pointer}", doc.rel);
        let map = schema
            .as_object()
            .with_context(|| format!("{origin}: not an object schema"))?;
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if let Some(extra) = map.keys().find(|key| {
                *key != "$ref" && !ANNOTATIONS.contains(&key.as_str()) && !key.starts_with("x-")
            }) {
                bail!(
                    "{origin}/{extra}: the generators read a $ref with annotations only beside it"
                );
            }
            return Ok((
                Ty::Named(
                    self.reference(doc, reference)
                        .with_context(|| origin.clone())?,
                ),
                false,
            ));
        }
        let Some((ty, nullable)) = type_of(map, &origin)? else {
            return Ok((Ty::Any, false));
        };
        let out = match ty {
            "boolean" => Ty::Bool,
            "integer" => int_ty(map, &origin)?,
            "string" => Ty::Str(StrRules {
                min_len: bound(map, "minLength", &origin)?,
                max_len: bound(map, "maxLength", &origin)?,
                pattern: map
                    .get("pattern")
                    .and_then(Value::as_str)
                    .map(|source| {
                        contract::pattern_automaton(source)
                            .map(|automaton| Pattern {
                                source: source.to_string(),
                                automaton: Box::new(automaton),
                            })
                            .map_err(|why| {
                                anyhow::anyhow!("{origin}/pattern: {why} (lint.pattern)")
                            })
                    })
                    .transpose()?,
            }),
            "array" => self.array_ty(doc, pointer, name, map)?,
            _ => self.object_ty(doc, pointer, name, map)?,
        };
        Ok((out, nullable))
    }

    /// An array: its items' type, how many, whether unique.
    pub(super) fn array_ty(
        &mut self,
        doc: &SchemaDoc,
        pointer: &str,
        name: &str,
        map: &Map<String, Value>,
    ) -> anyhow::Result<Ty> {
        let origin = format!("{}#{pointer}", doc.rel);
        let items = map
            .get("items")
            .with_context(|| format!("{origin}: an array needs `items`"))?;
        not_secret(items, &format!("{origin}/items"))?;
        let (items, item_null) = self.ty(
            doc,
            &format!("{pointer}/items"),
            &format!("{name}Item"),
            items,
        )?;
        if item_null {
            bail!("{origin}/items: items may not be null");
        }
        let unique = map.get("uniqueItems") == Some(&Value::Bool(true));
        if unique && !matches!(&items, Ty::Str(_) | Ty::Int { .. }) && !self.is_string_enum(&items)
        {
            bail!("{origin}/uniqueItems: the generators compare strings and integers only");
        }
        Ok(Ty::Array {
            items: Box::new(items),
            max_items: bound(map, "maxItems", &origin)?,
            unique,
        })
    }

    /// An object: a named struct when it has `properties`, else a map whose
    /// values `additionalProperties` shapes.
    pub(super) fn object_ty(
        &mut self,
        doc: &SchemaDoc,
        pointer: &str,
        name: &str,
        map: &Map<String, Value>,
    ) -> anyhow::Result<Ty> {
        let origin = format!("{}#{pointer}", doc.rel);
        if map.contains_key("properties") {
            let st = self.object(doc, pointer, name, map)?;
            self.insert(Named {
                name: name.to_string(),
                description: text(map.get("description")),
                since: since([&doc.value]),
                origin,
                def: Def::Struct(st),
                http_carriers: Vec::new(),
            })?;
            return Ok(Ty::Named(name.to_string()));
        }
        let values = map
            .get("additionalProperties")
            .filter(|value| value.is_object())
            .with_context(|| {
                format!("{origin}: an object needs `properties` or a schema under `additionalProperties`")
            })?;
        not_secret(values, &format!("{origin}/additionalProperties"))?;
        let (values, value_null) = self.ty(
            doc,
            &format!("{pointer}/additionalProperties"),
            &format!("{name}Value"),
            values,
        )?;
        if value_null {
            bail!("{origin}/additionalProperties: values may not be null");
        }
        Ok(Ty::Map {
            values: Box::new(values),
            max_entries: bound(map, "maxProperties", &origin)?,
        })
    }

    pub(super) fn is_string_enum(&self, ty: &Ty) -> bool {
        let Ty::Named(name) = ty else { return false };
        // Enums are named places, which the names table knows by name.
        self.names.values().any(|known| known == name)
            && self.set.docs.iter().any(|doc| {
                doc.name == *name
                    && doc.value.get("enum").is_some()
                    && doc.value.get("type") == Some(&Value::String("string".into()))
            })
    }
}

/// `x-secret` is read on a property's own schema only: on a type, an item
/// or a map's values no generator models it alike (the Rust types would
/// hold a secret the C++ and TypeScript ones hold as a plain string).
fn not_secret(schema: &Value, origin: &str) -> anyhow::Result<()> {
    if schema.get("x-secret").is_some() {
        bail!("{origin}/x-secret: the generators read `x-secret` on an object's property only, not on a type, an array's items or a map's values");
    }
    Ok(())
}

pub(super) fn bare_ref(schema: &Value) -> Option<&str> {
    let map = schema.as_object()?;
    let only_annotations = map
        .keys()
        .all(|key| key == "$ref" || ANNOTATIONS.contains(&key.as_str()));
    map.get("$ref")
        .and_then(Value::as_str)
        .filter(|_| only_annotations)
}

/// A schema's `type` (one name, or one and `null`) with whether `null` is
/// allowed, once every keyword beside it is one the generators read for that
/// type; `None` for a schema without `type` (any value), which may say
/// nothing else.
pub(super) fn type_of<'m>(
    map: &'m Map<String, Value>,
    origin: &str,
) -> anyhow::Result<Option<(&'m str, bool)>> {
    let (ty, nullable) = match map.get("type") {
        None => {
            if map
                .keys()
                .any(|key| !ANNOTATIONS.contains(&key.as_str()) && !key.starts_with("x-"))
            {
                bail!("{origin}: a schema without `type` is read as any value, and may say nothing else");
            }
            return Ok(None);
        }
        Some(Value::String(one)) => (one.as_str(), false),
        Some(Value::Array(many)) => {
            let names: Vec<&str> = many.iter().filter_map(Value::as_str).collect();
            match names.as_slice() {
                [one, "null"] | ["null", one] => (*one, true),
                _ => bail!("{origin}/type: the generators read one type, or one type and null"),
            }
        }
        Some(_) => bail!("{origin}/type: not a type name"),
    };
    let allowed: &[&str] = match ty {
        "boolean" => &[],
        "integer" => &["minimum", "maximum"],
        "string" => &["minLength", "maxLength", "pattern", "format", "x-secret"],
        "array" => &["items", "maxItems", "uniqueItems"],
        "object" => &[
            "properties",
            "required",
            "additionalProperties",
            "maxProperties",
            "allOf",
        ],
        other => bail!("{origin}/type: {other} is not read by the generators"),
    };
    if let Some(extra) = map.keys().find(|key| {
        *key != "type"
            && !ANNOTATIONS.contains(&key.as_str())
            && !allowed.contains(&key.as_str())
            && !key.starts_with("x-")
    }) {
        let article = if ty.starts_with(['a', 'i', 'o']) {
            "an"
        } else {
            "a"
        };
        let read = if allowed.is_empty() {
            "nothing but its type".to_string()
        } else {
            allowed.join(", ")
        };
        bail!("{origin}/{extra}: not read by the C++ and TypeScript generators on {article} {ty} (they read {read} there)");
    }
    Ok(Some((ty, nullable)))
}

/// An integer's bounds; without one, JavaScript's exact range is the
/// contract's.
pub(super) fn int_ty(map: &Map<String, Value>, origin: &str) -> anyhow::Result<Ty> {
    const SAFE: i64 = 9_007_199_254_740_991;
    let limit = |key: &str, default: i64| -> anyhow::Result<i64> {
        match map.get(key) {
            None => Ok(default),
            Some(value) => value
                .as_i64()
                .with_context(|| format!("{origin}/{key}: not an integer")),
        }
    };
    Ok(Ty::Int {
        min: limit("minimum", -SAFE)?,
        max: limit("maximum", SAFE)?,
    })
}

/// A count keyword (`maxItems`, `minLength`, …), when given.
pub(super) fn bound(
    map: &Map<String, Value>,
    key: &str,
    origin: &str,
) -> anyhow::Result<Option<u64>> {
    match map.get(key) {
        None => Ok(None),
        Some(value) => value
            .as_u64()
            .map(Some)
            // `12.0` is an integer to JSON Schema, and a count past 2^64 − 1
            // one to the validator; the bindings hold counts as `u64`
            // written as integers.
            .with_context(|| {
                format!(
                    "{origin}/{key}: {value} is not a non-negative integer written as one, \
                     up to 2^64 − 1 (write 12, not 12.0)"
                )
            }),
    }
}

/// Whether `name` (an enum value, a method's or an event's name) makes the
/// identifiers the emitters write for it: a Rust type or variant in
/// PascalCase, and a C++ enumerator (`.` and `-` as `_`).
pub(super) fn makes_identifiers(name: &str) -> bool {
    let identifier = |text: &str| {
        text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    identifier(&name.replace(['.', '-'], "_")) && identifier(&name.to_pascal_case())
}

/// Each of `names` is a Rust variant in PascalCase (`lint.snake_case` asks
/// the same): two that meet there would be one variant in typify's
/// types and two in the tables, and `proto` would not compile. And each
/// makes an identifier: a Rust variant, and a C++ enumerator (the name with
/// `.` and `-` as `_`); `1.0.0` makes neither.
fn one_variant_each(names: &[impl AsRef<str>], at: &str) -> anyhow::Result<()> {
    let mut seen = BTreeMap::new();
    for (index, name) in names.iter().enumerate() {
        let name = name.as_ref();
        if !makes_identifiers(name) {
            bail!(
                "{at}/{index}: {name:?} makes no identifier for the bindings (a Rust variant, a C++ enumerator): write it in snake_case, starting with a letter (lint.snake_case)"
            );
        }
        if let Some(first) = seen.insert(name.to_pascal_case(), name) {
            bail!(
                "{at}: {first:?} and {name:?} are both the Rust variant `{}`",
                name.to_pascal_case()
            );
        }
    }
    Ok(())
}
