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
mod frames;
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
    /// No type of that name: the name asked for, and the names there are.
    #[error("no type called {0:?}; known types: {1}")]
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
    validators: HashMap<String, OnceLock<Result<Validator, String>>>,
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
        let validators = locations
            .keys()
            .map(|name| (name.clone(), OnceLock::new()))
            .collect();
        let semantic: Vec<&str> = rules::SEMANTIC.iter().map(|(name, _, _)| *name).collect();
        let plan = Plan::compile(&set, &semantic);
        if let Some((file, pointer)) = plan.too_deep() {
            return Err(Error::TooDeep {
                place: format!("{}#{pointer}", set.origin.join(file).display()),
            });
        }
        Ok(Self {
            set,
            registry,
            locations,
            validators,
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

    /// Fails unless `name` is a type this checker knows.
    pub fn require_type(&self, name: &str) -> Result<(), Error> {
        if self.locations.contains_key(name) {
            self.validator(name).map(|_| ())
        } else {
            Err(Error::UnknownType(
                name.to_string(),
                self.type_names().join(", "),
            ))
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
            .ok_or_else(|| Error::UnknownType(name.to_string(), self.type_names().join(", ")))
    }

    /// The registry the schemas resolve in, for drawing values from them.
    pub(crate) fn registry(&self) -> &jsonschema::Registry<'static> {
        &self.registry
    }

    fn validator(&self, name: &str) -> Result<&Validator, Error> {
        let (Some(cell), Some(location)) = (self.validators.get(name), self.locations.get(name))
        else {
            return Err(Error::UnknownType(
                name.to_string(),
                self.type_names().join(", "),
            ));
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
        let validator = self.validator(target)?;
        if !validator.is_valid(value) {
            for error in validator.iter_errors(value) {
                self.schema_findings(&error, &mut out);
            }
        }
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
                        pointer,
                        rule: Rule::JsonInteger,
                        message: "an integer is written with a fraction or an exponent; the wire writes integers as integers".into(),
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

/// Whether any number in `value` was written with a fraction or an exponent.
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
    /// Turns one validator error into findings: a failed `oneOf` is reported
    /// by the errors of the branch the value's tag chose, and a failure inside
    /// a part of a schema marked `x-rule` is reported under that rule.
    fn schema_findings(&self, error: &ValidationError<'_>, out: &mut Vec<Finding>) {
        let pointer = error.instance_path().as_str().to_string();
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
                            self.schema_findings(inner, out);
                        }
                    }
                    Err(message) => out.push(Finding {
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
            message,
        });
    }

    /// The schema node an absolute keyword location points at.
    fn schema_at(&self, location: &str) -> Option<&Value> {
        let (id, pointer) = location.split_once('#')?;
        self.set.by_id(id)?.value.pointer(pointer)
    }

    /// Which branch of a tagged union the value names by its tag.
    fn branch_for(&self, branches: &[Value], instance: &Value) -> Result<usize, String> {
        let tag = branches
            .first()
            .and_then(|first| first.get("required"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|tag| {
                branches
                    .iter()
                    .all(|b| b.pointer(&format!("/properties/{tag}/const")).is_some())
            })
            .ok_or_else(|| "the value matches none of the schema's alternatives".to_string())?;
        let known: Vec<&str> = branches
            .iter()
            .filter_map(|b| {
                b.pointer(&format!("/properties/{tag}/const"))
                    .and_then(Value::as_str)
            })
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
        let Some(doc) = self.set.by_id(id) else {
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
                    let name = name.replace("~1", "/").replace("~0", "~");
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

fn kind_of(value: &Value) -> &'static str {
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
                finding.message = format!(
                    "{REDACTED} breaks `{}` here (a credential, or what may hold one, is never printed)",
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
