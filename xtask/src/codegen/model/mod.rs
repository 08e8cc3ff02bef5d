//! The contract as every emitter sees it: named types made of fields, with
//! every value assertion a typed reader can check (bounds, lengths, patterns,
//! enums, the `if`/`then` rules), and the methods and events the envelope's
//! bodies carry. `build.rs` reads the types, `rules.rs` the `if`/`then` rules.
//!
//! typify reads the schemas for the Rust bindings; no library reads them into
//! a language-neutral model, so this one is written here. It accepts the
//! subset of JSON Schema the contract uses and refuses anything else with the
//! file and JSON pointer: a generator that skipped a keyword it did not know
//! would write readers that accept what the contract refuses.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{anyhow, bail, Context};
use contract::{resolve_ref, DocKind, SchemaDoc, SchemaSet};
use heck::{ToPascalCase, ToSnakeCase};
use serde_json::{Map, Value};

mod build;
mod names;
mod rules;
mod surface;

use build::{bare_ref, Builder};
use names::declared;
use rules::rule;
pub use surface::surface;

/// The envelope's parts: the generators write them from `Model::calls` and
/// `Model::events`, not as types.
pub const ENVELOPE_PARTS: [&str; 4] = ["Envelope", "CallBody", "ReplyBody", "EventBody"];

/// One body of the envelope as every binding reads it: its type, the member
/// whose value names the branch, the member holding the content, and the
/// type an unknown name is read as.
pub struct BodyPart {
    pub union: &'static str,
    pub tag: &'static str,
    pub content: &'static str,
    pub unknown: &'static str,
}

/// The bodies, calls, replies and events in that order.
pub const BODY_PARTS: [BodyPart; 3] = [
    BodyPart {
        union: "CallBody",
        tag: "method",
        content: "params",
        unknown: "UnknownCall",
    },
    BodyPart {
        union: "ReplyBody",
        tag: "method",
        content: "result",
        unknown: "UnknownReply",
    },
    BodyPart {
        union: "EventBody",
        tag: "name",
        content: "params",
        unknown: "UnknownEvent",
    },
];

pub struct Model {
    /// Every named type, each after the types it uses.
    pub types: Vec<Named>,
    /// Methods in `CallBody`'s order.
    pub calls: Vec<Call>,
    /// Events in `EventBody`'s order.
    pub events: Vec<Event>,
    /// The envelope's `v`.
    pub protocol_version: u64,
    /// The text of each envelope part (`ENVELOPE_PARTS`), for comments.
    pub parts: BTreeMap<&'static str, PartDoc>,
}

/// An envelope part's own text: the generators write the part from the
/// calls and events, and take its comments from here.
pub struct PartDoc {
    pub description: String,
    pub since: String,
    /// Each branch in the part's order.
    pub branches: Vec<BranchDoc>,
}

/// One branch of an envelope part: the value of the member that tells it
/// (`kind`, `method`, `name`), its description, its members' descriptions.
pub struct BranchDoc {
    pub tag: String,
    pub description: String,
    pub members: BTreeMap<String, String>,
}

pub struct Named {
    pub name: String,
    pub description: String,
    pub since: String,
    /// `file#pointer`, for messages and comments.
    pub origin: String,
    pub def: Def,
    /// `x-carriesHttpStatus` of a string enum: the values that come from an
    /// HTTP answer (empty for every other type).
    pub http_carriers: Vec<String>,
}

pub enum Def {
    Struct(Struct),
    StringEnum(Vec<String>),
    /// An integer enum with names (`x-enum-varnames`): `(value, name)`.
    IntEnum(Vec<(i64, String)>),
    /// A name for a plain type (`TaskId` is a string with rules).
    Alias(Ty),
}

#[derive(Default)]
pub struct Struct {
    pub fields: Vec<Field>,
    pub rules: Vec<Rule>,
}

pub struct Field {
    pub json: String,
    pub ty: Ty,
    pub required: bool,
    /// `null` is a value of its own: for a required field it means "none",
    /// for an optional one it differs from absent (it clears a setting).
    pub nullable: bool,
    pub secret: bool,
    pub description: String,
}

#[derive(Clone)]
pub enum Ty {
    Bool,
    Int {
        min: i64,
        max: i64,
    },
    Str(StrRules),
    Named(String),
    Array {
        items: Box<Ty>,
        max_items: Option<u64>,
        unique: bool,
    },
    /// An object used as a map from names to values.
    Map {
        values: Box<Ty>,
        max_entries: Option<u64>,
    },
    /// Any JSON value (`{}`): kept as it came.
    Any,
}

/// How the generated code holds an integer of `[min, max]`: the typify
/// `format` the Rust bundle gives it, the Rust type that format makes, and
/// the C++ type. One place, since the compat API verdict compares what
/// code holds (`surface`) and must see what the emitters write.
pub struct IntegerTypes {
    pub format: &'static str,
    pub rust: &'static str,
    pub cpp: &'static str,
}

/// The narrowest Rust integer that holds `[min, max]` (absent bounds are
/// unbounded), and C++'s unsigned or signed 64 bits by the sign of `min`.
/// typify would otherwise choose `i64` for most ranges and `NonZeroU64` for
/// any range starting at 1, neither of which is what a reader wants to hold.
pub fn integer_types(min: Option<f64>, max: Option<f64>) -> IntegerTypes {
    let (min, max) = (min.unwrap_or(f64::MIN), max.unwrap_or(f64::MAX));
    let fits = |lo: f64, hi: f64| min >= lo && max <= hi;
    let (format, rust) = if fits(0.0, u8::MAX.into()) {
        ("uint8", "u8")
    } else if fits(0.0, u16::MAX.into()) {
        ("uint16", "u16")
    } else if fits(0.0, u32::MAX.into()) {
        ("uint32", "u32")
    } else if min >= 0.0 {
        ("uint64", "u64")
    } else if fits(i32::MIN.into(), i32::MAX.into()) {
        ("int32", "i32")
    } else {
        ("int64", "i64")
    };
    let cpp = if min >= 0.0 {
        "std::uint64_t"
    } else {
        "std::int64_t"
    };
    IntegerTypes { format, rust, cpp }
}

/// [`integer_types`] of the model's bounds ([`Ty::Int`]).
pub fn int_types(min: i64, max: i64) -> IntegerTypes {
    // Bounds past ±2^53 round, but no type boundary lies there.
    #[allow(clippy::cast_precision_loss)]
    integer_types(Some(min as f64), Some(max as f64))
}

#[derive(Clone, Default)]
pub struct StrRules {
    pub min_len: Option<u64>,
    pub max_len: Option<u64>,
    /// An ECMA-262 regular expression, unanchored as in JSON Schema.
    pub pattern: Option<Pattern>,
}

/// A string's `pattern`, with the automaton the bindings run for it
/// (`contract::pattern_automaton`: no reader runs a regex engine).
#[derive(Clone)]
pub struct Pattern {
    /// As the schema writes it (for messages).
    pub source: String,
    /// Boxed: its byte table is larger than the rest of a type.
    pub automaton: Box<contract::Automaton>,
}

/// One `if`/`then`/`else` of an object: when `field`'s value is one of
/// `values`, `then` holds; otherwise `otherwise` holds.
pub struct Rule {
    pub id: String,
    pub description: String,
    pub field: String,
    pub values: Vec<String>,
    pub then: Vec<Clause>,
    pub otherwise: Vec<Clause>,
}

pub enum Clause {
    Required(String),
    Absent(String),
    NotEqual(String, String),
    Length {
        field: String,
        min: Option<u64>,
        max: Option<u64>,
    },
}

pub struct Call {
    pub method: String,
    pub params: String,
    pub result: String,
    pub since: String,
    /// The method file's `description` (empty when it has none; the lint
    /// asks for one).
    pub summary: String,
    /// `x-transports`: where the method may travel (empty: anywhere).
    pub transports: Vec<String>,
    /// `x-errors`: the error codes it may answer with.
    pub errors: Vec<String>,
    /// `x-spawnsProcess`.
    pub spawns_process: bool,
}

pub struct Event {
    pub name: String,
    pub params: String,
    pub since: String,
    /// The event file's `description`, as [`Call::summary`].
    pub summary: String,
}

impl Call {
    /// The name of a call's body alternative in C++ and TypeScript:
    /// `download.add` → `DownloadAddCall`.
    pub fn call_name(&self) -> String {
        format!("{}Call", self.method.to_pascal_case())
    }

    /// The reply's: `DownloadAddReply`.
    pub fn reply_name(&self) -> String {
        format!("{}Reply", self.method.to_pascal_case())
    }
}

impl Event {
    /// The name of an event's body alternative in C++ and TypeScript:
    /// `event.task.state` → `EventTaskState` (as the Rust variant).
    pub fn body_name(&self) -> String {
        self.name.to_pascal_case()
    }
}

impl Model {
    pub fn get(&self, name: &str) -> Option<&Named> {
        self.types.iter().find(|named| named.name == name)
    }
}

/// The rule a schema the generators cannot read breaks; docs/bindings.md,
/// "What the generators read", says what they read.
pub const MODEL_RULE: &str = "codegen.model";

/// The model of `set`, or why the generators cannot read it: a refusal is
/// `FILE#POINTER: [codegen.model] sentence`, as lint writes its findings,
/// unless it is one a lint rule names already (`(lint.text)`). What it
/// quotes of the schema (a member name in the pointer) is escaped, as lint
/// escapes it: one refusal is one line.
pub fn model(set: &SchemaSet) -> anyhow::Result<Model> {
    build_model(set).map_err(|err| {
        let said = contract::plain(&format!("{err:#}"));
        if said.contains("(lint.") {
            return anyhow!("{said}");
        }
        match said.split_once(": ") {
            Some((place, why)) if place.contains(".json") && !place.contains(' ') => {
                anyhow!("{place}: [{MODEL_RULE}] {why}")
            }
            _ => anyhow!("[{MODEL_RULE}] {said}"),
        }
    })
}

fn build_model(set: &SchemaSet) -> anyhow::Result<Model> {
    // The Rust types are written from these files too, and rustc refuses a
    // bidirectional override in a doc comment: without this the xtask that
    // writes them would no longer build (`lint.text` says the same).
    for doc in &set.docs {
        if let Some((at, c, what)) = contract::bidi_controls(&doc.value).into_iter().next() {
            bail!(
                "{}#{}: {what} holds the bidirectional formatting character U+{:04X}, which the bindings would copy into comments that rustc and GCC refuse (lint.text)",
                doc.rel,
                at.as_str(),
                u32::from(c)
            );
        }
    }
    let mut builder = Builder {
        set,
        names: BTreeMap::new(),
        types: BTreeMap::new(),
    };
    // Name every place first, so a reference resolves whatever the order.
    for doc in &set.docs {
        if doc.kind == DocKind::Config || ENVELOPE_PARTS.contains(&doc.name.as_str()) {
            continue;
        }
        for (name, pointer, _) in doc.named_places() {
            builder.names.insert((doc.rel.clone(), pointer), name);
        }
    }
    for doc in &set.docs {
        if doc.kind == DocKind::Config
            || ENVELOPE_PARTS.contains(&doc.name.as_str())
            || doc.name == "ProtocolVersion"
        {
            continue;
        }
        for (name, pointer, schema) in doc.named_places() {
            // A shape that is only a reference is the type it names.
            if bare_ref(schema).is_some() {
                continue;
            }
            builder.named(doc, &pointer, &name, schema)?;
        }
    }
    let protocol_version = protocol_version(set)?;
    let calls = calls(set, &builder)?;
    let events = events(set, &builder)?;
    let types = ordered(builder.types)?;
    // A part's file may be missing here: the emitter that needs it says so.
    let parts = ENVELOPE_PARTS
        .into_iter()
        .filter_map(|part| Some((part, set.get(DocKind::Envelope, part)?)))
        .map(|(part, doc)| Ok((part, part_doc(doc, part)?)))
        .collect::<anyhow::Result<_>>()?;
    let model = Model {
        types,
        calls,
        events,
        protocol_version,
        parts,
    };
    declared(&model)?;
    rules::rules_fit(&model)?;
    Ok(model)
}

/// The envelope's `v`: `envelope/ProtocolVersion.json` is one integer.
fn protocol_version(set: &SchemaSet) -> anyhow::Result<u64> {
    set.get(DocKind::Envelope, "ProtocolVersion")
        .and_then(
            |doc| match doc.value.get("enum").and_then(Value::as_array) {
                Some(values) if values.len() == 1 => values.first().and_then(Value::as_u64),
                _ => doc.value.get("const").and_then(Value::as_u64),
            },
        )
        .context("envelope/ProtocolVersion.json: not one integer (`const` or a one-value `enum`)")
}

/// The methods, in `CallBody`'s order, each with its reply and its file's
/// annotations.
fn calls(set: &SchemaSet, builder: &Builder<'_>) -> anyhow::Result<Vec<Call>> {
    let replies = body_members(set, builder, "ReplyBody", "result")?;
    body_members(set, builder, "CallBody", "params")?
        .into_iter()
        .map(|(method, params, since)| {
            let result = replies
                .iter()
                .find(|(name, _, _)| *name == method)
                .map(|(_, result, _)| result.clone())
                .with_context(|| format!("envelope/ReplyBody.json: no reply for {method}"))?;
            let doc = set
                .get(DocKind::Method, &method)
                .with_context(|| format!("CallBody names {method}, which has no file"))?;
            Ok(Call {
                summary: text(doc.value.get("description")),
                transports: named_values(doc, "x-transports")?,
                errors: named_values(doc, "x-errors")?,
                spawns_process: doc.value.get("x-spawnsProcess") == Some(&Value::Bool(true)),
                method,
                params,
                result,
                since,
            })
        })
        .collect()
}

/// The events, in `EventBody`'s order.
fn events(set: &SchemaSet, builder: &Builder<'_>) -> anyhow::Result<Vec<Event>> {
    body_members(set, builder, "EventBody", "params")?
        .into_iter()
        .map(|(name, params, since)| {
            let doc = set
                .get(DocKind::Event, &name)
                .with_context(|| format!("EventBody names {name}, which has no file"))?;
            Ok(Event {
                summary: text(doc.value.get("description")),
                name,
                params,
                since,
            })
        })
        .collect()
}

/// An envelope part's text, each branch told by its tag's `const`.
fn part_doc(doc: &SchemaDoc, part: &str) -> anyhow::Result<PartDoc> {
    let tag = BODY_PARTS
        .iter()
        .find(|body| body.union == part)
        .map_or("kind", |body| body.tag);
    let branches = doc
        .value
        .get("oneOf")
        .and_then(Value::as_array)
        .with_context(|| format!("{}: no oneOf", doc.rel))?;
    let branches = branches
        .iter()
        .enumerate()
        .map(|(index, branch)| {
            let tag = branch
                .pointer(&format!("/properties/{tag}/const"))
                .and_then(Value::as_str)
                .with_context(|| {
                    format!(
                        "{}#/oneOf/{index}: every branch names its {tag} with a const",
                        doc.rel
                    )
                })?;
            let members = branch
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(name, member)| (name.clone(), text(member.get("description"))))
                .collect();
            Ok(BranchDoc {
                tag: tag.to_string(),
                description: text(branch.get("description")),
                members,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(PartDoc {
        description: text(doc.value.get("description")),
        since: since([&doc.value]),
        branches,
    })
}

/// Every type after the ones it uses, so C++ sees each definition before
/// its use; otherwise in name order.
fn ordered(mut types: BTreeMap<String, Named>) -> anyhow::Result<Vec<Named>> {
    fn uses(ty: &Ty, out: &mut Vec<String>) {
        match ty {
            Ty::Named(name) => out.push(name.clone()),
            Ty::Array { items, .. } => uses(items, out),
            Ty::Map { values, .. } => uses(values, out),
            _ => {}
        }
    }
    let mut deps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, named) in &types {
        let mut out = Vec::new();
        match &named.def {
            Def::Struct(st) => st.fields.iter().for_each(|field| uses(&field.ty, &mut out)),
            Def::Alias(ty) => uses(ty, &mut out),
            Def::StringEnum(_) | Def::IntEnum(_) => {}
        }
        deps.insert(name.clone(), out);
    }
    let mut order = Vec::new();
    let mut done = BTreeSet::new();
    // Depth-first with an explicit stack and an "in progress" set: a cycle is
    // an error (C++ value types cannot hold themselves), not a stack overflow.
    // `open` is the path from `start` to the type being expanded, in order,
    // so a cycle is said as the chain of types that closes it.
    for start in deps.keys() {
        let mut stack = vec![(start.clone(), false)];
        let mut open: Vec<String> = Vec::new();
        while let Some((name, expanded)) = stack.pop() {
            if done.contains(&name) {
                continue;
            }
            if expanded {
                open.pop();
                done.insert(name.clone());
                order.push(name);
                continue;
            }
            if let Some(from) = open.iter().position(|on| *on == name) {
                let chain: Vec<&str> = open
                    .get(from..)
                    .unwrap_or_default()
                    .iter()
                    .map(String::as_str)
                    .chain([name.as_str()])
                    .collect();
                let origin = types.get(&name).map_or("", |named| named.origin.as_str());
                bail!(
                    "{origin}: type {name} contains itself ({}); the C++ and TypeScript bindings need types without cycles",
                    chain.join(" → ")
                );
            }
            open.push(name.clone());
            stack.push((name.clone(), true));
            for dep in deps.get(&name).into_iter().flatten().rev() {
                if !deps.contains_key(dep) {
                    bail!("type {name} uses {dep}, which is not defined");
                }
                if !done.contains(dep) {
                    stack.push((dep.clone(), false));
                }
            }
        }
    }
    Ok(order
        .into_iter()
        .filter_map(|name| types.remove(&name))
        .collect())
}

/// `(name, shape type, since)` of each member of a body union, from its `oneOf`.
fn body_members(
    set: &SchemaSet,
    builder: &Builder<'_>,
    part: &str,
    content: &str,
) -> anyhow::Result<Vec<(String, String, String)>> {
    let doc = set
        .get(DocKind::Envelope, part)
        .with_context(|| format!("envelope/{part}.json is missing"))?;
    let tag = if part == "EventBody" {
        "name"
    } else {
        "method"
    };
    let branches = doc
        .value
        .get("oneOf")
        .and_then(Value::as_array)
        .with_context(|| format!("{}: no oneOf", doc.rel))?;
    let mut out = Vec::new();
    for (index, branch) in branches.iter().enumerate() {
        let at = format!("{}#/oneOf/{index}", doc.rel);
        let name = branch
            .pointer(&format!("/properties/{tag}/const"))
            .and_then(Value::as_str)
            .with_context(|| format!("{at}: no `{tag}` const"))?;
        // The bindings name a body's type after it (`DownloadAddCall`).
        if !build::makes_identifiers(name) {
            bail!(
                "{at}/properties/{tag}/const: {name:?} makes no type name for the bindings: name it as the others are, words of letters and digits joined by `.` or `_`, starting with a letter"
            );
        }
        let reference = branch
            .pointer(&format!("/properties/{content}/$ref"))
            .and_then(Value::as_str)
            .with_context(|| format!("{at}: `{content}` is not a $ref"))?;
        let ty = builder
            .reference(doc, reference)
            .with_context(|| at.clone())?;
        let since = match resolve_ref(set, doc, reference) {
            Ok(target) => since([branch, &target.doc.value]),
            Err(_) => since([branch]),
        };
        out.push((name.to_string(), ty, since));
    }
    Ok(out)
}

/// A string literal, valid in C++ and JavaScript alike: JSON's escapes are
/// both languages' (the text here is names, descriptions and patterns).
pub fn literal(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// The values a method lists under `key` (`x-errors`, `x-transports`):
/// the bindings name each as an enum's variant, so each must make one.
fn named_values(doc: &SchemaDoc, key: &str) -> anyhow::Result<Vec<String>> {
    let values = strings(doc.value.get(key));
    if let Some(index) = values
        .iter()
        .position(|value| !build::makes_identifiers(value))
    {
        let value = values.get(index).map_or("", String::as_str);
        bail!(
            "{}#/{key}/{index}: {value:?} is no name the bindings can give a variant, and so names no value of its enum (lint.annotation)",
            doc.rel
        );
    }
    Ok(values)
}

fn strings(value: Option<&Value>) -> Vec<String> {
    contract::string_list(value)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// An optional text annotation: absent is empty (the lint asks for the
/// descriptions; an empty comment is what the emitters then write).
/// The version the first of `schemas` that says one (`x-since`) gives; a
/// schema that says none has been there since the first release, 1.0.0.
fn since<'v>(schemas: impl IntoIterator<Item = &'v Value>) -> String {
    schemas
        .into_iter()
        .find_map(|schema| schema.get("x-since").and_then(Value::as_str))
        .unwrap_or("1.0.0")
        .to_string()
}

fn text(value: Option<&Value>) -> String {
    value
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn working_tree() -> Model {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let set = SchemaSet::load(&root.join("contracts/schema")).unwrap();
        model(&set).unwrap()
    }

    #[test]
    fn every_method_and_event_has_its_shapes() {
        let model = working_tree();
        let invoke = model
            .calls
            .iter()
            .find(|call| call.method == "tool.invoke")
            .unwrap();
        assert_eq!(invoke.params, "ToolInvokeParams");
        assert_eq!(
            invoke.result, "ToolCapture",
            "a bare reference is its target"
        );
        assert!(model
            .events
            .iter()
            .any(|event| event.name == "event.task.state"));
        for call in &model.calls {
            assert!(model.get(&call.params).is_some(), "{} params", call.method);
            assert!(model.get(&call.result).is_some(), "{} result", call.method);
        }
    }

    #[test]
    fn types_come_after_what_they_use() {
        let model = working_tree();
        let at = |name: &str| {
            model
                .types
                .iter()
                .position(|named| named.name == name)
                .unwrap()
        };
        assert!(at("TaskError") < at("TaskSummary"));
        assert!(at("TaskSummary") < at("TaskDetail"));
        assert!(at("TaskProgressEventSegmentsItem") < at("TaskProgressEvent"));
    }

    #[test]
    fn the_if_then_rules_are_read() {
        // Every type's rules, as its schema's `allOf` lists them.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let set = SchemaSet::load(&root.join("contracts/schema")).unwrap();
        let model = model(&set).unwrap();
        let mut seen = 0;
        for doc in set.docs.iter().filter(|doc| doc.rel.starts_with("types/")) {
            let listed: Vec<&str> = doc.value["allOf"]
                .as_array()
                .map(|entries| {
                    entries
                        .iter()
                        .filter_map(|entry| entry["x-rule"].as_str())
                        .collect()
                })
                .unwrap_or_default();
            let read: Vec<&str> = match model.get(&doc.name).map(|named| &named.def) {
                Some(Def::Struct(def)) => def.rules.iter().map(|rule| rule.id.as_str()).collect(),
                _ => Vec::new(),
            };
            assert_eq!(read, listed, "{}", doc.rel);
            seen += read.len();
        }
        assert!(seen > 0, "no type has a rule");
        // A `not` of a `const` under `then` is read as "not equal".
        if let Some(Def::Struct(error)) = model.get("TaskError").map(|named| &named.def) {
            if let Some(cause) = error.rules.iter().find(|rule| rule.id == "error.cause") {
                assert!(
                    matches!(cause.then[..], [Clause::NotEqual(ref field, ref value)] if field == "cause" && value == "max_retries_exhausted")
                );
            }
        }
    }

    fn refused(edit: impl FnOnce(&mut SchemaSet)) -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut set = SchemaSet::load(&root.join("contracts/schema")).unwrap();
        edit(&mut set);
        format!(
            "{:#}",
            model(&set).err().expect("the model refuses the edit")
        )
    }

    /// The name of a type of `set` that is a string enum (the first by
    /// file name), for tests about enum values whatever the contract calls
    /// its enums.
    pub(crate) fn a_string_enum(set: &SchemaSet) -> String {
        let mut enums: Vec<&contract::SchemaDoc> = set
            .docs
            .iter()
            .filter(|doc| {
                doc.rel.starts_with("types/")
                    && doc.value["type"] == "string"
                    && doc.value["enum"].is_array()
            })
            .collect();
        enums.sort_by(|a, b| a.rel.cmp(&b.rel));
        enums
            .first()
            .expect("the contract has a string enum")
            .name
            .clone()
    }

    /// The document of the type, method or event `name` in `set`.
    pub(crate) fn doc<'a>(set: &'a mut SchemaSet, name: &str) -> &'a mut Value {
        &mut set
            .docs
            .iter_mut()
            .find(|doc| doc.name == name)
            .unwrap()
            .value
    }

    #[test]
    fn a_rule_the_generators_cannot_express_is_refused_with_its_place() {
        // An `if` that tests two properties at once.
        let err = refused(|set| {
            doc(set, "TaskError")["allOf"][0]["if"]["properties"]["retryable"] =
                serde_json::json!({"const": true});
        });
        assert!(
            err.contains("types/TaskError.json#/allOf/0") && err.contains("tests one property"),
            "{err}"
        );
        // A condition that asks more than the tested value: a generated
        // check would fire where the validator's does not (a closed object
        // matches no message with other members; a length beside `const`).
        for (key, more) in [
            ("type", serde_json::json!("object")),
            ("additionalProperties", serde_json::json!(false)),
        ] {
            let err = refused(|set| {
                doc(set, "TaskError")["allOf"][0]["if"][key] = more.clone();
            });
            assert!(
                err.contains("types/TaskError.json#/allOf/0")
                    && err.contains(&format!("if: {key}: not read in a rule")),
                "{err}"
            );
        }
        // An annotation there asks nothing, and is read.
        let mut set = SchemaSet::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../contracts/schema"),
        )
        .unwrap();
        doc(&mut set, "TaskError")["allOf"][0]["if"]["description"] = serde_json::json!("why");
        doc(&mut set, "TaskError")["allOf"][0]["if"]["properties"]["code"]["$comment"] =
            serde_json::json!("why");
        assert!(model(&set).is_ok());
        let err = refused(|set| {
            doc(set, "TaskError")["allOf"][0]["if"]["properties"]["code"]["maxLength"] =
                serde_json::json!(3);
        });
        assert!(
            err.contains("types/TaskError.json#/allOf/0")
                && err.contains("if: code: maxLength: not read in a rule"),
            "{err}"
        );
        // A consequence other than required / not-required / not-const / lengths.
        let err = refused(|set| {
            doc(set, "TaskError")["allOf"][0]["then"] = serde_json::json!({"minProperties": 4});
        });
        assert!(
            err.contains("types/TaskError.json#/allOf/0") && err.contains("minProperties"),
            "{err}"
        );
    }

    /// No binding runs a regex engine: a pattern with no automaton the
    /// bindings can walk has no binding, whether or not the lint ran.
    #[test]
    fn a_pattern_without_an_automaton_is_refused_with_its_place() {
        let err = refused(|set| {
            doc(set, "TaskId")["pattern"] = serde_json::json!("^[a-z]{1,300}$");
        });
        assert!(
            err.contains("types/TaskId.json#/pattern")
                && err.contains("lint.pattern")
                && err.contains("256 states"),
            "{err}"
        );
    }

    /// `12.0` is a count to JSON Schema and to the lint, not to the
    /// bindings: the refusal says how to write it.
    #[test]
    fn a_count_written_with_a_fraction_is_refused_saying_how_to_write_it() {
        for written in [serde_json::json!(64.0), serde_json::json!(1e20)] {
            let err = refused(|set| doc(set, "TaskId")["maxLength"] = written.clone());
            assert!(
                err.contains("types/TaskId.json#/maxLength")
                    && err.contains(&format!(
                        "{written} is not a non-negative integer written as one"
                    ))
                    && err.contains("not 12.0"),
                "{err}"
            );
        }
    }

    /// `x-secret` anywhere but on a property whose own schema is a string,
    /// and an enum that admits null, are refused with their place: the Rust
    /// bundle would read them and the C++ and TypeScript emitters would not.
    #[test]
    fn a_secret_or_a_null_the_emitters_do_not_model_alike_is_refused() {
        type Edit = fn(&mut SchemaSet);
        let cases: [(Edit, &str); 5] = [
            (
                |set| {
                    doc(set, "session.hello")["$defs"]["result"]["properties"]["methods"]["items"]
                        ["x-secret"] = serde_json::json!(true)
                },
                "methods/session.hello.json#/$defs/result/properties/methods/items/x-secret",
            ),
            (
                |set| {
                    doc(set, "DownloadSpec")["properties"]["headers"]["additionalProperties"]
                        ["x-secret"] = serde_json::json!(true)
                },
                "types/DownloadSpec.json#/properties/headers/additionalProperties/x-secret",
            ),
            (
                |set| doc(set, "TaskId")["x-secret"] = serde_json::json!(true),
                "types/TaskId.json#/x-secret",
            ),
            (
                |set| {
                    doc(set, "DownloadSpec")["properties"]["segments"]["x-secret"] =
                        serde_json::json!(true)
                },
                "types/DownloadSpec.json#/properties/segments/x-secret",
            ),
            (
                |set| doc(set, "TaskState")["x-secret"] = serde_json::json!(true),
                "types/TaskState.json#/x-secret",
            ),
        ];
        for (edit, place) in cases {
            let err = refused(edit);
            assert!(err.contains(place), "{place}: {err}");
        }
        let mut name = String::new();
        let err = refused(|set| {
            name = a_string_enum(set);
            doc(set, &name)["type"] = serde_json::json!(["string", "null"]);
        });
        assert!(err.contains(&format!("types/{name}.json#/type")), "{err}");
    }

    #[test]
    fn a_type_that_contains_itself_is_refused_not_a_stack_overflow() {
        let err = refused(|set| {
            doc(set, "TaskError")["properties"]["inner"] =
                serde_json::json!({"$ref": "TaskError.json"});
        });
        assert!(
            err.starts_with("types/TaskError.json#: ")
                && err.contains("type TaskError contains itself (TaskError → TaskError)"),
            "{err}"
        );
        let err = refused(|set| {
            doc(set, "TaskError")["properties"]["checksum"] =
                serde_json::json!({"$ref": "Checksum.json"});
            doc(set, "Checksum")["properties"]["errors"] = serde_json::json!({"type": "array", "items": {"$ref": "TaskError.json"}, "maxItems": 4});
        });
        assert!(err.contains("(Checksum → TaskError → Checksum)"), "{err}");
    }

    #[test]
    fn two_properties_that_are_one_field_in_rust_and_cpp_are_refused() {
        let err = refused(|set| {
            doc(set, "ToolCapture")["properties"]["exitCODE"] =
                serde_json::json!({"type": "integer", "description": "d"});
        });
        assert!(
            err.contains("types/ToolCapture.json#/properties") && err.contains("`exit_code`"),
            "{err}"
        );
    }

    /// rustc refuses a bidirectional override in the doc comment the
    /// description becomes, and then the xtask itself would not build.
    #[test]
    fn a_bidirectional_override_in_a_description_is_refused() {
        let err = refused(|set| {
            doc(set, "ToolCapture")["properties"]["stdout"]["description"] =
                serde_json::json!("What it wrote \u{202e}backwards");
        });
        assert!(
            err.contains("types/ToolCapture.json#/properties/stdout/description")
                && err.contains("U+202E"),
            "{err}"
        );
    }

    /// A member name from the schema is quoted escaped: its line break
    /// starts no line of its own in the gate's output.
    #[test]
    fn a_refusal_quoting_a_member_name_is_one_line() {
        let err = refused(|set| {
            doc(set, "ToolCapture")["properties"]["a\nerror: forged \u{202e}"] =
                serde_json::json!({"type": "string"});
        });
        assert!(!err.contains('\n') && !err.contains('\u{202e}'), "{err}");
        assert!(
            err.contains("#/properties/a\\u000aerror: forged \\u202e: "),
            "{err}"
        );
    }

    /// An enum value that makes no identifier (`1.0.0`: the Rust variant
    /// `100`, the C++ enumerator `1_0_0`) is refused at its place, not a
    /// panic of the code writer.
    #[test]
    fn an_enum_value_that_makes_no_identifier_is_refused_at_its_place() {
        for value in ["1.0.0", "", "a b", "_"] {
            let err = refused(|set| {
                let name = a_string_enum(set);
                doc(set, &name)["enum"][0] = serde_json::json!(value);
            });
            assert!(
                err.contains("#/enum/0: ") && err.contains("makes no identifier"),
                "{value:?}: {err}"
            );
        }
    }

    /// A method's listed errors and transports, and a method's or event's
    /// name, become identifiers too: one that makes none is refused at its
    /// place.
    #[test]
    fn a_listed_name_that_makes_no_identifier_is_refused_at_its_place() {
        for key in ["x-errors", "x-transports"] {
            let err = refused(|set| {
                doc(set, "download.pause")[key] = serde_json::json!(["9.x"]);
            });
            assert!(
                err.contains(&format!(
                    "methods/download.pause.json#/{key}/0: \"9.x\" is no name"
                )),
                "{err}"
            );
        }
        let err = refused(|set| {
            doc(set, "CallBody")["oneOf"][0]["properties"]["method"]["const"] =
                serde_json::json!("9.hello");
        });
        assert!(
            err.contains("CallBody.json#/oneOf/0/properties/method/const: ")
                && err.contains("\"9.hello\" makes no type name"),
            "{err}"
        );
    }

    /// The keywords of a rule hold nothing on a field of another type; the
    /// emitters would write a comparison that does not compile.
    #[test]
    fn a_rule_on_a_field_that_is_not_a_string_is_refused() {
        for (field, says) in [
            ("value", "counts its characters"),
            ("algorithm", "tests it"),
        ] {
            let err = refused(|set| {
                doc(set, "Checksum")["properties"][field] = serde_json::json!({"type": "integer", "minimum": 0, "maximum": 9, "description": "d"});
            });
            assert!(
                err.contains("types/Checksum.json#/allOf/0") && err.contains(says),
                "{field}: {err}"
            );
        }
    }

    #[test]
    fn enum_values_that_are_one_rust_variant_are_refused() {
        // Two new values alike, and a value again.
        for again in [false, true] {
            let mut name = String::new();
            let err = refused(|set| {
                name = a_string_enum(set);
                let values = doc(set, &name)["enum"].as_array_mut().unwrap();
                let more = match (again, values.first()) {
                    (true, Some(first)) => [first.clone(), Value::from("x")],
                    _ => [Value::from("a1"), Value::from("a_1")],
                };
                values.extend(more);
            });
            assert!(
                err.contains(&format!("types/{name}.json#/enum")) && err.contains("Rust variant"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_keyword_the_generators_do_not_read_is_refused_with_its_place() {
        let err = refused(|set| doc(set, "TaskId")["multipleOf"] = serde_json::json!(2));
        assert!(err.contains("types/TaskId.json#/multipleOf"), "{err}");
        // It says what they do read there (a draft 2020-12 keyword passes
        // the lint, so this is where it is refused).
        assert!(
            err.contains("not read by the C++ and TypeScript generators on a string (they read minLength, maxLength, pattern, format, x-secret there)"),
            "{err}"
        );
    }
}
