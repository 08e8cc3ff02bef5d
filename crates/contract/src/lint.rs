//! The rules every contract schema follows, checked. Each rule has a stable id
//! (`lint.*`) so a refusal can be looked up in `docs/conformance.md`.
//!
//! The walk tells *shape* subschemas (those that say what a value looks like:
//! roots, `$defs`, properties, items, union branches) from *assertion*
//! subschemas (inside `if`/`then`/`else`/`not`): the conventions about closed
//! objects, bounds and descriptions are about shapes, while references, wire
//! names and extension keywords are checked everywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;

use serde_json::Value;

use crate::{resolve_ref, DocKind, Pointer, SchemaDoc, SchemaSet, MAX_SAFE_INTEGER};

/// The meta-schema of `schema/`, compiled in so the lint needs no files but the set.
const META_SCHEMA: &str = include_str!("../../../schema/contract-schema.json");

/// The extension keywords that mean something here; any other `x-` is a typo
/// until it is added to this list and documented.
pub const KNOWN_EXTENSIONS: &[&str] = &[
    "x-since",
    "x-carriesHttpStatus",
    "x-transports",
    "x-errors",
    "x-secret",
    "x-enum-varnames",
    "x-rule",
    "x-spawnsProcess",
    "x-enum-since",
];

/// The lint's rules. Each variant's id is [`LintRule::id`] and what it asks
/// [`LintRule::summary`]: said there once, not again on each variant.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LintRule {
    Meta,
    Id,
    Title,
    Description,
    AdditionalProperties,
    IntegerBounds,
    CamelCase,
    SnakeCase,
    Ref,
    Extension,
    UnionTag,
    SecretTransport,
    EnvelopeCoverage,
    Annotation,
    Pattern,
    Since,
}

impl LintRule {
    /// Every rule, in the order the docs list them.
    pub const ALL: &'static [LintRule] = &[
        LintRule::Meta,
        LintRule::Id,
        LintRule::Title,
        LintRule::Description,
        LintRule::AdditionalProperties,
        LintRule::IntegerBounds,
        LintRule::CamelCase,
        LintRule::SnakeCase,
        LintRule::Ref,
        LintRule::Extension,
        LintRule::UnionTag,
        LintRule::SecretTransport,
        LintRule::EnvelopeCoverage,
        LintRule::Annotation,
        LintRule::Pattern,
        LintRule::Since,
    ];

    /// The stable id printed with every violation.
    pub fn id(self) -> &'static str {
        match self {
            LintRule::Meta => "lint.meta",
            LintRule::Id => "lint.id",
            LintRule::Title => "lint.title",
            LintRule::Description => "lint.description",
            LintRule::AdditionalProperties => "lint.additional_properties",
            LintRule::IntegerBounds => "lint.integer_bounds",
            LintRule::CamelCase => "lint.camel_case",
            LintRule::SnakeCase => "lint.snake_case",
            LintRule::Ref => "lint.ref",
            LintRule::Extension => "lint.extension",
            LintRule::UnionTag => "lint.union_tag",
            LintRule::SecretTransport => "lint.secret_transport",
            LintRule::EnvelopeCoverage => "lint.envelope_coverage",
            LintRule::Annotation => "lint.annotation",
            LintRule::Pattern => "lint.pattern",
            LintRule::Since => "lint.since",
        }
    }

    /// What the rule asks, in one sentence (for docs and `--explain`).
    pub fn summary(self) -> &'static str {
        match self {
            LintRule::Meta => "the file's root has what schema/contract-schema.json asks of its kind",
            LintRule::Id => "`$id` is present and is the file's own place under the contract base",
            LintRule::Title => "`title` equals the type, method or event name (the file's stem)",
            LintRule::Description => "the root, every `$defs` entry and every property say what they mean",
            LintRule::AdditionalProperties => "every object says explicitly whether it is closed (`false`) or a map",
            LintRule::IntegerBounds => "every integer has a `minimum` and a `maximum`, within ±(2^53 − 1)",
            LintRule::CamelCase => "property names are camelCase",
            LintRule::SnakeCase => "string enum values (and x-enum-varnames) are snake_case",
            LintRule::Ref => "every `$ref` is relative and resolves inside the schema set",
            LintRule::Extension => "only known `x-` keywords are used",
            LintRule::UnionTag => "every `oneOf`/`anyOf` is a union of objects told apart by a required `const` tag",
            LintRule::SecretTransport => "a method with an `x-secret` parameter, or one that spawns processes, is unix-only",
            LintRule::EnvelopeCoverage => "the envelope's bodies name every method and event exactly once, and nothing else",
            LintRule::Annotation => "annotations name things that exist (error names, enum values, name lists of the right length)",
            LintRule::Pattern => "every `pattern` is a regular expression every validator reads the same (ECMA-262: no inline flags)",
            LintRule::Since => "what is new since the latest release (a file, a field, an enum value in `x-enum-since`) says `x-since` VERSION; what a release froze keeps its `x-since`",
        }
    }
}

impl fmt::Display for LintRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One broken rule, located.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// The schema file.
    pub file: PathBuf,
    /// Where in it.
    pub pointer: Pointer,
    /// The rule broken.
    pub rule: LintRule,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}#{}: [{}] {}",
            self.file.display(),
            self.pointer.as_str(),
            self.rule,
            self.message
        )
    }
}

/// Lints a whole set. The result is sorted and empty when the set is clean.
pub fn lint(set: &SchemaSet) -> Vec<Violation> {
    let mut out = Vec::new();
    let meta = MetaValidators::new();
    for doc in &set.docs {
        let mut linter = Linter {
            set,
            doc,
            file: set.display_path(doc),
            out: &mut out,
        };
        linter.root(&meta);
    }
    envelope_coverage(set, &mut out);
    secret_transport(set, &mut out);
    out.sort();
    out.dedup();
    out
}

struct MetaValidators {
    by_kind: BTreeMap<DocKind, Result<jsonschema::Validator, String>>,
}

impl MetaValidators {
    fn new() -> Self {
        let mut by_kind = BTreeMap::new();
        let meta: Result<Value, String> =
            serde_json::from_str(META_SCHEMA).map_err(|err| err.to_string());
        for kind in [
            DocKind::Type,
            DocKind::Method,
            DocKind::Event,
            DocKind::Envelope,
            DocKind::Config,
        ] {
            let validator = meta.clone().and_then(|meta| {
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

fn kind_def(kind: DocKind) -> &'static str {
    match kind {
        DocKind::Type => "type",
        DocKind::Method => "method",
        DocKind::Event => "event",
        DocKind::Envelope => "envelope",
        DocKind::Config => "config",
    }
}

struct Linter<'a> {
    set: &'a SchemaSet,
    doc: &'a SchemaDoc,
    file: PathBuf,
    out: &'a mut Vec<Violation>,
}

impl Linter<'_> {
    fn report(&mut self, pointer: &Pointer, rule: LintRule, message: impl Into<String>) {
        self.out.push(Violation {
            file: self.file.clone(),
            pointer: pointer.clone(),
            rule,
            message: message.into(),
        });
    }

    fn root(&mut self, meta: &MetaValidators) {
        let root = Pointer::root();
        let value = &self.doc.value;
        match meta.by_kind.get(&self.doc.kind) {
            Some(Ok(validator)) => {
                for error in validator.iter_errors(value) {
                    let at = Pointer::from_text(error.instance_path().as_str());
                    self.report(
                        &at,
                        LintRule::Meta,
                        format!("{error} (schema/contract-schema.json)"),
                    );
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
        // Methods and events are not shapes themselves; their $defs are.
        let root_is_shape = matches!(
            self.doc.kind,
            DocKind::Type | DocKind::Envelope | DocKind::Config
        );
        self.walk(value, &root, root_is_shape);
    }

    fn walk(&mut self, schema: &Value, at: &Pointer, shape: bool) {
        let Some(map) = schema.as_object() else {
            return;
        };
        for key in map.keys() {
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
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            if let Err(why) = resolve_ref(self.set, self.doc, reference) {
                self.report(&at.push("$ref"), LintRule::Ref, why);
            }
        }
        if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
            if let Err(why) = portable_pattern(pattern) {
                self.report(&at.push("pattern"), LintRule::Pattern, why);
            }
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            for (index, value) in values.iter().enumerate() {
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
        if shape {
            self.shape_rules(map, at);
        }
        if let Some(props) = map.get("properties").and_then(Value::as_object) {
            for (name, sub) in props {
                let here = at.push("properties").push(name);
                if !is_camel_case(name) {
                    self.report(
                        &here,
                        LintRule::CamelCase,
                        format!("property {name:?} is not camelCase"),
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
        for key in ["items", "additionalProperties", "unevaluatedProperties"] {
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
        for key in ["if", "then", "else", "not", "contains", "propertyNames"] {
            if let Some(sub) = map.get(key) {
                self.walk(sub, &at.push(key), false);
            }
        }
    }

    fn shape_rules(&mut self, map: &serde_json::Map<String, Value>, at: &Pointer) {
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

    fn annotations(&mut self) {
        let root = Pointer::root();
        let value = &self.doc.value;
        if let Some(names) = value.get("x-enum-varnames") {
            let at = root.push("x-enum-varnames");
            let count = value.get("enum").and_then(Value::as_array).map(Vec::len);
            match names.as_array() {
                Some(list) if Some(list.len()) == count => {
                    for (index, name) in list.iter().enumerate() {
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
        }
        if let Some(errors) = value.get("x-errors").and_then(Value::as_array) {
            let known = rpc_error_names(self.set);
            for (index, name) in errors.iter().enumerate() {
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

/// JSON Schema patterns are ECMA-262 regular expressions. Rust's and
/// JavaScript's engines disagree on inline flags (`(?i)`, `(?i:...)`), which
/// a JavaScript validator refuses outright; the common subset is the rule.
fn portable_pattern(pattern: &str) -> Result<(), String> {
    let bytes = pattern.as_bytes();
    for (at, window) in bytes.windows(3).enumerate() {
        let escaped = at > 0 && bytes.get(at - 1) == Some(&b'\\');
        if let [b'(', b'?', flag] = window {
            if !flag.is_ascii_alphabetic() || escaped {
                continue;
            }
            return Err(format!(
                "pattern {pattern:?} uses an inline flag group at byte {at}; JavaScript validators refuse it: \
                 spell the alternatives out (for example [Hh][Tt][Tt][Pp] for a case-insensitive http)"
            ));
        }
    }
    for anchor in ["\\A", "\\z", "\\Z"] {
        if pattern.contains(anchor) {
            return Err(format!(
                "pattern {pattern:?} uses {anchor}, which ECMA-262 does not have; use ^ and $"
            ));
        }
    }
    Ok(())
}

fn has_description(schema: &Value) -> bool {
    schema
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|text| !text.trim().is_empty())
}

fn types_of(map: &serde_json::Map<String, Value>) -> BTreeSet<&str> {
    match map.get("type") {
        Some(Value::String(one)) => BTreeSet::from([one.as_str()]),
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => BTreeSet::new(),
    }
}

/// A union is tagged when every branch is an inline object that requires a
/// property whose value is a string `const`, the same property in every
/// branch, with a different value in each.
fn union_tag(branches: &[Value]) -> Result<(), String> {
    let mut common: Option<BTreeSet<&str>> = None;
    for branch in branches {
        let required: BTreeSet<&str> = branch
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
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
                value.map(Value::to_string).unwrap_or_default()
            ));
        }
    }
    Ok(())
}

fn is_camel_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric())
}

fn is_snake_case(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|first| first.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !text.ends_with('_')
        && !text.contains("__")
}

fn rpc_error_names(set: &SchemaSet) -> BTreeSet<&str> {
    set.get(DocKind::Type, "RpcErrorCode")
        .and_then(|doc| doc.value.get("x-enum-varnames"))
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The envelope's `CallBody`, `ReplyBody` and `EventBody` must name every
/// method and event once, with the tag equal to the name and the shape taken
/// from that method's or event's own file.
fn envelope_coverage(set: &SchemaSet, out: &mut Vec<Violation>) {
    let parts = [
        ("CallBody", DocKind::Method, "method", "params"),
        ("ReplyBody", DocKind::Method, "method", "result"),
        ("EventBody", DocKind::Event, "name", "params"),
    ];
    for (body, kind, tag, field) in parts {
        let Some(doc) = set.get(DocKind::Envelope, body) else {
            if set.of_kind(kind).next().is_some() {
                out.push(Violation {
                    file: set.origin.join("envelope").join(format!("{body}.json")),
                    pointer: Pointer::root(),
                    rule: LintRule::EnvelopeCoverage,
                    message: format!(
                        "missing envelope/{body}.json, which must list every {}",
                        kind.folder()
                    ),
                });
            }
            continue;
        };
        let file = set.display_path(doc);
        let mut report = |pointer: Pointer, message: String| {
            out.push(Violation {
                file: file.clone(),
                pointer,
                rule: LintRule::EnvelopeCoverage,
                message,
            });
        };
        let mut named = BTreeMap::new();
        let branches = doc
            .value
            .get("oneOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (index, branch) in branches.iter().enumerate() {
            let at = Pointer::root().push("oneOf").push(index);
            let Some(name) = branch
                .pointer(&format!("/properties/{tag}/const"))
                .and_then(Value::as_str)
            else {
                continue; // lint.union_tag reports the missing tag
            };
            if named.insert(name.to_string(), index).is_some() {
                report(at.clone(), format!("{name:?} is listed twice"));
            }
            let expected = format!("../{}/{name}.json#/$defs/{field}", kind.folder());
            let reference = branch
                .pointer(&format!("/properties/{field}/$ref"))
                .and_then(Value::as_str);
            if set.get(kind, name).is_none() {
                report(
                    at,
                    format!("{name:?} is not a {} in the schema set", kind.folder()),
                );
            } else if reference != Some(expected.as_str()) {
                report(
                    at.push("properties").push(field),
                    format!("the {field} of {name:?} must be {{\"$ref\": {expected:?}}}"),
                );
            }
        }
        for other in set.of_kind(kind) {
            if !named.contains_key(&other.name) {
                report(
                    Pointer::root().push("oneOf"),
                    format!(
                        "{:?} ({}) is missing: add a branch for it",
                        other.name, other.rel
                    ),
                );
            }
        }
    }
}

/// A method whose params reach an `x-secret` field, or which spawns
/// processes, must be carried on the unix socket only: nothing that carries a
/// credential or starts a process may be reachable from a browser.
fn secret_transport(set: &SchemaSet, out: &mut Vec<Violation>) {
    for doc in set.of_kind(DocKind::Method) {
        let transports = doc.transports();
        if transports == ["unix"] {
            continue;
        }
        let spawns = doc.value.get("x-spawnsProcess").and_then(Value::as_bool) == Some(true);
        let secret = doc.value.pointer("/$defs/params").and_then(|params| {
            let mut seen = BTreeSet::new();
            find_secret(
                set,
                doc,
                params,
                &Pointer::root().push("$defs").push("params"),
                &mut seen,
            )
        });
        let why = match (secret, spawns) {
            (Some(at), _) => Some(format!("its params carry a credential at {at} (x-secret)")),
            (None, true) => Some("it spawns processes (x-spawnsProcess)".to_string()),
            (None, false) => None,
        };
        if let Some(why) = why {
            out.push(Violation {
                file: set.display_path(doc),
                pointer: Pointer::root().push("x-transports"),
                rule: LintRule::SecretTransport,
                message: format!(
                    "{} is carried on {transports:?}, but {why}; such a method must be [\"unix\"] only, \
                     so a browser can never reach it",
                    doc.name
                ),
            });
        }
    }
}

fn find_secret<'a>(
    set: &'a SchemaSet,
    doc: &'a SchemaDoc,
    schema: &'a Value,
    at: &Pointer,
    seen: &mut BTreeSet<(String, String)>,
) -> Option<String> {
    let map = schema.as_object()?;
    if map.get("x-secret").and_then(Value::as_bool) == Some(true) {
        return Some(format!("{}#{}", doc.rel, at.as_str()));
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        if let Ok(target) = resolve_ref(set, doc, reference) {
            // Each target once: recursive types must not loop.
            if seen.insert((target.doc.rel.clone(), target.pointer.to_string())) {
                let here = Pointer::from_text(target.pointer);
                if let Some(found) = find_secret(set, target.doc, target.schema, &here, seen) {
                    return Some(found);
                }
            }
        }
    }
    let children = map
        .iter()
        .flat_map(|(key, value)| -> Vec<(Pointer, &Value)> {
            match (key.as_str(), value) {
                ("properties" | "$defs", Value::Object(props)) => props
                    .iter()
                    .map(|(name, sub)| (at.push(key).push(name), sub))
                    .collect(),
                ("items" | "additionalProperties", sub) => vec![(at.push(key), sub)],
                ("oneOf" | "anyOf" | "allOf", Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(index, sub)| (at.push(key).push(index), sub))
                    .collect(),
                _ => Vec::new(),
            }
        });
    for (here, sub) in children {
        if let Some(found) = find_secret(set, doc, sub, &here, seen) {
            return Some(found);
        }
    }
    None
}
