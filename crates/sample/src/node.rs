//! The schema objects a sampler has met, each read once: the keywords a draw
//! looks at, and the subschemas it may enter, as nodes of their own. A draw
//! then follows node numbers and reads fields, where reading the schema
//! again would look every keyword up by name and resolve every subschema
//! anew (about a third of a draw's time before nodes, by a profile).

use std::collections::HashMap;
use std::sync::Arc;

use jsonschema::Draft;
use referencing::{Resolver, Uri};
use serde_json::Value;

/// A node's place in [`Nodes`].
pub(crate) type NodeId = usize;

/// One schema object under one resolver: what a draw reads of it.
pub(crate) struct Node<'r> {
    pub(crate) schema: &'r Value,
    pub(crate) resolver: Resolver<'r>,
    pub(crate) draft: Draft,
    pub(crate) words: Words<'r>,
    /// The subschemas as nodes, read when the node is first entered (a
    /// schema that refers to itself is read once, not without end).
    links: Option<Arc<Links<'r>>>,
}

/// The keywords a draw reads, as the schema writes them.
pub(crate) struct Words<'r> {
    /// `$ref` holds a string (resolvable or not).
    pub(crate) refers: bool,
    pub(crate) constant: Option<&'r Value>,
    pub(crate) enumeration: Option<&'r [Value]>,
    /// `type` is present, whatever it holds.
    pub(crate) type_named: bool,
    /// The types `type` lists, when it is a string or an array.
    pub(crate) types: Option<Vec<&'r str>>,
    /// Which kinds of value the other keywords suggest (bits of [`GUESSES`]).
    pub(crate) suggests: u8,
    pub(crate) minimum: Option<f64>,
    pub(crate) maximum: Option<f64>,
    /// `exclusiveMinimum: true` (drafts 4 and earlier).
    pub(crate) minimum_excluded: bool,
    pub(crate) maximum_excluded: bool,
    pub(crate) exclusive_minimum: Option<f64>,
    pub(crate) exclusive_maximum: Option<f64>,
    pub(crate) multiple_of: Option<f64>,
    pub(crate) min_length: Option<f64>,
    pub(crate) max_length: Option<f64>,
    pub(crate) format: Option<&'r str>,
    pub(crate) pattern: Option<&'r str>,
    pub(crate) min_items: Option<f64>,
    pub(crate) max_items: Option<f64>,
    pub(crate) unique_items: bool,
    pub(crate) required: Vec<&'r str>,
    /// `dependentRequired` and `dependencies`' lists: a name, and the names it brings.
    pub(crate) dependent: Vec<(&'r str, Vec<&'r str>)>,
    pub(crate) min_properties: Option<u64>,
}

/// The keywords that suggest a kind of value where no `type` is named, in the
/// order a guess tries them, with the types each suggests.
pub(crate) const GUESSES: [(&[&str], &[&str]); 4] = [
    (
        &[
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "minProperties",
            "propertyNames",
        ],
        &["object"],
    ),
    (
        &[
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "contains",
            "uniqueItems",
        ],
        &["array"],
    ),
    (
        &["minLength", "maxLength", "pattern", "format"],
        &["string"],
    ),
    (
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
        &["number", "integer"],
    ),
];

impl<'r> Words<'r> {
    /// The keywords of a schema that has none (`true`, `false`).
    pub(crate) const NONE: Words<'static> = Words {
        refers: false,
        constant: None,
        enumeration: None,
        type_named: false,
        types: None,
        suggests: 0,
        minimum: None,
        maximum: None,
        minimum_excluded: false,
        maximum_excluded: false,
        exclusive_minimum: None,
        exclusive_maximum: None,
        multiple_of: None,
        min_length: None,
        max_length: None,
        format: None,
        pattern: None,
        min_items: None,
        max_items: None,
        unique_items: false,
        required: Vec::new(),
        dependent: Vec::new(),
        min_properties: None,
    };

    fn read(schema: &'r Value) -> Self {
        let Some(map) = schema.as_object() else {
            return Words::NONE;
        };
        let number = |key: &str| map.get(key).and_then(Value::as_f64);
        let text = |key: &str| map.get(key).and_then(Value::as_str);
        let flag = |key: &str| map.get(key) == Some(&Value::Bool(true));
        let types = match map.get("type") {
            Some(Value::String(one)) => Some(vec![one.as_str()]),
            Some(Value::Array(many)) => Some(many.iter().filter_map(Value::as_str).collect()),
            _ => None,
        };
        let mut suggests = 0;
        for (bit, (keys, _)) in GUESSES.iter().enumerate() {
            if keys.iter().any(|key| map.contains_key(*key)) {
                suggests |= 1 << bit;
            }
        }
        let mut dependent = Vec::new();
        for key in ["dependentRequired", "dependencies"] {
            for (trigger, names) in map
                .get(key)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if let Value::Array(names) = names {
                    dependent.push((
                        trigger.as_str(),
                        names.iter().filter_map(Value::as_str).collect(),
                    ));
                }
            }
        }
        Words {
            refers: text("$ref").is_some(),
            constant: map.get("const"),
            enumeration: map.get("enum").and_then(Value::as_array).map(Vec::as_slice),
            type_named: map.contains_key("type"),
            types,
            suggests,
            minimum: number("minimum"),
            maximum: number("maximum"),
            minimum_excluded: flag("exclusiveMinimum"),
            maximum_excluded: flag("exclusiveMaximum"),
            exclusive_minimum: number("exclusiveMinimum"),
            exclusive_maximum: number("exclusiveMaximum"),
            multiple_of: number("multipleOf"),
            min_length: number("minLength"),
            max_length: number("maxLength"),
            format: text("format"),
            pattern: text("pattern"),
            min_items: number("minItems"),
            max_items: number("maxItems"),
            unique_items: flag("uniqueItems"),
            required: map
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect(),
            dependent,
            min_properties: map.get("minProperties").and_then(Value::as_u64),
        }
    }
}

/// What a schema says of what its other keywords do not name: items past
/// the leading positions, members past the declared properties.
#[derive(Clone, Copy)]
pub(crate) enum Beyond {
    /// `false`: none.
    Closed,
    /// Each of this schema.
    Schema(NodeId),
}

/// A node's subschemas, as nodes.
#[derive(Default)]
pub(crate) struct Links<'r> {
    /// Where `$ref` leads, when it resolves.
    pub(crate) reference: Option<NodeId>,
    pub(crate) all_of: Vec<NodeId>,
    pub(crate) any_of: Vec<NodeId>,
    pub(crate) one_of: Vec<NodeId>,
    pub(crate) condition: Option<NodeId>,
    pub(crate) then: Option<NodeId>,
    pub(crate) otherwise: Option<NodeId>,
    /// The schemas of the leading positions (`prefixItems`, or `items` as an
    /// array before draft 2020-12).
    pub(crate) tuple: Vec<NodeId>,
    /// What follows the leading positions, when the schema says.
    pub(crate) rest: Option<Beyond>,
    pub(crate) contains: Option<NodeId>,
    pub(crate) properties: Vec<(&'r str, NodeId)>,
    pub(crate) patterns: Vec<(&'r str, NodeId)>,
    /// `additionalProperties`, when written.
    pub(crate) additional: Option<Beyond>,
}

/// Every node met, and where to find each again.
pub(crate) struct Nodes<'r> {
    nodes: Vec<Node<'r>>,
    /// A node by its schema's address, its base URI and its draft: one
    /// document registered under two URIs resolves apart.
    known: HashMap<(usize, Arc<Uri<String>>, Draft), NodeId>,
    /// Whether a draft's validator knows a format, asked once each.
    formats: HashMap<(Draft, &'r str), bool>,
}

impl<'r> Nodes<'r> {
    pub(crate) fn new() -> Self {
        Nodes {
            nodes: Vec::new(),
            known: HashMap::new(),
            formats: HashMap::new(),
        }
    }

    pub(crate) fn get(&self, id: NodeId) -> Option<&Node<'r>> {
        self.nodes.get(id)
    }

    /// The node of `schema` under `resolver`, read now if it is new.
    pub(crate) fn intern(
        &mut self,
        schema: &'r Value,
        resolver: Resolver<'r>,
        draft: Draft,
    ) -> NodeId {
        let key = (
            std::ptr::from_ref(schema) as usize,
            resolver.base_uri(),
            draft,
        );
        if let Some(id) = self.known.get(&key) {
            return *id;
        }
        let id = self.nodes.len();
        let mut words = Words::read(schema);
        // A format the draft's validator does not know (`uuid` in draft 7)
        // asserts nothing there: values are drawn as if it were not written.
        // A dialect no draft knows (a `$schema` cut short) cannot be asked,
        // and the validator refuses to be built for it: its formats are
        // drawn by as written, the values put to a validator all the same.
        if let Some(format) = words.format.filter(|_| draft != Draft::Unknown) {
            let known = *self.formats.entry((draft, format)).or_insert_with(|| {
                jsonschema::options()
                    .with_draft(draft)
                    .should_validate_formats(true)
                    .should_ignore_unknown_formats(false)
                    .build(&serde_json::json!({ "format": format }))
                    .is_ok()
            });
            if !known {
                words.format = None;
            }
        }
        // Draft 4's validator reads an exclusive bound only as `true` beside
        // its `minimum` or `maximum`, where a number bounds nothing (and
        // only its meta-schema, which places read through a reference
        // escape, says it must not be one); later drafts read a number only.
        match draft {
            Draft::Draft4 => {
                words.exclusive_minimum = None;
                words.exclusive_maximum = None;
            }
            Draft::Unknown => {}
            _ => {
                words.minimum_excluded = false;
                words.maximum_excluded = false;
            }
        }
        self.nodes.push(Node {
            schema,
            resolver,
            draft,
            words,
            links: None,
        });
        self.known.insert(key, id);
        id
    }

    /// The node's subschemas, read on the first call.
    pub(crate) fn links(&mut self, id: NodeId) -> Arc<Links<'r>> {
        if let Some(links) = self.nodes.get(id).and_then(|node| node.links.clone()) {
            return links;
        }
        let links = Arc::new(self.read_links(id));
        if let Some(node) = self.nodes.get_mut(id) {
            node.links = Some(links.clone());
        }
        links
    }

    fn read_links(&mut self, id: NodeId) -> Links<'r> {
        let Some(node) = self.nodes.get(id) else {
            return Links::default();
        };
        let (schema, draft) = (node.schema, node.draft);
        let Some(map) = schema.as_object() else {
            return Links::default();
        };
        let reference = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| {
                let (target, resolver, draft) = node.resolver.lookup(reference).ok()?.into_inner();
                Some((target, resolver, draft))
            });
        let reference =
            reference.map(|(target, resolver, draft)| self.intern(target, resolver, draft));
        let (tuple_key, rest_key) = if draft <= Draft::Draft201909 {
            ("items", "additionalItems")
        } else {
            ("prefixItems", "items")
        };
        let tuple_written = map.get(tuple_key).is_some_and(Value::is_array);
        let rest_key = if tuple_written {
            Some(rest_key).filter(|key| map.contains_key(*key))
        } else {
            Some("items").filter(|key| map.get(*key).is_some_and(|items| !items.is_array()))
        };
        let rest = match rest_key.and_then(|key| map.get(key)) {
            None => None,
            Some(Value::Bool(false)) => Some(Beyond::Closed),
            Some(schema) => self.child(id, schema).map(Beyond::Schema),
        };
        let additional = match map.get("additionalProperties") {
            None => None,
            Some(Value::Bool(false)) => Some(Beyond::Closed),
            Some(schema) => self.descend(id, schema).map(Beyond::Schema),
        };
        Links {
            reference,
            all_of: self.children(id, map.get("allOf")),
            any_of: self.children(id, map.get("anyOf")),
            one_of: self.children(id, map.get("oneOf")),
            condition: map.get("if").and_then(|schema| self.child(id, schema)),
            then: map.get("then").and_then(|schema| self.child(id, schema)),
            otherwise: map.get("else").and_then(|schema| self.child(id, schema)),
            tuple: if tuple_written {
                self.children(id, map.get(tuple_key))
            } else {
                Vec::new()
            },
            rest,
            contains: map
                .get("contains")
                .and_then(|schema| self.child(id, schema)),
            properties: self.named(id, map.get("properties")),
            patterns: self.named(id, map.get("patternProperties")),
            additional,
        }
    }

    /// `schema` as a node under `parent`: the same resolver, entering the
    /// child's own resource when it names one.
    fn descend(&mut self, parent: NodeId, schema: &'r Value) -> Option<NodeId> {
        let node = self.nodes.get(parent)?;
        let draft = node.draft.detect(schema);
        let resolver = node
            .resolver
            .in_subresource(draft.create_resource_ref(schema))
            .unwrap_or_else(|_| node.resolver.clone());
        Some(self.intern(schema, resolver, draft))
    }

    /// `schema` as a node when it is a schema (an object or a boolean).
    fn child(&mut self, parent: NodeId, schema: &'r Value) -> Option<NodeId> {
        if schema.is_object() || schema.is_boolean() {
            self.descend(parent, schema)
        } else {
            None
        }
    }

    /// The items of a list of subschemas, as nodes.
    fn children(&mut self, parent: NodeId, list: Option<&'r Value>) -> Vec<NodeId> {
        list.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|schema| self.descend(parent, schema))
            .collect()
    }

    /// The members of an object of subschemas, by name, as nodes.
    fn named(&mut self, parent: NodeId, members: Option<&'r Value>) -> Vec<(&'r str, NodeId)> {
        members
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(name, schema)| Some((name.as_str(), self.descend(parent, schema)?)))
            .collect()
    }
}
