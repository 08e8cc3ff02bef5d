//! The two versions of a schema set, each as its writers write it and as
//! its readers read it, in one `jsonschema` registry.
//!
//! Four views of every document are registered under their own base URIs
//! (`https://old-written.compat.invalid/types/TaskId.json`, …), so the old and
//! the new version of a type are two resources and a comparison can hold
//! both. A reader's view is the document as a tolerant reader reads it (every
//! `additionalProperties: false` and `unevaluatedProperties: false` removed)
//! unless readers are strict. Every
//! question of where a `$ref` leads is put to the validator's own resolver
//! (the `referencing` crate); every question of whether a schema accepts a
//! value is put to the validator. Nothing here judges a value itself.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use contract::{DocKind, SchemaDoc, SchemaSet};
use jsonschema::{Draft, Registry, Validator};
use serde_json::{json, Value};

use crate::vocab::{self, Stop};
use crate::{Formats, Options, Readers};

/// Which version of the schema set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Version {
    /// The one compared from.
    Old,
    /// The one compared to.
    New,
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Version::Old => "old",
            Version::New => "new",
        })
    }
}

/// Whose reading of a document: as its writers write it, or as its readers read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Written,
    Read,
}

/// A document's index in a [`Space`] (and in the spaces derived from it).
pub type DocId = usize;

pub use crate::upgrade::Obstacle;

/// One view of one document.
#[derive(Clone, Debug)]
pub struct Doc {
    pub version: Version,
    pub role: Role,
    pub rel: String,
    pub kind: DocKind,
    pub name: String,
    /// The base URI it is registered under.
    pub uri: String,
    pub draft: Draft,
    pub obstacle: Option<Obstacle>,
    /// The document as written and its draft, where the view holds its
    /// 2020-12 rewrite: reports name places as the file spells them.
    pub written: Option<(Draft, Arc<Value>)>,
    /// The document as its file holds it, where the view's places are the
    /// file's (not rewritten, no copy with a schema put in, not a stand-in
    /// or set aside): reports show keywords as the file spells them.
    pub file: Option<Arc<Value>>,
    /// The validator's resolver refused the document, and the view holds
    /// `true` in its place (with an obstacle saying why).
    pub set_aside: bool,
    /// It refused it for a reference it cannot read at all (one that is no
    /// URI reference), not one leading nowhere: no validator can be built
    /// from the document, whatever files a lane holds beside it.
    pub unbuildable: bool,
}

/// A schema position: a document and a pointer into it, with the value there.
#[derive(Clone, Debug)]
pub struct Place<'s> {
    pub doc: DocId,
    pub pointer: String,
    pub value: &'s Value,
}

impl<'s> Place<'s> {
    /// The value under one more pointer token (an object key, or an array
    /// index), as a place.
    pub fn at(&self, token: &str) -> Option<Place<'s>> {
        let value = match self.value {
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            Value::Object(map) => map.get(token)?,
            _ => return None,
        };
        Some(Place {
            doc: self.doc,
            pointer: format!("{}/{}", self.pointer, contract::escape_pointer_token(token)),
            value,
        })
    }

    /// [`Place::at`] through a path of tokens.
    pub fn at_path(&self, tokens: &[&str]) -> Option<Place<'s>> {
        tokens
            .iter()
            .try_fold(self.clone(), |place, token| place.at(token))
    }
}

/// A place for the validator: `uri#pointer`, the pointer escaped for a fragment.
pub fn location(uri: &str, pointer: &str) -> String {
    let mut out = String::with_capacity(uri.len() + pointer.len() + 1);
    out.push_str(uri);
    out.push('#');
    for byte in pointer.bytes() {
        let plain = byte.is_ascii_alphanumeric()
            || matches!(
                byte,
                b'/' | b'-'
                    | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
            );
        if plain {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Why a `$ref` leads to no schema.
enum Unresolved<'s> {
    /// It names a place in a document the set does not hold.
    InMissing(&'s Obstacle),
    /// It names a pointer, array index or anchor its document does not have.
    Nowhere(String),
    /// The resolver refuses it for another reason.
    Other(String),
}

/// Documents, their registry, and answers cached per place.
pub struct Space<'b> {
    registry: Registry<'b>,
    docs: Vec<Doc>,
    /// The first id of this layer's documents (a derived space continues its parent's numbering).
    first: DocId,
    parent: Option<&'b Space<'b>>,
    /// Every schema position of this layer's documents, by the address of its value.
    places: HashMap<usize, (DocId, String)>,
    pub options: Options,
    validators: RefCell<HashMap<String, Option<Rc<Validator>>>>,
}

/// The namespace a view's documents are registered under.
fn namespace(version: Version, role: Role) -> &'static str {
    match (version, role) {
        (Version::Old, Role::Written) => "https://old-written.compat.invalid/",
        (Version::Old, Role::Read) => "https://old-read.compat.invalid/",
        (Version::New, Role::Written) => "https://new-written.compat.invalid/",
        (Version::New, Role::Read) => "https://new-read.compat.invalid/",
    }
}

/// A document's draft, from its `$schema` (2020-12 when it names none).
pub(crate) fn draft_of(value: &Value) -> Draft {
    match value.as_object() {
        Some(map) => vocab::draft_of(map, Draft::Draft202012),
        None => Draft::Draft202012,
    }
}

/// Where an object below the root of `document` (read in `draft`) has a
/// `$schema` that names another draft, or one the validator does not
/// know. Every object is looked at, schema or not: one a pointer names is
/// read as a schema wherever it stands.
fn other_draft_inside(document: &Value, draft: Draft) -> Option<String> {
    vocab::objects(document)
        .find(|(pointer, map)| {
            !pointer.is_empty()
                && map
                    .get("$schema")
                    .and_then(Value::as_str)
                    .is_some_and(|uri| Draft::from_schema_uri(uri) != draft)
        })
        .map(|(pointer, _)| pointer)
}

/// Where a schema of a `document` in draft 4, 6 or 7, registered at `uri`,
/// takes an identifier beside a `$ref`: those drafts ignore what stands
/// beside a reference, and the validator resolves references there against
/// the base around the schema, not against the identifier, which this
/// checker's resolver would take. At the root only an identifier that
/// moves the base counts (a relative one naming another place): the view
/// replaces any other by `uri`, where the validator reads the file too.
fn identifier_beside_reference(document: &Value, draft: Draft, uri: &str) -> Option<String> {
    if draft > Draft::Draft7 {
        return None;
    }
    let key = if draft == Draft::Draft4 { "id" } else { "$id" };
    let moves_the_root = |id: &Value| {
        let Some(id) = id.as_str().map(|id| id.split('#').next().unwrap_or(id)) else {
            return true;
        };
        if id.is_empty() || is_absolute(id) {
            return false;
        }
        referencing::Uri::parse(uri)
            .ok()
            .and_then(|place| referencing::uri::resolve_against(&place, id).ok())
            .is_none_or(|resolved| resolved.as_str() != uri)
    };
    vocab::positions(document, "", draft)
        .ok()?
        .into_iter()
        .map(|position| position.pointer)
        .find(|pointer| {
            let Some(map) = document.pointer(pointer).and_then(Value::as_object) else {
                return false;
            };
            match (map.get("$ref"), map.get(key)) {
                (Some(_), Some(id)) => !pointer.is_empty() || moves_the_root(id),
                _ => false,
            }
        })
        .map(|pointer| format!("{pointer}/{key}"))
}

/// Where an object below the root of `document` takes an `$id` (`id` in
/// draft 4) on json-schema.org: the validator resolves references inside
/// it against the meta-schema it holds at that URI (or panics looking for
/// an anchor there). The root's own identifier is replaced by the view's.
fn specification_id_inside(document: &Value) -> Option<String> {
    identifiers_inside(document)
        .find(|(_, id)| on_the_specifications_site(id))
        .map(|(pointer, _)| pointer)
}

/// Whether a URI reference is on json-schema.org itself (not on a host
/// whose name only ends so, as `test.json-schema.org`), where the
/// validator holds the meta-schemas.
fn on_the_specifications_site(uri: &str) -> bool {
    let uri = uri.to_ascii_lowercase();
    [
        "http://json-schema.org/",
        "https://json-schema.org/",
        "//json-schema.org/",
    ]
    .iter()
    .any(|site| uri.starts_with(site))
}

/// Each `$id` and `id` string of an object below the root of `document`,
/// schema or not (one a pointer names is read as a schema), with the
/// object's pointer.
fn identifiers_inside(document: &Value) -> impl Iterator<Item = (String, &str)> {
    vocab::objects(document)
        .filter(|(pointer, _)| !pointer.is_empty())
        .flat_map(|(pointer, map)| {
            ["$id", "id"]
                .into_iter()
                .filter_map(|key| map.get(key).and_then(Value::as_str))
                .map(move |id| (pointer.clone(), id))
        })
}

/// Where an object of a 2019-09 `document` holds a `$recursiveRef` other
/// than `"#"`: the specification defines the keyword for `"#"` only, and
/// the validator's reading of another value changes with a reference
/// elsewhere in the document to the schema around it (one from a member
/// no array has changed which arrays pass).
fn recursive_reference_elsewhere(document: &Value, draft: Draft) -> Option<String> {
    if draft != Draft::Draft201909 {
        return None;
    }
    vocab::objects(document)
        .find(|(_, map)| {
            map.get("$recursiveRef")
                .is_some_and(|reference| reference.as_str() != Some("#"))
        })
        .map(|(pointer, _)| format!("{pointer}/$recursiveRef"))
}

/// The resources `document`, registered at `uri`, makes for the validator:
/// its own URI and root identifier, and each identifier (`id` in draft 4) a
/// schema below the root takes, resolved, fragment aside; each with the
/// pointer of the schema that takes it (`""` for the root). Data (an `enum`
/// value) registers nothing. `None` for a document too large to walk, left
/// to the obstacle that says so.
fn resources(document: &Value, draft: Draft, uri: &str) -> Option<Vec<(String, String)>> {
    let bases = with_bases(document, draft, uri, |map| {
        ["$id", "id"]
            .iter()
            .find_map(|key| map.get(*key).and_then(Value::as_str))
            .filter(|id| !id.starts_with('#'))
    })?;
    let root = jsonschema::uri::from_str(uri).ok()?;
    let mut found = vec![(String::new(), root.as_str().to_string())];
    for schema in bases.schemas.into_iter().filter(|schema| schema.identified) {
        let resource = schema.base.as_str().split('#').next().unwrap_or_default();
        found.push((schema.pointer, resource.to_string()));
    }
    Some(found)
}

/// What [`with_bases`] met.
struct Bases<'d> {
    schemas: Vec<Based<'d>>,
    /// The first identifier that resolves against no base: how many
    /// schema objects were met before it, and its place.
    unresolved: Option<(usize, String)>,
}

/// A schema object met by [`with_bases`].
struct Based<'d> {
    pointer: String,
    schema: &'d serde_json::Map<String, Value>,
    /// The base inside it: its own identifier resolved, or the one around.
    base: referencing::Uri<String>,
    /// Whether it takes an identifier of its own.
    identified: bool,
}

/// Every schema object of `document`, read at `uri`, with the base inside
/// it: the identifier `own` finds in each resolved against the base around
/// (the document's place for the root). Where one resolves against no
/// base, nothing below it.
fn with_bases<'d>(
    document: &'d Value,
    draft: Draft,
    uri: &str,
    own: impl Fn(&serde_json::Map<String, Value>) -> Option<&str>,
) -> Option<Bases<'d>> {
    let schemas: HashSet<String> = vocab::positions(document, "", draft)
        .ok()?
        .into_iter()
        .map(|position| position.pointer)
        .collect();
    let mut found = Vec::new();
    let mut unresolved = None;
    let mut stack = vec![(
        String::new(),
        document,
        jsonschema::uri::from_str(uri).ok()?,
    )];
    while let Some((pointer, value, base)) = stack.pop() {
        let mut base = base;
        match value {
            Value::Object(map) => {
                if schemas.contains(&pointer) {
                    let id = own(map);
                    if let Some(id) = id {
                        match referencing::uri::resolve_against(&base.borrow(), id) {
                            Ok(resolved) => base = resolved,
                            Err(_) => {
                                unresolved.get_or_insert((found.len(), pointer));
                                continue;
                            }
                        }
                    }
                    found.push(Based {
                        pointer: pointer.clone(),
                        schema: map,
                        base: base.clone(),
                        identified: id.is_some(),
                    });
                }
                for (key, child) in map {
                    let token = contract::escape_pointer_token(key);
                    stack.push((format!("{pointer}/{token}"), child, base.clone()));
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    stack.push((format!("{pointer}/{index}"), child, base.clone()));
                }
            }
            _ => {}
        }
    }
    Some(Bases {
        schemas: found,
        unresolved,
    })
}

/// The first schema below the root of `document` that takes an
/// identifier another schema of it already has, the root's own included
/// (each resolved against `uri` and the identifiers around it).
fn identifier_taken_twice(document: &Value, draft: Draft, uri: &str) -> Option<String> {
    let mut seen = HashSet::new();
    resources(document, draft, uri)?
        .into_iter()
        .find_map(|(pointer, resource)| {
            (!seen.insert(resource) && !pointer.is_empty()).then_some(pointer)
        })
}

/// The keyword and place of the first identifier or reference of
/// `document`, read at `uri` (its own identifier resolved there, as a
/// validator reading the file there resolves it), that resolves against no
/// base: the validator refuses such a document whole, while the checker's
/// views, which move every identifier into their own namespace, would
/// resolve it.
fn unresolvable(document: &Value, draft: Draft, uri: &str) -> Option<(&'static str, String)> {
    let id_key = if draft == Draft::Draft4 { "id" } else { "$id" };
    let Bases {
        schemas,
        unresolved,
    } = with_bases(document, draft, uri, |map| {
        map.get(id_key).and_then(Value::as_str)
    })?;
    let place = jsonschema::uri::from_str(uri).ok()?;
    // A reference that is no URI reference at all is left to the registry,
    // which names it where it stands; one that only its base cannot take is
    // the base's doing.
    let reference = schemas.into_iter().enumerate().find_map(|(met, schema)| {
        let reference = schema.schema.get("$ref").and_then(Value::as_str)?;
        let refused = referencing::uri::resolve_against(&schema.base.borrow(), reference).is_err()
            && referencing::uri::resolve_against(&place.borrow(), reference).is_ok();
        refused.then_some((met, schema.pointer))
    });
    // Whichever the walk met first.
    match (unresolved, reference) {
        (Some((at, pointer)), Some((met, _))) if at <= met => Some((id_key, pointer)),
        (_, Some((_, pointer))) => Some(("$ref", pointer)),
        (Some((_, pointer)), None) => Some((id_key, pointer)),
        (None, None) => None,
    }
}

/// An obstacle on each document of a view (a version as written or as
/// read) where a schema takes an identifier (`$id`, `id` in draft 4) that
/// resolves, fragment aside, to a resource already made: by the root or
/// another schema of the document, or by another document of the same view
/// (a file whose `$id` is the identifier a schema inside another file
/// takes). The validator reads one of the two wherever a reference names
/// it (an anchor looked up in the other made it panic), which no comparison
/// can follow.
fn shared_identifiers(docs: &mut [Doc], values: &[Value]) {
    let mut owners: HashMap<(Version, Role, String), Vec<(usize, String)>> = HashMap::new();
    let mut inside = Vec::new();
    for (index, (doc, value)) in docs.iter().zip(values).enumerate() {
        let mut own = HashSet::new();
        for (pointer, resource) in resources(value, doc.draft, &doc.uri).unwrap_or_default() {
            if own.insert(resource.clone()) {
                owners
                    .entry((doc.version, doc.role, resource))
                    .or_default()
                    .push((index, pointer));
            }
        }
        if let Some(pointer) = identifier_taken_twice(value, doc.draft, &doc.uri) {
            inside.push((index, pointer));
        }
    }
    for (index, pointer) in inside {
        if let Some(doc) = docs.get_mut(index) {
            doc.obstacle.get_or_insert(Obstacle {
                keyword: "$id".into(),
                pointer,
                why: "a schema inside the document takes an identifier another schema of it \
                      already has: the validator reads one of the two there, or fails"
                    .into(),
            });
        }
    }
    for takers in owners.into_values().filter(|takers| takers.len() > 1) {
        for (index, pointer) in takers {
            if let Some(doc) = docs.get_mut(index) {
                doc.obstacle.get_or_insert(Obstacle {
                    keyword: "$id".into(),
                    pointer,
                    why: "another document of the set makes a resource of the same \
                          identifier: the validator reads one of the two wherever a \
                          reference names it, or fails"
                        .into(),
                });
            }
        }
    }
}

/// The same as [`shared_identifiers`], for the files as written, each read
/// at its place in the set: the views give each document its own place,
/// which hides a root `$id` naming another file's (`DefB.json` saying it is
/// `/types/DefC.json`), where the validator reads one of the two, or
/// panics compiling them.
fn identifiers_shared_as_written(docs: &mut [Doc], sets: [&SchemaSet; 2]) {
    for (version, set) in [Version::Old, Version::New].into_iter().zip(sets) {
        let mut owners: HashMap<String, Vec<(&str, String)>> = HashMap::new();
        for file in &set.docs {
            let place = format!("{}{}", contract::ID_BASE, file.rel);
            let found = resources(&file.value, draft_of(&file.value), &place);
            let mut own = HashSet::new();
            for (pointer, resource) in found.unwrap_or_default() {
                if own.insert(resource.clone()) {
                    owners
                        .entry(resource)
                        .or_default()
                        .push((file.rel.as_str(), pointer));
                }
            }
        }
        let mut shared = None;
        for takers in owners.into_values().filter(|takers| takers.len() > 1) {
            for (rel, pointer) in &takers {
                for doc in docs
                    .iter_mut()
                    .filter(|d| d.version == version && d.rel == *rel)
                {
                    doc.obstacle.get_or_insert_with(|| Obstacle {
                        keyword: "$id".into(),
                        pointer: pointer.clone(),
                        why: "as written, another file of the set makes a resource of the \
                              same identifier: the validator reads one of the two wherever a \
                              reference names it, or fails"
                            .into(),
                    });
                }
            }
            shared.get_or_insert(takers);
        }
        // The validator compiles a file with the set's resources, so one
        // that shares nothing may still lead it to the shared identifier
        // (and it panicked there): no file of the set is read as written.
        let Some(takers) = shared else {
            continue;
        };
        let named: Vec<String> = takers
            .iter()
            .map(|(rel, pointer)| format!("{}#{pointer}", crate::file_shown(rel)))
            .collect();
        let why = format!(
            "as written, two files of the set make a resource of one identifier ({}): \
             the validator compiles every file with them, and reads one of the two \
             wherever a reference names it, or fails",
            contract::plain(&named.join(" and "))
        );
        for doc in docs.iter_mut().filter(|d| d.version == version) {
            doc.obstacle.get_or_insert_with(|| Obstacle {
                keyword: "$id".into(),
                pointer: String::new(),
                why: why.clone(),
            });
        }
    }
}

/// The first `pattern` or `patternProperties` name the validator cannot
/// compile, and why: the meta-schema's `format: regex` is not asserted, and
/// a validator refuses such a schema (each in its own words), so no verdict
/// means anything about it. A document too large to walk is left to the
/// obstacle that says so.
fn uncompiled_pattern(document: &Value) -> Option<(String, String)> {
    let positions = crate::vocab::positions(document, "", draft_of(document)).ok()?;
    positions.iter().find_map(|position| {
        let here = position.value.as_object()?;
        let pattern = here
            .get("pattern")
            .and_then(Value::as_str)
            .and_then(|pattern| {
                let probe = serde_json::json!({ "pattern": pattern });
                jsonschema::validator_for(&probe)
                    .err()
                    .map(|err| (format!("{}/pattern", position.pointer), err.to_string()))
            });
        pattern.or_else(|| {
            here.get("patternProperties")
                .and_then(Value::as_object)?
                .keys()
                .find_map(|name| {
                    let probe = serde_json::json!({ "patternProperties": { name: {} } });
                    jsonschema::validator_for(&probe).err().map(|err| {
                        let token = contract::escape_pointer_token(name);
                        (
                            format!("{}/patternProperties/{token}", position.pointer),
                            err.to_string(),
                        )
                    })
                })
        })
    })
}

impl Space<'static> {
    /// Both versions, both views of each. Every document must be a schema
    /// its draft's meta-schema accepts.
    pub fn new(old: &SchemaSet, new: &SchemaSet, options: Options) -> Result<Self, crate::Error> {
        let sides = old.docs.iter().map(|doc| (Version::Old, doc));
        let sides = sides.chain(new.docs.iter().map(|doc| (Version::New, doc)));
        for (version, doc) in sides.filter(|(_, d)| d.too_deep.is_none()) {
            if draft_of(&doc.value) == Draft::Unknown {
                continue; // an obstacle says so where it matters
            }
            if let Err(err) = jsonschema::meta::validate(&doc.value) {
                return Err(crate::Error::NotASchema {
                    version,
                    file: crate::file_shown(&doc.rel).to_string(),
                    pointer: err.instance_path().to_string(),
                    why: contract::plain(&err.to_string()),
                });
            }
            if let Some((pointer, why)) = uncompiled_pattern(&doc.value) {
                return Err(crate::Error::NotASchema {
                    version,
                    file: crate::file_shown(&doc.rel).to_string(),
                    pointer,
                    why: contract::plain(&why),
                });
            }
        }
        let upgrade = upgraded(old, new);
        let mut space = Space::views(old, new, options, upgrade)?;
        if upgrade {
            space.refused_as_written(old, new, options);
        }
        space.dangling_reference([old, new])?;
        Ok(space)
    }

    /// The validator built from the places of `doc` (whose root holds
    /// `root`) a comparison starts from: its root and each entry of its
    /// `$defs` or `definitions`.
    /// `None` when the validator panics on the way (a resolver it builds
    /// for the document may not hold what it expects, as when two files
    /// take one identifier): then what it reads there is not known.
    fn compiled_from_its_starts(
        &self,
        doc: &Doc,
        root: &Value,
    ) -> Option<Result<Validator, jsonschema::ValidationError<'static>>> {
        let mut starts = vec![json!({ "$ref": doc.uri })];
        for key in ["$defs", "definitions"] {
            let Some(defs) = root.get(key).and_then(Value::as_object) else {
                continue;
            };
            starts.extend(defs.keys().map(|name| {
                let pointer = format!("/{key}/{}", contract::escape_pointer_token(name));
                json!({ "$ref": location(&doc.uri, &pointer) })
            }));
        }
        let starts = json!({ "allOf": starts });
        unless_it_panics(|| {
            Some(
                jsonschema::options()
                    .with_registry(&self.registry)
                    .build(&starts),
            )
        })
    }

    /// An obstacle on each document the views hold rewritten in 2020-12
    /// whose file the validator refuses to compile in its own draft, from
    /// where a comparison starts, for another reason than a reference that
    /// leads nowhere (which [`Space::dangling_reference`] tells): the
    /// rewrite may not share it. Draft 4 refuses a length written `5.0`,
    /// which 2020-12 reads as 5, and its meta-schema, which the document
    /// passed, does not look below `$defs`, where a reference may lead.
    fn refused_as_written(&mut self, old: &SchemaSet, new: &SchemaSet, options: Options) {
        let Ok(originals) = Space::views(old, new, options, false) else {
            return;
        };
        for (offset, doc) in originals.docs.iter().enumerate() {
            if doc.role != Role::Written {
                continue;
            }
            // The resolver refused the file as written, for good: a
            // reference that is no URI, under a keyword its draft does not
            // read (draft 4's `then`), which the validator parses and the
            // rewrite leaves out. Its obstacle stands in the views too. (A
            // reference there leading nowhere is no evidence: see
            // `leads_nowhere`.)
            if let (true, Some(obstacle)) = (doc.unbuildable, &doc.obstacle) {
                for view in self
                    .docs
                    .iter_mut()
                    .filter(|d| d.version == doc.version && d.rel == doc.rel && d.written.is_some())
                {
                    view.obstacle.get_or_insert_with(|| obstacle.clone());
                }
                continue;
            }
            if doc.obstacle.is_some() {
                continue;
            }
            let Some(root) = originals.place(originals.first + offset, "") else {
                continue;
            };
            let refused = match originals.compiled_from_its_starts(doc, root.value) {
                Some(Ok(_)) => continue,
                Some(Err(refused)) => refused,
                None => {
                    let why = "the validator fails while it compiles the file as \
                               written, in its own draft, so what it reads there \
                               is not known"
                        .to_string();
                    for view in self.docs.iter_mut().filter(|d| {
                        d.version == doc.version && d.rel == doc.rel && d.written.is_some()
                    }) {
                        view.obstacle.get_or_insert(Obstacle {
                            keyword: "schema".into(),
                            pointer: String::new(),
                            why: why.clone(),
                        });
                    }
                    continue;
                }
            };
            if matches!(
                refused.kind(),
                jsonschema::error::ValidationErrorKind::Referencing(_)
            ) {
                continue;
            }
            let at = refused.instance_path().to_string();
            // The refused place may be in another document a reference
            // led to: the obstacle goes on the one that holds it (found by
            // the value there), or on this one, whole, when none does.
            let holds = |d: &Doc, id: DocId| {
                d.version == doc.version
                    && d.role == Role::Written
                    && originals.place(id, "").and_then(|r| r.value.pointer(&at))
                        == Some(&**refused.instance())
            };
            let holder = std::iter::once(offset)
                .chain(0..originals.docs.len())
                .find(|&other| {
                    originals
                        .docs
                        .get(other)
                        .is_some_and(|d| holds(d, originals.first + other))
                });
            let (rel, pointer, keyword) = match (holder, at.rsplit_once('/')) {
                (Some(other), Some((pointer, keyword))) => (
                    originals.docs.get(other).map_or(&doc.rel, |d| &d.rel),
                    pointer,
                    contract::unescape_pointer_token(keyword),
                ),
                _ => (&doc.rel, "", "schema".to_string()),
            };
            let why = format!(
                "the validator refuses to compile the file in its own draft here ({}), \
                 where the rewrite in 2020-12 a change of draft calls for would read it",
                spelled_in(&contract::plain(&refused.to_string()))
            );
            for view in self
                .docs
                .iter_mut()
                .filter(|d| d.version == doc.version && &d.rel == rel && d.written.is_some())
            {
                view.obstacle.get_or_insert(Obstacle {
                    keyword: keyword.clone(),
                    pointer: pointer.to_string(),
                    why: why.clone(),
                });
            }
        }
    }

    /// The views of both versions with every document as written, in its own
    /// draft, for the search: `None` unless [`Space::new`] rewrote some in
    /// 2020-12 (then a value's fate is asked of these too, so a rewrite that
    /// changed a meaning shows) and the search is on, or when they cannot be
    /// registered, or the resolver refused one of the documents.
    pub fn originals(old: &SchemaSet, new: &SchemaSet, options: Options) -> Option<Self> {
        if options.search == 0 || !upgraded(old, new) {
            return None;
        }
        // A document the resolver refused is `true` here, which accepts
        // what the document refuses: no evidence against a verdict (the
        // rewrite may read it, where what the resolver stumbled on is
        // something its draft ignores, like a `$ref` under draft 4's `if`).
        Space::views(old, new, options, false)
            .ok()
            .filter(|space| !space.docs.iter().any(|doc| doc.set_aside))
    }

    fn views(
        old: &SchemaSet,
        new: &SchemaSet,
        options: Options,
        upgrade: bool,
    ) -> Result<Self, crate::Error> {
        let mut docs = Vec::new();
        let mut values = Vec::new();
        for (version, set) in [(Version::Old, old), (Version::New, new)] {
            // The pointers the set's references name after an address, any
            // of which may lead into a document the rewrite reads.
            let named = if upgrade {
                crate::upgrade::named_pointers(set.docs.iter().map(|doc| &doc.value))
            } else {
                Vec::new()
            };
            let files: Vec<Arc<Value>> = set
                .docs
                .iter()
                .map(|doc| Arc::new(doc.value.clone()))
                .collect();
            for role in [Role::Written, Role::Read] {
                for (doc, file) in set.docs.iter().zip(&files) {
                    let (info, value) =
                        prepare(set, (doc, file), version, role, options, (upgrade, &named));
                    docs.push(info);
                    values.push(value);
                }
            }
        }
        shared_identifiers(&mut docs, &values);
        identifiers_shared_as_written(&mut docs, [old, new]);
        let registry = register(None, &mut docs, values)?;
        Ok(Space::layer(registry, docs, 0, None, options))
    }

    /// [`crate::Error::Unresolved`] for a `$ref` (or `$dynamicRef`) of a document of either
    /// version that names a place its document does not have, where the
    /// validator refuses to compile the document (its root and its `$defs`
    /// or `definitions`, the places a comparison starts from) for that reason. One that no
    /// validation reaches, like a reference to a document the set does not
    /// hold, is left to the obstacle it makes wherever it is reached.
    fn dangling_reference(&self, [old, new]: [&SchemaSet; 2]) -> Result<(), crate::Error> {
        for (offset, doc) in self.docs.iter().enumerate() {
            if doc.role != Role::Written || doc.obstacle.is_some() {
                continue;
            }
            let id = self.first + offset;
            let Some(root) = self.place(id, "") else {
                continue;
            };
            let Ok(positions) = vocab::positions(root.value, "", doc.draft) else {
                continue;
            };
            // Cheap first: only a document with such a reference is put to
            // the validator.
            let keys = ["$ref", "$dynamicRef"]
                .into_iter()
                .filter(|key| !vocab::handling(doc.draft, key).constrains_nothing());
            let nowhere: Vec<(String, &str, String)> = keys
                .flat_map(|key| positions.iter().map(move |position| (key, position)))
                .filter_map(|(key, position)| {
                    let reference = position.value.get(key)?.as_str()?;
                    let here = Place {
                        doc: id,
                        pointer: position.pointer.clone(),
                        value: position.value,
                    };
                    let why = self.leads_nowhere(&here, reference)?;
                    Some((format!("{}/{key}", position.pointer), reference, why))
                })
                .collect();
            if nowhere.is_empty() {
                continue;
            }
            let Some(Err(refused)) = self.compiled_from_its_starts(doc, root.value) else {
                continue;
            };
            let refused = refused.to_string();
            let Some((pointer, reference, why)) = nowhere
                .into_iter()
                .find(|(_, _, why)| refused.contains(why.as_str()))
            else {
                continue;
            };
            // Quoted as the file writes it, not as the view renamed it.
            let set = if doc.version == Version::Old {
                old
            } else {
                new
            };
            let written = set
                .docs
                .iter()
                .find(|d| d.rel == doc.rel)
                .and_then(|d| d.value.pointer(&pointer))
                .and_then(Value::as_str)
                .unwrap_or(reference);
            return Err(crate::Error::Unresolved {
                version: doc.version,
                file: crate::file_shown(&doc.rel).to_string(),
                pointer,
                why: format!(
                    "the reference {} leads nowhere: {why}",
                    contract::quoted(written)
                ),
            });
        }
        Ok(())
    }
}

/// Whether a document's draft differs between the versions: then both are
/// read in 2020-12, so the two can be compared at all.
fn upgraded(old: &SchemaSet, new: &SchemaSet) -> bool {
    old.docs.iter().any(|o| {
        new.docs
            .iter()
            .find(|n| n.rel == o.rel)
            .is_some_and(|n| draft_of(&n.value) != draft_of(&o.value))
    })
}

/// A registry of `values` under their documents' URIs (layered on `base`).
/// A document a reference names and the set does not hold is registered as
/// `true` with an obstacle, so every place that reaches it cannot be
/// decided; a document the resolver refuses for another reason is
/// registered as `true`, with an obstacle saying why, so the rest can
/// still be compared.
fn register<'b>(
    base: Option<&'b Registry<'b>>,
    docs: &mut Vec<Doc>,
    mut values: Vec<Value>,
) -> Result<Registry<'b>, crate::Error> {
    let start = |pairs: Vec<(String, Value)>| match base {
        Some(registry) => registry.extend(pairs),
        None => Registry::new().extend(pairs),
    };
    // Each round names one missing document or sets one aside, so two
    // rounds per document of the set and one more are enough.
    for _ in 0..=2 * docs.len() {
        let pairs: Vec<(String, Value)> = docs
            .iter()
            .map(|d| d.uri.clone())
            .zip(values.iter().cloned())
            .collect();
        match start(pairs).and_then(|b| b.prepare()) {
            Ok(registry) => return Ok(registry),
            Err(jsonschema::ReferencingError::Unretrievable { uri, .. }) => {
                match missing(&uri, docs) {
                    Some(doc) => {
                        docs.push(doc);
                        values.push(Value::Bool(true));
                    }
                    None => break,
                }
            }
            // A reference the resolver cannot read (not a URI reference, a
            // bad percent-encoding) refuses the whole registry: the
            // documents holding the one it names stand aside, each as `true`
            // with an obstacle at that reference, and the rest go on.
            Err(err) => {
                let said = err.to_string();
                let unbuildable = !leads_nowhere(&err);
                let mut set_aside = false;
                for (doc, value) in docs.iter_mut().zip(values.iter_mut()) {
                    if doc.obstacle.is_some() {
                        continue;
                    }
                    if let Some((pointer, reference)) = reference_named(value, doc.draft, &said) {
                        let said = said.replace(reference, &spelled(reference));
                        doc.obstacle = Some(Obstacle {
                            keyword: "$ref".into(),
                            pointer,
                            why: format!("the validator's resolver refuses this reference: {said}"),
                        });
                        *value = Value::Bool(true);
                        doc.file = None;
                        doc.set_aside = true;
                        doc.unbuildable = unbuildable;
                        set_aside = true;
                    }
                }
                if !set_aside {
                    break;
                }
            }
        }
    }
    let mut pairs = Vec::with_capacity(docs.len());
    for (doc, value) in docs.iter_mut().zip(values) {
        let alone = start(vec![(doc.uri.clone(), value.clone())]).and_then(|b| b.prepare());
        match alone {
            Ok(_) => pairs.push((doc.uri.clone(), value)),
            Err(err) => {
                doc.obstacle.get_or_insert(Obstacle {
                    keyword: "$id".into(),
                    pointer: String::new(),
                    why: format!("the validator's resolver refuses the document: {err}"),
                });
                doc.file = None;
                doc.set_aside = true;
                doc.unbuildable = !leads_nowhere(&err);
                pairs.push((doc.uri.clone(), Value::Bool(true)));
            }
        }
    }
    start(pairs)
        .and_then(|b| b.prepare())
        .map_err(|err| crate::Error::Registry(err.to_string()))
}

/// Whether the resolver refused for a reference leading nowhere (a file not
/// in the set, a place its document lacks) rather than for one it cannot
/// read at all: the compared files may not be all a lane holds, so the
/// first is no evidence against a verdict; the second is.
fn leads_nowhere(err: &jsonschema::ReferencingError) -> bool {
    use jsonschema::ReferencingError as Refused;
    matches!(
        err,
        Refused::Unretrievable { .. }
            | Refused::PointerToNowhere { .. }
            | Refused::NoSuchAnchor { .. }
            | Refused::InvalidArrayIndex { .. }
    )
}

/// Where in a view [`rename`] moves an absolute URI from outside the set:
/// `https://host/x` becomes `OUTSIDE` + `https/host/x`, `urn:x` stays whole.
const OUTSIDE: &str = "~abs/";

/// A URI of a view as the set spells it: a file's path inside the set, or
/// an outside URI as written (see [`OUTSIDE`]); any other text as it is.
fn spelled(uri: &str) -> String {
    let Some(rest) = [Version::Old, Version::New]
        .into_iter()
        .flat_map(|version| [Role::Written, Role::Read].map(|role| namespace(version, role)))
        .find_map(|namespace| uri.strip_prefix(namespace))
    else {
        return uri.to_string();
    };
    match rest.strip_prefix(OUTSIDE) {
        Some(outside) => match outside.split_once('/') {
            Some((scheme, path)) if !scheme.contains(':') => format!("{scheme}://{path}"),
            _ => outside.to_string(),
        },
        None => rest.to_string(),
    }
}

/// `text` (a validator's words, which may quote a schema of a view: `not`
/// says "{schema} is not allowed for {value}") with each URI of a view
/// spelled as the set spells it.
fn spelled_in(text: &str) -> String {
    const MARK: &str = ".compat.invalid/";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(mark) = rest.find(MARK) {
        let (before, from_mark) = rest.split_at(mark);
        let start = before.rfind("https://").unwrap_or(before.len());
        let (kept, scheme) = before.split_at(start);
        let end = from_mark
            .find(|c: char| c.is_whitespace() || "\"'),]}".contains(c))
            .unwrap_or(from_mark.len());
        let (tail, after) = from_mark.split_at(end);
        out.push_str(kept);
        out.push_str(&spelled(&format!("{scheme}{tail}")));
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `value` (part of a registered view) with every URI [`rename`] moved into
/// a view spelled as the set spells it, for reports. Walked with a stack of
/// its own: a value's nesting is the document's.
fn as_written(value: &Value) -> Value {
    let mut out = value.clone();
    let mut stack = vec![&mut out];
    while let Some(here) = stack.pop() {
        match here {
            Value::String(text) if text.contains(".compat.invalid/") => *text = spelled(text),
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
    out
}

/// The JSON pointer of the first `$ref` among the schemas of `value` (a
/// document of `draft`) whose text `said` (a resolver's error) quotes, and
/// the reference.
fn reference_named<'v>(value: &'v Value, draft: Draft, said: &str) -> Option<(String, &'v str)> {
    vocab::positions(value, "", draft)
        .ok()?
        .into_iter()
        .find_map(|position| {
            let reference = position.value.get("$ref")?.as_str()?;
            said.contains(&format!("'{reference}'"))
                .then_some((position.pointer, reference))
        })
}

/// A stand-in for a document of a view that a reference names and the set
/// does not hold: wherever it is reached, nothing can be decided. `None`
/// for a URI outside the views, or one already standing in.
fn missing(uri: &str, docs: &[Doc]) -> Option<Doc> {
    let uri = uri.split('#').next().unwrap_or(uri);
    if docs.iter().any(|d| d.uri == uri) {
        return None;
    }
    let (version, role, rel) = [Version::Old, Version::New]
        .into_iter()
        .flat_map(|version| [Role::Written, Role::Read].map(|role| (version, role)))
        .find_map(|(version, role)| {
            let rel = uri.strip_prefix(namespace(version, role))?;
            Some((version, role, rel))
        })?;
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let why = match rel.strip_prefix(OUTSIDE) {
        // An absolute reference outside the set ([`rename`] moved it here).
        Some(_) => format!(
            "a reference names {}, which is not among the schemas compared (nothing is fetched)",
            spelled(uri)
        ),
        None => format!(
            "a reference names {rel}, which the {} version does not have",
            match version {
                Version::Old => "old",
                Version::New => "new",
            }
        ),
    };
    Some(Doc {
        version,
        role,
        // Reports name it as the set spells it, not by its place in a view.
        rel: spelled(uri),
        kind: DocKind::Type,
        name: name.strip_suffix(".json").unwrap_or(name).to_string(),
        uri: uri.to_string(),
        draft: Draft::Draft202012,
        obstacle: Some(Obstacle {
            keyword: "$ref".into(),
            pointer: String::new(),
            why,
        }),
        written: None,
        file: None,
        set_aside: false,
        unbuildable: false,
    })
}

impl<'b> Space<'b> {
    fn layer(
        registry: Registry<'b>,
        mut docs: Vec<Doc>,
        first: DocId,
        parent: Option<&'b Space<'b>>,
        options: Options,
    ) -> Self {
        let mut places = HashMap::new();
        for (offset, doc) in docs.iter_mut().enumerate() {
            let id = first + offset;
            let Some(root) = lookup(&registry, &doc.uri, "") else {
                doc.obstacle.get_or_insert(Obstacle {
                    keyword: "$id".into(),
                    pointer: String::new(),
                    why: "the document cannot be found under its own URI".into(),
                });
                continue;
            };
            match vocab::positions(root, "", doc.draft) {
                Ok(positions) => {
                    for position in positions {
                        places.insert(address(position.value), (id, position.pointer));
                    }
                }
                Err(stop) => {
                    let (keyword, pointer, why) = match stop {
                        Stop::Nesting(pointer) => (
                            "nesting",
                            pointer,
                            format!(
                                "schemas nest more than {} levels deep here",
                                vocab::MAX_NESTING
                            ),
                        ),
                        Stop::Size => (
                            "size",
                            String::new(),
                            format!(
                                "the document holds more than {} schemas",
                                vocab::MAX_POSITIONS
                            ),
                        ),
                    };
                    doc.obstacle.get_or_insert(Obstacle {
                        keyword: keyword.into(),
                        pointer,
                        why,
                    });
                }
            }
        }
        Space {
            registry,
            docs,
            first,
            parent,
            places,
            options,
            validators: RefCell::new(HashMap::new()),
        }
    }

    /// The document with this id.
    pub fn doc(&self, id: DocId) -> Option<&Doc> {
        match id.checked_sub(self.first) {
            Some(offset) => self.docs.get(offset),
            None => self.parent.and_then(|p| p.doc(id)),
        }
    }

    /// The view of the document at `rel`.
    pub fn find(&self, version: Version, role: Role, rel: &str) -> Option<DocId> {
        let own = self
            .docs
            .iter()
            .position(|d| d.version == version && d.role == role && d.rel == rel)
            .map(|offset| self.first + offset);
        own.or_else(|| self.parent.and_then(|p| p.find(version, role, rel)))
    }

    /// The place at `pointer` in a document.
    pub fn place(&self, doc: DocId, pointer: &str) -> Option<Place<'_>> {
        let uri = &self.doc(doc)?.uri;
        let value = lookup(&self.registry, uri, pointer)?;
        Some(Place {
            doc,
            pointer: pointer.to_string(),
            value,
        })
    }

    /// Where a value registered here stands.
    fn locate(&self, value: &Value) -> Option<(DocId, String)> {
        match self.places.get(&address(value)) {
            Some(found) => Some(found.clone()),
            None => self.parent.and_then(|p| p.locate(value)),
        }
    }

    /// The place a `$ref` at `place` leads to, resolved by the validator's resolver.
    pub fn resolve(&self, place: &Place<'_>, reference: &str) -> Result<Place<'_>, String> {
        // An obstacle may be that the document's references lead elsewhere
        // for the validator than for this resolver (an identifier beside a
        // reference in draft 7): none is followed out of it, so that no
        // proof, equality neither, stands on where one leads.
        if let Some(obstacle) = self.doc(place.doc).and_then(|doc| doc.obstacle.as_ref()) {
            return Err(obstacle.why.clone());
        }
        match self.lookup_reference(place, reference) {
            Ok(target) => Ok(target),
            Err(Unresolved::InMissing(obstacle)) => Err(obstacle.why.clone()),
            Err(Unresolved::Nowhere(why) | Unresolved::Other(why)) => Err(why),
        }
    }

    /// Whether references at `place` resolve against another base than its
    /// document's own: it lies in a resource embedded by an `$id` (its own
    /// or an enclosing one). `true` where that cannot be told.
    pub fn based_elsewhere(&self, place: &Place<'_>) -> bool {
        let Some(doc) = self.doc(place.doc) else {
            return true;
        };
        let Ok(base) = jsonschema::uri::from_str(&doc.uri) else {
            return true;
        };
        let resolver = self.registry.resolver(base.clone());
        match resolver.lookup(&location("", &place.pointer)) {
            Ok(here) => here.resolver().base_uri().as_str() != base.as_str(),
            Err(_) => true,
        }
    }

    /// Why `reference` at `place` names a place its document does not have
    /// (no such pointer, array index or anchor), in the resolver's own words;
    /// `None` when it leads somewhere, fails for another reason, or names a
    /// document the set does not hold (an obstacle says so where it matters).
    fn leads_nowhere(&self, place: &Place<'_>, reference: &str) -> Option<String> {
        match self.lookup_reference(place, reference) {
            Err(Unresolved::Nowhere(why)) => Some(why),
            _ => None,
        }
    }

    fn lookup_reference(
        &self,
        place: &Place<'_>,
        reference: &str,
    ) -> Result<Place<'_>, Unresolved<'_>> {
        // The resolver's words name the views' URIs: told as the set spells them.
        let other = |err: &dyn std::fmt::Display| Unresolved::Other(spelled_in(&err.to_string()));
        // The validator skips an empty reference (it would be the enclosing
        // resource): no place stands for what it reads there.
        if reference.is_empty() {
            return Err(other(
                &"an empty reference, which the validator skips where RFC 3986 reads it \
                  as the enclosing resource",
            ));
        }
        let doc = self
            .doc(place.doc)
            .ok_or_else(|| other(&"no such document"))?;
        let base = jsonschema::uri::from_str(&doc.uri).map_err(|e| other(&e))?;
        let resolver = self.registry.resolver(base);
        let here = resolver
            .lookup(&location("", &place.pointer))
            .map_err(|e| other(&e))?;
        let target = here.resolver().lookup(reference).map_err(|err| {
            // Inside a document the set does not hold (a stand-in, `true`),
            // no pointer leads anywhere: the missing document is the news.
            let path = reference.split('#').next().unwrap_or_default();
            let stand_in = (!path.is_empty())
                .then(|| here.resolver().lookup(path).ok())
                .flatten()
                .and_then(|target| self.locate(target.contents()))
                .and_then(|(id, _)| self.doc(id)?.obstacle.as_ref());
            match (stand_in, &err) {
                (Some(obstacle), _) => Unresolved::InMissing(obstacle),
                (
                    None,
                    jsonschema::ReferencingError::PointerToNowhere { .. }
                    | jsonschema::ReferencingError::InvalidArrayIndex { .. }
                    | jsonschema::ReferencingError::NoSuchAnchor { .. },
                ) => Unresolved::Nowhere(err.to_string()),
                (None, _) => other(&err),
            }
        })?;
        let value = target.contents();
        let (doc, pointer) = self.locate(value).ok_or_else(|| {
            Unresolved::Other(format!("{reference:?} leads to no schema of the set"))
        })?;
        Ok(Place {
            doc,
            pointer,
            value,
        })
    }

    /// `place` with its plain references followed: a schema that is only a
    /// `$ref` (annotations aside, or any siblings in drafts that ignore them)
    /// stands for its target.
    pub fn follow<'s>(&'s self, place: &Place<'s>) -> Result<Place<'s>, String> {
        let mut here = place.clone();
        for _ in 0..64 {
            let Some(map) = here.value.as_object() else {
                return Ok(here);
            };
            let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
                return Ok(here);
            };
            let draft = self.doc(here.doc).map_or(Draft::Draft202012, |d| d.draft);
            let plain = draft <= Draft::Draft7
                || map
                    .keys()
                    .all(|k| k == "$ref" || vocab::handling(draft, k).constrains_nothing());
            if !plain {
                return Ok(here);
            }
            here = self.resolve(&here, reference)?;
        }
        Err("references lead to references more than 64 times".into())
    }

    /// The draft a place is read in.
    pub fn draft(&self, place: &Place<'_>) -> Draft {
        let around = self.doc(place.doc).map_or(Draft::Draft202012, |d| d.draft);
        match place.value.as_object() {
            Some(map) => vocab::draft_of(map, around),
            None => around,
        }
    }

    /// `file#pointer` of a place, for reports.
    pub fn describe(&self, place: &Place<'_>) -> (String, String) {
        let rel = self
            .doc(place.doc)
            .map_or_else(String::new, |d| crate::file_shown(&d.rel).to_string());
        (rel, self.shown_pointer(place.doc, &place.pointer))
    }

    /// A pointer into a document's view as the file spells it (the view
    /// may hold a rewrite in 2020-12 that renamed keywords).
    pub fn shown_pointer(&self, doc: DocId, pointer: &str) -> String {
        match self.doc(doc).and_then(|d| d.written.as_ref()) {
            Some((draft, original)) => crate::upgrade::original_pointer(original, *draft, pointer),
            None => pointer.to_string(),
        }
    }

    /// `key`'s value in the schema at `place` as its file spells it: the
    /// view's value resolves relative references and identifiers against
    /// the file's base, moves them into the view's namespace, and a
    /// tolerant reader's view has lost `additionalProperties: false`.
    pub fn written_keyword(&self, place: &Place<'_>, key: &str) -> Option<Value> {
        let from_file = self.doc(place.doc).and_then(|doc| {
            doc.file
                .as_ref()?
                .pointer(&place.pointer)?
                .get(key)
                .cloned()
        });
        from_file.or_else(|| place.value.get(key).map(as_written))
    }

    /// The validator for a place, compiled once.
    pub fn validator(&self, place: &Place<'_>) -> Option<Rc<Validator>> {
        let doc = self.doc(place.doc)?;
        let at = location(&doc.uri, &place.pointer);
        if let Some(found) = self.validators.borrow().get(&at) {
            return found.clone();
        }
        let compiled = unless_it_panics(|| {
            jsonschema::options()
                .with_registry(&self.registry)
                .should_validate_formats(self.options.formats == Formats::Assertion)
                .build(&json!({ "$ref": at }))
                .ok()
        })
        .map(Rc::new);
        self.validators.borrow_mut().insert(at, compiled.clone());
        compiled
    }

    /// Why the validator refuses to compile the schema at `place`, in its
    /// words, and the place of the keyword it refuses (`place` itself when
    /// that cannot be told); `None` when it compiles.
    pub fn uncompiled(&self, place: &Place<'_>) -> Option<(String, Place<'_>)> {
        if self.validator(place).is_some() {
            return None;
        }
        let doc = self.doc(place.doc)?;
        let refused = unless_it_panics(|| {
            jsonschema::options()
                .with_registry(&self.registry)
                .should_validate_formats(self.options.formats == Formats::Assertion)
                .build(&json!({ "$ref": location(&doc.uri, &place.pointer) }))
                .err()
                .map(|error| {
                    let pointer = error.schema_path().to_string();
                    (
                        error.to_string(),
                        pointer,
                        error.instance().clone().into_owned(),
                    )
                })
        });
        let here = || self.place(place.doc, &place.pointer);
        let Some((why, pointer, instance)) = refused else {
            return Some(("the validator stops while compiling it".into(), here()?));
        };
        // The error names a pointer, not its document: the one of this
        // view holding the refused value there, this place's own first.
        let view = |id: &DocId| {
            self.doc(*id)
                .is_some_and(|d| d.version == doc.version && d.role == doc.role)
        };
        let at = std::iter::once(place.doc)
            .chain((0..self.first + self.docs.len()).filter(view))
            .filter_map(|id| self.place(id, &pointer))
            .find(|found| *found.value == instance);
        Some((why, at.or_else(here)?))
    }

    /// Whether the schema at `place` accepts `value`; `None` when it cannot be compiled.
    pub fn accepts(&self, place: &Place<'_>, value: &Value) -> Option<bool> {
        self.validator(place).map(|v| v.is_valid(value))
    }

    /// Why the schema at `place` refuses `value`, in the validator's words:
    /// `(instance pointer, message)`.
    pub fn refusal(&self, place: &Place<'_>, value: &Value) -> Option<(String, String)> {
        let validator = self.validator(place)?;
        let error = validator.iter_errors(value).next()?;
        Some((
            error.instance_path().to_string(),
            contract::plain(&spelled_in(&error.to_string())),
        ))
    }

    /// The registry, for samplers and the canonical form.
    pub fn registry(&self) -> &Registry<'b> {
        &self.registry
    }

    /// Whether a document of the space is read in draft 4, whose `type:
    /// integer` refuses `1.0`: there, how a number is written tells values
    /// apart that `enum`, `const` and every other keyword take as one.
    pub fn spelling_matters(&self) -> bool {
        self.docs.iter().any(|doc| doc.draft == Draft::Draft4)
            || self.parent.is_some_and(Space::spelling_matters)
    }

    /// The root value of a document.
    pub fn root(&self, doc: DocId) -> Option<&Value> {
        lookup(&self.registry, &self.doc(doc)?.uri, "")
    }

    /// The root of every document of one view (version and role), this
    /// layer's and its parents': all a validation entered in that view can
    /// reach.
    pub fn view_roots(&self, version: Version, role: Role) -> Vec<&Value> {
        let mut roots: Vec<&Value> = self
            .docs
            .iter()
            .filter(|d| d.version == version && d.role == role)
            .filter_map(|d| lookup(&self.registry, &d.uri, ""))
            .collect();
        if let Some(parent) = self.parent {
            roots.extend(parent.view_roots(version, role));
        }
        roots
    }

    /// The documents of one view, this space's and its parent's.
    pub fn view_docs(&self, version: Version, role: Role) -> Vec<DocId> {
        let mut docs: Vec<DocId> = self
            .docs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.version == version && d.role == role)
            .map(|(offset, _)| self.first + offset)
            .collect();
        if let Some(parent) = self.parent {
            docs.extend(parent.view_docs(version, role));
        }
        docs
    }

    /// A space holding this one's documents and, for each patch, a copy of a
    /// document with the schema at a pointer replaced; the copies take the
    /// ids from [`Space::next_id`] on, in order. A copy that would hold an
    /// identifier below its root is refused: it sits beside the original
    /// (so that relative references resolve alike), where such an
    /// identifier names the original's resource too, and the validator
    /// would read one for the other (or panic looking up an anchor).
    pub fn derive<'s>(&'s self, patches: Vec<Patch>) -> Result<Space<'s>, crate::Error> {
        let mut docs = Vec::new();
        let mut values = Vec::new();
        let first = self.first + self.docs.len();
        for (n, patch) in patches.into_iter().enumerate() {
            let (Some(base), Some(root)) = (self.doc(patch.doc), self.root(patch.doc)) else {
                continue;
            };
            let uri = derived_uri(&base.uri, first + n);
            let mut value = root.clone();
            if let Some(slot) = value.pointer_mut(&patch.pointer) {
                *slot = patch.value;
            }
            if let Some(pointer) = embedded_identifier(&value) {
                return Err(crate::Error::Registry(format!(
                    "{}: a copy would share the identifier at {pointer} with the original",
                    base.rel
                )));
            }
            set_id(&mut value, base.draft, &uri);
            let mut doc = base.clone();
            doc.uri = uri;
            doc.file = None;
            docs.push(doc);
            values.push(value);
        }
        let registry = register(Some(&self.registry), &mut docs, values)?;
        Ok(Space::layer(
            registry,
            docs,
            first,
            Some(self),
            self.options,
        ))
    }

    /// The id the `n`-th patch of [`Space::derive`] gets in the derived space.
    pub fn next_id(&self) -> DocId {
        self.first + self.docs.len()
    }
}

/// A document with one schema replaced, for [`Space::derive`].
pub struct Patch {
    pub doc: DocId,
    pub pointer: String,
    pub value: Value,
}

thread_local! {
    /// How many calls of [`unless_it_panics`] are running on this thread.
    static CATCHING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// What `work` (a call into the `jsonschema` crate) gives, or `None` where
/// it panics: it has panicked compiling schemas no obstacle foresaw (an
/// anchor looked up in a resource it did not keep), and a checker that
/// cannot read a schema says "cannot decide", it does not stop.
pub(crate) fn unless_it_panics<T>(work: impl FnOnce() -> Option<T>) -> Option<T> {
    CATCHING.with(|depth| depth.set(depth.get().saturating_add(1)));
    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    CATCHING.with(|depth| depth.set(depth.get().saturating_sub(1)));
    done.ok().flatten()
}

/// Whether a panic on this thread now would be caught by the checker and
/// read as "cannot decide": a binary's panic hook can then say so in one
/// line instead of the default message, which reads as a crash.
pub fn panic_is_caught() -> bool {
    CATCHING.with(|depth| depth.get() > 0)
}

/// Where an object below the root of `value` takes an `$id` (or draft 4's
/// `id`) that names a resource, schema or not: the validator may read any
/// object a pointer names as a schema.
fn embedded_identifier(value: &Value) -> Option<String> {
    identifiers_inside(value)
        .find(|(_, id)| !id.starts_with('#'))
        .map(|(pointer, _)| pointer)
}

/// `…/TaskSummary.json` → `…/TaskSummary~7.json`: the same folder, so
/// relative references resolve as from the original.
fn derived_uri(uri: &str, n: DocId) -> String {
    match uri.rsplit_once(".json") {
        Some((stem, rest)) => format!("{stem}~{n}.json{rest}"),
        None => format!("{uri}~{n}"),
    }
}

fn address(value: &Value) -> usize {
    std::ptr::from_ref(value) as usize
}

/// The value at `uri#pointer` in a registry.
fn lookup<'r>(registry: &'r Registry<'_>, uri: &str, pointer: &str) -> Option<&'r Value> {
    let base = jsonschema::uri::from_str(uri).ok()?;
    let resolver = registry.resolver(base);
    let resolved = resolver.lookup(&location("", pointer)).ok()?;
    Some(resolved.contents())
}

/// Sets a document's own identifier to `uri`.
fn set_id(value: &mut Value, draft: Draft, uri: &str) {
    if let Value::Object(map) = value {
        let key = if draft == Draft::Draft4 { "id" } else { "$id" };
        map.insert(key.into(), Value::String(uri.to_string()));
    }
}

/// One view of one document, ready to register: rewritten in 2020-12
/// where `upgrade` says so, with the pointers the set's references name
/// after an address (`named`, any of which may lead into it).
fn prepare(
    set: &SchemaSet,
    (doc, file): (&SchemaDoc, &Arc<Value>),
    version: Version,
    role: Role,
    options: Options,
    (upgrade, named): (bool, &[String]),
) -> (Doc, Value) {
    let base = namespace(version, role);
    let uri = format!("{base}{}", doc.rel);
    let mut value = doc.value.clone();
    let mut draft = draft_of(&value);
    let mut obstacle = None;
    if let Some(deep) = &doc.too_deep {
        obstacle = Some(Obstacle {
            keyword: "nesting".into(),
            pointer: deep.pointer.clone(),
            why: deep.to_string(),
        });
    }
    if draft == Draft::Unknown {
        obstacle.get_or_insert(Obstacle {
            keyword: "$schema".into(),
            pointer: String::new(),
            why: "the document names a dialect the validator does not know".into(),
        });
        draft = Draft::Draft202012;
    }
    if let Some(pointer) = other_draft_inside(&value, draft) {
        obstacle.get_or_insert(Obstacle {
            keyword: "$schema".into(),
            pointer,
            why: "a schema inside the document names another draft; the validator reads \
                  what lies below it in that draft when it gets there from above, and in \
                  the document's own when a reference leads there, which this checker \
                  does not follow"
                .into(),
        });
    }
    if let Some(pointer) = specification_id_inside(&value) {
        obstacle.get_or_insert(Obstacle {
            keyword: "$id".into(),
            pointer,
            why: "a schema inside the document takes an identifier on json-schema.org, \
                  where the validator holds the specification's meta-schemas: it reads \
                  references there against those, or fails"
                .into(),
        });
    }
    if let Some(pointer) = identifier_beside_reference(&value, draft, &uri) {
        obstacle.get_or_insert(Obstacle {
            keyword: if draft == Draft::Draft4 { "id" } else { "$id" }.into(),
            pointer,
            why: "an identifier beside a reference, which this draft ignores: its \
                  validator resolves the reference against the base around the schema"
                .into(),
        });
    }
    // The file as written, its own identifier read at its place as a
    // validator reads it: the view's place stands in for that identifier
    // below, which would hide a schema inside that takes it too.
    if let Some(pointer) = identifier_taken_twice(&doc.value, draft, &uri) {
        obstacle.get_or_insert(Obstacle {
            keyword: if draft == Draft::Draft4 { "id" } else { "$id" }.into(),
            pointer,
            why: "a schema inside the document takes an identifier the document's own, \
                  or another schema of it, already is: the validator reads one of the two \
                  there, or fails"
                .into(),
        });
    }
    if let Some((keyword, pointer)) = unresolvable(&doc.value, draft, &uri) {
        obstacle.get_or_insert(Obstacle {
            keyword: keyword.into(),
            pointer,
            why: "an identifier or reference that resolves against no base here (a URN's \
                  rootless path takes no relative one, and text that is no URI reference \
                  none at all): the validator refuses the document"
                .into(),
        });
    }
    if let Some(pointer) = recursive_reference_elsewhere(&value, draft) {
        obstacle.get_or_insert(Obstacle {
            keyword: "$recursiveRef".into(),
            pointer,
            why: "a recursive reference to another place than \"#\", which 2019-09 \
                  leaves undefined: the validator's reading of it changes with a \
                  reference elsewhere in the document to the schema around it"
                .into(),
        });
    }
    let mut written = None;
    if upgrade && draft != Draft::Draft202012 {
        if let Err(found) = crate::upgrade::to_2020_12(&mut value, draft, named) {
            obstacle.get_or_insert(found);
        }
        written = Some((draft, file.clone()));
        draft = Draft::Draft202012;
    }
    // The executor reads its tool-set file strictly (unknown fields are an
    // error), whatever the wire's readers do.
    if role == Role::Read && options.readers == Readers::Tolerant && doc.kind != DocKind::Config {
        open_objects(&mut value, draft);
    }
    rename(&mut value, draft, set, base, &doc.rel);
    let info = Doc {
        version,
        role,
        rel: doc.rel.clone(),
        kind: doc.kind,
        name: doc.name.clone(),
        uri,
        draft,
        obstacle,
        file: written.is_none().then(|| file.clone()),
        written,
        set_aside: false,
        unbuildable: false,
    };
    (info, value)
}

/// Removes `additionalProperties: false` and `unevaluatedProperties: false`
/// from every schema: how a tolerant reader reads (it ignores fields it does
/// not know, however the schema closes the object).
pub fn open_objects(value: &mut Value, draft: Draft) {
    let pointers: Vec<String> = match vocab::positions(value, "", draft) {
        Ok(positions) => positions.into_iter().map(|p| p.pointer).collect(),
        Err(_) => return, // an obstacle already stops every comparison here
    };
    for pointer in pointers {
        if let Some(Value::Object(map)) = value.pointer_mut(&pointer) {
            for closing in ["additionalProperties", "unevaluatedProperties"] {
                if map.get(closing) == Some(&Value::Bool(false)) {
                    map.remove(closing);
                }
            }
        }
    }
}

/// Moves a document into its view's namespace: its own identifier becomes
/// `base` + `rel`, an absolute reference to another document of the set is
/// pointed at that document's view, and any other absolute identifier or
/// reference moves under the same namespace (so two versions that embed the
/// same `$id` with different bodies stay two resources).
fn rename(value: &mut Value, draft: Draft, set: &SchemaSet, base: &str, rel: &str) {
    let own_ids: Vec<(String, String)> = set
        .docs
        .iter()
        .filter_map(|d| {
            let key = if draft_of(&d.value) == Draft::Draft4 {
                "id"
            } else {
                "$id"
            };
            let id = d.value.get(key)?.as_str()?;
            let id = id.split('#').next().unwrap_or(id);
            (!id.is_empty()).then(|| (id.to_string(), format!("{base}{}", d.rel)))
        })
        .collect();
    let id_key = if draft == Draft::Draft4 { "id" } else { "$id" };
    // A network-path reference (`//host/path`) keeps the scheme of the
    // document's own URI (RFC 3986, 5.2.2): an absolute reference, which
    // would otherwise leave the views for the host it names.
    let scheme = value
        .get(id_key)
        .and_then(Value::as_str)
        .unwrap_or(contract::ID_BASE)
        .split_once("://")
        .map_or("https", |(scheme, _)| scheme)
        .to_string();
    let move_uri = |uri: &str| -> Option<String> {
        let uri = match uri.strip_prefix("//") {
            Some(rest) => format!("{scheme}://{rest}"),
            None => uri.to_string(),
        };
        let (resource, fragment) = match uri.split_once('#') {
            Some((r, f)) => (r, Some(f)),
            None => (uri.as_str(), None),
        };
        if !is_absolute(resource) || on_the_specifications_site(resource) {
            return None;
        }
        let moved = match own_ids.iter().find(|(id, _)| id == resource) {
            Some((_, view)) => view.clone(),
            None => format!("{base}{OUTSIDE}{}", resource.replacen("://", "/", 1)),
        };
        Some(match fragment {
            Some(f) => format!("{moved}#{f}"),
            None => moved,
        })
    };
    let pointers: Vec<String> = match vocab::positions(value, "", draft) {
        Ok(positions) => positions.into_iter().map(|p| p.pointer).collect(),
        Err(_) => Vec::new(),
    };
    absolutize(value, draft, rel, &pointers);
    for pointer in &pointers {
        if let Some(Value::Object(map)) = value.pointer_mut(pointer) {
            for key in ["$ref", id_key] {
                let moved = map.get(key).and_then(Value::as_str).and_then(move_uri);
                if let Some(moved) = moved {
                    map.insert(key.into(), Value::String(moved));
                }
            }
        }
    }
    let view = format!("{base}{rel}");
    // A root identifier relative to the file's place (`other.json`) is the
    // base its own relative references resolve against: it moves with the
    // view, where one of any other kind is the view's place itself.
    let own = value
        .get(id_key)
        .and_then(Value::as_str)
        .map(|id| id.split('#').next().unwrap_or(id))
        .filter(|id| !id.is_empty() && !id.starts_with('/') && !is_absolute(id))
        .and_then(|id| {
            let place = referencing::Uri::parse(view.as_str()).ok()?;
            referencing::uri::resolve_against(&place, id).ok()
        })
        .map(|uri| uri.as_str().to_string())
        .filter(|uri| uri.starts_with(base));
    set_id(value, draft, own.as_deref().unwrap_or(&view));
}

/// In a document whose own identifier is absolute and not its place in
/// the set (a file from elsewhere, compared alone), each relative
/// identifier and `$ref` resolved against its base as written, so that
/// [`rename`] moves it with the rest: against the view's place, a
/// reference to the file by its own name would lead out of it (where the
/// identifier is the file's place, the view's place stands in for it, and
/// relative references lead where they did). `pointers` are the
/// document's schema positions, parents first.
fn absolutize(value: &mut Value, draft: Draft, rel: &str, pointers: &[String]) {
    let id_key = if draft == Draft::Draft4 { "id" } else { "$id" };
    let place = format!("{}{rel}", contract::ID_BASE);
    let Some(root) = value
        .get(id_key)
        .and_then(Value::as_str)
        .map(|id| id.split('#').next().unwrap_or(id))
        .filter(|id| is_absolute(id) && *id != place)
        .and_then(|id| referencing::Uri::parse(id.to_string()).ok())
    else {
        return;
    };
    let mut bases: HashMap<String, referencing::Uri<String>> = HashMap::new();
    bases.insert(String::new(), root);
    for pointer in pointers {
        // The base around: the nearest enclosing position's.
        let mut around = pointer.as_str();
        let base = loop {
            let Some((parent, _)) = around.rsplit_once('/') else {
                break bases.get("").cloned();
            };
            if let Some(base) = bases.get(parent) {
                break Some(base.clone());
            }
            around = parent;
        };
        let (Some(base), Some(Value::Object(map))) = (base, value.pointer_mut(pointer)) else {
            continue;
        };
        // An empty one stays as written: the validator skips an empty
        // reference, which resolved here would name the base.
        let relative =
            |text: &str| !text.is_empty() && !text.starts_with('#') && !is_absolute(text);
        // Drafts up to 7 resolve a reference against the base around it,
        // not against an identifier beside it.
        let beside_a_reference = draft <= Draft::Draft7 && map.contains_key("$ref");
        let mut here = base.clone();
        if !pointer.is_empty() && !beside_a_reference {
            if let Some(Value::String(id)) = map.get_mut(id_key) {
                if relative(id) {
                    if let Ok(resolved) = referencing::uri::resolve_against(&base.borrow(), id) {
                        *id = resolved.as_str().to_string();
                        here = resolved;
                    }
                }
            }
        }
        if let Some(Value::String(reference)) = map.get_mut("$ref") {
            if relative(reference) {
                if let Ok(resolved) = referencing::uri::resolve_against(&base.borrow(), reference) {
                    *reference = resolved.as_str().to_string();
                }
            }
        }
        bases.insert(pointer.clone(), here);
    }
}

/// Whether a URI reference (without its fragment) names a scheme.
fn is_absolute(resource: &str) -> bool {
    resource.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

#[cfg(test)]
mod tests {
    /// A validator's words that quote a schema of a view name its
    /// references as the set spells them (`not` quotes its subschema).
    #[test]
    fn a_validators_words_never_show_a_views_uri() {
        let said = r#"{"not":{"$ref":"https://old-read.compat.invalid/types/Case.json#/$defs/a"}} is not allowed for 1, nor 'https://new-written.compat.invalid/~abs/https/host/x.json'"#;
        assert_eq!(
            super::spelled_in(said),
            r#"{"not":{"$ref":"types/Case.json#/$defs/a"}} is not allowed for 1, nor 'https://host/x.json'"#
        );
        assert_eq!(super::spelled_in("plain words"), "plain words");
    }

    /// A schema the validator panics compiling (two resources of one
    /// identifier, an anchor looked up in the one it did not keep) gives no
    /// validator, and the checker goes on: the obstacle that keeps such a
    /// document from the proofs is not what keeps the panic out.
    #[test]
    fn a_validator_that_panics_compiling_is_none() {
        let text = r##"{"properties": {
            "x": {"$id": "a.json", "$defs": {"a": {"$anchor": "own"}}, "$ref": "#own"},
            "y": {"$id": "a.json", "$defs": {"b": {"$anchor": "other"}}, "$ref": "#other"}
        }}"##;
        let set =
            contract::SchemaSet::from_texts(std::path::Path::new("t"), [("types/Case.json", text)])
                .expect("loads");
        let space = super::Space::new(&set, &set, crate::Options::default()).expect("a space");
        let doc = space
            .find(super::Version::Old, super::Role::Written, "types/Case.json")
            .expect("the document");
        let place = space.place(doc, "").expect("a place");
        assert!(space.validator(&place).is_none());
        assert_eq!(super::unless_it_panics(|| Some(1)), Some(1));
    }

    /// The flag a binary's panic hook reads is up inside the catch only,
    /// and down again after a panic (`resume_unwind` unwinds without the
    /// hook, so the test prints nothing).
    #[test]
    fn a_panic_is_caught_only_inside_the_catch() {
        assert!(!super::panic_is_caught());
        assert_eq!(
            super::unless_it_panics(|| Some(super::panic_is_caught())),
            Some(true)
        );
        let unwound: Option<()> =
            super::unless_it_panics(|| std::panic::resume_unwind(Box::new("the validator")));
        assert_eq!(unwound, None);
        assert!(!super::panic_is_caught());
    }

    /// A copy of a document sits in its folder: an identifier below its
    /// root would name the original's resource as well (the validator then
    /// panicked looking up the anchor `own` in the copy's), so no copy is
    /// made of such a document, and one is made of the same without it.
    #[test]
    fn no_copy_is_made_of_a_document_with_an_identifier_inside() {
        let space = |text: &str| {
            let set = contract::SchemaSet::from_texts(
                std::path::Path::new("t"),
                [("types/Case.json", text)],
            )
            .expect("loads");
            super::Space::new(&set, &set, crate::Options::default()).expect("a space")
        };
        let copies = |space: &super::Space<'_>| {
            let doc = space
                .find(super::Version::Old, super::Role::Read, "types/Case.json")
                .expect("the document");
            let patch = super::Patch {
                doc,
                pointer: "/prefixItems/0/patternProperties".into(),
                value: serde_json::json!({}),
            };
            space.derive(vec![patch]).is_ok()
        };
        let inside = r##"{"prefixItems": [{"$id": "r.json", "$ref": "#own",
            "patternProperties": {"c": {"$anchor": "own"}}}]}"##;
        assert!(!copies(&space(inside)));
        assert!(copies(&space(&inside.replace(r#""$id": "r.json","#, ""))));
    }
}
