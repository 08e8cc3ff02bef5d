//! The conformance checker: is a message (or a captured frame stream) what
//! the contract says, and if not, exactly where and why.
//!
//! A message is checked three ways, and every failure is reported, not just
//! the first: its `v` (rule `envelope.version`, before anything else), the
//! JSON Schema (rule `schema`, or the rule an `x-rule` annotation names for
//! the part of the schema that failed), and the semantic rules JSON Schema
//! cannot say (byte ranges, coverage, sums: see [`rules`]).

pub mod drive;
#[cfg(feature = "embedded")]
mod embedded;
pub mod fixtures;
pub mod generate;
#[cfg(feature = "embedded")]
pub mod generated;
mod input;
pub mod mirror;
pub mod pipeline;
mod plan;
pub mod report;
pub mod rules;
pub mod trace;

use std::collections::HashMap;
use std::sync::OnceLock;

use contract::SchemaSet;
use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

#[cfg(feature = "embedded")]
pub use embedded::{contract_versions, NEWEST_CONTRACT};
pub use rules::{Finding, Rule};

use crate::plan::{Plan, Visit};
use crate::rules::Path;

/// Why a checker could not be built.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The schema set did not load.
    #[error(transparent)]
    Schemas(#[from] contract::Error),
    /// No type of that name: the name asked for, and what to ask for
    /// instead (the type meant, when the name is a method's or an event's
    /// or differs only in case, and the names there are).
    #[error("no type called {0:?}; {1}")]
    UnknownType(String, String),
    /// The validator refused a type's schema.
    #[error("the schema for {name} does not compile: {message}")]
    Compile {
        /// The type.
        name: String,
        /// The validator's account.
        message: String,
    },
    /// A fixture or input file that cannot be used.
    #[error("{path}: {message}")]
    Input {
        /// The file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// The schemas nest too deep for the checker's walk.
    #[error(
        "{place}: the schemas nest more than {} levels deep here, counting through \
         references, past what the checker follows",
        plan::MAX_NESTING
    )]
    TooDeep {
        /// The file and pointer where the walk stopped.
        place: String,
    },
    /// No release of that version is compiled in: the version asked for,
    /// and the versions there are.
    #[error("no contract {0:?} is compiled in; there are: {1}")]
    UnknownContract(String, String),
}

/// A compiled checker for one schema set.
pub struct Checker {
    set: SchemaSet,
    registry: jsonschema::Registry<'static>,
    /// Where each named type's schema lives (`$id#pointer`).
    locations: HashMap<String, String>,
    /// A validator for each named type's location, and for each branch of
    /// a tagged union there ([`Checker::tagged_branch`]); each compiled on
    /// first use.
    validators: HashMap<String, OnceLock<Result<Validator, String>>>,
    /// Each document's place in `set.docs`, by its `$id`: findings look
    /// schemas up by their location, many times a message.
    documents: HashMap<String, usize>,
    plan: Plan,
    /// The walk for coverage visits every enum; built on first use.
    coverage: OnceLock<Plan>,
}

impl Checker {
    /// A checker of `set`: every named type's schema compiled once.
    pub fn new(set: SchemaSet) -> Result<Self, Error> {
        let registry = set.registry()?;
        let mut locations = HashMap::new();
        for doc in &set.docs {
            let Some(id) = doc.id() else { continue };
            for (name, pointer, _) in doc.named_places() {
                let location = if pointer.is_empty() {
                    id.to_string()
                } else {
                    format!("{id}#{pointer}")
                };
                locations.insert(name, location);
            }
        }
        let mut validators = HashMap::new();
        let mut pending: Vec<String> = locations.values().cloned().collect();
        while let Some(location) = pending.pop() {
            if validators.contains_key(&location) {
                continue;
            }
            let branches = schema_in(&set, &location)
                .filter(|schema| only_a_union(schema))
                .and_then(|schema| schema.get("oneOf"))
                .and_then(Value::as_array)
                .filter(|branches| strictly_tagged(branches))
                .map_or(0, Vec::len);
            pending.extend((0..branches).map(|index| branch_location(&location, index)));
            validators.insert(location, OnceLock::new());
        }
        let semantic: Vec<&str> = rules::SEMANTIC.iter().map(|(name, _, _)| *name).collect();
        let plan = Plan::compile(&set, &semantic);
        if let Some((file, pointer)) = plan.too_deep() {
            return Err(Error::TooDeep {
                place: format!("{}#{pointer}", set.origin.join(file).display()),
            });
        }
        let documents = set
            .docs
            .iter()
            .enumerate()
            .filter_map(|(index, doc)| doc.id().map(|id| (id.to_string(), index)))
            .collect();
        Ok(Self {
            set,
            registry,
            locations,
            validators,
            documents,
            plan,
            coverage: OnceLock::new(),
        })
    }

    /// The schemas it checks against.
    pub fn schema_set(&self) -> &SchemaSet {
        &self.set
    }

    /// The names `check` accepts as a target, sorted.
    pub fn type_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.locations.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// [`Error::UnknownType`] for `name`, with the types it may have meant.
    fn unknown_type(&self, name: &str) -> Error {
        let names = self.type_names();
        let titled = |kind, part: &str| {
            self.set.get(kind, name).and_then(|doc| {
                doc.named_places()
                    .into_iter()
                    .find(|(_, at, _)| at == &format!("/$defs/{part}"))
                    .map(|(title, _, _)| title)
            })
        };
        let meant = match (
            titled(contract::DocKind::Method, "params"),
            titled(contract::DocKind::Method, "result"),
            titled(contract::DocKind::Event, "params"),
        ) {
            (Some(params), Some(result), _) => {
                format!("{name} is a method: its types are {params} and {result}; ")
            }
            (_, _, Some(params)) => format!("{name} is an event: its type is {params}; "),
            _ => names
                .iter()
                .find(|known| known.eq_ignore_ascii_case(name))
                .copied()
                .or_else(|| contract::closest(name, names.iter().copied()))
                .map(|known| format!("did you mean {known}? "))
                .unwrap_or_default(),
        };
        Error::UnknownType(
            name.to_string(),
            format!("{meant}known types: {}", names.join(", ")),
        )
    }

    /// Fails unless `name` is a type this checker knows.
    pub fn require_type(&self, name: &str) -> Result<(), Error> {
        if self.locations.contains_key(name) {
            self.validator(name).map(|_| ())
        } else {
            Err(self.unknown_type(name))
        }
    }

    /// The values of the string enum type called `name`, when there is one.
    pub(crate) fn enum_values(&self, name: &str) -> Option<Vec<String>> {
        self.set
            .get(contract::DocKind::Type, name)
            .and_then(|doc| doc.value.get("enum"))
            .and_then(Value::as_array)
            .map(|items| strings(items))
    }

    /// Where the schema of `name` lives (`$id`, or `$id#pointer`).
    pub(crate) fn location(&self, name: &str) -> Result<&str, Error> {
        self.require_type(name)?;
        self.locations
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| self.unknown_type(name))
    }

    /// The registry the schemas resolve in, for drawing values from them.
    pub(crate) fn registry(&self) -> &jsonschema::Registry<'static> {
        &self.registry
    }

    fn validator(&self, name: &str) -> Result<&Validator, Error> {
        let Some(location) = self.locations.get(name) else {
            return Err(self.unknown_type(name));
        };
        self.validator_at(location, name)
    }

    /// The validator of the schema at `location`, one of `validators`' keys;
    /// `name` is the type it serves, for an error.
    fn validator_at(&self, location: &str, name: &str) -> Result<&Validator, Error> {
        let Some(cell) = self.validators.get(location) else {
            return Err(self.unknown_type(name));
        };
        cell.get_or_init(|| {
            jsonschema::options()
                .with_registry(&self.registry)
                .should_validate_formats(true)
                .build(&serde_json::json!({ "$ref": location }))
                .map_err(|err| err.to_string())
        })
        .as_ref()
        .map_err(|message| Error::Compile {
            name: name.to_string(),
            message: message.clone(),
        })
    }

    /// Every rule `value` breaks as a `target` (a type name; `Envelope` for
    /// messages), sorted by pointer.
    ///
    /// ```
    /// use conformance::{Checker, Rule};
    ///
    /// let checker = Checker::embedded()?;
    /// let segment = serde_json::json!({
    ///     "index": 0, "startByte": 100, "endByte": 99,
    ///     "downloadedBytes": 0, "state": "pending"
    /// });
    /// let found = checker.check("Segment", &segment)?;
    /// assert_eq!(found.len(), 1);
    /// assert_eq!(found[0].rule, Rule::SegmentRangeOrder);
    /// assert_eq!(found[0].pointer, "/endByte");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(&self, target: &str, value: &Value) -> Result<Vec<Finding>, Error> {
        let mut out = Vec::new();
        if target == "Envelope" {
            if let Some(found) = version_finding(value) {
                return Ok(vec![found]);
            }
        }
        self.schema_errors(target, value, &mut out)?;
        if let Some(root) = self.plan.root(target) {
            let mut path = Path::default();
            self.plan.walk(
                root,
                value,
                &mut path,
                &mut |visit: &Visit<'_>, path: &mut Path| {
                    let check = rules::SEMANTIC
                        .iter()
                        .find(|(name, _, _)| visit.named == Some(*name));
                    if let Some((_, check, _)) = check {
                        check(visit.value, path, &mut out);
                    }
                },
            );
        }
        if has_fraction(value) {
            if let Some(root) = self.plan.root(target) {
                for pointer in self.plan.fractional_integers(root, value) {
                    out.push(Finding {
                        keyword: None,
                        pointer,
                        rule: Rule::JsonInteger,
                        message: "an integer is written with a fraction, an exponent or as -0; the wire writes integers as integers".into(),
                    });
                }
            }
        }
        if !out.is_empty() {
            if let Some(root) = self.plan.root(target) {
                redact(&mut out, &self.plan.secret_places(root, value));
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// `value` as a report may quote it: every place [`Checker::check`]'s
    /// findings would hide (an `x-secret` value, or what may hold one)
    /// replaced by [`REDACTED`].
    pub fn redacted(&self, target: &str, value: &Value) -> Value {
        let mut out = value.clone();
        if let Some(root) = self.plan.root(target) {
            for place in self.plan.secret_places(root, value) {
                if let Some(slot) = out.pointer_mut(&place.pointer) {
                    *slot = Value::String(REDACTED.into());
                }
            }
        }
        out
    }

    /// [`Checker::check`] for a message as text: first the JSON text policy
    /// (`docs/wire.md`, "JSON text"; rule `json`), then the rules.
    pub fn check_text(&self, target: &str, text: &[u8]) -> Result<Vec<Finding>, Error> {
        match parse(text, proto::text::Layout::Envelope) {
            Ok(value) => self.check(target, &value),
            Err(finding) => Ok(vec![finding]),
        }
    }
}

/// A message's text as a value, once the JSON text policy holds for it;
/// `layout` says whether it stands alone or one level down in a container.
pub fn parse(text: &[u8], layout: proto::text::Layout) -> Result<Value, Finding> {
    let not_json = |message: String| Finding {
        keyword: None,
        pointer: String::new(),
        rule: Rule::Json,
        message,
    };
    proto::text::scan(text, layout).map_err(|err| not_json(err.to_string()))?;
    // The policy has bounded the depth (one more for a container of
    // messages than serde's own limit allows), so serde's limit is lifted.
    let mut json = serde_json::Deserializer::from_slice(text);
    json.disable_recursion_limit();
    serde::Deserialize::deserialize(&mut json).map_err(|err| not_json(format!("not JSON: {err}")))
}

/// A schema location (`$id`, or `$id#pointer`) as its `$id` and pointer.
fn split_location(location: &str) -> (&str, &str) {
    location.split_once('#').unwrap_or((location, ""))
}

/// The schema at `location` in `set`.
fn schema_in<'s>(set: &'s SchemaSet, location: &str) -> Option<&'s Value> {
    let (id, pointer) = split_location(location);
    set.by_id(id)?.value.pointer(pointer)
}

/// Where branch `index` of the `oneOf` at `location` lives.
fn branch_location(location: &str, index: usize) -> String {
    if location.contains('#') {
        format!("{location}/oneOf/{index}")
    } else {
        format!("{location}#/oneOf/{index}")
    }
}

/// The member that tells a union's branches apart: one the first branch
/// requires that every branch gives a `const`.
fn union_tag(branches: &[Value]) -> Option<&str> {
    branches
        .first()
        .and_then(|first| first.get("required"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find(|tag| branches.iter().all(|b| tag_const(b, tag).is_some()))
}

/// Whether every branch requires the tag and gives it a string of its own:
/// then a value that fails the union fails every branch but the one its
/// tag names, and the tag names at most one.
fn strictly_tagged(branches: &[Value]) -> bool {
    let Some(tag) = union_tag(branches) else {
        return false;
    };
    let mut seen = std::collections::HashSet::new();
    branches.iter().all(|branch| {
        let required = branch
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|names| names.iter().any(|name| name.as_str() == Some(tag)));
        let named = tag_const(branch, tag).and_then(Value::as_str);
        required && named.is_some_and(|name| seen.insert(name))
    })
}

/// The `const` a union branch gives its `tag` member.
fn tag_const<'s>(branch: &'s Value, tag: &str) -> Option<&'s Value> {
    branch.get("properties")?.get(tag)?.get("const")
}

/// How many unions [`Checker::findings_at`] enters one inside another
/// before it asks the rest of the schema at once: the schemas may nest
/// unions in themselves, and the value's depth is not bounded here.
const MAX_UNIONS_ENTERED: usize = 16;

/// Whether `schema` asks nothing of a value but its `oneOf`: every other
/// keyword is an annotation.
fn only_a_union(schema: &Value) -> bool {
    schema.as_object().is_some_and(|object| {
        object.contains_key("oneOf") && object.keys().all(|key| key == "oneOf" || annotation(key))
    })
}

/// Whether a keyword only annotates (the validator asks nothing of a
/// value by it; the contract's own `x-` keywords included).
fn annotation(keyword: &str) -> bool {
    const ANNOTATIONS: [&str; 8] = [
        "$schema",
        "$id",
        "$comment",
        "$defs",
        "title",
        "description",
        "examples",
        "deprecated",
    ];
    keyword.starts_with("x-") || ANNOTATIONS.contains(&keyword)
}

/// Whether any number in `value` was read as a double: written with a
/// fraction, an exponent or as `-0`.
fn has_fraction(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Number(n) if n.is_f64() => return true,
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

impl Checker {
    /// The findings of the JSON Schema of `target` for `value`.
    ///
    /// A failed tagged union is reported by the errors of the branch the
    /// value's tag names ([`Checker::schema_findings`]), so that branch
    /// alone is asked for them ([`Checker::findings_at`]): the union's own
    /// error would first collect every branch's errors, each with a copy of
    /// the part of the value it is about, most of the time `check` spends
    /// on a message that fails. What is found is the same
    /// (`the_shortcut_finds_what_the_whole_schema_finds`).
    fn schema_errors(
        &self,
        target: &str,
        value: &Value,
        out: &mut Vec<Finding>,
    ) -> Result<(), Error> {
        let before = out.len();
        // `findings_at` asks the validator first, so a valid value costs
        // one `is_valid` and a failing one no second.
        let failed = self.findings_at(self.location(target)?, value, "", target, 0, out)?;
        if failed && out.len() == before {
            // Never a failure without a finding: the whole schema's account.
            self.whole_schema_errors(target, value, out)?;
        }
        Ok(())
    }

    /// The findings of the whole schema of `target` at once, with no
    /// shortcut.
    fn whole_schema_errors(
        &self,
        target: &str,
        value: &Value,
        out: &mut Vec<Finding>,
    ) -> Result<(), Error> {
        for error in self.validator(target)?.iter_errors(value) {
            self.schema_findings(&error, "", out);
        }
        Ok(())
    }

    /// The findings of the schema at `at` (a key of `validators`) for
    /// `value`, which stands at `prefix` in what is checked; `depth` counts
    /// the unions entered on the way. `Ok(false)` when the value is valid
    /// there.
    ///
    /// A tagged union is passed for the branch the tag names (its
    /// validator is a reference to the branch where it stands, so its
    /// errors name the same places). An object whose members are checked
    /// one by one (nothing but `type`, `properties`, `required` and
    /// `additionalProperties`) is checked without each member that is a
    /// reference to a tagged union, `required` not holding their absence
    /// against it, and each such member checked here in turn: no other
    /// keyword's verdict depends on a member's value.
    fn findings_at(
        &self,
        at: &str,
        value: &Value,
        prefix: &str,
        target: &str,
        depth: usize,
        out: &mut Vec<Finding>,
    ) -> Result<bool, Error> {
        let mut validator = self.validator_at(at, target)?;
        if validator.is_valid(value) {
            return Ok(false);
        }
        let mut at = at.to_string();
        while let Some(branch) = self.tagged_branch(&at, value) {
            let branch = match branch {
                Ok(branch) => branch,
                Err(message) => {
                    // No branch named: the union's one finding, as
                    // `schema_findings` words it, without first collecting
                    // every branch's errors it would not print.
                    out.push(Finding {
                        keyword: Some("oneOf".into()),
                        pointer: prefix.to_string(),
                        rule: Rule::Schema,
                        message,
                    });
                    return Ok(true);
                }
            };
            let inner = self.validator_at(&branch, target)?;
            if inner.is_valid(value) {
                // Not the one failure a tagged union has (two branches
                // share the tag): the union's own account.
                break;
            }
            validator = inner;
            at = branch;
        }
        // An `x-rule` over the object could quote it whole in a finding,
        // so it is asked of the object as it is.
        let members = if depth < MAX_UNIONS_ENTERED && self.rule_at(&at).0 == Rule::Schema {
            self.union_members(&at, value)
        } else {
            Vec::new()
        };
        if members.is_empty() {
            for error in validator.iter_errors(value) {
                self.schema_findings(&error, prefix, out);
            }
            return Ok(true);
        }
        // The object without its union members; `required` missing them
        // is not a finding.
        let rest: serde_json::Map<String, Value> = value
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(name, _)| !members.iter().any(|(member, _)| member == name))
            .map(|(name, member)| (name.clone(), member.clone()))
            .collect();
        let rest = Value::Object(rest);
        for error in validator.iter_errors(&rest) {
            let set_aside = match error.kind() {
                ValidationErrorKind::Required { property } => members
                    .iter()
                    .any(|(member, _)| property.as_str() == Some(*member)),
                _ => false,
            };
            if !set_aside {
                self.schema_findings(&error, prefix, out);
            }
        }
        for (name, location) in &members {
            if let Some(member) = value.get(*name) {
                let prefix = format!("{prefix}/{}", contract::escape_pointer_token(name));
                self.findings_at(location, member, &prefix, target, depth + 1, out)?;
            }
        }
        Ok(true)
    }

    /// Where the branch `value`'s tag names lives, when the schema at `at`
    /// is a tagged union and nothing else (what else it says would not be
    /// asked of the branch); `Err` says why the value names none.
    fn tagged_branch(&self, at: &str, value: &Value) -> Option<Result<String, String>> {
        if !self.validators.contains_key(&branch_location(at, 0)) {
            return None;
        }
        let branches = self.schema_at(at)?.get("oneOf")?.as_array()?;
        Some(
            self.branch_for(branches, value)
                .map(|index| branch_location(at, index)),
        )
    }

    /// The members of `value` that the object schema at `at` checks by a
    /// bare reference to a tagged union, with where that union lives; none
    /// unless the schema checks members one by one.
    fn union_members<'v>(&self, at: &str, value: &'v Value) -> Vec<(&'v str, String)> {
        const ONE_BY_ONE: [&str; 4] = ["type", "properties", "required", "additionalProperties"];
        let (Some(schema), Some(object)) = (self.schema_at(at), value.as_object()) else {
            return Vec::new();
        };
        let Some(keywords) = schema.as_object() else {
            return Vec::new();
        };
        if !keywords
            .keys()
            .all(|key| ONE_BY_ONE.contains(&key.as_str()) || annotation(key))
        {
            return Vec::new();
        }
        let Some(properties) = keywords.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        let Some(doc) = at.split('#').next().and_then(|id| self.document(id)) else {
            return Vec::new();
        };
        let mut members = Vec::new();
        for (name, member) in object {
            let Some(reference) = properties
                .get(name)
                .and_then(Value::as_object)
                .filter(|schema| schema.keys().all(|key| key == "$ref" || annotation(key)))
                .and_then(|schema| schema.get("$ref"))
                .and_then(Value::as_str)
            else {
                continue;
            };
            let Ok(target) = contract::resolve_ref(&self.set, doc, reference) else {
                continue;
            };
            let Some(id) = target.doc.id() else { continue };
            let location = if target.pointer.is_empty() {
                id.to_string()
            } else {
                format!("{id}#{}", target.pointer)
            };
            if member.is_object()
                && only_a_union(target.schema)
                && self.validators.contains_key(&branch_location(&location, 0))
            {
                members.push((name.as_str(), location));
            }
        }
        members
    }

    /// Turns one validator error into findings: a failed `oneOf` is reported
    /// by the errors of the branch the value's tag chose, and a failure inside
    /// a part of a schema marked `x-rule` is reported under that rule.
    fn schema_findings(&self, error: &ValidationError<'_>, prefix: &str, out: &mut Vec<Finding>) {
        let pointer = format!("{prefix}{}", error.instance_path().as_str());
        // Without a location (""), no named rule applies: rule `schema`.
        let location = error
            .absolute_keyword_location()
            .map(|uri| uri.as_str().to_string())
            .unwrap_or_default();
        if let ValidationErrorKind::OneOfNotValid { context } = error.kind() {
            if let Some(branches) = self.schema_at(&location).and_then(Value::as_array) {
                match self.branch_for(branches, error.instance()) {
                    Ok(index) => {
                        for inner in context.get(index).into_iter().flatten() {
                            self.schema_findings(inner, prefix, out);
                        }
                    }
                    Err(message) => out.push(Finding {
                        keyword: Some("oneOf".into()),
                        pointer,
                        rule: Rule::Schema,
                        message,
                    }),
                }
                return;
            }
        }
        let (rule, description) = self.rule_at(&location);
        let at = short_location(&location);
        let message = match rule {
            Rule::Schema => format!("{error} (`{}` at {at})", error.kind().keyword()),
            rule => {
                rule_message(rule, error.instance(), description.as_deref()).unwrap_or_else(|| {
                    // A rule without a description is named by its id alone.
                    format!("{}: {error} (at {at})", description.unwrap_or_default())
                })
            }
        };
        out.push(Finding {
            pointer,
            rule,
            keyword: Some(error.kind().keyword().to_string()),
            message,
        });
    }

    /// The schema node an absolute keyword location points at.
    fn schema_at(&self, location: &str) -> Option<&Value> {
        let (id, pointer) = split_location(location);
        self.document(id)?.value.pointer(pointer)
    }

    /// The document whose `$id` is `id`.
    fn document(&self, id: &str) -> Option<&contract::SchemaDoc> {
        self.set.docs.get(*self.documents.get(id)?)
    }

    /// Which branch of a tagged union the value names by its tag.
    fn branch_for(&self, branches: &[Value], instance: &Value) -> Result<usize, String> {
        let tag = union_tag(branches)
            .ok_or_else(|| "the value matches none of the schema's alternatives".to_string())?;
        let known: Vec<&str> = branches
            .iter()
            .filter_map(|b| tag_const(b, tag).and_then(Value::as_str))
            .collect();
        let Some(object) = instance.as_object() else {
            return Err(format!(
                "expected an object with a {tag:?} tag, found {}",
                kind_of(instance)
            ));
        };
        let Some(given) = object.get(tag) else {
            return Err(format!(
                "missing {tag:?}; it must be one of {}",
                known.join(", ")
            ));
        };
        known
            .iter()
            .position(|value| Some(*value) == given.as_str())
            .ok_or_else(|| format!("{tag} {given} is not one of {}", known.join(", ")))
    }

    /// The `x-rule` governing a schema location: the nearest enclosing node
    /// that names one, with that node's description.
    fn rule_at(&self, location: &str) -> (Rule, Option<String>) {
        let Some((id, pointer)) = location.split_once('#') else {
            return (Rule::Schema, None);
        };
        let Some(doc) = self.document(id) else {
            return (Rule::Schema, None);
        };
        let mut prefix = pointer;
        loop {
            if let Some(node) = doc.value.pointer(prefix) {
                if let Some(rule) = node
                    .get("x-rule")
                    .and_then(Value::as_str)
                    .and_then(Rule::from_id)
                {
                    let description = node
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    return (rule, description);
                }
            }
            match prefix.rfind('/') {
                Some(cut) => prefix = &prefix[..cut],
                None => return (Rule::Schema, None),
            }
        }
    }

    /// Walks `value` as `target`, calling `visit` for every enum value and
    /// named type on the way (for coverage).
    pub fn visit_all(&self, target: &str, value: &Value, visit: &mut dyn FnMut(&Visit<'_>)) {
        let plan = self.coverage_plan();
        if let Some(root) = plan.root(target) {
            let mut path = Path::default();
            plan.walk(
                root,
                value,
                &mut path,
                &mut |v: &Visit<'_>, _: &mut Path| visit(v),
            );
        }
    }

    /// Every enum type reachable from `target` (for coverage: an enum no
    /// message can carry, such as `Transport`, needs no fixture).
    pub fn enums_reached_from(&self, target: &str, out: &mut std::collections::BTreeSet<String>) {
        if let Some(root) = self.coverage_plan().root(target) {
            self.coverage_plan().enums_reachable(root, out);
        }
    }

    /// The fields `value` (as `target`) holds, each as the schema that
    /// declares it says: `(file#pointer of its properties keyword, name)`,
    /// as the validator's own evaluation reports them (the `properties`
    /// annotation), so a field reached through any `$ref`, branch or
    /// condition counts where the validator applied it.
    pub fn fields_used(
        &self,
        target: &str,
        value: &Value,
        out: &mut std::collections::BTreeSet<(String, String)>,
    ) -> Result<(), Error> {
        let evaluation = self.validator(target)?.evaluate(value);
        for entry in evaluation.iter_annotations() {
            let Some(location) = entry.absolute_keyword_location else {
                continue;
            };
            let location = short_location(location.as_str());
            // The `properties` keyword's own annotation: the names it applied to.
            if location.ends_with("/properties") {
                for name in entry.annotations.value().as_array().into_iter().flatten() {
                    if let Some(name) = name.as_str() {
                        out.insert((location.clone(), name.to_string()));
                    }
                }
            }
            // A field's schema applied to the field (every field has a
            // description, so its schema leaves an annotation).
            if let Some((base, name)) = location.rsplit_once("/properties/") {
                if !name.contains('/') {
                    let name = contract::unescape_pointer_token(name);
                    out.insert((format!("{base}/properties"), name));
                }
            }
        }
        Ok(())
    }

    fn coverage_plan(&self) -> &Plan {
        self.coverage
            .get_or_init(|| Plan::compile(&self.set, &["*enum"]))
    }
}

/// `v` decides before anything else: a number other than 1 is a version error.
fn version_finding(value: &Value) -> Option<Finding> {
    let version = value.get("v")?;
    if !version.is_number() || version.as_u64() == Some(proto::PROTOCOL_VERSION) {
        return None;
    }
    Some(Finding {
        keyword: None,
        pointer: "/v".into(),
        rule: Rule::EnvelopeVersion,
        message: format!(
            "protocol version {version}, but this contract speaks {}; the rest of the message was not checked",
            proto::PROTOCOL_VERSION
        ),
    })
}

/// Sentences for the rules the schemas carry as `x-rule`, from the value.
fn rule_message(rule: Rule, instance: &Value, description: Option<&str>) -> Option<String> {
    let code = instance.get("code").and_then(Value::as_str);
    Some(match rule {
        Rule::ErrorHttpStatus => {
            let code = code?;
            if instance.get("httpStatus").is_some() {
                format!("httpStatus is present, but {code} does not come from an HTTP answer (see TaskErrorCode x-carriesHttpStatus)")
            } else {
                format!("{code} comes from an HTTP answer, so httpStatus is required")
            }
        }
        Rule::ErrorCause => match code? {
            "max_retries_exhausted" => {
                "cause is max_retries_exhausted itself; it must name the underlying failure".into()
            }
            other => {
                format!("cause is present on {other}; only max_retries_exhausted carries a cause")
            }
        },
        Rule::SummaryErrorState => {
            let state = instance.get("state").and_then(Value::as_str)?;
            if instance.get("error").is_some() {
                format!("error is present, but the state is {state}; only failed and retry_wait carry an error")
            } else {
                format!("the state is {state}, so error is required")
            }
        }
        Rule::ChecksumLength => {
            let algorithm = instance.get("algorithm").and_then(Value::as_str)?;
            let length = instance
                .get("value")
                .and_then(Value::as_str)
                .map_or(0, str::len);
            format!(
                "{} (this value has {length})",
                description?.trim_end_matches('.')
            )
            .replace("A ", &format!("the value is {algorithm}, and a "))
        }
        _ => return None,
    })
}

pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A keyword location as a reviewer reads it: `types/X.json#/pointer`.
fn short_location(location: &str) -> String {
    location
        .strip_prefix(contract::ID_BASE)
        .unwrap_or(location)
        .to_string()
}

/// What a report says in place of a credential.
pub const REDACTED: &str = "<redacted>";

/// No finding prints a value a report must hide ([`plan::Plan::secret_places`]):
/// a finding at or under such a place says only which rule it broke there,
/// and any other finding has the hidden value's text replaced. Every value
/// is printed as serde_json writes it, so its text is the same inside any
/// instance that holds it; a secret's own characters are replaced too, in
/// case a message quotes them bare, and so is a long string's elsewhere.
fn redact(findings: &mut [Finding], hidden: &[plan::Hidden<'_>]) {
    for finding in findings.iter_mut() {
        for place in hidden {
            let inside = finding.pointer == place.pointer
                || finding
                    .pointer
                    .strip_prefix(place.pointer.as_str())
                    .is_some_and(|rest| rest.starts_with('/'));
            if inside {
                // The value's shape is no secret, and says what is wrong
                // with a value of the wrong shape.
                let shape = place
                    .expected
                    .filter(|_| finding.pointer == place.pointer)
                    .map_or(String::new(), |expected| {
                        format!(": {} where {expected} is expected", kind_of(place.value))
                    });
                finding.message = format!(
                    "{REDACTED} breaks `{}` here{shape} (a credential, or what may hold one, is never printed)",
                    finding.rule.id()
                );
                break;
            }
            let mut texts = vec![place.value.to_string()];
            // Short strings that are not secrets are left alone: replacing
            // every `u` of a message hides nothing and garbles it.
            let bare = place
                .value
                .as_str()
                .filter(|raw| !raw.is_empty() && (place.secret || raw.chars().count() >= 4));
            texts.extend(bare.map(str::to_string));
            for text in texts {
                if finding.message.contains(&text) {
                    finding.message = finding.message.replace(&text, REDACTED);
                }
            }
        }
    }
}

/// The strings of a JSON array, in order (anything else in it left out).
pub(crate) fn strings(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

#[cfg(all(test, feature = "embedded"))]
mod tests {
    use super::*;

    /// Every one-step mutation of generated messages, of every release
    /// compiled in, and every invalid fixture: the shortcut through tagged
    /// unions finds what the whole schema finds. `CHECK_SHORTCUT_VALUES`
    /// and `CHECK_SHORTCUT_SEED` draw more messages, or others.
    #[test]
    fn the_shortcut_finds_what_the_whole_schema_finds() {
        let number = |name: &str, default: u64| {
            std::env::var(name)
                .ok()
                .and_then(|text| text.parse().ok())
                .unwrap_or(default)
        };
        let (count, seed) = (
            number("CHECK_SHORTCUT_VALUES", 40),
            number("CHECK_SHORTCUT_SEED", 11),
        );
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance");
        let fixtures = fixtures::load_fixtures(&root, "invalid").unwrap();
        let (mut compared, mut failing) = (0, 0);
        for version in contract_versions() {
            let checker = Checker::embedded_contract(version).unwrap();
            let mut lines = Vec::new();
            generate::generate(
                &checker,
                "Envelope",
                usize::try_from(count).unwrap(),
                seed,
                &mut lines,
            )
            .unwrap();
            let mut values: Vec<(String, Value)> = fixtures
                .iter()
                .map(|fixture| (fixture.type_name.clone(), fixture.value.clone()))
                .collect();
            for line in String::from_utf8(lines).unwrap().lines() {
                let value: Value = serde_json::from_str(line).unwrap();
                let mutants = sample::one_step_mutations_wide(&value, &Default::default());
                values.extend(mutants.into_iter().map(|m| ("Envelope".to_string(), m)));
            }
            for (target, value) in &values {
                let (mut shortcut, mut whole) = (Vec::new(), Vec::new());
                // The shortcut alone, without the whole schema behind it
                // for when it finds nothing.
                let at = checker.location(target).unwrap();
                checker
                    .findings_at(at, value, "", target, 0, &mut shortcut)
                    .unwrap();
                if !checker.validator(target).unwrap().is_valid(value) {
                    checker
                        .whole_schema_errors(target, value, &mut whole)
                        .unwrap();
                    failing += 1;
                }
                shortcut.sort();
                whole.sort();
                assert_eq!(shortcut, whole, "{version} {target} {value}");
                compared += 1;
            }
        }
        eprintln!("{failing} of {compared} values failed the schema; the same findings both ways");
        // Enough of them fail the schema for the comparison to mean much.
        assert!(
            failing > 1000 && failing * 3 > compared,
            "{failing} of {compared}"
        );
    }
}
