//! Which keywords of a tool's `inputSchema` its draft defines.
//!
//! A validator reads a keyword its draft does not define as an annotation:
//! a misspelt one (`maxLenght`), or one of another vocabulary (OpenAPI's
//! `nullable`), asks nothing and lets every input through. So each draft's
//! meta-schema is closed (its keywords and `x-` extensions, nothing else, at
//! every subschema) and the schema is validated against it, by the same
//! validator that will read the schema: what is left unread is named. A
//! resource inside (an `$id`, or draft 4's `id`, beside a `$schema`) that
//! declares another draft is read as that draft, by the validator as here.
//! Drafts 4, 6 and 7 read nothing beside a `$ref`, so a keyword that asks
//! something is refused there too.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::ValidationError;
use jsonschema::{Draft, Validator};
use serde_json::{json, Map, Value};

/// Keywords the draft 2020-12 meta-schema lists, so that a schema written
/// for 2019-09 still passes it, but no 2020-12 validator reads:
/// `{"$recursiveRef": "#"}` there recurses nowhere and asks nothing.
const LISTED_NOT_READ: [&str; 2] = ["$recursiveRef", "$recursiveAnchor"];

/// The drafts a schema may declare: the validator's own list, each with
/// the name an operator knows it by, a short name, and its meta-schema's
/// URI without the scheme.
const DRAFTS: [(Draft, &str, &str, &str); 5] = [
    (
        Draft::Draft4,
        "draft 4",
        "draft-04",
        "json-schema.org/draft-04/schema",
    ),
    (
        Draft::Draft6,
        "draft 6",
        "draft-06",
        "json-schema.org/draft-06/schema",
    ),
    (
        Draft::Draft7,
        "draft 7",
        "draft-07",
        "json-schema.org/draft-07/schema",
    ),
    (
        Draft::Draft201909,
        "draft 2019-09",
        "2019-09",
        "json-schema.org/draft/2019-09/schema",
    ),
    (
        Draft::Draft202012,
        "draft 2020-12",
        "2020-12",
        "json-schema.org/draft/2020-12/schema",
    ),
];

/// Keywords a draft 4, 6 or 7 validator reads that its meta-schema does not
/// list: `$defs`, where a `$ref` may point as into `definitions`; draft 4's
/// `$ref`; and draft 6's `contentMediaType` and `contentEncoding`, which
/// the validator asserts there too. Refusing them would refuse a schema
/// that works.
fn read_beyond_the_meta_schema(draft: Draft) -> Vec<(&'static str, Value)> {
    let mut extra = vec![(
        "$defs",
        json!({"type": "object", "additionalProperties": {"$ref": "#"}}),
    )];
    match draft {
        Draft::Draft4 => extra.push(("$ref", json!({"type": "string"}))),
        Draft::Draft6 => {
            extra.push(("contentMediaType", json!({"type": "string"})));
            extra.push(("contentEncoding", json!({"type": "string"})));
        }
        _ => {}
    }
    extra
}

/// What may stand beside a `$ref` in draft 4, 6 or 7, which read nothing
/// else there: the reference, what names the schema and its draft, places
/// to refer into, and annotations.
const BESIDE_A_REF: [&str; 13] = [
    "$ref",
    "$schema",
    "$id",
    "id",
    "definitions",
    "$defs",
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "readOnly",
    "writeOnly",
];

/// The `$schema` URIs the validator takes for `draft` (see
/// `Draft::from_schema_uri`): either scheme, with or without a `#`, and
/// for the default draft the URI that names no version.
fn uris(draft: Draft) -> Vec<Value> {
    let mut paths: Vec<&str> = DRAFTS
        .iter()
        .filter(|(d, ..)| *d == draft)
        .map(|(.., path)| *path)
        .collect();
    if draft == Draft::default() {
        paths.push("json-schema.org/schema");
    }
    paths
        .iter()
        .flat_map(|path| ["https://", "http://"].map(|scheme| format!("{scheme}{path}")))
        .flat_map(|uri| [format!("{uri}#"), uri])
        .map(Value::String)
        .collect()
}

/// Where the closed meta-schema of the draft named `slug` is registered.
fn closed_uri(slug: &str) -> String {
    format!("https://schemas.vdm.invalid/exec/closed-{slug}.json")
}

/// What a closed meta-schema requires of a resource of draft 2019-09 or
/// 2020-12 inside a schema of another draft, so that the validation names
/// its place: [`unread_keyword`] checks it as a schema of its own.
const SET_ASIDE: &str = "x-vdm-exec: a resource checked on its own";

/// What a closed meta-schema requires of a subschema that declares
/// another draft's `$schema` without being a resource (no `$id`, or draft
/// 4's `id`, beside it), so that the validation names its place. The validator
/// reads such a subschema in the draft it declares where it stands, and in
/// the enclosing draft where a `$ref` reaches it (and the drafts say
/// `$schema` belongs only at a resource's root): which keywords it asks
/// is not one answer.
const NOT_A_RESOURCE: &str = "x-vdm-exec: a $schema that heads no resource";

/// Why a keyword asks nothing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Why {
    /// The draft it is read in does not define it.
    NoKeyword,
    /// It stands beside a `$ref` in a draft that reads nothing else there.
    BesideARef,
    /// A `$schema` heading no resource (see [`NOT_A_RESOURCE`]).
    NotAResource,
}

/// The closed meta-schema of one draft. A resource of another draft is
/// handed to that draft's when it is draft 4, 6 or 7, and set aside (see
/// [`SET_ASIDE`]) when it is draft 2019-09 or 2020-12; any other subschema
/// must hold only this draft's keywords.
fn closed(draft: Draft, slug: &str) -> Option<Value> {
    // Only an object declares a draft: `required` holds of anything else,
    // and would hand a list of schemas (draft 7's `items`) over unchecked.
    let another_draft = json!({
        "type": "object",
        "anyOf": [{"required": ["$id"]}, {"required": ["id"]}],
        "required": ["$schema"],
        "properties": {"$schema": {"not": {"enum": uris(draft)}}}
    });
    let hand_over: Vec<Value> = DRAFTS
        .iter()
        .filter(|(other, ..)| *other != draft)
        .map(|(other, _, other_slug, _)| {
            // Handing a resource to the closed meta-schema of draft 2019-09
            // or 2020-12, whose recursion is dynamic, makes the validator
            // compile them again for each draft's scope: seconds, where
            // these take a fraction of one. Such a resource is set aside.
            let then = match other {
                Draft::Draft4 | Draft::Draft6 | Draft::Draft7 => {
                    json!({"$ref": closed_uri(other_slug)})
                }
                _ => json!({"required": [SET_ASIDE]}),
            };
            json!({
                "if": {"properties": {"$schema": {"enum": uris(*other)}}},
                "then": then
            })
        })
        .collect();
    let open_uri = uris(draft).into_iter().next()?;
    let mut doc = Map::new();
    let body = match draft {
        Draft::Draft201909 | Draft::Draft202012 => {
            doc.insert("$schema".into(), open_uri.clone());
            if draft == Draft::Draft202012 {
                // The vocabularies' `$dynamicRef`s come back here.
                doc.insert("$dynamicAnchor".into(), json!("meta"));
            } else {
                // The vocabularies' `$recursiveRef`s come back here.
                doc.insert("$recursiveAnchor".into(), json!(true));
            }
            // Listed by the 2020-12 meta-schema for draft 2019-09's sake,
            // and read by no 2020-12 validator.
            let not_read: Map<String, Value> = LISTED_NOT_READ
                .iter()
                .filter(|_| draft == Draft::Draft202012)
                .map(|name| (name.to_string(), json!(false)))
                .collect();
            json!({
                "$ref": open_uri,
                "properties": not_read,
                "patternProperties": {"^x-": true},
                "unevaluatedProperties": false
            })
        }
        _ => {
            // The meta-schema itself, its `properties` closed: its `"$ref":
            // "#"` comes back to this document's root. Written as draft 7,
            // whose keywords the older meta-schemas use alike.
            let meta = match draft {
                Draft::Draft4 => &**referencing::meta::DRAFT4,
                Draft::Draft6 => &**referencing::meta::DRAFT6,
                _ => &**referencing::meta::DRAFT7,
            };
            let mut body = meta.as_object()?.clone();
            if draft == Draft::Draft4 {
                // Its one keyword draft 7 reads otherwise: `multipleOf`'s
                // `"minimum": 0, "exclusiveMinimum": true`.
                let multiple_of = body
                    .get_mut("properties")?
                    .get_mut("multipleOf")?
                    .as_object_mut()?;
                multiple_of.remove("minimum");
                multiple_of.insert("exclusiveMinimum".into(), json!(0));
            }
            for key in ["$schema", "$id", "id", "title", "description"] {
                body.remove(key);
            }
            if let Some(definitions) = body.remove("definitions") {
                doc.insert("definitions".into(), definitions);
            }
            let properties = body.get_mut("properties")?.as_object_mut()?;
            for (keyword, schema) in read_beyond_the_meta_schema(draft) {
                properties.entry(keyword).or_insert(schema);
            }
            body.insert("patternProperties".into(), json!({"^x-": true}));
            body.insert("additionalProperties".into(), json!(false));
            // Beside a `$ref` these drafts read no other keyword: one that
            // asks something there asks nothing.
            if body.contains_key("allOf") {
                return None;
            }
            body.insert(
                "allOf".into(),
                json!([{
                    "if": {"required": ["$ref"]},
                    "then": {"propertyNames": {"anyOf": [{"enum": BESIDE_A_REF}, {"pattern": "^x-"}]}}
                }]),
            );
            doc.insert(
                "$schema".into(),
                json!("http://json-schema.org/draft-07/schema#"),
            );
            Value::Object(body)
        }
    };
    doc.insert("$id".into(), json!(closed_uri(slug)));
    doc.insert(
        "allOf".into(),
        json!([{
            "if": {
                "type": "object",
                "required": ["$schema"],
                "properties": {"$schema": {"not": {"enum": uris(draft)}}},
                "not": {"anyOf": [{"required": ["$id"]}, {"required": ["id"]}]}
            },
            "then": {"required": [NOT_A_RESOURCE]}
        }]),
    );
    doc.insert("if".into(), another_draft);
    doc.insert("then".into(), json!({"allOf": hand_over}));
    doc.insert("else".into(), body);
    Some(Value::Object(doc))
}

/// The closed meta-schema of `draft` as a validator, built the first time
/// it is asked for (only the drafts a tool set uses are built, and the
/// ones they hand resources to); `None` if it does not build (a test
/// holds that each does).
fn validator(draft: Draft) -> Option<&'static Validator> {
    static REGISTRY: OnceLock<Option<jsonschema::Registry<'static>>> = OnceLock::new();
    static BUILT: [OnceLock<Option<Validator>>; DRAFTS.len()] =
        [const { OnceLock::new() }; DRAFTS.len()];
    let index = DRAFTS.iter().position(|(d, ..)| *d == draft)?;
    let (_, _, slug, _) = DRAFTS.get(index)?;
    BUILT
        .get(index)?
        .get_or_init(|| {
            // Every draft's, beside the drafts' own meta-schemas, which the
            // closed ones refer to.
            let registry = REGISTRY
                .get_or_init(|| {
                    let docs: Vec<(String, Value)> = DRAFTS
                        .iter()
                        .map(|(draft, _, slug, _)| Some((closed_uri(slug), closed(*draft, slug)?)))
                        .collect::<Option<_>>()?;
                    referencing::SPECIFICATIONS
                        .extend(docs)
                        .and_then(|builder| builder.prepare())
                        .ok()
                })
                .as_ref()?;
            jsonschema::options()
                .with_registry(registry)
                .build(&closed(draft, slug)?)
                .ok()
        })
        .as_ref()
}

/// A place in `schema` (a tool's `inputSchema`, which compiles) where what
/// is written asks nothing, and why, in the operator's words: a keyword
/// the draft it is read in lacks, or what a reference reads in another
/// draft than it is written in.
pub(crate) fn asks_nothing(schema: &Value) -> Option<(String, String)> {
    unread_keyword(schema, draft_of(schema)).or_else(|| misread_reference(schema))
}

/// A keyword of `schema`, read in `draft`, that asks nothing: one the
/// draft it is read in does not define, or one beside a `$ref` where that
/// draft reads no other. Its place, and why.
fn unread_keyword(schema: &Value, draft: Draft) -> Option<(String, String)> {
    // Each resource set aside is checked as a schema of its own, its
    // place in `schema` kept as a prefix; the outer one with it left out.
    let mut pending = vec![(String::new(), schema.clone(), draft)];
    let mut unread = Vec::new();
    while let Some((prefix, mut resource, draft)) = pending.pop() {
        let validator = validator(draft)?;
        let (set_aside, mut found) = findings(validator, &resource);
        if !set_aside.is_empty() {
            for place in set_aside {
                // A resource failing its own `required` fails the keyword
                // holding it, which the outer check would then report: it
                // is left out, as `{}`, which asks nothing.
                if let Some(inner) = resource.pointer_mut(&place) {
                    let inner = std::mem::replace(inner, json!({}));
                    let draft = draft_of(&inner);
                    pending.push((format!("{prefix}{place}"), inner, draft));
                }
            }
            found = findings(validator, &resource).1;
        }
        unread.extend(
            found
                .into_iter()
                .map(|(place, name, why)| (format!("{prefix}{place}"), name, why)),
        );
    }
    // A subschema that fails takes its parent's keyword down with it (a
    // failed keyword evaluates nothing), so the parent's `properties` is
    // reported too: the deepest place is the one misspelt. In one
    // subschema, a `$schema` heading no resource is told first: which
    // draft its other keywords belong to is what it leaves open.
    let (place, name, why) = unread
        .into_iter()
        .max_by_key(|(place, _, why)| (place.matches('/').count(), *why == Why::NotAResource))?;
    let draft = draft_at(schema, draft, &place);
    let name = proto::wire::shortened(&name, 200);
    let why = match why {
        Why::BesideARef => format!(
            "{name:?} stands beside \"$ref\", where {draft} reads no other keyword, so it asks nothing: put the reference and it in an \"allOf\""
        ),
        Why::NoKeyword => format!(
            "{name:?} is no {draft} keyword, so no validator reads it and it asks nothing: check its spelling, or write an extension as \"x-…\""
        ),
        Why::NotAResource => "\"$schema\" heads no resource here (no \"$id\" beside it), so which draft the subschema is read in depends on the way to it: the validator reads it in the draft named where it stands, and in the enclosing draft where a \"$ref\" reaches it; give it an \"$id\" (draft 4: \"id\") and refer to it by that, or leave \"$schema\" out".to_string(),
    };
    Some((place, why))
}

/// The draft a schema is read in at its root: the one its `$schema`
/// names, 2020-12 without one.
fn draft_of(schema: &Value) -> Draft {
    let declared = schema.get("$schema").and_then(Value::as_str);
    declared.map_or(Draft::default(), Draft::from_schema_uri)
}

/// What `validator` (a closed meta-schema) finds in `resource`: the places
/// of the resources it sets aside, and each keyword it refuses (its place,
/// its name, and why). The errors inside a failed `anyOf` or `oneOf` are
/// looked into: where a meta-schema offers a choice (draft 7's `items`, a
/// schema or a list of them), the validator reports only that no branch
/// held, not which keyword failed the branch.
fn findings(validator: &Validator, resource: &Value) -> (Vec<String>, Vec<(String, String, Why)>) {
    let mut set_aside = Vec::new();
    let mut unread = Vec::new();
    let mut errors: Vec<ValidationError<'static>> = validator
        .iter_errors(resource)
        .map(ValidationError::to_owned)
        .collect();
    while let Some(err) = errors.pop() {
        let parts = err.into_parts();
        let place = parts.instance_path.as_str().to_string();
        let (name, why) = match parts.kind {
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                errors.extend(context.into_iter().flatten());
                continue;
            }
            ValidationErrorKind::Required { property } if property == SET_ASIDE => {
                set_aside.push(place);
                continue;
            }
            // The root of what is checked names the draft it is read in.
            ValidationErrorKind::Required { property } if property == NOT_A_RESOURCE => {
                if !place.is_empty() {
                    unread.push((
                        format!("{place}/$schema"),
                        "$schema".into(),
                        Why::NotAResource,
                    ));
                }
                continue;
            }
            ValidationErrorKind::UnevaluatedProperties { unexpected }
            | ValidationErrorKind::AdditionalProperties { unexpected } => {
                let Some(name) = unexpected.into_iter().next() else {
                    continue;
                };
                (name, Why::NoKeyword)
            }
            // A keyword the meta-schema lists and the validator does not
            // read, refused by name (see `LISTED_NOT_READ`).
            ValidationErrorKind::FalseSchema => {
                let Some(name) = LISTED_NOT_READ
                    .iter()
                    .find(|name| place.rsplit('/').next() == Some(**name))
                else {
                    continue;
                };
                unread.push((place, name.to_string(), Why::NoKeyword));
                continue;
            }
            ValidationErrorKind::PropertyNames { error } => {
                let Some(name) = error.instance().as_str().map(str::to_string) else {
                    continue;
                };
                (name, Why::BesideARef)
            }
            _ => continue,
        };
        let token = name.replace('~', "~0").replace('/', "~1");
        unread.push((format!("{place}/{token}"), name, why));
    }
    (set_aside, unread)
}

/// The `$schema` a subschema declares as a resource: beside an `$id`, or
/// draft 4's `id`.
fn declared(subschema: &Value) -> Option<&str> {
    let id = subschema.get("$id").or_else(|| subschema.get("id"));
    id.and(subschema.get("$schema")?.as_str())
}

/// The name of the draft the subschema holding the keyword at `place` is
/// read in: the root's, or that of the innermost resource on the way that
/// declares one.
fn draft_at(schema: &Value, root: Draft, place: &str) -> &'static str {
    let tokens: Vec<String> = place
        .split('/')
        .skip(1)
        .map(|token| token.replace("~1", "/").replace("~0", "~"))
        .collect();
    // The last token is the keyword itself.
    let mut on_the_way = tokens.iter().take(tokens.len().saturating_sub(1));
    let mut draft = root;
    let mut here = Some(schema);
    while let Some(subschema) = here {
        if let Some(uri) = declared(subschema) {
            draft = Draft::from_schema_uri(uri);
        }
        here = on_the_way.next().and_then(|token| match subschema {
            Value::Object(map) => map.get(token),
            Value::Array(items) => items.get(token.parse::<usize>().ok()?),
            _ => None,
        });
    }
    name_of(draft)
}

/// The name an operator knows `draft` by.
fn name_of(draft: Draft) -> &'static str {
    DRAFTS
        .iter()
        .find(|(d, ..)| *d == draft)
        .map_or("its draft", |(_, name, ..)| name)
}

/// A reference in `schema` (a tool's `inputSchema`, which compiles and
/// whose keywords [`unread_keyword`] found read) whose target the validator
/// reads in another draft than the one it is written in, or whose target
/// holds a keyword that asks nothing (a target no keyword of the schema's
/// holds as a schema, such as an `x-` extension's value, was not checked
/// as one): the place, and why.
///
/// A `$ref` by JSON pointer reads its target in the draft of the resource
/// the pointer starts from, whatever a resource on the way declares:
/// `"#/definitions/a"` in a draft 7 schema reads a draft 2020-12 resource
/// there as draft 7, and its `prefixItems` asks nothing. The references are
/// followed as the validator follows them (the same resolver, each target's
/// subschemas read in the draft it was reached in), so that what a
/// reference reaches is checked too.
fn misread_reference(schema: &Value) -> Option<(String, String)> {
    let root = draft_of(schema);
    let resource = root.create_resource_ref(schema);
    // The validator built its registry alike; should this one not build,
    // which draft each reference reads in is not known.
    let unknown = |err: referencing::Error| {
        let why = format!("its references cannot be followed as the validator follows them: {err}");
        (String::new(), why)
    };
    let base = referencing::uri::from_str(resource.id().unwrap_or("json-schema:///"));
    let registry = base.and_then(|base| {
        let registry = referencing::Registry::new()
            .draft(root)
            .add(base.as_str(), resource)?
            .prepare()?;
        Ok((base, registry))
    });
    let (base, registry) = match registry {
        Ok(built) => built,
        Err(err) => return Some(unknown(err)),
    };
    let mut written: Option<Written<'_>> = None;
    let mut seen = HashSet::new();
    let mut checked = HashSet::new();
    // Each subschema with the draft it is read in, the resolver at it, and
    // whether a reference reached it (the validator then keeps the draft
    // and the resolver it reached it with).
    let mut pending = vec![(schema, root, registry.resolver(base), false)];
    while let Some((node, draft, resolver, reached)) = pending.pop() {
        let (draft, resolver) = if reached {
            (draft, resolver)
        } else {
            let draft = draft.detect(node);
            let subresource = referencing::ResourceRef::new(node, draft);
            match resolver.in_subresource(subresource) {
                Ok(resolver) => (draft, resolver),
                Err(err) => return Some(unknown(err)),
            }
        };
        let key = (
            std::ptr::from_ref(node),
            draft,
            resolver.base_uri().to_string(),
        );
        if !seen.insert(key) {
            continue;
        }
        for keyword in ["$ref", "$dynamicRef"] {
            let Some(reference) = node.get(keyword).and_then(Value::as_str) else {
                continue;
            };
            // The validator, which built, resolved every reference it
            // follows: one that does not resolve stands where it never goes
            // (an unused definition).
            let Ok(resolved) = resolver.lookup(reference) else {
                continue;
            };
            let (target, target_resolver, read) = resolved.into_inner();
            let written = written.get_or_insert_with(|| Written::of(schema, root));
            // A target outside the schema (a meta-schema) is its own resource.
            let Some(own) = written.draft(target) else {
                continue;
            };
            if read != own {
                let why = format!(
                    "{:?} reaches {:?}, written in {}, by a JSON pointer from a {} resource, so the validator reads it as {}, not as written (a keyword {} lacks asks nothing there): refer to it through the {} resource's \"$id\" instead, with a pointer after it if need be",
                    proto::wire::shortened(reference, 200),
                    written.place(target),
                    name_of(own),
                    name_of(read),
                    name_of(read),
                    name_of(read),
                    name_of(own),
                );
                let place = written.place(node);
                return Some((format!("{place}/{keyword}"), why));
            }
            if checked.insert((std::ptr::from_ref(target), read)) {
                let not_a_schema = not_a_schema(target, read).map(|err| {
                    let why = format!("is no {} schema: {err}", name_of(read));
                    (err.instance_path().as_str().to_string(), why)
                });
                if let Some((inside, why)) = not_a_schema.or_else(|| unread_keyword(target, read)) {
                    let why = format!(
                        "{why} (read as a schema since {:?} at {}/{keyword} reaches it)",
                        proto::wire::shortened(reference, 200),
                        written.place(node),
                    );
                    return Some((format!("{}{inside}", written.place(target)), why));
                }
            }
            pending.push((target, read, target_resolver, true));
        }
        for child in draft.subresources_of(node) {
            pending.push((child, draft, resolver.clone(), false));
        }
    }
    None
}

/// Why `target`, read as a schema of `draft` where a reference reaches
/// it, is no schema of that draft. The validator holds a schema to its
/// draft's meta-schema where it stands, not where a reference reaches it:
/// under an `x-` extension, draft 6's `"exclusiveMaximum": 5` read as
/// draft 4 was compiled as asking nothing. Built on its own, the target is
/// held to it first; a reference it cannot resolve on its own comes after
/// that, and is no answer.
fn not_a_schema(target: &Value, draft: Draft) -> Option<ValidationError<'static>> {
    match jsonschema::options().with_draft(draft).build(target) {
        Err(err) if !matches!(err.kind(), ValidationErrorKind::Referencing(_)) => Some(err),
        _ => None,
    }
}

/// Every object and array of `schema` by address, with the draft it is
/// written in (the root's, or that of the innermost resource on the way
/// that declares one, itself included) and the way to it from its parent,
/// so that its place is found without one string kept for each.
struct Written<'a> {
    nodes: HashMap<*const Value, (Draft, Option<Parent<'a>>)>,
}

/// An object or array holding a node, and the step from it to the node.
type Parent<'a> = (*const Value, Step<'a>);

/// One step down from an object or an array.
#[derive(Clone, Copy)]
enum Step<'a> {
    Member(&'a str),
    Item(usize),
}

impl<'a> Written<'a> {
    fn of(schema: &'a Value, root: Draft) -> Self {
        let mut nodes = HashMap::new();
        let mut pending = vec![(schema, root, None)];
        while let Some((node, outer, parent)) = pending.pop() {
            let draft = declared(node).map_or(outer, Draft::from_schema_uri);
            let here = std::ptr::from_ref(node);
            match node {
                Value::Object(map) => pending.extend(
                    map.iter()
                        .filter(|(_, value)| value.is_object() || value.is_array())
                        .map(|(key, value)| (value, draft, Some((here, Step::Member(key))))),
                ),
                Value::Array(items) => pending.extend(
                    items
                        .iter()
                        .enumerate()
                        .filter(|(_, value)| value.is_object() || value.is_array())
                        .map(|(index, value)| (value, draft, Some((here, Step::Item(index))))),
                ),
                _ => continue,
            }
            nodes.insert(here, (draft, parent));
        }
        Self { nodes }
    }

    /// The draft `node` is written in, if it is in the schema.
    fn draft(&self, node: &Value) -> Option<Draft> {
        Some(self.nodes.get(&std::ptr::from_ref(node))?.0)
    }

    /// Where `node` stands in the schema, as a JSON pointer.
    fn place(&self, node: &Value) -> String {
        let mut steps = Vec::new();
        let mut here = std::ptr::from_ref(node);
        while let Some((_, Some((parent, step)))) = self.nodes.get(&here) {
            steps.push(*step);
            here = *parent;
        }
        steps
            .iter()
            .rev()
            .map(|step| match step {
                Step::Member(key) => format!("/{}", key.replace('~', "~0").replace('/', "~1")),
                Step::Item(index) => format!("/{index}"),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_drafts_closed_meta_schema_builds() {
        for (draft, name, ..) in super::DRAFTS {
            assert!(super::validator(draft).is_some(), "{name}");
        }
    }
}
