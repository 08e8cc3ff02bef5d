//! The walk over one schema file: its root against the meta-schema, then
//! every subschema, shapes and assertions told apart.

use heck::{ToPascalCase, ToSnakeCase};

use super::*;

/// The meta-schema of `schema/`, compiled in so the lint needs no files but
/// the set. As bytes: a byte that is not UTF-8 there is the lint's error,
/// naming the place, where `include_str!` stopped the crate compiling.
pub(super) const META_SCHEMA: &[u8] = include_bytes!("../../../../schema/contract-schema.json");

pub(super) struct MetaValidators {
    pub(super) by_kind: BTreeMap<DocKind, Result<jsonschema::Validator, String>>,
}

impl MetaValidators {
    pub(super) fn new() -> Self {
        Self::of(META_SCHEMA)
    }

    /// The validators of the meta-schema `bytes`; what cannot be read of
    /// them is each kind's error, naming the place.
    fn of(bytes: &[u8]) -> Self {
        let mut by_kind = BTreeMap::new();
        let meta: Result<Value, String> =
            crate::utf8(std::path::Path::new("schema/contract-schema.json"), bytes)
                .map_err(|err| err.to_string())
                .and_then(|text| serde_json::from_str(text).map_err(|err| err.to_string()));
        for kind in [
            DocKind::Type,
            DocKind::Method,
            DocKind::Event,
            DocKind::Envelope,
            DocKind::Config,
        ] {
            let validator = meta.clone().and_then(|meta| {
                // The compiled-in meta-schema has an `$id`; "" would still register.
                let id = meta
                    .get("$id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let registry = jsonschema::Registry::new()
                    .add(&id, meta)
                    .and_then(|builder| builder.prepare())
                    .map_err(|err| err.to_string())?;
                jsonschema::options()
                    .with_registry(&registry)
                    .build(
                        &serde_json::json!({ "$ref": format!("{id}#/$defs/{}", kind_def(kind)) }),
                    )
                    .map_err(|err| err.to_string())
            });
            by_kind.insert(kind, validator);
        }
        Self { by_kind }
    }
}

pub(super) fn kind_def(kind: DocKind) -> &'static str {
    match kind {
        DocKind::Type => "type",
        DocKind::Method => "method",
        DocKind::Event => "event",
        DocKind::Envelope => "envelope",
        DocKind::Config => "config",
    }
}

pub(super) struct Linter<'a> {
    pub(super) set: &'a SchemaSet,
    pub(super) doc: &'a SchemaDoc,
    pub(super) file: PathBuf,
    pub(super) out: &'a mut Vec<Violation>,
}

impl Linter<'_> {
    pub(super) fn report(&mut self, pointer: &Pointer, rule: LintRule, message: impl Into<String>) {
        self.out.push(Violation {
            file: self.file.clone(),
            pointer: pointer.clone(),
            rule,
            message: message.into(),
        });
    }

    pub(super) fn root(&mut self, meta: &MetaValidators) {
        let root = Pointer::root();
        let value = &self.doc.value;
        // First a schema at all: `"maxLength": "12"` passed every rule of
        // ours and then stopped codegen, conformance and compat each in its
        // own words.
        for error in jsonschema::draft202012::meta::validator().iter_errors(value) {
            let at = Pointer::from_text(error.instance_path().as_str());
            self.report(
                &at,
                LintRule::Meta,
                format!("not a draft 2020-12 schema: {error}"),
            );
        }
        match meta.by_kind.get(&self.doc.kind) {
            Some(Ok(validator)) => {
                for error in validator.iter_errors(value) {
                    let at = Pointer::from_text(error.instance_path().as_str());
                    // The meta-schema closes each kind's root with `false`:
                    // "False schema does not allow …" says nothing of why.
                    let message = match (error.kind(), error.instance_path().as_str().rsplit_once('/')) {
                        (jsonschema::error::ValidationErrorKind::FalseSchema, Some(("", key))) => format!(
                            "`{key}` has no place at the root of a {} file (schema/contract-schema.json)",
                            kind_def(self.doc.kind)
                        ),
                        _ => format!("{error} (schema/contract-schema.json)"),
                    };
                    self.report(&at, LintRule::Meta, message);
                }
            }
            Some(Err(err)) => self.report(
                &root,
                LintRule::Meta,
                format!("the meta-schema does not compile: {err}"),
            ),
            None => {}
        }
        let expected = self.doc.expected_id();
        match value.get("$id").and_then(Value::as_str) {
            None => self.report(
                &root,
                LintRule::Id,
                format!("missing `$id`; add \"$id\": \"{expected}\""),
            ),
            Some(id) if id != expected => self.report(
                &root.push("$id"),
                LintRule::Id,
                format!("`$id` is {id:?} but the file's place makes it {expected:?}"),
            ),
            Some(_) => {}
        }
        match value.get("title").and_then(Value::as_str) {
            Some(title) if title == self.doc.name => {}
            Some(title) => self.report(
                &root.push("title"),
                LintRule::Title,
                format!(
                    "`title` is {title:?} but the file defines {:?}; rename one of them",
                    self.doc.name
                ),
            ),
            None => self.report(
                &root,
                LintRule::Title,
                format!("missing `title`; add \"title\": {:?}", self.doc.name),
            ),
        }
        if !has_description(value) {
            self.report(
                &root,
                LintRule::Description,
                "missing `description`: say what this means, not its JSON type",
            );
        }
        self.annotations();
        self.text();
        // Methods and events are not shapes themselves; their $defs are.
        let root_is_shape = matches!(
            self.doc.kind,
            DocKind::Type | DocKind::Envelope | DocKind::Config
        );
        self.walk(value, &root, root_is_shape);
    }

    /// `lint.text`: generated code and the reference copy schema text into
    /// comments, literals and pages (see [`bidi_controls`]).
    fn text(&mut self) {
        for (at, c, what) in bidi_controls(&self.doc.value) {
            self.report(
                &at,
                LintRule::Text,
                format!(
                    "{what} holds the bidirectional formatting character U+{:04X}: generated code and docs copy it, where it shows the text in another order than it is read (and GCC refuses an unpaired one); write the text without it",
                    u32::from(c)
                ),
            );
        }
    }

    pub(super) fn walk(&mut self, schema: &Value, at: &Pointer, shape: bool) {
        let Some(map) = schema.as_object() else {
            return;
        };
        self.node_rules(map, at);
        if shape {
            self.shape_rules(map, at);
        }
        self.walk_below(map, at, shape);
    }

    /// The rules every schema node keeps, shape or not: known extensions,
    /// resolvable `$ref`s, portable patterns, snake_case enum values.
    fn node_rules(&mut self, map: &serde_json::Map<String, Value>, at: &Pointer) {
        for key in map.keys() {
            if !key.starts_with("x-") && !KEYWORDS.contains(&key.as_str()) {
                self.report(
                    &at.push(key),
                    LintRule::Keyword,
                    format!(
                        "{key:?} is no draft 2020-12 keyword, so no validator reads it and it asks nothing{}",
                        keyword_hint(key)
                    ),
                );
            }
            if let Some(why) = keyword_of_another_type(map, key) {
                self.report(&at.push(key), LintRule::Keyword, why);
            }
            if key.starts_with("x-") && !KNOWN_EXTENSIONS.contains(&key.as_str()) {
                self.report(
                    &at.push(key),
                    LintRule::Extension,
                    format!(
                        "unknown extension keyword {key:?}; the known ones are {}",
                        KNOWN_EXTENSIONS.join(", ")
                    ),
                );
            }
        }
        // What says how a method is called means nothing anywhere else (a
        // root of another kind is the meta-schema's to refuse).
        if !at.as_str().is_empty() {
            for key in ["x-transports", "x-errors", "x-spawnsProcess"] {
                if map.contains_key(key) {
                    self.report(
                        &at.push(key),
                        LintRule::Extension,
                        format!("`{key}` says how a method is called, and is read only at a method file's root; here nothing reads it"),
                    );
                }
            }
        }
        // An `$id` below the root makes a resource of its own, which a
        // reference to a file's place could reach instead of the file.
        if !at.as_str().is_empty() && map.contains_key("$id") {
            self.report(
                &at.push("$id"),
                LintRule::Id,
                "an `$id` inside a file makes a resource of its own; only the root has one",
            );
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if let Err(why) = resolve_ref(self.set, self.doc, reference) {
                self.report(&at.push("$ref"), LintRule::Ref, why);
            }
        }
        if let Some(text) = map.get("description").and_then(Value::as_str) {
            // The bindings copy descriptions into comments: a bare CR ends a
            // C++ comment's line, and Rust refuses one in a doc comment.
            if let Some(bad) = text
                .chars()
                .find(|c| c.is_control() && !matches!(c, '\n' | '\t'))
            {
                self.report(
                    &at.push("description"),
                    LintRule::Description,
                    format!(
                        "the description holds the control character U+{:04X}; only line breaks (\\n) and tabs may stand in it",
                        u32::from(bad)
                    ),
                );
            }
        }
        if let Some(id) = map.get("x-rule") {
            if !id
                .as_str()
                .is_some_and(|id| id.split('.').all(is_snake_case))
            {
                self.report(
                    &at.push("x-rule"),
                    LintRule::Annotation,
                    format!("the rule id {id} is not snake_case words joined by `.` (`checksum.length`)"),
                );
            }
        }
        if let Some(format) = map.get("format") {
            let known: &[&str] = if types_of(map).contains("integer") {
                INTEGER_FORMATS
            } else {
                STRING_FORMATS
            };
            if !format
                .as_str()
                .is_some_and(|format| known.contains(&format))
            {
                self.report(
                    &at.push("format"),
                    LintRule::Format,
                    format!(
                        "format {format} is not one the contract knows here ({}): the validator \
                         would assert it and the bindings would not, a difference nobody wrote down",
                        known.join(", ")
                    ),
                );
            }
        }
        if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
            if let Err(why) = pattern_automaton(pattern) {
                self.report(&at.push("pattern"), LintRule::Pattern, why);
            }
        }
        for key in map
            .get("patternProperties")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|patterns| patterns.keys())
        {
            if let Err(why) = pattern_automaton(key) {
                self.report(
                    &at.push("patternProperties").push(key),
                    LintRule::Pattern,
                    why,
                );
            }
        }
        self.satisfiable(map, at);
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            // A repeated value names one thing twice: the bindings would
            // declare its enumerator twice. A number is keyed by its value,
            // as JSON Schema compares them (`1` and `1.0` are one).
            let mut seen = BTreeSet::new();
            let mut variants = BTreeMap::new();
            for (index, value) in values.iter().enumerate() {
                let key = match value.as_f64() {
                    Some(number) => format!("{number:e}"),
                    None => value.to_string(),
                };
                if !seen.insert(key) {
                    self.report(
                        &at.push("enum").push(index),
                        LintRule::SnakeCase,
                        format!("enum value {value} is listed twice"),
                    );
                } else if let Some(first) = value
                    .as_str()
                    .and_then(|text| variants.insert(text.to_pascal_case(), text))
                {
                    self.report(
                        &at.push("enum").push(index),
                        LintRule::SnakeCase,
                        format!(
                            "enum values {first:?} and {value} are both the Rust variant `{}`; rename one",
                            first.to_pascal_case()
                        ),
                    );
                }
                if let Some(text) = value.as_str() {
                    if !is_snake_case(text) {
                        self.report(
                            &at.push("enum").push(index),
                            LintRule::SnakeCase,
                            format!("enum value {text:?} is not snake_case (lowercase words joined by `_`)"),
                        );
                    }
                }
            }
        }
        self.enum_since(map, at);
    }

    /// `x-enum-since` names values of its node's `enum` (a string by its
    /// text, an integer by its digits), each with a version: an entry for
    /// no value, or of another shape, is read by nothing.
    fn enum_since(&mut self, map: &serde_json::Map<String, Value>, at: &Pointer) {
        let Some(since) = map.get("x-enum-since") else {
            return;
        };
        let at = at.push("x-enum-since");
        let Some(entries) = since.as_object() else {
            self.report(
                &at,
                LintRule::Annotation,
                "`x-enum-since` is an object from an enum value to the version it arrived in",
            );
            return;
        };
        let values: Vec<String> = map
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|value| match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .collect();
        for (key, version) in entries {
            if !values.contains(key) {
                self.report(
                    &at.push(key),
                    LintRule::Annotation,
                    format!(
                        "{key:?} is no value of this schema's `enum`, so nothing reads this entry"
                    ),
                );
            }
            if !version.is_string() {
                self.report(
                    &at.push(key),
                    LintRule::Annotation,
                    format!("the version of {key:?} is {version}, not a version string such as \"1.2.0\""),
                );
            }
        }
    }

    /// A schema no value meets, by its own keywords: a field no writer can
    /// send, found here rather than as every fixture that carries it
    /// failing. (What only a combination of schemas rules out is left to
    /// those fixtures.)
    fn satisfiable(&mut self, map: &serde_json::Map<String, Value>, at: &Pointer) {
        if map
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            self.report(
                &at.push("enum"),
                LintRule::Satisfiable,
                "an empty `enum`: no value is valid",
            );
        }
        self.listed_values_meet_their_node(map, at);
        // A closed object that requires a name it does not list (a typo of
        // one it does) refuses every value.
        if map.get("additionalProperties") == Some(&Value::Bool(false))
            && !map.contains_key("patternProperties")
        {
            let listed = map.get("properties").and_then(Value::as_object);
            for (index, name) in map
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let Some(name) = name.as_str() else { continue };
                if !listed.is_some_and(|props| props.contains_key(name)) {
                    self.report(
                        &at.push("required").push(index),
                        LintRule::Satisfiable,
                        format!(
                            "{name:?} is required, but the object is closed and has no such property: no value is valid"
                        ),
                    );
                }
            }
        }
        let number = |key: &str| map.get(key).and_then(Value::as_f64);
        for (lower, upper) in [
            ("minimum", "maximum"),
            ("minLength", "maxLength"),
            ("minItems", "maxItems"),
            ("minProperties", "maxProperties"),
            ("exclusiveMinimum", "maximum"),
            ("minimum", "exclusiveMaximum"),
            ("exclusiveMinimum", "exclusiveMaximum"),
        ] {
            let (Some(low), Some(high)) = (number(lower), number(upper)) else {
                continue;
            };
            let inclusive = !lower.starts_with("exclusive") && !upper.starts_with("exclusive");
            if low > high || (low == high && !inclusive) {
                self.report(
                    &at.push(upper),
                    LintRule::Satisfiable,
                    format!("`{lower}` {low} and `{upper}` {high} leave no value valid"),
                );
            }
        }
    }

    /// Each value an `enum`, `const` or `examples` lists meets the node's own
    /// value keywords (`type`, `enum`, bounds, lengths, `pattern`): one that
    /// does not is a value no message can carry, and the bindings (or, for
    /// an example, the reader of the schema) would still be shown it.
    fn listed_values_meet_their_node(
        &mut self,
        map: &serde_json::Map<String, Value>,
        at: &Pointer,
    ) {
        const OWN: [&str; 12] = [
            "type",
            "enum",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "pattern",
            "minItems",
            "maxItems",
        ];
        let own: serde_json::Map<String, Value> = OWN
            .iter()
            .filter_map(|key| Some((key.to_string(), map.get(*key)?.clone())))
            .collect();
        if own.is_empty() {
            return;
        }
        // A node the draft's meta-schema refuses is `lint.meta`'s; nothing
        // to judge its values by.
        let Ok(validator) = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&Value::Object(own))
        else {
            return;
        };
        let listed = map
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(index, value)| (at.push("enum").push(index), value))
            .chain(map.get("const").map(|value| (at.push("const"), value)))
            .chain(
                map.get("examples")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .map(|(index, value)| (at.push("examples").push(index), value)),
            );
        for (place, value) in listed {
            if let Some(error) = validator.iter_errors(value).next() {
                self.report(
                    &place,
                    LintRule::Satisfiable,
                    format!("{value} is listed, but this schema refuses it: {error}"),
                );
            }
        }
    }

    /// Properties (camelCase, described where they are shapes), `$defs`
    /// (described, always shapes), and every other subschema.
    fn walk_below(&mut self, map: &serde_json::Map<String, Value>, at: &Pointer, shape: bool) {
        if let Some(props) = map.get("properties").and_then(Value::as_object) {
            // Rust and C++ name a field by its property in snake_case, so two
            // names that meet there (`fooBar`, `fooBAR`) would generate a
            // struct that does not compile.
            let mut fields: BTreeMap<String, &str> = BTreeMap::new();
            for name in props.keys() {
                if let Some(first) = fields.insert(name.to_snake_case(), name) {
                    self.report(
                        &at.push("properties").push(name),
                        LintRule::CamelCase,
                        format!(
                            "properties {first:?} and {name:?} are both the field `{}` in Rust \
                             and C++; rename one",
                            name.to_snake_case()
                        ),
                    );
                }
            }
            for (name, sub) in props {
                let here = at.push("properties").push(name);
                if !is_camel_case(name) {
                    self.report(
                        &here,
                        LintRule::CamelCase,
                        format!("property {name:?} is not camelCase"),
                    );
                } else if INHERITED_NAMES.contains(&name.as_str()) {
                    self.report(
                        &here,
                        LintRule::CamelCase,
                        format!(
                            "property {name:?} is a name every JavaScript object inherits: on \
                             the values the TypeScript bindings return it would shadow the \
                             prototype's {name}; rename it"
                        ),
                    );
                }
                if shape && !has_description(sub) {
                    self.report(
                        &here,
                        LintRule::Description,
                        format!("property {name:?} has no `description`"),
                    );
                }
                self.walk(sub, &here, shape);
            }
        }
        if let Some(defs) = map.get("$defs").and_then(Value::as_object) {
            for (name, sub) in defs {
                let here = at.push("$defs").push(name);
                if !has_description(sub) {
                    self.report(
                        &here,
                        LintRule::Description,
                        format!("`$defs/{name}` has no `description`"),
                    );
                }
                self.walk(sub, &here, true);
            }
        }
        for key in [
            "items",
            "additionalProperties",
            "unevaluatedProperties",
            "unevaluatedItems",
        ] {
            if let Some(sub) = map.get(key) {
                self.walk(sub, &at.push(key), shape);
            }
        }
        for key in ["oneOf", "anyOf", "allOf", "prefixItems"] {
            if let Some(items) = map.get(key).and_then(Value::as_array) {
                for (index, sub) in items.iter().enumerate() {
                    self.walk(sub, &at.push(key).push(index), shape);
                }
            }
        }
        for key in [
            "if",
            "then",
            "else",
            "not",
            "contains",
            "propertyNames",
            "contentSchema",
        ] {
            if let Some(sub) = map.get(key) {
                self.walk(sub, &at.push(key), false);
            }
        }
        // Schemas by name that no rule above reads as fields: their keywords
        // are checked all the same.
        for key in ["patternProperties", "dependentSchemas"] {
            if let Some(subs) = map.get(key).and_then(Value::as_object) {
                for (name, sub) in subs {
                    self.walk(sub, &at.push(key).push(name), false);
                }
            }
        }
    }

    pub(super) fn shape_rules(&mut self, map: &serde_json::Map<String, Value>, at: &Pointer) {
        let types = types_of(map);
        let is_object = types.contains("object") || map.contains_key("properties");
        if is_object && !map.contains_key("additionalProperties") {
            self.report(
                at,
                LintRule::AdditionalProperties,
                "object without an explicit `additionalProperties`: write `false` to close it, \
                 or a schema if it is a map on purpose",
            );
        }
        if types.contains("integer") {
            for bound in ["minimum", "maximum"] {
                match map.get(bound).and_then(Value::as_f64) {
                    None => self.report(
                        at,
                        LintRule::IntegerBounds,
                        format!("integer without a `{bound}`; every integer states its range"),
                    ),
                    Some(limit) if limit.abs() > MAX_SAFE_INTEGER as f64 => self.report(
                        &at.push(bound),
                        LintRule::IntegerBounds,
                        format!("`{bound}` {limit} is beyond ±(2^53 − 1) = {MAX_SAFE_INTEGER}; a JavaScript reader would round it"),
                    ),
                    Some(_) => {}
                }
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(branches) = map.get(key).and_then(Value::as_array) {
                if let Err(why) = union_tag(branches) {
                    self.report(&at.push(key), LintRule::UnionTag, why);
                }
            }
        }
    }

    pub(super) fn annotations(&mut self) {
        let root = Pointer::root();
        let value = &self.doc.value;
        if let Some(names) = value.get("x-enum-varnames") {
            let at = root.push("x-enum-varnames");
            let count = value.get("enum").and_then(Value::as_array).map(Vec::len);
            match names.as_array() {
                Some(list) if Some(list.len()) == count => {
                    let mut seen = BTreeSet::new();
                    for (index, name) in list.iter().enumerate() {
                        // Each name is a Rust variant, in PascalCase.
                        let key = name
                            .as_str()
                            .map_or_else(|| name.to_string(), str::to_pascal_case);
                        if !seen.insert(key) {
                            self.report(
                                &at.push(index),
                                LintRule::SnakeCase,
                                format!("{name} names two values, or two that are one Rust variant in PascalCase"),
                            );
                        }
                        if !name.as_str().is_some_and(is_snake_case) {
                            self.report(
                                &at.push(index),
                                LintRule::SnakeCase,
                                format!("{name} is not a snake_case name"),
                            );
                        }
                    }
                }
                _ => self.report(
                    &at,
                    LintRule::Annotation,
                    "`x-enum-varnames` must list one name per `enum` value, in order",
                ),
            }
        }
        if let Some(codes) = value.get("x-carriesHttpStatus") {
            let at = root.push("x-carriesHttpStatus");
            let values = value.get("enum").and_then(Value::as_array);
            for (index, code) in codes.as_array().into_iter().flatten().enumerate() {
                if !values.is_some_and(|values| values.contains(code)) {
                    self.report(
                        &at.push(index),
                        LintRule::Annotation,
                        format!("{code} is not a value of this enum"),
                    );
                }
            }
            // The list is what the bindings' `carries_http_status` and the
            // reference say; the validator goes by TaskError's rule.
            if let Some(asked) = http_status_codes(self.set) {
                let listed: BTreeSet<String> = codes
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(Value::to_string)
                    .collect();
                if listed != asked {
                    let names = |codes: &BTreeSet<String>| {
                        codes
                            .iter()
                            .map(String::as_str)
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    self.report(
                        &at,
                        LintRule::Annotation,
                        format!(
                            "lists {}, but TaskError's `error.http_status` rule asks `httpStatus` of {}: both must name the same codes",
                            names(&listed),
                            names(&asked)
                        ),
                    );
                }
            }
        }
        if let Some(errors) = value.get("x-errors").and_then(Value::as_array) {
            let known = rpc_error_names(self.set);
            for (index, name) in errors.iter().enumerate() {
                // Not a string: "" is no error's name, and is reported as such.
                let text = name.as_str().unwrap_or_default();
                if !known.contains(text) {
                    self.report(
                        &root.push("x-errors").push(index),
                        LintRule::Annotation,
                        format!("{name} is not an RpcErrorCode name (see types/RpcErrorCode.json x-enum-varnames)"),
                    );
                }
            }
        }
    }
}

/// The string formats the validator asserts and the bindings leave alone,
/// as docs/bindings.md says.
const STRING_FORMATS: &[&str] = &["date-time", "uri"];

/// The integer formats typify reads as a Rust integer type; no validator
/// asserts them.
const INTEGER_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
];

pub(super) fn has_description(schema: &Value) -> bool {
    schema
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|text| !text.trim().is_empty())
}

pub(super) fn types_of(map: &serde_json::Map<String, Value>) -> BTreeSet<&str> {
    match map.get("type") {
        Some(Value::String(one)) => BTreeSet::from([one.as_str()]),
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => BTreeSet::new(),
    }
}

/// A union is tagged when every branch is an inline object that requires a
/// property whose value is a string `const`, the same property in every
/// branch, with a different value in each.
pub(super) fn union_tag(branches: &[Value]) -> Result<(), String> {
    let mut common: Option<BTreeSet<&str>> = None;
    for branch in branches {
        // No `required`: none are, as JSON Schema reads it.
        let required: BTreeSet<&str> = branch
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // No properties: no tag, which the rule then reports.
        let tags: BTreeSet<&str> = branch
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .filter(|(name, sub)| {
                        required.contains(name.as_str())
                            && sub.get("const").is_some_and(Value::is_string)
                    })
                    .map(|(name, _)| name.as_str())
                    .collect()
            })
            .unwrap_or_default();
        common = Some(match common {
            None => tags,
            Some(seen) => seen.intersection(&tags).copied().collect(),
        });
    }
    let Some(tag) = common.and_then(|tags| tags.into_iter().next()) else {
        return Err("union whose branches share no required property with a string `const`: \
                    give every branch a tag such as {\"kind\": {\"type\": \"string\", \"const\": \"...\"}} \
                    and list it in `required`"
            .into());
    };
    let mut seen = BTreeSet::new();
    for branch in branches {
        let value = branch.pointer(&format!("/properties/{tag}/const"));
        if !seen.insert(value.map(Value::to_string)) {
            return Err(format!(
                "two branches of this union share the tag value {} for {tag:?}",
                // A tag without a value is reported by the tag rule itself.
                value.map(Value::to_string).unwrap_or_default()
            ));
        }
    }
    Ok(())
}

pub(super) fn is_camel_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric())
}

pub(super) fn is_snake_case(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|first| first.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !text.ends_with('_')
        && !text.contains("__")
}

/// The codes TaskError's `error.http_status` rule asks `httpStatus` of (the
/// `enum` or `const` of `code` in its `if`); `None` without such a rule.
fn http_status_codes(set: &SchemaSet) -> Option<BTreeSet<String>> {
    let rule = set
        .get(DocKind::Type, "TaskError")?
        .value
        .get("allOf")?
        .as_array()?
        .iter()
        .find(|entry| entry.get("x-rule").and_then(Value::as_str) == Some("error.http_status"))?;
    let code = rule.pointer("/if/properties/code")?;
    match (code.get("enum"), code.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.iter().map(Value::to_string).collect()),
        (None, Some(value)) => Some(std::iter::once(value.to_string()).collect()),
        _ => None,
    }
}

pub(super) fn rpc_error_names(set: &SchemaSet) -> BTreeSet<&str> {
    // No RpcErrorCode names: every x-errors entry is reported as unknown.
    set.get(DocKind::Type, "RpcErrorCode")
        .and_then(|doc| doc.value.get("x-enum-varnames"))
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Why `key` asks nothing of this schema's values when it is a keyword of
/// another type than the schema's `type` allows (`"minimum": 3` on a
/// string, whose length was meant): a validator applies it only to values
/// of its own type, and none gets here.
fn keyword_of_another_type(map: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    const OF_TYPE: &[(&str, &[&str])] = &[
        (
            "number",
            &[
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
            ],
        ),
        (
            "string",
            &[
                "minLength",
                "maxLength",
                "pattern",
                "contentEncoding",
                "contentMediaType",
                "contentSchema",
            ],
        ),
        (
            "array",
            &[
                "items",
                "prefixItems",
                "contains",
                "minItems",
                "maxItems",
                "uniqueItems",
                "minContains",
                "maxContains",
                "unevaluatedItems",
            ],
        ),
        (
            "object",
            &[
                "properties",
                "patternProperties",
                "additionalProperties",
                "required",
                "minProperties",
                "maxProperties",
                "dependentRequired",
                "dependentSchemas",
                "propertyNames",
                "unevaluatedProperties",
            ],
        ),
    ];
    let types = types_of(map);
    if types.is_empty() {
        return None;
    }
    let (of, _) = OF_TYPE.iter().find(|(_, keys)| keys.contains(&key))?;
    let applies = types.contains(of) || (*of == "number" && types.contains("integer"));
    if applies {
        return None;
    }
    // What the same intent is called for the schema's own type.
    let meant = |kind: &str| -> Option<&'static str> {
        let lower = key.starts_with("min") || key.starts_with("exclusiveMin");
        let upper = key.starts_with("max") || key.starts_with("exclusiveMax");
        match (kind, lower, upper) {
            ("string", true, _) => Some("minLength"),
            ("string", _, true) => Some("maxLength"),
            ("array", true, _) => Some("minItems"),
            ("array", _, true) => Some("maxItems"),
            ("object", true, _) => Some("minProperties"),
            ("object", _, true) => Some("maxProperties"),
            ("integer" | "number", true, _) => Some("minimum"),
            ("integer" | "number", _, true) => Some("maximum"),
            _ => None,
        }
    };
    let hint = types
        .iter()
        .find_map(|kind| meant(kind))
        .map_or(String::new(), |meant| format!(" (did you mean `{meant}`?)"));
    let listed: Vec<&str> = types.into_iter().collect();
    Some(format!(
        "`{key}` applies to {of}s, and this schema's type is {}: it asks nothing of the values here{hint}",
        listed.join(" or ")
    ))
}

/// What an unknown keyword was most likely meant to be: the one of another
/// dialect or draft it is, or a 2020-12 keyword a letter or two away.
fn keyword_hint(key: &str) -> String {
    let meant = match key {
        "nullable" => Some("OpenAPI's; write `\"type\": [T, \"null\"]`"),
        "definitions" => Some("draft 7's; write `$defs`"),
        "dependencies" => Some("draft 7's; write `dependentRequired` or `dependentSchemas`"),
        "$recursiveRef" | "$recursiveAnchor" => {
            Some("draft 2019-09's; write `$dynamicRef`/`$dynamicAnchor`")
        }
        "discriminator" | "example" => Some("OpenAPI's"),
        _ => None,
    };
    if let Some(meant) = meant {
        return format!(" ({meant})");
    }
    crate::closest(key, KEYWORDS.iter().copied())
        .map_or(String::new(), |known| format!(" (did you mean `{known}`?)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A meta-schema with a byte that is not UTF-8 is a finding naming its
    /// line and column, for every kind, not a crate that fails to build.
    #[test]
    fn a_meta_schema_that_is_not_utf8_is_named_where() {
        let mut bytes = META_SCHEMA.to_vec();
        if let Some(byte) = bytes.get_mut(1) {
            *byte = 0xff;
        }
        let meta = MetaValidators::of(&bytes);
        assert_eq!(meta.by_kind.len(), 5);
        for validator in meta.by_kind.values() {
            let Err(why) = validator else {
                panic!("a meta-schema that is not UTF-8 compiled");
            };
            assert_eq!(
                why,
                "schema/contract-schema.json:1:2: not UTF-8 text (byte offset 1)"
            );
        }
    }
}
